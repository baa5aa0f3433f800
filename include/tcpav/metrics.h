/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * metrics.h - the one implementation of the project's metrics
 * (docs/design.md §2). Rates are bits per second.
 *
 *   AVR  = goodput / target, a ratio (1 = target met), not clipped
 *   NRT  = target / EB, a ratio
 *   (the _pct forms: the same times 100, for tables)
 *   fair share = EB / N active entities
 *   Jain = (sum x)^2 / (n * sum x^2)
 *   benefit B = (X - X_base) / X_base
 *
 * Functions return NAN when the metric is undefined (a zero or negative
 * target, capacity, count or baseline, or a negative input); they never
 * divide by zero. Test with isnan().
 */
#ifndef TCPAV_METRICS_H
#define TCPAV_METRICS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

double tcpav_avr(double goodput_bps, double target_bps);
double tcpav_nrt(double target_bps, double eb_bps);
double tcpav_avr_pct(double goodput_bps, double target_bps);
double tcpav_nrt_pct(double target_bps, double eb_bps);
double tcpav_fair_share_bps(double eb_bps, size_t active);
double tcpav_jain(const double *x, size_t n);
double tcpav_benefit(double x_bps, double base_bps);

#ifdef __cplusplus
}
#endif

#endif /* TCPAV_METRICS_H */
