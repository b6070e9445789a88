// SPDX-License-Identifier: GPL-2.0
/*
 * KTP's expression compiler.
 *
 * A probe's condition and fetch expressions are C expressions over the
 * probe's terms (registers, arguments, the return value, the stack,
 * kernel globals, memory, event fields). They are lexed (ktp_lex.c)
 * and parsed (ktp_parse.c) into a tree, constants are folded
 * (ktp_fold.c), and the tree is emitted (ktp_gen.c, in the frame of
 * ktp_prog.c) as one eBPF program: the condition first, returning 0 as
 * soon as it is false, then each fetch expression, whose value goes to
 * ktp_area. The program is loaded as bpf() loads programs: the BPF
 * verifier checks it, and the JIT turns it into native code (or, with
 * the JIT off, the interpreter runs it).
 *
 * Hazards have defined results, the same in the reference evaluator
 * the KUnit tests hold the program to (ktp_expr_test.c): division and
 * modulo by zero give 0; a shift count outside 0..63 gives 0 (all sign
 * bits for a signed >>); a read that faults gives 0 and counts as a
 * fault. Values are 64-bit; as in C, operands narrower than 64 bits are
 * promoted to s64, and an operation is unsigned when either operand is
 * u64.
 */
#include <linux/slab.h>
#include <linux/string.h>

#include "../trace.h"
#include "../trace_probe.h"
#include "ktp_btf.h"
#include "ktp_emit.h"
#include "ktp_expr.h"
#include "ktp_gen.h"
#include "ktp_maps.h"
#include "ktp_parse.h"
#include "ktp_prog.h"

/**
 * ktp_compiler_create - start compiling the expressions of one probe
 * @env: what the expressions may name
 *
 * Return: a compiler, or NULL if memory ran out.
 */
struct ktp_compiler *ktp_compiler_create(const struct ktp_expr_env *env)
{
	struct ktp_compiler *c;

	/* a "t" probe's program ends in the kfuncs its kind names */
	if (WARN_ON_ONCE((env->flags & KTP_ENV_TPOINT) && !env->kfuncs))
		return NULL;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return NULL;
	c->env = *env;
	c->fold = true;
	c->jit = ebpf_jit_enabled();
	/*
	 * Not zeroed: ktp_node() clears each node it hands out, and a
	 * definition should not clear 24 KiB it does not use.
	 */
	c->nodes = kvmalloc_array(KTP_EXPR_MAX_NODES, sizeof(*c->nodes),
				  GFP_KERNEL);
	if (!c->nodes) {
		ktp_compiler_destroy(c);
		return NULL;
	}
	/* R6 keeps the context across calls */
	ktp_emit(c, BPF_MOV64_REG(KTP_R_CTX, BPF_REG_1));
	/* a "t" probe's program names itself to ktp_tp_enter() and others */
	if (c->env.flags & KTP_ENV_TPOINT)
		ktp_v_id(c);
	if (c->error) {
		ktp_compiler_destroy(c);
		return NULL;
	}
	return c;
}

/**
 * ktp_compiler_destroy - free a compiler and what it did not hand over
 * @c: the compiler, or NULL
 */
void ktp_compiler_destroy(struct ktp_compiler *c)
{
	unsigned int i;

	if (!c)
		return;
	ktp_v_release(c);
	ktp_btf_release(c);
	/* the id of a program that was not made */
	if (c->id)
		ktp_v_free_id(c->id);
	for (i = 0; i < c->nr_lits; i++)
		kfree(c->lits[i]);
	kfree(c->lits);
	kfree(c->false_jumps);
	kvfree(c->nodes);
	kfree(c->insns);
	kfree(c);
}

static int ktp_code_error(struct ktp_compiler *c, struct ktp_expr_error *err)
{
	if (!c->error)
		return 0;
	/* a lack of memory or of a capability is said by the errno alone */
	if (c->error == -ENOMEM || c->error == -EPERM)
		return c->error;
	if (c->error == -EOPNOTSUPP) {
		err->pos = 0;
		err->code = TP_ERR_KTP_STR_NEEDS_JIT;
		return -EOPNOTSUPP;
	}
	err->pos = 0;
	err->code = TP_ERR_KTP_EXPR_TOO_BIG;
	return -E2BIG;
}

/**
 * ktp_compile_cond - compile a probe's condition
 * @c: the compiler; the condition comes before any fetch expression
 * @src: the condition, C syntax
 * @err: where and why @src was refused
 *
 * The program returns 0 as soon as the condition is false.
 *
 * Return: 0, or -EINVAL with @err set, -E2BIG or -ENOMEM.
 */
