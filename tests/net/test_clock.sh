#!/usr/bin/env bash
# The clock checks of a run (src/run/clock.c) end to end, on two simulated PHC
# NICs (tests/sim/libsimnic.so) over veth: the NIC clock against the system
# clock (offset, drift, method fallbacks, warnings and untrusted
# components), the offset between the two hosts' wire clocks (theta), the
# one-way delays, missing and backwards stamps; and on plain veth (no PHC),
# theta near 0 from kernel stamps.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="clock_in_step clock_drift clock_offset clock_methods clock_theta
	clock_one_way clock_missing clock_reflector_bad clock_plain_veth clock_one_kernel"

SIM_LIB=$TOP/tests/sim/libsimnic.so

require_root
require_cmd ss jq
require_rant
[ -r "$SIM_LIB" ] || skip "the simulation is not built (make sim)"

pair() {
	setup_pair || skip_test "cannot create namespaces and veth"
}

# sim_pair NAME REFLECT_ARGS -- EMIT_ARGS: a rant reflector in NS_B and an
# emitter in NS_A, each under the shim with the environment of the arrays
# ENV_B / ENV_A (SIMNIC_IFACES is set here); text and JSON in
# $WORK/NAME.{r,e}.{txt,json}. Without the shim when NOSIM=1.
sim_pair() {
	local name=$1 refl rc pre_a=() pre_b=()
	local rargs=()
	shift
	while [ "$#" -gt 0 ] && [ "$1" != -- ]; do
		rargs+=("$1")
		shift
	done
	[ "$#" -gt 0 ] && shift
	if [ "${NOSIM:-0}" != 1 ]; then
		pre_a=(env LD_PRELOAD="$SIM_LIB" SIMNIC_IFACES="$VETH_A" "${ENV_A[@]}")
		pre_b=(env LD_PRELOAD="$SIM_LIB" SIMNIC_IFACES="$VETH_B" "${ENV_B[@]}")
	fi
	[ -n "${PRE_B:-}" ] && pre_b=("${PRE_B[@]}" "${pre_b[@]}")
	ip netns exec "$NS_B" "${pre_b[@]}" taskset -c 1 "$RANT" -i "$VETH_B" -d 120 \
		-j "$WORK/$name.r.json" "${rargs[@]}" >"$WORK/$name.r.txt" 2>&1 &
	refl=$!
	defer kill -9 "$refl"
	if ! wait_udp_port "$NS_B" "$PORT"; then
		check_err 1 "the reflector did not bind: $(tail -3 "$WORK/$name.r.txt")"
		return 1
	fi
	ip netns exec "$NS_A" "${pre_a[@]}" taskset -c 0 "$RANT" -i "$VETH_A" -a "$IP_B" \
		-j "$WORK/$name.e.json" "$@" >"$WORK/$name.e.txt" 2>&1
	rc=$?
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/$name.e.txt")"
	kill -INT "$refl"
	wait "$refl"
	rc=$?
	check_err $rc "reflector exit $rc: $(tail -3 "$WORK/$name.r.txt")"
}

# within VALUE LO HI: LO <= VALUE <= HI (numbers, decimals allowed)
within() {
	awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "" && v != "null" && v >= lo && v <= hi) }'
}

# nwarn JSON: the number of clock warnings
nwarn() {
	jqv "$1" '.clock.warnings | length'
}

