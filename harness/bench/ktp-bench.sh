#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of `make bench`, on the patched and on the unpatched kernel:
# what each kind of probe adds to a getppid() system call, what the page
# fault events cost, and how long definitions take, each printed as
# "KTP-BENCH: NAME GUEST-INSTRUCTIONS". Rows that need KTP run only where
# ktp_probes exists. harness/bench/table.py makes the table.
cd /sys/kernel/tracing || exit 1
mount -t debugfs debugfs /sys/kernel/debug 2> /dev/null
fn=__x64_sys_getppid
# a false condition of 10 operations with 3 memory reads, of values
# that are never 0 (a 0 is read again, see ktp_p_zero_read_jit below;
# two of them, of the kernel image's data, cannot fault and are not)
cond10='(+0(%sp) + @jiffies + *(u32 *)&nr_cpu_ids) * 3 - %di * 2 == 12345 && %si != 0 && %dx > 7'
# a false 4-term ftrace filter of the same kind
filter4='a == 12345 && a != 0 && a > 7 || a == 54321'

row() { # NAME COMMAND...: one figure
	name=$1
	shift
	v=$("$@") || { echo "KTP-BENCH: error: $name: $*"; return; }
	echo "KTP-BENCH: $name $v"
}
calls() { row "$1" /ktp_bench syscall 20000; }
reads() { row "$1" /ktp_bench read 20000; }
switches() { row "$1" /ktp_bench switch 5000; }
quiet() { "$@" > /dev/null 2>&1; }

# An offset in $fn where a kprobe is optimized (a jump, not int3):
# the first instruction boundary after the ftrace call site that works
optoff=
for off in 4 5 6 7 8 9 10 11 12 13 14 15 16; do
	quiet sh -c "echo 'p:kopt $fn+$off' > kprobe_events" || continue
	echo 1 > events/kprobes/kopt/enable
	sleep 1
	# the only kprobe; kprobes/list names it SYM+0xOFF, by any alias
	grep -q "+0x$(printf %x $off) .*OPTIMIZED" /sys/kernel/debug/kprobes/list &&
		optoff=$off
	echo 0 > events/kprobes/kopt/enable
	echo > kprobe_events
	[ -n "$optoff" ] && break
done
[ -n "$optoff" ] || echo "KTP-BENCH: error: no optimizable offset in $fn"

calls syscall_baseline

# kprobe_events: recording one fetch argument, then behind a false filter
echo "p:kp $fn a=%di:u64" > kprobe_events
echo 1 > events/kprobes/kp/enable
calls kprobe_events_record
echo 'a == 12345' > events/kprobes/kp/filter
calls kprobe_events_false_filter
echo 0 > events/kprobes/kp/enable
echo > kprobe_events

# read() of a byte of /dev/zero, the workload of the vfs_read() rows
reads read_baseline
# a context switch, the workload of the sched_switch rows
switches switch_baseline

# a call of a user function, ufunc() in /ktp_bench, the workload of the
# user-space probe rows: nothing on it, a false BPF program on a uprobe,
# uprobe_events recording one argument, then behind a false filter
ucalls() { row "$1" /ktp_bench ufunc 2000; }
uoff=$(/ktp_bench ufunc-offset)
ucalls ufunc_baseline
row bpf_uprobe_false /ktp_bench bpf-uprobe 2000
echo "p:ub /ktp_bench:$uoff a=%di:u64" > uprobe_events
echo 1 > events/uprobes/ub/enable
ucalls uprobe_events_record
echo 'a == 12345' > events/uprobes/ub/filter
ucalls uprobe_events_false_filter
echo 0 > events/uprobes/ub/enable
echo > uprobe_events

# BPF programs whose condition is false
row bpf_kprobe_false /ktp_bench bpf-kprobe $fn 0
[ -z "$optoff" ] || row bpf_optkprobe_false /ktp_bench bpf-kprobe $fn "$optoff"
row bpf_rawtp_false /ktp_bench bpf-rawtp sys_enter
# a false fentry program on __task_pid_nr_ns(), which getppid() calls
# once, by its BTF id (bpftool): the BPF trampoline's rows
tfn=__task_pid_nr_ns
tid=$(bpftool btf dump file /sys/kernel/btf/vmlinux 2> /dev/null |
	sed -n "s/^\[\([0-9]*\)\] FUNC '$tfn' .*/\1/p" | head -n 1)
