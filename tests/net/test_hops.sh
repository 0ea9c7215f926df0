#!/usr/bin/env bash
# rant trace: TTL-stepped probes through a chain of namespaces
#
#   client (10.82.0.1) -- R1 (10.82.0.254) == link A 10.82.1.0/24 ==
#                                            == link B 10.82.2.0/24 == R2 -- server (10.82.3.2)
#
# R1 spreads flows to the server over the two links by their L4 hash
# (fib_multipath_hash_policy=1); R2 answers from the address of the link
# a probe came in on (icmp_errors_use_inbound_ifaddr=1): 10.82.1.2 over
# link A, 10.82.2.2 over link B. The routers' ICMP rate limit is off
# (icmp_ratelimit=0) but in hops_ratelimit.
#
#   hops_ecmp       --paths 16 with a tbf queue on link A held full by a
#                   ping flood from R1: every hop of every path with the
#                   right responder (the link a capture on R1 saw each
#                   path's source port on), delay_step at hop 2 naming
#                   exactly the paths over link A; each (path, hop)'s RTT
#                   min and max as a capture's: within 2 us at the median,
#                   none over 20 us (the answers captured in the client,
#                   the probes in R1); --metrics passes promtool, one
#                   series a (path, hop), the delay step on link A's ports
#   hops_ratelimit  the routers' default ICMP limit (a burst of 6, then 1
#                   a second): --paths 16 at --rate 100 leaves hops 1 and
#                   2 short, labelled rate_limited, no loss named, the
#                   destination reached on every path; at the default
#                   --rate every probe of --paths 2 -c 2 is answered
#   hops_tools      traceroute -T -n and mtr --tcp on the same chain: the
#                   same hops as rant trace
#   hops_protos     --proto udp and --proto icmp over IPv4, and TCP, UDP
#                   and ICMP over IPv6 (hop limit, ICMPv6): every hop's
#                   responder, the destination reached
#   hops_ends       an address that does not answer (a blackhole route on
#                   R2), an unreachable network (no route on R1) and
#                   --max-hops before the destination: each ends with its
#                   line, exit 2, the hops so far in the text and JSON
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="hops_ecmp hops_ratelimit hops_tools hops_ends hops_protos"

require_root
require_cmd jq tcpdump tc ping timeout
require_rant

SERVER=10.82.3.2

