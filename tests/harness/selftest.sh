#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/harness/selftest.sh - tests/run.sh catches each of the deliberately
# bad tests in tests/harness/fixtures/ (TESTS lists them, with a few good
# ones), and a test that reads stdin eats nothing: the test after it still
# runs and counts. TAP lines; exit status 1 on a failure. No root needed.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
fixtures=$top/tests/harness/fixtures
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tcpav-harness.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
# check, tap_passing, tap_finish
# shellcheck source=../lib/tap.sh
. "$top/tests/lib/tap.sh"
# has FILE TEXT: a line of FILE is exactly TEXT
has() { grep -qxF -e "$2" "$1"; }
# has_prefix FILE TEXT: a line of FILE begins with TEXT
has_prefix() { awk -v p="$2" 'index($0, p) == 1 { found = 1 } END { exit !found }' "$1"; }
failed_for() { has_prefix "$1" "$2: FAILED: "; }

# The fixtures' run, with text on run.sh's own stdin too: neither that nor
# the list may reach a test.
rc=0
printf 'after_stdin.sh\nleft on stdin\n' |
    TCPAV_ALLOW_SKIP=0 "$top/tests/run.sh" --tests-file "$fixtures/TESTS" >"$tmp/out" 2>&1 || rc=$?

check "the run over the bad fixtures fails (exit $rc)" test "$rc" -ne 0
check "closing line: 17 passed, 10 failed, 2 skipped ($(tail -n 1 "$tmp/out"))" \
    test "$(tail -n 1 "$tmp/out")" = "17 passed, 10 failed, 2 skipped"
check "stdin: reads_stdin.sh reads nothing (stdin is /dev/null)" \
    has "$tmp/out" "reads_stdin.sh: ok 1 - stdin is empty"
check "stdin: after_stdin.sh, listed after it, still runs" \
    has "$tmp/out" "after_stdin.sh: ok 1 - runs after a test that reads stdin"
check "stdin: ... and counts (its plan checked: no failure of its own)" \
    eval "has '$tmp/out' 'after_stdin.sh: ok 2 - and counts' && ! failed_for '$tmp/out' after_stdin.sh"
check "plan: 1..3 with two result lines fails" \
    has "$tmp/out" "plan_disagrees.sh: FAILED: its plan is 1..3 but it printed 2 result lines"
check "no result line (plan 1..0) fails" \
    has "$tmp/out" "no_result.sh: FAILED: printed no result line (ok/not ok/skip)"
check "no plan fails" \
    has "$tmp/out" "no_plan.sh: FAILED: printed no plan (1..N): it may have stopped early"
check "exit status 3 after all ok fails" \
    has "$tmp/out" "exits_nonzero.sh: FAILED: exited with status 3"
check "exit status 1 after a 'not ok' is that one failure (no second one)" \
    eval "has '$tmp/out' 'fails_honestly.sh: not ok 1 - the one check' && ! failed_for '$tmp/out' fails_honestly.sh"
check "a repeated result number fails" \
    has "$tmp/out" "misnumbered.sh: FAILED: result line 2 is numbered '1'"
check "a check left out with a '# skipping' comment fails" \
    has_prefix "$tmp/out" "comment_skip.sh: FAILED: a check left out with a comment ('# skipping the IPv6 check"
check "a plan between result lines fails" \
    has "$tmp/out" "plan_between.sh: FAILED: its plan came between result lines"
check "a listed test that is not there fails" \
    has "$tmp/out" "not_there.sh: FAILED: $fixtures/not_there.sh is missing"
check "a test beside TESTS that it does not list fails" \
    has "$tmp/out" "unlisted.sh: FAILED: not listed in $fixtures/TESTS: it would never run"
for good in reads_stdin.sh skips.sh leading_plan.sh; do
    check "$good (a good test) ran and does not fail" \
        eval "has_prefix '$tmp/out' '$good: ok 1 - ' && ! failed_for '$tmp/out' $good"
