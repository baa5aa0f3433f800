# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# testbed.sh -- network-namespace testbed for tcpav experiments and tests.
#
# Source this file; it defines functions and nothing else (no side effects
# when sourced, safe under `set -u`, works with or without `set -e`).
#
#   . experiments/testbed/testbed.sh
#   tb_trap_cleanup demo            # tear down on exit / Ctrl-C / kill
#   tb_up demo 25mbit 100           # snd -> rtr (HTB bottleneck) -> rcv
#   TB_OFFLOADS=host tb_up demo2 25mbit 151400b   # bfifo of 151400 bytes
#   tb_iperf_servers "$TB_RCV" 5201 5202
#   tb_iperf_client "$TB_SND" "$TB_RCV_ADDR" 5201 15 a.json -C cubic >/dev/null
#   p1=$TB_LAST_PID
#   tb_iperf_client "$TB_SND" "$TB_RCV_ADDR" 5202 15 b.json -C reno  >/dev/null
#   p2=$TB_LAST_PID
#   tb_wait "$p1" "$p2"
#   tb_goodput_bps a.json           # -> e.g. 11934567
#
# Topology built by tb_up NAME (N = $TB_NET, default 77):
#
#   NAME-snd                 NAME-rtr                      NAME-rcv
#   [snd0 10.N.1.1] ---- [rtr-snd 10.N.1.254]
#                          [rtr-rcv 10.N.2.254] ---- [rcv0 10.N.2.1]
#                           ^ HTB rate=ceil=EB_RATE, leaf qdisc from QUEUE:
#                             pfifo limit N packets, or bfifo limit N bytes
#
# Offloads (TB_OFFLOADS, read by tb_up):
#   off  (default) tso/gso/gro off on all four veths: every packet is MTU
#        sized and a pfifo counts real packets (the test bed tcp_av was
#        tuned on).
#   host every veth keeps its defaults (tso and gso on, gro off), as on a
#        stock host: the sender hands GSO super-packets of several MSS to
#        the stack and veth forwards them whole, so the router's HTB and its
#        leaf queue see one skb per super-packet (HTB and bfifo account its
#        full wire length, qdisc_pkt_len; a pfifo counts it as one packet).
#        Use a byte queue (bfifo) with it; a real AP queues after
#        segmentation.
#   nic  as host, but the sender's veth has tso off (gso and sg stay on):
#        the sender's TCP builds GSO super-packets as on a stock host (TCP
#        always has GSO, sk_setup_caps), and its device cuts them into
#        frames on the way out, as a host's NIC does on the wire; so the
#        router's queue sees 1514-byte frames, as a real AP's does.
#        (Even `off` leaves the stack's GSO on; what the modes change is
#        where super-packets are cut: at the sender's device (off, nic) or
#        nowhere (host).)
# The reverse path (rcv -> rtr -> snd, i.e. the ACKs) is left unshaped
# (veth default noqueue).
#
# Functions
# ---------
# tb_up NAME [EB_RATE] [QUEUE]
#     Build the 3-namespace bottleneck testbed above. EB_RATE is tc syntax
#     (default 25mbit). QUEUE (default 100) is either a packet count, N
#     (`100`: pfifo limit 100 packets), or a byte count with a `b` suffix,
#     Nb (`151400b`: bfifo limit 151400 bytes, i.e. 100 x 1514-byte frames;
#     `1514000b`). Plain bytes only: tc's own `kb` means 1024 bytes, which
#     is not what "151 KB" means in the issue, so no multipliers are taken.
#     TB_OFFLOADS (off|host|nic, default off) picks the offloads (see above).
#     On any failure: removes whatever was created, prints one line to
#     stderr, returns 1. Refuses (returns 1, touches nothing) if a namespace
#     of that name already exists. Sets and exports TB_SND TB_RTR TB_RCV
#     TB_SND_ADDR TB_RCV_ADDR TB_RTR_BOTTLENECK_DEV (+ TB_SND_DEV TB_RCV_DEV),
#     and TB_QDISC (pfifo|bfifo), TB_QLIMIT (packets or bytes, a number)
#     and TB_OFFLOADS_SET (off|host|nic) as built, for the record (not
#     TB_OFFLOADS itself: that is the next tb_up's input).
# tb_htb_rate_for_eb EB_BPS
#     Prints the HTB rate (tc syntax, "NNNbit") whose TCP payload capacity is
#     EB_BPS: HTB counts whole Ethernet frames (1514 bytes for 1448 bytes of
#     payload with IPv4 and TCP timestamps), while EB is payload
#     (docs/design.md §2.1). `tb_up NAME "$(tb_htb_rate_for_eb 25000000)"` gives EB = 25M.
# tb_pair_up NAME
#     Two namespaces NAME-snd / NAME-rcv joined by one unshaped veth pair,
#     10.N.3.1 (snd) <-> 10.N.3.2 (rcv), offloads left at their defaults.
#     Exports the same variables; TB_RTR and TB_RTR_BOTTLENECK_DEV are empty.
# tb_down NAME
#     Kill every process in NAME-{snd,rtr,rcv} (found with `ip netns pids`),
#     delete the namespaces. Idempotent, silent, always returns 0.
# tb_ns_remove NS...
#     Kill every process in each namespace and delete it (what tb_down does
#     for a testbed's three); for other topologies such as ap.sh.
# tb_iperf_servers NS PORT...
#     Start one one-off `iperf3 -s -1 -p PORT` per PORT in namespace NS
#     (background, disowned, output discarded) and wait (<= ~5 s each) until
#     that very process listens (`ss -ltnp`). Returns 1 with a message if
#     one does not come up (e.g. port in use).
# tb_iperf_server_json NS PORT FILE [INTERVAL_S]
#     Start one one-off `iperf3 -s -1 -p PORT -J -i INTERVAL_S --logfile
#     FILE` in NS (INTERVAL_S default $TB_INTERVAL, else 0.1; iperf3's
#     minimum), background and disowned like tb_iperf_servers, and wait until
#     it listens. FILE (removed first: iperf3 appends to a logfile) gets the
#     receiver's JSON when the test ends: per interval the bytes that reached
#     the receiving socket (flows.sh reads it). Sets TB_LAST_SERVER_PID.
# tb_tcpdump_start NS OUTFILE ERRFILE TCPDUMP_ARGS...
#     Start `tcpdump TCPDUMP_ARGS` in NS in the background, its stdout to
#     OUTFILE and stderr to ERRFILE, and wait (<= 5 s) until it listens.
#     Sets TB_LAST_TCPDUMP_PID; stop it with SIGINT (it then writes its
#     statistics to ERRFILE). Returns 1 with a message, nothing left
#     running, if it does not start.
# tb_iperf_client NS SERVER_ADDR PORT SECONDS OUTFILE [iperf3 args...]
#     Run `iperf3 -c SERVER_ADDR -p PORT -t SECONDS -J [args]` in NS in the
#     background, JSON to OUTFILE. Prints the PID and also stores it in
#     TB_LAST_PID. Call it directly (not inside $(...)) if you want tb_wait
#     to report its exit status: a PID captured with $(...) belongs to a
#     subshell, so tb_wait can only poll for it to disappear.
# tb_wait PID...
#     Wait for the given PIDs. Returns 1 if any (waitable) one exited nonzero.
#     Note: iperf3 3.12 with -J exits 0 even when it fails (e.g. connection
#     refused); the error is in the JSON, which tb_goodput_bps reports.
# tb_goodput_bps FILE
#     Print end.sum_received.bits_per_second of an iperf3 client JSON file as
#     an integer. Returns 1 with a message if FILE is missing, not JSON, has
#     an "error" key or lacks the field.
# tb_trap_cleanup NAME
#     Install EXIT/INT/TERM traps that eval "$TB_EXTRA_CLEANUP" (if set,
#     read when the trap fires) and then tb_down every NAME registered so
#     far. INT exits 130, TERM exits 143; a normal exit keeps its status.
#
# Variables read: TB_NET (second address octet, default 77),
# TB_OFFLOADS (off|host|nic, tb_up), TB_EXTRA_CLEANUP (see tb_trap_cleanup).

