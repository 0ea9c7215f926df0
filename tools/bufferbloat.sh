#!/usr/bin/env bash
# The bufferbloat study of rant's origin (Ping-exp) as one command: two
# destinations that run nothing of rant's, pinged by ICMP echo 5 times a
# second, under four loads (none, 2 uploads, 3 downloads, both), through
# a shaped link with a large queue and with a small one. All in network
# namespaces of its own, removed at exit, pass or fail:
#
#   client --- router --- wan --+-- dest1 (ICMP echo only)
#              tbf up           +-- dest2 (ICMP echo only)
#              tbf down         +-- srv   (iperf3 servers: the loads)
#
# The router's tbf toward the wan holds the uploads (and the echo
# requests), the one toward the client the downloads (and the replies).
# The results go to a folder of their own (doc/load.md#the-origins-study-one-command).
set -euo pipefail

usage() {
	cat <<'USAGE'
usage: sudo tools/bufferbloat.sh [options]
Pings two ICMP destinations 5 times a second (rant emit --targets, two
icmp lines named dest1 and dest2) under
four loads (iperf3) through a tbf-shaped link, with a large queue and
with a small one, and draws each run and the comparison (rant-plot).
  -c N            pings to each destination a run (default 400: 80 s)
  -o DIR          the study's folder (default ./bufferbloat-out)
  --queues LIST   large,small or one of them (default large,small)
  --loads LIST    of none,upload,download,both (default all four)
  --up RATE       the uplink's rate, in tc's units (default 5mbit)
  --down RATE     the downlink's rate (default 20mbit)
  --large SPEC    the large queue of each direction: Np a pfifo of N
                  packets under the tbf, a time tbf's own byte queue by
                  its latency (300ms), a size by its limit (400kb)
                  (default 200p: 485 ms up, 121 ms down at the rates)
  --small SPEC    the small queue (default 10p)
  --no-plot       no pictures (the runs and study.json only)
  -h, --help      this help
Writes DIR/study.json (every run: its files, the queue's counters, the
loads' throughput), DIR/study.txt (the table), DIR/QUEUE-LOAD/ (each
run's rant JSON, log and text, iperf3's JSON), DIR/QUEUE-LOAD.png and
DIR/bloat-page.png. Needs root, rant built (make), iperf3, jq, tc.
USAGE
}

COUNT=400
OUT=$PWD/bufferbloat-out
QUEUES=large,small
LOADS=none,upload,download,both
UP=5mbit
DOWN=20mbit
LARGE=200p
SMALL=10p
PLOT=1
INTERVAL_US=200000	# 5 pings a second, as the origin's -i .2
UPLOADS=2
DOWNLOADS=3
SETTLE_S=2	# the loads' slow start, before the pings
BURST=4k	# tbf's bucket, bytes: 2.7 full frames

die() { echo "bufferbloat: $*" >&2; exit 1; }

