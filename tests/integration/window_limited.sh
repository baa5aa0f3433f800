#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Receiver and buffer limits (issue 9, point 10): a flow whose window is
# held by the peer's receive window or its own send buffer, not by the
# network, is flagged window-limited, not infeasible, and its gain does not
# ratchet up (a larger G would not send more).
# EB = 25 Mbit/s of payload, a bfifo of 1,000 frames (1514000 bytes: deep,
# so that the flows' windows, not drops, set the queue), T = 10 Mbit/s
# (a port rule) among N = 3 CUBIC flows, 15 s each run:
#  control  host defaults (tcp_rmem/tcp_wmem max 6 MB / 4 MB): T*srtt fits,
#           the flow reaches T: AVR >= 0.95 at the receiver from 3 s, and it
#           is window-limited in fewer than half of the samples.
#  rcvbuf   net.ipv4.tcp_rmem max 262144 in the receiver's namespace: every
#           receive buffer autotunes to at most 256 KB, of which the window
#           advertised is the kernel's payload share (scaling_ratio, about
#           half to two thirds): W = 128-170 KB. All 4 flows are held to W:
#           together <= 4 W = 680 KB in flight, below the 1,514 KB queue, so
#           nothing is dropped; the queue holds 4 W - BDP, srtt = 4 W / EB
#           (170-220 ms) and each flow gets W / srtt = EB/4 = 6.25 Mbit/s,
#           below 7/8 T = 8.75: T cannot be reached, and T*srtt = 10M * 0.17
#           s / 8 = 212 KB > W: the window binds. (Were window-limited
#           rounds counted, the valve would see 3 rounds at maximum gain
#           below 7/8 T and flag the flow as soon as one had a loss.)
#  sndbuf   net.ipv4.tcp_wmem max 262144 in the sender's namespace: every
#           send buffer at most 256 KB (truesize, so again about 128-170 KB
#           of data in flight), the same arithmetic.
# Checks in each limited run, on `tcpavctl flows --json` and `ss -tin` of the
# tcp_av flow every 0.5 s from 5 s (the limit reached: srtt settles within
# a few of its 200 ms rounds):
#  - the limit binds as computed: T * srtt > ss's snd_wnd (rcvbuf) or the
#    send buffer's 256 KB (sndbuf), at the median sample;
#  - the flow cannot reach T: AVR at the receiver from 3 s < 7/8;
#  - window-limited in at least half of the samples (JSON window_limited),
#    and in the table's flags at 10 s;
#  - infeasible in none;
#  - the gain does not ratchet: its maximum from 5 s is at most its value
#    in the first sample where the flow was held back (window- or
#    application-limited: before the limit binds, a round or two of slow
#    start below 7/8 T may raise it by a quarter each; 1.56 seen), and
#    below the maximum 2.5, which 4 more ramp rounds at AVR < 7/8 would
#    reach if such rounds counted.
. "$(dirname "$0")/lib.sh"
EB=25000000 SECS=15 FRAME=1514 T=10000000 LIMIT=262144
tcpav_test_begin tavw "$(tb_htb_rate_for_eb $EB)" $((1000 * FRAME))b
"$TCPAVCTL" rule add --dport 5201 --cc tcp_av --rate 10M >/dev/null

# run DIR: the flows, sampling `tcpavctl flows --json` and ss of flow 0
# every 0.5 s into DIR/samples ("tenths gain window_limited infeasible
# flags srtt_us snd_wnd limited" with limited the kernel's own account, ss's
# rwnd_limited and sndbuf_limited times), GOODPUT (bit/s, flow 0 is
# tcp_av), AVR from 3 s
run() {
    local dir=$1 k line lim
    mkdir -p "$dir"
    TB_OMIT=0 tb_flows_start "$dir" $SECS rule cubic cubic cubic
    for (( k = 5; k < 10 * SECS - 5; k += 5 )); do
        sleep 0.5
        line=$(ss_data "$TB_SND" 5201)
        lim=$(awk '{ s = ""; for (i = 1; i <= NF; i++) if ($i ~ /^(rwnd|sndbuf)_limited:/) s = s (s ? "," : "") $i
            print s ? s : "-" }' <<<"$line")
        "$TCPAVCTL" flows --json 2>/dev/null | jq -r --argjson t $T --arg k "$k" --arg w "$(ss_field "$line" snd_wnd)" --arg l "$lim" "$DATA_FLOW"' |
            "\($k) \(.gain) \(.window_limited) \(.infeasible) \(.flags) \(.srtt_us) \(if $w == "" then "-" else $w end) \($l)"' \
            >>"$dir/samples" || true
        (( k == 100 )) && "$TCPAVCTL" flows >"$dir/table" 2>&1
    done
    mapfile -t GOODPUT < <(tb_flows_wait "$dir" | awk '{ print $2 }')
    AVR=$(awk -v g="$(tb_flow_goodput "$dir" 0 3 $SECS)" -v t=$T 'BEGIN { printf "%.3f", g / t }')
    echo "# $(basename "$dir"): tcp_av AVR $AVR from 3 s; goodput $(for x in "${GOODPUT[@]}"; do printf '%s ' "$(mbit "$x")"; done)Mbit/s"
    echo "# $(basename "$dir") samples (tenths gain window_limited infeasible flags srtt_us snd_wnd ss:limited): $(awk '{ printf "%s ", $0 " |" }' "$dir/samples")"
}
# the samples from 5 s on
late() { awk '$1 >= 50' "$1/samples"; }
count() { late "$1" | awk -v c="$2" -v v="$3" '$c == v' | wc -l; }
median_col() { late "$1" | awk -v c="$2" '$c != "-" { print $c }' | sort -g | awk '{ v[++n] = $1 } END { print n ? v[int((n + 1) / 2)] : 0 }'; }

