// SPDX-License-Identifier: GPL-2.0
/*
 * qos_show.c - `apqos show [--json]`: apqos's classes on the interface
 * (link, default, one a station) with rate, ceil, station and the
 * kernel's live counters (bytes, packets, drops, overlimits, backlog,
 * qlen: the same numbers `tc -s class show` prints).
 */
#include "qos.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcpav/json.h"
#include <linux/pkt_sched.h>

static const char *role_of(uint32_t classid)
{
	unsigned minor = classid & 0xffffu;

	if (classid >> 16 != QOS_MAJOR)
		return "other";
	if (minor == QOS_ROOT_MINOR)
		return "link";
	if (minor == QOS_DEFAULT_MINOR)
		return "default";
	if (minor >= QOS_STA_MINOR_FIRST && minor <= QOS_STA_MINOR_LAST)
		return "station";
	return "other";
}

static const struct qos_station *station_of(const struct qos_station *st, size_t n, uint32_t classid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (QOS_HANDLE(st[i].minor) == classid && st[i].has_filter)
			return &st[i];
	return NULL;
}

static const char *tree_name(enum qos_tree_state s)
{
	switch (s) {
	case QOS_TREE_OURS: return "apqos";
	case QOS_TREE_FOREIGN: return "foreign";
	default: return "none";
	}
}

static void show_json(struct qos_ctx *ctx, const struct qos_tree *t, const struct qos_station *st,
		      size_t nst)
{
	char h[16], p[16], s[STA_ADDR_STRLEN], d[64];
	struct tcpav_json j;
	size_t i;

	tcpav_json_init(&j, stdout);
	tcpav_json_object_begin(&j, NULL);
	tcpav_json_string(&j, "interface", ctx->ifname); /* may hold quotes or backslashes */
	tcpav_json_string(&j, "tree", tree_name(t->state));
	tcpav_json_string(&j, "root_qdisc", t->root_kind[0] ? qos_tree_describe_root(t, d, sizeof(d)) : "");
	tcpav_json_u64(&j, "link_rate_bps", t->link_rate);
	tcpav_json_array_begin(&j, "classes");
	for (i = 0; t->state == QOS_TREE_OURS && i < t->nclasses; i++) {
		const struct qos_class_info *c = &t->classes[i];
		const struct qos_station *sta = station_of(st, nst, c->classid);

		tcpav_json_object_begin(&j, NULL);
		tcpav_json_string(&j, "class", qos_format_handle(c->classid, h, sizeof(h)));
		tcpav_json_string(&j, "parent", c->parent == TC_H_ROOT ? "root" : qos_format_handle(c->parent, p, sizeof(p)));
		tcpav_json_string(&j, "role", role_of(c->classid));
		tcpav_json_string(&j, "station", sta ? sta_addr_format(&sta->addr, s, sizeof(s)) : NULL);
		tcpav_json_string(&j, "match", sta ? sta_kind_name(sta->addr.kind) : NULL);
		tcpav_json_u64(&j, "rate_bps", c->rate);
		tcpav_json_u64(&j, "ceil_bps", c->ceil);
		tcpav_json_u64(&j, "bytes", c->bytes);
		tcpav_json_u64(&j, "packets", c->packets);
		tcpav_json_u64(&j, "drops", c->drops);
		tcpav_json_u64(&j, "overlimits", c->overlimits);
		tcpav_json_u64(&j, "backlog", c->backlog);
		tcpav_json_u64(&j, "qlen", c->qlen);
		tcpav_json_object_end(&j);
	}
	tcpav_json_array_end(&j);
	tcpav_json_object_end(&j);
	tcpav_json_end_line(&j);
}

static void show_text(struct qos_ctx *ctx, const struct qos_tree *t, const struct qos_station *st,
		      size_t nst)
{
	char h[16], s[STA_ADDR_STRLEN], r1[32], r2[32], d[64];
	size_t i;

	if (t->state != QOS_TREE_OURS) {
		if (t->state == QOS_TREE_FOREIGN)
			printf("%s: no apqos tree (root qdisc %s is not apqos's)\n", ctx->ifname,
			       qos_tree_describe_root(t, d, sizeof(d)));
		else
			printf("%s: no apqos tree\n", ctx->ifname);
		return;
	}
	printf("%s: apqos tree htb 1:, link rate %s\n", ctx->ifname,
	       qos_format_rate(t->link_rate, r1, sizeof(r1)));
	printf("%-8s %-8s %-40s %13s %13s %14s %10s %7s %10s %8s\n", "CLASS", "ROLE", "STATION", "RATE",
	       "CEIL", "BYTES", "PACKETS", "DROPS", "OVERLIMITS", "BACKLOG");
	for (i = 0; i < t->nclasses; i++) {
		const struct qos_class_info *c = &t->classes[i];
		const struct qos_station *sta = station_of(st, nst, c->classid);

		printf("%-8s %-8s %-40s %13s %13s %14llu %10llu %7llu %10llu %8llu\n",
		       qos_format_handle(c->classid, h, sizeof(h)), role_of(c->classid),
		       sta ? sta_addr_format(&sta->addr, s, sizeof(s)) : "-",
		       qos_format_rate(c->rate, r1, sizeof(r1)), qos_format_rate(c->ceil, r2, sizeof(r2)),
		       (unsigned long long)c->bytes, (unsigned long long)c->packets,
		       (unsigned long long)c->drops, (unsigned long long)c->overlimits,
		       (unsigned long long)c->backlog);
	}
}

int qos_cmd_show(struct qos_ctx *ctx, int argc, char **argv)
{
	struct qos_station *st = NULL;
	struct qos_tree t;
	size_t nst = 0;
	int rc;

	(void)argv;
	if (argc != 0)
		return qos_fail(QOS_ERR_USAGE, "usage: show [--json]", "show");
	rc = qos_ctx_open(ctx);
	if (rc < 0)
		return rc;
	rc = qos_tree_read(ctx, &t, "show");
	if (rc < 0)
		goto out_ctx;
	rc = qos_stations_read(ctx, &t, "show", &st, &nst);
	if (rc == 0) {
		if (ctx->json)
			show_json(ctx, &t, st, nst);
		else
			show_text(ctx, &t, st, nst);
		if (fflush(stdout) != 0)
			rc = qos_fail(QOS_ERR_RUNTIME, "write error", "show");
	}
	free(st);
	qos_tree_free(&t);
out_ctx:
	qos_ctx_close(ctx);
	return rc;
}
