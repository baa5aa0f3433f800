#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# apqos manages its tree: guarantee by MAC, IPv4 and IPv6 (one class and
# one filter each, lowest free class id), guaranteeing again updates the
# class (no duplicate class or filter), del, the link rate, a failed
# change rolled back, clear; and a root qdisc apqos did not create (a tbf,
# an htb set up by tc) is never replaced or removed without --force, and
# is with it. Checked against tc's own view. Namespaces aqm-snd/aqm-rcv
# (10.87.3.x), no traffic; cleans up on any exit.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/apqos_lib.sh"

NAME=aqm
apqos_pair_up "$NAME" 87
qos() { ip netns exec "$NS" "$APQOS" -i "$DEV" "$@"; }
tcn() { ip netns exec "$NS" tc "$@"; }
M1=02:00:00:00:00:01 M2=02:00:00:00:00:02 IP4=10.87.3.2 IP6=2001:db8::2

# class_is CLASSID RATE CEIL: tc shows the HTB class with that rate and ceil
class_is() { tcn class show dev "$DEV" classid "$1" | grep -q "rate $2 ceil $3 "; }
nclasses() { tcn class show dev "$DEV" | grep -c '^class htb'; }
nfilters() { tcn filter show dev "$DEV" | grep -c 'flowid'; }
root_is() { tcn -j qdisc show dev "$DEV" | jq -e --arg k "$1" --arg h "$2" 'any(.[]; .root == true and .kind == $k and .handle == $h)' >/dev/null; }
no_root_qdisc() { tcn -j qdisc show dev "$DEV" | jq -e 'all(.[]; .root != true or .handle == "0:")' >/dev/null; }
station_is() { qos show --json | jq -e --arg c "$1" --arg s "$2" 'any(.classes[]; .class == $c and .station == $s)' >/dev/null; }
same_config() { tc_config "$NS" "$DEV" > "$TMP/now"; cmp -s "$1" "$TMP/now"; }

# refused DESC VERB ARGS...: apqos ARGS fails with one line naming the
# foreign root and --force, exit 1, configuration unchanged
refused() {
    local desc=$1 rc=0
    shift
    tc_config "$NS" "$DEV" > "$TMP/before"
    qos "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
    echo "# $desc: rc=$rc: $(head -c 300 "$TMP/err")"
    check "$desc: exit status 1" test "$rc" -eq 1
    check "$desc: one line naming the foreign root and --force" \
        test "$(wc -l < "$TMP/err")" -eq 1 -a -n "$(grep -E '^apqos: .*is not apqos.s \(--force' "$TMP/err")"
    check "$desc: tc configuration unchanged" same_config "$TMP/before"
}

# 1. building the tree
check "show with no tree: exit 0, says so" grep -q 'no apqos tree' <(qos show)
check "show --json with no tree" jq -e '.tree == "none" and .classes == []' <(qos show --json)
check "guarantee $M1 5M (creates the tree)" qos --link-rate 100M guarantee $M1 5M
check "root qdisc htb 1:, default fffe" root_is htb 1:
check "tc: root class 1:1 at the link rate" class_is 1:1 100Mbit 100Mbit
check "tc: station class 1:10 rate 5M ceil = link" class_is 1:10 5Mbit 100Mbit
check "tc: default class 1:fffe gets the rest (95M)" class_is 1:fffe 95Mbit 100Mbit
check "tc: one filter to 1:10 on the destination MAC" \
    grep -qz 'flowid 1:10.*match 00000200/0000ffff at -16.*match 00000001/ffffffff at -12' <(tcn filter show dev "$DEV")
check "guarantee $IP4 3M --ceil 50M" qos guarantee $IP4 3M --ceil 50M
check "guarantee $IP6 2mbit (tc's form)" qos guarantee $IP6 2mbit
check "tc: 1:11 (IPv4) rate 3M ceil 50M" class_is 1:11 3Mbit 50Mbit
check "tc: 1:12 (IPv6) rate 2M ceil 100M" class_is 1:12 2Mbit 100Mbit
check "tc: IPv4 filter on the destination address" \
    grep -qz 'protocol ip pref 17 .*flowid 1:11.*match 0a570302/ffffffff at 16' <(tcn filter show dev "$DEV")
check "tc: IPv6 filter on the destination address" \
    grep -qz 'protocol ipv6 pref 18 .*flowid 1:12.*match 20010db8/ffffffff at 24.*match 00000002/ffffffff at 36' <(tcn filter show dev "$DEV")
check "tc: default class 90M" class_is 1:fffe 90Mbit 100Mbit
check "5 classes, 3 filters" test "$(nclasses):$(nfilters)" = 5:3
check "show maps classes to stations" eval 'station_is 1:10 $M1 && station_is 1:11 $IP4 && station_is 1:12 $IP6'
check "show (text) lists the three stations" test "$(qos show | grep -c ' station ')" -eq 3

