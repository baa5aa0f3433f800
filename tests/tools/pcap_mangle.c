// SPDX-License-Identifier: GPL-2.0
/*
 * pcap_mangle - broken variants of a capture, for the corpus in
 * tests/captures (MANIFEST.md says which file was made how):
 *
 *   pcap_mangle IN OUT OP...
 *
 *   first=N          keep the first N records
 *   snaplen=N        keep at most N bytes of each record (its wire length stays)
 *   ihl=K:V          record K (from 1): the IPv4 header length field is V words
 *   iplen=K:V        record K: IPv4 total length, or IPv6 payload length, is V
 *   doff=K:V         record K: the TCP data offset is V words
 *   cut              the file ends in the middle of its last record
 *   pcapng-bad-block=K
 *                    write pcapng (not pcap); the K-th packet block's trailing
 *                    length disagrees with its leading one
 *
 * The IP and TCP headers are found by avmon's own decoders (frame_decode),
 * in the unbroken record. Records whose header is not there are refused
 * with an error, so that a variant never silently lacks its fault.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "decode.h"

#define MAX_OPS 16

struct edit {
	enum { EDIT_IHL, EDIT_IPLEN, EDIT_DOFF } what;
	unsigned long record, value;
};

struct options {
	unsigned long first, snaplen, bad_block;
	bool cut;
	struct edit edit[MAX_OPS];
	unsigned n_edits;
};

static int usage(void)
{
	fprintf(stderr, "usage: pcap_mangle IN OUT OP...  (OP: first=N snaplen=N ihl=K:V iplen=K:V doff=K:V cut "
			"pcapng-bad-block=K)\n");
	return 2;
}

static bool parse_num(const char *s, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	return errno == 0 && end != s && *end == '\0';
}

static bool parse_op(const char *op, struct options *o)
{
	static const struct {
		const char *name;
		int what;
	} edits[] = { { "ihl=", EDIT_IHL }, { "iplen=", EDIT_IPLEN }, { "doff=", EDIT_DOFF } };

	if (strncmp(op, "first=", 6) == 0)
		return parse_num(op + 6, &o->first) && o->first > 0;
	if (strncmp(op, "snaplen=", 8) == 0)
		return parse_num(op + 8, &o->snaplen) && o->snaplen > 0;
	if (strncmp(op, "pcapng-bad-block=", 17) == 0)
		return parse_num(op + 17, &o->bad_block) && o->bad_block > 0;
	if (strcmp(op, "cut") == 0)
		return (o->cut = true);
	for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		size_t n = strlen(edits[i].name);
		char buf[64], *colon;
		struct edit *e;

		if (strncmp(op, edits[i].name, n) != 0)
			continue;
		if (o->n_edits == MAX_OPS || strlen(op + n) >= sizeof(buf))
			return false;
		strcpy(buf, op + n);
		colon = strchr(buf, ':');
		if (!colon)
			return false;
		*colon = '\0';
		e = &o->edit[o->n_edits++];
		e->what = edits[i].what;
		return parse_num(buf, &e->record) && e->record > 0 && parse_num(colon + 1, &e->value);
	}
	return false;
}

/* Applies the edits for record k to data (the record's captured bytes). */
static bool apply_edits(const struct options *o, int dlt, unsigned long k, uint8_t *data, uint32_t caplen,
			uint32_t len)
{
	for (unsigned i = 0; i < o->n_edits; i++) {
		const struct edit *e = &o->edit[i];
		struct frame f;
		size_t ip, tcp;
		bool v4;

		if (e->record != k)
			continue;
		frame_decode(link_type_find(dlt), 0, data, caplen, len, &f);
		if (f.n_ip < 1 || f.ip[0].caplen < 40) {
			fprintf(stderr, "pcap_mangle: record %lu has no IP header to edit\n", k);
			return false;
		}
		ip = (size_t)(f.ip[0].data - data);
		v4 = f.ip[0].ethertype == 0x0800;
		tcp = ip + (v4 ? (size_t)(data[ip] & 0x0f) * 4 : 40);
		if (e->what == EDIT_DOFF && (tcp + 13 > caplen || data[ip + (v4 ? 9 : 6)] != 6)) {
			fprintf(stderr, "pcap_mangle: record %lu has no TCP header to edit\n", k);
			return false;
		}
		switch (e->what) {
		case EDIT_IHL:
			if (!v4) {
				fprintf(stderr, "pcap_mangle: record %lu is not IPv4\n", k);
				return false;
			}
			data[ip] = (uint8_t)(0x40 | (e->value & 0x0f));
			break;
		case EDIT_IPLEN:
			data[ip + (v4 ? 2 : 4)] = (uint8_t)(e->value >> 8);
			data[ip + (v4 ? 3 : 5)] = (uint8_t)e->value;
			break;
		case EDIT_DOFF:
			data[tcp + 12] = (uint8_t)((data[tcp + 12] & 0x0f) | (e->value & 0x0f) << 4);
			break;
		}
	}
	return true;
}

/* pcapng, written by hand: libpcap reads it but does not write it. */
static void le32(FILE *f, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };

	fwrite(b, 1, 4, f);
}

