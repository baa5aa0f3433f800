#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `rule add --dscp` and `exec --dscp` mark a flow's packets, as the wire
# shows them: tcpdump on the receiving side of a veth pair (IPv4 and IPv6),
# the DSCP read from the TOS byte (ip[1]) or the traffic class (the second
# and third nibbles of ip6[0:2]) of the sender's data packets (frames of
# more than 200 bytes: no SYN, no pure ACK), each flow 300 kB of
# tests/tools/bulk_flow:
#  1. rule list shows the DSCP: its name (AF41, CS0) or its number (5), in
#     the table and in --json (dscp, dscp_name); a rule without --dscp shows
#     none;
#  2. active opens (--dport): an IPv4 socket sends TOS 0x88 (AF41), an
#     IPv6 socket traffic class 0x88, and an IPv6 socket connected to
#     ::ffff:a.b.c.d (IPv4 on the wire, its TOS from IP_TOS) TOS 0x88; the
#     SYN is marked too (set before it is sent). A connection no rule
#     matches carries 0, over IPv4 and IPv6;
#  3. passive opens (--sport, the accepted socket): a dual-stack listener's
#     IPv4 (mapped) and IPv6 connections and an IPv4-only listener's
#     (iperf3 -4, -R) send their data marked;
#  4. --dscp CS0 sets 0, not "no DSCP": a program's own TOS 0x20, set
#     before connect, reaches the wire as 0x20 without a rule, and as 0 with
#     the CS0 rule (IPv4 and IPv6);
#  5. exec --dscp EF: the command's flow sends 0xb8, exec's rule winning
#     over an AF41 port rule for the same port; its rule is gone after.
# Bad --dscp values are in bad_input.sh.
. "$(dirname "$0")/lib.sh"
check "tcpdump installed" command -v tcpdump
check "iperf3 installed" command -v iperf3
BULK=$TCPAV_BUILD/tests/bulk_flow
check "bulk_flow built ($BULK)" test -x "$BULK"
tap_passing || stop_here "no tcpdump, iperf3 or bulk_flow"
tcpav_test_begin tavd
# a veth pair: 10.77.3.1 (snd) <-> 10.77.3.2 (rcv), with IPv6 beside it
tb_pair_up tavd || stop_here "no veth pair for the test"
SND6=fd00:77:3::1 RCV6=fd00:77:3::2
ip -n "$TB_SND" addr add "$SND6/64" dev "$TB_SND_DEV" nodad
ip -n "$TB_RCV" addr add "$RCV6/64" dev "$TB_RCV_DEV" nodad
BYTES=300000
T=$TCPAVCTL

# in_ns NS CMD...: CMD in NS, with the host's /sys (the pins stay visible)
in_ns() { local ns=$1; shift; nsenter --net="/run/netns/$ns" "$@"; }

