// SPDX-License-Identifier: GPL-2.0
/*
 * cong_control_pre610.c - a stand-in for the BTF of a kernel older than
 * Linux 6.10: struct tcp_congestion_ops as 6.1 .. 6.9 declare it, whose
 * cong_control takes (sk, rs). Compiled with `clang -g -target bpf -c`; its
 * .BTF section is what `tcpavctl --btf FILE load` reads to refuse.
 */
typedef unsigned char u8;
typedef unsigned int u32;
typedef unsigned long size_t;

struct sock;
struct rate_sample;
struct ack_sample;
struct module;
union tcp_cc_info;
enum tcp_ca_event { CA_EVENT_TX_START };

struct list_head {
	struct list_head *next, *prev;
};

struct tcp_congestion_ops {
	u32 (*ssthresh)(struct sock *sk);
	void (*cong_avoid)(struct sock *sk, u32 ack, u32 acked);
	void (*set_state)(struct sock *sk, u8 new_state);
	void (*cwnd_event)(struct sock *sk, enum tcp_ca_event ev);
	void (*in_ack_event)(struct sock *sk, u32 flags);
	void (*pkts_acked)(struct sock *sk, const struct ack_sample *sample);
	u32 (*min_tso_segs)(struct sock *sk);
	void (*cong_control)(struct sock *sk, const struct rate_sample *rs);
	u32 (*undo_cwnd)(struct sock *sk);
	u32 (*sndbuf_expand)(struct sock *sk);
	size_t (*get_info)(struct sock *sk, u32 ext, int *attr, union tcp_cc_info *info);
	char name[16];
	struct module *owner;
	struct list_head list;
	u32 key;
	u32 flags;
	void (*init)(struct sock *sk);
	void (*release)(struct sock *sk);
};

/* a definition puts the type into .BTF */
struct tcp_congestion_ops tcp_reno_pre610;
