// SPDX-License-Identifier: GPL-2.0
/*
 * qos_keep.c - what --force replaces is kept: before apqos's tree replaces
 * a foreign root qdisc, the qdisc is saved (libnl's own object, which
 * libnl can send back), and when a later step of the same invocation
 * fails it is put back with its handle and options.
 *
 * libnl-route-3 cannot round-trip every tree (no direct_qlen for htb, no
 * 64-bit tbf rates, no size tables, ...), so only what it re-creates
 * faithfully is accepted: a root pfifo or bfifo (limit), tbf (rate, burst,
 * limit, peakrate, mtu, mpu, overhead; rates below 2^32 bytes/s), or htb
 * (r2q, default class; direct_qlen the device's default) with no classes
 * (tbf's own 1 class aside), no child qdiscs, no filters and no size
 * table. Anything else is refused before anything is touched. Ingress and
 * clsact qdiscs hang off the device, not off the root, and stay as they
 * are.
 *
 * Test failpoints (TCPAV_FAILPOINT, read by qos_failpoint) make a step
 * after the replacement fail, so that the namespace tests can check the
 * restore (tests/integration/apqos_force_keep.sh).
 */
#include "qos.h"

#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/cache.h>
#include <netlink/errno.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/classifier.h>
#include <netlink/route/link.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/tc.h>

bool qos_failpoint(const char *name)
{
	const char *fp = getenv("TCPAV_FAILPOINT");

	return fp && strcmp(fp, name) == 0;
}

/* What the kernel dumps for the root qdisc that libnl does not keep. */
struct root_raw {
	bool seen;
	bool stab;           /* a size table (tc ... stab ...) */
	bool htb_offload;
	bool has_direct_qlen;
	uint32_t direct_qlen;
	bool tbf_rate64;     /* TCA_TBF_RATE64 / PRATE64: rates of 2^32 bytes/s and more */
	uint8_t tbf_linklayer, tbf_plinklayer; /* which libnl does not copy */
};

struct qos_kept_root {
	struct rtnl_qdisc *qdisc; /* libnl's object, from its qdisc cache */
	struct root_raw raw;
};

#define OPT_MAX (TCA_HTB_MAX > TCA_TBF_MAX ? TCA_HTB_MAX : TCA_TBF_MAX)

struct raw_walk {
	int ifindex;
	struct root_raw *raw;
};

static int raw_cb(struct nl_msg *msg, void *arg)
{
	struct raw_walk *w = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[TCA_MAX + 1], *o[OPT_MAX + 1];
	struct tcmsg *tcm;
	const char *kind;

	if (nlh->nlmsg_type != RTM_NEWQDISC || nlmsg_parse(nlh, sizeof(*tcm), tb, TCA_MAX, NULL) < 0)
		return NL_OK;
	tcm = nlmsg_data(nlh);
	if (tcm->tcm_ifindex != w->ifindex || tcm->tcm_parent != TC_H_ROOT || !tb[TCA_KIND])
		return NL_OK;
	w->raw->seen = true;
	w->raw->stab = tb[TCA_STAB] != NULL;
	kind = nla_get_string(tb[TCA_KIND]);
	if (!tb[TCA_OPTIONS])
		return NL_OK;
	/* pfifo/bfifo options are a bare struct, not attributes: not parsed */
	if (strcmp(kind, "htb") == 0 &&
	    nla_parse_nested(o, TCA_HTB_MAX, tb[TCA_OPTIONS], NULL) == 0) {
		w->raw->htb_offload = o[TCA_HTB_OFFLOAD] != NULL;
		if (o[TCA_HTB_DIRECT_QLEN]) {
			w->raw->has_direct_qlen = true;
			w->raw->direct_qlen = nla_get_u32(o[TCA_HTB_DIRECT_QLEN]);
		}
	} else if (strcmp(kind, "tbf") == 0 &&
		   nla_parse_nested(o, TCA_TBF_MAX, tb[TCA_OPTIONS], NULL) == 0) {
		w->raw->tbf_rate64 = o[TCA_TBF_RATE64] || o[TCA_TBF_PRATE64];
		if (o[TCA_TBF_PARMS] && nla_len(o[TCA_TBF_PARMS]) >= (int)sizeof(struct tc_tbf_qopt)) {
			const struct tc_tbf_qopt *q = nla_data(o[TCA_TBF_PARMS]);

			w->raw->tbf_linklayer = q->rate.linklayer;
			w->raw->tbf_plinklayer = q->peakrate.linklayer;
		}
	}
	return NL_OK;
}

