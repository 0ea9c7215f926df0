#!/usr/bin/env bash
# rant --tcp and size sweeps over veth: Nagle's algorithm meeting delayed
# ACKs is seen at the delayed-ACK timer and diagnosed, --nodelay is fast
# and undiagnosed, both sides' counts and logs agree; UDP and TCP sweeps
# give every size in one JSON with a fitted line (and UDP warns where it
# fragments); a reflector that goes away, garbage on the stream, and
# sizes over the limits. Many clients at once: connections held idle or
# in a partial frame (tcp_hold.py) neither lock an emitter out nor
# outlast --tcp-idle-timeout; connections over --max-sessions take the
# idlest's slots; one over --max-sessions-per-address is closed at
# accept, and an emitter turned away so says why; three emitters at once
# are three sessions. -d bounds the whole run, warm-up included, when
# each warm-up ping takes 44 ms.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="tcp_nagle tcp_nodelay tcp_sweep tcp_sweep_nagle udp_sweep udp_sweep_metrics tcp_peer_gone
	tcp_garbage tcp_size_limit tcp_many_idle tcp_many_fifty tcp_many_timeout
	tcp_many_cap tcp_many_per_address tcp_many_emitters tcp_many_slow_reader
	tcp_duration_warmup tcp_reflector_nagle tcp_diagnosis_modes tcp_ipv6_bracketed tcp_refused_emitter
	tcp_refused_midrun"

require_root
require_cmd jq ss taskset timeout
PYTHON=${PYTHON:-/usr/bin/python3}

# ---- for a lib.sh without tests_run (each test in a bare subshell) ----
declare -F skip_test >/dev/null || skip_test() { skip "$@"; }
TCP_FAILS=$WORK/tcp-fails
# A test's own work directory and cleanup, and its failure reported to
# the file's exit status (the subshell's own is not looked at).
tcp_scope() {
	declare -F tests_run >/dev/null && return 0
	__deferred=()
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/rant-tcp.XXXXXX")
	# shellcheck disable=SC2064  # the test's name now
	trap "[ \"\$FAILED\" = 0 ] && [ \"\$RET\" = 0 ] || echo ${FUNCNAME[2]} >>'$TCP_FAILS'; __run_deferred" EXIT
}
declare -F tests_run >/dev/null || finish() {
	[ -s "$TCP_FAILS" ] && exit 1
	exit "$FAILED"
}

[ -x "$RANT" ] || skip "rant is not built (make)"

# emit_bg when lib.sh has none: like emit, in the background.
declare -F emit_bg >/dev/null || emit_bg() {
	local name=$1
	shift
	ip netns exec "$NS_A" taskset -c 0 "$RANT" -i "$VETH_A" "$@" >"$WORK/$name.txt" 2>&1 &
	EM=$!
	defer kill -9 "$EM"
}


pair() {
	tcp_scope
	setup_pair || skip_test "cannot create namespaces and veth"
}

__tcp_listening() {
	ip netns exec "$NS_B" ss -Hltn "sport = :$PORT" 2>/dev/null | grep -q .
}

# start_tcp_reflector NAME ARGS...: rant --tcp reflecting in NS_B on
# CPU 1, text in $WORK/NAME.txt, pid in $REFL; returns once it listens.
start_tcp_reflector() {
	local name=$1 i
	shift
	ip netns exec "$NS_B" taskset -c 1 "$RANT" -i "$VETH_B" --tcp "$@" \
		>"$WORK/$name.txt" 2>&1 &
	REFL=$!
	defer kill -9 "$REFL"
	for ((i = 0; i < 500; i++)); do
		__tcp_listening && return 0
		kill -0 "$REFL" 2>/dev/null || break
		sleep 0.02
	done
	check_err 1 "reflector $name does not listen on TCP port $PORT: $(tail -3 "$WORK/$name.txt")"
	return 1
}

# wait_listening: until something listens on TCP $PORT in NS_B.
wait_listening() {
	local i
	for ((i = 0; i < 250; i++)); do
		__tcp_listening && return 0
		sleep 0.02
	done
	check_err 1 "nothing listens on TCP port $PORT in $NS_B"
	return 1
}

# diag_share JSON KIND: the share of the exchanges the packets' diagnosis
# gives KIND (0 when not named), rounded to 0 or 1 above one half.
diag_share() {
	jq -r --arg k "$2" '[.diagnosis[]? | select(.kind == $k) | .share] | first // 0 |
		if . > 0.5 then 1 else 0 end' "$1"
}

# in_range VALUE LO HI: LO <= VALUE <= HI (integers).
in_range() {
	[ "$1" -ge "$2" ] && [ "$1" -le "$3" ]
}

# counts_agree NAME: the emitter's and reflector's JSONs and logs
# ($WORK/eNAME.*, $WORK/rNAME.*) tell the same story.
counts_agree() {
	local e=$WORK/e$1 r=$WORK/r$1 es er el rr rs
	es=$(jqv "$e.json" .counts.sent)
	er=$(jqv "$e.json" .counts.received)
	el=$(jqv "$e.json" .counts.lost)
	rr=$(jqv "$r.json" .counts.received)
	rs=$(jqv "$r.json" .counts.sent)
	[ $((er + el)) = "$es" ]; check_err $? "emitter received $er + lost $el != sent $es"
	[ "$rr" = "$es" ]; check_err $? "reflector received $rr, emitter sent $es"
	[ "$rs" = "$rr" ]; check_err $? "reflector sent $rs != received $rr"
	[ "$(jqv "$e.json" .counts.warmup)" = "$(jqv "$r.json" .counts.warmup)" ]
	check_err $? "warm-up: emitter sent $(jqv "$e.json" .counts.warmup), reflector got $(jqv "$r.json" .counts.warmup)"
	# a row per pong, and a LOST row per lost ping
	[ $(($(wc -l <"$e.log") - 2)) = $((er + el)) ]; check_err $? "emitter log rows != received $er + lost $el"
	[ $(($(wc -l <"$r.log") - 2)) = "$rr" ]; check_err $? "reflector log rows != received $rr"
	[ "$(jqv "$e.json" .metrics.rtt.samples)" = "$er" ]; check_err $? "rtt samples != received $er"
	[ "$(jqv "$r.json" .tcp.accepted)" = 1 ]; check_err $? "reflector accepted $(jqv "$r.json" .tcp.accepted) connections, not 1"
	[ "$(jqv "$e.json" .config.transport)" = tcp ]; check_err $? "emitter JSON transport is not tcp"
	echo "$es"
}

