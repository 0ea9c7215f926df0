#!/usr/bin/env bash
# The origin's case, for tests/net/test_watch.sh and doc/pictures.sh (after
# lib.sh and setup_pair): Debian's nginx in $NS_B with tcp_nodelay off on
# PORT_OFF and on on PORT_ON (sendfile on, tcp_nopush off, a 600-byte page,
# keep-alive for the whole run), tcpdump capturing in $NS_B, wrk loading it
# from $NS_A with CONNS connections. Everything started is stopped when the
# caller's scope ends (defer).
# shellcheck disable=SC2034  # the callers read them

PORT_OFF=8080
PORT_ON=8081
CONNS=20

# nginx_start: nginx in NS_B, tcp_nodelay off on PORT_OFF, on on PORT_ON.
nginx_start() {
	mkdir -p "$WORK/www" "$WORK/tmp"
	head -c 600 /dev/zero | tr '\0' x >"$WORK/www/index.html"
	cat >"$WORK/nginx.conf" <<-EOF
		user root;
		worker_processes 1;
		daemon off;
		pid $WORK/nginx.pid;
		error_log $WORK/nginx-error.log;
		events { worker_connections 1024; }
		http {
			access_log off;
			sendfile on;
			tcp_nopush off;
			keepalive_requests 1000000;
			client_body_temp_path $WORK/tmp/body;
			proxy_temp_path $WORK/tmp/proxy;
			fastcgi_temp_path $WORK/tmp/fastcgi;
			uwsgi_temp_path $WORK/tmp/uwsgi;
			scgi_temp_path $WORK/tmp/scgi;
			server { listen $IP_B:$PORT_OFF; tcp_nodelay off; root $WORK/www; }
			server { listen $IP_B:$PORT_ON; tcp_nodelay on; root $WORK/www; }
		}
	EOF
	ip netns exec "$NS_B" nginx -p "$WORK" -e "$WORK/nginx-error.log" -c "$WORK/nginx.conf" \
		>"$WORK/nginx.txt" 2>&1 &
	NGINX=$!
	defer nginx_kill "$NGINX"
	wait_until 10 __both_listen
	check_err $? "nginx does not listen on $PORT_OFF and $PORT_ON: $(cat "$WORK/nginx-error.log" "$WORK/nginx.txt" 2>/dev/null | tail -3)"
}

__both_listen() {
	[ "$(ip netns exec "$NS_B" ss -Htln "( sport = :$PORT_OFF or sport = :$PORT_ON )" | wc -l)" = 2 ]
}

__no_connection() {
	[ "$(ip netns exec "$NS_B" ss -Htn state established \
		"( sport = :$PORT_OFF or sport = :$PORT_ON )" | wc -l)" = 0 ]
}

# cap_start NAME TCPDUMP_ARGS...: tcpdump in NS_B writing $WORK/NAME; returns
# once it listens. Pids in CAPS. Immediate mode: tcpdump stopped by SIGINT
# leaves the packets of its last unfinished block unread otherwise.
CAPS=()
cap_start() {
	local name=$1
	shift
	ip netns exec "$NS_B" tcpdump -n --immediate-mode -B 32768 "$@" -w "$WORK/$name" \
		>"$WORK/$name.txt" 2>&1 &
	CAPS+=("$!")
	defer kill -9 "$!"
	wait_for_line "$WORK/$name.txt" 'listening on' 10
	check_err $? "tcpdump $name did not start: $(tail -2 "$WORK/$name.txt")"
}

# cap_stop: every tcpdump stopped (SIGINT: each writes its file whole).
cap_stop() {
	local p
	for p in "${CAPS[@]}"; do
		kill -INT "$p" 2>/dev/null
	done
	for p in "${CAPS[@]}"; do
		wait "$p" 2>/dev/null
	done
	CAPS=()
}

# wrk_run PORT NAME: wrk from NS_A, 2 threads, CONNS connections, 3 s.
wrk_run() {
	ip netns exec "$NS_A" wrk -t 2 -c "$CONNS" -d 3s --latency "http://$IP_B:$1/" \
		>"$WORK/$2.txt" 2>&1
	check_err $? "wrk on port $1 failed: $(tail -3 "$WORK/$2.txt")"
}

# drops NAME: what tcpdump NAME said it dropped.
drops() {
	sed -n -E 's/^([0-9]+) packets dropped by kernel$/\1/p' "$WORK/$1.txt"
}

# traffic [SUFFIX]: wrk on the off port, then on the on port; every connection closed.
traffic() {
	wrk_run "$PORT_OFF" "wrk-off${1:-}"
	wrk_run "$PORT_ON" "wrk-on${1:-}"
	wait_until 10 __no_connection
	check_err $? "connections still open 10 s after wrk"
}
