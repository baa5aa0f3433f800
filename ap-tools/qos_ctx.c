// SPDX-License-Identifier: GPL-2.0
/*
 * qos_ctx.c - one apqos invocation's context: the rtnetlink socket, the
 * interface (looked up once), and the one-line error reporting every
 * command handler uses ("apqos: OPERATION: REASON").
 */
#include "qos.h"

#include <stdarg.h>
#include <stdio.h>

#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/socket.h>

static void vfail(const char *reason, const char *fmt, va_list ap)
{
	fputs("apqos: ", stderr);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, ": %s\n", reason);
}

int qos_fail(int code, const char *reason, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(reason, fmt, ap);
	va_end(ap);
	return code;
}

int qos_nl_fail(int nlerr, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(nl_geterror(nlerr), fmt, ap);
	va_end(ap);
	return QOS_ERR_RUNTIME;
}

int qos_ctx_open(struct qos_ctx *ctx)
{
	int err;

	ctx->sk = nl_socket_alloc();
	if (!ctx->sk)
		return qos_fail(QOS_ERR_RUNTIME, "out of memory", "netlink socket");
	err = nl_connect(ctx->sk, NETLINK_ROUTE);
	if (err < 0) {
		qos_nl_fail(err, "connect to rtnetlink");
		qos_ctx_close(ctx);
		return QOS_ERR_RUNTIME;
	}
	err = rtnl_link_get_kernel(ctx->sk, 0, ctx->ifname, &ctx->link);
	if (err < 0) {
		if (err == -NLE_NODEV || err == -NLE_OBJ_NOTFOUND)
			qos_fail(QOS_ERR_RUNTIME, "no such interface", "%s", ctx->ifname);
		else
			qos_nl_fail(err, "look up interface %s", ctx->ifname);
		qos_ctx_close(ctx);
		return QOS_ERR_RUNTIME;
	}
	ctx->ifindex = rtnl_link_get_ifindex(ctx->link);
	ctx->mtu = rtnl_link_get_mtu(ctx->link);
	if (ctx->mtu == 0)
		ctx->mtu = 1500;
	return 0;
}

void qos_ctx_close(struct qos_ctx *ctx)
{
	qos_root_forget(ctx);
	if (ctx->link) {
		rtnl_link_put(ctx->link);
		ctx->link = NULL;
	}
	if (ctx->sk) {
		nl_socket_free(ctx->sk);
		ctx->sk = NULL;
	}
}
