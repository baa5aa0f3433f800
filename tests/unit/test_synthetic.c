// SPDX-License-Identifier: GPL-2.0
/*
 * test_synthetic.c - avmon end to end on captures the test writes itself.
 *
 * Each scenario builds its frames byte by byte (Ethernet with 0, 1 or 2
 * VLAN tags, IPv4/IPv6, TCP with SACK options; radiotap + 802.11 with
 * LLC/SNAP), writes them with libpcap's dump API to a temporary pcap file,
 * reads the file back through the real path (capture_open/capture_run ->
 * frame_decode/ip_decode -> analysis_frame -> analysis_summary_json), parses
 * the JSON summary and checks every counter against what was constructed.
 * When the avmon binary is there ($AVMON; else BUILD/bin/avmon when this
 * test runs as BUILD/tests/test_synthetic; else build/bin/avmon) the same
 * file also goes through `avmon -r FILE --interval 0 --format json` and its
 * flows and stations must equal the library's. AVMON_SYNTH_KEEP=DIR keeps
 * the captures in DIR (for tshark or tcpdump).
 *
 * Expected TCP counters are derived from the segment table: every segment
 * carries the events it was built to cause (a fast retransmission after 3
 * duplicate ACKs, an RTO retransmission, a spurious one answered by a
 * D-SACK, a reordered pair, zero-window advertisements and the window
 * update), and the totals are summed from those marks, so the table is the
 * single statement of intent. 802.11 airtime is recomputed here from IEEE
 * 802.11-2016 (17.4.3 OFDM, 16.3.4 DSSS, 19.4.3 HT, 21.4.3 VHT TXTIME; SIFS
 * and the ACK at the highest basic rate not above the frame's, 10.7.6.5),
 * independently of monitor/airtime.c.
 *
 * Build (after `make all`):
 *   cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -DHAVE_DECODE -Imonitor -Iinclude -Itests/unit \
 *      tests/unit/test_synthetic.c build/libavmon.a build/libtcpav.a -lpcap -lbpf -lelf -lz -lm
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "analysis.h"
#include "capture.h"
#include "check.h"
#include "frame_builder.h"
#include "radiotap_builder.h"
#include "decode.h"
#include "packet.h"

/* ======================================================================
 * A small JSON reader: enough to walk avmon's summary.
 * ==================================================================== */

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jv {
	enum jtype t;
	char *s;            /* J_STR: the string; J_NUM/J_BOOL: the literal */
	size_t n;           /* J_ARR/J_OBJ: members */
	char **keys;        /* J_OBJ */
	struct jv **items;  /* J_ARR/J_OBJ */
};

static void jfree(struct jv *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++) {
		if (v->keys)
			free(v->keys[i]);
		jfree(v->items[i]);
	}
	free(v->keys);
	free(v->items);
	free(v->s);
	free(v);
}

static const char *jws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

static char *jstring(const char **pp)
{
	const char *p = *pp;
	size_t cap = 16, n = 0;
	char *out;

	if (*p != '"')
		return NULL;
	p++;
	out = malloc(cap);
	if (!out)
		return NULL;
	while (*p && *p != '"') {
		char c = *p++;

		if (c == '\\') {
			c = *p++;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'u': {
				unsigned v = 0;

				for (int i = 0; i < 4 && *p; i++, p++)
					v = v * 16 + (unsigned)(*p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10);
				c = (char)(v < 0x80 ? v : '?');
				break;
			}
			case '\0':
				free(out);
				return NULL;
			default: break; /* " \ / */
			}
		}
		if (n + 2 > cap) {
			char *grown = realloc(out, cap *= 2);

			if (!grown) {
				free(out);
				return NULL;
			}
			out = grown;
		}
		out[n++] = c;
	}
	if (*p != '"') {
		free(out);
		return NULL;
	}
	out[n] = '\0';
	*pp = p + 1;
	return out;
}

static bool jappend(struct jv *v, char *key, struct jv *item)
{
	struct jv **items = realloc(v->items, (v->n + 1) * sizeof(*items));

	if (!items)
		return false;
	v->items = items;
	if (v->t == J_OBJ) {
		char **keys = realloc(v->keys, (v->n + 1) * sizeof(*keys));

		if (!keys)
			return false;
		v->keys = keys;
		v->keys[v->n] = key;
	}
	v->items[v->n++] = item;
	return true;
}

static struct jv *jparse_value(const char **pp, int depth)
{
	const char *p = jws(*pp);
	struct jv *v;

	if (depth > 64)
		return NULL;
	v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';

		v->t = *p == '{' ? J_OBJ : J_ARR;
		p = jws(p + 1);
		if (*p == close) {
			*pp = p + 1;
			return v;
		}
		for (;;) {
			char *key = NULL;
			struct jv *item;

			if (v->t == J_OBJ) {
				p = jws(p);
				key = jstring(&p);
				p = key ? jws(p) : p;
				if (!key || *p++ != ':') {
					free(key);
					goto fail;
				}
			}
			item = jparse_value(&p, depth + 1);
			if (!item || !jappend(v, key, item)) {
				free(key);
				jfree(item);
				goto fail;
			}
			p = jws(p);
			if (*p == ',') {
				p++;
				continue;
			}
			if (*p != close)
				goto fail;
			*pp = p + 1;
			return v;
		}
	}
	if (*p == '"') {
		v->t = J_STR;
		v->s = jstring(&p);
		if (!v->s)
			goto fail;
		*pp = p;
		return v;
	}
	if (strncmp(p, "null", 4) == 0) {
		v->t = J_NULL;
		*pp = p + 4;
		return v;
	}
	if (strncmp(p, "true", 4) == 0 || strncmp(p, "false", 5) == 0) {
		size_t n = *p == 't' ? 4 : 5;

		v->t = J_BOOL;
		v->s = strndup(p, n);
		*pp = p + n;
		return v->s ? v : (jfree(v), NULL);
	}
	{
		const char *start = p;

		if (*p == '-')
			p++;
		while ((*p >= '0' && *p <= '9') || *p == '.' || *p == 'e' || *p == 'E' || *p == '+' || *p == '-')
			p++;
		if (p == start)
			goto fail;
		v->t = J_NUM;
		v->s = strndup(start, (size_t)(p - start));
		if (!v->s)
			goto fail;
		*pp = p;
		return v;
	}
fail:
	jfree(v);
	return NULL;
}

static struct jv *jparse(const char *text)
{
	const char *p = text;
	struct jv *v = jparse_value(&p, 0);

	if (v && *jws(p) != '\0') {
		jfree(v);
		return NULL;
	}
	return v;
}

static const struct jv *jget(const struct jv *o, const char *key)
{
	if (!o || o->t != J_OBJ)
		return NULL;
	for (size_t i = 0; i < o->n; i++)
		if (strcmp(o->keys[i], key) == 0)
			return o->items[i];
	return NULL;
}

/* "a.b.c" */
static const struct jv *jpath(const struct jv *o, const char *path)
{
	char buf[256], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok && o; tok = strtok_r(NULL, ".", &save))
		o = jget(o, tok);
	return o;
}

/* The element of array a whose member key is the string value. */
static const struct jv *jfind(const struct jv *a, const char *key, const char *value)
{
	if (!a || a->t != J_ARR)
		return NULL;
	for (size_t i = 0; i < a->n; i++) {
		const struct jv *k = jget(a->items[i], key);

		if (k && k->t == J_STR && strcmp(k->s, value) == 0)
			return a->items[i];
	}
	return NULL;
}

static bool jequal(const struct jv *a, const struct jv *b)
{
	if (!a || !b || a->t != b->t || a->n != b->n)
		return a == b;
	if ((a->s || b->s) && (!a->s || !b->s || strcmp(a->s, b->s) != 0))
		return false;
	for (size_t i = 0; i < a->n; i++) {
		if (a->t == J_OBJ && strcmp(a->keys[i], b->keys[i]) != 0)
			return false;
		if (!jequal(a->items[i], b->items[i]))
			return false;
	}
	return true;
}

