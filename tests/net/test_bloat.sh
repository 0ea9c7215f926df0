#!/usr/bin/env bash
# tools/bufferbloat.sh, the origin's bufferbloat study as one command, run
# short: 20 pings a destination per load through the large queue. Its
# outputs hold what doc/load.md claims of them: every ping counted, the
# loads ran (iperf3's throughput near the link's rate), and under upload
# and under download the round trip's p50 is many times the idle one's;
# the pictures are PNGs; its namespaces are gone when it ends, and when
# it fails (tc refusing the queue) too.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="bloat_study bloat_cleanup"

require_root
require_cmd jq tc iperf3
require_rant

BLOAT=$TOP/tools/bufferbloat.sh

# namespaces_of OUT: the namespaces the study named in its first line.
namespaces_of() {
	sed -n 's/^bufferbloat: namespaces \([^;]*\);.*/\1/p' "$1"
}

# left NAMES...: those of NAMES that are still namespaces.
left() {
	local ns
	for ns in "$@"; do
		ip netns list | awk '{ print $1 }' | grep -qx "$ns" && echo "$ns"
	done
	return 0
}

# dest STUDY RUN DEST FILTER: jq's FILTER on a destination of a run: its
# JSON as study.json names it (a fleet's: its target of that name).
dest() {
	local f
	f=$(jq -r --arg r "$2" --arg d "$3" '.runs[] | select(.dir == $r) | .targets[] |
		select(.name == $d) | .json' "$1")
	jq -r --arg n "$3" "(if .targets then (.targets[] | select(.name == \$n)) else . end) | $4" \
		"$(dirname "$1")/$f"
}

bloat_study() {
	local out=$WORK/study rc=0 d run base loaded n sent kind ns
	timeout 300 "$BLOAT" -c 20 --queues large --loads none,upload,download -o "$out" \
		>"$WORK/bloat.txt" 2>&1 || rc=$?
	[ "$rc" = 0 ] && [ -s "$out/study.json" ]
	check_err $? "tools/bufferbloat.sh exited $rc: $(tail -n 5 "$WORK/bloat.txt")"
	log_test "bufferbloat.sh -c 20, large queue, three loads: exit 0, study.json"
	[ "$rc" = 0 ] || return 0

	n=$(jq '.runs | length' "$out/study.json")
	[ "$n" = 3 ]
	check_err $? "study.json has $n runs, not 3"
	for run in large-none large-upload large-download; do
		for d in dest1 dest2; do
			sent=$(dest "$out/study.json" "$run" "$d" .counts.sent)
			kind=$(dest "$out/study.json" "$run" "$d" '.kind // .probe.kind')
			[ "$sent" = 20 ] && [ "$kind" = icmp ]
			check_err $? "$run $d: sent $sent of 20, kind $kind"
		done
	done
	log_test "every run pinged both destinations 20 times (ICMP)"

	# the loads ran: at least half the link's rate each way they used
	jq -e '.runs[] | select(.load == "upload") | .load_bps.up >= 2500000' "$out/study.json" >/dev/null &&
		jq -e '.runs[] | select(.load == "download") | .load_bps.down >= 10000000' \
			"$out/study.json" >/dev/null
	check_err $? "the loads' throughput: $(jq -c '[.runs[] | {load, load_bps}]' "$out/study.json")"
	log_test "2 uploads near 5 Mbit/s, 3 downloads near 20 Mbit/s"

	for d in dest1 dest2; do
		base=$(dest "$out/study.json" large-none "$d" '.metrics.rtt.percentiles["50"]')
		for run in large-upload large-download; do
			loaded=$(dest "$out/study.json" "$run" "$d" '.metrics.rtt.percentiles["50"]')
			# idle tens of µs; a queue of tens of ms under load
			[ "$loaded" -gt $((10 * base)) ] && [ "$loaded" -gt 1000000 ]
			check_err $? "$run $d: p50 $loaded ns, idle $base ns"
		done
	done
	log_test "large queue: p50 under upload and download > 10x idle, > 1 ms"

	for f in bloat-page.png large-none.png large-upload.png large-download.png; do
		[ "$(head -c 8 "$out/$f" 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ]
		check_err $? "$out/$f is not a PNG"
	done
	grep -q '^large  2 uploads' "$out/study.txt"
	check_err $? "study.txt has no line of the upload run: $(cat "$out/study.txt")"
	log_test "the pictures are PNGs, study.txt has the table"

	ns=$(namespaces_of "$WORK/bloat.txt")
	[ -n "$ns" ] && [ -z "$(left $ns)" ]
	check_err $? "namespaces left behind: $(left $ns) (named: '$ns')"
	log_test "its namespaces are gone"
}

bloat_cleanup() {
	local rc=0 ns
	timeout 120 "$BLOAT" -c 5 --queues large --loads none --large 10parsecs \
		-o "$WORK/study" >"$WORK/bloat.txt" 2>&1 || rc=$?
	[ "$rc" = 1 ] && grep -q "tc refused 'tbf rate 5mbit burst 4k limit 10parsecs'" "$WORK/bloat.txt"
	check_err $? "exit $rc, not 1 with tc's refusal named: $(tail -n 3 "$WORK/bloat.txt")"
	ns=$(namespaces_of "$WORK/bloat.txt")
	[ -n "$ns" ] && [ -z "$(left $ns)" ]
	check_err $? "namespaces left behind: $(left $ns) (named: '$ns')"
	log_test "a queue tc refuses: exit 1 naming it, namespaces gone"
}

tests_run
