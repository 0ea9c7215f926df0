#!/usr/bin/env bash
# rant core over veth: counts agree between emitter, reflector, logs and
# JSON; percentiles recomputed from the full log equal the printed ones;
# garbage gets no reply; replies are as long as requests; --count,
# --interval, --block, -m, IPv6, SIGINT on both sides, reflector -d with
# no traffic, a reflector serving a restarted emitter.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_cmd jq python3 ss taskset
[ -x "$RANT" ] || skip "rant is not built (make)"
setup_pair || skip "cannot create namespaces and veth"
# ---- counts agree everywhere; percentiles recomputed from the log ----
start_reflector r1 -s -l "$WORK/r1.log" -d 60 -j "$WORK/r1.json"
emit -a "$IP_B" -c 20000 -s -l "$WORK/e1.log" -j "$WORK/e1.json" >"$WORK/e1.txt" 2>&1
rc=$?
stop_reflector
check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e1.txt")"
check_err $REFL_RC "reflector exit $REFL_RC"
es=$(jqv "$WORK/e1.json" .counts.sent)
er=$(jqv "$WORK/e1.json" .counts.received)
el=$(jqv "$WORK/e1.json" .counts.lost)
rr=$(jqv "$WORK/r1.json" .counts.received)
rs=$(jqv "$WORK/r1.json" .counts.sent)
[ "$es" = 20000 ]; check_err $? "emitter sent $es, not 20000"
[ $((er + el)) = "$es" ]; check_err $? "emitter received $er + lost $el != sent $es"
[ "$rr" = "$es" ]; check_err $? "reflector received $rr, emitter sent $es"
[ "$rs" = "$rr" ]; check_err $? "reflector sent $rs != received $rr"
[ "$(jqv "$WORK/e1.json" .counts.warmup)" = "$(jqv "$WORK/r1.json" .counts.warmup)" ]
check_err $? "warm-up pings: emitter sent $(jqv "$WORK/e1.json" .counts.warmup), reflector got $(jqv "$WORK/r1.json" .counts.warmup)"
[ $(($(wc -l <"$WORK/e1.log") - 2)) = "$er" ]; check_err $? "emitter log rows != received $er"
[ $(($(wc -l <"$WORK/r1.log") - 2)) = "$rr" ]; check_err $? "reflector log rows != received $rr"
[ "$(jqv "$WORK/e1.json" .metrics.rtt.samples)" = "$er" ]; check_err $? "rtt samples != received"
[ "$(jqv "$WORK/e1.json" .timestamp_source)" = kernel ]; check_err $? "veth must report kernel stamps"
head -1 "$WORK/e1.log" | grep -q '^SEQ T1_SW T1_KN T4_KN T4_SW RTT T2_KN T2_SW T3_SW T3_KN RESPONSE$'
check_err $? "emitter log header: $(head -1 "$WORK/e1.log")"
log_test "counts agree: emitter, reflector, logs, JSON ($es transactions)"

out=$(python3 "$TOP/tests/net/logcheck.py" "$WORK/e1.log" "$WORK/e1.json" RTT rtt)
check_err $? "$out"
out=$(python3 "$TOP/tests/net/logcheck.py" "$WORK/e1.log" "$WORK/e1.json" RESPONSE response)
check_err $? "$out"
out=$(python3 "$TOP/tests/net/logcheck.py" "$WORK/r1.log" "$WORK/r1.json" RESPONSE response)
check_err $? "$out"
# the text summary prints the same p50 as the JSON
p50=$(jqv "$WORK/e1.json" '.metrics.rtt.percentiles."50"')
grep -Eq "^rtt +$er +[0-9]+ +[0-9.]+ +[0-9.]+ +$p50 " "$WORK/e1.txt"
check_err $? "text summary's rtt p50 is not the JSON's $p50"
# the emitter saw the reflector's response as the reflector did
[ "$(jqv "$WORK/e1.json" .metrics.response.min)" = "$(jqv "$WORK/r1.json" .metrics.response.min)" ]
check_err $? "response min differs between emitter and reflector"
log_test "percentiles recomputed from the full logs equal the printed ones"

# ---- garbage gets no reply and is counted; replies as long as requests ----
start_reflector r2 -j "$WORK/r2.json"
ip netns exec "$NS_A" python3 "$TOP/tests/net/udp_probe.py" "$IP_B" $PORT >"$WORK/probe.txt"
stop_reflector
while read -r name sent reply; do
	case $name in
	invalid_sent=*) continue ;;
	ping_*) [ "${reply#reply=}" = "${sent#sent=}" ]
		check_err $? "$name: $sent but $reply" ;;
	*) [ "$reply" = reply=none ]; check_err $? "garbage $name got $reply" ;;
	esac
