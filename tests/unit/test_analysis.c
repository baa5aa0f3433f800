// SPDX-License-Identifier: GPL-2.0
/*
 * test_analysis.c - avmon's analysis (monitor/flow.c, station.c, lru.c,
 * analysis.c, report.c) on frames and IP packets built by hand, as the
 * decoders would leave them (monitor/packet.h).
 *
 * The two TCP scenarios were also written to pcap files and read by tshark
 * 4.0.17 (the oracle of tests/captures/MANIFEST.md): the expected flags
 * per segment below are tshark's tcp.analysis.* verdicts for the same
 * segments, and the RTTs its tcp.analysis.ack_rtt values.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "flow.h"
#include "lru.h"
#include "packet.h"
#include "station.h"
#include "tcpav/metrics.h"
#include "check.h"
#include "frame_builder.h" /* after packet.h: raw_frame() */

#ifndef HAVE_DECODE
/* decode.c (the decoders) owns the names; this test links without it */
const char *malformed_reason_name(enum malformed_reason r)
{
	static const char *const name[MAL_REASONS] = {"none", "truncated", "bad_radiotap", "bad_80211",
						      "bad_ip", "bad_tcp", "unsupported"};

	return r < MAL_REASONS ? name[r] : "unknown";
}
#endif

static int near(double got, double want, double tolerance)
{
	return fabs(got - want) <= tolerance;
}

/* ---- a minimal JSON syntax check (RFC 8259 grammar, no semantics) ---- */

static const char *json_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

static const char *json_value(const char *p, int depth);

static const char *json_str(const char *p)
{
	if (*p++ != '"')
		return NULL;
	for (; *p != '"'; p++) {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\') {
			p++;
			if (*p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
						return NULL;
				p += 4;
			} else if (!*p || !strchr("\"\\/bfnrt", *p)) {
				return NULL;
			}
		}
	}
	return p + 1;
}

static const char *json_num(const char *p)
{
	const char *start;

	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return NULL;
	if (*p == '.') {
		start = ++p;
		while (*p >= '0' && *p <= '9')
			p++;
		if (p == start)
			return NULL;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		start = p;
		while (*p >= '0' && *p <= '9')
			p++;
		if (p == start)
			return NULL;
	}
	return p;
}

static const char *json_value(const char *p, int depth)
{
	if (depth > 32)
		return NULL;
	p = json_ws(p);
	switch (*p) {
	case '{':
	case '[': {
		char close = *p == '{' ? '}' : ']';

		p = json_ws(p + 1);
		if (*p == close)
			return p + 1;
		for (;;) {
			if (close == '}') {
				p = json_str(json_ws(p));
				if (!p)
					return NULL;
				p = json_ws(p);
				if (*p++ != ':')
					return NULL;
			}
			p = json_value(p, depth + 1);
			if (!p)
				return NULL;
			p = json_ws(p);
			if (*p == ',') {
				p++;
				continue;
			}
			return *p == close ? p + 1 : NULL;
		}
	}
	case '"':
		return json_str(p);
	case 't':
		return strncmp(p, "true", 4) ? NULL : p + 4;
	case 'f':
		return strncmp(p, "false", 5) ? NULL : p + 5;
	case 'n':
		return strncmp(p, "null", 4) ? NULL : p + 4;
	default:
		return json_num(p);
	}
}

/* Every line one valid JSON value. */
static int json_lines_valid(const char *text)
{
	int lines = 0;

	while (*text) {
		const char *end = json_value(text, 0);

		if (!end || *end != '\n')
			return -1;
		text = end + 1;
		lines++;
	}
	return lines;
}

static int has(const char *haystack, const char *needle)
{
	return haystack && strstr(haystack, needle) != NULL;
}

/* ---- packets and frames ---- */

static const uint8_t ip4_a[4] = {10, 0, 0, 1}, ip4_b[4] = {10, 0, 0, 2};
static const uint8_t ip6_a[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1}, ip6_b[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 2};

/* A TCP segment between A (port 40000) and B (port 80); dir 0 = A->B. */
static struct ip_packet tcp_segment(int v6, int dir, uint32_t seq, uint32_t ack, uint8_t flags, uint16_t win,
				    uint32_t len)
{
	struct ip_packet p;
	size_t n = v6 ? 16 : 4;

	memset(&p, 0, sizeof(p));
	p.family = v6 ? 6 : 4;
	p.proto = 6;
	p.is_tcp = true;
	memcpy(dir ? p.dst : p.src, v6 ? ip6_a : ip4_a, n);
	memcpy(dir ? p.src : p.dst, v6 ? ip6_b : ip4_b, n);
	p.sport = dir ? 80 : 40000;
	p.dport = dir ? 40000 : 80;
	p.seq = seq;
	p.ack = ack;
	p.tcp_flags = flags;
	p.window = win;
	p.wscale = -1;
	p.payload_len = len;
	p.ip_len = (v6 ? 40u : 20u) + 20u + len;
	return p;
}

static struct ip_packet udp_packet(const uint8_t src[4], uint16_t sport, const uint8_t dst[4], uint16_t dport,
				   uint32_t payload)
{
	struct ip_packet p;

	memset(&p, 0, sizeof(p));
	p.family = 4;
	p.proto = 17;
	memcpy(p.src, src, 4);
	memcpy(p.dst, dst, 4);
	p.sport = sport;
	p.dport = dport;
	p.payload_len = payload;
	p.ip_len = 28 + payload;
	return p;
}

/* Letters for the events a test expects, in this order. */
static const char *events_letters(unsigned ev)
{
	static const struct {
		unsigned bit;
		char letter;
	} map[] = {
		{TCP_EV_RETRANSMISSION, 'R'}, {TCP_EV_FAST_RETRANSMISSION, 'F'},
		{TCP_EV_SPURIOUS_RETRANSMISSION, 'S'}, {TCP_EV_OUT_OF_ORDER, 'O'}, {TCP_EV_DUP_ACK, 'D'},
		{TCP_EV_LOST_SEGMENT, 'L'}, {TCP_EV_ACK_RTT, 'T'}, {TCP_EV_ACKED_UNSEEN, 'U'},
		{TCP_EV_ZERO_WINDOW, 'Z'}, {TCP_EV_ZERO_WINDOW_PROBE, 'P'}, {TCP_EV_ZERO_WINDOW_PROBE_ACK, 'p'},
		{TCP_EV_WINDOW_UPDATE, 'W'}, {TCP_EV_KEEP_ALIVE, 'K'}, {TCP_EV_KEEP_ALIVE_ACK, 'k'},
	};
	static char buf[32];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (ev & map[i].bit)
			buf[n++] = map[i].letter;
	buf[n] = '\0';
	return buf;
}

struct segment_row {
	double t;
	int dir;
	uint32_t seq, ack;
	uint8_t flags;
	uint16_t win;
	uint32_t len;
	const char *tshark; /* tshark 4.0.17's flags for this segment */
	bool has_ts;
	uint32_t ts_val, ts_ecr;
	uint8_t n_sack;
	uint32_t sack[2][2];
};

/* rows: time, direction (0 = A->B), seq, ack, flags, window, payload, tshark's flags */
#define SEG(t_, d_, seq_, ack_, fl_, win_, len_, tshark_)                                              \
	{.t = (t_), .dir = (d_), .seq = (seq_), .ack = (ack_), .flags = (fl_), .win = (win_), .len = (len_), \
	 .tshark = (tshark_)}
/* ... with TCP timestamps */
#define SEG_TS(t_, d_, seq_, ack_, fl_, win_, len_, tshark_, val_, ecr_)                                  \
	{.t = (t_), .dir = (d_), .seq = (seq_), .ack = (ack_), .flags = (fl_), .win = (win_), .len = (len_), \
	 .tshark = (tshark_), .has_ts = true, .ts_val = (val_), .ts_ecr = (ecr_)}
/* ... and SACK blocks */
#define SEG_SACK(t_, d_, seq_, ack_, fl_, win_, len_, tshark_, val_, ecr_, n_, ...)                       \
	{.t = (t_), .dir = (d_), .seq = (seq_), .ack = (ack_), .flags = (fl_), .win = (win_), .len = (len_), \
	 .tshark = (tshark_), .has_ts = true, .ts_val = (val_), .ts_ecr = (ecr_), .n_sack = (n_),             \
	 .sack = __VA_ARGS__}

#define FIN TCP_FIN
#define SYN TCP_SYN
#define ACK TCP_ACK
#define PSH 0x08

/* Runs rows through one flow; checks every segment's events. */
static struct flow *run_rows(struct flow_table *t, const struct segment_row *rows, size_t n, int v6,
			     const char *name, unsigned *events_out)
{
	struct flow *fl = NULL;
	int mismatches = 0;

	for (size_t i = 0; i < n; i++) {
		const struct segment_row *r = &rows[i];
		struct ip_packet p = tcp_segment(v6, r->dir, r->seq, r->ack, r->flags, r->win, r->len);
		struct flow_packet_result res;
		bool created;
		const char *got;

		p.has_ts = r->has_ts;
		p.ts_val = r->ts_val;
		p.ts_ecr = r->ts_ecr;
		p.n_sack = r->n_sack;
		for (unsigned b = 0; b < r->n_sack; b++) {
			p.sack_left[b] = r->sack[b][0];
			p.sack_right[b] = r->sack[b][1];
		}
		fl = flow_table_lookup(t, &p, r->t, &created);
		if (!fl) {
			CHECK(0, "%s: segment %zu: flow_table_lookup", name, i + 1);
			return NULL;
		}
		flow_packet(fl, &p, r->t, 60 + r->len, &res);
		if (events_out)
			events_out[i] = res.events;
		got = events_letters(res.events);
		if (strcmp(got, r->tshark) != 0) {
			mismatches++;
			printf("# %s segment %zu: tshark says '%s', we say '%s'\n", name, i + 1, r->tshark, got);
		}
	}
	CHECK(mismatches == 0, "%s: all %zu segments flagged as tshark 4.0 flags them", name, n);
	return fl;
}

/* ---- TCP: the bulk scenario (IPv4) ---- */

