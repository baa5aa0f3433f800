// SPDX-License-Identifier: GPL-2.0
/*
 * test_ap_sta_info.c - apstat's nl80211 side without a kernel: real
 * NL80211_CMD_NEW_STATION messages built with libnl and fed to the parser
 * the live dump uses (sta_info_parse), the PHY rate arithmetic against
 * the standard's table values, malformed and truncated messages, the
 * interval arithmetic (station_table.c), the report's missing values, and
 * the SET_STATION airtime-weight message (parsed back).
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/nl80211.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "nl80211.h"
#include "sta_info.h"
#include "sta_report.h"
#include "station_table.h"
#include "check.h"

#define FAKE_FAMILY 0x1c /* any id: nothing is sent */

static const uint8_t MAC_A[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x0a};
static const uint8_t MAC_B[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x0b};
static const uint8_t MAC_C[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x0c};
static const uint8_t MAC_D[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x0d};

static int near(double got, double want, double tol)
{
	return fabs(got - want) <= tol;
}

/* A NEW_STATION reply as the kernel sends one in a dump, with the
 * STA_INFO nest opened for the caller (MAC may be NULL: left out). */
static struct nl_msg *station_msg_begin(const uint8_t *mac, uint8_t cmd, struct nlattr **sinfo)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg || !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, FAKE_FAMILY, 0, NLM_F_MULTI, cmd, 0))
		abort();
	if (nla_put_u32(msg, NL80211_ATTR_IFINDEX, 7) < 0)
		abort();
	if (mac && nla_put(msg, NL80211_ATTR_MAC, 6, mac) < 0)
		abort();
	*sinfo = nla_nest_start(msg, NL80211_ATTR_STA_INFO);
	if (!*sinfo)
		abort();
	return msg;
}

/* Puts a TX/RX_BITRATE nest of (attribute, value) pairs ending with 0;
 * flags take any value, BITRATE is u16, BITRATE32 u32, the rest u8. */
static void put_rate_va(struct nl_msg *msg, int type, va_list ap)
{
	struct nlattr *nest = nla_nest_start(msg, type);
	int attr;

	while ((attr = va_arg(ap, int)) != 0) {
		int v = va_arg(ap, int);

		switch (attr) {
		case NL80211_RATE_INFO_BITRATE: nla_put_u16(msg, attr, (uint16_t)v); break;
		case NL80211_RATE_INFO_BITRATE32: nla_put_u32(msg, attr, (uint32_t)v); break;
		case NL80211_RATE_INFO_40_MHZ_WIDTH:
		case NL80211_RATE_INFO_80_MHZ_WIDTH:
		case NL80211_RATE_INFO_80P80_MHZ_WIDTH:
		case NL80211_RATE_INFO_160_MHZ_WIDTH:
		case NL80211_RATE_INFO_SHORT_GI: nla_put_flag(msg, attr); break;
		default: nla_put_u8(msg, attr, (uint8_t)v); break;
		}
	}
	nla_nest_end_keep_empty(msg, nest); /* nla_nest_end() drops an empty nest */
}

static void put_rate(struct nl_msg *msg, int type, ...)
{
	va_list ap;

	va_start(ap, type);
	put_rate_va(msg, type, ap);
	va_end(ap);
}

/* The tx rate of a station message holding only that nest. */
static int tx_rate_of(struct sta_rate *out, ...)
{
	struct nlattr *sinfo;
	struct nl_msg *msg = station_msg_begin(MAC_A, NL80211_CMD_NEW_STATION, &sinfo);
	struct station_info s;
	va_list ap;
	int rc;

	va_start(ap, out);
	put_rate_va(msg, NL80211_STA_INFO_TX_BITRATE, ap);
	va_end(ap);
	nla_nest_end(msg, sinfo);
	rc = sta_info_parse(msg, &s);
	nlmsg_free(msg);
	if (rc == 0) {
		if (!sta_has(&s, SI_TX_BITRATE) || sta_has(&s, SI_RX_BITRATE))
			return -1000;
		*out = s.tx_rate;
	}
	return rc;
}

/* Parses MSG into a station pre-filled with a pattern; on error, checks
 * that nothing was written. Frees MSG. */
static int parse_untouched(struct nl_msg *msg, int *untouched)
{
	struct station_info s, pattern;
	int rc;

	memset(&pattern, 0xa5, sizeof(pattern));
	s = pattern;
	rc = sta_info_parse(msg, &s);
	*untouched = memcmp(&s, &pattern, sizeof(s)) == 0;
	nlmsg_free(msg);
	return rc;
}

static void test_full_station(void)
{
	struct nlattr *sinfo;
	struct nl_msg *msg = station_msg_begin(MAC_A, NL80211_CMD_NEW_STATION, &sinfo);
	struct station_info s;
	int rc;

	nla_put_u32(msg, NL80211_STA_INFO_INACTIVE_TIME, 120);
	nla_put_u32(msg, NL80211_STA_INFO_RX_BYTES, 1234);             /* 32-bit: ignored for the 64-bit one */
	nla_put_u64(msg, NL80211_STA_INFO_RX_BYTES64, 5000000000ull); /* beyond 2^32 */
	nla_put_u32(msg, NL80211_STA_INFO_TX_BYTES, 0x12345678u);
	nla_put_u64(msg, NL80211_STA_INFO_TX_BYTES64, 0x100000000ull + 7);
	nla_put_u32(msg, NL80211_STA_INFO_RX_PACKETS, 4000000000u);
	nla_put_u32(msg, NL80211_STA_INFO_TX_PACKETS, 300);
	nla_put_u32(msg, NL80211_STA_INFO_TX_RETRIES, 30);
	nla_put_u32(msg, NL80211_STA_INFO_TX_FAILED, 2);
	nla_put_u8(msg, NL80211_STA_INFO_SIGNAL, (uint8_t)-42);
	nla_put_u8(msg, NL80211_STA_INFO_SIGNAL_AVG, (uint8_t)-45);
	put_rate(msg, NL80211_STA_INFO_TX_BITRATE, NL80211_RATE_INFO_BITRATE, 540, 0);
	put_rate(msg, NL80211_STA_INFO_RX_BITRATE, NL80211_RATE_INFO_MCS, 7, 0);
	nla_put_u32(msg, NL80211_STA_INFO_CONNECTED_TIME, 3600);
	nla_put_u64(msg, NL80211_STA_INFO_RX_DURATION, 123456789012ull);
	nla_put_u64(msg, NL80211_STA_INFO_TX_DURATION, 98765ull);
	nla_put_u16(msg, NL80211_STA_INFO_AIRTIME_WEIGHT, 256);
	nla_nest_end(msg, sinfo);

	rc = sta_info_parse(msg, &s);
	nlmsg_free(msg);
	CHECK(rc == 0, "a full NEW_STATION message parses (rc %d: %s)", rc, nl_geterror(rc));
	CHECK(memcmp(s.mac, MAC_A, 6) == 0, "MAC from NL80211_ATTR_MAC");
	CHECK(sta_has(&s, SI_IFINDEX) && s.ifindex == 7, "ifindex 7");
	CHECK(sta_has(&s, SI_RX_BYTES) && s.rx_bytes == 5000000000ull && s.rx_bytes64,
	      "rx bytes from RX_BYTES64, beyond 2^32 (%llu)", (unsigned long long)s.rx_bytes);
	CHECK(sta_has(&s, SI_TX_BYTES) && s.tx_bytes == 0x100000007ull && s.tx_bytes64,
	      "tx bytes: TX_BYTES64 preferred over TX_BYTES");
	CHECK(sta_has(&s, SI_RX_PACKETS) && s.rx_packets == 4000000000u, "rx packets 4e9 (u32)");
	CHECK(sta_has(&s, SI_TX_PACKETS) && s.tx_packets == 300, "tx packets");
	CHECK(sta_has(&s, SI_TX_RETRIES) && s.tx_retries == 30, "tx retries");
	CHECK(sta_has(&s, SI_TX_FAILED) && s.tx_failed == 2, "tx failed");
	CHECK(sta_has(&s, SI_SIGNAL) && s.signal_dbm == -42, "signal -42 dBm (s8 in a u8)");
	CHECK(sta_has(&s, SI_SIGNAL_AVG) && s.signal_avg_dbm == -45, "signal avg -45 dBm");
	CHECK(sta_has(&s, SI_TX_BITRATE) && s.tx_rate.kbps_present && s.tx_rate.kbps == 54000 && !s.tx_rate.computed &&
		      s.tx_rate.mode == STA_RATE_LEGACY,
	      "tx bitrate: legacy BITRATE 540 = 54 Mbit/s, the kernel's");
	CHECK(sta_has(&s, SI_RX_BITRATE) && s.rx_rate.mode == STA_RATE_HT && s.rx_rate.kbps == 65000 &&
		      s.rx_rate.computed,
	      "rx bitrate: HT MCS 7 with no BITRATE computed as 65 Mbit/s");
	CHECK(sta_has(&s, SI_CONNECTED_TIME) && s.connected_s == 3600, "connected 3600 s");
	CHECK(sta_has(&s, SI_INACTIVE_TIME) && s.inactive_ms == 120, "inactive 120 ms");
	CHECK(sta_has(&s, SI_RX_DURATION) && s.rx_duration_us == 123456789012ull, "rx duration (u64 us)");
	CHECK(sta_has(&s, SI_TX_DURATION) && s.tx_duration_us == 98765ull, "tx duration");
	CHECK(sta_has(&s, SI_AIRTIME_WEIGHT) && s.airtime_weight == 256, "airtime weight 256");
}

