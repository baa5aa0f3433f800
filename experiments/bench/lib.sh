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
