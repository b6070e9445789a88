// SPDX-License-Identifier: GPL-2.0
/*
 * KTP's expression compiler: what a program needs of BPF. Every program
 * KTP runs is one the BPF verifier accepted, loaded through the bpf()
 * system call's own path (bpf_prog_load_kern()), so that bpftool lists
 * it, the LSM hooks and the capability checks of BPF apply, and the
 * verifier, not KTP, says it is safe; but no process has an fd of it or
 * of its maps. A "p" or "r" probe's program is a
 * kprobe program on the hit's pt_regs; an "e" probe's is a tracepoint
 * program on its event's record; a "t" probe's is a BTF raw tracepoint
 * program (tp_btf) on the tracepoint's arguments, attached by a BPF
 * link.
 *
 * What a program needs besides its context is standard BPF: kernel
 * memory is read by an inline load from a bpf_rdonly_cast() pointer (a
 * nofault load under the JIT; to the struct the read is a member of, where
 * the verifier finds the member in it, see ktp_v_read_type()) or by
 * bpf_probe_read_kernel(), user memory
 * by bpf_probe_read_user(), and fetched values go to this CPU's value of
 * one per-CPU array map, ktp_area_map. A "p", "r" or "e" program counts
 * the reads that faulted on its stack and returns them with the
 * condition's truth: (faults << 1) | true. String compares call the
 * kfunc ktp_strcmp(), with the literal as an index into the probe's
 * literals; only KTP's programs may call KTP's kfuncs.
 */
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/bpf_verifier.h>
#include <linux/btf_ids.h>
#include <linux/filter.h>
#include <linux/idr.h>
#include <linux/kprobes.h>
#include <linux/slab.h>

#include <asm/sections.h>

#include "../trace.h"
#include "../trace_probe.h"
#include "ktp_btf.h"
#include "ktp_gen.h"
#include "ktp_regs.h"

/*
 * What an inline read with no struct to read a member of reads through:
 * bpf_rdonly_cast() needs a struct, and a read through this one may be at
 * any offset a load has room for (see ktp_v_gen_read()).
 */
struct ktp_word {
	u8	bytes[S16_MAX + sizeof(u64)];
};

/* The programs that name themselves to KTP's kfuncs (ktp_prog_by_id()) */
struct ktp_id_table __rcu *ktp_id_table;
static DEFINE_IDA(ktp_id_slots);
static DEFINE_MUTEX(ktp_id_mutex);

/* The user read that faulted in a user-space probe's hit on this CPU */
DEFINE_PER_CPU(struct ktp_user_fault, ktp_user_fault);

/* Every KTP program's values, one per CPU (see ktp_v_area()) */
static struct bpf_map *ktp_area_map;
u64 __percpu *ktp_prog_area __read_mostly;
static DEFINE_MUTEX(ktp_area_mutex);

/* The maps a program names, by index (see bpf_prog_load_kern()) */
enum {
	KTP_V_MAP_AREA,		/* ktp_area_map */
	KTP_V_MAP_FALSE,	/* a "t" probe's false hits' */
	KTP_V_MAP_SELF,		/* what names it to the kfuncs */
	KTP_V_NR_MAPS
};

static void ktp_v_need_area_map(struct ktp_compiler *c);
static struct bpf_map *ktp_v_false_map(struct ktp_compiler *c);
static struct bpf_map *ktp_v_frozen_map(union bpf_attr *attr);

static struct ktp_id_table *ktp_id_table_locked(void)
{
	return rcu_dereference_protected(ktp_id_table,
					 lockdep_is_held(&ktp_id_mutex));
}

