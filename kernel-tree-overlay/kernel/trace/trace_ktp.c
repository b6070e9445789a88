// SPDX-License-Identifier: GPL-2.0
/*
 * KTP: kernel probes whose conditions and fetches are compiled to
 * native code.
 *
 * The tracefs control file ktp_probes creates kprobe ("p"), kretprobe
 * ("r"), tracepoint ("t") and trace event ("e") probes. Each probe is a
 * trace event, in the "ktp" group unless the definition names another,
 * and a dynamic event. Fetch arguments are parsed and fetched by
 * trace_probe.c, as for kprobe_events. A "t" probe's program runs on its
 * tracepoint as a BPF raw tracepoint program does, on the tracepoint's
 * arguments. An "e" probe hooks its event as event probes do: with a
 * trigger that sees the event's record.
 */
#define pr_fmt(fmt)	"trace_ktp: " fmt

#include <linux/bpf.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <asm/local.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/rculist.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/trace_events.h>
#include <linux/tracefs.h>
#include <linux/tracepoint.h>

#include "trace_dynevent.h"
#include "trace_probe.h"
#include "trace_probe_kernel.h"
#include "trace_probe_tmpl.h"
#include "trace_ktp.h"
#include "ktp_expr.h"

#define KTP_EVENT_SYSTEM	"ktp"
#define KTP_MAXACTIVE_MAX	4096	/* as kprobe_events */
#define KTP_DYN_PREFIX		"ktp:"	/* a KTP probe in dynamic_events */

/* What happened to the hits of one probe on one CPU, see ktp_profile. */
struct ktp_counters {
	local_t		hits;
	local_t		recorded;
	local_t		cond_false;
	local_t		missed;		/* KTP's own recursion guard */
	local_t		dropped;	/* no buffer took the record */
	local_t		faults;		/* reads that faulted, read as 0 */
};

struct trace_ktp {
	struct dyn_event	devent;
	struct kretprobe	rp;		/* rp.kp alone for a 'p' probe */
	const char		*symbol;	/* NULL when probing an address */
	struct trace_event_call	*event;		/* an 'e' probe's event, held */
	struct bpf_raw_event_map *btp;		/* a 't' probe's tracepoint */
	struct bpf_raw_tp_link	tp_link;	/* runs prog->prog on it */
	unsigned int		maxactive;	/* as defined; 0: kprobes picks */
	struct ktp_counters __percpu *counters;
	struct ktp_prog		*prog;		/* condition, fetch expressions */
	char			*cond;		/* the condition, as shown */
	char			**exprs;	/* fetch expressions, as shown */
	unsigned int		entry_off;	/* 'r': saved $argN in ri->data */
	unsigned int		vals_off;	/* 'r': expression values there */
	struct trace_probe	tp;		/* last: args[] follows */
};

/*
 * An 'e' probe on its event in one trace instance, or in the top one for
 * perf (@file is NULL then). Not a user trigger: the triggers file skips
 * it.
 */
struct ktp_trigger {
	struct event_trigger_data	data;
	struct trace_ktp		*tk;
	struct trace_event_file		*file;
};

/* Nonzero while this CPU runs a KTP handler: a nested hit is missed. */
static DEFINE_PER_CPU(int, ktp_handler_depth);

/*
 * The values of a hit's fetch expressions, from the program to the
 * record, are "entry data": FETCH_OP_EDATA reads them. An 'r' probe
 * keeps them in its kretprobe instance, after the $argN it saved; 'p',
 * 't' and 'e' probes here, one hit at a time on a CPU since handlers do
 * not nest. A 't' probe's $argN come first.
 */
struct ktp_vals {
	u64		v[MAX_BPF_FUNC_ARGS + KTP_EXPR_MAX_FETCHES];
	unsigned int	flags;	/* what ktp_bpf_tp_enter() saw, for _record() */
};

static DEFINE_PER_CPU(struct ktp_vals, ktp_vals);

static int ktp_dyn_create(const char *raw_command);
static int ktp_dyn_show(struct seq_file *m, struct dyn_event *ev);
static int ktp_dyn_release(struct dyn_event *ev);
static bool ktp_dyn_is_busy(struct dyn_event *ev);
static bool ktp_dyn_match(const char *system, const char *event,
			  int argc, const char **argv, struct dyn_event *ev);

static struct dyn_event_operations ktp_dyn_ops = {
	.create = ktp_dyn_create,
	.show = ktp_dyn_show,
	.is_busy = ktp_dyn_is_busy,
	.free = ktp_dyn_release,
	.match = ktp_dyn_match,
};

static struct trace_ktp *to_trace_ktp(struct dyn_event *ev)
{
	return container_of(ev, struct trace_ktp, devent);
}

static nokprobe_inline bool ktp_is_return(struct trace_ktp *tk)
{
	return tk->rp.handler;
}

static nokprobe_inline bool ktp_is_event(struct trace_ktp *tk)
{
	return tk->event;
}

static nokprobe_inline bool ktp_is_tpoint(struct trace_ktp *tk)
{
	return tk->btp;
}

/* A 'p' or 'r' probe, whose record starts with where it hit */
static nokprobe_inline bool ktp_is_kprobe(struct trace_ktp *tk)
{
	return !ktp_is_event(tk) && !ktp_is_tpoint(tk);
}

/*
 * Fetch from the probed context, trace_probe_tmpl.h calls this: @rec is
 * the pt_regs of a 'p' or 'r' probe, the event record of an 'e' probe.
 * A 't' probe's $argN are entry data (see ktp_tpoint_fetch_arg()).
 */
static int
process_fetch_insn(struct fetch_insn *code, void *rec, void *edata,
		   void *dest, void *base)
{
	/* an "e" probe's $FIELD: a field of its event's record */
	if (code->op == FETCH_OP_TP_ARG)
		return process_fetch_insn_bottom(code + 1,
						 get_event_field(code, rec),
						 dest, base);
	return process_regs_fetch_insn(code, rec, edata, dest, base);
}

NOKPROBE_SYMBOL(process_fetch_insn);

static nokprobe_inline int ktp_head_size(struct trace_ktp *tk)
{
	if (!ktp_is_kprobe(tk))
		return sizeof(struct eprobe_trace_entry_head);
	if (ktp_is_return(tk))
		return sizeof(struct kretprobe_trace_entry_head);
	return sizeof(struct kprobe_trace_entry_head);
}

/* The fields before the fetched ones: where the probe hit. */
static nokprobe_inline void
ktp_fill_head(struct trace_ktp *tk, struct trace_entry *ent,
	      struct kretprobe_instance *ri)
{
	struct kretprobe_trace_entry_head *ret_head;
	struct kprobe_trace_entry_head *head;

	if (!ktp_is_kprobe(tk))
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
 * stack trace trigger may use. Returns whether the buffer took it.
 */
static nokprobe_inline bool
ktp_record(struct trace_ktp *tk, void *ctx, struct pt_regs *regs,
	   struct kretprobe_instance *ri, void *edata,
	   struct trace_event_file *file)
{
	int hsize = ktp_head_size(tk);
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
	ktp_fill_head(tk, entry, ri);
	store_trace_args((void *)entry + hsize, &tk->tp, ctx, edata, hsize,
			 dsize);
	trace_event_buffer_commit(&fbuffer);
	return true;
}

#ifdef CONFIG_PERF_EVENTS
/* The same record for perf; @regs is NULL for a 't' or 'e' probe. */
static nokprobe_inline bool
ktp_perf_record(struct trace_ktp *tk, void *ctx, struct pt_regs *regs,
		struct kretprobe_instance *ri, void *edata)
{
	struct trace_event_call *call = trace_probe_event_call(&tk->tp);
	int hsize = ktp_head_size(tk);
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
	if (!regs) {
		perf_fetch_caller_regs(caller_regs);
		regs = caller_regs;
	}

