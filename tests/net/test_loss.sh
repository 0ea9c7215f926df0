#!/usr/bin/env bash
# Loss and faults: a reflector killed and restarted mid-run costs the
# emitter some lost transactions, not the run; pongs that arrive after
# --timeout are counted late, never taken for the current transaction.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_cmd jq taskset ss
[ -x "$RANT" ] || skip "rant is not built (make)"
setup_pair || skip "cannot create namespaces and veth"

# ---- reflector killed and restarted ----
start_reflector k1 -d 60
ip netns exec "$NS_A" taskset -c 0 "$RANT" -i "$VETH_A" -a "$IP_B" -d 3 \
	--timeout 5000 -l "$WORK/e1.log" -j "$WORK/e1.json" >"$WORK/e1.txt" 2>&1 &
em=$!
defer kill -9 "$em"
sleep 1
kill -9 "$REFL"
wait "$REFL" 2>/dev/null
sleep 0.5
start_reflector k2 -d 60 -j "$WORK/k2.json"
wait "$em"; rc=$?
stop_reflector
check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e1.txt")"
sent=$(jqv "$WORK/e1.json" .counts.sent)
recv=$(jqv "$WORK/e1.json" .counts.received)
lost=$(jqv "$WORK/e1.json" .counts.lost)
[ "$lost" -ge 10 ]; check_err $? "lost $lost: the reflector was down for 0.5 s"
[ $((recv + lost)) = "$sent" ]; check_err $? "received $recv + lost $lost != sent $sent"
[ "$(jqv "$WORK/e1.json" .stop_reason)" = duration ]; check_err $? "the run did not reach its end"
[ "$(jqv "$WORK/k2.json" .counts.received)" -gt 0 ]; check_err $? "the restarted reflector got nothing"
[ $(($(wc -l <"$WORK/e1.log") - 2)) = "$recv" ]; check_err $? "log rows != received"
log_test "reflector killed and restarted: $lost lost of $sent, the run finished"

# ---- late pongs: the reflector stopped longer than --timeout ----
start_reflector k3 -d 60
ip netns exec "$NS_A" taskset -c 0 "$RANT" -i "$VETH_A" -a "$IP_B" -d 2 \
	--timeout 10000 -j "$WORK/e3.json" >"$WORK/e3.txt" 2>&1 &
em=$!
defer kill -9 "$em"
sleep 0.5
for _ in 1 2 3; do
	kill -STOP "$REFL"; sleep 0.05; kill -CONT "$REFL"; sleep 0.2
done
wait "$em"; rc=$?
stop_reflector
check_err $rc "emitter exit $rc"
late=$(jqv "$WORK/e3.json" .counts.late)
lost=$(jqv "$WORK/e3.json" .counts.lost)
[ "$late" -ge 3 ]; check_err $? "late $late: three pongs came 40 ms after their timeout"
[ "$lost" -ge "$late" ]; check_err $? "late $late > lost $lost: a late pong is one that was counted lost"
[ "$(jqv "$WORK/e3.json" .metrics.rtt.max)" -lt 10000000 ]
check_err $? "an RTT above --timeout was measured: a late pong was taken for the current one"
log_test "late pongs are counted ($late), never measured"

finish
