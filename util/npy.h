/*
 * npy.h - NumPy .npy tensor files in and out (docs/formats.md, "Tensors").
 *
 * A struct npy holds one tensor in npusim's own storage layout: C order,
 * little-endian elements of an npusim dtype (util/dtype.h), int4 packed two
 * per byte with the low nibble first.  That is exactly the byte image that
 * is copied into simulated DRAM, so callers never re-encode.
 *
 * Files: format versions 1.0, 2.0 and 3.0 are read; 1.0 is written (2.0 only
 * when a header would not fit 1.0's 16-bit length).  NumPy has no bf16, fp8
 * or int4, so those travel in documented raw encodings:
 *
 *   npusim dtype   written as   also accepted on load
 *   int4           '|i1'        any integer dtype whose values lie in -8..7;
 *                               '|V1' (ml_dtypes.int4, low nibble)
 *   int8           '|i1'        any integer dtype in range
 *   int16          '<i2'        any integer dtype in range
 *   int32          '<i4'        any integer dtype in range
 *   fp8e4m3        '|u1' codes  '|V1' codes (ml_dtypes.float8_e4m3fn);
 *                               any float/int dtype, rounded to nearest even
 *   fp8e5m2        '|u1' codes  '|V1' codes (ml_dtypes.float8_e5m2); ditto
 *   fp16           '<f2'        any float/int dtype, rounded to nearest even
 *   bf16           '<u2' bits   '<V2' bits (ml_dtypes.bfloat16); any
 *                               float/int dtype except u2, rounded
 *   fp32           '<f4'        any float/int dtype, rounded to nearest even
 *
 * Conversions are exact or fail: an integer target takes integral values in
 * range only; a float target rounds to nearest even, and a finite value
 * beyond the target's largest finite value is an error (never a silent
 * infinity).  Big-endian ('>') files are byte-swapped on load.
 *
 * Invariants: after a successful load out->data holds out->nbytes ==
 * dtype_bytes(dtype, npy_count(out)) bytes; after a failed load *out is
 * empty (data NULL) and the diag names the file and what is wrong.  No
 * input, however malformed, crashes the reader or makes it allocate more
 * than the file's own size plus the converted tensor.
 */
#ifndef NPU_NPY_H
#define NPU_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "dtype.h"

#define NPY_MAX_DIMS 8 /* npusim tensors have at most this many dimensions */

/* One tensor in npusim storage layout. */
struct npy {
	enum npu_dtype dtype;          /* element type */
	int ndim;                      /* number of dimensions, 0 = scalar */
	uint64_t shape[NPY_MAX_DIMS];  /* extent of each dimension, C order */
	uint8_t *data;                 /* dtype_bytes(dtype, count) bytes */
	uint64_t nbytes;               /* bytes at data */
};

/* Elements in t (product of the shape; 1 for a scalar). */
uint64_t npy_count(const struct npy *t);

/*
 * Make a zero-filled tensor.  Returns 0, NPU_ERANGE (ndim out of range or
 * shape product overflows) or NPU_ENOMEM.
 */
int npy_alloc(struct npy *t, enum npu_dtype dtype, int ndim,
	      const uint64_t *shape) NPU_WUR;
void npy_free(struct npy *t);
/*
 * A tensor over the caller's nbytes at data (not copied, never freed: no
 * npy_free), for writing memory out without a second copy.  Returns 0, or
 * NPU_ERANGE when nbytes is not what dtype and shape hold.
 */
int npy_view(struct npy *t, enum npu_dtype dtype, int ndim,
	     const uint64_t *shape, void *data, uint64_t nbytes) NPU_WUR;

/*
 * Load path converting to 'want' (the dtype the program declares for the
 * tensor) by the rules above.  Errors (NPU_EIO, NPU_ETENSOR, NPU_ENOMEM)
 * are reported as "path: error: ...".
 */
int npy_load_as(const char *path, enum npu_dtype want, struct npy *out,
		struct diag *d) NPU_WUR;

/*
 * Load path in its own dtype: '|i1' int8, '<i2' int16, '<i4' int32,
 * '<f2' fp16, '<f4' fp32, '<u2'/'<V2' bf16.  Files whose type names no
 * npusim dtype on its own ('|u1' could be either fp8 format, float64 ...)
 * are refused with a hint to load them with an expected dtype.
 */
int npy_read(const char *path, struct npy *out, struct diag *d) NPU_WUR;

/*
 * The same from memory: 'name' labels diagnostics; want < 0 means "own
 * dtype" as npy_read.  (Used by the file loaders and the fuzz target.)
 */
int npy_load_mem(const uint8_t *buf, size_t n, const char *name, int want,
		 struct npy *out, struct diag *d) NPU_WUR;

/*
 * Write t to path atomically (util/fsout.h: nothing is left on failure)
 * in the encoding of the table above.  "-" writes to stdout.
 */
int npy_write(const char *path, const struct npy *t, struct diag *d) NPU_WUR;

/*
 * Encode t into a malloc'ed buffer (*buf, *n) holding the whole .npy file.
 * Returns 0, NPU_ERANGE or NPU_ENOMEM.
 */
int npy_encode(const struct npy *t, uint8_t **buf, size_t *n) NPU_WUR;

/* The descr npy_write uses for a dtype ("<f4", "|i1", ...). */
const char *npy_descr(enum npu_dtype t);

#endif
