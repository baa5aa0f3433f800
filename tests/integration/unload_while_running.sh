#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `tcpavctl unload` while a tcp_av flow runs: the flow goes on to its end;
# `load` then works again; unload/load are idempotent; load mounts bpffs
# where it is missing; and afterwards no registration, pin, cgroup or
# namespace is left. After the unload the socket keeps the law it was
# given (the kernel holds the struct_ops until its last socket is gone):
#  - ss shows it on tcp_av, paced in the law's range for T (pacing_in_law:
#    at least T, at most 4 max(2.5 T, 2 cwnd mss / srtt));
#  - its rate: the flow has T = 10 Mbit/s against N = 2 CUBIC flows on a
#    bottleneck of EB = 25 Mbit/s, so T is above the fair share
#    EB / (N + 1) = 8.33 Mbit/s. A flow that lost the law would get at
#    most about that share (Reno-like against CUBIC: less), so the bound,
#    90 % of T = 9 Mbit/s on average over seconds 4-12 (after the unload at
#    3 s; eight 1 s samples, so one slow second does not decide it), fails
#    without it; with it the flow holds T (target_among_cubic:
#    AVR >= 95 %).
. "$(dirname "$0")/lib.sh"
tcpav_test_begin tavu "$(tb_htb_rate_for_eb 25000000)" 100
EB=25000000 T=10000000 N=2
"$TCPAVCTL" rule add --dport 5201 --cc tcp_av --rate 10M >/dev/null

TB_OMIT=0 tb_flows_start "$TMP" 12 rule cubic cubic
sleep 3
check "unload during the flow" "$TCPAVCTL" unload
check "unload again is a no-op that succeeds" "$TCPAVCTL" unload
check "tcp_av is no longer offered for new sockets" \
    bash -c "! grep -qw tcp_av /proc/sys/net/ipv4/tcp_available_congestion_control"
check "load again while the old flow still runs" "$TCPAVCTL" load
check "load twice is a no-op that succeeds" "$TCPAVCTL" load
check "status says loaded" bash -c "$TCPAVCTL status | grep -q 'tcp_av: loaded'"
sleep 1
ss_line=$(ss_data "$TB_SND" 5201)
cc=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^(tcp_av|cubic|reno|bbr)$/) { print $i; exit } }' <<<"$ss_line")
echo "# after the unload: $cc, cwnd $(ss_field "$ss_line" cwnd), pacing_rate $(ss_field "$ss_line" pacing_rate), srtt $(ss_field "$ss_line" rtt) ms"
check "after the unload the socket is still on tcp_av (ss shows '$cc')" test "$cc" = tcp_av
check "after the unload the kernel paces it within the law's range for T = 10M" pacing_in_law "$ss_line" $T
tb_flows_wait "$TMP" > "$TMP/goodput" || true
check "the flow ran to its end (iperf3 reports no error)" jq -e 'has("error") | not' "$TMP/flow-0.json"
echo "# goodput, Mbit/s: tcp_av $(mbit "$(sed -n 's/^0 //p' "$TMP/goodput")"), cubic $(mbit "$(sed -n 's/^1 //p' "$TMP/goodput")") $(mbit "$(sed -n 's/^2 //p' "$TMP/goodput")"); fair share $(mbit $((EB / (N + 1))))"
check "after the unload the flow kept 90 % of T above the fair share EB / (N + 1) (4-12 s: mean $(jq '[.intervals[4:][] | .sum.bits_per_second] | add / length / 1e4 | round / 100' "$TMP/flow-0.json") of $(jq -c '[.intervals[4:][] | .sum.bits_per_second / 1e5 | round / 10]' "$TMP/flow-0.json") Mbit/s >= 9)" \
    jq -e --argjson t $T '[.intervals[4:][] | .sum.bits_per_second] | length >= 7 and add / length >= 0.9 * $t' "$TMP/flow-0.json"
check "its sender was tcp_av" jq -e '.end.sender_tcp_congestion == "tcp_av"' "$TMP/flow-0.json"
"$TCPAVCTL" unload >/dev/null
# a host without bpffs mounted: load mounts it (in a private mount namespace
# here, so the host's bpffs is left alone; unload there too)
check "load mounts bpffs where it is missing, and works" unshare -m --propagation private sh -c "
    while mountpoint -q /sys/fs/bpf; do umount /sys/fs/bpf || exit 1; done
    $TCPAVCTL load && mountpoint -q /sys/fs/bpf && $TCPAVCTL status | grep -q 'tcp_av: loaded'
    rc=\$?; $TCPAVCTL unload; exit \$rc"
check "after the test: no registration, pin, cgroup or namespace left" nothing_left tavu
finish