	memset((void *)entry + hsize, 0, size - hsize);
	ktp_fill_head(tk, entry, ri);
	store_trace_args((void *)entry + hsize, &tk->tp, ctx, edata, hsize,
			 dsize);
	perf_trace_buf_submit(entry, size, rctx, call->event.type, 1, regs,
			      head, NULL);
	return true;
}
#else
static nokprobe_inline bool
ktp_perf_record(struct trace_ktp *tk, void *ctx, struct pt_regs *regs,
		struct kretprobe_instance *ri, void *edata)
{
	return false;
}
#endif

/* Counts a hit; false if this CPU already runs a KTP handler. */
static nokprobe_inline bool ktp_enter(struct ktp_counters *counters)
{
	local_inc(&counters->hits);
	if (likely(this_cpu_inc_return(ktp_handler_depth) == 1))
		return true;
	local_inc(&counters->missed);
	this_cpu_dec(ktp_handler_depth);
	return false;
}

static nokprobe_inline void ktp_exit(struct ktp_counters *counters,
				     bool recorded)
{
	local_inc(recorded ? &counters->recorded : &counters->dropped);
	this_cpu_dec(ktp_handler_depth);
}

/*
 * Run the probe's program: false if the condition is. Nothing is
 * reserved before it, so a false condition costs the program alone.
 */
static nokprobe_inline bool
ktp_run_prog(struct trace_ktp *tk, struct ktp_counters *counters,
	     struct pt_regs *regs, void *rec, void *edata)
{
	struct ktp_run_ctx ctx = {
		.regs = regs,
		.rec = rec,
		.entry = edata + tk->entry_off,
		.vals = edata + tk->vals_off,
	};
	bool ret;

	ret = ktp_prog_run(tk->prog, &ctx);
	if (unlikely(ctx.faults))
		local_add(ctx.faults, &counters->faults);
	if (!ret) {
		local_inc(&counters->cond_false);
		this_cpu_dec(ktp_handler_depth);
	}
	return ret;
}

/* Write a hit's record to each buffer and to perf, as @flags say. */
static nokprobe_inline bool
ktp_record_all(struct trace_ktp *tk, unsigned int flags, void *ctx,
	       struct pt_regs *regs, struct kretprobe_instance *ri,
	       void *edata)
{
	struct event_file_link *link;
	bool recorded = false;

	if (flags & TP_FLAG_TRACE) {
		trace_probe_for_each_link_rcu(link, &tk->tp)
			recorded |= ktp_record(tk, ctx, regs, ri, edata,
					       link->file);
	}
	if (flags & TP_FLAG_PROFILE)
		recorded |= ktp_perf_record(tk, ctx, regs, ri, edata);
	return recorded;
}

/* One hit of a 'p' or 'r' probe: @ri is NULL on function entry. */
static nokprobe_inline void
ktp_hit(struct trace_ktp *tk, struct pt_regs *regs,
	struct kretprobe_instance *ri)
{
	struct ktp_counters *counters = this_cpu_ptr(tk->counters);
	void *edata = ri ? (void *)ri->data : this_cpu_ptr(&ktp_vals)->v;
	unsigned int flags;

	/*
	 * Between the disabling of the event and of its kprobe (or a return
	 * from before that), the probe is off: not its hit.
	 */
	flags = trace_probe_load_flag(&tk->tp);
	if (!(flags & (TP_FLAG_TRACE | TP_FLAG_PROFILE)))
		return;
	if (!ktp_enter(counters))
		return;
	if (tk->prog && !ktp_run_prog(tk, counters, regs, NULL, edata))
		return;
	ktp_exit(counters, ktp_record_all(tk, flags, regs, regs, ri, edata));
}

static int ktp_kprobe_handler(struct kprobe *kp, struct pt_regs *regs)
{
	ktp_hit(container_of(kp, struct trace_ktp, rp.kp), regs, NULL);
	return 0;
}

NOKPROBE_SYMBOL(ktp_kprobe_handler);

static int ktp_kretprobe_handler(struct kretprobe_instance *ri,
				 struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);

	/* NULL when the probe is being unregistered on another CPU */
	if (likely(rp))
		ktp_hit(container_of(rp, struct trace_ktp, rp), regs, ri);
	return 0;
}

NOKPROBE_SYMBOL(ktp_kretprobe_handler);

