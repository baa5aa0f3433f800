// SPDX-License-Identifier: GPL-2.0
/*
 * tcpavctl - load tcp_av, choose congestion controls per flow, watch flows.
 * The command table below is the whole CLI; each family lives in its file.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "ctl.h"
#include "tcpav/tcpav.h"

#ifndef TCPAV_VERSION
#define TCPAV_VERSION "0.1"
#endif

static const struct ctl_cmd commands[] = {
	{"load", cmd_load, "", "register tcp_av and attach the per-flow policy (idempotent)"},
	{"unload", cmd_unload, "", "unregister tcp_av and remove its pins; running flows go on"},
	{"status", cmd_status, "[--json]", "show what is loaded"},
	{"rule", cmd_rule,
	 "add [--sport P] [--dport P] [--src ADDR[/LEN]] [--dst ADDR[/LEN]] [--cgroup PATH] --cc NAME [--rate RATE]\n"
	 "                [--dscp DSCP] | rule del ID | rule list [--json] | rule gc",
	 "per-flow congestion control (and DSCP) for unmodified programs; gc removes what killed execs left"},
	{"flows", cmd_flows, "[--json] [--watch SECONDS]", "live table of tcp_av flows"},
	{"exec", cmd_exec, "--rate RATE [--cc NAME] [--dscp DSCP] -- CMD [ARG...]",
	 "run CMD with its TCP flows on tcp_av at RATE (marked with DSCP)"},
};

int ctl_error(const char *fmt, ...)
{
	va_list ap;

	fputs(CTL_NAME ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

int ctl_require_root(const char *what)
{
	if (geteuid() != 0)
		return ctl_error("%s: permission denied: needs root (CAP_BPF, CAP_NET_ADMIN)", what);
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out, "Usage: " CTL_NAME " [--pin-dir DIR] [--btf FILE] [--verbose] COMMAND ...\n\n");
	fprintf(out, "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %s%s%s\n      %s\n", commands[i].name, *commands[i].args ? " " : "", commands[i].args, commands[i].help);
	fprintf(out, "\nRates are bits/s with iperf3 suffixes: 8M, 500k, 1.5G.\n"
		     "DSCP is a name (CS0-CS7, AF11-AF43, EF, VA, LE, DF) or 0-63, set as the flow's\n"
		     "IP_TOS / IPV6_TCLASS: on a Wi-Fi AP with WMM, AF41 is queued as video (AC_VI);\n"
		     "EF as voice (AC_VO) under RFC 8325, as video under the precedence mapping.\n"
		     "Options:\n"
		     "  --pin-dir DIR  where maps and links are pinned (default $TCPAV_PIN_DIR or " TCPAV_PIN_DIR_DEFAULT ")\n"
		     "  --btf FILE     kernel BTF for load: its struct_ops check (Linux >= 6.10) and CO-RE\n"
		     "                 (default " CTL_DEFAULT_BTF ")\n"
		     "  -v, --verbose  show libbpf's messages (verifier log)\n"
		     "  -h, --help     this text\n"
		     "  -V, --version  print the version\n"
		     "See tcpavctl(8).\n");
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return vfprintf(stderr, fmt, ap);
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"pin-dir", required_argument, NULL, 'p'},
		{"btf", required_argument, NULL, 'b'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{0},
	};
	struct ctl ctl = {.pin_dir = tcpav_pin_dir()};
	int c;

	opterr = 0; /* our own one-line errors */
	while ((c = getopt_long(argc, argv, "+hvV", opts, NULL)) != -1) {
		switch (c) {
		case 'p': ctl.pin_dir = optarg; break;
		case 'b': ctl.btf_path = optarg; break;
		case 'v': ctl.verbose = true; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf(CTL_NAME " " TCPAV_VERSION "\n"); return 0;
		default: return ctl_error("unknown option '%s' (try --help)", argv[optind - 1]);
		}
	}
	libbpf_set_print(ctl.verbose ? libbpf_print : libbpf_quiet);
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[optind], commands[i].name) == 0) {
			optind++;
			return commands[i].run(&ctl, argc - optind + 1, argv + optind - 1);
		}
	}
	return ctl_error("unknown command '%s' (try --help)", argv[optind]);
}
