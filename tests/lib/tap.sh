# SPDX-License-Identifier: GPL-2.0
# tests/lib/tap.sh - TAP lines for the test scripts that source it (run by
# tests/run.sh, which holds them to their plan):
#   check DESC CMD...   "ok N - DESC" when CMD succeeds (its output
#                       dropped), else "not ok N - DESC"
#   skip_check DESC WHY "skip N - DESC: WHY", for a check that cannot run
#   tap_finish          the plan "1..N"; status 1 after a "not ok"
n=0 failed=0

check() {
	local desc=$1
	shift
	n=$((n + 1))
	if "$@" >/dev/null 2>&1; then echo "ok $n - $desc"; else echo "not ok $n - $desc"; failed=$((failed + 1)); fi
}

skip_check() {
	n=$((n + 1))
	echo "skip $n - $1: $2"
}

tap_finish() {
	echo "1..$n"
	((failed == 0))
}