static int ktp_kretprobe_entry_handler(struct kretprobe_instance *ri,
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
 * A 't' probe's program calls these three (see ktp_compiler_finish()).
 * It runs as a BPF raw tracepoint program, under the link whose cookie
 * is the probe.
 */
static nokprobe_inline struct trace_ktp *ktp_tpoint_current(void)
{
	struct bpf_trace_run_ctx *run_ctx;

	run_ctx = container_of(current->bpf_ctx, struct bpf_trace_run_ctx,
			       run_ctx);
	return (struct trace_ktp *)(unsigned long)run_ctx->bpf_cookie;
}

/*
 * The condition is true: count the hit and give the program the buffer
 * for its values, after the tracepoint's arguments that fetch arguments
 * read. 0: no hit to record (missed, or the probe is being disabled).
 */
BPF_CALL_1(ktp_bpf_tp_enter, struct ktp_run_ctx *, ctx)
{
	struct trace_ktp *tk = ktp_tpoint_current();
	struct ktp_counters *counters = this_cpu_ptr(tk->counters);
	struct ktp_vals *vals = this_cpu_ptr(&ktp_vals);
	unsigned int flags = trace_probe_load_flag(&tk->tp);
	unsigned int nr_args = tk->btp->num_args;
	u64 *edata = vals->v;

	if (!(flags & (TP_FLAG_TRACE | TP_FLAG_PROFILE)))
		return 0;
	if (!ktp_enter(counters)) {
		if (unlikely(ctx->faults))
			local_add(ctx->faults, &counters->faults);
		return 0;
	}
	/*
	 * The record goes where the probe was enabled at entry: disabling
	 * waits for this hit before it removes the file (see ktp_arm()).
	 */
	vals->flags = flags;
	memcpy(edata, ctx->entry, nr_args * sizeof(u64));
	ctx->vals = edata + nr_args;
	return 1;
}

NOKPROBE_SYMBOL(ktp_bpf_tp_enter);

/* Record the hit ktp_bpf_tp_enter() entered. */
BPF_CALL_1(ktp_bpf_tp_record, struct ktp_run_ctx *, ctx)
{
	struct trace_ktp *tk = ktp_tpoint_current();
	struct ktp_counters *counters = this_cpu_ptr(tk->counters);
	struct ktp_vals *vals = this_cpu_ptr(&ktp_vals);

	if (unlikely(ctx->faults))
		local_add(ctx->faults, &counters->faults);
	ktp_exit(counters, ktp_record_all(tk, vals->flags, ctx->entry, NULL,
					  NULL, vals->v));
	return 0;
}

NOKPROBE_SYMBOL(ktp_bpf_tp_record);

/*
 * The condition is false: count it, and nothing else happens. The program
 * passes the probe's counters; ktp_arm() waits for a false hit in flight
 * before disabling returns, so this one counts without checking the flags.
 */
BPF_CALL_2(ktp_bpf_tp_false, struct ktp_run_ctx *, ctx,
	   struct ktp_counters __percpu *, pcpu)
{
	struct ktp_counters *counters = this_cpu_ptr(pcpu);

	local_inc(&counters->hits);
	local_inc(&counters->cond_false);
	if (unlikely(ctx->faults))
		local_add(ctx->faults, &counters->faults);
	return 0;
}

NOKPROBE_SYMBOL(ktp_bpf_tp_false);

/* One hit of an 'e' probe: @rec is the record of its event. */
static void ktp_trigger_func(struct event_trigger_data *data,
			     struct trace_buffer *buffer, void *rec,
			     struct ring_buffer_event *rbe)
{
	struct ktp_trigger *trigger = container_of(data, struct ktp_trigger, data);
	struct trace_ktp *tk = trigger->tk;
	struct ktp_counters *counters = this_cpu_ptr(tk->counters);
	void *edata = this_cpu_ptr(&ktp_vals)->v;
	bool recorded;

	/* Never: the trigger is paused until the event passes records */
	if (WARN_ON_ONCE(!rec))
		return;
	if (!ktp_enter(counters))
		return;
	if (tk->prog && !ktp_run_prog(tk, counters, NULL, rec, edata))
		return;
	if (trigger->file)
		recorded = ktp_record(tk, rec, NULL, NULL, edata, trigger->file);
	else
		recorded = ktp_perf_record(tk, rec, NULL, NULL, edata);
	ktp_exit(counters, recorded);
}

NOKPROBE_SYMBOL(ktp_trigger_func);

static int ktp_trigger_print(struct seq_file *m, struct event_trigger_data *data)
{
	/* A probe, not a trigger the user set: the triggers file omits it */
	return 0;
}

/* Also called when the trace instance of the trigger goes away. */
static void ktp_trigger_free(struct event_trigger_data *data)
{
	tracepoint_synchronize_unregister();
	kfree(container_of(data, struct ktp_trigger, data));
}

/* Not registered: the triggers file can neither add nor remove it. */
static struct event_command ktp_trigger_cmd = {
	.name		= "ktp",
	.trigger_type	= ETT_EVENT_EPROBE,
	.flags		= EVENT_CMD_FL_NEEDS_REC,
	.trigger	= ktp_trigger_func,
	.print		= ktp_trigger_print,
	.free		= ktp_trigger_free,
};

static enum print_line_t
ktp_print_event(struct trace_iterator *iter, int flags,
		struct trace_event *event)
{
	struct eprobe_trace_entry_head *field;
	struct trace_seq *s = &iter->seq;
	struct trace_probe *tp;
	struct trace_ktp *tk;

	field = (struct eprobe_trace_entry_head *)iter->ent;
	tp = trace_probe_primary_from_call(container_of(event, struct trace_event_call, event));
	if (WARN_ON_ONCE(!tp))
		goto out;

	tk = container_of(tp, struct trace_ktp, tp);
	if (ktp_is_tpoint(tk))
		trace_seq_printf(s, "%s: (%s)", trace_probe_name(tp),
				 tk->btp->tp->name);
	else
		trace_seq_printf(s, "%s: (%s:%s)", trace_probe_name(tp),
				 tk->event->class->system,
				 trace_event_name(tk->event));
	if (trace_probe_print_args(s, tp->args, tp->nr_args,
				   (u8 *)&field[1], field) < 0)
		goto out;
	trace_seq_putc(s, '\n');
out:
	return trace_handle_return(s);
}

static struct trace_event_functions ktp_entry_funcs = {
	.trace		= trace_probe_print_kprobe,
};

static struct trace_event_functions ktp_return_funcs = {
	.trace		= trace_probe_print_kretprobe,
};

static struct trace_event_functions ktp_event_funcs = {
	.trace		= ktp_print_event,
};

static struct trace_event_fields ktp_entry_fields_array[] = {
	{ .type = TRACE_FUNCTION_TYPE,
	  .define_fields = trace_probe_define_kprobe_fields },
	{}
};

static struct trace_event_fields ktp_return_fields_array[] = {
	{ .type = TRACE_FUNCTION_TYPE,
	  .define_fields = trace_probe_define_kretprobe_fields },
	{}
};

static struct trace_event_fields ktp_event_fields_array[] = {
	{ .type = TRACE_FUNCTION_TYPE,
	  .define_fields = trace_probe_define_eprobe_fields },
	{}
};

/*
 * The kprobe is registered before its event can be enabled; a 't' probe
 * is on its tracepoint only while its event is enabled.
 */
static int ktp_arm(struct trace_ktp *tk, bool on)
{
	int ret;

	if (ktp_is_tpoint(tk)) {
		if (on)
			return bpf_probe_register(tk->btp, &tk->tp_link);
		ret = bpf_probe_unregister(tk->btp, &tk->tp_link);
		/* no hit counts once disabling returns */
		tracepoint_synchronize_unregister();
		return ret;
	}
	if (ktp_is_return(tk))
		return on ? enable_kretprobe(&tk->rp) : disable_kretprobe(&tk->rp);
	return on ? enable_kprobe(&tk->rp.kp) : disable_kprobe(&tk->rp.kp);
}

/*
 * Hook an 'e' probe to its event in @tr, for @file or, when @file is NULL,
 * for perf. The event hands its record to the trigger, which writes the
 * probe's own.
 */
static int ktp_attach_event(struct trace_ktp *tk, struct trace_array *tr,
			    struct trace_event_file *file)
{
	struct trace_event_file *efile;
	struct ktp_trigger *trigger;
	int ret;

	efile = find_event_file(tr, tk->event->class->system,
				trace_event_name(tk->event));
	if (!efile)
		return -ENOENT;

	trigger = kzalloc(sizeof(*trigger), GFP_KERNEL);
	if (!trigger)
		return -ENOMEM;
	trigger->data.flags = EVENT_TRIGGER_FL_PROBE;
	trigger->data.count = -1;
	trigger->data.cmd_ops = &ktp_trigger_cmd;
	/* Until update_cond_flag() makes the event pass its record */
	trigger->data.paused = true;
	INIT_LIST_HEAD(&trigger->data.list);
	trigger->tk = tk;
	trigger->file = file;

	list_add_tail_rcu(&trigger->data.list, &efile->triggers);
	ret = trace_event_trigger_enable_disable(efile, 1);
	if (ret < 0) {
		list_del_rcu(&trigger->data.list);
		ktp_trigger_free(&trigger->data);
		return ret;
	}
	update_cond_flag(efile);
	WRITE_ONCE(trigger->data.paused, false);
	return 0;
}

static void ktp_detach_event(struct trace_ktp *tk, struct trace_array *tr,
			     struct trace_event_file *file)
{
	struct event_trigger_data *data;
	struct trace_event_file *efile;
	struct ktp_trigger *trigger;

	efile = find_event_file(tr, tk->event->class->system,
				trace_event_name(tk->event));
	if (!efile)
		return;

	list_for_each_entry(data, &efile->triggers, list) {
		if (data->cmd_ops != &ktp_trigger_cmd)
			continue;
		trigger = container_of(data, struct ktp_trigger, data);
		if (trigger->tk != tk || trigger->file != file)
			continue;
		list_del_rcu(&data->list);
		trace_event_trigger_enable_disable(efile, 0);
		update_cond_flag(efile);
		ktp_trigger_free(data);
		return;
	}
	/* Not found: removing the instance has already freed it */
}

/* @file is NULL for perf. */
static int ktp_enable(struct trace_event_call *call,
		      struct trace_event_file *file)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);
	struct trace_ktp *tk;
	bool enabled;
	int ret;

	if (WARN_ON_ONCE(!tp))
		return -ENODEV;
	tk = container_of(tp, struct trace_ktp, tp);
	enabled = trace_probe_is_enabled(tp);

	if (file) {
		ret = trace_probe_add_file(tp, file);
		if (ret)
			return ret;
	} else {
		trace_probe_set_flag(tp, TP_FLAG_PROFILE);
	}

	if (ktp_is_event(tk)) {
		ret = ktp_attach_event(tk, file ? file->tr : top_trace_array(),
				       file);
		if (ret)
			goto undo;
	} else if (!enabled) {
		/* as enable_trace_kprobe(): the writer sees arming fail */
		ret = ktp_arm(tk, true);
		if (ret)
			goto undo;
	}
	return 0;
undo:
	if (file)
		trace_probe_remove_file(tp, file);
	else
		trace_probe_clear_flag(tp, TP_FLAG_PROFILE);
	return ret;
}

static int ktp_disable(struct trace_event_call *call,
		       struct trace_event_file *file)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);
	struct trace_ktp *tk;

	if (WARN_ON_ONCE(!tp))
		return -ENODEV;
	tk = container_of(tp, struct trace_ktp, tp);

	if (file) {
		if (!trace_probe_get_file_link(tp, file))
			return -ENOENT;
		if (trace_probe_has_single_file(tp))
			trace_probe_clear_flag(tp, TP_FLAG_TRACE);
	} else {
		trace_probe_clear_flag(tp, TP_FLAG_PROFILE);
	}

	if (ktp_is_event(tk))
		ktp_detach_event(tk, file ? file->tr : top_trace_array(), file);
	else if (!trace_probe_is_enabled(tp))
		ktp_arm(tk, false);

	/*
	 * Waits until no handler can see the file; for perf,
	 * perf_trace_event_unreg() waits.
	 */
	if (file)
		trace_probe_remove_file(tp, file);
	return 0;
}

static int ktp_event_reg(struct trace_event_call *event,
			 enum trace_reg type, void *data)
{
	switch (type) {
	case TRACE_REG_REGISTER:
		return ktp_enable(event, data);
	case TRACE_REG_UNREGISTER:
		return ktp_disable(event, data);
#ifdef CONFIG_PERF_EVENTS
	case TRACE_REG_PERF_REGISTER:
		return ktp_enable(event, NULL);
	case TRACE_REG_PERF_UNREGISTER:
		return ktp_disable(event, NULL);
#endif
	default:
		/* perf's open, close, add and del need nothing of KTP */
		return 0;
	}
}

