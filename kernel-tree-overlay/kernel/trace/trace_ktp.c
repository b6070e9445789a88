// SPDX-License-Identifier: GPL-2.0
/*
 * KTP: kernel probes whose conditions and fetches are compiled to
 * native code.
 *
 * The tracefs control file ktp_probes creates kprobe ("p") and kretprobe
 * ("r") probes, and probes of the kinds that register with
 * ktp_register_kind(). Each probe is a trace event, in the "ktp" group
 * unless the definition names another, and a dynamic event. Fetch
 * arguments are parsed and fetched by trace_probe.c, as for
 * kprobe_events.
 *
 * This file parses a definition, makes its probe, registers it and
 * enables it; see ktp/ktp_probe.h for the other files of KTP.
 */
#include <linux/bpf.h>
#include <linux/cred.h>
#include <linux/ctype.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/memcontrol.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/trace_events.h>

#include "trace_dynevent.h"
#include "trace_probe.h"
#include "ktp/ktp_probe.h"
#include "ktp/ktp_args.h"
#include "ktp/ktp_def.h"
#include "ktp/ktp_hit.h"
#include "ktp/trace_ktp.h"

#define KTP_EVENT_SYSTEM	"ktp"
#define KTP_MAXACTIVE_MAX	4096	/* as kprobe_events */

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
	trace_seq_printf(s, "%s: (", trace_probe_name(tp));
	tk->kind->print_target(s, tk->ref);
	trace_seq_putc(s, ')');
	return trace_probe_print_args_line(s, tp, (u8 *)&field[1], field);
out:
	return trace_handle_return(s);
}

/* The records of probes of other kinds than "p" and "r" */
static struct trace_event_functions ktp_event_funcs = {
	.trace		= ktp_print_event,
};

/*
 * Whether the kprobe of a 'p' or 'r' probe is in the kernel: not while
 * the module of its function is not loaded, nor once it has gone.
 */
static bool ktp_kprobe_is_live(struct trace_ktp *tk)
{
	return tk->registered && !kprobe_gone(&tk->rp.kp);
}

/*
 * Swap the programs and fetch instructions of @tk and @alt, two probes
 * of the same definition (see ktp_same_fields()), while no handler runs
 * either.
 */
static void ktp_swap_prog(struct trace_ktp *tk, struct trace_ktp *alt)
{
	DECLARE_BITMAP(args, MAX_TRACE_ARGS);
	int i;

	for (i = 0; i < tk->tp.nr_args; i++)
		swap(tk->tp.args[i].code, alt->tp.args[i].code);
	bitmap_copy(args, tk->prog_args, MAX_TRACE_ARGS);
	bitmap_copy(tk->prog_args, alt->prog_args, MAX_TRACE_ARGS);
	bitmap_copy(alt->prog_args, args, MAX_TRACE_ARGS);
	swap(tk->vals_off, alt->vals_off);
	swap(tk->prog, alt->prog);
}

/*
 * Attach the fentry program of a "p" probe to its function's BPF
 * trampoline, by a link KTP holds, instead of arming its kprobe. Return
 * 0, or a negative errno: the kprobe is armed instead, but for -ENOMEM,
 * which fails the enable, as any lack of memory does.
 */
static int ktp_tramp_attach(struct trace_ktp *tk)
{
	struct bpf_link *link;

	ktp_swap_prog(tk, tk->tramp);
	/* what the kfuncs find by the program's id (ktp_tpoint_by_id()) */
	tk->prog->owner = tk;
	bpf_prog_inc(tk->prog->prog);
	link = bpf_tracing_link_create_kern(tk->prog->prog, 0);
	if (IS_ERR(link)) {
		bpf_prog_put(tk->prog->prog);
		ktp_swap_prog(tk, tk->tramp);
		return PTR_ERR(link);
	}
	tk->tramp_link = link;
	return 0;
}

/*
 * Detach a probe's fentry program, if it is attached: false if it is
 * not. A run of the program under way ends in an RCU read-side critical
 * section, which is waited for before the fetch instructions go back.
 */
static bool ktp_tramp_detach(struct trace_ktp *tk)
{
	if (!tk->tramp_link)
		return false;
	bpf_tracing_link_detach_kern(tk->tramp_link);
	synchronize_rcu();
	bpf_link_put(tk->tramp_link);
	tk->tramp_link = NULL;
	ktp_swap_prog(tk, tk->tramp);
	return true;
}

/*
 * Arm or disarm a probe's kprobe, or attach or detach its fentry program
 * instead. One that is not live is armed when its module loads, if the
 * probe is enabled then (ktp_module_notify()).
 */
static int ktp_arm(struct trace_ktp *tk, bool on)
{
	int ret;

	if (tk->tramp && on) {
		ret = ktp_tramp_attach(tk);
		if (!ret || ret == -ENOMEM)
			return ret;
	}
	if (tk->tramp && !on && ktp_tramp_detach(tk))
		return 0;
	if (!ktp_kprobe_is_live(tk))
		return 0;
	if (ktp_is_return(tk))
		return on ? enable_kretprobe(&tk->rp) : disable_kretprobe(&tk->rp);
	return on ? enable_kprobe(&tk->rp.kp) : disable_kprobe(&tk->rp.kp);
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

	ret = trace_probe_add_user(tp, file);
	if (ret)
		return ret;

	/* as enable_trace_kprobe(): the writer sees arming fail */
	if (!ktp_is_kprobe(tk))
		ret = tk->kind->enable(tk, file, !enabled);
	else if (!enabled)
		ret = ktp_arm(tk, true);
	if (ret)
		goto undo;
	return 0;
undo:
	trace_probe_remove_user(tp, file);
	return ret;
}

static int ktp_disable(struct trace_event_call *call,
		       struct trace_event_file *file)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);
	struct trace_ktp *tk;
	int ret;

	if (WARN_ON_ONCE(!tp))
		return -ENODEV;
	tk = container_of(tp, struct trace_ktp, tp);

	ret = trace_probe_stop_user(tp, file);
	if (ret)
		return ret;

	if (!ktp_is_kprobe(tk))
		tk->kind->disable(tk, file, !trace_probe_is_enabled(tp));
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

