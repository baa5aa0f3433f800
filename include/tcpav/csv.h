/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * csv.h - a text cell of the tools' CSV output (avmon, apstat), quoted as
 * RFC 4180 says: interface names may hold a comma or a quote. Not
 * installed, as json.h.
 */
#ifndef TCPAV_CSV_H
#define TCPAV_CSV_H

#include <stdio.h>
#include <string.h>

/* S as one CSV field: as it is when it holds no comma, double quote, CR or
 * LF; else in double quotes, each double quote in it doubled. */
static inline void tcpav_csv_string(FILE *out, const char *s)
{
	if (s[strcspn(s, ",\"\r\n")] == '\0') {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

#endif /* TCPAV_CSV_H */
