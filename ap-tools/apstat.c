// SPDX-License-Identifier: GPL-2.0
/*
 * apstat - who gets how much of the air at an access point, as nl80211
 * sees it: a station dump (bytes, packets, retries, rates, signal,
 * airtime, weights), or per interval the rates, airtime shares, retry
 * ratios, their total, mean and Jain's index across stations.
 *
 * This file is the command line and the loop: sta_info.c dumps and parses
 * the stations, station_table.c computes intervals, sta_report.c writes.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <netlink/version.h>

#include "nl80211.h"
#include "sta_info.h"
#include "sta_report.h"
#include "station_table.h"

#ifndef TCPAV_VERSION
#define TCPAV_VERSION "0.1"
#endif

#define EXIT_USAGE 2
#define MAX_INTERVAL_S 86400.0

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: apstat -i IFACE [--interval S [--count N]] [--json | --csv]\n"
		"       apstat -h | --help | -V | --version\n"
		"\n"
		"  -i, --interface IFACE  the access point's interface (e.g. wlan0)\n"
		"  --interval S           every S seconds (> 0, fractions allowed), print per\n"
		"                         station the up/down link-layer rates, airtime share and\n"
		"                         retry ratio of the interval, and their total, mean and\n"
		"                         Jain's index across stations; runs until SIGINT/SIGTERM\n"
		"  --count N              with --interval: stop after N intervals\n"
		"  --json                 JSON lines: one object per dump (\"type\":\"stations\")\n"
		"                         or per interval (\"type\":\"interval\")\n"
		"  --csv                  CSV: a header, then one row per station (per interval)\n"
		"                         (default: a table)\n"
		"  -h, --help             this text\n"
		"  -V, --version          the version\n"
		"Without --interval, one station dump: signal, bitrates, bytes, packets, retries,\n"
		"failures, airtime (down/up), airtime weight, inactive and connected time.\n"
		"Missing values are '-', empty (CSV) or null (JSON). Exit status: 0, 1 on errors,\n"
		"2 on bad usage. See apstat(8).\n");
}

static int usage_error(const char *what, const char *arg)
{
	if (arg)
		fprintf(stderr, "apstat: %s '%s' (try --help)\n", what, arg);
	else
		fprintf(stderr, "apstat: %s (try --help)\n", what);
	return EXIT_USAGE;
}

static int bad_value(const char *opt, const char *arg, const char *expected)
{
	fprintf(stderr, "apstat: %s '%s': %s (try --help)\n", opt, arg, expected);
	return EXIT_USAGE;
}

static double monotonic_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double wall_clock_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sleeps until monotonic time T; false when a signal asked us to stop. */
static bool sleep_until(double t)
{
	struct timespec ts = {.tv_sec = (time_t)t, .tv_nsec = (long)((t - floor(t)) * 1e9)};

	while (!stop_requested) {
		int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);

		if (rc == 0)
			return !stop_requested;
		if (rc != EINTR)
			return false;
	}
	return false;
}

static int add_station(const struct station_info *s, void *arg)
{
	return station_table_add(arg, s);
}

static int dump(struct nl80211 *nl, int ifindex, const char *ifname, struct station_table *t)
{
	char err[256];

	station_table_clear(t);
	if (sta_info_dump(nl, ifindex, ifname, add_station, t, err, sizeof(err)) < 0) {
		fprintf(stderr, "apstat: %s\n", err);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	enum { OPT_INTERVAL = 256, OPT_COUNT, OPT_JSON, OPT_CSV };
	static const struct option opts[] = {
		{"interface", required_argument, NULL, 'i'},
		{"interval", required_argument, NULL, OPT_INTERVAL},
		{"count", required_argument, NULL, OPT_COUNT},
		{"json", no_argument, NULL, OPT_JSON},
		{"csv", no_argument, NULL, OPT_CSV},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{0},
	};
	enum sta_report_format fmt = STA_REPORT_TABLE;
	struct station_table tabs[2] = {{0}};
	struct station_interval iv = {0};
	const char *ifname = NULL;
	double interval_s = 0.0, t_prev, t_next;
	long count = 0, done = 0;
	int c, ifindex, rc = 0, formats = 0;
	struct nl80211 nl;
	struct sigaction sa;
	char err[256], *end;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "i:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'i': ifname = optarg; break;
		case OPT_INTERVAL:
			errno = 0;
			interval_s = strtod(optarg, &end);
			if (errno || end == optarg || *end || !isfinite(interval_s) || !(interval_s > 0.0) ||
			    interval_s > MAX_INTERVAL_S)
				return bad_value("--interval", optarg, "expected seconds, > 0 and at most 86400");
			break;
		case OPT_COUNT:
			errno = 0;
			count = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || count < 1)
				return bad_value("--count", optarg, "expected a whole number >= 1");
			break;
		case OPT_JSON: fmt = STA_REPORT_JSON; formats++; break;
		case OPT_CSV: fmt = STA_REPORT_CSV; formats++; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("apstat %s (%s)\n", TCPAV_VERSION, LIBNL_STRING); return 0;
		default:
			/* getopt leaves optopt at the option whose argument is
			 * missing; for an unknown one it is 0 (long) or a letter
			 * not in the option string (short) */
			if (optopt == 'i' || optopt >= OPT_INTERVAL)
				return usage_error("missing argument to", argv[optind - 1]);
			return usage_error("unknown option", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument", argv[optind]);
	if (!ifname)
		return usage_error("missing -i IFACE", NULL);
	if (formats > 1)
		return usage_error("give at most one of --json and --csv", NULL);
	if (count && interval_s == 0.0)
		return usage_error("--count needs --interval", NULL);

	/* the interface first: a typo is the more useful thing to hear about,
	 * and this check does not depend on the kernel's wireless support */
	ifindex = nl80211_ifindex(ifname, err, sizeof(err));
	if (ifindex < 0) {
		fprintf(stderr, "apstat: %s\n", err);
		return 1;
	}
	if (nl80211_open(&nl, NULL, err, sizeof(err)) < 0) {
		fprintf(stderr, "apstat: %s: cannot dump stations on %s\n", err, ifname);
		return 1;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: the sleep ends at once */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (interval_s == 0.0) {
		if (dump(&nl, ifindex, ifname, &tabs[0]) < 0)
			rc = 1;
		else
			sta_report_stations(stdout, fmt, ifname, wall_clock_s(), &tabs[0], true);
		goto out;
	}
	if (dump(&nl, ifindex, ifname, &tabs[0]) < 0) {
		rc = 1;
		goto out;
	}
	t_prev = t_next = monotonic_s();
	for (int cur = 1; !count || done < count; cur ^= 1) {
		double t_now;

		t_next += interval_s;
		if (!sleep_until(t_next))
			break;
		if (dump(&nl, ifindex, ifname, &tabs[cur]) < 0) {
			rc = 1;
			break;
		}
		t_now = monotonic_s();
		if (station_interval_compute(&tabs[cur ^ 1], &tabs[cur], t_now - t_prev, &iv) < 0) {
			fprintf(stderr, "apstat: out of memory\n");
			rc = 1;
			break;
		}
		sta_report_interval(stdout, fmt, ifname, wall_clock_s(), &iv, done == 0);
		fflush(stdout);
		t_prev = t_now;
		done++;
	}
out:
	fflush(stdout);
	nl80211_close(&nl);
	station_table_free(&tabs[0]);
	station_table_free(&tabs[1]);
	station_interval_free(&iv);
	return rc;
}
