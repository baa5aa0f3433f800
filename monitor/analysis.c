// SPDX-License-Identifier: GPL-2.0
/*
 * analysis.c - frames in, flow and station tables and the run's metrics
 * out (see analysis.h): de-duplication before the TCP analysis, targets,
 * the capacity estimate, fair share and Jain's index (metrics.h).
 */
#include <arpa/inet.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "flow.h"
#include "report.h"
#include "station.h"
#include "tcpav/metrics.h"
#include "tcpav/tcpav.h"

#define DLT_LINUX_SLL 113
#define DLT_LINUX_SLL2 276
#define COPY_FILTER_SLOTS 4096 /* recent packet fingerprints (direct-mapped) */

#define COPY_LINK_POINTS 4 /* where one packet is seen: enough for in/out, both promiscuous */

/* One packet's recent sightings: its fingerprint, the latest time and the
 * link points (packet_link_point) it was seen at since it was last sent. */
struct copy_slot {
	uint64_t fingerprint; /* 0 = empty */
	double ts;
	uint64_t points[COPY_LINK_POINTS];
	unsigned n_points;
};

/* Aggregate goodput per ANALYSIS_CAPACITY_BIN_S bin. docs/design.md §2.1: EB is
 * the largest aggregate goodput over saturated bins. A bin is saturated when
 * the bottleneck shows that it was full: a TCP flow lost or reordered
 * segments in it (retransmissions, duplicate ACKs: loss-based TCP fills the
 * queue before it backs off), or 802.11 frames kept the medium busy for
 * ANALYSIS_SATURATED_AIRTIME of it. Without any saturated bin the best bin
 * is only a lower bound, and the source says so. */
struct capacity_bins {
	bool started;
	unsigned full_bins, saturated_bins;
	double bin_start;
	uint64_t bin_bytes, bin_congestion_events, bin_airtime_us;
	uint64_t best_bin_bytes, best_saturated_bin_bytes, total_bytes, total_congestion_events;
};

/* Ethernet: the two stations of the last frame, so that a frame between the
 * same two MACs (either way) skips both lookups; valid while no station has
 * been evicted since. */
struct ether_pair_cache {
	bool valid;
	struct mac_addr mac[2];
	struct station *station[2];
	uint64_t evictions;
};

struct analysis {
	struct analysis_config cfg;
	struct analysis_target *targets;
	struct flow_table flows;
	struct station_table stations;
	struct copy_slot *copies;
	struct capacity_bins capacity;
	bool have_ts;
	double first_ts, last_ts;
	uint64_t frames, bytes;
	uint64_t ip_packets, tcp_packets, udp_packets, other_packets;
	uint64_t link_copies_removed, wlan_retries_removed;
	bool interval_started, csv_header_done;
	double interval_start;
	struct ether_pair_cache last_pair;
};

/* ---- targets ---- */

static int target_error(char *err, size_t err_len, const char *text, const char *why)
{
	if (err && err_len)
		snprintf(err, err_len, "bad target '%s': %s (want ADDR[:PORT]=RATE, IPv6 as [ADDR]:PORT=RATE)",
			 text, why);
	return -1;
}

static int parse_port(const char *s, uint16_t *port)
{
	unsigned long v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > 65535)
			return -1;
	}
	*port = (uint16_t)v;
	return 0;
}

int analysis_target_parse(const char *text, struct analysis_target *t, char *err, size_t err_len)
{
	char buf[128], *eq, *addr, *port = NULL;
	struct analysis_target out;

	memset(&out, 0, sizeof(out));
	if (!text || strlen(text) >= sizeof(buf))
		return target_error(err, err_len, text ? text : "", "too long");
	strcpy(buf, text);
	eq = strrchr(buf, '=');
	if (!eq)
		return target_error(err, err_len, text, "no '=RATE'");
	*eq = '\0';
	if (tcpav_parse_rate(eq + 1, &out.rate_bps) < 0 || out.rate_bps == 0)
		return target_error(err, err_len, text, "rate is not a positive iperf3-style rate (8M, 500k)");
	addr = buf;
	if (*addr == '[') {
		char *close = strchr(addr, ']');

		if (!close)
			return target_error(err, err_len, text, "no ']' after the IPv6 address");
		*close = '\0';
		addr++;
		if (close[1] == ':')
			port = close + 2;
		else if (close[1] != '\0')
			return target_error(err, err_len, text, "junk after ']'");
	} else {
		char *colon = strchr(addr, ':');

		/* one colon: IPv4:PORT; more: a bare IPv6 address without port */
		if (colon && !strchr(colon + 1, ':')) {
			*colon = '\0';
			port = colon + 1;
		}
	}
	if (inet_pton(AF_INET, addr, out.addr) == 1)
		out.family = 4;
	else if (inet_pton(AF_INET6, addr, out.addr) == 1)
		out.family = 6;
	else
		return target_error(err, err_len, text, "not an IPv4 or IPv6 address");
	if (port && (parse_port(port, &out.port) < 0 || out.port == 0))
		return target_error(err, err_len, text, "port is not 1-65535");
	*t = out;
	return 0;
}

