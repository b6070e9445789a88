// SPDX-License-Identifier: GPL-2.0
/*
 * ktp_load: hit vfs_read() and signal_generate as fast as one CPU can.
 *
 *   ktp_load SECONDS
 *   ktp_load syscall NR COUNT
 *
 * Alternates a read of /dev/zero and a SIGUSR1 to itself (ignored) until
 * SECONDS have passed, then prints how many of each it made; exits 1 if
 * either was none. Or makes COUNT system calls NR, a number no system
 * call has, which sys_enter sees and which fail with ENOSYS: hits of
 * sys_enter nothing else makes.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int bad_syscalls(long nr, long count)
{
	long i;

	if (nr < 512 || count < 0)
		return 2;
	for (i = 0; i < count; i++) {
		if (syscall(nr) != -1)
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long reads = 0, signals = 0;
	int fd = open("/dev/zero", O_RDONLY);
	time_t end;
	char buf[64];

	if (argc == 4 && !strcmp(argv[1], "syscall"))
		return bad_syscalls(atol(argv[2]), atol(argv[3]));
	if (argc != 2 || fd < 0)
		return 2;
	signal(SIGUSR1, SIG_IGN);
	end = time(NULL) + atoi(argv[1]);
	while (time(NULL) < end) {
		reads += read(fd, buf, 1 + reads % sizeof(buf)) > 0;
		signals += !kill(getpid(), SIGUSR1);
	}
	printf("ktp_load: %ld reads, %ld signals\n", reads, signals);
	/* a load that hit nothing is no load */
	return reads && signals ? 0 : 1;
}
