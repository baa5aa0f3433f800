#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# experiments/bench/tcpav-bench.sh BUILD -- `make bench`: benchmarks of tcp_av
# on network-namespace testbeds. It PRINTS figures and asserts nothing (the
# pass/fail checks live in tests/integration). Needs root. ~7 minutes.
#
#   experiments/bench/tcpav-bench.sh build          # BUILD holds bin/tcpavctl
#
# Sections (EB = 25 Mbit/s HTB bottleneck with a 100-packet pfifo, built by
# tb_up from experiments/testbed/testbed.sh; iperf3 is the traffic source):
#
# 1. AVR vs NRT. For N = 2 and 4 CUBIC competitors and NRT = 10..90 % step
#    10 (T = NRT * EB): one tcp_av flow (target T, given by a tcpavctl rule
#    on dport 5201) + N CUBIC flows, 10 s measured after 2 s omitted
#    (TB_OMIT=2), one run per point. Per row: N, NRT, T, tcp_av goodput, AVR,
#    the competitors' mean and min goodput, the fair share (EB - T) / N, the
#    aggregate goodput, and the baseline: the same flow with no target under
#    CUBIC, Reno and BBR (run once per N, on ports 5211.. so that neither
#    our rule nor the integration tests' rules, all on dport 5201, catch
#    it) expressed as the AVR it would have for that T (goodput / T).
# 2. Overhead of tcp_av with T = 0 (`iperf3 -C tcp_av`, no target) against
#    the built-in CUBIC (`-C cubic`): one bulk flow on an unshaped veth pair
#    (tb_pair_up, offloads on), alternating tcp_av / cubic 3 times, 5 s each,
#    with Reno as a third reference (tcp_av with T = 0 runs a Reno-like
#    elastic window). Prints each run with its retransmits, the means and
#    the ratio tcp_av/cubic next to the goal (>= 0.99). The pair is CPU-bound
#    at tens of Gbit/s and the flows do see losses there (CUBIC's runs show
#    retransmits more often), so the figure mixes the CC's CPU cost with its
#    response to those losses; other load on the machine moves it too.
# 3. Time to reach 95 % of the target from the start of the test: on the
#    25 Mbit/s testbed, 2 CUBIC flows run for 3 s, then a tcp_av flow with
#    T = 12.5 Mbit/s starts (TB_OMIT=0, 0.1 s intervals, 8 s). Reported: the
#    end of the first 0.1 s interval whose goodput is >= 0.95 T. Baseline: a
#    CUBIC flow in its place and the time until it reaches 0.95 of its fair
#    share EB / 3. Goodput per interval is taken at the receiver (an
#    `iperf3 -s -i 0.1 -J` of our own): the sender's intervals count bytes
#    written into the socket buffer and run ahead of the network. Times are
#    relative to iperf3's test start (both ends agree on it to within one
#    RTT, right after the data connection is made). As that first interval
#    is mostly slow start overshooting, a "sustained" time is printed next
#    to it: the end of the first 1 s window from which on every 1 s window
#    (sliding by 0.1 s) averages >= the threshold until the end of the run. 3
#    repetitions, medians.
#
# EB is the payload capacity of the bottleneck (docs/design.md §2.1): the HTB
# rate is set with tb_htb_rate_for_eb so that a saturated link carries EB of
# TCP payload (HTB counts whole 1514-byte frames for 1448 bytes of payload).
#
# Output: the printed figures, and under results/bench-YYYYmmdd-HHMMSS/ (at
# the top of the tree): avr_nrt.csv, baseline.csv, overhead.csv, ramp.csv,
# each starting with a "# ..." line that records the date, the kernel
# (uname -r), the iperf3 version, the git commit and capacity_bps (EB), then
# columns named as in the README's glossary, ratios as ratios (avr, nrt:
# 1 = 100 %; the printed tables show percent) and notes quoted as RFC 4180
# says; summary.txt (what was
# printed) and raw/ (every iperf3 JSON and `tcpavctl flows --json` sample).
#
# What it touches and leaves behind: loads tcp_av if it is not loaded (and
# then unloads it at the end; a tcp_av someone else loaded stays loaded),
# adds rules that match only its own receiver address (--dst 10.NET.2.1) and
# removes them, and builds namespaces bench<PID>-* / benchp<PID>-* that are
# torn down on exit, Ctrl-C and kill (tb_trap_cleanup + TB_EXTRA_CLEANUP).
#
# Sharing the machine: tcp_av, its rules and its flow table are global. If
# someone unloads tcp_av while the bench runs, the bench loads it again (and
# then unloads it at the end). A run whose flows did not get the intended
# congestion control or target (checked in iperf3's JSON and in a mid-run
# `tcpavctl flows --json` sample) is run once more; if the retry is also
# disturbed its row is marked "disturbed: ...".
#
# Environment:
#   TCPAVCTL              tcpavctl to use (default BUILD/bin/tcpavctl)
#   TCPAV_BENCH_NET       second octet of the testbed addresses (default 79,
#                         not the tests' 77, so our rules never match theirs)
#   TCPAV_BENCH_SECTIONS  which sections to run (default "1 2 3")
#   TCPAV_BENCH_RESULTS   results parent directory (default TOP/results)
# shellcheck source-path=SCRIPTDIR
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=lib.sh
. "$TOP/experiments/bench/lib.sh"   # say, sayf, bench_build_dir, ctl, rules, figures
BUILD=$(bench_build_dir "${1:-build}")
TCPAVCTL=${TCPAVCTL:-$BUILD/bin/tcpavctl}
SECTIONS=${TCPAV_BENCH_SECTIONS:-1 2 3}
export TB_NET=${TCPAV_BENCH_NET:-79}

