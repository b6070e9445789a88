// SPDX-License-Identifier: GPL-2.0
/*
 * ktp_profile: what happened to each KTP probe's hits, one line a probe,
 * as kprobe_profile says it of kprobe events
 */
#include <linux/bpf.h>
#include <linux/init.h>
#include <linux/seq_file.h>
#include <linux/tracefs.h>

#include "../trace_probe.h"
#include "ktp_probe.h"
#include "ktp_files.h"

/*
 * Hits BPF did not run the program for: a "t" probe's, on its tracepoint
 * while it ran on the same CPU (bpf_prog->active). KTP runs the others.
 */
static unsigned long ktp_prog_missed(const struct bpf_prog *fp)
{
	struct bpf_prog_kstats stats;

	bpf_prog_get_stats(fp, &stats);
	return stats.misses;
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
	missed = tk->rp.kp.nmissed + tk->rp.nmissed + tk->nmissed_gone;
	if (tk->prog) {
		missed += ktp_prog_missed(tk->prog->prog);
		ktp_prog_false_counts(tk->prog, &cond_false, &faults);
	}
	/* a "p" probe's other program, its kprobe's or its fentry one */
	if (tk->tramp && tk->tramp->prog) {
		missed += ktp_prog_missed(tk->tramp->prog->prog);
		ktp_prog_false_counts(tk->tramp->prog, &cond_false, &faults);
	}
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

static const struct ktp_list_file ktp_profile_file = { ktp_show_profile };

static __init int ktp_profile_init(void)
{
	if (tracing_init_dentry())
		return 0;

	trace_create_file("ktp_profile", TRACE_MODE_READ, NULL,
			  (void *)&ktp_profile_file, &ktp_list_fops);
	return 0;
}
fs_initcall(ktp_profile_init);
