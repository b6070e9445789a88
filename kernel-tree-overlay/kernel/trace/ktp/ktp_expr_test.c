// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for KTP's expression compiler: the parser, the hazards,
 * a differential test holding the BPF JIT and the BPF interpreter to
 * the reference evaluator, a walk of the unfolded tree, on random
 * expressions, and tables of expressions whose values gcc computes, an
 * oracle independent of the compiler's own arithmetic.
 */
#include <kunit/test.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/filter.h>
#include <linux/jiffies.h>
#include <linux/ptrace.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "../trace.h"
#include "../trace_probe.h"
#include "../trace_btf.h"
#include "../trace_probe_kernel.h"
#include "ktp_probe.h"
#include "ktp_btf.h"
#include "ktp_fold.h"
#include "ktp_parse.h"
#include "ktp_emit.h"
#include "ktp_gen.h"
#include "ktp_kfunc.h"
#include "ktp_maps.h"
#include "ktp_prog.h"
#include "ktp_regs.h"

#define KTP_TEST_SEED		0x4b5450u	/* "KTP" */
#define KTP_TEST_EXPRS		10240
#define KTP_TEST_BATCH		32	/* expressions a program */
#define KTP_TEST_STREAMS	20000	/* token streams of the fuzz case */
/*
 * The differential and fuzz cases run in parts, a parameter each, so
 * that each part stays well within KUnit's five minutes a case on a
 * slow, loaded machine: a case past them is stopped, and the verifier
 * then refuses the program it was checking, a failure that says nothing
 * of KTP (seen on a 2-core machine running three VMs). A part draws
 * the random numbers of the parts before it without running them, so
 * that together they run what one case did.
 */
#define KTP_TEST_PARTS		8
static_assert(KTP_TEST_EXPRS % (KTP_TEST_PARTS * KTP_TEST_BATCH) == 0);
static_assert(KTP_TEST_STREAMS % KTP_TEST_PARTS == 0);

/* ---- the reference evaluator ---- */

/* The value of an event field, as "e" probes' fetch arguments read it */
static u64 ktp_read_field(struct ftrace_event_field *field, void *rec)
{
	struct fetch_insn code = { .data = field };

	return get_event_field(&code, rec);
}

static u64 ktp_eval_read(struct ktp_run_ctx *ctx, u64 addr, u32 how)
{
	size_t size = min_t(u32, how & KTP_T_SIZE, sizeof(u64));
	u64 val = 0;
	long ret;

	if (how & KTP_READ_USER)
		ret = copy_from_user_nofault(&val, (void __user *)addr, size);
	else
		ret = copy_from_kernel_nofault(&val, (void *)addr, size);
	if (ret) {
		ctx->faults++;
		return 0;
	}
	return val;
}

/* Evaluate @n as the program would, by a walk of its tree */
static u64 ktp_eval_node(const struct ktp_node *n, struct ktp_run_ctx *ctx)
{
	int ret;
	u64 l;

	switch (n->op) {
	case KTP_OP_CONST:
		return n->val;
	case KTP_OP_REG:
		return *(unsigned long *)((void *)ctx->regs + n->param);
	case KTP_OP_ARG:
		if (ctx->entry)
			return ctx->entry[n->param - 1];
		if (n->param <= 6)
			return regs_get_kernel_argument(ctx->regs, n->param - 1);
		return ktp_eval_read(ctx, kernel_stack_pointer(ctx->regs) +
				     8 * (n->param - 6), 8);
	case KTP_OP_STACKP:
		return kernel_stack_pointer(ctx->regs);
	case KTP_OP_CURRENT:
		return (unsigned long)current;
	case KTP_OP_FIELD:
		return ktp_convert(ktp_read_field((void *)(unsigned long)n->val,
						  ctx->rec), n->type);
	case KTP_OP_READ:
		l = ktp_eval_node(n->l, ctx);
		return ktp_convert(ktp_eval_read(ctx, l, n->param), n->type);
	case KTP_OP_CAST:
	case KTP_OP_NEG ... KTP_OP_LNOT:
		return ktp_apply_op(n, ktp_eval_node(n->l, ctx), 0);
	case KTP_OP_LAND:
		return ktp_eval_node(n->l, ctx) && ktp_eval_node(n->r, ctx);
	case KTP_OP_LOR:
		return ktp_eval_node(n->l, ctx) || ktp_eval_node(n->r, ctx);
	case KTP_OP_COND:
		return ktp_eval_node(n->c, ctx) ? ktp_eval_node(n->l, ctx) :
						  ktp_eval_node(n->r, ctx);
	case KTP_OP_STRCMP:
		l = n->param & KTP_STR_COMM ? 0 : ktp_eval_node(n->l, ctx);
		ret = ktp_str_compare(l, (const char *)(unsigned long)n->val,
				      n->param);
		if (ret < 0) {
			ctx->faults++;
			return 0;
		}
		return ret;
	case KTP_OP_COMM:
	case KTP_OP_STRLIT:
		return 0;	/* only under KTP_OP_STRCMP */
	}
	l = ktp_eval_node(n->l, ctx);
	return ktp_apply_op(n, l, ktp_eval_node(n->r, ctx));
}

/*
 * ktp_expr_eval - evaluate an expression with the reference evaluator
 * @env: what the expression may name
 * @src: the expression
 * @ctx: what the expression reads
 * @val: set to the value
 * @err: where and why @src was refused
 *
 * A tree walk over the unfolded expression with the semantics the
 * programs have; the KUnit tests compare the two.
 *
 * Return: 0, -EINVAL with @err set, or -ENOMEM.
 */
static int ktp_expr_eval(const struct ktp_expr_env *env, const char *src,
			 struct ktp_run_ctx *ctx, u64 *val,
			 struct ktp_expr_error *err)
{
	struct ktp_compiler *c = ktp_compiler_create(env);
	struct ktp_node *n;
	int ret = -EINVAL;

	if (!c)
		return -ENOMEM;
	c->fold = false;
	n = ktp_parse(c, src, err);
	if (n && !(n->type & KTP_T_STR)) {
		*val = ktp_eval_node(n, ctx);
		ret = 0;
	} else if (n) {
		ktp_fail(c, src + n->pos, TP_ERR_KTP_EXPR_STRING);
	}
	ktp_compiler_destroy(c);
	return ret;
}

/* What the expressions read: registers, a stack, a buffer */
struct ktp_test_env {
	struct pt_regs		regs;
	u64			stack[16];
	u8			buf[64];
	u64			vals[KTP_EXPR_MAX_FETCHES];
	struct ktp_run_ctx	ctx;
	struct ktp_expr_env	env;
};

static struct ktp_test_env *ktp_test_env(struct kunit *test)
{
	struct ktp_test_env *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, e);
	e->env.flags = KTP_ENV_FENTRY;
	e->regs.ax = 3;
	e->regs.bx = -5UL;
	e->regs.di = 100;
	e->regs.si = 0x8000000000000000UL;
	e->regs.dx = 7;
	e->regs.sp = (unsigned long)e->stack;
	for (i = 0; i < ARRAY_SIZE(e->stack); i++)
		e->stack[i] = 1000 + i;
	for (i = 0; i < ARRAY_SIZE(e->buf); i++)
		e->buf[i] = 0xf0 + i;
	e->ctx.regs = &e->regs;
	e->ctx.vals = e->vals;
	return e;
}

/*
 * The first runtime a case holds programs to: 0 the interpreter, 1 the
 * JIT. With CONFIG_BPF_JIT_ALWAYS_ON there is no interpreter: that half
 * of the case is skipped, with the reason.
 */
static int ktp_first_runtime(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_BPF_JIT_ALWAYS_ON))
		return 0;
	kunit_mark_skipped(test, "interpreter half: CONFIG_BPF_JIT_ALWAYS_ON has no interpreter");
	return 1;
}

/*
 * Programs of "p" and "r" probes are loaded as bpf() loads programs: the
 * JIT compiles them if bpf_jit_enable says so when they are compiled.
 * Each case runs the interpreter's half first and ends with the JIT on.
 */
static void ktp_test_jit(int jit)
{
	bpf_jit_enable = jit;
}

/* Compile @src as fetch expression 0, run it, return its value. */
static u64 ktp_test_run(struct kunit *test, struct ktp_test_env *e,
			const char *src, bool jit, unsigned long *faults)
{
	struct ktp_expr_error err;
	struct ktp_compiler *c;
	struct ktp_prog *kp;
	const char *type;
	u64 val;
	int ret;

	ktp_test_jit(jit);
	c = ktp_compiler_create(&e->env);
	KUNIT_ASSERT_NOT_NULL(test, c);
	ret = ktp_compile_fetch(c, src, 0, &type, &err);
	if (!jit && ret == -EOPNOTSUPP) {
		/*
		 * The verifier lets only JIT-compiled programs call kfuncs:
		 * a string compare is refused, and the reference's value
		 * stands for the interpreter's.
		 */
		KUNIT_EXPECT_EQ(test, err.code, TP_ERR_KTP_STR_NEEDS_JIT);
		KUNIT_EXPECT_NOT_NULL(test, strchr(src, '"'));
		ktp_compiler_destroy(c);
		e->ctx.faults = 0;
		KUNIT_ASSERT_EQ(test, ktp_expr_eval(&e->env, src, &e->ctx, &val,
						    &err), 0);
		*faults = e->ctx.faults;
		return val;
	}
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "%s: error %d at %d", src, err.code,
			    err.pos);
	kp = ktp_compiler_finish(c);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(kp), "%s: %ld", src, PTR_ERR(kp));
	KUNIT_EXPECT_EQ(test, !!kp->prog->jited, jit);
	e->ctx.faults = 0;
	e->vals[0] = 0xdeadbeef;
	preempt_disable();
	ktp_prog_run(kp, &e->ctx);
	preempt_enable();
	*faults = e->ctx.faults;
	ktp_prog_free(kp);
	return e->vals[0];
}

struct ktp_value_case {
	const char	*src;
	u64		val;
	unsigned long	faults;
};

/* C precedence, associativity and semantics on 64-bit values */
static const struct ktp_value_case ktp_value_cases[] = {
	{ "1 + 2 * 3", 7 },
	{ "(1 + 2) * 3", 9 },
	{ "10 - 4 - 3", 3 },			/* left associative */
	{ "64 / 4 / 2", 8 },
	{ "2 << 1 + 1", 8 },			/* + binds tighter than << */
	{ "1 < 2 == 1", 1 },			/* < binds tighter than == */
	{ "1 | 2 ^ 3 & 4", 3 },			/* & ^ | */
	{ "1 || 0 && 0", 1 },			/* && binds tighter than || */
	{ "0 ? 1 : 0 ? 2 : 3", 3 },		/* ?: is right associative */
	{ "1 ? 2 : 3 + 4", 2 },
	{ "-1 < 0", 1 },
	{ "(u64)-1 < 0", 0 },			/* unsigned comparison */
	{ "(u8)-1 < 256", 1 },			/* u8 promotes to s64 */
	{ "(u32)1 - 2 < 0", 1 },
	{ "-1 > 0xffffffffffffffff", 0 },	/* that literal is u64 */
	{ "(u8)257", 1 },
	{ "(s8)255", -1ULL },
	{ "(u16)0x12345", 0x2345 },
	{ "(s16)0x8000", -32768ULL },
	{ "(u32)-1", 0xffffffffULL },
	{ "(s32)0x80000000", -2147483648ULL },
	{ "7 / 0", 0 },				/* hazards: defined results */
	{ "7 % 0", 0 },
	{ "(u64)7 % 0", 0 },
	{ "-7 / 2", -3ULL },
	{ "-7 % 2", -1ULL },
	{ "(u64)-7 / 2", 0x7ffffffffffffffcULL },
	{ "%si / -1", 0 },			/* u64 / s64: unsigned */
	{ "(s64)%si / -1", 0x8000000000000000ULL }, /* S64_MIN / -1 */
	{ "(s64)%si % -1", 0 },
	{ "1 << 63", 0x8000000000000000ULL },
	{ "1 << 64", 0 },
	{ "1 << %di", 0 },			/* 100: out of range */
	{ "-8 >> 1", -4ULL },
	{ "-8 >> 70", -1ULL },
	{ "(u64)-8 >> 70", 0 },
	{ "(u64)-8 >> 60", 15 },
	{ "-8 >> %di", -1ULL },
	{ "1 << -1", 0 },
	{ "!0", 1 },
	{ "!7", 0 },
	{ "~0", -1ULL },
	{ "-%ax", -3ULL },
	{ "3 && 4", 1 },
	{ "0 || 0", 0 },
	{ "'a'", 97 },
	{ "'\\n'", 10 },
	{ "0x10 + 010 + 10", 34 },
	{ "18446744073709551615u", -1ULL },
	{ "%di", 100 },				/* terms */
	{ "%ax * 2 + %dx", 13 },
	{ "$arg1 + $arg3", 107 },
	{ "$arg2", 0x8000000000000000ULL },
	{ "$stack", 0 },			/* replaced by the test */
	{ "$stack2", 1002 },
	{ "$arg7", 1001 },			/* above the return address */
	{ "@ktp_oracle_data", -1234567890123ULL }, /* symbols: .kunitconfig */
	{ "@ktp_oracle_data+8 + 1", 0xfedcba9876543211ULL },
	{ "+16($stack)", 1002 },
	{ "-8(+16($stack))", 0, 1 },		/* 1002 - 8: faults */
	{ "%bx < 0", 0 },			/* registers are unsigned */
	{ "(s64)%bx < 0", 1 },
	{ "jiffies != 0 && &jiffies != 0", 1 },
	{ "*(u64 *)&jiffies != 0", 1 },
	{ "*(u64 *)(16)", 0, 1 },		/* a faulting read */
	{ "*(u64 *)(16) + *(u32 *)(24)", 0, 2 },
	{ "(u32 *)%di + 1", 104 },		/* pointers count their TYPEs */
	{ "2 + (u16 *)%di", 104 },
	{ "(u64 *)%di - 2", 84 },
	{ "(u8 *)%di + %dx", 107 },
	{ "(u64 *)%di - (u64 *)%ax", 12 },	/* (100 - 3) / 8 */
	{ "*((u64 *)$stack + 2)", 1002 },
	{ "*((u64 *)(8) + 1)", 0, 1 },		/* reads 16: faults */
	{ "(u64)(u32 *)%di + 1", 101 },		/* no longer pointers */
	{ "((u32 *)%di * 1) + 1", 101 },
	{ "((u32 *)%di | 0) + 1", 101 },
	{ "(1 ? (u32 *)%di : 0) + 1", 101 },
	{ "0 && *(u64 *)(16)", 0, 0 },		/* short circuits skip reads */
	{ "%ax > 5 && *(u64 *)(16)", 0, 0 },
	{ "%ax < 5 || *(u64 *)(16)", 1, 0 },
	{ "%ax ? 1 : *(u64 *)(16)", 1, 0 },
	{ "$comm ~ \"kunit*\"", 1 },		/* strings */
	{ "$comm == \"kunit_try_catch\"", 1 },
	{ "$comm != \"kunit_try_catch\"", 0 },
	{ "\"kunit_try_catch\" == $comm", 1 },
	{ "$comm ~ \"*x*\"", 0 },
	{ "(char *)(16) == \"x\"", 0, 1 },
};

