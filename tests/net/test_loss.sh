#!/usr/bin/env bash
# Loss and faults: a reflector killed and restarted mid-run costs the
# emitter some lost transactions, not the run; pongs that arrive after
# --timeout are counted late, never taken for the current transaction;
# with no reflector the warm-up gives up after 10 s, and SIGINT ends it
# at once; waiting on a silent peer sleeps; under a lossy tbf queue on
# the reflector's side the run has one lost count (the summary, the log's
# LOST rows, the JSON, the metrics, the plot) and every -I interval holds
# the fate of the pings sent in it (sent = received + lost + in flight,
# loss at most 100%); the reflector's report of its side (its qdisc's
# drops and longest hold) reaches the emitter's summary and JSON, in
# pongs of 104 bytes or more, or fetched at the end with -m 72.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="loss_restart loss_late loss_warmup_gives_up loss_warmup_sigint
	loss_silent_peer loss_tbf_counts loss_reflector_report"

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

# tbf_lossy: the reflector's pongs through a tbf of 1 Mbit/s holding 30 KB
# (a full queue holds a pong 245 ms), removed when the test ends; pings of
# 200 bytes every ms (1.6 Mbit/s of pongs) overflow it: a third or more
# of the pongs dropped in the qdisc, the rest held near its depth.
tbf_lossy() {
	tc -n "$NS_B" qdisc add dev "$VETH_B" root tbf rate 1mbit burst 2k limit 30k ||
		skip_test "no tbf qdisc here"
	defer tc -n "$NS_B" qdisc del dev "$VETH_B" root
}

# lossy_run NAME: an open-loop emitter through tbf_lossy for 6 s (-I 1,
# --timeout 300 ms above the queue's depth: what is not dropped comes
# back), with its log, JSON and metrics file in $WORK/NAME.*
lossy_run() {
	emit -a "$IP_B" --interval 1000 --open-loop -m 200 --timeout 300000 -d 6 -I 1 \
		-l "$WORK/$1.log" -j "$WORK/$1.json" --metrics "$WORK/$1.prom" \
		>"$WORK/$1.txt" 2>&1
}

# The run's lost count five ways, and the intervals' arithmetic.
loss_tbf_counts() {
	local rc lost text rows prom plot bad
	pair
	tbf_lossy
	start_reflector t1 -j "$WORK/t1.json"
	lossy_run e1; rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e1.txt")"
	lost=$(jqv "$WORK/e1.json" .counts.lost)
	[ "$lost" -gt 500 ]; check_err $? "lost $lost: the tbf dropped too little to test"
	text=$(grep -Eo '^sent [0-9]+, received [0-9]+, lost [0-9]+' "$WORK/e1.txt" | grep -Eo '[0-9]+$')
	rows=$(log_awk "$WORK/e1.log" 'col("LOST") == "LOST" { n++ } END { print n + 0 }')
	prom=$(awk '/^rant_packets_lost_total/ { print $2 }' "$WORK/e1.prom")
	"$PYTHON" "$TOP/tools/rant-plot" time "$WORK/e1.json" --log "$WORK/e1.log" -o "$WORK/plot" \
		--dump-data "$WORK/plot.json" >/dev/null 2>"$WORK/plot.err"
	plot=$(jq -r '.plots[0].lost_legend' "$WORK/plot.json" 2>/dev/null)
	[ "$text" = "$lost" ] && [ "$rows" = "$lost" ] && [ "$prom" = "$lost" ] && [ "$plot" = "$lost" ]
	check_err $? "lost: JSON $lost, summary ${text:-none}, LOST rows $rows, metrics ${prom:-none}, plot ${plot:-none} $(cat "$WORK/plot.err")"
	# each interval: its pings' fate, never more than it sent
	bad=$(jq -c '[.series[] | select(.received + .lost + .in_flight != .sent or .lost > .sent)]' "$WORK/e1.json")
	[ "$bad" = "[]" ] && [ "$(jqv "$WORK/e1.json" '.series | length')" -ge 5 ]
	check_err $? "intervals that do not add up: $bad"
	bad=$(awk '/^interval s/ { on = 1; next } on && /^[0-9.]+-[0-9.]+ / { if ($6 > 100) print; next } on { on = 0 }' "$WORK/e1.txt")
	[ -z "$bad" ]; check_err $? "an interval line over 100%: $bad"
	[ "$(jqv "$WORK/e1.json" '[.series[].lost] | add + 0')" -le "$lost" ]
	check_err $? "the intervals lost more than the run"
	# -m 200: every pong carries the reflector's report
	[ "$(jqv "$WORK/e1.json" '.reflector_report | .qdisc_drops + .send_errors')" = "$lost" ]
	check_err $? "the reflector reported $(jq -c .reflector_report "$WORK/e1.json") for $lost lost"
	log_test "tbf: $lost lost alike in the summary, log, JSON, metrics and plot; every interval adds up"
}

# The reflector's qdisc drops pongs: its report says how many of the
# emitter's lost ones, and how long it held the rest. -m 72 (no room in
# a measured pong: the emitter fetches the report at the end, in pings of
# 104 bytes) at 2000 pings a second overflows the tbf as -m 200 at 1000.
loss_reflector_report() {
	local rc lost drops errs rdrops qmax line
	pair
	tbf_lossy
	start_reflector t2 -j "$WORK/t2.json"
	emit -a "$IP_B" --interval 500 --open-loop --timeout 300000 -d 4 -j "$WORK/e2.json" \
		>"$WORK/e2.txt" 2>&1
	rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e2.txt")"
	lost=$(jqv "$WORK/e2.json" .counts.lost)
	drops=$(jqv "$WORK/e2.json" .reflector_report.qdisc_drops)
	errs=$(jqv "$WORK/e2.json" .reflector_report.send_errors)
	rdrops=$(jqv "$WORK/t2.json" '.counts.qdisc_drops + .counts.send_errors')
	qmax=$(jqv "$WORK/e2.json" .reflector_report.queue_max_ns)
	[ "$(jqv "$WORK/e2.json" .reflector_report.reported)" = true ] && [ "$lost" -gt 500 ] &&
		[ $((drops + errs)) = "$rdrops" ] && [ $((drops + errs)) = "$lost" ]
	check_err $? "the report: $(jq -c .reflector_report "$WORK/e2.json"); lost $lost; the reflector counted $rdrops qdisc drops and send errors"
	[ "$qmax" -gt 200000000 ] && [ "$qmax" -lt 400000000 ]
	check_err $? "longest hold $qmax ns, not the tbf's depth (245 ms)"
	line=$(grep '^reflector.s side: ' "$WORK/e2.txt")
	grep -Eq "^reflector's side: of the $lost lost pongs, its sends failed for $errs \\(send errors: .*\\) and its qdisc dropped $drops it had taken; it held pongs in its qdisc up to 2[0-9]{2}\\.[0-9] ms" <<<"$line"
	check_err $? "the summary's line: ${line:-none}"
	log_test "the reflector's report: of $lost lost pongs its sends failed for $errs, its qdisc dropped $drops; held pongs up to $((qmax / 1000000)) ms (fetched at the end with -m 72)"
}

tests_run
