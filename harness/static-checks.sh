#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The static checks of `make check`, on the exported series and the
# built tree (run after harness/build.sh and harness/series.sh):
#   - no selftest negates a command ("! cmd") where set -e ignores it
#     (harness/check-negations.py, on the project's own test.d),
#   - checkpatch.pl with checkpatch.conf on every exported patch,
#   - sparse (C=2) on the C files the series adds,
#   - W=1: no warning in a file the series adds or changes,
#   - kernel-doc on the C files and headers the series adds,
#   - KTP's layers: each of its files includes only the headers
#     of the files below it, a header declares only its own file's
#     functions, and no include makes a circle (harness/ktp-layers.py).
# (That each patch builds on its own is harness/bisect.sh's.)
# [Ns] before a step: when it ended, in seconds since make check began
# (or this script, run alone).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

W1OUT=$BUILD/kernel-w1
fail=0

# The selftests: set -e ignores a command negated with "!", which then
# asserts nothing. The checker's self-test first; no build needed.
if out=$("$TOP/harness/check-negations.py" --self-test) &&
	out=$("$TOP/harness/check-negations.py" "$TOP/tools/testing/selftests/ktp/test.d"); then
	stamp "$out"
else
	echo "$out" >&2
	fail=1
fi

# checkpatch
mapfile -t cp_opts < <(grep -v '^#' "$TOP/checkpatch.conf" | grep . | tr ' ' '\n')
for p in "$SERIES_OUT"/[0-9]*.patch; do
	case $p in */0000-cover-letter.patch) continue ;; esac
	if ! out=$(cd "$SRC" && perl scripts/checkpatch.pl "${cp_opts[@]}" "$p" 2>&1); then
		echo "$out" >&2
		echo "checkpatch: $(basename "$p") is not clean" >&2
		fail=1
	fi
done
[ $fail = 0 ] && stamp "checkpatch ${cp_opts[*]}: every patch clean"

mapfile -t added < <(git -C "$SRC" diff --diff-filter=A --name-only ktp-base ktp)

# MAINTAINERS covers every new file, and the KTP entry every KTP file.
# The KTP entry's F: patterns, matched as get_maintainer.pl's
# file_match_pattern() does (a prefix; without a trailing "/", at the same
# depth), in this shell: get_maintainer.pl takes some 0.4 s a file. Every
# other new file runs it: a section besides THE REST must name someone.
mapfile -t ktp_f < <(awk '/^TRACING KTP /{s=1; next} s && /^$/{exit} s && /^F:/{print $2}' \
	"$SRC/MAINTAINERS")