# PHC and system clock together, hosts apart by nothing: no warning, all trusted
clock_in_step() {
	pair
	ENV_A=(SIMNIC_JITTER_NS=20)
	ENV_B=(SIMNIC_JITTER_NS=20)
	sim_pair s1 -s -- -s -d 3 --phc-interval 0.2
	[ "$(jqv "$WORK/s1.e.json" .timestamp_source)" = hardware ]
	check_err $? "not on the HW path: $(jqv "$WORK/s1.e.json" .timestamp_source)"
	[ "$(jqv "$WORK/s1.e.json" .clock.phc)" = /dev/ptp0 ]
	check_err $? "clock.phc: $(jqv "$WORK/s1.e.json" .clock.phc)"
	[ "$(jqv "$WORK/s1.e.json" .clock.phc_method)" = precise ]
	check_err $? "method: $(jqv "$WORK/s1.e.json" .clock.phc_method)"
	[ "$(nwarn "$WORK/s1.e.json")" = 0 ] && [ "$(nwarn "$WORK/s1.r.json")" = 0 ]
	check_err $? "warnings with the clocks together: $(jq -c .clock.warnings "$WORK/s1.e.json" "$WORK/s1.r.json")"
	[ "$(jq '[.metrics[] | select(.trusted == false)] | length' "$WORK/s1.e.json")" = 0 ]
	check_err $? "untrusted metrics: $(jq -c '[.metrics | to_entries[] | select(.value.trusted == false) | .key]' "$WORK/s1.e.json")"
	# a reading at start, every 0.2 s for about 3 s of warm-up and run, at the end
	within "$(jqv "$WORK/s1.e.json" .clock.phc_samples)" 8 40
	check_err $? "phc_samples $(jqv "$WORK/s1.e.json" .clock.phc_samples), not about 17"
	within "$(jqv "$WORK/s1.e.json" .clock.phc_offset_ns)" -100 100 &&
		within "$(jqv "$WORK/s1.e.json" .clock.phc_offset_end_ns)" -100 100
	check_err $? "offsets not within the jitter: $(jq -c '.clock | [.phc_offset_ns, .phc_offset_end_ns]' "$WORK/s1.e.json")"
	# the emitter on CPU 0, the reflector on CPU 1: each sampler on the other CPU
	[ "$(jq -c .clock.sampler_cpus "$WORK/s1.e.json")" = "[1]" ] &&
		[ "$(jq -c .clock.sampler_cpus "$WORK/s1.r.json")" = "[0]" ]
	check_err $? "sampler CPUs: emitter $(jq -c .clock.sampler_cpus "$WORK/s1.e.json"), reflector $(jq -c .clock.sampler_cpus "$WORK/s1.r.json")"
	grep -q '^  PHC /dev/ptp0 (precise): NIC - system clock' "$WORK/s1.e.txt"
	check_err $? "no PHC line in the text: $(sed -n '/^clock:/,$p' "$WORK/s1.e.txt")"
	grep -q 'untrusted' "$WORK/s1.e.txt"
	check_fail $? "'untrusted' in the text of a run whose clocks agree"
	log_test "PHC and system clock together: $(jqv "$WORK/s1.e.json" .clock.phc_samples) readings off the measuring CPU, no warning"
}

# untrusted JSON: the metrics marked untrusted, as "a b c" (sorted)
untrusted() {
	jq -r '[.metrics | to_entries[] | select(.value.trusted == false) | .key] | sort | join(" ")' "$1"
}

# warned JSON REGEX: a clock warning matches REGEX
warned() {
	jq -r '.clock.warnings[]' "$1" | grep -Eq -- "$2"
}

# a 50 ppm drift of the emitter's PHC: found within 10%, warned about
clock_drift() {
	local d
	pair
	ENV_A=(SIMNIC_DRIFT_PPB=50000)
	ENV_B=()
	sim_pair d1 -s -- -s -d 4
	d=$(jqv "$WORK/d1.e.json" .clock.phc_drift_ppb)
	within "$d" 45000 55000
	check_err $? "phc_drift_ppb $d, not 50000 within 10%"
	warned "$WORK/d1.e.json" '^the PHC /dev/ptp0 drifts \+[0-9]+ ppb from the system clock: .* is phc2sys running\? `config\.sh '"$VETH_A"
	check_err $? "no drift warning: $(jq -c .clock.warnings "$WORK/d1.e.json")"
	[ "$(untrusted "$WORK/d1.e.json")" = "emit_rx emit_tx" ]
	check_err $? "untrusted: '$(untrusted "$WORK/d1.e.json")', not emit_tx and emit_rx"
	[ "$(jqv "$WORK/d1.e.json" .clock.trusted)" = false ]
	check_err $? "clock.trusted is not false"
	[ "$(nwarn "$WORK/d1.r.json")" = 0 ]
	check_err $? "the reflector (no drift) warned: $(jq -c .clock.warnings "$WORK/d1.r.json")"
	log_test "50 ppm PHC drift: phc_drift_ppb $d, warned, emit_tx/emit_rx untrusted"
}

