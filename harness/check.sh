#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: from a fresh machine to a judged test run. Two kernels are
# built and tested: the test kernel and the debug kernel (KASAN, kmemleak,
# lockdep, UBSAN, ...: harness/debug-kernel.sh). Once both are built,
# everything else goes on at once, so that the two cores stay busy until
# the end: the debug kernel's two VMs and the test kernel's VM (QEMU
# runs single-threaded TCG: a core each at most), and beside them, at a
# lower priority so that they take what the VMs leave, the static checks
# and the bisect (harness/bisect.sh: each patch builds on its own). The
# test kernel also runs upstream's ftrace selftests: each must end as on
# the unpatched kernel, whose results are kept in harness/upstream-base/
# (or made by the bisect when none are kept for this base, configuration
# and tests: harness/upstream-base.sh; harness/upstream-compare.py
# compares them). After the static checks, coccicheck and htmldocs
# (harness/subsystem-checks.sh). The last line is the test count of all
# of it, `N passed, N failed`.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

# [Ns]: when a stage ended, in seconds since make check began (KTP_T0,
# lib.sh), here and in the scripts it runs.
"$TOP/harness/deps.sh"
stamp "packages installed"
"$TOP/harness/tree.sh"
stamp "kernel tree assembled"
mkdir -p "$LOGS"
"$TOP/harness/series.sh"
stamp "series exported and verified"
"$TOP/harness/build.sh"
stamp "kernel built"
"$TOP/harness/debug-kernel.sh" build
stamp "debug kernel built"
"$TOP/harness/initramfs.sh"
stamp "initramfs made"

# The VMs, each in the background in a process group of its own, so that
# an early exit can stop them.
pids=()
trap 'for p in "${pids[@]}"; do kill -- -"$p" 2> /dev/null || true; done' EXIT
setsid "$TOP/harness/debug-kernel.sh" boot > "$LOGS/debug-boot.out" 2>&1 &
pids+=($!)
# The timeouts stop a VM that hangs, not a slow one: on a loaded host
# (2026-11-30) every VM ran a third longer than the day before (the
# test kernel's 3354 s, the debug kernel's first VM past 3900 s).
KTP_APPEND="ktp_upstream=1 ktp_long_runs=1" KTP_BOOT_TIMEOUT=${KTP_CHECK_TIMEOUT:-4800} \
	setsid "$TOP/harness/boot.sh" check > "$LOGS/check-boot.out" 2>&1 &
pids+=($!)
stamp "the test kernel's VM and the debug kernel's two VMs started"

# The static checks and the bisect, niced: they fill what the VMs leave.
static=0
nice -n 10 "$TOP/harness/static-checks.sh" || static=1
nice -n 10 "$TOP/harness/subsystem-checks.sh" || static=1
stamp "static checks $([ $static = 0 ] && echo passed || echo FAILED)"
nice -n 10 "$TOP/harness/bisect.sh" || static=1
stamp "bisect $([ $static = 0 ] && echo passed || echo FAILED)"
for p in "${pids[@]}"; do
	wait "$p" || true
done
trap - EXIT
cat "$LOGS/check-boot.out" "$LOGS/debug-boot.out"
stamp "VMs finished"
python3 "$TOP/harness/test-times.py" "$LOGS"/{check,debug}-console.log \
	"$LOGS"/{check-kselftest,check-upstream,debug-kselftest}.times \
	"$LOGS"/neighbours-{kselftest,upstream}.times > "$LOGS/test-times.txt" 2>&1 || true
cat "$LOGS/test-times.txt"

rc=0
judge_run check > "$LOGS/results.txt" || rc=1
python3 "$TOP/harness/upstream-compare.py" --patched "$LOGS/check-upstream.log" \
	--unpatched "$LOGS/unpatched-upstream.log" --fixed "$TOP/harness/upstream-fixed" \
	--testdir "$SRC/tools/testing/selftests/ftrace/test.d" > "$LOGS/results-upstream.txt" || rc=1
"$TOP/harness/debug-kernel.sh" judge > "$LOGS/results-debug.txt" || rc=1
stamp "judged"
say "total $(( $(date +%s) - KTP_T0 ))s"
echo "== test kernel"
cat "$LOGS/results.txt"
echo "== debug kernel"
cat "$LOGS/results-debug.txt"
echo "== upstream's ftrace selftests, patched and unpatched kernel"
cat "$LOGS/results-upstream.txt"
[ $static = 0 ] || { echo "FAIL: static checks (see above)"; rc=1; }
# the sum of the runs' last lines, the static checks one more test
sum_results $((1 - static)) $static "$LOGS/results.txt" "$LOGS/results-debug.txt" \
	"$LOGS/results-upstream.txt"
# last, where CI's excerpt of this output ends: how the KTP tests that
# did not pass ended (their whole logs: build/logs/*-testlogs.log)
if [ $rc != 0 ]; then
	echo "== the end of each failed KTP test's log"
	python3 "$TOP/harness/failed-logs.py" "$LOGS"/{check,debug,neighbours}-testlogs.log
	print_reports check debug neighbours
fi
exit $rc
