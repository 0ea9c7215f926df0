#!/usr/bin/env bash
# The simulated PHC NIC (tests/sim/libsimnic.so) checked on its own, with
# tests/sim/simnic-probe over a veth pair and none of rant: capabilities
# and SIOCSHWTSTAMP answers, hardware-only stamps in PHC time on RX and TX,
# every one of them in the shim's log, the PTP-only mode, missing stamps,
# a configuration owned by another process, and interfaces it leaves alone.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=simlib.sh
. "$(dirname "$0")/simlib.sh"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="sim_shim_stamps sim_shim_sw_stamps sim_shim_ptp_only sim_shim_missing
	sim_shim_owned sim_shim_passthrough sim_rant_hw_path sim_rant_missing
	sim_rant_open_loop"

PROBE=$TOP/tests/sim/simnic-probe
# SOF_TIMESTAMPING_ TX_HARDWARE|RX_HARDWARE|RAW_HARDWARE|OPT_ID|OPT_TSONLY,
# what the probe sets: the shim's own additions must not show.
PROBE_FLAGS=0x8c5

require_root
require_cmd ss
[ -x "$PROBE" ] && [ -r "$SIM_LIB" ] || skip "the simulation is not built (make sim)"

pair() {
	setup_pair || skip_test "cannot create namespaces and veth"
}

# exchange NAME PORT COUNT ARGS...: simnic-probe echoes in NS_B and pings
# from NS_A, both under the shim, with the environment of the arrays ENV_A
# and ENV_B and the probe arguments ARGS; output in $WORK/NAME.a and
# NAME.b, the shim's logs in NAME.a.log and NAME.b.log.
exchange() {
	local name=$1 port=$2 count=$3 echo_pid rc
	shift 3
	ip netns exec "$NS_B" env LD_PRELOAD="$SIM_LIB" SIMNIC_LOG="$WORK/$name.b.log" \
		"${ENV_B[@]}" "$PROBE" -i "$VETH_B" -p "$port" -n "$count" "$@" echo \
		>"$WORK/$name.b" 2>&1 &
	echo_pid=$!
	defer kill -9 "$echo_pid"
	if ! wait_udp_port "$NS_B" "$port"; then
		check_err 1 "the echo probe did not bind port $port: $(cat "$WORK/$name.b")"
		return 1
	fi
	ip netns exec "$NS_A" env LD_PRELOAD="$SIM_LIB" SIMNIC_LOG="$WORK/$name.a.log" \
		"${ENV_A[@]}" "$PROBE" -i "$VETH_A" -a "$IP_B" -p "$port" -n "$count" "$@" ping \
		>"$WORK/$name.a" 2>&1
	rc=$?
	check_err $rc "ping probe exit $rc: $(tail -3 "$WORK/$name.a")"
	wait "$echo_pid"
	rc=$?
	check_err $rc "echo probe exit $rc: $(tail -3 "$WORK/$name.b")"
	touch "$WORK/$name.a.log" "$WORK/$name.b.log"
}

# count_lines FILE REGEX
count_lines() {
	grep -Ec -- "$2" "$1"
}

# not_logged OUT LOG: how many HW stamps OUT printed that LOG lacks (same
# direction, same value).
not_logged() {
	awk 'NR == FNR { if ($1 == "rx" || $1 == "tx") seen[$1 " " $4] = 1; next }
	     $1 == "rx" && $3 != "-" && $3 != "0" && !(("rx " $3) in seen) { bad++ }
	     $1 == "tx" && $4 != "-" && $4 != "0" && !(("tx " $4) in seen) { bad++ }
	     END { print bad + 0 }' "$2" "$1"
}

# off_model LOG OFFSET: how many stamps of LOG are not KN + OFFSET (the
# model without drift and jitter), in 64-bit shell arithmetic.
off_model() {
	local dir kn hw bad=0
	while read -r dir _ kn hw; do
		[ "$dir" = phc ] && continue
		[ $((hw - kn)) = "$2" ] || bad=$((bad + 1))
	done <"$1"
	echo "$bad"
}

