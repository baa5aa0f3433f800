// SPDX-License-Identifier: GPL-2.0
/*
 * qos_tree.c - apqos's HTB tree on an interface: reading the root qdisc
 * and the classes (with counters), recognising the tree as apqos's
 * (htb 1: default fffe), creating it (root class 1:1 at the link rate,
 * default class 1:fffe for everything else), removing it, and the HTB
 * class / pfifo leaf plumbing the station code shares. The link rate
 * (--link-rate, class 1:1, or the interface speed) is decided here too.
 */
#include "qos.h"

#include <errno.h>
#include <linux/ethtool.h>
#include <linux/if_arp.h>
#include <linux/sockios.h>
#include <linux/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <netlink/cache.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/class.h>
#include <netlink/route/link.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/fifo.h>
#include <netlink/route/qdisc/htb.h>
#include <netlink/route/tc.h>

struct class_walk {
	struct qos_tree *t;
	int err;
};

static void class_cb(struct nl_object *obj, void *arg)
{
	struct class_walk *w = arg;
	struct rtnl_class *c = (struct rtnl_class *)obj;
	struct rtnl_tc *tc = TC_CAST(c);
	struct qos_class_info *ci, *grown;
	const char *kind = rtnl_tc_get_kind(tc);
	uint64_t v;

	if (w->err)
		return;
	grown = realloc(w->t->classes, (w->t->nclasses + 1) * sizeof(*grown));
	if (!grown) {
		w->err = -NLE_NOMEM;
		return;
	}
	w->t->classes = grown;
	ci = &grown[w->t->nclasses++];
	memset(ci, 0, sizeof(*ci));
	ci->classid = rtnl_tc_get_handle(tc);
	ci->parent = rtnl_tc_get_parent(tc);
	ci->htb = kind && strcmp(kind, "htb") == 0;
	if (ci->htb) {
		if (rtnl_htb_get_rate64(c, &v) == 0)
			ci->rate = v * 8;
		if (rtnl_htb_get_ceil64(c, &v) == 0)
			ci->ceil = v * 8;
	}
	ci->bytes = rtnl_tc_get_stat(tc, RTNL_TC_BYTES);
	ci->packets = rtnl_tc_get_stat(tc, RTNL_TC_PACKETS);
	ci->drops = rtnl_tc_get_stat(tc, RTNL_TC_DROPS);
	ci->overlimits = rtnl_tc_get_stat(tc, RTNL_TC_OVERLIMITS);
	ci->backlog = rtnl_tc_get_stat(tc, RTNL_TC_BACKLOG);
	ci->qlen = rtnl_tc_get_stat(tc, RTNL_TC_QLEN);
}

static int cmp_class(const void *a, const void *b)
{
	const struct qos_class_info *x = a, *y = b;

	return x->classid < y->classid ? -1 : x->classid > y->classid;
}

int qos_tree_read(struct qos_ctx *ctx, struct qos_tree *t, const char *op)
{
	struct nl_cache *qcache = NULL, *ccache = NULL;
	struct rtnl_qdisc *root;
	struct class_walk w = {t, 0};
	const struct qos_class_info *ci;
	int err;

	memset(t, 0, sizeof(*t));
	err = rtnl_qdisc_alloc_cache(ctx->sk, &qcache);
	if (err < 0)
		return qos_nl_fail(err, "%s: read qdiscs of %s", op, ctx->ifname);
	root = rtnl_qdisc_get_by_parent(qcache, ctx->ifindex, TC_H_ROOT);
	if (root) {
		const char *kind = rtnl_tc_get_kind(TC_CAST(root));

		t->root_handle = rtnl_tc_get_handle(TC_CAST(root));
		snprintf(t->root_kind, sizeof(t->root_kind), "%s", kind ? kind : "?");
		if (TC_H_MAJ(t->root_handle) == 0)
			t->state = QOS_TREE_NONE; /* the device's default qdisc */
		else if (kind && strcmp(kind, "htb") == 0 &&
			 t->root_handle == QOS_HANDLE(0) &&
			 rtnl_htb_get_defcls(root) == QOS_DEFAULT_MINOR)
			t->state = QOS_TREE_OURS;
		else
			t->state = QOS_TREE_FOREIGN;
		rtnl_qdisc_put(root);
	}
	nl_cache_free(qcache);

	err = rtnl_class_alloc_cache(ctx->sk, ctx->ifindex, &ccache);
	if (err < 0)
		return qos_nl_fail(err, "%s: read classes of %s", op, ctx->ifname);
	nl_cache_foreach(ccache, class_cb, &w);
	nl_cache_free(ccache);
	if (w.err) {
		qos_tree_free(t);
		return qos_nl_fail(w.err, "%s: read classes of %s", op, ctx->ifname);
	}
	if (t->nclasses)
		qsort(t->classes, t->nclasses, sizeof(*t->classes), cmp_class);
	if (t->state == QOS_TREE_OURS) {
		ci = qos_tree_class(t, QOS_HANDLE(QOS_ROOT_MINOR));
		if (ci) {
			t->has_root_class = true;
			t->link_rate = ci->rate;
		}
		t->has_default_class = qos_tree_class(t, QOS_HANDLE(QOS_DEFAULT_MINOR)) != NULL;
	}
	return 0;
}

