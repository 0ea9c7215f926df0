// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libsimnic.so: a simulated PHC NIC for rant's tests, loaded with LD_PRELOAD.
 *
 * What it models. The interfaces named in SIMNIC_IFACES (veth, lo, anything
 * that exists in the caller's network namespace) look like NICs that stamp
 * packets in hardware and have a PTP hardware clock (PHC):
 *
 *   - ioctl(SIOCETHTOOL, ETHTOOL_GET_TS_INFO) answers hardware TX/RX/raw
 *     capabilities, a PHC index, TX types off/on and RX filters none/all
 *     (or, in PTP-only mode, none and the PTP event filters);
 *   - ioctl(SIOCSHWTSTAMP / SIOCGHWTSTAMP) keeps one configuration per
 *     interface, widens a granted RX filter as drivers do, and in PTP-only
 *     mode refuses HWTSTAMP_FILTER_ALL with ERANGE; a configuration can be
 *     preset (as if ptp4l had set it) and locked (the set fails, EBUSY);
 *   - recvmsg()/recvmmsg(): an RX SCM_TIMESTAMPING block gets ts[2], the
 *     PHC time of the kernel's software stamp ts[0]; a TX report read from
 *     the error queue becomes hardware-only (ts[0] zeroed, ts[2] set), as
 *     when a driver stamps; a set fraction of HW stamps goes missing (an RX
 *     packet without ts[2], a TX report that never comes); in PTP-only mode
 *     only PTP event messages are stamped, told apart as the kernel's
 *     ptp_classify does (UDP destination port 319, a PTPv1/v2 header of an
 *     event type), a sent one (send, sendto, sendmsg, or each of a
 *     sendmmsg batch) matched to its TX report by its OPT_ID key;
 *   - open("/dev/ptpN") returns a real descriptor (a memfd) that the shim
 *     tracks: ioctl PTP_CLOCK_GETCAPS, PTP_SYS_OFFSET_PRECISE, _EXTENDED and
 *     PTP_SYS_OFFSET (each can be disabled, EOPNOTSUPP, to test fallbacks),
 *     and clock_gettime() on its dynamic clock id (FD_TO_CLOCKID).
 *
 * The PHC model, per interface: phc(t) = t + offset + drift * (t - t0) +
 * jitter, t the system time (CLOCK_REALTIME), t0 the time the shim was
 * loaded (or SIMNIC_T0_NS, to give several processes one epoch), jitter
 * uniform in [-J, +J] and drawn anew for every stamp and every reading.
 *
 * How. The wrappers find the next definition with dlsym(RTLD_NEXT). A socket
 * that asks for hardware stamps (SO_TIMESTAMPING with TX/RX/RAW_HARDWARE)
 * is given the software flags too, so that the kernel (veth has no HW
 * stamps) produces the software stamp the shim turns into a hardware one;
 * what the application did not ask for is removed again before it sees the
 * message, and getsockopt() returns the flags it set. The interface of a
 * socket is the one of SO_BINDTODEVICE, else the one holding its local
 * address, else the only simulated interface in the namespace (not for a
 * loopback address).
 *
 * What it does not model: wire delay (the HW stamp is the kernel stamp
 * mapped to PHC time, so HW and KN differ only by the PHC's offset, drift
 * and jitter); a NIC configuration shared between processes (each process
 * has its own copy); PTP over Ethernet, L2 (the classifier
 * reads the UDP port and the first two bytes); SOF_TIMESTAMPING_OPT_TX_SWHW
 * (one TX report, never two); PHC adjustments (clock_settime,
 * clock_adjtime) and PTP pins; stamps for descriptors above SIMNIC_MAX_FD;
 * missing TX stamps through recvmmsg().
 *
 * Environment (a per-interface value NAME_<iface> overrides NAME, with the
 * characters of <iface> that are not letters or digits written as '_'):
 *
 *   SIMNIC_IFACES=ra1,rb1   the simulated interfaces (nothing without it)
 *   SIMNIC_PHC_INDEX=N      PHC index of the first interface (default 0;
 *                           the next ones count up); per interface too
 *   SIMNIC_OFFSET_NS=N      PHC - system at t0, ns
 *   SIMNIC_DRIFT_PPB=N      PHC frequency error, ppb
 *   SIMNIC_JITTER_NS=N      uniform noise on every stamp and reading, ns
 *   SIMNIC_MISSING_PCT=P    percentage of HW stamps that go missing
 *   SIMNIC_PTP_ONLY=1       stamps only PTP event messages (to UDP port 319)
 *   SIMNIC_NO_PRECISE=1     PTP_SYS_OFFSET_PRECISE fails with EOPNOTSUPP
 *   SIMNIC_NO_EXTENDED=1    PTP_SYS_OFFSET_EXTENDED likewise
 *   SIMNIC_NO_BASIC=1       PTP_SYS_OFFSET likewise
 *   SIMNIC_HWTS_PRESET=T,R  configuration already applied (tx_type, rx_filter)
 *   SIMNIC_HWTS_LOCKED=1    SIOCSHWTSTAMP fails with EBUSY (owned elsewhere)
 *   SIMNIC_T0_NS=N          the model's epoch (system time, ns)
 *   SIMNIC_SEED=N           seed of the jitter and missing-stamp draws
 *   SIMNIC_LOG=FILE         appends "rx|tx IFACE KN_NS HW_NS" for every HW
 *                           stamp made ("phc IFACE SYS_NS PHC_NS" for reads)
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <linux/errqueue.h>
#include <linux/ethtool.h>
#include <linux/net_tstamp.h>
#include <linux/ptp_clock.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SIMNIC_MAX_IFACES 8
#define SIMNIC_MAX_FD 4096
#define PTP_EVENT_PORT 319
#define SIMNIC_SEND_RING 64	/* sends whose PTP class a TX report can look up */
#define NS_PER_SEC 1000000000LL
#define CLOCKFD 3

#define HW_FLAGS (SOF_TIMESTAMPING_TX_HARDWARE | SOF_TIMESTAMPING_RX_HARDWARE | \
		  SOF_TIMESTAMPING_RAW_HARDWARE)

