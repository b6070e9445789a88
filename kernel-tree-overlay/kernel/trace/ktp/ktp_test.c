// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for KTP.
 */
#include <kunit/test.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/percpu.h>

#include "../trace.h"
#include "../trace_probe.h"
#include "ktp_probe.h"
#include "ktp_files.h"
#include "ktp_event.h"

/* ktp_probes exists and has the mode of kprobe_events. */
static void ktp_probes_file_mode_test(struct kunit *test)
{
	struct inode *inode;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ktp_probes_dentry);
	inode = d_inode(ktp_probes_dentry);
	KUNIT_ASSERT_NOT_NULL(test, inode);
	KUNIT_EXPECT_TRUE(test, S_ISREG(inode->i_mode));
	KUNIT_EXPECT_EQ(test, inode->i_mode & 0777, TRACE_MODE_WRITE);
}

/*
 * An "e" probe's trigger called without a record, as a hit that saw its
 * event in trigger mode before the event passes records, does nothing:
 * no count, and no warning (which would fail the run).
 */
static void ktp_trigger_no_record_test(struct kunit *test)
{
	struct ktp_trigger *trigger;
	struct ktp_counters *c;
	struct trace_ktp *tk;
	int cpu;

	tk = kunit_kzalloc(test, sizeof(*tk), GFP_KERNEL);
	trigger = kunit_kzalloc(test, sizeof(*trigger), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tk);
	KUNIT_ASSERT_NOT_NULL(test, trigger);
	tk->counters = alloc_percpu(struct ktp_counters);
	KUNIT_ASSERT_TRUE(test, !!tk->counters);
	trigger->tk = tk;
	trigger->data.cmd_ops = &ktp_trigger_cmd;

	/* as event_triggers_call() calls it, under the tracepoint */
	preempt_disable();
	ktp_trigger_cmd.trigger(&trigger->data, NULL, NULL, NULL);
	preempt_enable();

	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(tk->counters, cpu);
		KUNIT_EXPECT_EQ(test, local_read(&c->recorded), 0L);
		KUNIT_EXPECT_EQ(test, local_read(&c->cond_false), 0L);
		KUNIT_EXPECT_EQ(test, local_read(&c->missed), 0L);
		KUNIT_EXPECT_EQ(test, local_read(&c->dropped), 0L);
	}
	free_percpu(tk->counters);
}

static struct kunit_case ktp_test_cases[] = {
	KUNIT_CASE(ktp_probes_file_mode_test),
	KUNIT_CASE(ktp_trigger_no_record_test),
	{}
};

static struct kunit_suite ktp_test_suite = {
	.name = "ktp",
	.test_cases = ktp_test_cases,
};

kunit_test_suite(ktp_test_suite);

MODULE_DESCRIPTION("KUnit tests for KTP");
MODULE_LICENSE("GPL");
