/*
 * test_diag.c - error codes, diagnostics formatting, did-you-mean, fsout.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "../../util/diag.h"
#include "../../util/dtype.h"
#include "../../util/fsout.h"
#include "../../util/strutil.h"
#include "testutil.h"

START_TEST(diag_format_file_line_col)
{
	struct diag d;

	diag_init(&d, NULL);
	ck_assert_int_eq(diag_error(&d, diag_at_file("a.cfg", 3, 7), NPU_ECONFIG,
				    "bad %s", "key"), NPU_ECONFIG);
	ck_assert_str_eq(d.last, "a.cfg:3:7: error: bad key");
	ck_assert_int_eq(d.n_errors, 1);
}
END_TEST

START_TEST(diag_format_runtime)
{
	struct diag d;

	diag_init(&d, NULL);
	(void)diag_error(&d, diag_at_run(2, 0x40, 1234), NPU_EFAULT, "oops");
	ck_assert_str_eq(d.last, "core 2 pc 0x40 cycle 1234: error: oops");
}
END_TEST

START_TEST(diag_errors_and_exit_codes)
{
	ck_assert_str_eq(npu_strerror(NPU_ECONFIG), "invalid configuration");
	ck_assert_str_eq(npu_strerror(0), "success");
	ck_assert_str_eq(npu_strerror(-9999), "unknown error");
	ck_assert_int_eq(npu_exit_status(NPU_ECONFIG), 2);
	ck_assert_int_eq(npu_exit_status(NPU_EUSAGE), 2);
	ck_assert_int_eq(npu_exit_status(NPU_EASM), 1);
	ck_assert_int_eq(npu_exit_status(NPU_EDEADLOCK), 3);
	ck_assert_int_eq(npu_exit_status(NPU_EFAULT), 3);
	ck_assert_int_eq(npu_exit_status(0), 0);
}
END_TEST

START_TEST(strutil_suggest)
{
	static const char *const names[] = { "core.matrix.rows",
					     "core.matrix.cols", "chip.name" };

	ck_assert_int_eq(str_distance("kitten", "sitting", 10), 3);
	ck_assert_str_eq(str_suggest("core.matrix.rwos", names, 3,
				     sizeof(names[0])), "core.matrix.rows");
	ck_assert_ptr_null(str_suggest("zzz", names, 3, sizeof(names[0])));
}
END_TEST

START_TEST(dtype_table)
{
	ck_assert_int_eq(dtype_from_name("bf16"), DT_BF16);
	ck_assert_int_eq(dtype_from_name("float"), -1);
	ck_assert_int_eq(dtype_bits(DT_INT4), 4);
	ck_assert_uint_eq(dtype_bytes(DT_INT4, 3), 2);
	ck_assert_uint_eq(dtype_bytes(DT_FP32, 3), 12);
	ck_assert_int_eq(dtype_is_float(DT_FP8E5M2), 1);
}
END_TEST

START_TEST(fsout_atomic)
{
	struct diag d;
	struct fsout o;
	char path[] = "/tmp/npusim_fsout_XXXXXX";
	int fd = mkstemp(path);
	FILE *fp;
	char buf[16] = "";

	ck_assert_int_ge(fd, 0);
	diag_init(&d, NULL);
	/* Aborted output leaves the old content in place. */
	fp = fdopen(fd, "w");
	fputs("old", fp);
	fclose(fp);
	ck_assert_int_eq(fsout_open(&o, path, &d), 0);
	fputs("half", o.fp);
	fsout_abort(&o);
	fp = fopen(path, "r");
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), fp));
	fclose(fp);
	ck_assert_str_eq(buf, "old");
	/* Committed output replaces it. */
	ck_assert_int_eq(fsout_open(&o, path, &d), 0);
	fputs("new", o.fp);
	ck_assert_int_eq(fsout_commit(&o, &d), 0);
	fp = fopen(path, "r");
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), fp));
	fclose(fp);
	ck_assert_str_eq(buf, "new");
	remove(path);
	/* Unwritable location: clear error, no crash. */
	ck_assert_int_eq(fsout_open(&o, "/nonexistent/dir/x.json", &d), NPU_EIO);
	ck_assert_ptr_nonnull(strstr(d.last, "/nonexistent/dir/x.json"));
}
END_TEST

START_TEST(fsout_device_not_replaced)
{
	/* Regression: writing to /dev/null used to rename a temporary file
	 * over the device node, turning it into a plain file. */
	struct diag d;
	struct fsout o;
	struct stat st;

	diag_init(&d, NULL);
	ck_assert_int_eq(fsout_open(&o, "/dev/null", &d), 0);
	fputs("discarded", o.fp);
	ck_assert_int_eq(fsout_commit(&o, &d), 0);
	ck_assert_int_eq(stat("/dev/null", &st), 0);
	ck_assert(S_ISCHR(st.st_mode));
	ck_assert_int_eq(fsout_open(&o, "/dev/null", &d), 0);
	fsout_abort(&o);
	ck_assert_int_eq(stat("/dev/null", &st), 0);
	ck_assert(S_ISCHR(st.st_mode));
}
END_TEST

static Suite *suite_diag(void)
{
	Suite *s = suite_create("diag");

	TEST_ADD(s, diag_format_file_line_col);
	TEST_ADD(s, diag_format_runtime);
	TEST_ADD(s, diag_errors_and_exit_codes);
	TEST_ADD(s, strutil_suggest);
	TEST_ADD(s, dtype_table);
	TEST_ADD(s, fsout_atomic);
	TEST_ADD(s, fsout_device_not_replaced);
	return s;
}

TEST_MAIN(suite_diag)
