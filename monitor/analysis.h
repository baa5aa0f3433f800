/* SPDX-License-Identifier: GPL-2.0 */
/*
 * analysis.h - what avmon makes of the decoded frames (docs/design.md §2, §4):
 * flow and station tables, targets (AVR, NRT), capacity (EB), fair share
 * and Jain's index, for the whole run and per interval.
 *
 *   struct analysis *a = analysis_new(&cfg);
 *   for each captured frame f with its decoded IP packets:
 *       while (f->ts >= analysis_interval_end(a))       (only with interval_s > 0)
 *           analysis_interval_json(a, analysis_interval_end(a), out);
 *       analysis_frame(a, f, pkts, n_pkts);
 *   analysis_summary_json(a, &capture_info, out);
 *   analysis_free(a);
 *
 * Before the TCP analysis, copies are removed (counted in the summary's
 * "duplicates_removed"):
 *  - 802.11 MAC retries: a data frame with the retry bit whose (TA, seq,
 *    frag) was among the last 64 data frames from that TA is counted for
 *    the station (frames, bytes, airtime, retries) but its packets are not
 *    analysed again;
 *  - capture copies on Linux cooked captures (DLT 113 SLL, 276 SLL2, as
 *    "-i any" writes them): an IP packet identical to one seen less than
 *    1 ms earlier - same addresses, IP length, IPv4 identification and
 *    fragment field, and same transport header and payload bytes; the TTL
 *    or hop limit, TOS/traffic class and IPv4 checksum may differ, as they
 *    do between the incoming and outgoing copy of a forwarded packet - is
 *    dropped entirely. The first copy counts.
 */
#ifndef AVMON_ANALYSIS_H
#define AVMON_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "packet.h"

#define ANALYSIS_DEFAULT_MAX_FLOWS 65536
#define ANALYSIS_DEFAULT_MAX_STATIONS 16384
#define ANALYSIS_COPY_WINDOW_S 0.001      /* capture copies: this close */
#define ANALYSIS_CAPACITY_BIN_S 1.0       /* EB estimate: best aggregate goodput per bin */
#define ANALYSIS_SATURATED_AIRTIME 0.9    /* a bin whose frames filled this share of it is saturated */

/* --target ADDR[:PORT]=RATE: flows with an endpoint ADDR (and PORT unless
 * 0) should get RATE. */
struct analysis_target {
	uint8_t family;     /* 4 or 6 */
	uint8_t addr[16];   /* IPv4 in the first 4 bytes, the rest zero */
	uint16_t port;      /* 0 = any port */
	uint64_t rate_bps;
};

struct analysis_config {
	size_t max_flows;      /* flow table cap (LRU eviction); 0 = ANALYSIS_DEFAULT_MAX_FLOWS */
	size_t max_stations;   /* station table cap; 0 = ANALYSIS_DEFAULT_MAX_STATIONS; at least 2 */
	double capacity_bps;   /* EB; 0 = estimate from the capture */
	const struct analysis_target *targets; /* copied by analysis_new */
	size_t n_targets;
	double interval_s;     /* reporting interval; 0 = whole run only */
	/* the capturing interface's own MAC (live Ethernet): the AP itself,
	 * given role "ap" and left out of the fairness figures */
	bool have_ap_mac;
	struct mac_addr ap_mac;
};

/*
 * Parses "ADDR[:PORT]=RATE" ("10.0.0.2:5201=8M", "10.0.0.2=500k",
 * "[2001:db8::2]:5201=8M", "2001:db8::2=8M"), RATE as iperf3 writes it
 * (tcpav_parse_rate). Returns 0, or -1 with a one-line reason in err.
 */
int analysis_target_parse(const char *text, struct analysis_target *t, char *err, size_t err_len);

struct analysis;

/* NULL when out of memory or the configuration is invalid. */
struct analysis *analysis_new(const struct analysis_config *cfg);
void analysis_free(struct analysis *a);

/* One captured frame and the IP packets decoded from f->ip[]. */
void analysis_frame(struct analysis *a, const struct frame *f, const struct ip_packet *pkts, unsigned n_pkts);

/* One JSON object, "type":"summary", on one line. ci may be NULL (the
 * "capture" section then holds what the analysis saw itself). */
void analysis_summary_json(const struct analysis *a, const struct capture_info *ci, FILE *out);

/* End of the current interval: +inf when interval_s is 0 or before the
 * first frame. */
double analysis_interval_end(const struct analysis *a);

/* Emit the interval ending at t_end ("type":"interval" JSON object on one
 * line, or CSV rows with a header before the first) and start the next one
 * at t_end. */
void analysis_interval_json(struct analysis *a, double t_end, FILE *out);
void analysis_interval_csv(struct analysis *a, double t_end, FILE *out);

/* The "table" format: the interval as a top-like screen (clear: redraw the
 * terminal first), and the whole run in the same layout. */
void analysis_interval_table(struct analysis *a, double t_end, FILE *out, bool clear);
void analysis_summary_table(const struct analysis *a, const struct capture_info *ci, FILE *out);

#endif /* AVMON_ANALYSIS_H */
