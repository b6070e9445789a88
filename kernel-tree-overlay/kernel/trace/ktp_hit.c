// SPDX-License-Identifier: GPL-2.0
/*
 * KTP: what a probe does when it is hit. It counts the hit, runs its
 * program (the condition first, before anything is reserved), and
 * writes its record to each trace instance it is enabled in and to
 * perf. A "p" or "r" probe runs from its kprobe, a "t" probe's program
 * runs on its tracepoint, attached by a BPF link, and calls the
 * ktp_tp_*() kfuncs, an "e" probe runs from its trigger on the event's
 * record.
 */
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/rculist.h>
#include <linux/trace_events.h>
#include <linux/tracepoint.h>

#include "trace_probe.h"
#include "trace_probe_kernel.h"
#include "trace_probe_tmpl.h"
#include "trace_ktp.h"
#include "ktp_expr.h"

/*
 * How many handlers of 't' and 'e' probes this CPU runs, one inside the
 * other: an interrupt, an NMI or a page fault may come in one and hit
 * another probe, which then runs with values of its own. A probe hit in
 * its own handler is missed, and so is a hit past KTP_NEST_MAX. (A "t"
 * probe's program is not even run again inside itself: the raw
 * tracepoint's prog->active counts that as the program's miss. Kprobes
 * already keep the handlers of 'p' and 'r' probes from nesting: a kprobe
 * hit while another kprobe's handler runs is missed, in the kprobe's
 * nmissed.)
 */
static DEFINE_PER_CPU(int, ktp_handler_depth);

/*
 * The values a hit's program fetches, from the program to the record,
 * are "entry data": FETCH_OP_EDATA reads them. An 'r' probe keeps them
 * in its kretprobe instance, after the $argN it saved; a 'p' probe's
 * stay where its program put them, in this CPU's ktp_area (kprobes do
 * not nest); 't' and 'e' probes' are in ktp_area too, one level of
 * values for each level of handlers nested on a CPU (ktp_level_vals()).
 * A 't' probe's tracepoint arguments come first, copied by its program
 * when fetch instructions read them. The flags a 't' hit was entered
 * with are its level's too.
 */
static DEFINE_PER_CPU(unsigned int [KTP_NEST_MAX], ktp_level_flags);

/*
 * Fetch from the probed context: @rec is the pt_regs of a 'p' or 'r'
 * probe, the event record of an 'e' probe. A 't' probe's $argN are entry
 * data (see ktp_tpoint_fetch_arg()).
 */
static noinline int
ktp_fetch_insn(struct fetch_insn *code, void *rec, void *edata, void *dest,
	       void *base)
{
	/* an "e" probe's $FIELD: a field of its event's record */
	if (code->op == FETCH_OP_TP_ARG)
		return process_fetch_insn_bottom(code + 1,
						 get_event_field(code, rec),
						 dest, base);
	return process_regs_fetch_insn(code, rec, edata, dest, base);
}

NOKPROBE_SYMBOL(ktp_fetch_insn);

/* What trace_probe_tmpl.h calls for each fetch argument */
static nokprobe_inline int
process_fetch_insn(struct fetch_insn *code, void *rec, void *edata,
		   void *dest, void *base)
{
	/*
	 * Most fetches: a value the program wrote or a 't' probe's $argN,
	 * stored as it is, without ktp_fetch_insn()'s frame.
	 */
	if (code->op == FETCH_OP_EDATA && code[1].op == FETCH_OP_ST_RAW &&
	    code[2].op == FETCH_OP_END) {
		fetch_store_raw(*(unsigned long *)(edata + code->offset),
				code + 1, dest);
		return 0;
	}
	return ktp_fetch_insn(code, rec, edata, dest, base);
}

/*
 * The fields before the fetched ones: where a 'p' or 'r' probe hit, none
 * for a 't' or 'e' probe. @kprobe is a constant at each call and @ri is
 * NULL but for an 'r' probe, so that the 'p' handler tests neither.
 */
static nokprobe_inline int ktp_head_size(bool kprobe,
					 struct kretprobe_instance *ri)
{
	if (!kprobe)
		return sizeof(struct eprobe_trace_entry_head);
	if (ri)
		return sizeof(struct kretprobe_trace_entry_head);
	return sizeof(struct kprobe_trace_entry_head);
}

