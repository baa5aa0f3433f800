// SPDX-License-Identifier: GPL-2.0
/*
 * test_frame_schedule.c - frame_sender's frame sizes and option parsers
 * (include/tcpav/frame_schedule.h): whole groups carry the mean rate to the
 * byte, the I-frame is R times a P-frame (within the byte of rounding), the
 * frame times are exact, and bad values are refused.
 */
#include <stdint.h>
#include <stdio.h>

#include "tcpav/frame_schedule.h"
#include "check.h"

/* over SECONDS whole seconds that are whole groups: T·S/8 bytes to the
 * byte; every I-frame R·P within the rounding; every P-frame within a byte
 * of the exact share T·N/(8F·(R + N - 1)) */
static void schedule_holds(uint64_t rate, unsigned fps, unsigned gop, unsigned ratio_pct, unsigned seconds)
{
	struct frame_schedule s = {.rate_bps = rate, .fps = fps, .gop = gop, .i_ratio_pct = ratio_pct};
	uint64_t frames = (uint64_t)fps * seconds, sum = 0, k, i_bad = 0, p_bad = 0;
	double p_exact = (double)rate * gop * 100 / (8.0 * fps * (ratio_pct + 100.0 * (gop - 1)));

	for (k = 0; k < frames; k++) {
		uint64_t b = fs_frame_bytes(&s, k);
		double want = fs_is_i_frame(&s, k) ? p_exact * ratio_pct / 100 : p_exact;

		sum += b;
		if (b + 1 < want || b > want + 1)
			*(fs_is_i_frame(&s, k) ? &i_bad : &p_bad) += 1;
	}
	CHECK(fs_invalid(&s) == NULL, "%llu bit/s %u fps gop %u ratio %u%%: valid", (unsigned long long)rate, fps, gop,
	      ratio_pct);
	CHECK(frames % gop || sum == rate * seconds / 8,
	      "%llu bit/s %u fps gop %u: %u s carry %llu bytes (want %llu)", (unsigned long long)rate, fps, gop, seconds,
	      (unsigned long long)sum, (unsigned long long)(rate * seconds / 8));
	CHECK(i_bad == 0 && p_bad == 0, "%u fps gop %u ratio %.2f: I %llu B, P %llu B, exact P %.2f B (%llu I, %llu P off)",
	      fps, gop, ratio_pct / 100.0, (unsigned long long)fs_frame_bytes(&s, 0),
	      (unsigned long long)fs_frame_bytes(&s, 1), p_exact, (unsigned long long)i_bad, (unsigned long long)p_bad);
	if (gop > 1) {
		double r = (double)fs_frame_bytes(&s, 0) / (double)fs_frame_bytes(&s, 1);

		CHECK(r > ratio_pct / 100.0 - 0.01 && r < ratio_pct / 100.0 + 0.01, "I/P = %.4f, asked %.2f", r,
		      ratio_pct / 100.0);
	}
}

int main(void)
{
	struct frame_schedule s = {.rate_bps = 12000000, .fps = 30, .gop = 30, .i_ratio_pct = 800};
	uint64_t v, sum = 0, k;
	unsigned u;

	/* the video test's streams, then awkward ones (rates that do not
	 * divide, a group longer than a second, R with decimals, all I) */
	schedule_holds(12000000, 30, 30, 800, 10);
	schedule_holds(12000000, 60, 60, 800, 10);
	schedule_holds(12000000, 60, 120, 500, 10);
	schedule_holds(8000000, 30, 30, 1000, 4);
	schedule_holds(1234567, 24, 48, 750, 6);
	schedule_holds(7777777, 60, 7, 525, 7);
	schedule_holds(3000000, 25, 1, 600, 3);
	schedule_holds(100000, 30, 30, 100, 2);

	/* a partial group: no more than the whole groups' rate plus the
	 * front-loaded I-frame's extra */
	for (k = 0; k < 45; k++)
		sum += fs_frame_bytes(&s, k);
	CHECK(sum == fs_bytes_before(&s, 45) && sum > 12000000 * 3 / 16 && sum < 12000000 * 3 / 16 + 7 * 50000,
	      "1.5 s at 30 fps: %llu bytes (the second group's I-frame is early)", (unsigned long long)sum);

	/* frame times: k/F seconds, exact over a day */
	CHECK(fs_frame_time_ns(&s, 30) == 1000000000u && fs_frame_time_ns(&s, 1) == 33333333u &&
		      fs_frame_time_ns(&s, 30u * 86400) == 86400ull * 1000000000u,
	      "frame times 1/F apart without drift");

	/* what cannot be a stream */
	s = (struct frame_schedule){.rate_bps = 100, .fps = 60, .gop = 60, .i_ratio_pct = 1000};
	CHECK(fs_invalid(&s) != NULL, "100 bit/s at 60 fps (P-frames of 0.18 B) refused: %s",
	      fs_invalid(&s) ? fs_invalid(&s) : "(accepted)");
	s = (struct frame_schedule){.rate_bps = 12000000, .fps = 0, .gop = 30, .i_ratio_pct = 800};
	CHECK(fs_invalid(&s) != NULL, "0 fps refused");
	s.fps = 30, s.i_ratio_pct = 99;
	CHECK(fs_invalid(&s) != NULL, "an I-frame smaller than a P-frame refused");

	/* the parsers */
	CHECK(fs_parse_fixed("7.5", 2, 100, 10000, &v) == 0 && v == 750, "i-ratio 7.5 = 750 hundredths");
	CHECK(fs_parse_fixed("8", 2, 100, 10000, &v) == 0 && v == 800, "i-ratio 8 = 800 hundredths");
	CHECK(fs_parse_fixed("12.25", 3, 1, 86400000, &v) == 0 && v == 12250, "12.25 s = 12250 ms");
	CHECK(fs_parse_fixed("0.5", 3, 0, 86400000, &v) == 0 && v == 500, "0.5 s = 500 ms");
	v = 42;
	CHECK(fs_parse_fixed("7.555", 2, 100, 10000, &v) && v == 42, "three decimals refused for the ratio");
	CHECK(fs_parse_fixed("0.5", 2, 100, 10000, &v) && v == 42, "ratio 0.5 refused (below 1)");
	CHECK(fs_parse_fixed("101", 2, 100, 10000, &v) && v == 42, "ratio 101 refused (above 100)");
	CHECK(fs_parse_fixed("", 3, 0, 1000, &v) && fs_parse_fixed(".", 3, 0, 1000, &v) &&
		      fs_parse_fixed("1s", 3, 0, 100000, &v) && fs_parse_fixed("-1", 3, 0, 1000, &v) &&
		      fs_parse_fixed("99999999999999999999", 3, 0, 86400000, &v) && v == 42,
	      "empty, '.', '1s', '-1' and overflowing seconds refused");
	CHECK(fs_parse_uint("60", 1, 240, &u) == 0 && u == 60, "fps 60");
	u = 7;
	CHECK(fs_parse_uint("0", 1, 240, &u) && fs_parse_uint("241", 1, 240, &u) && fs_parse_uint("3x", 1, 240, &u) &&
		      fs_parse_uint("", 1, 240, &u) && fs_parse_uint("99999999999999999999", 1, 240, &u) && u == 7,
	      "fps 0, 241, '3x', empty and overflowing refused");
	return check_done();
}