/* The reg() of a KTP probe's trace event: @data is its file, or NULL */
static int ktp_event_reg(struct trace_event_call *event,
			 enum trace_reg type, void *data)
{
	return trace_probe_event_reg(event, type, data, ktp_enable, ktp_disable);
}

/* Free a probe that is not registered; @tk may be NULL or an error. */
static void ktp_free(struct trace_ktp *tk)
{
	bool has_owner;
	int i;

	if (IS_ERR_OR_NULL(tk))
		return;
	if (tk->exprs) {
		for (i = 0; i < tk->tp.nr_args; i++)
			kfree(tk->exprs[i]);
		kfree(tk->exprs);
	}
	trace_probe_cleanup(&tk->tp);
	ktp_free(tk->tramp);
	has_owner = tk->prog && tk->prog->owner;
	ktp_prog_free(tk->prog);
	/*
	 * The kfuncs of a linked program find the probe as its owner, by the
	 * program's id (see ktp_prog_by_id()), and may still, on a link being
	 * released. A kfunc that finds only the program (ktp_strcmp()) is
	 * done with it when ktp_prog_free()'s grace period ends.
	 */
	if (has_owner)
		synchronize_rcu();
	kfree(tk->cond);
	kfree(tk->target);
	kfree(tk->symbol);
	if (tk->cred)
		put_cred(tk->cred);
	mem_cgroup_put(tk->memcg);
	if (tk->kind && tk->ref)
		tk->kind->put_ref(tk->ref);
	free_percpu(tk->counters);
	kfree(tk);
}

DEFINE_FREE(ktp_free, struct trace_ktp *, ktp_free(_T))

/* The probe, with its kprobe or event yet to be filled in. */
static struct trace_ktp *ktp_alloc(const char *group, const char *event,
				   int nargs)
{
	struct trace_ktp *tk __free(ktp_free) = NULL;
	int ret;

	tk = kzalloc(struct_size(tk, tp.args, nargs), GFP_KERNEL);
	if (!tk)
		return ERR_PTR(-ENOMEM);
	tk->counters = alloc_percpu(struct ktp_counters);
	if (!tk->counters)
		return ERR_PTR(-ENOMEM);
	ret = trace_probe_init(&tk->tp, event, group, false, nargs);
	if (ret < 0)
		return ERR_PTR(ret);
	dyn_event_init(&tk->devent, &ktp_dyn_ops);
	return_ptr(tk);
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
		/* kprobes may move kp.addr (past ENDBR): keep what was asked */
		tk->addr = (unsigned long)addr;
	}

	if (is_return)
		tk->rp.handler = ktp_kretprobe_handler;
	else
		tk->rp.kp.pre_handler = ktp_kprobe_handler;
	tk->maxactive = maxactive;
	tk->rp.maxactive = maxactive;
	return 0;
}

/* Whether kprobes may probe @addr: 0, or -EINVAL and the error's *@code */
static int ktp_check_addr(unsigned long addr, int *code)
{
	if (within_kprobe_blacklist(addr)) {
		*code = TP_ERR_KTP_BLACKLISTED;
		return -EINVAL;
	}
	/* kprobe_events refuses these too (__register_trace_kprobe()) */
	if (trace_probe_within_notrace_func(addr)) {
		*code = TP_ERR_KTP_NOTRACE;
		return -EINVAL;
	}
	return 0;
}

/*
 * Whether kprobes may probe [MOD:]SYM+@offset for a probe, and find its
 * address: 0, or a negative errno and in *@code the error_log's code of
 * why not. -ENODEV: MOD is not loaded, so nothing can be checked yet.
 */
static int ktp_check_symbol(char *symbol, unsigned int offset,
			    bool is_return, unsigned long *addr, int *code)
{
	int ret;

	*code = TP_ERR_BAD_PROBE_ADDR;
	if (!trace_probe_module_exist(symbol))
		return -ENODEV;
	if (strchr(symbol, ':')) {
		ret = trace_probe_validate_symbol(symbol);
		*addr = ret ? 0 : kallsyms_lookup_name(symbol);
		/* unloaded since: no name, or only another module's */
		if (!ret && !*addr)
			return trace_probe_module_exist(symbol) ? -ENOENT :
								  -ENODEV;
	} else {
		/* one search of kallsyms for the name and its address */
		ret = trace_probe_lookup_unique(symbol, addr);
	}
	/* as kprobe_events: one function of that name, no fewer */
	if (ret == -EADDRNOTAVAIL)
		*code = TP_ERR_NON_UNIQ_SYMBOL;
	if (ret)
		return ret;
	if (!*addr)
		return -ENOENT;
	*addr += offset;

	if (is_return && kprobe_on_func_entry(NULL, symbol, offset)) {
		*code = TP_ERR_BAD_RETPROBE;
		return -EINVAL;
	}
	return ktp_check_addr(*addr, code);
}

/* Register the kprobe, armed if the probe is enabled. */
static int ktp_register_kprobe(struct trace_ktp *tk)
{
	int ret;

	ret = trace_probe_register_kprobe(&tk->tp, &tk->rp);
	tk->registered = !ret;
	return ret;
}

/*
 * Unregister the kprobe, and make it ready to be registered again: as
 * kprobes left it before, with the hits it missed kept.
 */
static void ktp_unregister_kprobe(struct trace_ktp *tk)
{
	if (!tk->registered)
		return;
	if (ktp_is_return(tk))
		unregister_kretprobe(&tk->rp);
	else
		unregister_kprobe(&tk->rp.kp);
	tk->registered = false;
	tk->nmissed_gone += tk->rp.kp.nmissed + tk->rp.nmissed;
	INIT_HLIST_NODE(&tk->rp.kp.hlist);
	INIT_LIST_HEAD(&tk->rp.kp.list);
	if (tk->symbol)
		tk->rp.kp.addr = NULL;
	tk->rp.kp.flags = 0;
}

