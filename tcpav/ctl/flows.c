// SPDX-License-Identifier: GPL-2.0
/*
 * flows.c - tcpavctl flows: the tcp_av flows of this host, in every network
 * namespace, with their target, goodput (delivery rate), AVR and the
 * control law's state, read from the pinned map tcp_av refreshes once per
 * round trip (the kernel refuses get_info for BPF congestion controls, so
 * ss cannot show them). A flow leaves the map when its socket is closed
 * or disconnected.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "ctl.h"
#include "tcpav/metrics.h"
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
	snprintf(buf, size, "%s%s%s%s%s%s", flags & TCPAV_F_INFEASIBLE ? "infeasible," : "",
		 flags & TCPAV_F_PROBING ? "probing," : "", flags & TCPAV_F_G_DOMINATES ? "guaranteed," : "elastic,",
		 flags & TCPAV_F_APP_LIMITED ? "app-limited," : "",
		 flags & TCPAV_F_WINDOW_LIMITED ? "window-limited," : "", flags & TCPAV_F_IDLE ? "idle," : "");
	if (*buf)
		buf[strlen(buf) - 1] = '\0';
}

/* AVR is undefined without a target, and for an idle flow: one whose data
 * all fits in an initial window (iperf3's control connection) has no rate
 * to hold to the target. */
static bool avr_defined(const struct tcpav_flow_info *f)
{
	return f->target_bps && !(f->flags & TCPAV_F_IDLE);
}

/* The names and units of avmon's JSON (README, glossary): goodput_bps is
 * the sender's smoothed delivery rate, avr the ratio of the two rates as
 * avmon computes it (tcpav_avr), null where it is undefined; netns is the
 * inode of the flow's network namespace. */
static void flow_json(struct tcpav_json *j, const struct tcpav_flow_info *f, const char *src, const char *dst,
		      const char *flags)
{
	tcpav_json_object_begin(j, NULL);
	tcpav_json_u64(j, "netns", f->key.netns);
	tcpav_json_string(j, "src", src);
	tcpav_json_string(j, "dst", dst);
	tcpav_json_u64(j, "target_bps", f->target_bps);
	tcpav_json_u64(j, "goodput_bps", f->delivered_bps);
	tcpav_json_number(j, "avr", avr_defined(f) ? tcpav_avr((double)f->delivered_bps, (double)f->target_bps) : NAN);
	tcpav_json_u64(j, "cwnd", f->cwnd);
	tcpav_json_u64(j, "g", f->g_wnd);
	tcpav_json_u64(j, "e", f->e_wnd);
	tcpav_json_fixed(j, "gain", f->gain_q8 / 256.0, 3);
	tcpav_json_u64(j, "srtt_us", f->srtt_us);
	tcpav_json_u64(j, "mss", f->mss);
	tcpav_json_u64(j, "bw_est_bps", f->bw_est_bps);
	tcpav_json_u64(j, "valve_cap_bps", f->valve_cap_bps);
	tcpav_json_u64(j, "rounds", f->rounds);
	tcpav_json_u64(j, "loss_events", f->loss_events);
	tcpav_json_bool(j, "infeasible", f->flags & TCPAV_F_INFEASIBLE);
	tcpav_json_bool(j, "window_limited", f->flags & TCPAV_F_WINDOW_LIMITED);
	tcpav_json_string(j, "flags", flags);
	tcpav_json_object_end(j);
}

static void print_flow(struct tcpav_json *j, const struct tcpav_flow_info *f)
{
	char src[64], dst[64], flags[80], t[24], d[24], avr[16] = "-";

	endpoint_text(f->key.family, f->key.saddr, f->key.sport, src, sizeof(src));
	endpoint_text(f->key.family, f->key.daddr, f->key.dport, dst, sizeof(dst));
	flag_text(f->flags, flags, sizeof(flags));
	if (j) {
		flow_json(j, f, src, dst, flags);
		return;
	}
	if (avr_defined(f))
		snprintf(avr, sizeof(avr), "%.1f", tcpav_avr_pct((double)f->delivered_bps, (double)f->target_bps));
	printf("%-10u %-22s %-22s %12s %12s %6s %6u %6u %6u %5.2f %8.1f  %s\n", f->key.netns, src, dst,
	       f->target_bps ? tcpav_format_rate(f->target_bps, t, sizeof(t)) : "-",
	       tcpav_format_rate(f->delivered_bps, d, sizeof(d)), avr, f->cwnd, f->g_wnd, f->e_wnd,
	       f->gain_q8 / 256.0, f->srtt_us / 1000.0, flags);
}

static int print_table(int fd, bool json)
{
	struct tcpav_flow_key key, next;
	struct tcpav_flow_info info;
	struct tcpav_json j;
	void *prev = NULL;

	if (json) {
		tcpav_json_init(&j, stdout);
		tcpav_json_array_begin(&j, NULL);
	} else {
		printf("%-10s %-22s %-22s %12s %12s %6s %6s %6s %6s %5s %8s  %s\n", "NETNS", "LOCAL", "PEER", "TARGET", "GOODPUT",
		       "AVR%", "CWND", "G", "E", "GAIN", "SRTT(ms)", "FLAGS");
	}
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &info) < 0)
			continue; /* the flow ended between the two calls */
		print_flow(json ? &j : NULL, &info);
	}
	if (json) {
		tcpav_json_array_end(&j);
		tcpav_json_end_line(&j);
	}
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