static void test_fallbacks_and_missing(void)
{
	struct nlattr *sinfo;
	struct nl_msg *msg = station_msg_begin(MAC_B, NL80211_CMD_NEW_STATION, &sinfo);
	struct station_info s;
	int rc;

	nla_put_u32(msg, NL80211_STA_INFO_RX_BYTES, 0xfffffff0u);
	nla_put_u32(msg, NL80211_STA_INFO_TX_BYTES, 99);
	nla_nest_end(msg, sinfo);
	rc = sta_info_parse(msg, &s);
	nlmsg_free(msg);
	CHECK(rc == 0, "a station with only the 32-bit byte counters parses");
	CHECK(sta_has(&s, SI_RX_BYTES) && s.rx_bytes == 0xfffffff0u && !s.rx_bytes64, "rx bytes from RX_BYTES (32-bit)");
	CHECK(sta_has(&s, SI_TX_BYTES) && s.tx_bytes == 99 && !s.tx_bytes64, "tx bytes from TX_BYTES (32-bit)");
	CHECK(s.present == ((1u << SI_IFINDEX) | (1u << SI_RX_BYTES) | (1u << SI_TX_BYTES)),
	      "everything else is reported missing (present 0x%x)", s.present);
	CHECK(!sta_has(&s, SI_SIGNAL) && !sta_has(&s, SI_TX_BITRATE) && !sta_has(&s, SI_AIRTIME_WEIGHT) &&
		      !sta_has(&s, SI_TX_DURATION),
	      "signal, bitrate, weight, airtime: missing, not 0");

	msg = station_msg_begin(MAC_B, NL80211_CMD_NEW_STATION, &sinfo);
	nla_nest_end_keep_empty(msg, sinfo);
	rc = sta_info_parse(msg, &s);
	nlmsg_free(msg);
	CHECK(rc == 0 && s.present == (1u << SI_IFINDEX), "an empty STA_INFO: a station with nothing reported");
}

