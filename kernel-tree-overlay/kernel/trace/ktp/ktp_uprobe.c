// SPDX-License-Identifier: GPL-2.0
/*
 * KTP: "p" and "r" probes on user space, PATH:OFFSET[(REF)], as uprobe
 * events name them. The probe's program is a BPF kprobe program on the
 * user's registers, as a BPF uprobe program is; its reads of memory are
 * reads of user memory but for what it reads from current, and its
 * values go to a level of ktp_area, as those of an "e" probe's program
 * do. A uprobe is registered on the file's inode, with its reference
 * counter (a USDT semaphore) at REF, while the probe is enabled.
 *
 * A hit whose read of user memory faults on a page that is not resident
 * is finished as the task returns to user space, from task_work: the
 * uprobe handler runs under rcu_read_lock_trace(), whose grace periods
 * every tracepoint and uprobe unregistration waits for, and a page-in
 * may wait as long as the probed process chooses (a userfaultfd nobody
 * serves, a FUSE daemon that does not answer).
 */
#include <linux/elf.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/pagemap.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/uprobes.h>
#include <linux/xarray.h>

#include "../trace_probe.h"
#include "ktp_probe.h"
#include "ktp_hit.h"
#include "trace_ktp.h"
#include "ktp_regs.h"

/*
 * Is @offset in an executable segment of the file at @path, if it is a
 * 64-bit ELF file? The breakpoint of a uprobe at any other offset would
 * be written into the data a program maps there, in every mapping that
 * may be executable. True where the file cannot tell: not ELF, not
 * readable.
 */
static bool ktp_uprobe_in_text(const struct path *path, unsigned long offset)
{
	struct elf64_phdr ph;
	struct elf64_hdr eh;
	struct file *file;
	bool ret = true;
	loff_t pos = 0;
	int i;

	file = dentry_open(path, O_RDONLY, current_cred());
	if (IS_ERR(file))
		return true;
	if (kernel_read(file, &eh, sizeof(eh), &pos) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(ph))
		goto out;
	for (i = 0; i < eh.e_phnum; i++) {
		pos = eh.e_phoff + i * sizeof(ph);
		if (kernel_read(file, &ph, sizeof(ph), &pos) != sizeof(ph))
			goto out;
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
		    offset >= ph.p_offset &&
		    offset < ph.p_offset + ph.p_filesz)
			goto out;
	}
	ret = false;
out:
	fput(file);
	return ret;
}

/* A user-space probe's target, and its uprobe while it is enabled */
struct ktp_uprobe {
	struct trace_uprobe_target	where;
	char				*target;	/* PATH:0xOFFSET[(0xREF)] */
	char				*event;		/* the default name */
	struct uprobe_consumer		uc;
	struct uprobe			*uprobe;
	struct trace_ktp		*tk;
	unsigned long			live;		/* in ktp_uprobes_live */
	bool				is_return;	/* an "r" probe */
	bool				prefetch;	/* its record reads user memory */
};

/*
 * The enabled probes, by a number each enable takes and none takes
 * again (on 64-bit): where a hit finished late finds its probe, if it is
 * still enabled, under rcu_read_lock(); a disable waits for it with
 * synchronize_rcu().
 */
static DEFINE_XARRAY(ktp_uprobes_live);
static atomic_long_t ktp_uprobes_enabled;

static int ktp_uprobe_parse_target(struct ktp_target *t, const char *arg,
				   int *nargs,
				   struct traceprobe_parse_context *ctx)
{
	struct ktp_uprobe *up;
	struct inode *inode;
	int ret;

