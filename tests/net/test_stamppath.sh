#!/usr/bin/env bash
# shellcheck disable=SC2034  # ALL_TESTS: read by lib.sh
# --stamp: what the path did, as the reflector's numbers and TLVs tell it,
# against rant's reflector, stamp-suite's and a sender of this project's
# own (stamp_sender.py, written from the RFCs): the follow-up after a gap
# and a repeat, a session the reflector cannot take, the peer drift of a
# short run, loss by direction under a tbf queue on one way, the Direct
# Measurement and Class of Service TLVs both ways, jitter.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=stamplib.sh
. "$(dirname "$0")/stamplib.sh"

ALL_TESTS="stamp_followup_gaps stamp_refused stamp_short_drift stamp_loss_direction
	stamp_cos_direct stamp_stateless_t3"

require_root
require_cmd jq ss
require_rant

# A stateful reflector's Follow-Up Telemetry names its previous reply by
# the reflector's own number (RFC 8972 §4.7), whatever the sender's
# numbers do: stamp_sender.py (a sender of this project's own, written
# from the RFCs) skips 3 and 4 and sends 7 twice, and every follow-up
# must name the reply before it, with a T3 between that reply's own
# Timestamp and its arrival. Before the fix, reply 3 named reply 0 and
# reply 6 itself (the sender's numbers, mapped by their difference).
stamp_followup_gaps() {
	local out
	pair
	rant_reflector r --stamp-stateful || return
	ip netns exec "$NS_A" "$PYTHON" "$TOP/tests/net/stamp_sender.py" "$IP_B" $STAMP_PORT \
		0 1 2 5 6 7 7 8 >"$WORK/f.txt" 2>&1
	check_err $? "follow-ups: $(grep -v ' ok$' "$WORK/f.txt" | tr '\n' '|')"
	stop_reflector
	out=$(awk '/^reply / { split($4, r, "="); split($5, f, "=")
			      printf "%s%s<-%s", n++ ? " " : "", r[2], f[2] }' "$WORK/f.txt")
	[ "$out" = "0<-0 1<-0 2<-1 3<-2 4<-3 5<-4 6<-5 7<-6" ]
	check_err $? "replies and the replies their follow-ups name: $out"
	log_test "stateful follow-ups after a gap and a repeat (sender seqs 0 1 2 5 6 7 7 8): $out"
}

# A session the reflector cannot take (--max-sessions-per-address 2: the
# third port of one address) gets no reply under --stamp, and is counted
# refused: STAMP has no refusal, and rant's own refusal (a reply without
# stamps) read as a measurement of 1900-01-01 by any STAMP sender.
stamp_refused() {
	local got
	pair
	rant_reflector r --max-sessions-per-address 2 -j "$WORK/r.json" || return
	ip netns exec "$NS_A" "$PYTHON" "$TOP/tests/net/stamp_sender.py" --sessions 3 "$IP_B" \
		$STAMP_PORT >"$WORK/s.txt" 2>&1
	check_err $? "a reply without T2 or T3: $(tr '\n' '|' <"$WORK/s.txt")"
	stop_reflector
	got=$(awk '{ printf "%s%s", (NR > 1 ? " " : ""), ($3 ~ /none/ ? "none" : "reply") }' "$WORK/s.txt")
	[ "$got" = "reply reply none" ] && [ "$(jqv "$WORK/r.json" .counts.refused)" = 1 ]
	check_err $? "replies $got, refused $(jqv "$WORK/r.json" .counts.refused): $(grep '^sent' "$WORK/r.txt")"
	grep -q 'refused (unanswered) 1' "$WORK/r.txt"
	check_err $? "the summary does not say it: $(grep '^sent' "$WORK/r.txt")"
	log_test "--stamp, the third session of an address with --max-sessions-per-address 2: $got, counted refused"
}

