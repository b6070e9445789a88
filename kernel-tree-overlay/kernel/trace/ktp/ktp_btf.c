// SPDX-License-Identifier: GPL-2.0
/*
 * KTP's expression compiler: C types from BTF. The parameters of the
 * probed function, or the arguments of the tracepoint, by name and with
 * the types of its BTF prototype; members, elements, pointers and casts
 * typed as C types them, so that a member is one read at its offset;
 * current, the running task. Members and prototypes are found with
 * trace_btf.c, as probe events' BTF arguments find them.
 *
 * A typed node (KTP_N_BTF) has a BTF type and the KTP type the code
 * needs (size, sign, pointer); a struct, union or array is no value but
 * an object at an address (KTP_OP_OBJ), which a member, an index or '&'
 * takes apart. What has no BTF type stays as ktp_parse.c types it.
 */
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/kallsyms.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../trace_btf.h"
#include "../trace_probe.h"
#include "ktp_tree.h"
#include "ktp_fold.h"
#include "ktp_btf.h"

/**
 * ktp_btf_tpoint() - find the BTF prototype of a "t" probe's tracepoint
 * @c: the compiler of a "t" probe
 *
 * btf_trace_NAME, in vmlinux's BTF or in its module's, is a pointer to
 * the prototype of the functions the tracepoint calls, whose first
 * parameter is their data, not an argument. The verifier types the
 * arguments of the probe's program by it. Found once, with the
 * arguments that are integers or enums (@c->tp_scalars).
 *
 * Return: 0, -ENOENT where there is none, or -ENOMEM.
 */
int ktp_btf_tpoint(struct ktp_compiler *c)
{
	bool tramp = c->env.flags & KTP_ENV_TRAMP;
	const struct btf_param *params;
	const struct btf_type *t;
	unsigned int i, n, first;
	char *name;
	s32 id;

	if (c->tp_btf_id)
		return c->tp_btf_id < 0 ? c->tp_btf_id : 0;
	/* a fentry program's is its function's, in vmlinux */
	if (tramp)
		name = kstrdup(c->env.func, GFP_KERNEL);
	else
		name = kasprintf(GFP_KERNEL, "btf_trace_%s", c->env.tpoint);
	if (!name)
		return -ENOMEM;
	id = btf_find_type_by_name(name, tramp ? BTF_KIND_FUNC :
					 BTF_KIND_TYPEDEF, &c->tp_btf);
	kfree(name);
	/* every tracepoint has one, where there is BTF */
	if (id <= 0 || (tramp && btf_is_module(c->tp_btf))) {
		c->tp_btf_id = -ENOENT;
		return -ENOENT;
	}
	c->tp_btf_id = id;
	t = btf_type_by_id(c->tp_btf, btf_type_by_id(c->tp_btf, id)->type);
	if (!tramp) {
		if (!t || !btf_type_is_ptr(t))
			return 0;
		t = btf_type_by_id(c->tp_btf, t->type);
	}
	if (!t || !btf_type_is_func_proto(t))
		return 0;
	params = btf_params(t);
	/* a tracepoint's first parameter is its data */
	first = tramp ? 0 : 1;
	n = min(btf_type_vlen(t), 32U + first);
	for (i = first; i < n; i++) {
		t = btf_type_skip_modifiers(c->tp_btf, params[i].type, NULL);
		if (t && (btf_type_is_int(t) || btf_is_any_enum(t)))
			c->tp_scalars |= BIT(i - first);
	}
	return 0;
}

/*
 * The prototype of a probed function, [MOD:]SYM, and in *@btf the BTF it
 * is in, with a reference. A "p" or "r" probe on a bare SYM is in
 * vmlinux: a function vmlinux's BTF does not have has no prototype, and
 * the modules' BTF is not walked for it.
 */
static const struct btf_type *ktp_btf_func_proto(const char *func,
						 struct btf **btf)
{
	const char *sym = strchr(func, ':');
	const struct btf_type *proto;
	const char *name;

	if (!sym)
		return btf_find_vmlinux_by_name_kind(func, BTF_KIND_FUNC) > 0 ?
		       btf_find_func_proto(func, btf) : NULL;

	/*
	 * The first BTF that has SYM, in vmlinux or a module: MOD's, or no
	 * prototype (where vmlinux or another module has a function of that
	 * name too) rather than a wrong one.
	 */
	proto = btf_find_func_proto(sym + 1, btf);
	if (!proto)
		return NULL;
	name = btf_is_module(*btf) ? btf_get_name(*btf) : "";
	if (strlen(name) != sym - func || strncmp(name, func, sym - func)) {
		btf_put(*btf);
		return NULL;
	}
	return proto;
}

/**
 * ktp_btf_scope() - find the BTF a compiler's names are typed by
 * @c: the compiler
 *
 * Finds the BTF and the prototype of the probed function or tracepoint,
 * if there is one, the first time a name needs them.
 *
 * Return: false if the kernel has no BTF.
 */
