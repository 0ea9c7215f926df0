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
# under 512 MiB.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="fleet_targets fleet_reload fleet_badfile fleet_dscp fleet_ecmp fleet_scale"

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

# Bad lines: each named with its number and fix, exit 1, nothing sent.
fleet_badfile() {
	local rc
	setup_pair || skip_test "cannot create namespaces and veth"
	printf '%s\n%s 70000\n%s dscp=64\n10.77.0.300\n%s\n' "$IP_B" "$IP_B" "$IP_B" "$IP_B" \
		>"$WORK/targets"
	rc=0
	emit --targets "$WORK/targets" -d 1 >"$WORK/e1.txt" 2>&1 || rc=$?
	cat "$WORK/e1.txt"
	[ "$rc" = 1 ]
	check_err $? "exit $rc for a bad file, 1 expected"
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

tests_run
