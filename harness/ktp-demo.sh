#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The scripted demo `make run` shows when no terminal is attached.
cd /sys/kernel/tracing
echo "== trap events: ud2, int3 and a divide by zero from user mode"
echo 1 > events/exceptions/trap_entry/enable
echo 1 > events/exceptions/trap_exit/enable
for t in ud bp de; do /kselftest/ktp/ktp_traps $t; done
echo 0 > events/exceptions/enable
grep -E 'trap_(entry|exit): trap=(UD|BP|DE)' trace
echo > trace
echo "== page fault events: a first write to an anonymous page"
echo 1 > events/exceptions/page_fault_user/enable
echo 1 > events/exceptions/page_fault_exit/enable
/kselftest/ktp/ktp_traps minor
echo 0 > events/exceptions/enable
grep 'ktp_traps' trace | tail -4
echo > trace
echo "== a KTP probe on vfs_read and one on its return"
echo 'p:rd vfs_read count=%dx:u64 comm=$comm' > ktp_probes
echo 'r:rdret vfs_read ret=$retval:s64' >> ktp_probes
cat ktp_probes
echo 1 > events/ktp/enable
dd if=/dev/zero of=/dev/null bs=1234 count=1 2>/dev/null
echo 0 > events/ktp/enable
grep -E ' (rd|rdret): .*(count=1234|ret=1234)' trace
cat ktp_profile
echo > ktp_probes
echo > trace
echo "== a condition and fetch expressions, compiled to eBPF and JIT-compiled"
echo 'p:big vfs_read n=$arg3 kb=$arg3>>10 if $arg3 >= 4096 && $comm != "sh"' > ktp_probes
cat ktp_probes
echo 1 > events/ktp/enable
for bs in 1000 8192 65536; do
	dd if=/dev/zero of=/dev/null bs=$bs count=1 2>/dev/null
done
echo 0 > events/ktp/enable
grep ' big: ' trace
cat ktp_profile
cat ktp_programs
echo "== a bad definition: EINVAL, and error_log points at the token"
echo 'p:bad vfs_read count=%dx:u64 ^oops' >> ktp_probes
tail -3 error_log
echo > ktp_probes
echo "== the KTP kselftests"
# under TCG the suite takes longer than its target's timeout
cd /kselftest && ./run_kselftest.sh -o 3600
