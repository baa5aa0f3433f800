// SPDX-License-Identifier: GPL-2.0
/*
 * sta_info.c - what nl80211 says about one station: the policy-checked
 * parse of NL80211_CMD_NEW_STATION (station dump replies), the PHY rate
 * of an MCS when the kernel did not give a bitrate, and the dump request.
 */
#include "sta_info.h"

#include <stdio.h>
#include <string.h>

#include <linux/nl80211.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

/* The policies: every attribute we read, its type and so its minimum
 * length; libnl rejects a shorter one with -NLE_RANGE. */
static const struct nla_policy station_msg_policy[NL80211_ATTR_MAX + 1] = {
	[NL80211_ATTR_IFINDEX] = {.type = NLA_U32},
	[NL80211_ATTR_MAC] = {.type = NLA_UNSPEC, .minlen = 6, .maxlen = 6},
	[NL80211_ATTR_STA_INFO] = {.type = NLA_NESTED},
};

static const struct nla_policy sta_info_policy[NL80211_STA_INFO_MAX + 1] = {
	[NL80211_STA_INFO_INACTIVE_TIME] = {.type = NLA_U32},
	[NL80211_STA_INFO_RX_BYTES] = {.type = NLA_U32},
	[NL80211_STA_INFO_TX_BYTES] = {.type = NLA_U32},
	[NL80211_STA_INFO_RX_BYTES64] = {.type = NLA_U64},
	[NL80211_STA_INFO_TX_BYTES64] = {.type = NLA_U64},
	[NL80211_STA_INFO_SIGNAL] = {.type = NLA_U8},
	[NL80211_STA_INFO_SIGNAL_AVG] = {.type = NLA_U8},
	[NL80211_STA_INFO_TX_BITRATE] = {.type = NLA_NESTED},
	[NL80211_STA_INFO_RX_BITRATE] = {.type = NLA_NESTED},
	[NL80211_STA_INFO_RX_PACKETS] = {.type = NLA_U32},
	[NL80211_STA_INFO_TX_PACKETS] = {.type = NLA_U32},
	[NL80211_STA_INFO_TX_RETRIES] = {.type = NLA_U32},
	[NL80211_STA_INFO_TX_FAILED] = {.type = NLA_U32},
	[NL80211_STA_INFO_CONNECTED_TIME] = {.type = NLA_U32},
	[NL80211_STA_INFO_RX_DURATION] = {.type = NLA_U64},
	[NL80211_STA_INFO_TX_DURATION] = {.type = NLA_U64},
	[NL80211_STA_INFO_AIRTIME_WEIGHT] = {.type = NLA_U16},
};

static const struct nla_policy rate_info_policy[NL80211_RATE_INFO_MAX + 1] = {
	[NL80211_RATE_INFO_BITRATE] = {.type = NLA_U16},
	[NL80211_RATE_INFO_BITRATE32] = {.type = NLA_U32},
	[NL80211_RATE_INFO_MCS] = {.type = NLA_U8},
	[NL80211_RATE_INFO_40_MHZ_WIDTH] = {.type = NLA_FLAG},
	[NL80211_RATE_INFO_SHORT_GI] = {.type = NLA_FLAG},
	[NL80211_RATE_INFO_VHT_MCS] = {.type = NLA_U8},
	[NL80211_RATE_INFO_VHT_NSS] = {.type = NLA_U8},
	[NL80211_RATE_INFO_80_MHZ_WIDTH] = {.type = NLA_FLAG},
	[NL80211_RATE_INFO_80P80_MHZ_WIDTH] = {.type = NLA_FLAG},
	[NL80211_RATE_INFO_160_MHZ_WIDTH] = {.type = NLA_FLAG},
	[NL80211_RATE_INFO_10_MHZ_WIDTH] = {.type = NLA_FLAG},
	[NL80211_RATE_INFO_5_MHZ_WIDTH] = {.type = NLA_FLAG},
	[NL80211_RATE_INFO_HE_MCS] = {.type = NLA_U8},
	[NL80211_RATE_INFO_HE_NSS] = {.type = NLA_U8},
	[NL80211_RATE_INFO_HE_GI] = {.type = NLA_U8},
	[NL80211_RATE_INFO_HE_DCM] = {.type = NLA_U8},
	[NL80211_RATE_INFO_HE_RU_ALLOC] = {.type = NLA_U8},
};

