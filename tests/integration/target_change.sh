#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Target changes on a running flow (issue 9, point 8), seen as the kernel
# sees the socket: `ss -tin` in the sender every 0.1 s (pacing_rate, cwnd,
# mss, rtt, ssthresh, bytes_acked). EB = 25 Mbit/s of payload, pfifo 100,
# two CUBIC flows for the whole run, so that a rate above the fair share
# EB/3 = 8.3 Mbit/s is the target's doing. One tcp_av flow (set_target_probe,
# libtcpav's tcpav_set_target on the open socket), 32 s:
#   A  0-8 s   T1 = 6M
#   B  8-16 s  T2 = 14M         (T1 -> T2)
#   C  16-24 s T = 0            (T -> 0: a Reno flow)
#   D  24-32 s T3 = 12M         (0 -> T)
# srtt is the phase's median ss rtt (a full 100-packet queue: ~50 ms).
# Bounds:
#  - the new target is read at the first round end after the change (at
#    most 2 srtt) and paces at once, so the pacing checks start 4 srtt after
#    it. In A, B, D every sample is within the law's range for the phase's T
#    (pacing_in_law: at least T, at most 4 x max(2.5 T, 2 cwnd*mss/srtt)).
#  - In C the pacing rate is Reno's: the kernel's 1.2 x cwnd*mss/srtt in
#    congestion avoidance, 2 x in slow start (tcpav_reno_pacing_Bps). ss
#    reads pacing_rate before it takes the socket lock and cwnd and rtt
#    after (tcp_get_info): an ACK in between moves srtt by 1/8 of one RTT
#    sample's difference and cwnd by one of ~30 packets, and ss prints rates
#    to 3 digits, so a factor k = 1.1 either way. Samples with ss's ssthresh
#    at or below cwnd are in avoidance: their median pacing / (cwnd*mss/srtt)
#    lies within [1.2/k, 1.2 k] = [1.09, 1.32]; 95 % of all samples within
#    [1.2/k, 2 k] (a loss event between the two reads halves cwnd: a rare
#    sample out). Before the fix sk_pacing_rate kept g*T2 >= 14M while the
#    Reno flow's cwnd*mss/srtt is about its share EB/3 = 8.3M: a ratio of
#    1.7 or more, outside the avoidance band.
#    And its rate over C is at most EB/2 (a Reno flow among two CUBIC: G is
#    off), while T2 = 14M is above that.
#  - Delivery (ss bytes_acked, unique bytes the receiver acknowledged)
#    follows each new target: over the phase from a settling time of 20
#    srtt after the change (at most 2 srtt until the target is read, then G
#    and pacing at g*T at once; the gain corrects a shortfall by up to 1/16
#    a round) to its end, at least 2 s and 4 srtt long, AVR >= 0.95 in A, B
#    and D. T2 and T3 are above the fair share: E alone (a Reno among two
#    CUBIC) would not reach them.
. "$(dirname "$0")/lib.sh"
EB=25000000
PHASE=8 SECS=32 PORT=6000
T1=6000000 T2=14000000 T3=12000000
tcpav_test_begin tavc "$(tb_htb_rate_for_eb $EB)" 100
PROBE=$TCPAV_BUILD/tests/set_target_probe
check "set_target_probe built ($PROBE)" test -x "$PROBE"
tap_passing || stop_here "no set_target_probe"

ip netns exec "$TB_RCV" "$PROBE" sink $PORT &
sleep 0.3
TB_OMIT=0 tb_flows_start "$TMP/cubic" $((SECS + 3)) cubic cubic
sleep 1
ip netns exec "$TB_SND" bash -c "while :; do echo \"@ \$(date +%s.%N)\"; ss -tinH 'dport = :$PORT'; sleep 0.1; done" \
    >"$TMP/ss.txt" 2>/dev/null </dev/null &
ss_pid=$!
date +%s.%N >"$TMP/t0"
probe_rc=0
nsenter --net="/run/netns/$TB_SND" "$PROBE" send "$TB_RCV_ADDR" $PORT $SECS $T1 $PHASE $T2 \
    $((2 * PHASE)) 0 $((3 * PHASE)) $T3 >"$TMP/probe.txt" || probe_rc=$?
