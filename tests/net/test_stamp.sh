#!/usr/bin/env bash
# shellcheck disable=SC2034  # ALL_TESTS: read by lib.sh
# --stamp (RFC 8762, RFC 8972) against a peer no one here wrote:
# stamp-suite (make stamp-suite builds it into $STAMP_SUITE_ROOT). rant's
# Session-Sender against stamp-suite's Session-Reflector and stamp-suite's
# sender against rant's reflector, each open and authenticated, stateless
# and stateful, NTP and PTP timestamps, with TLVs and without: sequence
# numbers, the SSID, the TTL, the sizes, T1 <= T2 <= T3 <= T4 on one
# machine, and the two tools' round trips over the same path. Then hostile
# STAMP input at rant's reflector (no reply, counted, no crash) and
# --pcap as tshark's TWAMP-Test dissector reads it.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=stamplib.sh
. "$(dirname "$0")/stamplib.sh"

ALL_TESTS="stamp_sender_interop stamp_reflector_interop stamp_rtt_agree stamp_hostile
	stamp_pcap_tshark stamp_peer_report stamp_t3_reply stamp_loop stamp_loop_ports
	stamp_loop_padded stamp_loop_v6 stamp_loop_stateful stamp_loop_echo
	stamp_max_rate"

require_root
require_cmd jq ss
require_rant

# log_order FILE: every transaction of rant's log has T1 <= T2 <= T4, and
# T2 <= T3 <= T4 where T3 is there; prints the rows and those with a T3.
# The reflector's columns say they came from the STAMP peer: T2_PEER_SW
# (its Timestamp Information said SW local) or T2_PEER (it said nothing).
log_order() {
	awk '/^SEQ / { for (i = 1; i <= NF; i++) col[$i] = i
		       p2 = col["T2_PEER_SW"] ? col["T2_PEER_SW"] : col["T2_PEER"]
		       p3 = col["T3_PEER_SW"] ? col["T3_PEER_SW"] : col["T3_PEER"]
		       if (!p2 || !p3 || col["T2_KN"] || col["T3_KN"]) { nopeer = 1; exit 1 }
		       next }
	     !col["SEQ"] || /^-/ || NF < 4 { next }
	     {
		rows++
		t1 = $col["T1_KN"]; t2 = $(p2); t3 = $(p3); t4 = $col["T4_KN"]
		if (t2 == "-" || t1 > t2 || t2 > t4) bad++
		if (t3 != "-") { t3n++; if (t2 > t3 || t3 > t4) bad++ }
		if (prev != "" && $col["SEQ"] != prev + 1) gaps++
		prev = $col["SEQ"]
	     }
	     END { if (nopeer) { print "no T2_PEER/T3_PEER columns"; exit 1 }
		   printf "%d %d %d %d\n", rows, t3n, bad, gaps; exit bad || gaps || !rows }' "$1"
}

# each_mode FN: FN AUTH STATEFUL TS in 4 of the 8 modes (open or
# authenticated, stateless or stateful, NTP or PTP), until one fails: a
# half of the 2x2x2 in which each two of the three choices meet in all
# four of their combinations (an orthogonal array), so a fault of one
# choice, or of two together, still shows.
each_mode() {
	local mode
	for mode in "0 0 ntp" "0 1 ptp" "1 0 ptp" "1 1 ntp"; do
		# shellcheck disable=SC2086  # the three words of a mode
		"$1" $mode || return 1
	done
}

# One mode of stamp_sender_interop ($n, $w and $order are its locals).
sender_mode() {
	local auth=$1 stf=$2 ts=$3 tag="auth=$1 stateful=$2 $3" size ssid key=()
	size=$((stf ? (auth ? 200 : 72) : (auth ? 112 : 44)))
	ssid=$((1000 + auth * 4 + stf * 2))
	[ "$auth" = 1 ] && key=(--key "$WORK/key")
	suite_reflector s "$auth" "$stf" "$ts" || return 1
	emit -a "$IP_B" --stamp --stamp-ts "$ts" --ssid $ssid -m $size --block \
		--timeout 1000000 -c "$n" -w "$w" -l "$WORK/l.txt" -j "$WORK/e.json" \
		"${key[@]}" >"$WORK/e.txt" 2>&1
	check_err $? "$tag: emitter failed: $(tail -3 "$WORK/e.txt")"
	kill -INT "$SREFL"
	wait "$SREFL"
	# rant takes a pong only if it is as long as its ping, of its SSID, with a
	# sender's seq it sent: received counts the replies that were
	[ "$(jq -c '[.counts.received, .counts.invalid, .counts.unauthenticated]' \
		"$WORK/e.json")" = "[$n,0,0]" ]
	check_err $? "$tag: $(grep '^sent' "$WORK/e.txt")"
	grep -q "SSID=$ssid .* rx: $((n + w)), tx: $((n + w))" "$WORK/s.txt"
	check_err $? "$tag: stamp-suite's session: $(grep SSID "$WORK/s.txt")"
	order=$(log_order "$WORK/l.txt")
	check_err $? "$tag: log rows, with T3, out of order, seq gaps: $order"
	# a stateful reflector's Follow-Up Telemetry brings T3 (it has none for
	# the last reply, and the first follows a warm-up ping)
	[ "$stf" = 0 ] || [ "$(echo "$order" | cut -d' ' -f2)" -ge $((n - 1)) ]
	check_err $? "$tag: T3 from the follow-up in too few rows: $order"
}

