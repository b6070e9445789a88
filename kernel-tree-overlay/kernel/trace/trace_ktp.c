// SPDX-License-Identifier: GPL-2.0
/*
 * KTP: kernel probes whose conditions and fetches are compiled to
 * native code.
 *
 * This file provides the tracefs control file ktp_probes. It has the
 * mode and lockdown checks of kprobe_events; probe definitions are not
 * accepted yet.
 */
#define pr_fmt(fmt)	"trace_ktp: " fmt

#include <linux/fs.h>
#include <linux/init.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/tracefs.h>

#include "trace.h"
#include "trace_ktp.h"

/* The control file, for the KUnit tests. */
VISIBLE_IF_KUNIT struct dentry *ktp_probes_dentry;

static int ktp_probes_show(struct seq_file *m, void *v)
{
	return 0;
}

static int ktp_probes_open(struct inode *inode, struct file *file)
{
	int ret;

	ret = security_locked_down(LOCKDOWN_TRACEFS);
	if (ret)
		return ret;

	return single_open(file, ktp_probes_show, NULL);
}

static int ktp_create_or_delete(const char *raw_command)
{
	/* Blank lines and comments are accepted, so O_TRUNC writes work. */
	if (!*skip_spaces(raw_command))
		return 0;

	/* No probe type is implemented yet. */
	return -EINVAL;
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
	.release	= single_release,
	.write		= ktp_probes_write,
};

static __init int ktp_init(void)
{
	int ret;

	ret = tracing_init_dentry();
	if (ret)
		return 0;

	ktp_probes_dentry = trace_create_file("ktp_probes", TRACE_MODE_WRITE,
					      NULL, NULL, &ktp_probes_fops);
	return 0;
}
fs_initcall(ktp_init);
