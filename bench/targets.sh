#!/usr/bin/env bash
# The fleet emitter's row of make bench (bench/README.md, "The fleet's
# emitter"): what the loop of --targets costs, as the share of one CPU
# it takes per 10,000 pings a second. 1,000 targets at 10 pings a second
# each (1,000 addresses of one reflector, as tests/net/test_fleet.sh's
# fleet_scale), rant --targets with --block on CPU 0, the reflector on
# CPU 1; one path a target, and --paths 4 (the same pings over 4
# sockets, 4,000 sessions on the reflector). Each round runs both rows
# in a random order; a row's figure is the emitter's CPU time (user and
# system, /usr/bin/time) over its measured seconds, scaled to 10,000
# measured pings a second. The bench prints each row's median over the
# rounds with the lowest and highest, and the peak RSS.
#
# Environment:
#   TARGETS_ROUNDS=N   rounds (default 5)
#   TARGETS_SECONDS=S  each run's length (default 20)
#   BENCH_QUICK=1      3 rounds of 5 s
# Raw outputs in bench/out/targets-bench/. Exits 0 when every run gave a
# figure (a report, not a test), 1 otherwise.
set -euo pipefail

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../tests/net/lib.sh
source "$BENCH/../tests/net/lib.sh"	# TOP, RANT, defer, setup_pair, wait_udp_port

if [ "${BENCH_QUICK:-0}" = 1 ]; then
	ROUNDS=${TARGETS_ROUNDS:-3}
	RUN_S=${TARGETS_SECONDS:-5}
else
	ROUNDS=${TARGETS_ROUNDS:-5}
	RUN_S=${TARGETS_SECONDS:-20}
fi
N=1000
OUT=$BENCH/out/targets-bench

say() { printf '%s\n' "$*" >&2; }

# run R PATHS: "cpu_per_10k rss_kib pings_per_s lost" of one run, against
# a reflector of its own (a session a target and path: 4,000 with
# --paths 4, a run's sessions never held by the one before).
run() {
	local f=$OUT/r$1-p$2 u s m refl rc=0
	ip netns exec "$NS_B" taskset -c 1 "$RANT" -i "$VETH_B" --block --max-sessions 4096 \
		--max-sessions-per-address 4096 >"$f.reflector.txt" 2>&1 &
	refl=$!
	wait_udp_port "$NS_B" "$PORT" || { kill "$refl"; return 1; }
	ip netns exec "$NS_A" taskset -c 0 /usr/bin/time -f '%U %S %M' -o "$f.time" \
		"$RANT" -i "$VETH_A" --targets "$OUT/targets" --paths "$2" -d "$RUN_S" --block \
		--timeout 1000000 -j "$f.json" >"$f.txt" 2>&1 || rc=1
	kill -INT "$refl"
	wait "$refl" || true
	[ "$rc" = 0 ] || return 1
	read -r u s m <"$f.time"
	jq -r --arg u "$u" --arg s "$s" --arg m "$m" '
		((.end_ns - .start_ns) / 1e9) as $t | (.counts.sent / $t) as $rate |
		"\((($u | tonumber) + ($s | tonumber)) / $t * 10000 / $rate) \($m) \($rate) \(.counts.lost)"' \
		"$f.json"
}

report() {
	awk '
	function median(a, n,   i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{ k = $2; n[k]++; c[k, n[k]] = $3; r[k, n[k]] = $4; p[k, n[k]] = $5; l[k] += $6
	  lo[k] = n[k] == 1 || $3 < lo[k] ? $3 : lo[k]; hi[k] = n[k] == 1 || $3 > hi[k] ? $3 : hi[k]
	  printf "round %d, --paths %d: %.3f of a CPU per 10,000 pings/s (%.0f pings/s, RSS %d KiB, lost %d)\n", $1, $2, $3, $5, $4, $6 }
	END {
		printf "\n%-52s %7s %7s %7s %6s %9s\n", "fleet emitter, CPU share per 10,000 pings/s", "median",
			"lowest", "highest", "rounds", "RSS KiB"
		for (k = 1; k <= 64; k++) {
			if (!n[k])
				continue
			for (i = 1; i <= n[k]; i++) { a[i] = c[k, i]; b[i] = r[k, i] }
			printf "%-52s %7.3f %7.3f %7.3f %6d %9d\n", "1,000 targets x 10/s, --block, --paths " k,
				median(a, n[k]), lo[k], hi[k], n[k], median(b, n[k])
		}
	}' "$OUT/rounds.tsv"
}

main() {
	local r paths v failed=0
	require_root
	require_cmd jq taskset shuf /usr/bin/time
	[ -x "$RANT" ] || { say "bench/targets.sh: $RANT is missing: make first"; exit 1; }
	rm -rf "$OUT"
	mkdir -p "$OUT"
	setup_pair || { say "bench/targets.sh: cannot create the veth pair"; exit 1; }
	for ((i = 0; i < N; i++)); do
		echo "addr add 10.99.$((i / 250)).$((i % 250 + 1))/32 dev $VETH_B"
		echo "10.99.$((i / 250)).$((i % 250 + 1))" >>"$OUT/targets"
	done | ip -n "$NS_B" -batch -
	ip -n "$NS_A" route add 10.99.0.0/16 via "$IP_B"
	say "bench/targets.sh: $ROUNDS rounds of $N targets x 10/s for $RUN_S s, --paths 1 and 4"
	: >"$OUT/rounds.tsv"
	for ((r = 1; r <= ROUNDS; r++)); do
		for paths in $(shuf -e 1 4); do
			if v=$(run "$r" "$paths") && [[ "$v" =~ ^[0-9.e+-]+\ [0-9]+\ [0-9.e+-]+\ [0-9]+$ ]]; then
				printf '%d\t%d\t%s\n' "$r" "$paths" "${v// /$'\t'}" >>"$OUT/rounds.tsv"
			else
				say "bench/targets.sh: round $r, --paths $paths: no figure (see $OUT)"
				failed=1
			fi
		done
	done
	report | tee "$OUT/report.txt"
	exit "$failed"
}

main "$@"
