/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctl.h - what the tcpavctl command families share.
 *
 * Error contract (as in iw): a handler returns 0 on success or an exit code;
 * on failure it has printed exactly one line, through ctl_error(), naming
 * what was wrong, and has undone anything it had started.
 */
#ifndef TCPAV_CTL_H
#define TCPAV_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "tcpav/abi.h"
#include "tcpav/json.h"

#define CTL_NAME "tcpavctl"
#define CTL_DEFAULT_BTF "/sys/kernel/btf/vmlinux"

struct ctl {
	const char *pin_dir;  /* --pin-dir, default TCPAV_PIN_DIR_DEFAULT */
	const char *btf_path; /* --btf, NULL = the running kernel's */
	bool verbose;
};

struct ctl_cmd {
	const char *name;
	int (*run)(struct ctl *ctl, int argc, char **argv);
	const char *args;
	const char *help;
};

int ctl_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int ctl_require_root(const char *what);
/* kernel.c: 0 when the kernel (--btf FILE, or the running one) has the
 * struct_ops signature tcp_av needs; else 1 after one line naming the kernel
 * version it needs */
int ctl_check_kernel(const struct ctl *ctl, const char *cmd);

/* bpffs.c: the pin directory */
int ctl_pin_path(const struct ctl *ctl, const char *name, char *buf, size_t len);
int ctl_bpffs_ensure(const struct ctl *ctl);
int ctl_pin_dir_create(const struct ctl *ctl);
bool ctl_is_loaded(const struct ctl *ctl);
int ctl_open_pinned_map(const struct ctl *ctl, const char *name);
const char *ctl_cgroup_root(void);
int ctl_self_cgroup(char *buf, size_t len);
/* the rules lock: an fd holding an exclusive flock on the pin directory,
 * or -1 after one error line */
int ctl_lock_rules(const struct ctl *ctl);
void ctl_unlock_rules(int lock_fd);
int ctl_cgroup_id(const char *path, __u64 *id);
int ctl_cgroup_exists(__u64 id);
bool ctl_cc_available(const char *name);

/* command families */
int cmd_load(struct ctl *ctl, int argc, char **argv);
int cmd_unload(struct ctl *ctl, int argc, char **argv);
int cmd_status(struct ctl *ctl, int argc, char **argv);
int cmd_rule(struct ctl *ctl, int argc, char **argv);
int cmd_flows(struct ctl *ctl, int argc, char **argv);
int cmd_exec(struct ctl *ctl, int argc, char **argv);

/* rule.c, also used by exec.c and lifecycle.c */
int rule_insert(const struct ctl *ctl, struct tcpav_rule *rule);
int rule_insert_locked(const struct ctl *ctl, struct tcpav_rule *rule);
int rule_remove(const struct ctl *ctl, uint32_t id, __u64 cgroup_id);
int rule_set_cc(struct tcpav_rule *rule, const char *cc, const char *rate);
/* --dscp NAME|NUMBER into rule (TCPAV_SET_DSCP), or 1 after one error line */
int rule_set_dscp(struct tcpav_rule *rule, const char *text);
int rule_gc(const struct ctl *ctl);

/* exec.c: removes the cgroups of ended execs (caller holds the rules lock) */
void exec_gc_cgroups(void);

#endif /* TCPAV_CTL_H */
