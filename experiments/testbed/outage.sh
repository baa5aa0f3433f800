# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# outage.sh -- a run with a silent outage on the bottleneck and how fast
# the flow in one slot recovers. Used by tests/integration/outage.sh (the
# bound) and experiments/bench/outage-bench.sh (the figure, >= 5 runs).
# Source after testbed.sh and flows.sh, with a testbed up (tb_up).
#
# outage_run OUTDIR IMPAIR SECONDS HOLE_AT HOLE_S SLOT_CC CC...
#     The flows of tb_flows_start OUTDIR SECONDS SLOT_CC CC... with
#     TB_OMIT=0: flow 0 (port $TB_PORT0, default 5201) is the slot, the
#     others compete. HOLE_AT s after OUTDIR's t0, IMPAIR (tc_impair) runs
#     `blackhole` on the router's bottleneck device, both directions, for
#     HOLE_S s: every packet is dropped, nothing is sent back. Then waits
#     for the flows. Writes to OUTDIR, besides flows.sh's files:
#       acks     every ACK of the slot's receiver as the sender's interface
#                receives it (tcpdump -tt -S: epoch time, absolute numbers)
#       hole     tc_impair's "open T" and "close T ..." lines (epoch)
#       srtt_us  the slot flow's srtt from ss, 0.5 s before the hole: the
#                kernel takes no RTT sample during the hole, so this is
#                the srtt the flow restarts with
#       ss       the slot's `ss -tin` line every ~0.1 s from the hole's
#                open to 4 s after its close (for diagnosis)
#     $OUTAGE_PRE_HOOK, if set, is eval'ed just before the hole opens (a
#     sample of `tcpavctl flows`, say). Returns 1 if a tool or a flow
#     failed (one line on stderr).
# outage_figures OUTDIR [REF_BPS]
#     One line "close_s ack1_s srtt_us window_s pre_bps rate_bps back_s
#     inorder_bps", all times in s, amounts in unique bytes the receiver
#     holds (the issue's goodput): the cumulative ACK plus the blocks SACKed
#     above it, as a running maximum (the receiver reports at most 3 blocks,
#     so this is never above the truth):
#       close_s  when the hole closed, on OUTDIR's clock (t0)
#       ack1_s   restore -> the first new ACK: the first ACK after the
#                close whose number passes every ACK before it. This is
#                the ACK of the first segment the receiver gets after the
#                hole (the RTO retransmission, or the D-SACK for it when the
#                receiver had that data), so the RTO backoff is in ack1_s.
#       window_s W = max(4 srtt, 0.2 s): the floor keeps a window at
#                ~200 segments at 12.5 Mbit/s when srtt is tiny, so one ACK
#                (2 segments) more or less is 1 %
#       pre_bps  delivered over the 3 s before the hole
#       rate_bps delivered in [first new ACK, + W], over W: counted from
#                the first new ACK's amount on (what it acknowledges was
#                delivered before the hole or as it closed, not after)
#       inorder_bps  rate_bps counted in order only (cumulative ACKs):
#                lower when the window ends while a lost segment is being
#                retransmitted and the data above it waits at the receiver
#       back_s   restore -> the start of the first window of W, starting
#                at an ACK from the first new ACK on, that delivers
#                >= 0.95 REF_BPS (default pre_bps); "never" when none does
#     The amount delivered in a window is read off the last ACK at or
#     before its end: exact to one ACK (~1 ms here). Returns 1 (one line)
#     on missing records or no ACK at all.

# _outage_ss_line PORT: the slot's data connection in ss (the one acked most)
_outage_ss_line() {
    ip netns exec "$TB_SND" ss -tinH "dport = :$1" 2>/dev/null | awk '/^[ \t]/ {
        b = match($0, /bytes_acked:[0-9]+/) ? substr($0, RSTART + 12, RLENGTH - 12) + 0 : 0
        if (b >= best) { best = b; line = $0 } } END { print line }'
}

# _outage_sleep_until OUTDIR S: sleep until OUTDIR's t0 + S
_outage_sleep_until() {
    local d
    d=$(awk -v t0="$(cat "$1/t0")" -v s="$2" -v now="$(date +%s.%N)" \
        'BEGIN { d = t0 + s - now; printf "%.3f", (d > 0 ? d : 0) }')
    sleep "$d"
}