# A message in two writes with Nagle on: the second write waits for the
# ACK of the first, which the reflector delays. The reflector sleeps in
# recv (--block), as a typical server does. --timeout 1 s: the round trip
# is 40 ms by design, too near the default 100 ms on a loaded machine.
tcp_nagle() {
	local rc p50 n
	pair
	# --diagnosis on: the reflector's responses are fast (the stall is the
	# emitter's), so auto would give its capture up after 32
	start_tcp_reflector r1 --block -s --diagnosis on -d 60 -l "$WORK/r1.log" -j "$WORK/r1.json" || return
	emit -a "$IP_B" --tcp --writes 2 -s -w 5 -c 40 --timeout 1000000 -l "$WORK/e1.log" -j "$WORK/e1.json" \
		>"$WORK/e1.txt" 2>&1
	rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e1.txt")"
	check_err "$REFL_RC" "reflector exit $REFL_RC: $(tail -3 "$WORK/r1.txt")"
	p50=$(jqv "$WORK/e1.json" '.metrics.rtt.percentiles."50"')
	in_range "$p50" 30000000 70000000
	check_err $? "rtt p50 $p50 ns is not at the delayed-ACK scale (30-70 ms)"
	grep -Eq '^diagnosis from the round trips: .*Nagle.*--nodelay' "$WORK/e1.txt"
	check_err $? "no diagnosis line naming Nagle and --nodelay: $(grep -i diag "$WORK/e1.txt")"
	jqv "$WORK/e1.json" .diagnosis_line | grep -q 'delayed-ACK'
	check_err $? "JSON diagnosis_line: $(jqv "$WORK/e1.json" .diagnosis_line)"
	# the packets, on both sides: the emitter's (the client's) Nagle
	[ "$(diag_share "$WORK/e1.json" client_nagle)" = 1 ] && [ "$(diag_share "$WORK/r1.json" client_nagle)" = 1 ]
	check_err $? "client_nagle not named on both sides: $(jq -c .diagnosis "$WORK/e1.json") $(jq -c .diagnosis "$WORK/r1.json")"
	# the ACK of the last byte comes with the pong, after the delay
	p50=$(jqv "$WORK/e1.json" '.metrics.emit_ack.percentiles."50"')
	in_range "${p50:-0}" 30000000 70000000
	check_err $? "emit_ack p50 $p50 ns: the ACK of the message's last byte should wait too"
	# theta is no offset when Nagle holds the second write: marked, not printed
	jqv "$WORK/e1.json" .clock.theta_unusable | grep -q 'Nagle on and --writes'
	check_err $? "theta_unusable: $(jqv "$WORK/e1.json" .clock.theta_unusable)"
	[ "$(jqv "$WORK/e1.json" .clock.peer_offset_ns)" = null ]
	check_err $? "theta printed as an offset: $(jqv "$WORK/e1.json" .clock.peer_offset_ns) ns"
	grep -q '^  peer: theta unusable, not an offset: over TCP with Nagle on' "$WORK/e1.txt"
	check_err $? "the text does not mark theta unusable: $(grep '^  peer' "$WORK/e1.txt")"
	n=$(counts_agree 1)
	log_test "--tcp --writes 2, Nagle on: p50 near 40 ms, diagnosed, theta marked unusable; $n transactions agree"
}

