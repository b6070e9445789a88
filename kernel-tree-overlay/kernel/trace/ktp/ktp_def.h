/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTP: a probe's definition as text (ktp_def.c), for ktp_probes and
 * dynamic_events.
 */
#ifndef _KERNEL_TRACE_KTP_DEF_H
#define _KERNEL_TRACE_KTP_DEF_H

#include <linux/types.h>

struct dyn_event;
struct seq_file;
struct trace_ktp;

void ktp_show_def(struct seq_file *m, struct trace_ktp *tk);
int ktp_dyn_show(struct seq_file *m, struct dyn_event *ev);
bool ktp_dyn_match(const char *system, const char *event, int argc,
		   const char **argv, struct dyn_event *ev);

#endif /* _KERNEL_TRACE_KTP_DEF_H */