/* ---- checks on the summary ---- */

static char check_scope[96]; /* scenario name, prefixed to every check */

static void expect_u64(const struct jv *o, const char *path, uint64_t want)
{
	const struct jv *v = jpath(o, path);
	bool ok = v && v->t == J_NUM && strspn(v->s, "0123456789") == strlen(v->s) &&
		  strtoull(v->s, NULL, 10) == want;

	CHECK(ok, "%s: %s = %" PRIu64 " (got %s)", check_scope, path, want,
	      v ? (v->t == J_NUM ? v->s : "not a number") : "missing");
}

static void expect_str(const struct jv *o, const char *path, const char *want)
{
	const struct jv *v = jpath(o, path);

	CHECK(v && v->t == J_STR && strcmp(v->s, want) == 0, "%s: %s = \"%s\" (got %s)", check_scope, path, want,
	      v && v->t == J_STR ? v->s : "missing");
}

static void expect_num(const struct jv *o, const char *path, double want, double tolerance)
{
	const struct jv *v = jpath(o, path);
	double got = v && v->t == J_NUM ? strtod(v->s, NULL) : 0.0;
	double d = got - want;

	CHECK(v && v->t == J_NUM && d <= tolerance && -d <= tolerance, "%s: %s = %g (got %s)", check_scope, path,
	      want, v && v->t == J_NUM ? v->s : "missing");
}

/* ======================================================================
 * Building frames
 * ==================================================================== */

struct endpoint {
	uint8_t family;
	uint8_t addr[16];
	uint16_t port;
};

/* One TCP segment of a scenario, and the events it is built to cause. */
enum {
	EV_RTX = 1 << 0,      /* retransmission (any kind) */
	EV_FAST = 1 << 1,     /* fast retransmission: after >= 2 dup ACKs, within 20 ms */
	EV_SPURIOUS = 1 << 2, /* retransmission of data already ACKed */
	EV_OOO = 1 << 3,      /* reordered: earlier data within one handshake RTT */
	EV_LOST = 1 << 4,     /* a gap before it (the reordered segment's partner) */
	EV_DUP = 1 << 5,      /* duplicate ACK */
	EV_ZW = 1 << 6,       /* zero window */
	EV_WU = 1 << 7,       /* window update */
	EV_DSACK = 1 << 8,    /* its first SACK block is a D-SACK */
};

struct tcp_seg {
	double t;           /* seconds from the scenario's start */
	int dir;            /* 0: A -> B, 1: B -> A */
	uint32_t seq, ack;
	uint8_t flags;
	uint16_t win;
	uint16_t len;       /* payload bytes */
	uint8_t n_sack;
	uint32_t sack[4][2];
	unsigned ev;
	bool syn_options;   /* MSS, SACK permitted, window scale, timestamps */
	uint8_t retry;      /* 802.11 only: MAC retry of the previous frame */
};

#define F_FIN 0x01
#define F_SYN 0x02
#define F_PSH 0x08
#define F_ACK 0x10

/* TCP header (+ options) and payload, checksummed over the pseudo header. */
static void build_tcp(struct pkt *p, const struct endpoint *src, const struct endpoint *dst, const struct tcp_seg *s)
{
	size_t start = p->n, opt_len = 0;
	uint8_t opts[40];
	uint32_t sum;

	if (s->syn_options) {
		static const uint8_t syn[] = { 2, 4, 0x05, 0xb4,        /* MSS 1460 */
					       4, 2,                      /* SACK permitted */
					       8, 10, 0, 0, 0, 1, 0, 0, 0, 0, /* timestamps */
					       1, 3, 3, 7 };              /* NOP, window scale 7 */

		memcpy(opts, syn, sizeof(syn));
		opt_len = sizeof(syn);
	} else if (s->n_sack) {
		opts[opt_len++] = 1;
		opts[opt_len++] = 1;
		opts[opt_len++] = 5;
		opts[opt_len++] = (uint8_t)(2 + 8 * s->n_sack);
		for (unsigned i = 0; i < s->n_sack; i++)
			for (unsigned k = 0; k < 2; k++) {
				uint32_t v = s->sack[i][k];

				opts[opt_len++] = (uint8_t)(v >> 24);
				opts[opt_len++] = (uint8_t)(v >> 16);
				opts[opt_len++] = (uint8_t)(v >> 8);
				opts[opt_len++] = (uint8_t)v;
			}
	}
	put_be16(p, src->port);
	put_be16(p, dst->port);
	put_be32(p, s->seq);
	put_be32(p, s->ack);
	put_be16(p, (uint16_t)(((20 + opt_len) / 4) << 12 | s->flags));
	put_be16(p, s->win);
	put_be16(p, 0); /* checksum, below */
	put_be16(p, 0);
	put(p, opts, opt_len);
	for (unsigned i = 0; i < s->len; i++)
		put_u8(p, (uint8_t)(s->seq + i));
	/* pseudo header: addresses, protocol, TCP length */
	sum = csum_add(0, src->addr, src->family == 6 ? 16 : 4);
	sum = csum_add(sum, dst->addr, dst->family == 6 ? 16 : 4);
	sum += 6 + (uint32_t)(p->n - start);
	sum = csum_add(sum, p->b + start, p->n - start);
	set_be16(p, start + 16, csum_fold(sum));
}

static uint16_t ip_id;

/* IPv4 or IPv6 header in front of the TCP segment built by build_tcp(). */
static void build_ip_tcp(struct pkt *p, const struct endpoint *src, const struct endpoint *dst, const struct tcp_seg *s)
{
	size_t start = p->n;

	if (src->family == 4) {
		put_u8(p, 0x45);
		put_u8(p, 0);
		put_be16(p, 0); /* total length, below */
		put_be16(p, ++ip_id);
		put_be16(p, 0x4000); /* DF */
		put_u8(p, 64);
		put_u8(p, 6);
		put_be16(p, 0);
		put(p, src->addr, 4);
		put(p, dst->addr, 4);
		build_tcp(p, src, dst, s);
		set_be16(p, start + 2, (uint16_t)(p->n - start));
		set_be16(p, start + 10, csum_fold(csum_add(0, p->b + start, 20)));
	} else {
		put_be32(p, 0x60000000);
		put_be16(p, 0); /* payload length, below */
		put_u8(p, 6);
		put_u8(p, 64);
		put(p, src->addr, 16);
		put(p, dst->addr, 16);
		build_tcp(p, src, dst, s);
		set_be16(p, start + 4, (uint16_t)(p->n - start - 40));
	}
}

/* ======================================================================
 * Writing a capture and reading it back
 * ==================================================================== */

#define MAX_FRAMES 128
#define TS_BASE 1700000000.0

struct capture_file {
	int dlt;
	size_t n;
	double ts[MAX_FRAMES];
	struct pkt frame[MAX_FRAMES];
};

static void cf_add(struct capture_file *cf, double t, const struct pkt *p)
{
	if (cf->n < MAX_FRAMES) {
		cf->ts[cf->n] = t;
		cf->frame[cf->n++] = *p;
	}
}

static bool cf_write(const struct capture_file *cf, const char *path)
{
	pcap_t *dead = pcap_open_dead_with_tstamp_precision(cf->dlt, 65535, PCAP_TSTAMP_PRECISION_MICRO);
	pcap_dumper_t *d;

	if (!dead)
		return false;
	d = pcap_dump_open(dead, path);
	if (!d) {
		fprintf(stderr, "pcap_dump_open %s: %s\n", path, pcap_geterr(dead));
		pcap_close(dead);
		return false;
	}
	for (size_t i = 0; i < cf->n; i++) {
		struct pcap_pkthdr h;
		double t = cf->ts[i];
		long long us = (long long)(t * 1e6 + 0.5);

		memset(&h, 0, sizeof(h));
		h.ts.tv_sec = (time_t)(TS_BASE + (double)(us / 1000000));
		h.ts.tv_usec = (suseconds_t)(us % 1000000);
		h.caplen = h.len = (bpf_u_int32)cf->frame[i].n;
		pcap_dump((u_char *)d, &h, cf->frame[i].b);
	}
	pcap_dump_close(d);
	pcap_close(dead);
	return true;
}

