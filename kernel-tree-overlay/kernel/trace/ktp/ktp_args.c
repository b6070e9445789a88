// SPDX-License-Identifier: GPL-2.0
/*
 * KTP: the fetch arguments and the condition of a definition. A fetch
 * argument of kprobe_events goes to trace_probe.c; a C expression, and
 * the condition, go to the compiler (ktp_prog.h), which makes the
 * probe's program.
 */
#include <linux/bitmap.h>
#include <linux/ctype.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../trace_probe.h"
#include "ktp_probe.h"
#include "ktp_args.h"
#include "ktp_regs.h"

/* The types a fetch expression's value can be recorded as */
static bool ktp_is_expr_type(const char *type)
{
	static const char * const types[] = {
		"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
		"x8", "x16", "x32", "x64", "string", "ustring", "symbol",
	};

	return match_string(types, ARRAY_SIZE(types), type) >= 0;
}

/*
 * Is the body of a fetch argument, @len characters, a C expression
 * rather than a kprobe_events fetch argument? It is if it starts as no
 * fetch argument does, or has an operator where none can be.
 */
static bool ktp_looks_like_expr(const char *s, size_t len)
{
	size_t i;

	if (!len || s[0] == '\\')
		return false;
	if (!strchr("%$@+-", s[0]))
		return true;
	/* +OFFS( and +uOFFS( dereference; -(, -$ and -1 negate */
	if ((s[0] == '+' || s[0] == '-') &&
	    !isdigit(s[1]) && !(s[1] == 'u' && isdigit(s[2])))
		return true;
	for (i = 1; i < len; i++) {
		if (isspace(s[i]) || strchr("*/<>=!~&|^?", s[i]))
			return true;
		/* +OFFS(, %REG and @SYM+OFFS are fetch argument syntax */
		if (strchr("+-%", s[i]) && s[i - 1] != '(' && s[0] != '@')
			return true;
	}
	return false;
}

/*
 * Is @s (@len characters) a BTF fetch argument of probe events, which
 * trace_probe.c parses? A parameter of the probed function at its entry,
 * or an "r" probe's $retval, with members, as in "file->f_path.dentry"
 * or "$retval->f_flags". (An "r" probe's parameters are its program's,
 * which saves what its expressions read at the entry; $argN followed by
 * a member is an expression.)
 */
static bool ktp_is_btf_fetch_arg(struct ktp_compiler *comp,
				 struct traceprobe_parse_context *ctx,
				 const char *s, size_t len)
{
	char name[MAX_ARG_NAME_LEN];
	size_t i, n;

	if (!ctx->funcname)
		return false;
	for (n = 0; n < len && (isalnum(s[n]) || s[n] == '_' ||
				(!n && s[n] == '$')); n++)
		;
	if (!n || n >= sizeof(name))
		return false;
	for (i = n; i < len;) {
		if (s[i] == '.')
			i++;
		else if (s[i] == '-' && i + 1 < len && s[i + 1] == '>')
			i += 2;
		else
			return false;
		if (i >= len || !(isalpha(s[i]) || s[i] == '_'))
			return false;
		while (i < len && (isalnum(s[i]) || s[i] == '_'))
			i++;
	}
	memcpy(name, s, n);
	name[n] = '\0';
	if (!strcmp(name, "$retval"))
		return n < len && tparg_is_function_return(ctx->flags);
	return tparg_is_function_entry(ctx->flags) &&
	       ktp_compiler_has_param(comp, name);
}

/* error_log: an expression's error, @offset into the current argument */
static void ktp_log_expr_err(int offset, const struct ktp_expr_error *err)
{
	__trace_probe_log_err_detail(offset + err->pos, err->code,
				     err->detail[0] ? err->detail : NULL);
}

/*
 * Fetch argument @i, @arg, as trace_probe.c parses it. A BTF argument
 * that is a char * or a char array, with no type given, is parsed again
 * as ARG:string: KTP records a string as one by default, where
 * trace_probe.c records the pointer or the array's first bytes.
 */
