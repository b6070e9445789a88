// SPDX-License-Identifier: GPL-2.0
/*
 * ktp_perf: read the records of one trace event through perf, as
 * "perf record" does, while making the event happen in this process.
 *
 *   ktp_perf ID read N SIZE   N reads of SIZE bytes from /dev/zero
 *   ktp_perf ID kill N        N SIGUSR1 to itself, ignored
 *
 * ID is the event's id file. One line per sample: the type in the
 * record's common header and each 64-bit word after that header, in hex;
 * "lost=N" if perf lost records.
 */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define DATA_PAGES	16	/* a power of two, as perf wants */
#define COMMON_SIZE	8	/* struct trace_entry */

static void fail(const char *what)
{
	perror(what);
	exit(1);
}

/* Copy @len bytes at @pos out of the ring of @size bytes at @ring. */
static void ring_copy(void *dst, const char *ring, uint64_t size,
		      uint64_t pos, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		((char *)dst)[i] = ring[(pos + i) & (size - 1)];
}

static void workload(int argc, char **argv)
{
	int i, n, fd, size;
	char *buf;

	n = atoi(argv[3]);
	if (!strcmp(argv[2], "read") && argc == 5) {
		size = atoi(argv[4]);
		buf = malloc(size);
		fd = open("/dev/zero", O_RDONLY);
		if (!buf || fd < 0)
			fail("/dev/zero");
		for (i = 0; i < n; i++)
			if (read(fd, buf, size) != size)
				fail("read");
		close(fd);
		free(buf);
	} else if (!strcmp(argv[2], "kill") && argc == 4) {
		for (i = 0; i < n; i++) {
			if (kill(getpid(), SIGUSR1))
				fail("kill");
		}
	} else {
		fprintf(stderr, "usage: ktp_perf ID read N SIZE | ID kill N\n");
		exit(2);
	}
}

int main(int argc, char **argv)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_RAW,
		.disabled = 1,
	};
	struct perf_event_mmap_page *meta;
	struct perf_event_header hdr;
	uint64_t head, pos, size, word;
	long page = sysconf(_SC_PAGESIZE);
	char rec[65536];
	uint32_t raw_size;
	uint16_t type;
	const char *ring;
	int fd, off;

	if (argc < 4) {
		fprintf(stderr, "usage: ktp_perf ID read N SIZE | ID kill N\n");
		return 2;
	}
	signal(SIGUSR1, SIG_IGN);
	attr.config = strtoull(argv[1], NULL, 0);
	fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0)
		fail("perf_event_open");
	meta = mmap(NULL, (DATA_PAGES + 1) * page, PROT_READ | PROT_WRITE,
		    MAP_SHARED, fd, 0);
	if (meta == MAP_FAILED)
		fail("mmap");

	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		fail("enable");
	workload(argc, argv);
	if (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0))
		fail("disable");

	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	ring = (const char *)meta + page;
	size = DATA_PAGES * page;
	for (pos = meta->data_tail; pos < head; pos += hdr.size) {
		ring_copy(&hdr, ring, size, pos, sizeof(hdr));
		if (hdr.size < sizeof(hdr) || hdr.size > sizeof(rec)) {
			fprintf(stderr, "bad record size %u\n", hdr.size);
			return 1;
		}
		ring_copy(rec, ring, size, pos, hdr.size);
		if (hdr.type == PERF_RECORD_LOST) {
			memcpy(&word, rec + sizeof(hdr) + 8, sizeof(word));
			printf("lost=%llu\n", (unsigned long long)word);
			continue;
		}
		if (hdr.type != PERF_RECORD_SAMPLE)
			continue;
		memcpy(&raw_size, rec + sizeof(hdr), sizeof(raw_size));
		if (raw_size < COMMON_SIZE ||
		    sizeof(hdr) + sizeof(raw_size) + raw_size > hdr.size) {
			fprintf(stderr, "bad raw size %u\n", raw_size);
			return 1;
		}
		memcpy(&type, rec + sizeof(hdr) + sizeof(raw_size), sizeof(type));
		printf("type=%u", type);
		for (off = COMMON_SIZE; off + 8 <= (int)raw_size; off += 8) {
			memcpy(&word, rec + sizeof(hdr) + sizeof(raw_size) + off,
			       sizeof(word));
			printf(" %llx", (unsigned long long)word);
		}
		printf("\n");
	}
	return 0;
}
