// SPDX-License-Identifier: GPL-2.0
/*
 * policy.bpf.c - per-flow choice of congestion control for unmodified
 * programs (TranSwitch style). A sock_ops program on the cgroup v2 root
 * looks up the rules of tcpav_rules when a connection is made (active:
 * TCP_CONNECT_CB, before the SYN; passive: PASSIVE_ESTABLISHED_CB) and sets
 * the rule's congestion control with bpf_setsockopt(TCP_CONGESTION); for
 * tcp_av it first fills the socket's target in tcpav_targets, which
 * tcp_av's init reads. A rule with a DSCP also sets the socket's IP_TOS
 * (IPv4) or IPV6_TCLASS (IPv6; both for an IPv4 connection of an IPv6
 * socket): for an active open before the SYN is built, so the SYN is
 * marked too; for a passive open once the handshake is done, after the
 * SYN-ACK (which carries the listener's TOS).
 *
 * Cgroup rules compare the socket's cgroup: for active opens the cgroup of
 * the connecting task, for passive opens the cgroup the accepted socket
 * inherited from its listener.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "tcpav/abi.h"

char LICENSE[] SEC("license") = "GPL";

#define AF_INET 2
#define AF_INET6 10
#define SOL_IP 0
#define IP_TOS 1
#define SOL_TCP 6
#define TCP_CONGESTION 13
#define SOL_IPV6 41
#define IPV6_TCLASS 67

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	/* CLONE: a socket accepted from a listener with a target inherits it */
	__uint(map_flags, BPF_F_NO_PREALLOC | BPF_F_CLONE);
	__type(key, int);
	__type(value, struct tcpav_sk_target);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} tcpav_targets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TCPAV_MAX_RULES);
	__type(key, __u32);
	__type(value, struct tcpav_rule);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} tcpav_rules SEC(".maps");

/*
 * The connection's own view: local ("src") and remote ("dst") ends. An IPv4
 * connection of an IPv6 socket (a dual-stack listener, or a connect to
 * ::ffff:a.b.c.d) has family AF_INET6 and IPv4-mapped addresses; is_v4
 * and src4/dst4 give its IPv4 view, which IPv4 rules match, while IPv6
 * rules still see the mapped form (::ffff:0:0/96 prefixes keep working).
 */
struct conn {
	__u32 src[4];
	__u32 dst[4];
	__u32 src4;
	__u32 dst4;
	__u16 sport;
	__u16 dport;
	__u16 family;
	__u16 is_v4;
	__u16 dst_mapped; /* AF_INET6 with a ::ffff:a.b.c.d peer: IPv4 packets */
	__u64 cgroup_id;
};

static __always_inline int prefix_match4(__u32 addr, __u32 net, __u32 len)
{
	__u32 mask = len >= 32 ? 0xffffffffu : bpf_htonl(~(0xffffffffu >> len));

	return len == 0 || ((addr ^ net) & mask) == 0;
}

static __always_inline int prefix_match(const __u32 *addr, const __u32 *net, __u32 len)
{
	for (int i = 0; i < 4; i++) {
		__u32 bits = len > 32 ? 32 : len;
		__u32 mask;

		if (bits == 0)
			return 1;
		mask = bits == 32 ? 0xffffffffu : bpf_htonl(~(0xffffffffu >> bits));
		if ((addr[i] ^ net[i]) & mask)
			return 0;
		len -= bits;
	}
	return 1;
}

static __always_inline int rule_matches(const struct tcpav_rule *r, const struct conn *c)
{
	if ((r->match & TCPAV_M_SPORT) && r->sport != c->sport)
		return 0;
	if ((r->match & TCPAV_M_DPORT) && r->dport != c->dport)
		return 0;
	if (r->match & (TCPAV_M_SRC | TCPAV_M_DST)) {
		if (r->family == AF_INET) {
			if (!c->is_v4)
				return 0;
			if ((r->match & TCPAV_M_SRC) && !prefix_match4(c->src4, r->src[0], r->src_len))
				return 0;
			if ((r->match & TCPAV_M_DST) && !prefix_match4(c->dst4, r->dst[0], r->dst_len))
				return 0;
		} else {
			if (c->family != AF_INET6)
				return 0;
			if ((r->match & TCPAV_M_SRC) && !prefix_match(c->src, r->src, r->src_len))
				return 0;
			if ((r->match & TCPAV_M_DST) && !prefix_match(c->dst, r->dst, r->dst_len))
				return 0;
		}
	}
	if ((r->match & TCPAV_M_CGROUP) && r->cgroup_id != c->cgroup_id)
		return 0;
	return 1;
}

/* The cgroup the socket is charged to (inherited from the listener when
 * accepted), read through the full socket. */
static __always_inline __u64 sock_cgroup_id(struct bpf_sock_ops *skops)
{
	struct bpf_sock *bsk = skops->sk;
	struct tcp_sock *tp;
	struct cgroup *cg;

	if (!bsk)
		return 0;
	tp = bpf_skc_to_tcp_sock(bsk);
	if (!tp)
		return 0;
	cg = tp->inet_conn.icsk_inet.sk.sk_cgrp_data.cgroup;
	if (!cg)
		return 0;
	return cg->kn->id;
}

