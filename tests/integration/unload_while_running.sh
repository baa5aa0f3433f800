#!/usr/bin/env bash
# `tcpavctl unload` while a tcp_av flow runs: the flow goes on to its end;
# `load` then works again; unload/load are idempotent; load mounts bpffs
# where it is missing; and afterwards no registration, pin, cgroup or
# namespace is left.
. "$(dirname "$0")/lib.sh"
tcpav_test_begin tavu "$(tb_htb_rate_for_eb 25000000)" 100
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
check "the flow kept carrying data after the unload (intervals 4-8 s)" \
    jq -e '[.intervals[4:][] | .sum.bits_per_second] | min > 1000000' "$TMP/flow-0.json"
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
