#!/usr/bin/env bash
# Run the network tests (tests/net/test_*.sh) and count them, test by test.
# $TESTS (space separated names, e.g. TESTS="core_counts breach_emit")
# selects tests; only the files that define one of them are run. Each file
# exits 0 (pass), 4 (skip) or anything else (fail) and records every test
# it ran in $NET_RESULTS (see lib.sh), and the messages of its failures
# in $NET_FAILLOG, printed again before the plain closing line. At the end
# it prints the $NET_SLOWEST (default 15) slowest tests with their seconds,
# and the run's total. With $NET_KEEP set (a directory), a failed test's
# files (its processes' output, logs) are kept there (see lib.sh).
set -u
cd "$(dirname "$0")" || exit 1
NET_SLOWEST=${NET_SLOWEST:-15}
TESTS=${TESTS:-}	# unset: every test (make net sets it, perhaps empty)

NET_RESULTS=$(mktemp "${TMPDIR:-/tmp}/rant-net.XXXXXX")
NET_FAILLOG=$(mktemp "${TMPDIR:-/tmp}/rant-net-fail.XXXXXX")
NET_TIMES=$(mktemp "${TMPDIR:-/tmp}/rant-net-times.XXXXXX")
export NET_RESULTS NET_FAILLOG NET_TIMES
trap 'rm -f "$NET_RESULTS" "$NET_FAILLOG" "$NET_TIMES"' EXIT
run_start=$EPOCHREALTIME

# defines FILE NAME: FILE defines the shell function NAME.
defines() {
	grep -Eq "^[[:space:]]*$2[[:space:]]*\(\)" "$1"
}

# The files to run, and the selected names no file defines.
files=() unknown=()
for t in test_*.sh; do
	[ -e "$t" ] || continue
	if [ -z "${TESTS:-}" ]; then
		files+=("$t")
		continue
	fi
	for name in ${TESTS//,/ }; do
		if defines "$t" "$name"; then
			files+=("$t")
			break
		fi
	done
done
for name in ${TESTS//,/ }; do
	found=0
	for t in test_*.sh; do
		defines "$t" "$name" && found=1 && break
	done
	[ "$found" = 1 ] || unknown+=("$name")
done

fail_files=0 failed_files=()
for t in "${files[@]}"; do
	echo "# $t"
	before=$(grep -c " $t " "$NET_RESULTS")
	start=$(date +%s)
	bash "./$t"
	rc=$?
	echo "# $t: exit $rc in $(($(date +%s) - start)) s"
	n=$(($(grep -c " $t " "$NET_RESULTS") - before))
	nfail=$(grep -c "^fail $t " "$NET_RESULTS")
	case $rc in
	0 | 4) [ "$n" -gt 0 ] || echo "$([ $rc = 0 ] && echo pass || echo skip) $t $t" >>"$NET_RESULTS" ;;
	*) if [ "$nfail" = 0 ]; then
		# a file that failed outside any named test
		fail_files=$((fail_files + 1))
		failed_files+=("$t (exit $rc outside a test)")
	   fi ;;
	esac
done

# the slowest tests, where the suite's time goes
ntimes=$(wc -l <"$NET_TIMES")
if [ "$ntimes" -gt 1 ]; then
	echo "# the slowest tests (seconds; $((ntimes < NET_SLOWEST ? ntimes : NET_SLOWEST)) of $ntimes):"
	sort -k1,1nr "$NET_TIMES" | head -n "$NET_SLOWEST" | awk '{ printf "#  %6.1f  %s %s\n", $1, $2, $3 }'
fi
echo "# net: $(awk -v a="$run_start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }') s in all"

pass=$(grep -c '^pass ' "$NET_RESULTS")
fail=$(($(grep -c '^fail ' "$NET_RESULTS") + fail_files))
skipped=$(grep -c '^skip ' "$NET_RESULTS")
failed_names=$(awk '$1 == "fail" { printf " %s", $3 }' "$NET_RESULTS")
if [ -s "$NET_FAILLOG" ]; then
	echo "# the failures again, as printed above:"
	cat "$NET_FAILLOG"
fi
[ -n "$failed_names" ] || [ "${#failed_files[@]}" -gt 0 ] &&
	echo "failed:${failed_names}${failed_files[*]:+ ${failed_files[*]}}"
if [ "${#unknown[@]}" -gt 0 ]; then
	echo "no test is named: ${unknown[*]} (the names are in each file's ALL_TESTS)"
	fail=$((fail + ${#unknown[@]}))
fi
echo "net: $pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ]
