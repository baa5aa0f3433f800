#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/golden/coverage.sh BUILD - the coverage floor of the repository's own
# capture corpus (tests/captures, nothing else): every decoder path and every
# TCP counter avmon reports is reached by at least one capture.
#
#   decoder paths  every executable line of the decoders (DECODERS below),
#                  by gcov, of an avmon built with --coverage into
#                  BUILD/coverage and run over each capture in turn; lines
#                  no capture can reach are waived in tests/golden/COVERAGE,
#                  by function, each with its reason (a waiver that matches
#                  no unreached line is stale and fails)
#   TCP counters   every numeric field of a flow direction in avmon's JSON
#                  summary (a_to_b/b_to_a, nested ones as rtt_ms.count),
#                  every malformed reason and every kind of duplicate removed
#                  is non-zero in some capture's summary
#
# First, the files the project's own tools write (tests/captures/variants.sh)
# must be byte for byte what they write today. Lines and counters that a
# single capture alone provides are listed, and the
# floor is then recomputed without the capture that alone provides the most:
# it must fail. TCPAV_COVERAGE_EXCLUDE="NAME ..." leaves captures out (to see
# what each one carries). TAP lines; exit status 1 on a failure.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
[[ $build == /* ]] || build=$top/$build
caps=$top/tests/captures
waivers=$top/tests/golden/COVERAGE
out=$build/coverage
DECODERS="decode.c ether.c sll.c raw.c ip.c ieee80211.c radiotap.c airtime.c"
# result, skip_check, tap_finish
# shellcheck source=../lib/tap.sh
. "$top/tests/lib/tap.sh"
finish() { tap_finish; exit; }

for tool in gcov jq; do
	if ! command -v $tool >/dev/null; then
		echo "skip 1 - coverage floor: $tool not found"
		echo "1..1"
		exit 0
	fi
done
if ! ${CC:-cc} --version 2>/dev/null | grep -q 'Free Software Foundation'; then
	echo "skip 1 - coverage floor: gcov reads the counters of gcc, and ${CC:-cc} is not gcc"
	echo "1..1"
	exit 0
fi
mapfile -t captures < <(cd "$caps" 2>/dev/null && ls -1 -- *.pcap *.pcapng *.cap 2>/dev/null | sort)
for x in ${TCPAV_COVERAGE_EXCLUDE:-}; do
	mapfile -t captures < <(printf '%s\n' "${captures[@]}" | grep -vxF -- "$x")
done
if ((${#captures[@]} == 0)); then
	result 1 "coverage floor: no captures in $caps"
	finish
fi

# the files the project's tools write are what they write today
mkdir -p "$build"
if [[ -x $build/tests/gen_radiotap && -x $build/tests/pcap_mangle && -x $build/tests/vlan_tag ]]; then
	rm -rf "$out.variants"
	if "$caps/variants.sh" "$build" "$out.variants" >"$out.variants.log" 2>&1; then
		for f in "$out.variants"/*; do
			name=$(basename "$f")
			result "$(cmp -s "$f" "$caps/$name" && echo 0 || echo 1)" \
				"tests/captures/$name is what tests/captures/variants.sh writes"
		done
	else
		result 1 "tests/captures/variants.sh $build: $(tail -n 1 "$out.variants.log")"
	fi
	rm -rf "$out.variants" "$out.variants.log"
else
	skip_check "the files of tests/captures/variants.sh" \
		"the corpus tools are not built in $build (make $build/tests/gen_radiotap $build/tests/pcap_mangle $build/tests/vlan_tag)"
fi

# avmon with gcov counters, built here from the sources (no LTO, -O0 so
# that lines map to code); the same files the Makefile links into avmon
rm -rf "$out"
mkdir -p "$out/obj" "$out/json" "$out/lines"
srcs=(monitor/*.c tcpav/lib/units.c tcpav/lib/metrics.c tcpav/lib/json.c)
build_ok=0
for s in "${srcs[@]}"; do
	(cd "$top" && ${CC:-cc} -std=c11 -O0 -g --coverage -D_GNU_SOURCE -DTCPAV_VERSION='"cov"' -Iinclude -Imonitor \
		-c "$s" -o "$out/obj/$(basename "${s%.c}").o") >"$out/build.log" 2>&1 || { build_ok=1; break; }
done
((build_ok == 0)) && ${CC:-cc} --coverage -o "$out/avmon" "$out"/obj/*.o -lpcap -lm >>"$out/build.log" 2>&1 || build_ok=1
result $build_ok "avmon built with --coverage into $build/coverage$( ((build_ok)) && echo ": $(tail -n 3 "$out/build.log" | tr '\n' ' ')")"
((build_ok == 0)) || finish

# lines_of FILE: "LINE<TAB>COUNT<TAB>FUNCTION<TAB>SOURCE" of the executable
# lines of monitor/FILE, from gcov's JSON (COUNT 0 = not reached)
lines_of() {
	(cd "$top" && gcov -t --json-format -o "$out/obj" "monitor/$1" 2>/dev/null) |
		jq -r --arg f "monitor/$1" '.files[] | select(.file == $f) | .lines[]
			| "\(.line_number)\t\(.count)\t\(.function_name // "-")"' |
		awk -F'\t' -v src="$top/monitor/$1" '
			BEGIN { while ((getline l < src) > 0) { t = l; gsub(/[ \t]+/, " ", t); sub(/^ /, "", t); text[++n] = t } }
			{ print $1 "\t" $2 "\t" $3 "\t" text[$1] }'
}

# each capture alone: the lines it reaches and its summary
for cap in "${captures[@]}"; do
	find "$out/obj" -name '*.gcda' -delete
	rc=0
	"$out/avmon" -r "$caps/$cap" --interval 0 --format json >"$out/json/$cap.all" 2>"$out/json/$cap.err" || rc=$?
	tail -n 1 "$out/json/$cap.all" >"$out/json/$cap"
	if ((rc >= 128)); then
		result 1 "$cap: coverage avmon crashed (exit $rc)"
		continue
	fi
	for f in $DECODERS; do
		lines_of "$f" | awk -F'\t' -v f="$f" '$2 > 0 { print f ":" $1 }'
	done >"$out/lines/$cap"
done
# the executable lines, once (a run leaves the counters of the last capture)
for f in $DECODERS; do
	lines_of "$f" | awk -F'\t' -v f="$f" '{ print f ":" $1 "\t" $3 "\t" $4 }'
done | sort -u >"$out/executable"
if [[ ! -s $out/executable ]]; then
	result 1 "gcov found no executable lines in $DECODERS"
	finish
fi

# TCP and decoder counters of one summary, "NAME<TAB>VALUE", nulls as 0
counters_of() {
	jq -r '
	  ([.flows[]? | select(.proto == "tcp") | .a_to_b, .b_to_a | paths(numbers) as $p
	    | ["tcp." + ($p | map(tostring) | join(".")), getpath($p)]]
	   + [.capture.malformed // {} | to_entries[] | ["malformed." + .key, .value]]
	   + [.duplicates_removed // {} | to_entries[] | ["duplicates_removed." + .key, .value]]
	   + [.flows[]? | select(.proto == "tcp") | .a_to_b, .b_to_a | paths(type == "null") as $p
	    | ["tcp." + ($p | map(tostring) | join(".")), 0]])
	  | .[] | "\(.[0])\t\(.[1] // 0)"' "$1" 2>/dev/null
}
for cap in "${captures[@]}"; do
	counters_of "$out/json/$cap" | awk -F'\t' -v c="$cap" '{ print $1 "\t" ($2 != 0) "\t" c }'
done >"$out/counters"

# floor CAPTURE... : prints "line F:L SOURCE" / "counter NAME" / "stale
# WAIVER" for what the captures leave unreached; empty output = floor holds
floor() {
	local c
	for c in "$@"; do cat "$out/lines/$c"; done | sort -u >"$out/reached"
	awk -F'\t' 'NR == FNR { reached[$1] = 1; next } !($1 in reached) { print }' \
		"$out/reached" "$out/executable" >"$out/unreached"
	# waivers: FILE<TAB>FUNCTION<TAB>TEXT<TAB>REASON; TEXT is a fixed string of
	# the line, or * for every line of the function
	awk -F'\t' '
		NR == FNR { if ($0 !~ /^#/ && NF >= 4) { wf[++nw] = $1; wfn[nw] = $2; wt[nw] = $3 } next }
		{ split($1, fl, ":"); hit = 0
		  for (i = 1; i <= nw; i++)
			if (wf[i] == fl[1] && wfn[i] == $2 && (wt[i] == "*" || index($3, wt[i]))) { used[i] = 1; hit = 1 }
		  if (!hit) print "line " $1 " (" $2 ") " $3 }
		END { for (i = 1; i <= nw; i++) if (!used[i]) print "stale " wf[i] " " wfn[i] ": " wt[i] }' \
		"$waivers" "$out/unreached"
	printf '%s\n' "$@" | awk -F'\t' 'NR == FNR { inc[$1] = 1; next }
		($3 in inc) { any[$1] += $2 } END { for (k in any) if (!any[k]) print "counter " k }' - "$out/counters" | sort
}

missing=$(floor "${captures[@]}")
for f in $DECODERS; do
	total=$(grep -c "^$f:" "$out/executable")
	miss=$(grep -c "^line $f:" <<<"$missing")
	result "$((miss > 0))" "every line of $f is reached by tests/captures or waived ($total executable, $miss unreached)"
	grep "^line $f:" <<<"$missing" | head -n 40 | sed 's/^line /#   unreached: /'
done
stale=$(grep -c '^stale ' <<<"$missing")
result "$((stale > 0))" "every waiver in tests/golden/COVERAGE still waives an unreached line"
grep '^stale ' <<<"$missing" | sed 's/^/#   /'
# the counters avmon reports, fixed here: read from its JSON alone, a
# changed layout would leave this loop nothing to check. A counter that
# is new in the JSON is checked too (and belongs in this list).
COUNTERS="duplicates_removed.link_copies duplicates_removed.wlan_retries
	malformed.bad_80211 malformed.bad_ip malformed.bad_radiotap malformed.bad_tcp malformed.truncated
	malformed.unsupported tcp.ack_burstiness tcp.ack_interarrival_ms.count tcp.ack_interarrival_ms.mean
	tcp.ack_interarrival_ms.p50 tcp.ack_interarrival_ms.p99 tcp.ack_train_max tcp.ack_trains tcp.acked_unseen
	tcp.acks_advancing tcp.bytes_acked tcp.bytes_per_ack tcp.dsack_blocks tcp.dup_acks tcp.fast_retransmissions
	tcp.goodput_bps tcp.goodput_bytes tcp.keep_alives tcp.l2_bytes tcp.lost_segments tcp.out_of_order
	tcp.packets tcp.payload_bps tcp.payload_bytes tcp.pure_acks tcp.retransmissions tcp.rtt_ms.count
	tcp.rtt_ms.mean tcp.rtt_ms.min tcp.rtt_ms.p99 tcp.sack_blocks tcp.sack_frames
	tcp.spurious_retransmissions tcp.ts_rtt_ms.count tcp.ts_rtt_ms.mean tcp.ts_rtt_ms.min tcp.ts_rtt_ms.p99
	tcp.window_updates tcp.zero_windows"
cut -f1 "$out/counters" | sort -u >"$out/counter_names"
while IFS= read -r name; do
	if ! grep -qxF -- "$name" "$out/counter_names"; then
		result 1 "$name is in avmon's JSON summary of some capture"
		continue
	fi
	zero=$(grep -c "^counter $name\$" <<<"$missing")
	result "$((zero > 0))" "$name is non-zero in some capture"
done < <({ printf '%s\n' $COUNTERS; cat "$out/counter_names"; } | sort -u)

# what only one capture provides, and the floor without the capture that
# alone provides most: it must fail, or the floor checks nothing
cat "$out"/lines/* | sort | uniq -u >"$out/single_lines"
sole=$(for cap in "${captures[@]}"; do
	l=$(grep -cxFf "$out/single_lines" "$out/lines/$cap")
	k=$(awk -F'\t' -v c="$cap" '$2 == 1 { n[$1]++; if ($3 == c) mine[$1] = 1 }
		END { for (x in mine) if (n[x] == 1) m++; print m + 0 }' "$out/counters")
	echo "$((l + k)) $l $k $cap"
done | sort -k1,1nr -k4 | tee "$out/sole")
awk '$1 > 0 { print "# only " $4 " provides " $2 " decoder lines and " $3 " counters" }' <<<"$sole"
top_cap=$(awk 'NR == 1 && $1 > 0 { print $4 }' <<<"$sole")
if [[ -n $top_cap ]]; then
	mapfile -t rest < <(printf '%s\n' "${captures[@]}" | grep -vxF -- "$top_cap")
	without=$(floor "${rest[@]}" | grep -v '^stale ')
	result "$([[ -n $without ]] && echo 0 || echo 1)" \
		"without $top_cap the floor fails ($(wc -l <<<"$without") lines/counters unreached)"
fi
finish
