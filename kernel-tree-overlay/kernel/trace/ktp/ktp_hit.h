/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A probe's hit (ktp_hit.c): the handlers of "p" and "r" probes, and the
 * records every kind writes.
 */
#ifndef _KERNEL_TRACE_KTP_HIT_H
#define _KERNEL_TRACE_KTP_HIT_H

#include "ktp_probe.h"

int ktp_kprobe_handler(struct kprobe *kp, struct pt_regs *regs);
int ktp_kretprobe_handler(struct kretprobe_instance *ri, struct pt_regs *regs);
int ktp_kretprobe_entry_handler(struct kretprobe_instance *ri,
				struct pt_regs *regs);
bool ktp_record_all_event(struct trace_ktp *tk, unsigned int flags,
			  void *rec, void *edata);
bool ktp_record_event(struct trace_ktp *tk, void *rec, void *edata,
		      struct trace_event_file *file);
bool ktp_record_all_tramp(struct trace_ktp *tk, unsigned int flags,
			  void *edata);
void ktp_prefetch_args(struct trace_ktp *tk, void *rec, void *edata);

#endif /* _KERNEL_TRACE_KTP_HIT_H */
