#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Export the series in its LKML form (git format-patch --cover-letter)
# into build/series, and check that it git am's cleanly onto a fresh
# base tree and gives exactly the assembled tree.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

rm -rf "$SERIES_OUT"
git -C "$SRC" format-patch -q --cover-letter --cover-from-description=subject \
	--base=ktp-base -o "$SERIES_OUT" ktp-base..ktp
say "exported $(ls "$SERIES_OUT" | grep -vc '^0000-') patches + cover letter to ${SERIES_OUT#$TOP/}"

base_worktree "$AMTREE"
git -C "$AMTREE" am --abort >/dev/null 2>&1 || true
git -C "$AMTREE" checkout -q --detach ktp-base
git -C "$AMTREE" reset -q --hard ktp-base
git -C "$AMTREE" clean -fdqx
if ! git -C "$AMTREE" am -q $(ls "$SERIES_OUT"/*.patch | grep -v '/0000-') > "$LOGS/git-am.log" 2>&1; then
	cat "$LOGS/git-am.log" >&2
	die "the exported series does not git am onto Linux $(cat "$BUILD/base-version")"
fi
git -C "$SRC" diff --quiet ktp "$(git -C "$AMTREE" rev-parse HEAD)" ||
	die "git am of the exported series gives a tree other than build/linux"
say "git am onto a fresh $(cat "$BUILD/base-version") tree: clean, identical tree"
