#!/usr/bin/env bash
# One tcp_av flow with T = 12.5 Mbit/s (NRT 50 %) among 2 CUBIC bulk flows
# across a 25 Mbit/s HTB bottleneck (100-packet queue), 15 s:
# AVR >= 95 %, and each CUBIC flow gets >= 80 % of (EB - T) / 2.
. "$(dirname "$0")/lib.sh"
EB=25000000 T=12500000
tcpav_test_begin tavc 25mbit 100
"$TCPAVCTL" rule add --dport 5201 --cc tcp_av --rate 12.5M >/dev/null

tb_flows_start "$TMP" 15 rule cubic cubic
sleep 10
"$TCPAVCTL" flows --json > "$TMP/flows.json"
mapfile -t g < <(tb_flows_wait "$TMP" | awk '{print $2}')
echo "# tcp_av $(mbit "${g[0]}") Mbit/s (target $(mbit $T)), cubic $(mbit "${g[1]}") and $(mbit "${g[2]}") Mbit/s"
echo "# flows: $(jq -c '[.[] | select(.target_bps > 0 and .delivered_bps > 1000000) | {avr, gain, g, e, srtt_us, flags}]' "$TMP/flows.json")"

avr=$(awk -v g="${g[0]}" -v t=$T 'BEGIN { printf "%.1f", 100 * g / t }')
share=$(awk -v eb=$EB -v t=$T 'BEGIN { printf "%d", 0.8 * (eb - t) / 2 }')
check_ge "tcp_av AVR % at NRT 50 % among 2 CUBIC" "$avr" 95
check_ge "CUBIC flow 1 goodput vs 80 % of (EB-T)/2" "${g[1]}" "$share"
check_ge "CUBIC flow 2 goodput vs 80 % of (EB-T)/2" "${g[2]}" "$share"
check "tcpavctl flows showed the flow with its target" \
    flow_listed "$TMP/flows.json" "$TB_RCV_ADDR:5201" $T
finish
