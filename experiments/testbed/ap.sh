# shellcheck shell=bash
#
# ap.sh -- an "access point" testbed: one server, an AP router with an HTB
# bottleneck, and two stations that share it. Same conventions as
# testbed.sh (source this file; it only defines functions; safe under
# `set -u`, works with or without `set -e`); source testbed.sh first: its
# tb_ns_remove tears these namespaces down, and its tb_iperf_* / tb_wait /
# tb_goodput_bps helpers work with them too.
#
#   . experiments/testbed/testbed.sh; . experiments/testbed/ap.sh
#   TB_EXTRA_CLEANUP="ap_down demo"   # with testbed.sh's tb_trap_cleanup
#   ap_up demo "$(tb_htb_rate_for_eb 20000000)" 50
#   ... traffic from $AP_SRV to $AP_STA1_ADDR / $AP_STA2_ADDR ...
#   ap_down demo
#
# Topology built by ap_up NAME (N = $TB_NET, default 77):
#
#   NAME-srv                 NAME-ap                              NAME-sta1
#   [srv0 10.N.1.1] ---- [ap-srv 10.N.1.254]          +-- ap-sta1 ---- [sta0 10.N.2.1]
#                        [br0 10.N.2.254] bridge of --+
#                         ^ HTB rate=ceil=EB_RATE,    +-- ap-sta2 ---- [sta0 10.N.2.2]
#                           pfifo limit QUEUE_PKTS                      NAME-sta2
#
# Traffic from the server to either station is routed by the AP out of
# br0, whose root qdisc is the bottleneck: both stations share one HTB
# class, as stations share an AP's downlink. Capturing on br0 in NAME-ap
# ($AP_BOTTLENECK_DEV) sees the downlink after the bottleneck (packets
# leave the qdisc, then the capture taps them) and the stations' ACKs as
# they arrive. The uplink (stations -> AP -> server) is unshaped. All
# veths and br0 have tso/gso/gro off, so every packet is MTU sized.
#
# Functions
# ---------
# ap_up NAME [EB_RATE] [QUEUE_PKTS]
#     Build the topology above. EB_RATE is tc syntax (default 25mbit; see
#     testbed.sh's tb_htb_rate_for_eb for a payload capacity), QUEUE_PKTS
#     the pfifo limit (default 100). On any failure: removes whatever was
#     created, prints one line to stderr, returns 1. Refuses (returns 1,
#     touches nothing) if a namespace of that name already exists. Sets and
#     exports AP_SRV AP_AP AP_STA1 AP_STA2 (namespaces), AP_SRV_ADDR
#     AP_STA1_ADDR AP_STA2_ADDR, AP_BOTTLENECK_DEV (br0, in AP_AP).
# ap_down NAME
#     Kill every process in NAME-{srv,ap,sta1,sta2} (`ip netns pids`: TERM,
#     then KILL after ~1 s), delete the namespaces. Idempotent, silent,
#     always returns 0.
#
# Variables read: TB_NET (second address octet, default 77).

# _ap_do CMD...: run CMD with stdout discarded; on failure remember the
# command and the first line of its stderr in _AP_ERR and return 1.
_ap_do() {
    local err
    if ! err=$("$@" 2>&1 >/dev/null); then
        _AP_ERR="'$*' failed${err:+: ${err%%$'\n'*}}"
        return 1
    fi
}

_ap_namespaces() {
    echo "$1-srv $1-ap $1-sta1 $1-sta2"
}