static void test_tcp_bulk(void)
{
	const uint32_t c = 1000, s = 5000, s7 = 5000 + 1 + 6000; /* ISNs; B's next seq after the data */
	const double t0 = 1000.0, t1 = t0 + 0.03, t2 = t1 + 0.05;
	const uint32_t sq = s + 1 + 6000; /* B's sequence after the 6 segments */
	struct segment_row rows[] = {
		SEG(t0, 0, c, 0, SYN, 64240, 0, ""),
		SEG(t0 + 0.010, 1, s, c + 1, SYN | ACK, 65535, 0, "T"),
		SEG(t0 + 0.020, 0, c + 1, s + 1, ACK, 502, 0, "T"),
		SEG(t1, 0, c + 1, s + 1, PSH | ACK, 502, 100, ""),                /* request */
		SEG(t1 + 0.011, 1, s + 1, c + 101, ACK, 509, 1000, "T"),          /* 6 data segments */
		SEG(t1 + 0.0111, 1, s + 1001, c + 101, ACK, 509, 1000, ""),
		SEG(t1 + 0.0112, 1, s + 2001, c + 101, ACK, 509, 1000, ""),
		SEG(t1 + 0.0113, 1, s + 3001, c + 101, ACK, 509, 1000, ""),
		SEG(t1 + 0.0114, 1, s + 4001, c + 101, ACK, 509, 1000, ""),
		SEG(t1 + 0.0115, 1, s + 5001, c + 101, ACK, 509, 1000, ""),
		SEG(t2, 0, c + 101, s + 1001, ACK, 502, 0, "T"),                  /* the second segment was lost */
		SEG(t2 + 0.001, 0, c + 101, s + 1001, ACK, 502, 0, "D"),
		SEG(t2 + 0.002, 0, c + 101, s + 1001, ACK, 502, 0, "D"),
		SEG(t2 + 0.003, 0, c + 101, s + 1001, ACK, 502, 0, "D"),
		SEG(t2 + 0.005, 1, s + 1001, c + 101, ACK, 509, 1000, "RF"),      /* fast retransmission */
		SEG(t2 + 0.030, 0, c + 101, s + 6001, ACK, 502, 0, "T"),
		SEG(t2 + 0.200, 1, s + 1001, c + 101, ACK, 509, 1000, "RS"),      /* spurious */
		SEG(t2 + 0.300, 1, sq + 1000, c + 101, ACK, 509, 1000, "L"),      /* after a gap */
		SEG(t2 + 0.3005, 1, sq, c + 101, ACK, 509, 1000, "O"),            /* fills it: out of order */
		SEG(t2 + 0.35, 0, c + 101, sq + 2000, ACK, 0, 0, "TZ"),           /* zero window */
		SEG(t2 + 0.40, 1, sq + 2000, c + 101, ACK, 509, 1, "P"),          /* zero window probe */
		SEG(t2 + 0.41, 0, c + 101, sq + 2000, ACK, 0, 0, "Zp"),
		SEG(t2 + 0.50, 0, c + 101, sq + 2000, ACK, 502, 0, "W"),          /* window update */
		SEG(t2 + 5.0, 1, sq + 1999, c + 101, ACK, 509, 0, "K"),           /* keep-alive */
		SEG(t2 + 5.01, 0, c + 101, sq + 2000, ACK, 502, 0, "k"),
		SEG(t2 + 6.0, 1, sq + 2000, c + 101, FIN | ACK, 509, 0, ""),
		SEG(t2 + 6.01, 0, c + 101, sq + 2001, FIN | ACK, 502, 0, "T"),    /* times the unanswered probe */
		SEG(t2 + 6.02, 1, sq + 2001, c + 102, ACK, 509, 0, "T"),
		/* the same ports again, new ISNs: a new connection */
		SEG(t2 + 7.0, 0, 777777, 0, SYN, 64240, 0, ""),
		SEG(t2 + 7.01, 1, 888888, 777778, SYN | ACK, 65535, 0, "T"),
		SEG(t2 + 7.02, 0, 777778, 888889, ACK, 502, 0, "T"),
		SEG(t2 + 7.03, 0, 777778, 888889, PSH | ACK, 502, 10, ""),
		SEG(t2 + 7.05, 0, 777778, 888889, PSH | ACK, 502, 10, "R"),
	};
	unsigned ev[sizeof(rows) / sizeof(rows[0])];
	struct flow_table t;
	struct flow *fl;
	const struct flow_dir_stats *ab, *ba;
	const struct tcp_dir_samples *sab, *sba;
	char ep[64];

	(void)s7;
	CHECK(flow_table_init(&t, 16) == 0, "flow table");
	fl = run_rows(&t, rows, sizeof(rows) / sizeof(rows[0]), 0, "IPv4 bulk", ev);
	if (!fl)
		return;
	ab = &fl->dir[FLOW_A_TO_B];
	ba = &fl->dir[FLOW_B_TO_A];
	sab = &fl->tcp->samples[FLOW_A_TO_B];
	sba = &fl->tcp->samples[FLOW_B_TO_A];
	CHECK(flow_table_count(&t) == 1, "both directions and both connections share one flow entry");
	flow_endpoint_format(fl, FLOW_A_TO_B, ep, sizeof(ep));
	CHECK(strcmp(ep, "10.0.0.1:40000") == 0, "A is the source of the first packet: %s", ep);
	flow_endpoint_format(fl, FLOW_B_TO_A, ep, sizeof(ep));
	CHECK(strcmp(ep, "10.0.0.2:80") == 0, "B: %s", ep);
	CHECK(fl->connections == 2, "a SYN with a new ISN on the same ports starts connection 2 (got %u)",
	      fl->connections);
	CHECK(ev[28] & TCP_EV_NEW_CONNECTION, "the new connection's SYN is marked");
	CHECK(ab->packets == 17 && ba->packets == 16, "packets A->B %llu, B->A %llu",
	      (unsigned long long)ab->packets, (unsigned long long)ba->packets);
	CHECK(ba->payload_bytes == 6000 + 1000 + 1000 + 1000 + 1 + 1000, "payload B->A counts retransmissions: %llu",
	      (unsigned long long)ba->payload_bytes);
	/* unique sequence space: 6000 + the 2000 after the gap + the probe's byte */
	CHECK(ba->goodput_bytes == 8001, "goodput B->A = unique sequence space 8001 (got %llu)",
	      (unsigned long long)ba->goodput_bytes);
	CHECK(ab->goodput_bytes == 100 + 10, "goodput A->B adds both connections' spans (got %llu)",
	      (unsigned long long)ab->goodput_bytes);
	CHECK(ba->retransmissions == 2 && ba->fast_retransmissions == 1 && ba->spurious_retransmissions == 1,
	      "B->A: 2 retransmissions, 1 fast, 1 spurious");
	CHECK(ab->retransmissions == 1, "A->B: the repeated request of connection 2 is a retransmission");
	CHECK(ba->out_of_order == 1 && ba->lost_segments == 1, "one out-of-order segment after one gap");
	CHECK(ab->dup_acks == 3 && ba->dup_acks == 0, "3 duplicate ACKs, counted where the ACKs travel");
	CHECK(ab->zero_windows == 2, "2 zero-window segments");
	CHECK(ab->window_updates == 1 && ba->keep_alives == 1, "a window update and a keep-alive");
	CHECK(ab->pure_acks == 11 && ba->pure_acks == 2, "pure ACKs (no SYN/FIN/RST): A->B %llu, B->A %llu",
	      (unsigned long long)ab->pure_acks, (unsigned long long)ba->pure_acks);
	/* ACK advances A->B: s+1 (the mark), s+1001, s+6001, sq+2000, sq+2001;
	 * connection 2 sets a new mark */
	CHECK(ab->acks_advancing == 4, "ACKs A->B that advanced: %llu", (unsigned long long)ab->acks_advancing);
	CHECK(ab->bytes_acked == 1000 + 5000 + (sq + 2001 - (s + 6001)), "bytes acked A->B: %llu",
	      (unsigned long long)ab->bytes_acked);
	/* tshark's ack_rtt values: A->B 0.010 0.039 0.0685 0.050 5.61 0.010;
	 * B->A 0.010 0.011 0.010 0.010 */
	CHECK(sab->ack_rtt.count == 6 && sba->ack_rtt.count == 4, "RTT samples per ACK direction: %llu / %llu",
	      (unsigned long long)sab->ack_rtt.count, (unsigned long long)sba->ack_rtt.count);
	CHECK(near(sab->ack_rtt.min, 0.010, 1e-9) && near(sab->ack_rtt.max, 5.61, 1e-9),
	      "RTT A->B min 10 ms, max 5.61 s (the probe answered by the FIN's ACK)");
	CHECK(near(sample_stats_mean(&sab->ack_rtt), (0.010 + 0.039 + 0.0685 + 0.050 + 5.61 + 0.010) / 6, 1e-9),
	      "RTT A->B mean as tshark's");
	CHECK(near(sample_stats_mean(&sba->ack_rtt), (0.010 + 0.011 + 0.010 + 0.010) / 4, 1e-9),
	      "RTT B->A mean as tshark's");
	CHECK(sab->ack_iat.count == ab->pure_acks - 2,
	      "an inter-arrival per pure ACK after the first of each connection");
	flow_table_destroy(&t);
}

/* ---- TCP: IPv6 across the 32-bit sequence wrap, timestamps, SACK ---- */

