#!/usr/bin/env bash
# A rant run as a service: -l's FILE exists from the start of the run
# and is written in place; SIGHUP (logrotate's convention) opens FILE
# again by its name (created when it was moved away) and nothing is ever
# renamed over it. Rotated twice during a run, in either order (move then
# SIGHUP, as logrotate does, or SIGHUP then move), and by logrotate
# itself with rant-emit(8)'s configuration, the files hold every record once:
# their rows joined are the run's log, which logcheck.py recomputes the
# JSON's statistics from.
# A pair that runs as the units run them (--block, --metrics) at 20,000
# pings a second for 30 s keeps its memory flat and its counters exact
# (service_soak; bench/soak.sh is the long version). The units as make
# install writes them pass systemd-analyze verify (service_units): this
# machine's PID 1 is not systemd, so they cannot be started here.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="service_sighup service_rotate service_logrotate service_copytruncate service_soak
	service_leaks
	service_units"

require_root
require_cmd jq curl
require_rant

# cat_log FILE: FILE's text (gunzipped when it ends in .gz).
cat_log() {
	case $1 in
	*.gz) zcat -- "$1" ;;
	*) cat -- "$1" ;;
	esac
}

# log_lines BASE: the lines of every file of BASE's rotation (BASE,
# BASE.N, BASE.N.gz) so far, and of a temporary of BASE (none once the
# run is set up; counted so that the rotations run on a rant that wrote
# the log into one until its end, and the test shows what that lost).
log_lines() {
	local f n=0
	for f in "$1" "$1".[0-9]* "$1".rant-*; do
		[ -f "$f" ] && n=$((n + $(cat_log "$f" | wc -l)))
	done
	echo "$n"
}

# log_grew BASE N: BASE's rotation holds more than N lines.
log_grew() {
	[ "$(log_lines "$1")" -gt "$2" ]
}

# join_logs BASE OUT: the files of BASE's rotation that hold bytes, each
# starting with the first one's header, joined in the order of their
# first rows' seqs into OUT (one header); "N files" in JOINED.
join_logs() {
	local f head="" nf=0
	: >"$2"
	while read -r _ f; do
		nf=$((nf + 1))
		if [ -z "$head" ]; then
			head=$(cat_log "$f" | head -2)
			echo "$head" >"$2"
		fi
		[ "$(cat_log "$f" | head -2)" = "$head" ]
		check_err $? "$f does not start with the header: $(cat_log "$f" | head -2)"
		cat_log "$f" | tail -n +3 >>"$2"
	done < <(for f in "$1" "$1".[0-9]*; do
			[ -s "$f" ] && echo "$(cat_log "$f" | awk 'NR == 3 { print $1 }') $f"
		done | sort -n)
	JOINED="$nf files"
}

# rows_once BASE JSON: the rows of BASE's rotation joined are the run's
# log: one a ping sent, seqs rising, the JSON's statistics (logcheck.py).
# "ROWS rows in N files" in ROWS_IN.
rows_once() {
	local rows sent out
	join_logs "$1" "$WORK/joined.log"
	rows=$(($(wc -l <"$WORK/joined.log") - 2))
	sent=$(jqv "$2" .counts.sent)
	ROWS_IN="$rows of $sent rows in $JOINED"
	[ "$rows" = "$sent" ]
	check_err $? "$ROWS_IN: $(ls -l "$1"*)"
	awk 'NR > 3 && $1 + 0 <= prev + 0 { bad = 1 } NR > 2 { prev = $1 } END { exit bad }' \
		"$WORK/joined.log"
	check_err $? "the joined rows' seqs do not rise"
	out=$("$PYTHON" "$TOP/tests/net/logcheck.py" "$WORK/joined.log" "$2" RTT rtt)
	check_err $? "$out"
}

# rotate ORDER N GROW: once the log has GROW more lines, FILE moved to FILE.N
# and SIGHUP, in ORDER: "move" (move, then SIGHUP: logrotate's order;
# then wait for the new FILE's rows) or "hup" (SIGHUP, then the move once
# the writer has written again, so after it opened FILE again).
rotate() {
	local n
	n=$(log_lines "$WORK/e1.log")
	wait_until 10 log_grew "$WORK/e1.log" $((n + $3))
	check_err $? "the log did not grow before rotation $2: $(ls -l "$WORK")"
	if [ "$1" = move ]; then
		mv "$WORK/e1.log" "$WORK/e1.log.$2"
		check_err $? "rotation $2: no $WORK/e1.log to move"
		kill -HUP "$EM"
		wait_until 10 test -s "$WORK/e1.log"
		check_err $? "SIGHUP $2 did not create $WORK/e1.log again"
	else
		n=$(log_lines "$WORK/e1.log")
		kill -HUP "$EM"
		wait_until 10 log_grew "$WORK/e1.log" "$n"
		check_err $? "no rows after SIGHUP $2"
		mv "$WORK/e1.log" "$WORK/e1.log.$2"
		check_err $? "rotation $2: no $WORK/e1.log to move"
	fi
}

