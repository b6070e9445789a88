#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of `make bench`: the cost of getppid() with nothing, with
# kprobe_events and with KTP probes on the syscall, each printed as
# "KTP-BENCH: NAME INSNS-PER-CALL".
cd /sys/kernel/tracing
fn=__x64_sys_getppid

measure() {
	echo "KTP-BENCH: $1 $(/ktp_bench 20000)"
}

measure baseline

echo "p:kp $fn a=%di:u64" > kprobe_events
measure kprobe_events_defined_disabled
echo 1 > events/kprobes/kp/enable
measure kprobe_events_record
echo 'a == 12345' > events/kprobes/kp/filter
measure kprobe_events_false_filter
echo 0 > events/kprobes/kp/enable
echo 0 > events/kprobes/kp/filter
echo > kprobe_events

echo "p:kt $fn a=%di:u64" > ktp_probes
measure ktp_defined_disabled
echo 1 > events/ktp/kt/enable
measure ktp_record
echo 0 > events/ktp/kt/enable
echo > ktp_probes

echo "p:kt $fn a=%di:u64 if %di == 12345" > ktp_probes
echo 1 > events/ktp/kt/enable
measure ktp_false_cond_jit
echo 0 > events/ktp/kt/enable
echo > ktp_probes
echo "p:kt $fn a=%di:u64 if %di != 12345" > ktp_probes
echo 1 > events/ktp/kt/enable
measure ktp_true_cond_jit
echo 0 > events/ktp/kt/enable
echo > ktp_probes

echo 0 > /proc/sys/net/core/bpf_jit_enable
echo "p:kt $fn a=%di:u64 if %di == 12345" > ktp_probes
grep -q 'cond=interp' ktp_profile || echo "KTP-BENCH: error: not interpreted"
echo 1 > events/ktp/kt/enable
measure ktp_false_cond_interp
echo 0 > events/ktp/kt/enable
echo > ktp_probes
echo 1 > /proc/sys/net/core/bpf_jit_enable
cat ktp_profile
