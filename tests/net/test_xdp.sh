#!/usr/bin/env bash
# shellcheck disable=SC2034  # ALL_TESTS: read by lib.sh
# reflect --xdp (src/reflect/xdprefl.h) over veth in native mode: the
# same emitters count the same against the program as against the socket
# reflector, its pongs are the socket's bytes but for the stamps, odd
# datagrams are never answered longer (over IPv4 and IPv6), --afxdp's
# pongs leave through an AF_XDP socket with their completion's stamp as
# the next follow-up's T3, two --xdp STAMP reflectors stop one forged
# datagram, --key passes to the socket, and a program that cannot attach
# falls back with its reason. The XDP reflector runs under
# nsenter (ip netns exec remounts /sys); the emitter's veth end carries
# an XDP_PASS program (build/xdppass.bpf.o), without which a veth drops
# what its peer's program sends back.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=stamplib.sh
. "$(dirname "$0")/stamplib.sh"

ALL_TESTS="xdp_counts xdp_stamp_counts xdp_bytes xdp_odd xdp6_counts xdp6_stamp_counts xdp6_bytes
	xdp6_odd xdp_afxdp xdp6_afxdp xdp_afxdp_stamp xdp_afxdp_bytes xdp_afxdp_nometa xdp_stamp_loop xdp_key
	xdp_fallback"

require_root
require_cmd jq nsenter
require_rant
PASS_OBJ=$TOP/build/xdppass.bpf.o
PORT=12345

# xdp_pair: the namespaces, XDP_PASS on the emitter's end, DST the
# reflector's address (IPv6 where FAM is 6); skips where this rant has
# no --xdp.
xdp_pair() {
	"$RANT" reflect --help 2>&1 | grep -q -- '--xdp' || skip_test "this rant has no --xdp"
	[ -r "$PASS_OBJ" ] || skip_test "no $PASS_OBJ (make build/xdppass.bpf.o: clang's BPF target)"
	pair
	DST=$IP_B
	[ "${FAM:-4}" = 6 ] && DST=$IP6_B
	ip -n "$NS_A" link set dev "$VETH_A" xdpdrv obj "$PASS_OBJ" sec xdp ||
		skip_test "native XDP does not attach to veth here"
}

# xdp_reflector NAME ARGS...: rant -i VETH_B ARGS in NS_B (nsenter) on
# CPU 1, text in $WORK/NAME.txt, pid in $REFL; returns once bound and
# set up (its start lines printed: the program attached after the bind).
xdp_reflector() {
	local name=$1 port=${XPORT:-$PORT}
	shift
	nsenter --net="/run/netns/$NS_B" taskset -c 1 "$RANT" -i "$VETH_B" --block "$@" \
		>"$WORK/$name.txt" 2>&1 &
	REFL=$!
	defer kill -9 "$REFL"
	wait_udp_port "$NS_B" "$port" && wait_for_line "$WORK/$name.txt" '^rant .* reflect: ' 5 &&
		return 0
	check_err 1 "reflector $name did not bind port $port: $(tail -3 "$WORK/$name.txt")"
	return 1
}

# same_counts A B KEYS...: the two JSON documents' counts agree on KEYS.
same_counts() {
	local a=$1 b=$2 k bad=""
	shift 2
	for k in "$@"; do
		[ "$(jqv "$a" ".counts.$k")" = "$(jqv "$b" ".counts.$k")" ] ||
			bad="$bad $k $(jqv "$a" ".counts.$k")/$(jqv "$b" ".counts.$k")"
	done
	[ -z "$bad" ] || { echo "$bad"; return 1; }
}

# warmup: how many pings the emitter's warm-up takes depends on when its
# kernel starts stamping (rant.8), not on the reflector: left out.
EMIT_KEYS="sent received lost late duplicate invalid fetch foreign"
REFL_KEYS="sent received duplicate invalid fetch sessions"

