#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tb_impair.sh -- the measuring and impairment infrastructure of issue 9
# (< 60 s): tb_up's byte queue and offloads, the receiver-side series of
# flows.sh, and tests/tools/tc_impair (blackhole, ECN marks, counts).
# No tcp_av: CUBIC flows only, on EB = 25 Mbit/s of payload.
#
# 1. TB_OFFLOADS=host, QUEUE 151400b: the leaf is a bfifo of 151400 bytes,
#    the sender's veth keeps TSO on, and GSO super-packets reach the
#    bottleneck whole (tc_impair count: fewer than half as many skbs as
#    segments). One CUBIC flow, 6 s: the series sums to iperf3's receiver
#    total within 1 %; against what HTB sent (its bytes less 66 header bytes per 1514,
#    a figure of the kernel's, not iperf3's): HTB sent at least the
#    series, and at most 1 % plus one full queue more (data still queued or
#    unread when iperf3's server stopped counting; measured: 0.65 %).
# 1b. TB_OFFLOADS=nic, the same bfifo: the sender's device has TSO off and
#    GSO on; one CUBIC flow, 3 s: at the sender's device (clsact egress,
#    ahead of segmentation) fewer than half as many skbs as segments; at
#    the bottleneck one skb per segment (frames, as a real AP queues).
# 2. Offloads off, pfifo 100: TSO off. One CUBIC flow, 12 s with 1 s
#    omitted (intervals after it are placed after it again); a 2 s
#    blackhole on the bottleneck (both ways) from about 4 s: the tool's open
#    and close are 2 s apart; a ping from the receiver during it gets no
#    reply and never reaches the sender (its IcmpInEchos stays); every
#    receiver interval inside the hole, after the packets already past the
#    clsact hook have left HTB's queue (100 x 1514 B at the HTB rate), has
#    no bytes; the path is whole again: some 1 s window after the close
#    carries >= 80 % of the flow's goodput before the hole (from 1 s); the
#    time from the close to the first bytes and the last 3 s are printed.
#    (Not "the last 3 s >= 80 %": how fast CUBIC climbs back after its RTO
#    backoff is CUBIC's business, and once in a CI run it held 9.25 of 25
#    Mbit/s over them.) The tool leaves no clsact behind.
# 3. ECN, same testbed, 5 s CUBIC flows, marks on the bottleneck's egress:
#    with net.ipv4.tcp_ecn=1 at the sender, `ecn --prob 0.05` marks m of
#    the n ECT packets with |m - nP| <= 5 sqrt(nP(1-P)) (binomial), n >
#    1000; with tcp_ecn=0 no packet is ECT and none is marked; a virtual
#    queue at 90 % of the HTB rate, 20 frames deep, marks the ECN flow and
#    keeps the real queue short: its srtt is under a quarter of the non-ECN
#    flow's (which fills the pfifo).
# 4. Bad input: a missing device is one line, status 1, nothing attached.
#
# Needs root, iproute2, ethtool, iperf3, jq, ping, nstat, and the
# tc_impair built in $TCPAV_BUILD (make BUILD=... all).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

IMPAIR=$TCPAV_BUILD/tests/tc_impair
EB=25000000
RATE=$(tb_htb_rate_for_eb $EB)   # "NNNbit": whole frames
RATE_BPS=${RATE%bit}
name=tbim$$
TB_EXTRA_CLEANUP="rm -rf '$TMP'"
tb_trap_cleanup "$name"