int ktp_compile_cond(struct ktp_compiler *c, const char *src,
		     struct ktp_expr_error *err)
{
	struct ktp_jumps *to_false;
	struct ktp_node *n;
	int *jumps;

	n = ktp_parse(c, src, err);
	if (!n)
		return c->error ?: -EINVAL;
	if (n->type & KTP_T_STR)
		return ktp_fail(c, src + n->pos, TP_ERR_KTP_EXPR_STRING);

	to_false = ktp_gen_false_jumps(c, n, 0);
	if (!to_false)
		return -ENOMEM;
	/* the jumps land on the "return 0" ktp_compiler_finish() ends with */
	jumps = krealloc_array(c->false_jumps, c->nr_false_jumps + to_false->nr,
			       sizeof(int), GFP_KERNEL);
	if (!jumps) {
		kfree(to_false);
		return -ENOMEM;
	}
	c->false_jumps = jumps;
	memcpy(c->false_jumps + c->nr_false_jumps, to_false->at,
	       to_false->nr * sizeof(int));
	c->nr_false_jumps += to_false->nr;
	kfree(to_false);
	c->has_cond = true;
	return ktp_code_error(c, err);
}

/* The kfuncs of a "t" probe's program, see struct ktp_expr_env */
enum { KTP_KFUNC_ENTER, KTP_KFUNC_RECORD };

/*
 * Once its condition is true, a "t" probe's program enters the hit (see
 * ktp_tp_enter()), which says the level of its values in ktp_area; when
 * the hit is missed, the program ends there. The hit is a reference the
 * verifier makes the program release, by recording it, on every path.
 * @values: the program has values to store.
 *
 * Return: true if the hit is in R0, entered just now with no values;
 * else it is at KTP_V_HIT on the stack.
 */
static bool ktp_tpoint_enter(struct ktp_compiler *c, bool values)
{
	if (c->entered)
		return false;
	c->entered = true;
	/* first: its one exit between entering and recording is NULL's */
	if (values)
		ktp_v_emit_area_lookup(c);
	ktp_v_emit_self(c);
	ktp_v_call_kfunc(c, c->env.kfuncs[KTP_KFUNC_ENTER]);
	c->out_jump = ktp_jump(c, BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 0));
	/*
	 * Without values, the hit is recorded at once, from R0: a program
	 * that uses no stack gets no frame from the JIT, which every hit,
	 * a false one too, would pay for (see ktp_tpoint_exits()).
	 */
	if (!values)
		return true;
	ktp_emit(c, BPF_STX_MEM(BPF_DW, BPF_REG_FP, BPF_REG_0, KTP_V_HIT));
	ktp_emit(c, BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_0,
				offsetof(struct ktp_tp_hit, level)));
	ktp_v_emit_level_area(c);
	return false;
}

/*
 * The values of an "e" probe's program go to its hit's level, which the
 * handler left in ktp_area (see ktp_event_level()): no kfunc, so that the
 * interpreter runs the program too.
 */
static void ktp_event_values(struct ktp_compiler *c)
{
	if (c->area_loaded)
		return;
	ktp_v_emit_area_lookup(c);
	ktp_emit(c, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_0,
				KTP_AREA_EVENT_LEVEL * 8));
	ktp_v_emit_level_area(c);
}

/* The value @n computes goes to value @slot of the program */
static int ktp_emit_fetch(struct ktp_compiler *c, const struct ktp_node *n,
			  unsigned int slot, struct ktp_expr_error *err)
{
	int reg;

	ktp_gen(c, n, 0);
	if (c->env.flags & KTP_ENV_TPOINT)
		ktp_tpoint_enter(c, true);
	else if (c->env.flags & (KTP_ENV_EVENT | KTP_ENV_USER))
		ktp_event_values(c);
	reg = ktp_load(c, 0, BPF_REG_1);
	ktp_v_emit_fetch(c, reg, slot);
	c->nr_vals = max(c->nr_vals, slot + 1);
	return ktp_code_error(c, err);
}

/*
 * The type a fetch expression's value is recorded as, as probe events'
 * BTF arguments have it: a typed value by its C type (a pointer in hex,
 * a char * or char array a string), the others as s64 or u64.
 */
