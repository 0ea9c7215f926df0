#!/usr/bin/env bash
# rant's performance comparison (make bench; root). See bench/README.md.
#
# On one veth pair between two namespaces, with the same CPU pinning
# (reflector/server on CPU 1, emitter/client on CPU 0) and the same idle
# setting (/dev/cpu_dma_latency held at 0 for the whole bench), runs the
# same number of round trips of a 72-byte payload in every row below, in
# BENCH_ROUNDS interleaved rounds: each round runs every row once, in a
# random order, so that a row and the row it is compared with ran minutes
# apart at most. A ratio is taken in each round (p50 over p50) and the
# bench prints the median of the per-round ratios with their lowest and
# highest: the spread is the machine's noise.
#
#   floor spin / block      bench/floor, spinning on recv(MSG_DONTWAIT) or
#                           blocking in recv(), no timestamping
#   floor ... +ts           the same with SO_TIMESTAMPING set to the flags
#                           rant sets (read from rant itself, rant_flags)
#                           without the SCHED stamp (TX_SCHED)
#   floor ... +ts+sched     the same with it: rant's own cost is rant over
#                           the floor that asks for exactly rant's flags
#   floor ... +ts+sched ipv4  the same with the server on an IPv4 socket
#                           (every other floor server binds a dual-stack
#                           IPv6 socket, as rant's reflector does): the
#                           dual stack's price
#   floor ... +ts+sched wire  both sides speaking rant's wire format
#                           (floor -R): the floor the cross pairs face
#   rant emit floor refl spin / block, floor emit rant refl spin / block
#                           the cross pairs: rant's emitter against the
#                           floor's server speaking rant's format (-R),
#                           the floor's client against rant's reflector;
#                           over "floor ... +ts+sched wire", each side's
#                           share of rant's own cost
#   rant spin / block       rant -s, both sides spinning (or --block)
#                           (every floor binds its socket to the veth, as
#                           rant -i does, and with stamps sets SO_RXQ_OVFL)
#   rant spin -I 1          interval reports every second on both sides
#   rant spin +log          the log streamed on both sides (-l)
#   rant spin/block key     --key on both sides (the MAC's cost)
#   rant spin +scrape       the emitter with --metrics-listen, scraped
#                           every 100 ms (bench/scrape.py, kept alive)
#   rant spin stamp         --stamp on both sides: STAMP's packets (RFC 8762,
#                           open mode, stateless) instead of rant's own
#   sim spin (+phc)         rant spin on the simulated PHC NIC (tests/sim),
#                           the PHC read at start and end only, or 100
#                           times a second (the sampler thread's cost)
#   sockperf                sockperf ping-pong --full-rtt, blocking
# and the floors, rant and sockperf over TCP (TCP_NODELAY everywhere).
# Then the log-writing figure of logbench and the cost of one MAC
# (authbench).
#
# Environment:
#   BENCH_N       round trips per run (default 100000)
#   BENCH_ROUNDS  rounds (default 5)
#   BENCH_QUICK=1 a smoke run: 5000 round trips, 3 rounds, no logbench,
#                 no authbench (BENCH_N and BENCH_ROUNDS still apply)
#   RANT_B=PATH   A/B: every rant row runs with PATH too ("B: rant spin"),
#                 in the same rounds; prints rant_B / rant_A per row
#   BENCH_ROWS=RE only the rows whose name matches the extended regular
#                 expression RE (grep -E), e.g. 'rant|floor spin'
# Raw outputs go to bench/out/ (round N in bench/out/rN/; every run's
# figures in bench/out/rounds.tsv). Exits 0 when every run produced
# numbers, whether or not the targets were met (a report, not a test); 1
# otherwise.
set -euo pipefail

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../tests/net/lib.sh
source "$BENCH/../tests/net/lib.sh"	# sets TOP, RANT, defer, setup_pair

QUICK=${BENCH_QUICK:-0}
if [ "$QUICK" = 1 ]; then
	N=${BENCH_N:-5000}
	ROUNDS=${BENCH_ROUNDS:-3}
else
	N=${BENCH_N:-100000}
	ROUNDS=${BENCH_ROUNDS:-5}
fi
RANT_A=$RANT
RANT_B=${RANT_B:-}
ROW_FILTER=${BENCH_ROWS:-}
SIZE=72
WARMUP=1000
CPU_REFLECT=1
CPU_EMIT=0
PORT_FLOOR=12346
PORT_RANT=12345
PORT_SOCKPERF=11111
PORT_METRICS=19465
OUT=$BENCH/out
RESULTS=$OUT/rounds.tsv
FLOOR=$BENCH/floor
LOGBENCH=$BENCH/logbench
AUTHBENCH=$BENCH/authbench
SOCKOPT_LIB=$OUT/libsockopt.so
STATS=$BENCH/stats.awk
SIM_LIB=$TOP/tests/sim/libsimnic.so
TX_SCHED=$((1 << 8))	# SOF_TIMESTAMPING_TX_SCHED

# The rows: ROWS in the order they are printed, each with its kind
# (floor, rant, sockperf), its group (the rows compared with each other),
# its arguments (both sides' for rant and sockperf; a floor's common ones)
# and, for a floor, the SO_TIMESTAMPING flags of its client and server
# (empty: none).
ROWS=()
ALL_GROUPS=()
declare -A ROW_KIND=() ROW_ARGS=() ROW_TS_E=() ROW_TS_R=() ROW_BIN=() ROW_ENV=()
declare -A ROW_GROUP=()
declare -A FLAGS_SEEN=()	# row -> "client server" flags it asked for
FAILED_RUNS=()
US=$'\x1f'	# separates a row's arguments in ROW_ARGS

