// SPDX-License-Identifier: GPL-2.0
/*
 * apqos.c - apqos: per-station rate guarantees on an AP's interface with an
 * HTB tree (libnl-route-3), and mac80211 airtime weights (nl80211).
 * Owns main(), option parsing and the command table (noun -> handler +
 * usage); the handlers live one noun a file: qos_station.c (guarantee,
 * del, setup, clear), qos_show.c (show), airtime_cmd.c (airtime), over
 * qos_tree.c (the HTB tree), sta_addr.c (the STA argument), qos_rate.c
 * and qos_ctx.c. See man 8 apqos.
 *
 * Exit status: 0, 1 (the change failed: nothing of it is left behind),
 * 2 (usage: nothing was touched).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qos.h"

#ifndef TCPAV_VERSION
#define TCPAV_VERSION "0"
#endif

struct qos_cmd {
	const char *name;
	const char *args;
	const char *help;
	int (*handler)(struct qos_ctx *ctx, int argc, char **argv);
};

static const struct qos_cmd commands[] = {
	{"guarantee", "STA RATE [--ceil RATE]",
	 "a class for STA with RATE guaranteed, up to --ceil\n"
	 "                (default: the link rate); again: update it", qos_cmd_guarantee},
	{"del", "STA", "remove STA's class and filter", qos_cmd_del},
	{"show", "[--json]", "classes, stations, rates and live counters", qos_cmd_show},
	{"setup", "", "create the tree with no stations (or change its --link-rate)", qos_cmd_setup},
	{"clear", "", "remove apqos's tree (a foreign root qdisc only with --force)", qos_cmd_clear},
	{"airtime", "STA WEIGHT", "set STA's (a MAC) mac80211 airtime weight, 1..65535", qos_cmd_airtime},
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: apqos -i IFACE [--link-rate RATE] [--queue PKTS] [--force] COMMAND [ARGS]\n"
		   "       apqos -h | --help | --version\n\ncommands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %s %s\n                %s\n", commands[i].name, commands[i].args, commands[i].help);
	fprintf(f, "\noptions:\n"
		   "  -i, --interface IFACE  the interface whose egress (traffic to the stations) is shaped\n"
		   "  -l, --link-rate RATE   the root class's rate (default: the tree's, else the\n"
		   "                         interface speed if it reports one, else required)\n"
		   "  -q, --queue PKTS       pfifo limit of each new class (default %u)\n"
		   "  -f, --force            replace (guarantee, setup: only a root qdisc apqos can\n"
		   "                         put back if the change fails) or remove (clear) a\n"
		   "                         root qdisc that is not apqos's\n"
		   "  -c, --ceil RATE        guarantee: the most the station may borrow up to\n"
		   "  -j, --json             show: one JSON object\n"
		   "  -h, --help             this help;  -V, --version  the version\n"
		   "RATE: bits/s as 15M, 500k, 1.5G or tc's 15mbit (k, M, G = 1000, 1e6, 1e9)\n"
		   "STA: aa:bb:cc:dd:ee:ff, 10.0.0.2 or 2001:db8::2\n",
		QOS_DEFAULT_QUEUE);
}

static int cmdline_error(const char *fmt, const char *arg)
{
	char why[200];

	snprintf(why, sizeof(why), fmt, arg);
	return qos_fail(2, why, "command line");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"interface", required_argument, NULL, 'i'},
		{"link-rate", required_argument, NULL, 'l'},
		{"queue", required_argument, NULL, 'q'},
		{"force", no_argument, NULL, 'f'},
		{"ceil", required_argument, NULL, 'c'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	struct qos_ctx ctx;
	const struct qos_cmd *cmd = NULL;
	const char *ceil_text = NULL;
	unsigned long q;
	char *end;
	size_t i;
	int c, rc;

	memset(&ctx, 0, sizeof(ctx));
	ctx.queue = QOS_DEFAULT_QUEUE;
	/* "-5M" is a negative value, not options -5 and -M */
	for (i = 1; i < (size_t)argc; i++)
		if (argv[i][0] == '-' && argv[i][1] >= '0' && argv[i][1] <= '9')
			return cmdline_error("bad value '%s' (rates and weights are positive)", argv[i]);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:l:q:fc:jhV", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (!*optarg || strlen(optarg) >= 16)
				return cmdline_error("bad interface name '%s'", optarg);
			ctx.ifname = optarg;
			break;
		case 'l':
			if (qos_parse_rate(optarg, &ctx.link_rate_opt) < 0)
				return cmdline_error("bad --link-rate '%s' (want e.g. 30M, 30mbit, 1G)", optarg);
			break;
		case 'q':
			q = strtoul(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end || q < 1 || q > 1000000)
				return cmdline_error("bad --queue '%s' (want 1..1000000 packets)", optarg);
			ctx.queue = (unsigned)q;
			break;
		case 'f':
			ctx.force = true;
			break;
		case 'c':
			ceil_text = optarg;
			if (qos_parse_rate(optarg, &ctx.ceil_opt) < 0)
				return cmdline_error("bad --ceil '%s' (want e.g. 20M, 20mbit, 1G)", optarg);
			break;
		case 'j':
			ctx.json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("apqos (tcpav) %s\n", TCPAV_VERSION);
			return 0;
		case ':':
			return cmdline_error("%s needs a value", argv[optind - 1]);
		default:
			if (optopt) {
				char opt[3] = {'-', (char)optopt, '\0'};

				return cmdline_error("unknown option '%s' (see apqos --help)", opt);
			}
			return cmdline_error("unknown option '%s' (see apqos --help)", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cmdline_error("no command%s (guarantee, del, show, setup, clear, airtime; see apqos --help)", "");
	for (i = 0; i < NCOMMANDS; i++)
		if (strcmp(argv[optind], commands[i].name) == 0)
			cmd = &commands[i];
	if (!cmd)
		return cmdline_error("unknown command '%s' (guarantee, del, show, setup, clear, airtime)",
				     argv[optind]);
	if (ceil_text && cmd->handler != qos_cmd_guarantee)
		return cmdline_error("--ceil is an option of guarantee, not of %s", cmd->name);
	if (ctx.json && cmd->handler != qos_cmd_show)
		return cmdline_error("--json is an option of show, not of %s", cmd->name);
	if (!ctx.ifname)
		return cmdline_error("no interface: give -i IFACE%s", "");

	rc = cmd->handler(&ctx, argc - optind - 1, argv + optind + 1);
	if (rc == QOS_ERR_USAGE)
		return 2;
	return rc < 0 ? 1 : 0;
}
