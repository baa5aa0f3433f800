// SPDX-License-Identifier: GPL-2.0
/*
 * frame_sender - video-like traffic over TCP, for tcp_av's video test
 * (tests/integration/video_among_cubic.sh) and benchmarks: frames at a fixed
 * frame rate, one I-frame per group several times the size of the P-frames,
 * mean rate T (sizes: frame_schedule.h); reports what was offered, what was
 * delivered, the achievement ratio and each frame's latency.
 *
 *   frame_sender --rate T [--fps F] [--gop N] [--i-ratio R] [--duration S]
 *                [--omit S] [--drain S] [--cc NAME] [--json OUT] [--frames] ADDR PORT
 *   frame_sender --listen PORT [--json OUT]          (the sink)
 *
 * Each frame is handed to a non-blocking socket at its scheduled time; what
 * the socket cannot take waits in the application, in order, and goes in as
 * soon as there is room (the frame is then late: how late is recorded). The
 * offered rate is what the application managed to hand to the socket within
 * the measured window (--omit .. --duration); frames still queued at its
 * end go in during the drain, so that their latency is measured too.
 *
 * Frame latency is from the frame's scheduled time to the kernel's
 * acknowledgement of its last byte. The kernel reports that moment itself:
 * SO_TIMESTAMPING with SOF_TIMESTAMPING_TX_ACK | OPT_ID | OPT_TSONLY |
 * SOFTWARE stamps the last byte of every write when the cumulative ACK
 * covers it, and queues the time with the byte's offset on the error queue.
 * Polling TCP_INFO's tcpi_bytes_acked instead would cost a system call per
 * poll and measure no finer than the poll interval; the timestamps are exact
 * to the ACK's processing, one record per write, and wake the loop by
 * themselves (POLLERR). The kernel keeps one stamp per skb, so each frame
 * ends with MSG_EOR (its last byte ends an skb); the sink turns delayed
 * ACKs off (TCP_QUICKACK), so the stamp marks the arrival. The sink also
 * counts the bytes it reads per 0.1 s: goodput taken at the receiver.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tcpav/frame_schedule.h"
#include "tcpav/json.h"
#include "tcpav/tcpav.h"

#define SINK_INTERVAL_NS 100000000ull /* the sink's counting interval, 0.1 s */
#define WRITE_CHUNK (256u * 1024u)

static const char usage_text[] =
	"usage: frame_sender --rate T [OPTIONS] ADDR PORT   send video-like frames to a sink\n"
	"       frame_sender --listen PORT [--json OUT]     the sink: count received bytes per 0.1 s\n"
	"\n"
	"  --rate T        mean bit rate, iperf3 units (8M, 500k, 12000000)\n"
	"  --fps F         frames per second, 1..240 (default 30)\n"
	"  --gop N         frames per group, one I-frame first, 1..10000 (default: F, one per second)\n"
	"  --i-ratio R     I-frame size / P-frame size, 1..100, two decimals (default 6)\n"
	"  --duration S    seconds of frames (default 10; decimals allowed)\n"
	"  --omit S        leave the frames of the first S seconds out of the figures (default 0)\n"
	"  --drain S       after the duration, up to S seconds to hand over and have acknowledged\n"
	"                  the frames still queued (default 3); unacknowledged ones count as never\n"
	"  --cc NAME       congestion control (TCP_CONGESTION); default: what tcpavctl rules\n"
	"                  or the system default choose\n"
	"  --json OUT      the report as JSON to OUT ('-' for stdout)\n"
	"  --frames        one record per frame in the JSON\n"
	"  --listen PORT   be the sink on PORT (IPv4 and IPv6); it ends at the sender's close\n"
	"  --help          this text\n"
	"\n"
	"Frame latency: scheduled time -> last byte acknowledged (SO_TIMESTAMPING TX_ACK).\n"
	"AVR = delivered / min(T, offered) over the measured window (--omit .. --duration).\n";

