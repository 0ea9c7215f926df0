#!/usr/bin/env bash
# The test framework itself (lib.sh), on small test files written here:
# results and exit statuses, TESTS selection, a failing or hung test
# leaves nothing behind, wait_for_line waits for the line or times out.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="lib_results lib_select lib_cleanup lib_timeout lib_wait_for_line lib_schema lib_log_awk"

require_root

# inner NAME BODY: write test file $WORK/NAME.sh from BODY (the test
# functions and ALL_TESTS), sourcing this lib.sh and ending in tests_run.
inner() {
	{
		echo ". '$TOP/tests/net/lib.sh'"
		echo "$2"
		echo "tests_run"
	} >"$WORK/$1.sh"
}

# run_inner NAME [VAR=VALUE...]: run it with its own results file,
# failure log, times and kept files; exit status in $IRC, output in
# $WORK/NAME.out, results in $WORK/NAME.res, failures in $WORK/NAME.fail,
# times in $WORK/NAME.times, failed tests' files under $WORK/NAME.keep.
run_inner() {
	local name=$1
	shift
	: >"$WORK/$name.res"
	: >"$WORK/$name.fail"
	: >"$WORK/$name.times"
	env NET_RESULTS="$WORK/$name.res" NET_FAILLOG="$WORK/$name.fail" \
		NET_TIMES="$WORK/$name.times" NET_KEEP="$WORK/$name.keep" TESTS= "$@" \
		bash "$WORK/$name.sh" >"$WORK/$name.out" 2>&1
	IRC=$?
}