static nokprobe_inline void
ktp_fill_head(struct trace_ktp *tk, struct trace_entry *ent, bool kprobe,
	      struct kretprobe_instance *ri)
{
	struct kretprobe_trace_entry_head *ret_head;
	struct kprobe_trace_entry_head *head;

	if (!kprobe)
		return;
	if (ri) {
		ret_head = container_of(ent, struct kretprobe_trace_entry_head, ent);
		ret_head->func = (unsigned long)tk->rp.kp.addr;
		ret_head->ret_ip = get_kretprobe_retaddr(ri);
	} else {
		head = container_of(ent, struct kprobe_trace_entry_head, ent);
		head->ip = (unsigned long)tk->rp.kp.addr;
	}
}

/*
 * Write one record into @file's buffer. @ctx is what the fetch
 * instructions read (see process_fetch_insn()), @regs the registers a
 * stack trace trigger may use, @kprobe whether it is a 'p' or 'r' probe's
 * hit. Returns whether the buffer took it.
 */
static nokprobe_inline bool
ktp_record(struct trace_ktp *tk, bool kprobe, void *ctx, struct pt_regs *regs,
	   struct kretprobe_instance *ri, void *edata,
	   struct trace_event_file *file)
{
	int hsize = ktp_head_size(kprobe, ri);
	struct trace_event_buffer fbuffer;
	struct trace_entry *entry;
	int dsize;

	if (trace_trigger_soft_disabled(file))
		return false;

	dsize = __get_data_size(&tk->tp, ctx, edata);
	entry = trace_event_buffer_reserve(&fbuffer, file,
					   hsize + tk->tp.size + dsize);
	if (!entry)
		return false;

	fbuffer.regs = regs;
	ktp_fill_head(tk, entry, kprobe, ri);
	store_trace_args((void *)entry + hsize, &tk->tp, ctx, edata, hsize,
			 dsize);
	trace_event_buffer_commit(&fbuffer);
	return true;
}

#ifdef CONFIG_PERF_EVENTS
/* The same record for perf; @regs is NULL for a 't' or 'e' probe. */
static nokprobe_inline bool
ktp_perf_record(struct trace_ktp *tk, bool kprobe, void *ctx,
		struct pt_regs *regs, struct kretprobe_instance *ri,
		void *edata)
{
	struct trace_event_call *call = trace_probe_event_call(&tk->tp);
	int hsize = ktp_head_size(kprobe, ri);
	struct pt_regs *caller_regs;
	struct trace_entry *entry;
	struct hlist_head *head;
	int size, dsize, rctx;

	head = this_cpu_ptr(call->perf_events);
	if (hlist_empty(head))
		return false;

	dsize = __get_data_size(&tk->tp, ctx, edata);
	/* perf adds a u32 size before the record and aligns both to u64 */
	size = ALIGN(hsize + tk->tp.size + dsize + sizeof(u32), sizeof(u64));
	size -= sizeof(u32);
	entry = perf_trace_buf_alloc(size, kprobe ? NULL : &caller_regs,
				     &rctx);
	if (!entry)
		return false;
	/* a constant test: only the 't' and 'e' handlers take its frame */
	if (!kprobe) {
		perf_fetch_caller_regs(caller_regs);
		regs = caller_regs;
	}

	memset((void *)entry + hsize, 0, size - hsize);
	ktp_fill_head(tk, entry, kprobe, ri);
	store_trace_args((void *)entry + hsize, &tk->tp, ctx, edata, hsize,
			 dsize);
	perf_trace_buf_submit(entry, size, rctx, call->event.type, 1, regs,
			      head, NULL);
	return true;
}
#else
static nokprobe_inline bool
ktp_perf_record(struct trace_ktp *tk, bool kprobe, void *ctx,
		struct pt_regs *regs, struct kretprobe_instance *ri,
		void *edata)
{
	return false;
}
#endif

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
 * A 't' or 'e' hit: its level, or -1, and counted missed, if it came in
 * the probe's own handler or too deep in others. @counters are this
 * CPU's, whose @active says the probe's handler runs.
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

