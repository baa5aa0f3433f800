/* SPDX-License-Identifier: GPL-2.0 */
/* radiotap_builder.h - the radiotap header the avmon tests put before an
 * 802.11 frame (test_decode.c, test_synthetic.c, tools/gen_radiotap.c),
 * from a spec: TSFT, Flags, Rate (legacy), Channel, dBm signal, then as
 * asked antenna noise, antenna and RX flags, XChannel, MCS (HT), A-MPDU
 * status, VHT, HE, the TLV bit and one TLV, more namespaces (radiotap or
 * a vendor's). Fields in bit order, each aligned to its size from the
 * header start, as the radiotap standard wants. Built with
 * frame_builder.h's appends: a header that does not fit counts in
 * overflow. */
#ifndef AVMON_TEST_RADIOTAP_BUILDER_H
#define AVMON_TEST_RADIOTAP_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "frame_builder.h"

enum rt_phy { RT_LEGACY, RT_HT, RT_VHT, RT_HE };

/* radiotap Flags */
#define RF_SHORT_PREAMBLE 0x02
#define RF_FCS 0x10
#define RF_DATA_PAD 0x20
#define RF_BAD_FCS 0x40

struct rt_spec {
	enum rt_phy phy;
	uint8_t flags; /* RF_* */
	uint8_t rate;  /* RT_LEGACY: 500 kbit/s units (0x80 set: an MCS index) */
	uint16_t freq;
	int8_t signal;
	uint8_t mcs_known, mcs_flags, mcs;
	uint16_t vht_known;
	uint8_t vht_flags, vht_bw, vht_mcs_nss;
	uint16_t he[6];
	uint64_t tsft;    /* the TSFT field's value */
	bool no_tsft;     /* no TSFT field: Flags first, at offset 8 */
	bool ampdu;       /* an A-MPDU status field: reference and flags */
	uint32_t ampdu_ref;
	uint16_t ampdu_flags;
	bool xchannel;  /* XChannel as well as Channel */
	bool extras;    /* antenna noise, antenna, RX flags: fields avmon steps over */
	bool antennas;  /* a second radiotap namespace: per-antenna signal */
	bool vendor;    /* a vendor namespace, skipped whole */
	bool tlv;       /* the TLV bit (28) and one TLV after the fixed fields */
	bool nochannel; /* no Channel field: the band is not known */
};

/* Radiotap fields align to their size counted from the header start. */
static inline void put_align(struct pkt *p, size_t start, size_t align)
{
	while ((p->n - start) % align)
		put_u8(p, 0);
}

/* The fields gathered before writing: presence words and items. */
struct rt_item {
	unsigned align, len;
	uint8_t data[24];
};

struct rt_builder {
	uint32_t present[8];
	unsigned n_words;
	struct rt_item item[24];
	unsigned n_items;
};

static inline void rt_field(struct rt_builder *b, unsigned bit, unsigned align, const void *data, unsigned len)
{
	struct rt_item *it = &b->item[b->n_items++];

	b->present[b->n_words - 1] |= 1u << bit;
	it->align = align;
	it->len = len;
	memcpy(it->data, data, len);
}

/* The next presence word starts a namespace: radiotap (bit 29) or a vendor's
 * (bit 30, announced by OUI, sub-namespace and skip_length, then that many
 * bytes of vendor data). */
static inline void rt_namespace(struct rt_builder *b, bool vendor, const uint8_t *vendor_data, unsigned vendor_len)
{
	b->present[b->n_words - 1] |= 1u << 31 | (vendor ? 1u << 30 : 1u << 29);
	b->n_words++;
	if (vendor) {
		struct rt_item *it = &b->item[b->n_items++];

		it->align = 2;
		it->len = 6 + vendor_len;
		memcpy(it->data, "\x00\x13\x74\x01", 4); /* an OUI, sub-namespace 1 */
		it->data[4] = (uint8_t)vendor_len;
		it->data[5] = 0;
		memcpy(it->data + 6, vendor_data, vendor_len);
		b->present[b->n_words - 1] |= 1u << 0 | 1u << 2; /* vendor bits: meaning known to the vendor only */
	}
}

