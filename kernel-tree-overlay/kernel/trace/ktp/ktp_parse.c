// SPDX-License-Identifier: GPL-2.0
/*
 * KTP's expression compiler: the parser. A recursive descent over C's
 * expression grammar makes the tree of an expression, typed as C types
 * its operands, folding constants as it goes (ktp_fold.c); a term names
 * what a probe reads: a register, an argument, the return value, the
 * stack, a kernel global or symbol, memory, or a field of an event.
 */
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <asm/sections.h>

#include "../trace.h"
#include "../trace_probe.h"
#include "ktp_tree.h"
#include "ktp_lex.h"
#include "ktp_fold.h"
#include "ktp_btf.h"
#include "ktp_parse.h"
#include "ktp_regs.h"

static struct ktp_node *ktp_parse_expr(struct ktp_compiler *c);
static struct ktp_node *ktp_parse_unary(struct ktp_compiler *c);
static struct ktp_node *ktp_binary_node(struct ktp_compiler *c, int op,
					struct ktp_node *l, struct ktp_node *r,
					const char *at);

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
	user = ktp_reads_user(c, addr, user);
	n->param = (type & KTP_T_SIZE) | (user ? KTP_READ_USER : 0);
	n->l = addr;
	return n;
}

/*
 * Can the program read @field from the record, its context? The verifier
 * lets a tracepoint program read only aligned values of the record's
 * first PERF_MAX_TRACE_SIZE bytes (tp_prog_is_valid_access()). An
 * integer, a __data_loc or __rel_loc word and a char * are loaded from
 * the context; a char array is read through its address.
 */
static bool ktp_field_in_reach(struct ftrace_event_field *field)
{
	int size;

	if (!is_string_field(field))
		size = field->size;
	else if (field->filter_type == FILTER_DYN_STRING ||
		 field->filter_type == FILTER_RDYN_STRING)
		size = sizeof(u32);
	else if (field->filter_type == FILTER_PTR_STRING)
		size = sizeof(char *);
	else
		return true;
	return field->offset >= sizeof(void *) &&
	       field->offset < PERF_MAX_TRACE_SIZE && !(field->offset % size);
}

/* $FIELD of an "e" probe's event: an integer, or a string to compare */
static struct ktp_node *ktp_parse_field(struct ktp_compiler *c,
					struct ftrace_event_field *field,
					const char *at)
{
	struct ktp_node *n;

	if (!is_string_field(field) && !ktp_field_is_int(field))
		return ERR_PTR(ktp_fail(c, at, TP_ERR_KTP_EXPR_NOT_HERE));
	if (!ktp_field_in_reach(field))
		return ERR_PTR(ktp_fail(c, at, TP_ERR_KTP_FIELD_UNREACHABLE));
	if (is_string_field(field))
		n = ktp_node(c, KTP_OP_FIELD, KTP_T_STR, at);
	else
		n = ktp_node(c, KTP_OP_FIELD, field->size |
			     (field->is_signed ? KTP_T_SIGNED : 0), at);
	if (n)
		n->val = (unsigned long)field;
	return n;
}

/* $stack, the stack pointer; $stackN, the word at $stack + 8 * N */
static struct ktp_node *ktp_parse_stack(struct ktp_compiler *c,
					const struct fetch_insn *code,
					const char *at)
{
	struct ktp_node *n, *sum;

	/* a tracepoint probe has its arguments, not the registers */
	if (c->env.flags & KTP_ENV_TPOINT || ktp_sp_offset() < 0)
		return ERR_PTR(ktp_fail(c, at, TP_ERR_KTP_EXPR_NOT_HERE));
	n = ktp_node(c, KTP_OP_STACKP, KTP_T_U64, at);
	if (!n || code->op == FETCH_OP_STACKP)
		return n;
	n = ktp_read_node(c, ktp_fold(c, n), KTP_T_U64, false, at);
	if (!n)
		return NULL;
	sum = ktp_node(c, KTP_OP_ADD, KTP_T_U64, at);
	if (!sum)
		return NULL;
	sum->l = n->l;
	sum->r = ktp_const(c, (u64)code->param * sizeof(unsigned long),
			   KTP_T_S64, at);
	if (!sum->r)
		return NULL;
	n->l = sum;
	return n;
}

