#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: from a fresh machine to a judged test run. Two kernels are
# built and tested: the test kernel and the debug kernel (KASAN, kmemleak,
# lockdep, UBSAN, ...: harness/debug-kernel.sh). QEMU runs single-threaded
# TCG, so the debug kernel's two runs (its longest part: two VMs,
# harness/debug-kernel.sh) go on in the background, while the test
# kernel's run and then the static checks go on: at most four QEMUs and
# builds share the two cores. The test kernel also runs upstream's
# ftrace selftests: each must end as on the unpatched kernel, whose
# results are kept in harness/upstream-base/ (or made by the static
# checks when none are kept for this base, configuration and tests:
# harness/upstream-base.sh; harness/upstream-compare.py compares them).
# After them, coccicheck and htmldocs (harness/subsystem-checks.sh). The
# last line is the test count of all of it, `N passed, N failed`.
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

# The debug kernel's runs, in the background in a process group of its
# own, so that an early exit can stop it.
setsid "$TOP/harness/debug-kernel.sh" boot > "$LOGS/debug-boot.out" 2>&1 &
debug_pid=$!
trap 'kill -- -$debug_pid 2> /dev/null || true' EXIT
stamp "debug kernel VM started"

KTP_APPEND=ktp_upstream=1 "$TOP/harness/boot.sh" check
stamp "test VM finished"
static=0
"$TOP/harness/static-checks.sh" || static=1
"$TOP/harness/subsystem-checks.sh" || static=1
stamp "static checks $([ $static = 0 ] && echo passed || echo FAILED)"
wait $debug_pid || true
trap - EXIT
cat "$LOGS/debug-boot.out"
stamp "debug kernel VM finished"

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
exit $rc
