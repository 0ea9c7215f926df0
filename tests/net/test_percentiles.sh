#!/usr/bin/env bash
# Percentiles over veth, against the full logs: at default options every
# printed percentile (text and JSON, every metric of -s, both sides) is
# within 0.1% of the exact nearest-rank value of the logged samples and
# exact below 2048 ns; with -b 10 (10 us linear buckets) they are still
# the top of the sample's log-linear bucket, a value of the samples alone,
# as at default: the percentiles no longer depend on -b.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

ALL_TESTS="percentiles_default percentiles_buckets"
N=20000
LOGCHECK=$TOP/tests/net/logcheck.py

# run_pair TAG ARGS...: a reflector and an emitter of N transactions, both
# with -s, a full log and JSON, and ARGS; files $WORK/TAG-{r,e}.{txt,log,json}.
run_pair() {
	local tag=$1 rc
	shift
	start_reflector "$tag-r" -s -d 120 -l "$WORK/$tag-r.log" -j "$WORK/$tag-r.json" "$@"
	check_err $? "the reflector did not start: $(tail -3 "$WORK/$tag-r.txt")"
	emit -a "$IP_B" -c "$N" -s -l "$WORK/$tag-e.log" -j "$WORK/$tag-e.json" "$@" \
		>"$WORK/$tag-e.txt" 2>&1
	rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/$tag-e.txt")"
	check_err "$REFL_RC" "reflector exit $REFL_RC: $(tail -3 "$WORK/$tag-r.txt")"
}

# logcheck SIDE TAG [--strict]: the text and JSON of one side against its log.
logcheck() {
	local side=$1 tag=$2 out
	shift 2
	out=$(${PYTHON:-python3} "$LOGCHECK" "$@" --text "$WORK/$tag-$side.txt" \
		"$WORK/$tag-$side.log" "$WORK/$tag-$side.json")
	check_err $? "$side: $(echo "$out" | grep -m 5 MISMATCH)"
	echo "$out" | sed -n 's/^\(rtt\|response\): /    '"$side"' \1: /p'
}

# nmetrics TAG SIDE: how many metrics the JSON has.
nmetrics() {
	jq -r '.metrics | length' "$WORK/$1-$2.json"
}

percentiles_default() {
	setup_pair || skip "cannot create namespaces and veth"
	run_pair def
	[ "$(nmetrics def e)" = 10 ]
	check_err $? "emitter JSON has $(nmetrics def e) metrics, not the 10 of -s (9 and emit_queue)"
	[ "$(nmetrics def r)" = 5 ]
	check_err $? "reflector JSON has $(nmetrics def r) metrics, not the 5 of -s (4 and reflect_queue)"
	jq -e '.percentile_precision | test("0.1%.*2048 ns")' "$WORK/def-e.json" >/dev/null
	check_err $? "no percentile_precision in the JSON: $(jq -c .percentile_precision "$WORK/def-e.json")"
	logcheck e def
	logcheck r def
	log_test "default options: every percentile (text, JSON, 10+5 metrics) within 0.1% of the log's"
	logcheck e def --strict
	logcheck r def --strict
	log_test "default options: every percentile the top of its log-linear bucket"
}

percentiles_buckets() {
	setup_pair || skip "cannot create namespaces and veth"
	run_pair b10 -b 10
	[ "$(jq -r .histogram.bucket_ns "$WORK/b10-e.json")" = 10000 ]
	check_err $? "-b 10 gave a linear histogram of $(jq -r .histogram.bucket_ns "$WORK/b10-e.json") ns buckets"
	logcheck e b10 --strict
	logcheck r b10 --strict
	log_test "-b 10: every percentile as at default (bucket top of the samples, not of -b)"
}

# lib.sh without tests_run: the last line runs each test in a plain
# subshell, which would neither run the test's deferred cleanup nor pass
# its failure back. Give each test both. (Drop once lib.sh has tests_run.)
if ! declare -F tests_run >/dev/null; then
	PCT_ROOT=$WORK
	for t in $ALL_TESTS; do
		eval "__pct_$t() { $(declare -f "$t" | tail -n +2); }"
		eval "$t() {
			WORK=\$PCT_ROOT/$t; mkdir -p \"\$WORK\"
			trap '__run_deferred; [ \"\$FAILED\" = 0 ] || touch \"\$PCT_ROOT/failed\"' EXIT
			__pct_$t
		}"
	done
	finish() {
		[ -e "$PCT_ROOT/failed" ] && exit 1
		exit "$FAILED"
	}
fi

require_root
require_cmd jq taskset ss
[ -x "$RANT" ] || skip "rant is not built (make)"
tests_run