# field KEY LINE: the value after KEY in tc_impair's "close ..." line
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }' <<<"$2"; }
# within A B TOL: |A - B| <= TOL
within() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }
# offload NS DEV FEATURE: on or off, from ethtool -k
offload() { ip netns exec "$1" ethtool -k "$2" | awk -v f="$3:" '$1 == f { print $2 }'; }
no_clsact() { ! ip netns exec "$TB_RTR" tc qdisc show dev "$TB_RTR_BOTTLENECK_DEV" | grep -q clsact; }
# impair_bg OUT ARGS...: tc_impair in the router's namespace, in the
# background; PID in IMPAIR_PID
impair_bg() {
    local out=$1
    shift
    ip netns exec "$TB_RTR" "$IMPAIR" "$@" >"$out" 2>"$out.err" &
    IMPAIR_PID=$!
}
# impair_opened OUT: wait (<= 5 s) for its "open" line
impair_opened() {
    local k
    for (( k = 0; k < 50; k++ )); do
        grep -q '^open ' "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    echo "# tc_impair did not open: $(cat "$1.err" 2>/dev/null)" >&2
    return 1
}
# impair_stop: SIGTERM to it, its status
impair_stop() { kill -TERM "$IMPAIR_PID"; wait "$IMPAIR_PID"; }
# ecn_flow DIR TCP_ECN ARGS...: one 5 s CUBIC flow with the sender's
# tcp_ecn set and tc_impair ecn ARGS on the bottleneck; the tool's last
# line in DIR/impair, its status in ECN_RC
ecn_flow() {
    local dir=$1 ecn=$2
    shift 2
    ip netns exec "$TB_SND" sysctl -qw net.ipv4.tcp_ecn="$ecn"
    impair_bg "$dir.impair" ecn --dev "$TB_RTR_BOTTLENECK_DEV" "$@"
    impair_opened "$dir.impair" || true
    TB_OMIT=0 tb_flows_start "$dir" 5 cubic
    tb_flows_wait "$dir" >/dev/null || true
    ECN_RC=0
    impair_stop || ECN_RC=$?
    tail -1 "$dir.impair" >"$dir/impair"
    echo "# ecn $* (tcp_ecn=$ecn): $(cat "$dir/impair")"
}

check "tc_impair built ($IMPAIR)" test -x "$IMPAIR"
tap_passing || stop_here "no tc_impair"

# --- 1. bytes queue, host offloads, the series ---------------------------
TB_OFFLOADS=host
check "TB_OFFLOADS=host tb_up $name $RATE 151400b" tb_up "$name" "$RATE" 151400b
unset TB_OFFLOADS
tap_passing || stop_here "no testbed (tb_up failed)"
check "the leaf is a bfifo of 151400 bytes" jq -e '
    any(.[]; .kind == "bfifo" and .parent == "1:10" and .options.limit == 151400)' \
    <(ip netns exec "$TB_RTR" tc -j qdisc show dev "$TB_RTR_BOTTLENECK_DEV")
check "host offloads: TSO stays on at the sender" test "$(offload "$TB_SND" "$TB_SND_DEV" tcp-segmentation-offload)" = on
d=$TMP/series
impair_bg "$TMP/count" count --dev "$TB_RTR_BOTTLENECK_DEV"
impair_opened "$TMP/count" || true
TB_OMIT=0 tb_flows_start "$d" 6 cubic
tb_flows_wait "$d" >/dev/null || true
impair_stop || true
line=$(tail -1 "$TMP/count")
echo "# count at the bottleneck: $line"
pk=$(field packets "$line") skbs=$(field skbs "$line")
check "GSO super-packets reach HTB whole ($skbs skbs for $pk segments)" \
    test "${skbs:-0}" -gt 0 -a $((2 * ${skbs:-0})) -lt "${pk:-0}"
total=$(jq '.end.sum_received.bytes' "$d/server-0.json")
all=$(tb_flow_series "$d" 0 | awk '{ s += $2 } END { print s + 0 }')
check "the series sums to the receiver's total ($all ~ $total, 1 %)" \
    within "$all" "$total" "$(awk -v t="$total" 'BEGIN { print t / 100 }')"
read -r sent segs < <(ip netns exec "$TB_RTR" tc -j -s qdisc show dev "$TB_RTR_BOTTLENECK_DEV" |
    jq -r '.[] | select(.kind == "bfifo") | "\(.bytes) \(.packets)"')
# the qdisc counts a super-packet as its segments, each with its headers
# (qdisc_pkt_len_init; 66 bytes with timestamps): the payload is the rest
htb_payload=$((sent - 66 * segs))
echo "# series $all bytes, HTB sent $sent bytes in $segs segments = $htb_payload of payload"
check "HTB's payload >= the whole series" test "$htb_payload" -ge "$all"
check "HTB's payload <= the series + 1 % + one queue (151400 B)" \
    le "$htb_payload" "$(awk -v a="$all" 'BEGIN { printf "%.0f", a * 1.01 + 151400 }')"
tb_down "$name"

