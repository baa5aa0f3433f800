// SPDX-License-Identifier: GPL-2.0
/*
 * tc_impair.bpf.c - the cls_bpf program of tests/tools/tc_impair.c: a
 * silent blackhole (every packet dropped, nothing sent back), ECN CE
 * marks, or counts only, at a clsact hook in direct-action mode. The mode and its
 * parameters are read-only data set before load; `active` (in .bss, written
 * by user space through the skeleton's mmap) opens and closes the
 * impairment on every hook at once, so both directions change together.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "tc_impair.h"

char LICENSE[] SEC("license") = "GPL";

#define TC_ACT_OK 0
#define TC_ACT_SHOT 2
#define ETH_HLEN 14
#define ETH_P_IP 0x0800
#define ETH_P_IPV6 0x86DD

const volatile __u32 impair_mode = IMPAIR_BLACKHOLE;
/* mark with probability prob_scaled / 2^32 (IMPAIR_ECN_PROB) */
const volatile __u64 prob_scaled;
/* the virtual queue (IMPAIR_ECN_VQ): drains at vq_rate_Bps, marks above
 * vq_limit_bytes, holds at most 2 vq_limit_bytes */
const volatile __u64 vq_rate_Bps;
const volatile __u64 vq_limit_bytes;

__u32 active;

struct vq_state {
	struct bpf_spin_lock lock;
	__u64 last_ns;
	__u64 backlog;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vq_state);
} vq SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, IMPAIR_NR_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

static __always_inline void count(__u32 which, __u64 n)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &which);

	if (c)
		*c += n;
}

/* The IP ECN field (0 not-ECT, 1 ECT(1), 2 ECT(0), 3 CE), or -1 if the frame
 * is neither IPv4 nor IPv6 (ARP, ...). The hooks are on Ethernet (veth). */
static __always_inline int ecn_field(struct __sk_buff *skb)
{
	__u8 b[2];

	if (bpf_skb_load_bytes(skb, ETH_HLEN, b, sizeof(b)))
		return -1;
	if (skb->protocol == bpf_htons(ETH_P_IP))
		return b[1] & 3;
	if (skb->protocol == bpf_htons(ETH_P_IPV6))
		return (b[1] >> 4) & 3;
	return -1;
}

/* Whether the virtual queue is above its limit once this packet is in. */
static __always_inline int vq_over(__u32 len)
{
	__u32 zero = 0;
	__u64 now = bpf_ktime_get_ns(), drained;
	struct vq_state *s = bpf_map_lookup_elem(&vq, &zero);
	int over;

	if (!s)
		return 0;
	bpf_spin_lock(&s->lock);
	/* bytes the link at vq_rate_Bps sent since the last packet; a gap of
	 * over 4 s empties any queue of interest (and keeps the product small) */
	if (s->last_ns && now > s->last_ns) {
		__u64 dt = now - s->last_ns;

		drained = dt > 4000000000ull ? s->backlog : dt * vq_rate_Bps / 1000000000ull;
		s->backlog = drained >= s->backlog ? 0 : s->backlog - drained;
	}
	s->last_ns = now;
	s->backlog += len;
	if (s->backlog > 2 * vq_limit_bytes)
		s->backlog = 2 * vq_limit_bytes;
	over = s->backlog > vq_limit_bytes;
	bpf_spin_unlock(&s->lock);
	return over;
}

SEC("tc")
int impair(struct __sk_buff *skb)
{
	__u64 segs = skb->gso_segs ? skb->gso_segs : 1;
	int ecn, mark;

	if (!active)
		return TC_ACT_OK;
	count(IMPAIR_PACKETS, segs);
	count(IMPAIR_SKBS, 1);
	if (impair_mode == IMPAIR_BLACKHOLE) {
		count(IMPAIR_DROPPED, segs);
		return TC_ACT_SHOT;
	}

	ecn = ecn_field(skb);
	if (ecn == 3)
		count(IMPAIR_CE_SEEN, segs);
	if (ecn != 1 && ecn != 2)
		return TC_ACT_OK;
	count(IMPAIR_ECT, segs);
	if (impair_mode == IMPAIR_COUNT)
		return TC_ACT_OK;
	if (impair_mode == IMPAIR_ECN_PROB)
		mark = (__u64)bpf_get_prandom_u32() < prob_scaled;
	else
		mark = vq_over(skb->len);
	/* a GSO super-packet is marked whole: each of its segments carries CE */
	if (mark && bpf_skb_ecn_set_ce(skb))
		count(IMPAIR_MARKED, segs);
	return TC_ACT_OK;
}
