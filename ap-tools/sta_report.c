// SPDX-License-Identifier: GPL-2.0
/*
 * sta_report.c - apstat's table, CSV and JSON-lines output of station
 * dumps and intervals. Missing values stay missing: "-", "" or null.
 *
 * Names follow the README's glossary. nl80211 counts at the AP, so a
 * direction is named from the station's side of the link: "down" is AP
 * to station (nl80211's tx), "up" station to AP (its rx); in avmon, tx and
 * rx are what the row's own entity sent and received. The byte counters
 * are link-layer bytes, hence l2_bps, not goodput (unique payload, which
 * nl80211 cannot tell); their sum over stations is total_l2_bps, not EB
 * (a capacity, which nl80211 does not show either).
 */
#include "sta_report.h"
#include "sta_addr.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "tcpav/csv.h"
#include "tcpav/json.h"

/* Where one value goes and how a missing one is written. */
struct out {
	FILE *f;
	enum sta_report_format fmt;
	int width;  /* table column width */
	bool first; /* no separator before this field (CSV, table) */
	struct tcpav_json *json; /* STA_REPORT_JSON: the writer */
};

static void sep(struct out *o)
{
	if (o->fmt == STA_REPORT_CSV && !o->first)
		fputc(',', o->f);
	else if (o->fmt == STA_REPORT_TABLE && !o->first)
		fputc(' ', o->f);
	o->first = false;
}

static void put_missing(struct out *o, const char *key)
{
	if (o->fmt == STA_REPORT_JSON) {
		tcpav_json_null(o->json, key);
		return;
	}
	sep(o);
	if (o->fmt == STA_REPORT_TABLE)
		fprintf(o->f, "%*s", o->width, "-");
}

static void put_u64(struct out *o, const char *key, int width, bool present, uint64_t v)
{
	o->width = width;
	if (!present)
		put_missing(o, key);
	else if (o->fmt == STA_REPORT_JSON)
		tcpav_json_u64(o->json, key, v);
	else {
		sep(o);
		fprintf(o->f, "%*" PRIu64, o->fmt == STA_REPORT_TABLE ? width : 0, v);
	}
}

static void put_int(struct out *o, const char *key, int width, bool present, int v)
{
	o->width = width;
	if (!present)
		put_missing(o, key);
	else if (o->fmt == STA_REPORT_JSON)
		tcpav_json_i64(o->json, key, v);
	else {
		sep(o);
		fprintf(o->f, "%*d", o->fmt == STA_REPORT_TABLE ? width : 0, v);
	}
}

/* V scaled by 1/SCALE with DECIMALS; NAN is missing. */
static void put_double(struct out *o, const char *key, int width, double v, double scale, int decimals)
{
	o->width = width;
	if (!isfinite(v))
		put_missing(o, key);
	else if (o->fmt == STA_REPORT_JSON)
		tcpav_json_fixed(o->json, key, v / scale, decimals);
	else {
		sep(o);
		fprintf(o->f, "%*.*f", o->fmt == STA_REPORT_TABLE ? width : 0, decimals, v / scale);
	}
}

static void put_bool(struct out *o, const char *key, bool v)
{
	if (o->fmt == STA_REPORT_JSON) {
		tcpav_json_bool(o->json, key, v);
		return;
	}
	sep(o);
	fputs(v ? "1" : "0", o->f);
}

static void put_mac(struct out *o, const uint8_t mac[6])
{
	char text[18];

	sta_addr_format_mac(mac, text, sizeof(text));
	if (o->fmt == STA_REPORT_JSON) {
		tcpav_json_string(o->json, "mac", text);
		return;
	}
	sep(o);
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
	struct tcpav_json *j = o->json;

	if (!nest) {
		tcpav_json_null(j, key);
		return;
	}
	tcpav_json_object_begin(j, key);
	put_u64(o, "kbps", 0, r->kbps_present, r->kbps);
	tcpav_json_bool(j, "computed", r->computed);
	tcpav_json_string(j, "mode", sta_rate_mode_name(r->mode));
	put_int(o, "mcs", 0, mcs, r->mcs);
	put_int(o, "nss", 0, mcs && r->nss > 0, r->nss);
	put_int(o, "width_mhz", 0, true, r->width_mhz);
	put_int(o, "gi_ns", 0, mcs && sta_rate_gi_ns(r) > 0, (int)sta_rate_gi_ns(r));
	if (he)
		tcpav_json_bool(j, "he_dcm", r->he_dcm);
	else
		tcpav_json_null(j, "he_dcm");
	put_int(o, "he_ru_alloc", 0, he && r->he_ru_present, r->he_ru_alloc);
	tcpav_json_object_end(j);
}

