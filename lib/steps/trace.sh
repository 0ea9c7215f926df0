# lib/steps/trace.sh: config.sh's ftrace steps (trace_*): tracefs found or
# mounted, the instance rant -T writes to, its buffer, clock, cpumask,
# events and snapshot; and what --revert needs around them (trace_rmdir,
# trace_umount, a frozen breach saved before its instance goes).
#
# Reads config.sh's globals: TRACE, TRACE_INSTANCE, TRACE_BUF_KB, ISO_CPUS,
# FORCE, REVERT_DRY, MODE, SD; sets TRACEFS, TRACEFS_TEMP, TRACE_INST_NEW.
# shellcheck shell=bash
# shellcheck disable=SC2317  # reached from the STEPS table and the journal

# trace_find: set TRACEFS, mounting tracefs if it is not (temporarily unless
# applying).
trace_find() {
	# (a tracefs found before and unmounted since is looked for again)
	[ -z "$TRACEFS" ] || [ -d "$TRACEFS/instances" ] || grep -q " $TRACEFS tracefs " /proc/mounts ||
		TRACEFS=
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

# trace_write INSTANCE/FILE VALUE: write a file of an instance, read it back
# (buffer_size_kb is rounded up by the kernel; trace_buffer allows for it).
trace_write() {
	local f got want=$2
	trace_find || return 1
	f=$TRACEFS/instances/$1
	printf '%s\n' "$2" >"$f" || return 1
	case $f in
	*/buffer_size_kb) return 0 ;;
	*/trace_clock) got=$(trace_clock_now "$f") ;;
	*/tracing_cpumask) got=$(mask_norm "$(cat "$f")") want=$(mask_norm "$2") ;;
	*) got=$(cat "$f") ;;
	esac
	[ "$got" = "$want" ] || { echo "$f reads back $got, not $want" >&2; return 1; }
}

# trace_rmdir NAME: remove an instance config.sh made; then it must be gone.
trace_rmdir() {
	trace_find || { echo "no tracefs: cannot remove trace instance $1" >&2; return 1; }
	[ ! -d "$TRACEFS/instances/$1" ] || rmdir "$TRACEFS/instances/$1" || return 1
	[ ! -d "$TRACEFS/instances/$1" ] || { echo "$TRACEFS/instances/$1 is still there" >&2; return 1; }
}

trace_cleanup() {
	if [ "$TRACEFS_TEMP" = 1 ]; then umount /sys/kernel/tracing 2>/dev/null || true; fi
}

trace_inst() {
	echo "$TRACEFS/instances/$TRACE_INSTANCE"
}

# trace_sides_check: refuse, in one line, an instance another side's apply
# configured (sides_others): rewriting its tracing_cpumask would stop
# tracing that side's CPUs (rant there cannot even write its markers), and
# the two reverts would each restore or delete it under the other.
trace_sides_check() {
	local d
	while read -r d; do
		grep -qxF "$TRACE_INSTANCE" "$d/trace_instances" 2>/dev/null || continue
		die "trace instance $TRACE_INSTANCE is configured for ${d##*/} by config.sh ($d): this side would rewrite its tracing_cpumask to CPUs ${ISO_CPUS[*]}; give this side its own with --trace-instance $TRACE_INSTANCE-$IFACE (and rant -T --trace-instance $TRACE_INSTANCE-$IFACE), or revert ${d##*/} first"
	done < <(sides_others)
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
