/*
 * fuzzreplay.h - a libFuzzer target's inputs replayed as a unit test:
 * include it after the target's source (fuzz/fuzz_<name>.c, which defines
 * LLVMFuzzerTestOneInput and traps when an invariant breaks), then
 * fuzz_replay_dir("fuzz/regress/<name>") runs every file of the folder
 * through the target and returns how many there were.
 */
#ifndef NPU_TEST_FUZZREPLAY_H
#define NPU_TEST_FUZZREPLAY_H

#include "testutil.h"

static void fuzz_replay_one(const char *path, void *ctx)
{
	size_t len;
	char *buf = test_read_file(path, &len);

	(void)ctx;
	ck_assert_msg(buf != NULL, "%s: cannot read", path);
	ck_assert_int_eq(LLVMFuzzerTestOneInput((const uint8_t *)buf, len), 0);
	free(buf);
}

static inline int fuzz_replay_dir(const char *dir)
{
	return test_each_file(dir, fuzz_replay_one, NULL);
}

#endif
