/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTP internal interfaces, shared by trace_ktp.c and its KUnit tests.
 */
#ifndef _TRACE_KTP_H
#define _TRACE_KTP_H

#include <kunit/visibility.h>

struct dentry;

#if IS_ENABLED(CONFIG_KUNIT)
extern struct dentry *ktp_probes_dentry;
#endif

#endif /* _TRACE_KTP_H */
