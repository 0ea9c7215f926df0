# lib/steps/net.sh: config.sh's network steps (net_*): the namespace the
# interface moves to, its address and link, busy-poll sysctls, IPv6,
# multicast, ARP, the static neighbour, the root qdisc; and the helpers that
# restore them (ns_delete, ns_move_home, link_home_restore, neigh_restore,
# qdisc_restore), which the journal names.
#
# Reads config.sh's globals: IFACE, IP_ADDR, IP_PFX, FAMILY, REMOTE_IP,
# REMOTE_MAC, BUSY_POLL, NO_NS, NS_NAME, NS_INSIDE, CUR_NS, TGT_NS,
# MOVE_PENDING, MODE, SD; sets CUR_NS and MOVE_PENDING once the interface has moved.
# shellcheck shell=bash
# shellcheck disable=SC2317  # reached from the STEPS table and the journal

# ns_listed NS: ip netns list names NS.
ns_listed() {
	ip netns list 2>/dev/null | awk '{print $1}' | grep -qxF "$1"
}

# ns_delete NS: remove a namespace config.sh created, if nothing is left in
# it (a name that no longer holds a namespace holds nothing); then it must
# be gone.
ns_delete() {
	local n
	ns_listed "$1" || return 0
	n=$(ip -n "$1" -j link show 2>/dev/null | jq '[.[] | select(.ifname != "lo")] | length') || n=0
	if [ "$n" -ne 0 ]; then
		echo "namespace $1 still holds interfaces; left in place" >&2
		return 1
	fi
	ip netns del "$1" || return 1
	! ns_listed "$1" || { echo "ip netns del $1: still listed" >&2; return 1; }
}

# ns_move_home NS IF: move IF from NS back to the namespace config.sh runs in.
# It is restored only when IF is here afterwards.
ns_move_home() {
	if ip -n "$1" link show dev "$2" >/dev/null 2>&1; then
		ip -n "$1" link set dev "$2" netns "$$" || return 1
	fi
	ip link show dev "$2" >/dev/null 2>&1 && return 0
	echo "$2 is neither in $1 nor here: it went with its namespace (a namespace made inside ip netns exec dies with it)" >&2
	return 1
}

