#!/usr/bin/env bash
# config.sh: tune a NIC, its IRQs and the CPUs for a rant latency test;
# show what it would do (--dry-run), check it (--verify) and put every value
# back (--revert). See config.sh --help and the README's config.sh section.
#
# The STEPS table below names every step in run order; each is a function
# of that name, grouped by subsystem (net_*, nic_*, cpu_*, irq_*, pci_*,
# ptp_*, trace_*). The machinery (change, the journal, step_end, dry run,
# revert) is lib/config-lib.sh, found beside this script's real path.
# Most functions are reached indirectly: from the step table, through
# change() and from the journal that --revert evaluates.
# shellcheck disable=SC2317
# shellcheck disable=SC2016  # sh -c scripts expand their own $1 $2
set -euo pipefail

PROG=${0##*/}

config_lib_find() {
	local here
	here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
	if [ -r "$here/lib/config-lib.sh" ]; then
		echo "$here/lib/config-lib.sh"
	else
		printf '%s: %s\n' "$PROG" "$here/lib/config-lib.sh is missing: install rant with make install, or run config.sh from its source tree" >&2
		return 1
	fi
}
CONFIG_LIB=$(config_lib_find) || exit 1
# shellcheck source=lib/config-lib.sh
source "$CONFIG_LIB"

# The steps, in run order ("name|description"); --revert undoes them in
# reverse. The usage text, --list-steps and the README's table follow it.
# shellcheck disable=SC2034  # read by lib/config-lib.sh
STEPS=(
	"net_namespace|create ns_<iface>, move the interface into it"
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
	"cpu_isolate|tuna --isolate the app and IRQ CPUs (all thread and IRQ affinities saved first and restored by --revert)"
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
  --revert              restore every saved value, step by step in reverse
  --force               with --revert: delete a trace instance that holds a
                        frozen breach without saving its trace first
  --state-dir DIR       where saved values live (default /run/rant)
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

# Reads go to where the interface is now; changes to where it will be.
rd() { inns "$CUR_NS" "$@"; }

# --- small helpers ----------------------------------------------------------

# cpulist_expand LIST: "0-2,5" -> "0 1 2 5".
cpulist_expand() {
	local part a b out=()
	local IFS=,
	for part in $1; do
		[ -n "$part" ] || continue
		if [[ $part == *-* ]]; then
			a=${part%-*} b=${part#*-}
			b=${b%%:*}
			while [ "$a" -le "$b" ]; do
				out+=("$a")
				a=$((a + 1))
			done
		else
			out+=("$part")
		fi
	done
	IFS=' '
	echo "${out[*]}"
}

# cpus_mask CPU...: the kernel's hex cpumask (32-bit groups, comma separated).
cpus_mask() {
	local nr groups g c mask='' word
	nr=$(cpulist_expand "$(cat /sys/devices/system/cpu/possible)" | wc -w)
	groups=$(((nr + 31) / 32))
	for ((g = groups - 1; g >= 0; g--)); do
		word=0
		for c in "$@"; do
			[ $((c / 32)) -eq "$g" ] && word=$((word | (1 << (c % 32))))
		done
		mask+=$(printf '%08x' "$word")
		[ "$g" -eq 0 ] || mask+=,
	done
	echo "$mask"
}

# mask_norm MASK: hex mask without commas and leading zeros, for comparing.
mask_norm() {
	local m=${1//,/}
	while [ "${m#0}" != "$m" ]; do m=${m#0}; done
	echo "${m:-0}"
}

# task_stat TID: "starttime flags rt_priority policy" from /proc/TID/stat.
task_stat() {
	local line rest
	read -r line <"/proc/$1/stat" || return 1
	rest=${line##*) }
	# shellcheck disable=SC2086  # split the fields on purpose
	set -- $rest
	# fields after comm: state=$1 ... flags=$7 starttime=$20 rt_priority=$38 policy=$39
	echo "${20} ${7} ${38} ${39}"
}

# task_allowed TID: the thread's Cpus_allowed_list.
task_allowed() {
	local k v
	while read -r k v; do
		if [ "$k" = Cpus_allowed_list: ]; then
			echo "$v"
			return 0
		fi
	done <"/proc/$1/status"
	return 1
}

# pid_of_comm NAME: the pids of the kernel threads called NAME.
pid_of_comm() {
	local f c
	for f in /proc/[0-9]*/comm; do
		{ read -r c <"$f"; } 2>/dev/null || continue
		[ "$c" = "$1" ] && { f=${f#/proc/}; echo "${f%/comm}"; }
	done
	return 0
}

policy_name() {
	case $1 in
	0) echo other ;; 1) echo fifo ;; 2) echo rr ;; 3) echo batch ;;
	5) echo idle ;; 6) echo deadline ;; *) echo "policy$1" ;;
	esac
}

# sched_restore TID STARTTIME POLICY PRIO: put a thread's policy back, if it is
# still the same thread.
sched_restore() {
	local st
	st=$(task_stat "$1" 2>/dev/null) || return 0
	[ "${st%% *}" = "$2" ] || return 0
	chrt "--$(policy_name "$3")" -p "$4" "$1" >/dev/null
}

# sched_set TID STARTTIME PRIO: SCHED_FIFO PRIO for the thread, if it is the
# same thread.
sched_set() {
	local st
	st=$(task_stat "$1") || return 1
	[ "${st%% *}" = "$2" ] || return 1
	chrt -f -p "$3" "$1"
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
	if [ "$NO_NS" = 1 ]; then TGT_NS=$CUR_NS; else TGT_NS=$NS_NAME; fi
	[ "$TGT_NS" = "$CUR_NS" ] || MOVE_PENDING=1
	SD=$STATE_DIR/$IFACE
	JOURNAL=$SD/journal
	if [ "$MODE" != revert ] && [ "$CPU" = "$IRQ_CPU" ]; then
		warn "--cpu $CPU and --irq-cpu $IRQ_CPU: one CPU for both; the NIC's interrupts and softirqs preempt the application there, which suits busy polling (--busy-poll, rant -p) only; give --irq-cpu another CPU otherwise"
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
	ISO_CPUS=("$CPU")
	[ "$IRQ_CPU" = "$CPU" ] || ISO_CPUS+=("$IRQ_CPU")
	c=$(readlink /proc/self/ns/net)
	printf '%s: driver %s%s, mac %s, pci %s, irqs %s, phc %s, %s\n' "$IFACE" "$DRIVER" \
		"${KIND:+ ($KIND)}" "$(rd ip -j link show dev "$IFACE" | jq -r '.[0].address')" \
		"${PCI_ADDR:-none}" "$(if [ "${#IRQS[@]}" -gt 0 ]; then echo "${IRQS[*]}" | tr ' ' ,; else echo none; fi)" \
		"${PHC:-none}" "namespace ${CUR_NS:-this one ($c)}"
}

# what the interface is, for "unsupported here" reasons
what() {
	echo "${KIND:-$DRIVER}"
}

# --- network namespace, address, link ---------------------------------------

# ns_delete NS: remove a namespace config.sh created, if nothing is left in it.
ns_delete() {
	local n
	n=$(ip -n "$1" -j link show 2>/dev/null | jq '[.[] | select(.ifname != "lo")] | length') || return 0
	if [ "$n" -ne 0 ]; then
		echo "namespace $1 still holds interfaces; left in place" >&2
		return 1
	fi
	ip netns del "$1"
}

# ns_move_home NS IF: move IF from NS back to the namespace config.sh runs in.
ns_move_home() {
	ip -n "$1" link show dev "$2" >/dev/null 2>&1 || return 0
	ip -n "$1" link set dev "$2" netns "$$"
}

# addrs_restore NS IF FILE: add back the addresses listed in FILE (ip -j addr).
addrs_restore() {
	local ns=$1 ifc=$2 file=$3 line
	while read -r line; do
		[ -n "$line" ] || continue
		# shellcheck disable=SC2086  # line holds several words
		ip ${ns:+-n "$ns"} addr replace $line dev "$ifc"
	done < <(jq -r '.[0].addr_info[]? | select(.scope != "link")
		| select((.dynamic // false) | not)
		| "\(.local)/\(.prefixlen)" + (if .broadcast then " brd \(.broadcast)" else "" end)
		+ (if .nodad then " nodad" else "" end)' "$file")
}

# routes_restore NS IF FILE: add back the non-kernel routes listed in FILE.
routes_restore() {
	local ns=$1 ifc=$2 file=$3 line
	while read -r line; do
		[ -n "$line" ] || continue
		# shellcheck disable=SC2086
		ip ${ns:+-n "$ns"} route replace $line dev "$ifc" || true
	done < <(jq -r '.[] | select(.protocol != "kernel" and .protocol != "ra")
		| .dst + (if .gateway then " via \(.gateway)" else "" end)
		+ (if .metric then " metric \(.metric)" else "" end)' "$file")
}

# link_home_restore NS IF ADDRFILE ROUTEFILE UP: after moving back: addresses,
# link state, routes.
link_home_restore() {
	addrs_restore "$1" "$2" "$3"
	if [ "$5" = up ]; then ip ${1:+-n "$1"} link set dev "$2" up; fi
	routes_restore "$1" "$2" "$4"
}

net_namespace() {
	if [ "$NO_NS" = 1 ]; then
		skipped "--no-namespace"
		return
	fi
	if [ "$CUR_NS" = "$NS_NAME" ]; then
		note "$IFACE in $NS_NAME"
		return
	fi
	local n=$ST_CHANGED up=down
	if ! ip netns list | awk '{print $1}' | grep -qxF "$NS_NAME"; then
		change "$(qcmd ns_delete "$NS_NAME")" ip netns add "$NS_NAME"
		change "" ip -n "$NS_NAME" link set lo up
	fi
	if [ "$MODE" = apply ]; then
		ip -j addr show dev "$IFACE" >"$SD/home_addrs.$n.json"
		{ ip -j -4 route show dev "$IFACE"; ip -j -6 route show dev "$IFACE"; } |
			jq -s 'add' >"$SD/home_routes.$n.json"
		ip -j link show dev "$IFACE" | jq -e '.[0].flags | index("UP")' >/dev/null && up=up
		journal_add "$(qcmd link_home_restore "" "$IFACE" \
			"$SD/home_addrs.$n.json" "$SD/home_routes.$n.json" "$up")"
	fi
	change "$(qcmd ns_move_home "$NS_NAME" "$IFACE")" ip link set dev "$IFACE" netns "$NS_NAME"
	note "moved $IFACE to $NS_NAME; addresses and routes saved"
	if [ -z "$ST_FAIL" ] && [ "$MODE" = apply ]; then
		CUR_NS=$NS_NAME
		MOVE_PENDING=0
	fi
}

net_address() {
	local have=0
	if [ "$MOVE_PENDING" = 0 ]; then
		rd ip -j addr show dev "$IFACE" | jq -e --arg a "$IP_ADDR" --argjson p "$IP_PFX" \
			'.[0].addr_info[] | select(.local == $a and .prefixlen == $p)' >/dev/null && have=1
	fi
	if [ "$have" = 1 ]; then
		note "$IP_ADDR/$IP_PFX"
		return
	fi
	local extra=()
	[ "$FAMILY" = 4 ] || extra=(nodad)
	change "$(qcmd ip ${TGT_NS:+-n "$TGT_NS"} addr del "$IP_ADDR/$IP_PFX" dev "$IFACE")" \
		ip ${TGT_NS:+-n "$TGT_NS"} addr add "$IP_ADDR/$IP_PFX" dev "$IFACE" "${extra[@]}"
	note "$IP_ADDR/$IP_PFX"
}

# link_flag FLAG: 0/1 whether the link shows FLAG (UP, MULTICAST, NOARP).
link_flag() {
	if rd ip -j link show dev "$IFACE" | jq -e --arg f "$1" '.[0].flags | index($f)' >/dev/null; then
		echo 1
	else
		echo 0
	fi
}

net_link() {
	if [ "$MOVE_PENDING" = 0 ] && [ "$(link_flag UP)" = 1 ]; then
		note up
		return
	fi
	change "$(qcmd ip ${TGT_NS:+-n "$TGT_NS"} link set dev "$IFACE" down)" \
		ip ${TGT_NS:+-n "$TGT_NS"} link set dev "$IFACE" up
	note up
}

# --- NIC (ethtool) -----------------------------------------------------------

# ethtool_kv OPT: "key value" pairs from ethtool OPT's text, section-prefixed
# (max_/cur_) where the output has "Pre-set maximums"/"Current" sections.
ethtool_kv() {
	rd ethtool "$1" "$IFACE" 2>/dev/null | awk -F':[ \t]*' '
		/^Pre-set maximums/ {p = "max_"; next}
		/^Current hardware settings/ {p = "cur_"; next}
		/^Adaptive RX/ { split($0, a, /[ \t]+/); print "adaptive-rx", a[3]; print "adaptive-tx", a[5]; next }
		NF >= 2 && $1 !~ /^(Channel|Ring|Coalesce) parameters/ {
			k = tolower($1); gsub(/[ \t]+/, "-", k); print p k, $2 }'
}

kv() {
	awk -v k="$2" '$1 == k {print $2; exit}' <<<"$1"
}

nic_channels() {
	local t mc mr mt cc cr ct
	if ! t=$(ethtool_kv -l) || [ -z "$t" ]; then
		unsupported "$(what) has no channel settings"
		return
	fi
	mc=$(kv "$t" max_combined) mr=$(kv "$t" max_rx) mt=$(kv "$t" max_tx)
	cc=$(kv "$t" cur_combined) cr=$(kv "$t" cur_rx) ct=$(kv "$t" cur_tx)
	[[ $mc =~ ^[0-9]+$ ]] || mc=0
	[[ $mr =~ ^[0-9]+$ ]] || mr=0
	[[ $mt =~ ^[0-9]+$ ]] || mt=0
	[[ $cc =~ ^[0-9]+$ ]] || cc=0
	[[ $cr =~ ^[0-9]+$ ]] || cr=0
	[[ $ct =~ ^[0-9]+$ ]] || ct=0
	local want=() undo=()
	if [ "$mc" -gt 0 ]; then
		[ "$cc" = 1 ] || want+=(combined 1)
		[ "$mr" = 0 ] || [ "$cr" = 0 ] || want+=(rx 0)
		[ "$mt" = 0 ] || [ "$ct" = 0 ] || want+=(tx 0)
		undo=(combined "$cc")
		[ "$mr" = 0 ] || undo+=(rx "$cr")
		[ "$mt" = 0 ] || undo+=(tx "$ct")
		note "combined 1"
	elif [ "$mr" -gt 0 ] || [ "$mt" -gt 0 ]; then
		[ "$mr" = 0 ] || [ "$cr" = 1 ] || want+=(rx 1)
		[ "$mt" = 0 ] || [ "$ct" = 1 ] || want+=(tx 1)
		undo=(rx "$cr" tx "$ct")
		note "$(what) has no combined channels: rx 1, tx 1"
	else
		unsupported "$(what) reports no channels"
		return
	fi
	[ "${#want[@]}" -eq 0 ] && return
	change "$(qcmd inns "$TGT_NS" ethtool -L "$IFACE" "${undo[@]}")" inns "$TGT_NS" ethtool -L "$IFACE" "${want[@]}"
}

# The features nic_offloads turns off: checksum offloads, GRO, LRO, TSO.
OFFLOAD_RE='^(rx-checksumming|tx-checksum-.*|generic-receive-offload|rx-gro-hw|large-receive-offload|tx-tcp.*segmentation)$'

# features_restore NS IF FILE: set every changeable feature back to the
# requested state saved in FILE ("name on|off" lines).
features_restore() {
	local ns=$1 ifc=$2 file=$3 args=() name val
	declare -A cur=()
	while read -r name val; do cur[$name]=$val; done < <(features_dump "$ns" "$ifc")
	while read -r name val; do
		[ "${cur[$name]:-}" = "$val" ] || args+=("$name" "$val")
	done <"$file"
	[ "${#args[@]}" -eq 0 ] || inns "$ns" ethtool -K "$ifc" "${args[@]}"
}

# features_dump NS IF: "name on|off" (requested) for every changeable feature.
features_dump() {
	inns "$1" ethtool --json -k "$2" | jq -r '.[0] | to_entries[]
		| select((.value | type) == "object" and .value.fixed == false and .value.requested != null)
		| "\(.key) \(if .value.requested then "on" else "off" end)"'
}

nic_offloads() {
	local j on=() fixed=() f
	if ! j=$(rd ethtool --json -k "$IFACE" 2>/dev/null); then
		unsupported "$(what): ethtool -k fails"
		return
	fi
	mapfile -t on < <(jq -r --arg re "$OFFLOAD_RE" '.[0] | to_entries[]
		| select((.value | type) == "object" and (.key | test($re)) and .value.active == true and .value.fixed == false) | .key' <<<"$j")
	mapfile -t fixed < <(jq -r --arg re "$OFFLOAD_RE" '.[0] | to_entries[]
		| select((.value | type) == "object" and (.key | test($re)) and .value.active == true and .value.fixed == true) | .key' <<<"$j")
	[ "${#fixed[@]}" -eq 0 ] || note "fixed on by the driver: ${fixed[*]}"
	[ "${#on[@]}" -gt 0 ] || return 0
	local args=() n=$ST_CHANGED
	for f in "${on[@]}"; do args+=("$f" off); done
	if [ "$MODE" = apply ]; then
		features_dump "$CUR_NS" "$IFACE" >"$SD/features.$n"
	fi
	change "$(qcmd features_restore "$TGT_NS" "$IFACE" "$SD/features.$n")" inns "$TGT_NS" ethtool -K "$IFACE" "${args[@]}"
	note "off: ${on[*]}"
	if [ "$MODE" = apply ] && [ -z "$ST_FAIL" ]; then
		mapfile -t on < <(rd ethtool --json -k "$IFACE" | jq -r --arg re "$OFFLOAD_RE" '.[0] | to_entries[]
			| select((.value | type) == "object" and (.key | test($re)) and .value.active == true and .value.fixed == false) | .key')
		[ "${#on[@]}" -eq 0 ] || failed "still on after ethtool -K: ${on[*]}"
	fi
}

nic_coalesce() {
	local t v want=() undo=()
	if ! t=$(ethtool_kv -c) || [ -z "$t" ]; then
		unsupported "$(what) has no interrupt coalescing settings"
		return
	fi
	v=$(kv "$t" adaptive-rx)
	if [ "$v" = on ]; then want+=(adaptive-rx off); undo+=(adaptive-rx on); fi
	v=$(kv "$t" rx-usecs)
	if [[ $v =~ ^[0-9]+$ ]] && [ "$v" != 0 ]; then want+=(rx-usecs 0); undo+=(rx-usecs "$v"); fi
	v=$(kv "$t" rx-frames)
	if [[ $v =~ ^[0-9]+$ ]] && [ "$v" != 1 ]; then want+=(rx-frames 1); undo+=(rx-frames "$v"); fi
	[[ $(kv "$t" rx-frames) =~ ^[0-9]+$ ]] || note "driver has no rx-frames"
	[ "${#want[@]}" -gt 0 ] || return 0
	change "$(qcmd inns "$TGT_NS" ethtool -C "$IFACE" "${undo[@]}")" inns "$TGT_NS" ethtool -C "$IFACE" "${want[@]}"
	note "${want[*]}"
}

nic_rings() {
	local t mr mt cr ct want=() undo=() r got=() capped=
	if ! t=$(ethtool_kv -g) || [ -z "$t" ]; then
		unsupported "$(what) has no rings"
		return
	fi
	mr=$(kv "$t" max_rx) mt=$(kv "$t" max_tx) cr=$(kv "$t" cur_rx) ct=$(kv "$t" cur_tx)
	if [[ $mr =~ ^[0-9]+$ ]] && [ "$mr" -gt 0 ]; then
		r=$((mr < RING_SIZE ? mr : RING_SIZE))
		[ "$r" = "$RING_SIZE" ] || capped=" (the driver's maximum)"
		got+=("rx $r")
		[ "$cr" = "$r" ] || { want+=(rx "$r"); undo+=(rx "$cr"); }
	fi
	if [[ $mt =~ ^[0-9]+$ ]] && [ "$mt" -gt 0 ]; then
		r=$((mt < RING_SIZE ? mt : RING_SIZE))
		[ "$r" = "$RING_SIZE" ] || capped=" (the driver's maximum)"
		got+=("tx $r")
		[ "$ct" = "$r" ] || { want+=(tx "$r"); undo+=(tx "$ct"); }
	fi
	note "${got[*]}$capped"
	[ "${#want[@]}" -gt 0 ] || return 0
	change "$(qcmd inns "$TGT_NS" ethtool -G "$IFACE" "${undo[@]}")" inns "$TGT_NS" ethtool -G "$IFACE" "${want[@]}"
}

nic_pause() {
	local j want=() undo=() k v
	if ! j=$(rd ethtool --json -a "$IFACE" 2>/dev/null) || [ "$(jq 'length' <<<"$j")" = 0 ]; then
		unsupported "$(what) has no pause frame settings"
		return
	fi
	for k in autonegotiate:autoneg rx:rx tx:tx; do
		v=$(jq -r --arg k "${k%%:*}" '.[0][$k] // empty' <<<"$j")
		if [ "$v" = true ]; then want+=("${k#*:}" off); undo+=("${k#*:}" on); fi
	done
	[ "${#want[@]}" -gt 0 ] || return 0
	change "$(qcmd inns "$TGT_NS" ethtool -A "$IFACE" "${undo[@]}")" inns "$TGT_NS" ethtool -A "$IFACE" "${want[@]}"
	note "${want[*]}"
}

nic_privflags() {
	local flags=() t f v want=() undo=()
	case $DRIVER in
	mlx5_core) flags=(rx_cqe_compress rx_striding_rq) ;;
	ice) flags=(fw-lldp-agent) ;;
	*)
		unsupported "no private flags rant tunes on $DRIVER (mlx5_core, ice only)"
		return
		;;
	esac
	t=$(rd ethtool --show-priv-flags "$IFACE" 2>/dev/null | awk -F' *: *' 'NF == 2 {print $1, $2}') || t=
	for f in "${flags[@]}"; do
		v=$(kv "$t" "$f")
		if [ -z "$v" ]; then
			note "$DRIVER has no $f"
		elif [ "$v" = on ]; then
			want+=("$f" off)
			undo+=("$f" on)
		fi
	done
	[ "${#want[@]}" -gt 0 ] || return 0
	change "$(qcmd inns "$TGT_NS" ethtool --set-priv-flags "$IFACE" "${undo[@]}")" \
		inns "$TGT_NS" ethtool --set-priv-flags "$IFACE" "${want[@]}"
	note "${want[*]}"
}

nic_napi() {
	local f v p
	for f in napi_defer_hard_irqs gro_flush_timeout; do
		p=/sys/class/net/$IFACE/$f
		if ! v=$(rfile "$CUR_NS" "$p" 2>/dev/null); then
			note "no $f"
			continue
		fi
		[ "$v" = 0 ] && continue
		change "$(qcmd wfile "$TGT_NS" "$p" "$v")" wfile "$TGT_NS" "$p" 0
		note "$f 0 (was $v)"
	done
}

# --- network ----------------------------------------------------------------

# gsysctl NAME [VALUE]: read or write a sysctl (net.core.busy_* exist only
# in the initial network namespace).
gsysctl() {
	local p=/proc/sys/${1//.//}
	[ -e "$p" ] || return 1
	if [ "$#" -eq 2 ]; then printf '%s\n' "$2" >"$p"; else cat "$p"; fi
}

net_busy_poll() {
	if [ -z "$BUSY_POLL" ]; then
		skipped "no --busy-poll; rant -p sets SO_BUSY_POLL per socket"
		return
	fi
	local s v
	for s in net.core.busy_poll net.core.busy_read; do
		if ! v=$(gsysctl "$s" 2>/dev/null); then
			unsupported "no $s here: it exists only in the initial network namespace"
			return
		fi
		[ "$v" = "$BUSY_POLL" ] && continue
		change "$(qcmd gsysctl "$s" "$v")" gsysctl "$s" "$BUSY_POLL"
		note "$s $BUSY_POLL (was $v)"
	done
}

# neigh_restore NS IF IP LLADDR: put a neighbour entry back ("" = none).
neigh_restore() {
	if [ -z "$4" ]; then
		ip ${1:+-n "$1"} neigh del "$3" dev "$2" 2>/dev/null || true
	else
		ip ${1:+-n "$1"} neigh replace "$3" lladdr "$4" dev "$2" nud permanent
	fi
}

net_neigh() {
	if [ -z "$REMOTE_MAC" ]; then
		skipped "no --remote-mac; the peer is resolved by ARP/NDP"
		return
	fi
	local j old='' ok=0
	if [ "$MOVE_PENDING" = 0 ]; then
		j=$(rd ip -j neigh show "$REMOTE_IP" dev "$IFACE")
		old=$(jq -r '.[0] | select(.state | index("PERMANENT")) | .lladdr // empty' <<<"$j")
		[ "$old" = "$REMOTE_MAC" ] && ok=1
	fi
	if [ "$ok" = 0 ]; then
		change "$(qcmd neigh_restore "$TGT_NS" "$IFACE" "$REMOTE_IP" "$old")" \
			ip ${TGT_NS:+-n "$TGT_NS"} neigh replace "$REMOTE_IP" lladdr "$REMOTE_MAC" dev "$IFACE" nud permanent
	fi
	note "$REMOTE_IP lladdr $REMOTE_MAC permanent"
}

net_ipv6() {
	local off=1 p v n=$ST_CHANGED
	[ "$FAMILY" = 4 ] || off=0
	p=/proc/sys/net/ipv6/conf/$IFACE/disable_ipv6
	if ! v=$(rfile "$CUR_NS" "$p" 2>/dev/null); then
		unsupported "no IPv6 in this kernel"
		return
	fi
	[ "$MOVE_PENDING" = 0 ] || v=$(rfile "" /proc/sys/net/ipv6/conf/default/disable_ipv6)
	if [ "$v" = "$off" ]; then
		note "disable_ipv6 $off"
		return
	fi
	if [ "$off" = 1 ] && [ "$MODE" = apply ]; then
		# Disabling IPv6 drops the interface's IPv6 addresses; keep them to add back.
		rd ip -j -6 addr show dev "$IFACE" >"$SD/addrs6.$n.json"
		journal_add "$(qcmd addrs_restore "$TGT_NS" "$IFACE" "$SD/addrs6.$n.json")"
	fi
	change "$(qcmd wfile "$TGT_NS" "$p" "$v")" wfile "$TGT_NS" "$p" "$off"
	note "disable_ipv6 $off (was $v)"
}

net_multicast() {
	if [ "$(link_flag MULTICAST)" = 0 ]; then
		note off
		return
	fi
	change "$(qcmd ip ${TGT_NS:+-n "$TGT_NS"} link set dev "$IFACE" multicast on)" \
		ip ${TGT_NS:+-n "$TGT_NS"} link set dev "$IFACE" multicast off
	note off
}

net_arp() {
	if [ -z "$REMOTE_MAC" ]; then
		skipped "needs --remote-mac: without a static entry ARP off cuts the peer off"
		return
	fi
	if [ "$(link_flag NOARP)" = 1 ]; then
		note off
		return
	fi
	change "$(qcmd ip ${TGT_NS:+-n "$TGT_NS"} link set dev "$IFACE" arp on)" \
		ip ${TGT_NS:+-n "$TGT_NS"} link set dev "$IFACE" arp off
	note off
}

# qdisc_restore NS IF KIND HANDLE: back to the default root qdisc, or to
# KIND (without its parameters) where one had been set up by hand.
qdisc_restore() {
	if [ "$4" = "0:" ] || [ -z "$3" ]; then
		tc ${1:+-n "$1"} qdisc del dev "$2" root 2>/dev/null || true
	else
		tc ${1:+-n "$1"} qdisc replace dev "$2" root handle "$4" "$3"
	fi
}

net_qdisc() {
	local j kind handle
	j=$(rd tc -j qdisc show dev "$IFACE")
	kind=$(jq -r '[.[] | select(.root == true)][0].kind // ""' <<<"$j")
	handle=$(jq -r '[.[] | select(.root == true)][0].handle // ""' <<<"$j")
	if [ "$kind" = noqueue ]; then
		note noqueue
		return
	fi
	[ "$handle" = "0:" ] || [ -z "$kind" ] || [ "$kind" = noop ] ||
		note "root $kind $handle set up by hand: revert restores it without its parameters"
	[ "$kind" != noop ] || handle="0:"
	change "$(qcmd qdisc_restore "$TGT_NS" "$IFACE" "$kind" "$handle")" \
		tc ${TGT_NS:+-n "$TGT_NS"} qdisc replace dev "$IFACE" root noqueue
	note "noqueue (was $kind)"
}

# --- CPUs and IRQs ----------------------------------------------------------

in_list() {
	[[ " $2 " == *" $1 "* ]]
}

# cpu_offenders: threads and IRQs that may still run on the isolated CPUs.
# Threads pinned inside them (the test itself) and unmovable IRQs are fine.
cpu_offenders() {
	local t tid st flags allowed exp c hit inside iso=" ${ISO_CPUS[*]} " irq unmov=
	[ -r "$SD/irq_unmovable" ] && unmov=$(cat "$SD/irq_unmovable")
	for t in /proc/[0-9]*/task/[0-9]*; do
		tid=${t##*/}
		st=$(task_stat "$tid" 2>/dev/null) || continue
		read -r _ flags _ <<<"$st"
		[ $((flags & 0x04000000)) -eq 0 ] || continue # PF_NO_SETAFFINITY
		allowed=$(task_allowed "$tid" 2>/dev/null) || continue
		exp=$(cpulist_expand "$allowed")
		hit=0 inside=1
		for c in $exp; do
			if [[ $iso == *" $c "* ]]; then hit=1; else inside=0; fi
		done
		[ "$hit" = 1 ] && [ "$inside" = 0 ] && echo "thread $tid"
	done
	for t in /proc/irq/[0-9]*; do
		irq=${t##*/}
		in_list "$irq" "${IRQS[*]}" && continue
		in_list "$irq" "$unmov" && continue
		[ -r "$t/smp_affinity_list" ] || continue
		for c in $(cpulist_expand "$(cat "$t/smp_affinity_list")"); do
			if [[ $iso == *" $c "* ]]; then
				echo "irq $irq"
				break
			fi
		done
	done
	local dm
	dm=$(mask_norm "$(cat /proc/irq/default_smp_affinity)")
	for c in "${ISO_CPUS[@]}"; do
		[ $((16#$dm >> c & 1)) -eq 0 ] 2>/dev/null || { echo "default_smp_affinity"; break; }
	done
}

# cpu_snapshot FILE: every thread's and IRQ's affinity, for cpu_restore.
cpu_snapshot() {
	local t tid st allowed now
	{
		now=$(awk -v hz="$(getconf CLK_TCK)" '{printf "%d", $1 * hz}' /proc/uptime)
		printf 'S\t%s\t%s\n' "$now" "${ISO_CPUS[*]}"
		printf 'O\t%s\n' "$(cat /sys/devices/system/cpu/online)"
		for t in /proc/[0-9]*/task/[0-9]*; do
			tid=${t##*/}
			st=$(task_stat "$tid" 2>/dev/null) || continue
			allowed=$(task_allowed "$tid" 2>/dev/null) || continue
			printf 'T\t%s\t%s\t%s\n' "$tid" "${st%% *}" "$allowed"
		done
		for t in /proc/irq/[0-9]*; do
			[ -r "$t/smp_affinity_list" ] || continue
			printf 'I\t%s\t%s\n' "${t##*/}" "$(cat "$t/smp_affinity_list")"
		done
		printf 'D\t%s\n' "$(cat /proc/irq/default_smp_affinity)"
	} >"$1"
}

# cpu_restore FILE: put back the affinities saved by cpu_snapshot. Threads
# started after the snapshot that were confined to the remaining CPUs (they
# inherited that from an isolated parent) get the isolated CPUs back, as
# tuna --include would do.
cpu_restore() {
	local file=$1 kind a b c since='' iso='' bad=0 cur st t tid flags exp hk
	declare -A seen=()
	while IFS=$'\t' read -r kind a b c; do
		case $kind in
		S) since=$a iso=$b ;;
		T)
			seen[$a]=1
			st=$(task_stat "$a" 2>/dev/null) || continue
			[ "${st%% *}" = "$b" ] || continue
			cur=$(task_allowed "$a" 2>/dev/null) || continue
			[ "$cur" = "$c" ] || taskset -pc "$c" "$a" >/dev/null 2>&1 || [ ! -e "/proc/$a" ] || bad=$((bad + 1))
			;;
		I)
			cur=$(cat "/proc/irq/$a/smp_affinity_list" 2>/dev/null) || continue
			[ "$cur" = "$b" ] || printf '%s\n' "$b" >"/proc/irq/$a/smp_affinity_list" 2>/dev/null || true
			;;
		D) printf '%s\n' "$a" >/proc/irq/default_smp_affinity ;;
		esac
	done <"$file"
	hk=$(comm -23 <(cpulist_expand "$(cat /sys/devices/system/cpu/online)" | tr ' ' '\n' | sort) \
		<(tr ' ' '\n' <<<"$iso" | sort) | sort -n | tr '\n' ' ')
	for t in /proc/[0-9]*/task/[0-9]*; do
		tid=${t##*/}
		[ -z "${seen[$tid]:-}" ] || continue
		st=$(task_stat "$tid" 2>/dev/null) || continue
		[ "${st%% *}" -ge "$since" ] || continue
		read -r _ flags _ <<<"$st"
		[ $((flags & 0x04000000)) -eq 0 ] || continue
		exp=$(cpulist_expand "$(task_allowed "$tid" 2>/dev/null)")
		[ "$exp " = "$hk" ] || continue
		taskset -pc "$(echo "$exp $iso" | tr ' ' '\n' | sort -n | paste -sd,)" "$tid" >/dev/null 2>&1 || true
	done
	[ "$bad" -eq 0 ] || { echo "$bad threads kept their new affinity" >&2; return 1; }
}

cpu_isolate() {
	local online hk=0 c off n=$ST_CHANGED list
	online=$(cpulist_expand "$(cat /sys/devices/system/cpu/online)")
	for c in $online; do in_list "$c" "${ISO_CPUS[*]}" || hk=$((hk + 1)); done
	list=$(echo "${ISO_CPUS[*]}" | tr ' ' ,)
	if [ "$hk" -eq 0 ]; then
		unsupported "no CPU left for everything else (online $(cat /sys/devices/system/cpu/online), app+IRQ $list)"
		return
	fi
	off=$(cpu_offenders | wc -l)
	if [ "$off" -eq 0 ]; then
		note "CPUs $list"
		return
	fi
	[ "$MODE" != apply ] || cpu_snapshot "$SD/affinity.$n"
	change "$(qcmd cpu_restore "$SD/affinity.$n")" tuna --cpus="$list" --isolate
	note "CPUs $list: $off threads/IRQs to move off"
	[ "$MODE" = apply ] || return 0
	# IRQs whose affinity the kernel manages cannot be moved; remember them.
	local left
	left=$(cpu_offenders)
	if grep -q '^irq ' <<<"$left"; then
		grep '^irq ' <<<"$left" | awk '{printf "%s ", $2}' >>"$SD/irq_unmovable"
		note "kernel-managed IRQs left: $(grep '^irq ' <<<"$left" | awk '{printf "%s ", $2}')"
	fi
	if grep -q '^thread ' <<<"$left"; then
		note "$(grep -c '^thread ' <<<"$left") threads could not be moved"
	fi
	if grep -q '^default' <<<"$left"; then
		failed "default_smp_affinity still includes CPUs $list"
	fi
}

irq_set() {
	printf '%s\n' "$2" >"/proc/irq/$1/smp_affinity_list"
}

irq_affinity() {
	if [ "${#IRQS[@]}" -eq 0 ]; then
		unsupported "$(what) has no IRQs"
		return
	fi
	local irq v e bad=()
	for irq in "${IRQS[@]}"; do
		v=$(cat "/proc/irq/$irq/smp_affinity_list" 2>/dev/null) || continue
		[ "$v" = "$IRQ_CPU" ] && continue
		change "$(qcmd irq_set "$irq" "$v")" irq_set "$irq" "$IRQ_CPU"
	done
	note "IRQs ${IRQS[*]} -> CPU $IRQ_CPU"
	[ "$MODE" = apply ] || return 0
	for irq in "${IRQS[@]}"; do
		e=$(cat "/proc/irq/$irq/effective_affinity_list" 2>/dev/null ||
			cat "/proc/irq/$irq/smp_affinity_list" 2>/dev/null) || continue
		[ -z "$e" ] || [ "$e" = "$IRQ_CPU" ] || bad+=("$irq:$e")
	done
	[ "${#bad[@]}" -eq 0 ] || failed "read back: IRQ:CPU ${bad[*]} (kernel-managed IRQs keep their own affinity)"
}

# irq_thread_tids: "tid irq" for the irq/NN-* threads of the interface's IRQs.
irq_thread_tids() {
	local f c n
	for f in /proc/[0-9]*/comm; do
		{ read -r c <"$f"; } 2>/dev/null || continue
		[[ $c == irq/* ]] || continue
		n=${c#irq/}
		n=${n%%-*}
		if in_list "$n" "${IRQS[*]}"; then f=${f#/proc/}; echo "${f%/comm} $n"; fi
	done
	return 0
}

# sched_step PRIO TID...: SCHED_FIFO PRIO for each thread, saving the old one.
sched_step() {
	local prio=$1 tid st start pol rtp
	shift
	for tid in "$@"; do
		st=$(task_stat "$tid") || continue
		read -r start _ rtp pol <<<"$st"
		[ "$pol" = 1 ] && [ "$rtp" = "$prio" ] && continue
		change "$(qcmd sched_restore "$tid" "$start" "$pol" "$rtp")" sched_set "$tid" "$start" "$prio"
		note "$(cat "/proc/$tid/comm") fifo $prio (was $(policy_name "$pol") $rtp)"
	done
	[ "$MODE" = apply ] || return 0
	for tid in "$@"; do
		st=$(task_stat "$tid") || continue
		read -r _ _ rtp pol <<<"$st"
		[ "$pol" = 1 ] && [ "$rtp" = "$prio" ] && continue
		failed "$(cat "/proc/$tid/comm"): policy $(policy_name "$pol") $rtp after chrt"
	done
}

irq_threads() {
	if [ "${#IRQS[@]}" -eq 0 ]; then
		unsupported "$(what) has no IRQs"
		return
	fi
	local tids=()
	mapfile -t tids < <(irq_thread_tids | awk '{print $1}')
	if [ "${#tids[@]}" -eq 0 ]; then
		unsupported "no irq/NN threads for IRQs ${IRQS[*]} (boot with threadirqs for threaded IRQs)"
		return
	fi
	sched_step "$IRQ_PRIO" "${tids[@]}"
	[ "$ST_CHANGED" -gt 0 ] || note "${#tids[@]} threads fifo $IRQ_PRIO"
}

cpu_ksoftirqd() {
	local c tids=() p
	for c in "${ISO_CPUS[@]}"; do
		p=$(pid_of_comm "ksoftirqd/$c")
		[ -n "$p" ] && tids+=("$p")
	done
	if [ "${#tids[@]}" -eq 0 ]; then
		unsupported "no ksoftirqd threads found"
		return
	fi
	sched_step "$KSIRQ_PRIO" "${tids[@]}"
	[ "$ST_CHANGED" -gt 0 ] || { local l="${ISO_CPUS[*]}"; note "ksoftirqd/${l// /,} fifo $KSIRQ_PRIO"; }
}

# fair_server_note: on kernels with the fair deadline server (6.12 on), other
# tasks still get runtime/period of the app CPU (50 ms a second by default)
# however sched_rt_runtime_us is set; only debugfs turns that off.
fair_server_note() {
	local dbg d v
	dbg=$(awk '$3 == "debugfs" {print $2; exit}' /proc/mounts)
	d=${dbg:-/sys/kernel/debug}/sched/fair_server/cpu$CPU
	if v=$(cat "$d/runtime" 2>/dev/null); then
		[ "$v" = 0 ] || note "the fair server still lends other tasks $((v / 1000000)) ms of every $(($(cat "$d/period") / 1000000)) ms on CPU $CPU (echo 0 > $d/runtime stops it; config.sh leaves it)"
	elif [ -d "$d" ] || kernel_at_least 6 12; then
		local why="debugfs is not mounted"
		[ -z "$dbg" ] || why="it cannot be read (kernel lockdown?)"
		note "kernel 6.12+: its fair server may still lend other tasks 50 ms of every second on CPU $CPU; $d/runtime 0 stops that, $why"
	fi
}

# kernel_at_least MAJOR MINOR
kernel_at_least() {
	local r maj min
	r=$(uname -r)
	maj=${r%%.*} min=${r#*.}
	min=${min%%[!0-9]*}
	[ "$maj" -gt "$1" ] || { [ "$maj" -eq "$1" ] && [ "${min:-0}" -ge "$2" ]; }
}

# A SCHED_FIFO rant that spins gets no CPU for 50 ms of every second with
# the default 950000 of 1000000 us (RT throttling); -1 turns that off for
# every CPU, so a runaway RT task can then hang its CPU.
cpu_rt_throttle() {
	if [ "$KEEP_RT" = 1 ]; then
		skipped "--keep-rt-throttle"
		return
	fi
	local v
	if ! v=$(gsysctl kernel.sched_rt_runtime_us 2>/dev/null); then
		unsupported "no kernel.sched_rt_runtime_us in this kernel"
		return
	fi
	if [ "$v" = -1 ]; then
		note "sched_rt_runtime_us -1"
	else
		change "$(qcmd gsysctl kernel.sched_rt_runtime_us "$v")" gsysctl kernel.sched_rt_runtime_us -1
		note "sched_rt_runtime_us -1 (was $v)"
		if [ "$MODE" = apply ] && [ -z "$ST_FAIL" ]; then
			v=$(gsysctl kernel.sched_rt_runtime_us)
			[ "$v" = -1 ] || failed "kernel.sched_rt_runtime_us reads back $v"
		fi
	fi
	fair_server_note
}

# --- PCIe -------------------------------------------------------------------

pci_aspm_set() {
	setpci -s "$1" "CAP_EXP+10.w=$(printf '%04x' "$2"):0003"
}

pci_aspm_bits() {
	local v
	v=$(setpci -s "$1" CAP_EXP+10.w 2>/dev/null) || return 1
	[[ $v =~ ^[0-9a-fA-F]+$ ]] || return 1
	echo $((16#$v & 3))
}

pci_aspm() {
	if [ -z "$PCI_ADDR" ]; then
		unsupported "$(what) is not a PCI device"
		return
	fi
	local devs=("$PCI_ADDR") up d b lock=
	up=$(readlink -f "/sys/bus/pci/devices/$PCI_ADDR/..")
	up=${up##*/}
	[[ ! $up =~ ^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$ ]] || devs+=("$up")
	if ! pci_aspm_bits "$PCI_ADDR" >/dev/null; then
		unsupported "$PCI_ADDR has no PCIe capability (no ASPM to turn off)"
		return
	fi
	for d in "${devs[@]}"; do
		b=$(pci_aspm_bits "$d") || continue
		[ "$b" = 0 ] && continue
		change "$(qcmd pci_aspm_set "$d" "$b")" pci_aspm_set "$d" 0
		note "$d ASPM off (was $b)"
	done
	[ "$MODE" = apply ] || return 0
	lock=$(grep -o '\[[a-z]*\]' /sys/kernel/security/lockdown 2>/dev/null || true)
	for d in "${devs[@]}"; do
		b=$(pci_aspm_bits "$d") || continue
		[ "$b" = 0 ] || failed "$d: read back ASPM $b, setpci's write was not applied${lock:+ (kernel lockdown $lock refuses PCI config writes; boot with pcie_aspm=off)}"
	done
}

# --- PTP --------------------------------------------------------------------

# ptp_start PIDFILE LOG ARGS...: start phc2sys ARGS in the background and
# record "pid starttime" in PIDFILE.
ptp_start() {
	local pidfile=$1 log=$2 pid st
	shift 2
	setsid phc2sys "$@" </dev/null >>"$log" 2>&1 &
	pid=$!
	sleep 0.2
	st=$(task_stat "$pid") || { echo "phc2sys exited: $(tail -n 1 "$log")" >&2; return 1; }
	printf '%s %s\n' "$pid" "${st%% *}" >"$pidfile"
}

# ptp_running PIDFILE: our phc2sys is alive.
ptp_running() {
	local pid start st
	[ -r "$1" ] || return 1
	read -r pid start <"$1" || return 1
	st=$(task_stat "$pid" 2>/dev/null) || return 1
	[ "${st%% *}" = "$start" ] && [ "$(cat "/proc/$pid/comm")" = phc2sys ]
}

# ptp_stop PIDFILE: stop the phc2sys config.sh started, and nothing else.
ptp_stop() {
	local pid start
	if ptp_running "$1"; then
		read -r pid start <"$1"
		kill "$pid"
	fi
	rm -f "$1"
}

ptp_phc2sys() {
	if [ "$NO_PTP" = 1 ]; then
		skipped "--no-ptp"
		return
	fi
	local src dst args pidfile=$SD/phc2sys.pid
	if [ -n "$PTP_SYNC_TO" ]; then
		src=${PTP_SOURCE:-$PHC}
		dst=$(ethtool -T "$PTP_SYNC_TO" 2>/dev/null | awk -F': *' '/PTP Hardware Clock/ {print $2}')
		if [[ $dst =~ ^[0-9]+$ ]]; then dst=/dev/ptp$dst; else dst=; fi
		if [ -z "$dst" ]; then
			unsupported "$PTP_SYNC_TO has no PTP hardware clock (ethtool -T $PTP_SYNC_TO)"
			return
		fi
	else
		src=${PTP_SOURCE:-$PHC}
		dst=CLOCK_REALTIME
	fi
	if [ -z "$src" ]; then
		unsupported "$(what) has no PTP hardware clock (ethtool -T: none; use --no-ptp)"
		return
	fi
	args=(-s "$src" -c "$dst" -O 0 -m)
	if ptp_running "$pidfile"; then
		note "pid $(awk '{print $1}' "$pidfile"): phc2sys ${args[*]}"
		return
	fi
	local others
	others=$(pid_of_comm phc2sys | tr '\n' ' ')
	[ -z "$others" ] || note "another phc2sys runs (pid $others); config.sh leaves it alone"
	change "$(qcmd ptp_stop "$pidfile")" ptp_start "$pidfile" "$SD/phc2sys.log" "${args[@]}"
	note "phc2sys ${args[*]}"
}

# --- ftrace -----------------------------------------------------------------

# trace_find: set TRACEFS, mounting tracefs if it is not (temporarily unless
# applying).
trace_find() {
	[ -z "$TRACEFS" ] || return 0
	TRACEFS=$(awk '$3 == "tracefs" {print $2; exit}' /proc/mounts)
	if [ -z "$TRACEFS" ] && [ -d /sys/kernel/debug/tracing/instances ]; then
		TRACEFS=/sys/kernel/debug/tracing
	fi
	[ -z "$TRACEFS" ] || return 0
	mount -t tracefs nodev /sys/kernel/tracing || return 1
	TRACEFS=/sys/kernel/tracing
	TRACEFS_TEMP=1
}

# trace_umount MOUNTNS: unmount the tracefs config.sh mounted, if in the same
# mount namespace and nothing else uses it.
trace_umount() {
	[ "$(readlink /proc/self/ns/mnt)" = "$1" ] || return 0
	umount /sys/kernel/tracing 2>/dev/null || true
	TRACEFS=
}

trace_write() {
	trace_find
	printf '%s\n' "$2" >"$TRACEFS/instances/$1"
}

trace_rmdir() {
	trace_find
	[ ! -d "$TRACEFS/instances/$1" ] || rmdir "$TRACEFS/instances/$1"
}

trace_cleanup() {
	if [ "$TRACEFS_TEMP" = 1 ]; then umount /sys/kernel/tracing 2>/dev/null || true; fi
}

trace_inst() {
	echo "$TRACEFS/instances/$TRACE_INSTANCE"
}

# trace_ready: the steps after trace_instance have an instance to work on
# (in a dry run or --verify: one that exists or would be created).
trace_ready() {
	if [ "$TRACE" = 0 ]; then
		skipped "no --trace"
		return 1
	fi
	if [ -z "$TRACEFS" ] || [ ! -d "$TRACEFS/instances" ] ||
		{ [ "$MODE" = apply ] && [ ! -d "$(trace_inst)" ]; }; then
		skipped "no trace instance (see trace_instance)"
		return 1
	fi
}

trace_instance() {
	if [ "$TRACE" = 0 ]; then
		skipped "no --trace"
		return
	fi
	if ! trace_find; then
		unsupported "no tracefs (mount -t tracefs nodev /sys/kernel/tracing failed)"
		return
	fi
	if [ "$TRACEFS_TEMP" = 1 ] && [ "$MODE" = apply ]; then
		TRACEFS_TEMP=0
		journal_add "$(qcmd trace_umount "$(readlink /proc/self/ns/mnt)")"
		note "mounted tracefs on /sys/kernel/tracing"
	fi
	if [ ! -d "$TRACEFS/instances" ]; then
		unsupported "kernel has no ftrace instances ($TRACEFS/instances)"
		return
	fi
	if [ ! -d "$(trace_inst)" ]; then
		TRACE_INST_NEW=1
		change "$(qcmd trace_rmdir "$TRACE_INSTANCE")" mkdir "$(trace_inst)"
	fi
	# --revert looks at the instances it will touch for a frozen breach.
	if [ "$MODE" = apply ] && ! grep -qxF "$TRACE_INSTANCE" "$SD/trace_instances" 2>/dev/null; then
		printf '%s\n' "$TRACE_INSTANCE" >>"$SD/trace_instances"
	fi
	note "$(trace_inst)"
}

trace_buffer() {
	trace_ready || return 0
	local v
	v=$(awk '{print $1; exit}' "$(trace_inst)/buffer_size_kb" 2>/dev/null || echo 0)
	# The kernel rounds the size up to whole pages and headers.
	if ! [[ $v =~ ^[0-9]+$ ]] || [ "$v" -lt "$TRACE_BUF_KB" ] ||
		[ "$v" -gt $((TRACE_BUF_KB + TRACE_BUF_KB / 32 + 16)) ]; then
		change "$(qcmd trace_write "$TRACE_INSTANCE/buffer_size_kb" "$v")" \
			trace_write "$TRACE_INSTANCE/buffer_size_kb" "$TRACE_BUF_KB"
	fi
	note "$TRACE_BUF_KB KiB per CPU"
}

# trace_clock_now FILE: the selected clock in a trace_clock file ("[x]").
trace_clock_now() {
	grep -o '\[[^]]*\]' "$1" | tr -d '[]'
}

# rant writes CLOCK_MONOTONIC stamps beside its CLOCK_REALTIME ones in the
# markers; with the instance on the mono clock they line up with the events.
# (Changing trace_clock empties the instance's buffer.)
trace_clock() {
	trace_ready || return 0
	local f cur
	f=$(trace_inst)/trace_clock
	if [ -e "$f" ]; then
		cur=$(trace_clock_now "$f")
	else # a dry run's instance-to-be: the kernel's clocks, the default clock
		f=$TRACEFS/trace_clock cur=local
	fi
	if ! [[ " $(tr -d '[]' <"$f" 2>/dev/null) " == *" mono "* ]]; then
		unsupported "no mono clock in $f"
		return
	fi
	if [ "$cur" = mono ]; then
		note mono
		return
	fi
	if trace_frozen_breach "$(trace_inst)"; then
		failed "$(trace_inst) holds a frozen breach that changing trace_clock would erase: save it (cp $(trace_inst)/trace) or re-arm the instance (echo 1 > $(trace_inst)/tracing_on), then run again"
		return
	fi
	change "$(qcmd trace_write "$TRACE_INSTANCE/trace_clock" "$cur")" \
		trace_write "$TRACE_INSTANCE/trace_clock" mono
	note "mono (was $cur)"
	[ "$MODE" = apply ] && [ -z "$ST_FAIL" ] || return 0
	cur=$(trace_clock_now "$f")
	[ "$cur" = mono ] || failed "trace_clock reads back $cur, not mono"
}

trace_cpumask() {
	trace_ready || return 0
	local want v
	want=$(cpus_mask "${ISO_CPUS[@]}")
	v=$(cat "$(trace_inst)/tracing_cpumask" 2>/dev/null || echo none)
	[ "$(mask_norm "$v")" = "$(mask_norm "$want")" ] ||
		change "$(qcmd trace_write "$TRACE_INSTANCE/tracing_cpumask" "$v")" \
			trace_write "$TRACE_INSTANCE/tracing_cpumask" "$want"
	note "CPUs ${ISO_CPUS[*]} ($(mask_norm "$want"))"
}

trace_events() {
	trace_ready || return 0
	local ev evs=() sub missing=() v
	for sub in irq irq_vectors napi net; do
		if [ -d "$TRACEFS/events/$sub" ]; then
			for ev in "$TRACEFS/events/$sub"/*/; do
				ev=${ev%/}
				ev=${ev##*/}
				# irq_vectors: the entry/exit of each vector, not its bookkeeping
				[ "$sub" != irq_vectors ] || [[ $ev == *_entry || $ev == *_exit ]] || continue
				evs+=("$sub/$ev")
			done
		else
			missing+=("$sub")
		fi
	done
	for ev in sched/sched_switch sched/sched_wakeup; do
		if [ -d "$TRACEFS/events/$ev" ]; then evs+=("$ev"); else missing+=("$ev"); fi
	done
	for ev in "${evs[@]}"; do
		v=$(cat "$(trace_inst)/events/$ev/enable" 2>/dev/null || echo 0)
		[ "$v" = 1 ] || change "$(qcmd trace_write "$TRACE_INSTANCE/events/$ev/enable" "$v")" \
			trace_write "$TRACE_INSTANCE/events/$ev/enable" 1
	done
	note "${#evs[@]} events${missing[*]:+; not in this kernel: ${missing[*]}}"
}

trace_snapshot() {
	trace_ready || return 0
	if [ -e "$(trace_inst)/snapshot" ] || { [ "$TRACE_INST_NEW" = 1 ] && [ -e "$TRACEFS/snapshot" ]; }; then
		note "snapshot buffer present: rant -S freezes it"
	else
		unsupported "kernel built without CONFIG_TRACER_SNAPSHOT (no $TRACEFS/snapshot); rant -T stops tracing instead"
	fi
}

# trace_frozen_breach DIR: the instance holds a breach rant froze: its trace
# has a RANT_BREACH marker and tracing_on is 0.
trace_frozen_breach() {
	[ "$(cat "$1/tracing_on" 2>/dev/null)" = 0 ] && grep -q RANT_BREACH "$1/trace" 2>/dev/null
}

# trace_save NAME DIR: copy instance NAME's trace, its per-CPU traces and its
# trace_clock into DIR (what tools/rant-trace reads).
trace_save() {
	local inst=$TRACEFS/instances/$1 dst=$2 c
	mkdir -p "$dst" && chmod 700 "$dst" || return 1
	cat "$inst/trace" >"$dst/trace" || return 1
	for c in "$inst"/per_cpu/cpu*; do
		[ -r "$c/trace" ] || continue
		mkdir -p "$dst/per_cpu/${c##*/}" && cat "$c/trace" >"$dst/per_cpu/${c##*/}/trace" || return 1
	done
	cat "$inst/trace_clock" >"$dst/trace_clock" || return 1
}

# trace_guard_breaches: before --revert restores trace_clock (which empties
# the buffer) or deletes an instance, the trace of each instance config.sh
# configured that holds a frozen breach is saved beside the journal; with
# --force it is dropped, with a warning. If a save fails, nothing is
# reverted.
trace_guard_breaches() {
	local name inst dst
	[ -s "$SD/trace_instances" ] || return 0
	trace_find || return 0
	while read -r name; do
		inst=$TRACEFS/instances/$name
		[ -d "$inst" ] && trace_frozen_breach "$inst" || continue
		if [ "$FORCE" = 1 ]; then
			warn "trace instance $name holds a frozen breach (RANT_BREACH, tracing_on 0); --force: its trace is dropped, not saved"
			continue
		fi
		dst=$SD/breach-$name-$(date +%Y%m%d-%H%M%S)
		if [ "$REVERT_DRY" = 1 ]; then
			echo "trace instance $name holds a frozen breach: --revert saves its trace in $dst/ first"
			continue
		fi
		if ! trace_save "$name" "$dst" 2>/dev/null; then
			rm -rf "$dst"
			die "trace instance $name holds a frozen breach and saving its trace in $dst/ failed; nothing reverted (make room there, or --revert --force to drop it)"
		fi
		echo "trace instance $name holds a frozen breach (RANT_BREACH, tracing_on 0): its trace is saved in $dst/"
	done <"$SD/trace_instances"
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
