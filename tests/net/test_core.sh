#!/usr/bin/env bash
# rant core over veth: counts agree between emitter, reflector, logs and
# JSON; percentiles recomputed from the full log equal the printed ones;
# garbage gets no reply; replies are as long as requests; --count,
# --interval, --block, -m, IPv6, SIGINT on both sides, -G, reflector -d
# with no traffic, a reflector serving a restarted emitter. A run that
# wants every pong back gives --timeout 1 s: on a loaded machine a pong
# can come later than the default 100 ms, and loss is not what it tests.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="core_counts core_percentiles core_garbage core_count_both
	core_interval core_block_sleeps core_sizes core_ipv6 core_sigint
	core_hugepages core_idle_reflector"

require_root
require_cmd jq ss taskset "$PYTHON"
require_rant

pair() {
	setup_pair || skip_test "cannot create namespaces and veth"
}

# counts agree everywhere: emitter, reflector, both logs, both JSONs (the
# reflector's -c sizes its log and ends it with the emitter's last ping)
core_counts() {
	local rc es er el rr rs
	pair
	start_reflector r1 -s -c 20000 -l "$WORK/r1.log" -j "$WORK/r1.json"
	emit -a "$IP_B" -c 20000 -s -l "$WORK/e1.log" -j "$WORK/e1.json" >"$WORK/e1.txt" 2>&1
	rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e1.txt")"
	check_err "$REFL_RC" "reflector exit $REFL_RC"
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
	grep -q "^measuring: warm-up done after $(jqv "$WORK/e1.json" .counts.warmup) pings$" "$WORK/e1.txt"
	check_err $? "no 'measuring: warm-up done after N pings' line with the JSON's warm-up count"
	[ $(($(wc -l <"$WORK/e1.log") - 2)) = "$es" ]; check_err $? "emitter log rows != sent $es (received and LOST)"
	[ $(($(wc -l <"$WORK/r1.log") - 2)) = "$rr" ]; check_err $? "reflector log rows != received $rr"
	[ "$(jqv "$WORK/e1.json" .metrics.rtt.samples)" = "$er" ]; check_err $? "rtt samples != received"
	[ "$(jqv "$WORK/e1.json" .timestamp_source)" = kernel ]; check_err $? "veth must report kernel stamps"
	head -1 "$WORK/e1.log" | grep -q '^SEQ T1_SW T1_KN T4_KN T4_SW RTT T2_KN T2_SW T3_SW T3_KN RESPONSE T1_SCHED LOST$'
	check_err $? "emitter log header: $(head -1 "$WORK/e1.log")"
	log_test "counts agree: emitter, reflector, logs, JSON ($es transactions)"
}

# percentiles recomputed from the full logs equal the printed ones
core_percentiles() {
	local rc out p50 er
	pair
	start_reflector r1 -s -c 20000 -l "$WORK/r1.log" -j "$WORK/r1.json"
	emit -a "$IP_B" -c 20000 -s -l "$WORK/e1.log" -j "$WORK/e1.json" >"$WORK/e1.txt" 2>&1
	rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e1.txt")"
	check_err "$REFL_RC" "reflector exit $REFL_RC"
	out=$("$PYTHON" "$TOP/tests/net/logcheck.py" "$WORK/e1.log" "$WORK/e1.json" RTT rtt)
	check_err $? "$out"
	out=$("$PYTHON" "$TOP/tests/net/logcheck.py" "$WORK/e1.log" "$WORK/e1.json" RESPONSE response)
	check_err $? "$out"
	out=$("$PYTHON" "$TOP/tests/net/logcheck.py" "$WORK/r1.log" "$WORK/r1.json" RESPONSE response)
	check_err $? "$out"
	# the text summary prints the same p50 as the JSON
	er=$(jqv "$WORK/e1.json" .counts.received)
	p50=$(jqv "$WORK/e1.json" '.metrics.rtt.percentiles."50"')
	grep -Eq "^rtt +$er +[0-9.]+ +[0-9.]+ +[0-9.]+ +$(awk -v n="$p50" 'BEGIN { printf "%.3f", n / 1000 }') " "$WORK/e1.txt"
	check_err $? "text summary's rtt p50 (us) is not the JSON's $p50 ns"
	# the emitter saw the reflector's response as the reflector did
	[ "$(jqv "$WORK/e1.json" .metrics.response.min)" = "$(jqv "$WORK/r1.json" .metrics.response.min)" ]
	check_err $? "response min differs between emitter and reflector"
	log_test "percentiles recomputed from the full logs equal the printed ones"
}

