// SPDX-License-Identifier: GPL-2.0
/*
 * KTP: what a probe does when it is hit. It counts the hit, runs its
 * program (the condition first, before anything is reserved), and
 * writes its record to each trace instance it is enabled in and to
 * perf. A "p" or "r" probe runs from its kprobe; a probe of another
 * kind, from its kind's handler, which calls ktp_record_all_event() or
 * ktp_record_event().
 */
#include <linux/bpf.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/rculist.h>
#include <linux/trace_events.h>
#include <linux/tracepoint.h>

#include "../trace_probe.h"
#include "ktp_prog.h"
/* a user-space probe's handler pages in what its record's reads fault on */
#define probe_user_read_faulted(addr, size, string) \
	ktp_note_user_fault(addr, size, string)
#include "../trace_probe_kernel.h"
#include "../trace_probe_tmpl.h"
#include "ktp_probe.h"
#include "ktp_hit.h"

/*
 * The values a hit's program fetches, from the program to the record,
 * are "entry data": FETCH_OP_EDATA reads them. An 'r' probe keeps them
 * in its kretprobe instance, after the $argN it saved; a 'p' probe's
 * stay where its program put them, in this CPU's ktp_area (kprobes do
 * not nest); other kinds' are in ktp_area too, one level of values for
 * each level of handlers nested on a CPU (ktp_level_vals()).
 */
DEFINE_PER_CPU(int, ktp_handler_depth);
DEFINE_PER_CPU(unsigned long, ktp_user_file_base);

/*
 * Fetch from the probed context: @rec is the pt_regs of a 'p' or 'r'
 * probe, the event record of an 'e' probe. A 't' probe's $argN are entry
 * data.
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
	/* a user-space probe's @+OFFS: where OFFS of its file is mapped */
	if (code->op == FETCH_OP_FOFFS)
		return process_fetch_insn_bottom(code + 1,
				this_cpu_read(ktp_user_file_base) +
				code->immediate, dest, base);
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
/*
 * The same record for perf; @regs is NULL for a 't' or 'e' probe, and
 * for a 'p' probe's hit on the BPF trampoline.
 */
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
	entry = perf_trace_buf_alloc(size, regs ? NULL : &caller_regs, &rctx);
	if (!entry)
		return false;
	/* no registers: a 't' or 'e' hit, or one on the BPF trampoline */
	if (!regs) {
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

/**
 * ktp_record_all_event - write the record of a hit of a "t" or "e" probe
 * @tk: the probe
 * @flags: where: TP_FLAG_TRACE for each trace instance the probe is
 *	   enabled in, TP_FLAG_PROFILE for perf
 * @rec: what the fetch instructions read (an event's record), or NULL
 * @edata: the values the probe's program fetched
 *
 * Return: whether a buffer took the record.
 */
bool ktp_record_all_event(struct trace_ktp *tk, unsigned int flags,
			  void *rec, void *edata)
{
	return ktp_record_all(tk, false, flags, rec, NULL, NULL, edata);
}

NOKPROBE_SYMBOL(ktp_record_all_event);

/**
 * ktp_record_all_tramp - write the record of a hit of a "p" probe on the
 *	BPF trampoline
 * @tk: the probe
 * @flags: where, as ktp_record_all_event() says
 * @edata: the values the probe's program fetched, and the arguments it
 *	   copied for the fetch instructions
 *
 * The record is a kprobe's, with the function's address; perf takes the
 * caller's registers, as for a tracepoint.
 *
 * Return: whether a buffer took the record.
 */
bool ktp_record_all_tramp(struct trace_ktp *tk, unsigned int flags,
			  void *edata)
{
	return ktp_record_all(tk, true, flags, NULL, NULL, NULL, edata);
}

NOKPROBE_SYMBOL(ktp_record_all_tramp);

/**
 * ktp_prefetch_args - read what a hit's record would read, keeping nothing
 * @tk: the probe
 * @rec: what the fetch instructions read
 * @edata: the values the probe's program fetched
 *
 * A user-space probe's handler calls it before the record, with
 * ktp_user_fault armed, to find a user read that faults while it can
 * still page it in and run the hit again. A string is read for its
 * length, as the record's size is; a value of more than a few words is
 * not read.
 */
void ktp_prefetch_args(struct trace_ktp *tk, void *rec, void *edata)
{
	u64 buf[8];
	struct probe_arg *arg;
	int i;

	for (i = 0; i < tk->tp.nr_args; i++) {
		arg = tk->tp.args + i;
		if (arg->dynamic)
			process_fetch_insn(arg->code, rec, edata, NULL, NULL);
		else if (arg->type->size * max_t(u32, arg->count, 1) <= sizeof(buf))
			process_fetch_insn(arg->code, rec, edata, buf, buf);
	}
}

NOKPROBE_SYMBOL(ktp_prefetch_args);

/**
 * ktp_record_event - write the record of a hit of a "t" or "e" probe
 * @tk: the probe
 * @rec: what the fetch instructions read (an event's record), or NULL
 * @edata: the values the probe's program fetched
 * @file: the trace instance's event file of the probe, or NULL for perf
 *
 * Return: whether the buffer took the record.
 */
bool ktp_record_event(struct trace_ktp *tk, void *rec, void *edata,
		      struct trace_event_file *file)
{
	if (file)
		return ktp_record(tk, false, rec, NULL, NULL, edata, file);
	return ktp_perf_record(tk, false, rec, NULL, NULL, edata);
}

NOKPROBE_SYMBOL(ktp_record_event);
