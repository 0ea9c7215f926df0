#!/usr/bin/env bash
# Who may talk to the reflector (issue 14): --allow admits the emitter
# and drops (and counts) a ping or a TCP connection from another address;
# --key authenticates pings and pongs: a keyed pair measures, a ping
# without the key or with another key is counted and never answered, an
# emitter with a key tells a reflector without one; bad key files are
# refused at start. The runs that want every pong back give --timeout
# 1 s: on a loaded machine a pong can come later than the default 100 ms.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="guard_allow guard_allow_tcp guard_key guard_key_tcp guard_key_missing
	guard_key_wrong guard_key_reflector_without guard_key_files guard_stale
	guard_log_room guard_planted_link guard_follow_links"

require_root
require_cmd jq ss taskset
require_rant

# The second address of A's side: a sender outside --allow.
OTHER=10.77.0.3

# pair_other: the pair, and $OTHER on A's veth.
pair_other() {
	setup_pair || skip_test "cannot create namespaces and veth"
	ip -n "$NS_A" addr add "$OTHER/24" dev "$VETH_A"
}

# key_file NAME [CONTENT]: a key file in $WORK, mode 600; its path.
key_file() {
	local f=$WORK/$1
	(umask 077; printf '%s' "${2-0123456789abcdef0123456789abcdef}" >"$f")
	echo "$f"
}

guard_allow() {
	local sent recv
	pair_other
	start_reflector ra -d 60 --allow "$IP_A/32" --allow fd00::/64 -j "$WORK/ra.json"
	emit -a "$IP_B" -c 300 --interval 200 --timeout 1000000 -j "$WORK/ea.json" >"$WORK/ea.txt" 2>&1
	check_err $? "the allowed emitter failed: $(tail -2 "$WORK/ea.txt")"
	ip netns exec "$NS_A" "$PYTHON" "$TOP/tests/net/udp_probe.py" "$IP_B" "$PORT" \
		forge c0ffee 1 "$OTHER" >"$WORK/probe.txt"
	stop_reflector
	sent=$(jqv "$WORK/ea.json" .counts.sent)
	recv=$(jqv "$WORK/ea.json" .counts.received)
	[ "$sent" = 300 ] && [ "$recv" = 300 ]
	check_err $? "the allowed emitter: sent $sent, received $recv (want 300, 300)"
	grep -qx 'forged reply=none' "$WORK/probe.txt"
	check_err $? "a ping from $OTHER was answered: $(cat "$WORK/probe.txt")"
	[ "$(jqv "$WORK/ra.json" .counts.not_allowed)" = 1 ]
	check_err $? "not_allowed $(jqv "$WORK/ra.json" .counts.not_allowed), want 1"
	[ "$(jqv "$WORK/ra.json" '[.sessions[].address | select(startswith("10.77.0.3 "))] | length')" = 0 ]
	check_err $? "the dropped ping started a session: $(jqv "$WORK/ra.json" .sessions)"
	[ "$(jqv "$WORK/ra.json" .counts.invalid)" = 0 ]
	check_err $? "the dropped ping was parsed (invalid $(jqv "$WORK/ra.json" .counts.invalid))"
	[ "$(jqv "$WORK/ra.json" '.config.allow | join(" ")')" = "$IP_A/32 fd00::/64" ]
	check_err $? "config.allow: $(jqv "$WORK/ra.json" .config.allow)"
	grep -q "not allowed 1" "$WORK/ra.txt"
	check_err $? "the text does not say 'not allowed 1': $(grep sessions "$WORK/ra.txt")"
	log_test "--allow: the emitter measured 300 of 300, a ping from $OTHER dropped and counted"
}

# A TCP connection from $OTHER: what it reads (EOF when closed at once).
tcp_from_other() {
	ip netns exec "$NS_A" "$PYTHON" -c '
import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=3,
                             source_address=(sys.argv[3], 0))
try:
    print("read=%d" % len(s.recv(100)))
except socket.timeout:
    print("read=timeout")
' "$IP_B" "$PORT" "$OTHER"
}

