#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tb_selftest.sh -- self-test of experiments/testbed/testbed.sh (< 30 s).
#
# Brings the bottleneck testbed up (25mbit HTB, 100-packet pfifo), checks
# the HTB class and its rate, pings across, runs one 5 s CUBIC iperf3 flow
# and checks its receiver goodput is 20..26 Mbit/s, then tears down and
# checks that no namespace or iperf3 process of the test is left. Also
# checks that a failing tb_up cleans up after itself and that tb_down is
# idempotent and silent.
#
# Needs root, iproute2, ethtool, iperf3, jq, ping (iputils-ping).
# Prints TAP-like `ok N - ...` / `not ok N - ...` lines; exits nonzero if
# anything failed.

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"   # check, finish, the testbed; sets -euo pipefail

name=tbst$$                 # unique per run: parallel runs do not collide
port=5201
tmp=$TMP
TB_EXTRA_CLEANUP="rm -rf '$tmp'"
tb_trap_cleanup "$name"
tb_trap_cleanup "${name}f"  # the deliberately failing tb_up below

# ns_gone NAME: none of NAME-{snd,rtr,rcv} is listed by `ip netns list`.
ns_gone() {
    ! ip netns list | awk '{print $1}' | grep -qE "^$1-(snd|rtr|rcv)$"
}

# pids_gone PID...: none of PIDs is a live (non-zombie) process, within ~2 s.
pids_gone() {
    local i pid alive
    for (( i = 0; i < 20; i++ )); do
        alive=0
        for pid in "$@"; do
            if [[ -r /proc/$pid/stat ]] &&
                ! awk '{exit ($3 == "Z") ? 0 : 1}' "/proc/$pid/stat" 2>/dev/null; then
                alive=1
            fi
        done
        (( alive )) || return 0
        sleep 0.1
    done
    echo "# still alive: $*" >&2
    return 1
}

# htb_rate_is DEV RATE_BPS: the HTB class 1:10 on rtr's DEV has rate RATE_BPS
# (bits/s). Uses `tc -j class show`; iproute2 6.1 (Debian 12) prints plain
# text for classes even with -j, so that is parsed as a fallback.
htb_rate_is() {
    local dev=$1 want=$2 out rate
    out=$(ip netns exec "$TB_RTR" tc -j class show dev "$dev")
    if rate=$(jq -er '.[] | select(.class == "htb" and .handle == "1:10")
                      | .rate' <<<"$out" 2>/dev/null); then
        # JSON rates are bytes/s.
        [[ $((rate * 8)) -eq $want ]] || { echo "# json rate $rate B/s" >&2; return 1; }
    else
        rate=$(sed -n 's/^class htb 1:10 .* rate \([^ ]*\) .*/\1/p' <<<"$out")
        [[ $rate == "$((want / 1000000))Mbit" ]] || { echo "# text rate '$rate' in: $out" >&2; return 1; }
    fi
}

# goodput_in_range FILE LO HI: tb_goodput_bps FILE is within [LO, HI].
goodput_in_range() {
    local bps
    bps=$(tb_goodput_bps "$1") || return 1
    echo "# goodput $bps bit/s" >&2
    (( bps >= $2 && bps <= $3 ))
}

# A failing tb_up (bad rate) must fail with one line and leave nothing.
failing_tb_up_cleans_up() {
    local err
    if err=$(tb_up "${name}f" bogusrate 100 2>&1); then
        return 1
    fi
    echo "# tb_up error: $err" >&2
    [[ $(wc -l <<<"$err") -eq 1 ]] && ns_gone "${name}f"
}

# tb_down on nothing prints nothing and succeeds.
tb_down_silent() {
    [[ -z $(tb_down "$name" 2>&1) ]]
}

for tool in ip tc ethtool iperf3 jq ping ss; do
    check "tool $tool present" command -v "$tool"
done

check "tb_up $name 25mbit 100" tb_up "$name" 25mbit 100
if ! tap_passing; then           # nothing below can work without it
    stop_here "no testbed (tb_up failed)"
fi
check "HTB class 1:10 on $TB_RTR_BOTTLENECK_DEV at 25 Mbit/s" \
    htb_rate_is "$TB_RTR_BOTTLENECK_DEV" 25000000
check "ping $TB_SND -> $TB_RCV_ADDR" \
    ip netns exec "$TB_SND" ping -q -c 3 -i 0.2 -W 2 "$TB_RCV_ADDR"
check "iperf3 server listening" tb_iperf_servers "$TB_RCV" "$port"
tb_iperf_client "$TB_SND" "$TB_RCV_ADDR" "$port" 5 "$tmp/flow.json" \
    -C cubic >/dev/null
client=$TB_LAST_PID
check "iperf3 client exits 0" tb_wait "$client"
check "goodput within 20..26 Mbit/s" \
    goodput_in_range "$tmp/flow.json" 20000000 26000000

# Teardown: remember every process in the testbed first.
left=$(for ns in "$TB_SND" "$TB_RTR" "$TB_RCV"; do ip netns pids "$ns"; done)
tb_down "$name"
check "namespaces removed" ns_gone "$name"
# shellcheck disable=SC2086
check "no process of the testbed left" pids_gone $left "$client"
check "tb_down again is silent" tb_down_silent
check "failing tb_up reports one line and cleans up" failing_tb_up_cleans_up

finish
