#!/usr/bin/env bash
# --pcap over veth: the capture read back with tcpdump, rant's check of its
# own stamps against it, and the same check made again here from the log
# and tcpdump's output (tests/net/pcapstamps.py).
#   pcap_pair     both sides capture: packet counts (tcpdump, JSON) equal
#                 the pings and pongs sent; every measured packet matched;
#                 RX stamps equal to the ns, TX stamps of the capture never
#                 after rant's (doc/usage.md, --pcap); the reflector's -w left out
#                 and not counted
#   pcap_stream   --pcap - piped into tcpdump, and a FIFO: the same counts
#   pcap_sigint   SIGINT mid-run: the file is whole and renamed
#   pcap_tcp      --tcp: TCP segments captured, the stamps not checked
#   pcap_refused  bad targets refused with one line, exit 1, no packet sent
#   pcap_full     a full file system (a 64 KiB tmpfs): ENOSPC said as
#                 such, with its fix
#   pcap_fifo     a reflector under chrt -f 80: its capture thread runs at
#                 SCHED_OTHER off the loop's CPU (only the loop is FIFO),
#                 and captures; --watch on an interface that is down says
#                 so with the fix (the one live opener's message)
#   pcap_sim      under the simulated PHC NIC (tests/sim) the capture asks
#                 for the NIC's stamps (adapter_unsynced); the kernel gives
#                 the packet socket its own, so the check shows the PHC's
#                 simulated offset, exactly, on every RX stamp
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="pcap_pair pcap_stream pcap_sigint pcap_tcp pcap_refused pcap_full pcap_fifo
	pcap_sim"

require_root
require_cmd jq ss taskset chrt ps tcpdump "$PYTHON"
require_rant

PCAPSTAMPS=$TOP/tests/net/pcapstamps.py
SIM_LIB=$TOP/tests/sim/libsimnic.so
COUNT=2000

pair() {
	setup_pair || skip_test "cannot create namespaces and veth"
}

# pcap_count FILE: packets in a pcap file, as tcpdump reads it.
pcap_count() {
	tcpdump -r "$1" -nn --nano 2>/dev/null | wc -l
}

# nano_stamps FILE: tcpdump prints nanosecond stamps for FILE.
nano_stamps() {
	tcpdump -r "$1" -nn --nano -tt 2>/dev/null | head -1 | grep -Eq '^[0-9]+\.[0-9]{9} IP'
}

# check_capture JSON WANT_PACKETS SIDE: the JSON's capture object against
# what the run sent: packets, all matched, nothing only in rant.
check_capture() {
	local j=$1 want=$2 side=$3 v
	v=$(jqv "$j" .capture.packets)
	[ "$v" = "$want" ]; check_err $? "$side JSON capture.packets $v, want $want"
	v=$(jqv "$j" .capture.dropped)
	[ "$v" = 0 ]; check_err $? "$side capture dropped $v"
	v=$(jqv "$j" .capture.only_in_log)
	[ "$v" = 0 ]; check_err $? "$side capture.only_in_log $v"
	v=$(jqv "$j" .capture.tstamp_type)
	[ "$v" = host ]; check_err $? "$side capture.tstamp_type $v on veth, want host"
	v=$(jqv "$j" '.capture.rx.matched == .capture.rx.exact')
	[ "$v" = true ]; check_err $? "$side RX stamps differ from the capture's: $(jq -c .capture.rx "$j")"
	v=$(jqv "$j" '.capture.tx.min_diff_ns >= 0')
	[ "$v" = true ]; check_err $? "$side capture stamped a TX packet after rant's stamp: $(jq -c .capture.tx "$j")"
}

# pcapstamps_check PCAP LOG SIDE MATCHED: the check made again from tcpdump
# and the log agrees with rant's: every logged stamp found, RX exact, TX
# capture first.
pcapstamps_check() {
	local out want=$4
	out=$(tcpdump -r "$1" -nn --nano -tt -x 2>/dev/null | "$PYTHON" "$PCAPSTAMPS" "$2" "$3")
	check_err $? "pcapstamps.py failed on $1"
	echo "$out" | grep -q "^tx matched $want exact [0-9]* min_diff [0-9]* max_diff [0-9]* only_in_log 0$"
	check_err $? "$3 TX from tcpdump: $(echo "$out" | head -1), want $want matched, min_diff >= 0"
	echo "$out" | grep -q "^rx matched $want exact $want min_diff 0 max_diff 0 only_in_log 0$"
	check_err $? "$3 RX from tcpdump: $(echo "$out" | tail -1), want $want matched, all exact"
}

