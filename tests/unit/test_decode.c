// SPDX-License-Identifier: GPL-2.0
/*
 * test_decode.c - avmon's decoders: hand-built frames for every link type
 * with every decoded field checked, airtime against the 802.11 formulas,
 * truncation at every byte offset (run under ASan/UBSan: each prefix is
 * copied into a buffer of exactly its length), random bytes, and a smoke
 * run over the capture corpora compared with their tshark oracles.
 *
 * Build:
 *   cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O1 -g -fsanitize=address,undefined \
 *      -Imonitor -Iinclude -Itests/unit tests/unit/test_decode.c monitor/decode.c monitor/ether.c \
 *      monitor/sll.c monitor/raw.c monitor/ip.c monitor/ieee80211.c monitor/radiotap.c \
 *      monitor/airtime.c -lpcap -lm -o /tmp/test_decode && /tmp/test_decode
 * The corpora: the project's own, tests/captures (or $TCPAV_OWN_CAPTURES),
 * always; the third-party one at $TCPAV_CAPTURES, else ../shared/captures,
 * when present. Paths are relative to the repository's top (tests/run.sh
 * runs the tests there). Every capture needs its oracle summary and the
 * keys its checks read: a missing one is a failure.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "airtime.h"
#include "check.h"
#include "frame_builder.h"
#include "radiotap_builder.h"
#include "decode.h"

/* ---- building frames ---------------------------------------------------- */

