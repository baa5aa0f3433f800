#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# experiments/bench/tcpav-sweep.sh BUILD -- `make bench`: issue 9's sweep of
# tcp_av against CUBIC, Reno and BBR in the same slot, over bottleneck queues
# (deep and byte-limited), sender offloads and NRT. It PRINTS figures and
# asserts nothing (the pass/fail checks are tests/integration/deep_buffers.sh
# and friends). Needs root.
#
# Duration: the full sweep is 7 queue/offload settings x 3 NRT x 4 CCs x 5
# runs = 420 runs of BENCH_SECONDS (20) plus ~1.5 s each to start, stop and
# read them (a cell of 4 CCs x 1 run x 10 s took 46-49 s): about 2 h 30 min,
# plus the waits for BENCH_LOCK. BENCH_QUICK=1 (2 settings x NRT 50 % x 4
# CCs x 1 run x 10 s) takes about 2 minutes.
#
#   experiments/bench/tcpav-sweep.sh build           # BUILD holds bin/tcpavctl
#   BENCH_QUICK=1 experiments/bench/tcpav-sweep.sh build
#   BENCH_LOCK=/tmp/tcpav-net.lock BENCH_RUNS=3 BENCH_QUEUES="1000:off" ...
#
# Testbed: tb_up from experiments/testbed/testbed.sh, an HTB bottleneck whose
# payload capacity is EB = 25 Mbit/s (rate from tb_htb_rate_for_eb), the
# queue and offloads of the cell. Flows: experiments/testbed/flows.sh, all
# started together, measured at the receiver's device (flows.sh's capture:
# unique bytes per 0.1 s, counted by avmon) over the whole run, start-up
# included.
#
# Cells: queue/offload setting x NRT. Settings (BENCH_QUEUES, each QUEUE:OFFLOADS
# with tb_up's QUEUE and TB_OFFLOADS):
#   100:off 300:off 1000:off   pfifo of 100, 300, 1,000 packets, offloads off
#                              (every veth: tso/gso/gro off, MTU packets)
#   151400b:off 151400b:nic    bfifo of 151,400 bytes (100 x 1514-byte frames),
#   1514000b:off 1514000b:nic  and of 1,514,000 bytes, offloads off and on:
#                              the sender's stack at host defaults (TSO/GSO
#                              super-packets), its device cutting them into
#                              frames as a NIC does, so the queue holds
#                              frames as a real AP's does (testbed.sh)
#   151400b:host 1514000b:host not in the default list: veth passes the
#                              super-packets whole, so the bfifo admits and
#                              drops 64 KB units, which no AP does (a stress
#                              case; tests/integration/OPEN). A pfifo with
#                              offloads on would count super-packets, not
#                              packets: not in the list either (it can be
#                              given, e.g. 100:host).
# NRT (BENCH_NRTS, percent): 30 50 70, T = NRT x EB.
# In each cell, run after run, the slot (flow 0) is taken in turn by each of
# BENCH_CCS (tcp_av cubic reno bbr; the order rotates by one every run) among
# BENCH_COMPETITORS (3) CUBIC flows:
#   tcp_av  a tcpavctl rule (--dport 5301 --dst 10.NET.2.1 --cc tcp_av
#           --rate T) picks it: iperf3 runs without -C (flows.sh's "rule"),
#           on ports 5301.. (the competitors, on 5302.., match no rule)
#   other   `iperf3 -C cc`, on ports 5311.. (no rule matches them)
# A run whose slot did not run the intended CC (iperf3's
# sender_tcp_congestion), whose tcp_av flow did not carry T (`tcpavctl
# flows --json`, sampled every 2 s) or in which a flow failed is run once
# more; if the retry fails too, the run is printed and written as failed
# and left out of the statistics. A cell whose testbed does not come up is
# printed as failed; the sweep goes on.
#
# Figures per run (the slot flow, rates at the receiver, bit/s):
#   goodput_bps       over the run; avr = goodput / T (also for CUBIC, Reno
#                     and BBR: what they would score against that target)
#   max_window_avr    the largest goodput in a window of max(2 s, 4 srtt)
#                     (tb_window_s, the slot flow's mean srtt), sliding by
#                     0.1 s, start-up included, / T
#   min_window_avr    the smallest such window starting after the first RTT,
#                     / T (0: the flow stalled for a whole window)
#   competitor_goodput_bps, competitorI_goodput_bps: the CUBIC flows', in
#                     sum and each, over the run
#   flags             tcp_av's flags seen in any sample (e.g. infeasible)
# Printed per cell: min / median / max over the good runs of each figure,
# the CCs side by side; at the end one line per cell with the medians.
#
# Output: results/sweep-YYYYmmdd-HHMMSS/ (at the top of the tree):
# runs.csv (one row per run), cells.csv (min, median, max per cell and CC),
# both opening with a "# ..." line (date, kernel, iperf3, commit,
# capacity_bps, runs, seconds), columns named as in the README's glossary,
# ratios as ratios; summary.txt (what was printed), raw/ (iperf3 JSON,
# `tcpavctl flows --json` samples); avr.png and competitors.png beside them
# (experiments/bench/sweep-plot.sh, with gnuplot: AVR and the competitors'
# goodput against NRT, a panel per setting, a line per CC).
#
# What it touches: per cell it builds namespaces sweep<PID>-{snd,rtr,rcv},
# loads tcp_av if it is not loaded, adds one rule matching only its own
# receiver address, and removes all of that at the end of the cell (a tcp_av
# someone else loaded stays loaded), also on failure, Ctrl-C and kill.
#
# Environment:
#   TCPAVCTL            tcpavctl to use (default BUILD/bin/tcpavctl)
#   BENCH_RUNS          runs per cell and CC (default 5; quick: 1)
#   BENCH_SECONDS       seconds per run (default 20; quick: 10)
#   BENCH_QUICK         1: the quick defaults (runs, seconds, settings
#                       "100:off 1514000b:nic", NRT "50")
#   BENCH_QUEUES        queue/offload settings (see above)
#   BENCH_NRTS          NRT values in percent (default "30 50 70")
#   BENCH_CCS           the slot's CCs (default "tcp_av cubic reno bbr")
#   BENCH_COMPETITORS   CUBIC competitors (default 3)
#   BENCH_LOCK          a file to flock(1) around each cell, so that other
#                       users of namespaces and tcp_av on the machine take
#                       turns with it between cells (default: none)
#   TCPAV_SWEEP_NET     second octet of the testbed addresses (default 89)
#   TCPAV_BENCH_RESULTS results parent directory (default TOP/results)
# shellcheck source-path=SCRIPTDIR
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=lib.sh
. "$TOP/experiments/bench/lib.sh"   # say, sayf, bench_build_dir, ctl, rules, figures
BUILD=$(bench_build_dir "${1:-build}")
TCPAVCTL=${TCPAVCTL:-$BUILD/bin/tcpavctl}
export TB_NET=${TCPAV_SWEEP_NET:-89}