# chain_setup [limit]: the chain above; with "limit" the routers keep
# their default ICMP rate limit.
chain_setup() {
	NS_C=rant-hc-$UNIQ NS_R1=rant-h1-$UNIQ NS_R2=rant-h2-$UNIQ NS_S=rant-hs-$UNIQ
	VC=hc$UNIQ V1C=h1c$UNIQ V1A=h1a$UNIQ V1B=h1b$UNIQ V2A=h2a$UNIQ V2B=h2b$UNIQ
	V2S=h2s$UNIQ VS=hs$UNIQ
	local ns l
	for ns in "$NS_C" "$NS_R1" "$NS_R2" "$NS_S"; do
		ip netns add "$ns" || return 1
		defer ip netns del "$ns"
		ip -n "$ns" link set lo up
	done
	ip link add "$VC" netns "$NS_C" type veth peer name "$V1C" netns "$NS_R1" &&
		ip link add "$V1A" netns "$NS_R1" type veth peer name "$V2A" netns "$NS_R2" &&
		ip link add "$V1B" netns "$NS_R1" type veth peer name "$V2B" netns "$NS_R2" &&
		ip link add "$V2S" netns "$NS_R2" type veth peer name "$VS" netns "$NS_S" || return 1
	ip -n "$NS_C" addr add 10.82.0.1/24 dev "$VC"
	ip -n "$NS_R1" addr add 10.82.0.254/24 dev "$V1C"
	ip -n "$NS_R1" addr add 10.82.1.1/24 dev "$V1A"
	ip -n "$NS_R1" addr add 10.82.2.1/24 dev "$V1B"
	ip -n "$NS_R2" addr add 10.82.1.2/24 dev "$V2A"
	ip -n "$NS_R2" addr add 10.82.2.2/24 dev "$V2B"
	ip -n "$NS_R2" addr add 10.82.3.1/24 dev "$V2S"
	ip -n "$NS_S" addr add "$SERVER/24" dev "$VS"
	for l in "$NS_C $VC" "$NS_R1 $V1C" "$NS_R1 $V1A" "$NS_R1 $V1B" "$NS_R2 $V2A" \
		"$NS_R2 $V2B" "$NS_R2 $V2S" "$NS_S $VS"; do
		# shellcheck disable=SC2086  # "NS DEV"
		ip -n ${l% *} link set "${l#* }" up
	done
	ip -n "$NS_C" route add default via 10.82.0.254
	ip -n "$NS_S" route add default via 10.82.3.1
	for ns in "$NS_R1" "$NS_R2"; do
		ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=1 \
			net.ipv4.fib_multipath_hash_policy=1 \
			net.ipv4.icmp_errors_use_inbound_ifaddr=1 || return 1
		if [ "${1:-}" != limit ]; then
			ip netns exec "$ns" sysctl -qw net.ipv4.icmp_ratelimit=0 || return 1
		fi
	done
	ip -n "$NS_R1" route add 10.82.3.0/24 nexthop via 10.82.1.2 dev "$V1A" \
		nexthop via 10.82.2.2 dev "$V1B" || return 1
	ip -n "$NS_R2" route add 10.82.0.0/24 nexthop via 10.82.1.1 dev "$V2A" \
		nexthop via 10.82.2.1 dev "$V2B" || return 1
	ip -n "$NS_R1" route add 10.82.4.0/24 via 10.82.1.2 dev "$V1A"
	ip -n "$NS_R2" route add blackhole 10.82.4.0/24
	chain_setup6 "${1:-}"
}

# chain_setup6: IPv6 on the same chain, over link A alone: fd82::1, R1
# fd82::fe, R2 fd82:1::2, the server fd82:3::2.
chain_setup6() {
	ip -n "$NS_C" addr add fd82::1/64 dev "$VC" nodad
	ip -n "$NS_R1" addr add fd82::fe/64 dev "$V1C" nodad
	ip -n "$NS_R1" addr add fd82:1::1/64 dev "$V1A" nodad
	ip -n "$NS_R2" addr add fd82:1::2/64 dev "$V2A" nodad
	ip -n "$NS_R2" addr add fd82:3::1/64 dev "$V2S" nodad
	ip -n "$NS_S" addr add fd82:3::2/64 dev "$VS" nodad
	ip -n "$NS_C" -6 route add default via fd82::fe
	ip -n "$NS_S" -6 route add default via fd82:3::1
	ip -n "$NS_R1" -6 route add fd82:3::/64 via fd82:1::2
	ip -n "$NS_R2" -6 route add fd82::/64 via fd82:1::1
	for ns in "$NS_R1" "$NS_R2"; do
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.forwarding=1 || return 1
		if [ "${1:-}" != limit ]; then
			ip netns exec "$ns" sysctl -qw net.ipv6.icmp.ratelimit=0 || return 1
		fi
	done
}

# trace NAME ARGS...: rant trace in the client, text in $WORK/NAME.txt,
# JSON in $WORK/NAME.json, at most 120 s; its exit status.
trace() {
	local name=$1
	shift
	timeout 120 ip netns exec "$NS_C" "$RANT" trace -i "$VC" "$@" -j "$WORK/$name.json" \
		>"$WORK/$name.txt" 2>&1
}

# sports PCAP: the source ports of the SYNs a capture holds.
sports() {
	tcpdump -nn -r "$1" 'tcp[tcpflags] == tcp-syn' 2>/dev/null |
		awk '{ n = split($3, a, "."); print a[n] }' | sort -nu | paste -sd ' '
}

