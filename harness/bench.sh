#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: build the unpatched kernel from the same base and config
# beside the patched one (build/kernel-base), boot each with -icount
# shift=0,sleep=off (one guest nanosecond per guest instruction) on one
# CPU, run harness/bench/ktp-bench.sh in both, and write one table of
# what each kind of probe costs, with the targets: build/logs/bench.txt,
# and a plot of it, build/logs/bench.png. Deterministic: the figures do
# not depend on the host. Not part of `make check`.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

BASE_SRC=$BUILD/linux-base
BASE_OUT=$BUILD/kernel-base

"$TOP/harness/deps.sh" bench
[ -f "$KOUT/arch/x86/boot/bzImage" ] || die "no kernel: run make kernel"
[ -f "$BUILD/initramfs.cpio" ] || die "no initramfs: run make initramfs"
mkdir -p "$LOGS"

# The unpatched tree: a worktree of build/linux at ktp-base; its config:
# the test kernel's fragment without the options the series adds.
base_worktree "$BASE_SRC"
[ "$(git -C "$BASE_SRC" rev-parse HEAD)" = "$(git -C "$SRC" rev-parse ktp-base)" ] ||
	git -C "$BASE_SRC" checkout -q --detach ktp-base
grep -v '^CONFIG_KTP' "$TOP/harness/ktp.config" > "$BUILD/bench-base.config"
KTP_SRC=$BASE_SRC KTP_KOUT=$BASE_OUT KTP_CONFIG=$BUILD/bench-base.config \
	KTP_BUILD_LOG=build-base.log "$TOP/harness/build.sh"

# The images the benchmark boots, copied so that a build beside it cannot
# change them under it
mkdir -p "$BUILD/bench"
cp "$BASE_OUT/arch/x86/boot/bzImage" "$BUILD/bench/bzImage-unpatched"
cp "$KOUT/arch/x86/boot/bzImage" "$BUILD/bench/bzImage-patched"
cp "$BUILD/initramfs.cpio" "$BUILD/bench/initramfs.cpio"

# A command line of more than 255 bytes, for the row of the worst string
# condition (harness/bench/ktp-bench.sh)
pad=$(printf 'a%.0s' $(seq 200))

# bench_boot TAG: run the guest side on that kernel
bench_boot() {
	local log=$LOGS/bench-$1-console.log

	say "benchmark on the $1 kernel (QEMU -icount shift=0,sleep=off)"
	# sleep=off: while the guest idles, its clock jumps to its next timer
	# instead of following the host's clock (QEMU's default, sleep=on),
	# so that no row timed across an idle wait can take the host's time
	timeout -k 10 1800 qemu-system-x86_64 -accel tcg,thread=single -icount shift=0,sleep=off \
		-cpu max -smp 1 -m 1G -kernel "$BUILD/bench/bzImage-$1" \
		-initrd "$BUILD/bench/initramfs.cpio" -no-reboot -display none -monitor none \
		-serial "file:$log" \
		-append "console=ttyS0 oops=panic panic=-1 ktp_mode=bench tsc=reliable ktp_pad=$pad" < /dev/null
	grep -q "^KTP-BENCH: kernel $1" "$log" || die "the $1 kernel's benchmark did not finish: see ${log#$TOP/}"
	# a row that failed is missing from the table: say why
	grep '^KTP-BENCH: error' "$log" >&2 || true
}
bench_boot unpatched
bench_boot patched

python3 "$TOP/harness/bench/table.py" --date "$(date -u +%Y-%m-%d)" \
	--version "$(cat "$BUILD/base-version")" \
	--unpatched "$LOGS/bench-unpatched-console.log" \
	--patched "$LOGS/bench-patched-console.log" \
	--plot "$LOGS/bench.plot" > "$LOGS/bench.txt"
cat "$LOGS/bench.txt"
gnuplot "$LOGS/bench.plot"
say "table: ${LOGS#$TOP/}/bench.txt, plot: ${LOGS#$TOP/}/bench.png"
