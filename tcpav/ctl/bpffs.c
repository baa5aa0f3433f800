// SPDX-License-Identifier: GPL-2.0
/*
 * bpffs.c - the places tcpavctl keeps things: the pin directory on bpffs,
 * the cgroup v2 hierarchy, the kernel's list of congestion controls.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "ctl.h"

int ctl_pin_path(const struct ctl *ctl, const char *name, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s", ctl->pin_dir, name);

	if (n < 0 || (size_t)n >= len)
		return ctl_error("pin path too long: %s/%s", ctl->pin_dir, name);
	return 0;
}

static bool is_fs(const char *path, long magic)
{
	struct statfs st;

	return statfs(path, &st) == 0 && st.f_type == magic;
}

/*
 * The pin directory's parent must be a BPF filesystem. For the default
 * place, /sys/fs/bpf, mount bpffs there if it is missing, as bpftool does.
 */
int ctl_bpffs_ensure(const struct ctl *ctl)
{
	char parent[PATH_MAX];
	char *slash;

	if (snprintf(parent, sizeof(parent), "%s", ctl->pin_dir) >= (int)sizeof(parent))
		return ctl_error("pin directory too long: %s", ctl->pin_dir);
	slash = strrchr(parent, '/');
	if (!slash || slash == parent)
		return ctl_error("pin directory %s: must be a directory below a BPF filesystem", ctl->pin_dir);
	*slash = '\0';
	if (!is_fs(parent, BPF_FS_MAGIC)) {
		if (strcmp(parent, "/sys/fs/bpf") != 0)
			return ctl_error("%s is not a BPF filesystem (mount -t bpf bpf %s)", parent, parent);
		if (mount("bpf", parent, "bpf", 0, "mode=0700") < 0)
			return ctl_error("cannot mount bpffs on %s: %s", parent, strerror(errno));
	}
	return 0;
}

int ctl_pin_dir_create(const struct ctl *ctl)
{
	if (mkdir(ctl->pin_dir, 0700) < 0 && errno != EEXIST)
		return ctl_error("cannot create %s: %s", ctl->pin_dir, strerror(errno));
	return 0;
}

/* Loaded means: the struct_ops map is pinned and still registered. */
bool ctl_is_loaded(const struct ctl *ctl)
{
	char path[PATH_MAX];
	struct stat st;

	if (snprintf(path, sizeof(path), "%s/%s", ctl->pin_dir, TCPAV_PIN_OPS) >= (int)sizeof(path))
		return false;
	return stat(path, &st) == 0 && ctl_cc_available(TCPAV_CC_NAME);
}

int ctl_open_pinned_map(const struct ctl *ctl, const char *name)
{
	char path[PATH_MAX];
	int fd;

	if (ctl_pin_path(ctl, name, path, sizeof(path)))
		return -1;
	fd = bpf_obj_get(path);
	if (fd < 0) {
		if (errno == ENOENT)
			ctl_error("tcp_av is not loaded (no %s): run '" CTL_NAME " load' first", path);
		else
			ctl_error("cannot open %s: %s", path, strerror(errno));
	}
	return fd;
}

/*
 * Writers of tcpav_rules (rule add/del/gc, exec) take an exclusive flock on
 * the pin directory itself: an array map has no compare-and-set (BPF_NOEXIST
 * is refused for arrays), so choosing a free slot and the next id is a
 * read-then-write that two tcpavctl processes could interleave. A flock is
 * what iptables (xtables.lock) and flock(1) users know: it is released when
 * the holder exits, even by SIGKILL, so no stale lock is left, and readers
 * (rule list, the policy program) need none because every slot is written in
 * one map update. bpffs holds no regular files, so the directory is the lock.
 * Holders keep it for a few map operations; waiting 5 s means a stuck holder.
 */
int ctl_lock_rules(const struct ctl *ctl)
{
	int fd = open(ctl->pin_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		if (errno == ENOENT)
			ctl_error("tcp_av is not loaded (no %s): run '" CTL_NAME " load' first", ctl->pin_dir);
		else
			ctl_error("cannot open %s: %s", ctl->pin_dir, strerror(errno));
		return -1;
	}
	for (int i = 0; flock(fd, LOCK_EX | LOCK_NB) < 0; i++) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			ctl_error("cannot lock %s: %s", ctl->pin_dir, strerror(errno));
			close(fd);
			return -1;
		}
		if (i == 500) {
			ctl_error("another " CTL_NAME " has held the rules lock on %s for 5 s", ctl->pin_dir);
			close(fd);
			return -1;
		}
		nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
	}
	return fd;
}