/* The rate arithmetic: the standard's (and iw's) table values. */
static void test_rates(void)
{
	struct sta_rate r;
	int rc;

	rc = tx_rate_of(&r, NL80211_RATE_INFO_BITRATE, 10, 0);
	CHECK(rc == 0 && r.mode == STA_RATE_LEGACY && r.kbps_present && r.kbps == 1000 && !r.computed,
	      "legacy 1 Mbit/s (BITRATE 10)");
	rc = tx_rate_of(&r, NL80211_RATE_INFO_BITRATE, 0, 0);
	CHECK(rc == 0 && !r.kbps_present, "legacy BITRATE 0 (kernel could not compute): rate missing");
	rc = tx_rate_of(&r, 0);
	CHECK(rc == 0 && !r.kbps_present && r.mode == STA_RATE_LEGACY, "an empty bitrate nest: rate missing");

	rc = tx_rate_of(&r, NL80211_RATE_INFO_MCS, 7, 0);
	CHECK(rc == 0 && r.computed && r.kbps == 65000 && r.nss == 1 && r.width_mhz == 20 && !r.short_gi,
	      "HT MCS 7 20 MHz long GI = 65.0 Mbit/s (got %u kbit/s)", r.kbps);
	rc = tx_rate_of(&r, NL80211_RATE_INFO_MCS, 7, NL80211_RATE_INFO_SHORT_GI, 1, 0);
	CHECK(rc == 0 && r.short_gi && r.kbps == 72222, "HT MCS 7 20 MHz short GI = 72.2 Mbit/s (got %u)", r.kbps);
	rc = tx_rate_of(&r, NL80211_RATE_INFO_MCS, 15, NL80211_RATE_INFO_40_MHZ_WIDTH, 1, NL80211_RATE_INFO_SHORT_GI, 1,
			0);
	CHECK(rc == 0 && r.width_mhz == 40 && r.nss == 2 && r.kbps == 300000,
	      "HT MCS 15 40 MHz short GI = 300 Mbit/s (got %u)", r.kbps);
	rc = tx_rate_of(&r, NL80211_RATE_INFO_MCS, 7, NL80211_RATE_INFO_40_MHZ_WIDTH, 1, 0);
	CHECK(rc == 0 && r.kbps == 135000, "HT MCS 7 40 MHz long GI = 135 Mbit/s (got %u)", r.kbps);
	rc = tx_rate_of(&r, NL80211_RATE_INFO_MCS, 0, 0);
	CHECK(rc == 0 && r.kbps == 6500, "HT MCS 0 20 MHz = 6.5 Mbit/s (got %u)", r.kbps);
	rc = tx_rate_of(&r, NL80211_RATE_INFO_MCS, 31, NL80211_RATE_INFO_40_MHZ_WIDTH, 1, NL80211_RATE_INFO_SHORT_GI, 1,
			0);
	CHECK(rc == 0 && r.nss == 4 && r.kbps == 600000, "HT MCS 31 40 MHz short GI = 600 Mbit/s (got %u)", r.kbps);
	rc = tx_rate_of(&r, NL80211_RATE_INFO_MCS, 32, 0);
	CHECK(rc == 0 && !r.kbps_present, "HT MCS 32 (duplicate mode) is not computed: rate missing");
	rc = tx_rate_of(&r, NL80211_RATE_INFO_MCS, 7, NL80211_RATE_INFO_BITRATE, 650, NL80211_RATE_INFO_BITRATE32, 651,
			0);
	CHECK(rc == 0 && r.kbps == 65100 && !r.computed, "BITRATE32 preferred over BITRATE and the MCS");

	rc = tx_rate_of(&r, NL80211_RATE_INFO_VHT_MCS, 9, NL80211_RATE_INFO_VHT_NSS, 2, NL80211_RATE_INFO_80_MHZ_WIDTH, 1,
			NL80211_RATE_INFO_SHORT_GI, 1, 0);
	CHECK(rc == 0 && r.mode == STA_RATE_VHT && r.width_mhz == 80 && r.kbps == 866667 && r.computed,
	      "VHT MCS 9 NSS 2 80 MHz short GI = 866.7 Mbit/s (got %u)", r.kbps);
	rc = tx_rate_of(&r, NL80211_RATE_INFO_VHT_MCS, 9, NL80211_RATE_INFO_VHT_NSS, 1, NL80211_RATE_INFO_80_MHZ_WIDTH, 1,
			0);
	CHECK(rc == 0 && r.kbps == 390000, "VHT MCS 9 NSS 1 80 MHz long GI = 390 Mbit/s (got %u)", r.kbps);
	rc = tx_rate_of(&r, NL80211_RATE_INFO_VHT_MCS, 8, NL80211_RATE_INFO_VHT_NSS, 1, 0);
	CHECK(rc == 0 && r.kbps == 78000, "VHT MCS 8 NSS 1 20 MHz = 78 Mbit/s (got %u)", r.kbps);
	rc = tx_rate_of(&r, NL80211_RATE_INFO_VHT_MCS, 9, NL80211_RATE_INFO_VHT_NSS, 1, NL80211_RATE_INFO_160_MHZ_WIDTH,
			1, NL80211_RATE_INFO_SHORT_GI, 1, 0);
	CHECK(rc == 0 && r.width_mhz == 160 && r.kbps == 866667, "VHT MCS 9 NSS 1 160 MHz short GI = 866.7 Mbit/s");
	rc = tx_rate_of(&r, NL80211_RATE_INFO_VHT_MCS, 9, NL80211_RATE_INFO_VHT_NSS, 8, NL80211_RATE_INFO_80P80_MHZ_WIDTH,
			1, NL80211_RATE_INFO_SHORT_GI, 1, 0);
	CHECK(rc == 0 && r.width_mhz == 160 && r.width_80p80 && r.kbps == 6933333,
	      "VHT MCS 9 NSS 8 80+80 MHz short GI = 6933.3 Mbit/s (got %u)", r.kbps);
	rc = tx_rate_of(&r, NL80211_RATE_INFO_VHT_MCS, 7, NL80211_RATE_INFO_VHT_NSS, 0, 0);
	CHECK(rc == 0 && !r.kbps_present, "VHT with NSS 0: rate missing, not an error");
	rc = tx_rate_of(&r, NL80211_RATE_INFO_VHT_MCS, 10, NL80211_RATE_INFO_VHT_NSS, 1, 0);
	CHECK(rc == 0 && !r.kbps_present, "VHT MCS 10 (not VHT): rate missing");

	rc = tx_rate_of(&r, NL80211_RATE_INFO_HE_MCS, 11, NL80211_RATE_INFO_HE_NSS, 2, NL80211_RATE_INFO_80_MHZ_WIDTH, 1,
			NL80211_RATE_INFO_HE_GI, NL80211_RATE_INFO_HE_GI_0_8, 0);
	CHECK(rc == 0 && r.mode == STA_RATE_HE && r.computed && r.kbps == 1200980,
	      "HE MCS 11 NSS 2 80 MHz GI 0.8 = 1201 Mbit/s (got %u)", r.kbps);
	CHECK(near(r.kbps / 1000.0, 1201.0, 0.05), "... which is 1201.0 Mbit/s to one decimal");
	rc = tx_rate_of(&r, NL80211_RATE_INFO_HE_MCS, 0, NL80211_RATE_INFO_HE_NSS, 1, NL80211_RATE_INFO_HE_GI,
			NL80211_RATE_INFO_HE_GI_3_2, 0);
	CHECK(rc == 0 && r.kbps == 7313 && sta_rate_gi_ns(&r) == 3200,
	      "HE MCS 0 NSS 1 20 MHz GI 3.2 = 7.3 Mbit/s (got %u)", r.kbps);
	rc = tx_rate_of(&r, NL80211_RATE_INFO_HE_MCS, 11, NL80211_RATE_INFO_HE_NSS, 1, NL80211_RATE_INFO_HE_GI,
			NL80211_RATE_INFO_HE_GI_0_8, 0);
	CHECK(rc == 0 && r.kbps == 143382, "HE MCS 11 NSS 1 20 MHz GI 0.8 = 143.4 Mbit/s (got %u)", r.kbps);
	rc = tx_rate_of(&r, NL80211_RATE_INFO_HE_MCS, 7, NL80211_RATE_INFO_HE_NSS, 2, NL80211_RATE_INFO_160_MHZ_WIDTH, 1,
			NL80211_RATE_INFO_HE_GI, NL80211_RATE_INFO_HE_GI_1_6, 0);
	CHECK(rc == 0 && r.kbps == 1361111, "HE MCS 7 NSS 2 160 MHz GI 1.6 = 1361.1 Mbit/s (got %u)", r.kbps);
	rc = tx_rate_of(&r, NL80211_RATE_INFO_HE_MCS, 11, NL80211_RATE_INFO_HE_NSS, 8, NL80211_RATE_INFO_160_MHZ_WIDTH,
			1, NL80211_RATE_INFO_HE_GI, NL80211_RATE_INFO_HE_GI_0_8, 0);
	CHECK(rc == 0 && r.kbps == 9607843, "HE MCS 11 NSS 8 160 MHz GI 0.8 = 9607.8 Mbit/s (got %u)", r.kbps);
	rc = tx_rate_of(&r, NL80211_RATE_INFO_HE_MCS, 0, NL80211_RATE_INFO_HE_NSS, 1, NL80211_RATE_INFO_HE_GI,
			NL80211_RATE_INFO_HE_GI_0_8, NL80211_RATE_INFO_HE_DCM, 1, 0);
	CHECK(rc == 0 && r.he_dcm && r.kbps == 4301, "HE MCS 0 NSS 1 20 MHz GI 0.8 with DCM = 4.3 Mbit/s (got %u)",
	      r.kbps);
	rc = tx_rate_of(&r, NL80211_RATE_INFO_HE_MCS, 5, NL80211_RATE_INFO_HE_NSS, 1, NL80211_RATE_INFO_HE_GI,
			NL80211_RATE_INFO_HE_GI_0_8, NL80211_RATE_INFO_HE_RU_ALLOC, NL80211_RATE_INFO_HE_RU_ALLOC_106, 0);
	CHECK(rc == 0 && r.he_ru_present && r.kbps == 30000, "HE MCS 5 NSS 1 106-tone RU GI 0.8 = 30.0 Mbit/s (got %u)",
	      r.kbps);
	rc = tx_rate_of(&r, NL80211_RATE_INFO_HE_MCS, 11, NL80211_RATE_INFO_HE_NSS, 2, NL80211_RATE_INFO_80_MHZ_WIDTH, 1,
			NL80211_RATE_INFO_HE_GI, 0, NL80211_RATE_INFO_BITRATE32, 12000, 0);
	CHECK(rc == 0 && !r.computed && r.kbps == 1200000, "HE with BITRATE32: the kernel's 1200.0 Mbit/s is taken");
	rc = tx_rate_of(&r, NL80211_RATE_INFO_HE_MCS, 11, NL80211_RATE_INFO_HE_NSS, 2, NL80211_RATE_INFO_HE_GI, 3, 0);
	CHECK(rc == 0 && !r.kbps_present, "HE with an unknown GI (3): rate missing, not an error");
	rc = tx_rate_of(&r, NL80211_RATE_INFO_HE_MCS, 12, NL80211_RATE_INFO_HE_NSS, 1, 0);
	CHECK(rc == 0 && !r.kbps_present, "HE MCS 12 (EHT only): rate missing");
	rc = tx_rate_of(&r, NL80211_RATE_INFO_HE_MCS, 3, NL80211_RATE_INFO_HE_NSS, 9, 0);
	CHECK(rc == 0 && !r.kbps_present, "HE NSS 9: rate missing");

	/* the arithmetic directly, rounding to the nearest kbit/s */
	r = (struct sta_rate){.mode = STA_RATE_VHT, .mcs = 0, .nss = 1, .width_mhz = 20};
	{
		uint32_t kbps = 0;

		CHECK(sta_rate_compute_kbps(&r, &kbps) == 0 && kbps == 6500, "VHT MCS 0 NSS 1 20 MHz = 6.5 Mbit/s");
		r.mode = STA_RATE_LEGACY;
		CHECK(sta_rate_compute_kbps(&r, &kbps) == -1, "a legacy rate is not computed from an MCS");
		r = (struct sta_rate){.mode = STA_RATE_HT, .mcs = 7, .width_mhz = 80};
		CHECK(sta_rate_compute_kbps(&r, &kbps) == -1, "HT at 80 MHz does not exist: not computed");
	}
}

