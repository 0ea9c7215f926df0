#!/usr/bin/env bash
# rant demo: a reflector and an emitter over a veth pair in two network
# namespaces, a few seconds with -s, a line a second (-I 1) and a 50 us
# threshold that goes on after a breach (-t 50 -C), a log and a JSON
# summary each; prints a screenful (the emitter's start-up and interval
# lines, its summary table, rant's exit status and what it means, where
# the files are), then draws the run with tools/rant-plot. Everything
# each side printed, the logs, JSONs and pictures stay in ./demo-out
# (DEMO_OUT=DIR for another folder); the namespaces are removed.
# Run as root after building (sudo make demo does both).
set -euo pipefail

case "${1:-}" in
-h|--help)
	cat <<'USAGE'
usage: sudo tools/demo.sh   (or: sudo make demo, which builds first)
Runs a reflector and an emitter over veth between two namespaces for a
few seconds (-s -I 1 -t 50 -C, a log and a JSON each), prints a
screenful and draws the run with tools/rant-plot. Files go to ./demo-out.
Environment: DEMO_OUT=DIR, DEMO_DURATION=S (3), DEMO_THRESHOLD=US (50).
USAGE
	exit 0 ;;
"") ;;
*)	echo "demo: unknown argument '$1' (see tools/demo.sh --help)" >&2; exit 1 ;;
esac

TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../tests/net/lib.sh
. "$TOP/tests/net/lib.sh"

DURATION=${DEMO_DURATION:-3}
THRESHOLD=${DEMO_THRESHOLD:-50}
OUT=${DEMO_OUT:-$PWD/demo-out}
PYTHON=/usr/bin/python3
[ "$(id -u)" = 0 ] || { echo "demo: needs root for namespaces: sudo make demo" >&2; exit 1; }
[ -x "$RANT" ] || { echo "demo: $RANT is not built: make" >&2; exit 1; }
mkdir -p "$OUT" || { echo "demo: cannot create $OUT; set DEMO_OUT=DIR" >&2; exit 1; }
OUT=$(cd "$OUT" && pwd)

setup_pair
echo "== namespaces $NS_A ($VETH_A $IP_A) <-> $NS_B ($VETH_B $IP_B)"

ip netns exec "$NS_B" taskset -c 1 "$RANT" -i "$VETH_B" -s -l "$OUT/reflect.log" \
	-d $((DURATION + 15)) -j "$OUT/reflect.json" >"$OUT/reflect.txt" 2>&1 &
refl=$!
defer kill -9 "$refl"
wait_udp_port "$NS_B" 12345 || { echo "demo: the reflector did not start:" >&2; cat "$OUT/reflect.txt" >&2; exit 1; }

echo "== emitter: rant -i $VETH_A -a $IP_B -d $DURATION -s -I 1 -t $THRESHOLD -C -l emit.log -j emit.json"
echo "   (all it printed: $OUT/emit.txt)"
rc=0
ip netns exec "$NS_A" taskset -c 0 "$RANT" -i "$VETH_A" -a "$IP_B" -d "$DURATION" -s -I 1 \
	-t "$THRESHOLD" -C -l "$OUT/emit.log" -j "$OUT/emit.json" >"$OUT/emit.txt" 2>&1 || rc=$?
kill -INT "$refl"
wait "$refl" || true
# The start-up and interval lines (up to the first blank line or
# breakdown), then the summary's head and its table of metrics (up to
# the blank line after it), the line saying how many breaches more, and
# the warnings' codes.
awk '!body && (/^$/ || /^\*\*\* Threshold breach/) { body = 1 }
	!body && n++ < 20 { print }
	/^--- Latency Statistics ---/ { sum = 1; blanks = 0 }
	sum && /^$/ && ++blanks == 3 { sum = 0 }
	sum && m++ < 45 { print }
	/^[0-9]+ more breaches/ || /^warnings: / { print }' "$OUT/emit.txt"
echo
case $rc in
0) meaning="no round trip above -t $THRESHOLD us" ;;
1) meaning="set-up failed (see $OUT/emit.txt)" ;;
2) meaning="a failure during the run (see $OUT/emit.txt)" ;;
3) meaning="$(jq -r .counts.breaches "$OUT/emit.json") round trips above -t $THRESHOLD us (threshold breached; -C ran on to the end)" ;;
*) meaning="unexpected" ;;
esac
echo "demo: rant exited $rc: $meaning"
# 3 is what -t asks rant to say; the demo itself succeeded
[ "$rc" = 3 ] && rc=0

echo "== plots: tools/rant-plot all emit.json --log emit.log; html report/ emit.json reflect.json"
plot_rc=0
"$PYTHON" "$TOP/tools/rant-plot" all "$OUT/emit.json" --log "$OUT/emit.log" \
	-d "$OUT" >/dev/null || plot_rc=$?
"$PYTHON" "$TOP/tools/rant-plot" all "$OUT/reflect.json" --log "$OUT/reflect.log" \
	-d "$OUT" >/dev/null || plot_rc=$?
"$PYTHON" "$TOP/tools/rant-plot" html "$OUT/report" "$OUT/emit.json" "$OUT/reflect.json" \
	--log "$OUT/emit.log" --log "$OUT/reflect.log" >/dev/null || plot_rc=$?
if [ -n "${SUDO_UID:-}" ] && [ -n "${SUDO_GID:-}" ]; then
	chown -R "$SUDO_UID:$SUDO_GID" "$OUT"
fi
echo
echo "demo: done; namespaces removed; in $OUT: the text each side printed, logs, JSON, plots:"
(cd "$OUT" && shopt -s nullglob && files=(*.txt *.log *.json *.png report/index.html) &&
	echo "${files[*]}" | fold -s -w 76 | sed 's/^/  /')
[ "$plot_rc" -eq 0 ] || { echo "demo: rant-plot failed (exit $plot_rc)" >&2; exit "$plot_rc"; }
exit "$rc"