# the emitter's PHC 1 ms from the system clock: warned, its components untrusted
clock_offset() {
	local off
	pair
	ENV_A=(SIMNIC_OFFSET_NS=1000000)
	ENV_B=()
	sim_pair o1 -s -- -s -d 2 --phc-interval 0.5
	off=$(jqv "$WORK/o1.e.json" .clock.phc_offset_ns)
	within "$off" 999900 1000100 &&
		within "$(jqv "$WORK/o1.e.json" .clock.phc_offset_end_ns)" 999900 1000100
	check_err $? "offsets $(jq -c '.clock | [.phc_offset_ns, .phc_offset_end_ns]' "$WORK/o1.e.json"), not 1 ms"
	warned "$WORK/o1.e.json" '^the PHC /dev/ptp0 and the system clock differ by up to 100[0-9]\.[0-9]{3} us .* more than --max-clock-offset 1\.000 us: emit_tx and emit_rx are untrusted: is phc2sys running\?'
	check_err $? "no offset warning: $(jq -c .clock.warnings "$WORK/o1.e.json")"
	[ "$(untrusted "$WORK/o1.e.json")" = "emit_rx emit_tx" ]
	check_err $? "untrusted: '$(untrusted "$WORK/o1.e.json")', not emit_tx and emit_rx"
	grep -Eq '^  emit_tx .*\(untrusted: PHC and system clock differ by up to 100[0-9]\.[0-9]{3} us\)$' "$WORK/o1.e.txt"
	check_err $? "no untrusted mark in the text: $(grep '^  emit_tx ' "$WORK/o1.e.txt")"
	grep -Eq '^  reflect_rx .*untrusted' "$WORK/o1.e.txt"
	check_fail $? "the reflector's components (its clocks agree) marked untrusted"
	grep -q '^  warning: the PHC /dev/ptp0 and the system clock differ' "$WORK/o1.e.txt"
	check_err $? "no warning in the text's clock block"
	# larger bound: no warning
	sim_pair o2 -s -- -s -d 1 --max-clock-offset 2000
	[ "$(nwarn "$WORK/o2.e.json")" = 0 ] && [ -z "$(untrusted "$WORK/o2.e.json")" ]
	check_err $? "1 ms offset under --max-clock-offset 2000: $(jq -c .clock.warnings "$WORK/o2.e.json")"
	log_test "1 ms PHC offset: $off ns, warned, emit_tx/emit_rx untrusted; none at a 2 ms bound"
}

