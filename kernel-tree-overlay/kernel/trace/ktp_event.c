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

#include "trace_probe.h"
#include "trace_ktp.h"
#include "ktp_expr.h"

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

/**
 * ktp_parse_event_target - the event of an "e" probe's definition
 * @arg: SYSTEM.EVENT or SYSTEM/EVENT, as event probes take it
 * @event: where to put the event, with a reference held
 *
 * Return: 0, or a negative errno with an error_log entry.
 */
int ktp_parse_event_target(const char *arg, struct trace_event_call **event)
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

/**
 * ktp_count_fields - how many fields an "e" probe without fetch arguments records
 * @call: the probed event
 *
 * Return: the number of fields of @call a fetch type records whole.
 */
int ktp_count_fields(struct trace_event_call *call)
{
	struct ftrace_event_field *field;
	char type[8];
	int n = 0;

	list_for_each_entry(field, trace_get_fields(call), link)
		n += !!ktp_field_type(field, type, sizeof(type));
	return n;
}

/**
 * ktp_parse_all_fields - fetch every field of an "e" probe's event
 * @tk: the probe
 * @ctx: the parse context of its definition
 *
 * Each field a fetch type records whole becomes the fetch argument
 * NAME=$NAME:TYPE, in the order of the event's format.
 *
 * Return: 0, or a negative errno.
 */
int ktp_parse_all_fields(struct trace_ktp *tk,
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

/**
 * ktp_attach_event - hook an "e" probe to its event
 * @tk: the probe
 * @tr: the trace instance of the event
 * @file: the probe's event file in @tr, or NULL for perf
 *
 * The event hands its record to the probe's trigger, which writes the
 * probe's own.
 *
 * Return: 0, or a negative errno.
 */
int ktp_attach_event(struct trace_ktp *tk, struct trace_array *tr,
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
		/* the event failed to enable: take back its trigger mode */
		trace_event_trigger_enable_disable(efile, 0);
		ktp_trigger_free(&trigger->data);
		return ret;
	}
	update_cond_flag(efile);
	WRITE_ONCE(trigger->data.paused, false);
	return 0;
}

/**
 * ktp_detach_event - unhook an "e" probe from its event
 * @tk: the probe
 * @tr: the trace instance of the event
 * @file: the probe's event file in @tr, or NULL for perf
 */
void ktp_detach_event(struct trace_ktp *tk, struct trace_array *tr,
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
