#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# experiments/bench/avmon-bench.sh BUILD -- `make bench`, after tcpav-bench.sh:
# benchmarks of avmon(1), the pcap-based fairness monitor, against tcptrace,
# tshark and tcpdump on a network-namespace testbed. It PRINTS figures and
# asserts nothing. Needs root. About 2 minutes. tcp_av is not used (nor
# loaded, nor any of its rules touched): all traffic is plain
# `iperf3 -C cubic`.
#
#   experiments/bench/avmon-bench.sh build          # BUILD holds bin/avmon
#
# Testbed: one unshaped veth pair (tb_pair_up from
# experiments/testbed/testbed.sh), 10.NET.3.1 (snd) <-> 10.NET.3.2 (rcv),
# with tso/gso/gro turned OFF on both ends, so every packet on the veth is
# one MTU-sized segment (1514-byte frames, 1448 bytes of payload) and
# packets captured can be compared with TCP segments sent. All captures run
# in the receiver's namespace on rcv0. Both sections use the same pair.
#
# 1. Offline. A capture of >= 500k packets: tcpdump -i rcv0 -s 96 (a 96-byte
#    snaplen) -B 131072 -w FILE, while FLOWS (2) iperf3 CUBIC flows each send
#    CAP_BYTES (500 MB) with -n, so the file holds whole connections, SYN to
#    FIN (~720k packets). A file under 500k packets only gives a warning line.
#    On that file, after one read to warm the page cache, REPS (5) rounds of
#      avmon -r FILE --interval 0 --format json > /dev/null   (full summary)
#      tcptrace -l FILE > /dev/null
#      tshark -n -q -r FILE -z conv,tcp > /dev/null
#    each under /usr/bin/time -v (maximum RSS, user and system CPU; wall time
#    from bash's EPOCHREALTIME around it). Printed: every run, then per tool
#    the median wall time, packets/s (packets in the file / median wall
#    time) and the largest max RSS, and the ratios avmon/tcptrace and
#    avmon/tshark of those rates (goal: avmon >= 2 x tcptrace). Then memory
#    against packet count: avmon's max RSS on the first 100k packets
#    (editcap -F pcap -r: the same format as the file) and on the whole file.
# 2. Live. On the same veth pair at iperf3's maximum rate (FLOWS CUBIC flows,
#    offloads off as above), three separate capture runs of LIVE_SECS (10 s)
#    each, stopped with SIGINT: iperf3 starts 1 s into the capture and runs
#    LIVE_IPERF (8) s, so the capture spans the whole test.
#      avmon -i rcv0 --interval 0 --format json tcp
#      tcpdump -i rcv0 -w /dev/null tcp
#      tcpdump -i rcv0 -s 256 -B 32768 -w /dev/null tcp   (a reference: the
#          same snaplen and buffer as avmon's defaults; plain tcpdump's are
#          262144 bytes and 2 MiB)
#    Reported per run: libpcap's counters (tcpdump's "captured / received by
#    filter / dropped by kernel" lines; avmon's summary capture.pcap_received,
#    pcap_dropped, pcap_if_dropped, or a note if its summary has no "drop"
#    key), the packets avmon analysed, the TCP segments the two namespaces'
#    kernels sent meanwhile (OutSegs + RetransSegs of /proc/net/snmp in both
#    namespaces: exactly the TCP packets that crossed the veth, ACKs and the
#    iperf3 control connection included), iperf3's own count of data
#    segments (bytes sent / MSS + retransmits), the iperf3 goodput, and the
#    CPU time and peak RSS (VmHWM) of the capture process. On 2 cores the
#    capture competes with both iperf3 ends for CPU, so the traffic rate is
#    not the same from run to run: read the drops next to the goodput.
#
# Output: the printed figures, and under results/avmon-bench-YYYYmmdd-HHMMSS/
# (at the top of the tree): summary.txt (what was printed), avmon-bench.csv
# (one row per run; its first line "# avmon-bench date=... kernel=...
# avmon=... libpcap=... tcptrace=... tshark=... tcpdump=... iperf3=...
# commit=..." records the versions, then the column names) and raw/ (iperf3
# JSON, avmon's JSON summaries, the tools' stderr, /usr/bin/time -v output).
# The capture itself (~80 MB) is deleted at the end unless
# AVMON_BENCH_KEEP_CAPTURE=1, which moves it to the results directory.
#
# What it touches and leaves behind: namespaces avb<PID>-snd/-rcv and a work
# directory under /tmp, removed on exit, Ctrl-C and kill (tb_trap_cleanup +
# TB_EXTRA_CLEANUP). avmon is copied into the work directory at the start, so
# a rebuild of BUILD during the run does not change what is measured.
#
# Needs: iperf3 jq iproute2 ethtool tcpdump tcptrace tshark (capinfos and
# editcap come with it, from wireshark-common) and /usr/bin/time (Debian
# package `time`).
#
# Environment:
#   AVMON                  avmon to use (default BUILD/bin/avmon)
#   AVMON_BENCH_NET        second octet of the testbed addresses (default 83)
#   AVMON_BENCH_SECTIONS   which sections to run (default "1 2")
#   AVMON_BENCH_RESULTS    results parent directory (default TOP/results)
#   AVMON_BENCH_KEEP_CAPTURE  1: keep section 1's capture in the results
# shellcheck source-path=SCRIPTDIR
set -euo pipefail
export LC_ALL=C

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=lib.sh
. "$TOP/experiments/bench/lib.sh"   # say, sayf, bench_build_dir
BUILD=$(bench_build_dir "${1:-build}")
AVMON_SRC=${AVMON:-$BUILD/bin/avmon}
SECTIONS=${AVMON_BENCH_SECTIONS:-1 2}
export TB_NET=${AVMON_BENCH_NET:-83}