	up = kzalloc(sizeof(*up), GFP_KERNEL);
	if (!up)
		return -ENOMEM;
	t->ref = up;
	ret = trace_probe_parse_uprobe_target(arg, &up->where);
	if (ret)
		return ret;
	/* "r" is the letter of a return probe; PATH:OFFSET%return is not */
	if (up->where.is_return) {
		trace_probe_log_err(strchr(arg, '%') - arg, BAD_ADDR_SUFFIX);
		return -EINVAL;
	}
	/* uprobe_register() would refuse it only when the probe is enabled */
	inode = d_real_inode(up->where.path.dentry);
	if (up->where.offset > i_size_read(inode)) {
		trace_probe_log_err(strrchr(arg, ':') + 1 - arg,
				    BAD_UPROBE_OFFS);
		return -EINVAL;
	}
	if (!ktp_uprobe_in_text(&up->where.path, up->where.offset)) {
		trace_probe_log_err(strrchr(arg, ':') + 1 - arg,
				    BAD_UPROBE_OFFS);
		return -EINVAL;
	}
	/* a semaphore is a short in the file, which it must be within */
	if (up->where.ref_ctr_offset &&
	    (up->where.ref_ctr_offset + sizeof(short) > i_size_read(inode) ||
	     !IS_ALIGNED(up->where.ref_ctr_offset, sizeof(short)))) {
		trace_probe_log_err(strrchr(arg, '(') + 1 - arg, BAD_REFCNT);
		return -EINVAL;
	}
	if (up->where.ref_ctr_offset)
		up->target = kasprintf(GFP_KERNEL, "%s:0x%lx(0x%lx)",
				       up->where.filename, up->where.offset,
				       up->where.ref_ctr_offset);
	else
		up->target = kasprintf(GFP_KERNEL, "%s:0x%lx",
				       up->where.filename, up->where.offset);
	/* as uprobe events name theirs: p_BASENAME_0xOFFSET */
	up->event = kasprintf(GFP_KERNEL, "%c_%.*s_0x%lx", t->type,
			      (int)strcspn(kbasename(up->where.filename), ".-_"),
			      kbasename(up->where.filename), up->where.offset);
	if (!up->target || !up->event)
		return -ENOMEM;
	/* a uprobe's fetch arguments, see ktp_uprobe_arg_flags() */
	up->is_return = t->type == 'r';
	ctx->flags &= ~TPARG_FL_KERNEL;
	ctx->flags |= TPARG_FL_USER | (up->is_return ? TPARG_FL_RETURN : 0);
	return 0;
}

/*
 * trace_probe.c parses a fetch argument of a user-space probe as uprobe
 * events parse theirs; but for "p", one with $argN as a kprobe's at a
 * function's entry, whose $argN are in the same registers (uprobe events
 * have none). ktp_uprobe_fetch_arg() makes its reads of memory reads of
 * user memory.
 */
static unsigned int ktp_uprobe_arg_flags(struct trace_ktp *tk,
					 const char *arg, unsigned int flags)
{
	struct ktp_uprobe *up = tk->ref;

	if (up->is_return || !strstr(arg, "$arg"))
		return flags;
	return (flags & ~TPARG_FL_USER) | TPARG_FL_KERNEL | TPARG_FL_FENTRY;
}

static void ktp_uprobe_put(void *ref)
{
	struct ktp_uprobe *up = ref;

	trace_probe_put_uprobe_target(&up->where);
	kfree(up->event);
	kfree(up->target);
	kfree(up);
}

static const char *ktp_uprobe_event_name(void *ref)
{
	return ((struct ktp_uprobe *)ref)->event;
}

static char ktp_uprobe_def_letter(void *ref)
{
	return ((struct ktp_uprobe *)ref)->is_return ? 'r' : 'p';
}

static char *ktp_uprobe_target_name(void *ref)
{
	return kstrdup(((struct ktp_uprobe *)ref)->target, GFP_KERNEL);
}

static void ktp_uprobe_print_target(struct trace_seq *s, void *ref)
{
	trace_seq_puts(s, ((struct ktp_uprobe *)ref)->target);
}

static void ktp_uprobe_init(struct trace_ktp *tk)
{
	((struct ktp_uprobe *)tk->ref)->tk = tk;
}

/*
 * A word on the user's stack, @off bytes above its pointer, in place of
 * the instruction @at of @parg's code: the register, then a read of user
 * memory, one instruction more. Returns the read, or NULL.
 */
static struct fetch_insn *ktp_uprobe_stack_word(struct probe_arg *parg,
						struct fetch_insn *at, int off)
{
	int i = at - parg->code, len = i + 1;
	struct fetch_insn *code;

	while (parg->code[len - 1].op != FETCH_OP_END)
		len++;
	code = kcalloc(len + 1, sizeof(*code), GFP_KERNEL);
	if (!code)
		return NULL;
	memcpy(code, parg->code, i * sizeof(*code));
	code[i].op = FETCH_OP_REG;
	code[i].param = offsetof(struct pt_regs, sp);
	code[i + 1].op = FETCH_OP_UDEREF;
	code[i + 1].offset = off;
	memcpy(code + i + 2, parg->code + i + 1, (len - i - 1) * sizeof(*code));
	kfree(parg->code);
	parg->code = code;
	return code + i + 1;
}

