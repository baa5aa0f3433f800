/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * json.h - the one JSON writer of tcpavctl, avmon, apstat and apqos
 * (tcpav/lib/json.c: no libbpf, so avmon and ap-tools link it without the
 * BPF toolchain; not installed: the tools' own helper, not API).
 * A streaming printer in the style of iproute2's json_print: values
 * go straight to a FILE as they are given, with the commas and the nesting
 * tracked here, so a record of thousands of flows costs no allocation and
 * no tree (avmon writes one per interval).
 *
 *	struct tcpav_json j;
 *	tcpav_json_init(&j, stdout);
 *	tcpav_json_object_begin(&j, NULL);
 *	tcpav_json_string(&j, "src", "10.0.0.1:5201");
 *	tcpav_json_u64(&j, "packets", 42);
 *	tcpav_json_object_end(&j);
 *	tcpav_json_end_line(&j);	-> {"src":"10.0.0.1:5201","packets":42}
 *
 * KEY is the member name inside an object and NULL inside an array or at
 * the top level. Number formats are fixed, so outputs compare as text:
 * integers in decimal, tcpav_json_number() with 10 significant digits
 * ("%.10g"), tcpav_json_fixed() with a given number of decimals ("%.*f");
 * NaN and infinities are written as null (JSON has no such numbers).
 * Strings: '"', '\\' and control characters are escaped (\n \t ... or
 * \u00XX), well-formed UTF-8 is copied as it is, and any other byte
 * (invalid UTF-8) becomes \u00XX, so the output is valid JSON whatever the
 * input bytes.
 */
#ifndef TCPAV_JSON_H
#define TCPAV_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define TCPAV_JSON_MAX_DEPTH 64

struct tcpav_json {
	FILE *out;
	unsigned depth;          /* open objects and arrays */
	uint64_t has_members;    /* bit d: level d already holds a value */
};

void tcpav_json_init(struct tcpav_json *j, FILE *out);

/* Nesting beyond TCPAV_JSON_MAX_DEPTH, or an end without a begin, is a
 * bug of the caller: it aborts. */
void tcpav_json_object_begin(struct tcpav_json *j, const char *key);
void tcpav_json_object_end(struct tcpav_json *j);
void tcpav_json_array_begin(struct tcpav_json *j, const char *key);
void tcpav_json_array_end(struct tcpav_json *j);

/* VALUE NULL writes null. */
void tcpav_json_string(struct tcpav_json *j, const char *key, const char *value);
void tcpav_json_u64(struct tcpav_json *j, const char *key, uint64_t value);
void tcpav_json_i64(struct tcpav_json *j, const char *key, int64_t value);
void tcpav_json_bool(struct tcpav_json *j, const char *key, bool value);
void tcpav_json_null(struct tcpav_json *j, const char *key);
/* "%.10g": a measured quantity (a rate, a ratio, an index) */
void tcpav_json_number(struct tcpav_json *j, const char *key, double value);
/* "%.*f" with DECIMALS (0..17): a time stamp to the microsecond, a ratio to
 * 4 decimals, a rate in whole bit/s */
void tcpav_json_fixed(struct tcpav_json *j, const char *key, double value, int decimals);

/* Ends a top-level value with a newline (JSON lines) and flushes, so a
 * reader of a pipe sees each record as soon as it is complete. */
void tcpav_json_end_line(struct tcpav_json *j);

#endif /* TCPAV_JSON_H */