static void test_malformed(void)
{
	struct nlattr *sinfo, *nest;
	struct nl_msg *msg;
	int rc, untouched;
	uint8_t garbage[12];

	/* a u64 counter of 2 bytes */
	msg = station_msg_begin(MAC_A, NL80211_CMD_NEW_STATION, &sinfo);
	nla_put_u32(msg, NL80211_STA_INFO_RX_PACKETS, 5);
	nla_put(msg, NL80211_STA_INFO_RX_BYTES64, 2, "\x01\x02");
	nla_nest_end(msg, sinfo);
	rc = parse_untouched(msg, &untouched);
	CHECK(rc == -NLE_RANGE && untouched, "RX_BYTES64 of 2 bytes: -NLE_RANGE, nothing filled (rc %d)", rc);

	/* a u32 counter of 1 byte */
	msg = station_msg_begin(MAC_A, NL80211_CMD_NEW_STATION, &sinfo);
	nla_put(msg, NL80211_STA_INFO_TX_RETRIES, 1, "\x01");
	nla_nest_end(msg, sinfo);
	rc = parse_untouched(msg, &untouched);
	CHECK(rc < 0 && untouched, "TX_RETRIES of 1 byte: error, nothing filled");

	/* a bitrate nest whose payload is garbage */
	memset(garbage, 0xff, sizeof(garbage));
	msg = station_msg_begin(MAC_A, NL80211_CMD_NEW_STATION, &sinfo);
	nla_put_u8(msg, NL80211_STA_INFO_SIGNAL, 200);
	nla_put(msg, NL80211_STA_INFO_TX_BITRATE, sizeof(garbage), garbage);
	nla_nest_end(msg, sinfo);
	rc = parse_untouched(msg, &untouched);
	CHECK(rc < 0 && untouched, "a TX_BITRATE nest of 0xff garbage: error, nothing filled (rc %d)", rc);

	/* a bitrate nest of 3 bytes: shorter than any attribute */
	msg = station_msg_begin(MAC_A, NL80211_CMD_NEW_STATION, &sinfo);
	nla_put(msg, NL80211_STA_INFO_RX_BITRATE, 3, "abc");
	nla_nest_end(msg, sinfo);
	rc = parse_untouched(msg, &untouched);
	CHECK(rc < 0 && untouched, "a 3-byte RX_BITRATE nest: error (rc %d)", rc);

	/* a bitrate nest with BITRATE32 shorter than its policy */
	msg = station_msg_begin(MAC_A, NL80211_CMD_NEW_STATION, &sinfo);
	nest = nla_nest_start(msg, NL80211_STA_INFO_TX_BITRATE);
	nla_put(msg, NL80211_RATE_INFO_BITRATE32, 2, "\x10\x00");
	nla_nest_end(msg, nest);
	nla_nest_end(msg, sinfo);
	rc = parse_untouched(msg, &untouched);
	CHECK(rc == -NLE_RANGE && untouched, "BITRATE32 of 2 bytes in the nest: -NLE_RANGE (rc %d)", rc);

	/* HE_MCS with no payload */
	msg = station_msg_begin(MAC_A, NL80211_CMD_NEW_STATION, &sinfo);
	nest = nla_nest_start(msg, NL80211_STA_INFO_RX_BITRATE);
	nla_put(msg, NL80211_RATE_INFO_HE_MCS, 0, NULL);
	nla_nest_end(msg, nest);
	nla_nest_end(msg, sinfo);
	rc = parse_untouched(msg, &untouched);
	CHECK(rc == -NLE_RANGE && untouched, "an empty HE_MCS: -NLE_RANGE");

	/* STA_INFO that is not a nest: an attribute header claiming more than there is */
	{
		uint8_t bogus[8] = {200, 0, NL80211_STA_INFO_SIGNAL, 0, 1, 2, 3, 4};

		msg = station_msg_begin(MAC_A, NL80211_CMD_NEW_STATION, &sinfo);
		nla_nest_cancel(msg, sinfo);
		nla_put(msg, NL80211_ATTR_STA_INFO, sizeof(bogus), bogus);
		rc = parse_untouched(msg, &untouched);
		CHECK(rc < 0 && untouched, "STA_INFO holding an attribute of length 200 in 8 bytes: error (rc %d)", rc);
	}
	msg = station_msg_begin(MAC_A, NL80211_CMD_NEW_STATION, &sinfo);
	nla_nest_cancel(msg, sinfo);
	nla_put(msg, NL80211_ATTR_STA_INFO, 2, "\x01\x02");
	rc = parse_untouched(msg, &untouched);
	CHECK(rc < 0 && untouched, "a 2-byte STA_INFO: error (rc %d)", rc);

	/* missing or short MAC, missing STA_INFO, not NEW_STATION */
	msg = station_msg_begin(NULL, NL80211_CMD_NEW_STATION, &sinfo);
	nla_nest_end(msg, sinfo);
	rc = parse_untouched(msg, &untouched);
	CHECK(rc == -NLE_MISSING_ATTR && untouched, "no NL80211_ATTR_MAC: -NLE_MISSING_ATTR");
	msg = station_msg_begin(NULL, NL80211_CMD_NEW_STATION, &sinfo);
	nla_nest_cancel(msg, sinfo);
	nla_put(msg, NL80211_ATTR_MAC, 4, MAC_A);
	nest = nla_nest_start(msg, NL80211_ATTR_STA_INFO);
	nla_put_u8(msg, NL80211_STA_INFO_SIGNAL, 1);
	nla_nest_end(msg, nest);
	rc = parse_untouched(msg, &untouched);
	CHECK(rc == -NLE_RANGE && untouched, "a 4-byte MAC: -NLE_RANGE");
	msg = station_msg_begin(MAC_A, NL80211_CMD_NEW_STATION, &sinfo);
	nla_nest_cancel(msg, sinfo);
	rc = parse_untouched(msg, &untouched);
	CHECK(rc == -NLE_MISSING_ATTR && untouched, "no NL80211_ATTR_STA_INFO: -NLE_MISSING_ATTR");
	msg = station_msg_begin(MAC_A, NL80211_CMD_GET_STATION, &sinfo);
	nla_nest_end(msg, sinfo);
	rc = parse_untouched(msg, &untouched);
	CHECK(rc == -NLE_MSGTYPE_NOSUPPORT && untouched, "a GET_STATION command is not a station reply");
	rc = sta_info_parse(NULL, NULL);
	CHECK(rc == -NLE_INVAL, "NULL message: -NLE_INVAL");
}

