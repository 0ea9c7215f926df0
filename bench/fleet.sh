#!/usr/bin/env bash
# The reflector for a fleet (make bench-fleet; root). See bench/README.md,
# "The fleet".
#
# How many requests a second one reflector answers, pinned to CPU 1,
# while bench/loadgen (open loop, FLEET_FLOWS sockets of FLEET_SESSIONS
# emitters each, 14 in all by default: rant's reflector holds 16 of one
# address; sendmmsg() batches) offers them from CPU 0 over one veth pair, at
# rising rates, until more than 0.1% of the replies are lost or (where
# the reflector says) more than 0.1% of its TX stamps are missing. Each
# step runs FLEET_SECONDS against a fresh reflector. The rows:
#
#   floor          bench/floorsrv: echoes each datagram with rant's
#                  SO_TIMESTAMPING flags and receive buffer (4 MiB), every
#                  RX and TX stamp read, one datagram a system call
#                  (spinning)
#   floor batch    the same, 32 datagrams a recvmmsg()/sendmmsg(), the
#                  error queue 32 reports a recvmmsg() (spinning)
#   floor block, floor batch block   the same two blocking in the receive
#   rant spin      rant's reflector (the default: spinning)
#   rant block     rant --block
#   sockperf       sockperf server, rant's buffer (--buffer-size), fed
#                  sockperf's header
#   rant stamp     rant --stamp (spinning), fed STAMP test packets
#   stamp-suite    stamp-suite's STAMP reflector (no buffer option: the
#                  system's), fed the same
#   B: rant ...    with RANT_B=PATH, rant spin and block of that build too
#
# Then the concurrent low-rate emitter: rant (--block, --interval 1000,
# FLEET_PROBE_S seconds) against rant spin, idle and with the load at
# half and at all of the rate rant spin held in that round; its p50 (wire
# RTT and user-level RTT) over the idle one's.
#
# Rounds (FLEET_ROUNDS) take the rows in a random order; the report
# gives each row's median highest rate with the lowest and highest of a
# round, and ratios taken in each round (median, lowest, highest).
#
# Environment: FLEET_ROUNDS (3; 1 with BENCH_QUICK=1), FLEET_SECONDS (2;
# 1 quick), FLEET_FLOWS (2), FLEET_SESSIONS (7), FLEET_ROWS=RE (rows whose names match),
# RANT_B=PATH, FLEET_START (25000 a second), FLEET_MAX (1000000),
# FLEET_PROBE_S (3; 2 quick), FLEET_OUT (outputs; bench/out/fleet/).
set -euo pipefail

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../tests/net/lib.sh
source "$BENCH/../tests/net/lib.sh"	# TOP, RANT, defer, setup_pair

QUICK=${BENCH_QUICK:-0}
ROUNDS=${FLEET_ROUNDS:-$([ "$QUICK" = 1 ] && echo 1 || echo 3)}
SECS=${FLEET_SECONDS:-$([ "$QUICK" = 1 ] && echo 1 || echo 2)}
PROBE_S=${FLEET_PROBE_S:-$([ "$QUICK" = 1 ] && echo 2 || echo 3)}
FLOWS=${FLEET_FLOWS:-2}
SESSIONS=${FLEET_SESSIONS:-7}
START=${FLEET_START:-25000}
MAX=${FLEET_MAX:-1000000}
ROW_FILTER=${FLEET_ROWS:-}
RANT_B=${RANT_B:-}
LOSS_LIMIT=0.1		# percent
RCVBUF_KB=4096		# rant's reflector's receive buffer (src/transport/udp.c), given to the floors and sockperf
SIZE=72
STAMP_SIZE=44
CPU_REFLECT=1
CPU_GEN=0
PORT=12345
STAMP_PORT=862
SOCKPERF_PORT=11111
OUT=${FLEET_OUT:-$BENCH/out/fleet}
LOADGEN=$OUT/loadgen
FLOORSRV=$OUT/floorsrv
SOCKOPT_LIB=$OUT/libsockopt.so
STAMP_SUITE=${STAMP_SUITE:-${STAMP_SUITE_ROOT:-/var/cache/rant/stamp-suite}/bin/stamp-suite}

say() { echo "$*" >&2; }

