# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# ap.sh -- an "access point" testbed: one server, an AP router, and
# AP_STATIONS (default 2, at most 9) stations on a bridge that share the
# AP's downlink. Same conventions as testbed.sh (source this file; it only
# defines functions; safe under `set -u`, works with or without `set -e`);
# source testbed.sh first: its helpers build this, its tb_ns_remove tears it
# down, and its tb_iperf_* / tb_wait / tb_goodput_bps work with it too.
#
#   . experiments/testbed/testbed.sh; . experiments/testbed/ap.sh
#   TB_EXTRA_CLEANUP="ap_down demo"   # with testbed.sh's tb_trap_cleanup
#   ap_up demo "$(tb_htb_rate_for_eb 20000000)" 50
#   ... traffic from $AP_SRV to $AP_STA1_ADDR / $AP_STA2_ADDR ...
#   ap_down demo
#
#   AP_STATIONS=3 ap_up demo none     # br0 unshaped: shape it yourself,
#   ip netns exec "$AP_AP" apqos -i br0 --link-rate 30M setup   # e.g. apqos
#   AP_SHAPE=up ap_up demo 25mbit 100 # the uplink shaped instead (ap-srv)
#
# Topology built by ap_up NAME (N = $TB_NET, default 77; K = 1..AP_STATIONS):
#
#   NAME-srv                 NAME-ap                              NAME-staK
#   [srv0 10.N.1.1] ---- [ap-srv 10.N.1.254]          +-- ap-staK ---- [sta0 10.N.2.K]
#                        [br0 10.N.2.254] bridge of --+                 MAC 02:a9:00:00:00:0K
#                         ^ HTB rate=ceil=EB_RATE,
#                           pfifo limit QUEUE_PKTS (or nothing: EB_RATE "none")
#                           on br0; with AP_SHAPE=up on ap-srv instead
#
# Traffic from the server to a station is routed by the AP out of br0,
# whose root qdisc is the bottleneck: the stations share one HTB class, as
# stations share an AP's downlink. Capturing on br0 in NAME-ap
# ($AP_BOTTLENECK_DEV) sees the downlink after the bottleneck (packets
# leave the qdisc, then the capture taps them) and the stations' ACKs as
# they arrive. The uplink (stations -> AP -> server) is unshaped. All
# veths and br0 have tso/gso/gro off, so every packet is MTU sized.
#
# AP_SHAPE=up turns it around: the HTB and its pfifo go on the AP's egress
# toward the server (ap-srv, then $AP_BOTTLENECK_DEV), the stations share
# it as they share an AP's uplink, and br0 (the downlink, the ACKs to the
# stations) is unshaped.
#
# Functions
# ---------
# ap_up NAME [EB_RATE] [QUEUE_PKTS]
#     Build the topology above. EB_RATE is tc syntax (default 25mbit; see
#     testbed.sh's tb_htb_rate_for_eb for a payload capacity), or "none"
#     for no qdisc on br0; QUEUE_PKTS the pfifo limit (default 100). On
#     any failure: removes whatever was created, prints one line to
#     stderr, returns 1. AP_SHAPE (down|up, default down) picks the
#     shaped egress: br0 (toward the stations) or ap-srv (toward the
#     server). Refuses (returns 1, touches nothing) if a
#     namespace of that name already exists. Sets and exports AP_SRV
#     AP_AP AP_STAK (namespaces), AP_SRV_ADDR AP_STAK_ADDR, AP_STAK_MAC,
#     AP_BOTTLENECK_DEV (br0, or ap-srv with AP_SHAPE=up; in AP_AP).
# ap_down NAME
#     Kill every process in NAME-{srv,ap,sta1..sta9} (`ip netns pids`:
#     TERM, then KILL after ~1 s), delete the namespaces. Idempotent,
#     silent, always returns 0.
#
# Variables read: TB_NET (second address octet, default 77), AP_STATIONS,
# AP_SHAPE.

# _ap_namespaces NAME [N]: the namespaces of N stations (all 9 by default,
# so that ap_down finds whatever ap_up made)
_ap_namespaces() {
    local k out="$1-srv $1-ap"
    for ((k = 1; k <= ${2:-9}; k++)); do
        out+=" $1-sta$k"
    done
    echo "$out"
}