static void test_tcp_ipv6_wrap(void)
{
	const uint32_t c = 0xfffff000u, s = 0xffffff00u;
	const double t = 1000.0;
	struct segment_row rows[] = {
		SEG_TS(t, 0, c, 0, SYN, 64240, 0, "", 1, 0),
		SEG_TS(t + 0.010, 1, s, c + 1, SYN | ACK, 65535, 0, "T", 500, 1),
		SEG_TS(t + 0.020, 0, c + 1, s + 1, ACK, 502, 0, "T", 11, 500),
		SEG_TS(t + 0.030, 1, s + 1, c + 1, ACK, 509, 100, "", 510, 11),
		SEG_TS(t + 0.031, 1, s + 101, c + 1, ACK, 509, 100, "", 511, 11),   /* crosses 2^32 */
		SEG_TS(t + 0.032, 1, s + 201, c + 1, ACK, 509, 100, "", 512, 11),
		SEG_TS(t + 0.033, 1, s + 301, c + 1, ACK, 509, 100, "", 513, 11),
		SEG_TS(t + 0.034, 1, s + 401, c + 1, ACK, 509, 100, "", 514, 11),
		SEG_TS(t + 0.045, 0, c + 1, s + 101, ACK, 502, 0, "T", 25, 510),
		SEG_SACK(t + 0.046, 0, c + 1, s + 101, ACK, 502, 0, "D", 26, 510, 1, {{s + 201, s + 301}}),
		SEG_SACK(t + 0.047, 0, c + 1, s + 101, ACK, 502, 0, "D", 27, 510, 1, {{s + 201, s + 401}}),
		SEG_TS(t + 0.048, 1, s + 101, c + 1, ACK, 509, 100, "RF", 520, 27),
		/* D-SACK below the ACK, then D-SACK inside the second block */
		SEG_SACK(t + 0.060, 0, c + 1, s + 501, ACK, 502, 0, "T", 30, 520, 1, {{s + 101, s + 201}}),
		SEG_SACK(t + 0.070, 0, c + 1, s + 501, ACK, 502, 0, "D", 31, 520, 2, {{s + 301, s + 401}, {s + 201, s + 501}}),
	};
	unsigned ev[sizeof(rows) / sizeof(rows[0])];
	struct flow_table t6;
	struct flow *fl;
	const struct flow_dir_stats *ab, *ba;
	const struct tcp_dir_samples *sab, *sba;
	char ep[64];

	CHECK(flow_table_init(&t6, 16) == 0, "flow table");
	fl = run_rows(&t6, rows, sizeof(rows) / sizeof(rows[0]), 1, "IPv6 wrap", ev);
	if (!fl)
		return;
	ab = &fl->dir[FLOW_A_TO_B];
	ba = &fl->dir[FLOW_B_TO_A];
	sab = &fl->tcp->samples[FLOW_A_TO_B];
	sba = &fl->tcp->samples[FLOW_B_TO_A];
	flow_endpoint_format(fl, FLOW_A_TO_B, ep, sizeof(ep));
	CHECK(strcmp(ep, "[2001:db8::1]:40000") == 0, "IPv6 endpoint as [addr]:port: %s", ep);
	CHECK(ba->goodput_bytes == 500, "goodput across the sequence wrap = 500 unique bytes (got %llu)",
	      (unsigned long long)ba->goodput_bytes);
	CHECK(ba->payload_bytes == 600 && ba->retransmissions == 1, "payload 600 with the retransmission");
	CHECK(ab->sack_frames == 4 && ab->sack_blocks == 5, "SACK: 4 segments, 5 blocks (got %llu, %llu)",
	      (unsigned long long)ab->sack_frames, (unsigned long long)ab->sack_blocks);
	CHECK(ab->dsack_blocks == 2 && (ev[12] & TCP_EV_DSACK) && (ev[13] & TCP_EV_DSACK) && !(ev[9] & TCP_EV_DSACK),
	      "D-SACK: first block below the ACK, or inside the second block (as tshark's sack.dsack)");
	CHECK(ab->dup_acks == 3, "dup ACKs carrying SACK count as dup ACKs");
	CHECK(ab->acks_advancing == 2 && ab->bytes_acked == 500, "ACK advances across the wrap: 2, 500 bytes");
	/* timestamp echoes of data (and SYN) segments: A->B echoes TSval 500
	 * (SYN/ACK), 510 and 520; repeats of an echo give no new sample */
	CHECK(sab->ts_rtt.count == 3, "3 timestamp RTT samples A->B (got %llu)", (unsigned long long)sab->ts_rtt.count);
	CHECK(near(sab->ts_rtt.min, 0.010, 1e-9) && near(sab->ts_rtt.max, 0.015, 1e-9) &&
	      near(sample_stats_mean(&sab->ts_rtt), (0.010 + 0.015 + 0.012) / 3, 1e-9),
	      "timestamp RTTs A->B: 10, 15, 12 ms");
	CHECK(sba->ts_rtt.count == 1 && near(sba->ts_rtt.min, 0.010, 1e-9), "the SYN/ACK echoes the SYN: 10 ms");
	CHECK(near(sample_stats_mean(&sab->ack_rtt), (0.010 + 0.015 + 0.026) / 3, 1e-9),
	      "data->ACK RTTs A->B as tshark's: 10, 15, 26 ms");
	CHECK(ab->pure_acks == 6 && sab->ack_iat.count == 5, "6 pure ACKs, 5 inter-arrivals");
	flow_table_destroy(&t6);
}

/* ---- TCP: reordering at the receiver, tshark's out-of-order rule ----
 *
 * tshark 4.0 calls a segment below nextseq out-of-order when it comes less
 * than the handshake RTT after the segment that set nextseq (3 ms when no
 * handshake was seen) and does not end at nextseq; spurious and fast
 * retransmissions take precedence. The handshake RTT runs from the most
 * recent SYN without ACK to the first segment with ACK and without SYN,
 * which at a receiving client is the whole RTT, not the few microseconds
 * from the SYN/ACK to the client's ACK. Times are offsets in microseconds
 * from an epoch-sized t0, and the two cases exactly at a limit are pairs
 * whose difference in doubles of epoch seconds falls just below it: they
 * need microsecond-exact arithmetic. The rows' flags are tshark 4.0.17's
 * on the same segments written to a pcap. */

#define REORDER_T0 1764500000.0
#define US(x) (REORDER_T0 + (x) * 1e-6)

static void test_tcp_reorder_client(void)
{
	const uint32_t c = 1000, s = 5000;
	/* A, the client, receives; handshake RTT 10.050 ms (SYN -> ACK) */
	struct segment_row rows[] = {
		SEG(US(0), 0, c, 0, SYN, 64240, 0, ""),
		SEG(US(10000), 1, s, c + 1, SYN | ACK, 65535, 0, "T"),
		SEG(US(10050), 0, c + 1, s + 1, ACK, 502, 0, "T"),
		SEG(US(30000), 1, s + 1, c + 1, ACK, 509, 1000, ""),
		SEG(US(30100), 1, s + 2001, c + 1, ACK, 509, 1000, "L"),
		SEG(US(32100), 1, s + 1001, c + 1, ACK, 509, 1000, "O"),  /* hole filled 2 ms later */
		SEG(US(40000), 1, s + 4001, c + 1, ACK, 509, 1000, "L"),
		SEG(US(50049), 1, s + 3001, c + 1, ACK, 509, 1000, "O"),  /* 10.049 ms: just inside */
		SEG(US(60002), 1, s + 6001, c + 1, ACK, 509, 1000, "L"),
		SEG(US(70052), 1, s + 5001, c + 1, ACK, 509, 1000, "R"),  /* 10.050 ms: just outside */
		SEG(US(71000), 1, s + 6001, c + 1, ACK, 509, 1000, "R"),  /* ends at nextseq */
		SEG(US(72000), 0, c + 1, s + 7001, ACK, 502, 0, "T"),
		SEG(US(72500), 1, s + 8001, c + 1, ACK, 509, 1000, "L"),
		SEG(US(73000), 1, s + 6001, c + 1, ACK, 509, 1000, "RS"), /* ACKed already: spurious first */
		SEG(US(74000), 0, c + 1, s + 7001, ACK, 502, 0, "DT"),
		SEG(US(74100), 0, c + 1, s + 7001, ACK, 502, 0, "D"),
		SEG(US(74200), 1, s + 7001, c + 1, ACK, 509, 1000, "RF"), /* after 2 dup ACKs: fast first */
		SEG(US(75000), 0, c + 1, s + 9001, ACK, 502, 0, "T"),
	};
	struct flow_table t;
	struct flow *fl;

	CHECK(flow_table_init(&t, 16) == 0, "flow table");
	fl = run_rows(&t, rows, sizeof(rows) / sizeof(rows[0]), 0, "reordering at the client", NULL);
	CHECK(fl && fl->tcp->first_rtt_us == 10050,
	      "handshake RTT at the client runs from the SYN, not the SYN/ACK: 10050 us (got %lld)",
	      fl ? (long long)fl->tcp->first_rtt_us : -1LL);
	CHECK(fl && fl->dir[FLOW_B_TO_A].out_of_order == 2 && fl->dir[FLOW_B_TO_A].retransmissions == 4,
	      "B->A: 2 out-of-order, 4 retransmissions (1 spurious, 1 fast)");
	flow_table_destroy(&t);
}

