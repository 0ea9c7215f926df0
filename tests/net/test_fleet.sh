#!/usr/bin/env bash
# Fleets (--targets FILE, --paths N, --dscp N): one emitter measures
# many reflectors at once. Three reflectors on three ports: every target
# measured; one killed mid-run loses its pings from the kill on and the
# others none; SIGHUP with a changed file adds and removes targets (a
# bad file changes nothing); the metrics pass promtool with a distinct
# peer a target; bad lines refused at start with their numbers. --dscp
# 46: the reflector and a tcpdump capture see EF on every ping (a line's
# dscp=0 overrides it). ECMP: a router between the emitter and a
# reflector with two links to it (bridged on the reflector's side), a
# multipath route hashing L4, a tbf queue on one link filled by a load:
# with --paths 16 the diagnosis names exactly the source ports a capture
# saw on the loaded link. Scale: 1,000 addresses of one reflector, 10
# pings a second each, lost at most 0.1%, every stamp kept, the peak RSS
# under 512 MiB, no datagram dropped at any socket; 10,000 targets at
# 2.5 a second each (the rate this VM holds beside other work) over two
# sockets sharing a port, none dropped at either. Addresses added to a
# running reflector's interface are each answered from themselves. A
# tiny --rcvbuf and a flood at one socket: the drops rant reports for
# each socket are the kernel's (/proc/net/udp), and with the flood's
# datagrams rant read they make up every one sent; without
# CAP_NET_ADMIN, a buffer above net.core.rmem_max is capped and the
# warning names the sysctl.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="fleet_targets fleet_reload fleet_reload_reclaim fleet_reload_churn fleet_refused fleet_badfile fleet_dscp fleet_stamp fleet_flowlabel
	fleet_ecmp fleet_scale fleet_scale_10k fleet_addr_added fleet_socket_drops fleet_rcvbuf_capped"

require_root
require_cmd jq promtool tcpdump tc iperf3
require_rant

# fleet_reflectors PORT...: a reflector a port in NS_B (--block: three
# share CPU 1), text and JSON in $WORK/rPORT.*, pid in RPID[PORT].
declare -A RPID
fleet_reflectors() {
	local p
	for p in "$@"; do
		ns_bg "$NS_B" taskset -c 1 "$RANT" -i "$VETH_B" --port "$p" --block \
			-j "$WORK/r$p.json" >"$WORK/r$p.txt" 2>&1
		RPID[$p]=$BGPID
	done
	for p in "$@"; do
		wait_udp_port "$NS_B" "$p" ||
			check_err 1 "reflector on port $p did not bind: $(tail -2 "$WORK/r$p.txt")"
	done
}

# fleet_bg NAME ARGS...: the fleet's emitter in NS_A on CPU 0 (--block),
# as emit_bg.
fleet_bg() {
	local name=$1
	shift
	emit_bg "$name" --block "$@"
}

# wait_fleet FILE: until the fleet's emitter writing FILE measures.
wait_fleet() {
	wait_for_line "$1" '^measuring: [0-9]+ targets' "$MEASURE_WAIT_S"
	check_err $? "the fleet did not start measuring: $(tail -3 "$1")"
}

# target JSON PEER EXPR: EXPR of the target PEER (ADDR:PORT) in JSON.
target() {
	jq -r --arg p "$2" ".targets[] | select(.peer == \$p) | $3" "$1"
}

