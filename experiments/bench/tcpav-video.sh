#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# experiments/bench/tcpav-video.sh BUILD -- `make bench`: video traffic
# (tests/tools/frame_sender) in tcp_av's slot, with the same slot under
# CUBIC, Reno and BBR side by side. It PRINTS figures and asserts nothing
# (tests/integration/video_among_cubic.sh holds the bounds). Needs root.
# About 14 minutes with the defaults (2 frame rates x 4 CCs x 5 runs x 21 s).
#
#   experiments/bench/tcpav-video.sh build     # BUILD holds bin/tcpavctl, tests/frame_sender
#
# Scenario, as in video_among_cubic.sh: EB = 25 Mbit/s of payload (HTB, a
# 100-packet pfifo), 3 CUBIC bulk flows, and a video at T = 12 Mbit/s (NRT
# 48 %, above the fair share EB/4), one I-frame a second at 8 times a
# P-frame, 16 s of frames of which the first 4 are left out, 3 s of drain.
# tcp_av gets T from a tcpavctl rule on dport 5201 that matches only this
# bench's receiver (--dst); CUBIC, Reno and BBR run on port 5301 (--cc).
# Per run: offered and delivered rate, AVR at the sink (delivered /
# min(T, offered)), frame latency p50/p99/max (frame time -> ACK of its
# last byte; "never": not acknowledged within the drain) and its trend, the
# CUBIC flows' goodput; per cell the medians ("never" counts as longest).
#
# Output: the printed figures, and results/video-YYYYmmdd-HHMMSS/ with
# video.csv (a "# ..." line with date, kernel, commit, capacity_bps, then
# one row per run; latencies in ms, empty for "never"), summary.txt and
# raw/ (each run's video.json, sink.json and iperf3 JSON).
#
# Environment:
#   TCPAVCTL            tcpavctl to use (default BUILD/bin/tcpavctl)
#   TCPAV_VIDEO_RUNS    runs per cell (default 5)
#   TCPAV_VIDEO_FPS     frame rates (default "30 60")
#   TCPAV_VIDEO_CCS     congestion controls in the video's slot (default
#                       "tcp_av cubic reno bbr"; those not available skipped)
#   TCPAV_VIDEO_NET     second octet of the testbed addresses (default 80)
#   TCPAV_BENCH_RESULTS results parent directory (default TOP/results)
# shellcheck source-path=SCRIPTDIR
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=lib.sh
. "$TOP/experiments/bench/lib.sh"   # say, sayf, bench_build_dir, ctl, rules, figures
BUILD=$(bench_build_dir "${1:-build}")
TCPAVCTL=${TCPAVCTL:-$BUILD/bin/tcpavctl}
FS=$BUILD/tests/frame_sender
RUNS=${TCPAV_VIDEO_RUNS:-5}
FPS_LIST=${TCPAV_VIDEO_FPS:-30 60}
CC_LIST=${TCPAV_VIDEO_CCS:-tcp_av cubic reno bbr}
export TB_NET=${TCPAV_VIDEO_NET:-80}

# shellcheck source=../testbed/testbed.sh
. "$TOP/experiments/testbed/testbed.sh"
# shellcheck source=../testbed/flows.sh
. "$TOP/experiments/testbed/flows.sh"
# shellcheck source=../testbed/video.sh
. "$TOP/experiments/testbed/video.sh"

if [[ $(id -u) != 0 ]]; then
    echo "tcpav-video: needs root (network namespaces, BPF): run 'sudo make bench'" >&2
    exit 1
fi
for tool in iperf3 jq ip tc ss awk; do
    command -v "$tool" >/dev/null || { echo "tcpav-video: $tool not found" >&2; exit 1; }
done
[[ -x $TCPAVCTL ]] || { echo "tcpav-video: $TCPAVCTL not found (run 'make all')" >&2; exit 1; }
[[ -x $FS ]] || { echo "tcpav-video: $FS not found (run 'make all')" >&2; exit 1; }
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "tcpav-video: TCPAV_VIDEO_RUNS must be a positive number" >&2; exit 1; }


EB=25000000 T=12000000 RATE=12M SECS=16 OMIT=4 DRAIN=3
TBNAME=video$$
MY_DST=10.$TB_NET.2.1
PORT_AV=5201 PORT_BASE=5301 PORT_CUBIC0=5202

