// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_av.bpf.c - the tcp_av congestion control as a BPF struct_ops
 * tcp_congestion_ops, for unmodified kernels >= 6.10 with BTF.
 *
 * The control law itself is include/tcpav/core.h (see its header for the
 * idea and where it departs from TCP-AV); this file only binds it to the
 * kernel: it reads the ACK's facts from tcp_sock and the rate sample, writes
 * snd_cwnd, snd_ssthresh and the pacing rate, takes the per-socket target
 * from the socket-storage map tcpav_targets, and exports per-flow state
 * through tcpav_flows because the kernel refuses get_info for BPF CCs.
 *
 * With cong_control set the kernel neither grows nor reduces cwnd itself
 * (no PRR, no tcp_update_pacing_rate), so every ACK ends with our cwnd and
 * pacing rate; after a timeout the kernel sets cwnd to in-flight + 1, from
 * which the law slow-starts back to max(G, E) (tcpav_rebuild_cwnd).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "tcpav/abi.h"
#include "tcpav/core.h"

char LICENSE[] SEC("license") = "GPL";

#define AF_INET 2
#define AF_INET6 10

_Static_assert(sizeof(struct tcpav_state) <= sizeof(((struct inet_connection_sock *)0)->icsk_ca_priv),
	       "tcpav_state must fit in icsk_ca_priv");

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	/* CLONE: a socket accepted from a listener with a target inherits it */
	__uint(map_flags, BPF_F_NO_PREALLOC | BPF_F_CLONE);
	__type(key, int);
	__type(value, struct tcpav_sk_target);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} tcpav_targets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TCPAV_MAX_FLOWS);
	__type(key, struct tcpav_flow_key);
	__type(value, struct tcpav_flow_info);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} tcpav_flows SEC(".maps");

/*
 * The key a flow is exported under, taken once at init and kept with the
 * socket. Rebuilding it later from the socket would miss: on close,
 * tcp_set_state(TCP_CLOSE) -> inet_put_port() zeroes the local port before
 * release runs, and tcp_disconnect() zeroes the peer port. (The socket
 * cookie would be a key too, but struct_ops CC programs cannot call
 * bpf_get_socket_cookie, and skc_cookie stays 0 until someone asks.)
 * No BPF_F_CLONE: an accepted socket takes its own key.
 */
struct tcpav_flow_slot {
	struct tcpav_flow_key key; /* family 0: nothing exported */
};

/* A flow is idle while all it sent fits in an initial window (RFC 6928's
 * 10 segments): it never needed a congestion window, so it has no rate to
 * hold to the target. iperf3's control connection stays so. (The rounds'
 * application-limited mark cannot tell: an ACK that delivers nothing
 * carries an unmarked rate sample.) */
#define TCPAV_IDLE_SEGS 10u

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct tcpav_flow_slot);
} tcpav_flow_slots SEC(".maps");

