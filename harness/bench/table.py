#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The table of `make bench`: the KTP-BENCH lines of the unpatched and the
patched kernel's console logs, side by side, with issue 12's targets and
whether each is met. Also writes a gnuplot script that plots the costs.
"""
import argparse
import re
import sys


ERRORS = []


def read_log(path):
    vals = {}
    with open(path, errors="replace") as f:
        for line in f:
            m = re.match(r"KTP-BENCH: (\w+) (-?[0-9.]+)\s*$", line)
            if m:
                vals[m.group(1)] = float(m.group(2))
            elif line.startswith("KTP-BENCH: error"):
                ERRORS.append(line.strip())
    return vals


# (key, label, kind): kind "call" is a cost added to getppid() (shown as
# +N over the same kernel's bare call), "abs" a figure of its own
ROWS = [
    ("syscall_baseline", "getppid(), nothing enabled", "abs"),
    ("kprobe_events_record", "kprobe_events, 1 fetch arg, recording", "call"),
    ("kprobe_events_false_filter", "kprobe_events, false event filter", "call"),
    ("bpf_kprobe_false", "BPF program on a kprobe, false", "call"),
    ("bpf_optkprobe_false", "BPF program on an optimized kprobe, false", "call"),
    ("bpf_rawtp_false", "BPF raw tracepoint sys_enter, false", "call"),
    ("bpf_fentry_false", "BPF fentry __task_pid_nr_ns, false", "call"),
    ("kprobe_events_task_pid_record", "kprobe_events __task_pid_nr_ns, recording", "call"),
    ("sys_enter_record", "raw_syscalls:sys_enter, recording", "call"),
    ("sys_enter_false_filter", "raw_syscalls:sys_enter, false filter", "call"),
    ("ktp_p_defined_disabled", "KTP p defined, disabled", "call"),
    ("ktp_p_const_false", "KTP p, condition 0 (dispatch floor)", "call"),
    ("ktp_p_false_jit", "KTP p, false condition, JIT", "call"),
    ("ktp_p_false_interp", "KTP p, false condition, interpreter", "call"),
    ("ktp_p_true_record", "KTP p, true condition, recording 1 value", "call"),
    ("ktp_p_record", "KTP p, no condition, recording 1 value", "call"),
    ("ktp_p_false10_jit", "KTP p, false 10-op/3-read condition, JIT", "call"),
    ("ktp_p_false10_interp", "KTP p, false 10-op/3-read condition, interp", "call"),
    ("ktp_p_strcmp16_worst", "KTP p, the worst string condition the limits allow", "call"),
    ("ktp_p_zero_read_jit", "KTP p, false condition reading a 0, JIT", "call"),
    ("ktp_p_opt_false_jit", "KTP p on an optimized kprobe, false", "call"),
    ("ktp_p_tramp_false", "KTP p __task_pid_nr_ns, trampoline, false", "call"),
    ("ktp_p_tramp_record", "KTP p __task_pid_nr_ns, trampoline, recording", "call"),
    ("ktp_tp_sys_enter_false", "KTP t on tracepoint sys_enter, false", "call"),
    ("ktp_tp_sys_enter_record", "KTP t on tracepoint sys_enter, recording", "call"),
    ("ktp_evt_sys_enter_false", "KTP e on event raw_syscalls:sys_enter, false", "call"),
    ("ktp_evt_sys_enter_record", "KTP e on event raw_syscalls:sys_enter, recording", "call"),
    ("ktp_p_current_false_jit", "KTP p, current->pid == X false, JIT", "call"),
    ("read_baseline", "read() of a byte of /dev/zero, nothing enabled", "abs"),
    ("ktp_read_const_false", "KTP p vfs_read, condition 0 (read floor)", "read"),
    ("ktp_read_chain_str_false_jit", "KTP p vfs_read, 3 '->' + string ==, false", "read"),
    ("switch_baseline", "a context switch (pipe ping-pong), nothing enabled", "abs"),
    ("ktp_tp_switch_arg_false", "KTP t sched_switch, $arg1 == X false", "switch"),
    ("ktp_tp_switch_prev_pid_false", "KTP t sched_switch, prev->pid == X false", "switch"),
    ("ufunc_baseline", "a call of a user function, nothing on it", "abs"),
    ("bpf_uprobe_false", "BPF program on a uprobe, false", "ufunc"),
    ("uprobe_events_record", "uprobe_events, 1 fetch arg, recording", "ufunc"),
    ("uprobe_events_false_filter", "uprobe_events, false event filter", "ufunc"),
    ("ktp_u_false_jit", "KTP p on PATH:OFFSET, false condition", "ufunc"),
    ("ktp_u_record", "KTP p on PATH:OFFSET, recording 1 value", "ufunc"),
    ("pagefault_off", "page fault, every event off", "abs"),
    ("pagefault_user_record", "page fault, page_fault_user recording", "abs"),
    ("pagefault_trap_entry", "page fault, trap_entry enabled", "abs"),
    ("define_kprobe", "definition: kprobe_events", "abs"),
    ("define_kprobe_filter4", "definition: kprobe_events + 4-term filter", "abs"),
    ("define_ktp", "definition: KTP", "abs"),
    ("define_ktp_cond10", "definition: KTP + 10-op condition", "abs"),
    ("define_kprobe_btf4", "definition: kprobe_events, 2 names + 2 chains", "abs"),
    ("define_ktp_btf4", "definition: KTP, the same BTF args", "abs"),
    ("ktp_module_load", "loading a module (ktp_test_mod), no KTP probe", "abs"),
    ("ktp_module_load_t50", "loading it with 50 t probes on its tracepoint", "abs"),
]


def added(v, key, base="syscall_baseline"):
    """What @key adds to the same kernel's bare getppid() (or @base), or
    None."""
    if key not in v or base not in v:
        return None
    return v[key] - v[base]


def added_read(v, key):
    """What @key adds to the same kernel's bare read() of a byte."""
    return added(v, key, "read_baseline")