# --- control
run "$TMP/control"
n=$(late "$TMP/control" | wc -l)
check_ge "control: samples from 5 s" "$n" 10
check_ge "control: without limits the flow reaches T: AVR from 3 s >= 0.95" "$AVR" 0.95
check_le "control: window-limited in fewer than half of the samples" "$((2 * $(count "$TMP/control" 3 true)))" "$((n - 1))"

limited() {
    local what=$1 dir=$TMP/$1 n srtt wnd bound g3 gmax
    n=$(late "$dir" | wc -l)
    srtt=$(median_col "$dir" 6) wnd=$(median_col "$dir" 7)
    [[ $what == rcvbuf ]] && bound=$wnd || bound=$LIMIT
    # the gain when the kernel first held the flow back: window-limited, or
    # application-limited (the rate sample's mark when the send buffer is
    # full and nothing is left to send): rounds the gain must skip
    g3=$(awk '$5 ~ /limited/ { print $2; exit }' "$dir/samples")
    gmax=$(late "$dir" | awk 'BEGIN { m = 0 } $2 > m { m = $2 } END { print m }')
    echo "# $what: median srtt $((srtt / 1000)) ms, snd_wnd $wnd B: T*srtt = $(awk -v t=$T -v s="$srtt" 'BEGIN { printf "%.0f", t / 8 * s / 1e6 }') B;" \
        "gain when first limited ${g3:-?}, max from 5 s $gmax"
    check_ge "$what: samples from 5 s" "$n" 10
    check "$what: the limit binds: T*srtt > $bound B" \
        awk -v t=$T -v s="$srtt" -v b="$bound" 'BEGIN { exit !(b > 0 && t / 8 * s / 1e6 > b) }'
    check "$what: T cannot be reached: AVR $AVR < 7/8" awk -v a="$AVR" 'BEGIN { exit !(a < 0.875) }'
    check_ge "$what: flagged window-limited in at least half of the samples from 5 s" "$((2 * $(count "$dir" 3 true)))" "$n"
    check "$what: the table (tcpavctl flows) at 10 s shows the flag window-limited for the data flow" \
        awk -v d="$TB_RCV_ADDR:5201" '$0 ~ d && /window-limited/ { f = 1 } END { exit !f }' "$dir/table"
    check "$what: never flagged infeasible ($(count "$dir" 4 true) of $n)" test "$(count "$dir" 4 true)" = 0
    check "$what: the gain does not ratchet up: max $gmax from 5 s <= ${g3:-?} when first limited, < 2.5" \
        awk -v m="$gmax" -v g="${g3:-0}" 'BEGIN { exit !(g > 0 && m <= g && m < 2.5) }'
}

# --- the receiver's buffer
rmem=$(ip netns exec "$TB_RCV" sysctl -n net.ipv4.tcp_rmem)
ip netns exec "$TB_RCV" sysctl -qw net.ipv4.tcp_rmem="4096 131072 $LIMIT"
run "$TMP/rcvbuf"
limited rcvbuf
ip netns exec "$TB_RCV" sysctl -qw net.ipv4.tcp_rmem="$rmem"

# --- the sender's buffer
ip netns exec "$TB_SND" sysctl -qw net.ipv4.tcp_wmem="4096 16384 $LIMIT"
run "$TMP/sndbuf"
limited sndbuf
finish
