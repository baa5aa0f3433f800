// SPDX-License-Identifier: GPL-2.0
/*
 * vlan_tag - writes a VLAN-tagged copy of an Ethernet capture, for the
 * project's own corpus (tests/captures/MANIFEST.md): the test bed's kernel
 * has no 802.1Q, so tagged captures are made from recorded ones.
 *
 *   vlan_tag IN.pcap OUT.pcap VID              one 802.1Q tag (TPID 0x8100)
 *   vlan_tag IN.pcap OUT.pcap VID OUTER_VID    QinQ: an 802.1ad service tag
 *                                              (TPID 0x88a8) carrying
 *                                              OUTER_VID, then the 802.1Q tag
 *
 * Every frame gets the tag(s) after its two MAC addresses; captured and
 * original lengths grow by 4 bytes per tag, timestamps are kept. The input
 * must be DLT_EN10MB; on any error one line on stderr, exit 1, and no
 * output file is left behind.
 */
#include <errno.h>
#include <limits.h>
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAC_PAIR_LEN 12
#define TAG_LEN 4
#define TPID_8021Q 0x8100
#define TPID_8021AD 0x88a8
#define MAX_FRAME 65535

static int parse_vid(const char *s, uint16_t *vid)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > 4094)
		return -1;
	*vid = (uint16_t)v;
	return 0;
}

static void put_tag(uint8_t *p, uint16_t tpid, uint16_t vid)
{
	p[0] = (uint8_t)(tpid >> 8);
	p[1] = (uint8_t)tpid;
	p[2] = (uint8_t)(vid >> 8); /* priority 0, DEI 0 */
	p[3] = (uint8_t)vid;
}

int main(int argc, char **argv)
{
	static uint8_t frame[MAX_FRAME + 2 * TAG_LEN];
	char err[PCAP_ERRBUF_SIZE];
	uint16_t vid, outer = 0;
	struct pcap_pkthdr *h, out_h;
	const u_char *data;
	pcap_dumper_t *dump;
	pcap_t *in, *dead;
	size_t tags_len;
	int rc, snaplen;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: vlan_tag IN.pcap OUT.pcap VID [OUTER_VID]\n");
		return 2;
	}
	if (parse_vid(argv[3], &vid) || (argc == 5 && parse_vid(argv[4], &outer))) {
		fprintf(stderr, "vlan_tag: a VLAN id is 1..4094, got '%s'\n", argc == 5 ? argv[4] : argv[3]);
		return 2;
	}
	tags_len = (argc == 5 ? 2 : 1) * TAG_LEN;
	in = pcap_open_offline(argv[1], err);
	if (!in) {
		fprintf(stderr, "vlan_tag: %s\n", err);
		return 1;
	}
	if (pcap_datalink(in) != DLT_EN10MB) {
		fprintf(stderr, "vlan_tag: %s: link type %d is not Ethernet (EN10MB)\n", argv[1], pcap_datalink(in));
		pcap_close(in);
		return 1;
	}
	snaplen = pcap_snapshot(in);
	if (snaplen <= 0 || snaplen > MAX_FRAME)
		snaplen = MAX_FRAME;
	dead = pcap_open_dead(DLT_EN10MB, snaplen + (int)tags_len);
	dump = dead ? pcap_dump_open(dead, argv[2]) : NULL;
	if (!dump) {
		fprintf(stderr, "vlan_tag: %s: %s\n", argv[2], dead ? pcap_geterr(dead) : "pcap_open_dead failed");
		if (dead)
			pcap_close(dead);
		pcap_close(in);
		return 1;
	}
	while ((rc = pcap_next_ex(in, &h, &data)) == 1) {
		if (h->caplen < MAC_PAIR_LEN || h->caplen > MAX_FRAME || h->len > UINT_MAX - tags_len) {
			fprintf(stderr, "vlan_tag: %s: a frame of %u captured bytes cannot be tagged\n", argv[1], h->caplen);
			rc = -3;
			break;
		}
		memcpy(frame, data, MAC_PAIR_LEN);
		if (outer) {
			put_tag(frame + MAC_PAIR_LEN, TPID_8021AD, outer);
			put_tag(frame + MAC_PAIR_LEN + TAG_LEN, TPID_8021Q, vid);
		} else {
			put_tag(frame + MAC_PAIR_LEN, TPID_8021Q, vid);
		}
		memcpy(frame + MAC_PAIR_LEN + tags_len, data + MAC_PAIR_LEN, h->caplen - MAC_PAIR_LEN);
		out_h = *h;
		out_h.caplen = h->caplen + (unsigned)tags_len;
		out_h.len = h->len + (unsigned)tags_len;
		pcap_dump((u_char *)dump, &out_h, frame);
	}
	if (rc == -1)
		fprintf(stderr, "vlan_tag: %s: %s\n", argv[1], pcap_geterr(in));
	if (pcap_dump_flush(dump)) {
		fprintf(stderr, "vlan_tag: %s: write failed\n", argv[2]);
		rc = -1;
	}
	pcap_dump_close(dump);
	pcap_close(dead);
	pcap_close(in);
	if (rc != -2) { /* -2: the end of the file */
		unlink(argv[2]);
		return 1;
	}
	return 0;
}
