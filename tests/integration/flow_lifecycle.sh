#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A flow is listed in `tcpavctl flows` while its socket lives, and only then;
# flows are told apart by network namespace. On loopback in two namespaces
# of the test's own (tests/tools/flow_life makes the connections, both ends
# on tcp_av):
#  1. for IPv4 and IPv6, with the client or the server ending it by FIN,
#     by RST (SO_LINGER 0) or by disconnect (connect(AF_UNSPEC)), both
#     sockets are listed before the end and gone within 1 s of it. (The
#     kernel zeroes the client's local port before release runs, and
#     tcp_disconnect() the peer port: a key rebuilt from the socket then
#     misses, and the flow stayed listed.)
#  2. after TCPAV_MAX_FLOWS (the size of the LRU map) short flows, the table
#     holds exactly the flows still open, none of the short ones: leftovers
#     would have filled the map and evicted live flows.
#  3. the same 5-tuple in two namespaces is two flows, each with its
#     namespace's inode (as /proc/PID/ns/net names it) in `netns` and in the
#     table; ending one leaves the other.
#  4. iperf3 under a port rule: its control connection, which never offers
#     more than its window, is flagged idle with AVR null (`-` in the
#     table); the data connection is not idle and has an AVR; both are gone
#     within 1 s of iperf3's end.
. "$(dirname "$0")/lib.sh"
FLOW_LIFE=$TCPAV_BUILD/tests/flow_life
MAX_FLOWS=$(awk '/#define TCPAV_MAX_FLOWS/ { print $3 }' "$TOP/include/tcpav/abi.h")
NS_A=flc-a NS_B=flc-b
GONE_MS=1000 # the bound: gone within 1 s of the socket's end

_flc_cleanup() {
    tb_ns_remove "$NS_A" "$NS_B" # kills the flow_life and iperf3 processes in them
    _tcpav_cleanup
}
tcpav_test_begin flc
# shellcheck disable=SC2034 # run by testbed.sh's EXIT trap
TB_EXTRA_CLEANUP=_flc_cleanup
[[ -x $FLOW_LIFE ]] || stop_here "no $FLOW_LIFE (make tests/tools first)"
[[ $MAX_FLOWS =~ ^[0-9]+$ ]] || stop_here "TCPAV_MAX_FLOWS not found in include/tcpav/abi.h"
for ns in "$NS_A" "$NS_B"; do
    if ! { ip netns add "$ns" && ip -n "$ns" link set lo up; }; then stop_here "cannot make namespace $ns"; fi
done
# the namespace's inode, as `ls -l /proc/PID/ns/net` shows it: net:[INODE]
netns_inode() { ip netns exec "$1" readlink /proc/self/ns/net | tr -dc 0-9; }
INO_A=$(netns_inode "$NS_A") INO_B=$(netns_inode "$NS_B")
echo "# namespaces: $NS_A net:[$INO_A], $NS_B net:[$INO_B]"

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# wait_line FILE REGEX: FILE has a line matching REGEX within 5 s
wait_line() {
    local _
    for _ in $(seq 100); do
        grep -qE -e "$2" "$1" 2>/dev/null && return 0
        sleep 0.05
    done
    return 1
}