guard_allow_tcp() {
	local recv
	pair_other
	ip netns exec "$NS_B" taskset -c 1 "$RANT" -i "$VETH_B" --tcp -d 60 \
		--allow "$IP_A" -j "$WORK/rt.json" >"$WORK/rt.txt" 2>&1 &
	REFL=$!
	defer kill -9 "$REFL"
	wait_until 10 eval "ip netns exec $NS_B ss -Hltn 'sport = :$PORT' | grep -q ."
	check_err $? "the TCP reflector did not listen: $(tail -2 "$WORK/rt.txt")"
	tcp_from_other >"$WORK/other.txt" 2>&1
	grep -qx 'read=0' "$WORK/other.txt"
	check_err $? "a connection from $OTHER was not closed at once: $(cat "$WORK/other.txt")"
	emit -a "$IP_B" --tcp -c 200 --interval 200 --timeout 1000000 -j "$WORK/et.json" >"$WORK/et.txt" 2>&1
	check_err $? "the allowed TCP emitter failed: $(tail -2 "$WORK/et.txt")"
	stop_reflector
	recv=$(jqv "$WORK/et.json" .counts.received)
	[ "$recv" = 200 ]; check_err $? "the allowed TCP emitter received $recv of 200"
	[ "$(jqv "$WORK/rt.json" .counts.not_allowed)" = 1 ]
	check_err $? "not_allowed $(jqv "$WORK/rt.json" .counts.not_allowed), want 1"
	log_test "--allow over TCP: a connection from $OTHER closed at accept and counted"
}

guard_key() {
	local key sent recv resp
	setup_pair || skip_test "cannot create namespaces and veth"
	key=$(key_file k)
	start_reflector rk -d 60 --key "$key" -j "$WORK/rk.json"
	emit -a "$IP_B" --key "$key" -c 500 --interval 200 --timeout 1000000 -j "$WORK/ek.json" \
		>"$WORK/ek.txt" 2>&1
	check_err $? "the keyed emitter failed: $(tail -2 "$WORK/ek.txt")"
	stop_reflector
	sent=$(jqv "$WORK/ek.json" .counts.sent)
	recv=$(jqv "$WORK/ek.json" .counts.received)
	resp=$(jqv "$WORK/ek.json" .metrics.response.samples)
	[ "$recv" = 500 ] && [ "$sent" = 500 ]
	check_err $? "sent $sent, received $recv (want 500, 500)"
	[ "$resp" -ge 490 ]
	check_err $? "only $resp response samples: the pongs did not carry the reflector's stamps"
	[ "$(jqv "$WORK/ek.json" .config.size)" = 88 ]
	check_err $? "default size with --key: $(jqv "$WORK/ek.json" .config.size), not 88"
	[ "$(jqv "$WORK/ek.json" '.counts.unauthenticated + .counts.invalid')" = 0 ] &&
		[ "$(jqv "$WORK/rk.json" .counts.unauthenticated)" = 0 ]
	check_err $? "unauthenticated messages in a keyed pair: $(jqv "$WORK/ek.json" .counts) $(jqv "$WORK/rk.json" .counts)"
	[ "$(jqv "$WORK/rk.json" .config.authenticated)" = true ]
	check_err $? "the reflector's JSON does not say authenticated"
	log_test "--key on both sides: 500 of 500 measured, with the reflector's stamps"
}

guard_key_tcp() {
	local key recv
	setup_pair || skip_test "cannot create namespaces and veth"
	key=$(key_file k)
	ip netns exec "$NS_B" taskset -c 1 "$RANT" -i "$VETH_B" --tcp -d 60 --key "$key" \
		-j "$WORK/rk.json" >"$WORK/rk.txt" 2>&1 &
	REFL=$!
	defer kill -9 "$REFL"
	wait_until 10 eval "ip netns exec $NS_B ss -Hltn 'sport = :$PORT' | grep -q ."
	emit -a "$IP_B" --tcp --key "$key" -c 200 --interval 200 --timeout 1000000 -j "$WORK/ek.json" \
		>"$WORK/ek.txt" 2>&1
	check_err $? "the keyed TCP emitter failed: $(tail -2 "$WORK/ek.txt")"
	stop_reflector
	recv=$(jqv "$WORK/ek.json" .counts.received)
	[ "$recv" = 200 ]; check_err $? "received $recv of 200 over TCP with --key"
	log_test "--key over TCP: 200 of 200 measured"
}

