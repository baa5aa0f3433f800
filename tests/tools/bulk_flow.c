// SPDX-License-Identifier: GPL-2.0
/*
 * bulk_flow - one bounded TCP bulk transfer that ends cleanly, for the
 * recordings of tests/captures/record.sh (iperf3 -n stops counting when
 * the bytes are written, and its server closes while data is in flight).
 *
 *   bulk_flow sink PORT
 *       accept one connection on PORT (IPv4 and IPv6), read until EOF,
 *       close; prints "received N bytes"
 *   bulk_flow send ADDR PORT BYTES CC [TOS]
 *       connect to ADDR:PORT with congestion control CC, write BYTES,
 *       shut down the write side, wait for the peer's close; with TOS
 *       (0-255, 0x.. allowed) the socket's IP_TOS (and IPV6_TCLASS for an
 *       IPv6 socket) is set before connect, as a program marking its own
 *       traffic does (tests/integration/rules_dscp.sh)
 *   bulk_flow serve PORT BYTES CC
 *       the same transfer the other way round (a download): accept one
 *       connection on PORT, write BYTES to it with CC, wait for its close
 *   bulk_flow fetch ADDR PORT
 *       connect to ADDR:PORT, read until EOF, close; prints "received N bytes"
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int fail(const char *what)
{
	fprintf(stderr, "bulk_flow: %s: %s\n", what, strerror(errno));
	return 1;
}

static int parse_count(const char *s, unsigned long long max, unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || end == s || *end || *out == 0 || *out > max ? -1 : 0;
}

/* Listens on PORT (IPv4 and IPv6) and accepts one connection; with CC the
 * listener's congestion control, which the connection inherits. Returns the
 * connection, -2 for a bad port, -1 after a message on another failure. */
static int accept_one(const char *port_arg, const char *cc)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT };
	unsigned long long port;
	int one = 1, zero = 0, l, c;

	if (parse_count(port_arg, 65535, &port)) {
		fprintf(stderr, "bulk_flow: bad port '%s'\n", port_arg);
		return -2;
	}
	a.sin6_port = htons((unsigned short)port);
	l = socket(AF_INET6, SOCK_STREAM, 0);
	if (l >= 0 && cc && setsockopt(l, IPPROTO_TCP, TCP_CONGESTION, cc, (socklen_t)strlen(cc))) {
		fail("TCP_CONGESTION (the name of a congestion control)");
		close(l);
		return -1;
	}
	if (l < 0 || setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    setsockopt(l, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) ||
	    bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1)) {
		fail("listen");
		if (l >= 0)
			close(l);
		return -1;
	}
	c = accept(l, NULL, NULL);
	if (c < 0)
		fail("accept");
	close(l);
	return c;
}

/* TOS on S before connect: IP_TOS, and IPV6_TCLASS too for an IPv6
 * socket (whose IPv4-mapped connections send with IP_TOS). */
static int set_tos(int s, int family, int tos)
{
	if (setsockopt(s, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)))
		return fail("IP_TOS");
	if (family == AF_INET6 && setsockopt(s, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof(tos)))
		return fail("IPV6_TCLASS");
	return 0;
}

/* Connects to ADDR:PORT, with congestion control CC when given and TOS
 * when not negative; -2 for an unknown address, -1 after a message on
 * another failure. */
static int connect_to(const char *addr, const char *port, const char *cc, int tos)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	int s, rc;

	rc = getaddrinfo(addr, port, &hints, &ai);
	if (rc) {
		fprintf(stderr, "bulk_flow: %s port %s: %s\n", addr, port, gai_strerror(rc));
		return -2;
	}
	s = socket(ai->ai_family, SOCK_STREAM, 0);
	rc = s < 0 ? fail("socket")
	     : cc && setsockopt(s, IPPROTO_TCP, TCP_CONGESTION, cc, (socklen_t)strlen(cc)) ? fail("TCP_CONGESTION (the name of a congestion control)")
	     : tos >= 0 && set_tos(s, ai->ai_family, tos)                                  ? 1
	     : connect(s, ai->ai_addr, ai->ai_addrlen)                                     ? fail("connect")
											    : 0;
	freeaddrinfo(ai);
	if (rc) {
		if (s >= 0)
			close(s);
		return -1;
	}
	return s;
}

/* Reads S until EOF and closes it; prints the byte count when asked. */
static int read_all(int s, int report)
{
	static char buf[65536];
	unsigned long long total = 0;
	ssize_t n;

	while ((n = read(s, buf, sizeof(buf))) > 0)
		total += (unsigned long long)n;
	close(s);
	if (n < 0)
		return fail("read");
	if (report)
		printf("received %llu bytes\n", total);
	return 0;
}

/* Writes BYTES to S, shuts down the write side and waits for the peer's
 * close (every byte acknowledged). */
static int write_all(int s, unsigned long long left)
{
	static char buf[65536];
	ssize_t n;

	while (left) {
		n = write(s, buf, left < sizeof(buf) ? (size_t)left : sizeof(buf));
		if (n < 0) {
			close(s);
			return fail("write");
		}
		left -= (unsigned long long)n;
	}
	if (shutdown(s, SHUT_WR)) {
		close(s);
		return fail("shutdown");
	}
	return read_all(s, 0);
}

static int sink(const char *port_arg)
{
	int c = accept_one(port_arg, NULL);

	return c < 0 ? -c : read_all(c, 1);
}

static int serve(const char *port_arg, const char *bytes_arg, const char *cc)
{
	unsigned long long bytes;
	int c;

	if (parse_count(bytes_arg, 1ULL << 40, &bytes)) {
		fprintf(stderr, "bulk_flow: bad byte count '%s'\n", bytes_arg);
		return 2;
	}
	c = accept_one(port_arg, cc);
	return c < 0 ? -c : write_all(c, bytes);
}

static int fetch(const char *addr, const char *port)
{
	int s = connect_to(addr, port, NULL, -1);

	return s < 0 ? -s : read_all(s, 1);
}

static int send_bulk(const char *addr, const char *port, const char *bytes_arg, const char *cc, const char *tos_arg)
{
	unsigned long long bytes;
	long tos = -1;
	char *end;
	int s;

	if (parse_count(bytes_arg, 1ULL << 40, &bytes)) {
		fprintf(stderr, "bulk_flow: bad byte count '%s'\n", bytes_arg);
		return 2;
	}
	if (tos_arg) {
		errno = 0;
		tos = strtol(tos_arg, &end, 0);
		if (errno || end == tos_arg || *end || tos < 0 || tos > 255) {
			fprintf(stderr, "bulk_flow: bad TOS '%s' (0-255)\n", tos_arg);
			return 2;
		}
	}
	s = connect_to(addr, port, cc, (int)tos);
	return s < 0 ? -s : write_all(s, bytes);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "sink"))
		return sink(argv[2]);
	if ((argc == 6 || argc == 7) && !strcmp(argv[1], "send"))
		return send_bulk(argv[2], argv[3], argv[4], argv[5], argc == 7 ? argv[6] : NULL);
	if (argc == 5 && !strcmp(argv[1], "serve"))
		return serve(argv[2], argv[3], argv[4]);
	if (argc == 4 && !strcmp(argv[1], "fetch"))
		return fetch(argv[2], argv[3]);
	fprintf(stderr, "usage: bulk_flow sink PORT | bulk_flow send ADDR PORT BYTES CC [TOS]\n"
			"       bulk_flow serve PORT BYTES CC | bulk_flow fetch ADDR PORT\n");
	return 2;
}
