#!/usr/bin/env bash
# Targets of any kind in one --targets file: a rant reflector, a STAMP
# reflector and hosts that run nothing of rant's (ICMP echo, a TCP
# handshake, an HTTP request), each
# with its name=, in one run: each measured on its own interval= (the
# counts say so), named in the text, the JSON and the metrics (labels
# peer, name, kind; promtool passes), its dscp= on the wire. Bad lines
# (a kind rant does not know, syn without a port, a bad name=, a name
# given twice, icmp with a port, an https URL, a bad URL, a second URL of
# one server) are refused, each with its line number and the fix. syn
# targets (a TCP listener) have their handshakes timed, a closed port's
# RSTs counted refused. http targets (http_odd.py's servers) are timed on
# kept-alive connections, a closed one's, a silent one's, garbage and a
# refused port each counted as it is. icmp targets behind a router's
# unreachable route (IPv4 and IPv6) and a routing loop have every request
# counted unreachable or time_exceeded, none lost, in the text, the JSON
# and the metrics (a syn target's SYNs too), beside one that answers and
# loses nothing to them. Scale: 1,000 mixed targets (rant, stamp, icmp,
# syn, http) at 10 a second each lose none, and the run's
# peak RSS is within twice that of 1,000 rant targets measured the same
# way (a ratio).
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="kinds_one_each kinds_bad_lines kinds_syn kinds_http kinds_icmp_errors kinds_reload
	kinds_http_reload kinds_scale"

require_root
require_cmd jq promtool tcpdump
require_rant

# kinds_reflectors [ARGS...]: rant's reflector on $PORT and a STAMP one
# on 862 in NS_B (--block, CPU 1), ARGS for both; ping sockets allowed
# in NS_A (the namespace's own sysctl, gone with it).
kinds_reflectors() {
	ip netns exec "$NS_A" sysctl -qw net.ipv4.ping_group_range="0 2147483647"
	ns_bg "$NS_B" taskset -c 1 "$RANT" -i "$VETH_B" --block "$@" >"$WORK/r.txt" 2>&1
	ns_bg "$NS_B" taskset -c 1 "$RANT" -i "$VETH_B" --stamp --block "$@" \
		>"$WORK/rs.txt" 2>&1
	wait_udp_port "$NS_B" "$PORT" || check_err 1 "the reflector did not bind"
	wait_udp_port "$NS_B" 862 || check_err 1 "the STAMP reflector did not bind"
}

# kinds_listener: a TCP listener on port 8080 of every address of NS_B
# (IPv4 and IPv6), for syn targets.
kinds_listener() {
	ns_bg "$NS_B" /usr/bin/python3 -c 'import socket, time
s = socket.socket(socket.AF_INET6)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
s.bind(("::", 8080))
s.listen(4096)
time.sleep(600)'
	wait_until 10 sh -c "ip netns exec $NS_B ss -Hltn 'sport = :8080' | grep -q LISTEN" ||
		check_err 1 "the TCP listener did not start"
}

# named JSON NAME EXPR: EXPR of the target named NAME in JSON.
named() {
	jq -r --arg n "$2" ".targets[] | select(.name == \$n) | $3" "$1"
}

