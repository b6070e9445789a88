// SPDX-License-Identifier: GPL-2.0
/*
 * KTP's program checker.
 *
 * KTP's programs do not go through the BPF verifier: the compiler makes
 * them safe by construction. This checker holds every program to that
 * construction before it runs, as bpf_check_classic() does for classic
 * BPF: a compiler bug is refused here instead of running in a probe.
 *
 * The rules, in one forward pass (jumps only go forward, so every
 * instruction's predecessors are seen before it):
 *  - only the instructions the compiler emits, registers R0-R10, R10
 *    only as the base of a stack access;
 *  - jumps go forward and land inside the program, never inside a
 *    64-bit immediate;
 *  - no register and no stack slot is read before it is written on
 *    every path to the instruction;
 *  - loads only from the context, the pt_regs (of a "p" or "r" probe),
 *    the saved $argN, the event record (of an "e" probe, where its
 *    fields are) and the stack, at offsets inside each; nofault loads
 *    (BPF_PROBE_MEM, which read 0 where they would fault) from any
 *    address a register holds;
 *  - stores only to the stack, inside aux->stack_depth <= MAX_BPF_STACK,
 *    and to the values of the fetch expressions;
 *  - calls only to KTP's helpers, with their arguments set and R1 the
 *    context (and a "t" probe's ktp_bpf_tp_false() its counters in R2);
 *  - a division or modulo by a register only where a jump has tested it
 *    against 0 (and, signed, against -1) on every path, as
 *    ktp_gen_binary() does: the interpreter and the JIT would trap;
 *  - the program ends in EXIT with R0 set, and nothing falls off its end.
 *
 * A "t" probe's program starts with ktp_tpoint_prologue(), which puts its
 * context on the top of its stack (R6 points to it): the rest may not
 * touch those bytes, reads no registers and no record, and calls the
 * helpers of "t" probes as well, in the order a hit takes (enum ktp_hit):
 * on every path, the condition, then ktp_bpf_tp_enter() and a test of what
 * it returned, then the values (ctx->vals is NULL before) and
 * ktp_bpf_tp_record(), or ktp_bpf_tp_false() instead of all that, before
 * the exit. A hit entered and not recorded would stay entered.
 */
#include <linux/filter.h>
#include <linux/ptrace.h>
#include <linux/slab.h>

#include "ktp_expr.h"

/* What a register holds, as far as the checker knows */
enum ktp_kind {
	KTP_K_UNSET,		/* not written on every path */
	KTP_K_SCALAR,		/* a number: never a base of a load */
	KTP_K_CTX,		/* struct ktp_run_ctx * */
	KTP_K_REGS,		/* struct pt_regs * */
	KTP_K_REC,		/* the event record */
	KTP_K_ENTRY,		/* the $argN an 'r' probe saved */
	KTP_K_VALS,		/* the fetch expressions' values */
	KTP_K_FP,		/* R10, the frame pointer */
	KTP_K_COUNTERS,		/* a "t" probe's counters, see lim->counters */
};

/* Where a "t" probe's program is in its hit */
enum ktp_hit {
	KTP_HIT_OUT,		/* not entered: its condition */
	KTP_HIT_ASKED,		/* R0 is what ktp_bpf_tp_enter() returned */
	KTP_HIT_IN,		/* entered: its values, then the record */
	KTP_HIT_DONE,		/* recorded, counted false or missed: the exit */
	KTP_HIT_MIXED,		/* where paths that disagree meet */
};

/* The state at the start of an instruction, met over all its paths */
struct ktp_check_state {
	bool	reached;
	u8	kind[MAX_BPF_REG];
	u8	hit;		/* enum ktp_hit, in a "t" probe's program */
	u16	nonzero;	/* registers known not 0, bit N: RN */
	u16	not_minus1;	/* registers known not -1 */
	u64	stack;		/* stack slots written, bit N: fp - 8 * (N + 1) */
};

struct ktp_checker {
	const struct bpf_insn		*insns;
	u32				len;
	const struct ktp_check_limits	*lim;
	struct ktp_check_state		*st;
	bool				*imm_hi;	/* second half of LD_IMM64 */
};