struct sim_nic {
	char name[IF_NAMESIZE];
	int phc_index;
	int64_t offset_ns;		/* PHC - system at t0 */
	double drift_ppb;
	int64_t jitter_ns;		/* half-width of the uniform noise */
	double missing_pct;
	bool ptp_only;
	bool no_precise, no_extended, no_basic;
	bool locked;			/* SIOCSHWTSTAMP fails: EBUSY */
	struct hwtstamp_config cfg;	/* what the "driver" applied */
};

enum fd_kind { FD_NONE, FD_SOCK, FD_PHC };

struct sim_fd {
	unsigned char kind;
	int app_flags;		/* SO_TIMESTAMPING flags the application set */
	int added_flags;	/* flags the shim added for the kernel */
	int nic;		/* index in nics[], -1 none, -2 not resolved yet */
	uint32_t sends;		/* datagrams sent since SO_TIMESTAMPING (OPT_ID keys) */
	unsigned char sent_class[SIMNIC_SEND_RING];	/* PTP class of each, by key */
};

static struct sim_nic nics[SIMNIC_MAX_IFACES];
static int n_nics;
static struct sim_fd fds[SIMNIC_MAX_FD];
static int64_t t0_ns;
static uint64_t seed;
static atomic_uint_fast64_t draws;
static int log_fd = -1;
static pthread_mutex_t cfg_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- the next definitions (libc, or a sanitizer's interceptors) ---- */

#define NEXT(fn) \
	static __typeof__(fn) *next_##fn; \
	if (!next_##fn) \
		next_##fn = (__typeof__(fn) *)dlsym(RTLD_NEXT, #fn)

static int next_clock_realtime(struct timespec *ts)
{
	NEXT(clock_gettime);
	return next_clock_gettime(CLOCK_REALTIME, ts);
}

static int64_t sys_now_ns(void)
{
	struct timespec ts;

	next_clock_realtime(&ts);
	return (int64_t)ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

static int64_t ts_to_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * NS_PER_SEC + ts->tv_nsec;
}

static struct timespec ns_to_ts(int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / NS_PER_SEC, .tv_nsec = ns % NS_PER_SEC };

	if (ts.tv_nsec < 0) {
		ts.tv_sec--;
		ts.tv_nsec += NS_PER_SEC;
	}
	return ts;
}

static struct ptp_clock_time ns_to_ptp(int64_t ns)
{
	struct timespec ts = ns_to_ts(ns);
	struct ptp_clock_time p = { .sec = ts.tv_sec, .nsec = (unsigned int)ts.tv_nsec };

	return p;
}

/* ---- configuration from the environment ---- */

/* NAME_<iface> if set, else NAME. */
static const char *env_for(const char *name, const char *iface)
{
	char key[96];
	const char *v;
	size_t i, n;

	if (iface) {
		n = (size_t)snprintf(key, sizeof(key), "%s_", name);
		for (i = 0; iface[i] && n + 1 < sizeof(key); i++, n++) {
			char c = iface[i];

			key[n] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				 (c >= '0' && c <= '9') ? c : '_';
		}
		key[n] = '\0';
		v = getenv(key);
		if (v && *v)
			return v;
	}
	v = getenv(name);
	return v && *v ? v : NULL;
}

static double env_num(const char *name, const char *iface, double def)
{
	const char *v = env_for(name, iface);

	return v ? strtod(v, NULL) : def;
}

static void nic_init(struct sim_nic *n, const char *name, int pos)
{
	const char *v;

	snprintf(n->name, sizeof(n->name), "%s", name);
	n->phc_index = (int)env_num("SIMNIC_PHC_INDEX", name,
				    env_num("SIMNIC_PHC_INDEX", NULL, 0) + pos);
	n->offset_ns = (int64_t)env_num("SIMNIC_OFFSET_NS", name, 0);
	n->drift_ppb = env_num("SIMNIC_DRIFT_PPB", name, 0);
	n->jitter_ns = (int64_t)env_num("SIMNIC_JITTER_NS", name, 0);
	n->missing_pct = env_num("SIMNIC_MISSING_PCT", name, 0);
	n->ptp_only = env_num("SIMNIC_PTP_ONLY", name, 0) != 0;
	n->no_precise = env_num("SIMNIC_NO_PRECISE", name, 0) != 0;
	n->no_extended = env_num("SIMNIC_NO_EXTENDED", name, 0) != 0;
	n->no_basic = env_num("SIMNIC_NO_BASIC", name, 0) != 0;
	n->locked = env_num("SIMNIC_HWTS_LOCKED", name, 0) != 0;
	v = env_for("SIMNIC_HWTS_PRESET", name);
	if (v) {
		char *end;

		n->cfg.tx_type = (int)strtol(v, &end, 0);
		n->cfg.rx_filter = *end == ',' ? (int)strtol(end + 1, NULL, 0) : 0;
	}
}

__attribute__((constructor)) static void simnic_init(void)
{
	const char *ifaces = getenv("SIMNIC_IFACES"), *logpath = getenv("SIMNIC_LOG");
	char buf[256], *tok, *save = NULL;
	int i;

	for (i = 0; i < SIMNIC_MAX_FD; i++)
		fds[i].nic = -2;
	t0_ns = (int64_t)env_num("SIMNIC_T0_NS", NULL, 0);
	if (!t0_ns)
		t0_ns = sys_now_ns();
	seed = (uint64_t)env_num("SIMNIC_SEED", NULL, 1);
	if (ifaces) {
		snprintf(buf, sizeof(buf), "%s", ifaces);
		for (tok = strtok_r(buf, ",", &save); tok && n_nics < SIMNIC_MAX_IFACES;
		     tok = strtok_r(NULL, ",", &save))
			nic_init(&nics[n_nics], tok, n_nics), n_nics++;
	}
	if (logpath)
		log_fd = open(logpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

/* ---- the model ---- */

/* A uniform draw in [0, 1): splitmix64 over a shared counter (thread-safe). */
static double draw(void)
{
	uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (atomic_fetch_add(&draws, 1) + 1);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (double)(z >> 11) / (double)(1ULL << 53);
}

static int64_t phc_of(const struct sim_nic *n, int64_t sys_ns)
{
	double drift = (double)(sys_ns - t0_ns) * n->drift_ppb / 1e9;
	int64_t noise = 0;

	if (n->jitter_ns > 0)
		noise = (int64_t)((draw() * 2.0 - 1.0) * (double)n->jitter_ns);
	return sys_ns + n->offset_ns + (int64_t)drift + noise;
}

static bool stamp_missing(const struct sim_nic *n)
{
	return n->missing_pct > 0 && draw() * 100.0 < n->missing_pct;
}

static void log_stamp(const char *what, const struct sim_nic *n, int64_t kn, int64_t hw)
{
	char line[128];
	int len;

	if (log_fd < 0)
		return;
	len = snprintf(line, sizeof(line), "%s %s %lld %lld\n", what, n->name,
		       (long long)kn, (long long)hw);
	if (write(log_fd, line, (size_t)len) < 0)
		return;	/* a test that reads the log will see the gap */
}

/* The simulated NIC named name, present in this namespace; or NULL. */
static struct sim_nic *nic_by_name(const char *name)
{
	int i;

	for (i = 0; i < n_nics; i++)
		if (!strncmp(nics[i].name, name, IF_NAMESIZE))
			return if_nametoindex(nics[i].name) ? &nics[i] : NULL;
	return NULL;
}

static struct sim_nic *nic_by_phc(int index)
{
	int i;

	for (i = 0; i < n_nics; i++)
		if (nics[i].phc_index == index)
			return &nics[i];
	return NULL;
}

static struct sim_fd *fd_state(int fd)
{
	return fd >= 0 && fd < SIMNIC_MAX_FD ? &fds[fd] : NULL;
}

static void fd_forget(int fd)
{
	struct sim_fd *f = fd_state(fd);

	if (f)
		*f = (struct sim_fd){ .kind = FD_NONE, .nic = -2 };
}

/* ---- which interface a socket's packets cross ---- */

static bool addr_equal(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->sa_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr, 16);
	return false;
}

static bool addr_loopback(const struct sockaddr *a)
{
	if (a->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)a)->sin_addr.s_addr) >> 24) == 127;
	if (a->sa_family == AF_INET6)
		return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)a)->sin6_addr);
	return false;
}

