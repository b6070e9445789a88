// SPDX-License-Identifier: GPL-2.0
/*
 * KTP's expression compiler: code generation. A tree becomes eBPF
 * instructions: values live in slots, R7-R9 then the stack, and R6
 * holds the context across calls. A condition is a chain of jumps to
 * its false end.
 *
 * Kernel memory is read by an inline load from a bpf_rdonly_cast()
 * pointer (a nofault load under the JIT; to the struct the read is a
 * member of, where the verifier finds the member in it, else to void,
 * see ktp_v_read_type()) or by bpf_probe_read_kernel(), user memory by
 * bpf_probe_read_user(). A "p", "r" or "e" program counts the reads
 * that faulted on its stack.
 */
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/bpf_verifier.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <asm/sections.h>

#include "../trace.h"
#include "ktp_btf.h"
#include "ktp_emit.h"
#include "ktp_gen.h"
#include "ktp_kfunc.h"
#include "ktp_maps.h"
#include "ktp_regs.h"

static int ktp_jmp_op(int op, bool is_signed)
{
	switch (op) {
	case KTP_OP_EQ:
		return BPF_JEQ;
	case KTP_OP_NE:
		return BPF_JNE;
	case KTP_OP_LT:
		return is_signed ? BPF_JSLT : BPF_JLT;
	case KTP_OP_LE:
		return is_signed ? BPF_JSLE : BPF_JLE;
	case KTP_OP_GT:
		return is_signed ? BPF_JSGT : BPF_JGT;
	default:
		return is_signed ? BPF_JSGE : BPF_JGE;
	}
}

static int ktp_negate_op(int op)
{
	static const int negated[] = {
		[KTP_OP_EQ] = KTP_OP_NE, [KTP_OP_NE] = KTP_OP_EQ,
		[KTP_OP_LT] = KTP_OP_GE, [KTP_OP_LE] = KTP_OP_GT,
		[KTP_OP_GT] = KTP_OP_LE, [KTP_OP_GE] = KTP_OP_LT,
	};

	BUILD_BUG_ON(ARRAY_SIZE(negated) != KTP_OP_GE + 1);
	return negated[op];
}

static bool ktp_fits_imm(const struct ktp_node *n)
{
	return n->op == KTP_OP_CONST && ktp_imm32_ok(n->val);
}

/*
 * Emit a jump taken when the comparison @op of @n's operands holds, the
 * operands evaluated from @slot. Returns the jump to patch.
 */
static int ktp_gen_compare_jump(struct ktp_compiler *c,
				const struct ktp_node *n, int op, int slot)
{
	bool is_signed = ktp_is_signed(ktp_common_type(n->l->type, n->r->type));
	int a, b, jop = ktp_jmp_op(op, is_signed);

	ktp_gen(c, n->l, slot);
	if (ktp_fits_imm(n->r)) {
		a = ktp_load(c, slot, BPF_REG_1);
		return ktp_jump(c, BPF_JMP_IMM(jop, a, (s32)n->r->val, 0));
	}
	ktp_gen(c, n->r, slot + 1);
	a = ktp_load(c, slot, BPF_REG_1);
	b = ktp_load(c, slot + 1, BPF_REG_2);
	return ktp_jump(c, BPF_JMP_REG(jop, a, b, 0));
}

/* An empty list of jumps: not zeroed, most of at[] is never used */
static struct ktp_jumps *ktp_jumps_alloc(struct ktp_compiler *c)
{
	struct ktp_jumps *jumps = kmalloc(sizeof(*jumps), GFP_KERNEL);

	if (!jumps) {
		c->error = -ENOMEM;
		return NULL;
	}
	jumps->nr = 0;
	return jumps;
}

static void ktp_add_jump(struct ktp_compiler *c, struct ktp_jumps *j, int at)
{
	if (j->nr < ARRAY_SIZE(j->at))
		j->at[j->nr++] = at;
	else if (!c->error)
		c->error = -E2BIG;
}

static void ktp_land_all(struct ktp_compiler *c, struct ktp_jumps *j)
{
	while (j->nr)
		ktp_land(c, j->at[--j->nr]);
}

/* Land the jumps of a list made by ktp_jumps_alloc(), and free it */
static void ktp_land_free(struct ktp_compiler *c, struct ktp_jumps *jumps)
{
	ktp_land_all(c, jumps);
	kfree(jumps);
}

/**
 * ktp_gen_branch() - emit a test of an expression and a jump on its truth
 * @c: the compiler
 * @n: the expression
 * @jump_if: the truth that jumps
 * @to: where to add the jumps, to be landed together
 * @slot: the first slot the code may use
 *
 * The code jumps when @n is @jump_if and goes on to the next
 * instruction otherwise: the condition of a probe, without making a 0 or
 * 1 it would only test.
 */
