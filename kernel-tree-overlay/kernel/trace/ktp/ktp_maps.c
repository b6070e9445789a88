// SPDX-License-Identifier: GPL-2.0
/*
 * KTP's expression compiler: the maps its programs use, made with
 * bpf_map_create_kern() and held by the kernel. ktp_area_map holds the
 * values every program fetches, one per CPU; a "t" probe's program
 * counts its false hits in a map of its own (ktp_false); a one-value
 * map names a program to KTP's kfuncs (ktp_kfunc.c).
 */
#include <linux/bpf.h>
#include <linux/cache.h>
#include <linux/filter.h>
#include <linux/mutex.h>

#include "ktp_emit.h"
#include "ktp_maps.h"

/* Every KTP program's values, one per CPU (see ktp_v_area()) */
static struct bpf_map *ktp_area_map;
u64 __percpu *ktp_prog_area __read_mostly;
static DEFINE_MUTEX(ktp_area_mutex);

/*
 * A map made as @attr says, then frozen: bpf() cannot write it, through a
 * descriptor its id opens or any other; KTP's programs still do.
 */
static struct bpf_map *ktp_v_frozen_map(union bpf_attr *attr)
{
	struct bpf_map *map;
	int err;

	map = bpf_map_create_kern(attr);
	if (IS_ERR(map))
		return map;
	err = bpf_map_freeze_kern(map);
	if (err) {
		bpf_map_put_with_uref(map);
		return ERR_PTR(err);
	}
	return map;
}

/**
 * ktp_v_one_value_map() - a frozen array map of one value
 * @c: the compiler, whose error a failure sets
 * @slot: where the map is kept: made the first time, @slot holds its
 *	  references (bpf_map_create_kern()'s)
 * @name: the map's name
 * @value_size: the size of its value, in bytes
 *
 * Return: the map, or NULL with @c->error set.
 */
struct bpf_map *ktp_v_one_value_map(struct ktp_compiler *c,
				    struct bpf_map **slot,
				    const char *name, u32 value_size)
{
	union bpf_attr attr = {};
	struct bpf_map *map;

	if (*slot)
		return *slot;
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = sizeof(u32);
	attr.value_size = value_size;
	attr.max_entries = 1;
	strscpy(attr.map_name, name, sizeof(attr.map_name));
	map = ktp_v_frozen_map(&attr);
	if (IS_ERR(map)) {
		if (!c->error)
			c->error = PTR_ERR(map);
		return NULL;
	}
	*slot = map;
	return map;
}

/**
 * ktp_v_area() - load the address of this CPU's value of ktp_area_map
 * @c: the compiler
 *
 * The address goes to R1, as the map for a helper's first argument.
 */
void ktp_v_area(struct ktp_compiler *c)
{
	ktp_emit(c, BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_FP, KTP_V_AREA));
}

/**
 * ktp_v_emit_area_lookup() - look up this CPU's value of ktp_area_map
 * @c: the compiler
 *
 * The address goes to R0 and to KTP_V_AREA on the stack.
 */
void ktp_v_emit_area_lookup(struct ktp_compiler *c)
{
	struct bpf_insn ld[2] = {
		BPF_LD_IMM64_RAW(BPF_REG_1, BPF_PSEUDO_MAP_IDX, KTP_V_MAP_AREA)
	};

	ktp_v_need_area_map(c);
	ktp_emit(c, BPF_ST_MEM(BPF_W, BPF_REG_FP, KTP_V_KEY, 0));
	ktp_emit(c, ld[0]);
	ktp_emit(c, ld[1]);
	ktp_emit(c, BPF_MOV64_REG(BPF_REG_2, BPF_REG_FP));
	ktp_emit(c, BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, KTP_V_KEY));
	ktp_v_call_helper(c, BPF_FUNC_map_lookup_elem);
	/* never NULL, key 0 of an array of one; the verifier asks */
	ktp_emit(c, BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2));
	ktp_emit(c, BPF_MOV64_IMM(BPF_REG_0, 0));
	ktp_emit(c, BPF_EXIT_INSN());
	ktp_emit(c, BPF_STX_MEM(BPF_DW, BPF_REG_FP, BPF_REG_0, KTP_V_AREA));
}

/**
 * ktp_v_false_map() - the map where a "t" probe's program counts its false hits
 * @c: the compiler
 *
 * One value of a cache line a CPU (KTP_V_FALSE_SHIFT), made the first
 * time.
 *
 * Return: the map, or NULL with @c->error set.
 */
struct bpf_map *ktp_v_false_map(struct ktp_compiler *c)
{
	return ktp_v_one_value_map(c, &c->false_map, "ktp_false",
				   nr_cpu_ids << KTP_V_FALSE_SHIFT);
}

