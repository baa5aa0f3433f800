#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/run.sh - runs the test suite and prints one closing line
# "N passed, N failed, N skipped".
#
#   tests/run.sh BUILD [SANBUILD]        unit tests (plain and ASan/UBSan
#                                        builds), then integration tests (some
#                                        also with the ASan/UBSan tcpavctl)
#   tests/run.sh --unit-only BUILD
#   tests/run.sh --integration-only BUILD
#   tests/run.sh --tests-file FILE       only the tests listed in FILE (a
#                                        line is NAME [SECONDS]: a file name
#                                        relative to FILE's folder, run with
#                                        bash, and its time limit; no root
#                                        needed): tests/harness/selftest.sh
#
# Golden tests of avmon (tests/golden/GOLDEN) and the harness's self-test run
# with the unit tests. Integration tests are listed, in order, in
# tests/integration/TESTS.
#
# Every test runs with stdin from /dev/null and prints TAP lines "ok N - ...",
# "not ok N - ...", "skip N - reason" (or TAP's "ok N - ... # SKIP reason"),
# numbered 1, 2, ... in order, and one plan "1..N" before the first or after
# the last of them. The plan is required: without it a test that stops early
# would look complete. A test fails as a whole (one failure more) when it
# exits nonzero (but for status 1 after a "not ok" line: that failure is
# counted already), prints no result line, prints no plan or one that disagrees
# with its result lines, numbers them out of order, or leaves a check out
# with a comment beginning "skip" instead of a skip line. A unit test that
# was not built, a listed test that is not there, and a test left out of
# its folder's TESTS list fail too.
# A skipped test is reported loudly and makes the run fail: nothing that did
# not run is counted as passing (set TCPAV_ALLOW_SKIP=1 to accept skips).
set -uo pipefail
caller_dir=$PWD
cd "$(dirname "$0")/.."

