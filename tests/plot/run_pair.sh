#!/usr/bin/env bash
# Make a real run for the plot tests: a reflector and an emitter over veth
# in two namespaces of their own (tests/net/lib.sh), -s with a threshold
# that some round trips cross (-t 20 -C), a log and a JSON each. The four
# files are copied to OUTDIR; namespaces and temporary files are removed
# at exit, pass or fail. Exit 4 (skip) without root.
# usage: run_pair.sh OUTDIR [SECONDS]
set -euo pipefail

out=${1:?usage: run_pair.sh OUTDIR [SECONDS]}
secs=${2:-2}
# shellcheck source=../net/lib.sh
. "$(dirname "$0")/../net/lib.sh"

require_root
require_cmd ip ss taskset
[ -x "$RANT" ] || { echo "run_pair: $RANT is not built: make" >&2; exit 1; }
mkdir -p "$out"
setup_pair || { echo "run_pair: could not create the veth pair" >&2; exit 1; }
start_reflector refl -s -l "$WORK/reflect.log" -j "$WORK/reflect.json" \
	-d $((secs + 20)) || { echo "run_pair: the reflector did not start" >&2; cat "$WORK/refl.txt" >&2; exit 1; }
rc=0
emit -a "$IP_B" -d "$secs" -s -t 20 -C -l "$WORK/emit.log" -j "$WORK/emit.json" \
	>"$WORK/emit.txt" 2>&1 || rc=$?
stop_reflector
# 0: no round trip crossed 20 us; 3: some did (the run goes on with -C).
if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
	echo "run_pair: the emitter failed (exit $rc):" >&2
	cat "$WORK/emit.txt" >&2
	exit 1
fi
cp "$WORK/emit.log" "$WORK/emit.json" "$WORK/reflect.log" "$WORK/reflect.json" "$out/"
