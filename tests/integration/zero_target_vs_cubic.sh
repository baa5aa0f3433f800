#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# T = 0 must behave as Reno: on a loss, Reno halves its window (ssthresh =
# cwnd / 2) where CUBIC keeps 0.7 of it. Shares cannot tell the two apart
# here: at this bed's BDP CUBIC sits in its Reno-friendly region. So the
# test watches the multiplicative decrease itself: tcp_av with no target,
# a Reno flow and a CUBIC flow share the bottleneck for 15 s; `ss -tin` is
# sampled every 20 ms in the sender (every 40-80 ms on a busy machine); at
# every loss event (ssthresh set below the window of the sample before) the
# decrease is new ssthresh / that window. Windows here are 30-40 packets
# before a loss, growing by one per RTT (about 50 ms), so a sample 80 ms
# before the loss is at most two packets short: 0.5 -> at most 0.53, and
# 0.7 at most 0.74. Bounds: the median decrease of tcp_av
# (T = 0) within 0.5 +- 0.05; Reno's, the control in the same run, too;
# CUBIC's within 0.7 +- 0.05, showing that the measurement tells them
# apart. At least 4 loss events per flow (about 15 here).
. "$(dirname "$0")/lib.sh"
tcpav_test_begin tavz "$(tb_htb_rate_for_eb 25000000)" 100
"$TCPAVCTL" rule add --dport 5201 --cc tcp_av >/dev/null # tcp_av, no --rate: T = 0
SECS=15 MIN_EVENTS=4

tb_flows_start "$TMP" $SECS rule reno cubic # ports 5201 (tcp_av), 5202, 5203
ip netns exec "$TB_SND" bash -c "end=\$((SECONDS + $SECS + 1)); while ((SECONDS < end)); do
    ss -tinH '( dport = :5201 or dport = :5202 or dport = :5203 )'; echo '--'; sleep 0.02; done" \
    >"$TMP/ss.txt" </dev/null &
ss_pid=$!
tb_flows_wait "$TMP" >/dev/null || true
kill "$ss_pid" 2>/dev/null || true
wait "$ss_pid" 2>/dev/null || true

# decreases: per data connection (iperf3's control connections see no
# loss), "DPORT EVENTS MEDIAN WINDOW" with WINDOW the mean cwnd before a
# loss and MEDIAN the median of new ssthresh /
# previous sample's cwnd over the loss events; slow start's end (no
# ssthresh before) is not one
awk '
    /^--/ { next }
    /^[^ \t]/ { n = split($4, a, ":"); sport = a[n]; n = split($5, b, ":"); key = b[n] " " sport; next }
    {
        cwnd = ""; ss = ""
        for (i = 1; i <= NF; i++) {
            if ($i ~ /^cwnd:/) cwnd = substr($i, 6) + 0
            if ($i ~ /^ssthresh:/) ss = substr($i, 10) + 0
        }
        if (cwnd == "") next
        if (ss != "" && (key in pss) && pss[key] != "" && ss != pss[key] && ss < pcw[key])
            { r[key, ++ne[key]] = ss / pcw[key]; w[key] += pcw[key] }
        pss[key] = ss; pcw[key] = cwnd
    }
    END {
        for (k in ne) {
            split(k, kk, " ")
            if (ne[k] <= best[kk[1]]) continue
            best[kk[1]] = ne[k]; wmean[kk[1]] = w[k] / ne[k]
            m = ne[k]
            for (i = 1; i <= m; i++) v[i] = r[k, i]
            for (i = 2; i <= m; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
            med[kk[1]] = m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
        }
        for (p in best) printf "%s %d %.3f %.0f\n", p, best[p], med[p], wmean[p]
    }' "$TMP/ss.txt" >"$TMP/decrease.txt"

decrease() { awk -v p="$1" '$1 == p { print $3; f = 1 } END { if (!f) print "none" }' "$TMP/decrease.txt"; }
events() { awk -v p="$1" '$1 == p { print $2; f = 1 } END { if (!f) print 0 }' "$TMP/decrease.txt"; }
window() { awk -v p="$1" '$1 == p { print $4 }' "$TMP/decrease.txt"; }
within() { [[ $1 != none ]] && awk -v a="$1" -v b="$2" -v d="$3" 'BEGIN { exit !(a >= b - d && a <= b + d) }'; }
av=$(decrease 5201) reno=$(decrease 5202) cubic=$(decrease 5203)
echo "# median decrease (loss events, mean window before): tcp_av T=0 $av ($(events 5201), $(window 5201))," \
    "reno $reno ($(events 5202), $(window 5202)), cubic $cubic ($(events 5203), $(window 5203)); $(grep -c '^--' "$TMP/ss.txt") samples"

check "iperf3 reports the T = 0 sender on tcp_av" jq -e '.end.sender_tcp_congestion == "tcp_av"' "$TMP/flow-0.json"
check "the controls ran on reno and cubic" \
    jq -e -s '.[0].end.sender_tcp_congestion == "reno" and .[1].end.sender_tcp_congestion == "cubic"' \
    "$TMP/flow-1.json" "$TMP/flow-2.json"
check_ge "loss events seen for tcp_av T=0" "$(events 5201)" $MIN_EVENTS
check_ge "loss events seen for reno" "$(events 5202)" $MIN_EVENTS
check_ge "loss events seen for cubic" "$(events 5203)" $MIN_EVENTS
check "tcp_av T=0 decreases as Reno: ssthresh/cwnd $av within 0.5 +- 0.05" within "$av" 0.5 0.05
check "control: Reno's decrease $reno within 0.5 +- 0.05" within "$reno" 0.5 0.05
check "control: CUBIC's decrease $cubic within 0.7 +- 0.05" within "$cubic" 0.7 0.05
finish
