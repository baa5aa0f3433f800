/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * dscp.h - DSCP names and numbers, as tcpavctl's --dscp takes them and its
 * rule list shows them (tcpav/lib/units.c; not installed: the tools' own
 * helper, not API, and hidden from libtcpav.so).
 *
 * The names are those of the IANA DSCP registry: CS0-CS7, AF11-AF43, EF
 * (46), VA (44, Voice-Admit, RFC 5865), LE (1, Lower Effort, RFC 8622),
 * and DF and BE for 0; in either case.
 */
#ifndef TCPAV_DSCP_H
#define TCPAV_DSCP_H

#ifdef __cplusplus
extern "C" {
#endif

/* A DSCP name, or a decimal number 0-63, into *dscp. Returns 0, or -1 with
 * errno EINVAL (not a name nor a number) or ERANGE (a number above 63),
 * without touching *dscp. */
__attribute__((visibility("hidden"))) int tcpav_parse_dscp(const char *text, unsigned *dscp);

/* The standard name of DSCP dscp ("AF41", "CS0" for 0), or NULL when it has
 * none (or is above 63). */
__attribute__((visibility("hidden"))) const char *tcpav_dscp_name(unsigned dscp);

#ifdef __cplusplus
}
#endif

#endif /* TCPAV_DSCP_H */