static void test_tcp_reorder_server_and_edges(void)
{
	const uint32_t c = 1000, s = 5000;
	/* B, the server, receives; the SYN is sent twice: the RTT (10.000 ms)
	 * runs from the second one, and the SYN/ACK 50 us after it is not the
	 * start (9.950 ms would make the 9.980 ms hole a retransmission) */
	struct segment_row server[] = {
		SEG(US(0), 0, c, 0, SYN, 64240, 0, ""),
		SEG(US(1000000), 0, c, 0, SYN, 64240, 0, "R"),
		SEG(US(1000050), 1, s, c + 1, SYN | ACK, 65535, 0, "T"),
		SEG(US(1010000), 0, c + 1, s + 1, ACK, 502, 0, "T"),
		SEG(US(1020000), 0, c + 1, s + 1, ACK, 502, 1000, ""),
		SEG(US(1020100), 0, c + 2001, s + 1, ACK, 502, 1000, "L"),
		SEG(US(1030080), 0, c + 1001, s + 1, ACK, 502, 1000, "O"),
		SEG(US(1030200), 0, c + 3001, s + 1, ACK, 502, 1000, ""),
		SEG(US(1031000), 1, s + 1, c + 4001, ACK, 509, 0, "T"),
	};
	/* no handshake in the capture: 3 ms */
	struct segment_row midstream[] = {
		SEG(US(0), 1, s + 1, c + 1, ACK, 509, 1000, ""),
		SEG(US(100), 1, s + 2001, c + 1, ACK, 509, 1000, "L"),
		SEG(US(3099), 1, s + 1001, c + 1, ACK, 509, 1000, "O"),   /* 2.999 ms */
		SEG(US(10013), 1, s + 4001, c + 1, ACK, 509, 1000, "L"),
		SEG(US(13013), 1, s + 3001, c + 1, ACK, 509, 1000, "R"),  /* 3.000 ms */
		SEG(US(14000), 0, c + 1, s + 5001, ACK, 502, 0, "T"),     /* an ACK, but no SYN before */
		SEG(US(15000), 1, s + 6001, c + 1, ACK, 509, 1000, "L"),
		SEG(US(17500), 1, s + 5001, c + 1, ACK, 509, 1000, "O"),
	};
	/* a handshake RTT under half a microsecond (nanosecond capture, here
	 * 400 ns; in doubles of epoch seconds 477 ns): tshark knows it, so the
	 * hole filled 1 ms after the highest segment is a retransmission, not
	 * out-of-order under the 3 ms of an unknown RTT (or under 2.5 ms, were
	 * the RTT taken again at the next segment with ACK) */
	struct segment_row sub_us[] = {
		SEG(US(0), 0, c, 0, SYN, 64240, 0, ""),
		SEG(US(0.15), 1, s, c + 1, SYN | ACK, 65535, 0, "T"),
		SEG(US(0.4), 0, c + 1, s + 1, ACK, 502, 0, "T"),
		SEG(US(2500), 1, s + 1, c + 1, ACK, 509, 1000, ""),
		SEG(US(2600), 1, s + 2001, c + 1, ACK, 509, 1000, "L"),
		SEG(US(3600), 1, s + 1001, c + 1, ACK, 509, 1000, "R"),
		SEG(US(4000), 0, c + 1, s + 3001, ACK, 502, 0, "T"),
	};
	/* the capture's clock steps back between the SYN and the ACK: tshark
	 * keeps the negative RTT and, comparing unsigned times, calls a hole
	 * filled 500 ms later out-of-order, but one filled "before" the
	 * highest segment, by less than the RTT's size, a retransmission */
	struct segment_row backwards[] = {
		SEG(US(10000), 0, c, 0, SYN, 64240, 0, ""),
		SEG(US(4000), 0, c + 1, s + 1, ACK, 502, 0, ""),
		SEG(US(20000), 0, c + 1, s + 1, ACK, 502, 1000, ""),
		SEG(US(20100), 0, c + 2001, s + 1, ACK, 502, 1000, "L"),
		SEG(US(520100), 0, c + 1001, s + 1, ACK, 502, 1000, "O"),
		SEG(US(520200), 0, c + 4001, s + 1, ACK, 502, 1000, "L"),
		SEG(US(515000), 0, c + 3001, s + 1, ACK, 502, 1000, "R"),
	};
	struct flow_table t;
	struct flow *fl;

	CHECK(flow_table_init(&t, 16) == 0, "flow table");
	fl = run_rows(&t, backwards, sizeof(backwards) / sizeof(backwards[0]), 0, "handshake RTT below zero", NULL);
	CHECK(fl && fl->tcp->first_rtt_us == -6000, "handshake RTT -6000 us kept, as tshark keeps it (got %lld)",
	      fl ? (long long)fl->tcp->first_rtt_us : -1LL);
	flow_table_destroy(&t);

	CHECK(flow_table_init(&t, 16) == 0, "flow table");
	fl = run_rows(&t, server, sizeof(server) / sizeof(server[0]), 0, "reordering at the server", NULL);
	CHECK(fl && fl->tcp->first_rtt_us == 10000, "handshake RTT from the most recent SYN: 10000 us (got %lld)",
	      fl ? (long long)fl->tcp->first_rtt_us : -1LL);
	flow_table_destroy(&t);

	CHECK(flow_table_init(&t, 16) == 0, "flow table");
	fl = run_rows(&t, midstream, sizeof(midstream) / sizeof(midstream[0]), 0, "reordering without handshake",
		      NULL);
	/* the first packet is B's: B is the flow's A end */
	CHECK(fl && !fl->tcp->first_rtt_known && fl->dir[FLOW_A_TO_B].out_of_order == 2,
	      "no SYN, no handshake RTT: the 3 ms default, 2 out-of-order");
	flow_table_destroy(&t);

	CHECK(flow_table_init(&t, 16) == 0, "flow table");
	fl = run_rows(&t, sub_us, sizeof(sub_us) / sizeof(sub_us[0]), 0, "handshake RTT under 0.5 us", NULL);
	CHECK(fl && fl->tcp->first_rtt_known && fl->tcp->first_rtt_us == 0 &&
		      fl->dir[FLOW_B_TO_A].out_of_order == 0 && fl->dir[FLOW_B_TO_A].retransmissions == 1,
	      "handshake RTT under 0.5 us: known (0 us), the hole a retransmission (got %lld us, known %d)",
	      fl ? (long long)fl->tcp->first_rtt_us : -1LL, fl ? fl->tcp->first_rtt_known : -1);
	flow_table_destroy(&t);
}

#undef US

/* ---- ACK trains and the quantile estimate ---- */

static void test_ack_clock_and_quantiles(void)
{
	struct flow_table t;
	struct flow *fl = NULL;
	struct flow_packet_result r;
	struct sample_stats st;
	bool created;
	double ts = 10.0;

	CHECK(flow_table_init(&t, 4) == 0, "flow table");
	/* 3 trains of 4 pure ACKs 0.2 ms apart, trains 10 ms apart */
	for (int train = 0; train < 3; train++) {
		for (int i = 0; i < 4; i++) {
			struct ip_packet p = tcp_segment(0, 0, 1, 1000u + (uint32_t)(train * 4 + i) * 100, ACK, 500, 0);

			fl = flow_table_lookup(&t, &p, ts, &created);
			flow_packet(fl, &p, ts, 54, &r);
			ts += 0.0002;
		}
		ts += 0.010;
	}
	CHECK(fl && fl->dir[0].pure_acks == 12, "12 pure ACKs");
	CHECK(fl && fl->dir[0].acks_in_trains == 9 && fl->dir[0].ack_trains == 3 && fl->dir[0].ack_train_max == 4,
	      "3 trains of 4: 9 of 11 gaps inside trains");
	CHECK(fl && fl->dir[0].acks_advancing == 11 && fl->dir[0].bytes_acked == 1100, "11 advances of 100 bytes");
	CHECK(fl && near(sample_stats_quantile(&fl->tcp->samples[0].ack_iat, 0.5), 0.0002, 0.0002 * 0.15),
	      "median ACK inter-arrival 0.2 ms (+-15 %%)");
	flow_table_destroy(&t);

	memset(&st, 0, sizeof(st));
	sample_stats_add(&st, 0.0421);
	CHECK(near(sample_stats_quantile(&st, 0.99), 0.0421, 1e-12), "one sample: its quantiles are exact");
	memset(&st, 0, sizeof(st));
	for (int i = 1; i <= 1000; i++)
		sample_stats_add(&st, i * 0.001);
	CHECK(near(sample_stats_quantile(&st, 0.5), 0.5, 0.5 * 0.15), "p50 of 1..1000 ms = %.4f s (+-15 %%)",
	      sample_stats_quantile(&st, 0.5));
	CHECK(near(sample_stats_quantile(&st, 0.99), 0.99, 0.99 * 0.15), "p99 of 1..1000 ms = %.4f s (+-15 %%)",
	      sample_stats_quantile(&st, 0.99));
	CHECK(near(sample_stats_mean(&st), 0.5005, 1e-9) && st.min == 0.001 && st.max == 1.0,
	      "mean, min and max are exact");
	memset(&st, 0, sizeof(st));
	CHECK(isnan(sample_stats_mean(&st)) && isnan(sample_stats_quantile(&st, 0.5)), "no samples: NaN");
}

/* A sender on a 1 ms TS clock, a 100 ms path: 100 TSvals in flight, more
 * than the TSval ring holds unless it spaces its entries. */
static void test_ts_rtt_long_path(void)
{
	struct flow_table t;
	struct flow *fl = NULL;
	struct flow_packet_result r;
	bool created;

	CHECK(flow_table_init(&t, 4) == 0, "flow table");
	for (uint32_t ms = 0; ms < 1000; ms++) {
		struct ip_packet data = tcp_segment(0, 1, 1 + ms * 1000, 1, ACK, 500, 1000);

		data.has_ts = true;
		data.ts_val = 10000 + ms;
		data.ts_ecr = 7;
		fl = flow_table_lookup(&t, &data, ms * 0.001, &created);
		flow_packet(fl, &data, ms * 0.001, 1054, &r);
		if (ms >= 100) { /* the receiver's ACK of the segment sent 100 ms ago */
			struct ip_packet ack = tcp_segment(0, 0, 1, 1 + (ms - 99) * 1000, ACK, 500, 0);

			ack.has_ts = true;
			ack.ts_val = 7;
			ack.ts_ecr = 10000 + ms - 100;
			flow_packet(fl, &ack, ms * 0.001 + 0.0005, 54, &r);
		}
	}
	CHECK(fl != NULL, "the flow of the RTT scenario exists");
	if (fl) {
		/* A is the data sender (first packet): the ACKs travel B->A */
		const struct sample_stats *ts_rtt = &fl->tcp->samples[FLOW_B_TO_A].ts_rtt;

		CHECK(fl->tcp->samples[FLOW_B_TO_A].ack_rtt.count == 900, "900 data->ACK RTT samples");
		CHECK(ts_rtt->count > 50 && near(ts_rtt->min, 0.1005, 1e-6) && near(ts_rtt->max, 0.1005, 1e-6),
		      "timestamp RTTs on a 100 ms path with a 1 ms TS clock: %llu samples of 100.5 ms",
		      (unsigned long long)ts_rtt->count);
	}
	flow_table_destroy(&t);
}

/* ---- LRU ---- */