/* The level of the hit this CPU's innermost handler runs */
static nokprobe_inline int ktp_current_level(void)
{
	return this_cpu_read(ktp_handler_depth) - 1;
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
	if (unlikely(ctx.faults))
		local_add(ctx.faults, &counters->faults);
	if (!ret)
		local_inc(&counters->cond_false);
	return ret;
}

/* Write a hit's record to each buffer and to perf, as @flags say. */
static nokprobe_inline bool
ktp_record_all(struct trace_ktp *tk, bool kprobe, unsigned int flags,
	       void *ctx, struct pt_regs *regs, struct kretprobe_instance *ri,
	       void *edata)
{
	struct event_file_link *link;
	bool recorded = false;

	if (flags & TP_FLAG_TRACE) {
		trace_probe_for_each_link_rcu(link, &tk->tp)
			recorded |= ktp_record(tk, kprobe, ctx, regs, ri, edata,
					       link->file);
	}
	if (flags & TP_FLAG_PROFILE)
		recorded |= ktp_perf_record(tk, kprobe, ctx, regs, ri, edata);
	return recorded;
}

/* One hit of a 'p' or 'r' probe: @ri is NULL on function entry. */
static nokprobe_inline void
ktp_hit(struct trace_ktp *tk, struct pt_regs *regs,
	struct kretprobe_instance *ri)
{
	struct ktp_counters *counters = this_cpu_ptr(tk->counters);
	void *edata = ri ? (void *)ri->data : NULL;
	unsigned int flags;

	/*
	 * Between the disabling of the event and of its kprobe (or a return
	 * from before that), the probe is off: not its hit.
	 */
	flags = trace_probe_load_flag(&tk->tp);
	if (!(flags & (TP_FLAG_TRACE | TP_FLAG_PROFILE)))
		return;
	if (ri) {
		if (tk->prog &&
		    !ktp_run_prog(tk, counters, regs, NULL, edata + tk->entry_off,
				  edata + tk->vals_off))
			return;
	} else if (tk->prog) {
		if (!ktp_run_prog(tk, counters, regs, NULL, NULL, NULL))
			return;
		/* the record reads them where the program wrote them */
		if (tk->prog->nr_vals)
			edata = this_cpu_ptr(ktp_prog_area);
	}
	ktp_count(counters, ktp_record_all(tk, true, flags, regs, regs, ri,
					   edata));
}

/**
 * ktp_kprobe_handler - the pre_handler of a "p" probe's kprobe
 * @kp: the probe's kprobe
 * @regs: the registers at the probed instruction
 *
 * Return: 0, for kprobes to single-step the instruction.
 */
int ktp_kprobe_handler(struct kprobe *kp, struct pt_regs *regs)
{
	ktp_hit(container_of(kp, struct trace_ktp, rp.kp), regs, NULL);
	return 0;
}

NOKPROBE_SYMBOL(ktp_kprobe_handler);

/**
 * ktp_kretprobe_handler - the handler of an "r" probe's kretprobe
 * @ri: the kretprobe instance of the returning call
 * @regs: the registers at the return
 *
 * Return: 0.
 */
int ktp_kretprobe_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);

	/* NULL when the probe is being unregistered on another CPU */
	if (likely(rp))
		ktp_hit(container_of(rp, struct trace_ktp, rp), regs, ri);
	return 0;
}

NOKPROBE_SYMBOL(ktp_kretprobe_handler);

/**
 * ktp_kretprobe_entry_handler - save an "r" probe's $argN at entry
 * @ri: the kretprobe instance of the call
 * @regs: the registers at the function's entry
 *
 * Return: 0, or -ENOENT when the probe is being unregistered.
 */
int ktp_kretprobe_entry_handler(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);
	unsigned long *args;
	struct trace_ktp *tk;
	unsigned int i;

	if (unlikely(!rp))
		return -ENOENT;
	tk = container_of(rp, struct trace_ktp, rp);
	/* $argN of a return probe: saved at entry */
	if (tk->tp.entry_arg)
		store_trace_entry_data(ri->data, &tk->tp, regs);
	if (tk->prog && tk->prog->nr_entry_args) {
		args = (void *)ri->data + tk->entry_off;
		for (i = 0; i < tk->prog->nr_entry_args; i++)
			args[i] = regs_get_kernel_argument(regs, i);
	}
	return 0;
}

