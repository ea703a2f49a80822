/*
 * fuzz_npy.c - libFuzzer target for the .npy reader (`make fuzz`).
 *
 * Byte 0 of an input picks the dtype asked for (0: the file's own, as
 * npy_read; k: dtype (k - 1) mod DT_N, as --input does); the rest is the
 * file.  Invariants:
 *   - rejection comes with a message and an empty tensor;
 *   - an accepted tensor holds dtype_bytes(dtype, count) bytes, and what
 *     npusim writes for it (npy_encode) loads back to the same bytes;
 *   - the file reader (prefix, header, then exactly the declared data)
 *     agrees with the in-memory parser: same outcome, same bytes.
 * Crashing inputs are kept in fuzz/regress/npy and replayed by
 * tests/unit/test_npy.c, which includes this file and calls the target.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Same outcome, same tensor. */
static int fz_npy_same(int r1, const struct npy *a, int r2,
		       const struct npy *b)
{
	if (r1 == NPU_ENOMEM || r2 == NPU_ENOMEM)
		return 1;  /* a refusal to allocate is not a disagreement */
	if ((r1 == 0) != (r2 == 0))
		return 0;
	if (r1 != 0)
		return r1 == r2;
	return a->dtype == b->dtype && a->ndim == b->ndim &&
	       memcmp(a->shape, b->shape, sizeof(a->shape)) == 0 &&
	       a->nbytes == b->nbytes &&
	       (a->nbytes == 0 || memcmp(a->data, b->data, (size_t)a->nbytes) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	struct npy t, u, f;
	struct diag d;
	uint8_t *buf = NULL;
	size_t n = 0;
	int want, r, rf;
	FILE *fp;

	/* Files beyond 64 KiB only slow the search down. */
	if (size < 1 || size > 65536)
		return 0;
	if (!path[0]) {
		int fd;

		snprintf(path, sizeof(path), "/tmp/npusim_fuzz_npy_XXXXXX");
		if ((fd = mkstemp(path)) < 0)
			abort();
		close(fd);
	}
	want = data[0] ? (data[0] - 1) % DT_N : -1;
	data++;
	size--;
	diag_init(&d, NULL);
	r = npy_load_mem(data, size, "fuzz.npy", want, &t, &d);
	if (r != 0) {
		if (t.data || d.n_errors != 1)
			__builtin_trap();
	} else {
		if (t.nbytes != dtype_bytes(t.dtype, npy_count(&t)))
			__builtin_trap();
		if (npy_encode(&t, &buf, &n) != 0)
			__builtin_trap();
		if (npy_load_mem(buf, n, "again.npy", (int)t.dtype, &u, &d) != 0 ||
		    !fz_npy_same(0, &t, 0, &u))
			__builtin_trap();
		npy_free(&u);
		free(buf);
	}
	/* The same bytes through the file reader. */
	fp = fopen(path, "wb");
	if (fp) {
		fwrite(data, 1, size, fp);
		fclose(fp);
		rf = want < 0 ? npy_read(path, &f, &d)
			      : npy_load_as(path, (enum npu_dtype)want, &f, &d);
		if (!fz_npy_same(r, &t, rf, &f))
			__builtin_trap();
		if (rf == 0)
			npy_free(&f);
	}
	if (r == 0)
		npy_free(&t);
	return 0;
}
