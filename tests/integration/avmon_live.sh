#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# avmon live at an access point: a server sends three CUBIC downloads
# through an AP whose downlink (br0, HTB bottleneck, EB = 20 Mbit/s) two
# stations share (experiments/testbed/ap.sh); avmon captures on br0 in the
# AP with a target of 8 Mbit/s on station 1's port 5201, and is stopped
# with SIGINT after the flows. Checks: each flow's goodput bytes within 3 %
# of iperf3's received bytes, the target flow's AVR within 3 points of
# iperf3's goodput / target, EB estimated by avmon itself (no --capacity:
# the best saturated second, from TCP loss signals) within 5 % of the HTB's
# payload rate and NRT = target / that estimate, one JSON line per interval
# (written live, contiguous, one second each), and exactly one summary,
# last, written after SIGINT, with exit status 0. Then SIGTERM: exit 0
# with a summary that counts the packets captured before the signal.
# Bounded (~15 s); cleans up on any exit. No tcp_av here: plain iperf3 -C cubic, addresses 10.81.x.y.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../../experiments/testbed/ap.sh
. "$TOP/experiments/testbed/ap.sh"

NAME=avl
export TB_NET=81 # addresses 10.81.x.y, apart from the other tests' testbeds
EB=20000000 TARGET=8000000 SECS=10
AVMON=${AVMON:-$TCPAV_BUILD/bin/avmon}

# shellcheck disable=SC2034 # read by tb_trap_cleanup's trap
TB_EXTRA_CLEANUP="ap_down $NAME; rm -rf \"\$TMP\""
tb_trap_cleanup "$NAME"

