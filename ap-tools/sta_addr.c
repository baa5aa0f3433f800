// SPDX-License-Identifier: GPL-2.0
/*
 * sta_addr.c - the station argument of apqos (MAC, IPv4 or IPv6 address):
 * parsing, comparison, formatting. Owns nothing else.
 */
#include "sta_addr.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int sta_addr_parse_mac(const char *text, uint8_t mac[6])
{
	uint8_t out[6];
	int i;

	/* exactly aa:bb:cc:dd:ee:ff: 17 characters, two hex digits an octet */
	if (!text || strlen(text) != 17)
		return -1;
	for (i = 0; i < 6; i++) {
		const char *p = text + 3 * i;
		int hi = hexval(p[0]), lo = hexval(p[1]);

		if (hi < 0 || lo < 0 || (i < 5 && p[2] != ':'))
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	memcpy(mac, out, sizeof(out));
	return 0;
}

int sta_addr_parse(const char *text, struct sta_addr *out)
{
	struct sta_addr a;

	if (!text || !out || !*text)
		return -1;
	memset(&a, 0, sizeof(a));
	if (sta_addr_parse_mac(text, a.mac) == 0) {
		a.kind = STA_MAC;
	} else if (inet_pton(AF_INET, text, &a.v4) == 1) {
		a.kind = STA_IPV4;
	} else if (inet_pton(AF_INET6, text, &a.v6) == 1) {
		a.kind = STA_IPV6;
	} else {
		return -1;
	}
	*out = a;
	return 0;
}

int sta_addr_equal(const struct sta_addr *a, const struct sta_addr *b)
{
	if (a->kind != b->kind)
		return 0;
	switch (a->kind) {
	case STA_MAC: return memcmp(a->mac, b->mac, 6) == 0;
	case STA_IPV4: return a->v4.s_addr == b->v4.s_addr;
	case STA_IPV6: return memcmp(&a->v6, &b->v6, sizeof(a->v6)) == 0;
	default: return 1;
	}
}

char *sta_addr_format_mac(const uint8_t mac[6], char *buf, size_t len)
{
	snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
	return buf;
}

char *sta_addr_format(const struct sta_addr *a, char *buf, size_t len)
{
	if (!len)
		return buf;
	buf[0] = '\0';
	switch (a->kind) {
	case STA_MAC:
		sta_addr_format_mac(a->mac, buf, len);
		break;
	case STA_IPV4:
		if (!inet_ntop(AF_INET, &a->v4, buf, (socklen_t)len))
			buf[0] = '\0';
		break;
	case STA_IPV6:
		if (!inet_ntop(AF_INET6, &a->v6, buf, (socklen_t)len))
			buf[0] = '\0';
		break;
	default:
		snprintf(buf, len, "-");
		break;
	}
	return buf;
}

const char *sta_kind_name(enum sta_kind kind)
{
	switch (kind) {
	case STA_MAC: return "mac";
	case STA_IPV4: return "ipv4";
	case STA_IPV6: return "ipv6";
	default: return "none";
	}
}