say() { printf '%s\n' "$*" >&2; }

# A run's client gets this long before it is called hung (SIGTERM, then
# SIGKILL 10 s later if it ignores that).
client_timeout() {
	echo $((60 + N / 1000))
}

fail_run() {
	say "bench: $1: $2 (raw output in $RDIR)"
	FAILED_RUNS+=("$1 (round $ROUND)")
}

# record NAME "samples min p50 p99 p99.9 max": one run's figures, with
# its client's sleeps per round trip, as a line of $RESULTS.
record() {
	local name=$1 row=$2
	# shellcheck disable=SC2086  # split the row into its six numbers
	set -- $row
	if [ "$#" -ne 6 ] || ! [[ "$row" =~ ^[0-9\ ]+$ ]]; then
		fail_run "$name" "no numbers (got '$row')"
		return 0
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$ROUND" "$name" "$@" \
		"$(sleeps "$name" "$1")" >>"$RESULTS"
}

# ---- setup -----------------------------------------------------------------

# ./rant and build/librant.a come from make (make bench builds them first);
# the bench's own programs are built here.
build() {
	local f
	for f in "$RANT_A" "$TOP/build/librant.a" "$SIM_LIB" ${RANT_B:+"$RANT_B"}; do
		if [ ! -e "$f" ]; then
			say "bench: $f is missing: run make all sim (or make bench) first"
			exit 1
		fi
	done
	say "bench: building bench/floor, bench/logbench, bench/authbench, $SOCKOPT_LIB"
	cc -O2 -Wall -Wextra -o "$FLOOR" "$BENCH/floor.c"
	cc -O2 -Wall -Wextra -shared -fPIC -o "$SOCKOPT_LIB" "$BENCH/sockopt.c" -ldl
	[ "$QUICK" = 1 ] && return 0
	# rant's headers: one folder a layer (doc/layout.md)
	local inc=() d
	for d in "$TOP"/src/*/; do inc+=("-I$d"); done
	cc -O2 -D_GNU_SOURCE "${inc[@]}" -I/usr/include/libnl3 \
		-o "$LOGBENCH" "$BENCH/logbench.c" "$TOP/build/librant.a" \
		-lnl-route-3 -lnl-3 -lm
	cc -O2 -D_GNU_SOURCE "${inc[@]}" -o "$AUTHBENCH" "$BENCH/authbench.c" \
		"$TOP/build/librant.a" -lcrypto
}

# Say so when other work is running: the figures will be noise.
check_quiet() {
	local load
	load=$(cut -d ' ' -f 1 /proc/loadavg)
	if awk -v l="$load" 'BEGIN { exit !(l >= 0.5) }'; then
		say "bench: warning: load average $load: other work is running on this machine; expect noisy figures (the spread columns show how noisy)"
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

# The stem of a run's files in $RDIR: "rant block" -> rant-block
stem() {
	local s=${1// /-}
	s=${s//:/}
	echo "${s//\//-}"
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
# output in $RDIR/STEM.server, its pid in $SERVER.
reflect() {
	local name=$1 port=$2
	shift 2
	ns_bg "$NS_B" taskset -c "$CPU_REFLECT" "$@" \
		>"$RDIR/$(stem "$name").server" 2>&1
	SERVER=$BGPID
	if ! wait_port "$NS_B" "$port"; then
		fail_run "$name" "server did not bind port $port"
		stop_bg "$SERVER" || true
		return 1
	fi
}

# emit NAME CMD...: run a client in $NS_A on CPU_EMIT, output in
# $RDIR/STEM.client; with GNU time, its voluntary context switches in
# $RDIR/STEM.rusage. Returns its exit status. timeout --foreground: the
# client stays in the bench's process group, so a Ctrl-C (or a signal to
# the group) stops it with the bench.
emit() {
	local name=$1 rc=0 stem
	shift
	stem=$(stem "$name")
	local run=(timeout --foreground -k 10 "$(client_timeout)"
		ip netns exec "$NS_A" taskset -c "$CPU_EMIT" "$@")
	rm -f "$RDIR/$stem.rusage"
	if [ -n "$GNU_TIME" ]; then
		run=("$GNU_TIME" -o "$RDIR/$stem.rusage" -f '%w' "${run[@]}")
	fi
	"${run[@]}" >"$RDIR/$stem.client" 2>&1 || rc=$?
	return "$rc"
}

# sleeps NAME SAMPLES: the client's voluntary context switches per measured
# round trip (about 1 for a client that blocks, about 0 for one that
# spins), or "-" where unknown. A rant row's "(wire ...)" twin shares its
# client.
sleeps() {
	local f
	f=$RDIR/$(stem "${1% (wire*}").rusage
	if [ ! -s "$f" ]; then
		echo -
		return 0
	fi
	# the last line: GNU time puts "Command exited with ..." before it
	awk -v n="$2" '{ w = $1 } END { if (n > 0) printf "%.4f\n", w / n; else print "-" }' "$f"
}

# ---- what rant asks of the kernel -------------------------------------------

# rant_flags NAME BIN ARGS...: one short run of rant BIN (both sides, ARGS
# on both) with bench/sockopt.c preloaded; sets FLAGS_E and FLAGS_R to the
# SO_TIMESTAMPING flags the emitter and the reflector set last (hex).
rant_flags() {
	local name=$1 bin=$2 log_e log_r rc=0
	shift 2
	log_e=$RDIR/$(stem "$name").flags-emit
	log_r=$RDIR/$(stem "$name").flags-reflect
	rm -f "$log_e" "$log_r"
	reflect "$name" "$PORT_RANT" env LD_PRELOAD="$SOCKOPT_LIB" \
		BENCH_SOCKOPT_LOG="$log_r" "$bin" -i "$VETH_B" "$@" || return 1
	emit "$name" env LD_PRELOAD="$SOCKOPT_LIB" BENCH_SOCKOPT_LOG="$log_e" \
		"$bin" -i "$VETH_A" -a "$IP_B" -c 100 -d 0 -w 10 -m "$SIZE" "$@" || rc=$?
	stop_bg "$SERVER" || true
	FLAGS_E=$(sed -n -E 's/.* so_timestamping=(0x[0-9a-f]+) rc=0$/\1/p' "$log_e" 2>/dev/null |
		tail -n 1)
	FLAGS_R=$(sed -n -E 's/.* so_timestamping=(0x[0-9a-f]+) rc=0$/\1/p' "$log_r" 2>/dev/null |
		tail -n 1)
	if [ "$rc" -ne 0 ] || [ -z "$FLAGS_E" ] || [ -z "$FLAGS_R" ]; then
		say "bench: $name: cannot tell which stamps $bin asks for (emitter exited $rc; see $RDIR)"
		return 1
	fi
}

# flag_names HEX: the SOF_TIMESTAMPING_* bits of HEX, short names.
flag_names() {
	local v=$(($1)) i out=
	local names=(tx-hw tx-sw rx-hw rx-sw sw sys-hw raw-hw id sched ack cmsg tsonly)
	for ((i = 0; i < ${#names[@]}; i++)); do
		if ((v & (1 << i))); then
			out+=${out:+,}${names[i]}
			v=$((v & ~(1 << i)))
		fi
	done
	((v == 0)) || out+=${out:+,}$(printf '0x%x' "$v")
	echo "${out:--}"
}

hex() { printf '0x%x' "$(($1))"; }

# ---- the rows --------------------------------------------------------------

# row NAME KIND [ARGS...]: a row of the bench, in group $GROUP (a word).
row() {
	local name=$1 kind=$2 a
	shift 2
	ROWS+=("$name")
	ROW_KIND[$name]=$kind
	ROW_GROUP[$name]=$GROUP
	[[ " ${ALL_GROUPS[*]} " == *" $GROUP "* ]] || ALL_GROUPS+=("$GROUP")
	a=$(printf "%s$US" "$@")
	ROW_ARGS[$name]=${a%"$US"}
	ROW_BIN[$name]=$RANT_A
	ROW_ENV[$name]=
}

# floor_row NAME EMIT_FLAGS REFLECT_FLAGS [ARGS...]: a floor row; flags
# empty for none.
floor_row() {
	local name=$1
	row "$name" floor "${@:4}"
	ROW_TS_E[$name]=$2
	ROW_TS_R[$name]=$3
}

# cross_row NAME SIDE FLAGS [-b]: rant's SIDE (emit or reflect) against
# the floor's other side speaking rant's wire format (floor -R), the
# floor with SO_TIMESTAMPING FLAGS.
cross_row() {
	local name=$1 side=$2 flags=$3
	row "$name" cross "$side" "${@:4}"
	ROW_TS_E[$name]=$flags
}

# rant_takes BIN OPTION: whether that build of rant has OPTION: in
# `emit --help` (a build with subcommands, whose plain --help lists only
# them) or in --help (a build before them, as RANT_B may be).
rant_takes() {
	# not a pipe into grep -q: under pipefail, rant's SIGPIPE when grep
	# quits at the first match would say "no"
	grep -q -- "$2" <<<"$("$1" emit --help 2>&1; "$1" --help 2>&1)"
}

# rant_row NAME [ARGS...]: a rant row, and its "B: NAME" twin with $RANT_B
# (none when RANT_B lacks the row's first option).
# ROW_ENV: "sim" runs it on the simulated PHC NIC, "log" streams the log,
# "scrape" serves /metrics from the emitter, scraped at 10 Hz meanwhile.
rant_row() {
	local name=$1 env=${ENV_OF_ROW:-}
	shift
	row "$name" rant "$@"
	ROW_ENV[$name]=$env
	[ -n "$RANT_B" ] || return 0
	if [ "$#" -gt 0 ] && [[ "$1" == --* ]] && ! rant_takes "$RANT_B" "$1"; then
		say "bench: $RANT_B has no $1: no \"B: $name\""
		return 0
	fi
	row "B: $name" rant "$@"
	ROW_BIN["B: $name"]=$RANT_B
	ROW_ENV["B: $name"]=$env
}

# define_rows: every row, with the floors given rant's flags with and
# without the SCHED stamp, in groups of the rows compared with each other.
# Sets OWN_UDP and OWN_TCP to the floor rows that ask for exactly rant's
# flags.
define_rows() {
	local ue=$1 ur=$2 te=$3 tr=$4 mode b
	local ue0 ur0 te0 tr0 ue1 ur1 te1 tr1
	ue0=$(hex "$ue & ~TX_SCHED") ur0=$(hex "$ur & ~TX_SCHED")
	te0=$(hex "$te & ~TX_SCHED") tr0=$(hex "$tr & ~TX_SCHED")
	ue1=$(hex "$ue | TX_SCHED") ur1=$(hex "$ur | TX_SCHED")
	te1=$(hex "$te | TX_SCHED") tr1=$(hex "$tr | TX_SCHED")
	OWN_UDP=+ts OWN_TCP=+ts
	(((ue & TX_SCHED) == 0)) || OWN_UDP=+ts+sched
	(((te & TX_SCHED) == 0)) || OWN_TCP=+ts+sched
	for mode in spin block; do
		b=()
		[ "$mode" = spin ] || b=(-b)
		GROUP=udp-$mode
		floor_row "floor $mode" "" "" "${b[@]}"
		floor_row "floor $mode +ts" "$ue0" "$ur0" "${b[@]}"
		floor_row "floor $mode +ts+sched" "$ue1" "$ur1" "${b[@]}"
		floor_row "floor $mode +ts+sched ipv4" "$ue1" "$ur1" -4 "${b[@]}"
		floor_row "floor $mode +ts+sched wire" "$ue1" "$ur1" -R "${b[@]}"
		cross_row "rant emit floor refl $mode" emit "$ur1" "${b[@]}"
		cross_row "floor emit rant refl $mode" reflect "$ue1" "${b[@]}"
		GROUP=tcp-$mode
		floor_row "floor tcp $mode" "" "" -T "${b[@]}"
		floor_row "floor tcp $mode +ts" "$te0" "$tr0" -T "${b[@]}"
		floor_row "floor tcp $mode +ts+sched" "$te1" "$tr1" -T "${b[@]}"
	done
	GROUP=udp-spin
	rant_row "rant spin"
	# the SCHED stamp's price in rant itself: the same without it
	! rant_takes "$RANT_A" --no-queue-stamps ||
		rant_row "rant spin nosched" --no-queue-stamps
	rant_row "rant spin -I 1" -I 1
	ENV_OF_ROW=log rant_row "rant spin +log"
	rant_row "rant spin key" --key "$OUT/key"
	ENV_OF_ROW=scrape rant_row "rant spin +scrape"
	rant_row "rant spin stamp" --stamp --port "$PORT_RANT"
	GROUP=udp-block
	rant_row "rant block" --block
	rant_row "rant block key" --block --key "$OUT/key"
	row sockperf sockperf
	GROUP=tcp-spin
	rant_row "rant tcp spin" --tcp --nodelay
	# the price of --tcp's capture of its own packets: kept for the whole
	# run (on), not made (off); the rows without --diagnosis are its auto
	if rant_takes "$RANT_A" --diagnosis; then
		rant_row "rant tcp spin diag" --diagnosis on --tcp --nodelay
		rant_row "rant tcp spin nodiag" --diagnosis off --tcp --nodelay
	fi
	GROUP=tcp-block
	rant_row "rant tcp block" --tcp --nodelay --block
	if rant_takes "$RANT_A" --diagnosis; then
		rant_row "rant tcp block diag" --diagnosis on --tcp --nodelay --block
		rant_row "rant tcp block nodiag" --diagnosis off --tcp --nodelay --block
	fi
	row "sockperf tcp" sockperf --tcp
	GROUP=sim
	ENV_OF_ROW=sim rant_row "sim spin" --phc-interval 0
	ENV_OF_ROW=sim rant_row "sim spin +phc" --phc-interval 0.01
	filter_rows
}

# BENCH_ROWS: keep only the rows it matches.
filter_rows() {
	local name kept=()
	[ -n "$ROW_FILTER" ] || return 0
	for name in "${ROWS[@]}"; do
		! grep -qE -- "$ROW_FILTER" <<<"$name" || kept+=("$name")
	done
	if [ "${#kept[@]}" -eq 0 ]; then
		say "bench: BENCH_ROWS='$ROW_FILTER' matches no row"
		exit 1
	fi
	ROWS=("${kept[@]}")
}

# shuffled GROUP: the rows of GROUP in a random order, one a line.
shuffled() {
	local name
	for name in "${ROWS[@]}"; do
		[ "${ROW_GROUP[$name]}" != "$1" ] || printf '%s\n' "$name"
	done | shuf
}

# ---- runs ------------------------------------------------------------------

# row_args NAME: the row's arguments into ARGS.
row_args() {
	ARGS=()
	[ -z "${ROW_ARGS[$1]}" ] || IFS=$US read -r -a ARGS <<<"${ROW_ARGS[$1]}"
}

# floor_run NAME: one run of a floor row.
floor_run() {
	local name=$1 rc=0 t0 t1 line stem te=${ROW_TS_E[$1]} tr=${ROW_TS_R[$1]}
	local -a ts_e=() ts_r=()
	stem=$(stem "$name")
	row_args "$name"
	[ -z "$te" ] || ts_e=(-t "$te")
	[ -z "$tr" ] || ts_r=(-t "$tr")
	reflect "$name" "$PORT_FLOOR" "$FLOOR" -i "$VETH_B" -p "$PORT_FLOOR" "${ts_r[@]}" \
		"${ARGS[@]}" || return 0
	t0=$(date +%s%N)
	emit "$name" "$FLOOR" -i "$VETH_A" -a "$IP_B" -p "$PORT_FLOOR" -m "$SIZE" \
		-n "$N" -w "$WARMUP" "${ts_e[@]}" "${ARGS[@]}" || rc=$?
	t1=$(date +%s%N)
	stop_bg "$SERVER" || true
	[ "$name" != "floor block" ] || FLOOR_WALL_NS=$((t1 - t0))
	[ "$name" != "floor tcp block" ] || FLOOR_TCP_WALL_NS=$((t1 - t0))
	if [ "$rc" -ne 0 ]; then
		fail_run "$name" "floor client exited $rc"
		return 0
	fi
	floor_flags_seen "$name"
	floor_record "$name"
}

# floor_record NAME: the figures the floor client printed.
floor_record() {
	local line
	line=$(grep '^samples=' "$RDIR/$(stem "$1").client" | tail -n 1)
	record "$1" "$(sed -E 's/^samples=([0-9]+) lost=[0-9]+ min=([0-9]+) p50=([0-9]+) p99=([0-9]+) p99\.9=([0-9]+) max=([0-9]+)$/\1 \2 \3 \4 \5 \6/' <<<"$line")"
}

# cross_run NAME: one run of a cross pair: rant's emitter (-s) against
# floor -R's server, or floor -R's client against rant's reflector.
cross_run() {
	local name=$1 rc=0 src_rc=0 json stem flags=${ROW_TS_E[$1]} side
	local -a b=() rb=()
	stem=$(stem "$name")
	json=$RDIR/$stem.json
	row_args "$name"
	side=${ARGS[0]}
	b=("${ARGS[@]:1}")
	[ "${#b[@]}" -eq 0 ] || rb=(--block)
	rm -f "$json"
	if [ "$side" = emit ]; then
		reflect "$name" "$PORT_FLOOR" "$FLOOR" -R -i "$VETH_B" -p "$PORT_FLOOR" \
			-t "$flags" "${b[@]}" || return 0
		emit "$name" "$RANT_A" -i "$VETH_A" -a "$IP_B" --port "$PORT_FLOOR" -s \
			-c "$N" -d 0 -w "$WARMUP" -m "$SIZE" -j "$json" "${rb[@]}" || rc=$?
	else
		reflect "$name" "$PORT_RANT" "$RANT_A" -i "$VETH_B" "${rb[@]}" || return 0
		emit "$name" "$FLOOR" -R -i "$VETH_A" -a "$IP_B" -p "$PORT_RANT" -m "$SIZE" \
			-n "$N" -w "$WARMUP" -t "$flags" "${b[@]}" || rc=$?
	fi
	stop_bg "$SERVER" || src_rc=$?
	[ "$src_rc" -eq 0 ] || say "bench: $name: server exited $src_rc on SIGINT (expected 0)"
	if [ "$rc" -ne 0 ]; then
		fail_run "$name" "client exited $rc"
	elif [ "$side" = reflect ]; then
		floor_record "$name"
	elif ! jq -e . "$json" >/dev/null 2>&1; then
		fail_run "$name" "no valid JSON in $json"
	else
		record "$name" "$(jq -r "$(jq_row rtt_sw)" "$json")"
	fi
}

# floor_flags_seen NAME: the flags each floor side said it set (the
# server of a TCP floor sets them per connection: the last one).
floor_flags_seen() {
	local stem e r
	stem=$(stem "$1")
	e=$(sed -n -E 's/^so_timestamping=(0x[0-9a-f]+)$/\1/p' "$RDIR/$stem.client" | tail -n 1)
	r=$(sed -n -E 's/^so_timestamping=(0x[0-9a-f]+)$/\1/p' "$RDIR/$stem.server" | tail -n 1)
	FLAGS_SEEN[$1]="${e:-0x0} ${r:-0x0}"
}

# jq filter: "samples min p50 p99 p99.9 max" of one metric, ns.
jq_row() {
	printf '.metrics.%s | "\\(.samples) \\(.min) \\(.percentiles."50") \\(.percentiles."99") \\(.percentiles."99.9") \\(.max)"' "$1"
}

# rant_run NAME: emitter with -s; rows NAME (rtt_sw) and "NAME (wire, SRC)"
# (rtt), the latter for information.
rant_run() {
	local name=$1 rc=0 src json stem bin=${ROW_BIN[$1]} env=${ROW_ENV[$1]}
	local -a rlog=() elog=() sim_a=() sim_b=() scrape=()
	stem=$(stem "$name")
	json=$RDIR/$stem.json
	row_args "$name"
	if [ "$env" = log ]; then
		rlog=(-l "$RDIR/$stem.server.log")
		elog=(-l "$RDIR/$stem.client.log")
	elif [ "$env" = sim ]; then
		sim_a=(env LD_PRELOAD="$SIM_LIB" SIMNIC_IFACES="$VETH_A")
		sim_b=(env LD_PRELOAD="$SIM_LIB" SIMNIC_IFACES="$VETH_B")
	elif [ "$env" = scrape ]; then
		scrape=(--metrics-listen "127.0.0.1:$PORT_METRICS")
	fi
	rm -f "$json"
	reflect "$name" "$PORT_RANT" "${sim_b[@]}" "$bin" -i "$VETH_B" "${rlog[@]}" \
		"${ARGS[@]}" || return 0
	[ "$env" != scrape ] || scrape_start "$RDIR/$stem.scrapes"
	emit "$name" "${sim_a[@]}" "$bin" -i "$VETH_A" -a "$IP_B" -s -c "$N" -d 0 \
		-w "$WARMUP" -m "$SIZE" -j "$json" "${elog[@]}" "${scrape[@]}" "${ARGS[@]}" || rc=$?
	[ "$env" != scrape ] || scrape_stop "$name" "$RDIR/$stem.scrapes" || rc=1
	local src_rc=0
	stop_bg "$SERVER" || src_rc=$?
	rm -f "$RDIR/$stem.server.log" "$RDIR/$stem.client.log"
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

# scrape_start FILE: bench/scrape.py at 10 Hz against the emitter's
# /metrics in $NS_A (it waits for the port), a line a scrape in FILE.
scrape_start() {
	: >"$1"
	ns_bg "$NS_A" "$PYTHON" "$BENCH/scrape.py" 127.0.0.1 "$PORT_METRICS" 0.1 "$1"
	SCRAPER=$BGPID
}

# scrape_stop NAME FILE: stop the scraper; fails unless every scrape
# until the last answered got a 200, and there were a few (a scrape that
# did not happen measured nothing). Those after the last 200 met rant's
# end.
scrape_stop() {
	local ok all
	kill "$SCRAPER" 2>/dev/null || true
	wait "$SCRAPER" 2>/dev/null || true
	ok=$(grep -c '^200 ' "$2" || true)
	all=$(awk '/^200 / { n = NR } END { print n + 0 }' "$2")
	if [ "$ok" -lt 3 ] || [ "$ok" -ne "$all" ]; then
		fail_run "$1" "the scraper got $ok answers 200 of $all scrapes ($2)"
		return 1
	fi
}

# usec with three decimals, as sockperf prints, to ns
us_to_ns() {
	awk -v v="$1" 'BEGIN { printf "%.0f", v * 1000 }'
}

sockperf_get() {	# sockperf_get FILE PATTERN: the number after "= "
	sed -n -E "s/.*---> $2 += *([0-9.]+).*/\\1/p" "$1" | head -n 1
}

