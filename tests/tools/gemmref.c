/*
 * gemmref.c - independent reference for GEMM kernels (tests and `make run`).
 *
 *   gemmref gen  M K N SEED A.npy B.npy [LO HI]
 *                                          random int8 inputs (LCG, seeded),
 *                                          in LO..HI (default -128..127;
 *                                          -8 7 for int4)
 *   gemmref check A.npy B.npy C.npy [SHIFT [BIAS.npy|- [ACT]]]
 *                                          C == A*B exactly (int32), or,
 *                                          with SHIFT, an int8 C equal to
 *                                          sat8(rne(act(A*B + bias) / 2^SHIFT))
 *   gemmref genf M K N SEED A.npy B.npy [DIV]
 *                                          float32 inputs that are multiples
 *                                          of 1/DIV (8) in [-2, 2]: exact in
 *                                          fp16, bf16 and fp8 e4m3 (DIV 4:
 *                                          e5m2), and every partial sum of a
 *                                          dot product of length <= 2^13 is
 *                                          exact in fp32
 *   gemmref genb N SEED int32|fp32 BIAS.npy a bias: integers in
 *                                          -4096..4096, or multiples of 1/8
 *                                          in [-4, 4]
 *   gemmref checkf A.npy B.npy C.npy [BIAS.npy|- [ACT]]
 *                                          C == act(A*B + bias) computed in
 *                                          double (exact sums for genf
 *                                          inputs), rounded to C's type
 *                                          (fp32, fp16 or bf16) to nearest
 *                                          even
 *   ACT: 0 none, 1 relu, 2 gelu (x (1 + erf(x / sqrt 2)) / 2), 3 silu
 *   (x / (1 + exp(-x))), in double
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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/npy.h"

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

/* A generated tensor: int8 bytes in lo..hi, or fp32 multiples of 1/div
 * in [-2, 2] (exact in the narrow float types; see the file comment). */
