// SPDX-License-Identifier: GPL-2.0
/*
 * kernel.c - does this kernel have what tcp_av is built for?
 *
 * tcp_av implements cong_control with the prototype of Linux 6.10 (commit
 * 57bfc7605ca5, "tcp: Add new args for cong_control in tcp_congestion_ops"):
 *
 *   void (*cong_control)(struct sock *sk, u32 ack, int flag, const struct rate_sample *rs);
 *
 * Before 6.10 it took (sk, rs), and the kernel refuses the struct_ops map
 * with a bare EINVAL. The kernel's BTF says which one it has, so load asks
 * it first and, on an older kernel, refuses in one line before anything is
 * created, pinned or registered.
 */
#include <errno.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "ctl.h"

#define NEEDED_KERNEL "6.10"
#define CONG_CONTROL_ARGS 4 /* sk, ack, flag, rs */

/* The number of parameters of the function pointer member `name` of
 * struct `type` in btf: >= 0, -ENOENT without that struct or member,
 * -EINVAL when the member is not a function pointer. */
static int fn_member_args(const struct btf *btf, const char *type, const char *name)
{
	const struct btf_type *t, *ptr, *proto;
	const struct btf_member *m;
	__s32 id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
	int target;

	if (id < 0)
		return -ENOENT;
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	for (unsigned i = 0; i < btf_vlen(t); i++, m++) {
		if (strcmp(btf__name_by_offset(btf, m->name_off), name) != 0)
			continue;
		target = btf__resolve_type(btf, m->type);
		ptr = target < 0 ? NULL : btf__type_by_id(btf, target);
		if (!ptr || !btf_is_ptr(ptr))
			return -EINVAL;
		target = btf__resolve_type(btf, ptr->type);
		proto = target < 0 ? NULL : btf__type_by_id(btf, target);
		if (!proto || !btf_is_func_proto(proto))
			return -EINVAL;
		return btf_vlen(proto);
	}
	return -ENOENT;
}

int ctl_check_kernel(const struct ctl *ctl, const char *cmd)
{
	struct utsname uts;
	char what[320];
	struct btf *btf;
	int args;

	if (ctl->btf_path) {
		if (access(ctl->btf_path, R_OK) < 0)
			return ctl_error("%s: kernel BTF %s: %s (tcp_av needs a kernel with CONFIG_DEBUG_INFO_BTF)", cmd,
					 ctl->btf_path, strerror(errno));
		btf = btf__parse(ctl->btf_path, NULL);
		snprintf(what, sizeof(what), "the kernel described by %s", ctl->btf_path);
	} else {
		if (access(CTL_DEFAULT_BTF, R_OK) < 0)
			return ctl_error("%s: kernel BTF %s: %s (tcp_av needs a kernel with CONFIG_DEBUG_INFO_BTF)", cmd,
					 CTL_DEFAULT_BTF, strerror(errno));
		btf = btf__load_vmlinux_btf();
		snprintf(what, sizeof(what), "this kernel (%s)", uname(&uts) == 0 ? uts.release : "?");
	}
	if (!btf) {
		const char *path = ctl->btf_path ? ctl->btf_path : CTL_DEFAULT_BTF;
		char msg[128];

		/* the file is there (access() above): libbpf's ENOENT means an
		 * ELF without a .BTF section, not a missing file */
		if (errno == ENOENT)
			return ctl_error("%s: kernel BTF %s: the file has no BTF (an ELF without a .BTF section)", cmd,
					 path);
		libbpf_strerror(errno, msg, sizeof(msg)); /* also libbpf's own codes */
		return ctl_error("%s: kernel BTF %s: not raw BTF or an ELF with a .BTF section (%s)", cmd, path, msg);
	}
	args = fn_member_args(btf, "tcp_congestion_ops", "cong_control");
	btf__free(btf);
	if (args == CONG_CONTROL_ARGS)
		return 0;
	if (args < 0)
		return ctl_error("%s: %s has no usable tcp_congestion_ops.cong_control in its BTF: "
				 "tcp_av needs Linux " NEEDED_KERNEL " or later", cmd, what);
	return ctl_error("%s: %s is too old for tcp_av: it needs Linux " NEEDED_KERNEL " or later, whose "
			 "tcp_congestion_ops.cong_control takes %d arguments (here %d)", cmd, what, CONG_CONTROL_ARGS, args);
}
