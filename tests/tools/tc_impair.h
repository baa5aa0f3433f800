/* SPDX-License-Identifier: GPL-2.0 */
/* tc_impair.h - what tc_impair.bpf.c and tc_impair.c share. */
#ifndef TC_IMPAIR_H
#define TC_IMPAIR_H

enum impair_mode {
	IMPAIR_BLACKHOLE = 0,
	IMPAIR_ECN_PROB = 1,
	IMPAIR_ECN_VQ = 2,
	IMPAIR_COUNT = 3, /* pass everything, count only */
};

/* per-CPU counters, in segments (a GSO super-packet counts gso_segs)
 * but for IMPAIR_SKBS */
enum impair_counter {
	IMPAIR_PACKETS = 0, /* seen while active */
	IMPAIR_SKBS,        /* the same in skbs: < packets when GSO is on */
	IMPAIR_DROPPED,     /* blackhole */
	IMPAIR_ECT,         /* ECT(0) or ECT(1) seen (ecn, count) */
	IMPAIR_CE_SEEN,     /* already CE on arrival (ecn, count) */
	IMPAIR_MARKED,      /* set to CE here (ecn) */
	IMPAIR_NR_COUNTERS,
};

#endif
