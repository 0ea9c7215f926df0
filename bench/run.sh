#!/usr/bin/env bash
# rant's performance comparison (make bench; root). See bench/README.md.
#
# On one veth pair between two namespaces, with the same CPU pinning
# (reflector/server on CPU 1, emitter/client on CPU 0) and the same idle
# setting (/dev/cpu_dma_latency held at 0 for the whole bench), runs the
# same number of round trips of a 72-byte payload with:
#   floor spin     bench/floor, both sides spinning on recv(MSG_DONTWAIT)
#   floor block    bench/floor, both sides blocking in recv()
#   floor ... +ts  the same with SO_TIMESTAMPING as rant sets it (floor -t):
#                  the kernel's share of rant's cost, for information
#   rant spin      rant -s, both sides spinning
#   rant spin -I 1 the same with interval reports every second (both sides),
#                  run twice between two plain rant spin runs (A B B A)
#   rant block     rant -s --block, both sides in poll()
#   rant spin +log rant spin with the log streamed on both sides (-l to
#                  bench/out): the writer thread's cost, against rant spin
#   sockperf       sockperf ping-pong --full-rtt, blocking (its default)
#   sim spin       rant spin on the simulated PHC NIC (tests/sim), PHC read
#                  at start and end only (--phc-interval 0), and "+phc" with
#                  the sampler thread reading it 100 times a second: the
#                  sampler's cost to the spinning p50, as a ratio
# and the same over TCP (TCP_NODELAY everywhere; the floor and rant frame
# each message with a 4-byte length, sockperf with its own header):
#   floor tcp spin / block, rant tcp spin / block (--tcp --nodelay),
#   sockperf tcp   sockperf ping-pong --tcp (blocking)
#   rant spin key, rant block key: rant spin/block with --key on both
#                  sides (the MAC's cost, as a ratio to the rows without)
# and prints the user-level round trip (rant: T4_SW - T1_SW) of each, the
# ratios against the targets, then the log-writing figure of logbench and
# the cost of one MAC (authbench).
#
# Environment: BENCH_N round trips per run (default 200000).
# Raw outputs go to bench/out/. Exits 0 when every run produced numbers,
# whether or not the targets were met (a report, not a test); 1 otherwise.
set -euo pipefail

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../tests/net/lib.sh
source "$BENCH/../tests/net/lib.sh"	# sets TOP, RANT, defer, setup_pair

N=${BENCH_N:-200000}
SIZE=72
WARMUP=1000
CPU_REFLECT=1
CPU_EMIT=0
PORT_FLOOR=12346
PORT_RANT=12345
PORT_SOCKPERF=11111
OUT=$BENCH/out
FLOOR=$BENCH/floor
LOGBENCH=$BENCH/logbench
AUTHBENCH=$BENCH/authbench
SIM_LIB=$TOP/tests/sim/libsimnic.so
SIM_A=()	# rant_sim_run: the emitter's and the reflector's LD_PRELOAD
SIM_B=()

declare -A RES=()	# run -> "samples min p50 p99 p99.9 max"
ORDER=()
FAILED_RUNS=()

say() { printf '%s\n' "$*" >&2; }

# A run's client gets this long before it is called hung (SIGTERM, then
# SIGKILL 10 s later if it ignores that).
client_timeout() {
	echo $((60 + N / 1000))
}

# record NAME "samples min p50 p99 p99.9 max": one row of the table.
record() {
	local name=$1 row=$2
	# shellcheck disable=SC2086  # split the row into its six numbers
	set -- $row
	if [ "$#" -ne 6 ] || ! [[ "$row" =~ ^[0-9\ ]+$ ]]; then
		say "bench: $name: no numbers (got '$row')"
		FAILED_RUNS+=("$name")
		return 0
	fi
	RES[$name]=$row
	ORDER+=("$name")
}

fail_run() {
	say "bench: $1: $2 (raw output in $OUT)"
	FAILED_RUNS+=("$1")
}

