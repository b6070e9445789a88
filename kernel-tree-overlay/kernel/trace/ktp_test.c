// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for KTP.
 */
#include <kunit/test.h>
#include <linux/dcache.h>
#include <linux/fs.h>

#include "trace.h"
#include "trace_probe.h"
#include "trace_ktp.h"

/* ktp_probes exists and has the mode of kprobe_events. */
static void ktp_probes_file_mode_test(struct kunit *test)
{
	struct inode *inode;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ktp_probes_dentry);
	inode = d_inode(ktp_probes_dentry);
	KUNIT_ASSERT_NOT_NULL(test, inode);
	KUNIT_EXPECT_TRUE(test, S_ISREG(inode->i_mode));
	KUNIT_EXPECT_EQ(test, inode->i_mode & 0777, TRACE_MODE_WRITE);
}

static struct kunit_case ktp_test_cases[] = {
	KUNIT_CASE(ktp_probes_file_mode_test),
	{}
};

static struct kunit_suite ktp_test_suite = {
	.name = "ktp",
	.test_cases = ktp_test_cases,
};

kunit_test_suite(ktp_test_suite);

MODULE_DESCRIPTION("KUnit tests for KTP");
MODULE_LICENSE("GPL");
