/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nl80211.h - a small nl80211 session on libnl-genl-3, as iw keeps one:
 * the generic netlink socket, the resolved "nl80211" family, one request
 * and its replies, and the one error contract of the ap-tools.
 *
 * Error contract: a function that can fail returns 0 (or a value >= 0) on
 * success and -1 on failure, with ONE line (no newline, no program name)
 * in ERR naming the operation and the reason: libnl's nl_geterror() for
 * local failures, strerror() of the kernel's error and, when the kernel
 * sent one (extended ACK), its own message. The caller prints
 * "PROGRAM: ERR". Builders that touch no socket return a negative libnl
 * error code (-NLE_*) instead, for nl_geterror().
 */
#ifndef APTOOLS_NL80211_H
#define APTOOLS_NL80211_H

#include <stddef.h>
#include <stdint.h>

#include <netlink/genl/genl.h>
#include <netlink/msg.h>

/* What nl80211_open() says when the kernel has no nl80211 family
 * (genl_ctrl_resolve() gives -NLE_OBJ_NOTFOUND: cfg80211 is not built or
 * not loaded). Callers append ": cannot ... on IFACE". */
#define NL80211_NOT_AVAILABLE "nl80211 not available (no cfg80211 in this kernel)"

/* Airtime weights nl80211 accepts (NL80211_ATTR_AIRTIME_WEIGHT, u16, 0 is
 * rejected by the kernel's policy). */
#define NL80211_AIRTIME_WEIGHT_MIN 1u
#define NL80211_AIRTIME_WEIGHT_MAX 65535u

struct nl80211 {
	struct nl_sock *sock;
	int family; /* the resolved generic netlink family id of "nl80211" */
};

/*
 * Opens the session: socket, genl_connect(), genl_ctrl_resolve("nl80211").
 * -1 with ERR set on failure; *nl then holds nothing to close. When the
 * family is missing, ERR is exactly NL80211_NOT_AVAILABLE and
 * *not_available (if given) is set to 1, else to 0.
 */
int nl80211_open(struct nl80211 *nl, int *not_available, char *err, size_t errlen);
void nl80211_close(struct nl80211 *nl);

/* if_nametoindex(IFNAME), or -1 with "IFNAME: no such interface" (or the
 * system's reason) in ERR. */
int nl80211_ifindex(const char *ifname, char *err, size_t errlen);

/*
 * A new request message: generic netlink header for the session's family
 * with command CMD and netlink FLAGS (e.g. NLM_F_DUMP), and
 * NL80211_ATTR_IFINDEX. NULL when out of memory.
 */
struct nl_msg *nl80211_msg_new(const struct nl80211 *nl, uint8_t cmd, int flags, int ifindex);

/*
 * Sends MSG (not freed) and reads the replies until the kernel's ACK, its
 * NLMSG_DONE, or its error. Each reply is handed to VALID(msg, ARG) (a
 * libnl NL_CB_VALID callback; may be NULL for commands that only ACK).
 * OP names the operation for ERR ("dump stations on wlan0"). 0 or -1.
 * VALID returns NL_OK/NL_SKIP to go on; it reports its own errors through
 * ARG, as nothing here knows what it parses.
 */
int nl80211_request(struct nl80211 *nl, struct nl_msg *msg, int (*valid)(struct nl_msg *, void *), void *arg,
		    const char *op, char *err, size_t errlen);

/*
 * Fills the empty MSG with NL80211_CMD_SET_STATION for FAMILY:
 * NL80211_ATTR_IFINDEX, NL80211_ATTR_MAC, NL80211_ATTR_AIRTIME_WEIGHT (u16).
 * 0, or -NLE_RANGE for a WEIGHT outside 1..65535, -NLE_INVAL for a bad
 * ifindex or no MAC, -NLE_NOMEM / -NLE_MSGSIZE from libnl. Touches no socket.
 */
int nl80211_build_set_airtime_weight(struct nl_msg *msg, int family, int ifindex, const uint8_t mac[6],
				     unsigned weight);

/*
 * Sets the mac80211 airtime weight of station MAC on IFNAME (what
 * `iw dev IFNAME station set MAC airtime_weight WEIGHT` does). Checks, in
 * this order and before any netlink: WEIGHT in 1..65535, IFNAME exists;
 * then opens a session, sends, waits for the ACK, closes. 0, or -1 with
 * one line in ERR, e.g.
 *   "airtime weight 0 out of range (1..65535)"
 *   "wlan9: no such interface"
 *   "nl80211 not available (no cfg80211 in this kernel): cannot set the
 *    airtime weight of 02:00:00:00:00:01 on wlan0"       (one line)
 *   "set the airtime weight of 02:00:00:00:00:01 on wlan0: No such file or
 *    directory"                                           (one line)
 */
int nl80211_set_airtime_weight(const char *ifname, const uint8_t mac[6], unsigned weight, char *err,
			       size_t errlen);

#endif /* APTOOLS_NL80211_H */
