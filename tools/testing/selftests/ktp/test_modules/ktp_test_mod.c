// SPDX-License-Identifier: GPL-2.0
/*
 * A module for KTP's tests: a tracepoint named as one of vmlinux's is,
 * which a write to its parameter "hit" hits with the number written, and
 * a variable a probe reads by name, ktp_test_mod_value, which is what
 * the parameter "value" says at load.
 */
#include <linux/kernel.h>
#include <linux/module.h>

#define CREATE_TRACE_POINTS
#include "ktp_test_mod_trace.h"

int ktp_test_mod_value;

static int value;
module_param(value, int, 0444);
MODULE_PARM_DESC(value, "ktp_test_mod_value");

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

static int __init ktp_test_mod_init(void)
{
	ktp_test_mod_value = value;
	return 0;
}
module_init(ktp_test_mod_init);

static void __exit ktp_test_mod_exit(void)
{
}
module_exit(ktp_test_mod_exit);

MODULE_DESCRIPTION("A module for KTP's tests");
MODULE_LICENSE("GPL");
