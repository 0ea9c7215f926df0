#!/usr/bin/env bash
# shellcheck disable=SC2034  # ENV_A, ENV_B, REFL_ARGS, PAIR_PORT: read by rant_pair
# Hardware timestamping decided at start-up, and --ptp-mode, over veth in
# namespaces: under the simulated PHC NIC (tests/sim/libsimnic.so) the
# capabilities rant prints with -v and writes to the JSON, a NIC that
# stamps only PTP packets refused without --ptp-mode (the line naming
# --ptp-mode and -R) and stamping every transaction with it, a setting
# that another process holds reported and left alone (or widened, saying
# so); on plain veth, -v as ethtool -T prints it and --ptp-mode end to end
# (PTPv2 on port 319, as tcpdump decodes it), and port 319 refused
# without CAP_NET_BIND_SERVICE.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=simlib.sh
. "$(dirname "$0")/simlib.sh"

ALL_TESTS="hwsetup_caps hwsetup_caps_veth hwsetup_ptp_only_refused hwsetup_ptp_mode_hw
	hwsetup_owned hwsetup_ptp_mode_veth hwsetup_port_refused"

PTP_PORT=319
# What the simulated NIC lists, in ethtool -T's words.
SIM_SOF='["hardware-transmit","software-transmit","hardware-receive","software-receive","software-system-clock","hardware-raw-clock"]'

require_root
require_cmd ss jq
require_rant
[ -r "$SIM_LIB" ] || skip "the simulation is not built (make sim)"

pair() {
	setup_pair || skip_test "cannot create namespaces and veth"
}

# ethtool_block FILE: the lines of FILE from "Time stamping parameters"
# to the last filter name, as ethtool -T prints them.
ethtool_block() {
	awk '/^Time stamping parameters for / { on = 1 }
	     on && !/^(Time stamping|Capabilities:|PTP Hardware Clock:|Hardware |\t)/ { exit }
	     on' "$1"
}

# -v prints the simulated NIC's capabilities as ethtool -T would; the JSON
# lists them by name, with the setting in force
hwsetup_caps() {
	local want
	pair
	ENV_A=(SIMNIC_IFACES="$VETH_A" SIMNIC_PHC_INDEX=3)
	ENV_B=(SIMNIC_IFACES="$VETH_B")
	rant_pair c1 -c 200 -v
	want=$(printf '%s\n' "Time stamping parameters for $VETH_A:" "Capabilities:" \
		$'\thardware-transmit' $'\tsoftware-transmit' $'\thardware-receive' \
		$'\tsoftware-receive' $'\tsoftware-system-clock' $'\thardware-raw-clock' \
		"PTP Hardware Clock: 3" "Hardware Transmit Timestamp Modes:" $'\toff' $'\ton' \
		"Hardware Receive Filter Modes:" $'\tnone' $'\tall')
	[ "$(ethtool_block "$WORK/c1.e.txt")" = "$want" ]
	check_err $? "-v capabilities: $(ethtool_block "$WORK/c1.e.txt" | tr '\t\n' ' |')"
	grep -q '^In force: tx on, rx all$' "$WORK/c1.e.txt"
	check_err $? "-v: no 'In force: tx on, rx all' line"
	[ "$(jq -c .clock.ts_info.so_timestamping "$WORK/c1.e.json")" = "$SIM_SOF" ]
	check_err $? "JSON so_timestamping: $(jq -c .clock.ts_info.so_timestamping "$WORK/c1.e.json")"
	[ "$(jq -c '[.clock.ts_info.phc_index, .clock.ts_info.tx_types, .clock.ts_info.rx_filters]' \
		"$WORK/c1.e.json")" = '[3,["off","on"],["none","all"]]' ]
	check_err $? "JSON ts_info: $(jq -c .clock.ts_info "$WORK/c1.e.json")"
	[ "$(jq -c '.clock.hwtstamp | [.tx_type, .rx_filter, .other_process, .used]' \
		"$WORK/c1.e.json")" = '["on","all",false,true]' ]
	check_err $? "JSON hwtstamp: $(jq -c .clock.hwtstamp "$WORK/c1.e.json")"
	[ "$(jqv "$WORK/c1.r.json" .clock.ts_info.phc_index)" = 0 ]
	check_err $? "reflector's phc_index: $(jqv "$WORK/c1.r.json" .clock.ts_info.phc_index)"
	grep -q '^hwtstamp:' "$WORK/c1.e.txt" "$WORK/c1.r.txt"
	check_fail $? "a notice where rant set what it wanted: $(grep -h '^hwtstamp:' "$WORK"/c1.*.txt)"
	log_test "-v capabilities as ethtool -T, JSON ts_info and hwtstamp (simulated NIC)"
}