bool ktp_btf_scope(struct ktp_compiler *c)
{
	const struct btf_type *proto = NULL;
	struct btf *btf = NULL;
	s32 nr = 0;

	if (c->scope_found)
		return c->btf;
	c->scope_found = true;
	if ((c->env.flags & (KTP_ENV_TPOINT | KTP_ENV_TRAMP)) ==
	    KTP_ENV_TPOINT) {
		/*
		 * The prototype of btf_trace_NAME has no parameter names:
		 * the tracepoint's stub function, of the same prototype,
		 * has them (as probe events' tracepoint probes find them).
		 */
		char *stub = kasprintf(GFP_KERNEL, "__probestub_%s",
				       c->env.tpoint);

		if (!stub) {
			c->error = -ENOMEM;
			return false;
		}
		proto = btf_find_func_proto(stub, &btf);
		kfree(stub);
	} else if (c->env.func &&
		   c->env.flags & (KTP_ENV_FENTRY | KTP_ENV_RETURN |
				   KTP_ENV_TRAMP)) {
		proto = ktp_btf_func_proto(c->env.func, &btf);
	}
	if (proto)
		c->func_btf = btf;
	c->proto = proto;
	c->btf = proto ? btf : bpf_get_btf_vmlinux();
	if (IS_ERR(c->btf))
		c->btf = NULL;
	if (proto) {
		c->params = btf_get_func_param(proto, &nr);
		if (IS_ERR(c->params))
			nr = 0;
		/* a tracepoint's first parameter is its data */
		if (nr && (c->env.flags & (KTP_ENV_TPOINT | KTP_ENV_TRAMP)) ==
		    KTP_ENV_TPOINT) {
			c->params++;
			nr--;
		}
		c->nr_params = nr;
	}
	return c->btf;
}

/**
 * ktp_btf_release() - let go of the BTF of a compiler's names
 * @c: the compiler
 */
void ktp_btf_release(struct ktp_compiler *c)
{
	btf_put(c->func_btf);
	c->func_btf = NULL;
}

/* BTF type @id with its typedefs and qualifiers skipped; NULL for void */
static const struct btf_type *ktp_btf_skip(struct ktp_compiler *c, s32 id,
					   u32 *res_id)
{
	const struct btf_type *t;

	if (!id)
		return NULL;
	t = btf_type_skip_modifiers(c->btf, id, res_id);
	return t && !btf_type_is_void(t) ? t : NULL;
}

/* Is BTF type @id a char? A char * is a string; a u8 * (a typedef) not. */
static bool ktp_btf_is_char(struct ktp_compiler *c, s32 id)
{
	const struct btf_type *t = id ? btf_type_by_id(c->btf, id) : NULL;
	const char *name;

	while (t && (BTF_INFO_KIND(t->info) == BTF_KIND_CONST ||
		     BTF_INFO_KIND(t->info) == BTF_KIND_VOLATILE ||
		     BTF_INFO_KIND(t->info) == BTF_KIND_RESTRICT ||
		     BTF_INFO_KIND(t->info) == BTF_KIND_TYPE_TAG))
		t = btf_type_by_id(c->btf, t->type);
	if (!t || !btf_type_is_int(t) || t->size != 1)
		return false;
	name = btf_name_by_offset(c->btf, t->name_off);
	return name && strstr(name, "char");
}

/* An integer or enum of @t: its KTP type, or 0 if it has no such size */
static int ktp_btf_int_type(const struct btf_type *t)
{
	int size = t->size;

	if (!is_power_of_2(size) || size > 8)
		return 0;
	/* an enum is an int, as probe events record it */
	if (btf_is_any_enum(t))
		return size | KTP_T_SIGNED;
	if (btf_type_is_signed_int(t))
		return size | KTP_T_SIGNED;
	return btf_type_is_int(t) ? size : 0;
}

/**
 * ktp_btf_set_type() - type a node by BTF
 * @c: the compiler
 * @n: the node
 * @id: the BTF type, in @c->btf
 * @nptr: under this many pointers
 * @user: in user memory
 * @at: where the node is, for the caret of an error
 *
 * @n becomes a value of @id under @nptr pointers; its KTP type follows.
 *
 * Return: 0, or -EINVAL with the error at @at if that type has no value
 * (a struct, a function, void).
 */
int ktp_btf_set_type(struct ktp_compiler *c, struct ktp_node *n, s32 id,
		     int nptr, bool user, const char *at)
{
	const struct btf_type *t = nptr ? NULL : ktp_btf_skip(c, id, NULL);

	if (!nptr && t && btf_type_is_ptr(t)) {
		id = t->type;
		nptr = 1;
	}
	n->tflags |= KTP_N_BTF | (user ? KTP_N_USER : 0);
	n->btf_id = id;
	n->nptr = nptr;
	if (nptr) {
		n->type = KTP_T_PTR | 8;
		if (nptr == 1 && ktp_btf_is_char(c, id))
			n->type |= KTP_T_STR;
		return 0;
	}
	n->type = t ? ktp_btf_int_type(t) : 0;
	if (!n->type)
		return ktp_fail(c, at, TP_ERR_KTP_BTF_NO_VALUE);
	return 0;
}

