/* SPDX-License-Identifier: GPL-2.0 */
/*
 * packet.h - one captured frame as avmon's decoders leave it for the
 * analysis (flow and station tables).
 *
 * A link-type decoder (ether.c, sll.c, raw.c, ieee80211.c behind
 * radiotap.c) fills struct frame: what the link layer says (MACs, 802.11
 * roles, radio facts) and up to FRAME_MAX_IP network-layer payloads (more
 * than one only for A-MSDU). ip.c then decodes each payload into a struct
 * ip_packet. Every read goes through struct cursor (cursor.h), so a short
 * or malformed frame becomes a counted reason, never an out-of-bounds read.
 */
#ifndef AVMON_PACKET_H
#define AVMON_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FRAME_MAX_IP 16 /* A-MSDU subframes decoded per frame */

/* Why a frame (or part of it) could not be decoded; counted per reason. */
enum malformed_reason {
	MAL_NONE = 0,
	MAL_TRUNCATED,      /* captured bytes end inside a header */
	MAL_BAD_RADIOTAP,   /* radiotap length/fields inconsistent */
	MAL_BAD_80211,      /* 802.11 header inconsistent */
	MAL_BAD_IP,         /* IPv4/IPv6 header inconsistent (version, IHL, lengths) */
	MAL_BAD_TCP,        /* TCP data offset or options inconsistent */
	MAL_UNSUPPORTED,    /* a valid frame of a kind avmon does not decode */
	MAL_REASONS
};

const char *malformed_reason_name(enum malformed_reason r);

struct mac_addr {
	uint8_t b[6];
};

/* MAC tests, inline: they run several times per frame */
static inline bool mac_equal(const struct mac_addr *x, const struct mac_addr *y)
{
	uint32_t x4, y4;
	uint16_t x2, y2;

	memcpy(&x4, x->b, 4);
	memcpy(&y4, y->b, 4);
	memcpy(&x2, x->b + 4, 2);
	memcpy(&y2, y->b + 4, 2);
	return x4 == y4 && x2 == y2;
}

static inline bool mac_is_zero(const struct mac_addr *m)
{
	static const struct mac_addr zero;

	return mac_equal(m, &zero);
}

/* group (multicast or broadcast): the I/G bit */
static inline bool mac_is_group(const struct mac_addr *m)
{
	return m->b[0] & 0x01;
}

enum phy_kind { PHY_NONE = 0, PHY_DSSS, PHY_OFDM, PHY_HT, PHY_VHT, PHY_HE };

/* What radiotap says about the frame on the air. */
struct radio_info {
	bool present;
	enum phy_kind phy;
	uint32_t rate_kbps;    /* PHY rate, 0 = unknown */
	uint8_t mcs;           /* HT/VHT/HE */
	uint8_t nss;           /* spatial streams, >= 1 when known */
	uint16_t bw_mhz;       /* 20, 40, 80, 160 */
	uint8_t gi_ns_div100;  /* guard interval: 8 = 800 ns, 4 = 400 ns, 16, 32 (HE) */
	bool short_preamble;   /* DSSS/CCK */
	bool has_signal;
	int8_t signal_dbm;
	bool fcs_at_end;       /* the captured 802.11 frame ends with a 4-byte FCS */
	bool bad_fcs;
	uint16_t freq_mhz;
	bool ampdu;            /* part of an A-MPDU */
	uint32_t ampdu_ref;
};

enum wlan_dir {
	WLAN_DIR_NONE = 0,   /* no station role (management, control, WDS, IBSS) */
	WLAN_DIR_UP,         /* ToDS: station = TA (transmitter) */
	WLAN_DIR_DOWN,       /* FromDS: station = RA (receiver), unicast only */
};

/* 802.11 frame types and the subtypes the analysis needs (IEEE 802.11-2016
 * Table 9-1); ieee80211.c decodes the rest. */