static const char *ktp_fetch_type(const struct ktp_node *n)
{
	static const char * const ints[] = {
		[1] = "u8", [2] = "u16", [4] = "u32", [8] = "u64",
		[1 | KTP_T_SIGNED] = "s8", [2 | KTP_T_SIGNED] = "s16",
		[4 | KTP_T_SIGNED] = "s32", [8 | KTP_T_SIGNED] = "s64",
	};
	int type = n->type & (KTP_T_SIZE | KTP_T_SIGNED);

	if (n->type & KTP_T_STR)
		return n->tflags & KTP_N_USER ? "ustring" : "string";
	if (n->tflags & KTP_N_BTF)
		return n->type & KTP_T_PTR ? "x64" : ints[type];
	return ktp_is_signed(ktp_promote(n->type)) ? "s64" : "u64";
}

/**
 * ktp_compile_fetch - compile a fetch expression
 * @c: the compiler
 * @src: the expression, C syntax
 * @slot: the index in ktp_run_ctx.vals[] the program writes its value to
 * @type: set to the fetch type its value is recorded as by default
 * @err: where and why @src was refused
 *
 * A string's value is its address, which the record reads it from.
 *
 * Return: 0, or -EINVAL with @err set, -E2BIG or -ENOMEM.
 */
int ktp_compile_fetch(struct ktp_compiler *c, const char *src,
		      unsigned int slot, const char **type,
		      struct ktp_expr_error *err)
{
	struct ktp_node *n;

	if (slot >= KTP_EXPR_MAX_FETCHES) {
		memset(err, 0, sizeof(*err));
		return -E2BIG;
	}
	n = ktp_parse(c, src, err);
	if (!n)
		return c->error ?: -EINVAL;
	if (ktp_is_str_only(n))
		return ktp_fail(c, src + n->pos, TP_ERR_KTP_EXPR_STRING);
	*type = ktp_fetch_type(n);
	return ktp_emit_fetch(c, n, slot, err);
}

/**
 * ktp_compiler_share_proto - give trace_probe.c the prototype found
 * @c: the compiler of a "p" or "r" probe
 * @ctx: the parse context of its definition
 *
 * The compiler finds the probed function's BTF prototype to type its
 * names; trace_probe.c's BTF fetch arguments take it from @ctx rather
 * than walk the BTF types for it again, as query_btf_context() would,
 * and find a module's function's, which it would not.
 * traceprobe_finish_parse() puts the reference it takes.
 */
void ktp_compiler_share_proto(struct ktp_compiler *c,
			      struct traceprobe_parse_context *ctx)
{
	if (ctx->btf || c->env.flags & KTP_ENV_TPOINT || !ktp_btf_scope(c) ||
	    !c->proto || !c->func_btf)
		return;
	btf_get(c->func_btf);
	ctx->btf = c->func_btf;
	ctx->proto = c->proto;
	ctx->params = c->nr_params ? c->params : NULL;
	ctx->nr_params = c->nr_params;
}

/**
 * ktp_compiler_has_param - whether a name is a parameter of the probe's
 * @c: the compiler
 * @name: the name
 *
 * Return: true if @name is a parameter of the probed function, or an
 * argument of the probed tracepoint, by its BTF prototype.
 */
bool ktp_compiler_has_param(struct ktp_compiler *c, const char *name)
{
	return ktp_btf_is_param(c, name);
}

/* A fetch of one term, @op with @param, as a tree of one node */
static int ktp_compile_fetch_term(struct ktp_compiler *c, enum ktp_op op,
				  unsigned int param, unsigned int slot)
{
	static const char no_src[] = "";
	struct ktp_expr_error err = {};
	struct ktp_node *n;

	if (slot >= KTP_EXPR_MAX_FETCHES)
		return -E2BIG;
	/* where the previous tree was */
	c->src = no_src;
	c->nr_nodes = 0;
	n = ktp_node(c, op, KTP_T_U64, no_src);
	n->param = param;
	return ktp_emit_fetch(c, n, slot, &err);
}

/**
 * ktp_compile_fetch_reg - compile the fetch of a register
 * @c: the compiler
 * @offset: the register's offset in struct pt_regs
 * @slot: the index in ktp_run_ctx.vals[] the program writes it to
 *
 * A kprobe_events fetch argument that reads a register ("%REG",
 * "$retval", an "$argN" in a register): the program fetches it with the
 * fetch expressions, and the record copies the value as it copies theirs.
 *
 * Return: 0, -E2BIG or -ENOMEM.
 */
int ktp_compile_fetch_reg(struct ktp_compiler *c, unsigned int offset,
			  unsigned int slot)
{
	return ktp_compile_fetch_term(c, KTP_OP_REG, offset, slot);
}

