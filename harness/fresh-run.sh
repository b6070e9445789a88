#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# How README's "fresh machine" figure was measured, on a machine that has
# run make check before: a clean clone of this repository in DIR (with
# ../shared beside it, as CI has), an empty ccache, and none of the
# packages harness/deps.sh installs, nor what they pulled in, with the
# apt cache emptied so that apt-get downloads them again. Then .ci/run,
# timed, its output in DIR/check.log. It removes packages: run it as
# root, on a machine meant for it.
#   harness/fresh-run.sh DIR
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:?usage: harness/fresh-run.sh DIR}
# what deps.sh installs but what the machine needs itself (git, python3,
# ...); build-essential goes, as a meta-package, and what it pulled in
pkgs=$("$top/harness/deps.sh" list | grep -vxE 'git|python3|perl|file|rsync|xz-utils|kmod|cpio')
pkgs="$pkgs gnuplot-nox"

mkdir -p "$dir"
cd "$dir" || exit 1
rm -rf ktp ccache
[ -e shared ] || ln -s "$top/../shared" shared
git clone -q "$top" ktp || exit 1
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086 # one word a package
apt-get -y -qq --auto-remove remove $pkgs > apt-remove.log 2>&1
apt-get clean
echo "removed $(grep -c '^Removing' apt-remove.log) packages"
export CCACHE_DIR=$dir/ccache
cd ktp || exit 1
start=$(date +%s)
.ci/run > ../check.log 2>&1
rc=$?
echo "make check: exit $rc in $(( $(date +%s) - start )) s" | tee -a ../check.log
exit $rc
