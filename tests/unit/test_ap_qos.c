// SPDX-License-Identifier: GPL-2.0
/* test_ap_qos.c - apqos's pure parts: the STA argument (MAC, IPv4, IPv6),
 * rates (libtcpav's iperf3 forms and tc's "mbit" forms, bounds), HTB's
 * bytes/s, class-id allocation, the default class's rate, the u32 keys of
 * a station and back, airtime weights, handle formatting. */
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <string.h>

#include "check.h"
#include "qos.h"
#include "sta_addr.h"

static int mac_is(const char *text, const uint8_t want[6])
{
	struct sta_addr a;

	return sta_addr_parse(text, &a) == 0 && a.kind == STA_MAC && memcmp(a.mac, want, 6) == 0;
}

static int rejected(const char *text)
{
	struct sta_addr a;

	memset(&a, 0x5a, sizeof(a));
	a.kind = (enum sta_kind)99;
	return sta_addr_parse(text, &a) == -1 && a.kind == (enum sta_kind)99;
}

static int rate_is(const char *text, uint64_t want)
{
	uint64_t v = 0;

	return qos_parse_rate(text, &v) == 0 && v == want;
}

static int rate_bad(const char *text)
{
	uint64_t v = 42;

	return qos_parse_rate(text, &v) == -1 && v == 42;
}

static int roundtrip(const char *text)
{
	struct qos_u32_key keys[QOS_MAX_KEYS];
	struct sta_addr a, b;
	uint16_t proto = 0;
	int n;

	if (sta_addr_parse(text, &a) < 0)
		return 0;
	n = qos_sta_keys(&a, keys, &proto);
	return n > 0 && qos_sta_from_keys(keys, n, proto, &b) == 0 && sta_addr_equal(&a, &b);
}

