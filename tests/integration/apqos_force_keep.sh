#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# apqos --force keeps what it replaces, or refuses. For a foreign root
# qdisc of each kind libnl-route-3 re-creates faithfully (pfifo, bfifo,
# tbf with peakrate/mpu/overhead, htb without classes), set up by tc with
# non-default parameters and a non-default handle, a change that fails
# after the replacement puts it back: `tc -d qdisc show` (parameters
# included) is the same as before, and its byte counter is below what the
# pings before had sent through it: it was really replaced and re-created
# (the counters start again from 0). Two failures are forced with test failpoints (TCPAV_FAILPOINT,
# read by apqos only for these tests; see ap-tools/qos.h):
#   apqos-after-root-replace  setup: adding class 1:1, the step right after
#                             the new root qdisc, fails
#   apqos-station-class       guarantee: the station's class fails, after
#                             the whole tree was built (journal rollback)
# Trees libnl cannot re-create are refused with --force before anything is
# touched: one line, exit 1, tc unchanged (htb with a class, htb with a
# filter, htb with a non-default direct_qlen, tbf with a child qdisc, a size
# table, pfifo_fast). And --force without a failure still replaces. A
# clsact qdisc with a filter stays on the device throughout, untouched.
# Namespaces aqk-snd/aqk-rcv (10.88.3.x); cleans up on any exit.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/apqos_lib.sh"

NAME=aqk
apqos_pair_up "$NAME" 88
tcn() { ip netns exec "$NS" tc "$@"; }
M1=02:00:00:00:00:01

# The configuration apqos may change, parameters included, counters not
# (htb prints its direct_packets_stat counter among its parameters).
tc_state() {
    tcn -d qdisc show dev "$DEV" | sed -E 's/ direct_packets_stat [0-9]+//'
    tcn -d class show dev "$DEV"
    tcn filter show dev "$DEV"
    tcn filter show dev "$DEV" egress
}
same_state() { tc_state > "$TMP/now"; diff "$1" "$TMP/now" >&2; }
root_sent() { tcn -s -j qdisc show dev "$DEV" | jq '[.[] | select(.root == true) | .bytes][0]'; }

# no IPv6 on the pair: no neighbour discovery through the qdiscs
ip netns exec "$NS" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
check "tc: clsact with an egress filter (stays throughout)" eval \
    'tcn qdisc add dev "$DEV" clsact && tcn filter add dev "$DEV" egress protocol ip pref 5 u32 match ip tos 0x10 0xff classid 1:1'

# kept DESC TC-QDISC-ARGS...: installs the root qdisc, sends pings through
# it, then makes setup and guarantee fail after the replacement
kept() {
    local desc=$1 rc failpoint args sent
    shift
    check "$desc: tc qdisc add dev DEV root $*" tcn qdisc add dev "$DEV" root "$@"
    ip netns exec "$NS" ping -c 3 -i 0.2 -q "$TB_RCV_ADDR" >/dev/null
    tc_state > "$TMP/before"
    echo "# $desc: $(tcn -d qdisc show dev "$DEV" | head -1)"
    check "$desc: the pings went through it ($(root_sent) bytes)" test "$(root_sent)" -gt 0
    for failpoint in apqos-after-root-replace apqos-station-class; do
        if [[ $failpoint == apqos-after-root-replace ]]; then
            args=(setup)
        else
            args=(guarantee "$M1" 5M)
        fi
        rc=0 sent=$(root_sent)
        TCPAV_FAILPOINT=$failpoint ip netns exec "$NS" "$APQOS" -i "$DEV" --force --link-rate 100M \
            "${args[@]}" >"$TMP/out" 2>"$TMP/err" || rc=$?
        echo "# $desc: ${args[0]} with $failpoint: rc=$rc: $(head -c 300 "$TMP/err")"
        check "$desc: ${args[0]} failing at $failpoint: exit 1, one line naming it" \
            test "$rc" -eq 1 -a "$(wc -l < "$TMP/err")" -eq 1 -a -n "$(grep "^apqos: .*failpoint $failpoint" "$TMP/err")"
        check "$desc: ... tc -d qdisc/class/filter show as before" same_state "$TMP/before"
        check "$desc: ... its byte counter restarted: it was replaced and put back ($(root_sent) < $sent)" \
            test "$(root_sent)" -lt "$sent"
        ip netns exec "$NS" ping -c 2 -i 0.2 -q "$TB_RCV_ADDR" >/dev/null
    done
    check "$desc: removed by tc" tcn qdisc del dev "$DEV" root
}

