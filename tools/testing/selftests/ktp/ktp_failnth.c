// SPDX-License-Identifier: GPL-2.0
/*
 * ktp_failnth: make each allocation of one write fail in turn, with
 * fault injection's /proc/thread-self/fail-nth, and check that every
 * write that fails changes nothing.
 *
 *   ktp_failnth FILE TEXT UNDO CHECK [DONE NOT]
 *
 * For N = 1, 2, ...: the Nth allocation of write(FILE, TEXT) fails. A
 * write that fails must fail with ENOMEM and leave CHECK as it was; one
 * that succeeds all the same (an allocation with a fallback) must have
 * done its work: the file DONE does not hold the text NOT then. It is
 * undone by writing UNDO to FILE. It ends when the write no longer
 * reaches its Nth allocation, and prints "injected=N failed=N
 * succeeded=N".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_NTH		100000

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* The whole of @path, which must fit in @size */
static void read_file(const char *path, char *buf, size_t size)
{
	ssize_t len, n = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		die(path);
	while ((len = read(fd, buf + n, size - 1 - n)) > 0)
		n += len;
	if (len < 0)
		die(path);
	buf[n] = '\0';
	close(fd);
}

static void write_str(int fd, const char *s)
{
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		die("write");
}

int main(int argc, char *argv[])
{
	static char before[1 << 16], after[1 << 16];
	int nth_fd, fd, n, injected = 0, failed = 0, succeeded = 0;
	char buf[32];
	ssize_t ret;
	int err;

	if (argc != 5 && argc != 7) {
		fprintf(stderr, "usage: %s FILE TEXT UNDO CHECK [DONE NOT]\n",
			argv[0]);
		return 2;
	}
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (nth_fd < 0)
		die("/proc/thread-self/fail-nth");
	read_file(argv[4], before, sizeof(before));

	for (n = 1; n < MAX_NTH; n++) {
		fd = open(argv[1], O_WRONLY | O_APPEND);
		if (fd < 0)
			die(argv[1]);
		snprintf(buf, sizeof(buf), "%d", n);
		write_str(nth_fd, buf);
		ret = write(fd, argv[2], strlen(argv[2]));
		err = errno;
		/* 0: the Nth allocation was reached and failed */
		if (pread(nth_fd, buf, sizeof(buf) - 1, 0) <= 0)
			die("read fail-nth");
		write_str(nth_fd, "0");
		if (atoi(buf)) {
			/* done: this write made fewer than N allocations */
			if (ret != (ssize_t)strlen(argv[2]))
				die("write without a fault");
			write_str(fd, argv[3]);
			close(fd);
			break;
		}
		injected++;
		if (ret < 0) {
			failed++;
			if (err != ENOMEM) {
				fprintf(stderr, "nth=%d: %s, not ENOMEM\n", n,
					strerror(err));
				return 1;
			}
			read_file(argv[4], after, sizeof(after));
			if (strcmp(before, after)) {
				fprintf(stderr, "nth=%d: the write failed, but %s changed:\n%s\n",
					n, argv[4], after);
				return 1;
			}
		} else {
			succeeded++;
			if (ret != (ssize_t)strlen(argv[2])) {
				fprintf(stderr, "nth=%d: a write of %zu bytes took %zd\n",
					n, strlen(argv[2]), ret);
				return 1;
			}
			if (argc == 7) {
				read_file(argv[5], after, sizeof(after));
				if (strstr(after, argv[6])) {
					fprintf(stderr, "nth=%d: done, but %s says %s:\n%s\n",
						n, argv[5], argv[6], after);
					return 1;
				}
			}
			write_str(fd, argv[3]);
		}
		close(fd);
	}
	read_file(argv[4], after, sizeof(after));
	if (strcmp(before, after)) {
		fprintf(stderr, "%s changed after the undo:\n%s\n", argv[4], after);
		return 1;
	}
	printf("injected=%d failed=%d succeeded=%d\n", injected, failed,
	       succeeded);
	return n < MAX_NTH ? 0 : 1;
}
