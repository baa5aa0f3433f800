# shellcheck shell=bash
#
# ap3.sh -- an "access point" with three stations whose downlink is shaped
# by apqos (not by tc): one server, an AP router, three station namespaces
# on a bridge. Same conventions as testbed.sh and ap.sh (source this file
# after testbed.sh; it only defines functions; safe under `set -u`, works
# with or without `set -e`); testbed.sh's tb_ns_remove tears it down and
# its tb_iperf_* / tb_wait / tb_goodput_bps helpers work with it.
#
#   . experiments/testbed/testbed.sh; . experiments/testbed/ap3.sh
#   TB_EXTRA_CLEANUP="ap3_down demo"       # with testbed.sh's tb_trap_cleanup
#   APQOS=build/bin/apqos ap3_up demo 30M  # tree: root class 1:1 at 30 Mbit/s
#   ip netns exec "$AP3_AP" "$APQOS" -i br0 guarantee "$AP3_STA1_MAC" 15M
#   ... traffic from $AP3_SRV to $AP3_STA1_ADDR ... $AP3_STA3_ADDR ...
#   ap3_down demo
#
# Topology built by ap3_up NAME (N = $TB_NET, default 77):
#
#   NAME-srv                NAME-ap                             NAME-staK (K = 1..3)
#   [srv0 10.N.1.1] --- [ap-srv 10.N.1.254]        +-- ap-staK --- [sta0 10.N.2.K]
#                       [br0 10.N.2.254] bridge of-+                 MAC 02:a3:00:00:00:0K
#                        ^ egress: apqos's HTB tree (apqos -i br0 --link-rate RATE setup)
#
# The server's traffic to the stations is routed by the AP out of br0, so
# br0's root qdisc is the shared downlink; the uplink is unshaped. All
# veths and br0 have tso/gso/gro off (every packet MTU sized: HTB counts
# 1514-byte frames for 1448 bytes of TCP payload, see tb_htb_rate_for_eb).
#
# Functions
# ---------
# ap3_up NAME [LINK_RATE] [QUEUE_PKTS]
#     Build the topology. If LINK_RATE is given (apqos syntax, e.g. 30M or
#     30mbit), run `$APQOS -i br0 --link-rate LINK_RATE --queue QUEUE_PKTS
#     setup` in NAME-ap (APQOS defaults to `apqos` on the PATH; QUEUE_PKTS
#     to 100): the bottleneck is apqos's root class; without LINK_RATE br0
#     keeps its default (noqueue, unshaped). On any failure: removes
#     whatever was created, prints one line to stderr, returns 1. Refuses
#     (returns 1, touches nothing) if a namespace of that name exists.
#     Exports AP3_SRV AP3_AP AP3_STA1 AP3_STA2 AP3_STA3 (namespaces),
#     AP3_SRV_ADDR AP3_STA{1,2,3}_ADDR, AP3_STA{1,2,3}_MAC, AP3_DEV (br0).
# ap3_down NAME
#     Kill every process in NAME-{srv,ap,sta1,sta2,sta3} and delete the
#     namespaces. Idempotent, silent, always returns 0.
#
# Variables read: TB_NET (second address octet, default 77), APQOS.

_ap3_do() {
    local err
    if ! err=$("$@" 2>&1 >/dev/null); then
        _AP3_ERR="'$*' failed${err:+: ${err%%$'\n'*}}"
        return 1
    fi
}

_ap3_namespaces() {
    echo "$1-srv $1-ap $1-sta1 $1-sta2 $1-sta3"
}

