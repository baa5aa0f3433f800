// SPDX-License-Identifier: GPL-2.0
/*
 * lifecycle.c - tcpavctl load / unload / status.
 *
 * load registers the tcp_av struct_ops, pins its map and the shared maps
 * under the pin directory, and attaches the policy sock_ops program to the
 * cgroup v2 root through a pinned link. libbpf 1.1 has no struct_ops links,
 * so the registration outlives this process; unload deletes the struct_ops
 * map element, which unregisters tcp_av (sockets already on it keep a
 * reference and run to their end), then removes every pin. load also runs
 * `rule gc`: what an exec killed with SIGKILL left goes with the next load.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "ctl.h"
#include "policy.skel.h"
#include "tcp_av.skel.h"

static const char *const pin_names[] = {
	TCPAV_PIN_POLICY_LINK, TCPAV_PIN_OPS, TCPAV_PIN_RULES, TCPAV_PIN_TARGETS, TCPAV_PIN_FLOWS,
};

/* Removes every pin and the directory; returns how many pins there were. */
static int remove_pins(const struct ctl *ctl)
{
	char path[PATH_MAX];
	int removed = 0;

	for (size_t i = 0; i < sizeof(pin_names) / sizeof(pin_names[0]); i++) {
		if (ctl_pin_path(ctl, pin_names[i], path, sizeof(path)))
			continue;
		if (unlink(path) == 0)
			removed++;
	}
	rmdir(ctl->pin_dir);
	return removed;
}

/* Deletes the struct_ops element: tcp_av leaves the kernel's CC list. */
static int unregister_ops(int ops_fd)
{
	int zero = 0;

	if (bpf_map_delete_elem(ops_fd, &zero) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

static int no_args(const char *cmd, int argc, char **argv)
{
	if (argc > 1) {
		if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
			printf("Usage: " CTL_NAME " %s\n", cmd);
			return -1;
		}
		return ctl_error("%s: unexpected argument '%s'", cmd, argv[1]);
	}
	return 0;
}

int cmd_load(struct ctl *ctl, int argc, char **argv)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .pin_root_path = ctl->pin_dir, .btf_custom_path = ctl->btf_path);
	struct tcp_av_bpf *cc = NULL;
	struct policy_bpf *policy = NULL;
	struct bpf_link *link = NULL;
	const char *cgroup_root;
	char path[PATH_MAX];
	bool registered = false;
	int cg_fd = -1, err = 1, gc_err = 0, r;

	if ((r = no_args("load", argc, argv)))
		return r < 0 ? 0 : r;
	/* the kernel first: on one without tcp_av's struct_ops signature
	 * nothing else matters, and nothing has been touched yet */
	if (ctl_check_kernel(ctl, "load") || ctl_require_root("load"))
		return 1;
	cgroup_root = ctl_cgroup_root();
	if (!cgroup_root)
		return ctl_error("load: no cgroup v2 hierarchy mounted (looked at /sys/fs/cgroup and /sys/fs/cgroup/unified)");
	if (ctl_bpffs_ensure(ctl))
		return 1;
	if (ctl_is_loaded(ctl)) {
		printf("tcp_av already loaded (pins under %s)\n", ctl->pin_dir);
		return rule_gc(ctl); /* what killed execs left */
	}
	if (ctl_cc_available(TCPAV_CC_NAME))
		return ctl_error("load: a congestion control named tcp_av is registered but not pinned under %s "
				 "(bpftool struct_ops unregister name tcp_av_ops)", ctl->pin_dir);
	remove_pins(ctl); /* leftovers of an interrupted load */
	if (ctl_pin_dir_create(ctl))
		return 1;

	cc = tcp_av_bpf__open_opts(&opts);
	if (!cc) {
		ctl_error("load: opening tcp_av: %s", strerror(errno));
		goto out;
	}
	if (tcp_av_bpf__load(cc)) {
		ctl_error("load: loading tcp_av into the kernel: %s (--verbose shows the verifier log)", strerror(errno));
		goto out;
	}
	link = bpf_map__attach_struct_ops(cc->maps.tcp_av_ops);
	if (!link) {
		ctl_error("load: registering tcp_av: %s", strerror(errno));
		goto out;
	}
	registered = true;
	/* keep the registration when this process exits */
	bpf_link__disconnect(link);
	bpf_link__destroy(link);
	link = NULL;
	if (ctl_pin_path(ctl, TCPAV_PIN_OPS, path, sizeof(path)))
		goto out;
	if (bpf_map__pin(cc->maps.tcp_av_ops, path)) {
		ctl_error("load: pinning %s: %s", path, strerror(errno));
		goto out;
	}

	policy = policy_bpf__open_opts(&opts);
	if (!policy || policy_bpf__load(policy)) {
		ctl_error("load: loading the policy program: %s (--verbose shows the verifier log)", strerror(errno));
		goto out;
	}
	cg_fd = open(cgroup_root, O_RDONLY | O_DIRECTORY);
	if (cg_fd < 0) {
		ctl_error("load: opening %s: %s", cgroup_root, strerror(errno));
		goto out;
	}
	link = bpf_program__attach_cgroup(policy->progs.tcpav_policy, cg_fd);
	if (!link) {
		ctl_error("load: attaching the policy to %s: %s", cgroup_root, strerror(errno));
		goto out;
	}
	if (ctl_pin_path(ctl, TCPAV_PIN_POLICY_LINK, path, sizeof(path)))
		goto out;
	if (bpf_link__pin(link, path)) {
		ctl_error("load: pinning %s: %s", path, strerror(errno));
		goto out;
	}
	printf("tcp_av loaded: pins under %s, policy on cgroup %s\n", ctl->pin_dir, cgroup_root);
	err = 0;
	/* the cgroups of execs killed before an unload or reboot of tcp_av */
	gc_err = rule_gc(ctl);