# need OPT VALUE: an option's value is there.
need() { [ -n "${2:-}" ] || die "$1 needs a value (see tools/bufferbloat.sh --help)"; }

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		-c) need "$@"; COUNT=$2; shift ;;
		-o) need "$@"; OUT=$2; shift ;;
		--queues) need "$@"; QUEUES=$2; shift ;;
		--loads) need "$@"; LOADS=$2; shift ;;
		--up) need "$@"; UP=$2; shift ;;
		--down) need "$@"; DOWN=$2; shift ;;
		--large) need "$@"; LARGE=$2; shift ;;
		--small) need "$@"; SMALL=$2; shift ;;
		--no-plot) PLOT=0 ;;
		-h|--help) usage; exit 0 ;;
		*) die "unknown argument '$1' (see tools/bufferbloat.sh --help)" ;;
		esac
		shift
	done
	[[ $COUNT =~ ^[0-9]+$ ]] && [ "$COUNT" -ge 5 ] && [ "$COUNT" -le 100000 ] ||
		die "-c $COUNT: give 5 to 100000 pings"
	local q l
	for q in ${QUEUES//,/ }; do
		[[ $q = large || $q = small ]] || die "--queues: '$q' is neither large nor small"
	done
	for l in ${LOADS//,/ }; do
		[[ $l =~ ^(none|upload|download|both)$ ]] ||
			die "--loads: '$l' is not one of none, upload, download, both"
	done
	[ -n "${QUEUES//,/}" ] && [ -n "${LOADS//,/}" ] || die "--queues and --loads need a name at least"
}

parse_args "$@"
TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=../tests/net/lib.sh
. "$TOP/tests/net/lib.sh"
RANT_PLOT=("$PYTHON" "$TOP/tools/rant-plot")

[ "$(id -u)" = 0 ] || die "needs root for namespaces: sudo tools/bufferbloat.sh"
[ -x "$RANT" ] || die "$RANT is not built: make"
for c in ip tc iperf3 jq; do
	command -v "$c" >/dev/null || die "$c is not installed (sudo make deps)"
done
mkdir -p "$OUT" || die "cannot create $OUT; give another folder with -o DIR"
OUT=$(cd "$OUT" && pwd)

# ---- the namespaces ----

NS_C=bb-c-$UNIQ
NS_R=bb-r-$UNIQ
NS_W=bb-w-$UNIQ
NS_D1=bb-d1-$UNIQ
NS_D2=bb-d2-$UNIQ
NS_S=bb-s-$UNIQ
DEV_C=bbc$UNIQ	# the client's, toward the router
DEV_DOWN=bbrd$UNIQ	# the router's toward the client: the downlink's queue
DEV_UP=bbru$UNIQ	# the router's toward the wan: the uplink's queue
IP_C=10.44.0.1
IP_D1=10.44.11.1
IP_D2=10.44.12.1
IP_S=10.44.20.1

# link NS_A DEV_A ADDR_A NS_B DEV_B ADDR_B: a veth pair between two
# namespaces, addressed (ADDR/prefix) and up.
link() {
	ip link add "$2" netns "$1" type veth peer name "$5" netns "$4"
	ip -n "$1" addr add "$3" dev "$2"
	ip -n "$4" addr add "$6" dev "$5"
	ip -n "$1" link set "$2" up
	ip -n "$4" link set "$5" up
}

topology() {
	local ns
	for ns in "$NS_C" "$NS_R" "$NS_W" "$NS_D1" "$NS_D2" "$NS_S"; do
		ip netns add "$ns" || die "cannot create the namespace $ns"
		defer ip netns del "$ns"
		ip -n "$ns" link set lo up
	done
	link "$NS_C" "$DEV_C" "$IP_C/24" "$NS_R" "$DEV_DOWN" 10.44.0.254/24
	link "$NS_R" "$DEV_UP" 10.44.1.1/30 "$NS_W" "bbw$UNIQ" 10.44.1.2/30
	link "$NS_W" "bbw1$UNIQ" 10.44.11.254/24 "$NS_D1" "bbd1$UNIQ" "$IP_D1/24"
	link "$NS_W" "bbw2$UNIQ" 10.44.12.254/24 "$NS_D2" "bbd2$UNIQ" "$IP_D2/24"
	link "$NS_W" "bbws$UNIQ" 10.44.20.254/24 "$NS_S" "bbs$UNIQ" "$IP_S/24"
	ip -n "$NS_C" route add default via 10.44.0.254
	ip -n "$NS_R" route add default via 10.44.1.2
	ip -n "$NS_W" route add 10.44.0.0/24 via 10.44.1.1
	for ns in "$NS_D1" "$NS_D2" "$NS_S"; do
		ip -n "$ns" route add default via "$(ip -n "$ns" -j addr show scope global |
			jq -r '.[].addr_info[] | select(.family == "inet") | .local' | sed 's/\.1$/.254/')"
	done
	# the namespaces' own sysctls, gone with them
	ip netns exec "$NS_R" sysctl -qw net.ipv4.ip_forward=1
	ip netns exec "$NS_W" sysctl -qw net.ipv4.ip_forward=1
	ip netns exec "$NS_C" sysctl -qw net.ipv4.ping_group_range="0 2147483647"
}

# queue_text SPEC: what the queue is, as tc shows it: a pfifo of N
# packets under the tbf (Np), else tbf's own byte queue by its latency
# (a time) or its limit (a size).
queue_text() {
	if [[ $1 =~ ^[0-9]+p$ ]]; then
		echo "pfifo limit ${1%p}"
	elif [[ $1 =~ ^[0-9.]+(us|usec|ms|msec|s|sec|secs)$ ]]; then
		echo "tbf latency $1"
	else
		echo "tbf limit $1"
	fi
}

