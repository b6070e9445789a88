// SPDX-License-Identifier: GPL-2.0
/*
 * ktp_fuzz: write generated and mutated definitions to ktp_probes.
 *
 *   ktp_fuzz COUNT SEED
 *
 * Half the definitions are built from the grammar (valid and invalid
 * pieces), half are byte mutations of valid ones: truncated, with huge
 * numbers, long names, bytes above 0x7f, embedded NULs, deep nesting;
 * some lines are 1 MiB long. After each write: a rejected one left the
 * probe list as it was and error_log well formed; an accepted one added
 * exactly one probe, which is removed again. One accepted probe in
 * ENABLE_EVERY (ENABLE_MAX at most) first runs: it is enabled while this
 * program hits what the definitions probe (vfs_read(), vfs_write(), a
 * signal, a context switch, system calls), disabled, and each of its
 * hits must be accounted for in ktp_profile. Run from the tracefs
 * directory. Prints what it tried; exits 1 on the first violation, and
 * if it accepted no definition or refused none.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kselftest.h"

#define MAX_DEF		(1024 * 1024)
#define ENABLE_EVERY	8
#define ENABLE_MAX	100

static unsigned int seed;
static char *def, *list, *list2, *elog;
static long tried, accepted, rejected, lines_1m, runs, run_hits;

static unsigned int rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 17;
	seed ^= seed << 5;
	return seed;
}

static const char *pick(const char * const *v, int n)
{
	return v[rnd() % n];
}

static void fail(const char *fmt, ...)
{
	va_list ap;
	int i;

	va_start(ap, fmt);
	printf("ktp_fuzz: FAIL after %ld definitions: ", tried);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\ndefinition (%zu bytes):", strlen(def));
	for (i = 0; def[i] && i < 300; i++)
		printf(i % 64 ? "%c" : "\n  %c", (unsigned char)def[i] >= 0x20 &&
		       (unsigned char)def[i] < 0x7f ? def[i] : '?');
	printf("\n");
	exit(1);
}

static size_t read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n, len = 0;

	if (fd < 0)
		fail("open %s: %s", path, strerror(errno));
	while ((n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	if (n < 0)
		fail("read %s: %s", path, strerror(errno));
	close(fd);
	buf[len] = '\0';
	return len;
}

/* 0 if the whole write was taken, or -errno */
static int write_def(const char *buf, size_t len)
{
	int fd = open("ktp_probes", O_WRONLY | O_APPEND);
	ssize_t n;
	int err;

	if (fd < 0)
		fail("open ktp_probes: %s", strerror(errno));
	n = write(fd, buf, len);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	/* as kprobe_events: all of it, or an error */
	if ((size_t)n != len)
		fail("a write of %zu bytes took %zd", len, n);
	return 0;
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0)
		fail("open %s: %s", path, strerror(errno));
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		fail("write %s to %s: %s", text, path, strerror(errno));
	close(fd);
}

/* What the definitions probe, hit a few times over */
static void hit_targets(void)
{
	int in = open("/dev/zero", O_RDONLY), out = open("/dev/null", O_WRONLY);
	char buf[64];
	int i;

	if (in < 0 || out < 0)
		fail("open /dev/zero or /dev/null: %s", strerror(errno));
	for (i = 0; i < 16; i++) {
		if (read(in, buf, sizeof(buf)) != sizeof(buf) ||
		    write(out, buf, sizeof(buf)) != sizeof(buf))
			fail("read or write: %s", strerror(errno));
		/* ignored by default, but signal_generate sees it */
		kill(getpid(), SIGURG);
		sched_yield();
	}
	close(in);
	close(out);
}

/* The NAME=N count of @line, a line of ktp_profile */
static long profile_field(const char *line, const char *name)
{
	char key[32];
	const char *p;

	snprintf(key, sizeof(key), " %s=", name);
	p = strstr(line, key);
	if (!p)
		fail("no %s in ktp_profile's line '%.200s'", name, line);
	return strtol(p + strlen(key), NULL, 10);
}

/*
 * Enable the probe GRP/EVENT @name while its targets are hit; once it is
 * disabled, each hit is recorded, false, missed or dropped
 */