# rant's sender against stamp-suite's reflector: open/authenticated,
# stateless/stateful and NTP/PTP, each two of them in all four
# combinations (each_mode). Stateless runs send
# the base packet only, stateful ones TLVs (Timestamp Information,
# Follow-Up Telemetry, and the HMAC TLV when authenticated).
stamp_sender_interop() {
	local n=100 w=5 order
	pair
	need_suite
	make_key
	each_mode sender_mode
	log_test "rant's STAMP sender vs stamp-suite's: 4 modes, seq, SSID, sizes, T1<=T2<=T3<=T4 ($order)"
}

# check_suite_lines ERR N: the per-packet lines: seq 0..N-1 once each, the
# TTL rant's reflector copied (stamp-suite sends 255), T2 <= T3 (raw
# 64-bit stamps of one format: seconds, then the fraction or ns).
check_suite_lines() {
	sed 's/\x1b\[[0-9;]*m//g' "$1" | grep '^seq=' |
		awk -v n="$2" '{
			for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
			if (seen[f["seq"]]++ || f["seq"] >= n) bad++
			if (f["ttl"] != 255) ttl++
			r = f["reflector_recv_ts"]; s = f["reflector_send_ts"]
			if (length(r) > length(s) || (length(r) == length(s) && r > s)) order++
			lines++
		     }
		     END { printf "lines %d, seq bad %d, ttl not 255 %d, T2 > T3 %d\n", lines, bad, ttl, order
			   exit lines != n || bad || ttl || order }'
}

# suite_missed JSON ERR: what stamp-suite's sender counted, and the seqs
# of its per-packet lines that are missing: for a message.
suite_missed() {
	jq -jc '{sent: .packets_sent, received: .packets_received, lost: .packets_lost,
		late: .measurements.late_replies, unknown: .measurements.unknown_replies,
		duplicate: .measurements.duplicate_replies, max_rtt_ms: .max_rtt_ms}' "$1"
	sed 's/\x1b\[[0-9;]*m//g' "$2" | awk -F'[= ]' -v n="$n" '
		/^seq=/ { seen[$2] = 1 }
		END { for (i = 0; i < n; i++) if (!(i in seen)) m = m " " i
		      printf ", no line for seq%s", m == "" ? " (none)" : m }'
}