static void fill(struct npy *t, uint32_t *seed, int lo, int hi, int div)
{
	uint64_t i;

	if (t->dtype == DT_INT8) {
		for (i = 0; i < t->nbytes; i++)
			t->data[i] = (uint8_t)(int8_t)((int)(lcg(seed) % (uint32_t)(hi - lo + 1)) + lo);
		return;
	}
	for (i = 0; i < t->nbytes / 4; i++) {
		float v = (float)((int)(lcg(seed) % (uint32_t)(4 * div + 1)) - 2 * div) /
			  (float)div;

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

	int lo = -128, hi = 127, div = 8;

	if (t == DT_INT8 && argc == 10) {
		lo = atoi(argv[8]);
		hi = atoi(argv[9]);
	} else if (t == DT_FP32 && argc == 9) {
		div = atoi(argv[8]);
	} else if (argc != 8) {
		return 2;
	}
	if (lo < -128 || hi > 127 || lo > hi || div < 1 || div > 64)
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
	fill(&a, &seed, lo, hi, div);
	fill(&b, &seed, lo, hi, div);
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

/* The activations, as the kernels' ACT numbers them, in double. */
static double act(int a, double x)
{
	switch (a) {
	case 1: return x < 0 ? 0 : x;
	case 2: return 0.5 * x * (1 + erf(x / sqrt(2.0)));
	case 3: return x / (1 + exp(-x));
	default: return x;
	}
}

/* x rounded to nearest even with p significand bits and minimum normal
 * exponent emin (fp32 24/-126, fp16 11/-14, bf16 8/-126); no overflow in
 * the tests' ranges. */
static double round_p(double x, int p, int emin)
{
	int e;

	if (x == 0 || !isfinite(x))
		return x;
	(void)frexp(x, &e);
	e -= 1; /* x = f * 2^e, 1 <= |f| < 2 */
	if (e < emin)
		e = emin;
	return ldexp(nearbyint(ldexp(x, p - 1 - e)), e - (p - 1));
}

/* Element i of C decoded: fp32, fp16 or bf16 (raw bits) as double. */
static double c_elem(const struct npy *c, uint64_t i)
{
	uint32_t u = 0;
	float f;

	if (c->dtype == DT_FP32) {
		memcpy(&f, c->data + 4 * i, 4);
		return f;
	}
	memcpy(&u, c->data + 2 * i, 2);
	if (c->dtype == DT_BF16) {
		u <<= 16;
		memcpy(&f, &u, 4);
		return f;
	}
	/* fp16: sign, 5-bit exponent, 10-bit fraction */
	{
		int ex = (int)((u >> 10) & 31);
		double m = (double)(u & 1023);
		double v = ex ? ldexp(1024 + m, ex - 25) : ldexp(m, -24);

		if (ex == 31)
			v = m ? NAN : INFINITY;
		return (u & 0x8000) ? -v : v;
	}
}

/* genb: a bias of N int32 or fp32 values. */
static int genb(int argc, char **argv, struct diag *d)
{
	struct npy b;
	uint64_t n[1];
	uint32_t seed;
	int fl, rc;
	uint64_t i;

	if (argc != 6)
		return 2;
	n[0] = strtoull(argv[2], NULL, 0);
	seed = (uint32_t)strtoul(argv[3], NULL, 0);
	fl = strcmp(argv[4], "fp32") == 0;
	if (!fl && strcmp(argv[4], "int32") != 0)
		return 2;
	memset(&b, 0, sizeof(b));
	if (npy_alloc(&b, fl ? DT_FP32 : DT_INT32, 1, n))
		return 2;
	for (i = 0; i < n[0]; i++) {
		int32_t v = (int32_t)(lcg(&seed) % 8193) - 4096;

		if (fl) {
			float f = (float)(v % 33) / 8.0f;

			memcpy(b.data + 4 * i, &f, 4);
		} else {
			memcpy(b.data + 4 * i, &v, 4);
		}
	}
	rc = npy_write(argv[5], &b, d) ? 2 : 0;
	npy_free(&b);
	return rc;
}

static int checkf(int argc, char **argv, struct diag *d)
{
	struct npy a, b, c, bias;
	uint64_t m, k, n, i, j, l, bad = 0;
	int rc = 2, fa;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&c, 0, sizeof(c));
	memset(&bias, 0, sizeof(bias));
	if (argc < 5 || argc > 7)
		return 2;
	if (npy_read(argv[2], &a, d) || npy_read(argv[3], &b, d) ||
	    npy_read(argv[4], &c, d) ||
	    (argc > 5 && strcmp(argv[5], "-") && npy_read(argv[5], &bias, d)))
		goto out;
	fa = argc > 6 ? atoi(argv[6]) : 0;
	if (a.ndim != 2 || b.ndim != 2 || c.ndim != 2 || a.dtype != DT_FP32 ||
	    b.dtype != DT_FP32 ||
	    (c.dtype != DT_FP32 && c.dtype != DT_FP16 && c.dtype != DT_BF16) ||
	    a.shape[1] != b.shape[0] || c.shape[0] != a.shape[0] ||
	    c.shape[1] != b.shape[1] ||
	    (bias.data && (bias.dtype != DT_FP32 || npy_count(&bias) != b.shape[1]))) {
		(void)diag_error(d, diag_nowhere(), NPU_ETENSOR,
				 "gemmref: A, B fp32 and C fp32/fp16/bf16 matrices forming a GEMM, BIAS N fp32");
		goto out;
	}
	m = a.shape[0];
	k = a.shape[1];
	n = b.shape[1];
	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++) {
			double s = 0, got;
			float x, y;

			for (l = 0; l < k; l++) {
				memcpy(&x, a.data + 4 * (i * k + l), 4);
				memcpy(&y, b.data + 4 * (l * n + j), 4);
				s += (double)x * y;
			}
			if (bias.data) {
				float bv;

				memcpy(&bv, bias.data + 4 * j, 4);
				s += bv;
			}
			s = act(fa, s);
			s = c.dtype == DT_FP32 ? round_p(s, 24, -126) :
			    c.dtype == DT_FP16 ? round_p(s, 11, -14) :
						 round_p(s, 8, -126);
			got = c_elem(&c, i * n + j);
			if (got != s && bad++ < 5)
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
	npy_free(&bias);
	return rc;
}

static int check(int argc, char **argv, struct diag *d)
{
	struct npy a, b, c, bias;
	uint64_t m, k, n, i, j, l, bad = 0;
	int shift = argc > 5 ? atoi(argv[5]) : -1, rc = 2;
	int fa = argc > 7 ? atoi(argv[7]) : 0;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&c, 0, sizeof(c));
	memset(&bias, 0, sizeof(bias));
	if (argc < 5 || argc > 8)
		return 2;
	if (npy_read(argv[2], &a, d) || npy_read(argv[3], &b, d) ||
	    npy_read(argv[4], &c, d) ||
	    (argc > 6 && strcmp(argv[6], "-") && npy_read(argv[6], &bias, d)))
		goto out;
	if (bias.data && (bias.dtype != DT_INT32 || npy_count(&bias) != b.shape[1])) {
		(void)diag_error(d, diag_nowhere(), NPU_ETENSOR, "gemmref: BIAS must be N int32");
		goto out;
	}
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
				/* sat8(rne(act(s + bias) / 2^shift)); the sum of
				 * int8 products and a bias is exact in a double */
				double q;

				if (bias.data) {
					int32_t bv;

					memcpy(&bv, bias.data + 4 * j, 4);
					s += bv;
				}
				q = nearbyint(ldexp(act(fa, (double)s), -shift));
				s = q < -128 ? -128 : q > 127 ? 127 : (int64_t)q;
				got = (int8_t)c.data[i * n + j];
			} else {
				int32_t v;

				if (bias.data || fa) {
					/* through the output stage at scale 1 */
					double q;

					if (bias.data) {
						memcpy(&v, bias.data + 4 * j, 4);
						s += v;
					}
					q = nearbyint(act(fa, (double)s));
					s = q > 2147483647.0 ? 2147483647 :
					    q < -2147483648.0 ? INT32_MIN : (int64_t)q;
				}
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
	npy_free(&bias);
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
	else if (argc > 1 && strcmp(argv[1], "genb") == 0)
		rc = genb(argc, argv, &d);
	if (rc == 2 && d.n_errors == 0)
		fprintf(stderr, "usage: gemmref gen M K N SEED A.npy B.npy [LO HI] | genf M K N SEED A.npy B.npy [DIV] |\n"
				"       genb N SEED int32|fp32 BIAS.npy | check A.npy B.npy C.npy [SHIFT [BIAS.npy|- [ACT]]] |\n"
				"       checkf A.npy B.npy C.npy [BIAS.npy|- [ACT]] | tilet A.npy R AT.npy\n");
	return rc;
}
