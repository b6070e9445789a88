// SPDX-License-Identifier: GPL-2.0
/*
 * KTP's expression compiler.
 *
 * A probe's condition and fetch expressions are C expressions over the
 * probe's terms (registers, arguments, the return value, the stack,
 * kernel globals, memory, event fields). They are parsed here into a
 * tree, constants are folded, and the tree is emitted as one eBPF
 * program: the condition first, returning 0 as soon as it is false,
 * then each fetch expression, whose value goes to ctx->vals[]. The
 * program is handed to bpf_prog_select_runtime(), so the BPF JIT turns
 * it into native code, and the BPF interpreter runs the same program
 * when the JIT is off.
 *
 * The verifier does not see these programs: they are safe by
 * construction. Every jump goes forward within the program, every
 * register is written before it is read, the stack is used only in the
 * slots counted in aux->stack_depth, memory other than the context is
 * read only through helpers that cannot fault, and the program ends in
 * EXIT. There are no loops and no stores outside ctx->vals[].
 *
 * Hazards have defined results, the same in ktp_expr_eval(), the
 * reference evaluator the KUnit tests hold the program to: division
 * and modulo by zero give 0; a shift count outside 0..63 gives 0 (all
 * sign bits for a signed >>); a read that faults gives 0 and counts in
 * ctx->faults. Values are 64-bit; as in C, operands narrower than 64
 * bits are promoted to s64, and an operation is unsigned when either
 * operand is u64.
 */
#include <linux/ctype.h>
#include <linux/glob.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "../bpf/disasm.h"
#include "trace.h"
#include "trace_probe.h"
#include "trace_probe_kernel.h"
#include "ktp_expr.h"

/* A type: size in bytes, signedness, pointer or string */
#define KTP_T_SIZE	0x0f
#define KTP_T_SIGNED	0x10
#define KTP_T_PTR	0x20	/* an address of a value of the type */
#define KTP_T_STR	0x40	/* a string: compared with a literal only */
#define KTP_T_U64	8
#define KTP_T_S64	(8 | KTP_T_SIGNED)

enum ktp_op {
	KTP_OP_CONST,
	KTP_OP_REG,		/* param: offset in pt_regs */
	KTP_OP_ARG,		/* param: N of $argN, from 1 */
	KTP_OP_STACKP,		/* $stack */
	KTP_OP_FIELD,		/* val: struct ftrace_event_field * */
	KTP_OP_READ,		/* param: size | KTP_READ_USER, of l */
	KTP_OP_CAST,		/* to the node's type */
	KTP_OP_NEG,
	KTP_OP_NOT,
	KTP_OP_LNOT,
	KTP_OP_ADD,
	KTP_OP_SUB,
	KTP_OP_MUL,
	KTP_OP_DIV,
	KTP_OP_MOD,
	KTP_OP_SHL,
	KTP_OP_SHR,
	KTP_OP_AND,
	KTP_OP_OR,
	KTP_OP_XOR,
	KTP_OP_EQ,
	KTP_OP_NE,
	KTP_OP_LT,
	KTP_OP_LE,
	KTP_OP_GT,
	KTP_OP_GE,
	KTP_OP_LAND,
	KTP_OP_LOR,
	KTP_OP_COND,		/* c ? l : r */
	KTP_OP_STRCMP,		/* l: string, val: literal, param: how */
	KTP_OP_COMM,		/* $comm, a string */
	KTP_OP_STRLIT,		/* val: the literal */
};

#define KTP_READ_USER	0x100

/* How KTP_OP_STRCMP compares */
#define KTP_STR_EQ	0
#define KTP_STR_NE	1
#define KTP_STR_GLOB	2
#define KTP_STR_OPS	0x3
#define KTP_STR_COMM	0x4	/* the string is current->comm */

struct ktp_node {
	u8		op;
	u8		type;
	u16		pos;
	u32		param;
	u64		val;
	struct ktp_node	*l, *r, *c;
};

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
};

struct ktp_compiler {
	struct ktp_expr_env	env;
	/* parser */
	const char		*src;
	const char		*p;		/* next character */
	int			tok;
	const char		*tok_start;
	int			tok_len;
	u64			tok_val;
	bool			tok_unsigned;
	int			depth;
	struct ktp_node		*nodes;
	int			nr_nodes;
	struct ktp_expr_error	*err;
	bool			fold;
	/* code */
	struct bpf_insn		*insns;
	int			len;
	int			max_slot;
	bool			has_cond;
	int			*false_jumps;	/* to "return 0" */
	int			nr_false_jumps;
	unsigned int		nr_entry_args;
	char			**lits;
	unsigned int		nr_lits;
	int			error;		/* first code error */
};

/* Registers: R6 holds the context, slots 0-2 are R7-R9, then the stack */
#define KTP_R_CTX	BPF_REG_6
#define KTP_NR_REG_SLOTS 3

static int ktp_fail(struct ktp_compiler *c, const char *at, int code)
{
	if (c->err && c->err->code == 0) {
		c->err->pos = at - c->src;
		c->err->code = code;
	}
	return -EINVAL;
}

/* ---- lexer ---- */

static bool ktp_is_ident(char ch)
{
	return isalnum(ch) || ch == '_';
}

/* A string or character literal's next character, with C escapes. */
static int ktp_lex_char(const char **pp)
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
			return -1;	/* *pp stays at the backslash */
		ch = to[e - from];
	}
	*pp = p;
	return ch;
}

static int ktp_next(struct ktp_compiler *c)
{
	static const struct { char s[3]; int tok; } two[] = {
		{ "<<", KTP_TOK_SHL }, { ">>", KTP_TOK_SHR },
		{ "<=", KTP_TOK_LE }, { ">=", KTP_TOK_GE },
		{ "==", KTP_TOK_EQ }, { "!=", KTP_TOK_NE },
		{ "&&", KTP_TOK_LAND }, { "||", KTP_TOK_LOR },
	};
	const char *p = c->p;
	int i, ch;

	while (isspace(*p))
		p++;
	c->tok_start = p;
	c->tok_unsigned = false;

	if (!*p) {
		c->tok = KTP_TOK_END;
	} else if (isdigit(*p)) {
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
		/* base 0: 0x hex, 0 octal, else decimal, as in C */
		if (kstrtou64(buf, 0, &c->tok_val))
			return ktp_fail(c, p, TP_ERR_KTP_EXPR_NUMBER);
		if (c->tok_val > S64_MAX)
			c->tok_unsigned = true;
		p += len;
		c->tok = KTP_TOK_NUM;
	} else if (*p == '\'') {
		p++;
		ch = ktp_lex_char(&p);
		if (ch < 0 || *p != '\'')
			return ktp_fail(c, c->tok_start, TP_ERR_KTP_EXPR_NUMBER);
		p++;
		c->tok_val = (s64)(s8)ch;	/* char is signed on x86 */
		c->tok = KTP_TOK_NUM;
	} else if (*p == '"') {
		p++;
		while (*p && *p != '"') {
			if (ktp_lex_char(&p) < 0)
				return ktp_fail(c, p, TP_ERR_KTP_EXPR_SYNTAX);
		}
		if (*p != '"')
			return ktp_fail(c, c->tok_start, TP_ERR_KTP_EXPR_SYNTAX);
		p++;
		c->tok = KTP_TOK_STR;
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
		p++;
		while (ktp_is_ident(*p) || *p == '.')
			p++;
		/* @SYM+OFFS: an offset only if a number follows */
		if ((*p == '+' || *p == '-') && isdigit(p[1])) {
			p++;
			while (isalnum(*p))
				p++;
		}
		c->tok = KTP_TOK_SYM;
	} else {
		c->tok = *p++;
		for (i = 0; i < ARRAY_SIZE(two); i++) {
			if (c->tok_start[0] == two[i].s[0] &&
			    c->tok_start[1] == two[i].s[1]) {
				c->tok = two[i].tok;
				p++;
				break;
			}
		}
		if (c->tok < 256 && !strchr("+-*/%<>&|^!~?:()", c->tok))
			return ktp_fail(c, c->tok_start, TP_ERR_KTP_EXPR_SYNTAX);
	}
	c->tok_len = p - c->tok_start;
	c->p = p;
	return 0;
}

/* ---- tree ---- */

static struct ktp_node *ktp_node(struct ktp_compiler *c, int op, int type,
				 const char *at)
{
	struct ktp_node *n;

	if (c->nr_nodes >= KTP_EXPR_MAX_NODES) {
		ktp_fail(c, at, TP_ERR_KTP_EXPR_TOO_BIG);
		return NULL;
	}
	n = &c->nodes[c->nr_nodes++];
	memset(n, 0, sizeof(*n));
	n->op = op;
	n->type = type;
	n->pos = at - c->src;
	return n;
}

static bool ktp_is_signed(int type)
{
	return type & KTP_T_SIGNED;
}

/* The type an operand has in arithmetic: narrower ones become s64 */
static int ktp_promote(int type)
{
	if (type & (KTP_T_PTR | KTP_T_STR))
		return KTP_T_U64;
	if ((type & KTP_T_SIZE) < 8)
		return KTP_T_S64;
	return type;
}

static int ktp_common_type(int a, int b)
{
	a = ktp_promote(a);
	b = ktp_promote(b);
	return ktp_is_signed(a) && ktp_is_signed(b) ? KTP_T_S64 : KTP_T_U64;
}

