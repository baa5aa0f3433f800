#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tcpavctl's JSON as a reader sees it: `status`, `rule list` and `flows`
# print valid JSON (jq) under the names of the README's glossary, the same
# as avmon's: target_bps, goodput_bps, avr as a ratio (not a percentage).
# `rule list --json` escapes the congestion control name: a rule whose cc
# bytes hold a quote, a backslash, a control byte, UTF-8 and an invalid byte
# is written into the pinned map with bpftool (tcpavctl itself accepts only
# registered names), and jq reads the name back byte for byte. apqos show
# --json likewise on an interface whose name holds a quote and a backslash.
. "$(dirname "$0")/lib.sh"
EB=25000000 T=8000000
tcpav_test_begin tavj "$(tb_htb_rate_for_eb $EB)" 100
PINS=/sys/fs/bpf/tcpav

# --- status
"$TCPAVCTL" status --json >"$TMP/status.json"
check "status --json parses, loaded, with its documented keys" \
    jq -e '.loaded == true and ([keys[]] | sort) ==
        ["cgroup_root", "flows", "loaded", "pin_dir", "policy_attached", "registered", "rules"]' "$TMP/status.json"

# --- rule list: target_bps, and a cc name that needs escaping
"$TCPAVCTL" rule add --dport 5201 --cc tcp_av --rate 8M >/dev/null
"$TCPAVCTL" rule list --json >"$TMP/rules.json"
check "rule list --json: the rule's target as target_bps ($T), no rate_bps" \
    jq -e --argjson t $T 'length == 1 and .[0].target_bps == $t and .[0].cc == "tcp_av"
        and .[0].dport == 5201 and (.[0] | has("rate_bps") | not)' "$TMP/rules.json"

# the rule's slot and value bytes ("0x.." strings); cc is bytes 64-79 of
# struct tcpav_rule (abi.h asserts that offset)
CC_AT=64
slot_and_value() {
    bpftool -j map dump pinned "$PINS/tcpav_rules" |
        jq -r --argjson o $CC_AT '.[] | select((.value | length) >= $o + 16 and (.value[$o:$o + 16] | map(ltrimstr("0x")) | join(" ")
            | startswith("74 63 70 5f 61 76 00"))) | "\(.key | map(ltrimstr("0x")) | join(" "))|\(.value | map(ltrimstr("0x")) | join(" "))"'
}
read -r entry < <(slot_and_value) || entry=
if [[ -z $entry ]]; then
    stop_here "the tcp_av rule was not found in $PINS/tcpav_rules with bpftool"
fi
key=${entry%%|*} value=${entry#*|}
read -ra bytes <<<"$value"
# q " \ 0x01 é(c3 a9) 0xff, then NULs: 8 bytes and 8 NULs
odd=(71 22 5c 01 c3 a9 ff 00 00 00 00 00 00 00 00 00)
for i in "${!odd[@]}"; do bytes[CC_AT + i]=${odd[i]}; done
# shellcheck disable=SC2086 # word splitting of the byte lists is the point
bpftool map update pinned "$PINS/tcpav_rules" key hex $key value hex ${bytes[*]}
"$TCPAVCTL" rule list --json >"$TMP/rules-odd.json" || true
# jq decodes \u00ff as U+00FF: what the writer makes of an invalid byte
check "rule list --json escapes the cc name: quote, backslash, control byte, UTF-8, invalid byte" \
    jq -e '.[0].cc == "q\"\\\u0001\u00e9\u00ff"' "$TMP/rules-odd.json"
echo "# rule list --json with the odd name: $(head -c 200 "$TMP/rules-odd.json")"
for id in $(jq '.[].id' "$TMP/rules.json"); do "$TCPAVCTL" rule del "$id" >/dev/null; done

# --- flows: goodput_bps and avr as avmon names them
"$TCPAVCTL" rule add --dport 5201 --cc tcp_av --rate 8M >/dev/null
tb_flows_start "$TMP" 8 rule
sleep 6
"$TCPAVCTL" flows --json >"$TMP/flows.json"
tb_flows_wait "$TMP" >"$TMP/goodput" || true
echo "# flows --json: $(jq -c '[.[] | {target_bps, goodput_bps, avr}]' "$TMP/flows.json")"
check "flows --json parses: an array with the documented keys" \
    jq -e 'length > 0 and all(.[]; ([keys[]] | sort) == ["avr", "bw_est_bps", "cwnd", "dst", "e", "flags", "g", "gain",
        "goodput_bps", "infeasible", "loss_events", "mss", "netns", "rounds", "src", "srtt_us", "target_bps", "valve_cap_bps", "window_limited"])' \
    "$TMP/flows.json"
# the data flow (lib.sh)
check "flows --json: the data flow has goodput_bps > 1 Mbit/s and its target" \
    jq -e --argjson t $T "$DATA_FLOW | .goodput_bps > 1000000" "$TMP/flows.json"
# alone on the bottleneck the flow takes up to EB: 0.1 <= avr <= 1.1 EB / T
# as a ratio computed from the two rates it is printed with (to 10 digits,
# not rounded to per mille), not 100 times that as a percentage
check "flows --json: avr is the ratio goodput_bps / target_bps (to 1e-9), within 0.1 .. 1.1 EB/T" \
    jq -e --argjson t $T --argjson hi "$(awk -v e=$EB -v t=$T 'BEGIN { print 1.1 * e / t }')" \
    "$DATA_FLOW | (.avr / (.goodput_bps / .target_bps) - 1) as \$d | .avr >= 0.1 and .avr <= \$hi and \$d <= 1e-9 and \$d >= -1e-9" \
    "$TMP/flows.json"

# --- apqos show --json: tc's names (rate_bps, ceil_bps), an escaped ifname
. "$(dirname "$0")/apqos_lib.sh"
odd_if='q"\x'
# a veth pair: this kernel may have no dummy driver
ip netns exec "$TB_SND" ip link add "$odd_if" type veth peer name qpeer ||
    stop_here "no veth interface named $odd_if in $TB_SND"
ip netns exec "$TB_SND" ip link set "$odd_if" up
ip netns exec "$TB_SND" "$APQOS" -i "$odd_if" --link-rate 30M guarantee 02:00:00:00:00:0a 5M >/dev/null
ip netns exec "$TB_SND" "$APQOS" -i "$odd_if" show --json >"$TMP/qos.json" || true
echo "# apqos show --json: $(head -c 300 "$TMP/qos.json")"
check "apqos show --json parses, the interface name escaped and read back" \
    jq -e '.interface == "q\"\\x" and .tree == "apqos" and .link_rate_bps == 30000000' "$TMP/qos.json"
check "apqos show --json: the station's class has rate_bps 5M and ceil_bps under the glossary's names" \
    jq -e 'any(.classes[]; .role == "station" and .station == "02:00:00:00:00:0a" and .rate_bps == 5000000
        and (.ceil_bps | type) == "number")' "$TMP/qos.json"
ip netns exec "$TB_SND" ip link del "$odd_if"
finish