NOKPROBE_SYMBOL(ktp_kretprobe_entry_handler);

/*
 * A 't' probe's program calls these kfuncs. Each names the probe by its
 * program's id, an immediate of the program's code that KTP made:
 * whatever link runs the program, the id finds only the probe, and
 * nothing once it is being freed.
 */
static nokprobe_inline struct trace_ktp *ktp_tpoint_by_id(u32 id)
{
	struct ktp_prog *kp = ktp_prog_by_id(id);

	return kp ? kp->owner : NULL;
}

__bpf_kfunc_start_defs();

/**
 * ktp_tp_enter - enter the hit of a "t" probe whose condition is true
 * @id: the id of the probe's program
 *
 * Return: the level of the hit's values in ktp_area, or -1 if there is
 * no hit to record: missed, or the probe is disabled.
 */
__bpf_kfunc int ktp_tp_enter(u32 id)
{
	struct trace_ktp *tk = ktp_tpoint_by_id(id);
	unsigned int flags;
	int level;

	if (unlikely(!tk))
		return -1;
	flags = trace_probe_load_flag(&tk->tp);
	if (!(flags & (TP_FLAG_TRACE | TP_FLAG_PROFILE)))
		return -1;
	level = ktp_enter(this_cpu_ptr(tk->counters));
	/*
	 * The record goes where the probe was enabled at entry: disabling
	 * waits for this hit before it removes the file (see ktp_arm()).
	 */
	if (level >= 0)
		this_cpu_write(ktp_level_flags[level], flags);
	return level;
}

/**
 * ktp_tp_record - record the hit ktp_tp_enter() entered
 * @id: the id of the probe's program
 * @faults: the reads of the hit that faulted
 */
__bpf_kfunc void ktp_tp_record(u32 id, u64 faults)
{
	struct trace_ktp *tk = ktp_tpoint_by_id(id);
	struct ktp_counters *counters;
	int level = ktp_current_level();

	/* entered: found a moment ago, under the same RCU read side */
	if (WARN_ON_ONCE(!tk || level < 0))
		return;
	counters = this_cpu_ptr(tk->counters);
	if (unlikely(faults))
		local_add(faults, &counters->faults);
	ktp_exit(counters, ktp_record_all(tk, false,
					  this_cpu_read(ktp_level_flags[level]),
					  NULL, NULL, NULL,
					  ktp_level_vals(level)));
}

/**
 * ktp_tp_false - count the hit of a "t" probe whose condition is false
 * @id: the id of the probe's program
 * @faults: the reads of the hit that faulted
 */
__bpf_kfunc void ktp_tp_false(u32 id, u64 faults)
{
	struct trace_ktp *tk = ktp_tpoint_by_id(id);
	struct ktp_counters *counters;

	/* a hit of a link still being released: not the probe's */
	if (unlikely(!tk) ||
	    !(trace_probe_load_flag(&tk->tp) & (TP_FLAG_TRACE | TP_FLAG_PROFILE)))
		return;
	counters = this_cpu_ptr(tk->counters);
	local_inc(&counters->cond_false);
	if (unlikely(faults))
		local_add(faults, &counters->faults);
}

__bpf_kfunc_end_defs();

NOKPROBE_SYMBOL(ktp_tp_enter);
NOKPROBE_SYMBOL(ktp_tp_record);
NOKPROBE_SYMBOL(ktp_tp_false);

BTF_KFUNCS_START(ktp_hit_kfunc_ids)
BTF_ID_FLAGS(func, ktp_tp_enter)
BTF_ID_FLAGS(func, ktp_tp_record)
BTF_ID_FLAGS(func, ktp_tp_false)
BTF_KFUNCS_END(ktp_hit_kfunc_ids)

/* As ktp_strcmp(): only the program KTP is loading may call them */
static int ktp_hit_kfunc_filter(const struct bpf_prog *prog, u32 kfunc_id)
{
	return ktp_kfunc_filter(&ktp_hit_kfunc_ids, kfunc_id);
}

