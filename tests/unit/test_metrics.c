// SPDX-License-Identifier: GPL-2.0
/*
 * test_metrics.c - the docs/design.md §2 metrics (metrics.h):
 *   AVR = goodput / target (%), NRT = target / EB (%), fair share = EB / N,
 *   Jain = (sum x)^2 / (n sum x^2), benefit B = (X - X_base) / X_base;
 *   NaN where the metric is undefined.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "tcpav/metrics.h"
#include "check.h"

static int near(double got, double want)
{
	return fabs(got - want) <= 1e-9 * (fabs(want) > 1.0 ? fabs(want) : 1.0);
}

static uint64_t lcg_state = 42;

static double lcg_unit(void)
{
	lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(lcg_state >> 11) / 9007199254740992.0; /* [0, 1) */
}

int main(void)
{
	/* AVR */
	CHECK(near(tcpav_avr_pct(6e6, 8e6), 75.0), "AVR 6 of 8 Mbit/s = 75 %%");
	CHECK(near(tcpav_avr_pct(8e6, 8e6), 100.0), "AVR at target = 100 %%");
	CHECK(near(tcpav_avr_pct(12e6, 8e6), 150.0), "AVR is not clipped: 12 of 8 Mbit/s = 150 %%");
	CHECK(near(tcpav_avr_pct(0.0, 8e6), 0.0), "AVR with no goodput = 0 %%, a defined value");
	CHECK(near(tcpav_avr_pct(7.0e6, 7.3e6), 100.0 * 7.0 / 7.3), "AVR 7.0/7.3 = %.4f %%",
	      100.0 * 7.0 / 7.3);
	CHECK(isnan(tcpav_avr_pct(6e6, 0.0)), "AVR with a zero target is undefined (NaN)");
	CHECK(isnan(tcpav_avr_pct(6e6, -8e6)), "AVR with a negative target is undefined (NaN)");
	CHECK(isnan(tcpav_avr_pct(-1.0, 8e6)), "AVR with a negative goodput is undefined (NaN)");
	CHECK(isnan(tcpav_avr_pct(6e6, NAN)), "AVR with a NaN target is undefined (NaN)");

	/* NRT */
	CHECK(near(tcpav_nrt_pct(8e6, 25e6), 32.0), "NRT 8 Mbit/s on a 25 Mbit/s EB = 32 %%");
	CHECK(near(tcpav_nrt_pct(30e6, 25e6), 120.0), "NRT above the EB = 120 %%, not clipped");
	CHECK(near(tcpav_nrt_pct(0.0, 25e6), 0.0), "NRT of a zero target = 0 %%");
	CHECK(isnan(tcpav_nrt_pct(8e6, 0.0)), "NRT with a zero EB is undefined (NaN)");
	CHECK(isnan(tcpav_nrt_pct(8e6, -1.0)), "NRT with a negative EB is undefined (NaN)");
	CHECK(isnan(tcpav_nrt_pct(-8e6, 25e6)), "NRT with a negative target is undefined (NaN)");
	/* AVR * NRT / 100 = goodput / EB */
	CHECK(near(tcpav_avr_pct(6e6, 8e6) * tcpav_nrt_pct(8e6, 25e6) / 100.0, 100.0 * 6e6 / 25e6),
	      "AVR x NRT = goodput / EB");

	/* the ratio forms that JSON and CSV carry: the same figures / 100 */
	CHECK(near(tcpav_avr(6e6, 8e6), 0.75), "AVR ratio 6 of 8 Mbit/s = 0.75");
	CHECK(near(tcpav_avr(12e6, 8e6), 1.5), "AVR ratio is not clipped: 1.5");
	CHECK(isnan(tcpav_avr(6e6, 0.0)) && isnan(tcpav_avr(-1.0, 8e6)), "AVR ratio undefined for a zero target, a negative goodput");
	CHECK(near(tcpav_nrt(8e6, 25e6), 0.32), "NRT ratio 8 Mbit/s on 25 Mbit/s = 0.32");
	CHECK(isnan(tcpav_nrt(8e6, 0.0)) && isnan(tcpav_nrt(-8e6, 25e6)), "NRT ratio undefined for a zero EB, a negative target");
	{
		int differ = 0;

		for (int i = 0; i < 100; i++) {
			double g = 1e8 * lcg_unit(), t = 1e3 + 1e8 * lcg_unit();

			differ += !near(100.0 * tcpav_avr(g, t), tcpav_avr_pct(g, t)) ||
				  !near(100.0 * tcpav_nrt(t, g + 1), tcpav_nrt_pct(t, g + 1));
		}
		CHECK(differ == 0, "ratio x 100 = percent over 100 random rates (%d differ)", differ);
	}

	/* fair share */
	CHECK(near(tcpav_fair_share_bps(25e6, 5), 5e6), "fair share 25 Mbit/s / 5 = 5 Mbit/s");
	CHECK(near(tcpav_fair_share_bps(25e6, 1), 25e6), "fair share for 1 active = EB");
	CHECK(near(tcpav_fair_share_bps(10e6, 3), 10e6 / 3.0), "fair share 10 / 3");
	CHECK(isnan(tcpav_fair_share_bps(25e6, 0)), "fair share with no active entity is undefined (NaN)");
	CHECK(isnan(tcpav_fair_share_bps(-1.0, 4)), "fair share of a negative EB is undefined (NaN)");

	/* Jain */
	{
		const double eq[4] = {5e6, 5e6, 5e6, 5e6};
		const double hog[4] = {20e6, 0, 0, 0};
		const double ex[3] = {1, 2, 3};         /* 36 / (3 * 14) = 6/7 */
		const double ex2[2] = {3e6, 1e6};       /* 16 / (2 * 10) = 0.8 */
		const double one[1] = {7e6};
		const double zero[3] = {0, 0, 0};
		const double neg[3] = {1, -1, 2};
		double big[100], scaled[100], sum, sum_sq, j1, j2;
		size_t i, n;
		int bounds_ok = 1;

		CHECK(near(tcpav_jain(eq, 4), 1.0), "Jain of equal shares = 1");
		CHECK(near(tcpav_jain(hog, 4), 0.25), "Jain with one hog among 4 = 1/4");
		for (n = 2; n <= 50; n += 12) {
			for (i = 0; i < n; i++)
				big[i] = i == 0 ? 1e6 : 0.0;
			CHECK(near(tcpav_jain(big, n), 1.0 / (double)n), "Jain with one hog among %zu = 1/%zu", n, n);
		}
		CHECK(near(tcpav_jain(ex, 3), 6.0 / 7.0), "Jain of {1, 2, 3} = 36/42 = 6/7");
		CHECK(near(tcpav_jain(ex2, 2), 0.8), "Jain of {3, 1} Mbit/s = 16/20 = 0.8");
		CHECK(near(tcpav_jain(one, 1), 1.0), "Jain of a single entity = 1");
		CHECK(isnan(tcpav_jain(zero, 3)), "Jain of all-zero goodputs is undefined (NaN)");
		CHECK(isnan(tcpav_jain(eq, 0)), "Jain of zero entities is undefined (NaN)");
		CHECK(isnan(tcpav_jain(NULL, 3)), "Jain of NULL is undefined (NaN)");
		CHECK(isnan(tcpav_jain(neg, 3)), "Jain with a negative goodput is undefined (NaN)");

		/* random vectors: 1/n <= J <= 1, scale invariant, equals the definition */
		for (i = 0; i < 100; i++) {
			big[i] = lcg_unit() * 30e6;
			scaled[i] = big[i] * 8.0;
		}
		for (n = 1; n <= 100; n++) {
			sum = 0.0;
			sum_sq = 0.0;
			for (i = 0; i < n; i++) {
				sum += big[i];
				sum_sq += big[i] * big[i];
			}
			j1 = tcpav_jain(big, n);
			j2 = tcpav_jain(scaled, n);
			if (!(j1 >= 1.0 / (double)n - 1e-12 && j1 <= 1.0 + 1e-12) || !near(j1, j2) ||
			    !near(j1, sum * sum / ((double)n * sum_sq)))
				bounds_ok = 0;
		}
		CHECK(bounds_ok, "Jain of 100 random vectors: 1/n <= J <= 1, scale-invariant, = (sum x)^2/(n sum x^2)");
	}

	/* benefit */
	CHECK(near(tcpav_benefit(12e6, 10e6), 0.2), "benefit 12 vs 10 Mbit/s = 0.2");
	CHECK(near(tcpav_benefit(10e6, 10e6), 0.0), "benefit equal to the baseline = 0");
	CHECK(near(tcpav_benefit(5e6, 10e6), -0.5), "benefit 5 vs 10 Mbit/s = -0.5 (a defined negative value)");
	CHECK(near(tcpav_benefit(30e6, 10e6), 2.0), "benefit 30 vs 10 Mbit/s = 2");
	CHECK(isnan(tcpav_benefit(12e6, 0.0)), "benefit against a zero baseline is undefined (NaN)");
	CHECK(isnan(tcpav_benefit(12e6, -5.0)), "benefit against a negative baseline is undefined (NaN)");
	return check_done();
}
