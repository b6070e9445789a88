// SPDX-License-Identifier: GPL-2.0
/*
 * KTP's control file ktp_probes, where definitions are written and read
 * back, and a probe's line in dynamic_events; and what the files that
 * list the probes share (ktp_profile.c, ktp_programs.c).
 */
#include <linux/bpf.h>
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/tracefs.h>

#include "trace_dynevent.h"
#include "trace_probe.h"
#include "trace_ktp.h"

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

/*
 * Are the words of @text, between its white space, @argv's? A removal's
 * words are split at every space: a condition matches them whatever
 * white space it has between its words.
 */
static bool ktp_words_are(const char *text, int argc, const char **argv)
{
	size_t len;
	int i;

	for (i = 0; i < argc; i++) {
		text = skip_spaces(text);
		len = strlen(argv[i]);
		if (strncmp(text, argv[i], len) ||
		    (text[len] && !isspace(text[len])))
			return false;
		text += len;
	}
	return !*skip_spaces(text);
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
			return ktp_words_are(tk->cond, argc - i - 1, argv + i + 1);
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

	seq_putc(m, ktp_def_letter(tk));
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
