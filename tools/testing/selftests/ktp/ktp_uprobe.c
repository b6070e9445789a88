// SPDX-License-Identifier: GPL-2.0
/*
 * A program for KTP's user-space probe tests.
 *   ktp_uprobe offset           print the file offset of target()
 *   ktp_uprobe loop N           call target(i, i * 2, "hello") N times
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long target(long a, long b, const char *s);

long target(long a, long b, const char *s)
{
	return a + b + s[0];
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
	return 1;
}
