# SPDX-License-Identifier: GPL-2.0
#
# KTP: build, boot and test the patched Linux 6.12 kernel.
#   make run     build the patched kernel and boot it in QEMU
#   make check   every test: static checks, KUnit and kselftests on the
#                test kernel and on a debug kernel
# Everything generated goes to build/.

H := harness
SHELL := /bin/bash

.PHONY: all deps tree series kernel initramfs run bench profile check check-debug check-up static upstream-base refresh clean help

all: help

help:
	@echo "make run     build the patched kernel, boot it in QEMU, show KTP working"
	@echo "make check   every test (static checks; KUnit and kselftests on the test and debug kernels)"
	@echo "make bench   instructions each kind of probe adds to a syscall (QEMU -icount)"
	@echo "make profile P=ROW [F=FUNC]  where a bench row's instructions go (gdb)"
	@echo "make check-debug  only the debug-kernel part of make check (KASAN, kmemleak, lockdep...)"
	@echo "make check-up  the patched kernel without CONFIG_SMP, on one CPU: KUnit and the module-free probe tests"
	@echo "make upstream-base  run upstream's ftrace selftests on the unpatched base and keep the results"
	@echo "make tree | series | kernel | initramfs | static | refresh | clean"

deps:
	@$(H)/deps.sh

tree: deps
	@$(H)/tree.sh

series: tree
	@mkdir -p build/logs
	@$(H)/series.sh

kernel: tree
	@$(H)/build.sh

initramfs: kernel
	@$(H)/initramfs.sh

# On a terminal: an interactive shell in the guest. Otherwise (CI=true,
# or no tty): the scripted demo.
run: initramfs
	@if [ -t 0 ] && [ -t 1 ] && [ "$${CI:-}" != true ]; then \
		$(H)/boot.sh shell; \
	else \
		$(H)/boot.sh demo; \
	fi

# Instructions each kind of probe adds to a system call, under
# QEMU -icount: deterministic, so kept out of make check.
bench: initramfs
	@$(H)/bench.sh

# Where a row's instructions go: make profile P=ktp_p_record, or
# P=define_ktp_cond10 F=ktp_parse_args (harness/profile/setups)
profile: initramfs
	@$(H)/profile/profile.sh "$(P)" $(F)

static: series kernel
	@$(H)/static-checks.sh

check:
	@$(H)/check.sh

# Only the KASAN/kmemleak/lockdep/UBSAN kernel's part of check; after check.
check-debug:
	@$(H)/check-debug.sh

# The kernel without CONFIG_SMP (harness/up-check.sh): a third build,
# so not part of check.
check-up: initramfs
	@$(H)/up-check.sh

# Upstream's ftrace selftests on the unpatched base, kept in
# harness/upstream-base/ for make check (harness/upstream-base.sh).
upstream-base: initramfs
	@$(H)/upstream-base.sh all

refresh:
	@$(H)/refresh.sh

clean:
	rm -rf build