# queue_spec QUEUE: --large's or --small's value.
queue_spec() {
	if [ "$1" = large ]; then echo "$LARGE"; else echo "$SMALL"; fi
}

# queue QUEUE: the router's two tbf, each with the large or small queue,
# their counters from 0.
queue() {
	local spec dev rate args
	spec=$(queue_spec "$1")
	for dev in "$DEV_UP" "$DEV_DOWN"; do
		rate=$([ "$dev" = "$DEV_UP" ] && echo "$UP" || echo "$DOWN")
		tc -n "$NS_R" qdisc del dev "$dev" root 2>/dev/null || true
		if [[ $spec =~ ^[0-9]+p$ ]]; then
			# the tbf's byte queue, replaced by the pfifo at once
			args=(limit $((${spec%p} * 1514)))
		else
			read -ra args <<<"$(queue_text "$spec" | cut -d' ' -f2-)"
		fi
		tc -n "$NS_R" qdisc add dev "$dev" root handle 1: tbf rate "$rate" burst "$BURST" "${args[@]}" ||
			die "tc refused 'tbf rate $rate burst $BURST ${args[*]}' (see tc-tbf(8))"
		[[ $spec =~ ^[0-9]+p$ ]] || continue
		tc -n "$NS_R" qdisc add dev "$dev" parent 1:1 handle 10: pfifo limit "${spec%p}" ||
			die "tc refused 'pfifo limit ${spec%p}' under the tbf (see tc-pfifo(8))"
	done
}

# qdisc_json DEV: the router's tbf on DEV, its settings and counters.
qdisc_json() {
	tc -n "$NS_R" -s -j qdisc show dev "$1" root |
		jq -c '.[0] | {limit_bytes: .options.limit, rate_Bps: .options.rate, burst_bytes: .options.burst,
			bytes, packets, drops, overlimits}'
}

# ---- the processes ----

# OURS: the pids of the clients this script started and has not yet
# waited for (iperf3, rant): killed at exit, and no other.
declare -A OURS=()
kill_ours() {
	local p
	for p in "${!OURS[@]}"; do
		kill -9 "$p" 2>/dev/null
	done
	return 0
}

# ---- the loads ----

IPERF_PORT=5201	# the servers' first port, one a stream
LOAD_PIDS=()

servers() {
	local i
	for ((i = 0; i < UPLOADS + DOWNLOADS; i++)); do
		ns_bg "$NS_S" iperf3 -s -B "$IP_S" -p $((IPERF_PORT + i)) >/dev/null 2>&1
	done
	for ((i = 0; i < UPLOADS + DOWNLOADS; i++)); do
		wait_until 10 __tcp_port "$NS_S" $((IPERF_PORT + i)) ||
			die "iperf3 -s does not listen on $IP_S port $((IPERF_PORT + i))"
	done
}

# streams LOAD: the iperf3 streams of a load, "up" or "down" a word.
streams() {
	local i
	case $1 in upload|both) for ((i = 0; i < UPLOADS; i++)); do echo up; done ;; esac
	case $1 in download|both) for ((i = 0; i < DOWNLOADS; i++)); do echo down; done ;; esac
}

# __established N: N iperf3 streams of the client carry data.
__established() {
	[ "$(ip netns exec "$NS_C" ss -Htn state established "( dport >= :$IPERF_PORT and dport < :$((IPERF_PORT + 10)) )" |
		wc -l)" -ge "$1" ]
}

# load_start LOAD DIR: the load's iperf3 clients, each its JSON in DIR;
# returns once their data streams are up and SETTLE_S more have passed.
load_start() {
	local dir=$2 i=0 dir_word secs rev
	LOAD_PIDS=()
	secs=$((SETTLE_S + COUNT * INTERVAL_US / 1000000 + 60))
	for dir_word in $(streams "$1"); do
		rev=()
		[ "$dir_word" = up ] || rev=(-R)
		ip netns exec "$NS_C" iperf3 -c "$IP_S" -p $((IPERF_PORT + i)) -t "$secs" -J \
			"${rev[@]}" --logfile "$dir/iperf-$i-$dir_word.json" &
		LOAD_PIDS+=($!)
		OURS[$!]=1
		i=$((i + 1))
	done
	[ "$i" -gt 0 ] || return 0
	# each client opens a control connection and a data stream
	wait_until 15 __established $((2 * i)) || die "the iperf3 clients of '$1' did not connect (see $dir/iperf-*.json)"
	sleep "$SETTLE_S"
}