static void station_fields(struct out *o, const struct station_info *s)
{
	put_mac(o, s->mac);
	put_int(o, "signal_dbm", 6, sta_has(s, SI_SIGNAL), s->signal_dbm);
	put_int(o, "signal_avg_dbm", 4, sta_has(s, SI_SIGNAL_AVG), s->signal_avg_dbm);
	if (o->fmt == STA_REPORT_JSON) {
		put_rate_json(o, "down_bitrate", sta_has(s, SI_TX_BITRATE), &s->tx_rate);
		put_rate_json(o, "up_bitrate", sta_has(s, SI_RX_BITRATE), &s->rx_rate);
	} else {
		put_rate_kbps(o, "down_bitrate_kbps", 9, sta_has(s, SI_TX_BITRATE), &s->tx_rate);
		put_rate_kbps(o, "up_bitrate_kbps", 9, sta_has(s, SI_RX_BITRATE), &s->rx_rate);
	}
	put_u64(o, "down_bytes", 12, sta_has(s, SI_TX_BYTES), s->tx_bytes);
	put_u64(o, "up_bytes", 12, sta_has(s, SI_RX_BYTES), s->rx_bytes);
	put_u64(o, "down_packets", 9, sta_has(s, SI_TX_PACKETS), s->tx_packets);
	put_u64(o, "up_packets", 9, sta_has(s, SI_RX_PACKETS), s->rx_packets);
	put_u64(o, "down_retries", 8, sta_has(s, SI_TX_RETRIES), s->tx_retries);
	put_u64(o, "down_failed", 7, sta_has(s, SI_TX_FAILED), s->tx_failed);
	put_u64(o, "down_airtime_us", 12, sta_has(s, SI_TX_DURATION), s->tx_duration_us);
	put_u64(o, "up_airtime_us", 12, sta_has(s, SI_RX_DURATION), s->rx_duration_us);
	put_u64(o, "airtime_weight", 6, sta_has(s, SI_AIRTIME_WEIGHT), s->airtime_weight);
	put_u64(o, "inactive_ms", 9, sta_has(s, SI_INACTIVE_TIME), s->inactive_ms);
	put_u64(o, "connected_s", 8, sta_has(s, SI_CONNECTED_TIME), s->connected_s);
}

/* The start of a JSON line: {"type":TYPE,"time":T,"ifname":IFNAME */
static void json_head(struct tcpav_json *j, const char *type, double t, const char *ifname)
{
	tcpav_json_object_begin(j, NULL);
	tcpav_json_string(j, "type", type);
	tcpav_json_fixed(j, "time", t, 3);
	tcpav_json_string(j, "ifname", ifname);
}

void sta_report_stations(FILE *f, enum sta_report_format fmt, const char *ifname, double t,
			 const struct station_table *tab, bool header)
{
	struct tcpav_json j;

	tcpav_json_init(&j, f);
	switch (fmt) {
	case STA_REPORT_TABLE:
		fprintf(f, "%-17s %6s %4s %9s %9s %12s %12s %9s %9s %8s %7s %12s %12s %6s %9s %8s\n", "MAC",
			"SIGNAL", "AVG", "DOWN_MBPS", "UP_MBPS", "DOWN_BYTES", "UP_BYTES", "DOWN_PKTS", "UP_PKTS",
			"RETRIES", "FAILED", "DOWN_AIR_US", "UP_AIR_US", "WEIGHT", "INACT_MS", "CONN_S");
		break;
	case STA_REPORT_CSV:
		if (header)
			fputs("time,ifname,mac,signal_dbm,signal_avg_dbm,down_bitrate_kbps,up_bitrate_kbps,down_bytes,"
			      "up_bytes,down_packets,up_packets,down_retries,down_failed,down_airtime_us,up_airtime_us,"
			      "airtime_weight,inactive_ms,connected_s\n",
			      f);
		break;
	case STA_REPORT_JSON:
		json_head(&j, "stations", t, ifname);
		tcpav_json_array_begin(&j, "stations");
		break;
	}
	for (size_t i = 0; i < tab->n; i++) {
		struct out o = {.f = f, .fmt = fmt, .first = true, .json = &j};

		if (fmt == STA_REPORT_JSON)
			tcpav_json_object_begin(&j, NULL);
		else if (fmt == STA_REPORT_CSV) {
			fprintf(f, "%.3f,", t);
			tcpav_csv_string(f, ifname);
			fputc(',', f);
		}
		station_fields(&o, &tab->sta[i]);
		if (fmt == STA_REPORT_JSON)
			tcpav_json_object_end(&j);
		else
			fputc('\n', f);
	}
	if (fmt == STA_REPORT_JSON) {
		tcpav_json_array_end(&j);
		tcpav_json_object_end(&j);
		tcpav_json_end_line(&j);
	} else if (fmt == STA_REPORT_TABLE && tab->n == 0) {
		fprintf(f, "(no stations on %s)\n", ifname);
	}
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
		put_double(o, "up_l2_bps", 9, d->rx_bps, 1e6, 2);
		put_double(o, "down_l2_bps", 9, d->tx_bps, 1e6, 2);
		put_double(o, "airtime_share", 7, d->airtime_share, 0.01, 1);
		put_double(o, "down_retry_ratio", 6, d->retry_ratio, 0.01, 1);
	} else {
		put_double(o, "up_l2_bps", 0, d->rx_bps, 1.0, 0);
		put_double(o, "down_l2_bps", 0, d->tx_bps, 1.0, 0);
		put_double(o, "l2_bps", 0, d->l2_bps, 1.0, 0);
		put_double(o, "airtime_us", 0, d->airtime_us, 1.0, 0);
		put_double(o, "airtime_share", 0, d->airtime_share, 1.0, 4);
		put_double(o, "down_retry_ratio", 0, d->retry_ratio, 1.0, 4);
	}
	put_int(o, "signal_dbm", 6, sta_has(s, SI_SIGNAL), s->signal_dbm);
	put_rate_kbps(o, "down_bitrate_kbps", 9, sta_has(s, SI_TX_BITRATE), &s->tx_rate);
	put_rate_kbps(o, "up_bitrate_kbps", 9, sta_has(s, SI_RX_BITRATE), &s->rx_rate);
	put_u64(o, "airtime_weight", 6, sta_has(s, SI_AIRTIME_WEIGHT), s->airtime_weight);
}

