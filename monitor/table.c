// SPDX-License-Identifier: GPL-2.0
/*
 * table.c - avmon's "table" format: a screen like top's, redrawn every
 * interval on a terminal, and the same layout once for the whole run at
 * the end. Busiest stations and flows first; at most TABLE_ROWS of each.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report.h"
#include "tcpav/metrics.h"
#include "tcpav/tcpav.h"

#define TABLE_ROWS 20

struct row {
	const void *entity;
	double goodput_bps;
};

static int by_goodput_desc(const void *a, const void *b)
{
	double x = ((const struct row *)a)->goodput_bps, y = ((const struct row *)b)->goodput_bps;

	return (x < y) - (x > y);
}

static double bps(uint64_t bytes, double seconds)
{
	return seconds > 0.0 ? (double)bytes * 8.0 / seconds : NAN;
}

static const char *mbit(double v, char *buf, size_t len)
{
	if (isfinite(v))
		snprintf(buf, len, "%.2f", v / 1e6);
	else
		snprintf(buf, len, "-");
	return buf;
}

static void header(FILE *out, const struct report_view *v, bool whole_run, double seconds)
{
	const struct report_fairness *f = &v->fairness;
	char eb[24], fair[24], jg[16] = "-", ja[16] = "-";
	time_t t = (time_t)v->t_end;
	char stamp[16] = "";

	if (isfinite(v->t_end))
		strftime(stamp, sizeof(stamp), "%H:%M:%S", localtime(&t));
	if (isfinite(f->jain_goodput))
		snprintf(jg, sizeof(jg), "%.3f", f->jain_goodput);
	if (isfinite(f->jain_airtime))
		snprintf(ja, sizeof(ja), "%.3f", f->jain_airtime);
	fprintf(out, "avmon %s  %s %.2f s  EB %s Mbit/s (%s)  active: %zu stations, %zu flows\n",
		stamp, whole_run ? "whole run" : "interval", seconds, mbit(v->capacity_bps, eb, sizeof(eb)),
		v->capacity_source ? v->capacity_source : "-", f->active_stations, f->active_flows);
	fprintf(out, "fair share %s Mbit/s per station   Jain: goodput %s  airtime %s\n\n",
		mbit(f->fair_share_bps, fair, sizeof(fair)), jg, ja);
}

static void stations(FILE *out, const struct report_view *v, bool whole_run, double seconds)
{
	struct row *rows = calloc(v->n_stations ? v->n_stations : 1, sizeof(*rows));
	size_t n = 0;

	if (!rows)
		return;
	for (size_t i = 0; i < v->n_stations; i++) {
		const struct station *s = v->stations[i];
		uint64_t tx = whole_run ? s->tx_goodput_bytes : s->interval.tx_goodput_bytes;
		uint64_t rx = whole_run ? s->rx_goodput_bytes : s->interval.rx_goodput_bytes;
		uint64_t frames = whole_run ? s->tx_frames + s->rx_frames : s->interval.frames;

		if (frames == 0 && tx + rx == 0)
			continue;
		rows[n].entity = s;
		rows[n++].goodput_bps = bps(tx + rx, seconds);
	}
	qsort(rows, n, sizeof(*rows), by_goodput_desc);
	/* AIRTIME_USE%: the station's airtime over the elapsed time (the
	 * medium's time it used), not apstat's AIR_% (airtime_share, its share
	 * of all stations' airtime) */
	fprintf(out, "%-20s %-7s %10s %10s %12s %7s\n", "STATION", "ROLE", "TX Mbit/s", "RX Mbit/s", "AIRTIME_USE%",
		"RETRY%");
	for (size_t i = 0; i < n && i < TABLE_ROWS; i++) {
		const struct station *s = rows[i].entity;
		uint64_t tx = whole_run ? s->tx_goodput_bytes : s->interval.tx_goodput_bytes;
		uint64_t rx = whole_run ? s->rx_goodput_bytes : s->interval.rx_goodput_bytes;
		uint64_t air = whole_run ? s->tx_airtime_us + s->rx_airtime_us : s->interval.airtime_us;
		uint64_t data = whole_run ? s->tx_data_frames + s->rx_data_frames : s->interval.data_frames;
		uint64_t retries = whole_run ? s->tx_data_retries + s->rx_data_retries : s->interval.data_retries;
		char name[64], a[24], b[24], airtime[16] = "-", retry[16] = "-";

		station_format(s, name, sizeof(name));
		if (seconds > 0.0 && air)
			snprintf(airtime, sizeof(airtime), "%.1f", 100.0 * (double)air / (seconds * 1e6));
		if (data)
			snprintf(retry, sizeof(retry), "%.1f", 100.0 * (double)retries / (double)data);
		fprintf(out, "%-20s %-7s %10s %10s %12s %7s\n", name, s->is_ap ? "ap" : "station",
			mbit(bps(tx, seconds), a, sizeof(a)), mbit(bps(rx, seconds), b, sizeof(b)), airtime, retry);
	}
	if (n > TABLE_ROWS)
		fprintf(out, "(%zu more stations)\n", n - TABLE_ROWS);
	fputc('\n', out);
	free(rows);
}

