#!/usr/bin/env bash
# Threshold breaches and ftrace, on veth with each test's own trace
# instance: a spike provoked for real (the reflector process stopped for
# 100 ms once measuring has started) makes the emitter exit 3 with the
# spike placed on the reflector (see spike_on_reflector), markers in the
# trace and tracing_on 0; the same on the reflector; -C
# counts every breach and runs to the end; -L logs only the slow ones;
# -T with a missing instance fails at start with the fix; -S with -T on
# a kernel without snapshot warns once at start and runs; -S keeps
# exactly the last 500000 records, oldest first.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="breach_missing_instance breach_no_snapshot breach_emit
	breach_reflect breach_continue breach_keep breach_log_threshold breach_ring
	breach_metric"

require_root
require_cmd jq taskset ss
require_rant

THRESH=30000	# us: far above this VM's scheduling noise (~15 ms)
STOP=0.1	# s: how long the reflector is stopped, the spike itself
GAP=0.3		# s: between two spikes, so that each is a breach of its own

# pair: the namespaces; the test's view of tracefs in $TRACEFS (ip netns
# exec gives rant a fresh /sys, where rant mounts tracefs itself: the
# instances are the same) and the name of a trace instance in $INST and
# its directory in $IDIR, not created.
pair() {
	setup_pair || skip_test "cannot create namespaces and veth"
	TRACEFS=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
	if [ -z "$TRACEFS" ]; then
		mount -t tracefs nodev /sys/kernel/tracing || skip_test "cannot mount tracefs"
		defer umount /sys/kernel/tracing
		TRACEFS=/sys/kernel/tracing
	fi
	INST=rant-test-$UNIQ
	IDIR=$TRACEFS/instances/$INST
}

# pair_traced: pair, and the test's trace instance, tracing on, empty;
# removed when the test ends.
pair_traced() {
	pair
	mkdir "$IDIR" || skip_test "cannot create trace instance $IDIR"
	defer rmdir "$IDIR"
	echo 1 >"$IDIR/tracing_on"
	: >"$IDIR/trace"
}

# spike N: stop the reflector for $STOP, N times, $GAP apart. Call it
# once measuring has started. The runs that count spikes last 6 s and
# wait 1 s (the most --timeout allows) for a pong: on a loaded machine
# each sleep here can overshoot, and the last spike must still fall in
# the run, its ping not lost.
spike() {
	stop_n "$REFL" "$1"
}

# stop_n PID N: stop PID for $STOP, N times, $GAP apart.
stop_n() {
	local i
	for ((i = 0; i < $2; i++)); do
		[ "$i" = 0 ] || sleep "$GAP"
		kill -STOP "$1"; sleep "$STOP"; kill -CONT "$1"
	done
}

# spike_on_reflector JSON [TEXT]: the first breach in JSON is placed on the
# reflector, in the component SIGSTOP fell in: almost always its receive
# side (reflect_rx, T2_SW - T2: stopped while it waited for the ping),
# sometimes its processing (reflect_proc, T3_SW - T2_SW: stopped between
# taking the ping and sending the pong; once in 15 runs of the suite);
# either holds the 100 ms, and TEXT marks that line. Says what is wrong.
spike_on_reflector() {
	local json=$1 text=$2 largest ns label
	largest=$(jqv "$json" '.breaches[0].largest')
	case $largest in
	reflect_rx) label='NIC-to-App RX, reflector (T2_SW - T2)' ;;
	reflect_proc) label='App processing, reflector (T3_SW - T2_SW)' ;;
	*)
		echo "    spike placed on $largest, not on the reflector: $(jqv "$json" '.breaches[0].components')"
		return 1 ;;
	esac
	ns=$(jqv "$json" ".breaches[0].components.$largest")
	[ "$ns" -gt 50000000 ] ||
		{ echo "    $largest $ns ns for a 100 ms stop"; return 1; }
	[ -z "$text" ] || grep -F "$label" "$text" | grep -q '<-- where the spike is$' ||
		{ echo "    the text breakdown does not mark '$label': $(grep -A12 'Threshold breach' "$text")"; return 1; }
	SPIKE_ON=$largest
}

