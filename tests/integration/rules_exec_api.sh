#!/usr/bin/env bash
# The three ways a flow gets tcp_av and a target:
#  1. a rule on the iperf3 port gives tcp_av and its target to an iperf3
#     started without -C; `rule del` stops that for new flows;
#  2. `tcpavctl exec --rate` gives it to the command's flows, winning over
#     an older port rule that matches the same flow;
#  3. tcpav_set_target() changes a running flow's target, and its rate
#     follows within 2 s (with 2 CUBIC flows competing, so that the rate is
#     the target's doing, not spare capacity).
. "$(dirname "$0")/lib.sh"
tcpav_test_begin tavx "$(tb_htb_rate_for_eb 25000000)" 100
PROBE=$TOP/$TCPAV_BUILD/tests/set_target_probe

# cc_of_flow NS DPORT: the congestion control ss shows for the data flow
cc_of_flow() {
    ip netns exec "$1" ss -tinH "dport = :$2" |
        awk '/^[ \t]/ && ($1 ~ /^(tcp_av|cubic|reno|bbr)$/) { cc = $1 } END { print cc }'
}

# --- 1. rule on the port, iperf3 without -C
id=$("$TCPAVCTL" rule add --dport 5201 --cc tcp_av --rate 8M | awk '{ sub(":", "", $2); print $2 }')
TB_OMIT=0 tb_flows_start "$TMP/rule" 4 rule
sleep 2
cc=$(cc_of_flow "$TB_SND" 5201)
"$TCPAVCTL" flows --json > "$TMP/rule-flows.json"
tb_flows_wait "$TMP/rule" >/dev/null
check "rule: iperf3 without -C runs on tcp_av (ss shows '$cc')" test "$cc" = tcp_av
check "rule: tcpavctl flows shows the 8 Mbit/s target" flow_listed "$TMP/rule-flows.json" "$TB_RCV_ADDR:5201" 8000000

check "rule del $id" "$TCPAVCTL" rule del "$id"
TB_OMIT=0 tb_flows_start "$TMP/norule" 3 rule
sleep 1.5
cc=$(cc_of_flow "$TB_SND" 5201)
tb_flows_wait "$TMP/norule" >/dev/null
check "after rule del a new flow keeps the default CC (ss shows '$cc')" test -n "$cc" -a "$cc" != tcp_av

# --- 1b. any built-in CC, matched by destination prefix; a prefix that
# does not match leaves the flow alone
"$TCPAVCTL" rule add --dst 10.99.0.0/16 --cc cubic >/dev/null
net=${TB_RCV_ADDR%.*}
"$TCPAVCTL" rule add --dst "$net.0/24" --dport 5201 --cc reno >/dev/null
TB_OMIT=0 tb_flows_start "$TMP/prefix" 3 rule
sleep 1.5
cc=$(cc_of_flow "$TB_SND" 5201)
tb_flows_wait "$TMP/prefix" >/dev/null
check "rule --dst $net.0/24 --cc reno: the flow runs on reno (ss shows '$cc')" test "$cc" = reno
for id in $("$TCPAVCTL" rule list --json | jq '.[].id'); do "$TCPAVCTL" rule del "$id" >/dev/null; done
"$TCPAVCTL" rule add --dst 10.99.0.0/16 --cc reno >/dev/null
TB_OMIT=0 tb_flows_start "$TMP/nomatch" 3 rule
sleep 1.5
cc=$(cc_of_flow "$TB_SND" 5201)
tb_flows_wait "$TMP/nomatch" >/dev/null
check "rule --dst 10.99.0.0/16 does not touch a flow to $TB_RCV_ADDR (ss shows '$cc')" test "$cc" != reno
for id in $("$TCPAVCTL" rule list --json | jq '.[].id'); do "$TCPAVCTL" rule del "$id" >/dev/null; done

# --- 2. exec --rate, also where an older port rule matches the same flow
port_rule=$("$TCPAVCTL" rule add --dport 5202 --cc tcp_av --rate 3M | awk '{ sub(":", "", $2); print $2 }')
tb_iperf_servers "$TB_RCV" 5202
"$TCPAVCTL" exec --rate 6M -- ip netns exec "$TB_SND" iperf3 -c "$TB_RCV_ADDR" -p 5202 -t 4 -J \
    > "$TMP/exec.json" &
exec_pid=$!
sleep 2
cc=$(cc_of_flow "$TB_SND" 5202)
"$TCPAVCTL" flows --json > "$TMP/exec-flows.json"
exec_rc=0; wait "$exec_pid" || exec_rc=$?
check "exec: the command's flow runs on tcp_av (ss shows '$cc')" test "$cc" = tcp_av
check "exec: tcpavctl flows shows exec's 6 Mbit/s, not the port rule's 3" flow_listed "$TMP/exec-flows.json" "$TB_RCV_ADDR:5202" 6000000
check "exec: returns the command's exit status (0)" test "$exec_rc" = 0
check "exec: its rule is gone afterwards" \
    test "$("$TCPAVCTL" rule list --json | jq -c '[.[].id]')" = "[$port_rule]"
"$TCPAVCTL" rule del "$port_rule" >/dev/null
check "exec: its cgroup is gone afterwards" \
    bash -c '! ls -d /sys/fs/cgroup/unified/tcpav-exec-* /sys/fs/cgroup/tcpav-exec-* 2>/dev/null'
rc=0; "$TCPAVCTL" exec --rate 6M -- false || rc=$?
check "exec: a failing command's status comes back (1)" test "$rc" = 1

# --- 3. tcpav_set_target mid-flow: 4M, then 16M at 7 s
ip netns exec "$TB_RCV" "$PROBE" sink 6000 &
sleep 0.3
TB_PORT0=5203 TB_OMIT=0 tb_flows_start "$TMP/api" 16 cubic cubic
nsenter --net="/run/netns/$TB_SND" "$PROBE" send "$TB_RCV_ADDR" 6000 14 4M 7 16M > "$TMP/probe.txt"
tb_flows_wait "$TMP/api" >/dev/null || true
before=$(awk '$1 > 5 && $1 <= 7 { s += $2; n++ } END { printf "%d", n ? s / n : 0 }' "$TMP/probe.txt")
after=$(awk '$1 > 8 && $1 <= 9 { s += $2; n++ } END { printf "%d", n ? s / n : 0 }' "$TMP/probe.txt")
later=$(awk '$1 > 9 && $1 <= 14 { s += $2; n++ } END { printf "%d", n ? s / n : 0 }' "$TMP/probe.txt")
echo "# set_target: $(mbit "$before") Mbit/s at 4M, $(mbit "$after") Mbit/s 1-2 s after the switch to 16M, $(mbit "$later") later"
check "api: the socket ran on tcp_av with the target read back" \
    awk '$1 > 1 && $1 < 7 && ($3 != "tcp_av" || $4 != 4000000) { bad = 1 } END { exit bad }' "$TMP/probe.txt"
check "api: the new target is read back after the switch" \
    awk '$1 > 7.5 && $4 != 16000000 { bad = 1 } END { exit bad }' "$TMP/probe.txt"
check_ge "api: within 2 s of the switch the rate reaches 90 % of 16M" "$after" 14400000
check_le "api: before the switch the rate was well below 16M" "$before" 12000000
finish
