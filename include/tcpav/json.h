/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json.h - the one JSON string writer that tcpavctl, avmon, apstat and
 * apqos share (in libtcpav; not installed: the tools' own helper, not API).
 */
#ifndef TCPAV_JSON_H
#define TCPAV_JSON_H

#include <stdio.h>

/* Writes text as a JSON string literal: quotes, backslashes and control
 * characters escaped, bytes >= 0x80 as \u00XX (the output stays ASCII and
 * valid JSON whatever the input bytes). */
void tcpav_json_string(FILE *out, const char *text);

#endif /* TCPAV_JSON_H */
