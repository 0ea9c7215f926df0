#!/usr/bin/env bash
# The sender's queue (SOF_TIMESTAMPING_TX_SCHED): with a tbf qdisc on
# the emitter's veth and a UDP load from the same namespace twice the
# qdisc's rate, a ping waits behind the load in the qdisc: emit_queue
# (T1_KN - T1_SCHED) carries that wait, far above the same run idle,
# while RTT (from T1, after the qdisc) does not; the log has T1_SCHED,
# the reflector measures its own queue (reflect_queue).
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="queue_tbf"

require_root
require_cmd jq taskset ss tc timeout "$PYTHON"
require_rant

# load SECONDS: 1000-byte UDP datagrams from NS_A to IP_B's discard port
# every 4 ms (2 Mbit/s) for SECONDS; its pid in $LOAD. Paced by a
# schedule, so a sleep that overshoots on a loaded machine is made up
# (what the schedule owes leaves at once) and the rate stays 2 Mbit/s.
load() {
	ip netns exec "$NS_A" "$PYTHON" -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
due = time.monotonic()
end = due + float(sys.argv[2])
while due < end:
    s.sendto(b"x" * 1000, (sys.argv[1], 9))
    due += 0.004
    time.sleep(max(0.0, due - time.monotonic()))
' "$IP_B" "$1" &
	LOAD=$!
	defer kill -9 "$LOAD"
}

# p99 JSON METRIC: the metric's p99, ns (0 when absent).
p99() {
	jq -r ".metrics.$2.percentiles.\"99\" // 0" "$1"
}

# tbf at 1 Mbit/s with a 30 KB limit: a full queue is 240 ms. The pings
# (--interval 10 ms) wait up to --timeout 1 s for their pongs.
queue_tbf() {
	local rc idle loaded rtt_loaded sched_col refl
	setup_pair || skip_test "cannot create namespaces and veth"
	start_reflector r1 -j "$WORK/r1.json"
	emit -a "$IP_B" -d 2 --interval 10000 --timeout 1000000 \
		-j "$WORK/idle.json" >"$WORK/idle.txt" 2>&1
	check_err $? "idle run: $(tail -3 "$WORK/idle.txt")"
	tc -n "$NS_A" qdisc add dev "$VETH_A" root tbf rate 1mbit burst 2k limit 30k ||
		skip_test "no tbf qdisc in this kernel"
	defer tc -n "$NS_A" qdisc del dev "$VETH_A" root
	emit_bg e2 -a "$IP_B" -d 4 --interval 10000 --timeout 1000000 \
		-l "$WORK/e2.log" -j "$WORK/e2.json"
	wait_measuring "$WORK/e2.txt"
	load 5
	wait "$EM"; rc=$?
	stop_reflector
	check_err $rc "loaded run: exit $rc: $(tail -3 "$WORK/e2.txt")"
	idle=$(p99 "$WORK/idle.json" emit_queue)
	loaded=$(p99 "$WORK/e2.json" emit_queue)
	rtt_loaded=$(jqv "$WORK/e2.json" '.metrics.rtt.percentiles."50"')
	[ "$idle" -gt 0 ] && [ "$idle" -lt 1000000 ]
	check_err $? "idle emit_queue p99 $idle ns: not between 0 and 1 ms"
	[ "$loaded" -gt 10000000 ] && [ "$loaded" -gt $((20 * idle)) ]
	check_err $? "loaded emit_queue p99 $loaded ns: not above 10 ms and 20 times idle ($idle ns)"
	[ "$rtt_loaded" -lt "$((loaded / 10))" ]
	check_err $? "RTT p50 $rtt_loaded ns under load: the queue before T1 should stay out of it"
	sched_col=$(awk 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "T1_SCHED") c = i }
		NR > 2 && c && $c != "-" { n++ } END { print n + 0 }' "$WORK/e2.log")
	[ "$sched_col" -gt 0 ] && [ "$sched_col" = "$(jqv "$WORK/e2.json" .metrics.emit_queue.samples)" ]
	check_err $? "log rows with T1_SCHED: $sched_col, emit_queue samples $(jqv "$WORK/e2.json" .metrics.emit_queue.samples)"
	refl=$(jqv "$WORK/r1.json" .metrics.reflect_queue.samples)
	[ "$refl" -gt 0 ]; check_err $? "the reflector has no reflect_queue samples"
	log_test "tbf 1mbit with a 2 Mbit/s load: emit_queue p99 $((loaded / 1000)) us against $idle ns idle; RTT p50 $rtt_loaded ns"
}

tests_run
