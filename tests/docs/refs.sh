#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/docs/refs.sh - every section of docs/design.md that a file of the
# repository cites exists. Code comments cite it as "docs/design.md §N" or
# "§N.M" (also "section N", and lists "§2, §4" or "§2 and §4"); inside
# docs/design.md itself, "§N" refers to its own sections. A section exists
# when a heading of docs/design.md begins with its number ("## 3. ...",
# "### 3.2 ..."). The first plan, DESIGN.md, is not in the repository, so a
# file that still cites it fails too. The fixture in tests/docs/fixtures/
# (a small design.md and a file citing it) shows a bad citation caught.
#
#   tests/docs/refs.sh            (from anywhere; no root, no build)
#
# TAP: one line per file that cites the design, then the fixture's checks.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

# result, tap_finish
# shellcheck source=../lib/tap.sh
. tests/lib/tap.sh

# sections DESIGN: the section numbers of DESIGN's headings, one a line
sections() {
    sed -nE 's/^#{2,6}[[:space:]]+([0-9]+(\.[0-9]+)*)\.?[[:space:]].*/\1/p' "$1"
}

# citations DESIGN_NAME FILE: "LINE<TAB>SECTION" for each section FILE cites.
# In the design document itself every "§N" counts; elsewhere the numbers
# that follow a mention of the design document's file name.
num='[0-9]+(\.[0-9]+)*'
ref="(§[[:space:]]*|sections?[[:space:]]+)?$num"
citations() {
    local name=$1 file=$2 self=${3:-}
    if [[ -n $self ]]; then
        grep -noE "§[[:space:]]*$num" "$file"
    else
        grep -noE "${name}[\`'\"]?([[:space:]]+|[[:space:]]*\(?)$ref(([[:space:]]*,[[:space:]]*|[[:space:]]+and[[:space:]]+)$ref)*" "$file"
    fi | while IFS=: read -r line text; do
        grep -oE "$num" <<<"${text#*"$name"}" | sed "s/^/$line\t/"
    done
}

# old_citations FILE: "LINE" for each line citing the first plan's file
old_citations() {
    grep -n 'DESIGN\.md' "$1" | cut -d: -f1
}

# check_tree DESIGN ROOT FILE...: one TAP line per FILE that cites DESIGN
# (by its file name) or DESIGN.md; FILEs relative to ROOT. Sets bad_refs to
# the problems found ("FILE:LINE: ...", one a line).
check_tree() {
    local design=$1 root=$2 file rel problems line sec cited self
    local name
    shift 2
    name=$(basename "$design")
    bad_refs=
    declare -A have=()
    while IFS= read -r sec; do have[$sec]=1; done < <(sections "$root/$design")
    result "$(test ${#have[@]} -gt 0 && echo 0 || echo 1)" \
        "$design has numbered sections (${#have[@]})"
    for rel in "$@"; do
        file=$root/$rel
        [[ -f $file ]] || continue
        grep -Iq . "$file" 2>/dev/null || continue # binary
        self=
        [[ $rel == "$design" ]] && self=1
        problems=() cited=()
        while IFS=$'\t' read -r line sec; do
            cited+=("§$sec")
            [[ -n ${have[$sec]:-} ]] || problems+=("$rel:$line: cites $design §$sec, which it does not have")
        done < <(citations "$name" "$file" "$self")
        if [[ -z $self ]]; then
            while IFS= read -r line; do
                problems+=("$rel:$line: cites DESIGN.md, which is not in the repository (cite $design §N)")
            done < <(old_citations "$file")
        fi
        ((${#cited[@]} + ${#problems[@]})) || continue
        if ((${#problems[@]})); then
            result 1 "$rel: $(printf '%s; ' "${problems[@]}" | sed 's/; $//')"
            bad_refs+=$(printf '%s\n' "${problems[@]}")$'\n'
        else
            result 0 "$rel: cites $(printf '%s\n' "${cited[@]}" | sort -uV | paste -sd' ') of $design, all there"
        fi
    done
}

# 1. the repository: its tracked files, or all files outside build folders
# when it is not a git checkout; the checker and its fixture cite on purpose
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    mapfile -t files < <(git ls-files)
else
    mapfile -t files < <(find . -path './build*' -prune -o -path ./.git -prune -o -type f -print | sed 's|^\./||' | sort)
fi
mapfile -t files < <(printf '%s\n' "${files[@]}" | grep -v -e '^tests/docs/')
if [[ ! -f docs/design.md ]]; then
    result 1 "docs/design.md exists"
else
    check_tree docs/design.md . "${files[@]}"
fi

# 2. the fixture: design.md has sections 1, 2, 2.1 and 3.1; cites.c cites
# 2.1, 2 and 3.1 (good), 3 and 4.2 (bad) and DESIGN.md (bad); the checker
# must name exactly the bad ones. Its TAP lines are kept apart.
fx=tests/docs/fixtures
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# (its own numbering from 1: tap.sh's counters set aside meanwhile)
saved_n=$_tap_n saved_failed=$_tap_failed _tap_n=0 _tap_failed=0
check_tree design.md "$fx" design.md cites.c > "$tmp"
_tap_n=$saved_n _tap_failed=$saved_failed bad=$bad_refs out=$(cat "$tmp")
echo "$out" | sed 's/^/# fixture: /'
want=$'cites.c:LINE3: cites design.md §3, which it does not have\ncites.c:LINE42: cites design.md §4.2, which it does not have\ncites.c:LINEOLD: cites DESIGN.md, which is not in the repository (cite design.md §N)'
want=${want//LINE3/$(grep -n 'BAD-3' "$fx/cites.c" | cut -d: -f1)}
want=${want//LINE42/$(grep -n 'BAD-4.2' "$fx/cites.c" | cut -d: -f1)}
want=${want//LINEOLD/$(grep -n 'BAD-OLD' "$fx/cites.c" | cut -d: -f1)}
got=$(sort <<<"$bad" | sed '/^$/d')
result "$([[ $got == "$(sort <<<"$want")" ]] && echo 0 || echo 1)" \
    "fixture: the citations of §3, §4.2 and DESIGN.md are caught, and nothing else ($(wc -l <<<"$got") found)"
result "$(grep -q '^not ok .* cites.c: ' <<<"$out" && echo 0 || echo 1)" \
    "fixture: cites.c's TAP line is 'not ok'"
result "$(grep -q '^ok .* design.md has numbered sections (4)' <<<"$out" && echo 0 || echo 1)" \
    "fixture: its design.md's 4 sections are found"

tap_finish
