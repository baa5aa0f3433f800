#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/fresh_clone.sh - the repository alone is the whole project. Clones
# HEAD (committed work only, from the local repository: no network) into an
# empty temporary folder with nothing beside it (no ../shared, and
# TCPAV_CAPTURES unset), builds it there and runs the unit and golden
# suites: `tests/run.sh --unit-only build`, which must pass with no skip.
# Every line it prints begins "fresh clone: "; its exit status is the
# run's. The folder is removed on exit. Run by .ci/run before `make check`.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tcpav-fresh.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
# readable as a clone in a home folder is (mktemp's 0700 is not): tests
# run the built tools as user nobody too
chmod 755 "$tmp"

fresh() {
	local head
	head=$(git -C "$top" rev-parse --short HEAD) || return 1
	echo "cloning $top at $head into $tmp/tcpav (nothing beside it)"
	# the checkout may belong to another user than the one running CI
	git -c safe.directory='*' clone --quiet --no-hardlinks "$top" "$tmp/tcpav" || return 1
	[[ ! -e $tmp/shared ]] || { echo "$tmp/shared exists"; return 1; }
	cd "$tmp/tcpav" || return 1
	# nothing from the caller's environment points back outside the clone
	env -u TCPAV_CAPTURES -u TCPAV_ALLOW_SKIP -u TCPAV_FUZZ_SECONDS \
		-u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		make -j"$jobs" BUILD=build all >"$tmp/build.log" 2>&1 ||
		{ tail -n 30 "$tmp/build.log"; echo "the build failed"; return 1; }
	env -u TCPAV_CAPTURES -u TCPAV_ALLOW_SKIP -u TCPAV_FUZZ_SECONDS \
		tests/run.sh --unit-only build
}

fresh 2>&1 | sed -u 's/^/fresh clone: /'
exit "${PIPESTATUS[0]}"
