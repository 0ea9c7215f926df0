# config-lib.sh: the step machinery of rant's config.sh, sourced by it and
# by its tests (tuned's "functions" library is the model: the library does
# the bookkeeping, the steps stay short).
#
# A step is a shell function named in the STEPS table. steps_run calls each
# in order between step and step_end; the step reads the machine, reports
# with note/failed/unsupported/skipped, and makes every change through
# change(), which journals a command restoring the old value before it runs
# the new one (tuned's _save_set_sys/_restore_sys, persisted). --revert is
# journal_replay: the journal's undo commands, step by step in the reverse
# of the STEPS order, newest first within a step.
#
# The sourcing script sets:
#   PROG     name for messages
#   MODE     apply | dry-run | verify | revert
#   JOURNAL  the journal file (apply and revert only)
#   STEPS    array of "name|description", in run order
# and may define show_cmd_hook CMD... to print one of its helper commands
# the way a user would type it (return non-zero for commands it does not
# know).
# shellcheck shell=bash
# shellcheck disable=SC2034  # RESULTS and the ST_* variables are read by the caller

# --- messages ---------------------------------------------------------------

die() {
	printf '%s: %s\n' "${PROG:-config.sh}" "$*" >&2
	exit 1
}

warn() {
	printf '%s: %s\n' "${PROG:-config.sh}" "$*" >&2
}

# qcmd CMD...: CMD as one line of shell, quoted so that eval runs it again.
qcmd() {
	local s
	s=$(printf '%q ' "$@")
	printf '%s' "${s% }"
}

# --- the step table -----------------------------------------------------------

# steps_names: the step names, one a line, in run order.
steps_names() {
	local s
	for s in "${STEPS[@]}"; do
		printf '%s\n' "${s%%|*}"
	done
}

# steps_list: "name  description", one step a line, in run order.
steps_list() {
	local s
	for s in "${STEPS[@]}"; do
		printf '%-16s%s\n' "${s%%|*}" "${s#*|}"
	done
}

# steps_usage: the step table for --help, descriptions wrapped at 78 columns.
steps_usage() {
	local s name line first
	for s in "${STEPS[@]}"; do
		name=${s%%|*}
		first=1
		while IFS= read -r line; do
			if [ "$first" = 1 ]; then
				printf '  %-16s%s\n' "$name" "$line"
				first=0
			else
				printf '  %-16s%s\n' "" "$line"
			fi
		done < <(fold -s -w 60 <<<"${s#*|}" | sed 's/ *$//')
	done
}

# steps_check: every step in STEPS is a function; dies naming the first that
# is not (a table and its functions that disagree are a bug in config.sh).
steps_check() {
	local n
	while read -r n; do
		declare -F "$n" >/dev/null || die "internal error: step $n has no function"
	done < <(steps_names)
}

# --- one step's bookkeeping -----------------------------------------------------

STEP=
ST_CHANGED=0
ST_FAIL=
ST_UNSUP=
ST_SKIP=
ST_NOTE=
RESULTS=()

step() {
	STEP=$1
	ST_CHANGED=0
	ST_FAIL=
	ST_UNSUP=
	ST_SKIP=
	ST_NOTE=
}

note() { ST_NOTE=${ST_NOTE:+$ST_NOTE; }$1; }
failed() { ST_FAIL=${ST_FAIL:+$ST_FAIL; }$1; }
unsupported() { ST_UNSUP=$1; }
skipped() { ST_SKIP=$1; }

# step_result STEP STATUS [DETAIL]: print a step's line and remember it for
# the summary.
step_result() {
	printf '%-15s %-16s %s\n' "$1" "$2" "${3:+($3)}"
	RESULTS+=("$1|$2")
}

step_end() {
	local status detail=$ST_NOTE
	if [ -n "$ST_FAIL" ]; then
		status=failed detail=$ST_FAIL
	elif [ "$ST_CHANGED" -gt 0 ]; then
		case $MODE in
		dry-run) status="would apply" ;;
		verify) status="not set" ;;
		*) status=applied ;;
		esac
	elif [ -n "$ST_UNSUP" ]; then
		status="unsupported here" detail=$ST_UNSUP
	elif [ -n "$ST_SKIP" ]; then
		status=skipped detail=$ST_SKIP
	else
		status="already set"
	fi
	step_result "$STEP" "$status" "$detail"
}

