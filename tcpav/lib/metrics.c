// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* metrics.c - AVR, NRT, fair share, Jain's index, benefit (docs/design.md §2). */
#include <math.h>

#include "tcpav/metrics.h"

double tcpav_avr(double goodput_bps, double target_bps)
{
	if (!(target_bps > 0.0) || goodput_bps < 0.0)
		return NAN;
	return goodput_bps / target_bps;
}

double tcpav_nrt(double target_bps, double eb_bps)
{
	if (!(eb_bps > 0.0) || target_bps < 0.0)
		return NAN;
	return target_bps / eb_bps;
}

/* the percentages tables show: the ratios above, times 100 */
double tcpav_avr_pct(double goodput_bps, double target_bps)
{
	return 100.0 * tcpav_avr(goodput_bps, target_bps);
}

double tcpav_nrt_pct(double target_bps, double eb_bps)
{
	return 100.0 * tcpav_nrt(target_bps, eb_bps);
}

double tcpav_fair_share_bps(double eb_bps, size_t active)
{
	if (active == 0 || eb_bps < 0.0)
		return NAN;
	return eb_bps / (double)active;
}

double tcpav_jain(const double *x, size_t n)
{
	double sum = 0.0, sum_sq = 0.0;

	if (!x || n == 0)
		return NAN;
	for (size_t i = 0; i < n; i++) {
		if (x[i] < 0.0)
			return NAN;
		sum += x[i];
		sum_sq += x[i] * x[i];
	}
	if (sum_sq == 0.0)
		return NAN;
	return sum * sum / ((double)n * sum_sq);
}

double tcpav_benefit(double x_bps, double base_bps)
{
	if (!(base_bps > 0.0))
		return NAN;
	return (x_bps - base_bps) / base_bps;
}