static void ktp_expr_value_test(struct kunit *test)
{
	struct ktp_test_env *e = ktp_test_env(test);
	const struct ktp_value_case *vc;
	struct ktp_expr_error err;
	unsigned long faults;
	u64 val, want;
	int i, jit;

	for (i = 0; i < ARRAY_SIZE(ktp_value_cases); i++) {
		vc = &ktp_value_cases[i];
		want = vc->val;
		if (!strcmp(vc->src, "$stack"))
			want = e->regs.sp;

		e->ctx.faults = 0;
		KUNIT_ASSERT_EQ_MSG(test, ktp_expr_eval(&e->env, vc->src, &e->ctx,
							&val, &err), 0,
				    "%s: error %d at %d", vc->src, err.code, err.pos);
		KUNIT_EXPECT_EQ_MSG(test, val, want, "reference: %s", vc->src);
		KUNIT_EXPECT_EQ_MSG(test, e->ctx.faults, vc->faults,
				    "reference faults: %s", vc->src);
		for (jit = ktp_first_runtime(test); jit <= 1; jit++) {
			val = ktp_test_run(test, e, vc->src, jit, &faults);
			KUNIT_EXPECT_EQ_MSG(test, val, want, "%s: %s",
					    jit ? "jit" : "interp", vc->src);
			KUNIT_EXPECT_EQ_MSG(test, faults, vc->faults, "%s faults: %s",
					    jit ? "jit" : "interp", vc->src);
		}
	}
}

/* An error of a term trace_probe.c parses at a function's entry */
static bool ktp_is_fetch_var_error(int code)
{
	switch (code) {
	case TP_ERR_BAD_VAR:
	case TP_ERR_BAD_REG_NAME:
	case TP_ERR_RETVAL_ON_PROBE:
	case TP_ERR_BAD_ARG_NUM:
	case TP_ERR_BAD_STACK_NUM:
	case TP_ERR_BAD_MEM_ADDR:
	case TP_ERR_FILE_ON_KPROBE:
		return true;
	}
	return false;
}

/* ---- the C compiler as the oracle ---- */

/*
 * The reference evaluator computes each operator with the compiler's own
 * ktp_apply_op(), and constant folding does too: a mistake there (a
 * promotion, a signedness, a shift, a division) is made alike by the
 * programs and by their reference, and the other cases cannot see it.
 * Here gcc is the oracle: each row of the tables below is one text that
 * gcc compiles into the expected value and that KTP compiles, its names
 * respelled (ktp_oracle_spell()), into a program. The rows keep to what
 * C and KTP both define alike; the hazards C leaves undefined, and where
 * KTP's rules are not C's, have their values from ktp.rst in
 * ktp_oracle_hazard_cases[] and ktp_oracle_differ_cases[].
 */
struct ktp_oracle_case {
	const char	*src;	/* C, with the names of ktp_oracle_terms[] */
	u64		val;
};

/* A row: its text, and the value gcc gives it */
#define KTP_C(e)	{ #e, (u64)(e) }

/*
 * The terms of the rows, as C sees them: the arguments are u64s in
 * registers (ktp.rst), $arg6 points to ktp_oracle_data. The tables of
 * rows over terms are built where @regs is the test's registers.
 */
#define ARG1		((u64)regs->di)
#define ARG2		((u64)regs->si)
#define ARG3		((u64)regs->dx)
#define ARG4		((u64)regs->cx)
#define ARG5		((u64)regs->r8)
#define ARG6		((u64)regs->r9)
#define REG_AX		((u64)regs->ax)
#define REG_BX		((u64)regs->bx)
#define TYPED		((const struct ktp_oracle_typed *)regs->r12)

/* and as KTP spells them */
static const struct {
	const char	*name;
	const char	*ktp;
} ktp_oracle_terms[] = {
	{ "ARG1", "$arg1" }, { "ARG2", "$arg2" }, { "ARG3", "$arg3" },
	{ "ARG4", "$arg4" }, { "ARG5", "$arg5" }, { "ARG6", "$arg6" },
	{ "REG_AX", "%ax" }, { "REG_BX", "%bx" },
	{ "TYPED", "((struct ktp_oracle_typed *)%r12)" },
};

/* What $arg6 points to: the rows read it as *(TYPE *)(ARG6 + offset) */
struct ktp_oracle_mem {
	s64	s64v;		/* 0 */
	u64	u64v;		/* 8 */
	s32	s32v;		/* 16 */
	u32	u32v;		/* 20 */
	s16	s16v;		/* 24 */
	u16	u16v;		/* 26 */
	s8	s8v;		/* 28 */
	u8	u8v;		/* 29 */
	u8	zero;		/* 30: a 0 is read again (ktp_gen_read()) */
	u8	pad;
	s32	s32s[4];	/* 32 */
};

static_assert(offsetof(struct ktp_oracle_mem, u8v) == 29);
static_assert(offsetof(struct ktp_oracle_mem, s32s) == 32);

static const struct ktp_oracle_mem ktp_oracle_data = {
	.s64v = -1234567890123LL,
	.u64v = 0xfedcba9876543210ULL,
	.s32v = S32_MIN,
	.u32v = 0xfffffffe,
	.s16v = -300,
	.u16v = 0xfff0,
	.s8v = -128,
	.u8v = 200,
	.s32s = { 10, -20, 30, -40 },
};

/*
 * What %r12 points to in the typed rows, TYPED: members, bitfields,
 * arrays, a union, an enum and pointers, which KTP finds by the BTF that
 * gcc's debug information of this file became.
 */
enum ktp_oracle_enum {
	KTP_ORACLE_NEG = -3,
	KTP_ORACLE_TWO = 2,
};

struct ktp_oracle_inner {
	u16	a;
	s8	b;
	char	name[6];
};

struct ktp_oracle_typed {
	s32				i;
	u32				bf_u3:3;
	s32				bf_s5:5;
	u32				bf_u20:20;
	s64				bf_s40:40;
	struct ktp_oracle_inner		in[2];
	union {
		u64			word;
		u8			bytes[8];
	};
	enum ktp_oracle_enum		e;
	const struct ktp_oracle_typed	*self;
	long				l;
	unsigned char			uc;
};

static const struct ktp_oracle_typed ktp_oracle_typed_data = {
	.i = -77777,
	.bf_u3 = 5,
	.bf_s5 = -11,
	.bf_u20 = 0xabcde,
	.bf_s40 = -123456789012LL,
	.in = { { 0xfff1, -2, "abc" }, { 7, 99, "hello" } },
	.word = 0x0102030405060708ULL,
	.e = KTP_ORACLE_NEG,
	.self = &ktp_oracle_typed_data,
	.l = -5,
	.uc = 250,
};

/* The KTP spelling of the name of @len characters at @s, or NULL */
static const char *ktp_oracle_term(const char *s, size_t len)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(ktp_oracle_terms); i++) {
		if (strlen(ktp_oracle_terms[i].name) == len &&
		    !strncmp(ktp_oracle_terms[i].name, s, len))
			return ktp_oracle_terms[i].ktp;
	}
	return NULL;
}

/*
 * ktp_oracle_spell - a row's text as KTP's
 * @buf: where the KTP text goes
 * @size: its size
 * @c: the row's text
 *
 * Each name of ktp_oracle_terms[] becomes the term it stands for; the
 * rest (numbers, character constants, type names, operators) is the same
 * in both.
 *
 * Return: the number of terms, or -ENOSPC if @buf is too small.
 */
static int ktp_oracle_spell(char *buf, size_t size, const char *c)
{
	const char *p = c, *tok, *term;
	size_t len = 0, n;
	int terms = 0;

	while (*p) {
		tok = p++;
		if (ktp_is_ident(*tok)) {
			/* a name, or a number such as 0x1f or 10u */
			while (ktp_is_ident(*p))
				p++;
		} else if (*tok == '\'') {
			/* a character constant, whose quote may be escaped */
			while (*p && *p != '\'')
				p += p[0] == '\\' && p[1] ? 2 : 1;
			if (*p)
				p++;
		}
		n = p - tok;
		term = isdigit(*tok) ? NULL : ktp_oracle_term(tok, n);
		if (term) {
			tok = term;
			n = strlen(term);
			terms++;
		}
		if (len + n >= size)
			return -ENOSPC;
		memcpy(buf + len, tok, n);
		len += n;
	}
	buf[len] = '\0';
	return terms;
}

/* Whether the tree of @n reads anything the probe has */
static bool ktp_oracle_has_term(const struct ktp_node *n)
{
	if (!n)
		return false;
	switch (n->op) {
	case KTP_OP_REG:
	case KTP_OP_ARG:
	case KTP_OP_STACKP:
	case KTP_OP_FIELD:
	case KTP_OP_READ:
	case KTP_OP_COMM:
		return true;
	}
	return ktp_oracle_has_term(n->l) || ktp_oracle_has_term(n->r) ||
	       ktp_oracle_has_term(n->c);
}

/*
 * A row over constants folds to a program that reads nothing; a row over
 * terms must not fold away, since its code is what it tests. False if
 * @src does not parse.
 */
static bool ktp_oracle_tree(struct kunit *test, struct ktp_test_env *e,
			    const char *src, bool has_terms)
{
	struct ktp_compiler *c = ktp_compiler_create(&e->env);
	struct ktp_expr_error err;
	struct ktp_node *n;

	KUNIT_ASSERT_NOT_NULL(test, c);
	n = ktp_parse(c, src, &err);
	KUNIT_EXPECT_NOT_NULL_MSG(test, n, "%s: error %d at %d", src, err.code,
				  err.pos);
	if (n)
		KUNIT_EXPECT_EQ_MSG(test, ktp_oracle_has_term(n), has_terms, "%s: %s",
				    has_terms ? "folded away" : "not folded", src);
	ktp_compiler_destroy(c);
	return !!n;
}

/* @oc through the reference evaluator, the interpreter and the JIT */
static void ktp_oracle_check(struct kunit *test, struct ktp_test_env *e,
			     const struct ktp_oracle_case *oc)
{
	struct ktp_expr_error err;
	unsigned long faults;
	char src[256];
	int terms, jit;
	u64 val;

	terms = ktp_oracle_spell(src, sizeof(src), oc->src);
	KUNIT_ASSERT_GE_MSG(test, terms, 0, "too long: %s", oc->src);
	if (!ktp_oracle_tree(test, e, src, terms > 0))
		return;

	e->ctx.faults = 0;
	KUNIT_ASSERT_EQ_MSG(test, ktp_expr_eval(&e->env, src, &e->ctx, &val, &err), 0,
			    "%s: error %d at %d", src, err.code, err.pos);
	KUNIT_EXPECT_EQ_MSG(test, val, oc->val, "reference: %s", src);
	KUNIT_EXPECT_EQ_MSG(test, e->ctx.faults, 0UL, "reference faults: %s", src);
	for (jit = ktp_first_runtime(test); jit <= 1; jit++) {
		val = ktp_test_run(test, e, src, jit, &faults);
		KUNIT_EXPECT_EQ_MSG(test, val, oc->val, "%s: %s",
				    jit ? "jit" : "interp", src);
		KUNIT_EXPECT_EQ_MSG(test, faults, 0UL, "%s faults: %s",
				    jit ? "jit" : "interp", src);
	}
}

/* Each of @n rows through each runtime: returns @n */
static noinline_for_stack int ktp_oracle_run(struct kunit *test,
					     struct ktp_test_env *e,
					     const struct ktp_oracle_case *cases,
					     int n)
{
	int i;

	for (i = 0; i < n; i++)
		ktp_oracle_check(test, e, &cases[i]);
	return n;
}

/*
 * Rows over constants, which KTP folds: C's int is 32 bits where KTP's
 * constants are s64, so no int operation here leaves int's range, and a
 * u32 (unsigned int in C) meets only 64-bit operands where its
 * conversion would matter.
 */
static const struct ktp_oracle_case ktp_oracle_const_cases[] = {
	/* arithmetic: C's precedence and associativity */
	KTP_C(1 + 2 * 3),
	KTP_C((1 + 2) * 3),
	KTP_C(10 - 4 - 3),
	KTP_C(64 / 4 / 2),
	KTP_C(100 % 7),
	KTP_C(-7 / 2),
	KTP_C(-7 % 2),
	KTP_C(7 / -2),
	KTP_C(7 % -2),
	KTP_C(-7 / -2),
	KTP_C(-7 % -2),
	KTP_C(-5 * -5),
	KTP_C(-(3 - 10)),
	/* 64-bit constants: a decimal one beyond int is a long in C */
	KTP_C(2147483648 + 1),
	KTP_C(4294967296 * 65536),
	KTP_C(9223372036854775807 - 1),
	KTP_C(-9223372036854775807 - 1),
	KTP_C(9223372036854775807 / -2),
	KTP_C(0x7fffffffffffffff % 1000),
	KTP_C(0x123456789 * 0x10),
	/* beyond S64_MAX: unsigned in both */
	KTP_C(0x8000000000000000 / 3),
	KTP_C(0x8000000000000000 % 7),
	KTP_C(0xffffffffffffffff + 2),
	KTP_C(0xffffffffffffffff * 0xffffffffffffffff),
	KTP_C(18446744073709551615u / 10),
	KTP_C(9223372036854775808u + 1),
	KTP_C(-1 * 0x8000000000000000),
	/* number syntax */
	KTP_C(0x10 + 010 + 10),
	KTP_C(0X1F),
	KTP_C(0777 - 0x1ff),
	KTP_C('a' + 1),
	KTP_C('\n' * 2),
	KTP_C('\\' - '\''),
	KTP_C('"'),
	KTP_C('\0' + '\t' + '\r'),
	/* casts */
	KTP_C((u8)255 + 1),
	KTP_C((s8)-128 / -1),
	KTP_C((s8)-128 * (s8)-128),
	KTP_C((s8)200),
	KTP_C((u8)(s8)-56),
	KTP_C((u16)65535 + 1),
	KTP_C((s16)65535),
	KTP_C((s16)-32768 - 1),
	KTP_C((u32)4294967295 + (s64)1),
	KTP_C((u32)-2 / 2),
	KTP_C((u32)-1 >> 4),
	KTP_C((s32)4294967295),
	KTP_C((s64)(s32)0x80000000),
	KTP_C((u64)(u32)-1),
	KTP_C((u64)(s8)-1),
	KTP_C((u64)(u8)-1),
	KTP_C((s64)(u16)-1),
	KTP_C((s64)(u16)-1 * (u16)-1),
	KTP_C((u64)(s16)-2 >> 60),
	KTP_C((s64)0x8000000000000000 > 1),
	KTP_C((u64)-7 / 2),
	KTP_C((u64)-7 % 2),
	/* signedness: unsigned if either operand is a u64 */
	KTP_C((u32)-1 < (s64)0),
	KTP_C((u32)1 - (s64)2),
	KTP_C((s32)-1 < (u64)1),
	KTP_C((s32)-1 + (u64)0),
	KTP_C((s32)-1 < (s64)0),
	KTP_C((s8)-1 == 255),
	KTP_C((s8)-1 == -1),
	KTP_C((u8)-1 == 255),
	KTP_C((u8)-1 < 256),
	KTP_C(-1 < 0),
	KTP_C((u64)-1 < 0),
	KTP_C(-1 < 0x7fffffffffffffff),
	KTP_C(-1 < 0x8000000000000000),
	KTP_C(-1 > 0xffffffffffffffff),
	/* shifts */
	KTP_C(1 << 30),
	KTP_C(1 << (2 + 1)),
	KTP_C((s64)1 << 40),
	KTP_C((u64)1 << 63),
	KTP_C((s64)1 << 62 >> 61),
	KTP_C(-8 >> 1),
	KTP_C((s64)-8 >> 63),
	KTP_C((u64)-8 >> 60),
	KTP_C(0x8000000000000000 >> 63),
	KTP_C((s8)-128 >> 7),
	KTP_C((u8)128 >> 7),
	/* bitwise */
	KTP_C(0xf0 & 0x3c),
	KTP_C(0xf0 | 0x0f),
	KTP_C(0xff ^ 0x0f),
	KTP_C(~0),
	KTP_C(~0xffffffffffffff00),
	KTP_C(~(s8)-1),
	KTP_C(~(u8)0),
	KTP_C((1 | 2) ^ (3 & 6)),
	KTP_C(0x123456789 & -4096),
	KTP_C(-1 & 0xffffffffffffffff),
	/* comparisons, logical operators, ?: */
	KTP_C(3 <= 3),
	KTP_C(3 >= 4),
	KTP_C(5 != 5),
	KTP_C(5 == 5),
	KTP_C(2 > 1),
	KTP_C(-2 <= -3),
	KTP_C(-2 >= -3),
	KTP_C(0x8000000000000000 > 1),
	KTP_C(3 && 4),
	KTP_C((2 > 3) || 0),
	KTP_C(!0),
	KTP_C(!7),
	KTP_C((1 || 0) && 0),
	KTP_C(1 ? 2 : 3),
	KTP_C(0 ? 1 : 0 ? 2 : 3),
	KTP_C(1 ? -1 : 0x8000000000000000),
	KTP_C((1 ? -1 : 0x8000000000000000) > 0),
	KTP_C((0 ? 0x8000000000000000 : -1) / 2),
	KTP_C((1 ? (s8)-1 : (u8)1) < 0),
};

