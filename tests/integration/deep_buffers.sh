#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Deep and byte-limited buffers (issue 9, point 1). Grid: EB 25 and 30
# Mbit/s (payload); bottleneck queue of 100 and 1,000 packets (pfifo, every
# veth's offloads off) and of 151,400 and 1,514,000 bytes (bfifo: 100 and
# 1,000 frames of 1514 bytes) with the sender's stack at host defaults (GSO
# super-packets, TSO autosizing) and its device cutting them into frames
# (TB_OFFLOADS=nic: as a host's NIC puts them on the wire and a real AP
# queues them). DEEP_GRID ("QUEUE:OFFLOADS ...", each for both EBs) picks
# the cells, by default the 1,000-frame ones ("1000:off 1514000b:nic");
# buffers_100_frames.sh runs the 100-frame ones, and
# deep_buffers_veth_gso.sh (OPEN) the bfifos fed whole 64 KB super-packets
# over veth (TB_OFFLOADS=host). In each cell
# one tcp_av flow with T = EB/2 (NRT 50 %, a rule on its port) among N - 1
# = 3 CUBIC flows, all started together, measured as unique bytes at the
# receiver's device (flows.sh) over the whole 20 s, start-up included. One
# run per cell (`make bench` runs five). Bounds, from EB, T and N:
#  - AVR = delivered / T within [0.95, 1.10];
#  - the CUBIC flows together get >= 85 % of EB - what tcp_av delivered;
#  - T = EB/2 is above the fair share EB/N = EB/4, so tcp_av never exceeds
#    1.25 T in any window of max(2 s, 4 srtt) (tb_window_s, tcp_av's mean
#    srtt), sliding by 0.1 s, start-up included;
#  - the flow never stalls: every window that starts after the first RTT
#    delivered something (> 0 bits).
# Measured (5 runs per EB, 2026-12-01): AVR 0.998-1.008 and windows
# 0.90-1.11 T at 1,000 packets and 1.5 MB. About 2 minutes per 4 cells.
. "$(dirname "$0")/lib.sh"
SECS=20 N=4
tcpav_test_begin tdb

# cell EB QUEUE OFFLOADS: one run, its checks
cell() {
    local eb=$1 q=$2 off=$3 T=$(($1 / 2)) out="$TMP/$1-$2-$3" srtt w g0 comp=0 i what
    what="EB $(mbit "$eb") queue $q offloads $off"
    if ! TB_OFFLOADS=$off tb_up tdb "$(tb_htb_rate_for_eb "$eb")" "$q"; then
        skip_check "$what: 4 checks" "the testbed did not come up"
        return
    fi
    local id
    id=$("$TCPAVCTL" rule add --dport 5201 --cc tcp_av --rate "$T" | sed -n 's/^rule \([0-9]*\):.*/\1/p')
    TB_OMIT=0 tb_flows_start "$out" "$SECS" rule cubic cubic cubic
    tb_flows_wait "$out" >/dev/null || echo "# $what: a flow reported an error"
    "$TCPAVCTL" rule del "$id" >/dev/null || :
    tb_down tdb
    srtt=$(tb_flow_srtt_us "$out" 0) || srtt=0
    w=$(tb_window_s "$srtt")
    g0=$(tb_flow_goodput "$out" 0 0 "$SECS") || g0=0
    for i in 1 2 3; do comp=$((comp + $(tb_flow_goodput "$out" "$i" 0 "$SECS" || echo 0))); done
    tb_flow_windows "$out" 0 "$w" 0 "$SECS" > "$out/win0" || :
    local max min_after
    max=$(awk 'BEGIN { m = 0 } $3 > m { m = $3 } END { print m }' "$out/win0")
    min_after=$(awk -v r="$srtt" 'BEGIN { m = -1 } $1 >= r / 1e6 && (m < 0 || $3 < m) { m = $3 } END { print m }' "$out/win0")
    echo "# $what: tcp_av $(mbit "$g0") Mbit/s (T $(mbit "$T")), CUBIC $(mbit "$comp"), srtt $((srtt / 1000)) ms, window ${w} s, max window $(mbit "$max"), min $(mbit "$min_after")"
    check "$what: AVR within [0.95, 1.10] ($(pct "$g0" "$T") %)" \
        awk -v g="$g0" -v t="$T" 'BEGIN { exit !(g >= 0.95 * t && g <= 1.10 * t) }'
    check_ge "$what: the CUBIC flows get 85 % of EB - tcp_av" "$comp" "$(((eb - g0) * 85 / 100))"
    check_le "$what: no window above 1.25 T (T above EB/$N)" "$max" "$((T * 125 / 100))"
    check "$what: no window without delivery after the first RTT (min $min_after)" \
        awk -v m="$min_after" 'BEGIN { exit !(m > 0) }'
}

for eb in 25000000 30000000; do
    for c in ${DEEP_GRID:-1000:off 1514000b:nic}; do
        cell "$eb" "${c%%:*}" "${c#*:}"
    done
done
finish