# One mode of stamp_reflector_interop ($n is its local): its files are
# $WORK/r-MODE.txt (rant), s-MODE.json and s-MODE.err (stamp-suite).
reflector_mode() {
	local auth=$1 stf=$2 ts=$3 tag="auth=$1 stateful=$2 $3" m=$1$2$3 out ssid bad opt=()
	local r=$WORK/r-$m.txt j=$WORK/s-$m.json e=$WORK/s-$m.err
	ssid=$((2000 + auth * 4 + stf * 2))
	[ "$auth" = 1 ] && opt=(--key "$WORK/key")
	[ "$stf" = 1 ] && opt+=(--stamp-stateful)
	rant_reflector "r-$m" --stamp-ts "$ts" "${opt[@]}" || return 1
	suite_sender "s-$m" "$auth" "$ts" "$stf" --count "$n" --send-delay 5ms --ssid $ssid
	check_err $? "$tag: stamp-suite's sender failed: $(tail -3 "$e")"
	stop_reflector
	check_err "$REFL_RC" "$tag: reflector exit $REFL_RC: $(tail -3 "$r")"
	# stamp-suite's counts, in one jq (each costs 40 ms of CPU; a message
	# is made only when its check failed): the names of the checks that
	# failed. Every probe answered; one machine,
	# one clock: T2 - T1 and T4 - T3 not negative; no TLV rejected or
	# flagged; a stateful reflector's follow-up names each previous reply;
	# authenticated and stateful, every HMAC TLV verified.
	bad=$(jq -r --argjson n "$n" --argjson stf "$stf" --argjson auth "$auth" '
		.measurements as $m | $m.tlv_validation as $v | [
		if [.packets_sent, .packets_received] != [$n, $n] then "count" else empty end,
		if .owd.forward_min_ms >= 0 and .owd.reverse_min_ms >= 0 then empty else "owd" end,
		if $v.rejected_replies == 0 and
		   $v.flags.unrecognized + $v.flags.malformed + $v.flags.integrity_failed == 0
		then empty else "tlv" end,
		if $stf == 1 and $m.follow_up.matched != $n - 1 then "follow_up" else empty end,
		if $auth + $stf == 2 and $v.hmac.verified != $n then "hmac" else empty end
		] | join(" ")' "$j") || check_err 1 "$tag: stamp-suite's JSON: $(head -c 300 "$j")"
	[[ " $bad " != *" count "* ]] ||
		check_err 1 "$tag: stamp-suite: $(suite_missed "$j" "$e"); rant: $(grep -E '^sent|^reflect|session ' "$r" | tr -s ' \n' ' ')"
	out=$(check_suite_lines "$e" "$n") || check_err 1 "$tag: $out"
	[[ " $bad " != *" owd "* ]] ||
		check_err 1 "$tag: one-way delays: $(jq -c '[.owd.forward_min_ms, .owd.reverse_min_ms]' "$j")"
	[[ " $bad " != *" tlv "* ]] ||
		check_err 1 "$tag: TLVs: $(jq -c .measurements.tlv_validation "$j")"
	[[ " $bad " != *" follow_up "* ]] ||
		check_err 1 "$tag: follow-ups: $(jq -c '.measurements.follow_up | del(.clock_quality)' "$j"), of $((n - 1))"
	[[ " $bad " != *" hmac "* ]] ||
		check_err 1 "$tag: HMAC TLVs verified: $(jq -c .measurements.tlv_validation.hmac "$j")"
	grep -q "session $(printf %08x $ssid): received $n," "$r" ||
		check_err 1 "$tag: rant's session: $(grep ' session ' "$r")"
}

# stamp-suite's sender against rant's reflector, in the modes of each_mode.
stamp_reflector_interop() {
	local n=50
	pair
	need_suite
	make_key
	each_mode reflector_mode
	log_test "stamp-suite's sender vs rant's STAMP reflector: 4 modes, seq, TTL, TLVs, order"
}

# suite_rtt_us, rant_rtt_us JSON: stamp-suite's and rant's user-space
# round trips, µs: the minimum, then the median.
suite_rtt_us() { jq -r '"\(.min_rtt_ms * 1000 | floor) \(.median_rtt_ms * 1000 | floor)"' "$1"; }
rant_rtt_us() {
	jq -r '.metrics.rtt_sw | "\(.min / 1000 | floor) \(.percentiles["50"] / 1000 | floor)"' "$1"
}

# Both senders against one reflector (rant's, then stamp-suite's), at
# the same time and paced alike: their round trips agree. Both clock a
# round trip from before the send call to after the receive (rant's
# rtt_sw, stamp-suite's rtt), over the same veth and reflector. Run one
# after the other, their minimums differed by up to 100 us with
# stamp-suite's reflector (19 against 46-160 us on the idle 2-CPU VM):
# that reflector's wake-up from idle varies from run to run, and each
# sender's minimum caught another run's. Run together, both see the same
# reflector in the same seconds. What differs is each sender's own
# wake-up (a blocking recvmsg, tokio's reactor); under load tokio's is
# late by milliseconds (medians 1453 vs 204 us beside other tests), so
# the minimums are compared: the round trip without a late wake-up. A
# pong matched to the wrong ping, or a reflector that held replies, is
# 5 ms off in every round trip, the minimum too: allowed is 60 us plus
# half the smaller minimum.
stamp_rtt_agree() {
	local n=300 refl a am b bm lim out="" sender
	pair
	need_suite
	for refl in rant suite; do
		if [ $refl = rant ]; then
			rant_reflector r || return
		else
			suite_reflector s 0 0 ntp || return
		fi
		suite_sender s 0 ntp 0 --count $n --send-delay 5ms --ssid 77 &
		sender=$!
		emit -a "$IP_B" --stamp --block -s -c $n -w 5 --interval 5000 --timeout 1000000 \
			-j "$WORK/e.json" >"$WORK/e.txt" 2>&1
		check_err $? "emitter failed: $(tail -3 "$WORK/e.txt")"
		wait "$sender"
		check_err $? "stamp-suite's sender failed: $(tail -3 "$WORK/s.err")"
		if [ $refl = rant ]; then stop_reflector; else kill -INT "$SREFL"; fi
		read -r a am < <(suite_rtt_us "$WORK/s.json")
		read -r b bm < <(rant_rtt_us "$WORK/e.json")
		lim=$((60 + (a < b ? a : b) / 2))
		out+="$refl reflector: min stamp-suite $a us, rant $b us (limit $lim; medians $am, $bm); "
		[ "$a" -gt 0 ] && [ "$b" -gt 0 ] && [ $((a > b ? a - b : b - a)) -le $lim ]
		check_err $? "minimum round trips differ: $out"
	done
	log_test "RTTs agree: $out"
}

# Hostile STAMP input at rant's reflector, open and authenticated: what
# cannot be answered gets no reply and is counted, what can is answered
# exactly as long, bad TLVs flagged, and the reflector lives on.
stamp_hostile() {
	local auth inv una k probes want
	pair
	make_key
	for auth in 0 1; do
		k=()
		[ "$auth" = 1 ] && k=("$WORK/key")
		if [ "$auth" = 1 ]; then
			rant_reflector r --key "${k[0]}" || return
		else
			rant_reflector r || return
		fi
		ip netns exec "$NS_A" "$PYTHON" "$TOP/tests/net/stamp_probe.py" "$IP_B" $STAMP_PORT \
			"${k[@]}" >"$WORK/p.txt"
		check_err $? "stamp_probe.py failed: $(tail -3 "$WORK/p.txt")"
		kill -0 "$REFL"
		check_err $? "auth=$auth: the reflector died: $(tail -3 "$WORK/r.txt")"
		stop_reflector
		check_err "$REFL_RC" "auth=$auth: reflector exit $REFL_RC: $(tail -3 "$WORK/r.txt")"
		inv=$(sed -n 's/^invalid_sent=//p' "$WORK/p.txt")
		una=$(sed -n 's/^unauthenticated_sent=//p' "$WORK/p.txt")
		# no reply to what must not be answered; every other reply as long as
		# the request
		awk '/^(short|empty|open_in_auth|bad_hmac|twamp_short) / && $3 != "reply=none" { bad++ }
		     /^(valid|tlv)/ { split($2, s, "="); split($3, r, "="); if (s[2] != r[2]) bad++ }
		     END { exit bad }' "$WORK/p.txt"
		check_err $? "auth=$auth: replies: $(cat "$WORK/p.txt")"
		probes=$(grep -c '^[vt].* reply=[0-9]' "$WORK/p.txt")
		# every answer echoes the sender's fields, with the TTL the probe had
		[ "$(grep -c '^fields .* ok$' "$WORK/p.txt")" = "$probes" ]
		check_err $? "auth=$auth: reflected fields: $(grep '^fields' "$WORK/p.txt" | grep -v ' ok$')"
		[ "$auth" = 1 ] || grep -q '^twamp_light sent=41 reply=41 ' "$WORK/p.txt"
		check_err $? "auth=0: TWAMP-Light's 41 octets not answered with 41: $(grep '^twamp' "$WORK/p.txt")"
		# M for a bad Length (with I when authenticated: no HMAC TLV covers
		# it), U for an unknown type, I for all after a bad HMAC TLV
		for want in "tlv_len_past_end .*flags=[46]0$" "tlv_len_bad_type .*flags=[46]0" \
			"tlv_unknown .*flags=80(,00)?$" "tlv_bad_hmac .*flags=20,20$"; do
			[ "$auth" = 0 ] && [ "${want%% *}" = tlv_bad_hmac ] && continue
			grep -Eq "^$want" "$WORK/p.txt"
			check_err $? "auth=$auth: TLV flags, not $want: $(grep '^tlv' "$WORK/p.txt" |
				tr '\n' ' ')"
		done
		grep -Eq "^sent $probes, received $probes, duplicate 0, invalid $inv,( unauthenticated $una,)? " \
			"$WORK/r.txt"
		check_err $? "auth=$auth: counted: $(grep '^sent' "$WORK/r.txt"), probes $probes invalid $inv unauthenticated $una"
	done
	log_test "hostile STAMP input: short, empty, bad HMAC, short TWAMP-Light unanswered and counted; bad TLVs flagged; TWAMP-Light answered; fields and TTL echoed"
}