# sockperf_run NAME: sockperf ping-pong, blocking. It runs for whole
# seconds, not a count, and measures all but its first 0.4 s and last
# 0.05 s: it gets the time the last blocking floor took (over the same
# transport; before there is one, 20 us a round trip) plus those, rounded
# to the nearest second.
sockperf_run() {
	local name=$1 rc=0 f secs n min p50 p99 p999 max wall
	row_args "$name"
	f=$RDIR/$(stem "$name").client
	wall=${FLOOR_WALL_NS:-$((N * 20000))}
	[ "${ARGS[0]:-}" != --tcp ] || wall=${FLOOR_TCP_WALL_NS:-$((N * 20000))}
	secs=$(((wall + 950000000) / 1000000000))
	[ "$secs" -ge 1 ] || secs=1
	reflect "$name" "$PORT_SOCKPERF" sockperf server -i "$IP_B" \
		-p "$PORT_SOCKPERF" "${ARGS[@]}" || return 0
	emit "$name" sockperf ping-pong -i "$IP_B" -p "$PORT_SOCKPERF" \
		-m "$SIZE" -t "$secs" --mps=max --full-rtt "${ARGS[@]}" || rc=$?
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

run_row() {
	case ${ROW_KIND[$1]} in
	floor) floor_run "$1" ;;
	cross) cross_run "$1" ;;
	rant) rant_run "$1" ;;
	sockperf) sockperf_run "$1" ;;
	esac
}

