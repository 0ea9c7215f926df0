#!/usr/bin/env bash
# config.sh on a veth pair of each test's own: --dry-run changes nothing,
# apply then --verify passes, a second apply changes nothing, --revert puts
# every value back (compared value by value, threads and IRQs included, and
# kernel.sched_rt_runtime_us to exactly its old value), --trace configures
# its instance (trace_clock mono, restored on revert), a frozen breach is
# saved before --revert deletes its instance (or dropped with --force), bad
# input exits 1 with one line. Where it runs: under ip netns exec the
# interface stays in that namespace (nothing dies with config.sh), in a
# mount namespace of its own it refuses; --revert removes the trace
# instance after several applies, tracefs unmounted between them; a second
# side's apply on the machine refuses the first side's trace instance and
# leaves its isolated CPU alone. CONFIG=/path/config.sh tests another tree.
# The tuned end lives in this namespace, as on a real host; its peer in a
# namespace of its own.

# shellcheck source=tests/net/lib.sh
source "$(dirname "$0")/lib.sh"

CONFIG=${CONFIG:-$TOP/config.sh}
require_root
require_cmd ip tc ethtool jq tuna setpci phc2sys chrt taskset flock setpriv
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs: one to isolate, one for everything else"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="config_dry_run config_apply_revert config_trace_existing
	config_revert_breach config_revert_breach_full config_ipv6_no_namespace
	config_bad_input config_netns_exec config_mount_ns config_trace_applies
	config_two_sides"

APP_CPU=$(($(nproc) - 1))
RT_RUNTIME=/proc/sys/kernel/sched_rt_runtime_us

TRACEFS=$(awk '$3 == "tracefs" {print $2; exit}' /proc/mounts)
if [ -z "$TRACEFS" ]; then
	mount -t tracefs nodev /sys/kernel/tracing || skip "cannot mount tracefs"
	TRACEFS=/sys/kernel/tracing
	defer umount /sys/kernel/tracing
fi

# config_setup: a veth pair of the test's own, the tuned end here ($IF,
# 10.78.0.1, fd78::1), the peer in namespace $NS_B; sets the names, $STATE
# and $SD, and $ARGS for a full apply with --trace. Everything is removed
# when the test ends, a revert first.
config_setup() {
	NS_B=rant-b-$UNIQ
	IF=rc$UNIQ
	PEER=rp$UNIQ
	STATE=$WORK/state
	SD=$STATE/$IF
	INST=rant-test-$UNIQ
	IP_A=10.78.0.1
	IP_B=10.78.0.2
	IP6_A=fd78::1
	IP6_B=fd78::2
	ip netns add "$NS_B" || skip "cannot create a network namespace"
	defer ip netns del "$NS_B"
	ip link add "$IF" type veth peer name "$PEER" netns "$NS_B" || skip "cannot create veth"
	defer ip link del "$IF"
	defer ip netns del "ns_$IF"
	ip addr add "$IP_A/24" dev "$IF"
	ip addr add "$IP6_A/64" dev "$IF" nodad
	ip link set "$IF" up
	ip -n "$NS_B" link set lo up
	ip -n "$NS_B" addr add "$IP_B/24" dev "$PEER"
	ip -n "$NS_B" addr add "$IP6_B/64" dev "$PEER" nodad
	ip -n "$NS_B" link set "$PEER" up
	MAC_A=$(ip -j link show dev "$IF" | jq -r '.[0].address')
	MAC_B=$(ip -n "$NS_B" -j link show dev "$PEER" | jq -r '.[0].address')
	# Whatever a test leaves, this machine gets its RT throttling back.
	defer sh -c 'printf "%s\n" "$1" >"$2"' sh "$(cat "$RT_RUNTIME")" "$RT_RUNTIME"
	defer rmdir "$TRACEFS/instances/$INST"
	defer "$CONFIG" "$IF" --revert --force --state-dir "$STATE"
	ARGS=("$IF" --ip "$IP_A" --remote-ip "$IP_B" --cpu "$APP_CPU" --irq-cpu "$APP_CPU"
		--remote-mac "$MAC_B" --busy-poll 50 --trace --trace-instance "$INST"
		--trace-buffer-kb 2048 --state-dir "$STATE")
}

# dump_iface FILE: everything config.sh may change on the interface, as it
# is seen from this namespace.
dump_iface() {
	{
		echo "netns: $(ip netns list | awk '{print $1}' | grep -cxF "ns_$IF")"
		ip -j -d link show dev "$IF" | jq -c '.[0] | {flags, mtu, address, txqlen, qdisc}'
		ip -j addr show dev "$IF" | jq -c '[.[0].addr_info[] | select(.scope != "link")
			| "\(.local)/\(.prefixlen) \(.nodad // false)"] | sort'
		{ ip -j -4 route show dev "$IF"; ip -j -6 route show dev "$IF"; } |
			jq -cs 'add | map(select(.dst | startswith("fe80") | not) | {dst, protocol}) | sort_by(.dst)'
		ip -j neigh show dev "$IF" | jq -c 'map(select(.state | index("PERMANENT"))) | map({dst, lladdr})'
		ethtool --json -k "$IF" | jq -c '.[0] | del(.ifname) | to_entries
			| map(select(.value | type == "object") | "\(.key)=\(.value.active)/\(.value.requested)")'
		ethtool -l "$IF" | tail -n +2
		tc -j qdisc show dev "$IF" | jq -c 'map({kind, handle, root})'
		local f
		for f in napi_defer_hard_irqs gro_flush_timeout; do
			echo "$f=$(cat "/sys/class/net/$IF/$f")"
		done
		for f in disable_ipv6 accept_dad forwarding; do
			echo "ipv6.$f=$(cat "/proc/sys/net/ipv6/conf/$IF/$f")"
		done
	} >"$1" 2>&1
}

