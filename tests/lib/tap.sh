# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# tests/lib/tap.sh - TAP lines for the test scripts that source it (run by
# tests/run.sh, which holds them to their plan); the one definition of them:
#   result STATUS DESC  "ok N - DESC" when STATUS is 0, else "not ok N - DESC"
#   check DESC CMD...   result of CMD: "ok N - DESC" when it succeeds, else
#                       "not ok N - DESC"; its output is dropped (its stderr
#                       kept when TAP_KEEP_STDERR=1: the integration tests)
#   skip_check DESC WHY "skip N - DESC: WHY", for a check that cannot run
#   tap_passing         true while no "not ok" was printed
#   tap_finish          the plan "1..N"; status 1 after a "not ok"
# The counters are _tap_n and _tap_failed (not n: tests use that name).
_tap_n=0 _tap_failed=0

result() {
	_tap_n=$((_tap_n + 1))
	if [[ $1 == 0 ]]; then
		echo "ok $_tap_n - $2"
	else
		echo "not ok $_tap_n - $2"
		_tap_failed=$((_tap_failed + 1))
	fi
}

# (its locals have names no caller uses: CMD may be an eval of the caller's)
check() {
	local _tap_desc=$1 _tap_rc=0
	shift
	if [[ ${TAP_KEEP_STDERR:-0} == 1 ]]; then
		"$@" >/dev/null || _tap_rc=$?
	else
		"$@" >/dev/null 2>&1 || _tap_rc=$?
	fi
	result "$_tap_rc" "$_tap_desc"
}

skip_check() {
	_tap_n=$((_tap_n + 1))
	echo "skip $_tap_n - $1: $2"
}

tap_passing() { ((_tap_failed == 0)); }

tap_finish() {
	echo "1..$_tap_n"
	((_tap_failed == 0))
}
