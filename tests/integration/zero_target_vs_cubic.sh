#!/usr/bin/env bash
# T = 0 must behave as Reno: tcp_av with no target against one CUBIC flow
# gets a share within the spread of Reno against CUBIC, measured in the
# same test on the same bottleneck: 4 runs of each, interleaved, 10 s each
# after 3 s (share = own goodput / both goodputs). The mean tcp_av share
# must fall in [min, max] of the Reno shares widened by 5 points each side:
# single runs of either range over about 0.23-0.54 here, so it takes the
# mean of several runs and the widening to keep the test about the law,
# not about noise.
. "$(dirname "$0")/lib.sh"
tcpav_test_begin tavz "$(tb_htb_rate_for_eb 25000000)" 100
"$TCPAVCTL" rule add --dport 5201 --cc tcp_av >/dev/null   # tcp_av, no --rate: T = 0

share() { tb_flows_run "$TMP/$1" 10 "$2" cubic | awk '{ g[$1] = $2 } END { printf "%.3f", g[0] / (g[0] + g[1]) }'; }
reno=() av=()
for i in 1 2 3 4; do
    reno+=("$(share reno$i reno)")
    av+=("$(share av$i rule)")
done
lo=$(printf '%s\n' "${reno[@]}" | sort -n | head -1)
hi=$(printf '%s\n' "${reno[@]}" | sort -n | tail -1)
mean=$(printf '%s\n' "${av[@]}" | awk '{ s += $1 } END { printf "%.3f", s / NR }')
echo "# Reno share vs CUBIC: ${reno[*]}; tcp_av (T=0) share vs CUBIC: ${av[*]} (mean $mean)"
for i in 1 2 3 4; do
    check "run $i: iperf3 reports the T = 0 sender on tcp_av" \
        jq -e '.end.sender_tcp_congestion == "tcp_av"' "$TMP/av$i/flow-0.json"
done
check "Reno runs: iperf3 reports the sender on reno" jq -e '.end.sender_tcp_congestion == "reno"' "$TMP/reno1/flow-0.json"
check "tcp_av T=0 mean share $mean within Reno's spread [$lo, $hi] +- 0.05" \
    awk -v s="$mean" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(s >= lo - 0.05 && s <= hi + 0.05) }'
finish