/* $argN: of the function at its entry, saved at entry, of a tracepoint */
static struct ktp_node *ktp_parse_arg(struct ktp_compiler *c,
				      unsigned int num, const char *at)
{
	struct ktp_node *n;

	if (!(c->env.flags & (KTP_ENV_FENTRY | KTP_ENV_RETURN |
			      KTP_ENV_TPOINT)))
		return ERR_PTR(ktp_fail(c, at, TP_ERR_KTP_EXPR_NOT_HERE));
	/* a uretprobe keeps nothing of the entry */
	if ((c->env.flags & KTP_ENV_USER) && (c->env.flags & KTP_ENV_RETURN))
		return ERR_PTR(ktp_fail(c, at, TP_ERR_KTP_EXPR_NOT_HERE));
	if ((c->env.flags & KTP_ENV_TPOINT) && num > c->env.nr_args)
		return ERR_PTR(ktp_fail(c, at, TP_ERR_BAD_ARG_NUM));
	/* an "r" probe saves its $argN in ktp_area, which has room for so many */
	if ((c->env.flags & KTP_ENV_RETURN) && num > PAGE_SIZE / 8)
		return ERR_PTR(ktp_fail(c, at, TP_ERR_BAD_ARG_NUM));
	/* at a function's entry: where the architecture finds it */
	if (!(c->env.flags & (KTP_ENV_RETURN | KTP_ENV_TPOINT)) &&
	    ktp_arg_reg_offset(num) < 0 && ktp_arg_stack_offset(num) < 0)
		return ERR_PTR(ktp_fail(c, at, TP_ERR_KTP_EXPR_NOT_HERE));
	n = ktp_node(c, KTP_OP_ARG, KTP_T_U64, at);
	if (!n)
		return NULL;
	n->param = num;
	if (c->env.flags & (KTP_ENV_RETURN | KTP_ENV_TPOINT))
		c->nr_entry_args = max(c->nr_entry_args, num);
	return ktp_btf_arg(c, n);
}

/* $retval, typed by the function's BTF prototype */
static struct ktp_node *ktp_parse_retval(struct ktp_compiler *c,
					 const char *at)
{
	struct ktp_node *n;

	if (!(c->env.flags & KTP_ENV_RETURN) || ktp_retval_offset() < 0)
		return ERR_PTR(ktp_fail(c, at, TP_ERR_KTP_EXPR_NOT_HERE));
	n = ktp_node(c, KTP_OP_REG, KTP_T_U64, at);
	if (!n)
		return NULL;
	n->param = ktp_retval_offset();
	return ktp_btf_retval(c, n);
}

/*
 * The flags trace_probe.c parses the probe's fetch arguments with, for
 * its terms in an expression. A user-space probe's $argN at the entry
 * are the registers of the C calling convention, as for its fetch
 * arguments (ktp_uprobe_arg_flags()).
 */
static unsigned int ktp_tparg_flags(const struct ktp_expr_env *env)
{
	if (env->flags & KTP_ENV_EVENT)
		return TPARG_FL_KERNEL | TPARG_FL_TEVENT;
	if (env->flags & KTP_ENV_TPOINT)
		return TPARG_FL_KERNEL | TPARG_FL_FENTRY | TPARG_FL_FPROBE;
	if (env->flags & KTP_ENV_FENTRY)
		return TPARG_FL_KERNEL | TPARG_FL_FENTRY;
	return (env->flags & KTP_ENV_USER ? TPARG_FL_USER : TPARG_FL_KERNEL) |
	       (env->flags & KTP_ENV_RETURN ? TPARG_FL_RETURN : 0);
}

/*
 * A term of a fetch argument: "$NAME", "%REG", "@ADDR" or
 * "@SYM[+|-OFFS]". trace_probe.c says what it is, and whether the probe
 * has it, as it does for a fetch argument; the node is the value the
 * probe's program reads there.
 */
static noinline_for_stack struct ktp_node *ktp_parse_fetch_var(struct ktp_compiler *c)
{
	struct traceprobe_parse_context ctx = {
		.event = c->env.event,
		.flags = ktp_tparg_flags(&c->env),
	};
	const char *at = c->tok_start;
	struct fetch_insn code[3] = {};
	struct ktp_node *n;
	int ret, err;
	char *term;

	/* a user-space probe reads user memory: not the kernel's symbols */
	if (c->tok == KTP_TOK_SYM && (c->env.flags & KTP_ENV_USER)) {
		ktp_fail(c, at, TP_ERR_KTP_EXPR_NOT_HERE);
		return NULL;
	}
	term = kmemdup_nul(at, c->tok_len, GFP_KERNEL);
	if (!term) {
		c->error = -ENOMEM;
		return NULL;
	}
	ret = traceprobe_parse_fetch_var(term, code, &ctx, &err);
	kfree(term);
	if (ret == -ENOMEM)
		c->error = -ENOMEM;
	else if (ret == -EINVAL)
		ktp_fail(c, at, err);
	else if (ret)
		ktp_fail(c, at, TP_ERR_KTP_EXPR_UNKNOWN);
	if (ret)
		return NULL;

	switch (code[0].op) {
	case FETCH_OP_TP_ARG:
		n = ktp_parse_field(c, code[0].data, at);
		break;
	case FETCH_OP_COMM:
		n = ktp_node(c, KTP_OP_COMM, KTP_T_STR, at);
		break;
	case FETCH_OP_RETVAL:
		n = ktp_parse_retval(c, at);
		break;
	case FETCH_OP_STACKP:
	case FETCH_OP_STACK:
		n = ktp_parse_stack(c, code, at);
		break;
	case FETCH_OP_ARG:
		n = ktp_parse_arg(c, code[0].param + 1, at);
		break;
	case FETCH_OP_REG:
		n = ktp_node(c, KTP_OP_REG, KTP_T_U64, at);
		if (n)
			n->param = code[0].param;
		break;
	case FETCH_OP_IMM:
		/* then FETCH_OP_DEREF: the u64 in memory there */
		n = ktp_const(c, code[0].immediate + code[1].offset,
			      KTP_T_U64, at);
		if (n)
			n = ktp_read_node(c, n, KTP_T_U64, false, at);
		break;
	default:
		n = ERR_PTR(ktp_fail(c, at, TP_ERR_KTP_EXPR_NOT_HERE));
	}
	if (IS_ERR_OR_NULL(n) || ktp_next(c))
		return NULL;
	return n;
}

