#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Assemble the patched kernel tree: extract the Debian linux-source-6.12
# tarball into build/linux, commit it as the base (tag ktp-base), then
# turn every entry of `series` into one commit holding the patch (applied
# with fuzz 0) and the new files harness/new-files assigns to it.
#
# A new file is kept in the project in its final form. A later patch may
# grow it (a Makefile of KTP's directory gains each patch's objects): the
# text its adding patch adds is the final text with the later patches'
# hunks on it taken back, last first, and the assembled tree must end
# with the final text again.
#
# Commits are built in a scratch index and then checked out, so files the
# series does not change keep their timestamps and builds stay incremental.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

NEWFILES=$TOP/harness/new-files

check_new_files() {
	local f p q n bad=0

	# every declared file exists and belongs to a patch in the series
	while read -r p f; do
		[ -e "$(overlay_path "$f")" ] || [ -L "$(overlay_path "$f")" ] ||
			{ echo "new-files: $f ($p) does not exist" >&2; bad=1; }
		[ -n "${POS[$p]:-}" ] ||
			{ echo "new-files: $p is not in series" >&2; bad=1; }
	done < <(grep -v '^#' "$NEWFILES" | grep .)

	# each path is declared once
	for f in $(grep -v '^#' "$NEWFILES" | awk '{print $2}' | sort | uniq -d); do
		echo "new-files: $f is declared more than once" >&2; bad=1
	done

	# every file of the overlay, the selftests and the documentation is declared
	while read -r f; do
		n=$(awk -v f="$f" '$2 == f' "$NEWFILES" | wc -l)
		[ "$n" = 1 ] || { echo "new-files: $f belongs to no patch" >&2; bad=1; }
	done < <(cd "$TOP" && { (cd kernel-tree-overlay && find . -type f -o -type l) ;
			      for d in tools Documentation; do [ ! -d $d ] || find $d -type f -o -type l; done; } |
		 sed 's|^\./||' | sort)

	# a patch may change a new file only after the patch that adds it,
	# and never delete it
	while read -r p f; do
		for q in ${CHANGERS[$f]:-}; do
			[ "${POS[$q]}" -gt "${POS[$p]:-0}" ] ||
				{ echo "patches/$q changes $f, which the later $p adds" >&2; bad=1; }
			if awk -v f="$f" '/^diff --git /{d = ($3 == "a/" f)} d && /^deleted file mode/{x = 1} END{exit !x}' \
				"$TOP/patches/$q"; then
				echo "patches/$q deletes $f, which $p adds" >&2; bad=1
			fi
		done
	done < <(grep -v '^#' "$NEWFILES" | grep .)

	# an overlay path must not shadow a root one
	if [ -d "$TOP/kernel-tree-overlay/tools/testing/selftests/ktp" ] ||
	   [ -d "$TOP/kernel-tree-overlay/Documentation" ]; then
		echo "kernel-tree-overlay/ must not hold selftests/ktp or Documentation" >&2; bad=1
	fi
	[ $bad = 0 ] || die "harness/new-files does not match the files in the project"
}

# SERIES: the patches of `series`, in order; POS[PATCH]: its place there,
# from 1; CHANGERS[FILE]: the patches whose diff changes FILE, in order
mapfile -t SERIES < <(sed 's/#.*//; s/[[:space:]]*$//' "$TOP/series" | grep .)
declare -A POS=() CHANGERS=()
index_series() {
	local i q f

	for i in "${!SERIES[@]}"; do
		q=${SERIES[$i]}
		POS[$q]=$((i + 1))
		[ -f "$TOP/patches/$q" ] || continue
		while read -r f; do
			CHANGERS[$f]+="$q "
		done < <(sed -n 's|^diff --git a/\(.*\) b/.*|\1|p' "$TOP/patches/$q")
	done
}

