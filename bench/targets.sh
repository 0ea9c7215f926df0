#!/usr/bin/env bash
# The fleet emitter's rows of make bench (bench/README.md, "The fleet's
# emitter"): what the loop of --targets costs, as the share of one CPU
# it takes per 10,000 pings a second, and whether it keeps every pong.
# Targets at 10 pings a second each (addresses of the reflectors'
# namespace, as tests/net/test_fleet.sh's fleet_scale), rant --targets
# with --block on CPU 0, the reflectors on CPU 1 (one for each 4,000
# sessions: --max-sessions is 4,096 at most). The rows: 1,000 targets
# over one path and over --paths 4 (4 sockets, 4,000 sessions), and
# 10,000 targets over one path (100,000 pongs a second over the
# sockets of one port, 3 reflectors). Each round runs every row in a
# random order; a row's figure is the emitter's CPU time (user and
# system, /usr/bin/time) over its measured seconds, scaled to 10,000
# measured pings a second. The bench prints each row's median over the
# rounds with the lowest and highest, the peak RSS, the emitter's
# wake-ups a ping (its voluntary context switches over its pings: a
# ping a wake at 1, several pings a wake below), and each round's pings
# lost, datagrams dropped at the emitter's sockets (fleet.sockets[].drops)
# and at the reflectors' (their JSON's counts.socket_drops). Pings lost where
# neither socket dropped any were lost on the way or unanswered; a
# reflector that drops (its CPU cannot answer the row's rate) makes the
# row an emitter behind its schedule, and the bench says so.
#
# Environment:
#   TARGETS_ROUNDS=N   rounds (default 5)
#   TARGETS_SECONDS=S  each run's length (default 20)
#   TARGETS_ROWS=LIST  the rows, TARGETS:PATHS each (default
#                      "1000:1 1000:4 10000:1")
#   BENCH_QUICK=1      3 rounds of 5 s
# Raw outputs in bench/out/targets-bench/. Exits 0 when every run gave a
# figure (a report, not a test), 1 otherwise.
set -euo pipefail

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../tests/net/lib.sh
source "$BENCH/../tests/net/lib.sh"	# TOP, RANT, defer, setup_pair, wait_udp_port

if [ "${BENCH_QUICK:-0}" = 1 ]; then
	ROUNDS=${TARGETS_ROUNDS:-3}
	RUN_S=${TARGETS_SECONDS:-5}
else
	ROUNDS=${TARGETS_ROUNDS:-5}
	RUN_S=${TARGETS_SECONDS:-20}
fi
ROWS=${TARGETS_ROWS:-1000:1 1000:4 10000:1}
SESSIONS_PER_REFLECTOR=4000
OUT=$BENCH/out/targets-bench

say() { printf '%s\n' "$*" >&2; }

# reflectors N PATHS: how many reflectors N targets over PATHS need.
reflectors() {
	echo $(((($1 * $2) + SESSIONS_PER_REFLECTOR - 1) / SESSIONS_PER_REFLECTOR))
}

# targets N R: the file of N targets over R reflectors (ports PORT on).
targets() {
	local f=$OUT/targets-$1-$2 i
	[ -s "$f" ] || for ((i = 0; i < $1; i++)); do
		echo "10.99.$((i / 250)).$((i % 250 + 1)) $((PORT + i % $2))"
	done >"$f"
	echo "$f"
}

# run R N PATHS: "cpu_per_10k rss_kib pings_per_s lost drops wakes
# reflector_drops" of one run,
# against reflectors of its own (a session a target and path, a run's
# sessions never held by the one before).
run() {
	local f=$OUT/r$1-n$2-p$3 u s m p rc=0 nrefl refl=() tf rd
	nrefl=$(reflectors "$2" "$3")
	tf=$(targets "$2" "$nrefl")
	for ((p = 0; p < nrefl; p++)); do
		ip netns exec "$NS_B" taskset -c 1 "$RANT" -i "$VETH_B" --port $((PORT + p)) --block \
			--max-sessions 4096 --max-sessions-per-address 4096 -j "$f.reflector$p.json" \
			>"$f.reflector$p.txt" 2>&1 &
		refl+=($!)
	done
	for ((p = 0; p < nrefl; p++)); do
		wait_udp_port "$NS_B" $((PORT + p)) || rc=1
	done
	[ "$rc" = 0 ] && { ip netns exec "$NS_A" taskset -c 0 /usr/bin/time -f '%U %S %M %w' \
		-o "$f.time" "$RANT" -i "$VETH_A" --targets "$tf" --paths "$3" -d "$RUN_S" \
		--block --timeout 1000000 -j "$f.json" >"$f.txt" 2>&1 || rc=1; }
	kill -INT "${refl[@]}"
	wait "${refl[@]}" || true
	[ "$rc" = 0 ] || return 1
	read -r u s m w <"$f.time"
	rd=$(jq -s 'map(.counts.socket_drops) | add' "$f".reflector*.json) || return 1
	jq -r --arg u "$u" --arg s "$s" --arg m "$m" --arg w "$w" --arg rd "$rd" '
		((.end_ns - .start_ns) / 1e9) as $t | (.counts.sent / $t) as $rate |
		"\((($u | tonumber) + ($s | tonumber)) / $t * 10000 / $rate) \($m) \($rate) \(.counts.lost) \([.fleet.sockets[].drops] | add) \(($w | tonumber) / (.counts.sent + .counts.warmup)) \($rd)"' \
		"$f.json"
}