static const uint8_t MAC_AP[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
static const uint8_t MAC_STA[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };
static const uint8_t MAC_STA2[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x03 };
static const uint8_t MAC_BCAST[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t MAC_GW[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x09 };
static const uint8_t IP4_A[4] = { 10, 0, 0, 2 };
static const uint8_t IP4_B[4] = { 192, 0, 2, 80 };
static const uint8_t IP6_A[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };
static const uint8_t IP6_B[16] = { 0x20, 0x01, 0x0d, 0xb8, [14] = 1, [15] = 0x80 };

struct tcp_spec {
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;
	uint16_t window;
	const uint8_t *opts; /* a multiple of 4 bytes */
	size_t opts_len;
	size_t payload;
};

static size_t tcp_len(const struct tcp_spec *t)
{
	return 20 + t->opts_len + t->payload;
}

static void put_tcp(struct pkt *p, const struct tcp_spec *t)
{
	put_be16(p, t->sport);
	put_be16(p, t->dport);
	put_be32(p, t->seq);
	put_be32(p, t->ack);
	put_be16(p, (uint16_t)(((20 + t->opts_len) / 4) << 12 | t->flags));
	put_be16(p, t->window);
	put_be32(p, 0); /* checksum, urgent */
	put(p, t->opts, t->opts_len);
	for (size_t i = 0; i < t->payload; i++)
		put_u8(p, (uint8_t)('a' + i % 26));
}

static void put_ipv4_hdr(struct pkt *p, uint8_t proto, size_t l4_len, const uint8_t src[4], const uint8_t dst[4])
{
	put_u8(p, 0x45);
	put_u8(p, 0);
	put_be16(p, (uint16_t)(20 + l4_len));
	put_be16(p, 0x1234);
	put_be16(p, 0x4000); /* DF */
	put_u8(p, 64);
	put_u8(p, proto);
	put_be16(p, 0);
	put(p, src, 4);
	put(p, dst, 4);
}

static void put_ipv4_tcp(struct pkt *p, const struct tcp_spec *t)
{
	put_ipv4_hdr(p, 6, tcp_len(t), IP4_A, IP4_B);
	put_tcp(p, t);
}

/* IPv6 with ext (ext_len bytes, chained by the caller) before TCP. */
static void put_ipv6_tcp(struct pkt *p, uint8_t first_nh, const uint8_t *ext, size_t ext_len, const struct tcp_spec *t)
{
	put_be32(p, 0x60000000);
	put_be16(p, (uint16_t)(ext_len + tcp_len(t)));
	put_u8(p, first_nh);
	put_u8(p, 64);
	put(p, IP6_A, 16);
	put(p, IP6_B, 16);
	put(p, ext, ext_len);
	put_tcp(p, t);
}

static void put_llc_snap(struct pkt *p, uint16_t ethertype)
{
	static const uint8_t llc[6] = { 0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00 };

	put(p, llc, sizeof(llc));
	put_be16(p, ethertype);
}

static void put_ether(struct pkt *p, const uint8_t dst[6], const uint8_t src[6], uint16_t type)
{
	put(p, dst, 6);
	put(p, src, 6);
	put_be16(p, type);
}

/* 802.11 frame control: type, subtype, flags octet */
static void put_fc(struct pkt *p, unsigned type, unsigned subtype, unsigned flags)
{
	put_le16(p, (uint16_t)(type << 2 | subtype << 4 | flags << 8));
}

#define FC_TO_DS 0x01
#define FC_FROM_DS 0x02
#define FC_RETRY 0x08
#define FC_PROTECTED 0x40
#define FC_ORDER 0x80

static void put_wlan_data_hdr(struct pkt *p, unsigned subtype, unsigned flags, const uint8_t a1[6],
			      const uint8_t a2[6], const uint8_t a3[6], uint16_t seq, uint8_t frag)
{
	put_fc(p, 2, subtype, flags);
	put_le16(p, 44); /* duration */
	put(p, a1, 6);
	put(p, a2, 6);
	put(p, a3, 6);
	put_le16(p, (uint16_t)(seq << 4 | frag));
}

/* Options used below (each a multiple of 4 bytes). */
static const uint8_t OPT_SYN[20] = {
	2, 4, 0x05, 0xb4,             /* MSS 1460 */
	1, 3, 3, 7,                   /* NOP, WS 7 */
	4, 2,                         /* SACK permitted */
	8, 10, 0, 0, 0, 1, 0, 0, 0, 0 /* TS 1, 0 */
};

static bool mac_eq(const struct mac_addr *m, const uint8_t b[6])
{
	return memcmp(m->b, b, 6) == 0;
}

/* Decode a frame with caplen = wirelen = n. */
static void decode(int dlt, const struct pkt *p, struct frame *f)
{
	frame_decode(link_type_find(dlt), 1.5, p->b, (uint32_t)p->n, (uint32_t)p->n, f);
}

/* The one IP slice of f, decoded; MAL_UNSUPPORTED when there is none. */
static enum malformed_reason decode_ip0(const struct frame *f, struct ip_packet *pk)
{
	memset(pk, 0, sizeof(*pk));
	if (f->n_ip < 1)
		return MAL_UNSUPPORTED;
	return ip_decode(&f->ip[0], pk);
}

static void check_tcp(const char *what, const struct ip_packet *pk, const struct tcp_spec *t)
{
	CHECK(pk->is_tcp && pk->proto == 6, "%s: TCP", what);
	CHECK(pk->sport == t->sport && pk->dport == t->dport, "%s: ports %u > %u", what, pk->sport, pk->dport);
	CHECK(pk->seq == t->seq && pk->ack == t->ack, "%s: seq %u ack %u", what, pk->seq, pk->ack);
	CHECK(pk->tcp_flags == t->flags, "%s: flags 0x%02x", what, pk->tcp_flags);
	CHECK(pk->window == t->window, "%s: window %u", what, pk->window);
	CHECK(pk->payload_len == t->payload, "%s: payload_len %u (want %zu)", what, pk->payload_len, t->payload);
}

/* ---- link types and reasons --------------------------------------------- */

static void test_link_types(void)
{
	static const struct {
		int dlt;
		const char *name;
	} want[] = {
		{ 1, "EN10MB" },	{ 113, "LINUX_SLL" }, { 276, "LINUX_SLL2" },
		{ 12, "RAW" },		{ 14, "RAW" },	      { 101, "RAW" },
		{ 228, "IPV4" },	{ 229, "IPV6" },      { 105, "IEEE802_11" },
		{ 127, "IEEE802_11_RADIO" },
	};
	struct frame f;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct link_type *lt = link_type_find(want[i].dlt);

		CHECK(lt && lt->dlt == want[i].dlt && strcmp(lt->name, want[i].name) == 0 && lt->decode,
		      "link_type_find(%d) is %s", want[i].dlt, want[i].name);
	}
	CHECK(link_type_find(9) == NULL && link_type_find(0) == NULL && link_type_find(-1) == NULL,
	      "PPP, NULL and -1 are not supported");
	frame_decode(NULL, 0, (const uint8_t *)"x", 1, 1, &f);
	CHECK(f.malformed == MAL_UNSUPPORTED && f.n_ip == 0, "no link type: MAL_UNSUPPORTED");
	CHECK(strcmp(malformed_reason_name(MAL_NONE), "none") == 0 &&
		      strcmp(malformed_reason_name(MAL_TRUNCATED), "truncated") == 0 &&
		      strcmp(malformed_reason_name(MAL_BAD_RADIOTAP), "bad_radiotap") == 0 &&
		      strcmp(malformed_reason_name(MAL_BAD_80211), "bad_80211") == 0 &&
		      strcmp(malformed_reason_name(MAL_BAD_IP), "bad_ip") == 0 &&
		      strcmp(malformed_reason_name(MAL_BAD_TCP), "bad_tcp") == 0 &&
		      strcmp(malformed_reason_name(MAL_UNSUPPORTED), "unsupported") == 0 &&
		      strcmp(malformed_reason_name(MAL_REASONS), "unknown") == 0,
	      "malformed_reason_name for every reason");
}

/* ---- Ethernet, VLAN, LLC ------------------------------------------------ */

static void test_ether(void)
{
	struct tcp_spec t = { 40000, 80, 1000, 0, TCP_SYN, 64240, OPT_SYN, sizeof(OPT_SYN), 0 };
	struct pkt p = { .n = 0 };
	struct ip_packet pk;
	struct frame f;

	put_ether(&p, MAC_GW, MAC_STA, 0x0800);
	put_ipv4_tcp(&p, &t);
	decode(1, &p, &f);
	CHECK(f.malformed == MAL_NONE && f.dlt == 1 && f.caplen == p.n && f.wirelen == p.n && f.ts == 1.5,
	      "ether: decoded, lengths and ts");
	CHECK(f.has_mac && mac_eq(&f.dst_mac, MAC_GW) && mac_eq(&f.src_mac, MAC_STA), "ether: MACs");
	CHECK(f.sll_pkttype == -1 && f.ifindex == -1 && !f.wlan.present && !f.radio.present,
	      "ether: no SLL/802.11 facts");
	CHECK(f.n_ip == 1 && f.ip[0].ethertype == 0x0800 && f.ip[0].data == p.b + 14 && f.ip[0].caplen == p.n - 14 &&
		      f.ip[0].wirelen == p.n - 14,
	      "ether: one IPv4 slice after 14 bytes");
	CHECK(decode_ip0(&f, &pk) == MAL_NONE, "ether: IP decodes");
	CHECK(pk.family == 4 && memcmp(pk.src, IP4_A, 4) == 0 && memcmp(pk.dst, IP4_B, 4) == 0 &&
		      pk.ip_len == 20 + tcp_len(&t),
	      "ether: IPv4 addresses and length");
	check_tcp("ether SYN", &pk, &t);
	CHECK(pk.wscale == 7 && pk.has_ts && pk.ts_val == 1 && pk.ts_ecr == 0 && pk.n_sack == 0,
	      "ether SYN: WS 7, TS 1/0, no SACK");

	/* A pure ACK padded to the 60-byte minimum: IP length wins. */
	struct tcp_spec ack = { 80, 40000, 5000, 1001, TCP_ACK, 502, NULL, 0, 0 };

	p.n = 0;
	put_ether(&p, MAC_STA, MAC_GW, 0x0800);
	put_ipv4_tcp(&p, &ack);
	put_zeros(&p, 60 - p.n);
	decode(1, &p, &f);
	CHECK(f.n_ip == 1 && f.ip[0].wirelen == 46, "padded ether: slice keeps the padding (46 bytes)");
	CHECK(decode_ip0(&f, &pk) == MAL_NONE && pk.ip_len == 40 && pk.payload_len == 0 && pk.wscale == -1 &&
		      !pk.has_ts,
	      "padded ether: payload 0 from IP length, no options");

	/* ARP: valid, no IP */
	p.n = 0;
	put_ether(&p, MAC_BCAST, MAC_STA, 0x0806);
	put_zeros(&p, 28);
	decode(1, &p, &f);
	CHECK(f.malformed == MAL_NONE && f.n_ip == 0 && f.has_mac, "ARP: no slice, not malformed");

	/* 802.1Q single tag and 802.1ad + 802.1Q double tag */
	for (int tags = 1; tags <= 3; tags++) {
		p.n = 0;
		put(&p, MAC_GW, 6);
		put(&p, MAC_STA, 6);
		if (tags >= 3) {
			put_be16(&p, 0x9100);
			put_be16(&p, 7);
		}
		if (tags >= 2) {
			put_be16(&p, 0x88a8);
			put_be16(&p, 100);
		}
		put_be16(&p, 0x8100);
		put_be16(&p, 0x2005); /* prio 1, VLAN 5 */
		put_be16(&p, 0x0800);
		put_ipv4_tcp(&p, &ack);
		decode(1, &p, &f);
		CHECK(f.malformed == MAL_NONE && f.n_ip == 1 && f.ip[0].data == p.b + 14 + 4 * tags &&
			      decode_ip0(&f, &pk) == MAL_NONE && pk.sport == 80,
		      "VLAN x%d: IP found after the tags", tags);
	}

	/* 802.3 length + LLC/SNAP carrying IPv4 */
	p.n = 0;
	put_ether(&p, MAC_GW, MAC_STA, (uint16_t)(8 + 20 + tcp_len(&ack)));
	put_llc_snap(&p, 0x0800);
	put_ipv4_tcp(&p, &ack);
	decode(1, &p, &f);
	CHECK(f.malformed == MAL_NONE && f.n_ip == 1 && f.ip[0].data == p.b + 22 && decode_ip0(&f, &pk) == MAL_NONE,
	      "802.3 + SNAP: IPv4");
	/* 802.3 + LLC that is not SNAP (STP) */
	p.n = 0;
	put_ether(&p, MAC_GW, MAC_STA, 38);
	put_u8(&p, 0x42);
	put_u8(&p, 0x42);
	put_u8(&p, 0x03);
	put_zeros(&p, 35);
	decode(1, &p, &f);
	CHECK(f.malformed == MAL_NONE && f.n_ip == 0, "802.3 STP: no slice, not malformed");
}

/* ---- SLL, SLL2, raw ----------------------------------------------------- */

static void test_sll(void)
{
	struct tcp_spec t = { 443, 51000, 7, 9, TCP_ACK | 0x08, 1000, NULL, 0, 100 };
	struct pkt p = { .n = 0 };
	struct ip_packet pk;
	struct frame f;

	/* SLL, outgoing UDP over IPv4 */
	put_be16(&p, 4);      /* pkttype: outgoing */
	put_be16(&p, 1);      /* ARPHRD_ETHER */
	put_be16(&p, 6);
	put(&p, MAC_STA, 6);
	put_zeros(&p, 2);
	put_be16(&p, 0x0800);
	put_ipv4_hdr(&p, 17, 8 + 4, IP4_A, IP4_B);
	put_be16(&p, 5353);
	put_be16(&p, 53);
	put_be16(&p, 12);
	put_be16(&p, 0);
	put_be32(&p, 0xdeadbeef);
	decode(113, &p, &f);
	CHECK(f.malformed == MAL_NONE && f.sll_pkttype == 4 && f.ifindex == -1, "SLL: pkttype 4, no ifindex");
	CHECK(!f.has_mac && mac_eq(&f.src_mac, MAC_STA), "SLL: sender MAC kept, destination unknown");
	CHECK(f.n_ip == 1 && f.ip[0].data == p.b + 16 && decode_ip0(&f, &pk) == MAL_NONE, "SLL: IPv4 after 16 bytes");
	CHECK(pk.proto == 17 && !pk.is_tcp && pk.sport == 5353 && pk.dport == 53 && pk.ip_len == 32,
	      "SLL: UDP ports 5353 > 53");

	/* SLL2, incoming TCP over IPv6 on ifindex 3 */
	p.n = 0;
	put_be16(&p, 0x86dd);
	put_be16(&p, 0);
	put_be32(&p, 3);
	put_be16(&p, 1);
	put_u8(&p, 0); /* to us */
	put_u8(&p, 6);
	put(&p, MAC_GW, 6);
	put_zeros(&p, 2);
	put_ipv6_tcp(&p, 6, NULL, 0, &t);
	decode(276, &p, &f);
	CHECK(f.malformed == MAL_NONE && f.sll_pkttype == 0 && f.ifindex == 3 && mac_eq(&f.src_mac, MAC_GW),
	      "SLL2: pkttype 0, ifindex 3, sender MAC");
	CHECK(f.n_ip == 1 && f.ip[0].ethertype == 0x86dd && f.ip[0].data == p.b + 20 && decode_ip0(&f, &pk) == MAL_NONE,
	      "SLL2: IPv6 after 20 bytes");
	CHECK(pk.family == 6 && memcmp(pk.src, IP6_A, 16) == 0 && memcmp(pk.dst, IP6_B, 16) == 0 &&
		      pk.ip_len == 40 + tcp_len(&t),
	      "SLL2: IPv6 addresses and length");
	check_tcp("SLL2", &pk, &t);

	/* SLL carrying a non-IP protocol code (CAN) */
	p.n = 0;
	put_be16(&p, 0);
	put_be16(&p, 280);
	put_be16(&p, 0);
	put_zeros(&p, 8);
	put_be16(&p, 0x000c);
	put_zeros(&p, 16);
	decode(113, &p, &f);
	CHECK(f.malformed == MAL_NONE && f.n_ip == 0, "SLL CAN: no slice, not malformed");
}

static void test_raw(void)
{
	struct tcp_spec t = { 1, 2, 3, 4, TCP_ACK, 5, NULL, 0, 10 };
	struct pkt p4 = { .n = 0 }, p6 = { .n = 0 };
	struct ip_packet pk;
	struct frame f;

	put_ipv4_tcp(&p4, &t);
	put_ipv6_tcp(&p6, 6, NULL, 0, &t);
	for (int dlt = 12; dlt <= 14; dlt += 2) {
		decode(dlt, &p4, &f);
		CHECK(f.malformed == MAL_NONE && f.n_ip == 1 && f.ip[0].ethertype == 0x0800 && f.ip[0].data == p4.b &&
			      decode_ip0(&f, &pk) == MAL_NONE && pk.family == 4 && pk.payload_len == 10,
		      "RAW (DLT %d) IPv4", dlt);
		decode(dlt, &p6, &f);
		CHECK(f.malformed == MAL_NONE && f.n_ip == 1 && f.ip[0].ethertype == 0x86dd &&
			      decode_ip0(&f, &pk) == MAL_NONE && pk.family == 6 && pk.payload_len == 10,
		      "RAW (DLT %d) IPv6", dlt);
	}
	decode(228, &p4, &f);
	CHECK(f.n_ip == 1 && f.ip[0].ethertype == 0x0800 && decode_ip0(&f, &pk) == MAL_NONE, "DLT_IPV4");
	decode(229, &p6, &f);
	CHECK(f.n_ip == 1 && f.ip[0].ethertype == 0x86dd && decode_ip0(&f, &pk) == MAL_NONE, "DLT_IPV6");
	decode(228, &p6, &f);
	CHECK(f.malformed == MAL_NONE && decode_ip0(&f, &pk) == MAL_BAD_IP, "DLT_IPV4 holding IPv6: bad_ip");
	p4.b[0] = 0x55;
	decode(12, &p4, &f);
	CHECK(f.malformed == MAL_BAD_IP && f.n_ip == 0, "RAW version 5: bad_ip");
	p4.n = 0;
	decode(12, &p4, &f);
	CHECK(f.malformed == MAL_TRUNCATED, "RAW empty: truncated");
}

/* ---- IP and TCP details ------------------------------------------------- */

static void ip_of(const struct pkt *p, uint16_t ethertype, size_t caplen, size_t wirelen, struct ip_slice *s)
{
	s->ethertype = ethertype;
	s->data = p->b;
	s->caplen = caplen;
	s->wirelen = wirelen;
}

static void test_ipv6_ext(void)
{
	struct tcp_spec t = { 22, 60000, 100, 200, TCP_ACK, 300, NULL, 0, 33 };
	struct pkt p = { .n = 0 };
	struct ip_packet pk;
	struct ip_slice s;
	uint8_t ext[8 + 16 + 8];

	/* hop-by-hop (8) -> destination options (16) -> fragment (8, first) -> TCP */
	memset(ext, 0, sizeof(ext));
	ext[0] = 60;
	ext[1] = 0;
	ext[2] = 1; /* PadN */
	ext[3] = 4;
	ext[8] = 44;
	ext[9] = 1;
	ext[24] = 6;
	ext[26] = 0x00;
	ext[27] = 0x01; /* offset 0, more fragments */
	put_ipv6_tcp(&p, 0, ext, sizeof(ext), &t);
	ip_of(&p, 0x86dd, p.n, p.n, &s);
	CHECK(ip_decode(&s, &pk) == MAL_NONE, "IPv6 hop-by-hop + dstopts + first fragment: decodes");
	CHECK(pk.proto == 6 && pk.ip_len == p.n && pk.payload_len == 33, "IPv6 ext: TCP, payload 33 after 32 ext bytes");
	check_tcp("IPv6 ext", &pk, &t);

	/* a later fragment: no transport header */
	p.b[40 + 24 + 3] = 0x08 | 0x01; /* offset 1 (8 bytes) */
	CHECK(ip_decode(&s, &pk) == MAL_NONE && !pk.is_tcp && pk.proto == 6 && pk.sport == 0,
	      "IPv6 later fragment: no TCP header, not malformed");

	/* extension header longer than the payload length */
	p.b[40 + 8 + 1] = 200;
	CHECK(ip_decode(&s, &pk) == MAL_BAD_IP, "IPv6 ext header past payload length: bad_ip");
}

static void test_tcp_options(void)
{
	/* TS + SACK with 1, 2 and 3 blocks (40 bytes of options at most) */
	for (int blocks = 1; blocks <= 3; blocks++) {
		uint8_t opts[40];
		size_t n = 0;
		struct pkt p = { .n = 0 };
		struct ip_packet pk;
		struct ip_slice s;

		opts[n++] = 1;
		opts[n++] = 1;
		opts[n++] = 8;
		opts[n++] = 10;
		for (int i = 0; i < 8; i++)
			opts[n++] = (uint8_t)(i < 4 ? 0x11 : 0x22);
		opts[n++] = 1;
		opts[n++] = 1;
		opts[n++] = 5;
		opts[n++] = (uint8_t)(2 + 8 * blocks);
		for (int b = 0; b < blocks; b++) {
			uint32_t left = 1000u * (uint32_t)(b + 1), right = left + 500;

			for (int k = 3; k >= 0; k--)
				opts[n++] = (uint8_t)(left >> (8 * k));
			for (int k = 3; k >= 0; k--)
				opts[n++] = (uint8_t)(right >> (8 * k));
		}
		struct tcp_spec t = { 5001, 41000, 77, 88, TCP_ACK, 1024, opts, n, 0 };

		put_ipv4_tcp(&p, &t);
		ip_of(&p, 0x0800, p.n, p.n, &s);
		CHECK(ip_decode(&s, &pk) == MAL_NONE && pk.has_ts && pk.ts_val == 0x11111111 && pk.ts_ecr == 0x22222222,
		      "SACK x%d: TS 0x11111111/0x22222222", blocks);
		bool edges = pk.n_sack == blocks;

		for (int b = 0; edges && b < blocks; b++)
			edges = pk.sack_left[b] == 1000u * (uint32_t)(b + 1) && pk.sack_right[b] == pk.sack_left[b] + 500;
		CHECK(edges, "SACK x%d: %u blocks with their edges", blocks, pk.n_sack);
		check_tcp("SACK", &pk, &t);
	}

	/* four SACK blocks without TS (all 40 bytes), WS 15 clamped to 14 */
	{
		uint8_t opts[40] = { 3, 3, 15, 1, 1, 1, 5, 34 };
		struct pkt p = { .n = 0 };
		struct ip_packet pk;
		struct ip_slice s;

		for (int b = 0; b < 4; b++) {
			opts[8 + 8 * b + 3] = (uint8_t)(b + 1);
			opts[8 + 8 * b + 7] = (uint8_t)(b + 2);
		}
		struct tcp_spec t = { 1, 2, 3, 4, TCP_ACK, 5, opts, sizeof(opts), 0 };

		put_ipv4_tcp(&p, &t);
		ip_of(&p, 0x0800, p.n, p.n, &s);
		CHECK(ip_decode(&s, &pk) == MAL_NONE && pk.n_sack == 4 && pk.sack_left[3] == 4 && pk.sack_right[3] == 5,
		      "SACK x4 without TS");
		CHECK(pk.wscale == 14 && !pk.has_ts, "WS 15 is used as 14");
	}

	/* broken options and data offsets */
	{
		static const uint8_t bad_len[4] = { 8, 1, 0, 0 };       /* TS with length 1 */
		static const uint8_t overrun[4] = { 1, 5, 10, 0 };      /* SACK longer than the options */
		static const uint8_t bad_sack[12] = { 5, 6, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0 };
		const struct {
			const uint8_t *o;
			size_t n;
			const char *what;
		} cases[] = { { bad_len, 4, "option length 1" },
			      { overrun, 4, "option past the header" },
			      { bad_sack, 12, "SACK of 4 bytes" } };

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			struct tcp_spec t = { 1, 2, 3, 4, TCP_ACK, 5, cases[i].o, cases[i].n, 0 };
			struct pkt p = { .n = 0 };
			struct ip_packet pk;
			struct ip_slice s;

			put_ipv4_tcp(&p, &t);
			ip_of(&p, 0x0800, p.n, p.n, &s);
			CHECK(ip_decode(&s, &pk) == MAL_BAD_TCP, "%s: bad_tcp", cases[i].what);
		}

		struct tcp_spec t = { 1, 2, 3, 4, TCP_ACK, 5, NULL, 0, 0 };
		struct pkt p = { .n = 0 };
		struct ip_packet pk;
		struct ip_slice s;

		put_ipv4_tcp(&p, &t);
		p.b[20 + 12] = 0x40; /* data offset 4 */
		ip_of(&p, 0x0800, p.n, p.n, &s);
		CHECK(ip_decode(&s, &pk) == MAL_BAD_TCP, "TCP data offset 4: bad_tcp");
		p.b[20 + 12] = 0x60; /* 24 bytes in a 20-byte segment */
		CHECK(ip_decode(&s, &pk) == MAL_BAD_TCP, "TCP data offset past the IP length: bad_tcp");
	}
}