# Three reflectors, one killed 2 s into the run: its target's pings are
# lost from the kill on (the log: none lost before it, every one after
# it and its --timeout), the other two lose none; every target measured
# on its schedule, 100 a second each; the metrics pass promtool, one
# peer a target.
fleet_targets() {
	local sent lost t_kill bad peers out
	setup_pair || skip_test "cannot create namespaces and veth"
	fleet_reflectors 4001 4002 4003
	printf '# three reflectors\n%s 4001\n%s 4002   # killed\n\n%s 4003\n' \
		"$IP_B" "$IP_B" "$IP_B" >"$WORK/targets"
	fleet_bg e1 --targets "$WORK/targets" -d 5 --interval 10000 -j "$WORK/e1.json" \
		-l "$WORK/e1.log" --metrics "$WORK/e1.prom"
	wait_fleet "$WORK/e1.txt"
	sleep 2		# the stimulus: two seconds of all three
	t_kill=$EPOCHREALTIME
	kill -9 "${RPID[4002]}"
	wait "$EM"
	check_err $? "the fleet's emitter failed: $(tail -3 "$WORK/e1.txt")"
	for p in 4001 4002 4003; do
		sent=$(target "$WORK/e1.json" "$IP_B:$p" .counts.sent)
		lost=$(target "$WORK/e1.json" "$IP_B:$p" .counts.lost)
		echo "$IP_B:$p: sent $sent, lost $lost"
		[ "${sent:-0}" -ge 400 ] && [ "$sent" -le 510 ]
		check_err $? "$IP_B:$p: $sent sent in 5 s at 100/s (400 to 510 expected)"
		[ "$p" = 4002 ] || [ "$lost" = 0 ]
		check_err $? "$IP_B:$p lost $lost: only the killed reflector's target may lose"
	done
	# the killed one's rows: LOST after the kill (and its timeout), not before
	bad=$(awk -v k="$t_kill" -v t="$IP_B:4002" '
		$NF == t && $2 + 0 < k - 0.2 && $(NF - 1) == "LOST" { before++ }
		$NF == t && $2 + 0 > k + 0.15 && $(NF - 1) != "LOST" { after++ }
		$NF == t && $2 + 0 > k + 0.15 { n++ }
		END { printf "%d %d %d", before, after, n }' "$WORK/e1.log")
	echo "killed target's rows: lost before the kill, answered after, rows after: $bad"
	[[ $bad =~ ^0\ 0\ [0-9]+$ ]] && [ "${bad##* }" -ge 200 ]
	check_err $? "the killed reflector's target: $bad (lost before, answered after, rows after)"
	log_test "fleet: three targets at once, only the killed one loses its pings"
	out=$(promtool check metrics <"$WORK/e1.prom" 2>&1)
	check_err $? "promtool check metrics: $out"
	peers=$(grep -o '^rant_packets_sent_total{[^}]*peer="[^"]*"' "$WORK/e1.prom" |
		sed 's/.*peer=//' | sort -u | wc -l)
	[ "$peers" = 3 ]
	check_err $? "rant_packets_sent_total has $peers distinct peers, 3 expected"
	log_test "fleet: the metrics pass promtool, one peer a target"
}

# SIGHUP with a changed file: the target removed stops (gone from the
# JSON and the metrics), the one added starts, the one kept keeps its
# counts; then a file with a bad line changes nothing.
fleet_reload() {
	local s2 s3
	setup_pair || skip_test "cannot create namespaces and veth"
	fleet_reflectors 4001 4002 4003
	printf '%s 4001\n%s 4002\n' "$IP_B" "$IP_B" >"$WORK/targets"
	fleet_bg e1 --targets "$WORK/targets" -d 6 --interval 10000 -j "$WORK/e1.json" \
		--metrics "$WORK/e1.prom" -I 0.2
	wait_fleet "$WORK/e1.txt"
	sleep 2
	printf '%s 4002\n%s 4003 # new\n' "$IP_B" "$IP_B" >"$WORK/targets"
	kill -HUP "$EM"
	wait_for_line "$WORK/e1.txt" 'read again: 1 added, 1 removed' 5
	check_err $? "no reload after SIGHUP: $(tail -3 "$WORK/e1.txt")"
	grep -q "^rant: $IP_B:4001 removed: [0-9]* sent" "$WORK/e1.txt"
	check_err $? "the removed target's numbers are not said: $(tail -3 "$WORK/e1.txt")"
	wait_until 3 grep -q "peer=\"$IP_B:4003\"" "$WORK/e1.prom"
	check_err $? "the added target is not in the metrics"
	! grep -q "peer=\"$IP_B:4001\"" "$WORK/e1.prom"
	check_err $? "the removed target is still in the metrics"
	printf '%s 4002\n%s 4003\n%s 99999\n' "$IP_B" "$IP_B" "$IP_B" >"$WORK/targets"
	kill -HUP "$EM"
	wait_for_line "$WORK/e1.txt" 'not read again' 5
	check_err $? "a bad file at SIGHUP is not refused: $(tail -3 "$WORK/e1.txt")"
	wait "$EM"
	check_err $? "the fleet's emitter failed: $(tail -3 "$WORK/e1.txt")"
	jq -e --arg a "$IP_B:4001" '[.targets[].peer] | length == 2 and (index($a) | not)' \
		"$WORK/e1.json" >/dev/null
	check_err $? "targets at the end: $(jq -c '[.targets[].peer]' "$WORK/e1.json")"
	s2=$(target "$WORK/e1.json" "$IP_B:4002" .counts.sent)
	s3=$(target "$WORK/e1.json" "$IP_B:4003" .counts.sent)
	echo "kept $IP_B:4002 sent $s2, added $IP_B:4003 sent $s3"
	[ "${s2:-0}" -ge 480 ] && [ "${s3:-0}" -ge 200 ] && [ "$s3" -le $((s2 - 150)) ]
	check_err $? "the kept target sent $s2 (its counts kept: 480 or more), the added $s3"
	[ "$(target "$WORK/e1.json" "$IP_B:4002" .counts.lost)" = 0 ] &&
		[ "$(target "$WORK/e1.json" "$IP_B:4003" .counts.lost)" = 0 ]
	check_err $? "a reload lost pings: $(jq -c '[.targets[] | [.peer, .counts.lost]]' "$WORK/e1.json")"
	log_test "fleet: SIGHUP adds and removes targets, keeps the others' counts"
}

# fleet_hosts N: N addresses 10.99.X.Y on the reflector's side, routed
# from the emitter's; the Kth of them (from 0) is fleet_host K.
fleet_host() { echo "10.99.$(($1 / 250)).$(($1 % 250 + 1))"; }
fleet_hosts() {
	local i
	for ((i = 0; i < $1; i++)); do
		echo "addr add $(fleet_host "$i")/32 dev $VETH_B"
	done | ip -n "$NS_B" -batch -
	ip -n "$NS_A" route add 10.99.0.0/16 via "$IP_B"
	ns_bg "$NS_B" taskset -c 1 "$RANT" -i "$VETH_B" --block --max-sessions 4096 \
		--max-sessions-per-address 4096 >"$WORK/r.txt" 2>&1
	wait_udp_port "$NS_B" "$PORT" ||
		check_err 1 "the reflector did not bind: $(tail -2 "$WORK/r.txt")"
}

# fleet_file FILE FROM N: the targets fleet_host FROM to FROM + N - 1,
# written whole (a reload never reads half a file).
fleet_file() {
	local i
	for ((i = $2; i < $2 + $3; i++)); do fleet_host "$i"; done >"$1.new"
	mv "$1.new" "$1"
}

# fleet_measured JSON TXT START: the targets the JSON measured at the end,
# then START + what the reloads said they added - what they removed.
fleet_measured() {
	jq '.targets | length' "$1"
	awk -v n="$3" '/read again: [0-9]+ added/ { n += $(NF - 5) - $(NF - 3) }
		END { print n }' "$2"
}

# A 60-target file swapped for another at SIGHUP, then (once the first
# file's slots have had their grace) for a third: every reload measures
# the 60 it says it added. On db30865 the second reload took a reclaimed
# slot again and again: "60 added, 60 removed", 5 targets measured.
fleet_reload_reclaim() {
	local got said
	setup_pair || skip_test "cannot create namespaces and veth"
	fleet_hosts 180
	fleet_file "$WORK/targets" 0 60
	fleet_bg e1 --targets "$WORK/targets" -d 40 --interval 100000 -j "$WORK/e1.json"
	wait_fleet "$WORK/e1.txt"
	fleet_file "$WORK/targets" 60 60
	kill -HUP "$EM"
	wait_for_line "$WORK/e1.txt" 'read again: 60 added, 60 removed' 5
	check_err $? "the first reload: $(grep 'read again' "$WORK/e1.txt")"
	sleep 31	# the removed targets' slots past their grace (FLEETTAB_GRACE_NS)
	fleet_file "$WORK/targets" 120 60
	kill -HUP "$EM"
	wait_for_line "$WORK/e1.txt" 'read again: .* 60 removed' 5
	check_err $? "the second reload: $(grep 'read again' "$WORK/e1.txt" | tail -1)"
	wait "$EM"
	check_err $? "the fleet's emitter failed: $(tail -3 "$WORK/e1.txt")"
	grep 'read again' "$WORK/e1.txt"
	read -r got said < <(fleet_measured "$WORK/e1.json" "$WORK/e1.txt" 60 | paste -s -d ' ')
	echo "measured at the end $got, the reloads said $said"
	[ "$got" = 60 ] && [ "$said" = 60 ] &&
		jq -e --arg f "$(fleet_host 120)" --arg l "$(fleet_host 179)" \
			'[.targets[] | select(.counts.received > 0) | .peer] | length == 60 and
			 (map(split(":")[0]) | index($f) and index($l))' "$WORK/e1.json" >/dev/null
	check_err $? "measured $got (each answered: $(jq '[.targets[] | select(.counts.received > 0)] | length' "$WORK/e1.json")), the reloads said $said: 60 expected"
	log_test "fleet: a reload into reclaimed slots measures the 60 it adds"
}

# 100 SIGHUPs as fast as the reloads go, the file alternating between
# two halves of 60 targets: the fleet ends measuring the 30 of the last
# file, and what the reloads said adds up to it, nothing "not added". On
# db30865 the halves' slots were held by their grace: after the fourth
# reload targets were "not added", and what was said added was not all
# measured.
fleet_reload_churn() {
	local got said i notadded
	setup_pair || skip_test "cannot create namespaces and veth"
	fleet_hosts 60
	fleet_file "$WORK/targets" 0 30
	fleet_bg e1 --targets "$WORK/targets" -d 12 --interval 100000 -j "$WORK/e1.json"
	wait_fleet "$WORK/e1.txt"
	for ((i = 1; i <= 100; i++)); do
		fleet_file "$WORK/targets" $((i % 2 * 30)) 30
		kill -HUP "$EM"
		sleep 0.03
	done
	wait "$EM"
	check_err $? "the fleet's emitter failed: $(tail -3 "$WORK/e1.txt")"
	notadded=$(grep -c 'not added' "$WORK/e1.txt")
	read -r got said < <(fleet_measured "$WORK/e1.json" "$WORK/e1.txt" 30 | paste -s -d ' ')
	echo "$(grep -c 'read again' "$WORK/e1.txt") reloads, $notadded targets not added; measured at the end $got, the reloads said $said"
	[ "$got" = 30 ] && [ "$said" = 30 ] && [ "$notadded" = 0 ] &&
		jq -e --arg f "$(fleet_host 0)" --arg l "$(fleet_host 29)" \
			'[.targets[] | select(.counts.received > 0) | .peer] | length == 30 and
			 (map(split(":")[0]) | index($f) and index($l))' "$WORK/e1.json" >/dev/null
	check_err $? "measured $got, the reloads said $said, $notadded not added: 30, 30, 0 expected"
	log_test "fleet: 100 SIGHUPs alternating two halves: the last file's 30 measured"
}

# A fleet whose every ping is refused (the one session the reflector
# gives its address held by another sender): exit 2 with the refusal and its fix. On db30865 it
# said "no pong ... is the reflector still running?" beside 10,716
# refusals counted.
fleet_refused() {
	local rc=0 hold
	setup_pair || skip_test "cannot create namespaces and veth"
	start_reflector r1 --max-sessions-per-address 1 || return
	wait_udp_port "$NS_B" "$PORT"
	# the address's one session held, a ping every 0.5 s
	ip netns exec "$NS_A" "$PYTHON" "$TOP/tests/net/hoard.py" hoard "$IP_B" "$PORT" 1 0.5 \
		"$IP_A" >"$WORK/hoard.txt" 2>&1 &
	hold=$!
	defer kill -9 "$hold"
	wait_for_line "$WORK/hoard.txt" '^ready answered=1' 10
	check_err $? "the session was not held: $(cat "$WORK/hoard.txt")"
	printf '%s\n' "$IP_B" >"$WORK/targets"
	emit --targets "$WORK/targets" -d 2 -j "$WORK/e1.json" >"$WORK/e1.txt" 2>&1 || rc=$?
	stop_reflector
	grep '^rant:' "$WORK/e1.txt"
	[ "$rc" = 2 ] && [ "$(jqv "$WORK/e1.json" .counts.refused)" -gt 0 ] &&
		grep -q '^rant: no pong received for [0-9]* pings: the reflector refused [0-9]* (its session table full): raise --max-sessions on it' "$WORK/e1.txt" &&
		! grep -q 'still running' "$WORK/e1.txt"
	check_err $? "exit $rc: $(grep '^rant:' "$WORK/e1.txt")"
	log_test "fleet: every ping refused: the refusal and its fix said"
}

# Bad lines: each named with its number and fix, exit 1, nothing sent.
fleet_badfile() {
	setup_pair || skip_test "cannot create namespaces and veth"
	printf '%s\n%s 70000\n%s dscp=64\n10.77.0.300\n%s\n' "$IP_B" "$IP_B" "$IP_B" "$IP_B" \
		>"$WORK/targets"
	targets_refused
	grep -q "targets:2: '70000' is neither a port" "$WORK/e1.txt" &&
		grep -q "targets:3: dscp=64: .*give dscp=N with N from 0 to 63" "$WORK/e1.txt" &&
		grep -q "targets:4: 10.77.0.300: not an IPv4 or IPv6 address" "$WORK/e1.txt" &&
		grep -q "targets:5: $IP_B:12345 is line 1's target again: give each once" "$WORK/e1.txt"
	check_err $? "each bad line with its number and fix"
	! grep -q '^measuring' "$WORK/e1.txt"
	check_err $? "it measured"
	log_test "fleet: a bad targets file refused at start, line by line"
}

# tos_count PCAP: "ALL EF" pings a capture holds (IPv4 TOS 0xb8: DSCP 46).
tos_count() {
	tcpdump -nn -v -r "$1" 2>/dev/null |
		awk '/ IP \(tos / { n++; if (/ IP \(tos 0xb8,/) ef++ } END { printf "%d %d", n, ef }'
}

# --dscp 46: every ping leaves with EF (a capture on the reflector's side
# says so, and so does the reflector's session); a line's dscp=0 wins.
fleet_dscp() {
	local got
	setup_pair || skip_test "cannot create namespaces and veth"
	fleet_reflectors 4001 4002
	printf '%s 4001\n%s 4002 dscp=0\n' "$IP_B" "$IP_B" >"$WORK/targets"
	ns_bg "$NS_B" tcpdump -nn -U -i "$VETH_B" -w "$WORK/ping.pcap" 'udp dst port 4001'
	wait_until 5 test -s "$WORK/ping.pcap"
	fleet_bg e1 --targets "$WORK/targets" -d 2 --interval 10000 --dscp 46 --paths 2 \
		-j "$WORK/e1.json"
	wait "$EM"
	check_err $? "the fleet's emitter failed: $(tail -3 "$WORK/e1.txt")"
	sleep 0.2
	kill -INT "$BGPID" "${RPID[4001]}" "${RPID[4002]}"
	wait "${RPID[4001]}" "${RPID[4002]}"
	got=$(tos_count "$WORK/ping.pcap")
	echo "captured to $IP_B:4001: ${got% *} pings, ${got#* } with TOS 0xb8 (EF)"
	[ "${got% *}" -ge 150 ] && [ "${got% *}" = "${got#* }" ]
	check_err $? "pings to 4001 (--dscp 46), captured: $got (all, EF)"
	jq -e '[.sessions[].dscp] | length == 2 and all(. == [46])' "$WORK/r4001.json" >/dev/null
	check_err $? "the reflector on 4001 saw: $(jq -c '[.sessions[].dscp]' "$WORK/r4001.json")"
	jq -e '[.sessions[].dscp] | length == 2 and all(. == [0])' "$WORK/r4002.json" >/dev/null
	check_err $? "the reflector on 4002 (dscp=0) saw: $(jq -c '[.sessions[].dscp]' "$WORK/r4002.json")"
	[ "$(target "$WORK/e1.json" "$IP_B:4001" .dscp)" = 46 ]
	check_err $? "the JSON's dscp of $IP_B:4001"
	log_test "fleet: --dscp 46 leaves as EF on every ping, dscp=0 overrides it"
}

# --stamp: a fleet of STAMP sessions (an SSID a target), its pings EF
# with a Class of Service TLV that asks the reply to be EF too: rant's
# STAMP reflector answers every one, and says EF arrived (its sessions;
# the single emitter's stamp peer line reads the TLV back).
fleet_stamp() {
	local sp
	setup_pair || skip_test "cannot create namespaces and veth"
	ns_bg "$NS_B" taskset -c 1 "$RANT" -i "$VETH_B" --stamp --block -j "$WORK/r.json" \
		>"$WORK/r.txt" 2>&1
	REFL=$BGPID
	wait_udp_port "$NS_B" 862 || check_err 1 "the STAMP reflector did not bind"
	fleet_bg e1 -a "$IP_B" --stamp -m 128 --dscp 46 --paths 2 -d 2 --interval 10000 \
		-j "$WORK/e1.json"
	wait "$EM"
	check_err $? "the fleet's emitter failed: $(tail -3 "$WORK/e1.txt")"
	emit -a "$IP_B" --stamp -m 128 --dscp 46 -c 50 --interval 10000 >"$WORK/e2.txt" 2>&1
	check_err $? "the single emitter failed: $(tail -3 "$WORK/e2.txt")"
	kill -INT "$REFL"
	wait "$REFL"
	jq -e '.targets[0].counts | .received >= 150 and .lost == 0' "$WORK/e1.json" >/dev/null
	check_err $? "the fleet over STAMP: $(jq -c '.targets[0].counts' "$WORK/e1.json")"
	jq -e '[.sessions[].dscp] | length == 3 and all(. == [46])' "$WORK/r.json" >/dev/null
	check_err $? "the STAMP reflector saw: $(jq -c '[.sessions[].dscp]' "$WORK/r.json")"
	sp=$(grep '^stamp peer:' "$WORK/e2.txt")
	[[ $sp == *"DSCP 46 ECN 0 on arrival, the reply's DSCP as asked"* ]]
	check_err $? "the Class of Service TLV read back: $sp"
	log_test "fleet: --stamp with --dscp 46, EF asked and seen (Class of Service)"
}

# --paths 4 --flow-label to an IPv6 target: the pings leave from one
# source port with the four flow labels the JSON names, each a quarter.
fleet_flowlabel() {
	local want got ports
	setup_pair || skip_test "cannot create namespaces and veth"
	fleet_reflectors 4001
	ns_bg "$NS_B" tcpdump -nn -v -U -i "$VETH_B" -w "$WORK/ping.pcap" 'ip6 and udp dst port 4001'
	wait_until 5 test -s "$WORK/ping.pcap"
	fleet_bg e1 -a "$IP6_B" --port 4001 --paths 4 --flow-label -d 2 --interval 5000 \
		-j "$WORK/e1.json"
	wait "$EM"
	check_err $? "the fleet's emitter failed: $(tail -3 "$WORK/e1.txt")"
	sleep 0.2
	kill -INT "$BGPID"
	want=$(jq -r '[.targets[0].paths[].flow_label] | sort | join(" ")' "$WORK/e1.json")
	got=$(tcpdump -nn -v -r "$WORK/ping.pcap" 2>/dev/null |
		sed -n 's/.*flowlabel \(0x[0-9a-f]*\),.*/\1/p' | sort -u |
		while read -r h; do printf '%d\n' "$h"; done | sort -n | paste -sd ' ')
	ports=$(tcpdump -nn -r "$WORK/ping.pcap" 2>/dev/null | awk '{ n = split($3, a, "."); print a[n] }' |
		sort -u | wc -l)
	echo "flow labels: the JSON's $want, captured $got; source ports $ports"
	[ -n "$want" ] && [ "$want" = "$got" ] && [ "$ports" = 1 ]
	check_err $? "flow labels captured '$got' (want '$want'), $ports source ports (want 1)"
	jq -e '[.targets[0].paths[].counts.received] | length == 4 and min >= 80' "$WORK/e1.json" \
		>/dev/null
	check_err $? "each label's pongs: $(jq -c '[.targets[0].paths[].counts.received]' "$WORK/e1.json")"
	log_test "fleet: --flow-label, four labels from one source port"
}

# ecmp_setup: NS_A (emitter, 10.77.0.1) -- NS_R (router) == two links ==
# NS_B (reflector at 10.88.9.2 on a bridge of both links). The router
# spreads flows to 10.88.9.2 over the links by their L4 hash
# (fib_multipath_hash_policy=1); the pongs come back over link 1.
ecmp_setup() {
	NS_A=rant-a-$UNIQ NS_R=rant-r-$UNIQ NS_B=rant-b-$UNIQ
	VETH_A=ra$UNIQ VR0=rr$UNIQ VR1=r1$UNIQ VR2=r2$UNIQ VT1=t1$UNIQ VT2=t2$UNIQ
	local ns
	for ns in "$NS_A" "$NS_R" "$NS_B"; do
		ip netns add "$ns" || return 1
		defer ip netns del "$ns"
		ip -n "$ns" link set lo up
	done
	ip link add "$VETH_A" netns "$NS_A" type veth peer name "$VR0" netns "$NS_R" &&
		ip link add "$VR1" netns "$NS_R" type veth peer name "$VT1" netns "$NS_B" &&
		ip link add "$VR2" netns "$NS_R" type veth peer name "$VT2" netns "$NS_B" || return 1
	ip -n "$NS_A" addr add 10.77.0.1/24 dev "$VETH_A"
	ip -n "$NS_R" addr add 10.77.0.254/24 dev "$VR0"
	ip -n "$NS_R" addr add 10.88.1.1/24 dev "$VR1"
	ip -n "$NS_R" addr add 10.88.2.1/24 dev "$VR2"
	ip -n "$NS_B" link add br0 type bridge
	ip -n "$NS_B" link set "$VT1" master br0
	ip -n "$NS_B" link set "$VT2" master br0
	ip -n "$NS_B" addr add 10.88.1.2/24 dev br0
	ip -n "$NS_B" addr add 10.88.2.2/24 dev br0
	ip -n "$NS_B" addr add 10.88.9.2/32 dev br0
	for l in "$NS_A $VETH_A" "$NS_R $VR0" "$NS_R $VR1" "$NS_R $VR2" "$NS_B $VT1" \
		"$NS_B $VT2" "$NS_B br0"; do
		# shellcheck disable=SC2086  # "NS DEV"
		ip -n ${l% *} link set "${l#* }" up
	done
	ip -n "$NS_A" route add 10.88.0.0/16 via 10.77.0.254
	ip -n "$NS_B" route add 10.77.0.0/24 via 10.88.1.1
	ip netns exec "$NS_R" sysctl -qw net.ipv4.ip_forward=1 \
		net.ipv4.fib_multipath_hash_policy=1 || return 1
	ip -n "$NS_R" route add 10.88.9.2/32 nexthop via 10.88.1.2 dev "$VR1" \
		nexthop via 10.88.2.2 dev "$VR2" || return 1
}

# sports PCAP: the source ports of the pings a capture holds, sorted.
sports() {
	tcpdump -nn -r "$1" 2>/dev/null | awk '{ n = split($3, a, "."); print a[n] }' | sort -nu |
		paste -sd ' '
}

# --paths 16 through the router: the paths (source ports) that a capture
# saw hash onto the link whose tbf a load fills have a p50 several times
# the others', and the diagnosis names exactly those ports, path_latency.
fleet_ecmp() {
	local p1 p2 dev named slow
	ecmp_setup || skip_test "cannot build the router's namespaces (bridge, multipath)"
	ns_bg "$NS_B" taskset -c 1 "$RANT" -i br0 --block --max-sessions-per-address 64 \
		-j "$WORK/r.json" >"$WORK/r.txt" 2>&1
	wait_udp_port "$NS_B" "$PORT"
	ns_bg "$NS_B" iperf3 -s -1 -B 10.88.2.2 -p 5299
	ns_bg "$NS_R" tcpdump -nn -U -i "$VR1" -w "$WORK/l1.pcap" 'udp dst port 12345'
	ns_bg "$NS_R" tcpdump -nn -U -i "$VR2" -w "$WORK/l2.pcap" 'udp dst port 12345'
	wait_until 5 test -s "$WORK/l2.pcap"
	fleet_bg e1 -a 10.88.9.2 --paths 16 -d 12 --interval 1000 -j "$WORK/e1.json"
	wait_fleet "$WORK/e1.txt"
	sleep 1		# a second of pings: every path seen on its link
	p1=$(sports "$WORK/l1.pcap")
	p2=$(sports "$WORK/l2.pcap")
	echo "link 1: ports $p1"
	echo "link 2: ports $p2"
	[ "$(wc -w <<<"$p1 $p2")" = 16 ] && [ -n "$p1" ] && [ -n "$p2" ]
	check_err $? "the 16 paths on the links: '$p1' and '$p2' (all 16, some on each)"
	# the load on the link fewer paths took (the diagnosis's reference is
	# the lower quartile of the paths)
	dev=$VR2 slow=$p2
	if [ "$(wc -w <<<"$p1")" -lt "$(wc -w <<<"$p2")" ]; then
		dev=$VR1 slow=$p1
		ns_bg "$NS_B" iperf3 -s -1 -B 10.88.1.2 -p 5298
	fi
	tc -n "$NS_R" qdisc add dev "$dev" root tbf rate 20mbit burst 16kb latency 20ms
	ns_bg "$NS_R" iperf3 -u -b 60M -l 1200 -t 12 -c "$([ "$dev" = "$VR2" ] &&
		echo 10.88.2.2 || echo 10.88.1.2)" -p "$([ "$dev" = "$VR2" ] && echo 5299 || echo 5298)"
	wait "$EM"
	check_err $? "the fleet's emitter failed: $(tail -3 "$WORK/e1.txt")"
	sed -n '/^diagnosis/,$p' "$WORK/e1.txt"
	named=$(jq -r '.diagnosis[] | select(.kind == "path_latency") | .source_ports | sort | join(" ")' \
		"$WORK/e1.json")
	[ "$named" = "$slow" ]
	check_err $? "path_latency names '$named', the loaded link's ports are '$slow'"
	jq -e --arg s "$slow" '[.diagnosis[].source_ports[] | tostring] - ($s | split(" ")) | length == 0' \
		"$WORK/e1.json" >/dev/null
	check_err $? "the diagnosis names other ports: $(jq -c .diagnosis "$WORK/e1.json")"
	jq -e --arg s "$slow" '
		.targets[0].paths as $p | ($s | split(" ") | map(tonumber)) as $slow |
		([$p[] | select(.source_port as $x | $slow | index($x)) | .metrics.rtt.percentiles."50"] | min) >
		4 * ([$p[] | select(.source_port as $x | $slow | index($x) | not) | .metrics.rtt.percentiles."50"] | max)' \
		"$WORK/e1.json" >/dev/null
	check_err $? "the loaded paths' p50s are not several times the others': $(jq -c '[.targets[0].paths[] | [.source_port, .metrics.rtt.percentiles."50"]]' "$WORK/e1.json")"
	log_test "fleet: ECMP, the paths on the loaded link named by source port"
}