static bool target_matches(const struct analysis_target *t, const struct flow *fl)
{
	size_t n = t->family == 6 ? 16 : 4;

	if (t->family != fl->family)
		return false;
	for (int end = 0; end < 2; end++)
		if (memcmp(t->addr, fl->addr[end], n) == 0 && (t->port == 0 || t->port == fl->port[end]))
			return true;
	return false;
}

/* ---- life cycle ---- */

struct analysis *analysis_new(const struct analysis_config *cfg)
{
	struct analysis *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->cfg = *cfg;
	if (!a->cfg.max_flows)
		a->cfg.max_flows = ANALYSIS_DEFAULT_MAX_FLOWS;
	if (!a->cfg.max_stations)
		a->cfg.max_stations = ANALYSIS_DEFAULT_MAX_STATIONS;
	if (a->cfg.capacity_bps < 0.0 || a->cfg.interval_s < 0.0 || isnan(a->cfg.capacity_bps) ||
	    isnan(a->cfg.interval_s) || (cfg->n_targets && !cfg->targets))
		goto fail;
	if (cfg->n_targets) {
		a->targets = calloc(cfg->n_targets, sizeof(*a->targets));
		if (!a->targets)
			goto fail;
		memcpy(a->targets, cfg->targets, cfg->n_targets * sizeof(*a->targets));
	}
	a->cfg.targets = a->targets;
	a->copies = calloc(COPY_FILTER_SLOTS, sizeof(*a->copies));
	if (!a->copies)
		goto fail;
	if (flow_table_init(&a->flows, a->cfg.max_flows) < 0)
		goto fail;
	if (station_table_init(&a->stations, a->cfg.max_stations) < 0) {
		flow_table_destroy(&a->flows);
		goto fail;
	}
	return a;
fail:
	free(a->copies);
	free(a->targets);
	free(a);
	return NULL;
}

void analysis_free(struct analysis *a)
{
	if (!a)
		return;
	flow_table_destroy(&a->flows);
	station_table_destroy(&a->stations);
	free(a->copies);
	free(a->targets);
	free(a);
}

/* ---- capture copies ---- */

