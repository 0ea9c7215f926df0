#!/usr/bin/env bash
# Counts that add up (issue 9): every datagram sent at a reflector is
# either read (and counted) or counted as dropped by the kernel
# (socket_drops, from SO_RXQ_OVFL), checked against the namespace's own
# UDP RcvbufErrors; pongs of warm-up pings never count as the measured
# run's late or duplicate; loss also as a percentage; the reflector's -w
# leaves each session's first N measured pings out; a spinning rant that
# may share a CPU with another spinning rant says so at start.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_cmd jq ss taskset
require_rant

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="counts_flood counts_flood_stopped counts_normal counts_warmup_late
	counts_reflector_warmup counts_cpu_shared"

FLOOD=600

# UDP RcvbufErrors of namespace $1, IPv4 and IPv6 together.
rcvbuf_errors() {
	ip netns exec "$1" awk '
		$1 == "Udp:" && !h { for (i = 2; i <= NF; i++) if ($i == "RcvbufErrors") c = i; h = 1; next }
		$1 == "Udp:" && h { n += $c }
		$1 == "Udp6RcvbufErrors" { n += $2 }
		END { print n + 0 }' /proc/net/snmp /proc/net/snmp6
}

__queue_empty() {
	[ "$(ip netns exec "$NS_B" ss -Hlun "sport = :$PORT" | awk '{ print $2 }')" = 0 ]
}

# flood_reflector NAME [stopped N]: $FLOOD (or N) garbage datagrams at a
# reflector (stopped with SIGSTOP while they arrive, if asked), which then
# reads its queue empty and stops; its JSON in $WORK/NAME.json, the
# datagrams sent in $FLOODED, those the kernel took in $SENT, the
# namespace's new RcvbufErrors in $SNMP_DROPS.
flood_reflector() {
	local name=$1 how=${2:-} before
	FLOODED=${3:-$FLOOD}
	setup_pair || skip_test "cannot create namespaces and veth"
	start_reflector "$name" -j "$WORK/$name.json" || return 1
	wait_until 10 grep -q '^timestamps:' "$WORK/$name.txt"
	before=$(rcvbuf_errors "$NS_B")
	[ "$how" = stopped ] && kill -STOP "$REFL"
	ip netns exec "$NS_A" "$PYTHON" "$TOP/tests/net/udp_probe.py" "$IP_B" "$PORT" \
		flood "$FLOODED" >"$WORK/flood.txt"
	check_err $? "udp_probe.py flood failed: $(tail -3 "$WORK/flood.txt")"
	[ "$how" = stopped ] && kill -CONT "$REFL"
	SENT=$(sed -n 's/^flood_sent=//p' "$WORK/flood.txt")
	wait_until 10 __queue_empty
	check_err $? "the reflector did not read its queue empty in 10 s"
	SNMP_DROPS=$(($(rcvbuf_errors "$NS_B") - before))
	stop_reflector
	check_err "$REFL_RC" "reflector exit $REFL_RC: $(tail -3 "$WORK/$name.txt")"
}

# check_accounted NAME: invalid + socket_drops = sent, and the drops are
# the kernel's; the text says the same.
check_accounted() {
	local j=$WORK/$1.json inv drops
	inv=$(jqv "$j" .counts.invalid)
	drops=$(jqv "$j" .counts.socket_drops)
	[ "$SENT" = "$FLOODED" ]; check_err $? "the sender's kernel took $SENT of $FLOODED"
	[ $((inv + drops)) = "$SENT" ]
	check_err $? "invalid $inv + socket_drops $drops != $SENT sent"
	[ "$drops" = "$SNMP_DROPS" ]
	check_err $? "socket_drops $drops, but the namespace counted $SNMP_DROPS RcvbufErrors"
	grep -Eq "invalid $inv, socket drops $drops," "$WORK/$1.txt"
	check_err $? "the text does not say 'invalid $inv, socket drops $drops': $(grep invalid "$WORK/$1.txt")"
}

# A flood at a running reflector: whatever it could not keep up with is
# counted dropped.
counts_flood() {
	flood_reflector rf || return
	check_accounted rf
	log_test "flood of $FLOOD: invalid $(jqv "$WORK/rf.json" .counts.invalid) + socket_drops $(jqv "$WORK/rf.json" .counts.socket_drops) = sent"
}

