#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/captures/record.sh - records the project's own capture corpus on the
# namespace test bed (experiments/testbed/testbed.sh). Needs root, tcpdump,
# iperf3, tc and clang (for the reordering classifier). The VLAN variants
# of its Ethernet recordings are written by variants.sh (no network):
# run it after re-recording eth_loss_snd or eth6_loss_rcv.
#
#   tests/captures/record.sh [-b BUILD] [CAPTURE...]   (default: all of them)
#
# Each recording takes the machine-wide network lock ($TCPAV_NET_LOCK,
# default /tmp/tcpav-net.lock) for itself, builds a test bed named
# $TB_NAME (default tcpavcap) on 10.$TB_NET.x.x / fd00:$TB_NET:x::
# (default 181), and tears it down again. A capture is written to a
# temporary file and moved into tests/captures/ only when the recording
# succeeded. Recordings are bounded in bytes (iperf3 -n) and in time
# (timeout), so re-running gives captures of the same shape, not the same
# bytes. Afterwards run tests/captures/oracle.sh for the figures.
# The captures are committed: `make check` never records.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=build
if [[ ${1:-} == -b ]]; then
    build=${2:?usage: record.sh [-b BUILD] [CAPTURE...]}
    shift 2
fi
# shellcheck source=../../experiments/testbed/testbed.sh
. "$top/experiments/testbed/testbed.sh"
export TB_NET=${TB_NET:-181}
name=${TB_NAME:-tcpavcap}
lock=${TCPAV_NET_LOCK:-/tmp/tcpav-net.lock}
all=(eth_reorder_rcv eth_reorder_cli eth_loss_snd eth6_loss_rcv sll_any_rcv sll2_any_snd6 sll2_any_rtr)

die() { echo "record.sh: $*" >&2; exit 1; }

# ---------------------------------------------------------------- helpers

# bed RATE QLEN [ipv6]: the three-namespace test bed (HTB bottleneck of RATE
# with a pfifo of QLEN packets on rtr -> rcv); with "ipv6" also fd00:N:1::/64
# and fd00:N:2::/64 (no DAD, so the addresses are usable at once).
bed() {
    tb_up "$name" "$1" "$2" || exit 1
    if [[ ${3:-} == ipv6 ]]; then
        local n=$TB_NET
        ip netns exec "$TB_RTR" sysctl -qw net.ipv6.conf.all.forwarding=1 &&
            ip -n "$TB_SND" addr add "fd00:$n:1::1/64" dev snd0 nodad &&
            ip -n "$TB_RTR" addr add "fd00:$n:1::fe/64" dev rtr-snd nodad &&
            ip -n "$TB_RTR" addr add "fd00:$n:2::fe/64" dev rtr-rcv nodad &&
            ip -n "$TB_RCV" addr add "fd00:$n:2::1/64" dev rcv0 nodad &&
            ip -n "$TB_SND" -6 route add default via "fd00:$n:1::fe" &&
            ip -n "$TB_RCV" -6 route add default via "fd00:$n:2::fe" ||
            die "cannot add IPv6 to the test bed"
        RCV6=fd00:$n:2::1
    fi
    # neighbours resolved before anything is recorded: a first SYN lost
    # while the link-local addresses are still tentative (IPv6 neighbour
    # discovery waits for them, about 2 s) is not what is measured
    reachable "$TB_RCV_ADDR"
    [[ ${3:-} != ipv6 ]] || reachable "$RCV6"
}

reachable() {
    local i
    for ((i = 0; i < 10; i++)); do
        ip netns exec "$TB_SND" ping -q -c 1 -W 1 "$1" >/dev/null 2>&1 && return 0
    done
    die "$1 not reachable from $TB_SND"
}

# capture_start NS TCPDUMP_ARGS...: tcpdump in NS, to $tmp/cap; returns when
# it listens. Sets cap_pid.
capture_start() {
    local ns=$1 i
    shift
    ip netns exec "$ns" tcpdump -Z root -n --immediate-mode "$@" -w "$tmp/cap" </dev/null 2>"$tmp/tcpdump.err" &
    cap_pid=$!
    for ((i = 0; i < 100; i++)); do
        grep -qs 'listening on' "$tmp/tcpdump.err" && return 0
        kill -0 "$cap_pid" 2>/dev/null || break
        sleep 0.05
    done
    die "tcpdump did not start: $(head -1 "$tmp/tcpdump.err")"
}

# capture_stop OUTFILE: stop tcpdump, move the capture into place.
capture_stop() {
    sleep 0.3 # the last ACKs and FINs
    kill -INT "$cap_pid" 2>/dev/null
    wait "$cap_pid"
    grep -qx '0 packets dropped by kernel' "$tmp/tcpdump.err" ||
        die "tcpdump dropped packets: $(grep 'dropped by kernel' "$tmp/tcpdump.err")"
    [[ -s $tmp/cap ]] || die "empty capture"
    mv -f "$tmp/cap" "$here/$1" || die "cannot write $here/$1"
    echo "record.sh: $1: $(stat -c %s "$here/$1") bytes, $(grep 'packets captured' "$tmp/tcpdump.err")"
}