static void test_ip_lengths(void)
{
	static const uint8_t ts_opts[12] = { 1, 1, 8, 10, 0, 0, 0, 9, 0, 0, 0, 8 };
	struct tcp_spec t = { 80, 50000, 1, 2, TCP_ACK, 3, ts_opts, sizeof(ts_opts), 1448 };
	struct pkt p = { .n = 0 };
	struct ip_packet pk;
	struct ip_slice s;
	struct frame f;

	/* tcpdump -s 96: Ethernet + IPv4 + TCP with TS, payload cut */
	put_ether(&p, MAC_GW, MAC_STA, 0x0800);
	put_ipv4_tcp(&p, &t);
	frame_decode(link_type_find(1), 0, p.b, 96, (uint32_t)p.n, &f);
	CHECK(f.malformed == MAL_NONE && f.n_ip == 1 && f.ip[0].caplen == 82 && f.ip[0].wirelen == p.n - 14,
	      "snaplen 96: slice has 82 of %zu bytes", p.n - 14);
	CHECK(decode_ip0(&f, &pk) == MAL_NONE && pk.payload_len == 1448 && pk.ip_len == 1500 && pk.has_ts &&
		      pk.ts_val == 9,
	      "snaplen 96: payload 1448 from the IP header, TS read");

	/* IPv4: total length beyond the wire, header length below 20 */
	ip_of(&p, 0x0800, 200, 200, &s);
	s.data = p.b + 14;
	CHECK(ip_decode(&s, &pk) == MAL_BAD_IP && pk.ip_len == 200, "IPv4 total 1500 in 200 wire bytes: bad_ip");
	p.b[14] = 0x44;
	ip_of(&p, 0x0800, p.n - 14, p.n - 14, &s);
	s.data = p.b + 14;
	CHECK(ip_decode(&s, &pk) == MAL_BAD_IP, "IPv4 IHL 4: bad_ip");
	p.b[14] = 0x45;
	/* total length 0 (TSO on the sender): the wire length stands in */
	set_be16(&p, 16, 0);
	CHECK(ip_decode(&s, &pk) == MAL_NONE && pk.ip_len == p.n - 14 && pk.payload_len == 1448,
	      "IPv4 total length 0 (TSO): wire length used");
	/* IPv4 options, then a later fragment */
	set_be16(&p, 16, 1500);
	set_be16(&p, 20, 0x0010); /* offset 16*8 */
	CHECK(ip_decode(&s, &pk) == MAL_NONE && !pk.is_tcp && pk.proto == 6, "IPv4 later fragment: no TCP");
}

/* ---- 802.11 ------------------------------------------------------------- */

static void put_wlan_tcp_body(struct pkt *p, const struct tcp_spec *t)
{
	put_llc_snap(p, 0x0800);
	put_ipv4_tcp(p, t);
}

