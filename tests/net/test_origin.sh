#!/usr/bin/env bash
# The origin's (upstream rant's README) two command lines, run as written
# inside this test's namespaces: only the interface, the address, the CPU
# and the duration differ (the reflector runs until the emitter is done
# and is then stopped with SIGINT, which ends a run cleanly).
#   origin_pair   both run (exit 0, or 3 after a breach of the 100 us
#                 threshold, which this VM's scheduling makes likely: each
#                 outcome is checked for what it must print), -S gives the
#                 no-snapshot warning on a kernel without ftrace snapshot,
#                 the histograms are printed, both logs are written with
#                 the origin's column names, the markers reach the trace
#                 instance "rant"
# -T without --trace-instance writes to the instance "rant": the test
# creates it and removes it after; one that exists already belongs to
# someone else, and the test skips rather than touch it.
# Both sides spin at SCHED_FIFO 22 as the origin runs them. RT throttling
# (kernel.sched_rt_runtime_us) is left as found: this kernel's fair
# server stops a spinning SCHED_FIFO task for 50 ms a second whenever
# another task is runnable on its CPU whatever the sysctl says (rant warns
# so), and on a shared machine one is: measured, the emitter breaches
# about 1 s in with the sysctl at 950000 and at -1 alike. The test
# changes no sysctl; it checks what a breach must print instead.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="origin_pair"

require_root
require_cmd nsenter taskset chrt ss
require_rant

INSTANCE=rant
EMIT_DURATION=5

# instance_setup: the instance "rant", made by the test (skip if it exists).
# A fresh machine may have no tracefs mounted: the test mounts it where
# rant would (rant mounts it itself for -T) and unmounts what it mounted.
instance_setup() {
	TRACEFS=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
	if [ -z "$TRACEFS" ]; then
		mount -t tracefs nodev /sys/kernel/tracing ||
			skip_test "cannot mount tracefs on /sys/kernel/tracing"
		defer umount /sys/kernel/tracing
		TRACEFS=/sys/kernel/tracing
	fi
	IDIR=$TRACEFS/instances/$INSTANCE
	[ -e "$IDIR" ] && skip_test "an ftrace instance named $INSTANCE exists ($IDIR): the origin's -T writes there; left alone"
	mkdir "$IDIR" || skip_test "cannot create $IDIR"
	defer rmdir "$IDIR"
	defer sh -c "echo 1 > '$IDIR/tracing_on'"
}

# no_snapshot_warned FILE: the -S warning, where the kernel has no snapshot.
no_snapshot_warned() {
	[ -e "$IDIR/snapshot" ] && return 0
	grep -q '^warning: ftrace: this kernel has no ftrace snapshot' "$1"
}

# text_value FILE REGEX: the number after REGEX in FILE's text summary.
text_value() {
	grep -Eo "$2 [0-9]+" "$1" | head -1 | grep -Eo '[0-9]+$'
}