/* Make the table of ids hold @slot; the old one goes after RCU */
static int ktp_id_table_fit(unsigned int slot)
{
	struct ktp_id_table *old = ktp_id_table_locked(), *t;
	unsigned int i, size;
	struct ktp_prog *kp;

	if (old && slot < old->size)
		return 0;
	size = max(roundup_pow_of_two(slot + 1), 64U);
	t = kvzalloc(struct_size(t, progs, size), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->size = size;
	for (i = 0; old && i < old->size; i++) {
		kp = rcu_dereference_protected(old->progs[i],
					       lockdep_is_held(&ktp_id_mutex));
		RCU_INIT_POINTER(t->progs[i], kp);
	}
	rcu_assign_pointer(ktp_id_table, t);
	if (old)
		kvfree_rcu(old, rcu);
	return 0;
}

/*
 * A frozen array map of one value of @value_size bytes, made in @slot the
 * first time; @slot holds its references (bpf_map_create_kern()'s).
 */
static struct bpf_map *ktp_v_one_value_map(struct ktp_compiler *c,
					   struct bpf_map **slot,
					   const char *name, u32 value_size)
{
	union bpf_attr attr = {};
	struct bpf_map *map;

	if (*slot)
		return *slot;
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = sizeof(u32);
	attr.value_size = value_size;
	attr.max_entries = 1;
	strscpy(attr.map_name, name, sizeof(attr.map_name));
	map = ktp_v_frozen_map(&attr);
	if (IS_ERR(map)) {
		if (!c->error)
			c->error = PTR_ERR(map);
		return NULL;
	}
	*slot = map;
	return map;
}

/**
 * ktp_v_self_map() - the map a program names itself with to KTP's kfuncs
 * @c: the compiler
 *
 * Beside its slot: a "t" probe's false hits' map, else a map of its own,
 * of one word, made the first time. The program holds it, so no other
 * program has it while the program lives.
 *
 * Return: the map, or NULL with @c->error set.
 */
struct bpf_map *ktp_v_self_map(struct ktp_compiler *c)
{
	if (c->env.flags & KTP_ENV_TPOINT)
		return ktp_v_false_map(c);
	return ktp_v_one_value_map(c, &c->self_map, "ktp_self", sizeof(u64));
}

/**
 * ktp_v_id() - the slot the program being compiled passes KTP's kfuncs
 * @c: the compiler
 *
 * Made the first time; ktp_compiler_finish() puts the program in the
 * slot, and ktp_v_emit_self() passes it with the program's map.
 *
 * Return: the slot, or 0 with @c->error set.
 */
u32 ktp_v_id(struct ktp_compiler *c)
{
	int slot, err;

	if (c->id)
		return c->id;
	slot = ida_alloc_range(&ktp_id_slots, 1, KTP_ID_SLOT_MASK, GFP_KERNEL);
	if (slot < 0) {
		if (!c->error)
			c->error = slot == -ENOSPC ? -E2BIG : slot;
		return 0;
	}
	mutex_lock(&ktp_id_mutex);
	err = ktp_id_table_fit(slot);
	if (!err)
		c->id = slot;
	mutex_unlock(&ktp_id_mutex);
	if (err) {
		ida_free(&ktp_id_slots, slot);
		if (!c->error)
			c->error = err;
	}
	return c->id;
}

/**
 * ktp_v_emit_self() - name the program to a kfunc: R1 its map, R2 its slot
 * @c: the compiler
 *
 * A kfunc finds the program by both (ktp_prog_by_id()): a program that
 * outlives its probe, on a link bpf() took by its id, passes a map no
 * other program has, and finds nothing once its slot holds another.
 */
void ktp_v_emit_self(struct ktp_compiler *c)
{
	struct bpf_insn ld[2] = {
		BPF_LD_IMM64_RAW(BPF_REG_1, BPF_PSEUDO_MAP_IDX, KTP_V_MAP_SELF)
	};
	u32 slot = ktp_v_id(c);

	if (!ktp_v_self_map(c))
		return;
	ktp_emit(c, ld[0]);
	ktp_emit(c, ld[1]);
	ktp_emit(c, BPF_MOV64_IMM(BPF_REG_2, slot));
}

/**
 * ktp_v_set_id() - make a program's slot and map find it
 * @id: the slot ktp_v_id() made
 * @kp: the program, whose @kp->id is @id and @kp->self_map its map
 */
void ktp_v_set_id(u32 id, struct ktp_prog *kp)
{
	mutex_lock(&ktp_id_mutex);
	rcu_assign_pointer(ktp_id_table_locked()->progs[id & KTP_ID_SLOT_MASK],
			   kp);
	mutex_unlock(&ktp_id_mutex);
}

/**
 * ktp_v_free_id() - let an id go; its program is freed after RCU
 * @id: the id
 */
void ktp_v_free_id(u32 id)
{
	unsigned int slot = id & KTP_ID_SLOT_MASK;

	mutex_lock(&ktp_id_mutex);
	RCU_INIT_POINTER(ktp_id_table_locked()->progs[slot], NULL);
	mutex_unlock(&ktp_id_mutex);
	ida_free(&ktp_id_slots, slot);
}

__bpf_kfunc_start_defs();

/**
 * ktp_strcmp - compare a string with one of a KTP program's literals
 * @self__map: the program's map (see ktp_prog_by_id())
 * @id: the program's slot
 * @addr__ign: the string's address, unused for $comm: a number, or a
 *	       pointer the verifier types (a "t" probe's argument, an "e"
 *	       probe's record), which it lets a kfunc take only as __ign
 * @lit: the literal's index among the program's literals
 * @how: KTP_STR_* flags, and the size of a char array
 *
 * Called only by KTP's programs (see ktp_kfunc_filter()), with
 * constants the verifier knows: the literal is an index that this
 * function checks against the program's literals.
 *
 * Return: 1 if the compare holds, 0 if not, -1 if the string could not
 * be read (the program counts a fault, and the compare is false).
 */
__bpf_kfunc int ktp_strcmp(void *self__map, u32 id, u64 addr__ign, u32 lit,
			   u32 how)
{
	const struct ktp_prog *kp = ktp_prog_by_id(self__map, id);

	if (!kp || lit >= kp->nr_lits)
		return 0;
	return ktp_str_compare(addr__ign, kp->lits[lit], how);
}

/**
 * ktp_user_read_faulted - note a read of user memory that faulted
 * @addr: where it read
 * @size: how many bytes
 *
 * Called only by the programs of user-space probes (see
 * ktp_kfunc_filter()) when bpf_probe_read_user() faults, so that their
 * handler may page the memory in and run the hit again.
 */
__bpf_kfunc void ktp_user_read_faulted(u64 addr, u32 size)
{
	ktp_note_user_fault(addr, size, false);
}

__bpf_kfunc_end_defs();

NOKPROBE_SYMBOL(ktp_strcmp);
NOKPROBE_SYMBOL(ktp_user_read_faulted);

BTF_KFUNCS_START(ktp_kfunc_ids)
BTF_ID_FLAGS(func, ktp_strcmp)
BTF_ID_FLAGS(func, ktp_user_read_faulted)
BTF_KFUNCS_END(ktp_kfunc_ids)

BTF_ID_LIST(ktp_v_btf_ids)
BTF_ID(func, ktp_strcmp)
BTF_ID(func, bpf_rdonly_cast)
BTF_ID(struct, ktp_word)
BTF_ID(func, ktp_user_read_faulted)

static int ktp_v_kfunc_filter(const struct bpf_prog *prog, u32 kfunc_id);

static const struct btf_kfunc_id_set ktp_kfunc_set = {
	.owner	= THIS_MODULE,
	.set	= &ktp_kfunc_ids,
	.filter	= ktp_v_kfunc_filter,
};

/**
 * ktp_kfunc_filter() - the filter of a kfunc set of KTP's
 * @prog: the program being verified
 * @set: the set's kfuncs
 * @kfunc_id: the BTF id of the kfunc @prog calls
 *
 * Only KTP's programs, which ktp_v_finish() loads as their kern_owner,
 * may call KTP's kfuncs. A set's filter sees every kfunc of its hook:
 * only the set's own count.
 *
 * Return: 0 if the program may call it, -EACCES if not.
 */
int ktp_kfunc_filter(const struct bpf_prog *prog,
		     const struct btf_id_set8 *set, u32 kfunc_id)
{
	if (!btf_id_set8_contains(set, kfunc_id))
		return 0;
	return prog->aux->kern_owner == &ktp_kfunc_set ? 0 : -EACCES;
}

static int ktp_v_kfunc_filter(const struct bpf_prog *prog, u32 kfunc_id)
{
	return ktp_kfunc_filter(prog, &ktp_kfunc_ids, kfunc_id);
}

static int __init ktp_kfunc_init(void)
{
	int err;

	BTF_TYPE_EMIT(struct ktp_word);
	err = register_btf_kfunc_id_set(BPF_PROG_TYPE_KPROBE, &ktp_kfunc_set);
	/* tracepoint and BTF raw tracepoint programs: "e" and "t" probes */
	return err ?: register_btf_kfunc_id_set(BPF_PROG_TYPE_TRACING,
						&ktp_kfunc_set);
}
late_initcall(ktp_kfunc_init);

/**
 * ktp_v_call_kfunc() - call a kfunc
 * @c: the compiler
 * @btf_id: the kfunc's BTF id in vmlinux
 */
void ktp_v_call_kfunc(struct ktp_compiler *c, u32 btf_id)
{
	ktp_emit(c, BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL,
				 0, btf_id));
}

static void ktp_v_call_helper(struct ktp_compiler *c, enum bpf_func_id id)
{
	ktp_emit(c, BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, id));
}

/**
 * ktp_v_gen_reg() - a register of the hit, read from the context
 * @c: the compiler
 * @off: its offset in struct pt_regs
 * @slot: where the value goes
 */
