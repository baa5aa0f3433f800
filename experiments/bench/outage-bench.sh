#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# experiments/bench/outage-bench.sh BUILD -- `make bench`: recovery from a
# silent outage (issue 9, point 7), tcp_av next to CUBIC and Reno in the
# same slot. PRINTS figures and asserts nothing (the bound is asserted by
# tests/integration/outage.sh). Needs root. ~5 minutes.
#
# Scenario: EB = 25 Mbit/s of payload (HTB, pfifo 100, offloads off), the
# slot flow (port 5201) among 2 CUBIC flows, 14 s; at 6 s tc_impair drops
# everything on the router's bottleneck device, both ways, for 2 s (silent:
# no ICMP, so the RTO backoff stands). The slot is tcp_av with T = 12.5
# Mbit/s (NRT 50 %, a rule matching only our receiver), then CUBIC, then
# Reno (no rule), one after the other, TCPAV_OUTAGE_REPS times (default 5).
#
# Figures per run (experiments/testbed/outage.sh, from every ACK of the
# slot as its sender receives it; times from the restore, the hole's close):
#   ack1    the first new ACK (includes the RTO backoff: up to ~1.6 s)
#   back_T  the start of the first window of W = max(4 srtt, 0.2 s), from
#           the first new ACK on, delivering >= 0.95 T ("never" if none
#           before the run ends: CUBIC and Reno need not reach T at all)
#   back_own  the same against 0.95 of the flow's own rate over the 3 s
#           before the hole
#   w_rate  what it delivered in the W right after the first new ACK
#           (unique bytes: cumulative ACK + SACKed), w_inord in order only
#   pre     its rate over the 3 s before the hole; srtt before the hole
# then per CC the median, min and max of ack1, back_T, back_own and
# back_own - ack1 (the recovery itself, without the backoff).
#
# Output: printed, and under results/outage-YYYYmmdd-HHMMSS/: outage.csv
# (a "# ..." line with date, kernel, commit; then one row per run),
# summary.txt and raw/ (each run's iperf3 JSON, ACK capture, ss samples).
#
# Leaves nothing: loads tcp_av if it is not loaded (and unloads it at the
# end then), removes its rules, tears its namespaces (outb<PID>-*) down on
# exit, Ctrl-C and kill.
#
# Environment:
#   TCPAVCTL            tcpavctl to use (default BUILD/bin/tcpavctl)
#   TCPAV_OUTAGE_NET    second octet of the testbed addresses (default 80)
#   TCPAV_OUTAGE_REPS   runs per CC (default 5)
#   TCPAV_BENCH_RESULTS results parent directory (default TOP/results)
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=lib.sh
. "$TOP/experiments/bench/lib.sh"   # say, sayf, bench_build_dir, ctl, rules, figures
BUILD=$(bench_build_dir "${1:-build}")
TCPAVCTL=${TCPAVCTL:-$BUILD/bin/tcpavctl}
IMPAIR=$BUILD/tests/tc_impair
REPS=${TCPAV_OUTAGE_REPS:-5}
export TB_NET=${TCPAV_OUTAGE_NET:-80}
# shellcheck source=../testbed/testbed.sh
. "$TOP/experiments/testbed/testbed.sh"
# shellcheck source=../testbed/flows.sh
. "$TOP/experiments/testbed/flows.sh"
# shellcheck source=../testbed/outage.sh
. "$TOP/experiments/testbed/outage.sh"

if [[ $(id -u) != 0 ]]; then
    echo "outage-bench: needs root (network namespaces, BPF): run 'sudo make bench'" >&2
    exit 1
fi
for tool in iperf3 jq ip tc ss tcpdump awk; do
    command -v "$tool" >/dev/null || { echo "outage-bench: $tool not found" >&2; exit 1; }
done
[[ -x $TCPAVCTL ]] || { echo "outage-bench: $TCPAVCTL not found (run 'make all')" >&2; exit 1; }
[[ -x $IMPAIR ]] || { echo "outage-bench: $IMPAIR not found (run 'make all')" >&2; exit 1; }
[[ $REPS =~ ^[1-9][0-9]*$ ]] || { echo "outage-bench: TCPAV_OUTAGE_REPS must be a positive number, got '$REPS'" >&2; exit 1; }

