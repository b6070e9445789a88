#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: from a fresh machine to a judged test run. The last line is
# the test count, `N passed, N failed`.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

t0=$(date +%s)
stamp() { say "[$(( $(date +%s) - t0 ))s] $*"; }

"$TOP/harness/deps.sh"
"$TOP/harness/tree.sh"
mkdir -p "$LOGS"
"$TOP/harness/series.sh"
stamp "series exported and verified"
"$TOP/harness/build.sh"
stamp "kernel built"
"$TOP/harness/static-checks.sh"
stamp "static checks passed"
"$TOP/harness/initramfs.sh"
"$TOP/harness/boot.sh" check
stamp "test VM finished"

rc=0
python3 "$TOP/harness/results.py" --smp "$SMP" --expected-skips "$TOP/harness/expected-skips" \
	--console "$LOGS/check-console.log" --kselftest "$LOGS/check-kselftest.log" \
	--qemu-rc "$LOGS/check-qemu.rc" \
	--require "KTP-HARNESS: lockdown: ktp_probes refused with EPERM" \
	--require "KTP-HARNESS: lockdown: ktp_profile refused with EPERM" > "$LOGS/results.txt" || rc=$?
say "total $(( $(date +%s) - t0 ))s"
cat "$LOGS/results.txt"
exit $rc