/*
 * Register the kprobe of a new probe: that of a probe on MOD:SYM only if
 * MOD is loaded, and after the checks its definition could not make
 * while it was not. Return: 0, or a negative errno with an error_log
 * entry.
 */
static int ktp_register_new_kprobe(struct trace_ktp *tk)
{
	unsigned long addr;
	int ret, code;

	if (tk->symbol && strchr(tk->symbol, ':')) {
		ret = ktp_check_symbol(tk->symbol, tk->rp.kp.offset,
				       ktp_is_return(tk), &addr, &code);
		if (ret == -ENODEV)
			return 0;
		if (ret) {
			trace_probe_log_set_index(1);
			__trace_probe_log_err(0, code);
			return ret;
		}
	}
	ret = ktp_register_kprobe(tk);
	/* as kprobe_events: the module went while we looked at it */
	if (ret == -ENOENT && tk->symbol &&
	    !trace_probe_module_exist(tk->symbol))
		return 0;
	if (ret)
		trace_probe_log_register_err(ret);
	return ret;
}

/* The serial number of the last probe registered, under event_mutex */
static u64 ktp_serial;

/*
 * Register the trace event and, for 'p' and 'r', the kprobe (disarmed),
 * under event_mutex. Other kinds hook their probes when enabled.
 */
static int ktp_register(struct trace_ktp *tk)
{
	struct trace_event_call *call = trace_probe_event_call(&tk->tp);
	int ret;

	guard(mutex)(&event_mutex);
	ret = traceprobe_update_args(&tk->tp);
	if (ret)
		return ret;

	if (!ktp_is_kprobe(tk)) {
		call->event.funcs = &ktp_event_funcs;
		call->class->fields_array = trace_probe_eprobe_fields;
	} else if (ktp_is_return(tk)) {
		call->event.funcs = &trace_probe_kretprobe_funcs;
		call->class->fields_array = trace_probe_kretprobe_fields;
	} else {
		call->event.funcs = &trace_probe_kprobe_funcs;
		call->class->fields_array = trace_probe_kprobe_fields;
	}
	call->class->reg = ktp_event_reg;
	/* a probe's event: event probes and KTP's "e" do not take it */
	call->flags |= TRACE_EVENT_FL_KTP;

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
		ret = ktp_register_new_kprobe(tk);
		if (ret) {
			trace_probe_unregister_event_call(&tk->tp);
			return ret;
		}
	}

	tk->serial = ++ktp_serial;
	dyn_event_add(&tk->devent, call);
	/* under event_mutex: no removal of the probe can come before */
	if (tk->kind && tk->kind->defined)
		tk->kind->defined(tk);
	return 0;
}

/* Unregister a probe nothing uses, and free it. */
static int ktp_dyn_release(struct dyn_event *ev)
{
	struct trace_ktp *tk = to_trace_ktp(ev);
	struct trace_event_call *call = trace_probe_event_call(&tk->tp);

	if (trace_probe_is_enabled(&tk->tp) || trace_event_dyn_busy(call))
		return -EBUSY;
	/* Fails while ftrace or perf uses the event */
	if (trace_probe_unregister_event_call(&tk->tp))
		return -EBUSY;

	/* a probe of another kind, disabled, is hooked nowhere */
	if (ktp_is_kprobe(tk))
		ktp_unregister_kprobe(tk);
	dyn_event_remove(&tk->devent);
	trace_probe_unlink(&tk->tp);
	ktp_free(tk);
	return 0;
}

/*
 * kallsyms finds a module's function without its "MOD:" too: name the
 * module, so that the probe arms again when the module loads again, and
 * reads back as the same probe. *@mod_len: the length of "MOD:".
 */
static int ktp_name_module(char **symbol, unsigned long addr, int *mod_len)
{
	char modname[MODULE_NAME_LEN] = "";
	struct module *mod;
	char *name;

	preempt_disable();
	mod = __module_address(addr);
	if (mod)
		strscpy(modname, module_name(mod));
	preempt_enable();
	if (!modname[0])
		return 0;
	name = kasprintf(GFP_KERNEL, "%s:%s", modname, *symbol);
	if (!name)
		return -ENOMEM;
	kfree(*symbol);
	*symbol = name;
	*mod_len = strlen(modname) + 1;
	return 0;
}

/*
 * The probed address of a 'p' or 'r' probe, checked as far as we can: a
 * function of a module that is not loaded is checked when it loads.
 */
static int ktp_parse_kprobe_target(const char *arg, bool is_return,
				   struct traceprobe_parse_context *ctx,
				   struct ktp_target *t)
{
	unsigned long probe_addr;
	bool on_entry;
	int ret, code;

	if (!kstrtoul(arg, 0, (unsigned long *)&t->addr)) {
		if (is_return) {
			trace_probe_log_err(0, BAD_RETPROBE);
			return -EINVAL;
		}
		probe_addr = (unsigned long)t->addr;
		/* a module's function moves when the module loads again */
		if (is_module_address(probe_addr)) {
			trace_probe_log_err(0, KTP_MOD_ADDR);
			return -EINVAL;
		}
		ret = ktp_check_addr(probe_addr, &code);
		if (ret)
			__trace_probe_log_err(0, code);
		return ret;
	}

	t->symbol = kstrdup(arg, GFP_KERNEL);
	if (!t->symbol)
		return -ENOMEM;
	ret = traceprobe_split_symbol_offset(t->symbol, &t->offset);
	if (ret || t->offset < 0 || t->offset > UINT_MAX) {
		trace_probe_log_err(0, BAD_PROBE_ADDR);
		return -EINVAL;
	}
	ret = ktp_check_symbol(t->symbol, t->offset, is_return, &probe_addr,
			       &code);
	if (ret && ret != -ENODEV) {
		__trace_probe_log_err(0, code);
		return ret;
	}
	/* -ENODEV: ktp_register_new_kprobe() checks the rest if it can */
	if (ret && is_return && t->offset) {
		trace_probe_log_err(0, BAD_RETPROBE);
		return -EINVAL;
	}
	on_entry = ret ? !t->offset :
			 !kprobe_on_func_entry(NULL, t->symbol, t->offset);
	if (is_return)
		ctx->flags |= TPARG_FL_RETURN;
	else if (on_entry)
		ctx->flags |= TPARG_FL_FENTRY;