STAMP=$(date +%Y%m%d-%H%M%S)
OUT=${TCPAV_BENCH_RESULTS:-$TOP/results}/video-$STAMP
RAW=$OUT/raw
mkdir -p "$RAW"
SUMMARY=$OUT/summary.txt
: >"$SUMMARY"
commit=$(git -c safe.directory="$TOP" -C "$TOP" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if [[ $commit != unknown ]] && ! git -c safe.directory="$TOP" -C "$TOP" diff --quiet HEAD -- 2>/dev/null; then
    commit+="-dirty"
fi
printf '# tcpav-video date=%s kernel=%s commit=%s capacity_bps=%s target_bps=%s\n' \
    "$(date -Iseconds)" "$(uname -r)" "$commit" $EB $T >"$OUT/video.csv"
echo "fps,cc,run,offered_bps,delivered_bps,avr,p50_ms,p99_ms,max_ms,trend_ms_per_s,frames,frames_late,frames_unacked,cubic_bps" \
    >>"$OUT/video.csv"

# --- tcp_av and our rule ------------------------------------------------------
WE_LOADED=0
loaded() { "$TCPAVCTL" status --json 2>/dev/null | jq -e '.loaded and .registered' >/dev/null 2>&1; }
video_cleanup() {
    [[ -e /sys/fs/bpf/tcpav ]] && del_my_rules
    if ((WE_LOADED)); then "$TCPAVCTL" unload >/dev/null 2>&1 || true; fi
}
TB_EXTRA_CLEANUP=video_cleanup   # read by the trap of tb_trap_cleanup
tb_trap_cleanup "$TBNAME"

if [[ " $CC_LIST " == *" tcp_av "* ]]; then
    if ! loaded; then
        "$TCPAVCTL" load >/dev/null
        WE_LOADED=1
    fi
    del_my_rules
    "$TCPAVCTL" rule add --dport $PORT_AV --dst "$MY_DST" --cc tcp_av --rate $RATE >/dev/null
fi
tb_up "$TBNAME" "$(tb_htb_rate_for_eb $EB)" 100

# run_cell DIR FPS CC: one run; prints the CSV row's fields after fps,cc,run
run_cell() {
    local dir=$1 fps=$2 cc=$3 port=$PORT_AV args=() cubic
    [[ $cc == tcp_av ]] || port=$PORT_BASE args=(--cc "$cc")
    mkdir -p "$dir"
    TB_PORT0=$PORT_CUBIC0 TB_OMIT=$OMIT tb_flows_start "$dir" $((SECS + DRAIN)) cubic cubic cubic || return 1
    tb_video_start "$FS" "$dir" $port --rate $RATE --fps "$fps" --gop "$fps" --i-ratio 8 --duration $SECS \
        --omit $OMIT --drain $DRAIN ${args[@]+"${args[@]}"} || return 1
    tb_video_wait "$dir" || return 1
    cubic=$(tb_flows_wait "$dir" | awk '{ s += $2 } END { printf "%.0f", s }') || return 1
    [[ $(jq -r .cc "$dir/video.json") == "$cc" ]] || {
        echo "tcpav-video: the video ran on $(jq -r .cc "$dir/video.json"), not $cc" >&2
        return 1
    }
    jq -r --arg avr "$(tb_video_avr "$dir" $T)" --arg cubic "$cubic" '[.offered_bps, .delivered_bps, $avr,
        .latency_ms.p50, .latency_ms.p99, .latency_ms.max, .latency_trend_ms_per_s, .frames, .frames_late,
        .frames_unacked, $cubic] | map(. // "" | tostring) | join(",")' "$dir/video.json"
}

say "# tcpav-video: EB $(mbit $EB) Mbit/s (100-packet queue), video T $(mbit $T) Mbit/s among 3 CUBIC, $RUNS run(s) a cell"
say "# $(head -1 "$OUT/video.csv" | cut -c3-)"
sayf '%-4s %-7s %3s %9s %9s %6s %9s %9s %9s %8s  %s\n' fps cc run "offered" "delivered" AVR "p50 ms" "p99 ms" \
    "max ms" "ms/s" "CUBIC x3 Mbit/s"
for fps in $FPS_LIST; do
    for cc in $CC_LIST; do
        if [[ $cc != tcp_av ]] && ! grep -qw "$cc" /proc/sys/net/ipv4/tcp_available_congestion_control &&
            ! modprobe "tcp_$cc" 2>/dev/null; then
            say "# $cc is not available: skipped"
            continue
        fi
        for run in $(seq "$RUNS"); do
            if ! row=$(run_cell "$RAW/$fps-$cc-$run" "$fps" "$cc"); then
                say "# $fps fps $cc run $run failed (see above)"
                continue
            fi
            echo "$fps,$cc,$run,$row" >>"$OUT/video.csv"
            IFS=, read -r off del avr p50 p99 max trend _ _ _ cubic <<<"$row"
            sayf '%-4s %-7s %3s %9s %9s %6s %9s %9s %9s %8s  %s\n' "$fps" "$cc" "$run" "$(mbit "$off")" \
                "$(mbit "$del")" "$avr" "${p50:-never}" "${p99:-never}" "${max:-never}" "${trend:--}" "$(mbit "$cubic")"
        done
    done
done

# medians per cell; "never" (empty) sorts last
say ""
say "# medians per cell (p99 side by side: the frame latency tcp_av's target buys)"
sayf '%-4s %-7s %5s %6s %9s %9s %9s\n' fps cc runs AVR "p50 ms" "p99 ms" "max ms"
awk -F, 'NR > 2 { k = $1 "," $2; n[k]++; avr[k, n[k]] = $6; p50[k, n[k]] = $7; p99[k, n[k]] = $8; mx[k, n[k]] = $9
                  if (!(k in seen)) { seen[k] = 1; order[++m] = k } }
    function med(a, k, c,   i, j, v, t, x) {
        for (i = 1; i <= c; i++) v[i] = (a[k, i] == "" ? 1e18 : a[k, i] + 0)
        for (i = 2; i <= c; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
        x = v[int((c + 1) / 2)]
        return x >= 1e18 ? "never" : x
    }
    END { for (i = 1; i <= m; i++) { k = order[i]; split(k, f, ",")
        printf "%-4s %-7s %5d %6s %9s %9s %9s\n", f[1], f[2], n[k], med(avr, k, n[k]), med(p50, k, n[k]),
            med(p99, k, n[k]), med(mx, k, n[k]) } }' "$OUT/video.csv" | tee -a "$SUMMARY"
say "# results: $OUT"
