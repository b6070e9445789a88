#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-debug: the series and every test on a debug kernel (KASAN,
# kmemleak, lockdep, RCU and atomic-sleep checks, UBSAN, debug objects)
# built in build/kernel-debug; any report fails, and a kmemleak scan at
# the end must find nothing. Run after make check (it reuses its tree and
# initramfs). Not yet part of make check: under TCG the debug kernel runs
# the suite too slowly for make check's time budget.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

t0=$(date +%s)
stamp() { say "[$(( $(date +%s) - t0 ))s] $*"; }
[ -f "$BUILD/initramfs.cpio" ] || die "no initramfs: run make check first"
mkdir -p "$LOGS"

cat "$TOP/harness/ktp.config" "$TOP/harness/ktp-debug.config" > "$BUILD/ktp-debug.config"
KTP_CONFIG=$BUILD/ktp-debug.config KTP_KOUT=$BUILD/kernel-debug "$TOP/harness/build.sh"
stamp "debug kernel built"
KTP_KOUT=$BUILD/kernel-debug KTP_LOG_TAG=debug KTP_MEM=2G KTP_BOOT_TIMEOUT=5400 KTP_NO_DISK=1 \
	"$TOP/harness/boot.sh" check
stamp "debug test VM finished"
rc=0
python3 "$TOP/harness/results.py" --smp "$SMP" --expected-skips "$TOP/harness/expected-skips-debug" \
	--console "$LOGS/debug-console.log" --kselftest "$LOGS/debug-kselftest.log" \
	--qemu-rc "$LOGS/debug-qemu.rc" --require "KTP-HARNESS: kmemleak scanned" \
	--require "KTP-HARNESS: lockdown: ktp_probes refused with EPERM" \
	--require "KTP-HARNESS: lockdown: ktp_profile refused with EPERM" > "$LOGS/results-debug.txt" || rc=$?
say "total $(( $(date +%s) - t0 ))s"
cat "$LOGS/results-debug.txt"
exit $rc