/* The simulated interface holding the socket's local address, or -1. */
static int nic_by_local_addr(const struct sockaddr *local)
{
	struct ifaddrs *ifa, *i;
	struct sim_nic *n;
	int found = -1;

	if (getifaddrs(&ifa))
		return -1;
	for (i = ifa; i; i = i->ifa_next)
		if (i->ifa_addr && addr_equal(i->ifa_addr, local)) {
			n = nic_by_name(i->ifa_name);
			found = n ? (int)(n - nics) : -1;
			break;
		}
	freeifaddrs(ifa);
	return found;
}

/* The only simulated interface present in this namespace, or -1. */
static int nic_only_present(void)
{
	int i, found = -1;

	for (i = 0; i < n_nics; i++) {
		if (!if_nametoindex(nics[i].name))
			continue;
		if (found >= 0)
			return -1;
		found = i;
	}
	return found;
}

static int fd_nic(int fd, struct sim_fd *f)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (f->nic != -2)
		return f->nic;
	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return -1;	/* not cached: may be bound later */
	if (addr_loopback((struct sockaddr *)&ss)) {
		f->nic = -1;
		return -1;
	}
	f->nic = nic_by_local_addr((struct sockaddr *)&ss);
	if (f->nic < 0)
		f->nic = nic_only_present();
	return f->nic;
}

static uint16_t sa_port(const struct sockaddr *sa, socklen_t len)
{
	if (!sa)
		return 0;
	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in))
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	if (sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6))
		return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
	return 0;
}

