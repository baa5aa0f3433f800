// SPDX-License-Identifier: GPL-2.0
/*
 * qos_station.c - apqos's per-station state: one HTB class 1:MINOR
 * (rate = the guarantee) with a pfifo leaf, and one u32 filter (pref
 * MINOR) matching the station's destination MAC, IPv4 or IPv6 address.
 * Reads them back (filter keys -> station), allocates class ids, and
 * implements the commands that change the tree: guarantee, del, setup,
 * clear. Every change validates first and, if a step fails, undoes what
 * this invocation did (a journal, replayed backwards).
 */
#include "qos.h"

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/cache.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/classifier.h>
#include <netlink/route/cls/u32.h>
#include <netlink/route/tc.h>

/* --- pure helpers */

unsigned qos_alloc_minor(const unsigned *used, size_t n)
{
	unsigned m;
	size_t i;

	for (m = QOS_STA_MINOR_FIRST; m <= QOS_STA_MINOR_LAST; m++) {
		for (i = 0; i < n; i++)
			if (used[i] == m)
				break;
		if (i == n)
			return m;
	}
	return 0;
}

/*
 * u32 offsets are relative to the network header; on egress the Ethernet
 * header precedes it: destination MAC at -14..-9. Keys are 32-bit words at
 * 4-aligned offsets (as tc writes them): the word at -16 holds two bytes
 * before the frame and the MAC's first two, the word at -12 its last four.
 */
int qos_sta_keys(const struct sta_addr *a, struct qos_u32_key keys[QOS_MAX_KEYS],
		 uint16_t *protocol)
{
	int i;

	switch (a->kind) {
	case STA_MAC:
		keys[0].val = htonl((uint32_t)a->mac[0] << 8 | a->mac[1]);
		keys[0].mask = htonl(0x0000ffffu);
		keys[0].off = -16;
		keys[1].val = htonl((uint32_t)a->mac[2] << 24 | (uint32_t)a->mac[3] << 16 |
				    (uint32_t)a->mac[4] << 8 | a->mac[5]);
		keys[1].mask = htonl(0xffffffffu);
		keys[1].off = -12;
		*protocol = ETH_P_ALL;
		return 2;
	case STA_IPV4:
		keys[0].val = a->v4.s_addr;
		keys[0].mask = 0xffffffffu;
		keys[0].off = 16; /* IPv4 destination address */
		*protocol = ETH_P_IP;
		return 1;
	case STA_IPV6:
		for (i = 0; i < 4; i++) {
			memcpy(&keys[i].val, &a->v6.s6_addr[4 * i], 4);
			keys[i].mask = 0xffffffffu;
			keys[i].off = 24 + 4 * i; /* IPv6 destination address */
		}
		*protocol = ETH_P_IPV6;
		return 4;
	default:
		return 0;
	}
}

int qos_sta_from_keys(const struct qos_u32_key *keys, int n, uint16_t protocol,
		      struct sta_addr *a)
{
	struct sta_addr s;
	uint32_t w;
	int i;

	memset(&s, 0, sizeof(s));
	if (protocol == ETH_P_ALL && n == 2 && keys[0].off == -16 &&
	    keys[0].mask == htonl(0x0000ffffu) && keys[1].off == -12 &&
	    keys[1].mask == 0xffffffffu) {
		s.kind = STA_MAC;
		w = ntohl(keys[0].val);
		s.mac[0] = (uint8_t)(w >> 8);
		s.mac[1] = (uint8_t)w;
		w = ntohl(keys[1].val);
		s.mac[2] = (uint8_t)(w >> 24);
		s.mac[3] = (uint8_t)(w >> 16);
		s.mac[4] = (uint8_t)(w >> 8);
		s.mac[5] = (uint8_t)w;
	} else if (protocol == ETH_P_IP && n == 1 && keys[0].off == 16 &&
		   keys[0].mask == 0xffffffffu) {
		s.kind = STA_IPV4;
		s.v4.s_addr = keys[0].val;
	} else if (protocol == ETH_P_IPV6 && n == 4) {
		for (i = 0; i < 4; i++) {
			if (keys[i].off != 24 + 4 * i || keys[i].mask != 0xffffffffu)
				return -1;
			memcpy(&s.v6.s6_addr[4 * i], &keys[i].val, 4);
		}
		s.kind = STA_IPV6;
	} else {
		return -1;
	}
	*a = s;
	return 0;
}

