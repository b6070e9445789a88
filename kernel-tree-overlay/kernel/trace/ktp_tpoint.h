/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTP's "t" probes (ktp_tpoint.c): the kfuncs a probe's program calls,
 * which the verifier lets only the programs KTP loads call.
 */
#ifndef _KERNEL_TRACE_KTP_TPOINT_H
#define _KERNEL_TRACE_KTP_TPOINT_H

#include <linux/types.h>

int ktp_tp_enter(u32 id);
void ktp_tp_record(u32 id, u64 faults);

#endif /* _KERNEL_TRACE_KTP_TPOINT_H */
