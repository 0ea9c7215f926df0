#!/usr/bin/env bash
# Addresses a user types (issues 9 and 14): bracketed IPv6 and a
# link-local address with its %scope are accepted; multicast, broadcast
# and a scope other than -i are refused with one line that says so,
# before any packet.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_cmd jq ss taskset
[ -x "$RANT" ] || skip "rant is not built (make)"

# shellcheck disable=SC2034  # read by tests_run (lib.sh)
ALL_TESTS="input_refused input_ipv6_forms"

input_refused() {
	local a want out rc
	setup_pair || skip_test "cannot create namespaces and veth"
	while read -r a want; do
		out=$(emit -a "$a" -c 1 2>&1)
		rc=$?
		[ "$rc" = 1 ]; check_err $? "-a $a: exit $rc, not 1: $out"
		[ "$(wc -l <<<"$out")" = 1 ] && grep -q -- "$want" <<<"$out"
		check_err $? "-a $a: wanted one line with '$want', got: $out"
	done <<EOT
ff02::1 multicast
224.0.0.1 multicast
255.255.255.255 broadcast
10.77.0.255 broadcast
0.0.0.0 unspecified
fe80::1%lo scope
[fd77::2 not an IPv4 or IPv6
fd77::2] not an IPv4 or IPv6
EOT
	log_test "input: multicast, broadcast, unspecified and a wrong scope are refused in one line"
}

# link_local [NS DEV]: the link-local address of DEV in NS (default: the
# reflector's), when it is no longer tentative.
link_local() {
	ip -n "${1:-$NS_B}" -j -6 addr show dev "${2:-$VETH_B}" scope link |
		jq -er '.[0].addr_info[]? | select(.local != null and .tentative != true) | .local' |
		head -1
}

# Both ends' link-local addresses usable: until the emitter's own has
# passed DAD, the kernel has no link-local source for it.
has_link_local() { [ -n "$(link_local)" ] && [ -n "$(link_local "$NS_A" "$VETH_A")" ]; }

input_ipv6_forms() {
	local ll out
	setup_pair || skip_test "cannot create namespaces and veth"
	start_reflector ri
	out=$(emit -a "[$IP6_B]" -c 20 2>&1); check_err $? "-a [$IP6_B]: $out"
	# the reflector's link-local address, once DAD has finished
	wait_until 10 has_link_local
	ll=$(link_local)
	[ -n "$ll" ]; check_err $? "no link-local address on $VETH_B"
	out=$(emit -a "$ll%$VETH_A" -c 20 2>&1); check_err $? "-a $ll%$VETH_A: $out"
	out=$(emit -a "[$ll%$VETH_A]" -c 20 2>&1); check_err $? "-a [$ll%$VETH_A]: $out"
	out=$(emit -a "$ll" -c 20 2>&1); check_err $? "-a $ll (scope from -i): $out"
	stop_reflector
	log_test "input: [addr], link-local with %scope, bracketed, and without a scope"
}

tests_run
