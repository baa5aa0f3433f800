#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/captures/oracle.sh - the reference figures tshark computes for
# captures of the project's own corpus, in the files tests/golden/golden.sh
# and tests/unit/test_decode.c compare avmon with.
#
#   tests/captures/oracle.sh [-o DIR] CAPTURE...      (DIR: tests/captures/oracles)
#
# For each CAPTURE (any path; NAME = its file name) it writes
#   DIR/NAME.summary.txt        "key: value" lines: file-level figures
#   DIR/NAME.tcp_streams.tsv    per TCP stream and direction (when TCP)
#   DIR/NAME.wlan_stations.tsv  per 802.11 station, data frames (when 802.11)
# and refreshes DIR/PREFERENCES.txt (tshark's version and the preferences
# the figures depend on). A file tshark reads only in part (cut short,
# damaged) gets the figures of what it read; its error message is the
# summary's tshark_stderr. Files are replaced only when all were written.
# Needs tshark and capinfos 4.0 (Debian 12: 4.0.17), awk. Keys, columns
# and their meanings: tests/captures/MANIFEST.md.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$here/oracles
if [[ ${1:-} == -o ]]; then
    out=${2:?usage: oracle.sh [-o DIR] CAPTURE...}
    shift 2
fi
(($#)) || { echo "usage: oracle.sh [-o DIR] CAPTURE..." >&2; exit 2; }
for t in tshark capinfos awk; do
    command -v $t >/dev/null || { echo "oracle.sh: $t not found (apt-get install tshark)" >&2; exit 1; }
done
version=$(tshark -v 2>/dev/null | head -1)
[[ $version == "TShark (Wireshark) 4.0."* ]] ||
    echo "oracle.sh: warning: $version is not 4.0.x: TCP-analysis heuristics differ between versions" >&2
mkdir -p "$out" || exit 1
tmp=$(mktemp -d /tmp/tcpav-oracle.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

# tshark without name resolution and with its default preferences; the
# preferences the TCP and 802.11 figures depend on are recorded below
# A file damaged on purpose (cut inside a record, a bad pcapng block) makes
# tshark exit 2 after the frames before the damage: those are its figures
# (summary.txt's tshark_stderr names the damage).
ts() {
    tshark -n -o tcp.analyze_sequence_numbers:TRUE -o tcp.relative_sequence_numbers:TRUE "$@" 2>"$tmp/ts.err" && return
    local rc=$?
    grep -qE 'cut short in the middle of a packet|appears to be damaged or corrupt' "$tmp/ts.err" || return $rc
}
{
    echo "# tshark preferences in effect for tests/captures/oracles (written by oracle.sh)"
    echo "version: $version"
    echo "command: tshark -n -o tcp.analyze_sequence_numbers:TRUE -o tcp.relative_sequence_numbers:TRUE -r CAPTURE"
    tshark -G currentprefs 2>/dev/null | sed -n 's/^#\{0,1\}\(\(tcp\|wlan\|radiotap\|ip\|ipv6\|eth\|vlan\|sll\)\.[a-z_0-9.]*: .*\)/\1/p'
} >"$tmp/prefs" && mv -f "$tmp/prefs" "$out/PREFERENCES.txt"

# frames matching a display filter
count() { ts -r "$1" -Y "$2" -T fields -e frame.number | grep -c .; }

# tcp_streams CAPTURE: per stream, A = the sender of its first frame;
# _AB columns count frames A sent, _BA those B sent.
tcp_streams() {
    ts -r "$1" -Y tcp -T fields -E separator=/t -E occurrence=l \
        -e tcp.stream -e ip.src -e ipv6.src -e tcp.srcport -e ip.dst -e ipv6.dst -e tcp.dstport \
        -e frame.len -e tcp.len -e frame.time_relative \
        -e tcp.analysis.retransmission -e tcp.analysis.fast_retransmission \
        -e tcp.analysis.spurious_retransmission -e tcp.analysis.duplicate_ack \
        -e tcp.analysis.lost_segment -e tcp.analysis.out_of_order -e tcp.analysis.ack_rtt \
        -e tcp.flags.syn -e tcp.flags.fin -e tcp.flags.reset -e tcp.flags.ack \
        -e tcp.seq -e tcp.ack -e tcp.options.sack.count >"$tmp/fields"
    awk -F'\t' -v OFS='\t' '
    {
        s = $1; src = ($2 != "" ? $2 : $3) ":" $4; dst = ($5 != "" ? $5 : $6) ":" $7
        if (!(s in A)) { A[s] = src; B[s] = dst; t0[s] = $10; order[++n] = s }
        t1[s] = $10; d = (src == A[s]) ? "AB" : "BA"
        c[s, d, "frames"]++; c[s, d, "l2"] += $8; c[s, d, "pay"] += $9
        if ($11 != "") c[s, d, "retx"]++
        if ($12 != "") c[s, "", "fast"]++
        if ($13 != "") c[s, "", "spur"]++
        if ($14 != "") c[s, d, "dup"]++
        if ($15 != "") c[s, "", "lost"]++
        if ($16 != "") c[s, "", "ooo"]++
        if ($17 != "") { c[s, d, "rttn"]++; c[s, d, "rtts"] += $17 }
        if ($21 == "1" && $9 == 0 && $18 == "0" && $19 == "0" && $20 == "0") c[s, d, "pure"]++
        if ($24 > 0) { c[s, d, "sackf"]++; c[s, d, "sackb"] += $24 }
        if ($9 > 0) {
            if (!((s, d) in lo) || $22 < lo[s, d]) lo[s, d] = $22
            if (!((s, d) in hi) || $22 + $9 > hi[s, d]) hi[s, d] = $22 + $9
        }
        # an ACK that moves the acknowledged sequence number forward
        if ($21 == "1" && $23 != "") {
            if ((s, d) in acked) {
                if ($23 > acked[s, d]) { c[s, d, "advn"]++; c[s, d, "advb"] += $23 - acked[s, d]; acked[s, d] = $23 }
            } else acked[s, d] = $23
        }
    }
    function rate(s, d, dur) { return dur > 0 ? sprintf("%.1f", c[s, d, "pay"] * 8 / dur) : "NA" }
    function rtt(s, d) { return c[s, d, "rttn"] ? sprintf("%.3f", 1000 * c[s, d, "rtts"] / c[s, d, "rttn"]) : "NA" }
    function span(s, d) { return ((s, d) in hi) ? hi[s, d] - lo[s, d] : 0 }
    END {
        print "stream", "A", "B", "frames_AB", "frames_BA", "l2bytes_AB", "l2bytes_BA", "payload_AB", "payload_BA",
            "first_rel_s", "last_rel_s", "duration_s", "payload_rate_AB_bps", "payload_rate_BA_bps",
            "retx_AB", "retx_BA", "fast_retx", "spurious_retx", "dupack_AB", "dupack_BA", "lost_segment",
            "out_of_order", "pure_acks_AB", "pure_acks_BA", "sack_frames_AB", "sack_frames_BA",
            "sack_blocks_AB", "sack_blocks_BA", "rtt_n_AB", "rtt_mean_ms_AB", "rtt_n_BA", "rtt_mean_ms_BA",
            "seqspan_AB", "seqspan_BA", "ack_adv_n_AB", "ack_adv_bytes_AB", "ack_adv_n_BA", "ack_adv_bytes_BA"
        for (i = 1; i <= n; i++) {
            s = order[i]; dur = t1[s] - t0[s]
            print s, A[s], B[s], c[s, "AB", "frames"] + 0, c[s, "BA", "frames"] + 0,
                c[s, "AB", "l2"] + 0, c[s, "BA", "l2"] + 0, c[s, "AB", "pay"] + 0, c[s, "BA", "pay"] + 0,
                sprintf("%.6f", t0[s]), sprintf("%.6f", t1[s]), sprintf("%.6f", dur),
                rate(s, "AB", dur), rate(s, "BA", dur),
                c[s, "AB", "retx"] + 0, c[s, "BA", "retx"] + 0, c[s, "", "fast"] + 0, c[s, "", "spur"] + 0,
                c[s, "AB", "dup"] + 0, c[s, "BA", "dup"] + 0, c[s, "", "lost"] + 0, c[s, "", "ooo"] + 0,
                c[s, "AB", "pure"] + 0, c[s, "BA", "pure"] + 0, c[s, "AB", "sackf"] + 0, c[s, "BA", "sackf"] + 0,
                c[s, "AB", "sackb"] + 0, c[s, "BA", "sackb"] + 0,
                c[s, "AB", "rttn"] + 0, rtt(s, "AB"), c[s, "BA", "rttn"] + 0, rtt(s, "BA"),
                span(s, "AB"), span(s, "BA"),
                c[s, "AB", "advn"] + 0, c[s, "AB", "advb"] + 0, c[s, "BA", "advn"] + 0, c[s, "BA", "advb"] + 0
        }
    }' "$tmp/fields"
}

# wlan_stations CAPTURE: data frames per station; ToDS = the station's
# uplink (station = TA), FromDS = its downlink (station = RA, group RAs
# left out); other data frames (WDS, IBSS) belong to no station.
wlan_stations() {
    ts -r "$1" -Y 'wlan.fc.type == 2' -T fields -E separator=/t -E occurrence=f \
        -e frame.len -e wlan.fc.ds -e wlan.ta -e wlan.ra -e wlan.fc.retry -e wlan_radio.duration -e tcp.len \
        >"$tmp/wlan"
    awk -F'\t' -v OFS='\t' '
    function group(mac) { return index("13579bdfBDF", substr(mac, 2, 1)) > 0 }
    $2 == "0x01" || $2 == "0x02" {
        if ($2 == "0x01") { st = $3; d = "up" } else { st = $4; d = "down"; if (group(st)) next }
        if (!(st in seen)) { seen[st] = 1; order[++n] = st }
        c[st, d, "f"]++; c[st, d, "b"] += $1; c[st, d, "r"] += ($5 == "1"); c[st, d, "a"] += $6; c[st, d, "p"] += $7
    }
    END {
        print "station", "up_frames", "up_l2bytes", "up_retry_frames", "up_airtime_us", "up_tcp_payload",
            "down_frames", "down_l2bytes", "down_retry_frames", "down_airtime_us", "down_tcp_payload"
        for (i = 1; i <= n; i++) {
            st = order[i]
            print st, c[st, "up", "f"] + 0, c[st, "up", "b"] + 0, c[st, "up", "r"] + 0, c[st, "up", "a"] + 0,
                c[st, "up", "p"] + 0, c[st, "down", "f"] + 0, c[st, "down", "b"] + 0, c[st, "down", "r"] + 0,
                c[st, "down", "a"] + 0, c[st, "down", "p"] + 0
        }
    }' "$tmp/wlan"
}

capinfo() { capinfos -T -r "$1" "$2" 2>/dev/null | cut -f2- | tr '\t' ' '; }

oracle() {
    local f=$1 name sum ntcp nwlan flt
    name=$(basename "$f")
    [[ -r $f ]] || { echo "oracle.sh: cannot read $f" >&2; return 1; }
    sum=$tmp/$name.summary.txt
    rm -f "$tmp/$name".*
    {
        echo "file: $name"
        echo "size_bytes: $(stat -c %s "$f")"
        echo "sha256: $(sha256sum "$f" | cut -d' ' -f1)"
        echo "tshark_version: $version"
        echo "tshark_preferences: defaults, see PREFERENCES.txt"
        echo "capinfos_file_type: $(capinfo -t "$f")"
        echo "capinfos_encapsulation: $(capinfo -E "$f")"
        echo "capinfos_packets: $(capinfo -c "$f")"
        echo "capinfos_duration_s: $(capinfo -u "$f")"
        echo "capinfos_errors: $(capinfos -c "$f" 2>&1 >/dev/null | grep -v 'will continue anyway' | tr '\n' ' ' | sed 's/  */ /g; s/ $//')"
        echo "tshark_frames_read: $(count "$f" frame)"
        echo "tshark_stderr: $(tshark -n -r "$f" -T fields -e frame.number 2>&1 >/dev/null | grep -v 'Running as user' | tr '\n' ' ' | sed 's/  */ /g; s/ $//')"
        echo "malformed_frames: $(count "$f" _ws.malformed)"
        echo "expert_error_frames: $(count "$f" '_ws.expert.severity == error')"
        ntcp=$(count "$f" tcp)
        echo "tcp_frames: $ntcp"
        if ((ntcp > 0)); then
            echo "tcp_streams: $(ts -r "$f" -Y tcp -T fields -e tcp.stream | sort -u | grep -c .)"
            for flt in tcp.analysis.retransmission tcp.analysis.fast_retransmission \
                tcp.analysis.spurious_retransmission tcp.analysis.duplicate_ack tcp.analysis.lost_segment \
                tcp.analysis.ack_lost_segment tcp.analysis.out_of_order tcp.analysis.ack_rtt \
                tcp.options.sack_le tcp.options.sack.dsack \
                "tcp.flags.ack==1 && tcp.len==0 && tcp.flags.syn==0 && tcp.flags.fin==0 && tcp.flags.reset==0"; do
                echo "frames[$flt]: $(count "$f" "$flt")"
            done
            echo "tcp_payload_bytes_total: $(ts -r "$f" -Y tcp -T fields -e tcp.len | awk '{ s += $1 } END { print s + 0 }')"
            echo "ack_rtt_s_n_min_mean_max: $(ts -r "$f" -Y tcp.analysis.ack_rtt -T fields -e tcp.analysis.ack_rtt |
                awk 'NR == 1 { lo = hi = $1 } { n++; s += $1; if ($1 < lo) lo = $1; if ($1 > hi) hi = $1 }
                     END { if (n) printf "%d %.6f %.6f %.6f\n", n, lo, s / n, hi; else print 0 }')"
            echo "sack_blocks_total: $(ts -r "$f" -Y tcp.options.sack_le -T fields -E occurrence=a -e tcp.options.sack_le |
                awk -F, '{ s += NF } END { print s + 0 }')"
        fi
        nwlan=$(count "$f" wlan)
        echo "wlan_frames: $nwlan"
        if ((nwlan > 0)); then
            for flt in "wlan.fc.type==0" "wlan.fc.type==1" "wlan.fc.type==2" "wlan.fc.retry==1" \
                "wlan.fc.retry==1 && wlan.fc.type==2" "wlan.fc.protected==1" "radiotap.flags.badfcs==1" \
                "wlan_radio.duration" "radiotap.ampdu.reference" "wlan.fc.type==2 && tcp"; do
                echo "frames[$flt]: $(count "$f" "$flt")"
            done
            echo "airtime_us_total_wlan_radio_duration: $(ts -r "$f" -Y wlan_radio.duration -T fields -e wlan_radio.duration |
                awk '{ s += $1 } END { print s + 0 }')"
        fi
    } >"$sum" || return 1
    if ((ntcp > 0)); then tcp_streams "$f" >"$tmp/$name.tcp_streams.tsv" || return 1; fi
    if ((nwlan > 0)); then wlan_stations "$f" >"$tmp/$name.wlan_stations.tsv" || return 1; fi
    rm -f "$out/$name.summary.txt" "$out/$name.tcp_streams.tsv" "$out/$name.wlan_stations.tsv"
    mv -f "$tmp/$name".* "$out/" || return 1
    echo "oracle.sh: $name: $ntcp TCP frames, $nwlan 802.11 frames"
}

rc=0
for f in "$@"; do
    oracle "$f" || { echo "oracle.sh: $f: failed" >&2; rc=1; }
done
exit $rc
