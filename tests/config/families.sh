# shellcheck shell=bash
# The step families of lib/steps/, one at a time, without root: sourced by
# test_steps.sh (which defines ok, TOP and TMP). Each test runs in a
# subshell that sources lib/config-lib.sh and one family, stubs the
# commands the steps read (ip, tc, ethtool, setpci, gsysctl, irq_read, ...)
# as shell functions, and replaces change() by one that records
# "UNDO|CMD" in $CHANGES (and, with CHANGE_RUNS=1, runs CMD: the trace
# family works on a tracefs tree of its own in $TMP). A result is a line
# in $TMP/fam.results, turned into TAP at the end.
# shellcheck disable=SC2034  # the families read the globals set here
# shellcheck disable=SC2317  # stubs are called by the sourced steps

FAM_RESULTS=$TMP/fam.results
: >"$FAM_RESULTS"

# res RC NAME [DIAG]: one result (0 = pass).
res() {
	local d=${3:-}
	printf '%s\t%s\t%s\n' "$1" "$2" "${d//$'\n'/ | }" >>"$FAM_RESULTS"
}

# family NAME: the library and step family NAME in this subshell, with the
# recording change() and config.sh's globals at plain values.
family() {
	# shellcheck source=lib/config-lib.sh
	source "$TOP/lib/config-lib.sh"
	# shellcheck source=/dev/null
	source "$TOP/lib/steps/$1.sh"
	PROG=test MODE=apply JOURNAL=$TMP/journal.$1 SD=$TMP/sd.$1
	CHANGES=$TMP/changes.$1
	mkdir -p "$SD"
	: >"$CHANGES"
	IFACE=t0 CUR_NS='' TGT_NS='' NS_NAME=ns_t0 MOVE_PENDING=0 KIND=veth DRIVER=veth
	NS_INSIDE=
	change() {
		ST_CHANGED=$((ST_CHANGED + 1))
		local undo=$1
		shift
		printf '%s|%s\n' "$undo" "$(qcmd "$@")" >>"$CHANGES"
		[ -z "${CHANGE_RUNS:-}" ] || "$@" || failed "$(qcmd "$@") failed"
	}
}

# run NAME: step NAME as steps_run runs it; its result line on stdout.
run() {
	step "$1"
	"$1"
	step_end
}

# changes: what change() recorded, one "UNDO|CMD" a line.
changes() { cat "$CHANGES"; }

# expect NAME GOT WANT: a result comparing two strings.
expect() {
	if [ "$2" = "$3" ]; then res 0 "$1"; else res 1 "$1" "got: $2; want: $3"; fi
}

# status_of LINE: the status column of a step's result line.
status_of() { awk '{ s = substr($0, 17, 16); sub(/ +$/, "", s); print s }' <<<"$1"; }

# --- net -----------------------------------------------------------------------

(
	family net
	TGT_NS=ns_t0 IP_ADDR=10.0.0.1 IP_PFX=24 FAMILY=4
	ip() { echo '[{"addr_info":[{"local":"10.9.9.9","prefixlen":8}]}]'; }
	out=$(run net_address)
	expect "net: net_address adds the address where the interface goes, undo deletes it" \
		"$(status_of "$out") $(changes)" \
		"applied ip -n ns_t0 addr del 10.0.0.1/24 dev t0|ip -n ns_t0 addr add 10.0.0.1/24 dev t0"
	ip() { echo '[{"addr_info":[{"local":"10.0.0.1","prefixlen":24}]}]'; }
	: >"$CHANGES"
	out=$(run net_address)
	expect "net: net_address with the address in place: already set, no change" \
		"$(status_of "$out")|$(changes)" "already set|"

	tc() { echo '[{"kind":"pfifo_fast","handle":"0:","root":true}]'; }
	out=$(run net_qdisc)
	expect "net: net_qdisc replaces the root qdisc; undo restores the default" \
		"$(status_of "$out") $(changes)" \
		"applied qdisc_restore ns_t0 t0 pfifo_fast 0:|tc -n ns_t0 qdisc replace dev t0 root noqueue"

	ip() { echo '[{"flags":["BROADCAST","MULTICAST","UP"]}]'; }
	: >"$CHANGES"
	REMOTE_MAC=02:00:00:00:00:01
	run net_multicast >/dev/null
	run net_arp >/dev/null
	expect "net: net_multicast and net_arp turn them off, undo on" "$(changes | tr '\n' ' ')" \
		"ip -n ns_t0 link set dev t0 multicast on|ip -n ns_t0 link set dev t0 multicast off ip -n ns_t0 link set dev t0 arp on|ip -n ns_t0 link set dev t0 arp off "

	NO_NS=1
	out=$(run net_namespace)
	BUSY_POLL=''
	out2=$(run net_busy_poll)
	expect "net: net_namespace and net_busy_poll skipped when not asked for" \
		"$(status_of "$out") $(status_of "$out2")" "skipped skipped"
) 2>>"$TMP/fam.err"