# steps_run: every step of STEPS, in order.
steps_run() {
	local s
	while read -r s; do
		step "$s"
		"$s"
		step_end
	done < <(steps_names)
}

# --- the one place that changes things ----------------------------------------

# show_cmd CMD...: CMD as the user would type it.
show_cmd() {
	if declare -F show_cmd_hook >/dev/null && show_cmd_hook "$@"; then
		return 0
	fi
	qcmd "$@"
}

# journal_add UNDO: journal UNDO for the current step (apply only), for
# changes whose undo must be recorded apart from one change() call.
journal_add() {
	[ "$MODE" = apply ] || return 0
	printf '%s\t%s\n' "$STEP" "$1" >>"$JOURNAL"
}

# change UNDO CMD...: make one change. UNDO (built with qcmd) restores the
# value CMD replaces; it is journalled before CMD runs. --dry-run prints CMD,
# --verify only counts it as not in place. A failure is recorded in the step.
change() {
	local undo=$1 err
	shift
	ST_CHANGED=$((ST_CHANGED + 1))
	case $MODE in
	dry-run)
		printf '    + %s\n' "$(show_cmd "$@")"
		return 0
		;;
	verify) return 0 ;;
	esac
	journal_add "$undo"
	if ! err=$("$@" 2>&1 >/dev/null); then
		err=${err//$'\n'/ }
		failed "$(show_cmd "$@"): ${err:-failed}"
	fi
	return 0
}

# --- where config.sh runs ----------------------------------------------------------

# ns_initial TYPE: whether this process is in the initial TYPE namespace (net,
# mnt), the one kernel threads live in (kthreadd, pid 2); true when that
# cannot be told (no kthreadd in this pid namespace).
ns_initial() {
	local k
	[ "$(cat /proc/2/comm 2>/dev/null)" = kthreadd ] && k=$(readlink "/proc/2/ns/$1" 2>/dev/null) ||
		return 0
	[ "$(readlink "/proc/self/ns/$1")" = "$k" ]
}

