#!/usr/bin/env bash
# Does reading the server's side disturb it? (bench/README.md, "The
# server's side".) rant --http against Debian's nginx (tcp_nodelay on, the
# page of tests/net/test_probe.sh) with and without --server-pid, in
# interleaved rounds of random order; each round takes the requests a
# second with over those without. --server-pid traces nginx's send and
# receive calls (syscall tracepoints) for the whole run and reads its
# sockets once at the end: what it costs nginx shows in those requests.
#
# Environment: SERVER_ROUNDS=N (default 7), SERVER_SECONDS=S (default 4),
# SERVER_CONNECTIONS=N (default 20), BENCH_QUICK=1 (3 rounds of 2 s).
# Raw outputs in bench/out/server-bench/. Exits 0 when every run gave a
# figure (a report, not a test), 1 otherwise.
set -euo pipefail

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../tests/net/lib.sh
source "$BENCH/../tests/net/lib.sh"	# TOP, RANT, setup_pair, nginx_start

if [ "${BENCH_QUICK:-0}" = 1 ]; then
	ROUNDS=${SERVER_ROUNDS:-3} RUN_S=${SERVER_SECONDS:-2}
else
	ROUNDS=${SERVER_ROUNDS:-7} RUN_S=${SERVER_SECONDS:-4}
fi
CONNS=${SERVER_CONNECTIONS:-20}
PORT_ON=8081
OUT=$BENCH/out/server-bench

say() { printf '%s\n' "$*" >&2; }

# run R NAME ARGS...: rant's measured requests a second.
run() {
	local f=$OUT/r$1-$2
	shift 2
	ip netns exec "$NS_A" taskset -c 0 "$RANT" -i "$VETH_A" -a "$IP_B" --port "$PORT_ON" \
		--http / --connections "$CONNS" -d "$RUN_S" --block -j "$f.json" "$@" >"$f.txt" 2>&1
	jq -r '.counts.received / ((.end_ns - .start_ns) / 1e9)' "$f.json"
}

main() {
	local r who with without
	require_root
	require_cmd nginx jq shuf taskset
	[ -x "$RANT" ] || { say "bench/server.sh: $RANT is missing: make first"; exit 1; }
	rm -rf "$OUT"
	mkdir -p "$OUT"
	WORK=$OUT
	setup_pair || { say "bench/server.sh: cannot create the veth pair"; exit 1; }
	nginx_start 8080 "$PORT_ON" || { say "bench/server.sh: nginx did not start"; exit 1; }
	say "bench/server.sh: $ROUNDS rounds of rant --http with and without --server-pid, $CONNS connections, $RUN_S s each"
	: >"$OUT/rounds.tsv"
	for ((r = 1; r <= ROUNDS; r++)); do
		for who in $(shuf -e with without); do
			if [ "$who" = with ]; then
				with=$(run "$r" with --server-pid "$NGINX")
			else
				without=$(run "$r" without)
			fi
		done
		printf '%d\t%s\t%s\n' "$r" "$with" "$without" >>"$OUT/rounds.tsv"
	done
	awk -F '\t' -v c="$CONNS" '
	{ n++; q[n] = $2 / $3; printf "round %d: with %.0f req/s, without %.0f req/s, ratio %.3f\n", $1, $2, $3, q[n] }
	END {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && q[j - 1] > q[j]; j--) { t = q[j]; q[j] = q[j - 1]; q[j - 1] = t }
		m = n % 2 ? q[(n + 1) / 2] : (q[n / 2] + q[n / 2 + 1]) / 2
		printf "\nrant --http --server-pid / without, %d connections, nginx: median %.3f (lowest %.3f, highest %.3f, %d rounds)\n", c, m, q[1], q[n], n
	}' "$OUT/rounds.tsv" | tee "$OUT/report.txt"
}

main "$@"
