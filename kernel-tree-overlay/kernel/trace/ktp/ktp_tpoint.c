// SPDX-License-Identifier: GPL-2.0
/*
 * KTP: "t" probes, on tracepoints. A "t" probe's program is a BTF raw
 * tracepoint program (BPF_PROG_TYPE_TRACING, BPF_TRACE_RAW_TP) on the
 * tracepoint's arguments, which reads them as $arg1..$argN. It is
 * attached by a BPF link while the probe is enabled. When its condition
 * holds it calls the kfuncs ktp_tp_enter() and ktp_tp_record(), which
 * count the hit and write its records; it counts a false one itself.
 *
 * The link is KTP's (bpf_raw_tp_link_create_kern()): no process has an
 * fd of it, and it holds no module. A probe on a module's tracepoint is
 * attached only while the module is loaded: its module notifiers attach
 * it when the module comes, if the probe is enabled, and detach it when
 * the module goes.
 */
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/filter.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "../trace_btf.h"
#include "../trace_probe.h"
#include "ktp_probe.h"
#include "ktp_hit.h"
#include "trace_ktp.h"
#include "ktp_tpoint.h"

/*
 * A "t" probe's target: its tracepoint, and while the probe is enabled
 * and the tracepoint there its link. @btp and @mod are NULL
 * while the module of its tracepoint is not loaded; the module is held
 * only while the probe is being defined (@mod_held). A probe on a
 * module's tracepoint has its program made again each time the module
 * comes (one defined before its module loads has none until then): see
 * ktp_tpoint_module_coming().
 */
struct ktp_tpoint {
	struct bpf_raw_event_map	*btp;
	struct bpf_link			*link;
	char				*name;
	char				*target;	/* MOD:NAME in a module */
	unsigned int			num_args;
	bool				in_module;
	struct module			*mod;		/* only to compare */
	bool				mod_held;
};

/* The module a tracepoint is in, or NULL for vmlinux's */
static struct module *ktp_btp_module(struct bpf_raw_event_map *btp)
{
	struct module *mod;

	preempt_disable();
	mod = __module_address((unsigned long)btp);
	preempt_enable();
	return mod;
}

static void ktp_tpoint_put(void *ref)
{
	struct ktp_tpoint *tpoint = ref;

	if (tpoint->btp && (!tpoint->in_module || tpoint->mod_held))
		bpf_put_raw_tracepoint(tpoint->btp);
	kfree(tpoint->target);
	kfree(tpoint->name);
	kfree(tpoint);
}

/* Is SYSTEM:EVENT, @len characters of SYSTEM, a trace event's name? */
static bool ktp_names_event(const char *arg, int len)
{
	char system[MAX_EVENT_NAME_LEN];

	if (len >= MAX_EVENT_NAME_LEN)
		return false;
	strscpy(system, arg, len + 1);
	guard(mutex)(&event_mutex);
	return find_event_file(top_trace_array(), system, arg + len + 1);
}

/*
 * MOD:NAME, where module MOD is not loaded: a probe without a program
 * until MOD comes with its tracepoint NAME, if it does. Its expressions
 * are checked now, as far as they can be without the tracepoint.
 */
static int ktp_tpoint_parse_stub(struct ktp_tpoint *tpoint, const char *arg,
				 int len)
{
	if (ktp_names_event(arg, len)) {
		trace_probe_log_err(len, KTP_T_NOT_EVENT);
		return -EINVAL;
	}
	tpoint->in_module = true;
	tpoint->num_args = MAX_BPF_FUNC_ARGS;
	return 0;
}

/*
 * MOD's tracepoint NAME, of @target "MOD:NAME", with a reference of MOD,
 * or NULL if MOD is not loaded or has none: MOD's own also where vmlinux
 * or another module has one of that name, which
 * bpf_get_raw_tracepoint(NAME) finds first. bpf_put_raw_tracepoint()
 * lets go of it.
 */
static struct bpf_raw_event_map *ktp_module_tracepoint(const char *target,
						       const char *name)
{
	struct bpf_raw_event_map *btp;
	struct module *mod;

	mod = trace_probe_module_get(target);
	if (!mod)
		return NULL;
	btp = bpf_module_raw_tracepoint(mod, name);
	if (!btp)
		module_put(mod);
	return btp;
}

