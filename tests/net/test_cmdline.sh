#!/usr/bin/env bash
# The subcommands on the wire (issue 40): the new form and the old
# spelling it stands for measure alike.
#   cmdline_same_counts  rant reflect -i IF answers; rant emit -i IF ADDR
#                        -c 1000 --interval 1ms -d 5s and rant -i IF -a ADDR
#                        -c 1000 --interval 1000 -d 5, in interleaved
#                        rounds, each exit 0 with the same counts (1000
#                        sent and received, none lost) and the same
#                        configuration in their JSON
#   cmdline_refused      rant reflect --targets f and rant read x.pcap
#                        -b 0.001 -o 10000000 exit 1 before any packet,
#                        naming emit and -b/-o
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="cmdline_same_counts cmdline_refused"

require_root
require_cmd jq taskset ss
require_rant

# What two runs must share: the counts and the configuration they ran with.
counts() {
	jq -c '[.mode, .counts.sent, .counts.received, .counts.lost, .counts.late,
		.config.count, .config.duration_ns, .config.interval_ns, .config.timeout_ns,
		.config.warmup]' "$1"
}

cmdline_same_counts() {
	local round new old
	setup_pair || skip_test "cannot create namespaces and veth"
	ip netns exec "$NS_B" taskset -c 1 "$RANT" reflect -i "$VETH_B" >"$WORK/r.txt" 2>&1 &
	REFL=$!
	defer kill -9 "$REFL"
	wait_udp_port "$NS_B" "$PORT"
	check_err $? "rant reflect -i $VETH_B did not bind port $PORT: $(tail -3 "$WORK/r.txt")"
	for round in 1 2; do
		ip netns exec "$NS_A" taskset -c 0 "$RANT" emit -i "$VETH_A" "$IP_B" -c 1000 \
			--interval 1ms -d 5s -j "$WORK/new$round.json" >"$WORK/new$round.txt" 2>&1
		check_err $? "rant emit (round $round): $(tail -3 "$WORK/new$round.txt")"
		emit -a "$IP_B" -c 1000 --interval 1000 -d 5 -j "$WORK/old$round.json" \
			>"$WORK/old$round.txt" 2>&1
		check_err $? "rant -i -a (round $round): $(tail -3 "$WORK/old$round.txt")"
		new=$(counts "$WORK/new$round.json")
		old=$(counts "$WORK/old$round.json")
		[ "$new" = '["emit",1000,1000,0,0,1000,5000000000,1000000,100000000,100]' ]
		check_err $? "rant emit (round $round): $new"
		[ "$new" = "$old" ]
		check_err $? "round $round: rant emit gave $new, the old spelling $old"
	done
	log_test "cmdline: rant emit IF ADDR --interval 1ms -d 5s measures as rant -i IF -a ADDR --interval 1000 -d 5"
}

cmdline_refused() {
	local out rc
	setup_pair || skip_test "cannot create namespaces and veth"
	: >"$WORK/f"
	out=$(ip netns exec "$NS_B" "$RANT" reflect -i "$VETH_B" --targets "$WORK/f" 2>&1)
	rc=$?
	[ "$rc" = 1 ] && [ "$(wc -l <<<"$out")" = 1 ] &&
		grep -q -- '^rant: --targets is not for the reflector (rant reflect): it is for the emitter (rant emit)' <<<"$out"
	check_err $? "rant reflect --targets: exit $rc: $out"
	out=$("$RANT" read "$WORK/x.pcap" -b 0.001 -o 10000000 2>&1)
	rc=$?
	[ "$rc" = 1 ] && [ "$(wc -l <<<"$out")" = 1 ] &&
		grep -q -- '^rant: -o/--overflow over -b/--bucket-size gives 10000000000 buckets' <<<"$out"
	check_err $? "rant read -b 0.001 -o 10000000: exit $rc: $out"
	log_test "cmdline: reflect --targets is refused naming emit, read's -b/-o bound as emit's"
}

tests_run
