#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# apstat where it cannot work, and on bad input. On a kernel without
# cfg80211 (no "nl80211" generic netlink family) `apstat -i lo` says so in
# exactly one line and exits 1; with cfg80211, lo is still not wireless and
# the dump fails in one line naming lo. The interface is checked before
# nl80211 (so that a typo is what one hears about): an unknown interface
# is one line naming it, exit 1, whatever the kernel. Bad usage (a missing
# -i, a bad --interval or --count, an unknown option) is one line naming
# what was wrong, with a hint to --help, exit 2 (apstat(8), EXIT STATUS).
# Nothing is ever written on stdout in these cases.
. "$(dirname "$0")/lib.sh"
APSTAT=${APSTAT:-$TCPAV_BUILD/bin/apstat}
trap 'rm -rf "$TMP"' EXIT

# bad DESC STATUS PATTERN CMD...: CMD exits with STATUS, prints exactly
# one stderr line, which begins "apstat: " and matches PATTERN (grep -E),
# and nothing on stdout.
bad() {
    local desc=$1 status=$2 pattern=$3 rc=0
    shift 3
    timeout 10 "$@" >"$TMP/out" 2>"$TMP/err" </dev/null || rc=$?
    echo "# $desc: rc=$rc: $(head -c 200 "$TMP/err")"
    check "$desc: exit status $status" test "$rc" -eq "$status"
    check "$desc: one line on stderr" test "$(wc -l < "$TMP/err")" -eq 1
    check "$desc: the line begins 'apstat: '" grep -q '^apstat: ' "$TMP/err"
    check "$desc: the line names the problem" grep -qE -e "$pattern" "$TMP/err"
    check "$desc: nothing on stdout" test ! -s "$TMP/out"
}

check "apstat is built ($APSTAT)" test -x "$APSTAT"
A=$APSTAT

if [[ -d /sys/module/cfg80211 ]]; then
    # cfg80211 is there: lo is not a wireless interface, the kernel says no
    echo "# this kernel has cfg80211: expecting the dump on lo to fail instead"
    LO_PATTERN='^apstat: dump stations on lo: .+'
else
    LO_PATTERN='^apstat: nl80211 not available \(no cfg80211 in this kernel\): cannot dump stations on lo$'
fi
bad "no nl80211 (-i lo)" 1 "$LO_PATTERN" "$A" -i lo
bad "no nl80211, with --interval (fails at once, no waiting)" 1 "$LO_PATTERN" "$A" -i lo --interval 5 --count 3
bad "no nl80211, --json" 1 "$LO_PATTERN" "$A" -i lo --json
bad "no nl80211, --csv, --interface" 1 "$LO_PATTERN" "$A" --interface lo --csv

bad "unknown interface" 1 '^apstat: nosuchif0: no such interface$' "$A" -i nosuchif0
bad "unknown interface, with --interval" 1 '^apstat: nosuchif0: no such interface$' "$A" -i nosuchif0 --interval 1

bad "missing -i" 2 'missing -i IFACE.*--help' "$A"
bad "missing -i, with --interval" 2 'missing -i IFACE' "$A" --interval 1
bad "-i without a value" 2 "missing argument to '-i'" "$A" -i
bad "--interval 0" 2 "--interval '0': " "$A" -i lo --interval 0
bad "--interval -1" 2 "--interval '-1': " "$A" -i lo --interval -1
bad "--interval abc" 2 "--interval 'abc': " "$A" -i lo --interval abc
bad "--interval 1s" 2 "--interval '1s': " "$A" -i lo --interval 1s
bad "--interval nan" 2 "--interval 'nan': " "$A" -i lo --interval nan
bad "--interval with an empty value" 2 "--interval '': " "$A" -i lo --interval ''
bad "--interval without a value" 2 "missing argument to '--interval'" "$A" -i lo --interval
bad "--count 0" 2 "--count '0': " "$A" -i lo --interval 1 --count 0
bad "--count -2" 2 "--count '-2': " "$A" -i lo --interval 1 --count -2
bad "--count x" 2 "--count 'x': " "$A" -i lo --interval 1 --count x
bad "--count without --interval" 2 '--count needs --interval' "$A" -i lo --count 3
bad "--json and --csv" 2 'at most one of --json and --csv' "$A" -i lo --json --csv
bad "unknown long option" 2 "unknown option '--bogus'.*--help" "$A" -i lo --bogus
bad "unknown short option" 2 "unknown option '-x'" "$A" -i lo -x
bad "an extra argument" 2 "unexpected argument 'wlan0'" "$A" -i lo wlan0

"$A" --help >"$TMP/help" 2>"$TMP/err"
check "--help exits 0 with nothing on stderr" test ! -s "$TMP/err"
for flag in -i --interface --interval --count --json --csv -h --help -V --version; do
    check "--help documents $flag" grep -qe " ${flag}[ ,]" "$TMP/help"
done
check "--version prints the version" grep -q '^apstat [0-9]' <("$A" --version)
finish