# _ap_build NAME NET RATE QLEN: the actual ap_up steps; stops at the first
# failure (the caller cleans up).
_ap_build() {
    local name=$1 net=$2 rate=$3 qlen=$4
    local srv=$name-srv ap=$name-ap sta1=$name-sta1 sta2=$name-sta2 ns dev i

    for ns in "$srv" "$ap" "$sta1" "$sta2"; do
        _ap_do ip netns add "$ns" || return 1
        _ap_do ip -n "$ns" link set lo up || return 1
    done

    # veth pairs made directly inside their namespaces: no name clashes
    _ap_do ip link add srv0 netns "$srv" type veth peer name ap-srv netns "$ap" || return 1
    _ap_do ip link add sta0 netns "$sta1" type veth peer name ap-sta1 netns "$ap" || return 1
    _ap_do ip link add sta0 netns "$sta2" type veth peer name ap-sta2 netns "$ap" || return 1
    # no STP, ports forward at once
    _ap_do ip -n "$ap" link add br0 type bridge stp_state 0 forward_delay 0 || return 1
    _ap_do ip -n "$ap" link set ap-sta1 master br0 || return 1
    _ap_do ip -n "$ap" link set ap-sta2 master br0 || return 1
    # bridged frames need not go through the (empty) netfilter of NAME-ap
    ip netns exec "$ap" sysctl -qw net.bridge.bridge-nf-call-iptables=0 >/dev/null 2>&1 || true

    for dev in "$srv:srv0" "$sta1:sta0" "$sta2:sta0" "$ap:ap-srv" "$ap:ap-sta1" "$ap:ap-sta2" "$ap:br0"; do
        _ap_do ip netns exec "${dev%%:*}" ethtool -K "${dev#*:}" tso off gso off gro off || return 1
    done

    _ap_do ip -n "$srv" addr add "10.$net.1.1/24" dev srv0 || return 1
    _ap_do ip -n "$ap" addr add "10.$net.1.254/24" dev ap-srv || return 1
    _ap_do ip -n "$ap" addr add "10.$net.2.254/24" dev br0 || return 1
    _ap_do ip -n "$sta1" addr add "10.$net.2.1/24" dev sta0 || return 1
    _ap_do ip -n "$sta2" addr add "10.$net.2.2/24" dev sta0 || return 1
    for dev in "$srv:srv0" "$sta1:sta0" "$sta2:sta0" "$ap:ap-srv" "$ap:ap-sta1" "$ap:ap-sta2" "$ap:br0"; do
        _ap_do ip -n "${dev%%:*}" link set "${dev#*:}" up || return 1
    done

    _ap_do ip -n "$srv" route add default via "10.$net.1.254" || return 1
    for i in "$sta1" "$sta2"; do
        _ap_do ip -n "$i" route add default via "10.$net.2.254" || return 1
    done
    _ap_do ip netns exec "$ap" sysctl -qw net.ipv4.ip_forward=1 || return 1

    # Bottleneck: the AP's egress toward the stations (br0). One HTB class
    # (also the default), rate == ceil, pfifo leaf of QLEN packets; as in
    # testbed.sh.
    _ap_do ip netns exec "$ap" tc qdisc add dev br0 root handle 1: htb default 10 || return 1
    _ap_do ip netns exec "$ap" tc class add dev br0 parent 1: classid 1:10 \
        htb rate "$rate" ceil "$rate" quantum 1514 || return 1
    _ap_do ip netns exec "$ap" tc qdisc add dev br0 parent 1:10 handle 10: \
        pfifo limit "$qlen" || return 1

    export AP_SRV=$srv AP_AP=$ap AP_STA1=$sta1 AP_STA2=$sta2
    export AP_SRV_ADDR=10.$net.1.1 AP_STA1_ADDR=10.$net.2.1 AP_STA2_ADDR=10.$net.2.2
    export AP_BOTTLENECK_DEV=br0
}

# ap_up NAME [EB_RATE] [QUEUE_PKTS] -- see header.
ap_up() {
    local name=${1:-} rate=${2:-25mbit} qlen=${3:-100} n=${TB_NET:-77} ns
    _AP_ERR=""
    if [[ ! $name =~ ^[A-Za-z0-9_.][A-Za-z0-9_.-]*$ ]]; then
        echo "ap_up: bad testbed name '$name' (use [A-Za-z0-9_.-])" >&2
        return 1
    fi
    if [[ ! $n =~ ^[0-9]{1,3}$ ]] || (( 10#$n > 255 )); then
        echo "ap_up: TB_NET must be 0..255, got '$n'" >&2
        return 1
    fi
    if [[ ! $qlen =~ ^[1-9][0-9]*$ ]]; then
        echo "ap_up: QUEUE_PKTS must be a positive integer, got '$qlen'" >&2
        return 1
    fi
    for ns in $(_ap_namespaces "$name"); do
        if [[ -e /run/netns/$ns ]]; then
            echo "ap_up: namespace $ns already exists (run ap_down $name)" >&2
            return 1
        fi
    done
    if ! _ap_build "$name" "$(( 10#$n ))" "$rate" "$qlen"; then
        ap_down "$name"
        echo "ap_up: $name: ${_AP_ERR:-unknown error}" >&2
        return 1
    fi
}

# ap_down NAME -- see header.
ap_down() {
    local name=${1:-}
    [[ $name =~ ^[A-Za-z0-9_.][A-Za-z0-9_.-]*$ ]] || return 0
    # shellcheck disable=SC2046  # namespace names have no spaces
    tb_ns_remove $(_ap_namespaces "$name")
}
