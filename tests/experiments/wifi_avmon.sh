#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/experiments/wifi_avmon.sh - avmon agrees with the simulator (issue
# 10, point 5): a short ns-3 run (experiments/wifi, 3 stations, 4 s of
# traffic), the sources stop and close, the simulation drains 2 s more;
# avmon reads the AP's radiotap capture and its per-flow goodput (unique
# payload bytes) equals what each receiver's socket read to within one
# segment (1448 B), downlink and uplink. That the drain was complete is
# checked too: every receiver read all its sender's socket took (else the
# comparison would be of a flow cut mid-air). The same runs check
# --trace, the target's law a line a round. No root needed.
#   TCPAV_BUILD (default build): holds bin/wifi-avr and bin/avmon
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=../lib/tap.sh
. tests/lib/tap.sh
build=${TCPAV_BUILD:-build}
seg=1448
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for bin in wifi-avr avmon; do
    if [[ ! -x $build/bin/$bin ]]; then
        result 1 "$build/bin/$bin is built (make; wifi-avr needs libns3-dev)"
        tap_finish
        exit
    fi
done

for dir in down up; do
    mkdir -p "$tmp/$dir"
    if ! "$build/bin/wifi-avr" --target 8M --flows 3 --direction "$dir" --duration 4 --warmup 1 --drain 2 \
        --sndbuf 262144 --pcap "$tmp/$dir" --trace "$tmp/$dir/trace.csv" >"$tmp/$dir/run.json" \
        2>"$tmp/$dir/run.err"; then
        result 1 "$dir: wifi-avr ran ($(tail -n 1 "$tmp/$dir/run.err"))"
        continue
    fi
    pcap=$(ls "$tmp/$dir"/ap-*.pcap 2>/dev/null | head -n 1)
    if [[ -z $pcap ]] || ! "$build/bin/avmon" -r "$pcap" --interval 0 --format json \
        >"$tmp/$dir/avmon.json" 2>"$tmp/$dir/avmon.err"; then
        result 1 "$dir: avmon read the AP's capture ($(tail -n 1 "$tmp/$dir/avmon.err" 2>/dev/null))"
        continue
    fi
    # per flow: the receiver's address:port, what its sender's socket took,
    # what the receiver read, and avmon's goodput bytes toward it
    while read -r dst tx rx mon; do
        result $((tx == rx && tx > 100000 ? 0 : 1)) \
            "$dir $dst: the drain completed: the receiver read all $tx B its sender's socket took ($rx)"
        diff=$((mon > rx ? mon - rx : rx - mon))
        result $((diff <= seg ? 0 : 1)) \
            "$dir $dst: avmon's goodput from the AP capture, $mon B, is the receiver's $rx B within one segment ($diff B apart)"
    done < <(jq -r --slurpfile mon <(jq -c 'select(.type == "summary")' "$tmp/$dir/avmon.json") '
        .flows[] | .dst_addr as $d |
        ([$mon[0].flows[] | select(.dst == $d) | .a_to_b.goodput_bytes] | add // -1) as $m |
        "\($d) \(.tx_bytes) \(.rx_bytes) \($m)"' "$tmp/$dir/run.json")
    # --trace: a line a counted round, its rounds one apart, its counts
    # never falling, and its last line the law's state the record ends with
    read -r rows rounds_bad counts_bad last_round last_losses < <(awk -F, '
        NR == 1 { next }
        { n++; if (n > 1 && $2 != r + 1) bad_r++; if ($16 < l || $17 < t) bad_c++; r = $2; l = $16; t = $17 }
        END { print n + 0, bad_r + 0, bad_c + 0, r + 0, l + 0 }' "$tmp/$dir/trace.csv" 2>/dev/null)
    read -r rec_rounds rec_losses < <(jq -r '.flows[] | select(.role == "target") |
        "\(.tcp_av.rounds) \(.tcp_av.loss_events)"' "$tmp/$dir/run.json")
    [[ $(head -n 1 "$tmp/$dir/trace.csv" 2>/dev/null) == time_s,round,* && ${rows:-0} -gt 20 &&
        ${rounds_bad:-1} == 0 && ${counts_bad:-1} == 0 && ${last_round:-} == "$rec_rounds" &&
        ${last_losses:-} == "$rec_losses" ]]
    result $? "$dir: --trace wrote ${rows:-0} rounds, one apart, counts never falling, ending at the record's round $rec_rounds and $rec_losses loss events (${last_round:-?}, ${last_losses:-?})"
    # avmon sees the simulation's 3 TCP flows and no other: the set of
    # data-carrying destinations it reports is the record's set
    want=$(jq -c '[.flows[].dst_addr] | sort' "$tmp/$dir/run.json")
    got=$(jq -c 'select(.type == "summary") | [.flows[] | select(.a_to_b.goodput_bytes > 0) | .dst] | unique' \
        "$tmp/$dir/avmon.json")
    [[ $got == "$want" ]]
    result $? "$dir: avmon's flows carrying data are the simulation's 3 ($got)"
done

# --trace's bad input: refused in one line, with no record, before any
# simulation (a file that cannot be written after it: /dev/full)
for bad in "--cc linuxreno --trace $tmp/t.csv" "--saturate --trace $tmp/t.csv" "--trace $tmp/none/t.csv" \
    "--trace /dev/full"; do
    # shellcheck disable=SC2086 # the words are the options
    "$build/bin/wifi-avr" --target 8M --flows 2 --duration 2 --warmup 1 $bad >"$tmp/bad.out" 2>"$tmp/bad.err"
    rc=$?
    [[ $rc -ne 0 && ! -s $tmp/bad.out && $(wc -l <"$tmp/bad.err") -eq 1 && ! -e $tmp/t.csv ]] &&
        grep -q -- '--trace' "$tmp/bad.err"
    result $? "wifi-avr $bad: exit $rc, one line naming --trace ($(head -c 120 "$tmp/bad.err"))"
done
tap_finish