/*
 * Rows over terms, whose code is generated: their tables are built at run
 * time, where ARGn is a register of @e.
 */

/* Arithmetic on the arguments, u64s; immediates and registers alike */
static noinline_for_stack int ktp_oracle_arith(struct kunit *test,
					       struct ktp_test_env *e)
{
	const struct pt_regs *regs = &e->regs;
	const struct ktp_oracle_case cases[] = {
		KTP_C(ARG1 + ARG5 * 3),
		KTP_C(ARG1 - ARG5 - 3),
		KTP_C(ARG1 * ARG2),
		KTP_C(ARG1 / ARG5),
		KTP_C(ARG1 % ARG5),
		KTP_C(ARG2 / ARG5),
		KTP_C(ARG2 % 10),
		KTP_C(ARG2 / 2),
		KTP_C((s64)ARG2 / 2),
		KTP_C((s64)ARG2 % 3),
		KTP_C((s64)ARG2 % 10),
		KTP_C((s64)ARG2 / (s64)ARG5),
		KTP_C((s64)ARG1 / (s64)ARG2),
		KTP_C((s64)ARG1 % (s64)ARG2),
		KTP_C(ARG1 / -3),
		KTP_C((s64)ARG1 / -3),
		KTP_C((s64)ARG1 % -3),
		KTP_C((s64)ARG1 / -1),
		KTP_C((s64)ARG1 % -1),
		KTP_C((s64)ARG4 / 1000000007),
		KTP_C(ARG4 / 0x100000000),
		KTP_C(ARG4 % 0x100000000),
		KTP_C(-ARG1),
		KTP_C(-(s64)ARG1),
		KTP_C(~ARG1),
		KTP_C(!ARG1),
		KTP_C(!(ARG1 - 100)),
		KTP_C(ARG3 * 2),
		KTP_C(ARG3 - 1),
		KTP_C((s64)ARG3 / 2),
		KTP_C(ARG1 + 0x80000000),
		KTP_C(ARG1 - 2147483648),
		KTP_C(ARG1 + 2147483647),
		KTP_C(REG_AX + 1),
		KTP_C(REG_AX * REG_BX),
		KTP_C(REG_BX - 4),
		KTP_C((s64)REG_BX - 4),
	};

	return ktp_oracle_run(test, e, cases, ARRAY_SIZE(cases));
}

/* Shifts, bitwise and logical operators, comparisons and ?: on arguments */
static noinline_for_stack int ktp_oracle_bits(struct kunit *test,
					      struct ktp_test_env *e)
{
	const struct pt_regs *regs = &e->regs;
	const struct ktp_oracle_case cases[] = {
		KTP_C(ARG1 << ARG5),
		KTP_C(ARG1 << 57),
		KTP_C((s64)ARG1 << 50),
		KTP_C(1 << ARG5),
		KTP_C(-256 >> ARG5),		/* the left operand's type */
		KTP_C(ARG5 << ARG5),
		KTP_C((s64)ARG2 >> 1),
		KTP_C(ARG2 >> 1),
		KTP_C((s64)ARG3 >> 63),
		KTP_C(ARG3 >> 63),
		KTP_C((s64)ARG3 >> ARG5),
		KTP_C(ARG3 >> ARG5),
		KTP_C(ARG4 >> 32),
		KTP_C(ARG1 & ARG4),
		KTP_C(ARG1 | ARG3),
		KTP_C(ARG2 ^ ARG4),
		KTP_C(ARG4 & 0xffff),
		KTP_C(ARG4 & -16),
		KTP_C(ARG4 & 0xffffffff),
		KTP_C(ARG4 | 0x80000000),
		KTP_C(ARG4 ^ -1),
		KTP_C(ARG1 < 0x80000000),
		KTP_C(ARG2 > 0x80000000),
		KTP_C((s64)ARG2 > -2147483648),
		KTP_C((s64)ARG2 < -2147483648),
		KTP_C((s64)ARG2 < 0xffffffff),
		KTP_C((s64)ARG3 < 0),
		KTP_C(ARG2 < -4),
		KTP_C(ARG2 == -5),
		KTP_C((s64)ARG2 < ARG1),
		KTP_C((s64)ARG2 < (s64)ARG1),
		KTP_C(ARG1 <= 100),
		KTP_C(ARG1 >= 101),
		KTP_C(ARG1 != 100),
		KTP_C(ARG1 > 99),
		KTP_C(ARG1 - ARG5 == 93),
		KTP_C(ARG1 && ARG5),
		KTP_C(ARG1 && !ARG5),
		KTP_C((ARG1 > 50) || (ARG2 < 3)),
		KTP_C(!ARG1 || !ARG5),
		KTP_C((ARG1 == 100) && (ARG5 == 7) && (ARG2 == -5)),
		KTP_C((ARG1 != 100) || (ARG5 != 7)),
		KTP_C(ARG1 > 50 ? ARG5 : ARG2),
		KTP_C(ARG1 < 50 ? ARG5 : ARG2),
		KTP_C((ARG5 ? -1 : ARG1) > 0),
		KTP_C(((s64)ARG5 ? -1 : (s64)ARG1) > 0),
		KTP_C(ARG5 > 7 ? 1 : ARG5 < 7 ? 2 : 3),
		KTP_C((ARG1 & 4) ? ARG1 : 0),
	};

	return ktp_oracle_run(test, e, cases, ARRAY_SIZE(cases));
}

/* Casts of the arguments, and promotions of what they make */
static noinline_for_stack int ktp_oracle_casts(struct kunit *test,
					       struct ktp_test_env *e)
{
	const struct pt_regs *regs = &e->regs;
	const struct ktp_oracle_case cases[] = {
		KTP_C((u8)ARG4),
		KTP_C((s8)ARG4),
		KTP_C((u16)ARG4),
		KTP_C((s16)ARG4),
		KTP_C((u32)ARG4),
		KTP_C((s32)ARG4),
		KTP_C((s64)ARG4),
		KTP_C((u64)(s32)ARG4),
		KTP_C((s64)(u32)ARG4),
		KTP_C((u8)ARG4 + 1),
		KTP_C((s8)ARG4 * 3),
		KTP_C((s16)ARG4 * 2),
		KTP_C((s32)ARG4 / 16),
		KTP_C((u32)ARG4 / 16),
		KTP_C((u32)ARG4 + ARG1),
		KTP_C((u32)ARG4 * (s64)2),
		KTP_C((s32)ARG4 * (s64)3),
		KTP_C((u32)ARG4 >> 28),
		KTP_C((s32)ARG4 >> 28),
		KTP_C((s8)ARG4 >> 2),
		KTP_C((u8)ARG4 << 4),
		KTP_C((s16)ARG4 % 100),
		KTP_C((u8)ARG2 == 251),
		KTP_C((s8)ARG2 == -5),
		KTP_C((s8)ARG5 - (u8)ARG2),
		KTP_C((s8)(u8)ARG1),
		KTP_C((s8)(ARG1 + 100)),
		KTP_C((u8)(ARG1 * 3)),
		KTP_C((u16)(ARG1 << 10)),
		KTP_C((s16)(ARG1 * 400)),
		KTP_C((u64)(s8)ARG2 >> 60),
		KTP_C((s8)ARG2 < ARG5),
		KTP_C((s8)ARG2 < (s64)ARG5),
		KTP_C((s8)ARG2 / ARG5),
		KTP_C((s32)ARG2 / (s64)ARG5),
		KTP_C((s32)ARG4 / (s16)ARG5),
		KTP_C((s16)ARG4 % (u8)ARG5),
		KTP_C((u32)ARG4 % ARG5),
		KTP_C((s32)ARG2 < 0),
		KTP_C((u32)ARG2 - (s64)4294967296 < 0),
		KTP_C((s32)REG_AX),
		KTP_C((u32)REG_AX + (s64)1),
		KTP_C((u16)REG_AX == 65535),
		KTP_C(~(u16)ARG1),
		KTP_C(-(u8)ARG1),
		KTP_C(-(s16)ARG4),
		KTP_C(!(u8)ARG3),
		KTP_C((u8)ARG3 ? 1 : 2),
	};

	return ktp_oracle_run(test, e, cases, ARRAY_SIZE(cases));
}

/* Reads of each type, at $arg6 and through pointer arithmetic */
static noinline_for_stack int ktp_oracle_reads(struct kunit *test,
					       struct ktp_test_env *e)
{
	const struct pt_regs *regs = &e->regs;
	const struct ktp_oracle_case cases[] = {
		KTP_C(*(s64 *)ARG6),
		KTP_C(*(u64 *)(ARG6 + 8)),
		KTP_C(*(s32 *)(ARG6 + 16)),
		KTP_C(*(u32 *)(ARG6 + 20)),
		KTP_C(*(s16 *)(ARG6 + 24)),
		KTP_C(*(u16 *)(ARG6 + 26)),
		KTP_C(*(s8 *)(ARG6 + 28)),
		KTP_C(*(u8 *)(ARG6 + 29)),
		KTP_C(*(u8 *)(ARG6 + 30)),
		KTP_C(*(s8 *)(ARG6 + 15)),
		KTP_C(*(u16 *)(ARG6 + 12)),
		KTP_C(*(s32 *)(ARG6 + 12)),
		KTP_C(*(u32 *)(ARG6 + 16)),
		KTP_C(*(s16 *)(ARG6 + 26)),
		KTP_C(*(u8 *)(ARG6 + 28)),
		KTP_C(*(s64 *)(ARG6 + 8)),
		KTP_C(*((s32 *)ARG6 + 8)),
		KTP_C(*((s32 *)ARG6 + 9)),
		KTP_C(*((s32 *)(ARG6 + 32) + 3)),
		KTP_C(*((s16 *)ARG6 + 12)),
		KTP_C(*((u8 *)ARG6 + 29)),
		KTP_C(*((u64 *)ARG6 + 1)),
		KTP_C(*((s32 *)ARG6 + ARG5 + 1)),
		KTP_C(*(2 + (s32 *)ARG6 + 6)),
		KTP_C(*((s32 *)ARG6 + 12 - ARG5 + 4)),
		KTP_C((s32 *)(ARG6 + 40) - (s32 *)ARG6),
		KTP_C((s64 *)ARG6 - (s64 *)(ARG6 + 24)),
		KTP_C((u32 *)ARG1 + 1),
		KTP_C((u16 *)ARG1 - 2),
		KTP_C((u8 *)ARG1 + ARG5),
		KTP_C(2 + (u16 *)ARG1),
		KTP_C((u32 *)ARG1 < (u32 *)ARG2),
	};

	return ktp_oracle_run(test, e, cases, ARRAY_SIZE(cases));
}

/*
 * Typed by BTF: members, bitfields, elements, pointers to structs and
 * their arithmetic, casts to struct types, sizeof, container_of() and
 * enum constants, as gcc types them. Each value stays in the range of
 * its C type, where KTP's promotion to s64 and C's to int agree.
 */
static noinline_for_stack int ktp_oracle_typed(struct kunit *test,
					       struct ktp_test_env *e)
{
	const struct pt_regs *regs = &e->regs;
	const struct ktp_oracle_case cases[] = {
		KTP_C(TYPED->i),
		KTP_C(TYPED->bf_u3),
		KTP_C(TYPED->bf_s5),
		KTP_C(TYPED->bf_u20),
		KTP_C(TYPED->bf_s40),
		KTP_C(TYPED->bf_s5 * 3 + TYPED->bf_u3),
		KTP_C(TYPED->bf_s40 < TYPED->bf_s5),
		KTP_C(TYPED->in[1].a),
		KTP_C(TYPED->in[0].a),
		KTP_C(TYPED->in[0].b),
		KTP_C(TYPED->in[1].name[2]),
		KTP_C(TYPED->in[ARG5 - 6].b),
		KTP_C(TYPED->word),
		KTP_C(TYPED->bytes[3]),
		KTP_C(TYPED->bytes[ARG5]),
		KTP_C(TYPED->e),
		KTP_C(TYPED->e == KTP_ORACLE_NEG),
		KTP_C(KTP_ORACLE_TWO * 5),
		KTP_C(TYPED->self->self->i),
		KTP_C(TYPED->self == TYPED),
		KTP_C((*TYPED).l),
		KTP_C(TYPED->l * 3),
		KTP_C(TYPED->uc),
		KTP_C(TYPED->uc + 10),
		KTP_C(TYPED->self->in[1].b + 1),
		KTP_C(*TYPED->in[1].name),
		KTP_C(&TYPED->in[1] - &TYPED->in[0]),
		KTP_C((u64)&TYPED->in[1] - (u64)TYPED),
		KTP_C((u64)&TYPED->l - (u64)TYPED),
		KTP_C((u64)(TYPED + 1) - (u64)TYPED),
		KTP_C((u64)(&TYPED->in[0] + 1) - (u64)TYPED),
		KTP_C(sizeof(struct ktp_oracle_typed)),
		KTP_C(sizeof(struct ktp_oracle_inner)),
		KTP_C(sizeof(enum ktp_oracle_enum)),
		KTP_C(sizeof(unsigned short)),
		KTP_C(sizeof(long *)),
		KTP_C(container_of(&TYPED->l, struct ktp_oracle_typed, l) == TYPED),
		KTP_C((u64)container_of(&TYPED->in[0].b, struct ktp_oracle_inner, b) ==
		      (u64)TYPED->in),
		KTP_C((s16)TYPED->i),
		KTP_C((unsigned char)TYPED->i),
		KTP_C(((const struct ktp_oracle_inner *)&TYPED->in[1])->a),
		KTP_C(((const struct ktp_oracle_inner *)TYPED->in)[1].b),
		KTP_C((enum ktp_oracle_enum)2 == KTP_ORACLE_TWO),
	};

	return ktp_oracle_run(test, e, cases, ARRAY_SIZE(cases));
}

/* What is read, in arithmetic: promoted to s64 from each type */
static noinline_for_stack int ktp_oracle_read_arith(struct kunit *test,
						    struct ktp_test_env *e)
{
	const struct pt_regs *regs = &e->regs;
	const struct ktp_oracle_case cases[] = {
		KTP_C(*(s8 *)(ARG6 + 28) + *(u8 *)(ARG6 + 29)),
		KTP_C(*(s16 *)(ARG6 + 24) * *(s8 *)(ARG6 + 28)),
		KTP_C(*(u16 *)(ARG6 + 26) * 2),
		KTP_C(*(u32 *)(ARG6 + 20) + ARG1),
		KTP_C(*(u32 *)(ARG6 + 20) / 2),
		KTP_C(*(u32 *)(ARG6 + 20) - (s64)4294967295 < 0),
		KTP_C(*(u32 *)(ARG6 + 20) + (s64)2),
		KTP_C((s64)*(s32 *)(ARG6 + 16) - 1),
		KTP_C(-(s64)*(s32 *)(ARG6 + 16)),
		KTP_C(*(s32 *)(ARG6 + 16) < (s64)*(u32 *)(ARG6 + 20)),
		KTP_C(*(s64 *)ARG6 / *(s16 *)(ARG6 + 24)),
		KTP_C(*(s64 *)ARG6 % *(s8 *)(ARG6 + 28)),
		KTP_C(*(u64 *)(ARG6 + 8) % *(u16 *)(ARG6 + 26)),
		KTP_C(*(u64 *)(ARG6 + 8) >> (*(u8 *)(ARG6 + 29) % 64)),
		KTP_C(*(u8 *)(ARG6 + 30) || ARG1),
		KTP_C(*(u8 *)(ARG6 + 30) && ARG1),
		KTP_C(*(s8 *)(ARG6 + 28) < *(u8 *)(ARG6 + 29)),
		KTP_C(ARG1 ? *(s16 *)(ARG6 + 24) : *(s64 *)ARG6),
		KTP_C((u8)*(s16 *)(ARG6 + 24)),
		KTP_C((s64)(s8)*(u16 *)(ARG6 + 26)),
		KTP_C((u32)*(s64 *)ARG6),
		KTP_C(*((s32 *)ARG6 + 10) * *((s32 *)ARG6 + 11)),
	};