# 2. guaranteeing again updates, no duplicates
check "guarantee $M1 8M --ceil 60M again" qos guarantee $M1 8M --ceil 60M
check "tc: 1:10 now rate 8M ceil 60M" class_is 1:10 8Mbit 60Mbit
check "still 5 classes, 3 filters" test "$(nclasses):$(nfilters)" = 5:3
check "tc: default class 87M" class_is 1:fffe 87Mbit 100Mbit
tc_config "$NS" "$DEV" > "$TMP/snap"
check "the same guarantee (upper-case MAC) once more" qos guarantee "${M1^^}" 8M ceil 60M
check "... changes nothing" same_config "$TMP/snap"

# 3. del, and the freed class id is reused
check "del $IP4" qos del $IP4
check "tc: 1:11 and its filter are gone" eval '! tcn class show dev "$DEV" classid 1:11 | grep -q . && ! tcn filter show dev "$DEV" | grep -q "pref 17"'
check "tc: default class back to 90M" class_is 1:fffe 90Mbit 100Mbit
check "guarantee $M2 1M takes the lowest free id, 1:11" qos guarantee $M2 1M
check "... shown as 1:11" station_is 1:11 $M2
check "5 classes, 3 filters" test "$(nclasses):$(nfilters)" = 5:3

# 4. the link rate
check "setup --link-rate 50M changes the link rate" qos --link-rate 50M setup
check "tc: 1:1 at 50M, stations that followed the link now ceil 50M" \
    eval 'class_is 1:1 50Mbit 50Mbit && class_is 1:12 2Mbit 50Mbit && class_is 1:11 1Mbit 50Mbit'
check "tc: 1:10's explicit ceil (60M) capped at the link (50M)" class_is 1:10 8Mbit 50Mbit
check "tc: default class 39M" class_is 1:fffe 39Mbit 50Mbit
tc_config "$NS" "$DEV" > "$TMP/snap"
rc=0; qos --link-rate 10M setup 2>"$TMP/err" || rc=$?
check "setup --link-rate 10M below the guarantees (11M) fails, one line ($(head -c 120 "$TMP/err"))" \
    test "$rc" -eq 1 -a "$(wc -l < "$TMP/err")" -eq 1
check "... changes nothing" same_config "$TMP/snap"

# 5. a change failing halfway is rolled back: handle 13: (the next
# station's pfifo) taken by hand as the default class's leaf
check "tc: replace the default leaf by pfifo handle 13:" \
    tcn qdisc replace dev "$DEV" parent 1:fffe handle 13: pfifo limit 50
tc_config "$NS" "$DEV" > "$TMP/snap"
rc=0; qos guarantee 02:00:00:00:00:03 1M 2>"$TMP/err" || rc=$?
echo "# halfway failure: rc=$rc: $(cat "$TMP/err")"
check "guarantee failing at the pfifo: exit 1, one line naming it" \
    test "$rc" -eq 1 -a "$(wc -l < "$TMP/err")" -eq 1 -a -n "$(grep '^apqos: add pfifo qdisc 13: on ' "$TMP/err")"
check "... class 1:13 removed again, configuration as before" same_config "$TMP/snap"

# 6. clear
check "clear" qos clear
check "tc: no root qdisc left" no_root_qdisc
check "clear again: nothing to do, exit 0" qos clear
check "setup on a veth without --link-rate uses its speed (10 Gbit/s)" qos setup
check "tc: 1:1 at 10Gbit" class_is 1:1 10Gbit 10Gbit
check "clear" qos clear

# 7. a foreign root qdisc: tbf set by tc
check "tc: add root tbf" tcn qdisc add dev "$DEV" root tbf rate 1mbit burst 10k latency 50ms
refused "guarantee over a tbf" --link-rate 100M guarantee $M1 5M
refused "setup over a tbf" --link-rate 100M setup
refused "clear of a tbf" clear
check "show over a tbf: tree foreign, no classes" jq -e '.tree == "foreign" and (.root_qdisc | startswith("tbf ")) and .classes == []' <(qos show --json)
check "guarantee --force replaces the tbf" qos --force --link-rate 100M guarantee $M1 5M
check "tc: root htb 1: with station class 1:10" eval 'root_is htb 1: && class_is 1:10 5Mbit 100Mbit'
check "clear" qos clear

# 8. a foreign htb (ap.sh's: htb 1: default 10)
check "tc: add root htb 1: default 10 with class 1:10" eval \
    'tcn qdisc add dev "$DEV" root handle 1: htb default 10 && tcn class add dev "$DEV" parent 1: classid 1:10 htb rate 20mbit quantum 1514'
refused "guarantee over a foreign htb" --link-rate 100M guarantee $M1 5M
refused "clear of a foreign htb" clear
check "clear --force removes it" qos --force clear
check "tc: no root qdisc left" no_root_qdisc
finish
