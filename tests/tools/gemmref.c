/*
 * gemmref.c - independent reference for GEMM kernels (tests and `make run`).
 *
 *   gemmref gen  M K N SEED A.npy B.npy     random int8 inputs (LCG, seeded)
 *   gemmref check A.npy B.npy C.npy [SHIFT]  C == A*B exactly (int32), or,
 *                                            with SHIFT, an int8 C equal to
 *                                            sat8(rne(A*B / 2^SHIFT))
 *   gemmref genf M K N SEED A.npy B.npy    float32 inputs that are multiples
 *                                          of 1/8 in [-2, 2]: exact in fp16
 *                                          and bf16, and every partial sum of
 *                                          a dot product of length <= 2^13 is
 *                                          exact in fp32
 *   gemmref checkf A.npy B.npy C.npy        fp32 C == A*B computed in double
 *                                          (exact for genf inputs)
 *   gemmref tilet A.npy R AT.npy            A (M x K) as the tiled transpose
 *                                          gemm_os.s reads: ceil(M/R) tiles
 *                                          of K x R, tile t row k = A[tR..tR+R-1][k]
 *                                          (rows past M are zeros)
 *
 * The reference is a plain triple loop in int64: deliberately nothing like
 * the simulator's systolic model.  Exit 0 when equal, 1 with the first
 * mismatches otherwise, 2 on bad usage or files.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/npy.h"

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

/* Element i of a generated tensor: an int8 byte, or an fp32 multiple of
 * 1/8 in [-2, 2] (exact in fp16/bf16; see the file comment). */
static void fill(struct npy *t, uint32_t *seed)
{
	uint64_t i;

	if (t->dtype == DT_INT8) {
		for (i = 0; i < t->nbytes; i++)
			t->data[i] = (uint8_t)(int8_t)((int)(lcg(seed) % 256) - 128);
		return;
	}
	for (i = 0; i < t->nbytes / 4; i++) {
		float v = (float)((int)(lcg(seed) % 33) - 16) / 8.0f;

		memcpy(t->data + 4 * i, &v, 4);
	}
}

/* gen / genf: A (M x K) and B (K x N) of dtype t from one seeded stream. */
static int gen(int argc, char **argv, struct diag *d, enum npu_dtype t)
{
	struct npy a, b;
	uint64_t sa[2], sb[2];
	uint32_t seed;
	int rc;

	if (argc != 8)
		return 2;
	sa[0] = strtoull(argv[2], NULL, 0);
	sa[1] = strtoull(argv[3], NULL, 0);
	sb[0] = sa[1];
	sb[1] = strtoull(argv[4], NULL, 0);
	seed = (uint32_t)strtoul(argv[5], NULL, 0);
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (npy_alloc(&a, t, 2, sa) || npy_alloc(&b, t, 2, sb)) {
		npy_free(&a);
		npy_free(&b);
		return 2;
	}
	fill(&a, &seed);
	fill(&b, &seed);
	rc = npy_write(argv[6], &a, d) || npy_write(argv[7], &b, d);
	npy_free(&a);
	npy_free(&b);
	return rc ? 2 : 0;
}

/* tilet: A (M x K) -> AT (T x K x R), AT[t][k][r] = A[t*R + r][k]. */
static int tilet(int argc, char **argv, struct diag *d)
{
	struct npy a, at;
	uint64_t sh[3], m, k, r, t, i, j, e;
	int rc = 2;

	memset(&a, 0, sizeof(a));
	memset(&at, 0, sizeof(at));
	if (argc != 5 || npy_read(argv[2], &a, d))
		goto out;
	r = strtoull(argv[3], NULL, 0);
	if (a.ndim != 2 || !r || r > 4096) {
		(void)diag_error(d, diag_nowhere(), NPU_ETENSOR, "gemmref tilet: A must be a matrix, R in 1..4096");
		goto out;
	}
	m = a.shape[0];
	k = a.shape[1];
	e = (uint64_t)dtype_bytes(a.dtype, 1);
	sh[0] = (m + r - 1) / r;
	sh[1] = k;
	sh[2] = r;
	if (npy_alloc(&at, a.dtype, 3, sh))
		goto out;
	for (t = 0; t < sh[0]; t++)
		for (j = 0; j < k; j++)
			for (i = 0; i < r && t * r + i < m; i++)
				memcpy(at.data + ((t * k + j) * r + i) * e,
				       a.data + ((t * r + i) * k + j) * e, e);
	rc = npy_write(argv[4], &at, d) ? 2 : 0;
out:
	npy_free(&a);
	npy_free(&at);
	return rc;
}