	return ktp_oracle_run(test, e, cases, ARRAY_SIZE(cases));
}

/*
 * The hazards, which C leaves undefined: their values are KTP's, from
 * ktp.rst ("Hazards have defined results: division and modulo by zero
 * give 0; a shift by a count outside 0 to 63 gives 0 (all sign bits for
 * a signed >>)"). A signed division by -1 cannot trap: it gives what it
 * would without the trap, the negation and 0, as ktp_fold.c says
 * (ktp.rst only says the register is tested for -1). Signed overflow,
 * and a left shift of a negative value, wrap as the programs' 64-bit
 * arithmetic does (BPF_ALU64); ktp.rst does not say so.
 */
static const struct ktp_oracle_case ktp_oracle_hazard_cases[] = {
	{ "7 / 0", 0 },
	{ "7 % 0", 0 },
	{ "-7 / 0", 0 },
	{ "(u64)7 % 0", 0 },
	{ "ARG1 / 0", 0 },
	{ "ARG1 % 0", 0 },
	{ "ARG1 / (ARG5 - 7)", 0 },
	{ "(s64)ARG1 % ((s64)ARG5 - 7)", 0 },
	{ "*(s8 *)(ARG6 + 28) / *(u8 *)(ARG6 + 30)", 0 },
	{ "(-9223372036854775807 - 1) / -1", 0x8000000000000000ULL },
	{ "(-9223372036854775807 - 1) % -1", 0 },
	{ "(s64)ARG3 / -1", 0x8000000000000000ULL },
	{ "(s64)ARG3 % -1", 0 },
	{ "(s64)ARG3 / ((s64)ARG5 - 8)", 0x8000000000000000ULL },
	{ "(s64)ARG3 % ((s64)ARG5 - 8)", 0 },
	{ "1 << 64", 0 },
	{ "1 << 100", 0 },
	{ "-8 >> 64", -1ULL },
	{ "(u64)-8 >> 64", 0 },
	{ "1 << -1", 0 },
	{ "-1 >> -1", -1ULL },
	{ "8 >> -1", 0 },
	{ "ARG1 << 64", 0 },
	{ "ARG1 << -1", 0 },
	{ "ARG1 << ARG1", 0 },
	{ "ARG1 << (ARG5 + 57)", 0 },
	{ "ARG1 >> (s64)ARG2", 0 },
	{ "ARG2 >> ARG1", 0 },
	{ "(s64)ARG2 >> ARG1", -1ULL },
	{ "(s64)ARG2 >> -1", -1ULL },
	{ "(s64)ARG1 >> 64", 0 },
	{ "(u8)ARG4 >> 70", 0 },		/* a u8 is an s64 >= 0 */
	{ "(s8)ARG4 >> 70", -1ULL },
	{ "9223372036854775807 + 1", 0x8000000000000000ULL },
	{ "-(-9223372036854775807 - 1)", 0x8000000000000000ULL },
	{ "(s64)ARG3 - 1", 0x7fffffffffffffffULL },
	{ "(s64)ARG3 * -1", 0x8000000000000000ULL },
	{ "-(s64)ARG3", 0x8000000000000000ULL },
	{ "-1 << 3", -8ULL },
	{ "(s64)-1 << ARG5", -128ULL },
};

/*
 * Where KTP is not C (LP64, as the kernel is built): ktp.rst says an
 * expression is "C on 64-bit values", an operand narrower than 64 bits
 * is promoted to s64 (C: int, or unsigned int for a u32), a constant is
 * an s64, or a u64 with a u suffix or beyond S64_MAX (C: int, then
 * unsigned int for a hexadecimal one), and (char) is a cast, which
 * ktp_parse.c makes an s8 (the kernel is built with -funsigned-char). The
 * comments give what gcc would say; "UB": undefined in C.
 */
static const struct ktp_oracle_case ktp_oracle_differ_cases[] = {
	{ "(s32)-1 < (u32)1", 1 },			/* C: 0 */
	{ "(s32)-1 == (u32)-1", 0 },			/* C: 1 */
	{ "(u32)1 - 2 < 0", 1 },			/* C: 0 */
	{ "(u32)-1 + 1", 0x100000000ULL },		/* C: 0 */
	{ "~(u32)0", -1ULL },				/* C: 0xffffffff */
	{ "-(u32)1", -1ULL },				/* C: 0xffffffff */
	{ "(0 ? (u32)1 : -1) < 0", 1 },			/* C: 0 */
	{ "2147483647 + 1", 0x80000000ULL },		/* C: UB */
	{ "(s32)0x7fffffff + 1", 0x80000000ULL },	/* C: UB */
	{ "65536 * 65536", 0x100000000ULL },		/* C: UB */
	{ "1 << 31", 0x80000000ULL },			/* C: S32_MIN */
	{ "1 << 40", 0x10000000000ULL },		/* C: UB */
	{ "(u8)1 << 40", 0x10000000000ULL },		/* C: UB */
	{ "(u16)-1 * (u16)-1", 0xfffe0001ULL },		/* C: UB */
	{ "0xffffffff + 1", 0x100000000ULL },		/* C: 0 */
	{ "-0x80000000", -0x80000000ULL },		/* C: 0x80000000 */
	{ "0x80000000 > -1", 1 },			/* C: 0 */
	{ "5u - 6", -1ULL },				/* C: 0xffffffff */
	{ "(char)200", -56ULL },			/* C: 200 */
	{ "(char)ARG4 < 0", 1 },			/* C: 0 */
	{ "(u32)ARG2 > -1", 1 },			/* C: 0 */
	{ "(s32)ARG2 < (u32)ARG1", 1 },			/* C: 0 */
	{ "(u32)ARG4 * 16", 0x9abcdef00ULL },		/* C: 0xabcdef00 */
	{ "(u8)ARG4 << 24", 0xf0000000ULL },		/* C: UB */
	{ "*(u32 *)(ARG6 + 20) + 2", 0x100000000ULL },	/* C: 0 */
	{ "*(s32 *)(ARG6 + 16) - 1", -0x80000001ULL },	/* C: UB */
	{ "-*(s32 *)(ARG6 + 16)", 0x80000000ULL },	/* C: UB */
	{ "*(s32 *)(ARG6 + 16) / -1", 0x80000000ULL },	/* C: UB */
	{ "ARG1 ? *(s16 *)(ARG6 + 24) : *(u32 *)(ARG6 + 20)",
	  -300ULL },					/* C: 0xfffffed4 */
};

/*
 * KTP agrees with gcc on the rows of C, with ktp.rst on the others, in
 * the reference evaluator, the interpreter and the JIT.
 */
static void ktp_expr_c_oracle_test(struct kunit *test)
{
	struct ktp_test_env *e = ktp_test_env(test);
	int rows, defined;

	e->regs.di = 100;					/* $arg1 */
	e->regs.si = -5UL;					/* $arg2 */
	e->regs.dx = 0x8000000000000000UL;			/* $arg3 */
	e->regs.cx = 0x123456789abcdef0UL;			/* $arg4 */
	e->regs.r8 = 7;						/* $arg5 */
	e->regs.r9 = (unsigned long)&ktp_oracle_data;		/* $arg6 */
	e->regs.ax = 0xffffffff;
	e->regs.bx = 3;
	e->regs.r12 = (unsigned long)&ktp_oracle_typed_data;	/* TYPED */

	rows = ktp_oracle_run(test, e, ktp_oracle_const_cases,
			      ARRAY_SIZE(ktp_oracle_const_cases));
	rows += ktp_oracle_arith(test, e);
	rows += ktp_oracle_bits(test, e);
	rows += ktp_oracle_casts(test, e);
	rows += ktp_oracle_reads(test, e);
	rows += ktp_oracle_read_arith(test, e);
	rows += ktp_oracle_typed(test, e);
	defined = ktp_oracle_run(test, e, ktp_oracle_hazard_cases,
				 ARRAY_SIZE(ktp_oracle_hazard_cases));
	defined += ktp_oracle_run(test, e, ktp_oracle_differ_cases,
				  ARRAY_SIZE(ktp_oracle_differ_cases));
	kunit_info(test, "%d rows as gcc computes them, %d as ktp.rst defines them",
		   rows, defined);
}

#undef ARG1
#undef ARG2
#undef ARG3
#undef ARG4
#undef ARG5
#undef ARG6
#undef REG_AX
#undef REG_BX
#undef TYPED
#undef KTP_C

/* *(u64 *)@addr reads @val and counts @faults in every runtime */
static void ktp_expect_read(struct kunit *test, struct ktp_test_env *e,
			    unsigned long addr, u64 want, unsigned long want_faults)
{
	struct ktp_expr_error err;
	unsigned long faults;
	char src[40];
	u64 val;
	int jit;

	snprintf(src, sizeof(src), "*(u64 *)(0x%lxu)", addr);
	e->ctx.faults = 0;
	KUNIT_ASSERT_EQ(test, ktp_expr_eval(&e->env, src, &e->ctx, &val, &err), 0);
	KUNIT_EXPECT_EQ_MSG(test, val, want, "reference: %s", src);
	KUNIT_EXPECT_EQ_MSG(test, e->ctx.faults, want_faults, "reference faults: %s", src);
	for (jit = ktp_first_runtime(test); jit <= 1; jit++) {
		val = ktp_test_run(test, e, src, jit, &faults);
		KUNIT_EXPECT_EQ_MSG(test, val, want, "%s: %s", jit ? "jit" : "interp", src);
		KUNIT_EXPECT_EQ_MSG(test, faults, want_faults, "%s faults: %s",
				    jit ? "jit" : "interp", src);
	}
}

/* In the kernel image's data when the test is built in */
static u64 ktp_test_image_words[2] = { 42, 0 };

/*
 * Kernel reads are inline nofault loads. A read of mapped memory gives
 * its value; a 0 is read again and stays 0 with no fault; a load that
 * faults, on an unmapped page (#PF) or at a non-canonical address (#GP),
 * gives 0 through the exception fixup and counts one fault. The same in
 * the reference evaluator, the interpreter and the JIT. A read of the
 * kernel image's data at a constant address cannot fault and is not
 * read again: the same values.
 */
static void ktp_expr_nofault_test(struct kunit *test)
{
	struct ktp_test_env *e = ktp_test_env(test);
	u64 *page;

	ktp_expect_read(test, e, (unsigned long)&ktp_test_image_words[0], 42, 0);
	ktp_expect_read(test, e, (unsigned long)&ktp_test_image_words[1], 0, 0);

	/* vmalloc() leaves the page after the area unmapped, as a guard */
	page = vmalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, page);
	memset(page, 0, PAGE_SIZE);
	page[0] = 42;
	ktp_expect_read(test, e, (unsigned long)page, 42, 0);
	ktp_expect_read(test, e, (unsigned long)&page[1], 0, 0);
	ktp_expect_read(test, e, (unsigned long)page + PAGE_SIZE, 0, 1);
	ktp_expect_read(test, e, 0x8000000000000000UL, 0, 1);
	vfree(page);
}

struct ktp_error_case {
	const char	*src;
	int		pos;
	int		code;
};

#define KTP_ERR(src, pos, code) { src, pos, TP_ERR_KTP_EXPR_##code }
/* an error of a term trace_probe.c parses, as in a fetch argument */
#define TP_ERR(src, pos, code) { src, pos, TP_ERR_##code }

static const struct ktp_error_case ktp_error_cases[] = {
	KTP_ERR("", 0, SYNTAX),
	KTP_ERR("1 +", 3, SYNTAX),
	KTP_ERR("(1", 2, SYNTAX),
	KTP_ERR("1)", 1, SYNTAX),
	KTP_ERR("1 = 2", 2, SYNTAX),
	KTP_ERR("1 ? 2", 5, SYNTAX),
	KTP_ERR("1.5", 1, SYNTAX),
	KTP_ERR("0x", 0, NUMBER),
	KTP_ERR("1 + 08", 4, NUMBER),
	KTP_ERR("99999999999999999999", 0, NUMBER),
	KTP_ERR("'ab'", 0, NUMBER),
	TP_ERR("$nosuch", 0, BAD_VAR),
	TP_ERR("1 + %nosuch", 4, BAD_REG_NAME),
	TP_ERR("$retval", 0, RETVAL_ON_PROBE),	/* an entry probe */
	TP_ERR("$arg0 + 1", 0, BAD_ARG_NUM),
	TP_ERR("1 + $stack1x", 4, BAD_VAR),
	TP_ERR("@0x10+8", 0, BAD_MEM_ADDR),	/* no offset after an address */
	TP_ERR("@+16", 0, FILE_ON_KPROBE),
	KTP_ERR("@no_such_symbol_ktp", 0, UNKNOWN),
	KTP_ERR("1 + @ktp_oracle_data+8x", 4, UNKNOWN),	/* no offset */
	KTP_ERR("no_such_global_ktp", 0, UNKNOWN),
	KTP_ERR("$comm == 1", 6, STRING),
	KTP_ERR("$comm + 1", 6, STRING),
	KTP_ERR("\"a\" == \"b\"", 4, STRING),
	KTP_ERR("-$comm", 0, STRING),
	KTP_ERR("1 + *%ax", 4, DEREF),
	KTP_ERR("(u7)1", 1, UNKNOWN),
	KTP_ERR("(((((((((((((((((((((((((((((((((((1)))))))))))))))))))))))))))))))))",
		32, TOO_DEEP),
};

static void ktp_expr_error_test(struct kunit *test)
{
	struct ktp_test_env *e = ktp_test_env(test);
	const struct ktp_error_case *ec;
	struct ktp_expr_error err;
	u64 val;
	int i;

	for (i = 0; i < ARRAY_SIZE(ktp_error_cases); i++) {
		ec = &ktp_error_cases[i];
		KUNIT_EXPECT_EQ_MSG(test, ktp_expr_eval(&e->env, ec->src, &e->ctx,
							&val, &err), -EINVAL,
				    "accepted: %s", ec->src);
		KUNIT_EXPECT_EQ_MSG(test, err.pos, ec->pos, "position: %s", ec->src);
		KUNIT_EXPECT_EQ_MSG(test, err.code, ec->code, "error: %s", ec->src);
	}
}

/*
 * Functions whose BTF prototypes the detail test names: their addresses
 * are taken, so gcc keeps their parameters as written.
 */
static noinline int ktp_test_params(int the_first_parameter_of_the_test,
				    long the_second_parameter_of_the_test,
				    void *the_third_parameter_of_the_test,
				    int fourth)
{
	return the_first_parameter_of_the_test +
	       the_second_parameter_of_the_test + fourth +
	       !the_third_parameter_of_the_test;
}

static noinline int ktp_test_no_params(void)
{
	return 1;
}

/* as many of its parameters as fit in the detail, cut with "..." */
#define KTP_TEST_PARAMS_DETAIL						\
	"parameters of ktp_test_params: the_first_parameter_of_the_test, "	\
	"the_second_parameter_of_the_test, ..."

static int (* const ktp_test_params_ptr)(int, long, void *, int) __used =
	ktp_test_params;
static int (* const ktp_test_no_params_ptr)(void) __used = ktp_test_no_params;

/*
 * error_log's detail names what a message cannot: the parameters of
 * the function, as many as fit, and the struct without the member.
 */
