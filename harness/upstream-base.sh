#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Upstream's ftrace selftests on the unpatched base, the results make
# check compares the patched kernel's run with (harness/upstream-compare.py).
# They depend on the base, its configuration and the tests run, so they
# are kept in the repository, in harness/upstream-base/KEY.log, where KEY
# names the base version, the sha256 of the base's .config (the test
# kernel's, through olddefconfig in the base tree) and the git tree hash
# of the ftrace selftests the guest installs with the list of those the
# series fixes (harness/upstream-fixed). A copy under another key is
# stale and never used.
#   upstream-base.sh prepare  the base tree build/bisect/linux at ktp-base
#                             and its .config in build/bisect/kernel
#   upstream-base.sh kept     the path of the kept results for this key
#                             (after prepare; it may not exist)
#   upstream-base.sh build    build the base's bzImage and modules
#   upstream-base.sh boot [KEY]  run the tests on it and keep the results
#                             (under KEY, the key before the bisect
#                             changed the .config)
#   upstream-base.sh all      all of it (make upstream-base)
# The base is built in build/bisect/{linux,kernel}, where harness/bisect.sh
# walks the series back from a copy of the test kernel's build (make
# check builds the base's bzImage there only when no results are kept),
# seen at the test kernel's paths (bisect_run in lib.sh), so that ccache
# (CCACHE_BASEDIR in lib.sh) serves the base every object the patches
# leave unchanged.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

KEEP_DIR=$TOP/harness/upstream-base

prepare() {
	[ -f "$KOUT/.config" ] || die "no test kernel configuration: run make kernel"
	base_worktree "$BISECT_TREE"
	git -C "$BISECT_TREE" checkout -q --detach ktp-base
	mkdir -p "$BISECT_OUT"
	cp "$KOUT/.config" "$BISECT_OUT/.config"
	kmake "$BISECT_TREE" "$BISECT_OUT" -s olddefconfig > /dev/null
}

key() {
	local config tests

	config=$(grep -E '^(CONFIG_|# CONFIG_)' "$BISECT_OUT/.config" | sha256sum | cut -c1-16)
	tests=$({ git -C "$SRC" rev-parse ktp:tools/testing/selftests/ftrace;
		  grep -v '^#' "$TOP/harness/upstream-fixed" | cut -f1; } | sha256sum | cut -c1-16)
	echo "$(cat "$BUILD/base-version")-config-$config-tests-$tests"
}

build() {
	bisect_run build_images "$SRC" "$KOUT" > "$LOGS/upstream-base-build.log" 2>&1 ||
		{ tail -20 "$LOGS/upstream-base-build.log" >&2
		  die "the unpatched base or its modules do not build"; }
	# copies: the bisect rebuilds build/bisect/kernel while the VM reads them
	cp "$BISECT_OUT/arch/x86/boot/bzImage" "$BUILD/unpatched-bzImage"
	rm -f "$BUILD/unpatched-modules.cpio"
	[ ! -f "$BISECT_OUT/modules.cpio" ] ||
		cp "$BISECT_OUT/modules.cpio" "$BUILD/unpatched-modules.cpio"
	say "the unpatched base built: ${BISECT_OUT#$TOP/}"
}

# boot KEY: the guest runs the tests; keep their results under KEY
boot() {
	local log=$LOGS/unpatched-upstream.log

	[ -f "$BUILD/initramfs.cpio" ] || die "no initramfs: run make initramfs"
	KTP_KERNEL=$BUILD/unpatched-bzImage KTP_MODULES=$BUILD/unpatched-modules.cpio \
		KTP_LOG_TAG=unpatched "$TOP/harness/boot.sh" upstream
	grep -q '^# Totals: ' "$log" && grep -q 'KTP-HARNESS: upstream ftracetest exit=' \
		"$LOGS/unpatched-console.log" ||
		die "upstream's selftests did not finish on the unpatched base: see ${LOGS#$TOP/}/unpatched-*.log"
	mkdir -p "$KEEP_DIR"
	rm -f "$KEEP_DIR"/*.log
	{
		echo "# upstream's ftrace selftests on the unpatched $(cat "$BUILD/base-version"), key $1"
		echo "# made by harness/upstream-base.sh (make upstream-base, or make check where none was kept) on $(date -u +%Y-%m-%d)"
		tr -d '\r' < "$log"
	} > "$KEEP_DIR/$1.log"
	say "kept: ${KEEP_DIR#$TOP/}/$1.log (commit it)"
}

mkdir -p "$LOGS"
case ${1:-} in
prepare) prepare ;;
kept) echo "$KEEP_DIR/$(key).log" ;;
build) build ;;
boot) boot "${2:-$(key)}" ;;
all)
	"$TOP/harness/deps.sh"
	prepare
	k=$(key)
	build
	boot "$k"
	;;
*) die "usage: upstream-base.sh prepare|kept|build|boot|all" ;;
esac
