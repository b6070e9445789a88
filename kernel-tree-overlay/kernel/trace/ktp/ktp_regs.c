// SPDX-License-Identifier: GPL-2.0
/*
 * KTP's expression compiler: where struct pt_regs holds the values the
 * terms of an expression name ($retval, $stack, $argN), found once by the
 * architecture's own accessors.
 */
#include <linux/kernel.h>
#include <linux/ptrace.h>

#include "ktp_regs.h"

/*
 * Where the architecture's own accessors find a value in struct pt_regs,
 * so that the compiler names no register of its own: an accessor runs on
 * registers whose words hold their own index (plus KTP_REGS_MAGIC), and
 * the value it returns says which word it read.
 */
#define KTP_REGS_WORDS	(sizeof(struct pt_regs) / sizeof(unsigned long))
#define KTP_REGS_MAGIC	0x6b74700000000000UL

static void ktp_regs_init(struct pt_regs *regs)
{
	unsigned long *word = (unsigned long *)regs;
	unsigned int i;

	for (i = 0; i < KTP_REGS_WORDS; i++)
		word[i] = KTP_REGS_MAGIC + i;
}

/* The offset of the word of @base[] that held @val, or -1 */
static int ktp_word_offset(unsigned long val, unsigned long base,
			   unsigned int words)
{
	val -= base;
	return val < words ? val * sizeof(unsigned long) : -1;
}

/* What an argument on the stack reads where no stack is being probed */
static const unsigned long ktp_no_stack[1];

/* The registers, with a stack pointer to @stack */
static void ktp_regs_fill(struct pt_regs *regs, const unsigned long *stack)
{
	int sp;

	ktp_regs_init(regs);
	sp = ktp_word_offset(kernel_stack_pointer(regs), KTP_REGS_MAGIC,
			     KTP_REGS_WORDS);
	if (sp >= 0)
		*(unsigned long *)((void *)regs + sp) = (unsigned long)stack;
}

/**
 * ktp_retval_offset - where the return value is at a function's return
 *
 * Return: its offset in struct pt_regs, as regs_return_value() reads it,
 * or -1 if that is not a word of struct pt_regs.
 */
int ktp_retval_offset(void)
{
	struct pt_regs regs;

	ktp_regs_fill(&regs, ktp_no_stack);
	return ktp_word_offset(regs_return_value(&regs), KTP_REGS_MAGIC,
			       KTP_REGS_WORDS);
}

/**
 * ktp_sp_offset - where the stack pointer is
 *
 * Return: its offset in struct pt_regs, as kernel_stack_pointer() reads
 * it, or -1 if that is not a word of struct pt_regs.
 */
int ktp_sp_offset(void)
{
	struct pt_regs regs;

	ktp_regs_init(&regs);
	return ktp_word_offset(kernel_stack_pointer(&regs), KTP_REGS_MAGIC,
			       KTP_REGS_WORDS);
}

/**
 * ktp_arg_reg_offset - where a function's argument is at its entry
 * @num: N of $argN, from 1
 *
 * Return: the offset in struct pt_regs of the register that holds the
 * argument, as regs_get_kernel_argument() reads it, or -1 if it is on
 * the stack (which these registers point away from).
 */
int ktp_arg_reg_offset(unsigned int num)
{
	struct pt_regs regs;

	if (num < 1)
		return -1;
	ktp_regs_fill(&regs, ktp_no_stack);
	return ktp_word_offset(regs_get_kernel_argument(&regs, num - 1),
			       KTP_REGS_MAGIC, KTP_REGS_WORDS);
}

/**
 * ktp_arg_stack_offset - where a function's argument is on the stack
 * @num: N of $argN, from 1
 *
 * regs_get_kernel_argument() reads the first argument that is not in a
 * register from a stack of words holding their own index; the arguments
 * after it are the words after it, as in every calling convention.
 *
 * Return: the argument's offset from the stack pointer at the
 * function's entry, or -1 if it is in a register or not found.
 */
int ktp_arg_stack_offset(unsigned int num)
{
	unsigned long stack[4], base = KTP_REGS_MAGIC + KTP_REGS_WORDS;
	unsigned int first, i;
	struct pt_regs regs;
	int off;

	if (num < 1 || ktp_sp_offset() < 0 || ktp_arg_reg_offset(num) >= 0)
		return -1;
	for (first = 1; ktp_arg_reg_offset(first) >= 0; first++)
		;
	for (i = 0; i < ARRAY_SIZE(stack); i++)
		stack[i] = base + i;
	ktp_regs_fill(&regs, stack);
	off = ktp_word_offset(regs_get_kernel_argument(&regs, first - 1),
			      base, ARRAY_SIZE(stack));
	if (off < 0)
		return -1;
	return off + (num - first) * sizeof(unsigned long);
}