# No drift between the hosts' clocks from a span too short to hold one
# (clock.h's CLOCK_DRIFT_MIN_S: 1 s): a run of some 30 ms (before: -112,962
# ppb from 0.03 s) says so, and one of 2 s gives a drift.
stamp_short_drift() {
	local got
	pair
	rant_reflector r --stamp-stateful || return
	emit -a "$IP_B" --stamp -m 100 --block -c 30 -w 2 -d 0 --interval 1000 --timeout 1000000 \
		-j "$WORK/e.json" >"$WORK/e.txt" 2>&1
	check_err $? "emitter failed: $(tail -3 "$WORK/e.txt")"
	got=$(jq -c '.clock | [.peer_drift_ppb, .peer_drift_span_s < 1, .peer_drift_min_span_s]' \
		"$WORK/e.json")
	[ "$got" = "[null,true,1]" ] &&
		grep -q '^  peer: .*, no drift (0\.[0-9]* s of stamps, under the 1 s a drift needs)$' \
			"$WORK/e.txt"
	check_err $? "30 ms: $got, $(grep '^  peer' "$WORK/e.txt")"
	emit -a "$IP_B" --stamp -m 100 --block -d 2 -w 2 --interval 1000 --timeout 1000000 \
		-j "$WORK/e2.json" >"$WORK/e2.txt" 2>&1
	check_err $? "emitter failed: $(tail -3 "$WORK/e2.txt")"
	stop_reflector
	jq -e '.clock.peer_drift_ppb != null and .clock.peer_drift_span_s >= 1' "$WORK/e2.json" \
		>/dev/null
	check_err $? "2 s: $(jq -c '.clock | [.peer_drift_ppb, .peer_drift_span_s]' "$WORK/e2.json")"
	log_test "peer drift: none from $(jq -r '.clock.peer_drift_span_s' "$WORK/e.json") s (under 1 s), $(jq -r '.clock.peer_drift_ppb | floor' "$WORK/e2.json") ppb over $(jq -r '.clock.peer_drift_span_s' "$WORK/e2.json") s"
}

# loss_run NAME NS DEV SIZE: rant's emitter (-m SIZE: from 88 it asks for
# Direct Measurement), open loop, 2000 pings a ms, while a tbf on NS's DEV
# (a way of the path: the emitter's egress drops pings, the reflector's
# pongs) passes 600 kbit/s of the 1.1 to 1.25 Mbit/s they make, so about
# half die in its queue; the JSON in $WORK/NAME.json, "L F B O": the pings
# lost (those whose pong came late, after --timeout, left out: a run
# beside others can stall), and forward, backward, otherwise by the
# reflector's count.
loss_run() {
	local name=$1 ns=$2 dev=$3 size=$4
	tc -n "$ns" qdisc add dev "$dev" root tbf rate 600kbit burst 1600 limit 3200 ||
		skip_test "no tbf qdisc in this kernel"
	emit -a "$IP_B" --stamp -m "$size" --block --open-loop --interval 1000 -c 2000 -w 20 -d 0 \
		--timeout 300000 -l "$WORK/$name.log" -j "$WORK/$name.json" >"$WORK/$name.txt" 2>&1
	check_err $? "$name: emitter failed: $(tail -3 "$WORK/$name.txt")"
	tc -n "$ns" qdisc del dev "$dev" root
	LOSS=$(jq -r '"\(.counts.lost - .counts.late) \(.loss_by_direction.forward) \(.loss_by_direction.backward) \(.loss_by_direction.other)"' \
		"$WORK/$name.json")
}

# loss_check LOSS WAY FROM: of the pings lost (a hundred or more), all but
# five on WAY (forward, backward), two at most the other way, the count
# from FROM (direct_measurement, reflector_numbers).
loss_check() {
	local l f b o
	read -r l f b o <<<"$1"
	[ "$l" -ge 100 ] || return 1
	if [ "$2" = forward ]; then
		[ "$f" -ge $((l - 5)) ] && [ "$b" -le 2 ]
	else
		[ "$b" -ge $((l - 5)) ] && [ "$f" -le 2 ]
	fi
}

