# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# flows.sh -- concurrent iperf3 flows across a testbed made by testbed.sh.
# Source after testbed.sh and tb_up; used by the integration tests, the
# demo and the benchmarks.
#
# tb_flows_start OUTDIR SECONDS CC...
#     Starts one iperf3 flow per CC argument, all at once, from $TB_SND to
#     $TB_RCV: flow i uses port $TB_PORT0+i (default 5201) and writes
#     OUTDIR/flow-i.json. A CC of "rule" starts iperf3 without -C, so the
#     tcpavctl rules (or the system default) decide; anything else is passed
#     as `-C CC`. The first $TB_OMIT seconds (default 3) are omitted from
#     the results (slow start). Sets TB_FLOW_PIDS.
# tb_flows_wait OUTDIR
#     Waits for the flows and prints "i bits_per_second" per flow (receiver
#     goodput). Returns 1 if a flow failed.
# tb_flows_run OUTDIR SECONDS CC...
#     Both of the above.

tb_flows_start() {
    local out=$1 secs=$2 i=0 cc port args
    shift 2
    local port0=${TB_PORT0:-5201} omit=${TB_OMIT:-3}
    mkdir -p "$out"
    local ports=()
    for cc in "$@"; do ports+=($((port0 + ${#ports[@]}))); done
    tb_iperf_servers "$TB_RCV" "${ports[@]}" || return 1
    TB_FLOW_PIDS=()
    for cc in "$@"; do
        port=$((port0 + i))
        args=(-O "$omit")
        [[ $cc == rule ]] || args+=(-C "$cc")
        tb_iperf_client "$TB_SND" "$TB_RCV_ADDR" "$port" "$secs" "$out/flow-$i.json" "${args[@]}" >/dev/null
        TB_FLOW_PIDS+=("$TB_LAST_PID")
        i=$((i + 1))
    done
}

tb_flows_wait() {
    local out=$1 i=0 rc=0 pid bps
    tb_wait "${TB_FLOW_PIDS[@]}" || rc=1
    for pid in "${TB_FLOW_PIDS[@]}"; do
        if bps=$(tb_goodput_bps "$out/flow-$i.json"); then
            echo "$i $bps"
        else
            echo "$i 0"
            rc=1
        fi
        i=$((i + 1))
    done
    return "$rc"
}

tb_flows_run() {
    local out=$1
    tb_flows_start "$@" || return 1
    tb_flows_wait "$out"
}
