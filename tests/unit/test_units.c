// SPDX-License-Identifier: GPL-2.0
/*
 * test_units.c - tcpav_parse_rate() and tcpav_format_rate() (tcpav.h):
 * iperf3-style rates, suffixes k/M/G/T in either case as powers of 1000,
 * rounded to the nearest bit; errors leave *bps alone and set errno.
 * tcpav_parse_dscp() and tcpav_dscp_name() (dscp.h): tcpavctl's --dscp,
 * the registry's names in either case or 0-63.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tcpav/dscp.h"
#include "tcpav/tcpav.h"
#include "check.h"

#define SENTINEL 0xDEADBEEFCAFEF00Dull

static void parses_tagged(const char *tag, const char *text, uint64_t want)
{
	uint64_t v = SENTINEL;
	int rc;

	errno = 0;
	rc = tcpav_parse_rate(text, &v);
	CHECK(rc == 0 && v == want, "%sparse \"%s\" = %llu (rc %d, got %llu)", tag, text, (unsigned long long)want,
	      rc, (unsigned long long)v);
}

static void parses(const char *text, uint64_t want)
{
	parses_tagged("", text, want);
}

/* text with control characters escaped, for a one-line TAP description */
static const char *shown(const char *text)
{
	static char buf[128];
	size_t o = 0;

	for (; *text && o + 5 < sizeof(buf); text++) {
		if ((unsigned char)*text < 0x20)
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "\\x%02x", (unsigned char)*text);
		else
			buf[o++] = *text;
	}
	buf[o] = '\0';
	return buf;
}

static void rejects(const char *text, int want_errno)
{
	uint64_t v = SENTINEL;
	int rc;

	errno = 0;
	rc = tcpav_parse_rate(text, &v);
	CHECK(rc == -1 && errno == want_errno && v == SENTINEL,
	      "parse \"%s\" fails with %s, *bps untouched (rc %d, errno %d, *bps %s)", shown(text),
	      want_errno == EINVAL ? "EINVAL" : "ERANGE", rc, errno, v == SENTINEL ? "untouched" : "CHANGED");
}

static void formats(uint64_t bps, const char *want)
{
	char buf[64];
	char *ret;

	memset(buf, 'x', sizeof(buf));
	ret = tcpav_format_rate(bps, buf, sizeof(buf));
	CHECK(ret == buf && strcmp(buf, want) == 0, "format %llu = \"%s\" (got \"%s\")", (unsigned long long)bps,
	      want, buf);
}

#define DSCP_SENTINEL 0xDEADu

static void dscp_parses(const char *text, unsigned want)
{
	unsigned v = DSCP_SENTINEL;
	int rc;

	errno = 0;
	rc = tcpav_parse_dscp(text, &v);
	CHECK(rc == 0 && v == want, "dscp \"%s\" = %u (rc %d, got %u)", text, want, rc, v);
}

static void dscp_rejects(const char *text, int want_errno)
{
	unsigned v = DSCP_SENTINEL;
	int rc;

	errno = 0;
	rc = tcpav_parse_dscp(text, &v);
	CHECK(rc == -1 && errno == want_errno && v == DSCP_SENTINEL,
	      "dscp \"%s\" fails with %s, *dscp untouched (rc %d, errno %d, *dscp %s)", shown(text),
	      want_errno == EINVAL ? "EINVAL" : "ERANGE", rc, errno, v == DSCP_SENTINEL ? "untouched" : "CHANGED");
}