# A flood at a stopped reflector: the queue fills, the rest is dropped,
# and no datagram read afterwards carries the count (it is read at the end).
# The reflector's receive buffer is 4 MiB (src/transport/udp.c; the kernel doubles
# it): FLOOD_STOPPED datagrams overflow it (a 72-byte datagram takes about
# 1 KB of it on veth).
FLOOD_STOPPED=30000
counts_flood_stopped() {
	local drops
	flood_reflector rs stopped "$FLOOD_STOPPED" || return
	check_accounted rs
	drops=$(jqv "$WORK/rs.json" .counts.socket_drops)
	[ "$drops" -gt 0 ]; check_err $? "no drops counted though the reflector was stopped"
	log_test "flood of $FLOODED at a stopped reflector: $drops dropped, the rest invalid"
}

# A normal run: nothing late without loss; loss_pct is lost / sent.
counts_normal() {
	local j=$WORK/en.json sent lost late pct want
	setup_pair || skip_test "cannot create namespaces and veth"
	start_reflector rn -j "$WORK/rn.json" || return
	emit -a "$IP_B" -c 3000 -j "$j" >"$WORK/en.txt" 2>&1
	check_err $? "emitter exit: $(tail -3 "$WORK/en.txt")"
	stop_reflector
	sent=$(jqv "$j" .counts.sent)
	lost=$(jqv "$j" .counts.lost)
	late=$(jqv "$j" .counts.late)
	pct=$(jqv "$j" .counts.loss_pct)
	[ "$lost" -gt 0 ] || [ "$late" = 0 ]
	check_err $? "late $late with lost 0: late pongs of warm-up pings counted as the run's"
	want=$(awk -v l="$lost" -v s="$sent" 'BEGIN { printf "%.2f", 100 * l / s }')
	[ "$(printf '%.2f' "$pct")" = "$want" ]; check_err $? "loss_pct $pct, lost/sent is $want %"
	grep -Eq "lost $lost \($want%\), late $late," "$WORK/en.txt"
	check_err $? "the text does not say 'lost $lost ($want%)': $(grep 'lost' "$WORK/en.txt")"
	for side in en rn; do
		[ "$(jqv "$WORK/$side.json" .counts.socket_drops)" = 0 ]
		check_err $? "$side: $(jqv "$WORK/$side.json" .counts.socket_drops) socket drops in a quiet run"
	done
	log_test "a normal run: lost $lost ($want%), late $late, no socket drops"
}

# The reflector stopped for 50 ms during the warm-up: the pongs of the
# pings that timed out meanwhile come late, and count as warmup_late.
counts_warmup_late() {
	local j=$WORK/ew.json wl late lost
	setup_pair || skip_test "cannot create namespaces and veth"
	start_reflector rw || return
	emit_bg ew -a "$IP_B" -w 50000 --timeout 2000 -c 500 -j "$j"
	wait_for_line "$WORK/ew.txt" '^rant .* emit:' 10
	kill -STOP "$REFL"
	sleep 0.05
	kill -CONT "$REFL"
	grep -q '^measuring:' "$WORK/ew.txt"
	check_fail $? "the warm-up was over before the reflector was stopped: $(grep measuring "$WORK/ew.txt")"
	wait "$EM"; check_err $? "emitter exit: $(tail -3 "$WORK/ew.txt")"
	stop_reflector
	wl=$(jqv "$j" .counts.warmup_late)
	late=$(jqv "$j" .counts.late)
	lost=$(jqv "$j" .counts.lost)
	[ "$wl" -ge 5 ]; check_err $? "warmup_late $wl: about 25 warm-up pongs came late"
	[ "$late" -le "$lost" ]; check_err $? "late $late > lost $lost: warm-up pongs counted as the run's"
	grep -Eq "warmup [0-9]+ \(late $wl, duplicate [0-9]+\)" "$WORK/ew.txt"
	check_err $? "the text does not say 'warmup N (late $wl, ...)': $(grep warmup "$WORK/ew.txt")"
	log_test "warm-up pongs that come late count apart: warmup_late $wl; late $late of $lost lost"
}