static const struct {
	void	*func;
	int	nr_args;
	bool	tpoint;		/* only in a "t" probe's program */
	u8	r2_kind;	/* what R2 must hold; 0: any number */
} ktp_check_helpers[] = {
	{ ktp_bpf_read, 3 },
	{ ktp_bpf_strcmp, 4 },
	{ ktp_bpf_tp_enter, 1, true },
	{ ktp_bpf_tp_record, 1, true },
	{ ktp_bpf_tp_false, 2, true, KTP_K_COUNTERS },
};

/**
 * ktp_tpoint_prologue() - the first instructions of a "t" probe's program
 * @insn: where to write its KTP_TPOINT_PROLOGUE_LEN instructions
 *
 * R1 is the array of the tracepoint's arguments. The prologue makes a
 * struct ktp_run_ctx of them on the stack, with no values until
 * ktp_bpf_tp_enter() sets them and no faults yet, and points R6 to it.
 */
void ktp_tpoint_prologue(struct bpf_insn *insn)
{
	insn[0] = BPF_STX_MEM(BPF_DW, BPF_REG_FP, BPF_REG_1,
			      KTP_TPOINT_CTX_OFF(entry));
	insn[1] = BPF_ST_MEM(BPF_DW, BPF_REG_FP, KTP_TPOINT_CTX_OFF(vals), 0);
	insn[2] = BPF_ST_MEM(BPF_DW, BPF_REG_FP, KTP_TPOINT_CTX_OFF(faults), 0);
	insn[3] = BPF_MOV64_REG(BPF_REG_6, BPF_REG_FP);
	insn[4] = BPF_ALU64_IMM(BPF_ADD, BPF_REG_6, -KTP_TPOINT_CTX_SIZE);
}

/* Meet @from into the state of instruction @to */
static void ktp_check_flow(struct ktp_checker *k, u32 to,
			   const struct ktp_check_state *from)
{
	struct ktp_check_state *st = &k->st[to];
	int r;

	if (!st->reached) {
		*st = *from;
		return;
	}
	for (r = 0; r < MAX_BPF_REG; r++) {
		if (st->kind[r] == from->kind[r])
			continue;
		if (st->kind[r] == KTP_K_UNSET || from->kind[r] == KTP_K_UNSET)
			st->kind[r] = KTP_K_UNSET;
		else
			st->kind[r] = KTP_K_SCALAR;
	}
	st->stack &= from->stack;
	st->nonzero &= from->nonzero;
	st->not_minus1 &= from->not_minus1;
	if (st->hit != from->hit)
		st->hit = KTP_HIT_MIXED;
}

/* Register @reg is written: it holds @kind, and nothing more is known */
static void ktp_check_write(struct ktp_check_state *st, int reg, u8 kind)
{
	st->kind[reg] = kind;
	st->nonzero &= ~BIT(reg);
	st->not_minus1 &= ~BIT(reg);
}

/* A set register other than R10 */
static bool ktp_check_read(const struct ktp_check_state *st, int reg)
{
	return reg < BPF_REG_FP && st->kind[reg] != KTP_K_UNSET;
}

/* The stack slot of [fp + off, fp + off + size), or -1 if out of bounds */
static int ktp_check_slot(const struct ktp_checker *k, int off, int size)
{
	if (off >= 0 || off + size > 0 || -off > k->lim->stack_depth)
		return -1;
	/* the context of a "t" probe's program */
	if (k->lim->tpoint && -off <= KTP_TPOINT_CTX_SIZE)
		return -1;
	/* the compiler's slots are whole, aligned u64s */
	if (size != 8 || off % 8)
		return -1;
	return -off / 8 - 1;
}

static int ktp_check_size(u8 code)
{
	return bpf_size_to_bytes(BPF_SIZE(code));
}