# backlog NS DEV BYTES: the qdisc of DEV holds BYTES or more.
backlog() {
	local b
	b=$(tc -s -n "$1" qdisc show dev "$2" | awk '/backlog/ { sub("b", "", $2); print $2; exit }')
	[ "${b:-0}" -ge "$3" ]
}

hops_ecmp() {
	local ports_a named want resp out
	chain_setup || skip_test "cannot build the chain (multipath routes)"
	tc -n "$NS_R1" qdisc add dev "$V1A" root tbf rate 4mbit burst 4kb latency 200ms
	ns_bg "$NS_R1" ping -q -f -l 10 -s 1400 10.82.1.2
	wait_until 10 backlog "$NS_R1" "$V1A" 4000
	check_err $? "the ping flood does not fill link A's queue: $(tc -s -n "$NS_R1" qdisc show dev "$V1A")"
	ns_bg "$NS_R1" tcpdump -nn -U -i "$V1A" -w "$WORK/a.pcap" 'tcp dst port 80' 2>"$WORK/a.err"
	# the answers where the client receives them (the same RX stamps as
	# rant's), the probes where R1 receives them: a capture of the probes
	# on the client's own interface copies each before the driver sends
	# it, 3 to 7 us before the kernel's TX stamp (doc/trace.md)
	ns_bg "$NS_C" tcpdump --immediate-mode -j adapter_unsynced --time-stamp-precision nano \
		-nn -U -i "$VC" -w "$WORK/c.pcap" 'icmp or tcp src port 80' 2>"$WORK/c.err"
	ns_bg "$NS_R1" tcpdump --immediate-mode -j adapter_unsynced --time-stamp-precision nano \
		-nn -U -i "$V1C" -w "$WORK/r1.pcap" 'tcp dst port 80 and tcp[tcpflags] == tcp-syn' \
		2>"$WORK/r1.err"
	wait_for_line "$WORK/a.err" 'listening on' 10
	wait_for_line "$WORK/c.err" 'listening on' 10
	wait_for_line "$WORK/r1.err" 'listening on' 10
	trace e "$SERVER" --paths 16 --rate 200 --metrics "$WORK/e.prom"
	check_err $? "rant trace exit $?: $(tail -3 "$WORK/e.txt")"
	cat "$WORK/e.txt"
	sleep 0.5	# the captures' last packets written (-U: at once, but their pipes)
	ports_a=$(sports "$WORK/a.pcap")
	echo "link A: source ports $ports_a"
	jq -e '.paths | length == 16 and all(.hops | length == 3)' "$WORK/e.json" >/dev/null
	check_err $? "not 16 paths of 3 hops: $(jq -c '[.paths[] | .hops | length]' "$WORK/e.json")"
	jq -e 'all(.paths[]; .end == "destination_reached" and .hops[0].address == "10.82.0.254" and
		.hops[2].address == "10.82.3.2" and all(.hops[]; .received == .sent))' "$WORK/e.json" >/dev/null
	check_err $? "hops 1 and 3 not R1 and the server on every path, or probes unanswered"
	resp=$(jq -r --arg a "$ports_a" '.paths[] | (.source_port | tostring) as $p |
		[$p, .hops[1].address, (if ($a | split(" ") | index($p)) then "10.82.1.2" else "10.82.2.2" end)] |
		select(.[1] != .[2]) | join(" ")' "$WORK/e.json")
	[ -z "$resp" ]
	check_err $? "hop 2's responder is not the link the capture saw (port, responder, want): $resp"
	named=$(jq -r '[.diagnosis[] | select(.kind == "delay_step" and .ttl == 2) | .source_ports[]] |
		sort | join(" ")' "$WORK/e.json")
	want=$(tr ' ' '\n' <<<"$ports_a" | sort -n | paste -sd ' ')
	[ -n "$want" ] && [ "$named" = "$(tr ' ' '\n' <<<"$want" | sort | paste -sd ' ')" ]
	check_err $? "delay_step at hop 2 names '$named', link A's ports are '$want'"
	jq -e '[.diagnosis[] | select(.kind == "delay_step")] | length == 1 and .[0].responder == "10.82.1.2"' \
		"$WORK/e.json" >/dev/null
	check_err $? "one delay_step via 10.82.1.2 wanted: $(jq -c .diagnosis "$WORK/e.json")"
	grep -q "via 10.82.1.2: +.* ms from hop 2 on; the other .* flat" "$WORK/e.txt"
	check_err $? "the text's verdict: $(sed -n '/^verdict/,$p' "$WORK/e.txt")"
	# --metrics: valid, a series per (path, hop), the step on link A's ports
	out=$(promtool check metrics <"$WORK/e.prom" 2>&1)
	check_err $? "promtool check metrics: $out"
	[ "$(grep -c '^rant_trace_hop_sent_total{' "$WORK/e.prom")" = 48 ]
	check_err $? "not 48 (path, hop) series: $(grep -c '^rant_trace_hop_sent_total{' "$WORK/e.prom")"
	named=$(sed -n 's/^rant_trace_delay_step_seconds{.*path="\([0-9]*\)",ttl="2"} .*/\1/p' \
		"$WORK/e.prom" | sort | paste -sd ' ')
	[ "$named" = "$(tr ' ' '\n' <<<"$want" | sort | paste -sd ' ')" ]
	check_err $? "the metrics' delay step at hop 2 on '$named', link A's ports are '$want'"
	# each (path, hop)'s min and max as the capture's: a median
	# difference of 2 us at most, none over 20 us (a probe whose link
	# crossing a busy machine stretched: doc/trace.md)
	"$PYTHON" "$TOP/tests/net/hopcap.py" "$WORK/e.json" 2000 20000 "$WORK/c.pcap" \
		"$WORK/r1.pcap" >"$WORK/cmp.txt"
	check_err $? "rant's RTTs against the capture's: $(grep -E 'MISMATCH|in the capture' "$WORK/cmp.txt" | head -5)"
	tail -1 "$WORK/cmp.txt"
	log_test "trace: 16 ECMP paths, hop 2 named on link A's, RTTs as captured"
}

hops_ratelimit() {
	chain_setup limit || skip_test "cannot build the chain (multipath routes)"
	trace e "$SERVER" --paths 16 --rate 100
	check_err $? "rant trace exit $?: $(tail -3 "$WORK/e.txt")"
	cat "$WORK/e.txt"
	jq -e 'all(.paths[]; .end == "destination_reached")' "$WORK/e.json" >/dev/null
	check_err $? "the destination not reached on every path"
	jq -e '[.paths[].hops[0:2][] | select(.received < .sent)] | length > 0 and
		all(.rate_limited)' "$WORK/e.json" >/dev/null
	check_err $? "hops 1 and 2 short but not all labelled rate_limited: $(jq -c '[.paths[].hops[0:2][] | [.sent, .received, .rate_limited]]' "$WORK/e.json")"
	jq -e '[.diagnosis[] | select(.kind == "loss_from")] | length == 0' "$WORK/e.json" >/dev/null
	check_err $? "a rate limit named as loss: $(jq -c .diagnosis "$WORK/e.json")"
	grep -q "rate limited" "$WORK/e.txt"
	check_err $? "the text does not say rate limited"
	log_test "trace: the routers' default ICMP limit labelled rate_limited, not loss"
	trace d "$SERVER" --paths 2 -c 2
	check_err $? "rant trace at the default rate exit $?: $(tail -3 "$WORK/d.txt")"
	jq -e 'all(.paths[]; .end == "destination_reached" and all(.hops[]; .received == .sent and
		(.rate_limited | not)))' "$WORK/d.json" >/dev/null
	check_err $? "at the default --rate not every probe answered: $(jq -c '[.paths[].hops[] | [.sent, .received]]' "$WORK/d.json")"
	log_test "trace: the default --rate answered in full under the default limit"
}

