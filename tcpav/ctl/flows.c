// SPDX-License-Identifier: GPL-2.0
/*
 * flows.c - tcpavctl flows: the tcp_av flows of this host with their
 * target, delivered rate, AVR and the control law's state, read from the
 * pinned map tcp_av refreshes once per round trip (the kernel refuses
 * get_info for BPF congestion controls, so ss cannot show them).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "ctl.h"
#include "tcpav/tcpav.h"

static volatile sig_atomic_t stop_watch;

static void on_signal(int sig)
{
	(void)sig;
	stop_watch = 1;
}

/* addr:port as ss prints it; IPv4-mapped IPv6 shown as IPv4 */
static void endpoint_text(__u16 family, const __u32 *addr, __u16 port, char *buf, size_t size)
{
	char a[INET6_ADDRSTRLEN];
	const unsigned char *b = (const unsigned char *)addr;
	static const unsigned char v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	if (family == AF_INET6 && memcmp(b, v4mapped, sizeof(v4mapped)) == 0) {
		inet_ntop(AF_INET, b + 12, a, sizeof(a));
		snprintf(buf, size, "%s:%u", a, port);
	} else if (family == AF_INET6) {
		inet_ntop(AF_INET6, addr, a, sizeof(a));
		snprintf(buf, size, "[%s]:%u", a, port);
	} else {
		inet_ntop(AF_INET, addr, a, sizeof(a));
		snprintf(buf, size, "%s:%u", a, port);
	}
}

static void flag_text(__u32 flags, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s%s", flags & TCPAV_F_INFEASIBLE ? "infeasible," : "",
		 flags & TCPAV_F_PROBING ? "probing," : "", flags & TCPAV_F_G_DOMINATES ? "guaranteed," : "elastic,",
		 flags & TCPAV_F_APP_LIMITED ? "app-limited," : "");
	if (*buf)
		buf[strlen(buf) - 1] = '\0';
}

static void print_flow(const struct tcpav_flow_info *f, bool json, bool first)
{
	char src[64], dst[64], flags[64], t[24], d[24];

	endpoint_text(f->key.family, f->key.saddr, f->key.sport, src, sizeof(src));
	endpoint_text(f->key.family, f->key.daddr, f->key.dport, dst, sizeof(dst));
	flag_text(f->flags, flags, sizeof(flags));
	if (json) {
		printf("%s{\"src\":\"%s\",\"dst\":\"%s\",\"target_bps\":%llu,\"delivered_bps\":%llu,"
		       "\"avr\":%.3f,\"cwnd\":%u,\"g\":%u,\"e\":%u,\"gain\":%.3f,\"srtt_us\":%u,\"mss\":%u,"
		       "\"bw_est_bps\":%llu,\"valve_cap_bps\":%llu,\"rounds\":%u,\"loss_events\":%u,"
		       "\"infeasible\":%s,\"flags\":\"%s\"}",
		       first ? "" : ",", src, dst, (unsigned long long)f->target_bps,
		       (unsigned long long)f->delivered_bps, f->avr_permille / 10.0, f->cwnd, f->g_wnd, f->e_wnd,
		       f->gain_q8 / 256.0, f->srtt_us, f->mss, (unsigned long long)f->bw_est_bps,
		       (unsigned long long)f->valve_cap_bps, f->rounds, f->loss_events,
		       f->flags & TCPAV_F_INFEASIBLE ? "true" : "false", flags);
		return;
	}
	printf("%-22s %-22s %12s %12s %6.1f%% %6u %6u %6u %5.2f %8.1f  %s\n", src, dst,
	       f->target_bps ? tcpav_format_rate(f->target_bps, t, sizeof(t)) : "-",
	       tcpav_format_rate(f->delivered_bps, d, sizeof(d)), f->avr_permille / 10.0, f->cwnd, f->g_wnd, f->e_wnd,
	       f->gain_q8 / 256.0, f->srtt_us / 1000.0, flags);
}

static int print_table(int fd, bool json)
{
	struct tcpav_flow_key key, next;
	struct tcpav_flow_info info;
	bool first = true;
	void *prev = NULL;

	if (json)
		printf("[");
	else
		printf("%-22s %-22s %12s %12s %7s %6s %6s %6s %5s %8s  %s\n", "LOCAL", "PEER", "TARGET", "DELIVERED",
		       "AVR", "CWND", "G", "E", "GAIN", "SRTT(ms)", "FLAGS");
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &info) < 0)
			continue; /* the flow ended between the two calls */
		print_flow(&info, json, first);
		first = false;
	}
	if (json)
		printf("]\n");
	fflush(stdout);
	return 0;
}

int cmd_flows(struct ctl *ctl, int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'}, {"watch", required_argument, NULL, 'w'}, {"help", no_argument, NULL, 'h'}, {0},
	};
	bool json = false;
	double watch = 0;
	char *end;
	int c, fd;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'w':
			errno = 0;
			watch = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(watch >= 0.1 && watch <= 3600))
				return ctl_error("flows: --watch '%s': seconds between 0.1 and 3600", optarg);
			break;
		case 'h': printf("Usage: " CTL_NAME " flows [--json] [--watch SECONDS]\n"); return 0;
		default: return ctl_error("flows: unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return ctl_error("flows: unexpected argument '%s'", argv[optind]);
	fd = ctl_open_pinned_map(ctl, TCPAV_PIN_FLOWS);
	if (fd < 0)
		return 1;
	if (watch == 0) {
		print_table(fd, json);
		close(fd);
		return 0;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	while (!stop_watch) {
		struct timespec ts = {.tv_sec = (time_t)watch, .tv_nsec = (long)((watch - (time_t)watch) * 1e9)};

		if (!json) {
			time_t now = time(NULL);
			char stamp[32];

			strftime(stamp, sizeof(stamp), "%H:%M:%S", localtime(&now));
			printf("\n%s\n", stamp);
		}
		print_table(fd, json);
		nanosleep(&ts, NULL);
	}
	close(fd);
	return 0;
}
