#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/golden/selftest.sh BUILD - each rule of the golden harness catches
# the defect it is there for, on small fake corpora made from the own
# corpus (tests/captures): golden.sh (GOLDEN_OWN=DIR) and test_decode's
# corpus run (TCPAV_OWN_CAPTURES=DIR), with no third-party corpus
# (TCPAV_CAPTURES=/nonexistent). TAP lines and a plan; exit 1 on a failure.
#
# Fixtures: a correct control corpus (passes, one "#" line for the absent
# third-party corpus); a missing per-stream table; a missing summary; a
# missing summary key; a field that differs in an exact check; one that
# differs in a check restricted to some fields (link-copies: goodput only,
# where a pipeline once lost the result); a capture the list leaves out;
# a summary without its capture's sha256; a field missing from avmon's
# summary (read as 0 it would pass "retransmissions below tshark's"); a flow
# avmon has and the oracle table has not; an oracle table with no rows;
# for test_decode, a missing oracle key.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
[[ $build == /* ]] || build=$top/$build
caps=$top/tests/captures
exact=sll_any_rcv.pcap        # avmon equals tshark on every compared field
copies=sll2_any_rtr.pcap       # the own corpus's link-copies capture
tmp=$(mktemp -d /tmp/golden-selftest.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# result, tap_finish
# shellcheck source=../lib/tap.sh
. "$top/tests/lib/tap.sh"

for f in "$build/bin/avmon" "$build/tests/test_decode"; do
    if [[ ! -x $f ]]; then
        echo "not ok 1 - $f built (make BUILD=$build)"
        echo "1..1"
        exit 1
    fi
done

# corpus NAME: a fresh fake corpus with the two captures and their oracles
corpus() {
    local d=$tmp/$1 c
    mkdir -p "$d/oracles"
    for c in "$exact" "$copies"; do
        cp "$caps/$c" "$d/" && cp "$caps/oracles/$c".* "$d/oracles/" || exit 1
    done
    printf '%s exact\n%s link-copies\n' "$exact" "$copies" >"$d/GOLDEN"
    echo "$d"
}

# golden DIR: run golden.sh on it alone; its output in $out, status in $rc
golden() {
    out=$(cd "$top" && GOLDEN_OWN=$1 TCPAV_CAPTURES=/nonexistent tests/golden/golden.sh "$build" </dev/null 2>&1)
    rc=$?
}

# plan_kept: golden.sh's plan equals the result lines it printed, and its
# exit status reflects its "not ok" lines (nothing lost in a subshell)
plan_kept() {
    local results plan nok
    results=$(grep -cE '^(ok|not ok) [0-9]+ ' <<<"$out")
    plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' <<<"$out")
    nok=$(grep -c '^not ok ' <<<"$out")
    [[ $plan == "$results" ]] && { ((nok == 0 && rc == 0)) || ((nok > 0 && rc == 1)); }
}

# caught DESC PATTERN: golden.sh failed, with a "not ok" line matching PATTERN
caught() {
    local line
    line=$(grep -m1 -E "^not ok [0-9]+ - .*$2" <<<"$out")
    result "$([[ $rc == 1 && -n $line ]] && plan_kept && echo 0 || echo 1)" \
        "golden.sh catches $1 (exit $rc${line:+; $line})"
}

# the control: passes, says in one "#" line that the third-party corpus is absent
d=$(corpus control)
golden "$d"
notes=$(grep -c '^# third-party corpus not present' <<<"$out")
result "$([[ $rc == 0 && $notes == 1 ]] && ! grep -q '^not ok' <<<"$out" && ! grep -q '^skip' <<<"$out" &&
    plan_kept && echo 0 || echo 1)" \
    "control corpus passes, third-party corpus absent said in one '#' line (exit $rc, $notes note lines)"
[[ $rc == 0 ]] || grep -E '^(not ok|skip)' <<<"$out" | head -5 | sed 's/^/#   /'

d=$(corpus no_table)
rm "$d/oracles/$exact.tcp_streams.tsv"
golden "$d"
caught "a missing per-stream oracle table" "oracle file $exact\\.tcp_streams\\.tsv present"

d=$(corpus no_summary)
rm "$d/oracles/$copies.summary.txt"
golden "$d"
caught "a missing oracle summary" "oracle file oracles/$copies\\.summary\\.txt present"

d=$(corpus no_key)
sed -i '/^tcp_frames: /d' "$d/oracles/$copies.summary.txt"
golden "$d"
caught "a missing oracle key" "oracle key 'tcp_frames'"

# the oracle's table edited: one more out-of-order segment in the first stream
d=$(corpus exact_differs)
awk -F'\t' -v OFS='\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "out_of_order") c = i } NR == 2 { $c++ } 1' \
    "$caps/oracles/$exact.tcp_streams.tsv" >"$d/oracles/$exact.tcp_streams.tsv"
golden "$d"
caught "an out-of-order count that differs (exact)" "$exact: out_of_order equals tshark's"

# goodput (seqspan) one byte longer, in the check that compares goodput only
d=$(corpus goodput_differs)
awk -F'\t' -v OFS='\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "seqspan_AB") c = i } NR == 2 { $c++ } 1' \
    "$caps/oracles/$copies.tcp_streams.tsv" >"$d/oracles/$copies.tcp_streams.tsv"
golden "$d"
caught "a goodput that differs in a goodput-only check (link-copies)" "$copies: goodput_bytes equals tshark's"

d=$(corpus no_sha)
sed -i '/^sha256: /d' "$d/oracles/$exact.summary.txt"
golden "$d"
caught "an own-corpus summary without the capture's sha256" "$exact: its oracle summary names the capture's sha256"

# avmon's summary without its retransmissions counts: a wrapper edits them out
d=$(corpus no_field)
printf '#!/usr/bin/env bash\nset -o pipefail\n"%s" "$@" | jq -c %s\n' "$build/bin/avmon" \
    "'if .type == \"summary\" then del(.flows[].a_to_b.retransmissions, .flows[].b_to_a.retransmissions) else . end'" \
    >"$tmp/avmon_no_retx"
chmod +x "$tmp/avmon_no_retx"
GOLDEN_AVMON=$tmp/avmon_no_retx golden "$d"
caught "a counter missing from avmon's summary (link-copies)" "$copies: avmon's summary has TCP flows, each with a number 'retransmissions'"

# the oracle's table without its last stream: avmon has a flow tshark has not
d=$(corpus extra_flow)
sed '$d' "$caps/oracles/$exact.tcp_streams.tsv" >"$d/oracles/$exact.tcp_streams.tsv"
golden "$d"
caught "a flow avmon has and tshark has not" "$exact: endpoint_pairs equals tshark's"

# the oracle's table with its header only: nothing compared is no pass
d=$(corpus empty_table)
head -n 1 "$caps/oracles/$exact.tcp_streams.tsv" >"$d/oracles/$exact.tcp_streams.tsv"
golden "$d"
caught "an oracle table with no rows" "$exact: out_of_order equals tshark's \(0 compared\)"

d=$(corpus unlisted)
cp "$caps/$copies" "$d/extra_$copies"
golden "$d"
caught "a capture its GOLDEN list leaves out" "every capture .* is listed"

# test_decode: a missing oracle key fails, the full oracle passes
decode() {
    out=$(cd "$top" && TCPAV_OWN_CAPTURES=$1 TCPAV_CAPTURES=/nonexistent "$build/tests/test_decode" </dev/null 2>&1)
    rc=$?
}
d=$(corpus decode_control)
decode "$d"
bad=$(grep -E "^not ok .*($exact|$copies|capture corpus)" <<<"$out" | head -3)
result "$([[ -z $bad ]] && grep -q "^ok .*$exact: TCP payload" <<<"$out" && echo 0 || echo 1)" \
    "test_decode: control corpus compared and passing${bad:+ ($bad)}"
d=$(corpus decode_no_key)
sed -i '/^tcp_payload_bytes_total: /d' "$d/oracles/$exact.summary.txt"
decode "$d"
line=$(grep -m1 -E "^not ok .*$exact: oracle key 'tcp_payload_bytes_total'" <<<"$out")
result "$([[ $rc != 0 && -n $line ]] && echo 0 || echo 1)" \
    "test_decode catches a missing oracle key (exit $rc${line:+; ${line:0:120}})"

tap_finish
