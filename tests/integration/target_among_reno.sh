#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# One tcp_av flow with T = 20 Mbit/s (NRT 80 %) among N = 2 Reno bulk flows
# across a HTB bottleneck of EB = 25 Mbit/s (payload), 15 s (12 s measured).
# Bounds, from EB, T and N:
#  - AVR >= 95 %: the gain rises while the delivered rate is below T;
#  - the Reno flows share the remainder EB - T = 5 Mbit/s: together at
#    least 70 % of it (so tcp_av overshoots T by at most 30 % of the
#    remainder, 1.5 Mbit/s), and each at least half of the fair remainder
#    (EB - T) / N = 2.5 Mbit/s (Reno flows of one RTT share evenly);
#  - the flow is not flagged infeasible.
. "$(dirname "$0")/lib.sh"
EB=25000000 T=20000000 N=2
tcpav_test_begin tavr "$(tb_htb_rate_for_eb 25000000)" 100
target_mix 20M 15 reno reno

rest=$((EB - T))
check_ge "tcp_av AVR % at NRT 80 % among 2 Reno" "$(pct "${GOODPUT[0]}" $T)" 95
# the target flow must be listed, and every flow must carry the fields
# (all() alone holds on [] and on a missing goodput_bps: null < 1e6)
check "the flow is listed (T = 20M) and was not flagged infeasible" \
    jq -e --argjson t $T 'any(.[]; .target_bps == $t and .infeasible == false)
        and all(.[]; (.target_bps | type) == "number" and (.goodput_bps | type) == "number"
                     and (.infeasible | type) == "boolean")
        and all(.[]; .target_bps == 0 or .goodput_bps < 1000000 or .infeasible == false)' "$TMP/flows.json"
check_ge "the Reno flows keep 70 % of EB - T between them" $((GOODPUT[1] + GOODPUT[2])) $((rest * 7 / 10))
check_ge "Reno flow 1 keeps half of (EB - T) / N" "${GOODPUT[1]}" $((rest / N / 2))
check_ge "Reno flow 2 keeps half of (EB - T) / N" "${GOODPUT[2]}" $((rest / N / 2))
finish
