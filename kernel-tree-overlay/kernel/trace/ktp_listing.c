// SPDX-License-Identifier: GPL-2.0
/*
 * KTP's expression compiler: the listing of a probe's program in
 * ktp_programs, one instruction a line as "bpftool prog dump xlated"
 * prints them, by the BPF disassembler.
 */
#include <linux/filter.h>
#include <linux/kallsyms.h>
#include <linux/seq_file.h>

#include "../bpf/disasm.h"
#include "ktp_expr.h"

/* What ktp_prog_show_insns() passes print_bpf_insn()'s callbacks */
struct ktp_dump {
	struct seq_file		*m;
	const struct ktp_prog	*kp;
	bool			raw_ok;		/* may show kernel addresses */
	char			buf[KSYM_SYMBOL_LEN + 24];
};

static __printf(2, 3) void ktp_print_insn(void *private_data,
					  const char *fmt, ...)
{
	struct ktp_dump *d = private_data;
	va_list args;

	va_start(args, fmt);
	seq_vprintf(d->m, fmt, args);
	va_end(args);
}

static const char *ktp_call_name(void *private_data,
				 const struct bpf_insn *insn)
{
	if (insn->imm == BPF_CALL_IMM(ktp_bpf_read))
		return "ktp_bpf_read";
	if (insn->imm == BPF_CALL_IMM(ktp_bpf_strcmp))
		return "ktp_bpf_strcmp";
	if (insn->imm == BPF_CALL_IMM(ktp_bpf_tp_enter))
		return "ktp_bpf_tp_enter";
	if (insn->imm == BPF_CALL_IMM(ktp_bpf_tp_record))
		return "ktp_bpf_tp_record";
	if (insn->imm == BPF_CALL_IMM(ktp_bpf_tp_false))
		return "ktp_bpf_tp_false";
	return NULL;
}

/*
 * A 64-bit immediate: a string literal's address shows as the literal,
 * a kernel symbol's by name; the raw address only to whom may see it,
 * as "bpftool prog dump xlated" does. Other values are the constants of
 * the expression (or blinded ones).
 */
static const char *ktp_insn_imm(void *private_data,
				const struct bpf_insn *insn, u64 full_imm)
{
	struct ktp_dump *d = private_data;
	unsigned int i;
	int len = 0;

	for (i = 0; i < d->kp->nr_lits; i++) {
		if (full_imm == (unsigned long)d->kp->lits[i]) {
			snprintf(d->buf, sizeof(d->buf), "\"%.*s\"%s", 32,
				 d->kp->lits[i],
				 strlen(d->kp->lits[i]) > 32 ? "..." : "");
			return d->buf;
		}
	}
	if (kallsyms_lookup_size_offset(full_imm, NULL, NULL)) {
		if (d->raw_ok)
			len = snprintf(d->buf, sizeof(d->buf), "0x%llx ",
				       full_imm);
		sprint_symbol(d->buf + len, full_imm);
		return d->buf;
	}
	if (!d->raw_ok && full_imm >= TASK_SIZE_MAX &&
	    (virt_addr_valid(full_imm) || is_vmalloc_addr((void *)(long)full_imm)))
		return "<kernel address>";
	snprintf(d->buf, sizeof(d->buf), "0x%llx", full_imm);
	return d->buf;
}

/**
 * ktp_prog_show_insns - print a program's instructions
 * @m: where to print; its file's credentials decide if raw kernel
 *     addresses show
 * @kp: the program
 *
 * One line an instruction, as "bpftool prog dump xlated" prints them:
 * with constant blinding, the blinded program.
 */
void ktp_prog_show_insns(struct seq_file *m, const struct ktp_prog *kp)
{
	struct ktp_dump d = {
		.m = m,
		.kp = kp,
		.raw_ok = m->file && bpf_dump_raw_ok(m->file->f_cred),
	};
	const struct bpf_insn_cbs cbs = {
		.cb_print = ktp_print_insn,
		.cb_call = ktp_call_name,
		.cb_imm = ktp_insn_imm,
		.private_data = &d,
	};
	const struct bpf_prog *fp = kp->prog;
	const struct bpf_insn *insn;
	struct bpf_insn load;
	u32 i;

	/* the verifier's program: bpftool prog dump xlated id N shows it */
	if (kp->verified) {
		seq_printf(m, "  id %u tag %*phN\n", fp->aux->id, BPF_TAG_SIZE,
			   fp->tag);
		return;
	}
	for (i = 0; i < fp->len; i++) {
		seq_printf(m, "  %4u: ", i);
		insn = &fp->insnsi[i];
		/* a nofault load shows as a load, as bpftool shows it */
		if (insn->code == (BPF_LDX | BPF_PROBE_MEM | BPF_SIZE(insn->code))) {
			load = *insn;
			load.code = BPF_LDX | BPF_MEM | BPF_SIZE(insn->code);
			insn = &load;
		}
		print_bpf_insn(&cbs, insn, true);
		if (fp->insnsi[i].code == (BPF_LD | BPF_IMM | BPF_DW))
			i++;
	}
}
