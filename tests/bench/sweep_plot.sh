#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/bench/sweep_plot.sh - experiments/bench/sweep-plot.sh draws a
# tcpav-sweep's cells.csv: tests/bench/fixtures/sweep-cells.csv is the
# cells.csv of a real quick sweep (2 settings x NRT 50 % x 4 CCs, 1 run of
# 10 s, 2026-11-30). Checks: the data files it plots carry the CSV's
# figures (median, min, max; competitors in Mbit/s), both PNGs are PNG
# files of a few KB, and a CSV without a needed column is refused with one
# line naming the column, before anything is written. No root, no build.
# Without gnuplot the drawing checks say skip.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=../lib/tap.sh
. tests/lib/tap.sh

fix=tests/bench/fixtures/sweep-cells.csv
tmp=$(mktemp -d) || exit 1
trap 'rm -rf -- "$tmp"' EXIT

if ! command -v gnuplot >/dev/null; then
	skip_check "sweep-plot.sh draws the fixture" "gnuplot is not installed (Debian: gnuplot-nox)"
	tap_finish
	exit
fi

check "sweep-plot.sh draws the fixture" experiments/bench/sweep-plot.sh "$fix" "$tmp"
# the fixture's "100,pfifo,100,off,0.5,...,tcp_av,1,1,1.05035,1.05035,1.05035,...,11892990 x3"
check "plot-100_off-tcp_av.dat: NRT 50 %, AVR 1.05035 (median, min, max), competitors 11.893 Mbit/s" \
	grep -qx "50 1.05035 1.05035 1.05035 11.893 11.893 11.893" "$tmp/plot-100_off-tcp_av.dat"
n=$(cat "$tmp"/plot-*.dat 2>/dev/null | wc -l)
result "$([[ $n == 8 ]]; echo $?)" "one data line per setting and CC: 2 x 4 = 8 (got $n)"
for png in avr competitors; do
	sig=$(head -c 8 "$tmp/$png.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')
	size=$(stat -c %s "$tmp/$png.png" 2>/dev/null || echo 0)
	result "$([[ $sig == 89504e470d0a1a0a && $size -gt 4000 ]]; echo $?)" \
		"$png.png is a PNG of more than 4 KB (signature $sig, $size bytes)"
done

# bad input: one line naming the missing column, nonzero, nothing written
mkdir -p "$tmp/bad"
sed '2s/avr_median/avr_mid/' "$fix" >"$tmp/bad/cells.csv"
err=$(experiments/bench/sweep-plot.sh "$tmp/bad/cells.csv" 2>&1 >/dev/null)
rc=$?
result "$([[ $rc != 0 && $(wc -l <<<"$err") == 1 && $err == *"no column 'avr_median'"* ]]; echo $?)" \
	"a cells.csv without avr_median: exit $rc, one line naming it ($err)"
result "$([[ -z $(ls "$tmp/bad" | grep -v '^cells.csv$') ]]; echo $?)" "... and nothing written beside it"
err=$(experiments/bench/sweep-plot.sh "$tmp/none.csv" 2>&1 >/dev/null)
rc=$?
result "$([[ $rc != 0 && $err == *"cannot read"* ]]; echo $?)" "a missing CSV: exit $rc ($err)"
tap_finish