void ktp_gen_branch(struct ktp_compiler *c, const struct ktp_node *n,
		    bool jump_if, struct ktp_jumps *to, int slot)
{
	struct ktp_jumps *other;
	int reg;

	switch (n->op) {
	case KTP_OP_EQ ... KTP_OP_GE:
		ktp_add_jump(c, to, ktp_gen_compare_jump(c, n, jump_if ? n->op :
						ktp_negate_op(n->op), slot));
		return;
	case KTP_OP_LNOT:
		ktp_gen_branch(c, n->l, !jump_if, to, slot);
		return;
	case KTP_OP_LAND:
	case KTP_OP_LOR:
		if (n->op == KTP_OP_LAND ? !jump_if : jump_if) {
			/* && jumping if false, || jumping if true: both go */
			ktp_gen_branch(c, n->l, jump_if, to, slot);
			ktp_gen_branch(c, n->r, jump_if, to, slot);
			return;
		}
		/* && jumping if true: l false skips r */
		other = ktp_jumps_alloc(c);
		if (!other)
			return;
		ktp_gen_branch(c, n->l, !jump_if, other, slot);
		ktp_gen_branch(c, n->r, jump_if, to, slot);
		ktp_land_free(c, other);
		return;
	}
	ktp_gen(c, n, slot);
	reg = ktp_load(c, slot, BPF_REG_1);
	ktp_add_jump(c, to, ktp_jump(c, BPF_JMP_IMM(jump_if ? BPF_JNE : BPF_JEQ,
						    reg, 0, 0)));
}

/*
 * An operand of an integer operation: a pointer the verifier types
 * becomes the number it is (ktp_v_emit_number())
 */
static void ktp_gen_int(struct ktp_compiler *c, const struct ktp_node *n,
			int slot)
{
	ktp_gen(c, n, slot);
	if (ktp_v_is_ptr(c, n))
		ktp_v_emit_number(c, slot);
}

/* The BPF_ALU64 operation of a binary operator; shifts are apart */
static const int ktp_alu_ops[] = {
	[KTP_OP_ADD] = BPF_ADD, [KTP_OP_SUB] = BPF_SUB,
	[KTP_OP_MUL] = BPF_MUL, [KTP_OP_AND] = BPF_AND,
	[KTP_OP_OR] = BPF_OR, [KTP_OP_XOR] = BPF_XOR,
	[KTP_OP_DIV] = BPF_DIV, [KTP_OP_MOD] = BPF_MOD,
};

/*
 * A constant right operand that fits an instruction's immediate: no
 * register for it, and no run-time check a constant makes needless.
 */
static bool ktp_gen_binary_imm(struct ktp_compiler *c, const struct ktp_node *n,
			       int slot)
{
	bool is_signed = ktp_is_signed(n->type);
	s64 imm = (s64)n->r->val;
	bool move = false;
	int a;

	if (!ktp_fits_imm(n->r))
		return false;
	switch (n->op) {
	case KTP_OP_DIV:
	case KTP_OP_MOD:
		/* by 0 and by -1 (or more than S32_MAX unsigned): checked */
		if (imm <= 0)
			return false;
		break;
	case KTP_OP_ADD:
	case KTP_OP_SUB:
		/* a pointer the verifier types moves, and stays one */
		move = ktp_v_is_ptr(c, n);
		break;
	case KTP_OP_SHL:
	case KTP_OP_SHR:
	case KTP_OP_MUL:
	case KTP_OP_AND:
	case KTP_OP_OR:
	case KTP_OP_XOR:
		break;
	default:
		return false;
	}

	if (move) {
		ktp_gen(c, n->l, slot);
		a = ktp_load(c, slot, BPF_REG_1);
		ktp_v_emit_null_split(c, a);
	} else {
		ktp_gen_int(c, n->l, slot);
		a = ktp_load(c, slot, BPF_REG_1);
	}
	if (n->op == KTP_OP_SHL || n->op == KTP_OP_SHR) {
		if (imm < 0 || imm > 63) {
			if (n->op == KTP_OP_SHR && is_signed)
				ktp_emit(c, BPF_ALU64_IMM(BPF_ARSH, a, 63));
			else
				ktp_emit(c, BPF_MOV64_IMM(a, 0));
		} else {
			ktp_emit(c, BPF_ALU64_IMM(n->op == KTP_OP_SHL ? BPF_LSH :
						  is_signed ? BPF_ARSH : BPF_RSH,
						  a, imm));
		}
	} else {
		ktp_emit(c, ((struct bpf_insn) {
			.code = BPF_ALU64 | ktp_alu_ops[n->op] | BPF_K,
			.dst_reg = a, .imm = imm,
			.off = (n->op == KTP_OP_DIV || n->op == KTP_OP_MOD) &&
			       is_signed,
		}));
	}
	ktp_store(c, slot, a);
	return true;
}

