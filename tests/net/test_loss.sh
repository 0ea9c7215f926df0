#!/usr/bin/env bash
# Loss and faults: a reflector killed and restarted mid-run costs the
# emitter some lost transactions, not the run; pongs that arrive after
# --timeout are counted late, never taken for the current transaction;
# with no reflector the warm-up gives up after 10 s, and SIGINT ends it
# at once; waiting on a silent peer sleeps.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="loss_restart loss_late loss_warmup_gives_up loss_warmup_sigint
	loss_silent_peer"

require_root
require_cmd jq taskset ss timeout "$PYTHON"
require_rant

pair() {
	setup_pair || skip_test "cannot create namespaces and veth"
}

# The reflector is down for DOWN seconds: the stimulus, not a wait.
loss_restart() {
	local rc sent recv lost down=0.5
	pair
	start_reflector k1
	emit_bg e1 -a "$IP_B" -d 3 --timeout 5000 -l "$WORK/e1.log" -j "$WORK/e1.json"
	wait_measuring "$WORK/e1.txt"
	kill -9 "$REFL"
	wait "$REFL" 2>/dev/null
	sleep "$down"
	start_reflector k2 -j "$WORK/k2.json"
	wait "$EM"; rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e1.txt")"
	sent=$(jqv "$WORK/e1.json" .counts.sent)
	recv=$(jqv "$WORK/e1.json" .counts.received)
	lost=$(jqv "$WORK/e1.json" .counts.lost)
	[ "$lost" -ge 10 ]; check_err $? "lost $lost: the reflector was down for $down s"
	[ $((recv + lost)) = "$sent" ]; check_err $? "received $recv + lost $lost != sent $sent"
	[ "$(jqv "$WORK/e1.json" .stop_reason)" = duration ]; check_err $? "the run did not reach its end"
	[ "$(jqv "$WORK/k2.json" .counts.received)" -gt 0 ]; check_err $? "the restarted reflector got nothing"
	[ $(($(wc -l <"$WORK/e1.log") - 2)) = "$sent" ]; check_err $? "log rows != sent $sent"
	[ "$(log_awk "$WORK/e1.log" 'col("LOST") == "LOST" { n++ } END { print n + 0 }')" = "$lost" ]
	check_err $? "LOST rows != lost $lost"
	log_test "reflector killed and restarted: $lost lost of $sent, the run finished"
}

# late pongs: the reflector stopped (50 ms) longer than --timeout (10 ms),
# three times 200 ms apart
loss_late() {
	local rc late lost i
	pair
	start_reflector k3
	emit_bg e3 -a "$IP_B" -d 2 --timeout 10000 -j "$WORK/e3.json"
	wait_measuring "$WORK/e3.txt"
	for i in 1 2 3; do
		[ "$i" = 1 ] || sleep 0.2
		kill -STOP "$REFL"; sleep 0.05; kill -CONT "$REFL"
	done
	wait "$EM"; rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e3.txt")"
	late=$(jqv "$WORK/e3.json" .counts.late)
	lost=$(jqv "$WORK/e3.json" .counts.lost)
	[ "$late" -ge 3 ]; check_err $? "late $late: three pongs came 40 ms after their timeout"
	[ "$lost" -ge "$late" ]; check_err $? "late $late > lost $lost: a late pong is one that was counted lost"
	[ "$(jqv "$WORK/e3.json" .metrics.rtt.max)" -lt 10000000 ]
	check_err $? "an RTT above --timeout was measured: a late pong was taken for the current one"
	log_test "late pongs are counted ($late), never measured"
}

# no reflector: the warm-up gives up after 10 s with exit 2
loss_warmup_gives_up() {
	local rc start ms
	pair
	start=$(date +%s%N)
	timeout -s KILL 20 ip netns exec "$NS_A" "$RANT" -i "$VETH_A" -a "$IP_B" --port 9 -c 10 \
		--warmup-timeout 1.5 >/dev/null 2>"$WORK/nore.txt"
	rc=$?
	ms=$((($(date +%s%N) - start) / 1000000))
	[ "$rc" = 2 ] && grep -q "no pong from $IP_B port 9 in 1.5 s of warm-up" "$WORK/nore.txt"
	check_err $? "exit $rc: $(cat "$WORK/nore.txt")"
	[ "$ms" -ge 1500 ] && [ "$ms" -lt 4500 ]; check_err $? "gave up after $ms ms, not 1.5 s"
	log_test "no reflector: exit 2 after --warmup-timeout 1.5 ($ms ms)"
}

# no reflector: SIGINT during the warm-up (after the start-up lines) ends
# the run at once, exit 0
loss_warmup_sigint() {
	local rc start ms
	pair
	emit_bg nore2 -a "$IP_B" --port 9
	wait_for_line "$WORK/nore2.txt" "^rant .* emit: " 10
	check_err $? "no start-up line in 10 s: $(cat "$WORK/nore2.txt")"
	start=${EPOCHREALTIME/./}
	kill -INT "$EM"
	wait "$EM"; rc=$?
	ms=$(((${EPOCHREALTIME/./} - start) / 1000))
	[ "$rc" = 0 ] && grep -q "stopped during the warm-up" "$WORK/nore2.txt"
	check_err $? "exit $rc: $(cat "$WORK/nore2.txt")"
	# a warm-up deaf to SIGINT would go on to its 10 s limit; 1 s is slack
	# for a loaded machine
	[ "$ms" -lt 1000 ]; check_err $? "SIGINT during the warm-up took $ms ms"
	log_test "no reflector: SIGINT during the warm-up ends it (exit 0) in ${ms} ms"
}

# a silent peer: waiting with a TX stamp queued must sleep, not spin (the
# queued stamp makes poll() report POLLERR at once); CPU time measured
# over a 1 s window of the warm-up
loss_silent_peer() {
	local cpu0 cpu1 ms rc
	pair
	ns_bg "$NS_B" "$PYTHON" -c 'import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 9999))
time.sleep(30)'
	wait_udp_port "$NS_B" 9999
	check_err $? "the silent peer did not bind port 9999"
	emit_bg e4 -a "$IP_B" --port 9999 --block
	wait_for_line "$WORK/e4.txt" "^rant .* emit: " 10
	check_err $? "no start-up line in 10 s: $(cat "$WORK/e4.txt")"
	cpu0=$(cpu_ns "$EM")
	sleep 1	# the window the CPU time is measured over
	cpu1=$(cpu_ns "$EM")
	rc=$?
	check_err $rc "the emitter ended within the 1 s window: $(cat "$WORK/e4.txt")"
	[ $rc = 0 ] || cpu1=$cpu0
	kill -INT "$EM"; wait "$EM"
	ms=$(((cpu1 - cpu0) / 1000000))
	[ "$ms" -lt 200 ]; check_err $? "waiting on a silent peer used $ms ms of CPU in 1 s"
	log_test "a silent peer: the wait sleeps ($ms ms CPU in 1 s)"
}

tests_run