# HW stamps only, in PHC time, on both sides, all of them made by the shim
sim_shim_stamps() {
	local n=20 f
	pair
	ENV_A=(SIMNIC_IFACES="$VETH_A" SIMNIC_OFFSET_NS=1000000 SIMNIC_PHC_INDEX=3)
	ENV_B=(SIMNIC_IFACES="$VETH_B" SIMNIC_OFFSET_NS=-5000)
	exchange s1 319 $n
	for f in "$WORK/s1.a" "$WORK/s1.b"; do
		grep -q '^info so_timestamping=0x5f ' "$f"
		check_err $? "capabilities: $(grep ^info "$f")"
		grep -q '^hwtstamp set tx=1 rx=1$' "$f"
		check_err $? "SIOCSHWTSTAMP: $(grep ^hwtstamp "$f")"
		grep -q "^sockflags $PROBE_FLAGS\$" "$f"
		check_err $? "getsockopt shows the shim's flags: $(grep ^sockflags "$f")"
		[ "$(count_lines "$f" '^rx 0 [1-9][0-9]*$')" = $n ]
		check_err $? "$f: not $n HW-only RX stamps: $(grep -m3 ^rx "$f")"
		[ "$(count_lines "$f" '^tx [0-9]+ 0 [1-9][0-9]*$')" = $n ]
		check_err $? "$f: not $n HW-only TX reports: $(grep -m3 ^tx "$f")"
	done
	grep -q ' phc_index=3 ' "$WORK/s1.a"; check_err $? "SIMNIC_PHC_INDEX=3 not answered"
	grep -q ' phc_index=0 ' "$WORK/s1.b"; check_err $? "default PHC index is not 0"
	[ "$(not_logged "$WORK/s1.a" "$WORK/s1.a.log")" = 0 ]
	check_err $? "emitter side: HW stamps the shim did not log"
	[ "$(not_logged "$WORK/s1.b" "$WORK/s1.b.log")" = 0 ]
	check_err $? "reflector side: HW stamps the shim did not log"
	[ "$(wc -l <"$WORK/s1.a.log")" = $((2 * n)) ]; check_err $? "log lines != 2 x $n"
	[ "$(off_model "$WORK/s1.a.log" 1000000)" = 0 ]; check_err $? "A: HW != KN + 1 ms"
	[ "$(off_model "$WORK/s1.b.log" -5000)" = 0 ]; check_err $? "B: HW != KN - 5 us"
	log_test "HW-only stamps in PHC time, both sides, each one logged ($n each way)"
}

# with the software flags too: RX has both stamps, TX stays HW-only
sim_shim_sw_stamps() {
	local n=10 diffs
	pair
	ENV_A=(SIMNIC_IFACES="$VETH_A" SIMNIC_OFFSET_NS=777)
	ENV_B=(SIMNIC_IFACES="$VETH_B")
	exchange s2 319 $n -s
	[ "$(count_lines "$WORK/s2.a" '^rx [1-9][0-9]* [1-9][0-9]*$')" = $n ]
	check_err $? "RX without both stamps: $(grep -m3 ^rx "$WORK/s2.a")"
	diffs=$(awk '$1 == "rx" { print $2, $3 }' "$WORK/s2.a" |
		while read -r kn hw; do echo $((hw - kn)); done | sort -u)
	[ "$diffs" = 777 ]; check_err $? "RX HW - KN: $diffs, not the 777 ns offset"
	[ "$(count_lines "$WORK/s2.a" '^tx [0-9]+ 0 [1-9][0-9]*$')" = $n ]
	check_err $? "TX not HW-only with software flags set: $(grep -m3 ^tx "$WORK/s2.a")"
	log_test "software flags too: RX KN and HW (HW - KN = offset), TX HW-only"
}

