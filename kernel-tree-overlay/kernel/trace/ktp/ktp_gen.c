// SPDX-License-Identifier: GPL-2.0
/*
 * KTP's expression compiler: code generation. A tree becomes eBPF
 * instructions: values live in slots, R7-R9 then the stack, and R6
 * holds the context across calls. A condition is a chain of jumps to
 * its false end. What depends on the program's context and on BPF's
 * helpers and kfuncs is in ktp_gen_v.c.
 */
#include <linux/glob.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "../trace.h"
#include "../trace_probe.h"
#include "ktp_gen.h"
#include "ktp_regs.h"

/**
 * ktp_str_compare() - compare a string with a literal, as a program asks
 * @addr: the string's address, unused for $comm
 * @lit: the literal
 * @how: KTP_STR_* flags, and the size of a char array field (0 for a
 *	 NUL-terminated string)
 *
 * Return: 1 if the compare holds, 0 if not, -1 if the string could not
 * be read.
 */
int ktp_str_compare(unsigned long addr, const char *lit, u32 how)
{
	unsigned int len = (how >> KTP_STR_LEN_SHIFT) & (KTP_EXPR_STR_MAX - 1);
	char buf[KTP_EXPR_STR_MAX];
	bool match;
	long ret;

	if (how & KTP_STR_COMM) {
		/* as $comm fetches it: no task_lock() in a probe */
		memcpy(buf, current->comm, TASK_COMM_LEN);
		buf[TASK_COMM_LEN - 1] = '\0';
	} else {
		void __user *uaddr = (void __user *)addr;

		if (how & KTP_STR_USER) {
			ret = len ? copy_from_user_nofault(buf, uaddr, len) :
			      strncpy_from_user_nofault(buf, uaddr, sizeof(buf));
			if (ret < 0)
				ktp_note_user_fault(addr, len ?: sizeof(buf),
						    !len);
		} else if (len) {
			ret = copy_from_kernel_nofault(buf, (void *)addr, len);
		} else {
			ret = strncpy_from_kernel_nofault(buf, (void *)addr,
							  sizeof(buf));
		}
		if (ret < 0)
			return -1;
		buf[len ?: sizeof(buf) - 1] = '\0';
	}
	if ((how & KTP_STR_OPS) == KTP_STR_GLOB)
		return glob_match(lit, buf);
	match = !strcmp(buf, lit);
	return (how & KTP_STR_OPS) == KTP_STR_EQ ? match : !match;
}

NOKPROBE_SYMBOL(ktp_str_compare);

/* The code */

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

/* Whether @val can be a 32-bit immediate, sign-extended */
static bool ktp_imm32_ok(u64 val)
{
	return (s64)val == (s32)val;
}

/* A 64-bit immediate, in two instructions */
static void ktp_emit_ld_imm64(struct ktp_compiler *c, int reg, u64 val)
{
	struct bpf_insn insn[2] = { BPF_LD_IMM64(reg, val) };

	ktp_emit(c, insn[0]);
	ktp_emit(c, insn[1]);
}

static void ktp_emit_imm64(struct ktp_compiler *c, int reg, u64 val)
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
