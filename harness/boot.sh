#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the test kernel in QEMU (TCG, no KVM here).
#   boot.sh check   run KUnit (at boot) and the kselftests, save the logs
#   boot.sh demo    run the scripted demo, console on stdout
#   boot.sh shell   interactive busybox shell on the serial console
#   boot.sh upstream  only upstream's ftrace selftests (KTP_KERNEL: the
#                   unpatched kernel), save the logs
set -euo pipefail
source "$(dirname "$0")/lib.sh"

mode=${1:-shell}
KOUT=${KTP_KOUT:-$KOUT}
tag=${KTP_LOG_TAG:-$mode}
kernel=${KTP_KERNEL:-$KOUT/arch/x86/boot/bzImage}
[ -f "$kernel" ] || die "no kernel: run make kernel"
[ -f "$BUILD/initramfs.cpio" ] || die "no initramfs: run make initramfs"
mkdir -p "$LOGS"

# The kernel's modules (install_modules in lib.sh), after the initramfs:
# the kernel unpacks both archives. KTP_MODULES goes with KTP_KERNEL.
modules=${KTP_MODULES:-}
[ -n "${KTP_KERNEL:-}" ] || modules=$KOUT/modules.cpio
initrd=$BUILD/initramfs.cpio
if [ -n "$modules" ] && [ -f "$modules" ]; then
	initrd=$BUILD/initrd-$tag.cpio
	cat "$BUILD/initramfs.cpio" "$modules" > "$initrd"
fi

# A disk for the major page fault test: reads of a block device go to I/O.
disk=$BUILD/disk.img
[ -f "$disk" ] || dd if=/dev/urandom of="$disk" bs=1M count=4 status=none

# oops=panic with panic=-1: an oops ends the run at once (QEMU exits on
# the reboot) instead of leaving a hung guest to the timeout.
append="console=ttyS0 oops=panic panic=-1 ktp_mode=$mode tsc=reliable ${KTP_APPEND:-}"
# Single-threaded TCG: with one host thread per vCPU, a vCPU can run a
# stale translation of kernel text that another vCPU just patched (static
# keys, text_poke_bp) and oops on a vanished int3. Round-robin vCPUs see
# code changes at once.
qemu=(qemu-system-x86_64 -accel tcg,thread=single -cpu max -smp "$SMP" -m "${KTP_MEM:-1G}"
      -kernel "$kernel" -initrd "$initrd" -no-reboot
      -drive "file=$disk,format=raw,if=virtio,readonly=on")

# timed_serial NAME: a FIFO for a serial port, read into $tag-NAME.log
# and, each line with the seconds since QEMU started, $tag-NAME.times
# (harness/test-times.py: where a run's time went)
readers=()
timed_serial() {
	local fifo=$LOGS/$tag-$1.fifo

	rm -f "$fifo"
	mkfifo "$fifo"
	perl -e 'open(my $in, "<", $ARGV[0]) or die "$ARGV[0]: $!";
		 open(my $log, ">", $ARGV[1]) or die "$ARGV[1]: $!";
		 open(my $t, ">", $ARGV[2]) or die "$ARGV[2]: $!";
		 $log->autoflush(1); $t->autoflush(1);
		 while (<$in>) { print $log $_; printf $t "%d %s", time - $ARGV[3], $_; }' \
		"$fifo" "$LOGS/$tag-$1.log" "$LOGS/$tag-$1.times" "$start" &
	readers+=("$!:$fifo")
}

case $mode in
check|upstream)
	# printk.time=1: the console's lines carry the seconds since boot,
	# from which test-times.py times KUnit's cases
	append+=" printk.time=1"
	# The guest's clock is the host's: while the loaded host does not
	# run QEMU, guest time goes on, and RCU takes a grace period that
	# aged then for a CPU stall (a jump that the console shows as
	# "sched: DL replenish lagged too much"). 21 s, the stall timeout
	# chosen for hardware, is not much longer than such pauses on a
	# busy 2-core host. 120 s still reports a CPU that never ends a
	# grace period, and rcu_cpu_stall_cputime makes a report say
	# whether the CPU was busy (a kernel loop) or idle (not run at all).
	append+=" rcupdate.rcu_cpu_stall_timeout=120 rcupdate.rcu_cpu_stall_cputime=1"
	rm -f "$LOGS/$tag"-*.log "$LOGS/$tag"-*.times
	start=$(date +%s)
	rc=0
	# ttyS1: the KTP kselftests, ttyS2: logs of those that did not pass,
	# ttyS3: upstream's ftrace selftests
	timed_serial kselftest
	timed_serial upstream
	timeout -k 10 "${KTP_BOOT_TIMEOUT:-1500}" "${qemu[@]}" -display none -monitor none \
		-serial "file:$LOGS/$tag-console.log" -serial "file:$LOGS/$tag-kselftest.fifo" \
		-serial "file:$LOGS/$tag-testlogs.log" -serial "file:$LOGS/$tag-upstream.fifo" \
		-append "$append" < /dev/null || rc=$?
	# a reader QEMU never opened its FIFO for still waits in open()
	for r in "${readers[@]}"; do
		! kill -0 "${r%%:*}" 2> /dev/null ||
			timeout 2 sh -c ': > "$1"' sh "${r#*:}" 2> /dev/null || true
		wait "${r%%:*}" || true
		rm -f "${r#*:}"
	done
	echo "$rc" > "$LOGS/$tag-qemu.rc"
	stamp "QEMU ($tag) ran $(( $(date +%s) - start ))s (exit $rc); logs in ${LOGS#$TOP/}/$tag-*.log"
	;;
demo)
	timeout -k 10 600 "${qemu[@]}" -nographic -append "$append" < /dev/null |
		tee "$LOGS/demo-console.log"
	;;
shell)
	echo "Leave with 'reboot -f' in the guest (or Ctrl-A X)."
	# --foreground: QEMU must stay in the terminal's process group to read it
	timeout --foreground "${KTP_SHELL_TIMEOUT:-7200}" "${qemu[@]}" -nographic -append "$append"
	;;
*)
	die "usage: boot.sh check|upstream|demo|shell"
	;;
esac