void qos_tree_free(struct qos_tree *t)
{
	free(t->classes);
	t->classes = NULL;
	t->nclasses = 0;
}

const struct qos_class_info *qos_tree_class(const struct qos_tree *t, uint32_t classid)
{
	size_t i;

	for (i = 0; i < t->nclasses; i++)
		if (t->classes[i].classid == classid)
			return &t->classes[i];
	return NULL;
}

char *qos_tree_describe_root(const struct qos_tree *t, char *buf, size_t len)
{
	char h[16];

	snprintf(buf, len, "%s %s", t->root_kind, qos_format_handle(t->root_handle, h, sizeof(h)));
	return buf;
}

uint64_t qos_link_speed(const char *ifname)
{
	struct ethtool_cmd cmd;
	struct ifreq ifr;
	uint32_t speed;
	int fd, rc;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	memset(&cmd, 0, sizeof(cmd));
	memset(&ifr, 0, sizeof(ifr));
	cmd.cmd = ETHTOOL_GSET;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (char *)&cmd;
	rc = ioctl(fd, SIOCETHTOOL, &ifr);
	close(fd);
	if (rc < 0)
		return 0;
	speed = ethtool_cmd_speed(&cmd);
	if (speed == 0 || speed == (uint32_t)SPEED_UNKNOWN || speed == 0xffff)
		return 0;
	return (uint64_t)speed * 1000000ull;
}

int qos_tree_link_rate(struct qos_ctx *ctx, const struct qos_tree *t, const char *op,
		       uint64_t *bps)
{
	uint64_t v;

	if (ctx->link_rate_opt) {
		*bps = ctx->link_rate_opt;
		return 0;
	}
	if (t->state == QOS_TREE_OURS && t->has_root_class && t->link_rate) {
		*bps = t->link_rate;
		return 0;
	}
	v = qos_link_speed(ctx->ifname);
	if (v >= QOS_RATE_MIN_BPS && v <= QOS_RATE_MAX_BPS) {
		*bps = v;
		return 0;
	}
	return qos_fail(QOS_ERR_USAGE, "the link rate is not known (the interface reports no speed): give --link-rate RATE",
			"%s on %s", op, ctx->ifname);
}

static void tc_init(struct qos_ctx *ctx, struct rtnl_tc *tc, uint32_t parent, uint32_t handle,
		    const char *kind)
{
	rtnl_tc_set_link(tc, ctx->link);
	rtnl_tc_set_parent(tc, parent);
	rtnl_tc_set_handle(tc, handle);
	rtnl_tc_set_kind(tc, kind);
}

int qos_htb_class_nl(struct qos_ctx *ctx, uint32_t classid, uint32_t parent, uint64_t rate,
		     uint64_t ceil, bool create)
{
	struct rtnl_class *c = rtnl_class_alloc();
	int err;

	if (!c)
		return -NLE_NOMEM;
	tc_init(ctx, TC_CAST(c), parent, classid, "htb");
	rtnl_htb_set_rate(c, qos_rate_bytes(rate));
	rtnl_htb_set_ceil(c, qos_rate_bytes(ceil));
	/* one full frame a round: no "quantum is big" clamping, and classes
	 * that borrow share the spare rate equally */
	rtnl_htb_set_quantum(c, ctx->mtu + 14);
	err = rtnl_class_add(ctx->sk, c, create ? NLM_F_CREATE | NLM_F_EXCL : NLM_F_REPLACE);
	rtnl_class_put(c);
	return err;
}

int qos_htb_class(struct qos_ctx *ctx, uint32_t classid, uint32_t parent, uint64_t rate,
		  uint64_t ceil, bool create)
{
	char h[16];
	int err = qos_htb_class_nl(ctx, classid, parent, rate, ceil, create);

	if (err < 0)
		return qos_nl_fail(err, "%s HTB class %s on %s", create ? "add" : "change",
				   qos_format_handle(classid, h, sizeof(h)), ctx->ifname);
	return 0;
}

int qos_htb_class_delete_nl(struct qos_ctx *ctx, uint32_t classid, uint32_t parent)
{
	struct rtnl_class *c = rtnl_class_alloc();
	int err;

	if (!c)
		return -NLE_NOMEM;
	tc_init(ctx, TC_CAST(c), parent, classid, "htb");
	err = rtnl_class_delete(ctx->sk, c);
	rtnl_class_put(c);
	return err;
}