/* Truncate and extend @v as a value of @type. */
static u64 ktp_convert(u64 v, int type)
{
	int bits = (type & KTP_T_SIZE) * 8;

	if (type & (KTP_T_PTR | KTP_T_STR) || bits >= 64)
		return v;
	if (ktp_is_signed(type))
		return (u64)((s64)(v << (64 - bits)) >> (64 - bits));
	return v & (BIT_ULL(bits) - 1);
}

/* ---- helpers the programs call ---- */

/* Read 1, 2, 4 or 8 bytes at @addr without faulting; 0 if it would. */
BPF_CALL_3(ktp_bpf_read, struct ktp_run_ctx *, ctx, unsigned long, addr,
	   u32, how)
{
	u64 val = 0;
	int ret;

	if (how & KTP_READ_USER)
		ret = copy_from_user_nofault(&val, (void __user *)addr,
					     how & KTP_T_SIZE);
	else
		ret = copy_from_kernel_nofault(&val, (void *)addr,
					       how & KTP_T_SIZE);
	if (ret) {
		ctx->faults++;
		return 0;
	}
	return val;
}

/* KTP's handler path: a probe here would only ever miss */
NOKPROBE_SYMBOL(ktp_bpf_read);

/* Compare the string at @addr (or $comm) with the literal @lit. */
BPF_CALL_4(ktp_bpf_strcmp, struct ktp_run_ctx *, ctx, unsigned long, addr,
	   const char *, lit, u32, how)
{
	char buf[KTP_EXPR_STR_MAX];
	bool match;

	if (how & KTP_STR_COMM) {
		/* as $comm fetches it: no task_lock() in a probe */
		memcpy(buf, current->comm, TASK_COMM_LEN);
		buf[TASK_COMM_LEN - 1] = '\0';
	} else if (strncpy_from_kernel_nofault(buf, (void *)addr,
					       sizeof(buf)) < 0) {
		ctx->faults++;
		return 0;
	}
	buf[sizeof(buf) - 1] = '\0';
	if ((how & KTP_STR_OPS) == KTP_STR_GLOB)
		return glob_match(lit, buf);
	match = !strcmp(buf, lit);
	return (how & KTP_STR_OPS) == KTP_STR_EQ ? match : !match;
}

NOKPROBE_SYMBOL(ktp_bpf_strcmp);

/* ---- parser ---- */

static struct ktp_node *ktp_parse_expr(struct ktp_compiler *c);
static struct ktp_node *ktp_parse_unary(struct ktp_compiler *c);
static struct ktp_node *ktp_fold(struct ktp_compiler *c, struct ktp_node *n);

static int ktp_expect(struct ktp_compiler *c, int tok)
{
	if (c->tok != tok)
		return ktp_fail(c, c->tok_start, TP_ERR_KTP_EXPR_SYNTAX);
	return ktp_next(c);
}

/* A type name of a cast: u8..u64, s8..s64, char, with '*' for a pointer */
static int ktp_type_name(const char *s, int len)
{
	static const struct { const char *name; int type; } types[] = {
		{ "u8", 1 }, { "u16", 2 }, { "u32", 4 }, { "u64", 8 },
		{ "s8", 1 | KTP_T_SIGNED }, { "s16", 2 | KTP_T_SIGNED },
		{ "s32", 4 | KTP_T_SIGNED }, { "s64", 8 | KTP_T_SIGNED },
		{ "char", 1 | KTP_T_SIGNED },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		if (strlen(types[i].name) == len &&
		    !strncmp(types[i].name, s, len))
			return types[i].type;
	}
	return 0;
}

/* A read of @size bytes at the address @addr gives, typed @type */
static struct ktp_node *ktp_read_node(struct ktp_compiler *c,
				      struct ktp_node *addr, int type,
				      bool user, const char *at)
{
	struct ktp_node *n = ktp_node(c, KTP_OP_READ, type, at);

	if (!n)
		return NULL;
	n->param = (type & KTP_T_SIZE) | (user ? KTP_READ_USER : 0);
	n->l = addr;
	return n;
}

static struct ktp_node *ktp_const(struct ktp_compiler *c, u64 val, int type,
				  const char *at)
{
	struct ktp_node *n = ktp_node(c, KTP_OP_CONST, type, at);

	if (n)
		n->val = val;
	return n;
}

static struct ktp_node *ktp_parse_var(struct ktp_compiler *c)
{
	const char *name = c->tok_start + 1, *at = c->tok_start;
	int len = c->tok_len - 1;
	struct ftrace_event_field *field;
	struct ktp_node *n = NULL;
	unsigned int num;
	char buf[MAX_EVENT_NAME_LEN];

	if (len >= sizeof(buf)) {
		ktp_fail(c, at, TP_ERR_KTP_EXPR_UNKNOWN);
		return NULL;
	}
	memcpy(buf, name, len);
	buf[len] = '\0';

	if (!strcmp(buf, "comm") || !strcmp(buf, "COMM")) {
		n = ktp_node(c, KTP_OP_COMM, KTP_T_STR, at);
	} else if (c->env.flags & KTP_ENV_EVENT) {
		list_for_each_entry(field, trace_get_fields(c->env.event), link) {
			if (strcmp(field->name, buf))
				continue;
			if (!is_string_field(field) &&
			    !ktp_field_is_int(field)) {
				ktp_fail(c, at, TP_ERR_KTP_EXPR_NOT_HERE);
				return NULL;
			}
			if (is_string_field(field))
				n = ktp_node(c, KTP_OP_FIELD, KTP_T_STR, at);
			else
				n = ktp_node(c, KTP_OP_FIELD, field->size |
					     (field->is_signed ? KTP_T_SIGNED : 0),
					     at);
			if (n)
				n->val = (unsigned long)field;
			break;
		}
		if (!n && !c->err->code)
			ktp_fail(c, at, TP_ERR_KTP_EXPR_UNKNOWN);
	} else if (!strcmp(buf, "retval")) {
		if (!(c->env.flags & KTP_ENV_RETURN)) {
			ktp_fail(c, at, TP_ERR_KTP_EXPR_NOT_HERE);
			return NULL;
		}
		n = ktp_node(c, KTP_OP_REG, KTP_T_U64, at);
		if (n)
			n->param = offsetof(struct pt_regs, ax);
	} else if (!strcmp(buf, "stack")) {
		n = ktp_node(c, KTP_OP_STACKP, KTP_T_U64, at);
	} else if (str_has_prefix(buf, "stack") &&
		   !kstrtouint(buf + 5, 10, &num) && num < PAGE_SIZE / 8) {
		n = ktp_node(c, KTP_OP_STACKP, KTP_T_U64, at);
		if (n)
			n = ktp_read_node(c, ktp_fold(c, n), KTP_T_U64, false, at);
		if (n) {
			/* $stackN is the word at $stack + 8 * N */
			struct ktp_node *sum = ktp_node(c, KTP_OP_ADD, KTP_T_U64, at);

			if (!sum)
				return NULL;
			sum->l = n->l;
			sum->r = ktp_const(c, num * 8ULL, KTP_T_S64, at);
			if (!sum->r)
				return NULL;
			n->l = sum;
		}
	} else if (str_has_prefix(buf, "arg") &&
		   !kstrtouint(buf + 3, 10, &num) && num >= 1 &&
		   num <= PAGE_SIZE / 8) {
		if (!(c->env.flags & (KTP_ENV_FENTRY | KTP_ENV_RETURN))) {
			ktp_fail(c, at, TP_ERR_KTP_EXPR_NOT_HERE);
			return NULL;
		}
		n = ktp_node(c, KTP_OP_ARG, KTP_T_U64, at);
		if (n)
			n->param = num;
		if (c->env.flags & KTP_ENV_RETURN)
			c->nr_entry_args = max(c->nr_entry_args, num);
	} else {
		ktp_fail(c, at, TP_ERR_KTP_EXPR_UNKNOWN);
		return NULL;
	}
	if (n && ktp_next(c))
		return NULL;
	return n;
}

static struct ktp_node *ktp_parse_reg(struct ktp_compiler *c)
{
	char buf[16];
	int len = c->tok_len - 1, off;
	struct ktp_node *n;

	if (c->env.flags & KTP_ENV_EVENT) {
		ktp_fail(c, c->tok_start, TP_ERR_KTP_EXPR_NOT_HERE);
		return NULL;
	}
	if (len >= sizeof(buf)) {
		ktp_fail(c, c->tok_start, TP_ERR_KTP_EXPR_UNKNOWN);
		return NULL;
	}
	memcpy(buf, c->tok_start + 1, len);
	buf[len] = '\0';
	off = regs_query_register_offset(buf);
	if (off < 0) {
		ktp_fail(c, c->tok_start, TP_ERR_KTP_EXPR_UNKNOWN);
		return NULL;
	}
	n = ktp_node(c, KTP_OP_REG, KTP_T_U64, c->tok_start);
	if (n)
		n->param = off;
	if (n && ktp_next(c))
		return NULL;
	return n;
}

/* The address of a kernel symbol, @len characters at @name; 0 if none */
static unsigned long ktp_lookup(const char *name, int len)
{
	char buf[KSYM_NAME_LEN];

	if (len >= sizeof(buf))
		return 0;
	memcpy(buf, name, len);
	buf[len] = '\0';
	return kallsyms_lookup_name(buf);
}