# --- nic -----------------------------------------------------------------------

(
	family nic
	TGT_NS=ns_t0 RING_SIZE=512
	ethtool() {
		case $1 in
		-l) printf 'Channel parameters for t0:\nPre-set maximums:\nRX:\t\tn/a\nTX:\t\tn/a\nOther:\t\t1\nCombined:\t8\nCurrent hardware settings:\nRX:\t\tn/a\nTX:\t\tn/a\nOther:\t\t1\nCombined:\t4\n' ;;
		-g) printf 'Ring parameters for t0:\nPre-set maximums:\nRX:\t\t256\nTX:\t\t4096\nCurrent hardware settings:\nRX:\t\t128\nTX:\t\t1024\n' ;;
		*) return 1 ;;
		esac
	}
	out=$(run nic_channels)
	expect "nic: nic_channels to one combined channel, undo the saved count" \
		"$(status_of "$out") $(changes)" \
		"applied inns ns_t0 ethtool -L t0 combined 4|inns ns_t0 ethtool -L t0 combined 1"
	: >"$CHANGES"
	out=$(run nic_rings)
	expect "nic: nic_rings 512, capped at the driver's maximum, undo the saved sizes" \
		"$(changes) $([[ $out == *"rx 256 tx 512 (the driver's maximum)"* ]] && echo noted)" \
		"inns ns_t0 ethtool -G t0 rx 128 tx 1024|inns ns_t0 ethtool -G t0 rx 256 tx 512 noted"
	out=$(run nic_coalesce)
	expect "nic: nic_coalesce on a driver without coalescing: unsupported here" \
		"$(status_of "$out")" "unsupported here"
	out=$(run nic_privflags)
	[[ $out == *"no private flags rant tunes on veth"* ]]
	res $? "nic: nic_privflags names the drivers it knows" "$out"
) 2>>"$TMP/fam.err"

# --- cpu -----------------------------------------------------------------------

(
	family cpu
	CPU=1 KEEP_RT=0 ISO_CPUS=(1) KSIRQ_PRIO=11
	RT=950000
	gsysctl() { if [ "$#" = 2 ]; then RT=$2; else echo "$RT"; fi; }
	CHANGE_RUNS=1
	out=$(run cpu_rt_throttle)
	expect "cpu: cpu_rt_throttle sets -1, undo writes the old value" \
		"$(status_of "$out") $(changes)" \
		"applied gsysctl kernel.sched_rt_runtime_us 950000|gsysctl kernel.sched_rt_runtime_us -1"
	: >"$CHANGES"
	gsysctl() { if [ "$#" = 2 ]; then :; else echo 950000; fi; }
	out=$(run cpu_rt_throttle)
	[[ $(status_of "$out") == failed ]] && [[ $out == *"reads back 950000"* ]]
	res $? "cpu: cpu_rt_throttle fails when the sysctl does not read back -1" "$out"
	KEEP_RT=1
	out=$(run cpu_rt_throttle)
	expect "cpu: --keep-rt-throttle skips cpu_rt_throttle" "$(status_of "$out")" skipped

	# ksoftirqd/1 is this shell, seen through a stubbed /proc/PID/stat.
	: >"$CHANGES"
	pid_of_comm() { [ "$1" = ksoftirqd/1 ] && echo "$$"; }
	POL="100 0 0 0"
	task_stat() { echo "$POL"; }
	sched_set() { POL="100 0 $3 1"; }
	out=$(run cpu_ksoftirqd)
	expect "cpu: cpu_ksoftirqd makes ksoftirqd SCHED_FIFO, undo saves policy and priority" \
		"$(status_of "$out") $(changes)" \
		"applied sched_restore $$ 100 0 0|sched_set $$ 100 11"
	POL="100 0 0 0"
	sched_set() { :; }
	out=$(run cpu_ksoftirqd)
	[[ $(status_of "$out") == failed ]] && [[ $out == *"policy other 0 after chrt"* ]]
	res $? "cpu: cpu_ksoftirqd reads the policy back and fails if chrt did not take" "$out"

	# Another side under the same state directory isolates CPU 1: this
	# side's cpu_isolate refuses in one line instead of running tuna.
	STATE_DIR=$TMP/state SD=$TMP/state/t0
	mkdir -p "$STATE_DIR/t9" "$SD"
	printf 'S\t100\t1\n' >"$STATE_DIR/t9/affinity.3"
	printf 'cpu_isolate\t%s\n' "$(qcmd cpu_restore "$STATE_DIR/t9/affinity.3")" >"$STATE_DIR/t9/journal"
	ISO_CPUS=(0)
	: >"$CHANGES"
	out=$(run cpu_isolate)
	[[ $(status_of "$out") == "unsupported here" ]] && [[ $out == *"isolates CPU 1 for t9 ($STATE_DIR/t9)"* ]] &&
		[ ! -s "$CHANGES" ]
	res $? "cpu: cpu_isolate beside another side's isolation: unsupported here, naming it" "$out"

	# cpus_mask and cpulist_expand (the library's, used by cpu and trace)
	expect "cpu: cpulist_expand 0-2,5" "$(cpulist_expand 0-2,5)" "0 1 2 5"
	expect "cpu: mask_norm of cpus_mask 1" "$(mask_norm "$(cpus_mask 1)")" 2
) 2>>"$TMP/fam.err"