/* A load: the kind it gives, or -1 if it may not be made */
static int ktp_check_load(const struct ktp_checker *k,
			  const struct ktp_check_state *st,
			  const struct bpf_insn *insn)
{
	int size = ktp_check_size(insn->code), off = insn->off, slot;
	u32 end = off + size;

	if (off < 0 && st->kind[insn->src_reg] != KTP_K_FP)
		return -1;
	switch (st->kind[insn->src_reg]) {
	case KTP_K_CTX:
		if (size != 8)
			return -1;
		/* the registers and the record of the probes that have them */
		switch (off) {
		case offsetof(struct ktp_run_ctx, regs):
			return k->lim->regs ? KTP_K_REGS : -1;
		case offsetof(struct ktp_run_ctx, rec):
			return k->lim->rec_size ? KTP_K_REC : -1;
		case offsetof(struct ktp_run_ctx, entry):
			return KTP_K_ENTRY;
		case offsetof(struct ktp_run_ctx, vals):
			/* set by ktp_bpf_tp_enter() in a "t" probe's program */
			if (k->lim->tpoint && st->hit != KTP_HIT_IN)
				return -1;
			return KTP_K_VALS;
		}
		return -1;
	case KTP_K_REGS:
		return end <= sizeof(struct pt_regs) ? KTP_K_SCALAR : -1;
	case KTP_K_ENTRY:
		return end <= k->lim->nr_entry_args * sizeof(u64) ?
		       KTP_K_SCALAR : -1;
	case KTP_K_REC:
		return end <= k->lim->rec_size ? KTP_K_SCALAR : -1;
	case KTP_K_FP:
		slot = ktp_check_slot(k, off, size);
		if (slot < 0 || !(st->stack & BIT_ULL(slot)))
			return -1;
		return KTP_K_SCALAR;
	}
	return -1;
}

/* A store: the updated @st, or false if it may not be made */
static bool ktp_check_store(const struct ktp_checker *k,
			    struct ktp_check_state *st,
			    const struct bpf_insn *insn)
{
	int size = ktp_check_size(insn->code), off = insn->off, slot;

	if (!ktp_check_read(st, insn->src_reg))
		return false;
	switch (st->kind[insn->dst_reg]) {
	case KTP_K_FP:
		slot = ktp_check_slot(k, off, size);
		if (slot < 0)
			return false;
		st->stack |= BIT_ULL(slot);
		return true;
	case KTP_K_VALS:
		return size == 8 && off >= 0 && !(off % 8) &&
		       off < k->lim->nr_vals * sizeof(u64);
	}
	return false;
}

static bool ktp_check_alu(struct ktp_check_state *st,
			  const struct bpf_insn *insn)
{
	u8 op = BPF_OP(insn->code);
	bool is64 = BPF_CLASS(insn->code) == BPF_ALU64;
	bool x = BPF_SRC(insn->code) == BPF_X;

	if (insn->dst_reg >= BPF_REG_FP || (x && insn->src_reg >= BPF_REG_FP))
		return false;
	if (!x && insn->src_reg)
		return false;
	/* 32-bit: only the MOV that zero-extends a u32 */
	if (!is64 && (op != BPF_MOV || !x))
		return false;
	/*
	 * off 1 is the signed division and modulo; by an immediate, only a
	 * positive one (the compiler checks for 0 and -1 before an idiv)
	 */
	if (insn->off && (insn->off != 1 || (op != BPF_DIV && op != BPF_MOD)))
		return false;
	if (!x && (op == BPF_DIV || op == BPF_MOD) && insn->imm <= 0)
		return false;
	if (!x && (op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH) &&
	    (u32)insn->imm >= 64)
		return false;

	switch (op) {
	case BPF_MOV:
		if (x && !ktp_check_read(st, insn->src_reg))
			return false;
		ktp_check_write(st, insn->dst_reg,
				x && is64 ? st->kind[insn->src_reg] : KTP_K_SCALAR);
		if (st->kind[insn->dst_reg] == KTP_K_FP)
			return false;
		return true;
	case BPF_NEG:
		if (x)
			return false;
		fallthrough;
	case BPF_ADD: case BPF_SUB: case BPF_MUL: case BPF_DIV: case BPF_MOD:
	case BPF_OR: case BPF_AND: case BPF_XOR:
	case BPF_LSH: case BPF_RSH: case BPF_ARSH:
		if (!ktp_check_read(st, insn->dst_reg) ||
		    (x && !ktp_check_read(st, insn->src_reg)))
			return false;
		/* by a register: only one tested as ktp_gen_binary() does */
		if (x && (op == BPF_DIV || op == BPF_MOD) &&
		    (!(st->nonzero & BIT(insn->src_reg)) ||
		     (insn->off && !(st->not_minus1 & BIT(insn->src_reg)))))
			return false;
		/* arithmetic on a pointer gives a number */
		ktp_check_write(st, insn->dst_reg, KTP_K_SCALAR);
		return true;
	}
	return false;
}

