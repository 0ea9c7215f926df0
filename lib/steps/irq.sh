# lib/steps/irq.sh: config.sh's IRQ steps (irq_*): the interface's IRQs to
# the IRQ CPU (read back), their irq/NN threads SCHED_FIFO.
#
# Reads config.sh's globals: IRQS, IRQ_CPU, IRQ_PRIO, MODE.
# shellcheck shell=bash
# shellcheck disable=SC2317  # reached from the STEPS table and the journal

# irq_read IRQ FILE: /proc/irq/IRQ/FILE (smp_affinity_list, effective_affinity_list).
irq_read() {
	cat "/proc/irq/$1/$2" 2>/dev/null
}

# irq_set IRQ CPULIST: set an IRQ's affinity and read it back.
irq_set() {
	local got
	printf '%s\n' "$2" >"/proc/irq/$1/smp_affinity_list" || return 1
	got=$(irq_read "$1" smp_affinity_list)
	[ "$got" = "$2" ] || { echo "IRQ $1: smp_affinity_list reads back $got, not $2" >&2; return 1; }
}

irq_affinity() {
	if [ "${#IRQS[@]}" -eq 0 ]; then
		unsupported "$(what) has no IRQs"
		return
	fi
	local irq v e bad=()
	for irq in "${IRQS[@]}"; do
		v=$(irq_read "$irq" smp_affinity_list) || continue
		[ "$v" = "$IRQ_CPU" ] && continue
		change "$(qcmd irq_set "$irq" "$v")" irq_set "$irq" "$IRQ_CPU"
	done
	note "IRQs ${IRQS[*]} -> CPU $IRQ_CPU"
	[ "$MODE" = apply ] || return 0
	for irq in "${IRQS[@]}"; do
		e=$(irq_read "$irq" effective_affinity_list ||
			irq_read "$irq" smp_affinity_list) || continue
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