static void flows(FILE *out, const struct report_view *v, bool whole_run, double seconds)
{
	struct row *rows = calloc(v->n_flows ? v->n_flows : 1, sizeof(*rows));
	size_t n = 0;

	if (!rows)
		return;
	for (size_t i = 0; i < v->n_flows; i++) {
		const struct flow *fl = v->flows[i];
		uint64_t g0 = whole_run ? fl->dir[0].goodput_bytes : fl->interval.goodput_bytes[0];
		uint64_t g1 = whole_run ? fl->dir[1].goodput_bytes : fl->interval.goodput_bytes[1];
		double span = whole_run ? flow_duration(fl) : seconds;

		if (g0 + g1 == 0)
			continue;
		rows[n].entity = fl;
		rows[n++].goodput_bps = bps(g0 > g1 ? g0 : g1, span);
	}
	qsort(rows, n, sizeof(*rows), by_goodput_desc);
	fprintf(out, "%-47s %10s %6s %7s %12s %7s %6s\n", "FLOW (A -> B)", "Mbit/s", "RETX", "DUPACK", "TARGET", "AVR%",
		"NRT%");
	for (size_t i = 0; i < n && i < TABLE_ROWS; i++) {
		const struct flow *fl = rows[i].entity;
		uint64_t retx = whole_run ? fl->dir[0].retransmissions + fl->dir[1].retransmissions
					  : fl->interval.retransmissions[0] + fl->interval.retransmissions[1];
		uint64_t dup = whole_run ? fl->dir[0].dup_acks + fl->dir[1].dup_acks
					 : fl->interval.dup_acks[0] + fl->interval.dup_acks[1];
		char a[64], b[64], pair[136], g[24], target[24] = "-", avr[16] = "-", nrt[16] = "-";

		flow_endpoint_format(fl, FLOW_A_TO_B, a, sizeof(a));
		flow_endpoint_format(fl, FLOW_B_TO_A, b, sizeof(b));
		snprintf(pair, sizeof(pair), "%s -> %s", a, b);
		if (fl->target >= 0) {
			double t = (double)v->targets[fl->target].rate_bps;
			double r = tcpav_avr_pct(rows[i].goodput_bps, t), q = tcpav_nrt_pct(t, v->capacity_bps);

			tcpav_format_rate(v->targets[fl->target].rate_bps, target, sizeof(target));
			if (isfinite(r))
				snprintf(avr, sizeof(avr), "%.1f", r);
			if (isfinite(q))
				snprintf(nrt, sizeof(nrt), "%.1f", q);
		}
		fprintf(out, "%-47s %10s %6" PRIu64 " %7" PRIu64 " %12s %7s %6s\n", pair,
			mbit(rows[i].goodput_bps, g, sizeof(g)), retx, dup, target, avr, nrt);
	}
	if (n > TABLE_ROWS)
		fprintf(out, "(%zu more flows)\n", n - TABLE_ROWS);
	free(rows);
}

void report_table(FILE *out, const struct report_view *v, bool whole_run, bool clear)
{
	double seconds = whole_run ? v->last_ts - v->first_ts : v->t_end - v->t_start;

	if (clear)
		fputs("\033[H\033[2J", out); /* home, clear: redraw like top */
	header(out, v, whole_run, seconds);
	stations(out, v, whole_run, seconds);
	flows(out, v, whole_run, seconds);
	fflush(out);
}
