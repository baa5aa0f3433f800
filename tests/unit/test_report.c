// SPDX-License-Identifier: GPL-2.0
/*
 * test_report.c - avmon's JSON lines and CSV as a reader sees them: every
 * record parses (jq), and the names mean what the README's glossary says:
 * goodput_bps is unique payload, capacity_bps is EB, avr and nrt are
 * ratios (1 = 100 %), no percent or apstat name leaks in; the table's
 * AIRTIME_USE% is airtime over elapsed time. Also the cost of
 * writing an interval of thousands of flows (printed, not asserted).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis.h"
#include "packet.h"
#include "report.h"
#include "station.h"
#include "check.h"
#include "frame_builder.h" /* after packet.h: raw_frame() */

static const uint8_t addr_client[4] = {10, 0, 0, 1}, addr_server[4] = {10, 0, 0, 2};

/* A TCP segment of flow K (client port 40000 + K) from the server
 * (to_client) or from the client. */
static struct ip_packet segment(unsigned k, int to_client, uint32_t seq, uint32_t ack, uint8_t flags, uint32_t len)
{
	struct ip_packet p;

	memset(&p, 0, sizeof(p));
	p.family = 4;
	p.proto = 6;
	p.is_tcp = true;
	memcpy(to_client ? p.src : p.dst, addr_server, 4);
	memcpy(to_client ? p.dst : p.src, addr_client, 4);
	p.sport = (uint16_t)(to_client ? 80 : 40000 + k);
	p.dport = (uint16_t)(to_client ? 40000 + k : 80);
	p.seq = seq;
	p.ack = ack;
	p.tcp_flags = flags;
	p.window = 500;
	p.wscale = -1;
	p.payload_len = len;
	p.ip_len = 40u + len;
	return p;
}

/* FLOWS downloads of 1000 bytes a millisecond each (8 Mbit/s), SEGMENTS
 * segments long, from t = 0; interval records to OUT as they fall due. */
static void downloads(struct analysis *a, unsigned flows, unsigned segments, FILE *out, bool csv)
{
	for (unsigned i = 0; i <= segments; i++) {
		for (unsigned k = 0; k < flows; k++) {
			struct ip_packet p = i ? segment(k, 1, 1 + 1000u * (i - 1), 2, 0x10, 1000)
					       : segment(k, 1, 0, 1, 0x12, 0);
			struct frame f = raw_frame(0.001 * i, i ? 1040 : 60);

			while (out && f.ts >= analysis_interval_end(a)) {
				if (csv)
					analysis_interval_csv(a, analysis_interval_end(a), out);
				else
					analysis_interval_json(a, analysis_interval_end(a), out);
			}
			analysis_frame(a, &f, &p, 1);
		}
	}
}

static bool have_jq = true;

static void check_jq(const char *text, const char *filter, const char *what)
{
	int ok = jq_true(text, filter);

	if (ok < 0) {
		have_jq = false;
		printf("skip %d - jq not installed: %s\n", ++check_count, what);
		return;
	}
	CHECK(ok == 1, "%s", what);
}

static struct analysis *target_analysis(double interval_s)
{
	static struct analysis_target target;
	struct analysis_config cfg = {.capacity_bps = 25e6, .targets = &target, .n_targets = 1,
				      .interval_s = interval_s};
	char err[200];

	if (analysis_target_parse("10.0.0.2:80=8M", &target, err, sizeof(err)) != 0)
		return NULL;
	return analysis_new(&cfg);
}

/* keys that are someone else's, or percent: none may appear */
static const char foreign_names[] =
	"[.. | objects | keys[] | select(test(\"^(eb_bps|avr_pct|nrt_pct|delivered_bps|l2_bps|total_l2_bps|"
	"mean_l2_bps|jain_l2|rate_bps)$\"))] | length == 0";

