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
# Each step's result is kept in harness/bisect-kept, under a key of all
# it depends on: the git tree of the step (every file of its kernel
# tree), the test kernel's .config (each step's starts as it) and the
# symbols its vmlinux.o leaves undefined (those a step may leave), the
# compiler and the linker, and how a step is built (this script, kmake).
# A step whose key is kept built before exactly as it would now, and is
# not built again; a changed patch changes the key of its own step and
# of each later one (their trees). The kept results are rewritten with
# this series' steps only: commit them with the change. KTP_BISECT_ALL=1
# builds every step.
#
# Then upstream's ftrace selftests on the base: their results are kept in
# harness/upstream-base/ under a key of the base, its .config and the
# tests (harness/upstream-base.sh); only without a copy for this key does
# the base, now in build/bisect/kernel, get a bzImage and modules and run
# them (for make check to compare with the patched kernel's run,
# harness/upstream-compare.py), keeping the results for the next run.
#
# [Ns]: when a step ended, in seconds since make check began.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

[ -f "$KOUT/vmlinux.o" ] || die "no test kernel: run make kernel"
mkdir -p "$LOGS" "$BUILD/bisect"

nm -u --format=just-symbols "$KOUT/vmlinux.o" | sort -u > "$BUILD/bisect/undefined-ok"
KEPT=$TOP/harness/bisect-kept
bisect_env=$({ cat "$BUILD/bisect/undefined-ok"
	grep -E '^(CONFIG_|# CONFIG_)' "$KOUT/.config"
	gcc --version | sed -n 1p
	ld --version | sed -n 1p
	cat "$0"
	declare -f kmake bisect_run bisect_make
	} | sha256sum | cut -c1-16)
# step_key COMMIT: what the step of COMMIT is kept under
step_key() {
	echo "$bisect_env-$(git -C "$SRC" rev-parse "$1^{tree}" | cut -c1-16)"
}
touch "$KEPT"
if [ "${KTP_BISECT_ALL:-0}" = 1 ]; then
	kept_keys=
else
	kept_keys=$(cut -f1 "$KEPT")
fi
is_kept() {
	grep -qxF "$(step_key "$1")" <<< "$kept_keys"
}

# The steps: each earlier patch, then the base. A step is built unless
# the patch after it changes nothing the kernel build reads (then its
# tree builds as the next step's does) or its key is kept.
steps=() names=() todo=() same=0 kept=0
after=ktp
for c in $(git -C "$SRC" rev-list ktp-base..ktp~1) ktp-base; do
	if [ "$c" = ktp-base ]; then
		name="the unpatched base"
	else
		name=$(git -C "$SRC" log -1 --format=%s "$c")
	fi
	steps+=("$c")
	names+=("$name")
	if ! git -C "$SRC" diff --name-only "$c" "$after" |
	   grep -qvE '^(tools/testing/|Documentation/|MAINTAINERS$)'; then
		todo+=(same)
		same=$((same + 1))
	elif is_kept "$c"; then
		todo+=(kept)
		kept=$((kept + 1))
	else
		todo+=(build)
	fi
	after=$c
done
nbuild=$(( ${#steps[@]} - same - kept ))
npatches=$(( ${#steps[@]} - 1 ))

# keep_results: this series' steps, built now or before, and no others
keep_results() {
	local i

	for i in "${!steps[@]}"; do
		[ "${todo[$i]}" = same ] ||
			printf '%s\t%s\n' "$(step_key "${steps[$i]}")" "${names[$i]}"
	done | LC_ALL=C sort > "$BUILD/bisect/kept-new"
	cmp -s "$BUILD/bisect/kept-new" "$KEPT" || cp "$BUILD/bisect/kept-new" "$KEPT"
}

# the base's kept upstream results (below) are under a key of its
# .config, which the walk leaves in build/bisect/kernel when it builds
# the base; else it is made as the walk would (olddefconfig at the base)
upstream_results() {
	local kept key

	[ "${todo[-1]}" = build ] || "$TOP/harness/upstream-base.sh" prepare
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
}

if [ "$nbuild" = 0 ]; then
	keep_results
	stamp "bisect: the unpatched base and each of the $npatches earlier patches build on their own (vmlinux.o; all $kept built steps kept in ${KEPT#$TOP/}, $same the same tree as the step after)"
	upstream_results
	exit 0
fi

base_worktree "$BISECT_TREE"
git -C "$BISECT_TREE" checkout -q --detach ktp

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

fail=0 built=0
for i in "${!steps[@]}"; do
	[ "${todo[$i]}" = build ] || continue
	git -C "$BISECT_TREE" checkout -q --detach "${steps[$i]}"
	build_step "${names[$i]}" || { fail=1; break; }
	built=$((built + 1))
done
[ $fail = 0 ] || die "bisect failed"
keep_results
stamp "bisect: the unpatched base and each of the $npatches earlier patches build on their own (vmlinux.o; $built built, $kept kept in ${KEPT#$TOP/}, $same the same tree as the step after)"
upstream_results