# sinks PORT...: one bulk_flow sink per PORT in rcv, listening on return.
sinks() {
    local port i
    for port in "$@"; do
        ip netns exec "$TB_RCV" timeout 60 "$bulk" sink "$port" </dev/null >/dev/null &
        sink_pids+=("$!")
        for ((i = 0; i < 100; i++)); do
            [[ -n $(ip netns exec "$TB_RCV" ss -ltnH "sport = :$port") ]] && continue 2
            sleep 0.05
        done
        die "sink on port $port did not start"
    done
}

# transfer ADDR PORT BYTES CC: one bounded bulk transfer from snd to a sink,
# in the background; it ends with FINs once every byte is acknowledged.
transfer() {
    ip netns exec "$TB_SND" timeout 60 "$bulk" send "$@" </dev/null &
    xfer_pids+=("$!")
}

# transfers_wait: wait for the transfers and their sinks.
transfers_wait() {
    local pid
    for pid in "${xfer_pids[@]}" "${sink_pids[@]}"; do
        wait "$pid" || die "a transfer failed or timed out"
    done
    xfer_pids=() sink_pids=()
}

# -------------------------------------------------------------- recordings

# Reordering without netem, captured at the receiver. Two HTB leaf classes
# on rtr -> rcv: 1:10 (FAST_RATE, the default class) and 1:20 (SLOW_RATE).
# A background bulk flow in each keeps a standing queue there (pfifo of
# FAST_QLEN / SLOW_QLEN packets; about 0.7..1 times QLEN * 1514 * 8 / RATE
# seconds under CUBIC). A cls_bpf classifier (reorder_steer.bpf.c) sends
# every STEER_EVERY-th data segment of the measured flow (port 5201) to
# 1:20, where it waits longer than the segments sent after it. The
# measured flow's handshake waits in 1:10's standing queue, so the RTT
# tshark measures on the handshake (its threshold for "out of order") is
# that queue's delay: a steered segment that fills its hole less than that
# after the highest one is out of order for tshark, one the sender has
# already retransmitted is a retransmission.
# reorder_bed SOURCE|DEST: the reordering bed above, with the classifier
# steering the data segments from (SOURCE) or to (DEST) port 5201, and the
# two background flows running (their pids in bg).
reorder_bed() {
    local fast=${FAST_RATE:-16mbit} fast_qlen=${FAST_QLEN:-30} slow=${SLOW_RATE:-4mbit} slow_qlen=${SLOW_QLEN:-10}
    local every=${STEER_EVERY:-10} d=rtr-rcv by=()
    [[ $1 == SOURCE ]] && by=(-DSTEER_SOURCE_PORT)
    clang -O2 -g -target bpf -Wall -Werror -I"/usr/include/$(gcc -dumpmachine)" \
        -DSTEER_EVERY="$every" -DSTEER_PORT=5201 -DSTEER_CLASSID=0x10020 "${by[@]}" \
        -c "$here/reorder_steer.bpf.c" -o "$tmp/steer.o" || die "cannot build reorder_steer.bpf.c"
    bed "$fast" "$fast_qlen"
    r=(ip netns exec "$TB_RTR")
    "${r[@]}" tc class add dev $d parent 1: classid 1:20 htb rate "$slow" ceil "$slow" quantum 1514 &&
        "${r[@]}" tc qdisc add dev $d parent 1:20 handle 20: pfifo limit "$slow_qlen" &&
        "${r[@]}" tc filter add dev $d parent 1: protocol ip prio 1 u32 \
            match ip protocol 6 0xff match ip dport 5209 0xffff flowid 1:20 &&
        "${r[@]}" tc filter add dev $d parent 1: protocol ip prio 2 bpf obj "$tmp/steer.o" sec classifier ||
        die "cannot set up the reordering classes"
    sinks 5208 5209
    # the background flows: longer than the measured one, ended by timeout
    bg=()
    ip netns exec "$TB_SND" timeout 8 "$bulk" send "$TB_RCV_ADDR" 5208 100000000000 cubic </dev/null 2>/dev/null &
    bg+=("$!")
    ip netns exec "$TB_SND" timeout 8 "$bulk" send "$TB_RCV_ADDR" 5209 100000000000 cubic </dev/null 2>/dev/null &
    bg+=("$!")
    sleep 2 # the standing queues
}

# reorder_done FILE: stop the capture, show the classes' counters, wait for
# the background flows.
reorder_done() {
    capture_stop "$1"
    "${r[@]}" tc -s class show dev rtr-rcv | grep -A1 '^class' | sed 's/^/# /'
    wait "${bg[@]}"
    xfer_pids=() sink_pids=()
}

