// SPDX-License-Identifier: GPL-2.0
/*
 * radiotap.c - DLT_IEEE802_11_RADIO: a radiotap header, then an 802.11
 * frame. There is no radiotap library in Debian, so the header is parsed
 * here as radiotap.org defines it:
 *
 *   u8 version (0), u8 pad, le16 length (whole header), le32 present[]
 *   then the fields, in presence-bit order, each aligned to its natural
 *   size counted from the start of the header.
 *
 * Presence words chain while bit 31 (Ext) is set; all of them come before
 * the first field. Bit 29 makes the next word start the radiotap namespace
 * again (bit 0 = TSFT: repeated fields, e.g. one antenna signal per
 * antenna); bit 30 makes it a vendor namespace, announced by a field
 * (OUI, sub-namespace, le16 skip_length) after which skip_length bytes of
 * vendor data follow; avmon knows no vendor namespace and skips that data
 * whole. A field this decoder has no size for (bit 28 TLVs, or something
 * newer) ends the parse: the fields after it cannot be located, but what
 * was read so far is good.
 *
 * A field that would end past the header length is MAL_BAD_RADIOTAP, not
 * truncation: the header length was already checked against the capture.
 */
#include "airtime.h"
#include "decode.h"

#define RADIOTAP_MIN_LEN 8
#define RT_PRESENT_RADIOTAP_NS (1u << 29)
#define RT_PRESENT_VENDOR_NS (1u << 30)
#define RT_PRESENT_EXT (1u << 31)
#define RT_FIELD_BITS 29 /* bits 0-28 of a word name fields */

enum radiotap_field {
	RT_TSFT = 0,
	RT_FLAGS = 1,
	RT_RATE = 2,
	RT_CHANNEL = 3,
	RT_DBM_ANTSIGNAL = 5,
	RT_XCHANNEL = 18,
	RT_MCS = 19,
	RT_AMPDU_STATUS = 20,
	RT_VHT = 21,
	RT_HE = 23,
	RT_TLV = 28, /* the rest of the header is TLVs: fixed fields end here */
};

/* Alignment and size of the fields before the TLV bit (radiotap.org
 * "Defined fields"). */
static const struct {
	uint8_t align, size;
} rt_field_layout[RT_TLV] = {
	[0] = { 8, 8 },   /* TSFT */
	[1] = { 1, 1 },   /* Flags */
	[2] = { 1, 1 },   /* Rate */
	[3] = { 2, 4 },   /* Channel: le16 freq, le16 flags */
	[4] = { 1, 2 },   /* FHSS */
	[5] = { 1, 1 },   /* dBm antenna signal */
	[6] = { 1, 1 },   /* dBm antenna noise */
	[7] = { 2, 2 },   /* Lock quality */
	[8] = { 2, 2 },   /* TX attenuation */
	[9] = { 2, 2 },   /* dB TX attenuation */
	[10] = { 1, 1 },  /* dBm TX power */
	[11] = { 1, 1 },  /* Antenna */
	[12] = { 1, 1 },  /* dB antenna signal */
	[13] = { 1, 1 },  /* dB antenna noise */
	[14] = { 2, 2 },  /* RX flags */
	[15] = { 2, 2 },  /* TX flags */
	[16] = { 1, 1 },  /* RTS retries */
	[17] = { 1, 1 },  /* data retries */
	[18] = { 4, 8 },  /* XChannel: le32 flags, le16 freq, u8 channel, u8 max power */
	[19] = { 1, 3 },  /* MCS: known, flags, mcs */
	[20] = { 4, 8 },  /* A-MPDU status: le32 reference, le16 flags, u8 crc, u8 reserved */
	[21] = { 2, 12 }, /* VHT */
	[22] = { 8, 12 }, /* timestamp */
	[23] = { 2, 12 }, /* HE: le16 data1..data6 */
	[24] = { 2, 12 }, /* HE-MU */
	[25] = { 2, 6 },  /* HE-MU-other-user */
	[26] = { 1, 1 },  /* 0-length PSDU */
	[27] = { 2, 4 },  /* L-SIG */
};

/* Flags field */
#define RT_FLAG_SHORT_PREAMBLE 0x02
#define RT_FLAG_FCS_AT_END 0x10
#define RT_FLAG_DATA_PAD 0x20
#define RT_FLAG_BAD_FCS 0x40
/* Rate field values with this bit are MCS indices (a FreeBSD habit), not
 * 500 kbit/s units; without bandwidth and GI they give no rate. */