/*
 * The address of a kernel symbol, @len characters at @name; 0 if none,
 * or where more than one symbol has the name, and *@unique then false:
 * which of them the expression meant, nobody could tell (kprobe events
 * refuse such a symbol as a probe's target).
 */
static unsigned long ktp_lookup(const char *name, int len, bool *unique)
{
	char buf[KSYM_NAME_LEN];
	unsigned long addr;
	int ret;

	if (len >= sizeof(buf))
		return 0;
	memcpy(buf, name, len);
	buf[len] = '\0';
	ret = trace_probe_lookup_unique(buf, &addr);
	*unique = ret != -EADDRNOTAVAIL;
	return ret ? 0 : addr;
}

/*
 * A string literal, kept for the program's lifetime. One longer than the
 * longest string a probe compares (KTP_EXPR_STR_MAX - 1) could never be
 * equal, and would make a glob match cost more per hit: refused.
 */
static struct ktp_node *ktp_parse_strlit(struct ktp_compiler *c)
{
	const char *p = c->tok_start + 1;
	char *lit, *q, **lits;
	struct ktp_node *n;

	lits = krealloc_array(c->lits, c->nr_lits + 1, sizeof(*lits),
			      GFP_KERNEL);
	if (!lits)
		goto nomem;
	/* the old array may be freed: only the new one is ours now */
	c->lits = lits;
	lit = kmalloc(c->tok_len, GFP_KERNEL);
	if (!lit)
		goto nomem;
	c->lits[c->nr_lits++] = lit;
	for (q = lit; *p != '"';)
		*q++ = ktp_lex_char(&p);
	*q = '\0';
	if (q - lit >= KTP_EXPR_STR_MAX) {
		ktp_fail(c, c->tok_start, TP_ERR_KTP_EXPR_STR_LONG);
		return NULL;
	}

	n = ktp_node(c, KTP_OP_STRLIT, KTP_T_STR, c->tok_start);
	if (n)
		n->val = (unsigned long)lit;
	if (n && ktp_next(c))
		return NULL;
	return n;
nomem:
	c->error = -ENOMEM;
	return NULL;
}

/*
 * Why a name is unknown: not a parameter of the prototype; no prototype
 * where a function is probed (inside it, or without BTF); or neither a
 * parameter nor a global where no function is.
 */
static int ktp_fail_name(struct ktp_compiler *c, const char *at)
{
	const char *where = c->env.tpoint ?: c->env.func;
	const char *mod = where ? strchr(where, ':') : NULL;

	if (c->proto)
		return ktp_btf_fail_param(c, at);
	/* its module's BTF types a module's function or tracepoint */
	if (mod && !trace_probe_module_exist(where))
		return ktp_fail_detail(c, at, TP_ERR_NO_BTF_ENTRY,
				       "module %.*s is not loaded",
				       (int)(mod - where), where);
	if (c->env.flags & KTP_ENV_TPOINT || c->env.func)
		return ktp_fail(c, at, TP_ERR_NO_BTF_ENTRY);
	return ktp_fail(c, at, TP_ERR_KTP_EXPR_UNKNOWN);
}

/* Is @addr a function's, in the kernel or a module? */
static bool ktp_sym_is_func(unsigned long addr)
{
	return core_kernel_text(addr) || is_module_text_address(addr);
}

/*
 * Is @addr a variable's: in the data, bss or read-only data of the
 * kernel or of a module? A per-CPU variable's symbol is an offset into
 * each CPU's area, and freed init data is no one's.
 */
static bool ktp_sym_is_var(unsigned long addr)
{
	return is_kernel_core_data(addr) || is_kernel_rodata(addr) ||
	       (is_module_address(addr) && !is_module_text_address(addr));
}

