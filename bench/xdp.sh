#!/usr/bin/env bash
# reflect against reflect --xdp (make bench-xdp; root). See bench/README.md,
# "The reflector in the driver".
#
# One veth pair, the reflector pinned to CPU 1, the generator and the
# emitter to CPU 0, the emitter's veth end with an XDP_PASS program
# (build/xdppass.bpf.o: a veth delivers what its peer's program sends
# back only to an end with a program). Each end's receive runs in a NAPI
# thread of its own (threaded NAPI; GRO on the reflector's end, so that
# the socket reflector's frames take NAPI too), pinned to its side's
# CPU: the reflector's end to CPU 1, where the XDP program then runs,
# the emitter's to CPU 0. Without that, a veth runs its peer's receive,
# and so the XDP program, on the sender's CPU: the generator's, which
# then measures itself. In each of XDP_ROUNDS rounds, the three
# reflectors (socket, --xdp, --xdp --afxdp) in a random order:
#
#   capacity  bench/loadgen (open loop, XDP_FLOWS sockets of 7 sessions,
#             sendmmsg() batches) offers XDP_RATE rant pings a second for
#             XDP_SECONDS; the replies a second that came back, counted
#             and dropped by an XDP program on the generator's end
#             (build/xdpcount.bpf.o: the generator's CPU then only sends),
#             are the reflector's capacity when the offer is above it; the
#             generator's own rate_sent says what it could offer. Beside it,
#             the rant process's CPU (utime + stime) and the softirq time
#             of all CPUs over the same seconds (/proc/stat), in CPU
#             seconds a second, and the CPU of the reflector's end's NAPI
#             thread: an XDP reflector's work is there, not its process's.
#             Where the generator cannot outrun a reflector (one CPU sends
#             and counts), the replies per CPU second of the reflector's
#             own (its process and its NAPI thread) are its capacity on one
#             CPU: the row "answered per CPU s".
#   latency   rant's emitter, XDP_N pings back to back (spinning): its
#             rtt and the reflector's response (T3 - T2), p50 and p99.
#
# The report: each figure's median over the rounds with the lowest and
# highest, and the ratios xdp/socket taken in each round.
# Environment: XDP_ROUNDS (5), XDP_SECONDS (2), XDP_RATE (1500000),
# XDP_FLOWS (4), XDP_N (20000), XDP_OUT (bench/out/xdp/).
set -euo pipefail

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../tests/net/lib.sh
source "$BENCH/../tests/net/lib.sh"	# TOP, RANT, defer, setup_pair

ROUNDS=${XDP_ROUNDS:-5}
SECS=${XDP_SECONDS:-2}
RATE=${XDP_RATE:-1500000}
FLOWS=${XDP_FLOWS:-4}
N=${XDP_N:-20000}
OUT=${XDP_OUT:-$BENCH/out/xdp}
LOADGEN=$OUT/loadgen
PASS_OBJ=$TOP/build/xdppass.bpf.o
COUNT_OBJ=$TOP/build/xdpcount.bpf.o
PORT=12345

say() { echo "$*" >&2; }

# softirq_s: the softirq time of all CPUs so far, seconds.
softirq_s() {
	awk -v hz="$(getconf CLK_TCK)" '$1 == "cpu" { printf "%.3f\n", $8 / hz }' /proc/stat
}

# proc_s PID: the process's CPU time so far (utime + stime), seconds.
proc_s() {
	awk -v hz="$(getconf CLK_TCK)" '{ printf "%.3f\n", ($14 + $15) / hz }' "/proc/$1/stat"
}

# napi_pid VETH: the pid of VETH's NAPI thread (its name cut to 15).
napi_pid() {
	local name="napi/$1-"
	pgrep "^${name:0:15}" | head -1
}

# threaded NS VETH CPU: VETH's receive in a NAPI thread on CPU.
threaded() {
	local pid
	ip netns exec "$1" sh -c "echo 1 > /sys/class/net/$2/threaded" ||
		{ say "xdp: $2: no threaded NAPI"; exit 1; }
	pid=$(napi_pid "$2")
	[ -n "$pid" ] || { say "xdp: $2: no NAPI thread"; exit 1; }
	taskset -p -c "$3" "$pid" >/dev/null
}

