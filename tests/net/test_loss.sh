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

# ---- no reflector: warm-up gives up, SIGINT during it ends at once ----
start=$(date +%s%N)
timeout -s KILL 20 ip netns exec "$NS_A" "$RANT" -i "$VETH_A" -a "$IP_B" --port 9 -c 10 \
	>/dev/null 2>"$WORK/nore.txt"
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$rc" = 2 ] && grep -q "no pong from $IP_B port 9 in 10 s of warm-up" "$WORK/nore.txt"
check_err $? "exit $rc: $(cat "$WORK/nore.txt")"
[ "$ms" -ge 10000 ] && [ "$ms" -lt 13000 ]; check_err $? "gave up after $ms ms, not 10 s"
ip netns exec "$NS_A" "$RANT" -i "$VETH_A" -a "$IP_B" --port 9 >/dev/null 2>"$WORK/nore2.txt" &
em=$!
defer kill -9 "$em"
sleep 1
start=$(date +%s%N)
kill -INT "$em"
wait "$em"; rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$rc" = 0 ] && grep -q "stopped during the warm-up" "$WORK/nore2.txt"
check_err $? "exit $rc: $(cat "$WORK/nore2.txt")"
[ "$ms" -lt 500 ]; check_err $? "SIGINT during the warm-up took $ms ms"
log_test "no reflector: exit 2 after the 10 s warm-up; SIGINT ends it (exit 0) in ${ms} ms"

# ---- a silent peer: waiting with a TX stamp queued must sleep, not spin ----
# (the queued stamp makes poll() report POLLERR at once)
ip netns exec "$NS_B" python3 -c 'import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 9999))
time.sleep(30)' &
sink=$!
defer kill -9 "$sink"
sleep 0.3
ip netns exec "$NS_A" "$RANT" -i "$VETH_A" -a "$IP_B" --port 9999 --block >/dev/null 2>&1 &
em=$!
defer kill -9 "$em"
sleep 0.5
cpu0=$(awk '{ print $14 + $15 }' "/proc/$em/stat")
sleep 1
cpu1=$(awk '{ print $14 + $15 }' "/proc/$em/stat")
kill -INT "$em"; wait "$em"
ms=$(( (cpu1 - cpu0) * 1000 / $(getconf CLK_TCK) ))
[ "$ms" -lt 200 ]; check_err $? "waiting on a silent peer used $ms ms of CPU in 1 s"
log_test "a silent peer: the wait sleeps ($ms ms CPU in 1 s)"

finish