	if (ret || strchr(t->symbol, ':'))
		return 0;
	return ktp_name_module(&t->symbol, probe_addr, &t->mod_len);
}

/**
 * ktp_warn_not_armed() - say why a probe on a module was not armed
 * @tk: the probe
 * @err: the error, as its module came
 *
 * Nobody writes a definition when a module comes: the kernel log says
 * what went wrong, as it does for kprobe events.
 */
static void ktp_warn_not_armed(struct trace_ktp *tk, int err)
{
	pr_warn("ktp: %s/%s is not armed on %s: error %d\n",
		trace_probe_group_name(&tk->tp), trace_probe_name(&tk->tp),
		tk->target, err);
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
 * p[:[GRP/][EVENT]] SYM[+OFFS]|ADDR [FETCHARGS]
 * r[MAXACTIVE][:[GRP/][EVENT]] SYM[+0] [FETCHARGS]
 * and "if COND" after either; other kinds have their own targets.
 */

/* The kinds of probes besides "p" and "r", by their letters */
static const struct ktp_kind *ktp_kinds[26];

/**
 * ktp_register_kind - add a kind of KTP probe
 * @kind: the kind, whose letter no other kind has
 *
 * Called from an initcall, before ktp_probes can be written.
 *
 * Return: 0, or -EINVAL for a letter that is taken or not a lower case
 * letter.
 */
int __init ktp_register_kind(const struct ktp_kind *kind)
{
	char letter = kind->letter;

	if (WARN_ON(letter < 'a' || letter > 'z' || strchr("pr", letter) ||
		    ktp_kinds[letter - 'a']))
		return -EINVAL;
	ktp_kinds[letter - 'a'] = kind;
	return 0;
}

/* A "p" probe made again for the BPF trampoline, see ktp_make_tramp() */
static const struct ktp_kind *ktp_tramp_kind;

/**
 * ktp_register_tramp_kind - add the kind of "p" probes made again as
 *	fentry programs
 * @kind: the kind, never a definition's
 *
 * Return: 0, or -EINVAL if there is one.
 */
int __init ktp_register_tramp_kind(const struct ktp_kind *kind)
{
	if (WARN_ON(ktp_tramp_kind))
		return -EINVAL;
	ktp_tramp_kind = kind;
	return 0;
}

/* The kind of "p" and "r" probes on user space, PATH:OFFSET */
static const struct ktp_kind *ktp_user_kind;

/**
 * ktp_register_user_kind - add the kind of KTP's user-space probes
 * @kind: the kind, which "p" and "r" definitions on PATH:OFFSET take
 *
 * Return: 0, or -EINVAL if there is one.
 */
int __init ktp_register_user_kind(const struct ktp_kind *kind)
{
	if (WARN_ON(ktp_user_kind))
		return -EINVAL;
	ktp_user_kind = kind;
	return 0;
}

/*
 * The kind of a definition's letter, and for "p" and "r" of its target
 * @arg (NULL if it has none): true for "p" and "r" on the kernel. A
 * target with a '/' is a file's PATH:OFFSET, as no kernel symbol or
 * module has one: a bad OFFSET is an error, never a module's symbol.
 */
static bool ktp_find_kind(struct ktp_target *t, const char *arg)
{
	if ((t->type == 'p' || t->type == 'r') && arg && ktp_user_kind &&
	    strchr(arg, '/')) {
		t->kind = ktp_user_kind;
		return true;
	}
	if (t->type == 'p' || t->type == 'r')
		return true;
	if (t->type < 'a' || t->type > 'z')
		return false;
	t->kind = ktp_kinds[t->type - 'a'];
	return t->kind;
}

static void ktp_put_target(struct ktp_target *t)
{
	if (t->kind && t->ref)
		t->kind->put_ref(t->ref);
	kfree(t->symbol);
}

/*
 * Where a word leaves a fetch argument open: inside parentheses or
 * brackets (@depth) or a string literal (@quoted). Returns where it
 * ends: at white space outside them, or at the NUL.
 */
static char *ktp_scan_word(char *p, int *depth, bool *quoted)
{
	for (; *p; p++) {
		if (*quoted) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				*quoted = false;
		} else if (*p == '\\' && p[1] == '"') {
			/* kprobe events' immediate \"STRING\" has no escapes */
			p = strchrnul(p + 2, '"');
			if (!*p)
				break;
		} else if (*p == '"') {
			*quoted = true;
		} else if (*p == '(' || *p == '[') {
			(*depth)++;
		} else if (*p == ')' || *p == ']') {
			(*depth)--;
		} else if (isspace(*p) && *depth <= 0) {
			break;
		}
	}
	return p;
}

/* A definition in words, in one copy of its text */
struct ktp_words {
	char		*text;
	const char	**argv;
	int		argc;
};

static void ktp_free_words(struct ktp_words *w)
{
	kfree(w->argv);
	kfree(w->text);
}

/*
 * Split a definition into words as C reads it. A fetch expression may
 * hold white space inside parentheses, brackets or a string literal, as
 * the cast "(struct file *)" does: it is one word, as written. The
 * condition, all that follows the word "if" but the white space around
 * it, is one word too, byte for byte: the program compares a string
 * literal's spaces and tabs as the user wrote them, and ktp_probes
 * shows the condition so.
 */