static int ktp_parse_probe_arg(struct trace_ktp *tk, int i, const char *arg,
			       bool typed, struct traceprobe_parse_context *ctx)
{
	char *str;
	int ret;

	ctx->offset = 0;
	ret = traceprobe_parse_probe_arg(&tk->tp, i, arg, ctx);
	if (ret || typed || !traceprobe_btf_last_is_string(ctx))
		return ret;
	str = kasprintf(GFP_KERNEL, "%s:string", arg);
	if (!str)
		return -ENOMEM;
	traceprobe_free_probe_arg(&tk->tp.args[i]);
	memset(&tk->tp.args[i], 0, sizeof(tk->tp.args[i]));
	ctx->offset = 0;
	ret = traceprobe_parse_probe_arg(&tk->tp, i, str, ctx);
	kfree(str);
	return ret;
}

/*
 * Fetch argument @i reads what the program wrote to its slot of the entry
 * data (an "r" probe's slots move after the entry's own data later, see
 * ktp_set_entry_data()).
 */
static void ktp_fetch_from_prog(struct trace_ktp *tk, int i)
{
	struct fetch_insn *code = tk->tp.args[i].code;

	code->op = FETCH_OP_EDATA;
	code->offset = tk->vals_off + i * sizeof(u64);
	__set_bit(i, tk->prog_args);
}

/*
 * One fetch argument, NAME=BODY[:TYPE]. A kprobe_events one goes to
 * trace_probe.c. A C expression is compiled into the probe's program,
 * which leaves its value in the entry data; its probe_arg is parsed from
 * a stand-in immediate and then reads that value with FETCH_OP_EDATA.
 */
static int ktp_parse_fetch_arg(struct trace_ktp *tk, struct ktp_compiler *comp,
			       int i, const char *arg,
			       struct traceprobe_parse_context *ctx)
{
	const char *eq = strchr(arg, '='), *body = arg, *colon, *type = NULL;
	char *expr = NULL, *stand_in = NULL;
	const char *expr_type = NULL;
	struct ktp_expr_error err;
	size_t len;
	int ret;

	/* NAME=, but not the == or <= of an expression */
	if (eq && eq[1] != '=' && (eq == arg || !strchr("<>!", eq[-1])))
		body = eq + 1;
	colon = strrchr(body, ':');
	len = strlen(body);
	if (colon && ktp_is_expr_type(colon + 1)) {
		type = colon + 1;
		len = colon - body;
	} else if (colon && !ktp_looks_like_expr(body, colon - body)) {
		len = 0;	/* a fetch argument with a type of its own */
	}
	if (!ktp_looks_like_expr(body, len) ||
	    ktp_is_btf_fetch_arg(comp, ctx, body, len)) {
		unsigned int flags = ctx->flags;

		ktp_compiler_share_proto(comp, ctx);
		if (tk->kind && tk->kind->arg_flags)
			ctx->flags = tk->kind->arg_flags(tk, body, flags);
		ret = ktp_parse_probe_arg(tk, i, arg, colon, ctx);
		ctx->flags = flags;
		if (!ret && tk->kind && tk->kind->fetch_arg)
			ret = tk->kind->fetch_arg(tk, &tk->tp.args[i]);
		return ret;
	}

	expr = kmemdup_nul(body, len, GFP_KERNEL);
	if (!expr)
		return -ENOMEM;
	ret = ktp_compile_fetch(comp, expr, i, &expr_type, &err);
	if (ret) {
		if (err.code)
			ktp_log_expr_err(body - arg, &err);
		goto out;
	}
	if (!type)
		type = expr_type;

	ret = -ENOMEM;
	if (body == arg)
		stand_in = kasprintf(GFP_KERNEL, "arg%d=\\0:%s", i + 1, type);
	else
		stand_in = kasprintf(GFP_KERNEL, "%.*s=\\0:%s",
				     (int)(body - arg - 1), arg, type);
	if (!stand_in)
		goto out;
	ctx->offset = 0;
	ret = traceprobe_parse_probe_arg(&tk->tp, i, stand_in, ctx);
	if (ret)
		goto out;

