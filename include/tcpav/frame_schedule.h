/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frame_schedule.h - the frame sizes of frame_sender (tests/tools) and of
 * the ns-3 video source (experiments/wifi), and the
 * parsers of its numeric options: pure C, no I/O, unit-tested by
 * tests/unit/test_frame_schedule.c.
 *
 * A stream at mean rate T bits/s and F frames/s is cut into groups of N
 * frames (a GOP): one I-frame, then N - 1 P-frames, the I-frame R times the
 * size of a P-frame. A group carries T·N/(8F) bytes, shared by weight (R for
 * the I-frame, 1 for each P-frame). Frame k's size is the difference of two
 * cumulative sums, each the floor of the exact rational, so rounding never
 * accumulates: any whole number of groups carries T bits per second to the
 * byte, and each frame is within one byte of its exact share.
 */
#ifndef TCPAV_FRAME_SCHEDULE_H
#define TCPAV_FRAME_SCHEDULE_H

#include <stdbool.h>
#include <stdint.h>

/* the bounds the options accept (frame_sender --help shows them) */
#define FS_FPS_MAX 240u
#define FS_GOP_MAX 10000u
#define FS_RATIO_MIN_PCT 100u    /* an I-frame is at least a P-frame */
#define FS_RATIO_MAX_PCT 10000u  /* and at most 100 times one */
#define FS_RATE_MAX 100000000000ull /* 100 Gbit/s */
#define FS_SECONDS_MAX_MS 86400000u /* one day */

struct frame_schedule {
	uint64_t rate_bps;    /* T, the mean bit rate */
	unsigned fps;         /* frames per second */
	unsigned gop;         /* frames per group; frame 0 of each is the I-frame */
	unsigned i_ratio_pct; /* I-frame size / P-frame size, in hundredths */
};

static inline bool fs_is_i_frame(const struct frame_schedule *s, uint64_t k)
{
	return k % s->gop == 0;
}

/* weight of a whole group, in hundredths of a P-frame */
static inline uint64_t fs_group_weight(const struct frame_schedule *s)
{
	return s->i_ratio_pct + 100ull * (s->gop - 1);
}

/* weight of frames 0 .. K-1 */
static inline uint64_t fs_weight_before(const struct frame_schedule *s, uint64_t k)
{
	uint64_t groups = k / s->gop, rest = k % s->gop;

	return groups * fs_group_weight(s) + (rest ? s->i_ratio_pct + 100ull * (rest - 1) : 0);
}

/* bytes of frames 0 .. K-1: floor(T·N·W(K) / (8·F·W(group))) */
static inline uint64_t fs_bytes_before(const struct frame_schedule *s, uint64_t k)
{
	unsigned __int128 num = (unsigned __int128)s->rate_bps * s->gop * fs_weight_before(s, k);

	return (uint64_t)(num / ((unsigned __int128)8 * s->fps * fs_group_weight(s)));
}

static inline uint64_t fs_frame_bytes(const struct frame_schedule *s, uint64_t k)
{
	return fs_bytes_before(s, k + 1) - fs_bytes_before(s, k);
}

/* Frame K's scheduled time after the start, in nanoseconds (exact: no
 * drift over any duration). */
static inline uint64_t fs_frame_time_ns(const struct frame_schedule *s, uint64_t k)
{
	return (uint64_t)((unsigned __int128)k * 1000000000u / s->fps);
}

/* NULL when S describes a stream, else why not (one phrase). */
static inline const char *fs_invalid(const struct frame_schedule *s)
{
	if (s->fps == 0 || s->fps > FS_FPS_MAX)
		return "fps out of range";
	if (s->gop == 0 || s->gop > FS_GOP_MAX)
		return "gop out of range";
	if (s->i_ratio_pct < FS_RATIO_MIN_PCT || s->i_ratio_pct > FS_RATIO_MAX_PCT)
		return "i-ratio out of range";
	if (s->rate_bps == 0 || s->rate_bps > FS_RATE_MAX)
		return "rate out of range";
	/* a P-frame of under one byte: the rate is too low for fps and gop */
	if ((unsigned __int128)s->rate_bps * s->gop * 100 < (unsigned __int128)8 * s->fps * fs_group_weight(s))
		return "rate too low for a P-frame of one byte at this fps, gop and i-ratio";
	return 0;
}

/* Digits only, MIN <= value <= MAX; 0 on success, -1 otherwise (OUT kept). */
static inline int fs_parse_uint(const char *text, unsigned min, unsigned max, unsigned *out)
{
	uint64_t v = 0;
	const char *p = text;

	if (!*p)
		return -1;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > max)
			return -1;
	}
	if (v < min)
		return -1;
	*out = (unsigned)v;
	return 0;
}

/* A decimal with at most DECIMALS digits after the point ("8", "7.5"),
 * as an integer in units of 10^-DECIMALS, MIN..MAX in those units; 0 on
 * success, -1 otherwise (OUT kept). */
static inline int fs_parse_fixed(const char *text, unsigned decimals, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	unsigned frac = 0, digits = 0;
	const char *p = text;

	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > max)
			return -1;
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, digits++, frac++) {
			if (frac == decimals)
				return -1;
			v = v * 10 + (uint64_t)(*p - '0');
		}
	}
	if (*p || !digits)
		return -1;
	for (; frac < decimals; frac++) {
		v *= 10;
		if (v > max)
			return -1;
	}
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

#endif /* TCPAV_FRAME_SCHEDULE_H */