/**
 * ktp_compile_fetch_tpoint_arg - compile the fetch of a tracepoint argument
 * @c: the compiler of a "t" probe
 * @num: N of the "$argN" fetch argument, from 1
 * @slot: the index in ktp_run_ctx.vals[] the program writes it to
 *
 * As ktp_compile_fetch_reg(), for a "t" probe's "$argN" stored as it is:
 * the program copies the argument, so that the hit need not copy every
 * argument of the tracepoint for the fetch instructions.
 *
 * Return: 0, -EINVAL if the tracepoint has no such argument, -E2BIG or
 * -ENOMEM.
 */
int ktp_compile_fetch_tpoint_arg(struct ktp_compiler *c, unsigned int num,
				 unsigned int slot)
{
	if (!(c->env.flags & KTP_ENV_TPOINT) || !num || num > c->env.nr_args)
		return -EINVAL;
	c->nr_entry_args = max(c->nr_entry_args, num);
	return ktp_compile_fetch_term(c, KTP_OP_ARG, num, slot);
}

/* The reads that faulted, for a "t" probe's kfuncs to count */
static void ktp_load_faults(struct ktp_compiler *c, int reg)
{
	if (c->has_faults)
		ktp_emit(c, BPF_LDX_MEM(BPF_DW, reg, BPF_REG_FP, KTP_V_FAULTS));
	else
		ktp_emit(c, BPF_MOV64_IMM(reg, 0));
}

/*
 * A "t" probe's program ends by recording the hit it entered, or by
 * counting a false condition itself (ktp_v_emit_count_false()); the
 * tracepoint ignores what it returns.
 */
static void ktp_tpoint_exits(struct ktp_compiler *c)
{
	bool in_r0 = ktp_tpoint_enter(c, c->copy_args);
	int i;

	if (c->copy_args)
		ktp_v_emit_tpoint_args(c);
	if (in_r0)
		ktp_emit(c, BPF_MOV64_REG(BPF_REG_1, BPF_REG_0));
	else
		ktp_emit(c, BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_FP,
					KTP_V_HIT));
	ktp_load_faults(c, BPF_REG_2);
	ktp_v_call_kfunc(c, c->env.kfuncs[KTP_KFUNC_RECORD]);
	ktp_land(c, c->out_jump);
	ktp_emit(c, BPF_MOV64_IMM(BPF_REG_0, 0));
	ktp_emit(c, BPF_EXIT_INSN());
	/* the verifier refuses code no jump reaches */
	if (!c->nr_false_jumps)
		return;
	for (i = 0; i < c->nr_false_jumps; i++)
		ktp_land(c, c->false_jumps[i]);
	ktp_v_emit_count_false(c);
	ktp_emit(c, BPF_MOV64_IMM(BPF_REG_0, 0));
	ktp_emit(c, BPF_EXIT_INSN());
}

/*
 * The program's ends: where the hit goes on and where the jumps of a
 * false condition land.
 */
static void ktp_emit_exits(struct ktp_compiler *c)
{
	int i;

	if (c->env.flags & KTP_ENV_TPOINT) {
		ktp_tpoint_exits(c);
		return;
	}
	ktp_v_emit_exit(c, true);
	/* the verifier refuses code no jump reaches */
	if (!c->nr_false_jumps)
		return;
	for (i = 0; i < c->nr_false_jumps; i++)
		ktp_land(c, c->false_jumps[i]);
	ktp_v_emit_exit(c, false);
}

/**
 * ktp_compiler_copy_tpoint_args - have a "t" probe's program copy $argN
 * @c: the compiler of a "t" probe
 *
 * For the probe's fetch instructions that dereference an argument: the
 * program copies every argument of the tracepoint before the values it
 * fetches, where they read them.
 */
void ktp_compiler_copy_tpoint_args(struct ktp_compiler *c)
{
	c->copy_args = true;
}

/**
 * ktp_compiler_finish_unloaded - make the program, to load later
 * @c: the compiler, which the program keeps until it is loaded
 *
 * The program as the compiler made it, and what its probe needs to know
 * of it, but not yet through the BPF verifier and the JIT:
 * ktp_prog_load() loads it (and may be called with no lock held that a
 * caller of this held), or ktp_prog_free() frees it unloaded. With
 * KTP_ENV_CHECK, there is none to make.
 *
 * Return: the program, NULL with KTP_ENV_CHECK, or an ERR_PTR(): -EPERM
 * with KTP_ENV_CHECK too, for a writer bpf() would not load it for.
 */
