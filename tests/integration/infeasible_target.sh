#!/usr/bin/env bash
# T = 40 Mbit/s, above the 25 Mbit/s bottleneck, among 2 CUBIC flows, 15 s:
# the safety valve keeps each CUBIC flow at >= 25 % of EB/3, and
# `tcpavctl flows` marks the flow infeasible.
. "$(dirname "$0")/lib.sh"
EB=25000000 T=40000000
tcpav_test_begin tavi 25mbit 100
"$TCPAVCTL" rule add --dport 5201 --cc tcp_av --rate 40M >/dev/null

tb_flows_start "$TMP" 15 rule cubic cubic
sleep 10
"$TCPAVCTL" flows --json > "$TMP/flows.json"
mapfile -t g < <(tb_flows_wait "$TMP" | awk '{print $2}')
echo "# tcp_av $(mbit "${g[0]}") Mbit/s (target $(mbit $T)), cubic $(mbit "${g[1]}") and $(mbit "${g[2]}") Mbit/s"
echo "# flows: $(jq -c '[.[] | select(.target_bps > 0 and .delivered_bps > 1000000) | {avr, gain, g, e, valve_cap_bps, bw_est_bps, flags}]' "$TMP/flows.json")"

floor=$(awk -v eb=$EB 'BEGIN { printf "%d", 0.25 * eb / 3 }')
check_ge "CUBIC flow 1 goodput vs 25 % of EB/3" "${g[1]}" "$floor"
check_ge "CUBIC flow 2 goodput vs 25 % of EB/3" "${g[2]}" "$floor"
check "tcpavctl flows marks the 40 Mbit/s flow infeasible" \
    jq -e --arg d "$TB_RCV_ADDR:5201" 'any(.[]; .dst == $d and .target_bps == 40000000 and .infeasible)' "$TMP/flows.json"
check "tcp_av still carried traffic" ge "${g[0]}" 1000000
finish