def added_switch(v, key):
    """What @key adds to the same kernel's bare context switch."""
    return added(v, key, "switch_baseline")


def added_ufunc(v, key):
    """What @key adds to the same kernel's bare call of ufunc()."""
    return added(v, key, "ufunc_baseline")


def targets(u, p):
    """(key, text, met) for each target: met is None where a figure is
    missing. u and p are the unpatched and patched kernel's figures."""
    def t(key, text, fn, *need):
        if any(x is None for x in need):
            return (key, text, None)
        return (key, text, fn(*need))

    floor = added(p, "ktp_p_const_false")
    jit10 = added(p, "ktp_p_false10_jit")
    out = [
        t("syscall_baseline", "= unpatched (within 0.5)",
          lambda a, b: abs(a - b) <= 0.5, u.get("syscall_baseline"), p.get("syscall_baseline")),
        t("ktp_p_false_jit", "<= floor + 5",
          lambda a, f: a <= f + 5, added(p, "ktp_p_false_jit"), floor),
        t("ktp_p_true_record", "<= kprobe_events recording",
          lambda a, k: a <= k, added(p, "ktp_p_true_record"), added(p, "kprobe_events_record")),
        t("ktp_p_record", "<= kprobe_events recording",
          lambda a, k: a <= k, added(p, "ktp_p_record"), added(p, "kprobe_events_record")),
        t("ktp_p_false10_jit", "<= floor + 60",
          lambda a, f: a <= f + 60, jit10, floor),
        t("ktp_p_false10_interp", ">= 3 x (JIT - floor) above floor",
          lambda i, j, f: i - f >= 3 * (j - f), added(p, "ktp_p_false10_interp"), jit10, floor),
        t("ktp_p_tramp_false", "<= BPF fentry false + 5",
          lambda a, b: a <= b + 5, added(p, "ktp_p_tramp_false"),
          added(p, "bpf_fentry_false")),
        t("ktp_p_tramp_record", "<= kprobe_events recording - 100",
          lambda a, b: a <= b - 100, added(p, "ktp_p_tramp_record"),
          added(p, "kprobe_events_task_pid_record")),
        t("ktp_tp_sys_enter_false", "<= +120",
          lambda a: a <= 120, added(p, "ktp_tp_sys_enter_false")),
        t("ktp_tp_sys_enter_record", "<= sys_enter recording",
          lambda a, e: a <= e, added(p, "ktp_tp_sys_enter_record"), added(p, "sys_enter_record")),
        t("ktp_evt_sys_enter_false", "<= sys_enter false filter",
          lambda a, e: a <= e, added(p, "ktp_evt_sys_enter_false"), added(p, "sys_enter_false_filter")),
        t("pagefault_off", "<= unpatched + 2",
          lambda a, b: a <= b + 2, p.get("pagefault_off"), u.get("pagefault_off")),
        t("pagefault_trap_entry", "<= unpatched + 2",
          lambda a, b: a <= b + 2, p.get("pagefault_trap_entry"), u.get("pagefault_off")),
        t("define_ktp_cond10", "<= 600000, verifier included",
          lambda a: a <= 600000, p.get("define_ktp_cond10")),
        t("ktp_p_current_false_jit", "<= KTP p false (%di == X) + 10",
          lambda a, b: a <= b + 10, added(p, "ktp_p_current_false_jit"),
          added(p, "ktp_p_false_jit")),
        t("ktp_read_chain_str_false_jit", "<= read floor + 3 x 15",
          lambda a, f: a <= f + 45, added_read(p, "ktp_read_chain_str_false_jit"),
          added_read(p, "ktp_read_const_false")),
        t("ktp_u_false_jit", "<= BPF on a uprobe + 10",
          lambda a, b: a <= b + 10, added_ufunc(p, "ktp_u_false_jit"),
          added_ufunc(p, "bpf_uprobe_false")),
        t("ktp_u_record", "<= uprobe_events recording",
          lambda a, b: a <= b, added_ufunc(p, "ktp_u_record"),
          added_ufunc(p, "uprobe_events_record")),
        t("define_ktp_btf4", "<= kprobe_events, same args",
          lambda a, k: a <= k, p.get("define_ktp_btf4"), p.get("define_kprobe_btf4")),
    ]
    return {k: (text, met) for k, text, met in out}


