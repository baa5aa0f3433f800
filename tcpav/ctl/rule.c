// SPDX-License-Identifier: GPL-2.0
/*
 * rule.c - tcpavctl rule add / del / list / gc: the rules the policy
 * program applies at connect and accept (see tcpav/bpf/policy.bpf.c).
 *
 * Rules sit in the pinned array tcpav_rules; a slot with id 0 is free. A
 * rule is written in one map update, so the program never sees half a rule.
 * Writers hold the rules lock (ctl_lock_rules in bpffs.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "ctl.h"
#include "tcpav/dscp.h"
#include "tcpav/tcpav.h"

static int parse_port(const char *opt, const char *text, __u16 *port)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || end == text || *end || v < 1 || v > 65535)
		return ctl_error("%s '%s': not a port (1-65535)", opt, text);
	*port = (__u16)v;
	return 0;
}

/* ADDR[/LEN], IPv4 or IPv6 */
static int parse_prefix(const char *opt, const char *text, __u16 *family, __u32 addr[4], __u8 *len)
{
	char buf[INET6_ADDRSTRLEN + 8];
	char *slash, *end;
	long bits;
	int max;

	if (snprintf(buf, sizeof(buf), "%s", text) >= (int)sizeof(buf))
		return ctl_error("%s '%s': not an address", opt, text);
	slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	memset(addr, 0, 16);
	if (inet_pton(AF_INET, buf, addr) == 1) {
		*family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, buf, addr) == 1) {
		*family = AF_INET6;
		max = 128;
	} else {
		return ctl_error("%s '%s': not an IPv4 or IPv6 address", opt, text);
	}
	bits = max;
	if (slash) {
		errno = 0;
		bits = strtol(slash + 1, &end, 10);
		if (errno || end == slash + 1 || *end || bits < 0 || bits > max)
			return ctl_error("%s '%s': prefix length must be 0-%d", opt, text, max);
	}
	*len = (__u8)bits;
	return 0;
}

int rule_set_cc(struct tcpav_rule *rule, const char *cc, const char *rate)
{
	if (!cc)
		return ctl_error("rule: --cc NAME is required");
	if (strlen(cc) >= TCPAV_CC_NAME_MAX)
		return ctl_error("--cc '%s': name too long", cc);
	if (!ctl_cc_available(cc))
		return ctl_error("--cc '%s': unknown congestion control (see net.ipv4.tcp_available_congestion_control)", cc);
	if (rate) {
		if (strcmp(cc, TCPAV_CC_NAME) != 0)
			return ctl_error("--rate applies only to --cc tcp_av, not '%s'", cc);
		uint64_t bps;

		if (tcpav_parse_rate(rate, &bps) < 0)
			return ctl_error("--rate '%s': not a rate (bits/s, e.g. 8M, 500k, 1.5G)", rate);
		rule->rate_bps = bps;
	}
	snprintf(rule->cc, sizeof(rule->cc), "%s", cc);
	return 0;
}

int rule_set_dscp(struct tcpav_rule *rule, const char *text)
{
	unsigned dscp;

	if (tcpav_parse_dscp(text, &dscp) < 0) {
		if (errno == ERANGE)
			return ctl_error("--dscp '%s': a DSCP is 0-63 (the TOS byte is the DSCP times 4)", text);
		return ctl_error("--dscp '%s': not a DSCP (CS0-CS7, AF11-AF43, EF, VA, LE, DF, or 0-63)", text);
	}
	rule->dscp = (__u8)dscp;
	rule->set |= TCPAV_SET_DSCP;
	return 0;
}

/* The rule's DSCP as --dscp takes it: its name, else its number; "-" when
 * the rule sets none. */
static const char *dscp_text(const struct tcpav_rule *r, char *buf, size_t len)
{
	const char *name;

	if (!(r->set & TCPAV_SET_DSCP))
		return "-";
	name = tcpav_dscp_name(r->dscp);
	if (name)
		return name;
	snprintf(buf, len, "%u", r->dscp);
	return buf;
}

/*
 * The pinned rules map, or -1 after one error line. A map pinned by an
 * older tcpavctl holds shorter rules (the kernel would cut what is written
 * to its size, and leave the rest of what is read undefined), and its
 * policy program knows nothing of the newer fields: refused.
 */