/* @SYM[+|-OFFS] or @ADDR: the u64 in memory there */
static struct ktp_node *ktp_parse_sym(struct ktp_compiler *c)
{
	const char *s = c->tok_start + 1, *end = c->tok_start + c->tok_len;
	const char *sign = s;
	unsigned long addr;
	long offs = 0;
	char buf[24];
	struct ktp_node *n;

	while (sign < end && *sign != '+' && *sign != '-')
		sign++;
	if (sign < end) {
		if (end - sign >= sizeof(buf))
			goto bad;
		memcpy(buf, sign, end - sign);
		buf[end - sign] = '\0';
		if (kstrtol(buf, 0, &offs))
			goto bad;
	}
	if (isdigit(*s)) {
		if (sign - s >= sizeof(buf))
			goto bad;
		memcpy(buf, s, sign - s);
		buf[sign - s] = '\0';
		if (kstrtoul(buf, 0, &addr))
			goto bad;
	} else {
		addr = ktp_lookup(s, sign - s);
		if (!addr)
			goto bad;
	}
	n = ktp_const(c, addr + offs, KTP_T_U64, c->tok_start);
	if (n)
		n = ktp_read_node(c, n, KTP_T_U64, false, c->tok_start);
	if (n && ktp_next(c))
		return NULL;
	return n;
bad:
	ktp_fail(c, c->tok_start, TP_ERR_KTP_EXPR_UNKNOWN);
	return NULL;
}

/* A string literal, kept for the program's lifetime */
static struct ktp_node *ktp_parse_strlit(struct ktp_compiler *c)
{
	const char *p = c->tok_start + 1;
	char *lit, *q, **lits;
	struct ktp_node *n;

	lit = kmalloc(c->tok_len, GFP_KERNEL);
	lits = krealloc_array(c->lits, c->nr_lits + 1, sizeof(*lits),
			      GFP_KERNEL);
	if (!lit || !lits) {
		kfree(lit);
		c->error = -ENOMEM;
		ktp_fail(c, c->tok_start, TP_ERR_KTP_EXPR_TOO_BIG);
		return NULL;
	}
	c->lits = lits;
	c->lits[c->nr_lits++] = lit;
	for (q = lit; *p != '"';)
		*q++ = ktp_lex_char(&p);
	*q = '\0';

	n = ktp_node(c, KTP_OP_STRLIT, KTP_T_STR, c->tok_start);
	if (n)
		n->val = (unsigned long)lit;
	if (n && ktp_next(c))
		return NULL;
	return n;
}

/* A kernel global: jiffies is its value (a u64), &jiffies its address */
static struct ktp_node *ktp_parse_global(struct ktp_compiler *c, bool addr_of)
{
	const char *at = c->tok_start;
	unsigned long addr;
	struct ktp_node *n;

	if (c->tok != KTP_TOK_IDENT) {
		ktp_fail(c, at, TP_ERR_KTP_EXPR_SYNTAX);
		return NULL;
	}
	addr = ktp_lookup(at, c->tok_len);
	if (!addr) {
		ktp_fail(c, at, TP_ERR_KTP_EXPR_UNKNOWN);
		return NULL;
	}
	n = ktp_const(c, addr, KTP_T_U64, at);
	if (n && !addr_of)
		n = ktp_read_node(c, n, KTP_T_U64, false, at);
	if (n && ktp_next(c))
		return NULL;
	return n;
}

static struct ktp_node *ktp_parse_primary(struct ktp_compiler *c)
{
	struct ktp_node *n;
	const char *at = c->tok_start;

	switch (c->tok) {
	case KTP_TOK_NUM:
		n = ktp_const(c, c->tok_val, c->tok_unsigned ? KTP_T_U64 :
			      KTP_T_S64, at);
		if (n && ktp_next(c))
			return NULL;
		return n;
	case KTP_TOK_STR:
		return ktp_parse_strlit(c);
	case KTP_TOK_VAR:
		return ktp_parse_var(c);
	case KTP_TOK_REG:
		return ktp_parse_reg(c);
	case KTP_TOK_SYM:
		return ktp_parse_sym(c);
	case KTP_TOK_IDENT:
		return ktp_parse_global(c, false);
	case '(':
		if (ktp_next(c))
			return NULL;
		n = ktp_parse_expr(c);
		if (!n || ktp_expect(c, ')'))
			return NULL;
		return n;
	case KTP_TOK_END:
		ktp_fail(c, at, TP_ERR_KTP_EXPR_SYNTAX);
		return NULL;
	default:
		ktp_fail(c, at, TP_ERR_KTP_EXPR_SYNTAX);
		return NULL;
	}
}

/* +OFFS(EXPR), -OFFS(EXPR), +uOFFS(EXPR): the u64 at EXPR + OFFS */
static struct ktp_node *ktp_parse_deref(struct ktp_compiler *c)
{
	const char *at = c->tok_start, *p = at + 1;
	bool user = false;
	struct ktp_node *n, *sum;
	char buf[24];
	long offs;
	int len;

	if (*p == 'u') {
		user = true;
		p++;
	}
	for (len = 0; isalnum(p[len]); len++)
		;
	if (len + 1 >= sizeof(buf)) {
		ktp_fail(c, p, TP_ERR_KTP_EXPR_NUMBER);
		return NULL;
	}
	buf[0] = *at;
	memcpy(buf + 1, p, len);
	buf[len + 1] = '\0';
	if (kstrtol(buf, 0, &offs)) {
		ktp_fail(c, p, TP_ERR_KTP_EXPR_NUMBER);
		return NULL;
	}
	c->p = p + len;		/* at the '(' */
	if (ktp_next(c) || ktp_expect(c, '('))
		return NULL;
	n = ktp_parse_expr(c);
	if (!n || ktp_expect(c, ')'))
		return NULL;
	if (n->type & KTP_T_STR) {
		ktp_fail(c, at, TP_ERR_KTP_EXPR_STRING);
		return NULL;
	}
	sum = ktp_node(c, KTP_OP_ADD, KTP_T_U64, at);
	if (!sum)
		return NULL;
	sum->l = n;
	sum->r = ktp_const(c, offs, KTP_T_S64, at);
	if (!sum->r)
		return NULL;
	return ktp_read_node(c, ktp_fold(c, sum), KTP_T_U64, user, at);
}

/* Is the token a '+' or '-' that starts +OFFS( ? */
static bool ktp_at_deref(struct ktp_compiler *c)
{
	const char *p = c->tok_start + 1;

	if (c->tok != '+' && c->tok != '-')
		return false;
	if (*p == 'u')
		p++;
	if (!isdigit(*p))
		return false;
	while (isalnum(*p))
		p++;
	return *p == '(';
}

static struct ktp_node *ktp_unary_node(struct ktp_compiler *c, int op,
				       struct ktp_node *l, const char *at)
{
	struct ktp_node *n;
	int type = op == KTP_OP_LNOT ? KTP_T_S64 : ktp_promote(l->type);

	if (l->type & KTP_T_STR) {
		ktp_fail(c, at, TP_ERR_KTP_EXPR_STRING);
		return NULL;
	}
	n = ktp_node(c, op, type, at);
	if (n)
		n->l = l;
	return n;
}

static struct ktp_node *__ktp_parse_unary(struct ktp_compiler *c)
{
	const char *at = c->tok_start;
	struct ktp_node *n;
	int type, op;

	if (ktp_at_deref(c))
		return ktp_parse_deref(c);

	switch (c->tok) {
	case '-':
	case '~':
	case '!':
		op = c->tok == '-' ? KTP_OP_NEG : c->tok == '~' ? KTP_OP_NOT :
		     KTP_OP_LNOT;
		if (ktp_next(c))
			return NULL;
		n = ktp_parse_unary(c);
		return n ? ktp_unary_node(c, op, n, at) : NULL;
	case '*':
		if (ktp_next(c))
			return NULL;
		n = ktp_parse_unary(c);
		if (!n)
			return NULL;
		if (!(n->type & KTP_T_PTR)) {
			ktp_fail(c, at, TP_ERR_KTP_EXPR_DEREF);
			return NULL;
		}
		return ktp_read_node(c, n, n->type & ~(KTP_T_PTR | KTP_T_STR),
				     false, at);
	case '&':
		if (ktp_next(c))
			return NULL;
		/* only a global's address can be taken */
		if (c->tok != KTP_TOK_IDENT) {
			ktp_fail(c, at, TP_ERR_KTP_EXPR_SYNTAX);
			return NULL;
		}
		return ktp_parse_global(c, true);
	case '(':
		/* a cast, if a type name follows */
		{
			const char *p = c->p, *name;
			int len;

			while (isspace(*p))
				p++;
			for (name = p, len = 0; ktp_is_ident(p[len]); len++)
				;
			type = ktp_type_name(name, len);
			if (!type)
				break;
			p += len;
			while (isspace(*p))
				p++;
			if (*p == '*') {
				type |= KTP_T_PTR;
				p++;
				while (isspace(*p))
					p++;
			}
			if (*p != ')') {
				ktp_fail(c, p, TP_ERR_KTP_EXPR_SYNTAX);
				return NULL;
			}
			c->p = p + 1;
			if (ktp_next(c))
				return NULL;
			n = ktp_parse_unary(c);
			if (!n)
				return NULL;
			if (n->type & KTP_T_STR) {
				ktp_fail(c, at, TP_ERR_KTP_EXPR_STRING);
				return NULL;
			}
			/* a char * may be compared with a string literal */
			if (type == (1 | KTP_T_SIGNED | KTP_T_PTR))
				type |= KTP_T_STR;
			{
				struct ktp_node *cast = ktp_node(c, KTP_OP_CAST,
								 type, at);

				if (cast)
					cast->l = n;
				return cast;
			}
		}
	}
	return ktp_parse_primary(c);
}

