#!/usr/bin/env bash
# The senders' queues (SOF_TIMESTAMPING_TX_SCHED), each behind a tbf
# qdisc that a UDP load twice its rate fills (1 Mbit/s, 30 KB: a full
# queue holds a packet 240 ms):
#   queue_tbf        on the emitter's veth: a ping waits behind the load
#                    in the qdisc: emit_queue (T1_KN - T1_SCHED) carries
#                    that wait, far above the same run idle, while RTT
#                    (from T1, after the qdisc) does not; every ping has
#                    its T1 and an emit_queue sample, whose maximum is
#                    within 10% of the user-level round trip's (rtt_sw)
#                    maximum minus its idle p50; the log has T1_SCHED
#   queue_reflector  on the reflector's veth (the bufferbloat case): a
#                    pong waits in the reflector's qdisc, its TX stamp
#                    comes only when it leaves; every pong still has its
#                    T3 and a reflect_queue sample (a3b912d waited 2 ms
#                    and lost the queued ones), whose maximum is within
#                    10% of the emitter's loaded RTT maximum minus its
#                    idle p50, and each T3 reaches the emitter's log as
#                    a follow-up some pongs later (all but the last
#                    pings', which no later pong carries)
#   queue_off        --no-queue-stamps on both sides: the start-up line
#                    and the JSON's stamp_layers name rx_software and
#                    tx_software only (a default run's add tx_sched), no
#                    emit_queue or reflect_queue, no T1_SCHED or
#                    T3_SCHED column, and every transaction still has
#                    its TX stamps (none waited for a SCHED report)
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="queue_tbf queue_reflector queue_off"

require_root
require_cmd jq taskset ss tc timeout "$PYTHON"
require_rant

# load NS ADDR SECONDS: 1000-byte UDP datagrams from NS to ADDR's discard
# port every 4 ms (2 Mbit/s) for SECONDS; its pid in $LOAD. Paced by a
# schedule, so a sleep that overshoots on a loaded machine is made up
# (what the schedule owes leaves at once) and the rate stays 2 Mbit/s.
load() {
	ip netns exec "$1" "$PYTHON" -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
due = time.monotonic()
end = due + float(sys.argv[2])
while due < end:
    s.sendto(b"x" * 1000, (sys.argv[1], 9))
    due += 0.004
    time.sleep(max(0.0, due - time.monotonic()))
' "$2" "$3" &
	LOAD=$!
	defer kill -9 "$LOAD"
}

# p99 JSON METRIC: the metric's p99, ns (0 when absent).
p99() {
	jq -r ".metrics.$2.percentiles.\"99\" // 0" "$1"
}

# mval JSON METRIC FIELD: .metrics.METRIC.FIELD (0 when absent).
mval() {
	jq -r ".metrics.$2.$3 // 0" "$1"
}

# near A B PCT: A is within PCT % of B (B > 0).
near() {
	awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d * 100 <= b * p) }'
}

# tbf at 1 Mbit/s with a 30 KB limit (tc's k: 1024): a full queue holds
# a packet 30720 x 8 bits / 1 Mbit/s = 245.76 ms.
TBF_DEPTH_NS=245760000

# The emitter's egress queued. The pings (--interval 10 ms) wait up to
# --timeout 1 s for their pongs.
queue_tbf() {
	local idle loaded rtt_loaded sched_col refl qmax
	setup_pair || skip_test "cannot create namespaces and veth"
	start_reflector r1 -j "$WORK/r1.json"
	emit -a "$IP_B" -d 2 --interval 10000 --timeout 1000000 \
		-j "$WORK/idle.json" >"$WORK/idle.txt" 2>&1
	check_err $? "idle run: $(tail -3 "$WORK/idle.txt")"
	tbf_loaded "$NS_A" "$VETH_A" "$IP_B" e2
	idle=$(p99 "$WORK/idle.json" emit_queue)
	loaded=$(p99 "$WORK/e2.json" emit_queue)
	rtt_loaded=$(jqv "$WORK/e2.json" '.metrics.rtt.percentiles."50"')
	[ "$idle" -gt 0 ] && [ "$idle" -lt 1000000 ]
	check_err $? "idle emit_queue p99 $idle ns: not between 0 and 1 ms"
	[ "$loaded" -gt 10000000 ] && [ "$loaded" -gt $((20 * idle)) ]
	check_err $? "loaded emit_queue p99 $loaded ns: not above 10 ms and 20 times idle ($idle ns)"
	[ "$rtt_loaded" -lt "$((loaded / 10))" ]
	check_err $? "RTT p50 $rtt_loaded ns under load: the queue before T1 should stay out of it"
	sched_col=$(log_awk "$WORK/e2.log" 'col("T1_SCHED") != "-" { n++ } END { print n + 0 }')
	[ "$sched_col" -gt 0 ] && [ "$sched_col" = "$(jqv "$WORK/e2.json" .metrics.emit_queue.samples)" ]
	check_err $? "log rows with T1_SCHED: $sched_col, emit_queue samples $(jqv "$WORK/e2.json" .metrics.emit_queue.samples)"
	refl=$(jqv "$WORK/r1.json" .metrics.reflect_queue.samples)
	[ "$refl" -gt 0 ]; check_err $? "the reflector has no reflect_queue samples"
	every_stamp "$WORK/e2.json" emit_queue 0
	qmax=$(mval "$WORK/e2.json" emit_queue max)
	near "$qmax" "$TBF_DEPTH_NS" 10
	check_err $? "emit_queue max $qmax ns: not within 10% of the full queue's $TBF_DEPTH_NS ns"
	log_test "tbf 1mbit with a 2 Mbit/s load: emit_queue p99 $((loaded / 1000)) us against $idle ns idle, max $((qmax / 1000)) us (full queue $((TBF_DEPTH_NS / 1000)) us); RTT p50 $rtt_loaded ns"
}