# the reflector's PHC apart: its pongs say so, the emitter marks reflect_* untrusted
clock_reflector_bad() {
	local bad
	pair
	ENV_A=()
	ENV_B=(SIMNIC_OFFSET_NS=-3000)
	sim_pair b1 -s -- -s -d 2
	warned "$WORK/b1.r.json" '^the PHC /dev/ptp0 and the system clock differ by up to 3\.000 us .*reflect_rx and reflect_tx are untrusted'
	check_err $? "the reflector did not warn: $(jq -c .clock.warnings "$WORK/b1.r.json")"
	[ "$(untrusted "$WORK/b1.r.json")" = "reflect_rx reflect_tx" ]
	check_err $? "reflector's untrusted: '$(untrusted "$WORK/b1.r.json")'"
	bad=$(jqv "$WORK/b1.e.json" .clock.pongs_clock_bad)
	[ "$bad" -ge "$(jqv "$WORK/b1.e.json" .counts.received)" ] &&
		[ "$bad" = "$(jqv "$WORK/b1.e.json" .clock.pongs)" ]
	check_err $? "pongs_clock_bad $bad, not every pong: $(jq -c '[.counts.received, .clock.pongs]' "$WORK/b1.e.json")"
	[ "$(untrusted "$WORK/b1.e.json")" = "reflect_rx reflect_tx" ]
	check_err $? "emitter's untrusted: '$(untrusted "$WORK/b1.e.json")', not reflect_rx and reflect_tx"
	warned "$WORK/b1.e.json" "^the reflector found its PHC and system clock apart"
	check_err $? "the emitter did not pass the reflector's word on: $(jq -c .clock.warnings "$WORK/b1.e.json")"
	log_test "reflector's PHC 3 us off: flagged in $bad pongs, reflect_rx/tx untrusted"
}

# PTP_SYS_OFFSET_PRECISE, _EXTENDED, PTP_SYS_OFFSET: the fallbacks named
clock_methods() {
	pair
	ENV_A=(SIMNIC_NO_PRECISE=1)
	ENV_B=(SIMNIC_NO_PRECISE=1 SIMNIC_NO_EXTENDED=1)
	sim_pair m1 -- -c 2000 -d 0
	[ "$(jqv "$WORK/m1.e.json" .clock.phc_method)" = extended ]
	check_err $? "no PRECISE: $(jqv "$WORK/m1.e.json" .clock.phc_method), not extended"
	[ "$(jqv "$WORK/m1.r.json" .clock.phc_method)" = basic ]
	check_err $? "no PRECISE nor EXTENDED: $(jqv "$WORK/m1.r.json" .clock.phc_method), not basic"
	grep -q '^  PHC /dev/ptp0 (extended): ' "$WORK/m1.e.txt"
	check_err $? "text: $(grep '^  PHC' "$WORK/m1.e.txt")"
	[ "$(nwarn "$WORK/m1.e.json")" = 0 ] && [ "$(nwarn "$WORK/m1.r.json")" = 0 ]
	check_err $? "warnings: $(jq -c .clock.warnings "$WORK/m1.e.json" "$WORK/m1.r.json")"
	ENV_A=(SIMNIC_NO_PRECISE=1 SIMNIC_NO_EXTENDED=1 SIMNIC_NO_BASIC=1)
	ENV_B=()
	sim_pair m2 -s -- -s -c 2000 -d 0
	[ "$(jqv "$WORK/m2.e.json" .clock.phc_method)" = null ] &&
		[ "$(jqv "$WORK/m2.e.json" .clock.phc)" = /dev/ptp0 ]
	check_err $? "no method at all: $(jq -c '.clock | [.phc, .phc_method]' "$WORK/m2.e.json")"
	warned "$WORK/m2.e.json" '^cannot compare the NIC clock with the system clock: no reading of /dev/ptp0 succeeded .*: emit_tx and emit_rx .* are not checked'
	check_err $? "no warning: $(jq -c .clock.warnings "$WORK/m2.e.json")"
	[ "$(untrusted "$WORK/m2.e.json")" = "emit_rx emit_tx" ]
	check_err $? "unchecked but trusted: '$(untrusted "$WORK/m2.e.json")'"
	log_test "PHC methods: extended, basic named; none at all warned and untrusted"
}