pcap_pair() {
	local rc es er wu lost late left want
	pair
	start_reflector r1 -w 50 --pcap "$WORK/r.pcap" -l "$WORK/r.log" -S -j "$WORK/r.json"
	emit -a "$IP_B" -c "$COUNT" --pcap "$WORK/e.pcap" -l "$WORK/e.log" -j "$WORK/e.json" \
		>"$WORK/e.txt" 2>&1
	rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e.txt")"
	check_err "$REFL_RC" "reflector exit $REFL_RC: $(tail -3 "$WORK/r1.txt")"
	es=$(jqv "$WORK/e.json" .counts.sent)
	er=$(jqv "$WORK/e.json" .counts.received)
	wu=$(jqv "$WORK/e.json" '.counts.warmup + .counts.fetch')
	lost=$(jqv "$WORK/e.json" .counts.lost)
	late=$(jqv "$WORK/e.json" .counts.late)
	want=$((2 * (wu + es) - lost + late))
	[ "$(pcap_count "$WORK/e.pcap")" = "$want" ]
	check_err $? "emitter pcap: tcpdump reads $(pcap_count "$WORK/e.pcap") packets, want $want (2 x (warm-up and fetch $wu + sent $es) - lost $lost + late $late)"
	[ "$(pcap_count "$WORK/r.pcap")" = "$want" ]
	check_err $? "reflector pcap: tcpdump reads $(pcap_count "$WORK/r.pcap") packets, want $want"
	nano_stamps "$WORK/e.pcap"; check_err $? "tcpdump --nano shows no nanosecond stamps"
	check_capture "$WORK/e.json" "$want" emitter
	check_capture "$WORK/r.json" "$want" reflector
	[ "$(jqv "$WORK/e.json" .capture.matched)" = $((2 * er)) ]
	check_err $? "emitter capture.matched $(jqv "$WORK/e.json" .capture.matched), want 2 x received $er"
	[ "$(jqv "$WORK/e.json" .capture.only_in_capture)" = $((lost + late)) ]
	check_err $? "emitter capture.only_in_capture $(jqv "$WORK/e.json" .capture.only_in_capture), want lost $lost + late $late"
	left=$(jqv "$WORK/r.json" '.sessions[0].left_out')
	[ "$left" = 50 ]; check_err $? "reflector left out $left pings, want -w 50"
	[ "$(jqv "$WORK/r.json" .capture.matched)" = $((2 * $(jqv "$WORK/r.json" .counts.received))) ]
	check_err $? "reflector capture.matched $(jqv "$WORK/r.json" .capture.matched), want 2 x received"
	[ "$(jqv "$WORK/r.json" .capture.only_in_capture)" = 0 ]
	check_err $? "reflector capture.only_in_capture $(jqv "$WORK/r.json" .capture.only_in_capture): the -w pings must not count"
	grep -q '^capture: .*e.pcap: [0-9]* packets, host stamps' "$WORK/e.txt"
	check_err $? "no capture line in the emitter's text"
	log_test "both sides capture: counts, every stamp matched, RX exact, TX capture first"
	pcapstamps_check "$WORK/e.pcap" "$WORK/e.log" emit "$er"
	pcapstamps_check "$WORK/r.pcap" "$WORK/r.log" reflect "$(jqv "$WORK/r.json" .counts.received)"
	log_test "the check made again from tcpdump -r and the logs agrees"
}

pcap_stream() {
	local rc n want
	pair
	start_reflector r1
	emit -a "$IP_B" -c 500 --pcap - -j "$WORK/e.json" 2>"$WORK/e.txt" |
		tcpdump -r - -nn --nano >"$WORK/td.txt" 2>/dev/null
	rc=${PIPESTATUS[0]}
	check_err "$rc" "emitter with --pcap - exit $rc: $(tail -3 "$WORK/e.txt")"
	want=$(jqv "$WORK/e.json" .capture.packets)
	n=$(wc -l <"$WORK/td.txt")
	[ "$n" = "$want" ] && [ "$n" -ge 1200 ]
	check_err $? "tcpdump read $n packets from stdout, the JSON says $want (at least 1200)"
	grep -q '^--- Latency Statistics ---$' "$WORK/e.txt"
	check_err $? "the text summary is not on stderr with --pcap -"
	log_test "--pcap - : a pcap stream on stdout, the text on stderr"

	mkfifo "$WORK/fifo"
	tcpdump -r "$WORK/fifo" -nn --nano >"$WORK/td2.txt" 2>/dev/null &
	local td=$!
	defer kill -9 "$td"
	# rant refuses a FIFO without a reader: wait until tcpdump opens it
	wait_until 5 grep -q wait_for_partner "/proc/$td/wchan"
	check_err $? "tcpdump did not open the FIFO"
	emit -a "$IP_B" -c 500 --pcap "$WORK/fifo" -j "$WORK/e2.json" >"$WORK/e2.txt" 2>&1
	rc=$?
	wait "$td"
	check_err $rc "emitter with a FIFO exit $rc: $(tail -3 "$WORK/e2.txt")"
	n=$(wc -l <"$WORK/td2.txt")
	[ "$n" = "$(jqv "$WORK/e2.json" .capture.packets)" ]
	check_err $? "tcpdump read $n packets from the FIFO, the JSON says $(jqv "$WORK/e2.json" .capture.packets)"
	[ -p "$WORK/fifo" ]; check_err $? "the FIFO was replaced"
	log_test "--pcap FIFO: written as a stream"
	stop_reflector
}

