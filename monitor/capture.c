// SPDX-License-Identifier: GPL-2.0
/*
 * capture.c - libpcap in, decoded frames out (see capture.h).
 *
 * Live captures use a large kernel ring (-B, default 32 MiB) and a short
 * read timeout, so that interval reports keep their pace when the link is
 * quiet; files are read as fast as libpcap delivers them.
 */
#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "decode.h"

#define READ_TIMEOUT_MS 100

static int capture_error(struct capture *cap, const char *fmt, const char *a, const char *b)
{
	fputs("avmon: ", stderr);
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	capture_close(cap);
	return -1;
}

/* -Z: like tcpdump, become USER (and its groups) once the capture is open. */
static int drop_privileges(const char *user)
{
	struct passwd *pw = getpwnam(user);

	if (!pw) {
		fprintf(stderr, "avmon: -Z %s: no such user\n", user);
		return -1;
	}
	if (initgroups(pw->pw_name, pw->pw_gid) < 0 || setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0) {
		fprintf(stderr, "avmon: -Z %s: cannot switch user: %s\n", user, strerror(errno));
		return -1;
	}
	return 0;
}

static int open_live(struct capture *cap, const struct capture_options *opt, char *errbuf)
{
	int rc;

	cap->pcap = pcap_create(opt->interface, errbuf);
	if (!cap->pcap)
		return capture_error(cap, "%s: %s", opt->interface, errbuf);
	pcap_set_snaplen(cap->pcap, opt->snaplen);
	pcap_set_buffer_size(cap->pcap, opt->buffer_kib * 1024);
	pcap_set_timeout(cap->pcap, READ_TIMEOUT_MS);
	pcap_set_promisc(cap->pcap, 1);
	/* packets one by one: TPACKET_V3 blocks would hold them back, and the
	 * poll() timeout in capture_run() keeps interval reports on time */
	pcap_set_immediate_mode(cap->pcap, 1);
	pcap_set_tstamp_precision(cap->pcap, PCAP_TSTAMP_PRECISION_NANO); /* best effort */
	rc = pcap_activate(cap->pcap);
	if (rc == PCAP_ERROR_PERM_DENIED)
		return capture_error(cap, "%s: %s", opt->interface,
				     "permission denied (capturing needs root or CAP_NET_RAW)");
	if (rc == PCAP_ERROR_NO_SUCH_DEVICE)
		return capture_error(cap, "%s: %s", opt->interface, "no such interface");
	if (rc < 0)
		return capture_error(cap, "%s: %s", opt->interface, pcap_geterr(cap->pcap));
	if (pcap_setnonblock(cap->pcap, 1, errbuf) < 0)
		return capture_error(cap, "%s: %s", opt->interface, errbuf);
	cap->live = true;
	return 0;
}

/* A file through a 1 MiB stdio buffer: libpcap reads two pieces per
 * record, and with stdio's default (st_blksize, 4 KiB) each 4 KiB is a
 * read() call. glibc only sizes a buffer it is given, so cap owns it (freed
 * after pcap_close()). stdin ("-") as libpcap opens it. */
#define FILE_BUFFER_BYTES (1u << 20)

static pcap_t *open_file(struct capture *cap, const char *path, char *errbuf)
{
	pcap_t *p;
	FILE *f;

	if (strcmp(path, "-") == 0)
		return pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	f = fopen(path, "rb");
	if (!f) {
		snprintf(errbuf, PCAP_ERRBUF_SIZE, "%s: %s", path, strerror(errno));
		return NULL;
	}
	cap->file_buffer = malloc(FILE_BUFFER_BYTES);
	if (cap->file_buffer)
		setvbuf(f, cap->file_buffer, _IOFBF, FILE_BUFFER_BYTES);
	/* only this thread reads f: no stdio lock per fread */
	__fsetlocking(f, FSETLOCKING_BYCALLER);
	p = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (!p)
		fclose(f);
	return p; /* pcap_close() closes f */
}

int capture_open(struct capture *cap, const struct capture_options *opt)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	struct bpf_program prog;
	const char *name = opt->interface ? opt->interface : opt->file;
	int dlt;

	memset(cap, 0, sizeof(*cap));
	if (opt->interface) {
		if (open_live(cap, opt, errbuf) < 0)
			return -1;
	} else {
		cap->pcap = open_file(cap, opt->file, errbuf);
		if (!cap->pcap) {
			size_t n = strlen(opt->file);

			if (strncmp(errbuf, opt->file, n) == 0 && errbuf[n] == ':')
				return capture_error(cap, "%s%s", errbuf, "");
			return capture_error(cap, "%s: %s", opt->file, errbuf);
		}
	}
	dlt = pcap_datalink(cap->pcap);
	cap->link = link_type_find(dlt);
	if (!cap->link) {
		const char *dlt_name = pcap_datalink_val_to_name(dlt);
		char what[64];

		snprintf(what, sizeof(what), "link type %d (%s) is not supported", dlt, dlt_name ? dlt_name : "unknown");
		return capture_error(cap, "%s: %s", name, what);
	}
	if (opt->filter) {
		bpf_u_int32 net = 0, mask = PCAP_NETMASK_UNKNOWN;

		if (opt->interface && pcap_lookupnet(opt->interface, &net, &mask, errbuf) < 0)
			mask = PCAP_NETMASK_UNKNOWN; /* no IPv4 address: "ip broadcast" unavailable */
		if (pcap_compile(cap->pcap, &prog, opt->filter, 1, mask) < 0)
			return capture_error(cap, "bad filter '%s': %s", opt->filter, pcap_geterr(cap->pcap));
		if (pcap_setfilter(cap->pcap, &prog) < 0) {
			pcap_freecode(&prog);
			return capture_error(cap, "cannot set filter '%s': %s", opt->filter, pcap_geterr(cap->pcap));
		}
		pcap_freecode(&prog);
	}
	if (opt->save_file) {
		cap->dumper = pcap_dump_open(cap->pcap, opt->save_file);
		if (!cap->dumper)
			return capture_error(cap, "-w: %s%s", pcap_geterr(cap->pcap), ""); /* names the file */
	}
	if (opt->user && drop_privileges(opt->user) < 0) {
		capture_close(cap);
		return -1;
	}
	cap->ts_unit = pcap_get_tstamp_precision(cap->pcap) == PCAP_TSTAMP_PRECISION_NANO ? 1e-9 : 1e-6;
	cap->info.dlt = dlt;
	cap->info.link_name = cap->link->name;
	return 0;
}