/* Is @code, of @parg, the store of $comm's or an immediate's string? */
static bool ktp_uprobe_kernel_string(const struct probe_arg *parg,
				     const struct fetch_insn *code)
{
	return code == parg->code + 1 &&
	       (parg->code[0].op == FETCH_OP_COMM ||
		parg->code[0].op == FETCH_OP_DATA);
}

/*
 * A kprobe_events fetch argument of a user-space probe reads user memory
 * as uprobe events' do, and the user's stack: $stack is the user's stack
 * pointer, $stackN and the $argN past the registers words on the user's
 * stack, where the kernel's would read the kernel's. A kernel symbol
 * (@SYM) is refused.
 */
static int ktp_uprobe_fetch_arg(struct trace_ktp *tk, struct probe_arg *parg)
{
	struct fetch_insn *code;
	int off;

	for (code = parg->code; code->op != FETCH_OP_END; code++) {
		switch (code->op) {
		case FETCH_NOP_SYMBOL:
			trace_probe_log_err(0, SYM_ON_UPROBE);
			return -EINVAL;
		case FETCH_OP_DEREF:
			code->op = FETCH_OP_UDEREF;
			break;
		case FETCH_OP_ST_STRING:
			/* $comm's and "imm"'s are the kernel's */
			if (!ktp_uprobe_kernel_string(parg, code))
				code->op = FETCH_OP_ST_USTRING;
			break;
		case FETCH_OP_ST_MEM:
			code->op = FETCH_OP_ST_UMEM;
			break;
		case FETCH_OP_STACKP:
			code->op = FETCH_OP_REG;
			code->param = offsetof(struct pt_regs, sp);
			break;
		case FETCH_OP_STACK:
			code = ktp_uprobe_stack_word(parg, code, code->param *
						     sizeof(unsigned long));
			if (!code)
				return -ENOMEM;
			break;
		case FETCH_OP_ARG:
			/* an argument the calling convention puts on the stack */
			if (ktp_arg_reg_offset(code->param + 1) >= 0)
				break;
			off = ktp_arg_stack_offset(code->param + 1);
			if (off < 0) {
				trace_probe_log_err(0, KTP_EXPR_NOT_HERE);
				return -EINVAL;
			}
			code = ktp_uprobe_stack_word(parg, code, off);
			if (!code)
				return -ENOMEM;
			break;
		default:
			break;
		}
	}
	return 0;
}

static int ktp_uprobe_set_env(struct trace_ktp *tk, struct ktp_expr_env *env)
{
	struct ktp_uprobe *up = tk->ref;

	/*
	 * $argN: the registers of the C calling convention, which hold the
	 * arguments at a function's entry (where the definition says the
	 * offset is); "r": $retval, and no $argN.
	 */
	env->flags = KTP_ENV_USER |
		     (up->is_return ? KTP_ENV_RETURN : KTP_ENV_FENTRY);
	return 0;
}

/*
 * How many times a hit may page in a user read that faulted and run
 * again: a string may cross a page, and each read of a chain (p->q->s)
 * may fault on a page of its own.
 */
#define KTP_UPROBE_PAGE_INS	4

/*
 * One run of a hit, with preemption disabled: the program and the
 * record, at a level of ktp_area as the handlers of "t" and "e" probes
 * run them. Unless @last, a user read that faults stops it before
 * anything is counted or recorded, and its address is left in @fault:
 * the return is true.
 */
static bool ktp_uprobe_run(struct ktp_uprobe *up, struct pt_regs *regs,
			   unsigned long file_base, bool last,
			   struct ktp_user_fault *fault)
{
	struct ktp_user_fault *noted = this_cpu_ptr(&ktp_user_fault);
	struct trace_ktp *tk = up->tk;
	struct ktp_run_ctx ctx = { .regs = regs };
	struct ktp_counters *counters;
	unsigned int flags;
	void *edata = NULL;
	u64 *word, old;
	int level;
	bool ret;

