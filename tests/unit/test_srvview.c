// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The server's side (src/server/): the trace's lines parsed into calls,
 * and, on sockets of this test's own, sock_diag's dump, the owners from
 * /proc, the options read through pidfd_getfd, and the view that puts
 * them together. The syscall events need root and tracefs: skipped
 * (said) without them.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pidsock.h"
#include "procfd.h"
#include "sockdiag.h"
#include "srvview.h"
#include "syswrite.h"
#include "tap.h"

static void test_parse(void)
{
	struct syswrite_pend pend[SYSWRITE_MAX_TASKS];
	struct syswrite_call c;
	size_t np = 0;

	is_int(syswrite_parse("  nginx-1235   [001] .....   572.833036: sys_writev(fd: 0x00000005, vec: 0x7ffd, vlen: 0x00000002)",
			      pend, &np, &c), 0, "an entry is kept, no call yet");
	is_int((int)np, 1, "one thread waits for its exit");
	is_int(syswrite_parse("  nginx-1235   [001] .....   572.833050: sys_writev -> 0xf0", pend, &np, &c),
	       1, "its exit closes the call");
	is_int(c.tid, 1235, "the thread");
	is_int(c.fd, 5, "the descriptor (hex)");
	is_int(c.kind, SYSW_WRITEV, "writev");
	ok(c.t_ns == 572833036000LL, "the entry's time, ns");
	ok(c.dur_ns == 14000, "entry to exit");
	ok(c.ret == 240, "bytes written");
	is_int(syswrite_parse(" a-b-c-77 [000] ..... 10.000001: sys_sendfile64(out_fd: 9, in_fd: 12, offset: 0x0, count: 600)",
			      pend, &np, &c), 0, "a comm with dashes: the tid after the last");
	is_int(syswrite_parse(" a-b-c-77 [000] ..... 10.000101: sys_sendfile64 -> 0x258", pend, &np, &c), 1,
	       "sendfile closes");
	ok(c.tid == 77 && c.fd == 9 && c.kind == SYSW_SENDFILE && c.ret == 600, "sendfile's fd and bytes");
	is_int(syswrite_parse(" x-5 [000] ..... 1.000000: sys_write -> 0x1", pend, &np, &c), 0,
	       "an exit without its entry is no call");
	is_int(syswrite_parse(" x-5 [000] ..... 1.000000: sys_writeq(fd: 1)", pend, &np, &c), 0,
	       "an event that is not ours");
	is_int(syswrite_parse("garbage", pend, &np, &c), 0, "a line without a head");
	is_int(syswrite_parse(" x-6 [000] ..... 2.000000: sys_recvfrom(fd: 3, ubuf: 0x1, size: 1024)", pend,
			      &np, &c), 0, "recvfrom enters");
	is_int(syswrite_parse(" x-6 [000] ..... 2.000002: sys_recvfrom -> 0x4e", pend, &np, &c), 1,
	       "recvfrom closes");
	ok(c.kind >= SYSW_FIRST_READ && c.ret == 78, "a read of 78 bytes");
	is_str(syswrite_kind_name(SYSW_SENDFILE), "sendfile", "named as strace names it");
}

/* This process's open descriptors. */
static int fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

/* A listener on loopback, a connection to it, the accepted end. */
static int pair(int *lfd, int *cfd, int *afd, uint16_t *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);

	*lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (*lfd < 0 || bind(*lfd, (struct sockaddr *)&a, sizeof(a)) || listen(*lfd, 7) ||
	    getsockname(*lfd, (struct sockaddr *)&a, &len))
		return -1;
	*port = ntohs(a.sin_port);
	*cfd = socket(AF_INET, SOCK_STREAM, 0);
	if (*cfd < 0 || connect(*cfd, (struct sockaddr *)&a, sizeof(a)))
		return -1;
	*afd = accept(*lfd, NULL, NULL);
	return *afd < 0 ? -1 : 0;
}

