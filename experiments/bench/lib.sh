# shellcheck shell=bash
#
# lib.sh -- what the benchmark scripts share: printed figures also go to
# the run's summary file ($SUMMARY, set by the script before use).
#
#   say TEXT...        print a line, and append it to $SUMMARY
#   sayf FMT ARGS...   the same with printf formatting

say() { printf '%s\n' "$*" | tee -a "$SUMMARY"; }

sayf() {
    local fmt=$1
    shift
    # shellcheck disable=SC2059
    printf "$fmt" "$@" | tee -a "$SUMMARY"
}
