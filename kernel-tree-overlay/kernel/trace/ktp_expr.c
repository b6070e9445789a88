// SPDX-License-Identifier: GPL-2.0
/*
 * KTP's expression compiler.
 *
 * A probe's condition and fetch expressions are C expressions over the
 * probe's terms (registers, arguments, the return value, the stack,
 * kernel globals, memory, event fields). They are lexed (ktp_lex.c)
 * and parsed (ktp_parse.c) into a tree, constants are folded
 * (ktp_fold.c), and the tree is emitted (ktp_gen.c) as one eBPF
 * program: the condition first, returning 0 as soon as it is false,
 * then each fetch expression, whose value goes to ctx->vals[]. The
 * program is handed to bpf_prog_select_runtime(), so the BPF JIT turns
 * it into native code, and the BPF interpreter runs the same program
 * when the JIT is off.
 *
 * The verifier does not see these programs: they are safe by
 * construction, and ktp_check_prog() (ktp_check.c) checks that they
 * are. Every jump goes forward within the program, every register is
 * written before it is read, the stack is used only in the slots
 * counted in aux->stack_depth, memory other than the context is read
 * only by nofault loads and helpers that cannot fault, and the program
 * ends in EXIT. There are no loops and no stores outside ctx->vals[].
 *
 * Hazards have defined results, the same in the reference evaluator
 * the KUnit tests hold the program to (ktp_expr_test.c): division and
 * modulo by zero give 0; a shift count outside 0..63 gives 0 (all sign
 * bits for a signed >>); a read that faults gives 0 and counts in
 * ctx->faults. Values are 64-bit; as in C, operands narrower than 64
 * bits are promoted to s64, and an operation is unsigned when either
 * operand is u64.
 */
#include <linux/slab.h>
#include <linux/string.h>

#include "trace.h"
#include "trace_probe.h"
#include "ktp_compiler.h"

/**
 * ktp_compiler_create - start compiling the expressions of one probe
 * @env: what the expressions may name
 *
 * Return: a compiler, or NULL if memory ran out.
 */
struct ktp_compiler *ktp_compiler_create(const struct ktp_expr_env *env)
{
	struct ktp_compiler *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!c)
		return NULL;
	c->env = *env;
	c->fold = true;
	/* "p" and "r" probes' programs go through the BPF verifier */
	c->verified = !(env->flags & (KTP_ENV_EVENT | KTP_ENV_TPOINT));
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
	/* R6 keeps the context across helper calls */
	if (c->env.flags & KTP_ENV_TPOINT) {
		struct bpf_insn prologue[KTP_TPOINT_PROLOGUE_LEN];
		int i;

		ktp_tpoint_prologue(prologue);
		for (i = 0; i < KTP_TPOINT_PROLOGUE_LEN; i++)
			ktp_emit(c, prologue[i]);
		c->stack_base = KTP_TPOINT_CTX_SIZE;
	} else {
		ktp_emit(c, BPF_MOV64_REG(KTP_R_CTX, BPF_REG_1));
		if (c->verified)
			c->stack_base = KTP_V_STACK;
	}
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

/*
 * Once its condition is true, a "t" probe's program enters the hit (see
 * ktp_bpf_tp_enter()), which gives it the buffer of its values; when
 * this CPU is in another hit already, it ends there.
 */
static void ktp_tpoint_enter(struct ktp_compiler *c)
{
	if (c->entered)
		return;
	c->entered = true;
	ktp_emit(c, BPF_MOV64_REG(BPF_REG_1, KTP_R_CTX));
	ktp_emit(c, BPF_EMIT_CALL(ktp_bpf_tp_enter));
	c->out_jump = ktp_jump(c, BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 0));
}

/* The value @n computes goes to ctx->vals[@slot] */
static int ktp_emit_fetch(struct ktp_compiler *c, const struct ktp_node *n,
			  unsigned int slot, struct ktp_expr_error *err)
{
	int reg;

	if (c->env.flags & KTP_ENV_TPOINT)
		ktp_tpoint_enter(c);
	ktp_gen(c, n, 0);
	reg = ktp_load(c, 0, BPF_REG_1);
	if (c->verified) {
		ktp_v_emit_fetch(c, reg, slot);
	} else {
		ktp_emit(c, BPF_LDX_MEM(BPF_DW, BPF_REG_2, KTP_R_CTX,
					offsetof(struct ktp_run_ctx, vals)));
		ktp_emit(c, BPF_STX_MEM(BPF_DW, BPF_REG_2, reg, slot * 8));
	}
	c->nr_vals = max(c->nr_vals, slot + 1);
	return ktp_code_error(c, err);
}

/**
 * ktp_compile_fetch - compile a fetch expression
 * @c: the compiler
 * @src: the expression, C syntax
 * @slot: the index in ktp_run_ctx.vals[] the program writes its value to
 * @is_signed: set to whether the value is signed
 * @err: where and why @src was refused
 *
 * Return: 0, or -EINVAL with @err set, -E2BIG or -ENOMEM.
 */
