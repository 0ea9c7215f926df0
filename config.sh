#!/usr/bin/env bash
# config.sh: tune a NIC, its IRQs and the CPUs for a rant latency test;
# show what it would do (--dry-run), check it (--verify) and put every value
# back (--revert). See config.sh --help and doc/config.md.
#
# config.sh keeps the command line, discovery and the STEPS table, which
# names every step in run order. Each step is a function of that name in
# lib/steps/<family>.sh (net, nic, cpu, irq, pci, ptp, trace: the step
# bodies and the helpers that restore what they change); the machinery
# (change, the journal, step_end, dry run, revert) and the helpers the
# families share are lib/config-lib.sh. Both are found beside this script's
# real path (make install puts them under share/rant/lib).
# Most functions are reached indirectly: from the step table, through
# change() and from the journal that --revert evaluates.
# shellcheck disable=SC2317
# shellcheck disable=SC2016  # sh -c scripts expand their own $1 $2
set -euo pipefail

PROG=${0##*/}

# config_lib_dir: the directory that holds config-lib.sh and steps/.
config_lib_dir() {
	local here
	here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
	if [ ! -r "$here/lib/config-lib.sh" ] || [ ! -r "$here/lib/steps/trace.sh" ]; then
		printf '%s: %s\n' "$PROG" "$here/lib/config-lib.sh or $here/lib/steps/ is missing: install rant with make install, or run config.sh from its source tree" >&2
		return 1
	fi
	echo "$here/lib"
}
CONFIG_LIB_DIR=$(config_lib_dir) || exit 1
# shellcheck source=lib/config-lib.sh
source "$CONFIG_LIB_DIR/config-lib.sh"
# shellcheck source=lib/steps/net.sh
source "$CONFIG_LIB_DIR/steps/net.sh"
# shellcheck source=lib/steps/nic.sh
source "$CONFIG_LIB_DIR/steps/nic.sh"
# shellcheck source=lib/steps/cpu.sh
source "$CONFIG_LIB_DIR/steps/cpu.sh"
# shellcheck source=lib/steps/irq.sh
source "$CONFIG_LIB_DIR/steps/irq.sh"
# shellcheck source=lib/steps/pci.sh
source "$CONFIG_LIB_DIR/steps/pci.sh"
# shellcheck source=lib/steps/ptp.sh
source "$CONFIG_LIB_DIR/steps/ptp.sh"
# shellcheck source=lib/steps/trace.sh
source "$CONFIG_LIB_DIR/steps/trace.sh"

# The steps, in run order ("name|description"); --revert undoes them in
# reverse. The usage text, --list-steps and doc/config.md's table follow it.
# shellcheck disable=SC2034  # read by lib/config-lib.sh
STEPS=(
	"net_namespace|create ns_<iface>, move the interface into it (not when config.sh runs inside another network namespace: ip netns exec)"
	"net_address|add --ip to the interface"
	"net_link|link up"
	"nic_channels|one combined channel (or one RX and one TX queue)"
	"nic_offloads|RX/TX checksum offload, GRO, LRO, TSO off"
	"nic_coalesce|adaptive-rx off, rx-usecs 0, rx-frames 1"
	"nic_rings|RX/TX rings 512 (capped at the maximum)"
	"nic_pause|pause frames off (autoneg, rx, tx)"
	"nic_privflags|mlx5: rx_cqe_compress, rx_striding_rq off; ice: fw-lldp-agent off"
	"nic_napi|napi_defer_hard_irqs 0, gro_flush_timeout 0"
	"net_busy_poll|net.core.busy_poll and busy_read (only with --busy-poll)"
	"net_ipv6|IPv6 off on the interface unless the addresses are IPv6"
	"net_multicast|multicast off"
	"net_arp|ARP/NDP off (only with --remote-mac)"
	"net_neigh|permanent neighbour entry for --remote-ip (--remote-mac)"
	"net_qdisc|noqueue root qdisc"
	"cpu_isolate|tuna --isolate the app and IRQ CPUs (all thread and IRQ affinities saved first and restored by --revert); not beside another side's isolation"
	"irq_affinity|the interface's IRQs to --irq-cpu, read back"
	"irq_threads|the interface's IRQ threads SCHED_FIFO --irq-prio"
	"cpu_ksoftirqd|ksoftirqd on the app and IRQ CPUs SCHED_FIFO --ksoftirqd-prio"
	"cpu_rt_throttle|kernel.sched_rt_runtime_us -1: no RT throttling (--keep-rt-throttle skips it)"
	"pci_aspm|PCIe ASPM off on the device and its upstream port (setpci), read back"
	"ptp_phc2sys|start config.sh's own phc2sys (pid file in the state dir)"
	"trace_instance|(--trace) tracefs instance <name>"
	"trace_buffer|(--trace) buffer_size_kb"
	"trace_clock|(--trace) trace_clock mono, the clock rant stamps its markers in"
	"trace_cpumask|(--trace) tracing_cpumask = app and IRQ CPUs"
	"trace_events|(--trace) irq, irq_vectors, napi, net events, sched_switch, sched_wakeup"
	"trace_snapshot|(--trace) the snapshot buffer rant -S takes, where the kernel has one"
)

# Options (defaults).
IFACE=
IP=
REMOTE_IP=
CPU=
IRQ_CPU=
REMOTE_MAC=
BUSY_POLL=
PTP_SOURCE=
PTP_SYNC_TO=
NO_NS=0
NO_PTP=0
KEEP_RT=0
FORCE=0
IRQ_PRIO=55
KSIRQ_PRIO=11
MODE=apply
REVERT_DRY=0
STATE_DIR=/run/rant
TRACE=0
TRACE_INSTANCE=rant
TRACE_BUF_KB=4096
RING_SIZE=512

# Discovered or derived.
NS_NAME=    # the namespace the interface is moved to, ns_<iface>
CUR_NS=     # where the interface is now ("" = this namespace)
TGT_NS=     # where changes are made (differs from CUR_NS only in a dry run)
MOVE_PENDING=0
NS_INSIDE=  # the network namespace config.sh runs in, when not the initial one
SD=         # per-interface state directory
JOURNAL=
FAMILY=4
IP_ADDR=
IP_PFX=
DRIVER=
KIND=       # rtnetlink kind (veth, ...) or "" for a physical device
PCI_ADDR=
PHC=
IRQS=()
ISO_CPUS=() # app CPU and IRQ CPU, unique
TRACEFS=
TRACEFS_TEMP=0
TRACE_INST_NEW=0 # the trace instance is (or, in a dry run, would be) config.sh's

usage() {
	cat <<EOF
Usage: $PROG <interface> --ip <addr[/len]> --remote-ip <addr> --cpu <n> --irq-cpu <n> [options]
       $PROG <interface> --revert [--dry-run] [--force] [--state-dir DIR]
       $PROG --list-steps

Tune <interface> and the CPUs for a low-latency rant test. Each step prints
one line: applied, already set, unsupported here (reason), skipped (reason)
or failed (reason); a summary table follows. Every value changed is saved
under <state-dir>/<interface>/ first, so --revert restores it exactly.

Modes:
  (none)                apply the tuning
  --dry-run             print every command it would run; change nothing
                        (with --revert: the restoring commands)
  --verify              report item by item whether the tuning is in place;
                        exit 0 only if it is
  --revert              restore every saved value, step by step in reverse;
                        a step is "restored" only when read back
  --force               with --revert: delete a trace instance that holds a
                        frozen breach without saving its trace first
  --state-dir DIR       where saved values live (default /run/rant); the two
                        sides of a pair on one machine share it, and a
                        second side is refused the first side's trace
                        instance and isolated CPUs
  --list-steps          print the steps in run order and exit

Required (apply, --dry-run, --verify):
  --ip ADDR[/LEN]       this end's address (IPv4 /24 or IPv6 /64 by default)
  --remote-ip ADDR      the peer's address (same family)
  --cpu N               the CPU the application runs on
  --irq-cpu N           the CPU the interface's IRQs are steered to (the same
                        as --cpu only with busy polling; a warning says so)

Options:
  --remote-mac MAC      the peer's MAC: static neighbour entry, ARP off
  --busy-poll USEC      also set net.core.busy_poll/busy_read to USEC
  --ptp-source CLOCK    phc2sys source clock (default: the interface's PHC)
  --ptp-sync-to IFACE   sync IFACE's PHC to this interface's PHC (second port)
                        instead of the system clock to the PHC
  --no-namespace        leave the interface in this network namespace
  --no-ptp              do not start phc2sys
  --keep-rt-throttle    leave kernel.sched_rt_runtime_us as it is
  --irq-prio N          SCHED_FIFO priority of the IRQ threads (default 55)
  --ksoftirqd-prio N    SCHED_FIFO priority of ksoftirqd on the app and IRQ
                        CPUs (default 11)
  --trace               create and configure the ftrace instance
  --trace-instance NAME ftrace instance name (default rant)
  --trace-buffer-kb KB  per-CPU trace buffer size (default 4096)
  -h, --help            this text

Steps (in order; --revert undoes them in reverse):
$(steps_usage)

Run inside a network namespace (ip netns exec NS $PROG ...), the interface
stays in NS and is tuned there; in a mount namespace of its own but the
initial network namespace (unshare -m), apply refuses.

Exit status: 0 done (or, with --verify, everything in place); 1 bad input,
nothing changed; 2 a step failed or (--verify) something is not in place.
Needs root and ip, tc, ethtool, jq, tuna, setpci, phc2sys (sudo make deps).
EOF
}

# show_cmd_hook CMD...: config.sh's helpers as the user would type them.
show_cmd_hook() {
	local pre=''
	case $1 in
	inns | wfile)
		[ -z "$2" ] || pre="ip netns exec $2 "
		if [ "$1" = wfile ]; then
			printf '%secho %q > %q' "$pre" "$4" "$3"
			return 0
		fi
		shift 2
		printf '%s%s' "$pre" "$(qcmd "$@")"
		;;
	trace_write) printf 'echo %q > %q' "$3" "${TRACEFS:-/sys/kernel/tracing}/instances/$2" ;;
	sched_set) printf 'chrt -f -p %q %q' "$4" "$2" ;;
	irq_set) printf 'echo %q > /proc/irq/%q/smp_affinity_list' "$3" "$2" ;;
	gsysctl) printf 'sysctl -w %q=%q' "$2" "$3" ;;
	pci_aspm_set) printf 'setpci -s %q CAP_EXP+10.w=%04x:0003' "$2" "$3" ;;
	ptp_start) shift 3; printf 'phc2sys %s &' "$(qcmd "$@")" ;;
	*) return 1 ;;
	esac
}