/* A 64-bit immediate is a number, or the counters lim->counters names */
static u8 ktp_check_imm64(const struct ktp_checker *k,
			  const struct bpf_insn *insn)
{
	u64 val = (u32)insn[0].imm | (u64)(u32)insn[1].imm << 32;

	if (k->lim->tpoint && k->lim->counters &&
	    val == (__force unsigned long)k->lim->counters)
		return KTP_K_COUNTERS;
	return KTP_K_SCALAR;
}

/*
 * A call in a "t" probe's program: the helpers of its hit each in their
 * turn, the others in its condition or its values
 */
static bool ktp_check_hit_call(struct ktp_check_state *st, const void *func)
{
	u8 from = KTP_HIT_OUT, to;

	if (func == ktp_bpf_tp_enter) {
		to = KTP_HIT_ASKED;
	} else if (func == ktp_bpf_tp_record) {
		from = KTP_HIT_IN;
		to = KTP_HIT_DONE;
	} else if (func == ktp_bpf_tp_false) {
		to = KTP_HIT_DONE;
	} else {
		return st->hit == KTP_HIT_OUT || st->hit == KTP_HIT_IN;
	}
	if (st->hit != from)
		return false;
	st->hit = to;
	return true;
}

static bool ktp_check_call(const struct ktp_checker *k,
			   struct ktp_check_state *st,
			   const struct bpf_insn *insn)
{
	int i, r;

	if (insn->src_reg || insn->dst_reg || insn->off)
		return false;
	for (i = 0; i < ARRAY_SIZE(ktp_check_helpers); i++) {
		if (insn->imm == BPF_CALL_IMM(ktp_check_helpers[i].func))
			break;
	}
	if (i == ARRAY_SIZE(ktp_check_helpers) ||
	    (ktp_check_helpers[i].tpoint && !k->lim->tpoint))
		return false;
	if (st->kind[BPF_REG_1] != KTP_K_CTX)
		return false;
	for (r = BPF_REG_2; r <= ktp_check_helpers[i].nr_args; r++) {
		if (!ktp_check_read(st, r))
			return false;
	}
	if (ktp_check_helpers[i].r2_kind &&
	    st->kind[BPF_REG_2] != ktp_check_helpers[i].r2_kind)
		return false;
	if (k->lim->tpoint &&
	    !ktp_check_hit_call(st, ktp_check_helpers[i].func))
		return false;
	/* helpers clobber R1-R5 and return a number in R0 */
	for (r = BPF_REG_1; r <= BPF_REG_5; r++)
		ktp_check_write(st, r, KTP_K_UNSET);
	ktp_check_write(st, BPF_REG_0, KTP_K_SCALAR);
	return true;
}

/*
 * What a jump if a register is or is not 0 or -1 tells each way: the
 * divisor tests of ktp_gen_binary(), and whether ktp_bpf_tp_enter()
 * entered the hit.
 */
static void ktp_check_learn(const struct ktp_checker *k,
			    const struct bpf_insn *insn,
			    struct ktp_check_state *taken,
			    struct ktp_check_state *fall)
{
	u8 op = BPF_OP(insn->code);
	struct ktp_check_state *ne, *eq;

