#!/usr/bin/env bash
# Helpers for rant's network tests, after the kernel's selftests/net/lib.sh
# (tests_run, log_test) and lib/sh/defer.sh (a cleanup scope per test).
#
# A test file sources this file, names its tests (before any require_*,
# so that a file-level skip counts them) and ends with tests_run:
#
#   # shellcheck disable=SC2034  # read by tests_run
#   ALL_TESTS="core_counts core_ipv6"
#   require_root
#   core_counts() {
#           setup_pair || skip_test "cannot create namespaces and veth"
#           start_reflector r1
#           emit_bg e1 -a "$IP_B" -d 2
#           wait_measuring "$WORK/e1.txt"
#           ...
#           check_err $? "what went wrong, with the values seen"
#           log_test "what was checked"
#   }
#   tests_run
#
# tests_run runs each name of ALL_TESTS that is also in $TESTS (space
# separated; unset or empty: all of them) in a subshell of its own, with
# its own $WORK directory, $UNIQ suffix and defer scope: what a test defers
# runs when that test ends, pass, fail or skip, last deferred first, so
# every test sets up what it needs (setup_pair) and leaves nothing behind.
# A test passes unless a check failed; skip_test "reason" skips it; one
# that has not ended after $TEST_TIMEOUT seconds (default 600) is stopped
# (SIGTERM to its processes) and fails.
# A file exits 0 (every test passed or skipped), 4 (every test skipped)
# or 1 (a test failed). With $NET_RESULTS set (run.sh sets it), each test
# appends "pass|fail|skip FILE NAME" to that file; with $NET_FAILLOG set,
# each failed check's message and [FAIL] line are appended there too, for
# run.sh to print again at the end (a CI log is read from its end); with
# $NET_TIMES set, each test appends "SECONDS FILE NAME" to that file; with
# $NET_KEEP set (a directory), a failed test's $WORK is copied there.
#
# Variables for the tests (set here or by setup_pair):
# shellcheck disable=SC2034

ksft_skip=4
RET=0
FAILED=0
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RANT=${RANT:-$TOP/rant}
# Debian's python3 (the first on PATH may be another build)
PYTHON=${PYTHON:-/usr/bin/python3}
[ -x "$PYTHON" ] || PYTHON=python3
TEST_FILE=$(basename "$0")
TEST_NAME=
PORT=12345
# A test still running after TEST_TIMEOUT seconds is stopped and fails.
TEST_TIMEOUT=${TEST_TIMEOUT:-600}
# Measuring starts within 10 s (rant's warm-up limit) or never; the rest
# is slack for a loaded machine.
MEASURE_WAIT_S=20

# unique_suffix: 6 hex digits for names that must not collide with another
# run (namespaces, veth names of at most 15 characters, trace instances).
unique_suffix() {
	printf '%04x%02x' $((BASHPID & 0xffff)) $((RANDOM & 0xff))
}
UNIQ=$(unique_suffix)
WORK_ROOT=$(mktemp -d "${TMPDIR:-/tmp}/rant-test.XXXXXX")
WORK=$WORK_ROOT

# ---- defer: cleanup scopes ----

__defer_jobs=()

# defer CMD ARGS...: run CMD when the current scope ends (the test, or the
# file outside any test), last deferred first, output discarded.
defer() {
	local cmd
	cmd=$(printf '%q ' "$@")
	__defer_jobs+=("$cmd")
}

