// SPDX-License-Identifier: GPL-2.0
/*
 * KTP: a probe's definition as text, as ktp_probes lists it and
 * dynamic_events shows it after KTP_DYN_PREFIX, and the match of a
 * removal ("-:[GRP/]EVENT [WORDS]") against it.
 */
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include "../trace_dynevent.h"
#include "../trace_probe.h"
#include "ktp_probe.h"
#include "ktp_def.h"

/* Is @word the fetch argument @i, as ktp_show_def() writes it? */
static bool ktp_arg_is(struct trace_ktp *tk, int i, const char *word)
{
	const struct probe_arg *arg = &tk->tp.args[i];
	size_t len = strlen(arg->name);

	if (tk->exprs && tk->exprs[i])
		return !strcmp(word, tk->exprs[i]);
	return !strncmp(word, arg->name, len) && word[len] == '=' &&
	       !strcmp(word + len + 1, arg->comm);
}

/* Whether @arg is the address a probe was defined on (it shows SYM+OFFS) */
static bool ktp_addr_is(struct trace_ktp *tk, const char *arg)
{
	unsigned long addr;

	return tk->addr && !kstrtoul(arg, 0, &addr) && addr == tk->addr;
}

/*
 * Are the words of @text, between its white space, @argv's? A removal's
 * words are split at every space: a condition matches them whatever
 * white space it has between its words.
 */
static bool ktp_words_are(const char *text, int argc, const char **argv)
{
	size_t len;
	int i;

	for (i = 0; i < argc; i++) {
		text = skip_spaces(text);
		len = strlen(argv[i]);
		if (strncmp(text, argv[i], len) ||
		    (text[len] && !isspace(text[len])))
			return false;
		text += len;
	}
	return !*skip_spaces(text);
}

/**
 * ktp_dyn_match - does a probe match a removal in dynamic_events?
 * @system: the group named, or NULL
 * @event: the event named, or ""
 * @argc: how many words of the definition follow
 * @argv: the words: the target, the fetch arguments and the condition
 * @ev: the probe
 *
 * Return: true if @ev is the probe named and each word given is its own.
 */
bool ktp_dyn_match(const char *system, const char *event, int argc,
		   const char **argv, struct dyn_event *ev)
{
	struct trace_ktp *tk = to_trace_ktp(ev);
	int i;

	if (event[0] != '\0' && strcmp(trace_probe_name(&tk->tp), event))
		return false;
	if (system && strcmp(trace_probe_group_name(&tk->tp), system))
		return false;
	if (!argc)
		return true;

	if (strcmp(tk->target, argv[0]) && !ktp_addr_is(tk, argv[0]))
		return false;
	/* each argument as ktp_show_def() writes it, then the condition */
	for (i = 1; i < argc; i++) {
		if (i - 1 < tk->tp.nr_args) {
			if (!ktp_arg_is(tk, i - 1, argv[i]))
				return false;
		} else if (tk->cond && !strcmp(argv[i], "if") && i + 1 < argc) {
			return ktp_words_are(tk->cond, argc - i - 1, argv + i + 1);
		} else {
			return false;
		}
	}
	return !tk->cond;
}

/**
 * ktp_show_def() - a probe's definition, as ktp_probes shows it
 * @m: the seq_file of the listing
 * @tk: the probe
 *
 * The words a definition written to ktp_probes makes the same probe with:
 * the letter, GRP/EVENT, the target, the fetch arguments as written (a
 * C expression) or as trace_probe.c keeps them (NAME=FETCHARG), and the
 * condition byte for byte, on one line.
 */
void ktp_show_def(struct seq_file *m, struct trace_ktp *tk)
{
	int i;

	seq_putc(m, ktp_def_letter(tk));
	if (tk->maxactive)
		seq_printf(m, "%u", tk->maxactive);
	seq_printf(m, ":%s/%s %s", trace_probe_group_name(&tk->tp),
		   trace_probe_name(&tk->tp), tk->target);
	for (i = 0; i < tk->tp.nr_args; i++) {
		if (tk->exprs && tk->exprs[i])
			seq_printf(m, " %s", tk->exprs[i]);
		else
			seq_printf(m, " %s=%s", tk->tp.args[i].name,
				   tk->tp.args[i].comm);
	}
	if (tk->cond)
		seq_printf(m, " if %s", tk->cond);
	seq_putc(m, '\n');
}

/**
 * ktp_dyn_show - a probe's line in dynamic_events
 * @m: the seq_file of dynamic_events
 * @ev: the probe
 *
 * The line is KTP_DYN_PREFIX and the definition, see ktp_dyn_create().
 *
 * Return: 0.
 */
int ktp_dyn_show(struct seq_file *m, struct dyn_event *ev)
{
	seq_puts(m, KTP_DYN_PREFIX);
	ktp_show_def(m, to_trace_ktp(ev));
	return 0;
}