static uint64_t fnv_bytes(uint64_t h, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/*
 * What stays the same between two copies of one IP packet captured at two
 * points of a host: everything but the TTL/hop limit, the TOS/traffic
 * class and the IPv4 header checksum. From the raw bytes when the decoder
 * left them (f->ip[]), else from the decoded fields.
 */
static uint64_t packet_fingerprint(const struct frame *f, const struct ip_packet *pkts, unsigned n_pkts)
{
	uint64_t h = 0xcbf29ce484222325ull;

	if (f->n_ip > 0) {
		for (unsigned i = 0; i < f->n_ip && i < FRAME_MAX_IP; i++) {
			const uint8_t *d = f->ip[i].data;
			size_t n = f->ip[i].caplen;

			if (!d || n == 0)
				continue;
			/* up to the IP length only: one copy may carry Ethernet
			 * padding that the other has not */
			if ((d[0] >> 4) == 4 && n >= 20) {
				size_t ihl = (size_t)(d[0] & 0x0f) * 4, total = (size_t)d[2] << 8 | d[3];

				if (total < n)
					n = total;
				h = fnv_bytes(h, d + 2, 6);   /* total length, id, flags/fragment */
				h = fnv_bytes(h, d + 9, 1);   /* protocol */
				h = fnv_bytes(h, d + 12, 8);  /* addresses */
				if (ihl >= 20 && ihl <= n)
					h = fnv_bytes(h, d + ihl, n - ihl);
			} else if ((d[0] >> 4) == 6 && n >= 40) {
				size_t total = 40 + ((size_t)d[4] << 8 | d[5]);

				if (total < n)
					n = total;
				h = fnv_bytes(h, d + 4, 3);   /* payload length, next header */
				h = fnv_bytes(h, d + 8, n - 8); /* addresses onwards */
			} else {
				h = fnv_bytes(h, d, n);
			}
		}
	} else {
		for (unsigned i = 0; i < n_pkts; i++) {
			const struct ip_packet *p = &pkts[i];

			h = fnv_bytes(h, &p->family, 1);
			h = fnv_bytes(h, &p->proto, 1);
			h = fnv_bytes(h, p->src, 16);
			h = fnv_bytes(h, p->dst, 16);
			h = fnv_bytes(h, (const uint8_t *)&p->sport, sizeof(p->sport));
			h = fnv_bytes(h, (const uint8_t *)&p->dport, sizeof(p->dport));
			h = fnv_bytes(h, (const uint8_t *)&p->ip_len, sizeof(p->ip_len));
			if (p->is_tcp) {
				h = fnv_bytes(h, (const uint8_t *)&p->seq, sizeof(p->seq));
				h = fnv_bytes(h, (const uint8_t *)&p->ack, sizeof(p->ack));
				h = fnv_bytes(h, &p->tcp_flags, 1);
				h = fnv_bytes(h, (const uint8_t *)&p->window, sizeof(p->window));
				h = fnv_bytes(h, (const uint8_t *)&p->ts_val, sizeof(p->ts_val));
				h = fnv_bytes(h, (const uint8_t *)&p->ts_ecr, sizeof(p->ts_ecr));
			}
		}
	}
	return h | 1; /* never 0: 0 marks an empty slot */
}

/*
 * Where on the host a cooked capture saw the frame: the interface (SLL2's
 * ifindex; -1 in SLL), the packet type (HOST, OTHERHOST, OUTGOING ...) and
 * the link-layer source address. The copies "-i any" takes of one packet
 * differ in one of them: a forwarded packet comes in as HOST from the
 * previous hop's MAC and goes out as OUTGOING, or is seen again as
 * OTHERHOST from the forwarding interface's MAC; a packet on lo is
 * OUTGOING, then HOST. TCP sending the same bytes again (a SYN/ACK
 * answering a SYN and its retransmission) leaves at the same point.
 */
static uint64_t packet_link_point(const struct frame *f)
{
	uint8_t b[4 + 1 + sizeof(f->src_mac.b)];

	b[0] = (uint8_t)((uint32_t)f->ifindex >> 24);
	b[1] = (uint8_t)((uint32_t)f->ifindex >> 16);
	b[2] = (uint8_t)((uint32_t)f->ifindex >> 8);
	b[3] = (uint8_t)f->ifindex;
	b[4] = (uint8_t)f->sll_pkttype;
	memcpy(b + 5, f->src_mac.b, sizeof(f->src_mac.b));
	return fnv_bytes(0xcbf29ce484222325ull, b, sizeof(b));
}

/* True when the frame is a link copy: a packet seen within
 * ANALYSIS_COPY_WINDOW_S (from its latest sighting, so a chain of copies is
 * one), at another link point than the sightings so far. At a point it was
 * already seen at, it is the packet sent again: analysed, and its copies
 * are counted from there. */
static bool copy_seen(struct analysis *a, const struct frame *f, const struct ip_packet *pkts, unsigned n_pkts)
{
	uint64_t fp, point;
	struct copy_slot *slot;

	if (f->n_ip == 0 && n_pkts == 0)
		return false;
	fp = packet_fingerprint(f, pkts, n_pkts);
	point = packet_link_point(f);
	slot = &a->copies[fp % COPY_FILTER_SLOTS];
	if (slot->fingerprint == fp && f->ts >= slot->ts && f->ts - slot->ts < ANALYSIS_COPY_WINDOW_S) {
		unsigned i;

		slot->ts = f->ts;
		for (i = 0; i < slot->n_points && slot->points[i] != point; i++)
			;
		if (i == slot->n_points) {
			/* more points than remembered: the latest replaces the last */
			slot->points[i < COPY_LINK_POINTS ? slot->n_points++ : COPY_LINK_POINTS - 1] = point;
			return true;
		}
	}
	slot->fingerprint = fp;
	slot->ts = f->ts;
	slot->points[0] = point;
	slot->n_points = 1;
	return false;
}

/* ---- capacity ---- */

static bool capacity_bin_saturated(const struct capacity_bins *c, double bin_s)
{
	return c->bin_congestion_events > 0 ||
	       (double)c->bin_airtime_us >= ANALYSIS_SATURATED_AIRTIME * bin_s * 1e6;
}

static void capacity_close_bin(struct capacity_bins *c)
{
	if (c->bin_bytes > c->best_bin_bytes)
		c->best_bin_bytes = c->bin_bytes;
	if (capacity_bin_saturated(c, ANALYSIS_CAPACITY_BIN_S)) {
		c->saturated_bins++;
		if (c->bin_bytes > c->best_saturated_bin_bytes)
			c->best_saturated_bin_bytes = c->bin_bytes;
	}
	c->full_bins++;
	c->bin_bytes = c->bin_congestion_events = c->bin_airtime_us = 0;
}

static void capacity_advance(struct capacity_bins *c, double ts)
{
	if (!c->started) {
		c->started = true;
		c->bin_start = ts;
		return;
	}
	if (ts < c->bin_start + ANALYSIS_CAPACITY_BIN_S)
		return;
	capacity_close_bin(c);
	c->bin_start += floor((ts - c->bin_start) / ANALYSIS_CAPACITY_BIN_S) * ANALYSIS_CAPACITY_BIN_S;
}

/* EB: given; or the best saturated full bin (the open bin counts when it
 * is saturated and already holds more); or, with no saturated bin, the best
 * bin as a lower bound; for a capture shorter than one bin, its average
 * goodput (saturated if it saw congestion). */
static double capacity_bps(const struct analysis *a, const char **source)
{
	const struct capacity_bins *c = &a->capacity;
	bool open_saturated = capacity_bin_saturated(c, ANALYSIS_CAPACITY_BIN_S);
	uint64_t best;

	if (a->cfg.capacity_bps > 0.0) {
		*source = "given";
		return a->cfg.capacity_bps;
	}
	if (c->full_bins > 0) {
		if (c->saturated_bins > 0 || open_saturated) {
			*source = "estimated";
			best = c->best_saturated_bin_bytes;
			if (open_saturated && c->bin_bytes > best)
				best = c->bin_bytes;
		} else {
			*source = "estimated-unsaturated";
			best = c->bin_bytes > c->best_bin_bytes ? c->bin_bytes : c->best_bin_bytes;
		}
		return (double)best * 8.0 / ANALYSIS_CAPACITY_BIN_S;
	}
	*source = c->total_congestion_events > 0 ? "estimated" : "estimated-unsaturated";
	if (a->have_ts && a->last_ts > a->first_ts)
		return (double)c->total_bytes * 8.0 / (a->last_ts - a->first_ts);
	return NAN;
}

/* ---- frames ---- */

static bool link_is_cooked(int dlt)
{
	return dlt == DLT_LINUX_SLL || dlt == DLT_LINUX_SLL2;
}

static void frame_time(struct analysis *a, double ts)
{
	if (!a->have_ts) {
		a->have_ts = true;
		a->first_ts = a->last_ts = ts;
	}
	if (ts > a->last_ts)
		a->last_ts = ts;
	if (ts < a->first_ts)
		a->first_ts = ts;
	/* the first interval starts at the first frame (with interval_s 0 the
	 * one "interval" is the whole run, which CSV output reports) */
	if (!a->interval_started) {
		a->interval_started = true;
		a->interval_start = ts;
	}
	capacity_advance(&a->capacity, ts);
}

static void packet_count_proto(struct analysis *a, const struct ip_packet *p)
{
	a->ip_packets++;
	if (p->proto == 6)
		a->tcp_packets++;
	else if (p->proto == 17)
		a->udp_packets++;
	else
		a->other_packets++;
}

/* The transmitting and (unicast) receiving station of an Ethernet frame. */
static void ether_stations(struct analysis *a, const struct frame *f, struct station **tx, struct station **rx)
{
	struct ether_pair_cache *c = &a->last_pair;

	if (c->valid && c->evictions == a->stations.evictions) {
		int i = mac_equal(&f->src_mac, &c->mac[0]) ? 0 : mac_equal(&f->src_mac, &c->mac[1]) ? 1 : -1;

		if (i >= 0 && mac_equal(&f->dst_mac, &c->mac[!i])) {
			*tx = c->station[i];
			*rx = c->station[!i];
			if (f->ts > (*tx)->last_ts)
				(*tx)->last_ts = f->ts;
			if (f->ts > (*rx)->last_ts)
				(*rx)->last_ts = f->ts;
			return;
		}
	}
	*tx = station_table_lookup_mac(&a->stations, &f->src_mac, f->ts);
	*rx = NULL;
	if (!mac_is_group(&f->dst_mac) && !mac_is_zero(&f->dst_mac))
		*rx = station_table_lookup_mac(&a->stations, &f->dst_mac, f->ts);
	c->valid = *tx && *rx;
	if (c->valid) {
		c->mac[0] = f->src_mac;
		c->mac[1] = f->dst_mac;
		c->station[0] = *tx;
		c->station[1] = *rx;
		c->evictions = a->stations.evictions;
	}
}

void analysis_frame(struct analysis *a, const struct frame *f, const struct ip_packet *pkts, unsigned n_pkts)
{
	struct station *tx = NULL, *rx = NULL;
	bool stations_by_ip = false;
	uint32_t share, first_share;

	a->frames++;
	a->bytes += f->wirelen;
	frame_time(a, f->ts);

	if (f->wlan.present) {
		const struct wlan_info *w = &f->wlan;

		if (w->has_ta)
			tx = station_table_lookup_mac(&a->stations, &w->ta, f->ts);
		if (!mac_is_group(&w->ra) && !mac_is_zero(&w->ra))
			rx = station_table_lookup_mac(&a->stations, &w->ra, f->ts);
		station_count_wlan_frame(tx, rx, f);
		a->capacity.bin_airtime_us += station_frame_airtime_us(f);
		/* a frame with a bad FCS was not received: it is not remembered,
		 * so that its retry, the first good copy, reaches the flows */
		if (w->type == 2 && tx && !f->radio.bad_fcs && station_wlan_repeat(tx, w)) {
			a->wlan_retries_removed++;
			return;
		}
	} else if (link_is_cooked(f->dlt)) {
		if (copy_seen(a, f, pkts, n_pkts)) {
			a->link_copies_removed++;
			return;
		}
		stations_by_ip = true;
	} else if (f->has_mac && !mac_is_zero(&f->src_mac)) {
		ether_stations(a, f, &tx, &rx);
		if (a->cfg.have_ap_mac) {
			if (tx && mac_equal(&f->src_mac, &a->cfg.ap_mac))
				tx->is_ap = true;
			if (rx && mac_equal(&f->dst_mac, &a->cfg.ap_mac))
				rx->is_ap = true;
		}
		station_count_tx(tx, f->wirelen);
		station_count_rx(rx, f->wirelen);
	} else {
		stations_by_ip = true;
	}

	/* an A-MSDU's frame length is shared among its packets */
	share = first_share = f->wirelen;
	if (n_pkts > 1) {
		share = f->wirelen / n_pkts;
		first_share = f->wirelen - share * (n_pkts - 1);
	}
	for (unsigned i = 0; i < n_pkts; i++) {
		const struct ip_packet *p = &pkts[i];
		uint32_t l2 = i == 0 ? first_share : share;
		struct flow_packet_result r;
		struct flow *fl;
		bool created;

		packet_count_proto(a, p);
		if (stations_by_ip) {
			tx = station_table_lookup_ip(&a->stations, p->family, p->src, f->ts);
			rx = ip_is_group(p->family, p->dst) ? NULL
							    : station_table_lookup_ip(&a->stations, p->family, p->dst, f->ts);
			station_count_tx(tx, l2);
			station_count_rx(rx, l2);
		}
		fl = flow_table_lookup(&a->flows, p, f->ts, &created);
		if (!fl)
			continue;
		if (created) {
			for (size_t t = 0; t < a->cfg.n_targets; t++) {
				if (target_matches(&a->targets[t], fl)) {
					fl->target = (int)t;
					break;
				}
			}
		}
		flow_packet(fl, p, f->ts, l2, &r);
		station_count_transport(tx, rx, r.payload, r.goodput_delta, r.events & TCP_EV_PURE_ACK);
		a->capacity.bin_bytes += r.goodput_delta;
		a->capacity.total_bytes += r.goodput_delta;
		if (r.events & (TCP_EV_RETRANSMISSION | TCP_EV_DUP_ACK)) {
			a->capacity.bin_congestion_events++;
			a->capacity.total_congestion_events++;
		}
	}
}

/* ---- reports ---- */

static int flow_by_id(const void *x, const void *y)
{
	const struct flow *a = *(const struct flow *const *)x, *b = *(const struct flow *const *)y;

	return (a->id > b->id) - (a->id < b->id);
}

static int station_by_id(const void *x, const void *y)
{
	const struct station *a = *(const struct station *const *)x, *b = *(const struct station *const *)y;

	return (a->id > b->id) - (a->id < b->id);
}

/* The tables' entries in order of first appearance; only those active in
 * the interval when `interval`. The arrays are the caller's to free. */
static bool collect_entries(const struct analysis *a, bool interval, const struct flow ***flows, size_t *n_flows,
			    const struct station ***stations, size_t *n_stations)
{
	size_t nf = 0, ns = 0;

	*flows = calloc(flow_table_count(&a->flows) + 1, sizeof(**flows));
	*stations = calloc(station_table_count(&a->stations) + 1, sizeof(**stations));
	if (!*flows || !*stations) {
		free(*flows);
		free(*stations);
		return false;
	}
	for (const struct flow *fl = flow_table_first(&a->flows); fl; fl = flow_table_next(fl))
		if (!interval || fl->interval.packets[0] || fl->interval.packets[1])
			(*flows)[nf++] = fl;
	for (const struct station *s = station_table_first(&a->stations); s; s = station_table_next(s))
		if (!interval || s->interval.frames)
			(*stations)[ns++] = s;
	qsort(*flows, nf, sizeof(**flows), flow_by_id);
	qsort(*stations, ns, sizeof(**stations), station_by_id);
	*n_flows = nf;
	*n_stations = ns;
	return true;
}

/* Active: carried payload (docs/design.md §2.5). APs are not among the stations
 * whose shares are compared. Airtime is compared among the stations that
 * used the air for data, including 802.11 data avmon cannot read
 * (encrypted): airtime fairness matters most where goodput is invisible. */
static void fairness(const struct report_view *v, bool interval, struct report_fairness *out)
{
	double *goodput = calloc(v->n_stations + 1, sizeof(double));
	double *airtime = calloc(v->n_stations + 1, sizeof(double));
	size_t n_goodput = 0, n_airtime = 0, n_flows = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < v->n_flows; i++) {
		const struct flow *fl = v->flows[i];
		uint64_t payload = interval ? fl->interval.payload_bytes[0] + fl->interval.payload_bytes[1]
					    : fl->dir[0].payload_bytes + fl->dir[1].payload_bytes;

		n_flows += payload > 0;
	}
	for (size_t i = 0; goodput && airtime && i < v->n_stations; i++) {
		const struct station *s = v->stations[i];
		uint64_t payload, bytes, air, mac_payload;

		if (s->is_ap)
			continue;
		if (interval) {
			payload = s->interval.tx_payload_bytes + s->interval.rx_payload_bytes;
			bytes = s->interval.tx_goodput_bytes + s->interval.rx_goodput_bytes;
			air = s->interval.airtime_us;
			mac_payload = s->interval.mac_payload_frames;
		} else {
			payload = s->tx_payload_bytes + s->rx_payload_bytes;
			bytes = s->tx_goodput_bytes + s->rx_goodput_bytes;
			air = s->tx_airtime_us + s->rx_airtime_us;
			mac_payload = s->mac_payload_frames;
		}
		if (air && (payload || mac_payload))
			airtime[n_airtime++] = (double)air;
		if (payload)
			goodput[n_goodput++] = (double)bytes;
	}
	out->active_stations = n_goodput;
	out->active_flows = n_flows;
	out->jain_goodput = tcpav_jain(goodput, n_goodput);
	out->jain_airtime = tcpav_jain(airtime, n_airtime);
	out->fair_share_bps = tcpav_fair_share_bps(v->capacity_bps, n_goodput);
	out->fair_share_flow_bps = tcpav_fair_share_bps(v->capacity_bps, n_flows);
	free(goodput);
	free(airtime);
}