/* The root qdisc's attributes as the kernel dumps them. 0 or a libnl error. */
static int root_raw_read(struct qos_ctx *ctx, struct root_raw *raw)
{
	struct tcmsg req = {.tcm_family = AF_UNSPEC, .tcm_ifindex = ctx->ifindex};
	struct raw_walk w = {ctx->ifindex, raw};
	struct nl_cb *sock_cb, *cb;
	int err;

	memset(raw, 0, sizeof(*raw));
	err = nl_send_simple(ctx->sk, RTM_GETQDISC, NLM_F_DUMP, &req, sizeof(req));
	if (err < 0)
		return err;
	/* a clone: the socket's own callbacks stay as libnl's caches expect */
	sock_cb = nl_socket_get_cb(ctx->sk); /* a reference */
	cb = nl_cb_clone(sock_cb);
	nl_cb_put(sock_cb);
	if (!cb)
		return -NLE_NOMEM;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, raw_cb, &w);
	err = nl_recvmsgs(ctx->sk, cb);
	nl_cb_put(cb);
	return err < 0 ? err : 0;
}

struct child_walk {
	int ifindex;
	bool child;
};

static void child_cb(struct nl_object *obj, void *arg)
{
	struct child_walk *w = arg;
	struct rtnl_tc *tc = TC_CAST(obj);
	uint32_t parent = rtnl_tc_get_parent(tc);

	if (rtnl_tc_get_ifindex(tc) == w->ifindex && parent != TC_H_ROOT &&
	    TC_H_MAJ(parent) != TC_H_MAJ(TC_H_INGRESS))
		w->child = true;
}

static bool known_kind(const char *kind)
{
	static const char *const kinds[] = {"pfifo", "bfifo", "tbf", "htb"};
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(kind, kinds[i]) == 0)
			return true;
	return false;
}

/* Why T's root cannot be re-created as it is, or NULL if it can. */
static const char *unrestorable(struct qos_ctx *ctx, const struct qos_tree *t,
				const struct root_raw *raw, bool child, size_t nfilters)
{
	uint32_t txqlen = rtnl_link_get_txqlen(ctx->link);
	size_t i;

	if (!known_kind(t->root_kind))
		return "libnl cannot re-create this kind; apqos keeps pfifo, bfifo, tbf and htb";
	for (i = 0; i < t->nclasses; i++) {
		const struct qos_class_info *c = &t->classes[i];

		/* tbf shows its one built-in class MAJOR:1 */
		if (!(strcmp(t->root_kind, "tbf") == 0 && c->parent == t->root_handle &&
		      c->classid == (t->root_handle | 1u)))
			return "it has classes";
	}
	if (child)
		return "it has child qdiscs";
	if (nfilters)
		return "it has filters";
	if (!raw->seen)
		return "the kernel's dump of it was not found";
	if (raw->stab)
		return "it has a size table";
	if (raw->htb_offload)
		return "it is offloaded";
	if (raw->has_direct_qlen && raw->direct_qlen != (txqlen < 2 ? 2 : txqlen))
		return "its direct_qlen is not the device's default, which libnl cannot set";
	if (raw->tbf_rate64)
		return "its rate is 2^32 bytes/s or more, which libnl cannot set";
	return NULL;
}