	flags = trace_probe_load_flag(&tk->tp);
	if (!(flags & (TP_FLAG_TRACE | TP_FLAG_PROFILE)))
		return false;
	counters = this_cpu_ptr(tk->counters);
	level = ktp_enter(counters);
	if (level < 0)
		return false;
	noted->addr = 0;
	noted->armed = !last;
	this_cpu_write(ktp_user_file_base, file_base);
	if (tk->prog) {
		word = ktp_event_level();
		old = READ_ONCE(*word);
		WRITE_ONCE(*word, level);
		ret = ktp_prog_run(tk->prog, &ctx);
		WRITE_ONCE(*word, old);
		/* a condition false for a read that faulted is not known */
		if (noted->addr)
			goto page_in;
		if (!ktp_count_run(counters, &ctx, ret)) {
			ktp_leave(counters);
			goto out;
		}
		edata = ktp_level_vals(level);
	}
	if (up->prefetch && !last) {
		ktp_prefetch_args(tk, regs, edata);
		if (noted->addr)
			goto page_in;
	}
	noted->armed = false;
	ktp_exit(counters, ktp_record_all_event(tk, flags, regs, edata));
out:
	noted->armed = false;
	return false;
page_in:
	*fault = *noted;
	noted->armed = false;
	ktp_leave(counters);
	return true;
}

/* Page in what a user read faulted on; false if it is not mapped */
static bool ktp_uprobe_page_in(const struct ktp_user_fault *fault)
{
	const char __user *uaddr = (const char __user *)fault->addr;

	if (fault->string)
		return strnlen_user(uaddr, fault->size) > 0;
	return !fault_in_readable(uaddr, fault->size);
}

/* A hit whose user read faulted, to finish as the task leaves the kernel */
struct ktp_uprobe_late {
	struct callback_head	work;
	struct pt_regs		regs;		/* the hit's */
	unsigned long		file_base;
	unsigned long		live;		/* its probe's, see ktp_uprobes_live */
	struct ktp_user_fault	fault;
};

/*
 * Page in what the hit's read faulted on, with nothing held: only this
 * task waits for it. Then run the hit again, if its probe is still
 * enabled, on the registers it had; until a run needs no page-in, or one
 * that could not page in reads 0 and counts a fault.
 */
static void ktp_uprobe_finish_late(struct callback_head *work)
{
	struct ktp_uprobe_late *late = container_of(work, typeof(*late), work);
	struct ktp_uprobe *up;
	bool last = false, again = true;
	int tries;

	for (tries = 1; again; tries++) {
		/* at the task's exit, its memory gone: what faulted reads 0 */
		if (!current->mm || !ktp_uprobe_page_in(&late->fault) ||
		    tries == KTP_UPROBE_PAGE_INS)
			last = true;
		rcu_read_lock();
		up = xa_load(&ktp_uprobes_live, late->live);
		preempt_disable();
		again = up && ktp_uprobe_run(up, &late->regs, late->file_base,
					     last, &late->fault);
		preempt_enable();
		rcu_read_unlock();
	}
	kfree(late);
}

/*
 * A hit at @bp_vaddr, the breakpoint's address. A user read that faults
 * on a page that is not resident is paged in, as a sleepable BPF
 * program's bpf_copy_from_user() would, but later: the hit is finished
 * from task_work, as the task returns to user space, on a copy of its
 * registers (see ktp_uprobe_finish_late()). Until then nothing of it is
 * recorded or counted. One of an address that is not mapped reads 0 and
 * counts in "faults".
 */
static int ktp_uprobe_hit(struct ktp_uprobe *up, struct pt_regs *regs,
			  unsigned long bp_vaddr)
{
	unsigned long file_base = bp_vaddr - up->where.offset;
	struct ktp_uprobe_late *late;
	struct ktp_user_fault fault;
	bool again;

	preempt_disable();
	again = ktp_uprobe_run(up, regs, file_base, false, &fault);
	preempt_enable();
	if (!again)
		return 0;

	late = kmalloc(sizeof(*late), GFP_NOWAIT | __GFP_NOWARN);
	if (late) {
		init_task_work(&late->work, ktp_uprobe_finish_late);
		late->regs = *regs;
		late->file_base = file_base;
		late->live = up->live;
		late->fault = fault;
		if (!task_work_add(current, &late->work, TWA_RESUME))
			return 0;
		kfree(late);	/* the task is exiting */
	}
	/* no room to finish it later: what faulted reads 0 */
	preempt_disable();
	ktp_uprobe_run(up, regs, file_base, true, &fault);
	preempt_enable();
	return 0;
}