static void ktp_expr_error_detail_test(struct kunit *test)
{
	static const struct {
		const char	*func;
		const char	*src;
		int		code;
		const char	*detail;
	} cases[] = {
		{ "ktp_test_params", "nosuch + 1", TP_ERR_NO_BTFARG,
		  KTP_TEST_PARAMS_DETAIL },
		{ "ktp_test_no_params", "1 + nosuch", TP_ERR_NO_BTFARG,
		  "ktp_test_no_params has no parameters" },
		{ NULL, "((struct ktp_oracle_typed *)%r12)->nope", TP_ERR_NO_BTF_FIELD,
		  "in struct ktp_oracle_typed" },
		{ NULL, "((struct ktp_oracle_typed *)%r12)->in[1].nope", TP_ERR_NO_BTF_FIELD,
		  "in struct ktp_oracle_inner" },
		{ NULL, "current->nope", TP_ERR_NO_BTF_FIELD, "in struct task_struct" },
		/* no detail for the messages that say it all */
		{ NULL, "nosuch_name_ktp", TP_ERR_KTP_EXPR_UNKNOWN, "" },
		{ NULL, "1 +", TP_ERR_KTP_EXPR_SYNTAX, "" },
	};
	struct ktp_test_env *e = ktp_test_env(test);
	struct ktp_expr_error err;
	u64 val;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		e->env.func = cases[i].func;
		KUNIT_EXPECT_EQ_MSG(test, ktp_expr_eval(&e->env, cases[i].src, &e->ctx,
							&val, &err), -EINVAL,
				    "accepted: %s", cases[i].src);
		KUNIT_EXPECT_EQ_MSG(test, err.code, cases[i].code, "%s", cases[i].src);
		KUNIT_EXPECT_STREQ_MSG(test, err.detail, cases[i].detail, "%s",
				       cases[i].src);
	}
}

/* A condition's program returns whether it holds, and only then fetches */
static void ktp_expr_cond_test(struct kunit *test)
{
	struct ktp_test_env *e = ktp_test_env(test);
	struct ktp_expr_error err;
	struct ktp_compiler *c;
	struct ktp_prog *kp;
	const char *type;
	int jit;

	for (jit = ktp_first_runtime(test); jit <= 1; jit++) {
		ktp_test_jit(jit);
		c = ktp_compiler_create(&e->env);
		KUNIT_ASSERT_NOT_NULL(test, c);
		KUNIT_ASSERT_EQ(test, ktp_compile_cond(c, "%di == 100 && %ax", &err), 0);
		KUNIT_ASSERT_EQ(test, ktp_compile_fetch(c, "%dx * 3", 1, &type,
							&err), 0);
		KUNIT_EXPECT_STREQ(test, type, "u64");
		kp = ktp_compiler_finish(c);
		KUNIT_ASSERT_FALSE(test, IS_ERR(kp));
		KUNIT_EXPECT_TRUE(test, kp->has_cond);

		preempt_disable();
		e->vals[1] = 0;
		KUNIT_EXPECT_NE(test, ktp_prog_run(kp, &e->ctx), 0);
		KUNIT_EXPECT_EQ(test, e->vals[1], 21);
		e->regs.ax = 0;
		e->vals[1] = 0;
		KUNIT_EXPECT_EQ(test, ktp_prog_run(kp, &e->ctx), 0);
		KUNIT_EXPECT_EQ(test, e->vals[1], 0);	/* not fetched */
		e->regs.ax = 3;
		preempt_enable();
		ktp_prog_free(kp);
	}
}

/* A small PRNG, so that a failure can be reproduced from the seed */
static u32 ktp_rand(u32 *state)
{
	u32 x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *state = x;
}

static const char * const ktp_rand_terms[] = {
	"%ax", "%bx", "%cx", "%dx", "%si", "%di", "%r8", "%r15",
	"$arg1", "$arg2", "$arg4", "$arg6", "$arg7", "$stack0", "$stack3",
};

static const char * const ktp_rand_binops[] = {
	"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^",
	"<", "<=", ">", ">=", "==", "!=", "&&", "||",
};

static const char * const ktp_rand_types[] = {
	"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
};

/*
 * Typed terms: members of what %r12 points to (random bytes each batch),
 * bitfields, arrays, a union, an enum, a pointer chain, and current.
 * "%s" is an index that another random expression computes.
 */
#define KTP_RAND_T	"((struct ktp_oracle_typed *)%r12)"
static const char * const ktp_rand_typed[] = {
	KTP_RAND_T "->i", KTP_RAND_T "->bf_u3", KTP_RAND_T "->bf_s5",
	KTP_RAND_T "->bf_u20", KTP_RAND_T "->bf_s40", KTP_RAND_T "->in[1].a",
	KTP_RAND_T "->in[0].b", KTP_RAND_T "->in[1].name[5]", KTP_RAND_T "->word",
	KTP_RAND_T "->e", KTP_RAND_T "->self->self->bf_s5", "(*" KTP_RAND_T ").l",
	KTP_RAND_T "->uc", KTP_RAND_T "->bytes[3]", "*" KTP_RAND_T "->in[0].name",
	"&" KTP_RAND_T "->in[1] - &" KTP_RAND_T "->in[0]",
	"container_of(&" KTP_RAND_T "->l, struct ktp_oracle_typed, l)->i",
	"((struct ktp_oracle_inner *)" KTP_RAND_T "->bytes)->b",
	"sizeof(struct ktp_oracle_inner)", "current->pid",
	"current->comm[0]",
	/* indexes */
	KTP_RAND_T "->bytes[(%s) & 7]", KTP_RAND_T "->in[(%s) & 1].b",
	KTP_RAND_T "->in[0].name[(%s) & 3]", "(enum ktp_oracle_enum)(%s)",
	"(" KTP_RAND_T " + ((%s) & 1))->i",
};

/* The bytes of a typed term each batch: any, with self still itself */
static void ktp_rand_typed_data(u32 *st, struct ktp_oracle_typed *t)
{
	u8 *p = (u8 *)t;
	size_t i;

	for (i = 0; i < 2 * sizeof(*t); i++)
		p[i] = ktp_rand(st);
	t[0].self = &t[0];
	t[1].self = &t[0];
}

/* Append a random expression of at most @depth levels to @s. */
static void ktp_rand_expr(u32 *st, char *s, size_t size, int depth)
{
	size_t len = strlen(s);
	u32 r = ktp_rand(st);
	int kind = depth ? r % 10 : r % 4;
	const char *t, *idx;

#define OUT(...) (len = strlen(s), scnprintf(s + len, size - len, __VA_ARGS__))
	/* what is left keeps the closing parentheses of every level */
	if (size - len < 512)
		kind = 0;
	switch (kind) {
	case 0:		/* a literal: small, negative, or any 64 bits */
		switch (ktp_rand(st) % 4) {
		case 0:
			OUT("%u", ktp_rand(st) % 70);
			break;
		case 1:
			OUT("-%u", ktp_rand(st) % 70);
			break;
		case 2:
			OUT("0x%x%08xu", ktp_rand(st), ktp_rand(st));
			break;
		default:
			OUT("0x%x", ktp_rand(st));
		}
		return;
	case 1:
	case 2:
		OUT("%s", ktp_rand_terms[ktp_rand(st) % ARRAY_SIZE(ktp_rand_terms)]);
		return;
	case 3:		/* a typed term, maybe at an index computed */
		t = ktp_rand_typed[ktp_rand(st) % ARRAY_SIZE(ktp_rand_typed)];
		idx = strstr(t, "%s");
		if (!idx) {
			OUT("(%s)", t);
			return;
		}
		OUT("(%.*s", (int)(idx - t), t);
		if (depth)
			ktp_rand_expr(st, s, size, depth - 1);
		else
			OUT("%s", ktp_rand_terms[ktp_rand(st) % ARRAY_SIZE(ktp_rand_terms)]);
		OUT("%s)", idx + 2);
		return;
	case 4:		/* unary */
		OUT("%c(", "-~!"[ktp_rand(st) % 3]);
		ktp_rand_expr(st, s, size, depth - 1);
		OUT(")");
		return;
	case 5:		/* a cast */
		OUT("(%s)(", ktp_rand_types[ktp_rand(st) % ARRAY_SIZE(ktp_rand_types)]);
		ktp_rand_expr(st, s, size, depth - 1);
		OUT(")");
		return;
	case 6:		/* a read: in a buffer, or faulting */
		OUT("*(%s *)(", ktp_rand_types[ktp_rand(st) % ARRAY_SIZE(ktp_rand_types)]);
		if (ktp_rand(st) % 4) {
			OUT("$stack + 8 * ((");
			ktp_rand_expr(st, s, size, depth - 1);
			OUT(") & 15))");
		} else {
			OUT("16 + (");
			ktp_rand_expr(st, s, size, depth - 1);
			OUT(") %% 8)");
		}
		return;
	case 7:		/* ?: */
		OUT("((");
		ktp_rand_expr(st, s, size, depth - 1);
		OUT(") ? (");
		ktp_rand_expr(st, s, size, depth - 1);
		OUT(") : (");
		ktp_rand_expr(st, s, size, depth - 1);
		OUT("))");
		return;
	default:	/* binary */
		OUT("(");
		ktp_rand_expr(st, s, size, depth - 1);
		OUT(" %s ", ktp_rand_binops[ktp_rand(st) % ARRAY_SIZE(ktp_rand_binops)]);
		ktp_rand_expr(st, s, size, depth - 1);
		OUT(")");
	}
#undef OUT
}

/*
 * A register fetch argument the program fetches (ktp_compile_fetch_reg()):
 * the whole register in its slot, after the condition and beside an
 * expression's value, and nothing in any slot when the condition is false.
 */
static void ktp_expr_fetch_reg_test(struct kunit *test)
{
	struct ktp_test_env *e = ktp_test_env(test);
	struct ktp_expr_error err;
	struct ktp_compiler *c;
	struct ktp_prog *kp;
	const char *type;
	int i, jit;

	for (jit = ktp_first_runtime(test); jit <= 1; jit++) {
		ktp_test_jit(jit);
		c = ktp_compiler_create(&e->env);
		KUNIT_ASSERT_NOT_NULL(test, c);
		KUNIT_ASSERT_EQ(test, ktp_compile_cond(c, "%di == 100", &err), 0);
		KUNIT_ASSERT_EQ(test, ktp_compile_fetch_reg(c, offsetof(struct pt_regs, si),
							    0), 0);
		KUNIT_ASSERT_EQ(test, ktp_compile_fetch(c, "%dx * 3", 1, &type,
							&err), 0);
		/* $arg4 at a function's entry: %cx */
		KUNIT_ASSERT_EQ(test, ktp_compile_fetch_reg(c, ktp_arg_reg_offset(4),
							    2), 0);
		KUNIT_EXPECT_EQ(test, ktp_compile_fetch_reg(c, offsetof(struct pt_regs, bx),
							    KTP_EXPR_MAX_FETCHES),
				-E2BIG);
		KUNIT_EXPECT_EQ(test, c->nr_vals, 3);
		kp = ktp_compiler_finish(c);
		KUNIT_ASSERT_FALSE(test, IS_ERR(kp));
		KUNIT_EXPECT_EQ(test, !!kp->prog->jited, jit);

		e->regs.cx = 0xfedcba9876543210ULL;
		for (i = 0; i < ARRAY_SIZE(e->vals); i++)
			e->vals[i] = 0xdeadbeef;
		preempt_disable();
		KUNIT_EXPECT_NE(test, ktp_prog_run(kp, &e->ctx), 0);
		KUNIT_EXPECT_EQ(test, e->vals[0], 0x8000000000000000ULL);
		KUNIT_EXPECT_EQ(test, e->vals[1], 21);
		KUNIT_EXPECT_EQ(test, e->vals[2], 0xfedcba9876543210ULL);
		KUNIT_EXPECT_EQ(test, e->vals[3], 0xdeadbeef);

		e->regs.di = 101;
		for (i = 0; i < ARRAY_SIZE(e->vals); i++)
			e->vals[i] = 0xdeadbeef;
		KUNIT_EXPECT_EQ(test, ktp_prog_run(kp, &e->ctx), 0);
		preempt_enable();
		for (i = 0; i < ARRAY_SIZE(e->vals); i++)
			KUNIT_EXPECT_EQ_MSG(test, e->vals[i], 0xdeadbeef, "slot %d", i);
		e->regs.di = 100;
		ktp_prog_free(kp);
	}
}

/*
 * The reference evaluator, the interpreter and the JIT agree on
 * KTP_TEST_EXPRS random expressions over random registers and memory,
 * and over the members of a struct of random bytes, typed by its BTF.
 */
static void ktp_expr_differential_test(struct kunit *test)
{
	const int part = *(const int *)test->param_value;
	struct ktp_test_env *e = ktp_test_env(test);
	u64 want[KTP_TEST_BATCH], got[2][KTP_TEST_BATCH];
	unsigned long want_faults, got_faults[2];
	struct ktp_oracle_typed *typed;
	char (*src)[2048];
	struct ktp_expr_error err;
	struct ktp_compiler *c;
	struct ktp_prog *kp;
	u32 st = KTP_TEST_SEED;
	int n, i, jit, first, done = 0;
	const char *type;

	src = kunit_kcalloc(test, KTP_TEST_BATCH, sizeof(*src), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, src);
	typed = kunit_kcalloc(test, 2, sizeof(*typed), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, typed);
	e->regs.r12 = (unsigned long)typed;

	first = ktp_first_runtime(test);
	for (n = 0; n < KTP_TEST_EXPRS; n += KTP_TEST_BATCH) {
		/* new random registers and stack for each batch */
		e->regs.ax = ktp_rand(&st);
		e->regs.bx = (u64)ktp_rand(&st) << 32 | ktp_rand(&st);
		e->regs.cx = -(u64)(ktp_rand(&st) % 100);
		e->regs.dx = ktp_rand(&st) % 70;
		e->regs.si = (u64)ktp_rand(&st) << 32;
		e->regs.di = ktp_rand(&st) % 3;
		e->regs.r8 = -1;
		e->regs.r15 = 0x8000000000000000ULL;
		for (i = 0; i < ARRAY_SIZE(e->stack); i++)
			e->stack[i] = (u64)ktp_rand(&st) << (ktp_rand(&st) % 40);
		ktp_rand_typed_data(&st, typed);
		for (i = 0; i < KTP_TEST_BATCH; i++) {
			src[i][0] = '\0';
			ktp_rand_expr(&st, src[i], sizeof(src[i]), 1 + ktp_rand(&st) % 5);
		}
		/* the batches of the other parts: drawn, not run */
		if (n / (KTP_TEST_EXPRS / KTP_TEST_PARTS) != part)
			continue;

		want_faults = 0;
		for (i = 0; i < KTP_TEST_BATCH; i++) {
			e->ctx.faults = 0;
			KUNIT_ASSERT_EQ_MSG(test, ktp_expr_eval(&e->env, src[i], &e->ctx,
								&want[i], &err), 0,
					    "%s: error %d at %d", src[i], err.code, err.pos);
			want_faults += e->ctx.faults;
		}

		for (jit = first; jit <= 1; jit++) {
			ktp_test_jit(jit);
			c = ktp_compiler_create(&e->env);
			KUNIT_ASSERT_NOT_NULL(test, c);
			for (i = 0; i < KTP_TEST_BATCH; i++)
				KUNIT_ASSERT_EQ_MSG(test, ktp_compile_fetch(c, src[i], i,
									    &type, &err),
						    0, "%s", src[i]);
			kp = ktp_compiler_finish(c);
			KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(kp), "%ld", PTR_ERR(kp));
			KUNIT_ASSERT_EQ(test, !!kp->prog->jited, jit);
			e->ctx.faults = 0;
			preempt_disable();
			ktp_prog_run(kp, &e->ctx);
			preempt_enable();
			memcpy(got[jit], e->vals, sizeof(got[jit]));
			got_faults[jit] = e->ctx.faults;
			ktp_prog_free(kp);
		}

		/* each runtime that ran, against the reference */
		for (jit = first; jit <= 1; jit++) {
			for (i = 0; i < KTP_TEST_BATCH; i++)
				KUNIT_ASSERT_EQ_MSG(test, got[jit][i], want[i], "%s: %s",
						    jit ? "jit" : "interp", src[i]);
			KUNIT_ASSERT_EQ(test, got_faults[jit], want_faults);
		}
		done += KTP_TEST_BATCH;
	}
	kunit_info(test, "%d random expressions agree in the reference, the interpreter and the JIT",
		   done);
	KUNIT_EXPECT_EQ(test, done, KTP_TEST_EXPRS / KTP_TEST_PARTS);
}