# PTP-only NIC: ALL refused with ERANGE; a PTP filter stamps port 319 only
sim_shim_ptp_only() {
	pair
	ENV_A=(SIMNIC_IFACES="$VETH_A" SIMNIC_PTP_ONLY=1)
	ENV_B=(SIMNIC_IFACES="$VETH_B" SIMNIC_PTP_ONLY=1)
	exchange p1 319 3
	grep -q '^info .* rx_filters=0x1049$' "$WORK/p1.a"
	check_err $? "PTP-only RX filters: $(grep ^info "$WORK/p1.a")"
	grep -q '^hwtstamp error ERANGE tx=0 rx=0$' "$WORK/p1.a"
	check_err $? "filter ALL on a PTP-only NIC: $(grep ^hwtstamp "$WORK/p1.a")"
	[ "$(count_lines "$WORK/p1.a" '^(rx - -|tx - - -)$')" = 6 ]
	check_err $? "stamps without a filter set: $(grep -m3 '^[rt]x' "$WORK/p1.a")"
	exchange p2 319 5 -f 6
	grep -q '^hwtstamp set tx=1 rx=6$' "$WORK/p2.a"
	check_err $? "filter ptpv2-l4-event: $(grep ^hwtstamp "$WORK/p2.a")"
	[ "$(count_lines "$WORK/p2.a" '^rx 0 [1-9][0-9]*$')" = 5 ] &&
	[ "$(count_lines "$WORK/p2.a" '^tx [0-9]+ 0 [1-9][0-9]*$')" = 5 ] &&
	[ "$(count_lines "$WORK/p2.b" '^rx 0 [1-9][0-9]*$')" = 5 ]
	check_err $? "port 319 not stamped: $(grep -m4 '^[rt]x' "$WORK/p2.a")"
	exchange p3 "$PORT" 5 -f 12
	grep -q '^hwtstamp set tx=1 rx=12$' "$WORK/p3.a"
	check_err $? "filter ptpv2-event: $(grep ^hwtstamp "$WORK/p3.a")"
	[ "$(count_lines "$WORK/p3.a" '^(rx - -|tx - - -)$')" = 10 ] &&
	[ "$(count_lines "$WORK/p3.b" '^(rx - -|tx - - -)$')" = 10 ]
	check_err $? "port $PORT stamped on a PTP-only NIC: $(grep -m4 '^[rt]x' "$WORK/p3.a")"
	exchange p4 319 5 -f 6 -r
	[ "$(count_lines "$WORK/p4.a" '^(rx - -|tx - - -)$')" = 10 ] &&
	[ "$(count_lines "$WORK/p4.b" '^(rx - -|tx - - -)$')" = 10 ]
	check_err $? "port 319 without a PTP header stamped: $(grep -m4 '^[rt]x' "$WORK/p4.a")"
	log_test "PTP-only: ALL gives ERANGE; PTP on 319 stamped, not port $PORT or non-PTP"
}

# a fraction of HW stamps goes missing: RX without ts[2], TX with no report
sim_shim_missing() {
	local n=200 rx_miss tx_miss
	pair
	ENV_A=(SIMNIC_IFACES="$VETH_A" SIMNIC_MISSING_PCT=30 SIMNIC_SEED=7)
	ENV_B=(SIMNIC_IFACES="$VETH_B")
	exchange m1 319 $n -s
	rx_miss=$(count_lines "$WORK/m1.a" '^rx [1-9][0-9]* 0$')
	tx_miss=$(count_lines "$WORK/m1.a" '^tx - - -$')
	# 30% of 200: 60, standard deviation 6.5
	[ "$rx_miss" -ge 35 ] && [ "$rx_miss" -le 85 ]
	check_err $? "RX: $rx_miss of $n HW stamps missing, not about 30%"
	[ "$tx_miss" -ge 35 ] && [ "$tx_miss" -le 85 ]
	check_err $? "TX: $tx_miss of $n reports missing, not about 30%"
	[ "$(wc -l <"$WORK/m1.a.log")" = $((2 * n - rx_miss - tx_miss)) ]
	check_err $? "the log has $(wc -l <"$WORK/m1.a.log") stamps, not the $((2 * n - rx_miss - tx_miss)) made"
	[ "$(count_lines "$WORK/m1.b" '^rx 0 0$|^rx - -$|^tx - - -$')" = 0 ]
	check_err $? "the other side (0%) lost stamps"
	log_test "missing HW stamps: $rx_miss RX, $tx_miss TX of $n at 30%"
}

