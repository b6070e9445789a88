/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The marker ktp_test:tick of ktp_usdt, as dtrace -h declares a
 * provider's marker: its semaphore, a short in the section .probes that
 * the kernel raises in the running program while a probe with its
 * offset as REF is armed, and the test of it that guards the marker.
 */
#ifndef KTP_USDT_H
#define KTP_USDT_H

#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

extern unsigned short ktp_test_tick_semaphore;

#define KTP_TEST_TICK_ENABLED() \
	__builtin_expect(__atomic_load_n(&ktp_test_tick_semaphore, \
					 __ATOMIC_RELAXED), 0)
#define KTP_TEST_TICK(arg) STAP_PROBE1(ktp_test, tick, arg)

#endif