/* sizeof(TYPE), a size_t (a u64); the current token is "sizeof" */
static struct ktp_node *ktp_parse_sizeof(struct ktp_compiler *c)
{
	const char *at = c->tok_start, *end;
	int ret, nptr, type;
	bool user;
	u32 size;
	s32 id;

	if (ktp_next(c) || c->tok != '(')
		goto syntax;
	ret = ktp_btf_parse_type(c, &end, &id, &nptr, &type, &user, false);
	if (ret < 0)
		return NULL;
	if (!ret)
		goto syntax;
	size = ktp_btf_type_size(c, id, nptr, type);
	if (!size) {
		ktp_fail(c, skip_spaces(c->p), TP_ERR_KTP_BTF_NO_VALUE);
		return NULL;
	}
	c->p = end + 1;
	if (ktp_next(c))
		return NULL;
	return ktp_const(c, size, KTP_T_U64, at);
syntax:
	ktp_fail(c, c->tok_start, TP_ERR_KTP_EXPR_SYNTAX);
	return NULL;
}

/*
 * container_of(PTR, TYPE, MEMBER), as the kernel's macro: the TYPE *
 * whose MEMBER (a name, or names joined by '.') is at PTR. The current
 * token is "container_of".
 */
static struct ktp_node *ktp_parse_container_of(struct ktp_compiler *c)
{
	const char *at = c->tok_start, *end;
	struct ktp_node *ptr, *obj, *n;
	int ret, nptr, type;
	bool user;
	s32 id;

	if (ktp_next(c) || c->tok != '(' || ktp_next(c))
		goto syntax;
	ptr = ktp_btf_value(c, ktp_parse_expr(c));
	if (!ptr)
		return NULL;
	if (c->tok != ',' || ktp_is_str_only(ptr))
		goto syntax;
	ret = ktp_btf_parse_type(c, &end, &id, &nptr, &type, &user, true);
	if (ret < 0)
		return NULL;
	if (!ret || *end != ',' || !id || nptr)
		goto syntax;
	/* MEMBER's offset: its address in a TYPE at 0 */
	c->p = end + 1;
	obj = ktp_node(c, KTP_OP_OBJ, 0, at);
	n = ktp_const(c, 0, KTP_T_U64, at);
	if (!obj || !n || ktp_next(c))
		return NULL;
	obj->tflags = KTP_N_BTF;
	obj->btf_id = id;
	obj->l = n;
	for (n = obj; ; ) {
		if (c->tok != KTP_TOK_IDENT)
			goto syntax;
		n = ktp_btf_member(c, n, false, c->tok_start, c->tok_len,
				   c->tok_start);
		if (!n || ktp_next(c))
			return NULL;
		if (c->tok != '.')
			break;
		if (ktp_next(c))
			return NULL;
	}
	if (c->tok != ')' || (n->op != KTP_OP_OBJ && n->op != KTP_OP_READ) ||
	    n->l->op != KTP_OP_CONST)
		goto syntax;
	obj = ktp_node(c, KTP_OP_SUB, KTP_T_U64, at);
	if (!obj)
		return NULL;
	obj->l = ptr;
	obj->r = ktp_const(c, n->l->val, KTP_T_S64, at);
	if (!obj->r || ktp_btf_set_type(c, obj, id, 1,
					ptr->tflags & KTP_N_USER, at) ||
	    ktp_next(c))
		return NULL;
	return ktp_fold(c, obj);
syntax:
	ktp_fail(c, c->tok_start, TP_ERR_KTP_EXPR_SYNTAX);
	return NULL;
}

/*
 * A bare name: a parameter of the probed function (or an argument of the
 * tracepoint) by its BTF prototype, current, a kernel variable, whose
 * value is the u64 there, or a function, whose value is its address, as
 * in C; a variable or a function must be the only symbol of its name.
 * Any other symbol is refused: no value of its is the name's.
 */
