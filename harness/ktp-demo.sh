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
echo 1 > events/exceptions/page_fault_entry/enable
echo 1 > events/exceptions/page_fault_exit/enable
/kselftest/ktp/ktp_traps minor
echo 0 > events/exceptions/enable
grep 'ktp_traps' trace | tail -4
echo "== the KTP control file"
ls -l ktp_probes
echo 'p vfs_read' >> ktp_probes
echo "== the KTP kselftests"
cd /kselftest && ./run_kselftest.sh
