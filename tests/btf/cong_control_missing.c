// SPDX-License-Identifier: GPL-2.0
/*
 * cong_control_missing.c - BTF whose struct tcp_congestion_ops has no
 * cong_control member (as before Linux 4.9, or a stripped-down kernel):
 * `tcpavctl --btf FILE load` refuses it as a kernel without a usable
 * cong_control. Compiled with `clang -g -target bpf -c`.
 */
typedef unsigned int u32;

struct sock;

struct tcp_congestion_ops {
	u32 (*ssthresh)(struct sock *sk);
	void (*cong_avoid)(struct sock *sk, u32 ack, u32 acked);
	u32 (*undo_cwnd)(struct sock *sk);
	char name[16];
	void (*init)(struct sock *sk);
	void (*release)(struct sock *sk);
};

/* a definition puts the type into .BTF */
struct tcp_congestion_ops tcp_reno_without_cong_control;