static noinline_for_stack struct ktp_node *ktp_parse_name(struct ktp_compiler *c)
{
	const char *at = c->tok_start;
	bool unique = true, is_func;
	unsigned int num;
	unsigned long addr;
	struct ktp_node *n;
	int ret;

	if (c->tok_len == 6 && !strncmp(at, "sizeof", 6))
		return ktp_parse_sizeof(c);
	if (c->tok_len == 12 && !strncmp(at, "container_of", 12))
		return ktp_parse_container_of(c);
	ret = ktp_btf_name(c, at, c->tok_len, &num);
	if (ret == -EINVAL) {
		/* after a struct passed by value: no register of its own */
		ktp_fail(c, at, TP_ERR_KTP_EXPR_NOT_HERE);
		return NULL;
	}
	if (!ret && num)
		n = ktp_parse_arg(c, num, at);
	else if (!ret)
		n = ktp_btf_current(c, at);
	else
		n = NULL;
	if (IS_ERR(n))
		return NULL;
	if (!ret) {
		if (n && ktp_next(c))
			return NULL;
		return n;
	}
	addr = ktp_lookup(at, c->tok_len, &unique);
	if (!addr && unique) {
		n = ktp_btf_enum_value(c, at, c->tok_len);
		if (IS_ERR(n)) {
			ktp_fail_name(c, at);
			return NULL;
		}
		if (n && ktp_next(c))
			return NULL;
		return n;
	}
	if (!addr) {
		ktp_fail(c, at, TP_ERR_NON_UNIQ_SYMBOL);
		return NULL;
	}
	is_func = ktp_sym_is_func(addr);
	if (!is_func && !ktp_sym_is_var(addr)) {
		ktp_fail(c, at, TP_ERR_KTP_EXPR_NOT_VALUE);
		return NULL;
	}
	n = ktp_const(c, addr, KTP_T_U64, at);
	if (n && !is_func)
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
	case KTP_TOK_REG:
	case KTP_TOK_SYM:
		return ktp_parse_fetch_var(c);
	case KTP_TOK_IDENT:
		return ktp_parse_name(c);
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
	n = ktp_btf_value(c, ktp_parse_expr(c));
	if (!n || ktp_expect(c, ')'))
		return NULL;
	if (ktp_is_str_only(n)) {
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
	n = ktp_read_node(c, ktp_fold(c, sum), KTP_T_U64, user, at);
	/* compared with a literal, it is the string at EXPR + OFFS */
	if (n)
		n->tflags |= KTP_N_DEREF;
	return n;
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

	l = ktp_btf_value(c, l);
	if (!l)
		return NULL;
	if (ktp_is_str_only(l)) {
		ktp_fail(c, at, TP_ERR_KTP_EXPR_STRING);
		return NULL;
	}
	n = ktp_node(c, op, type, at);
	if (n)
		n->l = l;
	return n;
}

/*
 * The type of a cast "(TYPE)" whose '(' is the current token, into
 * @cast, with *@end past its ')': TYPE is u8..u64, s8..s64 or char, a
 * pointer with '*', or what ktp_btf_cast() takes. 1 if it is a cast, 0
 * if no type name follows the '(' (it opens an expression), -EINVAL if
 * the type is wrong.
 */
static int ktp_cast_type(struct ktp_compiler *c, const char **end,
			 struct ktp_node *cast)
{
	const char *p = skip_spaces(c->p), *name = p;
	int len, type;

	for (len = 0; ktp_is_ident(p[len]); len++)
		;
	type = ktp_type_name(name, len);
	p = skip_spaces(p + len);
	if (!type || (*p != '*' && *p != ')'))
		return ktp_btf_cast(c, end, cast);
	if (*p == '*') {
		type |= KTP_T_PTR;
		p = skip_spaces(p + 1);
	}
	if (*p != ')')
		return ktp_btf_cast(c, end, cast);
	*end = p + 1;
	/* a char * may be compared with a string literal */
	if (type == (1 | KTP_T_SIGNED | KTP_T_PTR))
		type |= KTP_T_STR;
	cast->type = type;
	return 1;
}

/*
 * The cast "(TYPE)" whose '(' is the current token, as a node without its
 * operand, with *@end past its ')'; NULL if no type follows (the '('
 * opens an expression), ERR_PTR(-EINVAL) if the type is wrong. Not
 * inlined: the parser recurses through its callers, which need not hold
 * its type on their stack.
 */
static noinline_for_stack struct ktp_node *ktp_cast_node(struct ktp_compiler *c,
							 const char **end,
							 const char *at)
{
	struct ktp_node type = {}, *cast;
	int ret;

	ret = ktp_cast_type(c, end, &type);
	if (ret <= 0)
		return ret ? ERR_PTR(ret) : NULL;
	cast = ktp_node(c, KTP_OP_CAST, type.type, at);
	if (!cast)
		return ERR_PTR(-ENOMEM);
	cast->tflags = type.tflags;
	cast->btf_id = type.btf_id;
	cast->nptr = type.nptr;
	return cast;
}

/* (TYPE)OPERAND, its type parsed up to @end: the operand converted */
static struct ktp_node *ktp_parse_cast(struct ktp_compiler *c,
				       struct ktp_node *cast, const char *end,
				       const char *at)
{
	struct ktp_node *n;

	c->p = end;
	if (ktp_next(c))
		return NULL;
	n = ktp_btf_value(c, ktp_parse_unary(c));
	if (!n)
		return NULL;
	if (ktp_is_str_only(n)) {
		ktp_fail(c, at, TP_ERR_KTP_EXPR_STRING);
		return NULL;
	}
	cast->l = n;
	return cast;
}

/* *OPERAND: what a pointer points to */
static struct ktp_node *ktp_parse_star(struct ktp_compiler *c, const char *at)
{
	struct ktp_node *n;

	if (ktp_next(c))
		return NULL;
	n = ktp_btf_value(c, ktp_parse_unary(c));
	if (!n)
		return NULL;
	if (!(n->type & KTP_T_PTR)) {
		ktp_fail(c, at, TP_ERR_KTP_EXPR_DEREF);
		return NULL;
	}
	if (ktp_is_typed_ptr(n))
		return ktp_btf_deref(c, n, at);
	return ktp_read_node(c, n, n->type & ~(KTP_T_PTR | KTP_T_STR),
			     n->tflags & KTP_N_USER, at);
}

/* &OPERAND: the address of a member, an element, a global or @SYM */
static struct ktp_node *ktp_parse_addr(struct ktp_compiler *c, const char *at)
{
	struct ktp_node *n;

	if (ktp_next(c))
		return NULL;
	n = ktp_parse_unary(c);
	if (!n)
		return NULL;
	if (n->tflags & KTP_N_BTF && (n->op == KTP_OP_READ ||
				      n->op == KTP_OP_OBJ))
		return ktp_btf_addr(c, n, at);
	/* of an untyped read, its address as a number */
	if (n->op == KTP_OP_READ && !(n->param & KTP_READ_USER) &&
	    !(n->tflags & KTP_N_BTF))
		return n->l;
	ktp_fail(c, at, TP_ERR_KTP_BTF_NO_ADDR);
	return NULL;
}

/* X[I], X.NAME, X->NAME after a primary X: what C makes of them */
static struct ktp_node *ktp_parse_postfix(struct ktp_compiler *c,
					  struct ktp_node *n)
{
	struct ktp_node *index;
	const char *at;
	bool arrow;

	while (n && (c->tok == '[' || c->tok == '.' ||
		     c->tok == KTP_TOK_ARROW)) {
		at = c->tok_start;
		if (c->tok == '[') {
			if (ktp_next(c))
				return NULL;
			index = ktp_btf_value(c, ktp_parse_expr(c));
			if (!index || ktp_expect(c, ']'))
				return NULL;
			/* X[I] is *(X + I) */
			n = ktp_btf_value(c, n);
			if (!n || !(n->type & KTP_T_PTR) ||
			    index->type & (KTP_T_PTR | KTP_T_STR)) {
				ktp_fail(c, at, TP_ERR_KTP_EXPR_DEREF);
				return NULL;
			}
			n = ktp_binary_node(c, KTP_OP_ADD, n, index, at);
			if (!n)
				return NULL;
			if (ktp_is_typed_ptr(n))
				n = ktp_btf_deref(c, n, at);
			else
				n = ktp_read_node(c, n, n->type &
						  ~(KTP_T_PTR | KTP_T_STR),
						  n->tflags & KTP_N_USER, at);
			continue;
		}
		arrow = c->tok == KTP_TOK_ARROW;
		if (ktp_next(c))
			return NULL;
		if (c->tok != KTP_TOK_IDENT) {
			ktp_fail(c, at, TP_ERR_KTP_EXPR_SYNTAX);
			return NULL;
		}
		n = ktp_btf_member(c, n, arrow, c->tok_start, c->tok_len, at);
		if (n && ktp_next(c))
			return NULL;
	}
	return n;
}

static struct ktp_node *__ktp_parse_unary(struct ktp_compiler *c)
{
	const char *at = c->tok_start;
	const char *end;
	struct ktp_node *n;
	int op;

	if (ktp_at_deref(c))
		return ktp_parse_postfix(c, ktp_parse_deref(c));

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
		return ktp_parse_star(c, at);
	case '&':
		return ktp_parse_addr(c, at);
	case '(':
		/* a cast, if a type name follows */
		n = ktp_cast_node(c, &end, at);
		if (IS_ERR(n))
			return NULL;
		if (n)
			return ktp_parse_cast(c, n, end, at);
		break;
	}
	return ktp_parse_postfix(c, ktp_parse_primary(c));
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

/*
 * Is it a compare of strings? Of a string and a literal, or with '~'. A
 * char * or char array is a pointer otherwise; $comm and a string field
 * are strings only.
 */
static bool ktp_is_string_op(int op, const struct ktp_node *l,
			     const struct ktp_node *r)
{
	return op == KTP_OP_STRCMP || l->op == KTP_OP_STRLIT ||
	       r->op == KTP_OP_STRLIT || ktp_is_str_only(l) ||
	       ktp_is_str_only(r);
}

/*
 * A string compared with a literal: the only use of a string. The
 * string is a char *, a char array (that may fill it with no NUL), a
 * string field or $comm; or the string at EXPR + OFFS of a read
 * +OFFS(EXPR) or +uOFFS(EXPR), as the fetch argument +OFFS(EXPR):string
 * records it. In user memory, for __user pointers and +uOFFS.
 */
static struct ktp_node *ktp_string_node(struct ktp_compiler *c, int op,
					struct ktp_node *l, struct ktp_node *r,
					const char *at)
{
	struct ftrace_event_field *field;
	u32 how = 0, len = 0;
	struct ktp_node *n;

	if (op == KTP_OP_EQ || op == KTP_OP_NE) {
		if (l->op == KTP_OP_STRLIT && r->op != KTP_OP_STRLIT)
			swap(l, r);
	} else if (op != KTP_OP_STRCMP) {
		goto bad;
	}
	if (l->op == KTP_OP_READ && l->tflags & KTP_N_DEREF &&
	    r->op == KTP_OP_STRLIT) {
		how = l->param & KTP_READ_USER ? KTP_STR_USER : 0;
		l = l->l;
	} else if (!(l->type & KTP_T_STR) || l->op == KTP_OP_STRLIT ||
		   r->op != KTP_OP_STRLIT) {
		goto bad;
	} else if (ktp_reads_user(c, l, l->tflags & KTP_N_USER)) {
		how = KTP_STR_USER;
	}
	/* a pointer read to read the string through (ktp_v_read_may_fault()) */
	if (l->op == KTP_OP_READ)
		l->tflags |= KTP_N_CHAIN;

	/*
	 * What bounds the cost of one hit: a compare copies at most
	 * KTP_EXPR_STR_MAX - 1 bytes, and glob_match() backtracks only to
	 * the last '*', so that a glob takes at most as many steps as its
	 * pattern has bytes for each byte of the string.
	 */
	if (++c->nr_strcmps > KTP_EXPR_MAX_STRCMPS) {
		ktp_fail(c, at, TP_ERR_KTP_EXPR_TOO_MANY_STRS);
		return NULL;
	}
	if (op == KTP_OP_STRCMP) {
		c->glob_bytes += strlen((char *)(unsigned long)r->val);
		if (c->glob_bytes > KTP_EXPR_GLOB_MAX) {
			ktp_fail(c, c->src + r->pos, TP_ERR_KTP_EXPR_GLOB_LONG);
			return NULL;
		}
	}

	n = ktp_node(c, KTP_OP_STRCMP, KTP_T_S64, at);
	if (!n)
		return NULL;
	n->param = how | (op == KTP_OP_EQ ? KTP_STR_EQ : op == KTP_OP_NE ?
			  KTP_STR_NE : KTP_STR_GLOB);
	if (l->op == KTP_OP_COMM)
		n->param |= KTP_STR_COMM;
	/* a char array ends at its NUL or at its end */
	field = l->op == KTP_OP_FIELD ? (void *)(unsigned long)l->val : NULL;
	if (field && field->filter_type == FILTER_STATIC_STRING)
		len = field->size;
	else if (l->op == KTP_OP_CAST && l->param)
		len = l->param;
	if (len)
		n->param |= min(len, KTP_EXPR_STR_MAX - 1) << KTP_STR_LEN_SHIFT;
	n->l = l;
	n->val = r->val;
	return n;
bad:
	ktp_fail(c, at, TP_ERR_KTP_EXPR_STRING);
	return NULL;
}

/*
 * A TYPE * plus or minus an integer, as C has it: the integer counts
 * TYPEs, and the result is a TYPE * still (typed by BTF if TYPE is).
 * The difference of two pointers counts the TYPEs of the first between
 * them.
 */
static struct ktp_node *ktp_pointer_node(struct ktp_compiler *c, int op,
					 struct ktp_node *l, struct ktp_node *r,
					 const char *at)
{
	bool diff = l->type & r->type & KTP_T_PTR;
	struct ktp_node *size = NULL, *n;
	u32 bytes;

	if (!(l->type & KTP_T_PTR))
		swap(l, r);
	bytes = ktp_is_typed_ptr(l) ? ktp_btf_pointee_size(c, l, at) :
		l->type & KTP_T_SIZE;
	if (!bytes)
		return NULL;
	if (bytes > 1) {
		size = ktp_const(c, bytes, KTP_T_S64, at);
		if (!size)
			return NULL;
	}
	if (size && !diff) {
		r = ktp_binary_node(c, KTP_OP_MUL, r, size, at);
		if (!r)
			return NULL;
	}
	n = ktp_node(c, op, diff ? KTP_T_S64 : l->type, at);
	if (!n)
		return NULL;
	n->l = l;
	n->r = r;
	if (!diff) {
		n->tflags = l->tflags & (KTP_N_BTF | KTP_N_USER);
		n->btf_id = l->btf_id;
		n->nptr = l->nptr;
	}
	n = ktp_fold(c, n);
	if (n && size && diff)
		n = ktp_binary_node(c, KTP_OP_DIV, n, size, at);
	return n;
}

static struct ktp_node *ktp_binary_node(struct ktp_compiler *c, int op,
					struct ktp_node *l, struct ktp_node *r,
					const char *at)
{
	struct ktp_node *n;
	int type;

	if (ktp_is_string_op(op, l, r))
		return ktp_string_node(c, op, l, r, at);
	/* pointer arithmetic, as in C; a pointer used otherwise is a u64 */
	if ((op == KTP_OP_ADD && (l->type ^ r->type) & KTP_T_PTR) ||
	    (op == KTP_OP_SUB && l->type & KTP_T_PTR))
		return ktp_pointer_node(c, op, l, r, at);

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

	/* a struct in parentheses is one still: (*p).member */
	l = ktp_parse_unary(c);
	while (l) {
		op = ktp_binary_op(c->tok, &prec);
		if (op < 0 || prec < min_prec)
			break;
		l = ktp_btf_value(c, l);
		if (!l)
			return NULL;
		at = c->tok_start;
		if (ktp_next(c))
			return NULL;
		if (++c->depth > KTP_EXPR_MAX_DEPTH) {
			ktp_fail(c, at, TP_ERR_KTP_EXPR_TOO_DEEP);
			return NULL;
		}
		/* left associative: the right side binds tighter */
		r = ktp_btf_value(c, ktp_parse_binary(c, prec + 1));
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
	cond = ktp_btf_value(c, cond);
	if (!cond)
		return NULL;
	at = c->tok_start;
	if (ktp_is_str_only(cond)) {
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
	n->l = ktp_btf_value(c, ktp_parse_expr(c));
	if (!n->l || ktp_expect(c, ':'))
		return NULL;
	/* right associative: a ? b : c ? d : e */
	n->r = ktp_btf_value(c, ktp_parse_expr(c));
	c->depth--;
	if (!n->r)
		return NULL;
	if (ktp_is_str_only(n->l) || ktp_is_str_only(n->r)) {
		ktp_fail(c, at, TP_ERR_KTP_EXPR_STRING);
		return NULL;
	}
	n->type = ktp_common_type(n->l->type, n->r->type);
	return ktp_fold(c, n);
}

/* The highest child of @n, or NULL for a leaf */
static struct ktp_node *ktp_highest_child(const struct ktp_node *n)
{
	struct ktp_node *hi = n->l;

	if (n->r && (!hi || n->r->height > hi->height))
		hi = n->r;
	if (n->c && (!hi || n->c->height > hi->height))
		hi = n->c;
	return hi;
}

/*
 * Code generation and the reference evaluator recurse once a level of
 * the tree, and a flat chain such as a+b+c+... is as high as it is long:
 * the height is bounded, not only the nesting. Most nodes are made after
 * their children, so the heights settle in a pass or two; each pass only
 * raises them, up to one over the limit.
 */
static bool ktp_too_high(struct ktp_compiler *c, struct ktp_node *root)
{
	struct ktp_node *n, *hi;
	bool changed;
	int i, h;

	for (i = 0; i < c->nr_nodes; i++)
		c->nodes[i].height = 1;
	do {
		changed = false;
		for (i = 0; i < c->nr_nodes; i++) {
			n = &c->nodes[i];
			hi = ktp_highest_child(n);
			h = hi ? min(hi->height + 1, KTP_EXPR_MAX_HEIGHT + 1) : 1;
			if (h > n->height) {
				n->height = h;
				changed = true;
			}
		}
	} while (changed);
	if (root->height <= KTP_EXPR_MAX_HEIGHT)
		return false;

	/* the caret goes under the lowest operator over the limit */
	for (n = root; (hi = ktp_highest_child(n)) &&
	     hi->height > KTP_EXPR_MAX_HEIGHT; n = hi)
		;
	ktp_fail(c, c->src + n->pos, TP_ERR_KTP_EXPR_TOO_DEEP);
	return true;
}

/**
 * ktp_parse() - parse an expression into a tree
 * @c: the compiler; it keeps the tree until the next expression
 * @src: the expression, C syntax
 * @err: where and why @src was refused
 *
 * Constants are folded as the tree is built, unless @c->fold is false.
 *
 * Return: the root of the tree, or NULL with @err set (and @c->error
 * if memory ran out).
 */
struct ktp_node *ktp_parse(struct ktp_compiler *c, const char *src,
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
	n = ktp_btf_value(c, ktp_parse_expr(c));
	if (!n)
		return NULL;
	if (c->tok != KTP_TOK_END) {
		ktp_fail(c, c->tok_start, TP_ERR_KTP_EXPR_SYNTAX);
		return NULL;
	}
	if (ktp_too_high(c, n))
		return NULL;
	return n;
}