# 1,000 targets, 10 pings a second each, for 20 s: 1,000 addresses of
# one reflector (on its interface, routed to from the emitter: one
# neighbour entry), which answers each from its own. At most 0.1% lost
# (--timeout 1 s: a pong the machine's load holds back is late, not
# lost), no stamp missing and a log row a ping (every target's stamps
# kept), every target measured, the peak RSS (time -v) at most 512 MiB.
fleet_scale() {
	local n=1000 sent lost miss rows rss cpu low
	setup_pair || skip_test "cannot create namespaces and veth"
	for ((i = 0; i < n; i++)); do
		echo "addr add 10.99.$((i / 250)).$((i % 250 + 1))/32 dev $VETH_B"
		echo "10.99.$((i / 250)).$((i % 250 + 1))" >>"$WORK/targets"
	done | ip -n "$NS_B" -batch -
	ip -n "$NS_A" route add 10.99.0.0/16 via "$IP_B"
	ns_bg "$NS_B" taskset -c 1 "$RANT" -i "$VETH_B" --block --max-sessions 4096 \
		--max-sessions-per-address 4096 -j "$WORK/r.json" >"$WORK/r.txt" 2>&1
	wait_udp_port "$NS_B" "$PORT"
	ip netns exec "$NS_A" taskset -c 0 /usr/bin/time -v -o "$WORK/time.txt" \
		"$RANT" -i "$VETH_A" --targets "$WORK/targets" -d 20 --block --timeout 1000000 \
		-j "$WORK/e1.json" \
		-l "$WORK/e1.log" >"$WORK/e1.txt" 2>&1
	check_err $? "the fleet's emitter failed: $(tail -3 "$WORK/e1.txt")"
	sent=$(jqv "$WORK/e1.json" .counts.sent)
	lost=$(jqv "$WORK/e1.json" .counts.lost)
	miss=$(jq '.counts.missing_tx_ts + .counts.missing_rx_ts' "$WORK/e1.json")
	rows=$(($(wc -l <"$WORK/e1.log") - 2))
	rss=$(awk -F': ' '/Maximum resident/ { print $2 }' "$WORK/time.txt")
	cpu=$(awk -F': ' '/Percent of CPU/ { print $2 }' "$WORK/time.txt")
	# a loaded machine may hold the loop back: its slots are missed (counted)
	low=$(jq '[.targets[] | select(.counts.sent < 150)] | length' "$WORK/e1.json")
	echo "$n targets: sent $sent (slots missed $(jqv "$WORK/e1.json" .counts.missed_slots)), lost $lost, stamps missing $miss, log rows $rows, targets under 150 pings $low; peak RSS $rss KiB, CPU $cpu"
	[ "$(jq '.targets | length' "$WORK/e1.json")" = "$n" ] && [ "$low" = 0 ] &&
		[ "$sent" -ge $((n * 160)) ]
	check_err $? "every target measured at 10/s: $sent sent, $low targets under 150"
	[ $((lost * 1000)) -le "$sent" ]
	check_err $? "lost $lost of $sent: more than 0.1%"
	[ "$miss" = 0 ] && [ "$rows" = "$sent" ]
	check_err $? "stamps missing $miss, log rows $rows of $sent pings"
	[ "${rss:-999999999}" -le $((512 * 1024)) ]
	check_err $? "peak RSS $rss KiB, above 512 MiB"
	[ "$(jq '[.fleet.sockets[].drops] | add' "$WORK/e1.json")" = 0 ] &&
		[ "$(jqv "$WORK/e1.json" .counts.socket_drops)" = 0 ]
	check_err $? "datagrams dropped at rant's sockets: $(jq -c .fleet.sockets "$WORK/e1.json")"
	log_test "fleet: 1,000 targets at 10/s: ${lost} lost, stamps kept, RSS $((rss / 1024)) MiB"
}