static void test_80211_data(void)
{
	struct tcp_spec t = { 40000, 80, 10, 20, TCP_ACK | 0x08, 500, NULL, 0, 50 };
	struct pkt p = { .n = 0 };
	struct ip_packet pk;
	struct frame f;

	/* ToDS QoS data from a station, retry */
	put_wlan_data_hdr(&p, 8, FC_TO_DS | FC_RETRY, MAC_AP, MAC_STA, MAC_GW, 1234, 0);
	put_le16(&p, 0x0005); /* TID 5, normal ack */
	put_wlan_tcp_body(&p, &t);
	decode(105, &p, &f);
	CHECK(f.malformed == MAL_NONE && f.wlan.present && f.wlan.type == 2 && f.wlan.subtype == 8,
	      "ToDS: QoS data");
	CHECK(f.wlan.to_ds && !f.wlan.from_ds && f.wlan.retry && !f.wlan.protected_frame && !f.wlan.amsdu,
	      "ToDS: flags");
	CHECK(mac_eq(&f.wlan.ra, MAC_AP) && mac_eq(&f.wlan.ta, MAC_STA) && f.wlan.has_ta, "ToDS: RA = BSSID, TA = STA");
	CHECK(f.wlan.dir == WLAN_DIR_UP && mac_eq(&f.wlan.station, MAC_STA), "ToDS: uplink, station = TA");
	CHECK(f.wlan.seq == 1234 && f.wlan.frag == 0, "ToDS: seq 1234");
	CHECK(f.wlan.mpdu_len == p.n + 4 && f.wlan.airtime_us == 0 && !f.radio.present,
	      "DLT 105: mpdu_len counts the stripped FCS; no rate, no airtime");
	CHECK(f.n_ip == 1 && f.ip[0].data == p.b + 26 + 8 && decode_ip0(&f, &pk) == MAL_NONE, "ToDS: IPv4 after LLC/SNAP");
	check_tcp("ToDS", &pk, &t);

	/* FromDS plain data to a station; then to a group address */
	p.n = 0;
	put_wlan_data_hdr(&p, 0, FC_FROM_DS, MAC_STA, MAC_AP, MAC_GW, 7, 3);
	put_wlan_tcp_body(&p, &t);
	decode(105, &p, &f);
	CHECK(f.malformed == MAL_NONE && f.wlan.dir == WLAN_DIR_DOWN && mac_eq(&f.wlan.station, MAC_STA) &&
		      mac_eq(&f.wlan.ra, MAC_STA) && mac_eq(&f.wlan.ta, MAC_AP) && f.wlan.frag == 3 && f.n_ip == 1,
	      "FromDS: downlink, station = RA");
	memcpy(p.b + 4, MAC_BCAST, 6);
	decode(105, &p, &f);
	CHECK(f.malformed == MAL_NONE && f.wlan.dir == WLAN_DIR_NONE && f.n_ip == 1, "FromDS broadcast: no station");

	/* WDS (four addresses) and IBSS: no station role, IP still found */
	p.n = 0;
	put_wlan_data_hdr(&p, 8, FC_TO_DS | FC_FROM_DS, MAC_AP, MAC_STA2, MAC_GW, 1, 0);
	put(&p, MAC_STA, 6);
	put_le16(&p, 0);
	put_wlan_tcp_body(&p, &t);
	decode(105, &p, &f);
	CHECK(f.malformed == MAL_NONE && f.wlan.dir == WLAN_DIR_NONE && f.n_ip == 1 && f.ip[0].data == p.b + 32 + 8,
	      "WDS: no station, IP after 32-byte header");
	p.n = 0;
	put_wlan_data_hdr(&p, 0, 0, MAC_STA2, MAC_STA, MAC_GW, 1, 0);
	put_wlan_tcp_body(&p, &t);
	decode(105, &p, &f);
	CHECK(f.malformed == MAL_NONE && f.wlan.dir == WLAN_DIR_NONE && f.n_ip == 1, "IBSS: no station");

	/* QoS + HT control (order bit) */
	p.n = 0;
	put_wlan_data_hdr(&p, 8, FC_TO_DS | FC_ORDER, MAC_AP, MAC_STA, MAC_GW, 2, 0);
	put_le16(&p, 0);
	put_le32(&p, 0xfffffffc);
	put_wlan_tcp_body(&p, &t);
	decode(105, &p, &f);
	CHECK(f.malformed == MAL_NONE && f.n_ip == 1 && f.ip[0].data == p.b + 30 + 8 && decode_ip0(&f, &pk) == MAL_NONE,
	      "QoS + HT control: IP after 30-byte header");

	/* protected: counted, not parsed */
	p.n = 0;
	put_wlan_data_hdr(&p, 8, FC_TO_DS | FC_PROTECTED, MAC_AP, MAC_STA, MAC_GW, 3, 0);
	put_le16(&p, 0);
	put_zeros(&p, 8 + 100 + 8); /* CCMP header, ciphertext, MIC */
	decode(105, &p, &f);
	CHECK(f.malformed == MAL_NONE && f.wlan.present && f.wlan.protected_frame && f.n_ip == 0 &&
		      f.wlan.dir == WLAN_DIR_UP,
	      "protected data: station known, no IP, not malformed");

	/* null and QoS null: no body */
	for (unsigned subtype = 4; subtype <= 12; subtype += 8) {
		p.n = 0;
		put_wlan_data_hdr(&p, subtype, FC_TO_DS, MAC_AP, MAC_STA, MAC_AP, 4, 0);
		if (subtype == 12)
			put_le16(&p, 0);
		decode(105, &p, &f);
		CHECK(f.malformed == MAL_NONE && f.wlan.present && f.wlan.subtype == subtype && f.n_ip == 0 &&
			      f.wlan.dir == WLAN_DIR_UP,
		      "%s: no payload", subtype == 4 ? "null data" : "QoS null");
	}

	/* data with a non-IP SNAP ethertype (EAPOL) and with an empty body */
	p.n = 0;
	put_wlan_data_hdr(&p, 0, FC_FROM_DS, MAC_STA, MAC_AP, MAC_AP, 5, 0);
	put_llc_snap(&p, 0x888e);
	put_zeros(&p, 95);
	decode(105, &p, &f);
	CHECK(f.malformed == MAL_NONE && f.n_ip == 0, "EAPOL: no slice, not malformed");
	p.n = 24;
	decode(105, &p, &f);
	CHECK(f.malformed == MAL_NONE && f.n_ip == 0 && f.wlan.present, "data with an empty body: fine");

	/* version 1 and extension frames */
	p.b[0] |= 0x01;
	decode(105, &p, &f);
	CHECK(f.malformed == MAL_BAD_80211, "802.11 version 1: bad_80211");
	p.b[0] = 0x0c; /* type 3 */
	decode(105, &p, &f);
	CHECK(f.malformed == MAL_UNSUPPORTED, "802.11 extension frame: unsupported");
	p.n = 1;
	decode(105, &p, &f);
	CHECK(f.malformed == MAL_BAD_80211, "1-byte 802.11 frame: bad_80211");
}

static void test_80211_amsdu(void)
{
	struct tcp_spec t1 = { 1111, 80, 1, 2, TCP_ACK, 3, NULL, 0, 21 };
	struct tcp_spec t2 = { 2222, 443, 4, 5, TCP_ACK, 6, NULL, 0, 30 };
	struct pkt p = { .n = 0 };
	struct ip_packet pk;
	struct frame f;
	size_t sub1, body1, body2;

	put_wlan_data_hdr(&p, 8, FC_FROM_DS, MAC_STA, MAC_AP, MAC_GW, 9, 0);
	put_le16(&p, 0x0080); /* A-MSDU present */
	sub1 = p.n;
	put(&p, MAC_STA, 6);
	put(&p, MAC_GW, 6);
	put_be16(&p, (uint16_t)(8 + 20 + tcp_len(&t1)));
	body1 = p.n + 8;
	put_wlan_tcp_body(&p, &t1);
	while ((p.n - sub1) % 4)
		put_u8(&p, 0); /* padding before the next subframe */
	put(&p, MAC_STA, 6);
	put(&p, MAC_GW, 6);
	put_be16(&p, (uint16_t)(8 + 20 + tcp_len(&t2)));
	body2 = p.n + 8;
	put_wlan_tcp_body(&p, &t2);
	decode(105, &p, &f);
	CHECK(f.malformed == MAL_NONE && f.wlan.amsdu && f.n_ip == 2, "A-MSDU: two subframes, two slices");
	CHECK(f.ip[0].data == p.b + body1 && f.ip[0].wirelen == 20 + tcp_len(&t1) && f.ip[1].data == p.b + body2 &&
		      f.ip[1].wirelen == 20 + tcp_len(&t2),
	      "A-MSDU: slices at the subframe bodies (padding skipped)");
	CHECK(ip_decode(&f.ip[0], &pk) == MAL_NONE && pk.sport == 1111 && pk.payload_len == 21, "A-MSDU: subframe 1");
	CHECK(ip_decode(&f.ip[1], &pk) == MAL_NONE && pk.sport == 2222 && pk.payload_len == 30, "A-MSDU: subframe 2");
	/* a subframe length past the frame */
	set_be16(&p, sub1 + 12, 2000);
	decode(105, &p, &f);
	CHECK(f.malformed == MAL_BAD_80211 && f.n_ip == 0, "A-MSDU subframe longer than the frame: bad_80211");
}

static void test_80211_control_mgmt(void)
{
	struct pkt p = { .n = 0 };
	struct frame f;
	uint8_t ta_bw[6];

	put_fc(&p, 1, 13, 0); /* ACK */
	put_le16(&p, 0);
	put(&p, MAC_STA, 6);
	decode(105, &p, &f);
	CHECK(f.malformed == MAL_NONE && f.wlan.present && f.wlan.type == 1 && f.wlan.subtype == 13 && !f.wlan.has_ta &&
		      mac_eq(&f.wlan.ra, MAC_STA) && f.wlan.dir == WLAN_DIR_NONE && f.wlan.mpdu_len == 14,
	      "ACK: RA only, 14 bytes with FCS");

	memcpy(ta_bw, MAC_STA, 6);
	ta_bw[0] |= 0x01; /* VHT bandwidth signalling */
	p.n = 0;
	put_fc(&p, 1, 11, 0); /* RTS */
	put_le16(&p, 300);
	put(&p, MAC_AP, 6);
	put(&p, ta_bw, 6);
	decode(105, &p, &f);
	CHECK(f.malformed == MAL_NONE && f.wlan.subtype == 11 && f.wlan.has_ta && mac_eq(&f.wlan.ta, MAC_STA) &&
		      mac_eq(&f.wlan.ra, MAC_AP),
	      "RTS: RA and TA (bandwidth-signalling bit cleared)");
	p.n = 12;
	decode(105, &p, &f);
	CHECK(f.malformed == MAL_BAD_80211 && !f.wlan.present, "RTS of 12 bytes: bad_80211");

	p.n = 0;
	put_fc(&p, 1, 9, 0); /* BlockAck */
	put_le16(&p, 0);
	put(&p, MAC_STA, 6);
	put(&p, MAC_AP, 6);
	put_le16(&p, 0x0004);
	put_le16(&p, 0);
	put_zeros(&p, 8);
	decode(105, &p, &f);
	CHECK(f.malformed == MAL_NONE && f.wlan.has_ta && mac_eq(&f.wlan.ta, MAC_AP) && f.wlan.mpdu_len == 32,
	      "BlockAck: TA, 32 bytes");

	p.n = 0;
	put_fc(&p, 0, 8, FC_RETRY); /* beacon */
	put_le16(&p, 0);
	put(&p, MAC_BCAST, 6);
	put(&p, MAC_AP, 6);
	put(&p, MAC_AP, 6);
	put_le16(&p, 100 << 4);
	put_zeros(&p, 12 + 10);
	decode(105, &p, &f);
	CHECK(f.malformed == MAL_NONE && f.wlan.type == 0 && f.wlan.subtype == 8 && f.wlan.retry &&
		      mac_eq(&f.wlan.ta, MAC_AP) && f.wlan.seq == 100 && f.n_ip == 0 && f.wlan.dir == WLAN_DIR_NONE,
	      "beacon: management, TA, seq, no IP");
}

/* ---- radiotap and airtime ----------------------------------------------- */

static unsigned div_up(unsigned long long a, unsigned long long b)
{
	return (unsigned)((a + b - 1) / b);
}

/* Clause 17 OFDM TXTIME, in us; +6 signal extension in 2.4 GHz */
static unsigned ofdm_us(unsigned mbps, unsigned len, bool band24)
{
	return 20 + div_up(16 + 8ull * len + 6, 4ull * mbps) * 4 + (band24 ? 6 : 0);
}

static unsigned ampdu_ack_rate(unsigned kbps)
{
	return kbps >= 24000 ? 24 : kbps >= 12000 ? 12 : 6;
}

/* A QoS data frame (ToDS, normal ack) whose MPDU is mpdu_len bytes with
 * the FCS (the FCS bytes included in the capture when fcs). */
static size_t put_wlan_sized(struct pkt *p, size_t mpdu_len, bool fcs)
{
	size_t start = p->n, body;
	struct tcp_spec t = { 1, 2, 3, 4, TCP_ACK, 5, NULL, 0, 0 };

	put_wlan_data_hdr(p, 8, FC_TO_DS, MAC_AP, MAC_STA, MAC_GW, 1, 0);
	put_le16(p, 0);
	body = mpdu_len - 26 - 4 - 8 - 40;
	t.payload = body;
	put_wlan_tcp_body(p, &t);
	if (fcs)
		put_le32(p, 0xfcfcfcfc);
	return p->n - start;
}

