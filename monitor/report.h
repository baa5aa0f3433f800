/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report.h - avmon's output formats: the summary and interval records as
 * JSON (one object per line), intervals as CSV, and both as a table. analysis.c fills a
 * struct report_view with the tables (sorted by first appearance) and the
 * aggregate metrics; report.c writes it, applying metrics.h per flow (AVR,
 * NRT) and never keeping state of its own.
 *
 * Numbers are JSON numbers; undefined ones (NaN, no samples) are null.
 * Rates are bit/s; AVR and NRT are ratios (metrics.h; the table shows them
 * in percent); times are seconds,
 * RTTs and inter-arrival times milliseconds.
 */
#ifndef AVMON_REPORT_H
#define AVMON_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis.h"
#include "flow.h"
#include "packet.h"
#include "station.h"

struct report_fairness {
	double jain_goodput;          /* over active stations (APs left out) */
	double jain_airtime;          /* over stations with airtime that sent or received
				       * payload or 802.11 data frames with a body */
	double fair_share_bps;        /* EB / active stations */
	double fair_share_flow_bps;   /* EB / active flows */
	size_t active_stations, active_flows;
};

struct report_view {
	double capacity_bps;          /* EB, NAN when unknown */
	const char *capacity_source;  /* "given" or "estimated" */
	const struct analysis_target *targets;
	const struct flow **flows;
	size_t n_flows;
	const struct station **stations;
	size_t n_stations;
	struct report_fairness fairness;
	/* summary */
	const struct capture_info *capture; /* may be NULL */
	double first_ts, last_ts;     /* of the frames analysed (NAN before any) */
	uint64_t frames, bytes;
	uint64_t ip_packets, tcp_packets, udp_packets, other_packets;
	uint64_t flow_evictions, station_evictions;
	uint64_t link_copies_removed, wlan_retries_removed;
	/* interval */
	double t_start, t_end;
};

void report_summary_json(FILE *out, const struct report_view *v);
void report_interval_json(FILE *out, const struct report_view *v);
void report_interval_csv(FILE *out, const struct report_view *v, bool header);
/* table.c: the top-like screen, for an interval or (whole_run) the run;
 * clear redraws the terminal first */
void report_table(FILE *out, const struct report_view *v, bool whole_run, bool clear);

#endif /* AVMON_REPORT_H */