static struct ktp_node *ktp_parse_unary(struct ktp_compiler *c)
{
	struct ktp_node *n;

	if (++c->depth > KTP_EXPR_MAX_DEPTH) {
		ktp_fail(c, c->tok_start, TP_ERR_KTP_EXPR_TOO_DEEP);
		return NULL;
	}
	n = __ktp_parse_unary(c);
	c->depth--;
	return n ? ktp_fold(c, n) : NULL;
}

/* Binary operators by precedence, lowest first */
static int ktp_binary_op(int tok, int *prec)
{
	static const struct { int tok, op, prec; } ops[] = {
		{ KTP_TOK_LOR, KTP_OP_LOR, 1 }, { KTP_TOK_LAND, KTP_OP_LAND, 2 },
		{ '|', KTP_OP_OR, 3 }, { '^', KTP_OP_XOR, 4 },
		{ '&', KTP_OP_AND, 5 },
		{ KTP_TOK_EQ, KTP_OP_EQ, 6 }, { KTP_TOK_NE, KTP_OP_NE, 6 },
		{ '~', KTP_OP_STRCMP, 6 },
		{ '<', KTP_OP_LT, 7 }, { KTP_TOK_LE, KTP_OP_LE, 7 },
		{ '>', KTP_OP_GT, 7 }, { KTP_TOK_GE, KTP_OP_GE, 7 },
		{ KTP_TOK_SHL, KTP_OP_SHL, 8 }, { KTP_TOK_SHR, KTP_OP_SHR, 8 },
		{ '+', KTP_OP_ADD, 9 }, { '-', KTP_OP_SUB, 9 },
		{ '*', KTP_OP_MUL, 10 }, { '/', KTP_OP_DIV, 10 },
		{ '%', KTP_OP_MOD, 10 },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		if (ops[i].tok == tok) {
			*prec = ops[i].prec;
			return ops[i].op;
		}
	}
	return -1;
}

/* A string compared with a literal: the only use of a string */
static struct ktp_node *ktp_string_node(struct ktp_compiler *c, int op,
					struct ktp_node *l, struct ktp_node *r,
					const char *at)
{
	struct ktp_node *n;

	if (op == KTP_OP_EQ || op == KTP_OP_NE) {
		if (l->op == KTP_OP_STRLIT && r->op != KTP_OP_STRLIT)
			swap(l, r);
	} else if (op != KTP_OP_STRCMP) {
		goto bad;
	}
	if (!(l->type & KTP_T_STR) || l->op == KTP_OP_STRLIT ||
	    r->op != KTP_OP_STRLIT)
		goto bad;

	n = ktp_node(c, KTP_OP_STRCMP, KTP_T_S64, at);
	if (!n)
		return NULL;
	n->param = op == KTP_OP_EQ ? KTP_STR_EQ : op == KTP_OP_NE ?
		   KTP_STR_NE : KTP_STR_GLOB;
	if (l->op == KTP_OP_COMM)
		n->param |= KTP_STR_COMM;
	n->l = l;
	n->val = r->val;
	return n;
bad:
	ktp_fail(c, at, TP_ERR_KTP_EXPR_STRING);
	return NULL;
}

static struct ktp_node *ktp_binary_node(struct ktp_compiler *c, int op,
					struct ktp_node *l, struct ktp_node *r,
					const char *at)
{
	struct ktp_node *n;
	int type;

	if ((l->type | r->type) & KTP_T_STR || op == KTP_OP_STRCMP)
		return ktp_string_node(c, op, l, r, at);

	switch (op) {
	case KTP_OP_SHL:
	case KTP_OP_SHR:
		type = ktp_promote(l->type);
		break;
	case KTP_OP_EQ ... KTP_OP_LOR:
		type = KTP_T_S64;
		break;
	default:
		type = ktp_common_type(l->type, r->type);
	}
	n = ktp_node(c, op, type, at);
	if (!n)
		return NULL;
	n->l = l;
	n->r = r;
	return ktp_fold(c, n);
}

static struct ktp_node *ktp_parse_binary(struct ktp_compiler *c, int min_prec)
{
	struct ktp_node *l, *r;
	const char *at;
	int op, prec;

	l = ktp_parse_unary(c);
	while (l) {
		op = ktp_binary_op(c->tok, &prec);
		if (op < 0 || prec < min_prec)
			break;
		at = c->tok_start;
		if (ktp_next(c))
			return NULL;
		if (++c->depth > KTP_EXPR_MAX_DEPTH) {
			ktp_fail(c, at, TP_ERR_KTP_EXPR_TOO_DEEP);
			return NULL;
		}
		/* left associative: the right side binds tighter */
		r = ktp_parse_binary(c, prec + 1);
		c->depth--;
		if (!r)
			return NULL;
		l = ktp_binary_node(c, op, l, r, at);
	}
	return l;
}

static struct ktp_node *ktp_parse_expr(struct ktp_compiler *c)
{
	struct ktp_node *cond, *n;
	const char *at;

	cond = ktp_parse_binary(c, 1);
	if (!cond || c->tok != '?')
		return cond;
	at = c->tok_start;
	if (cond->type & KTP_T_STR) {
		ktp_fail(c, at, TP_ERR_KTP_EXPR_STRING);
		return NULL;
	}
	if (++c->depth > KTP_EXPR_MAX_DEPTH) {
		ktp_fail(c, at, TP_ERR_KTP_EXPR_TOO_DEEP);
		return NULL;
	}
	n = ktp_node(c, KTP_OP_COND, 0, at);
	if (!n || ktp_next(c))
		return NULL;
	n->c = cond;
	n->l = ktp_parse_expr(c);
	if (!n->l || ktp_expect(c, ':'))
		return NULL;
	/* right associative: a ? b : c ? d : e */
	n->r = ktp_parse_expr(c);
	c->depth--;
	if (!n->r)
		return NULL;
	if ((n->l->type | n->r->type) & KTP_T_STR) {
		ktp_fail(c, at, TP_ERR_KTP_EXPR_STRING);
		return NULL;
	}
	n->type = ktp_common_type(n->l->type, n->r->type);
	return ktp_fold(c, n);
}

/* ---- the reference evaluator ---- */

/* The value of an event field, as "t" probes' fetch arguments read it */
static u64 ktp_read_field(struct ftrace_event_field *field, void *rec)
{
	struct fetch_insn code = { .data = field };

	return get_event_field(&code, rec);
}

static u64 ktp_shift(int op, u64 l, u64 count, bool is_signed)
{
	if (count > 63) {
		if (op == KTP_OP_SHR && is_signed)
			return (s64)l >> 63;
		return 0;
	}
	if (op == KTP_OP_SHL)
		return l << count;
	return is_signed ? (u64)((s64)l >> count) : l >> count;
}

static u64 ktp_divide(int op, u64 l, u64 r, bool is_signed)
{
	if (!r)
		return 0;
	if (!is_signed)
		return op == KTP_OP_DIV ? div64_u64(l, r) : l - div64_u64(l, r) * r;
	if ((s64)r == -1)	/* S64_MIN / -1 would trap */
		return op == KTP_OP_DIV ? -l : 0;
	if (op == KTP_OP_DIV)
		return div64_s64(l, r);
	return l - div64_s64(l, r) * r;
}

static u64 ktp_compare(int op, u64 l, u64 r, bool is_signed)
{
	s64 sl = l, sr = r;

	switch (op) {
	case KTP_OP_EQ:
		return l == r;
	case KTP_OP_NE:
		return l != r;
	case KTP_OP_LT:
		return is_signed ? sl < sr : l < r;
	case KTP_OP_LE:
		return is_signed ? sl <= sr : l <= r;
	case KTP_OP_GT:
		return is_signed ? sl > sr : l > r;
	default:
		return is_signed ? sl >= sr : l >= r;
	}
}

