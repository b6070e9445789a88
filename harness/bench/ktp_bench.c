// SPDX-License-Identifier: GPL-2.0
/*
 * ktp_bench: guest side of `make bench`. Under QEMU with -icount shift=0
 * a guest nanosecond is one guest instruction, so every figure printed
 * here is an instruction count that does not depend on the host. Each
 * figure is the best of 5 runs (the run with the fewest timer
 * interrupts).
 *
 *   ktp_bench [syscall] [CALLS]
 *	instructions per getppid() (default 20000 calls a run)
 *   ktp_bench bpf-kprobe SYM OFFSET [CALLS]
 *	the same with a BPF_PROG_TYPE_KPROBE program on SYM+OFFSET whose
 *	condition (the first argument, %di, == 12345) is false
 *   ktp_bench bpf-fentry BTF_ID [CALLS]
 *	the same with a fentry program on the function of vmlinux whose
 *	BTF id is BTF_ID, whose condition (its second argument == 99) is
 *	false
 *   ktp_bench bpf-rawtp TRACEPOINT [CALLS]
 *	the same with a raw tracepoint program on TRACEPOINT whose
 *	condition (its second argument, the syscall id of sys_enter,
 *	== 99999) is false
 *   ktp_bench read [CALLS]
 *	instructions per read() of one byte of /dev/zero (vfs_read())
 *   ktp_bench switch [ROUNDS]
 *	instructions per context switch: a byte sent back and forth through
 *	two pipes between this process and a child, on one CPU, two
 *	switches a round (default 5000 rounds a run)
 *   ktp_bench pagefault [PAGES]
 *	instructions per first write to a page of an anonymous mapping
 *	(default 2048 pages a run, rounded up to whole page tables), the
 *	page fault included
 *   ktp_bench ufunc [CALLS]
 *	instructions per call of ufunc(), a user function of this program
 *	that user-space probes probe (default 2000 calls a run)
 *   ktp_bench ufunc-offset
 *	print ufunc()'s offset in this program's file, for PATH:OFFSET
 *   ktp_bench bpf-uprobe [CALLS]
 *	ufunc with a BPF_PROG_TYPE_KPROBE program on a uprobe on ufunc()
 *	whose condition (its argument, %di, == 12345) is false
 *   ktp_bench define FILE TEXT [FILE TEXT]... -- FILE TEXT...
 *	instructions to write each TEXT to its FILE, in order, as one
 *	definition; the writes after -- undo it between runs, untimed
 *   ktp_bench modload PATH NAME
 *	instructions to load the module at PATH; NAME, its name, is
 *	unloaded between runs, untimed
 *
 * BPF programs are loaded and attached with raw bpf() and
 * perf_event_open() calls, no libbpf. Errors go to stderr and exit 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <asm/ptrace.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define RUNS		5
#define PAGE		4096

static void fail(const char *what)
{
	perror(what);
	exit(1);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long count_arg(int argc, char **argv, int i, long def)
{
	long n = i < argc ? atol(argv[i]) : def;

	if (n <= 0) {
		fprintf(stderr, "ktp_bench: bad count\n");
		exit(2);
	}
	return n;
}

/* Instructions per getppid(), best of RUNS runs of @calls calls */
static double syscall_cost(long calls)
{
	long long t, best = -1;
	long i;
	int run;

	for (run = 0; run < RUNS; run++) {
		t = now_ns();
		for (i = 0; i < calls; i++)
			syscall(SYS_getppid);
		t = now_ns() - t;
		if (best < 0 || t < best)
			best = t;
	}
	return (double)best / calls;
}

/* The function the user-space probe rows probe, called through a pointer */
__attribute__((noinline, noclone)) long ufunc(long a)
{
	asm volatile("");
	return a + 1;
}

/* Instructions per call of ufunc() */
static double ufunc_cost(long calls)
{
	long (*volatile call)(long) = ufunc;
	long long t, best = -1;
	long i, sum = 0;
	int run;

	for (run = 0; run < RUNS; run++) {
		t = now_ns();
		for (i = 0; i < calls; i++)
			sum += call(i);
		t = now_ns() - t;
		if (best < 0 || t < best)
			best = t;
	}
	if (sum != RUNS * (calls * (calls - 1) / 2 + calls))
		fail("ufunc");
	return (double)best / calls;
}

