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