breach_missing_instance() {
	local rc
	pair
	ip netns exec "$NS_A" "$RANT" -i "$VETH_A" -a "$IP_B" -T --trace-instance "$INST" -c 1 \
		>/dev/null 2>"$WORK/err.txt"
	rc=$?
	[ "$rc" = 1 ] && grep -q "instance $IDIR does not exist: .*mkdir $IDIR" "$WORK/err.txt"
	check_err $? "exit $rc: $(cat "$WORK/err.txt")"
	log_test "-T with a missing instance: exit 1, names config.sh --trace and mkdir"
}

breach_no_snapshot() {
	local rc
	pair_traced
	[ -e "$IDIR/snapshot" ] && skip_test "this kernel has ftrace snapshots"
	# No reflector: the warning comes at start, then SIGINT in the warm-up.
	ip netns exec "$NS_A" timeout --preserve-status -s INT 2 "$RANT" -i "$VETH_A" -a "$IP_B" \
		-T -S --trace-instance "$INST" -c 1 >"$WORK/err.txt" 2>&1
	rc=$?
	[ "$rc" = 0 ] && [ "$(grep -c "no ftrace snapshot.*by tracing_on alone" "$WORK/err.txt")" = 1 ]
	check_err $? "exit $rc: $(cat "$WORK/err.txt")"
	log_test "-T -S on a kernel without snapshot: one warning at start, runs on"
}

breach_emit() {
	local rc seq SPIKE_ON=
	pair_traced
	start_reflector b1 -s
	emit_bg e1 -a "$IP_B" -s -d 20 --timeout 500000 -t $THRESH -T --trace-instance "$INST" \
		-l "$WORK/e1.log" -j "$WORK/e1.json"
	wait_measuring "$WORK/e1.txt"
	grep -q "RANT_TEST_START side=emit" "$IDIR/trace"; check_err $? "measuring started, but no RANT_TEST_START in the trace"
	spike 1
	wait "$EM"; rc=$?
	stop_reflector
	[ "$rc" = 3 ]; check_err $? "emitter exit $rc, not 3: $(tail -5 "$WORK/e1.txt")"
	[ "$(jqv "$WORK/e1.json" .stop_reason)" = breach ]; check_err $? "stop_reason $(jqv "$WORK/e1.json" .stop_reason)"
	spike_on_reflector "$WORK/e1.json" "$WORK/e1.txt"; check_err $? "the spike is not on the reflector"
	[ "$(jqv "$WORK/e1.json" '.breaches[0].stamps.T3_KN // 0')" -gt 0 ]
	check_err $? "the breach lacks the reflector's T3 stamp (follow-up)"
	seq=$(jqv "$WORK/e1.json" '.breaches[0].seq')
	grep -q "tracefs was not mounted here: mounted it" "$WORK/e1.txt"; check_err $? "rant did not say it mounted tracefs in its namespace"
	grep -q "RANT_BREACH seq=$seq latency_ns=" "$IDIR/trace"; check_err $? "no RANT_BREACH seq=$seq in the trace"
	[ "$(cat "$IDIR/tracing_on")" = 0 ]; check_err $? "tracing_on is still $(cat "$IDIR/tracing_on")"
	log_awk "$WORK/e1.log" 'col("SEQ") == s { found = 1 } END { exit !found }' -v s="$seq"
	check_err $? "the breach's seq $seq is not in the log"
	log_test "emitter breach: exit 3, spike on the reflector (${SPIKE_ON:-none}), trace frozen"
}

