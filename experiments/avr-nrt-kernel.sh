# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash source-path=SCRIPTDIR
#
# avr-nrt-kernel.sh -- the kernel engine of experiments/avr-nrt: one run of
# the AVR-NRT study on the namespace test bed, one JSON record with the
# schema of build/bin/wifi-avr's (engine "kernel"). experiments/avr-nrt
# sources it for --engine kernel and calls, once per run, never two at once:
#
#   kernel_run OUTFILE --saturate --flows F --run R
#   kernel_run OUTFILE --flows F --target T_BPS --cc CC --run R
#
# It reads avr-nrt's globals: direction (down|up), duration and warmup (s),
# ap_queue (packets), competitors (reno|cubic|bbr), build (holding
# bin/tcpavctl and tests/frame_sender) and root (the tree). Sourcing it
# defines kernel_run and _avrk_* helpers only; kernel_run runs in a
# subshell of its own, so its traps, options and variables stay there.
#
# The bed: experiments/testbed/ap.sh, a server (NAME-srv, 10.N.1.1), an AP
# router (NAME-ap) and F stations (NAME-staK, 10.N.2.K) on its bridge; NAME
# is avrnrt<PID>, N is AVR_NRT_KERNEL_NET (default 93, used by no test or
# benchmark). The AP's HTB (rate = ceil, the payload capacity EB counted in
# 1514-byte frames: tb_htb_rate_for_eb) with a pfifo of ap_queue packets is
# the bottleneck: on br0 toward the stations for downlink, on ap-srv toward
# the server for uplink (ap.sh's AP_SHAPE); every other device keeps veth's
# noqueue; tso/gso/gro are off everywhere (MTU-sized packets); no delay is
# added (the RTT is the queue's). The HTB is set for AVR_NRT_KERNEL_EB bit/s
# of payload (default 25000000, the study's 802.11g EB; the record's
# parameters.bottleneck_payload_bps); the sweep's EB is what N saturating
# flows measure through it (study.eb_bps).
#
# Flow K (port 5500+K) runs from the server to station K (down) or from
# station K to the server (up), its receiver on the other end. Every sender
# is started at one instant t0 (each waits for it inside its namespace):
#   - a bulk flow: iperf3 -C CC (the competitors' CC), its RTT the client's
#     mean srtt over its intervals (0.5 s) within [warmup, duration];
#   - the target flow (flow 1, unless --saturate): tests/tools/frame_sender,
#     a video of mean rate T (30 fps, a group of 15 pictures, the I-frame 5
#     times a P-frame: wifi-avr's video) handed to the socket on schedule.
#     tcp_av is chosen by a tcpavctl rule (--dport 5501 --dst RECEIVER --cc
#     tcp_av --rate T; the socket's CC and the target tcp_av reported half
#     way through are checked), the other CCs by frame_sender --cc.
#     Offered: the bytes of the frames scheduled in [warmup, duration)
#     (as wifi-avr counts it: a flow that holds the application back does
#     not lower it), over duration - warmup; frame latency: scheduled ->
#     last byte acknowledged, a frame never acknowledged counting as the
#     time to the end of the drain (a lower bound); RTT: ss's srtt every
#     0.25 s. The video's times are its own (frame 0 at its connect,
#     start_offset_ms after t0: tens of ms on a loaded host).
# The tail: every sender (the video's frames too) runs on for 1 s past the
# duration (wifi-avr's kTailS), so that all flows are still there at the
# window's end and a frame made at its last instant can still arrive.
# After the tail the video has AVR_NRT_KERNEL_DRAIN s (default 1) to hand
# over and have acknowledged what is still queued (for its latency only).
# Goodput, as wifi-avr defines it:
#   - a competitor's: the unique payload bytes (avmon: the growth of the
#     sequence space) of its data connection in the 0.1 s intervals whose
#     middle lies in [t0 + warmup, t0 + duration], captured (tcpdump) at
#     the bottleneck's egress, where the receivers get them; the same
#     wall-clock window for all flows, whatever each one's own start
#     (iperf3 starts its clock after its set-up, which a full queue can
#     delay by a loss and a second: per-flow windows would add up to more
#     than EB);
#   - the target's: the bytes of the window's own frames (those scheduled
#     in [warmup, duration)) delivered by the window's end + the tail, over
#     duration - warmup; bytes from before the window (a start-up backlog)
#     do not count, so AVR = goodput / min(T, offered) is at most 1. Its
#     rx_in_window_bps is the competitors' measure (all it got in the
#     window), the old definition.
#   Delivered, for the target: the highest in-order stream offset that had
#   left the bottleneck toward the receiver (the same capture: data
#   segments, SYN for the stream's origin; holes of dropped segments wait
#   for their retransmission) by the video's start + duration + tail, the
#   start taken as its SYN's time at the bottleneck (frame 0 is scheduled
#   when connect returns, a fraction of a ms later: the deadline errs early
#   by that); the window's frames span the stream offsets [first, end)
#   (frame_schedule.h's sizes, checked against frame_sender's log), and
#   goodput = min(max(offset, first), end) - first bytes, wifi-avr's
#   formula. Why the capture, not frame_sender's ACK stamps (each frame's
#   last byte acknowledged): it is the earliest signal (the egress is past
#   the only place a segment is dropped; the ACK comes a return trip
#   later) and it counts bytes, as wifi-avr does (its receiver's reads),
#   where the stamps count whole frames only (one per write) and would
#   leave out the frame in progress at the deadline. The stamps still give
#   the frame latency.
# tcp_av is loaded if it is not (and then unloaded at the end).
#
# Whatever kernel_run creates (the namespaces and every process in them,
# the rule, the load, its temporary folder) is gone when it returns: on
# success, on failure, on INT/TERM/HUP sent to it, and when the shell that
# sourced this file ($$, avr-nrt) is gone (polled every 0.2 s while the
# flows run). Ctrl-C: bash starts avr-nrt's runs in the background with
# SIGINT ignored, which no trap can undo, but iperf3 ends on it, and a
# sender that ends early fails the run at once. A bed left by a run that
# was killed (its PID gone) is removed by the next. On failure OUTFILE is
# not written and the last line on stderr says why; status 1.
#
# Environment: AVR_NRT_KERNEL_EB (payload capacity, bit/s), AVR_NRT_KERNEL_NET
# (second address octet), AVR_NRT_KERNEL_DRAIN (s), AVR_NRT_KERNEL_KEEP (a
# folder: each run's raw files are kept there, in OUTFILE's name + .raw).