kill "$ss_pid" 2>/dev/null || true
wait "$ss_pid" 2>/dev/null || true
tb_flows_wait "$TMP/cubic" >"$TMP/cubic.txt" || true
check "the probe ran its 32 s with every target change (status $probe_rc)" test "$probe_rc" = 0

# one row per ss sample of the data socket, on the probe's clock:
# t bytes_acked cwnd mss rtt_ms ssthresh(or -) pacing_bps(or -)
awk -v t0="$(cat "$TMP/t0")" '
    function val(s) { m = 1; if (s ~ /Gbps$/) m = 1e9; else if (s ~ /Mbps$/) m = 1e6; else if (s ~ /Kbps$/) m = 1e3
        sub(/[KMG]?bps$/, "", s); return s * m }
    $1 == "@" { t = $2 - t0; next }
    /^[ \t]/ {
        ba = ""; cw = ""; ms = ""; rt = ""; st = "-"; pr = "-"
        for (i = 1; i <= NF; i++) {
            if ($i ~ /^bytes_acked:/) ba = substr($i, 13)
            else if ($i ~ /^cwnd:/) cw = substr($i, 6)
            else if ($i ~ /^mss:/) ms = substr($i, 5)
            else if ($i ~ /^rtt:/) { rt = substr($i, 5); sub(/\/.*/, "", rt) }
            else if ($i ~ /^ssthresh:/) st = substr($i, 10)
            else if ($i == "pacing_rate") pr = sprintf("%.0f", val($(i + 1)))
        }
        if (ba != "" && cw != "" && rt != "") printf "%.3f %s %s %s %s %s %s\n", t, ba, cw, ms, rt, st, pr
    }' "$TMP/ss.txt" >"$TMP/rows.txt"
nrows=$(wc -l <"$TMP/rows.txt")
check_ge "ss samples of the tcp_av socket" "$nrows" $((SECS * 5))
tap_passing || stop_here "no ss samples"

# srtt_us FROM TO: median ss rtt in [FROM, TO), microseconds
srtt_us() {
    awk -v a="$1" -v b="$2" '$1 >= a && $1 < b { v[++n] = $5 }
        END { if (!n) { print 0; exit }
              for (i = 2; i <= n; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
              printf "%.0f\n", 1000 * v[int((n + 1) / 2)] }' "$TMP/rows.txt"
}
# rate FROM TO: delivered bit/s between the samples nearest FROM and TO
rate() {
    awk -v a="$1" -v b="$2" '$1 >= a && !s { s = 1; t0 = $1; b0 = $2 } $1 <= b { t1 = $1; b1 = $2 }
        END { if (!s || t1 <= t0) print 0; else printf "%.0f\n", 8 * (b1 - b0) / (t1 - t0) }' "$TMP/rows.txt"
}
# min_window FROM TO W: the lowest delivered rate over windows of W s sliding by a sample
min_window() {
    awk -v a="$1" -v b="$2" -v w="$3" '$1 >= a && $1 <= b { n++; t[n] = $1; by[n] = $2 }
        END { lo = -1; k = 1
              for (i = 1; i <= n; i++) { while (k <= n && t[k] < t[i] + w) k++; if (k > n) break
                  r = 8 * (by[k] - by[i]) / (t[k] - t[i]); if (lo < 0 || r < lo) lo = r }
              printf "%.0f\n", lo < 0 ? 0 : lo }' "$TMP/rows.txt"
}
# paced_in_law FROM TO T: every sample's pacing within the law's range for T
paced_in_law() {
    awk -v a="$1" -v b="$2" -v t="$3" '$1 >= a && $1 <= b { n++
        if ($7 == "-") { bad++; next }
        hi = 2.5 * t; e = 2 * $3 * $4 * 8 / ($5 / 1000); if (e > hi) hi = e
        if ($7 < t || $7 > 4 * hi) bad++ }
        END { printf "# %d of %d samples out of the law'\''s range for T = %d\n", bad, n, t > "/dev/stderr"; exit !(n > 0 && bad == 0) }' \
        "$TMP/rows.txt"
}