outage_run() {
    local out=${1:-} impair=${2:-} secs=${3:-} at=${4:-} hole=${5:-} port k rc=0
    local tcpdump_pid impair_pid ss_rtt
    if (( $# < 6 )) || [[ -z $out || ! -x $impair || ! $secs =~ ^[0-9]+$ ||
        ! $at =~ ^[0-9]+(\.[0-9]+)?$ || ! $hole =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
        echo "outage_run: usage: outage_run OUTDIR IMPAIR SECONDS HOLE_AT HOLE_S SLOT_CC CC... (got '$*')" >&2
        return 1
    fi
    shift 5
    port=${TB_PORT0:-5201}
    mkdir -p "$out"
    rm -f -- "$out/acks" "$out/hole" "$out/srtt_us" "$out/ss"
    tb_tcpdump_start "$TB_SND" "$out/acks" "$out/acks.err" -i "$TB_SND_DEV" -n -tt -S -l \
        -s 128 "tcp and src host $TB_RCV_ADDR and src port $port" || return 1
    tcpdump_pid=$TB_LAST_TCPDUMP_PID
    TB_OMIT=0 tb_flows_start "$out" "$secs" "$@" || rc=1
    if (( rc == 0 )); then
        _outage_sleep_until "$out" "$(awk -v a="$at" 'BEGIN { print a - 0.5 }')"
        ss_rtt=$(_outage_ss_line "$port" | awk 'match($0, / rtt:[0-9.]+/) {
            printf "%.0f\n", substr($0, RSTART + 5, RLENGTH - 5) * 1000 }')
        [[ -n $ss_rtt ]] && echo "$ss_rtt" >"$out/srtt_us"
        if [[ -n ${OUTAGE_PRE_HOOK:-} ]]; then eval "$OUTAGE_PRE_HOOK" || :; fi
        _outage_sleep_until "$out" "$at"
        ip netns exec "$TB_RTR" "$impair" blackhole --dev "$TB_RTR_BOTTLENECK_DEV" \
            --duration "$hole" >"$out/hole" 2>"$out/hole.err" &
        impair_pid=$!
        # the slot's socket while the hole is open and after it closes
        k=0
        while kill -0 "$impair_pid" 2>/dev/null || (( k < 40 )); do
            kill -0 "$impair_pid" 2>/dev/null || k=$((k + 1))
            printf '%s %s\n' "$(date +%s.%N)" "$(_outage_ss_line "$port")" >>"$out/ss"
            sleep 0.1
        done
        if ! wait "$impair_pid"; then
            echo "outage_run: tc_impair failed: $(head -1 "$out/hole.err")" >&2
            rc=1
        fi
    fi
    tb_flows_wait "$out" >"$out/goodput" || rc=1
    kill -INT "$tcpdump_pid" 2>/dev/null
    wait "$tcpdump_pid" 2>/dev/null
    return "$rc"
}

outage_figures() {
    local out=${1:-} ref=${2:-} t0 open close srtt
    for f in t0 hole srtt_us acks; do
        if [[ ! -s $out/$f ]]; then
            echo "outage_figures: $out/$f missing or empty" >&2
            return 1
        fi
    done
    t0=$(cat "$out/t0") srtt=$(cat "$out/srtt_us")
    open=$(awk '$1 == "open" { print $2 }' "$out/hole")
    close=$(awk '$1 == "close" { print $2 }' "$out/hole")
    if [[ -z $open || -z $close ]]; then
        echo "outage_figures: $out/hole has no open and close lines" >&2
        return 1
    fi
    # the slot's data connection: the receiver port's peer with most ACKs
    # (iperf3's control connection shares the port); ACK numbers unwrapped
    awk -v t0="$t0" -v topen="$open" -v tclose="$close" -v srtt="$srtt" -v ref="$ref" '
        match($0, / ack [0-9]+,/) {
            n++; t[n] = $1 + 0; a[n] = substr($0, RSTART + 5, RLENGTH - 6) + 0; peer[n] = $5
            cnt[$5]++
            # bytes SACKed above the cumulative ACK (a D-SACK lies below it)
            s[n] = 0
            if (match($0, /sack [0-9]+ \{[^]]*\}/)) {
                nb = split(substr($0, RSTART, RLENGTH), blk, /[{}:]/)
                for (k = 2; k + 1 <= nb; k += 3) {
                    l = blk[k] + 0; r = blk[k + 1] + 0
                    d = l - a[n]; if (d < -2^31) d += 2^32; else if (d > 2^31) d -= 2^32
                    if (d >= 0) { e = r - l; if (e < 0) e += 2^32; s[n] += e }
                }
            }
        }
        END {
            for (p in cnt) if (cnt[p] > best) { best = cnt[p]; data = p }
            m = 0; wrap = 0; last = -1
            for (i = 1; i <= n; i++) {
                if (peer[i] != data) continue
                v = a[i] + wrap
                if (last >= 0 && v < last - 2^31) { wrap += 2^32; v += 2^32 }
                m++; T[m] = t[i]; A[m] = v; last = v
                # unique bytes the receiver holds, in order or SACKed: never
                # above the truth (it reports at most 3 blocks), so kept as
                # the running maximum
                D[m] = v + s[i]; if (m > 1 && D[m - 1] > D[m]) D[m] = D[m - 1]
            }
            if (m == 0) { print "outage_figures: no ACK of the slot flow captured" > "/dev/stderr"; exit 1 }
            w = 4 * srtt / 1e6; if (w < 0.2) w = 0.2
            # delivered by time x: the highest ACK number at or before x
            hi = -1; pre0 = -1; pre1 = -1
            for (i = 1; i <= m; i++) {
                if (T[i] <= topen - 3 && A[i] > pre0) pre0 = A[i]
                if (T[i] <= topen && A[i] > pre1) pre1 = A[i]
                if (T[i] < tclose && A[i] > hi) hi = A[i]
            }
            pre = (pre0 >= 0 && pre1 >= 0) ? 8 * (pre1 - pre0) / 3 : 0
            if (ref == "") ref = pre
            f = 0
            for (i = 1; i <= m; i++) if (T[i] >= tclose && A[i] > hi) { f = i; break }
            if (!f) { printf "%.3f never %d %.3f %.0f 0 never 0\n", tclose - t0, srtt, w, pre; exit 0 }
            back = "never"; rate = -1
            for (i = f; i <= m; i++) {
                if (T[i] + w > T[m]) break
                for (k = i; k < m && T[k + 1] <= T[i] + w; k++) ;
                r = 8 * (D[k] - D[i]) / w
                if (i == f) { rate = r; inorder = 8 * (A[k] - A[i]) / w }
                if (r >= 0.95 * ref) { back = sprintf("%.3f", T[i] - tclose); break }
            }
            if (rate < 0) {
                # the first window did not end inside the capture
                print "outage_figures: the capture ends less than a window after the first new ACK" > "/dev/stderr"; exit 1
            }
            printf "%.3f %.3f %d %.3f %.0f %.0f %s %.0f\n", tclose - t0, T[f] - tclose, srtt, w, pre, rate, back, inorder
        }' "$out/acks"
}