# The reflector measures from the first measured ping it gets, and writes
# RANT_TEST_START then: the spike comes after that.
breach_reflect() {
	local seq SPIKE_ON=
	pair_traced
	start_reflector b2 -s -d 60 -t $THRESH -T --trace-instance "$INST" -j "$WORK/r2.json"
	emit_bg e2 -a "$IP_B" -s -d 20 --timeout 500000
	wait_for_line "$IDIR/trace" "RANT_TEST_START side=reflect" "$MEASURE_WAIT_S"
	check_err $? "no RANT_TEST_START from the reflector in $MEASURE_WAIT_S s: $(tail -3 "$WORK/e2.txt")"
	spike 1
	REFL_RC=0
	wait "$REFL" || REFL_RC=$?
	kill -INT "$EM"; wait "$EM"
	[ "$REFL_RC" = 3 ]; check_err $? "reflector exit $REFL_RC, not 3: $(tail -5 "$WORK/b2.txt")"
	spike_on_reflector "$WORK/r2.json" "$WORK/b2.txt"; check_err $? "the reflector placed the spike elsewhere"
	seq=$(jqv "$WORK/r2.json" '.breaches[0].seq')
	grep -q "RANT_BREACH seq=$seq " "$IDIR/trace"; check_err $? "no reflector marker RANT_BREACH seq=$seq"
	[ "$(cat "$IDIR/tracing_on")" = 0 ]; check_err $? "tracing_on not 0 after the reflector's breach"
	log_test "reflector breach: exit 3, spike on its side (${SPIKE_ON:-none}), trace frozen"
}

# -C: every breach counted, the run goes to its end
breach_continue() {
	local rc n
	pair_traced
	start_reflector b3 -s
	emit_bg e3 -a "$IP_B" -s -d 6 --timeout 1000000 -t $THRESH -C -T --trace-instance "$INST" \
		-j "$WORK/e3.json"
	wait_measuring "$WORK/e3.txt"
	spike 3
	wait "$EM"; rc=$?
	stop_reflector
	n=$(jqv "$WORK/e3.json" .counts.breaches)
	[ "$rc" = 3 ]; check_err $? "exit $rc, not 3: $(tail -5 "$WORK/e3.txt")"
	[ "$n" -ge 3 ]; check_err $? "$n breaches for 3 spikes"
	[ "$(jqv "$WORK/e3.json" .stop_reason)" = duration ]; check_err $? "-C did not run to the end"
	[ "$(jqv "$WORK/e3.json" '.breaches | length')" = "$n" ]; check_err $? "JSON lists $(jqv "$WORK/e3.json" '.breaches | length') of $n breaches"
	[ "$(grep -c RANT_BREACH "$IDIR/trace")" = 1 ]; check_err $? "the trace was not frozen at the first breach"
	# the text: the first and the largest, 3 in all, then how many more
	[ "$(grep -c 'where the spike is' "$WORK/e3.txt")" = $((n < 3 ? n : 3)) ]
	check_err $? "$(grep -c 'where the spike is' "$WORK/e3.txt") breakdowns in the text for $n breaches"
	[ "$n" -le 3 ] || grep -q "^$((n - 3)) more breaches ($n in all" "$WORK/e3.txt"
	check_err $? "no line saying how many more: $(tail -3 "$WORK/e3.txt")"
	log_test "-C: $n breaches counted and reported, run to the end, trace frozen at the first"
}

# --breach-keep 2 with four spikes of different lengths, the shortest
# first: the JSON keeps the two largest round trips of the log (not the
# first two breaches), largest first; the text says how many more.
breach_keep() {
	local rc n top kept
	pair
	start_reflector b6
	emit_bg e6 -a "$IP_B" -d 6 --timeout 1000000 -t $THRESH -C --breach-keep 2 \
		-l "$WORK/e6.log" -j "$WORK/e6.json"
	wait_measuring "$WORK/e6.txt"
	for s in 0.05 0.25 0.1 0.18; do
		kill -STOP "$REFL"; sleep "$s"; kill -CONT "$REFL"; sleep "$GAP"
	done
	wait "$EM"; rc=$?
	stop_reflector
	n=$(jqv "$WORK/e6.json" .counts.breaches)
	[ "$rc" = 3 ] && [ "$n" -ge 4 ]; check_err $? "exit $rc, $n breaches for 4 spikes"
	[ "$(jqv "$WORK/e6.json" '.breaches | length')" = 2 ]
	check_err $? "JSON keeps $(jqv "$WORK/e6.json" '.breaches | length') breaches, not 2"
	top=$(log_awk "$WORK/e6.log" 'col("RTT") ~ /^[0-9]+$/ { print col("RTT"), col("SEQ") }' | sort -rn | head -2 |
		awk '{ printf "%s ", $2 }')
	kept=$(jq -r '.breaches[] | .seq' "$WORK/e6.json" | tr '\n' ' ')
	[ "$top" = "$kept" ]; check_err $? "kept seqs $kept, the log's two largest RTTs are of $top"
	[ "$(jqv "$WORK/e6.json" '.breaches[0].latency')" -gt 200000000 ]
	check_err $? "the largest kept is $(jqv "$WORK/e6.json" '.breaches[0].latency') ns for a 250 ms stop"
	grep -q "more breaches ($n in all.*the 2 largest kept in the JSON" "$WORK/e6.txt"
	check_err $? "no line saying how many more: $(tail -3 "$WORK/e6.txt")"
	log_test "--breach-keep 2: of $n breaches the JSON keeps seqs $kept, the log's two largest"
}