static void test_radiotap_legacy(void)
{
	struct pkt p = { .n = 0 };
	struct ip_packet pk;
	struct frame f, g;
	struct rt_spec s = { .phy = RT_LEGACY, .flags = 0x10, .rate = 108, .freq = 5180, .signal = -52 };
	size_t rt_len;
	unsigned want;

	put_radiotap(&p, &s);
	rt_len = p.n;
	put_wlan_sized(&p, 1500, true);
	decode(127, &p, &f);
	frame_decode_airtime(link_type_find(127), 0, p.b, (uint32_t)p.n, (uint32_t)p.n, false, &g);
	CHECK(f.malformed == MAL_NONE && f.radio.present && f.radio.phy == PHY_OFDM && f.radio.rate_kbps == 54000,
	      "radiotap rate 108: OFDM 54 Mbit/s");
	CHECK(f.radio.freq_mhz == 5180 && f.radio.has_signal && f.radio.signal_dbm == -52 && f.radio.fcs_at_end &&
		      !f.radio.bad_fcs && !f.radio.short_preamble && !f.radio.ampdu,
	      "radiotap: channel 5180, -52 dBm, FCS at end");
	CHECK(f.wlan.mpdu_len == 1500 && f.n_ip == 1 && f.ip[0].wirelen == 1500 - 4 - 26 - 8 &&
		      decode_ip0(&f, &pk) == MAL_NONE && pk.payload_len == 1500 - 4 - 26 - 8 - 40,
	      "FCS at end: in mpdu_len (1500), not in the IP slice");
	/* the brief's example: 20 + ceil((16+6+8*1500)/216)*4 = 244 us */
	want = 20 + div_up(16 + 6 + 8 * 1500, 216) * 4;
	CHECK(g.wlan.airtime_us == want && want == 244, "OFDM 54, 1500 bytes, 5 GHz: %u us without ACK (want %u)",
	      g.wlan.airtime_us, want);
	want += 16 + ofdm_us(24, 14, false);
	CHECK(f.wlan.airtime_us == want && want == 288, "... %u us with SIFS 16 + ACK at 24 Mbit/s (want %u)",
	      f.wlan.airtime_us, want);
	CHECK(airtime_us(&f.radio, 1500, false) == 244 && airtime_us(&f.radio, 1500, true) == 288,
	      "airtime_us agrees with the decoder");

	/* the same at 2.4 GHz (ERP): signal extension after both PPDUs, SIFS 10 */
	f.radio.freq_mhz = 2437;
	want = ofdm_us(54, 1500, true) + 10 + ofdm_us(24, 14, true);
	CHECK(airtime_us(&f.radio, 1500, true) == want && want == 250 + 10 + 34,
	      "ERP-OFDM 54 at 2.4 GHz: %u us (want %u)", airtime_us(&f.radio, 1500, true), want);
	f.radio.rate_kbps = 6000;
	CHECK(airtime_us(&f.radio, 100, true) == ofdm_us(6, 100, true) + 10 + ofdm_us(6, 14, true),
	      "ERP-OFDM 6: ACK at 6 Mbit/s");

	/* DSSS 11 Mbit/s, short preamble, 2.4 GHz; bad FCS */
	p.n = 0;
	s = (struct rt_spec){ .phy = RT_LEGACY, .flags = 0x02 | 0x10 | 0x40, .rate = 22, .freq = 2412, .signal = -70 };
	put_radiotap(&p, &s);
	put_wlan_sized(&p, 1000, true);
	decode(127, &p, &f);
	want = 96 + div_up(8 * 1000, 11) + 10 + 96 + div_up(8 * 14, 2);
	CHECK(f.malformed == MAL_NONE && f.radio.phy == PHY_DSSS && f.radio.rate_kbps == 11000 && f.radio.short_preamble &&
		      f.radio.bad_fcs,
	      "radiotap rate 22: DSSS 11 Mbit/s, short preamble, bad FCS");
	CHECK(f.wlan.airtime_us == want && want == 986, "DSSS 11 short, 1000 bytes + ACK at 2: %u us (want %u)",
	      f.wlan.airtime_us, want);
	CHECK(f.wlan.present && f.n_ip == 0, "bad FCS: header counted, no IP handed up");
	/* 1 Mbit/s ignores the short-preamble flag (16.2.2.3) */
	f.radio.rate_kbps = 1000;
	CHECK(airtime_us(&f.radio, 100, true) == 192 + 800 + 10 + 192 + 112, "DSSS 1 Mbit/s: long preamble, ACK at 1");

	/* no FCS in the capture: mpdu_len adds it */
	p.n = 0;
	s = (struct rt_spec){ .phy = RT_LEGACY, .flags = 0, .rate = 12, .freq = 5200 };
	put_radiotap(&p, &s);
	put_wlan_sized(&p, 200, false);
	decode(127, &p, &f);
	CHECK(f.malformed == MAL_NONE && f.wlan.mpdu_len == 200 && f.wlan.airtime_us == ofdm_us(6, 200, false) + 16 +
										      ofdm_us(6, 14, false),
	      "no FCS at end: mpdu_len 200 with the FCS, OFDM 6 airtime");
	(void)rt_len;
}

static unsigned ht_ltf(unsigned nss)
{
	return nss == 1 ? 1 : nss == 2 ? 2 : nss <= 4 ? 4 : nss <= 6 ? 6 : 8;
}

static void test_radiotap_ht_vht_he(void)
{
	struct pkt p = { .n = 0 };
	struct frame f, g;
	unsigned ndbps, nsym, want;

	/* HT MCS 15 (2 streams), 40 MHz, short GI: 300 Mbit/s */
	struct rt_spec s = { .phy = RT_HT, .flags = 0x10, .freq = 5745, .signal = -60, .mcs_known = 0x07,
			     .mcs_flags = 0x01 | 0x04, .mcs = 15 };

	put_radiotap(&p, &s);
	put_wlan_sized(&p, 1538, true);
	decode(127, &p, &f);
	frame_decode_airtime(link_type_find(127), 0, p.b, (uint32_t)p.n, (uint32_t)p.n, false, &g);
	CHECK(f.malformed == MAL_NONE && f.radio.phy == PHY_HT && f.radio.mcs == 15 && f.radio.nss == 2 &&
		      f.radio.bw_mhz == 40 && f.radio.gi_ns_div100 == 4 && f.radio.rate_kbps == 300000,
	      "HT MCS 15 40 MHz SGI: 300000 kbit/s (got %u)", f.radio.rate_kbps);
	ndbps = 108 * 6 * 5 / 6 * 2; /* 1080 */
	nsym = div_up(16 + 8 * 1538 + 6, ndbps);
	want = 20 + 8 + 4 + 4 * ht_ltf(2) + 4 * div_up(nsym * 36ull, 40); /* 3.6 us symbols, rounded to 4 us */
	CHECK(g.wlan.airtime_us == want && want == 84, "HT: %u us without ACK (want %u)", g.wlan.airtime_us, want);
	CHECK(f.wlan.airtime_us == want + 16 + ofdm_us(24, 14, false), "HT: + SIFS 16 + ACK at 24 Mbit/s");
	/* unknown bandwidth/GI bits fall back to 20 MHz, long GI */
	p.n = 0;
	s.mcs_known = 0x02;
	s.mcs = 7;
	put_radiotap(&p, &s);
	put_wlan_sized(&p, 300, true);
	decode(127, &p, &f);
	CHECK(f.radio.bw_mhz == 20 && f.radio.gi_ns_div100 == 8 && f.radio.rate_kbps == 65000,
	      "HT MCS 7 with only the MCS known: 20 MHz long GI, 65 Mbit/s");

	/* VHT MCS 9, 2 streams, 80 MHz, short GI: 866.7 Mbit/s */
	p.n = 0;
	s = (struct rt_spec){ .phy = RT_VHT, .flags = 0x10, .freq = 5180, .signal = -45, .vht_known = 0x0044,
			      .vht_flags = 0x04, .vht_bw = 4, .vht_mcs_nss = 0x92 };
	put_radiotap(&p, &s);
	put_wlan_sized(&p, 4000, true);
	frame_decode_airtime(link_type_find(127), 0, p.b, (uint32_t)p.n, (uint32_t)p.n, false, &g);
	ndbps = 234 * 8 * 5 / 6 * 2; /* 3120 */
	CHECK(g.malformed == MAL_NONE && g.radio.phy == PHY_VHT && g.radio.mcs == 9 && g.radio.nss == 2 &&
		      g.radio.bw_mhz == 80 && g.radio.gi_ns_div100 == 4 && g.radio.rate_kbps == 866666,
	      "VHT MCS 9 NSS 2 80 MHz SGI: 866666 kbit/s (got %u)", g.radio.rate_kbps);
	nsym = div_up(16 + 8 * 4000 + 6, ndbps);
	want = 20 + 8 + 4 + 4 * ht_ltf(2) + 4 + 4 * div_up(nsym * 36ull, 40);
	CHECK(g.wlan.airtime_us == want && want == 84, "VHT: %u us (want %u)", g.wlan.airtime_us, want);

	/* HE SU MCS 11, 2 streams, 80 MHz, 0.8 us GI: 1201 Mbit/s */
	p.n = 0;
	s = (struct rt_spec){ .phy = RT_HE, .flags = 0x10, .freq = 5955, .signal = -40 };
	s.he[0] = 0x0020 | 0x4000; /* MCS known, BW known, HE_SU */
	s.he[1] = 0x0002;          /* GI known */
	s.he[2] = 11 << 8;
	s.he[4] = 2 | 0 << 4; /* 80 MHz, 0.8 us */
	s.he[5] = 2;          /* NSTS */
	put_radiotap(&p, &s);
	put_wlan_sized(&p, 5000, true);
	frame_decode_airtime(link_type_find(127), 0, p.b, (uint32_t)p.n, (uint32_t)p.n, false, &g);
	CHECK(g.malformed == MAL_NONE && g.radio.phy == PHY_HE && g.radio.mcs == 11 && g.radio.nss == 2 &&
		      g.radio.bw_mhz == 80 && g.radio.gi_ns_div100 == 8 &&
		      g.radio.rate_kbps == (uint32_t)(980.0 * 10 * 5 / 6 * 2 / 13.6 * 1000),
	      "HE MCS 11 NSS 2 80 MHz 0.8 GI: %u kbit/s", g.radio.rate_kbps);
	{
		double n_dbps = 980.0 * 10 * 5 / 6 * 2;
		unsigned symbols = (unsigned)((16 + 8 * 5000 + 6) / n_dbps) + 1; /* 2.45 -> 3 */
		double us = 20 + 4 + 8 + 4 + 2 * (6.4 + 0.8) + symbols * 13.6;

		want = (unsigned)us + 1; /* 91.2 -> 92 */
		CHECK(g.wlan.airtime_us == want && want == 92, "HE: %u us (want %u)", g.wlan.airtime_us, want);
	}
	/* HE with a 3.2 us GI and a 106-tone RU */
	p.n = 0;
	s.he[4] = 6 | 2 << 4;
	s.he[5] = 1;
	s.he[2] = 5 << 8;
	put_radiotap(&p, &s);
	put_wlan_sized(&p, 300, true);
	decode(127, &p, &f);
	CHECK(f.radio.gi_ns_div100 == 32 && f.radio.bw_mhz == 20 && f.radio.rate_kbps == 102 * 6 * 2 * 1000 / 3 / 16,
	      "HE 106-tone RU, MCS 5, 3.2 us GI: %u kbit/s", f.radio.rate_kbps);
	/* HE without NSTS: rate unknown, no airtime */
	s.he[5] = 0;
	p.n = 0;
	put_radiotap(&p, &s);
	put_wlan_sized(&p, 300, true);
	decode(127, &p, &f);
	CHECK(f.malformed == MAL_NONE && f.radio.phy == PHY_HE && f.radio.rate_kbps == 0 && f.wlan.airtime_us == 0,
	      "HE without NSTS: rate unknown, airtime 0");
}