# caught PID SIGNO: PID has a handler installed for signal SIGNO
caught() {
    local mask
    mask=$(awk '/^SigCgt:/ { print $2 }' "/proc/$1/status" 2>/dev/null) || return 1
    [[ -n $mask ]] && (( (16#$mask >> ($2 - 1)) & 1 ))
}

# avmon_ready PID: wait (<= 5 s) until avmon, started in the background,
# has its capture open: it installs its SIGINT/SIGTERM handlers right
# after. Fails at once if it exited.
avmon_ready() {
    local i
    for (( i = 0; i < 100; i++ )); do
        kill -0 "$1" 2>/dev/null || return 1
        caught "$1" 2 && caught "$1" 15 && return 0
        sleep 0.05
    done
    return 1
}

# avmon_stop PID SIG: send SIG (CONT: to deliver a signal sent while it was
# stopped), wait (<= 5 s) for the exit; sets AVMON_RC (the exit status, or
# "hung" after a SIGKILL).
avmon_stop() {
    local i
    kill "-$2" "$1" 2>/dev/null || true
    for (( i = 0; i < 100; i++ )); do
        kill -0 "$1" 2>/dev/null || break
        sleep 0.05
    done
    if kill -0 "$1" 2>/dev/null; then
        kill -KILL "$1" 2>/dev/null || true
        wait "$1" 2>/dev/null || true
        AVMON_RC=hung
    else
        AVMON_RC=0
        wait "$1" || AVMON_RC=$?
    fi
}

# within_pct A B PCT: |A - B| <= PCT % of B
within_pct() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= p / 100 * b) }'; }
# within A B D: |A - B| <= D
within() { awk -v a="$1" -v b="$2" -v e="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= e) }'; }

check "avmon is built ($AVMON)" test -x "$AVMON"
ap_up "$NAME" "$(tb_htb_rate_for_eb $EB)" 50
STA1=$AP_STA1_ADDR STA2=$AP_STA2_ADDR
tb_iperf_servers "$AP_STA1" 5201 5202
tb_iperf_servers "$AP_STA2" 5203

# `ip netns exec` execs avmon: $! is avmon itself
ip netns exec "$AP_AP" "$AVMON" -i "$AP_BOTTLENECK_DEV" --interval 1 --format json \
    --target "$STA1:5201=8M" tcp >"$TMP/avmon.json" 2>"$TMP/avmon.err" &
avpid=$!
if ! avmon_ready "$avpid"; then
    check "avmon started capturing on $AP_BOTTLENECK_DEV ($(head -c 200 "$TMP/avmon.err"))" false
    stop_here "avmon did not start"
fi

# three downloads, server -> AP -> stations: sta1:5201 (the target), sta1:5202, sta2:5203
flows=("$STA1:5201" "$STA1:5202" "$STA2:5203")
pids=()
for i in 0 1 2; do
    tb_iperf_client "$AP_SRV" "${flows[i]%:*}" "${flows[i]#*:}" $SECS "$TMP/iperf-$i.json" -C cubic >/dev/null
    pids+=("$TB_LAST_PID")
done
tb_wait "${pids[@]}" || true
# Before SIGINT, let avmon catch up with what it has captured (it drops
# what is still in its capture buffer at SIGINT, see the SIGSTOP check
# below): wait (<= 5 s) until it has written an interval that starts after
# the flows ended, by the clock that stamps the packets.
t_done=$(date +%s.%N)
for (( i = 0; i < 100; i++ )); do
    jq -e -s --argjson t "$t_done" 'any(.[]; .type == "interval" and .t_start >= $t)' \
        "$TMP/avmon.json" >/dev/null 2>&1 && break
    sleep 0.05
done
cp "$TMP/avmon.json" "$TMP/before-sigint.json"
avmon_stop "$avpid" INT

out=$TMP/avmon.json
check "avmon exited with status 0 after SIGINT (got $AVMON_RC)" test "$AVMON_RC" = 0
check "avmon wrote nothing on stderr" test ! -s "$TMP/avmon.err"
if [[ -s $TMP/avmon.err ]]; then echo "# avmon stderr: $(head -c 300 "$TMP/avmon.err")"; fi
check "every output line is one JSON object" \
    jq -e -s --argjson n "$(wc -l < "$out")" '$n > 0 and length == $n and all(.[]; type == "object")' "$out"
check "no summary before SIGINT" \
    jq -e -s 'length > 0 and all(.[]; .type == "interval")' "$TMP/before-sigint.json"
check "exactly one summary, as the last line" \
    jq -e -s '([.[] | select(.type == "summary")] | length) == 1 and .[-1].type == "summary"
              and all(.[:-1][]; .type == "interval")' "$out"
tail -n 1 "$out" > "$TMP/summary.json"
read -r cap cap_source < <(jq -r '"\(.capacity_bps // 0) \(.capacity_source // "none")"' "$TMP/summary.json" 2>/dev/null || echo "0 none")
echo "# avmon's EB: $cap bit/s ($cap_source); the HTB's payload rate $EB"
check "EB is estimated from saturated seconds ($cap_source)" test "$cap_source" = estimated
check "EB estimate within 5 % of the bottleneck's payload rate ($(mbit "$cap") vs $(mbit $EB) Mbit/s)" \
    within_pct "$cap" $EB 5

dur=$(jq -r '.capture.duration_s // 0' "$TMP/summary.json" 2>/dev/null || true)
dur=${dur:-0}
n=$(awk -v d="$dur" 'BEGIN { printf "%d", d }')
n_int=$(jq -s '[.[] | select(.type == "interval")] | length' "$out" 2>/dev/null || echo 0)
n_live=$(jq -s '[.[] | select(.type == "interval")] | length' "$TMP/before-sigint.json" 2>/dev/null || echo 0)
echo "# capture ${dur} s: $n_int interval lines, $n_live of them before SIGINT"
check_ge "the capture spans the flows (s)" "$dur" $((SECS - 1))
check_ge "interval lines for a ${n} s capture" "$n_int" $((n - 1))
check_ge "interval lines written live, before SIGINT" "$n_live" $((n - 1))
check "intervals are contiguous, 1 s each but the last" jq -e -s '
    [.[] | select(.type == "interval")] as $iv
    | all(range(1; $iv | length); $iv[.].t_start == $iv[. - 1].t_end)
      and all($iv[:-1][]; (.t_end - .t_start - 1 | fabs) < 0.000002)' "$out"
check "the AP's own MAC (the capturing interface's) is the AP, not a station; 2 stations active" \
    jq -e --arg m "$(ip netns exec "$NAME-ap" cat "/sys/class/net/$AP_BOTTLENECK_DEV/address")" \
    '([.stations[] | select(.mac == $m and .role == "ap")] | length) == 1 and .fairness.active_stations == 2' \
    "$TMP/summary.json"
check "the capture lost no packets" \
    jq -e '(.capture.pcap_dropped // 0) == 0 and (.capture.pcap_if_dropped // 0) == 0' "$TMP/summary.json"

# avmon's figures for the data connection at ENDPOINT (iperf3's control
# connection shares the port and carries next to nothing): "goodput_bytes
# of the busier direction, AVR % or null, target_bps or null, NRT % or null"
# (avmon gives AVR and NRT as ratios)
avmon_flow() {
    jq -r --arg ep "$1" '
        [.flows[] | select(.src == $ep or .dst == $ep)
         | . + {gb: ([.a_to_b.goodput_bytes, .b_to_a.goodput_bytes] | max)}]
        | max_by(.gb) // {gb: 0}
        | "\(.gb) \(if .avr then .avr * 100 else null end) \(.target_bps // "null") \(if .nrt then .nrt * 100 else null end)"' "$TMP/summary.json"
}

for i in 0 1 2; do
    ep=${flows[i]}
    f=$TMP/iperf-$i.json
    check "iperf3 flow to $ep ran" tb_goodput_bps "$f"
    ibytes=$(jq -r '.end.sum_received.bytes // 0' "$f" 2>/dev/null || echo 0)
    ibps=$(jq -r '.end.sum_received.bits_per_second // 0' "$f" 2>/dev/null || echo 0)
    abytes=0 avr=null tbps=null nrt=null
    read -r abytes avr tbps nrt < <(avmon_flow "$ep" 2>/dev/null) || true
    echo "# $ep: avmon $abytes goodput bytes, iperf3 $ibytes received bytes ($(pct "$abytes" "$ibytes") %);" \
        "iperf3 $(mbit "$ibps") Mbit/s"
    check "$ep: avmon goodput bytes within 3 % of iperf3's ($abytes vs $ibytes)" \
        within_pct "$abytes" "$ibytes" 3
    if ((i == 0)); then
        iavr=$(awk -v g="$ibps" -v t=$TARGET 'BEGIN { printf "%.2f", 100 * g / t }')
        echo "# $ep: AVR avmon $avr %, iperf3 $iavr %; NRT $nrt %"
        check "$ep: target_bps is the target ($tbps)" test "$tbps" = $TARGET
        check "$ep: AVR within 3 points of iperf3's ($avr vs $iavr)" within "$avr" "$iavr" 3
        check "$ep: NRT is target / avmon's EB estimate ($nrt %)" \
            within "$nrt" "$(awk -v t=$TARGET -v c="$cap" 'BEGIN { print (c > 0 ? 100 * t / c : -1) }')" 0.01
        check "$ep: NRT within 5 % of target / EB ($nrt vs $((100 * TARGET / EB)) %)" \
            within_pct "$nrt" $((100 * TARGET / EB)) 5
    else
        check "$ep: no target (it matches ADDR:PORT only)" test "$tbps" = null
    fi
done

# SIGTERM, and what was captured before the signal: avmon is stopped
# (SIGSTOP) while 20 pings cross br0 (40 ICMP packets wait in its capture
# buffer), gets SIGTERM, and is continued: it exits 0 with a summary that
# counts those packets.
ip netns exec "$AP_AP" "$AVMON" -i "$AP_BOTTLENECK_DEV" --interval 1 --format json icmp \
    >"$TMP/term.json" 2>"$TMP/term.err" &
avpid=$!
if avmon_ready "$avpid"; then
    kill -STOP "$avpid"
    ip netns exec "$AP_SRV" ping -q -c 20 -i 0.01 -W 1 "$STA1" >/dev/null || true
    kill -TERM "$avpid"
    avmon_stop "$avpid" CONT # the pending SIGTERM is delivered now
else
    AVMON_RC="not started: $(head -c 200 "$TMP/term.err")"
fi
check "SIGTERM: exit status 0 (got $AVMON_RC)" test "$AVMON_RC" = 0
check "SIGTERM: one summary, last" \
    jq -e -s '([.[] | select(.type == "summary")] | length) == 1 and .[-1].type == "summary"' "$TMP/term.json"
icmp=$(tail -n 1 "$TMP/term.json" | jq -r '"\(.capture.packets) \(.capture.pcap_received // "?")"' 2>/dev/null || echo "? ?")
check "SIGTERM: the packets captured before it are in the summary (packets, pcap_received: $icmp; want >= 40)" \
    ge "${icmp%% *}" 40

ap_down "$NAME"
check "after the test: no namespace of $NAME left" bash -c "! ip netns list | grep -q '^$NAME-'"
finish
