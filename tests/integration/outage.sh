#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# outage.sh -- issue 9, point 7: a silent outage. EB = 25 Mbit/s of payload,
# pfifo 100, T = 12.5 Mbit/s (NRT 50 %, a rule on port 5201) among 2 CUBIC
# flows, 14 s; at 6 s tc_impair blackholes the router's bottleneck device
# both ways for 2 s (cls_bpf drops, nothing sent back: no ICMP that would
# let Linux undo the RTO backoff). Every flow then waits for its backed-off
# RTO: the first retransmission can come ~1.6 s after the restore, so the
# bound counts from the first new ACK, not from the restore.
#
# Measured (experiments/testbed/outage.sh): every ACK of the slot flow as
# the sender receives it (tcpdump). An ACK's cumulative number plus the
# blocks it SACKs are the unique bytes the receiver holds (the issue's
# goodput), timed to the ms: finer than the receiver's 0.1 s series, so no
# slack for interval boundaries is needed. "First new ACK after restore":
# the first ACK after the close whose number passes every ACK before the
# hole. "Back at 0.95 T": the bytes delivered after that ACK within W =
# max(4 srtt, 0.2 s), over W, are >= 0.95 T (srtt: the flow's, from ss
# 0.5 s before the hole; no RTT sample is taken during the hole, so it is
# the srtt the flow restarts with; the 0.2 s floor keeps ~200 segments in
# a window). Checked as the issue words it: by 4 srtt after the first new
# ACK a window of W at 0.95 T has begun (at an ACK). The window that starts
# AT the first new ACK is printed, not checked: it holds F-RTO's probe
# round (below), about one srtt of W = 4 srtt with next to nothing
# delivered, so it reaches 0.95 T only if the flow then runs above 1.2 T;
# it did in 6 of 7 runs and read 0.54 T in one (7 of 7 met the issue's
# bound). The amount is read off the last ACK at or before
# the window's end. Linux restarts after an RTO with F-RTO (net.ipv4.tcp_frto):
# the first new ACK releases new data, and only its SACKs show the RTO was
# real and start the retransmission of what the hole swallowed, about an
# RTT during which nothing is delivered in order; the in-order rate in the
# window is printed too, the bound is on unique bytes.
#
# Checks: tc_impair's hole was 2 s; the slot flow was tcp_av with target T;
# before the hole it held T (>= 0.95 T over the 3 s before: the recovery is
# measured from a flow at its target); a new ACK came after the close; the
# recovery bound. Then the same run with CUBIC and with Reno in the slot
# (no rule; the same testbed): their time from restore to the first new ACK
# and to a window at 0.95 T, and to 0.95 of their own rate before the hole,
# printed next to tcp_av's and not asserted.
#
# Where the issue's 4 srtt proves short (measured 2026-12-05 on a revision
# whose silent-timeout path is this one's): 1 run of 15 here failed, 144 ms
# against 143 (srtt 35.7 ms), and one CI run 205 ms against its bound;
# about 1 run in 13 over some 40 runs. The delay from the first new ACK to
# a window at 0.95 T is bimodal, 0-28 ms or 115-144 ms. The slow case: both
# of F-RTO's new segments are dropped, the queue filled by the CUBIC flows'
# own restart bursts, and the flow waits for a tail-loss probe (2 srtt)
# before its retransmission starts. Before the hole the same criterion
# fails at 0-1.5 % of start points (every 10 ms, 4 runs): the slow
# recoveries are the lost probe, not the flow's steady state. The bound is
# kept as the issue words it.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
# shellcheck source=../../experiments/testbed/outage.sh
. "$TOP/experiments/testbed/outage.sh"

IMPAIR=$TCPAV_BUILD/tests/tc_impair
EB=25000000 T=12500000 SECS=14 HOLE_AT=6 HOLE_S=2
name=tout$$

check "tc_impair built ($IMPAIR)" test -x "$IMPAIR"
check "tcpdump installed" command -v tcpdump
tap_passing || stop_here "no tc_impair or tcpdump"
tcpav_test_begin "$name" "$(tb_htb_rate_for_eb $EB)" 100

# fig RUN: outage_figures' line for RUN, against T; "" when they failed
fig() { outage_figures "$TMP/$1" "$T" || :; }
# own RUN: back_s against the flow's own rate before the hole
own() { outage_figures "$TMP/$1" | awk '{ print $7 }' || :; }

