# SPDX-License-Identifier: GPL-2.0
# Shared settings for the KTP harness scripts; sourced, never run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${KTP_BUILD:-$TOP/build}
SRC=$BUILD/linux		# patched kernel tree (git, one commit per patch)
AMTREE=$BUILD/linux-am		# worktree where the exported series is git am'ed
KOUT=$BUILD/kernel		# O= build directory
LOGS=$BUILD/logs
SERIES_OUT=$BUILD/series
BISECT_TREE=$BUILD/bisect/linux	# the bisect's worktree of build/linux
BISECT_OUT=$BUILD/bisect/kernel	# and its build directory
TARBALL=${KTP_LINUX_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
JOBS=${KTP_JOBS:-$(nproc)}
SMP=${KTP_SMP:-2}

export CCACHE_DIR=${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ccache}
# Paths under build/ enter ccache's hash relative to the object directory,
# so a tree laid out as build/X/linux with build/X/kernel shares the cache
# of build/linux and build/kernel: the bisect's unpatched base compiles
# from the test kernel's objects wherever the preprocessed source is the
# same (static-checks.sh).
export CCACHE_BASEDIR=$BUILD
# With -g (the kernels have BTF, made from DWARF), ccache hashes the
# working directory too, unless told not to: the bisect's objects would
# never come from the test kernel's. The cost: their DWARF names the
# test kernel's build directory as the one they were compiled in.
export CCACHE_NOHASHDIR=1
# Depend mode: a miss compiles once, taking the header list from the
# compiler's -MMD output, instead of running the preprocessor first as
# well: 20% of each compile on a fresh machine's empty cache (measured
# on kernel/trace and kernel/bpf: 98 s against 80 s without ccache; 81 s
# in depend mode). A hit is the same direct-mode hit as before.
export CCACHE_DEPEND=1
export GIT_AUTHOR_NAME=${GIT_AUTHOR_NAME:-KTP Developers}
export GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL:-ktp@example.org}
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME
export GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL

# kmake SRCDIR OUTDIR ARGS...: the kernel's make, out of tree, with ccache
kmake() {
	local src=$1 out=$2

	shift 2
	make -C "$src" O="$out" ARCH=x86_64 -j"$JOBS" CC="ccache gcc" HOSTCC="ccache gcc" "$@"
}

# bisect_run FUNC ARGS...: a function of this file, run where
# build/bisect/linux and build/bisect/kernel are seen at the paths of
# build/linux and build/kernel (bind mounts, in a mount namespace of its
# own): the bisect's build directory starts as a copy of the test
# kernel's, whose objects name their sources and commands by those
# paths, and so stay up to date where a patch left them unchanged.
bisect_run() {
	local ns=(unshare --mount)

	[ "$(id -u)" = 0 ] || ns+=(--map-root-user)
	"${ns[@]}" bash -c 'mount --bind "$1" "$2" && mount --bind "$3" "$4" || exit 1
		shift 4; source "$0"; "$@"' "${BASH_SOURCE[0]}" \
		"$BISECT_TREE" "$SRC" "$BISECT_OUT" "$KOUT" "$@"
}

# bisect_make ARGS...: kmake in the bisect's tree and build directory
bisect_make() {
	bisect_run kmake "$SRC" "$KOUT" "$@"
}

# base_worktree DIR: DIR is a worktree of build/linux, made at ktp-base
# if it is none (or one of an earlier build/linux, extracted anew since)
base_worktree() {
	git -C "$1" rev-parse -q --verify HEAD > /dev/null 2>&1 && return 0
	rm -rf "$1"
	git -C "$SRC" worktree prune
	git -C "$SRC" worktree add -q --detach "$1" ktp-base
}

# build_images SRCDIR OUTDIR: bzImage and, with module support, the
# modules, in one make (a second make would link vmlinux, and make its
# BTF, again); then install_modules
build_images() {
	local src=$1 out=$2 targets=(bzImage)

	! grep -qx CONFIG_MODULES=y "$out/.config" || targets+=(modules)
	kmake "$src" "$out" "${targets[@]}" && install_modules "$src" "$out"
}

