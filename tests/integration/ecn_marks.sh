#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ECN (issue 9, point 9): rounds with ECN-Echo count toward the safety valve
# like lossy rounds, and E reacts to ECE as Reno does (CWR halves it through
# ssthresh). net.ipv4.tcp_ecn=1 in the sender's namespace (every flow, CUBIC
# included, is ECN-capable); tests/tools/tc_impair marks CE on the
# bottleneck's egress, ahead of HTB (clsact cannot see HTB's backlog): from
# a virtual queue, a token bucket draining at 90 % of the HTB rate (a, b),
# or with a fixed probability (c). EB = 25 Mbit/s of payload; the real
# queue is a bfifo of 300 frames (454200 bytes: deeper than the marks let
# the flows fill, shallow enough that G's windows, g*T*srtt, stay far below
# the hosts' 4-6 MB buffers: no round is window-limited).
#
# a. T = 30M (infeasible: above EB) among 2 CUBIC, 15 s, a virtual queue
#    of 20 frames. The valve judges 3 rounds at the gain's ceiling below
#    7/8 T, of which one must be congested (a loss or an ECN-Echo). Flagged,
#    the flow is E alone, a Reno that the marks hold below the virtual
#    queue's rate (90 % of HTB's): the real queue stays short and nothing
#    is dropped. Every 256 rounds (a few ms each here) the flag clears for a
#    retest: G comes back from g = 1 and the valve judges again within 3
#    rounds at the ceiling. So from 5 s (start-up over) a retest with no
#    loss can be judged infeasible on marks alone; were ECE not counted, G
#    would stay on until the 300-frame queue overflowed and a loss
#    re-flagged it.
#    Checks: marks were set; the flow is flagged in every `tcpavctl flows`
#    sample from 5 s (infeasible, or probing while a retest runs) and
#    infeasible in all but a retest's share of them (its rounds, the
#    ramp's and the valve's, each at most a full queue long, against 256
#    flagged rounds of the length measured; derived below); at least
#    2 retests in that time (rounds / 256); its retransmissions (ss) from
#    5 s at most 1 + 1/1000 of its segments. Control, the same without ECN
#    (tcp_ecn=0, no marks): the flagged flow's signal is loss, it
#    retransmits from 5 s. Printed, not checked: start-up. Before the first
#    verdict G paces at up to 2.5 T for the ramp's 5 rounds and the valve's
#    3, rounds that lengthen as the queue fills; marks do not slow G, so the
#    300-frame queue overflows as it does without ECN (about 2,400 drops
#    either way, all in the first 3 s).
# b. T = 10M (feasible, above the fair share EB/3) among 2 CUBIC, the same
#    marks: never flagged, AVR >= 0.95 at the receiver from 3 s to the end
#    (20 srtt and more for the gain to settle).
# c. T = 0 beside a Reno flow (both ECN), 15 s, CE with probability
#    P = 0.002 per packet: Reno's window under it is about sqrt(8/(3P)) = 37
#    packets, the two flows' ~75 fit the 300-frame queue (no drops after
#    start-up's slow start, so cuts are counted from 3 s), srtt ~35 ms.
#    `ss -tin` every 20 ms (up to 80 ms on a busy machine, 2.3 srtt: a
#    window grows one packet a round, so a sample before a cut is at most 3
#    packets short of ~35). At each cut (ssthresh set below the previous
#    sample's cwnd) the decrease is new ssthresh / that cwnd: tcp_av's
#    median within 0.5 +- 0.05 (Reno's beta; 0.5 from a window 3 short of 35
#    is 0.55), Reno's too (the control); at least 4 cuts each; the cuts are
#    ECN's, not losses: the tcp_av flow's retransmissions from 3 s are
#    fewer than a quarter of its cuts, and tcpavctl's loss_events (ssthresh
#    calls) count at least the cuts seen up to its last sample. Under the same marks AIMD gives
#    both the same mean window: every sample of a sawtooth lies in [W/2, W],
#    so the two median windows are within a factor 2.
. "$(dirname "$0")/lib.sh"
IMPAIR=$TCPAV_BUILD/tests/tc_impair
EB=25000000 SECS=15 FRAME=1514 QFRAMES=300 P_C=0.002 C_FROM=3
RATE=$(tb_htb_rate_for_eb $EB)
RATE_BPS=${RATE%bit}
tcpav_test_begin tave "$RATE" $((QFRAMES * FRAME))b
check "tc_impair built ($IMPAIR)" test -x "$IMPAIR"
tap_passing || stop_here "no tc_impair"

