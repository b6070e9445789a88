/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * BPF programs, maps and links that kernel code makes and holds itself:
 * made through the paths of the bpf() system call (the verifier, the LSM
 * hooks, an id that bpftool lists), with no file descriptor in any
 * process. Apart from <linux/bpf.h>, which most of the kernel reads: only
 * the system call's code and the code that holds such objects include it.
 */
#ifndef _LINUX_BPF_KERN_H
#define _LINUX_BPF_KERN_H

#include <linux/bpf.h>

struct bpf_prog_kstats {
	u64 nsecs;
	u64 cnt;
	u64 misses;
};

void bpf_prog_get_stats(const struct bpf_prog *prog,
			struct bpf_prog_kstats *stats);

/**
 * struct bpf_prog_kern_attr - what kernel code gives a program's load that
 *	union bpf_attr names by fd
 * @attach_btf: the BTF of @attach_btf_id, if not vmlinux's; the caller's
 *	reference
 * @maps: the maps the imm of a BPF_PSEUDO_MAP_IDX or _IDX_VALUE indexes
 * @nr_maps: their number
 * @owner: what loads the program, in its aux->kern_owner
 */
struct bpf_prog_kern_attr {
	struct btf		*attach_btf;
	struct bpf_map * const	*maps;
	u32			nr_maps;
	const void		*owner;
};

struct bpf_prog *bpf_prog_load_kern(union bpf_attr *attr,
				    const struct bpf_prog_kern_attr *kattr);
struct bpf_raw_event_map;
struct bpf_link *bpf_raw_tp_link_create_kern(struct bpf_prog *prog,
					     struct bpf_raw_event_map *btp,
					     u64 cookie);
void bpf_raw_tp_link_detach_kern(struct bpf_link *link);
struct bpf_link *bpf_tracing_link_create_kern(struct bpf_prog *prog,
					      u64 cookie);
void bpf_tracing_link_detach_kern(struct bpf_link *link);
struct bpf_map *bpf_map_create_kern(union bpf_attr *attr);
int bpf_map_freeze_kern(struct bpf_map *map);
void __percpu *bpf_percpu_array_elem(struct bpf_map *map, u32 key);

#endif /* _LINUX_BPF_KERN_H */