# --- 1b. nic offloads: super-packets at the sender, frames at the queue ---
TB_OFFLOADS=nic
check "TB_OFFLOADS=nic tb_up $name $RATE 151400b" tb_up "$name" "$RATE" 151400b
unset TB_OFFLOADS
if tap_passing; then
    check "nic offloads: TSO off, GSO on at the sender" \
        test "$(offload "$TB_SND" "$TB_SND_DEV" tcp-segmentation-offload)/$(offload "$TB_SND" "$TB_SND_DEV" generic-segmentation-offload)" = off/on
    ip netns exec "$TB_SND" "$IMPAIR" count --dev "$TB_SND_DEV" >"$TMP/count-snd" 2>"$TMP/count-snd.err" &
    snd_pid=$!
    impair_bg "$TMP/count-nic" count --dev "$TB_RTR_BOTTLENECK_DEV"
    impair_opened "$TMP/count-nic" || true
    impair_opened "$TMP/count-snd" || true
    TB_OMIT=0 tb_flows_start "$TMP/nic" 3 cubic
    tb_flows_wait "$TMP/nic" >/dev/null || true
    impair_stop || true
    kill -TERM "$snd_pid"; wait "$snd_pid" || true
    snd_line=$(tail -1 "$TMP/count-snd") line=$(tail -1 "$TMP/count-nic")
    echo "# nic: at the sender's device: $snd_line; at the bottleneck: $line"
    pk=$(field packets "$snd_line") skbs=$(field skbs "$snd_line")
    check "nic: the sender's stack builds GSO super-packets ($skbs skbs for $pk segments at its device)" \
        test "${skbs:-0}" -gt 0 -a $((2 * ${skbs:-0})) -lt "${pk:-0}"
    pk=$(field packets "$line") skbs=$(field skbs "$line")
    check "nic: the bottleneck queues frames ($skbs skbs for $pk segments)" \
        test "${pk:-0}" -gt 1000 -a "${skbs:-0}" = "${pk:-0}"
fi
tb_down "$name"

# --- 2. blackhole --------------------------------------------------------
tb_up "$name" "$RATE" 100 || stop_here "no testbed (tb_up failed)"
check "offloads off: TSO off at the sender" test "$(offload "$TB_SND" "$TB_SND_DEV" tcp-segmentation-offload)" = off
d=$TMP/hole
TB_OMIT=1 tb_flows_start "$d" 12 cubic
sleep 4
echos0=$(ip netns exec "$TB_SND" nstat -asz IcmpInEchos | awk '$1 == "IcmpInEchos" { print $2 }')
impair_bg "$TMP/hole.out" blackhole --dev "$TB_RTR_BOTTLENECK_DEV" --duration 2
impair_opened "$TMP/hole.out" || true
sleep 0.2
ip netns exec "$TB_RCV" ping -q -n -c 5 -i 0.2 -W 1 "$TB_SND_ADDR" >"$TMP/ping" 2>&1 || true
hole_rc=0
wait "$IMPAIR_PID" || hole_rc=$?
echos1=$(ip netns exec "$TB_SND" nstat -asz IcmpInEchos | awk '$1 == "IcmpInEchos" { print $2 }')
tb_flows_wait "$d" >/dev/null || true
t0=$(cat "$d/t0")
open=$(awk -v t="$(awk '$1 == "open" { print $2 }' "$TMP/hole.out")" -v z="$t0" 'BEGIN { printf "%.3f", t - z }')
close=$(awk -v t="$(awk '$1 == "close" { print $2 }' "$TMP/hole.out")" -v z="$t0" 'BEGIN { printf "%.3f", t - z }')
echo "# blackhole from $open s to $close s: $(tail -1 "$TMP/hole.out")"
check "tc_impair blackhole exits 0" test "$hole_rc" = 0
check "it was open 2 s ($open .. $close)" within "$(awk -v a="$open" -v b="$close" 'BEGIN { print b - a }')" 2.05 0.05
check "a ping from the receiver during it got no reply" grep -q " 0 received" "$TMP/ping"
check "and never reached the sender (IcmpInEchos $echos0 -> $echos1)" test "$echos0" = "$echos1"
# HTB's queue drains after the hook closes: 100 frames at the HTB rate
drain=$(awk -v r="$RATE_BPS" 'BEGIN { printf "%.3f", 100 * 1514 * 8 / r }')
inside=$(tb_flow_windows "$d" 0 0.1 "$(awk -v o="$open" -v d="$drain" 'BEGIN { print o + d + 0.05 }')" "$close")
echo "# intervals inside the hole (after a ${drain} s drain): $(wc -l <<<"$inside"), bytes in them: $(awk '{ s += $3 } END { print s + 0 }' <<<"$inside")"
check "at least 15 receiver intervals inside the hole" test "$(grep -c . <<<"$inside")" -ge 15
check "none of them has a byte" test "$(awk '$3 > 0' <<<"$inside" | wc -l)" = 0
before=$(tb_flow_goodput "$d" 0 1 "$open")
last=$(tb_flow_series "$d" 0 | tail -1 | awk '{ print $1 }')
afterg=$(tb_flow_goodput "$d" 0 "$(awk -v l="$last" 'BEGIN { print l - 3 }')" "$last")
back=$(tb_flow_series "$d" 0 | awk -v c="$close" '$1 > c + 0.1 && $2 > 0 { printf "%.1f", $1 - 0.1 - c; exit }')
best=$(tb_flow_windows "$d" 0 1 "$close" "$last" | awk 'BEGIN { m = 0 } $3 > m { m = $3 } END { print m }')
echo "# goodput before $(mbit "$before"), last 3 s $(mbit "$afterg"), best 1 s after the close $(mbit "$best") Mbit/s; first bytes ${back:-never} s after the close;" \
    "per 1 s after it: $(tb_flow_windows "$d" 0 1 "$close" "$last" | awk 'NR % 10 == 1 { printf "%.1f ", $3 / 1e6 }')"