/* --- reading the stations back */

struct filter_walk {
	struct qos_station *v;
	size_t n;
	unsigned *prefs; /* every filter preference in use under 1: */
	size_t nprefs;
	int err;
};

static struct qos_station *station_slot(struct qos_station **v, size_t *n, unsigned minor)
{
	struct qos_station *grown;
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*v)[i].minor == minor)
			return &(*v)[i];
	grown = realloc(*v, (*n + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	*v = grown;
	memset(&grown[*n], 0, sizeof(grown[*n]));
	grown[*n].minor = minor;
	return &grown[(*n)++];
}

static void filter_cb(struct nl_object *obj, void *arg)
{
	struct filter_walk *w = arg;
	struct rtnl_cls *f = (struct rtnl_cls *)obj;
	const char *kind = rtnl_tc_get_kind(TC_CAST(f));
	struct qos_u32_key keys[QOS_MAX_KEYS];
	struct qos_station *st;
	struct sta_addr a;
	uint32_t classid, val, mask;
	unsigned pref = rtnl_cls_get_prio(f), *grown;
	uint16_t proto = rtnl_cls_get_protocol(f);
	int n = 0, off, offmask;

	if (w->err)
		return;
	grown = realloc(w->prefs, (w->nprefs + 1) * sizeof(*grown));
	if (!grown) {
		w->err = -NLE_NOMEM;
		return;
	}
	w->prefs = grown;
	w->prefs[w->nprefs++] = pref;

	if (!kind || strcmp(kind, "u32") != 0 || rtnl_u32_get_classid(f, &classid) < 0)
		return;
	if (TC_H_MAJ(classid) != QOS_HANDLE(0) || TC_H_MIN(classid) != pref ||
	    pref < QOS_STA_MINOR_FIRST || pref > QOS_STA_MINOR_LAST)
		return;
	while (rtnl_u32_get_key(f, (uint8_t)n, &val, &mask, &off, &offmask) == 0) {
		if (n == QOS_MAX_KEYS || offmask)
			return;
		keys[n].val = val;
		keys[n].mask = mask;
		keys[n].off = off;
		n++;
	}
	if (qos_sta_from_keys(keys, n, proto, &a) < 0)
		return;
	st = station_slot(&w->v, &w->n, pref);
	if (!st) {
		w->err = -NLE_NOMEM;
		return;
	}
	st->addr = a;
	st->protocol = proto;
	st->has_filter = true;
}

static int cmp_station(const void *a, const void *b)
{
	const struct qos_station *x = a, *y = b;

	return x->minor < y->minor ? -1 : x->minor > y->minor;
}

static int stations_read_full(struct qos_ctx *ctx, const struct qos_tree *t, const char *op,
			      struct qos_station **out, size_t *nout, unsigned **prefs,
			      size_t *nprefs)
{
	struct filter_walk w = {NULL, 0, NULL, 0, 0};
	struct nl_cache *cache = NULL;
	size_t i;
	int err;

	*out = NULL;
	*nout = 0;
	if (prefs) {
		*prefs = NULL;
		*nprefs = 0;
	}
	if (t->state != QOS_TREE_OURS)
		return 0;
	err = rtnl_cls_alloc_cache(ctx->sk, ctx->ifindex, QOS_HANDLE(0), &cache);
	if (err < 0)
		return qos_nl_fail(err, "%s: read filters of %s", op, ctx->ifname);
	nl_cache_foreach(cache, filter_cb, &w);
	nl_cache_free(cache);
	for (i = 0; !w.err && i < t->nclasses; i++) {
		const struct qos_class_info *ci = &t->classes[i];
		unsigned minor = TC_H_MIN(ci->classid);
		struct qos_station *st;

		if (TC_H_MAJ(ci->classid) != QOS_HANDLE(0) || minor < QOS_STA_MINOR_FIRST ||
		    minor > QOS_STA_MINOR_LAST)
			continue;
		st = station_slot(&w.v, &w.n, minor);
		if (!st) {
			w.err = -NLE_NOMEM;
			break;
		}
		st->has_class = true;
		st->rate = ci->rate;
		st->ceil = ci->ceil;
	}
	if (w.err) {
		free(w.v);
		free(w.prefs);
		return qos_nl_fail(w.err, "%s: read filters of %s", op, ctx->ifname);
	}
	if (w.n)
		qsort(w.v, w.n, sizeof(*w.v), cmp_station);
	*out = w.v;
	*nout = w.n;
	if (prefs) {
		*prefs = w.prefs;
		*nprefs = w.nprefs;
	} else {
		free(w.prefs);
	}
	return 0;
}

int qos_stations_read(struct qos_ctx *ctx, const struct qos_tree *t, const char *op,
		      struct qos_station **out, size_t *n)
{
	return stations_read_full(ctx, t, op, out, n, NULL, NULL);
}

/* --- filters */

static struct rtnl_cls *filter_new(struct qos_ctx *ctx, unsigned pref, uint16_t proto)
{
	struct rtnl_cls *f = rtnl_cls_alloc();

	if (!f)
		return NULL;
	rtnl_tc_set_link(TC_CAST(f), ctx->link);
	rtnl_tc_set_parent(TC_CAST(f), QOS_HANDLE(0));
	rtnl_tc_set_kind(TC_CAST(f), "u32");
	rtnl_cls_set_prio(f, (uint16_t)pref);
	rtnl_cls_set_protocol(f, proto);
	return f;
}

static int filter_add_nl(struct qos_ctx *ctx, const struct sta_addr *a, unsigned minor)
{
	struct qos_u32_key keys[QOS_MAX_KEYS];
	struct rtnl_cls *f;
	uint16_t proto = 0;
	int n = qos_sta_keys(a, keys, &proto), i, err = 0;

	f = filter_new(ctx, minor, proto);
	if (!f)
		return -NLE_NOMEM;
	for (i = 0; i < n && err == 0; i++)
		err = rtnl_u32_add_key(f, keys[i].val, keys[i].mask, keys[i].off, 0);
	if (err == 0)
		err = rtnl_u32_set_cls_terminal(f);
	if (err == 0)
		err = rtnl_u32_set_classid(f, QOS_HANDLE(minor));
	if (err == 0)
		err = rtnl_cls_add(ctx->sk, f, NLM_F_CREATE | NLM_F_EXCL);
	rtnl_cls_put(f);
	return err;
}

static int filter_del_nl(struct qos_ctx *ctx, unsigned minor, uint16_t proto)
{
	struct rtnl_cls *f = filter_new(ctx, minor, proto);
	int err;

	if (!f)
		return -NLE_NOMEM;
	err = rtnl_cls_delete(ctx->sk, f, 0);
	rtnl_cls_put(f);
	return err;
}

/* --- the journal of one invocation's changes, for rolling back */

enum jtype { J_TREE, J_CLASS_ADDED, J_CLASS_CHANGED, J_FILTER_ADDED, J_FILTER_DELETED };

struct jent {
	enum jtype type;
	uint32_t classid, parent;
	uint64_t rate, ceil;   /* J_CLASS_CHANGED: the old values */
	struct sta_addr addr;  /* J_FILTER_DELETED */
	unsigned minor;
	uint16_t proto;
};

struct journal {
	struct jent *e;
	size_t n;
};

static int jadd(struct journal *j, struct jent e)
{
	struct jent *grown = realloc(j->e, (j->n + 1) * sizeof(*grown));

	if (!grown)
		return -1;
	j->e = grown;
	j->e[j->n++] = e;
	return 0;
}

static void rollback(struct qos_ctx *ctx, struct journal *j)
{
	while (j->n) {
		struct jent *e = &j->e[--j->n];

		switch (e->type) {
		case J_TREE:
			qos_root_delete_nl(ctx, QOS_HANDLE(0));
			qos_root_restore(ctx);
			break;
		case J_CLASS_ADDED:
			qos_htb_class_delete_nl(ctx, e->classid, e->parent);
			break;
		case J_CLASS_CHANGED:
			qos_htb_class_nl(ctx, e->classid, e->parent, e->rate, e->ceil, false);
			break;
		case J_FILTER_ADDED:
			filter_del_nl(ctx, e->minor, e->proto);
			break;
		case J_FILTER_DELETED:
			filter_add_nl(ctx, &e->addr, e->minor);
			break;
		}
	}
}

static void jfree(struct journal *j)
{
	free(j->e);
	j->e = NULL;
	j->n = 0;
}

/* Changes class CLASSID, journalled. */
static int class_change(struct qos_ctx *ctx, struct journal *j, uint32_t classid, uint32_t parent,
			uint64_t rate, uint64_t ceil, uint64_t old_rate, uint64_t old_ceil)
{
	struct jent e = {.type = J_CLASS_CHANGED, .classid = classid, .parent = parent,
			 .rate = old_rate, .ceil = old_ceil};

	if (qos_rate_bytes(rate) == qos_rate_bytes(old_rate) &&
	    qos_rate_bytes(ceil) == qos_rate_bytes(old_ceil))
		return 0;
	if (qos_htb_class(ctx, classid, parent, rate, ceil, false) < 0)
		return QOS_ERR_RUNTIME;
	if (jadd(j, e) < 0)
		return qos_fail(QOS_ERR_RUNTIME, "out of memory", "journal");
	return 0;
}

/* Adds class 1:MINOR with its pfifo, journalled. */
static int class_add(struct qos_ctx *ctx, struct journal *j, unsigned minor, uint64_t rate,
		     uint64_t ceil)
{
	struct jent e = {.type = J_CLASS_ADDED, .classid = QOS_HANDLE(minor),
			 .parent = QOS_HANDLE(QOS_ROOT_MINOR)};
	char h[16];

	if (minor != QOS_DEFAULT_MINOR && qos_failpoint("apqos-station-class"))
		return qos_fail(QOS_ERR_RUNTIME, "failpoint apqos-station-class (TCPAV_FAILPOINT)",
				"add HTB class %s on %s", qos_format_handle(e.classid, h, sizeof(h)),
				ctx->ifname);
	if (qos_htb_class(ctx, e.classid, e.parent, rate, ceil, true) < 0)
		return QOS_ERR_RUNTIME;
	if (jadd(j, e) < 0) {
		qos_htb_class_delete_nl(ctx, e.classid, e.parent);
		return qos_fail(QOS_ERR_RUNTIME, "out of memory", "journal");
	}
	return qos_leaf_add(ctx, e.classid);
}

static int filter_add(struct qos_ctx *ctx, struct journal *j, const struct sta_addr *a,
		      unsigned minor)
{
	struct qos_u32_key keys[QOS_MAX_KEYS];
	struct jent e = {.type = J_FILTER_ADDED, .minor = minor};
	char s[STA_ADDR_STRLEN];
	int err;

	qos_sta_keys(a, keys, &e.proto);
	err = filter_add_nl(ctx, a, minor);
	if (err < 0)
		return qos_nl_fail(err, "add u32 filter pref %u for %s on %s", minor,
				   sta_addr_format(a, s, sizeof(s)), ctx->ifname);
	if (jadd(j, e) < 0) {
		filter_del_nl(ctx, minor, e.proto);
		return qos_fail(QOS_ERR_RUNTIME, "out of memory", "journal");
	}
	return 0;
}

/*
 * Brings apqos's tree to link rate LINK with SUM of guarantees (the
 * default class gets the rest): creates it if absent (or replaces a
 * foreign root, the caller having checked --force), else changes the
 * root class, the default class and the ceil of stations that followed
 * the old link rate. Journalled.
 */
static int tree_ensure(struct qos_ctx *ctx, struct journal *j, const struct qos_tree *t,
		       const struct qos_station *st, size_t nst, uint64_t link, uint64_t sum)
{
	uint64_t def = qos_default_rate(link, sum);
	const struct qos_class_info *ci;
	struct jent e = {.type = J_TREE};
	size_t i;
	int rc;

	if (t->state != QOS_TREE_OURS) {
		rc = qos_tree_create(ctx, t, link, def);
		if (rc < 0)
			return rc;
		if (jadd(j, e) < 0) {
			qos_root_delete_nl(ctx, QOS_HANDLE(0));
			qos_root_restore(ctx);
			return qos_fail(QOS_ERR_RUNTIME, "out of memory", "journal");
		}
		return 0;
	}
	if (!t->has_root_class) {
		/* a damaged tree (class 1:1 deleted by hand): add it back */
		e.type = J_CLASS_ADDED;
		e.classid = QOS_HANDLE(QOS_ROOT_MINOR);
		e.parent = QOS_HANDLE(0);
		if (qos_htb_class(ctx, e.classid, e.parent, link, link, true) < 0)
			return QOS_ERR_RUNTIME;
		if (jadd(j, e) < 0)
			return qos_fail(QOS_ERR_RUNTIME, "out of memory", "journal");
	} else if (link != t->link_rate) {
		ci = qos_tree_class(t, QOS_HANDLE(QOS_ROOT_MINOR));
		rc = class_change(ctx, j, ci->classid, QOS_HANDLE(0), link, link, ci->rate, ci->ceil);
		if (rc < 0)
			return rc;
		for (i = 0; i < nst; i++) {
			if (!st[i].has_class || (st[i].ceil != t->link_rate && st[i].ceil <= link))
				continue;
			rc = class_change(ctx, j, QOS_HANDLE(st[i].minor), QOS_HANDLE(QOS_ROOT_MINOR),
					  st[i].rate, link, st[i].rate, st[i].ceil);
			if (rc < 0)
				return rc;
		}
	}
	ci = qos_tree_class(t, QOS_HANDLE(QOS_DEFAULT_MINOR));
	if (!ci) {
		rc = class_add(ctx, j, QOS_DEFAULT_MINOR, def, link);
		return rc;
	}
	return class_change(ctx, j, ci->classid, QOS_HANDLE(QOS_ROOT_MINOR), def, link, ci->rate,
			    ci->ceil);
}

/* --- commands */

static int bad_station(const char *op, const char *text)
{
	char why[160];

	snprintf(why, sizeof(why), "bad station '%s' (want a MAC address aa:bb:cc:dd:ee:ff, an IPv4 or an IPv6 address)", text);
	return qos_fail(QOS_ERR_USAGE, why, "%s", op);
}

static int bad_rate(const char *op, const char *what, const char *text)
{
	char why[160];

	snprintf(why, sizeof(why), "bad %s '%s' (want e.g. 15M, 15mbit, 1.5G: 8 bit/s to 34 Gbit/s)",
		 what, text);
	return qos_fail(QOS_ERR_USAGE, why, "%s", op);
}

static int refuse_foreign(struct qos_ctx *ctx, const struct qos_tree *t, const char *op,
			  const char *verb)
{
	char d[64], why[200];

	snprintf(why, sizeof(why), "root qdisc %s is not apqos's (--force %s it)",
		 qos_tree_describe_root(t, d, sizeof(d)), verb);
	return qos_fail(QOS_ERR_RUNTIME, why, "%s on %s", op, ctx->ifname);
}

static uint64_t sum_except(const struct qos_station *st, size_t n, unsigned skip_minor)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (st[i].has_class && st[i].minor != skip_minor)
			sum += st[i].rate;
	return sum;
}