mode=all tests_file=
case ${1:-} in
--unit-only) mode=unit; shift ;;
--integration-only) mode=integration; shift ;;
--tests-file) mode=list tests_file=${2:?usage: tests/run.sh --tests-file FILE}; shift 2 ;;
esac
[[ -z $tests_file || $tests_file == /* ]] || tests_file=$caller_dir/$tests_file
if [[ $mode == list ]]; then
	build=${1:-}
else
	build=${1:?usage: tests/run.sh [--unit-only|--integration-only] BUILD [SANBUILD] | --tests-file FILE}
fi
sanbuild=${2:-}
# abs DIR: DIR from the repository's top, or as given when absolute
abs() { if [[ $1 == /* ]]; then echo "$1"; else echo "$PWD/$1"; fi; }
passed=0 failed=0 skipped=0
failed_names=()

# run_one LABEL CMD...: runs a test program with stdin from /dev/null (a
# test that reads stdin must not eat the list of tests), prefixes and counts
# its result lines, and holds it to its plan (see the top of this file).
run_one() {
	local label=$1 line lower rc= results=0 not_ok=0 plan= plan_after= kind number misnumbered=
	local -a problems=()
	shift
	echo "# $label"
	while IFS= read -r line; do
		case $line in
		__rc=*) rc=${line#__rc=}; continue ;;
		'') continue ;;
		esac
		echo "$label: $line"
		if [[ $line =~ ^(ok|not\ ok|skip)([[:space:]]+([0-9]+))?([[:space:]]|$) ]]; then
			results=$((results + 1))
			kind=${BASH_REMATCH[1]} number=${BASH_REMATCH[3]}
			if [[ $kind == skip ]] ||
				[[ $kind == ok && $line =~ [[:space:]]\#[[:space:]]*[Ss][Kk][Ii][Pp] ]]; then
				skipped=$((skipped + 1))
			elif [[ $kind == ok ]]; then
				passed=$((passed + 1))
			else
				failed=$((failed + 1)) not_ok=$((not_ok + 1))
				failed_names+=("$label: ${line#not ok }")
			fi
			# only the first misnumbered line: the rest follow from it
			if [[ $number != "$results" && -z $misnumbered ]]; then
				misnumbered=$results
				problems+=("result line $results is numbered '${number:-(none)}'")
			fi
		elif [[ $line =~ ^1\.\.([0-9]+)([[:space:]]|$) ]]; then
			[[ -n $plan ]] && problems+=("it printed a second plan ($line)")
			plan=${BASH_REMATCH[1]} plan_after=$results
		else
			lower=${line,,}
			if [[ $lower =~ ^\#[[:space:]]*(skip|skipped|skipping)([^a-z]|$) ]]; then
				problems+=("a check left out with a comment ('$line'): print 'skip N - reason'")
			fi
		fi
	done < <("$@" </dev/null 2>&1; printf '\n__rc=%s\n' "$?")
	# exit status 1 after a "not ok" is that failure, already counted
	case $rc in
	0) ;;
	1) ((not_ok)) || problems+=("exited with status 1") ;;
	124 | 137) problems+=("exited with status $rc (timed out?)") ;;
	*) problems+=("exited with status $rc") ;;
	esac
	if ((results == 0)); then
		problems+=("printed no result line (ok/not ok/skip)")
	elif [[ -z $plan ]]; then
		problems+=("printed no plan (1..N): it may have stopped early")
	elif ((plan != results)); then
		problems+=("its plan is 1..$plan but it printed $results result lines")
	elif ((plan_after != 0 && plan_after != results)); then
		problems+=("its plan came between result lines")
	fi
	if ((${#problems[@]})); then
		line=$(printf '%s; ' "${problems[@]}")
		echo "$label: FAILED: ${line%; }"
		failed=$((failed + 1))
		failed_names+=("$label: ${line%; }")
	fi
}

# limited CMD...: CMD with a time limit, generous for any test that is not
# an integration test (those have 300 s each, or their own, in run_list): a test that hangs
# fails as "exited with status 124" instead of holding the run (and CI) up.
# TCPAV_TEST_TIMEOUT sets it (seconds).
limited() { timeout --kill-after=10 "${TCPAV_TEST_TIMEOUT:-900}" "$@"; }

# not_run LABEL WHY: a test that cannot run (not built, listed but absent,
# not listed): a failure, not a test less.
not_run() {
	echo "# $1"
	echo "$1: FAILED: $2"
	failed=$((failed + 1))
	failed_names+=("$1: $2")
}

# list_lines FILE: FILE's lines, without comments ('#' to the line's end)
# and blank lines
list_lines() { sed -e 's/[[:space:]]*#.*//' -e '/^[[:space:]]*$/d' "$1"; }

# run_list FILE: the tests named in FILE, in order, each with bash in FILE's
# folder's terms and a time limit: 300 s, or the seconds a line gives after
# the name ("NAME SECONDS", for a test whose runs are long by design). The
# list is read before any test runs; a malformed line fails as that test.
# A list named TESTS is the whole of its folder: a *.sh file there (but a
# *lib.sh) that it does not name would never run, and fails.
run_list() {
	local dir t line limit extra
	local -a tests lines
	dir=$(dirname "$1")
	mapfile -t lines < <(list_lines "$1")
	for line in "${lines[@]}"; do
		read -r t limit extra <<<"$line"
		tests+=("$t")
		if [[ -n $extra || ( -n $limit && ! $limit =~ ^[1-9][0-9]{0,4}$ ) ]]; then
			not_run "$t" "$1: '$line' is not 'NAME [SECONDS]'"
		elif [[ -f $dir/$t ]]; then
			run_one "$t" timeout --kill-after=10 "${limit:-300}" bash "$dir/$t"
		else
			not_run "$t" "$dir/$t is missing"
		fi
	done
	[[ $(basename "$1") == TESTS ]] || return 0
	# OPEN beside TESTS lists the tests of bounds the code does not meet
	# yet (an open issue): run by `make check-open`, not by `make check`.
	# A test is listed by a line's first field (NAME of "NAME SECONDS"),
	# in either list: tests holds those of TESTS already.
	local -a open=()
	[[ -f $dir/OPEN ]] && mapfile -t open < <(list_lines "$dir/OPEN" | awk '{ print $1 }')
	for t in "$dir"/*.sh; do
		t=$(basename "$t")
		[[ $t == *lib.sh || $t == "*.sh" ]] && continue
		printf '%s\n' "${tests[@]}" ${open[@]+"${open[@]}"} | grep -qxF -e "$t" ||
			not_run "$t" "not listed in $1: it would never run"
	done
}

if [[ $mode == all || $mode == unit ]]; then
	# one program per source in tests/unit: one that was not built fails
	for b in "$build" ${sanbuild:+"$sanbuild"}; do
		for src in tests/unit/test_*.c tests/unit/test_*.cc; do
			[[ -e $src ]] || continue
			t=$b/tests/$(basename "${src%.*}")
			if [[ -x $t ]]; then
				run_one "$(basename "$b")/$(basename "$t")" limited "$t"
			else
				not_run "$(basename "$b")/$(basename "$t")" "$t (from $src) is missing"
			fi
		done
	done
fi

if [[ $mode == all || $mode == unit ]]; then
	# the harness catches each of its deliberately bad fixtures
	run_one harness limited tests/harness/selftest.sh
	# every docs/design.md section a file cites exists
	run_one docs/refs limited tests/docs/refs.sh
	# every long option a program's --help prints is in its man page
	run_one "$(basename "$build")/docs/flags" limited tests/docs/flags.sh "$build"
	# the sweep's plots carry its CSV's figures (a fixture cells.csv)
	run_one bench/sweep_plot limited tests/bench/sweep_plot.sh
	# avmon against tshark's figures for the own corpus (tests/captures)
	# and, when present, the third-party one (no root needed)
	for b in "$build" ${sanbuild:+"$sanbuild"}; do
		run_one "$(basename "$b")/golden" limited tests/golden/golden.sh "$b"
	done
	# each golden rule catches its defect (fake corpora)
	run_one "$(basename "$build")/golden-selftest" limited tests/golden/selftest.sh "$build"
	# every decoder line and avmon counter is reached by tests/captures
	run_one "$(basename "$build")/coverage" limited tests/golden/coverage.sh "$build"
	# tcpavctl load refuses a kernel without tcp_av's cong_control (its BTF),
	# before the root check: as the caller and as user nobody
	for b in "$build" ${sanbuild:+"$sanbuild"}; do
		run_one "$(basename "$b")/kernel_btf" limited tests/unit/kernel_btf.sh "$b"
	done
	# avmon and ap-tools build without the BPF toolchain; what make install
	# writes for applications carries one licence
	run_one packaging/monitor_without_bpf limited tests/packaging/monitor_without_bpf.sh
	run_one packaging/licences limited tests/packaging/licences.sh "$build"
	# every mutant of the law (make mutants) still applies and builds
	run_one mutants/build limited tests/mutants/run.sh --build-only
	# a short, bounded libFuzzer run over the decoders and the analysis
	if [[ -n ${TCPAV_FUZZ_SECONDS:-} ]]; then
		run_one fuzz limited tests/fuzz/run.sh "$build" "$TCPAV_FUZZ_SECONDS"
	fi
fi

if [[ $mode == list ]]; then
	run_list "$tests_file"
fi

if [[ $mode == all || $mode == integration ]]; then
	if [[ $(id -u) != 0 ]]; then
		echo "########################################################################"
		echo "# SKIPPED: integration tests need root (network namespaces, BPF)."
		echo "########################################################################"
		skipped=$((skipped + $(cat tests/integration/TESTS tests/experiments/TESTS | grep -cv '^\s*\(#\|$\)')))
	else
		export TCPAV_BUILD=$build TCPAVCTL=$(abs "$build")/bin/tcpavctl
		run_list tests/integration/TESTS
		# experiments/avr-nrt on both engines, short (make experiments-quick)
		run_list tests/experiments/TESTS
		# the tests that drive tcpavctl, libtcpav, apstat, apqos and
		# tc_impair hardest, again with the ASan/UBSan build
		if [[ -n $sanbuild ]]; then
			for t in bad_input.sh rules_exec_api.sh rules_lifecycle.sh rules_dscp.sh json_names.sh unload_while_running.sh \
				apstat_no_nl80211.sh apqos_bad_input.sh apqos_manage.sh apqos_force_keep.sh tb_impair.sh; do
				TCPAV_BUILD=$sanbuild TCPAVCTL=$(abs "$sanbuild")/bin/tcpavctl \
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