int qos_root_keep(struct qos_ctx *ctx, const struct qos_tree *t, const char *op)
{
	struct nl_cache *qcache = NULL, *fcache = NULL;
	struct child_walk cw = {ctx->ifindex, false};
	struct rtnl_qdisc *root;
	struct root_raw raw;
	size_t nfilters = 0;
	const char *why;
	char d[64], line[256];
	int err;

	if (t->state != QOS_TREE_FOREIGN || ctx->kept_root)
		return 0;
	err = rtnl_qdisc_alloc_cache(ctx->sk, &qcache);
	if (err < 0)
		return qos_nl_fail(err, "%s: read qdiscs of %s", op, ctx->ifname);
	root = rtnl_qdisc_get_by_parent(qcache, ctx->ifindex, TC_H_ROOT);
	nl_cache_foreach(qcache, child_cb, &cw);
	nl_cache_free(qcache);
	if (!root || rtnl_tc_get_handle(TC_CAST(root)) != t->root_handle) {
		if (root)
			rtnl_qdisc_put(root);
		return qos_fail(QOS_ERR_RUNTIME, "the root qdisc changed while apqos read it",
				"%s on %s", op, ctx->ifname);
	}
	if (strcmp(t->root_kind, "htb") == 0) {
		err = rtnl_cls_alloc_cache(ctx->sk, ctx->ifindex, t->root_handle, &fcache);
		if (err < 0) {
			rtnl_qdisc_put(root);
			return qos_nl_fail(err, "%s: read filters of %s", op, ctx->ifname);
		}
		nfilters = (size_t)nl_cache_nitems(fcache);
		nl_cache_free(fcache);
	}
	err = root_raw_read(ctx, &raw);
	if (err < 0) {
		rtnl_qdisc_put(root);
		return qos_nl_fail(err, "%s: read qdiscs of %s", op, ctx->ifname);
	}
	why = unrestorable(ctx, t, &raw, cw.child, nfilters);
	if (why) {
		rtnl_qdisc_put(root);
		snprintf(line, sizeof(line),
			 "--force keeps only what it can put back if the change fails, and root qdisc %s "
			 "cannot be (%s): remove it first (apqos --force clear)",
			 qos_tree_describe_root(t, d, sizeof(d)), why);
		return qos_fail(QOS_ERR_RUNTIME, line, "%s on %s", op, ctx->ifname);
	}
	ctx->kept_root = calloc(1, sizeof(*ctx->kept_root));
	if (!ctx->kept_root) {
		rtnl_qdisc_put(root);
		return qos_fail(QOS_ERR_RUNTIME, "out of memory", "%s", op);
	}
	ctx->kept_root->qdisc = root;
	ctx->kept_root->raw = raw;
	return 0;
}

void qos_root_forget(struct qos_ctx *ctx)
{
	if (!ctx->kept_root)
		return;
	rtnl_qdisc_put(ctx->kept_root->qdisc);
	free(ctx->kept_root);
	ctx->kept_root = NULL;
}

/*
 * libnl's add request for the kept root, with what libnl drops put back:
 * tbf's link layers (libnl sends 0, "unaware", which the kernel then keeps
 * and tc shows as "linklayer unspec"). 0 or a libnl error.
 */
static int kept_root_add(struct qos_ctx *ctx)
{
	struct qos_kept_root *k = ctx->kept_root;
	const char *kind = rtnl_tc_get_kind(TC_CAST(k->qdisc));
	struct nlattr *opts, *parms;
	struct nl_msg *msg;
	int err;

	err = rtnl_qdisc_build_add_request(k->qdisc, NLM_F_CREATE | NLM_F_EXCL, &msg);
	if (err < 0)
		return err;
	if (kind && strcmp(kind, "tbf") == 0) {
		opts = nlmsg_find_attr(nlmsg_hdr(msg), sizeof(struct tcmsg), TCA_OPTIONS);
		parms = opts ? nla_find(nla_data(opts), nla_len(opts), TCA_TBF_PARMS) : NULL;
		if (parms && nla_len(parms) >= (int)sizeof(struct tc_tbf_qopt)) {
			struct tc_tbf_qopt *q = nla_data(parms);

			q->rate.linklayer = k->raw.tbf_linklayer;
			q->peakrate.linklayer = k->raw.tbf_plinklayer;
		}
	}
	err = nl_send_sync(ctx->sk, msg); /* frees msg */
	return err;
}

void qos_root_restore(struct qos_ctx *ctx)
{
	char h[16];
	const char *kind;
	int err;

	if (!ctx->kept_root)
		return;
	kind = rtnl_tc_get_kind(TC_CAST(ctx->kept_root->qdisc));
	err = kept_root_add(ctx);
	/* a second line: the first said what failed, this says what is left */
	if (err < 0)
		qos_nl_fail(err, "put back root qdisc %s %s on %s", kind ? kind : "?",
			    qos_format_handle(rtnl_tc_get_handle(TC_CAST(ctx->kept_root->qdisc)), h,
					      sizeof(h)),
			    ctx->ifname);
}
