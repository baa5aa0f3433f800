#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# What `make install` puts there for applications (libtcpav, its headers and
# its man page) carries one licence, APP_LICENCE below and in the README, and
# so does libtcpavutil (the tools' own, with the JSON writer), as the README
# says; the BPF programs stay GPL-compatible for the kernel; every tracked
# source file and script has an SPDX-License-Identifier line naming texts
# in LICENSES/.
#   tests/packaging/licences.sh BUILD
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
build=${1:?usage: tests/packaging/licences.sh BUILD}
APP_LICENCE="GPL-2.0 OR BSD-2-Clause"
. tests/lib/tap.sh

# spdx FILE: the SPDX-License-Identifier of FILE's first lines
spdx() { head -3 "$1" | sed -n 's/.*SPDX-License-Identifier: *\(.*[^ */]\)[ */]*$/\1/p' | head -1; }
is_app() { [[ -f $1 && $(spdx "$1") == "$APP_LICENCE" ]]; }
export -f spdx
spdx_of() { spdx "$1"; }
export -f spdx_of

tmp=$(mktemp -d /tmp/tcpav-licences.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
printf '// SPDX-License-Identifier: GPL-2.0\n' >"$tmp/gpl_only.c"
not_app() { ! is_app "$1"; }
check "the check tells a GPL-2.0-only file apart" not_app "$tmp/gpl_only.c"

# the files of the tree: git's when this is a checkout, else (a `git
# archive` export, a release tarball) every file but build output
tree_files() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files
	else
		find . -path './build*' -prune -o -path ./.git -prune -o -path ./results -prune -o -type f -print |
			sed 's|^\./||' | sort
	fi
}
# every source file and script of the tree: C, C++, headers, shell, jq, the
# Makefile, and any file that starts with #!
sources() {
	tree_files | while read -r f; do
		[[ -f $f ]] || continue
		case $f in
		*.c | *.h | *.cc | *.sh | *.jq | *.py | *.awk | Makefile | */Makefile) ;;
		*) [[ $(head -c2 "$f") == '#!' ]] || continue ;;
		esac
		echo "$f"
	done
}
printf '#!/bin/sh\n# spdx-license: GPL-2.0 (not the tag)\necho hi\n' >"$tmp/unlabelled.sh"
printf '#!/bin/sh\n# SPDX-License-Identifier: GPL-2.0\necho hi\n' >"$tmp/labelled.sh"
check "the check tells a script without an SPDX line apart (and finds one after #!)" \
	bash -c "test -z \"\$(spdx_of '$tmp/unlabelled.sh')\" && test \"\$(spdx_of '$tmp/labelled.sh')\" = GPL-2.0"
sources >"$tmp/sources"
while read -r f; do [[ -n $(spdx "$f") ]] || echo "$f"; done <"$tmp/sources" >"$tmp/unlabelled"
sed -e 's/^/# no SPDX-License-Identifier line: /' "$tmp/unlabelled"
check "every source file and script of the tree ($(wc -l <"$tmp/sources")) has an SPDX-License-Identifier line" \
	sh -c "test -s '$tmp/sources' && test ! -s '$tmp/unlabelled'"
# each identifier of an SPDX expression ("A OR B") has its text
while read -r f; do spdx "$f"; done <"$tmp/sources" | sed 's/ OR /\n/g; s/ AND /\n/g' | sort -u >"$tmp/ids"
while read -r id; do
	check "licence $id (an SPDX line names it) has its text in LICENSES/" test -f "LICENSES/$id"
done <"$tmp/ids"

# the JSON writer (and its CSV cell): one licence, the one the README's
# Licence section gives it
json_licence=$(spdx include/tcpav/json.h)
check "json.h, json.c and csv.h carry one licence ($json_licence)" bash -c \
	"test -n '$json_licence' && test \"\$(spdx_of tcpav/lib/json.c)\" = '$json_licence' &&
	 test \"\$(spdx_of include/tcpav/csv.h)\" = '$json_licence'"
# readme_says FILE LICENCE: every sentence of FILE's Licence section that
# names the JSON writer gives it `LICENCE`, and there is one
readme_says() {
	sed -n '/^## Licence/,/^## [^L]/p' "$1" | tr '\n' ' ' | sed 's/\. /.\n/g' | grep 'JSON writer' >"$tmp/sentences"
	[[ -s $tmp/sentences ]] && ! grep -vqF "\`$2\`" "$tmp/sentences"
}
printf '## Licence\n\nThe rest (tcpavctl and the JSON writer they\nshare) is `GPL-2.0`.\n' >"$tmp/README.old"
check "the README check tells a Licence section that calls the JSON writer GPL-2.0 apart" \
	eval '! readme_says "$tmp/README.old" "$json_licence"'
check "the README's Licence section gives the JSON writer its files' licence ($json_licence)" \
	readme_says README.md "$json_licence"

# libtcpav.a: every member's source (tcpav/lib/NAME.c)
members=$(ar t "$build/libtcpav.a" 2>/dev/null)
check "libtcpav.a has members" test -n "$members"
for m in $members; do
	check "libtcpav member $m: its source carries $APP_LICENCE" is_app "tcpav/lib/${m%.o}.c"
done
# libtcpavutil.a, the tools' own library with the JSON writer: one licence too
members=$(ar t "$build/libtcpavutil.a" 2>/dev/null)
check "libtcpavutil.a has members" test -n "$members"
for m in $members; do
	check "libtcpavutil member $m: its source carries $APP_LICENCE" is_app "tcpav/lib/${m%.o}.c"
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