static int ktp_split_def(const char *raw, struct ktp_words *w)
{
	bool quoted = false;
	char *p, *end;
	int depth;

	w->text = kstrdup(raw, GFP_KERNEL);
	/* a word is at least one character and a separator */
	w->argv = kcalloc(strlen(raw) / 2 + 2, sizeof(*w->argv), GFP_KERNEL);
	if (!w->text || !w->argv)
		return -ENOMEM;
	w->argc = 0;
	for (p = skip_spaces(w->text); *p; p = skip_spaces(p)) {
		w->argv[w->argc++] = p;
		depth = 0;
		/* the letter and the target are words of their own */
		if (w->argc > 2)
			end = ktp_scan_word(p, &depth, &quoted);
		else
			for (end = p; *end && !isspace(*end); end++)
				;
		if (w->argc > 2 && end - p == 2 && !strncmp(p, "if", 2)) {
			if (*end)
				*end++ = '\0';
			p = strim(end);
			if (*p)
				w->argv[w->argc++] = p;
			break;
		}
		p = end;
		if (*p)
			*p++ = '\0';
	}
	return 0;
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
 * The target of a definition: a kprobe's symbol or address, or what the
 * definition's kind probes (which may give a definition without fetch
 * arguments some: @nargs).
 */
static int ktp_parse_target(struct ktp_target *t, const char *arg, int *nargs,
			    struct traceprobe_parse_context *ctx)
{
	trace_probe_log_set_index(1);
	if (t->kind)
		return t->kind->parse_target(t, arg, nargs, ctx);
	return ktp_parse_kprobe_target(arg, t->type == 'r', ctx, t);
}

/* The event's name when the definition gives none, made in @buf */
static const char *ktp_default_event_name(const struct ktp_target *t,
					  char *buf)
{
	if (t->kind)
		snprintf(buf, MAX_EVENT_NAME_LEN, "%s",
			 t->kind->event_name(t->ref));
	else if (t->symbol)
		snprintf(buf, MAX_EVENT_NAME_LEN, "%c_%s_%ld",
			 t->type, t->symbol + t->mod_len, t->offset);
	else
		snprintf(buf, MAX_EVENT_NAME_LEN, "%c_0x%p", t->type, t->addr);
	sanitize_event_name(buf);
	return buf;
}

/* The probe takes its target: its kind's reference, or its kprobe */
static int ktp_take_target(struct trace_ktp *tk, struct ktp_target *t)
{
	if (!t->kind)
		return ktp_set_kprobe(tk, t->addr, t->symbol, t->offset,
				      t->maxactive, t->type == 'r');
	tk->kind = t->kind;
	tk->ref = t->ref;
	t->ref = NULL;
	if (tk->kind->init)
		tk->kind->init(tk);
	return 0;
}

/*
 * An "r" probe's entry data: trace_probe.c's $argN, the $argN its
 * program reads, then the values its program fetches.
 */
static void ktp_set_entry_data(struct trace_ktp *tk, int nfetch)
{
	int i;

	tk->entry_off = round_up(traceprobe_get_entry_data_size(&tk->tp),
				 sizeof(u64));
	tk->vals_off = tk->entry_off;
	if (tk->prog)
		tk->vals_off += tk->prog->nr_entry_args * sizeof(u64);
	for_each_set_bit(i, tk->prog_args, nfetch)
		tk->tp.args[i].code->offset += tk->vals_off;
	tk->rp.data_size = tk->vals_off;
	if (tk->prog)
		tk->rp.data_size += nfetch * sizeof(u64);
	/* values the program fetches at the return need nothing at entry */
	if (tk->vals_off)
		tk->rp.entry_handler = ktp_kretprobe_entry_handler;
}

/*
 * A probe defined on an address shows as SYM+OFFS (SYM at offset 0),
 * which reads back as the same probe, where SYM names one function; else
 * as the address (a hashed "0x%p" would not read back).
 */
static char *ktp_addr_name(unsigned long addr)
{
	char sym[KSYM_NAME_LEN];
	unsigned long offs;

	if (kallsyms_lookup(addr, NULL, &offs, NULL, sym) &&
	    !trace_probe_validate_module_symbol(NULL, sym))
		return offs ? kasprintf(GFP_KERNEL, "%s+%lu", sym, offs) :
			      kstrdup(sym, GFP_KERNEL);
	return kasprintf(GFP_KERNEL, "0x%lx", addr);
}

/* The probed place as a definition names it and ktp_probes shows it */
static char *ktp_target_name(struct trace_ktp *tk)
{
	if (tk->kind)
		return tk->kind->target_name(tk->ref);
	if (!tk->symbol)
		return ktp_addr_name(tk->addr);
	if (tk->rp.kp.offset)
		return kasprintf(GFP_KERNEL, "%s+%u", tk->symbol,
				 tk->rp.kp.offset);
	return kstrdup(tk->symbol, GFP_KERNEL);
}

/*
 * Is @tk made again from its definition each time the module its target
 * names ("MOD:") comes, so that the names it reads, their addresses and
 * types are that load's? A "p" or "r" probe with a program (without one,
 * the @SYM of its fetch arguments are found again), and a probe of a
 * kind that arms itself then.
 */
static bool ktp_remade_at_load(struct trace_ktp *tk)
{
	if (ktp_is_kprobe(tk))
		return tk->prog && tk->symbol && strchr(tk->symbol, ':');
	return tk->kind->module_coming && strchr(tk->target, ':');
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
	tk->target = ktp_target_name(tk);
	if (!tk->target)
		return -ENOMEM;

	ctx->funcname = t->symbol;
	if (tk->kind && tk->kind->default_args && !nfetch) {
		trace_probe_log_set_index(1);
		ret = tk->kind->default_args(tk, ctx);
		if (ret)
			return ret;
	}
	ret = ktp_parse_args(tk, nfetch, argv, cond_idx, argc, ctx,
			     t->load_later);
	if (ret)
		return ret;
	if (!tk->kind && t->type == 'r')
		ktp_set_entry_data(tk, nfetch);
	if (ktp_remade_at_load(tk)) {
		tk->cred = get_current_cred();
		tk->memcg = get_mem_cgroup_from_current();
	}

	ret = traceprobe_set_print_fmt(&tk->tp, !ktp_is_kprobe(tk) ?
					PROBE_PRINT_EVENT :
					t->type == 'r' ? PROBE_PRINT_RETURN :
					PROBE_PRINT_NORMAL);
	return ret < 0 ? ret : 0;
}