int main(void)
{
	static const uint8_t m1[6] = {0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};
	static const uint8_t m2[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
	struct qos_u32_key keys[QOS_MAX_KEYS];
	struct sta_addr a, b;
	char buf[STA_ADDR_STRLEN], h[16];
	uint16_t proto = 0;
	unsigned used[8], w = 0;
	int n;

	/* MAC addresses */
	CHECK(mac_is("aa:bb:cc:dd:ee:ff", m1), "lower-case MAC");
	CHECK(mac_is("AA:BB:CC:DD:EE:FF", m1), "upper-case MAC");
	CHECK(mac_is("aA:Bb:cC:Dd:eE:fF", m1), "mixed-case MAC");
	CHECK(mac_is("02:00:00:00:00:01", m2), "02:00:00:00:00:01");
	CHECK(rejected("aa:bb:cc:dd:ee"), "too short (5 octets)");
	CHECK(rejected("aa:bb:cc:dd:ee:f"), "too short (last octet one digit)");
	CHECK(rejected("a:b:c:d:e:f"), "one-digit octets");
	CHECK(rejected("aa:bb:cc:dd:ee:gg"), "bad hex");
	CHECK(rejected("aa:bb:cc:dd:ee:ff:00"), "7 octets");
	CHECK(rejected("aa-bb-cc-dd-ee-ff"), "dashes");
	CHECK(rejected("aabb.ccdd.eeff"), "dotted Cisco form");
	CHECK(rejected("aa:bb:cc:dd:ee:ff "), "trailing space");
	CHECK(rejected(" aa:bb:cc:dd:ee:ff"), "leading space");
	CHECK(rejected("aa:bb:cc:dd:eeff:"), "misplaced colon");
	CHECK(rejected(""), "empty");
	CHECK(rejected(NULL), "NULL");
	CHECK(sta_addr_parse_mac("aa:bb:cc:dd:ee:ff", a.mac) == 0 && memcmp(a.mac, m1, 6) == 0,
	      "sta_addr_parse_mac");
	CHECK(sta_addr_parse_mac("10.0.0.1", a.mac) == -1, "sta_addr_parse_mac rejects an IP");

	/* IPv4, IPv6 */
	CHECK(sta_addr_parse("10.0.0.2", &a) == 0 && a.kind == STA_IPV4 &&
		      a.v4.s_addr == htonl(0x0a000002), "IPv4");
	CHECK(rejected("10.0.0.300"), "IPv4 octet 300");
	CHECK(rejected("10.0.0"), "IPv4 with 3 parts");
	CHECK(rejected("10.0.0.2/24"), "IPv4 prefix");
	CHECK(sta_addr_parse("2001:db8::2", &a) == 0 && a.kind == STA_IPV6 && a.v6.s6_addr[0] == 0x20 &&
		      a.v6.s6_addr[15] == 2, "IPv6");
	CHECK(sta_addr_parse("::ffff:10.0.0.2", &a) == 0 && a.kind == STA_IPV6, "IPv4-mapped IPv6");
	CHECK(sta_addr_parse("fe80::1", &a) == 0 && a.kind == STA_IPV6, "link-local IPv6");
	CHECK(rejected("2001:db8::g"), "IPv6 bad hex");
	CHECK(rejected("2001:db8:::2"), "IPv6 triple colon");
	CHECK(rejected("laptop"), "a host name");

	/* formatting and equality */
	sta_addr_parse("AA:BB:CC:DD:EE:FF", &a);
	CHECK(strcmp(sta_addr_format(&a, buf, sizeof(buf)), "aa:bb:cc:dd:ee:ff") == 0,
	      "MAC formatted lower case: %s", buf);
	sta_addr_parse("2001:0db8:0000::0002", &b);
	CHECK(strcmp(sta_addr_format(&b, buf, sizeof(buf)), "2001:db8::2") == 0, "IPv6 canonical: %s", buf);
	CHECK(!sta_addr_equal(&a, &b), "MAC != IPv6");
	sta_addr_parse("aa:bb:cc:dd:ee:ff", &b);
	CHECK(sta_addr_equal(&a, &b), "MAC equal across case");
	CHECK(strcmp(sta_kind_name(STA_IPV4), "ipv4") == 0, "kind name");

	/* rates */
	CHECK(rate_is("15M", 15000000), "15M");
	CHECK(rate_is("15m", 15000000), "15m");
	CHECK(rate_is("15mbit", 15000000), "15mbit (tc)");
	CHECK(rate_is("15Mbit", 15000000), "15Mbit (tc)");
	CHECK(rate_is("500kbit", 500000), "500kbit");
	CHECK(rate_is("1.5G", 1500000000), "1.5G");
	CHECK(rate_is("1gbit", 1000000000), "1gbit");
	CHECK(rate_is("800bit", 800), "800bit");
	CHECK(rate_is("250000", 250000), "plain bits/s");
	CHECK(rate_is("8", 8), "8 bit/s, the least (1 byte/s)");
	CHECK(rate_is("34.3G", 34300000000ull), "34.3G, near the most");
	CHECK(rate_bad("34.4G"), "34.4G: above HTB's 32-bit bytes/s");
	CHECK(rate_bad("7"), "7 bit/s: below one byte/s");
	CHECK(rate_bad("0"), "0");
	CHECK(rate_bad("-5M"), "negative");
	CHECK(rate_bad("fast"), "fast");
	CHECK(rate_bad("15 M"), "inner space");
	CHECK(rate_bad("15mbps"), "15mbps (tc: bytes per second) is not taken");
	CHECK(rate_bad("15MB"), "15MB");
	CHECK(rate_bad("bit"), "bit alone");
	CHECK(rate_bad("mbit"), "mbit alone");
	CHECK(rate_bad("15Mbitbit"), "15Mbitbit");
	CHECK(rate_bad(""), "empty");
	CHECK(rate_bad("99999999999999999999999"), "overflow");
	CHECK(qos_rate_bytes(15000000) == 1875000, "15M = 1875000 bytes/s");
	CHECK(qos_rate_bytes(8) == 1 && qos_rate_bytes(1) == 1, "at least 1 byte/s");
	CHECK(qos_rate_bytes(12) == 2, "12 bit/s rounds to 2 bytes/s");
	CHECK(strcmp(qos_format_rate(15000000, buf, sizeof(buf)), "15 Mbit/s") == 0, "format: %s", buf);

	/* the default class's rate */
	CHECK(qos_default_rate(30000000, 15000000) == 15000000, "30M - 15M");
	CHECK(qos_default_rate(30000000, 0) == 30000000, "no guarantees: all of it");
	CHECK(qos_default_rate(30000000, 30000000) == 300000, "all guaranteed: 1 %% floor");
	CHECK(qos_default_rate(30000000, 29900000) == 300000, "under the floor: the floor");
	CHECK(qos_default_rate(100, 100) == 8, "floor at least 8 bit/s");

	/* class ids */
	CHECK(qos_alloc_minor(NULL, 0) == 0x10, "first station id 1:10");
	used[0] = 0x10; used[1] = 0x11; used[2] = 0x13;
	CHECK(qos_alloc_minor(used, 3) == 0x12, "lowest free: 1:12");
	used[0] = 0x1; used[1] = 0xfffe; used[2] = 0x10; used[3] = 0x10; used[4] = 0x11;
	CHECK(qos_alloc_minor(used, 5) == 0x12, "root, default and duplicates ignored");
	used[0] = 0x12; used[1] = 0x11; used[2] = 0x10;
	CHECK(qos_alloc_minor(used, 3) == 0x13, "unsorted");
	CHECK(strcmp(qos_format_handle(QOS_HANDLE(0x10), h, sizeof(h)), "1:10") == 0, "1:10");
	CHECK(strcmp(qos_format_handle(QOS_HANDLE(QOS_DEFAULT_MINOR), h, sizeof(h)), "1:fffe") == 0, "1:fffe");
	CHECK(strcmp(qos_format_handle(QOS_HANDLE(0), h, sizeof(h)), "1:") == 0, "1:");

	/* u32 keys */
	sta_addr_parse("aa:bb:cc:dd:ee:ff", &a);
	n = qos_sta_keys(&a, keys, &proto);
	CHECK(n == 2 && proto == ETH_P_ALL, "MAC: 2 keys, protocol all");
	CHECK(keys[0].off == -16 && ntohl(keys[0].val) == 0xaabb && ntohl(keys[0].mask) == 0xffff,
	      "MAC key 1: 0000aabb/0000ffff at -16 (as tc prints it)");
	CHECK(keys[1].off == -12 && ntohl(keys[1].val) == 0xccddeeff && keys[1].mask == 0xffffffff,
	      "MAC key 2: ccddeeff/ffffffff at -12");
	sta_addr_parse("10.87.3.2", &a);
	n = qos_sta_keys(&a, keys, &proto);
	CHECK(n == 1 && proto == ETH_P_IP && keys[0].off == 16 && ntohl(keys[0].val) == 0x0a570302,
	      "IPv4: destination address at 16");
	sta_addr_parse("2001:db8::2", &a);
	n = qos_sta_keys(&a, keys, &proto);
	CHECK(n == 4 && proto == ETH_P_IPV6 && keys[0].off == 24 && keys[3].off == 36 &&
		      ntohl(keys[0].val) == 0x20010db8 && ntohl(keys[3].val) == 2,
	      "IPv6: destination address at 24..36");
	CHECK(roundtrip("02:a3:00:00:00:01"), "MAC keys round trip");
	CHECK(roundtrip("10.0.0.1"), "IPv4 keys round trip");
	CHECK(roundtrip("fe80::1:2:3:4"), "IPv6 keys round trip");
	sta_addr_parse("10.0.0.1", &a);
	n = qos_sta_keys(&a, keys, &proto);
	CHECK(qos_sta_from_keys(keys, n, ETH_P_IPV6, &b) == -1, "keys with the wrong protocol: not a station");
	keys[0].mask = htonl(0xffffff00);
	CHECK(qos_sta_from_keys(keys, n, ETH_P_IP, &b) == -1, "a /24 match: not a station filter of apqos");
	CHECK(qos_sta_from_keys(keys, 0, ETH_P_ALL, &b) == -1, "no keys");

	/* airtime weights */
	CHECK(qos_parse_weight("1", &w) == 0 && w == 1, "weight 1");
	CHECK(qos_parse_weight("65535", &w) == 0 && w == 65535, "weight 65535");
	CHECK(qos_parse_weight("256", &w) == 0 && w == 256, "weight 256");
	w = 7;
	CHECK(qos_parse_weight("0", &w) == -1 && w == 7, "weight 0");
	CHECK(qos_parse_weight("65536", &w) == -1, "weight 65536");
	CHECK(qos_parse_weight("-1", &w) == -1, "weight -1");
	CHECK(qos_parse_weight("+5", &w) == -1, "weight +5");
	CHECK(qos_parse_weight("10x", &w) == -1, "weight 10x");
	CHECK(qos_parse_weight("", &w) == -1, "weight empty");
	CHECK(qos_parse_weight("99999999999999999999", &w) == -1, "weight overflow");

	return check_done();
}
