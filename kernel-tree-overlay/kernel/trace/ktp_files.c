// SPDX-License-Identifier: GPL-2.0
/*
 * KTP's tracefs files: ktp_probes, where definitions are written and
 * read back, ktp_profile, the counters of each probe, and ktp_programs,
 * the program of each probe; and a probe's line in dynamic_events.
 */
#include <linux/bpf.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/tracefs.h>
#include <linux/u64_stats_sync.h>

#include "trace_dynevent.h"
#include "trace_probe.h"
#include "trace_ktp.h"
#include "ktp_expr.h"

/* Is @word the fetch argument @i, as ktp_show_def() writes it? */
static bool ktp_arg_is(struct trace_ktp *tk, int i, const char *word)
{
	const struct probe_arg *arg = &tk->tp.args[i];
	size_t len = strlen(arg->name);

	if (tk->exprs && tk->exprs[i])
		return !strcmp(word, tk->exprs[i]);
	return !strncmp(word, arg->name, len) && word[len] == '=' &&
	       !strcmp(word + len + 1, arg->comm);
}

/* Whether @arg is the address a probe was defined on (it shows SYM+OFFS) */
static bool ktp_addr_is(struct trace_ktp *tk, const char *arg)
{
	unsigned long addr;

	return tk->addr && !kstrtoul(arg, 0, &addr) && addr == tk->addr;
}

/**
 * ktp_dyn_match - does a probe match a removal in dynamic_events?
 * @system: the group named, or NULL
 * @event: the event named, or ""
 * @argc: how many words of the definition follow
 * @argv: the words: the target, the fetch arguments and the condition
 * @ev: the probe
 *
 * Return: true if @ev is the probe named and each word given is its own.
 */
bool ktp_dyn_match(const char *system, const char *event, int argc,
		   const char **argv, struct dyn_event *ev)
{
	struct trace_ktp *tk = to_trace_ktp(ev);
	int i;

	if (event[0] != '\0' && strcmp(trace_probe_name(&tk->tp), event))
		return false;
	if (system && strcmp(trace_probe_group_name(&tk->tp), system))
		return false;
	if (!argc)
		return true;

	if (strcmp(tk->target, argv[0]) && !ktp_addr_is(tk, argv[0]))
		return false;
	/* each argument as ktp_show_def() writes it, then the condition */
	for (i = 1; i < argc; i++) {
		if (i - 1 < tk->tp.nr_args) {
			if (!ktp_arg_is(tk, i - 1, argv[i]))
				return false;
		} else if (tk->cond && !strcmp(argv[i], "if") && i + 1 < argc) {
			char *cond = ktp_join_cond(argc - i - 1, argv + i + 1);
			bool match = cond && !strcmp(cond, tk->cond);

			kfree(cond);
			return match;
		} else {
			return false;
		}
	}
	return !tk->cond;
}

/* The definition of @tk, as ktp_probes shows it */
static void ktp_show_def(struct seq_file *m, struct trace_ktp *tk)
{
	int i;

	seq_putc(m, ktp_is_event(tk) ? 'e' : ktp_is_tpoint(tk) ? 't' :
		 ktp_is_return(tk) ? 'r' : 'p');
	if (tk->maxactive)
		seq_printf(m, "%u", tk->maxactive);
	seq_printf(m, ":%s/%s %s", trace_probe_group_name(&tk->tp),
		   trace_probe_name(&tk->tp), tk->target);
	for (i = 0; i < tk->tp.nr_args; i++) {
		if (tk->exprs && tk->exprs[i])
			seq_printf(m, " %s", tk->exprs[i]);
		else
			seq_printf(m, " %s=%s", tk->tp.args[i].name,
				   tk->tp.args[i].comm);
	}
	if (tk->cond)
		seq_printf(m, " if %s", tk->cond);
	seq_putc(m, '\n');
}

/**
 * ktp_dyn_show - a probe's line in dynamic_events
 * @m: the seq_file of dynamic_events
 * @ev: the probe
 *
 * The line is KTP_DYN_PREFIX and the definition, see ktp_dyn_create().
 *
 * Return: 0.
 */
int ktp_dyn_show(struct seq_file *m, struct dyn_event *ev)
{
	seq_puts(m, KTP_DYN_PREFIX);
	ktp_show_def(m, to_trace_ktp(ev));
	return 0;
}

static ssize_t ktp_probes_write(struct file *file, const char __user *buffer,
				size_t count, loff_t *ppos)
{
	return trace_parse_run_command(file, buffer, count, ppos,
				       ktp_create_or_delete);
}

/* How the probe's program runs, as ktp_profile and ktp_programs say */
static void ktp_show_prog_mode(struct seq_file *m, struct trace_ktp *tk)
{
	const struct bpf_prog *fp;

	if (!tk->prog) {
		seq_puts(m, "cond=none");
		return;
	}
	fp = tk->prog->prog;
	seq_printf(m, "cond=%s insns=%u size=%u", fp->jited ? "jit" : "interp",
		   fp->len, fp->jited ? fp->jited_len : 0);
}

