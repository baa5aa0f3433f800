// SPDX-License-Identifier: GPL-2.0
/*
 * airtime.c - PHY rates and frame airtime; the constants and where they
 * come from are in airtime.h.
 *
 * Everything is integer nanoseconds until the result, so the 3.6 us short
 * GI and 13.6 us HE symbols need no floating point. The PHY rate is the one
 * input besides the PHY kind: N_DBPS (data bits per symbol) is recovered
 * from it, which is exact because every rate here is N_DBPS / T_SYM
 * truncated to kbit/s, an error far below one bit per symbol.
 */
#include "airtime.h"

#define NS_PER_US 1000u

/* Modulation and coding per MCS (mod 8 for HT): bits per subcarrier and
 * coding rate num/den (19.5, 21.5, 27.5). */
static const struct {
	uint8_t bits, num, den;
} mcs_modulation[12] = {
	{ 1, 1, 2 },  /* 0  BPSK 1/2 */
	{ 2, 1, 2 },  /* 1  QPSK 1/2 */
	{ 2, 3, 4 },  /* 2  QPSK 3/4 */
	{ 4, 1, 2 },  /* 3  16-QAM 1/2 */
	{ 4, 3, 4 },  /* 4  16-QAM 3/4 */
	{ 6, 2, 3 },  /* 5  64-QAM 2/3 */
	{ 6, 3, 4 },  /* 6  64-QAM 3/4 */
	{ 6, 5, 6 },  /* 7  64-QAM 5/6 */
	{ 8, 3, 4 },  /* 8  256-QAM 3/4 (VHT, HE) */
	{ 8, 5, 6 },  /* 9  256-QAM 5/6 */
	{ 10, 3, 4 }, /* 10 1024-QAM 3/4 (HE) */
	{ 10, 5, 6 }, /* 11 1024-QAM 5/6 */
};

#define HT_SYMBOL_NS 4000
#define HT_SHORT_GI_SYMBOL_NS 3600
#define HE_SYMBOL_BASE_NS 12800 /* 12.8 us of data, plus the GI */
#define HE_LTF_2X_NS 6400
#define HE_LTF_4X_NS 12800
#define MAX_SS 8

static uint32_t rate_kbps(unsigned data_subcarriers, unsigned mcs, unsigned nss, unsigned symbol_ns)
{
	uint64_t bits; /* N_DBPS x den */

	if (mcs >= sizeof(mcs_modulation) / sizeof(mcs_modulation[0]) || nss < 1 || nss > MAX_SS ||
	    !data_subcarriers || !symbol_ns)
		return 0;
	bits = (uint64_t)data_subcarriers * mcs_modulation[mcs].bits * mcs_modulation[mcs].num * nss;
	return (uint32_t)(bits * 1000000u / ((uint64_t)mcs_modulation[mcs].den * symbol_ns));
}

static unsigned ht_symbol_ns(unsigned gi_ns)
{
	return gi_ns == 400 ? HT_SHORT_GI_SYMBOL_NS : HT_SYMBOL_NS;
}

uint32_t ht_rate_kbps(unsigned mcs, unsigned bw_mhz, unsigned gi_ns)
{
	unsigned sd = bw_mhz == 40 ? 108 : bw_mhz == 20 ? 52 : 0;

	/* MCS 32 (40 MHz duplicate) and 33-76 (unequal modulation) are not
	 * a per-stream table lookup; they are left unknown. */
	if (mcs > 31)
		return 0;
	return rate_kbps(sd, mcs % 8, mcs / 8 + 1, ht_symbol_ns(gi_ns));
}

static unsigned vht_data_subcarriers(unsigned bw_mhz)
{
	switch (bw_mhz) {
	case 20:
		return 52;
	case 40:
		return 108;
	case 80:
		return 234;
	case 160:
		return 468;
	default:
		return 0;
	}
}

uint32_t vht_rate_kbps(unsigned mcs, unsigned nss, unsigned bw_mhz, unsigned gi_ns)
{
	if (mcs > 9)
		return 0;
	return rate_kbps(vht_data_subcarriers(bw_mhz), mcs, nss, ht_symbol_ns(gi_ns));
}

static unsigned he_symbol_ns(unsigned gi_ns)
{
	return HE_SYMBOL_BASE_NS + (gi_ns == 1600 || gi_ns == 3200 ? gi_ns : 800);
}