static void on_frame(void *ctx, const struct frame *f, const struct ip_packet *pkts, unsigned n_pkts)
{
	analysis_frame(ctx, f, pkts, n_pkts);
}

/* The summary of an avmon run over the file at `path`, through the linked
 * library; NULL (and a failed check) on error. */
static struct jv *summary_lib(const char *path)
{
	struct analysis_config cfg = { 0 };
	struct capture_options opt = { .file = path, .snaplen = 65535, .buffer_kib = 1024 };
	struct capture cap;
	struct analysis *a = analysis_new(&cfg);
	char *text = NULL;
	size_t len = 0;
	FILE *out;
	struct jv *v = NULL;
	int rc;

	if (!a) {
		CHECK(0, "%s: analysis_new", check_scope);
		return NULL;
	}
	if (capture_open(&cap, &opt) < 0) {
		CHECK(0, "%s: capture_open %s", check_scope, path);
		analysis_free(a);
		return NULL;
	}
	rc = capture_run(&cap, on_frame, NULL, a);
	out = open_memstream(&text, &len);
	if (out) {
		analysis_summary_json(a, &cap.info, out);
		fclose(out);
		v = text ? jparse(text) : NULL;
	}
	CHECK(rc == 0 && v, "%s: capture read back and summary parsed", check_scope);
	free(text);
	capture_close(&cap);
	analysis_free(a);
	return v;
}

/* The avmon binary: $AVMON, else BUILD/bin/avmon next to this test's
 * BUILD/tests/, else build/bin/avmon. */
static char avmon_path[1024] = "build/bin/avmon";

static void avmon_locate(const char *argv0)
{
	const char *env = getenv("AVMON");
	const char *slash = argv0 ? strrchr(argv0, '/') : NULL;

	if (env && *env) {
		snprintf(avmon_path, sizeof(avmon_path), "%s", env);
		return;
	}
	if (slash) {
		char dir[900];
		size_t n = (size_t)(slash - argv0);

		if (n >= sizeof(dir))
			return;
		memcpy(dir, argv0, n);
		dir[n] = '\0';
		/* BUILD/tests -> BUILD/bin/avmon */
		if (n >= 6 && strcmp(dir + n - 6, "/tests") == 0) {
			dir[n - 6] = '\0';
			snprintf(avmon_path, sizeof(avmon_path), "%s/bin/avmon", dir);
			if (access(avmon_path, X_OK) == 0)
				return;
		}
		snprintf(avmon_path, sizeof(avmon_path), "build/bin/avmon");
	}
}

/* The same through the avmon binary; NULL when it is not there (*ran
 * false) or when running it failed (*ran true). */
static struct jv *summary_cli(const char *path, bool *ran)
{
	const char *avmon = avmon_path;
	char cmd[2048], *line = NULL;
	size_t cap = 0;
	struct jv *v = NULL;
	FILE *in;

	*ran = false;
	if (access(avmon, X_OK) != 0)
		return NULL;
	*ran = true;
	snprintf(cmd, sizeof(cmd), "'%s' -r '%s' --interval 0 --format json", avmon, path);
	in = popen(cmd, "r");
	if (!in)
		return NULL;
	while (getline(&line, &cap, in) > 0) {
		if (strstr(line, "\"type\":\"summary\"")) {
			jfree(v);
			v = jparse(line);
		}
	}
	free(line);
	if (pclose(in) != 0) {
		jfree(v);
		return NULL;
	}
	return v;
}

static char tmp_path[256];

/* Writes cf, reads it back; the summary, to be jfree()d. */
static struct jv *run_capture(const struct capture_file *cf)
{
	struct jv *lib, *cli;
	bool ran;
	int fd;

	const char *keep = getenv("AVMON_SYNTH_KEEP"); /* a directory: keep the captures there */