/*
 * Make the probe a definition asks for, in *@made. A probe made but not
 * returned is freed on return (__free()), so that this function returns
 * at once where it fails: no goto.
 */
static int ktp_make(int argc, const char *argv[], struct ktp_target *t,
		    struct traceprobe_parse_context *ctx,
		    struct trace_ktp **made)
{
	const char *event = NULL, *group = KTP_EVENT_SYSTEM;
	char gbuf[MAX_EVENT_NAME_LEN], buf[MAX_EVENT_NAME_LEN];
	int nargs, nfetch, cond_idx = 0, ret;
	struct trace_ktp *tk __free(ktp_free) = NULL;

	ret = security_locked_down(LOCKDOWN_KPROBES);
	if (ret)
		return ret;

	if (!t->kind && !ktp_find_kind(t, argc > 1 ? argv[1] : NULL)) {
		trace_probe_log_err(0, KTP_BAD_TYPE);
		return -EINVAL;
	}

	event = strchr(&argv[0][1], ':');
	if (event)
		event++;
	ret = ktp_parse_maxactive(&argv[0][1], event ? event - &argv[0][1] - 1 :
				  strlen(&argv[0][1]), t->type == 'r',
				  &t->maxactive);
	if (ret)
		return ret;

	if (argc < 2) {
		trace_probe_log_set_index(1);
		trace_probe_log_err(0, KTP_NO_TARGET);
		return -EINVAL;
	}

	nargs = ktp_count_args(argc, argv, &cond_idx);
	if (nargs < 0)
		return nargs;
	nfetch = nargs;
	ret = ktp_parse_target(t, argv[1], &nargs, ctx);
	if (ret)
		return ret;

	/* GRP/EVENT as the definition names them, or the defaults */
	trace_probe_log_set_index(0);
	if (event && traceprobe_parse_event_name(&event, &group, gbuf,
						 event - argv[0]))
		return -EINVAL;
	/* "GRP/" names the group only */
	if (!event)
		event = ktp_default_event_name(t, buf);

	tk = ktp_alloc(group, event, nargs);
	if (IS_ERR(tk))
		return PTR_ERR(tk);
	ret = ktp_build(tk, t, nfetch, argv, cond_idx, argc, ctx);
	if (ret)
		return ret;
	*made = no_free_ptr(tk);
	return 0;
}

/* Do @tk and @made, of the same definition, record the same fields? */
static bool ktp_same_fields(struct trace_ktp *tk, struct trace_ktp *made)
{
	struct probe_arg *a, *b;
	int i;

	if (made->tp.nr_args != tk->tp.nr_args || made->tp.size != tk->tp.size)
		return false;
	for (i = 0; i < tk->tp.nr_args; i++) {
		a = &tk->tp.args[i];
		b = &made->tp.args[i];
		if (a->type != b->type || a->count != b->count ||
		    a->offset != b->offset || strcmp(a->name, b->name))
			return false;
	}
	return true;
}

/*
 * A "p" probe at the entry of a function of vmlinux, with a program, is
 * made again as a fentry program on the function's BPF trampoline, which
 * calls it with the function's arguments for a third of what its kprobe
 * costs (the full pt_regs of an ftrace_regs_caller, the kprobe's
 * handler). It can be where the program reads no registers, no stack
 * and only the arguments a trampoline passes; where it cannot, or the
 * JIT is off, the probe stays on its kprobe. Nothing is logged: the
 * definition was made. Return: 0, or -ENOMEM, which fails the
 * definition, as any lack of memory does.
 */
static int ktp_make_tramp(struct trace_ktp *tk, int argc, const char *argv[])
{
	struct traceprobe_parse_context ctx = { .flags = TPARG_FL_KERNEL };
	struct ktp_target t = { .type = 'p', .kind = ktp_tramp_kind };
	struct trace_ktp *made = NULL;
	int ret;

	if (!ktp_tramp_kind || !ktp_is_kprobe(tk) || ktp_is_return(tk) ||
	    !tk->prog || !tk->symbol || strchr(tk->symbol, ':') ||
	    tk->rp.kp.offset)
		return 0;
	trace_probe_log_clear();
	ret = ktp_make(argc, argv, &t, &ctx, &made);
	if (!ret && made->prog && ktp_same_fields(tk, made)) {
		ret = traceprobe_update_args(&made->tp);
		if (!ret)
			swap(tk->tramp, made);
	}
	traceprobe_finish_parse(&ctx);
	ktp_put_target(&t);
	ktp_free(made);
	trace_probe_log_init("trace_ktp", argc, argv);
	return ret == -ENOMEM ? ret : 0;
}

/* Make the probe a definition asks for and register it. */
static int ktp_define(int argc, const char *argv[], struct ktp_target *t,
		      struct traceprobe_parse_context *ctx)
{
	struct trace_ktp *tk __free(ktp_free) = NULL;
	int ret;

	ret = ktp_make(argc, argv, t, ctx, &tk);
	if (ret)
		return ret;
	ret = ktp_make_tramp(tk, argc, argv);
	if (ret)
		return ret;
	ret = ktp_register(tk);
	if (!ret)
		retain_and_null_ptr(tk);	/* the dynamic event list has it */
	return ret;
}

#ifdef CONFIG_MODULES
/*
 * Make a probe again from its definition, unregistered, when the module
 * its target names comes, its program not loaded yet (ktp_prog_load()).
 * The caller holds dyn_event_ops_mutex, for error_log, where errors go as
 * a definition's do.
 */
static struct trace_ktp *ktp_remake(int argc, const char *argv[])
{
	struct traceprobe_parse_context ctx = { .flags = TPARG_FL_KERNEL };
	struct ktp_target t = { .type = argv[0][0], .load_later = true };
	struct trace_ktp *tk = NULL;
	int ret;

	lockdep_assert_held(&dyn_event_ops_mutex);
	trace_probe_log_init("trace_ktp", argc, argv);
	ret = ktp_make(argc, argv, &t, &ctx, &tk);
	traceprobe_finish_parse(&ctx);
	trace_probe_log_clear();
	ktp_put_target(&t);
	return ret ? ERR_PTR(ret) : tk;
}

