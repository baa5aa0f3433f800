# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# flows.sh -- concurrent iperf3 flows across a testbed made by testbed.sh,
# and their goodput measured at the receiver. Source after testbed.sh and
# tb_up; used by the integration tests, the demo and the benchmarks.
#
# Files in OUTDIR, for flow i (port $TB_PORT0+i, TB_PORT0 default 5201):
#   flow-i.json    the client's (sender's) iperf3 JSON
#   server-i.json  the server's (receiver's) JSON, one interval every
#                  $TB_INTERVAL s (default 0.1): bytes read by the receiving
#                  socket, in order. The client's own intervals count socket
#                  writes and run ahead of the network.
#   rcv.pcap       the data segments (headers, -s 96) as they reach the
#                  receiver's device, captured while the flows run;
#   rcv.csv        avmon's intervals over it (written on first use).
#   port0          TB_PORT0 at tb_flows_start: the readers take flow i's
#                  port from it.
#                  Goodput over time is taken from these: unique bytes at the
#                  receiver (avmon's goodput, the growth of the sequence space
#                  the segments cover). The server's reads are not used for
#                  it: after a loss, the bytes behind the hole wait in the
#                  receiving socket until the retransmission has crossed the
#                  queue, then are read at once. Behind a 1,000-packet queue
#                  (0.3-0.4 s) every flow read nothing for 0.3 s and then
#                  70 Mbit/s in 0.1 s on a 30 Mbit/s link, so a 2 s window
#                  after the hole read 1.20-1.24 T where the receiver's device
#                  had seen at most 1.07 T. TB_CAPTURE=0 turns the capture
#                  off; the series are then the server's reads.
#   flow-i.launch  when the client was started (epoch, s.ns, CLOCK_REALTIME)
#   t0             the common clock of OUTDIR (epoch, s.ns): time 0 of every
#                  figure below, written by tb_flows_start, or by the first
#                  tb_flow_add when absent.
#
# Time base. iperf3 reports each flow's intervals relative to that flow's
# own test start (the server's TEST_START), and its JSON timestamps
# (start.timestamp.timesecs) have whole seconds only. So a flow is placed
# on OUTDIR's clock at its launch: t = (launch - t0) + iperf3's time, where
# omitted intervals (-O) keep their own times and the later ones, which
# iperf3 counts from 0 again when the omitted seconds end, are shifted by
# those seconds. With -O iperf3 resets its counters on a timer of its own:
# the bytes read between the last omitted interval and that reset are in
# no interval, and in about one run of three a whole interval (0.1 s) is
# missing there. Series, windows and tb_flow_goodput are exact with
# TB_OMIT=0, which tb_flow_add uses by default. iperf3's test
# starts a little after the launch: exec, the control connection, the
# parameters and the data connection, 3 one-way trips through the
# bottleneck: a few ms on an empty queue, up to ~3 queue delays when a flow
# joins a full deep one. Figures are aligned to that accuracy.
#
# tb_flows_start OUTDIR SECONDS CC...
#     Starts the clock (OUTDIR/t0) and one iperf3 flow per CC argument, all
#     at once, from $TB_SND to $TB_RCV: flow i uses port $TB_PORT0+i. A CC
#     of "rule" starts iperf3 without -C, so the tcpavctl rules (or the
#     system default) decide; anything else is passed as `-C CC`. The first
#     $TB_OMIT seconds (default 3) are omitted from the end results
#     (flow-i.json's end, tb_flows_wait), not from the series. Sets
#     TB_FLOW_PIDS (client PIDs, indexed by flow) and TB_SERVER_PIDS.
# tb_flow_add OUTDIR I CC START_S SECONDS
#     Flow I (port $TB_PORT0+I) with congestion control CC (as above),
#     started START_S seconds after OUTDIR's t0 and running SECONDS: it
#     leaves at START_S + SECONDS (churn). Its server starts (and listens)
#     now; the client waits inside the sender's namespace (so tb_down ends
#     it too) and is launched at t0 + START_S. Returns at once. Omits
#     $TB_OMIT seconds (default 0 here) from its end results. A START_S
#     already past starts it now (flow-i.launch says when). iperf3 counts
#     SECONDS from its own test start, after the setup: a flow joining a
#     full 1000-packet queue delivered its first bytes 0.3 s after its
#     launch and its last ~1 s after START_S + SECONDS (setup plus its
#     queued data).
# tb_flows_wait OUTDIR
#     Waits for every started flow (its client, then its server's JSON) and
#     prints "i bits_per_second" per flow: the client's
#     end.sum_received.bits_per_second, which is the receiver's count of
#     bytes over the test after the omitted seconds (iperf3 sends the
#     server's figures back to the client), as it always was. Returns 1 if a
#     flow failed. Empties TB_FLOW_PIDS and TB_SERVER_PIDS: the next
#     tb_flow_add starts a new set.
# tb_flows_run OUTDIR SECONDS CC...
#     tb_flows_start and tb_flows_wait.
#
# After tb_flows_wait (all times in s on OUTDIR's clock, rates in bit/s):
# tb_flow_series OUTDIR I
#     "t_end bytes" per interval of flow I at the receiver, from its launch,
#     omitted seconds included.
# tb_flow_windows OUTDIR I WINDOW_S [FROM_S [TO_S]]
#     "t_start t_end bits_per_second": the goodput in every window of
#     WINDOW_S (measured from one interval boundary to the first boundary
#     at least WINDOW_S later, less half an interval), sliding by one
#     interval, that lies within [FROM_S, TO_S] (default: the whole series).
# tb_flow_goodput OUTDIR I [FROM_S [TO_S]]
#     Flow I's goodput at the receiver over the intervals within
#     [FROM_S, TO_S] (an integer).
# tb_flow_srtt_us OUTDIR I
#     The sender's mean srtt in microseconds (the client JSON's
#     end.streams[0].sender.mean_rtt: tcpi_rtt sampled once per interval).
# tb_window_s SRTT_US
#     The issue's measuring window max(2 s, 4 srtt), rounded up to a whole
#     number of intervals ($TB_INTERVAL).
# Each prints one line to stderr and returns 1 on a missing or failed
# flow's file (an "error" in the JSON) or bad arguments.
#
# Variables read: TB_PORT0, TB_OMIT, TB_CAPTURE (default 1), TB_AVMON (the
# avmon binary; default AVMON, else build/bin/avmon beside this file),
# TB_INTERVAL (0.1..; iperf3's minimum
# is 0.1), and TB_SND, TB_RCV, TB_RCV_ADDR from tb_up.