[ ${#ktp_f[@]} -gt 0 ] || { echo "MAINTAINERS: no KTP entry" >&2; fail=1; }
ktp_covers() { # file
	local p depth=${1//[^\/]/}

	for p in "${ktp_f[@]}"; do
		# shellcheck disable=SC2053 # the pattern is a glob
		case $p in
		*/) [[ $1 == $p* ]] && return 0 ;;
		*) [[ $1 == $p* && ${p//[^\/]/} == "$depth" ]] && return 0 ;;
		esac
	done
	return 1
}
for f in "${added[@]}"; do
	case $f in
	*ktp*) ktp_covers "$f" ||
		{ echo "MAINTAINERS: the KTP entry does not cover $f" >&2; fail=1; } ;;
	*) m=$(cd "$SRC" && perl scripts/get_maintainer.pl --nogit --nogit-fallback --nol \
		--norolestats --sections -f "$f" 2>&1) || true
	   awk '/^THE REST$/ {r = 1} /^$/ {r = 0} !r' <<<"$m" | grep -q '^M:' ||
		{ echo "MAINTAINERS: nobody maintains $f" >&2; fail=1; } ;;
	esac
done
[ $fail = 0 ] && stamp "MAINTAINERS: every one of ${#added[@]} new files has a maintainer"
mapfile -t touched < <(git -C "$SRC" diff --name-only ktp-base ktp)
new_c=() new_doc=() w1_objs=()
for f in "${added[@]}"; do
	case $f in
	tools/*) ;;
	*.c) new_c+=("$f"); new_doc+=("$f") ;;
	*.h) new_doc+=("$f") ;;
	esac
done
for f in "${touched[@]}"; do
	case $f in
	tools/*) ;;
	*.c) [ -f "$KOUT/${f%.c}.o" ] && w1_objs+=("${f%.c}.o") ;;
	esac
done
for f in "${new_c[@]}"; do
	[ -f "$KOUT/${f%.c}.o" ] || { echo "$f is not built by the test configuration" >&2; fail=1; }
done

# W=1 and sparse, in a build directory of their own so that the kernel
# build stays incremental.
mkdir -p "$W1OUT"
cp "$KOUT/.config" "$W1OUT/.config.new"
cmp -s "$W1OUT/.config.new" "$W1OUT/.config" && rm "$W1OUT/.config.new" ||
	mv "$W1OUT/.config.new" "$W1OUT/.config"
kmake "$SRC" "$W1OUT" -s olddefconfig > /dev/null
if [ ${#w1_objs[@]} -gt 0 ]; then
	kmake "$SRC" "$W1OUT" W=1 "${w1_objs[@]}" > "$LOGS/w1.log" 2>&1 ||
		{ tail -20 "$LOGS/w1.log" >&2; die "W=1 build of ${w1_objs[*]} failed"; }
	touched_re=$(printf '%s\n' "${touched[@]}" | sed 's/[.]/[.]/g' | paste -sd'|')
	if grep -E "^($SRC/)?($touched_re):[0-9]+:[0-9]+: warning" "$LOGS/w1.log" >&2; then
		echo "W=1: warnings in files the series touches (${LOGS#$TOP/}/w1.log)" >&2
		fail=1
	else
		stamp "W=1: no warning in ${#touched[@]} touched files (${#w1_objs[@]} objects rebuilt)"
	fi
fi
# sparse on every C file the series adds or changes that this kernel
# builds: no warning on a line the series added (a new file is all added)
if [ ${#w1_objs[@]} -gt 0 ]; then
	kmake "$SRC" "$W1OUT" C=2 "${w1_objs[@]}" > "$LOGS/sparse.log" 2>&1 ||
		{ tail -20 "$LOGS/sparse.log" >&2; die "sparse build failed"; }
	if ! "$TOP/harness/new-warnings.py" "$LOGS/sparse.log" "$SRC" ktp-base ktp >&2; then
		echo "sparse: warnings on lines the series added (${LOGS#$TOP/}/sparse.log)" >&2
		fail=1
	else
		stamp "sparse: no warning on the series' lines of ${w1_objs[*]}"
	fi
fi

# kernel-doc
if [ ${#new_doc[@]} -gt 0 ]; then
	if ! out=$(cd "$SRC" && perl scripts/kernel-doc -none -Wall "${new_doc[@]}" 2>&1) || [ -n "$out" ]; then
		echo "$out" >&2
		echo "kernel-doc: warnings" >&2
		fail=1
	else
		stamp "kernel-doc -Wall: clean on ${#new_doc[@]} files"
	fi
fi

# The layers of KTP: every file of kernel/trace/ktp/ but the KUnit tests
# (which test all of it), and the control file, kernel/trace/trace_ktp.c
mapfile -t layered < <(cd "$SRC/kernel/trace/ktp" && ls -- *.[ch] | grep -v '_test\.c$')
layered+=(../trace_ktp.c)
if out=$("$TOP/harness/ktp-layers.py" "$SRC/kernel/trace/ktp" "${layered[@]}"); then
	stamp "layers: ${out##*$'\n'}"
else
	echo "$out" >&2
	echo "layers: KTP's files call up, or in a circle" >&2
	fail=1
fi

[ $fail = 0 ] || die "static checks failed"
