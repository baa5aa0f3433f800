/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cursor.h - the one way avmon's decoders read packet bytes.
 *
 * A cursor walks a buffer of which `caplen` bytes were captured and
 * `wirelen` bytes were on the wire (a snaplen cuts the capture, not the
 * frame). Every read is checked against `caplen`; a read that does not fit
 * sets the sticky `overrun` flag, returns zero and makes every later read
 * fail too, so a decoder can read a whole header and look once.
 *
 * Truncation is decided in one place per entry point: frame_decode() and
 * ip_decode() turn an overrun of their cursor into MAL_TRUNCATED. A decoder
 * that checks a length field compares it with cursor_wire_left() (what the
 * frame says vs what was sent) and reports its own malformed reason; only
 * "the capture stopped here" is left to the cursor.
 */
#ifndef AVMON_CURSOR_H
#define AVMON_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct cursor {
	const uint8_t *base; /* first byte of the layer being decoded */
	size_t caplen;       /* bytes captured from base */
	size_t wirelen;      /* bytes on the wire from base (>= caplen) */
	size_t off;          /* next byte to read, relative to base */
	bool overrun;        /* a read went past caplen: the capture ends early */
};

/* What cursor_narrow() changed, for cursor_widen() to put back. */
struct cursor_window {
	size_t caplen, wirelen;
	size_t end; /* offset just past the nested unit */
};

static inline void cursor_init(struct cursor *c, const uint8_t *base, size_t caplen, size_t wirelen)
{
	c->base = base;
	c->caplen = base ? caplen : 0;
	/* A record whose wire length is below its capture length is bogus;
	 * the captured bytes are real, so believe them. */
	c->wirelen = wirelen < c->caplen ? c->caplen : wirelen;
	c->off = 0;
	c->overrun = false;
}

/* Captured bytes left to read (0 once overrun). */
static inline size_t cursor_left(const struct cursor *c)
{
	return c->overrun || c->off >= c->caplen ? 0 : c->caplen - c->off;
}

/* Bytes left on the wire, captured or not. */
static inline size_t cursor_wire_left(const struct cursor *c)
{
	return c->off >= c->wirelen ? 0 : c->wirelen - c->off;
}

/* The next byte; valid for cursor_left() bytes. */
static inline const uint8_t *cursor_pos(const struct cursor *c)
{
	return c->base ? c->base + (c->off < c->caplen ? c->off : c->caplen) : NULL;
}

/* True when n more bytes were captured; otherwise marks the overrun. */
static inline bool cursor_need(struct cursor *c, size_t n)
{
	if (c->overrun || c->off > c->caplen || n > c->caplen - c->off) {
		c->overrun = true;
		return false;
	}
	return true;
}

/* The next n bytes, consumed, checked once: a fixed-size header is then read
 * with load_be16()/load_be32() at its offsets. NULL (and the overrun marked)
 * when fewer were captured. */
static inline const uint8_t *cursor_take(struct cursor *c, size_t n)
{
	const uint8_t *p;

	if (!cursor_need(c, n))
		return NULL;
	p = c->base + c->off;
	c->off += n;
	return p;
}

static inline uint16_t load_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t load_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void cursor_skip(struct cursor *c, size_t n)
{
	if (cursor_need(c, n))
		c->off += n;
}

/* Move past n bytes that may lie beyond the capture but are on the wire
 * (the rest of an A-MSDU subframe cut by the snaplen): nothing is read,
 * so nothing overruns yet; the next read will. */
static inline void cursor_skip_wire(struct cursor *c, size_t n)
{
	size_t left = cursor_wire_left(c);

	c->off += n < left ? n : left;
}

/* Skip to the next multiple of `align` counted from base (radiotap fields
 * are aligned relative to the start of the radiotap header). */
static inline void cursor_align(struct cursor *c, size_t align)
{
	size_t rem = align > 1 ? c->off % align : 0;

	if (rem)
		cursor_skip(c, align - rem);
}

static inline void cursor_copy(struct cursor *c, void *dst, size_t n)
{
	if (cursor_need(c, n)) {
		memcpy(dst, c->base + c->off, n);
		c->off += n;
	} else {
		memset(dst, 0, n);
	}
}

static inline uint8_t cursor_u8(struct cursor *c)
{
	if (!cursor_need(c, 1))
		return 0;
	return c->base[c->off++];
}

static inline uint16_t cursor_be16(struct cursor *c)
{
	const uint8_t *p;

	if (!cursor_need(c, 2))
		return 0;
	p = c->base + c->off;
	c->off += 2;
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t cursor_be32(struct cursor *c)
{
	const uint8_t *p;

	if (!cursor_need(c, 4))
		return 0;
	p = c->base + c->off;
	c->off += 4;
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint16_t cursor_le16(struct cursor *c)
{
	const uint8_t *p;

	if (!cursor_need(c, 2))
		return 0;
	p = c->base + c->off;
	c->off += 2;
	return (uint16_t)(p[1] << 8 | p[0]);
}

static inline uint32_t cursor_le32(struct cursor *c)
{
	const uint8_t *p;

	if (!cursor_need(c, 4))
		return 0;
	p = c->base + c->off;
	c->off += 4;
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* Peek at the byte `ahead` bytes on without moving; false if not captured
 * (peeking does not count as an overrun: the caller decides). */
static inline bool cursor_peek_u8(const struct cursor *c, size_t ahead, uint8_t *v)
{
	if (c->overrun || c->off > c->caplen || ahead >= c->caplen - c->off)
		return false;
	*v = c->base[c->off + ahead];
	return true;
}

/* Cut n bytes off the end of the wire frame (the 802.11 FCS): false when
 * fewer than n bytes remain on the wire. The capture shrinks with it when
 * it reached that far. */
static inline bool cursor_drop_tail(struct cursor *c, size_t n)
{
	if (cursor_wire_left(c) < n)
		return false;
	c->wirelen -= n;
	if (c->caplen > c->wirelen)
		c->caplen = c->wirelen;
	return true;
}

/* Restrict the cursor to the next n wire bytes (n <= cursor_wire_left())
 * while a nested unit (TCP options, an A-MSDU subframe) is decoded;
 * cursor_widen() then continues just past the unit, however much of it the
 * nested decoder read, and an overrun inside stays visible. The unit may
 * run past the capture (snaplen): only reading there overruns. */
static inline struct cursor_window cursor_narrow(struct cursor *c, size_t n)
{
	struct cursor_window saved = { c->caplen, c->wirelen, c->off + n };

	c->wirelen = c->off + n;
	if (c->caplen > c->wirelen)
		c->caplen = c->wirelen;
	return saved;
}

static inline void cursor_widen(struct cursor *c, struct cursor_window saved)
{
	c->caplen = saved.caplen;
	c->wirelen = saved.wirelen;
	c->off = saved.end;
}

#endif /* AVMON_CURSOR_H */