/* Evaluate @n as the program would; @ctx is NULL while folding. */
static u64 ktp_eval_node(const struct ktp_node *n, struct ktp_run_ctx *ctx)
{
	u64 l, r;

	switch (n->op) {
	case KTP_OP_CONST:
		return n->val;
	case KTP_OP_REG:
		return *(unsigned long *)((void *)ctx->regs + n->param);
	case KTP_OP_ARG:
		if (ctx->entry)
			return ctx->entry[n->param - 1];
		if (n->param <= 6)
			return regs_get_kernel_argument(ctx->regs, n->param - 1);
		return ____ktp_bpf_read(ctx, kernel_stack_pointer(ctx->regs) +
					8 * (n->param - 6), 8);
	case KTP_OP_STACKP:
		return kernel_stack_pointer(ctx->regs);
	case KTP_OP_FIELD:
		return ktp_convert(ktp_read_field((void *)(unsigned long)n->val,
						  ctx->rec), n->type);
	case KTP_OP_READ:
		l = ktp_eval_node(n->l, ctx);
		return ktp_convert(____ktp_bpf_read(ctx, l, n->param), n->type);
	case KTP_OP_CAST:
		return ktp_convert(ktp_eval_node(n->l, ctx), n->type);
	case KTP_OP_NEG:
		return -ktp_eval_node(n->l, ctx);
	case KTP_OP_NOT:
		return ~ktp_eval_node(n->l, ctx);
	case KTP_OP_LNOT:
		return !ktp_eval_node(n->l, ctx);
	case KTP_OP_LAND:
		return ktp_eval_node(n->l, ctx) && ktp_eval_node(n->r, ctx);
	case KTP_OP_LOR:
		return ktp_eval_node(n->l, ctx) || ktp_eval_node(n->r, ctx);
	case KTP_OP_COND:
		return ktp_eval_node(n->c, ctx) ? ktp_eval_node(n->l, ctx) :
						  ktp_eval_node(n->r, ctx);
	case KTP_OP_STRCMP:
		l = n->param & KTP_STR_COMM ? 0 : ktp_eval_node(n->l, ctx);
		return ____ktp_bpf_strcmp(ctx, l, (const char *)(unsigned long)n->val,
					  n->param);
	case KTP_OP_COMM:
	case KTP_OP_STRLIT:
		return 0;	/* only under KTP_OP_STRCMP */
	}

	l = ktp_eval_node(n->l, ctx);
	r = ktp_eval_node(n->r, ctx);
	switch (n->op) {
	case KTP_OP_ADD: return l + r;
	case KTP_OP_SUB: return l - r;
	case KTP_OP_MUL: return l * r;
	case KTP_OP_AND: return l & r;
	case KTP_OP_OR:	 return l | r;
	case KTP_OP_XOR: return l ^ r;
	case KTP_OP_DIV:
	case KTP_OP_MOD:
		return ktp_divide(n->op, l, r, ktp_is_signed(n->type));
	case KTP_OP_SHL:
	case KTP_OP_SHR:
		return ktp_shift(n->op, l, r, ktp_is_signed(n->type));
	default:
		return ktp_compare(n->op, l, r,
				   ktp_is_signed(ktp_common_type(n->l->type,
								 n->r->type)));
	}
}

/* ---- constant folding ---- */

static bool ktp_is_const(const struct ktp_node *n, u64 val)
{
	return n && n->op == KTP_OP_CONST && n->val == val;
}

/* @n's value as @type: a cast that emits nothing when only the type differs */
static struct ktp_node *ktp_retype(struct ktp_compiler *c, struct ktp_node *n,
				   int type)
{
	struct ktp_node *cast;

	if (ktp_promote(n->type) == type)
		return n;
	cast = ktp_node(c, KTP_OP_CAST, type, c->src + n->pos);
	if (cast)
		cast->l = n;
	return cast;
}

static struct ktp_node *ktp_fold(struct ktp_compiler *c, struct ktp_node *n)
{
	struct ktp_node *l = n->l, *r = n->r;

	if (!c->fold)
		return n;

	/* every operand constant: one constant */
	switch (n->op) {
	case KTP_OP_CAST:
	case KTP_OP_NEG ... KTP_OP_LNOT:
		if (l->op != KTP_OP_CONST || (n->type & KTP_T_STR))
			break;
		goto fold;
	case KTP_OP_ADD ... KTP_OP_GE:
		if (l->op == KTP_OP_CONST && r->op == KTP_OP_CONST)
			goto fold;
		break;
	case KTP_OP_LAND:
	case KTP_OP_LOR:
		if (l->op != KTP_OP_CONST)
			break;
		/* 0 && x, 1 || x: x is never evaluated */
		if (n->op == KTP_OP_LAND ? !l->val : l->val)
			return ktp_const(c, n->op == KTP_OP_LOR, KTP_T_S64,
					 c->src + n->pos);
		if (r->op == KTP_OP_CONST)
			goto fold;
		break;
	case KTP_OP_COND:
		if (n->c->op == KTP_OP_CONST)
			return ktp_retype(c, n->c->val ? l : r, n->type);
		break;
	}

	/* operations that do nothing */
	switch (n->op) {
	case KTP_OP_ADD:
	case KTP_OP_OR:
	case KTP_OP_XOR:
		if (ktp_is_const(l, 0) && ktp_promote(r->type) == n->type)
			return r;
		fallthrough;
	case KTP_OP_SUB:
	case KTP_OP_SHL:
	case KTP_OP_SHR:
		if (ktp_is_const(r, 0) && ktp_promote(l->type) == n->type)
			return l;
		break;
	case KTP_OP_MUL:
		if (ktp_is_const(l, 1) && ktp_promote(r->type) == n->type)
			return r;
		fallthrough;
	case KTP_OP_DIV:
		if (ktp_is_const(r, 1) && ktp_promote(l->type) == n->type)
			return l;
		break;
	case KTP_OP_CAST:
		/* a cast to 64 bits of a value already 64-bit wide */
		if (!(n->type & (KTP_T_PTR | KTP_T_STR)) &&
		    (n->type & KTP_T_SIZE) == 8 && ktp_promote(l->type) == n->type)
			return l;
		break;
	}
	return n;
fold:
	return ktp_const(c, ktp_eval_node(n, NULL), n->type, c->src + n->pos);
}

/* ---- code generation ---- */

static void ktp_emit(struct ktp_compiler *c, struct bpf_insn insn)
{
	if (c->len >= KTP_EXPR_MAX_INSNS) {
		if (!c->error)
			c->error = -E2BIG;
		return;
	}
	c->insns[c->len++] = insn;
}

static void ktp_emit_imm64(struct ktp_compiler *c, int reg, u64 val)
{
	struct bpf_insn insn[2] = { BPF_LD_IMM64(reg, val) };

	if ((s64)val == (s32)val) {
		ktp_emit(c, BPF_MOV64_IMM(reg, (s32)val));
		return;
	}
	ktp_emit(c, insn[0]);
	ktp_emit(c, insn[1]);
}

static bool ktp_slot_is_reg(int slot)
{
	return slot < KTP_NR_REG_SLOTS;
}

static int ktp_slot_reg(int slot)
{
	return BPF_REG_7 + slot;
}

static int ktp_slot_off(int slot)
{
	return -8 * (slot - KTP_NR_REG_SLOTS + 1);
}

/* The register holding @slot: the slot's own, or @scratch loaded */
static int ktp_load(struct ktp_compiler *c, int slot, int scratch)
{
	if (ktp_slot_is_reg(slot))
		return ktp_slot_reg(slot);
	ktp_emit(c, BPF_LDX_MEM(BPF_DW, scratch, BPF_REG_FP, ktp_slot_off(slot)));
	return scratch;
}

static void ktp_store(struct ktp_compiler *c, int slot, int reg)
{
	c->max_slot = max(c->max_slot, slot);
	if (ktp_slot_is_reg(slot)) {
		if (reg != ktp_slot_reg(slot))
			ktp_emit(c, BPF_MOV64_REG(ktp_slot_reg(slot), reg));
		return;
	}
	ktp_emit(c, BPF_STX_MEM(BPF_DW, BPF_REG_FP, reg, ktp_slot_off(slot)));
}

/* Jump offsets are patched once the target is known */
static int ktp_jump(struct ktp_compiler *c, struct bpf_insn insn)
{
	ktp_emit(c, insn);
	return c->len - 1;
}

static void ktp_land(struct ktp_compiler *c, int from)
{
	if (from >= 0 && from < c->len)
		c->insns[from].off = c->len - from - 1;
}

/* Truncate and extend @reg from its bits to @type */
static void ktp_emit_convert(struct ktp_compiler *c, int reg, int type)
{
	int size = type & KTP_T_SIZE;

	if (type & (KTP_T_PTR | KTP_T_STR) || size >= 8)
		return;
	if (ktp_is_signed(type)) {
		ktp_emit(c, BPF_ALU64_IMM(BPF_LSH, reg, 64 - size * 8));
		ktp_emit(c, BPF_ALU64_IMM(BPF_ARSH, reg, 64 - size * 8));
	} else if (size == 4) {
		ktp_emit(c, BPF_MOV32_REG(reg, reg));	/* zero-extends */
	} else {
		ktp_emit(c, BPF_ALU64_IMM(BPF_AND, reg, (1 << (size * 8)) - 1));
	}
}

static void ktp_gen(struct ktp_compiler *c, const struct ktp_node *n, int slot);

/* R0 = ktp_bpf_read(ctx, the address in @slot, how) */
static void ktp_gen_read(struct ktp_compiler *c, const struct ktp_node *n,
			 int slot)
{
	int reg;

	ktp_gen(c, n->l, slot);
	reg = ktp_load(c, slot, BPF_REG_2);
	if (reg != BPF_REG_2)
		ktp_emit(c, BPF_MOV64_REG(BPF_REG_2, reg));
	ktp_emit(c, BPF_MOV64_REG(BPF_REG_1, KTP_R_CTX));
	ktp_emit(c, BPF_MOV64_IMM(BPF_REG_3, n->param));
	ktp_emit(c, BPF_EMIT_CALL(ktp_bpf_read));
	ktp_emit_convert(c, BPF_REG_0, n->type);
	ktp_store(c, slot, BPF_REG_0);
}

