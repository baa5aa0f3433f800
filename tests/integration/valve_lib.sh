# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# valve_lib.sh -- what the tests of the infeasibility valve share
# (infeasible_target.sh, several_tcpav_flows.sh); source after lib.sh.
# Flows are started with tb_flows_start; flow i uses port 5201 + i
# ($TB_PORT0 is not changed by these tests).
#
#   mix_run OUT SECS CC...   the flows, SECS long, into OUT, while
#                            `tcpavctl flows --json` is sampled every
#                            0.25 s into OUT/samples (one line per data flow:
#                            "t port flag target_bps goodput_bps
#                            gain g e srtt_us flags loss_events rounds";
#                            t on OUT's clock;
#                            iperf3's idle control connections left out;
#                            flag is 1 infeasible, 2 probing: in a retest,
#                            which core.h starts every 256 rounds while
#                            flagged, clearing the flag until it judges
#                            again; 0 neither)
#   keep_run OUT             copies OUT to $TCPAV_KEEP_DIR when that is set
#                            (for a look at the samples after a failure)
#   flagged_share OUT PORT FROM TO
#                            "F N" of that port's flow within [FROM, TO] s:
#                            F samples flagged (infeasible, or probing in a
#                            retest) of N
#   flagged_since OUT PORT FROM TO
#                            the time (s) of the first sample in [FROM, TO]
#                            from which every sample of that port's flow is
#                            flagged; "never" if the last one is not
#   window_min OUT I W FROM TO
#                            the lowest goodput (bit/s) of flow I over the
#                            windows of W s within [FROM, TO]
#   window_max OUT I W FROM TO   the highest
#   mean_of N...             the integer mean of the numbers
#   run_srtt_us OUT I...     the largest mean srtt of the given flows

_sampler_pid=""
_sampler_stop() {
	[[ -n $_sampler_pid ]] || return 0
	kill "$_sampler_pid" 2>/dev/null || :
	wait "$_sampler_pid" 2>/dev/null || :
	_sampler_pid=""
}

# _sampler OUT SECS: the sampling loop (runs in the background)
_sampler() {
	local out=$1 secs=$2 t0 now t
	t0=$(cat "$out/t0")
	while :; do
		now=$(date +%s.%N)
		t=$(awk -v a="$now" -v b="$t0" 'BEGIN { printf "%.2f", a - b }')
		awk -v t="$t" -v s="$secs" 'BEGIN { exit !(t > s) }' && break
		"$TCPAVCTL" flows --json 2>/dev/null | jq -r --arg t "$t" '.[] |
			select((.flags | test("idle")) | not) |
			"\($t) \(.dst | sub(".*:"; "")) \(if .infeasible then 1 elif (.flags | test("probing")) then 2 else 0 end) \(.target_bps) \(.goodput_bps) \(.gain) \(.g) \(.e) \(.srtt_us) \(.flags) \(.loss_events) \(.rounds)"' \
			>>"$out/samples" 2>/dev/null || :
		sleep 0.25
	done
}

mix_run() {
	local out=$1 secs=$2
	shift 2
	mkdir -p "$out"
	: >"$out/samples"
	tb_flows_start "$out" "$secs" "$@" || return 1
	_sampler "$out" "$secs" &
	_sampler_pid=$!
	tb_flows_wait "$out" >"$out/end" || { _sampler_stop; return 1; }
	_sampler_stop
}

flagged_share() {
	awk -v p="$2" -v from="$3" -v to="$4" '$2 == p && $1 >= from && $1 <= to { n++; f += ($3 > 0) }
		END { print f + 0, n + 0 }' "$1/samples"
}

flagged_since() {
	awk -v p="$2" -v from="$3" -v to="$4" '$2 == p && $1 >= from && $1 <= to {
			if ($3 > 0) { if (since == "") since = $1 } else since = "" }
		END { print since == "" ? "never" : since }' "$1/samples"
}

_window_ext() {
	local op=$1 out=$2 i=$3 w=$4 from=$5 to=$6
	tb_flow_windows "$out" "$i" "$w" "$from" "$to" | awk -v op="$op" '
		{ if (!n++ || (op == "min" && $3 < v) || (op == "max" && $3 > v)) v = $3 }
		END { if (!n) exit 1; printf "%.0f\n", v }'
}
window_min() { _window_ext min "$@"; }
window_max() { _window_ext max "$@"; }

keep_run() {
	[[ -n ${TCPAV_KEEP_DIR:-} ]] || return 0
	mkdir -p "$TCPAV_KEEP_DIR" && cp -r "$1" "$TCPAV_KEEP_DIR/"
}

mean_of() { printf '%s\n' "$@" | awk '{ s += $1; n++ } END { printf "%.0f\n", s / n }'; }

run_srtt_us() {
	local out=$1 i m=0 s
	shift
	for i in "$@"; do
		s=$(tb_flow_srtt_us "$out" "$i") || return 1
		((s > m)) && m=$s
	done
	echo "$m"
}