	if (BPF_SRC(insn->code) != BPF_K || (op != BPF_JEQ && op != BPF_JNE))
		return;
	/* the way where the register is not the immediate, and the other */
	ne = op == BPF_JNE ? taken : fall;
	eq = op == BPF_JNE ? fall : taken;
	if (insn->imm == 0)
		ne->nonzero |= BIT(insn->dst_reg);
	else if (insn->imm == -1)
		ne->not_minus1 |= BIT(insn->dst_reg);
	/* ktp_check_insn() let only a test of R0 with 0 through */
	if (k->lim->tpoint && fall->hit == KTP_HIT_ASKED) {
		ne->hit = KTP_HIT_IN;
		eq->hit = KTP_HIT_DONE;		/* missed, and counted */
	}
}

/* A jump's target, or -1 if it may not be taken */
static int ktp_check_target(const struct ktp_checker *k, u32 i,
			    const struct bpf_insn *insn)
{
	u32 to = i + 1 + insn->off;

	if (insn->off < 0 || to >= k->len || k->imm_hi[to])
		return -1;
	return to;
}

static bool ktp_check_jmp(struct ktp_checker *k, u32 i,
			  struct ktp_check_state *st, bool *falls)
{
	const struct bpf_insn *insn = &k->insns[i];
	u8 op = BPF_OP(insn->code);
	bool x = BPF_SRC(insn->code) == BPF_X;
	struct ktp_check_state taken;
	int to;

	switch (op) {
	case BPF_CALL:
		return !x && ktp_check_call(k, st, insn);
	case BPF_EXIT:
		*falls = false;
		if (k->lim->tpoint && st->hit != KTP_HIT_DONE)
			return false;
		return !x && !insn->src_reg && !insn->dst_reg && !insn->off &&
		       !insn->imm && ktp_check_read(st, BPF_REG_0);
	case BPF_JA:
		*falls = false;
		to = ktp_check_target(k, i, insn);
		if (x || insn->src_reg || insn->dst_reg || insn->imm || to < 0)
			return false;
		ktp_check_flow(k, to, st);
		return true;
	case BPF_JEQ: case BPF_JNE: case BPF_JGT: case BPF_JGE:
	case BPF_JLT: case BPF_JLE: case BPF_JSGT: case BPF_JSGE:
	case BPF_JSLT: case BPF_JSLE: case BPF_JSET:
		to = ktp_check_target(k, i, insn);
		if (to < 0 || !ktp_check_read(st, insn->dst_reg) ||
		    (x && !ktp_check_read(st, insn->src_reg)) ||
		    (!x && insn->src_reg))
			return false;
		taken = *st;
		ktp_check_learn(k, insn, &taken, st);
		ktp_check_flow(k, to, &taken);
		return true;
	}
	return false;
}

/* After ktp_bpf_tp_enter(), the test of R0 with 0 */
static bool ktp_check_enter_test(const struct bpf_insn *insn)
{
	return (insn->code == (BPF_JMP | BPF_JEQ | BPF_K) ||
		insn->code == (BPF_JMP | BPF_JNE | BPF_K)) &&
	       insn->dst_reg == BPF_REG_0 && !insn->imm;
}

