#!/usr/bin/env bash
# --read and --watch against servers no one here wrote: Debian's nginx in
# the reflector's namespace, tcp_nodelay off on one port and on on the
# other (sendfile on, tcp_nopush off, a 600-byte page), wrk in the other
# namespace, tcpdump capturing.
#   watch_nginx      rant --read of tcpdump's capture names nagle_delayed_ack
#                    for every flow to the off port that carried requests
#                    (held most of its exchanges) and for none to the on
#                    port (not in 5% of a flow's exchanges: one stall of
#                    that shape can happen there under load, and is
#                    said); wrk's 20 connections a
#                    port (and its one connection check, no request); the
#                    off port's exchange p50 within 0.7-1.3 of wrk's p50;
#                    the same with microsecond stamps (editcap), as pcapng
#                    (editcap), from stdin, and from another run's capture
#                    as tcpdump -i any writes it (SLL2, microsecond
#                    stamps); --watch live on the first run's traffic gives
#                    the same verdicts, reports pcap's drops and serves
#                    metrics per server port (promtool-clean, no label
#                    per flow); rant-plot draws the worst flow's timeline
#                    and each port's distribution from the JSON
#   watch_rant_tcp   a capture of rant's own --tcp --writes 2 pair without
#                    --nodelay names the client's Nagle (client_nagle), not
#                    the server's; --watch -d ends by itself
#   watch_bad_input  a file cut short, a text file, an empty one, a link
#                    type rant does not read, snaplen 64, one direction
#                    only, a capture without TCP, options for another
#                    mode: one line or a counted skip, never a guess or a
#                    crash
#   watch_pipes      --read of a capture that can be read only once: <(cat f),
#                    a FIFO (three runs), /dev/stdin, "-", and the same as
#                    pcapng: every packet tcpdump -r reads, the format
#                    named (the file is opened once, its kind read from the
#                    stream)
#   watch_hostile    hand-built captures (tests/net/hostilecap.py) read as
#                    tshark reads them: TCP flows behind 9 VLAN tags, 10
#                    IPv6 extension headers, IPIP, 6in4, GRE (key, sequence,
#                    routing, Ethernet inside), VXLAN: the same flows and TCP
#                    packets; an IP total length of 65535 in short frames cut
#                    to the frame and counted, no retransmission invented; a
#                    pcapng if_tsoffset of 2^62 s: each packet counted, not
#                    read; two link types in one pcapng: named, with the fix
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="watch_nginx watch_rant_tcp watch_bad_input watch_pipes watch_hostile"

require_root
require_cmd jq ss tcpdump nginx wrk editcap curl "$PYTHON"
require_rant

# shellcheck source=nginx.sh
. "$(dirname "$0")/nginx.sh"

pair() {
	setup_pair || skip_test "cannot create namespaces and veth"
}

# wrk_p50_ns NAME: the 50% line of wrk --latency, in ns.
wrk_p50_ns() {
	awk '$1 == "50%" { v = $2; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v);
		m = u == "us" ? 1e3 : u == "ms" ? 1e6 : u == "s" ? 1e9 : 1; printf "%.0f", v * m }' \
		"$WORK/$1.txt"
}