# stop_emitter N: stop the emitter N times (stop_n): its user space
# stalls (a pong's T4_SW waits), its wire stamps do not.
stop_emitter() {
	stop_n "$EM" "$1"
}

# --threshold-metric: -t watches another metric. The emitter's own stalls
# (SIGSTOP while it waits for a pong) hold its user space, not the wire:
# an rtt_sw breach placed on the emitter's user space, where the default
# (rtt) sees none; a response breach (the reflector stopped), checked when
# the follow-up brings its T3, placed inside the response with the
# network outside it.
breach_metric() {
	local rc n
	pair
	start_reflector b7 -s
	emit_bg e7 -a "$IP_B" -s -d 6 --timeout 1000000 -t $THRESH -C --threshold-metric rtt_sw \
		-j "$WORK/e7.json"
	wait_measuring "$WORK/e7.txt"
	stop_emitter 3
	wait "$EM"; rc=$?
	n=$(jqv "$WORK/e7.json" .counts.breaches)
	[ "$rc" = 3 ] && [ "$n" -ge 1 ] && [ "$(jqv "$WORK/e7.json" '.breaches[0].metric')" = rtt_sw ]
	check_err $? "rtt_sw: exit $rc, $n breaches: $(jq -c '.breaches[0] | [.metric, .largest]' "$WORK/e7.json")"
	case $(jqv "$WORK/e7.json" '.breaches[0].largest') in
	emit_rx | emit_tx | emit_queue) true ;;
	*) false ;;
	esac
	check_err $? "rtt_sw breach placed on $(jqv "$WORK/e7.json" '.breaches[0].largest'): $(jq -c '.breaches[0].components' "$WORK/e7.json")"
	[ "$(jqv "$WORK/e7.json" '.breaches[0].outside | length')" = 0 ]
	check_err $? "nothing lies outside rtt_sw, yet: $(jq -c '.breaches[0].outside' "$WORK/e7.json")"
	grep -q '^\*\*\* Threshold breach: rtt_sw of seq ' "$WORK/e7.txt"
	check_err $? "the text does not say rtt_sw breached: $(grep 'Threshold breach' "$WORK/e7.txt" | head -1)"
	# the same stalls, -t on the RTT: they do not reach the wire RTT (a
	# breach there is this loaded VM's own noise, fewer than the stalls)
	emit_bg e8 -a "$IP_B" -s -d 6 --timeout 1000000 -t $THRESH -C -j "$WORK/e8.json"
	wait_measuring "$WORK/e8.txt"
	stop_emitter 3
	wait "$EM"; rc=$?
	[ "$(jqv "$WORK/e8.json" .counts.breaches)" -lt "$n" ] &&
		[ "$(jqv "$WORK/e8.json" '[.breaches[] | select(.largest | test("^emit_"))] | length')" = 0 ]
	check_err $? "the emitter's own stalls breached the RTT: exit $rc, $(jqv "$WORK/e8.json" .counts.breaches) breaches: $(jq -c '[.breaches[] | .largest]' "$WORK/e8.json")"
	emit_bg e9 -a "$IP_B" -s -d 20 --timeout 1000000 -t $THRESH --threshold-metric response \
		-j "$WORK/e9.json"
	wait_measuring "$WORK/e9.txt"
	spike 1
	wait "$EM"; rc=$?
	stop_reflector
	[ "$rc" = 3 ] && [ "$(jqv "$WORK/e9.json" '.breaches[0].metric')" = response ] &&
		[ "$(jqv "$WORK/e9.json" '.breaches[0].latency')" = "$(jqv "$WORK/e9.json" '.breaches[0].components.response')" ]
	check_err $? "response: exit $rc: $(jq -c '.breaches[0] | [.metric, .latency, .components.response]' "$WORK/e9.json")"
	spike_on_reflector "$WORK/e9.json" "$WORK/e9.txt"
	check_err $? "the response breach is not on the reflector's steps"
	[ "$(jqv "$WORK/e9.json" '.breaches[0].outside | index("network") != null')" = true ]
	check_err $? "the network not outside the response: $(jq -c '.breaches[0].outside' "$WORK/e9.json")"
	log_test "--threshold-metric: rtt_sw breaches on the emitter's stalls ($n; the RTT $(jqv "$WORK/e8.json" .counts.breaches)), response on the reflector's"
}

