#!/usr/bin/env bash
# The server's side beside its packets (src/server/, --server-pid,
# --client-pid): Debian's nginx in another namespace than rant, with
# tcp_nodelay off on one port and on on another; the options read from
# its sockets, its writes per response, and the packets' Nagle verdict
# confirmed for the first and absent for the second; under 100
# connections, the requests' wait (server_queue) confirmed as the load:
# nginx wrote at once after each read; a small server
# with TCP_CORK set (tests/net/corkd.py) named cork, not Nagle; a
# server rant may not trace (CAP_SYS_PTRACE dropped): the fallback said
# in one line, tcp_info still shown; --client-pid of a wrk run; no
# descriptor of the server left open in rant.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="server_nagle server_nodelay server_queue server_cork server_noptrace
	server_client_wrk server_sockets"

require_root
require_cmd jq ss taskset nginx wrk capsh
require_rant

PORT_OFF=8080	# tcp_nodelay off
PORT_ON=8081	# tcp_nodelay on
CORK_PORT=9100

pair_nginx() {
	setup_pair || skip_test "cannot create namespaces and veth"
	nginx_start "$PORT_OFF" "$PORT_ON" || return 1
}

# srv NAME ARGS...: rant in NS_A probing $IP_B, text and JSON in $WORK.
srv() {
	local name=$1
	shift
	SRV_RC=0
	ip netns exec "$NS_A" taskset -c 0 timeout 120 "$RANT" -i "$VETH_A" -a "$IP_B" \
		-j "$WORK/$name.json" "$@" >"$WORK/$name.txt" 2>&1 || SRV_RC=$?
}

server_nagle() {
	local wpr
	pair_nginx || return
	srv off --http / --port "$PORT_OFF" --connections 10 -d 2 --server-pid auto
	wpr=$(jqv "$WORK/off.json" .server.writes_per_response)
	[ "$SRV_RC" = 0 ] && jq -e '.server.comm == "nginx" and .server.other_netns and
		.server.connections.count >= 10 and .server.connections.options_read >= 10 and
		.server.connections.tcp_nodelay == 0' "$WORK/off.json" >/dev/null
	check_err $? "tcp_nodelay off: $(jq -c '.server | del(.sockets)' "$WORK/off.json") (exit $SRV_RC: $(tail -2 "$WORK/off.txt"))"
	awk -v w="$wpr" 'BEGIN { exit !(w >= 1.9 && w <= 2.1) }'
	check_err $? "writes per response $wpr, not 2 (headers, then sendfile)"
	jq -e '.server.writes.second == "sendfile" and .server.verdict.kind == "nagle_confirmed"' \
		"$WORK/off.json" >/dev/null
	check_err $? "the Nagle verdict not confirmed by the server: $(jq -c '.server.writes, .server.verdict' "$WORK/off.json")"
	grep -q "verdict: nginx [0-9]*: TCP_NODELAY off on" "$WORK/off.txt"
	check_err $? "the text has no verdict line: $(grep -A8 '^server:' "$WORK/off.txt")"
	# the duplicated descriptors are closed: rant held none of nginx's
	log_test "--server-pid auto, tcp_nodelay off: $wpr writes per response, Nagle confirmed"
}