pcap_sigint() {
	local rc n
	pair
	start_reflector r1
	emit_bg e1 -a "$IP_B" -d 60 --pcap "$WORK/e.pcap" -j "$WORK/e.json"
	wait_measuring "$WORK/e1.txt"
	wait_cpu "$EM" 200000000 20	# some measured traffic
	[ ! -e "$WORK/e.pcap" ]; check_err $? "the pcap exists under its name before the end"
	kill -INT "$EM"
	rc=0
	wait "$EM" || rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc after SIGINT: $(tail -3 "$WORK/e1.txt")"
	n=$(pcap_count "$WORK/e.pcap")
	[ "$n" = "$(jqv "$WORK/e.json" .capture.packets)" ] && [ "$n" -gt 200 ]
	check_err $? "after SIGINT tcpdump reads $n packets, the JSON says $(jqv "$WORK/e.json" .capture.packets)"
	local left=("$WORK"/*.rant-*)
	[ ! -e "${left[0]}" ]; check_err $? "a temporary file was left: ${left[*]}"
	log_test "SIGINT: the capture whole and renamed"
}

__tcp_listening() {
	ip netns exec "$NS_B" ss -Hltn "sport = :$PORT" 2>/dev/null | grep -q .
}

pcap_tcp() {
	local rc n
	pair
	ip netns exec "$NS_B" taskset -c 1 "$RANT" -i "$VETH_B" --tcp >"$WORK/r1.txt" 2>&1 &
	REFL=$!
	defer kill -9 "$REFL"
	wait_until 10 __tcp_listening
	check_err $? "the --tcp reflector does not listen: $(tail -3 "$WORK/r1.txt")"
	emit -a "$IP_B" --tcp -c 300 --pcap "$WORK/e.pcap" -j "$WORK/e.json" >"$WORK/e.txt" 2>&1
	rc=$?
	stop_reflector
	check_err $rc "emitter --tcp exit $rc: $(tail -3 "$WORK/e.txt")"
	n=$(tcpdump -r "$WORK/e.pcap" -nn --nano tcp 2>/dev/null | wc -l)
	[ "$n" -ge 600 ] && [ "$n" = "$(jqv "$WORK/e.json" .capture.packets)" ]
	check_err $? "TCP capture: tcpdump reads $n segments, JSON $(jqv "$WORK/e.json" .capture.packets), want >= 600"
	[ "$(jqv "$WORK/e.json" .capture.checked)" = false ]
	check_err $? "over TCP the stamps must say checked false"
	grep -q "filter 'tcp port $PORT and host $IP_B'" "$WORK/e.txt"
	check_err $? "no TCP filter line: $(grep capture: "$WORK/e.txt")"
	log_test "--tcp: segments captured, stamps not checked"
}

# refused TARGET MSG ARGS...: exit 1 with one line saying MSG.
refused() {
	local target=$1 msg=$2 rc
	shift 2
	emit -a "$IP_B" -c 10 --pcap "$target" "$@" >"$WORK/out.txt" 2>&1
	rc=$?
	[ "$rc" = 1 ]; check_err $? "--pcap '$target': exit $rc, want 1"
	[ "$(wc -l <"$WORK/out.txt")" = 1 ] && grep -q -- "$msg" "$WORK/out.txt"
	check_err $? "--pcap '$target': want one line with '$msg', got: $(cat "$WORK/out.txt")"
}

# --pcap on a full file system (a 64 KiB tmpfs of the test's own): the
# run fails naming ENOSPC and its fix. On db30865 it said "Resource
# temporarily unavailable": the write's errno was gone by the end.
pcap_full() {
	local rc=0
	setup_pair || skip_test "cannot create namespaces and veth"
	mkdir "$WORK/full"
	mount -t tmpfs -o size=64k "rant-test-$$" "$WORK/full" || skip_test "cannot mount a tmpfs"
	defer umount "$WORK/full"
	start_reflector r1
	emit -a "$IP_B" -c 3000 --interval 1000 --pcap "$WORK/full/e.pcap" >"$WORK/e.txt" 2>&1 ||
		rc=$?
	stop_reflector
	grep '^rant: writing the capture' "$WORK/e.txt"
	[ "$rc" != 0 ] &&
		grep -q "^rant: writing the capture .*: No space left on device (nothing was written): its file system is full; free space there, or give --pcap a file elsewhere" \
			"$WORK/e.txt"
	check_err $? "exit $rc: $(grep '^rant:' "$WORK/e.txt")"
	log_test "--pcap on a full file system: ENOSPC named, with its fix"
}

# the reflector counts what reached it: nothing may have
pcap_refused() {
	local got
	pair
	start_reflector r1 -j "$WORK/r.json"
	refused "" "give a file name"
	refused "$WORK/no/such/dir/x.pcap" "check that the directory exists"
	refused "$WORK" "it is a directory"
	refused - "cannot both write to stdout" -j -
	stop_reflector
	got=$(jqv "$WORK/r.json" '.counts.received + .counts.warmup + .counts.invalid')
	[ "$got" = 0 ]; check_err $? "the reflector got $got datagrams from refused emitters"
	log_test "bad --pcap targets refused before any packet"
}

# threads_fifo PID: "TID CLS" of each thread of PID but its first.
threads_fifo() {
	ps -L -o tid=,cls= -p "$1" | awk -v p="$1" '$1 != p { print $1, $2 }'
}

pcap_fifo() {
	local pid cls rc
	pair
	ip netns exec "$NS_B" chrt -f 80 taskset -c 1 "$RANT" -i "$VETH_B" \
		--pcap "$WORK/r.pcap" -j "$WORK/r.json" >"$WORK/r1.txt" 2>&1 &
	pid=$!
	REFL=$pid
	defer kill -9 "$pid"
	wait_udp_port "$NS_B" "$PORT"
	check_err $? "the reflector under chrt -f 80 did not bind: $(tail -3 "$WORK/r1.txt")" || return
	[ "$(ps -o cls= -p "$pid" | tr -d ' ')" = FF ]
	check_err $? "the reflector's loop is not SCHED_FIFO under chrt -f 80: $(ps -L -o tid,cls,rtprio -p "$pid")"
	cls=$(threads_fifo "$pid")
	[ -n "$cls" ] && ! echo "$cls" | grep -qv ' TS$'
	check_err $? "threads beside the loop not all SCHED_OTHER: $(ps -L -o tid,cls,rtprio,psr -p "$pid" | tr '\n' ';')"
	emit -a "$IP_B" -c 200 >"$WORK/e.txt" 2>&1
	check_err $? "emitter failed: $(tail -3 "$WORK/e.txt")"
	stop_reflector
	rc=$(pcap_count "$WORK/r.pcap")
	[ "$rc" -ge 400 ]; check_err $? "the capture under chrt -f 80 holds $rc packets, want 400 at least"
	log_test "chrt -f 80: the capture thread at SCHED_OTHER, the capture whole"
	ip netns exec "$NS_A" ip link set "$VETH_A" down
	ip netns exec "$NS_A" "$RANT" -i "$VETH_A" --watch -d 1 >"$WORK/wdown.txt" 2>&1
	rc=$?
	ip netns exec "$NS_A" ip link set "$VETH_A" up
	[ "$rc" = 1 ] && grep -q "$VETH_A is down: ip link set $VETH_A up" "$WORK/wdown.txt"
	check_err $? "--watch on a down interface: exit $rc: $(cat "$WORK/wdown.txt")"
	log_test "--watch on a down interface: named by the one opener, with the fix"
}

pcap_sim() {
	local rc v
	[ -r "$SIM_LIB" ] || skip_test "the simulation is not built (make sim)"
	pair
	start_reflector r1
	ip netns exec "$NS_A" env LD_PRELOAD="$SIM_LIB" SIMNIC_IFACES="$VETH_A" \
		SIMNIC_OFFSET_NS=1000000 taskset -c 0 "$RANT" -i "$VETH_A" -a "$IP_B" -c 300 \
		--pcap "$WORK/e.pcap" -j "$WORK/e.json" >"$WORK/e.txt" 2>&1
	rc=$?
	stop_reflector
	check_err $rc "emitter under the simulation exit $rc: $(tail -3 "$WORK/e.txt")"
	v=$(jqv "$WORK/e.json" .timestamp_source)
	[ "$v" = hardware ]; check_err $? "timestamp_source $v under the simulation"
	v=$(jqv "$WORK/e.json" .capture.tstamp_type)
	[ "$v" = adapter_unsynced ]; check_err $? "capture.tstamp_type $v, want adapter_unsynced"
	v=$(jq -c '.capture.rx | [.matched, .min_diff_ns, .max_diff_ns]' "$WORK/e.json")
	[ "$v" = "[$(jqv "$WORK/e.json" .counts.received),1000000,1000000]" ]
	check_err $? "RX rant - capture [matched, min, max] $v, want every pong at the offset 1000000"
	log_test "simulated NIC: adapter stamps asked, the PHC offset seen exactly"
}

tests_run
