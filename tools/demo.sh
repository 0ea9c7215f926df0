#!/usr/bin/env bash
# rant demo: a reflector and an emitter over a veth pair in two network
# namespaces, a few seconds with -s -H and a 50 us threshold that goes on
# after a breach (-t 50 -C), a log and a JSON summary each; prints both
# summaries, then draws the run with tools/rant-plot. The logs, JSONs and
# pictures stay in ./demo-out (DEMO_OUT=DIR for another folder); the
# namespaces are removed.
# Run as root after building (sudo make demo does both).
set -euo pipefail

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

ip netns exec "$NS_B" taskset -c 1 "$RANT" -i "$VETH_B" -s -H -l "$OUT/reflect.log" \
	-d $((DURATION + 15)) -j "$OUT/reflect.json" >"$OUT/reflect.txt" 2>&1 &
refl=$!
defer kill -9 "$refl"
wait_udp_port "$NS_B" 12345 || { echo "demo: the reflector did not start:" >&2; cat "$OUT/reflect.txt" >&2; exit 1; }

echo "== emitter: rant -i $VETH_A -a $IP_B -d $DURATION -s -H -I 1 -t $THRESHOLD -C -l emit.log -j emit.json"
rc=0
ip netns exec "$NS_A" taskset -c 0 "$RANT" -i "$VETH_A" -a "$IP_B" -d "$DURATION" -s -H -I 1 \
	-t "$THRESHOLD" -C -l "$OUT/emit.log" -j "$OUT/emit.json" || rc=$?
kill -INT "$refl"
wait "$refl" || true
echo
echo "== reflector (stopped with SIGINT):"
cat "$OUT/reflect.txt"
echo
echo "== first lines of the emitter's log:"
head -n 5 "$OUT/emit.log"
echo
echo "== the emitter's JSON summary, rtt:"
jq -c '.metrics.rtt' "$OUT/emit.json"
echo
# Exit 3: some round trips crossed -t; with -C the run went on, as asked.
case $rc in
0) echo "demo: no round trip above $THRESHOLD us" ;;
3) echo "demo: $(jq -r .counts.breaches "$OUT/emit.json") round trips above $THRESHOLD us (-t $THRESHOLD -C)"; rc=0 ;;
*) echo "demo: the emitter failed (exit $rc)" >&2 ;;
esac

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
echo "demo: done (emitter exit $rc); namespaces removed; logs, JSON and plots kept in $OUT:"
(cd "$OUT" && ls -- *.log *.json *.png report/index.html 2>/dev/null | sed 's/^/  /')
[ "$plot_rc" -eq 0 ] || { echo "demo: rant-plot failed (exit $plot_rc)" >&2; exit "$plot_rc"; }
exit "$rc"
