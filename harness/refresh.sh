#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The reverse of tree.sh, for developers: turn the commits ktp-base..HEAD
# of build/linux back into series, patches/, harness/new-files and the new
# files at their places in the project. Edit and commit in build/linux
# (git rebase -i works), then run this.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

cd "$SRC"
[ -z "$(git status --porcelain --ignored)" ] || die "build/linux has uncommitted changes"
commits=$(git rev-list --reverse ktp-base..HEAD)
[ -n "$commits" ] || die "no commits on top of ktp-base"

# A new file is kept in the project in its final form. A later patch may
# change it (KTP's Makefile grows with each patch's objects), never
# delete or rename it: tree.sh derives the text the adding patch adds by
# taking the later hunks back off the final text.
declare -A added_by=()
for c in $commits; do
	while read -r status f; do
		case $status in
		A) added_by[$f]=$(git log -1 --format=%s "$c") ;;
		M) ;;
		*) [ -z "${added_by[$f]:-}" ] ||
			die "$(git log -1 --format='%h %s' "$c") deletes $f, which \"${added_by[$f]}\" adds; squash it there"
		   ;;
		esac
	done < <(git diff --no-renames --name-status "$c^" "$c")
done

rm -rf "$TOP/patches" "$TOP/kernel-tree-overlay" "$TOP/tools/testing/selftests/ktp" "$TOP/Documentation"
mkdir -p "$TOP/patches" "$TOP/kernel-tree-overlay"
: > "$TOP/series"
{
	echo "# The new files each patch adds: PATCH KERNEL-PATH, one a line."
	echo "# Written by harness/refresh.sh; read by harness/tree.sh."
} > "$TOP/harness/new-files"

for c in $commits; do
	name=$(git log -1 --format=%f "$c" | cut -c1-60).patch
	echo "$name" >> "$TOP/series"
	# --no-renames: a file a commit renames is deleted by its patch and
	# added whole under its new name (a rename limited to the new path
	# would leave the old file in the tree)
	mapfile -t added < <(git diff --no-renames --diff-filter=A --name-only "$c^" "$c")
	mapfile -t changed < <(git diff --no-renames --diff-filter=a --name-only "$c^" "$c")
	for f in "${added[@]}"; do
		echo "$name $f" >> "$TOP/harness/new-files"
		dst=$(overlay_path "$f")
		mkdir -p "$(dirname "$dst")"
		git show "HEAD:$f" > "$dst"
		mode=$(git ls-tree HEAD -- "$f" | awk '{print $1}')
		case $mode in
		100755) chmod +x "$dst" ;;
		120000) rm "$dst"; ln -s "$(git show "HEAD:$f")" "$dst" ;;
		esac
	done
	{
		git log -1 --format='From: %an <%ae>%nSubject: [PATCH] %s%n%n%b' "$c" | sed '${/^$/d}'
		echo "---"
		if [ ${#changed[@]} -gt 0 ]; then
			git diff --no-renames --stat=72 --summary "$c^" "$c" -- "${changed[@]}"
			echo
			git diff --no-renames "$c^" "$c" -- "${changed[@]}"
		fi
	} > "$TOP/patches/$name"
done
say "refreshed $(wc -l < "$TOP/series") patches from build/linux"