# rounds: BENCH_ROUNDS rounds of every row, each round in a fresh random
# order (written to $OUT/order.txt): the groups in a random order, and the
# rows of each group in a random order one after the other, so that rows
# compared with each other run close in time.
rounds() {
	local name group t0 t_round order=() groups=()
	: >"$RESULTS"
	: >"$OUT/order.txt"
	for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
		RDIR=$OUT/r$ROUND
		rm -rf "$RDIR"
		mkdir -p "$RDIR"
		order=()
		mapfile -t groups < <(printf '%s\n' "${ALL_GROUPS[@]}" | shuf)
		for group in "${groups[@]}"; do
			mapfile -t -O "${#order[@]}" order < <(shuffled "$group")
		done
		printf 'round %d: %s\n' "$ROUND" "$(printf '%s; ' "${order[@]}")" >>"$OUT/order.txt"
		t0=$SECONDS
		for name in "${order[@]}"; do
			say "bench: round $ROUND/$ROUNDS: $name"
			run_row "$name"
		done
		t_round=$((SECONDS - t0))
		say "bench: round $ROUND took ${t_round} s; about $((t_round * (ROUNDS - ROUND))) s of rounds to go"
	done
}

# ---- report ----------------------------------------------------------------

print_table() {
	printf '\nUser-level round trip, %s-byte UDP payload (TCP rows: %s-byte message), veth, ns (rant: T4_SW - T1_SW)\n' "$SIZE" "$SIZE"
	printf '%d round trips a run, %d rounds; each column the median over the rounds, then the lowest and highest p50 of a round\n' "$N" "$ROUNDS"
	printf '%-32s %6s %9s %8s %8s %8s %8s %9s %8s %8s %9s\n' run rounds samples min p50 \
		p99 p99.9 max p50-lo p50-hi sleeps/rt
	awk -v mode=rows -f "$STATS" "$RESULTS" <(printf '%s\n' "${ROWS[@]}")
	printf '(sleeps/rt: the client'"'"'s voluntary context switches per round trip; about 1 when it blocks, 0 when it spins)\n'
}