	if (keep && *keep) {
		size_t n = (size_t)snprintf(tmp_path, sizeof(tmp_path), "%s/", keep);

		for (const char *c = check_scope; *c && n + 6 < sizeof(tmp_path); c++)
			tmp_path[n++] = (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ? *c : '_';
		snprintf(tmp_path + n, sizeof(tmp_path) - n, ".pcap");
	} else {
		snprintf(tmp_path, sizeof(tmp_path), "%s/avmon-synth-XXXXXX",
			 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		fd = mkstemp(tmp_path);
		if (fd < 0) {
			CHECK(0, "%s: mkstemp", check_scope);
			return NULL;
		}
		close(fd);
	}
	if (!cf_write(cf, tmp_path)) {
		CHECK(0, "%s: writing %s", check_scope, tmp_path);
		if (!keep || !*keep)
			unlink(tmp_path);
		return NULL;
	}
	lib = summary_lib(tmp_path);
	cli = summary_cli(tmp_path, &ran);
	if (ran) {
		CHECK(cli && lib && jequal(jget(cli, "flows"), jget(lib, "flows")) &&
			      jequal(jget(cli, "stations"), jget(lib, "stations")) &&
			      jequal(jget(cli, "analysis"), jget(lib, "analysis")),
		      "%s: avmon -r gives the library's flows, stations and totals", check_scope);
	} else {
		SKIP("%s: avmon -r against the library: %s not found (set AVMON)", check_scope, avmon_path);
	}
	jfree(cli);
	if (!keep || !*keep)
		unlink(tmp_path);
	return lib;
}

/* ======================================================================
 * TCP scenario: one bulk transfer A -> B with every event constructed
 * ==================================================================== */

#define ISN_A 1000u
#define ISN_B 5000u
#define MSS 1000u
#define SEG(i) (ISN_A + 1 + MSS * (i)) /* sequence number of data segment i */
#define WIN 65535

/*
 * The handshake takes 5 ms from SYN/ACK to ACK: tshark's (and avmon's)
 * out-of-order threshold is that "first RTT", most recent SYN to the first
 * ACK without SYN. Segments 2 and 4 of the first window are lost after the
 * capture point: the receiver ACKs 3001 three times with growing SACK
 * blocks, the sender fast-retransmits segment 2 six milliseconds after the
 * third duplicate, and retransmits segment 4 by timeout later. In between
 * it resends segment 5, which the receiver had (SACKed): the answer is a
 * D-SACK of the second kind (RFC 2883 4.2: the first block inside the
 * second, above the cumulative ACK), also a duplicate ACK. Segment 7
 * is retransmitted after everything was ACKed (spurious) and the receiver
 * answers with a D-SACK, which is also a duplicate ACK. Segments 10 and 9
 * go out in the wrong order within 1 ms. The receiver closes its window
 * twice and opens it again.
 */
static const struct tcp_seg bulk[] = {
	{ 0.000, 0, ISN_A, 0, F_SYN, WIN, 0, 0, { { 0 } }, 0, true, 0 },
	{ 0.005, 1, ISN_B, ISN_A + 1, F_SYN | F_ACK, WIN, 0, 0, { { 0 } }, 0, true, 0 },
	{ 0.010, 0, ISN_A + 1, ISN_B + 1, F_ACK, WIN, 0, 0, { { 0 } }, 0, false, 0 },
	{ 0.020, 0, SEG(0), ISN_B + 1, F_ACK | F_PSH, WIN, MSS, 0, { { 0 } }, 0, false, 0 },
	{ 0.021, 0, SEG(1), ISN_B + 1, F_ACK | F_PSH, WIN, MSS, 0, { { 0 } }, 0, false, 0 },
	{ 0.022, 0, SEG(2), ISN_B + 1, F_ACK | F_PSH, WIN, MSS, 0, { { 0 } }, 0, false, 0 },
	{ 0.023, 0, SEG(3), ISN_B + 1, F_ACK | F_PSH, WIN, MSS, 0, { { 0 } }, 0, false, 0 },
	{ 0.024, 0, SEG(4), ISN_B + 1, F_ACK | F_PSH, WIN, MSS, 0, { { 0 } }, 0, false, 0 },
	{ 0.025, 0, SEG(5), ISN_B + 1, F_ACK | F_PSH, WIN, MSS, 0, { { 0 } }, 0, false, 0 },
	{ 0.026, 0, SEG(6), ISN_B + 1, F_ACK | F_PSH, WIN, MSS, 0, { { 0 } }, 0, false, 0 },
	{ 0.030, 1, ISN_B + 1, SEG(1), F_ACK, WIN, 0, 0, { { 0 } }, 0, false, 0 },
	{ 0.031, 1, ISN_B + 1, SEG(2), F_ACK, WIN, 0, 0, { { 0 } }, 0, false, 0 },
	{ 0.032, 1, ISN_B + 1, SEG(2), F_ACK, WIN, 0, 1, { { SEG(3), SEG(4) } }, EV_DUP, false, 0 },
	{ 0.033, 1, ISN_B + 1, SEG(2), F_ACK, WIN, 0, 2, { { SEG(5), SEG(6) }, { SEG(3), SEG(4) } }, EV_DUP, false, 0 },
	{ 0.034, 1, ISN_B + 1, SEG(2), F_ACK, WIN, 0, 2, { { SEG(5), SEG(7) }, { SEG(3), SEG(4) } }, EV_DUP, false, 0 },
	{ 0.040, 0, SEG(2), ISN_B + 1, F_ACK | F_PSH, WIN, MSS, 0, { { 0 } }, EV_RTX | EV_FAST, false, 0 },
	{ 0.045, 1, ISN_B + 1, SEG(4), F_ACK, WIN, 0, 1, { { SEG(5), SEG(7) } }, 0, false, 0 },
	{ 0.060, 0, SEG(5), ISN_B + 1, F_ACK | F_PSH, WIN, MSS, 0, { { 0 } }, EV_RTX, false, 0 },
	{ 0.065, 1, ISN_B + 1, SEG(4), F_ACK, WIN, 0, 2, { { SEG(5), SEG(6) }, { SEG(5), SEG(7) } }, EV_DUP | EV_DSACK,
	  false, 0 },
	{ 0.100, 0, SEG(4), ISN_B + 1, F_ACK | F_PSH, WIN, MSS, 0, { { 0 } }, EV_RTX, false, 0 },
	{ 0.105, 1, ISN_B + 1, SEG(7), F_ACK, WIN, 0, 0, { { 0 } }, 0, false, 0 },
	{ 0.110, 0, SEG(7), ISN_B + 1, F_ACK | F_PSH, WIN, MSS, 0, { { 0 } }, 0, false, 0 },
	{ 0.111, 0, SEG(8), ISN_B + 1, F_ACK | F_PSH, WIN, MSS, 0, { { 0 } }, 0, false, 0 },
	{ 0.120, 1, ISN_B + 1, SEG(9), F_ACK, WIN, 0, 0, { { 0 } }, 0, false, 0 },
	{ 0.400, 0, SEG(7), ISN_B + 1, F_ACK | F_PSH, WIN, MSS, 0, { { 0 } }, EV_RTX | EV_SPURIOUS, false, 0 },
	{ 0.410, 1, ISN_B + 1, SEG(9), F_ACK, WIN, 0, 1, { { SEG(7), SEG(8) } }, EV_DUP | EV_DSACK, false, 0 },
	{ 0.420, 0, SEG(10), ISN_B + 1, F_ACK | F_PSH, WIN, MSS, 0, { { 0 } }, EV_LOST, false, 0 },
	{ 0.421, 0, SEG(9), ISN_B + 1, F_ACK | F_PSH, WIN, MSS, 0, { { 0 } }, EV_OOO, false, 0 },
	{ 0.430, 1, ISN_B + 1, SEG(11), F_ACK, WIN, 0, 0, { { 0 } }, 0, false, 0 },
	{ 0.440, 0, SEG(11), ISN_B + 1, F_ACK | F_PSH, WIN, MSS, 0, { { 0 } }, 0, false, 0 },
	{ 0.450, 1, ISN_B + 1, SEG(12), F_ACK, 0, 0, 0, { { 0 } }, EV_ZW, false, 0 },
	{ 0.500, 1, ISN_B + 1, SEG(12), F_ACK, 0, 0, 0, { { 0 } }, EV_ZW, false, 0 },
	{ 0.550, 1, ISN_B + 1, SEG(12), F_ACK, WIN, 0, 0, { { 0 } }, EV_WU, false, 0 },
	{ 0.560, 0, SEG(12), ISN_B + 1, F_ACK | F_PSH, WIN, MSS, 0, { { 0 } }, 0, false, 0 },
	{ 0.570, 1, ISN_B + 1, SEG(13), F_ACK, WIN, 0, 0, { { 0 } }, 0, false, 0 },
	{ 0.580, 0, SEG(13), ISN_B + 1, F_FIN | F_ACK, WIN, 0, 0, { { 0 } }, 0, false, 0 },
	{ 0.590, 1, ISN_B + 1, SEG(13) + 1, F_FIN | F_ACK, WIN, 0, 0, { { 0 } }, 0, false, 0 },
	{ 0.600, 0, SEG(13) + 1, ISN_B + 2, F_ACK, WIN, 0, 0, { { 0 } }, 0, false, 0 },
};
#define N_BULK (sizeof(bulk) / sizeof(bulk[0]))

/* What the table says, per direction. */
struct dir_expect {
	uint64_t packets, l2_bytes, payload, goodput;
	uint64_t rtx, fast, spurious, ooo, lost, dup, zw, wu, pure_acks;
	uint64_t sack_frames, sack_blocks, dsack;
	uint64_t acks_advancing, bytes_acked;
};

static int32_t seq_diff(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b);
}

static void expect_from_table(const struct tcp_seg *segs, size_t n, const size_t *frame_len, struct dir_expect e[2])
{
	int64_t lo[2] = { 0 }, hi[2] = { 0 };
	bool data_seen[2] = { false, false }, ack_seen[2] = { false, false };
	uint32_t ack_high[2] = { 0 };

	memset(e, 0, 2 * sizeof(*e));
	for (size_t i = 0; i < n; i++) {
		const struct tcp_seg *s = &segs[i];
		struct dir_expect *d = &e[s->dir];

		if (s->retry)
			continue; /* an 802.11 MAC retry: not analysed again */
		d->packets++;
		d->l2_bytes += frame_len[i];
		d->payload += s->len;
		if (s->len) {
			/* sequence span: from the lowest to the highest byte sent
			 * (seq relative to the first data byte, no wrap here) */
			int64_t a = (int64_t)s->seq, b = a + s->len;

			if (!data_seen[s->dir] || a < lo[s->dir])
				lo[s->dir] = a;
			if (!data_seen[s->dir] || b > hi[s->dir])
				hi[s->dir] = b;
			data_seen[s->dir] = true;
		}
		d->rtx += !!(s->ev & EV_RTX);
		d->fast += !!(s->ev & EV_FAST);
		d->spurious += !!(s->ev & EV_SPURIOUS);
		d->ooo += !!(s->ev & EV_OOO);
		d->lost += !!(s->ev & EV_LOST);
		d->dup += !!(s->ev & EV_DUP);
		d->zw += !!(s->ev & EV_ZW);
		d->wu += !!(s->ev & EV_WU);
		d->dsack += !!(s->ev & EV_DSACK);
		if (s->n_sack) {
			d->sack_frames++;
			d->sack_blocks += s->n_sack;
		}
		if ((s->flags & F_ACK) && s->len == 0 && !(s->flags & (F_SYN | F_FIN)))
			d->pure_acks++;
		if (s->flags & F_ACK) {
			if (!ack_seen[s->dir]) {
				ack_seen[s->dir] = true;
				ack_high[s->dir] = s->ack;
			} else if (seq_diff(s->ack, ack_high[s->dir]) > 0) {
				d->acks_advancing++;
				d->bytes_acked += (uint32_t)(s->ack - ack_high[s->dir]);
				ack_high[s->dir] = s->ack;
			}
		}
	}
	for (int k = 0; k < 2; k++)
		e[k].goodput = data_seen[k] ? (uint64_t)(hi[k] - lo[k]) : 0;
}

static void expect_flow_dir(const struct jv *flow, const char *dir, const struct dir_expect *e, bool l2)
{
	char path[96];

#define DIR_U64(field, value)                                      \
	do {                                                       \
		snprintf(path, sizeof(path), "%s.%s", dir, field); \
		expect_u64(flow, path, value);                     \
	} while (0)
	DIR_U64("packets", e->packets);
	if (l2)
		DIR_U64("l2_bytes", e->l2_bytes);
	DIR_U64("payload_bytes", e->payload);
	DIR_U64("goodput_bytes", e->goodput);
	DIR_U64("retransmissions", e->rtx);
	DIR_U64("fast_retransmissions", e->fast);
	DIR_U64("spurious_retransmissions", e->spurious);
	DIR_U64("out_of_order", e->ooo);
	DIR_U64("lost_segments", e->lost);
	DIR_U64("acked_unseen", 0);
	DIR_U64("dup_acks", e->dup);
	DIR_U64("pure_acks", e->pure_acks);
	DIR_U64("zero_windows", e->zw);
	DIR_U64("window_updates", e->wu);
	DIR_U64("keep_alives", 0);
	DIR_U64("sack_frames", e->sack_frames);
	DIR_U64("sack_blocks", e->sack_blocks);
	DIR_U64("dsack_blocks", e->dsack);
	DIR_U64("acks_advancing", e->acks_advancing);
	DIR_U64("bytes_acked", e->bytes_acked);
#undef DIR_U64
}

static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 0x0a };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0x0b };

