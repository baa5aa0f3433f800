// SPDX-License-Identifier: GPL-2.0
/*
 * station_table.c - snapshots of a station dump, and the interval between
 * two of them: per-station rates, airtime share, retry ratio; total, mean
 * and Jain's index across stations (the metrics of include/tcpav/metrics.h).
 */
#include "station_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/errno.h>

#include "tcpav/metrics.h"

int station_table_add(struct station_table *t, const struct station_info *s)
{
	struct station_info *slot = (struct station_info *)station_table_find(t, s->mac);

	if (slot) {
		*slot = *s;
		return 0;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		struct station_info *p = realloc(t->sta, cap * sizeof(*p));

		if (!p)
			return -NLE_NOMEM;
		t->sta = p;
		t->cap = cap;
	}
	t->sta[t->n++] = *s;
	return 0;
}

const struct station_info *station_table_find(const struct station_table *t, const uint8_t mac[6])
{
	for (size_t i = 0; i < t->n; i++)
		if (memcmp(t->sta[i].mac, mac, 6) == 0)
			return &t->sta[i];
	return NULL;
}

void station_table_clear(struct station_table *t)
{
	t->n = 0;
}

void station_table_free(struct station_table *t)
{
	free(t->sta);
	memset(t, 0, sizeof(*t));
}

void station_interval_free(struct station_interval *iv)
{
	free(iv->sta);
	memset(iv, 0, sizeof(*iv));
}

static bool both(const struct station_info *p, const struct station_info *c, enum sta_info_field f)
{
	return sta_has(p, f) && sta_has(c, f);
}

/* A station's counters start again from 0 when it re-associates: its
 * connected time goes down, and so do counters that cannot wrap. */
static bool counters_restarted(const struct station_info *p, const struct station_info *c)
{
	if (both(p, c, SI_CONNECTED_TIME) && c->connected_s < p->connected_s)
		return true;
	if (both(p, c, SI_RX_BYTES) && p->rx_bytes64 && c->rx_bytes64 && c->rx_bytes < p->rx_bytes)
		return true;
	if (both(p, c, SI_TX_BYTES) && p->tx_bytes64 && c->tx_bytes64 && c->tx_bytes < p->tx_bytes)
		return true;
	if (both(p, c, SI_RX_DURATION) && c->rx_duration_us < p->rx_duration_us)
		return true;
	if (both(p, c, SI_TX_DURATION) && c->tx_duration_us < p->tx_duration_us)
		return true;
	return false;
}

/* CUR - PREV of a counter that is 64 bits wide (WIDE) or wraps at 2^32. */
static uint64_t counter_delta(uint64_t prev, uint64_t cur, bool wide, bool reset)
{
	if (reset)
		return cur;
	if (wide)
		return cur - prev; /* a decrease is a reset, handled above */
	return (uint32_t)((uint32_t)cur - (uint32_t)prev);
}

static void station_delta_compute(struct station_delta *d, const struct station_info *p, double elapsed_s)
{
	const struct station_info *c = &d->now;
	bool reset, have_rx, have_tx, have_air = false;
	double air = 0.0;

	d->rx_bps = d->tx_bps = d->l2_bps = NAN;
	d->airtime_us = d->airtime_share = d->retry_ratio = NAN;
	if (!p)
		return;
	d->has_baseline = true;
	reset = d->reset = counters_restarted(p, c);
	have_rx = both(p, c, SI_RX_BYTES);
	have_tx = both(p, c, SI_TX_BYTES);
	if (have_rx) {
		d->rx_bytes = counter_delta(p->rx_bytes, c->rx_bytes, p->rx_bytes64 && c->rx_bytes64, reset);
		d->rx_bps = 8.0 * (double)d->rx_bytes / elapsed_s;
	}
	if (have_tx) {
		d->tx_bytes = counter_delta(p->tx_bytes, c->tx_bytes, p->tx_bytes64 && c->tx_bytes64, reset);
		d->tx_bps = 8.0 * (double)d->tx_bytes / elapsed_s;
	}
	/* l2_bps needs both directions: half a figure would read as a slow station */
	if (have_rx && have_tx) {
		d->l2_bps = d->rx_bps + d->tx_bps;
		d->active = d->rx_bytes + d->tx_bytes > 0;
	}
	if (both(p, c, SI_TX_DURATION)) {
		air += (double)counter_delta(p->tx_duration_us, c->tx_duration_us, true, reset);
		have_air = true;
	}
	if (both(p, c, SI_RX_DURATION)) {
		air += (double)counter_delta(p->rx_duration_us, c->rx_duration_us, true, reset);
		have_air = true;
	}
	if (have_air)
		d->airtime_us = air;
	if (both(p, c, SI_TX_RETRIES) && both(p, c, SI_TX_PACKETS)) {
		double retries = (double)counter_delta(p->tx_retries, c->tx_retries, false, reset);
		double packets = (double)counter_delta(p->tx_packets, c->tx_packets, false, reset);

		if (packets + retries > 0)
			d->retry_ratio = retries / (packets + retries);
	}
}

int station_interval_compute(const struct station_table *prev, const struct station_table *cur, double elapsed_s,
			     struct station_interval *out)
{
	double *l2, *airtime;
	size_t n_air = 0;

	if (!prev || !cur || !out || !(elapsed_s > 0.0) || !isfinite(elapsed_s))
		return -NLE_INVAL;
	if (out->cap < cur->n) {
		struct station_delta *p = realloc(out->sta, cur->n * sizeof(*p));

		if (!p)
			return -NLE_NOMEM;
		out->sta = p;
		out->cap = cur->n;
	}
	l2 = calloc(cur->n + 1, sizeof(*l2));
	airtime = calloc(cur->n + 1, sizeof(*airtime));
	if (!l2 || !airtime) {
		free(l2);
		free(airtime);
		return -NLE_NOMEM;
	}
	out->elapsed_s = elapsed_s;
	out->n = cur->n;
	out->active = out->departed = 0;
	out->total_l2_bps = out->airtime_sum_us = 0.0;
	for (size_t i = 0; i < cur->n; i++) {
		struct station_delta *d = &out->sta[i];

		memset(d, 0, sizeof(*d));
		d->now = cur->sta[i];
		station_delta_compute(d, station_table_find(prev, d->now.mac), elapsed_s);
		if (!isnan(d->l2_bps))
			out->total_l2_bps += d->l2_bps;
		if (!isnan(d->airtime_us))
			out->airtime_sum_us += d->airtime_us;
		if (d->active) {
			l2[out->active++] = d->l2_bps;
			if (!isnan(d->airtime_us))
				airtime[n_air++] = d->airtime_us;
		}
	}
	for (size_t i = 0; i < prev->n; i++)
		if (!station_table_find(cur, prev->sta[i].mac))
			out->departed++;
	for (size_t i = 0; i < out->n; i++) {
		struct station_delta *d = &out->sta[i];

		if (!isnan(d->airtime_us) && out->airtime_sum_us > 0.0)
			d->airtime_share = d->airtime_us / out->airtime_sum_us;
	}
	out->mean_l2_bps = tcpav_fair_share_bps(out->total_l2_bps, out->active); /* the same division */
	out->jain_l2 = tcpav_jain(l2, out->active);
	out->jain_airtime = tcpav_jain(airtime, n_air);
	free(l2);
	free(airtime);
	return 0;
}