# check_side NAME TEXT LOG RC METRIC HEADER_RE: what one side printed and
# logged, whether it ended normally or at a breach.
check_side() {
	local name=$1 text=$2 log=$3 rc=$4 metric=$5 header=$6 recv lost want rows seq lat last
	[ "$rc" = 0 ] || [ "$rc" = 3 ]
	check_err $? "$name: exit $rc, want 0 or 3: $(tail -3 "$text")"
	no_snapshot_warned "$text"
	check_err $? "$name: no warning that -S has no snapshot on this kernel"
	grep -q "^Histogram: $metric (bucket start, us: count)$" "$text"
	check_err $? "$name: no histogram of $metric printed (-H)"
	head -1 "$log" | grep -Eq "$header"
	check_err $? "$name: log header '$(head -1 "$log")', want $header"
	recv=$(text_value "$text" 'received')
	# the emitter logs its lost pings too (LOST rows); the reflector has
	# no lost count to print
	lost=$(text_value "$text" '^sent [0-9]+, received [0-9]+, lost')
	want=$((recv + ${lost:-0}))
	rows=$(($(wc -l <"$log") - 2))
	[ "$rows" = "$want" ] || { [ "$want" -gt 500000 ] && [ "$rows" = 500000 ]; }
	check_err $? "$name: $rows log rows, received $recv, lost ${lost:-none} (-S keeps the last 500000)"
	if [ "$rc" = 3 ]; then
		seq=$(grep -Eo '^\*\*\* Threshold breach: [a-z_]+ of seq [0-9]+' "$text" | grep -Eo '[0-9]+$')
		lat=$(grep -Eo '^\*\*\* Threshold breach: .* is [0-9.]+ us > threshold 100\.000 us' "$text" |
			grep -Eo 'is [0-9]+' | grep -Eo '[0-9]+')
		[ -n "$seq" ] && [ "${lat:-0}" -gt 100 ]
		check_err $? "$name: exit 3 without a breach line above 100 us"
		grep -q 'stopped: breach$' "$text"
		check_err $? "$name: exit 3 but not 'stopped: breach'"
		grep -Eq "^  ftrace: RANT_BREACH written .* frozen|already frozen" "$text"
		check_err $? "$name: the breach does not say the trace was frozen"
		last=$(tail -1 "$log" | awk '{ print $1 }')
		[ "$rows" = 0 ] || [ "$last" = "$seq" ]
		check_err $? "$name: the log ends at seq $last, the breach was seq $seq"
	else
		grep -Eq 'stopped: (duration|signal)$' "$text"
		check_err $? "$name: exit 0 but stopped for another reason: $(grep stopped: "$text")"
		! grep -q '^\*\*\* Threshold breach' "$text"
		check_err $? "$name: exit 0 after a breach"
	fi
}

origin_pair() {
	local erc rrc t0 t1 wu
	setup_pair || skip_test "cannot create namespaces and veth"
	instance_setup
	cd "$WORK" || return 1
	nsenter --net=/var/run/netns/"$NS_B" \
	  taskset --cpu-list 1 chrt -f 22 \
	  "$RANT" -i "$VETH_B" --warmup 100000 --duration 60 --threshold 100 \
	    --sw-timestamps --histogram --log response.txt --trace-marker --snapshot \
	    >"$WORK/r.txt" 2>&1 &
	REFL=$!
	defer kill -9 "$REFL"
	wait_udp_port "$NS_B" "$PORT"
	check_err $? "the reflector did not bind port $PORT: $(tail -3 "$WORK/r.txt")"

	t0=$(__now_us)
	nsenter --net=/var/run/netns/"$NS_A" \
	  taskset -c 0 chrt -f 22 \
	  "$RANT" -i "$VETH_A" -a "$IP_B" --warmup 100000 --duration "$EMIT_DURATION" \
	    --threshold 100 --sw-timestamps --histogram --log roundtrip.txt \
	    --trace-marker --snapshot >"$WORK/e.txt" 2>&1
	erc=$?
	t1=$(__now_us)
	stop_reflector
	rrc=$REFL_RC
	echo "    emitter: exit $erc after $(((t1 - t0) / 1000)) ms; reflector: exit $rrc"

	wu=$(grep -Eo '^measuring: warm-up done after [0-9]+ pings$' "$WORK/e.txt" | grep -Eo '[0-9]+')
	[ "${wu:-0}" -ge 100000 ]
	check_err $? "emitter: warm-up of ${wu:-no} pings, want at least --warmup 100000"
	check_side emitter "$WORK/e.txt" "$WORK/roundtrip.txt" "$erc" rtt \
		'^SEQ T1_SW T1_(HW|KN) T4_(HW|KN) T4_SW RTT( |$)'
	check_side reflector "$WORK/r.txt" "$WORK/response.txt" "$rrc" response \
		'^SEQ T2_(HW|KN) T2_SW T3_SW T3_(HW|KN) RESPONSE( |$)'
	grep -q 'RANT_TEST_START' "$IDIR/trace"
	check_err $? "no RANT_TEST_START marker in $IDIR/trace"
	if [ "$erc" = 3 ] || [ "$rrc" = 3 ]; then
		[ "$(cat "$IDIR/tracing_on")" = 0 ]
		check_err $? "a breach, but $IDIR/tracing_on is $(cat "$IDIR/tracing_on")"
		grep -q 'RANT_BREACH' "$IDIR/trace"
		check_err $? "a breach, but no RANT_BREACH marker in the trace"
	fi
	log_test "the origin's command lines run as written (emitter exit $erc, reflector exit $rrc)"
}

tests_run