# a configuration another process (ptp4l) set and holds
sim_shim_owned() {
	pair
	ENV_A=(SIMNIC_IFACES="$VETH_A" "SIMNIC_HWTS_PRESET=1,12" SIMNIC_HWTS_LOCKED=1)
	ENV_B=(SIMNIC_IFACES="$VETH_B" "SIMNIC_HWTS_PRESET=1,1")
	exchange o1 "$PORT" 2
	grep -q '^hwtstamp error EBUSY tx=1 rx=12$' "$WORK/o1.a"
	check_err $? "locked preset: $(grep ^hwtstamp "$WORK/o1.a")"
	grep -q '^hwtstamp set tx=1 rx=1$' "$WORK/o1.b"
	check_err $? "unlocked preset: $(grep ^hwtstamp "$WORK/o1.b")"
	log_test "a configuration owned elsewhere: EBUSY and SIOCGHWTSTAMP reads it"
}

# interfaces not named in SIMNIC_IFACES are left to the kernel
sim_shim_passthrough() {
	pair
	ENV_A=(SIMNIC_IFACES=rant-nosuch0)
	ENV_B=(SIMNIC_IFACES=rant-nosuch0)
	exchange t1 "$PORT" 3 -s
	grep -q '^info .* phc_index=-1 ' "$WORK/t1.a"
	check_err $? "veth got a PHC: $(grep ^info "$WORK/t1.a")"
	grep -q '^hwtstamp error EOPNOTSUPP' "$WORK/t1.a"
	check_err $? "SIOCSHWTSTAMP on veth: $(grep ^hwtstamp "$WORK/t1.a")"
	[ "$(count_lines "$WORK/t1.a" '^rx [1-9][0-9]* 0$')" = 3 ] &&
	[ "$(count_lines "$WORK/t1.a" '^tx - - -$')" = 3 ]
	check_err $? "veth stamps changed: $(grep -m4 '^[rt]x' "$WORK/t1.a")"
	[ ! -s "$WORK/t1.a.log" ]; check_err $? "the shim logged stamps for a veth it does not simulate"
	log_test "an interface not simulated keeps the kernel's answers"
}

# rant on two simulated NICs: the HW path, every HW stamp a simulated one
sim_rant_hw_path() {
	local n=2000 med recv
	pair
	ENV_A=(SIMNIC_IFACES="$VETH_A" SIMNIC_OFFSET_NS=1000000)
	ENV_B=(SIMNIC_IFACES="$VETH_B" SIMNIC_OFFSET_NS=-5000)
	rant_pair h1 -c $n -d 60
	[ "$(jqv "$WORK/h1.e.json" .timestamp_source)" = hardware ]
	check_err $? "emitter timestamp_source: $(jqv "$WORK/h1.e.json" .timestamp_source)"
	[ "$(jqv "$WORK/h1.r.json" .timestamp_source)" = hardware ]
	check_err $? "reflector timestamp_source: $(jqv "$WORK/h1.r.json" .timestamp_source)"
	head -1 "$WORK/h1.e.log" | grep -q '^SEQ T1_SW T1_HW T4_HW T4_SW RTT T2_HW T2_SW T3_SW T3_HW RESPONSE T1_SCHED LOST$'
	check_err $? "emitter log header: $(head -1 "$WORK/h1.e.log")"
	grep -q '^timestamps: hardware' "$WORK/h1.e.txt"
	check_err $? "no 'timestamps: hardware' line: $(head -4 "$WORK/h1.e.txt")"
	recv=$(jqv "$WORK/h1.e.json" .counts.received)
	[ "$(($(wc -l <"$WORK/h1.e.log") - 2))" = "$(jqv "$WORK/h1.e.json" .counts.sent)" ]
	check_err $? "emitter log rows != sent (received $recv, and LOST rows)"
	[ "$(jqv "$WORK/h1.e.json" .counts.sent)" = $n ]; check_err $? "the emitter did not send $n"
	[ "$(log_not_simulated "$WORK/h1.e.log" "$WORK/h1.a.log" tx:T1_HW rx:T4_HW)" = 0 ]
	check_err $? "T1_HW/T4_HW in the emitter log that the simulation did not make"
	[ "$(log_not_simulated "$WORK/h1.e.log" "$WORK/h1.b.log" rx:T2_HW tx:T3_HW)" = 0 ]
	check_err $? "T2_HW/T3_HW (carried in the pong) that the simulation did not make"
	[ "$(log_not_simulated "$WORK/h1.r.log" "$WORK/h1.b.log" rx:T2_HW tx:T3_HW)" = 0 ]
	check_err $? "T2_HW/T3_HW in the reflector log that the simulation did not make"
	# T1_HW - T1_SW: the PHC's 1 ms offset plus the send path
	med=$(jqv "$WORK/h1.e.json" '.metrics.emit_tx.percentiles["50"]')
	[ "$med" -ge 1000000 ] && [ "$med" -lt 1100000 ]
	check_err $? "emit_tx median $med ns: not the PHC offset of 1 ms"
	log_test "rant on simulated NICs: HW path, the HW stamps of $recv transactions all simulated"
}

