// SPDX-License-Identifier: GPL-2.0-or-later
/* /metrics over HTTP (promhttp.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "offloop.h"
#include "prom.h"
#include "promhttp.h"
#include "timeutil.h"

/* A connection as the deadline's watchdog sees it. */
struct slot {
	int fd;			/* -1: free */
	int64_t due_ns;		/* shut down then (monotonic), INT64_MAX: never */
	bool idle;		/* kept alive between an answer and the next request */
};

struct promhttp {
	struct MHD_Daemon *d;
	pthread_mutex_t mtx;
	char *text;		/* the latest exposition, or NULL */
	size_t len;
	/* The connections and their watchdog, under their own lock: MHD's
	 * thread closes a socket only after its CLOSED notice, which takes
	 * it, so the watchdog never shuts down a reused descriptor. */
	pthread_mutex_t slot_mtx;
	pthread_cond_t slot_cond;
	struct slot slots[PROMHTTP_CONNECTIONS];
	pthread_t watchdog;
	bool watching, stopping;
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

/* The slot of connection c (MHD's thread), or NULL. */
static struct slot *slot_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

/* Under slot_mtx: fewer than PROMHTTP_SPARE slots free, the connection
 * kept alive longest without a request gives way (shut down: MHD's
 * thread sees the end and closes it), so that a new client is answered
 * beside keep-alive holders: MHD accepts none while every slot is held. */
static void make_room(struct promhttp *h)
{
	struct slot *oldest = NULL;
	size_t used = 0;

	for (size_t i = 0; i < PROMHTTP_CONNECTIONS; i++) {
		struct slot *s = &h->slots[i];

		used += s->fd >= 0 && s->due_ns != INT64_MAX;
		if (s->fd >= 0 && s->idle && s->due_ns != INT64_MAX &&
		    (!oldest || s->due_ns < oldest->due_ns))
			oldest = s;
	}
	if (used + PROMHTTP_SPARE <= PROMHTTP_CONNECTIONS || !oldest)
		return;
	shutdown(oldest->fd, SHUT_RDWR);
	oldest->due_ns = INT64_MAX;	/* once: MHD closes it */
	oldest->idle = false;
}

/* Connection c is idle (kept alive: room is made then) or not; due_ns,
 * when not 0, its new deadline. */
static void set_due(struct promhttp *h, struct MHD_Connection *c, bool idle, int64_t due_ns)
{
	struct slot *s = slot_of(c);

	pthread_mutex_lock(&h->slot_mtx);
	if (s && s->fd >= 0 && s->due_ns != INT64_MAX) {
		s->idle = idle;
		if (due_ns)
			s->due_ns = due_ns;
		if (idle)
			make_room(h);
	}
	pthread_mutex_unlock(&h->slot_mtx);
}

/* The request came whole: the bound is on its arrival, not on the
 * answer's sending, which has PROMHTTP_REQUEST_S and its length's time
 * at PROMHTTP_SEND_RATE (a 3 MB exposition over a slow link arrives
 * whole; a client that reads nothing is cut at MHD's idle timeout). */
static void answering(struct promhttp *h, struct MHD_Connection *c, size_t len)
{
	set_due(h, c, false, monotonic_ns() + (int64_t)PROMHTTP_REQUEST_S * NS_PER_SEC +
		(int64_t)(len / PROMHTTP_SEND_RATE * NS_PER_SEC));
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
		set_due(h, c, false, 0);
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
	answering(h, c, h->text ? h->len : sizeof(none));
	if (h->text)
		ret = reply(c, MHD_HTTP_OK, h->text, h->len, MHD_RESPMEM_MUST_COPY);
	else
		ret = reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, none, sizeof(none) - 1,
			    MHD_RESPMEM_PERSISTENT);
	pthread_mutex_unlock(&h->mtx);
	return ret;
}

/* MHD's thread: a connection opened (given a slot) or closed (its slot
 * freed, before MHD closes its socket). */
static void on_connection(void *cls, struct MHD_Connection *c, void **ctx,
			  enum MHD_ConnectionNotificationCode code)
{
	const union MHD_ConnectionInfo *fd =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct promhttp *h = cls;
	struct slot *s = *ctx;

	pthread_mutex_lock(&h->slot_mtx);
	if (code == MHD_CONNECTION_NOTIFY_STARTED && fd) {
		for (size_t i = 0; i < PROMHTTP_CONNECTIONS && !s; i++)
			if (h->slots[i].fd < 0)
				s = &h->slots[i];
		if (s) {	/* there is one: MHD admits no more than PROMHTTP_CONNECTIONS */
			s->fd = fd->connect_fd;
			s->due_ns = monotonic_ns() + (int64_t)PROMHTTP_REQUEST_S * NS_PER_SEC;
			s->idle = false;
			make_room(h);
		}
		*ctx = s;
	} else if (code == MHD_CONNECTION_NOTIFY_CLOSED && s) {
		s->fd = -1;
		*ctx = NULL;
	}
	pthread_mutex_unlock(&h->slot_mtx);
}

