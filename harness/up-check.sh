#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-up`: the patched kernel without CONFIG_SMP, for the code
# that differs there (the verifier's inline of bpf_get_current_task()
# loads pcpu_hot's address whole; per-CPU data is plain data). The test
# kernel's fragment with SMP off, built in build/kernel-up and booted on
# one CPU: KUnit, and every probes/ kselftest that loads no test module
# (those are built for the SMP test kernel, whose vermagic differs).
# A third kernel build, so not part of make check; after make initramfs.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

[ -f "$BUILD/initramfs.cpio" ] || die "no initramfs: run make initramfs"
KUP=$BUILD/kernel-up
sed -e 's/^CONFIG_SMP=y$/# CONFIG_SMP is not set/' -e '/^CONFIG_NR_CPUS=/d' \
	"$TOP/harness/ktp.config" > "$BUILD/ktp-up.config"
KTP_KOUT=$KUP KTP_CONFIG=$BUILD/ktp-up.config KTP_BUILD_LOG=build-up.log \
	"$TOP/harness/build.sh"

tests=$(cd "$TOP/tools/testing/selftests/ktp/test.d" &&
	grep -L -E 'insmod|modprobe|test_modules|ktp_test_mod|trace_events_sample' probes/*.tc |
	paste -sd, -)
export KTP_SMP=1 SMP=1
KTP_KOUT=$KUP KTP_LOG_TAG=up KTP_BOOT_TIMEOUT=3600 KTP_APPEND="ktp_tests=$tests" \
	"$TOP/harness/boot.sh" check
judge_run up --expected-skips "$TOP/harness/expected-skips-up"
