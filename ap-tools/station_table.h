/* SPDX-License-Identifier: GPL-2.0 */
/*
 * station_table.h - the stations of one dump (a snapshot), and what
 * happened between two snapshots: per-station rates, airtime share and
 * retry ratio, and across stations their total, mean and Jain's index.
 * Pure: no netlink, no clock; apstat's --interval is built on it.
 */
#ifndef APTOOLS_STATION_TABLE_H
#define APTOOLS_STATION_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sta_info.h"

struct station_table {
	struct station_info *sta;
	size_t n, cap;
};

/* Appends a copy of S (a station seen twice replaces the first). 0, or
 * -NLE_NOMEM. */
int station_table_add(struct station_table *t, const struct station_info *s);
const struct station_info *station_table_find(const struct station_table *t, const uint8_t mac[6]);
void station_table_clear(struct station_table *t); /* n = 0, memory kept */
void station_table_free(struct station_table *t);

/*
 * One station over one interval. Doubles are NAN when unknown (no
 * baseline, the counters were not reported, a 0/0 ratio).
 */
struct station_delta {
	struct station_info now;  /* the station at the end of the interval */
	bool has_baseline;        /* it was in the previous snapshot too */
	bool reset;               /* its counters restarted (re-associated) */
	bool active;              /* carried bytes in the interval */
	uint64_t rx_bytes, tx_bytes;       /* deltas, valid with has_baseline */
	double rx_bps, tx_bps;    /* from the byte deltas: up (rx) and down (tx) */
	double l2_bps;            /* rx_bps + tx_bps: link-layer bytes both ways,
				   * not goodput (nl80211 cannot tell unique payload) */
	double airtime_us;        /* tx + rx duration delta */
	double airtime_share;     /* airtime_us / sum over stations, 0..1 */
	double retry_ratio;       /* retries / (tx packets + retries), 0..1 */
};

struct station_interval {
	double elapsed_s;
	struct station_delta *sta; /* the stations of the later snapshot, in its order */
	size_t n, cap;
	size_t active;             /* stations that carried bytes */
	size_t departed;           /* in the earlier snapshot only */
	double total_l2_bps;       /* sum of l2_bps: what all stations carried, bits/s */
	double airtime_sum_us;
	double mean_l2_bps;        /* total_l2_bps / active (not a capacity's fair share) */
	double jain_l2;            /* of l2_bps over active stations */
	double jain_airtime;       /* over active stations with airtime counters */
};

/*
 * The interval from PREV to CUR, ELAPSED_S seconds apart (> 0), into *OUT
 * (whose memory is reused; zero it before the first use).
 *
 * Counters: a station's deltas are CUR - PREV. Its counters restarted when
 * its connected time went down or a 64-bit counter (bytes64, durations)
 * went down: the deltas are then CUR's values (counted from 0 since it
 * re-associated). A 32-bit counter that went down otherwise wrapped
 * (modulo 2^32). A station new in CUR has no baseline: its rates are NAN
 * and it is left out of the sums. Stations gone from CUR are counted in
 * departed.
 *
 * Across stations: total_l2_bps is the sum of the stations' link-layer
 * rates (bytes both ways); nl80211 shows no capacity (EB) and no unique
 * payload (goodput), so neither is claimed. mean_l2_bps is the total over
 * the active stations; Jain's index is taken over the active stations'
 * l2_bps and airtime (NAN when no station was active).
 * 0, or -NLE_INVAL (bad arguments), -NLE_NOMEM.
 */
int station_interval_compute(const struct station_table *prev, const struct station_table *cur, double elapsed_s,
			     struct station_interval *out);
void station_interval_free(struct station_interval *iv);

#endif /* APTOOLS_STATION_TABLE_H */
