#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/fuzz/run.sh - fuzz avmon's decoders and analysis for a while.
#
#   tests/fuzz/run.sh [BUILD_DIR [SECONDS]]      (defaults: build 60)
#
# Builds BUILD_DIR/fuzz_decode (libFuzzer + ASan + UBSan, clang) and
# BUILD_DIR/seed_extract with make (when missing or older than their
# sources), makes a seed corpus in a temporary directory from the first
# 200 packets of each capture in the repository's tests/captures/ and, when present, in
# $TCPAV_CAPTURES (default ../shared/captures), plus the known crashers in
# tests/fuzz/crashers/, runs the fuzzer for SECONDS and prints
# one TAP line:
#   ok 1 - fuzzed N s, X execs, cov C, ft F, corpus K, no crash
#   not ok 1 - ... crash: PATH          (kept in BUILD_DIR/fuzz-crashes/)
# Exit status: 0 without a crash, 1 on a crash or when the fuzzer could not
# run. Everything temporary is removed on exit; the run is bounded by
# SECONDS plus a grace period of 120 s.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2

build=${1:-build}
seconds=${2:-60}
captures=${TCPAV_CAPTURES:-../shared/captures}

case $seconds in
'' | *[!0-9]*) echo "usage: tests/fuzz/run.sh [BUILD_DIR [SECONDS]]" >&2; exit 2 ;;
esac

echo "1..1"
fail() {
	echo "not ok 1 - $*"
	exit 1
}

fuzzer=$build/fuzz_decode
extractor=$build/seed_extract

# make knows the sources (the Makefile's FUZZ_SRCS) and rebuilds what is
# older than them; this script keeps no list of its own to go stale
mkdir -p "$build" || fail "cannot create $build"
echo "# make BUILD=$build $fuzzer $extractor"
make --no-print-directory BUILD="$build" "$fuzzer" "$extractor" 2>&1 | sed 's/^/# /'
[[ ${PIPESTATUS[0]} == 0 ]] ||
	fail "cannot build $fuzzer or $extractor (clang with libFuzzer: apt-get install clang libclang-rt-dev libpcap-dev)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/avmon-fuzz.XXXXXX") || fail "mktemp failed"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/seeds" "$tmp/corpus" "$tmp/artifacts"

shopt -s nullglob
caps=()
for dir in tests/captures "$captures"; do
	[[ -d $dir ]] || { echo "# no captures at $dir"; continue; }
	while IFS= read -r -d '' c; do
		caps+=("$c")
	done < <(find "$dir" -maxdepth 3 -type f \( -name '*.pcap' -o -name '*.pcapng' -o -name '*.cap' \) -print0 | sort -z)
done
if ((${#caps[@]})); then
	"$extractor" "$tmp/seeds" -n 200 "${caps[@]}" 2>&1 | sed 's/^/# /'
else
	echo "# no captures in tests/captures or $captures: fuzzing from the known crashers only"
fi
crashers=(tests/fuzz/crashers/*)
for c in "${crashers[@]}"; do
	cp -- "$c" "$tmp/seeds/" || fail "cannot copy $c"
done
echo "# $(find "$tmp/seeds" -type f | wc -l) seeds (${#crashers[@]} known crashers), $seconds s"

# -close_fd_mask=1 keeps the target's stdout quiet (it writes none anyway);
# libFuzzer's own report goes to stderr, kept in log.
timeout --kill-after=10 $((seconds + 120)) \
	"$fuzzer" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=4096 \
	-print_final_stats=1 -artifact_prefix="$tmp/artifacts/" \
	"$tmp/corpus" "$tmp/seeds" >"$tmp/log" 2>&1
rc=$?

execs=$(sed -n 's/^stat::number_executed_units: *//p' "$tmp/log" | tail -1)
[[ -n $execs ]] || execs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$tmp/log" | tail -1)
status_line=$(grep -E '^#[0-9]+' "$tmp/log" | tail -1)
# after a crash there are no final stats: the last status line has the count
[[ -n $execs ]] || execs=$(sed -n 's/^#\([0-9]*\).*/\1/p' <<<"$status_line")
cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$status_line")
ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$status_line")
corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$status_line")
summary="fuzzed $seconds s, ${execs:-?} execs, cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}"

artifacts=("$tmp"/artifacts/*)
if ((${#artifacts[@]})) || [[ $rc != 0 ]]; then
	keep=$build/fuzz-crashes
	mkdir -p "$keep"
	kept=()
	for a in "${artifacts[@]}"; do
		cp -- "$a" "$keep/" && kept+=("$keep/$(basename "$a")")
	done
	cp -- "$tmp/log" "$keep/fuzz.log"
	# the sanitizer's report, for the reader of the TAP stream
	grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|    #[0-9]+ )' "$tmp/log" | head -40 | sed 's/^/# /'
	for k in "${kept[@]}"; do
		echo "# $k ($(wc -c <"$k") bytes; byte 0 selects the link type, see fuzz_decode.c):"
		od -A x -t x1z -v "$k" | head -32 | sed 's/^/#   /'
	done
	if ((${#kept[@]})); then
		echo "not ok 1 - $summary, crash: ${kept[*]} (log $keep/fuzz.log; reproduce: $fuzzer FILE, AVMON_FUZZ_FRESH=1 for a fresh analysis)"
	else
		tail -20 "$tmp/log" | sed 's/^/# /'
		echo "not ok 1 - $summary, fuzzer exited with status $rc and no crash file (log $keep/fuzz.log)"
	fi
	exit 1
fi
echo "ok 1 - $summary, no crash"
exit 0