# verdict JSON PORT: "FLOWS BUSY ANY MOST SOME": the port's flows, those with
# an exchange, and of those the ones whose diagnosis names
# nagle_delayed_ack at all, for at least half of their exchanges, and for
# at least 5% of them (the analysis' TCPANA_NAME_SHARE).
verdict() {
	jq -r --arg p ":$2" '[.flows[] | select(.server | endswith($p))] as $f |
		[$f[] | select(.exchanges > 0)] as $b |
		[$b[] | [.diagnosis[] | select(.kind == "nagle_delayed_ack") | .share] | max // -1] as $s |
		"\($f | length) \($b | length) \([$s[] | select(. >= 0)] | length) \([$s[] | select(. >= 0.5)] | length) \([$s[] | select(. >= 0.05)] | length)"' "$1"
}

# check_verdicts JSON WHAT: every busy flow to the off port held by Nagle in
# most of its exchanges; no flow to the on port in 5% of its exchanges or
# more (a single stall of the same shape, the tail after a late delayed
# ACK, does happen there on a loaded machine: said, not failed); CONNS busy
# flows a port, and wrk's check connection.
check_verdicts() {
	local j=$1 what=$2 off on
	read -r -a off <<<"$(verdict "$j" "$PORT_OFF")"
	read -r -a on <<<"$(verdict "$j" "$PORT_ON")"
	[ "${off[1]}" = "$CONNS" ] && [ "${on[1]}" = "$CONNS" ]
	check_err $? "$what: flows with requests: ${off[1]} to $PORT_OFF, ${on[1]} to $PORT_ON; wrk had $CONNS each"
	[ "${off[0]}" = $((CONNS + 1)) ] && [ "${on[0]}" = $((CONNS + 1)) ]
	check_err $? "$what: flows ${off[0]} to $PORT_OFF, ${on[0]} to $PORT_ON: want $CONNS and wrk's connection check, each"
	[ "${off[3]}" = "${off[1]}" ]
	check_err $? "$what: nagle_delayed_ack held most exchanges of ${off[3]} of ${off[1]} flows to the tcp_nodelay off port"
	[ "${on[4]}" = 0 ]
	check_err $? "$what: nagle_delayed_ack held 5% or more of the exchanges of ${on[4]} flows to the tcp_nodelay on port"
	echo "off: ${off[3]} of ${off[1]} busy flows held by Nagle; on: ${on[4]} (${on[2]} named for a single stall)"
}

# read_check FILE WHAT LINK: rant --read FILE, its verdicts, its link type.
read_check() {
	local rc link
	"$RANT" --read "$1" -j "$1.json" >"$1.out" 2>&1
	rc=$?
	check_err $rc "rant --read $2 exit $rc: $(tail -3 "$1.out")"
	[ $rc = 0 ] || return 1
	link=$(jqv "$1.json" .source.link_type)
	[ "$link" = "$3" ]; check_err $? "$2: link type $link, want $3"
	check_verdicts "$1.json" "$2" >/dev/null
}

watch_nginx() {
	local rc rant_p50 wrk_p50 scrape v live
	pair
	nginx_start || return
	# the traffic once for tcpdump (nanosecond stamps) and rant --watch ...
	cap_start nano.pcap -i "$VETH_B" -s 256 --time-stamp-precision nano tcp
	ip netns exec "$NS_B" "$RANT" -i "$VETH_B" --watch --filter tcp -j "$WORK/live.json" \
		--metrics "$WORK/live.prom" --metrics-listen 127.0.0.1:19466 -I 1 \
		>"$WORK/live.txt" 2>&1 &
	live=$!
	defer kill -9 "$live"
	wait_for_line "$WORK/live.txt" "^watching $VETH_B: link EN10MB" 10
	check_err $? "rant --watch did not start: $(tail -3 "$WORK/live.txt")"
	traffic 1
	scrape=$(ip netns exec "$NS_B" curl -s http://127.0.0.1:19466/metrics)
	cap_stop
	kill -INT "$live"
	wait "$live"
	rc=$?
	check_err $rc "rant --watch exit $rc: $(tail -3 "$WORK/live.txt")"
	# ... and once for tcpdump -i any (SLL2, microsecond stamps)
	cap_start sll2.pcap -i any -s 256 tcp
	traffic 2
	cap_stop
	log_test "nginx and wrk captured by tcpdump (dropped: $(drops nano.pcap), $(drops sll2.pcap)) and rant --watch"

	read_check "$WORK/nano.pcap" "tcpdump, nanosecond stamps" EN10MB
	v=$(check_verdicts "$WORK/nano.pcap.json" nano)
	rant_p50=$(jq -r --arg p "$PORT_OFF" '.ports[] | select(.port == ($p | tonumber)) | .metrics.exchange.percentiles."50"' "$WORK/nano.pcap.json")
	wrk_p50=$(wrk_p50_ns wrk-off1)
	awk -v a="$rant_p50" -v b="$wrk_p50" 'BEGIN { exit !(b > 0 && a / b >= 0.7 && a / b <= 1.3) }'
	check_err $? "port $PORT_OFF: rant's exchange p50 $rant_p50 ns against wrk's $wrk_p50 ns"
	log_test "--read: Nagle for every busy flow to :$PORT_OFF, none to :$PORT_ON ($v); p50 $rant_p50 ns, wrk $wrk_p50"
	"$PYTHON" "$TOP/tools/rant-plot" flow "$WORK/nano.pcap.json" -d "$WORK" >"$WORK/plot.txt" 2>&1 &&
		"$PYTHON" "$TOP/tools/rant-plot" ports "$WORK/nano.pcap.json" -d "$WORK" >>"$WORK/plot.txt" 2>&1
	check_err $? "rant-plot flow, ports: $(tail -2 "$WORK/plot.txt")"
	[ -s "$WORK/nano.pcap-flow.png" ] && [ -s "$WORK/nano.pcap-ports.png" ]
	check_err $? "rant-plot wrote no pictures: $(cat "$WORK/plot.txt")"
	log_test "rant-plot: the worst flow's timeline, each port's distribution"

	editcap -F pcap "$WORK/nano.pcap" "$WORK/micro.pcap" >/dev/null 2>&1 &&
		editcap -F pcapng "$WORK/nano.pcap" "$WORK/nano.pcapng" >/dev/null 2>&1
	check_err $? "editcap -F pcap, -F pcapng failed"
	read_check "$WORK/micro.pcap" "microsecond stamps (editcap -F pcap)" EN10MB
	[ "$(jqv "$WORK/micro.pcap.json" .source.stamps)" = micro ]
	check_err $? "microsecond stamps not said: $(jq -c .source "$WORK/micro.pcap.json")"
	read_check "$WORK/nano.pcapng" "pcapng (editcap)" EN10MB
	[ "$(jqv "$WORK/nano.pcapng.json" .source.format)" = pcapng ]
	check_err $? "pcapng not said: $(jqv "$WORK/nano.pcapng.json" .source.format)"
	"$RANT" --read - -j "$WORK/stdin.json" <"$WORK/nano.pcap" >"$WORK/stdin.out" 2>&1
	check_err $? "rant --read - failed: $(tail -2 "$WORK/stdin.out")"
	check_verdicts "$WORK/stdin.json" "standard input" >/dev/null
	read_check "$WORK/sll2.pcap" "tcpdump -i any" LINUX_SLL2
	[ "$(jqv "$WORK/sll2.pcap.json" .source.stamps)" = micro ]
	check_err $? "tcpdump's default stamps not said microsecond: $(jq -c .source "$WORK/sll2.pcap.json")"
	log_test "the same verdicts: microsecond stamps, pcapng, stdin, -i any (SLL2)"

	check_verdicts "$WORK/live.json" "--watch" >/dev/null
	[ "$(jqv "$WORK/live.json" .mode)" = watch ] && [ "$(jqv "$WORK/live.json" '.counts.dropped')" != null ]
	check_err $? "--watch's JSON: mode $(jqv "$WORK/live.json" .mode), dropped $(jqv "$WORK/live.json" .counts.dropped)"
	echo "$scrape" | grep -Eq "^rant_watch_exchanges_total\{interface=\"$VETH_B\",port=\"$PORT_OFF\"\} [1-9]"
	check_err $? "the scrape during wrk has no exchanges for port $PORT_OFF: $(echo "$scrape" | grep exchanges_total)"
	grep -q "port=\"$PORT_ON\",kind=\"nagle_delayed_ack\"} 0$" "$WORK/live.prom"
	check_err $? "the metrics count Nagle stalls on the on port: $(grep "port=\"$PORT_ON\",kind=\"nagle" "$WORK/live.prom")"
	! grep -Eq '[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+' "$WORK/live.prom"
	check_err $? "an address in the metrics: $(grep -E '[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+' "$WORK/live.prom" | head -2)"
	v=$(grep -Eo 'port="[^"]*"' "$WORK/live.prom" | sort -u | tr '\n' ' ')
	[ "$v" = "port=\"$PORT_OFF\" port=\"$PORT_ON\" " ]
	check_err $? "the metrics' port labels: $v"
	if command -v promtool >/dev/null; then
		promtool check metrics <"$WORK/live.prom" >"$WORK/promtool.txt" 2>&1
		check_err $? "promtool: $(head -3 "$WORK/promtool.txt")"
	fi
	log_test "--watch live: the same verdicts, $(jqv "$WORK/live.json" .counts.dropped) dropped, metrics per server port"
}

watch_rant_tcp() {
	local rc v
	pair
	cap_start rant.pcap -i "$VETH_B" --time-stamp-precision nano tcp port "$PORT"
	ip netns exec "$NS_B" "$RANT" -i "$VETH_B" --watch -d 3 -j "$WORK/live.json" \
		>"$WORK/live.txt" 2>&1 &
	local live=$!
	defer kill -9 "$live"
	wait_for_line "$WORK/live.txt" "^watching $VETH_B" 10
	ip netns exec "$NS_B" taskset -c 1 "$RANT" -i "$VETH_B" --tcp --block -d 60 \
		>"$WORK/r1.txt" 2>&1 &
	REFL=$!
	defer kill -9 "$REFL"
	wait_until 10 __rant_listens
	check_err $? "the reflector does not listen: $(tail -2 "$WORK/r1.txt")"
	emit -a "$IP_B" --tcp --writes 2 -w 5 -c 30 --timeout 1000000 >"$WORK/e1.txt" 2>&1
	check_err $? "emitter failed: $(tail -3 "$WORK/e1.txt")"
	stop_reflector
	cap_stop
	wait "$live"
	rc=$?
	check_err $rc "rant --watch -d 3 exit $rc: $(tail -2 "$WORK/live.txt")"
	[ "$(jqv "$WORK/live.json" .stop_reason)" = -d ]
	check_err $? "--watch -d 3 stopped by $(jqv "$WORK/live.json" .stop_reason)"
	"$RANT" --read "$WORK/rant.pcap" -j "$WORK/rant.json" >"$WORK/read.txt" 2>&1
	check_err $? "rant --read failed: $(tail -3 "$WORK/read.txt")"
	v=$(jq -c '[.diagnosis[].kind]' "$WORK/rant.json")
	jq -e 'any(.diagnosis[]; .kind == "client_nagle")' "$WORK/rant.json" >/dev/null
	check_err $? "the client's Nagle not named: $v"
	jq -e 'all(.diagnosis[]; .kind != "nagle_delayed_ack")' "$WORK/rant.json" >/dev/null
	check_err $? "the server's Nagle named: $v"
	log_test "rant --tcp --writes 2, Nagle on: client_nagle named, not the server's ($v)"
}

__rant_listens() {
	ip netns exec "$NS_B" ss -Htln "sport = :$PORT" | grep -q .
}

# bad_read WHAT WANT_RC REGEX ARGS...: rant ARGS exits WANT_RC with a line
# matching REGEX, and no crash.
bad_read() {
	local what=$1 want=$2 re=$3 rc out
	shift 3
	out=$("$RANT" "$@" 2>&1 >/dev/null)
	rc=$?
	[ "$rc" = "$want" ]; check_err $? "$what: exit $rc, want $want: $out"
	echo "$out" | grep -Eq -- "$re"; check_err $? "$what: '$out' does not match /$re/"
}

watch_bad_input() {
	local n
	pair
	cap_start ok.pcap -i "$VETH_B" tcp
	cap_start s64.pcap -i "$VETH_B" -s 64 tcp
	cap_start udp.pcap -i "$VETH_B" udp
	cap_start oneway.pcap -i "$VETH_B" tcp and src host "$IP_A"
	start_reflector r1 -d 60 || return
	emit -a "$IP_B" -c 200 >/dev/null 2>&1
	check_err $? "the UDP emitter failed"
	stop_reflector
	ip netns exec "$NS_B" "$RANT" -i "$VETH_B" --tcp --port 12346 --block -d 60 \
		>"$WORK/r2.txt" 2>&1 &
	REFL=$!
	defer kill -9 "$REFL"
	PORT=12346 wait_until 10 __rant_listens
	emit -a "$IP_B" --tcp --nodelay --port 12346 -c 200 >/dev/null 2>&1
	check_err $? "the TCP emitter failed"
	stop_reflector
	cap_stop
	n=$(stat -c %s "$WORK/ok.pcap")
	head -c $((n - 30)) "$WORK/ok.pcap" >"$WORK/cut.pcap"
	bad_read "a file cut mid-packet" 2 'truncated.*the report is of what came before' \
		--read "$WORK/cut.pcap"
	echo "not a capture" >"$WORK/text"
	bad_read "a text file" 1 '^rant: --read .*text: not a capture file' --read "$WORK/text"
	: >"$WORK/empty"
	bad_read "an empty file" 1 '^rant: --read .*empty: not a capture file' --read "$WORK/empty"
	bad_read "no such file" 1 '^rant: --read .*: cannot open it' --read "$WORK/none.pcap"
	"$PYTHON" -c 'import struct, sys
sys.stdout.buffer.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 147))
sys.stdout.buffer.write(struct.pack("<IIII", 1, 0, 4, 4) + b"abcd")' >"$WORK/user0.pcap"
	bad_read "link type USER0" 1 'link type 147 .* is not one rant reads' --read "$WORK/user0.pcap"
	bad_read "--read with -a" 1 '^rant: -a/--address is not for --read' --read "$WORK/ok.pcap" -a 1.2.3.4
	bad_read "--filter without --read" 1 'is for --read or --watch' -i lo --filter tcp
	bad_read "--watch without -i" 1 '^rant: --watch needs -i' --watch
	bad_read "a bad filter" 1 "^rant: --filter 'tcp prot 1'" --read "$WORK/ok.pcap" --filter "tcp prot 1"
	log_test "a cut file, text, empty, missing, USER0, options of other modes: one line each"

	"$RANT" --read "$WORK/s64.pcap" -j "$WORK/s64.json" >"$WORK/s64.txt" 2>&1
	check_err $? "snaplen 64: rant failed: $(tail -2 "$WORK/s64.txt")"
	n=$(jqv "$WORK/s64.json" '[.unknown[] | select(.what == "cut") | .flows] | add // 0')
	[ "$n" -ge 1 ]; check_err $? "snaplen 64: no flow said cut: $(jq -c .unknown "$WORK/s64.json")"
	grep -q '^cannot tell for .* TCP headers cut' "$WORK/s64.txt"
	check_err $? "snaplen 64: the text does not say so: $(grep -i cannot "$WORK/s64.txt")"
	"$RANT" --read "$WORK/udp.pcap" -j "$WORK/udp.json" >"$WORK/udp.txt" 2>&1
	check_err $? "no TCP: rant failed: $(tail -2 "$WORK/udp.txt")"
	[ "$(jqv "$WORK/udp.json" .counts.not_tcp)" -ge 400 ] && [ "$(jqv "$WORK/udp.json" .counts.flows)" = 0 ]
	check_err $? "no TCP: counts $(jq -c .counts "$WORK/udp.json")"
	grep -q 'no exchange .* this capture: it has no TCP' "$WORK/udp.txt"
	check_err $? "no TCP: the text does not say so: $(grep diagnosis "$WORK/udp.txt")"
	"$RANT" --read "$WORK/oneway.pcap" -j "$WORK/oneway.json" >"$WORK/oneway.txt" 2>&1
	check_err $? "one direction: rant failed: $(tail -2 "$WORK/oneway.txt")"
	n=$(jqv "$WORK/oneway.json" '[.unknown[] | select(.what == "no_server") | .flows] | add // 0')
	[ "$n" -ge 1 ] && [ "$n" = "$(jqv "$WORK/oneway.json" .counts.flows)" ]
	check_err $? "one direction: $n flows said without the server's segments: $(jq -c .unknown "$WORK/oneway.json")"
	[ "$(jqv "$WORK/oneway.json" '[.diagnosis[]] | length')" = 0 ]
	check_err $? "one direction: a diagnosis guessed: $(jq -c '[.diagnosis[].kind]' "$WORK/oneway.json")"
	grep -q '^cannot tell for .*: no segment from the server captured' "$WORK/oneway.txt"
	check_err $? "one direction: the text does not say so: $(grep -i cannot "$WORK/oneway.txt")"
	log_test "snaplen 64 and one direction said, a capture without TCP counted and said"
}