/* libnl's nla_parse() stops quietly at the first attribute that does not
 * fit in what is left and ignores the rest; bytes left over mean a reply
 * cut short or garbage, which we reject (as the kernel's strict
 * validation does). */
static int attrs_whole(const struct nlattr *head, int len)
{
	const struct nlattr *pos;
	int rem;

	nla_for_each_attr(pos, head, len, rem) {
	}
	return rem > 0 ? -NLE_MSG_TRUNC : 0;
}

const char *sta_rate_mode_name(enum sta_rate_mode mode)
{
	switch (mode) {
	case STA_RATE_HT: return "ht";
	case STA_RATE_VHT: return "vht";
	case STA_RATE_HE: return "he";
	default: return "legacy";
	}
}

unsigned sta_rate_gi_ns(const struct sta_rate *r)
{
	static const unsigned he_gi_ns[] = {800, 1600, 3200};

	switch (r->mode) {
	case STA_RATE_HT:
	case STA_RATE_VHT: return r->short_gi ? 400 : 800;
	case STA_RATE_HE: return r->he_gi < 3 ? he_gi_ns[r->he_gi] : 0;
	default: return 0;
	}
}

/* Data bits per subcarrier and stream times 12 (the common denominator of
 * the code rates 1/2, 2/3, 3/4, 5/6), by per-stream MCS: BPSK 1/2, QPSK
 * 1/2, QPSK 3/4, 16-QAM 1/2, 16-QAM 3/4, 64-QAM 2/3, 3/4, 5/6, 256-QAM
 * 3/4, 5/6, 1024-QAM 3/4, 5/6. */
static const uint8_t bits_x12[12] = {6, 12, 18, 24, 36, 48, 54, 60, 72, 80, 90, 100};

/* Data subcarriers of an HT/VHT channel (IEEE 802.11-2020 19.3.2, 21.3.2). */
static unsigned vht_data_subcarriers(unsigned width_mhz)
{
	switch (width_mhz) {
	case 20: return 52;
	case 40: return 108;
	case 80: return 234;
	case 160: return 468;
	default: return 0;
	}
}

/* Data subcarriers of an HE resource unit (27.3.2.2), by RU or width. */
static unsigned he_data_subcarriers(const struct sta_rate *r)
{
	if (r->he_ru_present) {
		switch (r->he_ru_alloc) {
		case NL80211_RATE_INFO_HE_RU_ALLOC_26: return 24;
		case NL80211_RATE_INFO_HE_RU_ALLOC_52: return 48;
		case NL80211_RATE_INFO_HE_RU_ALLOC_106: return 102;
		case NL80211_RATE_INFO_HE_RU_ALLOC_242: return 234;
		case NL80211_RATE_INFO_HE_RU_ALLOC_484: return 468;
		case NL80211_RATE_INFO_HE_RU_ALLOC_996: return 980;
		case NL80211_RATE_INFO_HE_RU_ALLOC_2x996: return 1960;
		default: return 0;
		}
	}
	switch (r->width_mhz) {
	case 20: return 234;
	case 40: return 468;
	case 80: return 980;
	case 160: return 1960;
	default: return 0;
	}
}

int sta_rate_compute_kbps(const struct sta_rate *r, uint32_t *kbps)
{
	unsigned nsd, nss, mcs, symbol_ns;
	uint64_t num, den;

	switch (r->mode) {
	case STA_RATE_HT:
		if (r->mcs > 31 || (r->width_mhz != 20 && r->width_mhz != 40))
			return -1;
		mcs = r->mcs % 8;
		nss = r->mcs / 8 + 1u;
		nsd = vht_data_subcarriers(r->width_mhz);
		symbol_ns = r->short_gi ? 3600 : 4000; /* 3.2 us + GI */
		break;
	case STA_RATE_VHT:
		if (r->mcs > 9 || r->nss < 1 || r->nss > 8)
			return -1;
		mcs = r->mcs;
		nss = r->nss;
		nsd = vht_data_subcarriers(r->width_mhz);
		symbol_ns = r->short_gi ? 3600 : 4000;
		break;
	case STA_RATE_HE:
		if (r->mcs > 11 || r->nss < 1 || r->nss > 8 || r->he_gi > NL80211_RATE_INFO_HE_GI_3_2)
			return -1;
		mcs = r->mcs;
		nss = r->nss;
		nsd = he_data_subcarriers(r);
		symbol_ns = 12800 + sta_rate_gi_ns(r); /* 12.8 us + GI */
		break;
	default:
		return -1;
	}
	if (nsd == 0)
		return -1;
	/* bits per symbol / symbol time in ns = Gbit/s; times 1e6 = kbit/s */
	num = (uint64_t)nsd * bits_x12[mcs] * nss * 1000000u;
	den = 12u * (uint64_t)symbol_ns;
	if (r->mode == STA_RATE_HE && r->he_dcm)
		den *= 2; /* dual carrier modulation sends every bit twice */
	*kbps = (uint32_t)((num + den / 2) / den);
	return 0;
}