void ktp_v_gen_reg(struct ktp_compiler *c, int off, int slot)
{
	int reg = ktp_slot_is_reg(slot) ? ktp_slot_reg(slot) : BPF_REG_0;

	ktp_emit(c, BPF_LDX_MEM(BPF_DW, reg, KTP_R_CTX, off));
	ktp_store(c, slot, reg);
}

/*
 * R0 = bpf_rdonly_cast() of the address in @slot to the struct whose BTF
 * id is @type: a pointer the verifier loads through with a nofault load
 * under the JIT, and moves by any offset (it inlines the call)
 */
static void ktp_v_emit_cast(struct ktp_compiler *c, int slot, u32 type)
{
	ktp_load_into(c, slot, BPF_REG_1);
	ktp_emit(c, BPF_MOV64_IMM(BPF_REG_2, type));
	ktp_v_call_kfunc(c, ktp_v_btf_ids[1]);
}

/* Count a fault: one more on the stack */
static void ktp_v_count_fault(struct ktp_compiler *c)
{
	c->has_faults = true;
	ktp_emit(c, BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_FP, KTP_V_FAULTS));
	ktp_emit(c, BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, 1));
	ktp_emit(c, BPF_STX_MEM(BPF_DW, BPF_REG_FP, BPF_REG_1, KTP_V_FAULTS));
}

/*
 * The value of @bytes at the address in @slot plus @off, into R0,
 * sign-extended if @sx, else zero-extended: an inline nofault load under
 * the JIT, then (for a 0, which may be a fault, unless @may_fault is
 * false) the helper that says whether it faulted. @type: the BTF id of
 * the struct the load reads through; @ptr: the address may be a pointer
 * the verifier types (ktp_v_is_ptr()).
 */
static void ktp_v_emit_read(struct ktp_compiler *c, int slot, s16 off,
			    int bytes, bool sx, bool user, bool may_fault,
			    u32 type, bool ptr)
{
	int size = bytes_to_bpf_size(bytes), done = -1, ok;

	if (c->jit && !user) {
		ktp_v_emit_cast(c, slot, type);
		ktp_emit(c, sx ? BPF_LDX_MEMSX(size, BPF_REG_0, BPF_REG_0, off) :
			 BPF_LDX_MEM(size, BPF_REG_0, BPF_REG_0, off));
		if (!may_fault)
			return;
		done = ktp_jump(c, BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 0));
	}
	if (ptr && off) {
		/* one that may be NULL takes no offset: the cast's does */
		ktp_v_emit_cast(c, slot, ktp_v_btf_ids[2]);
		ktp_emit(c, BPF_MOV64_REG(BPF_REG_3, BPF_REG_0));
	} else {
		ktp_load_into(c, slot, BPF_REG_3);
	}
	if (off)
		ktp_emit(c, BPF_ALU64_IMM(BPF_ADD, BPF_REG_3, off));
	ktp_emit(c, BPF_MOV64_REG(BPF_REG_1, BPF_REG_FP));
	ktp_emit(c, BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, KTP_V_SCRATCH));
	ktp_emit(c, BPF_MOV64_IMM(BPF_REG_2, bytes));
	ktp_v_call_helper(c, user ? BPF_FUNC_probe_read_user :
			  BPF_FUNC_probe_read_kernel);
	ok = ktp_jump(c, BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 0));
	ktp_v_count_fault(c);
	/*
	 * A user-space probe's handler may page it in and run again; not
	 * under the interpreter, whose programs may not call kfuncs.
	 */
	if (user && (c->env.flags & KTP_ENV_USER) && c->jit) {
		ktp_load_into(c, slot, BPF_REG_1);
		if (off)
			ktp_emit(c, BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, off));
		ktp_emit(c, BPF_MOV64_IMM(BPF_REG_2, bytes));
		ktp_v_call_kfunc(c, ktp_v_btf_ids[3]);
	}
	ktp_land(c, ok);
	/* the helper zeroed it if it faulted */
	ktp_emit(c, sx ? BPF_LDX_MEMSX(size, BPF_REG_0, BPF_REG_FP, KTP_V_SCRATCH) :
		 BPF_LDX_MEM(size, BPF_REG_0, BPF_REG_FP, KTP_V_SCRATCH));
	ktp_land(c, done);
}

/* [@start, @start + @size) lies in [@first, @end) */
static bool ktp_v_within(unsigned long start, unsigned int size,
			 const char *first, const char *end)
{
	return start >= (unsigned long)first && start + size > start &&
	       start + size <= (unsigned long)end;
}

/*
 * A read of the kernel image's data, bss or read-only data, at an address
 * the definition gives (a global, @sym), cannot fault: they stay mapped
 * while the kernel runs, as a module's data does not. Its code needs no
 * fault check, which makes it shorter to verify and to run.
 */
static bool ktp_v_read_may_fault(const struct ktp_node *n)
{
	unsigned int size = n->param & KTP_T_SIZE;
	const struct ktp_node *a = n->l;
	unsigned long addr;

	if (n->param & KTP_READ_USER)
		return true;
	/*
	 * Nor can a read of the running task's task_struct; and a pointer
	 * read on the way to another read (p->q->r) need not tell a fault
	 * from a 0: the read through it then reads at an address near 0,
	 * which faults, and counts the fault.
	 */
	if (n->tflags & KTP_N_CHAIN)
		return false;
	if (a->op == KTP_OP_ADD && a->l->op == KTP_OP_CURRENT &&
	    a->r->op == KTP_OP_CONST &&
	    a->r->val + size <= sizeof(struct task_struct))
		return false;
	if (a->op != KTP_OP_CONST)
		return true;
	addr = n->l->val;
	return !ktp_v_within(addr, size, _sdata, _edata) &&
	       !ktp_v_within(addr, size, __bss_start, __bss_stop) &&
	       !ktp_v_within(addr, size, __start_rodata, __end_rodata);
}

/*
 * The address of a read and the offset its load takes: a member's offset
 * is the load's own
 */
static const struct ktp_node *ktp_v_read_addr(struct ktp_compiler *c,
					      const struct ktp_node *n,
					      s16 *off)
{
	const struct ktp_node *addr = n->l;

	*off = 0;
	if (c->jit && !(n->param & KTP_READ_USER) && addr->op == KTP_OP_ADD &&
	    addr->r->op == KTP_OP_CONST && addr->r->val <= S16_MAX) {
		*off = addr->r->val;
		addr = addr->l;
	}
	return addr;
}

/*
 * What the inline load of read @n reads through, at offset @off of
 * @addr: the struct @addr points to, if @n is one of its members by C's
 * types and the verifier finds a member there (btf_struct_access(), the
 * check of its loads through a BTF pointer: a union's first member, a
 * bitfield's bytes, or an offset past the struct may not be one); else
 * ktp_word. bpf_rdonly_cast() takes vmlinux's structs only. *@ptr, if
 * @ptr is not NULL: the verifier types the value read as a pointer too.
 */
