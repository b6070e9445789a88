#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The debug kernel of make check: harness/ktp.config with
# harness/ktp-debug.config on top (KASAN, kmemleak, lockdep, RCU and
# atomic-sleep checks, UBSAN, debug objects), built in build/kernel-debug.
#   debug-kernel.sh build   configure and build it
#   debug-kernel.sh boot    run KUnit and the kselftests on it, in two VMs
#                           at once (boot.sh check, one core each), both
#                           with kmemleak on: tag debug: KUnit and the
#                           tests of test.d/probes but those of SHARE2;
#                           tag neighbours: SHARE2 and the tests of the
#                           other directories but the neighbour tests, then
#                           the kmemleak scan, then kmemleak off and the
#                           neighbour tests (test.d/neighbours), whose
#                           results come on the fourth serial port
#                           (neighbours-upstream.log)
#   debug-kernel.sh judge   judge both runs: any report fails, the kmemleak
#                           scan of each must find nothing, and the two ran
#                           every KTP kselftest between them
#
# Why two: kmemleak doubles the cost of every allocation under TCG, and
# one VM running all of it took about 58 minutes. The neighbour tests run
# KTP's definitions and frees the other tests leak-check, beside tracers
# that are not KTP's, so they run with kmemleak off; the second VM runs
# a leak-checked share of the others first, so that the two VMs end
# about together (harness/test-times.py shows where each one's time
# went).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

DEBUG_KOUT=$BUILD/kernel-debug
# the tests of test.d/probes the second VM runs (with 00basic, doc and
# traps) before the neighbour tests: the fuzzer, the longest under
# kmemleak, then the allocation failures and ktp_programs, so that the
# two VMs end about together (make check of 2026-11-30: the first VM
# ran 4,334 s, the second 3,513 s; these two took 272 s and 149 s of the
# first's). (The stress test stays in the first: it needs 8 cycles, and
# right after the fuzzer, under kmemleak, it made 6 in 60 s.) The debug
# kernel runs the fuzzer and the stress test short (KTP_LONG_RUNS
# unset): the test kernel runs them long.
SHARE2=probes/fuzz.tc,probes/failslab.tc,probes/programs.tc

case ${1:-} in
build)
	cat "$TOP/harness/ktp.config" "$TOP/harness/ktp-debug.config" > "$BUILD/ktp-debug.config"
	KTP_CONFIG=$BUILD/ktp-debug.config KTP_KOUT=$DEBUG_KOUT "$TOP/harness/build.sh"
	;;
boot)
	# pci=noacpi: the debug kernel runs ACPI's _PRT method so slowly under
	# TCG that AML's 30 s loop timeout aborts it, and the virtio disk gets
	# no interrupt; the BIOS's PIRQ table routes it instead.
	boot_debug() { # TAG APPEND...
		local tag=$1

		shift
		KTP_KOUT=$DEBUG_KOUT KTP_LOG_TAG=$tag KTP_MEM=2G \
			KTP_BOOT_TIMEOUT=${KTP_DEBUG_TIMEOUT:-5100} \
			KTP_APPEND="pci=noacpi $*" "$TOP/harness/boot.sh" check
	}
	boot_debug debug kmemleak=on ktp_tests=probes,-${SHARE2//,/,-} > "$LOGS/debug-vm.out" 2>&1 &
	leak_pid=$!
	boot_debug neighbours kmemleak=on kunit.enable=0 ktp_tests=-probes,-neighbours,$SHARE2 \
		ktp_tests2=neighbours > "$LOGS/neighbours-vm.out" 2>&1 &
	nb_pid=$!
	rc=0
	wait $leak_pid || rc=1
	wait $nb_pid || rc=1
	cat "$LOGS/debug-vm.out" "$LOGS/neighbours-vm.out"
	exit $rc
	;;
judge)
	rc=0
	echo "== KUnit and test.d/probes, kmemleak on (tag debug)"
	judge_run debug --require "KTP-HARNESS: kmemleak scanned" \
		--expected-skips "$TOP/harness/expected-skips-jit-always-on" |
		tee "$LOGS/results-debug-leak.txt" || rc=1
	echo "== the other tests but the neighbour tests, kmemleak on (tag neighbours)"
	judge_run neighbours --no-kunit --require "KTP-HARNESS: kmemleak scanned" \
		--require "KTP-HARNESS: kmemleak off" \
		--expected-skips "$TOP/harness/expected-skips-jit-always-on" |
		tee "$LOGS/results-debug-leak2.txt" || rc=1
	echo "== then the neighbour tests, kmemleak off (tag neighbours, second part)"
	judge_run neighbours --no-kunit --kselftest "$LOGS/neighbours-upstream.log" \
		--require "KTP-HARNESS: kselftest (second part) exit=" |
		tee "$LOGS/results-debug-neighbours.txt" || rc=1
	# between them, every test case of the installed KTP kselftests
	want=$(find "$BUILD/initramfs/kselftest/ktp/test.d" -name '*.tc' | wc -l)
	got=$({ cat "$LOGS/debug-kselftest.log" "$LOGS/neighbours-kselftest.log" \
		"$LOGS/neighbours-upstream.log" 2> /dev/null || true; } |
		tr -d '\r' | sed -n 's/^# 1\.\.\([0-9]*\)$/\1/p' | awk '{ n += $1 } END { print n + 0 }')
	missing=0
	if [ "$got" != "$want" ]; then
		echo "FAIL: the two runs planned $got KTP kselftests; there are $want"
		missing=1
		rc=1
	fi
	sum_results 0 $missing "$LOGS/results-debug-leak.txt" "$LOGS/results-debug-leak2.txt" \
		"$LOGS/results-debug-neighbours.txt"
	exit $rc
	;;
*)
	die "usage: debug-kernel.sh build|boot|judge"
	;;
esac