# pipe_read WHAT WANT FORMAT ARGS...: rant ARGS (within 30 s) reads WANT
# packets of a FORMAT file.
pipe_read() {
	local what=$1 want=$2 fmt=$3 rc got f
	shift 3
	timeout 30 "$@" -j "$WORK/pipe.json" >"$WORK/pipe.txt" 2>&1
	rc=$?
	check_err $rc "$what: exit $rc (124: it hung): $(tail -2 "$WORK/pipe.txt")"
	[ $rc = 0 ] || return 1
	got=$(jqv "$WORK/pipe.json" .counts.packets)
	f=$(jqv "$WORK/pipe.json" .source.format)
	[ "$got" = "$want" ] && [ "$f" = "$fmt" ]
	check_err $? "$what: $got packets as $f, want $want (tcpdump -r) as $fmt"
}

watch_pipes() {
	local want fmt f i
	cc -O2 -o "$WORK/capgen" "$TOP/bench/capgen.c" || skip_test "cannot build bench/capgen.c"
	"$WORK/capgen" -o "$WORK/f.pcap" -f 2400 -e 3 || return
	editcap -F pcapng "$WORK/f.pcap" "$WORK/f.pcapng" || return
	for f in f.pcap f.pcapng; do
		fmt=${f#f.}
		want=$(tcpdump -r "$WORK/$f" -nn 2>/dev/null | wc -l)
		[ "$want" -ge 36000 ]; check_err $? "$f: tcpdump reads $want packets, want 36000 at least"
		pipe_read "<(cat $f)" "$want" "$fmt" "$RANT" --read <(cat "$WORK/$f")
		rm -f "$WORK/fifo"
		mkfifo "$WORK/fifo"
		for i in 1 2 3; do
			cat "$WORK/$f" >"$WORK/fifo" &
			pipe_read "a FIFO, run $i, $f" "$want" "$fmt" "$RANT" --read "$WORK/fifo"
			wait
		done
		pipe_read "/dev/stdin, $f" "$want" "$fmt" "$RANT" --read /dev/stdin <"$WORK/$f"
		pipe_read "- from a pipe, $f" "$want" "$fmt" "$RANT" --read - < <(cat "$WORK/$f")
	done
	log_test "<(cat f), a FIFO, /dev/stdin and - read whole, pcap and pcapng"
}

# tshark_counts FILE: "PACKETS TCP STREAMS RETRANSMISSIONS" as tshark reads FILE.
tshark_counts() {
	echo "$(tshark -r "$1" 2>/dev/null | wc -l) $(tshark -r "$1" -Y tcp 2>/dev/null | wc -l)" \
		"$(tshark -r "$1" -T fields -e tcp.stream 2>/dev/null | grep . | sort -u | wc -l)" \
		"$(tshark -r "$1" -Y tcp.analysis.retransmission 2>/dev/null | wc -l)"
}

# hostile_read NAME: rant --read DIR/NAME, its JSON in $WORK/NAME.json, exit in $RC.
hostile_read() {
	"$RANT" --read "$WORK/$1" -j "$WORK/$1.json" >"$WORK/$1.txt" 2>&1
	RC=$?
}

watch_hostile() {
	local t v
	command -v tshark >/dev/null || skip_test "no tshark"
	"$PYTHON" "$TOP/tests/net/hostilecap.py" "$WORK" || return
	read -r -a t <<<"$(tshark_counts "$WORK/tunnels.pcap")"
	hostile_read tunnels.pcap
	check_err $RC "tunnels: exit $RC: $(tail -2 "$WORK/tunnels.pcap.txt")"
	v=$(jq -r '.counts | "\(.packets) \(.tcp) \(.flows) \(.tunnel)"' "$WORK/tunnels.pcap.json")
	[ "$v" = "${t[0]} ${t[1]} ${t[2]} 0" ] && [ "${t[2]}" = 9 ]
	check_err $? "tunnels: rant's packets, TCP, flows, not decoded $v; tshark's ${t[*]:0:3} 0 (9 flows)"
	grep -q '^tunnels: [0-9]* TCP segments read inside' "$WORK/tunnels.pcap.txt"
	check_err $? "tunnels: the text does not say so"
	log_test "9 VLAN tags, 10 IPv6 extension headers, IPIP, 6in4, GRE, VXLAN: tshark's flows"

	read -r -a t <<<"$(tshark_counts "$WORK/len65535.pcap")"
	hostile_read len65535.pcap
	check_err $RC "IP length 65535: exit $RC"
	v=$(jq -r '.counts | "\(.flows) \(.ip_len_clamped)"' "$WORK/len65535.pcap.json")
	[ "$v" = "${t[2]} ${t[0]}" ]
	check_err $? "IP length 65535: flows, clamped $v; tshark's flows ${t[2]}, every packet ${t[0]}"
	v=$(jq -r '[.diagnosis[].kind] | join(",")' "$WORK/len65535.pcap.json")
	[ "${t[3]}" = 0 ] && ! echo "$v" | grep -q retransmission
	check_err $? "IP length 65535: diagnosis '$v' (tshark's retransmissions ${t[3]})"
	log_test "an IP total length of 65535 in short frames: cut to the frame, counted, no loss invented"

	read -r -a t <<<"$(tshark_counts "$WORK/tsoffset.pcapng")"
	hostile_read tsoffset.pcapng
	v=$(jqv "$WORK/tsoffset.pcapng.json" .counts.bad_stamps)
	[ "$RC" = 0 ] && [ "$v" = "${t[0]}" ] && grep -q "^not read: $v packets stamped past" "$WORK/tsoffset.pcapng.txt"
	check_err $? "if_tsoffset 2^62: exit $RC, bad_stamps $v, want tshark's ${t[0]} packets: $(tail -2 "$WORK/tsoffset.pcapng.txt")"
	hostile_read twolinks.pcapng
	[ "$RC" = 2 ] && grep -q 'libpcap reads one link type a file (split it by interface' "$WORK/twolinks.pcapng.txt"
	check_err $? "two link types: exit $RC: $(tail -1 "$WORK/twolinks.pcapng.txt")"
	log_test "if_tsoffset 2^62: counted, not read; two link types in a pcapng: named with the fix"
}

tests_run