# on plain veth, rant -v prints what ethtool -T prints, byte for byte
hwsetup_caps_veth() {
	require_cmd ethtool
	pair
	ip netns exec "$NS_A" ethtool -T "$VETH_A" >"$WORK/ethtool.txt" 2>&1 ||
		skip_test "ethtool -T does not answer on veth"
	# no reflector: what is checked is printed at start, and the warm-up
	# gives up after 1 s (not the default 10: nothing waits for a pong)
	ip netns exec "$NS_A" "$RANT" -i "$VETH_A" -a "$IP_B" -v -c 1 -w 0 --timeout 1000 \
		--warmup-timeout 1 >"$WORK/v.txt" 2>&1
	[ "$(ethtool_block "$WORK/v.txt")" = "$(cat "$WORK/ethtool.txt")" ]
	check_err $? "rant -v: $(ethtool_block "$WORK/v.txt" | tr '\t\n' ' |') ethtool: $(tr '\t\n' ' |' <"$WORK/ethtool.txt")"
	grep -q "^timestamps: kernel software, not the NIC's ($VETH_A has no hardware timestamping (ethtool -T $VETH_A: software stamps only)): columns T\*_KN$" "$WORK/v.txt"
	check_err $? "veth's reason: $(grep '^timestamps' "$WORK/v.txt")"
	log_test "veth: rant -v prints the capabilities as ethtool -T does"
}

