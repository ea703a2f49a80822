/*
 * dtype.c - element type table.
 */
#include "dtype.h"

#include <string.h>

static const struct {
	const char *name;
	int bits, is_float;
} dtypes[DT_N] = {
#define DT_ROW(id, name, bits, fl) [DT_##id] = { name, bits, fl },
	NPU_DTYPES(DT_ROW)
#undef DT_ROW
};

int dtype_bits(enum npu_dtype t) { return dtypes[t].bits; }
int dtype_is_float(enum npu_dtype t) { return dtypes[t].is_float; }
const char *dtype_name(enum npu_dtype t) { return dtypes[t].name; }

int dtype_from_name(const char *name)
{
	int i;

	for (i = 0; i < DT_N; i++)
		if (strcmp(dtypes[i].name, name) == 0)
			return i;
	return -1;
}

unsigned long long dtype_bytes(enum npu_dtype t, unsigned long long n)
{
	return (n * (unsigned long long)dtypes[t].bits + 7) / 8;
}
