#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# churn.sh -- issue 9, point 6: competitors come and go. EB = 25 Mbit/s of
# payload, T = 10 Mbit/s (a rule on port 5201), 20 s on one clock (flows.sh's
# OUTDIR t0): tcp_av and one CUBIC flow from 0 s, a second CUBIC flow from
# 5 s and a third from 10 s, both leaving at 15 s. Two cells: pfifo 100
# (~50 ms of queue) and pfifo 1,000 (~460 ms). Every join is a slow start
# into a full queue, a burst of losses; every leave frees 1/N of EB at once.
#
# Bound (the issue's): after the first 3 s, tcp_av's AVR in every window is
# >= 0.90. Goodput: unique bytes arriving at the receiver's interface
# (flows.sh's capture, counted by avmon), in 0.1 s bins on the flows'
# clock; windows of W = max(2 s, 4 srtt) (tb_window_s, srtt = the flow's
# mean srtt from iperf3), sliding by one bin, from 3 s to the flow's end.
# Not the bytes iperf3 reads: a loss holds back everything after it until
# the retransmission arrives, about one srtt (~0.45 s at pfifo 1,000), so a
# window that holds the stall but not the burst would lose up to srtt/W of
# T (a quarter when W = 4 srtt) although the bytes had arrived. T = 10 of 25 is feasible at every N: it is above the fair
# share EB/N while 3 or 4 flows run (8.3, 6.25), where only G holds it;
# losses never cut G and pacing holds g*T, so a dip is the transient of a
# join (the joiner's slow-start overshoot drops packets of every flow for
# about one RTT, and the gain makes up for it in a few RTTs). 0.90 over W >= 2 s allows 0.2 s of T to be lost around a join: at
# pfifo 1,000 that is less than half an RTT, at pfifo 100 about 4. No slack
# for interval granularity: a window's rate is its bytes over its own
# measured span (whole bins, cut on the clock), so a boundary costs
# nothing but the packet timestamps (one 1514-byte frame is 0.06 % of a
# 2 s window at T).
#
# Also checked, so that a failure cannot pass as success: the slot flow was
# tcp_av with target T (a `tcpavctl flows` sample at 12 s, all 4 flows
# running); each joiner was launched within 0.5 s of its time and delivered.
# Printed: each competitor's goodput over its life, and per phase (3-5,
# 5-10, 10-15, 15-20 s) tcp_av's rate and the CUBIC flows' sum.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

EB=25000000 T=10000000 SECS=20
name=tchu$$
tcpav_test_begin "$name"
RATE=$(tb_htb_rate_for_eb $EB)

# launched OUT I S: flow I was launched within 0.5 s of S on OUT's clock
launched() {
    awk -v l="$(cat "$1/flow-$2.launch")" -v z="$(cat "$1/t0")" -v s="$3" \
        'BEGIN { d = l - z - s; if (d < 0) d = -d; exit !(d <= 0.5) }'
}

cell() {
    local q=$1 d=$TMP/q$1 id srtt w wins min n_low phases p end
    if ! tb_up "$name" "$RATE" "$q"; then
        skip_check "pfifo $q: the cell's checks" "no testbed (tb_up failed)"
        return 0
    fi
    id=$("$TCPAVCTL" rule add --dport 5201 --cc tcp_av --rate $T |
        awk '$1 == "rule" { sub(/:$/, "", $2); print $2; exit }')
    mkdir -p "$d"
    TB_OMIT=0 tb_flows_start "$d" $SECS rule cubic
    TB_OMIT=0 tb_flow_add "$d" 2 cubic 5 10
    TB_OMIT=0 tb_flow_add "$d" 3 cubic 10 5
    sleep 12
    "$TCPAVCTL" flows --json >"$d/flows.json" || :
    tb_flows_wait "$d" >"$d/goodput" || echo "# pfifo $q: a flow failed (see above)"
    "$TCPAVCTL" rule del "$id" >/dev/null 2>&1 || :
    check "pfifo $q: the slot flow was tcp_av with target T" \
        flow_listed "$d/flows.json" "$TB_RCV_ADDR:5201" $T
    # shellcheck disable=SC2016 # eval'ed by check
    check "pfifo $q: the joiners started at 5 s and 10 s" \
        eval 'launched "$d" 2 5 && launched "$d" 3 10'
    srtt=$(tb_flow_srtt_us "$d" 0 || echo 0)
    w=$(tb_window_s "$srtt")
    # the flow sends for SECS s from its launch
    end=$(awk -v l="$(cat "$d/flow-0.launch" 2>/dev/null || echo 0)" -v z="$(cat "$d/t0")" -v s=$SECS \
        'BEGIN { printf "%.1f", int((l - z + s) * 10) / 10 }')
    wins=$(tb_flow_windows "$d" 0 "$w" 3 "$end" || :)
    min=$(awk -v t=$T 'NR == 1 || $3 < m { m = $3; s = $1 } END { if (NR) printf "%.3f %s", m / t, s; else print "-" }' <<<"$wins")
    n_low=$(awk -v t=$T '$3 < 0.9 * t' <<<"$wins" | grep -c . || :)
    echo "# pfifo $q: srtt $srtt us, W $w s, $(grep -c . <<<"$wins") windows from 3 s to $end s; unique bytes: lowest AVR ${min% *} (window from ${min#* } s), $n_low below 0.90"
    awk -v t=$T '$3 < 0.9 * t { printf "#   low: %s-%s s AVR %.3f\n", $1, $2, $3 / t }' <<<"$wins" | head -5
    for p in 1 2 3; do
        echo "# pfifo $q: CUBIC flow $p: $(mbit "$(awk -v f="$p" '$1 == f { print $2 }' "$d/goodput")") Mbit/s over its life"
    done
    phases=""
    for p in "3 5" "5 10" "10 15" "15 20"; do
        # shellcheck disable=SC2086 # two numbers
        phases+=" $(tr ' ' - <<<"$p") s: tcp_av $(mbit "$(tb_flow_goodput "$d" 0 $p || echo 0)"), CUBIC $(mbit "$(
            for f in 1 2 3; do tb_flow_goodput "$d" "$f" $p 2>/dev/null || :; done | awk '{ s += $1 } END { print s + 0 }')");"
    done
    echo "# pfifo $q, Mbit/s:$phases"
    check "pfifo $q: windows measured from 3 s to the end (>= 100)" test "$(grep -c . <<<"$wins")" -ge 100
    check "pfifo $q: after 3 s every window of $w s has AVR >= 0.90 (lowest ${min% *})" test "$n_low" = 0
    tb_down "$name"
}

cell 100
cell 1000
finish