# tbf_add NS DEV: the test's tbf on DEV's egress (removed when it ends).
tbf_add() {
	tc -n "$1" qdisc add dev "$2" root tbf rate 1mbit burst 2k limit 30k ||
		skip_test "no tbf qdisc in this kernel"
	defer tc -n "$1" qdisc del dev "$2" root
}

# tbf_loaded NS DEV LOAD_ADDR NAME ARGS...: with the tbf on NS's DEV (added
# unless there), an emitter run of 4 s every 10 ms (--timeout 1 s; log
# and JSON in $WORK/NAME.*) while NS sends the load to LOAD_ADDR; the
# reflector is stopped after (its exit status in $REFL_RC).
tbf_loaded() {
	local ns=$1 dev=$2 to=$3 name=$4 rc
	shift 4
	tc -n "$ns" qdisc show dev "$dev" | grep -q tbf || tbf_add "$ns" "$dev"
	emit_bg "$name" -a "$IP_B" -d 4 --interval 10000 --timeout 1000000 \
		-l "$WORK/$name.log" -j "$WORK/$name.json" "$@"
	wait_measuring "$WORK/$name.txt"
	load "$ns" "$to" 5
	wait "$EM"; rc=$?
	stop_reflector
	check_err $rc "loaded run: exit $rc: $(tail -3 "$WORK/$name.txt")"
}

# every_stamp JSON METRIC DROPPED: every measured send of the run that
# left (all received but DROPPED) has its TX stamp (none missing, for any
# reason) and a METRIC sample.
every_stamp() {
	local want n miss
	want=$(($(jqv "$1" .counts.received) - $3))
	n=$(mval "$1" "$2" samples)
	miss=$(jqv "$1" '.counts | "\(.missing_tx_ts) (timeout \(.missing_tx_timeout // "?"), overflow \(.missing_tx_overflow // "?"), full \(.missing_tx_full // "?"))"')
	[ "$n" = "$want" ] && [ "${miss%% *}" = 0 ]
	check_err $? "$1: $n $2 samples of $want sent, TX stamps missing $miss"
}