static void test_rates(void)
{
	CHECK(ht_rate_kbps(0, 20, 800) == 6500 && ht_rate_kbps(7, 20, 800) == 65000 && ht_rate_kbps(7, 20, 400) == 72222,
	      "HT MCS 0/7 20 MHz: 6.5, 65, 72.2 Mbit/s");
	CHECK(ht_rate_kbps(15, 40, 400) == 300000 && ht_rate_kbps(31, 40, 400) == 600000 && ht_rate_kbps(32, 40, 800) == 0,
	      "HT MCS 15/31 40 MHz SGI: 300, 600; MCS 32 unknown");
	CHECK(vht_rate_kbps(0, 1, 20, 800) == 6500 && vht_rate_kbps(9, 1, 80, 400) == 433333 &&
		      vht_rate_kbps(9, 8, 160, 400) == 6933333 && vht_rate_kbps(10, 1, 20, 800) == 0 &&
		      vht_rate_kbps(0, 0, 20, 800) == 0,
	      "VHT: 6.5, 433.3, 6933.3 Mbit/s; MCS 10 and NSS 0 unknown");
	CHECK(he_rate_kbps(0, 1, 20, 800) == 8602 && he_rate_kbps(0, 1, 20, 3200) == 7312 &&
		      he_rate_kbps(11, 1, 20, 800) == 143382 && he_rate_kbps(11, 8, 160, 800) == 9607843 &&
		      he_rate_kbps(12, 1, 20, 800) == 0,
	      "HE: 8.6, 7.3, 143.4, 9607.8 Mbit/s; MCS 12 unknown");
	CHECK(he_ru_rate_kbps(0, 1, 26, 800) == 882 && he_ru_rate_kbps(11, 1, 242, 800) == he_rate_kbps(11, 1, 20, 800),
	      "HE 26-tone RU MCS 0: 0.9 Mbit/s; 242-tone = 20 MHz");

	struct radio_info r = { .phy = PHY_NONE, .rate_kbps = 54000 };

	CHECK(airtime_us(&r, 100, true) == 0 && airtime_us(NULL, 100, true) == 0, "airtime 0 without a PHY");
	r.phy = PHY_OFDM;
	r.rate_kbps = 0;
	CHECK(airtime_us(&r, 100, true) == 0, "airtime 0 without a rate");
}

static void test_ampdu(void)
{
	struct pkt p = { .n = 0 };
	struct frame f, g;
	struct rt_spec s = { .phy = RT_HT, .flags = 0x10, .freq = 5180, .signal = -50, .mcs_known = 0x07, .mcs = 7,
			     .ampdu = true, .ampdu_ref = 42, .ampdu_flags = 0x0004 };
	unsigned want_mid, want_last;

	/* HT MCS 7 20 MHz long GI: N_DBPS 260, 4 us symbols */
	put_radiotap(&p, &s);
	put_wlan_sized(&p, 240, true);
	frame_decode_airtime(link_type_find(127), 0, p.b, (uint32_t)p.n, (uint32_t)p.n, false, &g);
	want_mid = (unsigned)((8 * (4 + 240) * 4000.0 / 260 + 500) / 1000); /* 30.03 -> 30 */
	CHECK(g.malformed == MAL_NONE && g.radio.ampdu && g.radio.ampdu_ref == 42 && g.wlan.airtime_us == want_mid &&
		      want_mid == 30,
	      "A-MPDU middle subframe: symbols only, %u us (want %u)", g.wlan.airtime_us, want_mid);
	CHECK(airtime_ampdu_subframe_us(&g.radio, 240, false, true) == want_mid, "middle subframe: no BlockAck");
	p.n = 0;
	s.ampdu_flags = 0x0004 | 0x0008;
	put_radiotap(&p, &s);
	put_wlan_sized(&p, 240, true);
	frame_decode_airtime(link_type_find(127), 0, p.b, (uint32_t)p.n, (uint32_t)p.n, false, &g);
	decode(127, &p, &f);
	/* + preamble 36, service/tail 22 bits, half a symbol for rounding */
	want_last = (unsigned)(((8 * (4 + 240) + 22) * 4000.0 / 260 + 36000 + 2000 + 500) / 1000);
	CHECK(g.wlan.airtime_us == want_last && want_last == 68, "A-MPDU last subframe: + PPDU overhead, %u us (want %u)",
	      g.wlan.airtime_us, want_last);
	CHECK(f.wlan.airtime_us == want_last + 16 + ofdm_us(ampdu_ack_rate(65000), 32, false),
	      "A-MPDU last subframe: + SIFS + BlockAck (32 bytes at 24 Mbit/s)");
	/* 10 subframes add up to the PPDU's TXTIME within a symbol */
	{
		unsigned sum = 9 * want_mid + want_last;
		unsigned ppdu = 36 + div_up(16 + 8 * (10 * 244) + 6, 260) * 4;

		CHECK(sum + 4 >= ppdu && sum <= ppdu + 4, "10 x 240-byte subframes: %u us vs PPDU TXTIME %u us", sum, ppdu);
	}
	/* capture says nothing about the last one: each priced as a PPDU */
	p.n = 0;
	s.ampdu_flags = 0;
	put_radiotap(&p, &s);
	put_wlan_sized(&p, 240, true);
	frame_decode_airtime(link_type_find(127), 0, p.b, (uint32_t)p.n, (uint32_t)p.n, false, &g);
	CHECK(g.wlan.airtime_us == want_last, "A-MPDU without last-known: charged as last");
}

static void test_radiotap_namespaces(void)
{
	struct pkt p = { .n = 0 };
	struct frame f;
	size_t start = 0, vendor_len_at;

	/* word 0: TSFT, flags, rate, channel, signal; radiotap NS next, Ext
	 * word 1: signal, antenna; vendor NS next, Ext
	 * word 2 (vendor): bits 0, 3; radiotap NS next, Ext
	 * word 3: signal */
	put_u8(&p, 0);
	put_u8(&p, 0);
	put_le16(&p, 0);
	put_le32(&p, 1u << 0 | 1u << 1 | 1u << 2 | 1u << 3 | 1u << 5 | 1u << 29 | 1u << 31);
	put_le32(&p, 1u << 5 | 1u << 11 | 1u << 30 | 1u << 31);
	put_le32(&p, 1u << 0 | 1u << 3 | 1u << 29 | 1u << 31);
	put_le32(&p, 1u << 5);
	put_align(&p, start, 8); /* 20 -> 24 */
	put_le32(&p, 1);
	put_le32(&p, 0);
	put_u8(&p, 0x10); /* FCS at end */
	put_u8(&p, 48);   /* 24 Mbit/s */
	put_le16(&p, 5180);
	put_le16(&p, 0x0140);
	put_u8(&p, (uint8_t)-40); /* combined signal */
	put_u8(&p, (uint8_t)-42); /* antenna 0 signal */
	put_u8(&p, 0);            /* antenna 0 */
	put_align(&p, start, 2);
	put_u8(&p, 0x00);
	put_u8(&p, 0x11);
	put_u8(&p, 0x22); /* OUI */
	put_u8(&p, 1);    /* sub-namespace */
	vendor_len_at = p.n;
	put_le16(&p, 5);
	put(&p, "\x01\x02\x03\x04\x05", 5); /* vendor data, skipped whole */
	put_u8(&p, (uint8_t)-44);           /* antenna 1 signal */
	set_le16(&p, start + 2, (uint16_t)(p.n - start));
	put_wlan_sized(&p, 100, true);
	decode(127, &p, &f);
	CHECK(f.malformed == MAL_NONE && f.radio.rate_kbps == 24000 && f.radio.freq_mhz == 5180 &&
		      f.radio.signal_dbm == -40 && f.radio.fcs_at_end && f.wlan.mpdu_len == 100 && f.n_ip == 1,
	      "extended presence bitmaps, repeated radiotap NS, vendor NS skipped: fields and 802.11 found");
	/* vendor skip_length past the header */
	set_le16(&p, vendor_len_at, 200);
	decode(127, &p, &f);
	CHECK(f.malformed == MAL_BAD_RADIOTAP && !f.wlan.present, "vendor skip_length past it_len: bad_radiotap");
	set_le16(&p, vendor_len_at, 5);
	/* a field this decoder has no size for (bit 28, TLVs) ends the parse, not the frame */
	p.b[4 + 3] |= 0x10; /* word 0 gets bit 28 */
	decode(127, &p, &f);
	CHECK(f.malformed == MAL_NONE && f.radio.rate_kbps == 24000 && f.wlan.present && f.n_ip == 1,
	      "TLV bit: parse stops after the known fields, frame decodes");
	p.b[4 + 3] &= (uint8_t)~0x10;

	/* version, length */
	p.b[0] = 1;
	decode(127, &p, &f);
	CHECK(f.malformed == MAL_BAD_RADIOTAP, "radiotap version 1: bad_radiotap");
	p.b[0] = 0;
	set_le16(&p, 2, 4);
	decode(127, &p, &f);
	CHECK(f.malformed == MAL_BAD_RADIOTAP, "radiotap length 4: bad_radiotap");
	set_le16(&p, 2, (uint16_t)(p.n + 1));
	decode(127, &p, &f);
	CHECK(f.malformed == MAL_BAD_RADIOTAP, "radiotap length past the frame: bad_radiotap");
	set_le16(&p, 2, 13); /* the Ext chain needs 20 bytes */
	decode(127, &p, &f);
	CHECK(f.malformed == MAL_BAD_RADIOTAP, "presence words past it_len: bad_radiotap");
	/* the fields need more than it_len */
	set_le16(&p, 2, 24);
	decode(127, &p, &f);
	CHECK(f.malformed == MAL_BAD_RADIOTAP, "fields past it_len: bad_radiotap");
}