/**
 * ktp_take_prog() - take the program and the fetch instructions of a
 *	probe made again
 * @tk: the probe, with no handler running its program
 * @made: its definition, made again when the module of its target came
 *
 * The fields must be the same, names and types, and so must what an "r"
 * probe keeps from the entry. @tk's program, if it has one, goes to
 * @made, and is freed with it.
 *
 * Return: 0, or -EINVAL if the fields differ, or what
 * traceprobe_update_arg() returns.
 */
int ktp_take_prog(struct trace_ktp *tk, struct trace_ktp *made)
{
	int ret;

	if (!ktp_same_fields(tk, made) || made->entry_off != tk->entry_off ||
	    made->rp.data_size != tk->rp.data_size)
		return -EINVAL;
	ret = traceprobe_update_args(&made->tp);
	if (ret)
		return ret;
	ktp_swap_prog(tk, made);
	return 0;
}

/*
 * A probe to make again as its module comes: the words of its
 * definition, its definer's credentials and memory cgroup, copied under
 * event_mutex. It is made without event_mutex, on which enabling,
 * disabling and opening every event wait, and without holding off its
 * removal: the probe takes what was made only if it is still there,
 * found again by its address and serial number. Its program is verified
 * and JITed with no lock of tracing held: not dyn_event_ops_mutex
 * either, which every write to a dynamic event file waits on.
 */
struct ktp_remade {
	struct list_head	list;
	struct trace_ktp	*tk;		/* compared only */
	u64			serial;
	int			argc;
	char			**argv;
	const struct cred	*cred;
	struct mem_cgroup	*memcg;
	struct trace_ktp	*made;		/* or an ERR_PTR() */
};

static void ktp_remade_free(struct list_head *list)
{
	struct ktp_remade *r, *n;
	int i;

	list_for_each_entry_safe(r, n, list, list) {
		ktp_free(r->made);
		for (i = 0; r->argv && i < r->argc; i++)
			kfree(r->argv[i]);
		kfree(r->argv);
		if (r->cred)
			put_cred(r->cred);
		mem_cgroup_put(r->memcg);
		kfree(r);
	}
}

/* The words of @tk's definition, as ktp_probes shows them */
static int ktp_remade_words(struct ktp_remade *r, struct trace_ktp *tk)
{
	int i, nr = tk->tp.nr_args;
	char **argv;

	r->argc = 2 + nr + (tk->cond ? 2 : 0);
	argv = kcalloc(r->argc, sizeof(*argv), GFP_KERNEL);
	r->argv = argv;
	if (!argv)
		return -ENOMEM;
	if (tk->maxactive)
		argv[0] = kasprintf(GFP_KERNEL, "%c%u:%s/%s",
				    ktp_def_letter(tk), tk->maxactive,
				    trace_probe_group_name(&tk->tp),
				    trace_probe_name(&tk->tp));
	else
		argv[0] = kasprintf(GFP_KERNEL, "%c:%s/%s", ktp_def_letter(tk),
				    trace_probe_group_name(&tk->tp),
				    trace_probe_name(&tk->tp));
	argv[1] = kstrdup(tk->target, GFP_KERNEL);
	for (i = 0; i < nr; i++) {
		if (tk->exprs && tk->exprs[i])
			argv[2 + i] = kstrdup(tk->exprs[i], GFP_KERNEL);
		else
			argv[2 + i] = kasprintf(GFP_KERNEL, "%s=%s",
						tk->tp.args[i].name,
						tk->tp.args[i].comm);
	}
	if (tk->cond) {
		argv[2 + nr] = kstrdup("if", GFP_KERNEL);
		argv[3 + nr] = kstrdup(tk->cond, GFP_KERNEL);
	}
	for (i = 0; i < r->argc; i++)
		if (!argv[i])
			return -ENOMEM;
	return 0;
}

/*
 * Under event_mutex: what ktp_remade_make() needs to make @tk again.
 * Return: 0, or -ENOMEM if there is no room to say @tk could not be made.
 */
static int ktp_remade_add(struct list_head *list, struct trace_ktp *tk)
{
	struct ktp_remade *r;
	int ret;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	list_add_tail(&r->list, list);
	r->tk = tk;
	r->serial = tk->serial;
	r->cred = get_cred(tk->cred);
	if (mem_cgroup_tryget(tk->memcg))
		r->memcg = tk->memcg;
	ret = ktp_remade_words(r, tk);
	if (ret)
		r->made = ERR_PTR(ret);
	return 0;
}

/* What ktp_remade_enter() replaced, for ktp_remade_leave() */
struct ktp_remade_saved {
	const struct cred	*cred;
	struct mem_cgroup	*memcg;
};

/*
 * Act as @r's definer: its credentials for the checks of the parser and
 * of bpf, its memory cgroup charged, not the loading process's.
 */
static void ktp_remade_enter(struct ktp_remade *r,
			     struct ktp_remade_saved *saved)
{
	saved->cred = override_creds(r->cred);
	saved->memcg = set_active_memcg(r->memcg);
}

static void ktp_remade_leave(struct ktp_remade_saved *saved)
{
	set_active_memcg(saved->memcg);
	revert_creds(saved->cred);
}

/* As its definer, with error_log's lock: make the probe again, unloaded */
static void ktp_remade_make(struct ktp_remade *r)
{
	struct ktp_remade_saved saved;

	ktp_remade_enter(r, &saved);
	r->made = ktp_remake(r->argc, (const char **)r->argv);
	ktp_remade_leave(&saved);
}

/* As its definer, with no lock held: verify and JIT what was made */
static void ktp_remade_load(struct ktp_remade *r)
{
	struct ktp_remade_saved saved;
	int ret;

	if (IS_ERR_OR_NULL(r->made) || !r->made->prog)
		return;
	ktp_remade_enter(r, &saved);
	ret = ktp_prog_load(r->made->prog);
	ktp_remade_leave(&saved);
	if (ret) {
		ktp_free(r->made);
		r->made = ERR_PTR(ret);
	}
}