struct options {
	struct frame_schedule sched;
	uint64_t duration_ms, omit_ms, drain_ms;
	const char *cc, *json_path, *addr, *port, *listen_port;
	int per_frame;
};

/* one frame: its place in the byte stream and its three moments */
struct frame {
	uint64_t end_off;    /* stream offset just past its last byte */
	uint64_t bytes;
	uint64_t sched_ns;   /* CLOCK_MONOTONIC */
	uint64_t written_ns; /* last byte handed to the socket; 0: never */
	uint64_t acked_ns;   /* last byte acknowledged (CLOCK_MONOTONIC); 0: never */
};

static int bad(const char *fmt, const char *arg)
{
	fputs("frame_sender: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs(" (see --help)\n", stderr);
	return 2;
}

static int fail(const char *what)
{
	fprintf(stderr, "frame_sender: %s: %s\n", what, strerror(errno));
	return 1;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static int parse_options(int argc, char **argv, struct options *o)
{
	enum { O_RATE = 256, O_FPS, O_GOP, O_RATIO, O_DURATION, O_OMIT, O_DRAIN, O_CC, O_JSON, O_FRAMES, O_LISTEN };
	static const struct option opts[] = {
		{"rate", required_argument, 0, O_RATE},         {"fps", required_argument, 0, O_FPS},
		{"gop", required_argument, 0, O_GOP},           {"i-ratio", required_argument, 0, O_RATIO},
		{"duration", required_argument, 0, O_DURATION}, {"omit", required_argument, 0, O_OMIT},
		{"drain", required_argument, 0, O_DRAIN},       {"cc", required_argument, 0, O_CC},
		{"json", required_argument, 0, O_JSON},         {"frames", no_argument, 0, O_FRAMES},
		{"listen", required_argument, 0, O_LISTEN},     {"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	uint64_t v;
	unsigned port;
	int c, have_rate = 0;

	*o = (struct options){.sched = {.fps = 30, .i_ratio_pct = 600}, .duration_ms = 10000, .drain_ms = 3000};
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case O_RATE:
			if (tcpav_parse_rate(optarg, &o->sched.rate_bps) || !o->sched.rate_bps ||
			    o->sched.rate_bps > FS_RATE_MAX)
				return bad("bad --rate '%s': a rate above 0 and up to 100G, like 8M", optarg);
			have_rate = 1;
			break;
		case O_FPS:
			if (fs_parse_uint(optarg, 1, FS_FPS_MAX, &o->sched.fps))
				return bad("bad --fps '%s': a whole number of frames per second, 1..240", optarg);
			break;
		case O_GOP:
			if (fs_parse_uint(optarg, 1, FS_GOP_MAX, &o->sched.gop))
				return bad("bad --gop '%s': a whole number of frames per group, 1..10000", optarg);
			break;
		case O_RATIO:
			if (fs_parse_fixed(optarg, 2, FS_RATIO_MIN_PCT, FS_RATIO_MAX_PCT, &v))
				return bad("bad --i-ratio '%s': from 1 to 100, at most two decimals", optarg);
			o->sched.i_ratio_pct = (unsigned)v;
			break;
		case O_DURATION:
			if (fs_parse_fixed(optarg, 3, 1, FS_SECONDS_MAX_MS, &o->duration_ms))
				return bad("bad --duration '%s': seconds above 0, at most three decimals", optarg);
			break;
		case O_OMIT:
			if (fs_parse_fixed(optarg, 3, 0, FS_SECONDS_MAX_MS, &o->omit_ms))
				return bad("bad --omit '%s': seconds, at most three decimals", optarg);
			break;
		case O_DRAIN:
			if (fs_parse_fixed(optarg, 3, 0, FS_SECONDS_MAX_MS, &o->drain_ms))
				return bad("bad --drain '%s': seconds, at most three decimals", optarg);
			break;
		case O_CC:
			if (!*optarg || strlen(optarg) >= 16)
				return bad("bad --cc '%s': the name of a congestion control", optarg);
			o->cc = optarg;
			break;
		case O_JSON:
			if (!*optarg)
				return bad("%s--json needs a file name", "");
			o->json_path = optarg;
			break;
		case O_FRAMES:
			o->per_frame = 1;
			break;
		case O_LISTEN:
			if (fs_parse_uint(optarg, 1, 65535, &port))
				return bad("bad --listen port '%s': 1..65535", optarg);
			o->listen_port = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		case ':':
			return bad("%s needs a value", argv[optind - 1]);
		default:
			return bad("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (o->listen_port) {
		if (optind != argc)
			return bad("unexpected '%s': the sink takes no address", argv[optind]);
		return 0;
	}
	if (argc - optind != 2)
		return bad("%sgive ADDR and PORT of the sink (or --listen PORT)", "");
	o->addr = argv[optind];
	o->port = argv[optind + 1];
	if (fs_parse_uint(o->port, 1, 65535, &port))
		return bad("bad port '%s': 1..65535", o->port);
	if (!have_rate)
		return bad("%s--rate T is required (the mean bit rate)", "");
	if (!o->sched.gop)
		o->sched.gop = o->sched.fps;
	if (o->omit_ms >= o->duration_ms)
		return bad("%s--omit must be shorter than --duration", "");
	if (fs_invalid(&o->sched))
		return bad("%s", fs_invalid(&o->sched));
	return 0;
}

/* --- the sink ---------------------------------------------------------- */

static FILE *open_report(const char *path)
{
	FILE *f;

	if (!path || !strcmp(path, "-"))
		return stdout;
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "frame_sender: %s: %s\n", path, strerror(errno));
	return f;
}

static int close_report(FILE *f, const char *path)
{
	if (f == stdout)
		return fflush(f) ? fail("stdout") : 0;
	if (fclose(f)) {
		fprintf(stderr, "frame_sender: %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

static int sink(const struct options *o)
{
	struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT};
	static char buf[WRITE_CHUNK];
	uint64_t *count = NULL, total = 0, start;
	size_t n_intervals = 0, cap = 0, i;
	struct tcpav_json j;
	int one = 1, zero = 0, l, c, rc;
	ssize_t n;
	FILE *out;

	a.sin6_port = htons((unsigned short)atoi(o->listen_port));
	l = socket(AF_INET6, SOCK_STREAM, 0);
	if (l < 0 || setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    setsockopt(l, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) || bind(l, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(l, 1)) {
		rc = fail("listen");
		if (l >= 0)
			close(l);
		return rc;
	}
	c = accept(l, NULL, NULL);
	close(l);
	if (c < 0)
		return fail("accept");
	start = now_ns();
	while ((n = read(c, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			free(count);
			close(c);
			return fail("read");
		}
		i = (size_t)((now_ns() - start) / SINK_INTERVAL_NS);
		if (i >= cap) {
			size_t new_cap = i * 2 + 64;
			uint64_t *p = realloc(count, new_cap * sizeof(*p));

			if (!p) {
				free(count);
				close(c);
				return fail("memory");
			}
			memset(p + cap, 0, (new_cap - cap) * sizeof(*p));
			count = p, cap = new_cap;
		}
		count[i] += (uint64_t)n;
		total += (uint64_t)n;
		/* ACK at once (quick-ACK mode lapses, so after every read):
		 * a frame's odd last segment would otherwise wait for the
		 * delayed-ACK timer (up to 40 ms), and the sender would count
		 * the timer into the frame's latency */
		setsockopt(c, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one));
		if (i + 1 > n_intervals)
			n_intervals = i + 1;
	}
	close(c);
	out = open_report(o->json_path);
	if (!out) {
		free(count);
		return 1;
	}
	if (o->json_path) {
		tcpav_json_init(&j, out);
		tcpav_json_object_begin(&j, NULL);
		tcpav_json_string(&j, "mode", "sink");
		tcpav_json_u64(&j, "port", (uint64_t)atoi(o->listen_port));
		tcpav_json_fixed(&j, "interval_s", SINK_INTERVAL_NS / 1e9, 1);
		tcpav_json_fixed(&j, "start_mono_s", start / 1e9, 6);
		tcpav_json_u64(&j, "bytes", total);
		tcpav_json_array_begin(&j, "intervals");
		for (i = 0; i < n_intervals; i++)
			tcpav_json_u64(&j, NULL, count[i]);
		tcpav_json_array_end(&j);
		tcpav_json_object_end(&j);
		tcpav_json_end_line(&j);
	} else {
		printf("frame_sender: sink received %llu bytes in %.1f s\n", (unsigned long long)total,
		       n_intervals * (SINK_INTERVAL_NS / 1e9));
	}
	free(count);
	return close_report(out, o->json_path);
}

/* --- the sender -------------------------------------------------------- */

struct sender {
	const struct options *o;
	int fd;
	struct frame *frames;
	uint64_t n_frames;
	uint64_t start_ns;          /* frame 0's time */
	int64_t real_minus_mono_ns; /* the ACK stamps are CLOCK_REALTIME */
	uint64_t next_frame;        /* first frame not yet due */
	uint64_t next_write;        /* first frame not yet wholly handed over */
	uint64_t written_off;       /* bytes handed to the socket */
	uint64_t acked_off;         /* bytes cumulatively acknowledged */
	uint64_t next_acked;        /* first frame not yet wholly acknowledged */
	uint64_t key_high;          /* the 32-bit keys, unwrapped */
	uint64_t written_at_window_start, written_at_window_end;
	uint64_t acked_at_window_start, acked_at_window_end;
	int window_started, window_ended;
	uint64_t stamps, stamps_other;
	uint64_t frames_exact; /* frames whose own last byte's stamp came */
};

static int connect_to(const struct options *o)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai;
	int s, rc, one = 1;

	rc = getaddrinfo(o->addr, o->port, &hints, &ai);
	if (rc) {
		fprintf(stderr, "frame_sender: %s port %s: %s\n", o->addr, o->port, gai_strerror(rc));
		return -1;
	}
	s = socket(ai->ai_family, SOCK_STREAM, 0);
	/* TCP_NODELAY: a frame's last segment goes out at once, as a live
	 * sender wants, not after the ACK of what is in flight (Nagle) */
	rc = s < 0 ? fail("socket")
	     : o->cc && setsockopt(s, IPPROTO_TCP, TCP_CONGESTION, o->cc, (socklen_t)strlen(o->cc))
		     ? fail("--cc: TCP_CONGESTION (is the congestion control loaded?)")
	     : setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) ? fail("TCP_NODELAY")
	     : connect(s, ai->ai_addr, ai->ai_addrlen)                      ? fail("connect")
									    : 0;
	freeaddrinfo(ai);
	if (rc) {
		if (s >= 0)
			close(s);
		return -1;
	}
	return s;
}

/* Reads the ACK stamps on the error queue: each says that the stream up to
 * and including byte KEY (counted from 0 when timestamping was enabled) is
 * acknowledged, at time TS. */
static int read_acks(struct sender *x)
{
	union { /* aligned for the cmsg headers */
		char buf[512];
		struct cmsghdr align;
	} control;
	struct msghdr m;
	struct cmsghdr *cm;

	for (;;) {
		struct scm_timestamping *ts = NULL;
		struct sock_extended_err *ee = NULL;
		uint64_t key, t;

		m = (struct msghdr){.msg_control = control.buf, .msg_controllen = sizeof(control.buf)};
		if (recvmsg(x->fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			if (errno == EINTR)
				continue;
			return fail("reading the ACK time stamps (MSG_ERRQUEUE)");
		}
		for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
			if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPING)
				ts = (struct scm_timestamping *)CMSG_DATA(cm);
			else if ((cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_RECVERR) ||
				 (cm->cmsg_level == SOL_IPV6 && cm->cmsg_type == IPV6_RECVERR))
				ee = (struct sock_extended_err *)CMSG_DATA(cm);
		}
		if (!ts || !ee || ee->ee_origin != SO_EE_ORIGIN_TIMESTAMPING || ee->ee_info != SCM_TSTAMP_ACK) {
			x->stamps_other++;
			continue;
		}
		x->stamps++;
		/* the key is the low 32 bits of the byte's offset; offsets only grow */
		key = x->key_high + (uint32_t)(ee->ee_data - (uint32_t)x->key_high);
		x->key_high = key;
		if (key + 1 <= x->acked_off)
			continue;
		x->acked_off = key + 1;
		t = (uint64_t)((int64_t)((uint64_t)ts->ts[0].tv_sec * 1000000000u + (uint64_t)ts->ts[0].tv_nsec) -
			       x->real_minus_mono_ns);
		for (; x->next_acked < x->next_write && x->frames[x->next_acked].end_off <= x->acked_off; x->next_acked++) {
			x->frames[x->next_acked].acked_ns = t;
			x->frames_exact += x->frames[x->next_acked].end_off == x->acked_off;
		}
		if (t <= x->start_ns + x->o->omit_ms * 1000000u)
			x->acked_at_window_start = x->acked_off;
		if (t <= x->start_ns + x->o->duration_ms * 1000000u)
			x->acked_at_window_end = x->acked_off;
	}
}

/* Hands what is due to the socket until it takes no more. */
static int write_due(struct sender *x)
{
	static char buf[WRITE_CHUNK];

	while (x->next_write < x->next_frame) {
		struct frame *f = &x->frames[x->next_write];
		uint64_t left = f->end_off - x->written_off;
		/* MSG_EOR on the frame's last bytes: the kernel keeps one
		 * timestamp per skb and a later write appended to the same skb
		 * would replace it; an EOR skb takes no more data */
		ssize_t n = send(x->fd, buf, left < sizeof(buf) ? (size_t)left : sizeof(buf),
				 MSG_NOSIGNAL | (left <= sizeof(buf) ? MSG_EOR : 0));

		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			if (errno == EINTR)
				continue;
			return fail("send");
		}
		x->written_off += (uint64_t)n;
		if (x->written_off == f->end_off) {
			f->written_ns = now_ns();
			x->next_write++;
		}
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* the nearest-rank percentile P of N sorted values; UINT64_MAX (never) stays so */
static uint64_t percentile(const uint64_t *v, size_t n, unsigned p)
{
	size_t rank = (n * p + 99) / 100;

	return n ? v[rank ? rank - 1 : 0] : UINT64_MAX;
}

static void json_ms(struct tcpav_json *j, const char *key, uint64_t ns)
{
	if (ns == UINT64_MAX)
		tcpav_json_null(j, key);
	else
		tcpav_json_fixed(j, key, ns / 1e6, 3);
}

static const char *ms_text(uint64_t ns, char *buf, size_t len)
{
	if (ns == UINT64_MAX)
		snprintf(buf, len, "never");
	else
		snprintf(buf, len, "%.1f", ns / 1e6);
	return buf;
}

static int report(const struct sender *x, const char *cc_name)
{
	const struct options *o = x->o;
	uint64_t win_start = x->start_ns + o->omit_ms * 1000000u, win_end = x->start_ns + o->duration_ms * 1000000u;
	uint64_t *lat, *late, first = UINT64_MAX, n = 0, unacked = 0, n_late = 0, k;
	uint64_t interval_ns = fs_frame_time_ns(&o->sched, 1);
	double secs = (win_end - win_start) / 1e9, offered_bps, delivered_bps, avr;
	/* least-squares slope of latency over time: a backlog that grows */
	double fit_n = 0, fit_x = 0, fit_y = 0, fit_xx = 0, fit_xy = 0, trend = NAN;
	uint64_t offered = x->written_at_window_end - x->written_at_window_start;
	uint64_t delivered = x->acked_at_window_end - x->acked_at_window_start;
	struct tcpav_json j;
	char b1[32], b2[32], b3[32], b4[32];
	FILE *out = NULL;
	int rc = 0;

	lat = calloc(x->n_frames + 1, sizeof(*lat));
	late = calloc(x->n_frames + 1, sizeof(*late));
	if (!lat || !late) {
		free(lat);
		free(late);
		return fail("memory");
	}
	for (k = 0; k < x->n_frames; k++) {
		const struct frame *f = &x->frames[k];

		if (f->sched_ns < win_start)
			continue;
		if (first == UINT64_MAX)
			first = k;
		lat[n] = f->acked_ns ? f->acked_ns - f->sched_ns : UINT64_MAX;
		late[n] = f->written_ns ? f->written_ns - f->sched_ns : UINT64_MAX;
		if (f->acked_ns) {
			double t_s = (f->sched_ns - win_start) / 1e9, l_ms = lat[n] / 1e6;

			fit_n++, fit_x += t_s, fit_y += l_ms, fit_xx += t_s * t_s, fit_xy += t_s * l_ms;
		}
		unacked += !f->acked_ns;
		n_late += late[n] > interval_ns;
		n++;
	}
	qsort(lat, n, sizeof(*lat), cmp_u64);
	qsort(late, n, sizeof(*late), cmp_u64);
	offered_bps = offered * 8 / secs;
	delivered_bps = delivered * 8 / secs;
	avr = delivered_bps / fmin((double)o->sched.rate_bps, offered_bps);
	if (fit_n >= 2 && fit_n * fit_xx - fit_x * fit_x > 0)
		trend = (fit_n * fit_xy - fit_x * fit_y) / (fit_n * fit_xx - fit_x * fit_x);

	/* the one-line summary goes to stderr when the JSON takes stdout */
	fprintf(o->json_path && !strcmp(o->json_path, "-") ? stderr : stdout,
		"frame_sender: %u fps, gop %u, I %llu B, P %llu B, cc %s: offered %.2f Mbit/s, "
		"delivered %.2f Mbit/s, AVR %.3f; latency ms p50 %s p95 %s p99 %s max %s; "
		"%llu of %llu frames late, %llu unacknowledged\n",
		o->sched.fps, o->sched.gop, (unsigned long long)fs_frame_bytes(&o->sched, 0),
		(unsigned long long)fs_frame_bytes(&o->sched, o->sched.gop > 1), cc_name, offered_bps / 1e6,
		delivered_bps / 1e6, avr, ms_text(percentile(lat, n, 50), b1, sizeof(b1)),
		ms_text(percentile(lat, n, 95), b2, sizeof(b2)), ms_text(percentile(lat, n, 99), b3, sizeof(b3)),
		ms_text(n ? lat[n - 1] : UINT64_MAX, b4, sizeof(b4)), (unsigned long long)n_late,
		(unsigned long long)n, (unsigned long long)unacked);
	if (!o->json_path)
		goto done;
	out = open_report(o->json_path);
	if (!out) {
		rc = 1;
		goto done;
	}
	tcpav_json_init(&j, out);
	tcpav_json_object_begin(&j, NULL);
	tcpav_json_string(&j, "mode", "sender");
	tcpav_json_string(&j, "cc", cc_name);
	tcpav_json_u64(&j, "rate_bps", o->sched.rate_bps);
	tcpav_json_u64(&j, "fps", o->sched.fps);
	tcpav_json_u64(&j, "gop", o->sched.gop);
	tcpav_json_fixed(&j, "i_ratio", o->sched.i_ratio_pct / 100.0, 2);
	tcpav_json_u64(&j, "i_frame_bytes", fs_frame_bytes(&o->sched, 0));
	tcpav_json_u64(&j, "p_frame_bytes", fs_frame_bytes(&o->sched, o->sched.gop > 1));
	tcpav_json_fixed(&j, "duration_s", o->duration_ms / 1e3, 3);
	tcpav_json_fixed(&j, "omit_s", o->omit_ms / 1e3, 3);
	/* the measured window, CLOCK_MONOTONIC (the sink's start_mono_s too) */
	tcpav_json_fixed(&j, "window_start_mono_s", win_start / 1e9, 6);
	tcpav_json_fixed(&j, "window_end_mono_s", win_end / 1e9, 6);
	tcpav_json_u64(&j, "frames", n);
	tcpav_json_u64(&j, "frames_late", n_late);
	tcpav_json_u64(&j, "frames_unacked", unacked);
	tcpav_json_u64(&j, "offered_bytes", offered);
	tcpav_json_u64(&j, "delivered_bytes", delivered);
	tcpav_json_fixed(&j, "offered_bps", offered_bps, 0);
	tcpav_json_fixed(&j, "delivered_bps", delivered_bps, 0);
	tcpav_json_fixed(&j, "avr", avr, 4);
	tcpav_json_object_begin(&j, "latency_ms");
	json_ms(&j, "p50", percentile(lat, n, 50));
	json_ms(&j, "p95", percentile(lat, n, 95));
	json_ms(&j, "p99", percentile(lat, n, 99));
	json_ms(&j, "max", n ? lat[n - 1] : UINT64_MAX);
	/* the longest that was measured: a floor for the rest when frames
	 * went unacknowledged */
	json_ms(&j, "max_acked", n > unacked ? lat[n - unacked - 1] : UINT64_MAX);
	tcpav_json_object_end(&j);
	tcpav_json_fixed(&j, "latency_trend_ms_per_s", trend, 3);
	tcpav_json_object_begin(&j, "lateness_ms");
	json_ms(&j, "p99", percentile(late, n, 99));
	json_ms(&j, "max", n ? late[n - 1] : UINT64_MAX);
	tcpav_json_object_end(&j);
	/* all frames, window or not: a frame whose own stamp did not come
	 * (no MSG_EOR support) took the time of a later one */
	tcpav_json_u64(&j, "frames_stamped", x->frames_exact);
	tcpav_json_u64(&j, "frames_acked_all", x->next_acked);
	if (o->per_frame) {
		tcpav_json_array_begin(&j, "frame_log");
		for (k = first == UINT64_MAX ? x->n_frames : first; k < x->n_frames; k++) {
			const struct frame *f = &x->frames[k];

			tcpav_json_object_begin(&j, NULL);
			tcpav_json_u64(&j, "k", k);
			tcpav_json_string(&j, "type", fs_is_i_frame(&o->sched, k) ? "I" : "P");
			tcpav_json_u64(&j, "bytes", f->bytes);
			/* the stream offset just past the frame: what a capture's
			 * in-order byte count is compared with */
			tcpav_json_u64(&j, "end_off", f->end_off);
			json_ms(&j, "sched_ms", f->sched_ns - x->start_ns);
			json_ms(&j, "written_ms", f->written_ns ? f->written_ns - x->start_ns : UINT64_MAX);
			json_ms(&j, "acked_ms", f->acked_ns ? f->acked_ns - x->start_ns : UINT64_MAX);
			tcpav_json_object_end(&j);
		}
		tcpav_json_array_end(&j);
	}
	tcpav_json_object_end(&j);
	tcpav_json_end_line(&j);
	rc = close_report(out, o->json_path);
done:
	free(lat);
	free(late);
	return rc;
}

static int send_frames(const struct options *o)
{
	struct sender x = {.o = o};
	int flags = SOF_TIMESTAMPING_TX_ACK | SOF_TIMESTAMPING_SOFTWARE | SOF_TIMESTAMPING_OPT_ID |
		    SOF_TIMESTAMPING_OPT_TSONLY;
	uint64_t end_ns, drain_end_ns, off = 0, k, mono, real;
	char cc_name[16] = "?";
	socklen_t len = sizeof(cc_name);
	int rc = 0;

	x.n_frames = (o->duration_ms * o->sched.fps + 999) / 1000;
	x.frames = calloc(x.n_frames, sizeof(*x.frames));
	if (!x.frames)
		return fail("memory");
	x.fd = connect_to(o);
	if (x.fd < 0) {
		free(x.frames);
		return 1;
	}
	/* the congestion control the socket ended up with (a tcpavctl rule
	 * chooses it at connect) */
	if (getsockopt(x.fd, IPPROTO_TCP, TCP_CONGESTION, cc_name, &len) == 0)
		cc_name[len < sizeof(cc_name) ? len : sizeof(cc_name) - 1] = '\0';
	/* OPT_ID on an established socket before its first byte: the keys
	 * count the stream's bytes from 0 */
	if (setsockopt(x.fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags)) ||
	    fcntl(x.fd, F_SETFL, fcntl(x.fd, F_GETFL) | O_NONBLOCK)) {
		rc = fail("SO_TIMESTAMPING / O_NONBLOCK");
		goto out;
	}
	mono = now_ns();
	real = clock_ns(CLOCK_REALTIME);
	x.real_minus_mono_ns = (int64_t)(real - mono);
	x.start_ns = mono;
	for (k = 0; k < x.n_frames; k++) {
		x.frames[k].bytes = fs_frame_bytes(&o->sched, k);
		off += x.frames[k].bytes;
		x.frames[k].end_off = off;
		x.frames[k].sched_ns = x.start_ns + fs_frame_time_ns(&o->sched, k);
	}
	end_ns = x.start_ns + o->duration_ms * 1000000u;
	drain_end_ns = end_ns + o->drain_ms * 1000000u;
	for (;;) {
		struct pollfd p = {.fd = x.fd};
		uint64_t now = now_ns(), wake;
		struct timespec timeout;

		/* every frame is due before end_ns; those that the socket has
		 * not taken by then still go in during the drain (their
		 * latency is measured), though they count as offered no more */
		while (x.next_frame < x.n_frames && x.frames[x.next_frame].sched_ns <= now)
			x.next_frame++;
		if (!x.window_started && now >= x.start_ns + o->omit_ms * 1000000u) {
			x.window_started = 1;
			x.written_at_window_start = x.written_off;
		}
		if (!x.window_ended && now >= end_ns) {
			x.window_ended = 1;
			x.written_at_window_end = x.written_off;
		}
		if (write_due(&x) || read_acks(&x)) {
			rc = 1;
			break;
		}
		if (now >= end_ns &&
		    ((x.next_write == x.n_frames && x.acked_off >= x.written_off) || now >= drain_end_ns))
			break;
		if (now < end_ns) {
			wake = x.next_frame < x.n_frames ? x.frames[x.next_frame].sched_ns : end_ns;
			if (wake > end_ns)
				wake = end_ns;
		} else {
			wake = drain_end_ns;
		}
		p.events = x.next_write < x.next_frame ? POLLOUT : 0;
		wake = wake > now ? wake - now : 0;
		timeout = (struct timespec){.tv_sec = (time_t)(wake / 1000000000u), .tv_nsec = (long)(wake % 1000000000u)};
		if (ppoll(&p, 1, &timeout, NULL) < 0 && errno != EINTR) {
			rc = fail("poll");
			break;
		}
	}
	if (!rc)
		rc = report(&x, cc_name);
out:
	close(x.fd);
	free(x.frames);
	return rc;
}

int main(int argc, char **argv)
{
	struct options o;
	int rc = parse_options(argc, argv, &o);

	if (rc)
		return rc;
	return o.listen_port ? sink(&o) : send_frames(&o);
}
