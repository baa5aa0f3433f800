#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# apqos on bad input: an unknown interface, bad MAC and IP addresses, bad
# rates, airtime weights out of range, missing arguments, an unknown
# command or option. Each gives exactly one line on stderr, beginning
# "apqos: " and naming the problem, nothing on stdout, exit status 2
# (usage) or 1 (runtime), and leaves the interface's tc configuration
# (qdiscs, classes, filters) as it was. `airtime` on this kernel (no
# cfg80211) says "nl80211 not available". Namespaces aqb-snd/aqb-rcv
# (10.86.3.x), no traffic; cleans up on any exit.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/apqos_lib.sh"

NAME=aqb
apqos_pair_up "$NAME" 86
Q=(ip netns exec "$NS" "$APQOS")

# bad DESC RC PATTERN ARGS...: apqos ARGS in NS fails as bad_qos says and
# the tc configuration of DEV is unchanged
bad() {
    local desc=$1 rc=$2 pattern=$3
    shift 3
    tc_config "$NS" "$DEV" > "$TMP/before"
    bad_qos "$desc" "$rc" "$pattern" "${Q[@]}" "$@"
    tc_config "$NS" "$DEV" > "$TMP/after"
    check "$desc: tc configuration unchanged" cmp -s "$TMP/before" "$TMP/after"
}

check "a tree with one station to leave alone" \
    "${Q[@]}" -i "$DEV" --link-rate 100M guarantee 02:00:00:00:00:01 10M
check "... shown by tc" grep -q 'flowid 1:10' <(ip netns exec "$NS" tc filter show dev "$DEV")

bad "unknown interface" 1 "aqnone0: no such interface" -i aqnone0 guarantee 02:00:00:00:00:02 1M
bad "unknown interface (show)" 1 "aqnone0: no such interface" -i aqnone0 show
bad "MAC too short" 2 "bad station 'aa:bb:cc:dd:ee'" -i "$DEV" guarantee aa:bb:cc:dd:ee 1M
bad "MAC with bad hex" 2 "bad station 'aa:bb:cc:dd:ee:gg'" -i "$DEV" guarantee aa:bb:cc:dd:ee:gg 1M
bad "MAC with 7 octets" 2 "bad station 'aa:bb:cc:dd:ee:ff:00'" -i "$DEV" guarantee aa:bb:cc:dd:ee:ff:00 1M
bad "bad IPv4 address" 2 "bad station '10.0.0.300'" -i "$DEV" guarantee 10.0.0.300 1M
bad "bad IPv6 address" 2 "bad station '2001:db8::g'" -i "$DEV" guarantee 2001:db8::g 1M
bad "a host name" 2 "bad station 'laptop'" -i "$DEV" del laptop
bad "rate 'fast'" 2 "bad rate 'fast'" -i "$DEV" guarantee 02:00:00:00:00:02 fast
bad "rate 0" 2 "bad rate '0'" -i "$DEV" guarantee 02:00:00:00:00:02 0
bad "rate in bytes (15mbps)" 2 "bad rate '15mbps'" -i "$DEV" guarantee 02:00:00:00:00:02 15mbps
bad "negative rate" 2 "bad value '-5M'" -i "$DEV" guarantee 02:00:00:00:00:02 -5M
bad "bad --ceil" 2 "bad --ceil 'lots'" -i "$DEV" guarantee 02:00:00:00:00:02 1M --ceil lots
bad "ceil below the rate" 2 "ceil 1 Mbit/s is below the rate 5 Mbit/s" -i "$DEV" guarantee 02:00:00:00:00:02 5M --ceil 1M
bad "bad --link-rate" 2 "bad --link-rate '30 M'" -i "$DEV" --link-rate "30 M" guarantee 02:00:00:00:00:02 1M
bad "rate above the link rate" 1 "rate 200 Mbit/s is above the link rate 100 Mbit/s" -i "$DEV" guarantee 02:00:00:00:00:02 200M
bad "guarantees above the link rate" 1 "guarantees would total 105 Mbit/s, above the link rate 100 Mbit/s" -i "$DEV" guarantee 02:00:00:00:00:02 95M
bad "del of a station without a guarantee" 1 "no guarantee for this station" -i "$DEV" del 02:00:00:00:00:09
bad "airtime weight 0" 2 "bad weight '0'" -i "$DEV" airtime aa:bb:cc:dd:ee:ff 0
bad "airtime weight 65536" 2 "bad weight '65536'" -i "$DEV" airtime aa:bb:cc:dd:ee:ff 65536
bad "airtime weight 'heavy'" 2 "bad weight 'heavy'" -i "$DEV" airtime aa:bb:cc:dd:ee:ff heavy
bad "airtime for an IP address" 2 "'10.0.0.2' is an IP address" -i "$DEV" airtime 10.0.0.2 100
bad "airtime without a weight" 2 "usage: airtime STA WEIGHT" -i "$DEV" airtime aa:bb:cc:dd:ee:ff
bad "guarantee without a rate" 2 "usage: guarantee STA RATE" -i "$DEV" guarantee 02:00:00:00:00:02
bad "del without a station" 2 "usage: del STA" -i "$DEV" del
bad "no command" 2 "no command" -i "$DEV"
bad "no interface" 2 "no interface" show
bad "unknown command" 2 "unknown command 'frob'" -i "$DEV" frob
bad "unknown option" 2 "unknown option '--bogus'" -i "$DEV" --bogus show
bad "unknown short option" 2 "unknown option '-z'" -i "$DEV" -z show
bad "--ceil on show" 2 "--ceil is an option of guarantee" -i "$DEV" show --ceil 1M
bad "-i without a value" 2 "-i needs a value" -i
bad "airtime without nl80211" 1 "nl80211 not available" -i "$DEV" airtime aa:bb:cc:dd:ee:ff 100
finish
