#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The debug kernel of make check: harness/ktp.config with
# harness/ktp-debug.config on top (KASAN, kmemleak, lockdep, RCU and
# atomic-sleep checks, UBSAN, debug objects), built in build/kernel-debug.
#   debug-kernel.sh build   configure and build it
#   debug-kernel.sh boot    run KUnit and the kselftests on it (boot.sh check)
#   debug-kernel.sh judge   judge that run: any report fails, and the
#                           kmemleak scan at the end must find nothing
set -euo pipefail
source "$(dirname "$0")/lib.sh"

DEBUG_KOUT=$BUILD/kernel-debug

case ${1:-} in
build)
	cat "$TOP/harness/ktp.config" "$TOP/harness/ktp-debug.config" > "$BUILD/ktp-debug.config"
	KTP_CONFIG=$BUILD/ktp-debug.config KTP_KOUT=$DEBUG_KOUT "$TOP/harness/build.sh"
	;;
boot)
	# pci=noacpi: the debug kernel runs ACPI's _PRT method so slowly under
	# TCG that AML's 30 s loop timeout aborts it, and the virtio disk gets
	# no interrupt; the BIOS's PIRQ table routes it instead.
	KTP_KOUT=$DEBUG_KOUT KTP_LOG_TAG=debug KTP_MEM=2G KTP_BOOT_TIMEOUT=${KTP_DEBUG_TIMEOUT:-3900} \
		KTP_APPEND="pci=noacpi" "$TOP/harness/boot.sh" check
	;;
judge)
	judge_run debug --require "KTP-HARNESS: kmemleak scanned"
	;;
*)
	die "usage: debug-kernel.sh build|boot|judge"
	;;
esac