static bool view_init(const struct analysis *a, bool interval, struct report_view *v)
{
	const struct flow **flows;
	const struct station **stations;

	memset(v, 0, sizeof(*v));
	if (!collect_entries(a, interval, &flows, &v->n_flows, &stations, &v->n_stations))
		return false;
	v->flows = flows;
	v->stations = stations;
	v->capacity_bps = capacity_bps(a, &v->capacity_source);
	v->targets = a->targets;
	fairness(v, interval, &v->fairness);
	return true;
}

static void view_free(struct report_view *v)
{
	free((void *)v->flows);
	free((void *)v->stations);
}

static void summary_emit(const struct analysis *a, const struct capture_info *ci, FILE *out, bool table)
{
	struct report_view v;

	if (!view_init(a, false, &v))
		return;
	v.capture = ci;
	v.first_ts = a->have_ts ? a->first_ts : NAN;
	v.last_ts = a->have_ts ? a->last_ts : NAN;
	v.frames = a->frames;
	v.bytes = a->bytes;
	v.ip_packets = a->ip_packets;
	v.tcp_packets = a->tcp_packets;
	v.udp_packets = a->udp_packets;
	v.other_packets = a->other_packets;
	v.flow_evictions = a->flows.evictions;
	v.station_evictions = a->stations.evictions;
	v.link_copies_removed = a->link_copies_removed;
	v.wlan_retries_removed = a->wlan_retries_removed;
	v.t_end = v.last_ts;
	if (table)
		report_table(out, &v, true, false);
	else
		report_summary_json(out, &v);
	view_free(&v);
}