static __always_inline void conn_of(struct bpf_sock_ops *skops, struct conn *c)
{
	__builtin_memset(c, 0, sizeof(*c));
	c->family = skops->family;
	c->sport = skops->local_port;
	c->dport = bpf_ntohl(skops->remote_port) & 0xffff;
	if (c->family == AF_INET6) {
		c->src[0] = skops->local_ip6[0];
		c->src[1] = skops->local_ip6[1];
		c->src[2] = skops->local_ip6[2];
		c->src[3] = skops->local_ip6[3];
		c->dst[0] = skops->remote_ip6[0];
		c->dst[1] = skops->remote_ip6[1];
		c->dst[2] = skops->remote_ip6[2];
		c->dst[3] = skops->remote_ip6[3];
		/* ::ffff:a.b.c.d, both ends mapped: an IPv4 connection */
		c->dst_mapped = c->dst[0] == 0 && c->dst[1] == 0 && c->dst[2] == bpf_htonl(0xffff);
		c->is_v4 = c->dst_mapped && c->src[0] == 0 && c->src[1] == 0 && c->src[2] == bpf_htonl(0xffff);
		c->src4 = c->src[3];
		c->dst4 = c->dst[3];
	} else {
		c->src[0] = skops->local_ip4;
		c->dst[0] = skops->remote_ip4;
		c->src4 = c->src[0];
		c->dst4 = c->dst[0];
		c->is_v4 = 1;
	}
	c->cgroup_id = sock_cgroup_id(skops);
}

struct rule_search {
	const struct conn *c;
	__u64 best_rank; /* 0 = none yet */
	__u32 best_slot;
};

/* Cgroup rules (those of exec among them) are the most specific: they win
 * over the others; within each kind the lowest id wins. */
static __always_inline __u64 rule_rank(const struct tcpav_rule *r)
{
	return (r->match & TCPAV_M_CGROUP) ? r->id : (1ull << 32) + r->id;
}

static long rule_search_one(__u32 slot, struct rule_search *s)
{
	struct tcpav_rule *r = bpf_map_lookup_elem(&tcpav_rules, &slot);

	if (!r || r->id == 0)
		return 0;
	if ((s->best_rank == 0 || rule_rank(r) < s->best_rank) && rule_matches(r, s->c)) {
		s->best_rank = rule_rank(r);
		s->best_slot = slot;
	}
	return 0;
}

/*
 * The DSCP in the upper six bits of the TOS / traffic class byte; the ECN
 * bits stay 0 here (the kernel keeps its own ECT bits for TCP in both
 * setsockopts). An IPv6 socket's IPv4 packets (an IPv4-mapped connection)
 * take their TOS from IP_TOS (inet->tos), not from IPV6_TCLASS, so such a
 * socket gets both. Failures are ignored, as for the congestion control:
 * the connection goes on unmarked.
 */
static __always_inline void set_dscp(struct bpf_sock_ops *skops, const struct conn *c, __u8 dscp)
{
	int tos = (dscp & TCPAV_DSCP_MAX) << 2;

	if (c->family == AF_INET6) {
		bpf_setsockopt(skops, SOL_IPV6, IPV6_TCLASS, &tos, sizeof(tos));
		if (c->dst_mapped)
			bpf_setsockopt(skops, SOL_IP, IP_TOS, &tos, sizeof(tos));
	} else {
		bpf_setsockopt(skops, SOL_IP, IP_TOS, &tos, sizeof(tos));
	}
}

static __always_inline void apply_rule(struct bpf_sock_ops *skops, struct tcpav_rule *r, const struct conn *c)
{
	struct bpf_sock *sk = skops->sk;
	char cc[TCPAV_CC_NAME_MAX];

	__builtin_memcpy(cc, r->cc, sizeof(cc));
	cc[TCPAV_CC_NAME_MAX - 1] = 0;
	if (r->rate_bps && sk) {
		struct tcpav_sk_target *t;

		t = bpf_sk_storage_get(&tcpav_targets, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
		if (t) {
			t->target_bps = r->rate_bps;
			t->rule_id = r->id;
		}
	}
	if (r->set & TCPAV_SET_DSCP)
		set_dscp(skops, c, r->dscp);
	bpf_setsockopt(skops, SOL_TCP, TCP_CONGESTION, cc, sizeof(cc));
}

SEC("sockops")
int tcpav_policy(struct bpf_sock_ops *skops)
{
	struct rule_search s = {};
	struct tcpav_rule *r;
	struct conn c;

	if (skops->op != BPF_SOCK_OPS_TCP_CONNECT_CB &&
	    skops->op != BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB)
		return 1;
	conn_of(skops, &c);
	s.c = &c;
	bpf_loop(TCPAV_MAX_RULES, rule_search_one, &s, 0);
	if (s.best_rank == 0)
		return 1;
	r = bpf_map_lookup_elem(&tcpav_rules, &s.best_slot);
	if (r)
		apply_rule(skops, r, &c);
	return 1;
}