build() {
	say "fleet: building $LOADGEN, $FLOORSRV, $SOCKOPT_LIB"
	cc -O2 -Wall -Wextra -o "$LOADGEN" "$BENCH/loadgen.c"
	cc -O2 -Wall -Wextra -o "$FLOORSRV" "$BENCH/floorsrv.c"
	cc -O2 -Wall -Wextra -shared -fPIC -o "$SOCKOPT_LIB" "$BENCH/sockopt.c" -ldl
}

# Hold /dev/cpu_dma_latency at 0 while the bench runs (as bench/run.sh).
hold_idle() {
	[ -w /dev/cpu_dma_latency ] || return 0
	(exec 3>/dev/cpu_dma_latency && printf 0 >&3 && exec sleep infinity) &
	defer kill "$!"
}

__bound() {
	ip netns exec "$NS_B" ss -Hlun "sport = :$1" 2>/dev/null | grep -q .
}
__free() { ! __bound "$1"; }

# serve PORT CMD...: a reflector in NS_B on CPU_REFLECT (output in
# $STEP.server); returns once PORT is bound. Its pid in $SRV.
serve() {
	local port=$1
	shift
	# the last step's reflector is gone (SIGKILL after 5 s at most)
	if ! wait_until 10 __free "$port"; then
		say "fleet: port $port still bound in $NS_B: $(ip netns exec "$NS_B" ss -Hlunp "sport = :$port")"
		return 1
	fi
	ip netns exec "$NS_B" taskset -c "$CPU_REFLECT" "$@" >"$STEP.server" 2>&1 &
	SRV=$!
	defer kill -9 "$SRV"
	if ! wait_until 10 __bound "$port"; then
		say "fleet: $* did not bind port $port: $(tail -n 3 "$STEP.server")"
		unserve
		return 1
	fi
}

# unserve: SIGINT to the reflector, SIGKILL after 5 s.
unserve() {
	local i
	kill -INT "$SRV" 2>/dev/null || true
	for ((i = 0; i < 50; i++)); do
		kill -0 "$SRV" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$SRV" 2>/dev/null || true
	wait "$SRV" 2>/dev/null || true
}

# The SO_TIMESTAMPING flags rant's reflector sets (bench/sockopt.c).
probe_flags() {
	STEP=$OUT/probe
	rm -f "$STEP.flags"
	serve "$PORT" env LD_PRELOAD="$SOCKOPT_LIB" BENCH_SOCKOPT_LOG="$STEP.flags" \
		"$RANT" -i "$VETH_B" || exit 1
	unserve
	FLAGS=$(sed -n -E 's/.* so_timestamping=(0x[0-9a-f]+) rc=0$/\1/p' "$STEP.flags" | tail -n 1)
	if [ -z "$FLAGS" ]; then
		say "fleet: cannot tell which stamps rant's reflector asks for (see $STEP.flags)"
		exit 1
	fi
	say "fleet: rant's reflector asks for SO_TIMESTAMPING $FLAGS; the floors get the same"
}

# The rows: name, then the request format, port and reflector command.
declare -A ROW_FMT=() ROW_PORT=() ROW_CMD=()
ROWS=()
row() {
	local name=$1
	[ -z "$ROW_FILTER" ] || grep -Eq -- "$ROW_FILTER" <<<"$name" || return 0
	ROWS+=("$name")
	ROW_FMT[$name]=$2
	ROW_PORT[$name]=$3
	shift 3
	ROW_CMD[$name]=$(printf '%q ' "$@")
}

define_rows() {
	row "floor" rant "$PORT" "$FLOORSRV" -p "$PORT" -t "$FLAGS" -k "$RCVBUF_KB"
	row "floor batch" rant "$PORT" "$FLOORSRV" -p "$PORT" -t "$FLAGS" -B 32 -k "$RCVBUF_KB"
	row "floor block" rant "$PORT" "$FLOORSRV" -p "$PORT" -t "$FLAGS" -k "$RCVBUF_KB" -b
	row "floor batch block" rant "$PORT" "$FLOORSRV" -p "$PORT" -t "$FLAGS" -B 32 \
		-k "$RCVBUF_KB" -b
	row "rant spin" rant "$PORT" "$RANT" -i "$VETH_B" -j "@JSON@"
	row "rant block" rant "$PORT" "$RANT" -i "$VETH_B" --block -j "@JSON@"
	if [ -n "$RANT_B" ]; then
		row "B: rant spin" rant "$PORT" "$RANT_B" -i "$VETH_B" -j "@JSON@"
		row "B: rant block" rant "$PORT" "$RANT_B" -i "$VETH_B" --block -j "@JSON@"
	fi
	row "sockperf" sockperf "$SOCKPERF_PORT" sockperf server -i "$IP_B" -p "$SOCKPERF_PORT" \
		--buffer-size $((RCVBUF_KB * 1024))
	row "rant stamp" stamp "$STAMP_PORT" "$RANT" -i "$VETH_B" --stamp -j "@JSON@"
	if "$STAMP_SUITE" --version 2>/dev/null | grep -q '^stamp-suite '; then
		row "stamp-suite" stamp "$STAMP_PORT" "$STAMP_SUITE" --is-reflector \
			--local-addr "$IP_B" --local-port "$STAMP_PORT"
	else
		say "fleet: no stamp-suite at $STAMP_SUITE (make stamp-suite): its row is left out"
	fi
}