# ---- setup -----------------------------------------------------------------

# ./rant and build/librant.a come from make (make bench builds them first);
# the bench's own two programs are built here.
build() {
	local f
	for f in "$RANT" "$TOP/build/librant.a" "$SIM_LIB"; do
		if [ ! -e "$f" ]; then
			say "bench: $f is missing: run make all sim (or make bench) first"
			exit 1
		fi
	done
	say "bench: building bench/floor, bench/logbench, bench/authbench"
	cc -O2 -Wall -Wextra -o "$FLOOR" "$BENCH/floor.c"
	cc -O2 -D_GNU_SOURCE -I"$TOP/src" -I/usr/include/libnl3 \
		-o "$LOGBENCH" "$BENCH/logbench.c" "$TOP/build/librant.a" \
		-lnl-route-3 -lnl-3 -lm
	cc -O2 -D_GNU_SOURCE -I"$TOP/src" -o "$AUTHBENCH" "$BENCH/authbench.c" \
		"$TOP/build/librant.a" -lcrypto
}

# Say so when other work is running: the figures will be noise.
check_quiet() {
	local load
	load=$(cut -d ' ' -f 1 /proc/loadavg)
	if awk -v l="$load" 'BEGIN { exit !(l >= 0.5) }'; then
		say "bench: warning: load average $load: other work is running on this machine; expect noisy figures"
	fi
}

# Hold /dev/cpu_dma_latency at 0 from one process for the whole bench
# (the kernel keeps the request while the file is open), released at exit.
hold_idle() {
	local v
	if [ ! -w /dev/cpu_dma_latency ]; then
		say "bench: /dev/cpu_dma_latency not writable; idle states left as they are"
		return 0
	fi
	# "0" (not 4 bytes) is parsed as a hex string: a 0 us request.
	(exec 3>/dev/cpu_dma_latency && printf 0 >&3 && exec sleep infinity) &
	defer kill "$!"
	sleep 0.1
	# Reading gives the aggregate request, a native s32.
	v=$(od -An -td4 -N4 /dev/cpu_dma_latency | tr -d ' ')
	say "bench: /dev/cpu_dma_latency held at ${v} us (holder pid $!)"
}

