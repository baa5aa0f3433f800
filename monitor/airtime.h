/* SPDX-License-Identifier: GPL-2.0 */
/*
 * airtime.h - how long an 802.11 frame holds the medium (docs/design.md §2.8):
 * the PHY preamble and the payload symbols at the frame's rate, plus SIFS
 * and the acknowledgement when the frame asks for one.
 *
 * Clause numbers are those of IEEE Std 802.11-2016; HE (802.11ax) is
 * IEEE Std 802.11ax-2021. Times are microseconds unless named _NS.
 *
 * DSSS/HR-DSSS (clauses 15, 16), 1, 2, 5.5, 11 Mbit/s
 *   long PPDU:  PLCP preamble 144 + PLCP header 48        = 192 (16.2.2.2)
 *   short PPDU: PLCP preamble  72 + PLCP header 24        =  96 (16.2.2.3)
 *   TXTIME = preamble + ceil(8 * LENGTH / rate)                  (16.3.4)
 *   aSIFSTime 10
 * OFDM (clause 17, 5 GHz) and ERP-OFDM (clause 18, 2.4 GHz)
 *   T_PREAMBLE 16 + T_SIGNAL 4 = 20; T_SYM 4; N_DBPS = rate * T_SYM
 *   TXTIME = 20 + 4 * ceil((16 service + 8 * LENGTH + 6 tail) / N_DBPS)
 *                                                         (17.4.3)
 *   aSIFSTime 16 (17.4.4); ERP: aSIFSTime 10 and a 6 us signal extension
 *   after every OFDM PPDU in 2.4 GHz (18.3.2.4, 18.4.4), which HT and HE
 *   also carry in 2.4 GHz (19.4.3, 27.4.3).
 * HT mixed format (clause 19)
 *   L-STF 8 + L-LTF 8 + L-SIG 4 + HT-SIG 8 + HT-STF 4 + N_LTF * HT-LTF 4
 *   N_LTF = 1, 2, 4, 4 for 1..4 streams (19.3.9.4.6, Table 19-13)
 *   T_SYM 4 (800 ns GI) or 3.6 (400 ns GI); with the short GI the symbol
 *   time is rounded up to a multiple of 4 us (19.4.3 TXTIME equation)
 *   N_SYM = ceil((16 + 8 * LENGTH + 6) / N_DBPS), one BCC encoder assumed
 *   N_DBPS = data subcarriers (52 at 20, 108 at 40 MHz) x bits/subcarrier
 *            x coding rate x N_SS (19.5, MCS tables 19-27 ff.)
 * VHT (clause 21)
 *   L-STF 8 + L-LTF 8 + L-SIG 4 + VHT-SIG-A 8 + VHT-STF 4
 *   + N_LTF * VHT-LTF 4 + VHT-SIG-B 4 (21.3.8, 21.4.3);
 *   N_LTF = 1, 2, 4, 4, 6, 6, 8, 8 for 1..8 streams (Table 21-13)
 *   data subcarriers 52/108/234/468 at 20/40/80/160 MHz (21.5)
 * HE SU (802.11ax-2021 clause 27)
 *   L-STF 8 + L-LTF 8 + L-SIG 4 + RL-SIG 4 + HE-SIG-A 8 + HE-STF 4
 *   + N_LTF * HE-LTF (27.3.11, 27.4.3); HE-LTF is taken as 2x (6.4 us) + GI
 *   for 0.8/1.6 us GI and 4x (12.8 us) + 3.2 us GI for 3.2 us GI
 *   T_SYM = 12.8 + GI (0.8, 1.6, 3.2); no packet extension assumed
 *   data subcarriers 234/468/980/1960 at 20/40/80/160 MHz (27.5), or
 *   24/48/102/234/468/980/1960 for 26/52/106/242/484/996/2x996-tone RUs
 * Acknowledgement (10.7.6.5: control responses go at the highest mandatory
 * rate not above the eliciting frame's rate)
 *   DSSS: ACK (14 bytes, 9.3.1.4) at 2 Mbit/s (1 Mbit/s after a 1 Mbit/s
 *         frame) with the data frame's preamble
 *   otherwise: non-HT OFDM at 24, 12 or 6 Mbit/s; BlockAck (compressed,
 *         32 bytes, 9.3.1.9) after an A-MPDU
 *   SIFS 10 us in 2.4 GHz (DSSS, ERP, HT/HE there), 16 us otherwise
 * The band is the radiotap channel's (r->freq_mhz); without one, DSSS is
 * 2.4 GHz and the OFDM family is timed as in 5 GHz (no signal extension).
 * (Between a 2.4 GHz OFDM frame and its ACK, signal extension 6 + SIFS 10
 * make the 16 us of 5 GHz.)
 *
 * Not modelled: DIFS/AIFS and backoff (contention, not a frame's own
 * time), HT greenfield, STBC (extra LTFs), LDPC (no tail bits), HE DCM,
 * HE ER SU / MU / TB preamble differences, more than one BCC encoder.
 */