# udp_out: UDP datagrams both namespaces have sent over IPv4 and IPv6
# (their reflectors' answers; the veth's IPv6 neighbour traffic is not
# UDP).
udp_out() {
	local ns n=0
	for ns in "$NS_A" "$NS_B"; do
		n=$((n + $(ip netns exec "$ns" awk '/^Udp:/ && $2 ~ /^[0-9]+$/ { print $5 }' /proc/net/snmp)))
		n=$((n + $(ip netns exec "$ns" awk '$1 == "Udp6OutDatagrams" { print $2 }' /proc/net/snmp6)))
	done
	echo "$n"
}

# loop_run PORT_A PORT_B ARGS...: a STAMP reflector on each side (A's on
# PORT_A, B's on PORT_B, each with ARGS), one datagram forged from A's
# reflector to B's (scapy; $LOOP_SIZE bytes, default 44, over IPv6 with
# LOOP_V6=1), then 2 s: $LOOPED, the packets the veth carried meanwhile
# (the UDP datagrams the two sent, and the forged one); the reflectors'
# JSON in $WORK/la.json, lb.json.
loop_run() {
	local pa=$1 pb=$2 before pa_pid src=$IP_A dst=$IP_B
	shift 2
	[ "${LOOP_V6:-0}" = 1 ] && src=$IP6_A dst=$IP6_B
	ip netns exec "$NS_A" taskset -c 0 "$RANT" -i "$VETH_A" --stamp --block --port "$pa" \
		-j "$WORK/la.json" "$@" >"$WORK/la.txt" 2>&1 &
	pa_pid=$!
	defer kill -9 "$pa_pid"
	ip netns exec "$NS_B" taskset -c 1 "$RANT" -i "$VETH_B" --stamp --block --port "$pb" \
		-j "$WORK/lb.json" "$@" >"$WORK/lb.txt" 2>&1 &
	REFL=$!
	defer kill -9 "$REFL"
	wait_udp_port "$NS_A" "$pa" && wait_udp_port "$NS_B" "$pb" ||
		{ check_err 1 "a reflector did not bind: $(tail -2 "$WORK/la.txt" "$WORK/lb.txt")"; return 1; }
	before=$(udp_out)
	ip netns exec "$NS_A" "$PYTHON" "$TOP/tests/net/spoof.py" "$src" "$pa" "$dst" "$pb" \
		"${LOOP_SIZE:-44}" >"$WORK/spoof.txt" 2>&1
	check_err $? "spoof.py: $(tail -2 "$WORK/spoof.txt")" || return 1
	sleep 2	# the stimulus: how long the loop may run
	LOOPED=$(($(udp_out) - before + 1))
	kill -INT "$pa_pid" "$REFL"
	wait "$pa_pid" "$REFL"
}