# stop_bg PID: SIGINT, then SIGKILL if it has not ended after 5 s.
# Returns the process's exit status.
stop_bg() {
	local pid=$1 i rc=0
	kill -INT "$pid" 2>/dev/null || true
	for ((i = 0; i < 50; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		say "bench: pid $pid ignored SIGINT; killing it"
		kill -KILL "$pid" 2>/dev/null || true
	fi
	wait "$pid" || rc=$?
	return "$rc"
}

# The stem of a run's files in $OUT: "rant block" -> rant-block
stem() {
	echo "${1// /-}"
}

__port_bound() {
	ip netns exec "$1" ss -Hltun "sport = :$2" 2>/dev/null | grep -q .
}

# wait_port NS PORT: until a UDP or TCP port is bound in NS (10 s at most).
wait_port() {
	local i
	for ((i = 0; i < 500; i++)); do
		__port_bound "$1" "$2" && return 0
		sleep 0.02
	done
	return 1
}

# reflect NAME PORT CMD...: start a server in $NS_B on CPU_REFLECT; its
# output in $OUT/STEM.server, its pid in $SERVER.
reflect() {
	local name=$1 port=$2
	shift 2
	ns_bg "$NS_B" taskset -c "$CPU_REFLECT" "$@" \
		>"$OUT/$(stem "$name").server" 2>&1
	SERVER=$BGPID
	if ! wait_port "$NS_B" "$port"; then
		fail_run "$name" "server did not bind port $port"
		stop_bg "$SERVER" || true
		return 1
	fi
}

# emit NAME CMD...: run a client in $NS_A on CPU_EMIT, output in
# $OUT/STEM.client; with GNU time, its resource use in $OUT/STEM.rusage
# ("voluntary-switches involuntary-switches user-s sys-s wall-s").
# Returns its exit status.
emit() {
	local name=$1 rc=0 stem
	shift
	stem=$(stem "$name")
	local run=(timeout -k 10 "$(client_timeout)"
		ip netns exec "$NS_A" taskset -c "$CPU_EMIT" "$@")
	rm -f "$OUT/$stem.rusage"
	if [ -n "$GNU_TIME" ]; then
		run=("$GNU_TIME" -o "$OUT/$stem.rusage" -f '%w %c %U %S %e' "${run[@]}")
	fi
	"${run[@]}" >"$OUT/$stem.client" 2>&1 || rc=$?
	return "$rc"
}

# sleeps NAME: the client's voluntary context switches per measured round
# trip (about 1 for a client that blocks, about 0 for one that spins), or
# "-" where unknown.
sleeps() {
	local f row
	f=$OUT/$(stem "$1").rusage
	row=${RES[$1]:-}
	if [ ! -s "$f" ] || [ -z "$row" ]; then
		echo -
		return 0
	fi
	# the last line: GNU time puts "Command exited with ..." before it
	awk -v n="${row%% *}" '{ w = $1 } END { if (n > 0) printf "%.2f\n", w / n; else print "-" }' "$f"
}

# ---- runs ------------------------------------------------------------------

# floor_run NAME [-b] [-t] [-T]
floor_run() {
	local name=$1 rc=0 t0 t1 line
	shift
	say "bench: $name"
	reflect "$name" "$PORT_FLOOR" "$FLOOR" -p "$PORT_FLOOR" "$@" || return 0
	t0=$(date +%s%N)
	emit "$name" "$FLOOR" -a "$IP_B" -p "$PORT_FLOOR" -m "$SIZE" \
		-n "$N" -w "$WARMUP" "$@" || rc=$?
	t1=$(date +%s%N)
	stop_bg "$SERVER" || true
	[ "$name" != "floor block" ] || FLOOR_WALL_NS=$((t1 - t0))
	[ "$name" != "floor tcp block" ] || FLOOR_TCP_WALL_NS=$((t1 - t0))
	if [ "$rc" -ne 0 ]; then
		fail_run "$name" "floor client exited $rc"
		return 0
	fi
	line=$(grep '^samples=' "$OUT/$(stem "$name").client" | tail -n 1)
	record "$name" "$(sed -E 's/^samples=([0-9]+) lost=[0-9]+ min=([0-9]+) p50=([0-9]+) p99=([0-9]+) p99\.9=([0-9]+) max=([0-9]+)$/\1 \2 \3 \4 \5 \6/' <<<"$line")"
}

# jq filter: "samples min p50 p99 p99.9 max" of one metric, ns.
jq_row() {
	printf '.metrics.%s | "\\(.samples) \\(.min) \\(.percentiles."50") \\(.percentiles."99") \\(.percentiles."99.9") \\(.max)"' "$1"
}

# rant_run NAME [--block]: emitter with -s; rows NAME (rtt_sw) and
# "NAME (wire)" (rtt), the latter for information. With LOG=1 each side
# streams its log to bench/out (STEM.server.log, STEM.client.log).
rant_run() {
	local name=$1 rc=0 src json stem
	local -a rlog=() elog=()
	stem=$(stem "$name")
	json=$OUT/$stem.json
	shift
	if [ "${LOG:-0}" = 1 ]; then
		rlog=(-l "$OUT/$stem.server.log")
		elog=(-l "$OUT/$stem.client.log")
	fi
	say "bench: $name"
	rm -f "$json"
	reflect "$name" "$PORT_RANT" "${SIM_B[@]}" "$RANT" -i "$VETH_B" "${rlog[@]}" "$@" || return 0
	emit "$name" "${SIM_A[@]}" "$RANT" -i "$VETH_A" -a "$IP_B" -s -c "$N" -d 0 \
		-w "$WARMUP" -m "$SIZE" -j "$json" "${elog[@]}" "$@" || rc=$?
	local src_rc=0
	stop_bg "$SERVER" || src_rc=$?
	if [ "$src_rc" -ne 0 ]; then
		say "bench: $name: reflector exited $src_rc on SIGINT (expected 0)"
	fi
	if [ "$rc" -ne 0 ]; then
		fail_run "$name" "rant emitter exited $rc"
		return 0
	fi
	if ! jq -e . "$json" >/dev/null 2>&1; then
		fail_run "$name" "no valid JSON in $json"
		return 0
	fi
	src=$(jq -r '.timestamp_source' "$json")
	record "$name" "$(jq -r "$(jq_row rtt_sw)" "$json")"
	record "$name (wire, $src)" "$(jq -r "$(jq_row rtt)" "$json")"
}

# rant_sim_run NAME ARGS...: rant_run on the simulated PHC NIC, so that
# the HW path and the PHC sampler thread run as on a NIC with a PHC.
rant_sim_run() {
	local name=$1
	shift
	SIM_A=(env LD_PRELOAD="$SIM_LIB" SIMNIC_IFACES="$VETH_A")
	SIM_B=(env LD_PRELOAD="$SIM_LIB" SIMNIC_IFACES="$VETH_B")
	rant_run "$name" "$@"
	SIM_A=()
	SIM_B=()
}

# usec with three decimals, as sockperf prints, to ns
us_to_ns() {
	awk -v v="$1" 'BEGIN { printf "%.0f", v * 1000 }'
}

sockperf_get() {	# sockperf_get FILE PATTERN: the number after "= "
	sed -n -E "s/.*---> $2 += *([0-9.]+).*/\\1/p" "$1" | head -n 1
}

# sockperf_run [NAME [--tcp]]: sockperf ping-pong, blocking. It runs for
# whole seconds, not a count, and measures all but its first 0.4 s and
# last 0.05 s: it gets the time the blocking floor took (over the same
# transport) plus those, rounded to the nearest second.
sockperf_run() {
	local name=${1:-sockperf} rc=0 f secs n min p50 p99 p999 max wall
	shift || true
	say "bench: $name"
	f=$OUT/$(stem "$name").client
	wall=${FLOOR_WALL_NS:-0}
	[ "${1:-}" != --tcp ] || wall=${FLOOR_TCP_WALL_NS:-0}
	secs=$(((wall + 950000000) / 1000000000))
	[ "$secs" -ge 1 ] || secs=1
	reflect "$name" "$PORT_SOCKPERF" sockperf server -i "$IP_B" \
		-p "$PORT_SOCKPERF" "$@" || return 0
	emit "$name" sockperf ping-pong -i "$IP_B" -p "$PORT_SOCKPERF" \
		-m "$SIZE" -t "$secs" --mps=max --full-rtt "$@" || rc=$?
	stop_bg "$SERVER" || true
	if [ "$rc" -ne 0 ]; then
		fail_run "$name" "sockperf ping-pong exited $rc"
		return 0
	fi
	n=$(sed -n -E 's/.*Total ([0-9]+) observations.*/\1/p' "$f" | head -n 1)
	min=$(sockperf_get "$f" '<MIN> observation')
	p50=$(sockperf_get "$f" 'percentile 50\.000')
	p99=$(sockperf_get "$f" 'percentile 99\.000')
	p999=$(sockperf_get "$f" 'percentile 99\.900')
	max=$(sockperf_get "$f" '<MAX> observation')
	if [ -z "$n" ] || [ -z "$min" ] || [ -z "$p50" ] || [ -z "$p99" ] ||
		[ -z "$p999" ] || [ -z "$max" ]; then
		fail_run "$name" "no percentiles in $f"
		return 0
	fi
	record "$name" "$n $(us_to_ns "$min") $(us_to_ns "$p50") $(us_to_ns "$p99") $(us_to_ns "$p999") $(us_to_ns "$max")"
}

# ---- report ----------------------------------------------------------------

print_table() {
	local name
	printf '\nUser-level round trip, %s-byte UDP payload (TCP rows: %s-byte message), veth, ns (rant: T4_SW - T1_SW)\n' "$SIZE" "$SIZE"
	printf '%-30s %9s %9s %9s %9s %9s %10s %9s\n' run samples min p50 p99 p99.9 max sleeps/rt
	for name in "${ORDER[@]}"; do
		# shellcheck disable=SC2086  # the six numbers of the row
		printf '%-30s %9s %9s %9s %9s %9s %10s %9s\n' "$name" ${RES[$name]} \
			"$(sleeps "$name")"
	done
	printf '(sleeps/rt: the client'"'"'s voluntary context switches per round trip; about 1 when it blocks, 0 when it spins)\n'
}

# A blocking comparison means something only if the client did block.
check_blocking() {
	local name s
	for name in "floor block" "rant block" sockperf "floor tcp block" "rant tcp block" "sockperf tcp"; do
		s=$(sleeps "$name")
		[ "$s" != - ] || continue
		if awk -v s="$s" 'BEGIN { exit !(s < 0.5) }'; then
			printf 'warning: the %s client slept %s times per round trip: it did not block, so its blocking comparisons are not like with like\n' "$name" "$s"
		fi
	done
}

p50_of() {
	local row=${RES[$1]:-}
	[ -n "$row" ] || return 1
	awk '{ print $3 }' <<<"$row"
}

# target TEXT NUM DEN LIMIT: ratio NUM/DEN against <= LIMIT ("-": no
# limit, printed for information).
target() {
	local text=$1 a b limit=$4
	if ! a=$(p50_of "$2") || ! b=$(p50_of "$3"); then
		printf '%-40s %8s %8s  %s\n' "$text" - "$limit" "n/a (run missing)"
		return 0
	fi
	awk -v t="$text" -v a="$a" -v b="$b" -v l="$limit" 'BEGIN {
		r = a / b
		if (l == "-")
			printf "%-40s %8.3f %8s  %s\n", t, r, l, "(info)"
		else
			printf "%-40s %8.3f %8.2f  %s\n", t, r, l, (r <= l ? "PASS" : "FAIL")
	}'
}

# target_pairs TEXT A1 A2 B1 B2 LIMIT: the ratio of the p50 sums
# (A1 + A2) / (B1 + B2) against <= LIMIT.
target_pairs() {
	local text=$1 a1 a2 b1 b2 limit=$6
	if ! a1=$(p50_of "$2") || ! a2=$(p50_of "$3") || ! b1=$(p50_of "$4") ||
		! b2=$(p50_of "$5"); then
		printf '%-40s %8s %8s  %s\n' "$text" - "$limit" "n/a (run missing)"
		return 0
	fi
	awk -v t="$text" -v a="$((a1 + a2))" -v b="$((b1 + b2))" -v l="$limit" 'BEGIN {
		r = a / b
		printf "%-40s %8.3f %8.2f  %s\n", t, r, l, (r <= l ? "PASS" : "FAIL")
	}'
}

