// SPDX-License-Identifier: GPL-2.0
/*
 * nl80211.c - the ap-tools' nl80211 session (socket, family, one request
 * with its replies and errors) and the SET_STATION airtime-weight command.
 * What a reply means is the caller's business (sta_info.c for stations).
 */
#include "nl80211.h"
#include "sta_addr.h"

#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <linux/nl80211.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

int nl80211_open(struct nl80211 *nl, int *not_available, char *err, size_t errlen)
{
	int one = 1, rc;

	nl->sock = NULL;
	nl->family = -1;
	if (not_available)
		*not_available = 0;
	nl->sock = nl_socket_alloc();
	if (!nl->sock) {
		snprintf(err, errlen, "cannot allocate a netlink socket: %s", nl_geterror(-NLE_NOMEM));
		return -1;
	}
	rc = genl_connect(nl->sock);
	if (rc < 0) {
		snprintf(err, errlen, "cannot open a generic netlink socket: %s", nl_geterror(rc));
		goto fail;
	}
	/* the kernel's own words in error replies (extended ACK), and no
	 * copy of our request in them; both are best effort (old kernels) */
	(void)setsockopt(nl_socket_get_fd(nl->sock), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	(void)setsockopt(nl_socket_get_fd(nl->sock), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	rc = genl_ctrl_resolve(nl->sock, "nl80211");
	if (rc == -NLE_OBJ_NOTFOUND) {
		snprintf(err, errlen, "%s", NL80211_NOT_AVAILABLE);
		if (not_available)
			*not_available = 1;
		goto fail;
	}
	if (rc < 0) {
		snprintf(err, errlen, "cannot resolve the nl80211 family: %s", nl_geterror(rc));
		goto fail;
	}
	nl->family = rc;
	return 0;
fail:
	nl_socket_free(nl->sock);
	nl->sock = NULL;
	return -1;
}

void nl80211_close(struct nl80211 *nl)
{
	if (nl->sock)
		nl_socket_free(nl->sock);
	nl->sock = NULL;
	nl->family = -1;
}

int nl80211_ifindex(const char *ifname, char *err, size_t errlen)
{
	unsigned idx;

	if (!ifname || !*ifname) {
		snprintf(err, errlen, "an empty interface name");
		return -1;
	}
	errno = 0;
	idx = if_nametoindex(ifname);
	if (idx == 0) {
		if (errno == 0 || errno == ENODEV || errno == ENXIO || errno == EINVAL)
			snprintf(err, errlen, "%s: no such interface", ifname);
		else
			snprintf(err, errlen, "%s: %s", ifname, strerror(errno));
		return -1;
	}
	return (int)idx;
}

struct nl_msg *nl80211_msg_new(const struct nl80211 *nl, uint8_t cmd, int flags, int ifindex)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0, flags, cmd, 0) ||
	    nla_put_u32(msg, NL80211_ATTR_IFINDEX, (uint32_t)ifindex) < 0) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* What one request came to: the kernel's ACK, DONE or error. */
struct request_state {
	int done;
	int kernel_error;    /* the kernel's -errno, 0 when none */
	char kernel_msg[160]; /* NLMSGERR_ATTR_MSG, when the kernel sent one */
};

/* The extended ACK's message: TLVs after the nlmsgerr (and after the
 * echoed request, unless the kernel capped it), parsed by policy. */
static void read_ext_ack(const struct nlmsghdr *nlh, const struct nlmsgerr *e, struct request_state *st)
{
	static struct nla_policy ack_policy[NLMSGERR_ATTR_MAX + 1] = {
		[NLMSGERR_ATTR_MSG] = {.type = NLA_STRING},
	};
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t payload, off = sizeof(*e);
	const char *text;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*e))
		return;
	payload = nlh->nlmsg_len - NLMSG_HDRLEN;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		if (e->msg.nlmsg_len < NLMSG_HDRLEN)
			return;
		off += NLMSG_ALIGN(e->msg.nlmsg_len - NLMSG_HDRLEN);
	}
	if (off >= payload)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((const char *)e + off), (int)(payload - off),
		      ack_policy) < 0 || !tb[NLMSGERR_ATTR_MSG])
		return;
	text = nla_get_string(tb[NLMSGERR_ATTR_MSG]);
	snprintf(st->kernel_msg, sizeof(st->kernel_msg), "%s", text);
	/* one line, whatever the kernel wrote */
	for (char *p = st->kernel_msg; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
}

static int on_error(struct sockaddr_nl *from, struct nlmsgerr *e, void *arg)
{
	struct request_state *st = arg;
	/* libnl hands us the payload; its header is just before it */
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)((const char *)e - NLMSG_HDRLEN);

	(void)from;
	st->done = 1;
	st->kernel_error = e->error;
	read_ext_ack(nlh, e, st);
	return NL_STOP;
}

