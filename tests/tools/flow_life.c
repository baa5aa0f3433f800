// SPDX-License-Identifier: GPL-2.0
/*
 * flow_life - TCP connections on loopback whose end the caller chooses, for
 * tests/integration/flow_lifecycle.sh: both ends of each connection run a
 * congestion control CC (set with TCP_CONGESTION on the client and on the
 * listener, whose accepted sockets inherit it).
 *
 *   flow_life pair 4|6 PORT CPORT BYTES CC
 *       a listener on 127.0.0.1 or [::1] PORT and one connection to it
 *       from local port CPORT (0: an ephemeral one); each side sends BYTES
 *       (0: nothing, the flow stays idle). Prints "ready CLIENT SERVER"
 *       (addr:port of each end). Then reads commands from stdin:
 *         close client|server fin|rst|disconnect
 *             that side ends the connection: close() (FIN), close() with
 *             SO_LINGER 0 (RST) or connect(AF_UNSPEC) (tcp_disconnect,
 *             the socket stays open); the other side closes when it
 *             reads the end (EOF or reset). Prints "closed".
 *       EOF on stdin closes what is left and exits.
 *   flow_life churn 4|6 PORT COUNT CC
 *       COUNT short connections one after the other, 1,000 bytes each way,
 *       ended by the client in turn by FIN, RST and disconnect. Prints
 *       "done COUNT".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define END_TIMEOUT_MS 3000 /* the peer's end arrives over loopback in far less */

static int fail(const char *what)
{
	fprintf(stderr, "flow_life: %s: %s\n", what, strerror(errno));
	return -1;
}

/* poll() that counts a timeout as a failure (ETIMEDOUT) */
static int poll_or_fail(struct pollfd *p, nfds_t n, const char *what)
{
	int r = poll(p, n, END_TIMEOUT_MS);

	if (r == 0)
		errno = ETIMEDOUT;
	return r > 0 ? 0 : fail(what);
}

static int parse_num(const char *s, unsigned long long max, unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || end == s || *end || *out > max ? -1 : 0;
}

static socklen_t loopback(int family, unsigned short port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_addr = in6addr_loopback;
		a->sin6_port = htons(port);
		return sizeof(*a);
	}
	struct sockaddr_in *a = (struct sockaddr_in *)ss;

	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a->sin_port = htons(port);
	return sizeof(*a);
}

static int tcp_socket(int family, const char *cc)
{
	int one = 1, fd = socket(family, SOCK_STREAM, 0);

	if (fd < 0)
		return fail("socket");
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, (socklen_t)strlen(cc))) {
		fail("setsockopt (SO_REUSEADDR, TCP_CONGESTION: is the congestion control loaded?)");
		close(fd);
		return -1;
	}
	return fd;
}

static int listener(int family, unsigned short port, const char *cc)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback(family, port, &ss);
	int fd = tcp_socket(family, cc);

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 16)) {
		fail("bind/listen");
		close(fd);
		return -1;
	}
	return fd;
}

/* Connects from CPORT (0: ephemeral) and accepts; *server gets the accepted end. */
static int connect_pair(int lfd, int family, unsigned short port, unsigned short cport, const char *cc,
			int *server)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd = tcp_socket(family, cc);

	if (fd < 0)
		return -1;
	if (cport) {
		len = loopback(family, cport, &ss);
		if (bind(fd, (struct sockaddr *)&ss, len)) {
			fail("bind to the client port");
			close(fd);
			return -1;
		}
	}
	len = loopback(family, port, &ss);
	if (connect(fd, (struct sockaddr *)&ss, len)) {
		fail("connect");
		close(fd);
		return -1;
	}
	*server = accept(lfd, NULL, NULL);
	if (*server < 0) {
		fail("accept");
		close(fd);
		return -1;
	}
	return fd;
}

/* Each of the two sockets sends BYTES to the other, at the same time (one
 * direction at a time could fill both buffers and block). */
