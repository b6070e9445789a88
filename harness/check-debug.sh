#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-debug: only the debug-kernel part of make check (build, run,
# judge), for working on it; run make check once first for the tree and
# the initramfs.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

t0=$(date +%s)
[ -f "$BUILD/initramfs.cpio" ] || die "no initramfs: run make check first"
mkdir -p "$LOGS"
"$TOP/harness/debug-kernel.sh" build
say "[$(( $(date +%s) - t0 ))s] debug kernel built"
"$TOP/harness/debug-kernel.sh" boot
rc=0
"$TOP/harness/debug-kernel.sh" judge > "$LOGS/results-debug.txt" || rc=$?
say "total $(( $(date +%s) - t0 ))s"
cat "$LOGS/results-debug.txt"
if [ $rc != 0 ]; then
	python3 "$TOP/harness/failed-logs.py" "$LOGS"/{debug,neighbours}-testlogs.log
	print_reports debug neighbours
fi
exit $rc