/* The bulk flow over Ethernet with `tags` VLAN tags (0, 1: 802.1Q, 2:
 * 802.1ad outer + 802.1Q inner), IPv4 or IPv6. */
static void scenario_tcp(uint8_t family, int tags)
{
	struct endpoint a = { .family = family, .port = 40000 }, b = { .family = family, .port = 5201 };
	static struct capture_file cf;
	size_t frame_len[N_BULK];
	struct dir_expect e[2];
	uint64_t bytes_total = 0, bytes_dir[2] = { 0, 0 };
	const struct jv *flows, *flow, *st_a, *st_b;
	char name_a[64], name_b[64];
	struct jv *sum;

	snprintf(check_scope, sizeof(check_scope), "tcp ipv%u vlan-tags %d", family, tags);
	if (family == 4) {
		memcpy(a.addr, (uint8_t[]){ 10, 0, 0, 1 }, 4);
		memcpy(b.addr, (uint8_t[]){ 10, 0, 0, 2 }, 4);
		snprintf(name_a, sizeof(name_a), "10.0.0.1:40000");
		snprintf(name_b, sizeof(name_b), "10.0.0.2:5201");
	} else {
		memcpy(a.addr, (uint8_t[]){ 0x20, 0x01, 0x0d, 0xb8, [15] = 1 }, 16);
		memcpy(b.addr, (uint8_t[]){ 0x20, 0x01, 0x0d, 0xb8, [15] = 2 }, 16);
		snprintf(name_a, sizeof(name_a), "[2001:db8::1]:40000");
		snprintf(name_b, sizeof(name_b), "[2001:db8::2]:5201");
	}
	memset(&cf, 0, sizeof(cf));
	cf.dlt = DLT_EN10MB;
	for (size_t i = 0; i < N_BULK; i++) {
		const struct tcp_seg *s = &bulk[i];
		struct pkt p = { .n = 0 };

		put(&p, s->dir ? mac_a : mac_b, 6);
		put(&p, s->dir ? mac_b : mac_a, 6);
		if (tags == 2) {
			put_be16(&p, 0x88a8);
			put_be16(&p, 100);
		}
		if (tags >= 1) {
			put_be16(&p, 0x8100);
			put_be16(&p, 0x2000 | 42); /* priority 1, VLAN 42 */
		}
		put_be16(&p, family == 4 ? 0x0800 : 0x86dd);
		build_ip_tcp(&p, s->dir ? &b : &a, s->dir ? &a : &b, s);
		if (p.n < 60)
			put_zeros(&p, 60 - p.n); /* Ethernet minimum frame (FCS not captured) */
		frame_len[i] = p.n;
		bytes_total += p.n;
		bytes_dir[s->dir] += p.n;
		cf_add(&cf, s->t, &p);
	}
	expect_from_table(bulk, N_BULK, frame_len, e);

	sum = run_capture(&cf);
	if (!sum)
		return;
	expect_u64(sum, "capture.packets", N_BULK);
	expect_u64(sum, "capture.bytes", bytes_total);
	expect_str(sum, "capture.link_type", "EN10MB");
	expect_u64(sum, "capture.malformed.truncated", 0);
	expect_u64(sum, "capture.malformed.bad_ip", 0);
	expect_u64(sum, "capture.malformed.bad_tcp", 0);
	expect_u64(sum, "capture.malformed.unsupported", 0);
	expect_u64(sum, "analysis.frames", N_BULK);
	expect_u64(sum, "analysis.ip_packets", N_BULK);
	expect_u64(sum, "analysis.tcp_packets", N_BULK);
	expect_u64(sum, "analysis.udp_packets", 0);
	expect_u64(sum, "duplicates_removed.wlan_retries", 0);
	expect_u64(sum, "duplicates_removed.link_copies", 0);
	flows = jget(sum, "flows");
	CHECK(flows && flows->t == J_ARR && flows->n == 1, "%s: one flow", check_scope);
	flow = jfind(flows, "src", name_a);
	CHECK(flow != NULL, "%s: flow from %s", check_scope, name_a);
	if (flow) {
		expect_str(flow, "dst", name_b);
		expect_str(flow, "proto", "tcp");
		expect_u64(flow, "connections", 1);
		expect_num(flow, "duration_s", bulk[N_BULK - 1].t - bulk[0].t, 1e-6);
		expect_flow_dir(flow, "a_to_b", &e[0], true);
		expect_flow_dir(flow, "b_to_a", &e[1], true);
	}

	/* stations by MAC: every frame is tx of its source, rx of its destination */
	snprintf(name_a, sizeof(name_a), "02:00:00:00:00:0a");
	snprintf(name_b, sizeof(name_b), "02:00:00:00:00:0b");
	st_a = jfind(jget(sum, "stations"), "mac", name_a);
	st_b = jfind(jget(sum, "stations"), "mac", name_b);
	CHECK(st_a && st_b, "%s: stations %s and %s", check_scope, name_a, name_b);
	for (int k = 0; k < 2; k++) {
		const struct jv *st = k ? st_b : st_a;

		if (!st)
			continue;
		expect_u64(st, "tx_frames", e[k].packets);
		expect_u64(st, "rx_frames", e[!k].packets);
		expect_u64(st, "tx_bytes", bytes_dir[k]);
		expect_u64(st, "rx_bytes", bytes_dir[!k]);
		expect_u64(st, "tx_data_frames", e[k].packets);
		expect_u64(st, "tx_payload_bytes", e[k].payload);
		expect_u64(st, "rx_payload_bytes", e[!k].payload);
		expect_u64(st, "tx_goodput_bytes", e[k].goodput);
		expect_u64(st, "rx_goodput_bytes", e[!k].goodput);
		expect_u64(st, "uplink_tcp_acks", e[k].pure_acks);
		expect_u64(st, "retries", 0);
		expect_u64(st, "airtime_us", 0);
	}
	jfree(sum);
}