# garbage gets no reply and is counted; replies as long as requests
core_garbage() {
	local name sent reply ninv
	pair
	start_reflector r2 -j "$WORK/r2.json"
	ip netns exec "$NS_A" "$PYTHON" "$TOP/tests/net/udp_probe.py" "$IP_B" "$PORT" >"$WORK/probe.txt"
	check_err $? "udp_probe.py failed: $(tail -3 "$WORK/probe.txt")"
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
	[ -n "$ninv" ] && [ "$(jqv "$WORK/r2.json" .counts.invalid)" = "$ninv" ]
	check_err $? "reflector counted $(jqv "$WORK/r2.json" .counts.invalid) invalid, probe sent $ninv"
	log_test "garbage gets no reply and is counted; replies never longer"
}

# --count on both sides: the reflector stops by itself
core_count_both() {
	local rc rrc er el late
	pair
	start_reflector r3 -c 300 -d 60 -j "$WORK/r3.json"
	# 100 pings past the reflector's 300, each lost after --timeout 5 ms
	# (it was 700: 3.5 s of timeouts, for no more proof)
	emit -a "$IP_B" -c 400 --timeout 5000 -j "$WORK/e3.json" >"$WORK/e3.txt" 2>&1
	rc=$?
	wait "$REFL"; rrc=$?
	check_err $rc "emitter exit $rc"
	check_err $rrc "reflector exit $rrc"
	[ "$(jqv "$WORK/r3.json" .counts.received)" = 300 ]; check_err $? "reflector -c 300 received $(jqv "$WORK/r3.json" .counts.received)"
	[ "$(jqv "$WORK/r3.json" .stop_reason)" = count ]; check_err $? "reflector did not stop on count"
	# Each of the 300 pongs is received, or late if it took more than
	# --timeout on a loaded machine (warm-up pongs count apart).
	er=$(jqv "$WORK/e3.json" .counts.received)
	el=$(jqv "$WORK/e3.json" .counts.lost)
	late=$(jqv "$WORK/e3.json" .counts.late)
	[ "$er" -le 300 ] && [ $((er + late)) -ge 300 ]
	check_err $? "emitter received $er and $late late of the reflector's 300 pongs"
	[ $((er + el)) = 400 ]; check_err $? "emitter received $er + lost $el, not 400"
	log_test "--count on both sides; the emitter counts the rest lost ($late late)"
}

# --interval paces; --block waits in poll()
core_interval() {
	local rc span
	pair
	start_reflector r4 --block
	emit -a "$IP_B" -c 200 --interval 2000 --block --timeout 1000000 -j "$WORK/e4.json" >"$WORK/e4.txt" 2>&1
	rc=$?
	check_err $rc "emitter --interval --block exit $rc"
	stop_reflector
	span=$((($(jqv "$WORK/e4.json" .end_ns) - $(jqv "$WORK/e4.json" .start_ns)) / 1000000))
	[ "$span" -ge 398 ] && [ "$span" -lt 2000 ]; check_err $? "200 transactions at 2 ms took $span ms"
	[ "$(jqv "$WORK/e4.json" .counts.received)" = 200 ]; check_err $? "--block received $(jqv "$WORK/e4.json" .counts.received)"
	log_test "--interval 2000 paces 200 transactions over ${span} ms; --block both sides"
}

# --block sleeps: CPU time well below wall time on both sides, measured
# over a window of the measured run (a queued TX stamp makes poll()
# return at once: waiting must not spin)
core_block_sleeps() {
	local rc c0 c1 r0 r1 window_s=0.5
	pair
	start_reflector r9 --block
	emit_bg e9 -a "$IP_B" --block -c 200 --interval 10000
	wait_measuring "$WORK/e9.txt"
	c0=$(cpu_ns "$EM") && r0=$(cpu_ns "$REFL")
	sleep "$window_s"	# the window the CPU time is measured over
	c1=$(cpu_ns "$EM") && r1=$(cpu_ns "$REFL")
	rc=$?
	check_err $rc "the emitter (2 s of pings) or the reflector ended within the $window_s s window"
	[ $rc = 0 ] || { c0=0 c1=0 r0=0 r1=0; }
	wait "$EM"; rc=$?
	stop_reflector
	check_err $rc "--block emitter exit $rc: $(tail -2 "$WORK/e9.txt")"
	c1=$(((c1 - c0) / 1000000)); r1=$(((r1 - r0) / 1000000))
	[ "$c1" -lt 150 ]; check_err $? "--block emitter used $c1 ms of CPU in 500 ms"
	[ "$r1" -lt 150 ]; check_err $? "--block reflector used $r1 ms of CPU in 500 ms"
	log_test "--block waits asleep: emitter $c1 ms, reflector $r1 ms CPU in 500 ms"
}

