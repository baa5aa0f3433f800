// SPDX-License-Identifier: GPL-2.0
/*
 * test_json.c - the tools' one JSON writer (include/tcpav/json.h): string
 * escaping (quotes, backslashes, control bytes, UTF-8 kept, invalid bytes
 * escaped), number formats, nesting and commas; and the CSV text cell
 * (include/tcpav/csv.h). Outputs are compared as
 * text, since the tools' tests and golden files compare them so too.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tcpav/csv.h"
#include "tcpav/json.h"
#include "check.h"

static char *buf;
static size_t len;
static FILE *mem;
static struct tcpav_json j;

static void start(void)
{
	mem = open_memstream(&buf, &len);
	if (!mem)
		abort();
	tcpav_json_init(&j, mem);
}

/* The text written since start(), compared with WANT. */
static int written(const char *want)
{
	int same;

	fclose(mem);
	same = strcmp(buf, want) == 0;
	if (!same)
		printf("# got  %s\n# want %s\n", buf, want);
	free(buf);
	buf = NULL;
	return same;
}

/* TEXT as a lone string value. */
static int string_is(const char *text, const char *want)
{
	start();
	tcpav_json_string(&j, NULL, text);
	return written(want);
}

static void test_strings(void)
{
	CHECK(string_is("10.0.0.1:5201", "\"10.0.0.1:5201\""), "plain ASCII as it is");
	CHECK(string_is("", "\"\""), "the empty string");
	CHECK(string_is("a\"b\\c/d", "\"a\\\"b\\\\c/d\""), "quote and backslash escaped, slash not");
	CHECK(string_is("\n\r\t\b\f", "\"\\n\\r\\t\\b\\f\""), "the five short escapes");
	CHECK(string_is("\x01\x1f\x7f", "\"\\u0001\\u001f\x7f\""), "other control bytes as \\u00XX; DEL needs none");
	CHECK(string_is("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\""),
	      "well-formed UTF-8 (2, 3 and 4 bytes) copied as it is");
	CHECK(string_is("\xff" "a\xfe", "\"\\u00ffa\\u00fe\""), "bytes that never begin UTF-8 escaped");
	CHECK(string_is("x\xc3", "\"x\\u00c3\""), "a sequence cut short by the end escaped");
	CHECK(string_is("\xc3(", "\"\\u00c3(\""), "a lead byte without its continuation escaped, the next kept");
	CHECK(string_is("\xc0\xaf", "\"\\u00c0\\u00af\""), "an overlong form escaped byte by byte");
	CHECK(string_is("\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\""), "a UTF-16 surrogate (U+D800) escaped");
	CHECK(string_is("\xf4\x90\x80\x80", "\"\\u00f4\\u0090\\u0080\\u0080\""), "above U+10FFFF escaped");
	CHECK(string_is("\xe0\x80\x80", "\"\\u00e0\\u0080\\u0080\""), "an overlong 3-byte form escaped");
	CHECK(string_is("\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\""), "U+10FFFF kept");
	start();
	tcpav_json_string(&j, NULL, NULL);
	CHECK(written("null"), "a NULL string is null");
	start();
	tcpav_json_object_begin(&j, NULL);
	tcpav_json_string(&j, "k\"ey\n", "v");
	tcpav_json_object_end(&j);
	CHECK(written("{\"k\\\"ey\\n\":\"v\"}"), "keys are escaped too");
}

static int number_is(double v, const char *want)
{
	start();
	tcpav_json_number(&j, NULL, v);
	return written(want);
}

static int fixed_is(double v, int decimals, const char *want)
{
	start();
	tcpav_json_fixed(&j, NULL, v, decimals);
	return written(want);
}

static void test_numbers(void)
{
	start();
	tcpav_json_array_begin(&j, NULL);
	tcpav_json_u64(&j, NULL, 0);
	tcpav_json_u64(&j, NULL, UINT64_MAX);
	tcpav_json_i64(&j, NULL, INT64_MIN);
	tcpav_json_i64(&j, NULL, -50);
	tcpav_json_bool(&j, NULL, true);
	tcpav_json_bool(&j, NULL, false);
	tcpav_json_null(&j, NULL);
	tcpav_json_array_end(&j);
	CHECK(written("[0,18446744073709551615,-9223372036854775808,-50,true,false,null]"),
	      "integers in full, booleans, null");
	CHECK(number_is(0.7352941176470588, "0.7352941176"), "numbers with 10 significant digits");
	CHECK(number_is(25e6, "25000000"), "a whole rate without a fraction or exponent");
	CHECK(number_is(1e-7, "1e-07") && number_is(1.5e15, "1.5e+15"), "exponents where %%.10g puts them");
	CHECK(number_is(NAN, "null") && number_is(INFINITY, "null") && number_is(-INFINITY, "null"),
	      "NaN and infinities are null (JSON has none)");
	CHECK(fixed_is(1700000000.123456789, 3, "1700000000.123") && fixed_is(0.5, 4, "0.5000") &&
		      fixed_is(1999999.6, 0, "2000000"),
	      "fixed decimals: 3, 4 and 0");
	CHECK(fixed_is(NAN, 3, "null"), "fixed NaN is null");
	CHECK(fixed_is(0.125, 40, "0.12500000000000000") && fixed_is(2.5, -1, "2"),
	      "decimals clamped to 0..17");
}

