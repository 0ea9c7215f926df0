#!/usr/bin/env bash
# After a breach, what the kernel did: real spikes over veth, each test
# with a trace instance of its own (trace_clock mono, sched/irq/net/napi
# events), read back with tools/rant-trace.
#   trace_hog      a SCHED_FIFO hog on the reflector's CPU: rant-trace
#                  names the hog and the CPU
#   trace_stop     the reflector stopped with SIGSTOP: the verdict says
#                  stopped
#   trace_throttle a spinning chrt -f reflector, RT throttling on: the
#                  warning at start, the 1-s stalls counted, and counted
#                  again with kernel.sched_rt_runtime_us=-1 (put back as
#                  found, pass or fail)
#   trace_shared   both ends on one instance: the side that comes second
#                  says the instance was already frozen and still prints
#                  its own breach
# The reflector runs SCHED_FIFO with --block, so that ordinary tasks of a
# loaded machine neither delay it nor trip the throttle.
# shellcheck disable=SC2034  # RET is read by lib.sh's log_test
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_cmd jq taskset chrt ss sysctl
[ -x "$RANT" ] || skip "rant is not built (make)"
[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 is missing (sudo make deps)"

ALL_TESTS="trace_hog trace_stop trace_throttle trace_shared"
RANT_TRACE=$TOP/tools/rant-trace
THRESH=30000		# us: above this VM's scheduling noise
RT_SYSCTL=/proc/sys/kernel/sched_rt_runtime_us

TRACEFS=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
if [ -z "$TRACEFS" ]; then
	mount -t tracefs nodev /sys/kernel/tracing || skip "cannot mount tracefs"
	defer umount /sys/kernel/tracing
	TRACEFS=/sys/kernel/tracing
fi

# ---- helpers ----

# new_instance NAME: a trace instance of the test's own in $IDIR/$INST.
new_instance() {
	INST=rant-trace-$UNIQ-$1
	IDIR=$TRACEFS/instances/$INST
	mkdir "$IDIR" || return 1
	defer rmdir "$IDIR"
	defer sh -c "echo 0 > '$IDIR/tracing_on'; echo 0 > '$IDIR/events/enable'"
	echo mono >"$IDIR/trace_clock" || return 1
	echo 2048 >"$IDIR/buffer_size_kb"
	local e
	for e in sched irq net napi; do
		[ -e "$IDIR/events/$e/enable" ] && echo 1 >"$IDIR/events/$e/enable"
	done
	echo 1 >"$IDIR/tracing_on"
}

# wait_for SECONDS CMD...: poll CMD every 50 ms until it succeeds.
wait_for() {
	local n=$(($1 * 20))
	shift
	while ((n-- > 0)); do
		"$@" && return 0
		sleep 0.05
	done
	return 1
}
in_trace() { grep -q "$1" "$IDIR/trace"; }
gone() { ! kill -0 "$1" 2>/dev/null; }

# bg NAME CMD...: CMD in the background, output in $WORK/NAME.txt, pid in
# $BGPID, killed when the test ends.
bg() {
	local name=$1
	shift
	"$@" >"$WORK/$name.txt" 2>&1 &
	BGPID=$!
	defer kill -9 "$BGPID"
}

# A SCHED_FIFO reflector on CPU 1 that waits in poll(), with -T.
fifo_reflector() {
	local name=$1
	shift
	bg "$name" ip netns exec "$NS_B" taskset -c 1 chrt -f 20 "$RANT" -i "$VETH_B" \
		-s --block -d 60 -t "$THRESH" -T --trace-instance "$INST" \
		-j "$WORK/$name.json" "$@"
	REFL=$BGPID
	wait_udp_port "$NS_B" "$PORT"
}

back_to_back_emitter() {
	local name=$1
	shift
	bg "$name" ip netns exec "$NS_A" taskset -c 0 "$RANT" -i "$VETH_A" -a "$IP_B" \
		-s -d 60 --timeout 500000 "$@"
	EMIT=$BGPID
}

# verdict_of JSONFILE: rant-trace's JSON of the instance, into $WORK/rt.json
analyse() {
	"$RANT_TRACE" --instance "$IDIR" --json "$1" -J >"$WORK/rt.json" 2>"$WORK/rt.err"
}
rtv() { jq -r "$1" "$WORK/rt.json"; }

# ---- the tests ----

trace_hog_body() {
	local hog=hog-$UNIQ
	new_instance hog || { echo "    cannot create a trace instance"; RET=1; log_test "trace_hog"; return; }
	fifo_reflector hog
	back_to_back_emitter hog-e
	wait_for 10 in_trace "RANT_TEST_START side=reflect"
	check_err $? "no RANT_TEST_START from the reflector: $(tail -3 "$WORK/hog.txt")"
	# 60 ms of busy loop at FIFO 50 on the reflector's CPU (FIFO 20).
	taskset -c 1 chrt -f 50 /usr/bin/python3 -c '
import ctypes, sys, time
ctypes.CDLL(None).prctl(15, sys.argv[1].encode(), 0, 0, 0)
end = time.monotonic() + 0.06
while time.monotonic() < end:
    pass' "$hog"
	wait_for 10 gone "$REFL"
	check_err $? "the reflector did not stop at a breach: $(tail -3 "$WORK/hog.txt")"
	kill -INT "$EMIT" 2>/dev/null
	grep -q "what the kernel did: rant-trace --instance $IDIR --json $WORK/hog.json" "$WORK/hog.txt"
	check_err $? "rant did not print the rant-trace command: $(grep -A3 'ftrace:' "$WORK/hog.txt")"
	analyse "$WORK/hog.json"
	check_err $? "rant-trace failed: $(cat "$WORK/rt.err")"
	[ "$(rtv '.breaches[0].kind')" = preempted ] && rtv '.breaches[0].verdict' | grep -q "preempted by $hog "
	check_err $? "verdict: $(rtv '.breaches[0].verdict')"
	[ "$(rtv '.breaches[0].cpus | join(",")')" = 1 ]
	check_err $? "CPUs $(rtv '.breaches[0].cpus') instead of the reflector's 1"
	[ "$(rtv '.breaches[0].spike_step')" = reflect_rx ]
	check_err $? "spike step $(rtv '.breaches[0].spike_step')"
	log_test "trace_hog: rant-trace names $hog on CPU 1"
}
trace_hog() {
	setup_pair || skip_test "cannot create namespaces and veth"
	trace_hog_body
}

trace_stop_body() {
	new_instance stop || { echo "    cannot create a trace instance"; RET=1; log_test "trace_stop"; return; }
	fifo_reflector stop
	back_to_back_emitter stop-e
	wait_for 10 in_trace "RANT_TEST_START side=reflect"
	check_err $? "no RANT_TEST_START from the reflector"
	kill -STOP "$REFL"
	sleep 0.1
	kill -CONT "$REFL"
	wait_for 10 gone "$REFL"
	check_err $? "the reflector did not stop at a breach: $(tail -3 "$WORK/stop.txt")"
	kill -INT "$EMIT" 2>/dev/null
	analyse "$WORK/stop.json"
	check_err $? "rant-trace failed: $(cat "$WORK/rt.err")"
	[ "$(rtv '.breaches[0].kind')" = stopped ] && rtv '.breaches[0].verdict' | grep -q "stopped (T"
	check_err $? "verdict: $(rtv '.breaches[0].verdict')"
	"$RANT_TRACE" --instance "$IDIR" >"$WORK/stop.rt.txt" 2>&1
	grep -q "^  verdict: CPU 1: stopped" "$WORK/stop.rt.txt"
	check_err $? "text verdict: $(tail -1 "$WORK/stop.rt.txt")"
	log_test "trace_stop: the verdict says stopped"
}
trace_stop() {
	setup_pair || skip_test "cannot create namespaces and veth"
	trace_stop_body
}

# throttle_run NAME: a spinning SCHED_FIFO reflector for 3 s (on veth a
# stall of the emitter falls between its kernel stamps; the reflector's
# falls inside its response), every breach counted (-C); into $BREACHES.
# throttle_run NAME: 3 s of a spinning SCHED_FIFO reflector on CPU 1, with
# an ordinary (nice 19) busy task on the same CPU: throttling, or the fair
# server, gives that task its share by stopping the reflector, which is
# what a tuned CPU's stray kernel threads and daemons do on a real host;
# the busy task makes it happen whatever else the machine is running.
throttle_run() {
	bg "$1-cfs" taskset -c 1 nice -n 19 sh -c 'while :; do :; done'
	local cfs=$BGPID
	bg "$1-e" ip netns exec "$NS_A" taskset -c 0 "$RANT" -i "$VETH_A" -a "$IP_B" \
		-d 10 --timeout 500000
	ip netns exec "$NS_B" taskset -c 1 chrt -f 50 "$RANT" -i "$VETH_B" \
		-d 3 -C -t 20000 -j "$WORK/$1.json" >"$WORK/$1.txt" 2>&1
	kill -INT "$BGPID" 2>/dev/null
	wait "$BGPID" 2>/dev/null
	kill -9 "$cfs" 2>/dev/null
	wait "$cfs" 2>/dev/null
	BREACHES=$(jq -r .counts.breaches "$WORK/$1.json" 2>/dev/null || echo -1)
}

trace_throttle_body() {
	local old on after fair=no
	old=$(cat "$RT_SYSCTL") || { echo "    cannot read $RT_SYSCTL"; RET=1; log_test trace_throttle; return; }
	defer sysctl -q -w "kernel.sched_rt_runtime_us=$old"

	sysctl -q -w kernel.sched_rt_runtime_us=950000
	throttle_run throttle-on
	on=$BREACHES
	grep -q "warning: real-time throttling is on (kernel.sched_rt_runtime_us 950000 of 1000000): a spinning SCHED_FIFO task is stopped for 50 ms of every 1000 ms.*sysctl kernel.sched_rt_runtime_us=-1" \
		"$WORK/throttle-on.txt"
	check_err $? "no throttling warning: $(head -5 "$WORK/throttle-on.txt")"
	# A 50 ms share a second for the busy task: at least one stall above
	# 20 ms in 3 s (the share may come in several slices).
	[ "$on" -ge 1 ]
	check_err $? "$on breaches in 3 s with throttling on (a 50 ms stall a second expected)"
	log_test "trace_throttle: warned at start, $on breaches in 3 s throttled"

	sysctl -q -w kernel.sched_rt_runtime_us=-1
	throttle_run throttle-off
	after=$BREACHES
	sysctl -q -w "kernel.sched_rt_runtime_us=$old"
	[ "$(cat "$RT_SYSCTL")" = "$old" ]
	check_err $? "sched_rt_runtime_us is $(cat "$RT_SYSCTL"), not $old again"
	! grep -q "real-time throttling is on" "$WORK/throttle-off.txt"
	check_err $? "warned about throttling with -1"
	log_test "trace_throttle: sysctl back to $old, no throttling warning with -1"
	grep -q "fair server" "$WORK/throttle-off.txt" && fair=yes
	if [ "$after" -eq 0 ]; then
		log_test "trace_throttle: with sched_rt_runtime_us=-1 no stall in 3 s ($on before)"
	elif [ "$fair" = yes ]; then
		# Measured on 6.18: the fair server gives ordinary tasks 50 ms a
		# second whatever the sysctl says, and rant's warning says so.
		printf 'TEST: %-60s [SKIP]\n' "trace_throttle: -1 removes the 1-s stalls"
		echo "    $after breaches with -1 ($on before): this kernel's fair server stops a spinning FIFO task while other tasks are runnable on its CPU (rant warned about it)"
	else
		check_err 1 "$after breaches with sched_rt_runtime_us=-1 ($on before)"
		log_test "trace_throttle: with sched_rt_runtime_us=-1 no stall"
	fi
}
trace_throttle() {
	setup_pair || skip_test "cannot create namespaces and veth"
	trace_throttle_body
}

trace_shared_body() {
	local first second
	new_instance shared || { echo "    cannot create a trace instance"; RET=1; log_test "trace_shared"; return; }
	fifo_reflector shared-r
	back_to_back_emitter shared-e -t "$THRESH" -T --trace-instance "$INST" -j "$WORK/shared-e.json"
	wait_for 10 in_trace "RANT_TEST_START side=emit"
	check_err $? "no RANT_TEST_START from the emitter"
	kill -STOP "$REFL"
	sleep 0.1
	kill -CONT "$REFL"
	wait_for 10 gone "$REFL" && wait_for 10 gone "$EMIT"
	check_err $? "both sides did not stop at their breach"
	wait "$REFL" 2>/dev/null
	[ "$?" = 3 ]; check_err $? "reflector exit not 3: $(tail -3 "$WORK/shared-r.txt")"
	wait "$EMIT" 2>/dev/null
	[ "$?" = 3 ]; check_err $? "emitter exit not 3: $(tail -3 "$WORK/shared-e.txt")"
	[ "$(grep -c RANT_BREACH "$IDIR/trace")" = 1 ]
	check_err $? "$(grep -c RANT_BREACH "$IDIR/trace") RANT_BREACH markers in the shared trace"
	first=$(grep -o 'RANT_BREACH .*side=[a-z]*' "$IDIR/trace" | grep -o 'side=[a-z]*$' | cut -d= -f2)
	if [ "$first" = reflect ]; then second=shared-e; else second=shared-r; fi
	grep -q "the instance $IDIR was already frozen (tracing_on 0), most likely by the other side's breach" "$WORK/$second.txt"
	check_err $? "the $second side did not say the instance was already frozen: $(grep ftrace "$WORK/$second.txt")"
	grep -q "<-- where the spike is" "$WORK/$second.txt"
	check_err $? "the $second side lost its own breach report"
	! grep -q "Bad file descriptor" "$WORK/$second.txt"
	check_err $? "EBADF reported as a failure"
	"$RANT_TRACE" --instance "$IDIR" -J >"$WORK/rt.json" 2>"$WORK/rt.err"
	[ "$(rtv '.breaches[0].kind')" = stopped ]
	check_err $? "shared trace, $first's breach: $(rtv '.breaches[0].verdict') $(cat "$WORK/rt.err")"
	log_test "trace_shared: $first froze it, the other said so and kept its breach"
}
trace_shared() {
	setup_pair || skip_test "cannot create namespaces and veth"
	trace_shared_body
}

tests_run