/* ufunc()'s offset in this program's file, from /proc/self/maps */
static unsigned long ufunc_offset(void)
{
	unsigned long start, end, offs, addr = (uintptr_t)ufunc;
	char line[512], perms[8];
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s %lx", &start, &end, perms,
			   &offs) != 4)
			continue;
		if (addr >= start && addr < end)
			return addr - start + offs;
	}
	fail("ufunc offset");
	return 0;
}

/* Instructions per read() of one byte of /dev/zero */
static double read_cost(long calls)
{
	long long t, best = -1;
	char byte;
	long i;
	int run, fd;

	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0)
		fail("/dev/zero");
	for (run = 0; run < RUNS; run++) {
		t = now_ns();
		for (i = 0; i < calls; i++)
			if (read(fd, &byte, 1) != 1)
				fail("read");
		t = now_ns() - t;
		if (best < 0 || t < best)
			best = t;
	}
	close(fd);
	return (double)best / calls;
}

/* Instructions per context switch, by a ping-pong with a child */
static double switch_cost(long rounds)
{
	int ping[2], pong[2], status;
	long long t, best = -1;
	char byte = 0;
	pid_t child;
	long i;
	int run;

	if (pipe(ping) || pipe(pong))
		fail("pipe");
	child = fork();
	if (child < 0)
		fail("fork");
	if (!child) {
		close(ping[1]);
		close(pong[0]);
		while (read(ping[0], &byte, 1) == 1)
			if (write(pong[1], &byte, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(ping[0]);
	close(pong[1]);
	for (run = 0; run < RUNS; run++) {
		t = now_ns();
		for (i = 0; i < rounds; i++)
			if (write(ping[1], &byte, 1) != 1 ||
			    read(pong[0], &byte, 1) != 1)
				fail("ping-pong");
		t = now_ns() - t;
		if (best < 0 || t < best)
			best = t;
	}
	close(ping[1]);
	if (waitpid(child, &status, 0) != child || status)
		fail("child");
	close(pong[0]);
	return (double)best / rounds / 2;
}

/*
 * Instructions per first write to an anonymous page. The pages fill
 * whole page tables (512 pages each, from a 2 MiB boundary), so that
 * every run, on every kernel, allocates the same number of them.
 */
static double pagefault_cost(long pages)
{
	const long span = 512 * PAGE;
	long long t, best = -1;
	volatile char *p;
	char *map;
	long i;
	int run;

	pages = (pages + 511) / 512 * 512;
	for (run = 0; run < RUNS; run++) {
		map = mmap(NULL, pages * PAGE + span, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (map == MAP_FAILED)
			fail("mmap");
		p = (char *)(((unsigned long)map + span - 1) & ~(span - 1));
		t = now_ns();
		for (i = 0; i < pages; i++)
			p[i * PAGE] = 1;
		t = now_ns() - t;
		munmap(map, pages * PAGE + span);
		if (best < 0 || t < best)
			best = t;
	}
	return (double)best / pages;
}

static void write_text(const char *file, const char *text)
{
	size_t len = strlen(text);
	int fd = open(file, O_WRONLY | O_APPEND);

	if (fd < 0)
		fail(file);
	if (write(fd, text, len) != (ssize_t)len) {
		fprintf(stderr, "ktp_bench: writing '%s' to %s: %s\n", text,
			file, strerror(errno));
		exit(1);
	}
	close(fd);
}

/*
 * Instructions to write a definition, best of RUNS: argv holds FILE TEXT
 * pairs, then "--" and the FILE TEXT pairs that undo them. The files are
 * opened inside the timed part, as echo opens them.
 */
static double define_cost(int argc, char **argv)
{
	long long t, best = -1;
	int undo, i, run;

	for (undo = 0; undo < argc && strcmp(argv[undo], "--"); undo++)
		;
	if (undo == argc || undo % 2 || (argc - undo - 1) % 2 || !undo) {
		fprintf(stderr, "ktp_bench: define FILE TEXT... -- FILE TEXT...\n");
		exit(2);
	}
	for (run = 0; run < RUNS; run++) {
		t = now_ns();
		for (i = 0; i < undo; i += 2)
			write_text(argv[i], argv[i + 1]);
		t = now_ns() - t;
		for (i = undo + 1; i < argc; i += 2)
			write_text(argv[i], argv[i + 1]);
		if (best < 0 || t < best)
			best = t;
	}
	return best;
}

/*
 * Instructions to load the module at @path (finit_module()), best of
 * RUNS; @name is unloaded after each load, outside the timed part.
 */
static double modload_cost(const char *path, const char *name)
{
	long long t, best = -1;
	int fd, run;

	for (run = 0; run < RUNS; run++) {
		fd = open(path, O_RDONLY);
		if (fd < 0)
			fail(path);
		t = now_ns();
		if (syscall(__NR_finit_module, fd, "", 0))
			fail("finit_module");
		t = now_ns() - t;
		close(fd);
		if (syscall(__NR_delete_module, name, O_NONBLOCK))
			fail("delete_module");
		if (best < 0 || t < best)
			best = t;
	}
	return best;
}

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static struct bpf_insn insn(__u8 code, __u8 dst, __u8 src, __s16 off,
			    __s32 imm)
{
	struct bpf_insn i = {
		.code = code,
		.dst_reg = dst,
		.src_reg = src,
		.off = off,
		.imm = imm,
	};

	return i;
}

/*
 * A program that returns 0 whatever its condition says, the condition
 * being: the u64 at @off in its context == @value. The same shape as a
 * false KTP condition: one load, one compare, return.
 */
static int load_prog_attach(__u32 type, __u32 attach_type, __u32 btf_id,
			    __s16 off, __s32 value)
{
	struct bpf_insn prog[] = {
		insn(BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_2, BPF_REG_1, off, 0),
		insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		insn(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_2, 0, 1, value),
		/* a fentry program returns 0, which the verifier checks */
		insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0,
		     type != BPF_PROG_TYPE_TRACING),
		insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	static char log[65536];
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = type;
	attr.expected_attach_type = attach_type;
	attr.attach_btf_id = btf_id;
	attr.insns = (uintptr_t)prog;
	attr.insn_cnt = ARRAY_SIZE(prog);
	attr.license = (uintptr_t)"GPL";
	attr.log_buf = (uintptr_t)log;
	attr.log_size = sizeof(log);
	attr.log_level = 1;
	fd = sys_bpf(BPF_PROG_LOAD, &attr);
	if (fd < 0) {
		fprintf(stderr, "%s", log);
		fail("BPF_PROG_LOAD");
	}
	return fd;
}

static int load_prog(__u32 type, __s16 off, __s32 value)
{
	return load_prog_attach(type, 0, 0, off, value);
}

/* The type of the perf PMU @name: "kprobe" or "uprobe" */
static int pmu_type(const char *name)
{
	char path[128];
	FILE *f;
	int type;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type",
		 name);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%d", &type) != 1)
		fail(path);
	fclose(f);
	return type;
}

/* Attach @prog to the perf event @attr asks for; returns the event */
static int attach_bpf_perf(struct perf_event_attr *attr, int prog)
{
	int fd;

	fd = syscall(__NR_perf_event_open, attr, -1, 0, -1,
		     PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		fail("perf_event_open");
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog))
		fail("PERF_EVENT_IOC_SET_BPF");
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		fail("PERF_EVENT_IOC_ENABLE");
	close(prog);
	return fd;
}

/* A false BPF condition on @sym+@offset; returns the perf event */
static int attach_bpf_kprobe(const char *sym, unsigned long offset)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = pmu_type("kprobe"),
		.kprobe_func = (uintptr_t)sym,
		.probe_offset = offset,
		.sample_period = 1,
	};

	return attach_bpf_perf(&attr,
			       load_prog(BPF_PROG_TYPE_KPROBE,
					 offsetof(struct pt_regs, rdi), 12345));
}

