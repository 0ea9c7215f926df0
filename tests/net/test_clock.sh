#!/usr/bin/env bash
# The clock checks of a run (src/clock.c) end to end, on two simulated PHC
# NICs (tests/sim/libsimnic.so) over veth: the NIC clock against the system
# clock (offset, drift, method fallbacks, warnings and untrusted
# components), the offset between the two hosts' wire clocks (theta), the
# one-way delays, missing and backwards stamps; and on plain veth (no PHC),
# theta near 0 from kernel stamps.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="clock_in_step clock_drift clock_offset clock_methods clock_theta
	clock_one_way clock_missing clock_reflector_bad clock_plain_veth"

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
	grep -q '^  PHC /dev/ptp0 (precise): NIC - system clock' "$WORK/s1.e.txt"
	check_err $? "no PHC line in the text: $(sed -n '/^clock:/,$p' "$WORK/s1.e.txt")"
	grep -q 'untrusted' "$WORK/s1.e.txt"
	check_fail $? "'untrusted' in the text of a run whose clocks agree"
	log_test "PHC and system clock together: $(jqv "$WORK/s1.e.json" .clock.phc_samples) readings, no warning"
}

clock_drift() {
	:
}
clock_offset() {
	:
}
clock_methods() {
	:
}
clock_theta() {
	:
}
clock_one_way() {
	:
}
clock_missing() {
	:
}
clock_reflector_bad() {
	:
}
clock_plain_veth() {
	:
}

tests_run