static void ktp_gen_binary(struct ktp_compiler *c, const struct ktp_node *n,
			   int slot)
{
	bool is_signed = ktp_is_signed(n->type);
	int a, b, j1, j2, j3, code;

	BUILD_BUG_ON(ARRAY_SIZE(ktp_alu_ops) != KTP_OP_XOR + 1);
	if (ktp_gen_binary_imm(c, n, slot))
		return;
	/*
	 * Not even pointer - pointer: one that may be NULL is a number on
	 * one of its paths (ktp_v_emit_null_split()), and the verifier
	 * takes no pointer from a number.
	 */
	ktp_gen_int(c, n->l, slot);
	ktp_gen_int(c, n->r, slot + 1);
	a = ktp_load(c, slot, BPF_REG_1);
	b = ktp_load(c, slot + 1, BPF_REG_2);

	switch (n->op) {
	case KTP_OP_DIV:
	case KTP_OP_MOD:
		/* by 0: 0; signed by -1: -a or 0, as idiv would trap */
		j1 = ktp_jump(c, BPF_JMP_IMM(BPF_JNE, b, 0, 0));
		ktp_emit(c, BPF_MOV64_IMM(a, 0));
		j2 = ktp_jump(c, BPF_JMP_A(0));
		ktp_land(c, j1);
		j3 = -1;
		if (is_signed) {
			j1 = ktp_jump(c, BPF_JMP_IMM(BPF_JNE, b, -1, 0));
			if (n->op == KTP_OP_DIV)
				ktp_emit(c, BPF_ALU64_IMM(BPF_NEG, a, 0));
			else
				ktp_emit(c, BPF_MOV64_IMM(a, 0));
			j3 = ktp_jump(c, BPF_JMP_A(0));
			ktp_land(c, j1);
		}
		ktp_emit(c, ((struct bpf_insn) {
			.code = BPF_ALU64 | ktp_alu_ops[n->op] | BPF_X,
			.dst_reg = a, .src_reg = b, .off = is_signed,
		}));
		ktp_land(c, j2);
		ktp_land(c, j3);
		break;
	case KTP_OP_SHL:
	case KTP_OP_SHR:
		/* counts outside 0..63 give 0, or the sign */
		code = n->op == KTP_OP_SHL ? BPF_LSH : is_signed ? BPF_ARSH :
		       BPF_RSH;
		j1 = ktp_jump(c, BPF_JMP_IMM(BPF_JLT, b, 64, 0));
		if (code == BPF_ARSH)
			ktp_emit(c, BPF_ALU64_IMM(BPF_ARSH, a, 63));
		else
			ktp_emit(c, BPF_MOV64_IMM(a, 0));
		j2 = ktp_jump(c, BPF_JMP_A(0));
		ktp_land(c, j1);
		ktp_emit(c, BPF_ALU64_REG(code, a, b));
		ktp_land(c, j2);
		break;
	default:
		ktp_emit(c, BPF_ALU64_REG(ktp_alu_ops[n->op], a, b));
	}
	ktp_store(c, slot, a);
}

/**
 * ktp_gen_false_jumps() - emit a test of a condition
 * @c: the compiler
 * @cond: the condition
 * @slot: the first slot the code may use
 *
 * Return: the jumps taken when @cond is false, for the caller to land
 * (and free) once it has emitted the code of "true"; NULL, with
 * @c->error -ENOMEM, if memory ran out.
 */
struct ktp_jumps *ktp_gen_false_jumps(struct ktp_compiler *c,
				      const struct ktp_node *cond, int slot)
{
	struct ktp_jumps *jumps = ktp_jumps_alloc(c);

	if (!jumps)
		return NULL;
	ktp_gen_branch(c, cond, false, jumps, slot);
	return jumps;
}

/* c ? l : r */
static void ktp_gen_cond(struct ktp_compiler *c, const struct ktp_node *n,
			 int slot)
{
	struct ktp_jumps *to_r = ktp_gen_false_jumps(c, n->c, slot);
	int j;

	if (!to_r)
		return;
	ktp_gen(c, n->l, slot);
	j = ktp_jump(c, BPF_JMP_A(0));
	ktp_land_free(c, to_r);
	ktp_gen(c, n->r, slot);
	ktp_land(c, j);
}

/* A comparison or a logical operator as a value: 1, or 0 */
static void ktp_gen_bool(struct ktp_compiler *c, const struct ktp_node *n,
			 int slot)
{
	struct ktp_jumps *to_0 = ktp_gen_false_jumps(c, n, slot);
	int j;

	if (!to_0)
		return;
	ktp_emit(c, BPF_MOV64_IMM(BPF_REG_0, 1));
	j = ktp_jump(c, BPF_JMP_A(0));
	ktp_land_free(c, to_0);
	ktp_emit(c, BPF_MOV64_IMM(BPF_REG_0, 0));
	ktp_land(c, j);
	ktp_store(c, slot, BPF_REG_0);
}

/**
 * ktp_gen() - emit the code that evaluates an expression into a slot
 * @c: the compiler; @c->error is set if the code does not fit or memory
 *     runs out
 * @n: the expression
 * @slot: the slot of the value; the code may use the slots above it
 */
