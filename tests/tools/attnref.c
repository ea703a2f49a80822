/*
 * attnref.c - independent reference for the attention kernel
 * (asm/kernels/attention.s): O = softmax(Q K^T * SCALE [+ causal mask]) V
 * per head, computed in double.
 *
 *   attnref gen H N NK D P SEED Q.npy KT.npy V.npy
 *       fp32 tensors of values uniform in [-2, 2) rounded to P significant
 *       bits (8: exact in bf16, 11: exact in fp16): Q as (H*N) x D, K
 *       transposed per head as (H*D) x NK (KT[h*D + d][k] = K_h[k][d]),
 *       V as (H*NK) x D
 *   attnref check H N NK D CAUSAL Q.npy KT.npy V.npy O.npy [SCALE]
 *       O ((H*N) x D, fp32, bf16 or fp16) against the reference with
 *       SCALE = 1/sqrt(D) unless given; CAUSAL 1 lets query q see the
 *       keys k <= q + NK - N (the last query sees every key).  Tolerance
 *       per element: 2^-P' * (max |V| of the column + |ref|) + 1e-6, P'
 *       the significant bits of the kernel's P matrix and output type
 *       (8 bf16, 11 fp16, 24 fp32): the probabilities enter the second
 *       product rounded to that type (relative error 2^-P' each, so the
 *       weighted sum moves by at most 2^-P' max |V|) and the output is
 *       rounded once more (2^-P' |ref|).
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

static uint64_t arg(const char *s) { return strtoull(s, NULL, 0); }

static float lcgf(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return (float)(*s >> 8) / 16777216.0f * 4.0f - 2.0f;
}

static int gen(uint64_t h, uint64_t n, uint64_t nk, uint64_t d, int p, uint32_t seed,
	       char **paths)
{
	const uint64_t shapes[3][2] = { { h * n, d }, { h * d, nk }, { h * nk, d } };
	struct diag dg;
	int k, rc = 0;

	diag_init(&dg, stderr);
	for (k = 0; k < 3 && !rc; k++) {
		struct npy t;
		uint64_t i;

		if (npy_alloc(&t, DT_FP32, 2, shapes[k]))
			return 2;
		for (i = 0; i < shapes[k][0] * shapes[k][1]; i++) {
			float v = round_bits(lcgf(&seed), p);

			memcpy(t.data + 4 * i, &v, 4);
		}
		rc = npy_write(paths[k], &t, &dg) ? 2 : 0;
		npy_free(&t);
	}
	return rc;
}

static int check(uint64_t h, uint64_t n, uint64_t nk, uint64_t d, int causal, char **paths,
		 double scale)
{
	struct npy q, kt, v, o;
	struct diag dg;
	double *s = NULL, worst = -1, worst_err = 0, worst_tol = 0;
	uint64_t hh, r, c, j, wi = 0, wj = 0;
	int rc = 2, bits;

	diag_init(&dg, stderr);
	memset(&q, 0, sizeof(q));
	memset(&kt, 0, sizeof(kt));
	memset(&v, 0, sizeof(v));
	memset(&o, 0, sizeof(o));
	if (npy_read(paths[0], &q, &dg) || npy_read(paths[1], &kt, &dg) ||
	    npy_read(paths[2], &v, &dg) || npy_read(paths[3], &o, &dg))
		goto out;
	if (npy_count(&q) != h * n * d || npy_count(&kt) != h * d * nk ||
	    npy_count(&v) != h * nk * d || npy_count(&o) != h * n * d ||
	    (o.dtype != DT_FP32 && o.dtype != DT_BF16 && o.dtype != DT_FP16)) {
		fprintf(stderr, "attnref: Q (H*N x D), KT (H*D x NK), V (H*NK x D), O (H*N x D: fp32, bf16 or fp16)\n");
		goto out;
	}
	bits = sig_bits(o.dtype);
	s = malloc(sizeof(*s) * (nk ? nk : 1));
	if (!s)
		goto out;
	for (hh = 0; hh < h; hh++) {
		/* max |V| of each column of this head, for the tolerance */
		for (r = 0; r < n; r++) {
			double mx = -INFINITY, sum = 0;
			uint64_t last = causal ? r + (nk - n) : nk - 1;

			for (j = 0; j < nk; j++) {
				double acc = 0;

				if (j > last) {
					s[j] = -INFINITY;
					continue;
				}
				for (c = 0; c < d; c++)
					acc += elem(&q, (hh * n + r) * d + c) *
					       elem(&kt, (hh * d + c) * nk + j);
				s[j] = acc * scale;
				if (s[j] > mx)
					mx = s[j];
			}
			for (j = 0; j < nk; j++) {
				s[j] = j > last ? 0 : exp(s[j] - mx);
				sum += s[j];
			}
			for (c = 0; c < d; c++) {
				double ref = 0, vmax = 0, got, err, tol;

				for (j = 0; j < nk; j++) {
					double vv = elem(&v, (hh * nk + j) * d + c);

					ref += s[j] * vv;
					if (fabs(vv) > vmax)
						vmax = fabs(vv);
				}
				ref /= sum;
				got = elem(&o, (hh * n + r) * d + c);
				err = fabs(got - ref);
				tol = ldexp(vmax + fabs(ref), -bits) + 1e-6;
				if (!(err / tol <= worst)) {
					worst = err / tol;
					worst_err = err;
					worst_tol = tol;
					wi = hh * n + r;
					wj = c;
				}
			}
		}
	}
	rc = worst <= 1 ? 0 : 1;
	printf("attnref: worst error %.3g at [%llu][%llu], %.2f of its tolerance %.3g\n",
	       worst_err, (unsigned long long)wi, (unsigned long long)wj, worst, worst_tol);
out:
	free(s);
	npy_free(&q);
	npy_free(&kt);
	npy_free(&v);
	npy_free(&o);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 11 && strcmp(argv[1], "gen") == 0)
		return gen(arg(argv[2]), arg(argv[3]), arg(argv[4]), arg(argv[5]),
			   atoi(argv[6]), (uint32_t)arg(argv[7]), argv + 8);
	if ((argc == 11 || argc == 12) && strcmp(argv[1], "check") == 0) {
		uint64_t d = arg(argv[5]);

		if (!d || !arg(argv[2]) || !arg(argv[3]) || !arg(argv[4]))
			goto usage;
		return check(arg(argv[2]), arg(argv[3]), arg(argv[4]), d, atoi(argv[6]), argv + 7,
			     argc == 12 ? atof(argv[11]) : 1 / sqrt((double)d));
	}
usage:
	fprintf(stderr, "usage: attnref gen H N NK D P SEED Q.npy KT.npy V.npy\n"
			"       attnref check H N NK D CAUSAL Q.npy KT.npy V.npy O.npy [SCALE]\n");
	return 2;
}
