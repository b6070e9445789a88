#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: boot the test kernel with -icount shift=0 (one guest
# nanosecond per guest instruction) on one CPU, run harness/bench/
# ktp-bench.sh, and write the cost each probe adds to getppid(), in
# instructions, to build/logs/bench.txt. Deterministic: the figures do
# not depend on the host. Not part of `make check`.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

kernel=$KOUT/arch/x86/boot/bzImage
[ -f "$kernel" ] || die "no kernel: run make kernel"
[ -f "$BUILD/initramfs.cpio" ] || die "no initramfs: run make initramfs"
mkdir -p "$LOGS"
log=$LOGS/bench-console.log

timeout -k 10 900 qemu-system-x86_64 -accel tcg,thread=single -icount shift=0 \
	-cpu max -smp 1 -m 1G -kernel "$kernel" -initrd "$BUILD/initramfs.cpio" \
	-no-reboot -display none -monitor none -serial "file:$log" \
	-append "console=ttyS0 oops=panic panic=-1 ktp_mode=bench tsc=reliable" < /dev/null

grep -q '^KTP-BENCH: baseline ' "$log" || die "no benchmark result in ${log#$TOP/}"
! grep -q '^KTP-BENCH: error' "$log" || die "$(grep '^KTP-BENCH: error' "$log")"
awk '/^KTP-BENCH: / {
	v[$2] = $3; order[n++] = $2
} END {
	printf "%-32s %10s %10s\n", "guest instructions per getppid()", "total", "added"
	for (i = 0; i < n; i++)
		printf "%-32s %10.1f %+10.1f\n", order[i], v[order[i]], v[order[i]] - v["baseline"]
	f = v["kprobe_events_false_filter"] - v["baseline"]
	k = v["ktp_false_cond_jit"] - v["baseline"]
	printf "\nfalse KTP condition (JIT) / false ftrace filter: %.2f (target < 0.50)\n", k / f
}' "$log" | tee "$LOGS/bench.txt"
