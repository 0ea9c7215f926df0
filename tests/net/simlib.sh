#!/usr/bin/env bash
# rant under the simulated PHC NIC (tests/sim/libsimnic.so), for the test
# files that run it (test_sim.sh, test_hwsetup.sh); sourced after lib.sh.
#
#   ENV_A=(SIMNIC_IFACES="$VETH_A" ...)  the emitter's simulation (NS_A)
#   ENV_B=(SIMNIC_IFACES="$VETH_B" ...)  the reflector's (NS_B)
#   REFL_ARGS=(...)                      more reflector options (--ptp-mode)
#   PAIR_PORT                            the port it binds (default $PORT)
#   rant_pair NAME EMIT_ARGS...
# shellcheck disable=SC2034

SIM_LIB=$TOP/tests/sim/libsimnic.so

# rant_pair NAME EMIT_ARGS...: a rant reflector in NS_B and an emitter in
# NS_A, both with -s and a log, under the shim with ENV_B / ENV_A; text,
# logs and JSON in $WORK/NAME.{r,e}.{txt,log,json}, the shim's logs in
# NAME.b.log and NAME.a.log; the emitter's exit status in $EMIT_RC.
rant_pair() {
	local name=$1 refl rc port=${PAIR_PORT:-$PORT}
	shift
	[ -x "$RANT" ] || skip_test "rant is not built (make)"
	ip netns exec "$NS_B" env LD_PRELOAD="$SIM_LIB" SIMNIC_LOG="$WORK/$name.b.log" \
		"${ENV_B[@]}" taskset -c 1 "$RANT" -i "$VETH_B" -s -d 60 -l "$WORK/$name.r.log" \
		-j "$WORK/$name.r.json" "${REFL_ARGS[@]}" >"$WORK/$name.r.txt" 2>&1 &
	refl=$!
	defer kill -9 "$refl"
	if ! wait_udp_port "$NS_B" "$port"; then
		check_err 1 "the reflector did not bind port $port: $(tail -3 "$WORK/$name.r.txt")"
		return 1
	fi
	ip netns exec "$NS_A" env LD_PRELOAD="$SIM_LIB" SIMNIC_LOG="$WORK/$name.a.log" \
		"${ENV_A[@]}" taskset -c 0 "$RANT" -i "$VETH_A" -a "$IP_B" -s \
		-l "$WORK/$name.e.log" -j "$WORK/$name.e.json" "$@" >"$WORK/$name.e.txt" 2>&1
	rc=$?
	EMIT_RC=$rc
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/$name.e.txt")"
	kill -INT "$refl"
	wait "$refl"
	rc=$?
	check_err $rc "reflector exit $rc: $(tail -3 "$WORK/$name.r.txt")"
	touch "$WORK/$name.a.log" "$WORK/$name.b.log"
}

# log_not_simulated LOG SHIMLOG DIR:COLUMN...: how many stamps of rant's
# log (the columns named COLUMN, seconds.nanoseconds; "-" for none) the
# shim did not make in direction DIR.
log_not_simulated() {
	local log=$1 shim=$2 dc prog=
	shift 2
	for dc in "$@"; do
		prog+="v = col(\"${dc#*:}\"); gsub(/\\./, \"\", v)
			if (v != \"-\" && !((\"${dc%%:*} \" v) in seen)) bad++
			"
	done
	log_awk "$log" 'BEGIN { while ((getline l < shim) > 0) { split(l, w, " "); seen[w[1] " " w[4]] = 1 } }
		{ '"$prog"' }
		END { print bad + 0 }' -v shim="$shim"
}

# all_simulated NAME: every HW stamp in both rant logs of rant_pair NAME
# (emitter: T1_HW T4_HW and the reflector's T2_HW T3_HW it carried back;
# reflector: T2_HW T3_HW) is one the simulation made; 0 when so.
all_simulated() {
	local n=$1
	[ "$(log_not_simulated "$WORK/$n.e.log" "$WORK/$n.a.log" tx:T1_HW rx:T4_HW)" = 0 ] &&
	[ "$(log_not_simulated "$WORK/$n.e.log" "$WORK/$n.b.log" rx:T2_HW tx:T3_HW)" = 0 ] &&
	[ "$(log_not_simulated "$WORK/$n.r.log" "$WORK/$n.b.log" rx:T2_HW tx:T3_HW)" = 0 ]
}