	ktp_fetch_from_prog(tk, i);
	ret = -ENOMEM;
	tk->exprs[i] = kasprintf(GFP_KERNEL, "%s=%s:%s", tk->tp.args[i].name,
				 expr, type);
	if (tk->exprs[i])
		ret = 0;
out:
	kfree(stand_in);
	kfree(expr);
	return ret;
}

/*
 * Where the register fetch argument @i reads, or -1 if it is not one:
 * "%REG", "$retval" or (at a function's entry) an "$argN" in a register,
 * stored as it is. (What the program fetches already reads FETCH_OP_EDATA.)
 */
static int ktp_fetch_reg_offset(struct trace_ktp *tk, int i)
{
	struct fetch_insn *code = tk->tp.args[i].code;

	if (code[1].op != FETCH_OP_ST_RAW || code[2].op != FETCH_OP_END)
		return -1;
	if (code->op == FETCH_OP_REG)
		return code->param;
	if (code->op == FETCH_OP_RETVAL)
		return ktp_retval_offset();
	if (code->op == FETCH_OP_ARG && !ktp_is_return(tk))
		return ktp_arg_reg_offset(code->param + 1);
	return -1;
}

/*
 * Fetch argument @i in the program, if it is a register (or what the
 * probe's kind has its program fetch). Return: 1 if the program fetches
 * it, 0 if not, or a negative errno.
 */
static int ktp_fetch_raw_in_prog(struct trace_ktp *tk,
				 struct ktp_compiler *comp, int i)
{
	int offset;

	if (tk->kind && tk->kind->fetch_raw_in_prog)
		return tk->kind->fetch_raw_in_prog(tk, comp, i);
	offset = ktp_fetch_reg_offset(tk, i);
	if (offset < 0)
		return 0;
	return ktp_compile_fetch_reg(comp, offset, i) ?: 1;
}

/*
 * The program could not be made: error_log says why, but for a lack of
 * memory, and the errno is bpf()'s, as it is. -ENOENT: no BTF type of a
 * "t" probe's tracepoint to load its program for. -EPERM for a writer
 * with CAP_BPF and CAP_PERFMON is an LSM's (lockdown's, say), not the
 * capabilities'.
 */
static int ktp_prog_error(int err)
{
	if (err == -E2BIG)
		trace_probe_log_err(0, KTP_EXPR_TOO_BIG);
	else if (err == -ENOENT)
		trace_probe_log_err(0, NO_BTF_ENTRY);
	else if (err == -EPERM && !ktp_may_load_progs())
		trace_probe_log_err(0, KTP_NEEDS_BPF_CAP);
	else if (err != -ENOMEM)
		trace_probe_log_err(0, KTP_VERIFIER);
	return err;
}

/*
 * The probe's program fetches its register fetch arguments too (a "t"
 * probe's "$argN"), as it fetches an expression: the record then
 * copies each value as it is (see process_fetch_insn() in ktp_hit.c)
 * instead of running the fetch instructions. Reading either never
 * faults, so nothing else changes.
 */
static int ktp_fetch_raw_args_in_prog(struct trace_ktp *tk,
				      struct ktp_compiler *comp)
{
	int i, ret;

	for (i = 0; i < tk->tp.nr_args; i++) {
		ret = ktp_fetch_raw_in_prog(tk, comp, i);
		if (!ret)
			continue;
		if (ret < 0) {
			trace_probe_log_set_index(i + 2);
			return ktp_prog_error(ret);
		}
		ktp_fetch_from_prog(tk, i);
	}
	return 0;
}

/*
 * Does the probe need a program? For its condition or a fetch
 * expression, and where its kind says so. A 'p' or 'r' probe's register
 * fetch arguments alone take none: they are fetched as kprobe events
 * fetch them, as loading a program through the verifier would cost a
 * definition far more than the program saves a hit.
 */
