/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTP's expression compiler: the lexer (ktp_lex.c), the tokens of an
 * expression.
 */
#ifndef _KERNEL_TRACE_KTP_LEX_H
#define _KERNEL_TRACE_KTP_LEX_H

#include "ktp_tree.h"

/* Tokens other than single characters */
enum {
	KTP_TOK_END = 256,
	KTP_TOK_NUM,
	KTP_TOK_IDENT,
	KTP_TOK_VAR,		/* $name */
	KTP_TOK_REG,		/* %name */
	KTP_TOK_SYM,		/* @symbol[+-offs] or @address */
	KTP_TOK_STR,		/* "..." */
	KTP_TOK_SHL,
	KTP_TOK_SHR,
	KTP_TOK_LE,
	KTP_TOK_GE,
	KTP_TOK_EQ,
	KTP_TOK_NE,
	KTP_TOK_LAND,
	KTP_TOK_LOR,
	KTP_TOK_ARROW,
};

int ktp_lex_char(const char **pp);
int ktp_next(struct ktp_compiler *c);

#endif /* _KERNEL_TRACE_KTP_LEX_H */
