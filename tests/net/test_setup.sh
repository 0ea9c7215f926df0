#!/usr/bin/env bash
# Set-up that cannot lose or leave anything (issue 14): a signal during a
# slow set-up (a reflector touching a large log) ends it with one line and
# exit 1, leaving no temporary file beside the outputs; the reflector binds
# its port only once set-up is done.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_cmd ss taskset
[ -x "$RANT" ] || skip "rant is not built (make)"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="setup_signal"

setup_signal() {
	local pid rc out=$WORK/out
	setup_pair || skip_test "cannot create namespaces and veth"
	mkdir "$out"
	# --log-buffer: a ring of 16 million records (1 GiB) to touch first.
	ip netns exec "$NS_B" "$RANT" -i "$VETH_B" -s --log-buffer 16777216 -l "$out/r.log" -j "$out/r.json" \
		>"$WORK/r.txt" 2>&1 &
	pid=$!
	defer kill -9 "$pid"
	# the temporary outputs exist: set-up is under way (about 0.5 s of it
	# here). Stopped at once, rant cannot finish set-up while the test
	# looks at its port, however slow the machine; SIGTERM then comes to
	# it in set-up.
	wait_until 5 compgen -G "$out/*.rant-*" >/dev/null
	check_err $? "no temporary output file appeared: $(cat "$WORK/r.txt")"
	kill -STOP "$pid"
	ip netns exec "$NS_B" ss -Hlun "sport = :$PORT" | grep -q .
	check_fail $? "the port is bound while set-up is still going on"
	kill -TERM "$pid"
	kill -CONT "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" = 1 ]; check_err $? "exit $rc after SIGTERM in set-up, not 1: $(cat "$WORK/r.txt")"
	grep -q "stopped by a signal during set-up" "$WORK/r.txt"
	check_err $? "no line said why: $(cat "$WORK/r.txt")"
	[ -z "$(ls -A "$out")" ]; check_err $? "left behind: $(ls -A "$out")"
	log_test "setup: SIGTERM while touching a large log: exit 1, one line, nothing left"
}

tests_run