static int checkf(int argc, char **argv, struct diag *d)
{
	struct npy a, b, c;
	uint64_t m, k, n, i, j, l, bad = 0;
	int rc = 2;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&c, 0, sizeof(c));
	if (argc != 5)
		return 2;
	if (npy_read(argv[2], &a, d) || npy_read(argv[3], &b, d) ||
	    npy_read(argv[4], &c, d))
		goto out;
	if (a.ndim != 2 || b.ndim != 2 || c.ndim != 2 || a.dtype != DT_FP32 ||
	    b.dtype != DT_FP32 || c.dtype != DT_FP32 || a.shape[1] != b.shape[0] ||
	    c.shape[0] != a.shape[0] || c.shape[1] != b.shape[1]) {
		(void)diag_error(d, diag_nowhere(), NPU_ETENSOR,
				 "gemmref: A, B, C must be fp32 matrices forming a GEMM");
		goto out;
	}
	m = a.shape[0];
	k = a.shape[1];
	n = b.shape[1];
	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++) {
			double s = 0;
			float x, y, got;

			for (l = 0; l < k; l++) {
				memcpy(&x, a.data + 4 * (i * k + l), 4);
				memcpy(&y, b.data + 4 * (l * n + j), 4);
				s += (double)x * y;
			}
			memcpy(&got, c.data + 4 * (i * n + j), 4);
			if ((double)got != s && bad++ < 5)
				fprintf(stderr, "gemmref: C[%" PRIu64 "][%" PRIu64 "] = %.9g, expected %.9g\n",
					i, j, got, s);
		}
	if (bad)
		fprintf(stderr, "gemmref: %" PRIu64 " of %" PRIu64 " elements differ\n",
			bad, m * n);
	else
		printf("gemmref: C (%" PRIu64 "x%" PRIu64 ", fp32) matches the reference exactly\n",
		       m, n);
	rc = bad ? 1 : 0;
out:
	npy_free(&a);
	npy_free(&b);
	npy_free(&c);
	return rc;
}

static int check(int argc, char **argv, struct diag *d)
{
	struct npy a, b, c;
	uint64_t m, k, n, i, j, l, bad = 0;
	int shift = argc > 5 ? atoi(argv[5]) : -1, rc = 2;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&c, 0, sizeof(c));
	if (argc < 5)
		return 2;
	if (npy_read(argv[2], &a, d) || npy_read(argv[3], &b, d) ||
	    npy_read(argv[4], &c, d))
		goto out;
	if (a.ndim != 2 || b.ndim != 2 || c.ndim != 2 || a.dtype != DT_INT8 ||
	    b.dtype != DT_INT8 || a.shape[1] != b.shape[0] ||
	    c.shape[0] != a.shape[0] || c.shape[1] != b.shape[1] ||
	    c.dtype != (shift < 0 ? DT_INT32 : DT_INT8)) {
		(void)diag_error(d, diag_nowhere(), NPU_ETENSOR,
				 "gemmref: shapes/dtypes do not form a GEMM");
		goto out;
	}
	m = a.shape[0];
	k = a.shape[1];
	n = b.shape[1];
	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++) {
			int64_t s = 0, got;

			for (l = 0; l < k; l++)
				s += (int64_t)(int8_t)a.data[i * k + l] *
				     (int8_t)b.data[l * n + j];
			if (shift >= 0) {
				/* round half to even of s / 2^shift, then saturate */
				int64_t q = s >> shift, r = s - q * ((int64_t)1 << shift);
				int64_t half = shift ? (int64_t)1 << (shift - 1) : 0;

				if (shift && (r > half || (r == half && (q & 1))))
					q++;
				s = q < -128 ? -128 : q > 127 ? 127 : q;
				got = (int8_t)c.data[i * n + j];
			} else {
				int32_t v;

				memcpy(&v, c.data + 4 * (i * n + j), 4);
				got = v;
			}
			if (got != s && bad++ < 5)
				fprintf(stderr, "gemmref: C[%" PRIu64 "][%" PRIu64 "] = %" PRId64
					", expected %" PRId64 "\n", i, j, got, s);
		}
	if (bad)
		fprintf(stderr, "gemmref: %" PRIu64 " of %" PRIu64 " elements differ\n",
			bad, m * n);
	else
		printf("gemmref: C (%" PRIu64 "x%" PRIu64 ") matches the reference exactly\n",
		       m, n);
	rc = bad ? 1 : 0;
out:
	npy_free(&a);
	npy_free(&b);
	npy_free(&c);
	return rc;
}

int main(int argc, char **argv)
{
	struct diag d;
	int rc = 2;

	diag_init(&d, stderr);
	if (argc > 1 && strcmp(argv[1], "gen") == 0)
		rc = gen(argc, argv, &d, DT_INT8);
	else if (argc > 1 && strcmp(argv[1], "check") == 0)
		rc = check(argc, argv, &d);
	else if (argc > 1 && strcmp(argv[1], "tilet") == 0)
		rc = tilet(argc, argv, &d);
	else if (argc > 1 && strcmp(argv[1], "genf") == 0)
		rc = gen(argc, argv, &d, DT_FP32);
	else if (argc > 1 && strcmp(argv[1], "checkf") == 0)
		rc = checkf(argc, argv, &d);
	if (rc == 2 && d.n_errors == 0)
		fprintf(stderr, "usage: gemmref gen|genf M K N SEED A.npy B.npy | check A.npy B.npy C.npy [SHIFT] | checkf A.npy B.npy C.npy | tilet A.npy R AT.npy\n");
	return rc;
}