static void test_lru(void)
{
	struct flow_table t;
	struct flow_packet_result r;
	struct ip_packet p1 = udp_packet(ip4_a, 1001, ip4_b, 53, 10);
	struct ip_packet p2 = udp_packet(ip4_a, 1002, ip4_b, 53, 10);
	struct ip_packet p3 = udp_packet(ip4_a, 1003, ip4_b, 53, 10);
	struct ip_packet p1_reply = udp_packet(ip4_b, 53, ip4_a, 1001, 10);
	struct flow *f1, *f;
	bool created;
	int found2 = 0, found1 = 0;

	CHECK(flow_table_init(&t, 2) == 0, "flow table of 2");
	f1 = flow_table_lookup(&t, &p1, 1.0, &created);
	flow_packet(f1, &p1, 1.0, 60, &r);
	flow_table_lookup(&t, &p2, 2.0, &created);
	f = flow_table_lookup(&t, &p1_reply, 3.0, &created); /* touches flow 1 */
	CHECK(f == f1 && !created, "the reply finds the same flow");
	flow_table_lookup(&t, &p3, 4.0, &created);
	CHECK(created && t.evictions == 1 && flow_table_count(&t) == 2, "third flow evicts one (evictions %llu)",
	      (unsigned long long)t.evictions);
	for (f = flow_table_first(&t); f; f = flow_table_next(f)) {
		found1 += f->port[0] == 1001;
		found2 += f->port[0] == 1002;
	}
	CHECK(found1 == 1 && found2 == 0, "the least recently used flow went, the touched one stayed");
	flow_table_destroy(&t);
}

/* ---- 802.11 stations, retries, airtime ---- */

static const struct mac_addr mac_ap = {{0x02, 0, 0, 0, 0, 0xaa}}, mac_s1 = {{0x02, 0, 0, 0, 0, 0x01}},
			     mac_s2 = {{0x02, 0, 0, 0, 0, 0x02}}, mac_bcast = {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}};

static struct frame wlan_frame(double ts, uint8_t type, uint8_t subtype, const struct mac_addr *ta,
			       const struct mac_addr *ra, enum wlan_dir dir, bool retry, uint16_t seq,
			       uint32_t wirelen, uint32_t airtime_us, uint32_t rate_kbps, int8_t signal)
{
	struct frame f;

	memset(&f, 0, sizeof(f));
	f.ts = ts;
	f.caplen = f.wirelen = wirelen;
	f.dlt = 127;
	f.sll_pkttype = -1;
	f.ifindex = -1;
	f.radio.present = true;
	f.radio.rate_kbps = rate_kbps;
	f.radio.has_signal = true;
	f.radio.signal_dbm = signal;
	f.wlan.present = true;
	f.wlan.type = type;
	f.wlan.subtype = subtype;
	f.wlan.retry = retry;
	if (ta) {
		f.wlan.has_ta = true;
		f.wlan.ta = *ta;
	}
	f.wlan.ra = *ra;
	f.wlan.to_ds = dir == WLAN_DIR_UP;
	f.wlan.from_ds = dir == WLAN_DIR_DOWN;
	f.wlan.dir = dir;
	if (dir == WLAN_DIR_UP)
		f.wlan.station = *ta;
	else if (dir == WLAN_DIR_DOWN)
		f.wlan.station = *ra;
	f.wlan.seq = seq;
	f.wlan.airtime_us = airtime_us;
	f.wlan.mpdu_len = wirelen;
	return f;
}

static char *summary_text(const struct analysis *a, const struct capture_info *ci)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (!out)
		return NULL;
	analysis_summary_json(a, ci, out);
	fclose(out);
	return text;
}

/* The JSON object of the station named `name` ("mac":"..." or "addr":"..."),
 * copied out of a summary. */
static char *station_object(const char *summary, const char *key_value)
{
	const char *p = strstr(summary, key_value), *start, *end;
	char *obj;

	if (!p)
		return NULL;
	for (start = p; start > summary && *start != '{'; start--)
		;
	end = strstr(p, "]}}"); /* the rate histogram's rx array closes the object */
	if (!end)
		return NULL;
	obj = calloc((size_t)(end - start) + 4, 1);
	if (obj)
		memcpy(obj, start, (size_t)(end - start) + 3);
	return obj;
}

static void test_wlan_stations(void)
{
	struct analysis_config cfg = {.capacity_bps = 20e6};
	struct analysis *a = analysis_new(&cfg);
	struct ip_packet p;
	struct frame f;
	char *sum, *s1, *s2, *ap, expect[128];
	double airtime[2];

	CHECK(a != NULL, "analysis_new");
	if (!a)
		return;
	/* a beacon makes the AP known */
	f = wlan_frame(1.0, 0, 8, &mac_ap, &mac_bcast, WLAN_DIR_NONE, false, 1, 200, 1000, 1000, -30);
	analysis_frame(a, &f, NULL, 0);

	/* station 1 uploads 3 x 1000 bytes; the second frame is sent twice
	 * (MAC retry): the retry counts for the station, not for TCP */
	for (int i = 0; i < 3; i++) {
		p = tcp_segment(0, 0, 1 + 1000u * (uint32_t)i, 1, ACK, 500, 1000);
		f = wlan_frame(2.0 + i * 0.01, 2, 8, &mac_s1, &mac_ap, WLAN_DIR_UP, false, (uint16_t)(100 + i),
			       1100, 300, i == 2 ? 24000 : 54000, i ? -70 : -60);
		f.n_ip = 1;
		analysis_frame(a, &f, &p, 1);
		if (i == 1) {
			f = wlan_frame(2.015, 2, 8, &mac_s1, &mac_ap, WLAN_DIR_UP, true, 101, 1100, 300, 54000, -60);
			f.n_ip = 1;
			analysis_frame(a, &f, &p, 1);
		}
		/* the AP's 802.11 ACK: no TA, RA = station 1 */
		f = wlan_frame(2.001 + i * 0.01, 1, 13, NULL, &mac_s1, WLAN_DIR_NONE, false, 0, 14, 44, 24000, -30);
		analysis_frame(a, &f, NULL, 0);
	}
	/* a retry of a frame the capture missed (seq 150 never seen): analysed */
	p = tcp_segment(0, 0, 3001, 1, ACK, 500, 1000);
	f = wlan_frame(2.05, 2, 8, &mac_s1, &mac_ap, WLAN_DIR_UP, true, 150, 1100, 300, 54000, -70);
	f.n_ip = 1;
	analysis_frame(a, &f, &p, 1);
	/* the AP sends station 1 a pure TCP ACK downlink */
	p = tcp_segment(0, 1, 1, 4001, ACK, 500, 0);
	f = wlan_frame(2.06, 2, 8, &mac_ap, &mac_s1, WLAN_DIR_DOWN, false, 7, 120, 60, 54000, -30);
	f.n_ip = 1;
	analysis_frame(a, &f, &p, 1);
	/* station 2: 1000 bytes over UDP up, and a pure TCP ACK up */
	{
		static const uint8_t ip4_c[4] = {10, 0, 0, 3};

		p = udp_packet(ip4_c, 5000, ip4_b, 5001, 1000);
		f = wlan_frame(2.1, 2, 8, &mac_s2, &mac_ap, WLAN_DIR_UP, false, 1, 1100, 900, 6000, -80);
		f.n_ip = 1;
		analysis_frame(a, &f, &p, 1);
	}
	p = tcp_segment(0, 1, 1, 1, ACK, 500, 0);
	p.sport = 81;
	f = wlan_frame(2.2, 2, 8, &mac_s2, &mac_ap, WLAN_DIR_UP, false, 2, 100, 100, 6000, -80);
	f.n_ip = 1;
	analysis_frame(a, &f, &p, 1);

	sum = summary_text(a, NULL);
	CHECK(sum && json_lines_valid(sum) == 1, "summary is one line of valid JSON");
	s1 = sum ? station_object(sum, "\"mac\":\"02:00:00:00:00:01\"") : NULL;
	s2 = sum ? station_object(sum, "\"mac\":\"02:00:00:00:00:02\"") : NULL;
	ap = sum ? station_object(sum, "\"mac\":\"02:00:00:00:00:aa\"") : NULL;
	CHECK(s1 && s2 && ap, "three stations by MAC");
	CHECK(has(ap, "\"role\":\"ap\"") && has(s1, "\"role\":\"station\""), "the beacon's sender is the AP");
	CHECK(has(s1, "\"tx_data_frames\":5,") && has(s1, "\"tx_data_bytes\":5500,"),
	      "station 1 uplink: 5 data frames, 5500 bytes (retries included, as the oracle)");
	CHECK(has(s1, "\"tx_data_retries\":2,") && has(s1, "\"retries\":2,"), "station 1: 2 frames with the retry bit");
	CHECK(has(s1, "\"rx_data_frames\":1,") && has(s1, "\"rx_frames\":4,"),
	      "station 1 receives 1 data frame and 3 ACK control frames");
	CHECK(has(s1, "\"tx_airtime_us\":1500,") && has(s1, "\"rx_airtime_us\":60,") &&
	      has(s1, "\"airtime_us\":1560,"),
	      "airtime: 5 x 300 us sent, 60 us received; the 3 ACKs add none (their frames count SIFS + ACK)");
	CHECK(has(s1, "\"tx_data_airtime_us\":1500,") && has(s1, "\"rx_data_airtime_us\":60,"), "data airtime");
	CHECK(has(s1, "\"tx_goodput_bytes\":4000,") && has(s1, "\"tx_payload_bytes\":4000,"),
	      "the MAC retry is not analysed: 4000 bytes of payload and goodput");
	CHECK(has(s1, "\"signal_dbm\":-66,"), "mean signal of its 5 frames: -66 dBm");
	CHECK(has(s1, "\"tx\":[{\"rate_kbps\":54000,\"frames\":4},{\"rate_kbps\":24000,\"frames\":1}]"),
	      "rate histogram of the frames it sent");
	CHECK(has(s1, "\"retry_ratio\":0.3333333333,"), "retry ratio 2 of 6 data frames");
	CHECK(has(s2, "\"uplink_tcp_acks\":1,") && has(s1, "\"uplink_tcp_acks\":0,"), "uplink pure TCP ACKs");
	CHECK(has(ap, "\"uplink_tcp_acks\":1,") && has(ap, "\"tx_data_frames\":0,"),
	      "the AP's downlink data frames count as the station's rx_data, not the AP's tx_data");
	CHECK(has(sum, "\"duplicates_removed\":{\"link_copies\":0,\"wlan_retries\":1}"), "one MAC retry removed");
	CHECK(has(sum, "\"retransmissions\":0,"), "the MAC retry is no TCP retransmission");
	/* Jain over the two stations (the AP left out): goodput 4000 and 1000
	 * bytes; airtime 1560 and 1000 us */
	CHECK(has(sum, "\"jain_goodput\":0.7352941176,"), "Jain over station goodput = %.10g",
	      tcpav_jain((const double[]){4000, 1000}, 2));
	airtime[0] = 1560;
	airtime[1] = 1000;
	snprintf(expect, sizeof(expect), "\"jain_airtime\":%.10g,", tcpav_jain(airtime, 2));
	CHECK(has(sum, expect), "Jain over station airtime: %s", expect);
	CHECK(has(sum, "\"fair_share_bps\":10000000,\"fair_share_flow_bps\":10000000,\"active_stations\":2,"
		       "\"active_flows\":2}"),
	      "fair share EB/N: 20 Mbit/s over 2 stations, over 2 flows with payload (not the ACK-only one)");
	free(s1);
	free(s2);
	free(ap);
	free(sum);
	analysis_free(a);
}