# defer_run: run and forget the current scope's deferred commands.
defer_run() {
	local i
	for ((i = ${#__defer_jobs[@]} - 1; i >= 0; i--)); do
		eval "${__defer_jobs[i]}" >/dev/null 2>&1 || true
	done
	__defer_jobs=()
}

__file_exit() {
	set +e
	defer_run
	rm -rf "$WORK_ROOT"
}
trap __file_exit EXIT
trap 'exit 130' INT TERM HUP PIPE

# ---- results ----

# __failed LINE: print a line of a failure, and keep it in $NET_FAILLOG.
__failed() {
	echo "$1"
	[ -z "${NET_FAILLOG:-}" ] || echo "$1" >>"$NET_FAILLOG"
}

# log_test DESCRIPTION: report the checks since the last log_test as one
# "TEST: ... [ OK ]" or "[FAIL]" line; a failure fails the current test.
log_test() {
	__logged=1
	if [ "$RET" -eq 0 ]; then
		printf 'TEST: %-60s [ OK ]\n' "$1"
	else
		__failed "$(printf 'TEST: %-60s [FAIL]' "$1")"
		FAILED=1
	fi
	RET=0
}

# check_err RC MSG: a non-zero RC fails the current check with MSG.
check_err() {
	if [ "$1" -ne 0 ]; then
		[ "$RET" -eq 0 ] && __failed "    $2"
		RET=1
	fi
}

# check_fail RC MSG: a zero RC fails the current check with MSG.
check_fail() {
	if [ "$1" -eq 0 ]; then
		[ "$RET" -eq 0 ] && __failed "    $2"
		RET=1
	fi
}

# skip_test REASON: end the current test as skipped (its deferred
# commands run).
skip_test() {
	printf 'TEST: %-60s [SKIP]\n' "$TEST_NAME: $1"
	__skipped=1
	exit "$ksft_skip"
}

# skip REASON: inside a test, skip_test; outside, skip every selected test
# of the file and exit 4.
skip() {
	local t
	[ -n "$TEST_NAME" ] && skip_test "$*"
	echo "SKIP: $TEST_FILE: $*"
	for t in $(tests_selected); do
		__record skip "$t"
	done
	exit "$ksft_skip"
}

require_root() {
	[ "$(id -u)" = 0 ] || skip "needs root (namespaces, veth)"
	ip netns list >/dev/null 2>&1 || skip "no network namespace support"
}

require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip "$c is not installed (sudo make deps)"
	done
}

require_rant() {
	[ -x "$RANT" ] || skip "rant is not built (make)"
}

# ---- running the tests ----

# tests_selected: the names of ALL_TESTS that $TESTS selects, in order.
tests_selected() {
	local t
	for t in ${ALL_TESTS:-}; do
		if [ -z "${TESTS:-}" ] || [[ " ${TESTS//,/ } " == *" $t "* ]]; then
			echo "$t"
		fi
	done
}

__record() {
	[ -n "${NET_RESULTS:-}" ] && echo "$1 $TEST_FILE $2" >>"$NET_RESULTS"
	return 0
}

# The end of one test's subshell: an unreported failed check or an
# unexpected exit fails it; then its deferred commands run.
__test_exit() {
	local rc=$? status=0
	set +e
	# the test's own output, even if a trap ran inside a redirection
	exec 1>&"$__test_out" 2>&"$__test_err"
	if [ "$__skipped" = 1 ]; then
		status=$ksft_skip
	elif [ "$rc" = "$ksft_skip" ]; then
		printf 'TEST: %-60s [SKIP]\n' "$TEST_NAME"
		status=$ksft_skip
	else
		if [ -e "$WORK/.timed-out" ]; then
			check_err 1 "no end after $TEST_TIMEOUT s (TEST_TIMEOUT): its processes were stopped"
		elif [ "$rc" -ne 0 ]; then
			check_err 1 "the test ended with exit status $rc"
		fi
		if [ "$RET" -ne 0 ] || [ "$__logged" = 0 ]; then
			log_test "$TEST_NAME"
		fi
		__schema_check
		[ "$FAILED" = 1 ] && status=1
	fi
	kill -9 "$__watchdog_pid" 2>/dev/null	# no trap of its own can run
	defer_run
	[ "$status" = 1 ] && __keep_work
	exit "$status"
}

# __schema_check: every JSON document of rant's (one with "rant_version")
# that the test left in $WORK, at any depth, is valid against
# schema/rant.schema.json (tests/net/schemacheck.py); where one is not,
# the test fails with a check of its own, each error a line naming the
# file and the path in the document.
__schema_check() {
	local files=() out line n=0
	mapfile -t files < <(find "$WORK" -type f -name '*.json' 2>/dev/null | sort)
	[ "${#files[@]}" -gt 0 ] || return 0
	out=$("$PYTHON" "$TOP/tests/net/schemacheck.py" "${files[@]}" 2>&1) && return 0
	while IFS= read -r line; do
		n=$((n + 1))
		[ "$n" -le 20 ] && __failed "    schema: ${line#"$WORK"/}"
	done <<<"$out"
	[ "$n" -le 20 ] || __failed "    schema: ... $((n - 20)) more lines"
	__failed "$(printf 'TEST: %-60s [FAIL]' "$TEST_NAME: JSON against schema/rant.schema.json")"
	FAILED=1
}

# __keep_work: with $NET_KEEP set (a directory), a failed test's $WORK
# (its processes' output, logs, JSON) is copied there, as
# NET_KEEP/FILE-NAME-UNIQ, and the copy named.
__keep_work() {
	local dst
	[ -n "${NET_KEEP:-}" ] || return 0
	dst=$NET_KEEP/${TEST_FILE%.sh}-$TEST_NAME-$UNIQ
	mkdir -p "$NET_KEEP" && cp -a "$WORK" "$dst" &&
		__failed "    its files: $dst (NET_KEEP)"
}

# __watchdog PID: once $TEST_TIMEOUT s have passed, stop test PID and its
# processes. It waits in the read builtin on a FIFO nobody writes to, so
# that killing it leaves no sleeping child behind.
__watchdog() {
	trap - EXIT INT TERM HUP PIPE	# not the test's: bash keeps them here
	read -rt "$TEST_TIMEOUT" <>"$WORK/.watchdog" && return
	: >"$WORK/.timed-out"
	kill -TERM "$1"
	pkill -TERM -P "$1"
}

# __test_one NAME: run test NAME in its own subshell and scope; returns 0
# (pass), 4 (skip) or 1 (fail).
__test_one() {
	(
		TEST_NAME=$1
		__defer_jobs=()
		__logged=0
		__skipped=0
		RET=0
		FAILED=0
		UNIQ=$(unique_suffix)
		WORK=$WORK_ROOT/$1
		mkdir -p "$WORK"
		exec {__test_out}>&1 {__test_err}>&2
		trap __test_exit EXIT
		trap 'exit 130' INT TERM HUP PIPE
		mkfifo "$WORK/.watchdog"
		__test_pid=$BASHPID	# (expanded after the fork, BASHPID would be the child's)
		__watchdog "$__test_pid" &
		__watchdog_pid=$!
		disown "$__watchdog_pid"	# ended with kill -9: no "Killed" line
		if ! declare -F "$1" >/dev/null; then
			check_err 1 "$TEST_FILE lists $1 in ALL_TESTS but defines no such function"
			exit 1
		fi
		"$1"
		exit 0
	)
}

# tests_run: run the selected tests; exit 0, 1 or 4 (see the top).
tests_run() {
	local t rc t0 nrun=0 nfail=0 nskip=0
	for t in $(tests_selected); do
		nrun=$((nrun + 1))
		t0=$EPOCHREALTIME
		__test_one "$t"
		rc=$?
		[ -z "${NET_TIMES:-}" ] ||
			awk -v a="$t0" -v b="$EPOCHREALTIME" -v f="$TEST_FILE" -v t="$t" \
				'BEGIN { printf "%.1f %s %s\n", b - a, f, t }' >>"$NET_TIMES"
		case $rc in
		0) __record pass "$t" ;;
		"$ksft_skip") __record skip "$t"; nskip=$((nskip + 1)) ;;
		*) __record fail "$t"; nfail=$((nfail + 1))
		   __failed "    ^ failed: $t in $TEST_FILE (alone: TESTS=$t make net)" ;;
		esac
	done
	[ "$nfail" -gt 0 ] && exit 1
	[ "$nrun" -gt 0 ] && [ "$nskip" = "$nrun" ] && exit "$ksft_skip"
	exit 0
}

