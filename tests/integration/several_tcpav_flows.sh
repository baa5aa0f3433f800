#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Several tcp_av flows on one bottleneck (issue 9, point 5): HTB of
# EB = 25 Mbit/s of payload, pfifo of 100 packets, offloads off, targets
# by port rules, SECS = 20 s (run "held"), goodput at the receiver (iperf3
# server intervals of 0.1 s).
#
# Run "held": targets 5, 5 and 8 Mbit/s (18 = 72 % of EB) among 2 CUBIC.
# Measured from FROM = max(2 s, 32 srtt): slow start to T*srtt (~4 rounds
# here), the gain's ramp to its maximum (x1.25 a round, 5 rounds) and its
# steps of at most 1/16 back toward 1 (24 rounds) are 32 rounds at most;
# srtt is the run's largest mean srtt. Bounds:
#  - each tcp_av flow's AVR (goodput / T over [FROM, SECS]) >= 0.95;
#  - the CUBIC flows together get >= 80 % of the rest, EB - the tcp_av
#    flows' goodput over the same span;
#  - none is flagged infeasible in any sample of `tcpavctl flows --json`
#    over the last 10 s (a flow at AVR >= 0.95 is never flagged).
# A CI run (2026-12-07) failed the CUBIC bound at 64.7 %: tcp_av 17.87
# (each flow at AVR >= 0.95), CUBIC 4.62, the link at 22.5 of 25 Mbit/s,
# so the link idled while CUBIC was short (inferred from the link's use,
# not seen), and tcp_av took no more than T. 28 runs by hand since (at
# f872258): 98.6-100.1 % in 27, 87.0 % in one (a CI simulation had 85.8 %).
# The run is not kept in CI, so the link's use, the CUBIC flows' lowest
# windows and the retransmissions are printed after the check.
#
# Run "over": targets 15 + 15 Mbit/s (30 > EB) among 2 CUBIC, and its
# control, 4 CUBIC flows in the same slots, OVER_SECS = 120 s each
# (TCPAV_OVER_SECS). The bound on the CUBIC flows below has little room
# (53 % expected against 50 %, see there), and the split of a 100-packet
# queue among CUBIC flows wanders for seconds. A third run, "slot", puts
# a kernel CUBIC flow in the flagged flow's place (one tcp_av flow at 15,
# 3 CUBIC), and its figures are printed beside: what the bound leaves the
# physics. Measured at 40 s (2026-12-02), the two CUBIC flows kept 50.4,
# 55.9 and 53.2 % of their control with CUBIC in the slot; 51.8, 50.5 and
# 50.6 % with a kernel Reno there; 49.9-55.9 % (6 runs) with tcp_av
# flagged; 48.9-54.6 % (6 runs) before E's friendly rate went under
# Reno's (core.h, tcpav_grow_cubic). So the bound holds for a flow as fair
# as CUBIC only on the mean, and the runs are 3 times as long as 40 s, so
# the spread of the mean compared (sd 2.4 points at 40 s) is about
# 1.4 points. At 120 s (2026-12-02): 56.8 %, CUBIC in the slot 52.9 %.
# 2026-12-03/04, 6 runs: the CUBIC flows 53.8-56.7 % (CUBIC in the slot
# 53.1-56.4 %); the flagged flow 2.86-3.18 Mbit/s, its lowest 2 s window
# 0.75 (under S/4 = 0.83: check 9 failed), 1.01, 1.43, 1.47, 1.49, 1.52,
# where a kernel CUBIC in the slot had 0.94-1.87; the link used
# 24.90-24.98 of 25.
# (A CI run with the CUBIC flows at 47.6 % had the link at 23.57: the
# link's use is printed for that reason.) Not paced while flagged on E
# alone (as kernel CUBIC without fq), 4 runs: lowest windows 1.07-1.23,
# the CUBIC flows 55.0-57.7 %, but in infeasible_vs_controls.sh the flagged
# flow fell under its floor behind 100 packets (see there): not taken.
# Paced at 2 cwnd/srtt while flagged on E alone (between the two; core.h
# tcpav_e_paced_2x), taken on 2026-12-04 after 8 runs: lowest windows
# 1.66, 1.37, 1.36, 1.26, 1.63, 1.71, 1.45, 1.35, the flagged flow
# 2.89-3.30 Mbit/s, the CUBIC flows 53.0-56.0 % (a kernel CUBIC in the
# slot: lowest windows 1.56-1.86, the CUBIC flows 51.1-56.0 %, once
# 49.6 %: under check 10's bound); infeasible_vs_controls.sh held its
# floor in 12 of 12 (see there). Its losses did not change: about 1,200-1,350
# retransmissions in 120 s at either pacing, against 320-450 for each
# CUBIC flow. At the receiver (one run, from 5 s) its loss events came at
# 1.5 % of its packets, the CUBIC flows' at 0.9-1.1 %, with 3 silences of
# ~0.27 s (timeouts) where they had none; its dips are runs of 2-3 loss
# events within a few rounds at E of 7-14 packets.
# A CI run (2026-12-04) failed check 9 at 0.53. The silences are the
# retests': one every 256 rounds (~11 s), most ending in timeouts, 5-9
# silences of 0.1-0.9 s a run (8 runs of 8, by hand, the over run alone:
# lowest windows 1.17-1.83, the flagged flow 2.75-3.16 Mbit/s), where a
# kernel Reno in the slot (5 runs: lowest windows 1.56-1.88, 3.29-3.60
# Mbit/s, the CUBIC flows 6.35-6.65 together) never went silent. Since
# then a timeout in a retest flags the flow again at once (core.h,
# tcpav_on_timeout), 8 runs: lowest windows 1.41-1.99 (median 1.68; 1.50
# before), the flagged flow 3.01-3.47, the CUBIC flows 6.49-6.95, 0-9
# silences of 0.5 s at most; the whole test once: 1.18, the CUBIC flows 57.3 % of
# their control. (PRR in the flagged flow's recoveries, tried first,
# did not help: 2 runs, silences of up to 1.0 s, a lowest window of 0.74.)
# About 7 minutes in all (TESTS gives the test 600 s).
# N = 4, EB/N = 6.25 Mbit/s.
# From FROM = 2 s (as in infeasible_target.sh), in windows of
# W = max(2 s, 4 srtt). REF is the control's mean per slot over [2 s, OVER_SECS]
# (its four slots pooled: CUBIC's own split among CUBIC flows is uneven,
# see infeasible_target.sh). Bounds:
#  - neither tcp_av flow starves. 30 > EB, but 15 alone is feasible: one
#    flow may hold its T (AVR >= 0.95 over [2 s, OVER_SECS]) and the other is
#    then flagged, a Reno among the CUBIC flows in what the held flow
#    leaves. So the share S of a flow that does not hold its T is
#    (EB - the held flows' goodput) / (N - the held flows), EB/N when none
#    holds; such a flow gets >= S/2 over [2 s, OVER_SECS] (a Reno among CUBIC:
#    0.7 EB/N in infeasible_target.sh) and >= S/4 in every window (one
#    Reno halving of a flow at half its share); a held flow does not
#    starve by definition;
#  - the CUBIC flows keep >= 50 % of their control: together >= 50 % of
#    2 REF over [2 s, OVER_SECS] (their per-window minima are printed: the
#    issue asks for windows only in point 4, and one held flow leaves them
#    (EB - T) / 3 each, 53 % of REF, with CUBIC's own swings below half of
#    that in single windows);
#  - the flags follow point 4, judged over the last 10 s of each run: a
#    flow under 7/8
#    T there is flagged in every sample (infeasible, or probing in a
#    retest: valve_lib.sh); a flow at AVR >= 0.95
#    there is flagged in none; one in between is not judged (said so).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/valve_lib.sh"
EB=25000000 N=4 SECS=20 OVER_SECS=${TCPAV_OVER_SECS:-120}

