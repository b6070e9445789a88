#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Configure (tinyconfig + harness/ktp.config) and build the patched
# kernel out of tree in build/kernel, with ccache, and its modules
# (install_modules in harness/lib.sh).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

FRAGMENT=${KTP_CONFIG:-$TOP/harness/ktp.config}
KOUT=${KTP_KOUT:-$KOUT}
SRC=${KTP_SRC:-$SRC}
BUILD_LOG=$LOGS/${KTP_BUILD_LOG:-build.log}

[ -e "$SRC/.git" ] || die "no kernel tree: run make tree"
mkdir -p "$KOUT" "$LOGS"

# Configure in a scratch file and install it only when it changed, so an
# unchanged configuration does not touch the build.
kmake "$SRC" "$KOUT" -s KCONFIG_CONFIG=.config.new tinyconfig >/dev/null
KCONFIG_CONFIG=$KOUT/.config.new "$SRC/scripts/kconfig/merge_config.sh" -m -O "$KOUT" \
	"$KOUT/.config.new" "$FRAGMENT" > "$LOGS/merge_config.log"
kmake "$SRC" "$KOUT" -s KCONFIG_CONFIG=.config.new olddefconfig >/dev/null
missing=0
while read -r line; do
	if ! grep -qxF "$line" "$KOUT/.config.new"; then
		echo "config: $line was asked for by $(basename "$FRAGMENT") but is not in the final .config" >&2
		missing=1
	fi
done < <(grep -E '^(CONFIG_|# CONFIG_)' "$FRAGMENT")
[ $missing = 0 ] || die "the kernel configuration lacks options the fragment asks for"
if ! cmp -s "$KOUT/.config.new" "$KOUT/.config"; then
	mv "$KOUT/.config.new" "$KOUT/.config"
else
	rm -f "$KOUT/.config.new"
fi

say "building $(cat "$BUILD/base-version") + $(git -C "$SRC" rev-list --count ktp-base..HEAD) patches in ${KOUT#$TOP/}"
start=$(date +%s)
if ! build_images "$SRC" "$KOUT" > "$BUILD_LOG" 2>&1; then
	grep -E 'error|Error' "$BUILD_LOG" | head -20 >&2
	die "building the kernel or its modules failed; see ${BUILD_LOG#$TOP/}"
fi
say "kernel built in $(( $(date +%s) - start ))s: ${KOUT#$TOP/}/arch/x86/boot/bzImage"