# One of each kind, syn's to a listener, http's to a web server (and an IPv6 icmp target: the
# table's sockets IPv6,
# the IPv4 targets' mapped), 3 s: rant's and icmp's every 10 ms, stamp's
# every 20 ms (interval=): each received what it sent (less its warm-up), none
# lost; its name in the text's table, the JSON (with its kind), and the
# metrics' name and kind labels; the icmp target's echo requests leave
# with dscp=46 (EF: every one a capture sees).
kinds_one_each() {
	local n sent out tos tcpd
	setup_pair || skip_test "cannot create namespaces and veth"
	kinds_reflectors
	kinds_listener
	kinds_http_servers 8082:good
	printf '%s name=refl\nstamp %s name=stamp1 interval=20ms\nicmp %s name=dest1 dscp=46  # any host\nicmp %s name=dest6\nsyn %s 8080 name=web\nhttp http://%s:8082/ name=api\n' \
		"$IP_B" "$IP_B" "$IP_B" "$IP6_B" "$IP_B" "$IP_B" >"$WORK/targets"
	ip netns exec "$NS_B" tcpdump -i "$VETH_B" -nn -w "$WORK/icmp.pcap" -U \
		'icmp[icmptype] == icmp-echo' >"$WORK/tcpdump.txt" 2>&1 &
	tcpd=$!
	defer kill -9 "$tcpd"
	wait_for_line "$WORK/tcpdump.txt" 'listening on' 10
	emit --targets "$WORK/targets" -d 3 --interval 10000 --block -j "$WORK/e1.json" \
		--metrics "$WORK/e1.prom" >"$WORK/e1.txt" 2>&1
	check_err $? "the fleet's emitter failed: $(tail -3 "$WORK/e1.txt")"
	grep '^kinds:' "$WORK/e1.txt"
	grep -q '^kinds: 1 rant .*, 1 stamp .*, 2 icmp (ICMP echo.*, 1 syn (TCP.*, 1 http (HTTP' "$WORK/e1.txt"
	check_err $? "the start-up lines name the kinds: $(grep '^kinds' "$WORK/e1.txt")"
	for n in refl:rant stamp1:stamp dest1:icmp dest6:icmp web:syn api:http; do
		named "$WORK/e1.json" "${n%:*}" '"\(.kind) \(.peer) \(.counts.sent) \(.counts.received) \(.counts.lost)"'
		[ "$(named "$WORK/e1.json" "${n%:*}" .kind)" = "${n#*:}" ]
		check_err $? "${n%:*}: kind $(named "$WORK/e1.json" "${n%:*}" .kind), ${n#*:} expected"
		named "$WORK/e1.json" "${n%:*}" '.counts | .sent >= 50 and .received == .sent and .lost == 0' |
			grep -qx true
		check_err $? "${n%:*}: $(named "$WORK/e1.json" "${n%:*}" '.counts | tojson')"
		grep -Eq "^${n%:*} +[0-9]+ +[0-9]+ +0 " "$WORK/e1.txt"
		check_err $? "${n%:*}: no row of its own in the text's table"
		grep -q "^rant_packets_sent_total{.*,name=\"${n%:*}\",kind=\"${n#*:}\"}" "$WORK/e1.prom"
		check_err $? "${n%:*}: no series with its name and kind labels"
	done
	# stamp1 at 20 ms sends half of what the others at 10 ms do
	sent=$(jq '[.targets[] | select(.name == "stamp1" or .name == "refl") | .counts.sent] | "\(.[0]) \(.[1])"' -r "$WORK/e1.json")
	echo "sent (stamp1 refl, in the JSON's order): $sent"
	named "$WORK/e1.json" stamp1 .interval_ns | grep -qx 20000000 &&
		jq -e '([.targets[] | select(.name == "stamp1")][0].counts.sent * 2) as $s |
			[.targets[] | select(.name == "refl")][0].counts.sent as $r |
			$s > $r * 0.8 and $s < $r * 1.2' "$WORK/e1.json" >/dev/null
	check_err $? "interval=20ms: stamp1 and refl sent $sent, 1:2 expected"
	out=$(promtool check metrics <"$WORK/e1.prom" 2>&1)
	check_err $? "promtool check metrics: $out"
	kill -INT "$tcpd"
	wait "$tcpd"
	tos=$(tcpdump -nn -v -r "$WORK/icmp.pcap" 2>/dev/null | grep -o 'tos 0x[0-9a-f]*' |
		sort | uniq -c | awk '{ printf "%s%s:%s", (NR > 1 ? " " : ""), $3, $1 }')
	echo "echo requests by TOS: $tos; dest1 sent $(named "$WORK/e1.json" dest1 '.counts.sent + .counts.warmup')"
	# the capture may start a ping or two late: every one it saw is EF
	[[ $tos =~ ^0xb8:([0-9]+)$ ]] &&
		[ $((BASH_REMATCH[1] * 10)) -ge $((9 * $(named "$WORK/e1.json" dest1 .counts.sent))) ]
	check_err $? "dscp=46: the echo requests by TOS: $tos"
	log_test "kinds: rant, stamp, icmp, syn and http targets in one run, each by its name"
}

