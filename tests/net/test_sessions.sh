#!/usr/bin/env bash
# The reflector's sessions (issue 14): keyed by sender and session id, so
# a forged ping carrying a live session's id from another port changes
# nothing of that session; several emitters at once each get their
# follow-ups and their own statistics.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_cmd jq python3 ss taskset
[ -x "$RANT" ] || skip "rant is not built (make)"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="sessions_forged sessions_two sessions_eight sessions_refusal_flood
	sessions_refusal_flood_tcp"

# The reflector's JSON entry for the session with id $2, from address $3.
session_of() {
	jq -c --arg id "$2" --arg a "$3 " \
		'.sessions[] | select(.session == $id and (.address | startswith($a)))' "$1"
}

sessions_forged() {
	local sid e_sent entry
	setup_pair || skip_test "cannot create namespaces and veth"
	start_reflector rf -j "$WORK/rf.json"
	emit -a "$IP_B" --interval 1000 -d 2 -j "$WORK/ef.json" >"$WORK/ef.txt" 2>&1 &
	local epid=$!
	wait_measuring "$WORK/ef.txt"
	sid=$(sed -n 's/.*session \([0-9a-f]\{8\}\)$/\1/p' "$WORK/ef.txt" | head -1)
	ip netns exec "$NS_A" python3 "$TOP/tests/net/udp_probe.py" "$IP_B" "$PORT" forge "$sid" \
		9223372036854775807 >"$WORK/forge.txt"
	wait "$epid"; check_err $? "emitter exit: $(tail -2 "$WORK/ef.txt")"
	stop_reflector
	e_sent=$(jqv "$WORK/ef.json" .counts.sent)
	entry=$(session_of "$WORK/rf.json" "$sid" "$IP_A")
	[ "$(jq -s length <<<"$entry")" = 2 ]
	check_err $? "expected the real and the forged session apart, got: $entry"
	[ "$(jqv "$WORK/rf.json" .counts.duplicate)" = 0 ]
	check_err $? "the reflector counted $(jqv "$WORK/rf.json" .counts.duplicate) duplicates"
	[ "$(jq -s 'map(.received) | max' <<<"$entry")" = "$e_sent" ]
	check_err $? "the live session measured $(jq -s 'map(.received) | max' <<<"$entry") of $e_sent pings"
	[ "$(jq -s 'map(.received) | min' <<<"$entry")" = 1 ]
	check_err $? "the forged ping should stand alone in a session of its own"
	log_test "sessions: a forged ping with a live id from another port disturbs nothing ($e_sent measured)"
}

# many N: N emitters at once from one namespace, each its own session.
many() {
	local n=$1 i pids=() sent recv lost samples entry sid
	setup_pair || skip_test "cannot create namespaces and veth"
	start_reflector rm -j "$WORK/rm.json"
	for ((i = 0; i < n; i++)); do
		emit -a "$IP_B" --block --interval 500 -c 1500 -j "$WORK/em$i.json" \
			>"$WORK/em$i.txt" 2>&1 &
		pids+=($!)
	done
	for ((i = 0; i < n; i++)); do
		wait "${pids[i]}"; check_err $? "emitter $i exit: $(tail -2 "$WORK/em$i.txt")"
	done
	stop_reflector
	[ "$(jqv "$WORK/rm.json" '.sessions | length')" = "$n" ]
	check_err $? "the reflector holds $(jqv "$WORK/rm.json" '.sessions | length') sessions, not $n"
	for ((i = 0; i < n; i++)); do
		sent=$(jqv "$WORK/em$i.json" .counts.sent)
		recv=$(jqv "$WORK/em$i.json" .counts.received)
		samples=$(jqv "$WORK/em$i.json" .metrics.response.samples)
		lost=$((sent - recv))
		# Every follow-up arrives but the last pong's, which no pong
		# follows, and those a lost ping cuts off (the pong after it
		# carries the lost one's T3): one each at most.
		[ "$samples" -ge $((recv - 1 - lost)) ]
		check_err $? "emitter $i: $samples response samples of $recv received, $lost lost (follow-ups lost)"
		sid=$(jqv "$WORK/em$i.json" '.session' | xargs printf '%08x')
		entry=$(session_of "$WORK/rm.json" "$sid" "$IP_A")
		[ "$(jq -r .received <<<"$entry")" = "$sent" ]
		check_err $? "emitter $i sent $sent, its session on the reflector: $entry"
	done
	log_test "sessions: $n emitters at once, each with its follow-ups and statistics"
}

sessions_two() { many 2; }
sessions_eight() { many 8; }