static u32 ktp_v_read_type(struct ktp_compiler *c, const struct ktp_node *n,
			   const struct ktp_node *addr, s16 off, bool *ptr)
{
	struct bpf_reg_state reg = { .type = PTR_TO_BTF_ID | PTR_UNTRUSTED };
	enum bpf_type_flag flag = 0;
	const struct btf_type *t;
	u32 next_id, id;
	int ret;

	if (ptr)
		*ptr = false;
	if (!c->jit || n->param & KTP_READ_USER || !(n->tflags & KTP_N_BTF) ||
	    !(addr->tflags & KTP_N_BTF) || addr->nptr != 1 || !c->btf ||
	    btf_is_module(c->btf))
		return ktp_v_btf_ids[2];
	t = btf_type_skip_modifiers(c->btf, addr->btf_id, &id);
	if (!t || !btf_type_is_struct(t))
		return ktp_v_btf_ids[2];
	reg.btf = c->btf;
	reg.btf_id = id;
	ret = btf_struct_access(NULL, &reg, off, n->param & KTP_T_SIZE,
				BPF_READ, &next_id, &flag, NULL);
	if (ret < 0)
		return ktp_v_btf_ids[2];
	if (ptr)
		*ptr = ret == PTR_TO_BTF_ID;
	return id;
}

/* Whether the verifier types the value of read @n as a pointer */
static bool ktp_v_read_is_ptr(struct ktp_compiler *c, const struct ktp_node *n)
{
	const struct ktp_node *addr;
	bool ptr;
	s16 off;

	addr = ktp_v_read_addr(c, n, &off);
	ktp_v_read_type(c, n, addr, off, &ptr);
	return ptr;
}

/**
 * ktp_v_gen_read() - a read of kernel or user memory
 * @c: the compiler
 * @n: the read
 * @slot: where the value goes
 */
void ktp_v_gen_read(struct ktp_compiler *c, const struct ktp_node *n, int slot)
{
	int bytes = n->param & KTP_T_SIZE;
	const struct ktp_node *addr;
	u32 type;
	s16 off;

	addr = ktp_v_read_addr(c, n, &off);
	type = ktp_v_read_type(c, n, addr, off, NULL);
	/* the load extends the value as its type says: no conversion */
	ktp_gen(c, addr, slot);
	ktp_v_emit_read(c, slot, off, bytes, ktp_is_signed(n->type) && bytes < 8 &&
			(n->type & KTP_T_SIZE) == bytes,
			n->param & KTP_READ_USER, ktp_v_read_may_fault(n), type,
			ktp_v_is_ptr(c, addr));
	ktp_store(c, slot, BPF_REG_0);
}

/**
 * ktp_v_gen_current() - current, the running task
 * @c: the compiler
 * @slot: where its address goes
 */
void ktp_v_gen_current(struct ktp_compiler *c, int slot)
{
	ktp_v_call_helper(c, BPF_FUNC_get_current_task);
	ktp_store(c, slot, BPF_REG_0);
}

/* Load the pointer to this CPU's value of ktp_area_map into R1 */
static void ktp_v_area(struct ktp_compiler *c)
{
	ktp_emit(c, BPF_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_FP, KTP_V_AREA));
}

/*
 * Find a "t" probe's tracepoint prototype (ktp_btf_tpoint()), which says
 * its arguments' types; without one, loading the program says so
 */
static void ktp_v_tpoint_btf(struct ktp_compiler *c)
{
	if (ktp_btf_tpoint(c) == -ENOMEM && !c->error)
		c->error = -ENOMEM;
}

/* Whether $argN of a "t" probe is a pointer the verifier types */
static bool ktp_v_tpoint_arg_is_ptr(struct ktp_compiler *c, unsigned int num)
{
	ktp_v_tpoint_btf(c);
	return num > 32 || !(c->tp_scalars & BIT(num - 1));
}

/* Whether a cast to @type changes bits: see ktp_emit_convert() */
static bool ktp_v_cast_converts(int type)
{
	return !(type & (KTP_T_PTR | KTP_T_STR)) && (type & KTP_T_SIZE) < 8;
}

/*
 * Whether a pointer the verifier types moves by @n, the right operand of
 * a + or -, and stays one: by a constant within what the verifier allows
 * (BPF_MAX_VAR_OFF), in an instruction's immediate; any other operand
 * makes a number of it
 */
static bool ktp_v_ptr_offset_ok(const struct ktp_node *n)
{
	s64 val = n->val;

	return n->op == KTP_OP_CONST && val > -BPF_MAX_VAR_OFF &&
	       val < BPF_MAX_VAR_OFF;
}

/**
 * ktp_v_is_ptr() - whether the verifier sees a value as a pointer
 * @c: the compiler
 * @n: the value
 *
 * A "t" probe's argument that points to a struct is the verifier's BTF
 * pointer, as is a pointer member read through its struct (see
 * ktp_v_read_type()); an "e" probe's string field is an address in its
 * record, the program's context. Each stays what it is through what the
 * verifier lets a pointer take: a constant added or subtracted, a cast
 * that changes no bit, "?:", a compare, a read through it, a kfunc's
 * __ign argument. An integer operation makes a number of it first
 * (ktp_v_emit_number()).
 *
 * Return: true if @n may be such a pointer.
 */
bool ktp_v_is_ptr(struct ktp_compiler *c, const struct ktp_node *n)
{
	struct ftrace_event_field *field;

	switch (n->op) {
	case KTP_OP_ARG:
		return c->env.flags & KTP_ENV_TPOINT &&
		       ktp_v_tpoint_arg_is_ptr(c, n->param);
	case KTP_OP_FIELD:
		field = (void *)(unsigned long)n->val;
		return is_string_field(field) &&
		       field->filter_type != FILTER_PTR_STRING;
	case KTP_OP_ADD:
	case KTP_OP_SUB:
		return ktp_v_is_ptr(c, n->l) && !ktp_v_is_ptr(c, n->r) &&
		       ktp_v_ptr_offset_ok(n->r);
	case KTP_OP_CAST:
		return !ktp_v_cast_converts(n->type) && ktp_v_is_ptr(c, n->l);
	case KTP_OP_COND:
		return ktp_v_is_ptr(c, n->l) || ktp_v_is_ptr(c, n->r);
	case KTP_OP_READ:
		return ktp_v_read_is_ptr(c, n);
	default:
		return false;
	}
}

/**
 * ktp_v_emit_number() - make the number a pointer in a slot is
 * @c: the compiler
 * @slot: the slot, which holds a value ktp_v_is_ptr() says may be a
 *	  pointer the verifier types
 *
 * C converts a pointer to an integer where an integer operation takes
 * it; the verifier lets a pointer take + and - only, and keeps its type.
 * The number is the pointer's eight bytes, copied from the stack by
 * bpf_probe_read_kernel(), a copy the verifier types as a number, as it
 * does any it did not write. Only an integer operation on such a pointer
 * pays for it: a read through the pointer, a compare and a fetch of its
 * value take the pointer as it is.
 */