#define RT_RATE_MCS_BIT 0x80
/* MCS field */
#define RT_MCS_KNOWN_BW 0x01
#define RT_MCS_KNOWN_MCS 0x02
#define RT_MCS_KNOWN_GI 0x04
#define RT_MCS_BW_MASK 0x03
#define RT_MCS_BW_40 1
#define RT_MCS_SHORT_GI 0x04
/* A-MPDU status flags */
#define RT_AMPDU_LAST_KNOWN 0x0004
#define RT_AMPDU_IS_LAST 0x0008
/* VHT field */
#define RT_VHT_KNOWN_GI 0x0004
#define RT_VHT_KNOWN_BW 0x0040
#define RT_VHT_SHORT_GI 0x04
/* HE field (data1..data6 are he[0]..he[5]) */
#define RT_HE1_MCS_KNOWN 0x0020
#define RT_HE1_STBC_KNOWN 0x0200
#define RT_HE1_BW_RU_KNOWN 0x4000
#define RT_HE2_GI_KNOWN 0x0002
#define RT_HE3_MCS_SHIFT 8
#define RT_HE3_STBC 0x8000
#define RT_HE5_BW_RU_MASK 0x000f
#define RT_HE5_GI_SHIFT 4
#define RT_HE6_NSTS_MASK 0x000f

/* The raw values avmon uses, as found. */
struct radiotap_values {
	bool has_flags, has_rate, has_channel, has_xchannel, has_signal;
	bool has_mcs, has_ampdu, has_vht, has_he;
	uint8_t flags, rate;
	uint16_t channel_freq, xchannel_freq;
	int8_t signal_dbm;
	uint8_t mcs_known, mcs_flags, mcs;
	uint32_t ampdu_ref;
	uint16_t ampdu_flags;
	uint16_t vht_known;
	uint8_t vht_flags, vht_bw, vht_mcs_nss[4];
	uint16_t he[6];
};

static void rt_field_read(struct cursor *h, unsigned field, struct radiotap_values *v)
{
	switch (field) {
	case RT_FLAGS:
		v->has_flags = true;
		v->flags = cursor_u8(h);
		break;
	case RT_RATE:
		v->has_rate = true;
		v->rate = cursor_u8(h);
		break;
	case RT_CHANNEL:
		v->has_channel = true;
		v->channel_freq = cursor_le16(h);
		cursor_skip(h, 2); /* channel flags: the rate says DSSS or OFDM */
		break;
	case RT_DBM_ANTSIGNAL:
		/* The first is the combined signal; repeats in later radiotap
		 * namespaces are per antenna. */
		if (!v->has_signal) {
			v->has_signal = true;
			v->signal_dbm = (int8_t)cursor_u8(h);
		} else {
			cursor_skip(h, 1);
		}
		break;
	case RT_XCHANNEL:
		v->has_xchannel = true;
		cursor_skip(h, 4); /* flags */
		v->xchannel_freq = cursor_le16(h);
		cursor_skip(h, 2); /* channel number, max power */
		break;
	case RT_MCS:
		v->has_mcs = true;
		v->mcs_known = cursor_u8(h);
		v->mcs_flags = cursor_u8(h);
		v->mcs = cursor_u8(h);
		break;
	case RT_AMPDU_STATUS:
		v->has_ampdu = true;
		v->ampdu_ref = cursor_le32(h);
		v->ampdu_flags = cursor_le16(h);
		cursor_skip(h, 2); /* delimiter CRC, reserved */
		break;
	case RT_VHT:
		v->has_vht = true;
		v->vht_known = cursor_le16(h);
		v->vht_flags = cursor_u8(h);
		v->vht_bw = cursor_u8(h);
		cursor_copy(h, v->vht_mcs_nss, sizeof(v->vht_mcs_nss));
		cursor_skip(h, 4); /* coding, group id, partial AID */
		break;
	case RT_HE:
		v->has_he = true;
		for (int i = 0; i < 6; i++)
			v->he[i] = cursor_le16(h);
		break;
	default:
		cursor_skip(h, rt_field_layout[field].size);
		break;
	}
}

/* Read the fields of the header the cursor spans (exactly it_len bytes). */
static enum malformed_reason rt_fields_read(struct cursor *h, struct radiotap_values *v)
{
	size_t words_off, n_words = 0;
	struct cursor words;
	unsigned bit_base = 0;
	bool in_vendor_ns = false;
	uint32_t word;

	cursor_skip(h, 4); /* version, pad, length: checked by the caller */
	words_off = h->off;
	do {
		word = cursor_le32(h);
		if (h->overrun)
			return MAL_BAD_RADIOTAP; /* Ext chain runs past the header */
		n_words++;
	} while (word & RT_PRESENT_EXT);