# rules PORT:RATE...: a tcp_av rule per port; their ids in RULES
RULES=()
rules() {
	local pr
	for pr in "$@"; do
		RULES+=("$("$TCPAVCTL" rule add --dport "${pr%%:*}" --cc tcp_av --rate "${pr#*:}" |
			awk '{ sub(":", "", $2); print $2 }')")
	done
}
rules_del() {
	local id
	for id in "${RULES[@]}"; do "$TCPAVCTL" rule del "$id" >/dev/null; done
	RULES=()
}

# flags_follow RUN SECS I T: the flag of flow I (target T bit/s) over the
# last 10 s of the run of SECS s against its AVR there
flags_follow() {
	local d=$1 secs=$2 i=$3 t=$4 g f n avr
	g=$(tb_flow_goodput "$d" "$i" $((secs - 10)) "$secs")
	avr=$(awk -v a="$g" -v t="$t" 'BEGIN { printf "%.3f", a / t }')
	read -r f n < <(flagged_share "$d" $((5201 + i)) $((secs - 10)) "$secs")
	echo "# $(basename "$d") flow $i (T $(mbit "$t")M): AVR over the last 10 s $avr, flagged in $f of $n samples"
	if ge "$avr" 0.95; then
		check "$(basename "$d") flow $i at AVR $avr >= 0.95 is not flagged" test "$n" -gt 0 -a "$f" -eq 0
	elif awk -v a="$avr" 'BEGIN { exit !(a < 0.875) }'; then
		check "$(basename "$d") flow $i at AVR $avr < 7/8 is flagged in every sample ($f of $n)" \
			test "$n" -gt 0 -a "$f" -eq "$n"
	else
		skip_check "$(basename "$d") flow $i's flag" "its AVR $avr is between 7/8 and 0.95, where no flag is required"
	fi
}

[[ $OVER_SECS =~ ^[0-9]+$ ]] && ((OVER_SECS >= 12)) ||
	stop_here "TCPAV_OVER_SECS: '$OVER_SECS' is not a whole number of seconds >= 12 (2 s of start and the last 10 s)"
tcpav_test_begin tavm "$(tb_htb_rate_for_eb $EB)" 100
# shellcheck disable=SC2034 # read by the cleanup trap (testbed.sh)
TB_EXTRA_CLEANUP="_sampler_stop; _tcpav_cleanup"

# --- held: 5 + 5 + 8 among 2 CUBIC ---
held=$TMP/held targets=(5000000 5000000 8000000)
rules 5201:5M 5202:5M 5203:8M
mix_run "$held" $SECS rule rule rule cubic cubic || stop_here "the 5+5+8 run failed"
keep_run "$held"
rules_del
srtt=$(run_srtt_us "$held" 0 1 2 3 4)
from=$(awk -v r="$srtt" 'BEGIN { f = 32 * r / 1e6; if (f < 2) f = 2; printf "%.1f", f }')
sum=0
for i in 0 1 2; do
	g=$(tb_flow_goodput "$held" $i "$from" $SECS)
	sum=$((sum + g))
	echo "# held flow $i: $(mbit "$g") Mbit/s of T $(mbit "${targets[i]}") from $from s (srtt $((srtt / 1000)) ms)"
	check_ge "held flow $i: AVR % from $from s" "$(pct "$g" "${targets[i]}")" 95
done
cubic=$(($(tb_flow_goodput "$held" 3 "$from" $SECS) + $(tb_flow_goodput "$held" 4 "$from" $SECS)))
echo "# held: tcp_av together $(mbit $sum), CUBIC together $(mbit $cubic) of the rest $(mbit $((EB - sum))) Mbit/s ($(pct $cubic $((EB - sum))) %)"
check_ge "held: the CUBIC flows get >= 80 % of EB - tcp_av" "$cubic" $(((EB - sum) * 8 / 10))
# what a shortfall would be made of: the link's use (CI once had 22.5 of 25,
# see the top), each CUBIC flow's lowest window, everyone's retransmissions
w=$(tb_window_s "$srtt")
echo "# held: link use from $from s $(mbit $((sum + cubic))) of EB $(mbit $EB) Mbit/s; CUBIC flows' lowest $w s windows $(mbit "$(window_min "$held" 3 "$w" "$from" $SECS)") and $(mbit "$(window_min "$held" 4 "$w" "$from" $SECS)") Mbit/s; retransmissions per flow: $(for i in 0 1 2 3 4; do jq -r '.end.streams[0].sender.retransmits' "$held/flow-$i.json"; done | tr '\n' ' ')"
for i in 0 1 2; do
	flags_follow "$held" $SECS $i "${targets[i]}"
done

# --- over: 15 + 15 among 2 CUBIC, and the all-CUBIC control ---
ctl=$TMP/control over=$TMP/over
mix_run "$ctl" $OVER_SECS cubic cubic cubic cubic || stop_here "the all-CUBIC control failed"
keep_run "$ctl"
rules 5201:15M 5202:15M
mix_run "$over" $OVER_SECS rule rule cubic cubic || stop_here "the 15+15 run failed"
keep_run "$over"
rules_del
slot=$TMP/slot
rules 5201:15M
mix_run "$slot" $OVER_SECS rule cubic cubic cubic || stop_here "the CUBIC-in-the-slot control failed"
keep_run "$slot"
rules_del
srtt=$(run_srtt_us "$over" 0 1 2 3)
w=$(tb_window_s "$srtt")
refs=()
for i in 0 1 2 3; do refs+=("$(tb_flow_goodput "$ctl" $i 2 $OVER_SECS)"); done
ref=$(mean_of "${refs[@]}")
echo "# over: srtt $((srtt / 1000)) ms, window $w s; control per slot $(for x in "${refs[@]}"; do printf '%s ' "$(mbit "$x")"; done)(REF $(mbit "$ref")) Mbit/s"
declare -A over_g=()
held_sum=0 held_n=0
for i in 0 1; do
	over_g[$i]=$(tb_flow_goodput "$over" $i 2 $OVER_SECS)
	if ge "$(pct "${over_g[$i]}" 15000000)" 95; then
		held_sum=$((held_sum + over_g[$i])) held_n=$((held_n + 1))
	fi
done
share=$(((EB - held_sum) / (N - held_n)))
echo "# over: $held_n of the 2 tcp_av flows hold T; the others' share S = $(mbit "$share") Mbit/s"
for i in 0 1; do
	lo=$(window_min "$over" $i "$w" 2 $OVER_SECS)
	echo "# over flow $i (T 15M): $(mbit "${over_g[$i]}") Mbit/s (AVR $(awk -v a="${over_g[$i]}" 'BEGIN { printf "%.3f", a / 15e6 }')), windows from $(mbit "$lo")"
	if ge "$(pct "${over_g[$i]}" 15000000)" 95; then
		echo "# over flow $i holds its T: it does not starve"
	else
		check_ge "over flow $i does not starve: >= S/2 from 2 s" "${over_g[$i]}" $((share / 2))
		check_ge "over flow $i does not starve: >= S/4 in every window" "$lo" $((share / 4))
	fi
done
cubic=0
for i in 2 3; do
	g=$(tb_flow_goodput "$over" $i 2 $OVER_SECS)
	cubic=$((cubic + g))
	echo "# over CUBIC flow $i: $(mbit "$g") Mbit/s, windows from $(mbit "$(window_min "$over" $i "$w" 2 $OVER_SECS)") (REF/2 $(mbit $((ref / 2))))"
done
echo "# over: the CUBIC flows together $(mbit $cubic) of their control's 2 REF $(mbit $((2 * ref))) Mbit/s ($(pct $cubic $((2 * ref))) %)"
check_ge "over: the CUBIC flows together keep >= 50 % of their control" "$cubic" "$ref"
# the link's use in both runs: a CUBIC share under its bound with the link
# underused (a failure in CI had 23.57 of 25 Mbit/s) points at timeouts,
# one with the link full at the split itself
echo "# link use from 2 s: over $(mbit $((over_g[0] + over_g[1] + cubic))), control $(mbit $((refs[0] + refs[1] + refs[2] + refs[3]))) of EB $(mbit $EB) Mbit/s"
sc=$(($(tb_flow_goodput "$slot" 2 2 $OVER_SECS) + $(tb_flow_goodput "$slot" 3 2 $OVER_SECS)))
echo "# slot (CUBIC in the flagged flow's place): tcp_av $(mbit "$(tb_flow_goodput "$slot" 0 2 $OVER_SECS)"), CUBIC in the slot $(mbit "$(tb_flow_goodput "$slot" 1 2 $OVER_SECS)") (windows from $(mbit "$(window_min "$slot" 1 "$w" 2 $OVER_SECS)")), the two CUBIC flows together $(mbit "$sc") Mbit/s ($(pct "$sc" $((2 * ref))) % of 2 REF)"
for i in 0 1; do
	flags_follow "$over" $OVER_SECS $i 15000000
done
finish
