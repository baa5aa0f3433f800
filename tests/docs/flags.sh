#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/docs/flags.sh - every long option that a program's --help prints is
# in its man page: for tcpavctl, avmon, apstat, apqos, wifi-avr, avr-nrt and
# avr-nrt-all (whose page is avr-nrt.1),
# each "--name" of "PROGRAM --help" (and, for a program whose --help lists
# "Commands:" as tcpavctl's does, of "PROGRAM COMMAND --help" for each
# command) appears in the troff source of its man page, as "\-\-name" or
# "--name", whole (--max does not count as there because --max-flows is),
# in text or requests but not in comments (font escapes such as \fB and
# the zero-width \& \% \: are ignored). A program that is not built, or
# whose --help fails, is a failing line, not a skip. The fixture in
# tests/docs/fixtures/ (flags-prog and flags-prog.1, which lacks --max)
# shows a missing option caught.
#
#   tests/docs/flags.sh [BUILD]     BUILD (else $TCPAV_BUILD, else build),
#                                   relative to the repository's top or
#                                   absolute, holds bin/; no root needed
#
# The programs are BUILD/bin/NAME, but for avr-nrt and avr-nrt-all, experiments/.
# Their --help only prints (so does each tcpavctl COMMAND --help: no
# command runs).
#
# TAP: one line per program, then the fixture's checks.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

# result, tap_finish
# shellcheck source=../lib/tap.sh
. tests/lib/tap.sh

build=${1:-${TCPAV_BUILD:-build}}

# long_options: the long options ("--name") in the text on stdin, one a
# line, sorted; "--" alone and "---" are not options
long_options() {
	grep -oE -- '(^|[^A-Za-z0-9_-])--[A-Za-z][A-Za-z0-9_-]*' | sed -E 's/^[^-]?--/--/' | sort -u
}

# man_text MAN: the troff source without its comments, with font escapes
# (\fB, \f(CR, \f[...]) and zero-width escapes (\& \% \: \| \^) removed and
# \- and \(hy written as -
man_text() {
	sed -E -e "/^[.'][[:space:]]*\\\\\"/d" -e 's/\\f(\[[^]]*\]|\(..|.)//g' \
		-e 's/\\-/-/g' -e 's/\\\(hy/-/g' -e 's/\\[&%:|^]//g' "$1"
}

# help_text EXE: what "EXE --help" prints (stdout and stderr), and, when it
# lists "Commands:", what "EXE COMMAND --help" prints for each command (the
# lines of that section indented by two spaces); status: the first failure's
help_text() {
	local exe=$1 out rc cmd
	out=$(timeout 20 "$exe" --help </dev/null 2>&1)
	rc=$?
	printf '%s\n' "$out"
	((rc == 0)) || return "$rc"
	while read -r cmd; do
		timeout 20 "$exe" "$cmd" --help </dev/null 2>&1
		rc=$?
		((rc == 0)) || return "$rc"
	done < <(awk '/^Commands:[[:space:]]*$/ { on = 1; next }
		on && /^[[:space:]]*$/ { exit }
		on && /^  [a-z]/ { print $1 }' <<<"$out")
}

# check_program NAME MAN EXE: one TAP line: every long option of EXE's
# --help is in MAN. Sets missing_opts to the options MAN lacks (one a line).
check_program() {
	local name=$1 man=$2 exe=$3 help rc opts text opt n
	local -a missing=()
	missing_opts=
	if [[ ! -x $exe ]]; then
		result 1 "$name: $exe is not built (make), so its --help cannot be checked against $man"
		return
	fi
	if [[ ! -f $man ]]; then
		result 1 "$name: its man page $man is missing"
		return
	fi
	help=$(help_text "$exe")
	rc=$?
	if ((rc != 0)); then
		result 1 "$name: '$exe --help' (or a command's --help) failed with status $rc: $(tail -n 1 <<<"$help")"
		return
	fi
	opts=$(long_options <<<"$help")
	n=$(grep -c . <<<"$opts")
	if ((n == 0)); then
		result 1 "$name: '$exe --help' prints no long option"
		return
	fi
	text=$(man_text "$man")
	while IFS= read -r opt; do
		grep -qE -- "(^|[^A-Za-z0-9_-])$opt([^A-Za-z0-9_-]|\$)" <<<"$text" || missing+=("$opt")
	done <<<"$opts"
	if ((${#missing[@]})); then
		missing_opts=$(printf '%s\n' "${missing[@]}")
		result 1 "$name: $man lacks ${#missing[@]} of its $n --help options: ${missing[*]}"
	else
		result 0 "$name: its $n --help options are all in $man"
	fi
}

# 1. the programs with a man page
check_program tcpavctl man/tcpavctl.8 "$build/bin/tcpavctl"
check_program avmon man/avmon.1 "$build/bin/avmon"
check_program apstat man/apstat.8 "$build/bin/apstat"
check_program apqos man/apqos.8 "$build/bin/apqos"
check_program wifi-avr man/wifi-avr.1 "$build/bin/wifi-avr"
check_program avr-nrt man/avr-nrt.1 experiments/avr-nrt
check_program avr-nrt-all man/avr-nrt.1 experiments/avr-nrt-all

# 2. the fixture: flags-prog's --help prints --max, --max-flows, --json,
# --watch and --help, its command "sub" --deep and --json; flags-prog.1
# names --max only in a comment and inside --max-flows, everything else in
# the ways man pages do (\-\-, \fB...\fR, \&). The checker must name --max
# alone; a program that is not there must fail. Its TAP lines are kept
# apart, numbered from 1 (tap.sh's counters set aside meanwhile).
fx=tests/docs/fixtures
saved_n=$_tap_n saved_failed=$_tap_failed _tap_n=0 _tap_failed=0
out=$(check_program flags-prog "$fx/flags-prog.1" "$fx/flags-prog"; echo "__missing=${missing_opts//$'\n'/ }")
absent=$(check_program flags-gone "$fx/flags-prog.1" "$fx/no-such-program")
_tap_n=$saved_n _tap_failed=$saved_failed
got=$(sed -n 's/^__missing=//p' <<<"$out")
out=$(grep -v '^__missing=' <<<"$out")
printf '%s\n%s\n' "$out" "$absent" | sed 's/^/# fixture: /'
result "$([[ $got == --max ]] && echo 0 || echo 1)" \
	"fixture: the one option flags-prog.1 lacks, --max, is caught, and nothing else (found: ${got:-none})"
result "$(grep -q '^not ok 1 - flags-prog: tests/docs/fixtures/flags-prog.1 lacks 1 of its 6 --help options: --max$' <<<"$out" && echo 0 || echo 1)" \
	"fixture: flags-prog's TAP line is 'not ok' and counts its 6 options, its command's among them"
result "$(grep -q '^not ok 1 - flags-gone: .* is not built' <<<"$absent" && echo 0 || echo 1)" \
	"fixture: a program that is not there is a failing line, not a skip"

tap_finish