/* ======================================================================
 * 802.11: radiotap data frames at several PHY rates
 * ==================================================================== */

enum phy { P_DSSS, P_OFDM, P_HT, P_VHT };

struct radio_case {
	const char *name;
	enum phy phy;
	unsigned rate_mbps;   /* DSSS/OFDM */
	unsigned mcs, nss, bw_mhz;
	bool short_gi, short_preamble;
	uint16_t freq;
	bool fcs;             /* FCS captured at the end (radiotap flag 0x10) */
	bool qos;
	int8_t signal;
};

static const struct radio_case radio_cases[] = {
	{ "OFDM 6 Mbit/s 5 GHz", P_OFDM, 6, 0, 1, 20, false, false, 5180, false, true, -41 },
	{ "ERP-OFDM 54 Mbit/s 2.4 GHz", P_OFDM, 54, 0, 1, 20, false, false, 2437, true, true, -42 },
	{ "DSSS 1 Mbit/s long preamble", P_DSSS, 1, 0, 1, 20, false, false, 2412, true, false, -43 },
	{ "HR-DSSS 11 Mbit/s short preamble", P_DSSS, 11, 0, 1, 20, false, true, 2412, false, false, -44 },
	{ "HT MCS 7 20 MHz long GI 2.4 GHz", P_HT, 0, 7, 1, 20, false, false, 2437, false, true, -45 },
	{ "VHT MCS 9 NSS 2 80 MHz short GI", P_VHT, 0, 9, 2, 80, true, false, 5210, true, true, -46 },
};
#define N_RADIO (sizeof(radio_cases) / sizeof(radio_cases[0]))

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

/* Data bits per OFDM symbol of HT/VHT: data subcarriers x bits per
 * subcarrier x coding rate x streams (19.5, 21.5). */
static unsigned mcs_ndbps(unsigned mcs, unsigned nss, unsigned bw_mhz)
{
	static const unsigned bits[10] = { 1, 2, 2, 4, 4, 6, 6, 6, 8, 8 };
	static const unsigned num[10] = { 1, 1, 3, 1, 3, 2, 3, 5, 3, 5 };
	static const unsigned den[10] = { 2, 2, 4, 2, 4, 3, 4, 6, 4, 6 };
	unsigned sd = bw_mhz == 20 ? 52 : bw_mhz == 40 ? 108 : bw_mhz == 80 ? 234 : 468;

	return sd * bits[mcs] * num[mcs] * nss / den[mcs];
}

/* IEEE 802.11-2016 TXTIME of a PPDU carrying `len` bytes (FCS included),
 * then SIFS + ACK (14 bytes) when acked; microseconds. */
static uint64_t expect_airtime(const struct radio_case *rc, unsigned len, bool acked)
{
	bool g24 = rc->freq >= 2400 && rc->freq < 2500;
	uint64_t t, sifs = g24 ? 10 : 16, ext = g24 ? 6 : 0; /* ERP signal extension */
	unsigned basic;

	switch (rc->phy) {
	case P_DSSS: {
		/* 16.3.4: preamble + header 192 us (long) or 96 us (short; never
		 * at 1 Mbit/s), then 8 * LENGTH / rate, rounded up to a us */
		unsigned pre = rc->short_preamble && rc->rate_mbps > 1 ? 96 : 192;
		unsigned ack_rate = rc->rate_mbps >= 2 ? 2 : 1;

		t = pre + div_up(8ull * len, rc->rate_mbps);
		if (acked)
			t += sifs + pre + div_up(8ull * 14, ack_rate);
		return t;
	}
	case P_OFDM:
		/* 17.4.3: 16 us preamble + 4 us SIGNAL + 4 us per symbol of
		 * 16 service + 8 LENGTH + 6 tail bits; N_DBPS = 4 x Mbit/s */
		t = 20 + 4 * div_up(16 + 8ull * len + 6, 4 * rc->rate_mbps) + ext;
		basic = rc->rate_mbps >= 24 ? 24 : rc->rate_mbps >= 12 ? 12 : 6;
		break;
	case P_HT: {
		/* 19.4.3 mixed format: L-STF 8, L-LTF 8, L-SIG 4, HT-SIG 8,
		 * HT-STF 4, 4 us per HT-LTF (1, 2, 4, 4 for 1-4 streams) */
		unsigned ltf = rc->nss == 1 ? 1 : rc->nss == 2 ? 2 : 4;
		uint64_t nsym = div_up(16 + 8ull * len + 6, mcs_ndbps(rc->mcs, rc->nss, rc->bw_mhz));

		t = 8 + 8 + 4 + 8 + 4 + 4 * ltf;
		/* short GI: T_SYML * ceil(T_SYMS * N_SYM / T_SYML) = 4 * ceil(0.9 N_SYM) */
		t += rc->short_gi ? 4 * div_up(9 * nsym, 10) : 4 * nsym;
		t += ext;
		basic = 0;
		break;
	}
	case P_VHT: {
		/* 21.4.3: L-STF 8, L-LTF 8, L-SIG 4, VHT-SIG-A 8, VHT-STF 4,
		 * 4 us per VHT-LTF (1, 2, 4, 4, 6, 6, 8, 8), VHT-SIG-B 4 */
		static const unsigned ltfs[9] = { 1, 1, 2, 4, 4, 6, 6, 8, 8 };
		uint64_t nsym = div_up(16 + 8ull * len + 6, mcs_ndbps(rc->mcs, rc->nss, rc->bw_mhz));

		t = 8 + 8 + 4 + 8 + 4 + 4 * ltfs[rc->nss] + 4;
		t += rc->short_gi ? 4 * div_up(9 * nsym, 10) : 4 * nsym;
		t += ext;
		basic = 0;
		break;
	}
	default:
		return 0;
	}
	if (basic == 0) {
		/* HT/VHT: the highest mandatory OFDM rate not above the frame's
		 * (N_DBPS data bits per 4 us, or per 3.6 us with the short GI) */
		uint64_t kbps = mcs_ndbps(rc->mcs, rc->nss, rc->bw_mhz) * 10000ull / (rc->short_gi ? 36 : 40);

		basic = kbps >= 24000 ? 24 : kbps >= 12000 ? 12 : 6;
	}
	if (acked) /* the ACK as a non-HT OFDM PPDU at the basic rate */
		t += sifs + 20 + 4 * div_up(16 + 8 * 14 + 6, 4 * basic) + ext;
	return t;
}

/* Radiotap header (no TSFT): flags, rate (legacy), channel, signal, MCS or VHT. */
static void build_radiotap(struct pkt *p, const struct radio_case *rc)
{
	struct rt_spec s = { .no_tsft = true, .freq = rc->freq, .signal = rc->signal };

	s.flags = (uint8_t)((rc->short_preamble ? RF_SHORT_PREAMBLE : 0) | (rc->fcs ? RF_FCS : 0));
	if (rc->phy == P_DSSS || rc->phy == P_OFDM) {
		s.phy = RT_LEGACY;
		s.rate = (uint8_t)(rc->rate_mbps * 2); /* 500 kbit/s units */
	} else if (rc->phy == P_HT) {
		s.phy = RT_HT;
		s.mcs_known = 0x07; /* bandwidth, MCS, GI */
		s.mcs_flags = (uint8_t)((rc->bw_mhz == 40 ? 1 : 0) | (rc->short_gi ? 0x04 : 0));
		s.mcs = (uint8_t)rc->mcs;
	} else {
		s.phy = RT_VHT;
		s.vht_known = 0x0044; /* GI, bandwidth */
		s.vht_flags = rc->short_gi ? 0x04 : 0;
		s.vht_bw = rc->bw_mhz == 80 ? 4 : rc->bw_mhz == 40 ? 1 : rc->bw_mhz == 160 ? 11 : 0;
		s.vht_mcs_nss = (uint8_t)(rc->mcs << 4 | rc->nss);
	}
	put_radiotap(p, &s);
}