# --- irq -----------------------------------------------------------------------

(
	family irq
	IRQS=(30 31) IRQ_CPU=1
	EFF=0
	irq_read() { case $2 in smp_affinity_list) echo 0-1 ;; *) echo "$EFF" ;; esac; }
	out=$(run irq_affinity)
	expect "irq: irq_affinity steers each IRQ, undo writes the old list" \
		"$(changes | tr '\n' ' ')" "irq_set 30 0-1|irq_set 30 1 irq_set 31 0-1|irq_set 31 1 "
	[[ $(status_of "$out") == failed ]] && [[ $out == *"IRQ:CPU 30:0 31:0"* ]]
	res $? "irq: irq_affinity fails when the effective affinity does not follow" "$out"
	EFF=1
	out=$(run irq_affinity)
	expect "irq: irq_affinity applied when the effective affinity reads back" \
		"$(status_of "$out")" applied
	IRQS=()
	out=$(run irq_threads)
	expect "irq: irq_threads without IRQs: unsupported here" "$(status_of "$out")" "unsupported here"
) 2>>"$TMP/fam.err"

# --- pci -----------------------------------------------------------------------

(
	family pci
	PCI_ADDR=''
	out=$(run pci_aspm)
	expect "pci: pci_aspm on a device that is not PCI: unsupported here" \
		"$(status_of "$out")" "unsupported here"
	PCI_ADDR=0000:01:00.0
	pci_upstream() { echo 0000:00:1c.0; }
	# Lockdown: setpci exits 0 and the bits stay.
	setpci() { [ "$#" = 3 ] && echo 0042; return 0; }
	out=$(run pci_aspm)
	expect "pci: pci_aspm turns ASPM off on the device and its port, undo the saved bits" \
		"$(changes | tr '\n' ' ')" \
		"pci_aspm_set 0000:01:00.0 2|pci_aspm_set 0000:01:00.0 0 pci_aspm_set 0000:00:1c.0 2|pci_aspm_set 0000:00:1c.0 0 "
	[[ $(status_of "$out") == failed ]] && [[ $out == *"read back ASPM 2, setpci's write was not applied"* ]]
	res $? "pci: pci_aspm reads back and fails when the write was refused" "$out"
) 2>>"$TMP/fam.err"

# --- ptp -----------------------------------------------------------------------

(
	family ptp
	NO_PTP=1
	out=$(run ptp_phc2sys)
	expect "ptp: --no-ptp skips ptp_phc2sys" "$(status_of "$out")" skipped
	NO_PTP=0 PHC='' PTP_SOURCE='' PTP_SYNC_TO=''
	out=$(run ptp_phc2sys)
	expect "ptp: ptp_phc2sys without a PHC: unsupported here" "$(status_of "$out")" "unsupported here"
	PHC=/dev/ptp3
	pid_of_comm() { :; }
	out=$(run ptp_phc2sys)
	expect "ptp: ptp_phc2sys starts its own phc2sys, undo stops that one" "$(changes)" \
		"ptp_stop $SD/phc2sys.pid|ptp_start $SD/phc2sys.pid $SD/phc2sys.log -s /dev/ptp3 -c CLOCK_REALTIME -O 0 -m"
	# A pid file naming a process that is not phc2sys: ptp_stop leaves it.
	sleep 30 &
	pid=$!
	printf '%s %s\n' "$pid" "$(task_stat "$pid" | awk '{print $1}')" >"$SD/phc2sys.pid"
	ptp_stop "$SD/phc2sys.pid"
	kill -0 "$pid" 2>/dev/null && [ ! -e "$SD/phc2sys.pid" ]
	res $? "ptp: ptp_stop stops only a phc2sys it started (a sleep with its pid lives)"
	kill "$pid"
) 2>>"$TMP/fam.err"