static int exchange(int a, int b, unsigned long long bytes)
{
	static char buf[65536];
	unsigned long long sent[2] = {0, 0}, got[2] = {0, 0};
	int fds[2] = {a, b};

	for (int i = 0; i < 2; i++)
		if (fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK))
			return fail("fcntl");
	while (sent[0] < bytes || sent[1] < bytes || got[0] < bytes || got[1] < bytes) {
		struct pollfd p[2];

		for (int i = 0; i < 2; i++) {
			p[i].fd = fds[i];
			p[i].events = (short)((sent[i] < bytes ? POLLOUT : 0) | (got[i] < bytes ? POLLIN : 0));
		}
		if (poll_or_fail(p, 2, "exchanging data"))
			return -1;
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (p[i].revents & POLLOUT) {
				unsigned long long want = bytes - sent[i];

				n = write(fds[i], buf, want < sizeof(buf) ? want : sizeof(buf));
				if (n < 0 && errno != EAGAIN)
					return fail("write");
				sent[i] += n > 0 ? (unsigned long long)n : 0;
			}
			if (p[i].revents & (POLLIN | POLLERR | POLLHUP)) {
				n = read(fds[i], buf, sizeof(buf));
				if (n == 0) {
					fprintf(stderr, "flow_life: the peer closed during the exchange\n");
					return -1;
				}
				if (n < 0 && errno != EAGAIN)
					return fail("read");
				got[i] += n > 0 ? (unsigned long long)n : 0;
			}
		}
	}
	for (int i = 0; i < 2; i++)
		if (fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) & ~O_NONBLOCK))
			return fail("fcntl");
	return 0;
}

enum how { HOW_FIN, HOW_RST, HOW_DISCONNECT };

/* Ends *fd by HOW; a disconnected socket stays open (its fd is kept). */
static int end_by(int *fd, enum how how)
{
	struct sockaddr unspec = {.sa_family = AF_UNSPEC};
	struct linger lg = {.l_onoff = 1, .l_linger = 0};

	switch (how) {
	case HOW_FIN: break;
	case HOW_RST:
		if (setsockopt(*fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)))
			return fail("SO_LINGER");
		break;
	case HOW_DISCONNECT:
		if (connect(*fd, &unspec, sizeof(unspec)))
			return fail("connect(AF_UNSPEC)");
		return 0;
	}
	close(*fd);
	*fd = -1;
	return 0;
}

/* The other side: waits for the end (EOF or reset), then closes. */
static int close_on_end(int *fd)
{
	struct pollfd p = {.fd = *fd, .events = POLLIN};
	char buf[4096];
	ssize_t n;

	do {
		if (poll_or_fail(&p, 1, "waiting for the peer's end"))
			return -1;
		n = read(*fd, buf, sizeof(buf));
	} while (n > 0);
	close(*fd);
	*fd = -1;
	return 0;
}

static int parse_how(const char *s, enum how *how)
{
	if (strcmp(s, "fin") == 0)
		*how = HOW_FIN;
	else if (strcmp(s, "rst") == 0)
		*how = HOW_RST;
	else if (strcmp(s, "disconnect") == 0)
		*how = HOW_DISCONNECT;
	else
		return -1;
	return 0;
}

static void endpoint(int fd, char *buf, size_t size)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char a[INET6_ADDRSTRLEN] = "?";

	if (getsockname(fd, (struct sockaddr *)&ss, &len)) {
		snprintf(buf, size, "?");
		return;
	}
	if (ss.ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, a, sizeof(a));
		snprintf(buf, size, "[%s]:%u", a, ntohs(((struct sockaddr_in6 *)&ss)->sin6_port));
	} else {
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, a, sizeof(a));
		snprintf(buf, size, "%s:%u", a, ntohs(((struct sockaddr_in *)&ss)->sin_port));
	}
}

