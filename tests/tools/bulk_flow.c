// SPDX-License-Identifier: GPL-2.0
/*
 * bulk_flow - one bounded TCP bulk transfer that ends cleanly, for the
 * recordings of tests/captures/record.sh (iperf3 -n stops counting when
 * the bytes are written, and its server closes while data is in flight).
 *
 *   bulk_flow sink PORT
 *       accept one connection on PORT (IPv4 and IPv6), read until EOF,
 *       close; prints "received N bytes"
 *   bulk_flow send ADDR PORT BYTES CC
 *       connect to ADDR:PORT with congestion control CC, write BYTES,
 *       shut down the write side, wait for the peer's close
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
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

static int sink(const char *port_arg)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT };
	unsigned long long port, total = 0;
	char buf[65536];
	int one = 1, zero = 0, l, c;
	ssize_t n;

	if (parse_count(port_arg, 65535, &port)) {
		fprintf(stderr, "bulk_flow: bad port '%s'\n", port_arg);
		return 2;
	}
	a.sin6_port = htons((unsigned short)port);
	l = socket(AF_INET6, SOCK_STREAM, 0);
	if (l < 0 || setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    setsockopt(l, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) ||
	    bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1))
		return fail("listen");
	c = accept(l, NULL, NULL);
	if (c < 0)
		return fail("accept");
	while ((n = read(c, buf, sizeof(buf))) > 0)
		total += (unsigned long long)n;
	if (n < 0)
		return fail("read");
	close(c);
	close(l);
	printf("received %llu bytes\n", total);
	return 0;
}

static int send_bulk(const char *addr, const char *port, const char *bytes_arg, const char *cc)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	unsigned long long left;
	static char buf[65536];
	int s, rc;
	ssize_t n;

	if (parse_count(bytes_arg, 1ULL << 40, &left)) {
		fprintf(stderr, "bulk_flow: bad byte count '%s'\n", bytes_arg);
		return 2;
	}
	rc = getaddrinfo(addr, port, &hints, &ai);
	if (rc) {
		fprintf(stderr, "bulk_flow: %s port %s: %s\n", addr, port, gai_strerror(rc));
		return 2;
	}
	s = socket(ai->ai_family, SOCK_STREAM, 0);
	rc = s < 0 ? fail("socket")
	     : setsockopt(s, IPPROTO_TCP, TCP_CONGESTION, cc, (socklen_t)strlen(cc)) ? fail("TCP_CONGESTION (the name of a congestion control)")
	     : connect(s, ai->ai_addr, ai->ai_addrlen)                               ? fail("connect")
										      : 0;
	freeaddrinfo(ai);
	if (rc)
		return rc;
	while (left) {
		n = write(s, buf, left < sizeof(buf) ? (size_t)left : sizeof(buf));
		if (n < 0)
			return fail("write");
		left -= (unsigned long long)n;
	}
	if (shutdown(s, SHUT_WR))
		return fail("shutdown");
	while ((n = read(s, buf, sizeof(buf))) > 0)
		;
	if (n < 0)
		return fail("read");
	close(s);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "sink"))
		return sink(argv[2]);
	if (argc == 6 && !strcmp(argv[1], "send"))
		return send_bulk(argv[2], argv[3], argv[4], argv[5]);
	fprintf(stderr, "usage: bulk_flow sink PORT | bulk_flow send ADDR PORT BYTES CC\n");
	return 2;
}