# shellcheck source=../testbed/testbed.sh
. "$TOP/experiments/testbed/testbed.sh"
# shellcheck source=../testbed/flows.sh
. "$TOP/experiments/testbed/flows.sh"

die() { echo "tcpav-sweep: $*" >&2; exit 1; }

QUICK=${BENCH_QUICK:-0}
if [[ $QUICK == 1 ]]; then
    RUNS=${BENCH_RUNS:-1} SECS=${BENCH_SECONDS:-10}
    QUEUES=${BENCH_QUEUES:-100:off 1514000b:nic} NRTS=${BENCH_NRTS:-50}
else
    RUNS=${BENCH_RUNS:-5} SECS=${BENCH_SECONDS:-20}
    QUEUES=${BENCH_QUEUES:-100:off 300:off 1000:off 151400b:off 151400b:nic 1514000b:off 1514000b:nic}
    NRTS=${BENCH_NRTS:-30 50 70}
fi
CCS=${BENCH_CCS:-tcp_av cubic reno bbr}
NCOMP=${BENCH_COMPETITORS:-3}
LOCKFILE=${BENCH_LOCK:-}
EB=25000000
read -ra QUEUE_LIST <<<"$QUEUES"
read -ra NRT_LIST <<<"$NRTS"
read -ra CC_LIST <<<"$CCS"