# One datagram forged from one STAMP reflector's address and port to
# another's (both on 862, as routers run them) must not set them
# answering each other: B drops it unanswered (counts.looped), and the
# forged packet is the only one (the issue's bound: 20 in 2 s). Before
# the fix: about 250,000.
stamp_loop() {
	require_cmd jq
	"$PYTHON" -c 'import scapy.all' 2>/dev/null || skip_test "no scapy ($PYTHON -c 'import scapy.all')"
	pair
	loop_run $STAMP_PORT $STAMP_PORT || return
	[ "$LOOPED" -le 20 ]
	check_err $? "the veth carried $LOOPED packets in 2 s after one forged datagram (want 20 at most)"
	[ "$(jqv "$WORK/lb.json" .counts.looped)" = 1 ]
	check_err $? "B's counts.looped $(jqv "$WORK/lb.json" .counts.looped), want 1"
	grep -q "from a reflector's port 1" "$WORK/lb.txt"
	check_err $? "B's summary does not say it: $(grep '^sent' "$WORK/lb.txt")"
	log_test "one datagram forged between two STAMP reflectors on 862: $LOOPED packets in 2 s, dropped and counted as looped"
}

# loop_ended WHAT: after loop_run, the loop ended within the issue's
# bound (20 packets in 2 s) by the sequence numbers' rule (seqrep.h):
# counts.repeated on one side or both, and said in a summary.
loop_ended() {
	local rep
	rep=$(($(jqv "$WORK/la.json" .counts.repeated) + $(jqv "$WORK/lb.json" .counts.repeated)))
	[ "$LOOPED" -le 20 ]
	check_err $? "$1: the veth carried $LOOPED packets in 2 s after one forged datagram (want 20 at most)"
	[ "$rep" -ge 1 ]
	check_err $? "$1: counts.repeated A $(jqv "$WORK/la.json" .counts.repeated) B $(jqv "$WORK/lb.json" .counts.repeated), want 1 or more"
	grep -q "repeated (a loop's) [1-9]" "$WORK/la.txt" "$WORK/lb.txt"
	check_err $? "$1: no summary says it: $(grep -h '^sent' "$WORK/la.txt" "$WORK/lb.txt")"
	log_test "$1: the forged loop ended after $LOOPED packets, $rep repeated"
}

# Reflectors on other ports (A 8620, B 8621: neither a reflector's port to
# the other), default options: the forged datagram's sequence number comes
# back, and a reflector answers a number SEQREP_MAX times at most. Before:
# 31,995 datagrams in 2.2 s.
stamp_loop_ports() {
	"$PYTHON" -c 'import scapy.all' 2>/dev/null || skip_test "no scapy ($PYTHON -c 'import scapy.all')"
	pair
	loop_run 8620 8621 || return
	loop_ended "STAMP reflectors on 8620 and 8621"
}

# The same with a padded 128-byte request (as TWAMP-Light senders pad).
stamp_loop_padded() {
	"$PYTHON" -c 'import scapy.all' 2>/dev/null || skip_test "no scapy ($PYTHON -c 'import scapy.all')"
	pair
	LOOP_SIZE=128 loop_run 8620 8621 || return
	loop_ended "STAMP reflectors on 8620 and 8621, 128 bytes"
}

# The same over IPv6.
stamp_loop_v6() {
	"$PYTHON" -c 'import scapy.all' 2>/dev/null || skip_test "no scapy ($PYTHON -c 'import scapy.all')"
	pair
	LOOP_V6=1 loop_run 8620 8621 || return
	loop_ended "STAMP reflectors on 8620 and 8621 over IPv6"
}

# Both stateful: each reply carries its reflector's own count, so no
# number repeats; a request of a number a reflector chose is its own
# reply come back, and is not answered.
stamp_loop_stateful() {
	"$PYTHON" -c 'import scapy.all' 2>/dev/null || skip_test "no scapy ($PYTHON -c 'import scapy.all')"
	pair
	loop_run 8620 8621 --stamp-stateful || return
	loop_ended "stateful STAMP reflectors on 8620 and 8621"
}

# A reflector beside an RFC 862 echo service (a UDP echo in python on A's
# 8620): one datagram forged from the echo's address to the reflector,
# which answers it to the echo, which sends the answer back. Before:
# 28,229 datagrams until stopped.
stamp_loop_echo() {
	local before rep PORT=8621	# start_reflector waits for $PORT
	"$PYTHON" -c 'import scapy.all' 2>/dev/null || skip_test "no scapy ($PYTHON -c 'import scapy.all')"
	pair
	ns_bg "$NS_A" "$PYTHON" -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("'"$IP_A"'", 8620))
