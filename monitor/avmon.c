// SPDX-License-Identifier: GPL-2.0
/*
 * avmon - who gets how much of the air: per-station and per-flow
 * throughput, TCP ACK behaviour, 802.11 retries and airtime, AVR and fair
 * share, live (-i) or from a capture file (-r), tcpdump-style.
 *
 * This file is the command line and the wiring: capture.c brings decoded
 * frames, analysis.c keeps the tables and writes the reports.
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
#include <unistd.h>

#include "analysis.h"
#include "capture.h"
#include "tcpav/tcpav.h"

#ifndef TCPAV_VERSION
#define TCPAV_VERSION "0.1"
#endif

#define DEFAULT_SNAPLEN 256
#define DEFAULT_BUFFER_KIB 32768
#define MAX_TARGETS 256

enum output_format { FORMAT_TABLE, FORMAT_CSV, FORMAT_JSON };

struct avmon {
	struct capture cap;
	struct analysis *analysis;
	enum output_format format;
	bool on_terminal;        /* table: redraw the screen each interval */
	double interval_s;
};

static struct capture *signal_capture;

static void on_signal(int sig)
{
	(void)sig;
	if (signal_capture)
		capture_stop(signal_capture);
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: avmon (-i IFACE | -r FILE) [-w FILE] [-Z USER] [-s SNAPLEN] [-B KIB]\n"
		"             [--target ADDR[:PORT]=RATE]... [--capacity RATE] [--interval S]\n"
		"             [--format table|csv|json] [--max-flows N] [EXPRESSION]\n"
		"\n"
		"  -i IFACE          capture live on IFACE (stops on SIGINT/SIGTERM with a final report)\n"
		"  -r FILE           read a pcap or pcapng file ('-' for standard input)\n"
		"  -w FILE           also save what was captured to FILE (pcap)\n"
		"  -Z USER           drop privileges to USER once the capture is open\n"
		"  -s SNAPLEN        bytes captured per packet (default %d)\n"
		"  -B KIB            kernel capture buffer in KiB (default %d)\n"
		"  --target ADDR[:PORT]=RATE\n"
		"                    a flow with endpoint ADDR (and PORT) should get RATE (bits/s,\n"
		"                    8M, 500k); repeatable; IPv6 as [ADDR]:PORT=RATE\n"
		"  --capacity RATE   the bottleneck's capacity EB (default: estimated)\n"
		"  --interval S      report every S seconds (default 1; 0: summary only)\n"
		"  --format F        table (default on a terminal), csv, or json (JSON lines,\n"
		"                    one per interval and a final \"type\":\"summary\" object)\n"
		"  --max-flows N     flow table size, least recently used evicted (default %d)\n"
		"  EXPRESSION        a BPF filter, as for tcpdump\n"
		"  -h, --help        this text;  -V, --version  the version\n"
		"See avmon(1).\n",
		DEFAULT_SNAPLEN, DEFAULT_BUFFER_KIB, ANALYSIS_DEFAULT_MAX_FLOWS);
}

static int fail(const char *fmt, const char *arg, const char *why)
{
	fputs("avmon: ", stderr);
	fprintf(stderr, fmt, arg, why);
	fputc('\n', stderr);
	return 1;
}

static int parse_long(const char *opt, const char *text, long min, long max, long *out)
{
	char *end, range[64];

	errno = 0;
	*out = strtol(text, &end, 10);
	if (errno || end == text || *end || *out < min || *out > max) {
		snprintf(range, sizeof(range), "an integer from %ld to %ld", min, max);
		return fail(opt, text, range);
	}
	return 0;
}

static void emit_interval(struct avmon *m, double t_end)
{
	if (m->format == FORMAT_CSV)
		analysis_interval_csv(m->analysis, t_end, stdout);
	else if (m->format == FORMAT_TABLE)
		analysis_interval_table(m->analysis, t_end, stdout, m->on_terminal);
	else
		analysis_interval_json(m->analysis, t_end, stdout);
	fflush(stdout);
}

/* The interface's own MAC, from sysfs (of the capturing network namespace
 * when run with ip netns exec); false when it has none. */
static bool interface_mac(const char *ifname, struct mac_addr *mac)
{
	char path[128];
	unsigned b[6];
	FILE *f;
	int n;

	if (snprintf(path, sizeof(path), "/sys/class/net/%s/address", ifname) >= (int)sizeof(path) ||
	    !(f = fopen(path, "r")))
		return false;
	n = fscanf(f, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]);
	fclose(f);
	if (n != 6)
		return false;
	for (int i = 0; i < 6; i++)
		mac->b[i] = (uint8_t)b[i];
	return true;
}

static double wall_clock_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void on_frame(void *ctx, const struct frame *f, const struct ip_packet *pkts, unsigned n_pkts)
{
	struct avmon *m = ctx;

	if (m->interval_s > 0)
		while (f->ts >= analysis_interval_end(m->analysis))
			emit_interval(m, analysis_interval_end(m->analysis));
	analysis_frame(m->analysis, f, pkts, n_pkts);
}

static void on_idle(void *ctx, double now)
{
	struct avmon *m = ctx;

	/* live: a quiet link still gets its interval lines (wall clock) */
	if (m->interval_s > 0 && isfinite(analysis_interval_end(m->analysis)))
		while (now >= analysis_interval_end(m->analysis))
			emit_interval(m, analysis_interval_end(m->analysis));
}