/* One TX/RX_BITRATE nest; the kernel's bitrate (100 kbit/s units) when
 * given, else computed from the MCS. 0 or a libnl error code. */
static int parse_rate(struct nlattr *nest, struct sta_rate *out)
{
	struct nlattr *tb[NL80211_RATE_INFO_MAX + 1];
	struct sta_rate r;
	uint32_t kbps;
	int rc;

	rc = nla_parse_nested(tb, NL80211_RATE_INFO_MAX, nest, rate_info_policy);
	if (rc < 0)
		return rc;
	rc = attrs_whole(nla_data(nest), nla_len(nest));
	if (rc < 0)
		return rc;
	memset(&r, 0, sizeof(r));
	if (tb[NL80211_RATE_INFO_160_MHZ_WIDTH])
		r.width_mhz = 160;
	else if (tb[NL80211_RATE_INFO_80P80_MHZ_WIDTH])
		r.width_mhz = 160, r.width_80p80 = true;
	else if (tb[NL80211_RATE_INFO_80_MHZ_WIDTH])
		r.width_mhz = 80;
	else if (tb[NL80211_RATE_INFO_40_MHZ_WIDTH])
		r.width_mhz = 40;
	else if (tb[NL80211_RATE_INFO_10_MHZ_WIDTH])
		r.width_mhz = 10;
	else if (tb[NL80211_RATE_INFO_5_MHZ_WIDTH])
		r.width_mhz = 5;
	else
		r.width_mhz = 20;
	r.short_gi = tb[NL80211_RATE_INFO_SHORT_GI] != NULL;
	if (tb[NL80211_RATE_INFO_HE_MCS]) {
		r.mode = STA_RATE_HE;
		r.mcs = nla_get_u8(tb[NL80211_RATE_INFO_HE_MCS]);
		r.nss = tb[NL80211_RATE_INFO_HE_NSS] ? nla_get_u8(tb[NL80211_RATE_INFO_HE_NSS]) : 0;
		r.he_gi = tb[NL80211_RATE_INFO_HE_GI] ? nla_get_u8(tb[NL80211_RATE_INFO_HE_GI]) : 0;
		r.he_dcm = tb[NL80211_RATE_INFO_HE_DCM] && nla_get_u8(tb[NL80211_RATE_INFO_HE_DCM]);
		if (tb[NL80211_RATE_INFO_HE_RU_ALLOC]) {
			r.he_ru_present = true;
			r.he_ru_alloc = nla_get_u8(tb[NL80211_RATE_INFO_HE_RU_ALLOC]);
		}
	} else if (tb[NL80211_RATE_INFO_VHT_MCS]) {
		r.mode = STA_RATE_VHT;
		r.mcs = nla_get_u8(tb[NL80211_RATE_INFO_VHT_MCS]);
		r.nss = tb[NL80211_RATE_INFO_VHT_NSS] ? nla_get_u8(tb[NL80211_RATE_INFO_VHT_NSS]) : 0;
	} else if (tb[NL80211_RATE_INFO_MCS]) {
		r.mode = STA_RATE_HT;
		r.mcs = nla_get_u8(tb[NL80211_RATE_INFO_MCS]);
		r.nss = r.mcs < 32 ? (uint8_t)(r.mcs / 8 + 1) : 0;
	} else {
		r.mode = STA_RATE_LEGACY;
	}
	/* the kernel's own figure first: BITRATE32, else the 16-bit one it
	 * sends only while the rate fits (both 0 when it could not compute) */
	if (tb[NL80211_RATE_INFO_BITRATE32] && nla_get_u32(tb[NL80211_RATE_INFO_BITRATE32])) {
		uint64_t kbps64 = (uint64_t)nla_get_u32(tb[NL80211_RATE_INFO_BITRATE32]) * 100u;

		/* above 429 Gbit/s is no rate, whatever the kernel says */
		if (kbps64 <= UINT32_MAX) {
			r.kbps = (uint32_t)kbps64;
			r.kbps_present = true;
		}
	} else if (tb[NL80211_RATE_INFO_BITRATE] && nla_get_u16(tb[NL80211_RATE_INFO_BITRATE])) {
		r.kbps = nla_get_u16(tb[NL80211_RATE_INFO_BITRATE]) * 100u;
		r.kbps_present = true;
	}
	if (!r.kbps_present && sta_rate_compute_kbps(&r, &kbps) == 0) {
		r.kbps = kbps;
		r.kbps_present = true;
		r.computed = true;
	}
	*out = r;
	return 0;
}