print("echo ready", flush=True)
while True:
    data, peer = s.recvfrom(65536)
    s.sendto(data, peer)' >"$WORK/echo.txt" 2>&1
	wait_udp_port "$NS_A" 8620 || { check_err 1 "the echo did not bind: $(cat "$WORK/echo.txt")"; return; }
	start_reflector lb --stamp --block --port "$PORT" -j "$WORK/lb.json" || return
	before=$(udp_out)
	ip netns exec "$NS_A" "$PYTHON" "$TOP/tests/net/spoof.py" "$IP_A" 8620 "$IP_B" 8621 \
		>"$WORK/spoof.txt" 2>&1
	check_err $? "spoof.py: $(tail -2 "$WORK/spoof.txt")" || return
	sleep 2	# the stimulus: how long the loop may run
	LOOPED=$(($(udp_out) - before + 1))
	stop_reflector
	rep=$(jqv "$WORK/lb.json" .counts.repeated)
	[ "$LOOPED" -le 20 ] && [ "$rep" -ge 1 ]
	check_err $? "beside an echo service: $LOOPED packets in 2 s, repeated $rep (want 20 at most, 1 or more)"
	log_test "a STAMP reflector beside an echo service: the loop ended after $LOOPED packets"
}

# --max-rate 10: an emitter at 1,000 pings a second is answered the
# burst (8) and 10 a second, the rest dropped and counted (the emitter
# waits --timeout for each of those: it runs at about 20 a second).
stamp_max_rate() {
	local lim recv
	pair
	rant_reflector r --max-rate 10 -j "$WORK/r.json" || return
	emit -a "$IP_B" --stamp --block -c 100 -w 2 --interval 1000 -j "$WORK/e.json" \
		>"$WORK/e.txt" 2>&1
	stop_reflector
	lim=$(jqv "$WORK/r.json" .counts.rate_limited)
	recv=$(jqv "$WORK/e.json" .counts.received)
	[ "$lim" -ge 30 ] && [ "$recv" -le $((100 - lim)) ]
	check_err $? "--max-rate 10: $lim rate-limited, the emitter received $recv of 100 (want 30 or more limited, the rest at most answered)"
	grep -q "above --max-rate $lim" "$WORK/r.txt"
	check_err $? "the summary does not say it: $(grep '^sent' "$WORK/r.txt")"
	log_test "--max-rate 10: $lim of 100 pings at 1,000/s rate-limited, $recv answered"
}

# --pcap with --stamp: tshark's TWAMP-Test dissector reads rant's test
# packets (the sender's sequence numbers, and the reply's echo of them),
# and rant's capture check matches every measured ping and reply.
stamp_pcap_tshark() {
	local n=20 rows
	require_cmd tshark
	pair
	rant_reflector r || return
	emit -a "$IP_B" --stamp --block -c $n -w 2 --timeout 1000000 --pcap "$WORK/e.pcap" \
		-j "$WORK/e.json" >"$WORK/e.txt" 2>&1
	check_err $? "emitter failed: $(tail -3 "$WORK/e.txt")"
	stop_reflector
	HOME=$WORK tshark -r "$WORK/e.pcap" -d udp.port==$STAMP_PORT,twamp.test -T fields \
		-E separator=' ' -e udp.dstport -e twamp.test.seq_number \
		-e twamp.test.sender_seq_number >"$WORK/t.txt" 2>"$WORK/t.err"
	check_err $? "tshark: $(tail -3 "$WORK/t.err")"
	# pings to 862 carry seq 0..n+1 in turn; each reply echoes its ping's
	rows=$(awk -v n=$((n + 2)) '
		$1 == 862 { if ($2 != ping++) bad++ ; next }
		{ if ($3 == "" || $3 != pong++) bad++ }
		END { print ping, pong, bad + 0; exit bad || ping != n || pong != n }' "$WORK/t.txt")
	check_err $? "tshark's pings, replies, mismatches: $rows: $(head -4 "$WORK/t.txt" | tr '\n' '|')"
	# rant's own check reads the capture as the loops read the packets: a
	# reply (no type field in STAMP) by the port it came from
	grep -q "^  tx (T1, ping): $n matched" "$WORK/e.txt" &&
		grep -q "^  rx (T4, pong): $n matched" "$WORK/e.txt"
	check_err $? "--pcap check: $(grep -E '^  (tx|rx) ' "$WORK/e.txt" | tr '\n' '|')"
	log_test "--pcap --stamp: tshark decodes pings and replies in order ($rows); all matched"
}

# peer_json FILE: what the emitter's JSON says of the STAMP peer, one line.
peer_json() {
	jq -c '.stamp_peer | [.timestamp_format, .synchronized, .error_estimate.scale,
		.error_estimate.multiplier, .error_estimate.error_ns, .tlvs_understood,
		.tlvs_unrecognized, .timestamp_information.t2_sync, .timestamp_information.t2_method,
		.changes]' "$1"
}

