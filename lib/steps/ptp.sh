# lib/steps/ptp.sh: config.sh's PTP step: its own phc2sys, started with a
# pid file (pid and start time) and stopped only if it is still that one.
#
# Reads config.sh's globals: NO_PTP, PTP_SOURCE, PTP_SYNC_TO, PHC, SD.
# shellcheck shell=bash
# shellcheck disable=SC2317  # reached from the STEPS table and the journal

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