# reflector MODE NAME: rant reflecting in NS_B on CPU 1 (nsenter: the
# program loads from /sys), --xdp=required for xdp and afxdp; pid in $SRV.
reflector() {
	local args=()
	[ "$1" = xdp ] && args=(--xdp=required --block)
	[ "$1" = afxdp ] && args=(--xdp=required --afxdp --block)
	nsenter --net="/run/netns/$NS_B" taskset -c 1 "$RANT" -i "$VETH_B" "${args[@]}" \
		-j "$OUT/$2.json" >"$OUT/$2.txt" 2>&1 &
	SRV=$!
	defer kill -9 "$SRV"
	wait_udp_port "$NS_B" "$PORT" && wait_for_line "$OUT/$2.txt" '^rant .* reflect: ' 10 ||
		{ say "xdp: reflector $2 did not start: $(tail -3 "$OUT/$2.txt")"; exit 1; }
	threaded "$NS_B" "$VETH_B" 1	# attaching may have made its NAPI anew
}

# on_a OBJ: OBJ's program on the emitter's end, its NAPI thread again on
# CPU 0 (attaching may make it anew).
on_a() {
	ip -n "$NS_A" link set dev "$VETH_A" xdpdrv off
	ip -n "$NS_A" link set dev "$VETH_A" xdpdrv obj "$1" sec xdp
	threaded "$NS_A" "$VETH_A" 0
}

# replies: the frames the counting program on the emitter's end counted.
replies() {
	local prog map
	prog=$(ip -n "$NS_A" -j link show dev "$VETH_A" | jq '.[0].xdp.prog.id')
	map=$(bpftool -j prog show id "$prog" | jq '.map_ids[0]')
	# without BTF (iproute2 loaded it) the values are little-endian bytes
	bpftool -j map dump id "$map" | jq '[.[0].values[].value |
		if type == "array" then [.[] | ltrimstr("0x") | explode | map(if . > 96 then . - 87
			else . - 48 end) | .[0] * 16 + .[1]] | reverse | reduce .[] as $b (0; . * 256 + $b)
		else . end] | add'
}

unreflect() {
	kill -INT "$SRV"
	wait "$SRV" || true
}

# one ROUND MODE: its capacity and latency rows into $OUT/rows.tsv.
one() {
	local r=$1 mode=$2 p0 s0 n0 p1 s1 n1 napi line got
	on_a "$COUNT_OBJ"
	reflector "$mode" "cap-$mode-$r"
	napi=$(napi_pid "$VETH_B")
	p0=$(proc_s "$SRV")
	s0=$(softirq_s)
	n0=$(proc_s "$napi")
	line=$(ip netns exec "$NS_A" taskset -c 0 "$LOADGEN" -a "$IP_B" -p "$PORT" -f rant \
		-r "$RATE" -t "$SECS" -n "$FLOWS" -s 7 -m 72)
	p1=$(proc_s "$SRV")
	s1=$(softirq_s)
	n1=$(proc_s "$napi")
	unreflect
	got=$(replies)
	echo "$line counted=$got" >"$OUT/cap-$mode-$r.gen"
	on_a "$PASS_OBJ"
	reflector "$mode" "lat-$mode-$r"
	ip netns exec "$NS_A" taskset -c 0 "$RANT" -i "$VETH_A" -a "$IP_B" -c "$N" -w 1000 \
		-j "$OUT/lat-$mode-$r.emit.json" >"$OUT/lat-$mode-$r.emit.txt" 2>&1
	unreflect
	jq -r --arg r "$r" --arg m "$mode" --arg pps "$(awk -v g="$got" -v s="$SECS" 'BEGIN { printf "%d", g / s }')" \
		--arg proc "$(awk -v a="$p0" -v b="$p1" -v s="$SECS" 'BEGIN { printf "%.3f", (b - a) / s }')" \
		--arg soft "$(awk -v a="$s0" -v b="$s1" -v s="$SECS" 'BEGIN { printf "%.3f", (b - a) / s }')" \
		--arg napi "$(awk -v a="$n0" -v b="$n1" -v s="$SECS" 'BEGIN { printf "%.3f", (b - a) / s }')" \
		--arg gen "$(sed -n -E 's/.* rate_sent=([0-9]+).*/\1/p' <<<"$line")" \
		--arg percpu "$(awk -v g="$got" -v a="$p0" -v b="$p1" -v c="$n0" -v d="$n1" \
			'BEGIN { cpu = (b - a) + (d - c); printf "%d", (cpu > 0 ? g / cpu : 0) }')" \
		'[$r, $m, $pps, $proc, $soft, .metrics.response.percentiles["50"], .metrics.response.percentiles["99"],
		  .metrics.rtt.percentiles["50"], .metrics.rtt.percentiles["99"], $napi, $gen, $percpu] | @tsv' \
		"$OUT/lat-$mode-$r.emit.json" >>"$OUT/rows.tsv"
}

