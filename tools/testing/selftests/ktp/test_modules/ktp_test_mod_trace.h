/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ktp_test_mod

#if !defined(_KTP_TEST_MOD_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _KTP_TEST_MOD_TRACE_H

#include <linux/tracepoint.h>

/*
 * The name of a tracepoint of vmlinux (the scheduler's), with the same
 * prototype: "t ktp_test_mod:sched_kthread_stop_ret" must be this one.
 */
TRACE_EVENT(sched_kthread_stop_ret, TP_PROTO(int ret), TP_ARGS(ret),
	    TP_STRUCT__entry(__field(int, ret)),
	    TP_fast_assign(__entry->ret = ret;),
	    TP_printk("ret=%d", __entry->ret));

#endif /* _KTP_TEST_MOD_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE ktp_test_mod_trace
#include <trace/define_trace.h>
