// SPDX-License-Identifier: GPL-2.0-or-later
/* /metrics over HTTP (promhttp.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "prom.h"
#include "promhttp.h"

struct promhttp {
	struct MHD_Daemon *d;
	pthread_mutex_t mtx;
	char *text;		/* the latest exposition, or NULL */
	size_t len;
};

/* "[ADDR]:PORT" into sa; 0 or -EINVAL. */
static int parse_spec(const char *spec, struct sockaddr_storage *sa, char *err, size_t len)
{
	const char *colon = strrchr(spec, ':');
	char host[64], *end;
	size_t hl;
	long port;

	if (!colon)
		goto bad;
	port = strtol(colon + 1, &end, 10);
	if (end == colon + 1 || *end || port < 1 || port > 65535)
		goto bad;
	hl = (size_t)(colon - spec);
	if (hl >= 2 && spec[0] == '[' && spec[hl - 1] == ']') {
		spec++;
		hl -= 2;
	}
	if (hl >= sizeof(host))
		goto bad;
	memcpy(host, spec, hl);
	host[hl] = '\0';
	if (!hl)
		snprintf(host, sizeof(host), "%s", PROMHTTP_DEFAULT_ADDR);
	memset(sa, 0, sizeof(*sa));
	if (inet_pton(AF_INET, host, &((struct sockaddr_in *)sa)->sin_addr) == 1) {
		((struct sockaddr_in *)sa)->sin_family = AF_INET;
		((struct sockaddr_in *)sa)->sin_port = htons((uint16_t)port);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)sa)->sin6_addr) == 1) {
		((struct sockaddr_in6 *)sa)->sin6_family = AF_INET6;
		((struct sockaddr_in6 *)sa)->sin6_port = htons((uint16_t)port);
		return 0;
	}
bad:
	snprintf(err, len, "--metrics-listen: '%s' is not [ADDR]:PORT: give e.g. :9464, 192.0.2.1:9464 or [::1]:9464",
		 spec);
	return -EINVAL;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status, const char *body,
			     size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(len, (void *)body, mode);
	enum MHD_Result ret;

	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
				status == MHD_HTTP_OK ? PROM_CONTENT_TYPE : "text/plain");
	ret = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version,
				  const char *upload, size_t *upload_len, void **state)
{
	static const char none[] = "no snapshot yet\n", where[] = "rant serves /metrics\n";
	struct promhttp *h = cls;
	enum MHD_Result ret;

	(void)version;
	(void)upload;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "GET /metrics\n", 13,
			     MHD_RESPMEM_PERSISTENT);
	if (!*state) {		/* the headers: wait for the end of the request */
		*state = h;
		return MHD_YES;
	}
	if (*upload_len) {
		*upload_len = 0;	/* a GET's body: read and ignored */
		return MHD_YES;
	}
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, where, sizeof(where) - 1,
			     MHD_RESPMEM_PERSISTENT);
	pthread_mutex_lock(&h->mtx);
	if (h->text)
		ret = reply(c, MHD_HTTP_OK, h->text, h->len, MHD_RESPMEM_MUST_COPY);
	else
		ret = reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, none, sizeof(none) - 1,
			    MHD_RESPMEM_PERSISTENT);
	pthread_mutex_unlock(&h->mtx);
	return ret;
}

struct promhttp *promhttp_start(const char *spec, char *err, size_t len)
{
	struct sockaddr_storage sa;
	struct promhttp *h;

	if (parse_spec(spec, &sa, err, len))
		return NULL;
	h = calloc(1, sizeof(*h));
	if (!h) {
		snprintf(err, len, "--metrics-listen: no memory");
		return NULL;
	}
	pthread_mutex_init(&h->mtx, NULL);
	h->d = MHD_start_daemon(MHD_USE_EPOLL_INTERNAL_THREAD |
				(sa.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
				0, NULL, NULL, on_request, h,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned int)PROMHTTP_CONNECTIONS,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)PROMHTTP_PER_IP,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)PROMHTTP_MEMORY,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)PROMHTTP_TIMEOUT_S,
				MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned int)1,
				MHD_OPTION_END);
	if (!h->d) {
		snprintf(err, len, "--metrics-listen %s: cannot listen (%s): is the port in use? give another PORT",
			 spec, strerror(errno ? errno : EADDRINUSE));
		pthread_mutex_destroy(&h->mtx);
		free(h);
		return NULL;
	}
	return h;
}

void promhttp_publish(struct promhttp *h, char *text, size_t len)
{
	char *old;

	pthread_mutex_lock(&h->mtx);
	old = h->text;
	h->text = text;
	h->len = len;
	pthread_mutex_unlock(&h->mtx);
	free(old);
}

void promhttp_stop(struct promhttp *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->d);
	pthread_mutex_destroy(&h->mtx);
	free(h->text);
	free(h);
}