void ktp_gen(struct ktp_compiler *c, const struct ktp_node *n, int slot)
{
	int reg;

	if (c->error)
		return;

	switch (n->op) {
	case KTP_OP_CONST:
		reg = ktp_slot_is_reg(slot) ? ktp_slot_reg(slot) : BPF_REG_0;
		ktp_emit_imm64(c, reg, n->val);
		ktp_store(c, slot, reg);
		return;
	case KTP_OP_REG:
	case KTP_OP_STACKP:
		ktp_v_gen_reg(c, n->op == KTP_OP_REG ? n->param :
			      ktp_sp_offset(), slot);
		return;
	case KTP_OP_ARG:
		ktp_v_gen_arg(c, n, slot);
		return;
	case KTP_OP_FIELD:
		ktp_v_gen_field(c, n, slot);
		return;
	case KTP_OP_READ:
		ktp_v_gen_read(c, n, slot);
		return;
	case KTP_OP_CAST:
	case KTP_OP_NEG:
	case KTP_OP_NOT:
		/* a cast that changes no bit leaves a pointer one */
		if (n->op == KTP_OP_CAST && ktp_v_is_ptr(c, n))
			ktp_gen(c, n->l, slot);
		else
			ktp_gen_int(c, n->l, slot);
		reg = ktp_load(c, slot, BPF_REG_1);
		if (n->op == KTP_OP_CAST)
			ktp_emit_convert(c, reg, n->type);
		else if (n->op == KTP_OP_NEG)
			ktp_emit(c, BPF_ALU64_IMM(BPF_NEG, reg, 0));
		else
			ktp_emit(c, BPF_ALU64_IMM(BPF_XOR, reg, -1));
		ktp_store(c, slot, reg);
		return;
	case KTP_OP_STRCMP:
		ktp_v_gen_strcmp(c, n, slot);
		return;
	case KTP_OP_COND:
		ktp_gen_cond(c, n, slot);
		return;
	case KTP_OP_EQ ... KTP_OP_GE:
	case KTP_OP_LNOT:
	case KTP_OP_LAND:
	case KTP_OP_LOR:
		ktp_gen_bool(c, n, slot);
		return;
	case KTP_OP_CURRENT:
		ktp_v_gen_current(c, slot);
		return;
	case KTP_OP_COMM:
	case KTP_OP_STRLIT:
	case KTP_OP_OBJ:
		/* refused by the parser outside KTP_OP_STRCMP, or no value */
		c->error = -EINVAL;
		return;
	}
	ktp_gen_binary(c, n, slot);
}

/**
 * ktp_v_gen_reg() - a register of the hit, read from the context
 * @c: the compiler
 * @off: its offset in struct pt_regs
 * @slot: where the value goes
 */
void ktp_v_gen_reg(struct ktp_compiler *c, int off, int slot)
{
	int reg = ktp_slot_is_reg(slot) ? ktp_slot_reg(slot) : BPF_REG_0;

	ktp_emit(c, BPF_LDX_MEM(BPF_DW, reg, KTP_R_CTX, off));
	ktp_store(c, slot, reg);
}

/*
 * bpf_rdonly_cast()'s type for a pointer to no type: the verifier loads
 * through it at any offset, and checks no load against a type
 */
#define KTP_BTF_VOID	0

/*
 * R0 = bpf_rdonly_cast() of the address in @slot to the struct whose BTF
 * id is @type, or to void (KTP_BTF_VOID): a pointer the verifier loads
 * through with a nofault load under the JIT, and moves by any offset (it
 * inlines the call)
 */
static void ktp_v_emit_cast(struct ktp_compiler *c, int slot, u32 type)
{
	ktp_load_into(c, slot, BPF_REG_1);
	ktp_emit(c, BPF_MOV64_IMM(BPF_REG_2, type));
	ktp_v_call_kfunc(c, ktp_v_btf_ids[KTP_BTF_RDONLY_CAST]);
}

/* Count a fault: one more on the stack */
static void ktp_v_count_fault(struct ktp_compiler *c)
{
	c->has_faults = true;
	ktp_emit(c, BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_FP, KTP_V_FAULTS));
	ktp_emit(c, BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 1));
	ktp_emit(c, BPF_STX_MEM(BPF_DW, BPF_REG_FP, BPF_REG_1, KTP_V_FAULTS));
}

/* @dst = the @bytes at @src + @off, sign-extended if @sx */
static void ktp_v_emit_load(struct ktp_compiler *c, int bytes, bool sx,
			    int dst, int src, s16 off)
{
	int size = bytes_to_bpf_size(bytes);

	ktp_emit(c, sx ? BPF_LDX_MEMSX(size, dst, src, off) :
		 BPF_LDX_MEM(size, dst, src, off));
}

/*
 * The value of @bytes at the address in @slot plus @off, into R0,
 * sign-extended if @sx, else zero-extended: an inline nofault load under
 * the JIT, then (for a 0, which may be a fault, unless @may_fault is
 * false) the helper that says whether it faulted. @type: the BTF id of
 * the struct the load reads through, or KTP_BTF_VOID; @ptr: the address
 * may be a pointer the verifier types (ktp_v_is_ptr()).
 */
