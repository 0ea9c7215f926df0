#!/usr/bin/env bash
# Reading a capture (make bench; bench/README.md, "Reading a capture"):
# rant --read against tshark -q -z conv,tcp on the same file, one core
# each (taskset), in interleaved rounds of a random order.
#
# The file: bench/capgen writes it once into bench/out/ (READ_FLOWS flows
# of 10 exchanges, 1000 at once, half of them with a Nagle stall, cut at
# 128 bytes) and keeps it for the next bench of the same size. Each run
# is timed by GNU time (elapsed, and user + system CPU); the packets a
# second are the file's packets over each. A ratio is taken in each round
# (tshark's time over rant's), and the report gives the median over the
# rounds with the lowest and highest. Limits: rant at least 2,000,000
# packets a CPU second (median), tshark's time at least 5 times rant's.
#
# Environment: BENCH_ROUNDS (default 5), BENCH_QUICK=1 (3 rounds, a file
# a fifth the size), READ_FLOWS (default 100000: 3.6 million packets),
# READ_CPU (default 0). Exits 0 when every run gave its numbers (a report,
# not a test), 1 otherwise.
set -euo pipefail

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$BENCH/.." && pwd)
RANT=${RANT:-$TOP/rant}
OUT=$BENCH/out/read
QUICK=${BENCH_QUICK:-0}
if [ "$QUICK" = 1 ]; then
	ROUNDS=${BENCH_ROUNDS:-3}
	FLOWS=${READ_FLOWS:-20000}
else
	ROUNDS=${BENCH_ROUNDS:-5}
	FLOWS=${READ_FLOWS:-100000}
fi
CPU=${READ_CPU:-0}
CAPGEN=$BENCH/capgen
FILE=$OUT/capgen-$FLOWS.pcap
RESULTS=$OUT/rounds.tsv
PPS_LIMIT=2000000
RATIO_LIMIT=5

say() { printf '%s\n' "$*" >&2; }

need() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null || { say "readbench: $c is not installed (sudo make deps)"; exit 1; }
	done
}

# timed NAME ROUND CMD...: run CMD on CPU, its elapsed and CPU seconds
# into RESULTS as "ROUND NAME ELAPSED CPU".
timed() {
	local name=$1 round=$2 t
	shift 2
	t=$OUT/r$round-$name.time
	if ! /usr/bin/time -f '%e %U %S' -o "$t" taskset -c "$CPU" "$@" \
		>"$OUT/r$round-$name.out" 2>"$OUT/r$round-$name.err"; then
		say "readbench: $name failed in round $round: $(tail -2 "$OUT/r$round-$name.err")"
		return 1
	fi
	awk -v r="$round" -v n="$name" '{ printf "%s\t%s\t%s\t%.3f\n", r, n, $1, $2 + $3 }' \
		"$t" >>"$RESULTS"
}

# stats ROW COL: the median, lowest and highest over the rounds of column
# COL (3 elapsed, 4 CPU) of ROW; ROW "ratio": of the per-round tshark / rant;
# as "median lowest highest".
stats() {
	awk -v want="$1" -v col="$2" -F '\t' '
		{ v[$1, $2] = $col; rounds[$1] = 1 }
		END {
			n = 0
			for (r in rounds) {
				if (want == "ratio") {
					if (!((r, "rant") in v) || !((r, "tshark") in v) || v[r, "rant"] <= 0)
						continue
					x[++n] = v[r, "tshark"] / v[r, "rant"]
				} else if ((r, want) in v) {
					x[++n] = v[r, want]
				}
			}
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && x[j - 1] > x[j]; j--) { t = x[j]; x[j] = x[j - 1]; x[j - 1] = t }
			if (!n) { print "- - -"; exit }
			m = n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
			printf "%.4f %.4f %.4f\n", m, x[1], x[n]
		}' "$RESULTS"
}

make_file() {
	cc -O2 -Wall -Wextra -o "$CAPGEN" "$BENCH/capgen.c"
	if [ ! -s "$FILE" ]; then
		say "readbench: writing $FILE ($FLOWS flows)"
		"$CAPGEN" -o "$FILE.tmp" -f "$FLOWS" -c 1000 -e 10 -n 500 -s 128
		mv "$FILE.tmp" "$FILE"
	fi
	PACKETS=$("$RANT" --read "$FILE" -j - 2>/dev/null | jq .counts.packets)
	cat "$FILE" >/dev/null	# in the page cache before the first round
}

main() {
	local r order pps_cpu pps_wall ratio_cpu ratio_wall
	need jq tshark taskset awk shuf
	[ -x /usr/bin/time ] || { say "readbench: needs GNU time (Debian package time)"; exit 1; }
	[ -x "$RANT" ] || { say "readbench: $RANT is missing: make"; exit 1; }
	mkdir -p "$OUT"
	: >"$RESULTS"
	make_file
	say "readbench: $PACKETS packets, $ROUNDS rounds of rant --read and tshark -q -z conv,tcp on CPU $CPU"
	for ((r = 1; r <= ROUNDS; r++)); do
		order=$(printf 'rant\ntshark\n' | shuf | tr '\n' ' ')
		for name in $order; do
			case $name in
			rant) timed rant "$r" "$RANT" --read "$FILE" -j "$OUT/r$r-rant.json" ;;
			tshark) timed tshark "$r" tshark -q -z conv,tcp -r "$FILE" ;;
			esac
		done
	done
	read -r pps_cpu _ _ <<<"$(stats rant 4)"
	read -r pps_wall _ _ <<<"$(stats rant 3)"
	read -r -a ratio_cpu <<<"$(stats ratio 4)"
	read -r -a ratio_wall <<<"$(stats ratio 3)"
	printf '\nReading a capture: %s packets (%s flows, bench/capgen), one CPU each, %s rounds\n' \
		"$PACKETS" "$FLOWS" "$ROUNDS"
	printf '%-44s %12s %12s\n' "" "CPU s" "elapsed s"
	printf '%-44s %12s %12s\n' "rant --read (median)" "$pps_cpu" "$pps_wall"
	printf '%-44s %12s %12s\n' "tshark -q -z conv,tcp (median)" "$(stats tshark 4 | cut -d' ' -f1)" \
		"$(stats tshark 3 | cut -d' ' -f1)"
	awk -v p="$PACKETS" -v c="$pps_cpu" -v w="$pps_wall" -v lim="$PPS_LIMIT" 'BEGIN {
		printf "%-44s %12.0f >= %9d  %s\n", "rant --read, packets a CPU second", p / c, lim, (p / c >= lim ? "PASS" : "FAIL")
		printf "%-44s %12.0f    %9s  %s\n", "rant --read, packets an elapsed second", p / w, "", "(info)"
	}'
	awk -v m="${ratio_cpu[0]}" -v lo="${ratio_cpu[1]}" -v hi="${ratio_cpu[2]}" -v lim="$RATIO_LIMIT" \
		-v wm="${ratio_wall[0]}" -v wlo="${ratio_wall[1]}" -v whi="${ratio_wall[2]}" 'BEGIN {
		printf "%-44s %8.2f (%.2f-%.2f) >= %d  %s\n", "tshark / rant, CPU time, per round", m, lo, hi, lim, (m >= lim ? "PASS" : "FAIL")
		printf "%-44s %8.2f (%.2f-%.2f)       %s\n", "tshark / rant, elapsed, per round", wm, wlo, whi, "(info)"
	}'
}

main "$@"
exit 0