/*
 * Random streams of tokens and bytes: the parser accepts or refuses
 * each, never reads past it, and points an error inside it.
 */
static void ktp_expr_fuzz_test(struct kunit *test)
{
	static const char * const toks[] = {
		"$arg1", "%ax", "%di", "$retval", "$comm", "$stack", "$stack3",
		"jiffies", "&", "0", "1", "0x", "0x7fffffffffffffff", "077",
		"18446744073709551616", "'a'", "'", "\"ab\"", "\"", "(", ")",
		"(u8)", "(s64 *)", "*", "+8(", "-", "~", "!", "+", "/", "%", "<<",
		">>", "<", "<=", "==", "!=", "&&", "||", "?", ":", "@", "@vfs_read",
		"=", "#", " ", "\xff", "[", ".", "]", "->", "current", "pid", "comm",
		"(struct ktp_oracle_typed *)", "(struct nosuch *)", "(enum pid_type)",
		"%r12", "in", "self", "bf_s5", "name", "sizeof", "container_of",
		"struct ktp_oracle_inner", ",", "(char __user *)", "PIDTYPE_TGID",
	};
	const int part = *(const int *)test->param_value;
	struct ktp_test_env *e = ktp_test_env(test);
	struct ktp_expr_error err;
	u32 st = KTP_TEST_SEED;
	int n, i, len, accepted = 0, done = 0;
	char src[256];
	u64 val;

	for (n = 0; n < KTP_TEST_STREAMS; n++) {
		len = 0;
		src[0] = '\0';
		for (i = ktp_rand(&st) % 12; i >= 0; i--) {
			if (ktp_rand(&st) % 8) {
				len += scnprintf(src + len, sizeof(src) - len, "%s",
						 toks[ktp_rand(&st) % ARRAY_SIZE(toks)]);
			} else if (len < sizeof(src) - 1) {
				src[len++] = 1 + ktp_rand(&st) % 255;
				src[len] = '\0';
			}
		}
		/* the streams of the other parts: drawn, not parsed */
		if (n / (KTP_TEST_STREAMS / KTP_TEST_PARTS) != part)
			continue;
		done++;
		e->ctx.faults = 0;
		switch (ktp_expr_eval(&e->env, src, &e->ctx, &val, &err)) {
		case 0:
			accepted++;
			break;
		case -EINVAL:
			KUNIT_ASSERT_GE_MSG(test, err.pos, 0, "%s", src);
			KUNIT_ASSERT_LE_MSG(test, err.pos, len, "%s", src);
			/*
			 * KTP's messages, and probe events' for BTF and for
			 * the terms trace_probe.c parses
			 */
			if (err.code != TP_ERR_NO_PTR_STRCT &&
			    err.code != TP_ERR_NO_BTF_FIELD &&
			    err.code != TP_ERR_NON_UNIQ_SYMBOL &&
			    !ktp_is_fetch_var_error(err.code)) {
				KUNIT_ASSERT_GE_MSG(test, err.code, TP_ERR_KTP_EXPR_SYNTAX,
						    "%s", src);
				KUNIT_ASSERT_LE_MSG(test, err.code, TP_ERR_KTP_EXPR_STR_LONG,
						    "%s", src);
			}
			break;
		default:
			KUNIT_FAIL(test, "%s: unexpected result", src);
			return;
		}
	}
	kunit_info(test, "%d random token streams: %d accepted, the others refused with a position",
		   done, accepted);
	KUNIT_EXPECT_EQ(test, done, KTP_TEST_STREAMS / KTP_TEST_PARTS);
}

/* "%ax+%ax+...", @n terms, in @s */
static char *ktp_chain(struct kunit *test, int n)
{
	char *s = kunit_kzalloc(test, 4 * n + 1, GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	for (i = 0; i < n; i++)
		strcat(s, i ? "+%ax" : "%ax");
	return s;
}

/*
 * The longest program: a probe's fetch expressions fill it, as it grows,
 * up to KTP_EXPR_MAX_INSNS; the one that does not fit is refused.
 */
static void ktp_expr_longest_prog(struct kunit *test, struct ktp_test_env *e,
				  const char *src)
{
	struct ktp_expr_error err;
	struct ktp_compiler *c;
	int start, per, slot, ret;
	const char *type;

	c = ktp_compiler_create(&e->env);
	KUNIT_ASSERT_NOT_NULL(test, c);
	/* the first fetch also finds where the values go */
	ret = ktp_compile_fetch(c, src, 0, &type, &err);
	KUNIT_ASSERT_EQ(test, ret, 0);
	start = c->len;
	ret = ktp_compile_fetch(c, src, 1, &type, &err);
	KUNIT_ASSERT_EQ(test, ret, 0);
	per = c->len - start;
	KUNIT_ASSERT_GT(test, per, 0);
	for (slot = 2; !ret && slot < KTP_EXPR_MAX_FETCHES; slot++)
		ret = ktp_compile_fetch(c, src, slot, &type, &err);
	KUNIT_EXPECT_EQ(test, ret, -E2BIG);
	KUNIT_EXPECT_EQ(test, err.code, TP_ERR_KTP_EXPR_TOO_BIG);
	/* slot went one past the fetch that did not fit */
	KUNIT_EXPECT_EQ(test, slot - 1, 1 + (KTP_EXPR_MAX_INSNS - start) / per);
	KUNIT_EXPECT_EQ(test, c->len, KTP_EXPR_MAX_INSNS);
	ktp_compiler_destroy(c);
}

/*
 * The limits: the highest tree (a flat chain), the longest program and
 * the longest literal accepted, one more refused with the caret where it
 * went over.
 */
static void ktp_expr_limits_test(struct kunit *test)
{
	struct ktp_test_env *e = ktp_test_env(test);
	struct ktp_expr_error err;
	unsigned long faults;
	char *src, *lit;
	int jit;
	u64 val;

	src = ktp_chain(test, KTP_EXPR_MAX_HEIGHT);
	KUNIT_ASSERT_EQ(test, ktp_expr_eval(&e->env, src, &e->ctx, &val, &err), 0);
	KUNIT_EXPECT_EQ(test, val, 3 * KTP_EXPR_MAX_HEIGHT);
	for (jit = ktp_first_runtime(test); jit <= 1; jit++)
		KUNIT_EXPECT_EQ(test, ktp_test_run(test, e, src, jit, &faults),
				3 * KTP_EXPR_MAX_HEIGHT);

	/* the caret is under the '+' that makes it one level too high */
	src = ktp_chain(test, KTP_EXPR_MAX_HEIGHT + 1);
	KUNIT_EXPECT_EQ(test, ktp_expr_eval(&e->env, src, &e->ctx, &val, &err),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, err.code, TP_ERR_KTP_EXPR_TOO_DEEP);
	KUNIT_EXPECT_EQ(test, err.pos, 4 * KTP_EXPR_MAX_HEIGHT - 1);

	ktp_expr_longest_prog(test, e, ktp_chain(test, KTP_EXPR_MAX_HEIGHT));

	/* "aaa...a" == "aaa...a", the longest literal KTP compares */
	lit = kunit_kzalloc(test, 2 * KTP_EXPR_STR_MAX + 16, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, lit);
	src = lit;
	src += sprintf(src, "(char *)%%ax == \"");
	memset(src, 'a', KTP_EXPR_STR_MAX - 1);
	memcpy(src + KTP_EXPR_STR_MAX - 1, "\"", 2);
	KUNIT_EXPECT_EQ(test, ktp_expr_eval(&e->env, lit, &e->ctx, &val, &err), 0);
	/* one more byte, and it could never be equal */
	memcpy(src + KTP_EXPR_STR_MAX - 1, "a\"", 3);
	KUNIT_EXPECT_EQ(test, ktp_expr_eval(&e->env, lit, &e->ctx, &val, &err),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, err.code, TP_ERR_KTP_EXPR_STR_LONG);
	KUNIT_EXPECT_EQ(test, err.pos, (int)(src - lit - 1));
}

/*
 * Where the compiler finds registers and arguments, from the
 * architecture's accessors: the x86-64 calling convention, as the ABI
 * writes it.
 */
static void ktp_expr_regs_test(struct kunit *test)
{
	static const int args[] = {
		offsetof(struct pt_regs, di), offsetof(struct pt_regs, si),
		offsetof(struct pt_regs, dx), offsetof(struct pt_regs, cx),
		offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
	};
	int i;

	KUNIT_EXPECT_EQ(test, ktp_retval_offset(), offsetof(struct pt_regs, ax));
	KUNIT_EXPECT_EQ(test, ktp_sp_offset(), offsetof(struct pt_regs, sp));
	KUNIT_EXPECT_EQ(test, ktp_arg_reg_offset(0), -1);
	for (i = 0; i < ARRAY_SIZE(args); i++) {
		KUNIT_EXPECT_EQ(test, ktp_arg_reg_offset(i + 1), args[i]);
		KUNIT_EXPECT_EQ(test, ktp_arg_stack_offset(i + 1), -1);
	}
	/* the 7th and later above the return address */
	KUNIT_EXPECT_EQ(test, ktp_arg_reg_offset(7), -1);
	KUNIT_EXPECT_EQ(test, ktp_arg_stack_offset(7), 8);
	KUNIT_EXPECT_EQ(test, ktp_arg_stack_offset(8), 16);
	KUNIT_EXPECT_EQ(test, ktp_arg_stack_offset(512), 8 * 506);
}

/* Append @n compares "OP LIT" of $comm, joined by ||, to @src; its end */
static char *ktp_strcmps(char *src, int n, const char *op, const char *lit)
{
	while (n--)
		src += sprintf(src, "$comm %s \"%s\"%s", op, lit, n ? " || " : "");
	return src;
}

/*
 * What bounds the cost of a hit: at most KTP_EXPR_MAX_STRCMPS string
 * compares a probe, its condition and fetches together, and glob
 * patterns of at most KTP_EXPR_GLOB_MAX bytes together.
 */
static void ktp_expr_strcmp_limits_test(struct kunit *test)
{
	struct ktp_test_env *e = ktp_test_env(test);
	char *src, *end, glob[KTP_EXPR_GLOB_MAX / 2 + 1];
	struct ktp_expr_error err = {};
	struct ktp_compiler *c;
	const char *type;
	u64 val;

	src = kunit_kzalloc(test, 4096, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, src);

	ktp_strcmps(src, KTP_EXPR_MAX_STRCMPS, "==", "a");
	KUNIT_EXPECT_EQ(test, ktp_expr_eval(&e->env, src, &e->ctx, &val, &err), 0);
	end = ktp_strcmps(src, KTP_EXPR_MAX_STRCMPS, "!=", "a");
	sprintf(end, " || $comm == \"b\"");
	KUNIT_EXPECT_EQ(test, ktp_expr_eval(&e->env, src, &e->ctx, &val, &err),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, err.code, TP_ERR_KTP_EXPR_TOO_MANY_STRS);
	/* the caret under the 17th compare's operator */
	KUNIT_EXPECT_EQ(test, err.pos, (int)(end - src) + 10);

	/* the condition's and the fetch expressions' compares add up */
	c = ktp_compiler_create(&e->env);
	KUNIT_ASSERT_NOT_NULL(test, c);
	ktp_strcmps(src, KTP_EXPR_MAX_STRCMPS - 1, "~", "k*");
	KUNIT_EXPECT_EQ(test, ktp_compile_cond(c, src, &err), 0);
	KUNIT_EXPECT_EQ(test, ktp_compile_fetch(c, "$comm==\"a\"", 0,
						&type, &err), 0);
	memset(&err, 0, sizeof(err));
	KUNIT_EXPECT_EQ(test, ktp_compile_fetch(c, "$comm!=\"a\"", 1,
						&type, &err), -EINVAL);
	KUNIT_EXPECT_EQ(test, err.code, TP_ERR_KTP_EXPR_TOO_MANY_STRS);
	KUNIT_EXPECT_EQ(test, err.pos, 5);
	ktp_compiler_destroy(c);

	/* two globs of half the bytes each, then one byte more */
	memset(glob, '*', sizeof(glob) - 1);
	glob[sizeof(glob) - 1] = '\0';
	memset(&err, 0, sizeof(err));
	end = ktp_strcmps(src, 2, "~", glob);
	KUNIT_EXPECT_EQ(test, ktp_expr_eval(&e->env, src, &e->ctx, &val, &err), 0);
	/* == and != literals do not count */
	sprintf(end, " || $comm == \"x\" || $comm ~ \"x\"");
	KUNIT_EXPECT_EQ(test, ktp_expr_eval(&e->env, src, &e->ctx, &val, &err),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, err.code, TP_ERR_KTP_EXPR_GLOB_LONG);
	/* the caret under the pattern that makes it too long */
	KUNIT_EXPECT_EQ(test, err.pos, (int)strlen(src) - 3);
}

/*
 * String fields of an event record: a __data_loc one is found at its
 * offset from the record, a __rel_loc one at its offset from the end of
 * its own 32-bit location word, and a char array is its bytes up to a
 * NUL or its end (as trace_events_filter.c reads them).
 */
static void ktp_expr_string_field_test(struct kunit *test)
{
	static struct trace_event_class class = { .system = "ktp_test" };
	static struct trace_event_call call = { .class = &class };
	static struct ftrace_event_field dyn = {
		.name = "dyn", .type = "__data_loc char[]", .offset = 8,
		.size = 4, .filter_type = FILTER_DYN_STRING,
	};
	static struct ftrace_event_field rel = {
		.name = "rel", .type = "__rel_loc char[]", .offset = 12,
		.size = 4, .filter_type = FILTER_RDYN_STRING,
	};
	static struct ftrace_event_field arr = {
		.name = "arr", .type = "char[4]", .offset = 28,
		.size = 4, .filter_type = FILTER_STATIC_STRING,
	};
	struct ktp_test_env *e = ktp_test_env(test);
	struct fetch_insn code = { .data = &rel };
	unsigned long faults;
	u32 rec[9] = {};
	int jit;

	INIT_LIST_HEAD(&class.fields);
	list_add(&dyn.link, &class.fields);
	list_add(&rel.link, &class.fields);
	list_add(&arr.link, &class.fields);
	e->env.flags = KTP_ENV_EVENT;
	e->env.event = &call;
	e->ctx.regs = NULL;
	e->ctx.rec = rec;

	rec[2] = 4 << 16 | 16;		/* "dyn" at 16 */
	memcpy(&rec[4], "dyn", 4);
	rec[3] = 4 << 16 | 8;		/* "rel" at 16 + 8 = 24 */
	memcpy(&rec[5], "bad", 4);	/* where 12 + 8 would point */
	memcpy(&rec[6], "rel", 4);
	memcpy(&rec[7], "arrayed", 8);	/* "arra" with no NUL, then more */

	KUNIT_EXPECT_PTR_EQ(test, (void *)get_event_field(&code, rec),
			    (void *)&rec[6]);
	for (jit = ktp_first_runtime(test); jit <= 1; jit++) {
		KUNIT_EXPECT_EQ(test, ktp_test_run(test, e, "$dyn == \"dyn\"", jit,
						   &faults), 1);
		KUNIT_EXPECT_EQ(test, ktp_test_run(test, e, "$rel == \"rel\"", jit,
						   &faults), 1);
		KUNIT_EXPECT_EQ(test, ktp_test_run(test, e, "$arr == \"arra\"", jit,
						   &faults), 1);
		KUNIT_EXPECT_EQ(test, ktp_test_run(test, e, "$arr ~ \"*yed\"", jit,
						   &faults), 0);
		KUNIT_EXPECT_EQ(test, faults, 0);
	}
}

/* The kfuncs "t" probes' programs end in (ktp_tpoint.c) */
BTF_ID_LIST(ktp_test_tp_kfuncs)
BTF_ID(func, ktp_tp_enter)
BTF_ID(func, ktp_tp_record)

/*
 * vmlinux's BTF index, which KTP and probe events find types by, finds
 * what a walk of every type finds (btf_find_by_name_kind(), which shares
 * none of its code): every named type's name and kind, at an id no
 * higher than its own; for a sample of them, the same id as the walk,
 * the lowest of that name and kind; and nothing for a name that is not
 * there or a kind it does not have.
 */
static void ktp_expr_btf_index_test(struct kunit *test)
{
	struct btf *btf = bpf_get_btf_vmlinux();
	u32 id, nr, named = 0, sampled = 0;
	const struct btf_type *t, *found;
	const char *name;
	s32 got;
	u8 kind;

	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(btf));
	nr = btf_nr_types(btf);
	for (id = 1; id < nr; id++) {
		t = btf_type_by_id(btf, id);
		if (!t->name_off)
			continue;
		named++;
		name = btf_name_by_offset(btf, t->name_off);
		kind = BTF_INFO_KIND(t->info);
		got = btf_find_vmlinux_by_name_kind(name, kind);
		if (got <= 0 || got > id) {
			KUNIT_FAIL(test, "%s (kind %u, id %u): %d", name, kind,
				   id, got);
			return;
		}
		found = btf_type_by_id(btf, got);
		if (BTF_INFO_KIND(found->info) != kind ||
		    strcmp(btf_name_by_offset(btf, found->name_off), name)) {
			KUNIT_FAIL(test, "%s (kind %u, id %u): id %d is another",
				   name, kind, id, got);
			return;
		}
		/* a walk costs some 800,000 instructions: every 1000th */
		if (named % 1000)
			continue;
		sampled++;
		KUNIT_EXPECT_EQ_MSG(test, got, btf_find_by_name_kind(btf, name, kind),
				    "%s (kind %u)", name, kind);
	}
	KUNIT_EXPECT_GT(test, sampled, 30);
	KUNIT_EXPECT_EQ(test, btf_find_vmlinux_by_name_kind("ktp_no_such_type",
							    BTF_KIND_STRUCT),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, btf_find_vmlinux_by_name_kind("task_struct",
							    BTF_KIND_UNION),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, btf_find_vmlinux_by_name_kind("task_struct",
							    BTF_KIND_STRUCT),
			btf_find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT));
}