# shellcheck source=../testbed/testbed.sh
. "$TOP/experiments/testbed/testbed.sh"

if [[ $(id -u) != 0 ]]; then
    echo "avmon-bench: needs root (network namespaces, packet capture): run 'sudo make bench'" >&2
    exit 1
fi
missing=""
for tool in iperf3 jq ip ethtool awk tcpdump tcptrace tshark capinfos editcap /usr/bin/time; do
    command -v "$tool" >/dev/null || missing+=" $tool"
done
if [[ -n $missing ]]; then
    echo "avmon-bench: not found:$missing (apt-get install -y iperf3 jq iproute2 ethtool tcpdump tcptrace tshark time)" >&2
    exit 1
fi
[[ -x $AVMON_SRC ]] || { echo "avmon-bench: $AVMON_SRC not found (run 'make all')" >&2; exit 1; }

NAME=avb$$                    # namespaces avb<PID>-snd / avb<PID>-rcv
FLOWS=2                       # iperf3 CUBIC flows (sections 1 and 2)
CAP_BYTES=500M                # section 1: bytes per flow (iperf3 -n)
MIN_PKTS=500000               # section 1: the capture should hold at least this
SMALL_PKTS=100000             # section 1: the small prefix for the memory figure
REPS=5                        # section 1: repetitions per tool (median)
LIVE_SECS=10 LIVE_LEAD=1 LIVE_IPERF=8   # section 2: capture length, iperf3 start and length
PORT=5301                     # first iperf3 port; every run takes new ones

STAMP=$(date +%Y%m%d-%H%M%S)
OUT=${AVMON_BENCH_RESULTS:-$TOP/results}/avmon-bench-$STAMP
RAW=$OUT/raw
mkdir -p "$RAW"
SUMMARY=$OUT/summary.txt
CSV=$OUT/avmon-bench.csv
: >"$SUMMARY"
WORK=$(mktemp -d /tmp/avmon-bench.XXXXXX)
# shellcheck disable=SC2016  # expanded when the trap runs
TB_EXTRA_CLEANUP='rm -rf -- "$WORK"'   # read by the trap of tb_trap_cleanup
tb_trap_cleanup "$NAME"
cp "$AVMON_SRC" "$WORK/avmon"
AVMON=$WORK/avmon