/*
 * The PTP-only classifier, after the kernel's ptp_classify_raw(): a packet
 * is a PTP event message when its UDP destination port is 319 and its
 * payload starts with a PTP header of an event messageType (0 to 3) and
 * versionPTP 1 or 2.
 */
enum ptp_class { PTP_NONE, PTP_V1_EVENT, PTP_V2_EVENT };

/* The class of a payload of len bytes in iov to port dst. */
static enum ptp_class ptp_classify(uint16_t dst, const struct iovec *iov, size_t iovlen,
				   size_t len)
{
	unsigned char b[2];
	size_t got = 0, i, k;

	for (i = 0; i < iovlen && got < sizeof(b) && got < len; i++)
		for (k = 0; k < iov[i].iov_len && got < sizeof(b) && got < len; k++)
			b[got++] = ((const unsigned char *)iov[i].iov_base)[k];
	if (dst != PTP_EVENT_PORT || got < sizeof(b) || (b[0] & 0x0f) > 3)
		return PTP_NONE;
	if ((b[1] & 0x0f) == 1)
		return PTP_V1_EVENT;
	return (b[1] & 0x0f) == 2 ? PTP_V2_EVENT : PTP_NONE;
}

static uint16_t local_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return 0;
	return sa_port((struct sockaddr *)&ss, len);
}

/* A datagram about to leave fd: keep its class for its TX report. */
static void note_send(int fd, struct sim_fd *f, const struct sockaddr *to, socklen_t tolen,
		      const struct iovec *iov, size_t iovlen, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	uint16_t dst = 0;

	if (f->kind != FD_SOCK)
		return;
	if (to)
		dst = sa_port(to, tolen);
	else if (!getpeername(fd, (struct sockaddr *)&ss, &sl))
		dst = sa_port((struct sockaddr *)&ss, sl);
	f->sent_class[f->sends % SIMNIC_SEND_RING] = (unsigned char)ptp_classify(dst, iov, iovlen,
										 len);
}

/* The class of the datagram a TX report is about: by its OPT_ID key
 * (ee_data) where the socket has keys, else the last one sent. */
static enum ptp_class sent_class_of(const struct sim_fd *f, const struct sock_extended_err *ee)
{
	uint32_t key = (f->app_flags & SOF_TIMESTAMPING_OPT_ID) ? ee->ee_data : f->sends - 1;

	return (enum ptp_class)f->sent_class[key % SIMNIC_SEND_RING];
}

/* Does the RX filter in force take this received packet (n bytes)? */
static bool rx_filter_takes(const struct sim_nic *n, int fd, const struct msghdr *rx,
			    size_t len)
{
	enum ptp_class c;

	switch (n->cfg.rx_filter) {
	case HWTSTAMP_FILTER_NONE:
		return false;
	case HWTSTAMP_FILTER_ALL:
		return true;
	default:
		c = ptp_classify(local_port(fd), rx->msg_iov, rx->msg_iovlen, len);
		return n->cfg.rx_filter == HWTSTAMP_FILTER_PTP_V1_L4_EVENT ? c == PTP_V1_EVENT :
		       c == PTP_V2_EVENT;
	}
}

/* Does the NIC stamp this sent packet? TX on; in PTP-only mode, event
 * messages only (the driver classifies them). */
static bool tx_takes(const struct sim_nic *n, const struct sim_fd *f,
		     const struct sock_extended_err *ee)
{
	return n->cfg.tx_type == HWTSTAMP_TX_ON &&
	       (!n->ptp_only || sent_class_of(f, ee) != PTP_NONE);
}

/* ---- SIOCETHTOOL, SIOCSHWTSTAMP, SIOCGHWTSTAMP ---- */

static int ts_info(const struct sim_nic *n, struct ethtool_ts_info *info)
{
	memset(info, 0, sizeof(*info));
	info->cmd = ETHTOOL_GET_TS_INFO;
	info->so_timestamping = SOF_TIMESTAMPING_TX_HARDWARE | SOF_TIMESTAMPING_TX_SOFTWARE |
				SOF_TIMESTAMPING_RX_HARDWARE | SOF_TIMESTAMPING_RX_SOFTWARE |
				SOF_TIMESTAMPING_SOFTWARE | SOF_TIMESTAMPING_RAW_HARDWARE;
	info->phc_index = n->phc_index;
	info->tx_types = (1 << HWTSTAMP_TX_OFF) | (1 << HWTSTAMP_TX_ON);
	if (n->ptp_only)
		info->rx_filters = (1 << HWTSTAMP_FILTER_NONE) |
				   (1 << HWTSTAMP_FILTER_PTP_V1_L4_EVENT) |
				   (1 << HWTSTAMP_FILTER_PTP_V2_L4_EVENT) |
				   (1 << HWTSTAMP_FILTER_PTP_V2_EVENT);
	else
		info->rx_filters = (1 << HWTSTAMP_FILTER_NONE) | (1 << HWTSTAMP_FILTER_ALL);
	return 0;
}

