# lib/steps/nic.sh: config.sh's NIC steps (nic_*), through ethtool and the
# device's sysfs: channels, offloads, coalescing, rings, pause frames,
# private flags, NAPI; features_restore puts offloads back for --revert.
#
# Reads config.sh's globals: IFACE, DRIVER, KIND, CUR_NS, TGT_NS, MODE, SD,
# RING_SIZE.
# shellcheck shell=bash
# shellcheck disable=SC2317  # reached from the STEPS table and the journal

# ethtool_kv OPT: "key value" pairs from ethtool OPT's text, section-prefixed
# (max_/cur_) where the output has "Pre-set maximums"/"Current" sections.
ethtool_kv() {
	rd ethtool "$1" "$IFACE" 2>/dev/null | awk -F':[ \t]*' '
		/^Pre-set maximums/ {p = "max_"; next}
		/^Current hardware settings/ {p = "cur_"; next}
		/^Adaptive RX/ { split($0, a, /[ \t]+/); print "adaptive-rx", a[3]; print "adaptive-tx", a[5]; next }
		NF >= 2 && $1 !~ /^(Channel|Ring|Coalesce) parameters/ {
			k = tolower($1); gsub(/[ \t]+/, "-", k); print p k, $2 }'
}

kv() {
	awk -v k="$2" '$1 == k {print $2; exit}' <<<"$1"
}

nic_channels() {
	local t mc mr mt cc cr ct
	if ! t=$(ethtool_kv -l) || [ -z "$t" ]; then
		unsupported "$(what) has no channel settings"
		return
	fi
	mc=$(kv "$t" max_combined) mr=$(kv "$t" max_rx) mt=$(kv "$t" max_tx)
	cc=$(kv "$t" cur_combined) cr=$(kv "$t" cur_rx) ct=$(kv "$t" cur_tx)
	[[ $mc =~ ^[0-9]+$ ]] || mc=0
	[[ $mr =~ ^[0-9]+$ ]] || mr=0
	[[ $mt =~ ^[0-9]+$ ]] || mt=0
	[[ $cc =~ ^[0-9]+$ ]] || cc=0
	[[ $cr =~ ^[0-9]+$ ]] || cr=0
	[[ $ct =~ ^[0-9]+$ ]] || ct=0
	local want=() undo=()
	if [ "$mc" -gt 0 ]; then
		[ "$cc" = 1 ] || want+=(combined 1)
		[ "$mr" = 0 ] || [ "$cr" = 0 ] || want+=(rx 0)
		[ "$mt" = 0 ] || [ "$ct" = 0 ] || want+=(tx 0)
		undo=(combined "$cc")
		[ "$mr" = 0 ] || undo+=(rx "$cr")
		[ "$mt" = 0 ] || undo+=(tx "$ct")
		note "combined 1"
	elif [ "$mr" -gt 0 ] || [ "$mt" -gt 0 ]; then
		[ "$mr" = 0 ] || [ "$cr" = 1 ] || want+=(rx 1)
		[ "$mt" = 0 ] || [ "$ct" = 1 ] || want+=(tx 1)
		undo=(rx "$cr" tx "$ct")
		note "$(what) has no combined channels: rx 1, tx 1"
	else
		unsupported "$(what) reports no channels"
		return
	fi
	[ "${#want[@]}" -eq 0 ] && return
	change "$(qcmd inns "$TGT_NS" ethtool -L "$IFACE" "${undo[@]}")" inns "$TGT_NS" ethtool -L "$IFACE" "${want[@]}"
}

# The features nic_offloads turns off: checksum offloads, GRO, LRO, TSO.
OFFLOAD_RE='^(rx-checksumming|tx-checksum-.*|generic-receive-offload|rx-gro-hw|large-receive-offload|tx-tcp.*segmentation)$'