/* MHD's thread: a request answered (or ended): the next one's time
 * starts, and the connection is idle until its first bytes. */
static void on_completed(void *cls, struct MHD_Connection *c, void **state,
			 enum MHD_RequestTerminationCode code)
{
	(void)state;
	(void)code;
	set_due(cls, c, true, monotonic_ns() + (int64_t)PROMHTTP_REQUEST_S * NS_PER_SEC);
}

/*
 * The whole-request bound: a connection whose request has not come whole
 * PROMHTTP_REQUEST_S after it opened (or after its last answer), or whose
 * answer is not sent by its own bound (answering()), is shut down,
 * however its bytes trickle; MHD's thread sees the end and closes it.
 * MHD's own timeout counts idle time only, which every byte resets.
 */
static void *watchdog_main(void *arg)
{
	struct promhttp *h = arg;

	pthread_mutex_lock(&h->slot_mtx);
	while (!h->stopping) {
		int64_t now = monotonic_ns(), next = now + NS_PER_SEC;
		struct timespec ts;

		for (size_t i = 0; i < PROMHTTP_CONNECTIONS; i++) {
			struct slot *s = &h->slots[i];

			if (s->fd < 0 || s->due_ns == INT64_MAX)
				continue;
			if (now >= s->due_ns) {
				shutdown(s->fd, SHUT_RDWR);
				s->due_ns = INT64_MAX;	/* once: MHD closes it */
				s->idle = false;
			} else if (s->due_ns < next) {
				next = s->due_ns;
			}
		}
		ts = ns_to_timespec(next);
		pthread_cond_timedwait(&h->slot_cond, &h->slot_mtx, &ts);
	}
	pthread_mutex_unlock(&h->slot_mtx);
	return NULL;
}

/* The slots, their lock and the watchdog's clock; 0 or -errno. */
static int slots_init(struct promhttp *h)
{
	pthread_condattr_t ca;
	int err;

	for (size_t i = 0; i < PROMHTTP_CONNECTIONS; i++)
		h->slots[i].fd = -1;
	pthread_mutex_init(&h->slot_mtx, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	err = pthread_cond_init(&h->slot_cond, &ca);
	pthread_condattr_destroy(&ca);
	if (err)
		pthread_mutex_destroy(&h->slot_mtx);
	return -err;
}

static void slots_fini(struct promhttp *h)
{
	if (h->watching) {
		pthread_mutex_lock(&h->slot_mtx);
		h->stopping = true;
		pthread_cond_signal(&h->slot_cond);
		pthread_mutex_unlock(&h->slot_mtx);
		pthread_join(h->watchdog, NULL);
	}
	pthread_cond_destroy(&h->slot_cond);
	pthread_mutex_destroy(&h->slot_mtx);
}

/* MHD's daemon with its bounds (promhttp.h) on sa, or NULL (errno). */
static struct MHD_Daemon *start_daemon(struct promhttp *h, struct sockaddr_storage *sa)
{
	return MHD_start_daemon(MHD_USE_EPOLL_INTERNAL_THREAD |
				(sa->ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
				0, NULL, NULL, on_request, h,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)sa,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned int)PROMHTTP_CONNECTIONS,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)PROMHTTP_PER_IP,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)PROMHTTP_MEMORY,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)PROMHTTP_TIMEOUT_S,
				MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
				MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
				MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned int)1,
				MHD_OPTION_END);
}

struct promhttp *promhttp_start(const char *spec, char *err, size_t len)
{
	struct sockaddr_storage sa;
	struct promhttp *h;
	int ret;

	if (parse_spec(spec, &sa, err, len))
		return NULL;
	h = calloc(1, sizeof(*h));
	if (!h || slots_init(h)) {
		snprintf(err, len, "--metrics-listen: no memory");
		free(h);
		return NULL;
	}
	pthread_mutex_init(&h->mtx, NULL);
	ret = offloop_spawn(&h->watchdog, watchdog_main, h, NULL);
	h->watching = !ret;
	if (!ret)
		h->d = start_daemon(h, &sa);
	if (!h->d) {
		if (ret)
			snprintf(err, len, "--metrics-listen %s: cannot start its watchdog thread: %s",
				 spec, strerror(ret));
		else
			snprintf(err, len, "--metrics-listen %s: cannot listen (%s): is the port in use? give another PORT",
				 spec, strerror(errno ? errno : EADDRINUSE));
		slots_fini(h);
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
	slots_fini(h);
	pthread_mutex_destroy(&h->mtx);
	free(h->text);
	free(h);
}