struct loop_ctx {
	struct capture *cap;
	capture_frame_fn on_frame;
	void *ctx;
	struct frame frame;
	struct ip_packet pkts[FRAME_MAX_IP];
};

static void on_pcap_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct loop_ctx *lc = (struct loop_ctx *)user;
	struct capture_info *info = &lc->cap->info;
	double ts = (double)h->ts.tv_sec + (double)h->ts.tv_usec * lc->cap->ts_unit;
	unsigned n = 0;

	if (lc->cap->dumper)
		pcap_dump((u_char *)lc->cap->dumper, h, bytes);
	frame_decode(lc->cap->link, ts, bytes, h->caplen, h->len, &lc->frame);
	if (info->packets == 0)
		info->first_ts = ts;
	info->packets++;
	info->bytes += h->len;
	info->last_ts = ts;
	if (lc->frame.malformed != MAL_NONE)
		info->malformed[lc->frame.malformed]++;
	for (unsigned i = 0; i < lc->frame.n_ip; i++) {
		enum malformed_reason r = ip_decode(&lc->frame.ip[i], &lc->pkts[n]);

		if (r == MAL_NONE)
			n++;
		else if (lc->frame.malformed == MAL_NONE)
			info->malformed[r]++;
	}
	lc->on_frame(lc->ctx, &lc->frame, lc->pkts, n);
}

static double now_s(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int capture_run(struct capture *cap, capture_frame_fn on_frame, capture_idle_fn on_idle, void *ctx)
{
	struct loop_ctx *lc = calloc(1, sizeof(*lc));
	int rc;

	if (!lc) {
		fprintf(stderr, "avmon: out of memory\n");
		return -1;
	}
	lc->cap = cap;
	lc->on_frame = on_frame;
	lc->ctx = ctx;
	for (;;) {
		if (cap->live) {
			struct pollfd pfd = {.fd = pcap_get_selectable_fd(cap->pcap), .events = POLLIN};

			if (poll(&pfd, 1, READ_TIMEOUT_MS) < 0 && errno != EINTR) {
				fprintf(stderr, "avmon: waiting for packets: %s\n", strerror(errno));
				rc = -1;
				break;
			}
		}
		rc = pcap_dispatch(cap->pcap, cap->live ? -1 : 4096, on_pcap_packet, (u_char *)lc);
		if (rc == PCAP_ERROR_BREAK || (rc == 0 && !cap->live) || cap->stop) {
			rc = 0;
			break;
		}
		if (rc < 0 && !cap->live && strstr(pcap_geterr(cap->pcap), "truncated")) {
			/* the last record is cut short: count it, report the rest */
			fprintf(stderr, "avmon: warning: the file is cut short in the middle of a packet after %llu packets\n",
				(unsigned long long)cap->info.packets);
			cap->info.malformed[MAL_TRUNCATED]++;
			rc = 0;
			break;
		}
		if (rc < 0) {
			fprintf(stderr, "avmon: reading packets: %s\n", pcap_geterr(cap->pcap));
			break;
		}
		if (cap->live && on_idle)
			on_idle(ctx, now_s());
	}
	/* live: what the kernel captured before the signal belongs in the report */
	if (cap->live && cap->stop && rc >= 0)
		for (int i = 0; i < 1024; i++) {
			int n = pcap_dispatch(cap->pcap, -1, on_pcap_packet, (u_char *)lc);

			if (n != PCAP_ERROR_BREAK && n <= 0)
				break;
		}
	if (cap->dumper)
		pcap_dump_flush(cap->dumper);
	free(lc);
	return rc < 0 ? -1 : 0;
}

void capture_stop(struct capture *cap)
{
	cap->stop = 1;
	if (cap->pcap)
		pcap_breakloop(cap->pcap);
}

bool capture_drops(struct capture *cap, uint64_t *received, uint64_t *dropped, uint64_t *if_dropped)
{
	struct pcap_stat st;

	if (!cap->live || pcap_stats(cap->pcap, &st) < 0)
		return false;
	*received = st.ps_recv;
	*dropped = st.ps_drop;
	*if_dropped = st.ps_ifdrop;
	return true;
}

void capture_close(struct capture *cap)
{
	if (cap->dumper)
		pcap_dump_close(cap->dumper);
	if (cap->pcap)
		pcap_close(cap->pcap);
	free(cap->file_buffer); /* after pcap_close(): its FILE used it */
	cap->file_buffer = NULL;
	cap->dumper = NULL;
	cap->pcap = NULL;
}