static void ktp_v_emit_read(struct ktp_compiler *c, int slot, s16 off,
			    int bytes, bool sx, bool user, bool may_fault,
			    u32 type, bool ptr)
{
	int done = -1, ok;

	if (c->jit && !user) {
		ktp_v_emit_cast(c, slot, type);
		ktp_v_emit_load(c, bytes, sx, BPF_REG_0, BPF_REG_0, off);
		if (!may_fault)
			return;
		done = ktp_jump(c, BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 0));
	}
	if (ptr && off) {
		/* one that may be NULL takes no offset: the cast's does */
		ktp_v_emit_cast(c, slot, KTP_BTF_VOID);
		ktp_emit(c, BPF_MOV64_REG(BPF_REG_3, BPF_REG_0));
	} else {
		ktp_load_into(c, slot, BPF_REG_3);
	}
	if (off)
		ktp_emit(c, BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, off));
	ktp_emit(c, BPF_MOV64_REG(BPF_REG_1, BPF_REG_FP));
	ktp_emit(c, BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, KTP_V_SCRATCH));
	ktp_emit(c, BPF_MOV64_IMM(BPF_REG_2, bytes));
	ktp_v_call_helper(c, user ? BPF_FUNC_probe_read_user :
			  BPF_FUNC_probe_read_kernel);
	ok = ktp_jump(c, BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 0));
	ktp_v_count_fault(c);
	/*
	 * A user-space probe's handler may page it in and run again; not
	 * under the interpreter, whose programs may not call kfuncs.
	 */
	if (user && (c->env.flags & KTP_ENV_USER) && c->jit) {
		ktp_load_into(c, slot, BPF_REG_1);
		if (off)
			ktp_emit(c, BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, off));
		ktp_emit(c, BPF_MOV64_IMM(BPF_REG_2, bytes));
		ktp_v_call_kfunc(c, ktp_v_btf_ids[KTP_BTF_USER_READ_FAULTED]);
	}
	ktp_land(c, ok);
	/* the helper zeroed it if it faulted */
	ktp_v_emit_load(c, bytes, sx, BPF_REG_0, BPF_REG_FP, KTP_V_SCRATCH);
	ktp_land(c, done);
}

/* [@start, @start + @size) lies in [@first, @end) */
static bool ktp_v_within(unsigned long start, unsigned int size,
			 const char *first, const char *end)
{
	return start >= (unsigned long)first && start + size > start &&
	       start + size <= (unsigned long)end;
}

/*
 * A read of the kernel image's data, bss or read-only data, at an address
 * the definition gives (a global, @sym), cannot fault: they stay mapped
 * while the kernel runs, as a module's data does not. Its code needs no
 * fault check, which makes it shorter to verify and to run.
 */
static bool ktp_v_read_may_fault(const struct ktp_node *n)
{
	unsigned int size = n->param & KTP_T_SIZE;
	const struct ktp_node *a = n->l;
	unsigned long addr;

	if (n->param & KTP_READ_USER)
		return true;
	/*
	 * Nor can a read of the running task's task_struct; and a pointer
	 * read on the way to another read (p->q->r) need not tell a fault
	 * from a 0: the read through it then reads at an address near 0,
	 * which faults, and counts the fault.
	 */
	if (n->tflags & KTP_N_CHAIN)
		return false;
	if (a->op == KTP_OP_ADD && a->l->op == KTP_OP_CURRENT &&
	    a->r->op == KTP_OP_CONST &&
	    a->r->val + size <= sizeof(struct task_struct))
		return false;
	if (a->op != KTP_OP_CONST)
		return true;
	addr = n->l->val;
	return !ktp_v_within(addr, size, _sdata, _edata) &&
	       !ktp_v_within(addr, size, __bss_start, __bss_stop) &&
	       !ktp_v_within(addr, size, __start_rodata, __end_rodata);
}

/*
 * The address of a read and the offset its load takes: a member's offset
 * is the load's own
 */
static const struct ktp_node *ktp_v_read_addr(struct ktp_compiler *c,
					      const struct ktp_node *n,
					      s16 *off)
{
	const struct ktp_node *addr = n->l;

	*off = 0;
	if (c->jit && !(n->param & KTP_READ_USER) && addr->op == KTP_OP_ADD &&
	    addr->r->op == KTP_OP_CONST && addr->r->val <= S16_MAX) {
		*off = addr->r->val;
		addr = addr->l;
	}
	return addr;
}

/*
 * What the inline load of read @n reads through, at offset @off of
 * @addr: the struct @addr points to, if @n is one of its members by C's
 * types and the verifier finds a member there (btf_struct_access(), the
 * check of its loads through a BTF pointer: a union's first member, a
 * bitfield's bytes, or an offset past the struct may not be one); else
 * void. bpf_rdonly_cast() takes vmlinux's structs only: a module's
 * struct is read through void. *@ptr, if @ptr is not NULL: the verifier
 * types the value read as a pointer too.
 */
static u32 ktp_v_read_type(struct ktp_compiler *c, const struct ktp_node *n,
			   const struct ktp_node *addr, s16 off, bool *ptr)
{
	struct bpf_reg_state reg = { .type = PTR_TO_BTF_ID | PTR_UNTRUSTED };
	enum bpf_type_flag flag = 0;
	const struct btf_type *t;
	u32 next_id, id;
	int ret;

	if (ptr)
		*ptr = false;
	if (!c->jit || n->param & KTP_READ_USER || !(n->tflags & KTP_N_BTF) ||
	    !(addr->tflags & KTP_N_BTF) || addr->nptr != 1 || !c->btf ||
	    btf_is_module(c->btf))
		return KTP_BTF_VOID;
	t = btf_type_skip_modifiers(c->btf, addr->btf_id, &id);
	if (!t || !btf_type_is_struct(t))
		return KTP_BTF_VOID;
	reg.btf = c->btf;
	reg.btf_id = id;
	ret = btf_struct_access(NULL, &reg, off, n->param & KTP_T_SIZE,
				BPF_READ, &next_id, &flag, NULL);
	if (ret < 0)
		return KTP_BTF_VOID;
	if (ptr)
		*ptr = ret == PTR_TO_BTF_ID;
	return id;
}