static void ktp_gen_field(struct ktp_compiler *c, const struct ktp_node *n,
			  int slot)
{
	struct ftrace_event_field *field = (void *)(unsigned long)n->val;
	static const int sizes[] = { [1] = BPF_B, [2] = BPF_H, [4] = BPF_W,
				     [8] = BPF_DW };
	int off = field->offset;

	ktp_emit(c, BPF_LDX_MEM(BPF_DW, BPF_REG_1, KTP_R_CTX,
				offsetof(struct ktp_run_ctx, rec)));
	if (!is_string_field(field)) {
		ktp_emit(c, BPF_LDX_MEM(sizes[field->size], BPF_REG_0, BPF_REG_1, off));
		ktp_emit_convert(c, BPF_REG_0, n->type);
		ktp_store(c, slot, BPF_REG_0);
		return;
	}
	switch (field->filter_type) {
	case FILTER_DYN_STRING:		/* rec + (loc & 0xffff) */
	case FILTER_RDYN_STRING:	/* field + (loc & 0xffff) */
		ktp_emit(c, BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, off));
		ktp_emit(c, BPF_ALU64_IMM(BPF_AND, BPF_REG_0, 0xffff));
		ktp_emit(c, BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1));
		if (field->filter_type == FILTER_RDYN_STRING)
			ktp_emit(c, BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, off));
		break;
	case FILTER_PTR_STRING:
		ktp_emit(c, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, off));
		break;
	default:
		ktp_emit(c, BPF_MOV64_REG(BPF_REG_0, BPF_REG_1));
		ktp_emit(c, BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, off));
	}
	ktp_store(c, slot, BPF_REG_0);
}

static void ktp_gen_arg(struct ktp_compiler *c, const struct ktp_node *n,
			int slot)
{
	static const int arg_regs[] = {
		offsetof(struct pt_regs, di), offsetof(struct pt_regs, si),
		offsetof(struct pt_regs, dx), offsetof(struct pt_regs, cx),
		offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
	};
	int reg = ktp_slot_is_reg(slot) ? ktp_slot_reg(slot) : BPF_REG_0;

	if (c->env.flags & KTP_ENV_RETURN) {
		ktp_emit(c, BPF_LDX_MEM(BPF_DW, BPF_REG_1, KTP_R_CTX,
					offsetof(struct ktp_run_ctx, entry)));
		ktp_emit(c, BPF_LDX_MEM(BPF_DW, reg, BPF_REG_1,
					8 * (n->param - 1)));
		ktp_store(c, slot, reg);
		return;
	}
	if (n->param <= ARRAY_SIZE(arg_regs)) {
		ktp_emit(c, BPF_LDX_MEM(BPF_DW, BPF_REG_1, KTP_R_CTX,
					offsetof(struct ktp_run_ctx, regs)));
		ktp_emit(c, BPF_LDX_MEM(BPF_DW, reg, BPF_REG_1,
					arg_regs[n->param - 1]));
		ktp_store(c, slot, reg);
		return;
	}
	/* on the stack, above the return address */
	ktp_emit(c, BPF_LDX_MEM(BPF_DW, BPF_REG_1, KTP_R_CTX,
				offsetof(struct ktp_run_ctx, regs)));
	ktp_emit(c, BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1,
				offsetof(struct pt_regs, sp)));
	ktp_emit(c, BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, 8 * (n->param - 6)));
	ktp_emit(c, BPF_MOV64_REG(BPF_REG_1, KTP_R_CTX));
	ktp_emit(c, BPF_MOV64_IMM(BPF_REG_3, 8));
	ktp_emit(c, BPF_EMIT_CALL(ktp_bpf_read));
	ktp_store(c, slot, BPF_REG_0);
}

static int ktp_jmp_op(int op, bool is_signed)
{
	switch (op) {
	case KTP_OP_EQ:
		return BPF_JEQ;
	case KTP_OP_NE:
		return BPF_JNE;
	case KTP_OP_LT:
		return is_signed ? BPF_JSLT : BPF_JLT;
	case KTP_OP_LE:
		return is_signed ? BPF_JSLE : BPF_JLE;
	case KTP_OP_GT:
		return is_signed ? BPF_JSGT : BPF_JGT;
	default:
		return is_signed ? BPF_JSGE : BPF_JGE;
	}
}

static int ktp_negate_op(int op)
{
	static const int negated[] = {
		[KTP_OP_EQ] = KTP_OP_NE, [KTP_OP_NE] = KTP_OP_EQ,
		[KTP_OP_LT] = KTP_OP_GE, [KTP_OP_LE] = KTP_OP_GT,
		[KTP_OP_GT] = KTP_OP_LE, [KTP_OP_GE] = KTP_OP_LT,
	};

	return negated[op];
}

static bool ktp_fits_imm(const struct ktp_node *n)
{
	return n->op == KTP_OP_CONST && (s64)n->val == (s32)n->val;
}

/*
 * Emit a jump taken when the comparison @op of @n's operands holds, the
 * operands evaluated from @slot. Returns the jump to patch.
 */
static int ktp_gen_compare_jump(struct ktp_compiler *c,
				const struct ktp_node *n, int op, int slot)
{
	bool is_signed = ktp_is_signed(ktp_common_type(n->l->type, n->r->type));
	int a, b, jop = ktp_jmp_op(op, is_signed);

	ktp_gen(c, n->l, slot);
	if (ktp_fits_imm(n->r)) {
		a = ktp_load(c, slot, BPF_REG_1);
		return ktp_jump(c, BPF_JMP_IMM(jop, a, (s32)n->r->val, 0));
	}
	ktp_gen(c, n->r, slot + 1);
	a = ktp_load(c, slot, BPF_REG_1);
	b = ktp_load(c, slot + 1, BPF_REG_2);
	return ktp_jump(c, BPF_JMP_REG(jop, a, b, 0));
}

/* Growable lists of jumps to one target */
struct ktp_jumps {
	int	at[KTP_EXPR_MAX_NODES];
	int	nr;
};

static void ktp_add_jump(struct ktp_compiler *c, struct ktp_jumps *j, int at)
{
	if (j->nr < ARRAY_SIZE(j->at))
		j->at[j->nr++] = at;
	else if (!c->error)
		c->error = -E2BIG;
}

static void ktp_land_all(struct ktp_compiler *c, struct ktp_jumps *j)
{
	while (j->nr)
		ktp_land(c, j->at[--j->nr]);
}

/*
 * Emit code that jumps to one of @to_false when @n is false and falls
 * through when it is true: the condition of a probe, without making a
 * 0 or 1 it would only test.
 */
static void ktp_gen_branch(struct ktp_compiler *c, const struct ktp_node *n,
			   bool jump_if, struct ktp_jumps *to, int slot)
{
	struct ktp_jumps *other;
	int reg;

	switch (n->op) {
	case KTP_OP_EQ ... KTP_OP_GE:
		ktp_add_jump(c, to, ktp_gen_compare_jump(c, n, jump_if ? n->op :
						ktp_negate_op(n->op), slot));
		return;
	case KTP_OP_LNOT:
		ktp_gen_branch(c, n->l, !jump_if, to, slot);
		return;
	case KTP_OP_LAND:
	case KTP_OP_LOR:
		if (n->op == KTP_OP_LAND ? !jump_if : jump_if) {
			/* && jumping if false, || jumping if true: both go */
			ktp_gen_branch(c, n->l, jump_if, to, slot);
			ktp_gen_branch(c, n->r, jump_if, to, slot);
			return;
		}
		/* && jumping if true: l false skips r */
		other = kzalloc(sizeof(*other), GFP_KERNEL);
		if (!other) {
			c->error = -ENOMEM;
			return;
		}
		ktp_gen_branch(c, n->l, !jump_if, other, slot);
		ktp_gen_branch(c, n->r, jump_if, to, slot);
		ktp_land_all(c, other);
		kfree(other);
		return;
	}
	ktp_gen(c, n, slot);
	reg = ktp_load(c, slot, BPF_REG_1);
	ktp_add_jump(c, to, ktp_jump(c, BPF_JMP_IMM(jump_if ? BPF_JNE : BPF_JEQ,
						    reg, 0, 0)));
}

/* The BPF_ALU64 operation of a binary operator; shifts are apart */
static const int ktp_alu_ops[] = {
	[KTP_OP_ADD] = BPF_ADD, [KTP_OP_SUB] = BPF_SUB,
	[KTP_OP_MUL] = BPF_MUL, [KTP_OP_AND] = BPF_AND,
	[KTP_OP_OR] = BPF_OR, [KTP_OP_XOR] = BPF_XOR,
	[KTP_OP_DIV] = BPF_DIV, [KTP_OP_MOD] = BPF_MOD,
};

/*
 * A constant right operand that fits an instruction's immediate: no
 * register for it, and no run-time check a constant makes needless.
 */
static bool ktp_gen_binary_imm(struct ktp_compiler *c, const struct ktp_node *n,
			       int slot)
{
	bool is_signed = ktp_is_signed(n->type);
	s64 imm = (s64)n->r->val;
	int a;

	if (!ktp_fits_imm(n->r))
		return false;
	switch (n->op) {
	case KTP_OP_DIV:
	case KTP_OP_MOD:
		/* by 0 and by -1 (or more than S32_MAX unsigned): checked */
		if (imm <= 0)
			return false;
		break;
	case KTP_OP_SHL:
	case KTP_OP_SHR:
	case KTP_OP_ADD:
	case KTP_OP_SUB:
	case KTP_OP_MUL:
	case KTP_OP_AND:
	case KTP_OP_OR:
	case KTP_OP_XOR:
		break;
	default:
		return false;
	}

	ktp_gen(c, n->l, slot);
	a = ktp_load(c, slot, BPF_REG_1);
	if (n->op == KTP_OP_SHL || n->op == KTP_OP_SHR) {
		if (imm < 0 || imm > 63) {
			if (n->op == KTP_OP_SHR && is_signed)
				ktp_emit(c, BPF_ALU64_IMM(BPF_ARSH, a, 63));
			else
				ktp_emit(c, BPF_MOV64_IMM(a, 0));
		} else {
			ktp_emit(c, BPF_ALU64_IMM(n->op == KTP_OP_SHL ? BPF_LSH :
						  is_signed ? BPF_ARSH : BPF_RSH,
						  a, imm));
		}
	} else {
		ktp_emit(c, ((struct bpf_insn) {
			.code = BPF_ALU64 | ktp_alu_ops[n->op] | BPF_K,
			.dst_reg = a, .imm = imm,
			.off = (n->op == KTP_OP_DIV || n->op == KTP_OP_MOD) &&
			       is_signed,
		}));
	}
	ktp_store(c, slot, a);
	return true;
}

