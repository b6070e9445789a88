// SPDX-License-Identifier: GPL-2.0
/*
 * A program with a USDT marker, ktp_test:tick, for KTP's user-space
 * probe tests. Its semaphore is raised while a probe with its reference
 * counter offset is armed on it.
 *   ktp_usdt where    print the file offsets of the marker and of its
 *                     semaphore, as readelf -n shows them: "0xPC 0xSEM"
 *   ktp_usdt loop N   pass the marker N times; print how many times the
 *                     branch that runs only while it is probed ran
 */
#include <linux/elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktp_usdt.h"

/* The semaphore, where dtrace -G would put it */
asm(".pushsection .probes, \"aw\", @progbits\n"
	".balign 2\n"
	".globl ktp_test_tick_semaphore\n"
	"ktp_test_tick_semaphore: .hword 0\n"
	".popsection");

static void *read_self(size_t *size)
{
	FILE *f = fopen("/proc/self/exe", "r");
	char *buf = NULL;
	size_t n = 0, got;

	if (!f)
		exit(2);
	do {
		buf = realloc(buf, n + 65536);
		if (!buf)
			exit(2);
		got = fread(buf + n, 1, 65536, f);
		n += got;
	} while (got);
	fclose(f);
	*size = n;
	return buf;
}

#define ALIGN4(n)	(((n) + 3) & ~3)

/* The file offset of a virtual address, from the program headers */
static unsigned long file_offset(const struct elf64_hdr *eh,
				 unsigned long vaddr)
{
	const struct elf64_phdr *ph = (const void *)eh + eh->e_phoff;
	int i;

	for (i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && vaddr >= ph[i].p_vaddr &&
		    vaddr < ph[i].p_vaddr + ph[i].p_filesz)
			return vaddr - ph[i].p_vaddr + ph[i].p_offset;
	exit(2);
}

/* The marker's note in .note.stapsdt: its address, and its semaphore's */
static void where(void)
{
	size_t size, off;
	struct elf64_hdr *eh = read_self(&size);
	struct elf64_shdr *sh = (void *)eh + eh->e_shoff;
	const char *names = (void *)eh + sh[eh->e_shstrndx].sh_offset;
	char *notes;
	int i;

	for (i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_NOTE ||
		    strcmp(names + sh[i].sh_name, ".note.stapsdt"))
			continue;
		notes = (char *)eh + sh[i].sh_offset;
		for (off = 0; off < sh[i].sh_size;) {
			struct elf64_note *nh = (void *)(notes + off);
			char *desc = (char *)(nh + 1) + ALIGN4(nh->n_namesz);
			unsigned long *addr = (unsigned long *)desc;
			char *provider = desc + 3 * sizeof(long);

			if (nh->n_type == 3 && !strcmp(provider, "ktp_test") &&
			    !strcmp(provider + strlen(provider) + 1, "tick")) {
				printf("0x%lx 0x%lx\n", file_offset(eh, addr[0]),
				       file_offset(eh, addr[2]));
				return;
			}
			off += sizeof(*nh) + ALIGN4(nh->n_namesz) +
			       ALIGN4(nh->n_descsz);
		}
	}
	exit(2);
}

int main(int argc, char **argv)
{
	long i, n, enabled = 0;

	if (argc >= 2 && !strcmp(argv[1], "where")) {
		where();
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "loop")) {
		n = atol(argv[2]);
		for (i = 0; i < n; i++) {
			if (KTP_TEST_TICK_ENABLED())
				enabled++;
			KTP_TEST_TICK(i);
		}
		printf("%ld\n", enabled);
		return 0;
	}
	return 1;
}