out:
	if (err) {
		if (registered)
			unregister_ops(bpf_map__fd(cc->maps.tcp_av_ops));
		remove_pins(ctl);
	}
	bpf_link__destroy(link); /* the pin, if made, keeps the attachment */
	if (cg_fd >= 0)
		close(cg_fd);
	policy_bpf__destroy(policy);
	tcp_av_bpf__destroy(cc);
	return err ? err : gc_err;
}

int cmd_unload(struct ctl *ctl, int argc, char **argv)
{
	char path[PATH_MAX];
	int ops_fd, r, pins;

	if ((r = no_args("unload", argc, argv)))
		return r < 0 ? 0 : r;
	if (ctl_require_root("unload"))
		return 1;
	if (ctl_pin_path(ctl, TCPAV_PIN_OPS, path, sizeof(path)))
		return 1;
	ops_fd = bpf_obj_get(path);
	if (ops_fd >= 0) {
		r = unregister_ops(ops_fd);
		close(ops_fd);
		if (r < 0)
			return ctl_error("unload: unregistering tcp_av: %s", strerror(-r));
	} else if (ctl_cc_available(TCPAV_CC_NAME)) {
		return ctl_error("unload: tcp_av is registered but not pinned under %s: not ours to remove",
				 ctl->pin_dir);
	}
	pins = remove_pins(ctl);
	if (ops_fd < 0 && pins == 0)
		printf("tcp_av was not loaded\n");
	else
		printf("tcp_av unloaded\n");
	return 0;
}

static unsigned count_entries(int map_fd, size_t key_size, size_t value_size, bool rules)
{
	unsigned char key[64], next[64], value[256];
	unsigned n = 0;
	void *prev = NULL;

	if (map_fd < 0 || key_size > sizeof(key) || value_size > sizeof(value))
		return 0;
	while (bpf_map_get_next_key(map_fd, prev, next) == 0) {
		memcpy(key, next, key_size);
		prev = key;
		if (!rules)
			n++;
		else if (bpf_map_lookup_elem(map_fd, key, value) == 0 && ((struct tcpav_rule *)value)->id)
			n++;
	}
	return n;
}

int cmd_status(struct ctl *ctl, int argc, char **argv)
{
	bool json = false, loaded;
	char path[PATH_MAX];
	struct stat st;
	unsigned rules = 0, flows = 0;
	int fd;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = true;
		else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return printf("Usage: " CTL_NAME " status [--json]\n"), 0;
		else
			return ctl_error("status: unexpected argument '%s'", argv[i]);
	}
	if (access(ctl->pin_dir, R_OK | X_OK) < 0 && errno == EACCES)
		return ctl_error("status: cannot read %s: %s (needs root)", ctl->pin_dir, strerror(errno));
	loaded = ctl_is_loaded(ctl);
	if (loaded) {
		if (ctl_pin_path(ctl, TCPAV_PIN_RULES, path, sizeof(path)) == 0 && (fd = bpf_obj_get(path)) >= 0) {
			rules = count_entries(fd, sizeof(__u32), sizeof(struct tcpav_rule), true);
			close(fd);
		}
		if (ctl_pin_path(ctl, TCPAV_PIN_FLOWS, path, sizeof(path)) == 0 && (fd = bpf_obj_get(path)) >= 0) {
			flows = count_entries(fd, sizeof(struct tcpav_flow_key), sizeof(struct tcpav_flow_info), false);
			close(fd);
		}
	}
	bool policy = ctl_pin_path(ctl, TCPAV_PIN_POLICY_LINK, path, sizeof(path)) == 0 && stat(path, &st) == 0;
	bool foreign = !loaded && ctl_cc_available(TCPAV_CC_NAME);

	if (json) {
		struct tcpav_json j;

		tcpav_json_init(&j, stdout);
		tcpav_json_object_begin(&j, NULL);
		tcpav_json_bool(&j, "loaded", loaded);
		tcpav_json_bool(&j, "registered", ctl_cc_available(TCPAV_CC_NAME));
		tcpav_json_bool(&j, "policy_attached", policy);
		tcpav_json_string(&j, "pin_dir", ctl->pin_dir);
		tcpav_json_string(&j, "cgroup_root", ctl_cgroup_root() ? ctl_cgroup_root() : "");
		tcpav_json_u64(&j, "rules", rules);
		tcpav_json_u64(&j, "flows", flows);
		tcpav_json_object_end(&j);
		tcpav_json_end_line(&j);
		return 0;
	}
	if (!loaded) {
		printf("tcp_av: not loaded%s\n", foreign ? " (a tcp_av not pinned by tcpavctl is registered)" : "");
		return 0;
	}
	printf("tcp_av: loaded\npins: %s\npolicy: %s\nrules: %u\nflows: %u\n", ctl->pin_dir,
	       policy ? "attached" : "not attached", rules, flows);
	return 0;
}
