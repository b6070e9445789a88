/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The instructions of a program being made (ktp_emit.c), and where its
 * values are: registers, slots and the stack.
 */
#ifndef _KERNEL_TRACE_KTP_EMIT_H
#define _KERNEL_TRACE_KTP_EMIT_H

#include <linux/filter.h>

#include "ktp_tree.h"

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

/* Whether @val can be a 32-bit immediate, sign-extended */
static inline bool ktp_imm32_ok(u64 val)
{
	return (s64)val == (s32)val;
}

void ktp_emit(struct ktp_compiler *c, struct bpf_insn insn);
void ktp_emit_imm64(struct ktp_compiler *c, int reg, u64 val);
int ktp_load(struct ktp_compiler *c, int slot, int scratch);
void ktp_load_into(struct ktp_compiler *c, int slot, int dst);
void ktp_store(struct ktp_compiler *c, int slot, int reg);
int ktp_jump(struct ktp_compiler *c, struct bpf_insn insn);
void ktp_land(struct ktp_compiler *c, int from);
void ktp_emit_convert(struct ktp_compiler *c, int reg, int type);
void ktp_v_call_kfunc(struct ktp_compiler *c, u32 btf_id);
void ktp_v_call_helper(struct ktp_compiler *c, enum bpf_func_id id);

#endif /* _KERNEL_TRACE_KTP_EMIT_H */