/*
 * The object of BTF type @id (under @nptr pointers) at the address
 * @addr: a read of its value, or a KTP_OP_OBJ for a struct, union or
 * array.
 */
static struct ktp_node *ktp_btf_object(struct ktp_compiler *c,
				       struct ktp_node *addr, s32 id, int nptr,
				       bool user, const char *at)
{
	const struct btf_type *t = nptr ? NULL : ktp_btf_skip(c, id, NULL);
	struct ktp_node *base = addr;
	struct ktp_node *n;

	/* a pointer read only to read through (see ktp_v_read_may_fault()) */
	if (base->op == KTP_OP_ADD)
		base = base->l;
	if (base->op == KTP_OP_READ)
		base->tflags |= KTP_N_CHAIN;

	if (!nptr && !t) {
		ktp_fail(c, at, TP_ERR_KTP_BTF_VOID);
		return NULL;
	}
	if (t && (btf_type_is_struct(t) || btf_type_is_array(t))) {
		n = ktp_node(c, KTP_OP_OBJ, 0, at);
		if (!n)
			return NULL;
		n->tflags = KTP_N_BTF | (user ? KTP_N_USER : 0);
		n->btf_id = id;
		n->l = addr;
		return n;
	}
	user = ktp_reads_user(c, addr, user);
	n = ktp_node(c, KTP_OP_READ, 0, at);
	if (!n || ktp_btf_set_type(c, n, id, nptr, user, at))
		return NULL;
	n->param = (n->type & KTP_T_PTR ? 8 : n->type & KTP_T_SIZE) |
		   (user ? KTP_READ_USER : 0);
	n->l = addr;
	return n;
}

/* @addr + @off: one addition, however many members it passes */
static struct ktp_node *ktp_btf_offset(struct ktp_compiler *c,
				       struct ktp_node *addr, u32 off,
				       const char *at)
{
	struct ktp_node *sum;

	if (!off)
		return addr;
	if (addr->op == KTP_OP_CONST) {
		addr->val += off;
		return addr;
	}
	if (addr->op == KTP_OP_ADD && addr->r->op == KTP_OP_CONST) {
		addr->r->val += off;
		return addr;
	}
	sum = ktp_node(c, KTP_OP_ADD, KTP_T_U64, at);
	if (!sum)
		return NULL;
	sum->l = addr;
	sum->r = ktp_const(c, off, KTP_T_S64, at);
	return sum->r ? sum : NULL;
}

/*
 * A bitfield of @bits bits at bit @bitoff of @addr: the bytes that hold
 * it read as one little-endian word, shifted up to its top bit, then
 * down to its lowest, arithmetically if it is signed.
 */
static struct ktp_node *ktp_btf_bitfield(struct ktp_compiler *c,
					 struct ktp_node *addr, u32 bitoff,
					 u32 bits, s32 id, bool user,
					 const char *at)
{
	const struct btf_type *t = ktp_btf_skip(c, id, NULL);
	u32 shift = bitoff % 8, size;
	struct ktp_node *n, *up, *down;
	int type = t ? ktp_btf_int_type(t) : 0;

	size = roundup_pow_of_two(DIV_ROUND_UP(shift + bits, 8));
	if (!type || size > 8 || bits > 64) {
		ktp_fail(c, at, TP_ERR_KTP_BTF_NO_VALUE);
		return NULL;
	}
	addr = ktp_btf_offset(c, addr, bitoff / 8, at);
	user = ktp_reads_user(c, addr, user);
	n = addr ? ktp_node(c, KTP_OP_READ, KTP_T_U64, at) : NULL;
	up = ktp_node(c, KTP_OP_SHL, KTP_T_U64, at);
	down = ktp_node(c, KTP_OP_SHR, ktp_is_signed(type) ? KTP_T_S64 :
			KTP_T_U64, at);
	if (!n || !up || !down)
		return NULL;
	n->param = size | (user ? KTP_READ_USER : 0);
	n->l = addr;
	up->l = n;
	up->r = ktp_const(c, 64 - shift - bits, KTP_T_S64, at);
	down->l = up;
	down->r = ktp_const(c, 64 - bits, KTP_T_S64, at);
	if (!up->r || !down->r)
		return NULL;
	/* the shift up of a signed field makes a u64 an s64 */
	if (ktp_is_signed(type)) {
		struct ktp_node *cast = ktp_node(c, KTP_OP_CAST, KTP_T_S64, at);

		if (!cast)
			return NULL;
		cast->l = up;
		down->l = cast;
	}
	return ktp_fold(c, down);
}