# theta: the reflector's wire clock minus the emitter's, from known offsets
clock_theta() {
	local th dr dr0 want=290000
	pair
	ENV_A=("SIMNIC_OFFSET_NS_$VETH_A=-40000")
	ENV_B=("SIMNIC_OFFSET_NS_$VETH_B=250000")
	sim_pair t1 -- -d 2
	th=$(jqv "$WORK/t1.e.json" .clock.peer_offset_ns)
	within "$th" $((want - 1000)) $((want + 1000))
	check_err $? "peer_offset_ns $th, not $want within 1 us"
	dr0=$(jqv "$WORK/t1.e.json" .clock.peer_drift_ppb)
	within "$dr0" -1000 1000
	check_err $? "peer_drift_ppb $dr0 with no drift"
	[ "$(jqv "$WORK/t1.e.json" .clock.peer_samples)" -gt 1000 ]
	check_err $? "peer_samples $(jqv "$WORK/t1.e.json" .clock.peer_samples)"
	grep -Eq "^  peer: reflector's wire clock - emitter's \\(theta, if the paths are symmetric\\) \\+2(89|90)\\.[0-9]{3} us" "$WORK/t1.e.txt"
	check_err $? "text: $(grep '^  peer' "$WORK/t1.e.txt")"
	[ "$(jqv "$WORK/t1.r.json" .clock.peer_offset_ns)" = null ]
	check_err $? "the reflector has a peer offset"
	# a drift between the two NICs: theta's drift
	ENV_A=()
	ENV_B=(SIMNIC_DRIFT_PPB=20000)
	sim_pair t2 -- -d 2
	dr=$(jqv "$WORK/t2.e.json" .clock.peer_drift_ppb)
	within "$dr" 18000 22000
	check_err $? "peer_drift_ppb $dr, not 20000 within 10%"
	log_test "theta $th ns for $want ns (drift $dr0 ppb); 20 ppm between the NICs: $dr ppb"
}

# --one-way: owd_fwd and owd_back, and the warning when the hosts' clocks differ
clock_one_way() {
	local f b n
	pair
	ENV_A=()
	ENV_B=()
	sim_pair w1 -- -d 2 --one-way
	f=$(jqv "$WORK/w1.e.json" .metrics.owd_fwd.samples)
	b=$(jqv "$WORK/w1.e.json" .metrics.owd_back.samples)
	[ "$f" -gt 1000 ] && [ "$b" -gt 1000 ]
	check_err $? "owd samples: fwd $f, back $b"
	# owd_fwd + owd_back = network, transaction by transaction
	n=$(jq '.metrics | (.owd_fwd.avg * .owd_fwd.samples + .owd_back.avg * .owd_back.samples) / (.network.avg * .network.samples)' "$WORK/w1.e.json")
	within "$n" 0.98 1.02
	check_err $? "owd_fwd + owd_back over network: $n, not 1"
	[ "$(nwarn "$WORK/w1.e.json")" = 0 ] && [ -z "$(untrusted "$WORK/w1.e.json")" ]
	check_err $? "clocks together: $(jq -c .clock.warnings "$WORK/w1.e.json")"
	grep -Eq '^owd_fwd +[0-9]+ ' "$WORK/w1.e.txt" && grep -Eq '^owd_back +[0-9]+ ' "$WORK/w1.e.txt"
	check_err $? "no owd rows in the text"
	ENV_B=(SIMNIC_OFFSET_NS=5000)
	sim_pair w2 -- -d 2 --one-way
	warned "$WORK/w2.e.json" "^--one-way: the reflector's clock is \\+(4\\.[89]|5\\.[01])[0-9]{2} us from the emitter's .*owd_fwd and owd_back are untrusted"
	check_err $? "no one-way warning: $(jq -c .clock.warnings "$WORK/w2.e.json")"
	[ "$(untrusted "$WORK/w2.e.json")" = "owd_back owd_fwd" ]
	check_err $? "untrusted: '$(untrusted "$WORK/w2.e.json")', not owd_fwd and owd_back"
	ip netns exec "$NS_A" "$RANT" -i "$VETH_A" -a "$IP_B" -m 64 --one-way >"$WORK/w3.txt" 2>&1
	[ $? = 1 ] && grep -q -- '^rant: --one-way needs the reflector.s stamps, which pongs carry from 72 bytes: give -m 72 or more$' "$WORK/w3.txt"
	check_err $? "--one-way -m 64: $(cat "$WORK/w3.txt")"
	log_test "--one-way: owd_fwd/owd_back ($f, $b samples); theta 5 us warned; -m 64 refused"
}