# The receiver is the server: it opened passively, so the handshake RTT
# tshark takes is SYN/ACK -> ACK, across the standing queue.
rec_eth_reorder_rcv() {
    local r bg
    reorder_bed DEST
    sinks 5201
    capture_start "$TB_RCV" -i rcv0 -s 96 'tcp port 5201'
    transfer "$TB_RCV_ADDR" 5201 2000000 "${CC:-reno}"
    wait "${xfer_pids[0]}" || die "the measured transfer failed"
    wait "${sink_pids[2]}" || die "the measured transfer's sink failed"
    reorder_done eth_reorder_rcv.pcap
}

# The receiver is the client that opened the connection (a download: the
# server in snd writes, the client in rcv reads), captured at the client.
# Here the handshake RTT is SYN -> SYN/ACK, the SYN/ACK waiting in the
# standing queue; SYN/ACK -> ACK is only the client's own reply time.
rec_eth_reorder_cli() {
    local r bg i srv
    reorder_bed SOURCE
    ip netns exec "$TB_SND" timeout 60 "$bulk" serve 5201 1000000 "${CC:-reno}" </dev/null >/dev/null &
    srv=$!
    for ((i = 0; i < 100; i++)); do
        [[ -n $(ip netns exec "$TB_SND" ss -ltnH "sport = :5201") ]] && break
        sleep 0.05
    done
    ((i < 100)) || die "the server on port 5201 did not start"
    capture_start "$TB_RCV" -i rcv0 -s 128 'tcp port 5201'
    ip netns exec "$TB_RCV" timeout 60 "$bulk" fetch "$TB_SND_ADDR" 5201 </dev/null >/dev/null ||
        die "the measured download failed"
    wait "$srv" || die "the measured download's server failed"
    reorder_done eth_reorder_cli.pcap
}

# Losses from the HTB bottleneck's small pfifo: two flows (Reno, CUBIC) of
# 1 MB at once through 8 Mbit/s with an 8-packet queue, so the queue
# overflows: retransmissions, fast retransmissions, dup ACKs, SACK.
loss_bed() { bed 8mbit 8 "$@"; sinks 5201 5202; }
loss_flows() {
    transfer "$1" 5201 1000000 reno
    transfer "$1" 5202 1000000 cubic
    transfers_wait
}

# Ethernet, IPv4, at the sender (snd0).
rec_eth_loss_snd() {
    loss_bed
    capture_start "$TB_SND" -i snd0 -s 96 'tcp port 5201 or tcp port 5202'
    loss_flows "$TB_RCV_ADDR"
    capture_stop eth_loss_snd.pcap
}

# Ethernet, IPv6, at the receiver (rcv0).
rec_eth6_loss_rcv() {
    loss_bed ipv6
    capture_start "$TB_RCV" -i rcv0 -s 128 'ip6 and (tcp port 5201 or tcp port 5202)'
    loss_flows "$RCV6"
    capture_stop eth6_loss_rcv.pcap
}

# Linux cooked v1 (tcpdump -i any), IPv4, at the receiver: one copy of
# each packet (the namespace has one interface besides lo).
rec_sll_any_rcv() {
    loss_bed
    capture_start "$TB_RCV" -i any -y LINUX_SLL -s 96 'tcp port 5201 or tcp port 5202'
    loss_flows "$TB_RCV_ADDR"
    capture_stop sll_any_rcv.pcap
}

# Linux cooked v2 (-i any -y LINUX_SLL2), IPv6, at the sender.
rec_sll2_any_snd6() {
    loss_bed ipv6
    capture_start "$TB_SND" -i any -y LINUX_SLL2 -s 128 'ip6 and (tcp port 5201 or tcp port 5202)'
    loss_flows "$RCV6"
    capture_stop sll2_any_snd6.pcap
}

# Linux cooked v2 at the router: every forwarded packet twice, in on one
# interface and out on the other (link copies); what the HTB queue drops
# only once.
rec_sll2_any_rtr() {
    loss_bed
    capture_start "$TB_RTR" -i any -y LINUX_SLL2 -s 128 'tcp port 5201 or tcp port 5202'
    loss_flows "$TB_RCV_ADDR"
    capture_stop sll2_any_rtr.pcap
}

# --------------------------------------------------------------------- main

if [[ ${1:-} == --one ]]; then
    # one recording, already under the lock
    [[ $(id -u) == 0 ]] || die "needs root (network namespaces)"
    tmp=$(mktemp -d /tmp/tcpav-record.XXXXXX) || die "mktemp failed"
    TB_EXTRA_CLEANUP='rm -rf "$tmp"'
    tb_trap_cleanup "$name"
    xfer_pids=() sink_pids=()
    bulk=$top/$build/tests/bulk_flow
    [[ -x $bulk ]] || die "no $bulk (make BUILD=$build $build/tests/bulk_flow)"
    "rec_$2"
    exit 0
fi

(($#)) || set -- "${all[@]}"
for c in "$@"; do
    declare -F "rec_$c" >/dev/null || die "unknown capture '$c' (known: ${all[*]})"
done
for c in "$@"; do
    flock "$lock" "$0" -b "$build" --one "$c" || die "$c: recording failed"
done
