#!/usr/bin/env bash
# Prometheus metrics (--metrics FILE, --metrics-listen): promtool and
# prometheus_client's parser accept both outputs while the run goes on
# and at its end; a real Prometheus scrapes rant's /metrics and a
# node_exporter reading the --metrics file during a run, and its HTTP API
# gives the JSON's sent/lost counts and a p99 within one bucket of
# rant's; hostile HTTP (a huge header, a slow client, 1,000 connections)
# neither crashes rant nor stops its run (every -I interval has pings).
#
# Debian's prometheus and prometheus-node-exporter packages start their
# services on install where an init system runs them; this machine's
# /usr/sbin/policy-rc.d (exit 101) keeps them from starting. The tests
# start their own, inside the test's namespace, on loopback, with a
# temporary configuration and data directory, killed when the test ends.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="metrics_outputs metrics_prometheus metrics_hostile metrics_slow metrics_keepalive
	metrics_big_slow_link metrics_sessions
	metrics_sim_clock"

require_root
require_cmd jq curl promtool prometheus prometheus-node-exporter
require_rant

CHECK="$TOP/tests/net/promcheck.py"
MPORT=19464		# rant's --metrics-listen, on NS_A's loopback
PPORT=19090		# Prometheus
NPORT=19100		# node_exporter

pair() {
	setup_pair || skip_test "cannot create namespaces and veth"
}

# in_a CMD...: CMD in NS_A (where the emitter and its listener are).
in_a() {
	ip netns exec "$NS_A" "$@"
}