static void test_nesting(void)
{
	start();
	tcpav_json_object_begin(&j, NULL);
	tcpav_json_string(&j, "type", "interval");
	tcpav_json_array_begin(&j, "flows");
	for (int i = 0; i < 2; i++) {
		tcpav_json_object_begin(&j, NULL);
		tcpav_json_u64(&j, "id", (uint64_t)i);
		tcpav_json_object_begin(&j, "a_to_b");
		tcpav_json_u64(&j, "packets", 3);
		tcpav_json_object_end(&j);
		tcpav_json_array_begin(&j, "empty");
		tcpav_json_array_end(&j);
		tcpav_json_object_end(&j);
	}
	tcpav_json_array_end(&j);
	tcpav_json_object_begin(&j, "fairness");
	tcpav_json_object_end(&j);
	tcpav_json_number(&j, "capacity_bps", 25e6);
	tcpav_json_object_end(&j);
	tcpav_json_end_line(&j);
	CHECK(written("{\"type\":\"interval\",\"flows\":[{\"id\":0,\"a_to_b\":{\"packets\":3},\"empty\":[]},"
		      "{\"id\":1,\"a_to_b\":{\"packets\":3},\"empty\":[]}],\"fairness\":{},\"capacity_bps\":25000000}\n"),
	      "objects in arrays in objects: a comma between members only, empty ones as {} and []");

	/* JSON lines: each record starts afresh */
	start();
	for (int i = 0; i < 3; i++) {
		tcpav_json_object_begin(&j, NULL);
		tcpav_json_u64(&j, "n", (uint64_t)i);
		tcpav_json_object_end(&j);
		tcpav_json_end_line(&j);
	}
	CHECK(written("{\"n\":0}\n{\"n\":1}\n{\"n\":2}\n"), "JSON lines: no comma between records");

	/* as deep as the writer allows */
	start();
	for (int i = 0; i < TCPAV_JSON_MAX_DEPTH - 1; i++)
		tcpav_json_array_begin(&j, NULL);
	tcpav_json_u64(&j, NULL, 1);
	tcpav_json_u64(&j, NULL, 2);
	for (int i = 0; i < TCPAV_JSON_MAX_DEPTH - 1; i++)
		tcpav_json_array_end(&j);
	{
		char want[2 * TCPAV_JSON_MAX_DEPTH + 8];
		int n = 0;

		for (int i = 0; i < TCPAV_JSON_MAX_DEPTH - 1; i++)
			want[n++] = '[';
		n += sprintf(want + n, "1,2");
		for (int i = 0; i < TCPAV_JSON_MAX_DEPTH - 1; i++)
			want[n++] = ']';
		want[n] = '\0';
		CHECK(written(want), "%d levels deep, commas still right", TCPAV_JSON_MAX_DEPTH - 1);
	}
}

/* csv.h: a CSV text cell as RFC 4180 quotes it */
static void test_csv_string(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"wlan0", "wlan0"}, {"", ""}, {"a,b", "\"a,b\""}, {"q\"x", "\"q\"\"x\""},
		{"l\nf", "\"l\nf\""}, {"c\rr", "\"c\rr\""}, {"[fe80::1]:80", "[fe80::1]:80"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = NULL;
		size_t n = 0;
		FILE *f = open_memstream(&text, &n);

		if (!f)
			abort();
		tcpav_csv_string(f, cases[i].in);
		fclose(f);
		CHECK(strcmp(text, cases[i].out) == 0, "CSV cell %zu: as RFC 4180 quotes it", i + 1);
		free(text);
	}
}

int main(void)
{
	test_csv_string();
	test_strings();
	test_numbers();
	test_nesting();
	return check_done();
}