# 1. what is kept
kept "pfifo" handle 8002: pfifo limit 37
kept "bfifo" handle 8003: bfifo limit 23456
kept "tbf" handle 8004: tbf rate 3mbit burst 12k latency 70ms peakrate 4mbit mtu 1600 mpu 64 overhead 24
kept "htb" handle 7: htb r2q 7 default 23

# refused DESC TC-COMMANDS PATTERN: the tc commands (eval'd) build a tree
# that --force cannot keep; setup and guarantee with --force refuse it
refused() {
    local desc=$1 setup=$2 pattern=$3 args rc
    check "$desc: set up by tc" eval "$setup"
    tc_state > "$TMP/before"
    for args in "setup" "guarantee $M1 5M"; do
        rc=0
        # shellcheck disable=SC2086 # ARGS split on purpose
        ip netns exec "$NS" "$APQOS" -i "$DEV" --force --link-rate 100M $args >"$TMP/out" 2>"$TMP/err" || rc=$?
        echo "# $desc: --force ${args%% *}: rc=$rc: $(head -c 300 "$TMP/err")"
        check "$desc: --force ${args%% *} refused: exit 1, one line, naming the reason" \
            test "$rc" -eq 1 -a "$(wc -l < "$TMP/err")" -eq 1 -a -n "$(grep -E "^apqos: .*cannot be \($pattern\): remove it first" "$TMP/err")"
        check "$desc: ... tc unchanged" same_state "$TMP/before"
    done
    check "$desc: removed by tc" tcn qdisc del dev "$DEV" root
}

# 2. what is refused
refused "htb with a class (ap.sh's tree)" \
    'tcn qdisc add dev "$DEV" root handle 1: htb default 10 &&
     tcn class add dev "$DEV" parent 1: classid 1:10 htb rate 20mbit quantum 1514 &&
     tcn qdisc add dev "$DEV" parent 1:10 handle 10: pfifo limit 50' \
    'it has classes'
refused "htb with a filter" \
    'tcn qdisc add dev "$DEV" root handle 7: htb default 23 &&
     tcn filter add dev "$DEV" parent 7: protocol ip pref 3 u32 match ip dst 10.88.3.2/32 flowid 7:23' \
    'it has filters'
refused "htb with direct_qlen 77" \
    'tcn qdisc add dev "$DEV" root handle 7: htb default 23 direct_qlen 77' \
    "its direct_qlen is not the device's default.*"
refused "tbf with a child pfifo" \
    'tcn qdisc add dev "$DEV" root handle 8004: tbf rate 3mbit burst 12k latency 70ms &&
     tcn qdisc add dev "$DEV" parent 8004:1 handle 20: pfifo limit 5' \
    'it has child qdiscs'
refused "pfifo with a size table" \
    'tcn qdisc add dev "$DEV" root handle 8002: stab overhead 20 linklayer ethernet pfifo limit 37' \
    'it has a size table'
refused "pfifo_fast" \
    'tcn qdisc add dev "$DEV" root handle 9: pfifo_fast' \
    'libnl cannot re-create this kind.*'

# 3. --force without a failure replaces, as before
# (grep without -q: an early exit would fail tc with SIGPIPE under pipefail)
check "tc: root tbf" tcn qdisc add dev "$DEV" root handle 8004: tbf rate 3mbit burst 12k latency 70ms
check "guarantee --force replaces the tbf" \
    ip netns exec "$NS" "$APQOS" -i "$DEV" --force --link-rate 100M guarantee "$M1" 5M
check "tc: root htb 1: default fffe" eval 'tcn qdisc show dev "$DEV" | grep "^qdisc htb 1: root .*default 0xfffe"'
check "tc: station class 1:10" eval 'tcn class show dev "$DEV" classid 1:10 | grep "rate 5Mbit ceil 100Mbit"'
check "clear" ip netns exec "$NS" "$APQOS" -i "$DEV" clear
check "tc: clsact and its filter still there" eval \
    'tcn qdisc show dev "$DEV" | grep "^qdisc clsact" && tcn filter show dev "$DEV" egress | grep "pref 5 u32"'
finish
