#!/usr/bin/env bash
# config.sh on a veth pair of the test's own: --dry-run changes nothing,
# apply then --verify passes, a second apply changes nothing, --revert puts
# every value back (compared value by value, threads and IRQs included),
# bad input exits 1 with one line, --trace creates and removes its instance.
# The tuned end lives in this namespace, as on a real host; its peer in a
# namespace of its own.

# shellcheck source=tests/net/lib.sh
source "$(dirname "$0")/lib.sh"

CONFIG=$TOP/config.sh
require_root
require_cmd ip tc ethtool jq tuna setpci phc2sys chrt taskset flock setpriv
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs: one to isolate, one for everything else"

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
APP_CPU=$(($(nproc) - 1))

# Cleanup, last deferred first: revert, then the namespaces and links.
ip netns add "$NS_B" || exit 1
defer ip netns del "$NS_B"
ip link add "$IF" type veth peer name "$PEER" netns "$NS_B" || exit 1
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

TRACEFS=$(awk '$3 == "tracefs" {print $2; exit}' /proc/mounts)
if [ -z "$TRACEFS" ]; then
	mount -t tracefs nodev /sys/kernel/tracing || skip "cannot mount tracefs"
	TRACEFS=/sys/kernel/tracing
	defer umount /sys/kernel/tracing
fi
defer rmdir "$TRACEFS/instances/$INST"
defer "$CONFIG" "$IF" --revert --state-dir "$STATE"

ARGS=("$IF" --ip "$IP_A" --remote-ip "$IP_B" --cpu "$APP_CPU" --irq-cpu "$APP_CPU"
	--remote-mac "$MAC_B" --busy-poll 50 --trace --trace-instance "$INST"
	--trace-buffer-kb 2048 --state-dir "$STATE")
STEPS=(net_namespace net_address net_link nic_channels nic_offloads nic_coalesce
	nic_rings nic_pause nic_privflags nic_napi net_busy_poll net_neigh net_ipv6
	net_multicast net_arp net_qdisc cpu_isolate irq_affinity irq_threads
	cpu_ksoftirqd pci_aspm ptp_phc2sys trace_instance trace_buffer trace_cpumask
	trace_events trace_snapshot)

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
		for f in net.core.busy_poll net.core.busy_read; do
			echo "$f=$(cat "/proc/sys/${f//.//}")"
		done
		echo "default_smp_affinity=$(cat /proc/irq/default_smp_affinity)"
		for f in /proc/irq/[0-9]*/smp_affinity_list; do
			echo "irq ${f#/proc/irq/} $(cat "$f")"
		done
		# only what is ours: other tests may run beside this one
		[ ! -d "$TRACEFS/instances/$INST" ] || echo "trace instance $INST"
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
	dump_threads "$1.threads" || RET=1
}

# same_state A B: the dumps agree; threads are compared where they exist in
# both (others come and go). Prints what differs.
same_state() {
	local rc=0 d
	diff -u "$1.iface" "$2.iface" | sed 's/^/    /' && true
	diff -q "$1.iface" "$2.iface" >/dev/null || rc=1
	if ! diff -u "$1.sys" "$2.sys" >/dev/null; then
		diff -u "$1.sys" "$2.sys" | sed 's/^/    /'
		rc=1
	fi
	d=$(LC_ALL=C join "$1.threads" "$2.threads" | awk '$2 != $5 || $3 != $6 || $4 != $7')
	if [ -n "$d" ]; then
		echo "    threads changed (tid:start cpus policy prio, before then after):"
		head -n 20 <<<"$d" | sed 's/^/      /'
		rc=1
	fi
	return "$rc"
}

# Steps whose line has one of the statuses given.
steps_with() {
	local out=$1
	shift
	local re
	re=$(printf '%s|' "$@")
	awk -v re="^(${re%|})" '{ s = substr($0, 17, 16); sub(/ +$/, "", s); if (s ~ re) print $1 }' <<<"$out"
}

# --- dry run ---------------------------------------------------------------

dump_all "$WORK/before"
out=$("$CONFIG" "${ARGS[@]}" --dry-run 2>&1)
check_err $? "--dry-run failed: $out"
for s in "${STEPS[@]}"; do
	[ "$(grep -c "^$s " <<<"$out")" = 1 ] || check_err 1 "--dry-run: no line (or more than one) for step $s"
done
grep -q '^    + ip .*netns' <<<"$out"
check_err $? "--dry-run printed no commands"
grep -q '^    + tuna --cpus=' <<<"$out"
check_err $? "--dry-run does not show the tuna command"
dump_all "$WORK/dry"
same_state "$WORK/before" "$WORK/dry"
check_err $? "--dry-run changed the machine"
[ ! -e "$SD" ]
check_err $? "--dry-run created the state directory"
log_test "config.sh --dry-run lists every step and changes nothing"

# --- apply -----------------------------------------------------------------