# --- input ------------------------------------------------------------------

need_arg() {
	if [ "$#" -lt 2 ] || [ -z "$2" ]; then
		die "$1 needs a value (see $PROG --help)"
	fi
}

parse_args() {
	while [ "$#" -gt 0 ]; do
		case $1 in
		-h | --help)
			usage
			exit 0
			;;
		--list-steps)
			steps_list
			exit 0
			;;
		--ip) need_arg "$@"; IP=$2; shift ;;
		--remote-ip) need_arg "$@"; REMOTE_IP=$2; shift ;;
		--cpu) need_arg "$@"; CPU=$2; shift ;;
		--irq-cpu) need_arg "$@"; IRQ_CPU=$2; shift ;;
		--remote-mac) need_arg "$@"; REMOTE_MAC=$2; shift ;;
		--busy-poll) need_arg "$@"; BUSY_POLL=$2; shift ;;
		--ptp-source) need_arg "$@"; PTP_SOURCE=$2; shift ;;
		--ptp-sync-to) need_arg "$@"; PTP_SYNC_TO=$2; shift ;;
		--irq-prio) need_arg "$@"; IRQ_PRIO=$2; shift ;;
		--ksoftirqd-prio) need_arg "$@"; KSIRQ_PRIO=$2; shift ;;
		--state-dir) need_arg "$@"; STATE_DIR=$2; shift ;;
		--trace-instance) need_arg "$@"; TRACE_INSTANCE=$2; shift ;;
		--trace-buffer-kb) need_arg "$@"; TRACE_BUF_KB=$2; shift ;;
		--no-namespace) NO_NS=1 ;;
		--no-ptp) NO_PTP=1 ;;
		--trace) TRACE=1 ;;
		--keep-rt-throttle) KEEP_RT=1 ;;
		--force) FORCE=1 ;;
		--dry-run | --verify | --revert)
			mode_set "${1#--}"
			;;
		-*) die "unknown option $1 (see $PROG --help)" ;;
		*)
			[ -z "$IFACE" ] || die "unexpected argument $1: one interface only (see $PROG --help)"
			IFACE=$1
			;;
		esac
		shift
	done
}