def fmt(v, key, kind):
    if key not in v:
        return "-"
    if kind == "call":
        return "%+.1f" % added(v, key)
    if kind == "read":
        return "%+.1f" % added_read(v, key)
    if kind == "switch":
        return "%+.1f" % added_switch(v, key)
    if kind == "ufunc":
        return "%+.1f" % added_ufunc(v, key)
    return "%.1f" % v[key]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--unpatched", required=True)
    ap.add_argument("--patched", required=True)
    ap.add_argument("--date", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--plot")
    a = ap.parse_args()
    u, p = read_log(a.unpatched), read_log(a.patched)
    tg = targets(u, p)

    print("make bench, %s, Linux %s: guest instructions under QEMU -icount shift=0,sleep=off"
          % (a.date, a.version))
    print("(1 CPU; +N: added to one getppid() of the same kernel, or to the call, read, or")
    print(" context switch of the row above its group; '-': not run on that kernel)")
    print()
    w = max(len(r[1]) for r in ROWS)
    print(("%-*s %10s %10s  %-34s %s" % (w, "configuration", "unpatched", "patched",
                                         "target", "result")).rstrip())
    met = missed = 0
    for key, label, kind in ROWS:
        text, ok = tg.get(key, ("", None))
        res = ""
        if text:
            if ok is None:
                res = "miss (not measured)"
                missed += 1
            elif ok:
                res = "pass"
                met += 1
            else:
                res = "MISS"
                missed += 1
        print(("%-*s %10s %10s  %-34s %s" % (w, label, fmt(u, key, kind), fmt(p, key, kind),
                                             text, res)).rstrip())
    print()
    print("targets: %d met, %d missed" % (met, missed))
    for e in ERRORS:
        print(e)

    if a.plot:
        dat = a.plot.rsplit(".", 1)[0] + ".dat"
        png = a.plot.rsplit(".", 1)[0] + ".png"
        with open(dat, "w") as f:
            for key, label, kind in ROWS:
                if kind != "call":
                    continue
                vals = []
                for v in (u, p):
                    vals.append("%.1f" % added(v, key) if key in v else "NaN")
                f.write('"%s" %s\n' % (label, " ".join(vals)))
        with open(a.plot, "w") as f:
            f.write("""set terminal pngcairo size 1200,900 noenhanced font ",10"
set output "%s"
set title "Instructions added to one getppid() (Linux %s, QEMU -icount, %s)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics rotate by 90 right scale 0
set ylabel "guest instructions"
set grid ytics
set key top left
set bmargin 24
plot "%s" using 2:xtic(1) title "unpatched kernel", "" using 3 title "patched kernel"
""" % (png, a.version, a.date, dat))
    return 0


if __name__ == "__main__":
    sys.exit(main())