static void dscp_tests(void)
{
	/* every name of the registry, with its value (RFC 2474, 2597, 3246,
	 * 5865, 8622) */
	static const struct {
		const char *name;
		unsigned dscp;
	} names[] = {
		{"CS0", 0},   {"CS1", 8},   {"CS2", 16},  {"CS3", 24},  {"CS4", 32},  {"CS5", 40},  {"CS6", 48},
		{"CS7", 56},  {"AF11", 10}, {"AF12", 12}, {"AF13", 14}, {"AF21", 18}, {"AF22", 20}, {"AF23", 22},
		{"AF31", 26}, {"AF32", 28}, {"AF33", 30}, {"AF41", 34}, {"AF42", 36}, {"AF43", 38}, {"EF", 46},
		{"VA", 44},   {"LE", 1},    {"DF", 0},    {"BE", 0},
	};
	unsigned shown_names = 0, v;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		dscp_parses(names[i].name, names[i].dscp);
	/* either case */
	dscp_parses("af41", 34);
	dscp_parses("Af41", 34);
	dscp_parses("ef", 46);
	dscp_parses("cs0", 0);
	dscp_parses("be", 0);
	dscp_parses("df", 0);
	dscp_parses("va", 44);
	dscp_parses("le", 1);
	/* numbers 0-63, decimal */
	dscp_parses("0", 0);
	dscp_parses("34", 34);
	dscp_parses("63", 63);
	dscp_parses("5", 5);
	dscp_parses("034", 34);
	/* not names, not numbers: EINVAL */
	dscp_rejects("", EINVAL);
	dscp_rejects("AF44", EINVAL);
	dscp_rejects("AF14", EINVAL);
	dscp_rejects("AF50", EINVAL);
	dscp_rejects("CS8", EINVAL);
	dscp_rejects("AF4", EINVAL);
	dscp_rejects("AF411", EINVAL);
	dscp_rejects("E F", EINVAL);
	dscp_rejects(" EF", EINVAL);
	dscp_rejects("EF ", EINVAL);
	dscp_rejects("EF\n", EINVAL);
	dscp_rejects("-1", EINVAL);
	dscp_rejects("+5", EINVAL);
	dscp_rejects("-0", EINVAL);
	dscp_rejects("0x22", EINVAL);
	dscp_rejects("34.0", EINVAL);
	dscp_rejects("3 4", EINVAL);
	dscp_rejects("default", EINVAL);
	/* numbers above 63: ERANGE (a TOS byte such as 0x88 = 136 is not a DSCP) */
	dscp_rejects("64", ERANGE);
	dscp_rejects("136", ERANGE);
	dscp_rejects("255", ERANGE);
	dscp_rejects("99999999999999999999999", ERANGE);
	errno = 0;
	v = DSCP_SENTINEL;
	CHECK(tcpav_parse_dscp(NULL, &v) == -1 && errno == EINVAL && v == DSCP_SENTINEL,
	      "dscp NULL text: -1, EINVAL");
	errno = 0;
	CHECK(tcpav_parse_dscp("EF", NULL) == -1 && errno == EINVAL, "dscp into NULL: -1, EINVAL");
	errno = 0;
	CHECK(tcpav_parse_dscp("AF41", &v) == 0 && errno == 0, "a successful dscp parse leaves errno alone");

	/* names back: one per value, the first of the registry's for 0 */
	CHECK(tcpav_dscp_name(34) && strcmp(tcpav_dscp_name(34), "AF41") == 0, "name of 34 is AF41");
	CHECK(tcpav_dscp_name(46) && strcmp(tcpav_dscp_name(46), "EF") == 0, "name of 46 is EF");
	CHECK(tcpav_dscp_name(0) && strcmp(tcpav_dscp_name(0), "CS0") == 0, "name of 0 is CS0");
	CHECK(tcpav_dscp_name(1) && strcmp(tcpav_dscp_name(1), "LE") == 0, "name of 1 is LE");
	CHECK(tcpav_dscp_name(44) && strcmp(tcpav_dscp_name(44), "VA") == 0, "name of 44 is VA");
	CHECK(tcpav_dscp_name(5) == NULL, "5 has no name");
	CHECK(tcpav_dscp_name(64) == NULL && tcpav_dscp_name(136) == NULL, "64 and 136 have no name");
	/* every value 0-63: its name (if any) parses back to it; 23 values
	 * have names (DF and BE are only other names of CS0) */
	for (unsigned d = 0; d <= 63; d++) {
		const char *name = tcpav_dscp_name(d);

		if (!name)
			continue;
		shown_names++;
		v = DSCP_SENTINEL;
		if (tcpav_parse_dscp(name, &v) != 0 || v != d)
			CHECK(0, "name %s of %u parses back (got %u)", name, d, v);
	}
	CHECK(shown_names == 23, "23 of the values 0-63 have a name (got %u), each parsing back", shown_names);
}