# pair_start ID NS ARG...: `flow_life pair ARG...` in NS, its stdin a FIFO
# held open in PAIR_FD[ID]; waits for its ready line (CLIENT SERVER
# endpoints in PAIR_EP[ID])
declare -A PAIR_FD PAIR_PID PAIR_EP
pair_start() {
    local id=$1 ns=$2 fd
    shift 2
    mkfifo "$TMP/$id.in"
    ip netns exec "$ns" "$FLOW_LIFE" pair "$@" tcp_av <"$TMP/$id.in" >"$TMP/$id.out" 2>"$TMP/$id.err" &
    PAIR_PID[$id]=$!
    exec {fd}>"$TMP/$id.in"
    PAIR_FD[$id]=$fd
    if ! wait_line "$TMP/$id.out" '^ready '; then
        echo "# flow_life $id: $(head -c 300 "$TMP/$id.err")"
        return 1
    fi
    PAIR_EP[$id]=$(awk '/^ready / { print $2, $3 }' "$TMP/$id.out")
}
# pair_close ID SIDE HOW: the end, and its "closed" line within 5 s
pair_close() {
    echo "close $2 $3" >&"${PAIR_FD[$1]}"
    wait_line "$TMP/$1.out" '^closed' || { echo "# flow_life $1: $(head -c 300 "$TMP/$1.err")"; return 1; }
}
# pair_stop ID: EOF on its stdin; it exits (killed after 2 s)
pair_stop() {
    local fd=${PAIR_FD[$1]} pid=${PAIR_PID[$1]} _
    exec {fd}>&-
    for _ in $(seq 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

# flows_at INODE PORT: the flows of that namespace with PORT at either end
flows_at() {
    "$TCPAVCTL" flows --json |
        jq -c --argjson n "$1" --arg p ":$2" '[.[] | select(.netns == $n and ((.src | endswith($p)) or (.dst | endswith($p))))]'
}
# gone_within DESC INODE PORT T0: a check that within GONE_MS of T0 (ms)
# no flow is left at PORT; says how long it took, or what is left
gone_within() {
    local left took
    while :; do
        left=$(flows_at "$2" "$3" | jq length)
        took=$(($(now_ms) - $4))
        ((left == 0)) && { result 0 "$1 (after $took ms)"; return; }
        ((took <= GONE_MS)) || break
        sleep 0.05
    done
    echo "# after $took ms still listed: $(flows_at "$2" "$3" | jq -c '"\(length) flows, e.g. \(.[:2] | map({src, dst, flags}))"')"
    result 1 "$1"
}
# wait_bounded PID SECONDS: waits for PID, killed after SECONDS
wait_bounded() {
    local _
    for _ in $(seq $(($2 * 10))); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
    kill "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null
}
# both_listed INODE CLIENT SERVER: the flows JSON (stdin) has the client
# socket (CLIENT -> SERVER) and the server socket (SERVER -> CLIENT)
both_listed() {
    jq -e --argjson n "$1" --arg c "$2" --arg s "$3" \
        'length == 2 and any(.[]; .netns == $n and .src == $c and .dst == $s) and
         any(.[]; .netns == $n and .src == $s and .dst == $c)'
}

# --- 1. every way a connection ends, both sides, both families
port=5400
for fam in 4 6; do
    for side in client server; do
        for how in fin rst disconnect; do
            port=$((port + 1))
            what="IPv$fam, $side ends it by $how"
            if ! pair_start "p$port" "$NS_A" $fam $port 0 262144; then
                result 1 "$what: the connection was made"
                continue
            fi
            read -r c s <<<"${PAIR_EP[p$port]}"
            check "$what: before, both sockets are listed ($c, $s)" both_listed "$INO_A" "$c" "$s" <<<"$(flows_at "$INO_A" $port)"
            t0=$(now_ms)
            if pair_close "p$port" $side $how; then
                gone_within "$what: both gone within $GONE_MS ms" "$INO_A" $port "$t0"
            else
                result 1 "$what: flow_life ended the connection"
            fi
            pair_stop "p$port"
        done
    done
done

# --- 2. MAX_FLOWS short flows next to three that stay open
live=()
for p in 5501 5502 5503; do
    pair_start "l$p" "$NS_A" 4 $p 0 65536 || stop_here "flow_life could not open the live flow on port $p"
    live+=("l$p")
done
expected=$(for id in "${live[@]}"; do read -r c s <<<"${PAIR_EP[$id]}"; echo "$c $s"; echo "$s $c"; done | sort)
t0=$(now_ms)
check "$MAX_FLOWS short flows (ended by FIN, RST and disconnect in turn) ran" \
    ip netns exec "$NS_A" "$FLOW_LIFE" churn 4 5500 "$MAX_FLOWS" tcp_av
echo "# $MAX_FLOWS short flows in $(($(now_ms) - t0)) ms"
t0=$(now_ms)
gone_within "the short flows are gone within $GONE_MS ms of the last" "$INO_A" 5500 "$t0"
listed=$("$TCPAVCTL" flows --json | jq -r --argjson n "$INO_A" '.[] | select(.netns == $n) | "\(.src) \(.dst)"' | sort)
echo "# $NS_A lists $(wc -l <<<"$listed") flows, $(wc -l <<<"$expected") open"
check "afterwards $NS_A lists exactly the 6 sockets still open" test "$listed" = "$expected"
for id in "${live[@]}"; do pair_stop "$id"; done

# --- 3. one 5-tuple in two namespaces
pair_start twin-a "$NS_A" 4 5600 45600 0 || stop_here "flow_life could not open the flow in $NS_A"
pair_start twin-b "$NS_B" 4 5600 45600 0 || stop_here "flow_life could not open the flow in $NS_B"
"$TCPAVCTL" flows --json >"$TMP/twins.json"
"$TCPAVCTL" flows >"$TMP/twins.txt"
twin='select(.src == "127.0.0.1:45600" and .dst == "127.0.0.1:5600")'
echo "# the twins: $(jq -c "[.[] | $twin | {netns, src, dst}]" "$TMP/twins.json")"
check "the same 5-tuple in two namespaces is two flows, netns $INO_A and $INO_B" \
    jq -e --argjson a "$INO_A" --argjson b "$INO_B" "[.[] | $twin | .netns] | sort == ([\$a, \$b] | sort)" "$TMP/twins.json"
check "the table shows each twin with its namespace's inode" \
    bash -c "grep -Eq '^$INO_A +127\.0\.0\.1:45600 +127\.0\.0\.1:5600 ' '$TMP/twins.txt' &&
             grep -Eq '^$INO_B +127\.0\.0\.1:45600 +127\.0\.0\.1:5600 ' '$TMP/twins.txt'"
check "flows that never sent data are flagged idle, with AVR null" \
    jq -e "[.[] | $twin] | length == 2 and all(.[]; (.flags | split(\",\") | index(\"idle\")) and .avr == null)" "$TMP/twins.json"
t0=$(now_ms)
pair_close twin-a client fin || true
gone_within "ending the twin in $NS_A removes it there within $GONE_MS ms" "$INO_A" 5600 "$t0"
check "and leaves both sockets of the twin in $NS_B" both_listed "$INO_B" 127.0.0.1:45600 127.0.0.1:5600 <<<"$(flows_at "$INO_B" 5600)"
pair_stop twin-a
pair_stop twin-b

# --- 4. iperf3's two connections under a port rule
T=10000000
"$TCPAVCTL" rule add --dport 5201 --cc tcp_av --rate 10M >/dev/null
ip netns exec "$NS_B" iperf3 -s -1 -B 127.0.0.1 -p 5201 >/dev/null 2>&1 &
srv=$!
for _ in $(seq 50); do ip netns exec "$NS_B" ss -tlnH 'sport = :5201' | grep -q . && break; sleep 0.1; done
ip netns exec "$NS_B" iperf3 -c 127.0.0.1 -p 5201 -t 4 -J >"$TMP/iperf.json" 2>"$TMP/iperf.err" &
cli=$!
sleep 3
"$TCPAVCTL" flows --json >"$TMP/iperf-flows.json"
"$TCPAVCTL" flows >"$TMP/iperf-flows.txt"
to5201='[.[] | select(.dst == "127.0.0.1:5201")]'
echo "# iperf3's client sockets: $(jq -c "$to5201 | map({src, goodput_bps, avr, flags})" "$TMP/iperf-flows.json")"
check "iperf3 (rule, T = 10M): its two client sockets are listed with the target" \
    jq -e "$to5201 | length == 2 and all(.[]; .target_bps == $T)" "$TMP/iperf-flows.json"
check "the control connection: idle, AVR null" \
    jq -e "$to5201 | map(select(.flags | split(\",\") | index(\"idle\"))) | length == 1 and .[0].avr == null" "$TMP/iperf-flows.json"
check "the data connection: not idle, with an AVR > 0" \
    jq -e "$to5201 | map(select(.flags | split(\",\") | index(\"idle\") | not)) | length == 1 and .[0].avr > 0" "$TMP/iperf-flows.json"
check "the table shows AVR '-' and the flag idle for the control connection" \
    awk -v n="$INO_B" '$1 == n && $3 == "127.0.0.1:5201" && $(NF - 6) == "-" && $NF ~ /(^|,)idle$/ { f = 1 } END { exit !f }' "$TMP/iperf-flows.txt"
wait_bounded "$cli" 10 || true
t0=$(now_ms)
check "iperf3 ran to its end" jq -e 'has("error") | not' "$TMP/iperf.json"
gone_within "iperf3's flows are gone within $GONE_MS ms of its end" "$INO_B" 5201 "$t0"
wait_bounded "$srv" 5 || true

tb_ns_remove "$NS_A" "$NS_B"
check "after the test: no registration, pin or namespace left" nothing_left flc
finish