# rotated ORDER COUNT INTERVAL: a run of COUNT pings, its log rotated
# twice in ORDER, a quarter of the run apart (the emitter's rows come
# about 1,024 pings late: its hold-back window; both rotations well before
# the end); every row once across the files.
rotated() {
	local rc
	setup_pair || skip_test "cannot create namespaces and veth"
	start_reflector r1
	emit_bg e1 -a "$IP_B" -c "$2" --interval "$3" -l "$WORK/e1.log" -j "$WORK/e1.json"
	wait_measuring "$WORK/e1.txt"
	[ -f "$WORK/e1.log" ]
	check_err $? "no $WORK/e1.log while the run goes on: $(ls "$WORK")"
	rotate "$1" 1 $(($2 / 4))
	rotate "$1" 2 $(($2 / 4))
	wait "$EM"; rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e1.txt")"
	rows_once "$WORK/e1.log" "$WORK/e1.json"
}

# SIGHUP, then the move, twice: the rows after each SIGHUP go on in the
# file it opened, which is then moved; no FILE at the end.
service_sighup() {
	rotated hup 30000 100
	log_test "SIGHUP then move, twice: $ROWS_IN, each once, with headers"
}

# Move, then SIGHUP, twice (logrotate's order) in a 5,000-ping run.
service_rotate() {
	rotated move 5000 1000
	log_test "move then SIGHUP, twice: $ROWS_IN, each once, with headers"
}

# rant-emit(8)'s logrotate configuration, as written but for the log's path
# and the postrotate command (this emitter's pid, not a unit's): Debian's
# logrotate, forced (-f) twice during a 5,000-ping run, with a state file
# of the test's own and a configuration naming only the test's log, a
# quarter of the run apart (as rotated()).
service_logrotate() {
	local rc n conf=$WORK/logrotate.conf
	require_cmd logrotate zcat
	setup_pair || skip_test "cannot create namespaces and veth"
	start_reflector r1
	emit_bg e1 -a "$IP_B" -c 5000 --interval 1000 -l "$WORK/e1.log" -j "$WORK/e1.json"
	wait_measuring "$WORK/e1.txt"
	awk '/^\.\\" logrotate: begin/ { on = 1; next } /^\.\\" logrotate: end/ { on = 0 } on' \
		"$TOP/rant-emit.8" | grep -v '^\.' | sed -e 's/\\-/-/g' |
		sed -e "s|/var/log/rant/emit.log|$WORK/e1.log|" \
		    -e "s|systemctl kill -s HUP rant-emit@NAME|kill -HUP $EM|" >"$conf"
	grep -q "^$WORK/e1.log {" "$conf" && grep -q "kill -HUP $EM" "$conf"
	check_err $? "rant-emit.8 has no logrotate configuration to test: $(cat "$conf")" || return
	for n in 1 2; do
		wait_until 10 log_grew "$WORK/e1.log" $(($(log_lines "$WORK/e1.log") + 1250))
		logrotate -v -s "$WORK/logrotate.state" -f "$conf" >"$WORK/logrotate.$n.txt" 2>&1
		check_err $? "logrotate $n: $(tail -5 "$WORK/logrotate.$n.txt")"
		wait_until 10 test -s "$WORK/e1.log"
		check_err $? "logrotate $n's SIGHUP did not create $WORK/e1.log again"
	done
	wait "$EM"; rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e1.txt")"
	rows_once "$WORK/e1.log" "$WORK/e1.json"
	log_test "logrotate as rant-emit(8) says, twice: $ROWS_IN ($(cd "$WORK" && echo e1.log*))"
}