/*
 * A new struct ktp_tpoint named @name, which @t refers to: put_ref frees
 * it with what it holds, also when the parse fails later. NULL when
 * there is no memory for it.
 */
static struct ktp_tpoint *ktp_tpoint_new(struct ktp_target *t,
					 const char *name)
{
	struct ktp_tpoint *tpoint = kzalloc(sizeof(*tpoint), GFP_KERNEL);

	if (!tpoint)
		return NULL;
	t->ref = tpoint;
	tpoint->name = kstrdup(name, GFP_KERNEL);
	return tpoint->name ? tpoint : NULL;
}

/*
 * The tracepoint a "t" probe runs on, [MOD:]NAME, with a reference; MOD
 * need not be loaded.
 */
static int ktp_tpoint_parse_target(struct ktp_target *t, const char *arg,
				   int *nargs,
				   struct traceprobe_parse_context *ctx)
{
	const char *colon = strchr(arg, ':');
	const char *name = colon ? colon + 1 : arg;
	struct ktp_tpoint *tpoint;
	struct module *mod = NULL;
	int ret;

	if (colon == arg || strpbrk(name, ":./")) {
		trace_probe_log_err(colon == arg ? 0 : name - arg +
				    strcspn(name, ":./"), KTP_T_NOT_EVENT);
		return -EINVAL;
	}
	tpoint = ktp_tpoint_new(t, name);
	if (!tpoint)
		return -ENOMEM;
	/* MOD:NAME is MOD's tracepoint, and no other's */
	if (colon)
		tpoint->btp = ktp_module_tracepoint(arg, name);
	else
		tpoint->btp = bpf_get_raw_tracepoint(name);
	if (tpoint->btp)
		mod = ktp_btp_module(tpoint->btp);
	if (!tpoint->btp && (!colon || trace_probe_module_exist(arg))) {
		trace_probe_log_err(name - arg, NO_TRACEPOINT);
		return -ENOENT;
	}
	if (tpoint->btp) {
		tpoint->in_module = mod;
		tpoint->mod = mod;
		tpoint->mod_held = mod;
		tpoint->num_args = tpoint->btp->num_args;
	} else {
		ret = ktp_tpoint_parse_stub(tpoint, arg, colon - arg);
		if (ret)
			return ret;
	}
	/* a module's tracepoint reads back with its module's name */
	if (tpoint->in_module && !colon)
		tpoint->target = kasprintf(GFP_KERNEL, "%s:%s",
					   module_name(mod), name);
	else
		tpoint->target = kstrdup(arg, GFP_KERNEL);
	if (!tpoint->target)
		return -ENOMEM;
	/* $argN: FETCH_OP_ARG, see ktp_tpoint_fetch_arg() */
	ctx->flags |= TPARG_FL_FENTRY;
	return 0;
}

/*
 * The probe is defined: its module may go now, since the tracepoint
 * module notifier detaches the probe first (see ktp_tpoint_module_notify()).
 */
static void ktp_tpoint_defined(struct trace_ktp *tk)
{
	struct ktp_tpoint *tpoint = tk->ref;

	if (!tpoint->mod_held)
		return;
	tpoint->mod_held = false;
	bpf_put_raw_tracepoint(tpoint->btp);
}

static const char *ktp_tpoint_name(void *ref)
{
	return ((struct ktp_tpoint *)ref)->name;
}

static char *ktp_tpoint_target_name(void *ref)
{
	return kstrdup(((struct ktp_tpoint *)ref)->target, GFP_KERNEL);
}

static void ktp_tpoint_print_target(struct trace_seq *s, void *ref)
{
	trace_seq_puts(s, ktp_tpoint_name(ref));
}

/* The entry data: the tracepoint's arguments, then the fetched values */
static void ktp_tpoint_init(struct trace_ktp *tk)
{
	tk->vals_off = ((struct ktp_tpoint *)tk->ref)->num_args * sizeof(u64);
}

/*
 * A "t" probe's fetch argument: its $argN is the tracepoint's Nth
 * argument, which its program copies first in the entry data (or
 * fetches as a value, see ktp_tpoint_fetch_raw_in_prog()). There are no
 * registers and no stack to read.
 */