# load_stop: the iperf3 clients stopped (SIGINT: each writes its JSON).
load_stop() {
	local p
	for p in "${LOAD_PIDS[@]}"; do
		kill -INT "$p" 2>/dev/null || true
	done
	for p in "${LOAD_PIDS[@]}"; do
		wait "$p" 2>/dev/null || true
		unset "OURS[$p]"
	done
	LOAD_PIDS=()
}

# ---- measuring ----

# measure DIR: both destinations pinged at once by one rant, a fleet of
# two icmp targets named dest1 and dest2 (DIR/targets), COUNT echo
# requests each every INTERVAL_US (open loop, as ping); its JSON, log and
# text in DIR as fleet.*, each destination a target of them by its name.
# A reply later than 1 s (rant's longest --timeout) counts lost, and
# late when it comes.
measure() {
	local dir=$1 rc=0
	printf 'icmp %s name=dest1\nicmp %s name=dest2\n' "$IP_D1" "$IP_D2" >"$dir/targets"
	ip netns exec "$NS_C" "$RANT" emit -i "$DEV_C" --targets "$dir/targets" -c "$COUNT" \
		--interval "$INTERVAL_US" --timeout 1000000 --block -w 5 -d 0 \
		-l "$dir/fleet.log" -j "$dir/fleet.json" >"$dir/fleet.txt" 2>&1 &
	OURS[$!]=1
	wait "$!" || rc=$?
	unset "OURS[$!]"
	[ "$rc" = 0 ] || die "rant emit --targets exited $rc: $(tail -n 3 "$dir/fleet.txt")"
}

# plot_run QUEUE LOAD: the run's picture, OUT/QUEUE-LOAD.png: both
# destinations' round trips over time, their lost pings marked.
plot_run() {
	local dir=$OUT/$1-$2
	"${RANT_PLOT[@]}" pings "$dir/fleet.json" --log "$dir/fleet.log" -o "$OUT/$1-$2.png" \
		--title "$1 queue ($(queue_text "$(queue_spec "$1")"), up $UP, down $DOWN), $(load_words "$2")" \
		>/dev/null || die "rant-plot pings failed on $dir"
}

# ---- one run, the study ----

# load_words LOAD: the load as the origin named it.
load_words() {
	case $1 in
	none) echo "no load" ;;
	upload) echo "$UPLOADS uploads" ;;
	download) echo "$DOWNLOADS downloads" ;;
	both) echo "$UPLOADS uploads, $DOWNLOADS downloads" ;;
	esac
}

# throughput DIR DIRECTION: the load's bits/s in one direction, from iperf3's
# JSONs: what the client sent (up) or received (down, -R), the clients
# stopped by SIGINT.
throughput() {
	local f sum=0 v key
	key=$([ "$2" = up ] && echo sum_sent || echo sum_received)
	for f in "$1"/iperf-*-"$2".json; do
		[ -e "$f" ] || continue
		v=$(jq -r ".end.$key.bits_per_second // 0 | floor" "$f" 2>/dev/null || echo 0)
		sum=$((sum + v))
	done
	echo "$sum"
}

# run QUEUE LOAD: one run into OUT/QUEUE-LOAD/, its line in OUT/runs.jsonl.
run() {
	local q=$1 load=$2 dir=$OUT/$1-$2 t0 t1
	rm -rf "$dir"
	mkdir -p "$dir"
	echo "== $q queue ($(queue_text "$(queue_spec "$q")")), $(load_words "$load")"
	queue "$q"
	t0=$EPOCHREALTIME
	load_start "$load" "$dir"
	measure "$dir"
	t1=$EPOCHREALTIME
	jq -cn --arg q "$q" --arg load "$load" --arg words "$(load_words "$load")" \
		--argjson up "$(qdisc_json "$DEV_UP")" --argjson down "$(qdisc_json "$DEV_DOWN")" \
		--arg d1 "$IP_D1" --arg d2 "$IP_D2" --arg t0 "$t0" --arg t1 "$t1" '
		{queue: $q, load: $load, load_text: $words, dir: "\($q)-\($load)",
		 seconds: (($t1 | tonumber) - ($t0 | tonumber)),
		 qdisc: {up: $up, down: $down},
		 targets: [{name: "dest1", address: $d1, json: "\($q)-\($load)/fleet.json",
		            log: "\($q)-\($load)/fleet.log"},
		           {name: "dest2", address: $d2, json: "\($q)-\($load)/fleet.json",
		            log: "\($q)-\($load)/fleet.log"}]}' >"$dir/run.json"
	load_stop
	jq -c --argjson up_bps "$(throughput "$dir" up)" --argjson down_bps "$(throughput "$dir" down)" \
		'. + {load_bps: {up: $up_bps, down: $down_bps}}' "$dir/run.json" >>"$OUT/runs.jsonl"
	tc -n "$NS_R" -s qdisc show >"$dir/tc.txt"
	[ "$PLOT" = 0 ] || plot_run "$q" "$load"
}