declare -A T_OF=([A]=$T1 [B]=$T2 [C]=0 [D]=$T3)
declare -A START=([A]=0 [B]=$PHASE [C]=$((2 * PHASE)) [D]=$((3 * PHASE)))
for ph in A B C D; do
    s=${START[$ph]} e=$((START[$ph] + PHASE)) T=${T_OF[$ph]}
    srtt=$(srtt_us "$s" "$e")
    settle=$(awk -v s="$s" -v r="$srtt" 'BEGIN { printf "%.3f", s + 20 * r / 1e6 }')
    paced_from=$(awk -v s="$s" -v r="$srtt" 'BEGIN { printf "%.3f", s + 4 * r / 1e6 }')
    w=$(tb_window_s "$srtt")
    r=$(rate "$settle" "$e") lo=$(min_window "$settle" "$e" "$w")
    last=$(awk -v a="$s" -v b="$e" '$1 >= a && $1 <= b { l = $0 } END { print l }' "$TMP/rows.txt")
    echo "# phase $ph (T = $(mbit "$T") Mbit/s, $s-$e s): srtt $((srtt / 1000)) ms, delivered $(mbit "$r") Mbit/s" \
        "from $settle s, lowest ${w}s window $(mbit "$lo"); last sample: t cwnd mss rtt ssthresh pacing = $(awk '{ print $1, $3, $4, $5, $6, $7 }' <<<"$last")"
    check "phase $ph: srtt known" test "$srtt" -gt 0
    if [[ $T != 0 ]]; then
        check "phase $ph: from 4 srtt after the change the kernel paces within the law's range for T = $(mbit "$T")M" \
            paced_in_law "$paced_from" "$e" "$T"
        check "phase $ph: the window from the settling time ($settle s, 20 srtt) to $e s is >= max(2 s, 4 srtt)" \
            ge "$(awk -v a="$settle" -v b="$e" 'BEGIN { print b - a }')" "$w"
        check_ge "phase $ph: AVR over $settle-$e s >= 0.95" "$(awk -v r="$r" -v t="$T" 'BEGIN { printf "%.3f", r / t }')" 0.95
    else
        C_FROM=$paced_from C_TO=$e C_RATE=$r
    fi
done

# --- C: T = 0 paces as Reno
awk -v a="$C_FROM" -v b="$C_TO" '$1 >= a && $1 <= b && $7 != "-" {
        r = $3 * $4 * 8 / ($5 / 1000); q = $7 / r
        ca = ($6 != "-" && $3 >= $6)
        printf "%.4f %d\n", q, ca }' "$TMP/rows.txt" >"$TMP/reno_q.txt"
n_c=$(wc -l <"$TMP/reno_q.txt")
n_ca=$(awk '$2 == 1' "$TMP/reno_q.txt" | wc -l)
med_ca=$(awk '$2 == 1 { print $1 }' "$TMP/reno_q.txt" | sort -g | awk '{ v[++n] = $1 } END { print n ? v[int((n + 1) / 2)] : "none" }')
in_band=$(awk '$1 >= 1.2 / 1.1 && $1 <= 2 * 1.1' "$TMP/reno_q.txt" | wc -l)
echo "# phase C (T = 0): $n_c samples, $n_ca in congestion avoidance; median pacing/(cwnd*mss/srtt) there $med_ca;" \
    "$in_band within [1.09, 2.2]; delivered $(mbit "$C_RATE") Mbit/s"
check_ge "phase C: samples of the T = 0 flow" "$n_c" 20
check_ge "phase C: at least half of them in congestion avoidance (ss: cwnd >= ssthresh)" "$((2 * n_ca))" "$n_c"
check "phase C: median pacing / (cwnd*mss/srtt) in avoidance $med_ca within Reno's 1.2 x [1/1.1, 1.1]" \
    awk -v q="$med_ca" 'BEGIN { exit !(q != "none" && q >= 1.2 / 1.1 && q <= 1.2 * 1.1) }'
check_ge "phase C: 95 % of the samples within Reno's [1.2/1.1, 2 x 1.1] x cwnd*mss/srtt" "$((100 * in_band))" "$((95 * n_c))"
check_le "phase C: a Reno flow among two CUBIC: delivered at most EB/2" "$C_RATE" $((EB / 2))
check "the probe's socket stayed on tcp_av throughout (TCP_CONGESTION)" \
    awk '$3 != "tcp_av" { bad++ } END { exit !(NR > 0 && bad == 0) }' "$TMP/probe.txt"
finish