int qos_cmd_guarantee(struct qos_ctx *ctx, int argc, char **argv)
{
	struct qos_station *st = NULL, *old = NULL;
	struct journal j = {NULL, 0};
	struct qos_tree t;
	struct sta_addr a;
	unsigned *used = NULL, minor;
	size_t nst = 0, nused = 0, i;
	uint64_t rate, ceil = 0, link, sum;
	char s[STA_ADDR_STRLEN], op[96], r1[32], r2[32], why[160];
	int rc;

	/* STA RATE [ceil RATE] (--ceil RATE is read by main) */
	if (argc != 2 && !(argc == 4 && strcmp(argv[2], "ceil") == 0))
		return qos_fail(QOS_ERR_USAGE, "usage: guarantee STA RATE [--ceil RATE]", "guarantee");
	if (sta_addr_parse(argv[0], &a) < 0)
		return bad_station("guarantee", argv[0]);
	if (qos_parse_rate(argv[1], &rate) < 0)
		return bad_rate("guarantee", "rate", argv[1]);
	if (argc == 4) {
		if (ctx->ceil_opt)
			return qos_fail(QOS_ERR_USAGE, "ceil given twice", "guarantee");
		if (qos_parse_rate(argv[3], &ceil) < 0)
			return bad_rate("guarantee", "ceil", argv[3]);
	} else {
		ceil = ctx->ceil_opt;
	}
	if (ceil && ceil < rate) {
		snprintf(why, sizeof(why), "ceil %s is below the rate %s", qos_format_rate(ceil, r1, sizeof(r1)),
			 qos_format_rate(rate, r2, sizeof(r2)));
		return qos_fail(QOS_ERR_USAGE, why, "guarantee");
	}

	rc = qos_ctx_open(ctx);
	if (rc < 0)
		return rc;
	snprintf(op, sizeof(op), "guarantee %s", sta_addr_format(&a, s, sizeof(s)));
	rc = qos_tree_read(ctx, &t, op);
	if (rc < 0)
		goto out_ctx;
	if (t.state == QOS_TREE_FOREIGN && !ctx->force) {
		rc = refuse_foreign(ctx, &t, op, "replaces");
		goto out;
	}
	rc = qos_root_keep(ctx, &t, op);
	if (rc < 0)
		goto out;
	rc = qos_tree_link_rate(ctx, &t, op, &link);
	if (rc < 0)
		goto out;
	rc = stations_read_full(ctx, &t, op, &st, &nst, &used, &nused);
	if (rc < 0)
		goto out;
	if (!ceil)
		ceil = link;
	if (rate > link || ceil > link) {
		snprintf(why, sizeof(why), "%s %s is above the link rate %s", rate > link ? "rate" : "ceil",
			 qos_format_rate(rate > link ? rate : ceil, r1, sizeof(r1)),
			 qos_format_rate(link, r2, sizeof(r2)));
		rc = qos_fail(QOS_ERR_RUNTIME, why, "%s on %s", op, ctx->ifname);
		goto out;
	}
	for (i = 0; i < nst; i++)
		if (st[i].has_filter && sta_addr_equal(&st[i].addr, &a))
			old = &st[i];
	sum = sum_except(st, nst, old ? old->minor : 0) + rate;
	if (sum > link) {
		snprintf(why, sizeof(why), "the guarantees would total %s, above the link rate %s",
			 qos_format_rate(sum, r1, sizeof(r1)), qos_format_rate(link, r2, sizeof(r2)));
		rc = qos_fail(QOS_ERR_RUNTIME, why, "%s on %s", op, ctx->ifname);
		goto out;
	}
	if (old) {
		minor = old->minor;
	} else {
		unsigned *grown = realloc(used, (nused + nst + 1) * sizeof(*grown));

		if (!grown) {
			rc = qos_fail(QOS_ERR_RUNTIME, "out of memory", "%s", op);
			goto out;
		}
		used = grown;
		for (i = 0; i < nst; i++)
			used[nused++] = st[i].minor;
		minor = qos_alloc_minor(used, nused);
		if (!minor) {
			rc = qos_fail(QOS_ERR_RUNTIME, "no free class id", "%s on %s", op, ctx->ifname);
			goto out;
		}
	}

	/* validated: now change, rolling back on failure */
	rc = tree_ensure(ctx, &j, &t, st, nst, link, sum);
	if (rc == 0 && old && old->has_class)
		rc = class_change(ctx, &j, QOS_HANDLE(minor), QOS_HANDLE(QOS_ROOT_MINOR), rate, ceil,
				  old->rate, old->ceil);
	else if (rc == 0)
		rc = class_add(ctx, &j, minor, rate, ceil);
	if (rc == 0 && !(old && old->has_filter))
		rc = filter_add(ctx, &j, &a, minor);
	if (rc < 0)
		rollback(ctx, &j);
out:
	jfree(&j);
	free(st);
	free(used);
	qos_tree_free(&t);
out_ctx:
	qos_ctx_close(ctx);
	return rc;
}

