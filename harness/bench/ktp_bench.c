// SPDX-License-Identifier: GPL-2.0
/*
 * ktp_bench: the cost of one getppid() system call, in guest
 * nanoseconds. Under QEMU with -icount shift=0 a guest nanosecond is one
 * guest instruction, so the figure is an instruction count that does
 * not depend on the host.
 *
 *   ktp_bench [CALLS]   best of 5 runs of CALLS calls (default 20000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 20000, i;
	long long start, best = -1;
	int run;

	if (calls <= 0)
		return 2;
	for (run = 0; run < 5; run++) {
		start = now_ns();
		for (i = 0; i < calls; i++)
			syscall(SYS_getppid);
		start = now_ns() - start;
		/* the best run had the fewest timer interrupts */
		if (best < 0 || start < best)
			best = start;
	}
	printf("%.1f\n", (double)best / calls);
	return 0;
}
