/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What KTP's probe files share: a probe, its counters, and how a hit
 * counts itself, nests and runs the probe's program. trace_ktp.c makes,
 * registers and enables probes, "p" and "r" probes itself, and those of
 * other kinds through their struct ktp_kind (trace_ktp.h); ktp_hit.c
 * runs them (ktp_hit.h); ktp_args.c compiles a definition's fetch
 * arguments and condition (ktp_args.h); ktp_def.c shows a definition
 * (ktp_def.h); ktp_files.c holds the control file and the files that
 * list the probes (ktp_files.h). The compiler's interface is ktp_expr.h.
 */
#ifndef _KERNEL_TRACE_KTP_PROBE_H
#define _KERNEL_TRACE_KTP_PROBE_H

#include <linux/bpf.h>
#include <linux/kprobes.h>
#include <linux/trace_events.h>
#include <kunit/visibility.h>
#include <asm/local.h>

#include "../trace.h"
#include "../trace_dynevent.h"
#include "../trace_probe.h"
#include "ktp_expr.h"
#include "ktp_prog.h"

#define KTP_DYN_PREFIX		"ktp:"	/* a KTP probe in dynamic_events */

struct dentry;

/*
 * What happened to the hits of one probe on one CPU, see ktp_profile.
 * Each hit is counted once: recorded, cond_false, missed or dropped.
 */
struct ktp_counters {
	local_t		recorded;
	local_t		cond_false;
	local_t		missed;		/* KTP's own recursion guard */
	local_t		dropped;	/* no buffer took the record */
	local_t		faults;		/* reads that faulted, read as 0 */
	int		active;		/* a 't' or 'e' handler of it runs */
};

struct ktp_kind;

struct trace_ktp {
	struct dyn_event	devent;
	struct kretprobe	rp;		/* rp.kp alone for a 'p' probe */
	char			*symbol;	/* NULL when probing an address */
	char			*target;	/* the probed place, as shown */
	const struct ktp_kind	*kind;		/* NULL for 'p' and 'r' */
	void			*ref;		/* what @kind holds: its target */
	unsigned int		maxactive;	/* as defined; 0: kprobes picks */
	unsigned long		addr;		/* as defined, 0 for a symbol */
	/*
	 * The kprobe of a 'p' or 'r' probe is registered, which it may not
	 * be while the module of its "MOD:SYM" is not loaded; the hits its
	 * earlier registrations missed.
	 */
	bool			registered;
	unsigned long		nmissed_gone;
	struct ktp_counters __percpu *counters;
	/*
	 * A "p" probe at a function's entry made again as a fentry program
	 * on the function's BPF trampoline, which runs instead of its kprobe
	 * while it is enabled, if it can be attached (see ktp_make_tramp());
	 * and its link then. While it is attached, the two probes have
	 * swapped their programs and fetch instructions.
	 */
	struct trace_ktp	*tramp;
	struct bpf_link		*tramp_link;
	struct ktp_prog		*prog;		/* condition, fetch expressions */
	char			*cond;		/* the condition, as shown */
	char			**exprs;	/* fetch expressions, as shown */
	unsigned int		entry_off;	/* 'r': saved $argN in ri->data */
	unsigned int		vals_off;	/* 'r': the program's values there */
	u64			serial;		/* which probe, of all registered */
	/*
	 * A probe made again from its definition each time the module its
	 * target names comes (see ktp_remade_at_load()): its definer's, to
	 * make it as it was defined, and charge the definer, not modprobe.
	 */
	const struct cred	*cred;
	struct mem_cgroup	*memcg;
	/* the fetch arguments whose values the program writes */
	DECLARE_BITMAP(prog_args, MAX_TRACE_ARGS);
	struct trace_probe	tp;		/* last: args[] follows */
};

/* What a definition probes, parsed before its probe is made */
struct ktp_target {
	char			type;		/* the definition's letter */
	const struct ktp_kind	*kind;		/* NULL for 'p' and 'r' */
	unsigned int		maxactive;	/* of an "r" probe */
	char			*symbol;	/* of a "p" or "r" probe, or NULL */
	long			offset;
	int			mod_len;	/* of the "MOD:" KTP named */
	void			*addr;		/* of a "p" probe on an address */
	void			*ref;		/* @kind's, with a reference */
	bool			load_later;	/* its program: ktp_prog_load() */
};