int ktp_compile_fetch(struct ktp_compiler *c, const char *src,
		      unsigned int slot, bool *is_signed,
		      struct ktp_expr_error *err)
{
	struct ktp_node *n;

	if (slot >= KTP_EXPR_MAX_FETCHES)
		return -E2BIG;
	n = ktp_parse(c, src, err);
	if (!n)
		return c->error ?: -EINVAL;
	if (n->type & KTP_T_STR)
		return ktp_fail(c, src + n->pos, TP_ERR_KTP_EXPR_STRING);
	*is_signed = ktp_is_signed(ktp_promote(n->type));
	return ktp_emit_fetch(c, n, slot, err);
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

/*
 * The program's ends: where the hit goes on (return 1, or a "t" probe's
 * record) and where the jumps of a false condition land (return 0).
 */
static void ktp_emit_exits(struct ktp_compiler *c)
{
	int i;

	if (c->verified) {
		ktp_v_emit_exit(c, true);
		/* the verifier refuses code no jump reaches */
		if (!c->nr_false_jumps)
			return;
		for (i = 0; i < c->nr_false_jumps; i++)
			ktp_land(c, c->false_jumps[i]);
		ktp_v_emit_exit(c, false);
		return;
	}
	if (c->env.flags & KTP_ENV_TPOINT) {
		/* the tracepoint ignores what the program returns */
		ktp_tpoint_enter(c);
		ktp_emit(c, BPF_MOV64_REG(BPF_REG_1, KTP_R_CTX));
		ktp_emit(c, BPF_EMIT_CALL(ktp_bpf_tp_record));
		ktp_land(c, c->out_jump);
		ktp_emit(c, BPF_MOV64_IMM(BPF_REG_0, 0));
		ktp_emit(c, BPF_EXIT_INSN());
		for (i = 0; i < c->nr_false_jumps; i++)
			ktp_land(c, c->false_jumps[i]);
		ktp_emit(c, BPF_MOV64_REG(BPF_REG_1, KTP_R_CTX));
		/*
		 * The counters, not the probe: no lookup on the false path.
		 * Always 64 bits, for the checker to know them.
		 */
		ktp_emit_ld_imm64(c, BPF_REG_2,
				  (__force unsigned long)c->env.counters);
		ktp_emit(c, BPF_EMIT_CALL(ktp_bpf_tp_false));
	} else {
		ktp_emit(c, BPF_MOV64_IMM(BPF_REG_0, 1));
		ktp_emit(c, BPF_EXIT_INSN());
		for (i = 0; i < c->nr_false_jumps; i++)
			ktp_land(c, c->false_jumps[i]);
	}
	ktp_emit(c, BPF_MOV64_IMM(BPF_REG_0, 0));
	ktp_emit(c, BPF_EXIT_INSN());
}

/* The bpf_prog of the checked instructions, JIT-compiled if @jit */
static struct bpf_prog *ktp_bpf_prog(struct ktp_compiler *c, u32 stack_depth,
				     bool jit)
{
	struct bpf_prog *fp;
	bool interp;
	int i, err;

	fp = bpf_prog_alloc(bpf_prog_size(c->len), 0);
	if (!fp)
		return ERR_PTR(-ENOMEM);
	fp->len = c->len;
	fp->type = BPF_PROG_TYPE_KPROBE;
	memcpy(fp->insnsi, c->insns, bpf_prog_insn_size(fp));
	fp->aux->stack_depth = stack_depth;
	/* the JIT gives each nofault load an exception table entry */
	for (i = 0; i < c->len; i++)
		if (c->insns[i].code == (BPF_LDX | BPF_PROBE_MEM |
					 BPF_SIZE(c->insns[i].code)))
			fp->aux->num_exentries++;
	if (c->env.name)
		strscpy(fp->aux->name, c->env.name, sizeof(fp->aux->name));
	/*
	 * The exception fixup finds a JIT program's table through kallsyms,
	 * which takes it only from a writer with CAP_BPF: without, the
	 * interpreter runs a program with nofault loads. (One without, as
	 * a plain definition's, the JIT compiles for anyone.)
	 */
	if (!jit ||
	    (fp->aux->num_exentries && !bpf_token_capable(NULL, CAP_BPF)))
		fp->jit_requested = 0;
	/*
	 * No tag: as the classic BPF programs bpf_prog_create() converts, a
	 * program the kernel made is not loaded by anyone who would ask for
	 * it; kallsyms names it by its probe. (A SHA-1 of the instructions
	 * would cost a definition about as much as parsing, generating and
	 * checking them.)
	 */
	interp = !fp->jit_requested;
	fp = bpf_prog_select_runtime(fp, &err);
	if (err) {
		/*
		 * The JIT is always on and did not compile it: not asked to
		 * (see above), a user errno; asked, the x86 JIT fails on the
		 * programs KTP makes only for want of memory.
		 */
		if (IS_ENABLED(CONFIG_BPF_JIT_ALWAYS_ON) && !fp->jited)
			err = interp ? -EOPNOTSUPP : -ENOMEM;
		bpf_prog_free(fp);
		return ERR_PTR(err);
	}
	/*
	 * For the exception fixup of its nofault loads, and so that an oops
	 * or a perf stack in the JIT code names it
	 */
	bpf_prog_kallsyms_add(fp);
	if (WARN_ON_ONCE(fp->jited && fp->aux->num_exentries &&
			 !fp->aux->ksym.prog)) {
		bpf_prog_free(fp);
		return ERR_PTR(-EPERM);
	}
	return fp;
}

/* The bytes of @event's record that its fields span */
static u32 ktp_record_size(struct trace_event_call *event)
{
	struct ftrace_event_field *field;
	u32 size = 0;

	list_for_each_entry(field, trace_get_fields(event), link)
		size = max_t(u32, size, field->offset + field->size);
	return size;
}

/**
 * ktp_compiler_finish - make the program and free the compiler
 * @c: the compiler
 * @jit: false to have the interpreter run the program even when the
 *	 JIT is enabled
 *
 * The program is JIT-compiled as bpf_jit_enable says (and blinded as
 * bpf_jit_harden says); it runs in the interpreter otherwise.
 *
 * Return: the program, or an ERR_PTR().
 */
struct ktp_prog *ktp_compiler_finish(struct ktp_compiler *c, bool jit)
{
	struct ktp_check_limits lim;
	struct bpf_prog *fp;
	struct ktp_prog *kp;
	int err;
	u32 bad;