# --- versions, the "# meta" line ---------------------------------------------
commit=$(git -c safe.directory="$TOP" -C "$TOP" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if [[ $commit != unknown ]] &&
    ! git -c safe.directory="$TOP" -C "$TOP" diff --quiet HEAD -- 2>/dev/null; then
    commit+="-dirty"
fi
first_match() { sed -n "s/$1/\\1/p" | sed -n 1p; }   # first_match SED_RE (one \(group\))
v_avmon=$("$AVMON" -V 2>&1 | first_match '^avmon \([^ ]*\).*' || true)
v_pcap=$("$AVMON" -V 2>&1 | first_match '.*libpcap version \([0-9][0-9.]*\).*' || true)
v_tcptrace=$(tcptrace -v 2>&1 | first_match '.*version \([0-9][0-9.]*\).*' || true)
v_tshark=$(tshark -v 2>/dev/null | first_match '^TShark[^0-9]*\([0-9][0-9.]*\).*' || true)
v_tcpdump=$(tcpdump --version 2>&1 | first_match '^tcpdump version \([^ ]*\).*' || true)
v_iperf3=$(iperf3 --version 2>/dev/null | first_match '^iperf \([^ ]*\).*' || true)
META="date=$(date -Iseconds) kernel=$(uname -r) avmon=${v_avmon:-?} libpcap=${v_pcap:-?} tcptrace=${v_tcptrace:-?} tshark=${v_tshark:-?} tcpdump=${v_tcpdump:-?} iperf3=${v_iperf3:-?} commit=$commit host=$(hostname) cpus=$(nproc)"

# --- output helpers --------------------------------------------------------
CSV_COLS=section,tool,input,rep,packets,wall_s,pkts_per_s,user_s,sys_s,max_rss_kib,exit_status,captured,received,dropped,if_dropped,kernel_segments,iperf3_segments,iperf3_goodput_bps,instructions
printf '# avmon-bench %s\n%s\n' "$META" "$CSV_COLS" >"$CSV"
csv() {
    local IFS=,
    printf '%s\n' "$*" >>"$CSV"
}
# calc EXPR [VAR=VALUE...]: awk arithmetic, printed with %.6g unless EXPR formats
calc() {
    local expr=$1 args=() a
    shift
    for a in "$@"; do args+=(-v "$a"); done
    awk "${args[@]}" "BEGIN { print $expr }"
}
fmt() { awk -v f="$1" -v x="$2" 'BEGIN { if (x == "") print "-"; else printf f, x }'; }
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
maxof() { printf '%s\n' "$@" | sort -g | tail -n 1; }
mbit() { awk -v b="$1" 'BEGIN { if (b == "" || b == "-") print "-"; else printf "%.0f", b / 1e6 }'; }
mib() { fmt '%.1f' "$(calc 'k / 1024' k="$1")"; }
mpps() { fmt '%.3f' "$(calc 'p / 1e6' p="$1")"; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b + 0 == 0) print "-"; else printf "%.2f", 100 * a / b }'; }

# next_ports N: sets PORTS to N fresh iperf3 ports.
next_ports() {
    local i
    PORTS=()
    for ((i = 0; i < $1; i++)); do
        PORTS+=("$PORT")
        PORT=$((PORT + 1))
    done
}

# tcp_segs NS: TCP segments the namespace's kernel sent (OutSegs excludes
# retransmissions, RetransSegs counts them).
tcp_segs() {
    # shellcheck disable=SC2016  # awk's $i
    ip netns exec "$1" awk '/^Tcp:/ {
        if (!h) { for (i = 1; i <= NF; i++) c[$i] = i; h = 1 }
        else print $(c["OutSegs"]) + $(c["RetransSegs"]) }' /proc/net/snmp
}
both_segs() { echo $(($(tcp_segs "$TB_SND") + $(tcp_segs "$TB_RCV"))); }