/* A station message with every kind of attribute, for truncation and
 * mutation. */
static struct nl_msg *rich_station_msg(void)
{
	struct nlattr *sinfo;
	struct nl_msg *msg = station_msg_begin(MAC_C, NL80211_CMD_NEW_STATION, &sinfo);

	nla_put_u32(msg, NL80211_STA_INFO_INACTIVE_TIME, 10);
	nla_put_u64(msg, NL80211_STA_INFO_RX_BYTES64, 1ull << 40);
	nla_put_u64(msg, NL80211_STA_INFO_TX_BYTES64, 1ull << 41);
	nla_put_u8(msg, NL80211_STA_INFO_SIGNAL, (uint8_t)-60);
	put_rate(msg, NL80211_STA_INFO_TX_BITRATE, NL80211_RATE_INFO_HE_MCS, 9, NL80211_RATE_INFO_HE_NSS, 2,
		 NL80211_RATE_INFO_HE_GI, 1, NL80211_RATE_INFO_80_MHZ_WIDTH, 1, 0);
	put_rate(msg, NL80211_STA_INFO_RX_BITRATE, NL80211_RATE_INFO_VHT_MCS, 5, NL80211_RATE_INFO_VHT_NSS, 1,
		 NL80211_RATE_INFO_BITRATE32, 1170, 0);
	nla_put_u64(msg, NL80211_STA_INFO_TX_DURATION, 5555);
	nla_put_u16(msg, NL80211_STA_INFO_AIRTIME_WEIGHT, 100);
	nla_nest_end(msg, sinfo);
	return msg;
}

static void test_truncated(void)
{
	struct nl_msg *msg = rich_station_msg();
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	uint32_t full = nlh->nlmsg_len;
	struct station_info s;
	unsigned ok = 0, errors = 0, weird = 0;
	int rc;

	rc = sta_info_parse(msg, &s);
	CHECK(rc == 0 && s.tx_rate.kbps_present && s.rx_rate.kbps == 117000,
	      "the message used for truncation parses whole (HE tx computed, VHT rx from BITRATE32)");

	nlh->nlmsg_len = full - 6;
	rc = sta_info_parse(msg, &s);
	CHECK(rc < 0, "nlmsg_len 6 bytes short (inside STA_INFO): error (rc %d: %s)", rc, nl_geterror(rc));
	nlh->nlmsg_len = NLMSG_HDRLEN + 2;
	rc = sta_info_parse(msg, &s);
	CHECK(rc == -NLE_MSG_TOOSHORT, "nlmsg_len shorter than the genl header: -NLE_MSG_TOOSHORT");
	nlh->nlmsg_len = (uint32_t)nlmsg_get_max_size(msg) + 64;
	rc = sta_info_parse(msg, &s);
	CHECK(rc < 0, "nlmsg_len beyond the buffer: error, nothing read past it");

	/* every length from whole down to nothing: never a crash; a parse
	 * that succeeds can only have lost whole attributes at the end */
	for (uint32_t len = full; len + 1 > 0; len--) {
		nlh->nlmsg_len = len;
		rc = sta_info_parse(msg, &s);
		if (rc == 0) {
			ok++;
			if (memcmp(s.mac, MAC_C, 6) != 0)
				weird++;
		} else if (rc < 0) {
			errors++;
		} else {
			weird++;
		}
		if (len == 0)
			break;
	}
	CHECK(weird == 0 && ok >= 1 && errors > 0,
	      "every truncation of a %u-byte message: %u parse, %u errors, none odd", full, ok, errors);
	nlh->nlmsg_len = full;
	nlmsg_free(msg);
}

/* Random byte flips in the attributes (not the netlink header): the
 * parser returns 0 or an error, and ASan/UBSan see nothing. */
static void test_mutations(void)
{
	uint64_t state = 0x5eed;
	unsigned ok = 0, errors = 0, odd = 0;
	const unsigned rounds = 3000;

	for (unsigned i = 0; i < rounds; i++) {
		struct nl_msg *msg = rich_station_msg();
		struct nlmsghdr *nlh = nlmsg_hdr(msg);
		uint8_t *bytes = (uint8_t *)nlh;
		struct station_info s;
		unsigned flips;
		int rc;

		state = state * 6364136223846793005ull + 1442695040888963407ull;
		flips = 1 + (unsigned)(state >> 60) % 4;
		for (unsigned f = 0; f < flips; f++) {
			uint32_t span = nlh->nlmsg_len - NLMSG_HDRLEN;

			state = state * 6364136223846793005ull + 1442695040888963407ull;
			bytes[NLMSG_HDRLEN + (state >> 33) % span] ^= (uint8_t)(1u << ((state >> 20) % 8));
		}
		rc = sta_info_parse(msg, &s);
		if (rc == 0)
			ok++;
		else if (rc < 0)
			errors++;
		else
			odd++;
		nlmsg_free(msg);
	}
	CHECK(odd == 0 && ok + errors == rounds, "%u mutated messages: %u parse, %u errors, no crash", rounds, ok,
	      errors);
}

/* A station for the interval tests. */
static struct station_info sta(const uint8_t mac[6], uint64_t rx, uint64_t tx, uint32_t txp, uint32_t retries,
			       uint64_t tx_air, uint64_t rx_air, uint32_t connected)
{
	struct station_info s;

	memset(&s, 0, sizeof(s));
	memcpy(s.mac, mac, 6);
	s.rx_bytes = rx;
	s.tx_bytes = tx;
	s.rx_bytes64 = s.tx_bytes64 = true;
	s.tx_packets = txp;
	s.tx_retries = retries;
	s.tx_duration_us = tx_air;
	s.rx_duration_us = rx_air;
	s.connected_s = connected;
	s.present = (1u << SI_RX_BYTES) | (1u << SI_TX_BYTES) | (1u << SI_TX_PACKETS) | (1u << SI_TX_RETRIES) |
		    (1u << SI_TX_DURATION) | (1u << SI_RX_DURATION) | (1u << SI_CONNECTED_TIME);
	return s;
}

static const struct station_delta *delta_of(const struct station_interval *iv, const uint8_t mac[6])
{
	for (size_t i = 0; i < iv->n; i++)
		if (memcmp(iv->sta[i].now.mac, mac, 6) == 0)
			return &iv->sta[i];
	return NULL;
}

