#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/experiments/wifi_avmon.sh - avmon agrees with the simulator (issue
# 10, point 5): a short ns-3 run (experiments/wifi, 3 stations, 4 s of
# traffic), the sources stop and close, the simulation drains 2 s more;
# avmon reads the AP's radiotap capture and its per-flow goodput (unique
# payload bytes) equals what each receiver's socket read to within one
# segment (1448 B), downlink and uplink. That the drain was complete is
# checked too: every receiver read all its sender's socket took (else the
# comparison would be of a flow cut mid-air). No root needed.
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
        --sndbuf 262144 --pcap "$tmp/$dir" >"$tmp/$dir/run.json" 2>"$tmp/$dir/run.err"; then
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
    # avmon sees the simulation's 3 TCP flows and no other: the set of
    # data-carrying destinations it reports is the record's set
    want=$(jq -c '[.flows[].dst_addr] | sort' "$tmp/$dir/run.json")
    got=$(jq -c 'select(.type == "summary") | [.flows[] | select(.a_to_b.goodput_bytes > 0) | .dst] | unique' \
        "$tmp/$dir/avmon.json")
    [[ $got == "$want" ]]
    result $? "$dir: avmon's flows carrying data are the simulation's 3 ($got)"
done
tap_finish
