// SPDX-License-Identifier: GPL-2.0
/*
 * sta_report.c - apstat's table, CSV and JSON-lines output of station
 * dumps and intervals. Missing values stay missing: "-", "" or null.
 */
#include "sta_report.h"
#include "sta_addr.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "tcpav/json.h"

/* Where one value goes and how a missing one is written. */
struct out {
	FILE *f;
	enum sta_report_format fmt;
	int width;  /* table column width */
	bool first; /* no separator before this field (CSV, JSON) */
};

static void sep(struct out *o, const char *key)
{
	switch (o->fmt) {
	case STA_REPORT_JSON:
		fprintf(o->f, "%s\"%s\":", o->first ? "" : ",", key);
		break;
	case STA_REPORT_CSV:
		if (!o->first)
			fputc(',', o->f);
		break;
	default:
		if (!o->first)
			fputc(' ', o->f);
		break;
	}
	o->first = false;
}

static void put_missing(struct out *o)
{
	if (o->fmt == STA_REPORT_JSON)
		fputs("null", o->f);
	else if (o->fmt == STA_REPORT_TABLE)
		fprintf(o->f, "%*s", o->width, "-");
}

static void put_u64(struct out *o, const char *key, int width, bool present, uint64_t v)
{
	o->width = width;
	sep(o, key);
	if (!present)
		put_missing(o);
	else if (o->fmt == STA_REPORT_TABLE)
		fprintf(o->f, "%*" PRIu64, width, v);
	else
		fprintf(o->f, "%" PRIu64, v);
}

static void put_int(struct out *o, const char *key, int width, bool present, int v)
{
	o->width = width;
	sep(o, key);
	if (!present)
		put_missing(o);
	else
		fprintf(o->f, "%*d", o->fmt == STA_REPORT_TABLE ? width : 0, v);
}

/* V scaled by 1/SCALE with DECIMALS; NAN is missing. */
static void put_double(struct out *o, const char *key, int width, double v, double scale, int decimals)
{
	o->width = width;
	sep(o, key);
	if (isnan(v) || isinf(v))
		put_missing(o);
	else
		fprintf(o->f, "%*.*f", o->fmt == STA_REPORT_TABLE ? width : 0, decimals, v / scale);
}

static void put_bool(struct out *o, const char *key, bool v)
{
	sep(o, key);
	if (o->fmt == STA_REPORT_JSON)
		fputs(v ? "true" : "false", o->f);
	else
		fputs(v ? "1" : "0", o->f);
}

static void put_mac(struct out *o, const uint8_t mac[6])
{
	char text[18];

	sta_addr_format_mac(mac, text, sizeof(text));
	sep(o, "mac");
	if (o->fmt == STA_REPORT_JSON)
		fprintf(o->f, "\"%s\"", text);
	else
		fprintf(o->f, "%-17s", text);
}

static void put_rate_kbps(struct out *o, const char *key, int width, bool nest, const struct sta_rate *r)
{
	if (o->fmt == STA_REPORT_TABLE) /* Mbit/s on screen */
		put_double(o, key, width, nest && r->kbps_present ? (double)r->kbps : NAN, 1000.0, 1);
	else
		put_u64(o, key, width, nest && r->kbps_present, r->kbps);
}

/* The JSON object of a bitrate nest, or null. */
static void put_rate_json(struct out *o, const char *key, bool nest, const struct sta_rate *r)
{
	bool mcs = nest && r->mode != STA_RATE_LEGACY, he = nest && r->mode == STA_RATE_HE;
	struct out in = {.f = o->f, .fmt = STA_REPORT_JSON, .first = true};

	sep(o, key);
	if (!nest) {
		fputs("null", o->f);
		return;
	}
	fputc('{', o->f);
	put_u64(&in, "kbps", 0, r->kbps_present, r->kbps);
	put_bool(&in, "computed", r->computed);
	sep(&in, "mode");
	fprintf(o->f, "\"%s\"", sta_rate_mode_name(r->mode));
	put_int(&in, "mcs", 0, mcs, r->mcs);
	put_int(&in, "nss", 0, mcs && r->nss > 0, r->nss);
	put_int(&in, "width_mhz", 0, true, r->width_mhz);
	put_int(&in, "gi_ns", 0, mcs && sta_rate_gi_ns(r) > 0, (int)sta_rate_gi_ns(r));
	sep(&in, "he_dcm");
	fputs(he ? (r->he_dcm ? "true" : "false") : "null", o->f);
	put_int(&in, "he_ru_alloc", 0, he && r->he_ru_present, r->he_ru_alloc);
	fputc('}', o->f);
}

