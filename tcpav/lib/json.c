// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * json.c - the streaming JSON writer of include/tcpav/json.h.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "tcpav/json.h"

void tcpav_json_init(struct tcpav_json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
	j->has_members = 0;
}

/* Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), 0 when there is none. */
static size_t utf8_sequence(const unsigned char *p)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (*p >= 0xc2 && *p <= 0xdf)
		len = 2;
	else if (*p >= 0xe0 && *p <= 0xef)
		len = 3;
	else if (*p >= 0xf0 && *p <= 0xf4)
		len = 4;
	else
		return 0;
	if (*p == 0xe0)
		lo = 0xa0;
	else if (*p == 0xed)
		hi = 0x9f;
	else if (*p == 0xf0)
		lo = 0x90;
	else if (*p == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi) /* also stops at the terminating NUL */
		return 0;
	for (size_t i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

static void write_quoted(FILE *out, const char *text)
{
	const unsigned char *p = (const unsigned char *)text;

	fputc('"', out);
	while (*p) {
		const unsigned char *run = p;
		size_t len;

		/* plain ASCII goes out in one piece */
		while (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\')
			p++;
		if (p > run)
			fwrite(run, 1, (size_t)(p - run), out);
		if (!*p)
			break;
		switch (*p) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		case '\b': fputs("\\b", out); break;
		case '\f': fputs("\\f", out); break;
		case 0x7f: fputc(0x7f, out); break;
		default:
			len = *p >= 0x80 ? utf8_sequence(p) : 0;
			if (len) {
				fwrite(p, 1, len, out);
				p += len;
				continue;
			}
			fprintf(out, "\\u%04x", *p);
		}
		p++;
	}
	fputc('"', out);
}

/* The comma before every value of a level but the first, then "key":. */
static void member(struct tcpav_json *j, const char *key)
{
	uint64_t bit = UINT64_C(1) << j->depth;

	if (j->depth > 0 && (j->has_members & bit))
		fputc(',', j->out);
	j->has_members |= bit;
	if (key) {
		write_quoted(j->out, key);
		fputc(':', j->out);
	}
}

static void open_level(struct tcpav_json *j, const char *key, char bracket)
{
	if (j->depth + 1 >= TCPAV_JSON_MAX_DEPTH)
		abort(); /* a caller's bug, not an input's */
	member(j, key);
	fputc(bracket, j->out);
	j->depth++;
	j->has_members &= ~(UINT64_C(1) << j->depth);
}

static void close_level(struct tcpav_json *j, char bracket)
{
	if (j->depth == 0)
		abort();
	fputc(bracket, j->out);
	j->depth--;
}

void tcpav_json_object_begin(struct tcpav_json *j, const char *key) { open_level(j, key, '{'); }
void tcpav_json_object_end(struct tcpav_json *j) { close_level(j, '}'); }
void tcpav_json_array_begin(struct tcpav_json *j, const char *key) { open_level(j, key, '['); }
void tcpav_json_array_end(struct tcpav_json *j) { close_level(j, ']'); }

void tcpav_json_string(struct tcpav_json *j, const char *key, const char *value)
{
	member(j, key);
	if (value)
		write_quoted(j->out, value);
	else
		fputs("null", j->out);
}

void tcpav_json_u64(struct tcpav_json *j, const char *key, uint64_t value)
{
	member(j, key);
	fprintf(j->out, "%" PRIu64, value);
}

void tcpav_json_i64(struct tcpav_json *j, const char *key, int64_t value)
{
	member(j, key);
	fprintf(j->out, "%" PRId64, value);
}

void tcpav_json_bool(struct tcpav_json *j, const char *key, bool value)
{
	member(j, key);
	fputs(value ? "true" : "false", j->out);
}

void tcpav_json_null(struct tcpav_json *j, const char *key)
{
	member(j, key);
	fputs("null", j->out);
}

void tcpav_json_number(struct tcpav_json *j, const char *key, double value)
{
	member(j, key);
	if (isfinite(value))
		fprintf(j->out, "%.10g", value);
	else
		fputs("null", j->out);
}

void tcpav_json_fixed(struct tcpav_json *j, const char *key, double value, int decimals)
{
	member(j, key);
	if (decimals < 0)
		decimals = 0;
	else if (decimals > 17)
		decimals = 17;
	if (isfinite(value))
		fprintf(j->out, "%.*f", decimals, value);
	else
		fputs("null", j->out);
}

void tcpav_json_end_line(struct tcpav_json *j)
{
	fputc('\n', j->out);
	fflush(j->out);
	j->has_members = 0;
}