/* Hits of a 't' probe while it ran on the same CPU (bpf_prog->active) */
static unsigned long ktp_prog_missed(const struct bpf_prog *fp)
{
	const struct bpf_prog_stats *st;
	unsigned long missed = 0;
	unsigned int start;
	u64 n;
	int cpu;

	for_each_possible_cpu(cpu) {
		st = per_cpu_ptr(fp->stats, cpu);
		do {
			start = u64_stats_fetch_begin(&st->syncp);
			n = u64_stats_read(&st->misses);
		} while (u64_stats_fetch_retry(&st->syncp, start));
		missed += n;
	}
	return missed;
}

/* A probe's line in ktp_profile */
static void ktp_show_profile(struct seq_file *m, struct trace_ktp *tk)
{
	unsigned long hits, recorded = 0, cond_false = 0, dropped = 0, missed;
	unsigned long faults = 0;
	int cpu;

	/*
	 * A hit kprobes missed never reached the handler, nor one the BPF
	 * raw tracepoint missed the program: count them here.
	 */
	missed = tk->rp.kp.nmissed + tk->rp.nmissed;
	if (ktp_is_tpoint(tk))
		missed += ktp_prog_missed(tk->prog->prog);
	for_each_possible_cpu(cpu) {
		struct ktp_counters *c = per_cpu_ptr(tk->counters, cpu);

		recorded += local_read(&c->recorded);
		cond_false += local_read(&c->cond_false);
		missed += local_read(&c->missed);
		dropped += local_read(&c->dropped);
		faults += local_read(&c->faults);
	}
	hits = recorded + cond_false + missed + dropped;
	seq_printf(m, "%s/%s hits=%lu recorded=%lu cond_false=%lu missed=%lu dropped=%lu faults=%lu ",
		   trace_probe_group_name(&tk->tp), trace_probe_name(&tk->tp),
		   hits, recorded, cond_false, missed, dropped, faults);
	ktp_show_prog_mode(m, tk);
	seq_putc(m, '\n');
}

/*
 * A probe's program: its id and tag, by which bpftool shows it ("bpftool
 * prog dump xlated id N")
 */
static void ktp_show_program(struct seq_file *m, struct trace_ktp *tk)
{
	const struct bpf_prog *fp;

	seq_printf(m, "%s/%s ", trace_probe_group_name(&tk->tp),
		   trace_probe_name(&tk->tp));
	ktp_show_prog_mode(m, tk);
	seq_putc(m, '\n');
	if (!tk->prog)
		return;
	fp = tk->prog->prog;
	seq_printf(m, "  id %u tag %*phN\n", fp->aux->id, BPF_TAG_SIZE, fp->tag);
}

/*
 * ktp_probes, ktp_profile and ktp_programs each list the KTP probes:
 * what a file shows of one is the seq_file's private data.
 */
struct ktp_list_file {
	void (*show)(struct seq_file *m, struct trace_ktp *tk);
};

static const struct ktp_list_file ktp_probes_file = { ktp_show_def };
static const struct ktp_list_file ktp_profile_file = { ktp_show_profile };
static const struct ktp_list_file ktp_programs_file = { ktp_show_program };

static int ktp_list_seq_show(struct seq_file *m, void *v)
{
	const struct ktp_list_file *list = m->private;
	struct dyn_event *ev = v;

	if (ev->ops == &ktp_dyn_ops)
		list->show(m, to_trace_ktp(ev));
	return 0;
}

static const struct seq_operations ktp_list_seq_ops = {
	.start	= dyn_event_seq_start,
	.next	= dyn_event_seq_next,
	.stop	= dyn_event_seq_stop,
	.show	= ktp_list_seq_show,
};

/* Only ktp_probes, the file written, is emptied by O_TRUNC. */
static int ktp_list_open(struct inode *inode, struct file *file)
{
	struct seq_file *m;
	int ret;

	if (file->f_op->write)
		ret = dyn_events_open(file, &ktp_dyn_ops, &ktp_list_seq_ops);
	else
		ret = security_locked_down(LOCKDOWN_TRACEFS) ?:
		      seq_open(file, &ktp_list_seq_ops);
	if (ret)
		return ret;
	m = file->private_data;
	m->private = inode->i_private;
	return 0;
}

static const struct file_operations ktp_probes_fops = {
	.open		= ktp_list_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= seq_release,
	.write		= ktp_probes_write,
};

static const struct file_operations ktp_list_fops = {
	.open		= ktp_list_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= seq_release,
};

/* The control file, for the KUnit tests. */
VISIBLE_IF_KUNIT struct dentry *ktp_probes_dentry;

static __init int ktp_init_early(void)
{
	return dyn_event_register(&ktp_dyn_ops);
}
core_initcall(ktp_init_early);

static __init int ktp_init(void)
{
	if (tracing_init_dentry())
		return 0;

	ktp_probes_dentry = trace_create_file("ktp_probes", TRACE_MODE_WRITE,
					      NULL, (void *)&ktp_probes_file,
					      &ktp_probes_fops);
	trace_create_file("ktp_profile", TRACE_MODE_READ, NULL,
			  (void *)&ktp_profile_file, &ktp_list_fops);
	trace_create_file("ktp_programs", TRACE_MODE_READ, NULL,
			  (void *)&ktp_programs_file, &ktp_list_fops);
	return 0;
}
fs_initcall(ktp_init);
