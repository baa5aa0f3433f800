#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/mutants/run.sh - are the integration tests able to fail? Builds
# deliberately broken variants of the control law (tests/mutants/*.patch,
# each applied to a copy of the tree in a temporary folder; the tree itself
# is never touched), runs the tcp_av integration tests against each, and
# prints a matrix mutant x test (FAIL / pass). The unmutated law ("none")
# must pass every test and every mutant must fail at least one; the exit
# status says whether both hold. `make mutants` runs it (as root; not part
# of `make check`). With --build-only it applies and builds each mutant and
# runs nothing (TAP, no root): `make check` runs that, so that a change to
# the law cannot leave the mutants behind (patches that no longer apply
# test nothing).
#
#   tests/mutants/run.sh [OUTFILE]
#   tests/mutants/run.sh --build-only
#
# Environment: MUTANTS (names, default: none and every patch),
# MUTANT_TESTS (default: the tcp_av tests below), TCPAV_NET_LOCK (a file:
# each test then runs under flock on it, for machines where other test runs
# share the network namespaces). The matrix and every test's output go to
# OUTFILE (default results/mutants-DATE.txt) and OUTFILE's .d folder.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
build_only=0
[[ ${1:-} == --build-only ]] && { build_only=1; shift; }

if [[ $build_only == 0 && $(id -u) != 0 ]]; then
	echo "mutants: the integration tests need root (network namespaces, BPF)" >&2
	exit 1
fi
mapfile -t all_mutants < <(for p in tests/mutants/*.patch; do basename "$p" .patch; done)
read -r -a mutants <<<"${MUTANTS:-none ${all_mutants[*]}}"
read -r -a tests <<<"${MUTANT_TESTS:-target_among_cubic target_among_reno infeasible_target zero_target_vs_cubic rules_exec_api unload_while_running}"
for m in "${mutants[@]}"; do
	[[ $m == none || -f tests/mutants/$m.patch ]] ||
		{ echo "mutants: no mutant '$m' (no tests/mutants/$m.patch)" >&2; exit 1; }
done
for t in "${tests[@]}"; do
	[[ -f tests/integration/$t.sh ]] || { echo "mutants: no test '$t' (no tests/integration/$t.sh)" >&2; exit 1; }
done

work=$(mktemp -d /tmp/tcpav-mutants.XXXXXX)
trap 'rm -rf "$work"' EXIT

# the tree as it is now: tracked and new files, not what .gitignore ignores
# nor other build folders (build-*) or results
copy_tree() {
	mkdir -p "$1"
	git ls-files -z --cached --others --exclude-standard | grep -zv '^\(build[^/]*\|results\)/' |
		tar -c --null --ignore-failed-read -T - -f - 2>/dev/null | tar -x -C "$1" -f -
}

# run_test DIR TEST: the test's output to stdout; fails when the test does
run_test() {
	local cmd=(env TCPAV_BUILD=build TCPAVCTL="$1/build/bin/tcpavctl"
		timeout --kill-after=10 300 bash "$1/tests/integration/$2.sh")
	if [[ -n ${TCPAV_NET_LOCK:-} ]]; then
		flock "$TCPAV_NET_LOCK" "${cmd[@]}" </dev/null 2>&1
	else
		"${cmd[@]}" </dev/null 2>&1
	fi
}

# build_mutant M DIR LOG: DIR holds the tree with mutant M applied and built
build_mutant() {
	copy_tree "$2"
	if [[ $1 != none ]] && ! patch -s -p1 -d "$2" --no-backup-if-mismatch <"tests/mutants/$1.patch" >"$3" 2>&1; then
		echo "tests/mutants/$1.patch does not apply to this tree"
		return 1
	fi
	if ! make -s -C "$2" BUILD=build LTO= -j2 build/bin/tcpavctl build/tests/set_target_probe >>"$3" 2>&1; then
		echo "$1 does not build: $(grep -m1 -i 'error' "$3")"
		return 1
	fi
}

if [[ $build_only == 1 ]]; then
	n=0 bad=0
	for m in "${mutants[@]}"; do
		[[ $m == none ]] && continue
		n=$((n + 1))
		if why=$(build_mutant "$m" "$work/$m" "$work/$m.log"); then
			echo "ok $n - mutant $m applies to the tree and builds"
		else
			echo "not ok $n - mutant $m: $why"
			bad=1
		fi
		rm -rf "${work:?}/$m"
	done
	echo "1..$n"
	exit $bad
fi

out=${1:-results/mutants-$(date +%Y%m%d-%H%M%S).txt}
mkdir -p "$(dirname "$out")" "$out.d"
declare -A result
{
	echo "# tcpav mutants, $(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r), $(nproc) CPUs"
	echo "# tree: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- 2>/dev/null || echo ' + local changes')"
	echo "# testbed: EB = 25 Mbit/s payload (HTB), 100-packet pfifo, iperf3"
} > "$out"
for m in "${mutants[@]}"; do
	dir=$work/$m
	echo "# building $m"
	if ! why=$(build_mutant "$m" "$dir" "$out.d/$m.build"); then
		echo "mutants: $why (see $out.d/$m.build)" >&2
		exit 1
	fi
	for t in "${tests[@]}"; do
		log=$out.d/$m.$t.log
		if run_test "$dir" "$t" >"$log"; then
			result[$m.$t]=pass
		else
			result[$m.$t]=FAIL
		fi
		echo "# $m / $t: ${result[$m.$t]}$(grep -m3 '^not ok' "$log" | sed 's/^not ok [0-9]* - /; /' | tr -d '\n')" |
			tee -a "$out"
	done
	rm -rf "$dir"
done

bad=0
matrix=$work/matrix
{
	printf '%-14s' mutant
	printf ' %-22s' "${tests[@]}"
	echo
	for m in "${mutants[@]}"; do
		printf '%-14s' "$m"
		fails=0
		for t in "${tests[@]}"; do
			printf ' %-22s' "${result[$m.$t]}"
			[[ ${result[$m.$t]} == FAIL ]] && fails=$((fails + 1))
		done
		echo
		if [[ $m == none && $fails != 0 ]]; then
			echo "# the unmutated law fails $fails test(s)"
		elif [[ $m != none && $fails == 0 ]]; then
			echo "# mutant $m fails no test: the tests cannot see it"
		fi
	done
	echo "# logs: $out.d/"
} >"$matrix"
tee -a "$out" <"$matrix"
grep -q '^# \(the unmutated\|mutant .* fails no test\)' "$matrix" && bad=1
echo "# matrix written to $out"
exit "$bad"
