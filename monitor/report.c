// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - JSON lines and CSV output of the analysis (see report.h).
 *
 * JSON goes through the tools' one writer (tcpav/json.h): it streams, so
 * an interval of thousands of flows allocates nothing; NaN becomes null.
 * The names are the README's glossary: goodput is unique TCP payload,
 * capacity_bps is EB, avr and nrt are ratios (1 = 100 %).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "tcpav/csv.h"
#include "tcpav/json.h"
#include "tcpav/metrics.h"

/* A time stamp or a duration in seconds: microseconds, as capture files
 * keep them (a double of an epoch time resolves about 0.2 us anyway). */
static void json_time(struct tcpav_json *j, const char *key, double seconds)
{
	tcpav_json_fixed(j, key, seconds, 6);
}

/* A duration in milliseconds, to the microsecond. */
static void json_ms(struct tcpav_json *j, const char *key, double seconds)
{
	tcpav_json_fixed(j, key, seconds * 1e3, 3);
}

/* bytes over seconds as bit/s; NAN without a duration */
static double rate_bps(uint64_t bytes, double seconds)
{
	return seconds > 0.0 ? (double)bytes * 8.0 / seconds : NAN;
}

static double ratio(uint64_t num, uint64_t den)
{
	return den ? (double)num / (double)den : NAN;
}

/* ---- flows ---- */

static void json_samples_ms(struct tcpav_json *j, const char *key, const struct sample_stats *s, bool with_p50)
{
	tcpav_json_object_begin(j, key);
	tcpav_json_u64(j, "count", s->count);
	if (!with_p50)
		json_ms(j, "min", s->count ? s->min : NAN);
	json_ms(j, "mean", sample_stats_mean(s));
	if (with_p50)
		json_ms(j, "p50", sample_stats_quantile(s, 0.50));
	json_ms(j, "p99", sample_stats_quantile(s, 0.99));
	tcpav_json_object_end(j);
}

static void json_flow_direction(struct tcpav_json *j, const char *key, const struct flow *fl, enum flow_dir d)
{
	const struct flow_dir_stats *st = &fl->dir[d];
	double duration = flow_duration(fl);

	tcpav_json_object_begin(j, key);
	tcpav_json_u64(j, "packets", st->packets);
	tcpav_json_u64(j, "l2_bytes", st->l2_bytes);
	tcpav_json_u64(j, "payload_bytes", st->payload_bytes);
	tcpav_json_u64(j, "goodput_bytes", st->goodput_bytes);
	tcpav_json_number(j, "payload_bps", rate_bps(st->payload_bytes, duration));
	tcpav_json_number(j, "goodput_bps", rate_bps(st->goodput_bytes, duration));
	if (fl->tcp) {
		const struct tcp_dir_samples *sm = &fl->tcp->samples[d];

		tcpav_json_u64(j, "retransmissions", st->retransmissions);
		tcpav_json_u64(j, "fast_retransmissions", st->fast_retransmissions);
		tcpav_json_u64(j, "spurious_retransmissions", st->spurious_retransmissions);
		tcpav_json_u64(j, "out_of_order", st->out_of_order);
		tcpav_json_u64(j, "lost_segments", st->lost_segments);
		tcpav_json_u64(j, "acked_unseen", st->acked_unseen);
		tcpav_json_u64(j, "dup_acks", st->dup_acks);
		tcpav_json_u64(j, "pure_acks", st->pure_acks);
		tcpav_json_u64(j, "zero_windows", st->zero_windows);
		tcpav_json_u64(j, "window_updates", st->window_updates);
		tcpav_json_u64(j, "keep_alives", st->keep_alives);
		tcpav_json_u64(j, "sack_frames", st->sack_frames);
		tcpav_json_u64(j, "sack_blocks", st->sack_blocks);
		tcpav_json_u64(j, "dsack_blocks", st->dsack_blocks);
		tcpav_json_u64(j, "acks_advancing", st->acks_advancing);
		tcpav_json_u64(j, "bytes_acked", st->bytes_acked);
		tcpav_json_number(j, "bytes_per_ack", ratio(st->bytes_acked, st->acks_advancing));
		json_samples_ms(j, "rtt_ms", &sm->ack_rtt, false);
		json_samples_ms(j, "ts_rtt_ms", &sm->ts_rtt, false);
		json_samples_ms(j, "ack_interarrival_ms", &sm->ack_iat, true);
		tcpav_json_number(j, "ack_burstiness", ratio(st->acks_in_trains, sm->ack_iat.count));
		tcpav_json_u64(j, "ack_trains", st->ack_trains);
		tcpav_json_u64(j, "ack_train_max", st->ack_train_max);
	}
	tcpav_json_object_end(j);
}