int main(void)
{
	dscp_tests();
	/* the examples of tcpav.h and the brief */
	parses("8M", 8000000);
	parses("500k", 500000);
	parses("1.5G", 1500000000);
	parses("0", 0);
	parses("250000", 250000);
	parses("1.25m", 1250000);
	parses("2T", 2000000000000ull);
	/* case-insensitive suffixes, powers of 1000 (not 1024) */
	parses("8m", 8000000);
	parses("500K", 500000);
	parses("1.5g", 1500000000);
	parses("2t", 2000000000000ull);
	parses("1k", 1000);
	parses("0M", 0);
	parses("0.0G", 0);
	parses("007k", 7000);
	/* fractions, rounded to the nearest bit, exactly (no binary float) */
	parses("0.6", 1);
	parses("0.4", 0);
	parses("2.9999", 3);
	parses("123.456789k", 123457);      /* 123456.789 */
	parses("0.000001T", 1000000);
	parses("8.1M", 8100000);            /* 8.1 is not exact in binary */
	parses("0.3G", 300000000);
	parses("4.35M", 4350000);
	parses("1.999999999999999999", 2);  /* beyond 12 fraction digits */
	parses("1.0000000000001", 1);
	{
		uint64_t v = SENTINEL;
		int rc = tcpav_parse_rate("0.5", &v);

		CHECK(rc == 0 && (v == 0 || v == 1), "parse \"0.5\": a tie rounds to 0 or 1 (got %llu)",
		      (unsigned long long)v);
	}
	/* the uint64_t edge */
	/* regression: units.c rejected 18446744073709551610..UINT64_MAX with ERANGE: its
	 * digit loop tests whole > (UINT64_MAX - 9) / 10 before every digit. */
	parses_tagged("", "18446744073709551615", UINT64_MAX);
	parses_tagged("", "18446744073709551610", UINT64_MAX - 5);
	parses("18446744073709551609", UINT64_MAX - 6);
	parses("18446744073709551.615k", UINT64_MAX);
	parses("18446744073709.551615M", UINT64_MAX);
	parses("18446744073709551.6154k", UINT64_MAX); /* .4 bit rounds down */

	/* syntax errors: EINVAL */
	rejects("", EINVAL);
	rejects("M", EINVAL);
	rejects("k", EINVAL);
	rejects("-1", EINVAL);
	rejects("-0", EINVAL);
	rejects("8X", EINVAL);
	rejects("8MM", EINVAL);
	rejects("8Mb", EINVAL);
	rejects("8 M", EINVAL);
	rejects("1e6", EINVAL);
	rejects(" 8M", EINVAL);
	rejects("8M ", EINVAL);
	rejects("8M\n", EINVAL);
	rejects(".", EINVAL);
	rejects("1.2.3", EINVAL);
	rejects("0x10", EINVAL);
	rejects("8,5M", EINVAL);
	rejects("inf", EINVAL);
	rejects("nan", EINVAL);
	rejects("8P", EINVAL);
	/* out of range: ERANGE */
	rejects("99999999999999999999", ERANGE);
	rejects("18446744073709551616", ERANGE);
	rejects("20000000000T", ERANGE);
	rejects("18446744073709552k", ERANGE);
	rejects("18446744073709551.616k", ERANGE);
	rejects("18446744073709551.6156k", ERANGE); /* .6 bit rounds up past the max */
	rejects("999999999999999999999999999999999999999M", ERANGE);
	/* NULL arguments */
	{
		uint64_t v = SENTINEL;

		errno = 0;
		CHECK(tcpav_parse_rate(NULL, &v) == -1 && errno == EINVAL && v == SENTINEL,
		      "parse NULL text: -1, EINVAL");
		errno = 0;
		CHECK(tcpav_parse_rate("8M", NULL) == -1 && errno == EINVAL, "parse into NULL: -1, EINVAL");
	}
	/* success does not need errno cleared and does not set it */
	{
		uint64_t v = 0;

		errno = 0;
		CHECK(tcpav_parse_rate("8M", &v) == 0 && errno == 0, "a successful parse leaves errno alone");
	}

	/* formatting: "<value> <unit>", units bit/s Kbit/s Mbit/s Gbit/s Tbit/s
	 * (tcpav.h's example "12.5 Mbit/s"), k = 1000 */
	formats(12500000, "12.5 Mbit/s");
	formats(500000, "500 Kbit/s");
	formats(999, "999 bit/s");
	formats(0, "0 bit/s");
	formats(1, "1 bit/s");
	formats(1000, "1 Kbit/s");
	formats(8000000, "8 Mbit/s");
	formats(1500000000, "1.5 Gbit/s");
	formats(2000000000000ull, "2 Tbit/s");
	formats(123456, "123.5 Kbit/s");
	formats(999000, "999 Kbit/s");
	/* parse and format agree on the value: format(parse("X<s>")) = "X <S>bit/s" */
	{
		static const struct {
			const char *in, *out;
		} rt[] = {{"8M", "8 Mbit/s"}, {"500k", "500 Kbit/s"}, {"1.5G", "1.5 Gbit/s"},
			  {"12.5m", "12.5 Mbit/s"}, {"250000", "250 Kbit/s"}, {"3T", "3 Tbit/s"}};
		size_t i;

		for (i = 0; i < sizeof(rt) / sizeof(rt[0]); i++) {
			uint64_t v = 0;
			char buf[32];

			tcpav_parse_rate(rt[i].in, &v);
			tcpav_format_rate(v, buf, sizeof(buf));
			CHECK(strcmp(buf, rt[i].out) == 0, "format(parse(\"%s\")) = \"%s\" (got \"%s\")", rt[i].in,
			      rt[i].out, buf);
		}
	}
	/* small buffers: truncated, NUL-terminated, nothing written past len */
	{
		char buf[8];

		memset(buf, 'x', sizeof(buf));
		tcpav_format_rate(12500000, buf, 5);
		CHECK(strcmp(buf, "12.5") == 0 && buf[5] == 'x', "format into 5 bytes: \"12.5\", no overrun (\"%s\")",
		      buf);
		memset(buf, 'x', sizeof(buf));
		tcpav_format_rate(12500000, buf, 1);
		CHECK(buf[0] == '\0' && buf[1] == 'x', "format into 1 byte: empty string");
		memset(buf, 'x', sizeof(buf));
		tcpav_format_rate(12500000, buf, 0);
		CHECK(buf[0] == 'x', "format into 0 bytes writes nothing");
	}
	return check_done();
}
