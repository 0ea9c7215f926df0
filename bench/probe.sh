#!/usr/bin/env bash
# The probe's row of make bench (bench/README.md, "The probe"): rant --http
# as a load generator beside wrk (as many threads each), on as many kept-alive
# connections to the same server, Debian's nginx and Debian's lighttpd
# (tcp_nodelay on, the 600-byte page of tests/net/test_probe.sh), at 1,
# 10 and 100 connections, in interleaved rounds: each round runs every
# (server, connections) case, both clients in a random order, and takes
# rant's requests a second over wrk's. The bench prints, for each case,
# the median of those ratios with the lowest and highest, and the
# target: rant offers wrk's load at least (1.0) while it stamps every
# request and captures and analyses every segment of its connections.
#
# The servers run in their namespace on CPU 1, the clients on CPU 0
# (rant's capture thread goes off its CPU, to CPU 1 on a 2-CPU machine).
# Both clients wait in epoll: rant runs with --block, as wrk always does.
# Each run's own CPU time (user and system, its process and threads, from
# bash's time) over the requests it made gives each client's CPU a
# request: the cost of a request, whichever CPU limits the rate.
#
# Environment:
#   PROBE_ROUNDS=N       rounds (default 7)
#   PROBE_SECONDS=S      each run's length (default 5)
#   PROBE_CONNECTIONS="N ..."  the connection counts (default "1 10 100")
#   PROBE_SERVERS="..."  nginx, lighttpd or both (default both)
#   BENCH_QUICK=1        3 rounds of 2 s
#   RANT_ARGS="..."      rant's waiting and more options (default --block;
#                        RANT_ARGS= spins, rant's default)
#   PROBE_THREADS=N      threads of each client: wrk -t, rant --threads
#                        (default 1; at fewer connections, one each)
#   PROBE_CPUS=LIST      the clients' CPUs, taskset's list (default 0; 0,1
#                        for two threads of each, beside nginx on CPU 1)
# Raw outputs in bench/out/probe-bench/. Exits 0 when every run gave a
# figure (a report, not a test), 1 otherwise.
set -euo pipefail

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../tests/net/lib.sh
source "$BENCH/../tests/net/lib.sh"	# TOP, RANT, defer, setup_pair, nginx_start

if [ "${BENCH_QUICK:-0}" = 1 ]; then
	ROUNDS=${PROBE_ROUNDS:-3}
	RUN_S=${PROBE_SECONDS:-2}
else
	ROUNDS=${PROBE_ROUNDS:-7}
	RUN_S=${PROBE_SECONDS:-5}
fi
read -r -a CONN_LIST <<<"${PROBE_CONNECTIONS:-1 10 100}"
read -r -a SERVERS <<<"${PROBE_SERVERS:-nginx lighttpd}"
THREADS=${PROBE_THREADS:-1}
CPUS=${PROBE_CPUS:-0}
PORT_OFF=8080
PORT_ON=8081		# nginx, tcp_nodelay on
PORT_LIGHTTPD=8082	# lighttpd (TCP_NODELAY always)
OUT=$BENCH/out/probe-bench
read -r -a EXTRA <<<"${RANT_ARGS---block}"

say() { printf '%s\n' "$*" >&2; }

# threads CONNS: each client's threads at CONNS connections.
threads() {
	echo $(($1 < THREADS ? $1 : THREADS))
}

# port SERVER: the port it serves on.
port() {
	if [ "$1" = nginx ]; then echo "$PORT_ON"; else echo "$PORT_LIGHTTPD"; fi
}

# cpu_ticks: each CPU's busy and all ticks from /proc/stat, "busy:all ...".
cpu_ticks() {
	awk '$1 ~ /^cpu[0-9]+$/ { printf "%d:%d ", $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat
}

# cpu_busy BEFORE AFTER: each CPU's busy share between two cpu_ticks,
# comma separated ("0.97,0.99").
cpu_busy() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		n = split(a, x, " "); split(b, y, " ")
		for (i = 1; i <= n; i++) {
			split(x[i], p, ":"); split(y[i], q, ":")
			printf "%s%.2f", (i > 1 ? "," : ""), (q[2] > p[2] ? (q[1] - p[1]) / (q[2] - p[2]) : 0)
		}
		print ""
	}'
}

# cpu_us FILE REQUESTS: microseconds of CPU a request, FILE holding
# bash's "user system" seconds of the run.
cpu_us() {
	awk -v n="$2" '{ if (n > 0) printf "%.2f\n", ($1 + $2) * 1e6 / n }' "$1"
}