static void run_probe(const char *name)
{
	long hits, sum;
	char path[256], *line;
	size_t len = strlen(name);

	snprintf(path, sizeof(path), "events/%s/enable", name);
	write_file(path, "1");
	hit_targets();
	write_file(path, "0");
	read_file("ktp_profile", elog, MAX_DEF);
	line = elog;
	while (line && (strncmp(line, name, len) || line[len] != ' ')) {
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	if (!line)
		fail("%s is not in ktp_profile", name);
	hits = profile_field(line, "hits");
	sum = profile_field(line, "recorded") + profile_field(line, "cond_false") +
	      profile_field(line, "missed") + profile_field(line, "dropped");
	if (hits != sum)
		fail("%s: %ld hits, but %ld accounted for: '%.200s'", name,
		     hits, sum, line);
	runs++;
	run_hits += hits;
}

/* Every entry: "[time] SOURCE: error: MSG", "  Command: ...", "  ...^" */
static void check_error_log(void)
{
	char *line = elog, *next, *cmd = NULL;
	int n = 0;

	read_file("error_log", elog, MAX_DEF);
	for (; *line; line = next, n++) {
		next = strchr(line, '\n');
		if (!next)
			fail("error_log: unterminated line");
		*next++ = '\0';
		switch (n % 3) {
		case 0:
			if (line[0] != '[' || !strstr(line, ": error: "))
				fail("error_log: bad entry head '%s'", line);
			break;
		case 1:
			if (strncmp(line, "  Command: ", 11))
				fail("error_log: bad command line '%s'", line);
			cmd = line + 11;
			break;
		case 2:
			if (strspn(line, " ") != strlen(line) - 1 ||
			    line[strlen(line) - 1] != '^')
				fail("error_log: bad caret line '%s'", line);
			/* the caret is under the command or just past it */
			if (strlen(line) - 1 > 11 + strlen(cmd) + 1)
				fail("error_log: caret past the command");
			break;
		}
	}
	if (n % 3)
		fail("error_log: partial entry");
}

static const char * const kinds[] = {
	"p", "r", "t", "e", "p:fz/e", "r2:fz/e", "t:fz/e", "e:fz/e", "p:", "x",
	"-", "p:fz/", "r99999", "t3", "e3", "p:a.b/c", "q",
};

static const char * const kp_targets[] = {
	"vfs_read", "vfs_write", "kernel_clone", "vfs_read+0", "vfs_read+3",
	"no_such_function", "0x0", "ktp_kprobe_handler", "exc_page_fault",
	"vfs_read+99999999999999999999", "@vfs_read", "",
};

static const char * const tp_targets[] = {
	"signal.signal_generate", "sched/sched_switch", "sched.sched_wakeup",
	"signal:signal_generate", "nosys.noevent", "ktp.fz", "signal", "signal.",
	".x", "sys_enter", "sched_switch", "signal_generate", "no_such_tp",
};

static const char * const args[] = {
	"$arg1", "%di", "+0(%si):string", "$comm", "x=$arg2+1", "y=(u8)$arg3",
	"$retval", "$stack2", "@jiffies", "z=*(u64*)(16)", "$sig", "c=$comm:string",
	"a=$arg1/0", "q=\\123", "s=$sig<<2:x16", "b=$arg1:b4@4/32", "k=$arg9999",
	"=", "n=", "w=%nosuch", "v=(s64)$arg1%7", "$arg1:u8[4]", "g=jiffies", "h=&jiffies",
	/* typed by BTF: names, members, casts */
	"count", "file->f_flags", "f=file->f_path.dentry->d_name.name", "c=current->comm",
	"p=current->real_parent->pid", "t=((struct file *)$arg1)->f_pos", "prev->pid",
	"s=sizeof(struct file):u32", "n=file->nope", "m=count->x", "u=(char __user *)$arg2",
	"k=container_of(&file->f_pos, struct file, f_pos)", "e=PIDTYPE_TGID", "$retval->f_mode",
};

static const char * const toks[] = {
	"$arg1", "$arg2", "%ax", "%di", "$retval", "$sig", "$comm", "jiffies",
	"&jiffies", "0", "1", "0x7fffffffffffffff", "18446744073709551615u",
	"99999999999999999999", "'a'", "\"dd\"", "\"x*\"", "(", ")", "(u8)",
	"(s64)", "*(u32 *)", "+8(", "-", "~", "!", "+", "*", "/", "%", "<<",
	">>", "<", "<=", ">", ">=", "==", "!=", "&", "|", "^", "&&", "||", "?",
	":", "$stack", "@vfs_read", "=", "#", ",", "[", "]",
	/* typed by BTF */
	"file", "count", "buf", "pos", "->", ".", "f_flags", "f_path", "dentry",
	"d_name", "name", "current", "pid", "comm", "real_parent", "prev", "next",
	"(struct file *)", "(struct task_struct *)", "(char __user *)",
	"(enum pid_type)", "sizeof(struct file)", "container_of(", "struct file",
	"PIDTYPE_PID", "[1]", "*file", "&file->f_pos", "(void *)",
};

static void add(size_t *len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	*len += vsnprintf(def + *len, MAX_DEF - *len, fmt, ap);
	va_end(ap);
	if (*len >= MAX_DEF)
		*len = MAX_DEF - 1;
}

/* A definition from the grammar's pieces, valid or not. */
static size_t gen_grammar(void)
{
	const char *kind = pick(kinds, ARRAY_SIZE(kinds));
	size_t len = 0;
	int i, n;

	add(&len, "%s", kind);
	if (!strchr(kind, ':') && rnd() % 2)
		add(&len, ":fz%u", rnd() % 1000);
	if (kind[0] == 't' || kind[0] == 'e' || rnd() % 8 == 0)
		add(&len, " %s", pick(tp_targets, ARRAY_SIZE(tp_targets)));
	else
		add(&len, " %s", pick(kp_targets, ARRAY_SIZE(kp_targets)));
	n = rnd() % 4;
	for (i = 0; i < n; i++)
		add(&len, " %s", pick(args, ARRAY_SIZE(args)));
	if (rnd() % 2) {
		add(&len, " if");
		n = 1 + rnd() % 9;
		for (i = 0; i < n; i++)
			add(&len, " %s", pick(toks, ARRAY_SIZE(toks)));
	}
	return len;
}

static const char * const valid[] = {
	"p:fzv vfs_read n=$arg3 if $arg3 > 100 && $comm == \"dd\"",
	"r:fzv vfs_read r=$retval*2:s32 if $retval < 0",
	"e:fzv signal.signal_generate s=$sig c=$comm:string if $sig != 17",
	"p:fzv vfs_write c=+0(%si):u64 x=(u16)$arg3^0x55 if (%di & 7) == 0",
	"p:fzv vfs_read if $arg3 % 2 == 0 ? $arg1 != 0 : *(u32 *)($arg2 + 8) > 7",
	"e:fzv sched.sched_switch p=$prev_pid if $prev_pid == 0 || $next_comm ~ \"ktp*\"",
	"t:fzv sys_enter n=$arg2 if $arg2 == 39 && *(u64 *)((u64)$arg1 + 8) != 1",
	"p:fzv vfs_read f=file->f_path.dentry->d_name.name if count > 1 && current->pid != 1",
	"r:fzv vfs_read r=$retval n=file->f_flags if $retval < 0 || current->comm == \"dd\"",
	"t:fzv sched_switch p=prev->pid c=next->comm if prev->pid == 1 && next->prio < 120",
	"p:fzv vfs_read if ((struct file *)$arg1)->f_pos > sizeof(struct file) ? 1 : 0",
	"p:fzv vfs_read k=container_of(&file->f_pos, struct file, f_pos) if (char __user *)buf ~ \"a*\"",
};

/* A valid definition, then broken at the byte level. */
static size_t gen_mutation(void)
{
	const char *v = pick(valid, ARRAY_SIZE(valid));
	size_t len = strlen(v), at, n, i;

	memcpy(def, v, len + 1);

	switch (rnd() % 8) {
	case 0:		/* truncated */
		len = rnd() % (len + 1);
		def[len] = '\0';
		break;
	case 1:		/* bytes above 0x7f, or NULs, anywhere */
		n = 1 + rnd() % 4;
		for (i = 0; i < n; i++)
			def[rnd() % len] = rnd() % 3 ? 0x80 + rnd() % 0x80 : '\0';
		break;
	case 2:		/* a huge number */
		at = rnd() % len;
		memmove(def + at + 40, def + at, len - at + 1);
		memcpy(def + at, "9999999999999999999999999999999999999999", 40);
		len += 40;
		break;
	case 3:		/* a long name */
		len = 0;
		add(&len, "p:fz/");
		n = 1 + rnd() % 400;
		for (i = 0; i < n; i++)
			add(&len, "%c", 'a' + rnd() % 26);
		add(&len, " vfs_read");
		break;
	case 4:		/* deep nesting, within and past the line limit */
		len = 0;
		n = rnd() % 2 ? 10000 : 1 + rnd() % 60;
		add(&len, "p:fzn vfs_read if ");
		for (i = 0; i < n; i++)
			add(&len, "(");
		add(&len, "1");
		for (i = 0; i < n; i++)
			add(&len, ")");
		break;
	case 5:		/* a 1 MiB line */
		memset(def, 'a' + rnd() % 26, MAX_DEF - 2);
		def[MAX_DEF - 2] = '\0';
		len = MAX_DEF - 2;
		lines_1m++;
		break;
	case 6:		/* a byte flipped */
		def[rnd() % len] ^= 1 << (rnd() % 8);
		break;
	default:	/* two definitions glued */
		add(&len, " %s", pick(valid, ARRAY_SIZE(valid)));
	}
	return len;
}

/* GRP/EVENT of the probe a definition line shows */
static int probe_name(const char *line, char *name, size_t size)
{
	const char *colon = strchr(line, ':'), *space;

	if (!colon)
		return -1;
	space = strchr(colon, ' ');
	if (!space || (size_t)(space - colon) >= size)
		return -1;
	memcpy(name, colon + 1, space - colon - 1);
	name[space - colon - 1] = '\0';
	return 0;
}

/* Remove each probe listed in @added, a tail of list2: the list is @list again */
static void remove_added(char *added)
{
	char cmd[256], name[200], *next;

	for (; *added; added = next) {
		next = strchr(added, '\n');
		if (!next)
			fail("unterminated probe line '%s'", added);
		*next++ = '\0';
		if (probe_name(added, name, sizeof(name)))
			fail("unreadable probe line '%s'", added);
		snprintf(cmd, sizeof(cmd), "-:%s\n", name);
		if (write_def(cmd, strlen(cmd)))
			fail("could not remove %s", name);
	}
	read_file("ktp_probes", list2, MAX_DEF);
	if (strcmp(list, list2))
		fail("removing the added probes left the list changed:\n%s", list2);
}

int main(int argc, char **argv)
{
	long count = argc > 1 ? atol(argv[1]) : 20000;
	char *added;
	size_t len, before, i;
	int ret;

	seed = argc > 2 ? strtoul(argv[2], NULL, 0) : 1;
	if (!seed)
		seed = 1;
	def = malloc(MAX_DEF + 64);
	list = malloc(MAX_DEF);
	list2 = malloc(MAX_DEF);
	elog = malloc(MAX_DEF);
	if (!def || !list || !list2 || !elog)
		return 2;

	before = read_file("ktp_probes", list, MAX_DEF);
	/* the definitions the mutations start from are valid as they are */
	for (i = 0; i < ARRAY_SIZE(valid); i++) {
		len = snprintf(def, MAX_DEF, "%s\n", valid[i]);
		ret = write_def(def, len);
		if (ret)
			fail("refused (%d): %s", ret, valid[i]);
		read_file("ktp_probes", list2, MAX_DEF);
		added = list2 + before;
		if (!*added || strchr(added, '\n') != added + strlen(added) - 1)
			fail("not one probe added by: %s", valid[i]);
		remove_added(added);
	}
	for (tried = 0; tried < count; tried++) {
		len = tried % 2 ? gen_grammar() : gen_mutation();
		def[len++] = '\n';
		ret = write_def(def, len);
		def[len - 1] = '\0';
		if (read_file("ktp_probes", list2, MAX_DEF) < before ||
		    strncmp(list, list2, before))
			fail("the probes listed before changed");
		if (ret) {
			rejected++;
			/*
			 * EILSEQ: kprobes' "not on an instruction boundary";
			 * ERANGE: a number too big, EOPNOTSUPP: a name only
			 * BTF could resolve (a kernel without BTF), as
			 * kprobe_events says
			 */
			if (ret != -EINVAL && ret != -ENOENT && ret != -EEXIST &&
			    ret != -E2BIG && ret != -EBUSY && ret != -EILSEQ &&
			    ret != -ERANGE && ret != -EOPNOTSUPP)
				fail("unexpected error %d", ret);
			/*
			 * Each line is a definition of its own, as in
			 * kprobe_events: those before the bad one stay
			 */
			if (strcmp(list, list2) && !memchr(def, '\n', len - 1))
				fail("a rejected definition changed the probe list to:\n%s", list2);
			remove_added(list2 + before);
			check_error_log();
			continue;
		}
		/* accepted: one more probe at most, which goes again */
		added = list2 + before;
		if (!*added)
			continue;	/* a line of white space or a comment */
		if (strchr(added, '\n') != added + strlen(added) - 1)
			fail("one write added more than one probe");
		accepted++;
		if (accepted % ENABLE_EVERY == 0 && runs < ENABLE_MAX) {
			char name[200];

			if (probe_name(added, name, sizeof(name)))
				fail("unreadable probe line '%s'", added);
			run_probe(name);
		}
		remove_added(added);
	}
	/* a run that accepted none, or refused none, tested little */
	if (!accepted || !rejected)
		fail("%ld accepted, %ld rejected: expected some of each",
		     accepted, rejected);
	printf("ktp_fuzz: %ld definitions (seed %u): ", tried,
	       argc > 2 ? (unsigned int)strtoul(argv[2], NULL, 0) : 1);
	printf("%ld accepted and removed, %ld rejected, %ld blank, %ld lines of 1 MiB; ",
	       accepted, rejected, tried - accepted - rejected, lines_1m);
	printf("%ld enabled, with %ld hits accounted for\n", runs, run_hits);
	return 0;
}