/* The filter the "driver" applies for a request, or -1 (ERANGE). */
static int rx_filter_granted(const struct sim_nic *n, int want)
{
	if (want == HWTSTAMP_FILTER_NONE)
		return HWTSTAMP_FILTER_NONE;
	if (!n->ptp_only)
		return want >= HWTSTAMP_FILTER_ALL && want <= HWTSTAMP_FILTER_NTP_ALL ?
		       HWTSTAMP_FILTER_ALL : -1;
	switch (want) {
	case HWTSTAMP_FILTER_PTP_V1_L4_EVENT:
	case HWTSTAMP_FILTER_PTP_V1_L4_SYNC:
	case HWTSTAMP_FILTER_PTP_V1_L4_DELAY_REQ:
		return HWTSTAMP_FILTER_PTP_V1_L4_EVENT;
	case HWTSTAMP_FILTER_PTP_V2_L4_EVENT:
	case HWTSTAMP_FILTER_PTP_V2_L4_SYNC:
	case HWTSTAMP_FILTER_PTP_V2_L4_DELAY_REQ:
		return HWTSTAMP_FILTER_PTP_V2_L4_EVENT;
	case HWTSTAMP_FILTER_PTP_V2_L2_EVENT:
	case HWTSTAMP_FILTER_PTP_V2_L2_SYNC:
	case HWTSTAMP_FILTER_PTP_V2_L2_DELAY_REQ:
	case HWTSTAMP_FILTER_PTP_V2_EVENT:
	case HWTSTAMP_FILTER_PTP_V2_SYNC:
	case HWTSTAMP_FILTER_PTP_V2_DELAY_REQ:
		return HWTSTAMP_FILTER_PTP_V2_EVENT;
	default:
		return -1;	/* ALL, SOME, NTP_ALL */
	}
}

static int hwtstamp_set(struct sim_nic *n, struct hwtstamp_config *cfg)
{
	int rx;

	if (cfg->flags)
		return -EINVAL;
	if (n->locked)
		return -EBUSY;
	if (cfg->tx_type != HWTSTAMP_TX_OFF && cfg->tx_type != HWTSTAMP_TX_ON)
		return -ERANGE;
	rx = rx_filter_granted(n, cfg->rx_filter);
	if (rx < 0)
		return -ERANGE;
	cfg->rx_filter = rx;
	pthread_mutex_lock(&cfg_lock);
	n->cfg = *cfg;
	pthread_mutex_unlock(&cfg_lock);
	return 0;
}

/* 1 when the request was for a simulated interface (ret set), else 0. */
static int nic_ioctl(unsigned long req, void *arg, int *ret)
{
	struct ifreq *ifr = arg;
	struct sim_nic *n;
	uint32_t cmd;

	if (!arg || (req != SIOCETHTOOL && req != SIOCSHWTSTAMP && req != SIOCGHWTSTAMP))
		return 0;
	n = nic_by_name(ifr->ifr_name);
	if (!n || !ifr->ifr_data)
		return 0;
	if (req == SIOCETHTOOL) {
		memcpy(&cmd, ifr->ifr_data, sizeof(cmd));
		if (cmd != ETHTOOL_GET_TS_INFO)
			return 0;
		*ret = ts_info(n, (struct ethtool_ts_info *)(void *)ifr->ifr_data);
	} else if (req == SIOCSHWTSTAMP) {
		*ret = hwtstamp_set(n, (struct hwtstamp_config *)(void *)ifr->ifr_data);
	} else {
		pthread_mutex_lock(&cfg_lock);
		memcpy(ifr->ifr_data, &n->cfg, sizeof(n->cfg));
		pthread_mutex_unlock(&cfg_lock);
		*ret = 0;
	}
	return 1;
}

/* ---- the PHC device: /dev/ptpN ---- */

static void phc_read(const struct sim_nic *n, int64_t *before, int64_t *phc, int64_t *after)
{
	int64_t mid;

	*before = sys_now_ns();
	mid = sys_now_ns();
	*after = sys_now_ns();
	*phc = phc_of(n, mid);
	log_stamp("phc", n, mid, *phc);
}

static int phc_getcaps(const struct sim_nic *n, struct ptp_clock_caps *caps)
{
	memset(caps, 0, sizeof(*caps));
	caps->max_adj = 500000000;
	caps->cross_timestamping = !n->no_precise;
	return 0;
}

static int phc_offset_basic(const struct sim_nic *n, struct ptp_sys_offset *o)
{
	int64_t t1, phc, t2 = 0;
	unsigned int i;

	if (n->no_basic)
		return -EOPNOTSUPP;
	if (o->n_samples > PTP_MAX_SAMPLES)
		return -EINVAL;
	for (i = 0; i < o->n_samples; i++) {
		phc_read(n, &t1, &phc, &t2);
		if (i == 0)
			o->ts[0] = ns_to_ptp(t1);
		o->ts[2 * i + 1] = ns_to_ptp(phc);
		o->ts[2 * i + 2] = ns_to_ptp(t2);
	}
	return 0;
}

static int phc_offset_extended(const struct sim_nic *n, struct ptp_sys_offset_extended *o)
{
	int64_t t1, phc, t2;
	unsigned int i;

	if (n->no_extended)
		return -EOPNOTSUPP;
	if (o->n_samples > PTP_MAX_SAMPLES || o->rsv[1] || o->rsv[2])
		return -EINVAL;
	if (o->rsv[0])	/* newer kernels: a clock id other than REALTIME */
		return -EOPNOTSUPP;
	for (i = 0; i < o->n_samples; i++) {
		phc_read(n, &t1, &phc, &t2);
		o->ts[i][0] = ns_to_ptp(t1);
		o->ts[i][1] = ns_to_ptp(phc);
		o->ts[i][2] = ns_to_ptp(t2);
	}
	return 0;
}

