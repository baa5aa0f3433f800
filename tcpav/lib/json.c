// SPDX-License-Identifier: GPL-2.0
/*
 * json.c - tcpav_json_string(), see include/tcpav/json.h.
 */
#include "tcpav/json.h"

void tcpav_json_string(FILE *out, const char *text)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		case '\b': fputs("\\b", out); break;
		case '\f': fputs("\\f", out); break;
		default:
			if (*p < 0x20 || *p >= 0x80)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}