static void ktp_free(struct trace_ktp *tk)
{
	int i;

	if (!tk)
		return;
	if (tk->exprs) {
		for (i = 0; i < tk->tp.nr_args; i++)
			kfree(tk->exprs[i]);
		kfree(tk->exprs);
	}
	trace_probe_cleanup(&tk->tp);
	ktp_prog_free(tk->prog);
	kfree(tk->cond);
	kfree(tk->symbol);
	if (tk->event)
		trace_event_put_ref(tk->event);
	if (tk->btp)
		bpf_put_raw_tracepoint(tk->btp);
	free_percpu(tk->counters);
	kfree(tk);
}

/* The probe, with its kprobe or event yet to be filled in. */
static struct trace_ktp *ktp_alloc(const char *group, const char *event,
				   int nargs)
{
	struct trace_ktp *tk;
	int ret = -ENOMEM;

	tk = kzalloc(struct_size(tk, tp.args, nargs), GFP_KERNEL);
	if (!tk)
		return ERR_PTR(ret);

	tk->counters = alloc_percpu(struct ktp_counters);
	if (!tk->counters)
		goto error;

	ret = trace_probe_init(&tk->tp, event, group, false, nargs);
	if (ret < 0)
		goto error;

	dyn_event_init(&tk->devent, &ktp_dyn_ops);
	return tk;
error:
	ktp_free(tk);
	return ERR_PTR(ret);
}

static int ktp_set_kprobe(struct trace_ktp *tk, void *addr,
			  const char *symbol, unsigned int offset,
			  unsigned int maxactive, bool is_return)
{
	if (symbol) {
		tk->symbol = kstrdup(symbol, GFP_KERNEL);
		if (!tk->symbol)
			return -ENOMEM;
		tk->rp.kp.symbol_name = tk->symbol;
		tk->rp.kp.offset = offset;
	} else {
		tk->rp.kp.addr = addr;
	}

	if (is_return)
		tk->rp.handler = ktp_kretprobe_handler;
	else
		tk->rp.kp.pre_handler = ktp_kprobe_handler;
	tk->maxactive = maxactive;
	tk->rp.maxactive = maxactive;
	return 0;
}

static int ktp_register_kprobe(struct trace_ktp *tk)
{
	int ret;

	tk->rp.kp.flags |= KPROBE_FLAG_DISABLED;
	if (ktp_is_return(tk))
		ret = register_kretprobe(&tk->rp);
	else
		ret = register_kprobe(&tk->rp.kp);
	if (ret)
		trace_probe_log_register_err(ret);
	return ret;
}

/*
 * Register the trace event and, for 'p' and 'r', the kprobe (disarmed),
 * under event_mutex. A 't' probe's tracepoint waits for its enabling.
 */
static int ktp_register(struct trace_ktp *tk)
{
	struct trace_event_call *call = trace_probe_event_call(&tk->tp);
	int i, ret;

	guard(mutex)(&event_mutex);
	for (i = 0; i < tk->tp.nr_args; i++) {
		ret = traceprobe_update_arg(&tk->tp.args[i]);
		if (ret)
			return ret;
	}

	if (!ktp_is_kprobe(tk)) {
		call->event.funcs = &ktp_event_funcs;
		call->class->fields_array = ktp_event_fields_array;
	} else if (ktp_is_return(tk)) {
		call->event.funcs = &ktp_return_funcs;
		call->class->fields_array = ktp_return_fields_array;
	} else {
		call->event.funcs = &ktp_entry_funcs;
		call->class->fields_array = ktp_entry_fields_array;
	}
	call->class->reg = ktp_event_reg;

	/* Refuses a GRP/EVENT any event already has, KTP or not */
	ret = trace_probe_register_event_call(&tk->tp);
	if (ret) {
		trace_probe_log_set_index(0);
		if (ret == -EEXIST)
			trace_probe_log_err(0, EVENT_EXIST);
		else if (ret != -ENOMEM)
			trace_probe_log_err(0, FAIL_REG_PROBE);
		return ret;
	}

	if (ktp_is_kprobe(tk)) {
		ret = ktp_register_kprobe(tk);
		if (ret) {
			trace_probe_unregister_event_call(&tk->tp);
			return ret;
		}
	}

	dyn_event_add(&tk->devent, call);
	return 0;
}

static int ktp_unregister(struct trace_ktp *tk)
{
	struct trace_event_call *call = trace_probe_event_call(&tk->tp);

	if (trace_probe_is_enabled(&tk->tp) || trace_event_dyn_busy(call))
		return -EBUSY;
	/* Fails while ftrace or perf uses the event */
	if (trace_probe_unregister_event_call(&tk->tp))
		return -EBUSY;

	if (ktp_is_tpoint(tk) || ktp_is_event(tk))
		; /* disabled: off its tracepoint, no trigger left */
	else if (ktp_is_return(tk))
		unregister_kretprobe(&tk->rp);
	else
		unregister_kprobe(&tk->rp.kp);
	dyn_event_remove(&tk->devent);
	trace_probe_unlink(&tk->tp);
	return 0;
}

/*
 * The event an 'e' probe attaches to, with a reference held. Events of
 * probes, KTP's included, are refused: probes on probes do not nest.
 */
static struct trace_event_call *ktp_get_event(const char *system,
					      const char *name)
{
	struct trace_event_call *call;
	const char *call_name;

	guard(mutex)(&event_mutex);
	list_for_each_entry(call, &ftrace_events, list) {
		call_name = trace_event_name(call);
		if (!call->class->system || strcmp(system, call->class->system) ||
		    !call_name || strcmp(name, call_name))
			continue;
		if (call->flags & (TRACE_EVENT_FL_IGNORE_ENABLE |
				   TRACE_EVENT_FL_UKPROBE |
				   TRACE_EVENT_FL_EPROBE |
				   TRACE_EVENT_FL_FPROBE) ||
		    call->class->reg == ktp_event_reg)
			return ERR_PTR(-EINVAL);
		if (!trace_event_try_get_ref(call))
			break;
		return call;
	}
	return ERR_PTR(-ENOENT);
}

/* SYSTEM.EVENT or SYSTEM/EVENT, as event probes take it */
static int ktp_parse_event_target(const char *arg,
				  struct trace_event_call **event)
{
	char system[MAX_EVENT_NAME_LEN], *name;
	struct trace_event_call *call;
	size_t len;

	len = strcspn(arg, "./");
	if (!len || !arg[len] || !arg[len + 1] || len >= sizeof(system)) {
		trace_probe_log_err(0, NO_EVENT_INFO);
		return -EINVAL;
	}
	memcpy(system, arg, len);
	system[len] = '\0';
	name = (char *)arg + len + 1;

	call = ktp_get_event(system, name);
	if (IS_ERR(call)) {
		if (PTR_ERR(call) == -EINVAL)
			trace_probe_log_err(0, KTP_PROBE_ON_PROBE);
		else
			trace_probe_log_err(0, BAD_ATTACH_EVENT);
		return PTR_ERR(call);
	}
	*event = call;
	return 0;
}

/* The type that records @field whole, or NULL if none does. */
static const char *ktp_field_type(struct ftrace_event_field *field,
				  char *buf, size_t size)
{
	if (is_string_field(field))
		return "string";
	if (!ktp_field_is_int(field))
		return NULL;
	snprintf(buf, size, "%c%d",
		 strchr(field->type, '*') ? 'x' : field->is_signed ? 's' : 'u',
		 field->size * BITS_PER_BYTE);
	return buf;
}

/* The tracepoint a 't' probe runs on, by its name, with a reference. */
static int ktp_parse_tpoint_target(const char *arg,
				   struct bpf_raw_event_map **btp)
{
	if (strpbrk(arg, ":./")) {
		trace_probe_log_err(strcspn(arg, ":./"), KTP_T_NOT_EVENT);
		return -EINVAL;
	}
	*btp = bpf_get_raw_tracepoint(arg);
	if (!*btp) {
		trace_probe_log_err(0, NO_TRACEPOINT);
		return -ENOENT;
	}
	return 0;
}