# The reflector's -w 300: each session's first 300 measured pings are
# answered but left out of its statistics, counted as warm-up.
counts_reflector_warmup() {
	local rj=$WORK/rr.json ej=$WORK/er.json sent lost ew rrecv rw samples left
	setup_pair || skip_test "cannot create namespaces and veth"
	start_reflector rr --warmup 300 -j "$rj" || return
	emit -a "$IP_B" -w 50 -c 1000 -j "$ej" >"$WORK/er.txt" 2>&1
	check_err $? "emitter exit: $(tail -3 "$WORK/er.txt")"
	stop_reflector
	check_err "$REFL_RC" "reflector exit $REFL_RC: $(tail -3 "$WORK/rr.txt")"
	sent=$(jqv "$ej" .counts.sent)
	lost=$(jqv "$ej" .counts.lost)
	ew=$(jqv "$ej" .counts.warmup)
	rrecv=$(jqv "$rj" .counts.received)
	rw=$(jqv "$rj" .counts.warmup)
	samples=$(jqv "$rj" .metrics.response.samples)
	left=$(jqv "$rj" '.sessions[0].left_out')
	[ "$left" = 300 ]; check_err $? "the session left $left out, not 300"
	# Every measured ping reached the reflector, unless it was lost.
	[ "$rrecv" -le $((sent - 300)) ] && [ "$rrecv" -ge $((sent - 300 - lost)) ]
	check_err $? "reflector received $rrecv measured, emitter sent $sent ($lost lost) and 300 left out"
	[ "$rw" -ge $((ew + 300 - lost)) ] && [ "$rw" -le $((ew + 300)) ]
	check_err $? "reflector warmup $rw, emitter warmup $ew + 300 left out"
	[ "$samples" -le "$rrecv" ] && [ "$samples" -ge $((rrecv - 1)) ]
	check_err $? "$samples response samples of $rrecv measured pings"
	[ "$(jqv "$rj" .config.warmup)" = 300 ]; check_err $? "the JSON's config.warmup is not 300"
	grep -q "(-w left out 300)" "$WORK/rr.txt"
	check_err $? "the session line does not say '(-w left out 300)': $(grep session "$WORK/rr.txt")"
	log_test "reflector -w 300: $rrecv of $sent measured, warmup $rw"
}

# cpu_warning FILE: the start-up warning of a shared CPU in FILE, if any.
cpu_warning() {
	grep -E '^warning: this rant and rant pid [0-9]+ .* may both run on CPUs? ' "$1"
}

# A spinning reflector allowed on every CPU: an unpinned spinning emitter
# is warned (before its first packet), one with --block is not, and one
# pinned to a CPU the reflector may not use does not name it.
counts_cpu_shared() {
	local rpid line
	setup_pair || skip_test "cannot create namespaces and veth"
	[ "$(nproc)" -ge 2 ] || skip_test "needs 2 CPUs to pin apart"
	ip netns exec "$NS_B" "$RANT" -i "$VETH_B" >"$WORK/ru.txt" 2>&1 &
	rpid=$!
	defer kill -9 "$rpid"
	wait_udp_port "$NS_B" "$PORT"
	check_err $? "the reflector did not bind: $(tail -3 "$WORK/ru.txt")"

	ip netns exec "$NS_A" "$RANT" -i "$VETH_A" -a "$IP_B" -c 20 >"$WORK/eu.txt" 2>&1
	check_err $? "unpinned emitter exit: $(tail -3 "$WORK/eu.txt")"
	line=$(cpu_warning "$WORK/eu.txt")
	check_err $? "no warning for two unpinned spinners: $(head -5 "$WORK/eu.txt")"
	[ "$(grep -n -m1 -E '^warning: this rant' "$WORK/eu.txt" | cut -d: -f1)" -lt \
	  "$(grep -n -m1 '^measuring:' "$WORK/eu.txt" | cut -d: -f1)" ]
	check_err $? "the warning came after measuring began"
	log_test "cpu shared: unpinned spinners are warned: ${line:0:60}..."

	ip netns exec "$NS_A" "$RANT" -i "$VETH_A" -a "$IP_B" -c 20 --block >"$WORK/eb.txt" 2>&1
	check_err $? "--block emitter exit: $(tail -3 "$WORK/eb.txt")"
	line=$(cpu_warning "$WORK/eb.txt")
	check_fail $? "warned with --block: $line"
	log_test "cpu shared: no warning with --block"

	kill -9 "$rpid"
	wait "$rpid" 2>/dev/null
	start_reflector rp || return	# pinned to CPU 1
	emit -a "$IP_B" -c 20 >"$WORK/ep.txt" 2>&1	# pinned to CPU 0
	check_err $? "pinned emitter exit: $(tail -3 "$WORK/ep.txt")"
	stop_reflector
	# Another test's rant on this machine may share CPU 0; never ours.
	line=$(cpu_warning "$WORK/ep.txt")
	[[ "$line" != *"rant pid $REFL "* ]]
	check_err $? "warned of the reflector pinned to another CPU: $line"
	log_test "cpu shared: emitter and reflector pinned apart are not warned of each other"
}

tests_run