/* Refuse a member @t does not have: the error's detail names @t */
static void ktp_btf_fail_member(struct ktp_compiler *c,
				const struct btf_type *t, const char *name)
{
	char tname[KTP_EXPR_DETAIL_MAX];

	btf_snprint_struct(c->btf, t, tname, sizeof(tname));
	ktp_fail_detail(c, name, TP_ERR_NO_BTF_FIELD, "in %s", tname);
}

/**
 * ktp_btf_member() - a member of a struct or union, by '.' or '->'
 * @c: the compiler
 * @n: the struct (a KTP_OP_OBJ) for '.', its address for '->'
 * @arrow: whether it is '->'
 * @name: the member's name
 * @len: its length
 * @at: the '.' or '->'
 *
 * Members of anonymous structs and unions are found as C finds them.
 *
 * Return: the member, or NULL with the error at the operator or name.
 */
struct ktp_node *ktp_btf_member(struct ktp_compiler *c, struct ktp_node *n,
				bool arrow, const char *name, int len,
				const char *at)
{
	const struct btf_type *t, *mtype = NULL;
	const struct btf_member *m;
	char buf[KSYM_NAME_LEN];
	u32 anon = 0, bitoff, bits;
	struct ktp_node *addr;
	bool user;
	s32 id;

	if (arrow) {
		n = ktp_btf_value(c, n);
		if (!n)
			return NULL;
		if (!(n->tflags & KTP_N_BTF) || n->nptr != 1) {
			ktp_fail(c, at, TP_ERR_NO_PTR_STRCT);
			return NULL;
		}
		addr = n;
	} else {
		if (n->op != KTP_OP_OBJ) {
			ktp_fail(c, at, n->type & KTP_T_PTR ?
				 TP_ERR_KTP_BTF_DOT_PTR : TP_ERR_KTP_BTF_NOT_STRUCT);
			return NULL;
		}
		addr = n->l;
	}
	id = n->btf_id;
	user = n->tflags & KTP_N_USER;
	t = ktp_btf_skip(c, id, NULL);
	if (!t || !btf_type_is_struct(t)) {
		ktp_fail(c, at, arrow ? TP_ERR_NO_PTR_STRCT :
			 TP_ERR_KTP_BTF_NOT_STRUCT);
		return NULL;
	}
	if (len >= sizeof(buf)) {
		ktp_btf_fail_member(c, t, name);
		return NULL;
	}
	memcpy(buf, name, len);
	buf[len] = '\0';
	m = btf_find_struct_member(c->btf, t, buf, &anon, &mtype);
	if (IS_ERR(m)) {
		if (!c->error)
			c->error = PTR_ERR(m);
		ktp_fail(c, name, TP_ERR_BAD_BTF_TID);
		return NULL;
	}
	if (!m) {
		ktp_btf_fail_member(c, t, name);
		return NULL;
	}
	bitoff = anon + __btf_member_bit_offset(mtype, m);
	bits = __btf_member_bitfield_size(mtype, m);
	if (bits)
		return ktp_btf_bitfield(c, addr, bitoff, bits, m->type, user,
					name);
	addr = ktp_btf_offset(c, addr, bitoff / 8, at);
	return addr ? ktp_btf_object(c, addr, m->type, 0, user, name) : NULL;
}

/**
 * ktp_btf_value() - an operand as a value
 * @c: the compiler
 * @n: the operand, or NULL
 *
 * An array is the address of its first element, as in C; a struct or
 * union has no value.
 *
 * Return: the value, or NULL with the error at @n.
 */
struct ktp_node *ktp_btf_value(struct ktp_compiler *c, struct ktp_node *n)
{
	const struct btf_type *t;
	const struct btf_array *a;
	struct ktp_node *cast;
	u32 size = 0;

	if (!n || n->op != KTP_OP_OBJ)
		return n;
	t = ktp_btf_skip(c, n->btf_id, NULL);
	if (!t || !btf_type_is_array(t)) {
		ktp_fail(c, c->src + n->pos, TP_ERR_KTP_BTF_NO_VALUE);
		return NULL;
	}
	a = btf_array(t);
	cast = ktp_node(c, KTP_OP_CAST, 0, c->src + n->pos);
	if (!cast)
		return NULL;
	cast->l = n->l;
	if (ktp_btf_set_type(c, cast, a->type, 1, n->tflags & KTP_N_USER,
			     c->src + n->pos))
		return NULL;
	/* a char array is a string that may fill it, with no NUL */
	if (cast->type & KTP_T_STR && !IS_ERR(btf_resolve_size(c->btf, t, &size)))
		cast->param = size;
	return cast;
}

/**
 * ktp_btf_deref() - the object a typed pointer points to
 * @c: the compiler
 * @n: the pointer, typed
 * @at: the '*', or the '[' of an index
 *
 * Return: the object, or NULL with the error at @at.
 */
struct ktp_node *ktp_btf_deref(struct ktp_compiler *c, struct ktp_node *n,
			       const char *at)
{
	return ktp_btf_object(c, n, n->btf_id, n->nptr - 1,
			      n->tflags & KTP_N_USER, at);
}

