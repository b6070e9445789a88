/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The maps of KTP's programs (ktp_maps.c): ktp_area, where programs
 * leave the values they fetch, one per CPU, and a "t" probe's count of
 * its false hits.
 */
#ifndef _KERNEL_TRACE_KTP_MAPS_H
#define _KERNEL_TRACE_KTP_MAPS_H

#include <linux/bpf_kern.h>
#include <linux/cache.h>
#include <linux/percpu.h>
#include <linux/types.h>

#include "ktp_tree.h"

/*
 * How many handlers of "t" and "e" probes a CPU runs one inside the
 * other (see ktp_enter()); each level has its values in ktp_area.
 */
#define KTP_NEST_MAX		4
/* A level's values: a "t" probe's tracepoint arguments, then the fetched */
#define KTP_LEVEL_WORDS		(MAX_BPF_FUNC_ARGS + KTP_EXPR_MAX_FETCHES)
/*
 * ktp_area, in u64 words: the values of a "p" or "r" probe's program and
 * an "r" probe's $argN saved at entry, the level of the "e" hit whose
 * program runs, then the KTP_NEST_MAX levels.
 */
#define KTP_AREA_EVENT_LEVEL	(KTP_EXPR_MAX_FETCHES + PAGE_SIZE / 8)
#define KTP_AREA_LEVELS		(KTP_AREA_EVENT_LEVEL + 1)
#define KTP_AREA_WORDS		(KTP_AREA_LEVELS + KTP_NEST_MAX * KTP_LEVEL_WORDS)

/*
 * This CPU's value of ktp_area, the map KTP's programs leave the values
 * they fetch in; set with the map, before any program that uses it.
 */
extern u64 __percpu *ktp_prog_area;

/* This CPU's values of the "t" or "e" hit at @level */
static __always_inline u64 *ktp_level_vals(unsigned int level)
{
	return this_cpu_ptr(ktp_prog_area) + KTP_AREA_LEVELS +
	       level * KTP_LEVEL_WORDS;
}

/*
 * Where an "e" probe's program finds the level of its hit: the handler
 * sets it around the program and puts back what a hit it interrupted
 * had set.
 */
static __always_inline u64 *ktp_event_level(void)
{
	return this_cpu_ptr(ktp_prog_area) + KTP_AREA_EVENT_LEVEL;
}

/* The maps a program names, by index (see bpf_prog_load_kern()) */
enum {
	KTP_V_MAP_AREA,		/* ktp_area_map */
	KTP_V_MAP_FALSE,	/* a "t" probe's false hits' */
	KTP_V_MAP_SELF,		/* what names it to the kfuncs */
	KTP_V_NR_MAPS
};

/*
 * A "t" probe's program counts its false hits, and the reads of them that
 * faulted, in an array map of its own: this CPU's cache line of its one
 * value, two words, so that CPUs do not share a line.
 */
#define KTP_V_FALSE_SHIFT	max(L1_CACHE_SHIFT, 4)

struct bpf_map *ktp_v_one_value_map(struct ktp_compiler *c,
				    struct bpf_map **map, const char *name,
				    u32 size);
void ktp_v_area(struct ktp_compiler *c);
void ktp_v_emit_area_lookup(struct ktp_compiler *c);
void ktp_v_need_area_map(struct ktp_compiler *c);
struct bpf_map *ktp_v_loaded_area_map(void);
struct bpf_map *ktp_v_false_map(struct ktp_compiler *c);
void ktp_v_emit_count_false(struct ktp_compiler *c);
struct bpf_map *ktp_v_take_false_map(struct ktp_compiler *c);
void ktp_prog_false_counts(const struct ktp_prog *kp, unsigned long *hits,
			   unsigned long *faults);

#endif /* _KERNEL_TRACE_KTP_MAPS_H */