if [ -n "$tid" ]; then
	row bpf_fentry_false /ktp_bench bpf-fentry "$tid"
else
	echo "KTP-BENCH: error: no BTF id of $tfn"
fi
# kprobe_events recording one argument of it
echo "p:kp $tfn t=\$arg2:u64" > kprobe_events
echo 1 > events/kprobes/kp/enable
calls kprobe_events_task_pid_record
echo 0 > events/kprobes/kp/enable
echo > kprobe_events

# the raw_syscalls:sys_enter event: recording, then behind a false filter
echo 1 > events/raw_syscalls/sys_enter/enable
calls sys_enter_record
echo 'id == 99999' > events/raw_syscalls/sys_enter/filter
calls sys_enter_false_filter
echo 0 > events/raw_syscalls/sys_enter/enable
echo 0 > events/raw_syscalls/sys_enter/filter

# page faults: every event off, then page_fault_user recording
row pagefault_off /ktp_bench pagefault 2048
echo 1 > events/exceptions/page_fault_user/enable
row pagefault_user_record /ktp_bench pagefault 2048
echo 0 > events/exceptions/page_fault_user/enable
echo > trace
# the trap events (patched kernel): a page fault is none of theirs, so
# enabling one must not send page faults down the traced path
if [ -e events/exceptions/trap_entry ]; then
	echo 1 > events/exceptions/trap_entry/enable
	row pagefault_trap_entry /ktp_bench pagefault 2048
	echo 0 > events/exceptions/trap_entry/enable
	echo > trace
fi

# definitions
row define_kprobe /ktp_bench define kprobe_events "p:kd $fn a=%di:u64" -- \
	kprobe_events "-:kd"
row define_kprobe_filter4 /ktp_bench define kprobe_events "p:kd $fn a=%di:u64" \
	events/kprobes/kd/filter "$filter4" -- kprobe_events "-:kd"
# BTF fetch arguments: 2 parameters by name, 2 member chains
btf4='count pos file->f_flags file->f_path.dentry'
row define_kprobe_btf4 /ktp_bench define kprobe_events "p:kd vfs_read $btf4" -- \
	kprobe_events "-:kd"

if [ ! -e ktp_probes ]; then
	echo "KTP-BENCH: kernel unpatched"
	exit 0
fi
echo "KTP-BENCH: kernel patched"

# WORKLOAD NAME DEFINITION [jit|interp [PATH]]: WORKLOAD (calls or
# reads) with the probe ktp/kt enabled; PATH: where ktp_programs says it
# runs (kprobe or trampoline)
ktp_run() {
	echo "$3" > ktp_probes || { echo "KTP-BENCH: error: $2: $3"; return; }
	[ -z "$4" ] || grep -q "cond=$4" ktp_profile ||
		echo "KTP-BENCH: error: $2: not cond=$4: $(cat ktp_profile)"
	[ -z "$5" ] || grep -q "^ktp/kt .* path=$5\$" ktp_programs ||
		echo "KTP-BENCH: error: $2: not path=$5: $(cat ktp_programs)"
	echo 1 > events/ktp/kt/enable
	"$1" "$2"
	echo 0 > events/ktp/kt/enable
	echo > ktp_probes
}
ktp() { ktp_run calls "$@"; }	# getppid()
ktpr() { ktp_run reads "$@"; }	# read() of a byte: vfs_read()
ktps() { ktp_run switches "$@"; }	# a context switch: sched_switch
ktpu() { ktp_run ucalls "$@"; }	# a call of ufunc(): a user-space probe

echo "p:kt $fn a=%di:u64" > ktp_probes
calls ktp_p_defined_disabled
echo > ktp_probes
ktp ktp_p_const_false "p:kt $fn a=%di:u64 if 0"
ktp ktp_p_false_jit "p:kt $fn a=%di:u64 if %di == 12345" jit
ktp ktp_p_true_record "p:kt $fn a=%di:u64 if %di != 12345"
ktp ktp_p_record "p:kt $fn a=%di:u64"
ktp ktp_p_false10_jit "p:kt $fn a=%di:u64 if $cond10" jit
# the worst string work the limits allow (ktp.rst): 16 compares of the
# 200 bytes of 'a' that bench.sh pads the command line with (from its
# byte 70, after "ktp_pad="): one glob of 255 bytes that backtracks at
# each of them, one of 1 byte, and 14 compares equal up to the 200th byte
# (a literal has no '#': the control file ends a command there)
s='(char *)(*(u64 *)&saved_command_line+70)'
[ "$(cut -c71- /proc/cmdline)" = "$(printf 'a%.0s' $(seq 200))" ] ||
	echo "KTP-BENCH: error: the command line's byte 70 does not start 200 bytes of 'a'"