static const uint8_t mac_ap[6] = { 0x02, 0xaa, 0, 0, 0, 1 };
static const uint8_t mac_router[6] = { 0x02, 0xbb, 0, 0, 0, 1 };

/* One 802.11 data frame carrying the segment: uplink (ToDS, station ->
 * AP) when dir is 0, downlink (FromDS, AP -> station) when 1. Returns the
 * MPDU length (FCS included) through mpdu_len. */
static void build_wlan_tcp(struct pkt *p, const struct radio_case *rc, const uint8_t sta[6], uint16_t wseq,
			   const struct endpoint *src, const struct endpoint *dst, const struct tcp_seg *s,
			   unsigned *mpdu_len)
{
	static const uint8_t snap[8] = { 0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00 };
	size_t mac_start;

	build_radiotap(p, rc);
	mac_start = p->n;
	put_u8(p, rc->qos ? 0x88 : 0x08); /* (QoS) data */
	put_u8(p, (uint8_t)((s->dir ? 0x02 : 0x01) | (s->retry ? 0x08 : 0)));
	put_le16(p, 44); /* duration */
	if (s->dir == 0) {
		put(p, mac_ap, 6);     /* RA = BSSID */
		put(p, sta, 6);        /* TA = SA */
		put(p, mac_router, 6); /* DA */
	} else {
		put(p, sta, 6);        /* RA = DA */
		put(p, mac_ap, 6);     /* TA = BSSID */
		put(p, mac_router, 6); /* SA */
	}
	put_le16(p, (uint16_t)(wseq << 4));
	if (rc->qos)
		put_le16(p, 0); /* TID 0, normal ACK, no A-MSDU */
	put(p, snap, sizeof(snap));
	build_ip_tcp(p, src, dst, s);
	if (rc->fcs)
		put_le32(p, 0xdeadbeef); /* not checked by avmon */
	*mpdu_len = (unsigned)(p->n - mac_start) + (rc->fcs ? 0 : 4);
}

struct station_expect {
	uint64_t tx_data_frames, rx_data_frames, tx_data_bytes, rx_data_bytes;
	uint64_t tx_data_retries, tx_airtime, rx_airtime;
	uint64_t tx_payload, tx_goodput, rx_payload;
};

/*
 * Per PHY case, a station sends two TCP data segments uplink (802.11
 * sequence numbers 100 and 101); the second is sent again with the retry
 * bit and the same 802.11 sequence number (a MAC retry: the station's
 * retry, not a TCP retransmission); the AP forwards the server's ACK
 * downlink. All six stations share one AP and one capture.
 */
static void scenario_wlan(void)
{
	static struct capture_file cf;
	struct station_expect se[N_RADIO];
	struct dir_expect fe[N_RADIO][2];
	uint64_t ap_tx_frames = 0, ap_rx_frames = 0, ap_airtime = 0, total_bytes = 0, retries_total = 0;
	const struct jv *stations, *flows;
	struct jv *sum;
	double t = 0.0;

	snprintf(check_scope, sizeof(check_scope), "802.11 radiotap");
	memset(&cf, 0, sizeof(cf));
	memset(se, 0, sizeof(se));
	cf.dlt = DLT_IEEE802_11_RADIO;
	for (size_t c = 0; c < N_RADIO; c++) {
		const struct radio_case *rc = &radio_cases[c];
		const uint8_t sta[6] = { 0x02, 0x5a, 0, 0, 0, (uint8_t)(c + 1) };
		struct endpoint s_ep = { .family = 4, .addr = { 10, 1, 0, (uint8_t)(10 + c) },
					 .port = (uint16_t)(50000 + c) };
		struct endpoint srv = { .family = 4, .addr = { 10, 1, 0, 1 }, .port = 80 };
		const uint32_t isn = 7000000u * (uint32_t)(c + 1);
		const uint16_t len1 = 1200, len2 = (uint16_t)(300 + 100 * c);
		const struct tcp_seg segs[4] = {
			{ 0, 0, isn, 90000, F_ACK | F_PSH, WIN, len1, 0, { { 0 } }, 0, false, 0 },
			{ 0, 0, isn + len1, 90000, F_ACK | F_PSH, WIN, len2, 0, { { 0 } }, 0, false, 0 },
			{ 0, 0, isn + len1, 90000, F_ACK | F_PSH, WIN, len2, 0, { { 0 } }, 0, false, 1 },
			{ 0, 1, 90000, isn + len1 + len2, F_ACK, WIN, 0, 0, { { 0 } }, 0, false, 0 },
		};
		const uint16_t wseq[4] = { 100, 101, 101, 200 };
		size_t frame_len[4];

		for (int i = 0; i < 4; i++) {
			struct pkt p = { .n = 0 };
			unsigned mpdu;
			uint64_t air;

			build_wlan_tcp(&p, rc, sta, wseq[i], segs[i].dir ? &srv : &s_ep, segs[i].dir ? &s_ep : &srv,
				       &segs[i], &mpdu);
			air = expect_airtime(rc, mpdu, true);
			frame_len[i] = p.n;
			total_bytes += p.n;
			if (segs[i].dir == 0) {
				se[c].tx_data_frames++;
				se[c].tx_data_bytes += p.n;
				se[c].tx_data_retries += segs[i].retry;
				se[c].tx_airtime += air;
				ap_rx_frames++;
			} else {
				se[c].rx_data_frames++;
				se[c].rx_data_bytes += p.n;
				se[c].rx_airtime += air;
				ap_tx_frames++;
			}
			ap_airtime += air;
			retries_total += segs[i].retry;
			t += 0.001;
			cf_add(&cf, t, &p);
		}
		expect_from_table(segs, 4, frame_len, fe[c]);
		se[c].tx_payload = fe[c][0].payload;
		se[c].tx_goodput = fe[c][0].goodput;
		se[c].rx_payload = fe[c][1].payload;
		t += 0.010;
	}

	sum = run_capture(&cf);
	if (!sum)
		return;
	expect_u64(sum, "capture.packets", cf.n);
	expect_u64(sum, "capture.bytes", total_bytes);
	expect_str(sum, "capture.link_type", "IEEE802_11_RADIO");
	expect_u64(sum, "capture.malformed.truncated", 0);
	expect_u64(sum, "capture.malformed.bad_radiotap", 0);
	expect_u64(sum, "capture.malformed.bad_80211", 0);
	expect_u64(sum, "analysis.frames", cf.n);
	/* the MAC retries' packets are not analysed */
	expect_u64(sum, "analysis.tcp_packets", cf.n - retries_total);
	expect_u64(sum, "duplicates_removed.wlan_retries", retries_total);
	stations = jget(sum, "stations");
	flows = jget(sum, "flows");
	CHECK(stations && stations->n == N_RADIO + 1, "%s: %zu stations and the AP (got %zu)", check_scope, N_RADIO,
	      stations ? stations->n : 0);
	CHECK(flows && flows->n == N_RADIO, "%s: %zu flows (got %zu)", check_scope, N_RADIO, flows ? flows->n : 0);

	for (size_t c = 0; c < N_RADIO; c++) {
		const struct radio_case *rc = &radio_cases[c];
		char mac[32], ep[32];
		const struct jv *st, *fl;

		snprintf(check_scope, sizeof(check_scope), "802.11 %s", rc->name);
		snprintf(mac, sizeof(mac), "02:5a:00:00:00:%02zx", c + 1);
		st = jfind(stations, "mac", mac);
		CHECK(st != NULL, "%s: station %s", check_scope, mac);
		if (st) {
			expect_str(st, "role", "station");
			expect_u64(st, "tx_frames", se[c].tx_data_frames);
			expect_u64(st, "rx_frames", se[c].rx_data_frames);
			expect_u64(st, "tx_data_frames", se[c].tx_data_frames);
			expect_u64(st, "rx_data_frames", se[c].rx_data_frames);
			expect_u64(st, "tx_data_bytes", se[c].tx_data_bytes);
			expect_u64(st, "rx_data_bytes", se[c].rx_data_bytes);
			expect_u64(st, "retries", se[c].tx_data_retries);
			expect_u64(st, "tx_data_retries", se[c].tx_data_retries);
			expect_u64(st, "rx_data_retries", 0);
			expect_u64(st, "data_retries", se[c].tx_data_retries);
			expect_u64(st, "tx_airtime_us", se[c].tx_airtime);
			expect_u64(st, "rx_airtime_us", se[c].rx_airtime);
			expect_u64(st, "airtime_us", se[c].tx_airtime + se[c].rx_airtime);
			expect_u64(st, "tx_data_airtime_us", se[c].tx_airtime);
			expect_u64(st, "rx_data_airtime_us", se[c].rx_airtime);
			expect_u64(st, "tx_payload_bytes", se[c].tx_payload);
			expect_u64(st, "tx_goodput_bytes", se[c].tx_goodput);
			expect_u64(st, "rx_payload_bytes", se[c].rx_payload);
			expect_u64(st, "mac_payload_frames", se[c].tx_data_frames + se[c].rx_data_frames);
			expect_num(st, "signal_dbm", rc->signal, 1e-9);
		}
		snprintf(ep, sizeof(ep), "10.1.0.%zu:%zu", 10 + c, 50000 + c);
		fl = jfind(flows, "src", ep);
		CHECK(fl != NULL, "%s: flow from %s", check_scope, ep);
		if (fl) {
			/* the MAC retry is no TCP retransmission */
			expect_u64(fl, "a_to_b.retransmissions", 0);
			expect_flow_dir(fl, "a_to_b", &fe[c][0], true);
			expect_flow_dir(fl, "b_to_a", &fe[c][1], true);
		}
	}
	snprintf(check_scope, sizeof(check_scope), "802.11 AP");
	{
		const struct jv *ap = jfind(stations, "mac", "02:aa:00:00:00:01");

		CHECK(ap != NULL, "%s: AP station", check_scope);
		if (ap) {
			expect_str(ap, "role", "ap");
			expect_u64(ap, "tx_frames", ap_tx_frames);
			expect_u64(ap, "rx_frames", ap_rx_frames);
			expect_u64(ap, "airtime_us", ap_airtime);
			expect_u64(ap, "retries", 0);
			expect_u64(ap, "uplink_tcp_acks", N_RADIO);
		}
	}
	jfree(sum);
}