static unsigned he_ru_data_subcarriers(unsigned ru_tones)
{
	switch (ru_tones) {
	case 26:
		return 24;
	case 52:
		return 48;
	case 106:
		return 102;
	case 242:
		return 234;
	case 484:
		return 468;
	case 996:
		return 980;
	case 1992:
		return 1960;
	default:
		return 0;
	}
}

uint32_t he_ru_rate_kbps(unsigned mcs, unsigned nss, unsigned ru_tones, unsigned gi_ns)
{
	return rate_kbps(he_ru_data_subcarriers(ru_tones), mcs, nss, he_symbol_ns(gi_ns));
}

uint32_t he_rate_kbps(unsigned mcs, unsigned nss, unsigned bw_mhz, unsigned gi_ns)
{
	/* A whole channel is the RU of its width. */
	unsigned ru = bw_mhz == 20 ? 242 : bw_mhz == 40 ? 484 : bw_mhz == 80 ? 996 : bw_mhz == 160 ? 1992 : 0;

	return he_ru_rate_kbps(mcs, nss, ru, gi_ns);
}

/* Long training fields for N space-time streams (Tables 19-13, 21-13). */
static unsigned ltf_count(unsigned nss)
{
	if (nss <= 1)
		return 1;
	if (nss == 2)
		return 2;
	if (nss <= 4)
		return 4;
	return nss <= 6 ? 6 : 8;
}

static bool band_is_2g4(const struct radio_info *r)
{
	if (r->freq_mhz)
		return r->freq_mhz >= 2400 && r->freq_mhz < 2500;
	return r->phy == PHY_DSSS; /* DSSS exists only there; OFDM without a channel: clause 17 */
}

/* How one PPDU of an OFDM-family PHY is timed. */
struct ofdm_timing {
	uint32_t preamble_ns;   /* everything before the data symbols */
	uint32_t symbol_ns;
	uint32_t bits_per_symbol; /* N_DBPS */
	bool round_to_4us;      /* HT/VHT short GI (19.4.3, 21.4.3) */
	uint32_t extension_ns;  /* 2.4 GHz signal extension */
};

static bool ofdm_timing_of(const struct radio_info *r, struct ofdm_timing *t)
{
	unsigned nss = r->nss ? r->nss : 1, gi_ns = r->gi_ns_div100 * 100u;

	t->round_to_4us = false;
	switch (r->phy) {
	case PHY_OFDM:
		t->preamble_ns = AIRTIME_OFDM_PREAMBLE_US * NS_PER_US;
		t->symbol_ns = AIRTIME_OFDM_SYMBOL_US * NS_PER_US;
		break;
	case PHY_HT:
		t->preamble_ns = (AIRTIME_OFDM_PREAMBLE_US + AIRTIME_HT_SIG_US + AIRTIME_HT_STF_US +
				  AIRTIME_HT_LTF_US * ltf_count(nss)) * NS_PER_US;
		t->symbol_ns = ht_symbol_ns(gi_ns);
		t->round_to_4us = t->symbol_ns == HT_SHORT_GI_SYMBOL_NS;
		break;
	case PHY_VHT:
		t->preamble_ns = (AIRTIME_OFDM_PREAMBLE_US + AIRTIME_VHT_SIG_A_US + AIRTIME_VHT_STF_US +
				  AIRTIME_VHT_LTF_US * ltf_count(nss) + AIRTIME_VHT_SIG_B_US) * NS_PER_US;
		t->symbol_ns = ht_symbol_ns(gi_ns);
		t->round_to_4us = t->symbol_ns == HT_SHORT_GI_SYMBOL_NS;
		break;
	case PHY_HE: {
		unsigned ltf_ns = gi_ns == 3200 ? HE_LTF_4X_NS + 3200 : HE_LTF_2X_NS + (gi_ns == 1600 ? 1600 : 800);

		t->preamble_ns = (AIRTIME_OFDM_PREAMBLE_US + AIRTIME_HE_RL_SIG_US + AIRTIME_HE_SIG_A_US +
				  AIRTIME_HE_STF_US) * NS_PER_US + ltf_count(nss) * ltf_ns;
		t->symbol_ns = he_symbol_ns(gi_ns);
		break;
	}
	default:
		return false;
	}
	t->bits_per_symbol = (uint32_t)(((uint64_t)r->rate_kbps * t->symbol_ns + 500000) / 1000000);
	t->extension_ns = band_is_2g4(r) ? AIRTIME_SIGNAL_EXTENSION_US * NS_PER_US : 0;
	return t->bits_per_symbol > 0;
}

