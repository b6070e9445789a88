// SPDX-License-Identifier: GPL-2.0
/*
 * ktp_bpf: count beside ftrace and KTP, with raw bpf() and
 * perf_event_open() calls (no libbpf), while a test does other things.
 *
 *   ktp_bpf kprobe SYM ARG3   a BPF_PROG_TYPE_KPROBE program on the entry
 *                             of SYM counts the calls whose third argument
 *                             is ARG3, in an array map
 *   ktp_bpf fentry ID ARG3    a fentry program on the function of vmlinux
 *                             whose BTF id is ID counts the calls whose
 *                             third argument is ARG3, in an array map
 *   ktp_bpf fexit ID ARG3     the same, at the function's return (fexit)
 *   ktp_bpf event ID          perf counts the hits of the trace event whose
 *                             id file says ID, on every CPU
 *   ktp_bpf rawtp TP ARG2     a BPF_PROG_TYPE_RAW_TRACEPOINT program on the
 *                             tracepoint TP counts the hits whose second
 *                             argument is ARG2 (sys_enter: the syscall
 *                             number), in an array map
 *   ktp_bpf kfunc ID [TP]     tries to load a BPF_PROG_TYPE_KPROBE program
 *                             that calls the kfunc of BTF id ID, or a BTF
 *                             raw tracepoint program (tp_btf) if TP is the
 *                             BTF id of a btf_trace_NAME; prints "errno=N"
 *                             and the verifier's log if it was refused,
 *                             and exits 1 if it was loaded
 *   ktp_bpf lsm ID ERRNO      a BPF LSM program on the hook whose BTF id
 *                             is ID (bpf_lsm_bpf_prog_load, say) returns
 *                             -ERRNO: the hook refuses what it is asked
 *                             with ERRNO, as long as this runs
 *
 * The kprobe is a kprobe PMU event (its type is in
 * /sys/bus/event_source/devices/kprobe/type, config1 points to the symbol
 * name) to which PERF_EVENT_IOC_SET_BPF attaches the program. The program
 * returns 0, so perf itself records nothing.
 *
 * Prints "attached" once it counts, "count=N" on each SIGUSR1, and on
 * SIGTERM, or when its parent dies, "count=N" a last time before it
 * detaches and exits 0.
 */
#include <errno.h>
#include <limits.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_CPUS	1024
#define LOG_SIZE	65536

#ifdef __x86_64__
#include <asm/ptrace.h>
/* Where the third argument of the probed function is in the program's ctx */
#define ARG3_OFFSET	((int)offsetof(struct pt_regs, rdx))
#else
#define ARG3_OFFSET	-1
#endif

static int perf_fds[MAX_CPUS];
static int nr_perf_fds;
static int map_fd = -1;
static int rawtp_fd = -1;
static int lsm_fd = -1;

static void fail(const char *what)
{
	perror(what);
	exit(1);
}

static void bad_args(void)
{
	fputs("usage: ktp_bpf kprobe SYM ARG3 | fentry BTF_ID ARG3 |\n"
	      "       fexit BTF_ID ARG3 | event ID | rawtp TP ARG2\n", stderr);
	fputs("       ktp_bpf kfunc ID [TP] | lsm ID ERRNO\n", stderr);
	exit(2);
}