_AVRK_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
_AVRK_PORT0=5500
_AVRK_TAIL=1 # s: wifi-avr's kTailS

# _avrk_fail MESSAGE: the reason, one line, and out (the EXIT trap cleans up)
_avrk_fail() {
    echo "avr-nrt-kernel: $*" >&2
    exit 1
}

# _avrk_cleanup: the EXIT trap: everything of this run goes
_avrk_cleanup() {
    local rc=$?
    trap '' INT TERM HUP
    [[ -n ${_avrk_name:-} ]] && ap_down "$_avrk_name"
    if [[ -n ${_avrk_rule:-} ]]; then
        # ours still (an unload and load by someone else would reuse ids)
        if "$_avrk_ctl" rule list --json 2>/dev/null | jq -e --argjson id "$_avrk_rule" --arg dst "$_avrk_rule_dst" \
            'any(.[]; .id == $id and ((.dst // "") | startswith($dst + "/")))' >/dev/null 2>&1; then
            "$_avrk_ctl" rule del "$_avrk_rule" >/dev/null 2>&1 || true
        fi
    fi
    if [[ -n ${_avrk_loaded:-} ]]; then
        "$_avrk_ctl" unload >/dev/null 2>&1 || true
    fi
    if [[ -n ${_avrk_tmp:-} && -d $_avrk_tmp ]]; then
        if [[ -n ${AVR_NRT_KERNEL_KEEP:-} ]] && mkdir -p "$AVR_NRT_KERNEL_KEEP" 2>/dev/null; then
            rm -rf -- "$AVR_NRT_KERNEL_KEEP/${_avrk_out##*/}.raw"
            mv -- "$_avrk_tmp" "$AVR_NRT_KERNEL_KEEP/${_avrk_out##*/}.raw" 2>/dev/null || rm -rf -- "$_avrk_tmp"
        else
            rm -rf -- "$_avrk_tmp"
        fi
    fi
    ((rc == 0)) || rm -f -- "${_avrk_out:-/nonexistent}"
    exit "$rc"
}

# _avrk_stale: remove the beds of runs that were killed (their PID is gone)
_avrk_stale() {
    local ns pid
    while read -r ns _; do
        [[ $ns =~ ^avrnrt([0-9]+)-(srv|ap|sta[1-9])$ ]] || continue
        pid=${BASH_REMATCH[1]}
        kill -0 "$pid" 2>/dev/null && continue
        tb_ns_remove "$ns"
    done < <(ip netns list 2>/dev/null)
}

# _avrk_tcpav_loaded: registered, maps pinned, policy attached
_avrk_tcpav_loaded() {
    "$_avrk_ctl" status --json 2>/dev/null | jq -e '.loaded and .registered and .policy_attached' >/dev/null 2>&1
}

# _avrk_load: load tcp_av unless it is loaded (then _avrk_loaded=1). After
# an unload tcp_av stays registered until its last socket is gone, and load
# refuses meanwhile: retry for up to 10 s.
_avrk_load() {
    local i err
    _avrk_tcpav_loaded && return 0
    for ((i = 0; i < 20; i++)); do
        if err=$("$_avrk_ctl" load 2>&1 >/dev/null); then
            _avrk_loaded=1
            return 0
        fi
        _avrk_tcpav_loaded && return 0
        sleep 0.5
    done
    _avrk_fail "tcpavctl load failed: ${err##*$'\n'}"
}

# _avrk_at NS T_US LAUNCH_FILE CMD...: CMD in network namespace NS (nsenter:
# /sys/fs/bpf's pins stay visible), in the background, started at T_US
# (wall clock, microseconds); the start written to LAUNCH_FILE ("-": not);
# $! is CMD's PID
# shellcheck disable=SC2016 # bash -c's script
_avrk_at() {
    local ns=$1
    shift
    nsenter --net="/run/netns/$ns" bash -c 'd=$(($1 - ${EPOCHREALTIME/./}))
        if ((d > 0)); then printf -v s "%d.%06d" $((d / 1000000)) $((d % 1000000)); sleep "$s"; fi
        [[ $2 == - ]] || echo "$EPOCHREALTIME" >"$2"
        shift 2
        exec "$@"' _ "$@" </dev/null &
}

# _avrk_us T_US S: T_US plus S seconds, in microseconds
_avrk_us() {
    awk -v t="$1" -v s="$2" 'BEGIN { printf "%.0f\n", t + s * 1e6 }'
}

# _avrk_num VALUE: bits/s, with iperf3's k/M/G (powers of 1000) allowed
_avrk_num() {
    [[ $1 =~ ^([0-9]+(\.[0-9]+)?)([kKmMgG]?)$ ]] || return 1
    awk -v v="${BASH_REMATCH[1]}" -v u="${BASH_REMATCH[3]}" 'BEGIN {
        m = 1; if (u ~ /[kK]/) m = 1e3; else if (u ~ /[mM]/) m = 1e6; else if (u ~ /[gG]/) m = 1e9
        printf "%.0f\n", v * m }'
}

# _avrk_iperf_error K: why flow K's iperf3 client failed, one line
_avrk_iperf_error() {
    local e
    e=$(jq -r '.error // empty' "$_avrk_tmp/client-$1.json" 2>/dev/null)
    [[ -n $e ]] || e=$(tail -n 1 "$_avrk_tmp/client-$1.err" 2>/dev/null)
    echo "iperf3: ${e:-failed}"
}

