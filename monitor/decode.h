/* SPDX-License-Identifier: GPL-2.0 */
/*
 * decode.h - avmon's link-layer and IP decoders (docs/design.md §4.1).
 *
 * Callers (capture.c, the analysis) use three functions:
 *
 *   lt = link_type_find(pcap_datalink(p));       NULL: not a link type avmon reads
 *   frame_decode(lt, ts, data, caplen, wirelen, &f);
 *   for (i = 0; i < f.n_ip; i++)
 *           reason = ip_decode(&f.ip[i], &pkt);   MAL_NONE: pkt is filled
 *
 * frame_decode() never reads past caplen. It sets f.malformed to the first
 * problem met; what was decoded before that problem stays in f (e.g.
 * f.wlan.present with its airtime when only the 802.11 body is cut short,
 * or the A-MSDU subframes before a bad one). A frame that is valid but
 * carries no IPv4/IPv6 (ARP, EAPOL, beacons, encrypted 802.11 data, a GRE
 * tunnel behind Ethernet) has f.n_ip == 0 and f.malformed == MAL_NONE.
 * frame_decode() does not look inside the IP slices: ip_decode() does, and
 * its reason is counted separately by the caller.
 *
 * The second half of this file is the interface between the decoders
 * themselves (one per link type, behind the table in decode.c); callers
 * need not use it.
 */
#ifndef AVMON_DECODE_H
#define AVMON_DECODE_H

#include <stdbool.h>
#include <stdint.h>

#include <net/ethernet.h> /* ETHERTYPE_IP, ETHERTYPE_IPV6, ETHERTYPE_VLAN */

#include "cursor.h"
#include "packet.h"

/* How the caller asked for the frame to be decoded. */
struct decode_context {
	bool airtime_with_ack; /* see frame_decode_airtime() */
};

struct link_type {
	int dlt;          /* DLT_ value as pcap_datalink() returns it */
	const char *name; /* "EN10MB", "LINUX_SLL", ... as pcap_datalink_val_to_name() */
	/* Decode one frame from the cursor into f (zeroed, ts/lengths/dlt set). */
	enum malformed_reason (*decode)(struct frame *f, struct cursor *c,
					const struct decode_context *ctx);
};

/* The decoder for a DLT, or NULL when avmon does not read that link type.
 * Raw IP answers for 12 and 14 (DLT_RAW differs between platforms; libpcap
 * maps LINKTYPE_RAW 101 in files to its own DLT_RAW) and for 101 itself. */
const struct link_type *link_type_find(int dlt);

/* Zeroes and fills f from one captured frame. lt NULL gives MAL_UNSUPPORTED. */
void frame_decode(const struct link_type *lt, double ts, const uint8_t *data, uint32_t caplen,
		  uint32_t wirelen, struct frame *f);

/* The same with the airtime model's choice spelled out: with_ack false
 * leaves SIFS + ACK/BlockAck out of f->wlan.airtime_us (what tshark's
 * wlan_radio.duration measures). frame_decode() counts them. */
void frame_decode_airtime(const struct link_type *lt, double ts, const uint8_t *data, uint32_t caplen,
			  uint32_t wirelen, bool with_ack, struct frame *f);

/* IPv4/IPv6 (IPv6 extension headers hop-by-hop, routing, destination
 * options, mobility, HIP, shim6, AH and the first fragment's fragment
 * header are skipped), then TCP with MSS/WS/SACK/TS options or UDP ports.
 * Lengths come from the IP header, not the frame (Ethernet padding, snaplen):
 * a capture cut after the TCP header still decodes, with payload_len from
 * the IP total/payload length. Returns MAL_NONE when p is fully decoded;
 * otherwise the fields decoded before the problem are left in p. */
enum malformed_reason ip_decode(const struct ip_slice *s, struct ip_packet *p);

/* ---- between the decoders ---------------------------------------------- */

/* Facts from the radiotap header that struct radio_info does not carry but
 * the 802.11 decoder needs. */
struct radiotap_extra {
	bool data_pad;         /* flags 0x20: 802.11 header padded to 4 bytes */
	bool ampdu_last_known; /* A-MPDU status flags 0x04 */
	bool ampdu_last;       /* A-MPDU status flags 0x08: last subframe */
};

/* One per link type (ether.c, sll.c, raw.c, radiotap.c, ieee80211.c). */
enum malformed_reason ether_decode(struct frame *f, struct cursor *c, const struct decode_context *ctx);
enum malformed_reason sll_decode(struct frame *f, struct cursor *c, const struct decode_context *ctx);
enum malformed_reason sll2_decode(struct frame *f, struct cursor *c, const struct decode_context *ctx);
enum malformed_reason raw_decode(struct frame *f, struct cursor *c, const struct decode_context *ctx);
enum malformed_reason raw_ipv4_decode(struct frame *f, struct cursor *c, const struct decode_context *ctx);
enum malformed_reason raw_ipv6_decode(struct frame *f, struct cursor *c, const struct decode_context *ctx);
enum malformed_reason ieee80211_decode(struct frame *f, struct cursor *c, const struct decode_context *ctx);
enum malformed_reason radiotap_decode(struct frame *f, struct cursor *c, const struct decode_context *ctx);

/* An 802.11 frame behind radiotap: f->radio filled, x as radiotap said. */
enum malformed_reason ieee80211_decode_radio(struct frame *f, struct cursor *c,
					     const struct decode_context *ctx,
					     const struct radiotap_extra *x);

/* What follows an ethertype (ether.c): 802.1Q/802.1ad tags, then an IP
 * slice for IPv4/IPv6; other ethertypes are valid and carry no slice. */
enum malformed_reason ethertype_decode(struct frame *f, struct cursor *c, uint16_t ethertype);

/* An 802.2 LLC header, and the ethertype behind RFC 1042 / 802.1H SNAP. */
enum malformed_reason llc_decode(struct frame *f, struct cursor *c);

/* Hand the rest of the cursor up as an IPv4/IPv6 payload (decode.c).
 * Extra payloads past FRAME_MAX_IP are dropped. */
void frame_add_ip(struct frame *f, const struct cursor *c, uint16_t ethertype);

#endif /* AVMON_DECODE_H */
