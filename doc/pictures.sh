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
# and those of doc/fleet.md (doc/pictures.sh fleet: these alone):
#   fleet.json/.log   rant --targets: 200 addresses of one reflector, 10
#                     pings a second each over --paths 8, 20 s, the odd
#                     source ports of 63 behind a TCP load's queue  fleet, paths
# and those of doc/load.md (doc/pictures.sh bloat: these alone, 12 minutes):
#   bloat/            tools/bufferbloat.sh's study, -c 400: two ICMP
#                     destinations under four loads, a large and a small
#                     queue                                  bloat-page, bloat-*
# and that of doc/trace.md (doc/pictures.sh trace: this alone, no root):
#   tests/plot/trace.json  rant trace --paths 16 --rate 200 over the chain
#                     of tests/net/test_hops.sh (hops_ecmp's queue on link A)  trace
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../tests/net/lib.sh
. "$TOP/tests/net/lib.sh"

DOC=$TOP/doc
RUNS=$DOC/runs
PLOT=("/usr/bin/python3" "$TOP/tools/rant-plot")
WHAT=${1:-all}
# trace: drawn from the run kept in tests/plot/trace.json
trace() {
	"${PLOT[@]}" trace "$TOP/tests/plot/trace.json" -o "$DOC/trace-hops.png"
}
if [ "$WHAT" = trace ]; then
	trace
	exit 0
fi
# bloat: the origin's bufferbloat study (doc/load.md), in namespaces of its own
if [ "$WHAT" = bloat ]; then
	"$TOP/tools/bufferbloat.sh" -c "${BLOAT_COUNT:-400}" -o "$RUNS/bloat"
	cp "$RUNS/bloat/bloat-page.png" "$DOC/bloat-page.png"
	cp "$RUNS/bloat/large-both.png" "$DOC/bloat-large-both.png"
	cp "$RUNS/bloat/small-both.png" "$DOC/bloat-small-both.png"
	exit 0
fi
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

# fleet: 200 targets of one reflector at once (doc/fleet.md)
fleet() {
	local i
	: >"$RUNS/fleet.targets"
	for ((i = 1; i <= 200; i++)); do
		echo "addr add 10.99.0.$i/32 dev $VETH_B"
		echo "10.99.0.$i" >>"$RUNS/fleet.targets"
	done | ip -n "$NS_B" -batch -
	ip -n "$NS_A" route add 10.99.0.0/16 via "$IP_B"
	# the pongs of targets 10.99.0.1-63 to the odd source ports share a
	# 20 Mbit/s class (40 packets of queue) with a TCP load, as if those
	# paths hashed onto a congested link: the paths the diagnosis should
	# name. On the reflector's side: the emitter's queue is before its TX
	# stamp, so the round trip does not hold it.
	ip netns exec "$NS_B" ethtool -K "$VETH_B" tso off gso off >/dev/null
	tc -n "$NS_B" qdisc add dev "$VETH_B" root handle 1: htb default 10
	tc -n "$NS_B" class add dev "$VETH_B" parent 1: classid 1:10 htb rate 10gbit quantum 60000
	tc -n "$NS_B" class add dev "$VETH_B" parent 1: classid 1:20 htb rate 20mbit ceil 20mbit quantum 1514
	tc -n "$NS_B" qdisc add dev "$VETH_B" parent 1:20 handle 20: pfifo limit 40
	tc -n "$NS_B" filter add dev "$VETH_B" parent 1: protocol ip u32 \
		match ip src 10.99.0.0/26 match ip dport 1 0x1 flowid 1:20
	tc -n "$NS_B" filter add dev "$VETH_B" parent 1: protocol ip u32 \
		match ip sport 5201 0xffff flowid 1:20
	ns_bg "$NS_B" iperf3 -s -1 -B "$IP_B" -p 5201 >/dev/null
	wait_until 5 __tcp_port "$NS_B" 5201
	ns_bg "$NS_A" iperf3 -R -c "$IP_B" -p 5201 --cport 5301 -t 23 >/dev/null
	start_reflector fleetrefl --block --max-sessions 4096 --max-sessions-per-address 4096 ||
		{ echo "pictures: the reflector did not start" >&2; exit 1; }
	emit --targets "$RUNS/fleet.targets" --paths 8 -d 20 --block -l "$RUNS/fleet.log" \
		-j "$RUNS/fleet.json" >/dev/null
	tc -n "$NS_B" -s qdisc show dev "$VETH_B" >"$RUNS/fleet.tc"
	stop_reflector
	(cd "$RUNS" && "${PLOT[@]}" fleet fleet.json --log fleet.log -o "$DOC/fleet-heat.png" &&
		"${PLOT[@]}" paths fleet.json --size 1200x1040 -o "$DOC/fleet-paths.png")
}

if [ "$WHAT" = capture ]; then
	capture
	exit 0
fi
if [ "$WHAT" = fleet ]; then
	fleet
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
fleet
trace