# missing HW stamps counted on both sides; jitter makes stamps go backwards
clock_missing() {
	local mt mr rmt rmr recv bt br
	pair
	ENV_A=(SIMNIC_MISSING_PCT=5 SIMNIC_SEED=3)
	ENV_B=(SIMNIC_MISSING_PCT=5 SIMNIC_SEED=4)
	sim_pair x1 -- -c 4000 -d 0 --timeout 20000
	recv=$(jqv "$WORK/x1.e.json" .counts.received)
	mt=$(jqv "$WORK/x1.e.json" .counts.missing_tx_ts)
	mr=$(jqv "$WORK/x1.e.json" .counts.missing_rx_ts)
	rmt=$(jqv "$WORK/x1.r.json" .counts.missing_tx_ts)
	rmr=$(jqv "$WORK/x1.r.json" .counts.missing_rx_ts)
	# 5% of ~4000: 200, standard deviation 14
	within "$mt" 100 350 && within "$mr" 100 350
	check_err $? "emitter missing TX $mt, RX $mr of $recv: not about 5%"
	within "$rmt" 100 350 && within "$rmr" 100 350
	check_err $? "reflector missing TX $rmt, RX $rmr: not about 5%"
	[ "$(jqv "$WORK/x1.e.json" .clock.peer_samples)" -lt "$recv" ]
	check_err $? "theta from transactions without all four stamps"
	[ "$(jqv "$WORK/x1.e.json" '.counts.backwards_tx_ts + .counts.backwards_rx_ts')" = 0 ]
	check_err $? "backwards stamps without jitter"
	ENV_A=(SIMNIC_JITTER_NS=50000)
	ENV_B=(SIMNIC_JITTER_NS=50000)
	sim_pair x2 -- -c 4000 -d 0 --max-clock-offset 100
	bt=$(jqv "$WORK/x2.e.json" .counts.backwards_tx_ts)
	br=$(jqv "$WORK/x2.e.json" .counts.backwards_rx_ts)
	[ "$bt" -gt 0 ] && [ "$br" -gt 0 ] &&
		[ "$(jqv "$WORK/x2.r.json" '.counts.backwards_tx_ts')" -gt 0 ] &&
		[ "$(jqv "$WORK/x2.r.json" '.counts.backwards_rx_ts')" -gt 0 ]
	check_err $? "50 us jitter, stamps 10 us apart, none backwards: emitter $bt/$br, reflector $(jq -c '.counts | [.backwards_tx_ts, .backwards_rx_ts]' "$WORK/x2.r.json")"
	grep -Eq '^missing stamps: TX [0-9]+, RX [0-9]+; backwards: TX [1-9][0-9]*, RX [1-9][0-9]*, ' "$WORK/x2.e.txt"
	check_err $? "text: $(grep '^missing stamps' "$WORK/x2.e.txt")"
	log_test "missing HW stamps: TX $mt, RX $mr (reflector $rmt, $rmr) of $recv; backwards with jitter: $bt, $br"
}