/* Whether the verifier types the value of read @n as a pointer */
static bool ktp_v_read_is_ptr(struct ktp_compiler *c, const struct ktp_node *n)
{
	const struct ktp_node *addr;
	bool ptr;
	s16 off;

	addr = ktp_v_read_addr(c, n, &off);
	ktp_v_read_type(c, n, addr, off, &ptr);
	return ptr;
}

/**
 * ktp_v_gen_read() - a read of kernel or user memory
 * @c: the compiler
 * @n: the read
 * @slot: where the value goes
 */
void ktp_v_gen_read(struct ktp_compiler *c, const struct ktp_node *n, int slot)
{
	int bytes = n->param & KTP_T_SIZE;
	const struct ktp_node *addr;
	bool sx, ptr;
	u32 type;
	s16 off;

	addr = ktp_v_read_addr(c, n, &off);
	type = ktp_v_read_type(c, n, addr, off, &ptr);
	/* the load extends the value as its type says: no conversion */
	sx = ktp_is_signed(n->type) && bytes < 8 &&
	     (n->type & KTP_T_SIZE) == bytes;
	/*
	 * A number in the running task's task_struct: the verifier trusts
	 * the pointer bpf_get_current_task_btf() returns, and loads through
	 * it with no check of the address. A pointer member stays on the
	 * path below, which types what it reads as untrusted, whatever it
	 * points to.
	 */
	if (addr->op == KTP_OP_CURRENT && !ptr &&
	    type != KTP_BTF_VOID) {
		ktp_v_call_helper(c, BPF_FUNC_get_current_task_btf);
		ktp_v_emit_load(c, bytes, sx, BPF_REG_0, BPF_REG_0, off);
		ktp_store(c, slot, BPF_REG_0);
		return;
	}
	ktp_gen(c, addr, slot);
	ktp_v_emit_read(c, slot, off, bytes, sx, n->param & KTP_READ_USER,
			ktp_v_read_may_fault(n), type, ktp_v_is_ptr(c, addr));
	ktp_store(c, slot, BPF_REG_0);
}

/**
 * ktp_v_gen_current() - current, the running task
 * @c: the compiler
 * @slot: where its address goes
 */
void ktp_v_gen_current(struct ktp_compiler *c, int slot)
{
	ktp_v_call_helper(c, BPF_FUNC_get_current_task);
	ktp_store(c, slot, BPF_REG_0);
}

/*
 * Find a "t" probe's tracepoint prototype (ktp_btf_tpoint()), which says
 * its arguments' types; without one, loading the program says so
 */
static void ktp_v_tpoint_btf(struct ktp_compiler *c)
{
	if (ktp_btf_tpoint(c) == -ENOMEM && !c->error)
		c->error = -ENOMEM;
}

/* Whether $argN of a "t" probe is a pointer the verifier types */
static bool ktp_v_tpoint_arg_is_ptr(struct ktp_compiler *c, unsigned int num)
{
	ktp_v_tpoint_btf(c);
	return num > 32 || !(c->tp_scalars & BIT(num - 1));
}

/* Whether a cast to @type changes bits: see ktp_emit_convert() */
static bool ktp_v_cast_converts(int type)
{
	return !(type & (KTP_T_PTR | KTP_T_STR)) && (type & KTP_T_SIZE) < 8;
}

/*
 * Whether a pointer the verifier types moves by @n, the right operand of
 * a + or -, and stays one: by a constant within what the verifier allows
 * (BPF_MAX_VAR_OFF), in an instruction's immediate; any other operand
 * makes a number of it
 */
static bool ktp_v_ptr_offset_ok(const struct ktp_node *n)
{
	s64 val = n->val;

	return n->op == KTP_OP_CONST && val > -BPF_MAX_VAR_OFF &&
	       val < BPF_MAX_VAR_OFF;
}

/**
 * ktp_v_is_ptr() - whether the verifier sees a value as a pointer
 * @c: the compiler
 * @n: the value
 *
 * A "t" probe's argument that points to a struct is the verifier's BTF
 * pointer, as is a pointer member read through its struct (see
 * ktp_v_read_type()); an "e" probe's string field is an address in its
 * record, the program's context. Each stays what it is through what the
 * verifier lets a pointer take: a constant added or subtracted, a cast
 * that changes no bit, "?:", a compare, a read through it, a kfunc's
 * __ign argument. An integer operation makes a number of it first
 * (ktp_v_emit_number()).
 *
 * Return: true if @n may be such a pointer.
 */
bool ktp_v_is_ptr(struct ktp_compiler *c, const struct ktp_node *n)
{
	struct ftrace_event_field *field;

	switch (n->op) {
	case KTP_OP_ARG:
		return c->env.flags & KTP_ENV_TPOINT &&
		       ktp_v_tpoint_arg_is_ptr(c, n->param);
	case KTP_OP_FIELD:
		field = (void *)(unsigned long)n->val;
		return is_string_field(field) &&
		       field->filter_type != FILTER_PTR_STRING;
	case KTP_OP_ADD:
	case KTP_OP_SUB:
		return ktp_v_is_ptr(c, n->l) && !ktp_v_is_ptr(c, n->r) &&
		       ktp_v_ptr_offset_ok(n->r);
	case KTP_OP_CAST:
		return !ktp_v_cast_converts(n->type) && ktp_v_is_ptr(c, n->l);
	case KTP_OP_COND:
		return ktp_v_is_ptr(c, n->l) || ktp_v_is_ptr(c, n->r);
	case KTP_OP_READ:
		return ktp_v_read_is_ptr(c, n);
	default:
		return false;
	}
}