# features_restore NS IF FILE: set every changeable feature back to the
# requested state saved in FILE ("name on|off" lines).
features_restore() {
	local ns=$1 ifc=$2 file=$3 args=() name val
	declare -A cur=()
	while read -r name val; do cur[$name]=$val; done < <(features_dump "$ns" "$ifc")
	while read -r name val; do
		[ "${cur[$name]:-}" = "$val" ] || args+=("$name" "$val")
	done <"$file"
	[ "${#args[@]}" -eq 0 ] || inns "$ns" ethtool -K "$ifc" "${args[@]}"
}

# features_dump NS IF: "name on|off" (requested) for every changeable feature.
features_dump() {
	inns "$1" ethtool --json -k "$2" | jq -r '.[0] | to_entries[]
		| select((.value | type) == "object" and .value.fixed == false and .value.requested != null)
		| "\(.key) \(if .value.requested then "on" else "off" end)"'
}

nic_offloads() {
	local j on=() fixed=() f
	if ! j=$(rd ethtool --json -k "$IFACE" 2>/dev/null); then
		unsupported "$(what): ethtool -k fails"
		return
	fi
	mapfile -t on < <(jq -r --arg re "$OFFLOAD_RE" '.[0] | to_entries[]
		| select((.value | type) == "object" and (.key | test($re)) and .value.active == true and .value.fixed == false) | .key' <<<"$j")
	mapfile -t fixed < <(jq -r --arg re "$OFFLOAD_RE" '.[0] | to_entries[]
		| select((.value | type) == "object" and (.key | test($re)) and .value.active == true and .value.fixed == true) | .key' <<<"$j")
	[ "${#fixed[@]}" -eq 0 ] || note "fixed on by the driver: ${fixed[*]}"
	[ "${#on[@]}" -gt 0 ] || return 0
	local args=() n=$ST_CHANGED
	for f in "${on[@]}"; do args+=("$f" off); done
	if [ "$MODE" = apply ]; then
		features_dump "$CUR_NS" "$IFACE" >"$SD/features.$n"
	fi
	change "$(qcmd features_restore "$TGT_NS" "$IFACE" "$SD/features.$n")" inns "$TGT_NS" ethtool -K "$IFACE" "${args[@]}"
	note "off: ${on[*]}"
	if [ "$MODE" = apply ] && [ -z "$ST_FAIL" ]; then
		mapfile -t on < <(rd ethtool --json -k "$IFACE" | jq -r --arg re "$OFFLOAD_RE" '.[0] | to_entries[]
			| select((.value | type) == "object" and (.key | test($re)) and .value.active == true and .value.fixed == false) | .key')
		[ "${#on[@]}" -eq 0 ] || failed "still on after ethtool -K: ${on[*]}"
	fi
}

nic_coalesce() {
	local t v want=() undo=()
	if ! t=$(ethtool_kv -c) || [ -z "$t" ]; then
		unsupported "$(what) has no interrupt coalescing settings"
		return
	fi
	v=$(kv "$t" adaptive-rx)
	if [ "$v" = on ]; then want+=(adaptive-rx off); undo+=(adaptive-rx on); fi
	v=$(kv "$t" rx-usecs)
	if [[ $v =~ ^[0-9]+$ ]] && [ "$v" != 0 ]; then want+=(rx-usecs 0); undo+=(rx-usecs "$v"); fi
	v=$(kv "$t" rx-frames)
	if [[ $v =~ ^[0-9]+$ ]] && [ "$v" != 1 ]; then want+=(rx-frames 1); undo+=(rx-frames "$v"); fi
	[[ $(kv "$t" rx-frames) =~ ^[0-9]+$ ]] || note "driver has no rx-frames"
	[ "${#want[@]}" -gt 0 ] || return 0
	change "$(qcmd inns "$TGT_NS" ethtool -C "$IFACE" "${undo[@]}")" inns "$TGT_NS" ethtool -C "$IFACE" "${want[@]}"
	note "${want[*]}"
}

nic_rings() {
	local t mr mt cr ct want=() undo=() r got=() capped=
	if ! t=$(ethtool_kv -g) || [ -z "$t" ]; then
		unsupported "$(what) has no rings"
		return
	fi
	mr=$(kv "$t" max_rx) mt=$(kv "$t" max_tx) cr=$(kv "$t" cur_rx) ct=$(kv "$t" cur_tx)
	if [[ $mr =~ ^[0-9]+$ ]] && [ "$mr" -gt 0 ]; then
		r=$((mr < RING_SIZE ? mr : RING_SIZE))
		[ "$r" = "$RING_SIZE" ] || capped=" (the driver's maximum)"
		got+=("rx $r")
		[ "$cr" = "$r" ] || { want+=(rx "$r"); undo+=(rx "$cr"); }
	fi
	if [[ $mt =~ ^[0-9]+$ ]] && [ "$mt" -gt 0 ]; then
		r=$((mt < RING_SIZE ? mt : RING_SIZE))
		[ "$r" = "$RING_SIZE" ] || capped=" (the driver's maximum)"
		got+=("tx $r")
		[ "$ct" = "$r" ] || { want+=(tx "$r"); undo+=(tx "$ct"); }
	fi
	note "${got[*]}$capped"
	[ "${#want[@]}" -gt 0 ] || return 0
	change "$(qcmd inns "$TGT_NS" ethtool -G "$IFACE" "${undo[@]}")" inns "$TGT_NS" ethtool -G "$IFACE" "${want[@]}"
}

nic_pause() {
	local j want=() undo=() k v
	if ! j=$(rd ethtool --json -a "$IFACE" 2>/dev/null) || [ "$(jq 'length' <<<"$j")" = 0 ]; then
		unsupported "$(what) has no pause frame settings"
		return
	fi
	for k in autonegotiate:autoneg rx:rx tx:tx; do
		v=$(jq -r --arg k "${k%%:*}" '.[0][$k] // empty' <<<"$j")
		if [ "$v" = true ]; then want+=("${k#*:}" off); undo+=("${k#*:}" on); fi
	done
	[ "${#want[@]}" -gt 0 ] || return 0
	change "$(qcmd inns "$TGT_NS" ethtool -A "$IFACE" "${undo[@]}")" inns "$TGT_NS" ethtool -A "$IFACE" "${want[@]}"
	note "${want[*]}"
}

nic_privflags() {
	local flags=() t f v want=() undo=()
	case $DRIVER in
	mlx5_core) flags=(rx_cqe_compress rx_striding_rq) ;;
	ice) flags=(fw-lldp-agent) ;;
	*)
		unsupported "no private flags rant tunes on $DRIVER (mlx5_core, ice only)"
		return
		;;
	esac
	t=$(rd ethtool --show-priv-flags "$IFACE" 2>/dev/null | awk -F' *: *' 'NF == 2 {print $1, $2}') || t=
	for f in "${flags[@]}"; do
		v=$(kv "$t" "$f")
		if [ -z "$v" ]; then
			note "$DRIVER has no $f"
		elif [ "$v" = on ]; then
			want+=("$f" off)
			undo+=("$f" on)
		fi
	done
	[ "${#want[@]}" -gt 0 ] || return 0
	change "$(qcmd inns "$TGT_NS" ethtool --set-priv-flags "$IFACE" "${undo[@]}")" \
		inns "$TGT_NS" ethtool --set-priv-flags "$IFACE" "${want[@]}"
	note "${want[*]}"
}

nic_napi() {
	local f v p
	for f in napi_defer_hard_irqs gro_flush_timeout; do
		p=/sys/class/net/$IFACE/$f
		if ! v=$(rfile "$CUR_NS" "$p" 2>/dev/null); then
			note "no $f"
			continue
		fi
		[ "$v" = 0 ] && continue
		change "$(qcmd wfile "$TGT_NS" "$p" "$v")" wfile "$TGT_NS" "$p" 0
		note "$f 0 (was $v)"
	done
}
