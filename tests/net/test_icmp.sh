#!/usr/bin/env bash
# rant emit --icmp (src/probe/icmp.c, src/transport/icmpsock.c): ICMP echo to a
# namespace host that runs nothing of rant's. The requests it counts are
# the host's Icmp InEchos; its RTTs are tcpdump's capture of the same
# requests and replies (count, p50, minimum and maximum within 2 us);
# beside ping -c and fping -C on the same host (their figures logged, not
# asserted: doc/icmp.md); a host that ignores echo requests
# (icmp_echo_ignore_all) reads as lost with the reason; a host behind a
# router with an unreachable route as `unreachable`, not lost; a user
# outside net.ipv4.ping_group_range is told the sysctl.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="icmp_inechos icmp_tcpdump icmp_ping_fping icmp_ignored icmp_unreachable
	icmp_no_group icmp_ipv6"

require_root
require_cmd jq tcpdump ping fping taskset promtool
require_rant

# pair_icmp: the namespaces, NS_A's ping sockets open to every group.
pair_icmp() {
	setup_pair || skip_test "cannot create namespaces and veth"
	ip netns exec "$NS_A" sysctl -qw net.ipv4.ping_group_range="0 2147483647"
}

# icmp NAME ADDR ARGS...: rant emit --icmp in NS_A on CPU 0, text in
# $WORK/NAME.txt, JSON in $WORK/NAME.json; its exit status in $ICMP_RC.
icmp() {
	local name=$1 addr=$2
	shift 2
	ICMP_RC=0
	ip netns exec "$NS_A" taskset -c 0 timeout 120 "$RANT" emit --icmp -i "$VETH_A" "$addr" \
		-j "$WORK/$name.json" "$@" >"$WORK/$name.txt" 2>&1 || ICMP_RC=$?
}

# in_echos NS: the host's Icmp InEchos.
in_echos() {
	ip netns exec "$1" awk '/^Icmp:/ { if (!h) { for (i = 1; i <= NF; i++) c[$i] = i; h = 1 }
		else print $c["InEchos"] }' /proc/net/snmp
}

icmp_inechos() {
	local before after sent
	pair_icmp
	before=$(in_echos "$NS_B")
	icmp count "$IP_B" -c 500 -w 20 --interval 1000 --block
	after=$(in_echos "$NS_B")
	sent=$(($(jqv "$WORK/count.json" .counts.sent) + $(jqv "$WORK/count.json" .counts.warmup)))
	[ "$ICMP_RC" = 0 ] && [ "$(jqv "$WORK/count.json" .counts.received)" = 500 ] &&
		[ "$(jqv "$WORK/count.json" .metrics.rtt.samples)" = 500 ]
	check_err $? "exit $ICMP_RC, $(grep ^sent "$WORK/count.txt")"
	[ "$((after - before))" = "$sent" ]
	check_err $? "the host's InEchos rose by $((after - before)), rant sent $sent"
	[ "$(jqv "$WORK/count.json" .probe.kind)" = icmp ] &&
		[ "$(jqv "$WORK/count.json" .config.probe)" = icmp ]
	check_err $? "the JSON does not say icmp: $(jq -c .probe "$WORK/count.json")"
	log_test "--icmp: $sent requests, the host's InEchos +$((after - before))"
}

__captured() {
	CAPTURED=$(tcpdump -r "$1" -nn 2>/dev/null | wc -l)
	[ "$CAPTURED" -ge "$2" ]
}