void ctl_unlock_rules(int lock_fd)
{
	if (lock_fd >= 0)
		close(lock_fd); /* releases the flock */
}

/* cgroup v2: /sys/fs/cgroup on unified systems, else the hybrid mount. */
const char *ctl_cgroup_root(void)
{
	if (is_fs("/sys/fs/cgroup", CGROUP2_SUPER_MAGIC))
		return "/sys/fs/cgroup";
	if (is_fs("/sys/fs/cgroup/unified", CGROUP2_SUPER_MAGIC))
		return "/sys/fs/cgroup/unified";
	return NULL;
}

/*
 * The cgroup v2 directory this process belongs to: the "0::PATH" line of
 * /proc/self/cgroup, below the mount ctl_cgroup_root() finds (in a cgroup
 * namespace both are relative to the namespace's root, so they agree).
 */
int ctl_self_cgroup(char *buf, size_t len)
{
	const char *root = ctl_cgroup_root();
	char line[PATH_MAX + 8];
	FILE *f;
	int n = -1;

	if (!root)
		return ctl_error("no cgroup v2 hierarchy mounted (looked at /sys/fs/cgroup and /sys/fs/cgroup/unified)");
	f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return ctl_error("cannot read /proc/self/cgroup: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::/", 4) != 0)
			continue;
		line[strcspn(line, "\n")] = '\0';
		/* "0::/" is the root itself */
		n = snprintf(buf, len, "%s%s", root, strcmp(line + 3, "/") == 0 ? "" : line + 3);
		break;
	}
	fclose(f);
	if (n < 0)
		return ctl_error("/proc/self/cgroup has no cgroup v2 line (0::PATH)");
	if ((size_t)n >= len)
		return ctl_error("cgroup path too long: %s", line + 3);
	return 0;
}

/* A cgroup's id is its kernfs node id, which name_to_handle_at returns. */
int ctl_cgroup_id(const char *path, __u64 *id)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h;
	int mount_id;

	if (!is_fs(path, CGROUP2_SUPER_MAGIC))
		return ctl_error("--cgroup %s: not a cgroup v2 directory", path);
	h.fh.handle_bytes = sizeof(h.id);
	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0) < 0)
		return ctl_error("--cgroup %s: %s", path, strerror(errno));
	memcpy(id, h.fh.f_handle, sizeof(*id));
	return 0;
}

/*
 * Whether the cgroup with this id still exists: 1 yes, 0 no, -1 cannot
 * tell. cgroup2 file handles are the kernfs id that name_to_handle_at gives
 * (ctl_cgroup_id); opening one of a removed cgroup fails with ESTALE. Ids
 * are not reused while the system runs, so a rule for a removed cgroup can
 * never match again.
 */
int ctl_cgroup_exists(__u64 id)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h;
	const char *root = ctl_cgroup_root();
	int mount_id, root_fd, fd, ret;

	if (!root)
		return -1;
	root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0)
		return -1;
	/* the root's own handle gives the handle type (FILEID_KERNFS) */
	h.fh.handle_bytes = sizeof(h.id);
	if (name_to_handle_at(root_fd, "", &h.fh, &mount_id, AT_EMPTY_PATH) < 0) {
		close(root_fd);
		return -1;
	}
	h.fh.handle_bytes = sizeof(h.id);
	memcpy(h.fh.f_handle, &id, sizeof(id));
	fd = open_by_handle_at(root_fd, &h.fh, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		ret = 1;
	} else {
		ret = errno == ESTALE || errno == ENOENT ? 0 : -1;
	}
	close(root_fd);
	return ret;
}

bool ctl_cc_available(const char *name)
{
	char line[1024];
	bool found = false;
	FILE *f = fopen("/proc/sys/net/ipv4/tcp_available_congestion_control", "r");

	if (!f)
		return false;
	if (fgets(line, sizeof(line), f)) {
		for (char *save, *tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
			if (strcmp(tok, name) == 0)
				found = true;
	}
	fclose(f);
	return found;
}