static int ktp_tpoint_fetch_arg(struct trace_ktp *tk, struct probe_arg *parg)
{
	struct fetch_insn *code;

	for (code = parg->code; code->op != FETCH_OP_END; code++) {
		switch (code->op) {
		case FETCH_OP_ARG:
			if (code->param >=
			    ((struct ktp_tpoint *)tk->ref)->num_args) {
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

/* The kfuncs a "t" probe's program ends in, for the compiler */
BTF_ID_LIST(ktp_tpoint_kfunc_btf_ids)
BTF_ID(func, ktp_tp_enter)
BTF_ID(func, ktp_tp_record)

static int ktp_tpoint_set_env(struct trace_ktp *tk, struct ktp_expr_env *env)
{
	struct ktp_tpoint *tpoint = tk->ref;

	/* ktp_tp_enter() and the others: the verifier asks for it */
	if (!ebpf_jit_enabled()) {
		trace_probe_log_set_index(0);
		trace_probe_log_err(0, KTP_T_NEEDS_JIT);
		return -EOPNOTSUPP;
	}
	env->flags = KTP_ENV_TPOINT;
	env->nr_args = tpoint->num_args;
	env->tpoint = tpoint->name;
	/* not loaded: no BTF, no program until the module comes */
	if (tpoint->in_module && !tpoint->btp) {
		env->flags |= KTP_ENV_CHECK;
		env->tpoint = tpoint->target;
	}
	env->kfuncs = ktp_tpoint_kfunc_btf_ids;
	return 0;
}

/*
 * N of the "$argN" that fetch argument @i stores as it is, or 0 if it is
 * not one.
 */
static unsigned int ktp_tpoint_arg_num(struct trace_ktp *tk, int i)
{
	struct fetch_insn *code = tk->tp.args[i].code;

	/* below vals_off: the arguments ktp_tpoint_fetch_arg() points to */
	if (code->op != FETCH_OP_EDATA || code->offset >= tk->vals_off ||
	    code[1].op != FETCH_OP_ST_RAW || code[2].op != FETCH_OP_END)
		return 0;
	return code->offset / sizeof(u64) + 1;
}

/* The program fetches an "$argN" stored as it is, as a value. */
static int ktp_tpoint_fetch_raw_in_prog(struct trace_ktp *tk,
					struct ktp_compiler *comp, int i)
{
	unsigned int num = ktp_tpoint_arg_num(tk, i);

	if (!num)
		return 0;
	return ktp_compile_fetch_tpoint_arg(comp, num, i) ?: 1;
}

/*
 * Does a fetch instruction still read the tracepoint's arguments (a
 * dereference, a string)? Only then does the program copy them.
 */
static void ktp_tpoint_prog_ready(struct trace_ktp *tk,
				  struct ktp_compiler *comp)
{
	struct fetch_insn *code;
	int i;

	for (i = 0; i < tk->tp.nr_args; i++) {
		for (code = tk->tp.args[i].code; code->op != FETCH_OP_END; code++) {
			if (code->op == FETCH_OP_EDATA &&
			    code->offset < tk->vals_off) {
				ktp_compiler_copy_tpoint_args(comp);
				return;
			}
		}
	}
}

/*
 * Attach the probe's program to its tracepoint by a BPF link that KTP
 * holds, with an id (bpftool link show lists it), as the bpf() system
 * call would attach it, but with no fd and no reference of a module.
 */
static int ktp_tpoint_attach(struct trace_ktp *tk)
{
	struct ktp_tpoint *tpoint = tk->ref;
	struct bpf_link *link;

	/* what the kfuncs find by the program's id (ktp_tpoint_by_id()) */
	tk->prog->owner = tk;
	bpf_prog_inc(tk->prog->prog);
	link = bpf_raw_tp_link_create_kern(tk->prog->prog, tpoint->btp, 0);
	if (IS_ERR(link)) {
		bpf_prog_put(tk->prog->prog);
		return PTR_ERR(link);
	}
	tpoint->link = link;
	return 0;
}

/*
 * Detach the link; one bpf() took by its id may outlive it, defunct.
 * No hit is recorded once this returns: no handler runs the program any
 * more.
 */
static void ktp_tpoint_detach(struct ktp_tpoint *tpoint)
{
	if (!tpoint->link)
		return;
	bpf_raw_tp_link_detach_kern(tpoint->link);
	tracepoint_synchronize_unregister();
	bpf_link_put(tpoint->link);
	tpoint->link = NULL;
}

static int ktp_tpoint_enable(struct trace_ktp *tk,
			     struct trace_event_file *file, bool first)
{
	struct ktp_tpoint *tpoint = tk->ref;

	if (!first)
		return 0;
	/* else attached when the module comes, see ktp_tpoint_module_coming() */
	if (!tpoint->btp || !tk->prog)
		return 0;
	return ktp_tpoint_attach(tk);
}

static void ktp_tpoint_disable(struct trace_ktp *tk,
			       struct trace_event_file *file, bool last)
{
	if (last)
		ktp_tpoint_detach(tk->ref);
}

#ifdef CONFIG_MODULES
/*
 * The module of the probe's tracepoint comes: the probe takes the program
 * made again with the tracepoint's BTF, the module's symbols and types
 * where they are now, and is attached if it is enabled. (The BTF and BPF
 * notifiers, which make the module's BTF and tracepoints known to BPF,
 * have run.)
 */
static int ktp_tpoint_module_coming(struct trace_ktp *tk, struct module *mod,
				    struct trace_ktp *made)
{
	struct ktp_tpoint *tpoint = tk->ref;
	struct bpf_raw_event_map *btp;
	int ret;

	/* armed: defined as the module came */
	if (tpoint->btp)
		return 0;
	if (IS_ERR(made))
		return PTR_ERR(made);
	btp = bpf_module_raw_tracepoint(mod, tpoint->name);
	if (!btp || !made)
		return -ENOENT;
	ret = ktp_take_prog(tk, made);
	if (ret)
		return ret;
	tpoint->num_args = ((struct ktp_tpoint *)made->ref)->num_args;
	tpoint->btp = btp;
	tpoint->mod = mod;
	return trace_probe_is_enabled(&tk->tp) ? ktp_tpoint_attach(tk) : 0;
}
#else
#define ktp_tpoint_module_coming	NULL
#endif

static const struct ktp_kind ktp_tpoint_kind = {
	.letter			= 't',
	/* the program is what runs on the tracepoint */
	.needs_prog		= true,
	.parse_target		= ktp_tpoint_parse_target,
	.put_ref		= ktp_tpoint_put,
	.event_name		= ktp_tpoint_name,
	.target_name		= ktp_tpoint_target_name,
	.print_target		= ktp_tpoint_print_target,
	.init			= ktp_tpoint_init,
	.fetch_arg		= ktp_tpoint_fetch_arg,
	.set_env		= ktp_tpoint_set_env,
	.fetch_raw_in_prog	= ktp_tpoint_fetch_raw_in_prog,
	.prog_ready		= ktp_tpoint_prog_ready,
	.enable			= ktp_tpoint_enable,
	.disable		= ktp_tpoint_disable,
	.defined		= ktp_tpoint_defined,
	.module_coming		= ktp_tpoint_module_coming,
};

/*
 * A "p" probe at the entry of a function of vmlinux, made again as a
 * fentry program on the function's BPF trampoline (see ktp_make_tramp()
 * in trace_ktp.c): its program reads the function's arguments as a "t"
 * probe's reads a tracepoint's, from the u64 array the trampoline
 * passes, and ends in the same kfuncs. Not a kind of definition: only
 * trace_ktp.c makes such probes, of its "p" ones, and never registers
 * them. Any failure leaves the probe on its kprobe, and says nothing.
 */
static int ktp_tramp_parse_target(struct ktp_target *t, const char *arg,
				  int *nargs,
				  struct traceprobe_parse_context *ctx)
{
	const struct btf_param *params;
	const struct btf_type *proto, *p;
	struct ktp_tpoint *tpoint;
	struct btf *btf;
	long offset;
	u32 i, nr;

	if (t->type != 'p' || strchr(arg, ':') || !ebpf_jit_enabled())
		return -EOPNOTSUPP;
	tpoint = ktp_tpoint_new(t, arg);
	if (!tpoint)
		return -ENOMEM;
	if (traceprobe_split_symbol_offset(tpoint->name, &offset) || offset)
		return -EOPNOTSUPP;
	tpoint->target = kstrdup(tpoint->name, GFP_KERNEL);
	t->symbol = kstrdup(tpoint->name, GFP_KERNEL);
	if (!tpoint->target || !t->symbol)
		return -ENOMEM;
	if (btf_find_vmlinux_by_name_kind(tpoint->name, BTF_KIND_FUNC) <= 0)
		return -EOPNOTSUPP;
	proto = btf_find_func_proto(tpoint->name, &btf);
	if (!proto)
		return -EOPNOTSUPP;
	/*
	 * $argN is the Nth word the trampoline passes where every argument
	 * is one: integers, enums and pointers, no varargs
	 */
	nr = btf_type_vlen(proto);
	params = btf_params(proto);
	for (i = 0; i < nr; i++) {
		p = btf_type_skip_modifiers(btf, params[i].type, NULL);
		if (!p || !(btf_type_is_ptr(p) || btf_is_any_enum(p) ||
			    (btf_type_is_int(p) && p->size <= sizeof(u64))))
			break;
	}
	btf_put(btf);
	if (i < nr || nr > MAX_BPF_FUNC_ARGS)
		return -EOPNOTSUPP;
	tpoint->num_args = nr;
	ctx->flags |= TPARG_FL_FENTRY;
	return 0;
}

static int ktp_tramp_set_env(struct trace_ktp *tk, struct ktp_expr_env *env)
{
	struct ktp_tpoint *tpoint = tk->ref;

	env->flags = KTP_ENV_TPOINT | KTP_ENV_TRAMP;
	env->nr_args = tpoint->num_args;
	env->func = tpoint->name;
	env->kfuncs = ktp_tpoint_kfunc_btf_ids;
	return 0;
}

static const struct ktp_kind ktp_tramp_kind = {
	.letter			= 'p',
	/* the program is what runs on the trampoline */
	.needs_prog		= true,
	.parse_target		= ktp_tramp_parse_target,
	.put_ref		= ktp_tpoint_put,
	.event_name		= ktp_tpoint_name,
	.target_name		= ktp_tpoint_target_name,
	.print_target		= ktp_tpoint_print_target,
	.init			= ktp_tpoint_init,
	.fetch_arg		= ktp_tpoint_fetch_arg,
	.set_env		= ktp_tramp_set_env,
	.fetch_raw_in_prog	= ktp_tpoint_fetch_raw_in_prog,
	.prog_ready		= ktp_tpoint_prog_ready,
};

#ifdef CONFIG_MODULES
/* The "t" probe of dynamic event @ev, or NULL */
static struct trace_ktp *ktp_tpoint_probe(struct dyn_event *ev)
{
	struct trace_ktp *tk = ktp_of_dyn_event(ev);

	return tk && tk->kind == &ktp_tpoint_kind ? tk : NULL;
}

/*
 * A module goes: detach the probes on its tracepoints, before the
 * tracepoints are checked for probes left on them. The probes, their
 * events, enable state, triggers and counters stay.
 */
static int ktp_tpoint_module_notify(struct notifier_block *nb,
				    unsigned long val, void *data)
{
	struct tp_module *tp_mod = data;
	struct ktp_tpoint *tpoint;
	struct dyn_event *pos;
	struct trace_ktp *tk;

	if (val != MODULE_STATE_GOING)
		return NOTIFY_DONE;

	guard(mutex)(&event_mutex);
	for_each_dyn_event(pos) {
		tk = ktp_tpoint_probe(pos);
		tpoint = tk ? tk->ref : NULL;
		if (!tpoint || !tpoint->mod || tpoint->mod != tp_mod->mod)
			continue;
		ktp_tpoint_detach(tpoint);
		tpoint->btp = NULL;
		tpoint->mod = NULL;
	}
	return NOTIFY_DONE;
}

static struct notifier_block ktp_tpoint_module_nb = {
	.notifier_call = ktp_tpoint_module_notify,
};
#endif /* CONFIG_MODULES */

/* The hits ktp_tp_enter() entered on a CPU, by level */
static DEFINE_PER_CPU(struct ktp_tp_hit [KTP_NEST_MAX], ktp_tp_hits);

/*
 * A 't' probe's program calls these kfuncs. Each names the probe by its
 * program's map and slot (see ktp_v_emit_self()): whatever link runs the
 * program, they find only the probe, and nothing once it is being freed.
 */
static nokprobe_inline struct trace_ktp *ktp_tpoint_by_id(void *map, u32 id)
{
	struct ktp_prog *kp = ktp_prog_by_id(map, id);

	return kp ? kp->owner : NULL;
}

__bpf_kfunc_start_defs();

/**
 * ktp_tp_enter - enter the hit of a "t" probe whose condition is true
 * @self__map: the map of the probe's program
 * @id: its slot
 *
 * Return: the hit, which the program must pass ktp_tp_record(), or NULL
 * if there is none to record: missed, or the probe is disabled. With a
 * hit, preemption is off until ktp_tp_record().
 */
__bpf_kfunc struct ktp_tp_hit *ktp_tp_enter(void *self__map, u32 id)
{
	struct trace_ktp *tk = ktp_tpoint_by_id(self__map, id);
	struct ktp_tp_hit *hit;
	unsigned int flags;
	int level;

	if (unlikely(!tk))
		return NULL;
	flags = trace_probe_load_flag(&tk->tp);
	if (!(flags & (TP_FLAG_TRACE | TP_FLAG_PROFILE)))
		return NULL;
	/*
	 * A fentry program runs preemptible on a preemptible kernel: the
	 * hit's level and values stay this CPU's until ktp_tp_record(),
	 * which the verifier makes the program call once it has the hit.
	 */
	preempt_disable_notrace();
	level = ktp_enter(this_cpu_ptr(tk->counters));
	if (level < 0) {
		preempt_enable_notrace();
		return NULL;
	}
	/*
	 * The record goes where the probe was enabled at entry: disabling
	 * waits for this hit before it removes the file (see ktp_tpoint_disable()).
	 */
	hit = this_cpu_ptr(&ktp_tp_hits[level]);
	hit->tk = tk;
	hit->flags = flags;
	hit->level = level;
	return hit;
}

/**
 * ktp_tp_record - record the hit ktp_tp_enter() entered
 * @hit: the hit
 * @faults: the reads of the hit that faulted
 */
__bpf_kfunc void ktp_tp_record(struct ktp_tp_hit *hit, u64 faults)
{
	struct trace_ktp *tk = hit->tk;
	struct ktp_counters *counters = this_cpu_ptr(tk->counters);

	if (unlikely(faults))
		local_add(faults, &counters->faults);
	/* a "p" probe's, on the BPF trampoline, records as a kprobe's */
	ktp_exit(counters, ktp_is_kprobe(tk) ?
		 ktp_record_all_tramp(tk, hit->flags,
				      ktp_level_vals(hit->level)) :
		 ktp_record_all_event(tk, hit->flags, NULL,
				      ktp_level_vals(hit->level)));
	preempt_enable_notrace();
}

__bpf_kfunc_end_defs();

NOKPROBE_SYMBOL(ktp_tp_enter);
NOKPROBE_SYMBOL(ktp_tp_record);

BTF_KFUNCS_START(ktp_tpoint_kfunc_ids)
BTF_ID_FLAGS(func, ktp_tp_enter, KF_ACQUIRE | KF_RET_NULL)
BTF_ID_FLAGS(func, ktp_tp_record, KF_RELEASE)
BTF_KFUNCS_END(ktp_tpoint_kfunc_ids)

/* As ktp_strcmp(): only the program KTP is loading may call them */
static int ktp_tpoint_kfunc_filter(const struct bpf_prog *prog, u32 kfunc_id)
{
	return ktp_kfunc_filter(prog, &ktp_tpoint_kfunc_ids, kfunc_id);
}

static const struct btf_kfunc_id_set ktp_tpoint_kfunc_set = {
	.owner	= THIS_MODULE,
	.set	= &ktp_tpoint_kfunc_ids,
	.filter	= ktp_tpoint_kfunc_filter,
};

/* The kfuncs, for BTF raw tracepoint programs; and the kind */
static int __init ktp_tpoint_init_kind(void)
{
	int ret;

	ret = register_btf_kfunc_id_set(BPF_PROG_TYPE_TRACING,
					&ktp_tpoint_kfunc_set);
#ifdef CONFIG_MODULES
	if (!ret)
		ret = register_tracepoint_module_notifier(&ktp_tpoint_module_nb);
#endif
	return ret ?: ktp_register_kind(&ktp_tpoint_kind) ?:
		      ktp_register_tramp_kind(&ktp_tramp_kind);
}
late_initcall(ktp_tpoint_init_kind);
