// SPDX-License-Identifier: GPL-2.0
/*
 * KTP's expression compiler: constant folding. The parser folds each
 * node as it makes it, so that what is known when the probe is defined
 * costs nothing when it is hit. The arithmetic is the programs', hazards
 * included: division and modulo by zero give 0, signed by -1 what it
 * would without the trap; a shift count outside 0..63 gives 0 (all sign
 * bits for a signed >>).
 */
#include <linux/math64.h>

#include "../trace_probe.h"
#include "ktp_tree.h"
#include "ktp_fold.h"

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

/**
 * ktp_apply_op() - the value of an operator on the values of its operands
 * @n: a cast, or a unary, binary or logical operator
 * @l: the value of its left (or only) operand
 * @r: the value of its right operand, if it has one
 *
 * What the program computes, hazards included: constant folding and the
 * KUnit tests' reference evaluator take it. Both operands of && and ||
 * are values already: the caller decides whether to evaluate @r.
 *
 * Return: the value.
 */
u64 ktp_apply_op(const struct ktp_node *n, u64 l, u64 r)
{
	switch (n->op) {
	case KTP_OP_CAST: return ktp_convert(l, n->type);
	case KTP_OP_NEG: return -l;
	case KTP_OP_NOT: return ~l;
	case KTP_OP_LNOT: return !l;
	case KTP_OP_LAND: return l && r;
	case KTP_OP_LOR: return l || r;
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

static bool ktp_is_const(const struct ktp_node *n, u64 val)
{
	return n && n->op == KTP_OP_CONST && n->val == val;
}

/*
 * Whether @x can stand for a node of @type that only passes its value on:
 * not if it is a pointer, which would bring C's pointer arithmetic along.
 */
static bool ktp_same_value(const struct ktp_node *x, int type)
{
	return !(x->type & KTP_T_PTR) && ktp_promote(x->type) == type;
}

/* @n's value as @type: a cast that emits nothing when only the type differs */
static struct ktp_node *ktp_retype(struct ktp_compiler *c, struct ktp_node *n,
				   int type)
{
	struct ktp_node *cast;

	if (ktp_same_value(n, type))
		return n;
	cast = ktp_node(c, KTP_OP_CAST, type, c->src + n->pos);
	if (cast)
		cast->l = n;
	return cast;
}

/**
 * ktp_fold() - fold a node of the tree whose operands are folded
 * @c: the compiler; nothing is folded if @c->fold is false
 * @n: the node
 *
 * An operator on constants becomes a constant; 0 && x and 1 || x too;
 * c ? l : r with c constant becomes l or r; an operation that does
 * nothing (x + 0, x * 1, a cast to the type x has) becomes x.
 *
 * Return: the folded node (@n if nothing folds), or NULL if memory for
 * a new one ran out.
 */
struct ktp_node *ktp_fold(struct ktp_compiler *c, struct ktp_node *n)
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
		if (ktp_is_const(l, 0) && ktp_same_value(r, n->type))
			return r;
		fallthrough;
	case KTP_OP_SUB:
	case KTP_OP_SHL:
	case KTP_OP_SHR:
		if (ktp_is_const(r, 0) && ktp_same_value(l, n->type))
			return l;
		break;
	case KTP_OP_MUL:
		if (ktp_is_const(l, 1) && ktp_same_value(r, n->type))
			return r;
		fallthrough;
	case KTP_OP_DIV:
		if (ktp_is_const(r, 1) && ktp_same_value(l, n->type))
			return l;
		break;
	case KTP_OP_CAST:
		/* a cast to 64 bits of a value already 64-bit wide */
		if (!(n->type & (KTP_T_PTR | KTP_T_STR)) &&
		    (n->type & KTP_T_SIZE) == 8 && ktp_same_value(l, n->type))
			return l;
		break;
	}
	return n;
fold:
	l = ktp_const(c, ktp_apply_op(n, l->val, r ? r->val : 0), n->type,
		      c->src + n->pos);
	/* a typed pointer stays one: (struct file *)0x1000 */
	if (l) {
		l->tflags = n->tflags;
		l->btf_id = n->btf_id;
		l->nptr = n->nptr;
	}
	return l;
}
