/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * core.h - the tcp_av control law: hold one flow at a target rate T while
 * behaving like Reno above it.
 *
 * Idea: TCP-AV (2006) asks that an audio/video flow get its required rate on
 * a shared wireless LAN while staying TCP-friendly; the paper gives the goal,
 * not this formula (see docs/design.md §3.8). The window is the larger of two:
 *
 *   E  elastic window: a shadow Reno, halved on each loss event (and on
 *      ECN-Echo, through the kernel's CWR), grown only while a Reno flow in
 *      this flow's place would be window-limited. Departures from Reno, so
 *      that E never rides on G:
 *      - E is credited at most E acknowledged packets per round trip, as
 *        many as a Reno flow with E in flight would see acknowledged: while
 *        G keeps far more packets in flight (a deep queue), E still grows
 *        one packet a round in avoidance and doubles at most in slow start,
 *        never by G/E a round;
 *      - with a target, E's slow start ends once E reaches G (E would carry
 *        g*T by itself): slow start past that point only fills a deep
 *        buffer above T; beyond it E grows as Reno's avoidance does;
 *      - with a target, E's slow start also ends on delay, as HyStart++
 *        (RFC 9406) ends it (tcpav_e_delay_exit): CUBIC flows beside a
 *        flow that pushes toward T leave slow start so, and E must not
 *        hold more than they do when G is switched off; once flagged, E
 *        slow-starts again from the restart, ended so against the least
 *        srtt since then (tcpav_restart_elastic).
 *   G  guaranteed window = g * T * srtt / mss + TCPAV_G_HEADROOM (mss here
 *      and in every rate: the mean payload of a packet, tcpav_pkt_bytes).
 *      srtt, not min_rtt: behind a queue that competitors keep full a min_rtt window
 *      starves the flow; G follows srtt up, and the window G/srtt = g*T
 *      holds the rate. g*T is capped above T at 5/4 of the bandwidth
 *      estimate and, once the flow has lost packets, at twice it
 *      (tcpav_guaranteed_Bps).
 *      Losses never cut G as Reno cuts a window, nor does a timeout;
 *      the first of them only bounds G's rate by the estimate (above);
 *      after a timeout,
 *      cwnd is held under G for a while: it slow-starts back to max(G, E)
 *      (tcpav_rebuild_cwnd), as Reno's restarts to its ssthresh.
 *
 * cwnd = max(G, E). While G dominates the flow is paced at 6/5 g*T (see
 * tcpav_g_pacing_Bps), so the window never dumps its packets in a burst yet
 * is sent as ACKs free room; while E dominates (and with T = 0) it is
 * paced as the kernel paces Reno (2x cwnd/srtt in slow start, 1.2x after),
 * except flagged on E alone: 2x (tcpav_e_paced_2x; closer to the
 * unpaced ACK clock of the CUBIC flows it then shares a queue with).
 * Once flagged infeasible (below) E grows as CUBIC and is halved as Reno
 * (tcpav_grow_cubic): the flow is then one more elastic flow among the
 * kernel's default ones, a little less aggressive than they are.
 *
 * The gain g is adjusted once per round trip from the delivered rate, both
 * smoothed and this round's (rounds with application-limited or
 * receive/send-window-limited samples, or a timeout, are ignored: a larger
 * window would not send more): while both are below 7/8 T it rises by a
 * quarter a round (a fast ramp, so an infeasible target is known in a few
 * rounds) for as long as ramping pays and G can carry it (g*T up to 5/4 of
 * the bandwidth estimate, see tcpav_guaranteed_Bps): after
 * TCPAV_RAMP_STALLS rounds without 25 % more delivery than the ramp's best
 * round, or with losses or marks (BBR's full-pipe check) it returns to that
 * round's gain and holds, the gain's ceiling;
 * below T in proportion to the shortfall (at most TCPAV_GAIN_STEP a round);
 * once both meet T it decays, by the excess or by 1/8 of g - 1, whichever
 * is more, and below 1 by the excess alone, down to tcpav_gain_floor (1
 * less the rate G's headroom adds where the window binds, 4 mss/srtt: 9 %
 * of 12.5 Mbit/s at 40 ms), never under TCPAV_GAIN_MIN = 5/6 (where the
 * pacing, 6/5 g*T, is still T), and at once to g*T/rate after a round
 * above 9/8 T (an overshoot is undone in one round, not over many long
 * rounds of a deep queue); always within [TCPAV_GAIN_MIN, TCPAV_GAIN_MAX].
 *
 * Safety valve: a run begins at a round whose smoothed rate is below 7/8 T
 * with the gain at its ceiling (TCPAV_GAIN_MAX, or a ramp that stopped
 * paying) or at the ramp's first round without 25 % more delivery, and
 * can flag once the gain reached its ceiling in it; it goes on while the run's mean rate (what was delivered since
 * it began, over its time) stays below 7/8 T and the smoothed rate below T;
 * when it has lasted TCPAV_VALVE_ROUNDS rounds and TCPAV_VALVE_MIN_MS, and
 * at least one of its rounds saw losses or ECN marks, T is judged
 * infeasible. A timeout's rounds and the rebuild's are no part of a run:
 * neither its rounds nor its time nor its delivery (nor of the smoothed
 * rate). Rounds
 * limited by the send buffer or the receive window count too when they lost
 * packets: a window that overflows the path's queue is not what binds. The
 * flow is flagged and G is switched off, so the flow is its elastic part
 * alone, grown as CUBIC and halved as Reno (competitors are never starved
 * while T cannot be served). A round later, once its own queue has
 * drained, G holds 3/8 of the rate the flow delivered at the flag, as a
 * rate whatever the queue's delay, while E slow-starts again beneath it,
 * until the flow's own first loss hands E that window (or E, if larger),
 * halved (tcpav_restart_elastic). The
 * flag clears
 * when E alone delivers 7/8 T, smoothed and in every round of a run of at
 * least TCPAV_VALVE_ROUNDS rounds and TCPAV_VALVE_MIN_MS (competitors left;
 * the same second the valve takes to flag; a timeout ends the run), when the target changes,
 * and for a retest TCPAV_RETEST_ROUNDS rounds after the flag: G comes back from g = 1
 * and the valve judges again, in TCPAV_VALVE_ROUNDS rounds at the ceiling
 * without the minimum time (a few rounds of pressure in hundreds, not a
 * probe burst every few), or at once on a timeout in it
 * (tcpav_on_timeout). Departure from the design text: "T above a fraction
 * of the estimated bottleneck" is not a separate trigger (a flow paced at
 * T cannot see a bottleneck above T).
 *
 * T = 0 disables G and the gain: the flow is a plain Reno flow, with the
 * pacing rate the kernel would compute (used for TSO sizing, not pacing).
 *
 * Pure integer C: no libc, no floating point, every divisor checked. It is
 * included verbatim by the BPF program, the unit tests and simulators, and
 * compiles as C and C++.
 */
#ifndef TCPAV_CORE_H
#define TCPAV_CORE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define TCPAV_GAIN_UNIT 256u           /* g is Q8 fixed point: 256 = 1.0 */
#define TCPAV_GAIN_MIN 214u            /* 5/6, rounded up: 6/5 g*T pacing never
					* falls below T (see tcpav_gain_floor) */
#define TCPAV_GAIN_MAX 640u            /* 2.5: bound on the catch-up rate */
#define TCPAV_GAIN_STEP 16u            /* at most +1/16 per round just below T */
#define TCPAV_GAIN_RAMP_SHIFT 2        /* below 7/8 T: g += g/4 per round */
#define TCPAV_GAIN_KI 128u             /* gain change per 100 % rate error, Q8 */
#define TCPAV_GAIN_DECAY_SHIFT 3       /* g -= (g - 1)/8 per round at target */
#define TCPAV_G_HEADROOM 4u            /* packets added to G */
#define TCPAV_E_MIN 1u                 /* E after a timeout, as Reno */
#define TCPAV_E_HYSTART_LOW 16u        /* E's delay exit only from here (Linux
					* CUBIC's hystart_low_window) */
#define TCPAV_HYSTART_MIN_US 4000u     /* RFC 9406 MIN_RTT_THRESH */
#define TCPAV_HYSTART_MAX_US 16000u    /* RFC 9406 MAX_RTT_THRESH */
/* E grows when inflight >= E - slack; a slack above G's headroom lets E
 * pass G when the path has room, so the flow can be Reno above T */
#define TCPAV_E_SLACK (TCPAV_G_HEADROOM + 2u)
#define TCPAV_SSTHRESH_INF 0x7fffffffu
#define TCPAV_RTT_NONE 0xffffffffu     /* no RTT sample yet */
#define TCPAV_WND_MAX 0x100000u        /* clamp on G and E, packets */
#define TCPAV_VALVE_ROUNDS 3u          /* rounds at the gain's ceiling under 7/8 T */
#define TCPAV_RAMP_STALLS 3u           /* ramp rounds without 25 % more delivery
					* (or with losses or marks) before the
					* ramp stops (the ceiling) */
/* ... lasting at least this long: competitors' slow start overflowing a
 * small (or GSO-filled) queue can hold any flow under 7/8 T for a few short
 * rounds; a second lets it pass while still deciding before competitors of
 * an infeasible target lose much */