# rant counts the HW stamps the NIC did not deliver
sim_rant_missing() {
	local miss_tx miss_rx sent recv lost
	pair
	ENV_A=(SIMNIC_IFACES="$VETH_A" SIMNIC_MISSING_PCT=2)
	ENV_B=(SIMNIC_IFACES="$VETH_B")
	rant_pair m2 -c 3000 -d 60 --timeout 20000
	miss_tx=$(jqv "$WORK/m2.e.json" .counts.missing_tx_ts)
	miss_rx=$(jqv "$WORK/m2.e.json" .counts.missing_rx_ts)
	sent=$(jqv "$WORK/m2.e.json" .counts.sent)
	recv=$(jqv "$WORK/m2.e.json" .counts.received)
	lost=$(jqv "$WORK/m2.e.json" .counts.lost)
	[ "$miss_tx" -gt 0 ] && [ "$miss_rx" -gt 0 ]
	check_err $? "2% of HW stamps missing, rant counted TX $miss_tx, RX $miss_rx"
	[ $((recv + lost)) = "$sent" ]; check_err $? "received $recv + lost $lost != sent $sent"
	log_test "missing HW stamps counted by rant: TX $miss_tx, RX $miss_rx of $sent"
}

# --open-loop on simulated NICs: the HW TX stamps of pings in flight are
# routed to their pings by OPT_ID key, none missing, none made up. With
# --timeout 1 s no pong comes too late, so a ping lost is one a socket
# dropped (a reflector off its CPU on a loaded machine): both sides'
# socket_drops add up to it.
sim_rant_open_loop() {
	local sent recv out off
	pair
	ENV_A=(SIMNIC_IFACES="$VETH_A" SIMNIC_OFFSET_NS=1000000)
	ENV_B=(SIMNIC_IFACES="$VETH_B")
	rant_pair o1 --open-loop --interval 200 --timeout 1000000 -c 5000 -d 60 -w 10
	sent=$(jqv "$WORK/o1.e.json" .counts.sent)
	recv=$(jqv "$WORK/o1.e.json" .counts.received)
	[ "$(jqv "$WORK/o1.e.json" .timestamp_source)" = hardware ] && [ "$sent" = 5000 ]
	check_err $? "source $(jqv "$WORK/o1.e.json" .timestamp_source), sent $sent of 5000"
	[ "$(jqv "$WORK/o1.e.json" .counts.missing_tx_ts)" = 0 ]
	check_err $? "missing TX stamps $(jqv "$WORK/o1.e.json" .counts.missing_tx_ts)"
	out=$(loss_is_drops "$WORK/o1.e.json" "$WORK/o1.r.json") && [ "$recv" -ge 1000 ]
	check_err $? "$out (1000 at least received)"
	[ "$(log_not_simulated "$WORK/o1.e.log" "$WORK/o1.a.log" tx:T1_HW rx:T4_HW)" = 0 ]
	check_err $? "T1_HW/T4_HW in the open-loop log that the simulation did not make"
	# T1_HW - T1_SW is the PHC's 1 ms offset plus the send path: a stamp
	# routed to the ping before or after would be 200 us off
	off=$(log_awk "$WORK/o1.e.log" 'function ns(s,  a) { split(s, a, "."); return (a[1] - 1700000000) * 1e9 + a[2] }
		col("T1_HW") != "-" { d = ns(col("T1_HW")) - ns(col("T1_SW")) - 1000000; n++; if (d < 0 || d > 100000) bad++ }
		END { print bad + 0 }')
	[ $((off * 100)) -le "$recv" ]
	check_err $? "$off of $recv rows have T1_HW - T1_SW off the 1 ms offset by more than 100 us: TX stamps routed to the wrong ping"
	log_test "open loop on simulated NICs: $recv of $sent with both HW stamps, each the simulation's"
}

tests_run