/* A cross timestamp: the PHC and the system clock at one instant. */
static int phc_offset_precise(const struct sim_nic *n, struct ptp_sys_offset_precise *o)
{
	struct timespec raw;
	int64_t sys, phc;

	if (n->no_precise)
		return -EOPNOTSUPP;
	NEXT(clock_gettime);
	sys = sys_now_ns();
	next_clock_gettime(CLOCK_MONOTONIC_RAW, &raw);
	phc = phc_of(n, sys);
	log_stamp("phc", n, sys, phc);
	memset(o, 0, sizeof(*o));
	o->device = ns_to_ptp(phc);
	o->sys_realtime = ns_to_ptp(sys);
	o->sys_monoraw = ns_to_ptp(ts_to_ns(&raw));
	return 0;
}

static int phc_ioctl(const struct sim_nic *n, unsigned long req, void *arg)
{
	if (!arg)
		return -EFAULT;
	switch (req) {
	case PTP_CLOCK_GETCAPS:
	case PTP_CLOCK_GETCAPS2:
		return phc_getcaps(n, arg);
	case PTP_SYS_OFFSET:
	case PTP_SYS_OFFSET2:
		return phc_offset_basic(n, arg);
	case PTP_SYS_OFFSET_EXTENDED:
	case PTP_SYS_OFFSET_EXTENDED2:
		return phc_offset_extended(n, arg);
	case PTP_SYS_OFFSET_PRECISE:
	case PTP_SYS_OFFSET_PRECISE2:
		return phc_offset_precise(n, arg);
	default:
		return -ENOTTY;
	}
}

static const struct sim_nic *phc_of_fd(int fd)
{
	struct sim_fd *f = fd_state(fd);

	return f && f->kind == FD_PHC ? &nics[f->nic] : NULL;
}

int ioctl(int fd, unsigned long req, ...)
{
	const struct sim_nic *n;
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	n = phc_of_fd(fd);
	if (n)
		ret = phc_ioctl(n, req, arg);
	else if (!nic_ioctl(req, arg, &ret)) {
		NEXT(ioctl);
		return next_ioctl(fd, req, arg);
	}
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return 0;
}

/* "/dev/ptpN" of a simulated NIC: a tracked memfd; -2 when not ours. */
static int phc_open(const char *path, int flags)
{
	struct sim_nic *n;
	struct sim_fd *f;
	char *end;
	long idx;
	int fd;

	if (!path || strncmp(path, "/dev/ptp", 8) || !path[8])
		return -2;
	idx = strtol(path + 8, &end, 10);
	if (*end || !(n = nic_by_phc((int)idx)))
		return -2;
	fd = memfd_create("simnic-ptp", flags & O_CLOEXEC ? MFD_CLOEXEC : 0);
	if (fd < 0)
		return -1;
	f = fd_state(fd);
	if (!f) {
		close(fd);
		errno = EMFILE;
		return -1;
	}
	*f = (struct sim_fd){ .kind = FD_PHC, .nic = (int)(n - nics) };
	return fd;
}

static mode_t open_mode(int flags, va_list ap)
{
	return flags & (O_CREAT | __O_TMPFILE) ? (mode_t)va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...);
int open64(const char *path, int flags, ...);
int openat(int dirfd, const char *path, int flags, ...);
int openat64(int dirfd, const char *path, int flags, ...);
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

#define OPEN_WRAPPER(fn, ...) \
	{ \
		va_list ap; \
		mode_t mode; \
		int fd = phc_open(path, flags); \
		if (fd != -2) \
			return fd; \
		va_start(ap, flags); \
		mode = open_mode(flags, ap); \
		va_end(ap); \
		NEXT(fn); \
		return next_##fn(__VA_ARGS__, flags, mode); \
	}

int open(const char *path, int flags, ...) OPEN_WRAPPER(open, path)
int open64(const char *path, int flags, ...) OPEN_WRAPPER(open64, path)
int openat(int dirfd, const char *path, int flags, ...) OPEN_WRAPPER(openat, dirfd, path)
int openat64(int dirfd, const char *path, int flags, ...) OPEN_WRAPPER(openat64, dirfd, path)

int __open_2(const char *path, int flags)
{
	return open(path, flags);
}

int __open64_2(const char *path, int flags)
{
	return open64(path, flags);
}

int __openat_2(int dirfd, const char *path, int flags)
{
	return openat(dirfd, path, flags);
}

int __openat64_2(int dirfd, const char *path, int flags)
{
	return openat64(dirfd, path, flags);
}

int close(int fd)
{
	NEXT(close);
	fd_forget(fd);
	return next_close(fd);
}

int clock_gettime(clockid_t clk, struct timespec *tp)
{
	const struct sim_nic *n;

	if (clk < 0 && (clk & 7) == CLOCKFD) {
		n = phc_of_fd((int)~(clk >> 3));
		if (n) {
			*tp = ns_to_ts(phc_of(n, sys_now_ns()));
			return 0;
		}
	}
	NEXT(clock_gettime);
	return next_clock_gettime(clk, tp);
}

int clock_getres(clockid_t clk, struct timespec *tp)
{
	if (clk < 0 && (clk & 7) == CLOCKFD && phc_of_fd((int)~(clk >> 3))) {
		if (tp)
			*tp = (struct timespec){ .tv_sec = 0, .tv_nsec = 1 };
		return 0;
	}
	NEXT(clock_getres);
	return next_clock_getres(clk, tp);
}

/* ---- sockets: the flags asked for, the interface, the destination ---- */

