/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qos.h - what apqos's files share: the HTB tree layout (handles and class
 * ids), the per-invocation context, the handler error contract, and the
 * pure helpers (rates, class-id allocation, u32 keys of a station) that the
 * unit tests exercise without a kernel.
 *
 * The tree apqos builds on IFACE (its egress, i.e. traffic to the stations):
 *
 *   qdisc htb 1: root default fffe          <- recognised as apqos's by
 *     class 1:1     rate LINK ceil LINK        handle 1: + default 1:fffe
 *       class 1:fffe  rate LINK - sum(guarantees)  ceil LINK   (all else)
 *         qdisc pfifo fffe: limit QUEUE
 *       class 1:MINOR rate GUARANTEE ceil LINK (or --ceil)   one a station
 *         qdisc pfifo MINOR: limit QUEUE
 *   filter parent 1: pref MINOR u32 ... flowid 1:MINOR      one a station
 *
 * A station's class minor (0x10..0xfffd, the lowest free) is also its
 * filter's preference, and the filter's match keys are the station's
 * address, so class <-> station is read back from the kernel (no state
 * file).
 *
 * Error contract: every command handler returns 0, or QOS_ERR_RUNTIME /
 * QOS_ERR_USAGE after printing exactly one line "apqos: OPERATION: REASON"
 * (qos_fail / qos_nl_fail) to stderr. apqos exits 1 or 2 respectively.
 */
#ifndef APTOOLS_QOS_H
#define APTOOLS_QOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sta_addr.h"

struct nl_sock;
struct rtnl_link;
struct qos_kept_root;

#define QOS_ERR_RUNTIME (-1)
#define QOS_ERR_USAGE (-2)

/* Tree layout (see above). */
#define QOS_MAJOR 0x1u
#define QOS_HANDLE(minor) ((QOS_MAJOR << 16) | (uint32_t)(minor))
#define QOS_ROOT_MINOR 0x1u
#define QOS_DEFAULT_MINOR 0xfffeu
#define QOS_STA_MINOR_FIRST 0x10u
#define QOS_STA_MINOR_LAST 0xfffdu
#define QOS_DEFAULT_QUEUE 100u

/* HTB rates go to the kernel in bytes/s (32 bits here): 8 bit/s .. ~34 Gbit/s */
#define QOS_RATE_MIN_BPS 8ull
#define QOS_RATE_MAX_BPS (8ull * 0xffffffffull)

struct qos_ctx {
	const char *ifname;
	struct nl_sock *sk;
	struct rtnl_link *link; /* a reference, put by qos_ctx_close */
	int ifindex;
	unsigned mtu;           /* the interface's MTU */
	/* global options */
	uint64_t link_rate_opt; /* --link-rate, 0 if not given */
	unsigned queue;         /* --queue: pfifo limit of each leaf, packets */
	bool force;             /* --force */
	struct qos_kept_root *kept_root; /* the foreign root --force replaces (qos_root_keep) */
	/* command options */
	bool json;              /* show --json */
	uint64_t ceil_opt;      /* guarantee --ceil, 0 if not given */
};

