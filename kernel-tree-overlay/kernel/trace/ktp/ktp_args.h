/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fetch arguments and the condition of a definition (ktp_args.c).
 */
#ifndef _KERNEL_TRACE_KTP_ARGS_H
#define _KERNEL_TRACE_KTP_ARGS_H

#include "ktp_probe.h"

int ktp_parse_args(struct trace_ktp *tk, int nargs, const char *argv[],
		   int cond_idx, int argc, struct traceprobe_parse_context *ctx,
		   bool load_later);

#endif /* _KERNEL_TRACE_KTP_ARGS_H */