void ktp_v_emit_number(struct ktp_compiler *c, int slot)
{
	int reg = ktp_load(c, slot, BPF_REG_3);

	ktp_emit(c, BPF_STX_MEM(BPF_DW, BPF_REG_FP, reg, KTP_V_SCRATCH));
	ktp_emit(c, BPF_MOV64_REG(BPF_REG_1, BPF_REG_FP));
	ktp_emit(c, BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, KTP_V_SCRATCH));
	ktp_emit(c, BPF_MOV64_IMM(BPF_REG_2, sizeof(u64)));
	ktp_emit(c, BPF_MOV64_REG(BPF_REG_3, BPF_REG_1));
	ktp_v_call_helper(c, BPF_FUNC_probe_read_kernel);
	ktp_emit(c, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_FP, KTP_V_SCRATCH));
	ktp_store(c, slot, BPF_REG_0);
}

/**
 * ktp_v_emit_null_split() - let a "t" probe's pointer move
 * @c: the compiler
 * @reg: the register holding a value ktp_v_is_ptr() says may be a pointer
 *
 * The verifier moves no pointer that may be NULL (every pointer argument
 * of a module's tracepoint) until it is tested: NULL goes on as the
 * number 0. Where the pointer cannot be NULL, the verifier drops the
 * test.
 */
void ktp_v_emit_null_split(struct ktp_compiler *c, int reg)
{
	if (!(c->env.flags & KTP_ENV_TPOINT))
		return;
	ktp_emit(c, BPF_JMP_IMM(BPF_JNE, reg, 0, 1));
	ktp_emit(c, BPF_MOV64_IMM(reg, 0));
}

/*
 * Argument @num of a "t" probe's tracepoint, from 1, into @reg: a number,
 * or a pointer the verifier types by the tracepoint's BTF prototype
 */
static void ktp_v_gen_tpoint_arg(struct ktp_compiler *c, unsigned int num,
				 int reg)
{
	ktp_v_tpoint_btf(c);
	ktp_emit(c, BPF_LDX_MEM(BPF_DW, reg, KTP_R_CTX, (num - 1) * 8));
}

/**
 * ktp_v_gen_field() - a field of an "e" probe's event record
 * @c: the compiler
 * @n: the field: an integer, or the address of a string to compare
 * @slot: where the value goes
 */
void ktp_v_gen_field(struct ktp_compiler *c, const struct ktp_node *n,
		     int slot)
{
	struct ftrace_event_field *field = (void *)(unsigned long)n->val;
	int reg = ktp_slot_is_reg(slot) ? ktp_slot_reg(slot) : BPF_REG_0;
	int off = field->offset;

	if (!is_string_field(field)) {
		ktp_emit(c, BPF_LDX_MEM(bytes_to_bpf_size(field->size), reg,
					KTP_R_CTX, off));
		ktp_emit_convert(c, reg, n->type);
		ktp_store(c, slot, reg);
		return;
	}
	switch (field->filter_type) {
	/* the record's address is the context, a pointer it stays */
	case FILTER_DYN_STRING:		/* rec + (loc & 0xffff) */
	case FILTER_RDYN_STRING:	/* the field's end + (loc & 0xffff) */
		ktp_emit(c, BPF_LDX_MEM(BPF_W, reg, KTP_R_CTX, off));
		ktp_emit(c, BPF_ALU64_IMM(BPF_AND, reg, 0xffff));
		ktp_emit(c, BPF_ALU64_REG(BPF_ADD, reg, KTP_R_CTX));
		if (field->filter_type == FILTER_RDYN_STRING)
			ktp_emit(c, BPF_ALU64_IMM(BPF_ADD, reg,
						  off + sizeof(u32)));
		break;
	case FILTER_PTR_STRING:
		ktp_emit(c, BPF_LDX_MEM(BPF_DW, reg, KTP_R_CTX, off));
		break;
	default:			/* a char array in the record */
		ktp_emit(c, BPF_MOV64_REG(reg, KTP_R_CTX));
		ktp_emit(c, BPF_ALU64_IMM(BPF_ADD, reg, off));
	}
	ktp_store(c, slot, reg);
}

/**
 * ktp_v_gen_arg() - $argN at a function's entry, or saved at its entry
 * @c: the compiler
 * @n: the argument
 * @slot: where the value goes
 */
void ktp_v_gen_arg(struct ktp_compiler *c, const struct ktp_node *n, int slot)
{
	int off;

	if (c->env.flags & KTP_ENV_TPOINT) {
		ktp_v_gen_tpoint_arg(c, n->param, ktp_slot_is_reg(slot) ?
				     ktp_slot_reg(slot) : BPF_REG_0);
		ktp_store(c, slot, ktp_slot_is_reg(slot) ? ktp_slot_reg(slot) :
			  BPF_REG_0);
		return;
	}
	if (c->env.flags & KTP_ENV_RETURN) {
		/* ktp_prog_run_verified() copied them before the program */
		ktp_v_area(c);
		ktp_emit(c, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1,
					(KTP_V_ENTRY + n->param - 1) * 8));
		ktp_store(c, slot, BPF_REG_0);
		return;
	}
	off = ktp_arg_reg_offset(n->param);
	if (off >= 0) {
		ktp_v_gen_reg(c, off, slot);
		return;
	}
	/* on the stack: the parser checked that it is found there */
	ktp_emit(c, BPF_LDX_MEM(BPF_DW, BPF_REG_0, KTP_R_CTX, ktp_sp_offset()));
	ktp_emit(c, BPF_ALU64_IMM(BPF_ADD, BPF_REG_0,
				  ktp_arg_stack_offset(n->param)));
	ktp_store(c, slot, BPF_REG_0);
	/* a user-space probe's function has its arguments on the user's stack */
	ktp_v_emit_read(c, slot, 0, 8, false, c->env.flags & KTP_ENV_USER,
			true, ktp_v_btf_ids[2], false);
	ktp_store(c, slot, BPF_REG_0);
}

/*
 * The first byte of a kernel string at the address in @slot, read
 * inline: where it is not 0 (which a fault reads too) and not the
 * literal's first byte, the compare is decided without the kfunc, which
 * copies the whole string. So is most of a false compare. Return: the
 * jump to after the kfunc's call, with its result in R0, or -1.
 */
