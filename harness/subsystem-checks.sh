#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The checks the tracing maintainers run on a series, on the built tree
# (after harness/static-checks.sh, whose W=1 build directory they use):
#   - make coccicheck MODE=report on every C file the series adds or
#     changes: no report on a line the series added (a new file is all
#     added);
#   - make htmldocs SPHINXDIRS=trace: ktp.rst builds without a warning.
# [Ns] after a step: seconds since the script started. With --keys it
# only prints the key each file's coccicheck reports are kept under.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

W1OUT=$BUILD/kernel-w1
DOCS_OUT=$BUILD/docs
fail=0

[ -f "$W1OUT/.config" ] || die "run harness/static-checks.sh first"

# coccicheck over a tree of just the C files the series adds or changes
# (with the headers beside them), so that each semantic patch runs once
# over all of them: make coccicheck M=DIR, in report mode. Its reports
# name the copies: put the source tree's path back before judging them.
#
# Each file's reports are kept in harness/coccicheck-kept, under a key of
# all they depend on: the file's bytes, the semantic patches, spatch's
# version and the headers coccicheck includes into every file (it runs
# with --no-includes, so no other file counts). A file whose key is kept
# is not checked again: its kept reports are judged as if just made.
# (One semantic patch, locks/mini_lock.cocci, takes some 25 minutes on
# kernel/bpf/verifier.c alone, which the series changes in one function.)
# A file that changed is checked, and the kept reports are rewritten with
# the keys of this tree's files only; commit them with the change.
COCCI_SRC=$BUILD/cocci-src
KEPT=$TOP/harness/coccicheck-kept
rm -rf "$COCCI_SRC"
cocci_env=$({ spatch --version 2>&1 | sed -n 1p
	find "$SRC/scripts/coccinelle" -name '*.cocci' | LC_ALL=C sort | xargs cat
	cat "$SRC/scripts/coccicheck" "$W1OUT/include/generated/autoconf.h" \
		"$SRC/include/linux/kconfig.h" "$SRC/include/linux/compiler-version.h"
	} | sha256sum | cut -c1-16)
cocci_key() { # file in $SRC
	echo "$cocci_env-$(sha256sum < "$SRC/$1" | cut -c1-16)"
}

mapfile -t cfiles < <(git -C "$SRC" diff --diff-filter=AM --name-only ktp-base ktp -- '*.c')
declare -A target_key=()
for f in "${cfiles[@]}"; do
	target_key[$f]=1
	for h in "$SRC/$(dirname "$f")"/*.h; do
		[ -f "$h" ] && target_key[${h#$SRC/}]=1
	done
done
touch "$KEPT"
if [ "${1:-}" = --keys ]; then	# what each file is kept under, for a look
	for t in "${!target_key[@]}"; do
		echo "$(cocci_key "$t") $t"
	done
	exit 0
fi
: > "$LOGS/coccicheck.kept"
run=()
declare -A checked=()
for t in "${!target_key[@]}"; do
	key=$(cocci_key "$t")
	target_key[$t]=$key
	if grep -q "^$key	" "$KEPT"; then
		grep "^$key	." "$KEPT" | cut -f2- | sed "s|^|$SRC/$t:|" >> "$LOGS/coccicheck.kept" || true
	else
		mkdir -p "$COCCI_SRC/$(dirname "$t")"
		cp "$SRC/$t" "$COCCI_SRC/$t"
		run+=("$t")
		checked[$t]=1
	fi
done
: > "$LOGS/coccicheck.raw"
if [ ${#run[@]} -gt 0 ]; then
	kmake "$SRC" "$W1OUT" coccicheck MODE=report M="$COCCI_SRC" > "$LOGS/coccicheck.raw" 2>&1 ||
		{ tail -20 "$LOGS/coccicheck.raw" >&2; die "coccicheck failed to run"; }
fi
# the kept reports: this tree's files, each with its reports or none
{
	for t in "${!target_key[@]}"; do
		key=${target_key[$t]}
		if [ -n "${checked[$t]:-}" ]; then
			echo "$key	"
			grep "^$COCCI_SRC/$t:" "$LOGS/coccicheck.raw" |
				sed "s|^$COCCI_SRC/$t:|$key	|" || true
		else
			grep "^$key	" "$KEPT"
		fi
	done
} | LC_ALL=C sort -u > "$LOGS/coccicheck.kept-new"
cmp -s "$LOGS/coccicheck.kept-new" "$KEPT" || cp "$LOGS/coccicheck.kept-new" "$KEPT"
{ sed "s|^$COCCI_SRC/|$SRC/|" "$LOGS/coccicheck.raw"; cat "$LOGS/coccicheck.kept"; } > "$LOGS/coccicheck.log"
if ! "$TOP/harness/new-warnings.py" "$LOGS/coccicheck.log" "$SRC" ktp-base ktp >&2; then
	echo "coccicheck: reports on lines the series added (${LOGS#$TOP/}/coccicheck.log)" >&2
	fail=1
else
	stamp "coccicheck MODE=report: nothing on the series' lines of ${#cfiles[@]} C files (${#run[@]} of ${#target_key[@]} files checked, the others' reports kept in ${KEPT#$TOP/})"
fi

# htmldocs: every warning that names ktp.rst (the trace book's others are
# upstream's). It writes the netlink specs' pages into the source tree,
# which must stay clean: those go again after it.
htmldocs_rc=0
kmake "$SRC" "$DOCS_OUT" SPHINXDIRS=trace htmldocs > "$LOGS/htmldocs.log" 2>&1 || htmldocs_rc=$?
git -C "$SRC" clean -fdqX -- Documentation
if [ $htmldocs_rc != 0 ]; then
	tail -20 "$LOGS/htmldocs.log" >&2
	echo "htmldocs: the trace book does not build" >&2
	fail=1
elif grep -E 'ktp\.rst|trace/ktp\b' "$LOGS/htmldocs.log" | grep -iE 'warning|error|critical' >&2; then
	echo "htmldocs: warnings in ktp.rst (${LOGS#$TOP/}/htmldocs.log)" >&2
	fail=1
elif [ ! -f "$DOCS_OUT/Documentation/output/trace/ktp.html" ]; then
	echo "htmldocs: no trace/ktp.html" >&2
	fail=1
else
	stamp "htmldocs SPHINXDIRS=trace: ktp.rst builds without a warning"
fi

[ $fail = 0 ] || die "subsystem checks failed"
