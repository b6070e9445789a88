/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTP's expression compiler: probe conditions and fetch expressions in C
 * syntax, compiled to one eBPF program per probe.
 */
#ifndef _KERNEL_TRACE_KTP_EXPR_H
#define _KERNEL_TRACE_KTP_EXPR_H

#include <linux/filter.h>
#include <linux/log2.h>
#include <linux/string.h>
#include <linux/types.h>

#include "trace.h"

struct pt_regs;
struct seq_file;
struct trace_event_call;

/* Limits; a longer or deeper expression is refused with a caret */
#define KTP_EXPR_MAX_DEPTH	32	/* nesting of operands */
#define KTP_EXPR_MAX_NODES	512	/* terms and operators of one expression */
#define KTP_EXPR_MAX_HEIGHT	32	/* levels of its tree, see ktp_too_high() */
#define KTP_EXPR_MAX_INSNS	4096	/* eBPF instructions of one probe */
#define KTP_EXPR_MAX_FETCHES	128	/* fetch expressions of one probe */
#define KTP_EXPR_STR_MAX	256	/* bytes of a string compared */
#define KTP_EXPR_MAX_STRCMPS	16	/* string compares of one probe */
#define KTP_EXPR_GLOB_MAX	256	/* glob pattern bytes of one probe */

/* What the terms of an expression may name */
#define KTP_ENV_FENTRY		BIT(0)	/* $argN: at a function's entry */
#define KTP_ENV_RETURN		BIT(1)	/* $retval, $argN saved at entry */
#define KTP_ENV_EVENT		BIT(2)	/* $FIELD of @event, no registers */
#define KTP_ENV_TPOINT		BIT(3)	/* $argN of a tracepoint, no registers */

/**
 * struct ktp_expr_env - where the expressions of a probe run
 * @flags: KTP_ENV_* flags
 * @event: the event whose fields an "e" probe reads, or NULL
 * @nr_args: how many arguments the tracepoint of a "t" probe has
 * @name: the probe's name, which names the JIT-compiled program in
 *	  kallsyms (bpf_prog_TAG_NAME); NULL: not listed there
 * @counters: the per-CPU counters of a "t" probe, which its program hands
 *	      to ktp_bpf_tp_false()
 */
struct ktp_expr_env {
	unsigned int			flags;
	struct trace_event_call		*event;
	unsigned int			nr_args;
	const char			*name;
	void __percpu			*counters;
};

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
 * struct ktp_expr_error - where and why an expression was refused
 * @pos: offset of the offending character in the expression
 * @code: TP_ERR_* code of the message for error_log
 */
struct ktp_expr_error {
	int	pos;
	int	code;
};

/**
 * struct ktp_prog - the compiled condition and fetch expressions of a probe
 * @prog: the eBPF program; JIT-compiled unless @prog->jited is false
 * @verified: a "p" or "r" probe's program, which the BPF verifier
 *	      accepted (see ktp_gen_v.c)
 * @run_inline: a verified program ktp_prog_run() runs by itself: one
 *		with no $argN saved at entry and no string literal
 * @has_cond: whether the program tests a condition
 * @nr_vals: how many values the program fetches
 * @nr_entry_args: how many $argN an "r" probe must save at entry
 * @lits: string literals the program points to
 * @nr_lits: number of @lits
 * @rcu: frees it after kallsyms readers are done with its symbol
 */
struct ktp_prog {
	struct bpf_prog		*prog;
	bool			verified;
	bool			run_inline;
	bool			has_cond;
	unsigned int		nr_vals;
	unsigned int		nr_entry_args;
	char			**lits;
	unsigned int		nr_lits;
	struct rcu_head		rcu;
};

/**
 * struct ktp_check_limits - what a program may touch, for ktp_check_prog()
 * @stack_depth: bytes of stack below R10 it may use (aux->stack_depth)
 * @nr_vals: how many u64 values of ktp_run_ctx.vals it may write
 * @nr_entry_args: how many u64s of ktp_run_ctx.entry it may read
 * @rec_size: bytes of an "e" probe's event record it may read, where the
 *	      event's fields are; 0 for the other probes, which have none
 * @regs: it may read the registers of a "p" or "r" probe's hit
 * @tpoint: a "t" probe's program, see ktp_tpoint_prologue()
 * @counters: the only address a "t" probe's program may pass as
 *	      ktp_bpf_tp_false()'s second argument
 */