#ifndef AVMON_AIRTIME_H
#define AVMON_AIRTIME_H

#include <stdbool.h>
#include <stdint.h>

#include "packet.h"

#define AIRTIME_DSSS_LONG_PREAMBLE_US 192
#define AIRTIME_DSSS_SHORT_PREAMBLE_US 96
#define AIRTIME_OFDM_PREAMBLE_US 20
#define AIRTIME_OFDM_SYMBOL_US 4
#define AIRTIME_SERVICE_BITS 16
#define AIRTIME_TAIL_BITS 6
#define AIRTIME_SIGNAL_EXTENSION_US 6
#define AIRTIME_SIFS_2G4_US 10
#define AIRTIME_SIFS_5G_US 16
#define AIRTIME_HT_SIG_US 8
#define AIRTIME_HT_STF_US 4
#define AIRTIME_HT_LTF_US 4
#define AIRTIME_VHT_SIG_A_US 8
#define AIRTIME_VHT_STF_US 4
#define AIRTIME_VHT_LTF_US 4
#define AIRTIME_VHT_SIG_B_US 4
#define AIRTIME_HE_RL_SIG_US 4
#define AIRTIME_HE_SIG_A_US 8
#define AIRTIME_HE_STF_US 4
#define AIRTIME_ACK_LEN 14       /* bytes, FCS included */
#define AIRTIME_BLOCK_ACK_LEN 32 /* compressed BlockAck, FCS included */
#define AIRTIME_AMPDU_DELIMITER_LEN 4

/*
 * Airtime of one PPDU carrying this MPDU (mpdu_len bytes, FCS included) at
 * r's rate, plus SIFS + ACK when acked. 0 when the rate is unknown
 * (r->rate_kbps == 0 or r->phy == PHY_NONE). r->ampdu is not looked at:
 * for subframes of an A-MPDU see airtime_ampdu_subframe_us().
 */
uint32_t airtime_us(const struct radio_info *r, uint32_t mpdu_len, bool acked);

/*
 * One subframe's share of an A-MPDU (HT and later; other PHYs fall back to
 * airtime_us()): its symbols (delimiter + MPDU + padding to 4 bytes) at the
 * PPDU's rate, rounded to the nearest us. The last subframe also carries the
 * PPDU's fixed cost (preamble, service and tail bits, signal extension, and
 * half a symbol: the mean of the rounding up to whole symbols, which needs
 * the whole PSDU to know) and, when acked, SIFS + BlockAck, so the subframes
 * of one A-MPDU add up to the PPDU within about a symbol. A capture that
 * does not say which subframe is last should pass last = true for each:
 * every subframe is then priced as its own PPDU, an upper bound.
 */
uint32_t airtime_ampdu_subframe_us(const struct radio_info *r, uint32_t mpdu_len, bool last, bool acked);

/* PHY rates in kbit/s (truncated), 0 for combinations that do not exist.
 * gi_ns: 800 or 400 (HT, VHT); 800, 1600 or 3200 (HE). */
uint32_t ht_rate_kbps(unsigned mcs, unsigned bw_mhz, unsigned gi_ns);                 /* MCS 0-31 */
uint32_t vht_rate_kbps(unsigned mcs, unsigned nss, unsigned bw_mhz, unsigned gi_ns);  /* MCS 0-9 */
uint32_t he_rate_kbps(unsigned mcs, unsigned nss, unsigned bw_mhz, unsigned gi_ns);   /* MCS 0-11 */
/* HE in a resource unit of ru_tones (26, 52, 106, 242, 484, 996, 1992). */
uint32_t he_ru_rate_kbps(unsigned mcs, unsigned nss, unsigned ru_tones, unsigned gi_ns);

#endif /* AVMON_AIRTIME_H */