# shellcheck source=../testbed/testbed.sh
. "$TOP/experiments/testbed/testbed.sh"
# shellcheck source=../testbed/flows.sh
. "$TOP/experiments/testbed/flows.sh"

if [[ $(id -u) != 0 ]]; then
    echo "tcpav-bench: needs root (network namespaces, BPF): run 'sudo make bench'" >&2
    exit 1
fi
for tool in iperf3 jq ip tc ss ethtool awk; do
    command -v "$tool" >/dev/null || { echo "tcpav-bench: $tool not found" >&2; exit 1; }
done
[[ -x $TCPAVCTL ]] || { echo "tcpav-bench: $TCPAVCTL not found (run 'make all')" >&2; exit 1; }

EB=25000000                   # bit/s of payload the bottleneck carries
TBNAME=bench$$                # 25 Mbit/s bottleneck testbed
PAIRNAME=benchp$$             # unshaped veth pair
MY_DST=10.$TB_NET.2.1         # our receiver: our rules match only this address
RULE_PORT=5201                # tcp_av target flow (rule on this port)
BASE_PORT0=5211               # section 1 baselines (no rule matches them)
PAIR_PORT=5251                # section 2
AVR_SECS=10 AVR_OMIT=2        # section 1
OVH_SECS=5 OVH_REPS=3         # section 2
RAMP_T=12500000 RAMP_PRE=3 RAMP_SECS=8 RAMP_REPS=3   # section 3

STAMP=$(date +%Y%m%d-%H%M%S)
OUT=${TCPAV_BENCH_RESULTS:-$TOP/results}/bench-$STAMP
RAW=$OUT/raw
mkdir -p "$RAW"
SUMMARY=$OUT/summary.txt
: >"$SUMMARY"

commit=$(git -c safe.directory="$TOP" -C "$TOP" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if [[ $commit != unknown ]] &&
    ! git -c safe.directory="$TOP" -C "$TOP" diff --quiet HEAD -- 2>/dev/null; then
    commit+="-dirty"
fi
META="date=$(date -Iseconds) kernel=$(uname -r) iperf3=$(iperf3 --version 2>/dev/null | head -1 | awk '{print $2}') commit=$commit capacity_bps=$EB host=$(hostname)"

# --- output helpers --------------------------------------------------------
# csv_init FILE HEADER: the "# meta" line, then the column names.
csv_init() { printf '# tcpav-bench %s\n%s\n' "$META" "$2" >"$OUT/$1"; }
# csv FILE FIELD...: one row; a field with a comma, quote or line break is
# quoted as RFC 4180 says (notes list several problems, comma-separated)
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
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b + 0 == 0) print "-"; else printf "%.1f", 100 * a / b }'; }
# ratio A B: A / B for the CSV files, which give ratios as ratios (README's
# glossary: avr, nrt); empty when undefined

# --- tcp_av, its rules -------------------------------------------------------
WE_LOADED=0


