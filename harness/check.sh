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

# The same series and tests on a debug kernel: KASAN, kmemleak, lockdep,
# RCU and atomic-sleep checks, UBSAN, debug objects. Any report fails.
cat "$TOP/harness/ktp.config" "$TOP/harness/ktp-debug.config" > "$BUILD/ktp-debug.config"
KTP_CONFIG=$BUILD/ktp-debug.config KTP_KOUT=$BUILD/kernel-debug "$TOP/harness/build.sh"
stamp "debug kernel built"
KTP_KOUT=$BUILD/kernel-debug KTP_LOG_TAG=debug KTP_MEM=2G KTP_BOOT_TIMEOUT=2700 \
	"$TOP/harness/boot.sh" check
stamp "debug test VM finished"

rc=0
for tag in check debug; do
	require=()
	[ $tag = debug ] && require=(--require "KTP-HARNESS: kmemleak scanned")
	python3 "$TOP/harness/results.py" --smp "$SMP" --expected-skips "$TOP/harness/expected-skips" \
		--console "$LOGS/$tag-console.log" --kselftest "$LOGS/$tag-kselftest.log" \
		--qemu-rc "$LOGS/$tag-qemu.rc" "${require[@]}" > "$LOGS/results-$tag.txt" || rc=$?
done
say "total $(( $(date +%s) - t0 ))s"
{
	echo "== test kernel (build/kernel)"
	cat "$LOGS/results-check.txt"
	echo "== debug kernel (build/kernel-debug)"
	cat "$LOGS/results-debug.txt"
	# the last line: both runs together
	tail -q -n 1 "$LOGS/results-check.txt" "$LOGS/results-debug.txt" |
		awk '{ for (i = 1; i < NF; i++) { if ($(i + 1) ~ /^passed/) p += $i
			if ($(i + 1) ~ /^failed/) f += $i; if ($(i + 1) ~ /^skipped/) s += $i } }
		     END { printf "%d passed, %d failed", p, f; if (s) printf ", %d skipped", s; print "" }'
} > "$LOGS/results.txt"
cat "$LOGS/results.txt"
exit $rc