# install_modules SRCDIR OUTDIR: build OUTDIR's modules (nothing to do
# after build_images) and pack them,
# under /lib/modules, into OUTDIR/modules.cpio, the archive boot.sh
# appends to the initramfs; none if the kernel has no module support
install_modules() {
	local src=$1 out=$2

	rm -rf "$out/modules-root" "$out/modules.cpio"
	grep -qx CONFIG_MODULES=y "$out/.config" || return 0
	kmake "$src" "$out" modules &&
		kmake "$src" "$out" INSTALL_MOD_PATH="$out/modules-root" INSTALL_MOD_STRIP=1 modules_install &&
		install_test_modules "$src" "$out" &&
		(cd "$out" && "$src/usr/gen_initramfs.sh" -o "$out/modules.cpio" \
			-u squash -g squash "$out/modules-root")
}

# install_test_modules SRC OUT: the modules the KTP kselftests load,
# built against this kernel (a module of another kernel's is refused),
# at the path the kselftests load them from: boot.sh appends the kernel's
# modules to the initramfs, over the test kernel's there. Nothing of the
# build stays in the source tree.
install_test_modules() {
	local src=$1 out=$2 tm=$1/tools/testing/selftests/ktp/test_modules

	[ -d "$tm" ] || return 0
	kmake "$src" "$out" M="$tm" modules &&
		mkdir -p "$out/modules-root/kselftest/ktp/test_modules" &&
		cp "$tm"/*.ko "$out/modules-root/kselftest/ktp/test_modules/" &&
		kmake "$src" "$out" M="$tm" clean
}

# sum_results PASSED FAILED FILE...: the sum of the FILEs' last lines,
# each `N passed, N failed[, N skipped]` (results.py), with PASSED and
# FAILED more tests, in that form
sum_results() {
	local passed=$1 failed=$2

	shift 2
	tail -qn1 "$@" | awk -v p="$passed" -v f="$failed" '
		{ p += $1; f += $3; s += $5 }
		END {
			printf "%d passed, %d failed", p, f
			if (s) printf ", %d skipped", s
			printf "\n"
		}'
}

die() { echo "error: $*" >&2; exit 1; }
say() { echo "== $*"; }

# stamp MESSAGE: say it with the seconds since make check began
# (KTP_T0, which check.sh exports), or since this script began
KTP_T0=${KTP_T0:-$(date +%s)}
export KTP_T0
stamp() { say "[$(( $(date +%s) - KTP_T0 ))s] $*"; }

# Paths a patch adds are kernel paths. They live in kernel-tree-overlay/,
# except the selftests and documentation, which live at the project root.
overlay_path() {
	case $1 in
	tools/testing/selftests/ktp/*|Documentation/*) echo "$TOP/$1" ;;
	*) echo "$TOP/kernel-tree-overlay/$1" ;;
	esac
}

# judge_run TAG [ARGS...]: results.py on the logs `boot.sh check` wrote
# under TAG; every run must end with the lockdown checks. ARGS: more of
# results.py's options. The console around its first kernel reports goes
# to $LOGS/TAG-reports.txt (print_reports).
judge_run() {
	local tag=$1

	shift
	python3 "$TOP/harness/results.py" --smp "$SMP" --expected-skips "$TOP/harness/expected-skips" \
		--console "$LOGS/$tag-console.log" --kselftest "$LOGS/$tag-kselftest.log" \
		--qemu-rc "$LOGS/$tag-qemu.rc" --reports "$LOGS/$tag-reports.txt" \
		--require "KTP-HARNESS: lockdown: ktp_probes refused with EPERM" \
		--require "KTP-HARNESS: lockdown: ktp_profile refused with EPERM" "$@"
}

# print_reports TAG...: the console around each kernel report judge_run
# found in those runs, for CI's excerpt, which is the end of the output
print_reports() {
	local tag

	for tag in "$@"; do
		[ -s "$LOGS/$tag-reports.txt" ] || continue
		echo "== the console around the first kernel reports of $tag-console.log"
		cat "$LOGS/$tag-reports.txt"
	done
}