# -L: only the slow ones are logged
breach_log_threshold() {
	local rc rows slow
	pair
	start_reflector b5
	emit_bg e5 -a "$IP_B" -d 6 --timeout 1000000 -l "$WORK/e5.log" -L $THRESH -j "$WORK/e5.json"
	wait_measuring "$WORK/e5.txt"
	spike 3
	wait "$EM"; rc=$?
	stop_reflector
	check_err $rc "exit $rc: $(tail -3 "$WORK/e5.txt")"
	rows=$(($(wc -l <"$WORK/e5.log") - 2))
	slow=$(log_awk "$WORK/e5.log" 'col("RTT") > t { n++ } END { print n + 0 }' -v t=$((THRESH * 1000)))
	[ "$rows" -ge 3 ] && [ "$rows" = "$slow" ]; check_err $? "$rows rows logged, $slow of them above -L, for 3 spikes"
	[ "$rows" = "$(jqv "$WORK/e5.json" .counts.logged)" ]; check_err $? "JSON logged $(jqv "$WORK/e5.json" .counts.logged) != $rows rows"
	[ $((rows + $(jqv "$WORK/e5.json" .counts.log_skipped))) = "$(jqv "$WORK/e5.json" .counts.received)" ]
	check_err $? "logged + skipped != received"
	log_test "-L: the log holds only the $rows transactions above it"
}

# -S: the ring keeps exactly the last 500000, oldest first. Both sides
# wait asleep (--block): 520000 round trips while spinning take minutes on
# a CPU shared with other spinners.
breach_ring() {
	local rows first last
	pair
	start_reflector b4 --block
	emit -a "$IP_B" --block -c 520000 -d 600 -S -l "$WORK/e4.log" -j "$WORK/e4.json" >"$WORK/e4.txt" 2>&1
	check_err $? "ring run exit: $(tail -3 "$WORK/e4.txt")"
	stop_reflector
	rows=$(($(wc -l <"$WORK/e4.log") - 2))
	[ "$rows" = 500000 ]; check_err $? "ring log has $rows rows"
	# a row per ping: received, and lost ones as LOST rows
	[ "$(jqv "$WORK/e4.json" .counts.log_overwritten)" = \
		$(($(jqv "$WORK/e4.json" .counts.received) + $(jqv "$WORK/e4.json" .counts.lost) - 500000)) ]
	check_err $? "overwritten $(jqv "$WORK/e4.json" .counts.log_overwritten), received $(jqv "$WORK/e4.json" .counts.received), lost $(jqv "$WORK/e4.json" .counts.lost)"
	log_awk "$WORK/e4.log" '{ if (prev && col("SEQ") <= prev) bad++; prev = col("SEQ") } END { exit bad > 0 }'
	check_err $? "ring log is not in ascending order"
	first=$(log_awk "$WORK/e4.log" '{ print col("SEQ"); exit }')
	last=$(log_awk "$WORK/e4.log" '{ s = col("SEQ") } END { print s }')
	if [ "$(jqv "$WORK/e4.json" .counts.lost)" = 0 ]; then
		[ $((last - first)) = 499999 ]; check_err $? "first $first last $last: not the last 500000"
	fi
	log_test "-S: the ring log keeps the last 500000 records in order"
}

tests_run