static __always_inline struct tcpav_state *tcpav_state_of(struct sock *sk)
{
	return (struct tcpav_state *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

static __always_inline __u64 target_Bps_of(struct sock *sk)
{
	struct tcpav_sk_target *t = bpf_sk_storage_get(&tcpav_targets, sk, 0, 0);

	return t ? t->target_bps / 8 : 0;
}

static __always_inline void flow_key_of(struct sock *sk, struct tcpav_flow_key *key)
{
	__builtin_memset(key, 0, sizeof(*key));
	key->family = sk->__sk_common.skc_family;
	key->sport = sk->__sk_common.skc_num;
	key->dport = __builtin_bswap16(sk->__sk_common.skc_dport);
	if (key->family == AF_INET6) {
		for (int i = 0; i < 4; i++) {
			key->saddr[i] = sk->__sk_common.skc_v6_rcv_saddr.in6_u.u6_addr32[i];
			key->daddr[i] = sk->__sk_common.skc_v6_daddr.in6_u.u6_addr32[i];
		}
	} else {
		key->saddr[0] = sk->__sk_common.skc_rcv_saddr;
		key->daddr[0] = sk->__sk_common.skc_daddr;
	}
	key->netns = sk->__sk_common.skc_net.net->ns.inum;
}

/* Publish the flow's state for tcpavctl flows under the key taken at init;
 * called once per round. */
static __always_inline void flow_export(struct sock *sk, const struct tcpav_state *st)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct tcpav_flow_slot *slot = bpf_sk_storage_get(&tcpav_flow_slots, sk, 0, 0);
	struct tcpav_flow_info info;

	if (!slot || !slot->key.family)
		return; /* released, or init could not store the key */
	__builtin_memset(&info, 0, sizeof(info));
	info.key = slot->key;
	info.target_bps = st->target_Bps * 8;
	info.delivered_bps = st->rate_Bps * 8;
	info.bw_est_bps = tcpav_bw_est(st) * 8;
	info.valve_cap_bps = tcpav_valve_cap_Bps(st, tp->srtt_us >> 3,
						 tcpav_pkt_bytes(tp->bytes_acked, tp->delivered, tp->sacked_out,
								 tp->mss_cache)) * 8;
	info.updated_ns = bpf_ktime_get_ns();
	info.cwnd = tp->snd_cwnd;
	info.g_wnd = st->g_wnd;
	info.e_wnd = st->e_wnd;
	info.gain_q8 = st->gain;
	info.srtt_us = tp->srtt_us >> 3;
	info.mss = tp->mss_cache;
	info.rounds = st->rounds;
	info.loss_events = st->loss_events;
	info.flags = st->flags & (TCPAV_F_INFEASIBLE | TCPAV_F_PROBING | TCPAV_F_G_DOMINATES |
				  TCPAV_F_APP_LIMITED | TCPAV_F_WINDOW_LIMITED);
	if (tp->bytes_acked <= (__u64)TCPAV_IDLE_SEGS * tp->mss_cache)
		info.flags |= TCPAV_F_IDLE;
	bpf_map_update_elem(&tcpav_flows, &info.key, &info, BPF_ANY);
}

static __always_inline void apply_pacing_status(struct sock *sk, __u64 target_Bps)
{
	/* An fq qdisc paces by itself (SK_PACING_FQ): leave that alone. */
	if (sk->sk_pacing_status == SK_PACING_FQ)
		return;
	sk->sk_pacing_status = target_Bps ? SK_PACING_NEEDED : SK_PACING_NONE;
}

SEC("struct_ops")
void BPF_PROG(tcpav_init_sk, struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct tcpav_state *st = tcpav_state_of(sk);
	struct tcpav_flow_slot *slot;
	__u64 target = target_Bps_of(sk);

	tcpav_init(st, tp->snd_cwnd, target, tp->tcp_mstamp, tp->delivered);
	apply_pacing_status(sk, target);
	slot = bpf_sk_storage_get(&tcpav_flow_slots, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!slot)
		return; /* no memory for the key: the flow is not listed */
	if (slot->key.family) /* init again without release: drop the old entry */
		bpf_map_delete_elem(&tcpav_flows, &slot->key);
	flow_key_of(sk, &slot->key);
	flow_export(sk, st);
}

/* The flow ends (close, or tcp_disconnect) or the socket changes its CC. */
SEC("struct_ops")
void BPF_PROG(tcpav_release, struct sock *sk)
{
	struct tcpav_flow_slot *slot = bpf_sk_storage_get(&tcpav_flow_slots, sk, 0, 0);

	if (!slot || !slot->key.family)
		return;
	bpf_map_delete_elem(&tcpav_flows, &slot->key);
	slot->key.family = 0;
}

SEC("struct_ops")
void BPF_PROG(tcpav_cong_control, struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct tcpav_state *st = tcpav_state_of(sk);
	__u8 ca_state = ((struct inet_connection_sock *)sk)->icsk_ca_state;
	struct tcpav_ack a;
	struct tcpav_out out;

	a.now_us = tp->tcp_mstamp;
	a.max_pacing_Bps = sk->sk_max_pacing_rate;
	if (a.max_pacing_Bps == ~0ul)
		a.max_pacing_Bps = 0;
	a.delivered = tp->delivered;
	a.prior_delivered = rs->prior_delivered;
	a.acked = rs->acked_sacked;
	a.losses = rs->losses > 0 ? rs->losses : 0;
	a.inflight = rs->prior_in_flight;
	a.srtt_us = tp->srtt_us >> 3;
	a.min_rtt_us = tp->rtt_min.s[0].v;
	a.rtt_us = rs->rtt_us > 0 ? rs->rtt_us : 0;
	a.mss = tp->mss_cache;
	a.pkt_bytes = tcpav_pkt_bytes(tp->bytes_acked, tp->delivered, tp->sacked_out, tp->mss_cache);
	a.app_limited = rs->is_app_limited;
	/* the peer's receive window or our send buffer holds the flow back
	 * (the kernel's chrono, as ss shows rwnd_limited/sndbuf_limited): a
	 * larger window would not help, so the gain must not ratchet up */
	a.window_limited = tp->chrono_type == TCP_CHRONO_RWND_LIMITED ||
			   tp->chrono_type == TCP_CHRONO_SNDBUF_LIMITED;
	/* The kernel starts its SNDBUF_LIMITED chrono only where it thinks
	 * the flow cwnd-limited, which it never does for our window (ssthresh
	 * stays infinite without a loss): a send buffer at least 3/4 full of
	 * unacknowledged data whose sample says app-limited is the buffer's
	 * limit, not the application's. */
	if (a.app_limited && (__u64)sk->sk_wmem_queued * 4 >= (__u64)sk->sk_sndbuf * 3) {
		a.app_limited = 0;
		a.window_limited = 1;
	}
	/* as Reno: no growth while reducing (CWR, Recovery); after a timeout
	 * (Loss) the window slow-starts again */
	a.in_recovery = ca_state == TCP_CA_CWR || ca_state == TCP_CA_Recovery;
	a.undelivered = tp->packets_out - tp->sacked_out;
	/* at the clamp the socket's cwnd cannot grow to max(G, E): unknown,
	 * so no rebuild is left waiting for it (tcpav_rebuild_cwnd) */
	a.cwnd = tp->snd_cwnd < tp->snd_cwnd_clamp ? tp->snd_cwnd : 0;

	tcpav_on_ack(st, &a, &out);

	tp->snd_cwnd = tcpav_min_u32(out.cwnd, tp->snd_cwnd_clamp);
	/* always: with cong_control the kernel never sets it, and with T = 0
	 * TSO autosizing (and fq) read the rate Reno would have */
	sk->sk_pacing_rate = out.pacing_Bps;
	if (out.round_ended) {
		__u64 target = target_Bps_of(sk);

		if (target != st->target_Bps) {
			tcpav_state_set_target(st, target);
			apply_pacing_status(sk, target);
		}
		flow_export(sk, st);
	}
}

SEC("struct_ops")
__u32 BPF_PROG(tcpav_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;

	return tcpav_on_loss_event(tcpav_state_of(sk), tp->delivered);
}

SEC("struct_ops")
__u32 BPF_PROG(tcpav_undo_cwnd, struct sock *sk)
{
	return tcpav_undo(tcpav_state_of(sk));
}

SEC("struct_ops")
void BPF_PROG(tcpav_set_state, struct sock *sk, __u8 new_state)
{
	if (new_state == TCP_CA_Loss)
		tcpav_on_timeout(tcpav_state_of(sk));
}

/* CA_ACK_ECE: the rate sample carries no ECN-Echo, the ACK event does. */
SEC("struct_ops")
void BPF_PROG(tcpav_in_ack_event, struct sock *sk, __u32 flags)
{
	if (flags & CA_ACK_ECE)
		tcpav_on_ece(tcpav_state_of(sk));
}

SEC("struct_ops")
void BPF_PROG(tcpav_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;

	if (ev == CA_EVENT_TX_START)
		tcpav_on_restart(tcpav_state_of(sk), tp->tcp_mstamp, tp->delivered);
}

SEC(".struct_ops")
struct tcp_congestion_ops tcp_av_ops = {
	.init = (void *)tcpav_init_sk,
	.release = (void *)tcpav_release,
	.cong_control = (void *)tcpav_cong_control,
	.ssthresh = (void *)tcpav_ssthresh,
	.undo_cwnd = (void *)tcpav_undo_cwnd,
	.set_state = (void *)tcpav_set_state,
	.cwnd_event = (void *)tcpav_cwnd_event,
	.in_ack_event = (void *)tcpav_in_ack_event,
	.name = "tcp_av",
};