static int ktp_v_emit_first_byte(struct ktp_compiler *c,
				 const struct ktp_node *n, int slot)
{
	const char *lit = (const char *)(unsigned long)n->val;
	u32 how = n->param & KTP_STR_OPS;
	int same, zero, done;

	/* a glob's first character may match more than itself */
	if (!c->jit || n->param & KTP_STR_USER || !lit[0] ||
	    (how == KTP_STR_GLOB && strchr("*?[\\", lit[0])))
		return -1;
	ktp_v_emit_cast(c, slot, ktp_v_btf_ids[2]);
	ktp_emit(c, BPF_LDX_MEM(BPF_B, BPF_REG_0, BPF_REG_0, 0));
	zero = ktp_jump(c, BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 0));
	same = ktp_jump(c, BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, (u8)lit[0], 0));
	ktp_emit(c, BPF_MOV64_IMM(BPF_REG_0, how == KTP_STR_NE));
	done = ktp_jump(c, BPF_JMP_A(0));
	ktp_land(c, zero);
	ktp_land(c, same);
	return done;
}

/**
 * ktp_v_gen_strcmp() - a string compared with a literal, by ktp_strcmp()
 * @c: the compiler
 * @n: the compare; its val is the literal
 * @slot: where the value goes
 */
void ktp_v_gen_strcmp(struct ktp_compiler *c, const struct ktp_node *n,
		      int slot)
{
	int ok, decided = -1;
	unsigned int lit;

	/* the verifier lets only JIT-compiled programs call kfuncs */
	if (!c->jit) {
		if (!c->error)
			c->error = -EOPNOTSUPP;
		return;
	}
	for (lit = 0; lit < c->nr_lits; lit++)
		if ((unsigned long)c->lits[lit] == n->val)
			break;
	if (n->param & KTP_STR_COMM) {
		ktp_emit(c, BPF_MOV64_IMM(BPF_REG_3, 0));
	} else {
		ktp_gen(c, n->l, slot);
		decided = ktp_v_emit_first_byte(c, n, slot);
		ktp_load_into(c, slot, BPF_REG_3);
	}
	ktp_v_emit_self(c);
	ktp_emit(c, BPF_MOV64_IMM(BPF_REG_4, lit));
	ktp_emit(c, BPF_MOV64_IMM(BPF_REG_5, n->param));
	ktp_v_call_kfunc(c, ktp_v_btf_ids[0]);
	/* -1: the string could not be read, a fault; the compare is false */
	ok = ktp_jump(c, BPF_JMP32_IMM(BPF_JSGE, BPF_REG_0, 0, 0));
	ktp_v_count_fault(c);
	ktp_emit(c, BPF_MOV64_IMM(BPF_REG_0, 0));
	ktp_land(c, ok);
	ktp_emit(c, BPF_MOV32_REG(BPF_REG_0, BPF_REG_0));
	ktp_land(c, decided);
	ktp_store(c, slot, BPF_REG_0);
}

/**
 * ktp_v_emit_area_lookup() - look up this CPU's value of ktp_area_map
 * @c: the compiler
 *
 * The address goes to R0 and to KTP_V_AREA on the stack.
 */
void ktp_v_emit_area_lookup(struct ktp_compiler *c)
{
	struct bpf_insn ld[2] = {
		BPF_LD_IMM64_RAW(BPF_REG_1, BPF_PSEUDO_MAP_IDX, KTP_V_MAP_AREA)
	};

	ktp_v_need_area_map(c);
	ktp_emit(c, BPF_ST_MEM(BPF_W, BPF_REG_FP, KTP_V_KEY, 0));
	ktp_emit(c, ld[0]);
	ktp_emit(c, ld[1]);
	ktp_emit(c, BPF_MOV64_REG(BPF_REG_2, BPF_REG_FP));
	ktp_emit(c, BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, KTP_V_KEY));
	ktp_v_call_helper(c, BPF_FUNC_map_lookup_elem);
	/* never NULL, key 0 of an array of one; the verifier asks */
	ktp_emit(c, BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 2));
	ktp_emit(c, BPF_MOV64_IMM(BPF_REG_0, 0));
	ktp_emit(c, BPF_EXIT_INSN());
	ktp_emit(c, BPF_STX_MEM(BPF_DW, BPF_REG_FP, BPF_REG_0, KTP_V_AREA));
}

/**
 * ktp_v_emit_level_area() - point KTP_V_AREA at the values of a level
 * @c: the compiler, whose program looked up ktp_area_map
 *
 * R0 holds the level of the "t" or "e" hit, from 0 to KTP_NEST_MAX - 1,
 * which a kfunc returned (see ktp_enter()); the mask is for the
 * verifier, which checks every store against the map's value.
 */
void ktp_v_emit_level_area(struct ktp_compiler *c)
{
	BUILD_BUG_ON(!is_power_of_2(KTP_NEST_MAX));
	ktp_emit(c, BPF_ALU64_IMM(BPF_AND, BPF_REG_0, KTP_NEST_MAX - 1));
	ktp_emit(c, BPF_ALU64_IMM(BPF_MUL, BPF_REG_0, KTP_LEVEL_WORDS * 8));
	ktp_v_area(c);
	ktp_emit(c, BPF_ALU64_REG(BPF_ADD, BPF_REG_1, BPF_REG_0));
	ktp_emit(c, BPF_ALU64_IMM(BPF_ADD, BPF_REG_1, KTP_AREA_LEVELS * 8));
	ktp_emit(c, BPF_STX_MEM(BPF_DW, BPF_REG_FP, BPF_REG_1, KTP_V_AREA));
	c->area_loaded = true;
}

/**
 * ktp_v_emit_tpoint_args() - copy a "t" probe's tracepoint arguments
 * @c: the compiler, whose program entered the hit at its level
 *
 * The fetch instructions that dereference $argN read them there.
 */
void ktp_v_emit_tpoint_args(struct ktp_compiler *c)
{
	unsigned int i;

	ktp_v_area(c);
	for (i = 1; i <= c->env.nr_args; i++) {
		ktp_v_gen_tpoint_arg(c, i, BPF_REG_0);
		ktp_emit(c, BPF_STX_MEM(BPF_DW, BPF_REG_1, BPF_REG_0,
					(i - 1) * 8));
	}
}

/**
 * ktp_v_emit_fetch() - store a fetched value in this CPU's area
 * @c: the compiler
 * @reg: the register holding it: slot 0's, callee-saved, which the
 *	 lookup's helper call keeps
 * @slot: its index among the fetched values
 */
void ktp_v_emit_fetch(struct ktp_compiler *c, int reg, unsigned int slot)
{
	/* a "t" probe's values follow the tracepoint's arguments */
	if (c->env.flags & KTP_ENV_TPOINT)
		slot += c->env.nr_args;
	if (!c->area_loaded && !c->nr_entry_args) {
		/* after the condition: a false one does not look it up */
		ktp_v_emit_area_lookup(c);
		c->area_loaded = true;
		/* R0 still holds what the lookup spilled */
		ktp_emit(c, BPF_STX_MEM(BPF_DW, BPF_REG_0, reg, slot * 8));
		return;
	}
	ktp_v_area(c);
	ktp_emit(c, BPF_STX_MEM(BPF_DW, BPF_REG_1, reg, slot * 8));
}

