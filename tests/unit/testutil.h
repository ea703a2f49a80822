/*
 * testutil.h - shared scaffolding for Check unit tests.
 *
 * Each tests/unit/test_<module>.c defines suite_<module>() with tcase names
 * that are hierarchical and greppable ("engine.order.same_cycle") and ends
 * with TEST_MAIN(suite_<module>).
 */
#ifndef NPU_TESTUTIL_H
#define NPU_TESTUTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#define TEST_MAIN(suite_fn)                                              \
	int main(void)                                                   \
	{                                                                \
		SRunner *sr = srunner_create(suite_fn());                \
		int failed;                                              \
		srunner_run_all(sr, CK_NORMAL);                          \
		failed = srunner_ntests_failed(sr);                      \
		srunner_free(sr);                                        \
		return failed ? EXIT_FAILURE : EXIT_SUCCESS;             \
	}

/* Add one test function as its own tcase named after it. */
#define TEST_ADD(s, fn)                                                  \
	do {                                                             \
		TCase *tc_ = tcase_create(#fn);                          \
		tcase_set_timeout(tc_, 120);                             \
		tcase_add_test(tc_, fn);                                 \
		suite_add_tcase((s), tc_);                               \
	} while (0)

/* A mkstemp/mkdtemp template for scratch files: $TMPDIR (else /tmp),
 * then stem and XXXXXX. */
static inline void test_tmp_template(char *buf, size_t n, const char *stem)
{
	const char *dir = getenv("TMPDIR");

	snprintf(buf, n, "%s/%sXXXXXX", dir && *dir ? dir : "/tmp", stem);
}

#endif
