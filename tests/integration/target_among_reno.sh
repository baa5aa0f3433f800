#!/usr/bin/env bash
# One tcp_av flow with T = 20 Mbit/s (NRT 80 %) among 2 Reno bulk flows
# across a HTB bottleneck of EB = 25 Mbit/s (payload), 15 s: AVR >= 90 %.
. "$(dirname "$0")/lib.sh"
T=20000000
tcpav_test_begin tavr "$(tb_htb_rate_for_eb 25000000)" 100
target_mix 20M 15 reno reno

check_ge "tcp_av AVR % at NRT 80 % among 2 Reno" "$(pct "${GOODPUT[0]}" $T)" 90
check "the flow was not flagged infeasible" \
    jq -e 'all(.[]; .target_bps == 0 or .goodput_bps < 1000000 or .infeasible == false)' "$TMP/flows.json"
check "both Reno flows still got some goodput" ge "$(( GOODPUT[1] < GOODPUT[2] ? GOODPUT[1] : GOODPUT[2] ))" 500000
finish