int qos_htb_class_delete(struct qos_ctx *ctx, uint32_t classid, uint32_t parent)
{
	char h[16];
	int err = qos_htb_class_delete_nl(ctx, classid, parent);

	if (err < 0)
		return qos_nl_fail(err, "delete HTB class %s on %s",
				   qos_format_handle(classid, h, sizeof(h)), ctx->ifname);
	return 0;
}

int qos_leaf_add(struct qos_ctx *ctx, uint32_t classid)
{
	struct rtnl_qdisc *q = rtnl_qdisc_alloc();
	uint32_t handle = TC_H_MAKE((classid & 0xffffu) << 16, 0);
	char h[16];
	int err;

	if (!q)
		return qos_nl_fail(-NLE_NOMEM, "add pfifo qdisc %s on %s",
				   qos_format_handle(handle, h, sizeof(h)), ctx->ifname);
	tc_init(ctx, TC_CAST(q), classid, handle, "pfifo");
	rtnl_qdisc_fifo_set_limit(q, (int)ctx->queue);
	err = rtnl_qdisc_add(ctx->sk, q, NLM_F_CREATE | NLM_F_EXCL);
	rtnl_qdisc_put(q);
	if (err < 0)
		return qos_nl_fail(err, "add pfifo qdisc %s on %s",
				   qos_format_handle(handle, h, sizeof(h)), ctx->ifname);
	return 0;
}

int qos_root_delete_nl(struct qos_ctx *ctx, uint32_t handle)
{
	struct rtnl_qdisc *q = rtnl_qdisc_alloc();
	int err;

	if (!q)
		return -NLE_NOMEM;
	rtnl_tc_set_link(TC_CAST(q), ctx->link);
	rtnl_tc_set_parent(TC_CAST(q), TC_H_ROOT);
	rtnl_tc_set_handle(TC_CAST(q), handle);
	err = rtnl_qdisc_delete(ctx->sk, q);
	rtnl_qdisc_put(q);
	return err;
}

int qos_tree_remove(struct qos_ctx *ctx, const struct qos_tree *t, const char *op)
{
	char d[64];
	int err = qos_root_delete_nl(ctx, t->root_handle);

	if (err < 0)
		return qos_nl_fail(err, "%s: delete root qdisc %s on %s", op,
				   qos_tree_describe_root(t, d, sizeof(d)), ctx->ifname);
	return 0;
}

int qos_tree_create(struct qos_ctx *ctx, const struct qos_tree *t, uint64_t link,
		    uint64_t default_rate)
{
	struct rtnl_qdisc *q;
	char d[64];
	int err, rc;

	if (t->state == QOS_TREE_FOREIGN) {
		err = qos_root_delete_nl(ctx, t->root_handle);
		if (err < 0)
			return qos_nl_fail(err, "replace root qdisc %s on %s",
					   qos_tree_describe_root(t, d, sizeof(d)), ctx->ifname);
	}
	q = rtnl_qdisc_alloc();
	if (!q)
		return qos_nl_fail(-NLE_NOMEM, "add HTB qdisc 1: on %s", ctx->ifname);
	tc_init(ctx, TC_CAST(q), TC_H_ROOT, QOS_HANDLE(0), "htb");
	rtnl_htb_set_defcls(q, QOS_DEFAULT_MINOR);
	rtnl_htb_set_rate2quantum(q, 10);
	err = rtnl_qdisc_add(ctx->sk, q, NLM_F_CREATE | NLM_F_EXCL);
	rtnl_qdisc_put(q);
	if (err < 0) {
		qos_nl_fail(err, "add HTB qdisc 1: on %s", ctx->ifname);
		qos_root_restore(ctx);
		return QOS_ERR_RUNTIME;
	}

	if (qos_failpoint("apqos-after-root-replace"))
		rc = qos_fail(QOS_ERR_RUNTIME, "failpoint apqos-after-root-replace (TCPAV_FAILPOINT)",
			      "add HTB class 1:1 on %s", ctx->ifname);
	else
		rc = qos_htb_class(ctx, QOS_HANDLE(QOS_ROOT_MINOR), QOS_HANDLE(0), link, link, true);
	if (rc == 0)
		rc = qos_htb_class(ctx, QOS_HANDLE(QOS_DEFAULT_MINOR), QOS_HANDLE(QOS_ROOT_MINOR),
				   default_rate, link, true);
	if (rc == 0)
		rc = qos_leaf_add(ctx, QOS_HANDLE(QOS_DEFAULT_MINOR));
	if (rc < 0) {
		qos_root_delete_nl(ctx, QOS_HANDLE(0)); /* roll back: the qdisc takes its classes */
		qos_root_restore(ctx);
	}
	return rc;
}