# finish: the exit status of a file not (yet) written as named tests,
# from its log_test lines.
finish() {
	exit "$FAILED"
}

# ---- waiting for events, never for a fixed time ----

__now_us() {
	echo "${EPOCHREALTIME/./}"
}

# wait_until TIMEOUT_S CMD...: run CMD every 20 ms until it succeeds;
# returns 1 if it has not within TIMEOUT_S seconds (decimals allowed).
wait_until() {
	local timeout_us deadline
	timeout_us=$(awk -v s="$1" 'BEGIN { printf "%d", s * 1000000 }')
	deadline=$(($(__now_us) + timeout_us))
	shift
	until "$@"; do
		[ "$(__now_us)" -lt "$deadline" ] || return 1
		sleep 0.02
	done
}

# wait_for_line FILE REGEX TIMEOUT_S: wait until a line of FILE matches the
# extended REGEX; returns 1 on timeout.
wait_for_line() {
	wait_until "$3" grep -Eq -- "$2" "$1" 2>/dev/null
}

# wait_measuring FILE: wait until the emitter writing its text to FILE
# has ended its warm-up (the next ping it sends is measured).
wait_measuring() {
	wait_for_line "$1" '^measuring: warm-up done after [0-9]+ pings$' "$MEASURE_WAIT_S"
	check_err $? "the emitter did not start measuring in $MEASURE_WAIT_S s: $(tail -3 "$1")"
}