print_targets() {
	printf '\n%-40s %8s %8s  %s\n' target ratio limit result
	target "rant spin p50 / floor spin p50" "rant spin" "floor spin" 1.10
	target "rant block p50 / floor block p50" "rant block" "floor block" 1.05
	target "rant block p50 / sockperf p50" "rant block" "sockperf" 1.00
	target_pairs "rant spin -I 1 p50 / rant spin p50" "rant spin -I 1" "rant spin -I 1 again" \
		"rant spin" "rant spin again" 1.02
	target "rant spin +log p50 / rant spin p50" "rant spin +log" "rant spin" 1.02
	target "rant spin p50 / floor spin +ts p50" "rant spin" "floor spin +ts" -
	target "rant block p50 / floor block +ts p50" "rant block" "floor block +ts" -
	target "floor spin +ts p50 / floor spin p50" "floor spin +ts" "floor spin" -
	target "floor block +ts p50 / floor block p50" "floor block +ts" "floor block" -
	target "TCP rant spin p50 / floor spin p50" "rant tcp spin" "floor tcp spin" -
	target "TCP rant block p50 / floor block p50" "rant tcp block" "floor tcp block" -
	target "TCP rant block p50 / sockperf p50" "rant tcp block" "sockperf tcp" -
	target "floor tcp spin p50 / floor spin p50" "floor tcp spin" "floor spin" -
	target "--key: rant spin p50 / without" "rant spin key" "rant spin" -
	target "--key: rant block p50 / without" "rant block key" "rant block" -
	target "--key: rant spin wire p50 / without" "rant spin key (wire, kernel)" \
		"rant spin (wire, kernel)" -
	target "--key: rant block wire p50 / without" "rant block key (wire, kernel)" \
		"rant block (wire, kernel)" -
	target "sim spin +phc p50 / sim spin p50" "sim spin +phc" "sim spin" 1.05
	check_blocking
}