int main(int argc, char **argv)
{
	enum { OPT_TARGET = 256, OPT_CAPACITY, OPT_INTERVAL, OPT_FORMAT, OPT_MAX_FLOWS };
	static const struct option opts[] = {
		{"target", required_argument, NULL, OPT_TARGET},
		{"capacity", required_argument, NULL, OPT_CAPACITY},
		{"interval", required_argument, NULL, OPT_INTERVAL},
		{"format", required_argument, NULL, OPT_FORMAT},
		{"max-flows", required_argument, NULL, OPT_MAX_FLOWS},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{0},
	};
	static struct analysis_target targets[MAX_TARGETS];
	struct capture_options copt = {.snaplen = DEFAULT_SNAPLEN, .buffer_kib = DEFAULT_BUFFER_KIB};
	struct analysis_config acfg = {.interval_s = 1.0};
	struct avmon m = {.format = isatty(STDOUT_FILENO) ? FORMAT_TABLE : FORMAT_JSON,
			  .on_terminal = isatty(STDOUT_FILENO)};
	char *filter = NULL, err[256], *end;
	uint64_t capacity;
	long v;
	int c, rc;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "i:r:w:Z:s:B:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'i': copt.interface = optarg; break;
		case 'r': copt.file = optarg; break;
		case 'w': copt.save_file = optarg; break;
		case 'Z': copt.user = optarg; break;
		case 's':
			if (parse_long("-s '%s': %s", optarg, 1, 262144, &v))
				return 1;
			copt.snaplen = (int)v;
			break;
		case 'B':
			if (parse_long("-B '%s': %s", optarg, 1, 4 * 1024 * 1024, &v))
				return 1;
			copt.buffer_kib = (int)v;
			break;
		case OPT_TARGET:
			if (acfg.n_targets == MAX_TARGETS)
				return fail("--target '%s': %s", optarg, "too many targets");
			if (analysis_target_parse(optarg, &targets[acfg.n_targets], err, sizeof(err)) < 0)
				return fail("--target '%s': %s", optarg, err);
			acfg.n_targets++;
			break;
		case OPT_CAPACITY:
			if (tcpav_parse_rate(optarg, &capacity) < 0 || capacity == 0)
				return fail("--capacity '%s': %s", optarg, "not a rate (bits/s, e.g. 25M)");
			acfg.capacity_bps = (double)capacity;
			break;
		case OPT_INTERVAL:
			errno = 0;
			acfg.interval_s = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(acfg.interval_s == 0 ||
							       (acfg.interval_s >= 0.01 && acfg.interval_s <= 86400)))
				return fail("--interval '%s': %s", optarg, "seconds: 0, or 0.01 to 86400");
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "table") == 0)
				m.format = FORMAT_TABLE;
			else if (strcmp(optarg, "csv") == 0)
				m.format = FORMAT_CSV;
			else if (strcmp(optarg, "json") == 0)
				m.format = FORMAT_JSON;
			else
				return fail("--format '%s': %s", optarg, "expected table, csv or json");
			break;
		case OPT_MAX_FLOWS:
			if (parse_long("--max-flows '%s': %s", optarg, 2, 100000000, &v))
				return 1;
			acfg.max_flows = (size_t)v;
			break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("avmon %s (%s)\n", TCPAV_VERSION, pcap_lib_version()); return 0;
		default: {
			/* getopt leaves optopt at the option whose argument is
			 * missing; for an unknown one it is 0 (long) or a letter
			 * not in the option string (short) */
			bool missing = optopt >= OPT_TARGET || (optopt > 0 && strchr("irwZsB", optopt));

			return fail(missing ? "option '%s' needs an argument%s" : "unknown option '%s'%s", argv[optind - 1],
				    " (try --help)");
		}
		}
	}
	if (!copt.interface == !copt.file)
		return fail("%s%s", "give exactly one of -i IFACE and -r FILE", " (try --help)");
	if (optind < argc) {
		size_t len = 0;

		for (int i = optind; i < argc; i++)
			len += strlen(argv[i]) + 1;
		filter = calloc(1, len);
		if (!filter)
			return fail("%s%s", "out of memory", "");
		for (int i = optind; i < argc; i++) {
			if (i > optind)
				strcat(filter, " ");
			strcat(filter, argv[i]);
		}
		copt.filter = filter;
	}
	acfg.targets = targets;
	if (copt.interface)
		acfg.have_ap_mac = interface_mac(copt.interface, &acfg.ap_mac);
	m.interval_s = acfg.interval_s;
	m.analysis = analysis_new(&acfg);
	if (!m.analysis) {
		free(filter);
		return fail("%s%s", "cannot set up the analysis (out of memory)", "");
	}
	if (capture_open(&m.cap, &copt) < 0) {
		analysis_free(m.analysis);
		free(filter);
		return 1;
	}
	signal_capture = &m.cap;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	rc = capture_run(&m.cap, on_frame, on_idle, &m);
	m.cap.info.have_drops = capture_drops(&m.cap, &m.cap.info.pcap_received, &m.cap.info.pcap_dropped,
					      &m.cap.info.pcap_if_dropped);
	/* the last, partial interval (with --interval 0 the whole run, so
	 * that CSV output has rows too); live, it ends now. The table ends
	 * with the whole run instead. */
	if (m.cap.info.packets > 0 && m.format != FORMAT_TABLE && (m.interval_s > 0 || m.format == FORMAT_CSV))
		emit_interval(&m, m.cap.live ? wall_clock_s() : m.cap.info.last_ts);
	if (m.format == FORMAT_JSON)
		analysis_summary_json(m.analysis, &m.cap.info, stdout);
	else if (m.format == FORMAT_TABLE)
		analysis_summary_table(m.analysis, &m.cap.info, stdout);
	fflush(stdout);
	capture_close(&m.cap);
	analysis_free(m.analysis);
	free(filter);
	return rc < 0 ? 1 : 0;
}
