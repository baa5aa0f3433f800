#!/usr/bin/env bash
# tests/golden/golden.sh BUILD - avmon's summaries of the shared captures
# against the figures tshark 4.0 gives for them (../shared/captures/oracles),
# as listed in tests/golden/GOLDEN. TAP lines; exit status 1 on a failure.
# Captures elsewhere: TCPAV_CAPTURES=DIR.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/tests/golden
build=${1:-build}
avmon=$top/$build/bin/avmon
caps=${TCPAV_CAPTURES:-$top/../shared/captures}
tmp=$(mktemp -d /tmp/avmon-golden.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

result() { # result STATUS DESC
    n=$((n + 1))
    if [[ $1 == 0 ]]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}
check() { local desc=$1; shift; "$@" >/dev/null 2>&1; result $? "$desc"; }

if [[ ! -d $caps/oracles ]]; then
    echo "skip 1 - golden tests: no captures with oracles at $caps (set TCPAV_CAPTURES)"
    exit 0
fi

# fields_agree NAME JQ_PROGRAM TSV: one check per field of the comparison
fields_agree() {
    local name=$1 prog=$2 tsv=$3 field bad total first
    while IFS=$'\t' read -r field bad total first; do
        [[ $bad == 0 ]] || echo "# $name: $field: $bad of $total differ, e.g. $first"
        result "$([[ $bad == 0 ]] && echo 0 || echo 1)" "$name: $field equals tshark's ($total compared)"
    done < <(jq -R -s -r --slurpfile sum "$tmp/sum.json" -f "$here/$prog" "$tsv")
}

oracle() { sed -n "s/^$2: //p" "$caps/oracles/$1.summary.txt" | head -1; }
total() { jq "[.flows[] | select(.proto == \"tcp\") | .a_to_b.$1 + .b_to_a.$1] | add // 0" "$tmp/sum.json"; }

while read -r cap kind expect; do
    [[ -z $cap || $cap == \#* ]] && continue
    rc=0
    "$avmon" -r "$caps/$cap" --interval 0 --format json >"$tmp/out" 2>"$tmp/err" || rc=$?
    tail -n 1 "$tmp/out" >"$tmp/sum.json"
    check "$cap: no crash, no sanitizer report (exit $rc)" \
        bash -c "(( $rc < 128 )) && ! grep -qE 'Sanitizer|runtime error' '$tmp/err'"
    if [[ $kind == malformed ]]; then
        if ((rc != 0)); then
            check "$cap: refused with one line on stderr and exit 1: $(head -c 150 "$tmp/err")" \
                bash -c "(( $rc == 1 )) && [[ \$(wc -l < '$tmp/err') == 1 ]] && grep -q '^avmon: ' '$tmp/err'"
        else
            check "$cap: read, its broken frames counted as malformed" \
                jq -e '[.capture.malformed[]] | add > 0' "$tmp/sum.json"
        fi
        continue
    fi
    if [[ " $expect " == *" warns "* ]]; then
        check "$cap: read (exit 0) with one warning line: $(head -c 150 "$tmp/err")" \
            bash -c "(( $rc == 0 )) && [[ \$(wc -l < '$tmp/err') == 1 ]] && grep -q '^avmon: warning: ' '$tmp/err'"
    else
        check "$cap: read cleanly (exit 0, nothing on stderr)" bash -c "(( $rc == 0 )) && [[ ! -s '$tmp/err' ]]"
    fi
    check "$cap: packets equal capinfos' ($(oracle "$cap" capinfos_packets))" \
        jq -e --argjson p "$(oracle "$cap" capinfos_packets)" '.capture.packets == $p' "$tmp/sum.json"
    streams=$caps/oracles/$cap.tcp_streams.tsv stations=$caps/oracles/$cap.wlan_stations.tsv
    case $kind in
    exact)
        [[ -f $streams ]] && fields_agree "$cap" compare.jq "$streams"
        [[ -f $stations ]] && fields_agree "$cap stations" stations.jq "$stations"
        ;;
    link-copies)
        copies=$(jq '.duplicates_removed.link_copies' "$tmp/sum.json")
        frames=$(oracle "$cap" tcp_frames) packets=$(total packets)
        check "$cap: packets $packets + link copies removed $copies = tshark's TCP frames $frames" \
            test $((packets + copies)) -eq "$frames"
        fields_agree "$cap" compare.jq "$streams" | grep -E 'goodput_bytes|^#.*goodput'
        check "$cap: retransmissions $(total retransmissions) below tshark's $(oracle "$cap" 'frames\[tcp.analysis.retransmission\]') (copies are not retransmissions)" \
            test "$(total retransmissions)" -lt "$(oracle "$cap" 'frames\[tcp.analysis.retransmission\]')"
        ;;
    wlan-retries)
        fields_agree "$cap stations" stations.jq "$stations"
        fields_agree "$cap" compare.jq "$streams" | grep -E 'goodput_bytes|^#.*goodput'
        for kv in $expect; do
            [[ $kv == *=* ]] || continue
            check "$cap: ${kv%%=*} $(total "${kv%%=*}") equals tshark's on the retry-free view (${kv#*=})" \
                test "$(total "${kv%%=*}")" -eq "${kv#*=}"
        done
        ;;
    no-tcp)
        check "$cap: no TCP flow (tunnel not decapsulated)" jq -e '[.flows[] | select(.proto == "tcp")] | length == 0' "$tmp/sum.json"
        check "$cap: nothing counted as malformed" jq -e '[.capture.malformed[]] | add == 0' "$tmp/sum.json"
        ;;
    *) result 1 "$cap: unknown check kind '$kind' in GOLDEN" ;;
    esac
done < "$here/GOLDEN"
echo "1..$n"
((failed == 0))
