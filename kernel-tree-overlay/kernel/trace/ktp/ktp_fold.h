/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTP's expression compiler: constant folding (ktp_fold.c).
 */
#ifndef _KERNEL_TRACE_KTP_FOLD_H
#define _KERNEL_TRACE_KTP_FOLD_H

#include "ktp_tree.h"

u64 ktp_apply_op(const struct ktp_node *n, u64 l, u64 r);
struct ktp_node *ktp_fold(struct ktp_compiler *c, struct ktp_node *n);

#endif /* _KERNEL_TRACE_KTP_FOLD_H */