# one_pair TAG EMIT_ARGS -- REFL_ARGS: the socket reflector's run, then
# the --xdp reflector's, the same emitter each time; JSON in
# $WORK/{s,x}{e,r}-TAG.json.
one_pair() {
	local tag=$1 mode e_args=() r_args=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do e_args+=("$1"); shift; done
	shift
	r_args=("$@")
	for mode in s x; do
		[ $mode = x ] && r_args+=(--xdp=required ${AFXDP:+--afxdp})
		xdp_reflector "$mode-$tag" "${r_args[@]}" -j "$WORK/${mode}r-$tag.json" || return 1
		emit --block "${e_args[@]}" -j "$WORK/${mode}e-$tag.json" >"$WORK/${mode}e-$tag.txt" 2>&1
		check_err $? "emitter against $mode failed: $(tail -3 "$WORK/${mode}e-$tag.txt")" || return 1
		stop_reflector
		check_err "$REFL_RC" "reflector $mode-$tag: $(tail -3 "$WORK/$mode-$tag.txt")" || return 1
	done
}

# A rant emitter: every count of the emitter and of the reflector the
# same against the program as against the socket, the pings answered by
# the program (xdp.counts.measured), and its response under the socket's.
xdp_counts() {
	local n=3000 diff
	xdp_pair
	one_pair c -a "$DST" -c $n -w 50 -m 104 --timeout 100000 -- || return
	diff=$(same_counts "$WORK/se-c.json" "$WORK/xe-c.json" $EMIT_KEYS)
	check_err $? "emitter counts differ (socket/xdp):$diff" || return
	diff=$(same_counts "$WORK/sr-c.json" "$WORK/xr-c.json" $REFL_KEYS)
	check_err $? "reflector counts differ (socket/xdp):$diff" || return
	[ "$(jqv "$WORK/xr-c.json" .xdp.counts.measured)" = $n ]
	check_err $? "xdp.counts.measured $(jqv "$WORK/xr-c.json" .xdp.counts.measured), want $n" || return
	[ "$(jqv "$WORK/xr-c.json" .xdp.counts.t2_kernel_clock)" -gt 0 ]
	check_err $? "veth gives no driver stamp: t2_kernel_clock must count" || return
	[ "$(jqv "$WORK/xe-c.json" '.metrics.response.percentiles["50"]')" -lt \
	  "$(jqv "$WORK/se-c.json" '.metrics.response.percentiles["50"]')" ]
	check_err $? "response p50 xdp $(jqv "$WORK/xe-c.json" '.metrics.response.percentiles["50"]') ns not under the socket's $(jqv "$WORK/se-c.json" '.metrics.response.percentiles["50"]') ns"
	log_test "IPv${FAM:-4}: rant emitter, $n pings: every count equal, all answered by XDP, response p50 $(jqv "$WORK/xe-c.json" '.metrics.response.percentiles["50"]') ns (socket $(jqv "$WORK/se-c.json" '.metrics.response.percentiles["50"]') ns)"
}

# STAMP senders: rant's (stateless and stateful reflectors, NTP and PTP),
# then stamp-suite's where it is installed.
xdp_stamp_counts() {
	local n=1000 diff st
	xdp_pair
	XPORT=$STAMP_PORT
	for st in "" --stamp-stateful; do
		one_pair "st$st" -a "$DST" --stamp -m 44 -c $n -w 20 --timeout 100000 -- --stamp $st || return
		diff=$(same_counts "$WORK/se-st$st.json" "$WORK/xe-st$st.json" $EMIT_KEYS)
		check_err $? "STAMP$st emitter counts differ (socket/xdp):$diff" || return
		diff=$(same_counts "$WORK/sr-st$st.json" "$WORK/xr-st$st.json" $REFL_KEYS)
		check_err $? "STAMP$st reflector counts differ (socket/xdp):$diff" || return
		# STAMP has no warm-up flag: the sender's warm-up is measured too
		[ "$(jqv "$WORK/xr-st$st.json" .xdp.counts.measured)" = \
		  "$(jqv "$WORK/sr-st$st.json" .counts.received)" ]
		check_err $? "STAMP$st: xdp measured $(jqv "$WORK/xr-st$st.json" .xdp.counts.measured), the socket's received $(jqv "$WORK/sr-st$st.json" .counts.received)" || return
	done
	if "$STAMP_SUITE" --version 2>/dev/null | grep -qx 'stamp-suite 1.0.0'; then
		xdp_reflector suite --stamp -j "$WORK/xr-suite.json" --xdp=required || return
		ip netns exec "$NS_A" timeout 20 "$STAMP_SUITE" --remote-addr "$DST" --count 200 \
			--local-addr "$( [ "$DST" = "$IP6_B" ] && echo :: || echo 0.0.0.0)" \
			--send-delay 2 >"$WORK/suite.txt" 2>&1
		check_err $? "stamp-suite's sender: $(tail -3 "$WORK/suite.txt")" || return
		stop_reflector
		[ "$(jqv "$WORK/xr-suite.json" .xdp.counts.measured)" -ge 190 ]
		check_err $? "stamp-suite's 200 packets: xdp measured $(jqv "$WORK/xr-suite.json" .xdp.counts.measured)" || return
		log_test "IPv${FAM:-4}: STAMP: rant's sender stateless and stateful, equal counts; stamp-suite's 200 answered by XDP"
	else
		log_test "IPv${FAM:-4}: STAMP: rant's sender stateless and stateful, equal counts (stamp-suite not installed: its sender not run)"
	fi
}

