#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bisectability, after harness/build.sh: every patch before the last
# builds on its own (the last is the test kernel), and so does the
# unpatched base, with the test kernel's configuration (olddefconfig at
# each step). Each step compiles what vmlinux needs and links it into
# vmlinux.o (make vmlinux_o: ld -r, which refuses a symbol defined twice,
# and modpost, which checks section mismatches); the symbols vmlinux.o
# leaves undefined must be among those the test kernel's vmlinux.o leaves
# undefined, which its full link resolved (the linker script's).
#
# The walk goes backwards, from the test kernel to the base, in
# build/bisect/linux (a worktree of build/linux) and build/bisect/kernel,
# which starts as a copy of the test kernel's build directory: a step
# rebuilds only what the patch after it changed (bisect_make in lib.sh
# shows the copy the paths its objects were built at). A patch that
# changes only what no kernel build reads (selftests, Documentation/,
# MAINTAINERS) leaves the tree the kernel builds from as it was: its
# step is the one after it, and is not built again.
#
# Then upstream's ftrace selftests on the base: their results are kept in
# harness/upstream-base/ under a key of the base, its .config and the
# tests (harness/upstream-base.sh); only without a copy for this key does
# the base, now in build/bisect/kernel, get a bzImage and modules and run
# them (for make check to compare with the patched kernel's run,
# harness/upstream-compare.py), keeping the results for the next run.
# [Ns]: when a step ended, in seconds since make check began.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

[ -f "$KOUT/vmlinux.o" ] || die "no test kernel: run make kernel"
mkdir -p "$LOGS" "$BUILD/bisect"
base_worktree "$BISECT_TREE"
git -C "$BISECT_TREE" checkout -q --detach ktp
nm -u --format=just-symbols "$KOUT/vmlinux.o" | sort -u > "$BUILD/bisect/undefined-ok"

# the copy: the objects and what kbuild generated, not the kernel's
# images and modules; every file in it of one time, later than every
# source file of the worktree, so that only what a checkout changes is
# rebuilt (a time each, as touch goes, would make a header generated
# after an object newer than it)
sleep 1
t=$(date +%s)
rm -rf "$BISECT_OUT"
rsync -a --exclude=/vmlinux --exclude=/vmlinux.o --exclude='/.tmp_vmlinux*' --exclude=/modules-root \
	--exclude=/modules.cpio --exclude=/kselftest --exclude=/arch/x86/boot/bzImage \
	--exclude='/arch/x86/boot/compressed/vmlinux*' "$KOUT/" "$BISECT_OUT/"
find "$BISECT_OUT" -exec touch -h -d "@$t" {} +
stamp "bisect: the test kernel's build directory copied ($(du -sh "$BISECT_OUT" | cut -f1))"

# vmlinux_undefined STEP: vmlinux.o leaves no symbol undefined that the
# test kernel's full link would not resolve
vmlinux_undefined() {
	local extra

	extra=$(nm -u --format=just-symbols "$BISECT_OUT/vmlinux.o" | sort -u |
		comm -23 - "$BUILD/bisect/undefined-ok")
	[ -z "$extra" ] && return 0
	echo "bisect: $1 leaves undefined in vmlinux.o: $extra" >&2
	return 1
}

# build_step NAME: build vmlinux.o of the commit checked out
build_step() {
	if ! bisect_make olddefconfig vmlinux_o > "$LOGS/bisect.log" 2>&1; then
		tail -20 "$LOGS/bisect.log" >&2
		echo "bisect: $1 does not build on its own" >&2
		return 1
	fi
	vmlinux_undefined "$1"
}

fail=0 built=0 same=0
after=ktp
for c in $(git -C "$SRC" rev-list ktp-base..ktp~1) ktp-base; do
	if [ "$c" = ktp-base ]; then
		name="the unpatched base"
	else
		name=$(git -C "$SRC" log -1 --format=%s "$c")
	fi
	git -C "$BISECT_TREE" checkout -q --detach "$c"
	# what the patch after this step changed, if the kernel reads any of it
	if git -C "$SRC" diff --name-only "$c" "$after" |
	   grep -qvE '^(tools/testing/|Documentation/|MAINTAINERS$)'; then
		build_step "$name" || { fail=1; break; }
		built=$((built + 1))
	else
		same=$((same + 1))
	fi
	after=$c
done
[ $fail = 0 ] || die "bisect failed"
stamp "bisect: the unpatched base and each of the $(git -C "$SRC" rev-list --count ktp-base..ktp~1) earlier patches build on their own (vmlinux.o; $built built, $same the same tree as the step after)"

kept=$("$TOP/harness/upstream-base.sh" kept)
if [ -f "$kept" ]; then
	cp "$kept" "$LOGS/unpatched-upstream.log"
	stamp "upstream's ftrace selftests on the unpatched base: kept in ${kept#$TOP/}"
else
	key=$(basename "$kept" .log)
	stamp "no kept results of upstream's ftrace selftests for $key: running them on the base"
	"$TOP/harness/upstream-base.sh" build
	"$TOP/harness/upstream-base.sh" boot "$key"
fi