/* How many fields an 'e' probe without fetch arguments records. */
static int ktp_count_fields(struct trace_event_call *call)
{
	struct ftrace_event_field *field;
	char type[8];
	int n = 0;

	list_for_each_entry(field, trace_get_fields(call), link)
		n += !!ktp_field_type(field, type, sizeof(type));
	return n;
}

/* Record each field as NAME=$NAME:TYPE, in the order of the format. */
static int ktp_parse_all_fields(struct trace_ktp *tk,
				struct traceprobe_parse_context *ctx)
{
	struct ftrace_event_field *field;
	const char *type;
	char buf[8], *arg;
	int i = 0, ret;

	list_for_each_entry_reverse(field, trace_get_fields(tk->event), link) {
		type = ktp_field_type(field, buf, sizeof(buf));
		if (!type)
			continue;
		arg = kasprintf(GFP_KERNEL, "%s=$%s:%s", field->name,
				field->name, type);
		if (!arg)
			return -ENOMEM;
		ret = traceprobe_parse_probe_arg(&tk->tp, i++, arg, ctx);
		kfree(arg);
		if (ret)
			return ret;
	}
	return 0;
}

/* The probed address of a 'p' or 'r' probe, checked as far as we can. */
static int ktp_parse_kprobe_target(const char *arg, bool is_return,
				   struct traceprobe_parse_context *ctx,
				   char **symbol, long *offset, void **addr)
{
	unsigned long probe_addr;
	int ret;

	/* KTP probes no modules: nothing arms a probe when one loads */
	if (strchr(arg, ':')) {
		trace_probe_log_err(0, KTP_NO_MODULES);
		return -EINVAL;
	}
	if (kstrtoul(arg, 0, (unsigned long *)addr)) {
		*symbol = kstrdup(arg, GFP_KERNEL);
		if (!*symbol)
			return -ENOMEM;
		ret = traceprobe_split_symbol_offset(*symbol, offset);
		if (ret || *offset < 0 || *offset > UINT_MAX) {
			trace_probe_log_err(0, BAD_PROBE_ADDR);
			return -EINVAL;
		}
		probe_addr = kallsyms_lookup_name(*symbol);
		if (!probe_addr) {
			trace_probe_log_err(0, BAD_PROBE_ADDR);
			return -ENOENT;
		}
		probe_addr += *offset;
		if (is_return) {
			ctx->flags |= TPARG_FL_RETURN;
			if (kprobe_on_func_entry(NULL, *symbol, *offset)) {
				trace_probe_log_err(0, BAD_RETPROBE);
				return -EINVAL;
			}
		} else if (!kprobe_on_func_entry(NULL, *symbol, *offset)) {
			ctx->flags |= TPARG_FL_FENTRY;
		}
	} else {
		if (is_return) {
			trace_probe_log_err(0, BAD_RETPROBE);
			return -EINVAL;
		}
		probe_addr = (unsigned long)*addr;
	}
	if (within_kprobe_blacklist(probe_addr)) {
		trace_probe_log_err(0, KTP_BLACKLISTED);
		return -EINVAL;
	}
	/* kprobe_events refuses these too (__register_trace_kprobe()) */
	if (trace_probe_within_notrace_func(probe_addr)) {
		trace_probe_log_err(0, KTP_NOTRACE);
		return -EINVAL;
	}
	return 0;
}

/* The MAXACTIVE of "r[MAXACTIVE]", @len characters; 0 if none. */
static int ktp_parse_maxactive(const char *arg, int len, bool is_return,
			       unsigned int *maxactive)
{
	char buf[MAX_EVENT_NAME_LEN];

	*maxactive = 0;
	if (!len)
		return 0;
	if (!is_return) {
		trace_probe_log_err(1, BAD_MAXACT_TYPE);
		return -EINVAL;
	}
	if (len > MAX_EVENT_NAME_LEN - 1) {
		trace_probe_log_err(1, BAD_MAXACT);
		return -EINVAL;
	}
	memcpy(buf, arg, len);
	buf[len] = '\0';
	if (kstrtouint(buf, 0, maxactive) || !*maxactive) {
		trace_probe_log_err(1, BAD_MAXACT);
		return -EINVAL;
	}
	if (*maxactive > KTP_MAXACTIVE_MAX) {
		trace_probe_log_err(1, MAXACT_TOO_BIG);
		return -EINVAL;
	}
	return 0;
}

/*
 * A 't' probe's fetch argument: its $argN is the tracepoint's Nth
 * argument, which ktp_bpf_tp_enter() puts first in the entry data. There
 * are no registers and no stack to read.
 */
static int ktp_tpoint_fetch_arg(struct trace_ktp *tk, struct probe_arg *parg)
{
	struct fetch_insn *code;

	for (code = parg->code; code->op != FETCH_OP_END; code++) {
		switch (code->op) {
		case FETCH_OP_ARG:
			if (code->param >= tk->btp->num_args) {
				trace_probe_log_err(0, BAD_ARG_NUM);
				return -EINVAL;
			}
			code->op = FETCH_OP_EDATA;
			code->offset = code->param * sizeof(u64);
			break;
		case FETCH_OP_REG:
		case FETCH_OP_STACK:
		case FETCH_OP_STACKP:
			trace_probe_log_err(0, KTP_EXPR_NOT_HERE);
			return -EINVAL;
		default:
			break;
		}
	}
	return 0;
}

/* The types a fetch expression's value can be recorded as */
static bool ktp_is_expr_type(const char *type)
{
	static const char * const types[] = {
		"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
		"x8", "x16", "x32", "x64",
	};

	return match_string(types, ARRAY_SIZE(types), type) >= 0;
}

/*
 * Is the body of a fetch argument, @len characters, a C expression
 * rather than a kprobe_events fetch argument? It is if it starts as no
 * fetch argument does, or has an operator where none can be.
 */
static bool ktp_looks_like_expr(const char *s, size_t len)
{
	size_t i;

	if (!len || s[0] == '\\')
		return false;
	if (!strchr("%$@+-", s[0]))
		return true;
	/* +OFFS( and +uOFFS( dereference; -(, -$ and -1 negate */
	if ((s[0] == '+' || s[0] == '-') &&
	    !isdigit(s[1]) && !(s[1] == 'u' && isdigit(s[2])))
		return true;
	for (i = 1; i < len; i++) {
		if (isspace(s[i]) || strchr("*/<>=!~&|^?", s[i]))
			return true;
		/* +OFFS(, %REG and @SYM+OFFS are fetch argument syntax */
		if (strchr("+-%", s[i]) && s[i - 1] != '(' && s[0] != '@')
			return true;
	}
	return false;
}

/*
 * One fetch argument, NAME=BODY[:TYPE]. A kprobe_events one goes to
 * trace_probe.c. A C expression is compiled into the probe's program,
 * which leaves its value in the entry data; its probe_arg is parsed from
 * a stand-in immediate and then reads that value with FETCH_OP_EDATA.
 */
static int ktp_parse_fetch_arg(struct trace_ktp *tk, struct ktp_compiler *comp,
			       int i, const char *arg,
			       struct traceprobe_parse_context *ctx)
{
	const char *eq = strchr(arg, '='), *body = arg, *colon, *type = NULL;
	char *expr = NULL, *stand_in = NULL;
	struct ktp_expr_error err;
	struct fetch_insn *code;
	bool is_signed;
	size_t len;
	int ret;

	/* NAME=, but not the == or <= of an expression */
	if (eq && eq[1] != '=' && (eq == arg || !strchr("<>!", eq[-1])))
		body = eq + 1;
	colon = strrchr(body, ':');
	len = strlen(body);
	if (colon && ktp_is_expr_type(colon + 1)) {
		type = colon + 1;
		len = colon - body;
	} else if (colon && !ktp_looks_like_expr(body, colon - body)) {
		len = 0;	/* a fetch argument with a type of its own */
	}
	if (!ktp_looks_like_expr(body, len)) {
		ctx->offset = 0;
		ret = traceprobe_parse_probe_arg(&tk->tp, i, arg, ctx);
		if (!ret && ktp_is_tpoint(tk))
			ret = ktp_tpoint_fetch_arg(tk, &tk->tp.args[i]);
		return ret;
	}

