/*
 * lnref.c - independent reference for the layernorm kernel.
 *
 *   lnref gen R L SEED X.npy [P]      fp32 inputs, values in [-4, 4) plus a
 *                                     per-row offset (so the mean matters);
 *                                     with P, rounded to P significant bits
 *                                     (8 bf16, 11 fp16: exact in that type)
 *   lnref check X.npy Y.npy TOL       |Y - ref| <= TOL for every element,
 *                                     ref = (x - mean) / sqrt(var + 1e-5)
 *                                     computed in double
 *   lnref ncheck MODE X.npy G.npy B.npy|- Y.npy TOL
 *                                     layernorm (MODE 0) or rmsnorm (1)
 *                                     with gamma and beta: |Y - ref| <= TOL
 *                                     + |ref| 2^-P, P the significant bits
 *                                     of Y's type (fp32 24, bf16 8, fp16 11:
 *                                     the output's one rounding)
 *   lnref gen4 D0 D1 D2 D3 SEED X.npy [P]
 *                                     the same values as a 4-D tensor (the
 *                                     offset per D3-row)
 *   lnref rdcheck OP X.npy Y.npy TOL [AXIS]
 *                                     reductions along AXIS (default the
 *                                     last) of a 2-D or 4-D X: 0 sum, 1 max,
 *                                     2 min, 3 mean (within TOL * (1 +
 *                                     |ref|)), 4 argmax (the first index,
 *                                     exact); Y is X without that axis
 *   lnref slcheck X Y R Z TOL          Z = silu(X) * Y + R within
 *                                     TOL * (1 + |ref|)
 *   lnref elcheck OP X A|- B|- Z TOL  the elementwise operators of eltwise.s
 *                                     on fp32/bf16/fp16: 0 silu(X) * A + B,
 *                                     1 silu(X), 2 gelu(X) (the tanh form of
 *                                     vgelu),
 *                                     3 relu(X + A) (A one row), 4 X + A,
 *                                     5 X * A; within TOL * (1 + |ref|) +
 *                                     2^-P (|ref| + 2 |silu(X) * A| for
 *                                     OP 0), P Z's significant bits: one
 *                                     rounding per operation into Z's type
 *   lnref smcheck X.npy Y.npy TOL     |Y - ref| <= TOL * ref for every
 *                                     element (relative), ref = softmax of
 *                                     the row, exp(x - max) / sum, double,
 *                                     beyond Y's rounding (fp32, bf16 or
 *                                     fp16: 2^-P ref, or half the smallest
 *                                     subnormal)
 *
 * Exit 0 when within tolerance, 1 otherwise (printing the worst element),
 * 2 on bad usage or files.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/npy.h"
#include "fpref.h"

static float lcgf(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return (float)(*s >> 8) / 16777216.0f * 8.0f - 4.0f;
}

/*
 * The worst |Y - ref| of a row normalisation, ref = (x - mean) /
 * sqrt(var + 1e-5) * g + b in double (rmsnorm: mean 0), g and b per column
 * (NULL: 1 and 0); its row and column in *wr, *wi.
 */
static double norm_worst(int rms, const struct npy *x, const struct npy *g,
			 const struct npy *b, const struct npy *y,
			 uint64_t *wr, uint64_t *wi)
{
	uint64_t r, i, rows = x->shape[0], len = x->shape[1];
	double worst = 0;

	for (r = 0; r < rows; r++) {
		double mean = 0, var = 0;
		float v, gv = 1, bv = 0, got;

		for (i = 0; !rms && i < len; i++) {
			memcpy(&v, x->data + 4 * (r * len + i), 4);
			mean += v;
		}
		mean /= (double)len;
		for (i = 0; i < len; i++) {
			memcpy(&v, x->data + 4 * (r * len + i), 4);
			var += (v - mean) * (v - mean);
		}
		var /= (double)len;
		for (i = 0; i < len; i++) {
			double e, ref;

			memcpy(&v, x->data + 4 * (r * len + i), 4);
			if (g)
				memcpy(&gv, g->data + 4 * i, 4);
			if (b)
				memcpy(&bv, b->data + 4 * i, 4);
			got = elem(y, r * len + i);
			ref = (v - mean) / sqrt(var + 1e-5) * gv + bv;
			/* beyond the tolerance, the output type's half ulp */
			e = fabs(got - ref) - fabs(ref) * ldexp(1, -sig_bits(y->dtype));
			if (!(e <= worst)) {
				worst = e;
				*wr = r;
				*wi = i;
			}
		}
	}
	return worst;
}