# capture NAME PORT CMD...: tcpdump on the receiver's veth (TCP PORT) to
# $TMP/NAME.pcap while CMD runs; CMD's status is returned
capture() {
    local name=$1 port=$2 rc=0
    shift 2
    tb_tcpdump_start "$TB_RCV" /dev/null "$TMP/$name.err" -i "$TB_RCV_DEV" -n -s 128 --immediate-mode \
        -Z root -w "$TMP/$name.pcap" "tcp port $port" || return 1
    "$@" || rc=$?
    kill -INT "$TB_LAST_TCPDUMP_PID"
    wait "$TB_LAST_TCPDUMP_PID" 2>/dev/null || true
    return "$rc"
}
# active PORT DST [TOS]: bulk_flow sends BYTES from snd to DST:PORT (a
# sink in rcv), with TOS its socket's own IP_TOS / IPV6_TCLASS
active() {
    local sink rc=0
    ip netns exec "$TB_RCV" "$BULK" sink "$1" >/dev/null &
    sink=$!
    wait_listen "$TB_RCV" "$1"
    in_ns "$TB_SND" "$BULK" send "$2" "$1" $BYTES cubic ${3:+"$3"} || rc=$?
    wait "$sink" || rc=$?
    return "$rc"
}
# passive PORT DST: a dual-stack server in snd sends BYTES to a client in
# rcv, which connects to DST:PORT
passive() {
    local srv rc=0
    in_ns "$TB_SND" "$BULK" serve "$1" $BYTES cubic &
    srv=$!
    wait_listen "$TB_SND" "$1"
    ip netns exec "$TB_RCV" "$BULK" fetch "$2" "$1" >/dev/null || rc=$?
    wait "$srv" || rc=$?
    return "$rc"
}
wait_listen() {
    for _ in $(seq 100); do
        ip netns exec "$1" ss -ltnH "sport = :$2" | grep -q . && return 0
        sleep 0.05
    done
    return 1
}
# pcount NAME FILTER: how many packets of $TMP/NAME.pcap FILTER matches
pcount() { tcpdump -r "$TMP/$1.pcap" -nn "$2" 2>/dev/null | wc -l; }
# ds_filter FAMILY TOS: the packets whose TOS / traffic class byte is TOS
ds_filter() {
    if [[ $1 == 4 ]]; then echo "ip[1] == $2"; else echo "(ip6[0:2] & 0x0ff0) == ($2 << 4)"; fi
}
# check_marked DESC NAME FAMILY SRC TOS: a check that the data packets from
# SRC in $TMP/NAME.pcap all carry TOS, and that there are some
check_marked() {
    local base="ip and src host $4 and greater 200" all with
    [[ $3 == 4 ]] || base="ip6 and src host $4 and greater 200"
    all=$(pcount "$2" "$base")
    with=$(pcount "$2" "$base and $(ds_filter "$3" "$5")")
    check "$1 ($with of $all data packets)" test "$all" -gt 0 -a "$with" -eq "$all"
}
# syn_marked NAME FAMILY TOS: the SYN (not SYN-ACK) carries TOS
syn_marked() {
    local syn
    if [[ $2 == 4 ]]; then syn='ip and tcp[tcpflags] & (tcp-syn|tcp-ack) == tcp-syn'
    else syn='ip6 and ip6[6] == 6 and (ip6[53] & 0x12) == 0x02'; fi
    [[ $(pcount "$1" "$syn and $(ds_filter "$2" "$3")") -ge 1 ]]
}
# tos_seen NAME: the TOS / traffic class values of the data packets, for the record
tos_seen() {
    tcpdump -r "$TMP/$1.pcap" -nn -v 'greater 200' 2>/dev/null |
        grep -oE '(tos|class) 0x[0-9a-f]+' | sort | uniq -c | awk '{ printf "%s %s x%s; ", $2, $3, $1 }'
}

# --- 1. rule list
out=$("$T" rule add --dport 6001 --cc cubic --dscp AF41)
check "rule add --dscp AF41 says so ('$out')" grep -q 'DSCP AF41$' <<<"$out"
"$T" rule add --sport 6002 --cc cubic --dscp af41 >/dev/null
"$T" rule add --sport 6003 --cc cubic --dscp 34 >/dev/null
"$T" rule add --dport 6005 --cc cubic --dscp CS0 >/dev/null
"$T" rule add --dport 6008 --cc cubic --dscp 5 >/dev/null
"$T" rule add --dport 6009 --cc cubic >/dev/null
"$T" rule list --json >"$TMP/rules.json"
"$T" rule list >"$TMP/rules.txt"
echo "# rule list --json: $(cat "$TMP/rules.json")"
sed 's/^/# /' "$TMP/rules.txt"
check "rule list --json: AF41, af41 and 34 as dscp 34, dscp_name AF41" \
    jq -e '[.[] | select(.dport == 6001 or .sport == 6002 or .sport == 6003)] | length == 3
        and all(.[]; .dscp == 34 and .dscp_name == "AF41")' "$TMP/rules.json"
