/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTP's expression compiler: the parser (ktp_parse.c), from an
 * expression's text to its typed, folded tree.
 */
#ifndef _KERNEL_TRACE_KTP_PARSE_H
#define _KERNEL_TRACE_KTP_PARSE_H

#include "ktp_tree.h"

struct ktp_node *ktp_parse(struct ktp_compiler *c, const char *src,
			   struct ktp_expr_error *err);

#endif /* _KERNEL_TRACE_KTP_PARSE_H */
