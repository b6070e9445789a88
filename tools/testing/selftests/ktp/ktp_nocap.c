// SPDX-License-Identifier: GPL-2.0
/*
 * ktp_nocap: run a command as root without CAP_BPF and CAP_SYS_ADMIN
 * (either lets a writer load BPF programs as bpf_token_capable() sees
 * it), for the tests of what a definition needs.
 *
 *   ktp_nocap COMMAND [ARGS...]
 *
 * Both go from the bounding set, so that root's exec of COMMAND does not
 * get them back, and from the effective, permitted and inheritable sets.
 */
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../kselftest.h"

static void die(const char *what)
{
	perror(what);
	exit(1);
}

int main(int argc, char *argv[])
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	static const int drop[] = { CAP_BPF, CAP_SYS_ADMIN };
	unsigned int i, bit;

	if (argc < 2) {
		fprintf(stderr, "usage: %s COMMAND [ARGS...]\n", argv[0]);
		return 2;
	}
	if (syscall(SYS_capget, &hdr, data))
		die("capget");
	for (i = 0; i < ARRAY_SIZE(drop); i++) {
		if (prctl(PR_CAPBSET_DROP, drop[i], 0, 0, 0))
			die("PR_CAPBSET_DROP");
		bit = 1U << (drop[i] % 32);
		data[drop[i] / 32].effective &= ~bit;
		data[drop[i] / 32].permitted &= ~bit;
		data[drop[i] / 32].inheritable &= ~bit;
	}
	if (syscall(SYS_capset, &hdr, data))
		die("capset");
	execvp(argv[1], argv + 1);
	die(argv[1]);
}