	expr = kmemdup_nul(body, len, GFP_KERNEL);
	if (!expr)
		return -ENOMEM;
	ret = ktp_compile_fetch(comp, expr, i, &is_signed, &err);
	if (ret) {
		if (err.code)
			__trace_probe_log_err(body - arg + err.pos, err.code);
		goto out;
	}
	if (!type)
		type = is_signed ? "s64" : "u64";

	ret = -ENOMEM;
	if (body == arg)
		stand_in = kasprintf(GFP_KERNEL, "arg%d=\\0:%s", i + 1, type);
	else
		stand_in = kasprintf(GFP_KERNEL, "%.*s=\\0:%s",
				     (int)(body - arg - 1), arg, type);
	if (!stand_in)
		goto out;
	ctx->offset = 0;
	ret = traceprobe_parse_probe_arg(&tk->tp, i, stand_in, ctx);
	if (ret)
		goto out;

	code = tk->tp.args[i].code;
	code->op = FETCH_OP_EDATA;
	code->offset = tk->vals_off + i * sizeof(u64);
	ret = -ENOMEM;
	tk->exprs[i] = kasprintf(GFP_KERNEL, "%s=%s:%s", tk->tp.args[i].name,
				 expr, type);
	if (tk->exprs[i])
		ret = 0;
out:
	kfree(stand_in);
	kfree(expr);
	return ret;
}

/* The condition: the words after "if", joined as error_log shows them */
static char *ktp_join_cond(int argc, const char *argv[])
{
	size_t len = 0;
	char *cond, *p;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	cond = kmalloc(len, GFP_KERNEL);
	if (!cond)
		return NULL;
	for (p = cond, i = 0; i < argc; i++)
		p += sprintf(p, i ? " %s" : "%s", argv[i]);
	return cond;
}

/*
 * Compile the condition and the fetch arguments into the probe's program;
 * kprobe_events fetch arguments go to trace_probe.c. A probe with neither
 * a condition nor a fetch expression gets no program, except a 't' probe:
 * its program is what runs on the tracepoint.
 */
static int ktp_parse_args(struct trace_ktp *tk, int nargs, const char *argv[],
			  int cond_idx, int argc,
			  struct traceprobe_parse_context *ctx)
{
	struct ktp_expr_env env = {
		.event = tk->event,
		.name = trace_probe_name(&tk->tp),
	};
	struct ktp_compiler *comp;
	struct ktp_expr_error err;
	struct ktp_prog *prog;
	int i, ret;

	if (ktp_is_event(tk)) {
		env.flags = KTP_ENV_EVENT;
	} else if (ktp_is_tpoint(tk)) {
		env.flags = KTP_ENV_TPOINT;
		env.nr_args = tk->btp->num_args;
		env.counters = tk->counters;
	} else if (ktp_is_return(tk)) {
		env.flags = KTP_ENV_RETURN;
	} else if (ctx->flags & TPARG_FL_FENTRY) {
		env.flags = KTP_ENV_FENTRY;
	}

	comp = ktp_compiler_create(&env);
	tk->exprs = kcalloc(tk->tp.nr_args, sizeof(*tk->exprs), GFP_KERNEL);
	if (!comp || !tk->exprs) {
		ret = -ENOMEM;
		goto out;
	}

	/* The condition first: false, it skips the fetch expressions */
	if (cond_idx) {
		trace_probe_log_set_index(cond_idx);
		if (cond_idx >= argc) {
			trace_probe_log_err(0, KTP_EXPR_SYNTAX);
			ret = -EINVAL;
			goto out;
		}
		tk->cond = ktp_join_cond(argc - cond_idx, argv + cond_idx);
		if (!tk->cond) {
			ret = -ENOMEM;
			goto out;
		}
		ret = ktp_compile_cond(comp, tk->cond, &err);
		if (ret) {
			if (err.code)
				__trace_probe_log_err(err.pos, err.code);
			goto out;
		}
	}

	for (i = 0; i < nargs; i++) {
		trace_probe_log_set_index(i + 2);
		ret = ktp_parse_fetch_arg(tk, comp, i, argv[i + 2], ctx);
		if (ret)
			goto out;
	}
	for (i = 0; i < nargs && !tk->exprs[i]; i++)
		;
	if (!cond_idx && i == nargs && !ktp_is_tpoint(tk)) {
		ret = 0;
		goto out;
	}

	prog = ktp_compiler_finish(comp, true);
	comp = NULL;
	if (IS_ERR(prog)) {
		ret = PTR_ERR(prog);
		trace_probe_log_set_index(0);
		trace_probe_log_err(0, KTP_EXPR_TOO_BIG);
		goto out;
	}
	tk->prog = prog;
	ret = 0;
out:
	ktp_compiler_destroy(comp);
	return ret;
}

/*
 * p[:[GRP/][EVENT]] SYM[+OFFS]|ADDR [FETCHARGS]
 * r[MAXACTIVE][:[GRP/][EVENT]] SYM[+0] [FETCHARGS]
 * t[:[GRP/][EVENT]] TRACEPOINT [FETCHARGS]
 * e[:[GRP/][EVENT]] SYSTEM.EVENT|SYSTEM/EVENT [FETCHARGS]
 * and "if COND" after any of them
 */
/* What a definition probes, parsed before its probe is made */
struct ktp_target {
	char			type;		/* p, r, t or e */
	unsigned int		maxactive;	/* of an "r" probe */
	char			*symbol;	/* of a "p" or "r" probe, or NULL */
	long			offset;
	void			*addr;		/* of a "p" probe on an address */
	struct trace_event_call	*call;		/* of an "e" probe, referenced */
	struct bpf_raw_event_map *btp;		/* of a "t" probe, referenced */
};

static void ktp_put_target(struct ktp_target *t)
{
	if (t->call)
		trace_event_put_ref(t->call);
	if (t->btp)
		bpf_put_raw_tracepoint(t->btp);
	kfree(t->symbol);
}

/* How many fetch arguments come before "if"; where the condition starts */
static int ktp_count_args(int argc, const char *argv[], int *cond_idx)
{
	int i;

	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "if")) {
			*cond_idx = i + 1;
			break;
		}
	}
	if (i - 2 > MAX_TRACE_ARGS) {
		trace_probe_log_set_index(2 + MAX_TRACE_ARGS);
		trace_probe_log_err(0, KTP_TOO_MANY_ARGS);
		return -E2BIG;
	}
	return i - 2;
}

/*
 * The target of a definition: a tracepoint, an event (whose fields an
 * "e" probe without fetch arguments records: @nargs becomes their
 * number), or a kprobe's symbol or address.
 */
static int ktp_parse_target(struct ktp_target *t, const char *arg, int *nargs,
			    struct traceprobe_parse_context *ctx)
{
	int ret;

	trace_probe_log_set_index(1);
	switch (t->type) {
	case 't':
		ret = ktp_parse_tpoint_target(arg, &t->btp);
		if (ret)
			return ret;
		/* $argN: FETCH_OP_ARG, see ktp_tpoint_fetch_arg() */
		ctx->flags |= TPARG_FL_FENTRY;
		return 0;
	case 'e':
		ret = ktp_parse_event_target(arg, &t->call);
		if (ret)
			return ret;
		ctx->event = t->call;
		ctx->flags |= TPARG_FL_TEVENT;
		if (!*nargs)
			*nargs = ktp_count_fields(t->call);
		if (*nargs > MAX_TRACE_ARGS) {
			trace_probe_log_err(0, KTP_TOO_MANY_ARGS);
			return -E2BIG;
		}
		return 0;
	default:
		return ktp_parse_kprobe_target(arg, t->type == 'r', ctx,
					       &t->symbol, &t->offset, &t->addr);
	}
}

/* The event's name when the definition gives none, made in @buf */
static const char *ktp_default_event_name(const struct ktp_target *t,
					  char *buf)
{
	if (t->type == 't')
		snprintf(buf, MAX_EVENT_NAME_LEN, "%s", t->btp->tp->name);
	else if (t->type == 'e')
		snprintf(buf, MAX_EVENT_NAME_LEN, "%s",
			 trace_event_name(t->call));
	else if (t->symbol)
		snprintf(buf, MAX_EVENT_NAME_LEN, "%c_%s_%ld",
			 t->type, t->symbol, t->offset);
	else
		snprintf(buf, MAX_EVENT_NAME_LEN, "%c_0x%p", t->type, t->addr);
	sanitize_event_name(buf);
	return buf;
}

