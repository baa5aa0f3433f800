/* SPDX-License-Identifier: GPL-2.0 */
/* frame_builder.h - byte-by-byte frame construction for the avmon tests
 * (test_decode.c, test_synthetic.c, tools/gen_radiotap.c): bounded appends
 * in network or little endian order, 16-bit fields set afterwards, the
 * Internet checksum. Writes past the buffer are dropped and counted in
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

/* Overwrite 16 bits at off: a length or checksum known only later. */
static inline void set_be16(struct pkt *p, size_t off, uint16_t v)
{
	p->b[off] = (uint8_t)(v >> 8);
	p->b[off + 1] = (uint8_t)v;
}

static inline void set_le16(struct pkt *p, size_t off, uint16_t v)
{
	p->b[off] = (uint8_t)v;
	p->b[off + 1] = (uint8_t)(v >> 8);
}

/* The Internet checksum (RFC 1071): add d's 16-bit big-endian words (an
 * odd last byte padded with zero) to sum, then fold and complement. */
static inline uint32_t csum_add(uint32_t sum, const uint8_t *d, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)d[i] << 8 | d[i + 1];
	if (n & 1)
		sum += (uint32_t)d[n - 1] << 8;
	return sum;
}

static inline uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
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
