#!/usr/bin/env bash
# rant's own work a ping, counted by callgrind (instructions in user space;
# deterministic, so it can be taken while the machine does other work):
# a reflector and an emitter, each under valgrind --tool=callgrind, both
# blocking (a spinner's empty receives would count), -s, 72 bytes, over a
# veth pair between two namespaces (root). Prints, per ping (measured and
# warm-up), the inclusive instructions of the steps on the round trip's
# path and around it:
#
#   reflector RX to TX   its steps from the receive to the send, each a
#                        function the compiler kept: skbatch_recv (the
#                        receive and its stamps), the format's parse
#                        (msgfmt.h's, inlined in reflect_run),
#                        sessions_admit, rant_put_pong, skbatch_reply,
#                        skbatch_send (the reflector's loop, reflect_batch,
#                        is inlined: the glue between them is not counted)
#   reflector, a ping    reflect_run: all of it (the error queue after the
#                        send, the record, the histograms)
#   emitter, a ping      emit_run
# and every rant function of either side at 20 or more instructions a ping.
#
#   bench/callgrind.sh [RANT] [PINGS] [OPTION...]
#       (default ./rant, 20000; 1000 of warm-up besides; the OPTIONs go to
#       both sides: --stamp counts STAMP's)
# The callgrind files stay in bench/out/callgrind/ (callgrind_annotate).
set -euo pipefail

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../tests/net/lib.sh
source "$BENCH/../tests/net/lib.sh"	# TOP, RANT, defer, setup_pair, ns_bg

BIN=$(readlink -f "${1:-$RANT}")
PINGS=${2:-20000}
shift $(($# < 2 ? $# : 2))
BOTH=(--port "$PORT" "$@")	# one port, whatever the format's default
WARM=1000
OUT=$BENCH/out/callgrind

require_root
require_cmd valgrind callgrind_annotate ip taskset awk
[ -x "$BIN" ] || { echo "callgrind: $BIN is not an executable rant (make first)" >&2; exit 1; }
mkdir -p "$OUT"
rm -f "$OUT"/*.cg
setup_pair || { echo "callgrind: cannot create the veth pair" >&2; exit 1; }

ns_bg "$NS_B" taskset -c 1 valgrind --tool=callgrind --callgrind-out-file="$OUT/reflect.cg" \
	"$BIN" -i "$VETH_B" --block "${BOTH[@]}" >"$OUT/reflect.txt" 2>&1
REFL=$BGPID
wait_udp_port "$NS_B" "$PORT" || { echo "callgrind: the reflector did not start" >&2; exit 1; }
ip netns exec "$NS_A" taskset -c 0 valgrind --tool=callgrind \
	--callgrind-out-file="$OUT/emit.cg" "$BIN" -i "$VETH_A" -a "$IP_B" -s -c "$PINGS" \
	-d 0 -w "$WARM" -m 72 --block "${BOTH[@]}" >"$OUT/emit.txt" 2>&1 ||
	{ echo "callgrind: the emitter failed (see $OUT/emit.txt)" >&2; exit 1; }
kill -INT "$REFL"
wait "$REFL" || true

# per_ping FILE: "instructions-a-ping function" of each rant function
# (file:function as callgrind_annotate names it, with or without the
# directories: src/net/ts.c is ts.c; its largest inclusive count),
# largest first
per_ping() {
	callgrind_annotate --inclusive=yes "$1" 2>/dev/null |
		awk -v n=$((PINGS + WARM)) '
		$1 ~ /^[0-9,]+$/ && $0 !~ /=>/ &&
		match($0, /src\/([a-z_]+\/)?[a-z_]+\.[ch]:[a-z_][a-z0-9_]*/) {
			f = substr($0, RSTART + 4, RLENGTH - 4); sub(/^[a-z_]+\//, "", f)
			v = $1; gsub(",", "", v)
			if (v + 0 > best[f]) best[f] = v + 0
		}
		END { for (f in best) printf "%9.1f %s\n", best[f] / n, f }' | sort -rn
}

per_ping "$OUT/reflect.cg" >"$OUT/reflect.per"
per_ping "$OUT/emit.cg" >"$OUT/emit.per"
awk '
	FNR == NR { v[$2] = $1; next }
	END {
		printf "%-22s %9.1f\n", "reflector RX to TX", v["skbatch.c:skbatch_recv"] + \
			v["msgfmt.h:reflect_run"] + v["session.c:sessions_admit"] + \
			v["wire.c:rant_put_pong"] + v["skbatch.c:skbatch_reply"] + v["skbatch.c:skbatch_send"]
		printf "%-22s %9.1f\n", "reflector, a ping", v["reflect.c:reflect_run"]
	}' "$OUT/reflect.per" /dev/null
awk '$2 == "emit.c:emit_run" { printf "%-22s %9.1f\n", "emitter, a ping", $1 }' "$OUT/emit.per"
echo "reflector, functions (instructions a ping, inclusive):"
awk '$1 >= 20' "$OUT/reflect.per"
echo "emitter, functions:"
awk '$1 >= 20' "$OUT/emit.per"