# -m: no body below 72 bytes; large datagrams; one reflector serves two
# emitter runs one after the other
core_sizes() {
	pair
	start_reflector r5 -j "$WORK/r5.json"
	emit -a "$IP_B" -c 500 -m 32 -l "$WORK/e5.log" -j "$WORK/e5.json" >"$WORK/e5.txt" 2>&1
	check_err $? "-m 32 exit: $(tail -2 "$WORK/e5.txt")"
	[ "$(jqv "$WORK/e5.json" '.metrics.response // "none"')" = none ]; check_err $? "-m 32 has a response metric"
	[ "$(head -1 "$WORK/e5.log")" = "SEQ T1_KN T4_KN RTT T1_SCHED LOST" ]; check_err $? "-m 32 log header $(head -1 "$WORK/e5.log")"
	emit -a "$IP_B" -c 500 -m 9000 --timeout 1000000 -j "$WORK/e6.json" >"$WORK/e6.txt" 2>&1
	check_err $? "-m 9000 exit: $(tail -2 "$WORK/e6.txt")"
	[ "$(jqv "$WORK/e6.json" .counts.received)" = 500 ]; check_err $? "-m 9000 received $(jqv "$WORK/e6.json" .counts.received)"
	[ "$(jqv "$WORK/e6.json" .metrics.response.samples)" -ge 499 ]; check_err $? "-m 9000 lost the reflector's stamps"
	stop_reflector
	[ "$(jqv "$WORK/r5.json" .counts.sessions)" = 2 ]; check_err $? "one reflector, two emitter runs: sessions $(jqv "$WORK/r5.json" .counts.sessions)"
	log_test "-m 32 and -m 9000; a reflector serves a restarted emitter"
}

core_ipv6() {
	pair
	start_reflector r7
	emit -a "$IP6_B" -c 1000 -s --timeout 1000000 -j "$WORK/e7.json" >"$WORK/e7.txt" 2>&1
	check_err $? "IPv6 emitter exit: $(tail -2 "$WORK/e7.txt")"
	stop_reflector
	[ "$(jqv "$WORK/e7.json" .counts.received)" = 1000 ]; check_err $? "IPv6 received $(jqv "$WORK/e7.json" .counts.received)"
	[ "$(jqv "$WORK/e7.json" .metrics.reflect_rx.samples)" = 1000 ]; check_err $? "IPv6 pongs lost the reflector's stamps"
	log_test "IPv6 (fd77::2)"
}

# SIGINT ends both sides cleanly with the summary and JSON; sent once the
# emitter has measured for 10 ms of its CPU time
core_sigint() {
	local rc es
	pair
	start_reflector r8 -j "$WORK/r8.json"
	emit_bg e8 -a "$IP_B" -d 0 -j "$WORK/e8.json"
	wait_measuring "$WORK/e8.txt"
	wait_cpu "$EM" 10000000 10
	check_err $? "the emitter did not run for 10 ms of CPU in 10 s"
	kill -INT "$EM"
	wait "$EM"; rc=$?
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
}

# -G: records and histograms from the hugepage pool (reserved for the
# test and put back as it was)
core_hugepages() {
	local hp=/proc/sys/vm/nr_hugepages old free0 rc
	old=$(cat "$hp")
	defer sh -c "echo $old > $hp"
	echo $((old + 128)) >"$hp"
	[ "$(cat "$hp")" -ge $((old + 64)) ] || skip_test "no room for 64 hugepages here"
	pair
	start_reflector r10 -G
	free0=$(awk '/HugePages_Free/ { print $2 }' /proc/meminfo)
	emit -a "$IP_B" -G -c 2000 --timeout 1000000 -l "$WORK/e10.log" -j "$WORK/e10.json" >"$WORK/e10.txt" 2>&1
	rc=$?
	stop_reflector
	check_err $rc "-G emitter exit $rc: $(tail -2 "$WORK/e10.txt")"
	check_err "$REFL_RC" "-G reflector exit $REFL_RC"
	[ "$(jqv "$WORK/e10.json" .counts.received)" = 2000 ]; check_err $? "-G run received $(jqv "$WORK/e10.json" .counts.received)"
	[ "$free0" -lt $((old + 128)) ]; check_err $? "the -G reflector took no hugepages ($free0 free)"
	log_test "-G: both sides run from the hugepage pool"
}

# a reflector with -d ends even with no traffic
core_idle_reflector() {
	local start ms
	pair
	start=$(date +%s%N)
	ip netns exec "$NS_B" "$RANT" -i "$VETH_B" -d 0.5 >"$WORK/idle.txt" 2>&1
	check_err $? "idle reflector exit: $(tail -2 "$WORK/idle.txt")"
	ms=$((($(date +%s%N) - start) / 1000000))
	[ "$ms" -ge 500 ] && [ "$ms" -lt 3000 ]; check_err $? "idle reflector -d 0.5 took $ms ms"
	log_test "reflector -d 0.5 without traffic ends in ${ms} ms"
}

tests_run