# logbench_one ARGS...: one logbench run (default columns, or -s) to a
# file on the bench's filesystem and to tmpfs; prints its lines, sets RATE
# (records/s to the bench's filesystem) and BYTES (sizeof the record).
logbench_one() {
	local f=$OUT/logbench${1-}.txt disk=$OUT/logbench.tmp
	local shm=/dev/shm/rant-logbench.$$
	defer rm -f "$disk" "$shm"
	if ! "$LOGBENCH" "$@" "$disk" "$shm" >"$f" 2>&1; then
		cat "$f" >&2
		fail_run logbench "logbench $* failed"
		return 1
	fi
	RATE=$(sed -n -E "s|^write to=$disk .*records_per_s=([0-9]+).*|\\1|p" "$f")
	SHM_RATE=$(sed -n -E "s|^write to=$shm .*records_per_s=([0-9]+).*|\\1|p" "$f")
	BYTES=$(sed -n -E 's/^record_bytes=([0-9]+) .*/\1/p' "$f")
	if [ -z "$RATE" ] || [ -z "$SHM_RATE" ] || [ -z "$BYTES" ]; then
		fail_run logbench "no figures in $f"
		return 1
	fi
	sed -n -E 's/^write /  /p' "$f"
}

# dd_rate PATH: MB/s of a plain 1 GiB sequential write (the ceiling).
dd_rate() {
	dd if=/dev/zero of="$1" bs=1M count=1024 2>&1 |
		sed -n -E 's/.* s, ([0-9.]+) ([MG])B\/s$/\1 \2/p' |
		awk '{ print ($2 == "G" ? $1 * 1000 : $1) }'
	rm -f "$1"
}

