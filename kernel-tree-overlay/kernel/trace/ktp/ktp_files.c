// SPDX-License-Identifier: GPL-2.0
/*
 * KTP's control file ktp_probes, where definitions are written and read
 * back (as ktp_def.c writes them); and what the files that list the
 * probes share (ktp_profile.c, ktp_programs.c).
 */
#include <linux/bpf.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/tracefs.h>

#include "../trace_dynevent.h"
#include "../trace_probe.h"
#include "ktp_probe.h"
#include "ktp_def.h"
#include "ktp_files.h"
#include "trace_ktp.h"

static ssize_t ktp_probes_write(struct file *file, const char __user *buffer,
				size_t count, loff_t *ppos)
{
	return trace_parse_run_command(file, buffer, count, ppos,
				       ktp_create_or_delete);
}

/**
 * ktp_show_prog_mode() - how a probe's program runs
 * @m: the file that lists the probe (ktp_profile, ktp_programs)
 * @tk: the probe
 *
 * Writes "cond=none" for a probe without a program, else whether the JIT
 * or the interpreter runs it, its length in instructions and the size of
 * its native code.
 */
void ktp_show_prog_mode(struct seq_file *m, struct trace_ktp *tk)
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

static const struct ktp_list_file ktp_probes_file = { ktp_show_def };

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

/* A file that lists the probes as its struct ktp_list_file says */
const struct file_operations ktp_list_fops = {
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
	return 0;
}
fs_initcall(ktp_init);
