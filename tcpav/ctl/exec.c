// SPDX-License-Identifier: GPL-2.0
/*
 * exec.c - tcpavctl exec --rate RATE [--cc NAME] [--dscp DSCP] -- CMD ...:
 * run CMD in a fresh cgroup v2 whose TCP flows a cgroup rule puts on tcp_av
 * at RATE (and marks with DSCP).
 * The rule and the cgroup exist while CMD runs and are removed after it,
 * also when CMD fails or tcpavctl is interrupted (the signal goes to CMD).
 *
 * The cgroup, tcpav-exec-PID, is made below the caller's own cgroup, so
 * CMD stays where the caller's resource limits and accounting put it (a
 * systemd service, a container). tcpavctl holds a flock on it while it
 * runs: that is how `rule gc` (and load) tell the cgroup of a running exec
 * from one whose tcpavctl was killed with SIGKILL, without trusting a PID
 * that may have been reused. CMD itself gets SIGKILL when tcpavctl dies
 * (PR_SET_PDEATHSIG), as if the kill had reached both.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"

#define EXEC_CGROUP_PREFIX "tcpav-exec-"

static volatile sig_atomic_t child_pid, pending_signal;

static void forward_signal(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
	else
		pending_signal = sig; /* CMD is not started yet: it gets it then */
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	if (n < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* The first line of the file NAME in the directory dir_fd, '\n' removed. */
static int read_line_at(int dir_fd, const char *name, char *buf, size_t len)
{
	int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* Whether processes live in the cgroup dir_fd or below it: 1, 0, or -1. */
static int cgroup_populated(int dir_fd)
{
	char buf[256];
	const char *p;

	if (read_line_at(dir_fd, "cgroup.events", buf, sizeof(buf)) < 0)
		return -1;
	/* the first line is "populated 0|1" */
	p = strstr(buf, "populated ");
	return p ? p[10] == '1' : -1;
}

/*
 * The cgroup NAME (open as cg_fd) below parent_fd, made by an exec: removes
 * it when its tcpavctl has ended (its flock is free) and no process is left
 * in it. Returns 1 when removed. With report, says on stdout what it
 * removed or why it kept a cgroup of an ended exec.
 */
static int reap_exec_cgroup(int parent_fd, const char *name, int cg_fd, const char *path, bool report)
{
	int populated;

	if (flock(cg_fd, LOCK_EX | LOCK_NB) < 0)
		return 0; /* its tcpavctl runs */
	populated = cgroup_populated(cg_fd);
	if (populated != 0) {
		if (report && populated > 0)
			printf("kept cgroup %s: its exec has ended, but processes still run in it\n", path);
		return 0;
	}
	if (unlinkat(parent_fd, name, AT_REMOVEDIR) < 0) {
		if (report)
			printf("kept cgroup %s: its exec has ended, but removing it failed: %s\n", path, strerror(errno));
		return 0;
	}
	if (report)
		printf("removed cgroup %s: its exec has ended\n", path);
	return 1;
}

/* Depth first, so the cgroup of an exec run inside another exec goes first. */
static void gc_walk(int dir_fd, const char *path, int depth)
{
	struct dirent *de;
	DIR *d;
	int fd = dup(dir_fd);

	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		char sub[PATH_MAX];
		int sub_fd;

		if (de->d_type != DT_DIR || strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name) >= (int)sizeof(sub))
			continue;
		sub_fd = openat(dir_fd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub_fd < 0)
			continue;
		if (depth < 64)
			gc_walk(sub_fd, sub, depth + 1);
		if (strncmp(de->d_name, EXEC_CGROUP_PREFIX, strlen(EXEC_CGROUP_PREFIX)) == 0)
			reap_exec_cgroup(dir_fd, de->d_name, sub_fd, sub, true);
		close(sub_fd);
	}
	closedir(d);
}

/* Exec cgroups may be anywhere below the root: the whole tree is walked. */
void exec_gc_cgroups(void)
{
	const char *root = ctl_cgroup_root();
	int fd;

	if (!root)
		return;
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	gc_walk(fd, root, 0);
	close(fd);
}

/*
 * Makes the cgroup NAME below parent (the caller's cgroup) and returns an
 * fd of it holding its flock, or -1 after one error line. An older cgroup of
 * that name (a killed exec whose PID came round again) is reaped first.
 */
static int exec_cgroup_create(const char *parent, const char *name, const char *dir)
{
	char type[64];
	int parent_fd, fd, made;

	parent_fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (parent_fd < 0) {
		ctl_error("exec: opening the caller's cgroup %s: %s", parent, strerror(errno));
		return -1;
	}
	made = mkdirat(parent_fd, name, 0755);
	if (made < 0 && errno == EEXIST) {
		fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0) {
			reap_exec_cgroup(parent_fd, name, fd, dir, false);
			close(fd);
		}
		made = mkdirat(parent_fd, name, 0755);
	}
	if (made < 0) {
		ctl_error("exec: cannot create cgroup %s below the caller's cgroup: %s", dir, strerror(errno));
		close(parent_fd);
		return -1;
	}
	fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
		ctl_error("exec: cannot open and lock cgroup %s: %s", dir, strerror(errno));
		goto fail;
	}
	/* A child of a threaded cgroup cannot take processes (cgroup.procs
	 * refuses them): say so now, before any rule exists. */
	if (read_line_at(fd, "cgroup.type", type, sizeof(type)) == 0 && strcmp(type, "domain") != 0) {
		ctl_error("exec: the caller's cgroup %s is in a threaded subtree (new child is '%s'): "
			  "run exec from a domain cgroup", parent, type);
		goto fail;
	}
	close(parent_fd);
	return fd;
