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
 *   ktp_uprobe uffd             call target(1, 2, s) once, with s in a
 *                               page a userfaultfd serves: a child prints
 *                               "faulted" when the page faults, and
 *                               serves it, holding "served", once a line
 *                               or the end is read on stdin; exit 4 if
 *                               there is no userfaultfd
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/userfaultfd.h>

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

/*
 * Serve @uffd's page at @area, from a process of its own, once a line or
 * the end comes on stdin, and print "faulted" if the page faults before:
 * the task that faulted waits until then.
 */
static int uffd_serve(int uffd, char *area, long page)
{
	struct uffdio_copy copy = { .dst = (unsigned long)area, .len = page };
	struct pollfd fds[2] = {
		{ .fd = uffd, .events = POLLIN },
		{ .fd = 0, .events = POLLIN },
	};
	struct uffd_msg msg;
	char line[16], *src;

	/* poll() needs a userfaultfd that does not block */
	while (!(fds[1].revents & (POLLIN | POLLHUP))) {
		if (poll(fds, 2, -1) < 0)
			return 2;
		if (!(fds[0].revents & POLLIN) ||
		    read(uffd, &msg, sizeof(msg)) != sizeof(msg))
			continue;
		if (msg.event != UFFD_EVENT_PAGEFAULT)
			return 2;
		printf("faulted\n");
		fflush(stdout);
		break;
	}
	/* a line, or the end of stdin: whoever waits is not left waiting */
	if (!fgets(line, sizeof(line), stdin))
		line[0] = '\0';
	src = mmap(NULL, page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (src == MAP_FAILED)
		return 2;
	memcpy(src, "served", sizeof("served"));
	copy.src = (unsigned long)src;
	return ioctl(uffd, UFFDIO_COPY, &copy) ? 2 : 0;
}

/* target(1, 2, s), s in a page a userfaultfd serves */
static int uffd_call(long (*call_target)(long, long, const char *))
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	long page = sysconf(_SC_PAGESIZE), ret;
	int uffd, status;
	char *area;
	pid_t pid;

	uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0)
		return 4;
	area = mmap(NULL, page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED || ioctl(uffd, UFFDIO_API, &api))
		return 2;
	reg.range.start = (unsigned long)area;
	reg.range.len = page;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		return 2;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 2;
	if (!pid)
		exit(uffd_serve(uffd, area, page));
	/* the child's alone: if it goes, so does the wait for the page */
	close(uffd);
	ret = call_target(1, 2, area);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return 2;
	printf("%ld\n", ret);
	return 0;
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
	if (argc >= 2 && !strcmp(argv[1], "uffd"))
		return uffd_call(call_target);
	return 1;
}
