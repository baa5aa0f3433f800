#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Infeasible targets starve no one, even while being detected (issue 9,
# point 4). T = 40 Mbit/s over a HTB bottleneck of EB = 28.7 Mbit/s of
# payload (30 Mbit/s of frames), pfifo of 100 packets, offloads off, among
# 3 CUBIC flows: N = 4 flows, fair share EB/N = 7.2 Mbit/s. Three runs of
# SECS = 40 s on the same test bed, one after the other (40, not 20: over
# [2 s, 20 s] a flow's share of 100 packets among CUBIC flows swings by
# more than the band's floor leaves; a kernel Reno in the slot got 4.66
# Mbit/s of a floor of 5.02 there, CUBIC in the slot 5.56-9.64, 2026-12-02):
#   cubic  all CUBIC (4 flows): the competitors' control;
#   reno   Reno in tcp_av's slot + 3 CUBIC: what a Reno flow gets in the
#          slot (a flagged tcp_av flow is E alone, grown as CUBIC and
#          halved as Reno: core.h; the all-CUBIC control's slot 0 is
#          printed beside it: what CUBIC gets there);
#   tcpav  tcp_av (T by a port rule) + 3 CUBIC.
# Goodput is unique bytes at the receiver's device per 0.1 s (flows.sh), in windows
# of W = max(2 s, 4 srtt) (tb_window_s of the tcpav run's largest mean
# srtt), sliding by 0.1 s, from FROM = 2 s to the end. Bounds:
#  - each competitor, in every window from 2 s on, gets >= 50 % of what a
#    competitor gets in the all-CUBIC control's windows: its lowest window
#    is at least half of REFW, the mean of the control's three CUBIC slots'
#    lowest windows over the same span. Like for like: the control's own
#    competitors dip to 39-51 % of their mean rate in their lowest 2 s
#    window (queue 100, 4 runs, 2026-12-01), so "50 % of the control's mean
#    in every window" failed the all-CUBIC control itself in half the runs.
#    Not the control's aligned window, nor its own slot: CUBIC flows split
#    the link among themselves unevenly and for seconds
#    (target_among_cubic.sh), so a per-window or per-slot reference would
#    make the bound a test of CUBIC noise in two runs at once. The mean
#    (REF) and REF/2 are printed beside it;
#  - the flagged flow's goodput over [2 s, SECS] is within [0.7, 1.5] EB/N
#    (once flagged it holds 3/8 of its rate at the flag until its own
#    first loss, then is E alone, halved as a Reno and grown as a CUBIC,
#    whose share among CUBIC is below EB/N but not far: 0.87 of a CUBIC
#    flow's where the curve sets the growth; above 1.5 EB/N it would still
#    be pushing with G); the
#    Reno-in-the-slot control's goodput and the all-CUBIC control's slot 0
#    are printed beside it. Over the span, not
#    per window: a Reno's own 2 s windows swing by more than that range
#    (4.4..10.8 Mbit/s in a Reno control run);
#  - the flags as the issue defines them: "cannot be served" means AVR
#    below 7/8 over the last 10 s, and such a flow is flagged. So over
#    [LAST, SECS] = [30 s, 40 s] the flow's AVR is under 7/8 and
#    `tcpavctl flows --json`, sampled every 0.25 s, shows it flagged in
#    every sample: infeasible, or probing during the retest that core.h
#    starts every 256 rounds (valve_lib.sh). How soon it was flagged is
#    printed (the share of flagged samples from 2 s, and the time from
#    which every sample is flagged); what the detection costs the others
#    is the competitor bound above, from 2 s. (Until 2026-12-02 this
#    check asked for every sample from 2 s, stricter than the issue; at
#    1,000 packets one run in 11 was flagged at 2.3 s.)
# Every check runs at each queue (below). The flagged flow's floor, 0.7 EB/N,
# was the last to hold behind 1,000 packets: with E sized once at the
# restart, from one ACK's RTT, 2 runs in 6 fell under it (3.85, 4.11
# Mbit/s); with the restart's held rate (core.h, tcpav_restart_elastic),
# 15 of 15 runs on 2026-12-02 got 5.56-8.10 Mbit/s, CUBIC in the slot
# 5.50-9.16, every check passing; the Reno-in-the-slot control got
# 16.8-18.7 there, itself above the band (its slow start fills the queue
# before the CUBIC flows' HyStart leaves theirs). At 100 packets 18 of 18
# held it before the hold and 4 of 4 since (7.29-9.39).
# 2026-12-04, a flagged flow on E alone not paced (as kernel CUBIC
# without fq; it helped in several_tcpav_flows.sh): 4.50, 5.01 and 5.41
# Mbit/s at 100 packets, 2 of 3 under the floor of 5.02, against 6.06,
# 6.07 and 9.83 paced, with CUBIC in the slot at 4.57-8.65 in both. Its
# retransmissions were the same either way (806-858 unpaced, 677-918
# paced, the CUBIC flows 54-137): mostly the overshoot before the flag,
# not pacing. Not taken. Paced at 2 cwnd/srtt on E alone instead of 1.2
# (taken on 2026-12-04 for several_tcpav_flows.sh, core.h
# tcpav_e_paced_2x): 5.63-8.22 Mbit/s in 6 runs at 100 packets; at
# 1,000 packets 5.20, 5.98, 6.01, 6.07, 7.24 and 7.34, where 1.2 got 5.05,
# 6.66 and 6.96 in the same session (7.07 and 7.16 in CI runs), CUBIC in
# the slot 6.05-7.89. At 1,000 packets the floor has little room either
# way: after the hold the flagged flow gets 3.5-6 Mbit/s (E of 80-200
# packets at 280-400 ms, a loss event every 5-14 s), and a run whose hold
# ends early (its own first loss, then a timeout: 5.05 and 5.20) comes
# within 1-4 % of 0.7 EB/N. Noted, not widened.
# The flows that hold their target are not flagged: several_tcpav_flows.sh.
# The cell runs with a pfifo of 100 packets (srtt ~40 ms) and again with
# one of 1,000 (srtt ~250 ms; the issue's deep case), about 140 s each.
# `make check` runs the 100-packet cell (TESTS gives the test 480 s); the
# 1,000-packet cell is infeasible_vs_controls_deep.sh, in OPEN: on
# 2026-12-07 it failed in 3 of 20 runs here and in the CI run of 050311d,
# the flag at 2.55-2.89 s instead of 2.00-2.25 and a CUBIC flow's lowest
# window from 2 s at 2.44-2.95 Mbit/s against a bound of 3.01-3.41 (the
# first check). A congested round is now a stall of the full-pipe check
# and the flag comes on time (docs/design.md §3.5); what still fails
# there, in 1 run of 7, is the flagged flow's floor (4.50 Mbit/s against
# 5.02; the CI run's 4.91), when a timeout ends the hold early.
# TCPAV_INFEASIBLE_QUEUES picks the queues (100 by default).
# TCPAV_KEEP_DIR=DIR keeps each cell's files, the samples of
# `tcpavctl flows` (gain, G, E, srtt, flags) among them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/valve_lib.sh"
EB=28700000 N=4 T=40000000 SECS=40 FROM=2 LAST=30
FAIR=$((EB / N))

