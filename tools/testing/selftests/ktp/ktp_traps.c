// SPDX-License-Identifier: GPL-2.0
/*
 * Raise one x86 exception from user mode, for the trap and page fault
 * event tests.
 *
 * Usage: ktp_traps TRAP, with TRAP one of de, db, bp, ud, gp, ac, xf, mf,
 * pf, prefetch (a prefetch of an unmapped address: no signal). Prints
 * "pid=PID ip=IP" (IP: the address the kernel sees in regs->ip when the
 * trap is taken), raises the trap, and prints "signal=SIG" from the
 * handler of the signal the kernel sent. Exits 0 after the signal, 1 if
 * no signal came.
 *
 * ktp_traps minor: write to a fresh anonymous page (a minor fault).
 * ktp_traps major FILE: read the first page of FILE through a shared
 * mapping (a major fault when FILE is not in the page cache).
 * Both print "pid=PID ip=IP addr=ADDR" before the access and "done" after.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../kselftest.h"

/* The address of a label on an instruction in the asm below. */
#define label_addr(label) ({						\
	unsigned long __addr;						\
	asm("lea " #label "(%%rip), %0" : "=r" (__addr));		\
	__addr;								\
})

static void on_signal(int sig)
{
	char buf[32];
	int len;

	/* Signal delivery keeps EFLAGS.AC: clear it before touching data. */
	asm volatile("pushf\n\t"
		     "andl $~0x40000, (%%rsp)\n\t"
		     "popf\n\t" ::: "memory", "cc");
	len = snprintf(buf, sizeof(buf), "signal=%d\n", sig);
	write(STDOUT_FILENO, buf, len);
	_exit(0);
}

static void announce(unsigned long ip)
{
	printf("pid=%d ip=%#lx\n", getpid(), ip);
	fflush(stdout);
}

static void raise_de(void)
{
	announce(label_addr(de_ip));
	asm volatile("xor %%eax, %%eax\n\t"
		     "xor %%edx, %%edx\n\t"
		     "xor %%ecx, %%ecx\n"
		     "de_ip:\n\t"
		     "divl %%ecx\n\t" ::: "eax", "ecx", "edx");
}

static void raise_db(void)
{
	/* TF takes effect after popf: the nop runs, then #DB at db_ip. */
	announce(label_addr(db_ip));
	asm volatile("pushf\n\t"
		     "orl $0x100, (%%rsp)\n\t"
		     "popf\n\t"
		     "nop\n"
		     "db_ip:\n\t"
		     "nop\n\t" ::: "memory", "cc");
}

static void raise_bp(void)
{
	/* #BP is a trap: regs->ip is past the int3. */
	announce(label_addr(bp_ip));
	asm volatile("int3\n"
		     "bp_ip:\n\t"
		     "nop\n\t");
}

/* No exception: a prefetch never faults, but for an AMD erratum */
static void raise_prefetch(void)
{
	announce(label_addr(prefetch_ip));
	asm volatile("prefetch_ip:\n\t"
		     "prefetcht0 0x10\n\t");
}

static void raise_ud(void)
{
	announce(label_addr(ud_ip));
	asm volatile("ud_ip:\n\t"
		     "ud2\n\t");
}

static void raise_gp(void)
{
	announce(label_addr(gp_ip));
	asm volatile("gp_ip:\n\t"
		     "hlt\n\t");
}

static void raise_ac(void)
{
	static unsigned long buf[2];	/* aligned: buf + 1 byte is not */

	announce(label_addr(ac_ip));
	asm volatile("pushf\n\t"
		     "orl $0x40000, (%%rsp)\n\t"
		     "popf\n"
		     "ac_ip:\n\t"
		     "movl (%0), %%eax\n\t"
		     "pushf\n\t"
		     "andl $~0x40000, (%%rsp)\n\t"
		     "popf\n\t"
		     :: "r" ((char *)buf + 1) : "eax", "memory", "cc");
}

static void raise_xf(void)
{
	unsigned int mxcsr = 0x1f80 & ~0x200;	/* unmask divide-by-zero */
	float one = 1.0f, zero = 0.0f;

	announce(label_addr(xf_ip));
	asm volatile("ldmxcsr %0\n\t"
		     "movss %1, %%xmm0\n\t"
		     "movss %2, %%xmm1\n"
		     "xf_ip:\n\t"
		     "divss %%xmm1, %%xmm0\n\t"
		     :: "m" (mxcsr), "m" (one), "m" (zero) : "xmm0", "xmm1");
}

static void raise_mf(void)
{
	unsigned short cw = 0x037f & ~0x4;	/* unmask zero-divide */
	double one = 1.0, zero = 0.0;

	/* The x87 reports the pending exception at the next fwait. */
	announce(label_addr(mf_ip));
	asm volatile("fninit\n\t"
		     "fldcw %0\n\t"
		     "fldl %1\n\t"
		     "fdivl %2\n"
		     "mf_ip:\n\t"
		     "fwait\n\t"
		     "fstp %%st(0)\n\t"
		     :: "m" (cw), "m" (one), "m" (zero) : "memory");
}

static void raise_pf(void)
{
	/* Page zero is never mapped (mmap_min_addr). */
	announce(label_addr(pf_ip));
	asm volatile("mov $0x10, %%eax\n"
		     "pf_ip:\n\t"
		     "movl (%%rax), %%eax\n\t" ::: "eax", "memory");
}

static int fault_in(const char *mode, const char *path)
{
	void *page;
	int fd = -1;

	if (!strcmp(mode, "minor")) {
		page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	} else {
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			perror(path);
			return 1;
		}
		page = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	}
	if (page == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	printf("pid=%d ip=%#lx addr=%#lx\n", getpid(),
	       fd < 0 ? label_addr(minor_ip) : label_addr(major_ip),
	       (unsigned long)page);
	fflush(stdout);
	if (fd < 0)
		asm volatile("minor_ip:\n\t"
			     "movb $1, (%0)\n\t" :: "r" (page) : "memory");
	else
		asm volatile("major_ip:\n\t"
			     "movb (%0), %%al\n\t" :: "r" (page) : "eax", "memory");
	printf("done\n");
	return 0;
}

static const struct {
	const char *name;
	void (*raise)(void);
} traps[] = {
	{ "de", raise_de }, { "db", raise_db }, { "bp", raise_bp },
	{ "ud", raise_ud }, { "gp", raise_gp }, { "ac", raise_ac },
	{ "xf", raise_xf }, { "mf", raise_mf }, { "pf", raise_pf },
	{ "prefetch", raise_prefetch },
};

int main(int argc, char **argv)
{
	static const int sigs[] = { SIGFPE, SIGTRAP, SIGILL, SIGSEGV, SIGBUS };
	unsigned int i;

	if (argc == 2 && !strcmp(argv[1], "minor"))
		return fault_in(argv[1], NULL);
	if (argc == 3 && !strcmp(argv[1], "major"))
		return fault_in(argv[1], argv[2]);
	if (argc != 2) {
		fprintf(stderr, "usage: %s de|db|bp|ud|gp|ac|xf|mf|pf|prefetch|minor|major FILE\n",
			argv[0]);
		return 2;
	}
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		signal(sigs[i], on_signal);

	for (i = 0; i < ARRAY_SIZE(traps); i++) {
		if (!strcmp(argv[1], traps[i].name)) {
			traps[i].raise();
			printf("no signal\n");
			return 1;
		}
	}
	fprintf(stderr, "unknown trap %s\n", argv[1]);
	return 2;
}
