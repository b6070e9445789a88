/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTP's "e" probes (ktp_event.c): the trigger that hooks a probe to its
 * event, for the KUnit test.
 */
#ifndef _KERNEL_TRACE_KTP_EVENT_H
#define _KERNEL_TRACE_KTP_EVENT_H

#include <linux/trace_events.h>
#include <kunit/visibility.h>

#include "../trace.h"

struct trace_ktp;

/*
 * An "e" probe on its event in one trace instance, or in the top one for
 * perf (@file is NULL then). Not a user trigger: the triggers file skips
 * it.
 */
struct ktp_trigger {
	struct event_trigger_data	data;
	struct trace_ktp		*tk;
	struct trace_event_file		*file;
};

#if IS_ENABLED(CONFIG_KUNIT)
extern struct event_command ktp_trigger_cmd;
#endif

#endif /* _KERNEL_TRACE_KTP_EVENT_H */