/*
 * What was made of @tk's definition: NULL if @tk did not need it, or was
 * defined after the list was made (as the module came), an ERR_PTR() if
 * it could not be made.
 */
static struct trace_ktp *ktp_remade_of(struct list_head *list,
				       struct trace_ktp *tk, u64 listed)
{
	struct ktp_remade *r;

	if (!ktp_remade_at_load(tk) || tk->serial > listed)
		return NULL;
	list_for_each_entry(r, list, list)
		if (r->tk == tk && r->serial == tk->serial)
			return r->made;
	return ERR_PTR(-ENOMEM);	/* ktp_remade_add() failed */
}

/* Is @tk on a function or tracepoint of @mod, which its target names? */
static bool ktp_on_module(struct trace_ktp *tk, struct module *mod)
{
	if (ktp_is_kprobe(tk))
		return tk->symbol && trace_probe_within_module(tk->symbol, mod);
	return tk->kind->module_coming &&
	       trace_probe_within_module(tk->target, mod);
}

/*
 * The kprobe of a "p" or "r" probe on a function of a module that comes,
 * registered again where the function is now, with the @SYM of its fetch
 * arguments found again (as kprobe events find them at each
 * registration) and the program @made, if it has one.
 */
static int ktp_kprobe_module_coming(struct trace_ktp *tk,
				    struct trace_ktp *made)
{
	unsigned long addr;
	int ret, code;

	/* the kprobe of the module's last load, gone */
	ktp_unregister_kprobe(tk);
	if (IS_ERR(made))
		return PTR_ERR(made);
	ret = ktp_check_symbol(tk->symbol, tk->rp.kp.offset,
			       ktp_is_return(tk), &addr, &code);
	if (!ret)
		ret = traceprobe_update_args(&tk->tp);
	if (!ret && made)
		ret = ktp_take_prog(tk, made);
	return ret ?: ktp_register_kprobe(tk);
}

/*
 * A module comes: arm the probes on it again, where its functions and
 * tracepoints are now, those with programs made again from their
 * definitions. When it goes, kprobes marks the kprobes gone, and kinds
 * unhook their probes; the probes keep their events, enable state,
 * triggers and counters.
 */
static int ktp_module_coming(struct notifier_block *nb, unsigned long val,
			     void *data)
{
	struct module *mod = data;
	struct trace_ktp *tk, *made;
	struct ktp_remade *r;
	struct dyn_event *pos;
	LIST_HEAD(remade);
	u64 listed;
	int ret;

	if (val != MODULE_STATE_COMING)
		return NOTIFY_DONE;

	scoped_guard(mutex, &event_mutex) {
		listed = ktp_serial;
		for_each_dyn_event(pos) {
			tk = ktp_of_dyn_event(pos);
			if (tk && ktp_on_module(tk, mod) &&
			    ktp_remade_at_load(tk) &&
			    ktp_remade_add(&remade, tk))
				break;	/* the rest as ktp_remade_of() says */
		}
	}

	/* parsed as a definition, with error_log's lock */
	if (!list_empty(&remade)) {
		guard(mutex)(&dyn_event_ops_mutex);
		list_for_each_entry(r, &remade, list)
			if (!r->made)
				ktp_remade_make(r);
	}
	/* loaded, verified and JITed with no lock held */
	list_for_each_entry(r, &remade, list)
		ktp_remade_load(r);

	scoped_guard(mutex, &event_mutex) {
		for_each_dyn_event(pos) {
			tk = ktp_of_dyn_event(pos);
			if (!tk || !ktp_on_module(tk, mod))
				continue;
			made = ktp_remade_of(&remade, tk, listed);
			ret = tk->kind ? tk->kind->module_coming(tk, mod, made) :
			      ktp_kprobe_module_coming(tk, made);
			if (ret)
				ktp_warn_not_armed(tk, ret);
		}
	}
	ktp_remade_free(&remade);
	return NOTIFY_DONE;
}

/*
 * After kprobes' notifier (priority 0) has added the module's blacklist,
 * which ktp_check_symbol() reads, and after the BTF and BPF notifiers,
 * which make the module's BTF and tracepoints known to BPF.
 */
static struct notifier_block ktp_module_nb = {
	.notifier_call	= ktp_module_coming,
	.priority	= -1,
};

static __init int ktp_module_init(void)
{
	return register_module_notifier(&ktp_module_nb);
}
fs_initcall(ktp_module_init);
#endif /* CONFIG_MODULES */

static int ktp_create(const char *raw_command)
{
	struct traceprobe_parse_context ctx = { .flags = TPARG_FL_KERNEL };
	struct ktp_words w = {};
	struct ktp_target t = {};
	int ret;

	ret = ktp_split_def(raw_command, &w);
	if (!ret && w.argc) {
		t.type = w.argv[0][0];
		trace_probe_log_init("trace_ktp", w.argc, w.argv);
		ret = ktp_define(w.argc, w.argv, &t, &ctx);
		traceprobe_finish_parse(&ctx);
		trace_probe_log_clear();
		ktp_put_target(&t);
	}
	ktp_free_words(&w);
	return ret;
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

static bool ktp_dyn_is_busy(struct dyn_event *ev)
{
	return trace_probe_is_enabled(&to_trace_ktp(ev)->tp);
}

struct dyn_event_operations ktp_dyn_ops = {
	.create = ktp_dyn_create,
	.show = ktp_dyn_show,
	.is_busy = ktp_dyn_is_busy,
	.free = ktp_dyn_release,
	.match = ktp_dyn_match,
};

/**
 * ktp_create_or_delete - one line written to ktp_probes
 * @raw_command: a definition, or "-:[GRP/]EVENT" to remove a probe
 *
 * Return: 0, or a negative errno with an error_log entry.
 */
int ktp_create_or_delete(const char *raw_command)
{
	if (raw_command[0] == '-')
		return dyn_event_release(raw_command, &ktp_dyn_ops);

	return dyn_event_create(raw_command, &ktp_create_ops);
}