# One address sends 10,000 pings at 2,000 a second, each with a session id
# of its own (a fleet behind one address, or an attacker): 16 sessions
# (--max-sessions-per-address), the rest refused. The refusals must not
# wedge the reflector (issue 46: each asked for a TX stamp that nothing
# read, until the error queue held the socket's whole receive memory and
# nothing was answered again): an emitter from another address then
# measures 2,000 of 2,000.
sessions_refusal_flood() {
	local other=10.77.0.3 got sent recv refused mem
	setup_pair || skip_test "cannot create namespaces and veth"
	ip -n "$NS_A" addr add "$other/24" dev "$VETH_A"
	start_reflector rw -j "$WORK/rw.json"
	ip netns exec "$NS_A" "$PYTHON" "$TOP/tests/net/udp_probe.py" "$IP_B" "$PORT" \
		sessions 10000 2000 "$other" >"$WORK/flood.txt"
	got=$(cat "$WORK/flood.txt")
	# the reflector's socket after the flood: its receive memory (queue
	# and error queue), which the refusals' stamps filled
	mem=$(ip netns exec "$NS_B" ss -Hanum "sport = :$PORT" | grep -o 'r[0-9]*,rb[0-9]*' | head -1)
	emit -a "$IP_B" -c 2000 --interval 500 --timeout 1000000 -j "$WORK/ew.json" \
		>"$WORK/ew.txt" 2>&1
	check_err $? "the emitter after the flood failed: $(tail -2 "$WORK/ew.txt")"
	stop_reflector
	sent=$(jqv "$WORK/ew.json" .counts.sent)
	recv=$(jqv "$WORK/ew.json" .counts.received)
	[ "$sent" = 2000 ] && [ "$recv" = 2000 ]
	check_err $? "after the flood ($got; reflector socket $mem): sent $sent, received $recv (want 2000, 2000)"
	refused=$(jqv "$WORK/rw.json" .counts.refused)
	[ "${refused:-0}" -ge 9000 ]
	check_err $? "the reflector refused $refused of the flood's pings (want 9,000 or more: $got)"
	log_test "sessions: 10,000 new sessions from one address ($refused refused), then 2,000 of 2,000"
}

# The same on one TCP connection to a --tcp reflector: its refusals ask
# for no TX stamp either, so the connection's error queue, which shares
# its receive memory, never holds them; every ping gets its answer.
sessions_refusal_flood_tcp() {
	local other=10.77.0.3 got replies refused mem r rb
	setup_pair || skip_test "cannot create namespaces and veth"
	ip -n "$NS_A" addr add "$other/24" dev "$VETH_A"
	ip netns exec "$NS_B" taskset -c 1 "$RANT" -i "$VETH_B" --tcp \
		-j "$WORK/rt.json" >"$WORK/rt.txt" 2>&1 &
	REFL=$!
	defer kill -9 "$REFL"
	wait_until 10 eval "ip netns exec $NS_B ss -Hltn 'sport = :$PORT' | grep -q ."
	check_err $? "the TCP reflector did not listen: $(tail -2 "$WORK/rt.txt")"
	HOLD_FILE=$WORK/hold ip netns exec "$NS_A" "$PYTHON" "$TOP/tests/net/udp_probe.py" \
		"$IP_B" "$PORT" sessions-tcp 10000 2000 "$other" >"$WORK/flood.txt" &
	local fpid=$!
	defer kill -9 "$fpid"
	# its answers read, the connection still open: the reflector's side's
	# receive memory (its queue and the error queue it shares)
	wait_until 20 test -e "$WORK/hold"
	mem=$(ip netns exec "$NS_B" ss -Htnm "sport = :$PORT" | grep -o 'r[0-9]*,rb[0-9]*' | head -1)
	rm -f "$WORK/hold"
	wait "$fpid"
	got=$(cat "$WORK/flood.txt")
	r=${mem%%,*}; r=${r#r}; rb=${mem##*rb}
	[ -n "$r" ] && [ "$r" -lt $((rb / 8)) ]
	check_err $? "the flooding connection holds $r of its $rb bytes of receive memory on the reflector (want under 1/8)"
	emit -a "$IP_B" --tcp -c 2000 --interval 500 --timeout 1000000 -j "$WORK/et.json" \
		>"$WORK/et.txt" 2>&1
	check_err $? "the TCP emitter after the flood failed: $(tail -2 "$WORK/et.txt")"
	stop_reflector
	replies=$(sed -n 's/.* replies=\([0-9]*\) .*/\1/p' <<<"$got")
	refused=$(jqv "$WORK/rt.json" .counts.refused)
	[ "$got" = "sessions_sent=10000 replies=10000 refused=$refused" ]
	check_err $? "the flooding connection: $got, the reflector refused $refused (want every ping answered)"
	[ "$(jqv "$WORK/et.json" .counts.received)" = 2000 ]
	check_err $? "the TCP emitter after the flood received $(jqv "$WORK/et.json" .counts.received) of 2000"
	log_test "sessions --tcp: 10,000 new sessions on one connection, $replies answered ($mem), then 2,000 of 2,000"
}

tests_run