# logbench_run: the log of 10M records written at the end of a run, in the
# default columns (the target) and with every column (-s), to a file on
# the bench's filesystem and to tmpfs; dd gives each destination's ceiling.
logbench_run() {
	local rate_def shm_def rate_sw shm_sw dd_disk dd_shm
	say "bench: logbench (10,000,000 records, default and -s columns)"
	printf '\nTransaction log, 10,000,000 records, written at the end of a run\n'
	printf 'default columns (SEQ T1 T4 RTT T2 T3 RESPONSE):\n'
	logbench_one || return 0
	rate_def=$RATE shm_def=$SHM_RATE
	printf 'every column (-s):\n'
	logbench_one -s || return 0
	rate_sw=$RATE shm_sw=$SHM_RATE
	dd_disk=$(dd_rate "$OUT/dd.tmp")
	dd_shm=$(dd_rate "/dev/shm/rant-dd.$$")
	printf 'ceiling: dd of 1 GiB writes %s MB/s to bench/out, %s MB/s to /dev/shm\n' "$dd_disk" "$dd_shm"
	awk -v rd="$rate_def" -v sd="$shm_def" -v rs="$rate_sw" -v ss="$shm_sw" -v b="$BYTES" 'BEGIN {
		printf "%-44s %12.0f >= %9d  %s\n", "log write, default columns, bench/out, rec/s", rd, 5000000, (rd >= 5000000 ? "PASS" : "FAIL")
		printf "%-44s %12.0f >= %9d  %s\n", "log write, default columns, tmpfs, rec/s", sd, 5000000, (sd >= 5000000 ? "PASS" : "FAIL")
		printf "%-44s %12.0f    %9s  %s\n", "log write, every column (-s), bench/out", rs, "", "(info)"
		printf "%-44s %12.0f    %9s  %s\n", "log write, every column (-s), tmpfs", ss, "", "(info)"
		printf "%-44s %12d <= %9d  %s\n", "log record in memory, bytes", b, 64, (b <= 64 ? "PASS" : "FAIL")
	}'
}