/* The flags the kernel needs so that veth makes the stamps the shim maps. */
static int flags_to_add(int want)
{
	int add = 0;

	if (!n_nics || !(want & HW_FLAGS))
		return 0;
	if (want & SOF_TIMESTAMPING_TX_HARDWARE)
		add |= SOF_TIMESTAMPING_TX_SOFTWARE;
	if (want & (SOF_TIMESTAMPING_RX_HARDWARE | SOF_TIMESTAMPING_RAW_HARDWARE))
		add |= SOF_TIMESTAMPING_RX_SOFTWARE;
	return (add | SOF_TIMESTAMPING_SOFTWARE) & ~want;
}

int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	struct sim_fd *f = fd_state(fd);
	unsigned char buf[16];
	int want, add, ret;

	NEXT(setsockopt);
	if (level != SOL_SOCKET || !f || !val)
		return next_setsockopt(fd, level, name, val, len);
	if (name == SO_BINDTODEVICE) {
		ret = next_setsockopt(fd, level, name, val, len);
		if (!ret) {
			char dev[IF_NAMESIZE] = "";
			struct sim_nic *n;

			memcpy(dev, val, len < IF_NAMESIZE ? len : IF_NAMESIZE - 1);
			n = nic_by_name(dev);
			f->nic = n ? (int)(n - nics) : -1;
		}
		return ret;
	}
	if (name != SO_TIMESTAMPING || len < sizeof(int) || len > sizeof(buf))
		return next_setsockopt(fd, level, name, val, len);
	memcpy(buf, val, len);
	memcpy(&want, buf, sizeof(want));	/* int, or struct so_timestamping */
	add = flags_to_add(want);
	want |= add;
	memcpy(buf, &want, sizeof(want));
	ret = next_setsockopt(fd, level, name, buf, len);
	if (!ret) {
		/* OPT_ID newly on: the kernel counts keys from 0 again. */
		if ((want & SOF_TIMESTAMPING_OPT_ID) && !(f->app_flags & SOF_TIMESTAMPING_OPT_ID))
			f->sends = 0;
		f->kind = FD_SOCK;
		f->app_flags = want & ~add;
		f->added_flags = add;
	}
	return ret;
}

int getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	struct sim_fd *f = fd_state(fd);
	int ret, flags;

	NEXT(getsockopt);
	ret = next_getsockopt(fd, level, name, val, len);
	if (!ret && level == SOL_SOCKET && name == SO_TIMESTAMPING && f &&
	    f->kind == FD_SOCK && *len >= sizeof(int)) {
		memcpy(&flags, val, sizeof(flags));
		flags &= ~f->added_flags;
		memcpy(val, &flags, sizeof(flags));
	}
	return ret;
}

/* The sends: each datagram's PTP class, kept for its TX report. */
ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct sim_fd *f = fd_state(fd);
	ssize_t n;

	NEXT(send);
	if (f)
		note_send(fd, f, NULL, 0, &iov, 1, len);
	n = next_send(fd, buf, len, flags);
	if (f && n >= 0)
		f->sends++;
	return n;
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags,
	       const struct sockaddr *to, socklen_t tolen)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct sim_fd *f = fd_state(fd);
	ssize_t n;

	NEXT(sendto);
	if (f)
		note_send(fd, f, to, tolen, &iov, 1, len);
	n = next_sendto(fd, buf, len, flags, to, tolen);
	if (f && n >= 0)
		f->sends++;
	return n;
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	struct sim_fd *f = fd_state(fd);
	size_t len = 0, i;
	ssize_t n;

	NEXT(sendmsg);
	if (f && msg) {
		for (i = 0; i < msg->msg_iovlen; i++)
			len += msg->msg_iov[i].iov_len;
		note_send(fd, f, msg->msg_name, msg->msg_namelen, msg->msg_iov,
			  msg->msg_iovlen, len);
	}
	n = next_sendmsg(fd, msg, flags);
	if (f && n >= 0)
		f->sends++;
	return n;
}

/* A batch (the reflector's): each datagram's class kept at the key it
 * will have (note_send files it under f->sends), the sends counted as
 * the kernel counts them, those it took. */
int sendmmsg(int fd, struct mmsghdr *vec, unsigned int vlen, int flags)
{
	struct sim_fd *f = fd_state(fd);
	uint32_t base = f ? f->sends : 0;
	int n;

	NEXT(sendmmsg);
	for (unsigned int i = 0; f && vec && i < vlen; i++) {
		const struct msghdr *m = &vec[i].msg_hdr;
		size_t len = 0;

		for (size_t k = 0; k < m->msg_iovlen; k++)
			len += m->msg_iov[k].iov_len;
		f->sends = base + i;
		note_send(fd, f, m->msg_name, m->msg_namelen, m->msg_iov, m->msg_iovlen, len);
	}
	n = next_sendmmsg(fd, vec, vlen, flags);
	if (f)
		f->sends = base + (n > 0 ? (uint32_t)n : 0);
	return n;
}

/* ---- stamps in received messages ---- */

static struct scm_timestamping *find_tstamp(struct msghdr *msg, struct cmsghdr **where)
{
	struct cmsghdr *c;

	if (msg->msg_flags & MSG_CTRUNC)
		return NULL;
	for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPING &&
		    c->cmsg_len >= CMSG_LEN(sizeof(struct scm_timestamping))) {
			*where = c;
			return (struct scm_timestamping *)(void *)CMSG_DATA(c);
		}
	return NULL;
}