# tool_hops FILE: "TTL ADDRESS" lines of a traceroute -n or mtr -n report.
hops_tools() {
	local tr mtr ours
	require_cmd traceroute mtr
	chain_setup || skip_test "cannot build the chain (multipath routes)"
	ip netns exec "$NS_C" traceroute -T -n -p 80 "$SERVER" >"$WORK/tr.txt" 2>&1
	check_err $? "traceroute -T: $(tail -2 "$WORK/tr.txt")"
	ip netns exec "$NS_C" mtr --tcp -P 80 -n -r -c 3 "$SERVER" >"$WORK/mtr.txt" 2>&1
	check_err $? "mtr --tcp: $(tail -2 "$WORK/mtr.txt")"
	trace e "$SERVER" --paths 4 --rate 100
	check_err $? "rant trace exit $?: $(tail -3 "$WORK/e.txt")"
	cat "$WORK/tr.txt" "$WORK/mtr.txt"
	sed -n '/^path/,/^$/p' "$WORK/e.txt" | head -8
	# each tool's hops: the set of addresses at each TTL
	tr=$(awk '$1 ~ /^[0-9]+$/ { for (i = 2; i <= NF; i++) if ($i ~ /^10\./) print $1, $i }' \
		"$WORK/tr.txt" | sort -u | paste -sd ,)
	mtr=$(awk '$1 ~ /^[0-9]+\.\|--$/ { sub(/\..*/, "", $1); print $1, $2 }' "$WORK/mtr.txt" |
		sort -u | paste -sd ,)
	ours=$(jq -r '.paths[].hops[] | "\(.ttl) \(.address)"' "$WORK/e.json" | sort -u | paste -sd ,)
	echo "traceroute: $tr"
	echo "mtr:        $mtr"
	echo "rant trace: $ours"
	for t in "$tr" "$mtr" "$ours"; do
		grep -Eq '^1 10\.82\.0\.254,2 10\.82\.[12]\.2,(2 10\.82\.2\.2,)?3 10\.82\.3\.2$' <<<"$t"
		check_err $? "not hops R1, R2 (link A or B), the server: '$t'"
	done
	log_test "trace: the hops of traceroute -T and mtr --tcp"
}