# A file of bad lines: exit 1, nothing measured, each line's problem and
# fix with its number.
kinds_bad_lines() {
	setup_pair || skip_test "cannot create namespaces and veth"
	printf '%s\nping %s\nsyn %s\nicmp %s name=a/b\nicmp %s 80\nhttp https://%s/\n%s 4001 name=x\nstamp %s name=x\nstamp %s 12345\n' \
		"$IP_B" "$IP_B" "$IP_B" "$IP_B" "$IP_B" "$IP_B" "$IP_B" "$IP_B" "$IP_B" >"$WORK/targets"
	printf 'http http://%s:99999/\nhttp %s\nhttp http://%s/ 80\nhttp http://%s/a\nhttp http://%s/b\nhttp://%s/\n' \
		"$IP_B" "$IP_B" "$IP_B" "$IP_B" "$IP_B" "$IP_B" >>"$WORK/targets"
	targets_refused
	grep -q "targets:2: 'ping' is no kind of target: a line begins with stamp, icmp, syn or http" "$WORK/e1.txt" &&
		grep -q "targets:3: syn without a port: give the service's, syn ADDR PORT" "$WORK/e1.txt" &&
		grep -q "targets:4: name=a/b: give name=NAME, 1 to 63 letters" "$WORK/e1.txt" &&
		grep -q "targets:5: '80': icmp takes no port" "$WORK/e1.txt" &&
		grep -q "targets:6: 'https://$IP_B/': rant sends plain HTTP/1.1, without TLS" "$WORK/e1.txt" &&
		grep -q "targets:10: 'http://$IP_B:99999/': the URL's port is not one of 1 to 65535" "$WORK/e1.txt" &&
		grep -q "targets:11: '$IP_B' is not a URL: a line is http http://ADDR" "$WORK/e1.txt" &&
		grep -q "targets:12: '80': an http line's port is the URL's" "$WORK/e1.txt" &&
		grep -q "targets:14: http $IP_B:80 is line 13's target again: give each once (one URL a server ADDR:PORT)" "$WORK/e1.txt" &&
		grep -q "targets:15: 'http://$IP_B/': a URL's line begins with its kind" "$WORK/e1.txt" &&
		grep -q "targets:8: name=x is line 7's name too: give each target a name of its own" "$WORK/e1.txt" &&
		grep -q "targets:9: stamp $IP_B:12345 is line 1's target again" "$WORK/e1.txt"
	check_err $? "each bad line with its number and fix"
	! grep -q '^measuring' "$WORK/e1.txt"
	check_err $? "it measured"
	log_test "kinds: bad lines refused, each with its number and fix"
}

# syn targets beside a rant one: a listening port (IPv4 and IPv6) has
# every handshake timed, none lost; a closed port answers each SYN with
# an RST, each counted refused, none received nor lost; the kernel's RSTs leave the
# listener with no half-open connection (ss lists none in SYN-RECV).
kinds_syn() {
	local half
	setup_pair || skip_test "cannot create namespaces and veth"
	kinds_reflectors
	kinds_listener
	printf '%s name=refl\nsyn %s 8080 name=web\nsyn %s 8080 name=web6\nsyn %s 8081 name=closed\n' \
		"$IP_B" "$IP_B" "$IP6_B" "$IP_B" >"$WORK/targets"
	emit --targets "$WORK/targets" -d 3 --interval 10000 --block -j "$WORK/e1.json" \
		--metrics "$WORK/e1.prom" >"$WORK/e1.txt" 2>&1
	check_err $? "the fleet's emitter failed: $(tail -3 "$WORK/e1.txt")"
	grep '^kinds:' "$WORK/e1.txt"
	for n in web web6 closed; do
		named "$WORK/e1.json" "$n" '"\(.kind) \(.peer) \(.counts | tojson) p50 \(.metrics.rtt.percentiles["50"])"'
	done
	for n in web web6; do
		named "$WORK/e1.json" "$n" '.kind == "syn" and .counts.sent >= 200 and
			.counts.received == .counts.sent and .counts.lost == 0 and
			.metrics.rtt.percentiles["50"] > 0' | grep -qx true
		check_err $? "$n: $(named "$WORK/e1.json" "$n" '.counts | tojson')"
		grep -q "^rant_packets_sent_total{.*,name=\"$n\",kind=\"syn\"}" "$WORK/e1.prom"
		check_err $? "$n: no series with its name and kind labels"
	done
	named "$WORK/e1.json" closed '.counts.received == 0 and .counts.lost == 0 and
		.counts.refused == .counts.sent and .counts.sent >= 200' | grep -qx true
	check_err $? "closed: $(named "$WORK/e1.json" closed '.counts | tojson')"
	half=$(ip netns exec "$NS_B" ss -Htn state syn-recv | wc -l)
	[ "$half" = 0 ]
	check_err $? "$half half-open connections left at the listener"
	log_test "kinds: syn targets timed beside rant's, a closed port counted refused"
}