# print_flags: what each row asked of the kernel (SO_TIMESTAMPING), client
# and server: rant's as rant_flags read them, the floor's as it said.
print_flags() {
	local name e r
	printf '\nSO_TIMESTAMPING asked for (client / server; rant'"'"'s read from rant itself at the start)\n'
	for name in "${ROWS[@]}"; do
		case ${ROW_KIND[$name]} in
		floor) read -r e r <<<"${FLAGS_SEEN[$name]:-0x0 0x0}" ;;
		rant)
			if [ "${ROW_ENV[$name]}" = sim ]; then
				printf '%-32s %s\n' "$name" "(the simulated NIC's hardware stamps)"
				continue
			fi
			e=${RANT_FLAGS["${ROW_BIN[$name]} ${ROW_ARGS[$name]%%"$US"*}"]:-}
			[ -n "$e" ] || e=${RANT_FLAGS["${ROW_BIN[$name]} udp"]}
			read -r e r <<<"$e"
			;;
		*) continue ;;
		esac
		printf '%-32s %-6s %-34s / %-6s %s\n' "$name" "$e" "$(flag_names "$e")" \
			"$r" "$(flag_names "$r")"
	done
}

has_row() {
	local name
	for name in "${ROWS[@]}"; do
		[ "$name" != "$1" ] || return 0
	done
	return 1
}

