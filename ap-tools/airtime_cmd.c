// SPDX-License-Identifier: GPL-2.0
/*
 * airtime_cmd.c - `apqos airtime STA WEIGHT`: a station's mac80211 airtime
 * weight, through nl80211.c (nl80211_set_airtime_weight). Owns the
 * argument checks (STA must be a MAC, WEIGHT 1..65535) only.
 */
#include "qos.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "nl80211.h"

int qos_parse_weight(const char *text, unsigned *weight)
{
	unsigned long v;
	char *end;

	if (!text || *text < '0' || *text > '9')
		return -1;
	errno = 0;
	v = strtoul(text, &end, 10);
	if (errno || *end || v < 1 || v > 65535)
		return -1;
	*weight = (unsigned)v;
	return 0;
}

int qos_cmd_airtime(struct qos_ctx *ctx, int argc, char **argv)
{
	struct sta_addr a;
	unsigned weight;
	char why[160], err[256];
	int rc;

	if (argc != 2)
		return qos_fail(QOS_ERR_USAGE, "usage: airtime STA WEIGHT", "airtime");
	if (sta_addr_parse(argv[0], &a) < 0) {
		snprintf(why, sizeof(why), "bad station '%s' (want a MAC address aa:bb:cc:dd:ee:ff)", argv[0]);
		return qos_fail(QOS_ERR_USAGE, why, "airtime");
	}
	if (a.kind != STA_MAC) {
		snprintf(why, sizeof(why), "'%s' is an IP address: airtime weights are set by MAC address", argv[0]);
		return qos_fail(QOS_ERR_USAGE, why, "airtime");
	}
	if (qos_parse_weight(argv[1], &weight) < 0) {
		snprintf(why, sizeof(why), "bad weight '%s' (want an integer 1..65535)", argv[1]);
		return qos_fail(QOS_ERR_USAGE, why, "airtime");
	}
	rc = qos_ctx_open(ctx); /* the interface must exist */
	if (rc < 0)
		return rc;
	qos_ctx_close(ctx);
	if (nl80211_set_airtime_weight(ctx->ifname, a.mac, weight, err, sizeof(err)) < 0) {
		fprintf(stderr, "apqos: %s\n", err);
		return QOS_ERR_RUNTIME;
	}
	return 0;
}
