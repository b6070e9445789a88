/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The compiler's interface: the programs KTP's compiler makes (ktp_expr.c)
 * and how KTP runs them: a program's id, by which KTP's kfuncs find it,
 * and ktp_area, the per-CPU map where programs leave the values they
 * fetch (ktp_gen_v.c).
 */
#ifndef _KERNEL_TRACE_KTP_PROG_H
#define _KERNEL_TRACE_KTP_PROG_H

#include <linux/filter.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "ktp_env.h"

struct bpf_map;
struct pt_regs;

/**
 * struct ktp_run_ctx - what a compiled program reads, one per hit
 * @regs: registers of a "p" or "r" probe's hit, NULL otherwise
 * @rec: the event record of an "e" probe's hit, NULL otherwise
 * @entry: the $argN values an "r" probe saved at function entry, the
 *	   arguments of a "t" probe's tracepoint
 * @vals: where the program writes the values of fetch expressions
 * @faults: reads that faulted during this run (each one read as 0)
 */
struct ktp_run_ctx {
	struct pt_regs		*regs;
	void			*rec;
	unsigned long		*entry;
	u64			*vals;
	unsigned long		faults;
};

/**
 * struct ktp_prog - the compiled condition and fetch expressions of a probe
 * @prog: the BPF program the verifier accepted: a kprobe program on
 *	  pt_regs for a "p" or "r" probe, a tracepoint program on the
 *	  event's record for an "e" probe, a BTF raw tracepoint program
 *	  on the tracepoint's arguments for a "t" probe
 * @run_inline: a program ktp_prog_run() runs by itself: a "p" or "r"
 *		probe's with no $argN saved at entry
 * @on_record: an "e" probe's, whose context is the event's record
 * @has_cond: whether the program tests a condition
 * @nr_vals: how many values the program fetches
 * @nr_entry_args: how many $argN an "r" probe must save at entry
 * @id: the slot the program passes KTP's kfuncs to name itself, 0 for
 *	none (see ktp_prog_by_id())
 * @self_map: the map it passes with @id, which @prog holds
 * @owner: the probe, for the kfuncs of a "t" probe's program; set when
 *	   the program is first linked, NULL for a program never linked
 * @false_map: where a "t" probe's program counts its false hits, one
 *	       cache line a CPU (see ktp_prog_false_counts()), or NULL
 * @lits: string literals the program compares strings with
 * @nr_lits: number of @lits
 * @rcu: frees it after the kfuncs that found it by @id
 */
struct ktp_prog {
	struct bpf_prog		*prog;
	bool			run_inline;
	bool			on_record;
	bool			has_cond;
	unsigned int		nr_vals;
	unsigned int		nr_entry_args;
	u32			id;
	const struct bpf_map	*self_map;
	void			*owner;
	struct bpf_map		*false_map;
	char			**lits;
	unsigned int		nr_lits;
	struct rcu_head		rcu;
};

/*
 * The programs that name themselves to KTP's kfuncs, by a slot of this
 * table and a map the program holds (see ktp_v_emit_self()), so that a
 * program that outlives its probe finds nothing once its slot holds
 * another program: no live program holds another's map.
 */
#define KTP_ID_SLOT_BITS	16
#define KTP_ID_SLOT_MASK	(BIT(KTP_ID_SLOT_BITS) - 1)

struct ktp_id_table {
	unsigned int		size;
	struct rcu_head		rcu;
	struct ktp_prog __rcu	*progs[];
};

extern struct ktp_id_table __rcu *ktp_id_table;

/**
 * ktp_prog_by_id() - the program that passed a kfunc its map and slot
 * @map: the map, which the verifier made sure the program holds
 * @id: the slot, an immediate of the program's code
 *
 * Called by KTP's kfuncs, under RCU as BPF programs run.
 *
 * Return: the program, or NULL if it is being freed.
 */
static __always_inline struct ktp_prog *ktp_prog_by_id(const void *map, u32 id)
{
	struct ktp_id_table *t = rcu_dereference_check(ktp_id_table,
						       rcu_read_lock_any_held());
	unsigned int slot = id & KTP_ID_SLOT_MASK;
	struct ktp_prog *kp;

	if (unlikely(!t || slot >= t->size))
		return NULL;
	kp = rcu_dereference_check(t->progs[slot], rcu_read_lock_any_held());
	return kp && kp->self_map == map ? kp : NULL;
}

/*
 * How many handlers of "t" and "e" probes a CPU runs one inside the
 * other (see ktp_enter()); each level has its values in ktp_area.
 */
#define KTP_NEST_MAX		4
/* A level's values: a "t" probe's tracepoint arguments, then the fetched */
#define KTP_LEVEL_WORDS		(MAX_BPF_FUNC_ARGS + KTP_EXPR_MAX_FETCHES)
/*
 * ktp_area, in u64 words: the values of a "p" or "r" probe's program and
 * an "r" probe's $argN saved at entry, the level of the "e" hit whose
 * program runs, then the KTP_NEST_MAX levels.
 */
#define KTP_AREA_EVENT_LEVEL	(KTP_EXPR_MAX_FETCHES + PAGE_SIZE / 8)
#define KTP_AREA_LEVELS		(KTP_AREA_EVENT_LEVEL + 1)
#define KTP_AREA_WORDS		(KTP_AREA_LEVELS + KTP_NEST_MAX * KTP_LEVEL_WORDS)