# The capture's reply stamps are rant's T4 (within 2 us, each echo); its
# request stamps lie between T1_SCHED and T1 (a packet tap stamps a sent
# packet after the qdisc, before the driver's own stamp): each echo's RTT
# is the capture's less the tap's lead, logged.
icmp_tcpdump() {
	local start got want cnt matched rxmax outside lead leadmax rcnt tstype=(-j adapter_unsynced)
	pair_icmp
	# veth may not offer adapter_unsynced: the host's stamp then
	ip netns exec "$NS_A" tcpdump -i "$VETH_A" -J 2>/dev/null | grep -q adapter_unsynced ||
		tstype=()
	ip netns exec "$NS_A" tcpdump -i "$VETH_A" -nn -U --immediate-mode -B 65536 "${tstype[@]}" \
		--time-stamp-precision=nano -w "$WORK/icmp.pcap" icmp 2>"$WORK/tcpdump.txt" &
	TCPDUMP=$!
	defer kill -9 "$TCPDUMP"
	wait_for_line "$WORK/tcpdump.txt" "listening on" 10 ||
		check_err 1 "tcpdump did not start: $(cat "$WORK/tcpdump.txt")"
	icmp cap "$IP_B" -c 1000 --interval 1000 --block -m 56 -l "$WORK/cap.log"
	want=$((2 * $(jqv "$WORK/cap.json" .counts.received)))
	wait_until 10 __captured "$WORK/icmp.pcap" "$want"
	check_err $? "tcpdump wrote $(__captured "$WORK/icmp.pcap" 0; echo "$CAPTURED") of $want packets"
	kill -INT "$TCPDUMP"
	wait "$TCPDUMP"
	start=$(jqv "$WORK/cap.json" .start_ns)
	got=$(tcpdump -r "$WORK/icmp.pcap" -nn --nano -tt 2>/dev/null |
		"$PYTHON" "$TOP/tests/net/icmprtt.py" "$start" "$WORK/cap.log")
	check_err $? "no echo in tcpdump's capture"
	read -r _ cnt _ matched _ rxmax _ outside _ lead _ leadmax <<<"$got"
	rcnt=$(jqv "$WORK/cap.json" .counts.received)
	# a loaded machine's tcpdump may drop a packet or two (counted in its
	# "dropped by kernel"): 99% of the echoes must be in the capture
	[ "$cnt" = "$rcnt" ] && [ "$((matched * 100))" -ge "$((rcnt * 99))" ]
	check_err $? "rant logged $cnt echoes of $rcnt received, the capture has $matched of them"
	[ "$rxmax" -le 2000 ] && [ "$outside" = 0 ]
	check_err $? "T4 up to $rxmax ns from the capture's reply; $outside requests captured outside [T1_SCHED, T1]"
	log_test "--icmp against tcpdump: $matched echoes, T4 within $rxmax ns, T1 after the tap by $lead ns (p50, max $leadmax)"
}

icmp_ping_fping() {
	local pavg fout
	pair_icmp
	icmp side "$IP_B" -c 200 --interval 10000 --block -m 56
	[ "$ICMP_RC" = 0 ]
	check_err $? "rant: exit $ICMP_RC, $(tail -2 "$WORK/side.txt")"
	ip netns exec "$NS_A" taskset -c 0 ping -c 200 -i 0.01 -s 56 -I "$VETH_A" "$IP_B" \
		>"$WORK/ping.txt" 2>&1
	check_err $? "ping: $(tail -2 "$WORK/ping.txt")"
	pavg=$(sed -n 's|^rtt min/avg/max/mdev = \([^ ]*\) ms|\1|p' "$WORK/ping.txt")
	ip netns exec "$NS_A" taskset -c 0 fping -C 200 -p 10 -b 56 -q -I "$VETH_A" "$IP_B" \
		>"$WORK/fping.txt" 2>&1
	check_err $? "fping: $(tail -2 "$WORK/fping.txt")"
	fout=$(sed -n 's/^[^:]*: //p' "$WORK/fping.txt" | tr ' ' '\n' | grep -E '^[0-9.]+$' | sort -g |
		awk '{ v[NR] = $1 } END { printf "min %s p50 %s max %s", v[1], v[int((NR + 1) / 2)], v[NR] }')
	log_test "same host, 200 echoes at 10 ms: rant rtt min/p50/max $(jqv "$WORK/side.json" \
		.metrics.rtt.min)/$(jqv "$WORK/side.json" .metrics.rtt.percentiles.\"50\")/$(jqv \
		"$WORK/side.json" .metrics.rtt.max) ns; ping min/avg/max/mdev $pavg ms; fping ms $fout"
}