/* QoS sequence numbers run per receiver: the AP's frames to two stations
 * may carry the same number, and a retry to one is no copy of the other. */
static void test_wlan_retry_per_receiver(void)
{
	struct analysis_config cfg = {0};
	struct analysis *a = analysis_new(&cfg);
	struct ip_packet p;
	struct frame f;
	char *sum;

	CHECK(a != NULL, "analysis_new");
	if (!a)
		return;
	p = tcp_segment(0, 1, 1, 1, ACK, 500, 100);
	f = wlan_frame(1.0, 2, 8, &mac_ap, &mac_s1, WLAN_DIR_DOWN, false, 42, 200, 100, 54000, -30);
	f.n_ip = 1;
	analysis_frame(a, &f, &p, 1);
	p.dst[3] = 3; /* another flow, to station 2 */
	f = wlan_frame(1.1, 2, 8, &mac_ap, &mac_s2, WLAN_DIR_DOWN, true, 42, 200, 100, 54000, -30);
	f.n_ip = 1;
	analysis_frame(a, &f, &p, 1);
	f.ts = 1.2; /* and its real retry */
	analysis_frame(a, &f, &p, 1);
	sum = summary_text(a, NULL);
	CHECK(has(sum, "\"wlan_retries\":1}") && has(sum, "\"tcp_packets\":2,"),
	      "same sequence number to another receiver: not a copy; the real retry is");
	free(sum);
	analysis_free(a);
}

/* Encrypted 802.11 data: no IP to read, but airtime to compare. */
static void test_wlan_encrypted_airtime(void)
{
	struct analysis_config cfg = {0};
	struct analysis *a = analysis_new(&cfg);
	struct frame f;
	char *sum, expect[64];

	CHECK(a != NULL, "analysis_new");
	if (!a)
		return;
	for (int i = 0; i < 4; i++) {
		f = wlan_frame(1.0 + i, 2, 8, i < 3 ? &mac_s1 : &mac_s2, &mac_ap, WLAN_DIR_UP, false,
			       (uint16_t)i, 500, 250, 54000, -50);
		f.wlan.protected_frame = true;
		analysis_frame(a, &f, NULL, 0);
	}
	f = wlan_frame(5.0, 2, 12, &mac_s2, &mac_ap, WLAN_DIR_UP, false, 9, 40, 50, 54000, -50); /* QoS Null */
	analysis_frame(a, &f, NULL, 0);
	sum = summary_text(a, NULL);
	snprintf(expect, sizeof(expect), "\"jain_airtime\":%.10g,", tcpav_jain((const double[]){750, 300}, 2));
	CHECK(has(sum, expect) && has(sum, "\"jain_goodput\":null,") && has(sum, "\"active_stations\":0,"),
	      "airtime fairness over stations sending encrypted data (%s); goodput unknown", expect);
	CHECK(has(sum, "\"mac_payload_frames\":3,") && has(sum, "\"mac_payload_frames\":1,"),
	      "data frames with a body; the QoS Null is not one");
	free(sum);
	analysis_free(a);
}

/* ---- Ethernet and raw IP stations ---- */

static void test_wired_stations(void)
{
	struct analysis_config cfg = {0};
	struct analysis *a = analysis_new(&cfg);
	struct ip_packet p = tcp_segment(0, 0, 1, 1, ACK, 500, 100);
	struct frame f = raw_frame(1.0, 154);
	char *sum;

	CHECK(a != NULL, "analysis_new");
	if (!a)
		return;
	f.dlt = 1;
	f.has_mac = true;
	f.src_mac = mac_s1;
	f.dst_mac = mac_s2;
	analysis_frame(a, &f, &p, 1);
	f.dst_mac = mac_bcast;
	f.ts = 1.5;
	analysis_frame(a, &f, NULL, 0);
	sum = summary_text(a, NULL);
	CHECK(has(sum, "\"mac\":\"02:00:00:00:00:01\",\"role\":\"station\"") &&
	      has(sum, "\"tx_frames\":2,\"rx_frames\":0,\"tx_bytes\":308,"),
	      "Ethernet: frames are the source's tx");
	CHECK(has(sum, "\"tx_frames\":0,\"rx_frames\":1,\"tx_bytes\":0,\"rx_bytes\":154,"),
	      "and the unicast destination's rx (broadcast: nobody's)");
	free(sum);
	analysis_free(a);

	a = analysis_new(&cfg);
	CHECK(a != NULL, "analysis_new");
	if (!a)
		return;
	f = raw_frame(1.0, 140);
	analysis_frame(a, &f, &p, 1);
	sum = summary_text(a, NULL);
	CHECK(has(sum, "\"addr\":\"10.0.0.1\",\"role\":\"station\"") && has(sum, "\"addr\":\"10.0.0.2\""),
	      "no MAC: stations by IP address");
	CHECK(has(sum, "\"tx_goodput_bytes\":100,") && has(sum, "\"rx_goodput_bytes\":100,"),
	      "goodput for the sender's tx and the receiver's rx");
	free(sum);
	analysis_free(a);
}

/* ---- Linux cooked captures: copies of one packet ---- */

static size_t ipv4_tcp_bytes(uint8_t *b, uint16_t id, uint8_t ttl, uint32_t ack, size_t padding)
{
	memset(b, 0, 40 + padding);
	b[0] = 0x45;
	b[2] = 0;
	b[3] = 40;
	b[4] = (uint8_t)(id >> 8);
	b[5] = (uint8_t)id;
	b[8] = ttl;
	b[9] = 6;
	b[10] = ttl; /* a checksum that differs with the TTL, as a router's would */
	memcpy(b + 12, ip4_a, 4);
	memcpy(b + 16, ip4_b, 4);
	b[20] = 40000 >> 8; /* source port */
	b[21] = 40000 & 0xff;
	b[23] = 80;
	b[27] = 1; /* seq */
	for (int i = 0; i < 4; i++)
		b[28 + i] = (uint8_t)(ack >> (24 - 8 * i));
	b[32] = 0x50; /* data offset: 20 bytes */
	b[33] = ACK;
	b[34] = 500 >> 8; /* window */
	b[35] = 500 & 0xff;
	return 40 + padding;
}

/* Where a cooked capture saw a frame: SLL2's interface (-1 in SLL), the
 * packet type (0 HOST, 3 OTHERHOST, 4 OUTGOING) and the last byte of the
 * link-layer source address. */
struct link_point {
	int ifindex, pkttype;
	uint8_t mac;
};

static void cooked_frame(struct analysis *a, struct link_point at, double ts, uint16_t id, uint8_t ttl, size_t padding,
			 uint32_t ack)
{
	static uint8_t bytes[64];
	struct ip_packet p = tcp_segment(0, 0, 1, ack, ACK, 500, 0);
	struct frame f = raw_frame(ts, (at.ifindex < 0 ? 16 : 20) + 40 + (uint32_t)padding);

	f.dlt = at.ifindex < 0 ? 113 : 276;
	f.sll_pkttype = at.pkttype;
	f.ifindex = at.ifindex;
	f.src_mac = (struct mac_addr){{0x02, 0, 0, 0, 0, at.mac}};
	f.n_ip = 1;
	f.ip[0].ethertype = 0x0800;
	f.ip[0].data = bytes;
	f.ip[0].caplen = f.ip[0].wirelen = ipv4_tcp_bytes(bytes, id, ttl, ack, padding);
	analysis_frame(a, &f, &p, 1);
}

/* link copies removed and packets analysed */
static void check_copies(struct analysis *a, int copies, int packets, int dup_acks, const char *what)
{
	char want_copies[80], want_packets[40], want_dups[40], *sum = summary_text(a, NULL);

	snprintf(want_copies, sizeof(want_copies), "\"duplicates_removed\":{\"link_copies\":%d,", copies);
	snprintf(want_packets, sizeof(want_packets), "\"packets\":%d,", packets);
	snprintf(want_dups, sizeof(want_dups), "\"dup_acks\":%d,", dup_acks);
	CHECK(has(sum, want_copies) && has(sum, want_packets) && has(sum, want_dups), "%s", what);
	free(sum);
}

