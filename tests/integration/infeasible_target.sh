#!/usr/bin/env bash
# T = 40 Mbit/s, above the 25 Mbit/s bottleneck, among 2 CUBIC flows, 15 s:
# the safety valve keeps each CUBIC flow at >= 25 % of EB/3, and
# `tcpavctl flows` marks the flow infeasible.
. "$(dirname "$0")/lib.sh"
EB=25000000
tcpav_test_begin tavi "$(tb_htb_rate_for_eb 25000000)" 100
target_mix 40M 15 cubic cubic

floor=$(awk -v eb=$EB 'BEGIN { printf "%d", 0.25 * eb / 3 }')
check_ge "CUBIC flow 1 goodput vs 25 % of EB/3" "${GOODPUT[1]}" "$floor"
check_ge "CUBIC flow 2 goodput vs 25 % of EB/3" "${GOODPUT[2]}" "$floor"
check "tcpavctl flows marks the 40 Mbit/s flow infeasible" \
    jq -e --arg d "$TB_RCV_ADDR:5201" 'any(.[]; .dst == $d and .target_bps == 40000000 and .infeasible)' "$TMP/flows.json"
check "tcp_av still carried traffic" ge "${GOODPUT[0]}" 1000000
finish
