// SPDX-License-Identifier: GPL-2.0
/*
 * KTP's expression compiler: what its programs call besides BPF's
 * helpers. String compares call the kfunc ktp_strcmp(), with the literal
 * as an index into the probe's literals; a program names itself to the
 * kfuncs with an id in its one-value map (ktp_prog_by_id()). Only KTP's
 * programs may call KTP's kfuncs (ktp_kfunc_filter()).
 */
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/filter.h>
#include <linux/glob.h>
#include <linux/idr.h>
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "ktp_emit.h"
#include "ktp_kfunc.h"
#include "ktp_maps.h"

/* The programs that name themselves to KTP's kfuncs (ktp_prog_by_id()) */
struct ktp_id_table __rcu *ktp_id_table;
static DEFINE_IDA(ktp_id_slots);
static DEFINE_MUTEX(ktp_id_mutex);

/* The user read that faulted in a user-space probe's hit on this CPU */
DEFINE_PER_CPU(struct ktp_user_fault, ktp_user_fault);

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

BTF_ID_LIST_GLOBAL(ktp_v_btf_ids, KTP_NR_BTF_IDS)
BTF_ID(func, ktp_strcmp)
BTF_ID(func, bpf_rdonly_cast)
BTF_ID(func, ktp_user_read_faulted)

static int ktp_v_kfunc_filter(const struct bpf_prog *prog, u32 kfunc_id);

const struct btf_kfunc_id_set ktp_kfunc_set = {
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

	err = register_btf_kfunc_id_set(BPF_PROG_TYPE_KPROBE, &ktp_kfunc_set);
	/* tracepoint and BTF raw tracepoint programs: "e" and "t" probes */
	return err ?: register_btf_kfunc_id_set(BPF_PROG_TYPE_TRACING,
						&ktp_kfunc_set);
}
late_initcall(ktp_kfunc_init);

/**
 * ktp_str_compare() - compare a string with a literal, as a program asks
 * @addr: the string's address, unused for $comm
 * @lit: the literal
 * @how: KTP_STR_* flags, and the size of a char array field (0 for a
 *	 NUL-terminated string)
 *
 * Return: 1 if the compare holds, 0 if not, -1 if the string could not
 * be read.
 */
int ktp_str_compare(unsigned long addr, const char *lit, u32 how)
{
	unsigned int len = (how >> KTP_STR_LEN_SHIFT) & (KTP_EXPR_STR_MAX - 1);
	char buf[KTP_EXPR_STR_MAX];
	bool match;
	long ret;

	if (how & KTP_STR_COMM) {
		/* as $comm fetches it: no task_lock() in a probe */
		memcpy(buf, current->comm, TASK_COMM_LEN);
		buf[TASK_COMM_LEN - 1] = '\0';
	} else {
		void __user *uaddr = (void __user *)addr;

		if (how & KTP_STR_USER) {
			ret = len ? copy_from_user_nofault(buf, uaddr, len) :
			      strncpy_from_user_nofault(buf, uaddr, sizeof(buf));
			if (ret < 0)
				ktp_note_user_fault(addr, len ?: sizeof(buf),
						    !len);
		} else if (len) {
			ret = copy_from_kernel_nofault(buf, (void *)addr, len);
		} else {
			ret = strncpy_from_kernel_nofault(buf, (void *)addr,
							  sizeof(buf));
		}
		if (ret < 0)
			return -1;
		buf[len ?: sizeof(buf) - 1] = '\0';
	}
	if ((how & KTP_STR_OPS) == KTP_STR_GLOB)
		return glob_match(lit, buf);
	match = !strcmp(buf, lit);
	return (how & KTP_STR_OPS) == KTP_STR_EQ ? match : !match;
}

NOKPROBE_SYMBOL(ktp_str_compare);