# scrape FILE: rant's /metrics into FILE; fails unless HTTP 200.
scrape() {
	[ "$(in_a curl -s -m 2 -o "$1" -w '%{http_code}' "http://127.0.0.1:$MPORT/metrics")" = 200 ]
}

# scrape_b FILE: the reflector's /metrics (NS_B) into FILE, as scrape.
scrape_b() {
	[ "$(ip netns exec "$NS_B" curl -s -m 2 -o "$1" -w '%{http_code}' \
		"http://127.0.0.1:$MPORT/metrics")" = 200 ]
}

# valid FILE WHAT: promtool and prometheus_client accept FILE.
valid() {
	local out
	out=$(promtool check metrics <"$1" 2>&1)
	check_err $? "$2: promtool check metrics: $out"
	out=$("$PYTHON" "$CHECK" "$1" 2>&1)
	check_err $? "$2: prometheus_client: $out"
}

# value FILE NAME: one sample's value (promcheck.py).
value() {
	"$PYTHON" "$CHECK" "$1" "$2" 2>/dev/null | awk -v n="$2" '$1 == n { print $2 }'
}

# scrape_counted FILE: a scrape into FILE that has pings sent.
scrape_counted() {
	scrape "$1" && [ "$(value "$1" rant_packets_sent_total)" -gt 0 ]
}

# A run with -s (the components) and both outputs on each side: the
# exposition during the run (scraped and the file) and at the end passes
# promtool and the parser; the end's counters are the JSON's.
metrics_outputs() {
	local rc live sent
	pair
	start_reflector r1 -s --metrics "$WORK/r1.prom" -j "$WORK/r1.json"
	emit_bg e1 -a "$IP_B" -d 4 -s -I 0.5 --interval 500 --metrics "$WORK/e1.prom" \
		--metrics-listen ":$MPORT" -j "$WORK/e1.json"
	wait_measuring "$WORK/e1.txt"
	wait_until 5 scrape_counted "$WORK/live.prom"
	check_err $? "no /metrics with a count on 127.0.0.1:$MPORT in NS_A: $(tail -3 "$WORK/e1.txt")"
	wait_until 5 test -s "$WORK/e1.prom"
	check_err $? "no --metrics file during the run"
	cp "$WORK/e1.prom" "$WORK/live-file.prom"
	kill -0 "$EM" 2>/dev/null
	check_err $? "the emitter ended before its live metrics were read"
	valid "$WORK/live.prom" "scraped during the run"
	valid "$WORK/live-file.prom" "the file during the run"
	live=$(value "$WORK/live.prom" rant_packets_sent_total)
	wait "$EM"; rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e1.txt")"
	check_err "$REFL_RC" "reflector exit $REFL_RC: $(tail -3 "$WORK/r1.txt")"
	valid "$WORK/e1.prom" "the emitter's file at the end"
	valid "$WORK/r1.prom" "the reflector's file at the end"
	sent=$(value "$WORK/e1.prom" rant_packets_sent_total)
	[ "$sent" = "$(jqv "$WORK/e1.json" .counts.sent)" ]
	check_err $? "the file's sent $sent, the JSON's $(jqv "$WORK/e1.json" .counts.sent)"
	[ "$(value "$WORK/e1.prom" rant_packets_lost_total)" = "$(jqv "$WORK/e1.json" .counts.lost)" ]
	check_err $? "the file's lost != the JSON's"
	[ -n "$live" ] && [ "$live" -gt 0 ] && [ "$live" -lt "$sent" ]
	check_err $? "sent while running $live, at the end $sent: not a live count"
	for m in rtt response network emit_tx emit_rx reflect_proc; do
		grep -q "rant_latency_seconds_count{metric=\"$m\"" "$WORK/e1.prom"
		check_err $? "no histogram of $m in the emitter's file"
	done
	grep -q '^rant_peer_offset_seconds{interface=' "$WORK/e1.prom"
	check_err $? "no peer offset gauge in the emitter's file at the end"
	[ "$(value "$WORK/r1.prom" rant_reflector_sessions_total)" = 1 ]
	check_err $? "the reflector's session count is not 1"
	compgen -G "$WORK/*.rant-*" >/dev/null
	check_fail $? "temporaries left: $(ls "$WORK")"
	log_test "metrics: promtool and prometheus_client, live and at the end"
}

# bucket_of SECONDS: the index of the first bound of the default ladder
# (10 per decade from 1 us) at or above it.
bucket_of() {
	awk -v v="$1" 'BEGIN { i = 0; while (1e-6 * 10 ^ (i / 10) * 0.999 < v) i++; print i }'
}

# promql QUERY: the first value of an instant query, or nothing.
promql() {
	in_a curl -s -m 2 -G "http://127.0.0.1:$PPORT/api/v1/query" --data-urlencode "query=$1" |
		jq -r '.data.result[0].value[1] // empty'
}

__equals() {
	[ "$(promql "$1")" = "$2" ]
}

__ready() {
	in_a curl -s -m 1 -o /dev/null "http://127.0.0.1:$1/$2"
}

# A Prometheus in NS_A scrapes the emitter's /metrics and a node_exporter
# reading its --metrics file, every 0.5 s, during a 6 s run: Prometheus
# sees the run's counts live, and from the file at the end sent and lost
# equal to the JSON's; histogram_quantile(0.99) within one bucket of
# rant's own p99.
metrics_prometheus() {
	local rc sent lost q p99 bq bp live
	pair
	mkdir -p "$WORK/tf" "$WORK/pdata"
	cat >"$WORK/prometheus.yml" <<-EOF2
	global:
	  scrape_interval: 500ms
	  scrape_timeout: 400ms
	scrape_configs:
	  - job_name: rant
	    static_configs: [{targets: ['127.0.0.1:$MPORT']}]
	  - job_name: node
	    static_configs: [{targets: ['127.0.0.1:$NPORT']}]
	EOF2
	ns_bg "$NS_A" prometheus --config.file="$WORK/prometheus.yml" \
		--storage.tsdb.path="$WORK/pdata" --web.listen-address="127.0.0.1:$PPORT" \
		>"$WORK/prometheus.log" 2>&1
	ns_bg "$NS_A" prometheus-node-exporter --web.listen-address="127.0.0.1:$NPORT" \
		--collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$WORK/tf" >"$WORK/node.log" 2>&1
	wait_until 30 __ready "$PPORT" -/ready
	check_err $? "Prometheus not ready in 30 s: $(tail -3 "$WORK/prometheus.log")"
	wait_until 10 __ready "$NPORT" metrics
	check_err $? "node_exporter not up in 10 s: $(tail -3 "$WORK/node.log")"
	start_reflector r1
	emit_bg e1 -a "$IP_B" -d 6 -I 0.5 --interval 200 --metrics "$WORK/tf/rant.prom" \
		--metrics-listen "127.0.0.1:$MPORT" -j "$WORK/e1.json"
	wait_measuring "$WORK/e1.txt"
	wait_until 10 eval '[ "$(promql "rant_packets_sent_total{job=\"rant\"} > 0")" ]'
	check_err $? "Prometheus never scraped a count from rant's /metrics"
	live=$(promql 'rant_packets_sent_total{job="rant"}')
	wait "$EM"; rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e1.txt")"
	sent=$(jqv "$WORK/e1.json" .counts.sent)
	lost=$(jqv "$WORK/e1.json" .counts.lost)
	wait_until 10 __equals 'rant_packets_sent_total{job="node"}' "$sent"
	check_err $? "Prometheus (node_exporter) sent $(promql 'rant_packets_sent_total{job="node"}'), the JSON's $sent"
	[ "$(promql 'rant_packets_lost_total{job="node"}')" = "$lost" ]
	check_err $? "Prometheus lost $(promql 'rant_packets_lost_total{job="node"}'), the JSON's $lost"
	[ -n "$live" ] && [ "$live" -le "$sent" ]
	check_err $? "the scraped live count $live, the end's $sent"
	q=$(promql 'histogram_quantile(0.99, sum by (le, peer) (rant_latency_seconds_bucket{job="node",metric="rtt"}))')
	p99=$(jqv "$WORK/e1.json" '.metrics.rtt.percentiles["99"] / 1e9')
	bq=$(bucket_of "$q")
	bp=$(bucket_of "$p99")
	[ -n "$q" ] && [ $((bq - bp)) -le 1 ] && [ $((bp - bq)) -le 1 ]
	check_err $? "histogram_quantile(0.99) $q s (bucket $bq), rant's p99 $p99 s (bucket $bp)"
	log_test "Prometheus: sent $sent, lost $lost; p99 $q s vs rant's $p99 s"
}

# Hostile HTTP at --metrics-listen during a 6 s run: a 100 KB header,
# a client sending a byte a second, 1,000 connections held open. rant
# ends its run with exit 0 with pings in every interval, and /metrics
# answers again afterwards.
metrics_hostile() {
	local rc out
	pair
	start_reflector r1
	emit_bg e1 -a "$IP_B" -d 6 -I 0.5 --metrics-listen ":$MPORT" -j "$WORK/e1.json"
	wait_measuring "$WORK/e1.txt"
	wait_until 5 scrape "$WORK/before.prom"
	check_err $? "no /metrics before the attack"
	out=$(in_a "$PYTHON" - "$MPORT" <<-'EOF2' 2>&1
	import resource, socket, sys, time
	port = int(sys.argv[1])
	soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
	resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
	def conn():
	    s = socket.socket()
	    s.settimeout(3)
	    s.connect(('127.0.0.1', port))
	    return s
	s = conn()
	try:
	    s.sendall(b'GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ' + b'a' * 100000 + b'\r\n\r\n')
	    head = s.recv(64)
	except OSError as e:
	    head = repr(e).encode()
	print('huge header:', head.split(b'\r\n')[0].decode(errors='replace'))
	slow = conn()
	slow.sendall(b'GET /metr')
	held, refused = [], 0
	for _ in range(1000):
	    try:
	        held.append(conn())
	    except OSError:
	        refused += 1
	for i in range(3):
	    time.sleep(1)
	    try:
	        slow.sendall(b'i')
	    except OSError:
	        print('slow client cut after', i, 's')
	        break
	print('held', len(held), 'refused', refused)
	for h in held:
	    h.close()
	EOF2
	)
	check_err $? "the attack script failed: $out"
	kill -0 "$EM" 2>/dev/null
	check_err $? "rant died during the attack: $(tail -3 "$WORK/e1.txt")"
	wait_until 5 scrape "$WORK/after.prom"
	check_err $? "no /metrics after the attack"
	wait "$EM"; rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc after the attack: $(tail -3 "$WORK/e1.txt")"
	jq -e '[.series[:-1][] | .sent] | length >= 10 and min > 0' "$WORK/e1.json" >/dev/null
	check_err $? "an interval of the run without a ping: $(jq -c '[.series[].sent]' "$WORK/e1.json")"
	log_test "hostile HTTP: $(echo "$out" | tr '\n' ' ')"
}

# scrape_from SRC FILE: /metrics into FILE from source address SRC; fails
# unless HTTP 200 within 3 s.
scrape_from() {
	[ "$(in_a curl -s -m 3 --interface "$1" -o "$2" -w '%{http_code}' \
		"http://127.0.0.1:$MPORT/metrics")" = 200 ]
}

# Slow clients at --metrics-listen (issue 33): 32 connections from two
# addresses (16 each) send a request one byte a second, and connect again
# when cut; a scraper from a third address tries 10 times, a second
# apart, and gets at least 8 answers. No slow connection is held longer
# than the whole-request bound (PROMHTTP_REQUEST_S, 3 s) and a margin.
metrics_slow() {
	local rc ok=0 i out done_line longest
	pair
	start_reflector r1
	emit_bg e1 -a "$IP_B" -d 120 -I 1 --metrics-listen ":$MPORT"
	wait_measuring "$WORK/e1.txt"
	wait_until 5 scrape "$WORK/before.prom"
	check_err $? "no /metrics before the attack"
	ns_bg "$NS_A" "$PYTHON" "$TOP/tests/net/slowhttp.py" 127.0.0.1 "$MPORT" 16 \
		127.0.0.2,127.0.0.3 60 >"$WORK/slow.txt" 2>&1
	wait_for_line "$WORK/slow.txt" '^ready ' 10
	check_err $? "the slow clients did not start: $(cat "$WORK/slow.txt")"
	for i in $(seq 10); do
		sleep 1		# the scraper's pace, not a wait
		scrape_from 127.0.0.4 "$WORK/s.$i.prom" && ok=$((ok + 1))
	done
	kill -TERM "$BGPID"
	wait_for_line "$WORK/slow.txt" '^done ' 10
	done_line=$(grep '^done ' "$WORK/slow.txt")
	kill -INT "$EM"
	wait "$EM"; rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e1.txt")"
	[ "$ok" -ge 8 ]
	check_err $? "the scraper from 127.0.0.4 got $ok of 10 answers beside the slow clients ($done_line)"
	longest=$(echo "$done_line" | sed -n 's/.* longest=\([0-9.]*\).*/\1/p')
	# the bound is 3 s; the margin is a loaded 2-CPU machine's (6.6 s seen
	# with two other suites running beside this one; 38 s and more before
	# the bound)
	awk -v l="$longest" 'BEGIN { exit !(l != "" && l <= 10) }'
	check_err $? "a slow connection was held ${longest:-?} s (want at most 3 s and a margin): $done_line"
	out="$ok of 10 scrapes answered; slow clients: ${done_line#done }"
	log_test "slow clients from two addresses: $out"
}

# Polite keep-alive scrapers from 20 addresses (4 connections each, the
# per-address limit: 80 for 64 slots), each scraping once a second on
# its kept connection: a scraper from a 21st address tries 10 times, a
# second apart, and is answered 10 times. On db30865 the holders kept
# every slot: 0 of 12.
metrics_keepalive() {
	local rc ok=0 i srcs done_line
	pair
	start_reflector r1
	emit_bg e1 -a "$IP_B" -d 120 -I 1 --metrics-listen ":$MPORT"
	wait_measuring "$WORK/e1.txt"
	wait_until 5 scrape "$WORK/before.prom"
	check_err $? "no /metrics before the holders"
	srcs=$(seq -s, -f '127.0.1.%g' 1 20)
	ns_bg "$NS_A" "$PYTHON" "$TOP/tests/net/slowhttp.py" 127.0.0.1 "$MPORT" 4 \
		"$srcs" 60 keepalive >"$WORK/keep.txt" 2>&1
	wait_for_line "$WORK/keep.txt" '^ready ' 10
	check_err $? "the holders did not start: $(cat "$WORK/keep.txt")"
	sleep 2		# every slot held, scraped on
	for i in $(seq 10); do
		scrape_from 127.0.2.1 "$WORK/s.$i.prom" && ok=$((ok + 1))
		sleep 1		# the scraper's pace, not a wait
	done
	kill -TERM "$BGPID"
	wait_for_line "$WORK/keep.txt" '^done ' 10
	done_line=$(grep '^done ' "$WORK/keep.txt")
	kill -INT "$EM"
	wait "$EM"; rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e1.txt")"
	[ "$ok" = 10 ]
	check_err $? "the scraper from 127.0.2.1 got $ok of 10 answers beside the holders ($done_line)"
	log_test "keep-alive holders from 20 addresses: $ok of 10 scrapes answered; ${done_line#done }"
}

# A 1,000-target fleet's exposition (over 3 MB) scraped across a 5 Mbit/s
# link (tbf on the emitter's side): each of two scrapes arrives whole
# (its length, its last line, promtool), though sending it takes over
# 5 s, past the request bound. On db30865 both were cut mid-body at 3 s.
metrics_big_slow_link() {
	local n=1000 i rc len ok=0 last
	pair
	for ((i = 0; i < n; i++)); do
		echo "addr add 10.99.$((i / 250)).$((i % 250 + 1))/32 dev $VETH_B"
		echo "10.99.$((i / 250)).$((i % 250 + 1))" >>"$WORK/targets"
	done | ip -n "$NS_B" -batch -
	ip -n "$NS_A" route add 10.99.0.0/16 via "$IP_B"
	start_reflector r1 --max-sessions 4096 --max-sessions-per-address 4096
	emit_bg e1 --targets "$WORK/targets" -d 120 --interval 1000000 -I 1 \
		--metrics-listen "$IP_A:$MPORT"
	wait_for_line "$WORK/e1.txt" '^measuring: [0-9]+ targets' "$MEASURE_WAIT_S"
	check_err $? "the fleet did not start measuring: $(tail -3 "$WORK/e1.txt")"
	sleep 2
	tc -n "$NS_A" qdisc add dev "$VETH_A" root tbf rate 5mbit burst 32kbit latency 400ms
	for i in 1 2; do
		ip netns exec "$NS_B" curl -s -m 30 -o "$WORK/big.$i.prom" -w '%{http_code} %{size_download} %{time_total}\n' \
			"http://$IP_A:$MPORT/metrics" >"$WORK/curl.$i.txt" 2>&1
		read -r rc len el <"$WORK/curl.$i.txt"
		last=$(tail -c 200 "$WORK/big.$i.prom" | tail -1)
		echo "scrape $i: HTTP $rc, $len bytes in $el s, last line: $last"
		[ "$rc" = 200 ] && [ "${len:-0}" -gt 3000000 ] &&
			promtool check metrics <"$WORK/big.$i.prom" >/dev/null 2>&1 &&
			ok=$((ok + 1))
	done
	tc -n "$NS_A" qdisc del dev "$VETH_A" root
	kill -INT "$EM"
	wait "$EM"; rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e1.txt")"
	[ "$ok" = 2 ]
	check_err $? "$ok of 2 scrapes of over 3 MB arrived whole over 5 Mbit/s: $(cat "$WORK"/curl.*.txt | tr '\n' ' ')"
	log_test "a $len-byte /metrics over 5 Mbit/s: $ok of 2 scrapes whole, $el s each"
}

# gauge_of FILE NAME: the value of NAME's one sample in FILE.
gauge_of() {
	"$PYTHON" "$CHECK" --series "$1" "$2" | awk '{ print $2 }'
}

# sim_scrape N: the emitter's /metrics into $WORK/c.N.prom, the time of
# the scrape (seconds since the epoch) in SCRAPED[N].
sim_scrape() {
	scrape "$WORK/c.$1.prom" || return 1
	SCRAPED[$1]=$EPOCHREALTIME
	grep -q '^rant_peer_offset_seconds' "$WORK/c.$1.prom"
}

# near LO V HI: LO <= V <= HI (seconds, any notation awk reads).
near() {
	awk -v lo="$1" -v v="$2" -v hi="$3" 'BEGIN { exit !(v != "" && lo <= v && v <= hi) }'
}

# Both ends on the simulated PHC NIC (tests/sim): the emitter's PHC
# 1 ms ahead of its system clock and drifting +50 ppm, the reflector's
# 3 ms ahead and drifting as much (so theta, the reflector's wire clock
# minus the emitter's, stays 2 ms). Scraped twice during the run (-I
# 0.5, --phc-interval 0.2), the gauges are live: the PHC offset is the
# model's at a moment of the last second before the scrape, and rose
# between the scrapes; the drift is 50 ppm; theta's median is 2 ms.
metrics_sim_clock() {
	local sim=$TOP/tests/sim/libsimnic.so t0 v lo hi env1 env2
	[ -r "$sim" ] || skip_test "the simulation is not built (make sim)"
	pair
	t0=$(date +%s%N)
	env1=(SIMNIC_IFACES="$VETH_A" SIMNIC_OFFSET_NS=1000000 SIMNIC_DRIFT_PPB=50000 SIMNIC_T0_NS="$t0")
	env2=(SIMNIC_IFACES="$VETH_B" SIMNIC_OFFSET_NS=3000000 SIMNIC_DRIFT_PPB=50000 SIMNIC_T0_NS="$t0")
	ip netns exec "$NS_B" env LD_PRELOAD="$sim" "${env2[@]}" taskset -c 1 "$RANT" \
		-i "$VETH_B" -j "$WORK/r1.json" >"$WORK/r1.txt" 2>&1 &
	REFL=$!
	defer kill -9 "$REFL"
	wait_udp_port "$NS_B" "$PORT"
	check_err $? "the reflector did not bind: $(tail -3 "$WORK/r1.txt")"
	ip netns exec "$NS_A" env LD_PRELOAD="$sim" "${env1[@]}" taskset -c 0 "$RANT" \
		-i "$VETH_A" -a "$IP_B" -d 5 -I 0.5 --phc-interval 0.2 --interval 1000 \
		--metrics-listen ":$MPORT" -j "$WORK/e1.json" >"$WORK/e1.txt" 2>&1 &
	EM=$!
	defer kill -9 "$EM"
	wait_measuring "$WORK/e1.txt"
	wait_until 5 sim_scrape 1
	check_err $? "no live scrape with the clock gauges: $(grep rant_p "$WORK/c.1.prom")"
	sleep 2		# the stimulus: 2 s of drift (100 us) between the scrapes
	wait_until 5 sim_scrape 2
	check_err $? "no second scrape"
	kill -INT "$EM"		# what it checks is scraped; -d 5 only bounds the run
	wait "$EM"
	check_err $? "emitter: $(tail -3 "$WORK/e1.txt")"
	stop_reflector
	[ "$(jqv "$WORK/e1.json" .timestamp_source)" = hardware ]
	check_err $? "not on the simulated NIC's stamps: $(jqv "$WORK/e1.json" .timestamp_source)"
	for n in 1 2; do
		valid "$WORK/c.$n.prom" "scrape $n"
		v=$(gauge_of "$WORK/c.$n.prom" rant_phc_offset_seconds)
		lo=$(awk -v t="${SCRAPED[n]}" -v t0="$t0" 'BEGIN { printf "%.9f", 1e-3 + 5e-5 * (t - 1 - t0 / 1e9) - 2e-6 }')
		hi=$(awk -v t="${SCRAPED[n]}" -v t0="$t0" 'BEGIN { printf "%.9f", 1e-3 + 5e-5 * (t - t0 / 1e9) + 2e-6 }')
		near "$lo" "$v" "$hi"
		check_err $? "scrape $n: PHC offset $v s, the model's in the second before: $lo .. $hi"
		v=$(gauge_of "$WORK/c.$n.prom" rant_phc_drift_ratio)
		near 4.95e-5 "$v" 5.05e-5
		check_err $? "scrape $n: PHC drift $v, the model's 5e-05"
		v=$(gauge_of "$WORK/c.$n.prom" rant_peer_offset_seconds)
		near 1.98e-3 "$v" 2.02e-3
		check_err $? "scrape $n: peer offset $v s, the models' 2 ms"
	done
	near 8e-5 "$(awk -v a="$(gauge_of "$WORK/c.1.prom" rant_phc_offset_seconds)" \
		-v b="$(gauge_of "$WORK/c.2.prom" rant_phc_offset_seconds)" 'BEGIN { print b - a }')" 2e-4
	check_err $? "the PHC offset did not move 2 s x 50 ppm between the scrapes"
	log_test "clock gauges live on the simulated NIC: PHC offset $(gauge_of "$WORK/c.1.prom" rant_phc_offset_seconds) then $(gauge_of "$WORK/c.2.prom" rant_phc_offset_seconds) s, drift $(gauge_of "$WORK/c.2.prom" rant_phc_drift_ratio), theta $(gauge_of "$WORK/c.2.prom" rant_peer_offset_seconds) s"
}

# per_session FILE WHAT: the reflector's per-session series of WHAT
# (received, sent) in FILE, "labels value" a line.
per_session() {
	"$PYTHON" "$CHECK" --series "$1" "rant_reflector_session_packets_$2_total"
}

# scrape_while PID PREFIX: the reflector's /metrics every 0.3 s while
# PID runs, into PREFIX.N.prom (N from $NSCRAPE on); each one valid.
scrape_while() {
	while kill -0 "$1" 2>/dev/null; do
		if scrape_b "$2.$NSCRAPE.prom"; then
			valid "$2.$NSCRAPE.prom" "scrape $NSCRAPE"
			NSCRAPE=$((NSCRAPE + 1))
		fi
		sleep 0.3
	done
}

# A reflector with --max-sessions 2 serves three emitters one after
# the other: its /metrics shows the session count and each session's
# packets, labelled by sender, id and ordinal, never more than 2
# sessions' series, the first session's gone once the third took its
# slot; no counter series goes back across the scrapes (the aggregate
# counts every session); at the end each session's series is the
# JSON's and the aggregate the sum of the three.
metrics_sessions() {
	local i n e ids got want out total=0 files=()
	pair
	start_reflector r1 --max-sessions 2 -I 0.3 --metrics-listen ":$MPORT" \
		--metrics "$WORK/r1.prom" -j "$WORK/r1.json"
	NSCRAPE=0
	for i in 1 2 3; do
		emit_bg "e$i" -a "$IP_B" -d 1.5 --interval 1000 -j "$WORK/e$i.json"
		scrape_while "$EM" "$WORK/s"
		wait "$EM"
		check_err $? "emitter e$i: $(tail -3 "$WORK/e$i.txt")"
		ids[i]=$(printf '%08x' "$(jqv "$WORK/e$i.json" .session)")
	done
	wait_until 3 scrape_b "$WORK/s.$NSCRAPE.prom" && NSCRAPE=$((NSCRAPE + 1))
	stop_reflector
	check_err "$REFL_RC" "reflector exit $REFL_RC: $(tail -3 "$WORK/r1.txt")"
	[ "$NSCRAPE" -ge 6 ]
	check_err $? "only $NSCRAPE scrapes of the reflector's /metrics"
	for ((n = 0; n < NSCRAPE; n++)); do
		[ "$(per_session "$WORK/s.$n.prom" received | wc -l)" -le 2 ]
		check_err $? "more than --max-sessions 2 sessions in scrape $n: $(per_session "$WORK/s.$n.prom" received)"
		files+=("$WORK/s.$n.prom")
	done
	out=$("$PYTHON" "$CHECK" --rising "${files[@]}" "$WORK/r1.prom" 2>&1)
	check_err $? "a counter went back: $out"
	per_session "$WORK/s.$((NSCRAPE - 1)).prom" received | grep -q "session=${ids[1]}"
	check_fail $? "the first session (${ids[1]}) still has a series after the third took its slot"
	[ "$("$PYTHON" "$CHECK" --series "$WORK/s.$((NSCRAPE - 1)).prom" rant_reflector_sessions |
		awk '{ print $2 }')" = 2 ]
	check_err $? "rant_reflector_sessions is not 2 at the end"
	valid "$WORK/r1.prom" "the reflector's file"
	for i in 2 3; do
		for e in received sent; do
			want=$(jq -r --arg id "${ids[i]}" ".sessions[] | select(.session == \$id) | .$e" "$WORK/r1.json")
			got=$(per_session "$WORK/r1.prom" "$e" | awk -v id="session=${ids[i]}" 'index($1, id) { print $2 }')
			[ -n "$want" ] && [ "$got" = "$want" ]
			check_err $? "session ${ids[i]} $e: the file's $got, the JSON's $want"
		done
		grep -q "ordinal=$i" <<<"$(per_session "$WORK/r1.prom" received | grep "session=${ids[i]}")"
		check_err $? "session ${ids[i]} is not the ${i}th: $(per_session "$WORK/r1.prom" received)"
	done
	for i in 1 2 3; do
		total=$((total + $(jqv "$WORK/e$i.json" .counts.received)))
	done
	[ "$(value "$WORK/r1.prom" rant_packets_received_total)" = "$(jqv "$WORK/r1.json" .counts.received)" ] &&
		[ "$(jqv "$WORK/r1.json" .counts.received)" -ge "$total" ]
	check_err $? "aggregate received $(value "$WORK/r1.prom" rant_packets_received_total), JSON $(jqv "$WORK/r1.json" .counts.received), the emitters' pongs $total"
	[ "$(value "$WORK/r1.prom" rant_reflector_sessions_evicted_total)" = 1 ]
	check_err $? "evicted $(value "$WORK/r1.prom" rant_reflector_sessions_evicted_total), not 1"
	log_test "sessions: $NSCRAPE scrapes, per-session series <= 2, none went back, the end's = the JSON's"
}

tests_run
