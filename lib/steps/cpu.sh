# lib/steps/cpu.sh: config.sh's CPU steps (cpu_*): isolation with tuna
# (cpu_snapshot saves every affinity first, cpu_restore puts it back),
# ksoftirqd priorities, RT throttling.
#
# Reads config.sh's globals: ISO_CPUS, IRQS, CPU, KEEP_RT, KSIRQ_PRIO, MODE,
# SD.
# shellcheck shell=bash
# shellcheck disable=SC2317  # reached from the STEPS table and the journal

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

# sides_isolated: "DIR CPUS" for each other side (sides_others) whose journal
# holds a CPU isolation, CPUS (space separated) as its cpu_snapshot saved them.
sides_isolated() {
	local d s undo w
	while read -r d; do
		while IFS=$'\t' read -r s undo; do
			[ "$s" = cpu_isolate ] || continue
			eval "w=($undo)" # cpu_restore FILE
			[ ! -r "${w[1]}" ] || awk -F'\t' -v d="$d" '$1 == "S" {print d, $3; exit}' "${w[1]}"
		done <"$d/journal"
	done < <(sides_others)
}

# cpu_sides_other: "CPU N for IFACE (DIR)", comma separated, for the other
# sides that isolate CPUs other than this side's.
cpu_sides_other() {
	local d cpus c out=''
	while read -r d cpus; do
		for c in "${ISO_CPUS[@]}"; do
			in_list "$c" "$cpus" || { out+="${out:+, }CPU ${cpus// /,} for ${d##*/} ($d)"; break; }
		done
	done < <(sides_isolated)
	echo "$out"
}

# cpu_isolate: tuna --isolate. Not beside another side's isolation: tuna
# would move the threads it confined to the remaining CPUs onto the other
# side's CPUs (or this side's onto them), and each revert puts back the
# affinities its own snapshot saw, undoing the other's; the step says so
# instead and leaves the CPUs shared.
cpu_isolate() {
	local online hk=0 c off n=$ST_CHANGED list
	online=$(cpulist_expand "$(cat /sys/devices/system/cpu/online)")
	for c in $online; do in_list "$c" "${ISO_CPUS[*]}" || hk=$((hk + 1)); done
	list=$(echo "${ISO_CPUS[*]}" | tr ' ' ,)
	if [ "$hk" -eq 0 ]; then
		unsupported "no CPU left for everything else (online $(cat /sys/devices/system/cpu/online), app+IRQ $list)"
		return
	fi
	# (before counting offenders: the other side's isolation confines every
	# thread to the remaining CPUs, which would look isolated from here)
	local others
	others=$(cpu_sides_other)
	if [ -n "$others" ]; then
		unsupported "config.sh isolates $others; isolating CPUs $list too would move threads onto that side's CPUs and each revert would undo the other's: CPUs $list stay shared (revert that side first to isolate them)"
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
