// SPDX-License-Identifier: GPL-2.0
/*
 * A program for KTP's user-space probe tests.
 *   ktp_uprobe offset           print the file offset of target()
 *   ktp_uprobe data-offset      print the file offset of a variable
 *   ktp_uprobe loop N           call target(i, i * 2, "hello") N times,
 *                               print the sum of what it returned
 *   ktp_uprobe until FILE       call it so, 100 us apart, until FILE
 *                               exists; print "ok" if every call returned
 *                               what it should
 *   ktp_uprobe fork N           call it once, fork, call it N times in
 *                               the child; print the child's sum
 *   ktp_uprobe exec N           call it once, then exec "loop N"
 *   ktp_uprobe offset8          print the file offset of target8()
 *   ktp_uprobe loop8 N          call target8(i, 1, 2, 3, 4, 5, 70 + i,
 *                               80 + i) N times, print the sum
 *   ktp_uprobe mapped FILE      call target(1, 2, s) once, with s the
 *                               first byte of FILE mapped, untouched
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

long target(long a, long b, const char *s);

long target(long a, long b, const char *s)
{
	return a + b + s[0];
}

/* A variable in the data the program maps from its file */
long ktp_data = 1;

/* Eight arguments: the seventh and eighth are on the stack */
long target8(long a, long b, long c, long d, long e, long f, long g, long h)
{
	return a + b + c + d + e + f + g + h;
}

/* target()'s offset in this program's file, from /proc/self/maps */
static unsigned long file_offset(void *addr)
{
	unsigned long start, end, offs;
	char line[512], perms[8];
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s %lx", &start, &end, perms, &offs) != 4)
			continue;
		if ((uintptr_t)addr >= start && (uintptr_t)addr < end)
			return (uintptr_t)addr - start + offs;
	}
	exit(2);
}

int main(int argc, char **argv)
{
	long (*call_target)(long, long, const char *) = target;
	long i, n, sum = 0;

	/* the compiler cannot tell what it calls: target() is not inlined */
	asm("" : "+r" (call_target));

	if (argc >= 2 && !strcmp(argv[1], "offset")) {
		printf("0x%lx\n", file_offset((void *)target));
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "loop")) {
		n = atol(argv[2]);
		for (i = 0; i < n; i++)
			sum += call_target(i, i * 2, "hello");
		printf("%ld\n", sum);
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "data-offset")) {
		printf("0x%lx\n", file_offset((void *)&ktp_data));
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "offset8")) {
		printf("0x%lx\n", file_offset((void *)target8));
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "loop8")) {
		long (*call_target8)(long, long, long, long, long, long, long,
				     long) = target8;

		asm("" : "+r" (call_target8));
		n = atol(argv[2]);
		for (i = 0; i < n; i++)
			sum += call_target8(i, 1, 2, 3, 4, 5, 70 + i, 80 + i);
		printf("%ld\n", sum);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "until")) {
		for (i = 0; ; i++) {
			if (call_target(i, i * 2, "hello") != 3 * i + 'h')
				return 3;
			if (i % 64 == 0 && !access(argv[2], F_OK))
				break;
			/*
			 * A bounded rate: a tight loop fills the trace
			 * buffer before the test's wait sees its hits, and
			 * the buffer, which overwrites, loses the first.
			 */
			usleep(100);
		}
		printf("ok\n");
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "fork")) {
		int status;
		pid_t pid;

		sum = call_target(0, 0, "hello");
		pid = fork();
		if (pid < 0)
			return 2;
		if (!pid) {
			n = atol(argv[2]);
			for (i = 0; i < n; i++)
				sum += call_target(i, i * 2, "hello");
			printf("%ld\n", sum);
			return 0;
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
			return 2;
		return WEXITSTATUS(status);
	}
	if (argc >= 3 && !strcmp(argv[1], "exec")) {
		call_target(0, 0, "hello");
		execl("/proc/self/exe", argv[0], "loop", argv[2], (char *)NULL);
		return 2;
	}
	if (argc >= 3 && !strcmp(argv[1], "mapped")) {
		int fd = open(argv[2], O_RDONLY);
		char *s;

		if (fd < 0)
			return 2;
		/* not read before target(): the probe reads it first */
		s = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
		if (s == MAP_FAILED)
			return 2;
		printf("%ld\n", call_target(1, 2, s));
		return 0;
	}
	return 1;
}
