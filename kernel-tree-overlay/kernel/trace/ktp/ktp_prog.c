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
 * link. This file makes a program's frame (its prologue, where its
 * values go, its ends), loads it, and runs it where it cannot run
 * inline.
 */
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/filter.h>
#include <linux/kprobes.h>
#include <linux/slab.h>

#include "ktp_btf.h"
#include "ktp_emit.h"
#include "ktp_gen.h"
#include "ktp_kfunc.h"
#include "ktp_maps.h"
#include "ktp_prog.h"

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

/**
 * ktp_v_emit_exit() - end the program, see ktp_emit_exits()
 * @c: the compiler
 * @truth: whether the condition held: the program returns
 *	   (faults << 1) | @truth
 */
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
	attr->expected_attach_type = c->env.flags & KTP_ENV_TRAMP ?
				     BPF_TRACE_FENTRY : BPF_TRACE_RAW_TP;
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
	maps[KTP_V_MAP_AREA] = ktp_v_loaded_area_map();
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
