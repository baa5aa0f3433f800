// SPDX-License-Identifier: GPL-2.0
/*
 * tc_impair - impairments for the integration tests and the bench, as a
 * cls_bpf program (tc_impair.bpf.c) on clsact hooks of interfaces in the
 * current network namespace (run it with `ip netns exec NS`):
 *
 *   tc_impair blackhole --dev D [--dev D2 ...] [--ingress|--egress] [--duration S]
 *       drop every packet (TC_ACT_SHOT), default both directions of each
 *       device: a silent outage, as on Wi-Fi. Nothing is sent back (no
 *       ICMP, no carrier loss: unlike `ip link set down`, whose errors let
 *       Linux undo the RTO backoff).
 *   tc_impair ecn --dev D [...] [--ingress|--egress] --prob P [--duration S]
 *       set CE (bpf_skb_ecn_set_ce) on ECT packets with probability P
 *       (0..1), default on egress only.
 *   tc_impair ecn --dev D [...] --vq-rate RATE --vq-bytes B [--duration S]
 *       set CE on ECT packets while a virtual queue is above B bytes: a
 *       token bucket that every IP packet (skb->len bytes, Ethernet header
 *       included) fills and that drains at RATE (iperf3 style, bit/s:
 *       "25M"), at most 2 B deep. clsact egress runs before the qdisc, so
 *       the program cannot see HTB's backlog: with RATE at or a little below
 *       the HTB rate the virtual queue stands for it.
 *   tc_impair count --dev D [...] [--ingress|--egress] [--duration S]
 *       change nothing, count (default egress only): skbs against
 *       segments shows GSO super-packets, ect and ce the ECN field.
 *
 * It attaches everything first (the program passes all while inactive),
 * then opens the impairment on all hooks at once (one write to the
 * program's .bss), runs until --duration seconds have passed or SIGTERM,
 * SIGINT or SIGHUP arrives, closes it the same way, detaches its filters
 * and removes the clsact qdiscs it created (one that was there before
 * stays, and so does one that still holds someone else's filter, such as
 * a second tc_impair's on the same device). Prints on stdout, CLOCK_REALTIME as seconds.nanoseconds:
 *
 *   open 1796054067.505302372
 *   close 1796054069.505391120 packets N skbs N dropped N ect N ce N marked N
 *
 * (counts in segments but skbs: a GSO super-packet counts its gso_segs, and
 * is marked or dropped whole; ce = already CE on arrival). On any error: one
 * line on stderr, exit status 1 (2 for bad usage), nothing left attached.
 * If it is killed with SIGKILL its filters stay until the namespace or the
 * device goes (the tests' namespaces do). TC_IMPAIR_VERBOSE=1 shows
 * libbpf's messages (the verifier's log).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <net/if.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/pkt_sched.h>
#include <netlink/netlink.h>
#include <netlink/route/classifier.h>

#include "tcpav/tcpav.h"
#include "tc_impair.h"
#include "tc_impair.skel.h"

#define MAX_DEVS 4

struct dev {
	const char *name;
	struct bpf_tc_hook hook;
	bool created; /* the clsact qdisc is ours to remove */
	struct bpf_tc_opts opts[2]; /* [0] ingress, [1] egress */
	bool attached[2];
};