# a PTP-only NIC without --ptp-mode: one line naming --ptp-mode and -R,
# exit 1, nothing sent; -R then runs on kernel stamps
hwsetup_ptp_only_refused() {
	local rc out
	pair
	ip netns exec "$NS_B" env LD_PRELOAD="$SIM_LIB" SIMNIC_IFACES="$VETH_B" SIMNIC_PTP_ONLY=1 \
		"$RANT" -i "$VETH_B" -d 5 >"$WORK/r.txt" 2>&1
	rc=$?
	[ "$rc" = 1 ]; check_err $? "reflector exit $rc, not 1: $(cat "$WORK/r.txt")"
	out=$(grep -v '^rant: /dev/cpu_dma_latency' "$WORK/r.txt")
	[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
	[[ "$out" == "rant: $VETH_B stamps only PTP event packets in hardware "* ]] &&
	[[ "$out" == *"give --ptp-mode on both sides for hardware stamps, or -R for kernel stamps" ]]
	check_err $? "not the one line naming --ptp-mode and -R: $out"
	ip netns exec "$NS_A" env LD_PRELOAD="$SIM_LIB" SIMNIC_IFACES="$VETH_A" SIMNIC_PTP_ONLY=1 \
		"$RANT" -i "$VETH_A" -a "$IP_B" -c 10 >"$WORK/e.txt" 2>&1
	rc=$?
	[ "$rc" = 1 ] && grep -q -- '--ptp-mode on both sides' "$WORK/e.txt" &&
		! grep -q '^measuring' "$WORK/e.txt"
	check_err $? "emitter exit $rc: $(cat "$WORK/e.txt")"
	ENV_A=(SIMNIC_IFACES="$VETH_A" SIMNIC_PTP_ONLY=1)
	ENV_B=(SIMNIC_IFACES="$VETH_B" SIMNIC_PTP_ONLY=1)
	REFL_ARGS=(-R)
	rant_pair k1 -c 100 -R
	[ "$(jqv "$WORK/k1.e.json" .timestamp_source)/$(jqv "$WORK/k1.r.json" .timestamp_source)" = kernel/kernel ]
	check_err $? "-R on a PTP-only NIC: not kernel stamps on both sides"
	log_test "PTP-only NIC: refused without --ptp-mode (the line names it and -R); -R runs"
}

# a PTP-only NIC with --ptp-mode on both sides: HW stamps for every
# transaction, each one made by the simulation, on port 319
hwsetup_ptp_mode_hw() {
	local n=1000 recv
	pair
	ENV_A=(SIMNIC_IFACES="$VETH_A" SIMNIC_PTP_ONLY=1 SIMNIC_OFFSET_NS=1000000)
	ENV_B=(SIMNIC_IFACES="$VETH_B" SIMNIC_PTP_ONLY=1 SIMNIC_OFFSET_NS=-5000)
	# blocking, with a long --timeout: every transaction must come back
	# on a machine whose CPUs other tests' spinners share
	REFL_ARGS=(--ptp-mode --block)
	PAIR_PORT=$PTP_PORT
	rant_pair p1 -c $n -d 60 --ptp-mode --block --timeout 1000000
	[ "$(jqv "$WORK/p1.e.json" .timestamp_source)/$(jqv "$WORK/p1.r.json" .timestamp_source)" = hardware/hardware ]
	check_err $? "timestamp sources: $(grep -h '^timestamps' "$WORK"/p1.[er].txt)"
	grep -q "^ptp-mode: pings travel as PTPv2 Delay_Req, pongs as Sync (domain 114), from and to UDP port $PTP_PORT\$" "$WORK/p1.e.txt"
	check_err $? "no ptp-mode line: $(head -5 "$WORK/p1.e.txt")"
	[ "$(jqv "$WORK/p1.e.json" .clock.hwtstamp.rx_filter)" = ptpv2-l4-event ]
	check_err $? "rx filter in force: $(jq -c .clock.hwtstamp "$WORK/p1.e.json")"
	recv=$(jqv "$WORK/p1.e.json" .counts.received)
	[ "$recv" = $n ] && [ "$(jqv "$WORK/p1.e.json" .counts.invalid)" = 0 ]
	check_err $? "received $recv of $n, invalid $(jqv "$WORK/p1.e.json" .counts.invalid)"
	[ "$(jqv "$WORK/p1.e.json" '.counts.missing_tx_ts + .counts.missing_rx_ts')" = 0 ] &&
	[ "$(jqv "$WORK/p1.r.json" '.counts.missing_tx_ts + .counts.missing_rx_ts')" = 0 ]
	check_err $? "HW stamps missing: $(grep -h '^missing' "$WORK"/p1.[er].txt)"
	head -1 "$WORK/p1.e.log" | grep -q '^SEQ T1_SW T1_HW T4_HW T4_SW RTT T2_HW T2_SW T3_SW T3_HW RESPONSE T1_SCHED LOST$'
	check_err $? "emitter log header: $(head -1 "$WORK/p1.e.log")"
	# every row has all four wire stamps (T3_HW of the last comes too late)
	[ "$(log_awk "$WORK/p1.e.log" 'col("T1_HW") == "-" || col("T4_HW") == "-" || col("T2_HW") == "-" { bad++ }
		END { print bad + 0 }')" = 0 ] &&
	[ "$(log_awk "$WORK/p1.e.log" 'col("T3_HW") == "-" { bad++ } END { print bad + 0 }')" -le 1 ]
	check_err $? "rows without a HW stamp in the emitter log"
	all_simulated p1
	check_err $? "HW stamps in the logs that the simulation did not make"
	[ "$(grep -c '^rx ' "$WORK/p1.a.log")" -ge $((n + 100)) ] &&
	[ "$(grep -c '^tx ' "$WORK/p1.b.log")" -ge $((n + 100)) ]
	check_err $? "the simulation stamped fewer than the $n pings and pongs and the warm-up"
	log_test "--ptp-mode on a PTP-only NIC: HW stamps of all $recv transactions simulated"
}

# settings other processes hold: left alone and reported (EBUSY), widened
# and reported, or used as they are
hwsetup_owned() {
	local line
	pair
	# A: ptp4l holds tx on, rx ptpv2-event (locked); B: someone set
	# ptpv2-l4-event, which rant may widen to all
	ENV_A=(SIMNIC_IFACES="$VETH_A" "SIMNIC_HWTS_PRESET=1,12" SIMNIC_HWTS_LOCKED=1)
	ENV_B=(SIMNIC_IFACES="$VETH_B" "SIMNIC_HWTS_PRESET=1,6")
	rant_pair o1 -c 200
	line=$(grep '^timestamps' "$WORK/o1.e.txt")
	[ "$line" = "timestamps: kernel software, not the NIC's ($VETH_A: another process (ptp4l?) holds the hardware timestamping setting (SIOCSHWTSTAMP: EBUSY) at tx on, rx ptpv2-event, which does not stamp every packet; rant leaves it as it is; --ptp-mode on both sides would use it): columns T*_KN" ]
	check_err $? "emitter: $line"
	[ "$(jq -c '.clock.hwtstamp | [.tx_type, .rx_filter, .other_process, .used]' \
		"$WORK/o1.e.json")" = '["on","ptpv2-event",true,false]' ]
	check_err $? "emitter JSON hwtstamp: $(jq -c .clock.hwtstamp "$WORK/o1.e.json")"
	head -1 "$WORK/o1.e.log" | grep -q '^SEQ T1_SW T1_KN T4_KN T4_SW RTT T2_HW'
	check_err $? "emitter log header: $(head -1 "$WORK/o1.e.log")"
	grep -q "^hwtstamp: $VETH_B: hardware timestamping was tx on, rx ptpv2-l4-event (set by another process, ptp4l?); rant set tx on, rx all, which still stamps every packet it stamped\$" \
		"$WORK/o1.r.txt"
	check_err $? "reflector: no line for the widened setting: $(grep -h '^hwtstamp' "$WORK/o1.r.txt")"
	[ "$(jqv "$WORK/o1.r.json" .timestamp_source)" = hardware ]
	check_err $? "reflector not on HW stamps"

	# --ptp-mode uses A's ptpv2-event as it is
	REFL_ARGS=(--ptp-mode)
	PAIR_PORT=$PTP_PORT
	rant_pair o2 -c 200 --ptp-mode
	grep -q "^hwtstamp: $VETH_A: hardware timestamping is already set (tx on, rx ptpv2-event: by another process such as ptp4l, or an earlier run); it stamps rant's PTP messages, so rant uses it as it is\$" \
		"$WORK/o2.e.txt"
	check_err $? "--ptp-mode: $(grep -h '^hwtstamp\|^timestamps' "$WORK/o2.e.txt")"
	[ "$(jqv "$WORK/o2.e.json" .timestamp_source)" = hardware ] && all_simulated o2
	check_err $? "--ptp-mode with ptp4l's setting: not HW stamps, all simulated"
	log_test "settings held by another process: reported, left alone, widened or used"
}

# --ptp-mode on plain veth: kernel stamps, port 319, PTPv2 on the wire
hwsetup_ptp_mode_veth() {
	local n=500 dump=0 probes
	pair
	start_ptp_reflector
	if command -v tcpdump >/dev/null; then
		ip netns exec "$NS_B" tcpdump -l -n -vv -c 4 -i "$VETH_B" udp port $PTP_PORT \
			>"$WORK/dump.txt" 2>"$WORK/dump.err" &
		TD=$!
		defer kill "$TD"
		wait_for_line "$WORK/dump.err" 'listening on' 10 && dump=1
	fi
	# --block and a long --timeout: a spinner on a CPU another test's
	# spinner shares loses pongs to the scheduler, not to the framing
	emit -a "$IP_B" --ptp-mode --block --timeout 1000000 -c $n -w 10 -j "$WORK/e.json" \
		>"$WORK/e.txt" 2>&1
	check_err $? "emitter failed: $(tail -3 "$WORK/e.txt")"
	# rant's pings without the PTP header, and garbage: no reply, invalid
	ip netns exec "$NS_A" "$PYTHON" "$TOP/tests/net/udp_probe.py" "$IP_B" $PTP_PORT \
		>"$WORK/probe.txt"
	check_err $? "udp_probe.py failed: $(tail -3 "$WORK/probe.txt")"
	stop_reflector
	check_err "$REFL_RC" "reflector exit $REFL_RC: $(tail -3 "$WORK/r.txt")"
	probes=$(grep -c ' sent=' "$WORK/probe.txt")
	[ "$probes" -gt 10 ] && ! grep ' sent=' "$WORK/probe.txt" | grep -qv 'reply=none$' &&
		grep -q "^sent $n, received $n, duplicate 0, invalid $probes," "$WORK/r.txt"
	check_err $? "datagrams without the PTP header: $(grep -v 'reply=none' "$WORK/probe.txt" |
		head -3) $(grep '^sent' "$WORK/r.txt")"
	[ "$(jqv "$WORK/e.json" .counts.received)" = $n ] &&
	[ "$(jqv "$WORK/e.json" .counts.invalid)" = 0 ]
	check_err $? "received $(jqv "$WORK/e.json" .counts.received) of $n"
	[ "$(jqv "$WORK/e.json" .timestamp_source)/$(jqv "$WORK/e.json" .config.ptp_mode)/$(jqv "$WORK/e.json" .config.port)" = kernel/true/$PTP_PORT ]
	check_err $? "JSON: $(jq -c '[.timestamp_source, .config.ptp_mode, .config.port]' "$WORK/e.json")"
	if [ "$dump" = 1 ]; then
		wait "$TD"
		grep -q "$IP_A\.$PTP_PORT > $IP_B\.$PTP_PORT: .*PTPv2.*msg type *: delay req msg" "$WORK/dump.txt" &&
		grep -q "$IP_B\.$PTP_PORT > $IP_A\.$PTP_PORT: .*PTPv2.*msg type *: sync msg" "$WORK/dump.txt" &&
		grep -q 'domain *: 114' "$WORK/dump.txt"
		check_err $? "tcpdump does not decode PTPv2 Delay_Req/Sync: $(head -4 "$WORK/dump.txt")"
		log_test "--ptp-mode on veth: $n on port 319, as tcpdump reads it; non-PTP invalid"
	else
		log_test "--ptp-mode on veth: $n on port 319, non-PTP invalid (no tcpdump)"
	fi
}

# start_ptp_reflector: a --ptp-mode reflector in NS_B, text in $WORK/r.txt
start_ptp_reflector() {
	ip netns exec "$NS_B" taskset -c 1 "$RANT" -i "$VETH_B" --ptp-mode --block \
		>"$WORK/r.txt" 2>&1 &
	REFL=$!
	defer kill -9 "$REFL"
	wait_udp_port "$NS_B" $PTP_PORT
	check_err $? "the --ptp-mode reflector did not bind port $PTP_PORT: $(tail -3 "$WORK/r.txt")"
}

# port 319 without CAP_NET_BIND_SERVICE: one clear line, exit 1
hwsetup_port_refused() {
	local rc
	require_cmd setpriv
	pair
	ip netns exec "$NS_B" setpriv --bounding-set=-net_bind_service \
		"$RANT" -i "$VETH_B" --ptp-mode -d 5 >"$WORK/r.txt" 2>&1
	rc=$?
	[ "$rc" = 1 ] && grep -q "^rant: binding UDP port $PTP_PORT (--ptp-mode) needs root or CAP_NET_BIND_SERVICE" "$WORK/r.txt"
	check_err $? "reflector exit $rc: $(cat "$WORK/r.txt")"
	ip netns exec "$NS_A" setpriv --bounding-set=-net_bind_service \
		"$RANT" -i "$VETH_A" -a "$IP_B" --ptp-mode -c 1 >"$WORK/e.txt" 2>&1
	rc=$?
	[ "$rc" = 1 ] && grep -q "needs root or CAP_NET_BIND_SERVICE" "$WORK/e.txt"
	check_err $? "emitter exit $rc: $(cat "$WORK/e.txt")"
	log_test "--ptp-mode without CAP_NET_BIND_SERVICE: the line that says so"
}

tests_run
