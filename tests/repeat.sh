#!/usr/bin/env bash
# tests/repeat.sh [N]: does the suite flake? Clones this repository's HEAD
# (committed work only) into a fresh temporary directory and runs
# `make check` there N times in a row (default 10), each from a clean
# tree (git clean -fdx), as from a fresh clone. Prints one line per run
# and "repeat: N passed, N failed"; keeps the logs of failed runs and says
# where, with the files of the network tests that failed (NET_KEEP, in
# run-N-files/). Root only (make check installs what is missing and runs the
# network tests). Exit 0 if every run passed.
set -euo pipefail

usage() {
	echo "usage: tests/repeat.sh [N]   (N runs of make check, default 10)" >&2
	exit 1
}

main() {
	local n=${1:-10} top head tmp logs i rc start secs pass=0 fail=0

	[ $# -le 1 ] || usage
	[[ $n =~ ^[1-9][0-9]*$ ]] || usage
	if [ "$(id -u)" != 0 ]; then
		echo "repeat.sh: needs root (make check installs packages and runs the network tests): run with sudo" >&2
		exit 1
	fi
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	head=$(git -C "$top" rev-parse HEAD)
	git -C "$top" diff --quiet HEAD 2>/dev/null ||
		echo "repeat: note: uncommitted changes in $top are not tested (HEAD only)"
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/rant-repeat.XXXXXX")
	# as a clone elsewhere: tests that drop root (setpriv) must reach the tree
	chmod 0755 "$tmp"
	logs=$tmp/logs
	mkdir "$logs"
	# shellcheck disable=SC2064  # $tmp is fixed from here on
	trap "rm -rf '$tmp/rant'; rmdir '$logs' '$tmp' 2>/dev/null || true" EXIT
	git clone -q --no-hardlinks "$top" "$tmp/rant"
	git -C "$tmp/rant" checkout -q --detach "$head"
	echo "repeat: $n runs of make check on $(git -C "$top" log -1 --format='%h %s' "$head") in $tmp/rant"

	for ((i = 1; i <= n; i++)); do
		git -C "$tmp/rant" clean -qfdx
		start=$(date +%s)
		rc=0
		NET_KEEP=$logs/run-$i-files make -C "$tmp/rant" check >"$logs/run-$i.log" 2>&1 </dev/null ||
			rc=$?
		secs=$(($(date +%s) - start))
		if [ "$rc" = 0 ]; then
			pass=$((pass + 1))
			echo "run $i/$n: pass in $secs s"
			rm -f "$logs/run-$i.log"
		else
			fail=$((fail + 1))
			echo "run $i/$n: FAIL (exit $rc) in $secs s: $(grep -E '\[FAIL\]|^failed:|Error [0-9]' "$logs/run-$i.log" | head -3 | tr '\n' ' ')"
		fi
	done
	echo "repeat: $pass passed, $fail failed"
	if [ "$fail" -gt 0 ]; then
		echo "repeat: logs of the failed runs in $logs/"
		return 1
	fi
}

main "$@"
