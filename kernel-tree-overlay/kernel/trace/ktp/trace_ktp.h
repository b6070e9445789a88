/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kernel/trace/trace_ktp.c, the control file, gives the other files
 * of KTP: the definitions it runs, the kinds of probes that register with
 * it, and its dynamic events.
 */
#ifndef _KERNEL_TRACE_KTP_TRACE_KTP_H
#define _KERNEL_TRACE_KTP_TRACE_KTP_H

#include "ktp_probe.h"

extern struct dyn_event_operations ktp_dyn_ops;
int ktp_create_or_delete(const char *raw_command);
int ktp_register_kind(const struct ktp_kind *kind);
int ktp_register_user_kind(const struct ktp_kind *kind);
int ktp_register_tramp_kind(const struct ktp_kind *kind);
int ktp_take_prog(struct trace_ktp *tk, struct trace_ktp *made);

/* The KTP probe of dynamic event @ev, or NULL for another kind's */
static inline struct trace_ktp *ktp_of_dyn_event(struct dyn_event *ev)
{
	return ev->ops == &ktp_dyn_ops ? to_trace_ktp(ev) : NULL;
}

#endif /* _KERNEL_TRACE_KTP_TRACE_KTP_H */