# pong_bytes PCAP: each reply's UDP payload in hex, stamps masked (rant:
# session, T1, T2, T2_SW (the host tag of a warm-up pong), the follow-up's
# T3, the report's longest qdisc wait (a difference of stamps: the
# program's pongs pass no qdisc, 0); STAMP: T3, T2, the sender's T1), and
# its IP TTL and TOS (IPv6: Hop Limit and Traffic Class).
pong_bytes() {
	"$PYTHON" - "$1" "$2" <<'EOF'
import sys
from scapy.all import IP, IPv6, UDP, rdpcap
fmt = sys.argv[2]
masks = [(8, 12), (24, 48), (64, 72), (96, 104)] if fmt == 'rant' else [(4, 12), (16, 24), (28, 36)]
for p in rdpcap(sys.argv[1]):
    if UDP not in p or p[UDP].sport not in (12345, 862):
        continue
    b = bytearray(bytes(p[UDP].payload))
    for a, z in masks:
        b[a:z] = bytes(len(b[a:z]))
    ttl, tos = (p[IP].ttl, p[IP].tos) if IP in p else (p[IPv6].hlim, p[IPv6].tc)
    print(ttl, tos, len(b), b.hex())
EOF
}

# The pongs of the program and of the socket, byte for byte but for the
# stamps, in rant's format (with a report and a warm-up) and STAMP's.
xdp_bytes() {
	local mode fmt args r_args want
	require_cmd tcpdump
	"$PYTHON" -c 'import scapy.all' 2>/dev/null || skip_test "no scapy"
	xdp_pair
	for fmt in rant stamp; do
		args=(-m 104 -c 5 -w 2)
		XPORT=$PORT
		[ $fmt = stamp ] && { args=(--stamp -m 44 -c 5 -w 2 --ssid 7); XPORT=$STAMP_PORT; }
		r_args=()
		[ $fmt = stamp ] && r_args=(--stamp)
		for mode in s x; do
			[ $mode = x ] && r_args+=(--xdp=required ${AFXDP:+--afxdp})
			ip netns exec "$NS_A" tcpdump -i "$VETH_A" -w "$WORK/$mode-$fmt.pcap" -U --immediate-mode \
				"udp src port $XPORT" >"$WORK/td-$mode-$fmt.txt" 2>&1 &
			local td=$!
			defer kill -9 "$td"
			wait_for_line "$WORK/td-$mode-$fmt.txt" 'listening on' 5 ||
				{ check_err 1 "tcpdump: $(cat "$WORK/td-$mode-$fmt.txt")"; return; }
			xdp_reflector "b$mode-$fmt" "${r_args[@]}" -j "$WORK/b$mode-$fmt.json" || return 1
			emit --block -a "$DST" "${args[@]}" >"$WORK/be$mode-$fmt.txt" 2>&1
			check_err $? "emitter: $(tail -2 "$WORK/be$mode-$fmt.txt")" || return
			stop_reflector
			sleep 0.5	# the last pong through tcpdump's buffer (-U)
			kill -INT "$td"
			wait "$td"
			pong_bytes "$WORK/$mode-$fmt.pcap" $fmt >"$WORK/$mode-$fmt.hex"
		done
		# STAMP has no warm-up flag: its 2 warm-up pings are measured too
		want=5
		[ $fmt = stamp ] && want=7
		[ "$(jqv "$WORK/bx-$fmt.json" .xdp.counts.measured)" = $want ]
		check_err $? "$fmt: the program measured $(jqv "$WORK/bx-$fmt.json" .xdp.counts.measured) pings, want $want" || return
		[ -z "${AFXDP:-}" ] ||
			[ "$(jqv "$WORK/bx-$fmt.json" .xdp.counts.afxdp_sent)" -ge $want ]
		check_err $? "$fmt: $(jqv "$WORK/bx-$fmt.json" .xdp.counts.afxdp_sent) pongs out of the AF_XDP socket, want $want at least" || return
		[ "$(wc -l <"$WORK/x-$fmt.hex")" -ge 7 ]
		check_err $? "$fmt: $(wc -l <"$WORK/x-$fmt.hex") pongs captured of the program's" || return
		cmp -s "$WORK/s-$fmt.hex" "$WORK/x-$fmt.hex"
		check_err $? "$fmt pongs differ: $(diff "$WORK/s-$fmt.hex" "$WORK/x-$fmt.hex" | head -4)" || return
	done
	log_test "IPv${FAM:-4}${AFXDP:+ --afxdp}: the program's pongs are the socket's bytes but for the stamps (rant 104-byte with report and warm-up, STAMP 44)"
}

