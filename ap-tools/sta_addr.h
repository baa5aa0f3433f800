/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sta_addr.h - apqos's station argument: a MAC address (aa:bb:cc:dd:ee:ff)
 * or an IPv4/IPv6 address, parsed, compared and formatted. Pure: no
 * netlink, no system calls.
 */
#ifndef APTOOLS_STA_ADDR_H
#define APTOOLS_STA_ADDR_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

enum sta_kind {
	STA_NONE = 0,
	STA_MAC,  /* matched on the destination MAC of frames to the station */
	STA_IPV4, /* matched on the destination IPv4 address */
	STA_IPV6, /* matched on the destination IPv6 address */
};

struct sta_addr {
	enum sta_kind kind;
	uint8_t mac[6];
	struct in_addr v4;
	struct in6_addr v6;
};

/* Longest sta_addr_format() output, with the NUL (an IPv6 address). */
#define STA_ADDR_STRLEN 46

/*
 * Parses TEXT as a MAC address (aa:bb:cc:dd:ee:ff: six colon-separated
 * octets of two hex digits, either case), else an IPv4 address (dotted
 * quad), else an IPv6 address. 0, or -1 (nothing written to *out).
 */
int sta_addr_parse(const char *text, struct sta_addr *out);

/* Parses only the MAC form (for nl80211's station commands). 0 or -1. */
int sta_addr_parse_mac(const char *text, uint8_t mac[6]);

/* 1 if A and B are the same station address, else 0. */
int sta_addr_equal(const struct sta_addr *a, const struct sta_addr *b);

/* "aa:bb:cc:dd:ee:ff" (lower case), "10.0.0.1", "2001:db8::1"; returns buf. */
char *sta_addr_format(const struct sta_addr *a, char *buf, size_t len);
/* "aa:bb:cc:dd:ee:ff" (lower case), for MACs that come without a sta_addr
 * (nl80211 replies) */
char *sta_addr_format_mac(const uint8_t mac[6], char *buf, size_t len);

/* "mac", "ipv4", "ipv6" */
const char *sta_kind_name(enum sta_kind kind);

#endif /* APTOOLS_STA_ADDR_H */
