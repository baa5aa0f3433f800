// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tcpav.c - libtcpav: put a socket on tcp_av with a target rate.
 *
 * The target lives in the pinned socket-storage map tcpav_targets, which
 * user space may fill keyed by a socket fd; tcp_av reads it at init and
 * once per round trip, so a change mid-flow takes effect within an RTT.
 */
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "tcpav/abi.h"
#include "tcpav/tcpav.h"

const char *tcpav_pin_dir(void)
{
	const char *dir = getenv("TCPAV_PIN_DIR");

	return dir && *dir ? dir : TCPAV_PIN_DIR_DEFAULT;
}

static int targets_map_open(void)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", tcpav_pin_dir(), TCPAV_PIN_TARGETS) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return bpf_obj_get(path);
}

int tcpav_set_target(int fd, uint64_t bits_per_second)
{
	struct tcpav_sk_target old, val = {.target_bps = bits_per_second};
	char old_cc[TCPAV_CC_NAME_MAX] = "";
	socklen_t cc_len = sizeof(old_cc);
	int map, had_old, err;

	if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, old_cc, &cc_len) < 0)
		return -1;
	map = targets_map_open();
	if (map < 0)
		return -1;
	had_old = bpf_map_lookup_elem(map, &fd, &old) == 0;
	if (bpf_map_update_elem(map, &fd, &val, BPF_ANY) < 0)
		goto fail;
	if (setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, TCPAV_CC_NAME, strlen(TCPAV_CC_NAME)) < 0) {
		/* leave the socket as it was */
		err = errno;
		if (had_old)
			bpf_map_update_elem(map, &fd, &old, BPF_ANY);
		else
			bpf_map_delete_elem(map, &fd);
		errno = err;
		goto fail;
	}
	close(map);
	return 0;
fail:
	err = errno;
	close(map);
	errno = err;
	return -1;
}

int tcpav_get_target(int fd, uint64_t *bits_per_second)
{
	struct tcpav_sk_target val;
	int map, err;

	map = targets_map_open();
	if (map < 0)
		return -1;
	if (bpf_map_lookup_elem(map, &fd, &val) == 0) {
		*bits_per_second = val.target_bps;
	} else if (errno == ENOENT) {
		*bits_per_second = 0;
	} else {
		err = errno;
		close(map);
		errno = err;
		return -1;
	}
	close(map);
	return 0;
}