# 10,000 addresses over 3 reflectors (a reflector's 4,096 sessions at
# most), 2.5 pings a second each (--interval 400 ms: a table of 12,500
# is 31,250 pongs a second, two sockets on the port): every target
# measured, 0.1% lost at most, no datagram dropped at either socket.
# bench/targets.sh has the 10,000 at 10 a second.
fleet_scale_10k() {
	local n=10000 a sent lost drops miss share
	setup_pair || skip_test "cannot create namespaces and veth"
	for ((i = 0; i < n; i++)); do
		a="10.99.$((i / 250)).$((i % 250 + 1))"
		echo "addr add $a/32 dev $VETH_B"
		echo "$a $((4001 + i % 3))" >>"$WORK/targets"
	done | ip -n "$NS_B" -batch -
	ip -n "$NS_A" route add 10.99.0.0/16 via "$IP_B"
	for p in 4001 4002 4003; do
		ns_bg "$NS_B" taskset -c 1 "$RANT" -i "$VETH_B" --port "$p" --block \
			--max-sessions 4096 --max-sessions-per-address 4096 >"$WORK/r$p.txt" 2>&1
	done
	for p in 4001 4002 4003; do
		wait_udp_port "$NS_B" "$p" || check_err 1 "reflector on port $p did not bind"
	done
	emit --targets "$WORK/targets" --interval 400000 -d 10 --block --timeout 1000000 \
		-j "$WORK/e1.json" >"$WORK/e1.txt" 2>&1
	check_err $? "the fleet's emitter failed: $(tail -3 "$WORK/e1.txt")"
	sent=$(jqv "$WORK/e1.json" .counts.sent)
	lost=$(jqv "$WORK/e1.json" .counts.lost)
	drops=$(jq -c '[.fleet.sockets[].drops]' "$WORK/e1.json")
	share=$(jqv "$WORK/e1.json" .fleet.sockets_per_port)
	miss=$(jqv "$WORK/e1.json" .counts.missed_slots)
	echo "$n targets: sent $sent (slots missed $miss), lost $lost, drops at the $share sockets $drops"
	[ "$(jq '.targets | length' "$WORK/e1.json")" = "$n" ] && [ "$share" = 2 ] &&
		[ "$sent" -ge "$n" ]
	check_err $? "every target measured over 2 sockets: $sent sent, $share sockets"
	[ "$drops" = "[0,0]" ] && [ "$(jqv "$WORK/e1.json" .counts.socket_drops)" = 0 ]
	check_err $? "datagrams dropped at rant's sockets: $drops"
	[ $((lost * 1000)) -le "$sent" ]
	check_err $? "lost $lost of $sent: more than 0.1%"
	log_test "fleet: 10,000 targets over 2 sockets of a port: $lost lost, $drops dropped"
}