# cell NAME QUEUE: the three runs on test bed NAME with that queue, checks
cell() {
	local name=$1 q=$2 d=$TMP/$1 srtt w ref refw tav reno last i lo f n rule
	local -a refs=() refws=()
	tb_trap_cleanup "$name"
	tb_up "$name" "$(tb_htb_rate_for_eb $EB)" "$q" || stop_here "test bed $name did not come up"
	mix_run "$d/cubic" $SECS cubic cubic cubic cubic || stop_here "the all-CUBIC control failed"
	mix_run "$d/reno" $SECS reno cubic cubic cubic || stop_here "the Reno-in-the-slot control failed"
	rule=$("$TCPAVCTL" rule add --dport 5201 --cc tcp_av --rate $T | awk '{ sub(":", "", $2); print $2 }')
	mix_run "$d/tcpav" $SECS rule cubic cubic cubic || stop_here "the tcp_av run failed"
	"$TCPAVCTL" rule del "$rule" >/dev/null
	tb_down "$name"
	keep_run "$d"

	srtt=$(run_srtt_us "$d/tcpav" 0 1 2 3)
	w=$(tb_window_s "$srtt")
	for i in 1 2 3; do
		refs+=("$(tb_flow_goodput "$d/cubic" $i $FROM $SECS)")
		refws+=("$(window_min "$d/cubic" $i "$w" $FROM $SECS)")
	done
	ref=$(mean_of "${refs[@]}")
	refw=$(mean_of "${refws[@]}")
	echo "# queue $q: srtt $((srtt / 1000)) ms, window $w s; all-CUBIC control per slot $(for x in "${refs[@]}"; do printf '%s ' "$(mbit "$x")"; done)(REF $(mbit "$ref"), REF/2 $(mbit $((ref / 2)))), lowest windows $(for x in "${refws[@]}"; do printf '%s ' "$(mbit "$x")"; done)(REFW $(mbit "$refw")) Mbit/s"
	for i in 1 2 3; do
		lo=$(window_min "$d/tcpav" $i "$w" $FROM $SECS)
		echo "# queue $q: competitor $i: mean $(mbit "$(tb_flow_goodput "$d/tcpav" $i $FROM $SECS)"), windows $(mbit "$lo")..$(mbit "$(window_max "$d/tcpav" $i "$w" $FROM $SECS)") Mbit/s; in the Reno control from $(mbit "$(window_min "$d/reno" $i "$w" $FROM $SECS)"), in the all-CUBIC control from $(mbit "$(window_min "$d/cubic" $i "$w" $FROM $SECS)")"
		check_ge "queue $q: competitor $i's lowest window from 2 s is >= 50 % of the all-CUBIC control's (REFW)" "$lo" $((refw / 2))
	done

	tav=$(tb_flow_goodput "$d/tcpav" 0 $FROM $SECS)
	reno=$(tb_flow_goodput "$d/reno" 0 $FROM $SECS)
	echo "# queue $q: tcp_av (T 40M) $(mbit "$tav") Mbit/s (windows $(mbit "$(window_min "$d/tcpav" 0 "$w" $FROM $SECS)")..$(mbit "$(window_max "$d/tcpav" 0 "$w" $FROM $SECS)")), Reno in the slot $(mbit "$reno") (windows $(mbit "$(window_min "$d/reno" 0 "$w" $FROM $SECS)")..$(mbit "$(window_max "$d/reno" 0 "$w" $FROM $SECS)")), CUBIC in the slot $(mbit "$(tb_flow_goodput "$d/cubic" 0 $FROM $SECS)") (windows $(mbit "$(window_min "$d/cubic" 0 "$w" $FROM $SECS)")..$(mbit "$(window_max "$d/cubic" 0 "$w" $FROM $SECS)")), EB/N $(mbit $FAIR) Mbit/s"
	check_ge "queue $q: the flagged flow gets >= 0.7 EB/N" "$tav" $((FAIR * 7 / 10))
	check_le "queue $q: the flagged flow gets <= 1.5 EB/N" "$tav" $((FAIR * 3 / 2))

	read -r f n < <(flagged_share "$d/tcpav" 5201 $FROM $SECS)
	echo "# queue $q: flagged (infeasible or probing) in $f of $n samples from 2 s, in every sample from $(flagged_since "$d/tcpav" 5201 $FROM $SECS) s; AVR from 2 s $(awk -v a="$tav" -v t=$T 'BEGIN { printf "%.3f", a / t }')"
	last=$(tb_flow_goodput "$d/tcpav" 0 $LAST $SECS)
	read -r f n < <(flagged_share "$d/tcpav" 5201 $LAST $SECS)
	echo "# queue $q: over the last 10 s: AVR $(awk -v a="$last" -v t=$T 'BEGIN { printf "%.3f", a / t }'), flagged in $f of $n samples"
	check "queue $q: tcpavctl flows was sampled over the last 10 s" test "$n" -gt 0
	check_le "queue $q: the flow's AVR over the last 10 s is under 7/8: it cannot be served" "$last" $((T * 7 / 8))
	check_ge "queue $q: tcpavctl flows shows the flow infeasible (or in a retest) in every sample of the last 10 s" "$f" "$n"
}

tcpav_test_begin tavi
# shellcheck disable=SC2034 # read by the cleanup trap (testbed.sh)
TB_EXTRA_CLEANUP="_sampler_stop; _tcpav_cleanup"
queues=${TCPAV_INFEASIBLE_QUEUES:-100}
for q in $queues; do
	[[ $q =~ ^[1-9][0-9]*b?$ ]] || stop_here "TCPAV_INFEASIBLE_QUEUES: '$q' is not a queue (100, 1000, 151400b)"
	cell "tavi$q" "$q"
done
finish
