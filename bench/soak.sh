#!/usr/bin/env bash
# The long version of tests/net/test_service.sh's service_soak (root):
# a pair as the systemd units run it (--block, --metrics FILE, serving
# /metrics, -l and -I 2 on both sides), open loop at 20,000 pings a
# second for SECONDS (default 600), VmRSS of both processes every 3 s,
# both sides scraped at each sample and SIGHUP half-way; fails if either
# process grows more than SOAK_GROWTH_KB (default 1024) after the first
# two samples, a counter goes back, or the end's counters differ from
# the JSON's. Not in make check (make check runs the 30 s version).
#
#   bench/soak.sh [SECONDS]
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
s=${1:-600}
if ! [[ "$s" =~ ^[0-9]+$ ]] || [ "$s" -lt 9 ]; then
	echo "bench/soak.sh: SECONDS must be a whole number of seconds, 9 or more (got '$s')" >&2
	exit 1
fi
SOAK_S=$s TESTS=service_soak exec "$top/tests/net/run.sh"
