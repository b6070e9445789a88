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

/* Writes the probed place as a definition names it. */
static void ktp_format_target(struct trace_ktp *tk, char *buf, size_t size)
{
	if (ktp_is_event(tk))
		snprintf(buf, size, "%s.%s", tk->event->class->system,
			 trace_event_name(tk->event));
	else if (ktp_is_tpoint(tk))
		snprintf(buf, size, "%s", tk->btp->tp->name);
	else if (!tk->symbol)
		snprintf(buf, size, "0x%p", tk->rp.kp.addr);
	else if (tk->rp.kp.offset)
		snprintf(buf, size, "%s+%u", tk->symbol, tk->rp.kp.offset);
	else
		snprintf(buf, size, "%s", tk->symbol);
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
	char buf[MAX_ARGSTR_LEN * 2 + 2];
	struct probe_arg *arg;
	int i;

	if (event[0] != '\0' && strcmp(trace_probe_name(&tk->tp), event))
		return false;
	if (system && strcmp(trace_probe_group_name(&tk->tp), system))
		return false;
	if (!argc)
		return true;

	ktp_format_target(tk, buf, sizeof(buf));
	if (strcmp(buf, argv[0]))
		return false;
	/* each argument as ktp_show_def() writes it, then the condition */
	for (i = 1; i < argc; i++) {
		if (i - 1 < tk->tp.nr_args) {
			arg = &tk->tp.args[i - 1];
			if (tk->exprs && tk->exprs[i - 1])
				snprintf(buf, sizeof(buf), "%s", tk->exprs[i - 1]);
			else
				snprintf(buf, sizeof(buf), "%s=%s", arg->name, arg->comm);
			if (strcmp(buf, argv[i]))
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
	char buf[MAX_ARGSTR_LEN + 1];
	int i;

	seq_putc(m, ktp_is_event(tk) ? 'e' : ktp_is_tpoint(tk) ? 't' :
		 ktp_is_return(tk) ? 'r' : 'p');
	if (tk->maxactive)
		seq_printf(m, "%u", tk->maxactive);
	ktp_format_target(tk, buf, sizeof(buf));
	seq_printf(m, ":%s/%s %s", trace_probe_group_name(&tk->tp),
		   trace_probe_name(&tk->tp), buf);
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

static int ktp_probes_seq_show(struct seq_file *m, void *v)
{
	struct dyn_event *ev = v;

	if (ev->ops == &ktp_dyn_ops)
		ktp_show_def(m, to_trace_ktp(ev));
	return 0;
}

static const struct seq_operations ktp_probes_seq_ops = {
	.start	= dyn_event_seq_start,
	.next	= dyn_event_seq_next,
	.stop	= dyn_event_seq_stop,
	.show	= ktp_probes_seq_show,
};

static int ktp_probes_open(struct inode *inode, struct file *file)
{
	return dyn_events_open(file, &ktp_dyn_ops, &ktp_probes_seq_ops);
}

static ssize_t ktp_probes_write(struct file *file, const char __user *buffer,
				size_t count, loff_t *ppos)
{
	return trace_parse_run_command(file, buffer, count, ppos,
				       ktp_create_or_delete);
}

static const struct file_operations ktp_probes_fops = {
	.open		= ktp_probes_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= seq_release,
	.write		= ktp_probes_write,
};

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

static int ktp_profile_seq_show(struct seq_file *m, void *v)
{
	unsigned long hits, recorded = 0, cond_false = 0, dropped = 0, missed;
	unsigned long faults = 0;
	struct dyn_event *ev = v;
	struct trace_ktp *tk;
	int cpu;

	if (ev->ops != &ktp_dyn_ops)
		return 0;

	tk = to_trace_ktp(ev);
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
	return 0;
}

static const struct seq_operations ktp_profile_seq_ops = {
	.start	= dyn_event_seq_start,
	.next	= dyn_event_seq_next,
	.stop	= dyn_event_seq_stop,
	.show	= ktp_profile_seq_show,
};

/* ktp_profile and ktp_programs: their seq_operations are the inode's data */
static int ktp_seq_file_open(struct inode *inode, struct file *file)
{
	int ret;

	ret = security_locked_down(LOCKDOWN_TRACEFS);
	if (ret)
		return ret;

	return seq_open(file, inode->i_private);
}

static const struct file_operations ktp_seq_file_fops = {
	.open		= ktp_seq_file_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= seq_release,
};

/* Each probe's program, as "bpftool prog dump xlated" shows programs */
static int ktp_programs_seq_show(struct seq_file *m, void *v)
{
	struct dyn_event *ev = v;
	struct trace_ktp *tk;

	if (ev->ops != &ktp_dyn_ops)
		return 0;
	tk = to_trace_ktp(ev);
	seq_printf(m, "%s/%s ", trace_probe_group_name(&tk->tp),
		   trace_probe_name(&tk->tp));
	ktp_show_prog_mode(m, tk);
	seq_putc(m, '\n');
	if (tk->prog)
		ktp_prog_show_insns(m, tk->prog);
	return 0;
}

static const struct seq_operations ktp_programs_seq_ops = {
	.start	= dyn_event_seq_start,
	.next	= dyn_event_seq_next,
	.stop	= dyn_event_seq_stop,
	.show	= ktp_programs_seq_show,
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
	int ret;

	ret = tracing_init_dentry();
	if (ret)
		return 0;

	ktp_probes_dentry = trace_create_file("ktp_probes", TRACE_MODE_WRITE,
					      NULL, NULL, &ktp_probes_fops);
	trace_create_file("ktp_profile", TRACE_MODE_READ, NULL,
			  (void *)&ktp_profile_seq_ops, &ktp_seq_file_fops);
	trace_create_file("ktp_programs", TRACE_MODE_READ, NULL,
			  (void *)&ktp_programs_seq_ops, &ktp_seq_file_fops);
	return 0;
}
fs_initcall(ktp_init);