/*
 * A map made as @attr says, then frozen: bpf() cannot write it, through a
 * descriptor its id opens or any other; KTP's programs still do.
 */
static struct bpf_map *ktp_v_frozen_map(union bpf_attr *attr)
{
	struct bpf_map *map;
	int err;

	map = bpf_map_create_kern(attr);
	if (IS_ERR(map))
		return map;
	err = bpf_map_freeze_kern(map);
	if (err) {
		bpf_map_put_with_uref(map);
		return ERR_PTR(err);
	}
	return map;
}

/*
 * A "t" probe's program counts its false hits, and the reads of them that
 * faulted, in an array map of its own: this CPU's cache line of its one
 * value, two words, so that CPUs do not share a line.
 */
#define KTP_V_FALSE_SHIFT	max(L1_CACHE_SHIFT, 4)

static struct bpf_map *ktp_v_false_map(struct ktp_compiler *c)
{
	return ktp_v_one_value_map(c, &c->false_map, "ktp_false",
				   nr_cpu_ids << KTP_V_FALSE_SHIFT);
}

/**
 * ktp_v_emit_count_false() - count a "t" probe's false hit, with no call
 * @c: the compiler of a "t" probe's program
 *
 * The CPU number is the verifier's inline of bpf_get_smp_processor_id().
 * A plain increment: the program does not run twice at once on a CPU,
 * BPF counts a nested run as missed (see ktp_prog_missed()).
 */
void ktp_v_emit_count_false(struct ktp_compiler *c)
{
	/* the address of its value, at offset 0 */
	struct bpf_insn ld[2] = {
		BPF_LD_IMM64_RAW(BPF_REG_1, BPF_PSEUDO_MAP_IDX_VALUE,
				 KTP_V_MAP_FALSE)
	};
	int out;

	if (!ktp_v_false_map(c))
		return;
	ktp_v_call_helper(c, BPF_FUNC_get_smp_processor_id);
	out = ktp_jump(c, BPF_JMP_IMM(BPF_JGE, BPF_REG_0, nr_cpu_ids, 0));
	ktp_emit(c, BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, KTP_V_FALSE_SHIFT));
	ktp_emit(c, ld[0]);
	ktp_emit(c, ld[1]);
	ktp_emit(c, BPF_ALU64_REG(BPF_ADD, BPF_REG_1, BPF_REG_0));
	ktp_emit(c, BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, 0));
	ktp_emit(c, BPF_ALU64_IMM(BPF_ADD, BPF_REG_2, 1));
	ktp_emit(c, BPF_STX_MEM(BPF_DW, BPF_REG_1, BPF_REG_2, 0));
	if (c->has_faults) {
		ktp_emit(c, BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_FP,
					KTP_V_FAULTS));
		ktp_emit(c, BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_1, 8));
		ktp_emit(c, BPF_ALU64_REG(BPF_ADD, BPF_REG_3, BPF_REG_2));
		ktp_emit(c, BPF_STX_MEM(BPF_DW, BPF_REG_1, BPF_REG_3, 8));
	}
	ktp_land(c, out);
}

/**
 * ktp_prog_false_counts() - the false hits a "t" probe's program counted
 * @kp: the program
 * @hits: the false hits are added here
 * @faults: the reads of them that faulted are added here
 */
void ktp_prog_false_counts(const struct ktp_prog *kp, unsigned long *hits,
			   unsigned long *faults)
{
	const u64 *val;
	u64 addr;
	int cpu;

	/* its one value, as a program's BPF_PSEUDO_MAP_VALUE finds it */
	if (!kp->false_map ||
	    kp->false_map->ops->map_direct_value_addr(kp->false_map, &addr, 0))
		return;
	val = (const u64 *)(unsigned long)addr;
	for_each_possible_cpu(cpu) {
		const u64 *line = val + ((cpu << KTP_V_FALSE_SHIFT) / sizeof(u64));

		*hits += READ_ONCE(line[0]);
		*faults += READ_ONCE(line[1]);
	}
}

/**
 * ktp_v_take_false_map() - the map a program counts its false hits in
 * @c: the compiler, whose program was loaded
 *
 * Return: the map, whose references (bpf_map_create_kern()'s) the
 * program's struct ktp_prog takes over, or NULL if the program has none.
 */
struct bpf_map *ktp_v_take_false_map(struct ktp_compiler *c)
{
	struct bpf_map *map = c->false_map;

	c->false_map = NULL;
	return map;
}

/* The program's ends, see ktp_emit_exits(): (faults << 1) | true */
void ktp_v_emit_exit(struct ktp_compiler *c, bool truth)
{
	if (!c->has_faults) {
		ktp_emit(c, BPF_MOV64_IMM(BPF_REG_0, truth));
		ktp_emit(c, BPF_EXIT_INSN());
		return;
	}
	ktp_emit(c, BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_FP, KTP_V_FAULTS));
	ktp_emit(c, BPF_ALU64_IMM(BPF_LSH, BPF_REG_0, 1));
	if (truth)
		ktp_emit(c, BPF_ALU64_IMM(BPF_OR, BPF_REG_0, 1));
	ktp_emit(c, BPF_EXIT_INSN());
}

/*
 * The prologue, now that the code says what it needs, goes after the
 * first instruction (R6 = R1): no jump starts or lands before it.
 */
static int ktp_v_prologue(struct ktp_compiler *c)
{
	int i, len = c->len - 1;
	struct bpf_insn *body;

	body = kmemdup_array(c->insns + 1, len, sizeof(*body), GFP_KERNEL);
	if (!body)
		return -ENOMEM;
	c->len = 1;
	if (c->has_faults)
		ktp_emit(c, BPF_ST_MEM(BPF_DW, BPF_REG_FP, KTP_V_FAULTS, 0));
	if (c->nr_entry_args && c->env.flags & KTP_ENV_RETURN)
		ktp_v_emit_area_lookup(c);
	for (i = 0; i < len; i++)
		ktp_emit(c, body[i]);
	kfree(body);
	return c->error;
}

/*
 * ktp_area_map, made the first time a program needs it; it is KTP's for
 * good.
 */
static int ktp_v_area_map(void)
{
	union bpf_attr attr = {};
	struct bpf_map *map;

	lockdep_assert_held(&ktp_area_mutex);
	if (ktp_area_map)
		return 0;
	attr.map_type = BPF_MAP_TYPE_PERCPU_ARRAY;
	attr.key_size = sizeof(u32);
	attr.value_size = KTP_AREA_WORDS * sizeof(u64);
	attr.max_entries = 1;
	strscpy(attr.map_name, "ktp_area", sizeof(attr.map_name));
	map = ktp_v_frozen_map(&attr);
	if (IS_ERR(map))
		return PTR_ERR(map);
	ktp_area_map = map;
	WRITE_ONCE(ktp_prog_area, bpf_percpu_array_elem(map, 0));
	return 0;
}

