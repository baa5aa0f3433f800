/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sta_info.h - one station as nl80211 reports it: the parser of an
 * NL80211_CMD_NEW_STATION message (a station dump reply) into plain C,
 * the PHY-rate arithmetic for rates the kernel gave only as MCS/NSS/width/
 * guard interval, and the station dump request itself.
 *
 * Every field has a presence bit: what the kernel did not send is missing,
 * never 0.
 */
#ifndef APTOOLS_STA_INFO_H
#define APTOOLS_STA_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <netlink/msg.h>

#include "nl80211.h"

enum sta_rate_mode {
	STA_RATE_LEGACY, /* no MCS: the kernel's bitrate or nothing */
	STA_RATE_HT,     /* 802.11n, MCS 0..31 (NSS = MCS / 8 + 1) */
	STA_RATE_VHT,    /* 802.11ac, MCS 0..9, NSS 1..8 */
	STA_RATE_HE,     /* 802.11ax, MCS 0..11, NSS 1..8 */
};

/* One NL80211_STA_INFO_TX_BITRATE / RX_BITRATE nest. */
struct sta_rate {
	bool kbps_present;
	bool computed;       /* kbps computed by sta_rate_compute_kbps(), not the kernel's */
	uint32_t kbps;       /* kbit/s */
	enum sta_rate_mode mode;
	uint8_t mcs;         /* HT: 0..76 as sent; VHT/HE: per stream */
	uint8_t nss;         /* spatial streams (HT: derived from the MCS) */
	uint16_t width_mhz;  /* 5, 10, 20 (no width flag), 40, 80, 160 */
	bool width_80p80;    /* 80+80 MHz (counted as 160) */
	bool short_gi;       /* HT/VHT 0.4 us guard interval */
	uint8_t he_gi;       /* enum nl80211_he_gi: 0.8, 1.6, 3.2 us */
	bool he_dcm;
	bool he_ru_present;
	uint8_t he_ru_alloc; /* enum nl80211_he_ru_alloc */
};

/* The presence bits of struct station_info. */
enum sta_info_field {
	SI_IFINDEX,
	SI_RX_BYTES,
	SI_TX_BYTES,
	SI_RX_PACKETS,
	SI_TX_PACKETS,
	SI_TX_RETRIES,
	SI_TX_FAILED,
	SI_SIGNAL,
	SI_SIGNAL_AVG,
	SI_TX_BITRATE, /* the nest was there; its kbps may still be unknown */
	SI_RX_BITRATE,
	SI_RX_DURATION,
	SI_TX_DURATION,
	SI_AIRTIME_WEIGHT,
	SI_INACTIVE_TIME,
	SI_CONNECTED_TIME,
	SI_N_FIELDS
};

struct station_info {
	uint8_t mac[6];
	uint32_t present;         /* 1u << enum sta_info_field */
	uint32_t ifindex;
	uint64_t rx_bytes, tx_bytes;
	bool rx_bytes64, tx_bytes64; /* from the 64-bit attributes (else they wrap at 2^32) */
	uint32_t rx_packets, tx_packets;
	uint32_t tx_retries, tx_failed;
	int8_t signal_dbm, signal_avg_dbm;
	struct sta_rate tx_rate, rx_rate;
	uint64_t rx_duration_us, tx_duration_us; /* airtime */
	uint16_t airtime_weight;
	uint32_t inactive_ms;
	uint32_t connected_s;
};

static inline bool sta_has(const struct station_info *s, enum sta_info_field f)
{
	return (s->present >> f) & 1u;
}

/*
 * Parses one NL80211_CMD_NEW_STATION message (what a libnl NL_CB_VALID
 * callback receives during a station dump) into *OUT. Every attribute is
 * checked against an nla_policy (type and minimum length), nests must be
 * whole (no bytes left over), and NL80211_ATTR_MAC and
 * NL80211_ATTR_STA_INFO must be there. 0, or a negative libnl error code
 * (nl_geterror()) with *OUT untouched: -NLE_MSG_TOOSHORT, -NLE_MSG_TRUNC,
 * -NLE_RANGE (an attribute shorter than its policy), -NLE_MISSING_ATTR,
 * -NLE_MSGTYPE_NOSUPPORT (not NEW_STATION), -NLE_INVAL.
 */
int sta_info_parse(struct nl_msg *msg, struct station_info *out);

/*
 * The PHY rate of R in kbit/s, from its MCS, NSS, channel width (or HE RU
 * size), guard interval and DCM, rounded to the nearest kbit/s: HT MCS
 * 0..31 at 20/40 MHz, VHT MCS 0..9 NSS 1..8 and HE MCS 0..11 NSS 1..8 at
 * 20/40/80/160 MHz. 0, or -1 when R is legacy or out of those ranges.
 */
int sta_rate_compute_kbps(const struct sta_rate *r, uint32_t *kbps);

/* Guard interval in ns (400, 800, 1600, 3200), 0 for legacy rates. */
unsigned sta_rate_gi_ns(const struct sta_rate *r);

/* "legacy", "ht", "vht", "he" */
const char *sta_rate_mode_name(enum sta_rate_mode mode);

/*
 * Dumps the stations of IFINDEX (NL80211_CMD_GET_STATION, NLM_F_DUMP) and
 * hands each parsed station to ON_STATION(station, ARG), which returns 0,
 * or a negative libnl error code (-NLE_NOMEM) that fails the dump (the
 * rest of the replies is read and dropped, so that the socket can be used
 * again). IFNAME names the interface in ERR.
 * 0, or -1 with one line in ERR (a station the kernel sent that does not
 * parse is an error too: "dump stations on wlan0: station 3: ...").
 */
int sta_info_dump(struct nl80211 *nl, int ifindex, const char *ifname,
		  int (*on_station)(const struct station_info *, void *), void *arg, char *err, size_t errlen);

#endif /* APTOOLS_STA_INFO_H */
