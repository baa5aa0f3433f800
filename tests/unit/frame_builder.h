/* SPDX-License-Identifier: GPL-2.0 */
/* frame_builder.h - byte-by-byte frame construction for the avmon tests
 * (test_decode.c, test_synthetic.c): bounded appends in network or little
 * endian order. Writes past the buffer are dropped and counted in
 * overflow, so a test can assert that its frame fitted. For the tests
 * that include monitor/packet.h first (test_analysis.c, test_report.c),
 * also a decoded frame as the decoders would leave it: raw_frame(). */
#ifndef AVMON_TEST_FRAME_BUILDER_H
#define AVMON_TEST_FRAME_BUILDER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct pkt {
	uint8_t b[8192];
	size_t n;
	size_t overflow;
};

static inline void put_u8(struct pkt *p, uint8_t v)
{
	if (p->n < sizeof(p->b))
		p->b[p->n++] = v;
	else
		p->overflow++;
}

static inline void put(struct pkt *p, const void *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		put_u8(p, ((const uint8_t *)d)[i]);
}

static inline void put_zeros(struct pkt *p, size_t n)
{
	while (n--)
		put_u8(p, 0);
}

static inline void put_be16(struct pkt *p, uint16_t v)
{
	put_u8(p, (uint8_t)(v >> 8));
	put_u8(p, (uint8_t)v);
}

static inline void put_be32(struct pkt *p, uint32_t v)
{
	put_be16(p, (uint16_t)(v >> 16));
	put_be16(p, (uint16_t)v);
}

static inline void put_le16(struct pkt *p, uint16_t v)
{
	put_u8(p, (uint8_t)v);
	put_u8(p, (uint8_t)(v >> 8));
}

static inline void put_le32(struct pkt *p, uint32_t v)
{
	put_le16(p, (uint16_t)v);
	put_le16(p, (uint16_t)(v >> 16));
}

#ifdef AVMON_PACKET_H
/* A frame of a link without MACs (raw IP): stations by IP. */
static inline struct frame raw_frame(double ts, uint32_t wirelen)
{
	struct frame f;

	memset(&f, 0, sizeof(f));
	f.ts = ts;
	f.caplen = f.wirelen = wirelen;
	f.dlt = 101; /* LINKTYPE_RAW */
	f.sll_pkttype = -1;
	f.ifindex = -1;
	return f;
}
#endif

#endif