# keyed_reflector_refuses EMITTER_ARGS...: a reflector with a key, an
# emitter with ARGS: the emitter gets no pong (exit 2, its message in
# $WORK/e.txt) and the reflector counts every ping unauthenticated.
keyed_reflector_refuses() {
	local key rc unauth
	setup_pair || skip_test "cannot create namespaces and veth"
	key=$(key_file k)
	start_reflector rk -d 60 --key "$key" -j "$WORK/rk.json"
	emit -a "$IP_B" -w 20 -c 10 --timeout 1000 --warmup-timeout 2 "$@" >"$WORK/e.txt" 2>&1
	rc=$?
	stop_reflector
	[ "$rc" = 2 ]; check_err $? "the emitter exited $rc, not 2: $(tail -2 "$WORK/e.txt")"
	unauth=$(jqv "$WORK/rk.json" .counts.unauthenticated)
	[ "$unauth" -ge 20 ]
	check_err $? "the reflector counted $unauth unauthenticated pings (20 or more were sent)"
	[ "$(jqv "$WORK/rk.json" '.sessions | length')" = 0 ] &&
		[ "$(jqv "$WORK/rk.json" '.counts.sent + .counts.received + .counts.warmup')" = 0 ]
	check_err $? "an unauthenticated ping touched a session or was answered: $(jqv "$WORK/rk.json" .counts)"
	grep -q "unauthenticated $unauth" "$WORK/rk.txt"
	check_err $? "the reflector's text does not say 'unauthenticated $unauth'"
}

guard_key_missing() {
	keyed_reflector_refuses
	log_test "--key: pings without a MAC are counted and never answered"
}

guard_key_wrong() {
	local other
	other=$(key_file other fedcba9876543210fedcba9876543210)
	keyed_reflector_refuses --key "$other"
	grep -q "same --key" "$WORK/e.txt"
	check_err $? "the emitter's message does not point at the key: $(tail -1 "$WORK/e.txt")"
	log_test "--key: pings under another key are counted and never answered"
}

guard_key_reflector_without() {
	local key rc
	setup_pair || skip_test "cannot create namespaces and veth"
	key=$(key_file k)
	start_reflector rn -d 60 -j "$WORK/rn.json"
	emit -a "$IP_B" --key "$key" -w 20 -c 10 --warmup-timeout 2 -j "$WORK/e.json" >"$WORK/e.txt" 2>&1
	rc=$?
	stop_reflector
	[ "$rc" = 2 ]; check_err $? "the emitter exited $rc, not 2: $(tail -2 "$WORK/e.txt")"
	grep -q "carry no MAC: the reflector runs without --key" "$WORK/e.txt"
	check_err $? "the emitter does not say the reflector has no key: $(tail -1 "$WORK/e.txt")"
	[ "$(jqv "$WORK/e.json" .counts.unauthenticated)" -ge 20 ]
	check_err $? "the emitter counted $(jqv "$WORK/e.json" .counts.unauthenticated) unauthenticated pongs"
	log_test "--key: an emitter tells a reflector without a key"
}

# key_refused NAME PATTERN FILE: exit 1 with one line matching PATTERN.
key_refused() {
	refused "$1" "$2" "$NS_A" -i "$VETH_A" -a "$IP_B" --key "$3" -c 5
}

guard_key_files() {
	local f
	setup_pair || skip_test "cannot create namespaces and veth"
	key_refused missing "No such file.*head -c 32 /dev/urandom" "$WORK/none"
	f=$(key_file open)
	chmod 644 "$f"
	key_refused "mode 644" "chmod 600 $f" "$f"
	key_refused empty "empty" "$(key_file empty '')"
	key_refused short "15 bytes is too short" "$(key_file short 0123456789abcde)"
	key_refused directory "not a regular file \(a directory\)" "$WORK"
	# a blocking open of a FIFO would wait for a writer forever
	mkfifo -m 600 "$WORK/fifo"
	key_refused fifo "not a regular file \(a FIFO\)" "$WORK/fifo"
	log_test "--key: missing, open, empty, short, directory and FIFO keys refused in one line"
}

