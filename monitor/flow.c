// SPDX-License-Identifier: GPL-2.0
/*
 * flow.c - the flow table and the per-segment TCP analysis (see flow.h).
 *
 * tcp_sequence_analysis() reproduces the rules of Wireshark's
 * tcp_analyze_sequence_number() as tshark 4.0 applies them with default
 * preferences, so that avmon's counters can be checked against tshark on
 * the same frames (tests/captures/MANIFEST.md). Like tshark it works on
 * raw 32-bit sequence numbers compared modulo 2^32, and uses 0 for "not
 * seen yet" in nextseq, lastack and maxseqtobeacked. The comments give the
 * rule; where we differ from tshark on purpose it is said.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flow.h"

#define FAST_RETRANSMISSION_WINDOW_US 20000 /* after the last dup ACK (tshark) */
#define OUT_OF_ORDER_DEFAULT_US 3000        /* when the handshake RTT is unknown (tshark) */
#define TCP_UNACKED_INITIAL 8
#define TCP_EV_RARE                                                                                \
	(TCP_EV_FAST_RETRANSMISSION | TCP_EV_SPURIOUS_RETRANSMISSION | TCP_EV_OUT_OF_ORDER |       \
	 TCP_EV_LOST_SEGMENT | TCP_EV_ACKED_UNSEEN | TCP_EV_ZERO_WINDOW | TCP_EV_WINDOW_UPDATE |   \
	 TCP_EV_KEEP_ALIVE)

static inline bool seq_lt(uint32_t a, uint32_t b) { return (int32_t)(a - b) < 0; }
static inline bool seq_le(uint32_t a, uint32_t b) { return (int32_t)(a - b) <= 0; }
static inline bool seq_gt(uint32_t a, uint32_t b) { return (int32_t)(a - b) > 0; }

/*
 * The time limits of the sequence analysis (out-of-order, fast
 * retransmission) compare elapsed times to the microsecond: a double of
 * epoch seconds holds a pcap timestamp only to about 0.2 us, and rounding
 * the difference of two gives back the exact figure of a microsecond
 * capture, so a segment exactly at a limit falls where tshark puts it.
 * (tshark compares nanoseconds: of a nanosecond capture, times less than
 * a microsecond apart may fall the other way.)
 */
static inline int64_t elapsed_us(double from, double to)
{
	double us = (to - from) * 1e6;

	return (int64_t)(us >= 0.0 ? us + 0.5 : us - 0.5); /* llround, without the call */
}

/* tshark compares these times as unsigned nanoseconds: an elapsed time
 * below zero (a capture that steps back) is never within a positive
 * limit, and a negative limit (a handshake RTT below zero) holds nearly
 * everything. */
static inline bool elapsed_within(int64_t elapsed, int64_t limit)
{
	return (uint64_t)elapsed < (uint64_t)limit;
}

/* ---- sample statistics ---- */

static double sample_bucket_lower(unsigned b)
{
	return SAMPLE_MIN_SECONDS * pow(10.0, (double)b / SAMPLE_BUCKETS_PER_DECADE);
}

/* The bucket whose [lower, next lower) holds the sample: a binary search
 * over the boundaries, computed once (a log10 per sample cost more than
 * the rest of the ACK clock). */