static void test_link_copies(void)
{
	/* a router seen with "-i any" on SLL: in from the previous hop (HOST,
	 * its MAC 01), out (OUTGOING, the router's MAC fe), and, the
	 * interfaces being promiscuous, once more on each as OTHERHOST */
	const struct link_point in = {-1, 0, 0x01}, out = {-1, 4, 0xfe}, other_out = {-1, 3, 0xfe},
				other_in = {-1, 3, 0x01};
	struct analysis_config cfg = {0};
	struct analysis *a = analysis_new(&cfg);
	char *sum;

	CHECK(a != NULL, "analysis_new");
	if (!a)
		return;
	cooked_frame(a, in, 1.0, 7, 64, 0, 100);
	cooked_frame(a, out, 1.0004, 7, 63, 6, 100);       /* forwarded: TTL, checksum, padding differ */
	cooked_frame(a, other_out, 1.0006, 7, 63, 0, 100); /* another packet type */
	cooked_frame(a, other_in, 1.0008, 7, 64, 0, 100);  /* OTHERHOST again, from another MAC */
	cooked_frame(a, in, 1.0009, 8, 64, 0, 100);        /* another packet (IP id 8), same TCP header */
	cooked_frame(a, in, 1.5, 7, 64, 0, 100);           /* the first again, 0.5 s later: not a copy */
	check_copies(a, 3, 3, 2,
		     "3 copies removed within 1 ms, each at another link point; same TCP header with another IP id "
		     "is another packet; 3 packets analysed, 2 of them duplicate ACKs");
	sum = summary_text(a, NULL);
	CHECK(has(sum, "\"addr\":\"10.0.0.1\",\"role\":\"station\"") && has(sum, "\"tx_frames\":3,"),
	      "cooked captures: stations by IP, copies not counted");
	free(sum);
	analysis_free(a);

	/* SLL2: the same packet type and MAC on another interface (a bridge
	 * port, then the bridge) is a copy */
	a = analysis_new(&cfg);
	CHECK(a != NULL, "analysis_new");
	if (!a)
		return;
	cooked_frame(a, (struct link_point){2, 0, 0x01}, 1.0, 7, 64, 0, 100);
	cooked_frame(a, (struct link_point){3, 0, 0x01}, 1.0001, 7, 64, 0, 100);
	cooked_frame(a, (struct link_point){3, 4, 0x01}, 1.0002, 7, 64, 0, 100);
	check_copies(a, 2, 1, 0, "SLL2: another ifindex or another packet type at the same interface is a copy");
	analysis_free(a);
}

/* TCP sending the same bytes again less than 1 ms later (a SYN/ACK and ACK
 * answering a SYN and its retransmission) leaves at the same link point:
 * tshark analyses the repeat, and so does avmon. */
static void test_link_repeats(void)
{
	const struct link_point in = {-1, 0, 0x01}, out = {-1, 4, 0xfe};
	struct analysis_config cfg = {0};
	struct analysis *a = analysis_new(&cfg);

	CHECK(a != NULL, "analysis_new");
	if (!a)
		return;
	cooked_frame(a, out, 1.0, 7, 64, 0, 100);
	cooked_frame(a, out, 1.00004, 7, 64, 0, 100);
	check_copies(a, 0, 2, 1, "SLL: the same packet again at the same packet type and MAC, 40 us later, is analysed");
	analysis_free(a);

	/* at a router: the repeat comes in where the packet came in; its
	 * forwarded copy is still a copy */
	a = analysis_new(&cfg);
	CHECK(a != NULL, "analysis_new");
	if (!a)
		return;
	cooked_frame(a, in, 1.0, 7, 64, 0, 100);
	cooked_frame(a, out, 1.00002, 7, 63, 0, 100);
	cooked_frame(a, in, 1.00004, 7, 64, 0, 100);
	cooked_frame(a, out, 1.00006, 7, 63, 0, 100);
	check_copies(a, 2, 2, 1, "a repeat at the point of the first sighting is analysed, its forwarded copy removed");
	analysis_free(a);

	a = analysis_new(&cfg);
	CHECK(a != NULL, "analysis_new");
	if (!a)
		return;
	cooked_frame(a, (struct link_point){2, 4, 0x01}, 1.0, 7, 64, 0, 100);
	cooked_frame(a, (struct link_point){2, 4, 0x01}, 1.00004, 7, 64, 0, 100);
	check_copies(a, 0, 2, 1, "SLL2: the same ifindex, packet type and MAC again is analysed");
	analysis_free(a);
}

/* ---- targets ---- */

static void test_target_parse(void)
{
	struct analysis_target t;
	char err[200];

	CHECK(analysis_target_parse("10.0.0.2:5201=8M", &t, err, sizeof(err)) == 0 && t.family == 4 &&
	      t.addr[3] == 2 && t.port == 5201 && t.rate_bps == 8000000, "IPv4:PORT=8M");
	CHECK(analysis_target_parse("10.0.0.2=500k", &t, err, sizeof(err)) == 0 && t.port == 0 && t.rate_bps == 500000,
	      "IPv4 without port: any port");
	CHECK(analysis_target_parse("[2001:db8::2]:80=1.5G", &t, err, sizeof(err)) == 0 && t.family == 6 &&
	      t.addr[15] == 2 && t.port == 80 && t.rate_bps == 1500000000, "[IPv6]:PORT=1.5G");
	CHECK(analysis_target_parse("2001:db8::2=8M", &t, err, sizeof(err)) == 0 && t.family == 6 && t.port == 0,
	      "bare IPv6 without port");
	CHECK(analysis_target_parse("[2001:db8::2]=8M", &t, err, sizeof(err)) == 0 && t.port == 0, "[IPv6]=RATE");
	t.rate_bps = 42;
	CHECK(analysis_target_parse("10.0.0.2:5201", &t, err, sizeof(err)) == -1 && has(err, "no '=RATE'") &&
	      !strchr(err, '\n') && t.rate_bps == 42, "no rate: one-line reason, target untouched: %s", err);
	CHECK(analysis_target_parse("10.0.0.2:5201=fast", &t, err, sizeof(err)) == -1 && has(err, "rate"),
	      "bad rate: %s", err);
	CHECK(analysis_target_parse("10.0.0.2:5201=0", &t, err, sizeof(err)) == -1, "zero rate refused");
	CHECK(analysis_target_parse("10.0.0.2:70000=8M", &t, err, sizeof(err)) == -1 && has(err, "port"),
	      "bad port: %s", err);
	CHECK(analysis_target_parse("10.0.0.2:0=8M", &t, err, sizeof(err)) == -1, "port 0 refused (omit it for any)");
	CHECK(analysis_target_parse("host.example:80=8M", &t, err, sizeof(err)) == -1 && has(err, "address"),
	      "names are not addresses: %s", err);
	CHECK(analysis_target_parse("[2001:db8::2:80=8M", &t, err, sizeof(err)) == -1, "unclosed bracket refused");
	CHECK(analysis_target_parse("[2001:db8::2]x=8M", &t, err, sizeof(err)) == -1, "junk after ']' refused");
}

/* A bulk download from B:80 to A: 1000 segments of 1000 bytes in exactly
 * 1 s, so its goodput is 8 Mbit/s. */
static void bulk_download(struct analysis *a, double t0)
{
	struct ip_packet p = tcp_segment(0, 0, 1, 0, SYN, 64240, 0);
	struct frame f = raw_frame(t0, 60);

	analysis_frame(a, &f, &p, 1);
	for (int i = 0; i < 1000; i++) {
		p = tcp_segment(0, 1, 1 + 1000u * (uint32_t)i, 2, ACK, 500, 1000);
		f = raw_frame(t0 + 0.001 * (i + 1), 1040);
		analysis_frame(a, &f, &p, 1);
	}
}

static void test_targets_avr(void)
{
	struct analysis_target target;
	struct analysis_config cfg = {.capacity_bps = 25e6, .targets = &target, .n_targets = 1};
	struct analysis *a;
	char err[200], *sum;

	CHECK(analysis_target_parse("10.0.0.2:80=8M", &target, err, sizeof(err)) == 0, "target parsed");
	a = analysis_new(&cfg);
	CHECK(a != NULL, "analysis_new");
	if (!a)
		return;
	bulk_download(a, 0.0);
	sum = summary_text(a, NULL);
	CHECK(has(sum, "\"capacity_bps\":25000000,\"capacity_source\":\"given\""), "capacity given");
	CHECK(has(sum, "\"goodput_bps\":8000000,\"target_bps\":8000000,\"avr\":1,\"nrt\":0.32}"),
	      "AVR = goodput / target = 1, NRT = 8 / 25 = 0.32: ratios (metrics.h)");
	free(sum);
	analysis_free(a);

	target.port = 443; /* no longer matches */
	a = analysis_new(&cfg);
	CHECK(a != NULL, "analysis_new");
	if (!a)
		return;
	bulk_download(a, 0.0);
	sum = summary_text(a, NULL);
	CHECK(sum && !has(sum, "\"avr\""), "no matching target: no AVR");
	free(sum);
	analysis_free(a);
}

/* ---- capacity estimate ---- */

static void test_capacity_estimate(void)
{
	struct analysis_config cfg = {0};
	struct analysis *a = analysis_new(&cfg);
	static const uint32_t per_second[] = {100000, 300000, 200000};
	char *sum;

	CHECK(a != NULL, "analysis_new");
	if (!a)
		return;
	for (int sec = 0; sec < 3; sec++) {
		for (int i = 0; i < 10; i++) {
			struct ip_packet p = udp_packet(ip4_a, 1000, ip4_b, 2000, per_second[sec] / 10);
			struct frame f = raw_frame(100.0 + sec + i * 0.05, 1000);

			analysis_frame(a, &f, &p, 1);
		}
	}
	{
		struct ip_packet p = udp_packet(ip4_a, 1000, ip4_b, 2000, 10);
		struct frame f = raw_frame(103.5, 100);

		analysis_frame(a, &f, &p, 1);
	}
	sum = summary_text(a, NULL);
	CHECK(has(sum, "\"capacity_bps\":2400000,\"capacity_source\":\"estimated-unsaturated\""),
	      "no saturated second: EB is the best 1 s of aggregate goodput (300 kB = 2.4 Mbit/s), a lower bound");
	CHECK(has(sum, "\"proto\":\"udp\"") && has(sum, "\"goodput_bytes\":600010,"), "UDP goodput = payload");
	free(sum);
	analysis_free(a);
}

/* A second in which TCP retransmits is saturated; a busier second without
 * any sign of a full bottleneck does not set EB. */