static void test_interval(void)
{
	struct station_table prev = {0}, cur = {0};
	struct station_interval iv = {0};
	const struct station_delta *a, *b, *c;
	struct station_info s;
	double jain;
	int rc;

	/* A: 1 Mbit/s in, 4 Mbit/s out over 2 s, 0.4 s of air, 10 retries for 90 packets;
	 * B: 1 Mbit/s out, 0.1 s of air; C: new; D: gone */
	s = sta(MAC_A, 1000, 2000, 100, 5, 1000, 500, 60);
	station_table_add(&prev, &s);
	s = sta(MAC_B, 0, 0, 0, 0, 0, 0, 30);
	station_table_add(&prev, &s);
	s = sta(MAC_D, 9, 9, 9, 9, 9, 9, 9);
	station_table_add(&prev, &s);
	s = sta(MAC_A, 1000 + 250000, 2000 + 1000000, 190, 15, 1000 + 300000, 500 + 100000, 62);
	station_table_add(&cur, &s);
	s = sta(MAC_B, 0, 250000, 50, 0, 100000, 0, 32);
	station_table_add(&cur, &s);
	s = sta(MAC_C, 777, 777, 7, 7, 7, 7, 1);
	station_table_add(&cur, &s);
	CHECK(cur.n == 3 && station_table_add(&cur, &s) == 0 && cur.n == 3, "a station added twice is kept once");

	rc = station_interval_compute(&prev, &cur, 2.0, &iv);
	a = delta_of(&iv, MAC_A);
	b = delta_of(&iv, MAC_B);
	c = delta_of(&iv, MAC_C);
	CHECK(rc == 0 && iv.n == 3 && a && b && c, "an interval over 3 stations");
	CHECK(a && a->has_baseline && !a->reset && a->active, "A: baseline, no reset, active");
	CHECK(a && near(a->rx_bps, 1e6, 1e-6) && near(a->tx_bps, 4e6, 1e-6) && near(a->l2_bps, 5e6, 1e-6),
	      "A: up (rx) 1 Mbit/s, down (tx) 4 Mbit/s, link-layer 5 Mbit/s from byte deltas");
	CHECK(a && near(a->airtime_us, 400000, 1e-9) && near(a->airtime_share, 0.8, 1e-12),
	      "A: 0.4 s of airtime (tx + rx duration), 80 %% of the air");
	CHECK(b && near(b->airtime_share, 0.2, 1e-12), "B: 20 %% of the air");
	CHECK(a && near(a->retry_ratio, 10.0 / 100.0, 1e-12), "A: retry ratio 10 / (90 + 10) = 0.1");
	CHECK(b && near(b->retry_ratio, 0.0, 0) && b->active && near(b->tx_bps, 1e6, 1e-6),
	      "B: no retries (0.0, not missing), 1 Mbit/s");
	CHECK(c && !c->has_baseline && !c->active && isnan(c->rx_bps) && isnan(c->airtime_share) &&
		      isnan(c->retry_ratio),
	      "C (new): no baseline, rates missing (NaN), not active");
	CHECK(iv.departed == 1, "D (gone) counted as departed");
	CHECK(iv.active == 2 && near(iv.total_l2_bps, 6e6, 1e-6), "2 active stations carried 6 Mbit/s in all");
	CHECK(near(iv.mean_l2_bps, 3e6, 1e-6), "mean = total / active = 3 Mbit/s");
	jain = (5.0 + 1.0) * (5.0 + 1.0) / (2.0 * (25.0 + 1.0));
	CHECK(near(iv.jain_l2, jain, 1e-12), "Jain of link-layer rates (5, 1) = %.4f", jain);
	jain = (0.4 + 0.1) * (0.4 + 0.1) / (2.0 * (0.16 + 0.01));
	CHECK(near(iv.jain_airtime, jain, 1e-12), "Jain of airtime (0.4, 0.1) = %.4f", jain);

	/* reset: A re-associated (connected time went down) */
	station_table_clear(&prev);
	station_table_clear(&cur);
	s = sta(MAC_A, 9000000, 9000000, 1000, 100, 900000, 900000, 600);
	station_table_add(&prev, &s);
	s = sta(MAC_A, 125000, 0, 10, 0, 1000, 0, 1);
	station_table_add(&cur, &s);
	rc = station_interval_compute(&prev, &cur, 1.0, &iv);
	a = delta_of(&iv, MAC_A);
	CHECK(rc == 0 && a && a->reset && near(a->rx_bps, 1e6, 1e-6) && a->tx_bytes == 0 && near(a->airtime_us, 1000, 0),
	      "connected time went down: a reset, counted from 0 (1 Mbit/s, not a huge wrap)");
	/* reset seen by a 64-bit counter alone */
	cur.sta[0].present &= ~(1u << SI_CONNECTED_TIME);
	rc = station_interval_compute(&prev, &cur, 1.0, &iv);
	CHECK(rc == 0 && iv.sta[0].reset && near(iv.sta[0].rx_bps, 1e6, 1e-6),
	      "a 64-bit byte counter going down: a reset too");
	/* 32-bit counters wrap */
	station_table_clear(&prev);
	station_table_clear(&cur);
	s = sta(MAC_B, 0xffffff00u, 10, 0xfffffff0u, 0, 0, 0, 10);
	s.rx_bytes64 = s.tx_bytes64 = false;
	station_table_add(&prev, &s);
	s = sta(MAC_B, 0x100, 10, 0x10, 0, 0, 0, 11);
	s.rx_bytes64 = s.tx_bytes64 = false;
	station_table_add(&cur, &s);
	rc = station_interval_compute(&prev, &cur, 1.0, &iv);
	CHECK(rc == 0 && !iv.sta[0].reset && iv.sta[0].rx_bytes == 0x200 && near(iv.sta[0].retry_ratio, 0.0, 0),
	      "32-bit counters wrap: rx delta 0x200 bytes (got %llu)", (unsigned long long)iv.sta[0].rx_bytes);
	CHECK(isnan(iv.sta[0].airtime_share) && isnan(iv.jain_airtime),
	      "no air used at all: airtime share and its Jain index undefined (NaN)");

	/* idle stations and missing counters */
	station_table_clear(&prev);
	station_table_clear(&cur);
	s = sta(MAC_A, 5, 5, 5, 5, 5, 5, 5);
	station_table_add(&prev, &s);
	s.present &= ~((1u << SI_TX_DURATION) | (1u << SI_RX_DURATION) | (1u << SI_TX_PACKETS));
	station_table_add(&cur, &s);
	rc = station_interval_compute(&prev, &cur, 1.0, &iv);
	CHECK(rc == 0 && !iv.sta[0].active && iv.active == 0, "a station that carried nothing is not active");
	CHECK(isnan(iv.sta[0].airtime_us) && isnan(iv.sta[0].retry_ratio),
	      "durations or tx packets not reported: airtime and retry ratio missing, not 0");
	CHECK(isnan(iv.mean_l2_bps) && isnan(iv.jain_l2) && isnan(iv.jain_airtime) && iv.total_l2_bps == 0,
	      "no active station: fair share and Jain undefined (NaN)");
	cur.sta[0].present &= ~(1u << SI_TX_BYTES);
	rc = station_interval_compute(&prev, &cur, 1.0, &iv);
	CHECK(rc == 0 && isnan(iv.sta[0].l2_bps) && isnan(iv.sta[0].tx_bps) && !isnan(iv.sta[0].rx_bps),
	      "tx bytes not reported: tx rate and l2_bps missing, rx rate known");

	CHECK(station_interval_compute(&prev, &cur, 0.0, &iv) == -NLE_INVAL, "elapsed 0 s: -NLE_INVAL");
	CHECK(station_interval_compute(&prev, &cur, NAN, &iv) == -NLE_INVAL, "elapsed NaN: -NLE_INVAL");
	station_table_clear(&cur);
	rc = station_interval_compute(&prev, &cur, 1.0, &iv);
	CHECK(rc == 0 && iv.n == 0 && iv.departed == 1 && isnan(iv.jain_l2), "every station gone: 1 departed");

	station_interval_free(&iv);
	station_table_free(&prev);
	station_table_free(&cur);
}

