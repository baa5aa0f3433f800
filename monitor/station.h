/* SPDX-License-Identifier: GPL-2.0 */
/*
 * station.h - stations and their counters (docs/design.md §4.3).
 *
 * Keys: a MAC address when the link layer has both addresses (802.11,
 * Ethernet); an IP address otherwise (raw IP, Linux cooked captures: SLL
 * has no destination MAC, and "-i any" mixes interfaces without one).
 *
 * Who is counted where:
 *  - every frame: tx of its transmitter (802.11 TA, Ethernet source, IP
 *    source) and rx of its receiver when unicast (802.11 RA, Ethernet
 *    destination, IP destination) - frames, bytes (frame.len), airtime;
 *  - 802.11 data frames by role, exactly as the oracle's per-station table
 *    (MANIFEST.md): ToDS frames are the station's uplink (tx_data_*, the
 *    station is the TA), FromDS frames to a unicast RA its downlink
 *    (rx_data_*); WDS/IBSS data frames count in tx/rx only. Off 802.11,
 *    every frame is a data frame and tx_data_* = tx_*;
 *  - payload, goodput and pure TCP ACKs: tx of the sender, rx of the
 *    receiver of the frame that carried them (MAC retries and capture
 *    copies excluded, as for the flows).
 * A MAC seen as the BSSID side (TA of FromDS data or of beacons, RA of
 * ToDS data) is marked as an access point; fairness figures leave APs out.
 */
#ifndef AVMON_STATION_H
#define AVMON_STATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lru.h"
#include "packet.h"

enum station_kind { STATION_BY_MAC = 1, STATION_BY_IP = 2 };

/* No padding: hashed as bytes. MAC in addr[0..5]; IPv4 in addr[0..3]. */
struct station_key {
	uint8_t kind;
	uint8_t family;     /* 4 or 6 for STATION_BY_IP */
	uint8_t addr[16];
	uint8_t pad[6];     /* zero: 24 bytes, compared a word at a time */
};

/* Frames per PHY rate: the first STATION_RATE_SLOTS distinct rates seen,
 * the rest in other_frames. */
#define STATION_RATE_SLOTS 8

struct station_rates {
	struct {
		uint32_t rate_kbps;
		uint64_t frames;
	} slot[STATION_RATE_SLOTS];
	uint64_t other_frames;
};

/* Recent 802.11 (receiver, sequence, fragment) of a transmitter's data
 * frames: enough for a retry that follows a whole A-MPDU of other frames.
 * The receiver is part of it because QoS sequence numbers run per
 * receiver: an AP's frames to two stations may carry the same number. */
#define STATION_RECENT_SEQ 64

struct station_interval {
	uint64_t frames;
	uint64_t tx_payload_bytes, rx_payload_bytes;
	uint64_t tx_goodput_bytes, rx_goodput_bytes;
	uint64_t airtime_us;
	uint64_t data_frames, data_retries;
	uint64_t mac_payload_frames;
};

struct station {
	struct lru_link link;    /* first member: the table's handle */
	struct station_key key;
	uint64_t id;             /* order of first appearance, from 0 */
	bool is_ap;
	double first_ts, last_ts;
	uint64_t tx_frames, rx_frames, tx_bytes, rx_bytes;
	uint64_t tx_data_frames, rx_data_frames, tx_data_bytes, rx_data_bytes;
	uint64_t retries;        /* frames it transmitted with the retry bit, any type */
	uint64_t tx_data_retries, rx_data_retries;
	uint64_t tx_airtime_us, rx_airtime_us;
	uint64_t tx_data_airtime_us, rx_data_airtime_us;
	uint64_t tx_payload_bytes, rx_payload_bytes;
	uint64_t tx_goodput_bytes, rx_goodput_bytes;
	uint64_t uplink_tcp_acks; /* pure TCP ACKs it transmitted */
	uint64_t mac_payload_frames; /* 802.11 data frames with a body, either way
				      * (encrypted ones too: active on the air) */
	double signal_dbm_sum;    /* over frames it transmitted that had a signal */
	uint64_t signal_frames;
	struct station_rates tx_rates, rx_rates;
	uint32_t recent_seq[STATION_RECENT_SEQ]; /* RA hash << 16 | seq << 4 | frag */
	uint8_t recent_next, recent_count;
	struct station_interval interval;
};

struct station_table {
	struct lru_table lru;
	uint64_t next_id;
	uint64_t evictions;
};

/* 0, or -1 when out of memory. max_stations >= 2: a frame holds two
 * stations at once. */
int station_table_init(struct station_table *t, size_t max_stations);
void station_table_destroy(struct station_table *t);

/* The station, created if new (evicting the least recently used one when
 * the table is full); NULL when out of memory. */
struct station *station_table_lookup_mac(struct station_table *t, const struct mac_addr *mac, double ts);
struct station *station_table_lookup_ip(struct station_table *t, uint8_t family, const uint8_t *addr, double ts);

static inline size_t station_table_count(const struct station_table *t)
{
	return t->lru.count;
}

static inline struct station *station_table_first(const struct station_table *t)
{
	return (struct station *)t->lru.newest;
}

static inline struct station *station_table_next(const struct station *s)
{
	return (struct station *)s->link.older;
}

/* IPv4 multicast/broadcast, IPv6 multicast */
bool ip_is_group(uint8_t family, const uint8_t *addr);

/* One 802.11 frame: ta is its transmitter, ra its unicast receiver; either
 * may be NULL. */
void station_count_wlan_frame(struct station *ta, struct station *ra, const struct frame *f);
/* The airtime an 802.11 frame adds (ACK/BlockAck: 0, counted with the
 * frame they acknowledge). */
uint32_t station_frame_airtime_us(const struct frame *f);

/* True when this data frame has the retry bit and its (RA, seq, frag)
 * already came from this transmitter: a MAC retransmission of a frame we
 * saw. Remembers (RA, seq, frag) either way. */
bool station_wlan_repeat(struct station *ta, const struct wlan_info *w);

/* A frame (or an IP packet's share of one) off 802.11: every frame is data. */
void station_count_tx(struct station *s, uint32_t bytes);
void station_count_rx(struct station *s, uint32_t bytes);

/* Transport payload of one packet between tx and rx (either may be NULL). */
void station_count_transport(struct station *tx, struct station *rx, uint32_t payload, uint64_t goodput,
			     bool pure_tcp_ack);

void station_interval_reset(struct station *s);

/* "aa:bb:cc:dd:ee:ff", or the IP address. */
void station_format(const struct station *s, char *buf, size_t len);

/* Data retries over data frames, both ways; NAN without data frames. */
double station_retry_ratio(const struct station *s);

#endif /* AVMON_STATION_H */