# median/lo/hi of column C (1-based) of MODE's rows.
col() {
	awk -F'\t' -v m="$1" -v c="$2" '$2 == m { print $c }' "$OUT/rows.tsv" | sort -g |
		awk '{ v[NR] = $1 } END { printf "%s (%s..%s)", v[int((NR + 1) / 2)], v[1], v[NR] }'
}

# the per-round ratio MODE/socket of column C: median (lo..hi).
ratio() {
	awk -F'\t' -v c="$1" -v m="$2" '{ v[$1, $2] = $c; r[$1] = 1 }
		END { for (k in r) if (v[k, "socket"] > 0) printf "%.4g\n", v[k, m] / v[k, "socket"] }' \
		"$OUT/rows.tsv" | sort -g |
		awk '{ v[NR] = $1 } END { printf "%s (%s..%s)", v[int((NR + 1) / 2)], v[1], v[NR] }'
}

main() {
	local r order
	[ "$(id -u)" = 0 ] || { say "xdp: run as root"; exit 1; }
	[ -r "$PASS_OBJ" ] && [ -r "$COUNT_OBJ" ] ||
		{ say "xdp: no $PASS_OBJ or $COUNT_OBJ (make bench-xdp builds them)"; exit 1; }
	mkdir -p "$OUT"
	rm -f "$OUT/rows.tsv"
	cc -O2 -Wall -Wextra -o "$LOADGEN" "$BENCH/loadgen.c"
	UNIQ=$(unique_suffix)
	setup_pair
	trap defer_run EXIT
	ip -n "$NS_A" link set dev "$VETH_A" xdpdrv obj "$PASS_OBJ" sec xdp
	threaded "$NS_A" "$VETH_A" 0
	# GRO on the reflector's end, and no TSO on the emitter's (a veth takes
	# its peer's NAPI only for frames GRO may merge): the socket
	# reflector's frames through the NAPI thread too
	ip netns exec "$NS_B" ethtool -K "$VETH_B" gro on >/dev/null
	ip netns exec "$NS_A" ethtool -K "$VETH_A" tso off >/dev/null
	threaded "$NS_B" "$VETH_B" 1
	for ((r = 1; r <= ROUNDS; r++)); do
		order=$(printf '%s\n' socket xdp afxdp | shuf | tr '\n' ' ')
		say "xdp: round $r of $ROUNDS: $order"
		for m in $order; do one "$r" "$m"; done
	done
	report
}

# row NAME C: one figure of the three, and the ratios to the socket's.
row() {
	printf '%-24s %-22s %-22s %-22s %-20s %s\n' "$1" "$(col socket "$2")" "$(col xdp "$2")" \
		"$(col afxdp "$2")" "$(ratio "$2" xdp)" "$(ratio "$2" afxdp)"
}

report() {
	printf 'reflect against reflect --xdp and --xdp --afxdp, %s rounds (median (lowest..highest))\n' \
		"$ROUNDS"
	printf '%-24s %-22s %-22s %-22s %-20s %s\n' "" socket xdp afxdp "xdp/socket" "afxdp/socket"
	row "pings/s answered" 3
	row "generator's pings/s sent" 11
	row "rant process CPU s/s" 4
	row "NAPI thread CPU s/s" 10
	row "answered per CPU s" 12
	row "softirq, all CPUs, s/s" 5
	row "response p50 ns" 6
	row "response p99 ns" 7
	row "emitter rtt p50 ns" 8
	row "emitter rtt p99 ns" 9
	printf 'offered %s pings/s for %s s by bench/loadgen (%s flows of 7 sessions); %s pings for the latency; load average %s\n' \
		"$RATE" "$SECS" "$FLOWS" "$N" "$(cut -d' ' -f1-3 /proc/loadavg)"
}

main "$@"