# --- arguments -----------------------------------------------------------------
[[ $QUICK == 0 || $QUICK == 1 ]] || die "BENCH_QUICK must be 0 or 1, got '$QUICK'"
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNS must be a positive integer, got '$RUNS'"
if [[ ! $SECS =~ ^[1-9][0-9]*$ ]] || ((SECS < 4)); then die "BENCH_SECONDS must be an integer >= 4, got '$SECS'"; fi
[[ $NCOMP =~ ^[1-9]$ ]] || die "BENCH_COMPETITORS must be 1..9, got '$NCOMP'"
((${#QUEUE_LIST[@]} > 0)) || die "BENCH_QUEUES is empty"
((${#NRT_LIST[@]} > 0)) || die "BENCH_NRTS is empty"
((${#CC_LIST[@]} > 0)) || die "BENCH_CCS is empty"
for q in "${QUEUE_LIST[@]}"; do
    [[ $q =~ ^([1-9][0-9]*b?):(off|host|nic)$ ]] ||
        die "BENCH_QUEUES: '$q' is not QUEUE:OFFLOADS (QUEUE packets like 100 or bytes like 151400b, OFFLOADS off, nic or host)"
done
for n in "${NRT_LIST[@]}"; do
    [[ $n =~ ^[1-9][0-9]?$ ]] || die "BENCH_NRTS: '$n' is not a percentage 1..99"
done
for cc in "${CC_LIST[@]}"; do
    [[ $cc =~ ^[a-z0-9_]+$ ]] || die "BENCH_CCS: '$cc' is not a congestion control name"
    [[ $cc == tcp_av ]] && continue
    grep -qw -- "$cc" /proc/sys/net/ipv4/tcp_available_congestion_control 2>/dev/null ||
        modprobe -q "tcp_$cc" 2>/dev/null ||
        die "BENCH_CCS: congestion control '$cc' is not available (not in tcp_available_congestion_control, modprobe tcp_$cc failed)"
done
[[ $(id -u) == 0 ]] || die "needs root (network namespaces, BPF): run 'sudo make bench'"
for tool in iperf3 jq ip tc ss ethtool awk; do
    command -v "$tool" >/dev/null || die "$tool not found"
done
[[ -z $LOCKFILE ]] || command -v flock >/dev/null || die "BENCH_LOCK is set but flock(1) is not installed"
[[ -x $TCPAVCTL ]] || die "$TCPAVCTL not found (run 'make all')"

TBNAME=sweep$$
MY_DST=10.$TB_NET.2.1     # our receiver: our rule matches only this address
RULE_PORT=5301            # tcp_av slot (the rule's port); competitors 5302..
OTHER_PORT=5311           # the other CCs' slot; competitors 5312..

STAMP=$(date +%Y%m%d-%H%M%S)
OUT=${TCPAV_BENCH_RESULTS:-$TOP/results}/sweep-$STAMP
RAW=$OUT/raw
mkdir -p "$RAW" || die "cannot create $RAW"
SUMMARY=$OUT/summary.txt
: >"$SUMMARY"
MEDIANS=$OUT/.medians     # one line per cell for the closing table
: >"$MEDIANS"
LOADED_MARK=$OUT/.loaded-by-us

commit=$(git -c safe.directory="$TOP" -C "$TOP" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if [[ $commit != unknown ]] &&
    ! git -c safe.directory="$TOP" -C "$TOP" diff --quiet HEAD -- 2>/dev/null; then
    commit+="-dirty"
fi
META="date=$(date -Iseconds) kernel=$(uname -r) iperf3=$(iperf3 --version 2>/dev/null | head -1 | awk '{print $2}') commit=$commit capacity_bps=$EB runs=$RUNS seconds=$SECS competitors=$NCOMP host=$(hostname)"

# --- output helpers ----------------------------------------------------------------
# csv FILE FIELD...: one row; a field with a comma, quote or line break is
# quoted as RFC 4180 says
csv() {
    local file=$1 f row=()
    shift
    for f in "$@"; do
        if [[ $f == *[,\"$'\n\r']* ]]; then f=\"${f//\"/\"\"}\"; fi
        row+=("$f")
    done
    local IFS=,
    printf '%s\n' "${row[*]}" >>"$OUT/$file"
}

# stats VALUE...: "min median max" (median of an even count: the mean of the
# middle two), or "- - -" for no values
stats() {
    (($# > 0)) || { echo "- - -"; return; }
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
        END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
              printf "%.10g %.10g %.10g\n", v[1], m, v[NR] }'
}

# --- tcp_av and its rule --------------------------------------------------------------


# Loads tcp_av unless loaded; a file marks that we did (cells run in
# subshells). After someone else's unload tcp_av stays registered until its
# last socket closes, and load refuses meanwhile: retry.
ensure_loaded() {
    local i
    tcpav_loaded && return 0
    for i in $(seq 20); do
        if ctl load >/dev/null 2>&1; then
            : >"$LOADED_MARK"
            return 0
        fi
        tcpav_loaded && return 0
        sleep 0.5
    done
    ctl load >/dev/null && : >"$LOADED_MARK"
}



# set_rule RATE: exactly one rule of ours, dport RULE_PORT dst MY_DST -> tcp_av at RATE
set_rule() {
    local rate=$1 have i
    ensure_loaded || return 1
    have=$(ctl rule list --json 2>/dev/null | jq -r --arg a "$MY_DST/" --argjson r "$rate" --argjson p $RULE_PORT \
        '[.[]? | select((.dst // "") | startswith($a))] | if length == 1 and .[0].cc == "tcp_av"
         and .[0].target_bps == $r and .[0].dport == $p then "yes" else "no" end' 2>/dev/null || echo no)
    [[ $have == yes ]] && return 0
    del_my_rules
    for i in 1 2 3 4 5; do
        ctl rule add --dport $RULE_PORT --dst "$MY_DST" --cc tcp_av --rate "$rate" >/dev/null 2>&1 && return 0
        sleep 0.5
        ensure_loaded
    done
    ctl rule add --dport $RULE_PORT --dst "$MY_DST" --cc tcp_av --rate "$rate" >/dev/null
}

# cell_cleanup: what a cell leaves must go before the lock is released.
cell_cleanup() {
    tb_down "$TBNAME"
    [[ -e /sys/fs/bpf/tcpav ]] && del_my_rules
    if [[ -e $LOADED_MARK ]]; then
        ctl unload >/dev/null 2>&1 || true
        rm -f -- "$LOADED_MARK"
    fi
}
TB_EXTRA_CLEANUP=cell_cleanup   # read by the trap of tb_trap_cleanup
tb_trap_cleanup "$TBNAME"


# --- one run -------------------------------------------------------------------------
# flows_run DIR CC T: the slot under CC among NCOMP CUBIC flows for SECS;
# for tcp_av, `tcpavctl flows --json` every 2 s into DIR/flows-K.json.
# Run in a subshell: whatever goes wrong stays in the run.
flows_run() {
    local d=$1 cc=$2 t=$3 port0 k i ccs=()
    if [[ $cc == tcp_av ]]; then
        set_rule "$t" || { echo "could not add the rule"; return 1; }
        port0=$RULE_PORT ccs=(rule)
    else
        port0=$OTHER_PORT ccs=("$cc")
    fi
    for ((i = 0; i < NCOMP; i++)); do ccs+=(cubic); done
    TB_PORT0=$port0 TB_OMIT=0 tb_flows_start "$d" "$SECS" "${ccs[@]}" || return 1
    if [[ $cc == tcp_av ]]; then
        for ((k = 1; 2 * k < SECS; k++)); do
            sleep 2
            ctl flows --json >"$d/flows-$k.json" 2>/dev/null || echo '[]' >"$d/flows-$k.json"
        done
    fi
    tb_flows_wait "$d" >"$d/end-goodput" || return 1
}

# analyse DIR CC T RC: one line of fields separated by $SEP (RC: flows_run's
# status): status (ok|failed), goodput avr window_s max_window min_window
# srtt_us comp_sum comp_1..comp_N flags note
SEP=$'\x1f'
analyse() {
    local d=$1 cc=$2 t=$3 rc=$4 note="" g0 srtt w maxw minw csum=0 ci sport got flags=- tgt i
    local -a comp=()
    ((rc == 0)) || note="a flow failed: $(tail -1 "$d/run.log" 2>/dev/null)"
    if [[ ! -s $d/flow-0.json ]]; then   # nothing ran: nothing more to say
        failed_line "${note:-the slot flow did not run}"
        return
    fi
    got=$(sender_cc "$d/flow-0.json")
    [[ $got == "$cc" ]] || note+="${note:+; }slot on $got, not $cc"
    for ((i = 1; i <= NCOMP; i++)); do
        got=$(sender_cc "$d/flow-$i.json")
        [[ $got == cubic ]] || note+="${note:+; }competitor $i on $got"
    done
    if [[ $cc == tcp_av ]]; then
        sport=$(local_port "$d/flow-0.json")
        # every sample that has the flow: its targets and flags
        read -r tgt flags < <(cat "$d"/flows-*.json 2>/dev/null | jq -rs --arg s "$TB_SND_ADDR:$sport" \
            --arg dst "$MY_DST:$RULE_PORT" '[.[][]? | select(.src == $s and .dst == $dst)] as $f
            | if ($f | length) == 0 then "none -" else
              "\($f | map(.target_bps | tostring) | unique | join("/")) \($f | map((.flags // "") | split(",")[]) |
                map(select(. != "")) | unique | if length == 0 then "-" else join("+") end)" end' 2>/dev/null ||
            echo "none -")
        [[ $tgt == "$t" ]] || note+="${note:+; }target in tcpavctl flows: $tgt"
    fi
    g0=$(tb_flow_goodput "$d" 0 0 2>/dev/null) || { g0=""; note+="${note:+; }no receiver series for the slot"; }
    srtt=$(tb_flow_srtt_us "$d" 0 2>/dev/null) || srtt=0
    w=$(tb_window_s "$srtt")
    tb_flow_windows "$d" 0 "$w" 0 >"$d/windows-0" 2>/dev/null || : >"$d/windows-0"
    maxw=$(awk 'BEGIN { m = "" } m == "" || $3 > m { m = $3 } END { print m }' "$d/windows-0")
    minw=$(awk -v r="$srtt" 'BEGIN { m = "" } $1 >= r / 1e6 && (m == "" || $3 < m) { m = $3 } END { print m }' "$d/windows-0")
    for ((i = 1; i <= NCOMP; i++)); do
        ci=$(tb_flow_goodput "$d" "$i" 0 2>/dev/null) || { ci=""; note+="${note:+; }no receiver series for competitor $i"; }
        comp+=("$ci")
        csum=$((csum + ${ci:-0}))
    done
    (IFS=$SEP; printf '%s\n' "$([[ -z $note ]] && echo ok || echo failed)$SEP$g0$SEP$(ratio "$g0" "$t")$SEP$w$SEP$maxw$SEP$minw$SEP$srtt$SEP$csum$SEP${comp[*]}$SEP$flags$SEP${note//$SEP/ }")
}

# failed_line NOTE: analyse's line for a run that left nothing to analyse
failed_line() {
    local line="failed" i
    for ((i = 0; i < 7 + NCOMP; i++)); do line+=$SEP; done
    printf '%s\n' "$line$SEP-$SEP$1"
}

# table_row LABEL KEY SCALE FMT: one row of the cell's table: min, median and max
# of one figure (cell's val[CC,KEY]) per CC, scaled (100: percent, 1e-6: Mbit/s)
table_row() {
    local label=$1 key=$2 scale=$3 fmt=$4 cc s
    sayf '   %-22s' "$label"
    for cc in "${CC_LIST[@]}"; do
        # shellcheck disable=SC2086 # the values are a space-separated list
        s=$(stats ${val[$cc,$key]:-} | awk -v k="$scale" -v f="$fmt" '
            $1 == "-" { print "-"; next } { printf f " " f " " f "\n", k * $1, k * $2, k * $3 }')
        sayf ' | %-22s' "$s"
    done
    say ""
}

# --- one cell --------------------------------------------------------------------------
# cell QUEUE OFFLOADS NRT: every run of every CC; prints the cell's table,
# writes its runs.csv and cells.csv rows. Run in a subshell.
cell() {
    local queue=$1 offl=$2 nrt=$3 t qdisc qlimit run k i s cc d attempt line rc
    local -a f st row med=()
    local -A val=() nok=() flagged=()
    t=$((nrt * EB / 100))
    if [[ $queue == *b ]]; then qdisc=bfifo qlimit=${queue%b}; else qdisc=pfifo qlimit=$queue; fi
    local unit=packets
    [[ $qdisc == pfifo ]] || unit=bytes
    local cname="$qdisc $qlimit $unit, offloads $offl, NRT $nrt %"
    say ""
    say "-- $cname: T = $(mbit $t) Mbit/s among $NCOMP CUBIC, EB $(mbit $EB) Mbit/s, $RUNS x $SECS s"
    if ! TB_OFFLOADS=$offl tb_up "$TBNAME" "$(tb_htb_rate_for_eb "$EB")" "$queue" 2>"$RAW/tb_up.err"; then
        say "   cell failed: $(head -1 "$RAW/tb_up.err")"
        local -a empty=()
        for ((k = 0; k < 9 + NCOMP; k++)); do empty+=(""); done
        for cc in "${CC_LIST[@]}"; do
            csv runs.csv "$queue" "$qdisc" "$qlimit" "$offl" "$(ratio "$nrt" 100)" "$EB" "$t" "$cc" "" failed \
                "${empty[@]}" - "testbed did not come up"
        done
        printf '%s\t%s\t%s\tfailed\n' "$queue" "$offl" "$nrt" >>"$MEDIANS"
        return 1
    fi
    for ((run = 1; run <= RUNS; run++)); do
        for ((k = 0; k < ${#CC_LIST[@]}; k++)); do
            cc=${CC_LIST[(k + run - 1) % ${#CC_LIST[@]}]}   # the order rotates run by run
            for attempt in 1 2; do
                d=$RAW/$queue-$offl-nrt$nrt/run$run-$cc
                [[ $attempt == 1 ]] || d+=-retry
                mkdir -p "$d"
                (flows_run "$d" "$cc" "$t") >"$d/run.log" 2>&1
                rc=$?
                kill_ns_procs "$TB_SND"
                kill_ns_procs "$TB_RCV"
                line=$( (analyse "$d" "$cc" "$t" "$rc") 2>>"$d/run.log") || line=""
                [[ -n $line ]] || line=$(failed_line "analysis failed (see $d/run.log)")
                [[ $line == ok* ]] && break
                say "   (run $run $cc: ${line##*"$SEP"}; $( ((attempt == 1)) && echo "running it again" || echo "failed"))"
            done
            IFS=$SEP read -ra f <<<"$line"
            # f: status g0 avr w maxw minw srtt csum c1..cN flags note
            csv runs.csv "$queue" "$qdisc" "$qlimit" "$offl" "$(ratio "$nrt" 100)" "$EB" "$t" "$cc" "$run" "${f[0]}" \
                "${f[1]:-}" "${f[2]:-}" "${f[3]:-}" "${f[4]:-}" "$(ratio "${f[4]:-}" "$t")" "${f[5]:-}" \
                "$(ratio "${f[5]:-}" "$t")" "${f[6]:-}" "${f[7]:-}" "${f[@]:8:NCOMP}" "${f[8 + NCOMP]:--}" \
                "$([[ ${f[9 + NCOMP]:--} == - ]] || echo "${f[9 + NCOMP]}")"
            [[ ${f[0]} == ok ]] || continue
            nok[$cc]=$((${nok[$cc]:-0} + 1))
            val[$cc,avr]+=" ${f[2]}"
            [[ -z ${f[4]} ]] || val[$cc,maxw]+=" $(ratio "${f[4]}" "$t")"
            [[ -z ${f[5]} ]] || val[$cc,minw]+=" $(ratio "${f[5]}" "$t")"
            val[$cc,srtt]+=" ${f[6]}"
            val[$cc,csum]+=" ${f[7]}"
            for ((i = 1; i <= NCOMP; i++)); do val[$cc,c$i]+=" ${f[7 + i]}"; done
            [[ ${f[8 + NCOMP]} == - ]] || flagged[$cc]+="${flagged[$cc]:+ }${f[8 + NCOMP]}"
        done
    done

    # the table: one row per figure, the CCs side by side, "min med max"
    sayf '   %-22s' "(min med max of runs)"
    for cc in "${CC_LIST[@]}"; do sayf ' | %-22s' "$cc"; done
    say ""
    sayf '   %-22s' "runs ok"
    for cc in "${CC_LIST[@]}"; do sayf ' | %-22s' "${nok[$cc]:-0}/$RUNS"; done
    say ""
    table_row "AVR %" avr 100 "%.1f"
    table_row "max window / T %" maxw 100 "%.0f"
    table_row "min window / T %" minw 100 "%.0f"
    table_row "competitors Mbit/s" csum 1e-6 "%.2f"
    for ((i = 1; i <= NCOMP; i++)); do table_row "  CUBIC $i Mbit/s" "c$i" 1e-6 "%.2f"; done
    table_row "srtt ms (slot)" srtt 1e-3 "%.0f"
    sayf '   %-22s' "flags seen"
    for cc in "${CC_LIST[@]}"; do
        s=$(tr ' ' '\n' <<<"${flagged[$cc]:-}" | sed '/^$/d' | sort | uniq -c | awk '{ printf "%s%s x%d", (NR > 1 ? " " : ""), $2, $1 }')
        sayf ' | %-22s' "${s:--}"
    done
    say ""

    # cells.csv, and the medians for the closing table
    for cc in "${CC_LIST[@]}"; do
        row=("$queue" "$qdisc" "$qlimit" "$offl" "$(ratio "$nrt" 100)" "$EB" "$t" "$cc" "$RUNS" "${nok[$cc]:-0}")
        for s in avr maxw minw csum $(for ((i = 1; i <= NCOMP; i++)); do echo "c$i"; done) srtt; do
            # shellcheck disable=SC2086
            read -ra st <<<"$(stats ${val[$cc,$s]:-})"
            [[ ${st[0]} != - ]] || st=("" "" "")
            row+=("${st[@]}")
            [[ $s != avr && $s != csum ]] || med+=("${st[1]:--}")
        done
        csv cells.csv "${row[@]}" "$(tr ' ' '\n' <<<"${flagged[$cc]:-}" | sed '/^$/d' | sort | uniq -c | awk '{ printf "%s%s:%d", (NR > 1 ? "+" : ""), $2, $1 }')"
    done
    (IFS=$'\t'; printf '%s\t%s\t%s\tok\t%s\n' "$queue" "$offl" "$nrt" "${med[*]}") >>"$MEDIANS"
}

# --- main ------------------------------------------------------------------------------
ncells=$((${#QUEUE_LIST[@]} * ${#NRT_LIST[@]}))
say "tcpav-sweep: $META"
say "results: $OUT"
say "$ncells cells (${QUEUE_LIST[*]}) x NRT (${NRT_LIST[*]} %); slot: ${CC_LIST[*]}; $RUNS x $SECS s each:" \
    "about $((ncells * ${#CC_LIST[@]} * RUNS * (SECS + 1) / 60 + ncells / 10)) minutes"
printf '# tcpav-sweep %s\n' "$META" >"$OUT/runs.csv"
printf '# tcpav-sweep %s\n' "$META" >"$OUT/cells.csv"
hdr="queue,qdisc,queue_limit,offloads,nrt,capacity_bps,target_bps,slot_cc,run,status,goodput_bps,avr,window_s"
hdr+=",max_window_bps,max_window_avr,min_window_bps,min_window_avr,srtt_us,competitor_goodput_bps"
for ((i = 1; i <= NCOMP; i++)); do hdr+=",competitor${i}_goodput_bps"; done
echo "$hdr,flags,note" >>"$OUT/runs.csv"
hdr="queue,qdisc,queue_limit,offloads,nrt,capacity_bps,target_bps,slot_cc,runs,runs_ok"
for s in avr max_window_avr min_window_avr competitor_goodput_bps \
    $(for ((i = 1; i <= NCOMP; i++)); do echo "competitor${i}_goodput_bps"; done) srtt_us; do
    hdr+=",${s}_min,${s}_median,${s}_max"
done
echo "$hdr,flags" >>"$OUT/cells.csv"

start=$SECONDS
if [[ -n $LOCKFILE ]]; then
    exec {LOCK_FD}>>"$LOCKFILE" || die "cannot open BENCH_LOCK $LOCKFILE"
fi
for q in "${QUEUE_LIST[@]}"; do
    for nrt in "${NRT_LIST[@]}"; do
        cell_start=$SECONDS
        if [[ -n $LOCKFILE ]]; then
            flock "$LOCK_FD" || die "flock $LOCKFILE failed"
            ((SECONDS - cell_start < 2)) || say "   (waited $((SECONDS - cell_start)) s for $LOCKFILE)"
        fi
        cell_start=$SECONDS
        (cell "${q%%:*}" "${q#*:}" "$nrt")
        cell_cleanup
        if [[ -n $LOCKFILE ]]; then flock -u "$LOCK_FD"; fi
        say "   (cell done in $((SECONDS - cell_start)) s)"
    done
done

say ""
say "== medians per cell (AVR %; competitors' sum in Mbit/s) =="
sayf '   %-9s %-5s %4s' queue offl NRT
for cc in "${CC_LIST[@]}"; do sayf ' | %-14s' "$cc"; done
say ""
while IFS=$'\t' read -r q o n status rest; do
    sayf '   %-9s %-5s %4s' "$q" "$o" "$n"
    if [[ $status != ok ]]; then
        say " | cell failed"
        continue
    fi
    read -ra m <<<"$rest"
    for ((k = 0; k < ${#CC_LIST[@]}; k++)); do
        sayf ' | %-14s' "$(awk -v a="${m[2 * k]}" -v c="${m[2 * k + 1]}" 'BEGIN {
            printf "%s %s", (a == "-" ? "-" : sprintf("%.1f", 100 * a)), (c == "-" ? "-" : sprintf("%.2f", c / 1e6)) }')"
    done
    say ""
done <"$MEDIANS"
rm -f -- "$MEDIANS"
say ""
"$TOP/experiments/bench/sweep-plot.sh" "$OUT/cells.csv" | tee -a "$SUMMARY" || say "(no plots: sweep-plot.sh failed)"
say "done in $((SECONDS - start)) s; CSV, plots and raw data in $OUT"