/* The probe takes its target: the references, or its kprobe */
static int ktp_take_target(struct trace_ktp *tk, struct ktp_target *t)
{
	switch (t->type) {
	case 't':
		tk->btp = t->btp;
		t->btp = NULL;
		/* entry data: the tracepoint's arguments, then the values */
		tk->vals_off = tk->btp->num_args * sizeof(u64);
		return 0;
	case 'e':
		tk->event = t->call;
		t->call = NULL;
		return 0;
	default:
		return ktp_set_kprobe(tk, t->addr, t->symbol, t->offset,
				      t->maxactive, t->type == 'r');
	}
}

/*
 * An "r" probe's entry data: trace_probe.c's $argN, the $argN its
 * program reads, then the values of its fetch expressions.
 */
static void ktp_set_entry_data(struct trace_ktp *tk, int nfetch)
{
	int i;

	tk->entry_off = round_up(traceprobe_get_entry_data_size(&tk->tp),
				 sizeof(u64));
	tk->vals_off = tk->entry_off;
	if (tk->prog)
		tk->vals_off += tk->prog->nr_entry_args * sizeof(u64);
	for (i = 0; i < nfetch; i++) {
		if (tk->exprs[i])
			tk->tp.args[i].code->offset += tk->vals_off;
	}
	tk->rp.data_size = tk->vals_off;
	if (tk->prog)
		tk->rp.data_size += nfetch * sizeof(u64);
	if (tk->rp.data_size)
		tk->rp.entry_handler = ktp_kretprobe_entry_handler;
}

/*
 * Make the probe @tk of its target: take the target, parse its fetch
 * arguments and compile its condition (from @cond_idx), set its format.
 */
static int ktp_build(struct trace_ktp *tk, struct ktp_target *t, int nfetch,
		     const char *argv[], int cond_idx, int argc,
		     struct traceprobe_parse_context *ctx)
{
	int ret;

	ret = ktp_take_target(tk, t);
	if (ret)
		return ret;

	ctx->funcname = t->symbol;
	if (t->type == 'e' && !nfetch) {
		trace_probe_log_set_index(1);
		ret = ktp_parse_all_fields(tk, ctx);
		if (ret)
			return ret;
	}
	ret = ktp_parse_args(tk, nfetch, argv, cond_idx, argc, ctx);
	if (ret)
		return ret;
	if (t->type == 't') {
		tk->tp_link.link.prog = tk->prog->prog;
		tk->tp_link.btp = tk->btp;
		tk->tp_link.cookie = (unsigned long)tk;
	}
	if (t->type == 'r')
		ktp_set_entry_data(tk, nfetch);

	ret = traceprobe_set_print_fmt(&tk->tp, !ktp_is_kprobe(tk) ?
					PROBE_PRINT_EVENT :
					t->type == 'r' ? PROBE_PRINT_RETURN :
					PROBE_PRINT_NORMAL);
	return ret < 0 ? ret : 0;
}

static int __ktp_create(int argc, const char *argv[])
{
	struct traceprobe_parse_context ctx = { .flags = TPARG_FL_KERNEL };
	const char *event = NULL, *group = KTP_EVENT_SYSTEM;
	char gbuf[MAX_EVENT_NAME_LEN], buf[MAX_EVENT_NAME_LEN];
	struct ktp_target t = { .type = argv[0][0] };
	int nargs, nfetch, cond_idx = 0, ret;
	struct trace_ktp *tk = NULL;

	trace_probe_log_init("trace_ktp", argc, argv);

	ret = security_locked_down(LOCKDOWN_KPROBES);
	if (ret)
		goto out;

	if (!t.type || !strchr("prte", t.type)) {
		trace_probe_log_err(0, KTP_BAD_TYPE);
		goto parse_error;
	}

	event = strchr(&argv[0][1], ':');
	if (event)
		event++;
	ret = ktp_parse_maxactive(&argv[0][1], event ? event - &argv[0][1] - 1 :
				  strlen(&argv[0][1]), t.type == 'r',
				  &t.maxactive);
	if (ret)
		goto out;

	if (argc < 2) {
		trace_probe_log_set_index(1);
		trace_probe_log_err(0, KTP_NO_TARGET);
		goto parse_error;
	}

	nargs = ktp_count_args(argc, argv, &cond_idx);
	nfetch = nargs;
	ret = nargs < 0 ? nargs : ktp_parse_target(&t, argv[1], &nargs, &ctx);
	if (ret)
		goto out;

	trace_probe_log_set_index(0);
	if (event) {
		ret = traceprobe_parse_event_name(&event, &group, gbuf,
						  event - argv[0]);
		if (ret)
			goto parse_error;
	} else {
		event = ktp_default_event_name(&t, buf);
	}

	tk = ktp_alloc(group, event, nargs);
	if (IS_ERR(tk)) {
		ret = PTR_ERR(tk);
		tk = NULL;
		goto out;
	}
	ret = ktp_build(tk, &t, nfetch, argv, cond_idx, argc, &ctx);
	if (ret)
		goto error;

	ret = ktp_register(tk);
	if (ret)
		goto error;
	tk = NULL;
out:
	traceprobe_finish_parse(&ctx);
	trace_probe_log_clear();
	ktp_put_target(&t);
	return ret;

parse_error:
	ret = -EINVAL;
error:
	ktp_free(tk);
	tk = NULL;
	goto out;
}

static int ktp_create(const char *raw_command)
{
	return trace_probe_create(raw_command, __ktp_create);
}

/*
 * dynamic_events offers every definition to every dynamic event type,
 * and "p", "r", "t" and "e" there are kprobe events, fprobe events and
 * eprobes. So there a KTP probe's line is its definition after
 * KTP_DYN_PREFIX (see ktp_dyn_show()): written back, it makes the same
 * KTP probe, and no other type takes it.
 */
static int ktp_dyn_create(const char *raw_command)
{
	if (!str_has_prefix(raw_command, KTP_DYN_PREFIX))
		return -ECANCELED;
	return ktp_create(raw_command + strlen(KTP_DYN_PREFIX));
}

/* Only for dyn_event_create(), which holds the lock trace_probe_log needs */
static struct dyn_event_operations ktp_create_ops = {
	.create = ktp_create,
};

static int ktp_dyn_release(struct dyn_event *ev)
{
	struct trace_ktp *tk = to_trace_ktp(ev);
	int ret = ktp_unregister(tk);

	if (!ret)
		ktp_free(tk);
	return ret;
}

static bool ktp_dyn_is_busy(struct dyn_event *ev)
{
	return trace_probe_is_enabled(&to_trace_ktp(ev)->tp);
}

/* Writes the probed place as a definition names it. */
static void ktp_format_target(struct trace_ktp *tk, char *buf, size_t size)
{
	if (ktp_is_event(tk))
		snprintf(buf, size, "%s.%s", tk->event->class->system,
			 trace_event_name(tk->event));
	else if (ktp_is_tpoint(tk))
		snprintf(buf, size, "%s", tk->btp->tp->name);
	else if (!tk->symbol)
		snprintf(buf, size, "0x%p", tk->rp.kp.addr);
	else if (tk->rp.kp.offset)
		snprintf(buf, size, "%s+%u", tk->symbol, tk->rp.kp.offset);
	else
		snprintf(buf, size, "%s", tk->symbol);
}

static bool ktp_dyn_match(const char *system, const char *event,
			  int argc, const char **argv, struct dyn_event *ev)
{
	struct trace_ktp *tk = to_trace_ktp(ev);
	char buf[MAX_ARGSTR_LEN * 2 + 2];
	struct probe_arg *arg;
	int i;

	if (event[0] != '\0' && strcmp(trace_probe_name(&tk->tp), event))
		return false;
	if (system && strcmp(trace_probe_group_name(&tk->tp), system))
		return false;
	if (!argc)
		return true;

	ktp_format_target(tk, buf, sizeof(buf));
	if (strcmp(buf, argv[0]))
		return false;
	/* each argument as ktp_show_def() writes it, then the condition */
	for (i = 1; i < argc; i++) {
		if (i - 1 < tk->tp.nr_args) {
			arg = &tk->tp.args[i - 1];
			if (tk->exprs && tk->exprs[i - 1])
				snprintf(buf, sizeof(buf), "%s", tk->exprs[i - 1]);
			else
				snprintf(buf, sizeof(buf), "%s=%s", arg->name, arg->comm);
			if (strcmp(buf, argv[i]))
				return false;
		} else if (tk->cond && !strcmp(argv[i], "if") && i + 1 < argc) {
			char *cond = ktp_join_cond(argc - i - 1, argv + i + 1);
			bool match = cond && !strcmp(cond, tk->cond);

			kfree(cond);
			return match;
		} else {
			return false;
		}
	}
	return !tk->cond;
}