	/* A second cursor walks the presence words while h walks the fields. */
	cursor_init(&words, h->base + words_off, 4 * n_words, 4 * n_words);
	for (size_t i = 0; i < n_words; i++) {
		word = cursor_le32(&words);
		for (unsigned bit = 0; !in_vendor_ns && bit < RT_FIELD_BITS; bit++) {
			unsigned field = bit_base + bit;

			if (!(word & (1u << bit)))
				continue;
			if (field >= RT_TLV)
				return MAL_NONE; /* sizes unknown from here: keep what we have */
			cursor_align(h, rt_field_layout[field].align);
			if (!cursor_need(h, rt_field_layout[field].size))
				return MAL_BAD_RADIOTAP;
			rt_field_read(h, field, v);
		}
		if ((word & RT_PRESENT_RADIOTAP_NS) && (word & RT_PRESENT_VENDOR_NS))
			return MAL_BAD_RADIOTAP; /* the next namespace cannot be both */
		if (word & RT_PRESENT_VENDOR_NS) {
			uint16_t skip_length;

			cursor_align(h, 2);
			cursor_skip(h, 4); /* OUI, sub-namespace */
			skip_length = cursor_le16(h);
			cursor_skip(h, skip_length);
			if (h->overrun)
				return MAL_BAD_RADIOTAP;
			in_vendor_ns = true;
			bit_base = 0;
		} else if (word & RT_PRESENT_RADIOTAP_NS) {
			in_vendor_ns = false;
			bit_base = 0;
		} else {
			bit_base += 32;
		}
	}
	return MAL_NONE;
}

/* VHT bandwidth codes (radiotap.org VHT field): 20/40/80/160 MHz and the
 * sub-channels of wider channels a frame was sent on. */
static uint16_t vht_bw_mhz(uint8_t code)
{
	static const uint16_t bw[26] = {
		20, 40, 20, 20, 80, 40, 40, 20, 20, 20, 20, 160, 80,
		80, 40, 40, 40, 40, 20, 20, 20, 20, 20, 20, 20, 20,
	};

	code &= 0x1f;
	return code < sizeof(bw) / sizeof(bw[0]) ? bw[code] : 20;
}

static bool is_dsss_rate(uint32_t kbps)
{
	/* 1, 2 (DSSS), 5.5, 11 (CCK), 22, 33 (PBCC) Mbit/s */
	return kbps == 1000 || kbps == 2000 || kbps == 5500 || kbps == 11000 || kbps == 22000 ||
	       kbps == 33000;
}

static void rt_he_rate(struct radio_info *r, const struct radiotap_values *v)
{
	/* data5 BW/RU codes: 0-3 whole channels, 4-10 resource units */
	static const uint16_t ru_tones[] = { 242, 484, 996, 1992, 26, 52, 106, 242, 484, 996, 1992 };
	static const uint16_t ru_bw_mhz[] = { 20, 40, 80, 160, 20, 20, 20, 20, 40, 80, 160 };
	static const uint8_t gi_div100[] = { 8, 16, 32, 8 }; /* 3 is reserved */
	unsigned nsts = v->he[5] & RT_HE6_NSTS_MASK, code = 0;

	r->phy = PHY_HE;
	r->mcs = (uint8_t)((v->he[2] >> RT_HE3_MCS_SHIFT) & 0x0f);
	r->gi_ns_div100 = 8;
	if (v->he[1] & RT_HE2_GI_KNOWN)
		r->gi_ns_div100 = gi_div100[(v->he[4] >> RT_HE5_GI_SHIFT) & 3];
	if (v->he[0] & RT_HE1_BW_RU_KNOWN) {
		code = v->he[4] & RT_HE5_BW_RU_MASK;
		if (code >= sizeof(ru_tones) / sizeof(ru_tones[0]))
			code = 0;
	}
	r->bw_mhz = ru_bw_mhz[code];
	/* data6 counts space-time streams; STBC sends each stream twice */
	if ((v->he[0] & RT_HE1_STBC_KNOWN) && (v->he[2] & RT_HE3_STBC) && nsts >= 2)
		nsts /= 2;
	r->nss = (uint8_t)nsts;
	if ((v->he[0] & RT_HE1_MCS_KNOWN) && r->nss)
		r->rate_kbps = he_ru_rate_kbps(r->mcs, r->nss, ru_tones[code], r->gi_ns_div100 * 100u);
}

