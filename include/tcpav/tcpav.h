/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * tcpav.h - libtcpav, the application API of tcp_av.
 *
 *   int tcpav_set_target(int fd, uint64_t bits_per_second);
 *
 * puts the TCP socket fd on the tcp_av congestion control with the given
 * target rate, before connect() or mid-flow; 0 bits/s means no target (the
 * socket behaves like Reno). tcp_av must be loaded (tcpavctl load); the
 * caller needs CAP_BPF (root) to write the target map. Returns 0, or -1 with
 * errno set; on failure the socket is left as it was.
 *
 * Rates in the project are bits per second and are written as iperf3's
 * options take them: "8M", "500k", "1.5G" (k = 1000).
 */
#ifndef TCPAV_TCPAV_H
#define TCPAV_TCPAV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

int tcpav_set_target(int fd, uint64_t bits_per_second);

/* Reads the target tcp_av holds for fd (0 if none). 0, or -1 with errno. */
int tcpav_get_target(int fd, uint64_t *bits_per_second);

/* The pin directory libtcpav uses: $TCPAV_PIN_DIR or /sys/fs/bpf/tcpav. */
const char *tcpav_pin_dir(void);

/*
 * Parses an iperf3-style rate ("8M", "500k", "1.5G", "250000"; suffixes
 * k, M, G, T in either case, powers of 1000) into bits/s, rounded to the
 * nearest bit. Returns 0, or -1 (errno EINVAL or ERANGE) for anything else,
 * without touching *bps.
 */
int tcpav_parse_rate(const char *text, uint64_t *bps);

/* Formats bits/s with 4 significant digits and a unit ("12.5 Mbit/s",
 * "500 Kbit/s", "999 bit/s") into buf; returns buf. */
char *tcpav_format_rate(uint64_t bps, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* TCPAV_TCPAV_H */