/* The definition of @tk, as ktp_probes shows it */
static void ktp_show_def(struct seq_file *m, struct trace_ktp *tk)
{
	char buf[MAX_ARGSTR_LEN + 1];
	int i;

	seq_putc(m, ktp_is_event(tk) ? 'e' : ktp_is_tpoint(tk) ? 't' :
		 ktp_is_return(tk) ? 'r' : 'p');
	if (tk->maxactive)
		seq_printf(m, "%u", tk->maxactive);
	ktp_format_target(tk, buf, sizeof(buf));
	seq_printf(m, ":%s/%s %s", trace_probe_group_name(&tk->tp),
		   trace_probe_name(&tk->tp), buf);
	for (i = 0; i < tk->tp.nr_args; i++) {
		if (tk->exprs && tk->exprs[i])
			seq_printf(m, " %s", tk->exprs[i]);
		else
			seq_printf(m, " %s=%s", tk->tp.args[i].name,
				   tk->tp.args[i].comm);
	}
	if (tk->cond)
		seq_printf(m, " if %s", tk->cond);
	seq_putc(m, '\n');
}

/* In dynamic_events: see ktp_dyn_create() */
static int ktp_dyn_show(struct seq_file *m, struct dyn_event *ev)
{
	seq_puts(m, KTP_DYN_PREFIX);
	ktp_show_def(m, to_trace_ktp(ev));
	return 0;
}

static int ktp_probes_seq_show(struct seq_file *m, void *v)
{
	struct dyn_event *ev = v;

	if (ev->ops == &ktp_dyn_ops)
		ktp_show_def(m, to_trace_ktp(ev));
	return 0;
}

static const struct seq_operations ktp_probes_seq_ops = {
	.start	= dyn_event_seq_start,
	.next	= dyn_event_seq_next,
	.stop	= dyn_event_seq_stop,
	.show	= ktp_probes_seq_show,
};

static int ktp_probes_open(struct inode *inode, struct file *file)
{
	return dyn_events_open(file, &ktp_dyn_ops, &ktp_probes_seq_ops);
}

static int ktp_create_or_delete(const char *raw_command)
{
	if (raw_command[0] == '-')
		return dyn_event_release(raw_command, &ktp_dyn_ops);

	return dyn_event_create(raw_command, &ktp_create_ops);
}

static ssize_t ktp_probes_write(struct file *file, const char __user *buffer,
				size_t count, loff_t *ppos)
{
	return trace_parse_run_command(file, buffer, count, ppos,
				       ktp_create_or_delete);
}

static const struct file_operations ktp_probes_fops = {
	.open		= ktp_probes_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= seq_release,
	.write		= ktp_probes_write,
};

/* How the probe's program runs, as ktp_profile and ktp_programs say */
static void ktp_show_prog_mode(struct seq_file *m, struct trace_ktp *tk)
{
	const struct bpf_prog *fp;

	if (!tk->prog) {
		seq_puts(m, "cond=none");
		return;
	}
	fp = tk->prog->prog;
	seq_printf(m, "cond=%s insns=%u size=%u", fp->jited ? "jit" : "interp",
		   fp->len, fp->jited ? fp->jited_len : 0);
}

/* Hits of a 't' probe while it ran on the same CPU (bpf_prog->active) */
static unsigned long ktp_prog_missed(const struct bpf_prog *fp)
{
	const struct bpf_prog_stats *st;
	unsigned long missed = 0;
	unsigned int start;
	u64 n;
	int cpu;

	for_each_possible_cpu(cpu) {
		st = per_cpu_ptr(fp->stats, cpu);
		do {
			start = u64_stats_fetch_begin(&st->syncp);
			n = u64_stats_read(&st->misses);
		} while (u64_stats_fetch_retry(&st->syncp, start));
		missed += n;
	}
	return missed;
}

static int ktp_profile_seq_show(struct seq_file *m, void *v)
{
	unsigned long hits, recorded = 0, cond_false = 0, dropped = 0, missed;
	unsigned long faults = 0;
	struct dyn_event *ev = v;
	struct trace_ktp *tk;
	int cpu;

	if (ev->ops != &ktp_dyn_ops)
		return 0;

	tk = to_trace_ktp(ev);
	/*
	 * A hit kprobes missed never reached the handler, nor one the BPF
	 * raw tracepoint missed the program: count them here.
	 */
	missed = tk->rp.kp.nmissed + tk->rp.nmissed;
	if (ktp_is_tpoint(tk))
		missed += ktp_prog_missed(tk->prog->prog);
	hits = missed;
	for_each_possible_cpu(cpu) {
		struct ktp_counters *c = per_cpu_ptr(tk->counters, cpu);

		hits += local_read(&c->hits);
		recorded += local_read(&c->recorded);
		cond_false += local_read(&c->cond_false);
		missed += local_read(&c->missed);
		dropped += local_read(&c->dropped);
		faults += local_read(&c->faults);
	}
	seq_printf(m, "%s/%s hits=%lu recorded=%lu cond_false=%lu missed=%lu dropped=%lu faults=%lu ",
		   trace_probe_group_name(&tk->tp), trace_probe_name(&tk->tp),
		   hits, recorded, cond_false, missed, dropped, faults);
	ktp_show_prog_mode(m, tk);
	seq_putc(m, '\n');
	return 0;
}

static const struct seq_operations ktp_profile_seq_ops = {
	.start	= dyn_event_seq_start,
	.next	= dyn_event_seq_next,
	.stop	= dyn_event_seq_stop,
	.show	= ktp_profile_seq_show,
};

/* ktp_profile and ktp_programs: their seq_operations are the inode's data */
static int ktp_seq_file_open(struct inode *inode, struct file *file)
{
	int ret;

	ret = security_locked_down(LOCKDOWN_TRACEFS);
	if (ret)
		return ret;

	return seq_open(file, inode->i_private);
}

static const struct file_operations ktp_seq_file_fops = {
	.open		= ktp_seq_file_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= seq_release,
};

/* Each probe's program, as "bpftool prog dump xlated" shows programs */
static int ktp_programs_seq_show(struct seq_file *m, void *v)
{
	struct dyn_event *ev = v;
	struct trace_ktp *tk;

	if (ev->ops != &ktp_dyn_ops)
		return 0;
	tk = to_trace_ktp(ev);
	seq_printf(m, "%s/%s ", trace_probe_group_name(&tk->tp),
		   trace_probe_name(&tk->tp));
	ktp_show_prog_mode(m, tk);
	seq_putc(m, '\n');
	if (tk->prog)
		ktp_prog_show_insns(m, tk->prog);
	return 0;
}

static const struct seq_operations ktp_programs_seq_ops = {
	.start	= dyn_event_seq_start,
	.next	= dyn_event_seq_next,
	.stop	= dyn_event_seq_stop,
	.show	= ktp_programs_seq_show,
};

/* The control file, for the KUnit tests. */
VISIBLE_IF_KUNIT struct dentry *ktp_probes_dentry;

static __init int ktp_init_early(void)
{
	return dyn_event_register(&ktp_dyn_ops);
}
core_initcall(ktp_init_early);

static __init int ktp_init(void)
{
	int ret;

	ret = tracing_init_dentry();
	if (ret)
		return 0;

	ktp_probes_dentry = trace_create_file("ktp_probes", TRACE_MODE_WRITE,
					      NULL, NULL, &ktp_probes_fops);
	trace_create_file("ktp_profile", TRACE_MODE_READ, NULL,
			  (void *)&ktp_profile_seq_ops, &ktp_seq_file_fops);
	trace_create_file("ktp_programs", TRACE_MODE_READ, NULL,
			  (void *)&ktp_programs_seq_ops, &ktp_seq_file_fops);
	return 0;
}
fs_initcall(ktp_init);