# sides_others: the state directories of the other interfaces tuned under
# this state directory and not reverted (their journal is not empty): the
# other side of a pair on this machine (an emitter's and a reflector's
# interface), one a line.
sides_others() {
	local d
	for d in "$STATE_DIR"/*/; do
		d=${d%/}
		[ "$d" = "$SD" ] || [ ! -s "$d/journal" ] || printf '%s\n' "$d"
	done
}

# --- files, seen from a network namespace ---------------------------------------

# inns NS CMD...: run CMD in network namespace NS ("" = this one).
inns() {
	local ns=$1
	shift
	if [ -n "$ns" ]; then
		ip netns exec "$ns" "$@"
	else
		"$@"
	fi
}

# wfile NS PATH VALUE: write VALUE to a file (sysfs, procfs), seen from NS,
# and read it back.
wfile() {
	local got
	if [ -n "$1" ]; then
		# shellcheck disable=SC2016  # the inner shell expands $1 and $2
		ip netns exec "$1" sh -c 'printf "%s\n" "$2" >"$1"' sh "$2" "$3" || return 1
	else
		printf '%s\n' "$3" >"$2" || return 1
	fi
	got=$(rfile "$1" "$2") || return 1
	[ "$got" = "$3" ] || { echo "$2 reads back $got, not $3" >&2; return 1; }
}

# rfile NS PATH: read a file, seen from NS.
rfile() {
	inns "$1" cat "$2"
}

# --- reading the machine: helpers the step families share ---------------------
#
# rd and what read config.sh's CUR_NS, KIND and DRIVER.

# Reads go to where the interface is now; changes to where it will be.
rd() { inns "$CUR_NS" "$@"; }

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

in_list() {
	[[ " $2 " == *" $1 "* ]]
}

# gsysctl NAME [VALUE]: read a sysctl, or write it and read it back
# (net.core.busy_* exist only in the initial network namespace).
gsysctl() {
	local p=/proc/sys/${1//.//} got
	[ -e "$p" ] || return 1
	[ "$#" -eq 2 ] || { cat "$p"; return; }
	printf '%s\n' "$2" >"$p" || return 1
	got=$(cat "$p")
	[ "$got" = "$2" ] || { echo "$1 reads back $got, not $2" >&2; return 1; }
}

# what the interface is, for "unsupported here" reasons
what() {
	echo "${KIND:-$DRIVER}"
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

# --- revert ------------------------------------------------------------------

# journal_order FILE: the journal's line numbers in the order --revert runs
# them: lines of steps that STEPS does not know (a journal written by another
# version) first, then step by step in the reverse of the STEPS order; newest
# first within a step.
journal_order() {
	local -A known=()
	local n
	while read -r n; do known[$n]=1; done < <(steps_names)
	awk -F'\t' '{print NR "\t" $1}' "$1" | tac |
		while IFS=$'\t' read -r n s; do
			[ -n "${known[$s]:-}" ] || printf '%s\n' "$n"
		done
	while read -r s; do
		awk -F'\t' -v s="$s" '$1 == s {print NR}' "$1" | tac
	done < <(steps_names | tac)
}

# journal_replay [--dry-run]: run the journal's undo commands (see
# journal_order), in this shell (an undo may change what the next one sees:
# trace_umount forgets the tracefs it unmounts); one line per step: restored
# (with what the undo printed) when every undo of the step succeeded, and
# the undos check what they restore, or failed. Lines that failed stay in the journal, in their order, for
# another --revert; returns 1 if any did. --dry-run prints the undo commands
# and changes nothing.
journal_replay() {
	local dry=0 lines=() i name undo out rc prev='' ok=1 detail='' failed_at=() status
	[ "${1:-}" != --dry-run ] || dry=1
	mapfile -t lines <"$JOURNAL"
	for i in $(journal_order "$JOURNAL") end; do
		name=
		if [ "$i" != end ]; then
			name=${lines[i - 1]%%$'\t'*}
			undo=${lines[i - 1]#*$'\t'}
		fi
		if [ "$name" != "$prev" ] && [ -n "$prev" ]; then
			status=restored
			[ "$dry" = 0 ] || status="would restore"
			[ "$ok" = 1 ] || status=failed
			step_result "$prev" "$status" "$detail"
			ok=1 detail=
		fi
		[ "$i" != end ] || break
		prev=$name
		[ -n "$undo" ] || continue
		if [ "$dry" = 1 ]; then
			printf '    + %s\n' "$undo"
		elif eval "$undo" >"$JOURNAL.out" 2>&1; then
			out=$(cat "$JOURNAL.out")
			[ -z "$out" ] || detail="${detail:+$detail; }${out//$'\n'/ }"
		else
			rc=$?
			out=$(cat "$JOURNAL.out")
			ok=0
			out="${out:-exit status $rc}"
			detail="${detail:+$detail; }${undo}: ${out//$'\n'/ }"
			failed_at+=("$i")
		fi
	done
	[ "$dry" = 0 ] || return 0
	rm -f "$JOURNAL.out"
	: >"$JOURNAL"
	[ "${#failed_at[@]}" -gt 0 ] || return 0
	for i in $(printf '%s\n' "${failed_at[@]}" | sort -n); do
		printf '%s\n' "${lines[i - 1]}" >>"$JOURNAL"
	done
	return 1
}

# summary: the table of steps by status and one closing line.
summary() {
	local r status names counts=() s
	echo
	printf '%-16s %5s  %s\n' status steps names
	for status in applied "would apply" "already set" "not set" "unsupported here" \
		skipped failed restored "would restore"; do
		names=()
		for r in "${RESULTS[@]}"; do
			[ "${r#*|}" = "$status" ] && names+=("${r%%|*}")
		done
		[ "${#names[@]}" -gt 0 ] || continue
		printf '%-16s %5d  %s\n' "$status" "${#names[@]}" "${names[*]}"
		counts+=("${#names[@]} $status")
	done
	s=$(printf '%s, ' "${counts[@]}")
	printf '%s %s: %s\n' "${PROG:-config.sh}" "$MODE" "${s%, }"
}
