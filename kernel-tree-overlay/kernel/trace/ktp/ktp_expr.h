/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The compiler's interface (ktp_expr.c): a probe's condition and fetch
 * expressions, compiled into its program.
 */
#ifndef _KERNEL_TRACE_KTP_EXPR_H
#define _KERNEL_TRACE_KTP_EXPR_H

#include "ktp_env.h"

struct ktp_compiler;
struct traceprobe_parse_context;

struct ktp_compiler *ktp_compiler_create(const struct ktp_expr_env *env);
void ktp_compiler_destroy(struct ktp_compiler *c);
bool ktp_compiler_has_param(struct ktp_compiler *c, const char *name);
void ktp_compiler_share_proto(struct ktp_compiler *c,
			      struct traceprobe_parse_context *ctx);
int ktp_compile_cond(struct ktp_compiler *c, const char *src,
		     struct ktp_expr_error *err);
int ktp_compile_fetch(struct ktp_compiler *c, const char *src,
		      unsigned int slot, const char **type,
		      struct ktp_expr_error *err);
int ktp_compile_fetch_reg(struct ktp_compiler *c, unsigned int offset,
			  unsigned int slot);
int ktp_compile_fetch_tpoint_arg(struct ktp_compiler *c, unsigned int num,
				 unsigned int slot);
void ktp_compiler_copy_tpoint_args(struct ktp_compiler *c);
struct ktp_prog *ktp_compiler_finish(struct ktp_compiler *c);
struct ktp_prog *ktp_compiler_finish_unloaded(struct ktp_compiler *c);
int ktp_prog_load(struct ktp_prog *kp);
void ktp_prog_free(struct ktp_prog *kp);

#endif /* _KERNEL_TRACE_KTP_EXPR_H */
