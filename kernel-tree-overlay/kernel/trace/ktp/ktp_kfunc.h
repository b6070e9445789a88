/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What KTP's programs call besides BPF's helpers (ktp_kfunc.c): the ids
 * by which they name themselves to KTP's kfuncs, the kfuncs, and the
 * filter that lets only KTP's programs call them.
 */
#ifndef _KERNEL_TRACE_KTP_KFUNC_H
#define _KERNEL_TRACE_KTP_KFUNC_H

#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "ktp_tree.h"

/*
 * The programs that name themselves to KTP's kfuncs, by a slot of this
 * table and a map the program holds (see ktp_v_emit_self()), so that a
 * program that outlives its probe finds nothing once its slot holds
 * another program: no live program holds another's map.
 */
#define KTP_ID_SLOT_BITS	16
#define KTP_ID_SLOT_MASK	(BIT(KTP_ID_SLOT_BITS) - 1)

struct ktp_id_table {
	unsigned int		size;
	struct rcu_head		rcu;
	struct ktp_prog __rcu	*progs[];
};

extern struct ktp_id_table __rcu *ktp_id_table;

/**
 * ktp_prog_by_id() - the program that passed a kfunc its map and slot
 * @map: the map, which the verifier made sure the program holds
 * @id: the slot, an immediate of the program's code
 *
 * Called by KTP's kfuncs, under RCU as BPF programs run.
 *
 * Return: the program, or NULL if it is being freed.
 */
static __always_inline struct ktp_prog *ktp_prog_by_id(const void *map, u32 id)
{
	struct ktp_id_table *t = rcu_dereference_check(ktp_id_table,
						       rcu_read_lock_any_held());
	unsigned int slot = id & KTP_ID_SLOT_MASK;
	struct ktp_prog *kp;

	if (unlikely(!t || slot >= t->size))
		return NULL;
	kp = rcu_dereference_check(t->progs[slot], rcu_read_lock_any_held());
	return kp && kp->self_map == map ? kp : NULL;
}

/**
 * struct ktp_tp_hit - a "t" probe's hit that its program entered
 * @tk: the probe
 * @flags: where it is recorded: the probe's flags when it was entered
 * @level: the level of its values in ktp_area
 *
 * ktp_tp_enter() returns it, a reference the verifier makes the program
 * pass ktp_tp_record() on every path.
 */
struct ktp_tp_hit {
	struct trace_ktp	*tk;
	unsigned int		flags;
	int			level;
};

struct btf_id_set8;
int ktp_kfunc_filter(const struct bpf_prog *prog,
		     const struct btf_id_set8 *set, u32 kfunc_id);

/*
 * The first user read that faulted in this CPU's user-space probe
 * handler, which may page it in and run the hit again (ktp_uprobe.c):
 * @size bytes at @addr, or a string of at most @size bytes there. Only
 * that handler arms it; a read elsewhere notes nothing.
 */
struct ktp_user_fault {
	unsigned long	addr;
	unsigned int	size;
	bool		string;
	bool		armed;
};

DECLARE_PER_CPU(struct ktp_user_fault, ktp_user_fault);

static __always_inline void ktp_note_user_fault(unsigned long addr,
						unsigned int size, bool string)
{
	struct ktp_user_fault *f = this_cpu_ptr(&ktp_user_fault);

	if (f->armed && !f->addr) {
		f->addr = addr;
		f->size = size;
		f->string = string;
	}
}

/* What programs call, by BTF id: ktp_v_btf_ids[] */
enum {
	KTP_BTF_STRCMP,			/* ktp_strcmp() */
	KTP_BTF_RDONLY_CAST,		/* bpf_rdonly_cast() */
	KTP_BTF_USER_READ_FAULTED,	/* ktp_user_read_faulted() */
	KTP_NR_BTF_IDS
};

extern u32 ktp_v_btf_ids[];

/* What loads KTP's programs as their kern_owner: only they call the kfuncs */
extern const struct btf_kfunc_id_set ktp_kfunc_set;

int ktp_str_compare(unsigned long addr, const char *lit, u32 how);
int ktp_strcmp(void *self__map, u32 id, u64 addr, u32 lit, u32 how);
void ktp_user_read_faulted(u64 addr, u32 size);
struct bpf_map *ktp_v_self_map(struct ktp_compiler *c);
u32 ktp_v_id(struct ktp_compiler *c);
void ktp_v_emit_self(struct ktp_compiler *c);
void ktp_v_set_id(u32 id, struct ktp_prog *kp);
void ktp_v_free_id(u32 id);

#endif /* _KERNEL_TRACE_KTP_KFUNC_H */
