// SPDX-License-Identifier: GPL-2.0
/*
 * KTP's expression compiler: what every pass shares, the nodes of an
 * expression's tree and the error that refuses the expression, with the
 * place of its caret.
 */
#include <linux/kernel.h>
#include <linux/string.h>

#include "../trace_probe.h"
#include "ktp_tree.h"

/**
 * ktp_fail() - refuse the expression
 * @c: the compiler
 * @at: the offending character, where error_log's caret goes
 * @code: the TP_ERR_* code of the message
 *
 * Only the first error of an expression is kept, and none after memory
 * ran out.
 *
 * Return: -EINVAL.
 */
int ktp_fail(struct ktp_compiler *c, const char *at, int code)
{
	/* once memory ran out, -ENOMEM alone says what went wrong */
	if (c->err && c->err->code == 0 && c->error != -ENOMEM) {
		c->err->pos = at - c->src;
		c->err->code = code;
	}
	return -EINVAL;
}

/**
 * ktp_fail_detail() - refuse an expression, saying what the message cannot
 * @c: the compiler
 * @at: the offending character, where error_log's caret goes
 * @code: the TP_ERR_* code of the message
 * @fmt: the detail error_log shows after the message, as for printf()
 *
 * As ktp_fail(); the detail is cut at KTP_EXPR_DETAIL_MAX bytes.
 *
 * Return: -EINVAL.
 */
int ktp_fail_detail(struct ktp_compiler *c, const char *at, int code,
		    const char *fmt, ...)
{
	va_list args;

	if (c->err && c->err->code == 0 && c->error != -ENOMEM) {
		ktp_fail(c, at, code);
		va_start(args, fmt);
		vscnprintf(c->err->detail, sizeof(c->err->detail), fmt, args);
		va_end(args);
	}
	return -EINVAL;
}

/**
 * ktp_node() - a new node of the expression's tree
 * @c: the compiler
 * @op: its KTP_OP_*
 * @type: its KTP_T_* type
 * @at: where it starts in the expression
 *
 * Return: the node, zeroed but for these, or NULL with the error "too
 * big" at @at.
 */
struct ktp_node *ktp_node(struct ktp_compiler *c, int op, int type,
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

/**
 * ktp_const() - a new constant of the expression's tree
 * @c: the compiler
 * @val: its value
 * @type: its KTP_T_* type
 * @at: where it starts in the expression
 *
 * Return: the node, or NULL with the error "too big" at @at.
 */
struct ktp_node *ktp_const(struct ktp_compiler *c, u64 val, int type,
			   const char *at)
{
	struct ktp_node *n = ktp_node(c, KTP_OP_CONST, type, at);

	if (n)
		n->val = val;
	return n;
}

/* Does @n compute from current, the kernel's task? */
static bool ktp_from_current(const struct ktp_node *n)
{
	if (!n)
		return false;
	if (n->op == KTP_OP_CURRENT)
		return true;
	return ktp_from_current(n->l) || ktp_from_current(n->r);
}

/**
 * ktp_reads_user() - whether a read at an address reads user memory
 * @c: the compiler
 * @addr: the address
 * @user: the address is a __user pointer, or the read says "u"
 *
 * In a user-space probe, every read is of user memory but what is read
 * from current.
 *
 * Return: true to read user memory.
 */
bool ktp_reads_user(struct ktp_compiler *c, const struct ktp_node *addr,
		    bool user)
{
	return user ||
	       ((c->env.flags & KTP_ENV_USER) && !ktp_from_current(addr));
}
