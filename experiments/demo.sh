#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# experiments/demo.sh BUILD - `make demo`: one tcp_av flow with a 12.5 Mbit/s
# target among 2 CUBIC bulk flows across a 25 Mbit/s bottleneck, on a
# network-namespace testbed (sender -> router with HTB -> receiver), 15 s.
# Prints the target, the achieved rate, the AVR and the other flows' rates,
# then removes everything it made (namespaces, its rule, and tcp_av itself
# if the demo loaded it).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
ctl=$top/$build/bin/tcpavctl
. "$top/experiments/testbed/testbed.sh"
. "$top/experiments/testbed/flows.sh"

if [[ $(id -u) != 0 ]]; then
    echo "demo: needs root (network namespaces, BPF): run 'sudo make demo'" >&2
    exit 1
fi
T=12500000 EB=25000000 SECS=15
tmp=$(mktemp -d /tmp/tcpav-demo.XXXXXX)
loaded_here=0 rule_id=
demo_cleanup() {
    [[ -n $rule_id ]] && "$ctl" rule del "$rule_id" >/dev/null 2>&1
    ((loaded_here)) && "$ctl" unload >/dev/null 2>&1
    rm -rf "$tmp"
}
TB_EXTRA_CLEANUP=demo_cleanup
tb_trap_cleanup tcpav-demo

if ! "$ctl" status | grep -q 'tcp_av: loaded'; then
    "$ctl" load
    loaded_here=1
fi
tb_up tcpav-demo "$(tb_htb_rate_for_eb $EB)" 100
rule_id=$("$ctl" rule add --dport 5201 --cc tcp_av --rate 12.5M | awk '{ sub(":", "", $2); print $2 }')
echo "testbed: $TB_SND -> $TB_RTR (HTB for 25 Mbit/s of TCP payload, 100-packet queue) -> $TB_RCV"
echo "flows: 1 x tcp_av (target 12.5 Mbit/s, set by rule $rule_id on port 5201) + 2 x CUBIC, ${SECS} s"
echo

TB_OMIT=3 tb_flows_start "$tmp" "$SECS" rule cubic cubic
sleep $((SECS - 4))
echo "tcpavctl flows (live, at $((SECS - 4)) s):"
"$ctl" flows | awk 'NR == 1 || /:5201 /'
echo
mapfile -t g < <(tb_flows_wait "$tmp" | awk '{print $2}')

awk -v t=$T -v eb=$EB -v a="${g[0]}" -v c1="${g[1]}" -v c2="${g[2]}" 'BEGIN {
    printf "target     %6.2f Mbit/s (NRT %.0f %% of %.0f Mbit/s)\n", t / 1e6, 100 * t / eb, eb / 1e6
    printf "achieved   %6.2f Mbit/s  AVR %.1f %%\n", a / 1e6, 100 * a / t
    printf "cubic 1    %6.2f Mbit/s\n", c1 / 1e6
    printf "cubic 2    %6.2f Mbit/s  (fair share of the rest: %.2f Mbit/s each)\n", c2 / 1e6, (eb - t) / 2e6
}'