static void pcapng_header(FILE *f, int linktype, uint32_t snaplen)
{
	le32(f, 0x0a0d0d0a); /* section header block */
	le32(f, 28);
	le32(f, 0x1a2b3c4d);
	le32(f, 0x00000001); /* version 1.0 */
	le32(f, 0xffffffff); /* section length unknown */
	le32(f, 0xffffffff);
	le32(f, 28);
	le32(f, 0x00000001); /* interface description block */
	le32(f, 20);
	le32(f, (uint32_t)linktype & 0xffff);
	le32(f, snaplen);
	le32(f, 20);
}

static void pcapng_packet(FILE *f, const struct pcap_pkthdr *h, const uint8_t *data, bool bad)
{
	uint32_t pad = (4 - h->caplen % 4) % 4, len = 32 + h->caplen + pad;
	uint64_t us = (uint64_t)h->ts.tv_sec * 1000000u + (uint64_t)h->ts.tv_usec;
	static const uint8_t zeros[4];

	le32(f, 0x00000006); /* enhanced packet block */
	le32(f, len);
	le32(f, 0);          /* interface 0 */
	le32(f, (uint32_t)(us >> 32));
	le32(f, (uint32_t)us);
	le32(f, h->caplen);
	le32(f, h->len);
	fwrite(data, 1, h->caplen, f);
	fwrite(zeros, 1, pad, f);
	le32(f, bad ? len + 4 : len);
}

int main(int argc, char **argv)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct options o = { 0 };
	struct pcap_pkthdr *h;
	const u_char *bytes;
	pcap_dumper_t *dump = NULL;
	pcap_t *in, *dead = NULL;
	FILE *ng = NULL;
	long last_at = -1;
	uint32_t last_caplen = 0;
	unsigned long k = 0;
	int rc, dlt, status = 0;

	if (argc < 4)
		return usage();
	for (int i = 3; i < argc; i++)
		if (!parse_op(argv[i], &o)) {
			fprintf(stderr, "pcap_mangle: bad operation '%s'\n", argv[i]);
			return usage();
		}
	in = pcap_open_offline_with_tstamp_precision(argv[1], PCAP_TSTAMP_PRECISION_MICRO, errbuf);
	if (!in) {
		fprintf(stderr, "pcap_mangle: %s\n", errbuf);
		return 1;
	}
	dlt = pcap_datalink(in);
	if (o.bad_block) {
		ng = fopen(argv[2], "wb");
		if (ng)
			pcapng_header(ng, pcap_datalink_val_to_name(dlt) ? dlt : 1, (uint32_t)pcap_snapshot(in));
	} else {
		dead = pcap_open_dead_with_tstamp_precision(dlt, pcap_snapshot(in), PCAP_TSTAMP_PRECISION_MICRO);
		dump = dead ? pcap_dump_open(dead, argv[2]) : NULL;
	}
	if (!ng && !dump) {
		fprintf(stderr, "pcap_mangle: cannot write %s: %s\n", argv[2], dead ? pcap_geterr(dead) : strerror(errno));
		return 1;
	}
	while ((rc = pcap_next_ex(in, &h, &bytes)) == 1 && (!o.first || k < o.first)) {
		struct pcap_pkthdr out = *h;
		uint8_t *copy = malloc(h->caplen ? h->caplen : 1);

		if (!copy) {
			status = 1;
			break;
		}
		memcpy(copy, bytes, h->caplen);
		k++;
		if (!apply_edits(&o, dlt, k, copy, h->caplen, h->len)) {
			free(copy);
			status = 1;
			break;
		}
		if (o.snaplen && out.caplen > o.snaplen)
			out.caplen = (uint32_t)o.snaplen;
		if (ng) {
			pcapng_packet(ng, &out, copy, k == o.bad_block);
		} else {
			last_at = pcap_dump_ftell(dump);
			last_caplen = out.caplen;
			pcap_dump((u_char *)dump, &out, copy);
		}
		free(copy);
	}
	if (rc == PCAP_ERROR) {
		fprintf(stderr, "pcap_mangle: %s: %s\n", argv[1], pcap_geterr(in));
		status = 1;
	}
	for (unsigned i = 0; i < o.n_edits; i++)
		if (o.edit[i].record > k) {
			fprintf(stderr, "pcap_mangle: there is no record %lu to edit\n", o.edit[i].record);
			status = 1;
		}
	if (o.bad_block > k) {
		fprintf(stderr, "pcap_mangle: there is no packet block %lu\n", o.bad_block);
		status = 1;
	}
	pcap_close(in);
	if (ng) {
		if (fclose(ng) != 0)
			status = 1;
	} else {
		pcap_dump_close(dump);
		pcap_close(dead);
		/* the record header and half of the last record's bytes stay */
		if (o.cut && last_at >= 0 && truncate(argv[2], last_at + 16 + last_caplen / 2) != 0) {
			fprintf(stderr, "pcap_mangle: cannot cut %s: %s\n", argv[2], strerror(errno));
			status = 1;
		}
	}
	if (status)
		unlink(argv[2]);
	return status;
}