a199=$(printf 'a%.0s' $(seq 199))
worst="$s ~ \"*$(printf 'a%.0s' $(seq 253))b\" || $s ~ \"x\""
for i in $(seq 14); do
	worst="$worst || $s == \"${a199}b\""
done
ktp ktp_p_strcmp16_worst "p:kt $fn if $worst" jit
# a read of a 0 (the high half of the user CS that entry_SYSCALL_64
# pushed in pt_regs): the inline load, then the helper reads it again;
# a read of the kernel image's data, which cannot fault, is not
ktp ktp_p_zero_read_jit "p:kt $fn a=%di:u64 if *(u32 *)((u64)\$arg1 + 140) != 0" jit
[ -z "$optoff" ] || ktp ktp_p_opt_false_jit "p:kt $fn+$optoff a=%di:u64 if %di == 12345"
# typed by BTF: current, a struct task_struct *, and its pid
ktp ktp_p_current_false_jit "p:kt $fn a=%di:u64 if current->pid == 99999" jit
# on the BPF trampoline (ktp_programs says path=trampoline): a false
# condition on an argument, then recording it behind a true one
ktp ktp_p_tramp_false "p:kt $tfn if type == 99" jit trampoline
ktp ktp_p_tramp_record "p:kt $tfn t=type:u64 if type != 99" jit trampoline
ktp ktp_tp_sys_enter_false "t:kt sys_enter if \$arg2 == 99999" jit
ktp ktp_tp_sys_enter_record "t:kt sys_enter id=\$arg2:s64"
ktp ktp_evt_sys_enter_false "e:kt raw_syscalls.sys_enter if \$id == 99999"
ktp ktp_evt_sys_enter_record "e:kt raw_syscalls.sys_enter id=\$id"

# user-space probes on ufunc(): false, and recording its argument
ktpu ktp_u_false_jit "p:kt /ktp_bench:$uoff a=%di:u64 if %di == 12345" jit
ktpu ktp_u_record "p:kt /ktp_bench:$uoff a=%di:u64"

# vfs_read() under read(): the floor, then a chain of 3 '->' and a
# string compare whose first byte differs ("zero" is not "x")
ktpr ktp_read_const_false "p:kt vfs_read if 0"
ktpr ktp_read_chain_str_false_jit \
	'p:kt vfs_read if file->f_path.dentry->d_name.name == "x"' jit
# sched_switch's arguments by name: prev->pid is one read, typed
ktps ktp_tp_switch_prev_pid_false "t:kt sched_switch if prev->pid == 999999" jit
ktps ktp_tp_switch_arg_false "t:kt sched_switch if \$arg1 == 2" jit

row define_ktp /ktp_bench define ktp_probes "p:kd $fn a=%di:u64" -- \
	ktp_probes "-:kd"
row define_ktp_cond10 /ktp_bench define ktp_probes "p:kd $fn a=%di:u64 if $cond10" -- \
	ktp_probes "-:kd"
row define_ktp_btf4 /ktp_bench define ktp_probes "p:kd vfs_read $btf4" -- \
	ktp_probes "-:kd"

# loading a module: with no KTP probe, and with 50 "t" probes on its
# tracepoint defined before it loads, whose programs are made, from their
# definitions, each time it loads. (The module is the patched kernel's.)
KO=/kselftest/ktp/test_modules/ktp_test_mod.ko
if [ -f "$KO" ]; then
	row ktp_module_load /ktp_bench modload "$KO" ktp_test_mod
	i=0
	while [ $i -lt 50 ]; do
		echo "t:m$i ktp_test_mod:sched_kthread_stop_ret if \$arg1 == $i" >> ktp_probes
		i=$((i + 1))
	done
	row ktp_module_load_t50 /ktp_bench modload "$KO" ktp_test_mod
	echo > ktp_probes
fi

echo 0 > /proc/sys/net/core/bpf_jit_enable
ktp ktp_p_false_interp "p:kt $fn a=%di:u64 if %di == 12345" interp
ktp ktp_p_false10_interp "p:kt $fn a=%di:u64 if $cond10" interp
echo 1 > /proc/sys/net/core/bpf_jit_enable
exit 0