enum wlan_type { WLAN_TYPE_MGMT = 0, WLAN_TYPE_CTRL = 1, WLAN_TYPE_DATA = 2, WLAN_TYPE_EXT = 3 };
#define WLAN_SUBTYPE_PROBE_RESP 5  /* management */
#define WLAN_SUBTYPE_BEACON 8      /* management */
#define WLAN_SUBTYPE_BLOCK_ACK 9   /* control */
#define WLAN_SUBTYPE_ACK 13        /* control */
#define WLAN_SUBTYPE_NO_BODY 0x04  /* data: Null, QoS Null, CF-Ack/Poll without data */

/* What the 802.11 header says. */
struct wlan_info {
	bool present;
	uint8_t type;          /* 0 management, 1 control, 2 data */
	uint8_t subtype;
	bool retry;
	bool protected_frame;
	bool to_ds, from_ds;
	bool has_ta;
	struct mac_addr ta, ra;
	uint16_t seq;          /* sequence number (12 bits) */
	uint8_t frag;
	enum wlan_dir dir;
	struct mac_addr station; /* valid when dir != WLAN_DIR_NONE */
	uint32_t mpdu_len;     /* 802.11 frame length on the air, FCS included */
	uint32_t airtime_us;   /* docs/design.md §2.8; 0 when the rate is unknown */
	bool amsdu;
};

/* A network-layer payload the link layer carried. */
struct ip_slice {
	uint16_t ethertype;    /* 0x0800 IPv4, 0x86dd IPv6 */
	const uint8_t *data;
	size_t caplen;         /* bytes captured */
	size_t wirelen;        /* bytes on the wire (>= caplen) */
};

struct frame {
	double ts;             /* seconds */
	uint32_t caplen, wirelen;
	int dlt;
	/* Ethernet / SLL: MAC source and destination where known */
	bool has_mac;
	struct mac_addr src_mac, dst_mac;
	/* SLL: packet type (0 host, 1 broadcast, 2 multicast, 3 other host,
	 * 4 outgoing) and interface index (SLL2), -1 when unknown */
	int sll_pkttype;
	int ifindex;
	struct radio_info radio;
	struct wlan_info wlan;
	unsigned n_ip;
	struct ip_slice ip[FRAME_MAX_IP]; /* the first n_ip are valid, the rest undefined */
	enum malformed_reason malformed; /* first problem met, MAL_NONE if none */
};

#define TCP_MAX_SACK 4

/* One IP packet as ip.c decodes it. */
struct ip_packet {
	uint8_t family;        /* 4 or 6 */
	uint8_t proto;         /* 6 TCP, 17 UDP, ... */
	uint8_t src[16], dst[16]; /* IPv4 in the first 4 bytes, the rest zero */
	uint16_t sport, dport; /* TCP/UDP, host order */
	uint32_t ip_len;       /* IP total length (header + payload) */
	/* TCP only */
	bool is_tcp;
	uint32_t seq, ack;
	uint8_t tcp_flags;     /* FIN 0x01 SYN 0x02 RST 0x04 PSH 0x08 ACK 0x10 URG 0x20 ECE 0x40 CWR 0x80 */
	uint16_t window;       /* raw, unscaled */
	int8_t wscale;         /* -1 when the segment has no window-scale option */
	uint32_t payload_len;  /* TCP payload bytes per the IP length */
	bool has_ts;
	uint32_t ts_val, ts_ecr;
	uint8_t n_sack;        /* the arrays hold n_sack blocks; the rest is not set */
	uint32_t sack_left[TCP_MAX_SACK], sack_right[TCP_MAX_SACK];
};

#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_ACK 0x10

/* What the capture loop (capture.c) counts for the summary's "capture". */
struct capture_info {
	int dlt;
	const char *link_name;   /* "EN10MB", "LINUX_SLL", ... */
	uint64_t packets;
	uint64_t bytes;          /* sum of wire lengths */
	double first_ts, last_ts;
	uint64_t malformed[MAL_REASONS];
	/* live captures: libpcap's counters at the end */
	bool have_drops;
	uint64_t pcap_received, pcap_dropped, pcap_if_dropped;
};

#endif /* AVMON_PACKET_H */
