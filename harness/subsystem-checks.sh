#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The checks the tracing maintainers run on a series, on the built tree
# (after harness/static-checks.sh, whose W=1 build directory they use):
#   - make coccicheck MODE=report on every C file the series adds or
#     changes: no report on a line the series added (a new file is all
#     added);
#   - make htmldocs SPHINXDIRS=trace: ktp.rst builds without a warning.
# [Ns] after a step: seconds since the script started.
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
COCCI_SRC=$BUILD/cocci-src
rm -rf "$COCCI_SRC"
mapfile -t cfiles < <(git -C "$SRC" diff --diff-filter=AM --name-only ktp-base ktp -- '*.c')
for f in "${cfiles[@]}"; do
	mkdir -p "$COCCI_SRC/$(dirname "$f")"
	cp "$SRC/$f" "$COCCI_SRC/$f"
	cp "$SRC/$(dirname "$f")"/*.h "$COCCI_SRC/$(dirname "$f")/" 2> /dev/null || true
done
if [ ${#cfiles[@]} -gt 0 ]; then
	kmake "$SRC" "$W1OUT" coccicheck MODE=report M="$COCCI_SRC" > "$LOGS/coccicheck.raw" 2>&1 ||
		{ tail -20 "$LOGS/coccicheck.raw" >&2; die "coccicheck failed to run"; }
	sed "s|^$COCCI_SRC/|$SRC/|" "$LOGS/coccicheck.raw" > "$LOGS/coccicheck.log"
	if ! "$TOP/harness/new-warnings.py" "$LOGS/coccicheck.log" "$SRC" ktp-base ktp >&2; then
		echo "coccicheck: reports on lines the series added (${LOGS#$TOP/}/coccicheck.log)" >&2
		fail=1
	else
		stamp "coccicheck MODE=report: nothing on the series' lines of ${#cfiles[@]} C files"
	fi
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