/**
 * ktp_btf_addr() - the address of a typed object, &X
 * @c: the compiler
 * @n: the object: a read or a KTP_OP_OBJ, typed
 * @at: the '&'
 *
 * Return: a pointer to it, or NULL with the error at @at.
 */
struct ktp_node *ktp_btf_addr(struct ktp_compiler *c, struct ktp_node *n,
			      const char *at)
{
	struct ktp_node *addr = n->l, *base;

	/* the pointer under it is no longer only read through */
	base = addr->op == KTP_OP_ADD ? addr->l : addr;
	if (base->op == KTP_OP_READ)
		base->tflags &= ~KTP_N_CHAIN;
	if (n->nptr == U8_MAX) {
		ktp_fail(c, at, TP_ERR_KTP_EXPR_TOO_DEEP);
		return NULL;
	}
	/* its address is a node of its own, which the object alone used */
	if (addr->op == KTP_OP_CONST || !(addr->tflags & KTP_N_BTF)) {
		addr->tflags = 0;
	} else {
		addr = ktp_node(c, KTP_OP_CAST, 0, at);
		if (!addr)
			return NULL;
		addr->l = n->l;
	}
	if (ktp_btf_set_type(c, addr, n->btf_id, n->nptr + 1,
			     n->tflags & KTP_N_USER, at))
		return NULL;
	return addr;
}

/**
 * ktp_btf_pointee_size() - the size of what a typed pointer points to
 * @c: the compiler
 * @p: the pointer, typed
 * @at: where the error goes
 *
 * Return: the size in bytes (1 for void, as the kernel's C counts a
 * void *), or 0 with the error at @at for a type that has no size.
 */
u32 ktp_btf_pointee_size(struct ktp_compiler *c, const struct ktp_node *p,
			 const char *at)
{
	const struct btf_type *t;
	u32 size = 0;

	if (p->nptr > 1)
		return sizeof(void *);
	t = ktp_btf_skip(c, p->btf_id, NULL);
	/* arithmetic on a void * counts bytes, as the kernel's C has it */
	if (!t)
		return 1;
	if (IS_ERR(btf_resolve_size(c->btf, t, &size)) || !size)
		ktp_fail(c, at, TP_ERR_KTP_BTF_NO_VALUE);
	return size;
}

/* The index of the parameter @name (@len characters), from 1, or 0 */
static unsigned int ktp_btf_param(struct ktp_compiler *c, const char *name,
				  int len)
{
	const char *pname;
	int i;

	if (!ktp_btf_scope(c))
		return 0;
	for (i = 0; i < c->nr_params; i++) {
		pname = btf_name_by_offset(c->btf, c->params[i].name_off);
		if (pname && strlen(pname) == len && !strncmp(pname, name, len))
			return i + 1;
	}
	return 0;
}

/**
 * ktp_btf_fail_param() - refuse a name that is no parameter of the probe's
 * @c: the compiler
 * @at: the name, where error_log's caret goes
 *
 * The error's detail lists the names the prototype has, as far as they
 * fit.
 *
 * Return: -EINVAL.
 */
int ktp_btf_fail_param(struct ktp_compiler *c, const char *at)
{
	bool tpoint = (c->env.flags & (KTP_ENV_TPOINT | KTP_ENV_TRAMP)) ==
		      KTP_ENV_TPOINT;
	char detail[KTP_EXPR_DETAIL_MAX];

	btf_snprint_params(c->btf, c->params, c->nr_params,
			   tpoint ? c->env.tpoint : c->env.func, tpoint,
			   detail, sizeof(detail));
	return ktp_fail_detail(c, at, TP_ERR_NO_BTFARG, "%s", detail);
}

/**
 * ktp_btf_is_param() - whether a name is a parameter of the probe's
 * @c: the compiler
 * @name: the name
 *
 * Return: true if @name is a parameter of the probed function (or an
 * argument of the probed tracepoint) by its BTF prototype.
 */
bool ktp_btf_is_param(struct ktp_compiler *c, const char *name)
{
	return ktp_btf_param(c, name, strlen(name));
}

/* Are the registers of parameter @num where $argN finds them? */
static bool ktp_btf_param_in_place(struct ktp_compiler *c, unsigned int num)
{
	const struct btf_type *t;
	unsigned int i;

	/* a struct passed by value may take two registers, or the stack */
	for (i = 0; i < num; i++) {
		t = ktp_btf_skip(c, c->params[i].type, NULL);
		if (!t || btf_type_is_struct(t))
			return false;
	}
	return true;
}

/* Type @n, which holds a value of BTF type @id in a u64 */
static struct ktp_node *ktp_btf_type_word(struct ktp_compiler *c,
					  struct ktp_node *n, s32 id)
{
	const struct btf_type *t = ktp_btf_skip(c, id, NULL);
	const char *at = c->src + n->pos;
	struct ktp_node *cast;
	int type;