struct ktp_prog *ktp_compiler_finish_unloaded(struct ktp_compiler *c)
{
	struct ktp_prog *kp;
	int err;

	ktp_emit_exits(c);
	if (c->error) {
		err = c->error;
		goto out;
	}
	/*
	 * The expressions are as good as a program could tell. It is made
	 * later (a "t" probe's on a module's tracepoint: when the module
	 * comes), with the definer's credentials: what bpf() asks of them
	 * is asked now.
	 */
	if (c->env.flags & KTP_ENV_CHECK) {
		ktp_compiler_destroy(c);
		return ktp_may_load_progs() ? NULL : ERR_PTR(-EPERM);
	}
	err = -ENOMEM;
	kp = kzalloc(sizeof(*kp), GFP_KERNEL);
	if (!kp)
		goto out;
	kp->on_record = c->env.flags & KTP_ENV_EVENT;
	kp->run_inline = !(c->env.flags & (KTP_ENV_EVENT | KTP_ENV_TPOINT)) &&
			 !c->nr_entry_args;
	kp->nr_vals = c->nr_vals;
	kp->has_cond = c->has_cond;
	kp->nr_entry_args = c->nr_entry_args;
	kp->unloaded = c;
	return kp;
out:
	ktp_compiler_destroy(c);
	return ERR_PTR(err);
}

/**
 * ktp_prog_load - load a program ktp_compiler_finish_unloaded() made
 * @kp: the program
 *
 * The program is loaded through the BPF verifier and JIT-compiled as
 * bpf_jit_enable says (and blinded as bpf_jit_harden says); it runs in
 * the interpreter otherwise. Its compiler is freed either way.
 *
 * Return: 0, or a negative errno, with @kp left for ktp_prog_free().
 */
int ktp_prog_load(struct ktp_prog *kp)
{
	struct ktp_compiler *c = kp->unloaded;
	struct bpf_prog *fp;

	kp->unloaded = NULL;
	fp = ktp_v_finish(c);
	if (IS_ERR(fp)) {
		ktp_compiler_destroy(c);
		return PTR_ERR(fp);
	}
	kp->prog = fp;
	/* the program holds it, as it holds its false hits' */
	if (c->id)
		kp->self_map = ktp_v_self_map(c);
	kp->false_map = ktp_v_take_false_map(c);
	kp->lits = c->lits;
	kp->nr_lits = c->nr_lits;
	c->lits = NULL;
	c->nr_lits = 0;
	/* the kfuncs find it by its id from now on */
	if (c->id) {
		kp->id = c->id;
		ktp_v_set_id(c->id, kp);
		c->id = 0;
	}
	ktp_compiler_destroy(c);
	return 0;
}

/**
 * ktp_compiler_finish - make the program, load it and free the compiler
 * @c: the compiler
 *
 * ktp_compiler_finish_unloaded(), then ktp_prog_load().
 *
 * Return: the program, NULL with KTP_ENV_CHECK, or an ERR_PTR(): -EPERM
 * with KTP_ENV_CHECK too, for a writer bpf() would not load it for.
 */
struct ktp_prog *ktp_compiler_finish(struct ktp_compiler *c)
{
	struct ktp_prog *kp;
	int err;

	kp = ktp_compiler_finish_unloaded(c);
	if (IS_ERR_OR_NULL(kp))
		return kp;
	err = ktp_prog_load(kp);
	if (err) {
		kfree(kp);
		return ERR_PTR(err);
	}
	return kp;
}

static void ktp_prog_free_rcu(struct rcu_head *rcu)
{
	struct ktp_prog *kp = container_of(rcu, struct ktp_prog, rcu);
	unsigned int i;

	for (i = 0; i < kp->nr_lits; i++)
		kfree(kp->lits[i]);
	kfree(kp->lits);
	kfree(kp);
}

/**
 * ktp_prog_free - free a program no handler can be running any more
 * @kp: the program, or NULL
 *
 * A kfunc that found it by its id may still use it: it goes after RCU.
 */
void ktp_prog_free(struct ktp_prog *kp)
{
	if (!kp)
		return;
	if (kp->id)
		ktp_v_free_id(kp->id);
	ktp_compiler_destroy(kp->unloaded);
	if (kp->prog)
		bpf_prog_put(kp->prog);
	kp->prog = NULL;
	if (kp->false_map)
		bpf_map_put_with_uref(kp->false_map);
	call_rcu(&kp->rcu, ktp_prog_free_rcu);
}
