// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* units.c - iperf3-style rates in bits per second; DSCP names. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "tcpav/abi.h"
#include "tcpav/dscp.h"
#include "tcpav/tcpav.h"

static int rate_multiplier(char suffix, uint64_t *mult)
{
	switch (suffix) {
	case '\0': *mult = 1; return 0;
	case 'k': case 'K': *mult = 1000ull; return 0;
	case 'm': case 'M': *mult = 1000000ull; return 0;
	case 'g': case 'G': *mult = 1000000000ull; return 0;
	case 't': case 'T': *mult = 1000000000000ull; return 0;
	default: return -1;
	}
}

/*
 * Integer parse (no strtod: no locale, no float rounding): digits, an
 * optional fraction of up to 12 digits, an optional suffix, nothing after.
 */
int tcpav_parse_rate(const char *text, uint64_t *bps)
{
	uint64_t whole = 0, frac = 0, frac_scale = 1, mult, value;
	const char *p = text;
	int digits = 0;

	if (!text || !bps) {
		errno = EINVAL;
		return -1;
	}
	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		uint64_t d = (uint64_t)(*p - '0');

		if (whole > (UINT64_MAX - d) / 10) {
			errno = ERANGE;
			return -1;
		}
		whole = whole * 10 + d;
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, digits++) {
			if (frac_scale >= 1000000000000ull)
				continue; /* beyond a picobit: ignored */
			frac = frac * 10 + (uint64_t)(*p - '0');
			frac_scale *= 10;
		}
	}
	if (digits == 0 || rate_multiplier(*p, &mult) < 0 || (*p && p[1] != '\0')) {
		errno = EINVAL;
		return -1;
	}
	if (whole > UINT64_MAX / mult) {
		errno = ERANGE;
		return -1;
	}
	value = whole * mult;
	/* frac / frac_scale * mult, rounded; frac < frac_scale <= 1e12, mult <= 1e12 */
	{
		unsigned __int128 f = (unsigned __int128)frac * mult + frac_scale / 2;

		f /= frac_scale;
		if (value > UINT64_MAX - (uint64_t)f) {
			errno = ERANGE;
			return -1;
		}
		value += (uint64_t)f;
	}
	*bps = value;
	return 0;
}

char *tcpav_format_rate(uint64_t bps, char *buf, size_t len)
{
	static const char *const unit[] = {"bit/s", "Kbit/s", "Mbit/s", "Gbit/s", "Tbit/s"};
	double v = (double)bps;
	size_t u = 0;

	/* 999.95 and up would print as "1000" at 4 digits: next unit */
	while (v >= 999.95 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1000.0;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu %s", (unsigned long long)bps, unit[0]);
	else if (v >= 999.95)
		snprintf(buf, len, "%.0f %s", v, unit[u]); /* beyond Tbit/s: no exponent */
	else
		snprintf(buf, len, "%.4g %s", v, unit[u]);
	return buf;
}

/* The IANA registry's names; the first of a value is the one shown. */
static const struct {
	const char *name;
	unsigned char dscp;
} dscp_names[] = {
	{"CS0", 0},   {"CS1", 8},   {"CS2", 16},  {"CS3", 24},  {"CS4", 32},  {"CS5", 40},
	{"CS6", 48},  {"CS7", 56},  {"AF11", 10}, {"AF12", 12}, {"AF13", 14}, {"AF21", 18},
	{"AF22", 20}, {"AF23", 22}, {"AF31", 26}, {"AF32", 28}, {"AF33", 30}, {"AF41", 34},
	{"AF42", 36}, {"AF43", 38}, {"EF", 46},   {"VA", 44},   {"LE", 1},    {"DF", 0},
	{"BE", 0},
};

int tcpav_parse_dscp(const char *text, unsigned *dscp)
{
	unsigned v = 0;

	if (!text || !dscp || !*text) {
		errno = EINVAL;
		return -1;
	}
	for (size_t i = 0; i < sizeof(dscp_names) / sizeof(dscp_names[0]); i++) {
		if (strcasecmp(text, dscp_names[i].name) == 0) {
			*dscp = dscp_names[i].dscp;
			return 0;
		}
	}
	/* decimal digits only: no sign, no space, no 0x */
	if (text[strspn(text, "0123456789")] != '\0') {
		errno = EINVAL;
		return -1;
	}
	for (const char *p = text; *p; p++) {
		v = v * 10 + (unsigned)(*p - '0');
		if (v > TCPAV_DSCP_MAX) {
			errno = ERANGE;
			return -1;
		}
	}
	*dscp = v;
	return 0;
}

const char *tcpav_dscp_name(unsigned dscp)
{
	for (size_t i = 0; i < sizeof(dscp_names) / sizeof(dscp_names[0]); i++)
		if (dscp_names[i].dscp == dscp)
			return dscp_names[i].name;
	return NULL;
}
