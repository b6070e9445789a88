/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM exceptions

#if !defined(_TRACE_TRAPS_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TRAPS_H

#include <linux/tracepoint.h>
#include <asm/ptrace.h>
#include <asm/trapnr.h>

#define show_trap_name(trapnr)						\
	__print_symbolic(trapnr,					\
			 { X86_TRAP_DE,		"DE" },			\
			 { X86_TRAP_DB,		"DB" },			\
			 { X86_TRAP_NMI,	"NMI" },		\
			 { X86_TRAP_BP,		"BP" },			\
			 { X86_TRAP_OF,		"OF" },			\
			 { X86_TRAP_BR,		"BR" },			\
			 { X86_TRAP_UD,		"UD" },			\
			 { X86_TRAP_NM,		"NM" },			\
			 { X86_TRAP_DF,		"DF" },			\
			 { X86_TRAP_OLD_MF,	"OLD_MF" },		\
			 { X86_TRAP_TS,		"TS" },			\
			 { X86_TRAP_NP,		"NP" },			\
			 { X86_TRAP_SS,		"SS" },			\
			 { X86_TRAP_GP,		"GP" },			\
			 { X86_TRAP_PF,		"PF" },			\
			 { X86_TRAP_SPURIOUS,	"SPURIOUS" },		\
			 { X86_TRAP_MF,		"MF" },			\
			 { X86_TRAP_AC,		"AC" },			\
			 { X86_TRAP_MC,		"MC" },			\
			 { X86_TRAP_XF,		"XF" },			\
			 { X86_TRAP_VE,		"VE" },			\
			 { X86_TRAP_CP,		"CP" },			\
			 { X86_TRAP_VC,		"VC" })

/*
 * trap_entry - an exception handler starts
 * @trapnr:	the vector, X86_TRAP_*
 * @error_code:	the error code the CPU pushed, or 0 (DR6 for #DB)
 * @regs:	the registers at the time of the exception
 */
TRACE_EVENT(trap_entry,
	    TP_PROTO(int trapnr, unsigned long error_code, struct pt_regs *regs),
	    TP_ARGS(trapnr, error_code, regs),
	    TP_STRUCT__entry(__field(int, trapnr)
			     __field(unsigned long, error_code)
			     __field(unsigned long, ip)
			     __field(bool, user)),
	    TP_fast_assign(__entry->trapnr = trapnr;
			   __entry->error_code = error_code;
			   __entry->ip = regs->ip;
			   __entry->user = user_mode(regs);),
	    TP_printk("trap=%s error_code=0x%lx ip=0x%lx user=%d",
		      show_trap_name(__entry->trapnr), __entry->error_code,
		      __entry->ip, __entry->user)
);

/*
 * trap_exit - an exception handler returns
 * @trapnr:	the vector, X86_TRAP_*
 * @signal:	the signal the handler sent to the current task, or 0
 */
TRACE_EVENT(trap_exit,
	    TP_PROTO(int trapnr, int signal),
	    TP_ARGS(trapnr, signal),
	    TP_STRUCT__entry(__field(int, trapnr)
			     __field(int, signal)),
	    TP_fast_assign(__entry->trapnr = trapnr;
			   __entry->signal = signal;),
	    TP_printk("trap=%s signal=%d",
		      show_trap_name(__entry->trapnr), __entry->signal)
);

#ifndef _TRACE_TRAPS_HOOKS_H
#define _TRACE_TRAPS_HOOKS_H
/*
 * The handlers' hooks. At -Os GCC may make trace_trap_entry() and
 * trace_trap_exit() functions of their own, and each trap would then pay
 * a call while the event is off; tracepoint_enabled() is the static
 * branch alone, inline in the handler.
 */
static __always_inline void trap_entry_event(int trapnr,
					     unsigned long error_code,
					     struct pt_regs *regs)
{
	if (tracepoint_enabled(trap_entry))
		trace_trap_entry(trapnr, error_code, regs);
}

static __always_inline void trap_exit_event(int trapnr, int signal)
{
	if (tracepoint_enabled(trap_exit))
		trace_trap_exit(trapnr, signal);
}
#endif /* _TRACE_TRAPS_HOOKS_H */

#undef TRACE_INCLUDE_PATH
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE traps
#endif /* _TRACE_TRAPS_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
