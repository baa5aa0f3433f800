#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/mutants/run.sh - are the integration tests able to fail? Builds
# deliberately broken variants of the control law (tests/mutants/*.patch,
# each applied to a copy of the tree in a temporary folder; the tree itself
# is never touched), runs the tcp_av integration tests against each, and
# prints a matrix mutant x test (FAIL / pass). The unmutated law ("none")
# must pass every test and every mutant must fail at least one; the exit
# status says whether both hold. `make mutants` runs it (as root; not part
# of `make check`).
#
#   tests/mutants/run.sh [OUTFILE]
#
# Environment: MUTANTS (names, default: none and every patch),
# MUTANT_TESTS (default: the tcp_av tests below), TCPAV_NET_LOCK (a file:
# each test then runs under flock on it, for machines where other test runs
# share the network namespaces). The matrix and every test's output go to
# OUTFILE (default results/mutants-DATE.txt) and OUTFILE's .d folder.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

if [[ $(id -u) != 0 ]]; then
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

out=${1:-results/mutants-$(date +%Y%m%d-%H%M%S).txt}
mkdir -p "$(dirname "$out")" "$out.d"
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

declare -A result
{
	echo "# tcpav mutants, $(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r), $(nproc) CPUs"
	echo "# tree: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- 2>/dev/null || echo ' + local changes')"
	echo "# testbed: EB = 25 Mbit/s payload (HTB), 100-packet pfifo, iperf3"
} > "$out"
for m in "${mutants[@]}"; do
	dir=$work/$m
	copy_tree "$dir"
	if [[ $m != none ]] && ! patch -s -p1 -d "$dir" --no-backup-if-mismatch <"tests/mutants/$m.patch"; then
		echo "mutants: tests/mutants/$m.patch does not apply to this tree" >&2
		exit 1
	fi
	echo "# building $m"
	if ! make -s -C "$dir" BUILD=build LTO= -j2 build/bin/tcpavctl build/tests/set_target_probe \
		>"$out.d/$m.build" 2>&1; then
		echo "mutants: $m does not build (see $out.d/$m.build)" >&2
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