static bool ktp_needs_prog(struct trace_ktp *tk, int nargs, bool cond)
{
	return cond || !bitmap_empty(tk->prog_args, nargs) ||
	       (tk->kind && tk->kind->needs_prog);
}

/**
 * ktp_parse_args - compile a definition's condition and fetch arguments
 * @tk: the probe
 * @nargs: how many fetch arguments the definition has
 * @argv: the words of the definition, the fetch arguments from argv[2]
 * @cond_idx: the index in @argv of the condition, one word, 0 if none
 * @argc: how many words @argv has
 * @ctx: the parse context of the definition
 * @load_later: leave the program unloaded, for ktp_prog_load()
 *
 * Compile the condition and the fetch arguments into the probe's program;
 * kprobe_events fetch arguments go to trace_probe.c; those that read a
 * register, the program reads. A probe with neither a condition nor a
 * fetch expression gets no program, unless its kind needs one (a "t"
 * probe's program is what runs on the tracepoint).
 *
 * Return: 0, or a negative errno with an error_log entry.
 */
int ktp_parse_args(struct trace_ktp *tk, int nargs, const char *argv[],
		   int cond_idx, int argc, struct traceprobe_parse_context *ctx,
		   bool load_later)
{
	struct ktp_expr_env env = {
		.name = trace_probe_name(&tk->tp),
	};
	struct ktp_compiler *comp;
	struct ktp_expr_error err;
	struct ktp_prog *prog;
	int i, ret;

	if (tk->kind) {
		ret = tk->kind->set_env(tk, &env);
		if (ret)
			return ret;
	} else if (ktp_is_return(tk)) {
		env.flags = KTP_ENV_RETURN;
		env.func = ctx->funcname;
	} else {
		if (ctx->flags & TPARG_FL_FENTRY)
			env.flags = KTP_ENV_FENTRY;
		/* inside it, no prototype says where its parameters are */
		env.func = ctx->funcname;
	}

	comp = ktp_compiler_create(&env);
	tk->exprs = kcalloc(tk->tp.nr_args, sizeof(*tk->exprs), GFP_KERNEL);
	if (!comp || !tk->exprs) {
		ret = -ENOMEM;
		goto out;
	}

	/* The condition first: false, it skips the fetch expressions */
	if (cond_idx) {
		trace_probe_log_set_index(cond_idx);
		if (cond_idx >= argc) {
			trace_probe_log_err(0, KTP_EXPR_SYNTAX);
			ret = -EINVAL;
			goto out;
		}
		/* one word, as written (see ktp_split_def()) */
		tk->cond = kstrdup(argv[cond_idx], GFP_KERNEL);
		if (!tk->cond) {
			ret = -ENOMEM;
			goto out;
		}
		ret = ktp_compile_cond(comp, tk->cond, &err);
		if (ret) {
			if (err.code)
				ktp_log_expr_err(0, &err);
			else
				ktp_prog_error(ret);
			goto out;
		}
	}

	for (i = 0; i < nargs; i++) {
		trace_probe_log_set_index(i + 2);
		ret = ktp_parse_fetch_arg(tk, comp, i, argv[i + 2], ctx);
		if (ret)
			goto out;
	}
	if (!ktp_needs_prog(tk, nargs, cond_idx)) {
		ret = 0;
		goto out;
	}
	ret = ktp_fetch_raw_args_in_prog(tk, comp);
	if (ret)
		goto out;
	if (tk->kind && tk->kind->prog_ready)
		tk->kind->prog_ready(tk, comp);

	prog = load_later ? ktp_compiler_finish_unloaded(comp) :
			    ktp_compiler_finish(comp);
	comp = NULL;
	if (IS_ERR(prog)) {
		trace_probe_log_set_index(0);
		ret = ktp_prog_error(PTR_ERR(prog));
		goto out;
	}
	tk->prog = prog;
	ret = 0;
out:
	ktp_compiler_destroy(comp);
	return ret;
}