int sta_info_parse(struct nl_msg *msg, struct station_info *out)
{
	struct nlattr *tb[NL80211_ATTR_MAX + 1], *si[NL80211_STA_INFO_MAX + 1];
	struct station_info s;
	struct genlmsghdr *gnlh;
	struct nlmsghdr *nlh;
	int rc;

	if (!msg || !out)
		return -NLE_INVAL;
	nlh = nlmsg_hdr(msg);
	/* a length beyond the buffer would make libnl read past it */
	if (nlh->nlmsg_len > nlmsg_get_max_size(msg))
		return -NLE_MSG_TRUNC;
	if (nlh->nlmsg_len < NLMSG_HDRLEN || !genlmsg_valid_hdr(nlh, 0))
		return -NLE_MSG_TOOSHORT;
	gnlh = nlmsg_data(nlh);
	if (gnlh->cmd != NL80211_CMD_NEW_STATION)
		return -NLE_MSGTYPE_NOSUPPORT;
	rc = genlmsg_parse(nlh, 0, tb, NL80211_ATTR_MAX, station_msg_policy);
	if (rc < 0)
		return rc;
	rc = attrs_whole(genlmsg_attrdata(gnlh, 0), genlmsg_attrlen(gnlh, 0));
	if (rc < 0)
		return rc;
	if (!tb[NL80211_ATTR_MAC] || !tb[NL80211_ATTR_STA_INFO])
		return -NLE_MISSING_ATTR;
	rc = nla_parse_nested(si, NL80211_STA_INFO_MAX, tb[NL80211_ATTR_STA_INFO], sta_info_policy);
	if (rc < 0)
		return rc;
	rc = attrs_whole(nla_data(tb[NL80211_ATTR_STA_INFO]), nla_len(tb[NL80211_ATTR_STA_INFO]));
	if (rc < 0)
		return rc;

	memset(&s, 0, sizeof(s));
	memcpy(s.mac, nla_data(tb[NL80211_ATTR_MAC]), sizeof(s.mac));
#define HAVE(field) (s.present |= 1u << (field))
	if (tb[NL80211_ATTR_IFINDEX]) {
		s.ifindex = nla_get_u32(tb[NL80211_ATTR_IFINDEX]);
		HAVE(SI_IFINDEX);
	}
	if (si[NL80211_STA_INFO_RX_BYTES64]) {
		s.rx_bytes = nla_get_u64(si[NL80211_STA_INFO_RX_BYTES64]);
		s.rx_bytes64 = true;
		HAVE(SI_RX_BYTES);
	} else if (si[NL80211_STA_INFO_RX_BYTES]) {
		s.rx_bytes = nla_get_u32(si[NL80211_STA_INFO_RX_BYTES]);
		HAVE(SI_RX_BYTES);
	}
	if (si[NL80211_STA_INFO_TX_BYTES64]) {
		s.tx_bytes = nla_get_u64(si[NL80211_STA_INFO_TX_BYTES64]);
		s.tx_bytes64 = true;
		HAVE(SI_TX_BYTES);
	} else if (si[NL80211_STA_INFO_TX_BYTES]) {
		s.tx_bytes = nla_get_u32(si[NL80211_STA_INFO_TX_BYTES]);
		HAVE(SI_TX_BYTES);
	}
	if (si[NL80211_STA_INFO_RX_PACKETS]) {
		s.rx_packets = nla_get_u32(si[NL80211_STA_INFO_RX_PACKETS]);
		HAVE(SI_RX_PACKETS);
	}
	if (si[NL80211_STA_INFO_TX_PACKETS]) {
		s.tx_packets = nla_get_u32(si[NL80211_STA_INFO_TX_PACKETS]);
		HAVE(SI_TX_PACKETS);
	}
	if (si[NL80211_STA_INFO_TX_RETRIES]) {
		s.tx_retries = nla_get_u32(si[NL80211_STA_INFO_TX_RETRIES]);
		HAVE(SI_TX_RETRIES);
	}
	if (si[NL80211_STA_INFO_TX_FAILED]) {
		s.tx_failed = nla_get_u32(si[NL80211_STA_INFO_TX_FAILED]);
		HAVE(SI_TX_FAILED);
	}
	/* dBm, sent as the u8 of an s8 */
	if (si[NL80211_STA_INFO_SIGNAL]) {
		s.signal_dbm = (int8_t)nla_get_u8(si[NL80211_STA_INFO_SIGNAL]);
		HAVE(SI_SIGNAL);
	}
	if (si[NL80211_STA_INFO_SIGNAL_AVG]) {
		s.signal_avg_dbm = (int8_t)nla_get_u8(si[NL80211_STA_INFO_SIGNAL_AVG]);
		HAVE(SI_SIGNAL_AVG);
	}
	if (si[NL80211_STA_INFO_TX_BITRATE]) {
		rc = parse_rate(si[NL80211_STA_INFO_TX_BITRATE], &s.tx_rate);
		if (rc < 0)
			return rc;
		HAVE(SI_TX_BITRATE);
	}
	if (si[NL80211_STA_INFO_RX_BITRATE]) {
		rc = parse_rate(si[NL80211_STA_INFO_RX_BITRATE], &s.rx_rate);
		if (rc < 0)
			return rc;
		HAVE(SI_RX_BITRATE);
	}
	if (si[NL80211_STA_INFO_RX_DURATION]) {
		s.rx_duration_us = nla_get_u64(si[NL80211_STA_INFO_RX_DURATION]);
		HAVE(SI_RX_DURATION);
	}
	if (si[NL80211_STA_INFO_TX_DURATION]) {
		s.tx_duration_us = nla_get_u64(si[NL80211_STA_INFO_TX_DURATION]);
		HAVE(SI_TX_DURATION);
	}
	if (si[NL80211_STA_INFO_AIRTIME_WEIGHT]) {
		s.airtime_weight = nla_get_u16(si[NL80211_STA_INFO_AIRTIME_WEIGHT]);
		HAVE(SI_AIRTIME_WEIGHT);
	}
	if (si[NL80211_STA_INFO_INACTIVE_TIME]) {
		s.inactive_ms = nla_get_u32(si[NL80211_STA_INFO_INACTIVE_TIME]);
		HAVE(SI_INACTIVE_TIME);
	}
	if (si[NL80211_STA_INFO_CONNECTED_TIME]) {
		s.connected_s = nla_get_u32(si[NL80211_STA_INFO_CONNECTED_TIME]);
		HAVE(SI_CONNECTED_TIME);
	}
#undef HAVE
	*out = s;
	return 0;
}