/* Check instruction @i; false if it breaks a rule */
static bool ktp_check_insn(struct ktp_checker *k, u32 i, bool *falls)
{
	const struct bpf_insn *insn = &k->insns[i];
	struct ktp_check_state st = k->st[i];
	int kind;

	*falls = true;
	if (insn->dst_reg > BPF_REG_FP || insn->src_reg > BPF_REG_FP)
		return false;
	if (st.hit == KTP_HIT_ASKED && !ktp_check_enter_test(insn))
		return false;

	switch (BPF_CLASS(insn->code)) {
	case BPF_ALU64:
	case BPF_ALU:
		if (!ktp_check_alu(&st, insn))
			return false;
		break;
	case BPF_JMP:
		if (!ktp_check_jmp(k, i, &st, falls))
			return false;
		break;
	case BPF_LDX:
		if (BPF_MODE(insn->code) == BPF_PROBE_MEM) {
			if (insn->imm || insn->off || insn->dst_reg >= BPF_REG_FP ||
			    insn->src_reg >= BPF_REG_FP ||
			    st.kind[insn->src_reg] == KTP_K_UNSET)
				return false;
			ktp_check_write(&st, insn->dst_reg, KTP_K_SCALAR);
			break;
		}
		if (BPF_MODE(insn->code) != BPF_MEM || insn->imm ||
		    insn->dst_reg >= BPF_REG_FP || insn->src_reg > BPF_REG_FP)
			return false;
		kind = ktp_check_load(k, &st, insn);
		if (kind < 0)
			return false;
		ktp_check_write(&st, insn->dst_reg, kind);
		break;
	case BPF_STX:
		if (BPF_MODE(insn->code) != BPF_MEM || insn->imm ||
		    !ktp_check_store(k, &st, insn))
			return false;
		break;
	case BPF_LD:
		/* a 64-bit immediate, no pseudo source */
		if (insn->code != (BPF_LD | BPF_IMM | BPF_DW) || insn->src_reg ||
		    insn->off || insn->dst_reg >= BPF_REG_FP || i + 1 >= k->len ||
		    insn[1].code || insn[1].dst_reg || insn[1].src_reg ||
		    insn[1].off)
			return false;
		ktp_check_write(&st, insn->dst_reg, ktp_check_imm64(k, insn));
		break;
	default:
		return false;
	}
	if (*falls) {
		i += insn->code == (BPF_LD | BPF_IMM | BPF_DW) ? 2 : 1;
		if (i >= k->len)
			return false;	/* off the end */
		ktp_check_flow(k, i, &st);
	}
	return true;
}

/**
 * ktp_check_prog() - check a program KTP made before it can run
 * @insns: the instructions
 * @len: how many
 * @lim: what the program may touch
 * @bad: set to the index of the first instruction refused
 *
 * See the rules at the top of this file.
 *
 * Return: 0 if the program keeps every rule, -EINVAL (with @bad set) if
 * it breaks one, -ENOMEM.
 */
int ktp_check_prog(const struct bpf_insn *insns, u32 len,
		   const struct ktp_check_limits *lim, u32 *bad)
{
	struct ktp_checker k = { .insns = insns, .len = len, .lim = lim };
	struct bpf_insn prologue[KTP_TPOINT_PROLOGUE_LEN];
	u32 start = 0;
	bool falls;
	int ret = -EINVAL;
	u32 i;

	*bad = 0;
	if (!len || len > KTP_EXPR_MAX_INSNS || lim->stack_depth > MAX_BPF_STACK ||
	    lim->stack_depth % 8 || lim->nr_vals > KTP_EXPR_MAX_FETCHES)
		return -EINVAL;

	k.st = kvcalloc(len, sizeof(*k.st), GFP_KERNEL);
	k.imm_hi = kvcalloc(len, sizeof(*k.imm_hi), GFP_KERNEL);
	if (!k.st || !k.imm_hi) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i + 1 < len; i++) {
		if (insns[i].code == (BPF_LD | BPF_IMM | BPF_DW))
			k.imm_hi[++i] = true;
	}

	/* the program's entry: R1 the context, R10 the frame */
	if (lim->tpoint) {
		/* or, after the prologue, R6 the context on the stack */
		ktp_tpoint_prologue(prologue);
		if (len <= KTP_TPOINT_PROLOGUE_LEN ||
		    lim->stack_depth < KTP_TPOINT_CTX_SIZE ||
		    memcmp(insns, prologue, sizeof(prologue)))
			goto out;
		start = KTP_TPOINT_PROLOGUE_LEN;
		k.st[start].kind[BPF_REG_6] = KTP_K_CTX;
	} else {
		k.st[start].kind[BPF_REG_1] = KTP_K_CTX;
	}
	k.st[start].reached = true;
	k.st[start].kind[BPF_REG_FP] = KTP_K_FP;
	for (i = start; i < len; i += insns[i].code == (BPF_LD | BPF_IMM | BPF_DW) ? 2 : 1) {
		*bad = i;
		/* no path leads here: never runs */
		if (!k.st[i].reached)
			continue;
		if (!ktp_check_insn(&k, i, &falls))
			goto out;
	}
	*bad = 0;
	ret = 0;
out:
	kvfree(k.imm_hi);
	kvfree(k.st);
	return ret;
}
