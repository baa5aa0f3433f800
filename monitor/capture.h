/* SPDX-License-Identifier: GPL-2.0 */
/*
 * capture.h - where avmon's frames come from: a live interface or a
 * capture file (pcap or pcapng, "-" for stdin), through libpcap, with an
 * optional BPF filter, an optional copy saved with -w, and privileges
 * dropped after opening (-Z).
 */
#ifndef AVMON_CAPTURE_H
#define AVMON_CAPTURE_H

#include <stdbool.h>
#include <signal.h>
#include <stdint.h>

#include <pcap/pcap.h>

#include "packet.h"

struct capture_options {
	const char *interface;   /* -i, or NULL */
	const char *file;        /* -r, or NULL */
	const char *save_file;   /* -w, or NULL */
	const char *user;        /* -Z, or NULL */
	const char *filter;      /* BPF expression, or NULL */
	int snaplen;             /* -s */
	int buffer_kib;          /* -B */
};

struct capture {
	pcap_t *pcap;
	pcap_dumper_t *dumper;
	const struct link_type *link;
	char *file_buffer;       /* -r FILE: the stdio buffer libpcap reads through */
	struct capture_info info;
	double ts_unit;          /* tv_usec holds ns (1e-9) or us (1e-6) */
	bool live;
	volatile sig_atomic_t stop; /* set by capture_stop() */
};

/* Opens, applies the filter, opens -w, drops privileges. On failure prints
 * one line naming what was wrong and returns -1 with nothing left open. */
int capture_open(struct capture *cap, const struct capture_options *opt);

/* Called for every frame; the frame and its decoded IP packets are valid
 * during the call only. */
typedef void (*capture_frame_fn)(void *ctx, const struct frame *f, const struct ip_packet *pkts,
				 unsigned n_pkts);
/* Called when no frame arrived for a while (live capture), so that
 * interval output keeps its pace. */
typedef void (*capture_idle_fn)(void *ctx, double now);

/* Reads until the end of the file, capture_stop(), or an error (printed, -1). */
int capture_run(struct capture *cap, capture_frame_fn on_frame, capture_idle_fn on_idle, void *ctx);

/* Async-signal-safe: makes capture_run return after the current frame. */
void capture_stop(struct capture *cap);

/* libpcap's counters for live captures (received, dropped by the kernel,
 * dropped by the interface); false when not available. */
bool capture_drops(struct capture *cap, uint64_t *received, uint64_t *dropped, uint64_t *if_dropped);

void capture_close(struct capture *cap);

#endif /* AVMON_CAPTURE_H */
