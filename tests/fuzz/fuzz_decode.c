// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_decode.c - libFuzzer target for avmon's decoders and analysis:
 * link_type_find + frame_decode + ip_decode on every slice, then
 * analysis_frame on one long-lived analysis, with interval and summary
 * reports (JSON, CSV and the table format) written to /dev/null now and
 * then.
 *
 * Input format (what tests/fuzz/seed_extract.c writes from real captures):
 *
 *   byte 0      selector: bits 0-3 pick the link type, fuzz_dlts[bits % N]
 *               bit 6: decode without SIFS + ACK in the airtime
 *               bit 7: two more bytes (big endian) follow: how many bytes
 *                      the frame had on the wire beyond the captured ones
 *                      (a snaplen cut)
 *   [bytes 1-2] the extra wire length, when bit 7 is set
 *   rest        the captured frame
 *
 * The frame is copied into a buffer of exactly its length so that ASan
 * catches a read one byte past (or before) it.
 *
 * State: the analysis lives across inputs (flow and station tables with
 * 64 entries each, so LRU eviction runs and memory stays bounded) and is
 * started afresh every FUZZ_RESET_EVERY inputs. A crash that needs earlier
 * inputs does not reproduce from its file alone; run the crasher with
 * AVMON_FUZZ_FRESH=1 to see whether it crashes on a fresh analysis (it
 * then reproduces deterministically).
 *
 * Build (see tests/fuzz/run.sh):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
 *     -D_GNU_SOURCE -Imonitor -Iinclude tests/fuzz/fuzz_decode.c \
 *     (every monitor .c file but avmon.c and capture.c) tcpav/lib/{metrics,units}.c \
 *     -lm -o build/fuzz_decode
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "decode.h"
#include "packet.h"

/* Every DLT link_type_find() answers for; tests/fuzz/seed_extract.c has
 * the same list in the same order. */
static const int fuzz_dlts[] = {
	1,   /* EN10MB */
	113, /* LINUX_SLL */
	276, /* LINUX_SLL2 */
	12,  /* RAW */
	14,  /* RAW (OpenBSD) */
	101, /* LINKTYPE_RAW */
	228, /* IPV4 */
	229, /* IPV6 */
	105, /* IEEE802_11 */
	127, /* IEEE802_11_RADIO */
};
#define FUZZ_N_DLTS (sizeof(fuzz_dlts) / sizeof(fuzz_dlts[0]))

#define FUZZ_SEL_NO_ACK 0x40
#define FUZZ_SEL_WIRE_EXTRA 0x80
#define FUZZ_MAX_FLOWS 64
#define FUZZ_MAX_STATIONS 64
#define FUZZ_RESET_EVERY 20000
#define FUZZ_SUMMARY_EVERY 512
#define FUZZ_INTERVAL_S 0.25
#define FUZZ_TS_STEP 0.0007 /* s between inputs: several intervals per reset */

static struct analysis *fuzz_analysis;
static FILE *fuzz_null;
static unsigned long fuzz_runs;
static double fuzz_ts;
static int fuzz_fresh;
static struct capture_info fuzz_ci;

static struct analysis *fuzz_analysis_new(void)
{
	static struct analysis_target targets[2];
	static int parsed;
	struct analysis_config cfg = {
		.max_flows = FUZZ_MAX_FLOWS,
		.max_stations = FUZZ_MAX_STATIONS,
		.interval_s = FUZZ_INTERVAL_S,
	};

	if (!parsed) {
		/* targets make the reports compute AVR and NRT for matching flows */
		if (analysis_target_parse("10.0.0.2=8M", &targets[0], NULL, 0) < 0 ||
		    analysis_target_parse("[2001:db8::2]:5201=500k", &targets[1], NULL, 0) < 0)
			abort();
		parsed = 1;
	}
	cfg.targets = targets;
	cfg.n_targets = 2;
	return analysis_new(&cfg);
}