static long parse_num(const char *s, long max)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 0);
	if (errno || end == s || *end || n < 0 || n > max)
		bad_args();
	return n;
}

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* A counter of all tasks on @cpu, or on every CPU if @cpu is -1 */
static int sys_perf_event_open(struct perf_event_attr *attr, int cpu)
{
	return syscall(__NR_perf_event_open, attr, -1, cpu, -1,
		       PERF_FLAG_FD_CLOEXEC);
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

/* An array of one u64, element 0 the count */
static int create_map(void)
{
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = sizeof(__u32);
	attr.value_size = sizeof(__u64);
	attr.max_entries = 1;
	fd = sys_bpf(BPF_MAP_CREATE, &attr);
	if (fd < 0)
		fail("BPF_MAP_CREATE");
	return fd;
}

/*
 * Load @prog, of @len instructions, as the rest of @attr says (its type
 * and what it attaches to), GPL; the verifier's log goes to @log, of
 * LOG_SIZE bytes
 */
static int prog_load(union bpf_attr *attr, const struct bpf_insn *prog,
		     __u32 len, char *log)
{
	attr->insns = (uintptr_t)prog;
	attr->insn_cnt = len;
	attr->license = (uintptr_t)"GPL";
	attr->log_buf = (uintptr_t)log;
	attr->log_size = LOG_SIZE;
	attr->log_level = 1;
	log[0] = 0;
	return sys_bpf(BPF_PROG_LOAD, attr);
}

/*
 * The program of @type: if the u64 at @off in its context is @val, add 1
 * to the count in @map. It returns 0: nothing for perf to record.
 */
static int load_prog_btf(int map, __u32 type, __u32 attach_type,
			 __u32 btf_id, int off, __s32 val)
{
	struct bpf_insn prog[] = {
		/* 0: r2 = the argument */
		insn(BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_2, BPF_REG_1, off, 0),
		/* 1: if r2 != val goto 11 */
		insn(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_2, 0, 9, val),
		/* 2: *(u32 *)(r10 - 4) = 0, the key */
		insn(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, 0),
		/* 3, 4: r2 = r10 - 4 */
		insn(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0),
		insn(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4),
		/* 5, 6: r1 = the map */
		insn(BPF_LD | BPF_IMM | BPF_DW, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0,
		     map),
		insn(0, 0, 0, 0, 0),
		/* 7: r0 = bpf_map_lookup_elem(r1, r2) */
		insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		/* 8: if r0 == NULL goto 11 */
		insn(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 2, 0),
		/* 9, 10: lock *(u64 *)(r0 + 0) += 1 */
		insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 1),
		insn(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_0, BPF_REG_1, 0,
		     BPF_ADD),
		/* 11: return 0 */
		insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	static char log[LOG_SIZE];
	union bpf_attr attr = {
		.prog_type = type,
		.expected_attach_type = attach_type,
		.attach_btf_id = btf_id,
	};
	int fd;

	fd = prog_load(&attr, prog, ARRAY_SIZE(prog), log);
	if (fd < 0) {
		fprintf(stderr, "%s", log);
		fail("BPF_PROG_LOAD");
	}
	return fd;
}

static int load_prog(int map, __u32 type, int off, __s32 val)
{
	return load_prog_btf(map, type, 0, 0, off, val);
}

/*
 * A kprobe program, or a tp_btf program on the tracepoint whose BTF type
 * is @tp (if not 0), calling the kfunc @id with three zero arguments
 */
static int try_kfunc(int id, int tp)
{
	struct bpf_insn prog[] = {
		insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 0),
		insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, 0),
		insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_3, 0, 0, 0),
		insn(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, id),
		insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	static char log[LOG_SIZE];
	union bpf_attr attr = { .prog_type = BPF_PROG_TYPE_KPROBE };
	int fd;

	if (tp) {
		attr.prog_type = BPF_PROG_TYPE_TRACING;
		attr.expected_attach_type = BPF_TRACE_RAW_TP;
		attr.attach_btf_id = tp;
	}
	fd = prog_load(&attr, prog, ARRAY_SIZE(prog), log);
	if (fd >= 0) {
		printf("loaded\n");
		return 1;
	}
	printf("errno=%d\n%s", errno, log);
	return 0;
}

/*
 * The LSM program of the hook @id returns -@err, and a link attaches it
 * (BPF_RAW_TRACEPOINT_OPEN with no name: BPF_LSM_MAC's attach type) for
 * as long as lsm_fd is open
 */
static void attach_lsm(int id, int err)
{
	struct bpf_insn prog[] = {
		insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, -err),
		insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	static char log[LOG_SIZE];
	union bpf_attr attr = {
		.prog_type = BPF_PROG_TYPE_LSM,
		.expected_attach_type = BPF_LSM_MAC,
		.attach_btf_id = id,
	};
	int fd;

	fd = prog_load(&attr, prog, ARRAY_SIZE(prog), log);
	if (fd < 0) {
		fprintf(stderr, "%s", log);
		fail("BPF_PROG_LOAD lsm");
	}
	memset(&attr, 0, sizeof(attr));
	attr.raw_tracepoint.prog_fd = fd;
	lsm_fd = sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &attr);
	if (lsm_fd < 0)
		fail("BPF_RAW_TRACEPOINT_OPEN lsm");
	close(fd);
}

static int kprobe_pmu_type(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/kprobe/type", "r");
	int type;

	if (!f || fscanf(f, "%d", &type) != 1)
		fail("kprobe PMU type");
	fclose(f);
	return type;
}

static void attach_kprobe(const char *sym, __s32 arg3)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = kprobe_pmu_type(),
		.config = 0,			/* not a return probe */
		.kprobe_func = (uintptr_t)sym,	/* config1 */
		.probe_offset = 0,		/* config2 */
		.sample_period = 1,
		.wakeup_events = 1,
	};
	int fd, prog;

	if (ARG3_OFFSET < 0) {
		fprintf(stderr, "ktp_bpf: no third argument on this arch\n");
		exit(1);
	}
	map_fd = create_map();
	prog = load_prog(map_fd, BPF_PROG_TYPE_KPROBE, ARG3_OFFSET, arg3);
	/*
	 * One event does: the program runs on each hit of the kprobe, on
	 * every CPU, whichever CPU the event counts on.
	 */
	fd = sys_perf_event_open(&attr, 0);
	if (fd < 0)
		fail("perf_event_open kprobe");
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog))
		fail("PERF_EVENT_IOC_SET_BPF");
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		fail("PERF_EVENT_IOC_ENABLE");
	/* the event holds the program */
	close(prog);
	perf_fds[nr_perf_fds++] = fd;
}

