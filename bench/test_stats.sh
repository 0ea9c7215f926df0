#!/usr/bin/env bash
# The bench's statistics (bench/stats.awk) on canned rounds, in TAP (make
# unit runs it through prove): medians over rounds, ratios taken per round
# (not the ratio of the medians), their lowest and highest, rounds with a
# missing row left out, the limits, the row order.
set -u

STATS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/stats.awk
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rant-bench-stats.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
n=0
failed=0

# is NAME GOT WANT
is() {
	n=$((n + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		printf '#   got:  %s\n#   want: %s\n' "$2" "$3"
		failed=1
	fi
}

# line ROUND ROW P50 [SLEEPS]: a results line (the other columns fixed)
line() {
	printf '%s\t%s\t1000\t50\t%s\t900\t990\t9999\t%s\n' "$1" "$2" "$3" "${4:--}"
}

# Three rounds: per-round ratios b/a of 1.1, 0.9, 1.25 (median 1.1),
# while the ratio of the medians (180 / 200) would be 0.9.
{
	line 1 a 100 0.00
	line 1 b 110 1.00
	line 2 b 180 1.02
	line 2 a 200 0.01
	line 3 a 400
	line 3 b 500 0.98
	line 4 b 999	# no "a" in round 4: left out of b / a
	line 1 "b (wire, kernel)" 55
} >"$TMP/r3.tsv"

ratio() {	# ratio TEXT NUM DEN LIMIT: the line stats.awk prints
	awk -v mode=ratios -f "$STATS" "$TMP/r3.tsv" \
		<(printf '%s\t%s\t%s\t%s\n' "$@") | sed -n 1p
}

got=$(ratio "b / a" b a 1.3)
is "ratio: median of per-round ratios, lowest, highest, rounds, PASS" \
	"$(cut -c 50- <<<"$got")" "  1.100   0.900   1.250      3    1.3  PASS"
got=$(ratio "b / a" b a 0.8)
is "ratio: FAIL when the median is above the limit" "$(cut -c 50- <<<"$got")" \
	"  1.100   0.900   1.250      3    0.8  FAIL"
got=$(ratio "b / a" b a 1.2)
is "ratio: a limit within the rounds' spread is not shown" "$(cut -c 89- <<<"$got")" \
	"PASS, not shown: the rounds span the limit"
got=$(ratio "b / a" b a -)
is "ratio: no limit is for information" "$(awk '{ print $NF }' <<<"$got")" "(info)"
got=$(ratio "c / a" c a 1.0)
is "ratio: a row that never ran: no rounds, says so" \
	"$(awk '{ print $7 }' <<<"$got") $(grep -c 'n/a (run missing)$' <<<"$got")" "0 1"

# the even count: ratios 1.0 1.2 0.8 1.1 -> median 1.05
{
	line 1 a 100
	line 1 b 100
	line 2 a 100
	line 2 b 120
	line 3 a 100
	line 3 b 80
	line 4 a 100
	line 4 b 110
} >"$TMP/r4.tsv"
got=$(awk -v mode=ratios -f "$STATS" "$TMP/r4.tsv" <(printf 'x\tb\ta\t-\n'))
is "ratio: median of an even count is the mean of the middle two" \
	"$(awk '{ print $2, $3, $4, $5 }' <<<"$got")" "1.050 0.800 1.200 4"

# headings
got=$(awk -v mode=ratios -f "$STATS" "$TMP/r4.tsv" <(printf '# A heading\nx\tb\ta\t-\n') |
	sed -n 2p)
is "ratio: a # line is a heading" "$got" "A heading"
got=$(awk -v mode=ratios -f "$STATS" "$TMP/r4.tsv" \
	<(printf '# Empty\n# Kept\nx\tb\ta\t-\n# Trailing\n') | awk 'NF { printf "%s ", $1 }')
is "ratio: a heading with no ratio after it is left out" "$got" "Kept x "

# rows: medians over rounds, p50 lowest and highest, sleeps without "-"
printf 'b\na\n' >"$TMP/order"
awk -v mode=rows -f "$STATS" "$TMP/r3.tsv" "$TMP/order" >"$TMP/rows"
is "rows: in the given order, each followed by its twins" \
	"$(awk '{ print $1 }' "$TMP/rows" | tr '\n' ' ')" "b b a "
is "rows: b's rounds, median p50, lowest and highest p50, median sleeps" \
	"$(awk 'NR == 1 { print $2, $5, $9, $10, $11 }' "$TMP/rows")" "4 340 110 999 1.00"
is "rows: a's median p50 and its sleeps (the rounds that have them)" \
	"$(awk '$1 == "a" { print $2, $5, $11 }' "$TMP/rows")" "3 200 0.01"
is "rows: a twin's own figures" \
	"$(awk '$1 == "b" && $2 == "(wire," { print $4, $7 }' "$TMP/rows")" "1 55"
is "rows: without an order, the order rows first appear" \
	"$(awk -v mode=rows -f "$STATS" "$TMP/r3.tsv" | awk '{ print $1 }' | tr '\n' ' ')" \
	"a b b "

# field: one median
is "field: median sleeps of b" \
	"$(awk -v mode=field -v row=b -v col=9 -f "$STATS" "$TMP/r3.tsv")" 1
is "field: a row that never ran" \
	"$(awk -v mode=field -v row=c -v col=9 -f "$STATS" "$TMP/r3.tsv")" -

echo "1..$n"
exit "$failed"
