// SPDX-License-Identifier: GPL-2.0
/*
 * KTP: "e" probes, on the records of trace events. An "e" probe is
 * hooked to its event as event probes are, by a trigger that needs the
 * record, in each trace instance it is enabled in (and in the top one
 * for perf). The trigger is not a user trigger: the event's trigger file
 * neither lists nor removes it.
 */
#include <linux/list.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/trace_events.h>
#include <linux/tracepoint.h>

#include "../trace_probe.h"
#include "ktp_probe.h"
#include "ktp_hit.h"
#include "trace_ktp.h"
#include "ktp_event.h"

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
	/* out of line: a false condition does not pay for its frame */
	ktp_exit(counters, ktp_record_event(tk, rec, edata, trigger->file));
}

NOKPROBE_SYMBOL(ktp_trigger_func);

static int ktp_trigger_print(struct seq_file *m, struct event_trigger_data *data)
{
	/* A probe, not a trigger the user set: the triggers file omits it */
	return 0;
}

/* Also called when the trace instance of the trigger goes away */
static void ktp_trigger_free(struct event_trigger_data *data)
{
	tracepoint_synchronize_unregister();
	kfree(container_of(data, struct ktp_trigger, data));
}

/* Not registered: the triggers file can neither add nor remove it. */
VISIBLE_IF_KUNIT struct event_command ktp_trigger_cmd = {
	.name		= "ktp",
	.trigger_type	= ETT_EVENT_EPROBE,
	.flags		= EVENT_CMD_FL_NEEDS_REC,
	.trigger	= ktp_trigger_func,
	.print		= ktp_trigger_print,
	.free		= ktp_trigger_free,
};

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
				   TRACE_EVENT_FL_FPROBE |
				   TRACE_EVENT_FL_KTP))
			return ERR_PTR(-EINVAL);
		if (!trace_event_try_get_ref(call))
			break;
		return call;
	}
	return ERR_PTR(-ENOENT);
}

/* The event of a definition: SYSTEM.EVENT or SYSTEM/EVENT, as eprobes */
static int ktp_event_target(const char *arg, struct trace_event_call **event)
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

/* How many fields of @call a fetch type records whole */
static int ktp_count_fields(struct trace_event_call *call)
{
	struct ftrace_event_field *field;
	char type[8];
	int n = 0;

	list_for_each_entry(field, trace_get_fields(call), link)
		n += !!ktp_field_type(field, type, sizeof(type));
	return n;
}

/*
 * Without fetch arguments, a probe fetches every field of its event that
 * a fetch type records whole, as NAME=$NAME:TYPE, in the order of the
 * event's format.
 */
static int ktp_event_default_args(struct trace_ktp *tk,
				  struct traceprobe_parse_context *ctx)
{
	struct ftrace_event_field *field;
	const char *type;
	char buf[8], *arg;
	int i = 0, ret;

	list_for_each_entry_reverse(field, trace_get_fields(tk->ref), link) {
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

/*
 * Hook the probe to its event in the trace instance of @file (the top
 * one for perf, @file NULL): the event hands its record to the probe's
 * trigger, which writes the probe's own.
 */
static int ktp_event_enable(struct trace_ktp *tk,
			    struct trace_event_file *file, bool first)
{
	struct trace_array *tr = file ? file->tr : top_trace_array();
	struct trace_event_call *call = tk->ref;
	struct trace_event_file *efile;
	struct ktp_trigger *trigger;
	int ret;

	efile = find_event_file(tr, call->class->system,
				trace_event_name(call));
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
		/* the event failed to enable: take back its trigger mode */
		trace_event_trigger_enable_disable(efile, 0);
		ktp_trigger_free(&trigger->data);
		return ret;
	}
	update_cond_flag(efile);
	WRITE_ONCE(trigger->data.paused, false);
	return 0;
}

/* Unhook the probe from its event in the trace instance of @file */
static void ktp_event_disable(struct trace_ktp *tk,
			      struct trace_event_file *file, bool last)
{
	struct trace_array *tr = file ? file->tr : top_trace_array();
	struct trace_event_call *call = tk->ref;
	struct event_trigger_data *data;
	struct trace_event_file *efile;
	struct ktp_trigger *trigger;

	efile = find_event_file(tr, call->class->system,
				trace_event_name(call));
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

static int ktp_event_parse_target(struct ktp_target *t, const char *arg,
				  int *nargs,
				  struct traceprobe_parse_context *ctx)
{
	struct trace_event_call *call;
	int ret;

	ret = ktp_event_target(arg, &call);
	if (ret)
		return ret;
	t->ref = call;
	ctx->event = call;
	ctx->flags |= TPARG_FL_TEVENT;
	if (!*nargs)
		*nargs = ktp_count_fields(call);
	if (*nargs > MAX_TRACE_ARGS) {
		trace_probe_log_err(0, KTP_TOO_MANY_ARGS);
		return -E2BIG;
	}
	return 0;
}

static void ktp_event_put(void *ref)
{
	trace_event_put_ref(ref);
}

static const char *ktp_event_name(void *ref)
{
	return trace_event_name((struct trace_event_call *)ref);
}

static char *ktp_event_target_name(void *ref)
{
	struct trace_event_call *call = ref;

	return kasprintf(GFP_KERNEL, "%s.%s", call->class->system,
			 trace_event_name(call));
}

static void ktp_event_print_target(struct trace_seq *s, void *ref)
{
	struct trace_event_call *call = ref;

	trace_seq_printf(s, "%s:%s", call->class->system,
			 trace_event_name(call));
}

/* The program reads the record: $FIELD, no registers */
static int ktp_event_set_env(struct trace_ktp *tk, struct ktp_expr_env *env)
{
	env->flags = KTP_ENV_EVENT;
	env->event = tk->ref;
	return 0;
}

static const struct ktp_kind ktp_event_kind = {
	.letter		= 'e',
	.parse_target	= ktp_event_parse_target,
	.put_ref	= ktp_event_put,
	.event_name	= ktp_event_name,
	.target_name	= ktp_event_target_name,
	.print_target	= ktp_event_print_target,
	.default_args	= ktp_event_default_args,
	.set_env	= ktp_event_set_env,
	.enable		= ktp_event_enable,
	.disable	= ktp_event_disable,
};

static int __init ktp_event_init_kind(void)
{
	return ktp_register_kind(&ktp_event_kind);
}
late_initcall(ktp_event_init_kind);