#define TCPAV_VALVE_MIN_MS 1000u
#define TCPAV_PROBE_INTERVAL 32u       /* rounds per bandwidth window */
#define TCPAV_RETEST_ROUNDS 256u       /* rounds flagged before T is tried again */
/* flagged, E grows as CUBIC (RFC 9438, C = 0.4) and is cut as Reno: */
#define TCPAV_CUBIC_BETA 512u          /* /1024: the cut on a loss event, Reno's
					* half (CUBIC's 0.7: see tcpav_grow_cubic) */
#define TCPAV_CUBIC_ALPHA_Q5 29u       /* /32 packets a round at least: the
					* friendly rate, a little under Reno's
					* 3(1-b)/(1+b) = 1 at b = 1/2
					* (measured: tcpav_grow_cubic) */
#define TCPAV_CUBIC_MS3_PER_PKT 2500000000ull /* K^3 in ms^3 per packet of
					* W_max - E: 1e9 / C, C = 0.4 */
#define TCPAV_CUBIC_T_MAX_MS 0x3ffffu  /* |t - K| is clamped here (262 s) */
#define TCPAV_ROUND_MIN_US 1000u       /* shortest round used for a rate */
#define TCPAV_USEC_PER_SEC 1000000ull
#define TCPAV_BYTES_MAX 10000000000000ull /* keeps bytes * 1e6 inside 64 bits */

/* state flags (the low ones exported as enum tcpav_flow_flags in abi.h,
 * same bits) */
#define TCPAV_S_INFEASIBLE 0x1u
#define TCPAV_S_PROBING 0x2u
#define TCPAV_S_G_DOMINATES 0x4u
#define TCPAV_S_APP_LIMITED 0x8u
#define TCPAV_S_WINDOW_LIMITED 0x10u   /* last round: rwnd or sndbuf limited */
#define TCPAV_S_ROUND_APP_LIMITED 0x100u /* some sample in this round was */
#define TCPAV_S_ROUND_WINDOW_LIMITED 0x200u
#define TCPAV_S_ROUND_ECE 0x400u       /* an ACK of this round echoed CE */
#define TCPAV_S_ROUND_RTO 0x800u       /* a timeout fell in this round */
#define TCPAV_S_ROUND_LOSS 0x1000u     /* packets were marked lost this round */
#define TCPAV_S_LOST 0x80u             /* packets were lost (or a timeout fell) since
					* T was set: G within 2x the estimate */
#define TCPAV_S_E_RESTART 0x2000u      /* flagged: E restarts at the next round's end */
#define TCPAV_S_RUN_CEILING 0x4000u    /* the gain was at its ceiling in this run */
#define TCPAV_S_E_EPOCH 0x8000u        /* flagged: E's CUBIC epoch has begun */
#define TCPAV_S_REBUILD 0x40u          /* after a timeout: cwnd slow-starts back
					* to max(G, E) (tcpav_rebuild_cwnd) */
#define TCPAV_S_E_HOLD 0x20u           /* flagged: G holds 3/8 of the flow's rate
					* until E's own first loss event */

/*
 * Per-flow state. It lives in the socket's icsk_ca_priv area (104 bytes in
 * Linux 6.x); tcp_av.bpf.c checks the size at build time.
 */
struct tcpav_state {
	__u64 target_Bps;     /* T, bytes per second */
	__u64 rate_Bps;       /* delivered rate, EWMA (1/4) over rounds */
	__u32 bw_win_Bps[2];  /* max round rate: this window, previous window
			       * (saturates at 4.29 GB/s, as ramp_Bps) */
	__u64 round_start_us;
	__u32 round_start_delivered; /* the round ends at an ACK of data sent
				      * after it (prior_delivered >= this) */
	__u32 rounds;
	__u32 e_wnd;          /* E, packets */
	__u32 e_cnt;          /* Reno additive-increase counter */
	__u32 e_ssthresh;
	__u32 e_prior;        /* E before the last cut, for undo */
	__u32 e_prior_ssthresh; /* E's ssthresh before the last cut */
	__u32 e_credit;       /* acked packets E may still count this round */
	__u32 g_wnd;          /* G, packets */
	__u32 gain;           /* g, Q8 */
	__u32 ramp_Bps;       /* full-pipe check: best round rate of this ramp
			       * (saturates at 4.29 GB/s) */
	__u16 ramp_gain;      /* g of the round that set ramp_Bps */
	__u8 ramp_stalls;     /* ramp rounds since a 25 % gain in delivery
			       * without losses or marks */
	__u8 above_rounds;    /* flagged: consecutive rounds at 7/8 T or more */
	__u16 loss_events;
	__u16 flags;
	__u8 below_rounds;    /* consecutive rounds at the ceiling under 7/8 T */
	__u8 lossy_rounds;    /* of those, rounds with losses or ECN marks */
	union {
		__u16 below_since_ms; /* when below_rounds began, ms (mod 2^16) */
		__u16 hold_frac;      /* E_HOLD: the rate G holds, in 1/65536 of T */
	};
	__u16 above_since_ms; /* when above_rounds began, ms (mod 2^16) */
	__u16 flagged_round;  /* rounds (mod 2^16) when last flagged */
	/* a valve's run under 7/8 T and a flagged flow's hold never overlap
	 * (no run is judged while flagged): they share their words */
	union {
		__u32 below_delivered; /* packets delivered when below_rounds began */
		__u32 hold_mark;       /* E_HOLD: delivered at the restart plus the
					* packets outstanding then (a count, not a
					* sequence number: tcpav_on_loss_event) */
	};
	__u32 e_wmax;         /* flagged: E's CUBIC W_max (the curve's plateau),
			       * packets */
	/* E's CUBIC epoch never runs during the hold (E grows as Reno
	 * there, tcpav_grow_elastic): they share a word */
	union {
		__u32 e_plateau_ms; /* flagged: when E's CUBIC curve reaches
				     * W_max (epoch start + K), ms (mod 2^32) */
		__u32 hold_rtt_us;  /* E_HOLD: the least srtt since the restart,
				     * the base of E's delay exit there */
	};
};

/* What one ACK tells the law; filled from tcp_sock and the rate sample. */
struct tcpav_ack {
	__u64 now_us;
	__u64 max_pacing_Bps; /* sk_max_pacing_rate; 0 = no limit */
	__u32 delivered;      /* tp->delivered, cumulative packets */
	__u32 prior_delivered;/* rs->prior_delivered */
	__u32 acked;          /* packets newly acked or sacked */
	__u32 losses;         /* packets newly marked lost */
	__u32 inflight;       /* packets in flight before this ACK */
	__u32 srtt_us;        /* smoothed RTT, microseconds (0 = no sample yet) */
	__u32 min_rtt_us;     /* the path's minimum RTT (tcp_min_rtt), 0 = none */
	__u32 rtt_us;         /* this ACK's RTT sample (rs->rtt_us), 0 = none */
	__u32 mss;            /* tp->mss_cache */
	__u32 pkt_bytes;      /* mean payload of a delivered packet
			       * (tcpav_pkt_bytes); 0 = the mss */
	__u32 app_limited;    /* the rate sample was application-limited */
	__u32 window_limited; /* the peer's receive window or our send buffer,
			       * not cwnd, limits the flow */
	__u32 in_recovery;    /* ca_state is CWR or Recovery (not Loss: after a
			       * timeout Reno slow-starts again) */
	__u32 undelivered;    /* packets sent and not yet delivered:
			       * packets_out - sacked_out (lost ones count:
			       * they are delivered once retransmitted) */
	__u32 cwnd;           /* the socket's cwnd before this ACK: what the law
			       * set last, or after a timeout the kernel's
			       * in-flight + 1; 0 = unknown (no rebuild) */
};

/* What the law decides. */
struct tcpav_out {
	__u64 pacing_Bps;     /* always valid: the rate to pace at, or with
			       * pacing_needed 0 the rate the kernel would set
			       * for Reno (TSO autosizing reads it) */
	__u32 cwnd;
	__u32 pacing_needed;  /* 0 when T = 0: no internal pacing, like Reno */
	__u32 round_ended;    /* a round trip ended on this ACK */
};

static inline __u64 tcpav_min_u64(__u64 a, __u64 b) { return a < b ? a : b; }
static inline __u64 tcpav_max_u64(__u64 a, __u64 b) { return a > b ? a : b; }
static inline __u32 tcpav_min_u32(__u32 a, __u32 b) { return a < b ? a : b; }
static inline __u32 tcpav_max_u32(__u32 a, __u32 b) { return a > b ? a : b; }

/* bytes * 1e6 / usec, 0 when usec is 0 */
static inline __u64 tcpav_rate_Bps(__u64 bytes, __u64 usec)
{
	if (usec == 0)
		return 0;
	return tcpav_min_u64(bytes, TCPAV_BYTES_MAX) * TCPAV_USEC_PER_SEC / usec;
}

/*
 * The mean payload of a delivered packet: the bytes cumulatively acked over
 * the packets delivered, less the packets SACKed above a hole (delivered
 * counts them, bytes_acked not yet) and less the SYN, which both count
 * once; at most the mss, the mss until a byte of data is acked. Rates and
 * windows in packets use it, not the mss: a sender that ends each write
 * with a short segment (a video frame with MSG_EOR: 22,388 B of a 60 fps
 * P-frame are 15 full segments and one of 668 B) delivers fewer bytes a
 * packet, and counted at the mss its rate read 3.5 % high: the flow held
 * 11.6 Mbit/s of T = 12 and the video's latency grew 30 ms a second.
 * Departure from BBR, which counts packets: T is a rate in bytes. Over the
 * flow's life, not per round (no room in the state for a byte count): a
 * sender's packetization is steady.
 */
static inline __u32 tcpav_pkt_bytes(__u64 bytes_acked, __u32 delivered, __u32 sacked_out, __u32 mss)
{
	__u64 b;

	if (bytes_acked <= 1 || delivered <= sacked_out + 1)
		return mss;
	b = (bytes_acked - 1) / (delivered - sacked_out - 1);
	return (__u32)tcpav_max_u64(tcpav_min_u64(b, mss), 1);
}

/* rate * usec / 1e6 / mss, in packets (mss 0 is treated as 1) */
static inline __u64 tcpav_rate_to_pkts(__u64 rate_Bps, __u64 usec, __u32 mss)
{
	__u64 bytes;

	/* Exact floor without 128-bit arithmetic (BPF has none): split the
	 * rate into bytes per microsecond and a remainder; saturate on the
	 * absurd (> 2 PB/s, or an RTT over an hour) instead of wrapping. */
	if (rate_Bps <= 0xffffffffull && usec <= 0xffffffffull) {
		bytes = rate_Bps * usec / TCPAV_USEC_PER_SEC;
	} else {
		__u64 q = rate_Bps / TCPAV_USEC_PER_SEC, r = rate_Bps % TCPAV_USEC_PER_SEC;

		if (q > 0x7fffffffull || usec > 0xffffffffull)
			return ~0ull;
		bytes = q * usec + r * usec / TCPAV_USEC_PER_SEC;
	}
	return bytes / (mss ? mss : 1u);
}

/* The bandwidth estimate: the larger of the two windows' maxima (counted
 * rounds only: not application- or window-limited, no timeout). */
static inline __u64 tcpav_bw_est(const struct tcpav_state *st)
{
	return tcpav_max_u64(st->bw_win_Bps[0], st->bw_win_Bps[1]);
}

/*
 * Rate G is sized for: g * T, but above T never more than 5/4 of the best
 * round the flow delivered lately (BBR probes at 5/4 of its bandwidth
 * estimate): pacing faster than the path has ever delivered does not add
 * delivery, only losses, ours first. A flow paced at 2.5 T = 37.5 Mbit/s
 * into a 30 Mbit/s link (a GSO-filled 151 KB queue) lost 64 % of its
 * packets, went from timeout to timeout and delivered 4 Mbit/s. None while
 * the valve holds the flow to E.
 * Once the path has lost packets of the flow (TCPAV_S_LOST), T itself is
 * allowed only up to twice the estimate, as BBR's window is twice its
 * estimate: on ns-3's 802.11g uplink (docs/design.md §6.1) a station gets a
 * fifth of the air whatever its window, and G at g*T (18.5 Mbit/s for a
 * share of 4.9) was a window 3-8 times what the path held; its losses
 * ended in timeouts that an AP queue full of every station's ACKs made
 * seconds long. Before the first loss T is allowed whole, as G's start
 * always was: there the estimate is a round or two old and would hold a
 * feasible flow to a slow start (AVR 0.949-0.963 at NRT 40 % downlink,
 * against 0.962-0.978 so).
 */
/* T * frac / 2^shift, split so that no 128-bit product is needed (BPF
 * has none): both terms fit 64 bits for frac < 2^16, shift <= 16 */
static inline __u64 tcpav_fraction_of(__u64 T, __u32 frac, __u32 shift)
{
	return (T >> shift) * frac + (((T & ((1ull << shift) - 1)) * frac) >> shift);
}

/* g * T (g in Q8) */
static inline __u64 tcpav_gain_Bps(const struct tcpav_state *st)
{
	return tcpav_fraction_of(st->target_Bps, st->gain, 8);
}

/* While flagged and holding (TCPAV_S_E_HOLD, see tcpav_restart_elastic):
 * the rate G holds, hold_frac of T. */
static inline __u64 tcpav_hold_Bps(const struct tcpav_state *st)
{
	return tcpav_fraction_of(st->target_Bps, st->hold_frac, 16);
}

static inline __u64 tcpav_guaranteed_Bps(const struct tcpav_state *st)
{
	__u64 g, T, bw = tcpav_bw_est(st);

	if (st->flags & TCPAV_S_INFEASIBLE)
		return (st->flags & TCPAV_S_E_HOLD) ? tcpav_hold_Bps(st) : 0;
	g = tcpav_gain_Bps(st);
	/* bw is at most 4.29 GB/s (the windows saturate): no overflow; before
	 * a loss a T above 5.4 GB/s (43 Gbit/s) is paced at T, the gain then
	 * unused; after one, at most 2 bw (8.6 GB/s) */
	T = st->target_Bps;
	if ((st->flags & TCPAV_S_LOST) && bw)
		T = tcpav_min_u64(T, 2 * bw);
	return tcpav_min_u64(g, tcpav_max_u64(T, bw + bw / 4));
}

/*
 * The pacing rate of a flow G dominates: 6/5 of g*T, as the kernel paces a
 * Reno window in avoidance at 1.2 cwnd/srtt. The window G = g*T*srtt sets
 * the rate (G/rtt = g*T while the rtt is srtt); pacing only spreads it. Paced
 * at exactly g*T a flow sends on its own clock, not when the queue frees
 * room: behind a drop-tail queue that ACK-clocked competitors keep full
 * (a GSO-filled 151 KB bfifo: 64 KB super-packets, two and a bit per queue)
 * it arrived when the queue was full and lost 40-60 % of its packets, the
 * CUBIC flows 1.5 %, and fell to AVR 0.26-0.56 in 4 runs of 7; paced at
 * 6/5 g*T it held T in 7 of 7.
 */
static inline __u64 tcpav_g_pacing_Bps(__u64 guaranteed_Bps)
{
	return guaranteed_Bps + guaranteed_Bps / 5;
}

/* The kernel's pacing rate for a Reno window (tcp_update_pacing_rate):
 * 2x cwnd/srtt with twice set (Reno's slow start; see tcpav_e_paced_2x),
 * 1.2x otherwise; max_Bps when there is no RTT. */
static inline __u64 tcpav_reno_pacing_Bps(__u32 cwnd, __u32 twice, __u32 mss, __u32 srtt_us,
					  __u64 max_Bps)
{
	__u64 r;

	if (srtt_us == 0)
		return max_Bps ? max_Bps : ~0ull;
	r = tcpav_rate_Bps((__u64)cwnd * mss, srtt_us);
	r = twice ? 2 * r : r + r / 5;
	return max_Bps ? tcpav_min_u64(r, max_Bps) : r;
}

/*
 * E's pacing at 2x cwnd/srtt rather than 1.2x: in slow start, as the kernel
 * paces Reno, and while flagged with G off (E alone, past the hold). The
 * flows a flagged flow then shares a queue with are kernel CUBIC flows,
 * not paced at all without fq: each window leaves as its ACKs come back.
 * Measured, three ways (2026-12-03/04, 100-packet pfifo):
 *  - 1.2x: in the 15 + 15 of EB 25 cell (several_tcpav_flows.sh) the
 *    flagged flow's lowest 2 s window fell to 0.75 Mbit/s in 1 run of 6
 *    (1.01-1.52 in the others; 0.94-1.87 for kernel CUBIC in the slot);
 *  - not paced: at T = 40 over 28.7 (infeasible_vs_controls.sh) its share
 *    fell under 0.7 EB/N = 5.02 Mbit/s in 2 runs of 3;
 *  - 2x (taken): lowest windows 1.26-1.71 in 8 runs of the 15 + 15 cell,
 *    the CUBIC flows keeping 53.0-56.0 % of their all-CUBIC control
 *    (53.8-56.7 % at 1.2x); at T = 40 5.63-8.22 Mbit/s in 6 runs, and
 *    behind 1,000 packets 5.20-7.34 in 6 (1.2x: 5.05-7.16 in 5).
 * Its losses were the same at every pacing (about 2.5 % of its packets,
 * CUBIC's 1.2 %): what pacing changes is how evenly a round's packets go.
 */
static inline __u32 tcpav_e_paced_2x(const struct tcpav_state *st, __u64 guaranteed_Bps)
{
	return st->e_wnd < st->e_ssthresh || (!guaranteed_Bps && (st->flags & TCPAV_S_INFEASIBLE));
}

/* While flagged the flow is held to its elastic part: E's rate (exported as
 * the valve's cap); 0 when the valve is off. */
static inline __u64 tcpav_valve_cap_Bps(const struct tcpav_state *st, __u32 srtt_us, __u32 mss)
{
	if (!(st->flags & TCPAV_S_INFEASIBLE) || srtt_us == 0)
		return 0;
	return tcpav_rate_Bps((__u64)st->e_wnd * mss, srtt_us);
}

/* The ramp starts over: no best round yet. */
static inline void tcpav_ramp_reset(struct tcpav_state *st)
{
	st->ramp_Bps = 0;
	st->ramp_gain = 0;
	st->ramp_stalls = 0;
}

static inline void tcpav_clear_valve(struct tcpav_state *st)
{
	if (st->flags & TCPAV_S_INFEASIBLE)
		st->e_cnt = 0; /* CUBIC's counter is in 1/32 packets, Reno's in packets */
	st->flags &= (__u16)~TCPAV_S_E_EPOCH;
	tcpav_ramp_reset(st);
	st->above_rounds = 0;
	st->flags &= (__u16)~(TCPAV_S_INFEASIBLE | TCPAV_S_PROBING | TCPAV_S_E_RESTART | TCPAV_S_E_HOLD);
	st->below_rounds = 0;
	st->lossy_rounds = 0;
}

/* T is judged infeasible (the valve, or a timeout in a retest): G is off
 * and the next retest is TCPAV_RETEST_ROUNDS rounds away. */
static inline void tcpav_flag_infeasible(struct tcpav_state *st)
{
	st->flags = (__u16)((st->flags & ~TCPAV_S_PROBING) | TCPAV_S_INFEASIBLE);
	st->flagged_round = (__u16)st->rounds;
}

static inline void tcpav_init(struct tcpav_state *st, __u32 init_cwnd, __u64 target_Bps,
			      __u64 now_us, __u32 delivered)
{
	__u8 *p = (__u8 *)st;
	__u32 i;

	for (i = 0; i < sizeof(*st); i++)
		p[i] = 0;
	st->target_Bps = target_Bps;
	st->e_wnd = tcpav_max_u32(init_cwnd, TCPAV_E_MIN);
	st->e_prior = st->e_wnd;
	st->e_credit = st->e_wnd;
	st->e_ssthresh = TCPAV_SSTHRESH_INF;
	st->e_prior_ssthresh = TCPAV_SSTHRESH_INF;
	st->gain = TCPAV_GAIN_UNIT;
	st->round_start_us = now_us;
	st->round_start_delivered = delivered;
}

/* A new target is a new request: the gain and the valve start over. */
static inline void tcpav_state_set_target(struct tcpav_state *st, __u64 target_Bps)
{
	if (target_Bps == st->target_Bps)
		return;
	st->target_Bps = target_Bps;
	st->gain = TCPAV_GAIN_UNIT;
	st->rate_Bps = 0;
	st->flags &= (__u16)~TCPAV_S_LOST; /* a new T starts as G always did */
	tcpav_clear_valve(st);
}

/* A loss event (entering recovery, a timeout, or ECN CWR): Reno's beta on E
 * only. DELIVERED is the flow's count of delivered packets now. Returns the
 * new ssthresh for the kernel. Not during a retest (PROBING): those losses
 * are G's probe of T, which a Reno at its share would not have caused; a
 * retest every 256 rounds, 9 s at a 100-packet queue, would otherwise
 * halve a flagged flow's E each time. Nor, while the flagged flow holds
 * its rate (TCPAV_S_E_HOLD), for a loss before the delivered count reaches
 * the mark taken at the restart: as many packets delivered since as were
 * sent and undelivered then (in the spirit of RFC 6582's one reduction per
 * window of data: that data is G's push, answered by the restart; a count,
 * not RFC 6582's sequence number, so a few lost packets at the tail of the
 * push, detected after as many new ones arrived, count as the flow's own).
 * The first loss after it is the flow's own: E takes over the held window,
 * halved. A loss left alone also leaves nothing to undo (e_prior = E): an
 * undo would otherwise give back the window of G's push. */
static inline __u32 tcpav_on_loss_event(struct tcpav_state *st, __u32 delivered)
{
	st->loss_events++;
	if ((st->flags & TCPAV_S_PROBING) ||
	    ((st->flags & TCPAV_S_E_HOLD) && (__s32)(delivered - st->hold_mark) < 0)) {
		st->e_prior = st->e_wnd;
		st->e_prior_ssthresh = st->e_ssthresh;
		return st->e_wnd;
	}
	if (st->flags & TCPAV_S_E_HOLD) {
		st->flags &= (__u16)~TCPAV_S_E_HOLD;
		st->e_wnd = tcpav_max_u32(st->e_wnd, st->g_wnd);
	}
	st->e_prior = st->e_wnd;
	st->e_prior_ssthresh = st->e_ssthresh;
	if (st->flags & TCPAV_S_INFEASIBLE) {
		/* Reno's cut with CUBIC's fast convergence (Linux's default): a
		 * W_max below the last one is lowered further, to (1 + b) / 2 */
		st->e_wmax = st->e_wnd < st->e_wmax
				     ? (__u32)((__u64)st->e_wnd * (1024u + TCPAV_CUBIC_BETA) / 2048u)
				     : st->e_wnd;
		st->e_wnd = tcpav_max_u32((__u32)((__u64)st->e_wnd * TCPAV_CUBIC_BETA / 1024u), 2u);
		st->flags &= (__u16)~TCPAV_S_E_EPOCH;
	} else {
		st->e_wnd = tcpav_max_u32(st->e_wnd >> 1, 2u);
	}
	st->e_ssthresh = st->e_wnd;
	st->e_cnt = 0;
	return st->e_wnd;
}

/* An ACK echoed a CE mark (CA_ACK_ECE): the round counts toward the valve
 * as a lossy one. E's cut comes through the kernel's CWR (ssthresh). */
static inline void tcpav_on_ece(struct tcpav_state *st)
{
	st->flags |= TCPAV_S_ROUND_ECE;
}

/* A retransmission timeout: E restarts from one packet, as Reno's cwnd; the
 * round is left out of the rate, the gain and the valve. */
static inline void tcpav_on_timeout(struct tcpav_state *st)
{
	st->flags |= TCPAV_S_LOST;
	st->e_wnd = TCPAV_E_MIN;
	st->e_cnt = 0;
	st->e_credit = tcpav_min_u32(st->e_credit, st->e_wnd);
	/* CUBIC forgets W_max after a timeout (bictcp_reset); a held rate
	 * ends, as a window would collapse */
	st->e_wmax = 0;
	st->flags &= (__u16)~(TCPAV_S_E_EPOCH | TCPAV_S_E_HOLD);
	/* A timeout in a retest is the path's answer: T is still more than
	 * it carries. The flow is flagged again at once, E alone from its
	 * timeout's one packet (no hold: the retest's push, not E, filled
	 * the queue). Judged only after the rebuild, the retest pushed g*T
	 * again into the queue that had just lost its window, and timed out
	 * again (docs/design.md §3.5 has the figures). */
	if (st->flags & TCPAV_S_PROBING)
		tcpav_flag_infeasible(st);
	/* the round spans a silence (an outage): its rate says nothing of
	 * what pacing at g*T delivers, so it must not ramp the gain; nor do
	 * the rounds of the rebuild that follows (tcpav_rebuild_cwnd) */
	st->flags |= TCPAV_S_ROUND_RTO | TCPAV_S_REBUILD;
}

/*
 * After a timeout the window comes back by slow start, from the kernel's
 * in-flight + 1 to max(G, E): a packet more per packet acknowledged, as
 * Reno's cwnd after an RTO, but up to G, not to a halved ssthresh. Why: a
 * timeout is the path saying that what was sent did not arrive. Restored
 * at once, G sent its whole window again as retransmissions into a queue
 * the competitors' ACK clocks keep full: behind a 151 KB bfifo fed 64 KB
 * super-packets (whole over veth, deep_buffers_veth_gso.sh) the burst was
 * lost again, the RTO backed off, and the flow sent nothing for 1-2 s and
 * was flagged infeasible at T = EB/2. Small first windows fit the room a
 * full queue has left. Where the queue has drained (a silent outage, all
 * flows timed out) the slow start's rounds are short and G is back within
 * a few of them. Its rounds are left out of rates, gain and valve, as the
 * timeout's own (TCPAV_S_ROUND_RTO), their time and delivery included
 * (tcpav_round_end). It ends where the kernel undoes the timeout
 * (tcpav_undo: every retransmission found spurious, by timestamps,
 * F-RTO or DSACKs; the kernel asks for it only where it saved ssthresh at the
 * timeout). As Reno in the Loss state it grows with delivery alone: an ACK
 * that acknowledges nothing leaves the window where it is, and losses
 * during the rebuild do not stop it (a second timeout starts it again
 * from in-flight + 1). In one outage.sh run of 12 the window sat at 8 for
 * 4 s after a second timeout, its retransmissions not getting through (not
 * diagnosed further).
 */
static inline __u32 tcpav_rebuild_cwnd(struct tcpav_state *st, const struct tcpav_ack *ack, __u32 cwnd)
{
	__u32 c = ack->cwnd + ack->acked;

	if (!(st->flags & TCPAV_S_REBUILD))
		return cwnd;
	if (ack->cwnd == 0 || c < ack->cwnd || c >= cwnd) {
		st->flags &= (__u16)~TCPAV_S_REBUILD;
		return cwnd;
	}
	st->flags |= TCPAV_S_ROUND_RTO;
	return tcpav_max_u32(c, 1u);
}

static inline __u32 tcpav_cwnd(const struct tcpav_state *st)
{
	return tcpav_max_u32(st->g_wnd, st->e_wnd);
}

/* The loss was spurious: give E back what the cut took. */
static inline __u32 tcpav_undo(struct tcpav_state *st)
{
	st->e_wnd = tcpav_max_u32(st->e_wnd, st->e_prior);
	st->e_ssthresh = tcpav_max_u32(st->e_ssthresh, st->e_prior_ssthresh);
	/* the curve restarts from E; a spurious timeout needs no rebuild */
	st->flags &= (__u16)~(TCPAV_S_E_EPOCH | TCPAV_S_REBUILD);
	return tcpav_cwnd(st);
}

/* Sending restarts after idle: the idle time is no part of a round. */
static inline void tcpav_on_restart(struct tcpav_state *st, __u64 now_us, __u32 delivered)
{
	st->round_start_us = now_us;
	st->round_start_delivered = delivered;
	st->flags &= (__u16)~TCPAV_S_E_EPOCH; /* nor of a CUBIC epoch */
}

/*
 * E's slow start ends on delay, in the spirit of HyStart++ (RFC 9406): once
 * the smoothed RTT is clamp(min_rtt / 8, 4 ms, 16 ms) above the path's
 * minimum (tcp_min_rtt), with E at TCPAV_E_HYSTART_LOW packets or more,
 * while E's ssthresh is unset: in the initial slow start and in the one
 * the hold starts (tcpav_restart_elastic: there above the least srtt since
 * the restart). After a loss E slow-starts to its ssthresh as Reno does,
 * as the RFC says. Not once flagged past the hold: there a timeout that
 * ended the hold cut nothing (its loss was G's push, before the mark) and
 * left the ssthresh unset, and the base, the path's minimum, is the
 * handshake's RTT; on ns-3's 802.11g uplink (docs/design.md §6.1) that is
 * 16 ms against an srtt of 110-240 ms, E left slow start at 16 packets
 * (a station's share is 60-90) and took 5 s to grow back as CUBIC. E
 * alone slow-starts to its own loss there, as Reno after a timeout. Departures: the path's minimum stands for the RFC's last round's minimum
 * and srtt for this round's (no room in the state for two more RTTs), and
 * E goes straight to avoidance (no conservative slow start), as Linux
 * CUBIC's HyStart does. Only with a target: T = 0 is Reno, which has none.
 * Why: G's push toward a T above the path fills a deep queue in its first
 * rounds; the CUBIC flows beside it leave slow start on that delay at a few
 * dozen packets, and an E that slow-started on to the first loss (640
 * packets behind a 1,000-packet queue) was the window the flow kept once
 * flagged, 18-20 Mbit/s of 28.7 for 10 s against 2-4 for each CUBIC flow.
 */
static inline int tcpav_e_delay_exit(const struct tcpav_state *st, const struct tcpav_ack *ack)
{
	/* volatile: LLVM would otherwise make the choice of two loads one
	 * load through a chosen pointer (the socket's state or the stack's
	 * ack), which the verifier refuses */
	__u32 base = (st->flags & TCPAV_S_E_HOLD) ? *(const volatile __u32 *)&st->hold_rtt_us : ack->min_rtt_us;
	__u32 thresh;

	if ((st->flags & (TCPAV_S_INFEASIBLE | TCPAV_S_E_HOLD)) == TCPAV_S_INFEASIBLE)
		return 0;
	if (st->target_Bps == 0 || st->e_ssthresh != TCPAV_SSTHRESH_INF || base == 0 ||
	    base == TCPAV_RTT_NONE || ack->srtt_us == 0 || st->e_wnd < TCPAV_E_HYSTART_LOW)
		return 0;
	thresh = tcpav_min_u32(tcpav_max_u32(base >> 3, TCPAV_HYSTART_MIN_US), TCPAV_HYSTART_MAX_US);
	return ack->srtt_us >= base + thresh;
}

/* floor(cbrt(x)) for x < 2^54, bit by bit (no floating point; a bounded
 * loop for the verifier) */
static inline __u32 tcpav_cbrt(__u64 x)
{
	__u32 r = 0;
	int b;

	for (b = 17; b >= 0; b--) {
		__u64 y = r | (1u << b);

		if (y * y * y <= x)
			r = (__u32)y;
	}
	return r;
}

/* E's CUBIC epoch begins, at the first ACK of avoidance after a cut: the
 * curve W(t) = W_max + C (t - K)^3 runs from E now to W_max at t = K; from
 * an E at or above W_max it starts at its plateau (K = 0), as Linux's
 * bictcp_update sets its origin. */
static inline void tcpav_cubic_epoch(struct tcpav_state *st, __u32 now_ms)
{
	__u32 k_ms = 0;

	if (st->e_wnd < st->e_wmax)
		k_ms = tcpav_cbrt((__u64)tcpav_min_u32(st->e_wmax - st->e_wnd, TCPAV_WND_MAX) *
				  TCPAV_CUBIC_MS3_PER_PKT);
	else
		st->e_wmax = st->e_wnd;
	st->e_plateau_ms = now_ms + k_ms;
	/* e_cnt carries over, as Linux's snd_cwnd_cnt: a restart after idle
	 * begins a new epoch, and at E = 2 a paced flow idles every round;
	 * zeroed here, the counter never reached the 64 (2 E in 1/32) that
	 * grow E by one, and a flagged flow sat at 2 packets (0.5 Mbit/s)
	 * for 10 s */
	st->flags |= TCPAV_S_E_EPOCH;
}

/* W(t + rtt), the window CUBIC aims at for the next round (RFC 9438 4.2),
 * clamped to [E, 3/2 E]. */
static inline __u32 tcpav_cubic_target(const struct tcpav_state *st, __u32 now_ms, __u32 rtt_ms)
{
	__s32 t = (__s32)(now_ms + rtt_ms - st->e_plateau_ms); /* t - K */
	__u64 a = t < 0 ? (__u64)(-(__s64)t) : (__u64)t;
	__u64 d, w;

	a = tcpav_min_u64(a, TCPAV_CUBIC_T_MAX_MS);
	d = a * a * a / TCPAV_CUBIC_MS3_PER_PKT; /* C |t - K|^3, packets */
	if (t < 0)
		w = d >= st->e_wmax ? 0 : st->e_wmax - d;
	else
		w = st->e_wmax + d;
	w = tcpav_min_u64(w, (__u64)st->e_wnd + st->e_wnd / 2);
	return (__u32)tcpav_max_u64(w, st->e_wnd);
}

/*
 * E's avoidance while flagged: CUBIC's (RFC 9438), the growth of the
 * kernel's default and of the flows an infeasible target meets, so that
 * the flagged flow gets what it would have got without tcp_av. Grown as
 * Reno, a flagged flow behind a 1,000-packet queue (rounds of 250-400 ms)
 * held 6-8.5 Mbit/s for 7 s and then fell to about 2 of 28.7 among 3
 * CUBIC flows (0.51-0.68 of EB/N over the run in 6 of 8 runs), their
 * windows growing by the cube of time, its own a packet a round. Not
 * while T may be served: there point 3's rule holds, E at most a Reno fed
 * the same losses. N acknowledged packets grow E by N (W(t + rtt) - E) / E,
 * as Linux does, and by at least the friendly rate, TCPAV_CUBIC_ALPHA_Q5:
 * 29/32 of a packet a round, a little under Reno's 3(1-b)/(1+b) = 1 at
 * b = 1/2. Why under: behind a 100-packet queue, where windows are a few
 * dozen packets and the friendly rate, not the curve, sets the growth,
 * a flagged flow at Reno's packet a round took 1.1 of a CUBIC flow's
 * share (as a kernel Reno there does): beside a tcp_av flow holding 15 of
 * 25 Mbit/s it got 3.16-3.89 of the 10 left to three, and the two CUBIC
 * flows 48.9-54.6 % of their all-CUBIC control (the bound is 50 %;
 * 2 runs of 6 failed). At 29/32 (6 runs, 2026-12-02): 3.00-3.14 Mbit/s,
 * the CUBIC flows 54.5-55.9 %; among 3 CUBIC flows over 28.7 Mbit/s
 * (T = 40) 5.51-6.28 behind 100 packets, 7.04-7.83 behind 1,000, of
 * EB/N = 7.17. At 26/32 the CUBIC flows got 54.9-57.4 %, but the flagged
 * flow 5.11 of a floor of 5.02 there; at 17/32 (CUBIC's own 0.53) 4.92,
 * under it. Departures: the cut is Reno's half,
 * not CUBIC's 0.7: the restart after the flag can land above the fair
 * share (59 packets, 18 Mbit/s of 28.7 behind a 100-packet queue), and cut
 * to 0.7 a loss the flow stayed above 1.5 EB/N for the run (12.5 Mbit/s;
 * 11.2 behind 1,000 packets); halved, it comes down as a Reno does. The
 * steady share of a cubic curve cut to b is proportional to
 * ((3 + b) / (1 - b))^(1/4) (RFC 9438's response function), so at b = 1/2
 * E gets 0.87 of a CUBIC flow's share where the curve, not the friendly
 * rate, sets the growth. The friendly rate stands for RFC 9438's W_est (no
 * room in the state); the rtt is the path's minimum as Linux's delay_min.
 */
static inline void tcpav_grow_cubic(struct tcpav_state *st, const struct tcpav_ack *ack, __u32 n)
{
	__u32 now_ms = (__u32)(ack->now_us / 1000u);
	__u32 rtt_us = ack->min_rtt_us ? ack->min_rtt_us : ack->srtt_us;
	__u32 e = tcpav_max_u32(st->e_wnd, 1u);
	__u64 per_round, acc;

	if (!(st->flags & TCPAV_S_E_EPOCH))
		tcpav_cubic_epoch(st, now_ms);
	/* in 1/32 packets a round: at most E/2 * 32 = 2^24 */
	per_round = (__u64)(tcpav_cubic_target(st, now_ms, rtt_us / 1000u) - st->e_wnd) * 32u;
	per_round = tcpav_max_u64(per_round, TCPAV_CUBIC_ALPHA_Q5);
	acc = st->e_cnt + (__u64)n * per_round;
	st->e_wnd = (__u32)tcpav_min_u64(e + acc / (32ull * e), TCPAV_WND_MAX);
	st->e_cnt = (__u32)(acc % (32ull * e));
}

/* Shadow Reno: grows only while a Reno window of E would be the limit, by at
 * most E acknowledged packets a round (see the header); CUBIC while
 * flagged (tcpav_grow_cubic). */
static inline void tcpav_grow_elastic(struct tcpav_state *st, const struct tcpav_ack *ack)
{
	__u32 n;

	if (ack->in_recovery || ack->acked == 0)
		return;
	if (st->e_wnd < st->e_ssthresh) {
		/* slow start, limited as the kernel limits it: cwnd < 2 * in flight */
		if (st->e_wnd >= 2 * ack->inflight)
			return;
		if (tcpav_e_delay_exit(st, ack)) {
			st->e_ssthresh = st->e_wnd;
			return;
		}
	} else if (ack->inflight + TCPAV_E_SLACK < st->e_wnd) {
		return;
	}
	n = tcpav_min_u32(ack->acked, st->e_credit);
	st->e_credit -= n;
	if (st->e_wnd < st->e_ssthresh) {
		st->e_wnd = tcpav_min_u32(st->e_wnd + n, st->e_ssthresh);
		/* with a target, slow start ends where E would carry g*T (not
		 * at the hold's floor: that G is no g*T) */
		if (st->target_Bps && st->g_wnd && st->e_wnd >= st->g_wnd && !(st->flags & TCPAV_S_E_HOLD))
			st->e_ssthresh = st->e_wnd;
		return;
	}
	/* as CUBIC once flagged, from the restart on (tcpav_restart_elastic
	 * sets the curve's plateau; until then W_max may be an earlier
	 * flag's) */
	if ((st->flags & (TCPAV_S_INFEASIBLE | TCPAV_S_E_RESTART | TCPAV_S_E_HOLD)) == TCPAV_S_INFEASIBLE) {
		tcpav_grow_cubic(st, ack, n);
		return;
	}
	st->e_cnt += n;
	if (st->e_cnt >= st->e_wnd) {
		st->e_cnt -= st->e_wnd;
		st->e_wnd++;
	}
	st->e_wnd = tcpav_min_u32(st->e_wnd, TCPAV_WND_MAX);
}

/* Raising g would not raise delivery: the ramp's full-pipe check is over
 * (raising g stopped raising delivery), g is at its maximum, or g*T is past
 * what G carries (tcpav_guaranteed_Bps: 5/4 of the bandwidth estimate;
 * after a loss, below T, twice it), where a raise changes the number shown
 * and nothing else. After a loss, with the path delivering under T/2, that
 * is so at g = 1: the gain is at its ceiling without a ramp, and a run of
 * the valve may flag from there. The last holds
 * between ramps too (a flow whose rounds cross 7/8 T restarts its ramp
 * every other round and never stalls three in a row), but only once the
 * estimate spans a bandwidth window: in start-up it trails the rate by a
 * doubling and binds every round. */
static inline int tcpav_gain_at_ceiling(const struct tcpav_state *st)
{
	return st->gain >= TCPAV_GAIN_MAX || st->ramp_stalls >= TCPAV_RAMP_STALLS ||
	       (st->rounds >= TCPAV_PROBE_INTERVAL && !(st->flags & TCPAV_S_INFEASIBLE) &&
		tcpav_guaranteed_Bps(st) < tcpav_gain_Bps(st));
}

/*
 * The gain's floor: 1 less the rate G's headroom adds where the window binds
 * (TCPAV_G_HEADROOM packets a round trip), and never under TCPAV_GAIN_MIN.
 * Below 1 the gain only takes that rate back: 4 packets of 1448 B at an
 * srtt of 40 ms are 9 % of 12.5 Mbit/s (AVR 1.04-1.07 among 3 CUBIC flows
 * in a 100-packet queue while g stopped at 1), at 330 ms (a 1,000-packet
 * queue) 1.4 % of 10 Mbit/s, where a lower g only deepened the dip when a
 * competitor's slow start filled the queue. 1 without an RTT sample.
 */
static inline __u32 tcpav_gain_floor(const struct tcpav_state *st, __u32 srtt_us, __u32 mss)
{
	__u64 T = st->target_Bps, head_Bps, cut;

	if (T == 0 || srtt_us == 0)
		return TCPAV_GAIN_UNIT;
	head_Bps = (__u64)TCPAV_G_HEADROOM * mss * TCPAV_USEC_PER_SEC / srtt_us;
	if (head_Bps >= T)
		return TCPAV_GAIN_MIN;
	cut = head_Bps * TCPAV_GAIN_UNIT / T; /* rounded down: the floor up */
	return (__u32)tcpav_max_u64(TCPAV_GAIN_UNIT - cut, TCPAV_GAIN_MIN);
}

/*
 * Once per counted round (not application- or window-limited, no timeout).
 * The gain follows both the smoothed rate and this round's: the round
 * shows a change a round before the average does, and decisions one round
 * late overshoot by a round's step (a deep queue makes rounds long).
 *  - Far below T (both rates) it ramps geometrically, while ramping pays:
 *    after TCPAV_RAMP_STALLS rounds without 25 % more delivery than the
 *    best round of the ramp (BBR's full-pipe check), g goes back to the
 *    gain of that round and holds. Pacing faster than the path takes only
 *    adds losses, ours first: a GSO-filled 151 KB queue lost half of a
 *    flow paced at 2.5 T and it delivered less than at T. After the
 *    ramp's first round a congested round (losses or marks) is a stall
 *    whatever it delivered, as BBRv3's start-up exits on loss: the round
 *    of a shared queue's first overflow delivers more by displacing the
 *    other flows' packets, and a restart of the check there flagged 3 of
 *    20 runs behind 1,000 packets late.
 *  - Below T: integral control on the relative error of the smoothed
 *    rate, TCPAV_GAIN_KI per 100 %, at most TCPAV_GAIN_STEP a round (a
 *    fixed step would make g drift up on noisy rounds).
 *  - At or above T (both): it decays, and at once to g*T/round when a
 *    round delivered more than 9/8 T. When the two disagree it holds.
 */
static inline void tcpav_adjust_gain(struct tcpav_state *st, __u64 round_Bps, __u32 floor, int congested)
{
	__u64 T = st->target_Bps;
	__u64 hi = tcpav_max_u64(st->rate_Bps, round_Bps);
	__u64 lo = tcpav_min_u64(st->rate_Bps, round_Bps);

	if (hi < T - T / 8) {
		__u32 step = tcpav_max_u32(st->gain >> TCPAV_GAIN_RAMP_SHIFT, 1);

		if (st->ramp_Bps == 0 || (!congested && round_Bps >= (__u64)st->ramp_Bps + st->ramp_Bps / 4)) {
			st->ramp_Bps = (__u32)tcpav_min_u64(round_Bps, 0xffffffffull);
			st->ramp_gain = (__u16)st->gain;
			st->ramp_stalls = 0;
		} else if (st->ramp_stalls < TCPAV_RAMP_STALLS) {
			if (++st->ramp_stalls == TCPAV_RAMP_STALLS) {
				st->gain = st->ramp_gain;
				return;
			}
		}
		/* and only while G can carry the raise: past what G carries
		 * (tcpav_guaranteed_Bps: 5/4 of the bandwidth estimate, after a
		 * loss below T twice it) g would change nothing but the number
		 * shown */
		if (st->ramp_stalls < TCPAV_RAMP_STALLS && tcpav_guaranteed_Bps(st) >= tcpav_gain_Bps(st))
			st->gain = tcpav_min_u32(st->gain + step, TCPAV_GAIN_MAX);
		return;
	}
	tcpav_ramp_reset(st);
	if (hi < T) {
		__u64 step = (T - st->rate_Bps) * TCPAV_GAIN_KI / T;

		step = tcpav_min_u64(tcpav_max_u64(step, 1), TCPAV_GAIN_STEP);
		st->gain = tcpav_min_u32(st->gain + (__u32)step, TCPAV_GAIN_MAX);
	} else if (lo >= T && st->gain > floor) {
		__u64 step = tcpav_min_u64(st->rate_Bps - T, T) * TCPAV_GAIN_KI / T;
		/* the fast decay only down to 1; below, the excess alone
		 * moves g, as the shortfall does below T: g settles where the
		 * rate meets T, not under it */
		__u32 decay = st->gain > TCPAV_GAIN_UNIT ? (st->gain - TCPAV_GAIN_UNIT) >> TCPAV_GAIN_DECAY_SHIFT : 0;
		__u32 g;

		step = tcpav_max_u64(tcpav_max_u64(step, decay), 1);
		g = st->gain - (__u32)tcpav_min_u64(step, st->gain - floor);
		if (round_Bps > T + T / 8) {
			/* round_Bps > T > 0, so fit < g <= MAX; the shift keeps
			 * g * T inside 64 bits for any T */
			__u64 t = T > (1ull << 48) ? T >> 16 : T;
			__u64 r = T > (1ull << 48) ? round_Bps >> 16 : round_Bps;
			__u32 fit = (__u32)(st->gain * t / r);

			g = tcpav_min_u32(g, tcpav_max_u32(fit, floor));
		}
		st->gain = g;
	}
}

/* The valve's runs (under 7/8 T to flag, at 7/8 T to clear) are stamped in
 * ms mod 2^16: a run lasts seconds, far under the 65 s of a wrap. */
static inline __u16 tcpav_ms16(__u64 us)
{
	return (__u16)(us / 1000);
}

/* a run stamped SINCE_MS has lasted TCPAV_VALVE_MIN_MS by NOW_US */
static inline int tcpav_valve_time_held(__u16 since_ms, __u64 now_us)
{
	return (__u16)(tcpav_ms16(now_us) - since_ms) >= TCPAV_VALVE_MIN_MS;
}

/* The mean rate of the valve's run under 7/8 T: what the flow delivered
 * since the run began over the run's time (the smoothed rate until a ms has
 * passed). */
static inline __u64 tcpav_run_Bps(const struct tcpav_state *st, __u32 delivered, __u32 mss, __u64 now_us)
{
	__u16 ms = (__u16)(tcpav_ms16(now_us) - st->below_since_ms);

	if (ms == 0)
		return st->rate_Bps;
	return (__u64)(__u32)(delivered - st->below_delivered) * mss * 1000u / ms;
}

/*
 * A run under 7/8 T, once begun, is judged by its mean: it goes on while
 * the mean stays under 7/8 T and the smoothed rate under T. Not ended by a
 * round whose smoothed rate reads 7/8 T: two flows wanting 15 of 25 Mbit/s
 * each hovered at 0.75-0.90 T for 10 s, the smoothed rate crossing 7/8 T
 * every few rounds, and neither was flagged while the two CUBIC flows
 * beside them starved. A flow back at T (after a competitor's slow start)
 * ends it at once.
 */
static inline int tcpav_below_run_holds(const struct tcpav_state *st, __u32 delivered, __u32 mss, __u64 now_us)
{
	__u64 T = st->target_Bps;

	return st->below_rounds && !(st->flags & TCPAV_S_INFEASIBLE) && st->rate_Bps < T &&
	       tcpav_run_Bps(st, delivered, mss, now_us) < T - T / 8;
}

/* At the flag: the rate the restart will hold (tcpav_restart_elastic),
 * 3/8 of what the flow delivered, as a fraction of T. Taken at the flag,
 * not a round later: the round between, with G off, delivers G's queue as
 * it drains (the smoothed rate rose from 20.5 to 23 Mbit/s in it). */
static inline void tcpav_hold_at_flag(struct tcpav_state *st)
{
	__u64 T = st->target_Bps, bw = tcpav_bw_est(st);
	__u64 r = bw ? tcpav_min_u64(st->rate_Bps, bw) : st->rate_Bps;
	__u64 hold = r / 4 + r / 8;

	if (hold >= T) /* T > 0: no flag without a target */
		st->hold_frac = 0xffffu;
	else if (T < (1ull << 47))
		st->hold_frac = (__u16)((hold << 16) / T);
	else
		st->hold_frac = (__u16)(hold / (T >> 16));
}

#define TCPAV_RUN_KIND_LOSSY 0x1u   /* tcpav_run_round: the round lost packets or saw marks */
#define TCPAV_RUN_KIND_CEILING 0x2u /* tcpav_run_round: the gain is at its ceiling */

/* A round of the valve's run under 7/8 T (opening it where none is open):
 * counted, lossy and at the gain's ceiling as KIND says (TCPAV_RUN_*: one
 * word, as BPF passes at most 5 arguments); the flag once the run has seen
 * the ceiling for TCPAV_VALVE_ROUNDS rounds, one of them lossy, and
 * TCPAV_VALVE_MIN_MS under 7/8 T on its mean. */
static inline void tcpav_run_round(struct tcpav_state *st, __u32 kind, __u32 delivered, __u32 mss, __u64 now_us)
{
	__u64 T = st->target_Bps;

	if (st->below_rounds == 0) { /* from this round's start */
		st->below_since_ms = tcpav_ms16(st->round_start_us);
		st->below_delivered = st->round_start_delivered;
		st->flags &= (__u16)~TCPAV_S_RUN_CEILING;
	}
	if (st->below_rounds < 0xff)
		st->below_rounds++;
	if ((kind & TCPAV_RUN_KIND_LOSSY) && st->lossy_rounds < 0xff)
		st->lossy_rounds++;
	if (kind & TCPAV_RUN_KIND_CEILING)
		st->flags |= TCPAV_S_RUN_CEILING;
	/* a retest (PROBING) was judged once already: rounds suffice */
	if ((st->flags & TCPAV_S_RUN_CEILING) && st->below_rounds >= TCPAV_VALVE_ROUNDS && st->lossy_rounds &&
	    tcpav_run_Bps(st, delivered, mss, now_us) < T - T / 8 &&
	    ((st->flags & TCPAV_S_PROBING) || tcpav_valve_time_held(st->below_since_ms, now_us))) {
		tcpav_flag_infeasible(st);
		tcpav_hold_at_flag(st); /* the run's words are free now */
	}
}

/* Once per round: smoothed rate, bandwidth windows, gain, valve. DELIVERED
 * is the flow's count of delivered packets at the round's end. */
static inline void tcpav_round_end(struct tcpav_state *st, __u64 round_Bps, __u64 now_us, __u32 gain_floor,
				   __u32 delivered, __u32 mss)
{
	__u64 T = st->target_Bps;
	__u16 f = st->flags;
	int app_limited = (f & TCPAV_S_ROUND_APP_LIMITED) != 0;
	int window_limited = (f & TCPAV_S_ROUND_WINDOW_LIMITED) != 0;
	int timeout = (f & TCPAV_S_ROUND_RTO) != 0;
	int congested = (f & (TCPAV_S_ROUND_LOSS | TCPAV_S_ROUND_ECE)) != 0;

	st->rounds++;
	if (f & TCPAV_S_ROUND_WINDOW_LIMITED)
		f |= TCPAV_S_WINDOW_LIMITED;
	else
		f &= (__u16)~TCPAV_S_WINDOW_LIMITED;
	f &= (__u16)~(TCPAV_S_ROUND_APP_LIMITED | TCPAV_S_ROUND_WINDOW_LIMITED | TCPAV_S_ROUND_ECE |
		      TCPAV_S_ROUND_RTO | TCPAV_S_ROUND_LOSS | TCPAV_S_APP_LIMITED);
	if (app_limited)
		f |= TCPAV_S_APP_LIMITED;
	st->e_credit = st->e_wnd;

	st->flags = f;

	/* a timeout's round (or the rebuild's) never: one ended by the burst
	 * of SACKs a retransmission releases reads far above the link */
	if (!timeout && (!(app_limited || window_limited) || round_Bps > st->rate_Bps))
		st->rate_Bps = st->rate_Bps ? (3 * st->rate_Bps + round_Bps) / 4 : round_Bps;
	/* not from limited rounds: the first round (an initial window acked
	 * within a millisecond) would read as 70 Mbit/s */
	if (!(app_limited || window_limited || timeout))
		st->bw_win_Bps[0] = (__u32)tcpav_min_u64(tcpav_max_u64(st->bw_win_Bps[0], round_Bps), 0xffffffffull);
	if (st->rounds % TCPAV_PROBE_INTERVAL == 0) {
		st->bw_win_Bps[1] = st->bw_win_Bps[0];
		st->bw_win_Bps[0] = 0;
	}
	/* Retest: T is tried again TCPAV_RETEST_ROUNDS rounds after the flag
	 * (not at a multiple of them: a flow flagged at round 240 was
	 * retested at 256), from g = 1 (a retest at the gain it had, 2.5 T,
	 * overflowed an ECN-marked queue that T alone would not); the gain
	 * ramps as usual and the valve judges anew within TCPAV_VALVE_ROUNDS
	 * rounds at the gain's ceiling. */
	if ((st->flags & TCPAV_S_INFEASIBLE) &&
	    (__u16)((__u16)st->rounds - st->flagged_round) >= TCPAV_RETEST_ROUNDS) {
		tcpav_clear_valve(st);
		st->gain = TCPAV_GAIN_UNIT;
		st->flags |= TCPAV_S_PROBING;
	}
	/* A timeout's round and the rebuild's that delivered T/8 or more while
	 * the smoothed rate is under 7/8 T are rounds of the valve's run, lossy
	 * and at the ceiling, their time on its clock (opening a run where none
	 * is open): a push that times out is the path's answer to T, as a
	 * timeout in a retest is. On ns-3's 802.11g uplink (T twice a station's
	 * DCF share, each station its own queue) G's push timed out again and
	 * again, each rebuild going back to G: 2-15 timeouts in 20 s, flagged
	 * at 6-21 s in 14 seeds of 20 at NRT 50 % and never in 2; counted so,
	 * 1-7, flagged at 1.3-5.4 s in all 20 (docs/design.md §6.1 has the
	 * AVRs). The others, a silence (an outage: under T/8), are left out of
	 * the runs as they are out of its rounds: their time and what they
	 * delivered, too (the run's clock and count move past them). Else a run
	 * open before a silent timeout took the silence and the slow start as
	 * time under 7/8 T and flagged a feasible flow right after the rebuild.
	 * A flagged flow's run at 7/8 T (to clear) ends at one: it asks for
	 * 7/8 T in every round. */
	if (timeout && T && !(st->flags & TCPAV_S_INFEASIBLE) && st->rate_Bps < T - T / 8 && round_Bps >= T / 8) {
		tcpav_run_round(st, TCPAV_RUN_KIND_LOSSY | TCPAV_RUN_KIND_CEILING, delivered, mss, now_us);
		return;
	}
	if (timeout) {
		__u16 ms = (__u16)(tcpav_ms16(now_us) - tcpav_ms16(st->round_start_us));

		if (st->below_rounds && !(st->flags & TCPAV_S_INFEASIBLE)) {
			st->below_since_ms = (__u16)(st->below_since_ms + ms);
			st->below_delivered += delivered - st->round_start_delivered;
		}
		st->above_rounds = 0;
	}
	if (T == 0 || app_limited || timeout)
		return;
	/* A window-limited round (rwnd, sndbuf) says nothing of what a larger
	 * g would deliver: the gain holds. The valve counts it only when it
	 * lost packets (or saw marks) with the gain at its ceiling: then the
	 * window does not bind, the path does (a send buffer deeper than the
	 * path's queue overflows that queue; a receive window that binds
	 * keeps the queue short). */
	if (!window_limited)
		tcpav_adjust_gain(st, round_Bps, gain_floor, congested);
	else if (!congested)
		return;

	if (st->rate_Bps >= T - T / 8 && !tcpav_below_run_holds(st, delivered, mss, now_us)) {
		/* E alone (or a retest) reaches 7/8 T, smoothed and in every
		 * round of a run of at least TCPAV_VALVE_ROUNDS rounds and
		 * TCPAV_VALVE_MIN_MS (the time the valve takes to flag): T is
		 * feasible again. Not the smoothed rate alone: a short round
		 * ended by ACKs of whole GSO super-packets lifts it above a
		 * link that cannot carry 7/8 T (an ECN-marked flow with T above
		 * the link was cleared so). Not 3 rounds alone either: 3 rounds
		 * of 4 ms each read above a 25 Mbit/s link for T = 30M. Rounds
		 * tile time, so over the run's second the rate is the link's,
		 * off by at most one super-packet (64 KB: 0.5 Mbit/s). */
		if (!(st->flags & (TCPAV_S_INFEASIBLE | TCPAV_S_PROBING))) {
			;
		} else if (round_Bps < T - T / 8) {
			st->above_rounds = 0;
		} else {
			if (st->above_rounds == 0) /* from this round's start */
				st->above_since_ms = tcpav_ms16(st->round_start_us);
			if (st->above_rounds < 0xff)
				st->above_rounds++;
			if (st->above_rounds >= TCPAV_VALVE_ROUNDS && tcpav_valve_time_held(st->above_since_ms, now_us))
				tcpav_clear_valve(st);
		}
		st->below_rounds = 0;
		st->lossy_rounds = 0;
		return;
	}
	st->above_rounds = 0;
	/* The run begins under 7/8 T at the ramp's first round without 25 %
	 * more delivery (or at the gain's ceiling), and goes on (ceiling or
	 * not: the ramp restarts whenever a round reads 7/8 T) while
	 * tcpav_below_run_holds; it can flag once the gain has been at its
	 * ceiling in it. From the first stall, not the third: the full-pipe
	 * check's rounds count toward the valve's, which behind a 1,000-packet
	 * queue (rounds of 300-400 ms) flagged a T above the path at 2.5 s
	 * instead of 2 s, while the CUBIC flows beside it got 2-3 Mbit/s. */
	/* a run that has not seen the ceiling ends where the ramp pays again:
	 * only the stalls that lead to the ceiling count (a start-up whose
	 * ramp stalled once, then paid for a second, was otherwise flagged at
	 * its ceiling at once, its second of grace spent) */
	if (st->below_rounds && !(st->flags & TCPAV_S_RUN_CEILING) && st->ramp_stalls == 0 &&
	    !tcpav_gain_at_ceiling(st)) {
		st->below_rounds = 0;
		st->lossy_rounds = 0;
	}
	if ((st->below_rounds || st->ramp_stalls || tcpav_gain_at_ceiling(st)) &&
	    !(st->flags & TCPAV_S_INFEASIBLE)) {
		__u32 kind = congested ? TCPAV_RUN_KIND_LOSSY : 0;

		if (tcpav_gain_at_ceiling(st))
			kind |= TCPAV_RUN_KIND_CEILING;
		tcpav_run_round(st, kind, delivered, mss, now_us);
	}
}

/*
 * The first round after the flag, once the flow's own queue has drained:
 * G's push cut E with losses a Reno at its share would not have seen, so
 * the flow takes over as after a loss, at 3/8 of the rate it delivered at
 * the flag (smoothed, and no more than the bandwidth estimate where there
 * is one: a round ended by a timeout's burst of SACKed packets reads far
 * above the link; a start-up limited by the receive window counts no
 * round for it). That rate is held, not sized as a window: from here G
 * holds it (tcpav_guaranteed_Bps), its window following srtt as G's does
 * but without G's headroom, a floor under E. E slow-starts again beneath
 * it (the G rule of tcpav_grow_elastic aside: this G is no g*T), to the
 * srtt clamp(base / 8, 4 ms, 16 ms) above the least srtt since the
 * restart (base; tcpav_e_delay_exit), and then grows as Reno's avoidance
 * (a packet a round, not CUBIC's curve: under the floor E is not the
 * window in use), until E's own first loss event hands E the larger
 * window, halved (the mark: the delivered count once as many packets as
 * were outstanding at the restart are delivered, see tcpav_on_loss_event), and E's CUBIC curve
 * starts there. Why 3/8, not Reno's 1/2: the rate at the flag is G's
 * push, 20-27 Mbit/s of 28.7 among 3 CUBIC flows, and half of it held for
 * the 10-12 s until the competitors overflow a 1,000-packet queue gave
 * the flagged flow 7.1-10.9 Mbit/s (1.0-1.5 EB/N, over it once in 13
 * runs) and left a CUBIC flow under half its control's lowest window in 2;
 * 3/8 gave 5.6-8.1 in 15 runs, beside CUBIC's own 5.5-9.2 in the slot
 * (2026-12-02). Not ended by E passing the floor: where the queue has
 * drained (an srtt of 4 ms) a floor of 10 Mbit/s is 3 packets, and a hold
 * that ended there left E alone at 5 packets as the competitors refilled
 * the queue (2.6 and 3.2 Mbit/s of EB/N = 7.2). A window sized once
 * cannot tell a drained queue from one that is not, nor what the
 * competitors will refill: sized for one ACK's RTT (until 2026-12-02),
 * behind a 1,000-packet queue a drained 30-40 ms gave 10-20 packets, 0.6
 * Mbit/s once the CUBIC flows refilled the queue to 400 ms (the flagged
 * flow got 3.9-4.1 Mbit/s of EB/N = 7.2 in 2 runs of 6), and a sample of
 * 220-360 ms (not drained) 177-387 packets, 16-24 Mbit/s once srtt fell
 * to 30-190 ms; sized for the srtt of the flag (G's queue) E kept the
 * queue 400 ms deep and the CUBIC flows got 0.4-1.6 Mbit/s for 10 s; a
 * hold window sized for the mean of the drained RTT and srtt gave 4.9-9.8.
 * Grown as CUBIC beneath the hold E passed it at 12 Mbit/s 7 s later; a
 * held rate grown by a packet per srtt a round took 14-24 Mbit/s.
 * Why the slow start again: where no competitor shares the flow's queue
 * (ns-3's 802.11g uplink without WMM: each station its own queue, every
 * station's ACKs in the AP's one queue, so a flow's rate follows its
 * window) the flow's own loss comes only once its window passes its share,
 * and from the hold's 20 packets a packet a round (rounds of 150 ms) took
 * 15 s to get there: AVR 0.26 over seeds 1-5, LinuxReno 0.51 in the slot.
 * Slow-started, E finds that window in a few rounds: 0.45 (0.36-0.60);
 * over seeds 1-20 a median of 0.47 against LinuxReno's 0.50 and a mean of
 * 0.48 against 0.47 (docs/design.md §6.1).
 * Where the competitors share the queue they refill it as G's push drains,
 * the srtt rises over its least since the restart and E leaves slow start
 * after a few dozen packets at most (4-16 ms of queue). The base is not
 * the path's minimum: on that uplink the srtt of the hold is 130 ms above
 * it, and the exit would come at once.
 * Departure: no Reno holds a rate; the hold lasts until the queue the
 * competitors fill overflows.
 */
static inline void tcpav_restart_elastic(struct tcpav_state *st, const struct tcpav_ack *ack)
{
	st->flags &= (__u16)~(TCPAV_S_E_RESTART | TCPAV_S_E_EPOCH);
	st->e_cnt = 0;
	st->e_wmax = st->e_wnd;
	if (st->target_Bps == 0 || st->hold_frac == 0)
		return;
	st->hold_mark = ack->delivered + ack->undelivered;
	st->flags |= TCPAV_S_E_HOLD;
	st->e_ssthresh = TCPAV_SSTHRESH_INF;
	st->hold_rtt_us = ack->srtt_us ? ack->srtt_us : TCPAV_RTT_NONE;
}

static inline void tcpav_on_ack(struct tcpav_state *st, const struct tcpav_ack *ack,
				struct tcpav_out *out)
{
	/* bytes a packet: what rates and windows count (tcpav_pkt_bytes);
	 * the mss only where T = 0 reports the kernel's own Reno rate */
	__u32 mss = ack->pkt_bytes ? ack->pkt_bytes : ack->mss ? ack->mss : 1u;
	__u16 was_infeasible = st->flags & TCPAV_S_INFEASIBLE;
	__u64 guaranteed_Bps;
	__u32 cwnd;

	out->round_ended = 0;
	if (ack->app_limited)
		st->flags |= TCPAV_S_ROUND_APP_LIMITED;
	if (ack->window_limited)
		st->flags |= TCPAV_S_ROUND_WINDOW_LIMITED;
	if (ack->losses)
		st->flags |= TCPAV_S_ROUND_LOSS | TCPAV_S_LOST;
	if (st->flags & TCPAV_S_REBUILD) /* the rebuild's rounds, as the timeout's */
		st->flags |= TCPAV_S_ROUND_RTO;

	/* Round trip accounting, as BBR counts rounds. */
	if ((__s32)(ack->prior_delivered - st->round_start_delivered) >= 0 &&
	    ack->now_us - st->round_start_us >= TCPAV_ROUND_MIN_US) {
		__u64 bytes = (__u64)(ack->delivered - st->round_start_delivered) * mss;

		tcpav_round_end(st, tcpav_rate_Bps(bytes, ack->now_us - st->round_start_us), ack->now_us,
				tcpav_gain_floor(st, ack->srtt_us, mss), ack->delivered, mss);
		st->round_start_us = ack->now_us;
		st->round_start_delivered = ack->delivered;
		out->round_ended = 1;
		if (!was_infeasible && (st->flags & TCPAV_S_INFEASIBLE))
			st->flags |= TCPAV_S_E_RESTART;
		else if ((st->flags & (TCPAV_S_INFEASIBLE | TCPAV_S_E_RESTART)) ==
			 (TCPAV_S_INFEASIBLE | TCPAV_S_E_RESTART))
			tcpav_restart_elastic(st, ack);
	}

	/* the hold's delay base follows the srtt down, as a path minimum */
	if ((st->flags & TCPAV_S_E_HOLD) && ack->srtt_us && ack->srtt_us < st->hold_rtt_us)
		st->hold_rtt_us = ack->srtt_us;
	tcpav_grow_elastic(st, ack);

	guaranteed_Bps = tcpav_guaranteed_Bps(st);
	if (st->target_Bps == 0 || guaranteed_Bps == 0) {
		st->g_wnd = 0;
	} else {
		__u32 head = (st->flags & TCPAV_S_E_HOLD) ? 0 : TCPAV_G_HEADROOM;
		__u64 g = tcpav_rate_to_pkts(guaranteed_Bps, ack->srtt_us, mss) + head;

		st->g_wnd = (__u32)tcpav_min_u64(g, TCPAV_WND_MAX);
		if (g < head) /* the saturated sum wrapped */
			st->g_wnd = TCPAV_WND_MAX;
	}

	cwnd = tcpav_rebuild_cwnd(st, ack, tcpav_cwnd(st));
	out->cwnd = cwnd;
	if (st->target_Bps == 0) {
		st->flags &= (__u16)~TCPAV_S_G_DOMINATES;
		out->pacing_needed = 0;
		out->pacing_Bps = tcpav_reno_pacing_Bps(cwnd, st->e_wnd < st->e_ssthresh, ack->mss ? ack->mss : 1u,
							ack->srtt_us, ack->max_pacing_Bps);
		return;
	}
	out->pacing_needed = 1;
	if (guaranteed_Bps && (st->g_wnd >= st->e_wnd || ack->srtt_us == 0)) {
		/* without an RTT sample E's pacing is unknown: pace for G */
		if (st->g_wnd >= st->e_wnd)
			st->flags |= TCPAV_S_G_DOMINATES;
		else
			st->flags &= (__u16)~TCPAV_S_G_DOMINATES;
		out->pacing_Bps = tcpav_g_pacing_Bps(guaranteed_Bps);
	} else {
		st->flags &= (__u16)~TCPAV_S_G_DOMINATES;
		out->pacing_Bps = tcpav_reno_pacing_Bps(cwnd, tcpav_e_paced_2x(st, guaranteed_Bps), mss,
							ack->srtt_us, 0);
	}
	if (ack->max_pacing_Bps)
		out->pacing_Bps = tcpav_min_u64(out->pacing_Bps, ack->max_pacing_Bps);
}

#endif /* TCPAV_CORE_H */