fail:
	if (fd >= 0)
		close(fd);
	unlinkat(parent_fd, name, AT_REMOVEDIR);
	close(parent_fd);
	return -1;
}

/* rmdir fails while processes CMD left behind are in the cgroup: wait a bit. */
static void remove_cgroup(const char *dir)
{
	for (int i = 0; i < 50; i++) {
		if (rmdir(dir) == 0 || errno == ENOENT)
			return;
		if (errno != EBUSY)
			break;
		nanosleep(&(struct timespec){.tv_nsec = 20000000}, NULL);
	}
	fprintf(stderr, CTL_NAME ": exec: cgroup %s not removed: %s (" CTL_NAME " rule gc removes it once empty)\n",
		dir, strerror(errno));
}

/* In the child, before CMD: die with tcpavctl, join the cgroup. */
static void child_enter(pid_t parent, const char *dir, const char *procs)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(128 + SIGKILL); /* tcpavctl died before the prctl */
	if (write_file(procs, "0") < 0) {
		int e = errno;

		fprintf(stderr, CTL_NAME ": exec: moving the command into cgroup %s: %s%s\n", dir, strerror(e),
			e == EBUSY ? " (controllers are enabled in its parent's cgroup.subtree_control)"
			: e == EOPNOTSUPP ? " (the caller's cgroup is threaded)"
					  : "");
		_exit(126);
	}
}

int cmd_exec(struct ctl *ctl, int argc, char **argv)
{
	static const struct option opts[] = {
		{"rate", required_argument, NULL, 'r'},
		{"cc", required_argument, NULL, 'c'},
		{"dscp", required_argument, NULL, 'q'},
		{0},
	};
	struct tcpav_rule rule;
	const char *rate = NULL, *cc = TCPAV_CC_NAME;
	char parent[PATH_MAX], name[32], dir[PATH_MAX + 32], procs[PATH_MAX + 48];
	int c, status = 0, ret, lock, cg_fd;
	pid_t pid, self = getpid();

	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		printf("Usage: " CTL_NAME " exec --rate RATE [--cc NAME] [--dscp DSCP] -- CMD [ARG...]\n"
		       "       " CTL_NAME " exec --cc NAME [--dscp DSCP] -- CMD [ARG...]\n"
		       "DSCP: a name (CS0-CS7, AF11-AF43, EF, VA, LE, DF) or 0-63, set on CMD's TCP flows.\n");
		return 0;
	}
	memset(&rule, 0, sizeof(rule));
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (c) {
		case 'r': rate = optarg; break;
		case 'c': cc = optarg; break;
		case 'q':
			if (rule_set_dscp(&rule, optarg))
				return 1;
			break;
		default: return ctl_error("exec: unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return ctl_error("exec: no command given (exec --rate RATE -- CMD ...)");
	if (!rate && strcmp(cc, TCPAV_CC_NAME) == 0)
		return ctl_error("exec: --rate RATE is required with tcp_av");
	if (rule_set_cc(&rule, cc, rate) || ctl_require_root("exec"))
		return 1;
	if (!ctl_is_loaded(ctl))
		return ctl_error("exec: tcp_av is not loaded: run '" CTL_NAME " load' first");
	if (ctl_self_cgroup(parent, sizeof(parent)))
		return 1;
	snprintf(name, sizeof(name), EXEC_CGROUP_PREFIX "%d", (int)self);
	snprintf(dir, sizeof(dir), "%s/%s", parent, name);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);

	/* from here a signal is held for CMD rather than ending tcpavctl
	 * between the rule and the fork */
	signal(SIGINT, forward_signal);
	signal(SIGTERM, forward_signal);
	signal(SIGHUP, forward_signal);
	/* cgroup and rule under the rules lock, so that a concurrent gc never
	 * sees the cgroup before its flock is held */
	lock = ctl_lock_rules(ctl);
	if (lock < 0)
		return 1;
	cg_fd = exec_cgroup_create(parent, name, dir);
	if (cg_fd < 0) {
		ctl_unlock_rules(lock);
		return 1;
	}
	if (ctl_cgroup_id(dir, &rule.cgroup_id)) {
		ctl_unlock_rules(lock);
		rmdir(dir);
		close(cg_fd);
		return 1;
	}
	rule.match = TCPAV_M_CGROUP;
	if (rule_insert_locked(ctl, &rule)) {
		ctl_unlock_rules(lock);
		rmdir(dir);
		close(cg_fd);
		return 1;
	}
	ctl_unlock_rules(lock);

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = ctl_error("exec: fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		child_enter(self, dir, procs);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, CTL_NAME ": exec: %s: %s\n", argv[optind], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	child_pid = pid;
	if (pending_signal)
		kill(pid, pending_signal);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	ret = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
out:
	rule_remove(ctl, rule.id, rule.cgroup_id);
	remove_cgroup(dir);
	close(cg_fd); /* its flock: from now on gc may take what is left */
	return ret;
}