	if (t && btf_type_is_ptr(t)) {
		/* a tracepoint's pointer: ktp_gen.c makes it a number */
		if (ktp_btf_set_type(c, n, id, 0, false, at))
			return NULL;
		return n;
	}
	type = t ? ktp_btf_int_type(t) : 0;
	if (!type)
		return n;	/* no integer, no pointer: stays a u64 */
	cast = ktp_node(c, KTP_OP_CAST, 0, at);
	if (!cast || ktp_btf_set_type(c, cast, id, 0, false, at))
		return NULL;
	cast->l = n;
	return ktp_fold(c, cast);
}

/**
 * ktp_btf_arg() - type $argN, or a parameter, by the BTF prototype
 * @c: the compiler
 * @n: the KTP_OP_ARG node of the argument
 *
 * An argument the prototype does not type, or that follows a struct
 * passed by value, stays a u64.
 *
 * Return: the typed argument, or NULL if memory ran out.
 */
struct ktp_node *ktp_btf_arg(struct ktp_compiler *c, struct ktp_node *n)
{
	if (!ktp_btf_scope(c) || n->param > c->nr_params ||
	    !ktp_btf_param_in_place(c, n->param))
		return n;
	return ktp_btf_type_word(c, n, c->params[n->param - 1].type);
}

/**
 * ktp_btf_retval() - type $retval by the function's BTF prototype
 * @c: the compiler
 * @n: the register that holds the return value
 *
 * Return: the typed value (a u64 if the function has no BTF prototype or
 * returns void), or NULL if memory ran out.
 */
struct ktp_node *ktp_btf_retval(struct ktp_compiler *c, struct ktp_node *n)
{
	if (!ktp_btf_scope(c) || !c->proto || !c->proto->type)
		return n;
	return ktp_btf_type_word(c, n, c->proto->type);
}

/**
 * ktp_btf_name() - a bare name, as C finds it in a probe
 * @c: the compiler
 * @name: the name
 * @len: its length
 * @num: set to N of the parameter's $argN, 0 for current
 *
 * A parameter of the probed function or tracepoint, by its BTF
 * prototype; else current, the running task.
 *
 * Return: 0 if @name is one; -EINVAL for a parameter after a struct
 * passed by value, which has no register of its own by that count;
 * -ENOENT if @name is neither.
 */
int ktp_btf_name(struct ktp_compiler *c, const char *name, int len,
		 unsigned int *num)
{
	*num = ktp_btf_param(c, name, len);
	if (*num) {
		if (!ktp_btf_param_in_place(c, *num))
			return -EINVAL;
		return 0;
	}
	if (len == 7 && !strncmp(name, "current", 7))
		return 0;
	return -ENOENT;
}

/**
 * ktp_btf_current() - current, the running task, a struct task_struct *
 * @c: the compiler
 * @at: where it is
 *
 * Return: the node, or NULL with the error at @at.
 */
struct ktp_node *ktp_btf_current(struct ktp_compiler *c, const char *at)
{
	struct ktp_node *n;

	if (!ktp_btf_scope(c)) {
		ktp_fail(c, at, TP_ERR_NOSUP_BTFARG);
		return NULL;
	}
	n = ktp_node(c, KTP_OP_CURRENT, 0, at);
	if (n && ktp_btf_set_type(c, n, btf_tracing_ids[BTF_TRACING_TYPE_TASK],
				  1, false, at))
		return NULL;
	return n;
}

/* The C base type the words @base name, as ktp_parse.c types values */
static int ktp_btf_base_type(const char *base)
{
	static const struct { const char *name; int type; } types[] = {
		{ "_Bool", 1 }, { "bool", 1 }, { "char", 1 | KTP_T_SIGNED },
		{ "signed char", 1 | KTP_T_SIGNED }, { "unsigned char", 1 },
		{ "short", 2 | KTP_T_SIGNED }, { "short int", 2 | KTP_T_SIGNED },
		{ "unsigned short", 2 }, { "unsigned short int", 2 },
		{ "int", 4 | KTP_T_SIGNED }, { "signed", 4 | KTP_T_SIGNED },
		{ "signed int", 4 | KTP_T_SIGNED }, { "unsigned", 4 },
		{ "unsigned int", 4 },
		{ "long", KTP_T_S64 }, { "long int", KTP_T_S64 },
		{ "signed long", KTP_T_S64 }, { "long long", KTP_T_S64 },
		{ "long long int", KTP_T_S64 }, { "unsigned long", KTP_T_U64 },
		{ "unsigned long int", KTP_T_U64 },
		{ "unsigned long long", KTP_T_U64 },
		{ "unsigned long long int", KTP_T_U64 },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(types); i++)
		if (!strcmp(types[i].name, base))
			return types[i].type;
	return 0;
}

static bool ktp_btf_word_is(const char *p, int len, const char *word)
{
	return strlen(word) == len && !strncmp(p, word, len);
}