/* bpf_attr's program name: ktp_ and the probe's, as far as it goes */
static void ktp_v_prog_name(char *name, const char *probe)
{
	int i;

	snprintf(name, BPF_OBJ_NAME_LEN, "ktp_%s", probe ?: "");
	/* a BPF object's name has alphanumerics, '_' and '.' only */
	for (i = 0; name[i]; i++)
		if (!isalnum(name[i]) && name[i] != '.')
			name[i] = '_';
}

/*
 * The program type of the probe's context, and for a "t" probe the BTF
 * type of its tracepoint and the BTF that has it, a module's or vmlinux's
 * (see ktp_btf_tpoint()).
 */
static int ktp_v_prog_type(struct ktp_compiler *c, union bpf_attr *attr,
			   struct bpf_prog_kern_attr *kattr)
{
	int err;

	if (c->env.flags & KTP_ENV_EVENT) {
		attr->prog_type = BPF_PROG_TYPE_TRACEPOINT;
		return 0;
	}
	if (!(c->env.flags & KTP_ENV_TPOINT)) {
		attr->prog_type = BPF_PROG_TYPE_KPROBE;
		return 0;
	}
	err = ktp_btf_tpoint(c);
	if (err)
		return err;
	if (btf_is_module(c->tp_btf))
		kattr->attach_btf = c->tp_btf;
	attr->prog_type = BPF_PROG_TYPE_TRACING;
	attr->expected_attach_type = BPF_TRACE_RAW_TP;
	attr->attach_btf_id = c->tp_btf_id;
	return 0;
}

/**
 * ktp_v_finish() - end a verified program and load it
 * @c: the compiler, its code complete
 *
 * Return: the program the verifier accepted, or an ERR_PTR(): -EPERM
 * for a writer without CAP_BPF and CAP_PERFMON, as for bpf().
 */
struct bpf_prog *ktp_v_finish(struct ktp_compiler *c)
{
	struct bpf_map *maps[KTP_V_NR_MAPS] = {};
	struct bpf_prog_kern_attr kattr = {
		.maps		= maps,
		.nr_maps	= KTP_V_NR_MAPS,
		.owner		= &ktp_kfunc_set,
	};
	union bpf_attr attr = {};
	struct bpf_prog *prog;
	int err;

	err = ktp_v_prologue(c);
	if (err)
		return ERR_PTR(err);
	err = ktp_v_prog_type(c, &attr, &kattr);
	if (err)
		return ERR_PTR(err);
	mutex_lock(&ktp_area_mutex);
	maps[KTP_V_MAP_AREA] = ktp_area_map;
	mutex_unlock(&ktp_area_mutex);
	maps[KTP_V_MAP_FALSE] = c->false_map;
	if (c->id)
		maps[KTP_V_MAP_SELF] = ktp_v_self_map(c);
	attr.insns = (unsigned long)c->insns;
	attr.insn_cnt = c->len;
	attr.license = (unsigned long)"GPL";
	ktp_v_prog_name(attr.prog_name, c->env.name);
	prog = bpf_prog_load_kern(&attr, &kattr);
	if (IS_ERR(prog)) {
		/*
		 * bpf()'s errno, as it is: the verifier's, an LSM's, ...
		 * But one only the kernel knows (past EHWPOISON, the last
		 * of user space's) says that the JIT the program was made
		 * for did not compile it: with the JIT still on, it failed
		 * for want of memory (x86's fails on nothing else); turned
		 * off since the compile, the program needs it, which a
		 * definition made with the JIT off is told by EOPNOTSUPP.
		 */
		err = PTR_ERR(prog);
		if (err < -EHWPOISON && c->jit)
			err = ebpf_jit_enabled() ? -ENOMEM : -EOPNOTSUPP;
		pr_debug("ktp: loading program %s failed: %d\n",
			 attr.prog_name, err);
		return ERR_PTR(err);
	}
	return prog;
}

/* Make ktp_area_map for the program being compiled, unless it is made */
static void ktp_v_need_area_map(struct ktp_compiler *c)
{
	int err;

	mutex_lock(&ktp_area_mutex);
	err = ktp_v_area_map();
	mutex_unlock(&ktp_area_mutex);
	if (err && !c->error)
		c->error = err;
}

/**
 * ktp_v_release() - what a verified compiler holds, let go
 * @c: the compiler
 */
void ktp_v_release(struct ktp_compiler *c)
{
	btf_put(c->tp_btf);
	c->tp_btf = NULL;
	if (c->false_map)
		bpf_map_put_with_uref(c->false_map);
	c->false_map = NULL;
	/* a loaded program holds it */
	if (c->self_map)
		bpf_map_put_with_uref(c->self_map);
	c->self_map = NULL;
}

/**
 * ktp_prog_run_verified() - run a program on one hit
 * @kp: the program
 * @ctx: the hit: its registers or its event's record, an "r" probe's
 *	 $argN saved at entry, and where the fetched values go
 *
 * Return: whether the condition holds; @ctx->faults counts the reads
 * that faulted.
 */
u32 ktp_prog_run_verified(const struct ktp_prog *kp, struct ktp_run_ctx *ctx)
{
	u64 ret;

	if (kp->on_record)
		return ktp_prog_run_on_record(kp, ctx);
	if (kp->nr_entry_args)
		memcpy(this_cpu_ptr(ktp_prog_area) + KTP_V_ENTRY, ctx->entry,
		       kp->nr_entry_args * sizeof(u64));
	ret = bpf_prog_run(kp->prog, ctx->regs);
	return ktp_prog_end_verified(kp, ctx, ret);
}

NOKPROBE_SYMBOL(ktp_prog_run_verified);

/**
 * ktp_prog_end_verified() - what a program returned, taken in
 * @kp: the program
 * @ctx: the hit
 * @ret: what the program returned: (faults << 1) | true
 *
 * Return: whether the condition holds; @ctx->faults counts the reads
 * that faulted, and @ctx->vals, unless NULL, has the values the program
 * fetched.
 */
u32 ktp_prog_end_verified(const struct ktp_prog *kp, struct ktp_run_ctx *ctx,
			  u64 ret)
{
	const u64 *vals;

	ctx->faults += ret >> 1;
	if (!(ret & 1))
		return 0;
	if (ctx->vals && kp->nr_vals) {
		vals = kp->on_record ?
		       ktp_level_vals(*ktp_event_level() & (KTP_NEST_MAX - 1)) :
		       this_cpu_ptr(ktp_prog_area);
		memcpy(ctx->vals, vals, kp->nr_vals * sizeof(u64));
	}
	return 1;
}

NOKPROBE_SYMBOL(ktp_prog_end_verified);