# ---------------------------------------------------------------------------
# Internal helpers
# ---------------------------------------------------------------------------

# _tb_do CMD...: run CMD with stdout discarded; on failure remember the
# command and the first line of its stderr in _TB_ERR and return 1.
_tb_do() {
    local err
    if ! err=$("$@" 2>&1 >/dev/null); then
        _TB_ERR="'$*' failed${err:+: ${err%%$'\n'*}}"
        return 1
    fi
}

# _tb_check_name NAME: namespace base names must be simple tokens.
_tb_check_name() {
    if [[ ! ${1:-} =~ ^[A-Za-z0-9_.][A-Za-z0-9_.-]*$ ]]; then
        _TB_ERR="bad testbed name '${1:-}' (use [A-Za-z0-9_.-])"
        return 1
    fi
}

# _tb_check_net: validate TB_NET (second address octet, default 77).
_tb_check_net() {
    local n=${TB_NET:-77}
    if [[ ! $n =~ ^[0-9]{1,3}$ ]] || (( 10#$n > 255 )); then
        _TB_ERR="TB_NET must be 0..255, got '$n'"
        return 1
    fi
}

# _tb_ns_exists NS: true if network namespace NS exists.
_tb_ns_exists() {
    [[ -e /run/netns/$1 ]]
}

# _tb_export SND RTR RCV SND_ADDR RCV_ADDR BOTTLENECK_DEV SND_DEV RCV_DEV
_tb_export() {
    export TB_SND=$1 TB_RTR=$2 TB_RCV=$3 TB_SND_ADDR=$4 TB_RCV_ADDR=$5
    export TB_RTR_BOTTLENECK_DEV=$6 TB_SND_DEV=$7 TB_RCV_DEV=$8
}

# _tb_no_offloads NS DEV: MTU-sized packets only.
_tb_no_offloads() {
    _tb_do ip netns exec "$1" ethtool -K "$2" tso off gso off gro off
}

# _tb_up_build NAME NET RATE QDISC QLIMIT OFFLOADS: the actual tb_up steps;
# stops at the first failure (caller cleans up).
_tb_up_build() {
    local name=$1 net=$2 rate=$3 qdisc=$4 qlimit=$5 offloads=$6
    local snd=$name-snd rtr=$name-rtr rcv=$name-rcv ns dev

    for ns in "$snd" "$rtr" "$rcv"; do
        _tb_do ip netns add "$ns" || return 1
        _tb_do ip -n "$ns" link set lo up || return 1
    done

    # Create each veth pair directly inside its namespaces, so interface
    # names never clash in the root namespace or between testbeds.
    _tb_do ip link add snd0 netns "$snd" type veth \
        peer name rtr-snd netns "$rtr" || return 1
    _tb_do ip link add rcv0 netns "$rcv" type veth \
        peer name rtr-rcv netns "$rtr" || return 1

    if [[ $offloads == off ]]; then
        for dev in "$snd:snd0" "$rtr:rtr-snd" "$rtr:rtr-rcv" "$rcv:rcv0"; do
            _tb_no_offloads "${dev%%:*}" "${dev#*:}" || return 1
        done
    elif [[ $offloads == nic ]]; then
        _tb_do ip netns exec "$snd" ethtool -K snd0 tso off || return 1
    fi

    _tb_do ip -n "$snd" addr add "10.$net.1.1/24" dev snd0 || return 1
    _tb_do ip -n "$rtr" addr add "10.$net.1.254/24" dev rtr-snd || return 1
    _tb_do ip -n "$rtr" addr add "10.$net.2.254/24" dev rtr-rcv || return 1
    _tb_do ip -n "$rcv" addr add "10.$net.2.1/24" dev rcv0 || return 1
    for dev in "$snd:snd0" "$rtr:rtr-snd" "$rtr:rtr-rcv" "$rcv:rcv0"; do
        _tb_do ip -n "${dev%%:*}" link set "${dev#*:}" up || return 1
    done

    # Routes both ways: end hosts default via the router.
    _tb_do ip -n "$snd" route add default via "10.$net.1.254" || return 1
    _tb_do ip -n "$rcv" route add default via "10.$net.2.254" || return 1
    _tb_do ip netns exec "$rtr" sysctl -qw net.ipv4.ip_forward=1 || return 1

    # Bottleneck: rtr egress toward rcv. One HTB class (also the default
    # class), rate == ceil, a pfifo leaf of QLIMIT packets or a bfifo of
    # QLIMIT bytes. quantum is set
    # explicitly to avoid HTB's "quantum is big" warning at high rates.
    _tb_do ip netns exec "$rtr" tc qdisc add dev rtr-rcv root handle 1: \
        htb default 10 || return 1
    _tb_do ip netns exec "$rtr" tc class add dev rtr-rcv parent 1: \
        classid 1:10 htb rate "$rate" ceil "$rate" quantum 1514 || return 1
    _tb_do ip netns exec "$rtr" tc qdisc add dev rtr-rcv parent 1:10 \
        handle 10: "$qdisc" limit "$qlimit" || return 1
    # The reverse direction (rtr-snd egress) keeps the veth default
    # (noqueue): unshaped.

    _tb_export "$snd" "$rtr" "$rcv" "10.$net.1.1" "10.$net.2.1" \
        rtr-rcv snd0 rcv0
    export TB_QDISC=$qdisc TB_QLIMIT=$qlimit TB_OFFLOADS_SET=$offloads
}

# _tb_pair_build NAME NET: the actual tb_pair_up steps.
_tb_pair_build() {
    local name=$1 net=$2
    local snd=$name-snd rcv=$name-rcv ns

    for ns in "$snd" "$rcv"; do
        _tb_do ip netns add "$ns" || return 1
        _tb_do ip -n "$ns" link set lo up || return 1
    done
    _tb_do ip link add snd0 netns "$snd" type veth \
        peer name rcv0 netns "$rcv" || return 1
    _tb_do ip -n "$snd" addr add "10.$net.3.1/24" dev snd0 || return 1
    _tb_do ip -n "$rcv" addr add "10.$net.3.2/24" dev rcv0 || return 1
    _tb_do ip -n "$snd" link set snd0 up || return 1
    _tb_do ip -n "$rcv" link set rcv0 up || return 1

    _tb_export "$snd" "" "$rcv" "10.$net.3.1" "10.$net.3.2" "" snd0 rcv0
}

# _tb_create FUNC BUILDER NAME [ARGS...]: common wrapper for tb_up and
# tb_pair_up: validate, refuse existing namespaces, build, clean up and
# report one line on failure.
_tb_create() {
    local func=$1 builder=$2 name=${3:-} net ns
    shift 3
    _TB_ERR=""
    if ! _tb_check_name "$name" || ! _tb_check_net; then
        echo "$func: $_TB_ERR" >&2
        return 1
    fi
    net=$(( 10#${TB_NET:-77} ))
    for ns in "$name-snd" "$name-rtr" "$name-rcv"; do
        if _tb_ns_exists "$ns"; then
            echo "$func: namespace $ns already exists (run tb_down $name)" >&2
            return 1
        fi
    done
    if ! "$builder" "$name" "$net" "$@"; then
        tb_down "$name"
        echo "$func: $name: ${_TB_ERR:-unknown error}" >&2
        return 1
    fi
}

# ---------------------------------------------------------------------------
# Public functions
# ---------------------------------------------------------------------------

# tb_up NAME [EB_RATE] [QUEUE] -- see header.
tb_up() {
    local name=${1:-} rate=${2:-25mbit} queue=${3:-100}
    local offloads=${TB_OFFLOADS:-off} qdisc qlimit
    if [[ $queue =~ ^[1-9][0-9]*$ ]]; then
        qdisc=pfifo qlimit=$queue
    elif [[ $queue =~ ^([1-9][0-9]*)b$ ]]; then
        qdisc=bfifo qlimit=${BASH_REMATCH[1]}
    else
        echo "tb_up: QUEUE must be a packet count (100) or bytes with a 'b' suffix (151400b), got '$queue'" >&2
        return 1
    fi
    if [[ $offloads != off && $offloads != host && $offloads != nic ]]; then
        echo "tb_up: TB_OFFLOADS must be 'off', 'host' or 'nic', got '$offloads'" >&2
        return 1
    fi
    _tb_create tb_up _tb_up_build "$name" "$rate" "$qdisc" "$qlimit" "$offloads"
}

# tb_htb_rate_for_eb EB_BPS -- see header.
tb_htb_rate_for_eb() {
    local eb=${1:-}
    if [[ ! $eb =~ ^[1-9][0-9]*$ ]]; then
        echo "tb_htb_rate_for_eb: EB_BPS must be a positive integer (bits/s), got '$eb'" >&2
        return 1
    fi
    echo "$(( (eb * 1514 + 1447) / 1448 ))bit"
}

# tb_pair_up NAME -- see header.
tb_pair_up() {
    _tb_create tb_pair_up _tb_pair_build "${1:-}"
}

# tb_down NAME -- see header.
tb_down() {
    local name=${1:-}
    [[ -n $name ]] || return 0
    tb_ns_remove "$name-snd" "$name-rtr" "$name-rcv"
}

# tb_ns_remove NS... -- kill every process in each namespace (TERM, then
# KILL after ~1 s), delete it, reap our own children among the killed.
# Missing namespaces are skipped; silent; always returns 0. Used by tb_down
# and by other topologies (ap.sh).
tb_ns_remove() {
    local ns pids pid try killed=()
    for ns in "$@"; do
        _tb_ns_exists "$ns" || continue
        for try in 1 2 3 4 5 6 7 8 9 10 11; do
            pids=$(ip netns pids "$ns" 2>/dev/null) || break
            # Never kill ourselves (script started inside the namespace).
            pids=$(grep -vxE "$$|$BASHPID" <<<"$pids" || true)
            [[ -n $pids ]] || break
            if (( try == 1 )); then
                # shellcheck disable=SC2086
                kill -TERM $pids 2>/dev/null || true
                # shellcheck disable=SC2206
                killed+=($pids)
            elif (( try == 11 )); then
                # shellcheck disable=SC2086
                kill -KILL $pids 2>/dev/null || true
            fi
            sleep 0.1
        done
        ip netns del "$ns" >/dev/null 2>&1 || true
    done
    # Reap those that were our own children (e.g. tb_iperf_client jobs), so
    # no zombie outlives us; for other PIDs wait fails at once.
    for pid in ${killed[@]+"${killed[@]}"}; do
        wait "$pid" 2>/dev/null || true
    done
    return 0
}

# tb_iperf_servers NS PORT... -- see header.
tb_iperf_servers() {
    local ns=${1:-} port pid i pids=()
    shift || true
    if [[ -z $ns ]] || (( $# == 0 )); then
        echo "tb_iperf_servers: usage: tb_iperf_servers NS PORT..." >&2
        return 1
    fi
    for port in "$@"; do
        # A disowned child: the caller's shell still reaps it the moment it
        # exits (an orphan would linger as a zombie until init reaps it),
        # but it is not a job, so a plain `wait` does not wait for it.
        ip netns exec "$ns" iperf3 -s -1 -p "$port" \
            </dev/null >/dev/null 2>&1 &
        pids+=("$!")
        disown "$!"
    done
    i=0
    for port in "$@"; do
        pid=${pids[i]}
        i=$((i + 1))
        # Ready when *this* server (pid=...) owns the listening socket, so a
        # port already taken by someone else is reported, not mistaken.
        if ! _tb_wait_listen "$ns" "$port" "$pid"; then
            echo "tb_iperf_servers: iperf3 server on $ns port $port did not start listening (port in use? not up within 5 s)" >&2
            return 1
        fi
    done
}

# tb_tcpdump_start NS OUTFILE ERRFILE TCPDUMP_ARGS... -- see header.
tb_tcpdump_start() {
    local ns=${1:-} outf=${2:-} errf=${3:-} pid k
    if (( $# < 4 )) || [[ -z $ns || -z $outf || -z $errf ]]; then
        echo "tb_tcpdump_start: usage: tb_tcpdump_start NS OUTFILE ERRFILE TCPDUMP_ARGS..." >&2
        return 1
    fi
    shift 3
    rm -f -- "$errf"
    ip netns exec "$ns" tcpdump "$@" </dev/null >"$outf" 2>"$errf" &
    pid=$!
    for (( k = 0; k < 50; k++ )); do
        if grep -q 'listening on' "$errf" 2>/dev/null; then
            # shellcheck disable=SC2034 # read by the caller (flows.sh, outage.sh)
            TB_LAST_TCPDUMP_PID=$pid
            return 0
        fi
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    echo "tb_tcpdump_start: tcpdump in $ns did not start: $(head -1 "$errf" 2>/dev/null)" >&2
    kill -TERM "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    return 1
}

# tb_iperf_server_json NS PORT FILE [INTERVAL_S] -- see header.
tb_iperf_server_json() {
    local ns=${1:-} port=${2:-} file=${3:-} iv=${4:-${TB_INTERVAL:-0.1}} pid
    if [[ -z $ns || ! $port =~ ^[0-9]+$ || -z $file ]]; then
        echo "tb_iperf_server_json: usage: tb_iperf_server_json NS PORT FILE [INTERVAL_S]" >&2
        return 1
    fi
    rm -f -- "$file"
    ip netns exec "$ns" iperf3 -s -1 -p "$port" -J -i "$iv" --logfile "$file" \
        </dev/null >/dev/null 2>&1 &
    pid=$!
    disown "$pid"
    # shellcheck disable=SC2034 # read by the caller (flows.sh)
    TB_LAST_SERVER_PID=$pid
    if ! _tb_wait_listen "$ns" "$port" "$pid"; then
        echo "tb_iperf_server_json: iperf3 server on $ns port $port did not start listening (port in use? not up within 5 s)" >&2
        return 1
    fi
}

# _tb_wait_listen NS PORT PID: poll (<= 5 s) until PID listens on TCP PORT
# in NS; give up early if PID has exited.
_tb_wait_listen() {
    local i
    for (( i = 0; i < 100; i++ )); do
        if ip netns exec "$1" ss -ltnpH "sport = :$2" 2>/dev/null |
            grep -q "pid=$3,"; then
            return 0
        fi
        kill -0 "$3" 2>/dev/null || return 1
        sleep 0.05
    done
    return 1
}

# tb_iperf_client NS SERVER_ADDR PORT SECONDS OUTFILE [args...] -- see header.
tb_iperf_client() {
    if (( $# < 5 )); then
        echo "tb_iperf_client: usage: tb_iperf_client NS SERVER_ADDR PORT SECONDS OUTFILE [iperf3 args...]" >&2
        return 1
    fi
    local ns=$1 addr=$2 port=$3 secs=$4 out=$5
    shift 5
    # `ip netns exec` execs iperf3, so $! is iperf3's own PID.
    ip netns exec "$ns" iperf3 -c "$addr" -p "$port" -t "$secs" -J "$@" \
        </dev/null >"$out" &
    TB_LAST_PID=$!
    echo "$TB_LAST_PID"
}

# tb_wait PID... -- see header.
tb_wait() {
    local pid rc=0
    for pid in "$@"; do
        if wait "$pid" 2>/dev/null; then
            continue
        elif [[ $? -eq 127 ]]; then
            # Not our child (e.g. PID captured via $(...)): poll.
            while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
        else
            rc=1
        fi
    done
    return "$rc"
}

# tb_goodput_bps FILE -- see header.
tb_goodput_bps() {
    local file=${1:-} out
    if [[ ! -s $file ]]; then
        echo "tb_goodput_bps: '$file' missing or empty" >&2
        return 1
    fi
    if ! out=$(jq -r '
            if has("error") then "error: \(.error)"
            else (.end.sum_received.bits_per_second // "missing") end
            | if type == "number" then floor | tostring else . end
        ' "$file" 2>/dev/null); then
        echo "tb_goodput_bps: '$file' is not valid JSON" >&2
        return 1
    fi
    if [[ ! $out =~ ^[0-9]+$ ]]; then
        case $out in
            missing) out="no end.sum_received.bits_per_second" ;;
        esac
        echo "tb_goodput_bps: $file: $out" >&2
        return 1
    fi
    echo "$out"
}

# _tb_cleanup_all: trap body of tb_trap_cleanup.
_tb_cleanup_all() {
    local name
    trap '' INT TERM   # a second Ctrl-C must not interrupt the cleanup
    if [[ -n ${TB_EXTRA_CLEANUP:-} ]]; then
        eval "$TB_EXTRA_CLEANUP" || true
    fi
    for name in ${_TB_CLEANUP_NAMES[@]+"${_TB_CLEANUP_NAMES[@]}"}; do
        tb_down "$name"
    done
}

# tb_trap_cleanup NAME -- see header. May be called for several testbeds.
tb_trap_cleanup() {
    local name=${1:-}
    if ! _tb_check_name "$name"; then
        echo "tb_trap_cleanup: $_TB_ERR" >&2
        return 1
    fi
    _TB_CLEANUP_NAMES+=("$name")
    # EXIT runs the cleanup; INT/TERM just exit (which fires EXIT) with the
    # conventional status. `exit` in the EXIT trap keeps the original status.
    # shellcheck disable=SC2154  # _tb_rc is set inside the trap string
    trap '_tb_rc=$?; _tb_cleanup_all; exit "$_tb_rc"' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}