static void json_flow_identity(struct tcpav_json *j, const struct flow *fl)
{
	char a[64], b[64];

	flow_endpoint_format(fl, FLOW_A_TO_B, a, sizeof(a));
	flow_endpoint_format(fl, FLOW_B_TO_A, b, sizeof(b));
	tcpav_json_u64(j, "id", fl->id);
	tcpav_json_string(j, "proto", fl->tcp ? "tcp" : "udp");
	tcpav_json_string(j, "src", a);
	tcpav_json_string(j, "dst", b);
}

/* The flow's goodput is its busier direction's (a flow with a target
 * carries the target traffic one way and ACKs the other). */
static void json_flow_target(struct tcpav_json *j, const struct report_view *v, const struct flow *fl, double goodput_bps)
{
	double target;

	if (fl->target < 0)
		return;
	target = (double)v->targets[fl->target].rate_bps;
	tcpav_json_number(j, "target_bps", target);
	tcpav_json_number(j, "avr", tcpav_avr(goodput_bps, target));
	tcpav_json_number(j, "nrt", tcpav_nrt(target, v->capacity_bps));
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static void json_flow(struct tcpav_json *j, const struct report_view *v, const struct flow *fl)
{
	double goodput_bps = rate_bps(max_u64(fl->dir[0].goodput_bytes, fl->dir[1].goodput_bytes), flow_duration(fl));

	tcpav_json_object_begin(j, NULL);
	json_flow_identity(j, fl);
	json_time(j, "first_ts", fl->first_ts);
	json_time(j, "last_ts", fl->last_ts);
	json_time(j, "duration_s", flow_duration(fl));
	if (fl->tcp)
		tcpav_json_u64(j, "connections", fl->connections);
	json_flow_direction(j, "a_to_b", fl, FLOW_A_TO_B);
	json_flow_direction(j, "b_to_a", fl, FLOW_B_TO_A);
	tcpav_json_number(j, "goodput_bps", goodput_bps);
	json_flow_target(j, v, fl, goodput_bps);
	tcpav_json_object_end(j);
}

static void json_flow_interval_direction(struct tcpav_json *j, const char *key, const struct flow *fl, enum flow_dir d,
					 double seconds)
{
	const struct flow_interval *iv = &fl->interval;

	tcpav_json_object_begin(j, key);
	tcpav_json_u64(j, "packets", iv->packets[d]);
	tcpav_json_u64(j, "payload_bytes", iv->payload_bytes[d]);
	tcpav_json_u64(j, "goodput_bytes", iv->goodput_bytes[d]);
	tcpav_json_number(j, "goodput_bps", rate_bps(iv->goodput_bytes[d], seconds));
	if (fl->tcp) {
		tcpav_json_u64(j, "retransmissions", iv->retransmissions[d]);
		tcpav_json_u64(j, "dup_acks", iv->dup_acks[d]);
	}
	tcpav_json_object_end(j);
}

static void json_flow_interval(struct tcpav_json *j, const struct report_view *v, const struct flow *fl)
{
	double seconds = v->t_end - v->t_start;
	double goodput_bps = rate_bps(max_u64(fl->interval.goodput_bytes[0], fl->interval.goodput_bytes[1]), seconds);

	tcpav_json_object_begin(j, NULL);
	json_flow_identity(j, fl);
	json_flow_interval_direction(j, "a_to_b", fl, FLOW_A_TO_B, seconds);
	json_flow_interval_direction(j, "b_to_a", fl, FLOW_B_TO_A, seconds);
	tcpav_json_number(j, "goodput_bps", goodput_bps);
	json_flow_target(j, v, fl, goodput_bps);
	tcpav_json_object_end(j);
}

/* ---- stations ---- */

static void json_station_identity(struct tcpav_json *j, const struct station *s)
{
	char name[64];

	station_format(s, name, sizeof(name));
	tcpav_json_u64(j, "id", s->id);
	tcpav_json_string(j, s->key.kind == STATION_BY_MAC ? "mac" : "addr", name);
	tcpav_json_string(j, "role", s->is_ap ? "ap" : "station");
}

static void json_rates(struct tcpav_json *j, const char *key, const struct station_rates *r)
{
	tcpav_json_array_begin(j, key);
	for (unsigned i = 0; i < STATION_RATE_SLOTS && r->slot[i].frames; i++) {
		tcpav_json_object_begin(j, NULL);
		tcpav_json_u64(j, "rate_kbps", r->slot[i].rate_kbps);
		tcpav_json_u64(j, "frames", r->slot[i].frames);
		tcpav_json_object_end(j);
	}
	if (r->other_frames) {
		tcpav_json_object_begin(j, NULL);
		tcpav_json_string(j, "rate_kbps", NULL);
		tcpav_json_u64(j, "frames", r->other_frames);
		tcpav_json_object_end(j);
	}
	tcpav_json_array_end(j);
}

static void json_station(struct tcpav_json *j, const struct report_view *v, const struct station *s)
{
	double seconds = v->last_ts - v->first_ts;

	tcpav_json_object_begin(j, NULL);
	json_station_identity(j, s);
	json_time(j, "first_ts", s->first_ts);
	json_time(j, "last_ts", s->last_ts);
	tcpav_json_u64(j, "tx_frames", s->tx_frames);
	tcpav_json_u64(j, "rx_frames", s->rx_frames);
	tcpav_json_u64(j, "tx_bytes", s->tx_bytes);
	tcpav_json_u64(j, "rx_bytes", s->rx_bytes);
	tcpav_json_u64(j, "tx_data_frames", s->tx_data_frames);
	tcpav_json_u64(j, "rx_data_frames", s->rx_data_frames);
	tcpav_json_u64(j, "tx_data_bytes", s->tx_data_bytes);
	tcpav_json_u64(j, "rx_data_bytes", s->rx_data_bytes);
	tcpav_json_u64(j, "retries", s->retries);
	tcpav_json_u64(j, "tx_data_retries", s->tx_data_retries);
	tcpav_json_u64(j, "rx_data_retries", s->rx_data_retries);
	tcpav_json_u64(j, "data_retries", s->tx_data_retries + s->rx_data_retries);
	tcpav_json_number(j, "retry_ratio", station_retry_ratio(s));
	tcpav_json_u64(j, "airtime_us", s->tx_airtime_us + s->rx_airtime_us);
	tcpav_json_u64(j, "tx_airtime_us", s->tx_airtime_us);
	tcpav_json_u64(j, "rx_airtime_us", s->rx_airtime_us);
	tcpav_json_u64(j, "tx_data_airtime_us", s->tx_data_airtime_us);
	tcpav_json_u64(j, "rx_data_airtime_us", s->rx_data_airtime_us);
	tcpav_json_number(j, "signal_dbm", s->signal_frames ? s->signal_dbm_sum / (double)s->signal_frames : NAN);
	tcpav_json_u64(j, "tx_payload_bytes", s->tx_payload_bytes);
	tcpav_json_u64(j, "rx_payload_bytes", s->rx_payload_bytes);
	tcpav_json_u64(j, "tx_goodput_bytes", s->tx_goodput_bytes);
	tcpav_json_u64(j, "rx_goodput_bytes", s->rx_goodput_bytes);
	tcpav_json_number(j, "tx_goodput_bps", rate_bps(s->tx_goodput_bytes, seconds));
	tcpav_json_number(j, "rx_goodput_bps", rate_bps(s->rx_goodput_bytes, seconds));
	tcpav_json_u64(j, "uplink_tcp_acks", s->uplink_tcp_acks);
	tcpav_json_u64(j, "mac_payload_frames", s->mac_payload_frames);
	tcpav_json_object_begin(j, "rate_histogram");
	json_rates(j, "tx", &s->tx_rates);
	json_rates(j, "rx", &s->rx_rates);
	tcpav_json_object_end(j);
	tcpav_json_object_end(j);
}

static void json_station_interval(struct tcpav_json *j, const struct report_view *v, const struct station *s)
{
	const struct station_interval *iv = &s->interval;
	double seconds = v->t_end - v->t_start;

	tcpav_json_object_begin(j, NULL);
	json_station_identity(j, s);
	tcpav_json_u64(j, "frames", iv->frames);
	tcpav_json_u64(j, "tx_payload_bytes", iv->tx_payload_bytes);
	tcpav_json_u64(j, "rx_payload_bytes", iv->rx_payload_bytes);
	tcpav_json_number(j, "tx_goodput_bps", rate_bps(iv->tx_goodput_bytes, seconds));
	tcpav_json_number(j, "rx_goodput_bps", rate_bps(iv->rx_goodput_bytes, seconds));
	tcpav_json_u64(j, "airtime_us", iv->airtime_us);
	tcpav_json_u64(j, "data_frames", iv->data_frames);
	tcpav_json_u64(j, "data_retries", iv->data_retries);
	tcpav_json_object_end(j);
}

/* ---- records ---- */

static void json_fairness(struct tcpav_json *j, const struct report_fairness *f)
{
	tcpav_json_object_begin(j, "fairness");
	tcpav_json_number(j, "jain_goodput", f->jain_goodput);
	tcpav_json_number(j, "jain_airtime", f->jain_airtime);
	tcpav_json_number(j, "fair_share_bps", f->fair_share_bps);
	tcpav_json_number(j, "fair_share_flow_bps", f->fair_share_flow_bps);
	tcpav_json_u64(j, "active_stations", f->active_stations);
	tcpav_json_u64(j, "active_flows", f->active_flows);
	tcpav_json_object_end(j);
}

static void json_capacity(struct tcpav_json *j, const struct report_view *v)
{
	tcpav_json_number(j, "capacity_bps", v->capacity_bps);
	tcpav_json_string(j, "capacity_source", v->capacity_source);
}

static void json_capture(struct tcpav_json *j, const struct report_view *v)
{
	const struct capture_info *ci = v->capture;

	tcpav_json_object_begin(j, "capture");
	if (ci) {
		tcpav_json_string(j, "link_type", ci->link_name);
		tcpav_json_u64(j, "dlt", (uint64_t)(ci->dlt < 0 ? 0 : ci->dlt));
		tcpav_json_u64(j, "packets", ci->packets);
		tcpav_json_u64(j, "bytes", ci->bytes);
		json_time(j, "first_ts", ci->packets ? ci->first_ts : NAN);
		json_time(j, "last_ts", ci->packets ? ci->last_ts : NAN);
		json_time(j, "duration_s", ci->packets ? ci->last_ts - ci->first_ts : NAN);
		if (ci->have_drops) {
			tcpav_json_u64(j, "pcap_received", ci->pcap_received);
			tcpav_json_u64(j, "pcap_dropped", ci->pcap_dropped);
			tcpav_json_u64(j, "pcap_if_dropped", ci->pcap_if_dropped);
		}
	} else {
		tcpav_json_string(j, "link_type", NULL);
		tcpav_json_u64(j, "packets", v->frames);
		tcpav_json_u64(j, "bytes", v->bytes);
		json_time(j, "first_ts", v->first_ts);
		json_time(j, "last_ts", v->last_ts);
		json_time(j, "duration_s", v->last_ts - v->first_ts);
	}
	tcpav_json_object_begin(j, "malformed");
	for (int r = MAL_NONE + 1; r < MAL_REASONS; r++)
		tcpav_json_u64(j, malformed_reason_name((enum malformed_reason)r), ci ? ci->malformed[r] : 0);
	tcpav_json_object_end(j);
	tcpav_json_object_end(j);
}

void report_summary_json(FILE *out, const struct report_view *v)
{
	struct tcpav_json j;

	tcpav_json_init(&j, out);

	tcpav_json_object_begin(&j, NULL);
	tcpav_json_string(&j, "type", "summary");
	json_capture(&j, v);
	tcpav_json_object_begin(&j, "analysis");
	tcpav_json_u64(&j, "frames", v->frames);
	tcpav_json_u64(&j, "bytes", v->bytes);
	tcpav_json_u64(&j, "ip_packets", v->ip_packets);
	tcpav_json_u64(&j, "tcp_packets", v->tcp_packets);
	tcpav_json_u64(&j, "udp_packets", v->udp_packets);
	tcpav_json_u64(&j, "other_packets", v->other_packets);
	tcpav_json_object_end(&j);
	tcpav_json_object_begin(&j, "duplicates_removed");
	tcpav_json_u64(&j, "link_copies", v->link_copies_removed);
	tcpav_json_u64(&j, "wlan_retries", v->wlan_retries_removed);
	tcpav_json_object_end(&j);
	tcpav_json_object_begin(&j, "evictions");
	tcpav_json_u64(&j, "flows", v->flow_evictions);
	tcpav_json_u64(&j, "stations", v->station_evictions);
	tcpav_json_object_end(&j);
	json_capacity(&j, v);
	json_fairness(&j, &v->fairness);
	tcpav_json_array_begin(&j, "flows");
	for (size_t i = 0; i < v->n_flows; i++)
		json_flow(&j, v, v->flows[i]);
	tcpav_json_array_end(&j);
	tcpav_json_array_begin(&j, "stations");
	for (size_t i = 0; i < v->n_stations; i++)
		json_station(&j, v, v->stations[i]);
	tcpav_json_array_end(&j);
	tcpav_json_object_end(&j);
	tcpav_json_end_line(&j);
}

void report_interval_json(FILE *out, const struct report_view *v)
{
	struct tcpav_json j;

	tcpav_json_init(&j, out);

	tcpav_json_object_begin(&j, NULL);
	tcpav_json_string(&j, "type", "interval");
	json_time(&j, "t_start", v->t_start);
	json_time(&j, "t_end", v->t_end);
	json_capacity(&j, v);
	json_fairness(&j, &v->fairness);
	tcpav_json_array_begin(&j, "flows");
	for (size_t i = 0; i < v->n_flows; i++)
		json_flow_interval(&j, v, v->flows[i]);
	tcpav_json_array_end(&j);
	tcpav_json_array_begin(&j, "stations");
	for (size_t i = 0; i < v->n_stations; i++)
		json_station_interval(&j, v, v->stations[i]);
	tcpav_json_array_end(&j);
	tcpav_json_object_end(&j);
	tcpav_json_end_line(&j);
}

/* ---- CSV ---- */

/* One row per active flow, per active station and one "fairness" row per
 * interval; cells that do not apply to a row's kind are empty. */
static const char csv_header[] =
	"interval_start,interval_end,kind,id,name,peer,proto,"
	"goodput_a_to_b_bps,goodput_b_to_a_bps,retransmissions,dup_acks,target_bps,avr,nrt,"
	"tx_goodput_bps,rx_goodput_bps,airtime_us,data_retries,"
	"jain_goodput,jain_airtime,fair_share_bps,active_stations,active_flows,capacity_bps\n";

static void csv_number(FILE *out, double value)
{
	fputc(',', out);
	if (isfinite(value))
		fprintf(out, "%.10g", value);
}

static void csv_empty(FILE *out, int cells)
{
	while (cells-- > 0)
		fputc(',', out);
}

void report_interval_csv(FILE *out, const struct report_view *v, bool header)
{
	double seconds = v->t_end - v->t_start;

	if (header)
		fputs(csv_header, out);
	for (size_t i = 0; i < v->n_flows; i++) {
		const struct flow *fl = v->flows[i];
		const struct flow_interval *iv = &fl->interval;
		double ab = rate_bps(iv->goodput_bytes[0], seconds), ba = rate_bps(iv->goodput_bytes[1], seconds);
		char a[64], b[64];

		flow_endpoint_format(fl, FLOW_A_TO_B, a, sizeof(a));
		flow_endpoint_format(fl, FLOW_B_TO_A, b, sizeof(b));
		fprintf(out, "%.6f,%.6f,flow,%" PRIu64 ",", v->t_start, v->t_end, fl->id);
		tcpav_csv_string(out, a);
		fputc(',', out);
		tcpav_csv_string(out, b);
		fprintf(out, ",%s", fl->tcp ? "tcp" : "udp");
		csv_number(out, ab);
		csv_number(out, ba);
		fprintf(out, ",%" PRIu64 ",%" PRIu64, iv->retransmissions[0] + iv->retransmissions[1],
			iv->dup_acks[0] + iv->dup_acks[1]);
		if (fl->target >= 0) {
			double target = (double)v->targets[fl->target].rate_bps;

			csv_number(out, target);
			csv_number(out, tcpav_avr(ab > ba ? ab : ba, target));
			csv_number(out, tcpav_nrt(target, v->capacity_bps));
		} else {
			csv_empty(out, 3);
		}
		csv_empty(out, 9);
		csv_number(out, v->capacity_bps);
		fputc('\n', out);
	}
	for (size_t i = 0; i < v->n_stations; i++) {
		const struct station *s = v->stations[i];
		char name[64];

		station_format(s, name, sizeof(name));
		fprintf(out, "%.6f,%.6f,%s,%" PRIu64 ",", v->t_start, v->t_end, s->is_ap ? "ap" : "station", s->id);
		tcpav_csv_string(out, name);
		fputs(",,", out);
		csv_empty(out, 7);
		csv_number(out, rate_bps(s->interval.tx_goodput_bytes, seconds));
		csv_number(out, rate_bps(s->interval.rx_goodput_bytes, seconds));
		fprintf(out, ",%" PRIu64 ",%" PRIu64, s->interval.airtime_us, s->interval.data_retries);
		csv_empty(out, 5);
		csv_number(out, v->capacity_bps);
		fputc('\n', out);
	}
	fprintf(out, "%.6f,%.6f,fairness,,,,", v->t_start, v->t_end);
	csv_empty(out, 11);
	csv_number(out, v->fairness.jain_goodput);
	csv_number(out, v->fairness.jain_airtime);
	csv_number(out, v->fairness.fair_share_bps);
	fprintf(out, ",%zu,%zu", v->fairness.active_stations, v->fairness.active_flows);
	csv_number(out, v->capacity_bps);
	fputc('\n', out);
	fflush(out);
}
