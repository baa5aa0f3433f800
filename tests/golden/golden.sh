#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/golden/golden.sh BUILD - avmon's summaries of capture corpora
# against the figures tshark 4.0 gives for them. TAP lines and a plan;
# exit status 1 on any failure.
#
#   the project's own corpus, always: tests/captures, listed in
#     tests/captures/GOLDEN, figures in tests/captures/oracles
#     (tests/captures/oracle.sh; MANIFEST.md there);
#   the third-party corpus when present: $TCPAV_CAPTURES, else
#     ../shared/captures, listed in tests/golden/GOLDEN, figures in
#     DIR/oracles. When absent: one "#" line, and the run passes on the
#     own corpus alone.
#
# Check kinds: the header of tests/golden/GOLDEN. Every capture needs its
# oracle summary (and the per-stream / per-station table its kind compares
# when tshark saw TCP / 802.11); a missing file or key is a failure, as is
# a capture of tests/captures that its GOLDEN list leaves out.
# GOLDEN_OWN=DIR reads the own corpus (and DIR/GOLDEN) from DIR instead:
# for the harness's own tests (tests/golden/selftest.sh).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/tests/golden
build=${1:-build}
# GOLDEN_AVMON: another avmon to run (the selftest's, which edits the real one's output)
[[ $build == /* ]] || build=$top/$build
avmon=${GOLDEN_AVMON:-$build/bin/avmon}
own=${GOLDEN_OWN:-$top/tests/captures}
shared=${TCPAV_CAPTURES:-$top/../shared/captures}
tmp=$(mktemp -d /tmp/avmon-golden.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# result, check, skip_check, tap_finish
# shellcheck source=../lib/tap.sh
. "$top/tests/lib/tap.sh"

# fields_agree NAME PROG TSV [FIELD_REGEX]: one result per field the jq
# program compares (only the fields matching FIELD_REGEX when given, and
# always compare.jq's set of endpoint pairs); a missing table, a failing
# comparison, no field compared or a field compared over no rows (an empty
# table: these kinds expect flows) is a failure.
fields_agree() {
    local name=$1 prog=$2 tsv=$3 only=${4:-} out field bad total first fields=0
    if [[ ! -f $tsv ]]; then
        result 1 "$name: oracle file $(basename "$tsv") present"
        return
    fi
    if ! out=$(jq -R -s -r --slurpfile sum "$tmp/sum.json" -f "$here/$prog" "$tsv" 2>&1); then
        result 1 "$name: $prog compares avmon with $(basename "$tsv") ($(head -c 150 <<<"$out"))"
        return
    fi
    while IFS=$'\t' read -r field bad total first; do
        [[ -z $field || (-n $only && ! $field =~ $only && $field != endpoint_pairs) ]] && continue
        fields=$((fields + 1))
        [[ $bad == 0 ]] || echo "# $name: $field: $bad of $total differ, e.g. $first"
        result "$([[ $bad == 0 && $total -gt 0 ]] && echo 0 || echo 1)" "$name: $field equals tshark's ($total compared)"
    done <<<"$out"
    ((fields > 0)) || result 1 "$name: $prog compared no field${only:+ matching $only}"
}

# oracle KEY: sets $ov to the figure KEY of the current capture's summary;
# counts a failure and returns 1 when the key is missing or not a number.
# (Not run in $(...): a result counted in a subshell would be lost.)
oracle() {
    ov=$(sed -n "s/^$(sed 's/[][\.*^$]/\\&/g' <<<"$1"): //p" "$summary" | head -1)
    if [[ ! $ov =~ ^[0-9]+$ ]]; then
        result 1 "$cap: oracle key '$1' in $(basename "$summary") (got '$ov')"
        return 1
    fi
}
# total FIELD: sets $tv to FIELD summed over both directions of avmon's TCP
# flows; counts a failure and returns 1 when there is no TCP flow or one
# lacks the field (a renamed field must not read as 0). Not run in $(...).
total() {
    if ! tv=$(jq -e --arg k "$1" '[.flows[] | select(.proto == "tcp")]
        | select(length > 0 and all(.[]; (.a_to_b[$k] | type) == "number" and (.b_to_a[$k] | type) == "number"))
        | map(.a_to_b[$k] + .b_to_a[$k]) | add' "$tmp/sum.json" 2>/dev/null); then
        result 1 "$cap: avmon's summary has TCP flows, each with a number '$1' in both directions"
        return 1
    fi
}

# run_corpus DIR LIST OWN: every capture of LIST (DIR/CAPTURE, DIR/oracles/);
# OWN=1 for the repository's corpus, whose summaries must name their
# capture's sha256 (the third-party corpus's may not: a skip line then)
run_corpus() {
    local caps=$1 list=$2 own_corpus=$3 cap kind expect rc copies frames kv sha
    while read -r cap kind expect; do
        [[ -z $cap || $cap == \#* ]] && continue
        if [[ ! -f $caps/$cap ]]; then
            result 1 "$cap: listed in $list but not in $caps"
            continue
        fi
        summary=$caps/oracles/$cap.summary.txt
        rc=0
        "$avmon" -r "$caps/$cap" --interval 0 --format json </dev/null >"$tmp/out" 2>"$tmp/err" || rc=$?
        tail -n 1 "$tmp/out" >"$tmp/sum.json"
        check "$cap: no crash, no sanitizer report (exit $rc)" \
            bash -c "(( $rc < 128 )) && ! grep -qE 'Sanitizer|runtime error' '$tmp/err'"
        if [[ ! -f $summary ]]; then
            result 1 "$cap: oracle file oracles/$cap.summary.txt present"
            continue
        fi
        sha=$(sed -n 's/^sha256: //p' "$summary")
        if [[ -n $sha ]]; then
            check "$cap: its oracle is of this file (sha256)" \
                test "$sha" = "$(sha256sum "$caps/$cap" | cut -d' ' -f1)"
        elif ((own_corpus)); then
            result 1 "$cap: its oracle summary names the capture's sha256"
        else
            skip_check "$cap: its oracle is of this file (sha256)" "the summary has no sha256 line"
        fi
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
        if oracle capinfos_packets; then
            check "$cap: packets equal capinfos' ($ov)" jq -e --argjson p "$ov" '.capture.packets == $p' "$tmp/sum.json"
        fi
        streams=$caps/oracles/$cap.tcp_streams.tsv stations=$caps/oracles/$cap.wlan_stations.tsv
        case $kind in
        exact)
            oracle tcp_frames || continue
            ((ov == 0)) || fields_agree "$cap" compare.jq "$streams"
            oracle wlan_frames || continue
            ((ov == 0)) || fields_agree "$cap stations" stations.jq "$stations"
            ;;
        link-copies)
            copies=$(jq '.duplicates_removed.link_copies' "$tmp/sum.json")
            oracle tcp_frames || continue
            frames=$ov
            if total packets; then
                check "$cap: packets $tv + link copies removed $copies = tshark's TCP frames $frames" \
                    test $((tv + copies)) -eq "$frames"
            fi
            fields_agree "$cap" compare.jq "$streams" '^goodput_bytes$'
            oracle 'frames[tcp.analysis.retransmission]' || continue
            total retransmissions || continue
            check "$cap: retransmissions $tv below tshark's $ov (copies are not retransmissions)" \
                test "$tv" -lt "$ov"
            ;;
        wlan-retries)
            fields_agree "$cap stations" stations.jq "$stations"
            fields_agree "$cap" compare.jq "$streams" '^goodput_bytes$'
            for kv in $expect; do
                [[ $kv == *=* ]] || continue
                total "${kv%%=*}" || continue
                check "$cap: ${kv%%=*} $tv equals tshark's on the retry-free view (${kv#*=})" \
                    test "$tv" -eq "${kv#*=}"
            done
            ;;
        no-tcp)
            check "$cap: no TCP flow (tunnel not decapsulated)" jq -e '[.flows[] | select(.proto == "tcp")] | length == 0' "$tmp/sum.json"
            check "$cap: nothing counted as malformed" jq -e '[.capture.malformed[]] | add == 0' "$tmp/sum.json"
            ;;
        *) result 1 "$cap: unknown check kind '$kind' in $list" ;;
        esac
    done <"$list"
}

if [[ ! -x $avmon ]]; then
    echo "not ok 1 - $avmon built (make BUILD=$build $build/bin/avmon)"
    echo "1..1"
    exit 1
fi
# the own corpus: every capture in it is listed
if [[ ! -f $own/GOLDEN ]]; then
    result 1 "own corpus: list $own/GOLDEN present"
else
    unlisted=$(cd "$own" && for c in *.pcap *.pcapng *.cap; do
        [[ -f $c ]] && ! grep -q "^${c}[[:space:]]" GOLDEN && ! grep -qx "$c" GOLDEN && echo "$c"
    done)
    result "$([[ -z $unlisted ]] && echo 0 || echo 1)" \
        "own corpus: every capture in $own is listed in its GOLDEN${unlisted:+ (not: $(echo $unlisted))}"
    run_corpus "$own" "$own/GOLDEN" 1
fi
if [[ -d $shared/oracles ]]; then
    run_corpus "$shared" "$here/GOLDEN" 0
else
    echo "# third-party corpus not present at $shared (set TCPAV_CAPTURES): own corpus only"
fi
tap_finish