static const struct btf_kfunc_id_set ktp_hit_kfunc_set = {
	.owner	= THIS_MODULE,
	.set	= &ktp_hit_kfunc_ids,
	.filter	= ktp_hit_kfunc_filter,
};

/* BTF raw tracepoint programs: "t" probes */
static int __init ktp_hit_kfunc_init(void)
{
	return register_btf_kfunc_id_set(BPF_PROG_TYPE_TRACING,
					 &ktp_hit_kfunc_set);
}
late_initcall(ktp_hit_kfunc_init);

/*
 * Write the record of an 'e' probe's hit. Out of line, so that a false
 * condition does not pay for the frame the record needs.
 */
static noinline bool ktp_trigger_record(struct ktp_trigger *trigger,
					void *rec, void *edata)
{
	struct trace_ktp *tk = trigger->tk;

	if (trigger->file)
		return ktp_record(tk, false, rec, NULL, NULL, edata,
				  trigger->file);
	return ktp_perf_record(tk, false, rec, NULL, NULL, edata);
}

NOKPROBE_SYMBOL(ktp_trigger_record);

/*
 * Run an 'e' probe's program on @rec, at @level; @edata: where it left
 * the values it fetched. False if the condition is.
 */
static nokprobe_inline bool ktp_trigger_run(struct trace_ktp *tk,
					    struct ktp_counters *counters,
					    void *rec, int level, void **edata)
{
	u64 *word, old = 0;
	bool ret;

	if (!tk->prog->nr_vals)
		return ktp_run_prog(tk, counters, NULL, rec, NULL, NULL);
	/* the level the program puts its values at (ktp_event_level()) */
	word = ktp_event_level();
	old = READ_ONCE(*word);
	WRITE_ONCE(*word, level);
	ret = ktp_run_prog(tk, counters, NULL, rec, NULL, NULL);
	/* what the hit this one interrupted, if any, had set */
	WRITE_ONCE(*word, old);
	*edata = ktp_level_vals(level);
	return ret;
}

/* One hit of an 'e' probe: @rec is the record of its event. */
static void ktp_trigger_func(struct event_trigger_data *data,
			     struct trace_buffer *buffer, void *rec,
			     struct ring_buffer_event *rbe)
{
	struct ktp_trigger *trigger = container_of(data, struct ktp_trigger, data);
	struct trace_ktp *tk = trigger->tk;
	struct ktp_counters *counters = this_cpu_ptr(tk->counters);
	void *edata = NULL;
	int level;

	/*
	 * No record: a hit that read the event file's flags while the
	 * trigger was being enabled, before TRIGGER_COND was set. The
	 * probe is not enabled yet for it, as an eprobe is not.
	 */
	if (unlikely(!rec))
		return;
	level = ktp_enter(counters);
	if (level < 0)
		return;
	if (tk->prog && !ktp_trigger_run(tk, counters, rec, level, &edata)) {
		ktp_leave(counters);
		return;
	}
	ktp_exit(counters, ktp_trigger_record(trigger, rec, edata));
}

NOKPROBE_SYMBOL(ktp_trigger_func);

static int ktp_trigger_print(struct seq_file *m, struct event_trigger_data *data)
{
	/* A probe, not a trigger the user set: the triggers file omits it */
	return 0;
}

/**
 * ktp_trigger_free - free an "e" probe's trigger
 * @data: the trigger's data
 *
 * Also called when the trace instance of the trigger goes away.
 */
void ktp_trigger_free(struct event_trigger_data *data)
{
	tracepoint_synchronize_unregister();
	kfree(container_of(data, struct ktp_trigger, data));
}

/* Not registered: the triggers file can neither add nor remove it. */
struct event_command ktp_trigger_cmd = {
	.name		= "ktp",
	.trigger_type	= ETT_EVENT_EPROBE,
	.flags		= EVENT_CMD_FL_NEEDS_REC,
	.trigger	= ktp_trigger_func,
	.print		= ktp_trigger_print,
	.free		= ktp_trigger_free,
};
