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
#   ss_data NS DPORT, ss_field LINE NAME, pacing_in_law LINE T
#                            a socket's ss line, a field of it, and whether
#                            its pacing rate is in the law's range for T
#   finish                   the plan (1..N) and the exit status
#   stop_here REASON         the checks after this point cannot run: one skip
#                            line saying so, then finish (exits 1)
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=../../experiments/testbed/testbed.sh
. "$TOP/experiments/testbed/testbed.sh"
# shellcheck source=../../experiments/testbed/flows.sh
. "$TOP/experiments/testbed/flows.sh"
# the build under test, absolute from here on (make check passes "build")
TCPAV_BUILD=${TCPAV_BUILD:-build}
[[ $TCPAV_BUILD == /* ]] || TCPAV_BUILD=$TOP/$TCPAV_BUILD
TCPAVCTL=${TCPAVCTL:-$TCPAV_BUILD/bin/tcpavctl}
# the receiver's capture is read by the avmon of the build under test
AVMON=${AVMON:-$TCPAV_BUILD/bin/avmon}
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

# DATA_FLOW: jq filter (with $t, the target in bit/s) for the data flow in
# `tcpavctl flows --json`: of the flows with that target, the one with most
# rounds. Not the one with the highest goodput_bps: iperf3's control
# connection (same port, same rule) can read a few hundred bytes acked in
# one sub-millisecond round as a rate above the data flow's.
DATA_FLOW='[.[] | select(.target_bps == $t and (.flags | test("idle") | not))] | max_by(.rounds) // empty'

# What the kernel says of a tcp_av socket (rules_exec_api, unload_while_running):
# ss_data NS DPORT: ss's info line for the data connection to DPORT
# (iperf3's control connection shares the port; the data one acked most)
ss_data() {
    ip netns exec "$1" ss -tinH "dport = :$2" | awk '/^[ \t]/ {
        b = match($0, /bytes_acked:[0-9]+/) ? substr($0, RSTART + 12, RLENGTH - 12) + 0 : 0
        if (b >= best) { best = b; line = $0 } } END { print line }'
}
# ss_field LINE NAME: NAME's value in an ss info line ("cwnd:10", "rtt:0.2/0.1",
# "pacing_rate 8Mbps"); rates in bit/s, rtt (srtt) in ms; empty if absent
ss_field() {
    awk -v n="$2" '{ for (i = 1; i <= NF; i++) {
        v = ""
        if ($i == n && i < NF) v = $(i + 1); else if (index($i, n ":") == 1) v = substr($i, length(n) + 2)
        if (v == "") continue
        sub(/\/.*/, "", v)
        m = 1; if (v ~ /Gbps$/) m = 1e9; else if (v ~ /Mbps$/) m = 1e6; else if (v ~ /Kbps$/) m = 1e3
        sub(/[KMG]?bps$/, "", v); if (m == 1) print v; else printf "%.0f\n", v * m; exit } }' <<<"$1"
}
# pacing_in_law LINE T: the socket is paced, at least at T, and at most at
# what the law can ask (6/5 x 2.5 T = 3 T while G dominates, 2 cwnd*mss/srtt in slow
# start) times 4: srtt moves between the ACK that set the rate and the sample
pacing_in_law() {
    local p cwnd mss rtt
    p=$(ss_field "$1" pacing_rate) cwnd=$(ss_field "$1" cwnd) mss=$(ss_field "$1" mss) rtt=$(ss_field "$1" rtt)
    [[ -n $p && -n $cwnd && -n $mss && -n $rtt ]] || return 1
    awk -v p="$p" -v t="$2" -v c="$cwnd" -v m="$mss" -v r="$rtt" \
        'BEGIN { hi = 3 * t; e = 2 * c * m * 8 / (r / 1000); if (e > hi) hi = e; exit !(p >= t && p <= 4 * hi) }'
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