# _avrk_wait_senders T0_US SECS VIDEO_S FIRST_BULK CLIENT_PID...:
# poll (0.2 s) until every sender has ended (the video's is
# TB_VIDEO_PIDS[0], its frames VIDEO_S long: duration + tail); fail at
# once when one ends early, when the shell that sourced this file ($$,
# avr-nrt) is gone, or 15 s past the expected end (the drain's included)
_avrk_wait_senders() {
    local t0=$1 secs=$2 dur=$3 k=$4 now pid live i limit=$(($2 + _avrk_drain + 15))
    local client_end=$((t0 + (secs * 10 - 5) * 100000)) video_end deadline=$((t0 + limit * 1000000))
    video_end=$(_avrk_us "$t0" "$(awk -v d="$dur" 'BEGIN { print d - 0.2 }')")
    shift 4
    local -a pids=("$@")
    while :; do
        now=${EPOCHREALTIME/./}
        live=0
        if ((${#TB_VIDEO_PIDS[@]})) && kill -0 "${TB_VIDEO_PIDS[0]}" 2>/dev/null; then
            live=1
        elif ((${#TB_VIDEO_PIDS[@]} && now < video_end)); then
            _avrk_fail "flow 1: frame_sender ended early: $(tail -n 1 "$_avrk_tmp/video.err" 2>/dev/null)"
        fi
        for ((i = 0; i < ${#pids[@]}; i++)); do
            pid=${pids[i]}
            if kill -0 "$pid" 2>/dev/null; then
                live=1
            elif ((now < client_end)); then
                wait "$pid" 2>/dev/null
                _avrk_fail "flow $((k + i)): ended early: $(_avrk_iperf_error $((k + i)))"
            fi
        done
        ((live)) || return 0
        kill -0 $$ 2>/dev/null || _avrk_fail "the shell that started the run ($$) is gone: run abandoned"
        ((now < deadline)) || _avrk_fail "the senders did not end within $limit s"
        sleep 0.2
    done
}

# _avrk_capture_stop: end the capture (tcpdump writes its counts on
# SIGINT); fails if it missed packets
_avrk_capture_stop() {
    local lost
    kill -INT "$_avrk_tcpdump" 2>/dev/null
    wait "$_avrk_tcpdump" 2>/dev/null
    lost=$(awk '/packets captured/ { c = $1 } /received by filter/ { r = $1 } /dropped by kernel/ { d = $1 }
        END { if (c == "") print "all"; else print (r - c) + d }' "$_avrk_tmp/rcv.pcap.err")
    [[ $lost == 0 ]] || _avrk_fail "the capture missed $lost packets ($(head -n 1 "$_avrk_tmp/rcv.pcap.err"))"
}

# _avrk_goodput AVMON T0_S FLOWS: per flow from the capture, "K BYTES TOTAL"
# (unique payload bytes in the window, in the whole capture) of the
# connection to port 5500+K that carried the most (not iperf3's control
# connection), after one line "span S" (the window's length: the intervals
# whose middle lies in [T0 + warmup, T0 + duration])
_avrk_goodput() {
    "$1" -r "$_avrk_tmp/rcv.pcap" --interval 0.1 --format csv >"$_avrk_tmp/rcv.csv" 2>"$_avrk_tmp/avmon.err" ||
        _avrk_fail "avmon -r failed: $(head -n 1 "$_avrk_tmp/avmon.err")"
    awk -F, -v t0="$2" -v n="$3" -v p0="$_AVRK_PORT0" -v w="$warmup" -v d="$duration" '
        NR == 1 { next }
        { mid = ($1 + $2) / 2 - t0; inw = mid >= w && mid < d }
        $3 == "fairness" { if (inw) span += $2 - $1; next }
        $3 == "flow" {
            pa = $5; sub(/.*:/, "", pa); pb = $6; sub(/.*:/, "", pb)
            k = pb - p0
            if (k < 1 || k > n) { k = pa - p0; if (k < 1 || k > n) next }
            key = $5 "," $6
            b = ($8 + 0 > $9 + 0 ? $8 : $9) * ($2 - $1) / 8
            tot[key] += b; kk[key] = k
            if (inw) win[key] += b
        }
        END {
            for (key in tot) { k = kk[key]; if (!(k in best) || tot[key] > tot[best[k]]) best[k] = key }
            printf "span %.6f\n", span
            for (k = 1; k <= n; k++) if (k in best) printf "%d %.0f %.0f\n", k, win[best[k]], tot[best[k]]
        }' "$_avrk_tmp/rcv.csv" >"$_avrk_tmp/goodput.txt"
}

# _avrk_delivered AFTER_S: the target's delivery from the capture (see the
# header), one line "SYN_TIME OFFSET_AT_DEADLINE OFFSET_AT_END": the SYN's
# time at the bottleneck (the last one, s since the epoch), and the highest
# in-order stream offset (bytes from the first data byte) that had left it
# AFTER_S after that SYN, and by the capture's end
_avrk_delivered() {
    tcpdump -r "$_avrk_tmp/rcv.pcap" -n -tt -S "tcp dst port $((_AVRK_PORT0 + 1))" 2>"$_avrk_tmp/delivered.err" |
        awk -v after="$1" '
        # the segments past holes join the in-order stream as they fill
        function absorb(p, again) {
            do {
                again = 0
                for (p in pend) if (p + 0 <= nxt) {
                    if (pend[p] > nxt) nxt = pend[p]
                    delete pend[p]; again = 1; break
                }
            } while (again)
        }
        { t = $1 + 0 }
        / Flags \[S[EW]*\], seq [0-9]+,/ {
            match($0, / seq [0-9]+,/); isn = substr($0, RSTART + 5, RLENGTH - 6) + 0
            syn = t; nxt = 0; at = 0; split("", pend); next
        }
        syn == "" { next }
        match($0, / seq [0-9]+:[0-9]+,/) {
            split(substr($0, RSTART + 5, RLENGTH - 6), r, ":")
            s = (r[1] - isn - 1 + 4294967296) % 4294967296; e = (r[2] - isn - 1 + 4294967296) % 4294967296
            if (e < s) e += 4294967296
            if (s <= nxt) { if (e > nxt) { nxt = e; absorb() } }
            else if (!(s in pend) || pend[s] < e) pend[s] = e
            if (t <= syn + after) at = nxt
        }
        END { if (syn == "") exit 1; printf "%.6f %.0f %.0f\n", syn, at, nxt }' >"$_avrk_tmp/delivered.txt" ||
        _avrk_fail "flow 1: no SYN of the video in the capture ($(head -n 1 "$_avrk_tmp/delivered.err"))"
}

# _avrk_bulk K CC CLIENT OFFSET_S GOODPUT RX_BYTES: flow K's object; its
# iperf3 client's JSON gives the CC and the RTT (its clock started at about
# OFFSET_S after t0)
_avrk_bulk() {
    local k=$1 cc=$2 cf=$3
    [[ -s $cf ]] || _avrk_fail "flow $k: the iperf3 client wrote nothing"
    jq -n --slurpfile c "$cf" --argjson k "$k" --arg cc "$cc" --arg src "$_avrk_src" \
        --argjson port $((_AVRK_PORT0 + k)) --argjson off "$4" --argjson g "$5" --argjson rx "$6" \
        --argjson w0 "$warmup" --argjson d0 "$duration" '
        def fail(m): error("flow \($k): \(m)");
        $c[0] as $c | ($w0 - $off) as $w | ($d0 - $off) as $d
        | if $c | has("error") then fail("iperf3: \($c.error)") else . end
        | ($c.end.sender_tcp_congestion // "?") as $got
        | if $got != $cc then fail("the sender ran \($got), not \($cc)") else . end
        | [$c.intervals[]?.streams[0] | select(.start >= $w - 0.05 and .end <= $d + 0.05) | .rtt // empty] as $r
        | { station: $k, role: "competitor", cc: $cc, src: $src, port: $port, sender_cc: $got,
            goodput_bps: $g, rx_bytes: $rx,
            rtt_ms: (if ($r | length) > 0 then $r | add / length / 1000 * 1000 | round / 1000 else null end),
            start_offset_ms: ($off * 1e6 | round / 1000) }'
}

# _avrk_video T CC RTT_FILE OFFSET_S RX_IN_WINDOW_BPS RX_BYTES: the target
# flow's object: frame_sender's video.json (with --frames), ss's samples in
# RTT_FILE, _avrk_delivered's line; it started OFFSET_S after t0
_avrk_video() {
    local t=$1 cc=$2 rf=$3 d=$_avrk_tmp/video rtt del
    [[ -s $d/video.json ]] || _avrk_fail "flow 1: frame_sender wrote no report ($(tail -n 1 "$_avrk_tmp/video.err" 2>/dev/null))"
    # srtt (ms) of the data connection, one sample per line of ss -ti
    rtt=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^rtt:/) { split(substr($i, 5), a, "/"); s += a[1]; n++ } }
        END { if (n) printf "%.3f", s / n; else print "null" }' "$rf" 2>/dev/null) || rtt=null
    del=$(awk '{ printf "[%s,%s]", $2, $3 }' "$_avrk_tmp/delivered.txt")
    jq -n --slurpfile v "$d/video.json" --argjson t "$t" --arg cc "$cc" --arg src "$_avrk_src" \
        --argjson port $((_AVRK_PORT0 + 1)) --argjson w "$warmup" --argjson d "$duration" \
        --argjson tail "$_AVRK_TAIL" --argjson drain "$_avrk_drain" --argjson rtt "$rtt" --argjson off "$4" \
        --argjson rxw "$5" --argjson rx "$6" --argjson del "$del" '
        def fail(m): error("flow 1: \(m)");
        $v[0] as $v
        | if $v.cc != $cc then fail("the video ran \($v.cc), not \($cc)") else . end
        # the log starts at the first frame scheduled at or after warmup;
        # the window: [warmup, duration), 0.5 ms for the log rounding to
        # the us (the frame times fall on the edges: a closed window would
        # take one frame more than the length holds)
        | ($v.frame_log // []) as $log
        | if ($log | length) == 0 then fail("frame_sender logged no frame") else . end
        | [$log[] | select(.sched_ms >= $w * 1000 - 0.5 and .sched_ms < $d * 1000 - 0.5)] as $f
        | if ($f | length) == 0 then fail("no frame in the window") else . end
        # stream offsets from frame_sender (end_off: just past a frame):
        # the window holds the bytes [first, stop), the stream [0, all)
        | if any($log[]; .end_off == null) then fail("frame_sender logged no stream offsets") else . end
        | ($f[0].end_off - $f[0].bytes) as $first | $f[-1].end_off as $stop | $log[-1].end_off as $all
        | if $del[1] > $all then fail("the capture has \($del[1]) bytes of a \($all)-byte stream") else . end
        | if $v.frames_acked_all == $log[-1].k + 1 and $del[1] != $all then
            fail("all \($all) bytes were acknowledged, the capture has \($del[1]) in order") else . end
        | (($stop - $first) * 8 / ($d - $w)) as $offered
        | ((([[$del[0], $first] | max, $stop] | min) - $first) * 8 / ($d - $w) | round) as $g
        | ($f | map(if .acked_ms == null then ($d + $tail + $drain) * 1000 - .sched_ms else .acked_ms - .sched_ms end)
            | sort) as $lat
        | def pct(p): if ($lat | length) == 0 then null
            else $lat[(p * ($lat | length) | ceil | if . > 0 then . - 1 else 0 end)] * 100 | round / 100 end;
        ([$t, $offered] | min) as $want
        | { station: 1, role: "target", cc: $cc, src: $src, port: $port, sender_cc: $v.cc,
            goodput_bps: $g, rx_bytes: $rx, rtt_ms: $rtt,
            target_bps: $t, offered_bps: ($offered | round), rx_in_window_bps: $rxw,
            # of the window'"'"'s frames, those wholly handed to the socket by its end
            written_bps: ($f | map(select(.written_ms != null and .written_ms <= $d * 1000) | .bytes)
                | (add // 0) * 8 / ($d - $w) | round),
            avr: (if $want > 0 then $g / $want * 10000 | round / 10000 else null end),
            frames: ($f | length), frames_incomplete: ($f | map(select(.acked_ms == null)) | length),
            # handed over later than a frame interval after its time (frame_sender'"'"'s count)
            frames_late: ($f | map(select(.written_ms == null or .written_ms - .sched_ms > 1000 / $v.fps)) | length),
            frame_latency_p50_ms: pct(0.50), frame_latency_p99_ms: pct(0.99),
            start_offset_ms: ($off * 1e6 | round / 1000) }'
}

# kernel_run OUTFILE ARGS... -- see the header
kernel_run() (
    set +e -u -o pipefail
    _avrk_out=${1:-} _avrk_name='' _avrk_rule='' _avrk_rule_dst='' _avrk_loaded='' _avrk_tmp='' _avrk_tcpdump=''
    trap _avrk_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    trap 'exit 129' HUP
    [[ -n $_avrk_out ]] || _avrk_fail "usage: kernel_run OUTFILE [--saturate] --flows F [--target T --cc CC] --run R"
    shift

    local top=${root:-$(cd "$_AVRK_HERE/.." && pwd)}
    local dir=${direction:-down} dur=${duration:-20} warm=${warmup:-2} queue=${ap_queue:-100}
    local comp=${competitors:-reno} bld=${build:-$top/build}
    local saturate=0 flows='' target='' cc=tcp_av run=1
    while (($#)); do
        case $1 in
        --saturate) saturate=1 ;;
        --flows) flows=${2:-}; shift ;;
        --target) target=${2:-}; shift ;;
        --cc) cc=${2:-}; shift ;;
        --run) run=${2:-}; shift ;;
        *) _avrk_fail "unknown argument '$1'" ;;
        esac
        shift
    done
    # avr-nrt's globals, under the names the helpers read
    [[ $dir == down || $dir == up ]] || _avrk_fail "direction must be down or up, got '$dir'"
    [[ $flows =~ ^[1-9]$ ]] || _avrk_fail "--flows must be 1..9 (one station per flow), got '$flows'"
    [[ $run =~ ^[0-9]+$ ]] || _avrk_fail "--run must be a whole number, got '$run'"
    [[ $dur =~ ^[0-9]+(\.[0-9]+)?$ && $warm =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
        _avrk_fail "duration and warmup must be numbers of seconds (got '$dur', '$warm')"
    # as JSON numbers (no leading zeros)
    dur=$(awk -v v="$dur" 'BEGIN { print v + 0 }') warm=$(awk -v v="$warm" 'BEGIN { print v + 0 }')
    run=$((10#$run))
    awk -v w="$warm" -v d="$dur" 'BEGIN { exit !(w < d && d > 0) }' || _avrk_fail "warmup ($warm s) must be shorter than duration ($dur s)"
    [[ $queue =~ ^[1-9][0-9]*$ ]] || _avrk_fail "ap_queue must be a positive packet count, got '$queue'"
    case $comp in reno | cubic | bbr) ;; *) _avrk_fail "competitors: '$comp' is not reno, cubic or bbr" ;; esac
    if ((saturate)); then
        cc=$comp target=0
    else
        case $cc in tcp_av | reno | cubic | bbr) ;; *) _avrk_fail "--cc: '$cc' is not tcp_av, reno, cubic or bbr" ;; esac
        local t
        if ! t=$(_avrk_num "$target") || ((t == 0)); then
            _avrk_fail "--target must be a rate in bit/s, got '$target'"
        fi
        target=$t
    fi
    direction=$dir duration=$dur warmup=$warm
    local eb=${AVR_NRT_KERNEL_EB:-25000000} net=${AVR_NRT_KERNEL_NET:-93}
    _avrk_drain=${AVR_NRT_KERNEL_DRAIN:-1}
    [[ $eb =~ ^[1-9][0-9]*$ ]] || _avrk_fail "AVR_NRT_KERNEL_EB must be bit/s, got '$eb'"
    [[ $_avrk_drain =~ ^[0-9]+$ ]] || _avrk_fail "AVR_NRT_KERNEL_DRAIN must be whole seconds, got '$_avrk_drain'"
    _avrk_ctl=$bld/bin/tcpavctl
    local fs=$bld/tests/frame_sender avmon=$bld/bin/avmon tool
    for tool in iperf3 jq ip tc ss ethtool nsenter tcpdump; do
        command -v "$tool" >/dev/null || _avrk_fail "$tool is not installed"
    done
    [[ -x $_avrk_ctl ]] || _avrk_fail "$_avrk_ctl is missing (make)"
    [[ -x $avmon ]] || _avrk_fail "$avmon is missing (make)"
    ((saturate)) || [[ -x $fs ]] || _avrk_fail "$fs is missing (make)"
    [[ $(id -u) == 0 ]] || _avrk_fail "needs root (network namespaces, BPF)"

    # shellcheck source=testbed/testbed.sh
    . "$top/experiments/testbed/testbed.sh" || _avrk_fail "cannot read $top/experiments/testbed/testbed.sh"
    # shellcheck source=testbed/ap.sh
    . "$top/experiments/testbed/ap.sh" || _avrk_fail "cannot read ap.sh"
    # shellcheck source=testbed/video.sh
    . "$top/experiments/testbed/video.sh" || _avrk_fail "cannot read video.sh"

    _avrk_tmp=$(mktemp -d /tmp/avr-nrt-kernel.XXXXXX) || _avrk_fail "mktemp failed"
    _avrk_stale
    local rate htb_dev
    rate=$(tb_htb_rate_for_eb "$eb") || _avrk_fail "bad EB '$eb'"
    _avrk_name=avrnrt$BASHPID
    if ! AP_STATIONS=$flows AP_SHAPE=$dir TB_NET=$net ap_up "$_avrk_name" "$rate" "$queue" 2>"$_avrk_tmp/ap_up.err"; then
        _avrk_fail "the test bed did not come up: $(tail -n 1 "$_avrk_tmp/ap_up.err")"
    fi
    htb_dev=$AP_BOTTLENECK_DEV

    # flow K: sender and receiver namespaces, the receiver's address
    local -a snd=() rcv=() addr=()
    local k sta sta_addr
    for ((k = 1; k <= flows; k++)); do
        sta=AP_STA$k sta_addr=AP_STA${k}_ADDR
        if [[ $dir == down ]]; then
            snd[k]=$AP_SRV rcv[k]=${!sta} addr[k]=${!sta_addr}
        else
            snd[k]=${!sta} rcv[k]=$AP_SRV addr[k]=$AP_SRV_ADDR
        fi
    done
    _avrk_src=$([[ $dir == down ]] && echo wired || echo station)

    local video=$((!saturate)) first_bulk=1 rule_txt
    ((video)) && first_bulk=2
    if ((video)) && [[ $cc == tcp_av ]]; then
        _avrk_load
        _avrk_rule_dst=${addr[1]}
        rule_txt=$("$_avrk_ctl" rule add --dport $((_AVRK_PORT0 + 1)) --dst "${addr[1]}" --cc tcp_av --rate "$target" 2>&1) ||
            _avrk_fail "tcpavctl rule add failed: ${rule_txt##*$'\n'}"
        [[ $rule_txt =~ ^rule\ ([0-9]+): ]] || _avrk_fail "tcpavctl rule add said '$rule_txt'"
        _avrk_rule=${BASH_REMATCH[1]}
    fi

    # the receivers, the capture, then every sender at once; every sender
    # runs on for the tail (iperf3 -t: whole seconds, rounded up; the video
    # makes frames until duration + tail, then drains)
    local secs vsecs
    secs=$(awk -v d="$dur" -v x="$_AVRK_TAIL" 'BEGIN { s = d + x; printf "%d\n", (s == int(s)) ? s : int(s) + 1 }')
    vsecs=$(awk -v d="$dur" -v x="$_AVRK_TAIL" 'BEGIN { print d + x }')
    local -a client_pid=()
    TB_VIDEO_PIDS=()
    for ((k = first_bulk; k <= flows; k++)); do
        tb_iperf_servers "${rcv[k]}" $((_AVRK_PORT0 + k)) 2>"$_avrk_tmp/server-$k.err" ||
            _avrk_fail "flow $k: $(tail -n 1 "$_avrk_tmp/server-$k.err")"
    done
    # every sender starts at one instant, t0 (wall clock, us), so that the
    # flows' windows [warmup, duration] are the same stretch of time
    local t0 fsport=$((_AVRK_PORT0 + 1)) sink
    local -a vargs=()
    if ((video)); then
        [[ $cc == tcp_av ]] || vargs=(--cc "$cc")
        mkdir -p "$_avrk_tmp/video"
        ip netns exec "${rcv[1]}" "$fs" --listen "$fsport" </dev/null >/dev/null 2>>"$_avrk_tmp/video.err" &
        sink=$!
        _tb_wait_listen "${rcv[1]}" "$fsport" "$sink" || _avrk_fail "flow 1: frame_sender's sink did not listen within 5 s"
    fi
    # the data segments as they leave the bottleneck toward the receivers
    tb_tcpdump_start "$AP_AP" /dev/null "$_avrk_tmp/rcv.pcap.err" -i "$htb_dev" -n -s 96 -B 16384 --immediate-mode \
        -Z root -w "$_avrk_tmp/rcv.pcap" "tcp dst portrange $((_AVRK_PORT0 + 1))-$((_AVRK_PORT0 + flows))" \
        2>"$_avrk_tmp/tcpdump.err" || _avrk_fail "$(tail -n 1 "$_avrk_tmp/tcpdump.err")"
    _avrk_tcpdump=$TB_LAST_TCPDUMP_PID
    t0=$((${EPOCHREALTIME/./} + 300000 + 30000 * flows))
    if ((video)); then
        _avrk_at "${snd[1]}" "$t0" "$_avrk_tmp/launch-1" "$fs" --rate "$target" --fps 30 --gop 15 --i-ratio 5 \
            --duration "$vsecs" --omit "$warm" --drain "$_avrk_drain" --frames ${vargs[@]+"${vargs[@]}"} \
            --json "$_avrk_tmp/video/video.json" "${addr[1]}" "$fsport" >"$_avrk_tmp/video/video.txt" 2>>"$_avrk_tmp/video.err"
        TB_VIDEO_PIDS=("$!" "$sink")
    fi
    for ((k = first_bulk; k <= flows; k++)); do
        _avrk_at "${snd[k]}" "$t0" "$_avrk_tmp/launch-$k" iperf3 -c "${addr[k]}" -p $((_AVRK_PORT0 + k)) -t "$secs" \
            -J -C "$comp" -i 0.5 >"$_avrk_tmp/client-$k.json" 2>"$_avrk_tmp/client-$k.err"
        client_pid[k]=$!
    done
    if ((video)); then
        # the video's srtt over [warmup, duration] (ss every 0.25 s), and
        # with a rule what tcp_av made of it half way through; both in the
        # sender's namespace (ap_down ends them)
        # shellcheck disable=SC2016 # bash -c's script
        _avrk_at "${snd[1]}" "$(_avrk_us "$t0" "$warm")" - bash -c \
            'while ((${EPOCHREALTIME/./} < $1)); do ss -tinH "dport = :$2"; sleep 0.25; done' \
            _ "$(_avrk_us "$t0" "$dur")" "$fsport" >"$_avrk_tmp/rtt.txt" 2>/dev/null
        if [[ $cc == tcp_av ]]; then
            _avrk_at "${snd[1]}" "$(_avrk_us "$t0" "$(awk -v d="$dur" 'BEGIN { print d / 2 }')")" - \
                "$_avrk_ctl" flows --json >"$_avrk_tmp/flows.json" 2>/dev/null
        fi
    fi

    # the end: the senders, then the capture. Polled, not waited for: a
    # sender that ends early (iperf3 ends on SIGINT, which this subshell,
    # started in the background, cannot trap) or avr-nrt's end ($$) ends
    # the run at once
    _avrk_wait_senders "$t0" "$secs" "$vsecs" "$first_bulk" "${client_pid[@]}"
    local why=''
    if ((video)); then
        tb_video_wait "$_avrk_tmp/video" 2>>"$_avrk_tmp/video.err" ||
            why="flow 1: $(grep -v '^tb_video_wait' "$_avrk_tmp/video.err" | tail -n 1)"
    fi
    for ((k = first_bulk; k <= flows; k++)); do
        wait "${client_pid[k]}" || why=${why:-"flow $k: $(_avrk_iperf_error "$k")"}
    done
    [[ -z $why ]] || _avrk_fail "$why"
    _avrk_capture_stop

    # each sender's start after t0 (s), each flow's goodput and bytes
    local -a off=() gp=() rx=()
    local span line
    for ((k = 1; k <= flows; k++)); do
        [[ -s $_avrk_tmp/launch-$k ]] || _avrk_fail "flow $k: its sender never started"
        off[k]=$(awk -v l="$(cat "$_avrk_tmp/launch-$k")" -v t="$t0" 'BEGIN { printf "%.6f\n", l - t / 1e6 }')
    done
    _avrk_goodput "$avmon" "$(awk -v t="$t0" 'BEGIN { printf "%.6f", t / 1e6 }')" "$flows"
    span=$(awk '$1 == "span" { print $2 }' "$_avrk_tmp/goodput.txt")
    awk -v s="${span:-0}" -v w="$warm" -v d="$dur" 'BEGIN { exit !(s >= d - w - 0.15) }' ||
        _avrk_fail "the capture covers ${span:-0} s of the window [$warm, $dur] s"
    while read -r k line; do
        [[ $k == span ]] && continue
        read -r b total <<<"$line"
        gp[k]=$(awk -v b="$b" -v s="$span" 'BEGIN { printf "%.0f\n", 8 * b / s }') rx[k]=$total
    done <"$_avrk_tmp/goodput.txt"
    for ((k = 1; k <= flows; k++)); do
        [[ -n ${gp[k]:-} ]] || _avrk_fail "flow $k: no data in the capture"
    done
    # the target's delivery by its start + duration + tail
    ((video)) && _avrk_delivered "$vsecs"

    # the record
    local -a objs=()
    if ((video)); then
        _avrk_video "$target" "$cc" "$_avrk_tmp/rtt.txt" "${off[1]}" "${gp[1]}" "${rx[1]}" >"$_avrk_tmp/flow-1.obj" 2>"$_avrk_tmp/flow-1.err" ||
            _avrk_fail "$(sed 's/^jq: error (at [^)]*): //' "$_avrk_tmp/flow-1.err" | tail -n 1)"
        if [[ $cc == tcp_av ]]; then
            # what tcp_av said of the video half way through
            jq --arg dst "${addr[1]}:$((_AVRK_PORT0 + 1))" --argjson t "$target" '
                ([inputs[]? | select(.dst == $dst)] | max_by(.rounds // 0)) as $f
                | .tcpav = (if $f then $f | {target_bps, avr, flags, srtt_us} else null end)
                | if .tcpav == null then error("tcpavctl flows did not list the video")
                  elif (.tcpav.target_bps - $t | fabs) > 8 + $t / 10000 then
                    error("tcp_av had the target \(.tcpav.target_bps), not \($t)")
                  else . end' "$_avrk_tmp/flow-1.obj" "$_avrk_tmp/flows.json" \
                >"$_avrk_tmp/flow-1.obj2" 2>"$_avrk_tmp/flow-1.err" ||
                _avrk_fail "flow 1: $(sed 's/^jq: error (at [^)]*): //' "$_avrk_tmp/flow-1.err" | tail -n 1)"
            mv "$_avrk_tmp/flow-1.obj2" "$_avrk_tmp/flow-1.obj"
        fi
        objs+=("$_avrk_tmp/flow-1.obj")
    fi
    for ((k = first_bulk; k <= flows; k++)); do
        _avrk_bulk "$k" "$comp" "$_avrk_tmp/client-$k.json" "${off[k]}" "${gp[k]}" "${rx[k]}" \
            >"$_avrk_tmp/flow-$k.obj" 2>"$_avrk_tmp/flow-$k.err" ||
            _avrk_fail "$(sed 's/^jq: error (at [^)]*): //' "$_avrk_tmp/flow-$k.err" | tail -n 1)"
        objs+=("$_avrk_tmp/flow-$k.obj")
    done

    # the bed as built, and the bottleneck's counters
    local qdiscs stats ns
    qdiscs=$(for ns in "$AP_SRV" "$AP_AP" "$AP_STA1"; do
        ip netns exec "$ns" tc -j qdisc show 2>/dev/null | jq -c --arg ns "${ns#"$_avrk_name"-}" \
            '.[] | "\($ns) \(.dev): \(.kind)\(if .root then " root" else "" end)\(if .options.limit then " limit \(.options.limit)" else "" end)"'
    done | jq -sc 'unique')
    stats=$(ip netns exec "$AP_AP" tc -j -s qdisc show dev "$htb_dev" 2>/dev/null | jq -c '
        (map(select(.kind == "pfifo")) | first) as $q
        | if $q then {sent_bytes: $q.bytes, sent_packets: $q.packets, drops: $q.drops, overlimits: (map(select(.kind == "htb")) | first | .overlimits)} else null end') ||
        stats=null
    local sysctl_snd
    # shellcheck disable=SC2016 # sh -c's script
    sysctl_snd=$(ip netns exec "${snd[1]}" sh -c 'echo "$(sysctl -n net.ipv4.tcp_congestion_control)|$(sysctl -n net.ipv4.tcp_ecn)|$(sysctl -n net.ipv4.tcp_wmem | tr -s "\t " " ")|$(sysctl -n net.ipv4.tcp_rmem | tr -s "\t " " ")"')
    local target_via video_json=null
    if ((saturate)); then
        target_via=null
    elif [[ $cc == tcp_av ]]; then
        target_via="tcpavctl rule add --dport $((_AVRK_PORT0 + 1)) --dst ${addr[1]} --cc tcp_av --rate $target"
    else
        target_via="frame_sender --cc $cc"
    fi
    ((video)) && video_json=$(jq -c '{i_frame_bytes, p_frame_bytes}' "$_avrk_tmp/video/video.json")

    jq -nc --slurpfile flows <(cat "${objs[@]}") \
        --arg version "$("$_avrk_ctl" --version 2>/dev/null | awk '{ print $2 }')" \
        --arg kernel "$(uname -r)" --arg iperf3 "$(iperf3 --version 2>/dev/null | awk 'NR == 1 { print $2 }')" \
        --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --arg dir "$dir" --argjson n "$flows" --argjson t "$target" \
        --arg cc "$cc" --arg comp "$comp" --argjson sat "$( ((saturate)) && echo true || echo false)" \
        --argjson dur "$dur" --argjson warm "$warm" --argjson drain "$( ((video)) && echo "$_avrk_drain" || echo 0)" \
        --argjson run "$run" --argjson queue "$queue" --arg rate "$rate" --argjson eb "$eb" --arg dev "$htb_dev" \
        --arg name "$_avrk_name" --argjson net "$net" --argjson qdiscs "$qdiscs" --argjson stats "$stats" \
        --arg sysctl "$sysctl_snd" --arg via "$target_via" --argjson secs "$secs" --argjson video "$video_json" \
        --argjson port0 "$_AVRK_PORT0" --argjson tail "$_AVRK_TAIL" \
        --arg goodput_how "competitors: unique payload bytes (avmon) captured at the bottleneck's egress toward the receivers, in the 0.1 s intervals whose middle lies in [t0 + warmup, t0 + duration], one wall-clock window for all flows; the target: the bytes of its frames scheduled in [warmup, duration) (its own clock) that had left the bottleneck in order (same capture) by its start + duration + tail_s, over duration - warmup (wifi-avr's); its rx_in_window_bps: the competitors' measure" \
        --arg rtt_how "the sender's srtt over [warmup, duration]: iperf3 client intervals of 0.5 s; the video: ss -ti every 0.25 s" '
        ($sysctl | split("|")) as $sys
        | ($flows | map(select(.role == "competitor") | .goodput_bps)) as $c
        | {engine: "kernel", tool: "avr-nrt-kernel", tcpav_version: $version, kernel: $kernel,
           iperf3_version: $iperf3, date: $date,
           parameters: {direction: $dir, flows: $n, target_bps: $t, cc: $cc, competitors: $comp, saturate: $sat,
             duration_s: $dur, warmup_s: $warm, tail_s: $tail, drain_s: $drain, run: $run, ap_queue: $queue, ap_qdisc: "fifo",
             wmm: false, ack_marked: false, bottleneck_payload_bps: $eb, fps: 30, gop: 15, i_ratio: 5},
           kernel_settings: {
             testbed: "experiments/testbed/ap.sh: a server, an AP router, one station per flow on its bridge br0",
             namespaces: "\($name)-srv, \($name)-ap, \($name)-sta1..\($n)",
             addresses: "server 10.\($net).1.1, station K 10.\($net).2.K; flow K on port \($port0) + K",
             bottleneck: (if $dir == "down" then "the AP toward the stations (br0 egress)"
                          else "the AP toward the server (ap-srv egress)" end),
             bottleneck_dev: $dev, htb_rate: $rate, htb_rate_bps: ($rate | rtrimstr("bit") | tonumber),
             htb_counts: "whole Ethernet frames: 1514 bytes for 1448 of TCP payload; EB is the payload rate",
             leaf_qdisc: "pfifo limit \($queue)", qdiscs: $qdiscs,
             offloads: "tso, gso and gro off on every veth and br0 (MTU-sized packets)",
             added_delay_ms: 0, reverse_path: "unshaped (noqueue)",
             start: "every sender at one instant t0; the last one \($flows | map(.start_offset_ms) | max) ms after it (its window moves with it)",
             default_cc: $sys[0], tcp_ecn: ($sys[1] | tonumber? // $sys[1]), tcp_wmem: $sys[2], tcp_rmem: $sys[3],
             competitors_via: "iperf3 -C \($comp) -t \($secs)", target_via: (if $via == "null" then null else $via end),
             video: (if $video then {source: "tests/tools/frame_sender", fps: 30, gop: 15, i_ratio: 5,
                       drain_s: $drain} + $video else null end),
             goodput: $goodput_how, rtt: $rtt_how},
           bottleneck_stats: $stats,
           flows: ($flows | sort_by(.station)),
           summary: {aggregate_bps: ($flows | map(.goodput_bps) | add),
             competitors_bps: ($c | add // 0),
             jain_competitors: (if ($c | length) == 0 or ($c | map(. * .) | add) == 0 then null
               else (($c | add) * ($c | add) / (($c | length) * ($c | map(. * .) | add)) * 10000 | round / 10000) end)}}' \
        >"$_avrk_out" 2>"$_avrk_tmp/record.err" ||
        _avrk_fail "the record: $(tail -n 1 "$_avrk_tmp/record.err")"
)
