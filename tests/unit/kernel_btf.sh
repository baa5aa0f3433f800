#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `tcpavctl --btf FILE load` refuses a kernel it cannot run on before
# anything else, the root check included, so it is tested here without
# root's powers: as the caller and as user nobody, one stderr line naming
# the problem, nothing on stdout, no pin directory made. FILE is the BTF of
# a kernel before 6.10 (tests/btf/cong_control_pre610.c), one without
# cong_control (cong_control_missing.c), an ELF without .BTF, and no file.
#   tests/unit/kernel_btf.sh BUILD
set -uo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
. tests/lib/tap.sh
build=${1:?usage: tests/unit/kernel_btf.sh BUILD}
[[ $build == /* ]] || build=$top/$build
T=$build/bin/tcpavctl
tmp=$(mktemp -d /tmp/tcpav-kbtf.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp" # readable by nobody

check "tcpavctl is built ($T)" test -x "$T"
# an ELF without .BTF: the pre-6.10 fixture with its BTF sections removed
nobtf=$tmp/no_btf.o
llvm-objcopy --remove-section=.BTF --remove-section=.BTF.ext \
	"$build/tests/cong_control_pre610.o" "$nobtf" 2>/dev/null && chmod 644 "$nobtf"
check "the fixture without .BTF has no .BTF section" \
	sh -c "test -s '$nobtf' && ! readelf -S '$nobtf' | grep -q '\.BTF'"

# refused WHO DESC PATTERN FILE: `tcpavctl --btf FILE load` run by WHO
# (root or nobody) fails with one stderr line matching PATTERN (grep -E),
# prints nothing on stdout and makes no pin directory
refused() {
	local who=$1 desc="$2 ($1)" pattern=$3 file=$4 rc=0
	local -a as=()
	if [[ $who == nobody ]]; then
		if [[ $(id -u) != 0 ]]; then
			skip_check "$desc" "setpriv --reuid needs root"
			return
		fi
		as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	fi
	"${as[@]}" "$T" --pin-dir "$tmp/pins" --btf "$file" load >"$tmp/out" 2>"$tmp/err" || rc=$?
	echo "# $desc: rc=$rc: $(head -c 300 "$tmp/err")"
	check "$desc: nonzero exit, one stderr line naming the problem, nothing on stdout, no pins" \
		sh -c "test $rc -ne 0 && test \$(wc -l <'$tmp/err') -eq 1 && grep -qE -e '$pattern' '$tmp/err' &&
			test ! -s '$tmp/out' && test ! -e '$tmp/pins'"
}

for who in caller nobody; do
	refused $who "kernel before 6.10" "too old for tcp_av: it needs Linux 6\.10 or later.*takes 4 arguments \(here 2\)" \
		"$build/tests/cong_control_pre610.o"
	refused $who "no cong_control member" "has no usable tcp_congestion_ops\.cong_control in its BTF: tcp_av needs Linux 6\.10" \
		"$build/tests/cong_control_missing.o"
	refused $who "an ELF without .BTF" "$nobtf: the file has no BTF" "$nobtf"
	refused $who "no such file" "kernel BTF $tmp/none: No such file or directory" "$tmp/none"
done
tap_finish