# plain veth, no PHC: clock.phc null, theta from kernel stamps near 0
clock_plain_veth() {
	local th
	pair
	NOSIM=1 sim_pair v1 -- -d 1
	[ "$(jqv "$WORK/v1.e.json" .timestamp_source)" = kernel ]
	check_err $? "timestamp_source $(jqv "$WORK/v1.e.json" .timestamp_source) on veth"
	[ "$(jqv "$WORK/v1.e.json" .clock.phc)" = null ] && [ "$(jqv "$WORK/v1.e.json" .clock.phc_method)" = null ] &&
		[ "$(jqv "$WORK/v1.e.json" .clock.phc_samples)" = 0 ]
	check_err $? "clock on veth: $(jq -c '.clock | [.phc, .phc_index, .phc_method, .phc_samples]' "$WORK/v1.e.json")"
	th=$(jqv "$WORK/v1.e.json" .clock.peer_offset_ns)
	within "$th" -2000 2000
	check_err $? "theta $th ns between kernel stamps of one system clock"
	grep -q '^  PHC: none: the wire stamps are the kernel' "$WORK/v1.e.txt" &&
		grep -q "^  peer: reflector's wire clock - emitter's" "$WORK/v1.e.txt"
	check_err $? "text: $(sed -n '/^clock:/,$p' "$WORK/v1.e.txt")"
	[ "$(nwarn "$WORK/v1.e.json")" = 0 ] && [ "$(nwarn "$WORK/v1.r.json")" = 0 ]
	check_err $? "warnings on veth: $(jq -c .clock.warnings "$WORK/v1.e.json" "$WORK/v1.r.json")"
	[ "$(jq '.clock.ts_info.so_timestamping | index("software-receive") != null' "$WORK/v1.e.json")" = true ]
	check_err $? "ts_info: $(jq -c .clock.ts_info "$WORK/v1.e.json")"
	log_test "plain veth: no PHC, theta $th ns from kernel stamps, no warning"
}

# Two namespaces of one kernel: the reflector's warm-up pongs carry its
# boot id's tag, so --one-way knows one clock stamps both ends and says
# so; a reflector shown another boot id (bound over the file in a mount
# namespace of its own) is taken for another kernel.
clock_one_kernel() {
	local fake
	pair
	NOSIM=1 sim_pair k1 -- -c 500 --one-way
	[ "$(jq -c '.clock | [.one_host, .one_host_by]' "$WORK/k1.e.json")" = '[true,"boot_id"]' ]
	check_err $? "one kernel: $(jq -c '.clock | [.one_host, .one_host_by]' "$WORK/k1.e.json")"
	[ "$(jq -c '.metrics | [.owd_fwd.trusted, .owd_back.trusted]' "$WORK/k1.e.json")" = '[true,true]' ] &&
		[ "$(nwarn "$WORK/k1.e.json")" = 0 ]
	check_err $? "one kernel: owd $(jq -c '.metrics | [.owd_fwd.trusted, .owd_back.trusted]' "$WORK/k1.e.json"), warnings $(jq -c .clock.warnings "$WORK/k1.e.json")"
	grep -q "^  peer: the reflector is on this host (its kernel's boot id is this one's): the same clock stamps both ends" "$WORK/k1.e.txt"
	check_err $? "text: $(sed -n '/^clock:/,$p' "$WORK/k1.e.txt")"
	fake=$WORK/boot_id
	echo 01234567-89ab-cdef-0123-456789abcdef >"$fake"
	# shellcheck disable=SC2016  # expanded by the inner sh
	PRE_B=(unshare -m sh -c 'mount --bind "$0" /proc/sys/kernel/random/boot_id && exec "$@"' "$fake")
	NOSIM=1 sim_pair k2 -- -c 500 --one-way
	PRE_B=()
	[ "$(jq -c '.clock | [.one_host, .one_host_by]' "$WORK/k2.e.json")" = '[false,"other_boot_id"]' ]
	check_err $? "another boot id: $(jq -c '.clock | [.one_host, .one_host_by]' "$WORK/k2.e.json")"
	grep -q '^  peer: the reflector runs on another kernel (its boot id differs)$' "$WORK/k2.e.txt"
	check_err $? "text: $(sed -n '/^clock:/,$p' "$WORK/k2.e.txt")"
	log_test "one kernel, two namespaces: --one-way says one clock (boot id) and trusts it; another boot id is another kernel"
}

tests_run