/* A false BPF condition on a uprobe on ufunc(); returns the perf event */
static int attach_bpf_uprobe(void)
{
	static char self[4096];
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = pmu_type("uprobe"),
		.uprobe_path = (uintptr_t)self,
		.probe_offset = ufunc_offset(),
		.sample_period = 1,
	};

	if (readlink("/proc/self/exe", self, sizeof(self) - 1) <= 0)
		fail("/proc/self/exe");
	return attach_bpf_perf(&attr,
			       load_prog(BPF_PROG_TYPE_KPROBE,
					 offsetof(struct pt_regs, rdi), 12345));
}

/* A false BPF condition on the raw tracepoint @tp; returns its link */
static int attach_bpf_rawtp(const char *tp)
{
	union bpf_attr attr;
	int fd, prog;

	/* args[1]: sys_enter's syscall id */
	prog = load_prog(BPF_PROG_TYPE_RAW_TRACEPOINT, 8, 99999);
	memset(&attr, 0, sizeof(attr));
	attr.raw_tracepoint.name = (uintptr_t)tp;
	attr.raw_tracepoint.prog_fd = prog;
	fd = sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &attr);
	if (fd < 0)
		fail("BPF_RAW_TRACEPOINT_OPEN");
	close(prog);
	return fd;
}