icmp_ignored() {
	pair_icmp
	ip netns exec "$NS_B" sysctl -qw net.ipv4.icmp_echo_ignore_all=1
	icmp ignored "$IP_B" -c 5 -w 0 --timeout 100000 --block
	[ "$ICMP_RC" = 2 ] && [ "$(jqv "$WORK/ignored.json" .counts.lost)" = 5 ] &&
		[ "$(jqv "$WORK/ignored.json" .probe.unreachable)" = 0 ] &&
		jqv "$WORK/ignored.json" .probe.lost_reason | grep -q icmp_echo_ignore_all &&
		grep -q "icmp: lost: .*icmp_echo_ignore_all" "$WORK/ignored.txt"
	check_err $? "exit $ICMP_RC, $(grep -E '^(sent|icmp)' "$WORK/ignored.txt")"
	# without -w 0 the warm-up says why nothing can be measured
	icmp ignored_warm "$IP_B" -c 5 --warmup-timeout 1 --timeout 100000 --block
	[ "$ICMP_RC" = 2 ] && grep -q "no echo reply from $IP_B .*icmp_echo_ignore_all" \
		"$WORK/ignored_warm.txt"
	check_err $? "warm-up: exit $ICMP_RC, $(tail -1 "$WORK/ignored_warm.txt")"
	log_test "--icmp to a host with icmp_echo_ignore_all=1: 5 lost, the reason named"
}

# A router (NS_B, forwarding) with an unreachable route to 10.78.0.0/24
# answers each request with a host unreachable; the kernel's ip_error
# allows a burst of 5 (net.ipv4.route.error_burst / error_cost).
icmp_unreachable() {
	pair_icmp
	ip netns exec "$NS_B" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.icmp_ratelimit=0
	ip -n "$NS_B" route add unreachable 10.78.0.0/24
	ip -n "$NS_A" route add 10.78.0.0/24 via "$IP_B"
	icmp unreach 10.78.0.5 -c 5 -w 0 --interval 20000 --block --metrics "$WORK/unreach.prom"
	[ "$(jqv "$WORK/unreach.json" .probe.unreachable)" = 5 ] &&
		[ "$(jqv "$WORK/unreach.json" .counts.lost)" = 0 ] &&
		grep -q "icmp: errors back unreachable 5" "$WORK/unreach.txt" &&
		grep -q '^rant_icmp_errors_total{error="unreachable",.*} 5$' "$WORK/unreach.prom" &&
		grep -q 'transport="icmp"' "$WORK/unreach.prom" &&
		promtool check metrics <"$WORK/unreach.prom" >/dev/null 2>&1
	check_err $? "exit $ICMP_RC, $(grep -E '^(sent|icmp)' "$WORK/unreach.txt")"
	log_test "--icmp behind an unreachable route: 5 unreachable, none lost"
}

icmp_no_group() {
	setup_pair || skip_test "cannot create namespaces and veth"
	ip netns exec "$NS_A" sysctl -qw net.ipv4.ping_group_range="1 0"
	icmp nogroup "$IP_B" -c 5
	[ "$ICMP_RC" = 1 ] && grep -q "ping_group_range" "$WORK/nogroup.txt"
	check_err $? "exit $ICMP_RC, $(cat "$WORK/nogroup.txt")"
	log_test "--icmp outside ping_group_range: exit 1, the sysctl named"
}

icmp_ipv6() {
	pair_icmp
	icmp v6 "$IP6_B" -c 200 --block
	[ "$ICMP_RC" = 0 ] && [ "$(jqv "$WORK/v6.json" .counts.received)" = 200 ] &&
		[ "$(jqv "$WORK/v6.json" .metrics.rtt.samples)" = 200 ]
	check_err $? "IPv6: exit $ICMP_RC, $(grep ^sent "$WORK/v6.txt")"
	log_test "--icmp over IPv6 (an ICMPv6 ping socket): 200 echoes"
}

tests_run