done <"$WORK/probe.txt"
ninv=$(sed -n 's/^invalid_sent=//p' "$WORK/probe.txt")
[ "$(jqv "$WORK/r2.json" .counts.invalid)" = "$ninv" ]
check_err $? "reflector counted $(jqv "$WORK/r2.json" .counts.invalid) invalid, probe sent $ninv"
log_test "garbage gets no reply and is counted; replies never longer"

# ---- --count on both sides: the reflector stops by itself ----
start_reflector r3 -c 300 -j "$WORK/r3.json"
emit -a "$IP_B" -c 1000 --timeout 5000 -j "$WORK/e3.json" >"$WORK/e3.txt" 2>&1
rc=$?
wait "$REFL"; rrc=$?
check_err $rc "emitter exit $rc"
check_err $rrc "reflector exit $rrc"
[ "$(jqv "$WORK/r3.json" .counts.received)" = 300 ]; check_err $? "reflector -c 300 received $(jqv "$WORK/r3.json" .counts.received)"
[ "$(jqv "$WORK/r3.json" .stop_reason)" = count ]; check_err $? "reflector did not stop on count"
[ "$(jqv "$WORK/e3.json" .counts.received)" = 300 ]; check_err $? "emitter received $(jqv "$WORK/e3.json" .counts.received), not 300"
[ "$(jqv "$WORK/e3.json" .counts.lost)" = 700 ]; check_err $? "emitter lost $(jqv "$WORK/e3.json" .counts.lost), not 700"
log_test "--count on both sides; the emitter counts the rest lost"

# ---- --interval paces; --block waits in poll() ----
start_reflector r4 --block -d 60
emit -a "$IP_B" -c 200 --interval 2000 --block -j "$WORK/e4.json" >"$WORK/e4.txt" 2>&1
check_err $? "emitter --interval --block exit $?"
stop_reflector
span=$(( ($(jqv "$WORK/e4.json" .end_ns) - $(jqv "$WORK/e4.json" .start_ns)) / 1000000 ))
[ "$span" -ge 398 ] && [ "$span" -lt 2000 ]; check_err $? "200 transactions at 2 ms took $span ms"
[ "$(jqv "$WORK/e4.json" .counts.received)" = 200 ]; check_err $? "--block received $(jqv "$WORK/e4.json" .counts.received)"
log_test "--interval 2000 paces 200 transactions over ${span} ms; --block both sides"

# ---- --block sleeps: CPU time well below wall time on both sides ----
# (a queued TX stamp makes poll() return at once: waiting must not spin)
cpu_ms() { awk '{ print int(($14 + $15) * 1000 / '"$(getconf CLK_TCK)"') }' "/proc/$1/stat"; }
start_reflector r9 --block -d 60
emit -a "$IP_B" --block -c 100 --interval 10000 >"$WORK/e9.txt" 2>&1 &
em=$!
defer kill -9 "$em"
sleep 0.3	# ip netns exec and taskset exec into rant: $em is rant
c0=$(cpu_ms "$em"); r0=$(cpu_ms "$REFL")
sleep 0.5
c1=$(cpu_ms "$em"); r1=$(cpu_ms "$REFL")
wait "$em"; rc=$?
stop_reflector
check_err $rc "--block emitter exit $rc"
[ $((c1 - c0)) -lt 150 ]; check_err $? "--block emitter used $((c1 - c0)) ms of CPU in 500 ms"
[ $((r1 - r0)) -lt 150 ]; check_err $? "--block reflector used $((r1 - r0)) ms of CPU in 500 ms"
log_test "--block waits asleep: emitter $((c1 - c0)) ms, reflector $((r1 - r0)) ms CPU in 500 ms"

# ---- -m: no body below 72 bytes; large datagrams ----
start_reflector r5 -d 60 -j "$WORK/r5.json"
emit -a "$IP_B" -c 500 -m 32 -l "$WORK/e5.log" -j "$WORK/e5.json" >/dev/null 2>&1
check_err $? "-m 32 exit"
[ "$(jqv "$WORK/e5.json" '.metrics.response // "none"')" = none ]; check_err $? "-m 32 has a response metric"
[ "$(head -1 "$WORK/e5.log")" = "SEQ T1_KN T4_KN RTT" ]; check_err $? "-m 32 log header $(head -1 "$WORK/e5.log")"
emit -a "$IP_B" -c 500 -m 9000 -j "$WORK/e6.json" >/dev/null 2>&1
check_err $? "-m 9000 exit"
[ "$(jqv "$WORK/e6.json" .counts.received)" = 500 ]; check_err $? "-m 9000 received $(jqv "$WORK/e6.json" .counts.received)"
[ "$(jqv "$WORK/e6.json" .metrics.response.samples)" -ge 499 ]; check_err $? "-m 9000 lost the reflector's stamps"
stop_reflector
[ "$(jqv "$WORK/r5.json" .counts.sessions)" = 2 ]; check_err $? "one reflector, two emitter runs: sessions $(jqv "$WORK/r5.json" .counts.sessions)"
log_test "-m 32 and -m 9000; a reflector serves a restarted emitter"