hops_ends() {
	local rc
	chain_setup || skip_test "cannot build the chain (multipath routes)"
	trace silent 10.82.4.1 --rate 50
	rc=$?
	[ "$rc" = 2 ]; check_err $? "an address that does not answer: exit $rc, want 2"
	grep -q '^end: no answer from hop 2 on (4 hops in a row): 10.82.4.1 does not answer' "$WORK/silent.txt"
	check_err $? "its end line: $(tail -1 "$WORK/silent.txt")"
	jq -e '.paths[0].end == "silent" and .paths[0].hops[0].address == "10.82.0.254" and
		(.paths[0].hops[1:] | all(.address == null))' "$WORK/silent.json" >/dev/null
	check_err $? "its hops so far: $(jq -c '.paths[0].hops | map(.address)' "$WORK/silent.json")"
	log_test "trace: an address that does not answer ends after 4 silent hops"
	trace unreach 10.99.0.1 --rate 50
	rc=$?
	[ "$rc" = 2 ]; check_err $? "an unreachable network: exit $rc, want 2"
	grep -q '^end: hop 1 (10.82.0.254) says network unreachable (ICMP code 0): the trace ends there' \
		"$WORK/unreach.txt"
	check_err $? "its end line: $(tail -1 "$WORK/unreach.txt")"
	jq -e '.paths[0].end == "unreachable" and (.paths[0].hops | length == 1)' \
		"$WORK/unreach.json" >/dev/null
	check_err $? "its hops: $(jq -c .paths[0] "$WORK/unreach.json")"
	log_test "trace: an unreachable network ends at the router that says so"
	trace short "$SERVER" --max-hops 2 --rate 50
	rc=$?
	[ "$rc" = 2 ]; check_err $? "--max-hops 2: exit $rc, want 2"
	grep -q "^end: hop limit 2 reached without the destination $SERVER (--max-hops)" "$WORK/short.txt"
	check_err $? "its end line: $(tail -1 "$WORK/short.txt")"
	jq -e '.paths[0].end == "max_hops" and (.paths[0].hops | map(.address) ==
		["10.82.0.254", .[1].address]) and (.paths[0].hops[1].address | test("^10\\.82\\.[12]\\.2$"))' \
		"$WORK/short.json" >/dev/null
	check_err $? "its hops so far: $(jq -c '.paths[0].hops | map(.address)' "$WORK/short.json")"
	log_test "trace: --max-hops before the destination ends with its hops"
	trace stopped 10.82.4.1 --rate 2 &
	local tpid=$! t0=$EPOCHREALTIME
	sleep 1.5
	# rant alone: timeout(1) would relay a second SIGINT, after the loop
	pkill -INT -f -- "^$RANT trace .*-j $WORK/stopped.json"
	wait "$tpid"
	rc=$?
	jq -e '.paths[0].end == "stopped"' "$WORK/stopped.json" >/dev/null &&
		awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { exit !(b - a < 4) }'
	check_err $? "SIGINT: exit $rc, $(tail -1 "$WORK/stopped.txt"), $(jq -c '.paths[0].end' \
		"$WORK/stopped.json" 2>&1)"
	log_test "trace: SIGINT ends the trace at once, its hops so far kept (exit $rc)"
}

