#!/usr/bin/env bash
# Helpers for rant's network tests, after the kernel's selftests/net/lib.sh:
# uniquely named namespaces, veth with nodad, every change paired with its
# undo (defer), "TEST: name [ OK ]" lines, exit 4 for skip.
# shellcheck disable=SC2034  # variables are used by the sourcing test

ksft_skip=4
RET=0
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RANT=${RANT:-$TOP/rant}
# Unique per test run: namespaces, veth names (<= 15 chars), trace instances.
UNIQ=$(printf '%04x%02x' $(($$ & 0xffff)) $((RANDOM & 0xff)))
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rant-test.XXXXXX")

__deferred=()
# defer CMD ARGS...: run at exit, last deferred first.
defer() {
	local cmd
	cmd=$(printf '%q ' "$@")
	__deferred+=("$cmd")
}
__run_deferred() {
	local i
	set +e
	for ((i = ${#__deferred[@]} - 1; i >= 0; i--)); do
		eval "${__deferred[i]}" >/dev/null 2>&1 || true
	done
	rm -rf "$WORK"
}
trap __run_deferred EXIT
trap 'exit 130' INT TERM HUP PIPE

skip() {
	echo "SKIP: $*"
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

# log_test NAME: report RET for NAME and fold it into the script's result.
log_test() {
	if [ "$RET" -eq 0 ]; then
		printf 'TEST: %-60s [ OK ]\n' "$1"
	else
		printf 'TEST: %-60s [FAIL]\n' "$1"
		FAILED=1
	fi
	RET=0
}
FAILED=0

# check_err RC MSG: a non-zero RC fails the current test with MSG.
check_err() {
	if [ "$1" -ne 0 ]; then
		[ "$RET" -eq 0 ] && echo "    $2"
		RET=1
	fi
}

# check_fail RC MSG: a zero RC fails the current test with MSG.
check_fail() {
	if [ "$1" -eq 0 ]; then
		[ "$RET" -eq 0 ] && echo "    $2"
		RET=1
	fi
}

# Two namespaces joined by a veth pair, with IPv4 and IPv6 addresses:
#   $NS_A ($VETH_A 10.77.0.1, fd77::1) <-> $NS_B ($VETH_B 10.77.0.2, fd77::2)
# Names are unique to this run; everything is removed at exit.
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

# Start a process in the background in a namespace; its pid in $BGPID.
# It is killed at exit if still running.
ns_bg() {
	local ns=$1
	shift
	ip netns exec "$ns" "$@" &
	BGPID=$!
	defer kill -9 "$BGPID"
}

# Wait until a UDP port is bound in a namespace (a reflector is ready).
wait_udp_port() {
	local ns=$1 port=$2 i
	for ((i = 0; i < 100; i++)); do
		ip netns exec "$ns" ss -Hlun "sport = :$port" 2>/dev/null | grep -q . && return 0
		sleep 0.05
	done
	return 1
}

# ---- rant processes over the pair (after setup_pair) ----
PORT=12345

# jqv FILE EXPR: one value from a JSON file.
jqv() { jq -r "$2" "$1"; }

# start_reflector NAME ARGS...: reflector in NS_B, output in $WORK/NAME.*
start_reflector() {
	local name=$1
	shift
	ip netns exec "$NS_B" taskset -c 1 "$RANT" -i "$VETH_B" "$@" \
		>"$WORK/$name.txt" 2>&1 &
	REFL=$!
	defer kill -9 "$REFL"
	wait_udp_port "$NS_B" "${PORT}"
}

# stop_reflector: SIGINT, wait; its exit status in $REFL_RC.
stop_reflector() {
	kill -INT "$REFL" 2>/dev/null
	REFL_RC=0
	wait "$REFL" || REFL_RC=$?
}

emit() {
	ip netns exec "$NS_A" taskset -c 0 "$RANT" -i "$VETH_A" "$@"
}

# finish: the script's exit status from the tests it ran.
finish() {
	exit "$FAILED"
}