/**
 * ktp_v_emit_count_false() - count a "t" probe's false hit, with no call
 * @c: the compiler of a "t" probe's program
 *
 * The CPU number is the verifier's inline of bpf_get_smp_processor_id().
 * A plain increment: the program does not run twice at once on a CPU,
 * BPF counts a nested run as missed (see ktp_prog_missed()).
 */
void ktp_v_emit_count_false(struct ktp_compiler *c)
{
	/* the address of its value, at offset 0 */
	struct bpf_insn ld[2] = {
		BPF_LD_IMM64_RAW(BPF_REG_1, BPF_PSEUDO_MAP_IDX_VALUE,
				 KTP_V_MAP_FALSE)
	};
	int out;

	if (!ktp_v_false_map(c))
		return;
	ktp_v_call_helper(c, BPF_FUNC_get_smp_processor_id);
	out = ktp_jump(c, BPF_JMP_IMM(BPF_JGE, BPF_REG_0, nr_cpu_ids, 0));
	ktp_emit(c, BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, KTP_V_FALSE_SHIFT));
	ktp_emit(c, ld[0]);
	ktp_emit(c, ld[1]);
	ktp_emit(c, BPF_ALU64_REG(BPF_ADD, BPF_REG_1, BPF_REG_0));
	ktp_emit(c, BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 0));
	ktp_emit(c, BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, 1));
	ktp_emit(c, BPF_STX_MEM(BPF_DW, BPF_REG_1, BPF_REG_2, 0));
	if (c->has_faults) {
		ktp_emit(c, BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_FP,
					KTP_V_FAULTS));
		ktp_emit(c, BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_1, 8));
		ktp_emit(c, BPF_ALU64_REG(BPF_ADD, BPF_REG_3, BPF_REG_2));
		ktp_emit(c, BPF_STX_MEM(BPF_DW, BPF_REG_1, BPF_REG_3, 8));
	}
	ktp_land(c, out);
}

/**
 * ktp_prog_false_counts() - the false hits a "t" probe's program counted
 * @kp: the program
 * @hits: the false hits are added here
 * @faults: the reads of them that faulted are added here
 */
void ktp_prog_false_counts(const struct ktp_prog *kp, unsigned long *hits,
			   unsigned long *faults)
{
	const u64 *val;
	u64 addr;
	int cpu;

	/* its one value, as a program's BPF_PSEUDO_MAP_VALUE finds it */
	if (!kp->false_map ||
	    kp->false_map->ops->map_direct_value_addr(kp->false_map, &addr, 0))
		return;
	val = (const u64 *)(unsigned long)addr;
	for_each_possible_cpu(cpu) {
		const u64 *line = val + ((cpu << KTP_V_FALSE_SHIFT) / sizeof(u64));

		*hits += READ_ONCE(line[0]);
		*faults += READ_ONCE(line[1]);
	}
}

/**
 * ktp_v_take_false_map() - the map a program counts its false hits in
 * @c: the compiler, whose program was loaded
 *
 * Return: the map, whose references (bpf_map_create_kern()'s) the
 * program's struct ktp_prog takes over, or NULL if the program has none.
 */
struct bpf_map *ktp_v_take_false_map(struct ktp_compiler *c)
{
	struct bpf_map *map = c->false_map;

	c->false_map = NULL;
	return map;
}

/*
 * ktp_area_map, made the first time a program needs it; it is KTP's for
 * good.
 */
static int ktp_v_area_map(void)
{
	union bpf_attr attr = {};
	struct bpf_map *map;

	lockdep_assert_held(&ktp_area_mutex);
	if (ktp_area_map)
		return 0;
	attr.map_type = BPF_MAP_TYPE_PERCPU_ARRAY;
	attr.key_size = sizeof(u32);
	attr.value_size = KTP_AREA_WORDS * sizeof(u64);
	attr.max_entries = 1;
	strscpy(attr.map_name, "ktp_area", sizeof(attr.map_name));
	map = ktp_v_frozen_map(&attr);
	if (IS_ERR(map))
		return PTR_ERR(map);
	ktp_area_map = map;
	WRITE_ONCE(ktp_prog_area, bpf_percpu_array_elem(map, 0));
	return 0;
}

/**
 * ktp_v_need_area_map() - make ktp_area_map, unless it is made
 * @c: the compiler of a program that uses it, whose error a failure sets
 */
void ktp_v_need_area_map(struct ktp_compiler *c)
{
	int err;

	mutex_lock(&ktp_area_mutex);
	err = ktp_v_area_map();
	mutex_unlock(&ktp_area_mutex);
	if (err && !c->error)
		c->error = err;
}

/**
 * ktp_v_loaded_area_map() - ktp_area_map, for a program being loaded
 *
 * Return: the map ktp_v_need_area_map() made, or NULL if no program
 * needed it yet.
 */
struct bpf_map *ktp_v_loaded_area_map(void)
{
	struct bpf_map *map;

	mutex_lock(&ktp_area_mutex);
	map = ktp_area_map;
	mutex_unlock(&ktp_area_mutex);
	return map;
}
