/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTP's "t" probes (ktp_tpoint.c): the kfuncs a probe's program calls,
 * which the verifier lets only the programs KTP loads call.
 */
#ifndef _KERNEL_TRACE_KTP_TPOINT_H
#define _KERNEL_TRACE_KTP_TPOINT_H

#include <linux/types.h>

struct ktp_tp_hit;

struct ktp_tp_hit *ktp_tp_enter(void *self__map, u32 id);
void ktp_tp_record(struct ktp_tp_hit *hit, u64 faults);

#endif /* _KERNEL_TRACE_KTP_TPOINT_H */
