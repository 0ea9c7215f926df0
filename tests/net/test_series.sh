#!/usr/bin/env bash
# Interval reports (-I): a line per interval while the run goes on and
# the JSON's series, whose rows add up to the run's counts; lost pings in
# the intervals of their send time (the reflector stopped for 1 s); and
# the bufferbloat experiment: a token bucket (tbf, 100 mbit) with a long
# queue (3mb) on the reflector's veth and bulk TCP through it raise the
# loaded intervals' p50 to at least 10 times the idle one, and a short
# queue (30kb) keeps it far lower.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="series_lines series_stopped_reflector series_bufferbloat"

require_root
require_cmd jq taskset ss awk
require_rant

IPERF_PORT=5201
# A row of the interval lines: "0.00-0.50   sent received ..."
ROW_RE='^[0-9]+\.[0-9]{2}-[0-9]+\.[0-9]{2} '

pair() {
	setup_pair || skip_test "cannot create namespaces and veth"
}

# rows FILE: the interval lines in a text output.
rows() {
	grep -Ec "$ROW_RE" "$1"
}

# sums_match JSON: the series' sent, received, lost and late add up to
# the run's counts; prints what differs.
sums_match() {
	jq -r '[.counts.sent, .counts.received, .counts.lost, .counts.late] as $c
		| [([.series[].sent] | add), ([.series[].received] | add),
		   ([.series[].lost] | add), ([.series[].late] | add)] as $s
		| if $c == $s and .series_missed == 0 then empty
		  else "counts \($c) != series sums \($s) (missed \(.series_missed))" end' "$1"
}