# ---- IPv6 ----
start_reflector r7 -d 60
emit -a "$IP6_B" -c 1000 -s -j "$WORK/e7.json" >"$WORK/e7.txt" 2>&1
check_err $? "IPv6 emitter exit: $(tail -2 "$WORK/e7.txt")"
stop_reflector
[ "$(jqv "$WORK/e7.json" .counts.received)" = 1000 ]; check_err $? "IPv6 received $(jqv "$WORK/e7.json" .counts.received)"
[ "$(jqv "$WORK/e7.json" .metrics.reflect_rx.samples)" = 1000 ]; check_err $? "IPv6 pongs lost the reflector's stamps"
log_test "IPv6 (fd77::2)"

# ---- SIGINT ends both sides cleanly with the summary and JSON ----
start_reflector r8 -j "$WORK/r8.json"
ip netns exec "$NS_A" taskset -c 0 "$RANT" -i "$VETH_A" -a "$IP_B" -d 0 \
	-j "$WORK/e8.json" >"$WORK/e8.txt" 2>&1 &
em=$!
defer kill -9 "$em"
sleep 1.5
kill -INT "$em"
wait "$em"; rc=$?
stop_reflector
check_err $rc "emitter exit $rc on SIGINT"
check_err "$REFL_RC" "reflector exit $REFL_RC on SIGINT"
[ "$(jqv "$WORK/e8.json" .stop_reason)" = signal ]; check_err $? "emitter stop_reason $(jqv "$WORK/e8.json" .stop_reason)"
[ "$(jqv "$WORK/r8.json" .stop_reason)" = signal ]; check_err $? "reflector stop_reason"
es=$(jqv "$WORK/e8.json" .counts.sent)
[ "$((es))" -gt 0 ] && [ "$(jqv "$WORK/r8.json" .counts.received)" = "$es" ]
check_err $? "after SIGINT: emitter sent $es, reflector received $(jqv "$WORK/r8.json" .counts.received)"
grep -q -- '--- Latency Statistics ---' "$WORK/e8.txt"; check_err $? "no summary after SIGINT"
log_test "SIGINT on both sides: summary, JSON, counts agree"

# ---- -G: records and histograms from the hugepage pool ----
# (the pool is reserved for the test and put back as it was)
hp=/proc/sys/vm/nr_hugepages
old=$(cat "$hp")
defer sh -c "echo $old > $hp"
echo $((old + 128)) >"$hp"
if [ "$(cat "$hp")" -ge $((old + 64)) ]; then
	start_reflector r10 -G -d 60
	free0=$(awk '/HugePages_Free/ { print $2 }' /proc/meminfo)
	emit -a "$IP_B" -G -c 2000 -l "$WORK/e10.log" -j "$WORK/e10.json" >"$WORK/e10.txt" 2>&1
	rc=$?
	stop_reflector
	check_err $rc "-G emitter exit $rc: $(tail -2 "$WORK/e10.txt")"
	check_err "$REFL_RC" "-G reflector exit $REFL_RC"
	[ "$(jqv "$WORK/e10.json" .counts.received)" = 2000 ]; check_err $? "-G run received $(jqv "$WORK/e10.json" .counts.received)"
	[ "$free0" -lt $((old + 128)) ]; check_err $? "the -G reflector took no hugepages ($free0 free)"
	log_test "-G: both sides run from the hugepage pool"
else
	echo "    (no room for 64 hugepages here: -G not run)"
fi
echo "$old" >"$hp"

# ---- a reflector with -d ends even with no traffic ----
start=$(date +%s%N)
ip netns exec "$NS_B" "$RANT" -i "$VETH_B" -d 0.5 >/dev/null 2>&1
check_err $? "idle reflector exit"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$ms" -ge 500 ] && [ "$ms" -lt 3000 ]; check_err $? "idle reflector -d 0.5 took $ms ms"
log_test "reflector -d 0.5 without traffic ends in ${ms} ms"

finish