# field KEY LINE: the value after KEY in tc_impair's "close ..." line
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }' <<<"$2"; }
# snmp KEY: the sender namespace's Tcp counter KEY (/proc/net/snmp)
snmp() {
    ip netns exec "$TB_SND" awk -v k="$1" '$1 == "Tcp:" && !h { for (i = 2; i <= NF; i++) c[$i] = i; h = 1; next }
        $1 == "Tcp:" { print $c[k] }' /proc/net/snmp
}
# ss_retrans LINE: the total retransmitted segments (retrans:cur/total)
# (ss leaves it out while there were none)
ss_retrans() { awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^retrans:/) { split(substr($i, 9), r, "/"); n = r[2] } } END { print n + 0 }' <<<"$1"; }

# qdrops: packets the bottleneck's leaf queue dropped so far
qdrops() {
    ip netns exec "$TB_RTR" tc -j -s qdisc show dev "$TB_RTR_BOTTLENECK_DEV" | jq '[.[] | select(.kind == "bfifo") | .drops] | add // 0'
}
# run DIR ECN MARK CC... : one run of SECS with tcp_ecn=ECN at the sender
# and the marker's arguments MARK ("" for none: "vq N" a virtual queue of N
# frames, "prob P"); flow 0 takes the rule on 5201.
# Samples `tcpavctl flows --json` every 0.5 s (DIR/flows-N.json, N = tenths
# of a second from the start) and ss for flow 0 1 s before the end (DIR/ss0);
# RUN_MARKED, RUN_RETRANS, RUN_OUTSEGS (sender namespace), GOODPUT (bit/s)
run() {
    local dir=$1 ecn=$2 mark=$3 impair_pid="" k r0 o0 d0 args=()
    shift 3
    mkdir -p "$dir"
    ip netns exec "$TB_SND" sysctl -qw net.ipv4.tcp_ecn="$ecn"
    case $mark in
    vq\ *) args=(--vq-rate $((RATE_BPS * 9 / 10)) --vq-bytes $((${mark#vq } * FRAME))) ;;
    prob\ *) args=(--prob "${mark#prob }") ;;
    esac
    if [[ -n $mark ]]; then
        ip netns exec "$TB_RTR" "$IMPAIR" ecn --dev "$TB_RTR_BOTTLENECK_DEV" "${args[@]}" >"$dir/impair" 2>"$dir/impair.err" &
        impair_pid=$!
        for (( k = 0; k < 50; k++ )); do grep -q '^open ' "$dir/impair" && break; sleep 0.1; done
    fi
    r0=$(snmp RetransSegs) o0=$(snmp OutSegs) d0=$(qdrops)
    TB_OMIT=0 tb_flows_start "$dir" $SECS "$@"
    for (( k = 5; k < 10 * SECS - 10; k += 5 )); do
        sleep 0.5
        "$TCPAVCTL" flows --json >"$dir/flows-$k.json" 2>/dev/null || true
        ss_data "$TB_SND" 5201 >"$dir/ss-$k"
        (( k == 10 * SECS - 15 )) && cp "$dir/ss-$k" "$dir/ss0"
    done
    mapfile -t GOODPUT < <(tb_flows_wait "$dir" | awk '{ print $2 }')
    RUN_RETRANS=$(( $(snmp RetransSegs) - r0 )) RUN_OUTSEGS=$(( $(snmp OutSegs) - o0 )) RUN_DROPS=$(( $(qdrops) - d0 ))
    RUN_MARKED=0
    if [[ -n $impair_pid ]]; then
        kill -TERM "$impair_pid" 2>/dev/null || true
        wait "$impair_pid" || true
        RUN_MARKED=$(field marked "$(tail -1 "$dir/impair")")
    fi
    echo "# $(basename "$dir"): tcp_ecn=$ecn marks: ${mark:-none}, $*: goodput $(for x in "${GOODPUT[@]}"; do printf '%s ' "$(mbit "$x")"; done)Mbit/s;" \
        "marked ${RUN_MARKED:-?}, queue dropped $RUN_DROPS, sender retransmitted $RUN_RETRANS of $RUN_OUTSEGS segments"
}
# flow_state DIR TARGET FROM_TENTHS: per flows sample from FROM on, the data
# flow's (the busiest with TARGET) "tenths flags loss_events rounds"
flow_state() {
    local f k
    for f in "$1"/flows-*.json; do
        k=${f##*/flows-}; k=${k%.json}
        (( k >= $3 )) || continue
        jq -r --argjson t "$2" --arg k "$k" "$DATA_FLOW"' | "\($k) \(.flags) \(.loss_events) \(.rounds)"' "$f"
    done | sort -n
}
# since DIR FROM_TENTHS: "retransmissions segments" of the tcp_av flow (ss)
# between the sample at FROM and the last one
since() {
    local last
    last=$(find "$1" -name 'ss-*' | sed 's/.*ss-//' | sort -n | tail -1)
    echo "$(( $(ss_retrans "$(cat "$1/ss-$last")") - $(ss_retrans "$(cat "$1/ss-$2")") ))" \
        "$(( $(ss_field "$(cat "$1/ss-$last")" segs_out) - $(ss_field "$(cat "$1/ss-$2")" segs_out) ))"
}

# --- a. infeasible T = 30M among 2 CUBIC: judged on marks, not losses
"$TCPAVCTL" rule add --dport 5201 --cc tcp_av --rate 30M >/dev/null
run "$TMP/a" 1 "vq 20" rule cubic cubic
a_marked=$RUN_MARKED a_drops=$RUN_DROPS
flow_state "$TMP/a" 30000000 0 >"$TMP/a/all"
awk '$1 >= 50' "$TMP/a/all" >"$TMP/a/state"
n_state=$(wc -l <"$TMP/a/state")
n_flagged=$(awk '$2 ~ /infeasible|probing/' "$TMP/a/state" | wc -l)
n_inf=$(awk '$2 ~ /infeasible/' "$TMP/a/state" | wc -l)
retests=$(awk 'NR == 1 { r0 = $4 } { r = $4 } END { printf "%d", (r - r0) / 256 }' "$TMP/a/state")
read -r a_rt a_segs < <(since "$TMP/a" 50)
echo "# a: per sample (tenths of s: flags/retransmissions so far/rounds): $(while read -r k f _ r; do
    printf '%s:%s/%s/%s ' "$k" "$f" "$(ss_retrans "$(cat "$TMP/a/ss-$k")")" "$r"; done <"$TMP/a/all")"
echo "# a: from 5 s: $n_state samples, $n_inf infeasible, $n_flagged infeasible or probing; $retests retests" \
    "(256 rounds each); $a_rt retransmissions of $a_segs segments; the queue dropped $a_drops over the run"
run "$TMP/ctl" 0 "" rule cubic cubic
read -r c_rt c_segs < <(since "$TMP/ctl" 50)
echo "# ctl (no ECN): from 5 s $c_rt retransmissions of $c_segs segments; the queue dropped $RUN_DROPS over the run"
check "a: the flows were ECN-capable and marked ($a_marked marks)" test "${a_marked:-0}" -gt 0
check_ge "a: samples of the tcp_av flow from 5 s" "$n_state" 10
check "a: flagged (infeasible, or probing in a retest) in every sample from 5 s ($n_flagged of $n_state)" \
    test "$n_flagged" = "$n_state"
# A retest's share of the time, from the law and this run: it lasts at most
# K = 3 stalled ramp rounds (TCPAV_RAMP_STALLS) + 2 more at the ceiling
# (TCPAV_VALVE_ROUNDS - 1) + the ramp's rounds of 25 % more delivery (at
# most log_1.25 of EB over the flagged flow's goodput), each at most the
# full real queue's delay (QFRAMES frames at the HTB rate: G's marks do not
# slow it) plus a flagged round; it comes every 256 flagged rounds
# (TCPAV_RETEST_ROUNDS) of the median length measured between samples that
# were both infeasible. Allowed: that share of the samples, plus one.
a_gp=$(tb_flow_goodput "$TMP/a" 0 5 "$SECS" || echo 0)
rf=$(awk '$2 ~ /infeasible/ && p2 ~ /infeasible/ && $4 > p4 { print 0.1 * ($1 - p1) / ($4 - p4) }
    { p1 = $1; p2 = $2; p4 = $4 }' "$TMP/a/state" | sort -g | awk '{ v[++m] = $1 } END { print m ? v[int((m + 1) / 2)] : 0 }')
min_inf=$(awk -v q="$(awk -v f=$QFRAMES -v b=$FRAME -v r="$RATE_BPS" 'BEGIN { print f * b * 8 / r }')" \
    -v eb=$EB -v gp="$a_gp" -v n="$n_state" -v rf="$rf" 'BEGIN {
        if (rf <= 0 || gp <= 0) { printf "%d 0 0 0\n", n; exit } # unmeasured: no allowance
        up = 0; for (x = gp; x < eb; x *= 1.25) up++
        k = 3 + 2 + up
        share = k * (q + rf) / (256 * rf + k * (q + rf))
        printf "%d %.3f %.1f %d\n", int(n * (1 - share)) - 1, share, rf * 1000, k }')
read -r min_inf share rf_ms k_rounds <<<"$min_inf"
echo "# a: flagged rounds ${rf_ms} ms (median), a retest at most $k_rounds rounds of the full queue: at most $share of the time"
check_ge "a: infeasible (not in a retest) in all but that share of them, less one" "$n_inf" "$min_inf"
check_ge "a: at least 2 retests from 5 s on (rounds / 256)" "$retests" 2
check_le "a: from 5 s the flow lives on marks: retransmissions <= 1 + 1/1000 of its segments" \
    "$((1000 * (a_rt - 1)))" "$a_segs"
check "control: without ECN the flagged flow does retransmit from 5 s ($c_rt)" test "$c_rt" -gt 0
for id in $("$TCPAVCTL" rule list --json | jq '.[].id'); do "$TCPAVCTL" rule del "$id" >/dev/null; done

# --- b. feasible T = 10M among 2 CUBIC, the same marks
T=10000000
"$TCPAVCTL" rule add --dport 5201 --cc tcp_av --rate 10M >/dev/null
run "$TMP/b" 1 "vq 20" rule cubic cubic
b_gp=$(tb_flow_goodput "$TMP/b" 0 3 $SECS)
flow_state "$TMP/b" $T 0 >"$TMP/b/state"
b_flagged=$(awk '$2 ~ /infeasible/' "$TMP/b/state" | wc -l)
echo "# b: tcp_av $(mbit "$b_gp") Mbit/s at the receiver from 3 s; $(wc -l <"$TMP/b/state") flows samples, $b_flagged infeasible; last: $(tail -1 "$TMP/b/state")"
check "b: marks were set (${RUN_MARKED:-?})" test "${RUN_MARKED:-0}" -gt 0
check_ge "b: samples of the tcp_av flow" "$(wc -l <"$TMP/b/state")" 10
check "b: the feasible target is never flagged infeasible" test "$b_flagged" = 0
check_ge "b: AVR from 3 s >= 0.95" "$(awk -v g="$b_gp" -v t=$T 'BEGIN { printf "%.3f", g / t }')" 0.95
for id in $("$TCPAVCTL" rule list --json | jq '.[].id'); do "$TCPAVCTL" rule del "$id" >/dev/null; done

# --- c. T = 0 beside Reno: E halves on ECE
"$TCPAVCTL" rule add --dport 5201 --cc tcp_av >/dev/null
date +%s.%N >"$TMP/c.t0"
ip netns exec "$TB_SND" bash -c "end=\$((SECONDS + $SECS + 1)); while ((SECONDS < end)); do
    ss -tinH '( dport = :5201 or dport = :5202 )'; echo \"-- \$(date +%s.%N)\"; sleep 0.02; done" >"$TMP/ss.txt" </dev/null &
ss_pid=$!
run "$TMP/c" 1 "prob $P_C" rule reno
kill "$ss_pid" 2>/dev/null || true
wait "$ss_pid" 2>/dev/null || true
c_marked=$RUN_MARKED
# per data connection (iperf3's control connection shares the port: the
# one that acked most), from C_FROM s on (start-up's slow start left out):
# "DPORT CUTS MEDIAN_DECREASE MEDIAN_CWND RETRANSMISSIONS_SINCE"
# (and, last, the cuts up to the last tcpavctl sample, the ones its
# loss_events can have counted: ss's clock starts before the flows')
last_k=$(flow_state "$TMP/c" 0 0 | tail -1 | awk '{ print $1 }')
awk -v t0="$(cat "$TMP/c.t0")" -v from="$C_FROM" -v to="$(awk -v k="${last_k:-0}" 'BEGIN { print k / 10 }')" '
    /^--/ { t = $2 - t0; next }
    /^[^ \t]/ { n = split($4, a, ":"); sport = a[n]; n = split($5, b, ":"); key = b[n] " " sport; next }
    {
        cwnd = ""; ss = ""; rt = 0; ba = 0
        for (i = 1; i <= NF; i++) {
            if ($i ~ /^cwnd:/) cwnd = substr($i, 6) + 0
            else if ($i ~ /^ssthresh:/) ss = substr($i, 10) + 0
            else if ($i ~ /^retrans:/) { split(substr($i, 9), rr, "/"); rt = rr[2] + 0 }
            else if ($i ~ /^bytes_acked:/) ba = substr($i, 13) + 0
        }
        if (cwnd == "") next
        acked[key] = ba
        if (t < from) { pss[key] = ss; pcw[key] = cwnd; next }
        if (!(key in rt0)) rt0[key] = rt
        rtn[key] = rt
        cw[key, ++ns[key]] = cwnd
        if (ss != "" && (key in pss) && pss[key] != "" && ss != pss[key] && ss < pcw[key])
        { r[key, ++ne[key]] = ss / pcw[key]; if (t <= to) nto[key]++ }
        pss[key] = ss; pcw[key] = cwnd
    }
    function median(arr, k, m,   i, j, x) {
        for (i = 1; i <= m; i++) v[i] = arr[k, i]
        for (i = 2; i <= m; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
        return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
    }
    END {
        for (k in ns) {
            split(k, kk, " ")
            if ((kk[1] in best) && acked[k] <= best[kk[1]]) continue
            best[kk[1]] = acked[k]
            out[kk[1]] = sprintf("%s %d %.3f %.0f %d %d", kk[1], ne[k], ne[k] ? median(r, k, ne[k]) : 0, median(cw, k, ns[k]),
                rtn[k] - rt0[k], nto[k])
        }
        for (p in out) print out[p]
    }' "$TMP/ss.txt" >"$TMP/c/cuts"
col() { awk -v p="$1" -v c="$2" '$1 == p { print $c; f = 1 } END { if (!f) print 0 }' "$TMP/c/cuts"; }
av_loss_events=$(flow_state "$TMP/c" 0 0 | tail -1 | awk '{ print $3 }')
echo "# c: marked $c_marked; tcp_av T=0: $(col 5201 2) cuts, median decrease $(col 5201 3), median cwnd $(col 5201 4)," \
    "retrans $(col 5201 5), loss_events ${av_loss_events:-?}; reno: $(col 5202 2) cuts, $(col 5202 3), cwnd $(col 5202 4), retrans $(col 5202 5)"
within() { awk -v a="$1" -v b="$2" -v d="$3" 'BEGIN { exit !(a >= b - d && a <= b + d) }'; }
check "c: marks were set ($c_marked)" test "${c_marked:-0}" -gt 0
check_ge "c: cuts seen for tcp_av T=0" "$(col 5201 2)" 4
check_ge "c: cuts seen for reno" "$(col 5202 2)" 4
check "c: tcp_av T=0 cuts as Reno on ECE: median ssthresh/cwnd $(col 5201 3) within 0.5 +- 0.05" within "$(col 5201 3)" 0.5 0.05
check "c: control: Reno's $(col 5202 3) within 0.5 +- 0.05" within "$(col 5202 3)" 0.5 0.05
check_le "c: the cuts are ECN's: tcp_av's retransmissions below a quarter of its cuts" "$((4 * $(col 5201 5)))" "$(col 5201 2)"
check_ge "c: tcpavctl loss_events count the cuts (those up to its last sample, at $(awk -v k="${last_k:-0}" 'BEGIN { print k / 10 }') s)" "${av_loss_events:-0}" "$(col 5201 6)"
check "c: median windows within a factor 2 ($(col 5201 4) vs $(col 5202 4))" \
    awk -v a="$(col 5201 4)" -v b="$(col 5202 4)" 'BEGIN { exit !(a > 0 && b > 0 && a <= 2 * b && b <= 2 * a) }'
finish