/* ---- truncation and random bytes ---------------------------------------- */

/* Decode every prefix of p from an exact-size heap copy (so ASan sees any
 * read past it). With wirelen = the whole frame (a snaplen), each result must
 * be MAL_TRUNCATED or a clean decode whose IP slices are clean or truncated. */
static void check_prefixes(const char *what, int dlt, const struct pkt *p)
{
	const struct link_type *lt = link_type_find(dlt);
	bool ok = true, full_ok;
	size_t bad_at = 0;
	struct frame f;
	struct ip_packet pk;

	for (size_t len = 0; len <= p->n; len++) {
		uint8_t *copy = malloc(len ? len : 1);

		memcpy(copy, p->b, len);
		frame_decode(lt, 0, copy, (uint32_t)len, (uint32_t)p->n, &f);
		if (f.malformed != MAL_NONE && f.malformed != MAL_TRUNCATED && ok) {
			ok = false;
			bad_at = len;
		}
		for (unsigned i = 0; i < f.n_ip; i++) {
			enum malformed_reason r = ip_decode(&f.ip[i], &pk);

			if (r != MAL_NONE && r != MAL_TRUNCATED && ok) {
				ok = false;
				bad_at = len;
			}
		}
		/* the same bytes as a whole (short) frame: any reason, no crash */
		frame_decode(lt, 0, copy, (uint32_t)len, (uint32_t)len, &f);
		for (unsigned i = 0; i < f.n_ip; i++)
			(void)ip_decode(&f.ip[i], &pk);
		free(copy);
	}
	CHECK(ok, "%s: every one of %zu prefixes is truncated or clean (first other at %zu)", what, p->n + 1, bad_at);
	frame_decode(lt, 0, p->b, (uint32_t)p->n, (uint32_t)p->n, &f);
	full_ok = f.malformed == MAL_NONE && f.n_ip > 0;
	for (unsigned i = 0; full_ok && i < f.n_ip; i++)
		full_ok = ip_decode(&f.ip[i], &pk) == MAL_NONE;
	CHECK(full_ok, "%s: the whole frame decodes cleanly", what);
}

static void test_truncation(void)
{
	static const uint8_t ts_sack[24] = { 1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2, 1, 1, 5, 10, 0, 0, 0, 5, 0, 0, 0, 6 };
	struct tcp_spec t = { 1000, 2000, 1, 2, TCP_ACK, 100, ts_sack, sizeof(ts_sack), 12 };
	struct pkt p = { .n = 0 };
	uint8_t ext[8] = { 6, 0, 1, 4, 0, 0, 0, 0 };

	put_ether(&p, MAC_GW, MAC_STA, 0x88a8);
	put_be16(&p, 1);
	put_be16(&p, 0x8100);
	put_be16(&p, 2);
	put_be16(&p, 0x0800);
	put_ipv4_tcp(&p, &t);
	check_prefixes("Ethernet QinQ IPv4 TCP+TS+SACK", 1, &p);

	p.n = 0;
	put_be16(&p, 0x86dd);
	put_be16(&p, 0);
	put_be32(&p, 2);
	put_be16(&p, 1);
	put_u8(&p, 4);
	put_u8(&p, 6);
	put_zeros(&p, 8);
	put_ipv6_tcp(&p, 0, ext, sizeof(ext), &t);
	check_prefixes("SLL2 IPv6 hop-by-hop TCP", 276, &p);

	p.n = 0;
	put_be16(&p, 0);
	put_be16(&p, 1);
	put_be16(&p, 6);
	put_zeros(&p, 8);
	put_be16(&p, 0x0800);
	put_ipv4_tcp(&p, &t);
	check_prefixes("SLL IPv4 TCP", 113, &p);

	p.n = 0;
	put_ipv6_tcp(&p, 0, ext, sizeof(ext), &t);
	check_prefixes("RAW IPv6", 12, &p);

	/* 802.11 QoS A-MSDU (two subframes) behind radiotap with HE, FCS */
	{
		struct rt_spec s = { .phy = RT_HE, .flags = 0x10, .freq = 5180, .signal = -40 };
		struct tcp_spec t2 = { 3, 4, 5, 6, TCP_ACK, 7, NULL, 0, 3 };
		size_t sub;

		s.he[0] = 0x4020;
		s.he[1] = 2;
		s.he[2] = 3 << 8;
		s.he[5] = 1;
		p.n = 0;
		put_radiotap(&p, &s);
		put_wlan_data_hdr(&p, 8, FC_TO_DS, MAC_AP, MAC_STA, MAC_GW, 1, 0);
		put_le16(&p, 0x0080);
		sub = p.n;
		put(&p, MAC_GW, 6);
		put(&p, MAC_STA, 6);
		put_be16(&p, (uint16_t)(8 + 20 + tcp_len(&t2)));
		put_wlan_tcp_body(&p, &t2);
		while ((p.n - sub) % 4)
			put_u8(&p, 0);
		put(&p, MAC_GW, 6);
		put(&p, MAC_STA, 6);
		put_be16(&p, (uint16_t)(8 + 20 + tcp_len(&t)));
		put_wlan_tcp_body(&p, &t);
		put_le32(&p, 0);
		check_prefixes("radiotap HE + 802.11 QoS A-MSDU x2 + FCS", 127, &p);
	}
	/* plain 802.11 ToDS data with HT control */
	p.n = 0;
	put_wlan_data_hdr(&p, 8, FC_TO_DS | FC_ORDER, MAC_AP, MAC_STA, MAC_GW, 1, 0);
	put_le16(&p, 0);
	put_le32(&p, 0);
	put_wlan_tcp_body(&p, &t);
	check_prefixes("802.11 QoS+HTC IPv4 TCP", 105, &p);
}

/* xorshift: the same "random" frames on every run */
static uint32_t rng_state = 2463534242u;

static uint32_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

static void test_random_bytes(void)
{
	static const int dlts[] = { 1, 113, 276, 12, 228, 229, 105, 127 };
	unsigned long frames = 0, reasons[MAL_REASONS] = { 0 };

	for (size_t d = 0; d < sizeof(dlts) / sizeof(dlts[0]); d++) {
		const struct link_type *lt = link_type_find(dlts[d]);

		for (int i = 0; i < 3000; i++) {
			size_t len = rng() % 160;
			uint8_t *buf = malloc(len ? len : 1);
			struct ip_packet pk;
			struct frame f;

			for (size_t k = 0; k < len; k++)
				buf[k] = (uint8_t)rng();
			/* make the headers plausible often enough to go deep */
			if (dlts[d] == 127 && len >= 4 && i % 2) {
				buf[0] = 0;
				buf[2] = (uint8_t)(8 + rng() % 40);
				buf[3] = 0;
			}
			if ((dlts[d] == 12 || dlts[d] == 228) && len && i % 2)
				buf[0] = 0x45;
			if (dlts[d] == 1 && len >= 14 && i % 2) {
				buf[12] = 0x08;
				buf[13] = 0x00;
				if (len > 14)
					buf[14] = 0x45;
			}
			frame_decode(lt, 0, buf, (uint32_t)len, (uint32_t)(len + rng() % 64), &f);
			reasons[f.malformed]++;
			for (unsigned k = 0; k < f.n_ip; k++)
				reasons[ip_decode(&f.ip[k], &pk)]++;
			frames++;
			free(buf);
		}
	}
	printf("# random bytes: %lu frames; none %lu truncated %lu bad_radiotap %lu bad_80211 %lu bad_ip %lu "
	       "bad_tcp %lu unsupported %lu\n",
	       frames, reasons[MAL_NONE], reasons[MAL_TRUNCATED], reasons[MAL_BAD_RADIOTAP], reasons[MAL_BAD_80211],
	       reasons[MAL_BAD_IP], reasons[MAL_BAD_TCP], reasons[MAL_UNSUPPORTED]);
	CHECK(frames == 8 * 3000, "random bytes: %lu frames of every link type decoded without a crash", frames);
}

/* ---- the capture corpus ------------------------------------------------- */

struct capture_counts {
	bool opened, read_error; /* read_error: libpcap stopped at a damaged record */
	int dlt;
	unsigned long packets, wlan, data, retry, protected_frames, tcp, ip_slices;
	unsigned long long payload;
	unsigned long frame_mal[MAL_REASONS], ip_mal[MAL_REASONS];
	unsigned long long airtime_ack, airtime_noack, airtime_ppdu;
};

/* A figure from DIR/oracles/NAME.summary.txt ("key: value"): true and *v
 * when the key is there with a number. */
static bool oracle_value(const char *dir, const char *name, const char *key, long long *v)
{
	char path[1024], line[512];
	size_t klen = strlen(key);
	bool found = false;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/oracles/%s.summary.txt", dir, name);
	fp = fopen(path, "r");
	if (!fp)
		return false;
	while (fgets(line, sizeof(line), fp))
		if (strncmp(line, key, klen) == 0 && line[klen] == ':' && line[klen + 1] == ' ' && line[klen + 2] >= '0' &&
		    line[klen + 2] <= '9') {
			*v = strtoll(line + klen + 2, NULL, 10);
			found = true;
			break;
		}
	fclose(fp);
	return found;
}

/* A figure the checks need: its absence is a failed check, never a pass. */
static bool oracle_need(const char *dir, const char *name, const char *key, long long *v)
{
	if (oracle_value(dir, name, key, v))
		return true;
	CHECK(false, "%s: oracle key '%s' in %s/oracles/%s.summary.txt", name, key, dir, name);
	return false;
}

/* The PPDU time of whole A-MPDUs (subframes grouped by reference): the
 * 802.11 TXTIME of the PSDU with delimiters and padding, no ACK. */
struct ppdu_sum {
	bool open;
	uint32_t ref;
	struct radio_info radio;
	unsigned long long psdu;
	unsigned long long total;
};

static void ppdu_flush(struct ppdu_sum *s)
{
	if (s->open)
		s->total += airtime_us(&s->radio, (uint32_t)s->psdu, false);
	s->open = false;
}

static void ppdu_add(struct ppdu_sum *s, const struct frame *f)
{
	if (!f->wlan.present || !f->radio.rate_kbps)
		return;
	if (!f->radio.ampdu) {
		ppdu_flush(s);
		s->total += airtime_us(&f->radio, f->wlan.mpdu_len, false);
		return;
	}
	if (s->open && s->ref == f->radio.ampdu_ref) {
		s->psdu = (s->psdu + 3) & ~3ull;
	} else {
		ppdu_flush(s);
		s->open = true;
		s->ref = f->radio.ampdu_ref;
		s->radio = f->radio;
		s->psdu = 0;
	}
	s->psdu += 4 + f->wlan.mpdu_len;
}