int qos_cmd_del(struct qos_ctx *ctx, int argc, char **argv)
{
	const struct qos_class_info *ci;
	struct qos_station *st = NULL, *hit = NULL;
	struct journal j = {NULL, 0};
	struct jent e = {.type = J_FILTER_DELETED};
	struct qos_tree t;
	struct sta_addr a;
	size_t nst = 0, i;
	uint64_t link;
	char s[STA_ADDR_STRLEN], op[96];
	int rc, err;

	if (argc != 1)
		return qos_fail(QOS_ERR_USAGE, "usage: del STA", "del");
	if (sta_addr_parse(argv[0], &a) < 0)
		return bad_station("del", argv[0]);
	rc = qos_ctx_open(ctx);
	if (rc < 0)
		return rc;
	snprintf(op, sizeof(op), "del %s", sta_addr_format(&a, s, sizeof(s)));
	rc = qos_tree_read(ctx, &t, op);
	if (rc < 0)
		goto out_ctx;
	if (t.state != QOS_TREE_OURS) {
		rc = qos_fail(QOS_ERR_RUNTIME, "no apqos tree (no guarantees)", "%s on %s", op, ctx->ifname);
		goto out;
	}
	rc = qos_stations_read(ctx, &t, op, &st, &nst);
	if (rc < 0)
		goto out;
	for (i = 0; i < nst; i++)
		if (st[i].has_filter && sta_addr_equal(&st[i].addr, &a))
			hit = &st[i];
	if (!hit) {
		rc = qos_fail(QOS_ERR_RUNTIME, "no guarantee for this station", "%s on %s", op, ctx->ifname);
		goto out;
	}
	/* the default class gets the station's share back first, then the
	 * filter goes, then the class (its pfifo with it) */
	link = t.link_rate;
	ci = qos_tree_class(&t, QOS_HANDLE(QOS_DEFAULT_MINOR));
	if (ci && link)
		rc = class_change(ctx, &j, ci->classid, QOS_HANDLE(QOS_ROOT_MINOR),
				  qos_default_rate(link, sum_except(st, nst, hit->minor)), link,
				  ci->rate, ci->ceil);
	if (rc == 0) {
		err = filter_del_nl(ctx, hit->minor, hit->protocol);
		if (err < 0)
			rc = qos_nl_fail(err, "delete u32 filter pref %u on %s", hit->minor, ctx->ifname);
	}
	if (rc == 0) {
		e.addr = hit->addr;
		e.minor = hit->minor;
		e.proto = hit->protocol;
		if (jadd(&j, e) < 0) {
			filter_add_nl(ctx, &hit->addr, hit->minor);
			rc = qos_fail(QOS_ERR_RUNTIME, "out of memory", "journal");
		}
	}
	if (rc == 0 && hit->has_class)
		rc = qos_htb_class_delete(ctx, QOS_HANDLE(hit->minor), QOS_HANDLE(QOS_ROOT_MINOR));
	if (rc < 0)
		rollback(ctx, &j);
out:
	jfree(&j);
	free(st);
	qos_tree_free(&t);
out_ctx:
	qos_ctx_close(ctx);
	return rc;
}