id=$("$TCPAVCTL" rule add --dport 5201 --cc tcp_av --rate $T | awk '$1 == "rule" { sub(/:$/, "", $2); print $2; exit }')
# shellcheck disable=SC2016,SC2034 # eval'ed by outage_run, in its time
OUTAGE_PRE_HOOK='"$TCPAVCTL" flows --json >"$TMP/flows.json"'
rc=0
outage_run "$TMP/tcp_av" "$IMPAIR" $SECS $HOLE_AT $HOLE_S rule cubic cubic || rc=$?
unset OUTAGE_PRE_HOOK
"$TCPAVCTL" rule del "$id" >/dev/null 2>&1 || "$TCPAVCTL" rule gc >/dev/null 2>&1 || :
check "the tcp_av run and its hole ran (tc_impair, tcpdump, iperf3)" test "$rc" = 0
open=$(awk '$1 == "open" { print $2 }' "$TMP/tcp_av/hole" 2>/dev/null)
close=$(awk '$1 == "close" { print $2 }' "$TMP/tcp_av/hole" 2>/dev/null)
check "the hole was open 2 s (${open:-?} .. ${close:-?})" \
    awk -v a="${open:-0}" -v b="${close:-0}" 'BEGIN { d = b - a - 2; exit !(a > 0 && d >= 0 && d < 0.1) }'
check "the slot flow was tcp_av with target T before the hole" \
    flow_listed "$TMP/flows.json" "$TB_RCV_ADDR:5201" $T
line=$(fig tcp_av)
read -r close_s ack1 srtt w pre rate back inorder <<<"${line:-- - - - - - - -}"
echo "# tcp_av: hole closed at ${close_s} s; srtt ${srtt} us, W ${w} s; before the hole $(mbit "${pre/-/0}") Mbit/s"
echo "# tcp_av: first new ACK ${ack1} s after the restore; delivered in W from it $(mbit "${rate/-/0}") Mbit/s ($(mbit "${inorder/-/0}") in order); a window at 0.95 T from ${back} s after the restore"
echo "# tcp_av's socket after the restore (ss, every 0.1 s): $(awk -v c="$close" '$1 >= c {
    s = ""; if (match($0, /cwnd:[0-9]+/)) s = substr($0, RSTART, RLENGTH)
    if (match($0, /pacing_rate [0-9.]+[KMG]?bps/)) s = s " " substr($0, RSTART + 12, RLENGTH - 12)
    printf "%.1f:%s; ", $1 - c, s }' "$TMP/tcp_av/ss" 2>/dev/null | head -c 1200)"
check_ge "tcp_av held T before the hole (3 s)" "${pre/-/0}" $((T * 95 / 100))
check "a new ACK came after the hole closed" test "${ack1:-never}" != never -a "${ack1:--}" != -
echo "# tcp_av: the window of W from the first new ACK itself: $(awk -v r="${rate/-/0}" -v t=$T 'BEGIN { printf "%.2f", r / t }') T (printed: it holds F-RTO's probe round)"
# the issue's words taken as "by 4 srtt after the first new ACK a window of
# W at 0.95 T has begun"
check "a window of W at 0.95 T starts within 4 srtt of the first new ACK (${ack1} -> ${back} s)" \
    awk -v a="$ack1" -v b="$back" -v r="${srtt/-/0}" 'BEGIN { exit !(b != "never" && b != "-" && b - a <= 4 * r / 1e6) }'

# the same slot with CUBIC and with Reno (no rule: the slot keeps -C)
for cc in cubic reno; do
    outage_run "$TMP/$cc" "$IMPAIR" $SECS $HOLE_AT $HOLE_S "$cc" cubic cubic ||
        echo "# $cc in the slot: the run failed"
done
echo "# time from restore (s): first new ACK | window of W at 0.95 T | at 0.95 of its own rate before | rate before (Mbit/s)"
for cc in tcp_av cubic reno; do
    line=$(fig "$cc")
    read -r _ ack1 _ w pre _ back _ <<<"${line:-- - - - - - - -}"
    printf '# %-7s %8s | %8s | %8s | %6s\n' "$cc" "$ack1" "$back" "$(own "$cc")" "$(mbit "${pre/-/0}")"
done
finish