# The emitter says what the peer reported, in the start-up lines (before
# "measuring:") and the JSON: against stamp-suite's reflector told to
# report a synchronized clock (S), an error of 3 * 2^(10-32) s (716 ns,
# rounded up), PTP timestamps and a PTP sync source; against one that
# ignores TLVs (they come back with U: not understood, so no follow-up
# comes and its T3 is the one its reply carries, of a method not
# reported: response and network are known, and a warning says what T3
# is); and
# against rant's own, whose S and error follow this host's adjtimex.
# -s components no STAMP reflector gives are named unknown.
stamp_peer_report() {
	local n=50 got want sync
	pair
	need_suite
	suite_reflector s 0 1 ptp --clock-synchronized --error-scale 10 --error-multiplier 3 \
		--clock-sync-source ptp || return
	emit -a "$IP_B" --stamp -m 100 --block -c $n -w 2 --timeout 1000000 -s \
		-l "$WORK/l.txt" -j "$WORK/e.json" >"$WORK/e.txt" 2>&1
	check_err $? "emitter failed: $(tail -3 "$WORK/e.txt")"
	kill -INT "$SREFL"
	got=$(peer_json "$WORK/e.json")
	want='["ptp",true,10,3,716,["extra_padding","timestamp_information","class_of_service","direct_measurement","follow_up_telemetry"],[],"ptp","sw_local",0]'
	[ "$got" = "$want" ]
	check_err $? "stamp-suite, synchronized: JSON $got, not $want"
	sed -n '/^stamp peer: /,$p' "$WORK/e.txt" | sed -n 2p | grep -q '^measuring: ' &&
		grep -q '^stamp peer: ptp timestamps, clock synchronized (S set), error 716 ns or less (scale 10, multiplier 3); SSID [0-9]* returned; TTL 64 on arrival; .*understood: extra_padding timestamp_information class_of_service direct_measurement follow_up_telemetry, not (U): none; T2 sw_local (clock: ptp)' \
			"$WORK/e.txt"
	check_err $? "stamp-suite, synchronized: start-up lines: $(grep -A1 '^stamp peer' "$WORK/e.txt")"
	head -1 "$WORK/l.txt" | grep -q ' T2_PEER_SW T2_SW T3_SW T3_PEER_SW RESPONSE '
	check_err $? "log columns: $(head -1 "$WORK/l.txt")"
	jq -e '.reflector_timestamp_source == "software" and
		(.metrics_unknown | sort) == ["reflect_proc", "reflect_rx", "reflect_tx"] and
		(.metrics_unknown_why | test("no SW stamps"))' "$WORK/e.json" >/dev/null &&
		grep -q '^  unknown: reflect_rx reflect_proc reflect_tx (a STAMP reflector reports no SW stamps' \
			"$WORK/e.txt"
	check_err $? "-s: unknown: $(grep '^  unknown' "$WORK/e.txt"), $(jq -c '[.reflector_timestamp_source, .metrics_unknown]' "$WORK/e.json")"

	suite_reflector s2 0 1 ntp --tlv-mode ignore || return
	emit -a "$IP_B" --stamp -m 100 --block -c $n -w 2 --timeout 1000000 \
		-j "$WORK/e2.json" >"$WORK/e2.txt" 2>&1
	check_err $? "emitter failed: $(tail -3 "$WORK/e2.txt")"
	kill -INT "$SREFL"
	got=$(peer_json "$WORK/e2.json")
	want='["ntp",false,0,1,1,[],["extra_padding","timestamp_information","class_of_service","direct_measurement","follow_up_telemetry"],null,null,0]'
	[ "$got" = "$want" ]
	check_err $? "stamp-suite ignoring TLVs: JSON $got, not $want"
	jq -e '([.warnings[].code] | index("stamp_peer_no_follow_up")) and
		(.metrics_unknown // [] | index("response") | not) and
		.metrics.response.samples > 0 and .metrics.network.samples > 0 and
		.reflector_timestamp_source == "not_reported" and
		.reflector_t3_timestamp_source == "not_reported" and
		.reflector_t3_from == "reply"' "$WORK/e2.json" >/dev/null
	check_err $? "stamp-suite ignoring TLVs: $(jq -c '[[.warnings[].code], .metrics_unknown, .metrics.response.samples, .reflector_timestamp_source, .reflector_t3_timestamp_source, .reflector_t3_from]' "$WORK/e2.json")"

	rant_reflector r --stamp-stateful || return
	emit -a "$IP_B" --stamp -m 100 --block -c $n -w 2 --timeout 1000000 \
		-j "$WORK/e3.json" >"$WORK/e3.txt" 2>&1
	check_err $? "emitter failed: $(tail -3 "$WORK/e3.txt")"
	stop_reflector
	# this host's clock as adjtimex says (python: no adjtimex tool needed)
	sync=$("$PYTHON" -c 'import ctypes
class T(ctypes.Structure):
    _fields_ = [("modes", ctypes.c_uint), ("l", ctypes.c_long * 4), ("status", ctypes.c_int), ("pad", ctypes.c_char * 256)]
t = T()
r = ctypes.CDLL(None).adjtimex(ctypes.byref(t))
print("true" if r not in (-1, 5) and not t.status & 0x40 else "false")')
	got=$(jq -c '.stamp_peer | [.synchronized, (.error_ns // .error_estimate.error_ns) > 0,
		.follow_ups >= '$((n - 1))', .tlvs_understood]' "$WORK/e3.json")
	want='['$sync',true,true,["extra_padding","timestamp_information","class_of_service","direct_measurement","follow_up_telemetry"]]'
	[ "$got" = "$want" ]
	check_err $? "rant's reflector: $got, not $want (adjtimex: synchronized $sync)"
	log_test "the STAMP peer's report: stamp-suite (S, 716 ns, PTP; TLVs ignored), rant's (adjtimex: $sync); -s unknowns named"
}

# log_t3 FILE: "SEQ T3 RTT RESPONSE" of each row of rant's emitter log
# with a T3 (its column is T3_PEER, T3_PEER_SW or T3_PEER_HW).
log_t3() {
	awk '/^SEQ / { for (i = 1; i <= NF; i++) col[$i] = i
		       p3 = col["T3_PEER"]
		       if (col["T3_PEER_SW"]) p3 = col["T3_PEER_SW"]
		       if (col["T3_PEER_HW"]) p3 = col["T3_PEER_HW"]
		       next }
	     !p3 || /^-/ || NF < 4 || $(p3) == "-" { next }
	     { print $col["SEQ"], $(p3), $col["RTT"], $col["RESPONSE"] }' "$1"
}

# Which T3 the emitter takes. From a reflector without follow-up
# (stamp-suite stateless, the 44-octet base: no TLVs) the one its reply
# carries: every row has T3, 0 <= response < rtt (one machine), and the
# JSON has response, network and theta (clock.peer_samples). From rant's
# own stateful reflector the wire T3 of the follow-up, never its reply's
# own (a SW stamp taken before the packet left): the emitter's T3 is the
# reflector's wire stamp, its log's T3_KN, row by row.
stamp_t3_reply() {
	local n=50 rows bad got
	pair
	need_suite
	suite_reflector s 0 0 ntp || return
	emit -a "$IP_B" --stamp -m 44 --block -c $n -w 2 --timeout 1000000 \
		-l "$WORK/l.txt" -j "$WORK/e.json" >"$WORK/e.txt" 2>&1
	check_err $? "emitter failed: $(tail -3 "$WORK/e.txt")"
	kill -INT "$SREFL"
	rows=$(log_t3 "$WORK/l.txt" | wc -l)
	bad=$(log_t3 "$WORK/l.txt" | awk '$4 < 0 || $4 >= $3' | wc -l)
	[ "$rows" = $n ] && [ "$bad" = 0 ]
	check_err $? "stamp-suite stateless: $rows rows of $n with T3, $bad with response < 0 or >= rtt: $(head -3 "$WORK/l.txt")"
	got=$(jq -c '[.reflector_t3_from, .reflector_t3_timestamp_source, .metrics.response.samples,
		.metrics.network.samples, .metrics.response.min >= 0,
		.metrics.response.max < .metrics.rtt.max, .clock.peer_samples > 0, .metrics_unknown]' \
		"$WORK/e.json")
	[ "$got" = '["reply","not_reported",'$n','$n',true,true,true,null]' ]
	check_err $? "stamp-suite stateless: JSON $got"

	rant_reflector r --stamp-stateful -l "$WORK/rl.txt" || return
	emit -a "$IP_B" --stamp -m 100 --block -c $n -w 2 --timeout 1000000 \
		-l "$WORK/l2.txt" -j "$WORK/e2.json" >"$WORK/e2.txt" 2>&1
	check_err $? "emitter failed: $(tail -3 "$WORK/e2.txt")"
	stop_reflector
	got=$(awk 'FNR == 1 { f++ }
		   f == 1 && /^SEQ / { for (i = 1; i <= NF; i++) c[$i] = i; next }
		   f == 1 && c["T3_KN"] && $1 ~ /^[0-9]+$/ { t3[$1] = $(c["T3_KN"]); next }
		   f == 2 { rows++; if ($2 == t3[$1]) same++ }
		   END { printf "%d %d\n", rows, same }' "$WORK/rl.txt" <(log_t3 "$WORK/l2.txt"))
	[ "${got% *}" -ge $((n - 1)) ] && [ "${got#* }" = "${got% *}" ] &&
		[ "$(jq -r .reflector_t3_from "$WORK/e2.json")" = follow_up ]
	check_err $? "rant's stateful reflector: rows with T3, of them equal to its wire T3: $got; T3 from $(jq -r .reflector_t3_from "$WORK/e2.json")"
	log_test "T3 from the reply (stamp-suite stateless: $rows rows, 0 <= response < rtt; theta) and from the follow-up (rant's: $got rows = its wire T3)"
}

tests_run
