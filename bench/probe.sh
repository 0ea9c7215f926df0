#!/usr/bin/env bash
# The probe's row of make bench (bench/README.md, "The probe"): rant --http
# as a load generator beside wrk -t 1, on the same number of kept-alive
# connections to the same Debian nginx (tcp_nodelay on, the 600-byte page
# of tests/net/test_probe.sh), in interleaved rounds: each round runs both,
# in a random order, and takes rant's requests a second over wrk's. The
# bench prints the median of those ratios with the lowest and highest, and
# the target: rant keeps up (0.9 at least) while it stamps every request
# and captures and analyses every segment of its connections.
#
# nginx runs in its namespace on CPU 1, the client on CPU 0 (rant's
# capture thread goes off its CPU, to CPU 1 on a 2-CPU machine). Both
# clients wait in epoll: rant runs with --block, as wrk always does.
#
# Environment:
#   PROBE_ROUNDS=N       rounds (default 7)
#   PROBE_SECONDS=S      each run's length (default 5)
#   PROBE_CONNECTIONS=N  connections of both (default 20)
#   BENCH_QUICK=1        3 rounds of 2 s
#   RANT_ARGS="..."      rant's waiting and more options (default --block;
#                        RANT_ARGS= spins, rant's default; --threads 2)
#   PROBE_CPUS=LIST      the clients' CPUs, taskset's list (default 0; 0,1
#                        for two threads of each, beside nginx on CPU 1)
#   WRK_THREADS=N        wrk -t N (default 1)
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
CONNS=${PROBE_CONNECTIONS:-20}
CPUS=${PROBE_CPUS:-0}
WRK_T=${WRK_THREADS:-1}
PORT_OFF=8080
PORT_ON=8081
OUT=$BENCH/out/probe-bench
read -r -a EXTRA <<<"${RANT_ARGS---block}"

say() { printf '%s\n' "$*" >&2; }

# run_wrk R: wrk's requests a second in round R.
run_wrk() {
	local f=$OUT/r$1-wrk.txt
	ip netns exec "$NS_A" taskset -c "$CPUS" wrk -t "$WRK_T" -c "$CONNS" -d "${RUN_S}s" \
		"http://$IP_B:$PORT_ON/" >"$f" 2>&1
	awk '$1 == "Requests/sec:" { print $2 }' "$f"
}

# run_rant R: rant's measured requests a second in round R (its measured
# time, from the JSON), every one stamped and its segments analysed.
run_rant() {
	local f=$OUT/r$1-rant
	ip netns exec "$NS_A" taskset -c "$CPUS" "$RANT" -i "$VETH_A" -a "$IP_B" --port "$PORT_ON" \
		--http / --connections "$CONNS" -d "$RUN_S" -j "$f.json" "${EXTRA[@]}" \
		>"$f.txt" 2>&1
	jq -r 'if .counts.missing_tx_ts + .counts.missing_rx_ts > 0 then "unstamped"
	       else .counts.received / ((.end_ns - .start_ns) / 1e9) end' "$f.json"
}

# A figure or nothing: a run that failed or left requests unstamped.
figure() {
	[[ "$1" =~ ^[0-9]+(\.[0-9]+)?$ ]]
}

main() {
	local r who v rant wrk failed=0
	require_root
	require_cmd nginx wrk jq shuf taskset
	[ -x "$RANT" ] || { say "bench/probe.sh: $RANT is missing: make first"; exit 1; }
	rm -rf "$OUT"
	mkdir -p "$OUT"
	WORK=$OUT
	setup_pair || { say "bench/probe.sh: cannot create the veth pair"; exit 1; }
	nginx_start "$PORT_OFF" "$PORT_ON" || { say "bench/probe.sh: nginx did not start"; exit 1; }
	say "bench/probe.sh: $ROUNDS rounds of rant --http ${EXTRA[*]} and wrk -t $WRK_T on CPUs $CPUS, $CONNS connections, $RUN_S s each, against nginx (tcp_nodelay on)"
	: >"$OUT/rounds.tsv"
	for ((r = 1; r <= ROUNDS; r++)); do
		rant='' wrk=''
		for who in $(shuf -e rant wrk); do
			v=$("run_$who" "$r" || true)
			printf -v "$who" '%s' "$v"
		done
		if figure "$rant" && figure "$wrk"; then
			printf '%d\t%s\t%s\n' "$r" "$rant" "$wrk" >>"$OUT/rounds.tsv"
		else
			say "bench/probe.sh: round $r: no figure (rant '$rant', wrk '$wrk'; see $OUT)"
			failed=1
		fi
	done
	report | tee "$OUT/report.txt"
	exit "$failed"
}

# The median, lowest and highest of rant/wrk over the rounds, and each
# side's median rate.
report() {
	sort -t "$(printf '\t')" -k1,1n "$OUT/rounds.tsv" | awk -F '\t' -v c="$CONNS" -v s="$RUN_S" -v t="$WRK_T" '
	function median(a, n,   i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{ n++; ra[n] = $2; wa[n] = $3; q[n] = $2 / $3; lo = n == 1 || q[n] < lo ? q[n] : lo
	  hi = n == 1 || q[n] > hi ? q[n] : hi
	  printf "round %d: rant %.0f req/s, wrk %.0f req/s, rant/wrk %.3f\n", $1, $2, $3, q[n] }
	END {
		if (!n) { print "no round gave figures"; exit }
		m = median(q, n)
		printf "\n%-48s %7s %7s %7s %6s %6s  %s\n", "requests a second, ratio taken in each round",
			"median", "lowest", "highest", "rounds", "limit", "result"
		printf "%-48s %7.3f %7.3f %7.3f %6d %6s  %s\n",
			"rant --http / wrk -t " t ", " c " connections, nginx", m, lo, hi, n, ">=0.90",
			(m >= 0.9 ? "PASS" : "FAIL")
		printf "(medians: rant %.0f req/s, wrk %.0f req/s, %s s runs)\n", median(ra, n), median(wa, n), s
	}'
}

main "$@"