# dump_system FILE: what config.sh may change outside the interface.
dump_system() {
	{
		local f
		# (kernel.sched_rt_runtime_us is checked by value in config_apply_revert:
		# other tests on the machine change it too)
		for f in net.core.busy_poll net.core.busy_read; do
			echo "$f=$(cat "/proc/sys/${f//.//}")"
		done
		echo "default_smp_affinity=$(cat /proc/irq/default_smp_affinity)"
		for f in /proc/irq/[0-9]*/smp_affinity_list; do
			echo "irq ${f#/proc/irq/} $(cat "$f")"
		done
		# only what is ours: other tests may run beside this one
		if [ -d "$TRACEFS/instances/$INST" ]; then
			echo "trace instance $INST, clock $(cat "$TRACEFS/instances/$INST/trace_clock")"
		fi
		pgrep -x phc2sys | sed 's/^/phc2sys /'
	} >"$1" 2>&1
}

# dump_threads FILE: "tid:starttime cpus policy rtprio" for every thread.
dump_threads() {
	local t line rest cpus
	for t in /proc/[0-9]*/task/[0-9]*; do
		{ read -r line <"$t/stat"; } 2>/dev/null || continue
		cpus=$(awk '$1 == "Cpus_allowed_list:" {print $2}' "$t/status" 2>/dev/null)
		[ -n "$cpus" ] || continue
		rest=${line##*) }
		# shellcheck disable=SC2086
		set -- $rest
		echo "${t##*/}:${20} $cpus ${39} ${38}"
	done | LC_ALL=C sort -k1,1 >"$1"
	# a dump that lost its threads would compare equal to anything
	[ "$(wc -l <"$1")" -ge 20 ] || { echo "    thread dump $1 has $(wc -l <"$1") lines"; return 1; }
}

dump_all() {
	dump_iface "$1.iface"
	dump_system "$1.sys"
	# shellcheck disable=SC2034  # RET is the lib's result of the current check
	dump_threads "$1.threads" || RET=1
}

# same_state A B: the dumps agree; threads are compared where they exist in
# both (others come and go). Prints what differs.
same_state() {
	local rc=0
	if ! diff -q "$1.iface" "$2.iface" >/dev/null; then
		diff -u "$1.iface" "$2.iface" | sed 's/^/    /'
		rc=1
	fi
	if ! diff -q "$1.sys" "$2.sys" >/dev/null; then
		diff -u "$1.sys" "$2.sys" | sed 's/^/    /'
		rc=1
	fi
	same_threads "$1.threads" "$2.threads" || rc=1
	return "$rc"
}

# same_threads A B: two dump_threads files agree where a thread is in both.
same_threads() {
	local d
	d=$(LC_ALL=C join "$1" "$2" | awk '$2 != $5 || $3 != $6 || $4 != $7')
	[ -n "$d" ] || return 0
	echo "    threads changed (tid:start cpus policy prio, before then after):"
	head -n 20 <<<"$d" | sed 's/^/      /'
	return 1
}

# steps_with OUTPUT STATUS...: the steps whose line has one of the statuses.
steps_with() {
	local out=$1
	shift
	local re
	re=$(printf '%s|' "$@")
	awk -v re="^(${re%|})" '{ s = substr($0, 17, 16); sub(/ +$/, "", s); if (s ~ re) print $1 }' <<<"$out"
}

# freeze_breach INSTANCE: what rant -T does at a breach: a RANT_BREACH
# marker, then tracing_on 0. Written from the app CPU: the instance traces
# only the app and IRQ CPUs, and a marker from another CPU is refused.
freeze_breach() {
	local d=$TRACEFS/instances/$1
	taskset -c "$APP_CPU" sh -c 'echo "RANT_BREACH seq=7 latency_ns=123456 threshold_ns=100000" >"$1"' \
		sh "$d/trace_marker" &&
		echo 0 >"$d/tracing_on"
}

# --- the tests ------------------------------------------------------------

config_dry_run() {
	config_setup
	local out s
	dump_all "$WORK/before"
	out=$("$CONFIG" "${ARGS[@]}" --dry-run 2>&1)
	check_err $? "--dry-run failed: $out"
	for s in $("$CONFIG" --list-steps | awk '{print $1}'); do
		[ "$(grep -c "^$s " <<<"$out")" = 1 ] || check_err 1 "--dry-run: no line (or more than one) for step $s"
	done
	grep -q '^    + ip .*netns' <<<"$out"
	check_err $? "--dry-run printed no commands"
	grep -q '^    + tuna --cpus=' <<<"$out"
	check_err $? "--dry-run does not show the tuna command"
	grep -q '^    + sysctl -w kernel.sched_rt_runtime_us=-1' <<<"$out" ||
		[ "$(cat "$RT_RUNTIME")" = -1 ]
	check_err $? "--dry-run does not show the sched_rt_runtime_us change"
	grep -q "^    + echo mono > .*/instances/$INST/trace_clock" <<<"$out"
	check_err $? "--dry-run does not show the trace_clock change"
	dump_all "$WORK/dry"
	same_state "$WORK/before" "$WORK/dry"
	check_err $? "--dry-run changed the machine"
	[ ! -e "$SD" ]
	check_err $? "--dry-run created the state directory"
	log_test "config.sh --dry-run lists every step and changes nothing"
}

config_apply_revert() {
	config_setup
	local out rc f s want got apply_out ks kb I err
	# Not the default, so that "restored" means this value (the kernel refuses
	# values below the deadline bandwidth already granted, 950000 here).
	echo 960000 >"$RT_RUNTIME" || skip "cannot write $RT_RUNTIME"
	dump_all "$WORK/before"
	out=$("$CONFIG" "${ARGS[@]}" 2>"$WORK/apply.err")
	rc=$?
	err=$(cat "$WORK/apply.err")
	check_err $rc "apply exited $rc: $out $err"
	f=$(steps_with "$out" failed)
	[ -z "$f" ]
	check_err $? "steps failed on veth: $f"
	[ "$(steps_with "$out" applied | wc -l)" -ge 8 ]
	check_err $? "fewer steps applied than expected: $out"
	grep -q -- "--cpu $APP_CPU and --irq-cpu $APP_CPU: one CPU for both" <<<"$err"
	check_err $? "no warning for one CPU for both app and IRQs: $err"
	log_test "config.sh apply: every step applied, already set or unsupported"
	apply_out=$out

	want="nic_rings nic_coalesce nic_pause nic_privflags irq_affinity irq_threads pci_aspm ptp_phc2sys"
	got=$(steps_with "$apply_out" "unsupported here" | tr '\n' ' ')
	for s in $want; do
		[[ " $got " == *" $s "* ]] || check_err 1 "$s: not 'unsupported here' on veth"
	done
	grep -q '^nic_rings .*unsupported here (veth has no rings)' <<<"$apply_out"
	check_err $? "nic_rings does not give the reason"
	log_test "config.sh: steps veth cannot do are 'unsupported here', not failures"

	local N="ip netns exec ns_$IF"
	ip -n "ns_$IF" link show dev "$IF" >/dev/null 2>&1
	check_err $? "$IF is not in ns_$IF"
	ip link show dev "$IF" >/dev/null 2>&1
	check_fail $? "$IF is still in this namespace"
	ip -n "ns_$IF" -j addr show dev "$IF" | jq -e --arg a "$IP_A" '.[0].addr_info[] | select(.local == $a)' >/dev/null
	check_err $? "$IP_A is not on $IF"
	[ "$($N ethtool --json -k "$IF" | jq -r '.[0]["rx-checksumming"].active, .[0]["tx-tcp-segmentation"].active' | sort -u)" = false ]
	check_err $? "checksum offload or TSO still on"
	[ "$($N cat "/proc/sys/net/ipv6/conf/$IF/disable_ipv6")" = 1 ]
	check_err $? "IPv6 still on for an IPv4 test"
	ip -n "ns_$IF" -j link show dev "$IF" | jq -e '.[0].flags | (index("NOARP") != null) and (index("MULTICAST") == null) and (index("UP") != null)' >/dev/null
	check_err $? "link flags are not UP, NOARP, no MULTICAST"
	ip -n "ns_$IF" -j neigh show "$IP_B" dev "$IF" | jq -e --arg m "$MAC_B" '.[0].lladdr == $m and (.[0].state | index("PERMANENT"))' >/dev/null
	check_err $? "no permanent neighbour entry for $IP_B"
	[ "$(tc -n "ns_$IF" -j qdisc show dev "$IF" | jq -r '.[] | select(.root) | .kind')" = noqueue ]
	check_err $? "root qdisc is not noqueue"
	[ "$(cat /proc/sys/net/core/busy_poll)" = 50 ] && [ "$(cat /proc/sys/net/core/busy_read)" = 50 ]
	check_err $? "net.core.busy_poll/busy_read are not 50"
	ks=$(pgrep -x "ksoftirqd/$APP_CPU")
	[ "$(chrt -p "$ks" | awk -F': *' '/policy/ {print $2}')" = SCHED_FIFO ] &&
		[ "$(chrt -p "$ks" | awk -F': *' '/priority/ {print $2}')" = 11 ]
	check_err $? "ksoftirqd/$APP_CPU is not SCHED_FIFO 11"
	! taskset -pc $$ | awk '{print $NF}' | grep -qw "$APP_CPU"
	check_err $? "the test's shell may still run on the isolated CPU $APP_CPU"
	log_test "config.sh apply: namespace, address, offloads, IPv6, ARP, neighbour, qdisc, busy poll, isolation, ksoftirqd"

	[ "$(cat "$RT_RUNTIME")" = -1 ]
	check_err $? "kernel.sched_rt_runtime_us is $(cat "$RT_RUNTIME"), not -1"
	grep -q '^cpu_rt_throttle  *applied  *(sched_rt_runtime_us -1 (was 960000)' <<<"$apply_out"
	check_err $? "cpu_rt_throttle does not say what it replaced: $(grep '^cpu_rt_throttle' <<<"$apply_out")"
	log_test "config.sh cpu_rt_throttle: sched_rt_runtime_us -1"

	if command -v ping >/dev/null; then
		ip -n "$NS_B" neigh replace "$IP_A" lladdr "$MAC_A" dev "$PEER" nud permanent
		$N ping -c 1 -W 2 "$IP_B" >/dev/null 2>&1
		check_err $? "no ping from the tuned interface to the peer"
		log_test "config.sh: the tuned interface still reaches its peer"
	fi

	I=$TRACEFS/instances/$INST
	[ -d "$I" ]
	check_err $? "no trace instance $I"
	kb=$(awk '{print $1; exit}' "$I/buffer_size_kb" 2>/dev/null)
	# the kernel rounds up to whole pages
	[ "${kb:-0}" -ge 2048 ] && [ "$kb" -le 2112 ]
	check_err $? "buffer_size_kb is $kb, not about 2048"
	[ "$((16#$(tr -d , <"$I/tracing_cpumask")))" = "$((1 << APP_CPU))" ]
	check_err $? "tracing_cpumask is not CPU $APP_CPU: $(cat "$I/tracing_cpumask")"
	grep -q '\[mono\]' "$I/trace_clock"
	check_err $? "trace_clock is not mono: $(cat "$I/trace_clock")"
	for f in sched/sched_switch irq/softirq_entry irq/irq_handler_entry net/netif_receive_skb napi/napi_poll; do
		[ ! -e "$TRACEFS/events/$f" ] || [ "$(cat "$I/events/$f/enable")" = 1 ] || check_err 1 "event $f not enabled"
	done
	if [ -e "$I/snapshot" ]; then
		grep -q '^trace_snapshot  *already set' <<<"$apply_out"
	else
		grep -q '^trace_snapshot  *unsupported here (kernel built without CONFIG_TRACER_SNAPSHOT' <<<"$apply_out"
	fi
	check_err $? "trace_snapshot does not say whether the kernel has a snapshot"
	log_test "config.sh --trace: instance, buffer, clock, cpumask, events, snapshot status"

	out=$("$CONFIG" "${ARGS[@]}" --verify 2>&1)
	rc=$?
	check_err $rc "--verify exited $rc after apply: $(steps_with "$out" "not set" failed | tr '\n' ' ')"
	log_test "config.sh --verify passes after apply"

	out=$("$CONFIG" "${ARGS[@]}" 2>&1)
	check_err $? "second apply failed"
	f=$(steps_with "$out" applied failed)
	[ -z "$f" ]
	check_err $? "second apply changed: $f"
	[ "$(steps_with "$out" "already set" | wc -l)" -ge 10 ]
	check_err $? "second apply: too few steps already set"
	log_test "config.sh second apply: everything already set"

	out=$("$CONFIG" "$IF" --revert --dry-run --state-dir "$STATE" 2>&1)
	check_err $? "--revert --dry-run failed: $out"
	grep -q "^    + gsysctl kernel.sched_rt_runtime_us 960000" <<<"$out" &&
		grep -q '^cpu_rt_throttle  *would restore' <<<"$out"
	check_err $? "--revert --dry-run does not show the restore of sched_rt_runtime_us"
	[ "$(cat "$RT_RUNTIME")" = -1 ] && [ -s "$SD/journal" ]
	check_err $? "--revert --dry-run changed something"
	log_test "config.sh --revert --dry-run shows the undos and changes nothing"

	out=$("$CONFIG" "$IF" --revert --state-dir "$STATE" 2>&1)
	rc=$?
	check_err $rc "--revert exited $rc: $out"
	dump_all "$WORK/after"
	same_state "$WORK/before" "$WORK/after"
	check_err $? "--revert left the machine changed"
	[ "$(cat "$RT_RUNTIME")" = 960000 ]
	check_err $? "sched_rt_runtime_us is $(cat "$RT_RUNTIME") after --revert, not 960000"
	[ ! -e "$SD/journal" ]
	check_err $? "--revert left a journal"
	[ ! -d "$TRACEFS/instances/$INST" ]
	check_err $? "--revert left the trace instance"
	log_test "config.sh --revert restores features, sysctls, RT throttling, link, namespace, addresses, IRQs, threads"

	out=$("$CONFIG" "${ARGS[@]}" --verify 2>&1)
	check_fail $? "--verify passes on an untuned interface"
	grep -q '^net_namespace *not set' <<<"$out"
	check_err $? "--verify does not name what is missing"
	log_test "config.sh --verify fails on an untuned interface"

	out=$("$CONFIG" "$IF" --revert --state-dir "$STATE" 2>&1)
	check_err $? "a second --revert fails: $out"
	log_test "config.sh --revert with nothing saved is a no-op"
}

# An instance config.sh did not create: its clock is put back, the instance
# stays.
config_trace_existing() {
	config_setup
	local out rc I=$TRACEFS/instances/$INST
	mkdir "$I" || skip "cannot create trace instance $I"
	echo global >"$I/trace_clock"
	# A breach frozen there first: changing the clock would erase it.
	freeze_breach "$INST"
	out=$("$CONFIG" "${ARGS[@]}" --no-namespace --no-ptp 2>&1)
	rc=$?
	[ "$rc" = 2 ] && grep -q "^trace_clock  *failed  *(.*holds a frozen breach that changing trace_clock would erase" <<<"$out"
	check_err $? "apply on a frozen breach: exit $rc, $(grep '^trace_clock' <<<"$out")"
	grep -q RANT_BREACH "$I/trace" && grep -q '\[global\]' "$I/trace_clock"
	check_err $? "apply erased the frozen breach or changed its clock"
	log_test "config.sh trace_clock: refuses to erase a frozen breach"
	echo 1 >"$I/tracing_on"
	out=$("$CONFIG" "${ARGS[@]}" --no-namespace --no-ptp 2>&1)
	check_err $? "apply failed: $out"
	grep -q '^trace_clock  *applied  *(mono (was global))' <<<"$out"
	check_err $? "trace_clock does not say it replaced global: $(grep '^trace_clock' <<<"$out")"
	grep -q '\[mono\]' "$I/trace_clock"
	check_err $? "trace_clock is not mono after apply: $(cat "$I/trace_clock")"
	out=$("$CONFIG" "$IF" --revert --state-dir "$STATE" 2>&1)
	check_err $? "--revert failed: $out"
	[ -d "$I" ]
	check_err $? "--revert deleted an instance config.sh did not create"
	grep -q '\[global\]' "$I/trace_clock" 2>/dev/null
	check_err $? "trace_clock is not global again after --revert: $(cat "$I/trace_clock" 2>&1)"
	log_test "config.sh trace_clock: mono for the test, the old clock back on revert"
}

# A frozen breach is saved beside the journal before the instance goes;
# --force drops it with a warning.
config_revert_breach() {
	config_setup
	local out rc dir I=$TRACEFS/instances/$INST
	local args=("${ARGS[@]}" --no-namespace --no-ptp --keep-rt-throttle)
	out=$("$CONFIG" "${args[@]}" 2>&1)
	check_err $? "apply failed: $out"
	freeze_breach "$INST"
	check_err $? "could not write a breach marker into $I"
	out=$("$CONFIG" "$IF" --revert --state-dir "$STATE" 2>&1)
	rc=$?
	check_err $rc "--revert exited $rc: $out"
	dir=$(sed -n "s|^trace instance $INST holds a frozen breach .*its trace is saved in \(/.*\)/\$|\1|p" <<<"$out")
	[ -n "$dir" ] && [[ $dir == "$SD"/breach-"$INST"-* ]]
	check_err $? "--revert does not say where it saved the breach: $out"
	grep -q 'RANT_BREACH seq=7' "$dir/trace" 2>/dev/null
	check_err $? "the saved trace $dir/trace has no RANT_BREACH marker"
	grep -q 'RANT_BREACH seq=7' "$dir/per_cpu/cpu$APP_CPU/trace" 2>/dev/null
	check_err $? "the saved per-CPU trace of CPU $APP_CPU has no RANT_BREACH marker"
	grep -q '\[mono\]' "$dir/trace_clock" 2>/dev/null
	check_err $? "the saved trace_clock is not the breach's clock (mono)"
	[ ! -d "$I" ]
	check_err $? "--revert left the instance after saving it"
	grep -q "^trace_instance  *restored" <<<"$out"
	check_err $? "trace_instance not restored: $out"
	log_test "config.sh --revert saves a frozen breach's trace beside the journal, then deletes the instance"

	out=$("$CONFIG" "${args[@]}" 2>&1)
	check_err $? "second apply failed: $out"
	freeze_breach "$INST"
	out=$("$CONFIG" "$IF" --revert --force --state-dir "$STATE" 2>&1)
	check_err $? "--revert --force failed: $out"
	grep -q "trace instance $INST holds a frozen breach.*--force: its trace is dropped" <<<"$out"
	check_err $? "--revert --force does not warn that the breach is dropped: $out"
	[ ! -d "$I" ] && [ "$(find "$SD" -maxdepth 1 -name "breach-*" | wc -l)" = 1 ]
	check_err $? "--revert --force kept the instance or saved the breach"
	log_test "config.sh --revert --force drops a frozen breach, with a warning"
}

# No room to save the frozen breach: --revert changes nothing and says so;
# with room again it saves and reverts.
config_revert_breach_full() {
	config_setup
	local out rc sum fs=$WORK/small I=$TRACEFS/instances/$INST
	mkdir "$fs"
	mount -t tmpfs -o size=1m,mode=0700 "rant-test-$UNIQ" "$fs" || skip "cannot mount a tmpfs"
	defer umount "$fs"
	STATE=$fs/state
	SD=$STATE/$IF
	# runs before the umount above
	defer "$CONFIG" "$IF" --revert --force --state-dir "$STATE"
	# A small buffer: the saved copy (trace and per-CPU traces, about three
	# times the buffer as text) must fit the 1 MB tmpfs once it is emptied;
	# with 2048 KiB a busy machine filled 4 MB of text before the freeze.
	out=$("$CONFIG" "$IF" --ip "$IP_A" --remote-ip "$IP_B" --cpu "$APP_CPU" --irq-cpu "$APP_CPU" \
		--trace --trace-instance "$INST" --trace-buffer-kb 64 --no-namespace --no-ptp \
		--keep-rt-throttle --state-dir "$STATE" 2>&1)
	check_err $? "apply failed: $out"
	freeze_breach "$INST"
	check_err $? "could not write a breach marker into $I"
	sum=$(md5sum <"$SD/journal")
	dd if=/dev/zero of="$fs/fill" bs=4k 2>/dev/null
	out=$("$CONFIG" "$IF" --revert --state-dir "$STATE" 2>&1)
	rc=$?
	[ "$rc" = 1 ]
	check_err $? "--revert with no room for the breach exited $rc: $out"
	grep -q "trace instance $INST holds a frozen breach and saving its trace in .* failed; nothing reverted" <<<"$out"
	check_err $? "--revert does not say why it reverted nothing: $out"
	[ -d "$I" ] && [ "$(cat "$I/tracing_on")" = 0 ] && grep -q '\[mono\]' "$I/trace_clock" &&
		grep -q RANT_BREACH "$I/trace"
	check_err $? "--revert touched the instance holding the breach"
	[ "$(md5sum <"$SD/journal")" = "$sum" ] && [ -z "$(find "$SD" -name 'breach-*')" ]
	check_err $? "--revert changed the journal or left a partial copy"
	rm -f "$fs/fill"
	out=$("$CONFIG" "$IF" --revert --state-dir "$STATE" 2>&1)
	check_err $? "--revert with room again failed: $out (the trace to save: $(wc -c <"$I/trace" 2>&1) bytes, room: $(df -k --output=avail "$fs" | tail -n 1) KiB)"
	[ ! -d "$I" ] && grep -q RANT_BREACH "$SD"/breach-*/trace 2>/dev/null
	check_err $? "--revert with room again did not save the breach and delete the instance: $out"
	log_test "config.sh --revert with no room to save a frozen breach reverts nothing, then saves it"
}

config_ipv6_no_namespace() {
	config_setup
	local out args6
	dump_all "$WORK/before"
	args6=("$IF" --ip "$IP6_A" --remote-ip "$IP6_B" --cpu "$APP_CPU" --irq-cpu 0
		--no-namespace --no-ptp --state-dir "$STATE")
	out=$("$CONFIG" "${args6[@]}" 2>&1)
	check_err $? "IPv6 apply failed: $out"
	grep -q '^net_ipv6 *already set *(disable_ipv6 0)' <<<"$out"
	check_err $? "IPv6 left on only when the addresses are IPv6"
	ip link show dev "$IF" >/dev/null 2>&1
	check_err $? "--no-namespace moved the interface"
	"$CONFIG" "${args6[@]}" --verify >/dev/null 2>&1
	check_err $? "IPv6 --verify failed"
	"$CONFIG" "$IF" --revert --state-dir "$STATE" >/dev/null 2>&1
	check_err $? "IPv6 --revert failed"
	dump_all "$WORK/after6"
	same_state "$WORK/before" "$WORK/after6"
	check_err $? "IPv6 --revert left the machine changed"
	log_test "config.sh IPv6 with --no-namespace: apply, verify, revert"
}

# bad NAME CMD...: CMD exits 1 with exactly one line, on stderr.
bad() {
	local name=$1 out err rc
	shift
	out=$("$@" 2>"$WORK/err")
	rc=$?
	err=$(cat "$WORK/err")
	if [ "$rc" -ne 1 ] || [ -n "$out" ] || [ "$(wc -l <"$WORK/err")" -ne 1 ]; then
		check_err 1 "$name: exit $rc, stdout '$out', stderr '$err'"
	fi
}

config_bad_input() {
	config_setup
	local base d f t
	dump_all "$WORK/bad0"
	base=("$IF" --ip "$IP_A" --remote-ip "$IP_B" --cpu "$APP_CPU" --irq-cpu "$APP_CPU" --state-dir "$STATE")
	bad "not root" setpriv --reuid=65534 --regid=65534 --clear-groups bash "$CONFIG" "${base[@]}"
	bad "unknown interface" "$CONFIG" "nosuch$UNIQ" "${base[@]:1}"
	bad "CPU that does not exist" "$CONFIG" "$IF" --ip "$IP_A" --remote-ip "$IP_B" --cpu 4095 --irq-cpu 0 --state-dir "$STATE"
	bad "IRQ CPU that does not exist" "$CONFIG" "$IF" --ip "$IP_A" --remote-ip "$IP_B" --cpu 0 --irq-cpu 4095 --state-dir "$STATE"
	bad "CPU not a number" "$CONFIG" "$IF" --ip "$IP_A" --remote-ip "$IP_B" --cpu one --irq-cpu 0 --state-dir "$STATE"
	bad "unknown option" "$CONFIG" "${base[@]}" --bogus
	bad "option without value" "$CONFIG" "${base[@]}" --cpu
	bad "missing --ip" "$CONFIG" "$IF" --remote-ip "$IP_B" --cpu 0 --irq-cpu 0 --state-dir "$STATE"
	bad "no interface" "$CONFIG" --ip "$IP_A" --remote-ip "$IP_B" --cpu 0 --irq-cpu 0
	bad "bad IPv4" "$CONFIG" "$IF" --ip 10.78.0.300 --remote-ip "$IP_B" --cpu 0 --irq-cpu 0 --state-dir "$STATE"
	bad "bad IPv6" "$CONFIG" "$IF" --ip fd78::1::2 --remote-ip fd78::2 --cpu 0 --irq-cpu 0 --state-dir "$STATE"
	bad "mixed families" "$CONFIG" "$IF" --ip "$IP6_A" --remote-ip "$IP_B" --cpu 0 --irq-cpu 0 --state-dir "$STATE"
	bad "bad MAC" "$CONFIG" "${base[@]}" --remote-mac 02:00:00:00:00
	bad "priority out of range" "$CONFIG" "${base[@]}" --irq-prio 100
	bad "busy poll not a number" "$CONFIG" "${base[@]}" --busy-poll abc
	grep -q -- '--busy-poll abc: not a number' "$WORK/err" || check_err 1 "--busy-poll abc: $(cat "$WORK/err")"
	bad "two modes" "$CONFIG" "${base[@]}" --verify --revert
	bad "two interfaces" "$CONFIG" "${base[@]}" eth9
	bad "--force without --revert" "$CONFIG" "${base[@]}" --force

	# A PATH holding every command but one.
	mkdir "$WORK/bin"
	for d in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
		[ -d "$d" ] || continue
		for f in "$d"/*; do
			[ -x "$f" ] && [ ! -e "$WORK/bin/${f##*/}" ] && ln -s "$f" "$WORK/bin/${f##*/}"
		done
	done
	for t in ethtool tuna phc2sys setpci jq ip; do
		mv "$WORK/bin/$t" "$WORK/hidden"
		bad "missing $t" env PATH="$WORK/bin" bash "$CONFIG" "${base[@]}"
		grep -q "$t not found" "$WORK/err" || check_err 1 "missing $t: message does not name it: $(cat "$WORK/err")"
		mv "$WORK/hidden" "$WORK/bin/$t"
	done
	dump_all "$WORK/bad1"
	same_state "$WORK/bad0" "$WORK/bad1"
	check_err $? "bad input changed the machine"
	[ ! -e "$SD" ]
	check_err $? "bad input created the state directory"
	log_test "config.sh bad input: exit 1, one line, nothing changed"
}

# Under ip netns exec (a network namespace of the test's own, and ip's
# private mount namespace): the interface stays in that namespace and is
# tuned there; nothing config.sh made dies when it exits; --verify and
# --revert from there report what is so.
config_netns_exec() {
	config_setup
	local nx=rant-x-$UNIQ out rc args
	ip netns add "$nx" || skip_test "cannot create a network namespace"
	defer ip netns del "$nx"
	ip link set "$IF" netns "$nx"
	ip -n "$nx" addr add "$IP_A/24" dev "$IF"
	ip -n "$nx" link set "$IF" up
	args=("$IF" --ip "$IP_A" --remote-ip "$IP_B" --cpu 0 --irq-cpu 1 --no-ptp
		--keep-rt-throttle --state-dir "$STATE")
	# runs first: a revert from where the apply ran
	defer ip netns exec "$nx" "$CONFIG" "$IF" --revert --force --state-dir "$STATE"
	ip -n "$nx" -j addr show dev "$IF" | jq -c '[.[0].addr_info[] | .local]' >"$WORK/addrs0"
	out=$(ip netns exec "$nx" "$CONFIG" "${args[@]}" 2>&1)
	rc=$?
	[ "$rc" = 0 ] && grep -q "^net_namespace  *skipped  *(config.sh runs inside network namespace $nx" <<<"$out"
	check_err $? "apply under ip netns exec $nx: exit $rc, $(grep '^net_namespace' <<<"$out")"
	ip -n "$nx" link show dev "$IF" >/dev/null 2>&1
	check_err $? "$IF is gone from $nx once config.sh exited: $(grep -E '^(net_|failed)' <<<"$out" | head -n 3)"
	! ip netns list | awk '{print $1}' | grep -qxF "ns_$IF"
	check_err $? "ip netns list names ns_$IF, a namespace that died with config.sh"
	log_test "config.sh under ip netns exec: the interface stays in its namespace"

	out=$(ip netns exec "$nx" "$CONFIG" "${args[@]}" --verify 2>&1)
	check_err $? "--verify under ip netns exec: $(steps_with "$out" "not set" failed | tr '\n' ' ') $(grep -i 'invalid' <<<"$out")"
	log_test "config.sh --verify under ip netns exec passes after apply"

	out=$(ip netns exec "$nx" "$CONFIG" "$IF" --revert --state-dir "$STATE" 2>&1)
	rc=$?
	[ "$rc" = 0 ] && [ -z "$(steps_with "$out" failed)" ]
	check_err $? "--revert under ip netns exec: exit $rc, failed: $(steps_with "$out" failed | tr '\n' ' ')"
	ip -n "$nx" -j addr show dev "$IF" 2>/dev/null | jq -c '[.[0].addr_info[] | .local]' >"$WORK/addrs1"
	cmp -s "$WORK/addrs0" "$WORK/addrs1" && [ ! -e "$SD/journal" ]
	check_err $? "after --revert: addresses $(cat "$WORK/addrs1") (before $(cat "$WORK/addrs0")), journal $(ls "$SD" 2>&1)"
	log_test "config.sh --revert under ip netns exec restores, and says so"
}

# A mount namespace of its own in the initial network namespace: a
# namespace made there would die with it; apply refuses in one line.
config_mount_ns() {
	config_setup
	bad "apply in a mount namespace of its own" unshare -m --propagation slave \
		"$CONFIG" "$IF" --ip "$IP_A" --remote-ip "$IP_B" --cpu 0 --irq-cpu 1 --no-ptp \
		--keep-rt-throttle --state-dir "$STATE"
	grep -q "mount namespace of its own.*--no-namespace" "$WORK/err"
	check_err $? "the refusal does not say why or what to do: $(cat "$WORK/err")"
	ip link show dev "$IF" >/dev/null 2>&1 && [ ! -e "$SD" ]
	check_err $? "$IF left this namespace or a state directory was made"
	log_test "config.sh in a mount namespace of its own refuses to make a namespace"
}

# Three applies with --trace, tracefs unmounted between them (so each
# journals that it mounted it), then one --revert: the instance is gone.
# In a mount namespace of the test's own: the machine's tracefs mount stays.
config_trace_applies() {
	config_setup
	local n rc
	cat >"$WORK/applies.sh" <<'EOF'
set -u
config=$1 w=$2 state=$3
shift 3
umount /sys/kernel/tracing 2>/dev/null
for n in 1 2 3; do
	"$config" "$@" >"$w/apply$n.out" 2>&1
	echo $? >"$w/apply$n.rc"
	umount /sys/kernel/tracing
done
"$config" "$1" --revert --state-dir "$state" >"$w/revert.out" 2>&1
echo $? >"$w/revert.rc"
EOF
	unshare -m --propagation private bash "$WORK/applies.sh" "$CONFIG" "$WORK" "$STATE" \
		"$IF" --ip "$IP_A" --remote-ip "$IP_B" --cpu 0 --irq-cpu 1 --no-namespace --no-ptp \
		--keep-rt-throttle --trace --trace-instance "$INST" --state-dir "$STATE"
	for n in 1 2 3; do
		rc=$(cat "$WORK/apply$n.rc" 2>/dev/null)
		[ "$rc" = 0 ] || check_err 1 "apply $n exited ${rc:-?}: $(cat "$WORK/apply$n.out" 2>/dev/null)"
	done
	rc=$(cat "$WORK/revert.rc" 2>/dev/null)
	[ "$rc" = 0 ] && grep -q '^trace_instance  *restored' "$WORK/revert.out"
	check_err $? "--revert exited ${rc:-?}: $(cat "$WORK/revert.out" 2>/dev/null)"
	[ ! -d "$TRACEFS/instances/$INST" ]
	check_err $? "--revert left trace instance $INST: $(grep '^trace_instance' "$WORK/revert.out")"
	log_test "config.sh --revert after three applies with --trace removes the instance"
}

# Two sides on one machine (an emitter's interface and a reflector's, each
# with its own CPU and state directory under one --state-dir): the second
# refuses the first side's trace instance in one line, and with its own
# instance leaves the first side's cpumask and isolated CPU as they are.
config_two_sides() {
	config_setup
	local if2=rd$UNIQ p2=re$UNIQ inst2=rant-test2-$UNIQ out rc a b
	ip link add "$if2" type veth peer name "$p2" netns "$NS_B" || skip_test "cannot create veth"
	defer ip link del "$if2"
	ip addr add 10.78.1.1/24 dev "$if2"
	ip link set "$if2" up
	defer rmdir "$TRACEFS/instances/$inst2"
	defer "$CONFIG" "$if2" --revert --force --state-dir "$STATE"
	a=("$IF" --ip "$IP_A" --remote-ip "$IP_B" --cpu "$APP_CPU" --irq-cpu "$APP_CPU"
		--no-namespace --no-ptp --keep-rt-throttle --trace --trace-instance "$INST"
		--state-dir "$STATE")
	b=("$if2" --ip 10.78.1.1 --remote-ip 10.78.1.2 --cpu 0 --irq-cpu 0 --no-namespace
		--no-ptp --keep-rt-throttle --trace --state-dir "$STATE")
	dump_all "$WORK/before"
	out=$("$CONFIG" "${a[@]}" 2>&1)
	check_err $? "side A apply failed: $out"
	grep -q '^cpu_isolate  *applied' <<<"$out"
	check_err $? "side A did not isolate CPU $APP_CPU: $(grep '^cpu_isolate' <<<"$out")"
	dump_threads "$WORK/a.threads"
	out=$("$CONFIG" "${b[@]}" --trace-instance "$INST" 2>"$WORK/err")
	rc=$?
	# (besides the warning that side B has one CPU for both)
	grep -v -- '--cpu 0 and --irq-cpu 0: one CPU for both' "$WORK/err" >"$WORK/err1"
	[ "$rc" = 1 ] && [ -z "$out" ] && [ "$(wc -l <"$WORK/err1")" = 1 ] &&
		grep -q "trace instance $INST is configured for $IF by config.sh ($SD)" "$WORK/err1"
	check_err $? "side B on side A's instance: exit $rc, stdout '$out', stderr '$(cat "$WORK/err1")'"
	[ ! -e "$STATE/$if2" ]
	check_err $? "side B's refusal made a state directory"
	[ "$((16#$(tr -d , <"$TRACEFS/instances/$INST/tracing_cpumask")))" = "$((1 << APP_CPU))" ]
	check_err $? "side A's tracing_cpumask is $(cat "$TRACEFS/instances/$INST/tracing_cpumask")"
	log_test "config.sh second side: refuses the first side's trace instance in one line"

	out=$("$CONFIG" "${b[@]}" --trace-instance "$inst2" 2>&1)
	rc=$?
	check_err $rc "side B apply with its own instance exited $rc: $out"
	grep -q "^cpu_isolate  *unsupported here  *(config.sh isolates CPU $APP_CPU for $IF" <<<"$out"
	check_err $? "side B's cpu_isolate does not name side A: $(grep '^cpu_isolate' <<<"$out")"
	dump_threads "$WORK/b.threads"
	# affinities only: side B's ksoftirqd/0 is SCHED_FIFO now, as it should be
	out=$(LC_ALL=C join "$WORK/a.threads" "$WORK/b.threads" | awk '$2 != $5' | head -n 5)
	[ -z "$out" ]
	check_err $? "side B's apply moved threads (tid:start cpus policy prio, before then after): $out"
	[ "$((16#$(tr -d , <"$TRACEFS/instances/$INST/tracing_cpumask")))" = "$((1 << APP_CPU))" ] &&
		[ "$((16#$(tr -d , <"$TRACEFS/instances/$inst2/tracing_cpumask")))" = 1 ]
	check_err $? "cpumasks: $INST $(cat "$TRACEFS/instances/$INST/tracing_cpumask"), $inst2 $(cat "$TRACEFS/instances/$inst2/tracing_cpumask" 2>&1)"
	log_test "config.sh second side: leaves the first side's CPU and cpumask alone"

	out=$("$CONFIG" "$if2" --revert --state-dir "$STATE" 2>&1)
	check_err $? "side B --revert failed: $out"
	out=$("$CONFIG" "$IF" --revert --state-dir "$STATE" 2>&1)
	check_err $? "side A --revert failed: $out"
	dump_all "$WORK/after"
	same_state "$WORK/before" "$WORK/after"
	check_err $? "the two reverts left the machine changed"
	[ ! -d "$TRACEFS/instances/$inst2" ] && [ ! -d "$TRACEFS/instances/$INST" ]
	check_err $? "a trace instance was left"
	log_test "config.sh two sides: each revert puts back its own, the machine as it was"
}

tests_run