static unsigned sample_bucket(double seconds)
{
	static double lower[SAMPLE_BUCKETS];
	unsigned lo = 0, hi = SAMPLE_BUCKETS - 1;

	if (!(seconds > SAMPLE_MIN_SECONDS))
		return 0;
	if (lower[1] == 0.0)
		for (unsigned b = 0; b < SAMPLE_BUCKETS; b++)
			lower[b] = sample_bucket_lower(b);
	while (lo < hi) { /* the last bucket with lower[b] <= seconds */
		unsigned mid = (lo + hi + 1) / 2;
		if (lower[mid] <= seconds)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

void sample_stats_add(struct sample_stats *s, double seconds)
{
	if (isnan(seconds))
		return;
	if (seconds < 0.0)
		seconds = 0.0; /* capture timestamps that step back */
	if (s->count == 0 || seconds < s->min)
		s->min = seconds;
	if (s->count == 0 || seconds > s->max)
		s->max = seconds;
	s->count++;
	s->sum += seconds;
	uint32_t *bucket = &s->bucket[sample_bucket(seconds)];
	if (*bucket < UINT32_MAX)
		(*bucket)++;
}

double sample_stats_mean(const struct sample_stats *s)
{
	return s->count ? s->sum / (double)s->count : NAN;
}

/* The q-quantile (nearest rank) read from the histogram: geometric
 * interpolation inside the bucket that holds the rank, clamped to the
 * observed range (so it is exact for a single sample or a single value). */
double sample_stats_quantile(const struct sample_stats *s, double q)
{
	uint64_t total = 0, before = 0;
	double rank, v;

	for (unsigned b = 0; b < SAMPLE_BUCKETS; b++)
		total += s->bucket[b];
	if (s->count == 0 || total == 0)
		return NAN;
	rank = ceil(q * (double)total);
	if (rank < 1.0)
		rank = 1.0;
	for (unsigned b = 0; b < SAMPLE_BUCKETS; b++) {
		if ((double)(before + s->bucket[b]) >= rank) {
			double lo = sample_bucket_lower(b), hi = sample_bucket_lower(b + 1);
			double frac = (rank - (double)before - 0.5) / (double)s->bucket[b];

			v = lo * pow(hi / lo, frac);
			if (v < s->min)
				v = s->min;
			if (v > s->max)
				v = s->max;
			return v;
		}
		before += s->bucket[b];
	}
	return s->max;
}

/* ---- the table ---- */

int flow_table_init(struct flow_table *t, size_t max_flows)
{
	memset(t, 0, sizeof(*t));
	return lru_table_init(&t->lru, max_flows, offsetof(struct flow, key), sizeof(struct flow_key));
}

static void tcp_dir_state_reset(struct tcp_dir_state *s)
{
	struct tcp_unacked *keep = s->unacked;
	uint16_t cap = s->cap_unacked;

	memset(s, 0, sizeof(*s));
	s->window = UINT32_MAX;
	s->unacked = keep;
	s->cap_unacked = cap;
}

static void flow_free(struct flow *fl)
{
	if (fl->tcp) {
		free(fl->tcp->dir[0].unacked);
		free(fl->tcp->dir[1].unacked);
		free(fl->tcp);
	}
	free(fl);
}

void flow_table_destroy(struct flow_table *t)
{
	struct lru_link *e;

	while ((e = lru_table_pop_oldest(&t->lru)))
		flow_free((struct flow *)e);
	lru_table_destroy(&t->lru);
}

/* 16-byte addresses, as two words: inline, on every packet */
static bool addr_equal(const uint8_t *a, const uint8_t *b)
{
	uint64_t a0, a1, b0, b1;

	memcpy(&a0, a, 8);
	memcpy(&a1, a + 8, 8);
	memcpy(&b0, b, 8);
	memcpy(&b1, b + 8, 8);
	return a0 == b0 && a1 == b1;
}

/* Orders endpoint (a, ap) before (b, bp): address bytes, then port. */
static int endpoint_cmp(const uint8_t *a, uint16_t ap, const uint8_t *b, uint16_t bp)
{
	/* memcmp's order, as two big-endian words: inline, on every packet */
	for (int i = 0; i < 16; i += 8) {
		uint64_t x, y;

		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		x = be64toh(x);
		y = be64toh(y);
		if (x != y)
			return x < y ? -1 : 1;
	}
	return (ap > bp) - (ap < bp);
}

/* Whether p belongs to fl, either way: the same test as equal keys (an
 * unordered pair of endpoints, protocol and family), without building one. */
static bool flow_matches(const struct flow *fl, const struct ip_packet *p)
{
	if (fl->proto != p->proto || fl->family != p->family)
		return false;
	if (fl->port[FLOW_A_TO_B] == p->sport && fl->port[FLOW_B_TO_A] == p->dport &&
	    addr_equal(fl->addr[FLOW_A_TO_B], p->src) && addr_equal(fl->addr[FLOW_B_TO_A], p->dst))
		return true;
	return fl->port[FLOW_A_TO_B] == p->dport && fl->port[FLOW_B_TO_A] == p->sport &&
	       addr_equal(fl->addr[FLOW_A_TO_B], p->dst) && addr_equal(fl->addr[FLOW_B_TO_A], p->src);
}

struct flow *flow_table_lookup(struct flow_table *t, const struct ip_packet *p, double ts, bool *created)
{
	/* ip_decode leaves the bytes past the family's address zero (packet.h) */
	const uint8_t *src = p->src, *dst = p->dst;
	struct flow_key key;
	struct lru_link *e;
	struct flow *fl;
	uint64_t hash;

	*created = false;
	if (p->proto != 6 && p->proto != 17)
		return NULL;
	if (p->proto == 6 && !p->is_tcp)
		return NULL; /* TCP header not decoded */
	/* consecutive packets of one flow, or of two interleaved ones (data
	 * and ACKs of a bulk transfer), skip the key and the hash */
	e = t->lru.newest;
	for (int recent = 0; e && recent < 2; recent++, e = e->older) {
		if (flow_matches((struct flow *)e, p)) {
			lru_table_touch(&t->lru, e);
			return (struct flow *)e;
		}
	}
	memset(&key, 0, sizeof(key));
	key.family = p->family;
	key.proto = p->proto;
	if (endpoint_cmp(src, p->sport, dst, p->dport) <= 0) {
		memcpy(key.addr[0], src, 16);
		memcpy(key.addr[1], dst, 16);
		key.port[0] = p->sport;
		key.port[1] = p->dport;
	} else {
		memcpy(key.addr[0], dst, 16);
		memcpy(key.addr[1], src, 16);
		key.port[0] = p->dport;
		key.port[1] = p->sport;
	}
	hash = lru_hash(&key, sizeof(key));
	e = lru_table_find(&t->lru, &key, hash);
	if (e)
		return (struct flow *)e;

	fl = calloc(1, sizeof(*fl));
	if (!fl)
		return NULL;
	if (p->proto == 6) {
		fl->tcp = calloc(1, sizeof(*fl->tcp));
		if (!fl->tcp) {
			free(fl);
			return NULL;
		}
		tcp_dir_state_reset(&fl->tcp->dir[0]);
		tcp_dir_state_reset(&fl->tcp->dir[1]);
		fl->connections = 1;
	}
	if (lru_table_full(&t->lru)) {
		flow_free((struct flow *)lru_table_pop_oldest(&t->lru));
		t->evictions++;
	}
	fl->key = key;
	fl->id = t->next_id++;
	fl->family = p->family;
	fl->proto = p->proto;
	memcpy(fl->addr[FLOW_A_TO_B], src, 16);
	memcpy(fl->addr[FLOW_B_TO_A], dst, 16);
	fl->port[FLOW_A_TO_B] = p->sport;
	fl->port[FLOW_B_TO_A] = p->dport;
	fl->first_ts = fl->last_ts = ts;
	fl->target = -1;
	lru_table_insert(&t->lru, &fl->link, hash);
	*created = true;
	return fl;
}

void flow_endpoint_format(const struct flow *fl, enum flow_dir end, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (fl->family == 6) {
		inet_ntop(AF_INET6, fl->addr[end], a, sizeof(a));
		snprintf(buf, len, "[%s]:%u", a, fl->port[end]);
	} else {
		inet_ntop(AF_INET, fl->addr[end], a, sizeof(a));
		snprintf(buf, len, "%s:%u", a, fl->port[end]);
	}
}

uint32_t flow_udp_payload(const struct ip_packet *p)
{
	/* minimal IP header + UDP header: IP options and IPv6 extension
	 * headers are not visible in struct ip_packet */
	uint32_t headers = (p->family == 6 ? 40u : 20u) + 8u;

	if (p->payload_len)
		return p->payload_len;
	return p->ip_len > headers ? p->ip_len - headers : 0;
}

void flow_interval_reset(struct flow *fl)
{
	memset(&fl->interval, 0, sizeof(fl->interval));
}

/* ---- TCP ---- */

static void tcp_unacked_add(struct tcp_dir_state *s, uint32_t seq, uint32_t nextseq, double ts)
{
	if (s->n_unacked == s->cap_unacked) {
		/* tshark stops recording at 10000 segments in flight; we at
		 * TCP_MAX_UNACKED, growing the buffer on demand */
		uint16_t cap = s->cap_unacked ? (uint16_t)(s->cap_unacked * 2) : TCP_UNACKED_INITIAL;
		struct tcp_unacked *u;

		if (s->cap_unacked >= TCP_MAX_UNACKED)
			return;
		if (cap > TCP_MAX_UNACKED)
			cap = TCP_MAX_UNACKED;
		u = realloc(s->unacked, cap * sizeof(*u));
		if (!u)
			return;
		s->unacked = u;
		s->cap_unacked = cap;
	}
	s->unacked[s->n_unacked++] = (struct tcp_unacked){.seq = seq, .nextseq = nextseq, .ts = ts};
}

/*
 * tshark's ack_rtt: an ACK whose number equals the end of a segment still
 * waiting in the other direction times that segment (the oldest such
 * segment when it was sent more than once). Segments the ACK covers are
 * dropped, a segment it covers in part is trimmed. Returns the RTT, or a
 * negative value when the ACK times nothing (tshark shows no ack_rtt of 0).
 */
static double tcp_ack_segments(struct tcp_dir_state *rev, uint32_t ack, double ts)
{
	double rtt = -1.0;
	uint16_t kept = 0;

	for (uint16_t i = 0; i < rev->n_unacked; i++) {
		struct tcp_unacked u = rev->unacked[i];

		if (ack == u.nextseq) {
			if (rtt < 0.0)
				rtt = ts - u.ts;
			continue;
		}
		if (seq_gt(ack, u.seq) && seq_le(ack, u.nextseq))
			u.seq = ack;
		if (seq_gt(u.nextseq, ack))
			rev->unacked[kept++] = u;
	}
	rev->n_unacked = kept;
	return rtt > 0.0 ? rtt : -1.0;
}

/*
 * One segment through tshark 4.0's sequence analysis. fwd is the state of
 * the segment's direction, rev of the other one. Returns TCP_EV_* bits.
 */
static unsigned tcp_sequence_analysis(struct tcp_flow *tf, enum flow_dir d, const struct ip_packet *p,
				      double ts, double *ack_rtt)
{
	struct tcp_dir_state *fwd = &tf->dir[d], *rev = &tf->dir[!d];
	const uint32_t seq = p->seq, ack = p->ack, seglen = p->payload_len, window = p->window;
	const uint8_t flags = p->tcp_flags;
	const bool syn_fin_rst = flags & (TCP_SYN | TCP_FIN | TCP_RST);
	const bool syn_fin = flags & (TCP_SYN | TCP_FIN);
	uint32_t nextseq;
	unsigned ev = 0;

	if (!fwd->base_seq_set) {
		fwd->base_seq = (flags & TCP_SYN) ? seq : seq - 1;
		fwd->base_seq_set = true;
	}
	if (!rev->base_seq_set && (flags & TCP_ACK)) {
		rev->base_seq = ack - 1;
		rev->base_seq_set = true;
	}

	/* zero window probe: 1 byte at the next sequence number into a zero window */
	if (seglen == 1 && seq == fwd->nextseq && rev->window == 0) {
		ev |= TCP_EV_ZERO_WINDOW_PROBE;
		goto finished_fwd;
	}
	if (window == 0 && !syn_fin_rst)
		ev |= TCP_EV_ZERO_WINDOW;
	/* a gap before this segment: the capture missed something */
	if (fwd->nextseq && seq_gt(seq, fwd->nextseq) && !(flags & TCP_RST))
		ev |= TCP_EV_LOST_SEGMENT;
	/* keep-alive: 0 or 1 byte starting one byte before the next sequence number */
	if (seglen <= 1 && seq == fwd->nextseq - 1 && !syn_fin_rst)
		ev |= TCP_EV_KEEP_ALIVE;
	/* window update: same seq and ack as before, new non-zero window */
	if (seglen == 0 && window && window != fwd->window && seq == fwd->nextseq && ack == fwd->lastack &&
	    !syn_fin_rst)
		ev |= TCP_EV_WINDOW_UPDATE;
	/* keep-alive ACK: repeats the last ACK, answering a keep-alive */
	if (seglen == 0 && window && window == fwd->window && seq == fwd->nextseq && ack == fwd->lastack &&
	    (rev->last_events & TCP_EV_KEEP_ALIVE) && !syn_fin_rst) {
		ev |= TCP_EV_KEEP_ALIVE_ACK;
		goto finished_fwd;
	}
	/* zero window probe ACK: repeats the last ACK and the zero window */
	if (seglen == 0 && window == 0 && window == fwd->window && seq == fwd->nextseq &&
	    ack == fwd->lastack && (rev->last_events & TCP_EV_ZERO_WINDOW_PROBE) && !syn_fin_rst) {
		ev |= TCP_EV_ZERO_WINDOW_PROBE_ACK;
		goto finished_fwd;
	}
	/* duplicate ACK: no payload, same seq, ack and non-zero window as the
	 * previous segment this way */
	if (seglen == 0 && window && window == fwd->window && seq == fwd->nextseq && ack == fwd->lastack &&
	    !syn_fin_rst) {
		fwd->dupacknum++;
		ev |= TCP_EV_DUP_ACK;
	}

finished_fwd:
	if (ack != fwd->lastack)
		fwd->dupacknum = 0;

	/* ACKed unseen segment: the ACK covers data beyond the contiguous
	 * data seen the other way */
	if (rev->maxseqtobeacked && seq_gt(ack, rev->maxseqtobeacked) && (flags & TCP_ACK)) {
		ev |= TCP_EV_ACKED_UNSEEN;
		rev->maxseqtobeacked = rev->nextseq; /* flag it once */
	}

	/* a segment with payload (or SYN/FIN) that does not advance the
	 * sequence number: spurious, fast, out-of-order or plain retransmission */
	if (seglen > 0 || syn_fin) {
		bool seq_not_advanced = fwd->nextseq && seq_lt(seq, fwd->nextseq);

		if (ev & TCP_EV_KEEP_ALIVE)
			goto finished_retransmission;
		/* more than one byte starting one before nextseq: new data after
		 * a zero window probe, not a retransmission */
		if (seglen > 1 && fwd->nextseq - 1 == seq)
			seq_not_advanced = false;
		/* spurious: everything in it was already ACKed */
		if (seglen > 0 && rev->lastack && seq_le(seq + seglen, rev->lastack)) {
			ev |= TCP_EV_SPURIOUS_RETRANSMISSION | TCP_EV_RETRANSMISSION;
			goto finished_retransmission;
		}
		if (!seq_not_advanced)
			goto finished_retransmission;
		/* fast: at the ACK number of >= 2 dup ACKs, within 20 ms of the
		 * last segment the other way */
		if (rev->dupacknum >= 2 && rev->lastack == seq &&
		    elapsed_within(elapsed_us(rev->lastack_ts, ts), FAST_RETRANSMISSION_WINDOW_US)) {
			ev |= TCP_EV_FAST_RETRANSMISSION | TCP_EV_RETRANSMISSION;
			goto finished_retransmission;
		}
		/* out-of-order: less than the handshake RTT (3 ms if unknown)
		 * after the segment that set nextseq, and not ending where
		 * nextseq is: a hole filled soon after the highest segment */
		if (elapsed_within(elapsed_us(fwd->nextseq_ts, ts),
				   tf->first_rtt_known ? tf->first_rtt_us : OUT_OF_ORDER_DEFAULT_US) &&
		    fwd->nextseq != seq + seglen + (syn_fin ? 1u : 0u)) {
			ev |= TCP_EV_OUT_OF_ORDER;
			goto finished_retransmission;
		}
		ev |= TCP_EV_RETRANSMISSION;
	}
finished_retransmission:

	nextseq = seq + seglen;
	if (seglen || syn_fin) {
		if (syn_fin)
			nextseq += 1; /* SYN and FIN take one sequence number */
		tcp_unacked_add(fwd, seq, nextseq, ts);
	}
	/* a zero window probe does not advance nextseq */
	if ((seq_gt(nextseq, fwd->nextseq) || !fwd->nextseq) && !(ev & TCP_EV_ZERO_WINDOW_PROBE)) {
		fwd->nextseq = nextseq;
		fwd->nextseq_ts = ts;
	}
	if ((seq == fwd->maxseqtobeacked || !fwd->maxseqtobeacked) && !(ev & TCP_EV_ZERO_WINDOW_PROBE))
		fwd->maxseqtobeacked = fwd->nextseq;
	fwd->window = window;
	fwd->lastack = ack;
	fwd->lastack_ts = ts;
	fwd->last_events = ev;

	/* tshark does this for every segment, ACK flag or not */
	*ack_rtt = tcp_ack_segments(rev, ack, ts);
	if (*ack_rtt > 0.0)
		ev |= TCP_EV_ACK_RTT;
	return ev;
}

/* Unrolls a 32-bit sequence number next to the highest one seen. */
static int64_t seq_unroll(const struct tcp_dir_state *s, uint32_t seq)
{
	if (!s->span_set)
		return (int64_t)seq;
	return s->span_hi + (int32_t)(seq - (uint32_t)s->span_hi);
}

/* Goodput: growth of the sequence space covered by data segments. */
static uint64_t tcp_goodput_delta(struct tcp_dir_state *s, uint32_t seq, uint32_t len)
{
	int64_t lo, hi, before;

	if (len == 0)
		return 0;
	lo = seq_unroll(s, seq);
	hi = lo + len;
	if (!s->span_set) {
		s->span_set = true;
		s->span_lo = lo;
		s->span_hi = hi;
		return len;
	}
	before = s->span_hi - s->span_lo;
	if (lo < s->span_lo)
		s->span_lo = lo;
	if (hi > s->span_hi)
		s->span_hi = hi;
	return (uint64_t)(s->span_hi - s->span_lo - before);
}

/*
 * The timestamp RTT: a data segment's TSval is remembered; the first
 * segment the other way that echoes it in TSecr closes the sample. Echoes
 * of pure ACKs' TSvals are not RTTs (they wait for the sender's data).
 * With a 1 ms TS clock a busy sender changes TSval every millisecond, more
 * than the ring holds over a WAN RTT: new TSvals are remembered at most
 * every 1/16 of the data->ACK RTT seen so far, so the ring spans about two
 * RTTs (the first echo of a sampled TSval is still exact).
 */
static void tcp_timestamps(struct tcp_flow *tf, enum flow_dir d, const struct ip_packet *p, double ts,
			   double *ts_rtt)
{
	struct tcp_dir_state *fwd = &tf->dir[d], *rev = &tf->dir[!d];
	const struct sample_stats *rtt = &tf->samples[!d].ack_rtt;

	*ts_rtt = -1.0;
	if (!p->has_ts)
		return;
	if ((p->tcp_flags & TCP_ACK) && p->ts_ecr != 0) {
		for (unsigned i = 0; i < rev->tsval_count; i++) {
			unsigned slot = (rev->tsval_next + TCP_TSVAL_RING - 1 - i) % TCP_TSVAL_RING;
			struct tcp_tsval *t = &rev->tsvals[slot];

			if (t->tsval != p->ts_ecr) {
				/* TSvals only grow (RFC 7323): past an older one,
				 * newest first, nothing older can match */
				if (seq_lt(t->tsval, p->ts_ecr))
					break;
				continue;
			}
			if (!t->echoed) {
				t->echoed = true;
				*ts_rtt = ts - t->ts;
			}
			break;
		}
	}
	if (p->payload_len > 0 || (p->tcp_flags & (TCP_SYN | TCP_FIN))) {
		unsigned last = (fwd->tsval_next + TCP_TSVAL_RING - 1) % TCP_TSVAL_RING;

		/* store a new TSval at most every 1/16 of the RTT (the spacing
		 * is worked out only when a new TSval could be stored) */
		if (fwd->tsval_count == 0 ||
		    (fwd->tsvals[last].tsval != p->ts_val &&
		     ts - fwd->tsvals[last].ts >=
			     (rtt->count ? sample_stats_mean(rtt) / (TCP_TSVAL_RING / 2) : 0.0))) {
			fwd->tsvals[fwd->tsval_next] = (struct tcp_tsval){.tsval = p->ts_val, .ts = ts};
			fwd->tsval_next = (uint8_t)((fwd->tsval_next + 1) % TCP_TSVAL_RING);
			if (fwd->tsval_count < TCP_TSVAL_RING)
				fwd->tsval_count++;
		}
	}
}

/* RFC 2883: the first SACK block reports a duplicate if it lies below the
 * cumulative ACK or inside the second block (Linux tcp_check_dsack). */
static bool tcp_dsack(const struct ip_packet *p)
{
	if (p->n_sack == 0)
		return false;
	if ((p->tcp_flags & TCP_ACK) && seq_lt(p->sack_left[0], p->ack))
		return true;
	return p->n_sack > 1 && !seq_lt(p->sack_left[0], p->sack_left[1]) &&
	       seq_le(p->sack_right[0], p->sack_right[1]);
}

static void tcp_ack_clock(struct tcp_dir_state *s, struct tcp_dir_samples *sm, struct flow_dir_stats *st, double ts)
{
	if (s->pure_ack_seen) {
		double gap = ts - s->last_pure_ack_ts;

		sample_stats_add(&sm->ack_iat, gap);
		if (gap < ACK_TRAIN_GAP_S) {
			st->acks_in_trains++;
			if (++s->train_len == 2)
				st->ack_trains++;
			if (s->train_len > st->ack_train_max)
				st->ack_train_max = s->train_len;
		} else {
			s->train_len = 1;
		}
	} else {
		s->train_len = 1;
	}
	s->pure_ack_seen = true;
	s->last_pure_ack_ts = ts;
}

/* A SYN (without ACK) whose sequence number is not the ISN of this
 * direction starts a new connection on the same 5-tuple (tshark starts a
 * new tcp.stream): the sequence state starts over, the counters go on. */
static bool tcp_new_connection(struct flow *fl, enum flow_dir d, const struct ip_packet *p)
{
	struct tcp_dir_state *fwd = &fl->tcp->dir[d];

	if ((p->tcp_flags & (TCP_SYN | TCP_ACK)) != TCP_SYN || !fwd->base_seq_set || p->seq == fwd->base_seq)
		return false;
	tcp_dir_state_reset(&fl->tcp->dir[0]);
	tcp_dir_state_reset(&fl->tcp->dir[1]);
	fl->tcp->syn_ts = 0.0;
	fl->tcp->first_rtt_us = 0;
	fl->tcp->first_rtt_known = false;
	fl->connections++;
	return true;
}

static void tcp_segment(struct flow *fl, enum flow_dir d, const struct ip_packet *p, double ts,
			struct flow_packet_result *r)
{
	struct tcp_flow *tf = fl->tcp;
	struct tcp_dir_state *fwd = &tf->dir[d];
	struct tcp_dir_samples *sm = &tf->samples[d];
	struct flow_dir_stats *st = &fl->dir[d];
	const uint8_t flags = p->tcp_flags;
	double ack_rtt, ts_rtt;
	unsigned ev = 0;

	if (tcp_new_connection(fl, d, p))
		ev |= TCP_EV_NEW_CONNECTION;

	ev |= tcp_sequence_analysis(tf, d, p, ts, &ack_rtt);

	/* tshark's handshake RTT, the out-of-order threshold, taken after the
	 * segment's own analysis as tshark does: from the most recent SYN
	 * without ACK (not the SYN/ACK: at the client that would be the
	 * client's own reaction time) to the first segment with ACK and
	 * without SYN, whichever way. A SYN time of 0 and an RTT of exactly 0
	 * are "unknown", as in tshark, but an RTT that rounds to 0 us is known;
	 * once it is known, later SYNs change nothing. */
	if (!tf->first_rtt_known) {
		if ((flags & (TCP_SYN | TCP_ACK)) == TCP_SYN) {
			tf->syn_ts = ts;
		} else if ((flags & (TCP_SYN | TCP_ACK)) == TCP_ACK && tf->syn_ts != 0.0 && ts != tf->syn_ts) {
			tf->first_rtt_us = elapsed_us(tf->syn_ts, ts);
			tf->first_rtt_known = true;
		}
	}
	tcp_timestamps(tf, d, p, ts, &ts_rtt);

	if (ev & TCP_EV_ACK_RTT)
		sample_stats_add(&sm->ack_rtt, ack_rtt);
	if (ts_rtt >= 0.0) {
		sample_stats_add(&sm->ts_rtt, ts_rtt);
		ev |= TCP_EV_TS_RTT;
	}
	if (ev & TCP_EV_RETRANSMISSION) {
		st->retransmissions++;
		fl->interval.retransmissions[d]++;
	}
	if (ev & TCP_EV_RARE) { /* most segments carry none of these */
		st->fast_retransmissions += !!(ev & TCP_EV_FAST_RETRANSMISSION);
		st->spurious_retransmissions += !!(ev & TCP_EV_SPURIOUS_RETRANSMISSION);
		st->out_of_order += !!(ev & TCP_EV_OUT_OF_ORDER);
		st->lost_segments += !!(ev & TCP_EV_LOST_SEGMENT);
		st->acked_unseen += !!(ev & TCP_EV_ACKED_UNSEEN);
		st->zero_windows += !!(ev & TCP_EV_ZERO_WINDOW);
		st->window_updates += !!(ev & TCP_EV_WINDOW_UPDATE);
		st->keep_alives += !!(ev & TCP_EV_KEEP_ALIVE);
	}
	if (ev & TCP_EV_DUP_ACK) {
		st->dup_acks++;
		fl->interval.dup_acks[d]++;
	}

	if (p->n_sack) {
		st->sack_frames++;
		st->sack_blocks += p->n_sack;
		if (tcp_dsack(p)) {
			st->dsack_blocks++;
			ev |= TCP_EV_DSACK;
		}
	}

	/* ACK advances, as the oracle's ack_adv_n/bytes: the first ACK sets
	 * the mark, later ones count when they move it forward */
	if (flags & TCP_ACK) {
		if (!fwd->ack_seen) {
			fwd->ack_seen = true;
			fwd->ack_high = p->ack;
		} else if (seq_gt(p->ack, fwd->ack_high)) {
			st->acks_advancing++;
			st->bytes_acked += p->ack - fwd->ack_high;
			fwd->ack_high = p->ack;
		}
	}

	if ((flags & TCP_ACK) && p->payload_len == 0 && !(flags & (TCP_SYN | TCP_FIN | TCP_RST))) {
		ev |= TCP_EV_PURE_ACK;
		st->pure_acks++;
		tcp_ack_clock(fwd, sm, st, ts);
	}

	r->payload = p->payload_len;
	r->goodput_delta = tcp_goodput_delta(fwd, p->seq, p->payload_len);
	r->events = ev;
}

void flow_packet(struct flow *fl, const struct ip_packet *p, double ts, uint32_t l2_bytes,
		 struct flow_packet_result *r)
{
	enum flow_dir d = FLOW_B_TO_A;
	struct flow_dir_stats *st;

	if (p->sport == fl->port[FLOW_A_TO_B] && addr_equal(p->src, fl->addr[FLOW_A_TO_B]))
		d = FLOW_A_TO_B;
	st = &fl->dir[d];
	memset(r, 0, sizeof(*r));
	r->dir = d;

	if (fl->tcp) {
		tcp_segment(fl, d, p, ts, r);
	} else {
		r->payload = flow_udp_payload(p);
		r->goodput_delta = r->payload;
	}
	if (ts > fl->last_ts)
		fl->last_ts = ts;
	st->packets++;
	st->l2_bytes += l2_bytes;
	st->payload_bytes += r->payload;
	st->goodput_bytes += r->goodput_delta;
	fl->interval.packets[d]++;
	fl->interval.payload_bytes[d] += r->payload;
	fl->interval.goodput_bytes[d] += r->goodput_delta;
}