/*
 * The JIT turned off between a definition's compile and its load: the
 * program, made for the JIT (its string compare calls a kfunc), is
 * refused by the verifier with an errno only the kernel knows, which the
 * writer is told as EOPNOTSUPP, as a definition made with the JIT off
 * is. With the JIT still on, the same program loads. The JIT stays on
 * with CONFIG_BPF_JIT_ALWAYS_ON: that half is skipped, with the reason.
 */
static void ktp_expr_jit_off_at_load_test(struct kunit *test)
{
	struct ktp_test_env *e = ktp_test_env(test);
	struct ktp_expr_error err = {};
	struct ktp_compiler *c;
	struct ktp_prog *kp;
	int jit_off;

	for (jit_off = 0; jit_off <= 1; jit_off++) {
		if (jit_off && IS_ENABLED(CONFIG_BPF_JIT_ALWAYS_ON)) {
			kunit_mark_skipped(test, "JIT-off half: CONFIG_BPF_JIT_ALWAYS_ON");
			break;
		}
		ktp_test_jit(1);
		c = ktp_compiler_create(&e->env);
		KUNIT_ASSERT_NOT_NULL(test, c);
		KUNIT_ASSERT_EQ(test, ktp_compile_cond(c, "$comm == \"kunit\"",
						       &err), 0);
		if (jit_off)
			ktp_test_jit(0);
		kp = ktp_compiler_finish(c);
		if (jit_off)
			KUNIT_EXPECT_PTR_EQ(test, kp, ERR_PTR(-EOPNOTSUPP));
		else
			KUNIT_EXPECT_FALSE_MSG(test, IS_ERR(kp), "%ld",
					       PTR_ERR(kp));
		if (!IS_ERR_OR_NULL(kp))
			ktp_prog_free(kp);
	}
}

/*
 * Where the tests' "t" programs run: sched_switch, whose arguments are
 * (bool preempt, prev, next, unsigned int prev_state)
 */
static const struct ktp_expr_env ktp_test_sched_switch = {
	.flags = KTP_ENV_TPOINT, .nr_args = 4, .tpoint = "sched_switch",
	.kfuncs = ktp_test_tp_kfuncs, .name = "kunit",
};

/*
 * A program that outlives its probe (on a link bpf() took by its id) and
 * passes its slot once another program has it finds nothing: it passes
 * its own map, which it holds, and no live program has another's.
 */
static void ktp_expr_stale_prog_test(struct kunit *test)
{
	const struct bpf_map *stale_map;
	struct ktp_expr_error err = {};
	struct bpf_prog *stale;
	struct ktp_compiler *c;
	struct ktp_prog *kp;
	u32 slot;

	c = ktp_compiler_create(&ktp_test_sched_switch);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_EQ(test, ktp_compile_cond(c, "$arg4 == 39", &err), 0);
	kp = ktp_compiler_finish(c);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(kp), "%ld", PTR_ERR(kp));
	stale = kp->prog;
	bpf_prog_inc(stale);
	stale_map = kp->self_map;
	slot = kp->id;
	ktp_prog_free(kp);

	c = ktp_compiler_create(&ktp_test_sched_switch);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_EQ(test, ktp_compile_cond(c, "$arg4 == 40", &err), 0);
	kp = ktp_compiler_finish(c);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(kp), "%ld", PTR_ERR(kp));
	/* the lowest free slot: the stale program's */
	KUNIT_ASSERT_EQ(test, kp->id, slot);
	KUNIT_EXPECT_PTR_NE(test, kp->self_map, stale_map);
	rcu_read_lock();
	KUNIT_EXPECT_NULL(test, ktp_prog_by_id(stale_map, slot));
	KUNIT_EXPECT_PTR_EQ(test, ktp_prog_by_id(kp->self_map, slot), kp);
	rcu_read_unlock();
	ktp_prog_free(kp);
	bpf_prog_put(stale);
}

/*
 * A "t" probe's program records each hit it enters, once: ktp_tp_enter()
 * acquires the hit and ktp_tp_record() releases it, so the verifier
 * refuses a program that leaves a hit entered, records it twice or
 * records one it did not enter, whatever KTP's code generation did.
 * Each program is loaded as KTP loads a "t" probe's, with its map and
 * its slot.
 */
static void ktp_expr_tpoint_pair_test(struct kunit *test)
{
	static const struct {
		const char	*what;
		bool		enter;
		int		records;
		int		err;
	} cases[] = {
		{ "entered and recorded", true, 1, 0 },
		{ "entered, never recorded", true, 0, -EINVAL },
		{ "entered, recorded twice", true, 2, -EINVAL },
		{ "recorded, never entered", false, 1, -EINVAL },
	};
	struct bpf_map *maps[KTP_V_NR_MAPS] = {};
	struct bpf_prog_kern_attr kattr = {
		.maps = maps, .nr_maps = KTP_V_NR_MAPS, .owner = &ktp_kfunc_set,
	};
	const struct bpf_insn ld_self[2] = {
		BPF_LD_IMM64_RAW(BPF_REG_1, BPF_PSEUDO_MAP_IDX, KTP_V_MAP_SELF)
	};
	struct bpf_insn insns[16];
	struct ktp_compiler *c;
	struct bpf_prog *prog;
	union bpf_attr attr;
	int i, j, n;
	u32 id;

	/* a compiler's map, slot and tracepoint, as a "t" probe has them */
	c = ktp_compiler_create(&ktp_test_sched_switch);
	KUNIT_ASSERT_NOT_NULL(test, c);
	id = ktp_v_id(c);
	maps[KTP_V_MAP_SELF] = ktp_v_self_map(c);
	KUNIT_ASSERT_NE(test, id, 0);
	KUNIT_ASSERT_NOT_NULL(test, maps[KTP_V_MAP_SELF]);
	KUNIT_ASSERT_EQ(test, ktp_btf_tpoint(c), 0);

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		n = 0;
		if (cases[i].enter) {
			insns[n++] = ld_self[0];
			insns[n++] = ld_self[1];
			insns[n++] = BPF_MOV64_IMM(BPF_REG_2, id);
			insns[n++] = BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0,
						  BPF_PSEUDO_KFUNC_CALL, 0,
						  ktp_test_tp_kfuncs[0]);
			/* NULL: nothing to record */
			insns[n++] = BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0,
						 1 + 3 * cases[i].records);
			insns[n++] = BPF_MOV64_REG(BPF_REG_6, BPF_REG_0);
		} else {
			/* a hit of its CPU's: ktp_tp_hits */
			insns[n++] = BPF_MOV64_REG(BPF_REG_6, BPF_REG_1);
		}
		for (j = 0; j < cases[i].records; j++) {
			insns[n++] = BPF_MOV64_REG(BPF_REG_1, BPF_REG_6);
			insns[n++] = BPF_MOV64_IMM(BPF_REG_2, 0);
			insns[n++] = BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0,
						  BPF_PSEUDO_KFUNC_CALL, 0,
						  ktp_test_tp_kfuncs[1]);
		}
		insns[n++] = BPF_MOV64_IMM(BPF_REG_0, 0);
		insns[n++] = BPF_EXIT_INSN();

		memset(&attr, 0, sizeof(attr));
		attr.prog_type = BPF_PROG_TYPE_TRACING;
		attr.expected_attach_type = BPF_TRACE_RAW_TP;
		attr.attach_btf_id = c->tp_btf_id;
		attr.insns = (unsigned long)insns;
		attr.insn_cnt = n;
		attr.license = (unsigned long)"GPL";
		prog = bpf_prog_load_kern(&attr, &kattr);
		if (!IS_ERR(prog))
			bpf_prog_put(prog);
		if (cases[i].err)
			KUNIT_EXPECT_PTR_EQ_MSG(test, prog, ERR_PTR(cases[i].err),
						"%s", cases[i].what);
		else
			KUNIT_EXPECT_FALSE_MSG(test, IS_ERR(prog), "%s: %ld",
					       cases[i].what, PTR_ERR(prog));
	}
	ktp_compiler_destroy(c);
}

/* A "t" probe's program, on sched_switch, is one the verifier accepts */
static void ktp_expr_tpoint_test(struct kunit *test)
{
	const struct ktp_expr_env none = {
		.flags = KTP_ENV_TPOINT, .nr_args = 1,
		.tpoint = "ktp_no_such_tracepoint", .kfuncs = ktp_test_tp_kfuncs,
	};
	struct ktp_expr_error err = {};
	struct ktp_compiler *c;
	struct ktp_prog *kp;
	const char *type;

	c = ktp_compiler_create(&ktp_test_sched_switch);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_EQ(test, ktp_compile_cond(c, "$arg4 == 39 && *(u64 *)($arg2 + 120) != 0",
					       &err), 0);
	/* a task pointer in integer arithmetic: its number */
	KUNIT_EXPECT_EQ(test, ktp_compile_fetch(c, "$arg2 * 3 ^ $arg3", 0, &type, &err),
			0);
	kp = ktp_compiler_finish(c);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(kp), "%ld", PTR_ERR(kp));
	KUNIT_EXPECT_EQ(test, kp->prog->type, BPF_PROG_TYPE_TRACING);
	KUNIT_EXPECT_EQ(test, kp->prog->expected_attach_type, BPF_TRACE_RAW_TP);
	KUNIT_EXPECT_NE(test, kp->id, 0);
	rcu_read_lock();
	KUNIT_EXPECT_PTR_EQ(test, ktp_prog_by_id(kp->self_map, kp->id), kp);
	rcu_read_unlock();
	ktp_prog_free(kp);

	/* "$argN" fetch arguments the program copies, and one it fetches */
	c = ktp_compiler_create(&ktp_test_sched_switch);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_EQ(test, ktp_compile_fetch_tpoint_arg(c, 2, 0), 0);
	KUNIT_EXPECT_EQ(test, ktp_compile_fetch_tpoint_arg(c, 5, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, ktp_compile_fetch_tpoint_arg(c, 0, 1), -EINVAL);
	ktp_compiler_copy_tpoint_args(c);
	KUNIT_EXPECT_EQ(test, c->nr_vals, 1);
	kp = ktp_compiler_finish(c);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(kp), "%ld", PTR_ERR(kp));
	ktp_prog_free(kp);

	/* no such tracepoint: no BTF type to load the program for */
	c = ktp_compiler_create(&none);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_EQ(test, ktp_compile_cond(c, "$arg1 != 0", &err), 0);
	KUNIT_EXPECT_PTR_EQ(test, ktp_compiler_finish(c), ERR_PTR(-ENOENT));
}

/*
 * A "t" probe's pointer arguments stay the verifier's BTF pointers: no
 * BPF_NEG makes a number of one (a unary minus is one), a read, a
 * compare, a constant offset and a fetch take the pointer as it is, and
 * an integer operation on one copies its number (ktp_v_emit_number(),
 * the only store to KTP_V_SCRATCH). A member read goes through
 * bpf_rdonly_cast() to its struct, not to void, where the verifier
 * finds the member (not a bitfield's bytes). The verifier accepts each
 * program.
 */
static void ktp_expr_tpoint_ptr_test(struct kunit *test)
{
	static const struct {
		const char	*src;
		bool		fetch;
		int		negs;		/* BPF_NEG: unary minus */
		int		numbers;	/* pointers made numbers */
		int		typed;		/* reads cast to their struct */
	} cases[] = {
		{ "$arg2->pid == 1", false, 0, 0, 1 },
		{ "$arg2->se.vruntime != 0 && $arg3->pid > 1", false, 0, 0, 2 },
		{ "$arg2 == $arg3 || $arg2 != 0", false, 0, 0, 0 },
		{ "$arg2->comm == \"ktp\"", false, 0, 0, 0 },
		{ "$arg2", true, 0, 0, 0 },
		{ "$arg4 ? $arg2 : $arg3", true, 0, 0, 0 },
		{ "(unsigned long)&$arg2->pid - (unsigned long)$arg2", true, 0, 2, 0 },
		{ "(u64)($arg2 + 1)", true, 0, 0, 0 },
		{ "-$arg2->pid", true, 1, 0, 1 },
		{ "-(long)$arg2", true, 1, 1, 0 },
		{ "(u32)$arg2", true, 0, 1, 0 },
		{ "(unsigned long)$arg2 % 64", true, 0, 1, 0 },
		{ "$arg2 * 3 ^ $arg3", true, 0, 2, 0 },
		{ "$arg2[$arg4].pid", true, 0, 1, 1 },
		{ "~(unsigned long)($arg4 ? $arg2 : 0)", true, 0, 1, 0 },
		{ "$arg2->real_parent->pid", true, 0, 0, 2 },
		{ "$arg2->mm != 0 && $arg2->mm->mmap_base > 1", false, 0, 0, 3 },
		{ "(unsigned long)$arg2->mm & 0xfff", true, 0, 1, 1 },
		{ "$arg2->sched_reset_on_fork", true, 0, 0, 0 },
	};
	struct btf *vmlinux = bpf_get_btf_vmlinux();
	struct ktp_expr_error err = {};
	s32 cast;
	struct ktp_compiler *c;
	struct ktp_prog *kp;
	const char *type;
	int i, j, negs, numbers, typed;

	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(vmlinux));
	cast = btf_find_by_name_kind(vmlinux, "bpf_rdonly_cast", BTF_KIND_FUNC);
	KUNIT_ASSERT_GT(test, cast, 0);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		c = ktp_compiler_create(&ktp_test_sched_switch);
		KUNIT_ASSERT_NOT_NULL(test, c);
		if (cases[i].fetch)
			KUNIT_EXPECT_EQ_MSG(test, ktp_compile_fetch(c, cases[i].src, 0,
								    &type, &err),
					    0, "%s", cases[i].src);
		else
			KUNIT_EXPECT_EQ_MSG(test, ktp_compile_cond(c, cases[i].src, &err),
					    0, "%s", cases[i].src);
		negs = 0;
		numbers = 0;
		typed = 0;
		for (j = 0; j < c->len; j++) {
			const struct bpf_insn *insn = &c->insns[j];

			if (insn->code == (BPF_ALU64 | BPF_NEG | BPF_K))
				negs++;
			if (insn->code == (BPF_STX | BPF_MEM | BPF_DW) &&
			    insn->dst_reg == BPF_REG_FP && insn->off == KTP_V_SCRATCH)
				numbers++;
			/* R2 = the type, then the call of bpf_rdonly_cast() */
			if (j + 1 < c->len && insn->code == (BPF_ALU64 | BPF_MOV | BPF_K) &&
			    insn->dst_reg == BPF_REG_2 && insn->imm != 0 &&
			    insn[1].code == (BPF_JMP | BPF_CALL) &&
			    insn[1].src_reg == BPF_PSEUDO_KFUNC_CALL && insn[1].imm == cast)
				typed++;
		}
		KUNIT_EXPECT_EQ_MSG(test, negs, cases[i].negs, "%s", cases[i].src);
		KUNIT_EXPECT_EQ_MSG(test, numbers, cases[i].numbers, "%s",
				    cases[i].src);
		KUNIT_EXPECT_EQ_MSG(test, typed, cases[i].typed, "%s", cases[i].src);
		kp = ktp_compiler_finish(c);
		KUNIT_EXPECT_FALSE_MSG(test, IS_ERR(kp), "%s: %ld", cases[i].src,
				       PTR_ERR(kp));
		if (!IS_ERR(kp))
			ktp_prog_free(kp);
	}
}

