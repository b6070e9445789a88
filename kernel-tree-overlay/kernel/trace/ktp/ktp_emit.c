// SPDX-License-Identifier: GPL-2.0
/*
 * KTP's expression compiler: the instructions of a program being made.
 * Instructions go to a buffer that grows; values live in slots, R7-R9
 * then the stack (ktp_emit.h); jumps are patched once they land.
 */
#include <linux/filter.h>
#include <linux/slab.h>

#include "ktp_emit.h"

/* Double the room for instructions, up to KTP_EXPR_MAX_INSNS */
static bool ktp_grow_insns(struct ktp_compiler *c)
{
	int cap = min(max(c->insns_cap * 2, 64), KTP_EXPR_MAX_INSNS);
	struct bpf_insn *insns;

	if (c->len >= KTP_EXPR_MAX_INSNS) {
		if (!c->error)
			c->error = -E2BIG;
		return false;
	}
	insns = krealloc_array(c->insns, cap, sizeof(*insns), GFP_KERNEL);
	if (!insns) {
		if (!c->error)
			c->error = -ENOMEM;
		return false;
	}
	c->insns = insns;
	c->insns_cap = cap;
	return true;
}

/**
 * ktp_emit() - append an instruction to the program
 * @c: the compiler; past KTP_EXPR_MAX_INSNS, @c->error is -E2BIG
 * @insn: the instruction
 *
 * The program starts small and grows as it needs: most are a few dozen
 * instructions.
 */
void ktp_emit(struct ktp_compiler *c, struct bpf_insn insn)
{
	if (c->len == c->insns_cap && !ktp_grow_insns(c))
		return;
	c->insns[c->len++] = insn;
}

/* A 64-bit immediate, in two instructions */
static void ktp_emit_ld_imm64(struct ktp_compiler *c, int reg, u64 val)
{
	struct bpf_insn insn[2] = { BPF_LD_IMM64(reg, val) };

	ktp_emit(c, insn[0]);
	ktp_emit(c, insn[1]);
}

/**
 * ktp_emit_imm64() - load a 64-bit constant into a register
 * @c: the compiler
 * @reg: the register
 * @val: the constant: one instruction if it fits 32 bits signed, else two
 */
void ktp_emit_imm64(struct ktp_compiler *c, int reg, u64 val)
{
	if (ktp_imm32_ok(val))
		ktp_emit(c, BPF_MOV64_IMM(reg, (s32)val));
	else
		ktp_emit_ld_imm64(c, reg, val);
}

static int ktp_slot_off(const struct ktp_compiler *c, int slot)
{
	return -KTP_V_STACK - 8 * (slot - KTP_NR_REG_SLOTS + 1);
}

/**
 * ktp_load() - the register holding a slot's value
 * @c: the compiler
 * @slot: the slot: 0-2 are R7-R9, the others on the stack
 * @scratch: the register a slot on the stack is loaded into
 *
 * Return: the slot's own register, or @scratch loaded.
 */
int ktp_load(struct ktp_compiler *c, int slot, int scratch)
{
	if (ktp_slot_is_reg(slot))
		return ktp_slot_reg(slot);
	ktp_emit(c, BPF_LDX_MEM(BPF_DW, scratch, BPF_REG_FP,
				ktp_slot_off(c, slot)));
	return scratch;
}

/**
 * ktp_load_into() - put a slot's value in a given register
 * @c: the compiler
 * @slot: the slot
 * @dst: the register, as a helper or kfunc call wants its argument
 */
void ktp_load_into(struct ktp_compiler *c, int slot, int dst)
{
	int reg = ktp_load(c, slot, dst);

	if (reg != dst)
		ktp_emit(c, BPF_MOV64_REG(dst, reg));
}

/**
 * ktp_store() - put a register's value in a slot
 * @c: the compiler
 * @slot: the slot: 0-2 are R7-R9, the others on the stack
 * @reg: the register
 */
void ktp_store(struct ktp_compiler *c, int slot, int reg)
{
	c->max_slot = max(c->max_slot, slot);
	if (ktp_slot_is_reg(slot)) {
		if (reg != ktp_slot_reg(slot))
			ktp_emit(c, BPF_MOV64_REG(ktp_slot_reg(slot), reg));
		return;
	}
	ktp_emit(c, BPF_STX_MEM(BPF_DW, BPF_REG_FP, reg, ktp_slot_off(c, slot)));
}

/**
 * ktp_jump() - append a jump whose offset is set once its target is known
 * @c: the compiler
 * @insn: the jump
 *
 * Return: the jump's index, for ktp_land().
 */
int ktp_jump(struct ktp_compiler *c, struct bpf_insn insn)
{
	ktp_emit(c, insn);
	return c->len - 1;
}

/**
 * ktp_land() - make a jump land on the next instruction
 * @c: the compiler
 * @from: the jump's index from ktp_jump(); ignored if negative
 */
void ktp_land(struct ktp_compiler *c, int from)
{
	if (from >= 0 && from < c->len)
		c->insns[from].off = c->len - from - 1;
}

/**
 * ktp_emit_convert() - truncate and extend a register to a type
 * @c: the compiler
 * @reg: the register
 * @type: the KTP_T_* type its value takes
 */
void ktp_emit_convert(struct ktp_compiler *c, int reg, int type)
{
	int size = type & KTP_T_SIZE;

	if (type & (KTP_T_PTR | KTP_T_STR) || size >= 8)
		return;
	if (ktp_is_signed(type)) {
		ktp_emit(c, BPF_ALU64_IMM(BPF_LSH, reg, 64 - size * 8));
		ktp_emit(c, BPF_ALU64_IMM(BPF_ARSH, reg, 64 - size * 8));
	} else if (size == 4) {
		ktp_emit(c, BPF_MOV32_REG(reg, reg));	/* zero-extends */
	} else {
		ktp_emit(c, BPF_ALU64_IMM(BPF_AND, reg, (1 << (size * 8)) - 1));
	}
}

/**
 * ktp_v_call_kfunc() - call a kfunc
 * @c: the compiler
 * @btf_id: the kfunc's BTF id in vmlinux
 */
void ktp_v_call_kfunc(struct ktp_compiler *c, u32 btf_id)
{
	ktp_emit(c, BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL,
				 0, btf_id));
}

/**
 * ktp_v_call_helper() - call a BPF helper
 * @c: the compiler
 * @id: the helper
 */
void ktp_v_call_helper(struct ktp_compiler *c, enum bpf_func_id id)
{
	ktp_emit(c, BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, id));
}
