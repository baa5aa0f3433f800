#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# avmon on bad input: a missing file, files that are not captures, an
# unsupported link type, a bad filter, malformed --target and --format
# values, an interface it may not capture on and one that does not exist.
# Each gives exactly one line on stderr, beginning "avmon: " and naming the
# problem (and the file or interface), nothing on stdout, and exit status 1
# (avmon(1), EXIT STATUS).
. "$(dirname "$0")/lib.sh"
AVMON=${AVMON:-$TCPAV_BUILD/bin/avmon}
trap 'rm -rf "$TMP"' EXIT

# bad DESC PATTERN CMD...: CMD exits with status 1, prints exactly one
# stderr line, which begins "avmon: " and matches PATTERN (grep -E), and
# nothing on stdout.
bad() {
    local desc=$1 pattern=$2 rc=0
    shift 2
    "$@" >"$TMP/out" 2>"$TMP/err" </dev/null || rc=$?
    echo "# $desc: rc=$rc: $(head -c 200 "$TMP/err")"
    check "$desc: exit status 1" test "$rc" -eq 1
    check "$desc: one line on stderr" test "$(wc -l < "$TMP/err")" -eq 1
    check "$desc: the line begins 'avmon: '" grep -q '^avmon: ' "$TMP/err"
    check "$desc: the line names the problem" grep -qE -e "$pattern" "$TMP/err"
    check "$desc: nothing on stdout" test ! -s "$TMP/out"
}

# pcap_file FILE LINKTYPE [RECORD_HEX]: a little-endian pcap (microseconds,
# version 2.4, snaplen 65535) of link type LINKTYPE (< 256), with one
# record of the given bytes (hex escapes, for printf) if given.
pcap_file() {
    local hex
    hex=$(printf '\\x%02x' "$2")
    printf '%b' "\\xd4\\xc3\\xb2\\xa1\\x02\\x00\\x04\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\xff\\xff\\x00\\x00${hex}\\x00\\x00\\x00" > "$1"
    if [[ -n ${3:-} ]]; then
        # ts 0.0, caplen = len = 4
        printf '\x00\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x04\x00\x00\x00' >> "$1"
        printf '%b' "$3" >> "$1"
    fi
}

check "avmon is built ($AVMON)" test -x "$AVMON"
A=$AVMON
ETH=$TMP/eth.pcap    # a valid, empty Ethernet capture: only the option is wrong
pcap_file "$ETH" 1
check "avmon reads the valid capture used below" "$A" -r "$ETH" --format json
pcap_file "$TMP/user0.pcap" 147 '\xde\xad\xbe\xef'
printf 'hello, this is not a capture\n' > "$TMP/notes.txt"
printf 'vm\n' > "$TMP/short.txt"   # shorter than a pcap header, like a one-word /etc/hostname
: > "$TMP/empty.pcap"

bad "missing file" "$TMP/nonexistent\\.pcap: No such file" "$A" -r "$TMP/nonexistent.pcap"
bad "a text file" "$TMP/notes\\.txt: .*(unknown file format|not a (pcap|capture))" "$A" -r "$TMP/notes.txt"
bad "a 3-byte file" "$TMP/short\\.txt: " "$A" -r "$TMP/short.txt"
bad "an empty file" "$TMP/empty\\.pcap: " "$A" -r "$TMP/empty.pcap"
bad "a directory" "$TMP: " "$A" -r "$TMP"
bad "unknown link type (147, USER0)" "$TMP/user0\\.pcap: link type 147 .*not supported" "$A" -r "$TMP/user0.pcap"
bad "bad filter expression" "bad filter 'tcp port': " "$A" -r "$ETH" tcp port
bad "filter with a port out of range" "bad filter 'tcp port 99999': " "$A" -r "$ETH" tcp port 99999
bad "--target without a rate" "--target '10.0.0.2': .*RATE" "$A" -r "$ETH" --target 10.0.0.2
bad "--target with an empty rate" "--target '10.0.0.2:5201=': .*rate" "$A" -r "$ETH" --target 10.0.0.2:5201=
bad "--target with a bad address" "--target '10.0.0.300:5201=8M': .*address" "$A" -r "$ETH" --target 10.0.0.300:5201=8M
bad "--target with a host name" "--target 'server:5201=8M': .*address" "$A" -r "$ETH" --target server:5201=8M
bad "--target with port 70000" "--target '10.0.0.2:70000=8M': .*port" "$A" -r "$ETH" --target 10.0.0.2:70000=8M
bad "--target with port 0" "--target '10.0.0.2:0=8M': .*port" "$A" -r "$ETH" --target 10.0.0.2:0=8M
bad "--target with rate 'fast'" "--target '10.0.0.2:5201=fast': .*rate" "$A" -r "$ETH" --target 10.0.0.2:5201=fast
bad "--target with a negative rate" "--target '10.0.0.2:5201=-8M': .*rate" "$A" -r "$ETH" --target 10.0.0.2:5201=-8M
bad "--target with rate 0" "--target '10.0.0.2:5201=0': .*rate" "$A" -r "$ETH" --target 10.0.0.2:5201=0
bad "--target IPv6 without ']'" "--target '\\[2001:db8::2:5201=8M': " "$A" -r "$ETH" --target '[2001:db8::2:5201=8M'
bad "bad --format" "--format 'xml': " "$A" -r "$ETH" --format xml
bad "--format without a value" "--format" "$A" -r "$ETH" --format

check "user nobody can run avmon at all (-V)" \
    setpriv --reuid=65534 --regid=65534 --clear-groups "$A" -V
bad "no permission to capture on lo" "lo: permission denied" \
    setpriv --reuid=65534 --regid=65534 --clear-groups "$A" -i lo
bad "nonexistent interface" "avmonnone0: no such interface" "$A" -i avmonnone0
bad "nonexistent interface, with a filter" "avmonnone0: no such interface" "$A" -i avmonnone0 tcp
finish
