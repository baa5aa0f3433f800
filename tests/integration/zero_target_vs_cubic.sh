#!/usr/bin/env bash
# T = 0 must behave as Reno: tcp_av with no target against one CUBIC flow
# gets a share within the spread of Reno against CUBIC, measured in the
# same test on the same bottleneck (3 runs of Reno vs CUBIC, 2 of tcp_av
# vs CUBIC, 10 s each; share = own goodput / both goodputs). The spread is
# widened by 5 points each side: two runs of the same pair differ by that
# much here.
. "$(dirname "$0")/lib.sh"
tcpav_test_begin tavz 25mbit 100
"$TCPAVCTL" rule add --dport 5201 --cc tcp_av >/dev/null   # tcp_av, no --rate: T = 0

share() { tb_flows_run "$TMP/$1" 10 "$2" cubic | awk '{ g[$1] = $2 } END { printf "%.3f", g[0] / (g[0] + g[1]) }'; }
reno=() av=()
for i in 1 2 3; do reno+=("$(share reno$i reno)"); done
for i in 1 2; do av+=("$(share av$i rule)"); done
lo=$(printf '%s\n' "${reno[@]}" | sort -n | head -1)
hi=$(printf '%s\n' "${reno[@]}" | sort -n | tail -1)
echo "# Reno share vs CUBIC: ${reno[*]}; tcp_av (T=0) share vs CUBIC: ${av[*]}"
for i in 1 2; do
    check "run $i: iperf3 reports its sender on tcp_av" \
        jq -e '.end.sender_tcp_congestion == "tcp_av"' "$TMP/av$i/flow-0.json"
done
check "Reno runs: iperf3 reports its sender on reno" jq -e '.end.sender_tcp_congestion == "reno"' "$TMP/reno1/flow-0.json"
for s in "${av[@]}"; do
    check "tcp_av T=0 share $s within Reno's spread [$lo, $hi] +- 0.05" \
        awk -v s="$s" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(s >= lo - 0.05 && s <= hi + 0.05) }'
done
finish