out=$("$CONFIG" "${ARGS[@]}" 2>&1)
rc=$?
check_err $rc "apply exited $rc: $out"
f=$(steps_with "$out" failed)
[ -z "$f" ]
check_err $? "steps failed on veth: $f"
[ "$(steps_with "$out" applied | wc -l)" -ge 8 ]
check_err $? "fewer steps applied than expected: $out"
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

N="ip netns exec ns_$IF"
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
[ "$(taskset -pc $$ | awk '{print $NF}')" != "$APP_CPU" ] &&
	! taskset -pc $$ | awk '{print $NF}' | grep -qw "$APP_CPU"
check_err $? "the test's shell may still run on the isolated CPU $APP_CPU"
log_test "config.sh apply: namespace, address, offloads, IPv6, ARP, neighbour, qdisc, busy poll, isolation, ksoftirqd"

if command -v ping >/dev/null; then
	ip -n "$NS_B" neigh replace "$IP_A" lladdr "$MAC_A" dev "$PEER" nud permanent
	$N ping -c 1 -W 2 "$IP_B" >/dev/null 2>&1
	check_err $? "no ping from the tuned interface to the peer"
	log_test "config.sh: the tuned interface still reaches its peer"
fi

# --- trace -----------------------------------------------------------------

I=$TRACEFS/instances/$INST
[ -d "$I" ]
check_err $? "no trace instance $I"
kb=$(awk '{print $1; exit}' "$I/buffer_size_kb" 2>/dev/null)
# the kernel rounds up to whole pages
[ "${kb:-0}" -ge 2048 ] && [ "$kb" -le 2112 ]
check_err $? "buffer_size_kb is $kb, not about 2048"
[ "$((16#$(tr -d , <"$I/tracing_cpumask")))" = "$((1 << APP_CPU))" ]
check_err $? "tracing_cpumask is not CPU $APP_CPU: $(cat "$I/tracing_cpumask")"
for e in sched/sched_switch irq/softirq_entry irq/irq_handler_entry net/netif_receive_skb napi/napi_poll; do
	[ ! -e "$TRACEFS/events/$e" ] || [ "$(cat "$I/events/$e/enable")" = 1 ] || check_err 1 "event $e not enabled"
done
if [ -e "$I/snapshot" ]; then
	grep -q '^trace_snapshot  *already set' <<<"$apply_out"
else
	grep -q '^trace_snapshot  *unsupported here (kernel built without CONFIG_TRACER_SNAPSHOT' <<<"$apply_out"
fi
check_err $? "trace_snapshot does not say whether the kernel has a snapshot"
log_test "config.sh --trace: instance, buffer, cpumask, events, snapshot status"

# --- verify, second apply ----------------------------------------------------

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

# --- revert ----------------------------------------------------------------

out=$("$CONFIG" "$IF" --revert --state-dir "$STATE" 2>&1)
rc=$?
check_err $rc "--revert exited $rc: $out"
dump_all "$WORK/after"
same_state "$WORK/before" "$WORK/after"
check_err $? "--revert left the machine changed"
[ ! -e "$SD/journal" ]
check_err $? "--revert left a journal"
[ ! -d "$TRACEFS/instances/$INST" ]
check_err $? "--revert left the trace instance"
log_test "config.sh --revert restores features, sysctls, link, namespace, addresses, IRQs, threads"

out=$("$CONFIG" "${ARGS[@]}" --verify 2>&1)
check_fail $? "--verify passes on an untuned interface"
grep -q '^net_namespace *not set' <<<"$out"
check_err $? "--verify does not name what is missing"
log_test "config.sh --verify fails on an untuned interface"

out=$("$CONFIG" "$IF" --revert --state-dir "$STATE" 2>&1)
check_err $? "a second --revert fails"
log_test "config.sh --revert with nothing saved is a no-op"

# --- IPv6, no namespace ------------------------------------------------------

ARGS6=("$IF" --ip "$IP6_A" --remote-ip "$IP6_B" --cpu "$APP_CPU" --irq-cpu 0
	--no-namespace --no-ptp --state-dir "$STATE")
out=$("$CONFIG" "${ARGS6[@]}" 2>&1)
check_err $? "IPv6 apply failed: $out"
grep -q '^net_ipv6 *already set *(disable_ipv6 0)' <<<"$out"
check_err $? "IPv6 left on only when the addresses are IPv6"
ip link show dev "$IF" >/dev/null 2>&1
check_err $? "--no-namespace moved the interface"
"$CONFIG" "${ARGS6[@]}" --verify >/dev/null 2>&1
check_err $? "IPv6 --verify failed"
"$CONFIG" "$IF" --revert --state-dir "$STATE" >/dev/null 2>&1
check_err $? "IPv6 --revert failed"
dump_all "$WORK/after6"
same_state "$WORK/before" "$WORK/after6"
check_err $? "IPv6 --revert left the machine changed"
log_test "config.sh IPv6 with --no-namespace: apply, verify, revert"

# --- bad input ---------------------------------------------------------------

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
bad "two modes" "$CONFIG" "${base[@]}" --verify --revert
bad "two interfaces" "$CONFIG" "${base[@]}" eth9

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

finish