# missing_pct: the reflector's TX or RX stamps missing, percent of the
# pongs it sent ("-" where it does not say): rant's JSON, floorsrv's line.
missing_pct() {
	local f=$STEP.json
	if [ -s "$f" ]; then
		jq -r '.counts | if .sent > 0 then
			100 * (.missing_tx_ts + .missing_rx_ts) / .sent else 0 end' "$f" |
			awk '{ printf "%.4f\n", $1 }'
	elif grep -q '^received=' "$STEP.server"; then
		sed -n -E 's/^received=([0-9]+) sent=([0-9]+) rx_stamps=([0-9]+) tx_snd=([0-9]+).*/\1 \2 \3 \4/p' \
			"$STEP.server" | awk '{ m = ($2 - $4) + ($1 - $3); printf "%.4f\n", $2 ? 100 * m / $2 : 0 }'
	else
		echo -
	fi
}

# step NAME RATE: one run at RATE; sets LOSS, MISSING, SENT_RATE, and
# returns 0 when the reflector held (loss and missing stamps within the
# limit), 1 when it did not, 2 when the generator could not offer RATE.
step() {
	local name=$1 rate=$2 cmd line
	LOSS=- MISSING=- SENT_RATE=0 FOREIGN=0
	STEP=$RDIR/$(tr ' :' '-_' <<<"$name")-$rate
	rm -f "$STEP.json"
	cmd=${ROW_CMD[$name]//@JSON@/$STEP.json}
	eval "serve ${ROW_PORT[$name]} $cmd" || return 1
	line=$(ip netns exec "$NS_A" taskset -c "$CPU_GEN" "$LOADGEN" -a "$IP_B" \
		-p "${ROW_PORT[$name]}" -f "${ROW_FMT[$name]}" -r "$rate" -t "$SECS" \
		-n "$FLOWS" -s "$SESSIONS" -m "$([ "${ROW_FMT[$name]}" = stamp ] && echo $STAMP_SIZE || echo $SIZE)")
	unserve
	echo "$line" >"$STEP.gen"
	LOSS=$(sed -n -E 's/.* loss_pct=([0-9.]+).*/\1/p' <<<"$line")
	SENT_RATE=$(sed -n -E 's/.* rate_sent=([0-9]+).*/\1/p' <<<"$line")
	FOREIGN=$(sed -n -E 's/.* foreign=([0-9]+).*/\1/p' <<<"$line")
	MISSING=$(missing_pct)
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$ROUND" "$name" "$rate" "$SENT_RATE" "$LOSS" \
		"$MISSING" >>"$OUT/steps.tsv"
	awk -v s="$SENT_RATE" -v r="$rate" 'BEGIN { exit !(s < 0.97 * r) }' && return 2
	awk -v l="$LOSS" -v m="$MISSING" -v lim="$LOSS_LIMIT" \
		'BEGIN { exit !(l <= lim && (m == "-" || m <= lim)) }' && return 0
	return 1
}

# try NAME RATE: step, and a failed step once more (a moment of other
# work on a shared machine fails a step the reflector holds); the second
# one's verdict.
try() {
	local rc=0 again
	for again in "" " (again)"; do
		rc=0
		step "$1" "$2" || rc=$?
		say "fleet: round $ROUND $1 $2/s$again: loss ${LOSS}%, stamps missing ${MISSING}%, sent ${SENT_RATE}/s$([ "${FOREIGN:-0}" = 0 ] || echo ", $FOREIGN replies to no request")$([ $rc = 0 ] && echo ' ok')"
		[ "$rc" != 0 ] || return 0
	done
	return "$rc"
}

# search NAME: the highest rate the row holds, into $HELD (and whether
# the generator ran out first, in $GEN_LIMIT): up by 1.5x from START
# until it fails (twice), then three halvings of the gap (geometric).
search() {
	local name=$1 lo=0 hi=0 rate=$START rc i
	GEN_LIMIT=0
	while [ "$rate" -le "$MAX" ]; do
		rc=0
		try "$name" "$rate" || rc=$?
		if [ "$rc" = 0 ]; then
			lo=$rate
			rate=$((rate * 3 / 2))
			continue
		fi
		[ "$rc" = 2 ] && GEN_LIMIT=1
		hi=$rate
		break
	done
	if [ "$hi" -gt 0 ] && [ "$lo" -gt 0 ] && [ "$GEN_LIMIT" = 0 ]; then
		for ((i = 0; i < 3; i++)); do
			rate=$(awk -v a="$lo" -v b="$hi" 'BEGIN { printf "%d", sqrt(a * b) }')
			rc=0
			try "$name" "$rate" || rc=$?
			if [ "$rc" = 0 ]; then lo=$rate; else hi=$rate; fi
		done
	fi
	HELD=$lo
	printf '%s\t%s\t%s\t%s\n' "$ROUND" "$name" "$HELD" "$GEN_LIMIT" >>"$OUT/held.tsv"
}

# probe NAME RATE: the low-rate emitter against rant spin, with the load
# at RATE (0: idle); its p50s (wire RTT, user-level RTT) to probe.tsv.
probe() {
	local name=$1 rate=$2 gen=
	STEP=$RDIR/probe-$rate
	serve "$PORT" "$RANT" -i "$VETH_B" || return 1
	if [ "$rate" -gt 0 ]; then
		ip netns exec "$NS_A" taskset -c "$CPU_GEN" "$LOADGEN" -a "$IP_B" -p "$PORT" \
			-r "$rate" -t $((PROBE_S + 2)) -n "$FLOWS" -s "$SESSIONS" -m "$SIZE" \
			>"$STEP.gen" &
		gen=$!
		sleep 0.5
	fi
	ip netns exec "$NS_A" taskset -c "$CPU_GEN" "$RANT" -i "$VETH_A" -a "$IP_B" --block -s \
		--interval 1000 -d "$PROBE_S" -w 10 -m "$SIZE" -j "$STEP.json" >"$STEP.emit" 2>&1 || true
	[ -z "$gen" ] || wait "$gen" || true
	unserve
	if [ ! -s "$STEP.json" ]; then
		say "fleet: the low-rate emitter gave no JSON (see $STEP.emit)"
		return 1
	fi
	printf '%s\t%s\t%s\t%s\t%s\n' "$ROUND" "$name" "$rate" \
		"$(jq -r '.metrics.rtt.percentiles["50"]' "$STEP.json")" \
		"$(jq -r '.metrics.rtt_sw.percentiles["50"]' "$STEP.json")" >>"$OUT/probe.tsv"
}

rounds() {
	local name held
	: >"$OUT/steps.tsv"
	: >"$OUT/held.tsv"
	: >"$OUT/probe.tsv"
	for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
		RDIR=$OUT/r$ROUND
		mkdir -p "$RDIR"
		held=0
		while IFS= read -r name; do
			search "$name"
			[ "$name" != "rant spin" ] || held=$HELD
		done < <(printf '%s\n' "${ROWS[@]}" | shuf)
		if [ "$held" -gt 0 ]; then
			probe idle 0 || true
			probe half $((held / 2)) || true
			probe idle 0 || true
			probe full "$held" || true
		fi
	done
}

# median_of: the median (lower middle) of the numbers on stdin, with the
# lowest and highest: "median lo hi n".
median_of() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (!NR) { print "- - - 0"; exit }
		printf "%s %s %s %d\n", v[int((NR + 1) / 2)], v[1], v[NR], NR }'
}