static int run_pair(int family, unsigned short port, unsigned short cport, unsigned long long bytes, const char *cc)
{
	char line[128], side[16], how_text[16], c_ep[64], s_ep[64];
	int lfd = listener(family, port, cc), fd[2] = {-1, -1}, rc = 0;
	enum how how;

	if (lfd < 0)
		return 1;
	fd[0] = connect_pair(lfd, family, port, cport, cc, &fd[1]);
	close(lfd);
	if (fd[0] < 0 || exchange(fd[0], fd[1], bytes))
		return 1;
	endpoint(fd[0], c_ep, sizeof(c_ep));
	endpoint(fd[1], s_ep, sizeof(s_ep));
	printf("ready %s %s\n", c_ep, s_ep);
	fflush(stdout);
	while (rc == 0 && fgets(line, sizeof(line), stdin)) {
		int i;

		if (sscanf(line, "close %15s %15s", side, how_text) != 2 || parse_how(how_text, &how) ||
		    (strcmp(side, "client") && strcmp(side, "server"))) {
			fprintf(stderr, "flow_life: bad command '%.*s': close client|server fin|rst|disconnect\n",
				(int)strcspn(line, "\n"), line);
			rc = 1;
			break;
		}
		i = strcmp(side, "client") == 0 ? 0 : 1;
		if (fd[0] < 0 || fd[1] < 0 || end_by(&fd[i], how) || close_on_end(&fd[1 - i])) {
			if (fd[0] < 0 || fd[1] < 0)
				fprintf(stderr, "flow_life: the connection has ended already\n");
			rc = 1;
			break;
		}
		printf("closed\n");
		fflush(stdout);
	}
	for (int i = 0; i < 2; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	return rc;
}

static int run_churn(int family, unsigned short port, unsigned long long count, const char *cc)
{
	static const enum how order[] = {HOW_FIN, HOW_RST, HOW_DISCONNECT};
	int lfd = listener(family, port, cc);

	if (lfd < 0)
		return 1;
	for (unsigned long long i = 0; i < count; i++) {
		int server, client = connect_pair(lfd, family, port, 0, cc, &server);

		if (client < 0)
			return 1;
		if (exchange(client, server, 1000) || end_by(&client, order[i % 3]) || close_on_end(&server))
			return 1;
		if (client >= 0)
			close(client);
	}
	close(lfd);
	printf("done %llu\n", count);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: flow_life pair 4|6 PORT CPORT BYTES CC\n"
			"       flow_life churn 4|6 PORT COUNT CC\n");
	return 2;
}

int main(int argc, char **argv)
{
	unsigned long long port, cport, n;
	int family;

	if (argc < 3)
		return usage();
	if (strcmp(argv[2], "4") && strcmp(argv[2], "6")) {
		fprintf(stderr, "flow_life: family '%s': 4 or 6\n", argv[2]);
		return 2;
	}
	family = argv[2][0] == '6' ? AF_INET6 : AF_INET;
	if (strcmp(argv[1], "pair") == 0 && argc == 7) {
		if (parse_num(argv[3], 65535, &port) || port == 0 || parse_num(argv[4], 65535, &cport) ||
		    parse_num(argv[5], 1ull << 40, &n)) {
			fprintf(stderr, "flow_life: bad PORT, CPORT or BYTES ('%s' '%s' '%s')\n", argv[3], argv[4],
				argv[5]);
			return 2;
		}
		return run_pair(family, (unsigned short)port, (unsigned short)cport, n, argv[6]);
	}
	if (strcmp(argv[1], "churn") == 0 && argc == 6) {
		if (parse_num(argv[3], 65535, &port) || port == 0 || parse_num(argv[4], 1000000, &n) || n == 0) {
			fprintf(stderr, "flow_life: bad PORT or COUNT ('%s' '%s')\n", argv[3], argv[4]);
			return 2;
		}
		return run_churn(family, (unsigned short)port, n, argv[5]);
	}
	return usage();
}