static struct sock_extended_err *find_ee(struct msghdr *msg)
{
	struct cmsghdr *c;

	for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c))
		if (((c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
		     (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR)) &&
		    c->cmsg_len >= CMSG_LEN(sizeof(struct sock_extended_err)))
			return (struct sock_extended_err *)(void *)CMSG_DATA(c);
	return NULL;
}

/* Take cmsg c out of msg's control buffer, as if the kernel had not put it. */
static void drop_cmsg(struct msghdr *msg, struct cmsghdr *c)
{
	char *start = (char *)c, *end = start + CMSG_SPACE(c->cmsg_len - CMSG_LEN(0));
	char *buf_end = (char *)msg->msg_control + msg->msg_controllen;

	if (end > buf_end)
		end = buf_end;
	memmove(start, end, (size_t)(buf_end - end));
	msg->msg_controllen -= (size_t)(end - start);
}

static bool ts_empty(const struct scm_timestamping *t)
{
	return !t->ts[0].tv_sec && !t->ts[0].tv_nsec && !t->ts[2].tv_sec && !t->ts[2].tv_nsec;
}

static void fix_rx(int fd, struct sim_fd *f, struct msghdr *msg, size_t len)
{
	struct scm_timestamping *t;
	struct cmsghdr *c;
	struct sim_nic *n;
	int64_t kn, hw;
	int i;

	t = find_tstamp(msg, &c);
	if (!t)
		return;
	kn = ts_to_ns(&t->ts[0]);
	i = fd_nic(fd, f);
	n = i >= 0 ? &nics[i] : NULL;
	if (kn && n && (f->app_flags & SOF_TIMESTAMPING_RAW_HARDWARE) &&
	    rx_filter_takes(n, fd, msg, len) && !stamp_missing(n)) {
		hw = phc_of(n, kn);
		t->ts[2] = ns_to_ts(hw);
		log_stamp("rx", n, kn, hw);
	}
	if (!(f->app_flags & SOF_TIMESTAMPING_SOFTWARE))
		t->ts[0] = (struct timespec){ 0 };
	if (ts_empty(t))
		drop_cmsg(msg, c);
}

/* TX report: 0 to deliver (maybe changed), 1 to drop it (no report). */
static int fix_tx(int fd, struct sim_fd *f, struct msghdr *msg)
{
	struct sock_extended_err *ee = find_ee(msg);
	struct scm_timestamping *t;
	struct cmsghdr *c;
	struct sim_nic *n;
	int64_t kn, hw;
	int i;

	t = find_tstamp(msg, &c);
	if (!ee || !t || ee->ee_origin != SO_EE_ORIGIN_TIMESTAMPING)
		return 0;
	if (ee->ee_info == SCM_TSTAMP_SND) {
		i = fd_nic(fd, f);
		n = i >= 0 ? &nics[i] : NULL;
		kn = ts_to_ns(&t->ts[0]);
		if (n && kn && (f->app_flags & SOF_TIMESTAMPING_TX_HARDWARE) &&
		    tx_takes(n, f, ee)) {
			/* The driver has it: HW-only, or nothing at all. */
			if (stamp_missing(n))
				return 1;
			hw = phc_of(n, kn);
			t->ts[0] = (struct timespec){ 0 };
			t->ts[2] = ns_to_ts(hw);
			log_stamp("tx", n, kn, hw);
			return 0;
		}
		if (f->added_flags & SOF_TIMESTAMPING_TX_SOFTWARE)
			return 1;	/* exists only because the shim asked */
	}
	if (!(f->app_flags & SOF_TIMESTAMPING_SOFTWARE))
		t->ts[0] = (struct timespec){ 0 };
	return ts_empty(t);
}

ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	struct sim_fd *f = fd_state(fd);
	socklen_t namelen;
	size_t controllen;
	ssize_t n;

	NEXT(recvmsg);
	if (!f || f->kind != FD_SOCK || !msg)
		return next_recvmsg(fd, msg, flags);
	if (!(flags & MSG_ERRQUEUE)) {
		n = next_recvmsg(fd, msg, flags);
		if (n >= 0)
			fix_rx(fd, f, msg, (size_t)n);
		return n;
	}
	/* The error queue never blocks: drop reports until one stays. */
	controllen = msg->msg_controllen;
	namelen = msg->msg_namelen;
	for (;;) {
		msg->msg_controllen = controllen;
		msg->msg_namelen = namelen;
		msg->msg_flags = 0;
		n = next_recvmsg(fd, msg, flags);
		if (n < 0 || !fix_tx(fd, f, msg))
			return n;
	}
}

int recvmmsg(int fd, struct mmsghdr *vec, unsigned int vlen, int flags,
	     struct timespec *timeout)
{
	struct sim_fd *f = fd_state(fd);
	int n, i;

	NEXT(recvmmsg);
	n = next_recvmmsg(fd, vec, vlen, flags, timeout);
	if (n <= 0 || !f || f->kind != FD_SOCK)
		return n;
	for (i = 0; i < n; i++) {
		if (flags & MSG_ERRQUEUE)
			(void)fix_tx(fd, f, &vec[i].msg_hdr);	/* no dropping here */
		else
			fix_rx(fd, f, &vec[i].msg_hdr, vec[i].msg_len);
	}
	return n;
}