void analysis_summary_json(const struct analysis *a, const struct capture_info *ci, FILE *out)
{
	summary_emit(a, ci, out, false);
}

void analysis_summary_table(const struct analysis *a, const struct capture_info *ci, FILE *out)
{
	summary_emit(a, ci, out, true);
}

double analysis_interval_end(const struct analysis *a)
{
	if (!(a->cfg.interval_s > 0.0) || !a->interval_started)
		return INFINITY;
	return a->interval_start + a->cfg.interval_s;
}

static void interval_reset(struct analysis *a, double t_end)
{
	for (struct flow *fl = flow_table_first(&a->flows); fl; fl = flow_table_next(fl))
		flow_interval_reset(fl);
	for (struct station *s = station_table_first(&a->stations); s; s = station_table_next(s))
		station_interval_reset(s);
	a->interval_start = t_end;
}

enum interval_format { INTERVAL_JSON, INTERVAL_CSV, INTERVAL_TABLE, INTERVAL_TABLE_CLEAR };

static void interval_emit(struct analysis *a, double t_end, FILE *out, enum interval_format format)
{
	struct report_view v;

	if (view_init(a, true, &v)) {
		v.t_start = a->interval_started ? a->interval_start : t_end;
		v.t_end = t_end;
		if (format == INTERVAL_CSV)
			report_interval_csv(out, &v, !a->csv_header_done);
		else if (format == INTERVAL_JSON)
			report_interval_json(out, &v);
		else
			report_table(out, &v, false, format == INTERVAL_TABLE_CLEAR);
		a->csv_header_done |= format == INTERVAL_CSV;
		view_free(&v);
	}
	interval_reset(a, t_end);
}

void analysis_interval_json(struct analysis *a, double t_end, FILE *out)
{
	interval_emit(a, t_end, out, INTERVAL_JSON);
}

void analysis_interval_csv(struct analysis *a, double t_end, FILE *out)
{
	interval_emit(a, t_end, out, INTERVAL_CSV);
}

void analysis_interval_table(struct analysis *a, double t_end, FILE *out, bool clear)
{
	interval_emit(a, t_end, out, clear ? INTERVAL_TABLE_CLEAR : INTERVAL_TABLE);
}
