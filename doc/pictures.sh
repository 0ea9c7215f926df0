#!/usr/bin/env bash
# The pictures of doc/usage.md: real runs over a veth pair in two namespaces of
# their own, drawn by tools/rant-plot into doc/. Runs as root after make;
# about a minute. The runs' files stay in doc/runs/ (not committed).
#   emit.json/.log    3 s back to back, -s, -t 50 -C       dist, time, parts
#   block.json/.log   the same with --block                compare (spin/block)
#   m<size>.json      2 s --block -b 0.1, -m 72 ... 8972  sweep
# and those of doc/capture.md (doc/pictures.sh capture: these alone):
#   capture.json      rant --read of tcpdump's capture of nginx (tcp_nodelay
#                     off and on) under wrk (tests/net/nginx.sh)   flow, ports
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../tests/net/lib.sh
. "$TOP/tests/net/lib.sh"

DOC=$TOP/doc
RUNS=$DOC/runs
PLOT=("/usr/bin/python3" "$TOP/tools/rant-plot")
WHAT=${1:-all}
require_root
[ -x "$RANT" ] || { echo "pictures: $RANT is not built: make" >&2; exit 1; }
mkdir -p "$RUNS"
setup_pair

# capture: nginx under wrk, captured and read (doc/capture.md)
capture() {
	# shellcheck source=../tests/net/nginx.sh
	. "$TOP/tests/net/nginx.sh"
	nginx_start
	cap_start nginx.pcap -i "$VETH_B" -s 256 --time-stamp-precision nano tcp
	traffic
	cap_stop
	"$RANT" --read "$WORK/nginx.pcap" -j "$RUNS/capture.json" >"$RUNS/capture.txt"
	(cd "$RUNS" && "${PLOT[@]}" flow capture.json -d "$DOC" &&
		"${PLOT[@]}" ports capture.json -d "$DOC")
}

if [ "$WHAT" = capture ]; then
	capture
	exit 0
fi
start_reflector refl -d 600 || { echo "pictures: the reflector did not start" >&2; exit 1; }

# run NAME ARGS...: one emitter run into $RUNS/NAME.{json,log}; exit 3
# (a round trip above -t, the run went on with -C) is expected.
run() {
	local name=$1 rc=0
	shift
	echo "== rant -a $IP_B $* -l $name.log -j $name.json"
	emit -a "$IP_B" "$@" -l "$RUNS/$name.log" -j "$RUNS/$name.json" >/dev/null || rc=$?
	[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || { echo "pictures: rant exit $rc" >&2; exit 1; }
}

run emit -d 3 -s -t 50 -C
run block -d 3 -s --block
for m in 72 512 1472 4096 8972; do
	run "m$m" -d 2 --block -b 0.1 -m "$m"
done
stop_reflector

cd "$RUNS"
set -x
"${PLOT[@]}" all emit.json --log emit.log --violin -d "$DOC"
"${PLOT[@]}" compare emit.json block.json --log emit.log --log block.log \
	--label spinning --label blocking -d "$DOC"
"${PLOT[@]}" sweep m72.json m512.json m1472.json m4096.json m8972.json -d "$DOC"
set +x
capture
