/*
 * bnref.c - independent reference for the inference batch normalisation
 * kernel (asm/kernels/batchnorm.s).
 *
 *   bnref gen R C TYPE SEED X.npy
 *       X (R x C, fp32 or bf16): uniform in [-4, 4) with full fp32
 *       precision, rounded once to TYPE
 *   bnref params C SEED GAMMA.npy BETA.npy MEAN.npy VAR.npy
 *       fp32 parameter vectors: gamma, beta, mean in [-2, 2), var in
 *       [0.05, 4)
 *   bnref check X GAMMA BETA MEAN VAR Y EPS RELU TOL
 *       Y == (X - mean) * gamma / sqrt(var + EPS) + beta (relu if RELU)
 *       computed in double from the stored values, within
 *           TOL * (|x s| + |mean s| + |beta|)          (fp32 Y)
 *           that * (1 + 2^-8) + 2^-8 |ref|             (bf16 Y: its own
 *                                                       rounding, at most
 *                                                       2^-8 of the value)
 *       per element, s = gamma / sqrt(var + EPS): the kernel's fp32 path
 *       x * scale + (beta - mean * scale) loses at most a few units of
 *       fp32 rounding on each of those three magnitudes.
 *
 * Exit 0 when within tolerance (printing the worst error as a fraction
 * of its bound), 1 otherwise, 2 on bad usage or files.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/npy.h"
#include "../../util/num.h"

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

/* uniform in [0, 1) with 48 random bits */
static double unif(uint32_t *s)
{
	double hi = lcg(s), lo = lcg(s);

	return (hi + lo / 16777216.0) / 16777216.0;
}

static int write_vec(const char *path, uint64_t n, double lo, double hi,
		     uint32_t *seed, struct diag *d)
{
	struct npy t;
	uint64_t i;
	int rc;

	if (npy_alloc(&t, DT_FP32, 1, &n))
		return 2;
	for (i = 0; i < n; i++)
		num_store(DT_FP32, t.data, i, lo + (hi - lo) * unif(seed), NUM_OVF_SAT);
	rc = npy_write(path, &t, d) ? 2 : 0;
	npy_free(&t);
	return rc;
}

static int check(char **argv, struct diag *d)
{
	struct npy x, g, b, m, v, y;
	double eps = atof(argv[8]), tol = atof(argv[10]), worst = 0;
	int relu = atoi(argv[9]), rc = 2;
	uint64_t r, c, rows, ch, bad = 0;

	memset(&x, 0, sizeof(x));
	memset(&g, 0, sizeof(g));
	memset(&b, 0, sizeof(b));
	memset(&m, 0, sizeof(m));
	memset(&v, 0, sizeof(v));
	memset(&y, 0, sizeof(y));
	if (npy_read(argv[2], &x, d) || npy_read(argv[3], &g, d) || npy_read(argv[4], &b, d) ||
	    npy_read(argv[5], &m, d) || npy_read(argv[6], &v, d) || npy_read(argv[7], &y, d))
		goto out;
	if (x.ndim != 2 || y.ndim != 2 || x.dtype != y.dtype ||
	    (x.dtype != DT_FP32 && x.dtype != DT_BF16) || x.shape[0] != y.shape[0] ||
	    x.shape[1] != y.shape[1] || g.dtype != DT_FP32 || b.dtype != DT_FP32 ||
	    m.dtype != DT_FP32 || v.dtype != DT_FP32 || npy_count(&g) != x.shape[1] ||
	    npy_count(&b) != x.shape[1] || npy_count(&m) != x.shape[1] ||
	    npy_count(&v) != x.shape[1]) {
		fprintf(stderr, "bnref: X, Y (R x C, fp32 or bf16), four fp32 vectors of C\n");
		goto out;
	}
	rows = x.shape[0];
	ch = x.shape[1];
	for (r = 0; r < rows; r++)
		for (c = 0; c < ch; c++) {
			double xv = num_load(x.dtype, x.data, r * ch + c);
			double gv = num_load(DT_FP32, g.data, c), bv = num_load(DT_FP32, b.data, c);
			double mv = num_load(DT_FP32, m.data, c), vv = num_load(DT_FP32, v.data, c);
			double s = gv / sqrt(vv + eps), want = (xv - mv) * s + bv;
			double got = num_load(y.dtype, y.data, r * ch + c), bound, e;

			bound = tol * (fabs(xv * s) + fabs(mv * s) + fabs(bv));
			if (relu && want < 0) {
				/* the kernel clamps its own value: anything in the
				 * bound below 0 becomes +0 */
				want = 0;
			}
			if (y.dtype == DT_BF16) /* its rounding, of a value within bound */
				bound = bound * (1 + 0x1p-8) + 0x1p-8 * fabs(want);
			e = fabs(got - want);
			if (bound > 0 && e / bound > worst)
				worst = e / bound;
			if (!(e <= bound) || (relu && got < 0)) {
				if (bad++ < 5)
					fprintf(stderr, "bnref: Y[%" PRIu64 "][%" PRIu64 "] = %.9g, "
						"expected %.9g (bound %.3g)\n", r, c, got, want, bound);
			}
		}
	printf("bnref: %" PRIu64 " of %" PRIu64 " elements out of tolerance; worst error %.3g "
	       "of its bound\n", bad, rows * ch, worst);
	rc = bad ? 1 : 0;
out:
	npy_free(&x);
	npy_free(&g);
	npy_free(&b);
	npy_free(&m);
	npy_free(&v);
	npy_free(&y);
	return rc;
}

int main(int argc, char **argv)
{
	struct diag d;

	diag_init(&d, stderr);
	if (argc == 7 && strcmp(argv[1], "gen") == 0) {
		uint64_t sh[2] = { strtoull(argv[2], NULL, 0), strtoull(argv[3], NULL, 0) }, i;
		int t = dtype_from_name(argv[4]);
		uint32_t seed = (uint32_t)strtoul(argv[5], NULL, 0);
		struct npy x;
		int rc;

		if (t != DT_FP32 && t != DT_BF16) {
			fprintf(stderr, "bnref: TYPE is fp32 or bf16\n");
			return 2;
		}
		if (npy_alloc(&x, (enum npu_dtype)t, 2, sh))
			return 2;
		for (i = 0; i < sh[0] * sh[1]; i++)
			num_store((enum npu_dtype)t, x.data, i, 8 * unif(&seed) - 4, NUM_OVF_SAT);
		rc = npy_write(argv[6], &x, &d) ? 2 : 0;
		npy_free(&x);
		return rc;
	}
	if (argc == 8 && strcmp(argv[1], "params") == 0) {
		uint64_t n = strtoull(argv[2], NULL, 0);
		uint32_t seed = (uint32_t)strtoul(argv[3], NULL, 0);

		if (write_vec(argv[4], n, -2, 2, &seed, &d) || write_vec(argv[5], n, -2, 2, &seed, &d) ||
		    write_vec(argv[6], n, -2, 2, &seed, &d) || write_vec(argv[7], n, 0.05, 4, &seed, &d))
			return 2;
		return 0;
	}
	if (argc == 11 && strcmp(argv[1], "check") == 0)
		return check(argv, &d);
	fprintf(stderr, "usage: bnref gen R C TYPE SEED X.npy | params C SEED G.npy B.npy M.npy V.npy |\n"
		"       check X G B M V Y EPS RELU TOL\n");
	return 2;
}