int qos_cmd_setup(struct qos_ctx *ctx, int argc, char **argv)
{
	struct qos_station *st = NULL;
	struct journal j = {NULL, 0};
	struct qos_tree t;
	size_t nst = 0, i;
	uint64_t link, sum;
	char why[160], r1[32], r2[32];
	int rc;

	(void)argv;
	if (argc != 0)
		return qos_fail(QOS_ERR_USAGE, "usage: setup (takes no arguments)", "setup");
	rc = qos_ctx_open(ctx);
	if (rc < 0)
		return rc;
	rc = qos_tree_read(ctx, &t, "setup");
	if (rc < 0)
		goto out_ctx;
	if (t.state == QOS_TREE_FOREIGN && !ctx->force) {
		rc = refuse_foreign(ctx, &t, "setup", "replaces");
		goto out;
	}
	rc = qos_root_keep(ctx, &t, "setup");
	if (rc < 0)
		goto out;
	rc = qos_tree_link_rate(ctx, &t, "setup", &link);
	if (rc < 0)
		goto out;
	rc = qos_stations_read(ctx, &t, "setup", &st, &nst);
	if (rc < 0)
		goto out;
	sum = sum_except(st, nst, 0);
	for (i = 0; i < nst; i++)
		if (st[i].has_class && st[i].rate > link)
			sum = UINT64_MAX;
	if (sum > link) {
		snprintf(why, sizeof(why), "the guarantees (%s) do not fit in the link rate %s",
			 sum == UINT64_MAX ? "one" : qos_format_rate(sum, r1, sizeof(r1)),
			 qos_format_rate(link, r2, sizeof(r2)));
		rc = qos_fail(QOS_ERR_RUNTIME, why, "setup on %s", ctx->ifname);
		goto out;
	}
	rc = tree_ensure(ctx, &j, &t, st, nst, link, sum);
	if (rc < 0)
		rollback(ctx, &j);
out:
	jfree(&j);
	free(st);
	qos_tree_free(&t);
out_ctx:
	qos_ctx_close(ctx);
	return rc;
}

int qos_cmd_clear(struct qos_ctx *ctx, int argc, char **argv)
{
	struct qos_tree t;
	int rc;

	(void)argv;
	if (argc != 0)
		return qos_fail(QOS_ERR_USAGE, "usage: clear (takes no arguments)", "clear");
	rc = qos_ctx_open(ctx);
	if (rc < 0)
		return rc;
	rc = qos_tree_read(ctx, &t, "clear");
	if (rc < 0)
		goto out_ctx;
	if (t.state == QOS_TREE_FOREIGN && !ctx->force)
		rc = refuse_foreign(ctx, &t, "clear", "removes");
	else if (t.state != QOS_TREE_NONE)
		rc = qos_tree_remove(ctx, &t, "clear");
	qos_tree_free(&t);
out_ctx:
	qos_ctx_close(ctx);
	return rc;
}