# Loads tcp_av unless loaded. After someone else's unload, tcp_av stays
# registered (unpinned) until its last socket closes and load refuses: retry.
ensure_loaded() {
    local i
    tcpav_loaded && return 0
    for i in $(seq 20); do
        if ctl load >/dev/null 2>&1; then
            WE_LOADED=1
            say "  (tcp_av was not loaded: loaded it)"
            return 0
        fi
        tcpav_loaded && return 0
        sleep 0.5
    done
    ctl load >/dev/null   # one last time, with its error message
    WE_LOADED=1
}


# set_rule RATE: exactly one rule of ours: dport 5201 dst MY_DST -> tcp_av at RATE.
set_rule() {
    local rate=$1 have i
    ensure_loaded
    have=$(ctl rule list --json 2>/dev/null | jq -r --arg a "$MY_DST/" --argjson r "$rate" --argjson p $RULE_PORT \
        '[.[]? | select((.dst // "") | startswith($a))] | if length == 1 and .[0].cc == "tcp_av"
         and .[0].target_bps == $r and .[0].dport == $p then "yes" else "no" end' 2>/dev/null || echo no)
    [[ $have == yes ]] && return 0
    del_my_rules
    for i in 1 2 3 4 5; do
        ctl rule add --dport $RULE_PORT --dst "$MY_DST" --cc tcp_av --rate "$rate" >/dev/null 2>&1 && return 0
        sleep 0.5
        ensure_loaded   # someone unloaded tcp_av under us
    done
    ctl rule add --dport $RULE_PORT --dst "$MY_DST" --cc tcp_av --rate "$rate" >/dev/null
}

bench_cleanup() {
    if [[ -e /sys/fs/bpf/tcpav ]]; then
        del_my_rules
    fi
    if ((WE_LOADED)); then
        ctl unload >/dev/null 2>&1 || true
    fi
}
TB_EXTRA_CLEANUP=bench_cleanup   # read by the trap of tb_trap_cleanup
tb_trap_cleanup "$TBNAME"
tb_trap_cleanup "$PAIRNAME"

# --- measurement helpers -----------------------------------------------------
# sender_cc FILE: the congestion control iperf3's sender ended on.

# flow_target FLOWSJSON SRC DST: the target tcpavctl showed for that flow
# ("none" if it was not in the table), plus its flags.
flow_target() {
    jq -r --arg s "$2" --arg d "$3" \
        '[.[]? | select(.src == $s and .dst == $d)] | if length == 0 then "none -"
         else (.[-1] | "\(.target_bps) \(if .flags == "" then "-" else .flags end)") end' "$1" 2>/dev/null ||
        echo "none -"
}

# srv_intervals NS PORT OUT: an iperf3 server of our own with 0.1 s receiver
# intervals, JSON to OUT; sets SRV_PID once it listens.
srv_intervals() {
    local i
    ip netns exec "$1" iperf3 -s -1 -p "$2" -i 0.1 -J </dev/null >"$3" 2>/dev/null &
    SRV_PID=$!
    for i in $(seq 100); do
        ip netns exec "$1" ss -ltnpH "sport = :$2" 2>/dev/null | grep -q "pid=$SRV_PID," && return 0
        kill -0 "$SRV_PID" 2>/dev/null || break
        sleep 0.05
    done
    echo "tcpav-bench: iperf3 server on $1 port $2 did not come up" >&2
    return 1
}

# --- section 1 ---------------------------------------------------------------
declare -A BASE_G=()

# baseline N CC: the flow without target under CC + N CUBIC flows.
baseline() {
    local n=$1 cc=$2 d g attempt ccs i note="" ok cmean cmin
    for attempt in 1 2; do
        d=$RAW/s1-base-n$n-$cc
        [[ $attempt == 1 ]] || d+=-retry
        ccs=("$cc")
        for ((i = 0; i < n; i++)); do ccs+=(cubic); done
        TB_PORT0=$BASE_PORT0 TB_OMIT=$AVR_OMIT tb_flows_start "$d" $AVR_SECS "${ccs[@]}"
        mapfile -t g < <(tb_flows_wait "$d" | awk '{print $2}')
        ok=1 note=""
        [[ $(sender_cc "$d/flow-0.json") == "$cc" ]] || { ok=0; note="flow on $(sender_cc "$d/flow-0.json") not $cc"; }
        for ((i = 0; i <= n; i++)); do
            [[ ${g[i]:-0} != 0 ]] || { ok=0; note="flow $i failed"; }
        done
        ((ok)) && break
        say "  (baseline N=$n $cc disturbed: $note; running it again)"
    done
    BASE_G[$n,$cc]=${g[0]}
    read -r cmean cmin < <(printf '%s\n' "${g[@]:1}" | awk '{ s += $1; if (NR == 1 || $1 < m) m = $1 } END { printf "%.0f %.0f\n", s / NR, m }')
    csv baseline.csv "$n" "$cc" "${g[0]}" "$cmean" "$cmin" "$(printf '%s\n' "${g[@]}" | awk '{ s += $1 } END { printf "%.0f", s }')" "${note:+disturbed: $note}"
    sayf '  N=%d  %-5s  flow %6s Mbit/s   competitors mean %6s  min %6s Mbit/s%s\n' \
        "$n" "$cc" "$(mbit "${g[0]}")" "$(mbit "$cmean")" "$(mbit "$cmin")" "${note:+   disturbed: $note}"
}

# avr_point N NRT
avr_point() {
    local n=$1 nrt=$2 t d g attempt ccs i note ok tgt flags cc0 sport cmean cmin fair tot
    t=$((nrt * EB / 100))
    for attempt in 1 2; do
        d=$RAW/s1-avr-n$n-nrt$nrt
        [[ $attempt == 1 ]] || d+=-retry
        set_rule "$t"
        ccs=(rule)
        for ((i = 0; i < n; i++)); do ccs+=(cubic); done
        TB_PORT0=$RULE_PORT TB_OMIT=$AVR_OMIT tb_flows_start "$d" $AVR_SECS "${ccs[@]}"
        sleep $((AVR_OMIT + AVR_SECS / 2))
        ctl flows --json >"$d/flows.json" 2>/dev/null || echo '[]' >"$d/flows.json"
        mapfile -t g < <(tb_flows_wait "$d" | awk '{print $2}')
        ok=1 note=""
        cc0=$(sender_cc "$d/flow-0.json")
        sport=$(local_port "$d/flow-0.json")
        read -r tgt flags < <(flow_target "$d/flows.json" "$TB_SND_ADDR:$sport" "$MY_DST:$RULE_PORT")
        [[ $cc0 == tcp_av ]] || { ok=0; note="target flow on $cc0"; }
        [[ $tgt == "$t" ]] || { ok=0; note+="${note:+, }target in tcpavctl flows: $tgt"; }
        for ((i = 1; i <= n; i++)); do
            [[ $(sender_cc "$d/flow-$i.json") == cubic ]] || { ok=0; note+="${note:+, }competitor $i on $(sender_cc "$d/flow-$i.json")"; }
        done
        for ((i = 0; i <= n; i++)); do
            [[ ${g[i]:-0} != 0 ]] || { ok=0; note+="${note:+, }flow $i failed"; }
        done
        ((ok)) && break
        say "  (N=$n NRT=$nrt % disturbed: $note; running it again)"
    done
    local stats
    stats=$(printf '%s\n' "${g[@]}" | awk -v n="$n" -v eb=$EB -v t="$t" '
        NR == 1 { a = $1; tot = $1; next }
        { s += $1; tot += $1; if (NR == 2 || $1 < m) m = $1 }
        END { printf "%.0f %.0f %.0f %.0f", s / n, m, (eb - t) / n, tot }')
    read -r cmean cmin fair tot <<<"$stats"
    local bc br bb
    bc=$(pct "${BASE_G[$n,cubic]:-}" "$t") br=$(pct "${BASE_G[$n,reno]:-}" "$t") bb=$(pct "${BASE_G[$n,bbr]:-}" "$t")
    csv avr_nrt.csv "$n" "$(ratio "$t" "$EB")" "$t" "${g[0]}" "$(ratio "${g[0]}" "$t")" "$cmean" "$cmin" "$fair" "$tot" \
        "$(ratio "${BASE_G[$n,cubic]:-}" "$t")" "$(ratio "${BASE_G[$n,reno]:-}" "$t")" \
        "$(ratio "${BASE_G[$n,bbr]:-}" "$t")" "$flags" "${note:+disturbed: $note}"
    sayf '  %d  %3d  %6s  %7s  %6s  %7s  %7s  %7s  %6s | %6s %6s %6s  %s\n' "$n" "$nrt" "$(mbit "$t")" \
        "$(mbit "${g[0]}")" "$(pct "${g[0]}" "$t")" "$(mbit "$cmean")" "$(mbit "$cmin")" "$(mbit "$fair")" \
        "$(mbit "$tot")" "$bc" "$br" "$bb" "$([[ $flags == - ]] || echo "$flags")${note:+ disturbed: $note}"
}

section1() {
    local n nrt cc
    say ""
    say "== 1. AVR vs NRT: 1 tcp_av flow (target T by rule) + N CUBIC, EB = $(mbit $EB) Mbit/s HTB, 100-packet queue, ${AVR_SECS} s after ${AVR_OMIT} s omitted, 1 run per point =="
    csv_init baseline.csv "n,cc,goodput_bps,competitor_mean_bps,competitor_min_bps,total_bps,note"
    csv_init avr_nrt.csv "n,nrt,target_bps,tcpav_goodput_bps,avr,competitor_mean_bps,competitor_min_bps,fair_remainder_bps,total_bps,baseline_cubic_avr,baseline_reno_avr,baseline_bbr_avr,tcpav_flags,note"
    tb_up "$TBNAME" "$(tb_htb_rate_for_eb "$EB")" 100
    ensure_loaded
    for n in 2 4; do
        say ""
        say "-- N = $n: baseline, the flow without target (port $BASE_PORT0) + $n CUBIC"
        for cc in cubic reno bbr; do baseline "$n" "$cc"; done
        say "-- N = $n: tcp_av at T (Mbit/s). fair = (EB - T) / N; baseline = goodput / T of the no-target flow above"
        sayf '  %s  %3s  %6s  %7s  %6s  %7s  %7s  %7s  %6s | %6s %6s %6s\n' N NRT T tcp_av "AVR%" "c.mean" "c.min" fair total \
            "cubic%" "reno%" "bbr%"
        for nrt in 10 20 30 40 50 60 70 80 90; do avr_point "$n" "$nrt"; done
    done
    del_my_rules
    tb_down "$TBNAME"
}

# --- section 2 ---------------------------------------------------------------
section2() {
    local rep cc f bps got attempt ma mc mr retr
    local -A sum=()
    say ""
    say "== 2. Overhead: 1 bulk flow on an unshaped veth pair (offloads on), tcp_av with T = 0 (-C tcp_av) vs built-in CUBIC, ${OVH_REPS} x ${OVH_SECS} s alternating; Reno as a reference =="
    csv_init overhead.csv "rep,cc,throughput_bps,retransmits,sender_cc"
    tb_pair_up "$PAIRNAME"
    for ((rep = 1; rep <= OVH_REPS; rep++)); do
        for cc in tcp_av cubic reno; do
            for attempt in 1 2; do
                [[ $cc != tcp_av ]] || ensure_loaded
                f=$RAW/s2-$cc-$rep.json
                [[ $attempt == 1 ]] || f=$RAW/s2-$cc-$rep-retry.json
                tb_iperf_servers "$TB_RCV" $PAIR_PORT
                tb_iperf_client "$TB_SND" "$TB_RCV_ADDR" $PAIR_PORT $OVH_SECS "$f" -C "$cc" >/dev/null
                tb_wait "$TB_LAST_PID" || true
                bps=$(tb_goodput_bps "$f" 2>/dev/null || echo 0)
                got=$(sender_cc "$f")
                [[ $got != "$cc" || $bps == 0 ]] || break
                say "  (run $rep $cc disturbed: sender on $got, $bps bit/s; running it again)"
            done
            retr=$(jq -r '.end.sum_sent.retransmits // "-"' "$f" 2>/dev/null || echo -)
            csv overhead.csv "$rep" "$cc" "$bps" "$retr" "$got"
            sayf '  run %d  %-6s  %9s Mbit/s  (%s retransmits)\n' "$rep" "$cc" "$(mbit "$bps")" "$retr"
            sum[$cc]=$(awk -v a="${sum[$cc]:-0}" -v b="$bps" 'BEGIN { printf "%.0f", a + b }')
        done
    done
    ma=$(awk -v s="${sum[tcp_av]}" -v n=$OVH_REPS 'BEGIN { printf "%.0f", s / n }')
    mc=$(awk -v s="${sum[cubic]}" -v n=$OVH_REPS 'BEGIN { printf "%.0f", s / n }')
    mr=$(awk -v s="${sum[reno]}" -v n=$OVH_REPS 'BEGIN { printf "%.0f", s / n }')
    sayf '  mean   tcp_av %s   cubic %s   reno %s Mbit/s\n' "$(mbit "$ma")" "$(mbit "$mc")" "$(mbit "$mr")"
    sayf '  ratio  tcp_av/cubic %s   (goal >= 0.99)      [reference: tcp_av/reno %s]\n' \
        "$(awk -v a="$ma" -v c="$mc" 'BEGIN { printf "%.3f", c ? a / c : 0 }')" \
        "$(awk -v a="$ma" -v c="$mr" 'BEGIN { printf "%.3f", c ? a / c : 0 }')"
    tb_down "$PAIRNAME"
}

# --- section 3 ---------------------------------------------------------------
# ramp_times SERVERJSON THRESHOLD: prints "T95 SUSTAINED" (seconds, "-" if
# never): the end of the first 0.1 s receiver interval with goodput >=
# THRESHOLD, and the end of the first 1 s window (10 intervals) from which
# on every 1 s window averages >= THRESHOLD up to the end of the run.
# A short last interval (< 50 ms) is left out: its rate is noise.
ramp_times() {
    jq -r --argjson th "$2" '
        [.intervals[]?.sum | select(.seconds >= 0.05)] as $iv
        | ([$iv[] | select(.bits_per_second >= $th) | .end] | if length > 0 then .[0] * 1000 | round / 1000 else "-" end) as $first
        | [range(0; ($iv | length) - 9) as $i | [$iv[$i:$i + 10][].bits_per_second] | add / 10] as $ma
        | ([range(0; $ma | length) as $k | select(all($ma[$k:][]; . >= $th)) | $iv[$k + 9].end]
           | if length > 0 then .[0] * 1000 | round / 1000 else "-" end) as $sus
        | "\($first) \($sus)"' "$1" 2>/dev/null || echo "- -"
}

# secs T: seconds with one decimal, ">RAMP_SECS" for never (empty or inf).
secs() { if [[ -z $1 || $1 == inf ]]; then echo ">$RAMP_SECS"; else awk -v t="$1" 'BEGIN { printf "%.1f", t }'; fi; }
# med T...: the median of times, "inf" for never.
med() { secs "$(printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')"; }

section3() {
    local rep cc port goal thr d pc1 pc2 srv t95 t95s gp attempt ok note tgt flags sport
    local -a t_av=() t_cu=() s_av=() s_cu=()
    say ""
    say "== 3. Time to 95 %: 2 CUBIC flows run ${RAMP_PRE} s, then a newcomer for ${RAMP_SECS} s; first 0.1 s receiver interval >= 0.95 x goal =="
    say "   tcp_av newcomer: goal T = $(mbit $RAMP_T) Mbit/s; CUBIC newcomer (baseline): goal its fair share EB/3 = $(mbit $((EB / 3))) Mbit/s"
    csv_init ramp.csv "rep,newcomer_cc,goal_bps,threshold_bps,t95_s,t95_sustained_s,newcomer_goodput_bps,note"
    tb_up "$TBNAME" "$(tb_htb_rate_for_eb "$EB")" 100
    for ((rep = 1; rep <= RAMP_REPS; rep++)); do
        for cc in tcp_av cubic; do
            for attempt in 1 2; do
                d=$RAW/s3-$cc-$rep
                [[ $attempt == 1 ]] || d+=-retry
                mkdir -p "$d"
                if [[ $cc == tcp_av ]]; then
                    set_rule $RAMP_T
                    port=$RULE_PORT goal=$RAMP_T
                else
                    port=5204 goal=$((EB / 3))
                fi
                thr=$(awk -v g="$goal" 'BEGIN { printf "%.0f", 0.95 * g }')
                tb_iperf_servers "$TB_RCV" 5202 5203
                tb_iperf_client "$TB_SND" "$TB_RCV_ADDR" 5202 $((RAMP_PRE + RAMP_SECS + 2)) "$d/cubic-1.json" -C cubic >/dev/null
                pc1=$TB_LAST_PID
                tb_iperf_client "$TB_SND" "$TB_RCV_ADDR" 5203 $((RAMP_PRE + RAMP_SECS + 2)) "$d/cubic-2.json" -C cubic >/dev/null
                pc2=$TB_LAST_PID
                srv_intervals "$TB_RCV" "$port" "$d/newcomer-server.json"
                srv=$SRV_PID
                sleep $RAMP_PRE
                if [[ $cc == tcp_av ]]; then
                    tb_iperf_client "$TB_SND" "$TB_RCV_ADDR" "$port" $RAMP_SECS "$d/newcomer.json" -O 0 -i 0.1 >/dev/null
                else
                    tb_iperf_client "$TB_SND" "$TB_RCV_ADDR" "$port" $RAMP_SECS "$d/newcomer.json" -O 0 -i 0.1 -C cubic >/dev/null
                fi
                sleep 2
                ctl flows --json >"$d/flows.json" 2>/dev/null || echo '[]' >"$d/flows.json"
                tb_wait "$TB_LAST_PID" || true
                wait "$srv" 2>/dev/null || true
                # the competitors are not needed any more
                kill "$pc1" "$pc2" 2>/dev/null || true
                wait "$pc1" "$pc2" 2>/dev/null || true
                kill_ns_procs "$TB_RCV"
                kill_ns_procs "$TB_SND"
                read -r t95 t95s < <(ramp_times "$d/newcomer-server.json" "$thr")
                gp=$(jq -r '.end.sum_received.bits_per_second // 0 | floor' "$d/newcomer-server.json" 2>/dev/null || echo 0)
                ok=1 note="" flags=-
                [[ $(sender_cc "$d/newcomer.json") == "$cc" ]] || { ok=0; note="newcomer on $(sender_cc "$d/newcomer.json")"; }
                if [[ $cc == tcp_av ]]; then
                    sport=$(local_port "$d/newcomer.json")
                    read -r tgt flags < <(flow_target "$d/flows.json" "$TB_SND_ADDR:$sport" "$MY_DST:$port")
                    [[ $tgt == "$RAMP_T" ]] || { ok=0; note+="${note:+, }target in tcpavctl flows: $tgt"; }
                fi
                [[ $gp != 0 ]] || { ok=0; note+="${note:+, }newcomer failed"; }
                ((ok)) && break
                say "  (rep $rep $cc disturbed: $note; running it again)"
            done
            [[ $t95 != - ]] || t95=""
            [[ $t95s != - ]] || t95s=""
            csv ramp.csv "$rep" "$cc" "$goal" "$thr" "$t95" "$t95s" "$gp" "${note:+disturbed: $note}"
            sayf '  rep %d  %-6s  t95 %5s s   sustained %5s s   goodput over %d s %5s Mbit/s%s\n' "$rep" "$cc" \
                "$(secs "$t95")" "$(secs "$t95s")" "$RAMP_SECS" "$(mbit "$gp")" "${note:+  disturbed: $note}"
            if [[ $cc == tcp_av ]]; then
                t_av+=("${t95:-inf}") s_av+=("${t95s:-inf}")
            else
                t_cu+=("${t95:-inf}") s_cu+=("${t95s:-inf}")
            fi
        done
    done
    sayf '  median  tcp_av t95 %s s (sustained %s s)   cubic, to its fair share: t95 %s s (sustained %s s)\n' \
        "$(med "${t_av[@]}")" "$(med "${s_av[@]}")" "$(med "${t_cu[@]}")" "$(med "${s_cu[@]}")"
    del_my_rules
    tb_down "$TBNAME"
}

# --- main ----------------------------------------------------------------------
say "tcpav-bench: $META"
say "results: $OUT"
if tcpav_loaded; then
    say "tcp_av: already loaded (left loaded at the end)"
else
    say "tcp_av: not loaded (loaded now, unloaded at the end)"
fi
ensure_loaded
start=$SECONDS
for s in $SECTIONS; do
    case $s in
    1) section1 ;;
    2) section2 ;;
    3) section3 ;;
    *) echo "tcpav-bench: unknown section '$s'" >&2; exit 1 ;;
    esac
done
say ""
say "done in $((SECONDS - start)) s; CSV and raw data in $OUT"
