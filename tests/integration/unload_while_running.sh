#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `tcpavctl unload` while a tcp_av flow runs: the flow goes on to its end;
# `load` then works again; unload/load are idempotent; load mounts bpffs
# where it is missing; and afterwards no registration, pin, cgroup or
# namespace is left. The flow has a target T = 10 Mbit/s and the 25 Mbit/s
# bottleneck to itself: after the unload the socket keeps the law it was
# given (the kernel holds the struct_ops until its last socket is gone), so
# every second of it still delivers at least 90 % of T.
. "$(dirname "$0")/lib.sh"
tcpav_test_begin tavu "$(tb_htb_rate_for_eb 25000000)" 100
T=10000000
"$TCPAVCTL" rule add --dport 5201 --cc tcp_av --rate 10M >/dev/null

TB_OMIT=0 tb_flows_start "$TMP" 8 rule
sleep 3
check "unload during the flow" "$TCPAVCTL" unload
check "unload again is a no-op that succeeds" "$TCPAVCTL" unload
check "tcp_av is no longer offered for new sockets" \
    bash -c "! grep -qw tcp_av /proc/sys/net/ipv4/tcp_available_congestion_control"
check "load again while the old flow still runs" "$TCPAVCTL" load
check "load twice is a no-op that succeeds" "$TCPAVCTL" load
check "status says loaded" bash -c "$TCPAVCTL status | grep -q 'tcp_av: loaded'"
tb_flows_wait "$TMP" > "$TMP/goodput" || true
check "the flow ran to its end (iperf3 reports no error)" jq -e 'has("error") | not' "$TMP/flow-0.json"
check "after the unload the flow kept 90 % of T in every second (4-8 s: $(jq -c '[.intervals[4:][] | .sum.bits_per_second / 1e6 | floor]' "$TMP/flow-0.json") Mbit/s)" \
    jq -e --argjson t $T '[.intervals[4:][] | .sum.bits_per_second] | min >= 0.9 * $t' "$TMP/flow-0.json"
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