# A reflector started on an interface of one address of each family,
# serving; then one more of each is added: the reflector says it will
# answer each from its own, and a fleet of the four addresses measures
# every one, no pong foreign; a single emitter of the new IPv4 address
# measures too. On 3cdad9f the kernel sent the pongs for 10.77.0.3 from
# 10.77.0.2 and, IPv6 preferring the newest, those for fd77::2 from
# fd77::3: both targets measured nothing (60 pongs foreign), and the
# single emitter said "no pong ... is rant reflecting there?".
fleet_addr_added() {
	local got
	setup_pair || skip_test "cannot create namespaces and veth"
	start_reflector r1 --block -j "$WORK/r.json" || return
	grep -q '^replies: from the interface.s one address (one added later is seen' "$WORK/r1.txt"
	check_err $? "the start-up line: $(grep '^replies' "$WORK/r1.txt")"
	emit -a "$IP_B" -c 20 -w 5 >"$WORK/e0.txt" 2>&1
	check_err $? "the emitter before the addresses: $(tail -1 "$WORK/e0.txt")"
	ip -n "$NS_B" addr add 10.77.0.3/24 dev "$VETH_B"
	ip -n "$NS_B" addr add fd77::3/64 dev "$VETH_B" nodad
	wait_for_line "$WORK/r1.txt" "^rant: $VETH_B has another address now: each pong leaves from the address its ping came to from here on\$" 10
	check_err $? "the reflector did not say it saw the address: $(tail -2 "$WORK/r1.txt")"
	printf '%s\n' 10.77.0.2 10.77.0.3 fd77::2 fd77::3 >"$WORK/targets"
	emit --targets "$WORK/targets" -d 3 -j "$WORK/e1.json" >"$WORK/e1.txt" 2>&1
	check_err $? "the fleet's emitter failed: $(tail -3 "$WORK/e1.txt")"
	got=$(jq -c '[.targets[] | select(.counts.received == 0 or .counts.received != .counts.sent) |
		[.address, .counts.sent, .counts.received]], .counts.foreign' "$WORK/e1.json" | tr '\n' ' ')
	[ "$got" = "[] 0 " ] && [ "$(jq '.targets | length' "$WORK/e1.json")" = 4 ]
	check_err $? "targets not measured in full, and the pongs foreign: $got"
	emit -a 10.77.0.3 -c 20 -w 5 -j "$WORK/e2.json" >"$WORK/e2.txt" 2>&1
	check_err $? "a single emitter of 10.77.0.3: $(tail -1 "$WORK/e2.txt")"
	stop_reflector
	check_err "$REFL_RC" "reflector exit $REFL_RC: $(tail -3 "$WORK/r1.txt")"
	log_test "addresses added to a running reflector's interface: each answered from itself, 4 targets measured in full"
}


