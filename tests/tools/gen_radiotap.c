// SPDX-License-Identifier: GPL-2.0
/*
 * gen_radiotap - writes the project's synthetic 802.11 captures into DIR
 * (tests/captures/MANIFEST.md says what each holds):
 *
 *   wifi_gen_radiotap.pcap    DLT 127: an AP, three stations and a WDS link;
 *                             TCP over LLC/SNAP (IPv4 up, IPv6 down, IPv4
 *                             across the WDS link) with the events tshark's
 *                             TCP analysis flags; DSSS, OFDM, HT, VHT and HE
 *                             rates; A-MPDU status, A-MSDU, +HTC, data pad,
 *                             FCS at end, extra radiotap namespaces, the TLV
 *                             bit; management, control, null and protected
 *                             frames
 *   wifi_gen_retries.pcap     DLT 127: 802.11 MAC retries and frames with a
 *                             bad FCS inside one TCP flow
 *   wifi_gen_plain80211.pcap  DLT 105: 802.11 without a radio header
 *   bad_gen_80211.pcap        DLT 127: one broken thing per frame, radiotap
 *                             through TCP options, and frames cut by snaplen
 *   bad_gen_{ether,sll,sll2,raw,ipv4,ipv6,dlt_null}.pcap
 *                             the other link types' paths, each file ending
 *                             in a broken frame
 *
 * Frames are built with tests/unit/frame_builder.h and radiotap_builder.h
 * and written through libpcap (pcap_open_dead + pcap_dump). The output is
 * deterministic (a fixed clock from 2026-01-01, no randomness): the
 * committed files are checked to be exactly what this program writes.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>
#include <zlib.h>

#include "frame_builder.h"
#include "radiotap_builder.h"

#define T0_S 1767225600u /* 2026-01-01 00:00:00 UTC */
#define SNAPLEN 65535
#define MS 1000u         /* the clock counts microseconds */

/* ---- output ------------------------------------------------------------ */

struct out {
	pcap_t *pcap;
	pcap_dumper_t *dump;
	uint64_t t_us; /* time of the next frame, after T0 */
	bool failed;
};

static bool out_open(struct out *o, const char *dir, const char *name, int dlt)
{
	char path[4096];

	memset(o, 0, sizeof(*o));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	o->pcap = pcap_open_dead_with_tstamp_precision(dlt, SNAPLEN, PCAP_TSTAMP_PRECISION_MICRO);
	if (!o->pcap) {
		fprintf(stderr, "gen_radiotap: pcap_open_dead failed\n");
		return false;
	}
	o->dump = pcap_dump_open(o->pcap, path);
	if (!o->dump) {
		fprintf(stderr, "gen_radiotap: %s\n", pcap_geterr(o->pcap));
		pcap_close(o->pcap);
		return false;
	}
	return true;
}

/* One record: wire length p->n, of which caplen bytes are kept. */
static void out_frame_cut(struct out *o, const struct pkt *p, size_t caplen)
{
	struct pcap_pkthdr h;

	if (p->overflow)
		o->failed = true;
	h.ts.tv_sec = (time_t)(T0_S + o->t_us / 1000000u);
	h.ts.tv_usec = (suseconds_t)(o->t_us % 1000000u);
	h.len = (uint32_t)p->n;
	h.caplen = (uint32_t)(caplen < p->n ? caplen : p->n);
	pcap_dump((u_char *)o->dump, &h, p->b);
}

static bool out_close(struct out *o)
{
	bool ok = !o->failed;

	pcap_dump_flush(o->dump);
	if (ferror(pcap_dump_file(o->dump)))
		ok = false;
	pcap_dump_close(o->dump);
	pcap_close(o->pcap);
	return ok;
}

/* Empty p for a new frame (overflow too: a frame that did not fit fails the run). */
static void pkt_reset(struct pkt *p)
{
	p->n = 0;
	p->overflow = 0;
}

/* ---- radiotap (tests/unit/radiotap_builder.h) ---------------------------- */

/* A-MPDU status for the next frames: ref, and how many are left. */
struct ampdu {
	uint32_t ref;
	unsigned left;
	bool last_known;
};

/* ---- 802.11 ------------------------------------------------------------- */

#define FC_TO_DS 0x01
#define FC_FROM_DS 0x02
#define FC_RETRY 0x08
#define FC_PROTECTED 0x40
#define FC_ORDER 0x80

enum { MGMT = 0, CTRL = 1, DATA = 2, EXT = 3 };

static void put_fc(struct pkt *p, unsigned type, unsigned subtype, unsigned flags)
{
	put_le16(p, (uint16_t)(type << 2 | subtype << 4 | flags << 8));
}