# logrotate's copytruncate before any SIGHUP (a configuration without
# postrotate): the log copied aside and truncated in place, twice,
# during a 5,000-ping run. The log has no NUL byte and starts with its
# header again, its rows after the copies' (every row once across the
# files). On db30865 the rows went on at the old offset: a hole of NUL
# bytes and no header.
service_copytruncate() {
	local rc n nul conf=$WORK/logrotate.conf
	require_cmd logrotate
	setup_pair || skip_test "cannot create namespaces and veth"
	start_reflector r1
	emit_bg e1 -a "$IP_B" -c 5000 --interval 1000 -l "$WORK/e1.log" -j "$WORK/e1.json"
	wait_measuring "$WORK/e1.txt"
	printf '%s {\n\tcopytruncate\n\trotate 5\n\tmissingok\n}\n' "$WORK/e1.log" >"$conf"
	for n in 1 2; do
		wait_until 10 log_grew "$WORK/e1.log" $(($(log_lines "$WORK/e1.log") + 1250))
		logrotate -v -s "$WORK/logrotate.state" -f "$conf" >"$WORK/logrotate.$n.txt" 2>&1
		check_err $? "logrotate $n: $(tail -5 "$WORK/logrotate.$n.txt")"
	done
	wait "$EM"; rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e1.txt")"
	nul=$(tr -cd '\000' <"$WORK/e1.log" | wc -c)
	echo "after two copytruncates: $nul NUL bytes in $(stat -c %s "$WORK/e1.log") bytes, first line: $(head -1 "$WORK/e1.log" | cut -c1-60)"
	[ "$nul" = 0 ]
	check_err $? "$nul NUL bytes in $WORK/e1.log after copytruncate"
	# rows written between a copy and its truncation are lost: logrotate's
	# copytruncate says so; the rest are there, after their header
	join_logs "$WORK/e1.log" "$WORK/joined.log"
	n=$(($(wc -l <"$WORK/joined.log") - 2))
	[ "$n" -ge 2500 ] && [ "$n" -le "$(jqv "$WORK/e1.json" .counts.sent)" ]
	check_err $? "$n rows in $JOINED of $(jqv "$WORK/e1.json" .counts.sent) pings"
	log_test "logrotate copytruncate, twice: $nul NUL bytes, $n rows in $JOINED, each with its header"
}

MPORT=19466		# --metrics-listen, each side on its namespace's loopback
CHECK="$TOP/tests/net/promcheck.py"
SOAK_S=${SOAK_S:-30}		# seconds of the run sampled (bench/soak.sh: longer)
SOAK_EVERY=3			# seconds between samples
SOAK_GROWTH_KB=${SOAK_GROWTH_KB:-1024}	# VmRSS growth allowed after the warm-up

rss_kb() {
	awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"
}

