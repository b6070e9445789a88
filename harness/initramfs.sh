#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the test VM's initramfs: busybox-static, the installed KTP
# kselftests (kselftest-install), the shared libraries any dynamically
# linked program among them needs, and harness/guest-init as /init.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

ROOT=$BUILD/initramfs
CPIO=$BUILD/initramfs.cpio
BUSYBOX=${KTP_BUSYBOX:-/bin/busybox}

[ -x "$KOUT/usr/gen_init_cpio" ] || die "build the kernel first (make kernel)"
file "$BUSYBOX" | grep -q 'statically linked' || die "$BUSYBOX is not busybox-static"

# Copy a dynamically linked program's libraries to the same paths.
add_libs() {
	local lib

	for lib in $(ldd "$1" 2>/dev/null | grep -o '/[^ ]*' | sort -u); do
		[ -e "$ROOT$lib" ] && continue
		mkdir -p "$ROOT$(dirname "$lib")"
		cp -L "$lib" "$ROOT$lib"
	done
}

rm -rf "$ROOT"
mkdir -p "$ROOT"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,etc,root}
cp "$BUSYBOX" "$ROOT/bin/busybox"
for app in $("$BUSYBOX" --list-full); do
	[ -e "$ROOT/$app" ] || ln -s /bin/busybox "$ROOT/$app"
done
# A real tracing client for the tests: Debian's trace-cmd (its libraries
# are copied below with those of every other program)
cp /usr/bin/trace-cmd "$ROOT/usr/bin/trace-cmd"
# and Debian's perf tool (linux-perf), for perf stat and perf record
cp /usr/bin/perf "$ROOT/usr/bin/perf"
# and bpftool, which lists, dumps and counts KTP's BPF programs: the
# kernel tree's own, built with libbfd (binutils-dev) so that `bpftool
# prog dump jited` disassembles them, which Debian's cannot
say "building bpftool"
mkdir -p "$BUILD/bpftool"
make -s -C "$SRC/tools/bpf/bpftool" OUTPUT="$BUILD/bpftool/" \
	feature-llvm=0 feature-clang-bpf-co-re=0 -j"$(nproc)" \
	> "$LOGS/bpftool-build.log" 2>&1 ||
	{ tail -20 "$LOGS/bpftool-build.log" >&2; die "building bpftool failed"; }
"$BUILD/bpftool/bpftool" version | grep -q 'features:.*libbfd' ||
	die "bpftool was built without libbfd: apt-get install binutils-dev"
cp "$BUILD/bpftool/bpftool" "$ROOT/usr/sbin/bpftool"
# kselftest's runner.sh needs GNU timeout (--foreground)
rm -f "$ROOT/usr/bin/timeout"
cp /usr/bin/timeout "$ROOT/usr/bin/timeout"
# and perl, for its prefix.pl, which passes a test's lines on as they
# come: without perl it prefixes them with sed, whose buffer held a
# test's result line until a later test's output filled it, so that
# boot.sh timed the line minutes late (harness/test-times.py). Debian's
# perl-base, with just the modules prefix.pl loads.
cp /usr/bin/perl "$ROOT/usr/bin/perl"
for f in $(perl -e 'use strict; use IO::Handle; print join("\n", values %INC), "\n"') \
	 "$(dirname "$(perl -MIO::Handle -e 'print $INC{"IO.pm"}')")/auto/IO/IO.so"; do
	mkdir -p "$ROOT$(dirname "$f")"
	cp "$f" "$ROOT$f"
done
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' > "$ROOT/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$ROOT/etc/group"
install -m 755 "$TOP/harness/guest-init" "$ROOT/init"
install -m 755 "$TOP/harness/ktp-demo.sh" "$ROOT/ktp-demo.sh"
install -m 644 "$TOP/harness/ktp-banner" "$ROOT/ktp-banner"
# make bench: its guest script and a static getppid() timer
install -m 755 "$TOP/harness/bench/ktp-bench.sh" "$ROOT/ktp-bench.sh"
gcc -static -O2 -Wall -o "$ROOT/ktp_bench" "$TOP/harness/bench/ktp_bench.c"

say "installing the KTP kselftests"
rm -rf "$KOUT/kselftest"
# the modules the tests load (test_modules/) are built against this
# kernel, in the source tree (KBUILD_EXTMOD): away with what an
# interrupted build left there
kmake "$SRC" "$KOUT" M="$SRC/tools/testing/selftests/ktp/test_modules" \
	clean > "$LOGS/kselftest-install.log" 2>&1 ||
	{ tail -20 "$LOGS/kselftest-install.log" >&2; die "cleaning the test modules failed"; }
kmake "$SRC" "$KOUT" TARGETS=ktp KDIR="$KOUT" \
	INSTALL_PATH="$ROOT/kselftest" kselftest-install >> "$LOGS/kselftest-install.log" 2>&1 ||
	{ tail -20 "$LOGS/kselftest-install.log" >&2; die "kselftest-install failed"; }
[ -x "$ROOT/kselftest/run_kselftest.sh" ] || die "kselftest-install produced no run_kselftest.sh"
# and nothing of the modules' build left in the source tree
kmake "$SRC" "$KOUT" M="$SRC/tools/testing/selftests/ktp/test_modules" \
	clean >> "$LOGS/kselftest-install.log" 2>&1 ||
	die "cleaning the test modules failed"

# upstream's ftrace selftests, which make check runs on the patched and
# the unpatched kernel (harness/upstream-compare.py)
say "installing upstream's ftrace selftests"
kmake "$SRC" "$KOUT" TARGETS=ftrace \
	INSTALL_PATH="$ROOT/upstream" kselftest-install >> "$LOGS/kselftest-install.log" 2>&1 ||
	{ tail -20 "$LOGS/kselftest-install.log" >&2; die "kselftest-install of ftrace failed"; }
[ -x "$ROOT/upstream/ftrace/ftracetest" ] || die "kselftest-install produced no ftracetest"
# the tests the series fixes, which the unpatched kernel's run leaves out
grep -v '^#' "$TOP/harness/upstream-fixed" | cut -f1 | sed 's|^|test.d/|' > "$ROOT/upstream-fixed.list"

while read -r f; do
	file "$f" | grep -q 'dynamically linked' && add_libs "$f"
done < <(find "$ROOT" -type f -perm -u+x)

# the disk of the major page fault test (boot.sh), made here and not by
# the VMs, which make check starts at once
[ -f "$BUILD/disk.img" ] || dd if=/dev/urandom of="$BUILD/disk.img" bs=1M count=4 status=none

printf 'dir /dev 0755 0 0\nnod /dev/console 0600 0 0 c 5 1\nnod /dev/null 0666 0 0 c 1 3\n' > "$BUILD/initramfs.list"
(cd "$KOUT" && "$SRC/usr/gen_initramfs.sh" -o "$CPIO" -u squash -g squash "$ROOT" "$BUILD/initramfs.list")
say "initramfs: ${CPIO#$TOP/} ($(du -h "$CPIO" | cut -f1))"