/**
 * ktp_v_emit_number() - make the number a pointer in a slot is
 * @c: the compiler
 * @slot: the slot, which holds a value ktp_v_is_ptr() says may be a
 *	  pointer the verifier types
 *
 * C converts a pointer to an integer where an integer operation takes
 * it; the verifier lets a pointer take + and - only, and keeps its type.
 * The number is the pointer's eight bytes, copied from the stack by
 * bpf_probe_read_kernel(), a copy the verifier types as a number, as it
 * does any it did not write. Only an integer operation on such a pointer
 * pays for it: a read through the pointer, a compare and a fetch of its
 * value take the pointer as it is.
 */
void ktp_v_emit_number(struct ktp_compiler *c, int slot)
{
	int reg = ktp_load(c, slot, BPF_REG_3);

	ktp_emit(c, BPF_STX_MEM(BPF_DW, BPF_REG_FP, reg, KTP_V_SCRATCH));
	ktp_emit(c, BPF_MOV64_REG(BPF_REG_1, BPF_REG_FP));
	ktp_emit(c, BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, KTP_V_SCRATCH));
	ktp_emit(c, BPF_MOV64_IMM(BPF_REG_2, sizeof(u64)));
	ktp_emit(c, BPF_MOV64_REG(BPF_REG_3, BPF_REG_1));
	ktp_v_call_helper(c, BPF_FUNC_probe_read_kernel);
	ktp_emit(c, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_FP, KTP_V_SCRATCH));
	ktp_store(c, slot, BPF_REG_0);
}

/**
 * ktp_v_emit_null_split() - let a "t" probe's pointer move
 * @c: the compiler
 * @reg: the register holding a value ktp_v_is_ptr() says may be a pointer
 *
 * The verifier moves no pointer that may be NULL (every pointer argument
 * of a module's tracepoint) until it is tested: NULL goes on as the
 * number 0. Where the pointer cannot be NULL, the verifier drops the
 * test.
 */
void ktp_v_emit_null_split(struct ktp_compiler *c, int reg)
{
	if (!(c->env.flags & KTP_ENV_TPOINT))
		return;
	ktp_emit(c, BPF_JMP_IMM(BPF_JNE, reg, 0, 1));
	ktp_emit(c, BPF_MOV64_IMM(reg, 0));
}

/**
 * ktp_v_gen_tpoint_arg() - load an argument of a "t" probe's tracepoint
 * @c: the compiler
 * @num: the argument, from 1
 * @reg: the register it goes to: a number, or a pointer the verifier
 *	 types by the tracepoint's BTF prototype
 */
void ktp_v_gen_tpoint_arg(struct ktp_compiler *c, unsigned int num, int reg)
{
	ktp_v_tpoint_btf(c);
	ktp_emit(c, BPF_LDX_MEM(BPF_DW, reg, KTP_R_CTX, (num - 1) * 8));
}

/**
 * ktp_v_gen_field() - a field of an "e" probe's event record
 * @c: the compiler
 * @n: the field: an integer, or the address of a string to compare
 * @slot: where the value goes
 */
void ktp_v_gen_field(struct ktp_compiler *c, const struct ktp_node *n,
		     int slot)
{
	struct ftrace_event_field *field = (void *)(unsigned long)n->val;
	int reg = ktp_slot_is_reg(slot) ? ktp_slot_reg(slot) : BPF_REG_0;
	int off = field->offset;

	if (!is_string_field(field)) {
		ktp_emit(c, BPF_LDX_MEM(bytes_to_bpf_size(field->size), reg,
					KTP_R_CTX, off));
		ktp_emit_convert(c, reg, n->type);
		ktp_store(c, slot, reg);
		return;
	}
	switch (field->filter_type) {
	/* the record's address is the context, a pointer it stays */
	case FILTER_DYN_STRING:		/* rec + (loc & 0xffff) */
	case FILTER_RDYN_STRING:	/* the field's end + (loc & 0xffff) */
		ktp_emit(c, BPF_LDX_MEM(BPF_W, reg, KTP_R_CTX, off));
		ktp_emit(c, BPF_ALU64_IMM(BPF_AND, reg, 0xffff));
		ktp_emit(c, BPF_ALU64_REG(BPF_ADD, reg, KTP_R_CTX));
		if (field->filter_type == FILTER_RDYN_STRING)
			ktp_emit(c, BPF_ALU64_IMM(BPF_ADD, reg,
						  off + sizeof(u32)));
		break;
	case FILTER_PTR_STRING:
		ktp_emit(c, BPF_LDX_MEM(BPF_DW, reg, KTP_R_CTX, off));
		break;
	default:			/* a char array in the record */
		ktp_emit(c, BPF_MOV64_REG(reg, KTP_R_CTX));
		ktp_emit(c, BPF_ALU64_IMM(BPF_ADD, reg, off));
	}
	ktp_store(c, slot, reg);
}