done
check "every failure is listed at the end" \
    test "$(sed -n '/^# failures:$/,$p' "$tmp/out" | grep -c '^#   ')" -eq 10

# Skips alone: the run fails unless TCPAV_ALLOW_SKIP=1.
rc=0
TCPAV_ALLOW_SKIP=0 "$top/tests/run.sh" --tests-file "$fixtures/SKIPS" >"$tmp/skips" 2>&1 || rc=$?
check "skip lines ('skip N -' and '# SKIP') count as skipped: 3 passed, 0 failed, 2 skipped" \
    test "$(tail -n 1 "$tmp/skips")" = "3 passed, 0 failed, 2 skipped"
check "skips fail the run (exit $rc) and say so" \
    eval "((rc != 0)) && has '$tmp/skips' '# 2 test(s) skipped: the run counts as failed'"
rc=0
TCPAV_ALLOW_SKIP=1 "$top/tests/run.sh" --tests-file "$fixtures/SKIPS" >"$tmp/skips" 2>&1 || rc=$?
check "with TCPAV_ALLOW_SKIP=1 the same run passes (exit $rc)" test "$rc" -eq 0

# A list line may give the test its own time limit ("NAME SECONDS"): a
# test over it is stopped and fails; one under it passes; a limit that is
# not a number of seconds fails as that test, and the list goes on. The
# list is a TESTS, so its folder's *.sh files must be named in it or in
# OPEN beside it, a "NAME SECONDS" line naming NAME.
mkdir "$tmp/limits"
printf '#!/usr/bin/env bash\necho 1..1\nsleep "${1:-0}"\necho ok 1 - woke\n' >"$tmp/limits/sleeper.sh"
printf 'exec bash "$(dirname "$0")/sleeper.sh" 30\n' >"$tmp/limits/slow.sh"
cp "$tmp/limits/sleeper.sh" "$tmp/limits/open_only.sh"
cp "$tmp/limits/sleeper.sh" "$tmp/limits/stray.sh"
printf 'sleeper.sh 20\nslow.sh 1\nsleeper.sh 1s\nsleeper.sh 5 6\n' >"$tmp/limits/TESTS"
printf '# listed, not run\nopen_only.sh 60\n' >"$tmp/limits/OPEN"
rc=0
TCPAV_ALLOW_SKIP=0 "$top/tests/run.sh" --tests-file "$tmp/limits/TESTS" >"$tmp/limits.out" 2>&1 || rc=$?
check "limits: 'sleeper.sh 20' passes, 'slow.sh 1' is stopped, two malformed lines and unlisted stray.sh fail: 1 passed, 4 failed" \
    eval "((rc != 0)) && test \"\$(tail -n 1 '$tmp/limits.out')\" = '1 passed, 4 failed, 0 skipped'"
check "limits: the stopped test fails as a timeout (status 124)" \
    has_prefix "$tmp/limits.out" "slow.sh: FAILED: exited with status 124"
check "limits: a limit that is not seconds names the line" \
    has "$tmp/limits.out" "sleeper.sh: FAILED: $tmp/limits/TESTS: 'sleeper.sh 1s' is not 'NAME [SECONDS]'"
check "limits: so does a line with a field too many" \
    has "$tmp/limits.out" "sleeper.sh: FAILED: $tmp/limits/TESTS: 'sleeper.sh 5 6' is not 'NAME [SECONDS]'"
check "limits: a test listed as 'NAME SECONDS' (in TESTS, or in OPEN beside it) is not reported 'not listed'" \
    eval "! grep -Eq '^(sleeper|slow|open_only)\.sh: FAILED: not listed' '$tmp/limits.out'"
check "limits: stray.sh, in neither list, is" \
    has "$tmp/limits.out" "stray.sh: FAILED: not listed in $tmp/limits/TESTS: it would never run"

# what run.sh printed, for the reader of a failure
tap_passing || sed 's/^/#   | /' "$tmp/out"
tap_finish