static void ktp_gen_binary(struct ktp_compiler *c, const struct ktp_node *n,
			   int slot)
{
	bool is_signed = ktp_is_signed(n->type);
	int a, b, j1, j2, j3, code;

	if (ktp_gen_binary_imm(c, n, slot))
		return;
	ktp_gen(c, n->l, slot);
	ktp_gen(c, n->r, slot + 1);
	a = ktp_load(c, slot, BPF_REG_1);
	b = ktp_load(c, slot + 1, BPF_REG_2);

	switch (n->op) {
	case KTP_OP_DIV:
	case KTP_OP_MOD:
		/* by 0: 0; signed by -1: -a or 0, as idiv would trap */
		j1 = ktp_jump(c, BPF_JMP_IMM(BPF_JNE, b, 0, 0));
		ktp_emit(c, BPF_MOV64_IMM(a, 0));
		j2 = ktp_jump(c, BPF_JMP_A(0));
		ktp_land(c, j1);
		j3 = -1;
		if (is_signed) {
			j1 = ktp_jump(c, BPF_JMP_IMM(BPF_JNE, b, -1, 0));
			if (n->op == KTP_OP_DIV)
				ktp_emit(c, BPF_ALU64_IMM(BPF_NEG, a, 0));
			else
				ktp_emit(c, BPF_MOV64_IMM(a, 0));
			j3 = ktp_jump(c, BPF_JMP_A(0));
			ktp_land(c, j1);
		}
		ktp_emit(c, ((struct bpf_insn) {
			.code = BPF_ALU64 | ktp_alu_ops[n->op] | BPF_X,
			.dst_reg = a, .src_reg = b, .off = is_signed,
		}));
		ktp_land(c, j2);
		ktp_land(c, j3);
		break;
	case KTP_OP_SHL:
	case KTP_OP_SHR:
		/* counts outside 0..63 give 0, or the sign */
		code = n->op == KTP_OP_SHL ? BPF_LSH : is_signed ? BPF_ARSH :
		       BPF_RSH;
		j1 = ktp_jump(c, BPF_JMP_IMM(BPF_JLT, b, 64, 0));
		if (code == BPF_ARSH)
			ktp_emit(c, BPF_ALU64_IMM(BPF_ARSH, a, 63));
		else
			ktp_emit(c, BPF_MOV64_IMM(a, 0));
		j2 = ktp_jump(c, BPF_JMP_A(0));
		ktp_land(c, j1);
		ktp_emit(c, BPF_ALU64_REG(code, a, b));
		ktp_land(c, j2);
		break;
	default:
		ktp_emit(c, BPF_ALU64_REG(ktp_alu_ops[n->op], a, b));
	}
	ktp_store(c, slot, a);
}

/* Evaluate @n into @slot */
static void ktp_gen(struct ktp_compiler *c, const struct ktp_node *n, int slot)
{
	struct ktp_jumps *jumps;
	int reg, j1, j2;

	if (c->error)
		return;

	switch (n->op) {
	case KTP_OP_CONST:
		reg = ktp_slot_is_reg(slot) ? ktp_slot_reg(slot) : BPF_REG_0;
		ktp_emit_imm64(c, reg, n->val);
		ktp_store(c, slot, reg);
		return;
	case KTP_OP_REG:
	case KTP_OP_STACKP:
		reg = ktp_slot_is_reg(slot) ? ktp_slot_reg(slot) : BPF_REG_0;
		ktp_emit(c, BPF_LDX_MEM(BPF_DW, BPF_REG_1, KTP_R_CTX,
					offsetof(struct ktp_run_ctx, regs)));
		ktp_emit(c, BPF_LDX_MEM(BPF_DW, reg, BPF_REG_1,
					n->op == KTP_OP_REG ? n->param :
					offsetof(struct pt_regs, sp)));
		ktp_store(c, slot, reg);
		return;
	case KTP_OP_ARG:
		ktp_gen_arg(c, n, slot);
		return;
	case KTP_OP_FIELD:
		ktp_gen_field(c, n, slot);
		return;
	case KTP_OP_READ:
		ktp_gen_read(c, n, slot);
		return;
	case KTP_OP_CAST:
		ktp_gen(c, n->l, slot);
		reg = ktp_load(c, slot, BPF_REG_1);
		ktp_emit_convert(c, reg, n->type);
		ktp_store(c, slot, reg);
		return;
	case KTP_OP_NEG:
	case KTP_OP_NOT:
		ktp_gen(c, n->l, slot);
		reg = ktp_load(c, slot, BPF_REG_1);
		if (n->op == KTP_OP_NEG)
			ktp_emit(c, BPF_ALU64_IMM(BPF_NEG, reg, 0));
		else
			ktp_emit(c, BPF_ALU64_IMM(BPF_XOR, reg, -1));
		ktp_store(c, slot, reg);
		return;
	case KTP_OP_STRCMP:
		if (n->param & KTP_STR_COMM) {
			ktp_emit(c, BPF_MOV64_IMM(BPF_REG_2, 0));
		} else {
			ktp_gen(c, n->l, slot);
			reg = ktp_load(c, slot, BPF_REG_2);
			if (reg != BPF_REG_2)
				ktp_emit(c, BPF_MOV64_REG(BPF_REG_2, reg));
		}
		ktp_emit(c, BPF_MOV64_REG(BPF_REG_1, KTP_R_CTX));
		ktp_emit_imm64(c, BPF_REG_3, n->val);
		ktp_emit(c, BPF_MOV64_IMM(BPF_REG_4, n->param));
		ktp_emit(c, BPF_EMIT_CALL(ktp_bpf_strcmp));
		ktp_store(c, slot, BPF_REG_0);
		return;
	case KTP_OP_COND:
		jumps = kzalloc(sizeof(*jumps), GFP_KERNEL);
		if (!jumps) {
			c->error = -ENOMEM;
			return;
		}
		ktp_gen_branch(c, n->c, false, jumps, slot);
		ktp_gen(c, n->l, slot);
		j1 = ktp_jump(c, BPF_JMP_A(0));
		ktp_land_all(c, jumps);
		kfree(jumps);
		ktp_gen(c, n->r, slot);
		ktp_land(c, j1);
		return;
	case KTP_OP_EQ ... KTP_OP_GE:
	case KTP_OP_LNOT:
	case KTP_OP_LAND:
	case KTP_OP_LOR:
		/* 1 unless a jump to false is taken */
		jumps = kzalloc(sizeof(*jumps), GFP_KERNEL);
		if (!jumps) {
			c->error = -ENOMEM;
			return;
		}
		ktp_gen_branch(c, n, false, jumps, slot);
		ktp_emit(c, BPF_MOV64_IMM(BPF_REG_0, 1));
		j2 = ktp_jump(c, BPF_JMP_A(0));
		ktp_land_all(c, jumps);
		kfree(jumps);
		ktp_emit(c, BPF_MOV64_IMM(BPF_REG_0, 0));
		ktp_land(c, j2);
		ktp_store(c, slot, BPF_REG_0);
		return;
	case KTP_OP_COMM:
	case KTP_OP_STRLIT:
		/* refused by the parser outside KTP_OP_STRCMP */
		c->error = -EINVAL;
		return;
	}
	ktp_gen_binary(c, n, slot);
}

/* ---- the compiler's interface ---- */

/**
 * ktp_compiler_create - start compiling the expressions of one probe
 * @env: what the expressions may name
 *
 * Return: a compiler, or NULL if memory ran out.
 */
struct ktp_compiler *ktp_compiler_create(const struct ktp_expr_env *env)
{
	struct ktp_compiler *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!c)
		return NULL;
	c->env = *env;
	c->fold = true;
	c->nodes = kvcalloc(KTP_EXPR_MAX_NODES, sizeof(*c->nodes), GFP_KERNEL);
	c->insns = kvcalloc(KTP_EXPR_MAX_INSNS, sizeof(*c->insns), GFP_KERNEL);
	if (!c->nodes || !c->insns) {
		ktp_compiler_destroy(c);
		return NULL;
	}
	/* R6 keeps the context across helper calls */
	ktp_emit(c, BPF_MOV64_REG(KTP_R_CTX, BPF_REG_1));
	return c;
}

/**
 * ktp_compiler_destroy - free a compiler and what it did not hand over
 * @c: the compiler, or NULL
 */
void ktp_compiler_destroy(struct ktp_compiler *c)
{
	unsigned int i;

	if (!c)
		return;
	for (i = 0; i < c->nr_lits; i++)
		kfree(c->lits[i]);
	kfree(c->lits);
	kfree(c->false_jumps);
	kvfree(c->nodes);
	kvfree(c->insns);
	kfree(c);
}