static void fuzz_cleanup(void)
{
	analysis_free(fuzz_analysis);
	fuzz_analysis = NULL;
	if (fuzz_null)
		fclose(fuzz_null);
	fuzz_null = NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *fresh = getenv("AVMON_FUZZ_FRESH");

	(void)argc;
	(void)argv;
	fuzz_fresh = fresh && *fresh && strcmp(fresh, "0") != 0;
	fuzz_null = fopen("/dev/null", "w");
	if (!fuzz_null)
		abort();
	fuzz_analysis = fuzz_analysis_new();
	if (!fuzz_analysis)
		abort();
	fuzz_ci.dlt = 1;
	fuzz_ci.link_name = "EN10MB";
	atexit(fuzz_cleanup);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct frame f;
	static struct ip_packet pkts[FRAME_MAX_IP];
	const struct link_type *lt;
	uint8_t sel, *frame;
	uint32_t caplen, wirelen, extra = 0;
	unsigned n = 0;
	size_t hdr = 1;

	if (size < 1)
		return 0;
	sel = data[0];
	if (sel & FUZZ_SEL_WIRE_EXTRA) {
		if (size < 3)
			return 0;
		extra = (uint32_t)data[1] << 8 | data[2];
		hdr = 3;
	}
	if (size - hdr > 262144)
		return 0; /* larger than any snaplen */
	caplen = (uint32_t)(size - hdr);
	wirelen = caplen + extra;
	/* exactly caplen bytes, so that ASan sees any read past them */
	frame = malloc(caplen ? caplen : 1);
	if (!frame)
		return 0;
	memcpy(frame, data + hdr, caplen);

	if (fuzz_fresh || ++fuzz_runs % FUZZ_RESET_EVERY == 0) {
		analysis_free(fuzz_analysis);
		fuzz_analysis = fuzz_analysis_new();
		if (!fuzz_analysis)
			abort();
		fuzz_ts = 0.0;
	}

	lt = link_type_find(fuzz_dlts[(sel & 0x0f) % FUZZ_N_DLTS]);
	if (!lt)
		abort(); /* the table above lists only supported link types */
	fuzz_ts += FUZZ_TS_STEP;
	frame_decode_airtime(lt, fuzz_ts, caplen ? frame : NULL, caplen, wirelen, !(sel & FUZZ_SEL_NO_ACK), &f);

	/* what frame_decode() promises: slices inside the captured bytes */
	if (f.n_ip > FRAME_MAX_IP)
		abort();
	for (unsigned i = 0; i < f.n_ip; i++) {
		const struct ip_slice *s = &f.ip[i];

		if (s->caplen && (s->data < frame || s->data + s->caplen > frame + caplen))
			abort();
		if (s->wirelen < s->caplen)
			abort();
		if (ip_decode(s, &pkts[n]) == MAL_NONE)
			n++;
	}
	if ((unsigned)f.malformed >= MAL_REASONS)
		abort();

	fuzz_ci.packets++;
	fuzz_ci.bytes += wirelen;
	fuzz_ci.malformed[f.malformed]++;
	if (fuzz_ci.packets == 1)
		fuzz_ci.first_ts = fuzz_ts;
	fuzz_ci.last_ts = fuzz_ts;

	/* the three output formats take turns */
	while (f.ts >= analysis_interval_end(fuzz_analysis)) {
		double end = analysis_interval_end(fuzz_analysis);

		if (fuzz_runs % 3 == 0)
			analysis_interval_csv(fuzz_analysis, end, fuzz_null);
		else if (fuzz_runs % 3 == 1)
			analysis_interval_table(fuzz_analysis, end, fuzz_null, fuzz_runs & 4);
		else
			analysis_interval_json(fuzz_analysis, end, fuzz_null);
	}
	analysis_frame(fuzz_analysis, &f, pkts, n);
	if (fuzz_fresh || fuzz_runs % FUZZ_SUMMARY_EVERY == 0) {
		const struct capture_info *ci = (fuzz_runs & 2) ? &fuzz_ci : NULL;

		analysis_summary_json(fuzz_analysis, ci, fuzz_null);
		analysis_summary_table(fuzz_analysis, ci, fuzz_null);
	}
	free(frame);
	return 0;
}
