#!/usr/bin/env bash
# rant demo: a reflector and an emitter over a veth pair in two network
# namespaces, a few seconds with -s -H, a log and a JSON summary each;
# prints both summaries and removes everything it created.
# Run as root after building (sudo make demo does both).
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../tests/net/lib.sh
. "$TOP/tests/net/lib.sh"

DURATION=${DEMO_DURATION:-3}
[ "$(id -u)" = 0 ] || { echo "demo: needs root for namespaces: sudo make demo" >&2; exit 1; }
[ -x "$RANT" ] || { echo "demo: $RANT is not built: make" >&2; exit 1; }

setup_pair
echo "== namespaces $NS_A ($VETH_A $IP_A) <-> $NS_B ($VETH_B $IP_B)"

out=$WORK
ip netns exec "$NS_B" taskset -c 1 "$RANT" -i "$VETH_B" -s -H -l "$out/reflect.log" \
	-d $((DURATION + 15)) -j "$out/reflect.json" >"$out/reflect.txt" 2>&1 &
refl=$!
defer kill -9 "$refl"
wait_udp_port "$NS_B" 12345 || { echo "demo: the reflector did not start:" >&2; cat "$out/reflect.txt" >&2; exit 1; }

echo "== emitter: rant -i $VETH_A -a $IP_B -d $DURATION -s -H -l emit.log -j emit.json"
rc=0
ip netns exec "$NS_A" taskset -c 0 "$RANT" -i "$VETH_A" -a "$IP_B" -d "$DURATION" -s -H \
	-l "$out/emit.log" -j "$out/emit.json" || rc=$?
kill -INT "$refl"
wait "$refl" || true
echo
echo "== reflector (stopped with SIGINT):"
cat "$out/reflect.txt"
echo
echo "== first lines of the emitter's log:"
head -n 5 "$out/emit.log"
echo
echo "== the emitter's JSON summary, rtt:"
jq -c '.metrics.rtt' "$out/emit.json"
echo
echo "demo: done (emitter exit $rc); namespaces and files removed"
exit "$rc"