static bool ktp_btf_is_base_word(const char *p, int len)
{
	static const char * const words[] = {
		"void", "signed", "unsigned", "char", "short", "int", "long",
		"_Bool", "bool",
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(words); i++)
		if (ktp_btf_word_is(p, len, words[i]))
			return true;
	return false;
}

/*
 * A type of the compiler's BTF by name and kind, vmlinux's or a module's,
 * by the index each keeps (btf_find_by_name_kind_indexed())
 */
static s32 ktp_btf_find_kind(struct ktp_compiler *c, const char *name, u8 kind)
{
	if (!c->btf)
		return -ENOENT;
	return btf_find_by_name_kind_indexed(c->btf, name, kind);
}

/* The BTF type a cast names by KIND NAME or a typedef's name, or <= 0 */
static s32 ktp_btf_find_type(struct ktp_compiler *c, int kind,
			     const char *name, int len)
{
	char buf[KSYM_NAME_LEN];
	s32 id;

	if (len >= sizeof(buf))
		return -ENOENT;
	memcpy(buf, name, len);
	buf[len] = '\0';
	id = ktp_btf_find_kind(c, buf, kind);
	if (id <= 0 && kind == BTF_KIND_ENUM)
		id = ktp_btf_find_kind(c, buf, BTF_KIND_ENUM64);
	return id;
}

/*
 * The name of a cast's type from @p: C base type words into @base, or a
 * BTF type into *@id. Return: where the name ends; NULL with *@id 0 if
 * no type is there, or with *@id < 0 and the error set.
 */
static const char *ktp_btf_type_name(struct ktp_compiler *c, const char *p,
				     char *base, size_t size, s32 *id,
				     bool *user)
{
	bool quals = false;
	int len, kind;

	*id = 0;
	for (;;) {
		p = skip_spaces(p);
		for (len = 0; ktp_is_ident(p[len]); len++)
			;
		if (!len)
			break;
		if (ktp_btf_word_is(p, len, "const") ||
		    ktp_btf_word_is(p, len, "volatile") ||
		    ktp_btf_word_is(p, len, "__user")) {
			*user |= *p == '_';
			quals = true;
		} else if (*id) {
			break;
		} else if (ktp_btf_is_base_word(p, len)) {
			if (strlen(base) + len + 2 > size)
				goto bad;
			if (*base)
				strcat(base, " ");
			strncat(base, p, len);
		} else if (*base) {
			break;
		} else if (ktp_btf_word_is(p, len, "struct") ||
			   ktp_btf_word_is(p, len, "union") ||
			   ktp_btf_word_is(p, len, "enum")) {
			kind = *p == 's' ? BTF_KIND_STRUCT : *p == 'u' ?
			       BTF_KIND_UNION : BTF_KIND_ENUM;
			p = skip_spaces(p + len);
			for (len = 0; ktp_is_ident(p[len]); len++)
				;
			if (!len || !ktp_btf_scope(c))
				goto bad;
			*id = ktp_btf_find_type(c, kind, p, len);
			if (*id <= 0)
				goto bad;
		} else {
			/* a typedef, unless the name is one of the probe's */
			if (ktp_btf_param(c, p, len) ||
			    ktp_btf_word_is(p, len, "current") ||
			    !ktp_btf_scope(c))
				return NULL;
			*id = ktp_btf_find_type(c, BTF_KIND_TYPEDEF, p, len);
			if (*id <= 0) {
				*id = 0;
				if (quals)
					goto bad;
				return NULL;
			}
		}
		p += len;
	}
	if (*id || *base)
		return p;
	if (quals)
		goto bad;
	return NULL;
bad:
	*id = ktp_fail(c, p, TP_ERR_KTP_BTF_TYPE);
	return NULL;
}

/**
 * ktp_btf_parse_type() - a type name, as a cast or sizeof() has one
 * @c: the compiler; the name starts at @c->p
 * @end: set to the ')' or ',' after it
 * @id: set to its BTF type, 0 for a C base type or void
 * @nptr: set to the number of its '*'s
 * @base: set to a C base type's KTP_T_* type as ktp_parse.c types values,
 *	  -1 for void *
 * @user: set if it is a __user pointer
 * @comma: a ',' may end it, as well as a ')'
 *
 * Return: 1 with *@end at the ')' or ',', 0 if no type name is there, or
 * -EINVAL with the error set.
 */
