#!/usr/bin/env bash
# One tcp_av flow with T = 20 Mbit/s (NRT 80 %) among 2 Reno bulk flows
# across a 25 Mbit/s HTB bottleneck, 15 s: AVR >= 90 %.
. "$(dirname "$0")/lib.sh"
T=20000000
tcpav_test_begin tavr 25mbit 100
"$TCPAVCTL" rule add --dport 5201 --cc tcp_av --rate 20M >/dev/null

tb_flows_start "$TMP" 15 rule reno reno
sleep 10
"$TCPAVCTL" flows --json > "$TMP/flows.json"
mapfile -t g < <(tb_flows_wait "$TMP" | awk '{print $2}')
echo "# tcp_av $(mbit "${g[0]}") Mbit/s (target $(mbit $T)), reno $(mbit "${g[1]}") and $(mbit "${g[2]}") Mbit/s"
echo "# flows: $(jq -c '[.[] | select(.target_bps > 0 and .delivered_bps > 1000000) | {avr, gain, g, e, srtt_us, flags}]' "$TMP/flows.json")"

avr=$(awk -v g="${g[0]}" -v t=$T 'BEGIN { printf "%.1f", 100 * g / t }')
check_ge "tcp_av AVR % at NRT 80 % among 2 Reno" "$avr" 90
check "the flow was not flagged infeasible" \
    jq -e 'all(.[]; .target_bps == 0 or .delivered_bps < 1000000 or .infeasible == false)' "$TMP/flows.json"
check "both Reno flows still got some goodput" ge "$(( g[1] < g[2] ? g[1] : g[2] ))" 500000
finish