# A rant killed (SIGKILL) while setting up its outputs leaves its
# temporaries (-S's log, written at the end, stays one all the run; a
# streamed log takes its name at the end of set-up); the next rant
# writing there names each, with the command that removes it, and
# removes none.
guard_stale() {
	local pid rc out=$WORK/out n
	setup_pair || skip_test "cannot create namespaces and veth"
	mkdir "$out"
	ip netns exec "$NS_B" "$RANT" -i "$VETH_B" -s -d 100 -S -l "$out/r.log" -j "$out/r.json" \
		>"$WORK/r1.txt" 2>&1 &
	pid=$!
	defer kill -9 "$pid"
	wait_until 5 compgen -G "$out/r.json.rant-$pid-*" >/dev/null
	check_err $? "no temporary output appeared: $(cat "$WORK/r1.txt")"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	n=$(compgen -G "$out/*.rant-$pid-*" | wc -l)
	[ "$n" = 2 ]; check_err $? "$n temporaries left by the killed rant, not 2: $(ls "$out")"
	ip netns exec "$NS_B" "$RANT" -i "$VETH_B" -d 0.5 -l "$out/r.log" -j "$out/r.json" \
		>"$WORK/r2.txt" 2>"$WORK/r2.err"
	rc=$?
	[ "$rc" = 0 ]; check_err $? "the next rant exited $rc: $(cat "$WORK/r2.err")"
	[ "$(grep -c "a temporary output of rant pid $pid, which is gone.*rm -- '$out/r\.\(log\|json\)\.rant-$pid-" "$WORK/r2.err")" = 2 ]
	check_err $? "the next rant did not name both: $(cat "$WORK/r2.err")"
	[ "$(compgen -G "$out/*.rant-$pid-*" | wc -l)" = 2 ] && [ -s "$out/r.json" ]
	check_err $? "the temporaries were removed, or the new outputs not written: $(ls "$out")"
	log_test "stale temporaries of a killed rant: each named with its rm command, none removed"
}

# small_fs ARGS...: rant ARGS on B's veth writing into $WORK/small, a
# tmpfs of 1 MiB mounted in a mount namespace of its own (gone with it).
small_fs() {
	ip netns exec "$NS_B" unshare -m --propagation private sh -c \
		'mount -t tmpfs -o size=1m "$1" "$2" && shift 2 && exec "$@"' \
		sh "rant-test-$UNIQ" "$WORK/small" "$RANT" -i "$VETH_B" "$@"
}

# -l on a file system without room for the log as sized: one line with
# the need and the free space, exit 1, before the port is bound.
guard_log_room() {
	local rc
	setup_pair || skip_test "cannot create namespaces and veth"
	mkdir "$WORK/small"
	small_fs -c 100000 -d 1 -l "$WORK/small/r.log" >"$WORK/out.txt" 2>"$WORK/err.txt"
	rc=$?
	[ "$rc" = 1 ] && [ "$(wc -l <"$WORK/err.txt")" = 1 ]
	check_err $? "exit $rc (not 1), stderr: $(cat "$WORK/err.txt")"
	grep -Eq "a log of up to 100000 records needs about [0-9.]+ MiB, and its file system has (0\.[0-9]|1\.0) MiB free" "$WORK/err.txt"
	check_err $? "the line does not give the need and the free space: $(cat "$WORK/err.txt")"
	! grep -q 'Latency Statistics' "$WORK/out.txt"; check_err $? "a summary was printed"
	small_fs -c 5000 -d 0.3 -l "$WORK/small/r.log" >"$WORK/out2.txt" 2>"$WORK/err2.txt"
	rc=$?
	[ "$rc" = 0 ]; check_err $? "a log that fits was refused (exit $rc): $(cat "$WORK/err2.txt")"
	# -d alone: an estimate, so a warning, and the run goes on
	small_fs -d 0.3 -l "$WORK/small/r.log" >"$WORK/out3.txt" 2>"$WORK/err3.txt"
	rc=$?
	[ "$rc" = 0 ] && grep -Eq '^warning: -l .*could reach [0-9.]+ MiB.*if it fills, the run stops there' "$WORK/err3.txt"
	check_err $? "-d alone: exit $rc, stderr: $(cat "$WORK/err3.txt")"
	mountpoint -q "$WORK/small"; check_fail $? "the tmpfs outlived its mount namespace"
	log_test "-l without room on its file system: refused in one line before any packet (-c), warned (-d)"
}

# refused NAME PATTERN NS ARGS...: rant ARGS in NS exits 1 with one line
# on stderr matching PATTERN, before measuring anything.
refused() {
	local rc name=$1 pat=$2 ns=$3
	shift 3
	ip netns exec "$ns" timeout 10 "$RANT" "$@" >"$WORK/out.txt" 2>"$WORK/err.txt"
	rc=$?
	[ "$rc" = 1 ] && [ "$(wc -l <"$WORK/err.txt")" = 1 ]
	check_err $? "$name: exit $rc (want 1), stderr: $(cat "$WORK/err.txt")"
	grep -Eq -- "$pat" "$WORK/err.txt"
	check_err $? "$name: the message does not match '$pat': $(cat "$WORK/err.txt")"
}

# out_refused NAME PATTERN ARGS...: a reflector with ARGS is refused.
out_refused() {
	local name=$1 pat=$2
	shift 2
	refused "$name" "$pat" "$NS_B" -i "$VETH_B" -d 0.3 "$@"
}

# A user plants a link in a sticky, world-writable directory (a /tmp of
# the test's own) to a file a root run must never replace (a decoy). With
# fs.protected_symlinks on and off, with and without --follow-links, -l,
# -j and --pcap refuse it in one line, and the decoy keeps its content;
# so does a link to a directory on the way.
guard_planted_link() {
	local ps old tmp=$WORK/tmp decoy=$WORK/decoy-passwd opt
	setup_pair || skip_test "cannot create namespaces and veth"
	old=$(sysctl -n fs.protected_symlinks) || skip_test "no fs.protected_symlinks"
	defer sysctl -qw fs.protected_symlinks="$old"
	mkdir -m 1777 "$tmp"
	echo "root:x:0:0:decoy" >"$decoy"
	ln -s "$decoy" "$tmp/x.log"
	ln -s "$WORK" "$tmp/d"
	chown -h nobody "$tmp/x.log" "$tmp/d"
	for ps in 1 0; do
		sysctl -qw fs.protected_symlinks=$ps
		for opt in -l -j --pcap; do
			out_refused "$opt, protected_symlinks=$ps" \
				"x.log is a symbolic link owned by uid 65534 in the sticky, world-writable directory $tmp, .*protected_symlinks" \
				"$opt" "$tmp/x.log"
		done
		out_refused "--follow-links, protected_symlinks=$ps" "owned by uid 65534" \
			--follow-links -l "$tmp/x.log"
		out_refused "a planted directory link, protected_symlinks=$ps" "$tmp/d is a symbolic link owned by uid 65534" \
			--follow-links -j "$tmp/d/decoy-passwd"
	done
	[ "$(cat "$decoy")" = "root:x:0:0:decoy" ]
	check_err $? "the decoy was replaced: $(head -c 200 "$decoy")"
	[ -L "$tmp/x.log" ] && [ "$(compgen -G "$tmp/*.rant-*" "$WORK/decoy*.rant-*" | wc -l)" = 0 ]
	check_err $? "the link was touched or a temporary left: $(ls -la "$tmp" "$WORK")"
	log_test "a link planted in a sticky /tmp is never followed (protected_symlinks 1 and 0)"
}

# Our own link to our own file: refused in a line that names the file it
# would replace, unless --follow-links, which writes the file and keeps
# the link. A link to a device (/dev/null) is written as a stream.
guard_follow_links() {
	local rc target=$WORK/real.json
	setup_pair || skip_test "cannot create namespaces and veth"
	echo old >"$target"
	ln -s "$target" "$WORK/link.json"
	out_refused "a link to a file" "link.json is a symbolic link to $target: .*--follow-links" \
		-j "$WORK/link.json"
	[ "$(cat "$target")" = old ]; check_err $? "the file was written without --follow-links"
	ip netns exec "$NS_B" "$RANT" -i "$VETH_B" -d 0.3 --follow-links -j "$WORK/link.json" \
		>"$WORK/out.txt" 2>"$WORK/err.txt"
	rc=$?
	[ "$rc" = 0 ] && [ -L "$WORK/link.json" ] && [ "$(jqv "$target" .mode)" = reflect ]
	check_err $? "--follow-links: exit $rc, $(cat "$WORK/err.txt"); the file: $(head -c 100 "$target")"
	ln -s /dev/null "$WORK/null.log"
	ip netns exec "$NS_B" "$RANT" -i "$VETH_B" -d 0.3 -l "$WORK/null.log" >"$WORK/out.txt" 2>"$WORK/err.txt"
	rc=$?
	[ "$rc" = 0 ] && [ -L "$WORK/null.log" ] && [ -c /dev/null ]
	check_err $? "a link to /dev/null: exit $rc, $(cat "$WORK/err.txt")"
	log_test "a link to a file needs --follow-links; a link to a device is a stream"
}

tests_run