/**
 * struct ktp_kind - a kind of KTP probe besides "p" and "r"
 * @letter: the letter of its definitions
 * @needs_prog: a probe of the kind always has a program: the program is
 *	what runs on the probed place
 * @parse_target: parse a definition's target @arg into @t->ref, with a
 *	reference; set @ctx's flags for the fetch arguments, and *@nargs
 *	if a definition without fetch arguments gets some. Return 0, or a
 *	negative errno with an error_log entry
 * @put_ref: put what @parse_target took
 * @event_name: the event's name when a definition names none
 * @target_name: the target as ktp_probes shows it, kmalloc()ed
 * @print_target: the target as the probe's records show it
 * @init: fill in a probe that now holds its target (optional)
 * @default_args: parse the fetch arguments of a definition without any
 *	(optional)
 * @arg_flags: the flags trace_probe.c parses the kprobe_events fetch
 *	argument @arg with, from the definition's @flags (optional)
 * @fetch_arg: check a kprobe_events fetch argument of the probe (optional)
 * @set_env: where the probe's expressions run; a negative errno, with an
 *	error_log entry, if its program can not be made
 * @fetch_raw_in_prog: as ktp_args.c fetches register arguments in the
 *	program: 1 if the program fetches argument @i, 0 if not, or a
 *	negative errno (optional)
 * @prog_ready: the last word on the program before it is made (optional)
 * @enable: hook the probe for @file (NULL: for perf); @first: the probe
 *	had no user. Return 0, or a negative errno
 * @disable: unhook it; @last: the probe has no user left
 * @defined: the probe is registered: let go of what only its definition
 *	needed (optional)
 * @def_letter: the letter of the probe's definition, if it is not
 *	@letter (optional)
 * @module_coming: module @mod, which the probe's target names ("MOD:"),
 *	comes: arm the probe there, with ktp_take_prog() of @made, the
 *	probe made again from its definition, or NULL if it was defined
 *	as @mod came. Return 0, or a negative errno (@made's, if it is an
 *	ERR_PTR()). Optional: probes of a kind without it are not made
 *	again
 *
 * A kind registers itself with ktp_register_kind(). Its probes record
 * what event probes record: no head of their own, fields that print as
 * "(TARGET) ARGS".
 */
struct ktp_kind {
	char		letter;
	bool		needs_prog;
	int		(*parse_target)(struct ktp_target *t, const char *arg,
					int *nargs,
					struct traceprobe_parse_context *ctx);
	void		(*put_ref)(void *ref);
	const char	*(*event_name)(void *ref);
	char		*(*target_name)(void *ref);
	void		(*print_target)(struct trace_seq *s, void *ref);
	void		(*init)(struct trace_ktp *tk);
	int		(*default_args)(struct trace_ktp *tk,
					struct traceprobe_parse_context *ctx);
	unsigned int	(*arg_flags)(struct trace_ktp *tk, const char *arg,
				     unsigned int flags);
	int		(*fetch_arg)(struct trace_ktp *tk, struct probe_arg *parg);
	int		(*set_env)(struct trace_ktp *tk, struct ktp_expr_env *env);
	int		(*fetch_raw_in_prog)(struct trace_ktp *tk,
					     struct ktp_compiler *comp, int i);
	void		(*prog_ready)(struct trace_ktp *tk,
				      struct ktp_compiler *comp);
	int		(*enable)(struct trace_ktp *tk,
				  struct trace_event_file *file, bool first);
	void		(*disable)(struct trace_ktp *tk,
				   struct trace_event_file *file, bool last);
	void		(*defined)(struct trace_ktp *tk);
	char		(*def_letter)(void *ref);
	int		(*module_coming)(struct trace_ktp *tk, struct module *mod,
					 struct trace_ktp *made);
};

static inline struct trace_ktp *to_trace_ktp(struct dyn_event *ev)
{
	return container_of(ev, struct trace_ktp, devent);
}

static __always_inline bool ktp_is_return(struct trace_ktp *tk)
{
	return tk->rp.handler;
}

