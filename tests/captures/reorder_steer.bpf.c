// SPDX-License-Identifier: GPL-2.0
/*
 * reorder_steer.bpf.c - tc classifier (cls_bpf, classid mode) used by
 * tests/captures/record.sh to reorder a TCP flow without netem: every
 * STEER_EVERY-th data segment to TCP port STEER_PORT (IPv4 or IPv6) goes to
 * HTB class STEER_CLASSID, a slower class with a standing queue; every
 * other packet falls through to the next filter / the default class.
 * With STEER_SOURCE_PORT the flow is the one FROM port STEER_PORT (a
 * download from a server on that port), otherwise the one to it.
 * A counter, not sequence-number bits, so a retransmission is not steered
 * again just because the segment it repeats was.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>
#include <linux/tcp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#ifndef STEER_EVERY
#define STEER_EVERY 10
#endif
#ifndef STEER_PORT
#define STEER_PORT 5201
#endif
#ifndef STEER_CLASSID
#define STEER_CLASSID 0x10020 /* 1:20 */
#endif

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} data_segments SEC(".maps");

/* The TCP header's offset and the IP payload length (TCP header and data);
 * 0 when not TCP. At tc the packet starts with the Ethernet header. */
static __always_inline int tcp_payload(struct __sk_buff *skb, __u32 *l4, __u32 *payload)
{
	if (skb->protocol == bpf_htons(ETH_P_IP)) {
		struct iphdr ip;

		if (bpf_skb_load_bytes(skb, ETH_HLEN, &ip, sizeof(ip)) || ip.protocol != IPPROTO_TCP)
			return 0;
		*l4 = ETH_HLEN + ip.ihl * 4;
		*payload = bpf_ntohs(ip.tot_len) - ip.ihl * 4;
	} else if (skb->protocol == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr ip6;

		if (bpf_skb_load_bytes(skb, ETH_HLEN, &ip6, sizeof(ip6)) || ip6.nexthdr != IPPROTO_TCP)
			return 0;
		*l4 = ETH_HLEN + sizeof(ip6);
		*payload = bpf_ntohs(ip6.payload_len);
	} else {
		return 0;
	}
	return 1;
}

SEC("classifier")
int steer(struct __sk_buff *skb)
{
	__u32 l4 = 0, payload = 0, key = 0;
	struct tcphdr th;
	__u64 *count;

	if (!tcp_payload(skb, &l4, &payload) || bpf_skb_load_bytes(skb, l4, &th, sizeof(th)))
		return 0;
#ifdef STEER_SOURCE_PORT
	if (th.source != bpf_htons(STEER_PORT) || payload <= th.doff * 4u)
#else
	if (th.dest != bpf_htons(STEER_PORT) || payload <= th.doff * 4u)
#endif
		return 0; /* not the flow, or no data */
	count = bpf_map_lookup_elem(&data_segments, &key);
	if (!count)
		return 0;
	if (__sync_fetch_and_add(count, 1) % STEER_EVERY != STEER_EVERY - 1)
		return 0;
	return STEER_CLASSID;
}

char LICENSE[] SEC("license") = "GPL";