/* At the breakpoint, the instruction pointer is its address */
static int ktp_uprobe_handler(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	return ktp_uprobe_hit(container_of(uc, struct ktp_uprobe, uc), regs,
			      instruction_pointer(regs));
}

static int ktp_uprobe_ret_handler(struct uprobe_consumer *uc,
				  unsigned long func, struct pt_regs *regs)
{
	return ktp_uprobe_hit(container_of(uc, struct ktp_uprobe, uc), regs,
			      func);
}

/*
 * Does the probe's record read memory? What it reads is user memory: a
 * string of a C expression is read as a string at a user address is.
 */
static bool ktp_uprobe_record_reads_user(struct trace_ktp *tk)
{
	struct fetch_insn *code;
	int i;

	for (i = 0; i < tk->tp.nr_args; i++) {
		for (code = tk->tp.args[i].code; code->op != FETCH_OP_END;
		     code++) {
			switch (code->op) {
			case FETCH_OP_ST_STRING:
				if (ktp_uprobe_kernel_string(&tk->tp.args[i],
							     code))
					break;
				return true;
			case FETCH_OP_DEREF:
			case FETCH_OP_UDEREF:
			case FETCH_OP_ST_USTRING:
			case FETCH_OP_ST_MEM:
			case FETCH_OP_ST_UMEM:
				return true;
			default:
				break;
			}
		}
	}
	return false;
}

/* The uprobe, and the semaphore at REF raised, while the probe is enabled */
static int ktp_uprobe_enable(struct trace_ktp *tk,
			     struct trace_event_file *file, bool first)
{
	struct ktp_uprobe *up = tk->ref;
	struct uprobe *uprobe;
	int ret;

	if (!first)
		return 0;
	up->live = atomic_long_inc_return(&ktp_uprobes_enabled);
	ret = xa_insert(&ktp_uprobes_live, up->live, up, GFP_KERNEL);
	if (ret)
		return ret;
	up->prefetch = ktp_uprobe_record_reads_user(tk);
	if (up->is_return)
		up->uc.ret_handler = ktp_uprobe_ret_handler;
	else
		up->uc.handler = ktp_uprobe_handler;
	uprobe = uprobe_register(d_real_inode(up->where.path.dentry),
				 up->where.offset, up->where.ref_ctr_offset,
				 &up->uc);
	if (IS_ERR(uprobe)) {
		xa_erase(&ktp_uprobes_live, up->live);
		return PTR_ERR(uprobe);
	}
	up->uprobe = uprobe;
	return 0;
}

static void ktp_uprobe_disable(struct trace_ktp *tk,
			       struct trace_event_file *file, bool last)
{
	struct ktp_uprobe *up = tk->ref;

	if (!last || !up->uprobe)
		return;
	/* a hit finished late finds the probe no more */
	xa_erase(&ktp_uprobes_live, up->live);
	uprobe_unregister_nosync(up->uprobe, &up->uc);
	/* no handler, and no hit finished late, runs once these return */
	uprobe_unregister_sync();
	synchronize_rcu();
	up->uprobe = NULL;
}

static const struct ktp_kind ktp_uprobe_kind = {
	.letter		= 'p',
	.parse_target	= ktp_uprobe_parse_target,
	.put_ref	= ktp_uprobe_put,
	.event_name	= ktp_uprobe_event_name,
	.target_name	= ktp_uprobe_target_name,
	.print_target	= ktp_uprobe_print_target,
	.def_letter	= ktp_uprobe_def_letter,
	.init		= ktp_uprobe_init,
	.arg_flags	= ktp_uprobe_arg_flags,
	.fetch_arg	= ktp_uprobe_fetch_arg,
	.set_env	= ktp_uprobe_set_env,
	.enable		= ktp_uprobe_enable,
	.disable	= ktp_uprobe_disable,
};

/* The kind of "p" and "r" definitions on PATH:OFFSET */
static int __init ktp_uprobe_init_kind(void)
{
	return ktp_register_user_kind(&ktp_uprobe_kind);
}
late_initcall(ktp_uprobe_init_kind);
