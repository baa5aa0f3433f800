# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# lib.sh -- what the benchmark scripts share: printed figures also go to
# the run's summary file ($SUMMARY, set by the script before use).
#
#   say TEXT...        print a line, and append it to $SUMMARY
#   sayf FMT ARGS...   the same with printf formatting
#   bench_build_dir DIR  the build directory as an absolute path (DIR as
#                      given, or relative to the top of the tree)
#   kill_ns_procs NS   end whatever still runs in namespace NS (TERM, then
#                      KILL after 2 s), never this shell
#   ctl ARGS...        $TCPAVCTL ARGS...
#   tcpav_loaded       tcp_av registered with its maps and policy (status)
#   my_rule_ids, del_my_rules
#                      the ids of the rules whose --dst is $MY_DST (the
#                      benchmark's receiver), and deleting them
#   mbit BPS, ratio A B   bit/s as Mbit/s with 2 decimals ("-" for none);
#                      A/B, empty when either is missing
#   sender_cc FILE, local_port FILE
#                      from an iperf3 client JSON: the sender's congestion
#                      control and the data connection's local port

say() { printf '%s\n' "$*" | tee -a "$SUMMARY"; }

sayf() {
    local fmt=$1
    shift
    # shellcheck disable=SC2059
    printf "$fmt" "$@" | tee -a "$SUMMARY"
}

bench_build_dir() {
    local dir=${1:-build} top
    top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    if [[ -d $dir ]]; then
        (cd "$dir" && pwd)
    elif [[ $dir != /* ]]; then
        echo "$top/$dir"
    else
        echo "$dir"
    fi
}

# kill_ns_procs NS: end whatever still runs in one of our namespaces.
kill_ns_procs() {
    local pids
    pids=$(ip netns pids "$1" 2>/dev/null | grep -vxE "$$|$BASHPID" || true)
    [[ -n $pids ]] || return 0
    # shellcheck disable=SC2086
    kill $pids 2>/dev/null || true
    for _ in $(seq 20); do
        pids=$(ip netns pids "$1" 2>/dev/null | grep -vxE "$$|$BASHPID" || true)
        [[ -n $pids ]] || break
        sleep 0.1
    done
    # shellcheck disable=SC2086
    [[ -z $pids ]] || kill -KILL $pids 2>/dev/null || true
}

ctl() { "$TCPAVCTL" "$@"; }

tcpav_loaded() {
    local s
    s=$(ctl status --json 2>/dev/null) || return 1
    jq -e '.loaded and .registered and .policy_attached' <<<"$s" >/dev/null 2>&1
}

my_rule_ids() {
    ctl rule list --json 2>/dev/null |
        jq -r --arg a "$MY_DST/" '.[]? | select((.dst // "") | startswith($a)) | .id' 2>/dev/null || true
}

del_my_rules() {
    local id
    for id in $(my_rule_ids); do
        ctl rule del "$id" >/dev/null 2>&1 || true
    done
}

mbit() { awk -v b="$1" 'BEGIN { if (b == "" || b == "-") print "-"; else printf "%.2f", b / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b + 0 != 0) printf "%.6g", a / b }'; }
sender_cc() { jq -r '.end.sender_tcp_congestion // "?"' "$1" 2>/dev/null || echo "?"; }
local_port() { jq -r '.start.connected[0].local_port // 0' "$1" 2>/dev/null || echo 0; }