# -I 0.5 for 3 s on both sides: 6 +- 1 lines and rows, the first printed
# while the run goes on, the rows' counts adding up to the run's.
series_lines() {
	local rc n lines bad ivals
	pair
	start_reflector r1 -I 0.5 -j "$WORK/r1.json"
	emit_bg e1 -a "$IP_B" -d 3 -I 0.5 -j "$WORK/e1.json"
	wait_measuring "$WORK/e1.txt"
	wait_for_line "$WORK/e1.txt" "$ROW_RE" 5
	check_err $? "no interval line within 5 s of the start: $(tail -3 "$WORK/e1.txt")"
	kill -0 "$EM" 2>/dev/null
	check_err $? "the first interval line came only at the end of the run"
	wait "$EM"; rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e1.txt")"
	n=$(jqv "$WORK/e1.json" '.series | length')
	lines=$(rows "$WORK/e1.txt")
	[ "$n" -ge 5 ] && [ "$n" -le 7 ]; check_err $? "$n series rows for 3 s at 0.5 s"
	[ "$lines" = "$n" ]; check_err $? "$lines lines printed, $n rows in the JSON"
	grep -q '^interval s .*(rtt, us)$' "$WORK/e1.txt"; check_err $? "no header line naming rtt"
	bad=$(sums_match "$WORK/e1.json")
	[ -z "$bad" ]; check_err $? "emitter: $bad"
	ivals=$(jq -r '[.series[:-1][] | .duration_ns] | unique | join(",")' "$WORK/e1.json")
	[ "$ivals" = 500000000 ]; check_err $? "interval lengths $ivals, not 0.5 s"
	jq -e '[.series[] | .t_ns] == [range(0; .series | length) | . * 500000000]' \
		"$WORK/e1.json" >/dev/null
	check_err $? "t_ns are not 0, 0.5 s, 1 s, ...: $(jq -c '[.series[].t_ns]' "$WORK/e1.json")"
	jq -e '.series[0].p50 >= .series[0].min and .series[0].p99 >= .series[0].p50 and
		.series[0].max >= .series[0].p99' "$WORK/e1.json" >/dev/null
	check_err $? "row 0: min <= p50 <= p99 <= max broken: $(jq -c '.series[0]' "$WORK/e1.json")"
	grep -q '^interval s .*(response, us)$' "$WORK/r1.txt"; check_err $? "reflector: no header naming response"
	bad=$(jq -r '[.counts.received, ([.series[].received] | add)] |
		if .[0] == .[1] then empty else "received \(.[0]) != series \(.[1])" end' "$WORK/r1.json")
	[ -z "$bad" ]; check_err $? "reflector: $bad"
	log_test "-I 0.5 for 3 s: $n lines and rows, adding up to the counts"
}

# The reflector stopped for 1 s (SIGSTOP, the stimulus) mid-run: the lost
# pings fall in the intervals of that second (their send time), a whole
# interval inside it has no pong, the late pongs come after it.
series_stopped_reflector() {
	local rc t_before t_stop t_cont t_after start bad full lost_out
	pair
	start_reflector r2
	emit_bg e2 -a "$IP_B" -d 3.5 -I 0.5 --timeout 200000 -j "$WORK/e2.json"
	wait_measuring "$WORK/e2.txt"
	# one interval line: measuring has run 0.5 s and more
	wait_for_line "$WORK/e2.txt" "$ROW_RE" 5
	check_err $? "no interval line within 5 s: $(tail -3 "$WORK/e2.txt")"
	stop_reflector_for 1
	wait "$EM"; rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e2.txt")"
	start=$(jqv "$WORK/e2.json" .start_ns)
	bad=$(sums_match "$WORK/e2.json")
	[ -z "$bad" ]; check_err $? "$bad"
	# since measuring began, ns (stop_reflector_for's stamps are in us).
	# An interval wholly inside the stop (after the STOP, before the CONT)
	# has no pong; none before it (50 ms of slack) or after it (--timeout,
	# 200 ms, and 50 ms) loses a ping.
	t_before=$((${T_STOP/./} * 1000 - start))
	t_stop=$((${T_STOPPED/./} * 1000 - start))
	t_cont=$((${T_RUN/./} * 1000 - start))
	t_after=$((${T_CONT/./} * 1000 - start))
	full=$(jq --argjson a "$t_stop" --argjson b "$t_cont" \
		'[.series[] | select(.t_ns >= $a and .t_ns + .duration_ns <= $b)]
		 | map(select(.received == 0 and .lost >= 2)) | length' "$WORK/e2.json")
	[ "$full" -ge 1 ]; check_err $? "no interval inside the stopped second with only lost pings: $(jq -c '.series' "$WORK/e2.json")"
	lost_out=$(jq --argjson a "$((t_before - 50000000))" --argjson b "$((t_after + 250000000))" \
		'[.series[] | select(.t_ns + .duration_ns <= $a or .t_ns >= $b) | .lost] | add // 0' \
		"$WORK/e2.json")
	[ "$lost_out" = 0 ]; check_err $? "$lost_out pings lost outside the stopped second: $(jq -c '[.series[] | [.t_ns, .lost]]' "$WORK/e2.json")"
	jq -e --argjson b "$t_cont" '[.series[] | select(.late > 0 and .t_ns + .duration_ns < $b)] | length == 0' \
		"$WORK/e2.json" >/dev/null
	check_err $? "late pongs counted before the reflector went on: $(jq -c '[.series[] | [.t_ns, .late]]' "$WORK/e2.json")"
	log_test "reflector stopped 1 s: lost pings in its intervals, $full with no pong"
}

__tcp_bound() {
	ip netns exec "$1" ss -Hltn "sport = :$2" 2>/dev/null | grep -q .
}

# median_p50 JSON FROM TO: the median of the p50 of the rows inside
# [FROM, TO] (ns since measuring began), or "none".
median_p50() {
	jq -r --argjson a "$2" --argjson b "$3" \
		'[.series[] | select(.t_ns >= $a and .t_ns + .duration_ns <= $b and .p50 != null) | .p50]
		 | sort | if length == 0 then "none" else .[(length - 1) / 2 | floor] end' "$1"
}

# loaded_run NAME: an emitter run, idle for two intervals, then 3 s of
# bulk TCP from the reflector's side to the emitter's (8 streams, so the
# kernel's small-queue limit per socket does not keep the queue short),
# then stopped (SIGINT: the rows after the load are not read; -d 6 only
# bounds the run); sets IDLE_P50 and LOAD_P50 (ns, median of the rows'
# p50 before the load and inside it after a 0.5 s ramp).
loaded_run() {
	local name=$1 rc t0 t1 start
	emit_bg "$name" -a "$IP_B" -d 6 -I 0.5 --interval 1000 --block \
		--timeout 500000 -s -j "$WORK/$name.json"
	wait_measuring "$WORK/$name.txt"
	wait_until 10 eval "[ \$(rows '$WORK/$name.txt') -ge 2 ]"
	check_err $? "no two interval lines in 10 s: $(tail -3 "$WORK/$name.txt")"
	t0=$(date +%s%N)
	ip netns exec "$NS_B" timeout 15 iperf3 -c "$IP_A" -p "$IPERF_PORT" -t 3 -P 8 \
		>"$WORK/$name.iperf" 2>&1
	check_err $? "iperf3 failed: $(tail -3 "$WORK/$name.iperf")"
	t1=$(date +%s%N)
	kill -INT "$EM" 2>/dev/null
	wait "$EM"; rc=$?
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/$name.txt")"
	start=$(jqv "$WORK/$name.json" .start_ns)
	IDLE_P50=$(median_p50 "$WORK/$name.json" 0 $((t0 - start)))
	LOAD_P50=$(median_p50 "$WORK/$name.json" $((t0 - start + 500000000)) $((t1 - start)))
}

# emit_queue (the sender's own qdisc, T1_KN - T1_SCHED) carries a queue
# on the emitter's veth: the same tbf there and bulk TCP from the
# emitter's side, the emitter measuring only while it is loaded (rtt,
# from T1_KN after the qdisc, does not see this queue).
bufferbloat_emit_queue() {
	local q rc
	tc -n "$NS_A" qdisc add dev "$VETH_A" root tbf rate 100mbit burst 32k limit 3mb
	check_err $? "tc qdisc add dev $VETH_A failed"
	ns_bg "$NS_B" iperf3 -s -p "$IPERF_PORT" --logfile "$WORK/iperf-b.txt"
	wait_until 5 __tcp_bound "$NS_B" "$IPERF_PORT"
	check_err $? "iperf3 -s did not listen in $NS_B"
	ip netns exec "$NS_A" timeout 15 iperf3 -c "$IP_B" -p "$IPERF_PORT" -t 5 -P 8 \
		>"$WORK/q.iperf" 2>&1 &
	defer kill -9 "$!"
	wait_until 5 eval "[ \$(tc -n '$NS_A' -j -s qdisc show dev '$VETH_A' | jq '.[0].backlog') -gt 100000 ]"
	check_err $? "no queue on $VETH_A under load: $(tc -n "$NS_A" -s qdisc show dev "$VETH_A")"
	# a short warm-up: each ping waits behind the queue
	emit -a "$IP_B" -d 2 -w 5 --interval 1000 --block --timeout 500000 -s \
		-j "$WORK/q.json" >"$WORK/q.txt" 2>&1
	rc=$?
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/q.txt")"
	# p99, not p50: paced closed loop catches up back to back after a
	# ping that queued, so most pings leave while the queue has drained
	q=$(jqv "$WORK/q.json" '.metrics.emit_queue.percentiles."99"')
	[ "$q" -ge 1000000 ]; check_err $? "emit_queue p99 $q ns under a 100 mbit queue"
	EMIT_QUEUE_P99=$q
}

series_bufferbloat() {
	local idle3 load3 load30 note=""
	require_cmd iperf3 tc
	pair
	tc -n "$NS_B" qdisc add dev "$VETH_B" root tbf rate 100mbit burst 32k limit 3mb ||
		skip_test "no tbf qdisc (tc qdisc add ... tbf failed)"
	ns_bg "$NS_A" iperf3 -s -p "$IPERF_PORT" --logfile "$WORK/iperf-a.txt"
	wait_until 5 __tcp_bound "$NS_A" "$IPERF_PORT"
	check_err $? "iperf3 -s did not listen in $NS_A"
	start_reflector bb --block
	loaded_run long
	idle3=$IDLE_P50 load3=$LOAD_P50
	[ "$idle3" != none ] && [ "$load3" != none ] && [ "$load3" -ge $((10 * idle3)) ]
	check_err $? "limit 3mb: loaded p50 $load3 ns, idle $idle3 ns: not 10 times"
	tc -n "$NS_B" qdisc change dev "$VETH_B" root tbf rate 100mbit burst 32k limit 30kb
	check_err $? "tc qdisc change ... limit 30kb failed"
	loaded_run short
	load30=$LOAD_P50
	[ "$load30" != none ] && [ "$load3" != none ] && [ $((5 * load30)) -le "$load3" ]
	check_err $? "limit 30kb: loaded p50 $load30 ns, not far below limit 3mb's $load3 ns"
	bufferbloat_emit_queue
	note=", emit_queue p99 ${EMIT_QUEUE_P99:-?} ns behind the emitter's own queue"
	log_test "bufferbloat: p50 idle $idle3, 3mb $load3, 30kb $load30 ns$note"
}

tests_run