# mode_set MODE: --dry-run, --verify and --revert exclude each other, but
# for --revert --dry-run (what --revert would restore).
mode_set() {
	case $MODE:$1 in
	apply:*) MODE=$1 ;;
	revert:dry-run) REVERT_DRY=1 ;;
	dry-run:revert) MODE=revert REVERT_DRY=1 ;;
	*) die "--$1: only one of --dry-run, --verify, --revert (--revert --dry-run shows a revert)" ;;
	esac
}

# valid_ip ADDR[/LEN]: prints the family (4 or 6).
valid_ip() {
	local a=${1%/*} len='' o
	[[ $1 == */* ]] && len=${1#*/}
	if [[ $a =~ ^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})$ ]]; then
		for o in "${BASH_REMATCH[@]:1}"; do
			[ $((10#$o)) -le 255 ] || return 1
		done
		[ -z "$len" ] || { [[ $len =~ ^[0-9]{1,2}$ ]] && [ "$len" -le 32 ]; } || return 1
		echo 4
	elif [[ $a == *:* ]] && [[ $a =~ ^[0-9a-fA-F:]+$ ]] && [[ $a != *:::* ]]; then
		local rest=${a//::/}
		[ "${#a}" -ne "${#rest}" ] && [[ ${a#*::} == *::* ]] && return 1
		local IFS=: g n=0
		for g in $a; do
			[ "${#g}" -le 4 ] || return 1
			n=$((n + 1))
		done
		[ "$n" -le 8 ] || return 1
		[[ $a == *::* ]] || [ "$n" -eq 8 ] || return 1
		[ -z "$len" ] || { [[ $len =~ ^[0-9]{1,3}$ ]] && [ "$len" -le 128 ]; } || return 1
		echo 6
	else
		return 1
	fi
}

valid_cpu() {
	local opt=$1 n=$2 online
	online=$(cat /sys/devices/system/cpu/online)
	[[ $n =~ ^[0-9]+$ ]] || die "$opt $n: not a CPU number (online CPUs: $online)"
	[[ " $(cpulist_expand "$online") " == *" $n "* ]] ||
		die "$opt $n: no such online CPU (online CPUs: $online)"
}

# valid_int OPT VALUE LO HI: VALUE is a decimal number from LO to HI.
valid_int() {
	local opt=$1 v=$2 lo=$3 hi=$4
	[[ $v =~ ^[0-9]+$ ]] || die "$opt $v: not a number (give a whole number from $lo to $hi)"
	if [ "${#v}" -gt 18 ] || [ "$((10#$v))" -lt "$lo" ] || [ "$((10#$v))" -gt "$hi" ]; then
		die "$opt $v: out of range, must be $lo to $hi"
	fi
}

tool_pkg() {
	case $1 in
	ip | tc) echo iproute2 ;; setpci) echo pciutils ;; phc2sys) echo linuxptp ;;
	chrt | taskset | flock) echo util-linux ;; *) echo "$1" ;;
	esac
}

check_input() {
	local t need
	[ -n "$IFACE" ] || die "no interface given (usage: $PROG <interface> --ip A --remote-ip B --cpu N --irq-cpu M)"
	[[ $IFACE =~ ^[A-Za-z0-9_.:@-]{1,15}$ ]] || die "$IFACE: not a valid interface name"
	if [ "$MODE" != revert ]; then
		for t in --ip --remote-ip --cpu --irq-cpu; do
			case $t in
			--ip) need=$IP ;; --remote-ip) need=$REMOTE_IP ;;
			--cpu) need=$CPU ;; --irq-cpu) need=$IRQ_CPU ;;
			esac
			[ -n "$need" ] || die "missing $t (usage: $PROG $IFACE --ip A --remote-ip B --cpu N --irq-cpu M)"
		done
		FAMILY=$(valid_ip "$IP") || die "--ip $IP: not an IPv4 or IPv6 address"
		local rf
		rf=$(valid_ip "$REMOTE_IP") || die "--remote-ip $REMOTE_IP: not an IPv4 or IPv6 address"
		[[ $REMOTE_IP != */* ]] || die "--remote-ip $REMOTE_IP: give the address without a prefix length"
		[ "$rf" = "$FAMILY" ] || die "--ip $IP and --remote-ip $REMOTE_IP: one is IPv4, the other IPv6; use the same family"
		IP_ADDR=${IP%/*}
		if [[ $IP == */* ]]; then IP_PFX=${IP#*/}; elif [ "$FAMILY" = 4 ]; then IP_PFX=24; else IP_PFX=64; fi
		[ -z "$REMOTE_MAC" ] || [[ $REMOTE_MAC =~ ^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$ ]] ||
			die "--remote-mac $REMOTE_MAC: not a MAC address (like 02:00:00:00:00:01)"
		REMOTE_MAC=${REMOTE_MAC,,}
		valid_int --irq-prio "$IRQ_PRIO" 1 99
		valid_int --ksoftirqd-prio "$KSIRQ_PRIO" 1 99
		[ -z "$BUSY_POLL" ] || valid_int --busy-poll "$BUSY_POLL" 0 1000000
		valid_int --trace-buffer-kb "$TRACE_BUF_KB" 1 4194304
		[[ $TRACE_INSTANCE =~ ^[A-Za-z0-9_.-]+$ ]] || die "--trace-instance $TRACE_INSTANCE: use letters, digits, _ . -"
	fi
	[ "$FORCE" = 0 ] || [ "$MODE" = revert ] || die "--force: only with --revert (it drops a frozen breach's trace)"
	[ "$KEEP_RT" = 0 ] || [ "$MODE" != revert ] || die "--keep-rt-throttle: not with --revert (revert restores what was changed)"
	[[ $STATE_DIR == /* ]] || die "--state-dir $STATE_DIR: give an absolute path"
	[ "$(id -u)" = 0 ] || die "must run as root (try: sudo $PROG ...)"
	local tools=(ip tc ethtool jq tuna setpci chrt taskset flock)
	[ "$NO_PTP" = 1 ] || [ "$MODE" = revert ] || tools+=(phc2sys)
	for t in "${tools[@]}"; do
		command -v "$t" >/dev/null 2>&1 ||
			die "$t not found in PATH; install it with: sudo make deps (Debian package $(tool_pkg "$t"))"
	done
	if [ "$MODE" != revert ]; then
		valid_cpu --cpu "$CPU"
		valid_cpu --irq-cpu "$IRQ_CPU"
		ISO_CPUS=("$CPU")
		[ "$IRQ_CPU" = "$CPU" ] || ISO_CPUS+=("$IRQ_CPU")
	fi
	NS_NAME=ns_$IFACE
	# Where is the interface? Here, or already in its namespace.
	if ip link show dev "$IFACE" >/dev/null 2>&1; then
		CUR_NS=
	elif ip netns list 2>/dev/null | awk '{print $1}' | grep -qxF "$NS_NAME" &&
		ip -n "$NS_NAME" link show dev "$IFACE" >/dev/null 2>&1; then
		CUR_NS=$NS_NAME
	elif [ "$MODE" = revert ] && [ -s "$STATE_DIR/$IFACE/journal" ]; then
		CUR_NS= # gone; revert still does what it can
	else
		die "$IFACE: no such interface (ip link lists: $(ip -o link show | awk -F': ' '{printf "%s ", $2}' | sed 's/@[^ ]*//g; s/ $//'))"
	fi
	if [ "$MODE" != revert ] && [ -n "$PTP_SYNC_TO" ]; then
		ip link show dev "$PTP_SYNC_TO" >/dev/null 2>&1 || die "--ptp-sync-to $PTP_SYNC_TO: no such interface"
	fi
	ns_where
	if [ "$NO_NS" = 1 ] || [ -n "$NS_INSIDE" ]; then TGT_NS=$CUR_NS; else TGT_NS=$NS_NAME; fi
	[ "$TGT_NS" = "$CUR_NS" ] || MOVE_PENDING=1
	SD=$STATE_DIR/$IFACE
	JOURNAL=$SD/journal
	if [ "$MODE" != revert ] && [ "$CPU" = "$IRQ_CPU" ]; then
		warn "--cpu $CPU and --irq-cpu $IRQ_CPU: one CPU for both; the NIC's interrupts and softirqs preempt the application there, which suits busy polling (--busy-poll, rant -p) only; give --irq-cpu another CPU otherwise"
	fi
}

# ns_where: where config.sh runs. Inside a network namespace other than the
# initial one (ip netns exec NS config.sh ...) the interface is already in a
# namespace: NS_INSIDE names it and net_namespace leaves the interface
# there. In the initial network namespace but a mount namespace of its own
# (unshare -m), a namespace config.sh made would live only as long as that
# mount namespace (ip netns add bind-mounts it under /run/netns there), and
# the interface moved into it would go with it: refuse.
ns_where() {
	NS_INSIDE=
	[ "$MODE" != revert ] && [ "$NO_NS" = 0 ] && [ "$CUR_NS" != "$NS_NAME" ] || return 0
	if ! ns_initial net; then
		NS_INSIDE=$(ip netns identify 2>/dev/null) || NS_INSIDE=
		NS_INSIDE="network namespace ${NS_INSIDE:-$(readlink /proc/self/ns/net)}"
	elif ! ns_initial mnt; then
		die "config.sh runs in a mount namespace of its own ($(readlink /proc/self/ns/mnt), unshare -m?): a network namespace made from here (ip netns add $NS_NAME) would die with it, and $IFACE with it; run config.sh from the initial mount namespace, or give --no-namespace"
	fi
}

# state_open: the state directory, root's only, locked against a second run.
state_open() {
	mkdir -p "$SD"
	chmod 700 "$SD"
	[ "$(stat -c %u "$SD")" = 0 ] || die "$SD: not owned by root; refusing to use it"
	exec 9>"$SD/lock"
	flock -n 9 || die "$SD: another $PROG is running on $IFACE"
	[ -e "$SD/netns" ] || readlink /proc/self/ns/net >"$SD/netns"
}

# --- discovery --------------------------------------------------------------

discover() {
	local dev d base
	KIND=$(rd ip -j -d link show dev "$IFACE" | jq -r '.[0].linkinfo.info_kind // ""')
	DRIVER=$(rd ethtool -i "$IFACE" 2>/dev/null | awk '/^driver:/ {print $2}') || true
	DRIVER=${DRIVER:-${KIND:-unknown}}
	dev=$(rd readlink -f "/sys/class/net/$IFACE/device" 2>/dev/null) || dev=
	PCI_ADDR=
	d=$dev
	while [ -n "$d" ] && [ "$d" != / ] && [ "$d" != /sys/devices ]; do
		base=${d##*/}
		if [[ $base =~ ^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$ ]]; then
			PCI_ADDR=$base
			break
		fi
		d=${d%/*}
	done
	IRQS=()
	if [ -n "$PCI_ADDR" ] && [ -d "/sys/bus/pci/devices/$PCI_ADDR/msi_irqs" ]; then
		mapfile -t IRQS < <(find "/sys/bus/pci/devices/$PCI_ADDR/msi_irqs" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort -n)
	fi
	if [ "${#IRQS[@]}" -eq 0 ]; then
		mapfile -t IRQS < <(awk -v ifc="$IFACE" '$1 ~ /^[0-9]+:$/ {
			for (i = 2; i <= NF; i++) if (index($i, ifc) == 1 || $i ~ ("[-@]" ifc "([-@]|$)")) { sub(":", "", $1); print $1; next } }' /proc/interrupts)
	fi
	PHC=
	local n
	n=$(rd ethtool -T "$IFACE" 2>/dev/null | awk -F': *' '/PTP Hardware Clock/ {print $2}') || n=
	if [[ $n =~ ^[0-9]+$ ]]; then
		PHC=/dev/ptp$n
	elif [ -n "$dev" ] && [ -d "$dev/ptp" ]; then
		n=$(find "$dev/ptp" -mindepth 1 -maxdepth 1 -name 'ptp*' -printf '%f\n' | head -n 1)
		[ -z "$n" ] || PHC=/dev/$n
	fi
	local c
	c=$(readlink /proc/self/ns/net)
	printf '%s: driver %s%s, mac %s, pci %s, irqs %s, phc %s, %s\n' "$IFACE" "$DRIVER" \
		"${KIND:+ ($KIND)}" "$(rd ip -j link show dev "$IFACE" | jq -r '.[0].address')" \
		"${PCI_ADDR:-none}" "$(if [ "${#IRQS[@]}" -gt 0 ]; then echo "${IRQS[*]}" | tr ' ' ,; else echo none; fi)" \
		"${PHC:-none}" "namespace ${CUR_NS:-this one ($c)}"
}

# --- modes ------------------------------------------------------------------

do_revert() {
	if [ ! -s "$JOURNAL" ]; then
		echo "$IFACE: nothing to revert (no saved state in $SD)"
		return 0
	fi
	local home
	home=$(cat "$SD/netns" 2>/dev/null || true)
	[ -z "$home" ] || [ "$home" = "$(readlink /proc/self/ns/net)" ] ||
		die "$IFACE was tuned from network namespace $home; run --revert from that one"
	# Find (or mount) tracefs here, not in the subshells the undos run in.
	! grep -q $'\ttrace_' "$JOURNAL" || trace_find || true
	trace_guard_breaches
	if [ "$REVERT_DRY" = 1 ]; then
		journal_replay --dry-run
		summary
		return 0
	fi
	if ! journal_replay; then
		summary
		warn "some values could not be restored; what is left is in $JOURNAL (run --revert again)"
		return 2
	fi
	rm -f "$JOURNAL" "$SD"/*.json "$SD"/features.* "$SD"/affinity.* "$SD/irq_unmovable" \
		"$SD/netns" "$SD/phc2sys.pid" "$SD/lock" "$SD/trace_instances"
	rm -f "$SD/phc2sys.log"
	rmdir "$SD" 2>/dev/null || true
	summary
}

main() {
	steps_check
	parse_args "$@"
	check_input
	trap trace_cleanup EXIT
	if [ "$MODE" = revert ]; then
		[ -d "$SD" ] || { echo "$IFACE: nothing to revert (no $SD)"; exit 0; }
		state_open
		do_revert
		exit $?
	fi
	[ "$TRACE" = 0 ] || trace_sides_check
	[ "$MODE" != apply ] || state_open
	discover
	steps_run
	summary
	local r
	for r in "${RESULTS[@]}"; do
		case ${r#*|} in
		failed) exit 2 ;;
		"not set") [ "$MODE" != verify ] || exit 2 ;;
		esac
	done
	exit 0
}

main "$@"