# jitter_check JSON: the round trip's and each way's IPDV were measured
# (pairs of consecutive pings both back); JIT: their |IPDV| p99s, µs.
# (A tbf on a sender's egress holds its packets before the stamps the way
# is measured from, T1 or T3 the kernel's: its queue is emit_queue's and
# reflect_queue's, not the way's jitter.)
jitter_check() {
	JIT=$(jq -r '[.jitter.rtt, .jitter.fwd, .jitter.back] | map(.ipdv_abs_p99_ns / 1000 | floor) |
		join("/")' "$1")
	jq -e '[.jitter.rtt, .jitter.fwd, .jitter.back] | all(.pairs > 20)' "$1" >/dev/null
}

# Loss by direction: a tbf on one way of the path only, against rant's
# stateful reflector and stamp-suite's (Direct Measurement, and without
# it, -m 72, the reflector's own numbers): the loss lands on that way;
# jitter is measured the round trip and each way.
# Against rant's, a ping lost on the way there costs no T3: every pong
# but the last gets its follow-up (the reflector names its replies by its
# own numbers, the emitter matches them so).
stamp_loss_direction() {
	local out="" refl way ns dev got t3 rx
	pair
	need_suite
	for refl in rant suite; do
		for way in forward backward; do
			if [ $way = forward ]; then ns=$NS_A dev=$VETH_A; else ns=$NS_B dev=$VETH_B; fi
			if [ $refl = rant ]; then
				rant_reflector r --stamp-stateful || return
			else
				suite_reflector s 0 1 ntp || return
			fi
			loss_run "$refl-$way" "$ns" "$dev" 100
			got=$LOSS
			[ "$(jq -r .loss_by_direction.from "$WORK/$refl-$way.json")" = direct_measurement ] &&
				loss_check "$got" $way
			check_err $? "$refl, tbf $way: lost, forward, backward, other: $got"
			jitter_check "$WORK/$refl-$way.json"
			check_err $? "$refl, tbf $way: jitter: $(jq -c .jitter "$WORK/$refl-$way.json")"
			out+="$refl $way: $got, |IPDV| p99 $JIT us; "
			if [ $refl = rant ] && [ $way = forward ]; then
				rx=$(jq .counts.received "$WORK/$refl-$way.json")
				t3=$(awk '/^SEQ / { for (i = 1; i <= NF; i++) if ($i ~ /^T3_PEER/) c = i; next }
					  c && $c ~ /^[0-9]/ { n++ } END { print n + 0 }' "$WORK/$refl-$way.log")
				[ "$t3" -ge $((rx - 1)) ]
				check_err $? "rant, forward loss: $t3 rows with T3 of $rx received"
				out+="T3 in $t3 of $rx; "
			fi
			if [ $refl = rant ]; then stop_reflector; else kill -INT "$SREFL"; wait "$SREFL"; fi
		done
	done
	# stamp-suite without Direct Measurement: its own numbers tell
	suite_reflector s 0 1 ntp || return
	loss_run suite-72 "$NS_A" "$VETH_A" 72
	kill -INT "$SREFL"
	wait "$SREFL"
	[ "$(jq -r .loss_by_direction.from "$WORK/suite-72.json")" = reflector_numbers ] &&
		loss_check "$LOSS" forward
	check_err $? "stamp-suite, -m 72, tbf forward: $LOSS from $(jq -r .loss_by_direction.from "$WORK/suite-72.json")"
	log_test "loss by direction (lost, forward, backward, other): ${out}stamp-suite -m 72 forward: $LOSS"
}

# Class of Service and Direct Measurement (RFC 8972 §4.4, §4.5) at rant's
# reflector, stateless and stateful, IPv4 (to its dual-stack socket: an
# IPv4-mapped sender) and IPv6: stamp_sender.py's requests leave with
# DSCP 46 and ECN 2 and ask for DSCP 10; each reply, the reflector's
# first too (on 66d9566 it came back U: the TOS was read only from the
# first request that needed it), says 46 and 2 came, RP 0, leaves with
# DSCP 10, and counts the session's requests received and replies sent.
# stamp-suite's sender with both TLVs (its --cos sets its packets' TOS
# too) reads rant's counters: no loss either way, none rejected. Rant's
# sender against stamp-suite's reflector reads the DSCP and ECN its pings
# arrived with (0 and 0: it sets neither).
stamp_cos_direct() {
	local mode got ip
	pair
	need_suite
	for mode in "" --stamp-stateful; do
		rant_reflector r $mode || return
		for ip in "$IP_B" "$IP6_B"; do
			ip netns exec "$NS_A" "$PYTHON" "$TOP/tests/net/stamp_sender.py" --cos 10 \
				$((46 << 2 | 2)) 5 "$ip" $STAMP_PORT >"$WORK/c.txt" 2>&1
			check_err $? "rant's reflector ${mode:-stateless}, $ip: $(grep -v ' ok$' "$WORK/c.txt" |
				tr '\n' '|')"
		done
		suite_sender s 0 ntp 0 --count 20 --send-delay 5ms --cos --dscp 46 --ecn 2 \
			--direct-measurement
		check_err $? "stamp-suite's sender failed: $(tail -3 "$WORK/s.err")"
		stop_reflector
		got=$(jq -c '.measurements | [.direct_measurement.observations,
			.direct_measurement.forward_missing, .direct_measurement.reverse_missing,
			.tlv_validation.rejected_replies, .tlv_validation.flags.unrecognized]' "$WORK/s.json")
		[ "$got" = "[20,0,0,0,0]" ]
		check_err $? "stamp-suite's sender, rant ${mode:-stateless}: DM observations, missing fwd, rev, rejected, U: $got"
	done
	suite_reflector s 0 1 ntp || return
	emit -a "$IP_B" --stamp -m 100 --block -c 20 -w 2 --timeout 1000000 -j "$WORK/e.json" \
		>"$WORK/e.txt" 2>&1
	check_err $? "emitter failed: $(tail -3 "$WORK/e.txt")"
	kill -INT "$SREFL"
	wait "$SREFL"
	got=$(jq -c '[.stamp_peer.class_of_service, .loss_by_direction.from]' "$WORK/e.json")
	[ "$got" = '[{"dscp_arrived":0,"ecn_arrived":0,"reply_dscp_as_asked":true},"direct_measurement"]' ]
	check_err $? "rant's sender vs stamp-suite: $got"
	log_test "Class of Service (46/2 arrived, reply with DSCP 10, RP 0) and Direct Measurement at rant's reflector, both modes; stamp-suite reads them; rant reads stamp-suite's"
}

# What a reflector's stamps leave in response and network, said: rant's
# stateless reflector zeroes Follow-Up Telemetry (RFC 8972 §4.7), so the
# emitter takes the SW T3 its reply carries for response (before: none,
# response unknown), names it so and warns (stamp_peer_stateless); and a
# reflector whose stamps are software ones (sw_local: stamp-suite's, in
# user space) leaves its host stack in network, which says so.
stamp_stateless_t3() {
	local n=50 got
	pair
	need_suite
	rant_reflector r || return
	emit -a "$IP_B" --stamp -m 100 --block -c $n -w 10 --timeout 1000000 -j "$WORK/e.json" \
		>"$WORK/e.txt" 2>&1
	check_err $? "emitter failed: $(tail -3 "$WORK/e.txt")"
	stop_reflector
	got=$(jq -c '[.reflector_t3_from, .metrics.response.samples, .metrics.response.min > 0,
		.network_includes_reflector_stack, ([.warnings[].code] | index("stamp_peer_stateless") != null)]' \
		"$WORK/e.json")
	[ "$got" = '["reply",'$n',true,true,true]' ] &&
		grep -q '^  response .*T3 the software stamp its reply carries' "$WORK/e.txt"
	check_err $? "rant's stateless reflector: $got; $(grep -E '^  (response|network) ' "$WORK/e.txt")"
	suite_reflector s 0 1 ntp || return
	emit -a "$IP_B" --stamp -m 100 --block -c $n -w 10 --timeout 1000000 -j "$WORK/e2.json" \
		>"$WORK/e2.txt" 2>&1
	check_err $? "emitter failed: $(tail -3 "$WORK/e2.txt")"
	kill -INT "$SREFL"
	wait "$SREFL"
	got=$(jq -c '[.reflector_t3_from, .network_includes_reflector_stack,
		(.metrics.network.label | test("host stack"))]' "$WORK/e2.json")
	[ "$got" = '["follow_up",true,true]' ]
	check_err $? "stamp-suite stateful: $got"
	log_test "rant's stateless reflector: response from its reply's SW T3 ($n samples), named and warned; stamp-suite's sw_local stamps: network names its host stack"
}

tests_run