static void test_json_names(void)
{
	struct analysis *a = target_analysis(0.5);
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	CHECK(a != NULL, "analysis with an 8M target on a 25M capacity");
	if (!a)
		return;
	out = open_memstream(&text, &len);
	if (!out)
		abort();
	downloads(a, 1, 1000, out, false);
	analysis_summary_json(a, NULL, out);
	fclose(out);
	analysis_free(a);

	check_jq(text, "length >= 2 and .[-1].type == \"summary\" and (.[:-1] | all(.type == \"interval\"))",
		 "every line parses: intervals, then the summary");
	check_jq(text, ".[-1].flows[0] | .goodput_bps == 8000000 and .target_bps == 8000000 and .avr == 1 and .nrt == 0.32",
		 "summary flow: goodput_bps 8 Mbit/s, avr 1 and nrt 0.32 are ratios, not percent");
	check_jq(text, "[.[:-1][] | .flows[] | select(.target_bps) | .avr] | length > 0 and all(. > 0.9 and . < 1.1)",
		 "interval flows: avr near 1 (a ratio)");
	check_jq(text, "all(.capacity_bps == 25000000 and .capacity_source == \"given\")",
		 "capacity_bps is EB in every record");
	check_jq(text, ".[-1].fairness | has(\"fair_share_bps\") and has(\"jain_goodput\") and has(\"active_flows\")",
		 "fairness: fair_share_bps (EB / active), jain_goodput, active_flows");
	check_jq(text, ".[-1].flows[0] | [.a_to_b, .b_to_a] | max_by(.payload_bytes) | .goodput_bytes == 1000000 and "
		       ".payload_bytes == 1000000 and .goodput_bps == 8000000",
		 "data direction: goodput_bytes (unique payload), payload_bytes, goodput_bps");
	check_jq(text, foreign_names, "no EB sum, percent, delivered, link-layer or rule names in avmon's JSON");
	free(text);
}

static void test_csv_names(void)
{
	struct analysis *a = target_analysis(0.5);
	char *text = NULL, *header_end;
	size_t len = 0;
	FILE *out;

	if (!a)
		return;
	out = open_memstream(&text, &len);
	if (!out)
		abort();
	downloads(a, 1, 1000, out, true);
	fclose(out);
	analysis_free(a);
	header_end = strchr(text, '\n');
	CHECK(header_end && strstr(text, ",target_bps,avr,nrt,") && !strstr(text, "_pct"),
	      "CSV header: target_bps,avr,nrt (ratios, as in JSON), no _pct column");
	/* the flow row's target, AVR and NRT cells */
	CHECK(header_end && strstr(header_end, ",8000000,1,0.32,"), "CSV flow row: 8000000,1,0.32");
	free(text);
}

/* The station table's AIRTIME_USE% is the station's airtime over the
 * elapsed time (200 + 50 ms of 1 s: 25.0), a name apart from apstat's
 * AIR_% (airtime_share, a share of all stations' airtime, which for a
 * lone station would be 100). */
static void test_table_airtime_use(void)
{
	struct station *st = calloc(1, sizeof(*st));
	const struct station *list[1] = {st};
	struct report_view v = {.capacity_bps = NAN, .stations = list, .n_stations = 1, .first_ts = 0.0,
				.last_ts = 1.0, .t_start = 0.0, .t_end = 1.0};
	char *text = NULL, *head, *row, *col;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (!st || !out)
		abort();
	st->tx_frames = st->rx_frames = 10;
	st->tx_airtime_us = 200000;
	st->rx_airtime_us = 50000;
	report_table(out, &v, true, false);
	fclose(out);
	head = strstr(text, "STATION");
	row = head ? strchr(head, '\n') : NULL;
	printf("# %.*s\n", row ? (int)(row - head) : 0, head ? head : "");
	col = head ? strstr(head, "AIRTIME_USE%") : NULL;
	CHECK(col && row && col < row && !strstr(text, "AIRTIME%"),
	      "station table: AIRTIME_USE%% in the header, no bare AIRTIME%%");
	CHECK(row && strstr(row, " 25.0 "), "station table: 250 ms of airtime in 1 s is AIRTIME_USE%% 25.0");
	free(text);
	free(st);
}

/* What writing one interval of many flows costs (avmon writes one a
 * second); printed so a change of writer shows in the log. */
static void time_many_flows(void)
{
	const unsigned flows = 5000;
	struct analysis_config cfg = {.capacity_bps = 25e6, .interval_s = 1.0, .max_flows = 2 * flows};
	struct analysis *a = analysis_new(&cfg);
	struct timespec t0, t1;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;

	if (!a) {
		CHECK(0, "analysis for the timing");
		goto out;
	}
	downloads(a, flows, 3, NULL, false);
	mem = open_memstream(&text, &len);
	if (!mem)
		abort();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	analysis_interval_json(a, 0.5, mem);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fclose(mem);
	printf("# one interval record of %u flows: %zu bytes written in %.1f ms\n", flows, len,
	       (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	if (have_jq)
		check_jq(text, ".[0].flows | length == 5000", "an interval of 5000 flows parses, every flow in it");
	else
		printf("skip %d - jq not installed: 5000-flow interval not parsed\n", ++check_count);
out:
	free(text);
	analysis_free(a);
}

int main(void)
{
	test_json_names();
	test_csv_names();
	test_table_airtime_use();
	time_many_flows();
	return check_done();
}
