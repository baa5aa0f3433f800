# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# lib.sh -- what the integration tests share: TAP output (tests/lib/tap.sh,
# with the checked command's stderr kept), the testbed, and
# a tcp_av that is loaded for the test and unloaded after it, also when the
# test fails or is interrupted. Source it first thing; it sets -euo pipefail.
#
#   check DESC CMD...        ok/not ok on CMD's status (its stdout hidden)
#   check_ge DESC VALUE MIN  ok if VALUE >= MIN (numbers, awk compares)
#   mbit BPS                 bits/s -> Mbit/s with 2 decimals
#   tcpav_test_begin NAME    testbed NAME up, tcp_av loaded, cleanup trapped
#   finish                   the plan (1..N) and the exit status
#   stop_here REASON         the checks after this point cannot run: one skip
#                            line saying so, then finish (exits 1)
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=../../experiments/testbed/testbed.sh
. "$TOP/experiments/testbed/testbed.sh"
# shellcheck source=../../experiments/testbed/flows.sh
. "$TOP/experiments/testbed/flows.sh"
TCPAVCTL=${TCPAVCTL:-$TOP/build/bin/tcpavctl}
TCPAV_BUILD=${TCPAV_BUILD:-build}
TMP=$(mktemp -d /tmp/tcpav-test.XXXXXX)

# result, check, skip_check, tap_finish; a check's stderr is kept
# shellcheck source=../lib/tap.sh
. "$TOP/tests/lib/tap.sh"
# shellcheck disable=SC2034 # read by tap.sh's check
TAP_KEEP_STDERR=1

# awk does the comparison: values may be fractional
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }
check_ge() { check "$1 ($2 >= $3)" ge "$2" "$3"; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }
check_le() { check "$1 ($2 <= $3)" le "$2" "$3"; }
mbit() { awk -v b="$1" 'BEGIN { printf "%.2f", b / 1e6 }'; }

# flow_listed FILE DST TARGET: `tcpavctl flows --json` output in FILE has a
# flow to DST (addr:port) with that target
flow_listed() {
    jq -e --arg d "$2" --argjson t "$3" 'any(.[]; .dst == $d and .target_bps == $t)' "$1" >/dev/null
}

# Leaves nothing behind: flows killed with the namespaces, then tcp_av
# unloaded (it stays registered until its last socket is gone).
_tcpav_cleanup() {
    "$TCPAVCTL" unload >/dev/null 2>&1 || true
    rm -rf "$TMP"
}

tcpav_test_begin() {
    local name=$1
    TB_EXTRA_CLEANUP=_tcpav_cleanup
    tb_trap_cleanup "$name"
    if [[ -n ${2:-} ]]; then
        tb_up "$name" "$2" "${3:-100}"
    fi
    "$TCPAVCTL" load >/dev/null
}

# target_mix RATE SECONDS CC...: a tcp_av flow with target RATE (a rule on
# port 5201) and competitors of the given CCs, SECONDS long; samples
# `tcpavctl flows --json` 4 s before the end into $TMP/flows.json, sets the
# array GOODPUT (bits/s, flow 0 is tcp_av) and prints a summary comment.
target_mix() {
    local rate=$1 secs=$2
    shift 2
    "$TCPAVCTL" rule add --dport 5201 --cc tcp_av --rate "$rate" >/dev/null
    tb_flows_start "$TMP" "$secs" rule "$@"
    sleep $((secs - 4))
    "$TCPAVCTL" flows --json > "$TMP/flows.json"
    mapfile -t GOODPUT < <(tb_flows_wait "$TMP" | awk '{print $2}')
    echo "# tcp_av $(mbit "${GOODPUT[0]}") Mbit/s (target $rate); $*: $(for x in "${GOODPUT[@]:1}"; do printf '%s ' "$(mbit "$x")"; done)Mbit/s"
    echo "# flows: $(jq -c '[.[] | select(.target_bps > 0 and .goodput_bps > 1000000) |
        {avr, gain, g, e, srtt_us, valve_cap_bps, bw_est_bps, flags}]' "$TMP/flows.json")"
}

# pct A B: 100 * A / B with one decimal
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", 100 * a / b }'; }

# Nothing of ours left: no pins, no registration, no namespaces of NAME.
nothing_left() {
    local name=$1
    tb_down "$name"
    "$TCPAVCTL" unload >/dev/null 2>&1 || true
    # an unregistered tcp_av lingers until its sockets are destroyed
    for _ in $(seq 50); do
        grep -qw tcp_av /proc/sys/net/ipv4/tcp_available_congestion_control || break
        sleep 0.1
    done
    [[ ! -e /sys/fs/bpf/tcpav ]] &&
        ! grep -qw tcp_av /proc/sys/net/ipv4/tcp_available_congestion_control &&
        ! bpftool struct_ops list 2>/dev/null | grep -q tcp_av_ops &&
        ! ip netns list | grep -q "^$name-" &&
        ! ls -d /sys/fs/cgroup/unified/tcpav-exec-* /sys/fs/cgroup/tcpav-exec-* >/dev/null 2>&1
}

finish() { tap_finish; }

# For a test that cannot go on (its testbed did not come up): what did not
# run is said in a skip line, never left out in silence.
stop_here() {
    skip_check "the rest of the test" "$1"
    finish || :
    exit 1
}