static void station_fields(struct out *o, const struct station_info *s)
{
	put_mac(o, s->mac);
	put_int(o, "signal_dbm", 6, sta_has(s, SI_SIGNAL), s->signal_dbm);
	put_int(o, "signal_avg_dbm", 4, sta_has(s, SI_SIGNAL_AVG), s->signal_avg_dbm);
	if (o->fmt == STA_REPORT_JSON) {
		put_rate_json(o, "tx_bitrate", sta_has(s, SI_TX_BITRATE), &s->tx_rate);
		put_rate_json(o, "rx_bitrate", sta_has(s, SI_RX_BITRATE), &s->rx_rate);
	} else {
		put_rate_kbps(o, "tx_bitrate_kbps", 8, sta_has(s, SI_TX_BITRATE), &s->tx_rate);
		put_rate_kbps(o, "rx_bitrate_kbps", 8, sta_has(s, SI_RX_BITRATE), &s->rx_rate);
	}
	put_u64(o, "tx_bytes", 12, sta_has(s, SI_TX_BYTES), s->tx_bytes);
	put_u64(o, "rx_bytes", 12, sta_has(s, SI_RX_BYTES), s->rx_bytes);
	put_u64(o, "tx_packets", 9, sta_has(s, SI_TX_PACKETS), s->tx_packets);
	put_u64(o, "rx_packets", 9, sta_has(s, SI_RX_PACKETS), s->rx_packets);
	put_u64(o, "tx_retries", 8, sta_has(s, SI_TX_RETRIES), s->tx_retries);
	put_u64(o, "tx_failed", 7, sta_has(s, SI_TX_FAILED), s->tx_failed);
	put_u64(o, "tx_duration_us", 12, sta_has(s, SI_TX_DURATION), s->tx_duration_us);
	put_u64(o, "rx_duration_us", 12, sta_has(s, SI_RX_DURATION), s->rx_duration_us);
	put_u64(o, "airtime_weight", 6, sta_has(s, SI_AIRTIME_WEIGHT), s->airtime_weight);
	put_u64(o, "inactive_ms", 9, sta_has(s, SI_INACTIVE_TIME), s->inactive_ms);
	put_u64(o, "connected_s", 8, sta_has(s, SI_CONNECTED_TIME), s->connected_s);
}

void sta_report_stations(FILE *f, enum sta_report_format fmt, const char *ifname, double t,
			 const struct station_table *tab, bool header)
{
	switch (fmt) {
	case STA_REPORT_TABLE:
		fprintf(f, "%-17s %6s %4s %8s %8s %12s %12s %9s %9s %8s %7s %12s %12s %6s %9s %8s\n", "MAC",
			"SIGNAL", "AVG", "TX_MBPS", "RX_MBPS", "TX_BYTES", "RX_BYTES", "TX_PKTS", "RX_PKTS",
			"RETRIES", "FAILED", "TX_AIR_US", "RX_AIR_US", "WEIGHT", "INACT_MS", "CONN_S");
		break;
	case STA_REPORT_CSV:
		if (header)
			fputs("time,ifname,mac,signal_dbm,signal_avg_dbm,tx_bitrate_kbps,rx_bitrate_kbps,tx_bytes,"
			      "rx_bytes,tx_packets,rx_packets,tx_retries,tx_failed,tx_duration_us,rx_duration_us,"
			      "airtime_weight,inactive_ms,connected_s\n",
			      f);
		break;
	case STA_REPORT_JSON:
		fprintf(f, "{\"type\":\"stations\",\"time\":%.3f,\"ifname\":", t);
		tcpav_json_string(f, ifname);
		fputs(",\"stations\":[", f);
		break;
	}
	for (size_t i = 0; i < tab->n; i++) {
		struct out o = {.f = f, .fmt = fmt, .first = true};

		if (fmt == STA_REPORT_JSON) {
			fputs(i ? ",{" : "{", f);
		} else if (fmt == STA_REPORT_CSV) {
			fprintf(f, "%.3f,%s,", t, ifname);
		}
		station_fields(&o, &tab->sta[i]);
		fputs(fmt == STA_REPORT_JSON ? "}" : "\n", f);
	}
	if (fmt == STA_REPORT_JSON)
		fputs("]}\n", f);
	else if (fmt == STA_REPORT_TABLE && tab->n == 0)
		fprintf(f, "(no stations on %s)\n", ifname);
}

