#!/usr/bin/env bash
# What `make install` puts there for applications (libtcpav, its headers and
# its man page) carries one licence, APP_LICENCE below and in the README; the
# BPF programs stay GPL-compatible for the kernel.
#   tests/packaging/licences.sh BUILD
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:?usage: tests/packaging/licences.sh BUILD}
APP_LICENCE="GPL-2.0 OR BSD-2-Clause"
. tests/lib/tap.sh

# spdx FILE: the SPDX-License-Identifier of FILE's first lines
spdx() { head -3 "$1" | sed -n 's/.*SPDX-License-Identifier: *\(.*[^ */]\)[ */]*$/\1/p' | head -1; }
is_app() { [[ -f $1 && $(spdx "$1") == "$APP_LICENCE" ]]; }

tmp=$(mktemp -d /tmp/tcpav-licences.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
printf '// SPDX-License-Identifier: GPL-2.0\n' >"$tmp/gpl_only.c"
not_app() { ! is_app "$1"; }
check "the check tells a GPL-2.0-only file apart" not_app "$tmp/gpl_only.c"

# libtcpav.a: every member's source (tcpav/lib/NAME.c)
members=$(ar t "$build/libtcpav.a" 2>/dev/null)
check "libtcpav.a has members" test -n "$members"
for m in $members; do
	check "libtcpav member $m: its source carries $APP_LICENCE" is_app "tcpav/lib/${m%.o}.c"
done
# libtcpav.so exports nothing that libtcpav.a's members do not define
nm -g --defined-only "$build/libtcpav.a" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u >"$tmp/a.syms"
nm -D --defined-only "$build/libtcpav.so" 2>/dev/null | awk 'NF == 3 && $2 == "T" { print $3 }' | sort -u >"$tmp/so.syms"
check "libtcpav.so exports functions" test -s "$tmp/so.syms"
check "libtcpav.so exports only functions of libtcpav.a's members" \
	sh -c "test -z \"\$(comm -13 '$tmp/a.syms' '$tmp/so.syms')\""

# the headers and man pages make install writes for applications
make -s -n BUILD="$build" DESTDIR=/nonexistent install 2>/dev/null |
	grep -o -E '(include/tcpav/[A-Za-z0-9_]+\.h|man/[A-Za-z0-9_.]+\.3)' | sort -u >"$tmp/installed"
check "make install installs headers" grep -q '^include/tcpav/' "$tmp/installed"
while read -r f; do
	check "installed $f carries $APP_LICENCE" is_app "$f"
done <"$tmp/installed"

# the BPF programs: GPL-2.0 source, a GPL-compatible license section
for f in tcpav/bpf/*.bpf.c; do
	check "$f: SPDX names GPL-2.0" sh -c "head -1 '$f' | grep -q 'GPL-2.0'"
	check "$f: its license section is GPL" grep -q 'SEC("license") = "GPL"' "$f"
done
check "the README states the licence of libtcpav" grep -qF "$APP_LICENCE" README.md
tap_finish
