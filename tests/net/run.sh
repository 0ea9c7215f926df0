#!/usr/bin/env bash
# Run every network test (tests/net/test_*.sh); each exits 0 (pass),
# 4 (skip) or anything else (fail). Prints the plain closing line.
set -u
cd "$(dirname "$0")" || exit 1
pass=0 fail=0 skipped=0 failed_names=()
for t in test_*.sh; do
	[ -e "$t" ] || continue
	echo "# $t"
	start=$(date +%s)
	bash "./$t"
	rc=$?
	echo "# $t: exit $rc in $(($(date +%s) - start)) s"
	case $rc in
	0) pass=$((pass + 1)) ;;
	4) skipped=$((skipped + 1)) ;;
	*) fail=$((fail + 1)); failed_names+=("$t") ;;
	esac
done
[ "$fail" -gt 0 ] && echo "failed: ${failed_names[*]}"
echo "net: $pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ]
