/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What KTP's files share: a probe, its counters, and the functions one
 * file of KTP calls in another. trace_ktp.c makes, registers and enables
 * probes; ktp_hit.c runs them; ktp_args.c compiles a definition's fetch
 * arguments and condition; ktp_event.c hooks "e" probes to their events;
 * ktp_files.c holds the tracefs files and the dynamic_events lines.
 */
#ifndef _TRACE_KTP_H
#define _TRACE_KTP_H

#include <linux/bpf.h>
#include <linux/kprobes.h>
#include <linux/trace_events.h>
#include <kunit/visibility.h>
#include <asm/local.h>

#include "trace.h"
#include "trace_dynevent.h"
/* trace_probe.h has no include guard: include it before this file */

#define KTP_DYN_PREFIX		"ktp:"	/* a KTP probe in dynamic_events */

struct dentry;
struct ktp_prog;

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

struct trace_ktp {
	struct dyn_event	devent;
	struct kretprobe	rp;		/* rp.kp alone for a 'p' probe */
	const char		*symbol;	/* NULL when probing an address */
	char			*target;	/* the probed place, as shown */
	struct trace_event_call	*event;		/* an 'e' probe's event, held */
	struct bpf_raw_event_map *btp;		/* a 't' probe's tracepoint */
	struct file		*tp_link;	/* 't': the BPF link, enabled */
	unsigned int		maxactive;	/* as defined; 0: kprobes picks */
	unsigned long		addr;		/* as defined, 0 for a symbol */
	struct ktp_counters __percpu *counters;
	struct ktp_prog		*prog;		/* condition, fetch expressions */
	char			*cond;		/* the condition, as shown */
	char			**exprs;	/* fetch expressions, as shown */
	unsigned int		entry_off;	/* 'r': saved $argN in ri->data */
	unsigned int		vals_off;	/* 'r': the program's values there */
	/* 't': fetch instructions read the tracepoint's arguments */
	bool			copy_tpoint_args;
	/* the fetch arguments whose values the program writes */
	DECLARE_BITMAP(prog_args, MAX_TRACE_ARGS);
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

static inline struct trace_ktp *to_trace_ktp(struct dyn_event *ev)
{
	return container_of(ev, struct trace_ktp, devent);
}

static __always_inline bool ktp_is_return(struct trace_ktp *tk)
{
	return tk->rp.handler;
}

static __always_inline bool ktp_is_event(struct trace_ktp *tk)
{
	return tk->event;
}

static __always_inline bool ktp_is_tpoint(struct trace_ktp *tk)
{
	return tk->btp;
}

/* A 'p' or 'r' probe, whose record starts with where it hit */
static __always_inline bool ktp_is_kprobe(struct trace_ktp *tk)
{
	return !ktp_is_event(tk) && !ktp_is_tpoint(tk);
}

/* trace_ktp.c */
extern struct dyn_event_operations ktp_dyn_ops;
int ktp_create_or_delete(const char *raw_command);

/* ktp_hit.c */
extern struct event_command ktp_trigger_cmd;
int ktp_kprobe_handler(struct kprobe *kp, struct pt_regs *regs);
int ktp_kretprobe_handler(struct kretprobe_instance *ri, struct pt_regs *regs);
int ktp_kretprobe_entry_handler(struct kretprobe_instance *ri,
				struct pt_regs *regs);
void ktp_trigger_free(struct event_trigger_data *data);

/* ktp_args.c */
int ktp_parse_args(struct trace_ktp *tk, int nargs, const char *argv[],
		   int cond_idx, int argc, struct traceprobe_parse_context *ctx);
char *ktp_join_cond(int argc, const char *argv[]);

/* ktp_event.c */
int ktp_parse_event_target(const char *arg, struct trace_event_call **event);
int ktp_count_fields(struct trace_event_call *call);
int ktp_parse_all_fields(struct trace_ktp *tk,
			 struct traceprobe_parse_context *ctx);
int ktp_attach_event(struct trace_ktp *tk, struct trace_array *tr,
		     struct trace_event_file *file);
void ktp_detach_event(struct trace_ktp *tk, struct trace_array *tr,
		      struct trace_event_file *file);

/* ktp_files.c */
int ktp_dyn_show(struct seq_file *m, struct dyn_event *ev);
bool ktp_dyn_match(const char *system, const char *event, int argc,
		   const char **argv, struct dyn_event *ev);

#if IS_ENABLED(CONFIG_KUNIT)
extern struct dentry *ktp_probes_dentry;
#endif

#endif /* _TRACE_KTP_H */