struct config {
	enum impair_mode mode;
	const char *mode_name;
	int ndevs;
	struct dev devs[MAX_DEVS];
	bool ingress, egress;
	double duration; /* 0: until a signal */
	double prob;
	bool have_prob;
	uint64_t vq_rate_bps, vq_bytes;
};

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	static int verbose = -1;

	if (verbose < 0)
		verbose = getenv("TC_IMPAIR_VERBOSE") && *getenv("TC_IMPAIR_VERBOSE") == '1';
	if (!verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void usage(FILE *f)
{
	fputs("usage: tc_impair blackhole --dev D [--dev D2 ...] [--ingress|--egress] [--duration S]\n"
	      "       tc_impair ecn --dev D [...] [--ingress|--egress] --prob P [--duration S]\n"
	      "       tc_impair ecn --dev D [...] [--ingress|--egress] --vq-rate RATE --vq-bytes B [--duration S]\n"
	      "       tc_impair count --dev D [...] [--ingress|--egress] [--duration S]\n",
	      f);
}

static int bad_usage(const char *fmt, ...)
{
	va_list ap;

	fputs("tc_impair: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (tc_impair --help)\n", stderr);
	return 2;
}

/* A number in [lo, hi] with nothing after it. */
static int parse_double(const char *s, double lo, double hi, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return errno || end == s || *end || !isfinite(*out) || *out < lo || *out > hi ? -1 : 0;
}

static int parse_args(int argc, char **argv, struct config *c)
{
	static const struct option opts[] = {
		{"dev", required_argument, NULL, 'd'},
		{"ingress", no_argument, NULL, 'i'},
		{"egress", no_argument, NULL, 'e'},
		{"duration", required_argument, NULL, 't'},
		{"prob", required_argument, NULL, 'p'},
		{"vq-rate", required_argument, NULL, 'r'},
		{"vq-bytes", required_argument, NULL, 'b'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	unsigned long long ull;
	char *end;
	int o;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : -1;
	}
	c->mode_name = argv[1];
	if (!strcmp(argv[1], "blackhole"))
		c->mode = IMPAIR_BLACKHOLE;
	else if (!strcmp(argv[1], "ecn"))
		c->mode = IMPAIR_ECN_PROB; /* or VQ, below */
	else if (!strcmp(argv[1], "count"))
		c->mode = IMPAIR_COUNT;
	else
		return bad_usage("unknown mode '%s' (blackhole, ecn or count)", argv[1]);

	optind = 2;
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (o) {
		case 'd':
			if (c->ndevs == MAX_DEVS)
				return bad_usage("at most %d --dev", MAX_DEVS);
			c->devs[c->ndevs++].name = optarg;
			break;
		case 'i': c->ingress = true; break;
		case 'e': c->egress = true; break;
		case 't':
			if (parse_double(optarg, 0.001, 86400, &c->duration))
				return bad_usage("--duration must be seconds in 0.001..86400, got '%s'", optarg);
			break;
		case 'p':
			if (parse_double(optarg, 0, 1, &c->prob))
				return bad_usage("--prob must be a probability in 0..1, got '%s'", optarg);
			c->have_prob = true;
			break;
		case 'r':
			/* <= 32 Gbit/s keeps the BPF side's products in 64 bits */
			if (tcpav_parse_rate(optarg, &c->vq_rate_bps) || !c->vq_rate_bps ||
			    c->vq_rate_bps > 32000000000ull)
				return bad_usage("--vq-rate must be a rate in bit/s like 25M (1..32G), got '%s'", optarg);
			break;
		case 'b':
			errno = 0;
			ull = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || !ull || ull > (1ull << 40) || *optarg == '-')
				return bad_usage("--vq-bytes must be a positive number of bytes, got '%s'", optarg);
			c->vq_bytes = ull;
			break;
		case 'h':
			usage(stdout);
			return -1;
		case ':':
			return bad_usage("%s needs a value", argv[optind - 1]);
		default:
			return bad_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return bad_usage("unexpected argument '%s'", argv[optind]);
	if (!c->ndevs)
		return bad_usage("no --dev given");
	if (c->ingress && c->egress)
		return bad_usage("--ingress and --egress together: leave both out for both directions");
	if (!c->ingress && !c->egress) {
		/* a blackhole cuts both ways; marks go on the data's way out */
		c->ingress = c->mode == IMPAIR_BLACKHOLE;
		c->egress = true;
	}
	if (c->mode != IMPAIR_ECN_PROB) {
		if (c->have_prob || c->vq_rate_bps || c->vq_bytes)
			return bad_usage("%s takes no --prob, --vq-rate or --vq-bytes", c->mode_name);
	} else {
		bool vq = c->vq_rate_bps || c->vq_bytes;

		if (c->have_prob == vq)
			return bad_usage("ecn needs either --prob P or --vq-rate RATE with --vq-bytes B");
		if (vq && !(c->vq_rate_bps && c->vq_bytes))
			return bad_usage("ecn's virtual queue needs both --vq-rate and --vq-bytes");
		if (vq)
			c->mode = IMPAIR_ECN_VQ;
	}
	for (o = 0; o < c->ndevs; o++) {
		int j, idx = (int)if_nametoindex(c->devs[o].name);

		if (!idx) {
			fprintf(stderr, "tc_impair: no device '%s' in this network namespace\n", c->devs[o].name);
			return 1;
		}
		for (j = 0; j < o; j++)
			if (c->devs[j].hook.ifindex == idx)
				return bad_usage("device '%s' given twice", c->devs[o].name);
		c->devs[o].hook.sz = sizeof(c->devs[o].hook);
		c->devs[o].hook.ifindex = idx;
	}
	return 0;
}

/* Filters on DEV's clsact hooks (both directions), from the kernel's own
 * list (libnl-route); -1 if it cannot be read. */
static int clsact_filters(int ifindex)
{
	static const uint32_t parents[] = {
		TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS),
		TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_EGRESS),
	};
	struct nl_sock *sk = nl_socket_alloc();
	int n = 0;

	if (!sk || nl_connect(sk, NETLINK_ROUTE)) {
		nl_socket_free(sk);
		return -1;
	}
	for (size_t i = 0; i < sizeof(parents) / sizeof(parents[0]) && n >= 0; i++) {
		struct nl_cache *cache;

		if (rtnl_cls_alloc_cache(sk, ifindex, parents[i], &cache) < 0) {
			n = -1;
			break;
		}
		n += nl_cache_nitems(cache);
		nl_cache_free(cache);
	}
	nl_socket_free(sk);
	return n;
}