# study_json: OUT/study.json, the settings and every run.
study_json() {
	jq -s --argjson count "$COUNT" --argjson interval "$INTERVAL_US" \
		--arg up "$UP" --arg down "$DOWN" --arg large "$(queue_text "$LARGE")" \
		--arg small "$(queue_text "$SMALL")" --arg burst "$BURST" --arg rant "$("$RANT" --version)" '
		{study: "bufferbloat", rant: $rant, count: $count, interval_ns: ($interval * 1000),
		 link: {up: $up, down: $down, burst: $burst},
		 queues: {large: $large, small: $small}, runs: .}' \
		"$OUT/runs.jsonl" >"$OUT/study.json"
	rm -f "$OUT/runs.jsonl"
}

# dest_figures JSON NAME: a destination's p50 and p99 (ms) and loss (%)
# from its run's JSON (a fleet's: of its target NAME).
dest_figures() {
	jq -r --arg n "$2" '(if .targets then (.targets[] | select(.name == $n)) else . end) |
		[(.metrics.rtt.percentiles["50"] // 0) / 1e6, (.metrics.rtt.percentiles["99"] // 0) / 1e6,
		 (if .counts.sent > 0 then 100 * .counts.lost / .counts.sent else 0 end)] | @tsv' "$1" |
		xargs printf '  %9.2f %9.2f %6.2f'
}

# table: p50, p99 and loss of each destination, a line a run.
table() {
	jq -r '.runs[] | [.queue, .load_text, (.load_bps.up / 1e6), (.load_bps.down / 1e6),
		(.qdisc.up.drops + .qdisc.down.drops), (.targets[] | .json, .name)] | @tsv' "$OUT/study.json" |
	while IFS=$'\t' read -r q words up down drops j1 n1 j2 n2; do
		printf '%-6s %-22s %5.1f %5.1f %6s' "$q" "$words" "$up" "$down" "$drops"
		dest_figures "$OUT/$j1" "$n1"
		dest_figures "$OUT/$j2" "$n2"
		echo
	done
}

main() {
	local q load
	rm -f "$OUT/runs.jsonl"
	topology
	servers
	defer kill_ours	# (first of the deferred: before the namespaces go)
	echo "bufferbloat: namespaces $NS_C $NS_R $NS_W $NS_D1 $NS_D2 $NS_S; up $UP, down $DOWN"
	for q in ${QUEUES//,/ }; do
		for load in ${LOADS//,/ }; do
			run "$q" "$load"
		done
	done
	study_json
	{
		printf '%-6s %-22s %5s %5s %6s  %29s  %29s\n' "" "" "up" "down" "" \
			"dest1 ($IP_D1)" "dest2 ($IP_D2)"
		printf '%-6s %-22s %5s %5s %6s' queue load Mbit/s Mbit/s drops
		printf '  %9s %9s %6s' p50_ms p99_ms loss% p50_ms p99_ms loss%
		echo
		table
	} | tee "$OUT/study.txt"
	[ "$PLOT" = 1 ] || return 0
	"${RANT_PLOT[@]}" bloat "$OUT/study.json" -d "$OUT" >/dev/null ||
		die "rant-plot bloat failed on $OUT/study.json"
	echo "bufferbloat: pictures $OUT/bloat-page.png and $OUT/QUEUE-LOAD.png"
}

main
if [ -n "${SUDO_UID:-}" ] && [ -n "${SUDO_GID:-}" ]; then
	chown -R "$SUDO_UID:$SUDO_GID" "$OUT"
fi