# --- trace ---------------------------------------------------------------------

(
	family trace
	# A tracefs of the test's own: one instance, two event systems.
	TRACEFS=$TMP/tracefs
	I=$TRACEFS/instances/ti
	mkdir -p "$I/events/irq/irq_handler_entry" "$I/events/sched/sched_switch" \
		"$I/events/sched/sched_wakeup" "$TRACEFS/events/irq/irq_handler_entry" \
		"$TRACEFS/events/sched/sched_switch" "$TRACEFS/events/sched/sched_wakeup"
	echo 1410 >"$I/buffer_size_kb"
	echo '[local] global mono' >"$I/trace_clock"
	echo 3 >"$I/tracing_cpumask"
	echo 1 >"$I/tracing_on"
	: >"$I/trace"
	for e in irq/irq_handler_entry sched/sched_switch sched/sched_wakeup; do echo 0 >"$I/events/$e/enable"; done
	TRACE=1 TRACE_INSTANCE=ti TRACE_BUF_KB=2048 ISO_CPUS=(1)
	# The kernel shows the selected clock in brackets; a plain write here.
	trace_write() {
		if [[ $1 == */trace_clock ]]; then
			sed "s/\[\([a-z]*\)\]/\1/; s/\b$2\b/[$2]/" "$TRACEFS/instances/$1" >"$TMP/tc"
			cat "$TMP/tc" >"$TRACEFS/instances/$1"
		else
			printf '%s\n' "$2" >"$TRACEFS/instances/$1"
		fi
	}
	CHANGE_RUNS=1
	for s in trace_buffer trace_clock trace_cpumask trace_events; do run "$s"; done >"$TMP/trace.out"
	expect "trace: buffer, clock, cpumask and events applied on an instance" \
		"$(awk '{print $2}' "$TMP/trace.out" | tr '\n' ' ')" "applied applied applied applied "
	expect "trace: the instance reads buffer 2048, mono, CPU 1, events on" \
		"$(cat "$I/buffer_size_kb") $(trace_clock_now "$I/trace_clock") $(mask_norm "$(cat "$I/tracing_cpumask")") $(cat "$I"/events/*/*/enable | tr -d '\n')" \
		"2048 mono 2 111"
	# The recorded undos, newest first, put every value back.
	tac "$CHANGES" | while IFS='|' read -r undo _; do eval "$undo"; done
	expect "trace: the undos restore buffer, clock, cpumask and events" \
		"$(cat "$I/buffer_size_kb") $(trace_clock_now "$I/trace_clock") $(cat "$I/tracing_cpumask") $(cat "$I"/events/*/*/enable | tr -d '\n')" \
		"1410 local 3 000"
	# A frozen breach: trace_clock refuses to erase it.
	echo "rant-1 [001] RANT_BREACH seq=7" >"$I/trace"
	echo 0 >"$I/tracing_on"
	out=$(run trace_clock)
	[[ $(status_of "$out") == failed ]] && [[ $out == *"holds a frozen breach"* ]] &&
		[ "$(trace_clock_now "$I/trace_clock")" = local ]
	res $? "trace: trace_clock fails rather than erase a frozen breach" "$out"
	# Another side's apply configured this instance: refused in one line.
	STATE_DIR=$TMP/tstate SD=$TMP/tstate/t0
	mkdir -p "$STATE_DIR/t9"
	echo ti >"$STATE_DIR/t9/trace_instances"
	echo "trace_cpumask	x" >"$STATE_DIR/t9/journal"
	out=$(trace_sides_check 2>&1)
	rc=$?
	[ "$rc" = 1 ] && [ "$(wc -l <<<"$out")" = 1 ] && [[ $out == *"--trace-instance ti-t0"* ]]
	res $? "trace: a second side on the same instance is refused in one line" "exit $rc: $out"
	TRACE=0
	out=$(run trace_buffer)
	expect "trace: without --trace the trace steps are skipped" "$(status_of "$out")" skipped
) 2>>"$TMP/fam.err"

while IFS=$'\t' read -r rc name diag; do
	ok "$rc" "$name" "$diag"
done <"$FAM_RESULTS"
[ ! -s "$TMP/fam.err" ] || grep -v '^$' "$TMP/fam.err" | sed 's/^/# stderr: /'