struct ktp_check_limits {
	u32			stack_depth;
	u32			nr_vals;
	u32			nr_entry_args;
	u32			rec_size;
	bool			regs;
	bool			tpoint;
	const void __percpu	*counters;
};

int ktp_check_prog(const struct bpf_insn *insns, u32 len,
		   const struct ktp_check_limits *lim, u32 *bad);

/*
 * A "t" probe's program runs on its tracepoint as a BPF raw tracepoint
 * program does, on the u64 array of the tracepoint's arguments. Its
 * prologue makes the struct ktp_run_ctx the rest reads, in the top
 * KTP_TPOINT_CTX_SIZE bytes of its stack.
 */
#define KTP_TPOINT_CTX_SIZE	((int)sizeof(struct ktp_run_ctx))
static_assert(KTP_TPOINT_CTX_SIZE % 8 == 0);
/* The offset from R10 of a field of that context */
#define KTP_TPOINT_CTX_OFF(field) \
	(-KTP_TPOINT_CTX_SIZE + (int)offsetof(struct ktp_run_ctx, field))
#define KTP_TPOINT_PROLOGUE_LEN	5
void ktp_tpoint_prologue(struct bpf_insn *insn);

/* The helpers programs call (BPF_CALL_n() in ktp_gen.c) */
u64 ktp_bpf_read(u64 ctx, u64 addr, u64 how, u64 r4, u64 r5);
u64 ktp_bpf_strcmp(u64 ctx, u64 addr, u64 lit, u64 how, u64 r5);
/* and those of "t" probes' programs (in trace_ktp.c) */
u64 ktp_bpf_tp_enter(u64 ctx, u64 r2, u64 r3, u64 r4, u64 r5);
u64 ktp_bpf_tp_record(u64 ctx, u64 r2, u64 r3, u64 r4, u64 r5);
u64 ktp_bpf_tp_false(u64 ctx, u64 r2, u64 r3, u64 r4, u64 r5);

struct ktp_compiler;

/**
 * ktp_field_is_int() - whether a probe reads an event field as an integer
 * @field: a field of a trace event
 *
 * Return: true for a field of 1, 2, 4 or 8 bytes that is not an array;
 * what an "e" probe reads as $FIELD besides strings.
 */
static inline bool ktp_field_is_int(const struct ftrace_event_field *field)
{
	return !strchr(field->type, '[') && is_power_of_2(field->size) &&
	       field->size <= sizeof(u64);
}

struct ktp_compiler *ktp_compiler_create(const struct ktp_expr_env *env);
void ktp_compiler_destroy(struct ktp_compiler *c);
int ktp_compile_cond(struct ktp_compiler *c, const char *src,
		     struct ktp_expr_error *err);
int ktp_compile_fetch(struct ktp_compiler *c, const char *src,
		      unsigned int slot, bool *is_signed,
		      struct ktp_expr_error *err);
int ktp_compile_fetch_reg(struct ktp_compiler *c, unsigned int offset,
			  unsigned int slot);
int ktp_compile_fetch_tpoint_arg(struct ktp_compiler *c, unsigned int num,
				 unsigned int slot);
int ktp_retval_offset(void);
int ktp_sp_offset(void);
int ktp_arg_reg_offset(unsigned int num);
int ktp_arg_stack_offset(unsigned int num);
struct ktp_prog *ktp_compiler_finish(struct ktp_compiler *c, bool jit);
void ktp_prog_free(struct ktp_prog *kp);
void ktp_prog_show_insns(struct seq_file *m, const struct ktp_prog *kp);
/*
 * This CPU's values of ktp_area_map, where a verified program leaves the
 * values it fetched; set with the map, before any program that uses it.
 */
extern u64 __percpu *ktp_prog_area;

u32 ktp_prog_run_verified(const struct ktp_prog *kp, struct ktp_run_ctx *ctx);
u32 ktp_prog_end_verified(const struct ktp_prog *kp, struct ktp_run_ctx *ctx,
			  u64 ret);

/**
 * ktp_prog_run - run a probe's program on one hit
 * @kp: the compiled program
 * @ctx: what the program reads, and where it writes fetched values: a
 *	 verified program's caller may leave @ctx->vals NULL and read
 *	 them in this CPU's ktp_prog_area
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
	if (kp->verified)
		return ktp_prog_run_verified(kp, ctx);
	return bpf_prog_run(kp->prog, ctx);
}

#endif /* _KERNEL_TRACE_KTP_EXPR_H */