# Short, malformed, fragmented and TLV-carrying datagrams: never a reply
# longer than the request; the invalid ones none at all (the socket
# reflector counts them, as without --xdp); TLVs and oversized frames
# are the socket's to answer.
xdp_odd() {
	local fmt bad r_args
	xdp_pair
	for fmt in rant stamp; do
		XPORT=$PORT
		[ $fmt = stamp ] && XPORT=$STAMP_PORT
		r_args=(--xdp=required)
		[ $fmt = stamp ] && r_args+=(--stamp)
		xdp_reflector "o-$fmt" "${r_args[@]}" -j "$WORK/o-$fmt.json" || return 1
		ip netns exec "$NS_A" "$PYTHON" "$TOP/tests/net/xdp_probe.py" "$DST" "$XPORT" $fmt \
			>"$WORK/p-$fmt.txt" 2>&1
		check_err $? "xdp_probe.py: $(tail -2 "$WORK/p-$fmt.txt")" || return
		stop_reflector
		bad=$(awk '$3 != "none" && $3 > $2 { print }
			   /^(short|bad_|pong_type|short_)/ && $3 != "none" { print }
			   /^(valid|twamp|base|padded|tlv|header)/ && $3 != $2 { print }' "$WORK/p-$fmt.txt")
		[ -z "$bad" ]
		check_err $? "$fmt: $bad" || return
		[ "$(jqv "$WORK/o-$fmt.json" .xdp.counts.measured)" -ge 3 ]
		check_err $? "$fmt: the program answered $(jqv "$WORK/o-$fmt.json" .xdp.counts.measured) of the 3 valid ones" || return
	done
	[ "$(jqv "$WORK/o-rant.json" .counts.invalid)" = 5 ]
	check_err $? "rant: counts.invalid $(jqv "$WORK/o-rant.json" .counts.invalid), want 5" || return
	[ "$(jqv "$WORK/o-stamp.json" .xdp.counts.passed)" -ge 3 ]
	check_err $? "stamp: passed $(jqv "$WORK/o-stamp.json" .xdp.counts.passed), want the short, TLV and oversized ones" || return
	log_test "IPv${FAM:-4}: odd datagrams: none answered longer, invalid ones unanswered and counted, TLVs and oversized passed to the socket"
}

# The same four over the pair's IPv6 addresses (the program's other
# parse and turn, and the UDP checksum over IPv6's pseudo-header).
xdp6_counts() { FAM=6 xdp_counts; }
xdp6_stamp_counts() { FAM=6 xdp_stamp_counts; }
xdp6_bytes() { FAM=6 xdp_bytes; }
xdp6_odd() { FAM=6 xdp_odd; }

# afxdp_check TAG: the --afxdp run's report: every pong the program
# answered went out of the AF_XDP socket, each with its completion's
# stamp (MISSING=1: with none), the start line saying which.
afxdp_check() {
	local j="$WORK/xr-$1.json" red sent st miss
	red=$(jqv "$j" .xdp.counts.afxdp_redirected)
	sent=$(jqv "$j" .xdp.counts.afxdp_sent)
	st=$(jqv "$j" .xdp.counts.afxdp_t3_stamped)
	miss=$(jqv "$j" .xdp.counts.afxdp_t3_missing)
	[ "$red" -gt 0 ] && [ "$sent" = "$red" ] && [ "$(jqv "$j" .xdp.counts.afxdp_tx_full)" = 0 ] &&
		[ "$(jqv "$j" .xdp.counts.afxdp_rx_dropped)" = 0 ]
	check_err $? "redirected $red, sent $sent, tx_full $(jqv "$j" .xdp.counts.afxdp_tx_full), rx_dropped $(jqv "$j" .xdp.counts.afxdp_rx_dropped)" || return
	if [ "${MISSING:-}" ]; then
		[ "$st" = 0 ] && [ "$miss" = "$sent" ]
	else
		[ "$st" = "$sent" ] && [ "$miss" = 0 ]
	fi
	check_err $? "of $sent sent: $st stamped, $miss missing" || return
	grep -q "AF_XDP socket on queue 0 (copy mode), T3 $2" "$WORK/x-$1.txt"
	check_err $? "the start line: $(grep -o 'AF_XDP.*' "$WORK/x-$1.txt")" || return
	jqv "$j" .xdp.note | grep -q "AF_XDP socket on queue 0 (copy mode), T3 $2"
	check_err $? "the JSON's xdp.note: $(jqv "$j" .xdp.note)"
}

# --afxdp, rant's format: the counts equal the socket's, every pong out of
# the AF_XDP socket with the stamp its completion gave (copy mode on
# veth: the kernel clock as the driver took the pong), and the next
# pong's follow-up carries it: the response is that stamp less T2.
xdp_afxdp() {
	local n=2000 diff fu resp
	xdp_pair
	AFXDP=1 one_pair a -a "$DST" -c $n -w 50 -m 104 --timeout 100000 -- || return
	diff=$(same_counts "$WORK/se-a.json" "$WORK/xe-a.json" $EMIT_KEYS)
	check_err $? "emitter counts differ (socket/afxdp):$diff" || return
	diff=$(same_counts "$WORK/sr-a.json" "$WORK/xr-a.json" $REFL_KEYS)
	check_err $? "reflector counts differ (socket/afxdp):$diff" || return
	afxdp_check a "the kernel clock as the driver takes the pong" || return
	fu=$(jqv "$WORK/xr-a.json" .xdp.counts.afxdp_followups)
	[ "$fu" -ge $((n * 9 / 10)) ]
	check_err $? "$fu of $n follow-ups carried the sent stamp" || return
	resp=$(jqv "$WORK/xe-a.json" '.metrics.response.percentiles["50"]')
	[ "$resp" -gt 0 ] && [ "$resp" -lt 1000000 ]
	check_err $? "response p50 $resp ns" || return
	log_test "IPv${FAM:-4} --afxdp: $n pings, counts equal, every pong out of the AF_XDP socket and stamped, $fu follow-ups with the sent stamp, response p50 $resp ns"
}

# --afxdp with STAMP: the replies out of the socket, stamped and counted.
xdp_afxdp_stamp() {
	local n=500 diff
	xdp_pair
	XPORT=$STAMP_PORT AFXDP=1 one_pair ast -a "$DST" --stamp -m 44 -c $n -w 20 --timeout 100000 -- \
		--stamp || return
	diff=$(same_counts "$WORK/se-ast.json" "$WORK/xe-ast.json" $EMIT_KEYS)
	check_err $? "emitter counts differ (socket/afxdp):$diff" || return
	afxdp_check ast "the kernel clock as the driver takes the pong" || return
	log_test "--afxdp --stamp: $n STAMP packets, counts equal, every reply out of the AF_XDP socket and stamped"
}

# --afxdp over IPv6 (the pong's session found in an IPv6 frame).
xdp6_afxdp() { FAM=6 xdp_afxdp; }

# --afxdp's pongs are the socket reflector's bytes but for the stamps.
xdp_afxdp_bytes() { AFXDP=1 xdp_bytes; }

# A kernel without TX metadata (RANT_XSK_NO_META: the UMEM registered
# without it): the start line says so, no completion has a stamp, and
# the follow-ups carry the program's T3 at the hook; the counts hold.
xdp_afxdp_nometa() {
	local n=1000 diff
	xdp_pair
	RANT_XSK_NO_META=1 AFXDP=1 one_pair nm -a "$DST" -c $n -w 20 -m 104 --timeout 100000 -- ||
		return
	diff=$(same_counts "$WORK/se-nm.json" "$WORK/xe-nm.json" $EMIT_KEYS)
	check_err $? "emitter counts differ (socket/afxdp):$diff" || return
	MISSING=1 afxdp_check nm "at the hook (this kernel has no TX metadata)" || return
	[ "$(jqv "$WORK/xr-nm.json" .xdp.counts.afxdp_followups)" = 0 ]
	check_err $? "follow-ups with a sent stamp: $(jqv "$WORK/xr-nm.json" .xdp.counts.afxdp_followups)" || return
	log_test "--afxdp without TX metadata: $n pings answered, none stamped, the start line says T3 is the hook's"
}

# xdp_tx_sum: the frames the two veth ends' programs sent back (XDP_TX).
xdp_tx_sum() {
	local n=0 v
	for v in "$NS_A:$VETH_A" "$NS_B:$VETH_B"; do
		n=$((n + $(ip netns exec "${v%%:*}" ethtool -S "${v#*:}" |
			awk '/xdp_tx:/ { s += $2 } END { print s + 0 }')))
	done
	echo "$n"
}

# Two --xdp STAMP reflectors on 5001 and 5002 (neither a reflector's port
# to the other) and one datagram forged between them: the loop guard
# (one session+seq answered XDP_REPEAT_MAX times at most) ends it.
xdp_stamp_loop() {
	local pa_pid before n
	"$PYTHON" -c 'import scapy.all' 2>/dev/null || skip_test "no scapy"
	xdp_pair
	ip -n "$NS_A" link set dev "$VETH_A" xdpdrv off
	nsenter --net="/run/netns/$NS_A" taskset -c 0 "$RANT" -i "$VETH_A" --stamp --block \
		--port 5001 --xdp=required -j "$WORK/la.json" >"$WORK/la.txt" 2>&1 &
	pa_pid=$!
	defer kill -9 "$pa_pid"
	XPORT=5002 xdp_reflector lb --stamp --port 5002 --xdp=required -j "$WORK/lb.json" || return
	wait_udp_port "$NS_A" 5001 || { check_err 1 "A did not bind: $(tail -2 "$WORK/la.txt")"; return; }
	before=$(xdp_tx_sum)
	ip netns exec "$NS_A" "$PYTHON" "$TOP/tests/net/spoof.py" "$IP_A" 5001 "$IP_B" 5002 \
		>"$WORK/spoof.txt" 2>&1
	check_err $? "spoof.py: $(tail -2 "$WORK/spoof.txt")" || return
	sleep 2	# the stimulus: how long the loop may run
	n=$(($(xdp_tx_sum) - before))
	kill -INT "$pa_pid" "$REFL"
	wait "$pa_pid" "$REFL"
	[ "$n" -le 10 ]
	check_err $? "the programs sent $n frames back in 2 s after one forged datagram (want 10 at most)" || return
	[ "$(($(jqv "$WORK/la.json" .xdp.counts.repeated) + $(jqv "$WORK/lb.json" .xdp.counts.repeated)))" -ge 1 ]
	check_err $? "no repeated count: A $(jqv "$WORK/la.json" .xdp.counts.repeated) B $(jqv "$WORK/lb.json" .xdp.counts.repeated)" || return
	log_test "one datagram forged between two --xdp STAMP reflectors on 5001/5002: $n frames, then the loop guard"
}

# --key: every ping passes to the socket, which checks its MAC and answers.
xdp_key() {
	local n=500
	xdp_pair
	head -c 32 /dev/urandom >"$WORK/key"
	chmod 600 "$WORK/key"
	xdp_reflector k --key "$WORK/key" --xdp=required -j "$WORK/k.json" || return
	emit --block -a "$IP_B" --key "$WORK/key" -c $n -w 10 -j "$WORK/ke.json" >"$WORK/ke.txt" 2>&1
	check_err $? "keyed emitter: $(tail -3 "$WORK/ke.txt")" || return
	stop_reflector
	grep -q -- "--key: every ping passes to the socket reflector" "$WORK/k.txt"
	check_err $? "the start does not say --key passes: $(head -2 "$WORK/k.txt")" || return
	[ "$(jqv "$WORK/ke.json" .counts.received)" = $n ] &&
		[ "$(jqv "$WORK/k.json" .xdp.counts.measured)" = 0 ] &&
		[ "$(jqv "$WORK/k.json" .xdp.counts.passed)" -ge $n ]
	check_err $? "received $(jqv "$WORK/ke.json" .counts.received), xdp measured $(jqv "$WORK/k.json" .xdp.counts.measured) passed $(jqv "$WORK/k.json" .xdp.counts.passed)" || return
	log_test "--key: all $n pings passed to the socket reflector and answered there"
}

# A program that cannot attach: a planted failure falls back to the
# socket (the reason in one line, the run answered); --xdp=required
# exits 1; lo (no native XDP) says why.
xdp_fallback() {
	local rc
	xdp_pair
	RANT_XDP_FAIL=1 xdp_reflector f --xdp -j "$WORK/f.json" || return
	emit --block -a "$IP_B" -c 100 -w 5 >"$WORK/fe.txt" 2>&1
	check_err $? "emitter against the fallen-back reflector: $(tail -2 "$WORK/fe.txt")" || return
	stop_reflector
	grep -q "warning: --xdp: RANT_XDP_FAIL is set.*the socket reflector answers every ping" "$WORK/f.txt"
	check_err $? "no fallback line: $(head -3 "$WORK/f.txt")" || return
	[ "$(jqv "$WORK/f.json" .xdp.attached)" = false ] && [ "$(jqv "$WORK/f.json" .counts.received)" = 100 ]
	check_err $? "attached $(jqv "$WORK/f.json" .xdp.attached), received $(jqv "$WORK/f.json" .counts.received)" || return
	RANT_XDP_FAIL=1 nsenter --net="/run/netns/$NS_B" "$RANT" -i "$VETH_B" --xdp=required -d 1 \
		>"$WORK/req.txt" 2>&1
	rc=$?
	[ $rc = 1 ] && grep -q "^rant: --xdp=required: RANT_XDP_FAIL" "$WORK/req.txt"
	check_err $? "--xdp=required: exit $rc, $(head -2 "$WORK/req.txt")" || return
	nsenter --net="/run/netns/$NS_B" "$RANT" -i lo --xdp=required -d 1 >"$WORK/lo.txt" 2>&1
	rc=$?
	[ $rc = 1 ] && grep -q "lo: attaching the XDP program in native mode failed" "$WORK/lo.txt"
	check_err $? "-i lo --xdp=required: exit $rc, $(head -2 "$WORK/lo.txt")" || return
	log_test "a planted failure falls back with its reason; --xdp=required exits 1; lo: $(grep -o 'failed: .*' "$WORK/lo.txt" | head -1)"
}

tests_run