# timed FILE CMD...: CMD with its output in FILE and its user and system
# seconds in FILE.time; prints each CPU's busy share over it (cpu_busy).
timed() {
	local f=$1 t0 TIMEFORMAT='%3U %3S'
	shift
	t0=$(cpu_ticks)
	{ time "$@" >"$f" 2>&1; } 2>"$f.time"
	cpu_busy "$t0" "$(cpu_ticks)"
}

# run_wrk NAME SERVER CONNS: wrk's requests a second, its CPU
# microseconds a request and the CPUs' busy shares.
run_wrk() {
	local f=$OUT/$1-wrk.txt rate n busy
	busy=$(timed "$f" ip netns exec "$NS_A" taskset -c "$CPUS" wrk -t "$(threads "$3")" \
		-c "$3" -d "${RUN_S}s" "http://$IP_B:$(port "$2")/")
	rate=$(awk '$1 == "Requests/sec:" { print $2 }' "$f")
	n=$(awk '$2 == "requests" && $3 == "in" { print $1 }' "$f")
	echo "$rate $(cpu_us "$f.time" "${n:-0}") $busy"
}

# run_rant NAME SERVER CONNS: rant's measured requests a second (its
# measured time, from the JSON), every one stamped and its segments
# analysed, and its CPU microseconds a request (over the measured and
# warm-up requests: the 100 it sends alone first are left out, which
# makes the figure higher by about 0.1% in the bench's runs) and the
# CPUs' busy shares.
run_rant() {
	local f=$OUT/$1-rant thr=() rate n busy
	[ "$(threads "$3")" -gt 1 ] && thr=(--threads "$(threads "$3")")
	busy=$(timed "$f.txt" ip netns exec "$NS_A" taskset -c "$CPUS" "$RANT" -i "$VETH_A" \
		-a "$IP_B" --port "$(port "$2")" --http / --connections "$3" -d "$RUN_S" \
		-j "$f.json" "${thr[@]}" "${EXTRA[@]}")
	rate=$(jq -r 'if .counts.missing_tx_ts + .counts.missing_rx_ts > 0 then "unstamped"
	       else .counts.received / ((.end_ns - .start_ns) / 1e9) end' "$f.json")
	n=$(jq -r '.counts.sent + .counts.warmup' "$f.json")
	echo "$rate $(cpu_us "$f.txt.time" "${n:-0}") $busy"
}

# lighttpd_start: Debian's lighttpd in NS_B on PORT_LIGHTTPD and CPU 1
# (nginx_start's CPU), the same page as nginx's (nginx_start wrote it),
# keep-alive for the whole run.
lighttpd_start() {
	cat >"$WORK/lighttpd.conf" <<-EOF
		server.document-root = "$WORK/www"
		server.bind = "$IP_B"
		server.port = $PORT_LIGHTTPD
		server.pid-file = "$WORK/lighttpd.pid"
		server.errorlog = "$WORK/lighttpd-error.log"
		server.max-keep-alive-requests = 1000000
		server.max-keep-alive-idle = 600
		server.max-connections = 4096
		index-file.names = ( "index.html" )
	EOF
	ip netns exec "$NS_B" taskset -c 1 lighttpd -D -f "$WORK/lighttpd.conf" \
		>"$WORK/lighttpd.txt" 2>&1 &
	defer kill "$!"
	wait_until 10 __tcp_port "$NS_B" "$PORT_LIGHTTPD"
}

# A figure or nothing: a run that failed or left requests unstamped.
figure() {
	[[ "$1" =~ ^[0-9]+(\.[0-9]+)?$ ]]
}

main() {
	local r who v rant wrk srv n rr rc rb wr wc wb failed=0
	require_root
	require_cmd nginx lighttpd wrk jq shuf taskset
	[ -x "$RANT" ] || { say "bench/probe.sh: $RANT is missing: make first"; exit 1; }
	rm -rf "$OUT"
	mkdir -p "$OUT"
	WORK=$OUT
	setup_pair || { say "bench/probe.sh: cannot create the veth pair"; exit 1; }
	nginx_start "$PORT_OFF" "$PORT_ON" || { say "bench/probe.sh: nginx did not start"; exit 1; }
	lighttpd_start || { say "bench/probe.sh: lighttpd did not start: $(tail -2 "$WORK/lighttpd.txt")"; exit 1; }
	say "bench/probe.sh: $ROUNDS rounds of rant --http ${EXTRA[*]} and wrk, $THREADS thread(s) each on CPUs $CPUS, against ${SERVERS[*]} (tcp_nodelay on) at ${CONN_LIST[*]} connections, $RUN_S s each"
	: >"$OUT/rounds.tsv"
	for ((r = 1; r <= ROUNDS; r++)); do
		for srv in "${SERVERS[@]}"; do
			for n in "${CONN_LIST[@]}"; do
				rant='' wrk=''
				for who in $(shuf -e rant wrk); do
					v=$("run_$who" "r$r-$srv-$n" "$srv" "$n" || true)
					printf -v "$who" '%s' "$v"
				done
				# "RATE CPU_US BUSY" each: the rounds' columns are
				# the rates, the CPU a request, the CPUs' busy shares
				read -r rr rc rb <<<"$rant"
				read -r wr wc wb <<<"$wrk"
				if figure "${rr:-}" && figure "${wr:-}" && figure "${rc:-}" &&
				   figure "${wc:-}" && [ -n "${rb:-}" ] && [ -n "${wb:-}" ]; then
					printf '%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n' "$srv" "$n" "$r" \
						"$rr" "$wr" "$rc" "$wc" "$rb" "$wb" >>"$OUT/rounds.tsv"
				else
					say "bench/probe.sh: round $r, $srv, $n connections: no figure (rant '$rant', wrk '$wrk'; see $OUT)"
					failed=1
				fi
			done
		done
	done
	report | tee "$OUT/report.txt"
	exit "$failed"
}

# For each (server, connections): the median, lowest and highest of
# rant/wrk over the rounds, and each side's median rate; then the
# median of rant's CPU a request over wrk's, and each side's median.
report() {
	sort -t "$(printf '\t')" -k1,1 -k2,2n -k3,3n "$OUT/rounds.tsv" |
		awk -F '\t' -v s="$RUN_S" -v t="$THREADS" -v a="${EXTRA[*]}" '
	function median(a, n,   i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	# the median busy share of each CPU over the rounds, "0.97/0.99"
	function busy(col,   i, c, k, v, out, ncpu) {
		for (i = 1; i <= n; i++)
			ncpu = split(col[i], v, ",")
		for (c = 1; c <= ncpu; c++) {
			for (i = 1; i <= n; i++) {
				split(col[i], v, ",")
				k[i] = v[c]
			}
			out = out (c > 1 ? "/" : "") sprintf("%.2f", median(k, n))
		}
		return out
	}
	function flush(   m, i, q, ra, wa, cq, rc, wc) {
		if (!n)
			return
		for (i = 1; i <= n; i++) {
			q[i] = rq[i]; ra[i] = rr[i]; wa[i] = wr[i]
			cq[i] = cr[i] / cw[i]; rc[i] = cr[i]; wc[i] = cw[i]
		}
		m = median(q, n)
		printf "%-10s %5d %7.3f %7.3f %7.3f %6d %9.0f %9.0f  %-5s %7.2f %7.1f %7.1f  %s %s\n", key_s, key_n,
			m, lo, hi, n, median(ra, n), median(wa, n), (m >= 1 ? "PASS" : "FAIL"),
			median(cq, n), median(rc, n), median(wc, n), busy(rb), busy(wb)
		n = 0
	}
	BEGIN {
		printf "rant --http %s / wrk, %s thread(s) each, requests a second (ratio taken in each round; %s s runs)\n", a, t, s
		printf "each client'"'"'s own CPU a request, in microseconds (user and system, its threads),\n"
		printf "and each CPU'"'"'s busy share during its runs (CPU 0/CPU 1/...)\n"
		printf "%-10s %5s %7s %7s %7s %6s %9s %9s  %-5s %7s %7s %7s  %s %s\n", "server", "conns", "median", "lowest",
			"highest", "rounds", "rant", "wrk", "1.0", "cpu r/w", "rant us", "wrk us", "rant busy", "wrk busy"
	}
	$1 != key_s || $2 != key_n { flush(); key_s = $1; key_n = $2 }
	{ n++; rr[n] = $4; wr[n] = $5; rq[n] = $4 / $5; cr[n] = $6; cw[n] = $7; rb[n] = $8; wb[n] = $9
	  lo = n == 1 || rq[n] < lo ? rq[n] : lo; hi = n == 1 || rq[n] > hi ? rq[n] : hi }
	END { flush() }'
}

main "$@"