__udp_bound() {
	ip netns exec "$1" ss -Hlun "sport = :$2" 2>/dev/null | grep -q .
}

# wait_udp_port NS PORT [TIMEOUT_S]: wait until a UDP port is bound in NS.
wait_udp_port() {
	wait_until "${3:-10}" __udp_bound "$1" "$2"
}

# cpu_ns PID: CPU time PID has used so far, in ns (schedstat).
cpu_ns() {
	awk '{ print $1 }' "/proc/$1/schedstat"
}

__cpu_past() {
	[ "$(cpu_ns "$1" 2>/dev/null || echo 0)" -ge "$2" ]
}

# wait_cpu PID NS TIMEOUT_S: wait until PID has run NS more ns on a CPU.
wait_cpu() {
	local target
	target=$(($(cpu_ns "$1") + $2)) || return 1
	wait_until "$3" __cpu_past "$1" "$target"
}

# ---- namespaces and rant processes ----

# Two namespaces joined by a veth pair, with IPv4 and IPv6 addresses:
#   $NS_A ($VETH_A 10.77.0.1, fd77::1) <-> $NS_B ($VETH_B 10.77.0.2, fd77::2)
# Names are unique to the test; everything is removed when it ends.
setup_pair() {
	NS_A=rant-a-$UNIQ
	NS_B=rant-b-$UNIQ
	VETH_A=ra$UNIQ
	VETH_B=rb$UNIQ
	IP_A=10.77.0.1
	IP_B=10.77.0.2
	IP6_A=fd77::1
	IP6_B=fd77::2
	ip netns add "$NS_A" || return 1
	defer ip netns del "$NS_A"
	ip netns add "$NS_B" || return 1
	defer ip netns del "$NS_B"
	ip link add "$VETH_A" netns "$NS_A" type veth peer name "$VETH_B" netns "$NS_B" || return 1
	ip -n "$NS_A" link set lo up
	ip -n "$NS_B" link set lo up
	ip -n "$NS_A" addr add "$IP_A/24" dev "$VETH_A"
	ip -n "$NS_B" addr add "$IP_B/24" dev "$VETH_B"
	ip -n "$NS_A" addr add "$IP6_A/64" dev "$VETH_A" nodad
	ip -n "$NS_B" addr add "$IP6_B/64" dev "$VETH_B" nodad
	ip -n "$NS_A" link set "$VETH_A" up
	ip -n "$NS_B" link set "$VETH_B" up
}

