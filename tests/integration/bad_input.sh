#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Bad input gets one line on stderr naming what was wrong, a nonzero exit,
# and changes nothing: the rules, the registration and the pins are the
# same before and after each failed command.
. "$(dirname "$0")/lib.sh"
tcpav_test_begin tavb
"$TCPAVCTL" rule add --dport 5201 --cc tcp_av --rate 8M >/dev/null

state() {
    { "$TCPAVCTL" rule list --json; "$TCPAVCTL" status --json; ls /sys/fs/bpf/tcpav;
      grep -o tcp_av /proc/sys/net/ipv4/tcp_available_congestion_control; true; } 2>&1
}

# bad DESC PATTERN CMD...: CMD fails, prints exactly one stderr line that
# matches PATTERN (grep -E), nothing on stdout, and leaves state() unchanged.
bad() {
    local desc=$1 pattern=$2 rc=0 before after
    shift 2
    before=$(state)
    "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
    after=$(state)
    echo "# $desc: rc=$rc: $(head -c 200 "$TMP/err")"
    check "$desc: nonzero exit" test "$rc" -ne 0
    check "$desc: one line on stderr" test "$(wc -l < "$TMP/err")" -eq 1
    check "$desc: the line names the problem" grep -qE -e "$pattern" "$TMP/err"
    check "$desc: nothing on stdout" test ! -s "$TMP/out"
    check "$desc: nothing changed" test "$before" = "$after"
}

T=$TCPAVCTL
bad "unknown CC name" "nosuchcc" $T rule add --dport 5301 --cc nosuchcc
bad "malformed rate" "--rate '8Q'" $T rule add --dport 5301 --cc tcp_av --rate 8Q
bad "negative rate" "--rate '-5M'" $T rule add --dport 5301 --cc tcp_av --rate -5M
bad "rate with another CC" "only to --cc tcp_av" $T rule add --dport 5301 --cc cubic --rate 8M
bad "exec with a malformed rate" "--rate 'fast'" $T exec --rate fast -- true
bad "port out of range" "--dport '70000'" $T rule add --dport 70000 --cc cubic
bad "port zero" "--sport '0'" $T rule add --sport 0 --cc cubic
bad "bad address" "--dst '10.1.2.300'" $T rule add --dst 10.1.2.300 --cc cubic
bad "unknown DSCP name" "--dscp 'AF44': not a DSCP" $T rule add --dport 5301 --cc cubic --dscp AF44
bad "DSCP above 63" "--dscp '64': a DSCP is 0-63" $T rule add --dport 5301 --cc cubic --dscp 64
bad "TOS byte given as a DSCP" "--dscp '136': a DSCP is 0-63" $T rule add --dport 5301 --cc cubic --dscp 136
bad "negative DSCP" "--dscp '-1': not a DSCP" $T rule add --dport 5301 --cc cubic --dscp -1
bad "empty DSCP" "--dscp '': not a DSCP" $T rule add --dport 5301 --cc cubic --dscp ""
bad "bad DSCP after a good rate" "--dscp 'EF2'" $T rule add --dport 5301 --cc tcp_av --rate 8M --dscp EF2
bad "exec with a bad DSCP" "--dscp 'AF44': not a DSCP" $T exec --cc cubic --dscp AF44 -- touch "$TMP/dscp-ran"
check "exec with a bad DSCP: the command did not run" test ! -e "$TMP/dscp-ran"
bad "prefix too long" "prefix length" $T rule add --src 10.0.0.0/33 --cc cubic
bad "not a cgroup" "not a cgroup v2" $T rule add --cgroup /tmp --cc cubic
bad "rule del of a missing id" "no rule with id 999" $T rule del 999
bad "unknown command" "unknown command 'frobnicate'" $T frobnicate
bad "unknown option" "unknown option" $T --frobnicate status
mkdir -p "$TMP/plain"
bad "pin dir not on bpffs" "not a BPF filesystem" $T --pin-dir "$TMP/plain/tcpav" load
bad "no pins there (bpffs without tcp_av)" "not loaded" $T --pin-dir /sys/fs/bpf/tcpav-none rule list
bad "bpffs not mounted" "not loaded" unshare -m --propagation private \
    sh -c "umount /sys/fs/bpf 2>/dev/null; umount /sys/fs/bpf 2>/dev/null; exec $T rule list"
bad "no BTF" "BTF /nonexistent/vmlinux" $T --btf /nonexistent/vmlinux load
# the BTF of a kernel before 6.10 (tests/btf): refused before anything is done
PRE610=$TCPAV_BUILD
PRE610=$PRE610/tests/cong_control_pre610.o
bad "kernel older than 6.10 (its BTF)" "too old for tcp_av: it needs Linux 6\.10 or later" $T --btf "$PRE610" load
bad "not root: rule add" "needs root" setpriv --reuid=65534 --regid=65534 --clear-groups \
    $T rule add --dport 5301 --cc cubic
bad "not root: unload" "needs root" setpriv --reuid=65534 --regid=65534 --clear-groups $T unload
"$TCPAVCTL" unload >/dev/null
bad "not root: load" "needs root" setpriv --reuid=65534 --regid=65534 --clear-groups $T load
bad "no BTF (not loaded)" "BTF /nonexistent/vmlinux" $T --btf /nonexistent/vmlinux load
bad "kernel older than 6.10 (not loaded)" "cong_control takes 4 arguments \(here 2\)" $T --btf "$PRE610" load
bad "kernel older than 6.10, not root (not loaded)" "needs Linux 6\.10" setpriv --reuid=65534 --regid=65534 \
    --clear-groups $T --btf "$PRE610" load
bad "pin dir not on bpffs (not loaded)" "not a BPF filesystem" $T --pin-dir "$TMP/plain/tcpav" load
check "the failed loads registered nothing" bash -c '! grep -qw tcp_av /proc/sys/net/ipv4/tcp_available_congestion_control'
check "after the test: nothing left" nothing_left tavb
finish
