# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# video.sh -- a video stream across a testbed made by testbed.sh, from
# tests/tools/frame_sender (frames at a frame rate, I-frames and P-frames,
# mean rate T; per-frame latency to the ACK of the last byte). Source after
# testbed.sh and tb_up; used by tests/integration/video_among_cubic.sh and
# experiments/bench/tcpav-video.sh.
#
# tb_video_start FRAME_SENDER OUTDIR PORT [frame_sender options...]
#     Starts the sink (frame_sender --listen PORT) in $TB_RCV, writing
#     OUTDIR/sink.json (bytes read per 0.1 s), waits (<= 5 s) until it
#     listens, then the sender in $TB_SND with the options given, writing
#     OUTDIR/video.json (and its one-line summary to OUTDIR/video.txt).
#     Returns at once; sets TB_VIDEO_PIDS (sender, sink). Returns 1 with a
#     message when the sink does not come up.
# tb_video_wait OUTDIR
#     Waits for both; returns 1 with a message if either failed.
# tb_video_avr OUTDIR T_BPS
#     The AVR with the delivery counted at the sink: the bytes it read over
#     the sender's measured window (--omit .. --duration) against
#     min(T, offered), to 3 decimals. The two share CLOCK_MONOTONIC, and the
#     sink's intervals start at its accept, within a ms of the sender's
#     start, so the window is whole 0.1 s intervals (and whole groups of
#     pictures when the window is whole seconds and the group one second:
#     an I-frame more or less would be a few % of it).
# tb_video_summary OUTDIR T_BPS
#     video.json in one line: cc, offered, delivered, AVR at the sink, frame
#     latency p50/p95/p99/max ("never": over that share of the frames was
#     not acknowledged within the drain), its trend, late and unacknowledged
#     frames.

tb_video_start() {
    local fs=${1:-} out=${2:-} port=${3:-} k sink
    if [[ ! -x $fs || -z $out || ! $port =~ ^[0-9]+$ ]]; then
        echo "tb_video_start: usage: tb_video_start FRAME_SENDER OUTDIR PORT [options...] (got '$*')" >&2
        return 1
    fi
    shift 3
    mkdir -p "$out"
    rm -f -- "$out/sink.json" "$out/video.json"
    ip netns exec "$TB_RCV" "$fs" --listen "$port" --json "$out/sink.json" </dev/null &
    sink=$!
    for ((k = 0; k < 100; k++)); do
        ip netns exec "$TB_RCV" ss -ltnpH "sport = :$port" 2>/dev/null | grep -q "pid=$sink," && break
        if ! kill -0 "$sink" 2>/dev/null || ((k == 99)); then
            echo "tb_video_start: the sink on $TB_RCV port $port did not listen within 5 s" >&2
            return 1
        fi
        sleep 0.05
    done
    ip netns exec "$TB_SND" "$fs" "$@" --json "$out/video.json" "$TB_RCV_ADDR" "$port" \
        </dev/null >"$out/video.txt" &
    TB_VIDEO_PIDS=("$!" "$sink")
}

tb_video_wait() {
    local out=${1:-} rc=0
    tb_wait "${TB_VIDEO_PIDS[0]}" || { echo "tb_video_wait: the sender failed ($out)" >&2; rc=1; }
    tb_wait "${TB_VIDEO_PIDS[1]}" || { echo "tb_video_wait: the sink failed ($out)" >&2; rc=1; }
    return "$rc"
}

tb_video_avr() {
    jq -n --slurpfile s "$1/sink.json" --slurpfile v "$1/video.json" --argjson t "$2" '
        $s[0] as $s | $v[0] as $v
        | (($v.window_start_mono_s - $s.start_mono_s) / $s.interval_s | round) as $i0
        | (($v.window_end_mono_s - $s.start_mono_s) / $s.interval_s | round) as $i1
        | ((($s.intervals[$i0:$i1] | add) // 0) * 8 / (($i1 - $i0) * $s.interval_s)) as $bps
        | ([$t, $v.offered_bps] | min) as $want
        | if $want > 0 then $bps / $want else 0 end | . * 1000 | round / 1000'
}

tb_video_summary() {
    local avr
    avr=$(tb_video_avr "$1" "$2") || return 1
    jq -r --arg avr "$avr" '"\(.cc): offered \(.offered_bps / 1e4 | round / 100) Mbit/s, delivered"
        + " \(.delivered_bps / 1e4 | round / 100) (AVR at the sink \($avr)), frame latency p50/p95/p99/max"
        + " \(.latency_ms | [.p50, .p95, .p99, .max] | map(. // "never" | tostring) | join("/")) ms"
        + " (trend \(.latency_trend_ms_per_s) ms/s), \(.frames_late) of \(.frames) frames handed over late,"
        + " \(.frames_unacked) unacknowledged"' "$1/video.json"
}