check "rule list --json: CS0 is dscp 0, dscp_name CS0 (set, not absent)" \
    jq -e 'any(.[]; .dport == 6005 and .dscp == 0 and .dscp_name == "CS0")' "$TMP/rules.json"
check "rule list --json: 5 is dscp 5 without a name" \
    jq -e 'any(.[]; .dport == 6008 and .dscp == 5 and (has("dscp_name") | not))' "$TMP/rules.json"
check "rule list --json: a rule without --dscp has no dscp" \
    jq -e 'any(.[]; .dport == 6009 and (has("dscp") or has("dscp_name") | not))' "$TMP/rules.json"
# the DSCP column: the 4th of the table
dscp_col() { awk -v p="$1" -v c="$2" 'NR > 1 && $c == p { print $4 }' "$TMP/rules.txt"; }
check "rule list: a DSCP column" bash -c "head -1 '$TMP/rules.txt' | awk '{ exit \$4 != \"DSCP\" }'"
check "rule list: AF41 shown by name ($(dscp_col 6001 6))" test "$(dscp_col 6001 6)" = AF41
check "rule list: CS0 shown by name ($(dscp_col 6005 6))" test "$(dscp_col 6005 6)" = CS0
check "rule list: 5 shown as a number ($(dscp_col 6008 6))" test "$(dscp_col 6008 6)" = 5
check "rule list: no --dscp shown as - ($(dscp_col 6009 6))" test "$(dscp_col 6009 6)" = -
for id in $(jq '.[] | select(.dport == 6008 or .dport == 6009) | .id' "$TMP/rules.json"); do
    "$T" rule del "$id" >/dev/null
done

# --- 2. active opens, port 6001 (AF41); 6009 has no rule now
check "active IPv4: the transfer ran" capture a4 6001 active 6001 "$TB_RCV_ADDR"
echo "# a4: $(tos_seen a4)"
check_marked "active IPv4: every data packet carries TOS 0x88 (AF41)" a4 4 "$TB_SND_ADDR" 0x88
check "active IPv4: the SYN carries TOS 0x88" syn_marked a4 4 0x88
check "active IPv6: the transfer ran" capture a6 6001 active 6001 "$RCV6"
echo "# a6: $(tos_seen a6)"
check_marked "active IPv6: every data packet carries traffic class 0x88" a6 6 "$SND6" 0x88
check "active IPv6: the SYN carries traffic class 0x88" syn_marked a6 6 0x88
check "active IPv4-mapped (IPv6 socket to ::ffff:$TB_RCV_ADDR): the transfer ran" \
    capture am 6001 active 6001 "::ffff:$TB_RCV_ADDR"
echo "# am: $(tos_seen am)"
check "active IPv4-mapped: IPv4 on the wire" test "$(pcount am "ip6")" = 0
check_marked "active IPv4-mapped: every data packet carries TOS 0x88" am 4 "$TB_SND_ADDR" 0x88
check "active IPv4-mapped: the SYN carries TOS 0x88" syn_marked am 4 0x88
check "no rule (port 6009), IPv4: the transfer ran" capture n4 6009 active 6009 "$TB_RCV_ADDR"
check_marked "no rule, IPv4: every data packet carries TOS 0" n4 4 "$TB_SND_ADDR" 0x00
check "no rule (port 6009), IPv6: the transfer ran" capture n6 6009 active 6009 "$RCV6"
check_marked "no rule, IPv6: every data packet carries traffic class 0" n6 6 "$SND6" 0x00

# --- 3. passive opens: the accepted sockets of port 6002 (AF41)
check "passive, dual-stack listener, IPv4 client: the transfer ran" \
    capture p4 6002 passive 6002 "$TB_SND_ADDR"