/* The fields of each line of CSV TEXT as RFC 4180 reads them (commas
 * inside double quotes do not count): all lines as many as the first, and
 * at least two lines. */
static bool csv_rows_agree(const char *text)
{
	int fields = 1, header = -1, lines = 0;
	bool quoted = false;

	for (const char *c = text; *c; c++) {
		if (*c == '"')
			quoted = !quoted; /* a doubled quote toggles twice */
		else if (*c == ',' && !quoted)
			fields++;
		else if (*c == '\n' && !quoted) {
			if (header < 0)
				header = fields;
			else if (fields != header)
				return false;
			lines++;
			fields = 1;
		}
	}
	return lines >= 2 && !quoted;
}

/* Writes with F into a string (freed by the caller). */
static char *capture(void (*write)(FILE *, void *), void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		abort();
	write(f, arg);
	fclose(f);
	return buf;
}

struct report_args {
	enum sta_report_format fmt;
	const struct station_table *tab;
	const struct station_interval *iv;
	const char *ifname; /* NULL: wlan0 */
};

static void write_stations(FILE *f, void *arg)
{
	struct report_args *a = arg;

	sta_report_stations(f, a->fmt, a->ifname ? a->ifname : "wlan0", 1700000000.0, a->tab, true);
}

static void write_interval(FILE *f, void *arg)
{
	struct report_args *a = arg;

	sta_report_interval(f, a->fmt, a->ifname ? a->ifname : "wlan0", 1700000000.0, a->iv, true);
}

static void test_report(void)
{
	struct station_table tab = {0}, prev = {0};
	struct station_interval iv = {0};
	struct report_args args = {.tab = &tab, .iv = &iv};
	struct station_info s;
	char *out;

	memset(&s, 0, sizeof(s));
	memcpy(s.mac, MAC_A, 6);
	s.present = 1u << SI_SIGNAL;
	s.signal_dbm = -50;
	station_table_add(&tab, &s);

	args.fmt = STA_REPORT_JSON;
	out = capture(write_stations, &args);
	CHECK(strstr(out, "\"type\":\"stations\"") && strstr(out, "\"mac\":\"02:00:00:00:00:0a\"") &&
		      strstr(out, "\"signal_dbm\":-50"),
	      "JSON: type, mac, signal");
	CHECK(strstr(out, "\"down_bytes\":null") && strstr(out, "\"down_bitrate\":null") &&
		      strstr(out, "\"airtime_weight\":null") && !strstr(out, "\"down_bytes\":0"),
	      "JSON: missing counters are null, not 0");
	CHECK(strchr(out, '\n') == out + strlen(out) - 1, "JSON: one line");
	free(out);

	args.fmt = STA_REPORT_CSV;
	out = capture(write_stations, &args);
	CHECK(strncmp(out, "time,ifname,mac,signal_dbm,", 27) == 0 &&
		      strstr(out, "\n1700000000.000,wlan0,02:00:00:00:00:0a,-50,,,,,,,,,,,,,,\n"),
	      "CSV: a header, then empty fields for what is missing");
	free(out);

	args.fmt = STA_REPORT_TABLE;
	out = capture(write_stations, &args);
	CHECK(strstr(out, "02:00:00:00:00:0a    -50    -") != NULL, "table: '-' for what is missing");
	free(out);

	/* an interval where nothing is known: nulls */
	station_table_add(&prev, &s);
	station_interval_compute(&prev, &tab, 1.0, &iv);
	args.fmt = STA_REPORT_JSON;
	out = capture(write_interval, &args);
	CHECK(strstr(out, "\"type\":\"interval\"") && strstr(out, "\"up_l2_bps\":null") &&
		      strstr(out, "\"jain_l2\":null") && strstr(out, "\"mean_l2_bps\":null") &&
		      strstr(out, "\"fairness\":{") && strstr(out, "\"departed\":0"),
	      "interval JSON: unknown rates and undefined Jain/mean are null");
	free(out);

	/* an interval with numbers */
	station_table_clear(&prev);
	station_table_clear(&tab);
	s = sta(MAC_A, 0, 0, 0, 0, 0, 0, 1);
	station_table_add(&prev, &s);
	s = sta(MAC_A, 125000, 125000, 10, 0, 1000, 0, 2);
	station_table_add(&tab, &s);
	station_interval_compute(&prev, &tab, 1.0, &iv);
	out = capture(write_interval, &args);
	CHECK(strstr(out, "\"up_l2_bps\":1000000") && strstr(out, "\"l2_bps\":2000000") &&
		      strstr(out, "\"airtime_share\":1.0000") && strstr(out, "\"jain_l2\":1.0000") &&
		      strstr(out, "\"mean_l2_bps\":2000000") && strstr(out, "\"total_l2_bps\":2000000") &&
		      strstr(out, "\"active_stations\":1") && !strstr(out, "goodput") && !strstr(out, "eb_bps") &&
		      !strstr(out, "fair_share"),
	      "interval JSON: rates, share, Jain, total and mean under the glossary's names");
	free(out);
	args.fmt = STA_REPORT_CSV;
	out = capture(write_interval, &args);
	CHECK(strstr(out, "time,ifname,elapsed_s,mac,") == out &&
		      strstr(out, "\n1700000000.000,wlan0,1.000,02:00:00:00:00:0a,0,0,1,1000000,1000000,2000000,"),
	      "interval CSV: header and a row per station");
	free(out);

	/* an interface name with a comma and a quote: one field, quoted as
	 * RFC 4180 says, so every row has the header's number of fields */
	args.ifname = "wl,an\"0";
	out = capture(write_interval, &args);
	CHECK(strstr(out, "\n1700000000.000,\"wl,an\"\"0\",1.000,02:00:00:00:00:0a,") && csv_rows_agree(out),
	      "interval CSV: the ifname wl,an\"0 quoted (\"wl,an\"\"0\"), every row as wide as the header");
	free(out);
	args.fmt = STA_REPORT_CSV;
	out = capture(write_stations, &args);
	CHECK(strstr(out, "\n1700000000.000,\"wl,an\"\"0\",02:00:00:00:00:0a,") && csv_rows_agree(out),
	      "stations CSV: the ifname quoted, every row as wide as the header");
	free(out);
	args.ifname = NULL;

	station_interval_free(&iv);
	station_table_free(&tab);
	station_table_free(&prev);
}

/* Every line of apstat's JSON parses (jq) and is named as the README's
 * glossary says: an interface name that needs escaping, no "goodput",
 * "eb_bps" or "fair_share" (nl80211 tells none of them), and directions
 * as down/up. */
