#!/usr/bin/env bash
# Bad input at setup: each case exits 1 with one line that names the
# problem and the fix, before any packet is sent (a reflector listening
# on the pair receives nothing).
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="errors_no_iface errors_wrong_iface errors_own_address errors_no_route
	errors_not_address errors_log_missing_dir errors_log_is_dir
	errors_json_missing_dir errors_out_of_range errors_emitter_option
	errors_port_in_use errors_no_privilege errors_no_hugepages"

require_root
require_cmd jq setpriv ss
require_rant

# watch: the pair, a reflector listening on it (its JSON counts what
# reached it), and the emitter's command line in A.
watch() {
	setup_pair || skip_test "cannot create namespaces and veth"
	start_reflector watch -j "$WORK/watch.json"
	A=(ip netns exec "$NS_A" "$RANT")
}

# expect_setup_error NAME PATTERN CMD...: exit 1, one line on stderr
# matching PATTERN, no summary, and nothing reached the reflector.
expect_setup_error() {
	local name=$1 pattern=$2 rc lines
	shift 2
	"$@" >"$WORK/out.txt" 2>"$WORK/err.txt"
	rc=$?
	lines=$(wc -l <"$WORK/err.txt")
	[ "$rc" = 1 ]; check_err $? "exit $rc, not 1: $(cat "$WORK/err.txt")"
	[ "$lines" = 1 ]; check_err $? "$lines lines on stderr: $(cat "$WORK/err.txt")"
	grep -Eq -- "$pattern" "$WORK/err.txt"; check_err $? "message does not match '$pattern': $(cat "$WORK/err.txt")"
	! grep -q 'Latency Statistics' "$WORK/out.txt"; check_err $? "a summary was printed"
	stop_reflector
	[ "$(jqv "$WORK/watch.json" '.counts.received + .counts.invalid + .counts.warmup')" = 0 ]
	check_err $? "a failed start sent packets: $(jqv "$WORK/watch.json" .counts)"
	log_test "setup error: $name"
}

errors_no_iface() {
	watch
	expect_setup_error "unknown interface" "nosuch0: no such interface.*ip link" \
		"${A[@]}" -i nosuch0 -a "$IP_B" -c 10
}

errors_wrong_iface() {
	watch
	expect_setup_error "address not routed through -i" "routed via .*$VETH_A|no route" \
		"${A[@]}" -i lo -a "$IP_B" -c 10
}

errors_own_address() {
	watch
	expect_setup_error "address of this host" "address of this host" \
		"${A[@]}" -i "$VETH_A" -a "$IP_A" -c 10
}

errors_no_route() {
	watch
	expect_setup_error "no route at all" "no route to it.*ip route get" \
		"${A[@]}" -i "$VETH_A" -a 192.0.2.7 -c 10
}

errors_not_address() {
	watch
	expect_setup_error "not an address" "not an IPv4 or IPv6 address" \
		"${A[@]}" -i "$VETH_A" -a not.an.address -c 10
}

errors_log_missing_dir() {
	watch
	expect_setup_error "log in a missing directory" "-l: cannot create /nonexistent/x.log" \
		"${A[@]}" -i "$VETH_A" -a "$IP_B" -c 10 -l /nonexistent/x.log
}

errors_log_is_dir() {
	watch
	expect_setup_error "log is a directory" "it is a directory" \
		"${A[@]}" -i "$VETH_A" -a "$IP_B" -c 10 -l "$WORK"
}

errors_json_missing_dir() {
	watch
	expect_setup_error "JSON in a missing directory" "-j: cannot create" \
		"${A[@]}" -i "$VETH_A" -a "$IP_B" -c 10 -j /nonexistent/x.json
}

errors_out_of_range() {
	watch
	expect_setup_error "value out of range" "out of range. Must be in the range 1 to 65535" \
		"${A[@]}" -i "$VETH_A" -a "$IP_B" --port 70000
}

errors_emitter_option() {
	watch
	expect_setup_error "contradicting options" "is for the emitter" \
		"${A[@]}" -i "$VETH_A" --interval 100
}

# The watching reflector holds the port.
errors_port_in_use() {
	watch
	expect_setup_error "port in use" "port $PORT is in use.*--port" \
		ip netns exec "$NS_B" "$RANT" -i "$VETH_B" -d 1
}

errors_no_privilege() {
	watch
	# veth needs no SIOCSHWTSTAMP (software stamps only): mlockall says it
	expect_setup_error "missing privilege" "(needs CAP_NET_(RAW|ADMIN)|mlockall: .*): run as root" \
		ip netns exec "$NS_A" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$RANT" -i "$VETH_A" -a "$IP_B" -c 10
}

errors_no_hugepages() {
	[ "$(awk '/HugePages_Free/ { print $2 }' /proc/meminfo)" = 0 ] ||
		skip_test "hugepages are reserved here"
	watch
	expect_setup_error "-G without reserved hugepages" "nr_hugepages" \
		"${A[@]}" -i "$VETH_A" -a "$IP_B" -c 10 -G
}

tests_run