static void capture_decode(const char *path, struct capture_counts *c)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	struct ppdu_sum ppdu = { 0 };
	static struct frame f, g;
	pcap_t *pc;

	memset(c, 0, sizeof(*c));
	pc = pcap_open_offline(path, err);
	if (!pc) {
		printf("# %s: not opened: %s\n", path, err);
		return;
	}
	c->opened = true;
	c->dlt = pcap_datalink(pc);
	const struct link_type *lt = link_type_find(c->dlt);

	int rc;

	while ((rc = pcap_next_ex(pc, &h, &data)) == 1) {
		c->packets++;
		frame_decode(lt, 0, data, h->caplen, h->len, &f);
		frame_decode_airtime(lt, 0, data, h->caplen, h->len, false, &g);
		c->frame_mal[f.malformed]++;
		if (f.wlan.present) {
			c->wlan++;
			c->data += f.wlan.type == 2;
			c->retry += f.wlan.retry;
			c->protected_frames += f.wlan.protected_frame;
		}
		c->airtime_ack += f.wlan.airtime_us;
		c->airtime_noack += g.wlan.airtime_us;
		ppdu_add(&ppdu, &f);
		for (unsigned i = 0; i < f.n_ip; i++) {
			struct ip_packet pk;
			enum malformed_reason r = ip_decode(&f.ip[i], &pk);

			c->ip_slices++;
			c->ip_mal[r]++;
			if (r == MAL_NONE && pk.is_tcp) {
				c->tcp++;
				c->payload += pk.payload_len;
			}
		}
	}
	c->read_error = rc == PCAP_ERROR;
	ppdu_flush(&ppdu);
	c->airtime_ppdu = ppdu.total;
	pcap_close(pc);
}

static void print_counts(const char *name, const struct capture_counts *c)
{
	printf("# %s: dlt %d, %lu packets, %lu IP slices, %lu TCP segments, TCP payload %llu bytes\n", name, c->dlt,
	       c->packets, c->ip_slices, c->tcp, c->payload);
	printf("#   malformed (frame/IP):");
	for (int r = 1; r < MAL_REASONS; r++)
		printf(" %s %lu/%lu", malformed_reason_name((enum malformed_reason)r), c->frame_mal[r], c->ip_mal[r]);
	printf("\n");
	if (c->wlan)
		printf("#   802.11: %lu frames, %lu data, %lu retries, %lu protected; airtime %llu us with ACKs, %llu "
		       "without, %llu as whole PPDUs\n",
		       c->wlan, c->data, c->retry, c->protected_frames, c->airtime_ack, c->airtime_noack, c->airtime_ppdu);
}

/* NAME's line in the GOLDEN list LIST: its check kind and the words after
 * it (tests/golden/GOLDEN's header); false when NAME is not listed. */
static bool golden_entry(const char *list, const char *name, char *kind, size_t kind_size, char *expect,
			 size_t expect_size)
{
	char line[1024];
	size_t len = strlen(name);
	bool found = false;
	FILE *fp = fopen(list, "r");

	if (!fp)
		return false;
	while (!found && fgets(line, sizeof(line), fp)) {
		char *p = line + len;

		if (strncmp(line, name, len) != 0 || (*p != ' ' && *p != '\t'))
			continue;
		p += strspn(p, " \t");
		size_t k = strcspn(p, " \t\n");

		snprintf(kind, kind_size, "%.*s", (int)k, p);
		p += k;
		p += strspn(p, " \t");
		snprintf(expect, expect_size, " %.*s ", (int)strcspn(p, "\n"), p);
		found = true;
	}
	fclose(fp);
	return found;
}

/* Every capture of DIR against its oracle, as its GOLDEN line (in LIST)
 * allows: raw TCP payload equals tshark's for the kinds whose frames avmon
 * takes as tshark does (exact, link-copies: decoding removes no copy);
 * a malformed capture only has to survive; an expectation word
 * "airtime-differs" marks a documented difference of the airtime model.
 * A corpus that must be there (REQUIRED) and is not is a failure, an
 * optional one that is absent a "#" note. */
static void test_captures(const char *dir, const char *list, bool required, int min_files)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);
	int files = 0;

	if (n < 0) {
		if (required)
			CHECK(false, "capture corpus %s readable", dir);
		else
			printf("# third-party corpus not present at %s (set TCPAV_CAPTURES): own corpus only\n", dir);
		return;
	}
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		size_t len = strlen(name);
		char path[1024];
		struct capture_counts c;
		long long pay = -1, tcp_frames = 0, wlan_frames = 0;

		if (!(len > 5 && (strcmp(name + len - 5, ".pcap") == 0 || strcmp(name + len - 4, ".cap") == 0 ||
				  strcmp(name + len - 7, ".pcapng") == 0))) {
			free(names[i]);
			continue;
		}
		files++;
		char kind[64] = "", expect[512] = "";

		if (golden_entry(list, name, kind, sizeof(kind), expect, sizeof(expect)))
			;
		else if (required)
			CHECK(false, "%s: listed in %s", name, list);
		else /* an extra file in an optional corpus: as the list's default */
			printf("# %s: not in %s, compared as exact\n", name, list), snprintf(kind, sizeof(kind), "exact");
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		capture_decode(path, &c);
		if (c.opened)
			print_counts(name, &c);

		if (strcmp(kind, "malformed") == 0 || strncmp(name, "bad_", 4) == 0) {
			unsigned long mal = 0;

			for (int r = 1; r < MAL_REASONS; r++)
				mal += c.frame_mal[r] + c.ip_mal[r];
			CHECK(!c.opened || c.read_error || mal >= 1, "%s: survived, %s", name,
			      !c.opened      ? "refused by libpcap"
			      : c.read_error ? "libpcap stopped at a damaged record"
					     : "counted as malformed");
		}
		/* what tshark saw decides which figures the oracle must have */
		if (strcmp(kind, "malformed") == 0 || !oracle_need(dir, name, "tcp_frames", &tcp_frames) ||
		    !oracle_need(dir, name, "wlan_frames", &wlan_frames)) {
			free(names[i]);
			continue;
		}
		/* TCP payload per the oracle, except where avmon knowingly differs:
		 * the Aruba GRE tunnel is not decapsulated. */
		if (strstr(name, "gre-aruba"))
			CHECK(c.opened && c.tcp == 0 && c.frame_mal[MAL_NONE] == c.packets,
			      "%s: valid Ethernet, GRE tunnel not decoded (outer IP only), nothing malformed", name);
		else if (tcp_frames > 0 && oracle_need(dir, name, "tcp_payload_bytes_total", &pay) &&
			 (strcmp(kind, "exact") == 0 || strcmp(kind, "link-copies") == 0))
			CHECK(c.payload == (unsigned long long)pay, "%s: TCP payload %llu = tshark's %lld", name, c.payload,
			      pay);
		if (c.wlan && strncmp(name, "wifi_", 5) == 0) {
			long long data, retry, prot;

			CHECK((long long)c.wlan == wlan_frames, "%s: %lu 802.11 frames (tshark %lld)", name, c.wlan,
			      wlan_frames);
			if (oracle_need(dir, name, "frames[wlan.fc.type==2]", &data))
				CHECK((long long)c.data == data, "%s: %lu data frames (tshark %lld)", name, c.data, data);
			if (oracle_need(dir, name, "frames[wlan.fc.retry==1]", &retry))
				CHECK((long long)c.retry == retry, "%s: %lu retries (tshark %lld)", name, c.retry, retry);
			if (oracle_need(dir, name, "frames[wlan.fc.protected==1]", &prot))
				CHECK((long long)c.protected_frames == prot, "%s: %lu protected (tshark %lld)", name,
				      c.protected_frames, prot);
		}
		/* figures known from the third-party corpus's MANIFEST, besides
		 * the oracle's */
		if (strcmp(name, "wifi_arkime_80211http.pcap") == 0) {
			CHECK(pay == 8592 && c.payload == 8592, "arkime: TCP payload 8592");
			CHECK(c.retry == 2, "arkime: 2 retries");
		}
		if (strcmp(name, "wifi_ns3_wifi-tcp_AccessPoint-0-0_first8000.pcap") == 0) {
			CHECK(pay == 702900 && c.payload == 702900, "ns-3: TCP payload 702900");
			CHECK(c.data == 7034, "ns-3: 7034 data frames");
		}
		if (strcmp(name, "eth_zeek_http_206_example_a.pcap") == 0 || strcmp(name, "sll_pcapplusplus_sll.pcap") == 0)
			CHECK(pay >= 0 && c.payload == (unsigned long long)pay && c.frame_mal[MAL_NONE] == c.packets,
			      "%s: TCP payload %llu = MANIFEST's %lld, no malformed frame", name, c.payload, pay);
		/* airtime against tshark's wlan_radio.duration (no SIFS/ACK);
		 * 0 for 802.11 without a radio header */
		long long air = 0;

		if (wlan_frames > 0 && oracle_need(dir, name, "airtime_us_total_wlan_radio_duration", &air) && air > 0 &&
		    !strstr(expect, " airtime-differs ")) {
			double ratio = (double)c.airtime_noack / (double)air;
			double ratio_ppdu = (double)c.airtime_ppdu / (double)air;

			printf("# %s: airtime without ACK %llu us / tshark %lld us = %.4f; whole-PPDU TXTIME %llu us "
			       "(%.4f); with SIFS+ACK %llu us\n",
			       name, c.airtime_noack, air, ratio, c.airtime_ppdu, ratio_ppdu, c.airtime_ack);
			CHECK(ratio > 0.97 && ratio < 1.03, "%s: airtime within 3%% of tshark (%.4f)", name, ratio);
			CHECK(c.airtime_noack + c.airtime_noack / 100 >= c.airtime_ppdu &&
				      c.airtime_noack <= c.airtime_ppdu + c.airtime_ppdu / 100,
			      "%s: per-frame airtime within 1%% of whole-PPDU TXTIME", name);
		}
		free(names[i]);
	}
	free(names);
	CHECK(files >= min_files, "capture corpus %s: %d files decoded (at least %d)", dir, files, min_files);
}

int main(void)
{
	test_link_types();
	test_ether();
	test_sll();
	test_raw();
	test_ipv6_ext();
	test_tcp_options();
	test_ip_lengths();
	test_80211_data();
	test_80211_amsdu();
	test_80211_control_mgmt();
	test_radiotap_legacy();
	test_radiotap_ht_vht_he();
	test_rates();
	test_ampdu();
	test_radiotap_namespaces();
	test_truncation();
	test_random_bytes();
	const char *own = getenv("TCPAV_OWN_CAPTURES") ? getenv("TCPAV_OWN_CAPTURES") : "tests/captures";
	char own_list[1024];

	snprintf(own_list, sizeof(own_list), "%s/GOLDEN", own);
	test_captures(own, own_list, true, 1);
	test_captures(getenv("TCPAV_CAPTURES") ? getenv("TCPAV_CAPTURES") : "../shared/captures", "tests/golden/GOLDEN",
		      false, 3);
	return check_done();
}
