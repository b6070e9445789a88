/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A program as BPF has it (ktp_prog.c): its frame, its load, and how KTP
 * runs it on a hit.
 */
#ifndef _KERNEL_TRACE_KTP_PROG_H
#define _KERNEL_TRACE_KTP_PROG_H

#include <linux/filter.h>
#include <linux/types.h>

#include "ktp_env.h"
#include "ktp_kfunc.h"
#include "ktp_maps.h"

struct ktp_compiler;
struct pt_regs;

/**
 * struct ktp_run_ctx - what a compiled program reads, one per hit
 * @regs: registers of a "p" or "r" probe's hit, NULL otherwise
 * @rec: the event record of an "e" probe's hit, NULL otherwise
 * @entry: the $argN values an "r" probe saved at function entry, the
 *	   arguments of a "t" probe's tracepoint
 * @vals: where the program writes the values of fetch expressions
 * @faults: reads that faulted during this run (each one read as 0)
 */
struct ktp_run_ctx {
	struct pt_regs		*regs;
	void			*rec;
	unsigned long		*entry;
	u64			*vals;
	unsigned long		faults;
};

u32 ktp_prog_run_verified(const struct ktp_prog *kp, struct ktp_run_ctx *ctx);
u32 ktp_prog_end_verified(const struct ktp_prog *kp, struct ktp_run_ctx *ctx,
			  u64 ret);

/**
 * ktp_prog_run - run a probe's program on one hit
 * @kp: the compiled program
 * @ctx: what the program reads, and where it writes fetched values: the
 *	 caller may leave @ctx->vals NULL and read them in ktp_area
 *
 * Return: 0 if the condition is false, nonzero otherwise.
 */
static __always_inline u32 ktp_prog_run(const struct ktp_prog *kp,
					struct ktp_run_ctx *ctx)
{
	u64 ret;

	if (likely(kp->run_inline)) {
		/* (faults << 1) | true: without a fault, nothing else to do */
		ret = bpf_prog_run(kp->prog, ctx->regs);
		if (likely(ret <= 1 && !ctx->vals))
			return ret;
		return ktp_prog_end_verified(kp, ctx, ret);
	}
	return ktp_prog_run_verified(kp, ctx);
}

/**
 * ktp_prog_run_on_record - run an "e" probe's program on one hit
 * @kp: the compiled program
 * @ctx: the hit: @ctx->rec is the event's record
 *
 * Return: 0 if the condition is false, nonzero otherwise.
 */
static __always_inline u32 ktp_prog_run_on_record(const struct ktp_prog *kp,
						  struct ktp_run_ctx *ctx)
{
	u64 ret = bpf_prog_run(kp->prog, ctx->rec);

	if (likely(ret <= 1 && !ctx->vals))
		return ret;
	return ktp_prog_end_verified(kp, ctx, ret);
}

void ktp_v_emit_level_area(struct ktp_compiler *c);
void ktp_v_emit_tpoint_args(struct ktp_compiler *c);
void ktp_v_emit_fetch(struct ktp_compiler *c, int reg, unsigned int slot);
void ktp_v_emit_exit(struct ktp_compiler *c, bool truth);
struct bpf_prog *ktp_v_finish(struct ktp_compiler *c);
void ktp_v_release(struct ktp_compiler *c);

#endif /* _KERNEL_TRACE_KTP_PROG_H */
