/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTP's tracefs files (ktp_files.c): ktp_probes, and the files that list
 * the probes.
 */
#ifndef _KERNEL_TRACE_KTP_FILES_H
#define _KERNEL_TRACE_KTP_FILES_H

#include "ktp_probe.h"

/*
 * A file that lists the KTP probes, opened with ktp_list_fops: @show
 * writes its line of one probe. It is the file's inode's private data.
 */
struct ktp_list_file {
	void (*show)(struct seq_file *m, struct trace_ktp *tk);
};

extern const struct file_operations ktp_list_fops;
void ktp_show_prog_mode(struct seq_file *m, struct trace_ktp *tk);

#if IS_ENABLED(CONFIG_KUNIT)
extern struct dentry *ktp_probes_dentry;
#endif

#endif /* _KERNEL_TRACE_KTP_FILES_H */
