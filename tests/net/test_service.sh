#!/usr/bin/env bash
# A rant run as a service: SIGHUP (logrotate's convention) closes the log
# written so far (renamed over -l's FILE, whole) and goes on in a new
# one. Rotated twice during a run, the three files, each with its header,
# hold every record once: their rows joined are the run's log, which
# logcheck.py recomputes the JSON's statistics from.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="service_sighup"

require_root
require_cmd jq
require_rant

# rows_in_temp: data rows in the log's temporary (the file being written).
rows_in_temp() {
	local t
	t=$(compgen -G "$WORK/e1.log.rant-*") || return 1
	[ "$(wc -l <"$t")" -gt 102 ]
}

# rotate N: SIGHUP once the new file has rows, then FILE moved to FILE.N.
rotate() {
	wait_until 10 rows_in_temp
	check_err $? "no rows in the log's temporary before rotation $1: $(ls "$WORK")"
	kill -HUP "$EM"
	wait_until 5 test -s "$WORK/e1.log"
	check_err $? "SIGHUP $1 did not close the log into $WORK/e1.log"
	mv "$WORK/e1.log" "$WORK/e1.log.$1"
}

service_sighup() {
	local rc out rows f
	setup_pair || skip_test "cannot create namespaces and veth"
	start_reflector r1
	emit_bg e1 -a "$IP_B" -c 30000 --interval 100 -l "$WORK/e1.log" -j "$WORK/e1.json"
	wait_measuring "$WORK/e1.txt"
	rotate 1
	rotate 2
	wait "$EM"; rc=$?
	stop_reflector
	check_err $rc "emitter exit $rc: $(tail -3 "$WORK/e1.txt")"
	for f in e1.log.1 e1.log.2 e1.log; do
		[ "$(head -1 "$WORK/$f")" = "$(head -1 "$WORK/e1.log")" ]
		check_err $? "$f does not start with the header: $(head -1 "$WORK/$f")"
	done
	{
		head -2 "$WORK/e1.log.1"
		for f in e1.log.1 e1.log.2 e1.log; do tail -n +3 "$WORK/$f"; done
	} >"$WORK/joined.log"
	rows=$(($(wc -l <"$WORK/joined.log") - 2))
	[ "$rows" = "$(jqv "$WORK/e1.json" .counts.sent)" ]
	check_err $? "$rows rows in the three files, $(jqv "$WORK/e1.json" .counts.sent) pings sent"
	awk 'NR > 2 && $1 + 0 <= prev + 0 && NR > 3 { bad = 1 } NR > 2 { prev = $1 } END { exit bad }' \
		"$WORK/joined.log"
	check_err $? "the joined rows' seqs do not rise"
	out=$("$PYTHON" "$TOP/tests/net/logcheck.py" "$WORK/joined.log" "$WORK/e1.json" RTT rtt)
	check_err $? "$out"
	log_test "SIGHUP twice: $rows rows in 3 files, each once, with headers"
}

tests_run