_TB_FLOWS_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# _tb_flow_start_server OUTDIR I: flow I's receiver.
_tb_flow_start_server() {
    local out=$1 i=$2
    tb_iperf_server_json "$TB_RCV" $((${TB_PORT0:-5201} + i)) "$out/server-$i.json" || return 1
    TB_SERVER_PIDS[i]=$TB_LAST_SERVER_PID
}

# _tb_flow_launch OUTDIR I CC SECONDS OMIT DELAY_S: flow I's client, in
# $TB_SND after DELAY_S; its PID (iperf3's, after the execs) in TB_FLOW_PIDS[I].
_tb_flow_launch() {
    local out=$1 i=$2 cc=$3 secs=$4 omit=$5 delay=$6
    local args=(-c "$TB_RCV_ADDR" -p $((${TB_PORT0:-5201} + i)) -t "$secs" -J)
    (( omit > 0 )) && args+=(-O "$omit")
    [[ $cc == rule ]] || args+=(-C "$cc")
    # shellcheck disable=SC2016 # the script is sh's, with its own $1 $2
    ip netns exec "$TB_SND" sh -c 'sleep "$1"; date +%s.%N >"$2"; shift 2; exec "$@"' \
        sh "$delay" "$out/flow-$i.launch" iperf3 "${args[@]}" \
        </dev/null >"$out/flow-$i.json" &
    TB_FLOW_PIDS[i]=$!
}

# _tb_capture_start OUTDIR: the receiver's capture (OUTDIR/rcv.pcap) of the
# data segments to the flows' ports, unless TB_CAPTURE=0 or one already runs
# (TB_CAPTURE_PID); returns once tcpdump listens. -Z root: the test's
# directory may be closed to tcpdump's own user.
_tb_capture_start() {
    local out=$1 p0=${TB_PORT0:-5201}
    [[ ${TB_CAPTURE:-1} == 0 || -n ${TB_CAPTURE_PID:-} ]] && return 0
    rm -f -- "$out/rcv.pcap" "$out/rcv.csv"
    tb_tcpdump_start "$TB_RCV" /dev/null "$out/rcv.pcap.err" -i "$TB_RCV_DEV" -n \
        -s 96 -B 16384 --immediate-mode -Z root -w "$out/rcv.pcap" \
        "tcp dst portrange $p0-$((p0 + 99))" ||
        return 1
    TB_CAPTURE_PID=$TB_LAST_TCPDUMP_PID
}

