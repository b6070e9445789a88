#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The scripted demo `make run` shows when no terminal is attached.
set -x
cd /sys/kernel/tracing
ls -l ktp_probes
cat ktp_probes
echo 'p vfs_read' >> ktp_probes
cd /kselftest && ./run_kselftest.sh