static void delta_fields(struct out *o, const struct station_delta *d)
{
	const struct station_info *s = &d->now;

	put_mac(o, s->mac);
	if (o->fmt != STA_REPORT_TABLE) {
		put_bool(o, "new", !d->has_baseline);
		put_bool(o, "reset", d->reset);
		put_bool(o, "active", d->active);
	}
	if (o->fmt == STA_REPORT_TABLE) { /* Mbit/s and % on screen */
		put_double(o, "rx_bps", 9, d->rx_bps, 1e6, 2);
		put_double(o, "tx_bps", 9, d->tx_bps, 1e6, 2);
		put_double(o, "airtime_share", 7, d->airtime_share, 0.01, 1);
		put_double(o, "retry_ratio", 6, d->retry_ratio, 0.01, 1);
	} else {
		put_double(o, "rx_bps", 0, d->rx_bps, 1.0, 0);
		put_double(o, "tx_bps", 0, d->tx_bps, 1.0, 0);
		put_double(o, "goodput_bps", 0, d->goodput_bps, 1.0, 0);
		put_double(o, "airtime_us", 0, d->airtime_us, 1.0, 0);
		put_double(o, "airtime_share", 0, d->airtime_share, 1.0, 4);
		put_double(o, "retry_ratio", 0, d->retry_ratio, 1.0, 4);
	}
	put_int(o, "signal_dbm", 6, sta_has(s, SI_SIGNAL), s->signal_dbm);
	put_rate_kbps(o, "tx_bitrate_kbps", 8, sta_has(s, SI_TX_BITRATE), &s->tx_rate);
	put_rate_kbps(o, "rx_bitrate_kbps", 8, sta_has(s, SI_RX_BITRATE), &s->rx_rate);
	put_u64(o, "airtime_weight", 6, sta_has(s, SI_AIRTIME_WEIGHT), s->airtime_weight);
}

static void fairness_fields(struct out *o, const struct station_interval *iv)
{
	put_double(o, "eb_bps", 0, iv->goodput_sum_bps, 1.0, 0);
	put_u64(o, "active", 0, true, iv->active);
	put_double(o, "fair_share_bps", 0, iv->fair_share_bps, 1.0, 0);
	put_double(o, "jain_goodput", 0, iv->jain_goodput, 1.0, 4);
	put_double(o, "jain_airtime", 0, iv->jain_airtime, 1.0, 4);
}

void sta_report_interval(FILE *f, enum sta_report_format fmt, const char *ifname, double t,
			 const struct station_interval *iv, bool header)
{
	struct out o = {.f = f, .fmt = fmt, .first = true};

	switch (fmt) {
	case STA_REPORT_TABLE:
		fprintf(f, "%-17s %9s %9s %7s %6s %6s %8s %8s %6s\n", "MAC", "RX_MBPS", "TX_MBPS", "AIR_%",
			"RETRY%", "SIGNAL", "TX_RATE", "RX_RATE", "WEIGHT");
		for (size_t i = 0; i < iv->n; i++) {
			o.first = true;
			delta_fields(&o, &iv->sta[i]);
			fputs(iv->sta[i].has_baseline ? "\n" : "  (new)\n", f);
		}
		fprintf(f, "%zu stations, %zu active, %zu departed; carried ", iv->n, iv->active, iv->departed);
		o.first = true;
		put_double(&o, "eb_bps", 1, iv->goodput_sum_bps, 1e6, 2);
		fputs(" Mbit/s, fair share ", f);
		o.first = true;
		put_double(&o, "fair_share_bps", 1, iv->fair_share_bps, 1e6, 2);
		fputs(" Mbit/s, Jain goodput ", f);
		o.first = true;
		put_double(&o, "jain_goodput", 1, iv->jain_goodput, 1.0, 3);
		fputs(" airtime ", f);
		o.first = true;
		put_double(&o, "jain_airtime", 1, iv->jain_airtime, 1.0, 3);
		fputs("\n\n", f);
		break;
	case STA_REPORT_CSV:
		if (header)
			fputs("time,ifname,elapsed_s,mac,new,reset,active,rx_bps,tx_bps,goodput_bps,airtime_us,"
			      "airtime_share,retry_ratio,signal_dbm,tx_bitrate_kbps,rx_bitrate_kbps,airtime_weight,"
			      "eb_bps,active_stations,fair_share_bps,jain_goodput,jain_airtime\n",
			      f);
		for (size_t i = 0; i < iv->n; i++) {
			fprintf(f, "%.3f,%s,%.3f,", t, ifname, iv->elapsed_s);
			o.first = true;
			delta_fields(&o, &iv->sta[i]);
			o.first = false;
			fairness_fields(&o, iv);
			fputc('\n', f);
		}
		break;
	case STA_REPORT_JSON:
		fprintf(f, "{\"type\":\"interval\",\"time\":%.3f,\"ifname\":", t);
		tcpav_json_string(f, ifname);
		fprintf(f, ",\"elapsed_s\":%.3f,\"stations\":[", iv->elapsed_s);
		for (size_t i = 0; i < iv->n; i++) {
			fputs(i ? ",{" : "{", f);
			o.first = true;
			delta_fields(&o, &iv->sta[i]);
			fputc('}', f);
		}
		fputs("],\"fairness\":{", f);
		o.first = true;
		fairness_fields(&o, iv);
		fprintf(f, ",\"departed\":%zu}}\n", iv->departed);
		break;
	}
}