# addrs_restore NS IF FILE: add back the addresses listed in FILE (ip -j addr).
addrs_restore() {
	local ns=$1 ifc=$2 file=$3 line
	while read -r line; do
		[ -n "$line" ] || continue
		# shellcheck disable=SC2086  # line holds several words
		ip ${ns:+-n "$ns"} addr replace $line dev "$ifc"
	done < <(jq -r '.[0].addr_info[]? | select(.scope != "link")
		| select((.dynamic // false) | not)
		| "\(.local)/\(.prefixlen)" + (if .broadcast then " brd \(.broadcast)" else "" end)
		+ (if .nodad then " nodad" else "" end)' "$file")
}

# routes_restore NS IF FILE: add back the non-kernel routes listed in FILE.
routes_restore() {
	local ns=$1 ifc=$2 file=$3 line
	while read -r line; do
		[ -n "$line" ] || continue
		# shellcheck disable=SC2086
		ip ${ns:+-n "$ns"} route replace $line dev "$ifc" || true
	done < <(jq -r '.[] | select(.protocol != "kernel" and .protocol != "ra")
		| .dst + (if .gateway then " via \(.gateway)" else "" end)
		+ (if .metric then " metric \(.metric)" else "" end)' "$file")
}

# link_home_restore NS IF ADDRFILE ROUTEFILE UP: after moving back: addresses,
# link state, routes.
link_home_restore() {
	addrs_restore "$1" "$2" "$3"
	if [ "$5" = up ]; then ip ${1:+-n "$1"} link set dev "$2" up; fi
	routes_restore "$1" "$2" "$4"
}

net_namespace() {
	if [ "$NO_NS" = 1 ]; then
		skipped "--no-namespace"
		return
	fi
	if [ "$CUR_NS" = "$NS_NAME" ]; then
		note "$IFACE in $NS_NAME"
		return
	fi
	if [ -n "$NS_INSIDE" ]; then
		skipped "config.sh runs inside $NS_INSIDE, not the initial one: $IFACE stays there (run rant there too)"
		return
	fi
	local n=$ST_CHANGED up=down
	if ! ns_listed "$NS_NAME"; then
		change "$(qcmd ns_delete "$NS_NAME")" ip netns add "$NS_NAME"
		change "" ip -n "$NS_NAME" link set lo up
	fi
	if [ "$MODE" = apply ]; then
		ip -j addr show dev "$IFACE" >"$SD/home_addrs.$n.json"
		{ ip -j -4 route show dev "$IFACE"; ip -j -6 route show dev "$IFACE"; } |
			jq -s 'add' >"$SD/home_routes.$n.json"
		ip -j link show dev "$IFACE" | jq -e '.[0].flags | index("UP")' >/dev/null && up=up
		journal_add "$(qcmd link_home_restore "" "$IFACE" \
			"$SD/home_addrs.$n.json" "$SD/home_routes.$n.json" "$up")"
	fi
	change "$(qcmd ns_move_home "$NS_NAME" "$IFACE")" ip link set dev "$IFACE" netns "$NS_NAME"
	note "moved $IFACE to $NS_NAME; addresses and routes saved"
	if [ -z "$ST_FAIL" ] && [ "$MODE" = apply ]; then
		CUR_NS=$NS_NAME
		MOVE_PENDING=0
	fi
}

net_address() {
	local have=0
	if [ "$MOVE_PENDING" = 0 ]; then
		rd ip -j addr show dev "$IFACE" | jq -e --arg a "$IP_ADDR" --argjson p "$IP_PFX" \
			'.[0].addr_info[] | select(.local == $a and .prefixlen == $p)' >/dev/null && have=1
	fi
	if [ "$have" = 1 ]; then
		note "$IP_ADDR/$IP_PFX"
		return
	fi
	local extra=()
	[ "$FAMILY" = 4 ] || extra=(nodad)
	change "$(qcmd ip ${TGT_NS:+-n "$TGT_NS"} addr del "$IP_ADDR/$IP_PFX" dev "$IFACE")" \
		ip ${TGT_NS:+-n "$TGT_NS"} addr add "$IP_ADDR/$IP_PFX" dev "$IFACE" "${extra[@]}"
	note "$IP_ADDR/$IP_PFX"
}

# link_flag FLAG: 0/1 whether the link shows FLAG (UP, MULTICAST, NOARP).
link_flag() {
	if rd ip -j link show dev "$IFACE" | jq -e --arg f "$1" '.[0].flags | index($f)' >/dev/null; then
		echo 1
	else
		echo 0
	fi
}

net_link() {
	if [ "$MOVE_PENDING" = 0 ] && [ "$(link_flag UP)" = 1 ]; then
		note up
		return
	fi
	change "$(qcmd ip ${TGT_NS:+-n "$TGT_NS"} link set dev "$IFACE" down)" \
		ip ${TGT_NS:+-n "$TGT_NS"} link set dev "$IFACE" up
	note up
}

net_busy_poll() {
	if [ -z "$BUSY_POLL" ]; then
		skipped "no --busy-poll; rant -p sets SO_BUSY_POLL per socket"
		return
	fi
	local s v
	for s in net.core.busy_poll net.core.busy_read; do
		if ! v=$(gsysctl "$s" 2>/dev/null); then
			unsupported "no $s here: it exists only in the initial network namespace"
			return
		fi
		[ "$v" = "$BUSY_POLL" ] && continue
		change "$(qcmd gsysctl "$s" "$v")" gsysctl "$s" "$BUSY_POLL"
		note "$s $BUSY_POLL (was $v)"
	done
}

# neigh_restore NS IF IP LLADDR: put a neighbour entry back ("" = none).
neigh_restore() {
	if [ -z "$4" ]; then
		ip ${1:+-n "$1"} neigh del "$3" dev "$2" 2>/dev/null || true
	else
		ip ${1:+-n "$1"} neigh replace "$3" lladdr "$4" dev "$2" nud permanent
	fi
}

net_neigh() {
	if [ -z "$REMOTE_MAC" ]; then
		skipped "no --remote-mac; the peer is resolved by ARP/NDP"
		return
	fi
	local j old='' ok=0
	if [ "$MOVE_PENDING" = 0 ]; then
		j=$(rd ip -j neigh show "$REMOTE_IP" dev "$IFACE")
		old=$(jq -r '.[0] | select(.state | index("PERMANENT")) | .lladdr // empty' <<<"$j")
		[ "$old" = "$REMOTE_MAC" ] && ok=1
	fi
	if [ "$ok" = 0 ]; then
		change "$(qcmd neigh_restore "$TGT_NS" "$IFACE" "$REMOTE_IP" "$old")" \
			ip ${TGT_NS:+-n "$TGT_NS"} neigh replace "$REMOTE_IP" lladdr "$REMOTE_MAC" dev "$IFACE" nud permanent
	fi
	note "$REMOTE_IP lladdr $REMOTE_MAC permanent"
}

net_ipv6() {
	local off=1 p v n=$ST_CHANGED
	[ "$FAMILY" = 4 ] || off=0
	p=/proc/sys/net/ipv6/conf/$IFACE/disable_ipv6
	if ! v=$(rfile "$CUR_NS" "$p" 2>/dev/null); then
		unsupported "no IPv6 in this kernel"
		return
	fi
	[ "$MOVE_PENDING" = 0 ] || v=$(rfile "" /proc/sys/net/ipv6/conf/default/disable_ipv6)
	if [ "$v" = "$off" ]; then
		note "disable_ipv6 $off"
		return
	fi
	if [ "$off" = 1 ] && [ "$MODE" = apply ]; then
		# Disabling IPv6 drops the interface's IPv6 addresses; keep them to add back.
		rd ip -j -6 addr show dev "$IFACE" >"$SD/addrs6.$n.json"
		journal_add "$(qcmd addrs_restore "$TGT_NS" "$IFACE" "$SD/addrs6.$n.json")"
	fi
	change "$(qcmd wfile "$TGT_NS" "$p" "$v")" wfile "$TGT_NS" "$p" "$off"
	note "disable_ipv6 $off (was $v)"
}

# link_turn_off WORD: ip link set ... WORD off (multicast, arp); undo WORD on.
link_turn_off() {
	change "$(qcmd ip ${TGT_NS:+-n "$TGT_NS"} link set dev "$IFACE" "$1" on)" \
		ip ${TGT_NS:+-n "$TGT_NS"} link set dev "$IFACE" "$1" off
}

net_multicast() {
	[ "$(link_flag MULTICAST)" = 0 ] || link_turn_off multicast
	note off
}

net_arp() {
	if [ -z "$REMOTE_MAC" ]; then
		skipped "needs --remote-mac: without a static entry ARP off cuts the peer off"
		return
	fi
	[ "$(link_flag NOARP)" = 1 ] || link_turn_off arp
	note off
}

# qdisc_restore NS IF KIND HANDLE: back to the default root qdisc, or to
# KIND (without its parameters) where one had been set up by hand.
qdisc_restore() {
	if [ "$4" = "0:" ] || [ -z "$3" ]; then
		tc ${1:+-n "$1"} qdisc del dev "$2" root 2>/dev/null || true
	else
		tc ${1:+-n "$1"} qdisc replace dev "$2" root handle "$4" "$3"
	fi
}

net_qdisc() {
	local j kind handle
	j=$(rd tc -j qdisc show dev "$IFACE")
	kind=$(jq -r '[.[] | select(.root == true)][0].kind // ""' <<<"$j")
	handle=$(jq -r '[.[] | select(.root == true)][0].handle // ""' <<<"$j")
	if [ "$kind" = noqueue ]; then
		note noqueue
		return
	fi
	[ "$handle" = "0:" ] || [ -z "$kind" ] || [ "$kind" = noop ] ||
		note "root $kind $handle set up by hand: revert restores it without its parameters"
	[ "$kind" != noop ] || handle="0:"
	change "$(qcmd qdisc_restore "$TGT_NS" "$IFACE" "$kind" "$handle")" \
		tc ${TGT_NS:+-n "$TGT_NS"} qdisc replace dev "$IFACE" root noqueue
	note "noqueue (was $kind)"
}