EB=25000000 T=12500000 SECS=14 HOLE_AT=6 HOLE_S=2
NAME=outb$$
MY_DST=10.$TB_NET.2.1
STAMP=$(date +%Y%m%d-%H%M%S)
OUT=${TCPAV_BENCH_RESULTS:-$TOP/results}/outage-$STAMP
RAW=$OUT/raw
mkdir -p "$RAW"
SUMMARY=$OUT/summary.txt
: >"$SUMMARY"
commit=$(git -c safe.directory="$TOP" -C "$TOP" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
WE_LOADED=0 RULE_ID=

cleanup() {
    if [[ -n $RULE_ID ]]; then ctl rule del "$RULE_ID" >/dev/null 2>&1 || :; fi
    if ((WE_LOADED)); then ctl unload >/dev/null 2>&1 || :; fi
}
# shellcheck disable=SC2034
TB_EXTRA_CLEANUP=cleanup   # read by the trap of tb_trap_cleanup
tb_trap_cleanup "$NAME"

if ! ctl status --json 2>/dev/null | jq -e '.loaded and .registered and .policy_attached' >/dev/null 2>&1; then
    ctl load >/dev/null
    WE_LOADED=1
fi
tb_up "$NAME" "$(tb_htb_rate_for_eb $EB)" 100
RULE_ID=$(ctl rule add --dport 5201 --dst "$MY_DST" --cc tcp_av --rate $T |
    awk '$1 == "rule" { sub(/:$/, "", $2); print $2; exit }')

say "outage-bench: $(date -Iseconds), kernel $(uname -r), commit $commit"
say "EB 25 Mbit/s, pfifo 100, slot among 2 CUBIC, ${SECS} s; silent blackhole both ways ${HOLE_S} s at ${HOLE_AT} s; T = 12.5 Mbit/s"
say "times in s from the restore; W = max(4 srtt, 0.2 s); rates in Mbit/s"
sayf '%-4s %-7s %7s %7s %8s %7s %7s %6s %6s %8s\n' run cc ack1 back_T back_own w_rate w_inord pre W srtt_ms
printf '# outage-bench date=%s kernel=%s commit=%s capacity_bps=%s target_bps=%s hole_s=%s\n' \
    "$(date -Iseconds)" "$(uname -r)" "$commit" $EB $T $HOLE_S >"$OUT/outage.csv"
echo "run,cc,sender_cc,ack1_s,back_T_s,back_own_s,window_s,w_rate_bps,w_inorder_bps,pre_bps,srtt_us" >>"$OUT/outage.csv"

for (( r = 1; r <= REPS; r++ )); do
    for cc in tcp_av cubic reno; do
        d=$RAW/$cc-$r
        # tcp_av: the rule (dport 5201) gives it tcp_av and T; the others
        # run on 5221.. where no rule matches, with -C
        slot=rule port0=5201
        [[ $cc == tcp_av ]] || slot=$cc port0=5221
        if ! TB_PORT0=$port0 outage_run "$d" "$IMPAIR" $SECS $HOLE_AT $HOLE_S "$slot" cubic cubic; then
            sayf '%-4s %-7s run failed (see %s)\n' "$r" "$cc" "$d"
            continue
        fi
        got=$(jq -r '.end.sender_tcp_congestion // "?"' "$d/flow-0.json" 2>/dev/null || echo "?")
        f=$(outage_figures "$d" $T || echo "- - - - - - - -")
        own=$(outage_figures "$d" 2>/dev/null | awk '{ print $7 }' || echo -)
        read -r _ ack1 srtt w pre rate back inorder <<<"$f"
        sayf '%-4s %-7s %7s %7s %8s %7s %7s %6s %6s %8s%s\n' "$r" "$cc" "$ack1" "$back" "${own:--}" \
            "$(mbit "$rate")" "$(mbit "$inorder")" "$(mbit "$pre")" \
            "$w" "$(awk -v s="$srtt" 'BEGIN { printf "%.1f", s / 1000 }')" \
            "$([[ $got == "$cc" ]] || echo "  (disturbed: the slot ran $got)")"
        echo "$r,$cc,$got,$ack1,$back,${own:--},$w,$rate,$inorder,$pre,$srtt" >>"$OUT/outage.csv"
    done
done

say ""
say "median [min, max] over the runs, s from the restore (never counts as the end of the run)"
sayf '%-7s %-22s %-22s %-22s %-22s\n' cc ack1 back_T back_own "back_own - ack1"
for cc in tcp_av cubic reno; do
    line=$cc
    for col in 4 5 6 own-ack1; do
        line+=" $(awk -F, -v cc="$cc" -v col="$col" -v end=$((SECS - HOLE_AT - HOLE_S)) '
            $2 == cc && $3 == cc {
                if (col == "own-ack1") { if ($6 == "never" || $4 == "never") v = end; else v = $6 - $4 }
                else v = ($col == "never" ? end : $col)
                if (v == "-") next
                x[++n] = v + 0
            }
            END {
                if (!n) { print "-"; exit }
                for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
                med = (n % 2) ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
                printf "%.3f[%.3f,%.3f]", med, x[1], x[n]
            }' "$OUT/outage.csv")"
    done
    # shellcheck disable=SC2086 # words
    sayf '%-7s %-22s %-22s %-22s %-22s\n' $line
done
say "results: $OUT"