# new_file_blob PATCH FILE: write the text of FILE as PATCH adds it (its
# final text, less the hunks of the later patches that change it) to the
# object store of $GIT_DIR, and print its id
new_file_blob() {
	local p=$1 f=$2 q later=() tmp blob

	for q in ${CHANGERS[$f]:-}; do
		[ "${POS[$q]}" -gt "${POS[$p]}" ] && later=("$q" "${later[@]}")
	done
	if [ ${#later[@]} = 0 ]; then
		git hash-object -w "$(overlay_path "$f")"
		return
	fi
	tmp=$(mktemp -d)
	mkdir -p "$tmp/$(dirname "$f")"
	cp "$(overlay_path "$f")" "$tmp/$f"
	for q in "${later[@]}"; do
		(cd "$tmp" && env -u GIT_DIR -u GIT_INDEX_FILE GIT_CEILING_DIRECTORIES=/ \
			git apply -R -p1 --include="$f" "$TOP/patches/$q") ||
			{ rm -rf "$tmp"; die "$f: the hunks of patches/$q do not come off its final text"; }
	done
	blob=$(git hash-object -w "$tmp/$f")
	rm -rf "$tmp"
	echo "$blob"
}

extract_base() {
	local stamp

	stamp=$(stat -c '%s %Y' "$TARBALL" 2>/dev/null) ||
		die "$TARBALL missing: install linux-source-6.12 (make deps)"
	if [ -d "$SRC/.git" ] && git -C "$SRC" rev-parse -q --verify ktp-base >/dev/null &&
	   [ "$(cat "$BUILD/base-tarball" 2>/dev/null)" = "$stamp" ]; then
		return
	fi
	say "extracting $TARBALL"
	rm -rf "$SRC" "$AMTREE" "$BUILD/extract"
	mkdir -p "$BUILD/extract"
	tar -xf "$TARBALL" -C "$BUILD/extract"
	mv "$BUILD/extract"/linux-source-6.12 "$SRC"
	rmdir "$BUILD/extract"
	git -C "$SRC" init -q -b base
	git -C "$SRC" add -A -f .
	GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
		git -C "$SRC" commit -q -m "Linux $(make -s -C "$SRC" kernelversion) (Debian linux-source-6.12)"
	git -C "$SRC" tag ktp-base
	echo "$stamp" > "$BUILD/base-tarball"
}

apply_series() {
	local parent p f path mode blob tree info msg out
	local idx=$BUILD/series.index

	export GIT_DIR=$SRC/.git GIT_INDEX_FILE=$idx
	rm -f "$idx"
	git read-tree ktp-base
	parent=$(git rev-parse ktp-base)
	while read -r p; do
		[ -f "$TOP/patches/$p" ] || die "series names $p but patches/$p is missing"
		if grep -q '^diff --git ' "$TOP/patches/$p"; then
			if ! out=$(git apply --cached -v -p1 "$TOP/patches/$p" 2>&1); then
				echo "$out" | grep -v '^Checking patch' >&2
				die "patch $p does not apply to Linux $(cat "$BUILD/base-version") (fuzz 0); the failing hunk is shown above"
			fi
		fi
		while read -r f; do
			path=$(overlay_path "$f")
			if [ -L "$path" ]; then
				mode=120000; blob=$(readlink "$path" | tr -d '\n' | git hash-object -w --stdin)
			else
				mode=100644; [ -x "$path" ] && mode=100755
				blob=$(new_file_blob "$p" "$f")
			fi
			git update-index --add --cacheinfo "$mode,$blob,$f"
		done < <(awk -v p="$p" '$1 == p {print $2}' "$TOP/harness/new-files")
		tree=$(git write-tree)
		info=$(git mailinfo "$BUILD/msg" /dev/null < "$TOP/patches/$p")
		msg=$(sed -n 's/^Subject: //p' <<<"$info")
		[ -n "$msg" ] || die "patch $p has no Subject"
		parent=$(GIT_AUTHOR_NAME=$(sed -n 's/^Author: //p' <<<"$info") \
			 GIT_AUTHOR_EMAIL=$(sed -n 's/^Email: //p' <<<"$info") \
			 GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
			 git commit-tree "$tree" -p "$parent" -F <(printf '%s\n\n' "$msg"; cat "$BUILD/msg"))
	done < <(printf '%s\n' "${SERIES[@]}")
	# every new file ends as the project holds it
	while read -r p f; do
		[ -L "$(overlay_path "$f")" ] && continue
		[ "$(git rev-parse "$parent:$f")" = "$(git hash-object "$(overlay_path "$f")")" ] ||
			die "$f: the series ends with a text other than the project's"
	done < <(grep -v '^#' "$TOP/harness/new-files" | grep .)
	rm -f "$idx"
	unset GIT_DIR GIT_INDEX_FILE

	git -C "$SRC" checkout -q -B ktp "$parent"
	git -C "$SRC" clean -fdqx
	git -C "$SRC" config branch.ktp.description "$(cat "$TOP/harness/cover-letter")"
}

mkdir -p "$BUILD"
index_series
check_new_files
if [ -d "$SRC/.git" ] && [ -n "$(git -C "$SRC" status --porcelain --ignored)" ]; then
	die "build/linux has uncommitted changes: commit them and run 'make refresh', or discard them"
fi
extract_base
make -s -C "$SRC" kernelversion > "$BUILD/base-version"
say "base: Linux $(cat "$BUILD/base-version") ($(git -C "$SRC" rev-parse --short ktp-base))"
apply_series
say "series: $(git -C "$SRC" rev-list --count ktp-base..ktp) patches applied, tree at $(git -C "$SRC" rev-parse --short ktp)"
