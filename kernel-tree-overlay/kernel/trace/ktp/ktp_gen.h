/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The inside of KTP's code generation, shared by its parts: the code of
 * an expression tree (ktp_gen.c), the program the verifier checks
 * (ktp_gen_v.c), the compiler's interface (ktp_expr.c) and the KUnit
 * test (ktp_expr_test.c).
 */
#ifndef _KERNEL_TRACE_KTP_GEN_H
#define _KERNEL_TRACE_KTP_GEN_H

#include "ktp_tree.h"
#include "ktp_prog.h"

/*
 * A program's stack under R10: the reads that faulted, what a helper
 * read, the address of its values in ktp_area_map and the map's key, a
 * "t" probe's hit that ktp_tp_enter() entered, then the slots.
 */
#define KTP_V_FAULTS	-8
#define KTP_V_SCRATCH	-16
#define KTP_V_AREA	-24
#define KTP_V_KEY	-32
#define KTP_V_HIT	-40
#define KTP_V_STACK	40
/* ktp_area: a "p" probe's fetched values, then an "r" probe's $argN */
#define KTP_V_ENTRY	KTP_EXPR_MAX_FETCHES

/* Registers: R6 holds the context, slots 0-2 are R7-R9, then the stack */
#define KTP_R_CTX	BPF_REG_6
#define KTP_NR_REG_SLOTS 3

static inline bool ktp_slot_is_reg(int slot)
{
	return slot < KTP_NR_REG_SLOTS;
}

static inline int ktp_slot_reg(int slot)
{
	return BPF_REG_7 + slot;
}

/* ktp_gen.c */

/* A list of jumps to one target, patched once it is known */
struct ktp_jumps {
	int	at[KTP_EXPR_MAX_NODES];
	int	nr;
};

void ktp_emit(struct ktp_compiler *c, struct bpf_insn insn);
int ktp_jump(struct ktp_compiler *c, struct bpf_insn insn);
void ktp_land(struct ktp_compiler *c, int from);
int ktp_load(struct ktp_compiler *c, int slot, int scratch);
void ktp_load_into(struct ktp_compiler *c, int slot, int dst);
void ktp_store(struct ktp_compiler *c, int slot, int reg);
void ktp_emit_convert(struct ktp_compiler *c, int reg, int type);
void ktp_gen(struct ktp_compiler *c, const struct ktp_node *n, int slot);
int ktp_str_compare(unsigned long addr, const char *lit, u32 how);
/* ktp_gen_v.c; ktp_strcmp() and ktp_user_read_faulted() are its kfuncs */
int ktp_strcmp(void *self__map, u32 id, u64 addr, u32 lit, u32 how);
void ktp_user_read_faulted(u64 addr, u32 size);
u32 ktp_v_id(struct ktp_compiler *c);
struct bpf_map *ktp_v_self_map(struct ktp_compiler *c);
void ktp_v_emit_self(struct ktp_compiler *c);
void ktp_v_set_id(u32 id, struct ktp_prog *kp);
void ktp_v_free_id(u32 id);
void ktp_v_emit_area_lookup(struct ktp_compiler *c);
void ktp_v_call_kfunc(struct ktp_compiler *c, u32 btf_id);
void ktp_v_gen_reg(struct ktp_compiler *c, int off, int slot);
void ktp_v_gen_arg(struct ktp_compiler *c, const struct ktp_node *n, int slot);
void ktp_v_gen_field(struct ktp_compiler *c, const struct ktp_node *n,
		     int slot);
void ktp_v_gen_read(struct ktp_compiler *c, const struct ktp_node *n, int slot);
void ktp_v_gen_current(struct ktp_compiler *c, int slot);
bool ktp_v_is_ptr(struct ktp_compiler *c, const struct ktp_node *n);
void ktp_v_emit_number(struct ktp_compiler *c, int slot);
void ktp_v_emit_null_split(struct ktp_compiler *c, int reg);
void ktp_v_gen_strcmp(struct ktp_compiler *c, const struct ktp_node *n,
		      int slot);
void ktp_v_emit_level_area(struct ktp_compiler *c);
void ktp_v_emit_fetch(struct ktp_compiler *c, int reg, unsigned int slot);
void ktp_v_emit_tpoint_args(struct ktp_compiler *c);
struct bpf_prog *ktp_v_finish(struct ktp_compiler *c);
void ktp_v_emit_exit(struct ktp_compiler *c, bool truth);
void ktp_v_emit_count_false(struct ktp_compiler *c);
struct bpf_map *ktp_v_take_false_map(struct ktp_compiler *c);
void ktp_v_release(struct ktp_compiler *c);

void ktp_gen_branch(struct ktp_compiler *c, const struct ktp_node *n,
		    bool jump_if, struct ktp_jumps *to, int slot);
struct ktp_jumps *ktp_gen_false_jumps(struct ktp_compiler *c,
				      const struct ktp_node *cond, int slot);

#endif /* _KERNEL_TRACE_KTP_GEN_H */