tcp_nodelay() {
	local rc p50 n out
	pair
	start_tcp_reflector r1 --block -s -d 60 -l "$WORK/r1.log" -j "$WORK/r1.json" || return
	# --diagnosis on: the packets of every exchange, which name nothing
	emit -a "$IP_B" --tcp --writes 2 --nodelay --diagnosis on -s -c 2000 --timeout 1000000 \
		-l "$WORK/e1.log" -j "$WORK/e1.json" >"$WORK/e1.txt" 2>&1
	rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e1.txt")"
	check_err "$REFL_RC" "reflector exit $REFL_RC: $(tail -3 "$WORK/r1.txt")"
	p50=$(jqv "$WORK/e1.json" '.metrics.rtt.percentiles."50"')
	[ "$p50" -lt 1000000 ]; check_err $? "rtt p50 $p50 ns is not below 1 ms with --nodelay"
	[ "$(jqv "$WORK/e1.json" '.metrics.emit_ack.samples')" -gt 0 ]
	check_err $? "no emit_ack samples: the TX_ACK stamps did not arrive"
	grep -q '^diagnosis from the round trips' "$WORK/e1.txt" ||
		! grep -q '^diagnosis: from the packets of [0-9]* exchanges.*: nothing held them' "$WORK/e1.txt"
	check_fail $? "a diagnosis with --nodelay: $(grep -A1 '^diagnosis' "$WORK/e1.txt")"
	[ "$(jqv "$WORK/e1.json" .diagnosis_line)" = null ] && [ "$(jqv "$WORK/e1.json" '.diagnosis | length')" = 0 ]
	check_err $? "JSON diagnosis with --nodelay: $(jq -c '[.diagnosis_line, .diagnosis]' "$WORK/e1.json")"
	grep -q '^emit_ack ' "$WORK/e1.txt"
	check_err $? "the summary does not show emit_ack"
	head -1 "$WORK/e1.log" | grep -q ' RESPONSE T_ACK_KN EMIT_ACK T1_SCHED LOST$'
	check_err $? "emitter log header without the ACK columns: $(head -1 "$WORK/e1.log")"
	[ "$(awk 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "EMIT_ACK") c = i }
		NR > 2 && $c != "-"' "$WORK/e1.log" | wc -l)" -gt 0 ]
	check_err $? "no EMIT_ACK values in the emitter's log"
	out=$("$PYTHON" "$TOP/tests/net/logcheck.py" "$WORK/e1.log" "$WORK/e1.json" RTT rtt)
	check_err $? "emitter log against its JSON: $out"
	out=$("$PYTHON" "$TOP/tests/net/logcheck.py" "$WORK/r1.log" "$WORK/r1.json" RESPONSE response)
	check_err $? "reflector log against its JSON: $out"
	n=$(counts_agree 1)
	log_test "--tcp --writes 2 --nodelay: p50 below 1 ms, no diagnosis; $n transactions agree"
}

# sweep_checks JSON NSIZES: one JSON with every size, each measured, and
# a positive fitted bandwidth.
sweep_checks() {
	local j=$1 want=$2 got bad bw
	got=$(jqv "$j" '.sizes | length')
	[ "$got" = "$want" ]; check_err $? "$got sizes in the JSON, not $want"
	bad=$(jqv "$j" '[.sizes[] | select(.metrics.rtt.samples < 1 or .metrics.rtt.percentiles."50" < 1)] | length')
	[ "$bad" = 0 ]; check_err $? "$bad sizes without samples"
	[ "$(jqv "$j" '[.sizes[].size] == .config.sizes')" = true ]
	check_err $? "sizes in the JSON $(jq -c '[.sizes[].size]' "$j") differ from -m $(jq -c .config.sizes "$j")"
	# one line when it holds, else a line per regime; never a slope <= 0
	bw=$(jqv "$j" '[.regimes[].bandwidth_bps // 0] | max | floor')
	[ "$bw" -gt 0 ]; check_err $? "fitted bandwidth $bw is not positive: $(jq -c .regimes "$j")"
	[ "$(jqv "$j" '[.regimes[] | select(.ns_per_byte != null and .ns_per_byte <= 0)] | length')" = 0 ]
	check_err $? "a regime with a slope not positive: $(jq -c .regimes "$j")"
	[ "$(jqv "$j" '.fit == null or (.fit.ns_per_byte > 0 and (.regimes | length) == 1)')" = true ]
	check_err $? "fit $(jq -c .fit "$j") with regimes $(jq -c .regimes "$j")"
}

# sweep_metrics_add_up JSON: each metric's samples over the sizes are the
# whole run's (a T3 that comes after the next size began counts in its own).
sweep_metrics_add_up() {
	local j=$1 bad
	bad=$(jq -c '. as $d | [.metrics | keys[] | select(. != "rtt_intended") | . as $k
		| [$k, $d.metrics[$k].samples, ([$d.sizes[].metrics[$k].samples // 0] | add)]
		| select(.[1] != .[2])]' "$j")
	[ "$bad" = "[]" ]; check_err $? "per-size samples do not add up to the run's: $bad"
}

tcp_sweep() {
	local rc
	pair
	start_tcp_reflector r1 -j "$WORK/r1.json" || return
	emit -a "$IP_B" --tcp --nodelay -m 64,1024,16384,65536,262144,1048576 -c 200 -w 20 \
		-j "$WORK/e1.json" >"$WORK/e1.txt" 2>&1
	rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e1.txt")"
	sweep_checks "$WORK/e1.json" 6
	[ "$(jqv "$WORK/r1.json" .counts.received)" = 1200 ]
	check_err $? "reflector received $(jqv "$WORK/r1.json" .counts.received), not 6 x 200"
	grep -q 'fragment' "$WORK/e1.txt"; check_fail $? "a fragmentation warning over TCP"
	grep -Eq '^  fit of p50: ' "$WORK/e1.txt"; check_err $? "no fitted line in the text"
	[ "$(grep -c '^sweep: size ' "$WORK/e1.txt")" = 6 ]; check_err $? "not one 'sweep: size' line per size"
	# every size has its ACK stamps' emit_ack, in the JSON and the text (at
	# 1 MiB not every message had its ACK stamp: 174 of 200 in one run)
	[ "$(jqv "$WORK/e1.json" '[.sizes[] | select(.metrics.emit_ack.samples >= 100
		and .metrics.emit_ack.percentiles."50" > 0)] | length')" = 6 ]
	check_err $? "not every size has emit_ack: $(jq -c '[.sizes[] | [.size, .metrics.emit_ack.samples]]' "$WORK/e1.json")"
	sweep_metrics_add_up "$WORK/e1.json"
	grep -A7 '^Size sweep: p50 of each metric' "$WORK/e1.txt" | grep -Eq '^ +1048576 +[0-9.]+ .*[0-9]+$'
	check_err $? "no row for 1048576 bytes in the per-metric table: $(grep -A7 '^Size sweep: p50' "$WORK/e1.txt")"
	grep -A1 '^Size sweep: p50 of each metric' "$WORK/e1.txt" | grep -q ' emit_ack'
	check_err $? "no emit_ack column in the per-metric table"
	log_test "TCP sweep of 6 sizes up to 1 MiB: every size in one JSON, positive bandwidth, emit_ack per size"
}

# The issue's sweep across the Nagle cliff: --writes 2 with Nagle on waits
# for the delayed ACK up to some size, not beyond (on veth, MTU 1500:
# 2048 bytes and 4096). The diagnosis names the sizes, the fit reports
# the cliff and no line with a negative slope.
tcp_sweep_nagle() {
	local rc slow fast
	pair
	start_tcp_reflector r1 --block -j "$WORK/r1.json" || return
	emit -a "$IP_B" --tcp --writes 2 -m 64:8192:x2 -c 15 -w 2 --timeout 1000000 \
		-j "$WORK/e1.json" >"$WORK/e1.txt" 2>&1
	rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e1.txt")"
	slow=$(jq -r '[.sizes[] | select(.delayed_ack) | .size] | join(" ")' "$WORK/e1.json")
	fast=$(jq -r '[.sizes[] | select(.delayed_ack | not) | .size] | join(" ")' "$WORK/e1.json")
	[ -n "$slow" ] && [ -n "$fast" ]; check_err $? "delayed ACK at sizes '$slow', not at '$fast': no cliff"
	grep -q "^diagnosis from the round trips: at sizes $slow bytes of 8 (size ${slow%% *}: .*Nagle" "$WORK/e1.txt"
	check_err $? "no sweep diagnosis naming $slow: $(grep -A1 '^diagnosis' "$WORK/e1.txt")"
	[ "$(jqv "$WORK/e1.json" .fit)" = null ]; check_err $? "one line: $(jq -c .fit "$WORK/e1.json")"
	[ "$(jq -r '[.regimes[] | select(.then == "cliff down") | .to] | join(" ")' "$WORK/e1.json")" = "${slow##* }" ]
	check_err $? "regimes $(jq -c .regimes "$WORK/e1.json"): no cliff down after ${slow##* }"
	[ "$(jqv "$WORK/e1.json" '[.regimes[] | select(.ns_per_byte != null and .ns_per_byte <= 0)] | length')" = 0 ]
	check_err $? "a negative slope among the regimes"
	grep -q '^  fit of p50: no one line holds (the sizes break), by regime:$' "$WORK/e1.txt"
	check_err $? "the text does not say the line breaks: $(grep -A3 '^  fit' "$WORK/e1.txt")"
	log_test "TCP sweep across the Nagle cliff: delayed ACK at $slow, not at $fast; cliff named, no negative slope"
}

udp_sweep() {
	local rc mtu
	pair
	mtu=$(ip -n "$NS_A" -j link show "$VETH_A" | jq -r '.[0].mtu')
	start_reflector r1 -j "$WORK/r1.json"
	emit -a "$IP_B" -m 64,256,1024,1472,4096,16384 -c 300 -w 20 \
		-j "$WORK/e1.json" >"$WORK/e1.txt" 2>&1
	rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e1.txt")"
	sweep_checks "$WORK/e1.json" 6
	# MTU 1500: 1472 bytes of UDP payload fit, 4096 and 16384 fragment
	grep -Eq "^warning: -m 4096 is above the path MTU .*\($mtu bytes: at most $((mtu - 28)) bytes" "$WORK/e1.txt"
	check_err $? "no fragmentation warning for 4096 bytes (MTU $mtu): $(grep -i mtu "$WORK/e1.txt")"
	grep -q '^warning: -m 16384 is above the path MTU' "$WORK/e1.txt"
	check_err $? "no fragmentation warning for 16384 bytes"
	grep -Eq '^warning: -m (64|256|1024|1472) ' "$WORK/e1.txt"
	check_fail $? "a fragmentation warning for a size that fits MTU $mtu"
	[ "$(jqv "$WORK/e1.json" .config.transport)" = udp ]; check_err $? "transport is not udp"
	# the fit breaks at fragmentation, and says so
	[ "$(jq -c '[.fragments_above, .regimes[0].to, .regimes[0].then]' "$WORK/e1.json")" = \
		"[$((mtu - 28)),1472,\"IP fragmentation\"]" ]
	check_err $? "regimes $(jq -c '[.fragments_above, .regimes]' "$WORK/e1.json")"
	grep -q "^  64-1472 bytes: .*; then IP fragmentation$" "$WORK/e1.txt"
	check_err $? "no regime line ending at fragmentation: $(grep -A4 '^  fit' "$WORK/e1.txt")"
	# the same warnings in the record: the JSON's warnings and the HTML page
	[ "$(jq -c '[.warnings[] | select(.code == "ip_fragmentation") | .text[0:7]]' \
		"$WORK/e1.json")" = '["-m 4096","-m 1638"]' ]
	check_err $? "JSON warnings: $(jq -c .warnings "$WORK/e1.json")"
	# small pictures: only the page's text is read (10 s to 7 s on a loaded
	# machine)
	"$PYTHON" "$TOP/tools/rant-plot" html "$WORK/page" "$WORK/e1.json" --size 320x200 \
		>/dev/null 2>&1
	check_err $? "rant-plot html failed"
	grep -q 'ip_fragmentation.*-m 4096 is above the path MTU' "$WORK/page/index.html"
	check_err $? "the HTML page has no fragmentation warning"
	log_test "UDP sweep of 6 sizes: one JSON, positive bandwidth, warnings above MTU $mtu (text, JSON, HTML)"
}

# A UDP sweep with -s and --one-way: every size has the components and
# the one-way delays (with the clocks' verdict) in the JSON, the text has
# their p50 per size, and each metric's samples add up to the run's.
udp_sweep_metrics() {
	local rc j got
	pair
	start_reflector r1
	emit -a "$IP_B" -m 64,256,1024,1472 -c 300 -w 20 -s --one-way \
		-j "$WORK/e1.json" >"$WORK/e1.txt" 2>&1
	rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e1.txt")"
	j=$WORK/e1.json
	# 64 bytes: too short for the reflector's stamps; its own side only
	got=$(jq -c '.sizes[0].metrics | keys' "$j")
	[ "$got" = '["emit_queue","emit_rx","emit_tx","rtt","rtt_sw"]' ]
	check_err $? "64 bytes has metrics $got"
	for m in emit_tx reflect_rx reflect_proc reflect_tx emit_rx owd_fwd owd_back response network; do
		got=$(jq -c --arg m "$m" '[.sizes[1:][] | .metrics[$m] | select(.samples > 250
			and .percentiles."50" > 0 and .percentiles."50" <= .max and .min <= .percentiles."50"
			and .percentile_precision != null and (.trusted | type) == "boolean")] | length' "$j")
		[ "$got" = 3 ]; check_err $? "$m in $got of the sizes 256-1472: $(jq -c --arg m "$m" '[.sizes[] | .metrics[$m]
			| [.samples, .percentiles."50"]]' "$j")"
	done
	[ "$(jqv "$j" '. as $d | [.sizes[1:][] | .metrics.owd_fwd.trusted == $d.metrics.owd_fwd.trusted] | all')" = true ]
	check_err $? "owd_fwd's verdict per size differs from the run's"
	sweep_metrics_add_up "$j"
	# the text: a column per metric, a row per size, 64 bytes without owd
	grep -A1 '^Size sweep: p50 of each metric against message size, us$' "$WORK/e1.txt" |
		grep -Eq '^ +bytes +rtt +response +network .* owd_fwd +owd_back'
	check_err $? "no per-metric header: $(grep -A2 '^Size sweep: p50' "$WORK/e1.txt")"
	got=$(grep -A6 '^Size sweep: p50 of each metric' "$WORK/e1.txt" | grep -Ec '^ +(64|256|1024|1472) ')
	[ "$got" = 4 ]; check_err $? "$got rows of 4 in the per-metric table"
	log_test "UDP sweep with -s --one-way: components and one-way delays per size (JSON, text), adding up to the run's"
}

# The reflector goes away mid-run: the emitter counts the loss and ends
# with exit 2 (never hangs); restarted in time, it reconnects.
tcp_peer_gone() {
	local rc start took lost
	pair
	# the reflector leaves after 1 s (the stimulus); the emitter gives up
	# 3 s after it (PEER_GONE_NS)
	start_tcp_reflector r1 -d 1 || return
	start=$SECONDS
	emit -a "$IP_B" --tcp --nodelay -d 60 -j "$WORK/e1.json" >"$WORK/e1.txt" 2>&1
	rc=$?
	took=$((SECONDS - start))
	[ "$rc" = 2 ]; check_err $? "emitter exit $rc, not 2, when the reflector went away: $(tail -3 "$WORK/e1.txt")"
	[ "$took" -lt 20 ]; check_err $? "the emitter took $took s to give up"
	grep -q 'TCP connection to .* broke' "$WORK/e1.txt"; check_err $? "no message naming the broken connection"
	lost=$(jqv "$WORK/e1.json" .counts.lost)
	[ "${lost:-0}" -gt 0 ]; check_err $? "lost $lost: the pings after the reflector left are not counted"
	[ "$(jqv "$WORK/e1.json" .stop_reason)" = "reflector gone" ]
	check_err $? "stop reason $(jqv "$WORK/e1.json" .stop_reason)"
	log_test "reflector gone mid-run: exit 2 after ${took} s, $lost pings lost"

	wait "$REFL" 2>/dev/null
	# the reflector leaves after 1 s and a new one is up at once: the
	# emitter reconnects before its next send (a failed try costs a
	# --timeout, 100 ms) and measures on until -d 3
	start_tcp_reflector r2 -d 1 || return
	emit_bg e2 -a "$IP_B" --tcp --nodelay -d 3 -j "$WORK/e2.json"
	wait "$REFL" 2>/dev/null
	start_tcp_reflector r3 -d 30 || return
	wait "$EM"
	rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc after a reflector restart: $(tail -3 "$WORK/e2.txt")"
	[ "$(jqv "$WORK/e2.json" .tcp.reconnects)" = 1 ]
	check_err $? "reconnects $(jqv "$WORK/e2.json" .tcp.reconnects), not 1"
	[ "$(jqv "$WORK/e2.json" '.counts.received')" -gt 0 ]; check_err $? "nothing received"
	log_test "reflector restarted: the emitter reconnects, $(jqv "$WORK/e2.json" .counts.lost) lost"
}

# Garbage on the stream: the reflector drops that connection, counts it,
# and serves the next; an emitter whose peer is not rant says so.
tcp_garbage() {
	local rc
	pair
	start_tcp_reflector r1 -j "$WORK/r1.json" || return
	# a length rant never sends, then an HTTP request
	ip netns exec "$NS_A" timeout 5 bash -c \
		"exec 3<>/dev/tcp/$IP_B/$PORT; printf '\\x7f\\xff\\xff\\xffRANT' >&3; cat <&3 >/dev/null"
	check_err $? "the reflector did not close a stream with a bad length"
	ip netns exec "$NS_A" timeout 5 bash -c \
		"exec 3<>/dev/tcp/$IP_B/$PORT; printf '\\x00\\x00\\x00\\x40GET / HTTP/1.1\\r\\n' >&3; cat <&3 >/dev/null"
	check_err $? "the reflector did not close a stream with a bad magic"
	emit -a "$IP_B" --tcp -c 200 -j "$WORK/e1.json" >"$WORK/e1.txt" 2>&1
	rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc after the garbage: $(tail -3 "$WORK/e1.txt")"
	[ "$(jqv "$WORK/r1.json" .tcp.dropped_garbage)" = 2 ]
	check_err $? "reflector dropped $(jqv "$WORK/r1.json" .tcp.dropped_garbage) connections for garbage, not 2"
	[ "$(jqv "$WORK/r1.json" .counts.invalid)" = 2 ]
	check_err $? "reflector counted $(jqv "$WORK/r1.json" .counts.invalid) invalid, not 2"
	[ "$(jqv "$WORK/r1.json" .counts.received)" = 200 ]
	check_err $? "reflector received $(jqv "$WORK/r1.json" .counts.received) after the garbage, not 200"
	log_test "garbage on the stream: the reflector drops and counts it, then serves"

	# a peer that is not rant: it answers every connection with garbage
	ip netns exec "$NS_B" timeout 30 "$PYTHON" -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(4)
while True:
    c, _ = s.accept()
    c.recv(4096)
    c.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")
    c.close()
' "$IP_B" "$PORT" &
	defer kill "$!"
	wait_listening || return
	emit -a "$IP_B" --tcp -w 5 -d 2 --warmup-timeout 2 >"$WORK/e2.txt" 2>&1
	rc=$?
	[ "$rc" = 2 ]; check_err $? "emitter exit $rc against a peer that is not rant: $(tail -3 "$WORK/e2.txt")"
	grep -q 'does not speak rant' "$WORK/e2.txt"
	check_err $? "the emitter does not say that the peer is not rant: $(tail -2 "$WORK/e2.txt")"
	log_test "garbage from the peer: the emitter drops it and says so"
}

tcp_size_limit() {
	local rc i
	pair
	emit -a "$IP_B" -m 65508 >"$WORK/e1.txt" 2>&1
	rc=$?
	[ "$rc" = 1 ]; check_err $? "UDP -m 65508: exit $rc, not 1"
	grep -q '65507.*--tcp' "$WORK/e1.txt"; check_err $? "UDP -m 65508: $(cat "$WORK/e1.txt")"
	emit -a "$IP_B" --tcp -m 1048577 >"$WORK/e2.txt" 2>&1
	rc=$?
	[ "$rc" = 1 ]; check_err $? "TCP -m 1048577: exit $rc, not 1"
	grep -q '1048576' "$WORK/e2.txt"; check_err $? "TCP -m 1048577: $(cat "$WORK/e2.txt")"
	start_tcp_reflector r1 -j "$WORK/r1.json" || return
	emit -a "$IP_B" --tcp --nodelay -m 1048576 -w 2 -c 20 --timeout 1000000 -j "$WORK/e3.json" >"$WORK/e3.txt" 2>&1
	rc=$?
	stop_reflector
	check_err $rc "TCP -m 1048576: exit $rc: $(tail -3 "$WORK/e3.txt")"
	[ "$(jqv "$WORK/e3.json" .counts.received)" = 20 ]
	check_err $? "TCP -m 1048576: received $(jqv "$WORK/e3.json" .counts.received), not 20"
	[ "$(jqv "$WORK/r1.json" .counts.invalid)" = 0 ]; check_err $? "the reflector found 1 MiB messages invalid"
	log_test "sizes: UDP over 65507 and TCP over 1 MiB refused; 1 MiB over TCP works"

	# a reflector with no connection still ends at -d, with exit 0
	start_tcp_reflector r2 -d 1 || return
	for ((i = 0; i < 500; i++)); do
		kill -0 "$REFL" 2>/dev/null || break
		sleep 0.02
	done
	! kill -0 "$REFL" 2>/dev/null
	check_err $? "an idle TCP reflector with -d 1 still runs after 10 s"
	wait "$REFL"
	check_err $? "the idle TCP reflector exited $? at -d"
	log_test "an idle TCP reflector (waiting to accept) ends at -d"
}

# hold NAME IDLE PARTIAL HOLD_S [SLOW]: tcp_hold.py in NS_A against the
# reflector, lines in $WORK/NAME.txt; returns once its connections are up.
hold() {
	ns_bg "$NS_A" "$PYTHON" "$TOP/tests/net/tcp_hold.py" "$IP_B" "$PORT" "${@:2}" \
		>"$WORK/$1.txt" 2>&1
	wait_for_line "$WORK/$1.txt" '^up ' 15
	check_err $? "tcp_hold.py $1 did not connect: $(tail -3 "$WORK/$1.txt")"
}

# every_ping NAME N: the emitter's $WORK/NAME.json sent N and got N back.
every_ping() {
	local sent recv
	sent=$(jqv "$WORK/$1.json" .counts.sent)
	recv=$(jqv "$WORK/$1.json" .counts.received)
	[ "$sent" = "$2" ] && [ "$recv" = "$2" ]
	check_err $? "emitter $1: sent $sent, received $recv (want $2, $2)"
}

# closed_within FILE KIND N LO HI: N lines "closed KIND AFTER_S" in FILE
# (tcp_hold.py), each AFTER_S in [LO, HI] seconds.
closed_within() {
	local n
	n=$(awk -v k="$2" -v lo="$4" -v hi="$5" \
		'$1 == "closed" && $2 == k && $3 >= lo && $3 <= hi' "$1" | wc -l)
	[ "$n" = "$3" ]
	check_err $? "$n $2 connections closed $4-$5 s after they were up, not $3: $(grep -c "^closed $2" "$1") closed in all"
}

# An idle connection and one stopped 6 bytes into a frame, held while an
# emitter measures: it measures every ping (on a3b912d the reflector
# served the idle one for ever: the emitter got nothing). The default
# --tcp-idle-timeout (5 s) then closes both, counted apart.
tcp_many_idle() {
	local rc end
	pair
	start_tcp_reflector r1 --block -d 60 -j "$WORK/r1.json" || return
	hold h1 1 1 30 || return
	emit -a "$IP_B" --tcp -c 200 -w 20 --timeout 1000000 -j "$WORK/e1.json" >"$WORK/e1.txt" 2>&1
	rc=$?
	end=$EPOCHREALTIME
	check_err $rc "emitter exit $rc beside an idle connection: $(tail -3 "$WORK/e1.txt")"
	every_ping e1 200
	# both were still open when the emitter ended
	awk -v end="$end" '$1 == "closed" && $4 < end { bad = 1 } END { exit bad }' "$WORK/h1.txt"
	check_err $? "a held connection closed before the emitter ended (at $end): $(cat "$WORK/h1.txt")"
	wait_for_line "$WORK/h1.txt" '^open ' 15
	stop_reflector
	check_err "$REFL_RC" "reflector exit $REFL_RC: $(tail -3 "$WORK/r1.txt")"
	closed_within "$WORK/h1.txt" idle 1 4.9 7
	closed_within "$WORK/h1.txt" partial 1 4.9 7
	[ "$(jqv "$WORK/r1.json" .tcp.idle_timeouts)" = 1 ] &&
		[ "$(jqv "$WORK/r1.json" .tcp.partial_timeouts)" = 1 ]
	check_err $? "timeouts in the JSON: $(jq -c .tcp "$WORK/r1.json")"
	[ "$(jqv "$WORK/r1.json" .tcp.idle_timeout_ns)" = 5000000000 ]
	check_err $? "the default --tcp-idle-timeout is not 5 s: $(jq -c .tcp "$WORK/r1.json")"
	grep -q 'timed out idle 1, in a message 1' "$WORK/r1.txt"
	check_err $? "the text does not count the timeouts: $(grep '^tcp:' "$WORK/r1.txt")"
	log_test "an idle and a partial connection held: the emitter measured 200 of 200; both closed at 5 s"
}

# 50 connections at once (25 idle, 25 in a frame) and an emitter: all are
# accepted and served together (on a3b912d the backlog of 4 refused the
# emitter in 0.12 s). All from one address: its share raised to hold them
# (--max-sessions-per-address, 16 by default, is tcp_many_per_address's).
tcp_many_fifty() {
	local rc
	pair
	start_tcp_reflector r1 --block -d 60 --max-sessions-per-address 64 -j "$WORK/r1.json" ||
		return
	hold h1 25 25 30 || return
	grep -qx 'up idle=25 partial=25' "$WORK/h1.txt"
	check_err $? "not all 50 connected: $(grep -v '^closed' "$WORK/h1.txt")"
	emit -a "$IP_B" --tcp -c 200 -w 20 --timeout 1000000 -j "$WORK/e1.json" >"$WORK/e1.txt" 2>&1
	rc=$?
	stop_reflector
	check_err "$REFL_RC" "reflector exit $REFL_RC: $(tail -3 "$WORK/r1.txt")"
	check_err $rc "emitter exit $rc beside 50 held connections: $(tail -3 "$WORK/e1.txt")"
	every_ping e1 200
	[ "$(jqv "$WORK/r1.json" .tcp.accepted)" = 51 ] && [ "$(jqv "$WORK/r1.json" .tcp.max_open)" = 51 ]
	check_err $? "not 51 connections open at once: $(jq -c .tcp "$WORK/r1.json")"
	[ "$(jqv "$WORK/r1.json" .counts.received)" = 200 ]
	check_err $? "reflector received $(jqv "$WORK/r1.json" .counts.received), not 200"
	log_test "50 connections held at once: the emitter measured 200 of 200, 51 open together"
}

# --tcp-idle-timeout 1: 10 idle and 10 partial connections closed after
# 1 s (the sweep: at most 1.25 s) and counted; an emitter pinging every
# 0.3 s all the while is never closed (21 from one address: its share
# raised).
tcp_many_timeout() {
	local rc
	pair
	start_tcp_reflector r1 --block -d 60 --tcp-idle-timeout 1 --max-sessions-per-address 64 \
		-j "$WORK/r1.json" || return
	emit_bg e1 -a "$IP_B" --tcp --block --interval 300000 -c 10 -w 2 --timeout 1000000 \
		-j "$WORK/e1.json"
	hold h1 10 10 20 || return
	wait_for_line "$WORK/h1.txt" '^open ' 15
	check_err $? "tcp_hold.py did not end: $(tail -3 "$WORK/h1.txt")"
	wait "$EM"
	rc=$?
	stop_reflector
	check_err "$REFL_RC" "reflector exit $REFL_RC: $(tail -3 "$WORK/r1.txt")"
	check_err $rc "the slow emitter exit $rc: $(tail -3 "$WORK/e1.txt")"
	every_ping e1 10
	[ "$(jqv "$WORK/e1.json" .tcp.reconnects)" = 0 ]
	check_err $? "the slow emitter was cut off: reconnects $(jqv "$WORK/e1.json" .tcp.reconnects)"
	grep -qx 'open 0' "$WORK/h1.txt"; check_err $? "held connections left open: $(tail -1 "$WORK/h1.txt")"
	closed_within "$WORK/h1.txt" idle 10 0.9 2.5
	closed_within "$WORK/h1.txt" partial 10 0.9 2.5
	[ "$(jqv "$WORK/r1.json" .tcp.idle_timeouts)" = 10 ] &&
		[ "$(jqv "$WORK/r1.json" .tcp.partial_timeouts)" = 10 ]
	check_err $? "timeouts in the JSON: $(jq -c .tcp "$WORK/r1.json")"
	log_test "--tcp-idle-timeout 1: 10 idle and 10 partial closed in 1-2.5 s and counted; a 0.3 s emitter kept"
}

# --max-sessions 3: three connections open; the next two take the slots
# of the two active least lately (the first two, closed at once:
# evicted, counted and said), none left in the backlog.
tcp_many_cap() {
	pair
	start_tcp_reflector r1 --block -d 60 --max-sessions 3 -j "$WORK/r1.json" || return
	hold h1 3 0 30 || return
	wait_until 5 eval "[ \"\$(ip netns exec $NS_B ss -Htn state established 'sport = :$PORT' | wc -l)\" = 3 ]"
	check_err $? "the reflector did not take the first 3 connections"
	hold h2 2 0 4 || return
	wait_for_line "$WORK/h2.txt" '^open ' 10
	wait_until 5 eval "[ \"\$(grep -c '^closed' $WORK/h1.txt)\" = 2 ]"
	stop_reflector
	check_err "$REFL_RC" "reflector exit $REFL_RC: $(tail -3 "$WORK/r1.txt")"
	closed_within "$WORK/h1.txt" idle 2 0 4
	grep -qx 'open 2' "$WORK/h2.txt"; check_err $? "the newcomers were closed: $(cat "$WORK/h2.txt")"
	[ "$(jqv "$WORK/r1.json" .tcp.evicted)" = 2 ] && [ "$(jqv "$WORK/r1.json" .tcp.refused)" = 0 ] &&
		[ "$(jqv "$WORK/r1.json" .tcp.max_open)" = 3 ]
	check_err $? "evicted/refused/max_open: $(jq -c .tcp "$WORK/r1.json")"
	grep -q '^rant: tcp connections: 0 refused, 1 evicted; the last, .*, evicted' "$WORK/r1.txt"
	check_err $? "no line said so: $(grep '^rant: tcp' "$WORK/r1.txt")"
	log_test "--max-sessions 3: connections 4 and 5 took the slots of the idlest, evicted and counted"
}

# --max-sessions-per-address 2: a third connection from one address,
# while its two are live, is closed at accept: refused, counted in the
# reflector's counts.refused and tcp.refused, and said on stderr.
tcp_many_per_address() {
	pair
	start_tcp_reflector r1 --block -d 60 --max-sessions-per-address 2 -j "$WORK/r1.json" ||
		return
	hold h1 2 0 30 || return
	hold h2 1 0 4 || return
	wait_for_line "$WORK/h2.txt" '^open ' 10
	grep -q '^closed' "$WORK/h1.txt"; check_fail $? "one of the first 2 was closed: $(cat "$WORK/h1.txt")"
	stop_reflector
	check_err "$REFL_RC" "reflector exit $REFL_RC: $(tail -3 "$WORK/r1.txt")"
	closed_within "$WORK/h2.txt" idle 1 0 1
	[ "$(jqv "$WORK/r1.json" .counts.refused)" = 1 ] && [ "$(jqv "$WORK/r1.json" .tcp.refused)" = 1 ]
	check_err $? "refused: counts $(jqv "$WORK/r1.json" .counts.refused), tcp $(jq -c .tcp "$WORK/r1.json")"
	grep -q "^rant: tcp connections: 1 refused, 0 evicted; the last, $IP_A port [0-9]*, refused" "$WORK/r1.txt"
	check_err $? "no line said so: $(grep '^rant: tcp' "$WORK/r1.txt")"
	log_test "--max-sessions-per-address 2: the third connection refused, counted and said"
}

# --max-sessions-per-address 1, held by one emitter: a second emitter
# from the same address has each connection closed at accept (refused).
# It says so in one line naming the limit and the fix, and exits 2
# (nothing measured); the first measures on, its connection never cut.
# On 2dfa43a it said only "no pong ... is rant reflecting there?".
tcp_refused_emitter() {
	local rc n
	pair
	start_tcp_reflector r1 --block -d 60 --max-sessions-per-address 1 -j "$WORK/r1.json" || return
	emit_bg e1 -a "$IP_B" --tcp --block --interval 10000 -d 30 -j "$WORK/e1.json"
	wait_measuring "$WORK/e1.txt" || return
	emit -a "$IP_B" --tcp --block -d 10 --warmup-timeout 1 -j "$WORK/e2.json" >"$WORK/e2.txt" 2>&1
	rc=$?
	kill -INT "$EM"
	wait "$EM"
	check_err $? "the first emitter exit $?: $(tail -3 "$WORK/e1.txt")"
	stop_reflector
	[ "$rc" = 2 ]; check_err $? "the second emitter exit $rc, not 2: $(tail -2 "$WORK/e2.txt")"
	grep -Eq "^rant: $IP_B port $PORT closed the connection at once, before any pong \([0-9]+ times\): likely its --max-sessions-per-address limit: raise --max-sessions-per-address on the reflector, or run fewer emitters from this address\$" "$WORK/e2.txt"
	check_err $? "the second emitter does not name the limit: $(tail -1 "$WORK/e2.txt")"
	n=$(jqv "$WORK/e2.json" .tcp.closed_before_pong)
	[ "$n" -ge 2 ] && [ "$n" = "$(jqv "$WORK/e2.json" .tcp.closed)" ] &&
		[ "$n" = "$(jqv "$WORK/r1.json" .tcp.refused)" ]
	check_err $? "closed before any pong $n: emitter $(jq -c .tcp "$WORK/e2.json"), reflector $(jq -c .tcp "$WORK/r1.json")"
	[ "$(jqv "$WORK/e1.json" .tcp.closed)" = 0 ] && [ "$(jqv "$WORK/e1.json" .counts.received)" -gt 0 ]
	check_err $? "the first emitter: $(jq -c '[.tcp, .counts.received]' "$WORK/e1.json")"
	log_test "--max-sessions-per-address 1, held: a second emitter told its $n connections were closed at once (exit 2)"
}

# --max-sessions-per-address 1, the emitter measuring; its connection is
# killed (ss -K) and a holder from the same address takes the one slot
# first, so each of the emitter's reconnects is closed at accept. The run
# goes on, its pings lost; at the end a warning names the limit and the
# fix (on 897e3d9 the summary said only "(K before any pong)"). The
# holder sends nothing: --tcp-idle-timeout (5 s) closes it, and the
# emitter's next connection is served at once, its old connection's
# session given up when it closed (on 897e3d9 the session table refused
# the new one's pings for 10 s more, its own old session still live).
# The holder connects every 2 ms; should the emitter's reconnect win the
# slot instead, its connection is killed again (3 tries).
tcp_refused_midrun() {
	local rc n held=
	pair
	start_tcp_reflector r1 --block -d 60 --max-sessions-per-address 1 -j "$WORK/r1.json" || return
	emit_bg e1 -a "$IP_B" --tcp --block --interval 300000 -d 10 -j "$WORK/e1.json"
	wait_measuring "$WORK/e1.txt" || return
	ns_bg "$NS_A" "$PYTHON" -c '
import socket, sys, time
while True:
    s = socket.create_connection(sys.argv[1:3])
    s.settimeout(0.3)
    try:
        if s.recv(1) == b"":
            raise ConnectionResetError
    except socket.timeout:
        print("held", flush=True)
        time.sleep(60)
    except OSError:
        pass
    s.close()
    time.sleep(0.002)' "$IP_B" "$PORT" >"$WORK/hold.txt" 2>&1
	for _ in 1 2 3; do
		ip netns exec "$NS_A" ss -K -tn dst "$IP_B" dport = :"$PORT" >/dev/null
		if wait_for_line "$WORK/hold.txt" '^held$' 2; then
			held=1
			break
		fi
	done
	[ -n "$held" ]; check_err $? "the holder never held the slot: $(tail -2 "$WORK/hold.txt")" || return
	wait "$EM"; rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e1.txt")"
	n=$(jqv "$WORK/e1.json" .tcp.closed_before_pong)
	[ "$n" -ge 2 ] && [ "$(jqv "$WORK/e1.json" .counts.lost)" -ge "$n" ] &&
		[ "$(jqv "$WORK/r1.json" .tcp.refused)" -ge "$n" ]
	check_err $? "closed before any pong $n: emitter $(jq -c '[.tcp, .counts.lost]' "$WORK/e1.json"), reflector $(jq -c .tcp "$WORK/r1.json")"
	grep -Eq "^warning: $IP_B port $PORT closed $n connections at once, before any pong on them \(of [0-9]+ it closed in all\): likely its --max-sessions-per-address limit turned reconnects away; a ping sent on such a connection is lost\$" "$WORK/e1.txt"
	check_err $? "no warning names the limit: $(grep -i warning "$WORK/e1.txt")"
	jq -e '[.warnings[] | select(.code == "tcp_closed_before_pong" and (.fix | test("max-sessions-per-address")))] | length == 1' \
		"$WORK/e1.json" >/dev/null
	check_err $? "JSON warnings: $(jq -c .warnings "$WORK/e1.json")"
	[ "$(jqv "$WORK/e1.json" .counts.refused)" = 0 ] && [ "$(jqv "$WORK/r1.json" .tcp.idle_timeouts)" = 1 ] &&
		[ "$(jqv "$WORK/e1.json" .counts.received)" -ge 3 ]
	check_err $? "after the holder timed out: emitter $(jq -c '.counts | [.received, .refused]' "$WORK/e1.json"), reflector $(jq -c .tcp "$WORK/r1.json")"
	log_test "--max-sessions-per-address 1 taken mid-run: $n reconnects closed at accept, warned with the fix; served again when the holder timed out"
}

# Three emitters at once against one reflector: each measures every ping
# and is a session of its own (on a3b912d the second and third waited
# for the first to end, and lost their pings meanwhile).
tcp_many_emitters() {
	local i pids=() rc n
	pair
	start_tcp_reflector r1 --block -d 60 -j "$WORK/r1.json" || return
	for i in 1 2 3; do
		emit_bg "e$i" -a "$IP_B" --tcp --block --interval 2000 -c 1000 -w 20 \
			--timeout 1000000 -j "$WORK/e$i.json"
		pids+=("$EM")
	done
	for i in 1 2 3; do
		wait "${pids[i - 1]}"
		rc=$?
		check_err $rc "emitter $i exit $rc: $(tail -3 "$WORK/e$i.txt")"
	done
	stop_reflector
	check_err "$REFL_RC" "reflector exit $REFL_RC: $(tail -3 "$WORK/r1.txt")"
	for i in 1 2 3; do
		every_ping "e$i" 1000
	done
	n=$(jqv "$WORK/r1.json" '[.sessions[] | select(.received == 1000)] | length')
	[ "$n" = 3 ]; check_err $? "$n sessions with 1000 received, not 3: $(jq -c '[.sessions[] | {address, received}]' "$WORK/r1.json")"
	[ "$(jqv "$WORK/r1.json" '[.sessions[].address] | unique | length')" = 3 ]
	check_err $? "the sessions' addresses are not 3: $(jq -c '[.sessions[].address]' "$WORK/r1.json")"
	# every pong's TX stamp found, on its own connection (byte offsets
	# alike on all three: a stamp taken from another would be missed or
	# out of order)
	[ "$(jqv "$WORK/r1.json" .counts.missing_tx_ts)" = 0 ] &&
		[ "$(jqv "$WORK/r1.json" .metrics.response.samples)" = 3000 ] &&
		[ "$(jqv "$WORK/r1.json" .counts.backwards_tx_ts)" = 0 ] &&
		[ "$(jqv "$WORK/r1.json" .metrics.response.min)" -gt 0 ]
	check_err $? "the reflector's stamps: $(jq -c '[.counts, .metrics.response.samples, .metrics.response.min]' "$WORK/r1.json")"
	# measured at the same time: each began before any ended
	jq -s -e 'map(.start_ns) | max' "$WORK"/e[123].json >"$WORK/start"
	jq -s -e 'map(.end_ns) | min' "$WORK"/e[123].json >"$WORK/end"
	[ "$(cat "$WORK/start")" -lt "$(cat "$WORK/end")" ]
	check_err $? "the emitters measured one after another: $(jq -c '[.start_ns, .end_ns]' "$WORK"/e[123].json)"
	[ "$(jqv "$WORK/r1.json" .tcp.max_open)" = 3 ]
	check_err $? "not 3 connections open at once: $(jq -c .tcp "$WORK/r1.json")"
	log_test "three TCP emitters at once: each measured 1000 of 1000, three sessions"
}

# A peer that sends 20 pings of 1 MiB and reads no pong for 3 s: the
# reflector keeps what its socket does not take of a pong and drops the
# rest (counted), and an emitter measures every ping all the while (on
# a3b912d the slow reader held the only connection). When the peer reads
# at last, it gets every pong not dropped, whole.
tcp_many_slow_reader() {
	local rc dropped
	pair
	start_tcp_reflector r1 --block -d 60 -j "$WORK/r1.json" || return
	hold h1 0 0 3 20 || return
	emit -a "$IP_B" --tcp -c 200 -w 20 --timeout 1000000 -j "$WORK/e1.json" >"$WORK/e1.txt" 2>&1
	rc=$?
	wait_for_line "$WORK/h1.txt" '^slow_pongs ' 15
	stop_reflector
	check_err "$REFL_RC" "reflector exit $REFL_RC: $(tail -3 "$WORK/r1.txt")"
	check_err $rc "emitter exit $rc beside a slow reader: $(tail -3 "$WORK/e1.txt")"
	every_ping e1 200
	dropped=$(jqv "$WORK/r1.json" .tcp.pongs_dropped)
	[ "$dropped" -ge 15 ] && [ "$dropped" -le 19 ]
	check_err $? "pongs dropped $dropped, not 15-19 of the slow reader's 20: $(jq -c .tcp "$WORK/r1.json")"
	[ "$(jqv "$WORK/r1.json" .counts.received)" = 220 ]
	check_err $? "reflector received $(jqv "$WORK/r1.json" .counts.received), not 200 + 20"
	grep -qx "slow_pongs $((20 - dropped)) bad 0" "$WORK/h1.txt"
	check_err $? "the slow reader's pongs, $dropped dropped: $(grep slow_pongs "$WORK/h1.txt")"
	log_test "a peer that reads no pong: $dropped of its pongs dropped, the emitter measured 200 of 200"
}

# -d bounds the whole run, warm-up included: each ping stalls ~44 ms
# (--writes 2, Nagle on, the reflector's delayed ACK), so -w 100 takes
# ~4.4 s of -d 5; the run ends by 5.5 s and says the warm-up took the
# time; with -d 3 the warm-up takes it all: exit 2, saying so, by 3.5 s.
tcp_duration_warmup() {
	local rc t0 t1 ms
	pair
	start_tcp_reflector r9 --block -d 60 || return
	t0=$(date +%s%N)
	emit -a "$IP_B" --tcp --writes 2 --timeout 1000000 -d 5 -j "$WORK/e9.json" >"$WORK/e9.txt" 2>&1
	rc=$?
	t1=$(date +%s%N)
	ms=$(((t1 - t0) / 1000000))
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e9.txt")"
	[ "$ms" -le 5500 ]; check_err $? "-d 5 ran $ms ms (the warm-up not counted?)"
	grep -Eq '^warning: the warm-up took [34]\.[0-9]{3} s of -d 5 s \(100 pings, 4[0-9]\.[0-9] ms each\): ' "$WORK/e9.txt"
	check_err $? "no line saying the warm-up took the time: $(grep -i warm "$WORK/e9.txt")"
	[ "$(jqv "$WORK/e9.json" '[.warnings[].code] | index("warmup_took_duration") != null')" = true ] &&
		[ "$(jqv "$WORK/e9.json" .stop_reason)" = duration ]
	check_err $? "JSON: stop $(jqv "$WORK/e9.json" .stop_reason), warnings $(jq -c '[.warnings[].code]' "$WORK/e9.json")"
	t0=$(date +%s%N)
	emit -a "$IP_B" --tcp --writes 2 --timeout 1000000 -d 3 >"$WORK/e10.txt" 2>&1
	rc=$?
	t1=$(date +%s%N)
	stop_reflector
	[ "$rc" = 2 ] && [ $(((t1 - t0) / 1000000)) -le 3500 ] &&
		grep -q 'the warm-up took the whole -d 3 s (.* pings, 4[0-9]\.[0-9] ms each): nothing measured; give a longer -d, or a smaller -w' "$WORK/e10.txt"
	check_err $? "-d 3: exit $rc after $(((t1 - t0) / 1000000)) ms: $(tail -2 "$WORK/e10.txt")"
	log_test "-d 5 with a 44-ms warm-up: ended in $ms ms, saying the warm-up took the time; -d 3: nothing measured, said"
}

# The reflector writes each pong twice (--writes 2, Nagle on): the tail
# waits for the emitter's delayed ACK of the first part, nginx's case.
# Both sides' packets name nagle_delayed_ack (the server's Nagle); the
# reflector's T3 is its pong's last byte leaving, so the wait is in the
# response (the reflector's side), not in the network.
tcp_reflector_nagle() {
	local rc rtt resp net
	pair
	start_tcp_reflector r11 --writes 2 --block -d 60 -j "$WORK/r11.json" || return
	emit -a "$IP_B" --tcp -w 10 -c 60 --timeout 1000000 -j "$WORK/e11.json" >"$WORK/e11.txt" 2>&1
	rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e11.txt")"
	[ "$(diag_share "$WORK/e11.json" nagle_delayed_ack)" = 1 ] &&
		[ "$(diag_share "$WORK/r11.json" nagle_delayed_ack)" = 1 ]
	check_err $? "nagle_delayed_ack not named on both sides: $(jq -c .diagnosis "$WORK/e11.json") $(jq -c .diagnosis "$WORK/r11.json")"
	grep -Eq '^  nagle_delayed_ack +[0-9.]+% of the exchanges' "$WORK/e11.txt"
	check_err $? "the emitter's text does not name it: $(grep -A2 '^diagnosis' "$WORK/e11.txt")"
	rtt=$(jqv "$WORK/e11.json" '.metrics.rtt.percentiles."50"')
	resp=$(jqv "$WORK/e11.json" '.metrics.response.percentiles."50" // 0')
	net=$(jqv "$WORK/e11.json" '.metrics.network.percentiles."50" // -1')
	in_range "$rtt" 30000000 70000000 && [ "$resp" -ge $((rtt * 9 / 10)) ] && in_range "$net" 0 1000000
	check_err $? "rtt p50 $rtt ns: response $resp ns, network $net ns (the wait belongs to the response)"
	log_test "reflector --writes 2: nagle_delayed_ack named on both sides; rtt p50 $((rtt / 1000)) us: response $((resp / 1000)) us, network $((net / 1000)) us"
}

# __packet_sockets PID: how many packet sockets (a capture's) PID holds
# in NS_B.
__packet_sockets() {
	ip netns exec "$NS_B" ss -H -0 -p 2>/dev/null | grep -c "pid=$1,"
}

tcp_diagnosis_modes() {
	local rc n n_after
	pair
	# off: no capture at all
	start_tcp_reflector r12 --nodelay --diagnosis off -d 60 -j "$WORK/r12.json" || return
	n=$(__packet_sockets "$REFL")
	emit -a "$IP_B" --tcp --nodelay --diagnosis off -w 5 -c 50 -j "$WORK/e12.json" \
		>"$WORK/e12.txt" 2>&1
	rc=$?
	stop_reflector
	check_err $rc "--diagnosis off: emitter exit $rc: $(tail -3 "$WORK/e12.txt")"
	[ "$n" = 0 ]
	check_err $? "--diagnosis off: the reflector holds $n packet sockets"
	[ "$(jq -c '[.diagnosis, .diagnosis_from, .diagnosis_left_out]' "$WORK/e12.json" "$WORK/r12.json" | sort -u)" = '[null,null,null]' ]
	check_err $? "--diagnosis off: a diagnosis in the JSON: $(jq -c '[.diagnosis_from, .diagnosis_left_out]' "$WORK/e12.json" "$WORK/r12.json")"
	# auto (the default), a fast pair: captured, then given up after 32
	start_tcp_reflector r13 --nodelay -d 60 -j "$WORK/r13.json" || return
	n=$(__packet_sockets "$REFL")
	emit -a "$IP_B" --tcp --nodelay -w 5 -c 200 -j "$WORK/e13.json" >"$WORK/e13.txt" 2>&1
	rc=$?
	n_after=$(__packet_sockets "$REFL")
	stop_reflector
	check_err $rc "auto: emitter exit $rc: $(tail -3 "$WORK/e13.txt")"
	[ "$n" -ge 1 ] && [ "$n_after" = 0 ]
	check_err $? "auto: the reflector's packet sockets $n at start (1 or more), $n_after after 200 fast responses (none)"
	[ "$(jq -c '[.diagnosis_left_out.after, .diagnosis_left_out.median_ns < 1000000, .diagnosis]' "$WORK/e13.json" "$WORK/r13.json" | sort -u)" = '[32,true,null]' ]
	check_err $? "auto: the capture not given up on both sides: $(jq -c '[.diagnosis_left_out, .diagnosis_from]' "$WORK/e13.json" "$WORK/r13.json")"
	grep -q '^diagnosis: left out: the first 32 round trips' "$WORK/e13.txt"
	check_err $? "auto: the emitter's text does not say the diagnosis was left out: $(grep -A1 '^diagnosis' "$WORK/e13.txt")"
	# on: the whole run, fast or not
	start_tcp_reflector r14 --nodelay --diagnosis on -d 60 -j "$WORK/r14.json" || return
	emit -a "$IP_B" --tcp --nodelay --diagnosis on -w 5 -c 200 -j "$WORK/e14.json" \
		>"$WORK/e14.txt" 2>&1
	rc=$?
	n_after=$(__packet_sockets "$REFL")
	stop_reflector
	check_err $rc "--diagnosis on: emitter exit $rc: $(tail -3 "$WORK/e14.txt")"
	[ "$n_after" -ge 1 ] && [ "$(jq -c '[.diagnosis_left_out, (.diagnosis_from.exchanges >= 200)]' "$WORK/e14.json" "$WORK/r14.json" | sort -u)" = '[null,true]' ]
	check_err $? "--diagnosis on: packet sockets $n_after at the end, $(jq -c '[.diagnosis_left_out, .diagnosis_from]' "$WORK/e14.json" "$WORK/r14.json")"
	log_test "--diagnosis: off captures nothing; auto gives a fast pair's capture up after 32 round trips (both sides); on keeps it"
}

# -a [IPv6] as every other part of rant reads it, the capture too (its
# filter from the same address): 50 measured, each exchange analysed.
tcp_ipv6_bracketed() {
	local rc
	pair
	start_tcp_reflector r15 --nodelay -d 60 || return
	emit -a "[$IP6_B]" --tcp --nodelay --diagnosis on -w 5 -c 50 -j "$WORK/e15.json" \
		>"$WORK/e15.txt" 2>&1
	rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e15.txt")"
	[ "$(jq -c '[.counts.received, .diagnosis_from.exchanges >= 50]' "$WORK/e15.json")" = '[50,true]' ]
	check_err $? "-a [$IP6_B]: $(jq -c '[.counts.received, .diagnosis_from]' "$WORK/e15.json")"
	log_test "--tcp -a [$IP6_B]: 50 measured, the capture's diagnosis from every exchange"
}

tests_run