# _ap_build NAME NET RATE QLEN N SHAPED_DEV: the actual ap_up steps, with
# testbed.sh's _tb_do (the failure lands in _TB_ERR); stops at the first
# failure (the caller cleans up).
_ap_build() {
    local name=$1 net=$2 rate=$3 qlen=$4 n=$5 bdev=$6
    local srv=$name-srv ap=$name-ap ns dev k devs

    for ns in $(_ap_namespaces "$name" "$n"); do
        _tb_do ip netns add "$ns" || return 1
        _tb_do ip -n "$ns" link set lo up || return 1
    done

    # veth pairs made directly inside their namespaces: no name clashes;
    # the bridge has no STP, ports forward at once
    _tb_do ip link add srv0 netns "$srv" type veth peer name ap-srv netns "$ap" || return 1
    _tb_do ip -n "$ap" link add br0 type bridge stp_state 0 forward_delay 0 || return 1
    devs="$srv:srv0 $ap:ap-srv $ap:br0"
    for ((k = 1; k <= n; k++)); do
        _tb_do ip link add sta0 netns "$name-sta$k" address "02:a9:00:00:00:0$k" type veth \
            peer name "ap-sta$k" netns "$ap" || return 1
        _tb_do ip -n "$ap" link set "ap-sta$k" master br0 || return 1
        devs+=" $name-sta$k:sta0 $ap:ap-sta$k"
    done
    # bridged frames need not go through the (empty) netfilter of NAME-ap
    ip netns exec "$ap" sysctl -qw net.bridge.bridge-nf-call-iptables=0 >/dev/null 2>&1 || true

    for dev in $devs; do
        _tb_no_offloads "${dev%%:*}" "${dev#*:}" || return 1
    done
    _tb_do ip -n "$srv" addr add "10.$net.1.1/24" dev srv0 || return 1
    _tb_do ip -n "$ap" addr add "10.$net.1.254/24" dev ap-srv || return 1
    _tb_do ip -n "$ap" addr add "10.$net.2.254/24" dev br0 || return 1
    for ((k = 1; k <= n; k++)); do
        _tb_do ip -n "$name-sta$k" addr add "10.$net.2.$k/24" dev sta0 || return 1
    done
    for dev in $devs; do
        _tb_do ip -n "${dev%%:*}" link set "${dev#*:}" up || return 1
    done

    _tb_do ip -n "$srv" route add default via "10.$net.1.254" || return 1
    for ((k = 1; k <= n; k++)); do
        _tb_do ip -n "$name-sta$k" route add default via "10.$net.2.254" || return 1
    done
    _tb_do ip netns exec "$ap" sysctl -qw net.ipv4.ip_forward=1 || return 1

    # Bottleneck: the AP's egress toward the stations (br0), or with
    # AP_SHAPE=up toward the server (ap-srv). One HTB class (also the
    # default), rate == ceil, pfifo leaf of QLEN packets; as in testbed.sh.
    # "none": the caller shapes it (apqos's tests).
    if [[ $rate != none ]]; then
        _tb_do ip netns exec "$ap" tc qdisc add dev "$bdev" root handle 1: htb default 10 || return 1
        _tb_do ip netns exec "$ap" tc class add dev "$bdev" parent 1: classid 1:10 \
            htb rate "$rate" ceil "$rate" quantum 1514 || return 1
        _tb_do ip netns exec "$ap" tc qdisc add dev "$bdev" parent 1:10 handle 10: \
            pfifo limit "$qlen" || return 1
    fi

    export AP_SRV=$srv AP_AP=$ap AP_SRV_ADDR=10.$net.1.1 AP_BOTTLENECK_DEV=$bdev
    for ((k = 1; k <= n; k++)); do
        export "AP_STA$k=$name-sta$k" "AP_STA${k}_ADDR=10.$net.2.$k" "AP_STA${k}_MAC=02:a9:00:00:00:0$k"
    done
}

# ap_up NAME [EB_RATE] [QUEUE_PKTS] -- see header.
ap_up() {
    local name=${1:-} rate=${2:-25mbit} qlen=${3:-100} n=${AP_STATIONS:-2} ns bdev
    _TB_ERR=""
    if ! _tb_check_name "$name" || ! _tb_check_net; then
        echo "ap_up: $_TB_ERR" >&2
        return 1
    fi
    if [[ ! $qlen =~ ^[1-9][0-9]*$ ]]; then
        echo "ap_up: QUEUE_PKTS must be a positive integer, got '$qlen'" >&2
        return 1
    fi
    if [[ ! $n =~ ^[1-9]$ ]]; then
        echo "ap_up: AP_STATIONS must be 1..9, got '$n'" >&2
        return 1
    fi
    case ${AP_SHAPE:-down} in
    down) bdev=br0 ;;
    up) bdev="ap-srv" ;;
    *)
        echo "ap_up: AP_SHAPE must be 'down' or 'up', got '$AP_SHAPE'" >&2
        return 1
        ;;
    esac
    for ns in $(_ap_namespaces "$name"); do
        if _tb_ns_exists "$ns"; then
            echo "ap_up: namespace $ns already exists (run ap_down $name)" >&2
            return 1
        fi
    done
    if ! _ap_build "$name" "$(( 10#${TB_NET:-77} ))" "$rate" "$qlen" "$n" "$bdev"; then
        ap_down "$name"
        echo "ap_up: $name: ${_TB_ERR:-unknown error}" >&2
        return 1
    fi
}

# ap_down NAME -- see header.
ap_down() {
    local name=${1:-}
    _tb_check_name "$name" || return 0
    # shellcheck disable=SC2046  # namespace names have no spaces
    tb_ns_remove $(_ap_namespaces "$name")
}