/**
 * ktp_v_gen_arg() - $argN at a function's entry, or saved at its entry
 * @c: the compiler
 * @n: the argument
 * @slot: where the value goes
 */
void ktp_v_gen_arg(struct ktp_compiler *c, const struct ktp_node *n, int slot)
{
	int off;

	if (c->env.flags & KTP_ENV_TPOINT) {
		ktp_v_gen_tpoint_arg(c, n->param, ktp_slot_is_reg(slot) ?
				     ktp_slot_reg(slot) : BPF_REG_0);
		ktp_store(c, slot, ktp_slot_is_reg(slot) ? ktp_slot_reg(slot) :
			  BPF_REG_0);
		return;
	}
	if (c->env.flags & KTP_ENV_RETURN) {
		/* ktp_prog_run_verified() copied them before the program */
		ktp_v_area(c);
		ktp_emit(c, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1,
					(KTP_V_ENTRY + n->param - 1) * 8));
		ktp_store(c, slot, BPF_REG_0);
		return;
	}
	off = ktp_arg_reg_offset(n->param);
	if (off >= 0) {
		ktp_v_gen_reg(c, off, slot);
		return;
	}
	/* on the stack: the parser checked that it is found there */
	ktp_emit(c, BPF_LDX_MEM(BPF_DW, BPF_REG_0, KTP_R_CTX, ktp_sp_offset()));
	ktp_emit(c, BPF_ALU64_IMM(BPF_ADD, BPF_REG_0,
				  ktp_arg_stack_offset(n->param)));
	ktp_store(c, slot, BPF_REG_0);
	/* a user-space probe's function has its arguments on the user's stack */
	ktp_v_emit_read(c, slot, 0, 8, false, c->env.flags & KTP_ENV_USER,
			true, KTP_BTF_VOID, false);
	ktp_store(c, slot, BPF_REG_0);
}

/*
 * The first byte of a kernel string at the address in @slot, read
 * inline: where it is not 0 (which a fault reads too) and not the
 * literal's first byte, the compare is decided without the kfunc, which
 * copies the whole string. So is most of a false compare. Return: the
 * jump to after the kfunc's call, with its result in R0, or -1.
 */
static int ktp_v_emit_first_byte(struct ktp_compiler *c,
				 const struct ktp_node *n, int slot)
{
	const char *lit = (const char *)(unsigned long)n->val;
	u32 how = n->param & KTP_STR_OPS;
	int same, zero, done;

	/* a glob's first character may match more than itself */
	if (!c->jit || n->param & KTP_STR_USER || !lit[0] ||
	    (how == KTP_STR_GLOB && strchr("*?[\\", lit[0])))
		return -1;
	ktp_v_emit_cast(c, slot, KTP_BTF_VOID);
	ktp_emit(c, BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_0, 0));
	zero = ktp_jump(c, BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 0));
	same = ktp_jump(c, BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, (u8)lit[0], 0));
	ktp_emit(c, BPF_MOV64_IMM(BPF_REG_0, how == KTP_STR_NE));
	done = ktp_jump(c, BPF_JMP_A(0));
	ktp_land(c, zero);
	ktp_land(c, same);
	return done;
}

/**
 * ktp_v_gen_strcmp() - a string compared with a literal, by ktp_strcmp()
 * @c: the compiler
 * @n: the compare; its val is the literal
 * @slot: where the value goes
 */
void ktp_v_gen_strcmp(struct ktp_compiler *c, const struct ktp_node *n,
		      int slot)
{
	int ok, decided = -1;
	unsigned int lit;

	/* the verifier lets only JIT-compiled programs call kfuncs */
	if (!c->jit) {
		if (!c->error)
			c->error = -EOPNOTSUPP;
		return;
	}
	for (lit = 0; lit < c->nr_lits; lit++)
		if ((unsigned long)c->lits[lit] == n->val)
			break;
	if (n->param & KTP_STR_COMM) {
		ktp_emit(c, BPF_MOV64_IMM(BPF_REG_3, 0));
	} else {
		ktp_gen(c, n->l, slot);
		decided = ktp_v_emit_first_byte(c, n, slot);
		ktp_load_into(c, slot, BPF_REG_3);
	}
	ktp_v_emit_self(c);
	ktp_emit(c, BPF_MOV64_IMM(BPF_REG_4, lit));
	ktp_emit(c, BPF_MOV64_IMM(BPF_REG_5, n->param));
	ktp_v_call_kfunc(c, ktp_v_btf_ids[KTP_BTF_STRCMP]);
	/* -1: the string could not be read, a fault; the compare is false */
	ok = ktp_jump(c, BPF_JMP32_IMM(BPF_JSGE, BPF_REG_0, 0, 0));
	ktp_v_count_fault(c);
	ktp_emit(c, BPF_MOV64_IMM(BPF_REG_0, 0));
	ktp_land(c, ok);
	ktp_emit(c, BPF_MOV32_REG(BPF_REG_0, BPF_REG_0));
	ktp_land(c, decided);
	ktp_store(c, slot, BPF_REG_0);
}
