/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTP's expression compiler: probe conditions and fetch expressions in C
 * syntax, compiled to one eBPF program per probe. What a probe tells the
 * compiler: where its expressions run, the limits, where an error is.
 */
#ifndef _KERNEL_TRACE_KTP_ENV_H
#define _KERNEL_TRACE_KTP_ENV_H

#include <linux/capability.h>
#include <linux/log2.h>
#include <linux/string.h>
#include <linux/types.h>

#include "../trace.h"
#include "../trace_probe.h"

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

/*
 * What bpf() asks of a writer whose probe has a program: the verifier
 * lets a program with CAP_PERFMON read kernel memory and use pointers as
 * values (see Documentation/trace/ktp.rst)
 */
static inline bool ktp_may_load_progs(void)
{
	return bpf_capable() && perfmon_capable();
}

/* What the terms of an expression may name */
#define KTP_ENV_FENTRY		BIT(0)	/* $argN: at a function's entry */
#define KTP_ENV_RETURN		BIT(1)	/* $retval, $argN saved at entry */
#define KTP_ENV_CHECK		BIT(2)	/* check the expressions, make no program */
#define KTP_ENV_TPOINT		BIT(3)	/* $argN of a tracepoint, no registers */
#define KTP_ENV_EVENT		BIT(4)	/* $FIELD of @event, no registers */
#define KTP_ENV_USER		BIT(5)	/* user registers and memory, values at a level */
/* with KTP_ENV_TPOINT: a fentry program on @func's BPF trampoline */
#define KTP_ENV_TRAMP		BIT(6)

/**
 * struct ktp_expr_env - where the expressions of a probe run
 * @flags: KTP_ENV_* flags
 * @event: the event whose fields an "e" probe reads, or NULL
 * @nr_args: how many arguments the tracepoint of a "t" probe has
 * @func: the function a "p" or "r" probe probes, whose BTF prototype
 *	  types its parameters at its entry and return (and, with
 *	  KTP_ENV_TRAMP, its fentry program's arguments); NULL for none
 * @tpoint: the name of a "t" probe's tracepoint, whose BTF type
 *	    (btf_trace_NAME) its program is loaded for
 * @kfuncs: the BTF ids of the kfuncs a "t" probe's program ends in: the
 *	    one that enters a hit whose condition is true (it returns the
 *	    hit, a struct ktp_tp_hit, or NULL for none), and the one that
 *	    records it
 * @name: the probe's name, which names its BPF program
 */
struct ktp_expr_env {
	unsigned int			flags;
	struct trace_event_call		*event;
	unsigned int			nr_args;
	const char			*func;
	const char			*tpoint;
	const u32			*kfuncs;
	const char			*name;
};

#define KTP_EXPR_DETAIL_MAX	TP_LOG_DETAIL_MAX	/* bytes of an error's detail */

/**
 * struct ktp_expr_error - where and why an expression was refused
 * @pos: offset of the offending character in the expression
 * @code: TP_ERR_* code of the message for error_log
 * @detail: what the message cannot name (the parameters there are, the
 *	    struct without the member), or empty
 */
struct ktp_expr_error {
	int	pos;
	int	code;
	char	detail[KTP_EXPR_DETAIL_MAX];
};

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

struct bpf_map;
struct bpf_prog;

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
 * @unloaded: the compiler of a program made but not loaded yet (see
 *	      ktp_compiler_finish_unloaded()), NULL once it is
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
	struct ktp_compiler	*unloaded;
	struct rcu_head		rcu;
};

#endif /* _KERNEL_TRACE_KTP_ENV_H */