/* The one cleanup path: filters off, then the clsact qdiscs we made.
 * Returns the number of steps that failed (each said so). */
static int detach_all(struct config *c)
{
	int failed = 0;

	for (int i = 0; i < c->ndevs; i++) {
		struct dev *d = &c->devs[i];

		for (int k = 0; k < 2; k++) {
			int err;

			if (!d->attached[k])
				continue;
			d->hook.attach_point = k ? BPF_TC_EGRESS : BPF_TC_INGRESS;
			/* detach wants handle and priority only */
			d->opts[k].flags = 0;
			d->opts[k].prog_fd = 0;
			d->opts[k].prog_id = 0;
			err = bpf_tc_detach(&d->hook, &d->opts[k]);
			if (err) {
				fprintf(stderr, "tc_impair: %s: detaching the %s filter: %s\n", d->name,
					k ? "egress" : "ingress", strerror(-err));
				failed++;
			}
			d->attached[k] = false;
		}
		/* a clsact we made but another program now uses stays */
		if (d->created && clsact_filters(d->hook.ifindex) > 0) {
			fprintf(stderr, "tc_impair: %s: leaving its clsact qdisc: another filter is on it\n",
				d->name);
			d->created = false;
		}
		if (d->created) {
			int err;

			d->hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
			err = bpf_tc_hook_destroy(&d->hook);
			if (err) {
				fprintf(stderr, "tc_impair: %s: removing its clsact qdisc: %s\n", d->name,
					strerror(-err));
				failed++;
			}
			d->created = false;
		}
	}
	return failed;
}

static int attach_all(struct config *c, int prog_fd)
{
	for (int i = 0; i < c->ndevs; i++) {
		struct dev *d = &c->devs[i];
		int err;

		d->hook.attach_point = BPF_TC_INGRESS;
		err = bpf_tc_hook_create(&d->hook);
		if (err && err != -EEXIST) {
			fprintf(stderr, "tc_impair: %s: cannot add a clsact qdisc: %s\n", d->name, strerror(-err));
			return -1;
		}
		d->created = !err;
		for (int k = 0; k < 2; k++) {
			if (!(k ? c->egress : c->ingress))
				continue;
			d->hook.attach_point = k ? BPF_TC_EGRESS : BPF_TC_INGRESS;
			/* handle and priority 0: the kernel picks free ones, so
			 * another filter on the hook (another tc_impair) stays */
			d->opts[k] = (struct bpf_tc_opts){ .sz = sizeof(d->opts[k]), .prog_fd = prog_fd };
			err = bpf_tc_attach(&d->hook, &d->opts[k]);
			if (err) {
				fprintf(stderr, "tc_impair: %s: cannot attach to %s: %s\n", d->name,
					k ? "egress" : "ingress", strerror(-err));
				return -1;
			}
			d->attached[k] = true;
		}
	}
	return 0;
}