# A router namespace between a client and a server, on two subnets:
#   $NS_A ($VETH_A 10.78.1.1) <-> ($VETH_RA) $NS_R ($VETH_RB) <-> $NS_B ($VETH_B 10.78.2.2)
# $VETH_RA's egress carries the server's segments to the client, $VETH_RB's
# the client's to the server: a qdisc there is a queue on the path.
# Forwarding is NS_R's own sysctl (a namespace's, gone with it).
setup_router() {
	NS_A=rant-a-$UNIQ
	NS_R=rant-r-$UNIQ
	NS_B=rant-b-$UNIQ
	VETH_A=ra$UNIQ
	VETH_RA=rra$UNIQ
	VETH_RB=rrb$UNIQ
	VETH_B=rb$UNIQ
	IP_A=10.78.1.1
	IP_B=10.78.2.2
	local ns
	for ns in "$NS_A" "$NS_R" "$NS_B"; do
		ip netns add "$ns" || return 1
		defer ip netns del "$ns"
		ip -n "$ns" link set lo up
	done
	ip link add "$VETH_A" netns "$NS_A" type veth peer name "$VETH_RA" netns "$NS_R" || return 1
	ip link add "$VETH_B" netns "$NS_B" type veth peer name "$VETH_RB" netns "$NS_R" || return 1
	ip -n "$NS_A" addr add "$IP_A/24" dev "$VETH_A"
	ip -n "$NS_R" addr add 10.78.1.254/24 dev "$VETH_RA"
	ip -n "$NS_R" addr add 10.78.2.254/24 dev "$VETH_RB"
	ip -n "$NS_B" addr add "$IP_B/24" dev "$VETH_B"
	for dev in "$NS_A $VETH_A" "$NS_R $VETH_RA" "$NS_R $VETH_RB" "$NS_B $VETH_B"; do
		# shellcheck disable=SC2086  # "ns dev"
		ip -n ${dev% *} link set ${dev#* } up
	done
	ip -n "$NS_A" route add default via 10.78.1.254
	ip -n "$NS_B" route add default via 10.78.2.254
	ip netns exec "$NS_R" sysctl -qw net.ipv4.ip_forward=1
}

# ns_bg NS CMD...: CMD in the background in NS; its pid in $BGPID, killed
# when the test ends if still running.
ns_bg() {
	local ns=$1
	shift
	ip netns exec "$ns" "$@" &
	BGPID=$!
	defer kill -9 "$BGPID"
}

# nginx_start PORT_OFF PORT_ON: Debian's nginx in NS_B on CPU 1, a
# 600-byte page (sendfile on, tcp_nopush off) on two ports, tcp_nodelay
# off on PORT_OFF and on on PORT_ON, its files in $WORK; pid in $NGINX,
# stopped (master and worker) when the test ends. Returns once both
# ports listen (1 and a failed check if they do not).
nginx_start() {
	mkdir -p "$WORK/www"
	head -c 600 /dev/zero | tr '\0' 'a' >"$WORK/www/index.html"
	# user root: the worker reads $WORK (mode 700) as its master does
	cat >"$WORK/nginx.conf" <<-EOF
	user root;
	worker_processes 1;
	daemon off;
	pid $WORK/nginx.pid;
	error_log $WORK/error.log;
	events { worker_connections 4096; }
	http {
	    access_log off;
	    sendfile on;
	    tcp_nopush off;
	    server { listen $1; listen [::]:$1; tcp_nodelay off; root $WORK/www; }
	    server { listen $2; listen [::]:$2; tcp_nodelay on; root $WORK/www; }
	}
	EOF
	ip netns exec "$NS_B" taskset -c 1 nginx -p "$WORK" -e "$WORK/error.log" \
		-c "$WORK/nginx.conf" >"$WORK/nginx.txt" 2>&1 &
	NGINX=$!
	defer nginx_kill "$NGINX"
	wait_until 10 __tcp_port "$NS_B" "$1" && wait_until 10 __tcp_port "$NS_B" "$2" && return 0
	check_err 1 "nginx does not listen: $(cat "$WORK/nginx.txt" "$WORK/error.log" 2>/dev/null | tail -3)"
	return 1
}

# nginx_kill PID: nginx's master PID and its workers gone at once. The
# master is stopped first: a master that sees its worker die forks
# another, which would outlive it (a master killed with -9 leaves its
# workers behind).
nginx_kill() {
	kill -STOP "$1" 2>/dev/null || return 0
	pkill -9 -P "$1"
	kill -9 "$1"
}

__tcp_port() {
	ip netns exec "$1" ss -Hltn "sport = :$2" 2>/dev/null | grep -q .
}

# jqv FILE EXPR: one value from a JSON file.
jqv() { jq -r "$2" "$1"; }

# log_awk LOG PROGRAM [AWK OPTIONS...]: awk PROGRAM over the rows of
# rant's transaction log LOG (its third line on), where col("NAME") is
# the row's value in the column the header line names NAME: columns are
# read by name, never by position, so that a column added to the log
# moves nothing. A name the header does not have is an error: log_awk
# says so, prints nothing else and returns 2.
log_awk() {
	local log=$1 prog=$2 hdr name out rc
	shift 2
	hdr=$(head -n 1 "$log")
	for name in $(grep -o 'col("[^"]*")' <<<"$prog" | sed 's/^col("//; s/")$//'); do
		if [[ " $hdr " != *" $name "* ]]; then
			echo "log_awk: $log has no column $name (its header: $hdr)" >&2
			return 2
		fi
	done
	out=$(awk "$@" '
		function col(name) {
			if (!(name in log_col)) {
				printf "log_awk: %s has no column %s\n", FILENAME, name > "/dev/stderr"
				exit 2
			}
			return $log_col[name]
		}
		FNR == 1 { for (i = 1; i <= NF; i++) log_col[$i] = i; next }
		FNR == 2 { next }
		'"$prog" "$log")
	rc=$?
	[ "$rc" = 2 ] && return 2
	[ -z "$out" ] || printf '%s\n' "$out"
	return "$rc"
}

# start_reflector NAME ARGS...: reflector in NS_B on CPU 1, output in
# $WORK/NAME.txt, pid in $REFL; returns once its port is bound.
start_reflector() {
	local name=$1
	shift
	ip netns exec "$NS_B" taskset -c 1 "$RANT" -i "$VETH_B" "$@" \
		>"$WORK/$name.txt" 2>&1 &
	REFL=$!
	defer kill -9 "$REFL"
	wait_udp_port "$NS_B" "$PORT" && return 0
	check_err 1 "reflector $name did not bind port $PORT: $(tail -3 "$WORK/$name.txt")"
	return 1
}

# stop_reflector: SIGINT, wait; its exit status in $REFL_RC.
stop_reflector() {
	kill -INT "$REFL" 2>/dev/null
	REFL_RC=0
	wait "$REFL" || REFL_RC=$?
}

# stop_reflector_for S: SIGSTOP the reflector for S seconds (the
# stimulus, not a wait). CLOCK_REALTIME (seconds, as the log's kernel
# stamps) read on both sides of each kill, since this shell may lose its
# CPU between a read and a kill: the stop lies within $T_STOP..$T_CONT
# (read before the STOP, after the CONT) and holds $T_STOPPED..$T_RUN
# (after the STOP, before the CONT). What must have been lost is judged
# by the inner pair, what may have been by the outer; $D and $D_IN are
# their lengths.
stop_reflector_for() {
	T_STOP=$EPOCHREALTIME
	kill -STOP "$REFL"
	T_STOPPED=$EPOCHREALTIME
	sleep "$1"
	T_RUN=$EPOCHREALTIME
	kill -CONT "$REFL"
	T_CONT=$EPOCHREALTIME
	D=$(awk -v a="$T_STOP" -v b="$T_CONT" 'BEGIN { printf "%.3f", b - a }')
	D_IN=$(awk -v a="$T_STOPPED" -v b="$T_RUN" 'BEGIN { printf "%.3f", b - a }')
}

# loss_is_drops EMIT_JSON REFLECT_JSON: every ping the emitter sent was
# received or lost, and every lost one is a datagram a socket dropped (the
# two sides' socket_drops add up to lost, exactly): what a run whose
# --timeout no pong can outlast must show. Prints the counts.
loss_is_drops() {
	local sent recv lost drops
	sent=$(jqv "$1" .counts.sent)
	recv=$(jqv "$1" .counts.received)
	lost=$(jqv "$1" .counts.lost)
	drops=$(($(jqv "$2" .counts.socket_drops) + $(jqv "$1" .counts.socket_drops)))
	echo "received $recv, lost $lost of $sent: the sockets dropped $drops (both sides' socket_drops)"
	[ $((recv + lost)) = "$sent" ] && [ "$lost" = "$drops" ]
}

# emit ARGS...: emitter in NS_A on CPU 0, in the foreground.
emit() {
	ip netns exec "$NS_A" taskset -c 0 "$RANT" -i "$VETH_A" "$@"
}

# targets_refused: rant emit --targets $WORK/targets refuses the file:
# exit 1; its lines in $WORK/e1.txt and on the test's output.
targets_refused() {
	local rc=0
	emit --targets "$WORK/targets" -d 1 >"$WORK/e1.txt" 2>&1 || rc=$?
	cat "$WORK/e1.txt"
	[ "$rc" = 1 ]
	check_err $? "exit $rc for a bad file, 1 expected"
}

# emit_bg NAME ARGS...: emitter in NS_A on CPU 0 in the background, text
# in $WORK/NAME.txt, pid in $EM (killed when the test ends).
emit_bg() {
	local name=$1
	shift
	ip netns exec "$NS_A" taskset -c 0 "$RANT" -i "$VETH_A" "$@" \
		>"$WORK/$name.txt" 2>&1 &
	EM=$!
	defer kill -9 "$EM"
}
