/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sta_report.h - apstat's output: a station dump or an interval as a
 * table, CSV or JSON lines. What the kernel did not report is written as
 * "-" (table), an empty field (CSV) or null (JSON), never as 0. The
 * columns and fields are documented in apstat(8), OUTPUT.
 */
#ifndef APTOOLS_STA_REPORT_H
#define APTOOLS_STA_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "station_table.h"

enum sta_report_format { STA_REPORT_TABLE, STA_REPORT_CSV, STA_REPORT_JSON };

/* One station dump taken at T (Unix time, s) on IFNAME: a table with its
 * header, CSV rows (the header first when HEADER), or one JSON object of
 * "type":"stations". */
void sta_report_stations(FILE *f, enum sta_report_format fmt, const char *ifname, double t,
			 const struct station_table *tab, bool header);

/* One interval ending at T: a table (per station, then a fairness line),
 * CSV rows (one per station, the header first when HEADER), or one JSON
 * object of "type":"interval". */
void sta_report_interval(FILE *f, enum sta_report_format fmt, const char *ifname, double t,
			 const struct station_interval *iv, bool header);

#endif /* APTOOLS_STA_REPORT_H */
