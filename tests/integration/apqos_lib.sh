# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# apqos_lib.sh -- what the apqos integration tests share (source after
# lib.sh): the binary, the testbed pair, tc's view of a device, and the
# one-line error check.
#
#   APQOS                    $TCPAV_BUILD/bin/apqos (TCPAV_BUILD: lib.sh, default build)
#   tc_classes NS DEV        "CLASSID BYTES PACKETS DROPS OVERLIMITS BACKLOG" a class,
#                            from `tc -s class show` (iproute2 6.1 prints classes as
#                            text even with -j, so the text is parsed)
#   apqos_classes NS DEV     the same six fields from `apqos show --json`
#   tc_config NS DEV         qdiscs, classes and filters without counters (to compare)
#   bad_qos DESC RC PATTERN CMD...
#                            CMD exits RC, prints exactly one stderr line that
#                            begins "apqos: " and matches PATTERN (grep -E),
#                            and nothing on stdout
#   apqos_pair_up NAME NET   the testbed pair NAME (10.NET.x.x) up, it and $TMP
#                            cleaned up on any exit, apqos checked to be built;
#                            sets NS and DEV, the sender's namespace and device
APQOS=${APQOS:-$TCPAV_BUILD/bin/apqos}
export APQOS

tc_classes() {
    ip netns exec "$1" tc -s class show dev "$2" | awk '
        $1 == "class" { id = $3 }
        $1 == "Sent" { bytes = $2; pkts = $4; drops = $7; sub(/,$/, "", drops); over = $9 }
        $1 == "backlog" && id != "" {
            backlog = $2; sub(/b$/, "", backlog)
            print id, bytes, pkts, drops, over, backlog
            id = ""
        }' | sort
}

apqos_classes() {
    ip netns exec "$1" "$APQOS" -i "$2" show --json |
        jq -r '.classes[] | "\(.class) \(.bytes) \(.packets) \(.drops) \(.overlimits) \(.backlog)"' | sort
}

# Counters excluded: what apqos may change, as tc shows it.
tc_config() {
    ip netns exec "$1" tc -j qdisc show dev "$2"
    echo
    ip netns exec "$1" tc class show dev "$2" | sort
    ip netns exec "$1" tc filter show dev "$2"
}

bad_qos() {
    local desc=$1 want=$2 pattern=$3 rc=0
    shift 3
    "$@" >"$TMP/out" 2>"$TMP/err" </dev/null || rc=$?
    echo "# $desc: rc=$rc: $(head -c 300 "$TMP/err")"
    check "$desc: exit status $want" test "$rc" -eq "$want"
    check "$desc: one line on stderr" test "$(wc -l < "$TMP/err")" -eq 1
    check "$desc: the line begins 'apqos: '" grep -q '^apqos: ' "$TMP/err"
    check "$desc: the line names the problem" grep -qE -e "$pattern" "$TMP/err"
    check "$desc: nothing on stdout" test ! -s "$TMP/out"
}

apqos_pair_up() {
    export TB_NET=$2
    # shellcheck disable=SC2034 # read by tb_trap_cleanup's trap
    TB_EXTRA_CLEANUP="rm -rf \"\$TMP\""
    tb_trap_cleanup "$1"
    check "apqos is built ($APQOS)" test -x "$APQOS"
    tb_pair_up "$1"
    # shellcheck disable=SC2034 # for the test that sourced this
    NS=$TB_SND DEV=$TB_SND_DEV
}
