#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# apqos keeps a station's guaranteed rate at an AP. Three stations download
# at once (Reno, server -> AP -> stations) through the AP's downlink br0,
# whose bottleneck is apqos's tree: root class 1:1 at 30 Mbit/s
# (experiments/testbed/ap.sh with 3 stations; HTB counts 1514-byte frames, so the TCP
# payload capacity is 30 * 1448/1514 = 28.7 Mbit/s). Without a guarantee
# station 1 gets about a third (and is below 14 Mbit/s in one of up to 3
# runs); with `apqos guarantee STA1 15M` (by MAC,
# then by IPv4 address) at least 14 Mbit/s of goodput (15 Mbit/s of frames
# is 14.35 Mbit/s of payload) while stations 2 and 3 share the rest. And
# `apqos show --json` gives the same counters as `tc -s class show`.
# 40-60 s; addresses 10.85.x.y; cleans up on any exit.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/apqos_lib.sh"
# shellcheck source=../../experiments/testbed/ap.sh
. "$TOP/experiments/testbed/ap.sh"

NAME=aqg
export TB_NET=85
SECS=${APQOS_TEST_SECS:-10} OMIT=2
# shellcheck disable=SC2034 # read by tb_trap_cleanup's trap
TB_EXTRA_CLEANUP="ap_down $NAME; rm -rf \"\$TMP\""
tb_trap_cleanup "$NAME"

check "apqos is built ($APQOS)" test -x "$APQOS"
if ! AP_STATIONS=3 ap_up "$NAME" none; then
    check "the AP testbed with 3 stations comes up" false
    stop_here "no AP testbed"
fi
AP=$AP_AP DEV=$AP_BOTTLENECK_DEV
qos() { ip netns exec "$AP" "$APQOS" -i "$DEV" "$@"; }
check "apqos --link-rate 30M --queue 100 setup: the bottleneck is apqos's root class" \
    qos --link-rate 30M --queue 100 setup

# downloads RUN: three Reno downloads, server -> station 1..3 at once, for
# SECS after OMIT seconds; goodput (bits/s) in BPS[1..3], sum in TOTAL
declare -a BPS
downloads() {
    local run=$1 k ns pids=()
    tb_iperf_servers "$AP_SRV" 5201 5202 5203
    for k in 1 2 3; do
        ns=AP_STA$k
        tb_iperf_client "${!ns}" "$AP_SRV_ADDR" $((5200 + k)) "$SECS" "$TMP/$run-$k.json" \
            -R -O "$OMIT" -C reno >/dev/null
        pids+=("$TB_LAST_PID")
    done
    tb_wait "${pids[@]}" || true
    TOTAL=0
    for k in 1 2 3; do
        BPS[k]=$(tb_goodput_bps "$TMP/$run-$k.json") || BPS[k]=0
        TOTAL=$((TOTAL + BPS[k]))
    done
    echo "# $run: sta1 $(mbit "${BPS[1]}") sta2 $(mbit "${BPS[2]}") sta3 $(mbit "${BPS[3]}") Mbit/s, total $(mbit "$TOTAL") (sender cc: $(jq -r '.end.sender_tcp_congestion // "?"' "$TMP/$run-1.json"))"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b ? a / b : 0 }'; }

# counters_agree: apqos show --json and tc -s class show, class by class:
# bytes within one 1514-byte frame, packets within one
counters_agree() {
    apqos_classes "$AP" "$DEV" > "$TMP/apqos.txt"
    tc_classes "$AP" "$DEV" > "$TMP/tc.txt"
    echo "# apqos: $(tr '\n' ';' < "$TMP/apqos.txt")"
    echo "# tc:    $(tr '\n' ';' < "$TMP/tc.txt")"
    [[ $(wc -l < "$TMP/apqos.txt") -ge 3 ]] || return 1
    join "$TMP/apqos.txt" "$TMP/tc.txt" | awk '
        function abs(x) { return x < 0 ? -x : x }
        { n++
          if (abs($2 - $7) > 1514 || abs($3 - $8) > 1 || $4 != $9 || abs($5 - $10) > 1 || $6 != $11) bad++ }
        END { exit !(n > 0 && bad == 0) }' &&
        [[ $(wc -l < "$TMP/apqos.txt") -eq $(wc -l < "$TMP/tc.txt") ]]
}

check "the tree is apqos's, link rate 30 Mbit/s, no stations" \
    jq -e '.tree == "apqos" and .link_rate_bps == 30000000 and ([.classes[] | select(.role == "station")] | length) == 0' \
    <(qos show --json)

# 1. no guarantee: all three share the default class
# Three Reno flows in one class share it unevenly over 10 s: station 1 has
# been measured at 0.48 of the total (14.6 Mbit/s) by chance. What the
# control shows is that 14 Mbit/s is not assured without the guarantee:
# station 1 falls below it in one of up to 3 runs (the first such run ends
# them), and in every run it is not starved and the link is used.
below=0 runs=0 low_share=1 low_total=$((1 << 62))
while (( runs < 3 && below == 0 )); do
    runs=$((runs + 1))
    downloads none
    (( BPS[1] < 14000000 )) && below=$runs
    low_share=$(awk -v a="$(ratio "${BPS[1]}" "$TOTAL")" -v b="$low_share" 'BEGIN { print a < b ? a : b }')
    (( TOTAL < low_total )) && low_total=$TOTAL
done
check "no guarantee: 14 Mbit/s not assured: station 1 below it in run $below of $runs (up to 3)" test "$below" -gt 0
check_ge "no guarantee: station 1 at least 0.15 of the total in every run" "$low_share" 0.15
check_ge "no guarantee: the link is used in every run (>= 26 of 28.7 Mbit/s)" "$low_total" 26000000

# 2. station 1 guaranteed 15 Mbit/s by its MAC address
check "apqos guarantee $AP_STA1_MAC 15M" qos guarantee "$AP_STA1_MAC" 15M
check "show --json: station 1's class has rate 15M, ceil 30M" \
    jq -e --arg m "$AP_STA1_MAC" 'any(.classes[]; .station == $m and .match == "mac" and .rate_bps == 15000000 and .ceil_bps == 30000000)' \
    <(qos show --json)
downloads mac
check_ge "guarantee by MAC: station 1 >= 14 Mbit/s" "${BPS[1]}" 14000000
check_ge "guarantee by MAC: stations 2 and 3 share the rest (>= 12 Mbit/s)" "$((BPS[2] + BPS[3]))" 12000000
check_ge "guarantee by MAC: station 2 still gets >= 2 Mbit/s" "${BPS[2]}" 2000000
check_ge "guarantee by MAC: station 3 still gets >= 2 Mbit/s" "${BPS[3]}" 2000000
check "apqos show --json counters equal tc -s class show (+-1 packet)" counters_agree

# 3. the same by IPv4 address
check "apqos del $AP_STA1_MAC" qos del "$AP_STA1_MAC"
check "apqos guarantee $AP_STA1_ADDR 15M" qos guarantee "$AP_STA1_ADDR" 15M
downloads ipv4
check_ge "guarantee by IPv4: station 1 >= 14 Mbit/s" "${BPS[1]}" 14000000
check_ge "guarantee by IPv4: stations 2 and 3 share the rest (>= 12 Mbit/s)" "$((BPS[2] + BPS[3]))" 12000000
check "apqos show --json counters equal tc -s class show (+-1 packet)" counters_agree
check "station 1's class carried its download (>= 10 MB)" \
    jq -e --arg a "$AP_STA1_ADDR" 'any(.classes[]; .station == $a and .bytes >= 10000000)' <(qos show --json)
finish