static const uint8_t AP[6] = { 0x02, 0xa0, 0x00, 0x00, 0x00, 0x01 };
static const uint8_t STA1[6] = { 0x02, 0xa0, 0x00, 0x00, 0x00, 0x11 };
static const uint8_t STA2[6] = { 0x02, 0xa0, 0x00, 0x00, 0x00, 0x12 };
static const uint8_t STA3[6] = { 0x02, 0xa0, 0x00, 0x00, 0x00, 0x13 };
static const uint8_t GW[6] = { 0x02, 0xa0, 0x00, 0x00, 0x00, 0xfe };
static const uint8_t MESH1[6] = { 0x02, 0xa0, 0x00, 0x00, 0x00, 0x21 };
static const uint8_t MESH2[6] = { 0x02, 0xa0, 0x00, 0x00, 0x00, 0x22 };
static const uint8_t HOST1[6] = { 0x02, 0xa0, 0x00, 0x00, 0x01, 0x01 };
static const uint8_t HOST2[6] = { 0x02, 0xa0, 0x00, 0x00, 0x01, 0x02 };
static const uint8_t BCAST[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/* How frames of one transmitter travel: addresses, QoS, radio. */
struct hop {
	unsigned ds;       /* FC_TO_DS, FC_FROM_DS, both (WDS) or none */
	const uint8_t *a1, *a2, *a3, *a4;
	bool qos;
	uint16_t qos_ctrl; /* TID, ack policy; A-MSDU present is set by the A-MSDU writer */
	unsigned fc_extra; /* FC_RETRY, FC_ORDER (+HTC with QoS) */
	struct rt_spec *radio;
	uint16_t seq;      /* the transmitter's sequence counter */
};

struct gen {
	struct out o;
	bool radiotap;     /* DLT 127 (else DLT 105, no radio header) */
	struct ampdu ampdu;
	uint32_t next_ampdu_ref;
	bool fcs_corrupt;  /* with RF_BAD_FCS: the body is damaged too */
};

static void at(struct gen *g, uint64_t t_us)
{
	g->o.t_us = t_us;
}

/* radiotap + the MAC frame in mac (+ FCS when the radio says so) */
static void emit_cut(struct gen *g, const struct rt_spec *r, const struct pkt *mac, size_t caplen)
{
	struct pkt p = { .n = 0 };

	if (g->radiotap) {
		struct rt_spec s = *r;

		s.tsft = 0x1000000ull + g->o.t_us;
		if (g->ampdu.left) {
			s.ampdu = true;
			s.ampdu_ref = g->ampdu.ref;
			s.ampdu_flags = g->ampdu.last_known ? (uint16_t)(0x0004 | (g->ampdu.left == 1 ? 0x0008 : 0)) : 0;
			g->ampdu.left--;
		}
		put_radiotap(&p, &s);
	}
	put(&p, mac->b, mac->n);
	if (g->radiotap && (r->flags & RF_FCS)) {
		uint32_t fcs = (uint32_t)crc32(0, mac->b, (uInt)mac->n);

		if (r->flags & RF_BAD_FCS) {
			fcs ^= 0x5a5a5a5a;
			if (g->fcs_corrupt && mac->n > 40)
				p.b[p.n - 7] ^= 0x20; /* a flipped bit near the end of the body */
		}
		put_le32(&p, fcs);
	}
	out_frame_cut(&g->o, &p, caplen);
}

static void emit(struct gen *g, const struct rt_spec *r, const struct pkt *mac)
{
	emit_cut(g, r, mac, SIZE_MAX);
}

static void ampdu_start(struct gen *g, unsigned frames, bool last_known)
{
	g->ampdu = (struct ampdu){ .ref = ++g->next_ampdu_ref, .left = frames, .last_known = last_known };
}

static void put_data_hdr(struct pkt *p, struct hop *h, unsigned subtype, unsigned extra_flags, uint16_t qos_extra)
{
	put_fc(p, DATA, subtype, h->ds | h->fc_extra | extra_flags);
	put_le16(p, 44); /* duration */
	put(p, h->a1, 6);
	put(p, h->a2, 6);
	put(p, h->a3, 6);
	put_le16(p, (uint16_t)(h->seq++ << 4));
	if ((h->ds & FC_TO_DS) && (h->ds & FC_FROM_DS))
		put(p, h->a4, 6);
	if (subtype & 8) {
		put_le16(p, (uint16_t)(h->qos_ctrl | qos_extra));
		if ((h->fc_extra | extra_flags) & FC_ORDER)
			put_le32(p, 0x00000002); /* HT control */
	}
}

static void put_llc_snap(struct pkt *p, uint16_t ethertype)
{
	put(p, "\xaa\xaa\x03\x00\x00\x00", 6);
	put_be16(p, ethertype);
}

static uint16_t ip_ethertype(const struct pkt *ip)
{
	return ip->n && ip->b[0] >> 4 == 6 ? 0x86dd : 0x0800;
}

/* A data frame carrying one IP packet over LLC/SNAP. */
static void emit_ip(struct gen *g, struct hop *h, const struct pkt *ip)
{
	struct pkt mac = { .n = 0 };

	put_data_hdr(&mac, h, h->qos ? 8 : 0, 0, 0);
	put_llc_snap(&mac, ip_ethertype(ip));
	put(&mac, ip->b, ip->n);
	emit(g, h->radio, &mac);
}

/* A QoS data frame with an A-MSDU of n IP packets (DA, SA per subframe). */
static void emit_amsdu(struct gen *g, struct hop *h, const uint8_t *da, const uint8_t *sa, const struct pkt *ips,
		       unsigned n)
{
	struct pkt mac = { .n = 0 };

	put_data_hdr(&mac, h, 8, 0, 0x0080);
	for (unsigned i = 0; i < n; i++) {
		size_t len = 8 + ips[i].n;

		put(&mac, da, 6);
		put(&mac, sa, 6);
		put_be16(&mac, (uint16_t)len);
		put_llc_snap(&mac, ip_ethertype(&ips[i]));
		put(&mac, ips[i].b, ips[i].n);
		if (i + 1 < n)
			while ((14 + len) % 4) {
				put_u8(&mac, 0);
				len++;
			}
	}
	emit(g, h->radio, &mac);
}

static void emit_ctrl(struct gen *g, const struct rt_spec *r, unsigned subtype, const uint8_t *ra, const uint8_t *ta)
{
	struct pkt mac = { .n = 0 };

	put_fc(&mac, CTRL, subtype, 0);
	put_le16(&mac, subtype == 10 ? 0xc001 : 60); /* PS-Poll: AID */
	put(&mac, ra, 6);
	if (ta)
		put(&mac, ta, 6);
	if (subtype == 8 || subtype == 9) { /* BlockAckReq, BlockAck: control, SSC, bitmap */
		put_le16(&mac, 0x0004);
		put_le16(&mac, 0x0010);
		if (subtype == 9) {
			put_le32(&mac, 0x0000000f);
			put_le32(&mac, 0);
		}
	}
	emit(g, r, &mac);
}

/* Beacon, probe response (subtype 8, 5) and other management frames. */
static void emit_mgmt(struct gen *g, const struct rt_spec *r, unsigned subtype, unsigned flags, const uint8_t *ra,
		      const uint8_t *ta, uint16_t seq)
{
	struct pkt mac = { .n = 0 };

	put_fc(&mac, MGMT, subtype, flags);
	put_le16(&mac, 0);
	put(&mac, ra, 6);
	put(&mac, ta, 6);
	put(&mac, AP, 6); /* BSSID */
	put_le16(&mac, (uint16_t)(seq << 4));
	if (flags & FC_ORDER)
		put_le32(&mac, 0x00000002);
	if (subtype == 8 || subtype == 5) {
		put_le32(&mac, 0x00100000);
		put_le32(&mac, 0);      /* timestamp */
		put_le16(&mac, 100);    /* beacon interval */
		put_le16(&mac, 0x0411); /* ESS, privacy, short slot */
		put(&mac, "\x00\x05tcpav", 7);
		put(&mac, "\x01\x08\x82\x84\x8b\x96\x0c\x12\x18\x24", 10); /* rates */
		put(&mac, "\x03\x01\x01", 3);                              /* channel 1 */
	} else if (subtype == 4) { /* probe request */
		put(&mac, "\x00\x00", 2);
		put(&mac, "\x01\x04\x02\x04\x0b\x16", 6);
	} else if (subtype == 13 || subtype == 14) { /* action, action no-ack: block ack category */
		put(&mac, "\x03\x00\x01\x02\x10\x00\x00\x00\x00", 9);
	}
	emit(g, r, &mac);
}

/* ---- IP, TCP, UDP ------------------------------------------------------- */

struct host {
	unsigned family;
	uint8_t addr[16];
	uint16_t ip_id;
};

/* IP header for l4 (proto, bytes) from src to dst, l4 appended, checksums set. */
static void put_ip(struct pkt *p, struct host *src, const struct host *dst, uint8_t proto, const struct pkt *l4,
		   size_t l4_csum_off)
{
	size_t start = p->n, l4_at;
	uint32_t s;

	if (src->family == 4) {
		put_u8(p, 0x45);
		put_u8(p, 0);
		put_be16(p, (uint16_t)(20 + l4->n));
		put_be16(p, src->ip_id++);
		put_be16(p, 0x4000);
		put_u8(p, 64);
		put_u8(p, proto);
		put_be16(p, 0);
		put(p, src->addr, 4);
		put(p, dst->addr, 4);
		set_be16(p, start + 10, csum_fold(csum_add(0, p->b + start, 20)));
		s = csum_add(0, src->addr, 4);
		s = csum_add(s, dst->addr, 4);
	} else {
		put_be32(p, 0x60000000);
		put_be16(p, (uint16_t)l4->n);
		put_u8(p, proto);
		put_u8(p, 64);
		put(p, src->addr, 16);
		put(p, dst->addr, 16);
		s = csum_add(0, src->addr, 16);
		s = csum_add(s, dst->addr, 16);
	}
	s += proto + (uint32_t)l4->n;
	l4_at = p->n;
	put(p, l4->b, l4->n);
	if (l4_csum_off != SIZE_MAX && !p->overflow) {
		uint16_t csum = csum_fold(csum_add(s, l4->b, l4->n));

		set_be16(p, l4_at + l4_csum_off, proto == 17 && csum == 0 ? 0xffff : csum); /* UDP: 0 = none */
	}
}

static void udp_packet(struct pkt *ip, struct host *src, uint16_t sport, const struct host *dst, uint16_t dport,
		       size_t len)
{
	struct pkt l4 = { .n = 0 };

	put_be16(&l4, sport);
	put_be16(&l4, dport);
	put_be16(&l4, (uint16_t)(8 + len));
	put_be16(&l4, 0);
	for (size_t i = 0; i < len; i++)
		put_u8(&l4, (uint8_t)(0x30 + i % 10));
	pkt_reset(ip);
	put_ip(ip, src, dst, 17, &l4, 6);
}

struct tcp_end {
	struct host *host;
	uint16_t port;
	uint32_t isn;
	uint32_t ts_clock;  /* TSval at T0 */
	uint32_t ts_recent; /* last TSval from the other end */
	struct hop *hop;
};

struct tcp_conn {
	struct tcp_end *end[2];
};

struct sack {
	unsigned n;
	uint32_t left[3], right[3]; /* relative to the data sender's ISN */
};

#define F_FIN 0x01
#define F_SYN 0x02
#define F_RST 0x04
#define F_PSH 0x08
#define F_ACK 0x10

/* The IP packet of one segment from end `from`; seq and ack relative to
 * the ISNs. The payload depends only on the sequence number, so a
 * retransmission carries the same bytes. */
static void tcp_packet(struct gen *g, struct tcp_conn *c, int from, uint32_t rseq, uint32_t rack, uint8_t flags,
		       uint16_t window, const struct sack *sk, uint32_t len, struct pkt *ip)
{
	struct tcp_end *e = c->end[from], *o = c->end[!from];
	struct pkt l4 = { .n = 0 }, opt = { .n = 0 };
	uint32_t tsval = e->ts_clock + (uint32_t)(g->o.t_us / 1000u);

	if (flags & F_SYN) {
		put(&opt, "\x02\x04\x03\xe8\x04\x02", 6); /* MSS 1000, SACK permitted */
		put_u8(&opt, 8);
		put_u8(&opt, 10);
		put_be32(&opt, tsval);
		put_be32(&opt, (flags & F_ACK) ? e->ts_recent : 0);
		put(&opt, "\x01\x03\x03\x07", 4); /* NOP, WS 7 */
	} else {
		if (sk && sk->n) {
			put(&opt, "\x01\x01\x05", 3);
			put_u8(&opt, (uint8_t)(2 + 8 * sk->n));
			for (unsigned i = 0; i < sk->n; i++) {
				put_be32(&opt, o->isn + sk->left[i]);
				put_be32(&opt, o->isn + sk->right[i]);
			}
		}
		put(&opt, "\x01\x01\x08\x0a", 4);
		put_be32(&opt, tsval);
		put_be32(&opt, e->ts_recent);
	}
	o->ts_recent = tsval;

	put_be16(&l4, e->port);
	put_be16(&l4, o->port);
	put_be32(&l4, e->isn + rseq);
	put_be32(&l4, (flags & F_ACK) ? o->isn + rack : 0);
	put_be16(&l4, (uint16_t)((20 + opt.n) / 4 << 12 | flags));
	put_be16(&l4, window);
	put_be32(&l4, 0); /* checksum (set by put_ip), urgent pointer */
	put(&l4, opt.b, opt.n);
	for (uint32_t i = 0; i < len; i++)
		put_u8(&l4, (uint8_t)('a' + (rseq + i) % 26));
	pkt_reset(ip);
	put_ip(ip, e->host, o->host, 6, &l4, 16);
}

/* One segment on the air, in its sender's hop. */
static void seg(struct gen *g, struct tcp_conn *c, int from, uint32_t rseq, uint32_t rack, uint8_t flags,
		uint16_t window, const struct sack *sk, uint32_t len)
{
	struct pkt ip;

	tcp_packet(g, c, from, rseq, rack, flags, window, sk, len, &ip);
	emit_ip(g, c->end[from]->hop, &ip);
}

/* The three-way handshake of c: the client's (end 0) SYN at t_syn, the
 * server's SYN-ACK at t_synack, the client's ACK at t_ack, each with the
 * window its sender advertises. */
static void handshake(struct gen *g, struct tcp_conn *c, uint64_t t_syn, uint64_t t_synack, uint64_t t_ack,
		      uint16_t win_syn, uint16_t win_synack, uint16_t win_ack)
{
	at(g, t_syn);
	seg(g, c, 0, 0, 0, F_SYN, win_syn, NULL, 0);
	at(g, t_synack);
	seg(g, c, 1, 0, 1, F_SYN | F_ACK, win_synack, NULL, 0);
	at(g, t_ack);
	seg(g, c, 0, 1, 1, F_ACK, win_ack, NULL, 0);
}

/* The close of c: end 0's FIN (sequence rseq, acking rack) at t_fin, end
 * 1's FIN at t_fin1, end 0's last ACK at t_ack; win0, win1 the windows
 * of end 0 and end 1. */
static void fin_close(struct gen *g, struct tcp_conn *c, uint32_t rseq, uint32_t rack, uint64_t t_fin, uint64_t t_fin1,
		      uint64_t t_ack, uint16_t win0, uint16_t win1)
{
	at(g, t_fin);
	seg(g, c, 0, rseq, rack, F_FIN | F_ACK, win0, NULL, 0);
	at(g, t_fin1);
	seg(g, c, 1, rack, rseq + 1, F_FIN | F_ACK, win1, NULL, 0);
	at(g, t_ack);
	seg(g, c, 0, rseq + 1, rack + 1, F_ACK, win0, NULL, 0);
}

/* ---- radios ------------------------------------------------------------- */

/* 2.4 GHz channel 1 */
static struct rt_spec dsss1 = { .phy = RT_LEGACY, .rate = 2, .freq = 2412, .signal = -40 };
static struct rt_spec dsss2_short = { .phy = RT_LEGACY, .flags = RF_SHORT_PREAMBLE, .rate = 4,
				      .freq = 2412, .signal = -41 };
static struct rt_spec cck55 = { .phy = RT_LEGACY, .flags = RF_SHORT_PREAMBLE | RF_FCS, .rate = 11,
				.freq = 2412, .signal = -50 };
static struct rt_spec cck11 = { .phy = RT_LEGACY, .flags = RF_FCS, .rate = 22, .freq = 2412, .signal = -51 };
static struct rt_spec ofdm24 = { .phy = RT_LEGACY, .flags = RF_FCS, .rate = 48,
				 .freq = 2412, .signal = -45, .xchannel = true };
static struct rt_spec ofdm6 = { .phy = RT_LEGACY, .rate = 12, .freq = 2412, .signal = -44, .extras = true };
/* HT MCS 7, 20 MHz, long GI; HT MCS 15, 40 MHz, short GI */
static struct rt_spec ht7 = { .phy = RT_HT, .flags = RF_FCS, .freq = 2412, .signal = -48, .mcs_known = 0x07, .mcs = 7 };
static struct rt_spec ht15 = { .phy = RT_HT, .flags = RF_FCS, .freq = 2412, .signal = -47, .mcs_known = 0x07,
			       .mcs_flags = 0x01 | 0x04, .mcs = 15 };
/* 5 GHz channel 36: VHT MCS 9 2 streams 80 MHz short GI; HE MCS 5 1 stream
 * 20 MHz GI 0.8; HE 106-tone RU, STBC 2 -> 1 stream, GI 1.6 */
static struct rt_spec vht = { .phy = RT_VHT, .flags = RF_FCS, .freq = 5180, .signal = -55, .vht_known = 0x0044,
			      .vht_flags = 0x04, .vht_bw = 4, .vht_mcs_nss = 0x92 };
static struct rt_spec vht_nobw = { .phy = RT_VHT, .flags = RF_FCS, .freq = 5180, .signal = -56, .vht_mcs_nss = 0x41 };
static struct rt_spec he = { .phy = RT_HE, .flags = RF_FCS, .freq = 5180, .signal = -58,
			     .he = { 0x0020 | 0x4000, 0x0002, 5 << 8, 0, 0x0000, 1 } };
static struct rt_spec he_ru = { .phy = RT_HE, .flags = RF_FCS, .freq = 5180, .signal = -59,
				.he = { 0x0020 | 0x0200 | 0x4000, 0x0002, 3 << 8 | 0x8000, 0, 6 | 1 << 4, 2 } };
static struct rt_spec he_nomcs = { .phy = RT_HE, .freq = 5180, .signal = -60,
				   .he = { 0x4000, 0, 0, 0, 15 | 2 << 4, 0 } };
static struct rt_spec ofdm36_5g = { .phy = RT_LEGACY, .flags = RF_FCS, .rate = 72, .freq = 5180, .signal = -53 };
static struct rt_spec beacon_radio = { .phy = RT_LEGACY, .rate = 2, .freq = 2412, .signal = -38, .antennas = true,
				       .vendor = true, .extras = true };
static struct rt_spec tlv_radio = { .phy = RT_LEGACY, .rate = 12, .freq = 2412, .signal = -39, .tlv = true };
static struct rt_spec mcs_rate = { .phy = RT_LEGACY, .rate = 0x87, .freq = 2412, .signal = -46 };
static struct rt_spec pad_radio = { .phy = RT_LEGACY, .flags = RF_DATA_PAD, .rate = 108, .freq = 2412, .signal = -43 };

/* ---- wifi_gen_radiotap.pcap -------------------------------------------- */

static struct host srv4 = { 4, { 192, 0, 2, 80 }, 0x1000 };
static struct host sta1_ip = { 4, { 10, 20, 0, 11 }, 0x2000 };
static struct host srv6 = { 6, { 0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 0x80 }, 0 };
static struct host sta2_ip = { 6, { 0x20, 0x01, 0x0d, 0xb8, 0, 0x20, [15] = 0x12 }, 0 };
static struct host wds_a = { 4, { 10, 30, 0, 1 }, 0x3000 };
static struct host wds_b = { 4, { 10, 30, 0, 2 }, 0x4000 };

/* Flow 1: IPv4 upload from STA1, 2.4 GHz. Relative sequence numbers; MSS
 * 1000; handshake RTT 20.3 ms (tshark's out-of-order threshold). */
static void flow1(struct gen *g, struct hop *up, struct hop *down, uint32_t isn_c, uint32_t isn_s, uint64_t t0)
{
	struct tcp_end c = { &sta1_ip, 40001, isn_c, 100000, 0, up };
	struct tcp_end s = { &srv4, 5001, isn_s, 700000, 0, down };
	struct tcp_conn tc = { { &c, &s } };
	struct sack sk;
	const uint16_t W = 502, WS = 500; /* scaled by 128 */
	uint64_t t;

	at(g, t0);
	emit_ctrl(g, &dsss2_short, 11, AP, STA1); /* RTS */
	at(g, t0 + 100);
	emit_ctrl(g, &dsss2_short, 12, STA1, NULL); /* CTS */
	handshake(g, &tc, t0 + 1 * MS, t0 + 21 * MS, t0 + 21 * MS + 300, 64240, 65160, W);

	/* 4 segments in one A-MPDU, two cumulative ACKs (ack_rtt samples) */
	up->radio = &ht7;
	t = t0 + 22 * MS;
	ampdu_start(g, 4, true);
	for (unsigned i = 0; i < 4; i++) {
		at(g, t + i * 100);
		seg(g, &tc, 0, 1 + 1000 * i, 1, F_ACK | F_PSH, W, NULL, 1000);
	}
	at(g, t + 450);
	emit_ctrl(g, &ofdm24, 9, STA1, AP); /* BlockAck */
	at(g, t + 20 * MS);
	seg(g, &tc, 1, 1, 2001, F_ACK, WS, NULL, 0);
	at(g, t + 20 * MS + 300);
	seg(g, &tc, 1, 1, 4001, F_ACK, WS, NULL, 0);

	/* 4001 lost after the sniffer: three SACKed duplicate ACKs, fast retransmission */
	t = t0 + 43 * MS;
	up->radio = &ht15;
	ampdu_start(g, 4, false); /* the driver does not say which is last */
	for (unsigned i = 0; i < 4; i++) {
		at(g, t + i * 100);
		seg(g, &tc, 0, 4001 + 1000 * i, 1, F_ACK | F_PSH, W, NULL, 1000);
	}
	at(g, t + 450);
	emit_ctrl(g, &ofdm24, 8, STA1, AP); /* BlockAckReq */
	for (unsigned i = 0; i < 3; i++) {
		at(g, t + 20 * MS + 100 + i * 1200);
		sk = (struct sack){ 1, { 5001 }, { 6001 + 1000 * i } };
		seg(g, &tc, 1, 1, 4001, F_ACK, WS, &sk, 0);
	}
	up->radio = &ht7;
	at(g, t + 23 * MS + 800);
	seg(g, &tc, 0, 4001, 1, F_ACK | F_PSH, W, NULL, 1000);
	at(g, t + 43 * MS + 800);
	seg(g, &tc, 1, 1, 8001, F_ACK, WS, NULL, 0);

	/* 8001 not captured: a gap, then an ACK of data the capture never saw */
	t = t0 + 90 * MS;
	at(g, t);
	seg(g, &tc, 0, 9001, 1, F_ACK | F_PSH, W, NULL, 1000);
	at(g, t + 20 * MS);
	seg(g, &tc, 1, 1, 10001, F_ACK, WS, NULL, 0);

	/* a retransmission after a timeout */
	t = t0 + 120 * MS;
	at(g, t);
	seg(g, &tc, 0, 10001, 1, F_ACK | F_PSH, W, NULL, 1000);
	at(g, t + 300 * MS);
	seg(g, &tc, 0, 10001, 1, F_ACK | F_PSH, W, NULL, 1000);
	at(g, t + 320 * MS);
	seg(g, &tc, 1, 1, 11001, F_ACK, WS, NULL, 0);

	/* a spurious retransmission, answered by a D-SACK */
	t = t0 + 450 * MS;
	at(g, t);
	seg(g, &tc, 0, 11001, 1, F_ACK | F_PSH, W, NULL, 1000);
	at(g, t + 20 * MS);
	seg(g, &tc, 1, 1, 12001, F_ACK, WS, NULL, 0);
	at(g, t + 21 * MS);
	seg(g, &tc, 0, 11001, 1, F_ACK | F_PSH, W, NULL, 1000);
	at(g, t + 41 * MS);
	sk = (struct sack){ 1, { 11001 }, { 12001 } };
	seg(g, &tc, 1, 1, 12001, F_ACK, WS, &sk, 0);

	/* reordered: 13001 before 12001, within the handshake RTT */
	t = t0 + 500 * MS;
	at(g, t);
	seg(g, &tc, 0, 13001, 1, F_ACK | F_PSH, W, NULL, 1000);
	at(g, t + 100);
	seg(g, &tc, 0, 12001, 1, F_ACK | F_PSH, W, NULL, 1000);
	at(g, t + 20 * MS);
	seg(g, &tc, 1, 1, 14001, F_ACK, WS, NULL, 0);

	/* the receiver's window closes: zero window, probe, probe ACK, update */
	t = t0 + 530 * MS;
	at(g, t);
	seg(g, &tc, 0, 14001, 1, F_ACK | F_PSH, W, NULL, 1000);
	at(g, t + 100);
	seg(g, &tc, 0, 15001, 1, F_ACK | F_PSH, W, NULL, 1000);
	at(g, t + 20 * MS);
	seg(g, &tc, 1, 1, 16001, F_ACK, 0, NULL, 0);
	at(g, t + 220 * MS);
	seg(g, &tc, 0, 16001, 1, F_ACK, W, NULL, 1);
	at(g, t + 240 * MS);
	seg(g, &tc, 1, 1, 16001, F_ACK, 0, NULL, 0);
	at(g, t + 400 * MS);
	seg(g, &tc, 1, 1, 16001, F_ACK, WS, NULL, 0);
	at(g, t + 401 * MS);
	seg(g, &tc, 0, 16001, 1, F_ACK | F_PSH, W, NULL, 1000);
	at(g, t + 421 * MS);
	seg(g, &tc, 1, 1, 17001, F_ACK, WS, NULL, 0);

	/* idle: a keep-alive and its ACK */
	t = t0 + 2000 * MS;
	at(g, t);
	seg(g, &tc, 0, 17000, 1, F_ACK, W, NULL, 0);
	at(g, t + 20 * MS);
	seg(g, &tc, 1, 1, 17001, F_ACK, WS, NULL, 0);

	/* four segments, four ACKs 200 us apart: an ACK train */
	t = t0 + 2100 * MS;
	ampdu_start(g, 4, true);
	for (unsigned i = 0; i < 4; i++) {
		at(g, t + i * 100);
		seg(g, &tc, 0, 17001 + 1000 * i, 1, F_ACK | F_PSH, W, NULL, 1000);
	}
	for (unsigned i = 0; i < 4; i++) {
		at(g, t + 20 * MS + i * 200);
		seg(g, &tc, 1, 1, 18001 + 1000 * i, F_ACK, WS, NULL, 0);
	}

	/* close */
	t = t0 + 2200 * MS;
	fin_close(g, &tc, 21001, 1, t, t + 20 * MS, t + 20 * MS + 300, W, WS);
}

/* The same 5-tuple again, a new connection (new ISNs), ended by a reset. */
static void flow1_again(struct gen *g, struct hop *up, struct hop *down, uint64_t t0)
{
	struct tcp_end c = { &sta1_ip, 40001, 0x70000000u, 200000, 0, up };
	struct tcp_end s = { &srv4, 5001, 0x0fffff00u, 800000, 0, down };
	struct tcp_conn tc = { { &c, &s } };

	handshake(g, &tc, t0, t0 + 20 * MS, t0 + 20 * MS + 300, 64240, 65160, 502);
	at(g, t0 + 21 * MS);
	seg(g, &tc, 0, 1, 1, F_ACK | F_PSH, 502, NULL, 700);
	/* the server answers with data */
	at(g, t0 + 41 * MS);
	seg(g, &tc, 1, 1, 701, F_ACK | F_PSH, 500, NULL, 300);
	at(g, t0 + 41 * MS + 400);
	seg(g, &tc, 0, 701, 301, F_ACK, 502, NULL, 0);
	at(g, t0 + 42 * MS);
	seg(g, &tc, 0, 701, 301, F_RST | F_ACK, 0, NULL, 0);
}

/* Flow 2: IPv6 download to STA2, 5 GHz, VHT down, HE up; the server's
 * sequence numbers wrap through 2^32. */
static void flow2(struct gen *g, struct hop *up, struct hop *down, uint64_t t0)
{
	struct tcp_end c = { &sta2_ip, 50002, 0x12345678u, 300000, 0, up };
	struct tcp_end s = { &srv6, 443, 0xfffff000u, 900000, 0, down };
	struct tcp_conn tc = { { &c, &s } };
	struct pkt ips[2];
	struct sack sk;
	uint64_t t;

	handshake(g, &tc, t0, t0 + 15 * MS, t0 + 15 * MS + 200, 64800, 64800, 507);
	at(g, t0 + 16 * MS);
	seg(g, &tc, 0, 1, 1, F_ACK | F_PSH, 507, NULL, 200); /* the request */

	/* 6 segments in an A-MPDU; the third is lost after the sniffer */
	t = t0 + 31 * MS;
	ampdu_start(g, 6, true);
	for (unsigned i = 0; i < 6; i++) {
		at(g, t + i * 80);
		seg(g, &tc, 1, 1 + 1000 * i, 201, F_ACK | F_PSH, 500, NULL, 1000);
	}
	at(g, t + 600);
	emit_ctrl(g, &ofdm36_5g, 9, AP, STA2);
	/* STA2's ACKs in a train: 2001, then three SACKed duplicates */
	up->radio = &he_ru;
	at(g, t + 1000);
	seg(g, &tc, 0, 201, 2001, F_ACK, 507, NULL, 0);
	for (unsigned i = 0; i < 3; i++) {
		at(g, t + 1300 + 300 * i);
		sk = (struct sack){ 1, { 3001 }, { 4001 + 1000 * i } };
		seg(g, &tc, 0, 201, 2001, F_ACK, 507, &sk, 0);
	}
	up->radio = &he;
	/* the fast retransmission, sent +HTC */
	down->fc_extra = FC_ORDER;
	at(g, t + 3 * MS);
	seg(g, &tc, 1, 2001, 201, F_ACK | F_PSH, 500, NULL, 1000);
	down->fc_extra = 0;
	at(g, t + 4 * MS);
	seg(g, &tc, 0, 201, 6001, F_ACK, 507, NULL, 0);

	/* an A-MSDU: the next segment and a UDP datagram */
	t = t0 + 40 * MS;
	at(g, t);
	tcp_packet(g, &tc, 1, 6001, 201, F_ACK | F_PSH, 500, NULL, 600, &ips[0]);
	udp_packet(&ips[1], &srv6, 40009, &sta2_ip, 9, 40);
	emit_amsdu(g, down, STA2, GW, ips, 2);
	up->radio = &vht_nobw;
	at(g, t + 1 * MS);
	seg(g, &tc, 0, 201, 6601, F_ACK, 507, NULL, 0);
	up->radio = &he_nomcs;
	at(g, t + 2 * MS);
	seg(g, &tc, 0, 201, 6601, F_FIN | F_ACK, 507, NULL, 0);
	at(g, t + 3 * MS);
	seg(g, &tc, 1, 6601, 202, F_FIN | F_ACK, 500, NULL, 0);
	up->radio = &he;
	at(g, t + 3 * MS + 200);
	seg(g, &tc, 0, 202, 6602, F_ACK, 507, NULL, 0);
}

/* Flow 3: across a WDS link (4 addresses), hosts behind two mesh points. */
static void flow3(struct gen *g, uint64_t t0)
{
	struct hop ab = { FC_TO_DS | FC_FROM_DS, MESH2, MESH1, HOST2, HOST1, true, 0, 0, &ofdm36_5g, 10 };
	struct hop ba = { FC_TO_DS | FC_FROM_DS, MESH1, MESH2, HOST1, HOST2, true, 0, 0, &ofdm36_5g, 20 };
	struct tcp_end a = { &wds_a, 33000, 1000000, 5000, 0, &ab };
	struct tcp_end b = { &wds_b, 80, 2000000, 6000, 0, &ba };
	struct tcp_conn tc = { { &a, &b } };

	handshake(g, &tc, t0, t0 + 2 * MS, t0 + 2 * MS + 100, 29200, 28960, 229);
	at(g, t0 + 3 * MS);
	seg(g, &tc, 0, 1, 1, F_ACK | F_PSH, 229, NULL, 120);
	at(g, t0 + 5 * MS);
	seg(g, &tc, 1, 1, 121, F_ACK | F_PSH, 227, NULL, 900);
	fin_close(g, &tc, 121, 901, t0 + 6 * MS, t0 + 8 * MS, t0 + 8 * MS + 100, 229, 227);
}

/* What else an AP's channel carries: beacons, probes, power save, broadcast
 * ARP, frames that are not SNAP IP, encrypted data. */
static void background(struct gen *g, uint64_t t0)
{
	struct hop arp = { FC_FROM_DS, BCAST, AP, GW, NULL, false, 0, 0, &cck11, 0 };
	struct hop sta3 = { FC_TO_DS, AP, STA3, GW, NULL, true, 6 << 0, 0, &ofdm24, 0 };
	struct hop sta1_pad = { FC_TO_DS, AP, STA1, GW, NULL, true, 0, 0, &pad_radio, 3000 };
	struct hop sta1_noack = { FC_TO_DS, AP, STA1, GW, NULL, true, 1 << 5, 0, &mcs_rate, 3100 };
	struct pkt mac = { .n = 0 }, ip;
	uint16_t bseq = 0;

	at(g, t0);
	emit_mgmt(g, &beacon_radio, 8, 0, BCAST, AP, bseq++);
	at(g, t0 + 5 * MS);
	emit_mgmt(g, &dsss2_short, 4, 0, BCAST, STA3, 0); /* probe request */
	at(g, t0 + 6 * MS);
	emit_mgmt(g, &ofdm6, 5, 0, STA3, AP, bseq++); /* probe response */
	at(g, t0 + 6 * MS + 300);
	emit_ctrl(g, &ofdm6, 13, AP, NULL); /* ACK */
	at(g, t0 + 7 * MS);
	emit_mgmt(g, &ofdm6, 14, 0, STA2, AP, bseq++); /* action no-ack */
	at(g, t0 + 8 * MS);
	emit_mgmt(g, &ofdm6, 13, FC_ORDER, STA2, AP, bseq++); /* action, +HTC */

	/* broadcast ARP (FromDS, group RA: no station) */
	at(g, t0 + 10 * MS);
	pkt_reset(&mac);
	put_data_hdr(&mac, &arp, 0, 0, 0);
	put_llc_snap(&mac, 0x0806);
	put(&mac, "\x00\x01\x08\x00\x06\x04\x00\x01", 8);
	put(&mac, GW, 6);
	put(&mac, srv4.addr, 4);
	put_zeros(&mac, 6);
	put(&mac, sta1_ip.addr, 4);
	emit(g, arp.radio, &mac);

	/* STA3: power save (null, QoS null, PS-Poll), then encrypted data */
	at(g, t0 + 12 * MS);
	pkt_reset(&mac);
	put_data_hdr(&mac, &sta3, 4, 0x10, 0); /* null, power management */
	emit(g, sta3.radio, &mac);
	at(g, t0 + 13 * MS);
	pkt_reset(&mac);
	put_data_hdr(&mac, &sta3, 12, 0, 0); /* QoS null */
	emit(g, sta3.radio, &mac);
	at(g, t0 + 14 * MS);
	emit_ctrl(g, &cck55, 10, AP, STA3); /* PS-Poll */
	at(g, t0 + 15 * MS);
	pkt_reset(&mac);
	put_data_hdr(&mac, &sta3, 8, FC_PROTECTED, 0);
	put(&mac, "\x01\x00\x00\x20\x00\x00\x00\x00", 8); /* CCMP header */
	for (unsigned i = 0; i < 120; i++)
		put_u8(&mac, (uint8_t)(i * 37 + 11));
	emit(g, sta3.radio, &mac);

	/* STA1: LLC that is not SNAP (STP), SNAP of a vendor (not IP), a body
	 * too short for SNAP */
	at(g, t0 + 16 * MS);
	pkt_reset(&mac);
	put_data_hdr(&mac, &sta3, 8, 0, 0);
	put(&mac, "\x42\x42\x03", 3); /* STP: a configuration BPDU */
	put_zeros(&mac, 35);
	emit(g, sta3.radio, &mac);
	at(g, t0 + 17 * MS);
	pkt_reset(&mac);
	put_data_hdr(&mac, &sta3, 8, 0, 0);
	put(&mac, "\xaa\xaa\x03\x00\x17\xf2\x80\x9b\x00\x00", 10);
	emit(g, sta3.radio, &mac);
	at(g, t0 + 18 * MS);
	pkt_reset(&mac);
	put_data_hdr(&mac, &sta3, 8, 0, 0);
	put(&mac, "\xaa\xaa\x03", 3);
	emit(g, sta3.radio, &mac);

	/* UDP (discard): a padded QoS header (radiotap data pad), and a QoS
	 * no-ack frame at a rate given as an MCS index (rate unknown) */
	at(g, t0 + 19 * MS);
	udp_packet(&ip, &sta1_ip, 53001, &srv4, 9, 30);
	pkt_reset(&mac);
	put_data_hdr(&mac, &sta1_pad, 8, 0, 0);
	put_zeros(&mac, 2); /* pad 26 -> 28 */
	put_llc_snap(&mac, 0x0800);
	put(&mac, ip.b, ip.n);
	emit(g, sta1_pad.radio, &mac);
	at(g, t0 + 20 * MS);
	udp_packet(&ip, &sta1_ip, 53002, &srv4, 9, 30);
	emit_ip(g, &sta1_noack, &ip);
	at(g, t0 + 102400);
	emit_mgmt(g, &tlv_radio, 8, 0, BCAST, AP, bseq++);
	at(g, t0 + 204800);
	emit_mgmt(g, &dsss1, 8, 0, BCAST, AP, bseq++);
}

/* Every PHY rate table and airtime branch: null data frames (acked, no
 * body) from STA2 at 5 GHz, each at another rate. */
static void rate_sweep(struct gen *g, uint64_t t0)
{
	static struct rt_spec sweep[] = {
		{ .phy = RT_HT, .freq = 5180, .signal = -50, .mcs_known = 0x07, .mcs_flags = 0x01, .mcs = 32 },
		{ .phy = RT_HT, .freq = 5180, .signal = -50, .mcs_known = 0x07, .mcs = 23 },
		{ .phy = RT_VHT, .freq = 5180, .signal = -50, .vht_known = 0x0044, .vht_bw = 1, .vht_mcs_nss = 0x71 },
		{ .phy = RT_VHT, .freq = 5180, .signal = -50, .vht_known = 0x0044, .vht_bw = 11, .vht_mcs_nss = 0x96 },
		{ .phy = RT_VHT, .freq = 5180, .signal = -50, .vht_known = 0x0044, .vht_mcs_nss = 0xa1 },
		{ .phy = RT_VHT, .freq = 5180, .signal = -50, .vht_known = 0x0044, .vht_mcs_nss = 0x19 },
		{ .phy = RT_HE, .freq = 5180, .signal = -50, .he = { 0x4020, 0x0002, 7 << 8, 0, 4 | 2 << 4, 1 } },
		{ .phy = RT_HE, .freq = 5180, .signal = -50, .he = { 0x4020, 0x0002, 7 << 8, 0, 5, 1 } },
		{ .phy = RT_HE, .freq = 5180, .signal = -50, .he = { 0x4020, 0x0002, 7 << 8, 0, 8, 2 } },
		{ .phy = RT_HE, .freq = 5180, .signal = -50, .he = { 0x4020, 0x0002, 7 << 8, 0, 9, 2 } },
		{ .phy = RT_HE, .freq = 5180, .signal = -50, .he = { 0x4020, 0x0002, 7 << 8, 0, 10, 2 } },
		{ .phy = RT_HE, .freq = 5180, .signal = -50, .he = { 0x4020, 0x0002, 9 << 8, 0, 1, 3 } },
		{ .phy = RT_HE, .freq = 5180, .signal = -50, .he = { 0x4020, 0x0002, 9 << 8, 0, 2, 4 } },
		{ .phy = RT_HE, .freq = 5180, .signal = -50, .he = { 0x4020, 0x0002, 9 << 8, 0, 3 | 1 << 4, 8 } },
		{ .phy = RT_LEGACY, .rate = 36, .signal = -50, .nochannel = true },
	};
	struct hop sta2 = { FC_TO_DS, AP, STA2, GW, NULL, false, 0, 0, NULL, 2000 };
	struct hop sta3 = { FC_TO_DS, AP, STA3, GW, NULL, false, 0, 0, &dsss2_short, 2100 };
	static struct rt_spec he_nomcs_ampdu = { .phy = RT_HE, .freq = 5180, .signal = -61, .he = { 0x4000, 0, 0, 0, 0, 1 } };
	static struct rt_spec ofdm_ampdu = { .phy = RT_LEGACY, .rate = 48, .freq = 5180, .signal = -52 };
	struct pkt mac;

	for (unsigned i = 0; i < sizeof(sweep) / sizeof(sweep[0]); i++) {
		at(g, t0 + i * MS);
		pkt_reset(&mac);
		sta2.radio = &sweep[i];
		put_data_hdr(&mac, &sta2, 4, 0, 0);
		emit(g, sta2.radio, &mac);
	}
	/* DSSS, acked: the ACK at 1 or 2 Mbit/s */
	at(g, t0 + 20 * MS);
	pkt_reset(&mac);
	put_data_hdr(&mac, &sta3, 4, 0, 0);
	emit(g, sta3.radio, &mac);
	/* A-MPDU status on a frame of unknown rate, and on a legacy one */
	at(g, t0 + 21 * MS);
	ampdu_start(g, 1, true);
	pkt_reset(&mac);
	sta2.radio = &he_nomcs_ampdu;
	put_data_hdr(&mac, &sta2, 4, 0, 0);
	emit(g, sta2.radio, &mac);
	at(g, t0 + 22 * MS);
	ampdu_start(g, 1, true);
	pkt_reset(&mac);
	sta2.radio = &ofdm_ampdu;
	put_data_hdr(&mac, &sta2, 4, 0, 0);
	emit(g, sta2.radio, &mac);
}

static bool write_radiotap_main(const char *dir)
{
	struct gen g = { .radiotap = true };
	struct hop up1 = { FC_TO_DS, AP, STA1, GW, NULL, true, 0, 0, &ht7, 100 };
	struct hop down1 = { FC_FROM_DS, STA1, AP, GW, NULL, false, 0, 0, &ofdm24, 200 };
	struct hop up2 = { FC_TO_DS, AP, STA2, GW, NULL, true, 0, 0, &he, 300 };
	struct hop down2 = { FC_FROM_DS, STA2, AP, GW, NULL, true, 0, 0, &vht, 400 };

	if (!out_open(&g.o, dir, "wifi_gen_radiotap.pcap", DLT_IEEE802_11_RADIO))
		return false;
	background(&g, 0);
	flow1(&g, &up1, &down1, 0x00a00000u, 0x7fff0000u, 400 * MS);
	flow1_again(&g, &up1, &down1, 3000 * MS);
	flow2(&g, &up2, &down2, 3200 * MS);
	flow3(&g, 3300 * MS);
	rate_sweep(&g, 3350 * MS);
	/* cck 5.5 and 11 for completeness: an ACK each */
	at(&g, 3400 * MS);
	emit_ctrl(&g, &cck55, 13, STA1, NULL);
	at(&g, 3401 * MS);
	emit_ctrl(&g, &cck11, 13, STA1, NULL);
	return out_close(&g.o);
}

/* ---- wifi_gen_retries.pcap --------------------------------------------- */

/* One upload (IPv4, OFDM 54, FCS at end) where the MAC repeats itself:
 *   - segment 2001 sent twice, the second with the retry bit (same sequence
 *     control): a MAC retry, not a TCP retransmission
 *   - segment 4001 seen first with a bad FCS (damaged), then its retry
 *   - segment 5001 seen only as a retry (the first attempt not captured)
 *   - an ACK repeated by the AP with the retry bit */
static bool write_retries(const char *dir)
{
	static struct rt_spec ofdm54 = { .phy = RT_LEGACY, .flags = RF_FCS, .rate = 108, .freq = 5200, .signal = -50 };
	static struct rt_spec ofdm54_bad = { .phy = RT_LEGACY, .flags = RF_FCS | RF_BAD_FCS, .rate = 108, .freq = 5200,
					     .signal = -80 };
	struct gen g = { .radiotap = true, .fcs_corrupt = true };
	struct hop up = { FC_TO_DS, AP, STA1, GW, NULL, true, 0, 0, &ofdm54, 10 };
	struct hop down = { FC_FROM_DS, STA1, AP, GW, NULL, false, 0, 0, &ofdm54, 20 };
	struct tcp_end c = { &sta1_ip, 40100, 5000, 1000, 0, &up };
	struct tcp_end s = { &srv4, 80, 9000, 2000, 0, &down };
	struct tcp_conn tc = { { &c, &s } };
	uint64_t t = 10 * MS;

	if (!out_open(&g.o, dir, "wifi_gen_retries.pcap", DLT_IEEE802_11_RADIO))
		return false;
	handshake(&g, &tc, t, t + 10 * MS, t + 10 * MS + 200, 64240, 65160, 502);
	for (unsigned i = 0; i < 6; i++) {
		uint32_t rseq = 1 + 1000 * i;

		at(&g, t + 11 * MS + i * 400);
		if (rseq == 4001) {
			up.radio = &ofdm54_bad;
			seg(&g, &tc, 0, rseq, 1, F_ACK | F_PSH, 502, NULL, 1000);
			up.radio = &ofdm54;
			up.seq--;
		}
		if (rseq == 5001)
			up.seq++; /* the first attempt, not captured */
		if (rseq == 4001 || rseq == 5001) {
			up.fc_extra = FC_RETRY;
			at(&g, t + 11 * MS + i * 400 + 150);
		}
		seg(&g, &tc, 0, rseq, 1, F_ACK | F_PSH, 502, NULL, 1000);
		up.fc_extra = 0;
		if (rseq == 2001) {
			up.seq--;
			up.fc_extra = FC_RETRY;
			at(&g, t + 11 * MS + i * 400 + 150);
			seg(&g, &tc, 0, rseq, 1, F_ACK | F_PSH, 502, NULL, 1000);
			up.fc_extra = 0;
		}
	}
	at(&g, t + 21 * MS);
	seg(&g, &tc, 1, 1, 3001, F_ACK, 500, NULL, 0);
	at(&g, t + 22 * MS);
	seg(&g, &tc, 1, 1, 6001, F_ACK, 500, NULL, 0);
	down.seq--;
	down.fc_extra = FC_RETRY;
	at(&g, t + 22 * MS + 200);
	seg(&g, &tc, 1, 1, 6001, F_ACK, 500, NULL, 0);
	down.fc_extra = 0;
	fin_close(&g, &tc, 6001, 1, t + 23 * MS, t + 33 * MS, t + 33 * MS + 200, 502, 500);
	return out_close(&g.o);
}

/* ---- wifi_gen_plain80211.pcap (DLT 105) -------------------------------- */

static bool write_plain(const char *dir)
{
	struct gen g = { .radiotap = false };
	struct hop up = { FC_TO_DS, AP, STA1, GW, NULL, false, 0, 0, NULL, 1 };
	struct hop down = { FC_FROM_DS, STA1, AP, GW, NULL, true, 0, 0, NULL, 2 };
	struct tcp_end c = { &sta1_ip, 40200, 77, 1000, 0, &up };
	struct tcp_end s = { &srv4, 8080, 99, 2000, 0, &down };
	struct tcp_conn tc = { { &c, &s } };
	uint64_t t = 1 * MS;

	if (!out_open(&g.o, dir, "wifi_gen_plain80211.pcap", DLT_IEEE802_11))
		return false;
	at(&g, 0);
	emit_mgmt(&g, NULL, 8, 0, BCAST, AP, 1);
	at(&g, t);
	seg(&g, &tc, 0, 0, 0, F_SYN, 64240, NULL, 0);
	at(&g, t + 5 * MS);
	seg(&g, &tc, 1, 0, 1, F_SYN | F_ACK, 65160, NULL, 0);
	at(&g, t + 5 * MS + 100);
	emit_ctrl(&g, NULL, 13, AP, NULL);
	at(&g, t + 5 * MS + 300);
	seg(&g, &tc, 0, 1, 1, F_ACK, 502, NULL, 0);
	at(&g, t + 6 * MS);
	seg(&g, &tc, 0, 1, 1, F_ACK | F_PSH, 502, NULL, 100);
	for (unsigned i = 0; i < 3; i++) {
		at(&g, t + 11 * MS + i * 200);
		seg(&g, &tc, 1, 1 + 1000 * i, 101, F_ACK | F_PSH, 500, NULL, 1000);
	}
	at(&g, t + 12 * MS);
	seg(&g, &tc, 0, 101, 3001, F_ACK, 502, NULL, 0);
	/* the last segment again after the ACK: a spurious retransmission */
	at(&g, t + 41 * MS);
	seg(&g, &tc, 1, 2001, 101, F_ACK | F_PSH, 500, NULL, 1000);
	at(&g, t + 42 * MS);
	seg(&g, &tc, 0, 101, 3001, F_ACK, 502, NULL, 0);
	at(&g, t + 50 * MS);
	seg(&g, &tc, 0, 101, 3001, F_RST | F_ACK, 0, NULL, 0);
	return out_close(&g.o);
}

/* ---- bad_gen_80211.pcap ------------------------------------------------- */

/* A frame with one thing wrong: built whole, then patched at offsets
 * found while building. */
struct bad {
	struct gen *g;
	struct pkt p;
	size_t mac_at, ip_at, l4_at; /* where the 802.11 header, IP and TCP/UDP start */
};

static struct rt_spec bad_radio = { .phy = RT_LEGACY, .flags = 0, .rate = 48, .freq = 2437, .signal = -60, .tsft = 1 };

/* radiotap (no FCS) + QoS data ToDS STA1 + SNAP + the given IP packet */
static void bad_build(struct bad *b, const struct pkt *ip)
{
	struct hop h = { FC_TO_DS, AP, STA1, GW, NULL, true, 0, 0, &bad_radio, 500 };

	pkt_reset(&b->p);
	put_radiotap(&b->p, &bad_radio);
	b->mac_at = b->p.n;
	put_data_hdr(&b->p, &h, 8, 0, 0);
	put_llc_snap(&b->p, ip_ethertype(ip));
	b->ip_at = b->p.n;
	put(&b->p, ip->b, ip->n);
	b->l4_at = b->ip_at + (ip->b[0] >> 4 == 4 ? (size_t)(ip->b[0] & 0x0f) * 4 : 40);
}

static void bad_emit(struct bad *b, size_t caplen)
{
	b->g->o.t_us += 1 * MS;
	out_frame_cut(&b->g->o, &b->p, caplen);
}

/* a TCP segment (IPv4, or IPv6 when v6) with options opt (a multiple of 4) */
static void tcp_raw(struct pkt *ip, bool v6, const uint8_t *opt, size_t opt_len, size_t payload)
{
	static struct host a4 = { 4, { 10, 20, 0, 11 }, 1 }, b4 = { 4, { 192, 0, 2, 80 }, 1 };
	static struct host a6 = { 6, { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 }, 0 };
	static struct host b6 = { 6, { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 }, 0 };
	struct pkt l4 = { .n = 0 };

	put_be16(&l4, 41000);
	put_be16(&l4, 80);
	put_be32(&l4, 1000);
	put_be32(&l4, 2000);
	put_be16(&l4, (uint16_t)((20 + opt_len) / 4 << 12 | F_ACK));
	put_be16(&l4, 1000);
	put_be32(&l4, 0);
	put(&l4, opt, opt_len);
	for (size_t i = 0; i < payload; i++)
		put_u8(&l4, (uint8_t)i);
	pkt_reset(ip);
	put_ip(ip, v6 ? &a6 : &a4, v6 ? &b6 : &b4, 6, &l4, 16);
}

/* IPv6 with extension headers ext (chained by the caller, first next
 * header first_nh) before a TCP segment */
static void ipv6_ext(struct pkt *ip, uint8_t first_nh, const uint8_t *ext, size_t ext_len)
{
	struct pkt tcp;

	tcp_raw(&tcp, true, NULL, 0, 10);
	pkt_reset(ip);
	put(ip, tcp.b, 40);
	set_be16(ip, 4, (uint16_t)(ext_len + tcp.n - 40));
	ip->b[6] = first_nh;
	put(ip, ext, ext_len);
	put(ip, tcp.b + 40, tcp.n - 40);
}

static bool write_bad_80211(const char *dir)
{
	struct gen g = { .radiotap = true };
	struct bad b = { .g = &g };
	struct pkt ip, mac;
	size_t n;

	if (!out_open(&g.o, dir, "bad_gen_80211.pcap", DLT_IEEE802_11_RADIO))
		return false;
	tcp_raw(&ip, false, NULL, 0, 100);

	/* -- radiotap -- */
	bad_build(&b, &ip);
	bad_emit(&b, 6); /* cut inside the radiotap header */
	bad_build(&b, &ip);
	b.p.b[0] = 1; /* version 1 */
	bad_emit(&b, SIZE_MAX);
	bad_build(&b, &ip);
	set_le16(&b.p, 2, 4); /* length shorter than the header */
	bad_emit(&b, SIZE_MAX);
	bad_build(&b, &ip);
	set_le16(&b.p, 2, (uint16_t)(b.p.n + 10)); /* length past the frame */
	bad_emit(&b, SIZE_MAX);
	bad_build(&b, &ip);
	bad_emit(&b, b.mac_at - 3); /* cut inside the radiotap fields (snaplen) */
	bad_build(&b, &ip);
	b.p.b[7] |= 0x80; /* Ext: another presence word where the fields are */
	set_le16(&b.p, 2, 8);
	bad_emit(&b, SIZE_MAX);
	bad_build(&b, &ip);
	set_le16(&b.p, 2, 18); /* fields end past the length */
	bad_emit(&b, SIZE_MAX);
	bad_build(&b, &ip);
	b.p.b[7] |= 0x60; /* next namespace both radiotap and vendor */
	bad_emit(&b, SIZE_MAX);
	/* a vendor namespace whose skip_length runs past the header */
	pkt_reset(&b.p);
	put_le32(&b.p, 0x00100000); /* version 0, length 16 */
	put_le32(&b.p, 1u << 1 | 1u << 30 | 1u << 31);
	put_le32(&b.p, 0);
	put_u8(&b.p, 0);            /* flags */
	put_u8(&b.p, 0);            /* pad to 2 */
	put(&b.p, "\x00\x13", 2); /* the namespace header, cut by the length: OUI... */
	put(&b.p, "\x74\x01\xff\x00", 4); /* ... sub-namespace, skip_length 255 */
	put_le16(&b.p, 0x0208);
	bad_emit(&b, SIZE_MAX);

	/* -- 802.11 -- */
	bad_radio.flags = RF_FCS;
	mac = (struct pkt){ .n = 0 };
	put_radiotap(&mac, &bad_radio);
	put(&mac, "\x08\x02\x00", 3); /* 3 bytes where the FCS alone needs 4 */
	g.o.t_us += MS;
	out_frame_cut(&g.o, &mac, SIZE_MAX);
	bad_radio.flags = 0;
	g.o.t_us += MS;
	emit(&g, &bad_radio, &(struct pkt){ .b = { 0x08 }, .n = 1 }); /* 1 byte: no frame control */
	bad_build(&b, &ip);
	bad_emit(&b, b.mac_at + 1); /* cut inside frame control */
	bad_build(&b, &ip);
	b.p.b[b.mac_at] |= 0x01; /* protocol version 1 */
	bad_emit(&b, SIZE_MAX);
	bad_build(&b, &ip);
	b.p.b[b.mac_at] = 0x0c; /* type 3: extension */
	bad_emit(&b, SIZE_MAX);
	/* control (RTS) and management (beacon) and data headers: short on
	 * the wire, and cut by the snaplen */
	{
		static const uint8_t heads[3][2] = { { 0xb4, 0 }, { 0x80, 0 }, { 0x88, 0x01 } };

		for (int k = 0; k < 3; k++) {
			mac = (struct pkt){ .n = 0 };
			put(&mac, heads[k], 2);
			put_le16(&mac, 0);
			put(&mac, AP, 6);
			put(&mac, STA1, 6);
			g.o.t_us += MS;
			emit(&g, &bad_radio, &mac); /* 16 bytes: short for mgmt and data, RTS is whole */
			mac.n = 10;
			g.o.t_us += MS;
			emit(&g, &bad_radio, &mac); /* 10 bytes: short for all three */
			bad_build(&b, &ip);
			b.p.b[b.mac_at] = heads[k][0];
			b.p.b[b.mac_at + 1] = heads[k][1];
			bad_emit(&b, b.mac_at + 12); /* whole on the wire, cut by the snaplen */
		}
	}
	/* the data pad asks for 2 bytes the frame has not */
	bad_radio.flags = RF_DATA_PAD;
	mac = (struct pkt){ .n = 0 };
	put_data_hdr(&mac, &(struct hop){ FC_TO_DS, AP, STA1, GW, NULL, true, 0, 0, &bad_radio, 600 }, 8, 0, 0);
	put_u8(&mac, 0);
	g.o.t_us += MS;
	emit(&g, &bad_radio, &mac);
	bad_radio.flags = 0;
	/* LLC/SNAP cut by the snaplen */
	bad_build(&b, &ip);
	bad_emit(&b, b.ip_at - 4);
	/* A-MSDU: a subframe longer than the frame; bytes after the last
	 * subframe that are none; a subframe header, and a subframe's LLC,
	 * cut by the snaplen */
	for (int k = 0; k < 4; k++) {
		struct hop h = { FC_TO_DS, AP, STA1, GW, NULL, true, 0, 0, &bad_radio, (uint16_t)(700 + k) };
		size_t sub_at;

		mac = (struct pkt){ .n = 0 };
		put_data_hdr(&mac, &h, 8, 0, 0x0080);
		sub_at = mac.n;
		put(&mac, STA1, 6);
		put(&mac, GW, 6);
		put_be16(&mac, (uint16_t)(8 + ip.n + (k == 0 ? 100 : 0)));
		put_llc_snap(&mac, 0x0800);
		put(&mac, ip.b, ip.n);
		if (k == 1) {
			while ((mac.n - sub_at) % 4)
				put_u8(&mac, 0);
			put_zeros(&mac, 6);
		}
		g.o.t_us += MS;
		if (k >= 2) {
			struct pkt full = { .n = 0 };

			put_radiotap(&full, &bad_radio);
			n = full.n + sub_at + (k == 2 ? 8 : 14 + 4); /* in the subframe header; in its LLC */
			put(&full, mac.b, mac.n);
			out_frame_cut(&g.o, &full, n);
		} else {
			emit(&g, &bad_radio, &mac);
		}
	}
	/* SNAP carrying 802.1Q: a tag, nine tags, a tag cut short, a length
	 * inside a tag (LLC again) */
	for (int k = 0; k < 4; k++) {
		struct hop h = { FC_TO_DS, AP, STA1, GW, NULL, true, 0, 0, &bad_radio, (uint16_t)(800 + k) };
		int tags = k == 1 ? 9 : 1;

		mac = (struct pkt){ .n = 0 };
		put_data_hdr(&mac, &h, 8, 0, 0);
		put_llc_snap(&mac, 0x8100);
		for (int i = 0; i < tags; i++) {
			put_be16(&mac, 10);
			put_be16(&mac, (uint16_t)(i + 1 < tags ? 0x8100 : k == 3 ? 8 + ip.n : 0x0800));
		}
		if (k == 3)
			put_llc_snap(&mac, 0x0800);
		put(&mac, ip.b, ip.n);
		g.o.t_us += MS;
		if (k == 2) {
			struct pkt full = { .n = 0 };

			put_radiotap(&full, &bad_radio);
			n = full.n + mac.n - ip.n - 2;
			put(&full, mac.b, mac.n);
			out_frame_cut(&g.o, &full, n);
		} else {
			emit(&g, &bad_radio, &mac);
		}
	}

	/* -- IPv4 -- */
	bad_build(&b, &ip);
	b.p.b[b.ip_at] = 0x55; /* version 5 */
	bad_emit(&b, SIZE_MAX);
	bad_build(&b, &ip);
	b.p.b[b.ip_at] = 0x44; /* IHL 4 */
	bad_emit(&b, SIZE_MAX);
	bad_build(&b, &ip);
	b.p.b[b.ip_at] = 0x4f; /* IHL 15 (60 bytes) ... */
	set_be16(&b.p, b.ip_at + 2, 50); /* ... in a total length of 50 */
	bad_emit(&b, SIZE_MAX);
	bad_build(&b, &ip);
	set_be16(&b.p, b.ip_at + 2, (uint16_t)(ip.n + 200)); /* total length past the frame */
	bad_emit(&b, SIZE_MAX);
	bad_build(&b, &ip);
	set_be16(&b.p, b.ip_at + 2, 0); /* total length 0 (TSO on the sender): the wire's */
	bad_emit(&b, SIZE_MAX);
	bad_build(&b, &ip);
	bad_emit(&b, b.ip_at + 12); /* IPv4 header cut by the snaplen */
	{
		struct pkt l4 = { .n = 0 }, opt_ip = { .n = 0 };
		static const struct host a = { 4, { 10, 20, 0, 11 }, 7 }, z = { 4, { 192, 0, 2, 80 }, 7 };

		/* IPv4 with 4 bytes of options (router alert), cut inside them */
		put(&l4, ip.b + 20, ip.n - 20);
		put_u8(&opt_ip, 0x46);
		put_u8(&opt_ip, 0);
		put_be16(&opt_ip, (uint16_t)(24 + l4.n));
		put(&opt_ip, "\x00\x07\x40\x00\x40\x06\x00\x00", 8);
		put(&opt_ip, a.addr, 4);
		put(&opt_ip, z.addr, 4);
		put(&opt_ip, "\x94\x04\x00\x00", 4);
		put(&opt_ip, l4.b, l4.n);
		bad_build(&b, &opt_ip);
		bad_emit(&b, SIZE_MAX); /* whole: options stepped over */
		bad_build(&b, &opt_ip);
		bad_emit(&b, b.ip_at + 22);
		/* a later fragment: no TCP header in it */
		bad_build(&b, &ip);
		set_be16(&b.p, b.ip_at + 6, 0x00b9);
		bad_emit(&b, SIZE_MAX);
	}
	/* -- IPv6 -- */
	{
		struct pkt v6;
		uint8_t ext[160];

		tcp_raw(&v6, true, NULL, 0, 10);
		bad_build(&b, &v6);
		b.p.b[b.ip_at] = 0x40; /* ethertype IPv6, version 4 */
		bad_emit(&b, SIZE_MAX);
		bad_build(&b, &v6);
		set_be16(&b.p, b.ip_at + 4, 1000); /* payload length past the frame */
		bad_emit(&b, SIZE_MAX);
		bad_build(&b, &v6);
		set_be16(&b.p, b.ip_at + 4, 0); /* payload length 0 (jumbogram, GSO): the wire's */
		bad_emit(&b, SIZE_MAX);
		bad_build(&b, &v6);
		bad_emit(&b, b.ip_at + 30); /* cut inside the fixed header */
		/* hop-by-hop, routing, destination options, AH, fragment (first),
		 * then TCP: every extension stepped over */
		memset(ext, 0, sizeof(ext));
		ext[0] = 43, ext[1] = 0;             /* hop-by-hop, 8 bytes */
		ext[8] = 60, ext[9] = 0;             /* routing, 8 bytes */
		ext[16] = 51, ext[17] = 1;           /* destination options, 16 bytes */
		ext[32] = 44, ext[33] = 2;           /* AH: (2 + 2) * 4 = 16 bytes */
		ext[48] = 6, ext[50] = 0, ext[51] = 1; /* fragment: offset 0, more */
		ipv6_ext(&v6, 0, ext, 56);
		bad_build(&b, &v6);
		bad_emit(&b, SIZE_MAX);
		bad_build(&b, &v6);
		bad_emit(&b, b.ip_at + 40 + 1); /* cut inside the first extension */
		/* a later fragment */
		ext[0] = 6, ext[2] = 0x01, ext[3] = 0x00;
		ipv6_ext(&v6, 44, ext, 8);
		bad_build(&b, &v6);
		bad_emit(&b, SIZE_MAX);
		/* an extension longer than the payload; fewer than 8 bytes left;
		 * 17 extensions in a chain */
		memset(ext, 0, sizeof(ext));
		ext[0] = 6, ext[1] = 20;
		ipv6_ext(&v6, 0, ext, 8);
		bad_build(&b, &v6);
		bad_emit(&b, SIZE_MAX);
		memset(ext, 0, sizeof(ext));
		ext[0] = 60;
		ipv6_ext(&v6, 0, ext, 8);
		set_be16(&v6, 4, 12); /* 8 of hop-by-hop, then 4: too few for the next */
		v6.n = 52;
		bad_build(&b, &v6);
		bad_emit(&b, SIZE_MAX);
		memset(ext, 0, sizeof(ext));
		for (int i = 0; i < 17; i++)
			ext[8 * i] = i < 16 ? 60 : 6;
		ipv6_ext(&v6, 60, ext, 8 * 17);
		bad_build(&b, &v6);
		bad_emit(&b, SIZE_MAX);
	}
	/* -- TCP -- */
	{
		static const uint8_t opt_ok[] = { 2, 4, 5, 0xb4, 3, 3, 20, 30, 6, 1, 2, 3, 4, 1, 0, 0 };
		static const struct {
			uint8_t opt[12];
			size_t len;
		} bad_opts[] = {
			{ { 1, 1, 1, 2 }, 4 },                    /* a kind with no length byte */
			{ { 8, 1, 0, 0 }, 4 },                    /* length 1 */
			{ { 2, 3, 0, 0 }, 4 },                    /* MSS of 3 */
			{ { 3, 4, 7, 0 }, 4 },                    /* window scale of 4 */
			{ { 5, 6, 0, 0, 0, 0, 1, 1 }, 8 },        /* SACK of 4 bytes */
			{ { 8, 8, 0, 0, 0, 0, 0, 0 }, 8 },        /* timestamps of 8 */
			{ { 1, 1, 5, 12, 0, 0, 0, 1 }, 8 },       /* a SACK block past the options */
		};

		/* window scale 20 (used as 14), an unknown option, EOL */
		tcp_raw(&ip, false, opt_ok, sizeof(opt_ok), 10);
		bad_build(&b, &ip);
		bad_emit(&b, SIZE_MAX);
		for (size_t k = 0; k < sizeof(bad_opts) / sizeof(bad_opts[0]); k++) {
			tcp_raw(&ip, false, bad_opts[k].opt, bad_opts[k].len, 10);
			bad_build(&b, &ip);
			bad_emit(&b, SIZE_MAX);
		}
		tcp_raw(&ip, false, NULL, 0, 100);
		bad_build(&b, &ip);
		b.p.b[b.l4_at + 12] = 0x40; /* data offset 4 */
		bad_emit(&b, SIZE_MAX);
		bad_build(&b, &ip);
		b.p.b[b.l4_at + 12] = 0xf0; /* data offset 15: 60 bytes, fine in 120 ... */
		set_be16(&b.p, b.ip_at + 2, 20 + 40); /* ... but IP says 40 bytes of TCP */
		bad_emit(&b, SIZE_MAX);
		bad_build(&b, &ip);
		set_be16(&b.p, b.ip_at + 2, 20 + 12); /* IP says 12 bytes of TCP */
		bad_emit(&b, SIZE_MAX);
		bad_build(&b, &ip);
		bad_emit(&b, b.l4_at + 10); /* TCP header cut by the snaplen */
		tcp_raw(&ip, false, opt_ok, sizeof(opt_ok), 10);
		bad_build(&b, &ip);
		bad_emit(&b, b.l4_at + 24); /* TCP options cut by the snaplen */
		tcp_raw(&ip, false, NULL, 0, 100);
		bad_build(&b, &ip);
		bad_emit(&b, b.l4_at + 20); /* only the payload is missing: decodes */
	}
	/* -- UDP and ICMP -- */
	{
		struct host a = { 4, { 10, 20, 0, 11 }, 9 }, z = { 4, { 192, 0, 2, 80 }, 9 };
		struct pkt l4 = { .n = 0 };

		udp_packet(&ip, &a, 1000, &z, 2000, 10);
		bad_build(&b, &ip);
		set_be16(&b.p, b.ip_at + 2, 20 + 4); /* IP says 4 bytes of UDP */
		bad_emit(&b, SIZE_MAX);
		bad_build(&b, &ip);
		bad_emit(&b, b.l4_at + 3); /* UDP header cut */
		put(&l4, "\x08\x00\xf7\xff\x00\x00\x00\x00", 8); /* ICMP echo */
		pkt_reset(&ip);
		put_ip(&ip, &a, &z, 1, &l4, SIZE_MAX);
		bad_build(&b, &ip);
		bad_emit(&b, SIZE_MAX);
	}
	return out_close(&g.o);
}

/* ---- the other link types: bad_gen_{ether,sll,sll2,raw,ipv4,ipv6,dlt_null}.pcap ---- */

/* Valid and broken frames of one link type: header bytes, then IP. */
static void link_frame(struct out *o, const void *hdr, size_t hdr_len, const struct pkt *ip, size_t caplen)
{
	struct pkt p = { .n = 0 };

	put(&p, hdr, hdr_len);
	if (ip)
		put(&p, ip->b, ip->n);
	o->t_us += 1 * MS;
	out_frame_cut(o, &p, caplen);
}

static bool write_links(const char *dir)
{
	static struct host a = { 4, { 10, 40, 0, 1 }, 0x100 }, z = { 4, { 10, 40, 0, 2 }, 0x200 };
	static struct host a6 = { 6, { 0x20, 0x01, 0x0d, 0xb8, 0, 0x40, [15] = 1 }, 0 };
	static struct host z6 = { 6, { 0x20, 0x01, 0x0d, 0xb8, 0, 0x40, [15] = 2 }, 0 };
	struct tcp_end ca = { &a, 42000, 1000, 10, 0, NULL }, cz = { &z, 22, 2000, 20, 0, NULL };
	struct tcp_end ca6 = { &a6, 42001, 3000, 30, 0, NULL }, cz6 = { &z6, 22, 4000, 40, 0, NULL };
	struct tcp_conn c4 = { { &ca, &cz } }, c6 = { { &ca6, &cz6 } };
	struct gen g = { .radiotap = false };
	struct pkt syn, syn6, hdr, small;
	uint8_t eth[64];
	bool ok = true;

	tcp_packet(&g, &c4, 0, 0, 0, F_SYN, 64240, NULL, 0, &syn);
	tcp_packet(&g, &c6, 0, 0, 0, F_SYN, 64800, NULL, 0, &syn6);
	udp_packet(&small, &a, 5000, &z, 9, 4);

	/* Ethernet: plain, 802.1Q, 802.1ad + 802.1Q (IPv6), the old QinQ
	 * tag, padding, ARP, an 802.3 length with LLC/SNAP, a length the
	 * frame does not hold, a header cut short */
	if (!out_open(&g.o, dir, "bad_gen_ether.pcap", DLT_EN10MB))
		return false;
	memcpy(eth, HOST2, 6);
	memcpy(eth + 6, HOST1, 6);
	memcpy(eth + 12, "\x08\x00", 2);
	link_frame(&g.o, eth, 14, &syn, SIZE_MAX);
	memcpy(eth + 12, "\x81\x00\x00\x0a\x08\x00", 6);
	link_frame(&g.o, eth, 18, &syn, SIZE_MAX);
	memcpy(eth + 12, "\x88\xa8\x00\x64\x81\x00\x00\x0a\x86\xdd", 10);
	link_frame(&g.o, eth, 22, &syn6, SIZE_MAX);
	memcpy(eth + 12, "\x91\x00\x00\x0b\x08\x00", 6);
	link_frame(&g.o, eth, 18, &syn, SIZE_MAX);
	pkt_reset(&hdr);
	put(&hdr, eth, 12);
	put(&hdr, "\x08\x00", 2);
	put(&hdr, small.b, small.n);
	put_zeros(&hdr, 60 - hdr.n); /* Ethernet pads to 60 bytes */
	link_frame(&g.o, hdr.b, hdr.n, NULL, SIZE_MAX);
	pkt_reset(&hdr);
	put(&hdr, BCAST, 6);
	put(&hdr, HOST1, 6);
	put(&hdr, "\x08\x06\x00\x01\x08\x00\x06\x04\x00\x01", 10);
	put(&hdr, HOST1, 6);
	put(&hdr, a.addr, 4);
	put_zeros(&hdr, 6);
	put(&hdr, z.addr, 4);
	put_zeros(&hdr, 60 - hdr.n);
	link_frame(&g.o, hdr.b, hdr.n, NULL, SIZE_MAX);
	pkt_reset(&hdr);
	put(&hdr, eth, 12);
	put_be16(&hdr, (uint16_t)(8 + syn.n));
	put_llc_snap(&hdr, 0x0800);
	link_frame(&g.o, hdr.b, hdr.n, &syn, SIZE_MAX);
	set_be16(&hdr, 12, 1400);
	link_frame(&g.o, hdr.b, hdr.n, &syn, SIZE_MAX);
	memcpy(eth + 12, "\x08\x00", 2);
	link_frame(&g.o, eth, 14, &syn, 10);
	ok &= out_close(&g.o);

	/* Linux cooked v1: an Ethernet sender, 802.2 LLC (protocol 4), a
	 * protocol that is no ethertype, a loopback sender with a long
	 * address, a header cut short */
	if (!out_open(&g.o, dir, "bad_gen_sll.pcap", DLT_LINUX_SLL))
		return false;
	pkt_reset(&hdr);
	put_be16(&hdr, 0);     /* to us */
	put_be16(&hdr, 1);     /* ARPHRD_ETHER */
	put_be16(&hdr, 6);
	put(&hdr, HOST1, 6);
	put_zeros(&hdr, 2);
	put_be16(&hdr, 0x0800);
	link_frame(&g.o, hdr.b, hdr.n, &syn, SIZE_MAX);
	set_be16(&hdr, 14, 0x0004);
	{
		struct pkt llc = { .n = 0 };

		put(&llc, hdr.b, hdr.n);
		put_llc_snap(&llc, 0x86dd);
		link_frame(&g.o, llc.b, llc.n, &syn6, SIZE_MAX);
	}
	set_be16(&hdr, 14, 0x0001); /* ETH_P_802_3 */
	link_frame(&g.o, hdr.b, hdr.n, &syn, SIZE_MAX);
	set_be16(&hdr, 0, 4);      /* outgoing */
	set_be16(&hdr, 2, 772);    /* ARPHRD_LOOPBACK */
	set_be16(&hdr, 4, 20);     /* an address longer than the field */
	set_be16(&hdr, 14, 0x0800);
	link_frame(&g.o, hdr.b, hdr.n, &syn, SIZE_MAX);
	link_frame(&g.o, hdr.b, hdr.n, &syn, 12);
	ok &= out_close(&g.o);

	/* Linux cooked v2: the same */
	if (!out_open(&g.o, dir, "bad_gen_sll2.pcap", DLT_LINUX_SLL2))
		return false;
	pkt_reset(&hdr);
	put_be16(&hdr, 0x0800);
	put_be16(&hdr, 0);
	put_be32(&hdr, 3);      /* ifindex */
	put_be16(&hdr, 1);      /* ARPHRD_ETHER */
	put_u8(&hdr, 0);        /* to us */
	put_u8(&hdr, 6);
	put(&hdr, HOST1, 6);
	put_zeros(&hdr, 2);
	link_frame(&g.o, hdr.b, hdr.n, &syn, SIZE_MAX);
	{
		struct pkt llc = { .n = 0 };

		set_be16(&hdr, 0, 0x0004);
		put(&llc, hdr.b, hdr.n);
		put_llc_snap(&llc, 0x86dd);
		link_frame(&g.o, llc.b, llc.n, &syn6, SIZE_MAX);
	}
	set_be16(&hdr, 0, 0x0001);
	link_frame(&g.o, hdr.b, hdr.n, &syn, SIZE_MAX);
	set_be16(&hdr, 0, 0x86dd);
	set_be16(&hdr, 8, 772);
	hdr.b[10] = 4;
	hdr.b[11] = 20;
	link_frame(&g.o, hdr.b, hdr.n, &syn6, SIZE_MAX);
	link_frame(&g.o, hdr.b, hdr.n, &syn6, 15);
	ok &= out_close(&g.o);

	/* raw IP (LINKTYPE_RAW): IPv4, IPv6, version 5, an empty record */
	if (!out_open(&g.o, dir, "bad_gen_raw.pcap", DLT_RAW))
		return false;
	link_frame(&g.o, NULL, 0, &syn, SIZE_MAX);
	link_frame(&g.o, NULL, 0, &syn6, SIZE_MAX);
	pkt_reset(&hdr);
	put(&hdr, syn.b, syn.n);
	hdr.b[0] = 0x55;
	link_frame(&g.o, hdr.b, hdr.n, NULL, SIZE_MAX);
	link_frame(&g.o, NULL, 0, NULL, SIZE_MAX);
	ok &= out_close(&g.o);

	/* DLT_IPV4, DLT_IPV6: a packet and an empty record each */
	if (!out_open(&g.o, dir, "bad_gen_ipv4.pcap", DLT_IPV4))
		return false;
	link_frame(&g.o, NULL, 0, &syn, SIZE_MAX);
	link_frame(&g.o, NULL, 0, NULL, SIZE_MAX);
	ok &= out_close(&g.o);
	if (!out_open(&g.o, dir, "bad_gen_ipv6.pcap", DLT_IPV6))
		return false;
	link_frame(&g.o, NULL, 0, &syn6, SIZE_MAX);
	link_frame(&g.o, NULL, 0, NULL, SIZE_MAX);
	ok &= out_close(&g.o);

	/* a link type avmon does not read (BSD loopback): refused whole */
	if (!out_open(&g.o, dir, "bad_gen_dlt_null.pcap", DLT_NULL))
		return false;
	link_frame(&g.o, "\x02\x00\x00\x00", 4, &syn, SIZE_MAX);
	ok &= out_close(&g.o);
	return ok;
}

int main(int argc, char **argv)
{
	const char *dir = argc == 2 ? argv[1] : NULL;

	if (!dir || dir[0] == '-') {
		fprintf(stderr, "usage: gen_radiotap DIR  (writes the synthetic 802.11 captures into DIR)\n");
		return 2;
	}
	if (!write_radiotap_main(dir) || !write_retries(dir) || !write_plain(dir) || !write_bad_80211(dir) ||
	    !write_links(dir)) {
		fprintf(stderr, "gen_radiotap: writing into %s failed: %s\n", dir, strerror(errno));
		return 1;
	}
	return 0;
}