int ktp_btf_parse_type(struct ktp_compiler *c, const char **end, s32 *id,
		       int *nptr, int *base, bool *user, bool comma)
{
	const char *p, *at = skip_spaces(c->p);
	char words[32] = "";

	*nptr = 0;
	*base = 0;
	*user = false;
	p = ktp_btf_type_name(c, c->p, words, sizeof(words), id, user);
	if (!p)
		return *id;
	for (;;) {
		p = skip_spaces(p);
		if (*p == '*') {
			(*nptr)++;
			p++;
		} else if (!strncmp(p, "const", 5) && !ktp_is_ident(p[5])) {
			p += 5;
		} else {
			break;
		}
	}
	if (*p != ')' && (!comma || *p != ','))
		return ktp_fail(c, p, TP_ERR_KTP_EXPR_SYNTAX);
	if (*nptr > U8_MAX)
		return ktp_fail(c, p, TP_ERR_KTP_EXPR_TOO_DEEP);
	*end = p;
	if (*id)
		return 1;
	if (!strcmp(words, "void")) {
		/* void * is a typed pointer to nothing */
		*id = 0;
		if (!*nptr)
			return ktp_fail(c, at, TP_ERR_KTP_BTF_VOID);
		*base = -1;
		return 1;
	}
	*base = ktp_btf_base_type(words);
	if (!*base)
		return ktp_fail(c, at, TP_ERR_KTP_BTF_TYPE);
	return 1;
}

/**
 * ktp_btf_cast() - the type of a cast, "(TYPE)", if one follows a '('
 * @c: the compiler; @c->p is past the '('
 * @end: set past the ')'
 * @cast: the cast's node, typed if it is a cast
 *
 * TYPE is a C base type (int, unsigned long, ...), struct, union or enum
 * NAME, a typedef's name or void, with const, volatile and __user, then
 * '*'s. A base type and its pointer are as ktp_parse.c's casts make them;
 * the others are typed by BTF. __user makes a pointer one to user memory.
 *
 * Return: 1 if a type is there, 0 if not (the '(' opens an expression),
 * or -EINVAL with the error where the type went wrong.
 */
int ktp_btf_cast(struct ktp_compiler *c, const char **end,
		 struct ktp_node *cast)
{
	const char *at = skip_spaces(c->p);
	int ret, nptr, type;
	bool user;
	s32 id;

	ret = ktp_btf_parse_type(c, end, &id, &nptr, &type, &user, false);
	if (ret <= 0)
		return ret;
	(*end)++;
	if (id || type < 0)
		return ktp_btf_set_type(c, cast, id, nptr, user, at) ?: 1;
	if (nptr) {
		/* a pointer to a pointer reads a pointer */
		type = nptr > 1 ? KTP_T_PTR | 8 : type | KTP_T_PTR;
		if (nptr == 1 && (type & KTP_T_SIZE) == 1)
			type |= KTP_T_STR;
	}
	cast->type = type;
	cast->tflags = user ? KTP_N_USER : 0;
	return 1;
}

/**
 * ktp_btf_type_size() - the size of a type ktp_btf_parse_type() gave
 * @c: the compiler
 * @id: its BTF type, 0 for a C base type
 * @nptr: the number of its '*'s
 * @base: a C base type's KTP_T_* type
 *
 * Return: the size in bytes, or 0 if the type has none (void, a function).
 */
u32 ktp_btf_type_size(struct ktp_compiler *c, s32 id, int nptr, int base)
{
	const struct btf_type *t;
	u32 size = 0;

	if (nptr)
		return sizeof(void *);
	if (!id)
		return base & KTP_T_SIZE;
	t = ktp_btf_skip(c, id, NULL);
	if (t && IS_ERR(btf_resolve_size(c->btf, t, &size)))
		size = 0;
	return size;
}

/**
 * ktp_btf_enum_value() - an enum constant, by its name
 * @c: the compiler
 * @name: the name
 * @len: its length
 *
 * BTF has no index by name: every enum is looked through, once a name is
 * neither a parameter nor a global.
 *
 * Return: the constant, typed by its enum; NULL if memory ran out, or
 * ERR_PTR(-ENOENT) if there is none.
 */
struct ktp_node *ktp_btf_enum_value(struct ktp_compiler *c, const char *name,
				    int len)
{
	const struct btf_type *t;
	const char *vname;
	struct ktp_node *n;
	u32 i, j, nr;
	u64 val;

	if (!ktp_btf_scope(c))
		return ERR_PTR(-ENOENT);
	nr = btf_nr_types(c->btf);
	for (i = 1; i < nr; i++) {
		t = btf_type_by_id(c->btf, i);
		if (!t || !btf_is_any_enum(t))
			continue;
		for (j = 0; j < btf_type_vlen(t); j++) {
			if (btf_type_is_enum(t)) {
				const struct btf_enum *e = btf_enum(t) + j;

				vname = btf_name_by_offset(c->btf, e->name_off);
				val = btf_type_kflag(t) ? (s64)(s32)e->val : e->val;
			} else {
				const struct btf_enum64 *e = btf_enum64(t) + j;

				vname = btf_name_by_offset(c->btf, e->name_off);
				val = btf_enum64_value(e);
			}
			if (!vname || strlen(vname) != len ||
			    strncmp(vname, name, len))
				continue;
			n = ktp_const(c, 0, 0, name);
			if (n && ktp_btf_set_type(c, n, i, 0, false, name))
				return NULL;
			if (n)
				n->val = ktp_convert(val, n->type);
			return n;
		}
	}
	return ERR_PTR(-ENOENT);
}
