// SPDX-License-Identifier: GPL-2.0
/*
 * seed_extract.c - seed corpus for fuzz_decode from real capture files.
 *
 *   seed_extract OUTDIR [-n MAX] CAPTURE...
 *
 * Writes the first MAX (default 200) packets of each capture whose link
 * type fuzz_decode knows as OUTDIR/<capture basename>-<index>, in
 * fuzz_decode's input format: a selector byte (the link type's index in
 * the table below; bit 7 with two big-endian bytes of wire length beyond
 * the captured bytes when the snaplen cut the packet), then the captured
 * bytes. Captures libpcap cannot open, or of other link types, are skipped
 * with a note on stderr. Exit status 0 when at least one seed was written.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

/* Same order as fuzz_dlts[] in fuzz_decode.c. */
static const int seed_dlts[] = { 1, 113, 276, 12, 14, 101, 228, 229, 105, 127 };

static int dlt_index(int dlt)
{
	for (size_t i = 0; i < sizeof(seed_dlts) / sizeof(seed_dlts[0]); i++)
		if (seed_dlts[i] == dlt)
			return (int)i;
	return -1;
}

static int write_seed(const char *path, int idx, const struct pcap_pkthdr *h, const u_char *bytes)
{
	FILE *out = fopen(path, "wb");
	unsigned extra = h->len > h->caplen ? h->len - h->caplen : 0;
	int ok;

	if (!out) {
		fprintf(stderr, "seed_extract: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (extra) {
		if (extra > 0xffff)
			extra = 0xffff;
		fputc(0x80 | idx, out);
		fputc((int)(extra >> 8), out);
		fputc((int)(extra & 0xff), out);
	} else {
		fputc(idx, out);
	}
	fwrite(bytes, 1, h->caplen, out);
	ok = !ferror(out);
	if (fclose(out) != 0 || !ok) {
		fprintf(stderr, "seed_extract: %s: write error\n", path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *outdir;
	long max = 200, total = 0;
	int i = 2;

	if (argc < 3) {
		fprintf(stderr, "usage: seed_extract OUTDIR [-n MAX] CAPTURE...\n");
		return 2;
	}
	outdir = argv[1];
	if (strcmp(argv[2], "-n") == 0) {
		if (argc < 5)
			return 2;
		max = strtol(argv[3], NULL, 10);
		i = 4;
	}
	for (; i < argc; i++) {
		char errbuf[PCAP_ERRBUF_SIZE] = "", name[4096], *copy;
		struct pcap_pkthdr *h;
		const u_char *bytes;
		pcap_t *p = pcap_open_offline(argv[i], errbuf);
		long n = 0;
		int idx, rc;

		if (!p) {
			fprintf(stderr, "seed_extract: skipping %s: %s\n", argv[i], errbuf);
			continue;
		}
		idx = dlt_index(pcap_datalink(p));
		if (idx < 0) {
			fprintf(stderr, "seed_extract: skipping %s: link type %d\n", argv[i], pcap_datalink(p));
			pcap_close(p);
			continue;
		}
		copy = strdup(argv[i]);
		if (!copy) {
			pcap_close(p);
			return 1;
		}
		while (n < max && (rc = pcap_next_ex(p, &h, &bytes)) == 1) {
			snprintf(name, sizeof(name), "%s/%s-%04ld", outdir, basename(copy), n);
			if (write_seed(name, idx, h, bytes) < 0) {
				free(copy);
				pcap_close(p);
				return 1;
			}
			n++;
		}
		free(copy);
		pcap_close(p);
		total += n;
	}
	fprintf(stderr, "seed_extract: %ld seeds in %s\n", total, outdir);
	return total > 0 ? 0 : 1;
}
