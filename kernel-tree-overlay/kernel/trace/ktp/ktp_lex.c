// SPDX-License-Identifier: GPL-2.0
/*
 * KTP's expression compiler: the lexer. It cuts an expression into the
 * tokens of C's expressions, KTP's terms ($name, %reg, @sym) and string
 * and character literals with C's escapes.
 */
#include <linux/kernel.h>
#include <linux/string.h>

#include "../trace_probe.h"
#include "ktp_tree.h"
#include "ktp_lex.h"

/**
 * ktp_lex_char() - the next character of a string or character literal
 * @pp: where it is; moved past it
 *
 * Return: the character, with C's escapes \n \t \r \0 \\ \' \", or -1 at
 * the end of the expression or at an unknown escape (then *@pp stays at
 * the backslash).
 */
int ktp_lex_char(const char **pp)
{
	const char *p = *pp;
	int ch = *p++;

	/* never past the end of the expression */
	if (!ch)
		return -1;

	if (ch == '\\') {
		static const char from[] = "ntr0\\'\"", to[] = "\n\t\r\0\\'\"";
		const char *e;

		ch = *p++;
		e = ch ? memchr(from, ch, sizeof(from) - 1) : NULL;
		if (!e)
			return -1;
		ch = to[e - from];
	}
	*pp = p;
	return ch;
}

/* A number as C writes it: 0x hex, 0 octal, else decimal; U: unsigned */
static int ktp_lex_number(struct ktp_compiler *c, const char **pp)
{
	const char *p = *pp;
	char buf[24];
	int len = 0, n;

	while (isalnum(p[len]))
		len++;
	if (len >= sizeof(buf))
		return ktp_fail(c, p, TP_ERR_KTP_EXPR_NUMBER);
	memcpy(buf, p, len);
	buf[len] = '\0';
	n = len;
	if (n > 1 && (buf[n - 1] == 'u' || buf[n - 1] == 'U')) {
		buf[--n] = '\0';
		c->tok_unsigned = true;
	}
	if (kstrtou64(buf, 0, &c->tok_val))
		return ktp_fail(c, p, TP_ERR_KTP_EXPR_NUMBER);
	if (c->tok_val > S64_MAX)
		c->tok_unsigned = true;
	*pp = p + len;
	c->tok = KTP_TOK_NUM;
	return 0;
}

/* 'c', a number; "...", a string, whose characters the parser takes */
static int ktp_lex_quoted(struct ktp_compiler *c, const char **pp)
{
	const char *p = *pp + 1;
	int ch;

	if (**pp == '\'') {
		ch = ktp_lex_char(&p);
		if (ch < 0 || *p != '\'')
			return ktp_fail(c, c->tok_start, TP_ERR_KTP_EXPR_NUMBER);
		c->tok_val = (s64)(s8)ch;	/* char is signed on x86 */
		c->tok = KTP_TOK_NUM;
	} else {
		while (*p && *p != '"') {
			if (ktp_lex_char(&p) < 0)
				return ktp_fail(c, p, TP_ERR_KTP_EXPR_SYNTAX);
		}
		if (*p != '"')
			return ktp_fail(c, c->tok_start, TP_ERR_KTP_EXPR_SYNTAX);
		c->tok = KTP_TOK_STR;
	}
	*pp = p + 1;
	return 0;
}

/* @SYMBOL, @SYMBOL+OFFS, @ADDR: an offset only if a number follows */
static const char *ktp_lex_sym(const char *p)
{
	p++;
	while (ktp_is_ident(*p) || *p == '.')
		p++;
	if ((*p == '+' || *p == '-') && isdigit(p[1])) {
		p++;
		while (isalnum(*p))
			p++;
	}
	return p;
}

/* An operator: one character, or one of two */
static int ktp_lex_operator(struct ktp_compiler *c, const char **pp)
{
	static const struct { char s[3]; int tok; } two[] = {
		{ "<<", KTP_TOK_SHL }, { ">>", KTP_TOK_SHR },
		{ "<=", KTP_TOK_LE }, { ">=", KTP_TOK_GE },
		{ "==", KTP_TOK_EQ }, { "!=", KTP_TOK_NE },
		{ "&&", KTP_TOK_LAND }, { "||", KTP_TOK_LOR },
		{ "->", KTP_TOK_ARROW },
	};
	const char *p = *pp;
	int i;

	c->tok = *p++;
	for (i = 0; i < ARRAY_SIZE(two); i++) {
		if (c->tok_start[0] == two[i].s[0] &&
		    c->tok_start[1] == two[i].s[1]) {
			c->tok = two[i].tok;
			p++;
			break;
		}
	}
	if (c->tok < 256 && !strchr("+-*/%<>&|^!~?:()[].,", c->tok))
		return ktp_fail(c, c->tok_start, TP_ERR_KTP_EXPR_SYNTAX);
	*pp = p;
	return 0;
}

/**
 * ktp_next() - move to the next token of the expression
 * @c: the compiler; its tok* members describe the token
 *
 * Return: 0, or -EINVAL with the error at the offending character.
 */
int ktp_next(struct ktp_compiler *c)
{
	const char *p = skip_spaces(c->p);
	int ret = 0;

	c->tok_start = p;
	c->tok_unsigned = false;

	if (!*p) {
		c->tok = KTP_TOK_END;
	} else if (isdigit(*p)) {
		ret = ktp_lex_number(c, &p);
	} else if (*p == '\'' || *p == '"') {
		ret = ktp_lex_quoted(c, &p);
	} else if (ktp_is_ident(*p) || (*p == '$' && ktp_is_ident(p[1])) ||
		   (*p == '%' && isalpha(p[1]))) {
		/* %REG: a register starts with a letter, 7 in a%7 does not */
		c->tok = *p == '$' ? KTP_TOK_VAR : *p == '%' ? KTP_TOK_REG :
			 KTP_TOK_IDENT;
		if (c->tok != KTP_TOK_IDENT)
			p++;
		while (ktp_is_ident(*p))
			p++;
	} else if (*p == '@') {
		p = ktp_lex_sym(p);
		c->tok = KTP_TOK_SYM;
	} else {
		ret = ktp_lex_operator(c, &p);
	}
	if (ret)
		return ret;
	c->tok_len = p - c->tok_start;
	c->p = p;
	return 0;
}