server_nodelay() {
	pair_nginx || return
	srv on --http / --port "$PORT_ON" --connections 10 -d 2 --server-pid "$NGINX"
	[ "$SRV_RC" = 0 ] && jq -e '.server.connections.options_read >= 10 and
		.server.connections.tcp_nodelay == .server.connections.options_read and
		(.server.verdict.kind // "none") != "nagle_confirmed" and
		([.diagnosis[]? | select(.kind == "nagle_delayed_ack")] | length) == 0' \
		"$WORK/on.json" >/dev/null
	check_err $? "tcp_nodelay on: $(jq -c '.server.connections, .server.verdict, .diagnosis' "$WORK/on.json") (exit $SRV_RC)"
	log_test "--server-pid PID, tcp_nodelay on: on on every connection, no Nagle verdict"
}

# 100 connections in a closed loop on one nginx worker: the requests
# wait for it before its read (server_queue), and its threads' read to
# first write is short: the verdict confirms the load.
server_queue() {
	pair_nginx || return
	srv queue --http / --port "$PORT_ON" --connections 100 -d 2 --server-pid "$NGINX"
	[ "$SRV_RC" = 0 ] && jq -e '([.diagnosis[]? | select(.kind == "server_queue")] | length) == 1 and
		([.diagnosis[]? | select(.kind == "server_time")] | length) == 0 and
		.server.verdict.kind == "server_queue_confirmed"' "$WORK/queue.json" >/dev/null &&
		grep -q "verdict: nginx [0-9]*: it wrote .* they waited before its read" "$WORK/queue.txt"
	check_err $? "100 connections: $(jq -c '.diagnosis, .server.verdict' "$WORK/queue.json") (exit $SRV_RC)"
	log_test "--server-pid, 100 connections: $(jq -r .server.verdict.line "$WORK/queue.json" | cut -c1-120)"
}

__cork_listening() {
	__tcp_port "$NS_B" "$CORK_PORT"
}

server_cork() {
	setup_pair || skip_test "cannot create namespaces and veth"
	ip netns exec "$NS_B" "$PYTHON" "$TOP/tests/net/corkd.py" "$CORK_PORT" >"$WORK/cork.log" 2>&1 &
	defer kill -9 "$!"
	wait_until 10 __cork_listening || { check_err 1 "corkd.py does not listen"; return; }
	srv cork --http / --port "$CORK_PORT" --connections 4 -d 2 --server-pid auto
	[ "$SRV_RC" = 0 ] && jq -e '.server.connections.tcp_cork >= 4 and
		.server.verdict.kind == "cork"' "$WORK/cork.json" >/dev/null
	check_err $? "TCP_CORK server: $(jq -c '.server.connections, .server.verdict, [.diagnosis[]?.kind]' "$WORK/cork.json") (exit $SRV_RC: $(tail -2 "$WORK/cork.txt"))"
	log_test "a server with TCP_CORK set: named cork ($(jq -r '[.diagnosis[]?.kind] | join(",")' "$WORK/cork.json") from the packets)"
}

server_noptrace() {
	pair_nginx || return
	SRV_RC=0
	ip netns exec "$NS_A" capsh --drop=cap_sys_ptrace -- -c \
		"exec taskset -c 0 timeout 60 '$RANT' -i '$VETH_A' -a '$IP_B' --http / --port $PORT_OFF --connections 4 -d 1 --server-pid auto -j '$WORK/np.json'" \
		>"$WORK/np.txt" 2>&1 || SRV_RC=$?
	[ "$SRV_RC" = 0 ] && jq -e '.server.connections.count >= 4 and .server.connections.options_read == 0 and
		(.server.connections.options_error | test("ptrace")) and .server.tcp_info.whole == false and
		([.server.sockets[] | select(.tcp_info.rtt_us > 0)] | length) >= 4' \
		"$WORK/np.json" >/dev/null
	check_err $? "without CAP_SYS_PTRACE: $(jq -c '.server.connections' "$WORK/np.json") (exit $SRV_RC: $(tail -2 "$WORK/np.txt"))"
	[ "$(grep -c 'ptrace' "$WORK/np.txt")" = 1 ]
	check_err $? "the fallback is not said in one line: $(grep ptrace "$WORK/np.txt")"
	log_test "a server rant may not trace: sock_diag's tcp_info, the fallback said once"
}

server_client_wrk() {
	local wpid
	pair_nginx || return
	ip netns exec "$NS_A" taskset -c 0 wrk -c 4 -t 1 -d 6s "http://$IP_B:$PORT_ON/" >"$WORK/wrk.txt" 2>&1 &
	wpid=$!
	defer kill -9 "$wpid"
	sleep 1
	srv cl --http / --port "$PORT_ON" --connections 2 -d 1 --client-pid "$wpid"
	[ "$SRV_RC" = 0 ] && jq -e '.client.connections.count >= 4 and
		.client.connections.tcp_nodelay == .client.connections.options_read and
		.client.connections.options_read >= 4 and .client.comm == "wrk"' "$WORK/cl.json" >/dev/null
	check_err $? "--client-pid of wrk: $(jq -c '.client | del(.sockets)' "$WORK/cl.json") (exit $SRV_RC: $(tail -2 "$WORK/cl.txt"))"
	log_test "--client-pid of wrk: TCP_NODELAY on on its $(jqv "$WORK/cl.json" .client.connections.count) connections, delayed ACKs $(jqv "$WORK/cl.json" .client.connections.delayed_acks)"
}

# rant sockets PID: every port nginx listens on; rant sockets :PORT -d
# beside a wrk run: its connections and its writes per response.
server_sockets() {
	local rc=0 wpid
	pair_nginx || return
	"$RANT" sockets "$NGINX" -j "$WORK/pid.json" >"$WORK/pid.txt" 2>&1 || rc=$?
	[ "$rc" = 0 ] && jq -e --argjson a "$PORT_OFF" --argjson b "$PORT_ON" '.mode == "sockets" and
		([.servers[].port] == [$a, $b]) and
		([.servers[].sockets[] | select(.state == "LISTEN")] | length) >= 2' \
		"$WORK/pid.json" >/dev/null
	check_err $? "rant sockets PID: exit $rc, $(jq -c '[.servers[]? | {port, owners}]' "$WORK/pid.json" 2>&1) $(head -3 "$WORK/pid.txt")"
	ip netns exec "$NS_A" taskset -c 0 wrk -c 4 -t 1 -d 5s "http://$IP_B:$PORT_OFF/" >"$WORK/wrk.txt" 2>&1 &
	wpid=$!
	defer kill -9 "$wpid"
	sleep 1
	rc=0
	"$RANT" sockets "$IP_B:$PORT_OFF" -d 1s -j "$WORK/port.json" >"$WORK/port.txt" 2>&1 || rc=$?
	[ "$rc" = 0 ] && jq -e '.servers[0].connections.count >= 4 and
		.servers[0].connections.tcp_nodelay == 0 and .servers[0].writes.responses > 10 and
		.servers[0].writes_per_response >= 1.9' "$WORK/port.json" >/dev/null
	check_err $? "rant sockets ADDR:PORT -d 1s: exit $rc, $(jq -c '.servers[0] | del(.sockets)' "$WORK/port.json" 2>&1)"
	grep -q "ESTAB  $IP_B:$PORT_OFF <- " "$WORK/port.txt"
	check_err $? "a socket's line is missing: $(grep -A3 'sockets (' "$WORK/port.txt")"
	rc=0
	"$RANT" sockets 10.0.0.1.5 >"$WORK/bad.txt" 2>&1 || rc=$?
	[ "$rc" = 1 ] && grep -q "is neither a pid nor \[ADDR\]:PORT" "$WORK/bad.txt"
	check_err $? "a bad target: exit $rc, $(cat "$WORK/bad.txt")"
	log_test "rant sockets PID, ADDR:PORT -d 1s: $(jqv "$WORK/port.json" .servers[0].writes_per_response) writes per response beside wrk"
	"$RANT" sockets "$IP_B:$PORT_OFF" -d 60s -j "$WORK/int.json" >"$WORK/int.txt" 2>&1 &
	local spid=$! t0=$EPOCHREALTIME
	sleep 1
	kill -INT "$spid"
	rc=0
	wait "$spid" || rc=$?
	[ "$rc" = 0 ] && jq -e '.servers[0].port' "$WORK/int.json" >/dev/null &&
		awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { exit !(b - a < 3) }'
	check_err $? "SIGINT during -d 60s: exit $rc, $(tail -2 "$WORK/int.txt")"
	log_test "rant sockets -d 60s: SIGINT ends the watch at once, its JSON written"
}

tests_run
