#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# T = 40 Mbit/s, above the 25 Mbit/s bottleneck, among N = 2 CUBIC flows,
# 15 s (12 s measured). Once T is judged infeasible the safety valve
# switches G off: the flow is E alone, grown as CUBIC and halved as a Reno
# (core.h), one elastic flow among three. Bounds from that:
#  - the CUBIC flows keep at least EB/4 between them (6.25 Mbit/s; without
#    the valve G stays at 2.5 T and they get under 1 Mbit/s), and each at
#    least half of that, EB/8 (3.1 Mbit/s; measured 5-7);
#  - tcp_av gets at most 3/4 EB (18.75 Mbit/s; without the valve 24: the
#    push before the flag and a share above EB/3 fit under it) and at least
#    half a fair share, EB/(N+1)/2 (4.2 Mbit/s; measured 7.3, EB/3 = 8.3);
#  - `tcpavctl flows` marks the flow infeasible, or probing: the retest of
#    a flagged T, 256 rounds after the flag (~10 s at this srtt), can fall
#    on the sample, 4 s before the end (it did in a CI run: "probing").
. "$(dirname "$0")/lib.sh"
EB=25000000
tcpav_test_begin tavi "$(tb_htb_rate_for_eb 25000000)" 100
target_mix 40M 15 cubic cubic

cubic_sum=$((GOODPUT[1] + GOODPUT[2]))
check_ge "the CUBIC flows keep EB/4 between them" "$cubic_sum" $((EB / 4))
check_ge "CUBIC flow 1 keeps EB/8" "${GOODPUT[1]}" $((EB / 8))
check_ge "CUBIC flow 2 keeps EB/8" "${GOODPUT[2]}" $((EB / 8))
check_le "tcp_av takes at most 3/4 EB" "${GOODPUT[0]}" $((EB * 3 / 4))
check_ge "tcp_av keeps half a fair share, EB/3/2" "${GOODPUT[0]}" $((EB / 3 / 2))
check "tcpavctl flows marks the 40 Mbit/s flow infeasible (or probing, a retest)" \
    jq -e --arg d "$TB_RCV_ADDR:5201" 'any(.[]; .dst == $d and .target_bps == 40000000 and
        (.infeasible or (.flags | test("probing"))))' "$TMP/flows.json"
finish