static int rules_map_open(const struct ctl *ctl)
{
	struct bpf_map_info info;
	__u32 info_len = sizeof(info);
	int fd = ctl_open_pinned_map(ctl, TCPAV_PIN_RULES);

	if (fd < 0)
		return -1;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &info_len) < 0) {
		ctl_error("rule: reading the rules map's info: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (info.value_size != sizeof(struct tcpav_rule)) {
		ctl_error("rule: the pinned %s holds %u-byte rules where this " CTL_NAME " has %zu-byte ones: another "
			  "version loaded it (run '" CTL_NAME " unload', then '" CTL_NAME " load')",
			  TCPAV_PIN_RULES, info.value_size, sizeof(struct tcpav_rule));
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Writes rule into a free slot with the next id (one more than the highest
 * in use) and sets rule->id. The caller holds the rules lock
 * (ctl_lock_rules), so no other tcpavctl picks the same slot or id.
 */
int rule_insert_locked(const struct ctl *ctl, struct tcpav_rule *rule)
{
	struct tcpav_rule slot;
	__u32 free_slot = TCPAV_MAX_RULES, max_id = 0;
	int fd = rules_map_open(ctl);

	if (fd < 0)
		return 1;
	for (__u32 i = 0; i < TCPAV_MAX_RULES; i++) {
		if (bpf_map_lookup_elem(fd, &i, &slot) < 0) {
			close(fd);
			return ctl_error("rule: reading rule slot %u: %s", i, strerror(errno));
		}
		if (slot.id == 0 && free_slot == TCPAV_MAX_RULES)
			free_slot = i;
		if (slot.id > max_id)
			max_id = slot.id;
	}
	if (free_slot == TCPAV_MAX_RULES) {
		close(fd);
		return ctl_error("rule add: all %d rule slots are in use", TCPAV_MAX_RULES);
	}
	rule->id = max_id + 1;
	if (bpf_map_update_elem(fd, &free_slot, rule, BPF_ANY) < 0) {
		close(fd);
		return ctl_error("rule add: writing the rule: %s", strerror(errno));
	}
	close(fd);
	return 0;
}

int rule_insert(const struct ctl *ctl, struct tcpav_rule *rule)
{
	int lock = ctl_lock_rules(ctl), r;

	if (lock < 0)
		return 1;
	r = rule_insert_locked(ctl, rule);
	ctl_unlock_rules(lock);
	return r;
}

/* Empties the slot of rule id (and, when cgroup_id is not 0, of that
 * cgroup: exec removes only its own rule, even if its id was deleted and
 * given to another since). The caller holds the rules lock. */
static int rule_remove_locked(int fd, uint32_t id, __u64 cgroup_id)
{
	struct tcpav_rule slot, empty;

	memset(&empty, 0, sizeof(empty));
	for (__u32 i = 0; i < TCPAV_MAX_RULES; i++) {
		if (bpf_map_lookup_elem(fd, &i, &slot) == 0 && slot.id == id &&
		    (cgroup_id == 0 || ((slot.match & TCPAV_M_CGROUP) && slot.cgroup_id == cgroup_id))) {
			if (bpf_map_update_elem(fd, &i, &empty, BPF_ANY) < 0)
				return ctl_error("rule del %u: %s", id, strerror(errno));
			return 0;
		}
	}
	return ctl_error("rule del: no rule with id %u", id);
}

/* The rules lock, then the pinned rules map: its fd, or -1 (one line
 * printed) with nothing held. rules_map_release undoes both. */
static int rules_map_acquire(const struct ctl *ctl, int *lock)
{
	int fd;

	*lock = ctl_lock_rules(ctl);
	if (*lock < 0)
		return -1;
	fd = rules_map_open(ctl);
	if (fd < 0)
		ctl_unlock_rules(*lock);
	return fd;
}

static void rules_map_release(int fd, int lock)
{
	close(fd);
	ctl_unlock_rules(lock);
}

int rule_remove(const struct ctl *ctl, uint32_t id, __u64 cgroup_id)
{
	int lock, fd, r;

	fd = rules_map_acquire(ctl, &lock);
	if (fd < 0)
		return 1;
	r = rule_remove_locked(fd, id, cgroup_id);
	rules_map_release(fd, lock);
	return r;
}

/*
 * rule gc: what a `tcpavctl exec` killed with SIGKILL (or a cgroup removed
 * by hand) leaves behind. First the exec cgroups whose tcpavctl has ended
 * and in which no process runs any more (exec_gc_cgroups), then every
 * cgroup rule whose cgroup no longer exists. A cgroup in which processes
 * still run is kept, with its rule: they are what the rule is for, and gc
 * kills nothing. Prints one line per thing removed or kept.
 */
int rule_gc(const struct ctl *ctl)
{
	struct tcpav_rule slot, empty;
	int lock, fd, err = 0;

	fd = rules_map_acquire(ctl, &lock);
	if (fd < 0)
		return 1;
	exec_gc_cgroups();
	memset(&empty, 0, sizeof(empty));
	for (__u32 i = 0; i < TCPAV_MAX_RULES; i++) {
		if (bpf_map_lookup_elem(fd, &i, &slot) < 0 || slot.id == 0 || !(slot.match & TCPAV_M_CGROUP))
			continue;
		if (ctl_cgroup_exists(slot.cgroup_id) != 0)
			continue; /* exists, or cannot tell: keep */
		if (bpf_map_update_elem(fd, &i, &empty, BPF_ANY) < 0) {
			err = ctl_error("rule gc: removing rule %u: %s", slot.id, strerror(errno));
			break;
		}
		printf("removed rule %u: its cgroup (id %llu) no longer exists\n", slot.id,
		       (unsigned long long)slot.cgroup_id);
	}
	rules_map_release(fd, lock);
	return err;
}

static int rule_add(struct ctl *ctl, int argc, char **argv)
{
	static const struct option opts[] = {
		{"sport", required_argument, NULL, 's'}, {"dport", required_argument, NULL, 'd'},
		{"src", required_argument, NULL, 'S'},   {"dst", required_argument, NULL, 'D'},
		{"cgroup", required_argument, NULL, 'g'}, {"cc", required_argument, NULL, 'c'},
		{"rate", required_argument, NULL, 'r'},  {"dscp", required_argument, NULL, 'q'},
		{0},
	};
	struct tcpav_rule rule;
	const char *cc = NULL, *rate = NULL;
	__u16 src_family = 0, dst_family = 0;
	char buf[32];
	int c;

	memset(&rule, 0, sizeof(rule));
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (parse_port("--sport", optarg, &rule.sport))
				return 1;
			rule.match |= TCPAV_M_SPORT;
			break;
		case 'd':
			if (parse_port("--dport", optarg, &rule.dport))
				return 1;
			rule.match |= TCPAV_M_DPORT;
			break;
		case 'S':
			if (parse_prefix("--src", optarg, &src_family, rule.src, &rule.src_len))
				return 1;
			rule.match |= TCPAV_M_SRC;
			break;
		case 'D':
			if (parse_prefix("--dst", optarg, &dst_family, rule.dst, &rule.dst_len))
				return 1;
			rule.match |= TCPAV_M_DST;
			break;
		case 'g':
			if (ctl_cgroup_id(optarg, &rule.cgroup_id))
				return 1;
			rule.match |= TCPAV_M_CGROUP;
			break;
		case 'c': cc = optarg; break;
		case 'r': rate = optarg; break;
		case 'q':
			if (rule_set_dscp(&rule, optarg))
				return 1;
			break;
		default:
			return ctl_error("rule add: unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return ctl_error("rule add: unexpected argument '%s'", argv[optind]);
	if (src_family && dst_family && src_family != dst_family)
		return ctl_error("rule add: --src and --dst are of different address families");
	rule.family = src_family ? src_family : dst_family;
	if (rule_set_cc(&rule, cc, rate))
		return 1;
	if (ctl_require_root("rule add") || rule_insert(ctl, &rule))
		return 1;
	printf("rule %u: %s", rule.id, rule.cc);
	if (rule.rate_bps)
		printf(" at %s", tcpav_format_rate(rule.rate_bps, buf, sizeof(buf)));
	if (rule.set & TCPAV_SET_DSCP)
		printf(", DSCP %s", dscp_text(&rule, buf, sizeof(buf)));
	printf("\n");
	return 0;
}

static void addr_text(__u16 family, const __u32 *addr, __u8 len, char *buf, size_t size)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(family, addr, a, sizeof(a));
	snprintf(buf, size, "%s/%u", a, len);
}

static int rule_list(struct ctl *ctl, int argc, char **argv)
{
	struct tcpav_rule r;
	bool json = false;
	char src[64], dst[64], rate[32], dscp[8];
	const char *dscp_name;
	struct tcpav_json j;
	int fd;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") != 0)
			return ctl_error("rule list: unexpected argument '%s'", argv[i]);
		json = true;
	}
	fd = rules_map_open(ctl);
	if (fd < 0)
		return 1;
	tcpav_json_init(&j, stdout);
	if (json)
		tcpav_json_array_begin(&j, NULL);
	else
		printf("%-4s %-8s %-12s %-5s %-6s %-6s %-20s %-20s %s\n", "ID", "CC", "TARGET", "DSCP", "SPORT", "DPORT",
		       "SRC", "DST", "CGROUP");
	for (__u32 i = 0; i < TCPAV_MAX_RULES; i++) {
		if (bpf_map_lookup_elem(fd, &i, &r) < 0 || r.id == 0)
			continue;
		strcpy(src, "*");
		strcpy(dst, "*");
		if (r.match & TCPAV_M_SRC)
			addr_text(r.family, r.src, r.src_len, src, sizeof(src));
		if (r.match & TCPAV_M_DST)
			addr_text(r.family, r.dst, r.dst_len, dst, sizeof(dst));
		r.cc[sizeof(r.cc) - 1] = '\0';
		if (json) {
			/* rate_bps is the tcp_av target: target_bps, as in flows */
			tcpav_json_object_begin(&j, NULL);
			tcpav_json_u64(&j, "id", r.id);
			tcpav_json_string(&j, "cc", r.cc);
			tcpav_json_u64(&j, "target_bps", r.rate_bps);
			if (r.match & TCPAV_M_SPORT)
				tcpav_json_u64(&j, "sport", r.sport);
			if (r.match & TCPAV_M_DPORT)
				tcpav_json_u64(&j, "dport", r.dport);
			if (r.match & TCPAV_M_SRC)
				tcpav_json_string(&j, "src", src);
			if (r.match & TCPAV_M_DST)
				tcpav_json_string(&j, "dst", dst);
			if (r.match & TCPAV_M_CGROUP)
				tcpav_json_u64(&j, "cgroup_id", r.cgroup_id);
			/* the number, and the name when it has one */
			if (r.set & TCPAV_SET_DSCP) {
				tcpav_json_u64(&j, "dscp", r.dscp);
				dscp_name = tcpav_dscp_name(r.dscp);
				if (dscp_name)
					tcpav_json_string(&j, "dscp_name", dscp_name);
			}
			tcpav_json_object_end(&j);
			continue;
		}
		char sport[8] = "*", dport[8] = "*", cg[24] = "*";

		if (r.match & TCPAV_M_SPORT)
			snprintf(sport, sizeof(sport), "%u", r.sport);
		if (r.match & TCPAV_M_DPORT)
			snprintf(dport, sizeof(dport), "%u", r.dport);
		if (r.match & TCPAV_M_CGROUP)
			snprintf(cg, sizeof(cg), "id:%llu", (unsigned long long)r.cgroup_id);
		printf("%-4u %-8s %-12s %-5s %-6s %-6s %-20s %-20s %s\n", r.id, r.cc,
		       r.rate_bps ? tcpav_format_rate(r.rate_bps, rate, sizeof(rate)) : "-",
		       dscp_text(&r, dscp, sizeof(dscp)), sport, dport, src, dst, cg);
	}
	if (json) {
		tcpav_json_array_end(&j);
		tcpav_json_end_line(&j);
	}
	close(fd);
	return 0;
}

static int rule_del(struct ctl *ctl, int argc, char **argv)
{
	char *end;
	unsigned long id;

	if (argc != 2)
		return ctl_error("rule del: usage: rule del ID");
	errno = 0;
	id = strtoul(argv[1], &end, 10);
	if (errno || end == argv[1] || *end || id == 0 || id > UINT32_MAX)
		return ctl_error("rule del: '%s' is not a rule id", argv[1]);
	if (ctl_require_root("rule del") || rule_remove(ctl, (uint32_t)id, 0))
		return 1;
	printf("rule %lu deleted\n", id);
	return 0;
}

static const char rule_usage[] =
	"Usage: " CTL_NAME " rule add [--sport P] [--dport P] [--src ADDR[/LEN]] [--dst ADDR[/LEN]]\n"
	"                          [--cgroup PATH] --cc NAME [--rate RATE] [--dscp DSCP]\n"
	"       " CTL_NAME " rule del ID\n"
	"       " CTL_NAME " rule list [--json]\n"
	"       " CTL_NAME " rule gc\n"
	"DSCP: a name (CS0-CS7, AF11-AF43, EF, VA, LE, DF) or 0-63, set as the flow's IP_TOS /\n"
	"IPV6_TCLASS. On a WMM access point AF41 is queued as video (AC_VI), EF as voice\n"
	"(AC_VO) under RFC 8325 but as video under the plain precedence mapping.\n";

static bool wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return true;
	return false;
}

int cmd_rule(struct ctl *ctl, int argc, char **argv)
{
	if (wants_help(argc, argv)) {
		fputs(rule_usage, stdout);
		return 0;
	}
	if (argc < 2)
		return ctl_error("rule: expected add, del, list or gc");
	if (strcmp(argv[1], "add") == 0)
		return rule_add(ctl, argc - 1, argv + 1);
	if (strcmp(argv[1], "del") == 0)
		return rule_del(ctl, argc - 1, argv + 1);
	if (strcmp(argv[1], "list") == 0)
		return rule_list(ctl, argc - 1, argv + 1);
	if (strcmp(argv[1], "gc") == 0) {
		if (argc > 2)
			return ctl_error("rule gc: unexpected argument '%s'", argv[2]);
		if (ctl_require_root("rule gc"))
			return 1;
		return rule_gc(ctl);
	}
	return ctl_error("rule: unknown subcommand '%s' (add, del, list, gc)", argv[1]);
}