static void print_time(const char *what, const struct timespec *t)
{
	printf("%s %lld.%09ld", what, (long long)t->tv_sec, t->tv_nsec);
}

static uint64_t counter_sum(int map_fd, uint32_t which)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t sum = 0, *v;

	if (ncpu <= 0 || !(v = calloc((size_t)ncpu, sizeof(*v))))
		return 0;
	if (!bpf_map_lookup_elem(map_fd, &which, v))
		for (int i = 0; i < ncpu; i++)
			sum += v[i];
	free(v);
	return sum;
}

/* Until the deadline (CLOCK_MONOTONIC; none: forever) or a blocked signal. */
static void wait_until(const sigset_t *sigs, const struct timespec *deadline)
{
	for (;;) {
		struct timespec now, left;

		if (!deadline) {
			if (sigwaitinfo(sigs, NULL) >= 0)
				return;
			continue; /* EINTR */
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		left.tv_sec = deadline->tv_sec - now.tv_sec;
		left.tv_nsec = deadline->tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_nsec += 1000000000L;
			left.tv_sec--;
		}
		if (left.tv_sec < 0)
			return;
		if (sigtimedwait(sigs, NULL, &left) >= 0 || errno == EAGAIN)
			return;
	}
}

int main(int argc, char **argv)
{
	struct config c = {0};
	struct tc_impair_bpf *skel = NULL;
	struct timespec open_rt, close_rt, deadline;
	sigset_t sigs;
	int rc, map_fd;

	rc = parse_args(argc, argv, &c);
	if (rc)
		return rc < 0 ? 0 : rc;

	/* signals are taken only where we wait, so one arriving during the
	 * setup still ends in the cleanup below */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, NULL);

	libbpf_set_print(libbpf_print);
	skel = tc_impair_bpf__open();
	if (!skel) {
		fprintf(stderr, "tc_impair: cannot open the BPF object: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->impair_mode = c.mode;
	skel->rodata->prob_scaled = (uint64_t)ldexp(c.prob, 32);
	skel->rodata->vq_rate_Bps = c.vq_rate_bps / 8;
	skel->rodata->vq_limit_bytes = c.vq_bytes;
	rc = tc_impair_bpf__load(skel);
	if (rc) {
		fprintf(stderr, "tc_impair: cannot load the BPF program: %s (root? TC_IMPAIR_VERBOSE=1 shows libbpf's log)\n",
			strerror(-rc));
		tc_impair_bpf__destroy(skel);
		return 1;
	}
	if (attach_all(&c, bpf_program__fd(skel->progs.impair))) {
		detach_all(&c);
		tc_impair_bpf__destroy(skel);
		return 1;
	}

	skel->bss->active = 1;
	clock_gettime(CLOCK_REALTIME, &open_rt);
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	print_time("open", &open_rt);
	putchar('\n');
	fflush(stdout);
	if (c.duration > 0) {
		double whole = floor(c.duration);

		deadline.tv_sec += (time_t)whole;
		deadline.tv_nsec += (long)((c.duration - whole) * 1e9);
		if (deadline.tv_nsec >= 1000000000L) {
			deadline.tv_nsec -= 1000000000L;
			deadline.tv_sec++;
		}
	}
	wait_until(&sigs, c.duration > 0 ? &deadline : NULL);
	skel->bss->active = 0;
	clock_gettime(CLOCK_REALTIME, &close_rt);

	rc = detach_all(&c) ? 1 : 0;
	map_fd = bpf_map__fd(skel->maps.counters);
	print_time("close", &close_rt);
	printf(" packets %llu skbs %llu dropped %llu ect %llu ce %llu marked %llu\n",
	       (unsigned long long)counter_sum(map_fd, IMPAIR_PACKETS),
	       (unsigned long long)counter_sum(map_fd, IMPAIR_SKBS),
	       (unsigned long long)counter_sum(map_fd, IMPAIR_DROPPED),
	       (unsigned long long)counter_sum(map_fd, IMPAIR_ECT),
	       (unsigned long long)counter_sum(map_fd, IMPAIR_CE_SEEN),
	       (unsigned long long)counter_sum(map_fd, IMPAIR_MARKED));
	tc_impair_bpf__destroy(skel);
	return fflush(stdout) ? 1 : rc;
}