/* The program runs on @tp while the raw tracepoint's fd is open */
static void attach_rawtp(const char *tp, __s32 arg2)
{
	union bpf_attr attr;
	int prog;

	map_fd = create_map();
	prog = load_prog(map_fd, BPF_PROG_TYPE_RAW_TRACEPOINT, 8, arg2);
	memset(&attr, 0, sizeof(attr));
	attr.raw_tracepoint.name = (uintptr_t)tp;
	attr.raw_tracepoint.prog_fd = prog;
	rawtp_fd = sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &attr);
	if (rawtp_fd < 0)
		fail("BPF_RAW_TRACEPOINT_OPEN");
	close(prog);
}

/*
 * A fentry (or, @attach_type BPF_TRACE_FEXIT, fexit) program on the
 * function of vmlinux whose BTF id is @btf_id, on its BPF trampoline,
 * counting the calls whose third argument is @arg3; it runs while the
 * link's fd is open
 */
static void attach_tracing(__u32 attach_type, __u32 btf_id, __s32 arg3)
{
	union bpf_attr attr;
	int prog;

	map_fd = create_map();
	prog = load_prog_btf(map_fd, BPF_PROG_TYPE_TRACING, attach_type,
			     btf_id, 16, arg3);
	memset(&attr, 0, sizeof(attr));
	attr.raw_tracepoint.prog_fd = prog;
	rawtp_fd = sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &attr);
	if (rawtp_fd < 0)
		fail("BPF_RAW_TRACEPOINT_OPEN fentry/fexit");
	close(prog);
}

static void open_event(__u64 id)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_TRACEPOINT,
		.config = id,
		.disabled = 1,
	};
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	int cpu, fd, i;

	for (cpu = 0; cpu < cpus && cpu < MAX_CPUS; cpu++) {
		fd = sys_perf_event_open(&attr, cpu);
		if (fd < 0 && errno == ENODEV)
			continue;	/* offline */
		if (fd < 0)
			fail("perf_event_open tracepoint");
		perf_fds[nr_perf_fds++] = fd;
	}
	if (!nr_perf_fds) {
		fprintf(stderr, "ktp_bpf: no CPU to count on\n");
		exit(1);
	}
	for (i = 0; i < nr_perf_fds; i++)
		if (ioctl(perf_fds[i], PERF_EVENT_IOC_ENABLE, 0))
			fail("PERF_EVENT_IOC_ENABLE");
}

static unsigned long long count(void)
{
	unsigned long long sum = 0;
	union bpf_attr attr;
	__u32 key = 0;
	__u64 val = 0;
	int i;

	if (map_fd >= 0) {
		memset(&attr, 0, sizeof(attr));
		attr.map_fd = map_fd;
		attr.key = (uintptr_t)&key;
		attr.value = (uintptr_t)&val;
		if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr))
			fail("BPF_MAP_LOOKUP_ELEM");
		return val;
	}
	for (i = 0; i < nr_perf_fds; i++) {
		if (read(perf_fds[i], &val, sizeof(val)) != sizeof(val))
			fail("read perf counter");
		sum += val;
	}
	return sum;
}

int main(int argc, char **argv)
{
	pid_t parent = getppid();
	sigset_t sigs;
	int sig, i;

	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "kfunc"))
		return try_kfunc(parse_num(argv[2], INT_MAX),
				 argc == 4 ? parse_num(argv[3], INT_MAX) : 0);

	/* Before anything: a signal the test sends early waits for sigwait() */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGUSR1);
	sigaddset(&sigs, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &sigs, NULL))
		fail("sigprocmask");
	/* A test that dies leaves nothing attached */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM))
		fail("PR_SET_PDEATHSIG");
	if (getppid() != parent)
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (argc == 4 && !strcmp(argv[1], "kprobe"))
		attach_kprobe(argv[2], parse_num(argv[3], INT_MAX));
	else if (argc == 3 && !strcmp(argv[1], "event"))
		open_event(parse_num(argv[2], LONG_MAX));
	else if (argc == 4 && !strcmp(argv[1], "fentry"))
		attach_tracing(BPF_TRACE_FENTRY, parse_num(argv[2], INT_MAX),
			       parse_num(argv[3], INT_MAX));
	else if (argc == 4 && !strcmp(argv[1], "fexit"))
		attach_tracing(BPF_TRACE_FEXIT, parse_num(argv[2], INT_MAX),
			       parse_num(argv[3], INT_MAX));
	else if (argc == 4 && !strcmp(argv[1], "rawtp"))
		attach_rawtp(argv[2], parse_num(argv[3], INT_MAX));
	else if (argc == 4 && !strcmp(argv[1], "lsm"))
		attach_lsm(parse_num(argv[2], INT_MAX), parse_num(argv[3], 4095));
	else
		bad_args();

	printf("attached\n");
	do {
		if (sigwait(&sigs, &sig))
			fail("sigwait");
		printf("count=%llu\n", count());
	} while (sig != SIGTERM);

	for (i = 0; i < nr_perf_fds; i++)
		close(perf_fds[i]);
	if (rawtp_fd >= 0)
		close(rawtp_fd);
	if (lsm_fd >= 0)
		close(lsm_fd);
	if (map_fd >= 0)
		close(map_fd);
	return 0;
}