/* The radiotap header of r, appended to p; its length field set. */
static inline void put_radiotap(struct pkt *p, const struct rt_spec *r)
{
	struct rt_builder b = { .n_words = 1 };
	size_t start = p->n;
	uint8_t d[12];

	if (!r->no_tsft) {
		for (int i = 0; i < 8; i++)
			d[i] = (uint8_t)(r->tsft >> (8 * i));
		rt_field(&b, 0, 8, d, 8);
	}
	rt_field(&b, 1, 1, &r->flags, 1);
	if (r->phy == RT_LEGACY)
		rt_field(&b, 2, 1, &r->rate, 1);
	d[0] = (uint8_t)r->freq;
	d[1] = (uint8_t)(r->freq >> 8);
	/* 2 GHz CCK, 2 GHz OFDM, 5 GHz OFDM */
	d[2] = r->freq >= 3000 ? 0x40
	       : r->phy == RT_LEGACY && (r->rate == 2 || r->rate == 4 || r->rate == 11 || r->rate == 22) ? 0xa0
												    : 0xc0;
	d[3] = r->freq < 3000 ? 0x00 : 0x01;
	if (!r->nochannel)
		rt_field(&b, 3, 2, d, 4);
	rt_field(&b, 5, 1, &r->signal, 1);
	if (r->extras) {
		d[0] = (uint8_t)-95;
		rt_field(&b, 6, 1, d, 1); /* dBm antenna noise */
		d[0] = 1;
		rt_field(&b, 11, 1, d, 1); /* antenna */
		d[0] = 0;
		d[1] = 0;
		rt_field(&b, 14, 2, d, 2); /* RX flags */
	}
	if (r->xchannel) {
		uint32_t xflags = r->freq < 3000 ? 0x00c0 : 0x0140;
		unsigned chan = r->freq < 3000 ? (r->freq - 2407) / 5 : (r->freq - 5000) / 5;

		for (int i = 0; i < 4; i++)
			d[i] = (uint8_t)(xflags >> (8 * i));
		d[4] = (uint8_t)r->freq;
		d[5] = (uint8_t)(r->freq >> 8);
		d[6] = (uint8_t)chan;
		d[7] = 20; /* max power */
		rt_field(&b, 18, 4, d, 8);
	}
	if (r->phy == RT_HT) {
		d[0] = r->mcs_known;
		d[1] = r->mcs_flags;
		d[2] = r->mcs;
		rt_field(&b, 19, 1, d, 3);
	}
	if (r->ampdu) {
		for (int i = 0; i < 4; i++)
			d[i] = (uint8_t)(r->ampdu_ref >> (8 * i));
		d[4] = (uint8_t)r->ampdu_flags;
		d[5] = (uint8_t)(r->ampdu_flags >> 8);
		d[6] = 0; /* delimiter CRC */
		d[7] = 0; /* reserved */
		rt_field(&b, 20, 4, d, 8);
	}
	if (r->phy == RT_VHT) {
		memset(d, 0, 12);
		d[0] = (uint8_t)r->vht_known;
		d[1] = (uint8_t)(r->vht_known >> 8);
		d[2] = r->vht_flags;
		d[3] = r->vht_bw;
		d[4] = r->vht_mcs_nss; /* user 1; users 2-4, coding, group id, partial AID: 0 */
		rt_field(&b, 21, 2, d, 12);
	}
	if (r->phy == RT_HE) {
		for (int i = 0; i < 6; i++) {
			d[2 * i] = (uint8_t)r->he[i];
			d[2 * i + 1] = (uint8_t)(r->he[i] >> 8);
		}
		rt_field(&b, 23, 2, d, 12);
	}
	if (r->tlv)
		b.present[b.n_words - 1] |= 1u << 28;
	if (r->antennas) {
		rt_namespace(&b, false, NULL, 0);
		d[0] = (uint8_t)(r->signal - 2);
		rt_field(&b, 5, 1, d, 1);
		d[0] = 0;
		rt_field(&b, 11, 1, d, 1);
		rt_namespace(&b, false, NULL, 0);
		d[0] = (uint8_t)(r->signal - 4);
		rt_field(&b, 5, 1, d, 1);
		d[0] = 1;
		rt_field(&b, 11, 1, d, 1);
	}
	if (r->vendor) {
		rt_namespace(&b, true, (const uint8_t *)"\x11\x22\x33\x44\x55", 5);
		rt_namespace(&b, false, NULL, 0);
		d[0] = (uint8_t)(r->signal - 1);
		rt_field(&b, 5, 1, d, 1);
	}

	put_u8(p, 0); /* version */
	put_u8(p, 0);
	put_le16(p, 0); /* length, set below */
	for (unsigned i = 0; i < b.n_words; i++)
		put_le32(p, b.present[i]);
	for (unsigned i = 0; i < b.n_items; i++) {
		put_align(p, start, b.item[i].align);
		put(p, b.item[i].data, b.item[i].len);
	}
	if (r->tlv) {
		/* TLVs start 4-aligned after the fixed fields: type, length, value */
		put_align(p, start, 4);
		put_le16(p, 200); /* a type no one has defined yet */
		put_le16(p, 4);
		put(p, "\xab\xcd\xef\x01", 4);
	}
	set_le16(p, start + 2, (uint16_t)(p->n - start));
}

#endif