struct ktp_refused_case {
	const char		*what;
	struct bpf_insn		insns[6];
	u32			len;
	int			err;
	/* the same program without what is wrong with it */
	struct bpf_insn		fixed[6];
	u32			fixed_len;
};

/* Load @insns as a kprobe program through bpf_prog_load_kern() */
static struct bpf_prog *ktp_test_load(const struct bpf_insn *insns, u32 len,
				      const void *owner)
{
	struct bpf_prog_kern_attr kattr = { .owner = owner };
	union bpf_attr attr = {};

	attr.prog_type = BPF_PROG_TYPE_KPROBE;
	attr.insns = (unsigned long)insns;
	attr.insn_cnt = len;
	attr.license = (unsigned long)"GPL";
	return bpf_prog_load_kern(&attr, &kattr);
}

/*
 * What no KTP program may do, the BPF verifier refuses: each program is
 * loaded as KTP loads a "p" probe's, through bpf_prog_load_kern(), and
 * refused with the verifier's errno; the same program without its fault
 * loads, so that the fault is what was refused. (The verifier's words
 * are bpf()'s, for user space: kfunc_filter.tc reads them.)
 */
static void ktp_expr_verifier_refuses_test(struct kunit *test)
{
	s32 strcmp_id = btf_find_by_name_kind(bpf_get_btf_vmlinux(), "ktp_strcmp",
					      BTF_KIND_FUNC);
	const struct ktp_refused_case cases[] = {
		{ .what = "a register read before it is written",
		  .err = -EACCES, .len = 2, .insns = {
			BPF_MOV64_REG(BPF_REG_0, BPF_REG_2), BPF_EXIT_INSN() },
		  .fixed_len = 3, .fixed = {
			BPF_MOV64_IMM(BPF_REG_2, 0),
			BPF_MOV64_REG(BPF_REG_0, BPF_REG_2), BPF_EXIT_INSN() } },
		{ .what = "no return value",
		  .err = -EACCES, .len = 1, .insns = { BPF_EXIT_INSN() },
		  .fixed_len = 2, .fixed = {
			BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() } },
		{ .what = "a store into the registers of the hit",
		  .err = -EACCES, .len = 3, .insns = {
			BPF_ST_MEM(BPF_DW, BPF_REG_1, 0, 0),
			BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() },
		  .fixed_len = 3, .fixed = {
			BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 0),
			BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() } },
		{ .what = "a load from a number",
		  .err = -EACCES, .len = 3, .insns = {
			BPF_MOV64_IMM(BPF_REG_1, 4096),
			BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0),
			BPF_EXIT_INSN() },
		  .fixed_len = 4, .fixed = {
			BPF_MOV64_REG(BPF_REG_1, BPF_REG_FP),
			BPF_ST_MEM(BPF_DW, BPF_REG_1, -8, 0),
			BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, -8),
			BPF_EXIT_INSN() } },
		{ .what = "a load below the stack frame",
		  .err = -EACCES, .len = 2, .insns = {
			BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_FP, -520),
			BPF_EXIT_INSN() },
		  .fixed_len = 3, .fixed = {
			BPF_ST_MEM(BPF_DW, BPF_REG_FP, -512, 0),
			BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_FP, -512),
			BPF_EXIT_INSN() } },
		{ .what = "a jump out of the program",
		  .err = -EINVAL, .len = 3, .insns = {
			BPF_JMP_A(4), BPF_MOV64_IMM(BPF_REG_0, 0),
			BPF_EXIT_INSN() },
		  .fixed_len = 3, .fixed = {
			BPF_JMP_A(0), BPF_MOV64_IMM(BPF_REG_0, 0),
			BPF_EXIT_INSN() } },
		{ .what = "a loop that never ends",
		  .err = -EINVAL, .len = 2, .insns = {
			BPF_MOV64_IMM(BPF_REG_0, 0), BPF_JMP_A(-1) },
		  .fixed_len = 2, .fixed = {
			BPF_MOV64_IMM(BPF_REG_0, 0), BPF_EXIT_INSN() } },
		{ .what = "a helper that does not exist",
		  .err = -EINVAL, .len = 2, .insns = {
			BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, 12345),
			BPF_EXIT_INSN() },
		  .fixed_len = 2, .fixed = {
			BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, 0, 0,
				     BPF_FUNC_get_smp_processor_id),
			BPF_EXIT_INSN() } },
	};
	/*
	 * KTP's kfunc from a program another kernel caller loads: its
	 * filter (ktp_kfunc_filter()) refuses the call
	 */
	const struct bpf_insn kfunc_call[] = {
		BPF_MOV64_IMM(BPF_REG_1, 1), BPF_MOV64_IMM(BPF_REG_2, 0),
		BPF_MOV64_IMM(BPF_REG_3, 0), BPF_MOV64_IMM(BPF_REG_4, 0),
		BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0,
			     strcmp_id),
		BPF_EXIT_INSN(),
	};
	struct bpf_prog *prog;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		prog = ktp_test_load(cases[i].insns, cases[i].len, NULL);
		if (!IS_ERR(prog))
			bpf_prog_put(prog);
		KUNIT_EXPECT_PTR_EQ_MSG(test, prog, ERR_PTR(cases[i].err), "%s",
					cases[i].what);
		prog = ktp_test_load(cases[i].fixed, cases[i].fixed_len, NULL);
		KUNIT_EXPECT_FALSE_MSG(test, IS_ERR(prog), "%s, mended: %ld",
				       cases[i].what, PTR_ERR(prog));
		if (!IS_ERR(prog))
			bpf_prog_put(prog);
	}

	KUNIT_ASSERT_GT(test, strcmp_id, 0);
	prog = ktp_test_load(kfunc_call, ARRAY_SIZE(kfunc_call), NULL);
	if (!IS_ERR(prog))
		bpf_prog_put(prog);
	KUNIT_EXPECT_PTR_EQ(test, prog, ERR_PTR(-EACCES));
}

/*
 * What KTP reads through where it has no struct of vmlinux to cast to (a
 * word, a string's first byte, a module's struct): bpf_rdonly_cast() to
 * void. The verifier takes the cast, moves the pointer by an offset,
 * also as 'scalar += pointer', and loads through it without a fault
 * (below the kernel's addresses, a load reads 0); it does not decide a
 * test of the pointer against NULL before the run, and refuses a store,
 * a bitwise operation and a cast to a type that is neither a struct nor
 * void. Each program, R0 = bpf_rdonly_cast(addr, type) as KTP's programs
 * call it and then the case's instructions, is loaded as KTP loads a "p"
 * probe's, and run.
 */
static void ktp_expr_void_cast_test(struct kunit *test)
{
	static u64 word = 0x1122334455667788ULL;
	struct btf *vmlinux = bpf_get_btf_vmlinux();
	s32 cast = btf_find_by_name_kind(vmlinux, "bpf_rdonly_cast",
					 BTF_KIND_FUNC);
	s32 int_id = btf_find_by_name_kind(vmlinux, "int", BTF_KIND_INT);
	const struct {
		const char	*what;
		unsigned long	addr;
		s32		type;
		struct bpf_insn	insns[5];
		u32		len;
		int		err;
		u32		ret;
	} cases[] = {
		{ .what = "a load where no kernel memory is", .len = 2, .insns = {
			BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_0, 0x7fff),
			BPF_EXIT_INSN() }, .ret = 0 },
		{ .what = "a load from a variable", .addr = (unsigned long)&word,
		  .len = 2, .insns = {
			BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 4),
			BPF_EXIT_INSN() }, .ret = 0x11223344 },
		{ .what = "a load at pointer + offset", .addr = (unsigned long)&word,
		  .len = 3, .insns = {
			BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 4),
			BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0, 0),
			BPF_EXIT_INSN() }, .ret = 0x11223344 },
		{ .what = "a load at offset + pointer", .addr = (unsigned long)&word,
		  .len = 4, .insns = {
			BPF_MOV64_IMM(BPF_REG_3, 4),
			BPF_ALU64_REG(BPF_ADD, BPF_REG_3, BPF_REG_0),
			BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_3, 0),
			BPF_EXIT_INSN() }, .ret = 0x11223344 },
		{ .what = "a test against NULL", .len = 5, .insns = {
			BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2),
			BPF_MOV64_IMM(BPF_REG_0, 2),
			BPF_EXIT_INSN(),
			BPF_MOV64_IMM(BPF_REG_0, 1),
			BPF_EXIT_INSN() }, .ret = 1 },
		{ .what = "a store", .addr = (unsigned long)&word, .err = -EACCES,
		  .len = 3, .insns = {
			BPF_ST_MEM(BPF_B, BPF_REG_0, 0, 0),
			BPF_MOV64_IMM(BPF_REG_0, 0),
			BPF_EXIT_INSN() } },
		{ .what = "a bitwise operation", .addr = (unsigned long)&word,
		  .err = -EACCES, .len = 3, .insns = {
			BPF_ALU64_IMM(BPF_AND, BPF_REG_0, -8),
			BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_0, 0),
			BPF_EXIT_INSN() } },
		{ .what = "a cast to int", .addr = (unsigned long)&word,
		  .type = int_id, .err = -EINVAL, .len = 2, .insns = {
			BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_0, 0),
			BPF_EXIT_INSN() } },
	};
	struct pt_regs regs = {};
	struct bpf_prog *prog;
	u32 ret;
	int i;

	KUNIT_ASSERT_GT(test, cast, 0);
	KUNIT_ASSERT_GT(test, int_id, 0);
	/* a program that calls a kfunc is the JIT's */
	ktp_test_jit(1);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct bpf_insn insns[4 + ARRAY_SIZE(cases[0].insns)] = {
			BPF_LD_IMM64(BPF_REG_1, cases[i].addr),
			BPF_MOV64_IMM(BPF_REG_2, cases[i].type),
			BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL,
				     0, cast),
		};

		memcpy(insns + 4, cases[i].insns,
		       cases[i].len * sizeof(cases[i].insns[0]));
		prog = ktp_test_load(insns, 4 + cases[i].len, NULL);
		if (cases[i].err) {
			if (!IS_ERR(prog))
				bpf_prog_put(prog);
			KUNIT_EXPECT_PTR_EQ_MSG(test, prog, ERR_PTR(cases[i].err),
						"%s", cases[i].what);
			continue;
		}
		KUNIT_EXPECT_FALSE_MSG(test, IS_ERR(prog), "%s: %ld",
				       cases[i].what, PTR_ERR(prog));
		if (IS_ERR(prog))
			continue;
		migrate_disable();
		rcu_read_lock();
		ret = bpf_prog_run(prog, &regs);
		rcu_read_unlock();
		migrate_enable();
		KUNIT_EXPECT_EQ_MSG(test, ret, cases[i].ret, "%s", cases[i].what);
		bpf_prog_put(prog);
	}
}

static const int ktp_test_parts[KTP_TEST_PARTS] = { 0, 1, 2, 3, 4, 5, 6, 7 };

static void ktp_test_fuzz_desc(const int *part, char *desc)
{
	int n = KTP_TEST_STREAMS / KTP_TEST_PARTS;

	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "fuzz: token streams %d-%d",
		 *part * n + 1, (*part + 1) * n);
}

KUNIT_ARRAY_PARAM(ktp_test_fuzz, ktp_test_parts, ktp_test_fuzz_desc);

static void ktp_test_differential_desc(const int *part, char *desc)
{
	int n = KTP_TEST_EXPRS / KTP_TEST_PARTS;

	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "differential: expressions %d-%d",
		 *part * n + 1, (*part + 1) * n);
}

KUNIT_ARRAY_PARAM(ktp_test_differential, ktp_test_parts, ktp_test_differential_desc);

static struct kunit_case ktp_expr_test_cases[] = {
	KUNIT_CASE(ktp_expr_limits_test),
	KUNIT_CASE(ktp_expr_strcmp_limits_test),
	KUNIT_CASE(ktp_expr_regs_test),
	KUNIT_CASE(ktp_expr_string_field_test),
	KUNIT_CASE(ktp_expr_tpoint_test),
	KUNIT_CASE(ktp_expr_tpoint_ptr_test),
	KUNIT_CASE(ktp_expr_stale_prog_test),
	KUNIT_CASE(ktp_expr_tpoint_pair_test),
	KUNIT_CASE(ktp_expr_btf_index_test),
	KUNIT_CASE(ktp_expr_jit_off_at_load_test),
	KUNIT_CASE(ktp_expr_verifier_refuses_test),
	KUNIT_CASE(ktp_expr_void_cast_test),
	KUNIT_CASE(ktp_expr_value_test),
	KUNIT_CASE(ktp_expr_c_oracle_test),
	KUNIT_CASE(ktp_expr_nofault_test),
	KUNIT_CASE(ktp_expr_error_test),
	KUNIT_CASE(ktp_expr_error_detail_test),
	KUNIT_CASE(ktp_expr_cond_test),
	KUNIT_CASE(ktp_expr_fetch_reg_test),
	KUNIT_CASE_PARAM_ATTR(ktp_expr_fuzz_test, ktp_test_fuzz_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_PARAM_ATTR(ktp_expr_differential_test, ktp_test_differential_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	{}
};

/* bpf_jit_enable as the case found it, whatever ktp_test_jit() did */
static int ktp_expr_saved_jit;

static int ktp_expr_test_init(struct kunit *test)
{
	ktp_expr_saved_jit = bpf_jit_enable;
	return 0;
}

static void ktp_expr_test_exit(struct kunit *test)
{
	bpf_jit_enable = ktp_expr_saved_jit;
}

static struct kunit_suite ktp_expr_test_suite = {
	.name = "ktp_expr",
	.init = ktp_expr_test_init,
	.exit = ktp_expr_test_exit,
	.test_cases = ktp_expr_test_cases,
};

kunit_test_suite(ktp_expr_test_suite);

MODULE_DESCRIPTION("KUnit tests for KTP's expression compiler");
MODULE_LICENSE("GPL");
