// SPDX-License-Identifier: GPL-2.0
/*
 * set_target_probe - drives libtcpav's tcpav_set_target() on a real bulk
 * flow, for the integration tests.
 *
 *   set_target_probe sink PORT
 *       accept one TCP connection on PORT and discard what it sends
 *   set_target_probe send ADDR PORT SECONDS RATE0 SWITCH_AT RATE1 [AT RATE]...
 *       connect to ADDR:PORT with target RATE0 (set before connect), send
 *       bulk data for SECONDS, set target RATE1 at SWITCH_AT seconds (and
 *       each further RATE at its AT, in increasing order; 0 = no target); print
 *       one line per 250 ms of what the kernel says of the socket (TCP_INFO,
 *       TCP_CONGESTION), not what libtcpav wrote:
 *       "T_SECONDS ACKED_BPS CC PACING_BPS CWND SRTT_US MSS"
 *       (PACING_BPS is "none" while the socket has no pacing rate)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tcpav/tcpav.h"

#define MAX_SWITCHES 8

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int die(const char *what)
{
	fprintf(stderr, "set_target_probe: %s: %s\n", what, strerror(errno));
	return 1;
}

static int sink(const char *port)
{
	struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)atoi(port))};
	static char buf[1 << 16];
	int one = 1, s, c;

	s = socket(AF_INET6, SOCK_STREAM, 0);
	if (s < 0)
		return die("socket");
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s, 1) < 0)
		return die("bind/listen");
	c = accept(s, NULL, NULL);
	if (c < 0)
		return die("accept");
	while (read(c, buf, sizeof(buf)) > 0)
		;
	close(c);
	close(s);
	return 0;
}

static int send_bulk(char **argv, int nswitch)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai;
	uint64_t rate0, rates[MAX_SWITCHES], prev_acked = 0;
	double secs = atof(argv[2]), at[MAX_SWITCHES], start, next_report;
	static char buf[1 << 16];
	int fd, switched = 0, i;

	if (tcpav_parse_rate(argv[3], &rate0) < 0) {
		fprintf(stderr, "set_target_probe: bad rate '%s'\n", argv[3]);
		return 2;
	}
	for (i = 0; i < nswitch; i++) {
		char *end;

		at[i] = strtod(argv[4 + 2 * i], &end);
		if (*end || end == argv[4 + 2 * i] || at[i] < 0 || (i && at[i] < at[i - 1])) {
			fprintf(stderr, "set_target_probe: bad switch time '%s'\n", argv[4 + 2 * i]);
			return 2;
		}
		if (tcpav_parse_rate(argv[5 + 2 * i], &rates[i]) < 0) {
			fprintf(stderr, "set_target_probe: bad rate '%s'\n", argv[5 + 2 * i]);
			return 2;
		}
	}
	if (getaddrinfo(argv[0], argv[1], &hints, &ai) != 0) {
		fprintf(stderr, "set_target_probe: cannot resolve %s\n", argv[0]);
		return 2;
	}
	fd = socket(ai->ai_family, SOCK_STREAM, 0);
	if (fd < 0)
		return die("socket");
	if (tcpav_set_target(fd, rate0) < 0)
		return die("tcpav_set_target before connect");
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0)
		return die("connect");
	freeaddrinfo(ai);
	start = now_s();
	next_report = start + 0.25;
	while (now_s() - start < secs) {
		double t = now_s();

		while (switched < nswitch && t - start >= at[switched]) {
			if (tcpav_set_target(fd, rates[switched]) < 0)
				return die("tcpav_set_target mid-flow");
			switched++;
		}
		if (t >= next_report) {
			struct tcp_info ti;
			socklen_t len = sizeof(ti);
			char cc[16] = "";
			socklen_t cclen = sizeof(cc);

			char pacing[24] = "none";

			getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len);
			getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, &cclen);
			/* ~0 is the kernel's "no rate set" (sk_pacing_rate's initial value) */
			if (ti.tcpi_pacing_rate != ~0ull)
				snprintf(pacing, sizeof(pacing), "%llu", (unsigned long long)ti.tcpi_pacing_rate * 8);
			printf("%.2f %llu %s %s %u %u %u\n", t - start,
			       (unsigned long long)((ti.tcpi_bytes_acked - prev_acked) * 8 * 4), cc, pacing,
			       ti.tcpi_snd_cwnd, ti.tcpi_rtt, ti.tcpi_snd_mss);
			fflush(stdout);
			prev_acked = ti.tcpi_bytes_acked;
			next_report += 0.25;
		}
		if (send(fd, buf, sizeof(buf), MSG_DONTWAIT) < 0 && errno != EAGAIN)
			return die("send");
		if (errno == EAGAIN) {
			struct timespec ts = {.tv_nsec = 1000000};

			nanosleep(&ts, NULL);
			errno = 0;
		}
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "sink") == 0)
		return sink(argv[2]);
	if (argc >= 8 && argc % 2 == 0 && (argc - 6) / 2 <= MAX_SWITCHES && strcmp(argv[1], "send") == 0)
		return send_bulk(argv + 2, (argc - 6) / 2);
	fprintf(stderr, "usage: set_target_probe sink PORT | send ADDR PORT SECONDS RATE0 SWITCH_AT RATE1 [AT RATE]... (at most %d switches)\n",
		MAX_SWITCHES);
	return 2;
}
