#!/usr/bin/env bash
# tests/captures/variants.sh BUILD [DIR] - writes the corpus files the
# project's tools make (MANIFEST.md, "Synthetic and broken captures") into
# DIR (default: tests/captures): the synthetic 802.11 and link-type
# captures of gen_radiotap, and the broken variants pcap_mangle makes of
# recordings in tests/captures. Deterministic: tests/golden/coverage.sh
# checks that the committed files are what this writes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${1:?usage: variants.sh BUILD [DIR]}
out=${2:-$here}
tools=$top/$build/tests
mkdir -p "$out"
"$tools/gen_radiotap" "$out"
