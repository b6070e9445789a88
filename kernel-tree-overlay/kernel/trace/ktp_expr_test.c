// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for KTP's expression compiler: the parser, the hazards,
 * and a differential test holding the BPF JIT and the BPF interpreter to
 * the reference evaluator on random expressions.
 */
#include <kunit/test.h>
#include <linux/jiffies.h>
#include <linux/ptrace.h>
#include <linux/slab.h>

#include "trace.h"
#include "trace_probe.h"
#include "ktp_expr.h"

#define KTP_TEST_SEED		0x4b5450u	/* "KTP" */
#define KTP_TEST_EXPRS		10240
#define KTP_TEST_BATCH		32	/* expressions a program */

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

/* Compile @src as fetch expression 0, run it, return its value. */
static u64 ktp_test_run(struct kunit *test, struct ktp_test_env *e,
			const char *src, bool jit, unsigned long *faults)
{
	struct ktp_expr_error err;
	struct ktp_compiler *c;
	struct ktp_prog *kp;
	bool is_signed;

	c = ktp_compiler_create(&e->env);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_EQ_MSG(test, ktp_compile_fetch(c, src, 0, &is_signed, &err),
			    0, "%s: error %d at %d", src, err.code, err.pos);
	kp = ktp_compiler_finish(c, jit);
	KUNIT_ASSERT_FALSE(test, IS_ERR(kp));
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
	{ "+16($stack)", 1002 },
	{ "-8(+16($stack))", 0, 1 },		/* 1002 - 8: faults */
	{ "%bx < 0", 0 },			/* registers are unsigned */
	{ "(s64)%bx < 0", 1 },
	{ "jiffies != 0 && &jiffies != 0", 1 },
	{ "*(u64 *)&jiffies != 0", 1 },
	{ "*(u64 *)(16)", 0, 1 },		/* a faulting read */
	{ "*(u64 *)(16) + *(u32 *)(24)", 0, 2 },
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
		for (jit = 0; jit <= 1; jit++) {
			val = ktp_test_run(test, e, vc->src, jit, &faults);
			KUNIT_EXPECT_EQ_MSG(test, val, want, "%s: %s",
					    jit ? "jit" : "interp", vc->src);
			KUNIT_EXPECT_EQ_MSG(test, faults, vc->faults, "%s faults: %s",
					    jit ? "jit" : "interp", vc->src);
		}
	}
}

struct ktp_error_case {
	const char	*src;
	int		pos;
	int		code;
};

#define KTP_ERR(src, pos, code) { src, pos, TP_ERR_KTP_EXPR_##code }

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
	KTP_ERR("$nosuch", 0, UNKNOWN),
	KTP_ERR("1 + %nosuch", 4, UNKNOWN),
	KTP_ERR("@no_such_symbol_ktp", 0, UNKNOWN),
	KTP_ERR("no_such_global_ktp", 0, UNKNOWN),
	KTP_ERR("$retval", 0, NOT_HERE),	/* an entry probe */
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