_ap3_build() {
    local name=$1 net=$2 rate=$3 qlen=$4
    local srv=$name-srv ap=$name-ap ns dev k sta

    for ns in $(_ap3_namespaces "$name"); do
        _ap3_do ip netns add "$ns" || return 1
        _ap3_do ip -n "$ns" link set lo up || return 1
    done
    _ap3_do ip link add srv0 netns "$srv" type veth peer name ap-srv netns "$ap" || return 1
    _ap3_do ip -n "$ap" link add br0 type bridge stp_state 0 forward_delay 0 || return 1
    ip netns exec "$ap" sysctl -qw net.bridge.bridge-nf-call-iptables=0 >/dev/null 2>&1 || true
    for k in 1 2 3; do
        sta=$name-sta$k
        _ap3_do ip link add sta0 netns "$sta" address "02:a3:00:00:00:0$k" type veth \
            peer name "ap-sta$k" netns "$ap" || return 1
        _ap3_do ip -n "$ap" link set "ap-sta$k" master br0 || return 1
    done
    for dev in "$srv:srv0" "$ap:ap-srv" "$ap:br0" "$ap:ap-sta1" "$ap:ap-sta2" "$ap:ap-sta3" \
        "$name-sta1:sta0" "$name-sta2:sta0" "$name-sta3:sta0"; do
        _ap3_do ip netns exec "${dev%%:*}" ethtool -K "${dev#*:}" tso off gso off gro off || return 1
    done
    _ap3_do ip -n "$srv" addr add "10.$net.1.1/24" dev srv0 || return 1
    _ap3_do ip -n "$ap" addr add "10.$net.1.254/24" dev ap-srv || return 1
    _ap3_do ip -n "$ap" addr add "10.$net.2.254/24" dev br0 || return 1
    for k in 1 2 3; do
        _ap3_do ip -n "$name-sta$k" addr add "10.$net.2.$k/24" dev sta0 || return 1
    done
    for dev in "$srv:srv0" "$ap:ap-srv" "$ap:ap-sta1" "$ap:ap-sta2" "$ap:ap-sta3" "$ap:br0" \
        "$name-sta1:sta0" "$name-sta2:sta0" "$name-sta3:sta0"; do
        _ap3_do ip -n "${dev%%:*}" link set "${dev#*:}" up || return 1
    done
    _ap3_do ip -n "$srv" route add default via "10.$net.1.254" || return 1
    for k in 1 2 3; do
        _ap3_do ip -n "$name-sta$k" route add default via "10.$net.2.254" || return 1
    done
    _ap3_do ip netns exec "$ap" sysctl -qw net.ipv4.ip_forward=1 || return 1

    # The bottleneck is apqos's: its tree's root class at LINK_RATE.
    if [[ -n $rate ]]; then
        _ap3_do ip netns exec "$ap" "${APQOS:-apqos}" -i br0 --link-rate "$rate" \
            --queue "$qlen" setup || return 1
    fi

    export AP3_SRV=$srv AP3_AP=$ap AP3_STA1=$name-sta1 AP3_STA2=$name-sta2 AP3_STA3=$name-sta3
    export AP3_SRV_ADDR=10.$net.1.1 AP3_STA1_ADDR=10.$net.2.1 AP3_STA2_ADDR=10.$net.2.2
    export AP3_STA3_ADDR=10.$net.2.3 AP3_DEV=br0
    export AP3_STA1_MAC=02:a3:00:00:00:01 AP3_STA2_MAC=02:a3:00:00:00:02
    export AP3_STA3_MAC=02:a3:00:00:00:03
}

# ap3_up NAME [LINK_RATE] [QUEUE_PKTS] -- see header.
ap3_up() {
    local name=${1:-} rate=${2:-} qlen=${3:-100} n=${TB_NET:-77} ns
    _AP3_ERR=""
    if [[ ! $name =~ ^[A-Za-z0-9_.][A-Za-z0-9_.-]*$ ]]; then
        echo "ap3_up: bad testbed name '$name' (use [A-Za-z0-9_.-])" >&2
        return 1
    fi
    if [[ ! $n =~ ^[0-9]{1,3}$ ]] || (( 10#$n > 255 )); then
        echo "ap3_up: TB_NET must be 0..255, got '$n'" >&2
        return 1
    fi
    if [[ ! $qlen =~ ^[1-9][0-9]*$ ]]; then
        echo "ap3_up: QUEUE_PKTS must be a positive integer, got '$qlen'" >&2
        return 1
    fi
    for ns in $(_ap3_namespaces "$name"); do
        if [[ -e /run/netns/$ns ]]; then
            echo "ap3_up: namespace $ns already exists (run ap3_down $name)" >&2
            return 1
        fi
    done
    if ! _ap3_build "$name" "$(( 10#$n ))" "$rate" "$qlen"; then
        ap3_down "$name"
        echo "ap3_up: $name: ${_AP3_ERR:-unknown error}" >&2
        return 1
    fi
}

# ap3_down NAME -- see header.
ap3_down() {
    local name=${1:-}
    [[ $name =~ ^[A-Za-z0-9_.][A-Za-z0-9_.-]*$ ]] || return 0
    # shellcheck disable=SC2046  # namespace names have no spaces
    tb_ns_remove $(_ap3_namespaces "$name")
}