static void across_fields(struct out *o, const struct station_interval *iv)
{
	put_double(o, "total_l2_bps", 0, iv->total_l2_bps, 1.0, 0);
	put_u64(o, "active_stations", 0, true, iv->active);
	put_double(o, "mean_l2_bps", 0, iv->mean_l2_bps, 1.0, 0);
	put_double(o, "jain_l2", 0, iv->jain_l2, 1.0, 4);
	put_double(o, "jain_airtime", 0, iv->jain_airtime, 1.0, 4);
}

void sta_report_interval(FILE *f, enum sta_report_format fmt, const char *ifname, double t,
			 const struct station_interval *iv, bool header)
{
	struct tcpav_json j;
	struct out o = {.f = f, .fmt = fmt, .first = true, .json = &j};

	tcpav_json_init(&j, f);
	switch (fmt) {
	case STA_REPORT_TABLE:
		fprintf(f, "%-17s %9s %9s %7s %6s %6s %9s %9s %6s\n", "MAC", "UP_MBPS", "DOWN_MBPS", "AIR_%",
			"RETRY%", "SIGNAL", "DOWN_RATE", "UP_RATE", "WEIGHT");
		for (size_t i = 0; i < iv->n; i++) {
			o.first = true;
			delta_fields(&o, &iv->sta[i]);
			fputs(iv->sta[i].has_baseline ? "\n" : "  (new)\n", f);
		}
		fprintf(f, "%zu stations, %zu active, %zu departed; link-layer total ", iv->n, iv->active,
			iv->departed);
		o.first = true;
		put_double(&o, "total_l2_bps", 1, iv->total_l2_bps, 1e6, 2);
		fputs(" Mbit/s, mean ", f);
		o.first = true;
		put_double(&o, "mean_l2_bps", 1, iv->mean_l2_bps, 1e6, 2);
		fputs(" Mbit/s per active station, Jain link-layer ", f);
		o.first = true;
		put_double(&o, "jain_l2", 1, iv->jain_l2, 1.0, 3);
		fputs(" airtime ", f);
		o.first = true;
		put_double(&o, "jain_airtime", 1, iv->jain_airtime, 1.0, 3);
		fputs("\n\n", f);
		break;
	case STA_REPORT_CSV:
		if (header)
			fputs("time,ifname,elapsed_s,mac,new,reset,active,up_l2_bps,down_l2_bps,l2_bps,airtime_us,"
			      "airtime_share,down_retry_ratio,signal_dbm,down_bitrate_kbps,up_bitrate_kbps,airtime_weight,"
			      "total_l2_bps,active_stations,mean_l2_bps,jain_l2,jain_airtime\n",
			      f);
		for (size_t i = 0; i < iv->n; i++) {
			fprintf(f, "%.3f,", t);
			tcpav_csv_string(f, ifname);
			fprintf(f, ",%.3f,", iv->elapsed_s);
			o.first = true;
			delta_fields(&o, &iv->sta[i]);
			o.first = false;
			across_fields(&o, iv);
			fputc('\n', f);
		}
		break;
	case STA_REPORT_JSON:
		json_head(&j, "interval", t, ifname);
		tcpav_json_fixed(&j, "elapsed_s", iv->elapsed_s, 3);
		tcpav_json_array_begin(&j, "stations");
		for (size_t i = 0; i < iv->n; i++) {
			tcpav_json_object_begin(&j, NULL);
			delta_fields(&o, &iv->sta[i]);
			tcpav_json_object_end(&j);
		}
		tcpav_json_array_end(&j);
		tcpav_json_object_begin(&j, "fairness");
		across_fields(&o, iv);
		tcpav_json_u64(&j, "departed", iv->departed);
		tcpav_json_object_end(&j);
		tcpav_json_object_end(&j);
		tcpav_json_end_line(&j);
		break;
	}
}