report() {
	local name a b m
	printf 'Highest rate a reflector answered with at most %s%% lost (and, where it says, at most %s%% of its stamps missing)\n' \
		"$LOSS_LIMIT" "$LOSS_LIMIT"
	printf '%d-byte requests (STAMP rows: %d), %d sessions on %d sockets from CPU %d, reflector on CPU %d, %s s a step, %d rounds\n' \
		"$SIZE" "$STAMP_SIZE" "$((FLOWS * SESSIONS))" "$FLOWS" "$CPU_GEN" "$CPU_REFLECT" "$SECS" "$ROUNDS"
	printf '%-16s %10s %10s %10s %7s  %s\n' row "median/s" "lowest" "highest" rounds note
	for name in "${ROWS[@]}"; do
		read -r m a b n < <(awk -F '\t' -v r="$name" '$2 == r { print $3 }' "$OUT/held.tsv" | median_of)
		printf '%-16s %10s %10s %10s %7s  %s\n' "$name" "$m" "$a" "$b" "$n" \
			"$(awk -F '\t' -v r="$name" '$2 == r && $4 == 1 { g = 1 } END {
				if (g) print "the generator ran out first in a round" }' "$OUT/held.tsv")"
	done
	printf '\nratio of highest rates, taken in each round      median  lowest highest rounds\n'
	for pair in "rant spin/floor batch" "rant spin/floor" "rant block/floor batch block" \
		"rant block/floor block" "rant block/floor batch" "rant block/stamp-suite" \
		"rant spin/sockperf" "rant block/sockperf" "rant stamp/stamp-suite" \
		"rant spin/B: rant spin" "rant block/B: rant block"; do
		a=${pair%%/*} b=${pair#*/}
		read -r m lo hi n < <(awk -F '\t' -v a="$a" -v b="$b" '
			$2 == a { x[$1] = $3 } $2 == b { y[$1] = $3 }
			END { for (r in x) if (r in y && y[r] > 0) printf "%.3f\n", x[r] / y[r] }' \
			"$OUT/held.tsv" | median_of)
		[ "$n" = 0 ] || printf '%-48s %7s %7s %7s %6s\n' "$a / $b" "$m" "$lo" "$hi" "$n"
	done
	[ -s "$OUT/probe.tsv" ] || return 0
	printf '\nlow-rate emitter (1000 pings/s, --block) against rant spin, p50 under load / p50 idle\n'
	printf '(the idle runs of each round before each loaded one; none: rounds whose emitter\n'
	printf 'measured nothing, its warm-up longer than its run)                 median  lowest highest rounds none\n'
	for load in half full; do
		for col in 4 5; do
			read -r m lo hi n < <(awk -F '\t' -v l="$load" -v c="$col" '
				$2 == "idle" { idle = $c + 0 }
				$2 == l && idle > 0 && $c + 0 > 0 { printf "%.3f\n", $c / idle }' \
				"$OUT/probe.tsv" | median_of)
			printf '%-64s %7s %7s %7s %6s %4s\n' \
				"load at $load rant spin's rate: $([ "$col" = 4 ] && echo 'rtt (wire)' || echo 'rtt_sw (user)')" \
				"$m" "$lo" "$hi" "$n" "$(awk -F '\t' -v l="$load" -v c="$col" \
					'$2 == l && $c + 0 <= 0 { k++ } END { print k + 0 }' "$OUT/probe.tsv")"
		done
	done
}

main() {
	local t0=$SECONDS
	require_root
	require_cmd ip taskset jq cc awk shuf ss
	command -v sockperf >/dev/null || say "fleet: no sockperf (Debian package sockperf): its row fails"
	if [ -n "$RANT_B" ]; then
		[ -x "$RANT_B" ] || { say "fleet: RANT_B=$RANT_B is not an executable rant"; exit 1; }
		RANT_B=$(readlink -f -- "$RANT_B")
	fi
	[ -x "$RANT" ] || { say "fleet: no $RANT: run make first"; exit 1; }
	mkdir -p "$OUT"
	build
	load=$(cut -d ' ' -f 1 /proc/loadavg)
	awk -v l="$load" 'BEGIN { exit !(l >= 0.5) }' &&
		say "fleet: warning: load average $load: other work is running; expect noisy figures"
	hold_idle
	setup_pair || { say "fleet: cannot create the veth pair"; exit 1; }
	probe_flags
	define_rows
	say "fleet: ${#ROWS[@]} rows, $ROUNDS rounds, $SECS s a step, $FLOWS x $SESSIONS emitters, outputs in $OUT"
	rounds
	{
		report
		printf '\nfleet: %d s in all\n' "$((SECONDS - t0))"
	} >"$OUT/report.txt"
	cat "$OUT/report.txt"
}

main "$@"
exit 0
