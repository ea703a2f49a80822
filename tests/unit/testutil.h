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
#include <dirent.h>
#include <stdint.h>
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

/*
 * fn(path, ctx) on every file of folder dir (names starting with '.' left
 * out), in name order, so that a failure names the same file every time;
 * returns how many.  A missing folder fails the test.  The fuzz
 * regressions (fuzz/regress/<target>) are replayed this way.
 */
static inline int test_each_file(const char *dir,
				 void (*fn)(const char *path, void *ctx),
				 void *ctx)
{
	struct dirent **v;
	int n = scandir(dir, &v, NULL, alphasort), k, files = 0;

	ck_assert_msg(n >= 0, "%s missing", dir);
	for (k = 0; k < n; k++) {
		if (v[k]->d_name[0] != '.') {
			char path[512];

			snprintf(path, sizeof(path), "%s/%s", dir, v[k]->d_name);
			fn(path, ctx);
			files++;
		}
		free(v[k]);
	}
	free(v);
	return files;
}

/* The whole file at path, NUL-terminated (malloc'd; *len its length when
 * len is not NULL), or NULL if it cannot be read. */
static inline char *test_read_file(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *b;
	long n;

	if (!fp)
		return NULL;
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	b = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (!b || fread(b, 1, (size_t)n, fp) != (size_t)n) {
		fclose(fp);
		free(b);
		return NULL;
	}
	b[n] = '\0';
	fclose(fp);
	if (len)
		*len = (size_t)n;
	return b;
}

#endif