/*
 * A false BPF condition on the function of vmlinux whose BTF id is
 * @btf_id, a fentry program on its BPF trampoline; returns its link
 */
static int attach_bpf_fentry(__u32 btf_id)
{
	union bpf_attr attr;
	int fd, prog;

	/* args[1] */
	prog = load_prog_attach(BPF_PROG_TYPE_TRACING, BPF_TRACE_FENTRY,
				btf_id, 8, 99);
	memset(&attr, 0, sizeof(attr));
	attr.raw_tracepoint.prog_fd = prog;
	fd = sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &attr);
	if (fd < 0)
		fail("BPF_RAW_TRACEPOINT_OPEN");
	close(prog);
	return fd;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "syscall";
	double cost;
	int fd;

	if (argc > 1 && argv[1][0] >= '0' && argv[1][0] <= '9') {
		cost = syscall_cost(count_arg(argc, argv, 1, 20000));
	} else if (!strcmp(mode, "syscall")) {
		cost = syscall_cost(count_arg(argc, argv, 2, 20000));
	} else if (!strcmp(mode, "bpf-kprobe") && argc >= 4) {
		fd = attach_bpf_kprobe(argv[2], strtoul(argv[3], NULL, 0));
		cost = syscall_cost(count_arg(argc, argv, 4, 20000));
		close(fd);
	} else if (!strcmp(mode, "bpf-fentry") && argc >= 3) {
		fd = attach_bpf_fentry(strtoul(argv[2], NULL, 0));
		cost = syscall_cost(count_arg(argc, argv, 3, 20000));
		close(fd);
	} else if (!strcmp(mode, "bpf-rawtp") && argc >= 3) {
		fd = attach_bpf_rawtp(argv[2]);
		cost = syscall_cost(count_arg(argc, argv, 3, 20000));
		close(fd);
	} else if (!strcmp(mode, "ufunc")) {
		cost = ufunc_cost(count_arg(argc, argv, 2, 2000));
	} else if (!strcmp(mode, "ufunc-offset")) {
		printf("0x%lx\n", ufunc_offset());
		return 0;
	} else if (!strcmp(mode, "bpf-uprobe")) {
		fd = attach_bpf_uprobe();
		cost = ufunc_cost(count_arg(argc, argv, 2, 2000));
		close(fd);
	} else if (!strcmp(mode, "switch")) {
		cost = switch_cost(count_arg(argc, argv, 2, 5000));
	} else if (!strcmp(mode, "read")) {
		cost = read_cost(count_arg(argc, argv, 2, 20000));
	} else if (!strcmp(mode, "pagefault")) {
		cost = pagefault_cost(count_arg(argc, argv, 2, 2048));
	} else if (!strcmp(mode, "define")) {
		cost = define_cost(argc - 2, argv + 2);
	} else if (!strcmp(mode, "modload") && argc >= 4) {
		cost = modload_cost(argv[2], argv[3]);
	} else {
		fprintf(stderr, "usage: see the comment at the top of ktp_bench.c\n");
		return 2;
	}
	printf("%.1f\n", cost);
	return 0;
}