/**
 * struct ktp_tp_hit - a "t" probe's hit that its program entered
 * @tk: the probe
 * @flags: where it is recorded: the probe's flags when it was entered
 * @level: the level of its values in ktp_area
 *
 * ktp_tp_enter() returns it, a reference the verifier makes the program
 * pass ktp_tp_record() on every path.
 */
struct ktp_tp_hit {
	struct trace_ktp	*tk;
	unsigned int		flags;
	int			level;
};

struct btf_id_set8;
int ktp_kfunc_filter(const struct bpf_prog *prog,
		     const struct btf_id_set8 *set, u32 kfunc_id);
/*
 * This CPU's value of ktp_area, the map KTP's programs leave the values
 * they fetch in; set with the map, before any program that uses it.
 */
extern u64 __percpu *ktp_prog_area;

/* This CPU's values of the "t" or "e" hit at @level */
static __always_inline u64 *ktp_level_vals(unsigned int level)
{
	return this_cpu_ptr(ktp_prog_area) + KTP_AREA_LEVELS +
	       level * KTP_LEVEL_WORDS;
}

/*
 * Where an "e" probe's program finds the level of its hit: the handler
 * sets it around the program and puts back what a hit it interrupted
 * had set.
 */
static __always_inline u64 *ktp_event_level(void)
{
	return this_cpu_ptr(ktp_prog_area) + KTP_AREA_EVENT_LEVEL;
}

/*
 * The first user read that faulted in this CPU's user-space probe
 * handler, which may page it in and run the hit again (ktp_uprobe.c):
 * @size bytes at @addr, or a string of at most @size bytes there. Only
 * that handler arms it; a read elsewhere notes nothing.
 */
struct ktp_user_fault {
	unsigned long	addr;
	unsigned int	size;
	bool		string;
	bool		armed;
};

DECLARE_PER_CPU(struct ktp_user_fault, ktp_user_fault);

static __always_inline void ktp_note_user_fault(unsigned long addr,
						unsigned int size, bool string)
{
	struct ktp_user_fault *f = this_cpu_ptr(&ktp_user_fault);

	if (f->armed && !f->addr) {
		f->addr = addr;
		f->size = size;
		f->string = string;
	}
}

u32 ktp_prog_run_verified(const struct ktp_prog *kp, struct ktp_run_ctx *ctx);
u32 ktp_prog_end_verified(const struct ktp_prog *kp, struct ktp_run_ctx *ctx,
			  u64 ret);

/**
 * ktp_prog_run - run a probe's program on one hit
 * @kp: the compiled program
 * @ctx: what the program reads, and where it writes fetched values: the
 *	 caller may leave @ctx->vals NULL and read them in ktp_area
 *
 * Return: 0 if the condition is false, nonzero otherwise.
 */
static __always_inline u32 ktp_prog_run(const struct ktp_prog *kp,
					struct ktp_run_ctx *ctx)
{
	u64 ret;

	if (likely(kp->run_inline)) {
		/* (faults << 1) | true: without a fault, nothing else to do */
		ret = bpf_prog_run(kp->prog, ctx->regs);
		if (likely(ret <= 1 && !ctx->vals))
			return ret;
		return ktp_prog_end_verified(kp, ctx, ret);
	}
	return ktp_prog_run_verified(kp, ctx);
}

/**
 * ktp_prog_run_on_record - run an "e" probe's program on one hit
 * @kp: the compiled program
 * @ctx: the hit: @ctx->rec is the event's record
 *
 * Return: 0 if the condition is false, nonzero otherwise.
 */
static __always_inline u32 ktp_prog_run_on_record(const struct ktp_prog *kp,
						  struct ktp_run_ctx *ctx)
{
	u64 ret = bpf_prog_run(kp->prog, ctx->rec);

	if (likely(ret <= 1 && !ctx->vals))
		return ret;
	return ktp_prog_end_verified(kp, ctx, ret);
}

/* ktp_expr.c: compile a probe's expressions into its program */
struct ktp_compiler *ktp_compiler_create(const struct ktp_expr_env *env);
void ktp_compiler_destroy(struct ktp_compiler *c);
bool ktp_compiler_has_param(struct ktp_compiler *c, const char *name);
void ktp_compiler_share_proto(struct ktp_compiler *c,
			      struct traceprobe_parse_context *ctx);
int ktp_compile_cond(struct ktp_compiler *c, const char *src,
		     struct ktp_expr_error *err);
int ktp_compile_fetch(struct ktp_compiler *c, const char *src,
		      unsigned int slot, const char **type,
		      struct ktp_expr_error *err);
int ktp_compile_fetch_reg(struct ktp_compiler *c, unsigned int offset,
			  unsigned int slot);
int ktp_compile_fetch_tpoint_arg(struct ktp_compiler *c, unsigned int num,
				 unsigned int slot);
void ktp_compiler_copy_tpoint_args(struct ktp_compiler *c);
struct ktp_prog *ktp_compiler_finish(struct ktp_compiler *c);
void ktp_prog_free(struct ktp_prog *kp);

/* ktp_gen_v.c: what a "t" probe's program counted itself */
void ktp_prog_false_counts(const struct ktp_prog *kp, unsigned long *hits,
			   unsigned long *faults);

#endif /* _KERNEL_TRACE_KTP_PROG_H */