# hops_of NAME: "TTL ADDRESS" of path 1's hops, comma separated.
hops_of() {
	jq -r '[.paths[0].hops[] | "\(.ttl) \(.address)"] | join(",")' "$WORK/$1.json"
}

hops_protos() {
	local p got
	chain_setup || skip_test "cannot build the chain (multipath routes)"
	for p in udp icmp; do
		trace "$p" "$SERVER" --proto "$p" --rate 50
		check_err $? "--proto $p exit $?: $(tail -3 "$WORK/$p.txt")"
		got=$(hops_of "$p")
		grep -Eq '^1 10\.82\.0\.254,2 10\.82\.[12]\.2,3 10\.82\.3\.2$' <<<"$got"
		check_err $? "--proto $p: hops '$got'"
		# a probe whose TX stamp never came is answered, counted
		# unstamped, not timed (seen for the first UDP probe of a
		# trace, once in a few: doc/trace.md)
		jq -e 'all(.paths[].hops[]; .received == .sent and
			(.metrics.rtt.samples // 0) + .unstamped == .sent and .unstamped <= 1)' \
			"$WORK/$p.json" >/dev/null
		check_err $? "--proto $p: probes unanswered or untimed: $(jq -c '[.paths[].hops[] | [.sent, .received, .unstamped]]' "$WORK/$p.json")"
	done
	log_test "trace: --proto udp and icmp, every hop timed"
	for p in tcp udp icmp; do
		trace "v6$p" fd82:3::2 --proto "$p" --rate 50
		check_err $? "IPv6 --proto $p exit $?: $(tail -3 "$WORK/v6$p.txt")"
		got=$(hops_of "v6$p")
		[ "$got" = "1 fd82::fe,2 fd82:1::2,3 fd82:3::2" ]
		check_err $? "IPv6 --proto $p: hops '$got'"
		jq -e 'all(.paths[].hops[]; .received == .sent and
			(.metrics.rtt.samples // 0) + .unstamped == .sent and .unstamped <= 1)' \
			"$WORK/v6$p.json" >/dev/null
		check_err $? "IPv6 --proto $p: probes unanswered or untimed: $(jq -c '[.paths[].hops[] | [.sent, .received, .unstamped]]' "$WORK/v6$p.json")"
	done
	log_test "trace: IPv6 (hop limit, ICMPv6), TCP, UDP and ICMP"
}

tests_run