/* A data frame captured with a bad FCS, then its retry (the same 802.11
 * sequence number): the retry is the first good copy, so its segment
 * reaches the TCP analysis once; a frame that was not received is not
 * remembered as seen. */
static void scenario_wlan_bad_fcs(void)
{
	static struct capture_file cf;
	const struct radio_case *rc = &radio_cases[1]; /* FCS captured */
	const uint8_t sta[6] = { 0x02, 0x5a, 0, 0, 0, 0x7f };
	const struct endpoint sta_ep = { .family = 4, .addr = { 10, 1, 0, 99 }, .port = 50099 };
	const struct endpoint srv = { .family = 4, .addr = { 10, 1, 0, 1 }, .port = 80 };
	struct tcp_seg seg = { .seq = 1000, .ack = 90000, .flags = F_ACK | F_PSH, .win = WIN, .len = 500 };
	const struct jv *flows, *fl;
	struct jv *sum;
	unsigned mpdu;

	snprintf(check_scope, sizeof(check_scope), "802.11 bad FCS, then its retry");
	memset(&cf, 0, sizeof(cf));
	cf.dlt = DLT_IEEE802_11_RADIO;
	for (int i = 0; i < 2; i++) {
		struct pkt p = { .n = 0 };

		seg.retry = (uint8_t)i;
		build_wlan_tcp(&p, rc, sta, 300, &sta_ep, &srv, &seg, &mpdu);
		if (i == 0)
			p.b[8] |= 0x40; /* radiotap Flags, the first field: bad FCS */
		cf_add(&cf, 0.001 * (i + 1), &p);
	}
	sum = run_capture(&cf);
	if (!sum)
		return;
	expect_u64(sum, "analysis.tcp_packets", 1);
	expect_u64(sum, "duplicates_removed.wlan_retries", 0);
	flows = jget(sum, "flows");
	fl = flows ? jfind(flows, "src", "10.1.0.99:50099") : NULL;
	CHECK(fl != NULL, "%s: the segment's flow", check_scope);
	if (fl) {
		expect_u64(fl, "a_to_b.packets", 1);
		expect_u64(fl, "a_to_b.payload_bytes", 500);
	}
	jfree(sum);
}

/* The model's own airtime for the radio cases, decoded from the frames
 * (frame_decode on the built bytes), against the recomputation: pinpoints
 * a disagreement to the decoder/airtime model rather than the counting. */
static void scenario_airtime_direct(void)
{
	const struct link_type *lt = link_type_find(DLT_IEEE802_11_RADIO);
	static const unsigned lens[] = { 28, 60, 100, 1500, 1536, 2304 }; /* MPDU bytes, FCS included */

	snprintf(check_scope, sizeof(check_scope), "airtime per frame");
	CHECK(lt != NULL, "%s: radiotap link type", check_scope);
	if (!lt)
		return;
	for (size_t c = 0; c < N_RADIO; c++) {
		const struct radio_case *rc = &radio_cases[c];

		for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
			static struct frame f;
			struct pkt p = { .n = 0 };
			size_t mac_start;
			unsigned mpdu;

			/* a null-function data frame (no body) padded to the length */
			build_radiotap(&p, rc);
			mac_start = p.n;
			put_u8(&p, 0x48); /* data, null function: no LLC is read */
			put_u8(&p, 0x01);
			put_le16(&p, 0);
			put(&p, mac_ap, 6);
			put(&p, mac_a, 6);
			put(&p, mac_router, 6);
			put_le16(&p, 0);
			put_zeros(&p, lens[k] - 4 - (p.n - mac_start));
			if (rc->fcs)
				put_le32(&p, 0);
			mpdu = (unsigned)(p.n - mac_start) + (rc->fcs ? 0 : 4);
			frame_decode(lt, 1.0, p.b, (uint32_t)p.n, (uint32_t)p.n, &f);
			CHECK(f.malformed == MAL_NONE && f.wlan.mpdu_len == mpdu &&
				      f.wlan.airtime_us == expect_airtime(rc, mpdu, true),
			      "%s: %s, %u-byte MPDU: %" PRIu64 " us (got %u us, mpdu_len %u, %s)", check_scope,
			      rc->name, mpdu, expect_airtime(rc, mpdu, true), f.wlan.airtime_us, f.wlan.mpdu_len,
			      malformed_reason_name(f.malformed));
			/* without SIFS + ACK: what tshark's wlan_radio.duration measures */
			frame_decode_airtime(lt, 1.0, p.b, (uint32_t)p.n, (uint32_t)p.n, false, &f);
			CHECK(f.malformed == MAL_NONE && f.wlan.airtime_us == expect_airtime(rc, mpdu, false),
			      "%s: %s, %u-byte MPDU without SIFS + ACK: %" PRIu64 " us (got %u us)", check_scope,
			      rc->name, mpdu, expect_airtime(rc, mpdu, false), f.wlan.airtime_us);
		}
	}
}

int main(int argc, char **argv)
{
	(void)argc;
	avmon_locate(argv[0]);
	printf("# avmon binary for the CLI cross-check: %s\n", avmon_path);
	scenario_tcp(4, 0);
	scenario_tcp(6, 0);
	scenario_tcp(4, 1);
	scenario_tcp(4, 2);
	scenario_tcp(6, 1);
	scenario_tcp(6, 2);
	scenario_airtime_direct();
	scenario_wlan();
	scenario_wlan_bad_fcs();
	return check_done();
}