/* Prints "apqos: OPERATION: REASON" (OPERATION from fmt) and returns code. */
int qos_fail(int code, const char *reason, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same with nl_geterror(nlerr) as the reason; returns QOS_ERR_RUNTIME. */
int qos_nl_fail(int nlerr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Socket and interface: 0, or QOS_ERR_RUNTIME after one line. */
int qos_ctx_open(struct qos_ctx *ctx);
void qos_ctx_close(struct qos_ctx *ctx);

/*
 * Rates: iperf3 forms through tcpav_parse_rate ("15M", "1.5G", "500k",
 * "250000") and tc's bit forms ("15mbit", "500kbit", "1gbit", "800bit").
 * Bits/s, within [QOS_RATE_MIN_BPS, QOS_RATE_MAX_BPS]. 0 or -1.
 */
int qos_parse_rate(const char *text, uint64_t *bps);
/* HTB's bytes/s for bits/s (rounded to the nearest byte, at least 1). */
uint32_t qos_rate_bytes(uint64_t bps);
/* "15 Mbit/s" */
char *qos_format_rate(uint64_t bps, char *buf, size_t len);
/* "1:10", "1:fffe", "1:" */
char *qos_format_handle(uint32_t handle, char *buf, size_t len);

/* The default class's rate: LINK - SUM, but at least LINK/100 (and 8 bit/s). */
uint64_t qos_default_rate(uint64_t link, uint64_t sum_guarantees);

/*
 * The lowest station minor in [QOS_STA_MINOR_FIRST, QOS_STA_MINOR_LAST]
 * not in used[0..n) (any order, duplicates and out-of-range values
 * allowed); 0 if all are taken.
 */
unsigned qos_alloc_minor(const unsigned *used, size_t n);

/* One u32 match key as the kernel holds it (val/mask in network order). */
struct qos_u32_key {
	uint32_t val, mask;
	int off;
};
#define QOS_MAX_KEYS 4

/* The keys matching traffic to station A and the filter's protocol
 * (ETH_P_ALL, ETH_P_IP, ETH_P_IPV6, host order). Returns the key count. */
int qos_sta_keys(const struct sta_addr *a, struct qos_u32_key keys[QOS_MAX_KEYS],
		 uint16_t *protocol);
/* The inverse: the station whose filter has these keys and protocol.
 * 0, or -1 if they are not a station filter apqos writes. */
int qos_sta_from_keys(const struct qos_u32_key *keys, int n, uint16_t protocol,
		      struct sta_addr *a);

/* --- qos_tree.c: the root qdisc, root class 1:1 and default class 1:fffe */

enum qos_tree_state {
	QOS_TREE_NONE,    /* the device's default root qdisc (handle 0:) */
	QOS_TREE_OURS,    /* htb 1: default fffe */
	QOS_TREE_FOREIGN, /* any other root qdisc */
};

/* One HTB class on the device, with its counters (as `tc -s class show`). */
struct qos_class_info {
	uint32_t classid, parent;
	bool htb;
	uint64_t rate, ceil; /* bits/s */
	uint64_t bytes, packets, drops, overlimits, backlog, qlen;
};

struct qos_tree {
	enum qos_tree_state state;
	char root_kind[32];   /* e.g. "tbf" (FOREIGN), "htb" */
	uint32_t root_handle;
	uint64_t link_rate;   /* class 1:1's rate (OURS and present), else 0 */
	bool has_root_class, has_default_class;
	struct qos_class_info *classes; /* every class on the device */
	size_t nclasses;
};

/* Reads the device's root qdisc and classes. 0 or QOS_ERR_RUNTIME. */
int qos_tree_read(struct qos_ctx *ctx, struct qos_tree *t, const char *op);
void qos_tree_free(struct qos_tree *t);
const struct qos_class_info *qos_tree_class(const struct qos_tree *t, uint32_t classid);
/* "tbf 8001:" for messages */
char *qos_tree_describe_root(const struct qos_tree *t, char *buf, size_t len);

/* The interface's speed (ethtool), bits/s; 0 if it reports none. */
uint64_t qos_link_speed(const char *ifname);

/*
 * The link rate a command that builds or keeps the tree uses: --link-rate,
 * else class 1:1's rate, else the interface speed; QOS_ERR_USAGE after one
 * line if none is known.
 */
int qos_tree_link_rate(struct qos_ctx *ctx, const struct qos_tree *t, const char *op,
		       uint64_t *bps);

/* Creates htb 1: with 1:1 (LINK) and 1:fffe (DEFAULT_RATE, ceil LINK) and
 * its pfifo; replaces a foreign root qdisc (callers check --force and call
 * qos_root_keep first). On failure removes what it added and puts the kept
 * root back. 0 or QOS_ERR_RUNTIME. */
int qos_tree_create(struct qos_ctx *ctx, const struct qos_tree *t, uint64_t link,
		    uint64_t default_rate);
/* Deletes the root qdisc (and with it every class and filter). */
int qos_tree_remove(struct qos_ctx *ctx, const struct qos_tree *t, const char *op);

/* Adds (create) or changes an HTB class under PARENT. 0 or QOS_ERR_RUNTIME. */
int qos_htb_class(struct qos_ctx *ctx, uint32_t classid, uint32_t parent, uint64_t rate,
		  uint64_t ceil, bool create);
int qos_htb_class_delete(struct qos_ctx *ctx, uint32_t classid, uint32_t parent);
/* The same without the error line (for rollbacks): 0 or a libnl error. */
int qos_htb_class_nl(struct qos_ctx *ctx, uint32_t classid, uint32_t parent, uint64_t rate,
		     uint64_t ceil, bool create);
int qos_htb_class_delete_nl(struct qos_ctx *ctx, uint32_t classid, uint32_t parent);
int qos_root_delete_nl(struct qos_ctx *ctx, uint32_t handle);
/* pfifo limit ctx->queue as the leaf of CLASSID, handle MINOR: */
int qos_leaf_add(struct qos_ctx *ctx, uint32_t classid);

/* --- qos_keep.c: what --force replaces is put back if the change fails */

/*
 * For a foreign root qdisc (T's state QOS_TREE_FOREIGN): keeps it in
 * ctx->kept_root if libnl can re-create it as it is (a pfifo, bfifo, tbf or
 * htb root without classes, child qdiscs, filters or size table), else
 * refuses with one line. 0 (also for a tree that is not foreign), or
 * QOS_ERR_RUNTIME.
 */
int qos_root_keep(struct qos_ctx *ctx, const struct qos_tree *t, const char *op);
/* Adds ctx->kept_root back (the root must be free); a line if that fails. */
void qos_root_restore(struct qos_ctx *ctx);
/* Drops ctx->kept_root (qos_ctx_close does). */
void qos_root_forget(struct qos_ctx *ctx);
/*
 * Test failpoints: true when TCPAV_FAILPOINT is NAME. Names:
 *   apqos-after-root-replace  adding class 1:1 after the new root qdisc fails
 *   apqos-station-class       adding a station's class fails
 */
bool qos_failpoint(const char *name);

/* --- qos_station.c: per-station class + filter */

struct qos_station {
	struct sta_addr addr;    /* kind STA_NONE: a class without a filter */
	unsigned minor;          /* class 1:minor, filter pref minor */
	uint16_t protocol;       /* the filter's, host order */
	bool has_filter, has_class;
	uint64_t rate, ceil;     /* bits/s, from the class */
};

/* The stations of apqos's tree T (sorted by minor). 0 or QOS_ERR_RUNTIME. */
int qos_stations_read(struct qos_ctx *ctx, const struct qos_tree *t, const char *op,
		      struct qos_station **out, size_t *n);

int qos_cmd_guarantee(struct qos_ctx *ctx, int argc, char **argv);
int qos_cmd_del(struct qos_ctx *ctx, int argc, char **argv);
int qos_cmd_setup(struct qos_ctx *ctx, int argc, char **argv);
int qos_cmd_clear(struct qos_ctx *ctx, int argc, char **argv);

/* --- qos_show.c */
int qos_cmd_show(struct qos_ctx *ctx, int argc, char **argv);

/* --- airtime_cmd.c */
int qos_cmd_airtime(struct qos_ctx *ctx, int argc, char **argv);
/* 0, or -1: WEIGHT is not an integer in 1..65535 */
int qos_parse_weight(const char *text, unsigned *weight);

#endif /* APTOOLS_QOS_H */