static void test_capacity_saturated_tcp(void)
{
	struct analysis_config cfg = {0};
	struct analysis *a = analysis_new(&cfg);
	struct ip_packet p;
	struct frame f;
	char *sum;

	CHECK(a != NULL, "analysis_new");
	if (!a)
		return;
	for (int i = 0; i < 10; i++) { /* second 0: 300 kB of UDP, no loss */
		p = udp_packet(ip4_a, 1000, ip4_b, 2000, 30000);
		f = raw_frame(100.0 + i * 0.05, 1000);
		analysis_frame(a, &f, &p, 1);
	}
	for (int i = 0; i < 200; i++) { /* second 1: 200 kB of TCP, one retransmission */
		p = tcp_segment(0, 1, 1 + 1000u * (uint32_t)i, 2, ACK, 500, 1000);
		f = raw_frame(101.0 + 0.004 * i, 1040);
		analysis_frame(a, &f, &p, 1);
	}
	p = tcp_segment(0, 1, 1 + 1000u * 150, 2, ACK, 500, 1000);
	f = raw_frame(101.9, 1040);
	analysis_frame(a, &f, &p, 1);
	p = udp_packet(ip4_a, 1000, ip4_b, 2000, 10); /* closes second 1 */
	f = raw_frame(102.5, 100);
	analysis_frame(a, &f, &p, 1);
	sum = summary_text(a, NULL);
	CHECK(sum && has(sum, "\"capacity_bps\":1600000,\"capacity_source\":\"estimated\""),
	      "EB from the saturated second only: 200 kB = 1.6 Mbit/s (the 2.4 Mbit/s second showed no loss)");
	free(sum);
	analysis_free(a);
}

/* 802.11: a second whose frames fill >= 90 % of it is saturated. */
static void test_capacity_saturated_airtime(void)
{
	struct analysis_config cfg = {0};
	struct analysis *a = analysis_new(&cfg);
	struct ip_packet p;
	struct frame f;
	char *sum;

	CHECK(a != NULL, "analysis_new");
	if (!a)
		return;
	for (int i = 0; i < 10; i++) { /* second 0: 10 x 95 ms of airtime, 100 kB */
		p = udp_packet(ip4_a, 1000, ip4_b, 2000, 10000);
		f = wlan_frame(200.0 + i * 0.1, 2, 8, &mac_s1, &mac_ap, WLAN_DIR_UP, false, (uint16_t)i, 1100, 95000,
			       6000, -60);
		f.n_ip = 1;
		analysis_frame(a, &f, &p, 1);
	}
	for (int i = 0; i < 10; i++) { /* second 1: 10 x 2 ms, 300 kB */
		p = udp_packet(ip4_a, 1000, ip4_b, 2000, 30000);
		f = wlan_frame(201.0 + i * 0.1, 2, 8, &mac_s1, &mac_ap, WLAN_DIR_UP, false, (uint16_t)(20 + i), 1100,
			       2000, 54000, -60);
		f.n_ip = 1;
		analysis_frame(a, &f, &p, 1);
	}
	f = wlan_frame(202.5, 0, 8, &mac_ap, &mac_bcast, WLAN_DIR_NONE, false, 1, 200, 1000, 1000, -30);
	analysis_frame(a, &f, NULL, 0);
	sum = summary_text(a, NULL);
	CHECK(sum && has(sum, "\"capacity_bps\":800000,\"capacity_source\":\"estimated\""),
	      "EB from the second whose airtime was 95 %%: 100 kB = 0.8 Mbit/s");
	free(sum);
	analysis_free(a);
}

/* ---- intervals ---- */

static void test_intervals(void)
{
	struct analysis_config cfg = {.interval_s = 1.0, .capacity_bps = 10e6};
	struct analysis *a = analysis_new(&cfg);
	static const double times[] = {10.0, 10.5, 11.2, 13.7};
	char *text = NULL, *csv = NULL;
	size_t len = 0, csv_len = 0;
	FILE *out, *csv_out;
	int emitted = 0;

	CHECK(a != NULL, "analysis_new");
	if (!a)
		return;
	CHECK(isinf(analysis_interval_end(a)), "no interval before the first frame");
	out = open_memstream(&text, &len);
	csv_out = open_memstream(&csv, &csv_len);
	CHECK(out && csv_out, "open_memstream");
	if (!out || !csv_out)
		return;
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		struct ip_packet p = udp_packet(ip4_a, 1000, ip4_b, 2000, 1000);
		struct frame f = raw_frame(times[i], 1100);

		while (times[i] >= analysis_interval_end(a)) {
			double end = analysis_interval_end(a);

			if (emitted % 2)
				analysis_interval_csv(a, end, csv_out);
			else
				analysis_interval_json(a, end, out);
			emitted++;
		}
		analysis_frame(a, &f, &p, 1);
	}
	analysis_interval_json(a, 14.0, out);
	fclose(out);
	fclose(csv_out);
	CHECK(emitted == 3, "intervals [10,11) [11,12) [12,13) closed by later frames (%d)", emitted);
	CHECK(json_lines_valid(text) == 3, "JSON intervals: one valid object per line");
	CHECK(has(text, "{\"type\":\"interval\",\"t_start\":10.000000,\"t_end\":11.000000,"), "first interval times");
	CHECK(has(text, "\"goodput_bytes\":2000,\"goodput_bps\":16000}"), "first interval: 2 x 1000 bytes in 1 s");
	CHECK(has(text, "\"t_start\":12.000000,\"t_end\":13.000000,\"capacity_bps\":10000000,\"capacity_source\":"
			"\"given\",\"fairness\":{\"jain_goodput\":null,"),
	      "an idle interval: no active station, Jain undefined (null)");
	CHECK(has(text, "\"t_start\":13.000000,\"t_end\":14.000000,") && has(text, "\"goodput_bytes\":1000,"),
	      "the last interval holds only its own frame (counters were reset)");
	{
		int lines = 0, bad = 0;
		bool header_first = false;

		for (char *line = strtok(csv, "\n"); line; line = strtok(NULL, "\n")) {
			int fields = 1;

			for (char *c = line; *c; c++)
				fields += *c == ',';
			lines++;
			bad += fields != 24;
			if (lines == 1)
				header_first = strncmp(line, "interval_start,interval_end,kind,", 33) == 0;
		}
		CHECK(header_first, "CSV header first");
		CHECK(lines == 1 + 1 + 2 + 1 && bad == 0,
		      "CSV: header, flow, 2 stations, fairness; 24 fields each (%d lines, %d bad)", lines, bad);
	}
	free(text);
	free(csv);
	analysis_free(a);
}

/* ---- the summary as a whole ---- */

static void test_summary_json(void)
{
	struct analysis_config cfg = {.max_flows = 2, .max_stations = 2};
	struct analysis *a = analysis_new(&cfg);
	struct capture_info ci = {.dlt = 101, .link_name = "RAW \"ip\"\\\n\x01", .packets = 5, .bytes = 500,
				  .first_ts = 1.0, .last_ts = 3.5};
	char *sum, expect[96];

	CHECK(a != NULL, "analysis_new");
	if (!a)
		return;
	ci.malformed[MAL_TRUNCATED] = 3;
	for (int i = 0; i < 4; i++) {
		uint8_t dst[4] = {10, 0, 1, (uint8_t)i};
		struct ip_packet p = udp_packet(ip4_a, 1000, dst, 53, 20);
		struct frame f = raw_frame(1.0 + i, 62);

		analysis_frame(a, &f, &p, 1);
	}
	{
		struct ip_packet icmp = udp_packet(ip4_a, 0, ip4_b, 0, 0);
		struct frame f = raw_frame(3.5, 62);

		icmp.proto = 1;
		analysis_frame(a, &f, &icmp, 1);
	}
	sum = summary_text(a, &ci);
	CHECK(sum && json_lines_valid(sum) == 1, "summary: one line of valid JSON");
	CHECK(has(sum, "{\"type\":\"summary\",\"capture\":{\"link_type\":\"RAW \\\"ip\\\"\\\\\\n\\u0001\","),
	      "strings escaped (quote, backslash, newline, control character)");
	CHECK(has(sum, "\"packets\":5,\"bytes\":500,\"first_ts\":1.000000,\"last_ts\":3.500000,\"duration_s\":2.500000"),
	      "capture section from capture_info");
	snprintf(expect, sizeof(expect), "\"malformed\":{\"%s\":3,", malformed_reason_name(MAL_TRUNCATED));
	CHECK(has(sum, expect), "malformed counts by reason name");
	CHECK(has(sum, "\"analysis\":{\"frames\":5,\"bytes\":310,\"ip_packets\":5,\"tcp_packets\":0,"
		       "\"udp_packets\":4,\"other_packets\":1}"),
	      "packets by protocol; ICMP makes no flow");
	CHECK(has(sum, "\"evictions\":{\"flows\":2,\"stations\":4}"), "LRU evictions counted: 4 flows in 2 slots, "
	      "6 stations in 2");
	CHECK(has(sum, "\"src\":\"10.0.0.1:1000\",\"dst\":\"10.0.1.3:53\"") && !has(sum, "10.0.1.0:53"),
	      "the newest flows stay, the oldest went");
	CHECK(has(sum, "\"rtt_ms\"") == 0, "UDP flows carry no TCP fields");
	free(sum);
	analysis_free(a);

	cfg.max_stations = 1;
	CHECK(analysis_new(&cfg) == NULL, "a station table of 1 is refused (a frame holds two stations)");
	cfg.max_stations = 0;
	cfg.capacity_bps = -1.0;
	CHECK(analysis_new(&cfg) == NULL, "a negative capacity is refused");
}

int main(void)
{
	test_tcp_bulk();
	test_tcp_ipv6_wrap();
	test_tcp_reorder_client();
	test_tcp_reorder_server_and_edges();
	test_ack_clock_and_quantiles();
	test_ts_rtt_long_path();
	test_lru();
	test_wlan_stations();
	test_wlan_retry_per_receiver();
	test_wlan_encrypted_airtime();
	test_wired_stations();
	test_link_copies();
	test_link_repeats();
	test_target_parse();
	test_targets_avr();
	test_capacity_estimate();
	test_capacity_saturated_tcp();
	test_capacity_saturated_airtime();
	test_intervals();
	test_summary_json();
	return check_done();
}