check_ge "the path is whole again: some 1 s after the close carries >= 80 % of before" "$best" "$(awk -v b="$before" 'BEGIN { printf "%.0f", 0.8 * b }')"
check "tc_impair left no clsact" no_clsact

# --- 3. ECN ----------------------------------------------------------------
P=0.05
ecn_flow "$TMP/ecn" 1 --prob $P
line=$(cat "$TMP/ecn/impair")
n=$(field ect "$line") m=$(field marked "$line")
check "SIGTERM ends it with status 0" test "$ECN_RC" = 0
check "an ECN flow's packets are ECT (n = $n > 1000)" test "${n:-0}" -gt 1000
check "marks m = $m of n: |m - nP| <= 5 sigma, P = $P" within "$m" \
    "$(awk -v n="$n" -v p=$P 'BEGIN { print n * p }')" "$(awk -v n="$n" -v p=$P 'BEGIN { print 5 * sqrt(n * p * (1 - p)) }')"
ecn_flow "$TMP/noecn" 0 --prob $P
line=$(cat "$TMP/noecn/impair")
check "a non-ECN flow: packets seen, none ECT, none marked" \
    test "$(field packets "$line")" -gt 1000 -a "$(field ect "$line")" = 0 -a "$(field marked "$line")" = 0
ecn_flow "$TMP/vq" 1 --vq-rate $((RATE_BPS * 9 / 10)) --vq-bytes $((20 * 1514))
srtt_vq=$(tb_flow_srtt_us "$TMP/vq" 0) srtt_full=$(tb_flow_srtt_us "$TMP/noecn" 0)
check "the virtual queue marks the ECN flow" test "$(field marked "$(cat "$TMP/vq/impair")")" -gt 0
check "and keeps the real queue short: srtt $srtt_vq us < 1/4 of $srtt_full us" \
    test $((4 * srtt_vq)) -lt "$srtt_full"
check "no clsact left" no_clsact

# --- 4. bad input ------------------------------------------------------------
bad() {
    local err rc=0
    err=$(ip netns exec "$TB_RTR" "$IMPAIR" blackhole --dev "$TB_RTR_BOTTLENECK_DEV" --dev nosuch0 --duration 1 2>&1) || rc=$?
    echo "# $err" >&2
    [[ $rc == 1 && $(wc -l <<<"$err") == 1 && $err == *nosuch0* ]] && no_clsact
}
check "a missing device: one line, status 1, nothing attached" bad

tb_down "$name"
finish
