#!/usr/bin/env bash
# The reflector's cost per ping against its sessions (make bench-sessions;
# root). See bench/README.md, "The reflector's sessions".
#
# One veth pair, the reflector (rant -i IF --max-sessions 4096
# --max-sessions-per-address 4096, spinning) pinned to CPU 1, the
# generator and the emitter to CPU 0. In each of SESS_ROUNDS rounds, two
# rows in a random order, a fresh reflector for each:
#
#   14      bench/loadgen -n 1 -s 13: one socket of 13 sessions
#   4096    bench/loadgen -n 65 -s 63: 65 sockets of 63 sessions, 4,095
#
# both offering SESS_RATE rant pings a second for the whole row; beside
# the load, rant's emitter sends SESS_N pings back to back (the 14th or
# the 4,096th session: the table full, none evicted) and its `response` (the reflector's T3 - T2) p50 and p99 are
# the row's figures. The report: each row's median over the rounds with
# the lowest and highest, and the ratio 4096/14 taken in each round.
# Environment: SESS_ROUNDS (5), SESS_RATE (40000), SESS_N (20000),
# SESS_OUT (bench/out/sessions/).
set -euo pipefail

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../tests/net/lib.sh
source "$BENCH/../tests/net/lib.sh"	# TOP, RANT, defer, setup_pair

ROUNDS=${SESS_ROUNDS:-5}
RATE=${SESS_RATE:-40000}
N=${SESS_N:-20000}
OUT=${SESS_OUT:-$BENCH/out/sessions}
LOADGEN=$OUT/loadgen
PORT=12345

say() { echo "$*" >&2; }

# one ROUND ROW: the row's response p50 and p99 into $OUT/rows.tsv.
one() {
	local r=$1 row=$2 flows sessions srv gen
	if [ "$row" = 14 ]; then flows=1 sessions=13; else flows=65 sessions=63; fi
	ip netns exec "$NS_B" taskset -c 1 "$RANT" -i "$VETH_B" --max-sessions 4096 \
		--max-sessions-per-address 4096 -j "$OUT/refl-$row-$r.json" \
		>"$OUT/refl-$row-$r.txt" 2>&1 &
	srv=$!
	defer kill -9 "$srv"
	wait_udp_port "$NS_B" "$PORT" && wait_for_line "$OUT/refl-$row-$r.txt" '^rant .* reflect: ' 10 ||
		{ say "sessions: reflector did not start: $(tail -3 "$OUT/refl-$row-$r.txt")"; exit 1; }
	ip netns exec "$NS_A" taskset -c 0 "$LOADGEN" -a "$IP_B" -p "$PORT" -f rant \
		-r "$RATE" -t 3600 -n "$flows" -s "$sessions" -m 72 >"$OUT/gen-$row-$r.txt" 2>&1 &
	gen=$!
	defer kill -9 "$gen"
	sleep 1	# every session started before the emitter's pings
	ip netns exec "$NS_A" taskset -c 0 "$RANT" -i "$VETH_A" -a "$IP_B" -c "$N" -w 1000 \
		-j "$OUT/emit-$row-$r.json" >"$OUT/emit-$row-$r.txt" 2>&1 ||
		say "sessions: round $r, $row: the emitter failed: $(grep -m1 stopped "$OUT/emit-$row-$r.txt")"
	kill -9 "$gen" 2>/dev/null || true
	wait "$gen" 2>/dev/null || true
	kill -INT "$srv"
	wait "$srv" || true
	jq -r --arg r "$r" --arg row "$row" --slurpfile s "$OUT/refl-$row-$r.json" \
		'[$r, $row, .metrics.response.percentiles["50"], .metrics.response.percentiles["99"],
		  ($s[0].sessions | length), $s[0].sessions_evicted] | @tsv' "$OUT/emit-$row-$r.json" >>"$OUT/rows.tsv"
}

# median/lo/hi of column C (1-based) of ROW's rows.
col() {
	awk -F'\t' -v m="$1" -v c="$2" '$2 == m && $c != "" { print $c }' "$OUT/rows.tsv" | sort -g |
		awk '{ v[NR] = $1 } END { printf "%s (%s..%s)", v[int((NR + 1) / 2)], v[1], v[NR] }'
}

# the per-round ratio 4096/14 of column C: median (lo..hi), over the
# rounds where both rows have it (an emitter whose warm-up failed has none).
ratio() {
	awk -F'\t' -v c="$1" '{ v[$1, $2] = $c; r[$1] = 1 }
		END { for (k in r) if (v[k, "14"] > 0 && v[k, "4096"] > 0)
			printf "%.4g\n", v[k, "4096"] / v[k, "14"] }' \
		"$OUT/rows.tsv" | sort -g |
		awk '{ v[NR] = $1 } END { printf "%s (%s..%s), %d rounds", v[int((NR + 1) / 2)], v[1], v[NR], NR }'
}

main() {
	local r order
	[ "$(id -u)" = 0 ] || { say "sessions: run as root"; exit 1; }
	mkdir -p "$OUT"
	rm -f "$OUT/rows.tsv"
	cc -O2 -Wall -Wextra -o "$LOADGEN" "$BENCH/loadgen.c"
	UNIQ=$(unique_suffix)
	setup_pair
	trap defer_run EXIT
	for ((r = 1; r <= ROUNDS; r++)); do
		order=$( ((RANDOM % 2)) && echo "14 4096" || echo "4096 14")
		say "sessions: round $r of $ROUNDS: $order"
		for m in $order; do one "$r" "$m"; done
	done
	printf 'reflector sessions, %s rounds (median (lowest..highest))\n' "$ROUNDS"
	printf '%-24s %-28s %-28s %s\n' "" "14 sessions" "4096 sessions" "4096/14 (per round)"
	printf '%-24s %-28s %-28s %s\n' "response p50 ns" "$(col 14 3)" "$(col 4096 3)" "$(ratio 3)"
	printf '%-24s %-28s %-28s %s\n' "response p99 ns" "$(col 14 4)" "$(col 4096 4)" "$(ratio 4)"
	printf '%-24s %-28s %-28s\n' "sessions at the end" "$(col 14 5)" "$(col 4096 5)"
	printf '%-24s %-28s %-28s\n' "sessions evicted" "$(col 14 6)" "$(col 4096 6)"
	printf 'offered %s pings/s by bench/loadgen; %s pings of rant'"'"'s emitter beside it\n' "$RATE" "$N"
}

main "$@"