# authbench_run: ns per MAC over the default --key message (88 bytes), on
# the emitter's CPU.
authbench_run() {
	local f=$OUT/authbench.txt
	say "bench: authbench (HMAC-SHA-256 of one message)"
	if ! taskset -c "$CPU_EMIT" "$AUTHBENCH" >"$f" 2>&1; then
		cat "$f" >&2
		fail_run authbench "authbench failed"
		return 0
	fi
	printf '\n--key: one MAC (HMAC-SHA-256, 16 bytes kept) of an 88-byte message, ns per call (best, median of 15 rounds)\n'
	sed -n -E 's/^mac size=([0-9]+) sign_best_ns=([0-9.]+) sign_median_ns=([0-9.]+) verify_best_ns=([0-9.]+) verify_median_ns=([0-9.]+)$/sign   \2  \3\nverify \4  \5/p' "$f"
	printf '(a keyed round trip makes four: the emitter signs, the reflector verifies and signs, the emitter verifies)\n'
}

main() {
	GNU_TIME=
	if /usr/bin/time --version >/dev/null 2>&1; then
		GNU_TIME=/usr/bin/time
	else
		say "bench: no GNU time (Debian package time): sleeps/rt not measured"
	fi
	require_root
	require_cmd ip taskset timeout jq sockperf cc awk od
	mkdir -p "$OUT"
	build
	check_quiet
	hold_idle
	setup_pair || { say "bench: cannot create the veth pair"; exit 1; }
	say "bench: $N round trips per run, $SIZE bytes, emitter CPU $CPU_EMIT, reflector CPU $CPU_REFLECT, outputs in $OUT"

	floor_run "floor spin"
	floor_run "floor block" -b
	floor_run "floor spin +ts" -t
	floor_run "floor block +ts" -b -t
	rant_run "rant spin"
	# -I against none in the order A B B A: a drift of the machine cancels
	rant_run "rant spin -I 1" -I 1
	rant_run "rant spin -I 1 again" -I 1
	rant_run "rant spin again"
	LOG=1 rant_run "rant spin +log"
	rant_run "rant block" --block
	rant_sim_run "sim spin" --phc-interval 0
	rant_sim_run "sim spin +phc" --phc-interval 0.01
	sockperf_run
	floor_run "floor tcp spin" -T
	floor_run "floor tcp block" -T -b
	rant_run "rant tcp spin" --tcp --nodelay
	rant_run "rant tcp block" --tcp --nodelay --block
	sockperf_run "sockperf tcp" --tcp
	(umask 077; head -c 32 /dev/urandom >"$OUT/key")
	rant_run "rant spin key" --key "$OUT/key"
	rant_run "rant block key" --block --key "$OUT/key"

	# a group, not a pipe: logbench_run must run in this shell
	{
		print_table
		print_targets
		logbench_run
		authbench_run
	} >"$OUT/report.txt"
	cat "$OUT/report.txt"
	if [ "${#FAILED_RUNS[@]}" -gt 0 ]; then
		say "bench: no numbers from: ${FAILED_RUNS[*]}"
		exit 1
	fi
}

main "$@"