# kinds_http_servers PORT:MODE...: tests/net/http_odd.py in NS_B on each
# PORT (every address, IPv4 and IPv6), answering as MODE says.
kinds_http_servers() {
	local pm
	for pm in "$@"; do
		ns_bg "$NS_B" "$PYTHON" "$TOP/tests/net/http_odd.py" "${pm%%:*}" "${pm#*:}" \
			>"$WORK/http-${pm%%:*}.txt" 2>&1
	done
	for pm in "$@"; do
		wait_for_line "$WORK/http-${pm%%:*}.txt" '^listening' 10 ||
			check_err 1 "http_odd.py ${pm#*:} did not listen on ${pm%%:*}"
	done
}

# syn_count PCAP FILTER: the SYNs (without ACK) of PCAP that FILTER takes
# (by tcpdump's flags: its tcp[] offsets are IPv4's alone).
syn_count() {
	tcpdump -nn -r "$1" "$2" 2>/dev/null | grep -c 'Flags \[S\],'
}

# http targets of every kind of server, 3 s at 20 ms, --timeout 200 ms:
# a kept-alive server (IPv4, with dscp=46, and IPv6) has every request
# answered on one connection; a server that closes after each response
# is answered on a new connection each time; a 20 ms server reads 20 ms
# more than the quick one; chunked bodies are framed; a server silent to
# every 10th request has those lost, the requests due while one is out
# counted as missed slots, a new connection after each loss; garbage is
# invalid; a closed port's requests are refused, none lost.
kinds_http() {
	local tcpd quick slow n
	setup_pair || skip_test "cannot create namespaces and veth"
	kinds_http_servers 8082:good 8083:close 8084:silent:10 8085:slow 8086:chunked \
		8087:garbage:5 8089:status404
	printf 'http http://%s:8082/ name=quick dscp=46\nhttp http://[%s]:8082/index.html?a=1 name=quick6\nhttp http://%s:8083/ name=close\nhttp http://%s:8084/ name=silent\nhttp http://%s:8085/ name=slow\nhttp http://%s:8086/ name=chunked\nhttp http://%s:8087/ name=garbage\nhttp http://%s:8088/ name=closed\nhttp http://%s:8089/nothing name=nf\n' \
		"$IP_B" "$IP6_B" "$IP_B" "$IP_B" "$IP_B" "$IP_B" "$IP_B" "$IP_B" "$IP_B" >"$WORK/targets"
	ip netns exec "$NS_B" tcpdump -i "$VETH_B" -nn -v -w "$WORK/http.pcap" -U --immediate-mode \
		'tcp dst portrange 8082-8089' >"$WORK/tcpdump.txt" 2>&1 &
	tcpd=$!
	defer kill -9 "$tcpd"
	wait_for_line "$WORK/tcpdump.txt" 'listening on' 10
	# the IPv6 neighbour resolved first (its link-local address still
	# tentative, NS_A's solicitations wait a second): else quick6's first
	# SYNs wait past --timeout, and each lost request makes a connection
	ip netns exec "$NS_A" ping -6 -c 1 -w 5 "$IP6_B" >/dev/null
	emit --targets "$WORK/targets" -d 3 --interval 20000 --timeout 200000 --block \
		-j "$WORK/e1.json" --metrics "$WORK/e1.prom" >"$WORK/e1.txt" 2>&1
	check_err $? "the fleet's emitter failed: $(tail -3 "$WORK/e1.txt")"
	sleep 0.5
	kill -INT "$tcpd"
	wait "$tcpd"
	grep '^kinds:' "$WORK/e1.txt"
	grep -q '^kinds: 9 http (HTTP/1.1 requests, a kept-alive connection each)' "$WORK/e1.txt"
	check_err $? "the start-up line names the kind: $(grep '^kinds' "$WORK/e1.txt")"
	for n in quick quick6 close silent slow chunked garbage closed nf; do
		named "$WORK/e1.json" "$n" '"\(.kind) \(.peer) \(.counts | tojson) p50 \(.metrics.rtt.percentiles["50"])"'
	done
	echo "SYNs: quick $(syn_count "$WORK/http.pcap" 'ip and dst port 8082'), quick6 $(syn_count "$WORK/http.pcap" 'ip6 and dst port 8082'), close $(syn_count "$WORK/http.pcap" 'dst port 8083'), silent $(syn_count "$WORK/http.pcap" 'dst port 8084')"
	# (an IPv6 neighbour new to the namespace may take a second of warm-up)
	for n in quick quick6 close slow chunked nf; do
		named "$WORK/e1.json" "$n" '.kind == "http" and .counts.sent >= 40 and
			.counts.received == .counts.sent and .counts.lost == 0 and
			.counts.missing_tx_ts == 0 and .counts.missing_rx_ts == 0' | grep -qx true
		check_err $? "$n: $(named "$WORK/e1.json" "$n" '.counts | tojson')"
		grep -Eq "^$n +[0-9]+ +[0-9]+ +0 " "$WORK/e1.txt"
		check_err $? "$n: no row of its own in the text's table"
		grep -q "^rant_packets_sent_total{.*,name=\"$n\",kind=\"http\"}" "$WORK/e1.prom"
		check_err $? "$n: no series with its name and kind labels"
	done
	# kept alive: one connection for the run; closed each time: one a
	# request; silent: the first, and one after each loss but the last
	# (the run may end before the next request)
	[ "$(syn_count "$WORK/http.pcap" 'ip and dst port 8082')" = 1 ] &&
		[ "$(syn_count "$WORK/http.pcap" 'ip6 and dst port 8082')" = 1 ]
	check_err $? "a kept-alive server's target made more than one connection"
	n=$(named "$WORK/e1.json" close '.counts.sent + .counts.warmup')
	[ "$(syn_count "$WORK/http.pcap" 'dst port 8083')" -ge "$n" ]
	check_err $? "close: $(syn_count "$WORK/http.pcap" 'dst port 8083') connections for $n requests"
	# dscp=46 on the kept-alive target's every segment, its SYN's too
	n=$(tcpdump -nn -v -r "$WORK/http.pcap" 'ip and dst port 8082' 2>/dev/null |
		grep -o 'tos 0x[0-9a-f]*' | sort | uniq -c | awk '{ printf "%s:%s ", $3, $1 }')
	[[ $n =~ ^0xb8:[0-9]+\ $ ]]
	check_err $? "dscp=46: quick's segments by TOS: $n"
	# a 20 ms server reads 20 ms more: the server's time is in the request's
	quick=$(named "$WORK/e1.json" quick '.metrics.rtt.percentiles["50"]')
	slow=$(named "$WORK/e1.json" slow '.metrics.rtt.percentiles["50"]')
	awk -v q="$quick" -v s="$slow" 'BEGIN { d = s - q; exit !(d > 19e6 && d < 30e6) }'
	check_err $? "slow's p50 $slow ns against quick's $quick ns: 20 ms more expected"
	named "$WORK/e1.json" silent '.counts.lost >= 3 and .counts.received >= 30 and
		.counts.missed_slots >= 10' | grep -qx true
	check_err $? "silent: $(named "$WORK/e1.json" silent '.counts | tojson')"
	n=$(named "$WORK/e1.json" silent .counts.lost)
	[ "$(syn_count "$WORK/http.pcap" 'dst port 8084')" -ge "$n" ]
	check_err $? "silent: $(syn_count "$WORK/http.pcap" 'dst port 8084') connections for $n losses: a new one after each"
	named "$WORK/e1.json" garbage '.counts.lost >= 3 and .counts.received >= 30' | grep -qx true &&
		jq -e '.counts.invalid >= 3' "$WORK/e1.json" >/dev/null
	check_err $? "garbage: $(named "$WORK/e1.json" garbage '.counts | tojson'), invalid $(jq .counts.invalid "$WORK/e1.json")"
	named "$WORK/e1.json" closed '.counts.received == 0 and .counts.lost == 0 and
		.counts.refused == .counts.sent and .counts.sent >= 100' | grep -qx true
	check_err $? "closed: $(named "$WORK/e1.json" closed '.counts | tojson')"
	n=$(promtool check metrics <"$WORK/e1.prom" 2>&1)
	check_err $? "promtool check metrics: $n"
	log_test "kinds: http targets kept alive, closed, silent, slow, garbage and refused"
}