static void test_diag(int afd, uint16_t port)
{
	struct srv_sock s[8];
	char err[256] = "";
	int n = sockdiag_port(port, false, s, 8, err, sizeof(err)), one = 1;
	int i, fds;
	char a[64], want[64];

	if (!ok(n == 2, "sock_diag: the listener and the accepted end of port %u (%d; %s)", port, n, err))
		return;
	is_int(s[0].state, SRV_LISTEN, "the listener first");
	srvview_addr(&s[1].local, a, sizeof(a));
	snprintf(want, sizeof(want), "127.0.0.1:%u", port);
	is_str(a, want, "the accepted end's local address and port");
	is_int((int)s[0].wqueue, 7, "its backlog");
	ok(s[1].ti.valid && !s[1].ti.full, "the connection's TCP_INFO, sock_diag's part");
	procfd_owners(s, 2, 0);
	is_int(s[0].pid, getpid(), "the listener's owner is this process");
	is_int(s[1].nowners, 1, "one process holds the connection");
	setsockopt(afd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(afd, IPPROTO_TCP, TCP_CORK, &one, sizeof(one));
	fds = fd_count();
	i = pidsock_read(&s[1]);
	if (!ok(i == 0, "pidfd_getfd reads the accepted end (%s)", i ? pidsock_why(i) : "ok"))
		return;
	is_int(s[1].opt.nodelay, 1, "TCP_NODELAY as set");
	is_int(s[1].opt.cork, 1, "TCP_CORK as set");
	ok(s[1].opt.sndbuf > 0 && s[1].opt.rcvbuf > 0, "the buffers");
	ok(s[1].opt.cong[0] != '\0', "the congestion control (%s)", s[1].opt.cong);
	ok(s[1].ti.valid && s[1].ti.full, "TCP_INFO whole from the socket itself");
	is_int(fd_count(), fds, "no descriptor left behind (%d before, %d after)", fds, fd_count());
	s[1].fd = 100000;
	is_int(pidsock_read(&s[1]), -EBADF, "a closed descriptor: -EBADF");
}

static void test_view(uint16_t port, int cfd, int afd)
{
	struct srv_query q = { .pid = getpid(), .port = port };
	struct srv_optcount oc;
	struct srv_view *v;
	char err[512] = "", buf[64];
	int ret = srvview_open(&v, &q, err, sizeof(err));

	if (!ok(ret == 0, "the view of this process's port (%s)", err))
		return;
	is_int(v->pid, getpid(), "the server's pid");
	ok(!v->other_netns, "in rant's own namespace");
	is_int((int)v->nowners, 1, "one process holds the listener");
	ret = srvview_read(v, err, sizeof(err));
	ok(ret == 0 && v->nsocks == 2, "its sockets read (%s)", err);
	srvview_optcount(v, &oc);
	ok(oc.conns == 1 && oc.read == 1 && oc.nodelay == 1 && oc.cork == 1,
	   "one connection, its options read: nodelay and cork on");
	srvview_close(v);

	q.pid = 0;
	ret = srvview_open(&v, &q, err, sizeof(err));
	ok(ret == 0 && v->pid == getpid(), "auto: the port's owner found (%s)", err);
	srvview_close(v);
	q.port = 1;	/* tcpmux: nobody listens there in a test */
	ret = srvview_open(&v, &q, err, sizeof(err));
	ok(ret == -ENOENT && strstr(err, "port 1"), "no listener: -ENOENT, said (%s)", err);

	/* the calls, where this test may trace itself */
	q.port = port;
	q.pid = getpid();
	ret = srvview_open(&v, &q, err, sizeof(err));
	if (!ok(ret == 0, "opened again (%s)", err))
		return;
	ret = srvview_trace(v, err, sizeof(err));
	if (ret) {
		srvview_close(v);
		printf("# skip the send calls: %s\n", err);
		return;
	}
	for (int i = 0; i < 3; i++) {
		if (write(cfd, "GET", 3) != 3 || read(afd, buf, sizeof(buf)) != 3 ||
		    write(afd, "HDRS", 4) != 4 || write(afd, "BODY!", 5) != 5)
			break;
		usleep(1000);
		if (read(cfd, buf, sizeof(buf)) <= 0)
			break;
	}
	usleep(200000);	/* the reader's poll: 50 ms */
	ret = srvview_read(v, err, sizeof(err));
	ok(ret == 0, "read with the calls (%s)", err);
	is_int((int)v->w.responses, 3, "three responses");
	ok(v->w.per_response == 2.0 && v->w.typical_writes == 2, "two writes each");
	ok(v->w.first_bytes == 4 && v->w.second_bytes == 5, "of 4 and then 5 bytes");
	is_int(v->w.first_kind, SYSW_WRITE, "both write()");
	ok(v->w.read_to_write_ns >= 0 && v->w.write_gap_ns >= 0, "read-to-write and the gap timed");
	srvview_close(v);
}

int main(void)
{
	int lfd = -1, cfd = -1, afd = -1;
	uint16_t port = 0;

	test_parse();
	if (!ok(pair(&lfd, &cfd, &afd, &port) == 0, "a connection over loopback"))
		return done_testing();
	test_diag(afd, port);
	test_view(port, cfd, afd);
	close(cfd);
	close(afd);
	close(lfd);
	return done_testing();
}
