# shellcheck shell=bash
# shellcheck disable=SC2034  # STAMP_PORT, SUITE_WAIT_S: read by the test files
# What the --stamp test files (test_stamp.sh, test_stamppath.sh) share,
# sourced after lib.sh: the port, stamp-suite (make stamp-suite builds it
# into $STAMP_SUITE_ROOT) and the two tools' reflectors in NS_B.

STAMP_PORT=862
# How long stamp-suite's sender waits for a reply before it counts the
# probe lost, s: a SCHED_FIFO spinner of a test run beside this one (as
# test_trace's and test_origin's, on a machine shared by several runs)
# can hold a process off its CPU for a second or more, and --timeout 1
# then lost the last replies (49 of 50 received, or 48; 47 of 50 with the
# sender stopped 1.5 s by hand; none lost at 10). Only replies still due
# are waited for: a run that has them all ends at once.
SUITE_WAIT_S=10
STAMP_SUITE=${STAMP_SUITE:-${STAMP_SUITE_ROOT:-/var/cache/rant/stamp-suite}/bin/stamp-suite}

pair() {
	setup_pair || skip_test "cannot create namespaces and veth"
}

need_suite() {
	"$STAMP_SUITE" --version 2>/dev/null | grep -qx 'stamp-suite 1.0.0' ||
		skip_test "stamp-suite 1.0.0 is not at $STAMP_SUITE (make stamp-suite builds it; it needs cargo)"
}

# A raw binary key that ends in 0x0a, as one in 256 from head -c 32
# /dev/urandom does: stamp-suite and stamp_probe.py read its bytes as they
# are, and so must rant (it drops a final newline only after printable
# text, a passphrase), or every authenticated ping is refused.
make_key() {
	{ head -c 31 /dev/urandom; printf '\n'; } >"$WORK/key"
	chmod 600 "$WORK/key"
}

# suite_reflector NAME AUTH STATEFUL TS [ARGS...]: stamp-suite's reflector
# in NS_B, its text in $WORK/NAME.txt, pid in $SREFL.
suite_reflector() {
	local args=(--is-reflector --local-addr "$IP_B" --local-port "$STAMP_PORT" "${@:5}")
	[ "$2" = 1 ] && args+=(-A A --hmac-key-file "$WORK/key")
	[ "$3" = 1 ] && args+=(--stateful-reflector)
	[ "$4" = ptp ] && args+=(-K PTP)
	ip netns exec "$NS_B" taskset -c 1 "$STAMP_SUITE" "${args[@]}" >"$WORK/$1.txt" 2>&1 &
	SREFL=$!
	defer kill -9 "$SREFL"
	wait_udp_port "$NS_B" $STAMP_PORT && return 0
	check_err 1 "stamp-suite's reflector did not bind port $STAMP_PORT: $(tail -3 "$WORK/$1.txt")"
	return 1
}

# rant_reflector NAME ARGS...: rant's --stamp reflector in NS_B on CPU 1,
# text in $WORK/NAME.txt, pid in $REFL (stop_reflector stops it).
rant_reflector() {
	local name=$1
	shift
	ip netns exec "$NS_B" taskset -c 1 "$RANT" -i "$VETH_B" --stamp --block "$@" \
		>"$WORK/$name.txt" 2>&1 &
	REFL=$!
	defer kill -9 "$REFL"
	wait_udp_port "$NS_B" $STAMP_PORT && return 0
	check_err 1 "rant's reflector did not bind port $STAMP_PORT: $(tail -3 "$WORK/$name.txt")"
	return 1
}

# suite_sender NAME AUTH TS STATEFUL ARGS...: stamp-suite's sender in
# NS_A against $IP_B; its JSON in $WORK/NAME.json, its lines in
# $WORK/NAME.err. Stateful runs ask for TLVs.
suite_sender() {
	local name=$1 auth=$2 ts=$3 stf=$4
	shift 4
	local args=(--remote-addr "$IP_B" --remote-port "$STAMP_PORT" --timeout "$SUITE_WAIT_S" -R
		--output-format json "$@")
	[ "$auth" = 1 ] && args+=(-A A --hmac-key-file "$WORK/key")
	[ "$ts" = ptp ] && args+=(-K PTP)
	[ "$stf" = 1 ] && args+=(--timestamp-info --follow-up-telemetry --extra-padding 40)
	ip netns exec "$NS_A" taskset -c 0 "$STAMP_SUITE" "${args[@]}" >"$WORK/$name.json" \
		2>"$WORK/$name.err"
}
