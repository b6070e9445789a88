/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The code of an expression tree (ktp_gen.c): its values, its branches,
 * and its terms' reads.
 */
#ifndef _KERNEL_TRACE_KTP_GEN_H
#define _KERNEL_TRACE_KTP_GEN_H

#include "ktp_tree.h"

/* A list of jumps to one target, patched once it is known */
struct ktp_jumps {
	int	at[KTP_EXPR_MAX_NODES];
	int	nr;
};

void ktp_gen(struct ktp_compiler *c, const struct ktp_node *n, int slot);
void ktp_v_gen_reg(struct ktp_compiler *c, int off, int slot);
void ktp_v_gen_arg(struct ktp_compiler *c, const struct ktp_node *n, int slot);
void ktp_v_gen_field(struct ktp_compiler *c, const struct ktp_node *n,
		     int slot);
void ktp_v_gen_read(struct ktp_compiler *c, const struct ktp_node *n, int slot);
void ktp_v_gen_current(struct ktp_compiler *c, int slot);
bool ktp_v_is_ptr(struct ktp_compiler *c, const struct ktp_node *n);
void ktp_v_emit_number(struct ktp_compiler *c, int slot);
void ktp_v_emit_null_split(struct ktp_compiler *c, int reg);
void ktp_v_gen_tpoint_arg(struct ktp_compiler *c, unsigned int num, int reg);
void ktp_v_gen_strcmp(struct ktp_compiler *c, const struct ktp_node *n,
		      int slot);
void ktp_gen_branch(struct ktp_compiler *c, const struct ktp_node *n,
		    bool jump_if, struct ktp_jumps *to, int slot);
struct ktp_jumps *ktp_gen_false_jumps(struct ktp_compiler *c,
				      const struct ktp_node *cond, int slot);

#endif /* _KERNEL_TRACE_KTP_GEN_H */
