#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# avmon, apstat and apqos build where there is no BPF toolchain (a capture
# box, an access point): `make avmon ap-tools` into a fresh build directory
# with CLANG, BPFTOOL and VMLINUX_BTF pointing nowhere and a PATH without
# clang, bpftool, llvm, dpkg or apt; the binaries link no libbpf;
# `make install-avmon install-ap-tools` with DESTDIR and PREFIX puts them and
# their man pages there, and nothing else. Also `make deps` without dpkg
# prints what it needs and succeeds.
#   tests/packaging/monitor_without_bpf.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d /tmp/tcpav-nobpf.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. tests/lib/tap.sh

# a PATH with every command of this one except the BPF toolchain and the
# Debian package tools
mkdir "$tmp/path"
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
	for f in "$d"/*; do
		name=${f##*/}
		case $name in clang* | bpftool* | llc* | llvm* | dpkg* | apt*) continue ;; esac
		[[ -x $f && ! -e $tmp/path/$name ]] && ln -s "$f" "$tmp/path/$name"
	done
done
nobpf() { env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS PATH="$tmp/path" "$@"; }

check "the reduced PATH has no clang" nobpf sh -c '! command -v clang && ! command -v clang-14'
check "the reduced PATH has no bpftool" nobpf sh -c '! command -v bpftool'
check "the reduced PATH has no dpkg-query" nobpf sh -c '! command -v dpkg-query'
check "the reduced PATH still has cc and make" nobpf sh -c 'command -v cc && command -v make'

build=$tmp/build
nobpf make -j2 BUILD="$build" CLANG=/bin/false BPFTOOL=/bin/false VMLINUX_BTF=/nonexistent \
	avmon ap-tools >"$tmp/make.log" 2>&1
rc=$?
[[ $rc == 0 ]] || sed -e 's/^/# /' "$tmp/make.log" | tail -20
check "make avmon ap-tools without clang, bpftool and kernel BTF succeeds" test "$rc" = 0
check "no vmlinux.h or BPF skeleton was made" \
	sh -c "! ls '$build'/vmlinux.h '$build'/*.skel.h '$build'/*.bpf.o"

# needed NAME BINARY: the shared libraries BINARY links
needed() { readelf -d "$2" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -q "^$1"; }
check "avmon links libpcap (readelf reads its NEEDED entries)" needed libpcap "$build/bin/avmon"
check "apstat links libnl-genl-3" needed libnl-genl-3 "$build/bin/apstat"
check "apqos links libnl-route-3" needed libnl-route-3 "$build/bin/apqos"
for b in avmon apstat apqos; do
	check "$b links no libbpf" sh -c "test -x '$build/bin/$b' && ! readelf -d '$build/bin/$b' | grep NEEDED | grep -q libbpf"
done

# install-avmon, install-ap-tools: the binaries and man pages under
# DESTDIR/PREFIX, nothing of tcpavctl or libtcpav, still no BPF toolchain
dest=$tmp/dest
nobpf make -s BUILD="$build" CLANG=/bin/false BPFTOOL=/bin/false VMLINUX_BTF=/nonexistent \
	DESTDIR="$dest" PREFIX=/opt/tcpav install-avmon install-ap-tools >"$tmp/install.log" 2>&1
rc=$?
[[ $rc == 0 ]] || sed -e 's/^/# /' "$tmp/install.log" | tail -20
check "make install-avmon install-ap-tools (DESTDIR, PREFIX) without the BPF toolchain succeeds" test "$rc" = 0
(cd "$dest" 2>/dev/null && find . -type f | sort) >"$tmp/installed"
sed -e 's/^/# installed: /' "$tmp/installed"
printf '%s\n' ./opt/tcpav/bin/avmon ./opt/tcpav/sbin/apqos ./opt/tcpav/sbin/apstat \
	./opt/tcpav/share/man/man1/avmon.1 ./opt/tcpav/share/man/man8/apqos.8 \
	./opt/tcpav/share/man/man8/apstat.8 >"$tmp/expected"
check "they install avmon, apstat, apqos and their man pages under DESTDIR/PREFIX, nothing else" \
	cmp "$tmp/expected" "$tmp/installed"
check "the installed avmon runs" "$dest/opt/tcpav/bin/avmon" --version
check "the installed man pages are the tree's" sh -c "cmp man/avmon.1 '$dest/opt/tcpav/share/man/man1/avmon.1' &&
	cmp man/apstat.8 '$dest/opt/tcpav/share/man/man8/apstat.8' && cmp man/apqos.8 '$dest/opt/tcpav/share/man/man8/apqos.8'"

# make deps where there is no dpkg: names the packages, does not fail
nobpf make -s deps >"$tmp/deps.out" 2>&1
rc=$?
sed -e 's/^/# deps: /' "$tmp/deps.out" | head -3
check "make deps without dpkg succeeds" test "$rc" = 0
check "make deps without dpkg names the packages it needs" \
	sh -c "grep -q libpcap-dev '$tmp/deps.out' && grep -q libbpf-dev '$tmp/deps.out'"
tap_finish