# kinds_icmp_router: setup_router's NS_R as the icmp targets' router:
# 10.79.1.0/24 and fd79::/64 unreachable routes (its ip_error answers a
# burst of 5, then one a second: the targets there ping once a second),
# 10.79.2.0/24 a loop with NS_B, whose 64th hop answers time exceeded
# (each namespace's ICMP rate limit off, no redirects, no rp_filter).
kinds_icmp_router() {
	local ns dev
	ip netns exec "$NS_A" sysctl -qw net.ipv4.ping_group_range="0 2147483647"
	ip -n "$NS_A" addr add fd78:1::1/64 dev "$VETH_A" nodad
	ip -n "$NS_R" addr add fd78:1::fe/64 dev "$VETH_RA" nodad
	ip -n "$NS_A" route add fd79::/64 via fd78:1::fe
	ip -n "$NS_R" route add unreachable 10.79.1.0/24
	ip -n "$NS_R" -6 route add unreachable fd79::/64
	ip -n "$NS_R" route add 10.79.2.0/24 via "$IP_B"
	ip -n "$NS_B" route add 10.79.2.0/24 via 10.78.2.254
	for ns in "$NS_R $VETH_RB" "$NS_B $VETH_B"; do
		dev=${ns#* }
		ip netns exec "${ns% *}" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.icmp_ratelimit=0 \
			net.ipv6.icmp.ratelimit=0 net.ipv6.conf.all.forwarding=1 \
			net.ipv4.conf.all.send_redirects=0 "net.ipv4.conf.$dev.send_redirects=0" \
			net.ipv4.conf.all.rp_filter=0 "net.ipv4.conf.$dev.rp_filter=0"
	done
}

# icmp targets that only errors answer, beside one that answers, 3 s:
# gone (IPv4) and gone6 (IPv6) behind unreachable routes once a second,
# loop behind a routing loop every 20 ms, up (NS_B) every 1 ms; and a
# syn target behind the unreachable route (its SYNs' errors on the raw
# socket's error queue). Each erroring target's requests are all its
# errors (unreachable or time_exceeded), none lost, none received; up's are all received, none
# lost, every TX stamp matched, none refused by the kernel (an error
# leaves its errno for the next call on the shared ping socket: at 1 ms
# a send comes before the read in about one error of two). The
# text's row names the errors, the summary's line sums them, the JSON
# and the metrics (rant_icmp_errors_total with the target's labels) say
# the same.
kinds_icmp_errors() {
	local n kind want out
	setup_router || skip_test "cannot create namespaces and veth"
	kinds_icmp_router
	printf 'icmp %s name=up interval=1ms\nicmp 10.79.1.5 name=gone interval=1s\nicmp fd79::5 name=gone6 interval=1s\nicmp 10.79.2.5 name=loop interval=20ms\nsyn 10.79.1.6 80 name=gonesyn interval=1s\n' \
		"$IP_B" >"$WORK/targets"
	emit --targets "$WORK/targets" -d 3 -w 0 --warmup-timeout 0.1 --interval 1000 --block \
		-j "$WORK/e1.json" --metrics "$WORK/e1.prom" >"$WORK/e1.txt" 2>&1
	check_err $? "the fleet's emitter failed: $(tail -3 "$WORK/e1.txt")"
	sed -n '/^targets:/,$p' "$WORK/e1.txt"
	grep '^icmp: errors back' "$WORK/e1.txt"
	for n in up gone gone6 loop gonesyn; do
		named "$WORK/e1.json" "$n" '"\(.name) \(.counts | tojson)"'
		named "$WORK/e1.json" "$n" '.counts | .sent == .received + .lost + .unreachable +
			.time_exceeded + .other_error' | grep -qx true
		check_err $? "$n: sent is not received + lost + errors"
	done
	named "$WORK/e1.json" up '.counts | .sent >= 2500 and .received == .sent and .lost == 0 and
		.send_errors == 0 and .missing_tx_ts == 0' | grep -qx true &&
		named "$WORK/e1.json" up '.metrics.rtt.samples == .counts.sent' | grep -qx true
	check_err $? "up, beside the errors: $(named "$WORK/e1.json" up '.counts | tojson')"
	for n in gone:unreachable:2 gone6:unreachable:2 loop:time_exceeded:100 \
		gonesyn:unreachable:2; do
		kind=${n#*:}
		want=${kind#*:}
		kind=${kind%:*}
		n=${n%%:*}
		named "$WORK/e1.json" "$n" ".counts | .sent >= $want and .$kind == .sent and
			.lost == 0 and .received == 0" | grep -qx true
		check_err $? "$n: not every request $kind: $(named "$WORK/e1.json" "$n" '.counts | tojson')"
		grep -Eq "^$n +[0-9]+ +0 +0 +[0-9]+ +0.00 .*<-- ICMP errors: $kind [0-9]+$" "$WORK/e1.txt"
		check_err $? "$n: no row naming its errors in the text"
		grep -Eq "^rant_icmp_errors_total\{error=\"$kind\",.*,name=\"$n\",kind=\"(icmp|syn)\"\} $(named "$WORK/e1.json" "$n" .counts.sent)$" \
			"$WORK/e1.prom"
		check_err $? "$n: no rant_icmp_errors_total{error=\"$kind\"} of its count"
	done
	jq -e '[.targets[].counts.unreachable] | add' "$WORK/e1.json" |
		grep -qx "$(jqv "$WORK/e1.json" .counts.unreachable)" &&
		[ "$(jqv "$WORK/e1.json" .counts.lost)" = 0 ] &&
		grep -Eq "^icmp: errors back unreachable $(jqv "$WORK/e1.json" .counts.unreachable), time_exceeded $(jqv "$WORK/e1.json" .counts.time_exceeded), other_error 0, after --timeout 0$" \
			"$WORK/e1.txt"
	check_err $? "the fleet's totals: $(jq -c '.counts | {lost, unreachable, time_exceeded, other_error, late_errors}' "$WORK/e1.json")"
	out=$(promtool check metrics <"$WORK/e1.prom" 2>&1)
	check_err $? "promtool check metrics: $out"
	log_test "kinds: icmp targets behind unreachable routes and a loop: errors by kind, none lost"
}

# SIGHUP with kinds: an icmp target removed (its numbers said by its
# name), a stamp one added and measured, a syn one refused (the run began
# without syn targets: restart rant), the rant one kept.
kinds_reload() {
	setup_pair || skip_test "cannot create namespaces and veth"
	kinds_reflectors
	printf '%s name=refl\nicmp %s name=dest1\n' "$IP_B" "$IP_B" >"$WORK/targets"
	emit_bg e1 --targets "$WORK/targets" -d 5 --interval 10000 --block -j "$WORK/e1.json"
	wait_for_line "$WORK/e1.txt" '^measuring: [0-9]+ targets' "$MEASURE_WAIT_S"
	check_err $? "the fleet did not start measuring: $(tail -3 "$WORK/e1.txt")"
	sleep 1
	printf '%s name=refl\nstamp %s name=s1\nsyn %s 8080 name=web\n' "$IP_B" "$IP_B" "$IP_B" \
		>"$WORK/targets.new"
	mv "$WORK/targets.new" "$WORK/targets"
	kill -HUP "$EM"
	wait_for_line "$WORK/e1.txt" 'read again: 1 added, 1 removed' 5
	check_err $? "no reload after SIGHUP: $(tail -3 "$WORK/e1.txt")"
	grep -q '^rant: dest1 removed: [0-9]* sent, 0 lost' "$WORK/e1.txt" &&
		grep -q "targets:3: web not added: syn $IP_B:8080: the fleet began without IPv4 syn targets .*restart rant to add it" "$WORK/e1.txt"
	check_err $? "what the reload said: $(grep '^rant:' "$WORK/e1.txt")"
	wait "$EM"
	check_err $? "the fleet's emitter failed: $(tail -3 "$WORK/e1.txt")"
	jq -c '[.targets[] | {name, kind, sent: .counts.sent, lost: .counts.lost}]' "$WORK/e1.json"
	jq -e '[.targets[] | .name] | sort == ["refl", "s1"]' "$WORK/e1.json" >/dev/null &&
		[ "$(named "$WORK/e1.json" s1 '.kind == "stamp" and .counts.sent >= 150 and .counts.lost == 0')" = true ] &&
		[ "$(named "$WORK/e1.json" refl '.counts.sent >= 350 and .counts.lost == 0')" = true ]
	check_err $? "the targets at the end"
	log_test "kinds: SIGHUP removes an icmp target, adds a stamp one, refuses a new kind"
}

# SIGHUP with http targets: the one removed has its connection closed
# (ss lists none to its port while the run goes on), the one added is
# measured on a connection of its own, the one kept keeps its connection.
kinds_http_reload() {
	local left
	setup_pair || skip_test "cannot create namespaces and veth"
	kinds_http_servers 8082:good 8083:good 8084:good
	printf 'http http://%s:8082/ name=kept\nhttp http://%s:8083/ name=gone\n' "$IP_B" "$IP_B" \
		>"$WORK/targets"
	emit_bg e1 --targets "$WORK/targets" -d 4 --interval 10000 --block -j "$WORK/e1.json"
	wait_for_line "$WORK/e1.txt" '^measuring: [0-9]+ targets' "$MEASURE_WAIT_S"
	check_err $? "the fleet did not start measuring: $(tail -3 "$WORK/e1.txt")"
	sleep 1
	printf 'http http://%s:8082/ name=kept\nhttp http://%s:8084/ name=new\n' "$IP_B" "$IP_B" \
		>"$WORK/targets.new"
	mv "$WORK/targets.new" "$WORK/targets"
	kill -HUP "$EM"
	wait_for_line "$WORK/e1.txt" 'read again: 1 added, 1 removed' 5
	check_err $? "no reload after SIGHUP: $(tail -3 "$WORK/e1.txt")"
	sleep 0.5
	left=$(ip netns exec "$NS_A" ss -Htn state established "( dport = :8083 )" | wc -l)
	[ "$left" = 0 ]
	check_err $? "$left connections left to the removed target's port"
	wait "$EM"
	check_err $? "the fleet's emitter failed: $(tail -3 "$WORK/e1.txt")"
	jq -c '[.targets[] | {name, sent: .counts.sent, received: .counts.received, lost: .counts.lost}]' "$WORK/e1.json"
	jq -e '[.targets[] | .name] | sort == ["kept", "new"]' "$WORK/e1.json" >/dev/null &&
		[ "$(named "$WORK/e1.json" kept '.counts.sent >= 300 and .counts.received == .counts.sent')" = true ] &&
		[ "$(named "$WORK/e1.json" new '.counts.sent >= 150 and .counts.received == .counts.sent')" = true ]
	check_err $? "the targets at the end"
	log_test "kinds: SIGHUP removes an http target (its connection closed) and adds one"
}

# kinds_fleet FILE NAME: the fleet of FILE for 10 s at 10/s under
# /usr/bin/time (peak RSS in $WORK/NAME.time), JSON in $WORK/NAME.json.
kinds_fleet() {
	ip netns exec "$NS_A" taskset -c 0 /usr/bin/time -v -o "$WORK/$2.time" \
		"$RANT" -i "$VETH_A" --targets "$1" -d 10 --block --timeout 1000000 \
		-j "$WORK/$2.json" >"$WORK/$2.txt" 2>&1
	check_err $? "the fleet's emitter ($2) failed: $(tail -3 "$WORK/$2.txt")"
}

rss_of() { awk -F': ' '/Maximum resident/ { print $2 }' "$WORK/$1.time"; }

# 1,000 addresses on the reflectors' side: 1,000 rant targets, then
# 1,000 of the five kinds in turn (rant, stamp, icmp, syn, http: nginx),
# each at 10 a second for 10 s: the
# mixed run loses none, every target measured, and its peak RSS is at
# most twice the rant run's.
kinds_scale() {
	local n=1000 a i plain mixed lost low kinds
	setup_pair || skip_test "cannot create namespaces and veth"
	for ((i = 0; i < n; i++)); do
		a="10.99.$((i / 250)).$((i % 250 + 1))"
		echo "addr add $a/32 dev $VETH_B"
		echo "$a" >>"$WORK/plain"
		case $((i % 5)) in
		0) echo "$a name=r$i" ;;
		1) echo "stamp $a name=s$i" ;;
		2) echo "icmp $a name=i$i" ;;
		3) echo "syn $a 8080 name=t$i" ;;
		4) echo "http http://$a:8091/ name=h$i" ;;
		esac >>"$WORK/mixed"
	done | ip -n "$NS_B" -batch -
	ip -n "$NS_A" route add 10.99.0.0/16 via "$IP_B"
	kinds_reflectors --max-sessions 4096 --max-sessions-per-address 4096
	kinds_listener
	nginx_start 8090 8091 || return
	kinds_fleet "$WORK/plain" plain
	kinds_fleet "$WORK/mixed" mixed
	plain=$(rss_of plain)
	mixed=$(rss_of mixed)
	lost=$(jqv "$WORK/mixed.json" .counts.lost)
	low=$(jq '[.targets[] | select(.counts.sent < 80)] | length' "$WORK/mixed.json")
	kinds=$(jq -c '[.targets[].kind] | group_by(.) | map({(.[0]): length}) | add' "$WORK/mixed.json")
	echo "mixed: $(jqv "$WORK/mixed.json" .counts.sent) sent, $lost lost, $low targets under 80 pings, kinds $kinds; peak RSS mixed $mixed KiB, plain $plain KiB"
	[ "$(jq '.targets | length' "$WORK/mixed.json")" = "$n" ] && [ "$low" = 0 ] &&
		[ "$kinds" = '{"http":200,"icmp":200,"rant":200,"stamp":200,"syn":200}' ]
	check_err $? "every target of the five kinds measured: $low under 80 pings, $kinds"
	[ "$lost" = 0 ] && [ "$(jqv "$WORK/mixed.json" .counts.socket_drops)" = 0 ]
	check_err $? "the mixed fleet lost $lost"
	[ "${mixed:-999999999}" -le $((2 * ${plain:-0})) ]
	check_err $? "peak RSS $mixed KiB mixed, more than twice $plain KiB plain"
	log_test "kinds: 1,000 mixed targets at 10/s: $lost lost, RSS $((mixed * 100 / plain))% of rant's"
}

tests_run