	ktp_emit_exits(c);
	if (c->error) {
		err = c->error;
		goto out;
	}
	if (c->verified) {
		err = -ENOMEM;
		kp = kzalloc(sizeof(*kp), GFP_KERNEL);
		if (!kp)
			goto out;
		fp = ktp_v_finish(c);
		if (IS_ERR(fp)) {
			err = PTR_ERR(fp);
			kfree(kp);
			goto out;
		}
		kp->verified = true;
		kp->run_inline = !c->nr_entry_args && !c->nr_lits;
		kp->nr_vals = c->nr_vals;
		goto done;
	}

	lim.stack_depth = c->stack_base +
			  max(c->max_slot - KTP_NR_REG_SLOTS + 1, 0) * 8;
	lim.regs = !(c->env.flags & (KTP_ENV_EVENT | KTP_ENV_TPOINT));
	lim.rec_size = c->env.flags & KTP_ENV_EVENT ?
		       ktp_record_size(c->env.event) : 0;
	lim.tpoint = c->env.flags & KTP_ENV_TPOINT;
	lim.counters = c->env.counters;
	lim.nr_vals = c->nr_vals;
	lim.nr_entry_args = c->nr_entry_args;
	err = ktp_check_prog(c->insns, c->len, &lim, &bad);
	/* a program the compiler made and the checker refuses: a bug */
	if (WARN(err == -EINVAL, "ktp: program refused at insn %u\n", bad))
		goto out;
	if (err)
		goto out;

	err = -ENOMEM;
	kp = kzalloc(sizeof(*kp), GFP_KERNEL);
	if (!kp)
		goto out;
	fp = ktp_bpf_prog(c, lim.stack_depth, jit);
	if (IS_ERR(fp)) {
		err = PTR_ERR(fp);
		kfree(kp);
		goto out;
	}
done:
	kp->prog = fp;
	kp->has_cond = c->has_cond;
	kp->nr_entry_args = c->nr_entry_args;
	kp->lits = c->lits;
	kp->nr_lits = c->nr_lits;
	c->lits = NULL;
	c->nr_lits = 0;
	ktp_compiler_destroy(c);
	return kp;
out:
	ktp_compiler_destroy(c);
	return ERR_PTR(err);
}

static void ktp_prog_free_rcu(struct rcu_head *rcu)
{
	struct ktp_prog *kp = container_of(rcu, struct ktp_prog, rcu);
	unsigned int i;

	if (kp->prog)
		bpf_prog_free(kp->prog);
	for (i = 0; i < kp->nr_lits; i++)
		kfree(kp->lits[i]);
	kfree(kp->lits);
	kfree(kp);
}

/**
 * ktp_prog_free - free a program no handler can be running any more
 * @kp: the program, or NULL
 */
void ktp_prog_free(struct ktp_prog *kp)
{
	if (!kp)
		return;
	if (kp->verified) {
		bpf_prog_put(kp->prog);
		kp->prog = NULL;
		call_rcu(&kp->rcu, ktp_prog_free_rcu);
		return;
	}
	/*
	 * Exception fixups and kallsyms readers find the JIT code under RCU:
	 * free it after them.
	 */
	bpf_prog_kallsyms_del(kp->prog);
	call_rcu(&kp->rcu, ktp_prog_free_rcu);
}