# ratio_spec: the ratios, as stats.awk reads them (TEXT NUM DEN LIMIT,
# tab-separated; "#" a heading). Limits from bench/README.md.
ratio_spec() {
	local name mode
	# spec TEXT NUM DEN LIMIT; with BENCH_ROWS, only where both rows ran
	spec() {
		if [ -n "$ROW_FILTER" ] && { ! has_row "${2% (wire*}" || ! has_row "${3% (wire*}"; }; then
			return 0
		fi
		printf '%s\t%s\t%s\t%s\n' "$@"
	}
	echo "# rant's own cost: rant over the floor asking for exactly rant's stamps"
	spec "rant spin / floor spin $OWN_UDP" "rant spin" "floor spin $OWN_UDP" 1.01
	spec "rant block / floor block $OWN_UDP" "rant block" "floor block $OWN_UDP" 1.02
	spec "TCP rant spin / floor tcp spin $OWN_TCP" "rant tcp spin" "floor tcp spin $OWN_TCP" -
	spec "TCP rant block / floor tcp block $OWN_TCP" "rant tcp block" \
		"floor tcp block $OWN_TCP" -
	echo "# where rant's own cost is: each side of rant against the floor speaking rant's format"
	for mode in spin block; do
		spec "emitter: rant emit floor refl $mode / floor $mode +ts+sched wire" \
			"rant emit floor refl $mode" "floor $mode +ts+sched wire" -
		spec "reflector: floor emit rant refl $mode / floor $mode +ts+sched wire" \
			"floor emit rant refl $mode" "floor $mode +ts+sched wire" -
		spec "both: rant $mode / floor $mode +ts+sched wire" "rant $mode" \
			"floor $mode +ts+sched wire" -
		spec "the format: floor $mode +ts+sched wire / +ts+sched" \
			"floor $mode +ts+sched wire" "floor $mode +ts+sched" -
		spec "dual stack: floor $mode +ts+sched / +ts+sched ipv4" \
			"floor $mode +ts+sched" "floor $mode +ts+sched ipv4" -
	done
	echo "# the kernel's stamps: floor with them over floor without"
	spec "SCHED stamp: floor spin +ts+sched / +ts" "floor spin +ts+sched" "floor spin +ts" -
	spec "SCHED stamp: floor block +ts+sched / +ts" "floor block +ts+sched" "floor block +ts" -
	spec "SCHED stamp: floor tcp spin +ts+sched / +ts" "floor tcp spin +ts+sched" \
		"floor tcp spin +ts" -
	spec "SCHED stamp: floor tcp block +ts+sched / +ts" "floor tcp block +ts+sched" \
		"floor tcp block +ts" -
	spec "SCHED stamp: rant spin / rant spin nosched" "rant spin" "rant spin nosched" -
	spec "rant spin nosched / floor spin +ts" "rant spin nosched" "floor spin +ts" 1.01
	spec "RX+TX stamps: floor spin +ts / floor spin" "floor spin +ts" "floor spin" -
	spec "RX+TX stamps: floor block +ts / floor block" "floor block +ts" "floor block" -
	echo "# against the plain floor and sockperf (issue 2's targets)"
	spec "rant spin / floor spin" "rant spin" "floor spin" 1.10
	spec "rant block / floor block" "rant block" "floor block" 1.05
	spec "rant block / sockperf" "rant block" sockperf 1.00
	spec "TCP rant spin / floor tcp spin" "rant tcp spin" "floor tcp spin" -
	spec "TCP rant block / floor tcp block" "rant tcp block" "floor tcp block" -
	spec "TCP rant block / sockperf tcp" "rant tcp block" "sockperf tcp" -
	spec "floor tcp spin / floor spin" "floor tcp spin" "floor spin" -
	echo "# rant's options, each over rant without it"
	spec "-I 1: rant spin -I 1 / rant spin" "rant spin -I 1" "rant spin" 1.02
	spec "+log: rant spin +log / rant spin" "rant spin +log" "rant spin" 1.02
	spec "--key: rant spin key / rant spin" "rant spin key" "rant spin" -
	spec "+scrape: rant spin +scrape / rant spin" "rant spin +scrape" "rant spin" 1.02
	spec "--stamp: rant spin stamp / rant spin" "rant spin stamp" "rant spin" 1.02
	spec "--key: rant block key / rant block" "rant block key" "rant block" -
	spec "--tcp's capture: rant tcp spin diag / rant tcp spin nodiag" "rant tcp spin diag" \
		"rant tcp spin nodiag" -
	spec "--tcp's capture: rant tcp block diag / rant tcp block nodiag" "rant tcp block diag" \
		"rant tcp block nodiag" -
	spec "--diagnosis auto: rant tcp spin / rant tcp spin nodiag" "rant tcp spin" \
		"rant tcp spin nodiag" 1.02
	spec "--diagnosis auto: rant tcp block / rant tcp block nodiag" "rant tcp block" \
		"rant tcp block nodiag" -
	spec "--key: rant spin key / rant spin, wire" "rant spin key (wire, kernel)" \
		"rant spin (wire, kernel)" -
	spec "--key: rant block key / rant block, wire" "rant block key (wire, kernel)" \
		"rant block (wire, kernel)" -
	spec "sim spin +phc / sim spin" "sim spin +phc" "sim spin" 1.05
	[ -n "$RANT_B" ] || return 0
	echo "# A/B: rant_B ($RANT_B) / rant_A ($RANT_A), same rows, same rounds"
	for name in "${ROWS[@]}"; do
		if [ "${ROW_KIND[$name]}" != rant ] || [ "${name#B: }" != "$name" ]; then
			continue
		fi
		spec "B/A: $name" "B: $name" "$name" -
	done
}