# iperf_sum FILE...: "goodput_bps data_segments cc" summed over iperf3 client
# JSON files (segments: bytes sent / MSS + retransmits; cc: the sender's
# congestion control, "mixed" if they differ, "?" if a file has an error).
iperf_sum() {
    jq -rs '
        [ .[] | if has("error") or (.end.sum_sent == null) then null else . end ] as $r
        | if any($r[]; . == null) then "- - ?"
          else
            ($r | map(.end.sum_received.bits_per_second) | add | floor) as $g
            | ($r | map((.end.sum_sent.bytes / (.start.tcp_mss_default // 1448) | ceil)
                        + (.end.sum_sent.retransmits // 0)) | add) as $s
            | ($r | map(.end.sender_tcp_congestion // "?") | unique) as $cc
            | "\($g) \($s) \(if ($cc | length) == 1 then $cc[0] else "mixed" end)"
          end' "$@" 2>/dev/null || echo "- - ?"
}

# tcpdump_stats FILE: "captured received dropped if_dropped" from tcpdump's
# closing lines on stderr ("-" where a line is missing).
tcpdump_stats() {
    awk '/packets captured/ { c = $1 } /received by filter/ { r = $1 }
         /dropped by kernel/ { d = $1 } /dropped by interface/ { i = $1 }
         END { print (c == "" ? "-" : c), (r == "" ? "-" : r), (d == "" ? "-" : d), (i == "" ? "-" : i) }' "$1"
}

# stop_capture PID: SIGINT, then wait (<= 10 s, then SIGTERM / SIGKILL);
# sets CAP_RC to its exit status.
stop_capture() {
    local pid=$1 i
    kill -INT "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        say "  (capture $pid did not stop on SIGINT within 10 s: SIGTERM)"
        kill -TERM "$pid" 2>/dev/null || true
        sleep 2
        kill -KILL "$pid" 2>/dev/null || true
    fi
    CAP_RC=0
    wait "$pid" 2>/dev/null || CAP_RC=$?
}

# wait_listening FILE PID: until tcpdump writes "listening on" (<= 5 s).
wait_listening() {
    local i
    for ((i = 0; i < 50; i++)); do
        grep -q 'listening on' "$1" 2>/dev/null && return 0
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# run_timed STDOUT STDERR CMD...: CMD under /usr/bin/time -v; sets T_WALL (s,
# from EPOCHREALTIME), T_USER, T_SYS (s), T_RSS (KiB), T_RC.
run_timed() {
    local out=$1 err=$2 tf=$WORK/time.txt t0 t1
    shift 2
    T_RC=0
    t0=$EPOCHREALTIME
    /usr/bin/time -v -o "$tf" "$@" >"$out" 2>"$err" || T_RC=$?
    t1=$EPOCHREALTIME
    T_WALL=$(calc 'sprintf("%.4f", b - a)' a="$t0" b="$t1")
    T_USER=$(awk -F': ' '/User time/ { print $2 }' "$tf")
    T_SYS=$(awk -F': ' '/System time/ { print $2 }' "$tf")
    T_RSS=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tf")
    cat "$tf" >>"${err%.err}.time"
}

# --- section 1 ---------------------------------------------------------------
section1() {
    local cap=$WORK/bulk.pcap small=$WORK/first100k.pcap port tdpid i pids=() files=()
    local cap_pkts small_pkts ip gbps segs cc rep tool
    local -a cmd
    local -A walls rsss

    say ""
    say "== 1. Offline: one capture of >= $MIN_PKTS packets (96-byte snaplen), read by avmon, tcptrace and tshark; $REPS rounds, medians =="
    next_ports "$FLOWS"
    tb_iperf_servers "$TB_RCV" "${PORTS[@]}"
    ip netns exec "$TB_RCV" tcpdump -i rcv0 -s 96 -B 131072 -Z root -w "$cap" \
        2>"$RAW/s1-capture-tcpdump.err" &
    tdpid=$!
    if ! wait_listening "$RAW/s1-capture-tcpdump.err" "$tdpid"; then
        say "  tcpdump did not start: $(head -n 3 "$RAW/s1-capture-tcpdump.err" | tr '\n' ' ')"
        return 0
    fi
    for port in "${PORTS[@]}"; do
        ip netns exec "$TB_SND" timeout 60 iperf3 -c "$TB_RCV_ADDR" -p "$port" -n "$CAP_BYTES" \
            -J -C cubic </dev/null >"$RAW/s1-iperf-$port.json" &
        pids+=("$!")
        files+=("$RAW/s1-iperf-$port.json")
    done
    for i in "${pids[@]}"; do wait "$i" || true; done
    sleep 0.2
    stop_capture "$tdpid"
    local ic ir id ii
    read -r ic ir id ii <<<"$(tcpdump_stats "$RAW/s1-capture-tcpdump.err")"
    cap_pkts=$(capinfos -c -M "$cap" 2>/dev/null | awk -F': *' '/Number of packets/ { print $2 }')
    cap_pkts=${cap_pkts:-0}
    read -r gbps segs cc <<<"$(iperf_sum "${files[@]}")"
    say "  capture: $FLOWS x iperf3 -n $CAP_BYTES -C cubic on the veth pair (offloads off), tcpdump -i rcv0 -s 96 -B 131072 -w FILE"
    sayf '  file: %s packets, %s MiB, %s s of traffic; tcpdump: %s captured, %s received by filter, %s dropped by kernel; iperf3: %s Mbit/s in all, sender cc %s\n' \
        "$cap_pkts" "$(mib $(($(stat -c %s "$cap") / 1024)))" \
        "$(fmt '%.3f' "$(capinfos -u -M "$cap" 2>/dev/null | awk -F': *' '/Capture duration/ { print $2 + 0 }')")" \
        "$ic" "$ir" "$id" "$(mbit "$gbps")" "$cc"
    [[ $cc == cubic ]] || say "  WARNING: the flows did not all run CUBIC ($cc)"
    if ((cap_pkts < MIN_PKTS)); then
        say "  WARNING: the capture has $cap_pkts packets, fewer than $MIN_PKTS: rates below are less reliable"
    fi
    ((cap_pkts > 0)) || return 0
    csv offline tcpdump-capture bulk.pcap 1 "$cap_pkts" "" "" "" "" "" "$CAP_RC" "$ic" "$ir" "$id" "$ii" "" "$segs" "$gbps"

    cat "$cap" >/dev/null   # page cache
    editcap -F pcap -r "$cap" "$small" "1-$SMALL_PKTS" >/dev/null 2>&1 || true
    small_pkts=$(capinfos -c -M "$small" 2>/dev/null | awk -F': *' '/Number of packets/ { print $2 }')

    say ""
    sayf '  %-4s %-9s %9s %9s %9s %9s %10s\n' rep tool "wall s" "user s" "sys s" Mpkt/s "maxRSS MiB"
    for ((rep = 1; rep <= REPS; rep++)); do
        for tool in avmon tcptrace tshark; do
            case $tool in
            avmon) cmd=("$AVMON" -r "$cap" --interval 0 --format json) ;;
            tcptrace) cmd=(tcptrace -l "$cap") ;;
            tshark) cmd=(tshark -n -q -r "$cap" -z "conv,tcp") ;;
            esac
            run_timed /dev/null "$RAW/s1-$tool.err" "${cmd[@]}"
            walls[$tool]+=" $T_WALL"
            rsss[$tool]+=" $T_RSS"
            ip=$(calc 'sprintf("%.0f", p / w)' p="$cap_pkts" w="$T_WALL")
            sayf '  %-4s %-9s %9.3f %9s %9s %9s %10s%s\n' "$rep" "$tool" "$T_WALL" "$T_USER" "$T_SYS" \
                "$(mpps "$ip")" "$(mib "$T_RSS")" "$( ((T_RC == 0)) || echo "  exit status $T_RC")"
            csv offline "$tool" bulk.pcap "$rep" "$cap_pkts" "$T_WALL" "$ip" "$T_USER" "$T_SYS" "$T_RSS" "$T_RC" \
                "" "" "" "" "" "" ""
        done
    done

    local -A med pps rss
    say ""
    sayf '  median of %d   %-9s %9s %10s %12s\n' "$REPS" tool "wall s" Mpkt/s "maxRSS MiB"
    for tool in avmon tcptrace tshark; do
        # shellcheck disable=SC2086
        med[$tool]=$(median ${walls[$tool]})
        # shellcheck disable=SC2086
        rss[$tool]=$(maxof ${rsss[$tool]})
        pps[$tool]=$(calc 'sprintf("%.0f", p / w)' p="$cap_pkts" w="${med[$tool]}")
        sayf '                 %-9s %9.3f %10s %12s\n' "$tool" "${med[$tool]}" "$(mpps "${pps[$tool]}")" "$(mib "${rss[$tool]}")"
        csv offline "$tool" bulk.pcap median "$cap_pkts" "${med[$tool]}" "${pps[$tool]}" "" "" "${rss[$tool]}" "" \
            "" "" "" "" "" "" ""
    done
    sayf '  rate ratio  avmon/tcptrace %s (goal >= 2)   avmon/tshark %s\n' \
        "$(fmt '%.2f' "$(calc 'a / b' a="${pps[avmon]}" b="${pps[tcptrace]}")")" \
        "$(fmt '%.2f' "$(calc 'a / b' a="${pps[avmon]}" b="${pps[tshark]}")")"
    sayf '  avmon max RSS %s MiB (tcptrace %s, tshark %s)\n' "$(mib "${rss[avmon]}")" "$(mib "${rss[tcptrace]}")" "$(mib "${rss[tshark]}")"

    # Memory against packet count: the first SMALL_PKTS packets, the whole file.
    say ""
    say "  avmon memory against packet count (one run each, JSON summaries in raw/):"
    local f n label
    for f in "$small" "$cap"; do
        if [[ $f == "$small" ]]; then label=first100k; else label=full; fi
        [[ -s $f ]] || { say "  ($label: editcap failed)"; continue; }
        run_timed "$RAW/s1-avmon-$label.json" "$RAW/s1-avmon-$label.err" "$AVMON" -r "$f" --interval 0 --format json
        n=$(jq -r 'select(.type == "summary") | .capture.packets' "$RAW/s1-avmon-$label.json" 2>/dev/null || echo "?")
        sayf '    %-10s %8s packets (avmon counted %s): max RSS %s MiB, %.3f s\n' "$label" \
            "$(if [[ $label == full ]]; then echo "$cap_pkts"; else echo "${small_pkts:-?}"; fi)" "$n" "$(mib "$T_RSS")" "$T_WALL"
        csv offline-memory avmon "$label" 1 "$n" "$T_WALL" "" "$T_USER" "$T_SYS" "$T_RSS" "$T_RC" "" "" "" "" "" "" ""
    done

    # Instructions, not seconds: valgrind's callgrind counts are the same on
    # every run of the same binary and input, whatever else the machine is
    # doing, so this ratio does not move with the neighbours' load.
    if command -v valgrind >/dev/null && [[ -s $small ]]; then
        local ir_avmon ir_tcptrace
        ir_avmon=$(instructions "$AVMON" -r "$small" --interval 0 --format json)
        ir_tcptrace=$(instructions tcptrace -l "$small")
        say ""
        sayf '  instructions on the first 100k packets (callgrind): avmon %s, tcptrace %s; tcptrace/avmon %s (goal >= 2)\n' \
            "$ir_avmon" "$ir_tcptrace" "$(fmt '%.2f' "$(calc 'a / b' a="$ir_tcptrace" b="$ir_avmon")")"
        csv offline-instructions avmon first100k 1 "${small_pkts:-}" "" "" "" "" "" "" "" "" "" "" "" "" "" "$ir_avmon"
        csv offline-instructions tcptrace first100k 1 "${small_pkts:-}" "" "" "" "" "" "" "" "" "" "" "" "" "" "$ir_tcptrace"
    else
        say "  (valgrind not installed: no instruction counts)"
    fi

    if [[ ${AVMON_BENCH_KEEP_CAPTURE:-0} == 1 ]]; then
        mv "$cap" "$OUT/bulk.pcap"
        say "  capture kept: $OUT/bulk.pcap"
    fi
    rm -f "$cap" "$small"
}

# instructions CMD...: the instructions CMD executes (callgrind's Ir total)
instructions() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
        sed -n 's/.*refs: *\([0-9,]*\).*/\1/p' | tr -d ,
}

# --- section 2 ---------------------------------------------------------------
# live_run LABEL CMD...: one LIVE_SECS capture in the receiver's namespace
# around FLOWS iperf3 flows; prints and records one row.
live_run() {
    local label=$1 s0 s1 t0 left cpid port i pids=() files=() cpu cpu_u cpu_s rss tck
    local gbps isegs cc kseg seen recv drop ifdrop capd note=""
    shift
    next_ports "$FLOWS"
    tb_iperf_servers "$TB_RCV" "${PORTS[@]}"
    s0=$(both_segs)
    t0=$EPOCHREALTIME
    ip netns exec "$TB_RCV" "$@" >"$RAW/s2-$label.out" 2>"$RAW/s2-$label.err" &
    cpid=$!
    sleep "$LIVE_LEAD"
    for port in "${PORTS[@]}"; do
        tb_iperf_client "$TB_SND" "$TB_RCV_ADDR" "$port" "$LIVE_IPERF" "$RAW/s2-$label-iperf-$port.json" -C cubic >/dev/null
        pids+=("$TB_LAST_PID")
        files+=("$RAW/s2-$label-iperf-$port.json")
    done
    left=$(calc 'sprintf("%.3f", (t0 + s) - n)' t0="$t0" s="$LIVE_SECS" n="$EPOCHREALTIME")
    if awk -v l="$left" 'BEGIN { exit !(l > 0) }'; then sleep "$left"; fi
    # CPU time (user + system) and peak RSS of the capture process so far.
    tck=$(getconf CLK_TCK)
    read -r cpu_u cpu_s < <(awk -v t="$tck" '{ sub(/^.*\) /, ""); printf "%.2f %.2f\n", $12 / t, $13 / t }' \
        "/proc/$cpid/stat" 2>/dev/null || echo "- -") || true
    cpu=$(calc 'sprintf("%.2f", u + s)' u="$cpu_u" s="$cpu_s")
    rss=$(awk '/^VmHWM:/ { print $2 }' "/proc/$cpid/status" 2>/dev/null || echo "")
    stop_capture "$cpid"
    for i in "${pids[@]}"; do tb_wait "$i" || true; done
    s1=$(both_segs)
    kseg=$((s1 - s0))
    read -r gbps isegs cc <<<"$(iperf_sum "${files[@]}")"

    if [[ $label == avmon ]]; then
        local sum=$RAW/s2-avmon.out
        seen=$(jq -r 'select(.type == "summary") | .capture.packets // "-"' "$sum" 2>/dev/null || echo "-")
        if grep -qi drop "$sum" 2>/dev/null; then
            read -r recv drop ifdrop <<<"$(jq -r 'select(.type == "summary") | .capture
                | "\(.pcap_received // "-") \(.pcap_dropped // "-") \(.pcap_if_dropped // "-")"' "$sum" 2>/dev/null || echo "- - -")"
        else
            recv=- drop=- ifdrop=-
            note=" (its summary reports no pcap drop counts: no \"drop\" key in its JSON)"
        fi
        capd=$seen
        sayf '  %-16s analysed %s packets; pcap received %s, dropped %s (%s %%), if_dropped %s%s\n' \
            "$label" "${seen:--}" "${recv:--}" "${drop:--}" "$(pct "$drop" "$recv")" "${ifdrop:--}" "$note"
    else
        read -r capd recv drop ifdrop <<<"$(tcpdump_stats "$RAW/s2-$label.err")"
        seen=$capd
        sayf '  %-16s %s packets captured, %s received by filter, %s dropped by kernel (%s %%)%s\n' \
            "$label" "$capd" "$recv" "$drop" "$(pct "$drop" "$recv")" \
            "$(if [[ $ifdrop != - ]]; then echo ", $ifdrop dropped by interface"; fi)"
    fi
    sayf '  %-16s kernels sent %s TCP segments (seen/sent %s %%); iperf3: %s data segments, %s Mbit/s, cc %s; capture CPU %s s, VmHWM %s MiB, exit status %s\n' \
        "" "$kseg" "$(pct "$seen" "$kseg")" "$isegs" "$(mbit "$gbps")" "$cc" \
        "${cpu:--}" "$(if [[ -n $rss ]]; then mib "$rss"; else echo -; fi)" "$CAP_RC"
    [[ $cc == cubic ]] || say "  WARNING: the flows did not all run CUBIC ($cc)"
    csv live "$label" "rcv0 ${LIVE_SECS}s" 1 "$seen" "$LIVE_SECS" "" "$cpu_u" "$cpu_s" "$rss" "$CAP_RC" \
        "$capd" "$recv" "$drop" "$ifdrop" "$kseg" "$isegs" "$gbps"
}

section2() {
    say ""
    say "== 2. Live: $FLOWS iperf3 CUBIC flows at full rate on the veth pair (offloads off: MTU-sized packets), ${LIVE_SECS} s captures on rcv0 ending with SIGINT, iperf3 from ${LIVE_LEAD} s for ${LIVE_IPERF} s =="
    say "  avmon            = avmon -i rcv0 --interval 0 --format json tcp   (defaults: snaplen 256, buffer 32 MiB)"
    say "  tcpdump          = tcpdump -i rcv0 -w /dev/null tcp               (defaults: snaplen 262144, buffer 2 MiB)"
    say "  tcpdump-s256-B32M = tcpdump -i rcv0 -s 256 -B 32768 -w /dev/null tcp (reference: avmon's snaplen and buffer)"
    live_run avmon "$AVMON" -i rcv0 --interval 0 --format json tcp
    live_run tcpdump tcpdump -i rcv0 -w /dev/null tcp
    live_run tcpdump-s256-B32M tcpdump -i rcv0 -s 256 -B 32768 -w /dev/null tcp
}

# --- main ----------------------------------------------------------------------
say "avmon-bench: $META"
say "results: $OUT"
start=$SECONDS
tb_pair_up "$NAME"
for dev in "$TB_SND:snd0" "$TB_RCV:rcv0"; do
    ip netns exec "${dev%%:*}" ethtool -K "${dev#*:}" tso off gso off gro off >/dev/null
done
say "testbed: veth pair $TB_SND_ADDR ($TB_SND) <-> $TB_RCV_ADDR ($TB_RCV), tso/gso/gro off on both ends"
for s in $SECTIONS; do
    case $s in
    1) section1 ;;
    2) section2 ;;
    *) echo "avmon-bench: unknown section '$s'" >&2; exit 1 ;;
    esac
done
say ""
say "done in $((SECONDS - start)) s; CSV and raw data in $OUT"
