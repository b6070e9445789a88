/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTP's expression compiler: where struct pt_regs holds $retval, the
 * stack pointer and $argN (ktp_regs.c), as byte offsets; -1 where the
 * architecture's accessors do not read a word of pt_regs.
 */
#ifndef _KERNEL_TRACE_KTP_REGS_H
#define _KERNEL_TRACE_KTP_REGS_H

int ktp_retval_offset(void);
int ktp_sp_offset(void);
int ktp_arg_reg_offset(unsigned int num);
int ktp_arg_stack_offset(unsigned int num);

#endif /* _KERNEL_TRACE_KTP_REGS_H */