int main(int argc, char **argv)
{
	struct diag d;
	struct npy x, y;

	diag_init(&d, stderr);
	if (((argc == 6 || argc == 7) && strcmp(argv[1], "gen") == 0) ||
	    ((argc == 8 || argc == 9) && strcmp(argv[1], "gen4") == 0)) {
		int four = argv[1][3] == '4', k;
		uint64_t dims[4], sh[2];
		uint32_t seed = (uint32_t)strtoul(argv[four ? 6 : 4], NULL, 0);
		uint64_t r, i;

		for (k = 0; k < (four ? 4 : 2); k++)
			dims[k] = strtoull(argv[2 + k], NULL, 0);
		sh[1] = dims[four ? 3 : 1];
		sh[0] = four ? dims[0] * dims[1] * dims[2] : dims[0];
		if (npy_alloc(&x, DT_FP32, four ? 4 : 2, dims))
			return 2;
		argv += four ? 2 : 0;
		argc -= four ? 2 : 0;
		for (r = 0; r < sh[0]; r++)
			for (i = 0; i < sh[1]; i++) {
				float v = lcgf(&seed) + (float)r * 0.5f;

				if (argc == 7)
					v = round_bits(v, atoi(argv[6]));
				memcpy(x.data + 4 * (r * sh[1] + i), &v, 4);
			}
		i = npy_write(argv[5], &x, &d) ? 2 : 0;
		npy_free(&x);
		return (int)i;
	}
	if (argc == 8 && strcmp(argv[1], "ncheck") == 0) {
		/* ncheck MODE X G B|- Y TOL: layernorm (0) or rmsnorm (1) with
		 * gamma and beta, eps 1e-5, in double; |Y - ref| <= TOL */
		struct npy g, b;
		int mode = atoi(argv[2]), rc;
		double tol = atof(argv[7]), worst = 0;
		uint64_t wr = 0, wi = 0;

		memset(&x, 0, sizeof(x));
		memset(&y, 0, sizeof(y));
		memset(&g, 0, sizeof(g));
		memset(&b, 0, sizeof(b));
		if (npy_read(argv[3], &x, &d) || npy_read(argv[4], &g, &d) ||
		    (strcmp(argv[5], "-") && npy_read(argv[5], &b, &d)) ||
		    npy_read(argv[6], &y, &d) || x.ndim != 2 || y.ndim != 2 ||
		    x.dtype != DT_FP32 || g.dtype != DT_FP32 ||
		    (y.dtype != DT_FP32 && y.dtype != DT_BF16 && y.dtype != DT_FP16) ||
		    x.shape[0] != y.shape[0] || x.shape[1] != y.shape[1] ||
		    npy_count(&g) != x.shape[1] ||
		    (b.data && (b.dtype != DT_FP32 || npy_count(&b) != x.shape[1]))) {
			fprintf(stderr, "lnref: X (R x L), G and B (L) fp32, Y (R x L) fp32, bf16 or fp16\n");
			rc = 2;
			goto nout;
		}
		worst = norm_worst(mode == 1, &x, &g, b.data ? &b : NULL, &y, &wr, &wi);
		rc = worst <= tol ? 0 : 1;
		printf("lnref: worst error beyond Y's rounding %.3g at [%llu][%llu] (tolerance %g)\n", worst,
		       (unsigned long long)wr, (unsigned long long)wi, tol);
nout:
		npy_free(&x);
		npy_free(&y);
		npy_free(&g);
		npy_free(&b);
		return rc;
	}
	if ((argc == 6 || argc == 7) && strcmp(argv[1], "rdcheck") == 0) {
		/* rdcheck OP X Y TOL [AXIS]: reductions along AXIS, 0 sum,
		 * 1 max, 2 min, 3 mean (|Y - ref| <= TOL * (1 + |ref|)),
		 * 4 argmax (exact); X viewed as rows x len x inner */
		int op = atoi(argv[2]), rc = 0, axis, k;
		double tol = atof(argv[5]);
		uint64_t r, i, q, rows = 1, len, inner = 1;

		memset(&x, 0, sizeof(x));
		memset(&y, 0, sizeof(y));
		if (npy_read(argv[3], &x, &d) || npy_read(argv[4], &y, &d) ||
		    (x.ndim != 2 && x.ndim != 4) || x.dtype != DT_FP32 || y.dtype != DT_FP32) {
			fprintf(stderr, "lnref: X (2-D or 4-D) and Y fp32\n");
			npy_free(&x);
			npy_free(&y);
			return 2;
		}
		axis = argc == 7 ? atoi(argv[6]) : x.ndim - 1;
		if (axis < 0 || axis >= x.ndim) {
			fprintf(stderr, "lnref: AXIS out of range\n");
			npy_free(&x);
			npy_free(&y);
			return 2;
		}
		for (k = 0; k < axis; k++)
			rows *= x.shape[k];
		len = x.shape[axis];
		for (k = axis + 1; k < x.ndim; k++)
			inner *= x.shape[k];
		if (npy_count(&y) != rows * inner) {
			fprintf(stderr, "lnref: Y has %llu elements, not %llu\n",
				(unsigned long long)npy_count(&y), (unsigned long long)(rows * inner));
			npy_free(&x);
			npy_free(&y);
			return 2;
		}
		for (r = 0; r < rows * inner; r++) {
			double acc = op == 1 || op == 4 ? -INFINITY : op == 2 ? INFINITY : 0;
			uint64_t at = 0;
			float v, got;

			for (i = 0; i < len; i++) {
				q = ((r / inner) * len + i) * inner + r % inner;
				memcpy(&v, x.data + 4 * q, 4);
				if (op == 0 || op == 3)
					acc += v;
				else if ((op == 1 || op == 4) && v > acc) {
					acc = v;
					at = i;
				} else if (op == 2 && v < acc)
					acc = v;
			}
			if (op == 3)
				acc /= (double)len;
			if (op == 4)
				acc = (double)at;
			memcpy(&got, y.data + 4 * r, 4);
			if ((op == 4 || op == 1 || op == 2) ? got != acc
			    : fabs(got - acc) > tol * (1 + fabs(acc))) {
				if (rc++ < 5)
					fprintf(stderr, "lnref: Y[%llu] = %.9g, expected %.9g\n",
						(unsigned long long)r, got, acc);
			}
		}
		printf("lnref: %d of %llu results differ\n", rc, (unsigned long long)(rows * inner));
		npy_free(&x);
		npy_free(&y);
		return rc ? 1 : 0;
	}
	if (argc == 8 && strcmp(argv[1], "elcheck") == 0) {
		struct npy a, b;
		int op = atoi(argv[2]), rc = 2;
		double tol = atof(argv[7]), worst = -1;
		uint64_t i, n, len, wi = 0;

		memset(&x, 0, sizeof(x));
		memset(&y, 0, sizeof(y));
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		if (npy_read(argv[3], &x, &d) || (strcmp(argv[4], "-") && npy_read(argv[4], &a, &d)) ||
		    (strcmp(argv[5], "-") && npy_read(argv[5], &b, &d)) || npy_read(argv[6], &y, &d))
			goto el_out;
		n = npy_count(&x);
		len = x.ndim ? x.shape[x.ndim - 1] : 1;
		if (op < 0 || op > 5 || npy_count(&y) != n || ((op == 0 || op == 4 || op == 5) &&
		    (!a.data || npy_count(&a) != n)) || (op == 3 && (!a.data || npy_count(&a) != len)) ||
		    (op == 0 && (!b.data || npy_count(&b) != n))) {
			fprintf(stderr, "lnref: elcheck OP X A|- B|- Z TOL: operands missing or misshapen\n");
			goto el_out;
		}
		for (i = 0; i < n; i++) {
			double xv = elem(&x, i), ref, bound, e;
			double sl = xv / (1 + exp(-xv));

			switch (op) {
			case 0: ref = sl * elem(&a, i) + elem(&b, i);
				bound = fabs(ref) + 2 * fabs(sl * elem(&a, i)); break;
			case 1: ref = sl; bound = fabs(ref); break;
			case 2: /* vgelu's tanh form (docs/numerics.md) */
				ref = 0.5 * xv * (1 + tanh(sqrt(2 / 3.14159265358979323846) * (xv + 0.044715 * xv * xv * xv)));
				bound = fabs(ref); break;
			case 3: ref = xv + elem(&a, i % len); ref = ref > 0 ? ref : 0;
				bound = fabs(xv) + fabs(elem(&a, i % len)); break;
			case 4: ref = xv + elem(&a, i); bound = fabs(ref); break;
			default: ref = xv * elem(&a, i); bound = fabs(ref); break;
			}
			e = fabs(elem(&y, i) - ref) /
			    (tol * (1 + fabs(ref)) + ldexp(bound, -sig_bits(y.dtype)));
			if (!(e <= worst)) {
				worst = e;
				wi = i;
			}
		}
		rc = worst <= 1 ? 0 : 1;
		printf("lnref: worst element %llu at %.2f of its tolerance\n", (unsigned long long)wi,
		       worst);
el_out:
		npy_free(&x);
		npy_free(&y);
		npy_free(&a);
		npy_free(&b);
		return rc;
	}
	if (argc == 7 && strcmp(argv[1], "slcheck") == 0) {
		/* slcheck X Y R Z TOL: Z = silu(X) * Y + R within
		 * TOL * (1 + |ref|), in double */
		struct npy yy, rr;
		double tol = atof(argv[6]), worst = 0;
		uint64_t i, n;
		int rc = 2;

		memset(&x, 0, sizeof(x));
		memset(&y, 0, sizeof(y));
		memset(&yy, 0, sizeof(yy));
		memset(&rr, 0, sizeof(rr));
		if (npy_read(argv[2], &x, &d) || npy_read(argv[3], &yy, &d) ||
		    npy_read(argv[4], &rr, &d) || npy_read(argv[5], &y, &d))
			goto sl_out;
		n = npy_count(&x);
		if (x.dtype != DT_FP32 || yy.dtype != DT_FP32 || rr.dtype != DT_FP32 ||
		    y.dtype != DT_FP32 || npy_count(&yy) != n || npy_count(&rr) != n ||
		    npy_count(&y) != n) {
			fprintf(stderr, "lnref: X, Y, R, Z fp32 of one size\n");
			goto sl_out;
		}
		for (i = 0; i < n; i++) {
			float a, b, c, got;
			double want, e;

			memcpy(&a, x.data + 4 * i, 4);
			memcpy(&b, yy.data + 4 * i, 4);
			memcpy(&c, rr.data + 4 * i, 4);
			memcpy(&got, y.data + 4 * i, 4);
			want = a / (1 + exp(-(double)a)) * b + c;
			e = fabs(got - want) / (1 + fabs(want));
			if (e > worst)
				worst = e;
		}
		rc = worst <= tol ? 0 : 1;
		printf("lnref: worst error %.3g (tolerance %g)\n", worst, tol);
sl_out:
		npy_free(&x);
		npy_free(&y);
		npy_free(&yy);
		npy_free(&rr);
		return rc;
	}
	if (argc == 5 && strcmp(argv[1], "smcheck") == 0) {
		double tol = atof(argv[4]), worst = 0, sub;
		int bits;
		uint64_t r, i, rows, len, wr = 0, wi = 0;
		int rc;

		memset(&x, 0, sizeof(x));
		memset(&y, 0, sizeof(y));
		if (npy_read(argv[2], &x, &d) || npy_read(argv[3], &y, &d) ||
		    x.ndim != 2 || y.ndim != 2 ||
		    (x.dtype != DT_FP32 && x.dtype != DT_BF16 && x.dtype != DT_FP16) ||
		    (y.dtype != DT_FP32 && y.dtype != DT_BF16 && y.dtype != DT_FP16) ||
		    x.shape[0] != y.shape[0] || x.shape[1] != y.shape[1]) {
			fprintf(stderr, "lnref: X and Y must be fp32, bf16 or fp16 matrices of one shape\n");
			npy_free(&x);
			npy_free(&y);
			return 2;
		}
		rows = x.shape[0];
		len = x.shape[1];
		/* the output's one rounding: half an ulp (relative 2^-P) or,
		 * below the normal range, half the smallest subnormal */
		bits = sig_bits(y.dtype);
		sub = ldexp(1, y.dtype == DT_FP16 ? -25 : y.dtype == DT_BF16 ? -134 : -150);
		for (r = 0; r < rows; r++) {
			double mx = -INFINITY, sum = 0;
			float v;

			for (i = 0; i < len; i++)
				mx = fmax(mx, elem(&x, r * len + i));
			for (i = 0; i < len; i++)
				sum += exp(elem(&x, r * len + i) - mx);
			for (i = 0; i < len; i++) {
				double want, e, got;

				v = elem(&x, r * len + i);
				got = elem(&y, r * len + i);
				want = exp(v - mx) / sum;
				e = (fabs(got - want) - ldexp(want, -bits) - sub) / want;
				if (!(e <= worst)) {
					worst = e;
					wr = r;
					wi = i;
				}
			}
		}
		rc = worst <= tol ? 0 : 1;
		printf("lnref: worst relative error %.3g at [%llu][%llu] (tolerance %g)\n", worst,
		       (unsigned long long)wr, (unsigned long long)wi, tol);
		npy_free(&x);
		npy_free(&y);
		return rc;
	}
	if (argc == 5 && strcmp(argv[1], "check") == 0) {
		double tol = atof(argv[4]), worst = 0;
		uint64_t wr = 0, wi = 0;

		if (npy_read(argv[2], &x, &d))
			return 2;
		if (npy_read(argv[3], &y, &d)) {
			npy_free(&x);
			return 2;
		}
		if (x.ndim != 2 || y.ndim != 2 || x.dtype != DT_FP32 ||
		    y.dtype != DT_FP32 || x.shape[0] != y.shape[0] ||
		    x.shape[1] != y.shape[1]) {
			fprintf(stderr, "lnref: X and Y must be fp32 matrices of one shape\n");
			npy_free(&x);
			npy_free(&y);
			return 2;
		}
		worst = norm_worst(0, &x, NULL, NULL, &y, &wr, &wi);
		printf("lnref: max |error| %.3g at [%llu][%llu] (tolerance %.3g)\n", worst,
		       (unsigned long long)wr, (unsigned long long)wi, tol);
		npy_free(&x);
		npy_free(&y);
		return worst <= tol ? 0 : 1;
	}
	fprintf(stderr, "usage: lnref gen R L SEED X.npy | check X.npy Y.npy TOL\n");
	return 2;
}