static uint64_t div_round_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

static uint64_t ofdm_data_ns(const struct ofdm_timing *t, uint32_t len)
{
	uint64_t bits = AIRTIME_SERVICE_BITS + 8ull * len + AIRTIME_TAIL_BITS;
	uint64_t symbols = div_round_up(bits, t->bits_per_symbol);

	if (t->round_to_4us)
		return div_round_up(symbols * t->symbol_ns, HT_SYMBOL_NS) * HT_SYMBOL_NS;
	return symbols * t->symbol_ns;
}

static uint64_t dsss_ns(bool short_preamble, uint32_t rate, uint32_t len)
{
	/* 1 Mbit/s is always sent with the long preamble (16.2.2.3). */
	unsigned preamble = short_preamble && rate > 1000 ? AIRTIME_DSSS_SHORT_PREAMBLE_US
							  : AIRTIME_DSSS_LONG_PREAMBLE_US;

	return (preamble + div_round_up(8ull * len * 1000u, rate)) * NS_PER_US;
}

/* SIFS and the control response (ACK or BlockAck of resp_len bytes). */
static uint64_t response_ns(const struct radio_info *r, uint32_t resp_len)
{
	uint64_t sifs = (band_is_2g4(r) ? AIRTIME_SIFS_2G4_US : AIRTIME_SIFS_5G_US) * NS_PER_US;
	struct radio_info basic = *r;
	struct ofdm_timing t;

	if (r->phy == PHY_DSSS)
		return sifs + dsss_ns(r->short_preamble, r->rate_kbps >= 2000 ? 2000 : 1000, resp_len);
	basic.phy = PHY_OFDM;
	basic.rate_kbps = r->rate_kbps >= 24000 ? 24000 : r->rate_kbps >= 12000 ? 12000 : 6000;
	ofdm_timing_of(&basic, &t);
	return sifs + t.preamble_ns + ofdm_data_ns(&t, resp_len) + t.extension_ns;
}

static bool rate_known(const struct radio_info *r)
{
	return r && r->rate_kbps && r->phy != PHY_NONE;
}

uint32_t airtime_us(const struct radio_info *r, uint32_t mpdu_len, bool acked)
{
	struct ofdm_timing t;
	uint64_t ns;

	if (!rate_known(r))
		return 0;
	if (r->phy == PHY_DSSS) {
		ns = dsss_ns(r->short_preamble, r->rate_kbps, mpdu_len);
	} else {
		if (!ofdm_timing_of(r, &t))
			return 0;
		ns = t.preamble_ns + ofdm_data_ns(&t, mpdu_len) + t.extension_ns;
	}
	if (acked)
		ns += response_ns(r, AIRTIME_ACK_LEN);
	return (uint32_t)div_round_up(ns, NS_PER_US);
}

uint32_t airtime_ampdu_subframe_us(const struct radio_info *r, uint32_t mpdu_len, bool last, bool acked)
{
	struct ofdm_timing t;
	uint64_t bytes, ns;

	if (!rate_known(r))
		return 0;
	if ((r->phy != PHY_HT && r->phy != PHY_VHT && r->phy != PHY_HE) || !ofdm_timing_of(r, &t))
		return airtime_us(r, mpdu_len, acked);
	/* Subframes but the last are padded to a multiple of 4 bytes. */
	bytes = AIRTIME_AMPDU_DELIMITER_LEN + (uint64_t)mpdu_len;
	if (!last)
		bytes = (bytes + 3) & ~3ull;
	ns = bytes * 8 * t.symbol_ns / t.bits_per_symbol;
	if (last) {
		/* The PPDU's symbols are rounded up to a whole one; not knowing
		 * the other subframes, charge the mean of that: half a symbol. */
		ns += t.preamble_ns + t.extension_ns + t.symbol_ns / 2 +
		      (uint64_t)(AIRTIME_SERVICE_BITS + AIRTIME_TAIL_BITS) * t.symbol_ns / t.bits_per_symbol;
		if (acked)
			ns += response_ns(r, AIRTIME_BLOCK_ACK_LEN);
	}
	return (uint32_t)((ns + NS_PER_US / 2) / NS_PER_US);
}
