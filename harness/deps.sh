#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what building, booting and checking KTP needs on Debian 12,
# or say what is missing when this is not root. `deps.sh bench`: also
# what make bench needs (gnuplot, for its plot); `deps.sh profile`: gdb,
# for make profile; `deps.sh list`: the packages, installing nothing.
set -euo pipefail

PKGS=(build-essential git python3 perl file rsync xz-utils
      linux-source-6.12 qemu-system-x86 busybox-static sparse coccinelle
      quilt ccache flex bison bc cpio kmod libelf-dev libssl-dev trace-cmd
      linux-perf python3-sphinx ocaml-nox dwarves binutils-dev zlib1g-dev
      systemtap-sdt-dev)
[ "${1:-}" != bench ] || PKGS+=(gnuplot-nox)
[ "${1:-}" != profile ] || PKGS+=(gdb)
# `deps.sh list`: print them, one a line (harness/fresh-run.sh)
[ "${1:-}" != list ] || { printf '%s\n' "${PKGS[@]}"; exit 0; }

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "== installing: ${missing[*]}"
if [ "$(id -u)" != 0 ]; then
	echo "error: missing packages; as root run: apt-get install ${missing[*]}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" > /tmp/ktp-apt.log 2>&1 ||
	{ tail /tmp/ktp-apt.log >&2; echo "error: apt-get install ${missing[*]} failed" >&2; exit 1; }