# _tb_capture_stop OUTDIR: ends the capture; 1 if it missed packets: the
# kernel dropped some, or some that passed the filter were never written
# (without --immediate-mode tcpdump reads its ring a block at a time, and
# on SIGINT the last block's packets, up to a second of them, were lost).
_tb_capture_stop() {
    local out=$1 lost
    [[ -n ${TB_CAPTURE_PID:-} ]] || return 0
    kill -INT "$TB_CAPTURE_PID" 2>/dev/null
    wait "$TB_CAPTURE_PID" 2>/dev/null
    TB_CAPTURE_PID=
    lost=$(awk '/packets captured/ { c = $1 } /received by filter/ { r = $1 }
        /dropped by kernel/ { d = $1 } END { print (r - c) + d }' "$out/rcv.pcap.err")
    if [[ ${lost:-0} != 0 ]]; then
        echo "flows: the receiver's capture missed $lost packets ($out/rcv.pcap.err): goodput over time would read short" >&2
        return 1
    fi
}

tb_flows_start() {
    local out=${1:-} secs=${2:-} i cc
    shift 2 || true
    if [[ -z $out || ! $secs =~ ^[1-9][0-9]*$ ]] || (( $# == 0 )); then
        echo "tb_flows_start: usage: tb_flows_start OUTDIR SECONDS CC..." >&2
        return 1
    fi
    mkdir -p "$out"
    # the flows' first port, for the readers (a caller may set TB_PORT0
    # for the start only, as tcpav-sweep.sh does)
    echo "${TB_PORT0:-5201}" >"$out/port0"
    TB_FLOW_PIDS=() TB_SERVER_PIDS=()
    for (( i = 0; i < $#; i++ )); do
        rm -f -- "$out/flow-$i.launch"
        _tb_flow_start_server "$out" "$i" || return 1
    done
    _tb_capture_start "$out" || return 1
    date +%s.%N >"$out/t0"
    i=0
    for cc in "$@"; do
        _tb_flow_launch "$out" "$i" "$cc" "$secs" "${TB_OMIT:-3}" 0
        i=$((i + 1))
    done
}

tb_flow_add() {
    local out=${1:-} i=${2:-} cc=${3:-} start=${4:-} secs=${5:-} delay
    if [[ -z $out || ! $i =~ ^[0-9]+$ || -z $cc || ! $start =~ ^[0-9]+(\.[0-9]+)?$ ||
        ! $secs =~ ^[1-9][0-9]*$ ]]; then
        echo "tb_flow_add: usage: tb_flow_add OUTDIR I CC START_S SECONDS (got '$*')" >&2
        return 1
    fi
    mkdir -p "$out"
    _tb_capture_start "$out" || return 1
    [[ -s $out/t0 ]] || date +%s.%N >"$out/t0"
    rm -f -- "$out/flow-$i.launch"
    [[ -n ${TB_FLOW_PIDS+x} ]] || TB_FLOW_PIDS=()
    [[ -n ${TB_SERVER_PIDS+x} ]] || TB_SERVER_PIDS=()
    _tb_flow_start_server "$out" "$i" || return 1
    delay=$(awk -v t0="$(cat "$out/t0")" -v s="$start" -v now="$(date +%s.%N)" \
        'BEGIN { d = t0 + s - now; printf "%.3f", (d > 0 ? d : 0) }')
    _tb_flow_launch "$out" "$i" "$cc" "$secs" "${TB_OMIT:-0}" "$delay"
}

# _tb_wait_gone PID: poll (<= 10 s) until PID (not our waitable child) exits.
_tb_wait_gone() {
    local k
    for (( k = 0; k < 100; k++ )); do
        kill -0 "$1" 2>/dev/null || return 0
        sleep 0.1
    done
    return 1
}

tb_flows_wait() {
    local out=$1 i rc=0 bps
    for i in "${!TB_FLOW_PIDS[@]}"; do
        tb_wait "${TB_FLOW_PIDS[i]}" || rc=1
    done
    # the servers write their JSON as their test ends, just after the client's
    for i in "${!TB_SERVER_PIDS[@]}"; do
        if ! _tb_wait_gone "${TB_SERVER_PIDS[i]}"; then
            echo "tb_flows_wait: flow $i: the iperf3 server did not end within 10 s of its client" >&2
            rc=1
        fi
    done
    _tb_capture_stop "$out" || rc=1
    for i in "${!TB_FLOW_PIDS[@]}"; do
        if bps=$(tb_goodput_bps "$out/flow-$i.json"); then
            echo "$i $bps"
        else
            echo "$i 0"
            rc=1
        fi
    done
    TB_FLOW_PIDS=() TB_SERVER_PIDS=()
    return "$rc"
}

tb_flows_run() {
    local out=$1
    tb_flows_start "$@" || return 1
    tb_flows_wait "$out"
}

# _tb_flow_intervals OUTDIR I: "t_start t_end bytes" per interval of flow I
# on OUTDIR's clock: from the receiver's capture when there is one (see the
# header), else from the server's reads (see the time base).
_tb_flow_intervals() {
    local out=${1:-} i=${2:-} f off=0 rows
    f=$out/server-$i.json
    if [[ ! $i =~ ^[0-9]+$ ]]; then
        echo "flows: flow index must be a number, got '$i'" >&2
        return 1
    fi
    if [[ -e $out/rcv.pcap ]]; then
        _tb_capture_intervals "$out" "$i"
        return
    fi
    if [[ ! -s $f ]]; then
        echo "flows: $f missing or empty (flow $i not run, or not ended yet)" >&2
        return 1
    fi
    if [[ -s $out/t0 && -s $out/flow-$i.launch ]]; then
        off=$(awk -v a="$(cat "$out/flow-$i.launch")" -v b="$(cat "$out/t0")" \
            'BEGIN { printf "%.6f", a - b }')
    fi
    if ! rows=$(jq -r --argjson off "$off" '
            if has("error") then "error: \(.error)" else
            (.start.test_start.omit // 0) as $om
            | .intervals[].sum | (if .omitted then 0 else $om end) as $sh
            | "\(.start + $sh + $off) \(.end + $sh + $off) \(.bytes)" end' "$f" 2>/dev/null); then
        echo "flows: $f is not valid iperf3 JSON" >&2
        return 1
    fi
    if [[ $rows == error:* ]]; then
        echo "flows: flow $i: iperf3 server: ${rows#error: }" >&2
        return 1
    fi
    if [[ -z $rows ]]; then
        echo "flows: $f has no intervals" >&2
        return 1
    fi
    printf '%s\n' "$rows"
}

# _tb_capture_intervals OUTDIR I: flow I's rows from the receiver's capture.
# avmon's CSV (rcv.csv, made once) has one fairness row per interval and a
# row per flow active in it; flow I is the connection to its port that
# carried the most (not iperf3's control connection), and its quiet
# intervals between its first and last are rows of 0 bytes.
_tb_capture_intervals() {
    local out=$1 i=$2 p0 port avmon rows
    p0=$(cat "$out/port0" 2>/dev/null) || p0=${TB_PORT0:-5201}
    port=$((p0 + i))
    avmon=${TB_AVMON:-${AVMON:-$_TB_FLOWS_TOP/build/bin/avmon}}
    if ! grep -q 'packets captured' "$out/rcv.pcap.err" 2>/dev/null; then
        echo "flows: $out/rcv.pcap is incomplete (the capture was not stopped by tb_flows_wait)" >&2
        return 1
    fi
    if [[ ! -s $out/rcv.csv ]]; then
        # a file of its own: readers in parallel (paste <(...) <(...)) each
        # make it, and the last rename wins with the same content
        local new
        new=$(mktemp "$out/rcv.csv.XXXXXX") || return 1
        if ! "$avmon" -r "$out/rcv.pcap" --interval "${TB_INTERVAL:-0.1}" --format csv \
            >"$new" 2>"$new.err"; then
            echo "flows: $avmon -r $out/rcv.pcap failed: $(head -1 "$new.err")" >&2
            rm -f -- "$new" "$new.err"
            return 1
        fi
        rm -f -- "$new.err"
        mv -- "$new" "$out/rcv.csv"
    fi
    rows=$(awk -F, -v port=":$port" -v t0="$(cat "$out/t0")" '
        NR == 1 { next }
        $3 == "fairness" { n++; ts[n] = $1; te[n] = $2; next }
        $3 == "flow" && substr($6, length($6) - length(port) + 1) == port {
            b = $8 * ($2 - $1) / 8
            sum[$5] += b; bytes[$5, $1] = b
            if (!($5 in first)) first[$5] = $1 + 0
            last[$5] = $1 + 0
        }
        END {
            for (k in sum) if (best == "" || sum[k] > sum[best]) best = k
            if (best == "") exit
            for (j = 1; j <= n; j++)
                if (ts[j] + 0 >= first[best] && ts[j] + 0 <= last[best])
                    printf "%.6f %.6f %.0f\n", ts[j] - t0, te[j] - t0, bytes[best, ts[j]]
        }' "$out/rcv.csv")
    if [[ -z $rows ]]; then
        echo "flows: flow $i: no data to port $port in $out/rcv.pcap" >&2
        return 1
    fi
    printf '%s\n' "$rows"
}

# _tb_num NAME VALUE: VALUE is a non-negative number, else one line.
_tb_num() {
    [[ $2 =~ ^[0-9]+(\.[0-9]+)?$ ]] && return 0
    echo "flows: $1 must be a non-negative number of seconds, got '$2'" >&2
    return 1
}

tb_flow_series() {
    local rows
    rows=$(_tb_flow_intervals "${1:-}" "${2:-}") || return 1
    awk '{ printf "%.3f %d\n", $2, $3 }' <<<"$rows"
}

tb_flow_windows() {
    local out=${1:-} i=${2:-} w=${3:-} from=${4:-0} to=${5:-1000000000} rows
    _tb_num WINDOW_S "$w" && _tb_num FROM_S "$from" && _tb_num TO_S "$to" || return 1
    rows=$(_tb_flow_intervals "$out" "$i") || return 1
    awk -v w="$w" -v from="$from" -v to="$to" -v tol="$(awk -v i="${TB_INTERVAL:-0.1}" 'BEGIN { print i / 2 }')" '
        { n++; ts[n] = $1; te[n] = $2; b[n] = $3 }
        END {
            for (a = 1; a <= n; a++) {
                if (ts[a] < from - tol) continue
                sum = 0
                for (k = a; k <= n; k++) {
                    sum += b[k]
                    if (te[k] >= ts[a] + w - tol) break
                }
                if (k > n || te[k] > to + tol) break
                printf "%.3f %.3f %.0f\n", ts[a], te[k], 8 * sum / (te[k] - ts[a])
            }
        }' <<<"$rows"
}

tb_flow_goodput() {
    local out=${1:-} i=${2:-} from=${3:-0} to=${4:-1000000000} rows
    _tb_num FROM_S "$from" && _tb_num TO_S "$to" || return 1
    rows=$(_tb_flow_intervals "$out" "$i") || return 1
    awk -v from="$from" -v to="$to" -v tol="$(awk -v i="${TB_INTERVAL:-0.1}" 'BEGIN { print i / 2 }')" '
        $1 >= from - tol && $2 <= to + tol {
            if (!n++) t0 = $1
            t1 = $2; sum += $3
        }
        END {
            if (!n || t1 <= t0) { print "flows: no interval within [" from ", " to "]" > "/dev/stderr"; exit 1 }
            printf "%.0f\n", 8 * sum / (t1 - t0)
        }' <<<"$rows"
}

tb_flow_srtt_us() {
    local f=${1:-}/flow-${2:-}.json v
    if [[ ! -s $f ]]; then
        echo "tb_flow_srtt_us: $f missing or empty" >&2
        return 1
    fi
    v=$(jq -r 'if has("error") then "error: \(.error)"
               else (.end.streams[0].sender.mean_rtt // "no end.streams[0].sender.mean_rtt") end' "$f" 2>/dev/null) || {
        echo "tb_flow_srtt_us: $f is not valid JSON" >&2
        return 1
    }
    if [[ ! $v =~ ^[0-9]+$ ]]; then
        echo "tb_flow_srtt_us: $f: $v" >&2
        return 1
    fi
    echo "$v"
}

tb_window_s() {
    local srtt=${1:-}
    if [[ ! $srtt =~ ^[0-9]+$ ]]; then
        echo "tb_window_s: SRTT_US must be a whole number of microseconds, got '$srtt'" >&2
        return 1
    fi
    awk -v r="$srtt" -v iv="${TB_INTERVAL:-0.1}" 'BEGIN {
        w = 4 * r / 1e6; if (w < 2) w = 2
        k = int(w / iv); if (k * iv < w - 1e-9) k++
        s = sprintf("%.3f", k * iv); sub(/\.?0+$/, "", s); print s }'
}
