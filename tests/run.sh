#!/usr/bin/env bash
# tests/run.sh - runs the test suite and prints one closing line
# "N passed, N failed, N skipped".
#
#   tests/run.sh BUILD [SANBUILD]        unit tests (plain and ASan/UBSan
#                                        builds), then integration tests (some
#                                        also with the ASan/UBSan tcpavctl)
#   tests/run.sh --unit-only BUILD
#   tests/run.sh --integration-only BUILD
#
# Golden tests of avmon (tests/golden/GOLDEN) run with the unit tests.
# Every test prints TAP-style "ok N - ..." / "not ok N - ..." / "skip N - ..."
# lines; integration tests are listed, in order, in tests/integration/TESTS.
# A skipped test is reported loudly and makes the run fail: nothing that did
# not run is counted as passing (set TCPAV_ALLOW_SKIP=1 to accept skips).
set -uo pipefail
cd "$(dirname "$0")/.."

mode=all
case ${1:-} in
--unit-only) mode=unit; shift ;;
--integration-only) mode=integration; shift ;;
esac
build=${1:?usage: tests/run.sh [--unit-only|--integration-only] BUILD [SANBUILD]}
sanbuild=${2:-}
passed=0 failed=0 skipped=0
failed_names=()

# run_one LABEL CMD...: runs a test program, prefixes and counts its lines.
run_one() {
	local label=$1 line rc=
	shift
	echo "# $label"
	while IFS= read -r line; do
		case $line in
		__rc=*) rc=${line#__rc=}; continue ;;
		"ok "*) passed=$((passed + 1)); echo "$label: $line" ;;
		"not ok "*) failed=$((failed + 1)); failed_names+=("$label: ${line#not ok }"); echo "$label: $line" ;;
		"skip "*) skipped=$((skipped + 1)); echo "$label: $line" ;;
		*) echo "$label: $line" ;;
		esac
	done < <("$@" 2>&1; echo "__rc=$?")
	if [[ $rc != 0 ]]; then
		echo "$label: exited with status $rc"
		failed=$((failed + 1))
		failed_names+=("$label: exit status $rc")
	fi
}

if [[ $mode != integration ]]; then
	for b in "$build" ${sanbuild:+"$sanbuild"}; do
		for t in "$b"/tests/test_*; do
			[[ -x $t ]] || continue
			run_one "$(basename "$b")/$(basename "$t")" "$t"
		done
	done
fi

if [[ $mode != integration ]]; then
	# avmon against tshark's figures for the shared captures (no root needed)
	for b in "$build" ${sanbuild:+"$sanbuild"}; do
		run_one "$(basename "$b")/golden" tests/golden/golden.sh "$b"
	done
	# a short, bounded libFuzzer run over the decoders and the analysis
	if [[ -n ${TCPAV_FUZZ_SECONDS:-} ]]; then
		run_one fuzz tests/fuzz/run.sh "$build" "$TCPAV_FUZZ_SECONDS"
	fi
fi

if [[ $mode != unit ]]; then
	if [[ $(id -u) != 0 ]]; then
		echo "########################################################################"
		echo "# SKIPPED: integration tests need root (network namespaces, BPF)."
		echo "########################################################################"
		skipped=$((skipped + $(grep -cv '^\s*\(#\|$\)' tests/integration/TESTS)))
	else
		export TCPAV_BUILD=$build TCPAVCTL=$PWD/$build/bin/tcpavctl
		while read -r t; do
			[[ -z $t || $t == \#* ]] && continue
			run_one "$t" timeout --kill-after=10 300 bash "tests/integration/$t"
		done < tests/integration/TESTS
		# the tests that drive tcpavctl, libtcpav, apstat and apqos
		# hardest, again with the ASan/UBSan build
		if [[ -n $sanbuild ]]; then
			for t in bad_input.sh rules_exec_api.sh unload_while_running.sh \
				apstat_no_nl80211.sh apqos_bad_input.sh apqos_manage.sh; do
				TCPAV_BUILD=$sanbuild TCPAVCTL=$PWD/$sanbuild/bin/tcpavctl \
					run_one "$(basename "$sanbuild")/$t" timeout --kill-after=10 300 bash "tests/integration/$t"
			done
		fi
	fi
fi

if ((${#failed_names[@]})); then
	echo "# failures:"
	printf '#   %s\n' "${failed_names[@]}"
fi
if ((skipped)) && [[ ${TCPAV_ALLOW_SKIP:-0} != 1 ]]; then
	echo "# $skipped test(s) skipped: the run counts as failed"
fi
echo "$passed passed, $failed failed, $skipped skipped"
((failed == 0)) && { ((skipped == 0)) || [[ ${TCPAV_ALLOW_SKIP:-0} == 1 ]]; }
