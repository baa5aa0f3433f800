/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * abi.h - the data shared by the BPF programs (tcp_av, policy) and user
 * space (tcpavctl, libtcpav): map value layouts, pin names and limits.
 *
 * Included from BPF code after vmlinux.h and from user space after
 * <linux/types.h>; only fixed-size __u types are used so both sides agree.
 */
#ifndef TCPAV_ABI_H
#define TCPAV_ABI_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define TCPAV_CC_NAME "tcp_av"
#define TCPAV_CC_NAME_MAX 16 /* TCP_CA_NAME_MAX in the kernel */

/* Everything tcpavctl pins lives under this directory (bpffs). */
#define TCPAV_PIN_DIR_DEFAULT "/sys/fs/bpf/tcpav"
/* Pin names; maps use LIBBPF_PIN_BY_NAME so their pin name is the map name. */
#define TCPAV_PIN_TARGETS "tcpav_targets"
#define TCPAV_PIN_FLOWS "tcpav_flows"
#define TCPAV_PIN_RULES "tcpav_rules"
#define TCPAV_PIN_OPS "tcp_av_ops"        /* the struct_ops map */
#define TCPAV_PIN_POLICY_LINK "policy_link" /* cgroup sock_ops link */

#define TCPAV_MAX_RULES 64
#define TCPAV_MAX_FLOWS 4096

/* Value of the socket-storage map tcpav_targets: the per-socket target. */
struct tcpav_sk_target {
	__u64 target_bps; /* bits per second; 0 = behave like Reno */
	__u32 rule_id;    /* rule that set it, 0 = set by the application */
	__u32 pad;
};

/*
 * Key of tcpav_flows: the connection as the sending host sees it, in its
 * network namespace (the same 5-tuple may live in several). tcp_av takes
 * it once, when the flow starts, and keeps it with the socket: by the time
 * the kernel releases the congestion control the socket's own ports may
 * already be zero.
 */
struct tcpav_flow_key {
	__u32 saddr[4]; /* IPv4 in saddr[0], network byte order */
	__u32 daddr[4];
	__u16 sport;    /* host byte order */
	__u16 dport;    /* host byte order */
	__u16 family;   /* AF_INET or AF_INET6 */
	__u16 pad;
	__u32 netns;    /* inode of the network namespace, as /proc/PID/ns/net shows it */
};

enum tcpav_flow_flags {
	TCPAV_F_INFEASIBLE = 1u << 0,  /* safety valve engaged: target cannot be met */
	TCPAV_F_PROBING = 1u << 1,     /* valve is probing for more bandwidth this round */
	TCPAV_F_G_DOMINATES = 1u << 2, /* cwnd = G (guaranteed part) rather than E */
	TCPAV_F_APP_LIMITED = 1u << 3, /* last round was application-limited */
	TCPAV_F_WINDOW_LIMITED = 1u << 4, /* last round was limited by the peer's
					   * receive window or the send buffer */
	/* set by tcp_av.bpf.c, not by the control law (whose state flags are
	 * the bits below 16): all the flow sent so far fits in an initial
	 * window, so it has no rate to hold to the target (iperf3's control
	 * connection) */
	TCPAV_F_IDLE = 1u << 16,
};

/* Value of tcpav_flows, refreshed by tcp_av once per round trip. */
struct tcpav_flow_info {
	struct tcpav_flow_key key;
	__u64 target_bps;
	__u64 delivered_bps; /* smoothed delivery rate over rounds */
	__u64 bw_est_bps;    /* windowed max of round delivery rates */
	__u64 valve_cap_bps; /* cap on the guaranteed rate while infeasible */
	__u64 updated_ns;    /* bpf_ktime_get_ns() of the last refresh */
	__u32 cwnd;
	__u32 g_wnd;         /* guaranteed window G, packets */
	__u32 e_wnd;         /* elastic window E, packets */
	__u32 gain_q8;       /* gain g, 256 = 1.0 */
	__u32 srtt_us;
	__u32 mss;
	__u32 rounds;
	__u32 loss_events;
	__u32 flags;         /* enum tcpav_flow_flags */
};

enum tcpav_rule_match {
	TCPAV_M_SPORT = 1u << 0,
	TCPAV_M_DPORT = 1u << 1,
	TCPAV_M_SRC = 1u << 2,
	TCPAV_M_DST = 1u << 3,
	TCPAV_M_CGROUP = 1u << 4,
};

/* What a rule sets besides the congestion control (tcpav_rule.set). */
enum tcpav_rule_set {
	TCPAV_SET_DSCP = 1u << 0, /* dscp: IP_TOS / IPV6_TCLASS = dscp << 2 */
};

#define TCPAV_DSCP_MAX 63

/*
 * One slot of the tcpav_rules array. A slot with id == 0 is free. Addresses
 * and ports are the socket's own view, as ss shows them: "src"/"sport" are
 * local, "dst"/"dport" remote. Among matching rules a cgroup rule wins
 * over the others (so `tcpavctl exec` wins over port rules); within each
 * kind the lowest id wins, and only that rule is applied.
 *
 * The fields after cc were appended (the ones before keep their offsets);
 * zero there means "set nothing more", so a zeroed rule leaves the
 * socket's TOS alone. DSCP 0 (CS0) is a valid choice: whether a DSCP is set
 * is said by TCPAV_SET_DSCP in set, not by dscp itself.
 */
struct tcpav_rule {
	__u32 id;
	__u32 match;     /* enum tcpav_rule_match */
	__u16 sport;     /* host byte order */
	__u16 dport;
	__u16 family;    /* family of src/dst when matched */
	__u8 src_len;    /* prefix lengths */
	__u8 dst_len;
	__u32 src[4];    /* network byte order */
	__u32 dst[4];
	__u64 cgroup_id; /* cgroup v2 id (inode) of the matched cgroup */
	__u64 rate_bps;  /* tcp_av target; 0 for other CCs */
	char cc[TCPAV_CC_NAME_MAX];
	__u32 set;       /* enum tcpav_rule_set */
	__u8 dscp;       /* 0-63, applied when set has TCPAV_SET_DSCP */
	__u8 pad[3];
};

/* The layout both sides (and pinned maps, bpftool dumps) rely on. */
#ifndef __cplusplus
_Static_assert(sizeof(struct tcpav_rule) == 88, "struct tcpav_rule is 88 bytes");
_Static_assert(__builtin_offsetof(struct tcpav_rule, cc) == 64, "tcpav_rule.cc at byte 64");
_Static_assert(__builtin_offsetof(struct tcpav_rule, set) == 80, "tcpav_rule.set at byte 80");
#endif

#endif /* TCPAV_ABI_H */