static void test_report_jq(void)
{
	static const char ifname[] = "wl\"an\\0\x01" "caf\xc3\xa9\xff";
	static const char no_claims[] =
		"[paths | .[-1] | strings | select(test(\"goodput|eb_bps|fair_share|^tx_|^rx_\"))] | length == 0";
	struct station_table prev = {0}, cur = {0};
	struct station_interval iv = {0};
	struct station_info s;
	char *out = NULL;
	size_t len = 0;
	FILE *f;
	int ok;

	s = sta(MAC_A, 0, 0, 0, 0, 0, 0, 1);
	station_table_add(&prev, &s);
	s = sta(MAC_A, 125000, 250000, 10, 2, 1000, 500, 2);
	s.present |= 1u << SI_TX_BITRATE;
	s.tx_rate.kbps_present = true;
	s.tx_rate.kbps = 54000;
	station_table_add(&cur, &s);
	station_interval_compute(&prev, &cur, 1.0, &iv);
	f = open_memstream(&out, &len);
	if (!f)
		abort();
	sta_report_stations(f, STA_REPORT_JSON, ifname, 1700000000.0, &cur, true);
	sta_report_interval(f, STA_REPORT_JSON, ifname, 1700000001.0, &iv, true);
	fclose(f);

	ok = jq_true(out, "true");
	if (ok < 0) {
		printf("skip %d - jq not installed: apstat JSON not parsed\n", ++check_count);
	} else {
		CHECK(ok, "apstat JSON lines parse (jq)");
		CHECK(jq_true(out, ".[0].type == \"stations\" and .[0].ifname == \"wl\\\"an\\\\0\\u0001caf\xc3\xa9\\u00ff\""),
		      "the interface name comes back escaped: quote, backslash, control byte, UTF-8, invalid byte");
		CHECK(jq_true(out, no_claims), "no goodput, eb_bps, fair_share or tx_/rx_ names in apstat's JSON");
		CHECK(jq_true(out, ".[0].stations[0] | .down_bytes == 250000 and "
				   ".up_bytes == 125000 and .down_bitrate.kbps == 54000 and .down_retries == 2 and "
				   ".down_airtime_us == 1000 and .up_airtime_us == 500"),
		      "station dump: down = nl80211's tx (AP to station), up = its rx");
		CHECK(jq_true(out, ".[1].type == \"interval\" and (.[1].stations[0] | .down_l2_bps == 2000000 and "
				   ".up_l2_bps == 1000000 and .l2_bps == 3000000 and .down_retry_ratio == 0.1667) and "
				   "(.[1].fairness | .total_l2_bps == 3000000 and .mean_l2_bps == 3000000 and "
				   ".active_stations == 1 and .jain_l2 == 1 and .departed == 0)"),
		      "interval: l2 rates down, up and both; total, mean, Jain across stations");
	}
	free(out);
	station_interval_free(&iv);
	station_table_free(&cur);
	station_table_free(&prev);
}

static void test_set_airtime_weight(void)
{
	static const struct nla_policy policy[NL80211_ATTR_MAX + 1] = {
		[NL80211_ATTR_IFINDEX] = {.type = NLA_U32},
		[NL80211_ATTR_MAC] = {.minlen = 6, .maxlen = 6},
		[NL80211_ATTR_AIRTIME_WEIGHT] = {.type = NLA_U16},
	};
	const unsigned weights[] = {1, 256, 65535};
	struct nlattr *tb[NL80211_ATTR_MAX + 1];
	char err[256];
	int rc;

	for (size_t i = 0; i < sizeof(weights) / sizeof(weights[0]); i++) {
		struct nl_msg *msg = nlmsg_alloc();
		struct nlmsghdr *nlh;
		struct genlmsghdr *g;

		rc = nl80211_build_set_airtime_weight(msg, FAKE_FAMILY, 5, MAC_B, weights[i]);
		nlh = nlmsg_hdr(msg);
		g = nlmsg_data(nlh);
		CHECK(rc == 0 && nlh->nlmsg_type == FAKE_FAMILY && g->cmd == NL80211_CMD_SET_STATION,
		      "weight %u: a SET_STATION message for the family", weights[i]);
		rc = genlmsg_parse(nlh, 0, tb, NL80211_ATTR_MAX, policy);
		CHECK(rc == 0 && tb[NL80211_ATTR_IFINDEX] && nla_get_u32(tb[NL80211_ATTR_IFINDEX]) == 5 &&
			      tb[NL80211_ATTR_MAC] && memcmp(nla_data(tb[NL80211_ATTR_MAC]), MAC_B, 6) == 0 &&
			      tb[NL80211_ATTR_AIRTIME_WEIGHT] && nla_len(tb[NL80211_ATTR_AIRTIME_WEIGHT]) == 2 &&
			      nla_get_u16(tb[NL80211_ATTR_AIRTIME_WEIGHT]) == weights[i],
		      "weight %u: parsed back, ifindex 5, the MAC, the weight as a u16", weights[i]);
		nlmsg_free(msg);
	}
	{
		struct nl_msg *msg = nlmsg_alloc();

		rc = nl80211_build_set_airtime_weight(msg, FAKE_FAMILY, 5, MAC_B, 0);
		CHECK(rc == -NLE_RANGE && nlmsg_hdr(msg)->nlmsg_len == NLMSG_HDRLEN,
		      "weight 0 rejected (-NLE_RANGE), nothing written");
		rc = nl80211_build_set_airtime_weight(msg, FAKE_FAMILY, 5, MAC_B, 65536);
		CHECK(rc == -NLE_RANGE && nlmsg_hdr(msg)->nlmsg_len == NLMSG_HDRLEN, "weight 65536 rejected");
		rc = nl80211_build_set_airtime_weight(msg, FAKE_FAMILY, 0, MAC_B, 10);
		CHECK(rc == -NLE_INVAL, "ifindex 0 rejected");
		rc = nl80211_build_set_airtime_weight(msg, FAKE_FAMILY, 5, NULL, 10);
		CHECK(rc == -NLE_INVAL, "no MAC rejected");
		nlmsg_free(msg);
	}

	/* the whole command: checks before any netlink, one-line errors */
	err[0] = '\0';
	rc = nl80211_set_airtime_weight("lo", MAC_B, 0, err, sizeof(err));
	CHECK(rc == -1 && strcmp(err, "airtime weight 0 out of range (1..65535)") == 0, "set weight 0: '%s'", err);
	rc = nl80211_set_airtime_weight("lo", MAC_B, 65536, err, sizeof(err));
	CHECK(rc == -1 && strstr(err, "65536 out of range"), "set weight 65536: '%s'", err);
	rc = nl80211_set_airtime_weight("nosuchif0", MAC_B, 10, err, sizeof(err));
	CHECK(rc == -1 && strcmp(err, "nosuchif0: no such interface") == 0, "unknown interface: '%s'", err);
	rc = nl80211_set_airtime_weight("lo", MAC_B, 10, err, sizeof(err));
	CHECK(rc == -1 && !strchr(err, '\n') &&
		      (strcmp(err, NL80211_NOT_AVAILABLE ": cannot set the airtime weight of 02:00:00:00:00:0b on lo") ==
			       0 ||
		       strncmp(err, "set the airtime weight of 02:00:00:00:00:0b on lo: ", 51) == 0),
	      "lo is not wireless: one line, '%s'", err);
	CHECK(nl80211_ifindex("lo", err, sizeof(err)) > 0, "lo has an ifindex");
	CHECK(nl80211_ifindex("", err, sizeof(err)) == -1, "an empty interface name: '%s'", err);
}

int main(void)
{
	test_full_station();
	test_fallbacks_and_missing();
	test_rates();
	test_malformed();
	test_truncated();
	test_mutations();
	test_interval();
	test_report();
	test_report_jq();
	test_set_airtime_weight();
	return check_done();
}