print_ratios() {
	printf '\n%-48s %7s %7s %7s %6s %6s  %s\n' "ratio of p50s, taken in each round" \
		median lowest highest rounds limit result
	awk -v mode=ratios -f "$STATS" "$RESULTS" <(ratio_spec)
	rant_takes "$RANT_A" --no-queue-stamps ||
		printf '\nrant with and without the SCHED stamp: n/a (this rant has no --no-queue-stamps; the floor'"'"'s ratio above is its price)\n'
	check_blocking
}

# A blocking comparison means something only if the client did block.
check_blocking() {
	local name s
	for name in "floor block" "rant block" sockperf "floor tcp block" "rant tcp block" "sockperf tcp"; do
		s=$(awk -v mode=field -v row="$name" -v col=9 -f "$STATS" "$RESULTS")
		[ "$s" != - ] || continue
		if awk -v s="$s" 'BEGIN { exit !(s < 0.5) }'; then
			printf 'warning: the %s client slept %s times per round trip: it did not block, so its blocking comparisons are not like with like\n' "$name" "$s"
		fi
	done
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

# probe_flags: RANT_FLAGS["BIN udp"] and ["BIN --tcp"], "emitter reflector"
# flags, for rant A (and B); the floors' flags come from A's.
declare -A RANT_FLAGS=()
probe_flags() {
	local bin
	ROUND=0 RDIR=$OUT/probe
	mkdir -p "$RDIR"
	for bin in "$RANT_A" ${RANT_B:+"$RANT_B"}; do
		rant_flags "flags udp" "$bin" || exit 1
		RANT_FLAGS["$bin udp"]="$FLAGS_E $FLAGS_R"
		rant_flags "flags tcp" "$bin" --tcp --nodelay || exit 1
		RANT_FLAGS["$bin --tcp"]="$FLAGS_E $FLAGS_R"
		if rant_takes "$bin" --no-queue-stamps; then
			rant_flags "flags nosched" "$bin" --no-queue-stamps || exit 1
			RANT_FLAGS["$bin --no-queue-stamps"]="$FLAGS_E $FLAGS_R"
		fi
		say "bench: $bin asks for SO_TIMESTAMPING ${RANT_FLAGS["$bin udp"]} (UDP emitter, reflector), ${RANT_FLAGS["$bin --tcp"]} (TCP)"
	done
}

main() {
	local t0=$SECONDS ue ur te tr
	GNU_TIME=
	if /usr/bin/time --version >/dev/null 2>&1; then
		GNU_TIME=/usr/bin/time
	else
		say "bench: no GNU time (Debian package time): sleeps/rt not measured"
	fi
	require_root
	require_cmd ip taskset timeout jq sockperf cc awk od shuf
	if [ -n "$RANT_B" ]; then
		if [ ! -f "$RANT_B" ] || [ ! -x "$RANT_B" ]; then
			say "bench: RANT_B=$RANT_B is not an executable rant: give the path of another build's rant"
			exit 1
		fi
		RANT_B=$(readlink -f -- "$RANT_B")	# the namespaces' commands run it too
	fi
	mkdir -p "$OUT"
	build
	check_quiet
	hold_idle
	setup_pair || { say "bench: cannot create the veth pair"; exit 1; }
	(umask 077; head -c 32 /dev/urandom >"$OUT/key")
	probe_flags
	read -r ue ur <<<"${RANT_FLAGS["$RANT_A udp"]}"
	read -r te tr <<<"${RANT_FLAGS["$RANT_A --tcp"]}"
	define_rows "$ue" "$ur" "$te" "$tr"
	say "bench: $N round trips per run, $ROUNDS rounds of ${#ROWS[@]} rows, $SIZE bytes, emitter CPU $CPU_EMIT, reflector CPU $CPU_REFLECT, outputs in $OUT"
	rounds

	# a group, not a pipe: logbench_run must run in this shell
	{
		print_table
		print_flags
		print_ratios
		if [ "$QUICK" != 1 ]; then
			logbench_run
			authbench_run
		fi
		printf '\nbench: %d s in all\n' "$((SECONDS - t0))"
	} >"$OUT/report.txt"
	cat "$OUT/report.txt"
	if [ "${#FAILED_RUNS[@]}" -gt 0 ]; then
		say "bench: no numbers from: ${FAILED_RUNS[*]}"
		exit 1
	fi
}

main "$@"
exit 0	# bash reads a script as it runs it: nothing after this is read