echo "# p4: $(tos_seen p4)"
check_marked "passive IPv4-mapped: every data packet carries TOS 0x88" p4 4 "$TB_SND_ADDR" 0x88
check "passive, dual-stack listener, IPv6 client: the transfer ran" capture p6 6002 passive 6002 "$SND6"
echo "# p6: $(tos_seen p6)"
check_marked "passive IPv6: every data packet carries traffic class 0x88" p6 6 "$SND6" 0x88
# an IPv4 (AF_INET) listener: iperf3 -s -4, the client with -R (the server sends)
iperf_r() {
    ip netns exec "$TB_SND" iperf3 -s -1 -4 -p 6003 </dev/null >/dev/null 2>&1 &
    local srv=$! rc=0
    wait_listen "$TB_SND" 6003
    ip netns exec "$TB_RCV" iperf3 -c "$TB_SND_ADDR" -p 6003 -R -t 1 -b 20M -J >"$TMP/pi.json" || rc=$?
    wait "$srv" || true
    return "$rc"
}
check "passive, IPv4-only listener (iperf3 -4 -R): the transfer ran" capture pi 6003 iperf_r
echo "# pi: $(tos_seen pi)"
check_marked "passive IPv4: every data packet carries TOS 0x88" pi 4 "$TB_SND_ADDR" 0x88

# --- 4. CS0 overrides the program's own TOS, set before connect (bulk_flow
# sets IP_TOS / IPV6_TCLASS 0x20 itself)
check "own TOS 0x20, no rule (port 6004): the transfer ran" capture s0 6004 active 6004 "$TB_RCV_ADDR" 0x20
echo "# s0: $(tos_seen s0)"
check_marked "own TOS 0x20 without a rule: the data carries TOS 0x20" s0 4 "$TB_SND_ADDR" 0x20
check "own TOS 0x20, rule --dscp CS0 (port 6005): the transfer ran" capture s5 6005 active 6005 "$TB_RCV_ADDR" 0x20
echo "# s5: $(tos_seen s5)"
check_marked "rule --dscp CS0: the data carries TOS 0, not the program's 0x20" s5 4 "$TB_SND_ADDR" 0x00
check "own traffic class 0x20, rule --dscp CS0, IPv6: the transfer ran" capture s6 6005 active 6005 "$RCV6" 0x20
check_marked "rule --dscp CS0, IPv6: the data carries traffic class 0, not 0x20" s6 6 "$SND6" 0x00

# --- 5. exec --dscp EF, over an AF41 port rule on the same port
"$T" rule add --dport 6007 --cc cubic --dscp AF41 >/dev/null
rules_before=$("$T" rule list --json)
exec_ef() { "$T" exec --cc cubic --dscp EF -- nsenter --net="/run/netns/$TB_SND" "$BULK" send "$1" 6007 $BYTES cubic; }
exec_active() {
    local sink rc=0
    ip netns exec "$TB_RCV" "$BULK" sink 6007 >/dev/null &
    sink=$!
    wait_listen "$TB_RCV" 6007
    exec_ef "$1" || rc=$?
    wait "$sink" || rc=$?
    return "$rc"
}
check "exec --dscp EF, IPv4: the command ran" capture e4 6007 exec_active "$TB_RCV_ADDR"
echo "# e4: $(tos_seen e4)"
check_marked "exec --dscp EF, IPv4: every data packet carries TOS 0xb8 (not the port rule's 0x88)" \
    e4 4 "$TB_SND_ADDR" 0xb8
check "exec --dscp EF, IPv6: the command ran" capture e6 6007 exec_active "$RCV6"
check_marked "exec --dscp EF, IPv6: every data packet carries traffic class 0xb8" e6 6 "$SND6" 0xb8
check "exec: its rule is gone afterwards" test "$("$T" rule list --json)" = "$rules_before"
# and the port rule alone marks the same flow AF41
check "the port rule alone, IPv4: the transfer ran" capture r4 6007 active 6007 "$TB_RCV_ADDR"
check_marked "the port rule alone: TOS 0x88" r4 4 "$TB_SND_ADDR" 0x88

for id in $("$T" rule list --json | jq '.[].id'); do "$T" rule del "$id" >/dev/null; done
check "nothing left: namespaces, pins, registration, exec cgroups" nothing_left tavd
finish