static void rt_vht_rate(struct radio_info *r, const struct radiotap_values *v)
{
	/* Single-user: user 0 carries the frame; NSS 0 = no such user. */
	r->phy = PHY_VHT;
	r->mcs = v->vht_mcs_nss[0] >> 4;
	r->nss = v->vht_mcs_nss[0] & 0x0f;
	r->bw_mhz = (v->vht_known & RT_VHT_KNOWN_BW) ? vht_bw_mhz(v->vht_bw) : 20;
	r->gi_ns_div100 = (v->vht_known & RT_VHT_KNOWN_GI) && (v->vht_flags & RT_VHT_SHORT_GI) ? 4 : 8;
	if (r->nss)
		r->rate_kbps = vht_rate_kbps(r->mcs, r->nss, r->bw_mhz, r->gi_ns_div100 * 100u);
}

static void rt_ht_rate(struct radio_info *r, const struct radiotap_values *v)
{
	r->phy = PHY_HT;
	r->mcs = v->mcs;
	r->nss = (uint8_t)(v->mcs < 32 ? v->mcs / 8 + 1 : 1);
	r->bw_mhz = (v->mcs_known & RT_MCS_KNOWN_BW) && (v->mcs_flags & RT_MCS_BW_MASK) == RT_MCS_BW_40 ? 40 : 20;
	r->gi_ns_div100 = (v->mcs_known & RT_MCS_KNOWN_GI) && (v->mcs_flags & RT_MCS_SHORT_GI) ? 4 : 8;
	r->rate_kbps = ht_rate_kbps(r->mcs, r->bw_mhz, r->gi_ns_div100 * 100u);
}

static void rt_radio_fill(struct radio_info *r, struct radiotap_extra *x, const struct radiotap_values *v)
{
	r->present = true;
	if (v->has_flags) {
		r->short_preamble = v->flags & RT_FLAG_SHORT_PREAMBLE;
		r->fcs_at_end = v->flags & RT_FLAG_FCS_AT_END;
		r->bad_fcs = v->flags & RT_FLAG_BAD_FCS;
		x->data_pad = v->flags & RT_FLAG_DATA_PAD;
	}
	/* XChannel, where a driver gives both, is the more precise one. */
	if (v->has_xchannel && v->xchannel_freq)
		r->freq_mhz = v->xchannel_freq;
	else if (v->has_channel)
		r->freq_mhz = v->channel_freq;
	r->has_signal = v->has_signal;
	r->signal_dbm = v->signal_dbm;
	if (v->has_ampdu) {
		r->ampdu = true;
		r->ampdu_ref = v->ampdu_ref;
		x->ampdu_last_known = v->ampdu_flags & RT_AMPDU_LAST_KNOWN;
		x->ampdu_last = v->ampdu_flags & RT_AMPDU_IS_LAST;
	}
	/* One PHY per frame; a driver that reports several fields means the
	 * newest one (the others describe capabilities or are stale). */
	if (v->has_he) {
		rt_he_rate(r, v);
	} else if (v->has_vht) {
		rt_vht_rate(r, v);
	} else if (v->has_mcs && (v->mcs_known & RT_MCS_KNOWN_MCS)) {
		rt_ht_rate(r, v);
	} else if (v->has_rate && v->rate && !(v->rate & RT_RATE_MCS_BIT)) {
		r->rate_kbps = v->rate * 500u;
		r->phy = is_dsss_rate(r->rate_kbps) ? PHY_DSSS : PHY_OFDM;
		r->nss = 1;
		r->bw_mhz = 20;
		r->gi_ns_div100 = r->phy == PHY_OFDM ? 8 : 0;
	}
}

enum malformed_reason radiotap_decode(struct frame *f, struct cursor *c, const struct decode_context *ctx)
{
	const uint8_t *start = cursor_pos(c);
	size_t wire = cursor_wire_left(c);
	struct radiotap_values values = { 0 };
	struct radiotap_extra extra = { 0 };
	struct cursor hdr;
	enum malformed_reason r;
	uint16_t it_len;
	uint8_t version;

	if (!cursor_need(c, RADIOTAP_MIN_LEN))
		return MAL_TRUNCATED;
	version = cursor_u8(c);
	cursor_skip(c, 1); /* pad */
	it_len = cursor_le16(c);
	if (version != 0 || it_len < RADIOTAP_MIN_LEN || it_len > wire)
		return MAL_BAD_RADIOTAP;
	if (!cursor_need(c, it_len - 4u))
		return MAL_TRUNCATED;
	cursor_init(&hdr, start, it_len, it_len);
	r = rt_fields_read(&hdr, &values);
	if (r != MAL_NONE)
		return r;
	rt_radio_fill(&f->radio, &extra, &values);
	cursor_skip(c, it_len - 4u);
	return ieee80211_decode_radio(f, c, ctx, &extra);
}
