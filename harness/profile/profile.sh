#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make profile P=SETUP [F=FUNCTION]`: where the guest instructions of a
# benchmark row go. Boots the test kernel (QEMU -icount shift=0, no
# KASLR, gdb stub), runs SETUP (a row of harness/profile/setups), and
# single-steps one call with gdb: without F, one getppid() loop iteration
# (as make bench counts it); with F, one call of that kernel function
# (a definition: F=ktp_parse_args). Writes the instructions per function,
# most first, then the sequence of functions, to build/logs/profile-P.txt.
# One instruction a step, about a thousand a second: a definition takes
# minutes. Not part of make check.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"

setup=${1:?usage: profile.sh SETUP [FUNCTION]}
fn=${2:-}
ROOT=$BUILD/profile-initramfs
CPIO=$BUILD/profile.cpio

"$TOP/harness/deps.sh" profile
[ -f "$KOUT/vmlinux" ] || die "no kernel: run make kernel"
[ -d "$BUILD/initramfs" ] || die "no initramfs: run make initramfs"
grep -q "^$setup " "$TOP/harness/profile/setups" ||
	die "no setup '$setup' in harness/profile/setups"
mkdir -p "$LOGS"

# the test VM's initramfs without the selftests; its /init runs the setup
rm -rf "$ROOT"
rsync -a --exclude /kselftest --exclude /upstream "$BUILD/initramfs/" "$ROOT/"
install -m 755 "$TOP/harness/profile/guest-init" "$ROOT/init"
install -m 644 "$TOP/harness/profile/setups" "$ROOT/setups"
(cd "$ROOT" && find . | cpio -o -H newc --quiet) > "$CPIO"

sym() { nm "$KOUT/vmlinux" | awk -v f="$1" '$3 == f && !n++ { print $1 }'; }
start=$(sym "${fn:-__x64_sys_getppid}")
[ -n "$start" ] || die "no function ${fn:-__x64_sys_getppid} in vmlinux"

console=$LOGS/profile-$setup-console.log
port=$((20000 + $$ % 10000))
rm -f "$console"
timeout -k 10 3600 qemu-system-x86_64 -accel tcg,thread=single -icount shift=0 \
	-cpu max -smp 1 -m 1G -kernel "$KOUT/arch/x86/boot/bzImage" \
	-initrd "$CPIO" -no-reboot -display none -monitor none \
	-serial "file:$console" -gdb "tcp:127.0.0.1:$port" \
	-append "console=ttyS0 tsc=reliable nokaslr oops=panic panic=-1 ktp_setup=$setup" < /dev/null &
qemu=$!
trap 'kill $qemu 2> /dev/null || true' EXIT
for _ in $(seq 300); do
	grep -q '^KTP-PROFILE: ready' "$console" 2> /dev/null && break
	grep -q '^KTP-PROFILE: error' "$console" 2> /dev/null &&
		die "$(grep '^KTP-PROFILE: error' "$console")"
	sleep 1
done
grep -q '^KTP-PROFILE: ready' "$console" || die "the guest did not get ready: see ${console#$TOP/}"

say "single-stepping ${fn:-one getppid() loop iteration} under gdb"
PROFILE_PORT=$port PROFILE_START=$start PROFILE_CALL=${fn:+1} \
	PROFILE_OUT=$LOGS/profile-$setup.pcs \
	timeout 3500 gdb -q -batch -nx -x "$TOP/harness/profile/step.py" > "$LOGS/profile-gdb.log" 2>&1 ||
	die "gdb failed: see ${LOGS#$TOP/}/profile-gdb.log"
python3 "$TOP/harness/profile/attribute.py" "$KOUT/vmlinux" "$LOGS/profile-$setup.pcs" \
	> "$LOGS/profile-$setup.txt"
head -25 "$LOGS/profile-$setup.txt"
say "profile: ${LOGS#$TOP/}/profile-$setup.txt"
