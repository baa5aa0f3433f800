/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flow.h - TCP and UDP flows keyed by 5-tuple, both directions in one entry
 * (docs/design.md §4.2), and the per-segment TCP analysis.
 *
 * Direction A->B is the direction of the first packet seen of the flow
 * (tshark's tcp_streams convention). Per direction a flow counts packets,
 * bytes, payload and goodput; for TCP also what tshark 4.0's TCP analysis
 * flags (retransmission, fast and spurious retransmission, out-of-order,
 * previous segment lost, duplicate ACK, zero window, ...), pure ACKs, ACK
 * advances, SACK and D-SACK blocks, ACK inter-arrival and trains, and RTT
 * samples at the capture point (data->ACK as tshark's ack_rtt, and TCP
 * timestamp echoes).
 *
 * Attribution follows tshark's per-stream table: a counter belongs to the
 * direction of the segment that carries it, so an RTT sample or a duplicate
 * ACK counts in the direction the ACK travels.
 *
 * Memory per flow is bounded: RTT and inter-arrival quantiles come from
 * fixed log-bucketed histograms, and the list of segments waiting for an
 * ACK holds at most TCP_MAX_UNACKED per direction.
 */
#ifndef AVMON_FLOW_H
#define AVMON_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lru.h"
#include "packet.h"

enum flow_dir { FLOW_A_TO_B = 0, FLOW_B_TO_A = 1 };

/* What the TCP analysis says about one segment (a bit set). The first group
 * are tshark 4.0's tcp.analysis.* flags; a fast or spurious retransmission
 * also carries TCP_EV_RETRANSMISSION, as tcp.analysis.retransmission does. */
enum tcp_event {
	TCP_EV_RETRANSMISSION = 1u << 0,
	TCP_EV_FAST_RETRANSMISSION = 1u << 1,
	TCP_EV_SPURIOUS_RETRANSMISSION = 1u << 2,
	TCP_EV_OUT_OF_ORDER = 1u << 3,
	TCP_EV_LOST_SEGMENT = 1u << 4,     /* tcp.analysis.lost_segment */
	TCP_EV_ACKED_UNSEEN = 1u << 5,     /* tcp.analysis.ack_lost_segment */
	TCP_EV_DUP_ACK = 1u << 6,
	TCP_EV_ZERO_WINDOW = 1u << 7,
	TCP_EV_ZERO_WINDOW_PROBE = 1u << 8,
	TCP_EV_ZERO_WINDOW_PROBE_ACK = 1u << 9,
	TCP_EV_KEEP_ALIVE = 1u << 10,
	TCP_EV_KEEP_ALIVE_ACK = 1u << 11,
	TCP_EV_WINDOW_UPDATE = 1u << 12,
	TCP_EV_ACK_RTT = 1u << 13,         /* carries a tcp.analysis.ack_rtt sample */
	/* ours */
	TCP_EV_PURE_ACK = 1u << 14,        /* ACK, no payload, no SYN/FIN/RST */
	TCP_EV_TS_RTT = 1u << 15,          /* carries a timestamp-echo RTT sample */
	TCP_EV_DSACK = 1u << 16,           /* first SACK block is a D-SACK */
	TCP_EV_NEW_CONNECTION = 1u << 17,  /* SYN reusing the 5-tuple of an older connection */
};

/*
 * Count, sum, min, max and a log-bucketed histogram of positive durations
 * (seconds): 8 buckets per decade from 1 us to 1000 s, so a quantile read
 * from it is within about 15 % (one bucket, interpolated geometrically and
 * clamped to the observed min/max); count, min, max and mean are exact.
 */
#define SAMPLE_BUCKETS_PER_DECADE 8
#define SAMPLE_DECADES 9
#define SAMPLE_MIN_SECONDS 1e-6
#define SAMPLE_BUCKETS (SAMPLE_BUCKETS_PER_DECADE * SAMPLE_DECADES)

struct sample_stats {
	uint64_t count;
	double sum, min, max;
	uint32_t bucket[SAMPLE_BUCKETS];
};

void sample_stats_add(struct sample_stats *s, double seconds);
double sample_stats_mean(const struct sample_stats *s);            /* NAN when empty */
double sample_stats_quantile(const struct sample_stats *s, double q); /* NAN when empty */

/* ACK trains: a pure ACK that arrives less than ACK_TRAIN_GAP_S after the
 * previous pure ACK of the same direction continues a train (ACK
 * compression, 802.11 aggregation, a receiver draining a burst).
 * ack_burstiness = share of pure-ACK inter-arrival gaps below the threshold
 * (acks_in_trains / gaps); ack_trains = runs of at least 2 such ACKs;
 * ack_train_max = the longest run, in ACKs. */
#define ACK_TRAIN_GAP_S 0.001

struct flow_dir_stats {
	uint64_t packets;
	uint64_t l2_bytes;          /* frame bytes (frame.len) of the frames carrying them */
	uint64_t payload_bytes;     /* TCP/UDP payload, retransmissions included */
	uint64_t goodput_bytes;     /* TCP: unique sequence space; UDP: payload */
	/* TCP only */
	uint64_t retransmissions;   /* tcp.analysis.retransmission (fast and spurious included) */
	uint64_t fast_retransmissions;
	uint64_t spurious_retransmissions;
	uint64_t out_of_order;
	uint64_t lost_segments;     /* segments after a gap ("previous segment not captured") */
	uint64_t acked_unseen;      /* ACKs of data the capture never saw */
	uint64_t dup_acks;
	uint64_t pure_acks;
	uint64_t zero_windows;
	uint64_t window_updates;
	uint64_t keep_alives;
	uint64_t sack_frames, sack_blocks, dsack_blocks;
	uint64_t acks_advancing, bytes_acked;
	uint64_t acks_in_trains, ack_trains, ack_train_max;
};

/* Counters of the current reporting interval (reset by flow_interval_reset). */
struct flow_interval {
	uint64_t packets[2], payload_bytes[2], goodput_bytes[2];
	uint64_t retransmissions[2], dup_acks[2];
};

#define TCP_MAX_UNACKED 256 /* segments awaiting an ACK kept per direction */
#define TCP_TSVAL_RING 32   /* recent TSvals of data segments kept per direction */

struct tcp_unacked {
	uint32_t seq, nextseq;
	double ts;
};

struct tcp_tsval {
	uint32_t tsval;
	bool echoed;
	double ts;
};

/* The per-direction state of tshark's sequence analysis, plus ours; reset
 * when a new connection reuses the 5-tuple. Sequence numbers are raw. */
struct tcp_dir_state {
	bool base_seq_set;
	uint32_t base_seq;          /* tshark's: ISN, or first seq - 1 */
	/* As in tshark, 0 means "not seen yet" for the next three. */
	uint32_t nextseq;           /* highest seq + len (+1 for SYN/FIN) seen */
	uint32_t maxseqtobeacked;   /* end of the contiguous data seen */
	uint32_t lastack;           /* ACK field of the last segment */
	double nextseq_ts, lastack_ts;
	uint32_t window;            /* raw window field; UINT32_MAX = none yet */
	uint32_t dupacknum;         /* duplicate ACKs in a row */
	unsigned last_events;       /* events of the last segment this way */
	/* goodput: unique sequence space in 64 bits (32-bit wrap unrolled) */
	bool span_set;
	int64_t span_lo, span_hi;
	/* ACK advances */
	bool ack_seen;
	uint32_t ack_high;
	/* ack_rtt: segments sent this way, not yet ACKed, oldest first */
	struct tcp_unacked *unacked;
	uint16_t n_unacked, cap_unacked;
	/* TSvals of data segments sent this way, for TSecr echoes */
	struct tcp_tsval tsvals[TCP_TSVAL_RING];
	uint8_t tsval_next, tsval_count;
	/* ACK clock */
	bool pure_ack_seen;
	double last_pure_ack_ts;
	uint64_t train_len;
};

struct tcp_dir_samples {
	struct sample_stats ack_rtt;  /* data -> ACK (tshark's tcp.analysis.ack_rtt) */
	struct sample_stats ts_rtt;   /* data segment's TSval -> its TSecr echo */
	struct sample_stats ack_iat;  /* pure ACK inter-arrival */
};

struct tcp_flow {
	struct tcp_dir_state dir[2];
	struct tcp_dir_samples samples[2];
	/* tshark's out-of-order threshold: the time of the most recent SYN
	 * without ACK (ts_mru_syn, 0 when not seen), and from it to the first
	 * segment with ACK and without SYN (ts_first_rtt), in whole
	 * microseconds (flow.c says why). tshark, in nanoseconds, knows an RTT
	 * under 0.5 us that rounds to 0 here: first_rtt_known says it is known. */
	double syn_ts;
	int64_t first_rtt_us;
	bool first_rtt_known;
};

/* Canonical 5-tuple: the (address, port) pair that sorts lower comes first,
 * so both directions find the same entry. No padding: hashed as bytes. */
struct flow_key {
	uint8_t family, proto;
	uint16_t port[2];
	uint8_t addr[2][16];
	uint8_t pad[2];     /* zero: 40 bytes, compared a word at a time */
};

struct flow {
	struct lru_link link;       /* first member: the table's handle */
	struct flow_key key;
	uint64_t id;                /* order of first appearance, from 0 */
	uint8_t family, proto;
	uint8_t addr[2][16];        /* [FLOW_A_TO_B] = A, the first packet's source */
	uint16_t port[2];
	double first_ts, last_ts;
	uint32_t connections;       /* TCP connections seen on this 5-tuple */
	int target;                 /* index of the matching --target, -1 if none */
	struct flow_dir_stats dir[2];
	struct flow_interval interval;
	struct tcp_flow *tcp;       /* TCP only */
};

/* What one packet did to its flow. */
struct flow_packet_result {
	enum flow_dir dir;
	uint32_t payload;           /* TCP/UDP payload bytes */
	uint64_t goodput_delta;     /* new unique bytes */
	unsigned events;            /* enum tcp_event bits, TCP only */
};

struct flow_table {
	struct lru_table lru;
	uint64_t next_id;
	uint64_t evictions;
};

/* 0, or -1 when out of memory. max_flows >= 1. */
int flow_table_init(struct flow_table *t, size_t max_flows);
void flow_table_destroy(struct flow_table *t);

/* The flow of a TCP or UDP packet, created if new (evicting the least
 * recently used flow when the table is full); NULL for other protocols or
 * when out of memory. *created tells whether it is new. */
struct flow *flow_table_lookup(struct flow_table *t, const struct ip_packet *p, double ts, bool *created);

static inline size_t flow_table_count(const struct flow_table *t)
{
	return t->lru.count;
}

/* Iteration, most recently used first. */
static inline struct flow *flow_table_first(const struct flow_table *t)
{
	return (struct flow *)t->lru.newest;
}

static inline struct flow *flow_table_next(const struct flow *f)
{
	return (struct flow *)f->link.older;
}

/* Accounts one packet of the flow: l2_bytes is the share of the frame's
 * length it carried. */
void flow_packet(struct flow *fl, const struct ip_packet *p, double ts, uint32_t l2_bytes,
		 struct flow_packet_result *r);

void flow_interval_reset(struct flow *fl);

/* "addr:port", IPv6 as "[addr]:port", of endpoint FLOW_A_TO_B (A) or B. */
void flow_endpoint_format(const struct flow *fl, enum flow_dir end, char *buf, size_t len);

/* Seconds from the flow's first to its last packet (0 for one packet). */
static inline double flow_duration(const struct flow *fl)
{
	return fl->last_ts - fl->first_ts;
}

/* The UDP payload length of a packet (ip.c reports TCP payload only). */
uint32_t flow_udp_payload(const struct ip_packet *p);

#endif /* AVMON_FLOW_H */