/* A condition's program returns whether it holds, and only then fetches */
static void ktp_expr_cond_test(struct kunit *test)
{
	struct ktp_test_env *e = ktp_test_env(test);
	struct ktp_expr_error err;
	struct ktp_compiler *c;
	struct ktp_prog *kp;
	bool is_signed;
	int jit;

	for (jit = 0; jit <= 1; jit++) {
		c = ktp_compiler_create(&e->env);
		KUNIT_ASSERT_NOT_NULL(test, c);
		KUNIT_ASSERT_EQ(test, ktp_compile_cond(c, "%di == 100 && %ax", &err), 0);
		KUNIT_ASSERT_EQ(test, ktp_compile_fetch(c, "%dx * 3", 1, &is_signed,
							&err), 0);
		KUNIT_EXPECT_FALSE(test, is_signed);
		kp = ktp_compiler_finish(c, jit);
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

/* Append a random expression of at most @depth levels to @s. */
static void ktp_rand_expr(u32 *st, char *s, size_t size, int depth)
{
	size_t len = strlen(s);
	u32 r = ktp_rand(st);
	int kind = depth ? r % 9 : r % 3;

#define OUT(...) (len = strlen(s), scnprintf(s + len, size - len, __VA_ARGS__))
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
	case 3:		/* unary */
		OUT("%c(", "-~!"[ktp_rand(st) % 3]);
		ktp_rand_expr(st, s, size, depth - 1);
		OUT(")");
		return;
	case 4:		/* a cast */
		OUT("(%s)(", ktp_rand_types[ktp_rand(st) % ARRAY_SIZE(ktp_rand_types)]);
		ktp_rand_expr(st, s, size, depth - 1);
		OUT(")");
		return;
	case 5:		/* a read: in a buffer, or faulting */
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
	case 6:		/* ?: */
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
 * A program writes memory only in its stack frame and in ctx->vals[],
 * through the pointer it has just loaded from the context.
 */
static void ktp_expect_no_stray_store(struct kunit *test,
				      const struct bpf_prog *fp)
{
	const struct bpf_insn *insn = fp->insnsi;
	u32 i;

	for (i = 0; i < fp->len; i++) {
		u8 class = BPF_CLASS(insn[i].code);

		if (class != BPF_ST && class != BPF_STX)
			continue;
		if (insn[i].dst_reg == BPF_REG_FP)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, (int)insn[i].dst_reg, BPF_REG_2, "insn %u", i);
		KUNIT_ASSERT_GT(test, i, 0);
		KUNIT_EXPECT_EQ_MSG(test, insn[i - 1].code, BPF_LDX | BPF_MEM | BPF_DW,
				    "insn %u", i);
		KUNIT_EXPECT_EQ(test, (int)insn[i - 1].dst_reg, BPF_REG_2);
		KUNIT_EXPECT_EQ(test, (int)insn[i - 1].src_reg, BPF_REG_6);
		KUNIT_EXPECT_EQ(test, insn[i - 1].off,
				offsetof(struct ktp_run_ctx, vals));
	}
}

/*
 * The reference evaluator, the interpreter and the JIT agree on
 * KTP_TEST_EXPRS random expressions over random registers and memory.
 */
static void ktp_expr_differential_test(struct kunit *test)
{
	struct ktp_test_env *e = ktp_test_env(test);
	u64 want[KTP_TEST_BATCH], got[2][KTP_TEST_BATCH];
	unsigned long want_faults, got_faults[2];
	char (*src)[1024];
	struct ktp_expr_error err;
	struct ktp_compiler *c;
	struct ktp_prog *kp;
	u32 st = KTP_TEST_SEED;
	int n, i, jit, done = 0;
	bool is_signed;

	src = kunit_kcalloc(test, KTP_TEST_BATCH, sizeof(*src), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, src);

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

		want_faults = 0;
		for (i = 0; i < KTP_TEST_BATCH; i++) {
			src[i][0] = '\0';
			ktp_rand_expr(&st, src[i], sizeof(src[i]), 1 + ktp_rand(&st) % 5);
			e->ctx.faults = 0;
			KUNIT_ASSERT_EQ_MSG(test, ktp_expr_eval(&e->env, src[i], &e->ctx,
								&want[i], &err), 0,
					    "%s: error %d at %d", src[i], err.code, err.pos);
			want_faults += e->ctx.faults;
		}

		for (jit = 0; jit <= 1; jit++) {
			c = ktp_compiler_create(&e->env);
			KUNIT_ASSERT_NOT_NULL(test, c);
			for (i = 0; i < KTP_TEST_BATCH; i++)
				KUNIT_ASSERT_EQ_MSG(test, ktp_compile_fetch(c, src[i], i,
									    &is_signed, &err),
						    0, "%s", src[i]);
			kp = ktp_compiler_finish(c, jit);
			KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(kp), "%ld", PTR_ERR(kp));
			KUNIT_ASSERT_EQ(test, !!kp->prog->jited, jit);
			if (!jit)
				ktp_expect_no_stray_store(test, kp->prog);
			e->ctx.faults = 0;
			preempt_disable();
			ktp_prog_run(kp, &e->ctx);
			preempt_enable();
			memcpy(got[jit], e->vals, sizeof(got[jit]));
			got_faults[jit] = e->ctx.faults;
			ktp_prog_free(kp);
		}

		for (i = 0; i < KTP_TEST_BATCH; i++) {
			KUNIT_ASSERT_EQ_MSG(test, got[0][i], want[i], "interp: %s", src[i]);
			KUNIT_ASSERT_EQ_MSG(test, got[1][i], want[i], "jit: %s", src[i]);
		}
		KUNIT_ASSERT_EQ(test, got_faults[0], want_faults);
		KUNIT_ASSERT_EQ(test, got_faults[1], want_faults);
		done += KTP_TEST_BATCH;
	}
	kunit_info(test, "%d random expressions agree in the reference, the interpreter and the JIT",
		   done);
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
		"=", "#", " ", "\xff", "[", ".",
	};
	struct ktp_test_env *e = ktp_test_env(test);
	struct ktp_expr_error err;
	u32 st = KTP_TEST_SEED;
	int n, i, len, accepted = 0;
	char src[256];
	u64 val;

	for (n = 0; n < 20000; n++) {
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
		e->ctx.faults = 0;
		switch (ktp_expr_eval(&e->env, src, &e->ctx, &val, &err)) {
		case 0:
			accepted++;
			break;
		case -EINVAL:
			KUNIT_ASSERT_GE_MSG(test, err.pos, 0, "%s", src);
			KUNIT_ASSERT_LE_MSG(test, err.pos, len, "%s", src);
			KUNIT_ASSERT_GE_MSG(test, err.code, TP_ERR_KTP_EXPR_SYNTAX, "%s", src);
			KUNIT_ASSERT_LE_MSG(test, err.code, TP_ERR_KTP_EXPR_TOO_BIG, "%s", src);
			break;
		default:
			KUNIT_FAIL(test, "%s: unexpected result", src);
			return;
		}
	}
	kunit_info(test, "20000 random token streams: %d accepted, the others refused with a position",
		   accepted);
}

static struct kunit_case ktp_expr_test_cases[] = {
	KUNIT_CASE(ktp_expr_value_test),
	KUNIT_CASE(ktp_expr_error_test),
	KUNIT_CASE(ktp_expr_cond_test),
	KUNIT_CASE(ktp_expr_fuzz_test),
	KUNIT_CASE_SLOW(ktp_expr_differential_test),
	{}
};

static struct kunit_suite ktp_expr_test_suite = {
	.name = "ktp_expr",
	.test_cases = ktp_expr_test_cases,
};

kunit_test_suite(ktp_expr_test_suite);

MODULE_DESCRIPTION("KUnit tests for KTP's expression compiler");
MODULE_LICENSE("GPL");
