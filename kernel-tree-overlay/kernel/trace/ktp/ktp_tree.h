/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTP's expression compiler, what every pass shares: types, the nodes of
 * an expression's tree, the compiler's state, and the error that refuses
 * an expression (ktp_tree.c). Each pass has a header of its own, which
 * includes only the headers of the passes below it: the lexer
 * (ktp_lex.h) and constant folding (ktp_fold.h), typing by BTF
 * (ktp_btf.h), the parser (ktp_parse.h), code generation (ktp_gen.h).
 */
#ifndef _KERNEL_TRACE_KTP_TREE_H
#define _KERNEL_TRACE_KTP_TREE_H

#include <linux/bits.h>
#include <linux/ctype.h>

#include "ktp_env.h"

struct btf;
struct btf_param;
struct btf_type;

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
	KTP_OP_CURRENT,		/* the running task */
	KTP_OP_OBJ,		/* a struct, union or array at l: no value */
};

/*
 * The compiler takes ranges of these: the unary operators NEG..LNOT, the
 * binary ones ADD..GE with the comparisons EQ..GE last, then LAND, LOR.
 */
static_assert(KTP_OP_LNOT == KTP_OP_NEG + 2 && KTP_OP_ADD == KTP_OP_LNOT + 1);
static_assert(KTP_OP_EQ == KTP_OP_XOR + 1 && KTP_OP_GE == KTP_OP_EQ + 5);
static_assert(KTP_OP_LAND == KTP_OP_GE + 1 && KTP_OP_LOR == KTP_OP_LAND + 1);

#define KTP_READ_USER	0x100

/* What else a node is: struct ktp_node.tflags */
#define KTP_N_BTF	0x1	/* typed by BTF, see struct ktp_node */
#define KTP_N_USER	0x2	/* a pointer to user memory (__user) */
#define KTP_N_DEREF	0x4	/* a read +OFFS(EXPR), see ktp_string_node() */
#define KTP_N_CHAIN	0x8	/* a read of a pointer another read reads by */

/* How KTP_OP_STRCMP compares */
#define KTP_STR_EQ	0
#define KTP_STR_NE	1
#define KTP_STR_GLOB	2
#define KTP_STR_OPS	0x3
#define KTP_STR_COMM	0x4	/* the string is current->comm */
#define KTP_STR_USER	0x8	/* the string is in user memory */
/* then the size of a char array field, 0 for a NUL-terminated string */
#define KTP_STR_LEN_SHIFT	8

/**
 * struct ktp_node - a term or an operator of an expression's tree
 * @op: the KTP_OP_* it is
 * @type: its type, KTP_T_* bits
 * @pos: where it starts in the expression, for the caret of an error
 * @height: levels of the tree under it, see ktp_too_high()
 * @param: what the operator needs besides its operands (see enum ktp_op);
 *	   of a cast that an array decayed to, the array's size in bytes
 * @val: a constant, a literal or a field
 * @tflags: KTP_N_* flags
 * @nptr: with KTP_N_BTF, how many pointers to @btf_id its type is
 * @btf_id: with KTP_N_BTF, its BTF type in the compiler's BTF (after
 *	    @nptr pointers; 0 is void); of a KTP_OP_OBJ, the object's
 * @l: the left (or only) operand
 * @r: the right operand
 * @c: the condition of c ? l : r
 */
struct ktp_node {
	u8		op;
	u8		type;
	u16		pos;
	u16		height;		/* see ktp_too_high() */
	u32		param;
	u64		val;
	u8		tflags;
	u8		nptr;
	s32		btf_id;
	struct ktp_node	*l, *r, *c;
};

/*
 * The state of one probe's compilation: the lexer's and the parser's
 * of the expression at hand, and the code of all of them so far.
 */
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
	int			insns_cap;	/* room in insns[], see ktp_emit() */
	int			max_slot;
	bool			has_cond;
	int			*false_jumps;	/* to "return 0" */
	int			nr_false_jumps;
	unsigned int		nr_entry_args;
	unsigned int		nr_vals;	/* values written */
	int			out_jump;	/* "t": to "return 0", no hit */
	char			**lits;
	unsigned int		nr_lits;
	unsigned int		nr_strcmps;	/* see ktp_string_node() */
	unsigned int		glob_bytes;
	int			error;		/* first code error */
	/* the program, for the verifier: see ktp_prog.c */
	u32			id;		/* see ktp_prog_by_id() */
	bool			jit;		/* reads inline, kfuncs callable */
	bool			has_faults;	/* counts them on its stack */
	bool			area_loaded;	/* at KTP_V_AREA */
	bool			entered;	/* "t": ktp_tp_enter() called */
	bool			copy_args;	/* "t": for fetch instructions */
	struct btf		*tp_btf;	/* "t": where btf_trace_NAME is */
	s32			tp_btf_id;	/* "t": btf_trace_NAME, once found */
	u32			tp_scalars;	/* "t": bit N-1: $argN is no pointer */
	struct bpf_map		*false_map;	/* "t": of its false hits */
	struct bpf_map		*self_map;	/* see ktp_v_self_map() */
	/* the C types of the names: see ktp_btf.c */
	struct btf		*btf;		/* what typed nodes are typed in */
	struct btf		*func_btf;	/* a reference, for a function's */
	const struct btf_type	*proto;		/* the probed function's */
	const struct btf_param	*params;	/* its parameters */
	int			nr_params;
	bool			scope_found;	/* the above are set */
};

static inline bool ktp_is_signed(int type)
{
	return type & KTP_T_SIGNED;
}

/* The type an operand has in arithmetic: narrower ones become s64 */
static inline int ktp_promote(int type)
{
	if (type & (KTP_T_PTR | KTP_T_STR))
		return KTP_T_U64;
	if ((type & KTP_T_SIZE) < 8)
		return KTP_T_S64;
	return type;
}

static inline int ktp_common_type(int a, int b)
{
	a = ktp_promote(a);
	b = ktp_promote(b);
	return ktp_is_signed(a) && ktp_is_signed(b) ? KTP_T_S64 : KTP_T_U64;
}

/* Truncate and extend @v as a value of @type. */
static inline u64 ktp_convert(u64 v, int type)
{
	int bits = (type & KTP_T_SIZE) * 8;

	if (type & (KTP_T_PTR | KTP_T_STR) || bits >= 64)
		return v;
	if (ktp_is_signed(type))
		return (u64)((s64)(v << (64 - bits)) >> (64 - bits));
	return v & (BIT_ULL(bits) - 1);
}

static inline bool ktp_is_ident(char ch)
{
	return isalnum(ch) || ch == '_';
}

static inline bool ktp_is_typed_ptr(const struct ktp_node *n)
{
	return (n->tflags & KTP_N_BTF) && (n->type & KTP_T_PTR);
}

/* A string that is no pointer: only a literal compares with it */
static inline bool ktp_is_str_only(const struct ktp_node *n)
{
	return (n->type & KTP_T_STR) && !(n->type & KTP_T_PTR);
}

/* ktp_tree.c */
int ktp_fail(struct ktp_compiler *c, const char *at, int code);
__printf(4, 5)
int ktp_fail_detail(struct ktp_compiler *c, const char *at, int code,
		    const char *fmt, ...);
struct ktp_node *ktp_node(struct ktp_compiler *c, int op, int type,
			  const char *at);
struct ktp_node *ktp_const(struct ktp_compiler *c, u64 val, int type,
			   const char *at);
bool ktp_reads_user(struct ktp_compiler *c, const struct ktp_node *addr,
		    bool user);

#endif /* _KERNEL_TRACE_KTP_TREE_H */