# udp_drops NS PORT: the kernel's drops at the IPv4 UDP socket on PORT in
# NS (/proc/net/udp's last column).
udp_drops() {
	ip netns exec "$1" awk -v p="$(printf ':%04X' "$2")" \
		'substr($2, length($2) - 4) == p { print $NF }' /proc/net/udp
}

# --paths 2 (two sockets, a port each) with --rcvbuf 4096; a flood of
# 20,000 datagrams from a port of no target at the first path's socket.
# The drops of each socket in the JSON are /proc/net/udp's, read once
# the flood has ended, and the metrics' are the same; the flooded
# socket dropped some, and those it dropped and those rant read
# (foreign) are the 20,000 sent and the pongs of its path dropped with
# them (its pings lost); the other socket dropped none.
fleet_socket_drops() {
	local ports p0 p1 k0 k1 j0 j1 foreign m0 lost0 flood=20000
	setup_pair || skip_test "cannot create namespaces and veth"
	fleet_reflectors 4001
	printf '%s 4001\n' "$IP_B" >"$WORK/targets"
	fleet_bg e1 --targets "$WORK/targets" --paths 2 --rcvbuf 4096 -d 0 --interval 100000 \
		-j "$WORK/e1.json" --metrics "$WORK/e1.prom"
	wait_fleet "$WORK/e1.txt"
	grep -q '^receive: 1 socket a source port, a receive buffer of 4 KiB each (--rcvbuf)$' \
		"$WORK/e1.txt"
	check_err $? "the start-up's receive line: $(grep '^receive' "$WORK/e1.txt")"
	ports=$(sed -n 's/^fleet: 2 paths a target (source ports \([0-9]*\) \([0-9]*\)).*/\1 \2/p' \
		"$WORK/e1.txt")
	read -r p0 p1 <<<"$ports"
	[ -n "$p1" ] || { check_err 1 "no source ports: $(head -3 "$WORK/e1.txt")"; return; }
	sleep 1		# warm-up over: a pong dropped from here on is a ping lost
	ip netns exec "$NS_B" "$PYTHON" -c '
import socket, sys

s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(int(sys.argv[3])):
    s.sendto(b"x" * 72, (sys.argv[1], int(sys.argv[2])))' "$IP_A" "$p0" "$flood"
	sleep 1		# the flood read or dropped; the pongs go on, unflooded
	k0=$(udp_drops "$NS_A" "$p0")
	k1=$(udp_drops "$NS_A" "$p1")
	kill -INT "$EM"
	wait "$EM"
	check_err $? "the fleet's emitter failed: $(tail -3 "$WORK/e1.txt")"
	j0=$(jq --argjson p "$p0" '[.fleet.sockets[] | select(.port == $p) | .drops] | add' "$WORK/e1.json")
	j1=$(jq --argjson p "$p1" '[.fleet.sockets[] | select(.port == $p) | .drops] | add' "$WORK/e1.json")
	foreign=$(jqv "$WORK/e1.json" .counts.foreign)
	lost0=$(jq --argjson p "$p0" '[.targets[].paths[] | select(.source_port == $p) |
		.counts.lost] | add' "$WORK/e1.json")
	m0=$(awk -v p="port=\"$p0\"" 'index($0, "rant_fleet_socket_drops_total{") == 1 &&
		index($0, p) { print $NF }' "$WORK/e1.prom")
	echo "flood $flood at port $p0: kernel drops $k0 (port $p1: $k1), rant's $j0 ($j1), metrics $m0, foreign $foreign, pings lost on the port $lost0"
	[ "$j0" = "$k0" ] && [ "$j1" = "$k1" ] && [ "$m0" = "$k0" ]
	check_err $? "rant's drops $j0 and $j1 (metrics $m0), the kernel's $k0 and $k1"
	[ "${k0:-0}" -gt 0 ] && [ "$k1" = 0 ]
	check_err $? "the flooded socket dropped $k0, the other $k1"
	[ $((j0 + foreign)) = $((flood + lost0)) ]
	check_err $? "dropped $j0 and read $foreign of the $flood sent and $lost0 pongs"
	grep -Eq "^sockets: 1 a source port, .* port $p0: $k0, port $p1: 0\$" "$WORK/e1.txt"
	check_err $? "the summary's sockets line: $(grep '^sockets' "$WORK/e1.txt")"
	log_test "fleet: a socket's drops are the kernel's ($k0 of $flood flooded at --rcvbuf 4096)"
}

# Without CAP_NET_ADMIN (setpriv), --rcvbuf twice net.core.rmem_max:
# SO_RCVBUFFORCE is refused and SO_RCVBUF capped; the start-up says the
# buffer the kernel gave (rmem_max) and warns with the sysctl that
# would raise it, and the JSON has the warning and both sizes.
fleet_rcvbuf_capped() {
	local max ask got
	require_cmd setpriv
	max=$(cat /proc/sys/net/core/rmem_max)
	[ "$max" -le $((256 * 1024 * 1024)) ] || skip_test "net.core.rmem_max is $max: above any --rcvbuf"
	ask=$((2 * max))
	setup_pair || skip_test "cannot create namespaces and veth"
	fleet_reflectors 4001
	printf '%s 4001\n' "$IP_B" >"$WORK/targets"
	ip netns exec "$NS_A" setpriv --bounding-set=-net_admin --inh-caps=-net_admin "$RANT" \
		-i "$VETH_A" --targets "$WORK/targets" --rcvbuf "$ask" -d 1 --block \
		-j "$WORK/e1.json" >"$WORK/e1.txt" 2>&1
	check_err $? "the fleet's emitter failed: $(tail -3 "$WORK/e1.txt")"
	grep -q "^receive: 1 socket a source port, a receive buffer of $((max / 1024)) KiB each (--rcvbuf)\$" \
		"$WORK/e1.txt"
	check_err $? "the receive line: $(grep '^receive' "$WORK/e1.txt")"
	grep -q "^warning: the fleet's sockets have a receive buffer of $((max / 1024)) KiB, not the $((ask / 1024)) KiB asked: net.core.rmem_max caps it (sysctl -w net.core.rmem_max=$ask);" \
		"$WORK/e1.txt"
	check_err $? "the warning: $(grep '^warning' "$WORK/e1.txt")"
	got=$(jq -r '[.fleet.rcvbuf, .fleet.rcvbuf_asked, ([.warnings[].code] | index("fleet_rcvbuf_capped") != null)] | @tsv' "$WORK/e1.json")
	[ "$got" = "$max	$ask	true" ]
	check_err $? "the JSON's rcvbuf, rcvbuf_asked, warning: $got"
	log_test "fleet: a buffer net.core.rmem_max caps is said, with the sysctl"
}

tests_run
