// SPDX-License-Identifier: GPL-2.0
/*
 * A module for KTP's tests: a tracepoint named as one of vmlinux's is,
 * which a write to its parameter "hit" hits with the number written.
 */
#include <linux/kernel.h>
#include <linux/module.h>

#define CREATE_TRACE_POINTS
#include "ktp_test_mod_trace.h"

static int ktp_test_mod_hit(const char *val, const struct kernel_param *kp)
{
	int v, ret;

	ret = kstrtoint(val, 0, &v);
	if (ret)
		return ret;
	trace_sched_kthread_stop_ret(v);
	return 0;
}

static const struct kernel_param_ops ktp_test_mod_hit_ops = {
	.set	= ktp_test_mod_hit,
};
module_param_cb(hit, &ktp_test_mod_hit_ops, NULL, 0200);
MODULE_PARM_DESC(hit, "hit the tracepoint with the number written");

MODULE_DESCRIPTION("A module for KTP's tests");
MODULE_LICENSE("GPL");
