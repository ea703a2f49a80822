/*
 * dtype.c - element type table.
 *
 * One row per type, expanded from NPU_DTYPES (dtype.h), so the enum, the
 * names and the widths cannot drift apart.  The accessors index the table
 * without a range check: enum npu_dtype values come from the assembler,
 * the config loader or an mset/vset that checked them (control.c).
 */
#include "dtype.h"

#include <string.h>

static const struct {
	const char *name;  /* assembler / config / .npy name: "fp16" */
	int bits, is_float; /* storage width in bits; 1 for float formats */
} dtypes[DT_N] = {
#define DT_ROW(id, name, bits, fl) [DT_##id] = { name, bits, fl },
	NPU_DTYPES(DT_ROW)
#undef DT_ROW
};

int dtype_bits(enum npu_dtype t) { return dtypes[t].bits; }
int dtype_is_float(enum npu_dtype t) { return dtypes[t].is_float; }
const char *dtype_name(enum npu_dtype t) { return dtypes[t].name; }

/* Linear: nine names, looked up while parsing, never while simulating. */
int dtype_from_name(const char *name)
{
	int i;

	for (i = 0; i < DT_N; i++)
		if (strcmp(dtypes[i].name, name) == 0)
			return i;
	return -1;
}

/* Bytes of n packed elements, rounded up to a whole byte: an odd count of
 * int4 elements ends in a half-used byte.  n x bits wraps above 2^59
 * elements; callers bound n by a memory or file size first. */
unsigned long long dtype_bytes(enum npu_dtype t, unsigned long long n)
{
	return (n * (unsigned long long)dtypes[t].bits + 7) / 8;
}
