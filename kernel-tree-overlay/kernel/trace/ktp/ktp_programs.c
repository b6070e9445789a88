// SPDX-License-Identifier: GPL-2.0
/*
 * ktp_programs: the BPF program of each KTP probe, by the id and tag that
 * bpftool shows it by
 */
#include <linux/bpf.h>
#include <linux/init.h>
#include <linux/seq_file.h>
#include <linux/tracefs.h>

#include "../trace_probe.h"
#include "ktp_probe.h"
#include "ktp_files.h"

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
	/*
	 * A "p" or "r" probe's program runs on its kprobe, or on the BPF
	 * trampoline (a fentry program): where it does now, or will when
	 * enabled
	 */
	if (ktp_is_kprobe(tk) && tk->prog)
		seq_printf(m, " path=%s",
			   tk->tramp_link || (tk->tramp &&
					      !trace_probe_is_enabled(&tk->tp)) ?
			   "trampoline" : "kprobe");
	seq_putc(m, '\n');
	if (!tk->prog)
		return;
	fp = tk->prog->prog;
	seq_printf(m, "  id %u tag %*phN\n", fp->aux->id, BPF_TAG_SIZE, fp->tag);
}

static const struct ktp_list_file ktp_programs_file = { ktp_show_program };

static __init int ktp_programs_init(void)
{
	if (tracing_init_dentry())
		return 0;

	trace_create_file("ktp_programs", TRACE_MODE_READ, NULL,
			  (void *)&ktp_programs_file, &ktp_list_fops);
	return 0;
}
fs_initcall(ktp_programs_init);