report() {
	awk '
	function median(a, n,   i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	function commas(v,   s) {
		s = sprintf("%d", v)
		while (s ~ /[0-9][0-9][0-9][0-9]/)
			sub(/[0-9][0-9][0-9]($|,)/, ",&", s)
		return s
	}
	{ k = $2 ":" $3; if (!(k in n)) keys[++nk] = k
	  n[k]++; c[k, n[k]] = $4; r[k, n[k]] = $5; w[k, n[k]] = $9; d[k] = d[k] (n[k] > 1 ? "/" : "") $8
	  l[k] = l[k] (n[k] > 1 ? "/" : "") $7; rd[k] = rd[k] (n[k] > 1 ? "/" : "") $10
	  if ($10 > 0) over[k] = 1
	  lo[k] = n[k] == 1 || $4 < lo[k] ? $4 : lo[k]; hi[k] = n[k] == 1 || $4 > hi[k] ? $4 : hi[k]
	  printf "round %d, %d targets, --paths %d: %.3f of a CPU per 10,000 pings/s (%.0f pings/s, %.3f wake-ups a ping, RSS %d KiB, lost %d, dropped at the emitter'"'"'s sockets %d, at the reflectors'"'"' %d)\n", $1, $2, $3, $4, $6, $9, $5, $7, $8, $10 }
	END {
		printf "\n%-48s %7s %7s %7s %6s %9s %10s  %s\n", "fleet emitter, CPU share per 10,000 pings/s",
			"median", "lowest", "highest", "rounds", "RSS KiB", "wakes/ping", "each round: lost; dropped at the emitter'"'"'s sockets; at the reflectors'"'"'"
		for (j = 1; j <= nk; j++) {
			k = keys[j]
			split(k, np, ":")
			for (i = 1; i <= n[k]; i++) { a[i] = c[k, i]; b[i] = r[k, i]; e[i] = w[k, i] }
			printf "%-48s %7.3f %7.3f %7.3f %6d %9d %10.3f  %s; %s; %s\n",
				commas(np[1]) " targets x 10/s, --block, --paths " np[2],
				median(a, n[k]), lo[k], hi[k], n[k], median(b, n[k]), median(e, n[k]), l[k], d[k], rd[k]
		}
		for (j = 1; j <= nk; j++)
			if (keys[j] in over) {
				split(keys[j], np, ":")
				printf "%s targets, --paths %s: the reflectors (CPU 1) dropped pings at their sockets: they could not answer the row'"'"'s rate on this machine, and the row is of an emitter behind its schedule, not the fleet'"'"'s cost\n", commas(np[1]), np[2]
			}
	}' "$OUT/rounds.tsv"
}

main() {
	local r row rows v failed=0 n max=0
	require_root
	require_cmd jq taskset shuf /usr/bin/time
	[ -x "$RANT" ] || { say "bench/targets.sh: $RANT is missing: make first"; exit 1; }
	rm -rf "$OUT"
	mkdir -p "$OUT"
	setup_pair || { say "bench/targets.sh: cannot create the veth pair"; exit 1; }
	read -ra rows <<<"$ROWS"
	for row in "${rows[@]}"; do
		n=${row%%:*}
		if ! [[ "$row" =~ ^[0-9]+:[0-9]+$ ]] || [ "$n" -lt 1 ] || [ "$n" -gt 60000 ]; then
			say "bench/targets.sh: TARGETS_ROWS: $row is not TARGETS:PATHS (1 to 60000 targets)"
			exit 1
		fi
		[ "$n" -gt "$max" ] && max=$n
	done
	for ((i = 0; i < max; i++)); do
		echo "addr add 10.99.$((i / 250)).$((i % 250 + 1))/32 dev $VETH_B"
	done | ip -n "$NS_B" -batch -
	ip -n "$NS_A" route add 10.99.0.0/16 via "$IP_B"
	say "bench/targets.sh: $ROUNDS rounds of $ROWS (targets x 10/s:paths) for $RUN_S s"
	: >"$OUT/rounds.tsv"
	for ((r = 1; r <= ROUNDS; r++)); do
		for row in $(shuf -e "${rows[@]}"); do
			if v=$(run "$r" "${row%%:*}" "${row##*:}") &&
			   [[ "$v" =~ ^[0-9.e+-]+\ [0-9]+\ [0-9.e+-]+\ [0-9]+\ [0-9]+\ [0-9.e+-]+\ [0-9]+$ ]]; then
				printf '%d\t%d\t%d\t%s\n' "$r" "${row%%:*}" "${row##*:}" "${v// /$'\t'}" \
					>>"$OUT/rounds.tsv"
			else
				say "bench/targets.sh: round $r, $row: no figure (see $OUT)"
				failed=1
			fi
		done
	done
	report | tee "$OUT/report.txt"
	exit "$failed"
}

main "$@"