struct dump_state {
	int (*on_station)(const struct station_info *, void *);
	void *arg;
	unsigned n;       /* replies seen */
	unsigned bad;     /* the first one that failed, 1-based */
	int error;        /* its libnl error code */
};

static int on_dump_reply(struct nl_msg *msg, void *arg)
{
	struct dump_state *d = arg;
	struct station_info s;
	int rc;

	d->n++;
	/* after an error, read the rest of the dump but drop it */
	if (d->error)
		return NL_SKIP;
	rc = sta_info_parse(msg, &s);
	if (rc == 0)
		rc = d->on_station(&s, d->arg);
	if (rc < 0) {
		d->error = rc;
		d->bad = d->n;
	}
	return NL_SKIP;
}

int sta_info_dump(struct nl80211 *nl, int ifindex, const char *ifname,
		  int (*on_station)(const struct station_info *, void *), void *arg, char *err, size_t errlen)
{
	struct dump_state d = {.on_station = on_station, .arg = arg};
	struct nl_msg *msg;
	char op[64];
	int rc;

	snprintf(op, sizeof(op), "dump stations on %s", ifname);
	msg = nl80211_msg_new(nl, NL80211_CMD_GET_STATION, NLM_F_DUMP, ifindex);
	if (!msg) {
		snprintf(err, errlen, "%s: %s", op, nl_geterror(-NLE_NOMEM));
		return -1;
	}
	rc = nl80211_request(nl, msg, on_dump_reply, &d, op, err, errlen);
	nlmsg_free(msg);
	if (rc < 0)
		return -1;
	if (d.error) {
		snprintf(err, errlen, "%s: station %u: %s", op, d.bad, nl_geterror(d.error));
		return -1;
	}
	return 0;
}