lib_results() {
	inner r 'ALL_TESTS="r_pass r_fail r_skip r_late r_quiet"
r_pass() { true; check_err $? "never"; log_test "passes"; }
r_fail() { false; check_err $? "false is false"; log_test "fails"; }
r_skip() { skip_test "for a reason"; }
r_late() { log_test "first"; false; check_err $? "a failure after the last log_test"; }
r_quiet() { :; }'
	run_inner r
	[ "$IRC" = 1 ]; check_err $? "exit $IRC with a failed test, not 1"
	[ "$(cat "$WORK/r.res")" = "pass r.sh r_pass
fail r.sh r_fail
skip r.sh r_skip
fail r.sh r_late
pass r.sh r_quiet" ]; check_err $? "results: $(cat "$WORK/r.res")"
	grep -q '^    false is false$' "$WORK/r.out" && grep -Eq '^TEST: fails +\[FAIL\]$' "$WORK/r.out" &&
		grep -q 'failed: r_fail in r.sh (alone: TESTS=r_fail make net)' "$WORK/r.out"
	check_err $? "a failure is not reported with its message and name: $(cat "$WORK/r.out")"
	grep -Eq '^TEST: r_skip: for a reason +\[SKIP\]$' "$WORK/r.out"; check_err $? "no SKIP line"
	grep -Eq '^TEST: r_late +\[FAIL\]$' "$WORK/r.out"; check_err $? "a failure after log_test is not reported"
	grep -Eq '^TEST: r_quiet +\[ OK \]$' "$WORK/r.out"; check_err $? "a test without log_test gets no line"
	# the failure log (run.sh prints it again at the end): the failed
	# checks' lines as printed (and where NET_KEEP put their files),
	# nothing of the tests that passed
	[ "$(grep -c . "$WORK/r.fail")" = 8 ] && grep -q '^    false is false$' "$WORK/r.fail" &&
		grep -q '^    a failure after the last log_test$' "$WORK/r.fail" &&
		grep -q 'failed: r_late in r.sh' "$WORK/r.fail" && ! grep -q 'never\|passes' "$WORK/r.fail"
	check_err $? "the failure log: $(cat "$WORK/r.fail")"
	# a time for each test; the failed tests' files kept, and named
	[ "$(awk '$1 ~ /^[0-9]+\.[0-9]$/ && $2 == "r.sh" { print $3 }' "$WORK/r.times" | tr '\n' ' ')" = \
		"r_pass r_fail r_skip r_late r_quiet " ]
	check_err $? "the times: $(cat "$WORK/r.times")"
	[ "$(ls "$WORK/r.keep" 2>/dev/null | sed 's/-[0-9a-f]*$//' | tr '\n' ' ')" = "r-r_fail r-r_late " ] &&
		grep -q "its files: $WORK/r.keep/r-r_fail-" "$WORK/r.fail"
	check_err $? "NET_KEEP: $(ls "$WORK/r.keep" 2>&1), $(grep 'its files' "$WORK/r.fail")"
	inner s 'ALL_TESTS="s_one s_two"
s_one() { skip_test "no"; }
s_two() { skip_test "no"; }'
	run_inner s
	[ "$IRC" = 4 ]; check_err $? "exit $IRC with every test skipped, not 4"
	run_inner s TESTS=s_two
	[ "$IRC" = 4 ] && [ "$(wc -l <"$WORK/s.res")" = 1 ]; check_err $? "exit $IRC, $(wc -l <"$WORK/s.res") results for one selected skip"
	log_test "results: pass, fail, skip, a late failure, the failure log; exit 1, 4"
}

lib_select() {
	inner t 'ALL_TESTS="t_a t_b t_c"
t_a() { log_test "a"; }
t_b() { log_test "b"; }
t_c() { log_test "c"; }'
	run_inner t TESTS="t_c t_a"
	[ "$IRC" = 0 ]; check_err $? "exit $IRC"
	[ "$(cat "$WORK/t.res")" = "pass t.sh t_a
pass t.sh t_c" ]; check_err $? "TESTS=\"t_c t_a\" ran: $(cat "$WORK/t.res")"
	run_inner t TESTS=nosuch
	[ "$IRC" = 0 ] && [ ! -s "$WORK/t.res" ] && [ ! -s "$WORK/t.out" ]
	check_err $? "no selected test: exit $IRC, output $(cat "$WORK/t.out")"
	log_test "TESTS selects tests, in ALL_TESTS order; none selected runs nothing"
}

# A test that fails after setting up a namespace and a process: both are
# gone when it ends, and the next test starts with no deferred commands.
lib_cleanup() {
	local ns pid
	inner c 'ALL_TESTS="c_fail c_next"
c_fail() {
	ip netns add "lib-$UNIQ" && defer ip netns del "lib-$UNIQ"
	ns_bg "lib-$UNIQ" sleep 60
	echo "lib-$UNIQ $BGPID" >"$STATE"
	false; check_err $? "fails"; log_test "fails"
}
c_next() { [ ${#__defer_jobs[@]} = 0 ]; check_err $? "inherited defers"; log_test "next"; }'
	run_inner c STATE="$WORK/state"
	read -r ns pid <"$WORK/state"
	[ "$IRC" = 1 ]; check_err $? "exit $IRC, not 1: $(cat "$WORK/c.out")"
	[ -n "$ns" ] && ! ip netns list | grep -qw "$ns"; check_err $? "namespace '$ns' left behind"
	# killed, it may take a moment to be reaped (its parent was killed too)
	[ -n "$pid" ] && wait_until 5 pid_gone "$pid"; check_err $? "process '$pid' left behind"
	grep -q '^pass c.sh c_next$' "$WORK/c.res"; check_err $? "the next test: $(cat "$WORK/c.out")"
	log_test "a failing test leaves nothing behind; the next starts clean"
}

# A test hung in a foreground command is stopped after TEST_TIMEOUT, fails
# and leaves nothing behind; the next test runs.
pid_gone() { ! kill -0 "$1" 2>/dev/null; }

lib_timeout() {
	local start ms pid
	inner h 'ALL_TESTS="h_hang h_next"
h_hang() { sleep 60 & echo $! >"$STATE"; defer kill -9 $!; sleep 61; }
h_next() { log_test "next"; }'
	start=$(date +%s%N)
	run_inner h STATE="$WORK/state" TEST_TIMEOUT=1
	ms=$((($(date +%s%N) - start) / 1000000))
	pid=$(cat "$WORK/state")
	[ "$IRC" = 1 ] && grep -q '^fail h.sh h_hang$' "$WORK/h.res" && grep -q '^pass h.sh h_next$' "$WORK/h.res"
	check_err $? "exit $IRC, results $(cat "$WORK/h.res")"
	grep -q "no end after 1 s (TEST_TIMEOUT)" "$WORK/h.out"; check_err $? "the timeout is not named: $(cat "$WORK/h.out")"
	[ "$ms" -lt 10000 ]; check_err $? "a 1 s TEST_TIMEOUT took $ms ms"
	# killed, it may take a moment to be reaped (its parent was killed too)
	[ -n "$pid" ] && wait_until 5 pid_gone "$pid"; check_err $? "process '$pid' left behind"
	log_test "a hung test is stopped after TEST_TIMEOUT ($ms ms for 1 s) and fails"
}

lib_wait_for_line() {
	local start ms
	start=$(date +%s%N)
	wait_for_line "$WORK/none.txt" "^never$" 0.5
	check_fail $? "wait_for_line found a line in a missing file"
	ms=$((($(date +%s%N) - start) / 1000000))
	[ "$ms" -ge 500 ] && [ "$ms" -lt 3000 ]; check_err $? "a 0.5 s timeout took $ms ms"
	{ sleep 0.3; echo "first"; echo "the line 42"; } >"$WORK/late.txt" &
	defer kill -9 $!
	wait_for_line "$WORK/late.txt" "^the line [0-9]+$" 10
	check_err $? "wait_for_line missed a line written after 0.3 s"
	log_test "wait_for_line: the line written later, or 1 after the timeout ($ms ms for 0.5 s)"
}

# Every test's JSON against the schema (lib.sh's __schema_check): a valid
# document of rant's passes, one with a wrong type (in a subdirectory)
# fails its test with the file and the path in the document, and a JSON
# that is not rant's is passed over.
lib_schema() {
	local fix=$TOP/tests/unit/fixtures/schema/reflect.json
	inner j 'ALL_TESTS="j_good j_bad j_other"
j_good() { cp "'"$fix"'" "$WORK/r.json"; log_test "good"; }
j_bad() { mkdir "$WORK/sub"; jq ".counts.sent = \"x\"" "'"$fix"'" >"$WORK/sub/r.json"; log_test "bad"; }
j_other() { echo "{\"counts\": \"x\"}" >"$WORK/x.json"; log_test "other"; }'
	run_inner j
	[ "$IRC" = 1 ] && [ "$(cat "$WORK/j.res")" = "pass j.sh j_good
fail j.sh j_bad
pass j.sh j_other" ]
	check_err $? "exit $IRC, results: $(cat "$WORK/j.res")"
	grep -q "^    schema: sub/r.json: at /counts/sent: 'x' is not of type 'integer'" "$WORK/j.out" &&
		grep -Eq '^TEST: j_bad: JSON against schema/rant.schema.json +\[FAIL\]$' "$WORK/j.out"
	check_err $? "the schema's failure is not reported with file and path: $(cat "$WORK/j.out")"
	rm -rf "$WORK/j.keep"	# the broken document, kept: not this test's to validate
	log_test "the JSON a test leaves is validated: a wrong type fails the test, named"
}

# log_awk reads the log's columns by name, wherever they are; a name the
# header lacks is an error, not an empty column.
lib_log_awk() {
	local out rc
	printf 'SEQ T1_KN NEW RTT LOST\n----\n1 1.5 x 100 -\n2 2.5 y - LOST\n3 3.5 z 300 -\n' >"$WORK/a.log"
	out=$(log_awk "$WORK/a.log" '{ n++ } col("LOST") != "LOST" { s += col("RTT") } END { print s, n }')
	[ "$out" = "400 3" ]; check_err $? "RTT of the rows not lost, rows: '$out', not '400 3'"
	out=$(log_awk "$WORK/a.log" '{ print col("T4_KN") }' 2>"$WORK/err")
	rc=$?
	[ "$rc" = 2 ] && [ -z "$out" ] && grep -q 'has no column T4_KN' "$WORK/err"
	check_err $? "a missing column: exit $rc, output '$out', $(cat "$WORK/err")"
	log_test "log_awk: columns by name; a missing one is an error"
}

tests_run