/* A 'p' or 'r' probe, whose record starts with where it hit */
static __always_inline bool ktp_is_kprobe(struct trace_ktp *tk)
{
	return !tk->kind;
}

/* The letter of @tk's definition */
static inline char ktp_def_letter(struct trace_ktp *tk)
{
	if (!tk->kind)
		return ktp_is_return(tk) ? 'r' : 'p';
	if (tk->kind->def_letter)
		return tk->kind->def_letter(tk->ref);
	return tk->kind->letter;
}

/*
 * A hit is counted once, when its outcome is known: recorded, dropped,
 * false or missed (ktp_profile adds them up into "hits").
 */
static nokprobe_inline void ktp_count(struct ktp_counters *counters,
				      bool recorded)
{
	if (likely(recorded))
		local_inc(&counters->recorded);
	else
		local_inc(&counters->dropped);
}

/*
 * How many handlers of probes of other kinds than "p" and "r" this CPU
 * runs, one inside the other: an interrupt, an NMI or a page fault may
 * come in one and hit another probe, which then runs with values of its
 * own, at its level of ktp_area (ktp_level_vals()). A probe hit in its
 * own handler is missed, and so is a hit past KTP_NEST_MAX. (Kprobes
 * already keep the handlers of "p" and "r" probes from nesting: a kprobe
 * hit while another kprobe's handler runs is missed, in the kprobe's
 * nmissed.)
 */
DECLARE_PER_CPU(int, ktp_handler_depth);

/*
 * Where offset 0 of the file of this CPU's user-space probe hit is
 * mapped: a fetch argument's @+OFFS (FETCH_OP_FOFFS) is there + OFFS, as
 * uprobe events find it. The probe's handler sets it, with preemption
 * disabled around the hit.
 */
DECLARE_PER_CPU(unsigned long, ktp_user_file_base);

/*
 * A nesting hit: its level, or -1, and counted missed, if it came in the
 * probe's own handler or too deep in others. @counters are this CPU's,
 * whose @active says the probe's handler runs.
 */
static nokprobe_inline int ktp_enter(struct ktp_counters *counters)
{
	int depth;

	if (unlikely(READ_ONCE(counters->active)))
		goto missed;
	depth = this_cpu_inc_return(ktp_handler_depth);
	if (unlikely(depth > KTP_NEST_MAX)) {
		this_cpu_dec(ktp_handler_depth);
		goto missed;
	}
	/* before anything a hit nested in this one (an NMI) could see */
	WRITE_ONCE(counters->active, 1);
	barrier();
	return depth - 1;
missed:
	local_inc(&counters->missed);
	return -1;
}

/* The end of a hit ktp_enter() let in, counted elsewhere */
static nokprobe_inline void ktp_leave(struct ktp_counters *counters)
{
	barrier();
	WRITE_ONCE(counters->active, 0);
	this_cpu_dec(ktp_handler_depth);
}

static nokprobe_inline void ktp_exit(struct ktp_counters *counters,
				     bool recorded)
{
	ktp_count(counters, recorded);
	ktp_leave(counters);
}

/*
 * Count a run of the probe's program: the reads that faulted, and a
 * false condition. Returns the condition.
 */
static nokprobe_inline bool ktp_count_run(struct ktp_counters *counters,
					  const struct ktp_run_ctx *ctx,
					  bool ret)
{
	if (unlikely(ctx->faults))
		local_add(ctx->faults, &counters->faults);
	if (!ret)
		local_inc(&counters->cond_false);
	return ret;
}

/*
 * Run the probe's program: false if the condition is. Nothing is
 * reserved before it, so a false condition costs the program alone.
 */
static nokprobe_inline bool
ktp_run_prog(struct trace_ktp *tk, struct ktp_counters *counters,
	     struct pt_regs *regs, void *rec, void *entry, void *vals)
{
	struct ktp_run_ctx ctx = {
		.regs = regs,
		.rec = rec,
		.entry = entry,
		.vals = vals,
	};
	bool ret;

	if (rec)
		ret = ktp_prog_run_on_record(tk->prog, &ctx);
	else
		ret = ktp_prog_run(tk->prog, &ctx);
	return ktp_count_run(counters, &ctx, ret);
}

#endif /* _KERNEL_TRACE_KTP_PROBE_H */