static int on_finish(struct nl_msg *msg, void *arg)
{
	struct request_state *st = arg;

	(void)msg;
	st->done = 1;
	return NL_SKIP;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct request_state *st = arg;

	(void)msg;
	st->done = 1;
	return NL_STOP;
}

int nl80211_request(struct nl80211 *nl, struct nl_msg *msg, int (*valid)(struct nl_msg *, void *), void *arg,
		    const char *op, char *err, size_t errlen)
{
	struct request_state st = {0};
	struct nl_cb *cb;
	int rc;

	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		snprintf(err, errlen, "%s: %s", op, nl_geterror(-NLE_NOMEM));
		return -1;
	}
	rc = nl_send_auto(nl->sock, msg);
	if (rc < 0) {
		snprintf(err, errlen, "%s: %s", op, nl_geterror(rc));
		nl_cb_put(cb);
		return -1;
	}
	if (valid)
		nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, valid, arg);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, &st);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &st);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &st);
	while (!st.done) {
		rc = nl_recvmsgs(nl->sock, cb);
		if (rc < 0 && !st.kernel_error) {
			snprintf(err, errlen, "%s: %s", op, nl_geterror(rc));
			nl_cb_put(cb);
			return -1;
		}
	}
	nl_cb_put(cb);
	if (st.kernel_error) {
		if (st.kernel_msg[0])
			snprintf(err, errlen, "%s: %s (kernel: %s)", op, strerror(-st.kernel_error), st.kernel_msg);
		else
			snprintf(err, errlen, "%s: %s", op, strerror(-st.kernel_error));
		return -1;
	}
	return 0;
}

int nl80211_build_set_airtime_weight(struct nl_msg *msg, int family, int ifindex, const uint8_t mac[6],
				     unsigned weight)
{
	int rc;

	if (weight < NL80211_AIRTIME_WEIGHT_MIN || weight > NL80211_AIRTIME_WEIGHT_MAX)
		return -NLE_RANGE;
	if (!msg || !mac || ifindex <= 0 || family <= 0)
		return -NLE_INVAL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, 0, NL80211_CMD_SET_STATION, 0))
		return -NLE_NOMEM;
	rc = nla_put_u32(msg, NL80211_ATTR_IFINDEX, (uint32_t)ifindex);
	if (rc >= 0)
		rc = nla_put(msg, NL80211_ATTR_MAC, 6, mac);
	if (rc >= 0)
		rc = nla_put_u16(msg, NL80211_ATTR_AIRTIME_WEIGHT, (uint16_t)weight);
	return rc < 0 ? rc : 0;
}

int nl80211_set_airtime_weight(const char *ifname, const uint8_t mac[6], unsigned weight, char *err,
			       size_t errlen)
{
	char mac_text[18], op[96], reason[160];
	struct nl80211 nl;
	struct nl_msg *msg;
	int ifindex, rc;

	if (weight < NL80211_AIRTIME_WEIGHT_MIN || weight > NL80211_AIRTIME_WEIGHT_MAX) {
		snprintf(err, errlen, "airtime weight %u out of range (%u..%u)", weight, NL80211_AIRTIME_WEIGHT_MIN,
			 NL80211_AIRTIME_WEIGHT_MAX);
		return -1;
	}
	if (!mac) {
		snprintf(err, errlen, "no station MAC address given");
		return -1;
	}
	ifindex = nl80211_ifindex(ifname, err, errlen);
	if (ifindex < 0)
		return -1;
	sta_addr_format_mac(mac, mac_text, sizeof(mac_text));
	snprintf(op, sizeof(op), "set the airtime weight of %s on %s", mac_text, ifname);
	if (nl80211_open(&nl, NULL, reason, sizeof(reason)) < 0) {
		snprintf(err, errlen, "%s: cannot %s", reason, op);
		return -1;
	}
	msg = nlmsg_alloc();
	if (!msg) {
		snprintf(err, errlen, "%s: %s", op, nl_geterror(-NLE_NOMEM));
		nl80211_close(&nl);
		return -1;
	}
	rc = nl80211_build_set_airtime_weight(msg, nl.family, ifindex, mac, weight);
	if (rc < 0)
		snprintf(err, errlen, "%s: %s", op, nl_geterror(rc));
	else
		rc = nl80211_request(&nl, msg, NULL, NULL, op, err, errlen);
	nlmsg_free(msg);
	nl80211_close(&nl);
	return rc < 0 ? -1 : 0;
}