# The reflector's egress queued: every pong's TX stamp kept, however late.
queue_reflector() {
	local idle rmax lmax want miss last tail drops
	setup_pair || skip_test "cannot create namespaces and veth"
	start_reflector r2 --block -j "$WORK/r2.json"
	# the idle RTT p50, a baseline of tens of us taken off a loaded max
	# of about 245 ms: 50 pings are enough (it was 200)
	emit -a "$IP_B" -d 0.5 --interval 10000 --timeout 1000000 \
		-j "$WORK/idle.json" >"$WORK/idle.txt" 2>&1
	check_err $? "idle run: $(tail -3 "$WORK/idle.txt")"
	stop_reflector
	tbf_add "$NS_B" "$VETH_B"
	start_reflector r3 --block -j "$WORK/r3.json"
	tbf_loaded "$NS_B" "$VETH_B" "$IP_A" e3 --open-loop
	check_err "$REFL_RC" "reflector exit $REFL_RC: $(tail -3 "$WORK/r3.txt")"
	# a pong the full tbf dropped never left: its SCHED stamp came, its
	# SND never; the emitter lost it (and no more: no other loss here)
	drops=$(jqv "$WORK/r3.json" ".counts.qdisc_drops // 0")
	[ "$drops" -le "$(jqv "$WORK/e3.json" .counts.lost)" ]
	check_err $? "$drops pongs dropped in the reflector's qdisc, the emitter lost $(jqv "$WORK/e3.json" .counts.lost)"
	every_stamp "$WORK/r3.json" reflect_queue "$drops"
	idle=$(mval "$WORK/idle.json" rtt 'percentiles."50"')
	lmax=$(mval "$WORK/e3.json" rtt max)
	rmax=$(mval "$WORK/r3.json" reflect_queue max)
	want=$((lmax - idle))
	[ "$want" -gt 50000000 ]
	check_err $? "the loaded RTT max $lmax ns is not 50 ms above idle ($idle ns): no queue built"
	near "$rmax" "$want" 10
	check_err $? "reflect_queue max $rmax ns: not within 10% of the loaded RTT max - idle p50 ($want ns)"
	# the emitter's log: T3 (T3_KN, column 6) on every answered row but
	# those of the last pings, whose follow-up no later pong carried (a
	# full queue is 24 pings of 10 ms), and those whose follow-up rode a
	# pong the qdisc dropped (one each at most)
	last=$(log_awk "$WORK/e3.log" '{ s = col("SEQ") } END { print s + 0 }')
	tail=$(log_awk "$WORK/e3.log" 'col("LOST") != "LOST" && col("T3_KN") == "-" && col("SEQ") <= last - 30 { n++ }
		END { print n + 0 }' -v last="$last")
	[ "$tail" -le "$drops" ]
	check_err $? "$tail rows of the emitter's log before its last 30 have no T3 (the follow-up), $drops pongs dropped"
	miss=$(jqv "$WORK/r3.json" .counts.missing_tx_ts)
	log_test "tbf on the reflector: reflect_queue max $((rmax / 1000)) us, RTT max - idle $((want / 1000)) us, $miss TX stamps missing, $drops pongs dropped, $tail T3 lost with them"
}

# jq's layers of a JSON, comma-separated.
layers() {
	jq -r '.stamp_layers | join(",")' "$1"
}

queue_off() {
	local l rl miss
	setup_pair || skip_test "cannot create namespaces and veth"
	start_reflector r0 -j "$WORK/r0.json"
	emit -a "$IP_B" -c 200 -d 0 -w 10 -j "$WORK/e0.json" >"$WORK/e0.txt" 2>&1
	check_err $? "default emitter failed: $(tail -3 "$WORK/e0.txt")"
	stop_reflector
	[ "$(layers "$WORK/e0.json")" = rx_software,tx_software,tx_sched ]
	check_err $? "default stamp_layers: $(layers "$WORK/e0.json")"
	grep -q '^stamp layers asked of the kernel: rx_software, tx_software, tx_sched (' "$WORK/e0.txt"
	check_err $? "default start-up line: $(grep '^stamp layers' "$WORK/e0.txt")"

	start_reflector r4 --no-queue-stamps -l "$WORK/r4.log" -j "$WORK/r4.json"
	emit -a "$IP_B" --no-queue-stamps -s -c 2000 -d 0 -w 10 -l "$WORK/e4.log" \
		-j "$WORK/e4.json" >"$WORK/e4.txt" 2>&1
	check_err $? "emitter --no-queue-stamps failed: $(tail -3 "$WORK/e4.txt")"
	stop_reflector
	l=$(layers "$WORK/e4.json") rl=$(layers "$WORK/r4.json")
	[ "$l" = rx_software,tx_software ] && [ "$rl" = rx_software,tx_software ]
	check_err $? "stamp_layers with --no-queue-stamps: emitter $l, reflector $rl"
	grep -q '^stamp layers asked of the kernel: rx_software, tx_software (--no-queue-stamps' "$WORK/e4.txt"
	check_err $? "start-up line: $(grep '^stamp layers' "$WORK/e4.txt")"
	[ "$(jqv "$WORK/e4.json" '.metrics.emit_queue // "none"')" = none ] &&
		[ "$(jqv "$WORK/r4.json" '.metrics.reflect_queue // "none"')" = none ]
	check_err $? "a queue metric without the SCHED stamp"
	! head -1 "$WORK/e4.log" | grep -q T1_SCHED && ! head -1 "$WORK/r4.log" | grep -q T3_SCHED
	check_err $? "a SCHED column: $(head -1 "$WORK/e4.log") / $(head -1 "$WORK/r4.log")"
	miss=$(($(jqv "$WORK/e4.json" .counts.missing_tx_ts) + $(jqv "$WORK/r4.json" .counts.missing_tx_ts)))
	[ "$(jqv "$WORK/e4.json" .metrics.rtt.samples)" = 2000 ] && [ "$miss" = 0 ]
	check_err $? "rtt samples $(jqv "$WORK/e4.json" .metrics.rtt.samples) of 2000, $miss TX stamps missing"
	log_test "--no-queue-stamps: layers $l, no queue metric or column, every TX stamp there"
}

tests_run
