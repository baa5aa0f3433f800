// SPDX-License-Identifier: GPL-2.0
/*
 * exec.c - tcpavctl exec --rate RATE [--cc NAME] -- CMD ...: run CMD in a
 * fresh cgroup v2 whose TCP flows a cgroup rule puts on tcp_av at RATE.
 * The rule and the cgroup exist while CMD runs and are removed after it,
 * also when CMD fails or tcpavctl is interrupted (the signal goes to CMD).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"

static volatile sig_atomic_t child_pid;

static void forward_signal(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
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
	fprintf(stderr, CTL_NAME ": exec: cgroup %s not removed: %s\n", dir, strerror(errno));
}

int cmd_exec(struct ctl *ctl, int argc, char **argv)
{
	static const struct option opts[] = {
		{"rate", required_argument, NULL, 'r'}, {"cc", required_argument, NULL, 'c'}, {0},
	};
	struct tcpav_rule rule;
	const char *rate = NULL, *cc = TCPAV_CC_NAME, *root;
	char dir[PATH_MAX], procs[PATH_MAX + 16];
	int c, status = 0, ret;
	pid_t pid;

	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		printf("Usage: " CTL_NAME " exec --rate RATE [--cc NAME] -- CMD [ARG...]\n"
		       "       " CTL_NAME " exec --cc NAME -- CMD [ARG...]\n");
		return 0;
	}
	memset(&rule, 0, sizeof(rule));
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (c) {
		case 'r': rate = optarg; break;
		case 'c': cc = optarg; break;
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
	root = ctl_cgroup_root();
	if (!root)
		return ctl_error("exec: no cgroup v2 hierarchy mounted");
	snprintf(dir, sizeof(dir), "%s/tcpav-exec-%d", root, (int)getpid());
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	if (mkdir(dir, 0755) < 0)
		return ctl_error("exec: creating cgroup %s: %s", dir, strerror(errno));
	if (ctl_cgroup_id(dir, &rule.cgroup_id)) {
		rmdir(dir);
		return 1;
	}
	rule.match = TCPAV_M_CGROUP;
	if (rule_insert(ctl, &rule)) {
		rmdir(dir);
		return 1;
	}

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret = ctl_error("exec: fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		if (write_file(procs, "0") < 0) {
			fprintf(stderr, CTL_NAME ": exec: joining cgroup %s: %s\n", dir, strerror(errno));
			_exit(126);
		}
		execvp(argv[optind], argv + optind);
		fprintf(stderr, CTL_NAME ": exec: %s: %s\n", argv[optind], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	child_pid = pid;
	signal(SIGINT, forward_signal);
	signal(SIGTERM, forward_signal);
	signal(SIGHUP, forward_signal);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	ret = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
out:
	rule_remove(ctl, rule.id);
	remove_cgroup(dir);
	return ret;
}