# soak_scrape NS FILE: that side's /metrics into FILE (HTTP 200).
soak_scrape() {
	[ "$(ip netns exec "$1" curl -s -m 2 -o "$2" -w '%{http_code}' \
		"http://127.0.0.1:$MPORT/metrics")" = 200 ]
}

# metric FILE NAME: a counter's value (promcheck.py).
metric() {
	"$PYTHON" "$CHECK" "$1" "$2" 2>/dev/null | awk -v n="$2" '$1 == n { print $2 }'
}

# exact SIDE NAME KEY: the end's --metrics file of SIDE (e1, r1) has
# counter NAME equal to the JSON's .counts.KEY.
exact() {
	local got want
	got=$(metric "$WORK/$1.prom" "$2")
	want=$(jqv "$WORK/$1.json" ".counts.$3")
	[ -n "$got" ] && [ "$got" = "$want" ]
	check_err $? "$1: $2 $got in the metrics, the JSON's $3 $want"
}

# The pair as the units run it (--block, --metrics FILE) and serving
# /metrics, open loop at 20,000 pings a second, -l and -I 2 on both
# sides, for SOAK_S seconds: VmRSS of both processes sampled every
# SOAK_EVERY s grows at most SOAK_GROWTH_KB after the first third (the
# warm-up: the allocator's arenas fill to their high-water as the
# histograms' buckets do; measured flat from about 50 s on in a 90 s
# run); both sides' /metrics scraped at each sample, SIGHUP to both at
# the second sample (the log writer's first allocation, its arena, in
# the warm-up): no counter series goes back across the scrapes, the
# rotation and the end's file; at the end each side's counters equal its
# JSON's and the emitter's log rows (both files) its sent. A leak too
# small for this to see is service_leaks' to find.
service_soak() {
	local n rc out e0 r0 emax rmax e r w files_e=() files_r=() rows
	setup_pair || skip_test "cannot create namespaces and veth"
	start_reflector r1 --block -l "$WORK/r1.log" -I 2 --metrics "$WORK/r1.prom" \
		--metrics-listen ":$MPORT" -j "$WORK/r1.json"
	emit_bg e1 -a "$IP_B" -d 0 --block --open-loop --interval 50 -s -l "$WORK/e1.log" \
		-I 2 --metrics "$WORK/e1.prom" --metrics-listen ":$MPORT" -j "$WORK/e1.json"
	wait_measuring "$WORK/e1.txt"
	for ((n = 0; n < SOAK_S / SOAK_EVERY; n++)); do
		sleep "$SOAK_EVERY"	# the stimulus: SOAK_EVERY s more of the run
		kill -0 "$EM" 2>/dev/null
		check_err $? "the emitter ended at sample $n: $(tail -3 "$WORK/e1.txt")" || return
		e=$(rss_kb "$EM") r=$(rss_kb "$REFL")
		echo "$n $e $r" >>"$WORK/rss.txt"
		soak_scrape "$NS_A" "$WORK/e.$n.prom" && files_e+=("$WORK/e.$n.prom")
		soak_scrape "$NS_B" "$WORK/r.$n.prom" && files_r+=("$WORK/r.$n.prom")
		if [ "$n" = 1 ]; then
			mv "$WORK/e1.log" "$WORK/e1.log.1"
			kill -HUP "$EM" "$REFL"
			wait_until 5 test -s "$WORK/e1.log"
			check_err $? "SIGHUP did not open the emitter's log again"
		fi
	done
	kill -INT "$EM"
	wait "$EM"; rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e1.txt")"
	check_err "$REFL_RC" "reflector exit $REFL_RC: $(tail -3 "$WORK/r1.txt")"
	w=$((SOAK_S / SOAK_EVERY / 3 + 1))	# the line of the first sample after the warm-up
	read -r _ e0 r0 < <(sed -n "${w}p" "$WORK/rss.txt")
	emax=$(awk -v w="$w" 'NR > w && $2 > m { m = $2 } END { print m + 0 }' "$WORK/rss.txt")
	rmax=$(awk -v w="$w" 'NR > w && $3 > m { m = $3 } END { print m + 0 }' "$WORK/rss.txt")
	[ $((emax - e0)) -le "$SOAK_GROWTH_KB" ] && [ $((rmax - r0)) -le "$SOAK_GROWTH_KB" ]
	check_err $? "VmRSS grew after the warm-up (kB; sample, emitter, reflector): $(tr '\n' ';' <"$WORK/rss.txt")"
	[ "${#files_e[@]}" -ge $((SOAK_S / SOAK_EVERY - 1)) ] && [ "${#files_r[@]}" -ge $((SOAK_S / SOAK_EVERY - 1)) ]
	check_err $? "scrapes answered: emitter ${#files_e[@]}, reflector ${#files_r[@]}"
	out=$("$PYTHON" "$CHECK" --rising "${files_e[@]}" "$WORK/e1.prom" 2>&1)
	check_err $? "emitter: $out"
	out=$("$PYTHON" "$CHECK" --rising "${files_r[@]}" "$WORK/r1.prom" 2>&1)
	check_err $? "reflector: $out"
	exact e1 rant_packets_sent_total sent
	exact e1 rant_packets_received_total received
	exact e1 rant_packets_lost_total lost
	exact e1 rant_packets_late_total late
	exact e1 rant_packets_duplicate_total duplicate
	exact r1 rant_packets_received_total received
	exact r1 rant_packets_sent_total sent
	rows=$(($(wc -l <"$WORK/e1.log.1") + $(wc -l <"$WORK/e1.log") - 4))
	[ "$rows" = "$(jqv "$WORK/e1.json" .counts.sent)" ]
	check_err $? "the emitter's log has $rows rows in two files (moved, then SIGHUP), sent $(jqv "$WORK/e1.json" .counts.sent)"
	# the stimulus: a high rate (a loaded machine keeps some slots from it)
	[ "$(jqv "$WORK/e1.json" .counts.sent)" -ge $((SOAK_S * 10000)) ]
	check_err $? "sent $(jqv "$WORK/e1.json" .counts.sent) in ${SOAK_S} s: not half of 20,000 a second"
	log_test "soak ${SOAK_S} s open loop at --interval 50: VmRSS emitter $e0..$emax kB, reflector $r0..$rmax kB; sent $(jqv "$WORK/e1.json" .counts.sent), counters exact, none went back across SIGHUP"
}

# grind NS NAME ARGS...: rant ARGS under valgrind's memcheck in NS (no
# CPU pinning: valgrind runs it slowly), its output in $WORK/NAME.txt,
# its pid in GRIND.
grind() {
	local ns=$1 name=$2
	shift 2
	ip netns exec "$ns" valgrind -q --leak-check=full --errors-for-leak-kinds=definite \
		--error-exitcode=9 "$RANT" "$@" >"$WORK/$name.txt" 2>&1 &
	GRIND=$!
	defer kill -9 "$GRIND"
}

# Both sides under valgrind, with everything a service does every
# interval (-I 0.1: a live snapshot rendered, the --metrics file
# replaced, /metrics served and scraped, the interval line) and a SIGHUP
# that rotates the log: no block of memory is lost (a leak of a few
# bytes an interval is months' growth; this found --metrics' path
# leaked at every replacement), no invalid read or write.
service_leaks() {
	local rc i
	command -v valgrind >/dev/null || skip_test "no valgrind"
	setup_pair || skip_test "cannot create namespaces and veth"
	grind "$NS_B" r1 -i "$VETH_B" --block -d 0 -l "$WORK/r1.log" -I 0.1 \
		--metrics "$WORK/r1.prom" --metrics-listen ":$MPORT" -j "$WORK/r1.json"
	REFL=$GRIND
	wait_udp_port "$NS_B" "$PORT" 60
	check_err $? "the reflector did not bind under valgrind: $(tail -3 "$WORK/r1.txt")" || return
	grind "$NS_A" e1 -i "$VETH_A" -a "$IP_B" --block -d 6 --interval 1000 -s \
		-l "$WORK/e1.log" -I 0.1 --metrics "$WORK/e1.prom" --metrics-listen ":$MPORT" \
		-j "$WORK/e1.json"
	EM=$GRIND
	wait_measuring "$WORK/e1.txt"
	for i in 1 2 3 4 5; do
		wait_until 10 soak_scrape "$NS_A" "$WORK/e.$i.prom"
		wait_until 10 soak_scrape "$NS_B" "$WORK/r.$i.prom"
		[ "$i" != 2 ] || kill -HUP "$EM" "$REFL"
		sleep 0.5	# the stimulus: intervals between the scrapes
	done
	wait "$EM"; rc=$?
	check_err $rc "the emitter under valgrind exited $rc: $(grep -A6 '==[0-9]*== [^ ]' "$WORK/e1.txt" | head -20)"
	stop_reflector
	check_err "$REFL_RC" "the reflector under valgrind exited $REFL_RC: $(grep -A6 '==[0-9]*== [^ ]' "$WORK/r1.txt" | head -20)"
	[ -s "$WORK/e.5.prom" ] && [ -s "$WORK/r.5.prom" ]
	check_err $? "the scrapes under valgrind got nothing: $(ls -l "$WORK"/*.prom; tail -5 "$WORK/e1.txt")"
	log_test "valgrind: no leak, no bad access, emitter and reflector, -I 0.1 metrics, /metrics, SIGHUP"
}

# make install into a directory of the test's; systemd-analyze verify
# (man page lookup included) on an instance of each unit: the directives,
# the commands' paths (rant as installed), Documentation=man:rant(8).
service_units() {
	local d=$WORK/inst u out
	command -v systemd-analyze >/dev/null || skip_test "no systemd-analyze (the systemd package)"
	out=$(make -s -C "$TOP" install PREFIX="$d" 2>&1)
	check_err $? "make install PREFIX=$d: $out" || return
	u=$d/lib/systemd/system
	mkdir -p "$WORK/etc"
	cp "$u/rant-reflect@.service" "$u/rant-reflect@eth0.service"
	cp "$u/rant-emit@.service" "$u/rant-emit@lab.service"
	grep -q "^ExecStart=$d/bin/rant " "$u/rant-emit@lab.service"
	check_err $? "make install did not put its rant in ExecStart: $(grep ExecStart= "$u/rant-emit@lab.service")"
	out=$(MANPATH=$d/share/man systemd-analyze verify "$u/rant-reflect@eth0.service" \
		"$u/rant-emit@lab.service" 2>&1)
	check_err $? "systemd-analyze verify: $out"
	[ -z "$out" ]
	check_err $? "systemd-analyze verify warned: $out"
	log_test "units: systemd-analyze verify clean on rant-reflect@eth0 and rant-emit@lab as installed"
}

tests_run