static struct ktp_node *ktp_parse(struct ktp_compiler *c, const char *src,
				  struct ktp_expr_error *err)
{
	struct ktp_node *n;

	memset(err, 0, sizeof(*err));
	c->err = err;
	c->src = src;
	c->p = src;
	c->depth = 0;
	/* the tree of the previous expression is compiled already */
	c->nr_nodes = 0;
	if (ktp_next(c))
		return NULL;
	n = ktp_parse_expr(c);
	if (!n)
		return NULL;
	if (c->tok != KTP_TOK_END) {
		ktp_fail(c, c->tok_start, TP_ERR_KTP_EXPR_SYNTAX);
		return NULL;
	}
	return n;
}

static int ktp_code_error(struct ktp_compiler *c, struct ktp_expr_error *err)
{
	if (!c->error)
		return 0;
	err->pos = 0;
	err->code = TP_ERR_KTP_EXPR_TOO_BIG;
	return c->error == -ENOMEM ? -ENOMEM : -E2BIG;
}

/**
 * ktp_compile_cond - compile a probe's condition
 * @c: the compiler; the condition comes before any fetch expression
 * @src: the condition, C syntax
 * @err: where and why @src was refused
 *
 * The program returns 0 as soon as the condition is false.
 *
 * Return: 0, or -EINVAL with @err set, -E2BIG or -ENOMEM.
 */
int ktp_compile_cond(struct ktp_compiler *c, const char *src,
		     struct ktp_expr_error *err)
{
	struct ktp_jumps *to_false;
	struct ktp_node *n;
	int *jumps;

	n = ktp_parse(c, src, err);
	if (!n)
		return c->error ?: -EINVAL;
	if (n->type & KTP_T_STR)
		return ktp_fail(c, src + n->pos, TP_ERR_KTP_EXPR_STRING);

	to_false = kzalloc(sizeof(*to_false), GFP_KERNEL);
	if (!to_false)
		return -ENOMEM;
	ktp_gen_branch(c, n, false, to_false, 0);
	/* the jumps land on the "return 0" ktp_compiler_finish() ends with */
	jumps = krealloc_array(c->false_jumps, c->nr_false_jumps + to_false->nr,
			       sizeof(int), GFP_KERNEL);
	if (!jumps) {
		kfree(to_false);
		return -ENOMEM;
	}
	c->false_jumps = jumps;
	memcpy(c->false_jumps + c->nr_false_jumps, to_false->at,
	       to_false->nr * sizeof(int));
	c->nr_false_jumps += to_false->nr;
	kfree(to_false);
	c->has_cond = true;
	return ktp_code_error(c, err);
}

/**
 * ktp_compile_fetch - compile a fetch expression
 * @c: the compiler
 * @src: the expression, C syntax
 * @slot: the index in ktp_run_ctx.vals[] the program writes its value to
 * @is_signed: set to whether the value is signed
 * @err: where and why @src was refused
 *
 * Return: 0, or -EINVAL with @err set, -E2BIG or -ENOMEM.
 */
int ktp_compile_fetch(struct ktp_compiler *c, const char *src,
		      unsigned int slot, bool *is_signed,
		      struct ktp_expr_error *err)
{
	struct ktp_node *n;
	int reg;

	if (slot >= KTP_EXPR_MAX_FETCHES)
		return -E2BIG;
	n = ktp_parse(c, src, err);
	if (!n)
		return c->error ?: -EINVAL;
	if (n->type & KTP_T_STR)
		return ktp_fail(c, src + n->pos, TP_ERR_KTP_EXPR_STRING);
	*is_signed = ktp_is_signed(ktp_promote(n->type));

	ktp_gen(c, n, 0);
	reg = ktp_load(c, 0, BPF_REG_1);
	ktp_emit(c, BPF_LDX_MEM(BPF_DW, BPF_REG_2, KTP_R_CTX,
				offsetof(struct ktp_run_ctx, vals)));
	ktp_emit(c, BPF_STX_MEM(BPF_DW, BPF_REG_2, reg, slot * 8));
	return ktp_code_error(c, err);
}

/**
 * ktp_compiler_finish - make the program and free the compiler
 * @c: the compiler
 * @jit: false to have the interpreter run the program even when the
 *	 JIT is enabled
 *
 * The program is JIT-compiled as bpf_jit_enable says (and blinded as
 * bpf_jit_harden says); it runs in the interpreter otherwise.
 *
 * Return: the program, or an ERR_PTR().
 */
struct ktp_prog *ktp_compiler_finish(struct ktp_compiler *c, bool jit)
{
	struct bpf_prog *fp;
	struct ktp_prog *kp;
	int i, err;

	ktp_emit(c, BPF_MOV64_IMM(BPF_REG_0, 1));
	ktp_emit(c, BPF_EXIT_INSN());
	for (i = 0; i < c->nr_false_jumps; i++)
		ktp_land(c, c->false_jumps[i]);
	ktp_emit(c, BPF_MOV64_IMM(BPF_REG_0, 0));
	ktp_emit(c, BPF_EXIT_INSN());
	if (c->error) {
		err = c->error;
		goto out;
	}

	err = -ENOMEM;
	kp = kzalloc(sizeof(*kp), GFP_KERNEL);
	if (!kp)
		goto out;
	fp = bpf_prog_alloc(bpf_prog_size(c->len), 0);
	if (!fp) {
		kfree(kp);
		goto out;
	}
	fp->len = c->len;
	fp->type = BPF_PROG_TYPE_KPROBE;
	memcpy(fp->insnsi, c->insns, bpf_prog_insn_size(fp));
	fp->aux->stack_depth = max(c->max_slot - KTP_NR_REG_SLOTS + 1, 0) * 8;
	if (!jit)
		fp->jit_requested = 0;
	fp = bpf_prog_select_runtime(fp, &err);
	if (err) {
		bpf_prog_free(fp);
		kfree(kp);
		goto out;
	}
	kp->prog = fp;
	kp->has_cond = c->has_cond;
	kp->nr_entry_args = c->nr_entry_args;
	kp->lits = c->lits;
	kp->nr_lits = c->nr_lits;
	c->lits = NULL;
	c->nr_lits = 0;
	ktp_compiler_destroy(c);
	return kp;
out:
	ktp_compiler_destroy(c);
	return ERR_PTR(err);
}

/**
 * ktp_prog_free - free a program no handler can be running any more
 * @kp: the program, or NULL
 */
void ktp_prog_free(struct ktp_prog *kp)
{
	unsigned int i;

	if (!kp)
		return;
	bpf_prog_free(kp->prog);
	for (i = 0; i < kp->nr_lits; i++)
		kfree(kp->lits[i]);
	kfree(kp->lits);
	kfree(kp);
}

static __printf(2, 3) void ktp_print_insn(void *private_data,
					  const char *fmt, ...)
{
	struct seq_file *m = private_data;
	va_list args;

	va_start(args, fmt);
	seq_vprintf(m, fmt, args);
	va_end(args);
}

static const char *ktp_call_name(void *private_data,
				 const struct bpf_insn *insn)
{
	if (insn->imm == BPF_CALL_IMM(ktp_bpf_read))
		return "ktp_bpf_read";
	if (insn->imm == BPF_CALL_IMM(ktp_bpf_strcmp))
		return "ktp_bpf_strcmp";
	return NULL;
}

/**
 * ktp_prog_show_insns - print a program's instructions
 * @m: where to print
 * @kp: the program
 *
 * One line an instruction, as "bpftool prog dump xlated" prints them:
 * with constant blinding, the blinded program.
 */
void ktp_prog_show_insns(struct seq_file *m, const struct ktp_prog *kp)
{
	const struct bpf_insn_cbs cbs = {
		.cb_print = ktp_print_insn,
		.cb_call = ktp_call_name,
		.private_data = m,
	};
	const struct bpf_prog *fp = kp->prog;
	u32 i;

	for (i = 0; i < fp->len; i++) {
		seq_printf(m, "  %4u: ", i);
		print_bpf_insn(&cbs, &fp->insnsi[i], true);
		if (fp->insnsi[i].code == (BPF_LD | BPF_IMM | BPF_DW))
			i++;
	}
}

/**
 * ktp_expr_eval - evaluate an expression with the reference evaluator
 * @env: what the expression may name
 * @src: the expression
 * @ctx: what the expression reads
 * @val: set to the value
 * @err: where and why @src was refused
 *
 * A tree walk over the unfolded expression with the semantics the
 * programs have; the KUnit tests compare the two.
 *
 * Return: 0, -EINVAL with @err set, or -ENOMEM.
 */
int ktp_expr_eval(const struct ktp_expr_env *env, const char *src,
		  struct ktp_run_ctx *ctx, u64 *val,
		  struct ktp_expr_error *err)
{
	struct ktp_compiler *c = ktp_compiler_create(env);
	struct ktp_node *n;
	int ret = -EINVAL;

	if (!c)
		return -ENOMEM;
	c->fold = false;
	n = ktp_parse(c, src, err);
	if (n && !(n->type & KTP_T_STR)) {
		*val = ktp_eval_node(n, ctx);
		ret = 0;
	} else if (n) {
		ktp_fail(c, src + n->pos, TP_ERR_KTP_EXPR_STRING);
	}
	ktp_compiler_destroy(c);
	return ret;
}
