/*
 * gatherref.c - independent reference for the embedding kernels
 * (asm/kernels/gather.s: gather and scatter-add).
 *
 *   gatherref gen R C TYPE SEED OUT.npy
 *       an R x C tensor of TYPE (a dtype name): floats uniform in [-4, 4)
 *       with full fp32 precision, rounded once to TYPE; int8 and int16
 *       over their whole range; int32 in [-2^20, 2^20)
 *   gatherref idx N LO HI SEED OUT.npy
 *       N int32 indices uniform in [LO, HI) (LO < 0 or HI > V makes
 *       out-of-range indices; a narrow range makes duplicates)
 *   gatherref seq N START OUT.npy
 *       the indices START, START + 1, ... (a gather that is a plain copy)
 *   gatherref gcheck E.npy I.npy Y.npy
 *       gather: Y[i] == E[clamp(I[i], 0, V - 1)] bit for bit
 *   gatherref scheck Y0.npy I.npy U.npy Y.npy
 *       scatter-add: Y = Y0 with U[i] added to row I[i] for every i with
 *       0 <= I[i] < V (others dropped).  Integer Y (int32): exact, modulo
 *       2^32.  fp32 Y: per element, with the n terms Y0 and the updates
 *       of that row, |Y - exact| <= gamma_n * sum |terms|, gamma_n =
 *       n u / (1 - n u), u = 2^-24 (recursive summation in any order,
 *       Higham 2002, section 4.2); rows that no index names must be
 *       bit-identical to Y0.
 *
 * The references are plain loops over the rows in double (int64 for
 * integers): nothing like the kernel's blocks, match matrices or DMA.
 * Exit 0 when within tolerance, 1 with the first mismatches otherwise,
 * 2 on bad usage or files.
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

/* uniform in [-4, 4) with 48 random bits (more than fp32 keeps) */
static double lcgd(uint32_t *s)
{
	double hi = lcg(s), lo = lcg(s);

	return (hi + lo / 16777216.0) / 16777216.0 * 8.0 - 4.0;
}

static uint64_t arg(const char *s) { return strtoull(s, NULL, 0); }

static int32_t get_i32(const struct npy *t, uint64_t i)
{
	int32_t v;

	memcpy(&v, t->data + 4 * i, 4);
	return v;
}

static int gen(char **argv, struct diag *d)
{
	uint64_t sh[2] = { arg(argv[2]), arg(argv[3]) }, i;
	int t = dtype_from_name(argv[4]);
	uint32_t seed = (uint32_t)arg(argv[5]);
	struct npy x;
	int rc;

	if (t < 0 || t == DT_INT4) {
		fprintf(stderr, "gatherref: unknown or unsupported type %s\n", argv[4]);
		return 2;
	}
	if (npy_alloc(&x, (enum npu_dtype)t, 2, sh))
		return 2;
	for (i = 0; i < sh[0] * sh[1]; i++) {
		double v;

		switch (t) {
		case DT_INT8:
			v = (double)((int)(lcg(&seed) % 256) - 128);
			break;
		case DT_INT16:
			v = (double)((int)(lcg(&seed) % 65536) - 32768);
			break;
		case DT_INT32:
			v = (double)((int32_t)(lcg(&seed) % (1u << 21)) - (1 << 20));
			break;
		default:
			v = lcgd(&seed);
			break;
		}
		num_store((enum npu_dtype)t, x.data, i, v, NUM_OVF_SAT);
	}
	rc = npy_write(argv[6], &x, d) ? 2 : 0;
	npy_free(&x);
	return rc;
}

static int idx(char **argv, struct diag *d)
{
	uint64_t n = arg(argv[2]), i;
	int64_t lo = strtoll(argv[3], NULL, 0), hi = strtoll(argv[4], NULL, 0);
	uint32_t seed = (uint32_t)arg(argv[5]);
	struct npy x;
	int rc;

	if (hi <= lo || hi - lo > (1ll << 31)) {
		fprintf(stderr, "gatherref: idx needs LO < HI within 2^31\n");
		return 2;
	}
	if (npy_alloc(&x, DT_INT32, 1, &n))
		return 2;
	for (i = 0; i < n; i++) {
		/* two draws: 48 bits, so any range up to 2^31 is uniform enough */
		uint64_t r = (uint64_t)lcg(&seed) << 24 | lcg(&seed);
		int32_t v = (int32_t)(lo + (int64_t)(r % (uint64_t)(hi - lo)));

		memcpy(x.data + 4 * i, &v, 4);
	}
	rc = npy_write(argv[6], &x, d) ? 2 : 0;
	npy_free(&x);
	return rc;
}

static int seq(char **argv, struct diag *d)
{
	uint64_t n = arg(argv[2]), i;
	int64_t start = strtoll(argv[3], NULL, 0);
	struct npy x;
	int rc;

	if (npy_alloc(&x, DT_INT32, 1, &n))
		return 2;
	for (i = 0; i < n; i++) {
		int32_t v = (int32_t)(start + (int64_t)i);

		memcpy(x.data + 4 * i, &v, 4);
	}
	rc = npy_write(argv[4], &x, d) ? 2 : 0;
	npy_free(&x);
	return rc;
}

static int gcheck(char **argv, struct diag *d)
{
	struct npy e, ix, y;
	uint64_t i, v, row, n, bad = 0, oob = 0;
	int rc = 2;

	memset(&e, 0, sizeof(e));
	memset(&ix, 0, sizeof(ix));
	memset(&y, 0, sizeof(y));
	if (npy_read(argv[2], &e, d) || npy_read(argv[3], &ix, d) || npy_read(argv[4], &y, d))
		goto out;
	n = npy_count(&ix);
	if (e.ndim != 2 || y.ndim != 2 || ix.dtype != DT_INT32 || e.dtype != y.dtype ||
	    y.shape[0] != n || y.shape[1] != e.shape[1] || e.shape[0] == 0) {
		fprintf(stderr, "gatherref: E (V x D), I (N int32), Y (N x D) of E's type\n");
		goto out;
	}
	v = e.shape[0];
	row = e.nbytes / v;
	for (i = 0; i < n; i++) {
		int64_t k = get_i32(&ix, i);

		if (k < 0 || k >= (int64_t)v)
			oob++;
		k = k < 0 ? 0 : k >= (int64_t)v ? (int64_t)v - 1 : k;
		if (memcmp(y.data + i * row, e.data + (uint64_t)k * row, row) != 0 && bad++ < 5)
			fprintf(stderr, "gatherref: Y row %" PRIu64 " is not E row %" PRId64 "\n", i, k);
	}
	printf("gatherref: %" PRIu64 " of %" PRIu64 " rows differ (%" PRIu64 " indices clamped)\n",
	       bad, n, oob);
	rc = bad ? 1 : 0;
out:
	npy_free(&e);
	npy_free(&ix);
	npy_free(&y);
	return rc;
}

static int scheck(char **argv, struct diag *d)
{
	struct npy y0, ix, u, y;
	uint64_t i, j, v, dd, n, bad = 0, drop = 0, maxcnt = 0, touched = 0;
	uint64_t *cnt = NULL;
	double *sum = NULL, *mag = NULL, worst = 0;
	int64_t *isum = NULL;
	int rc = 2, fl;

	memset(&y0, 0, sizeof(y0));
	memset(&ix, 0, sizeof(ix));
	memset(&u, 0, sizeof(u));
	memset(&y, 0, sizeof(y));
	if (npy_read(argv[2], &y0, d) || npy_read(argv[3], &ix, d) ||
	    npy_read(argv[4], &u, d) || npy_read(argv[5], &y, d))
		goto out;
	n = npy_count(&ix);
	fl = y0.dtype == DT_FP32;
	if (y0.ndim != 2 || y.ndim != 2 || u.ndim != 2 || ix.dtype != DT_INT32 ||
	    (y0.dtype != DT_FP32 && y0.dtype != DT_INT32) || y.dtype != y0.dtype ||
	    dtype_is_float(u.dtype) != fl || u.shape[0] != n || u.shape[1] != y0.shape[1] ||
	    y.shape[0] != y0.shape[0] || y.shape[1] != y0.shape[1]) {
		fprintf(stderr, "gatherref: Y0, Y (V x D fp32 or int32), I (N int32), "
			"U (N x D, float for fp32 Y, integer for int32 Y)\n");
		goto out;
	}
	v = y0.shape[0];
	dd = y0.shape[1];
	/* + 1: never calloc(0) */
	cnt = calloc(v + 1, sizeof(*cnt));
	sum = calloc(v * dd + 1, sizeof(*sum));
	mag = calloc(v * dd + 1, sizeof(*mag));
	isum = calloc(v * dd + 1, sizeof(*isum));
	if (!cnt || !sum || !mag || !isum)
		goto out;
	for (i = 0; i < v * dd; i++) {
		double t = num_load(y0.dtype, y0.data, i);

		sum[i] = t;
		mag[i] = fabs(t);
		isum[i] = (int64_t)t;
	}
	for (i = 0; i < n; i++) {
		int64_t k = get_i32(&ix, i);

		if (k < 0 || k >= (int64_t)v) {
			drop++;
			continue;
		}
		if (++cnt[k] > maxcnt)
			maxcnt = cnt[k];
		for (j = 0; j < dd; j++) {
			double t = num_load(u.dtype, u.data, i * dd + j);

			sum[k * dd + j] += t;
			mag[k * dd + j] += fabs(t);
			isum[k * dd + j] += (int64_t)t;
		}
	}
	for (i = 0; i < v; i++) {
		double g = (double)(cnt[i] + 1) * 0x1p-24;

		g /= 1 - g;
		touched += cnt[i] != 0;
		for (j = 0; j < dd; j++) {
			uint64_t at = i * dd + j;
			int ok;

			if (cnt[i] == 0) {
				ok = memcmp(y.data + 4 * at, y0.data + 4 * at, 4) == 0;
			} else if (fl) {
				double got = num_load(DT_FP32, y.data, at), e = fabs(got - sum[at]);
				double r = mag[at] > 0 ? e / (g * mag[at]) : e > 0 ? INFINITY : 0;

				if (!(r <= worst))
					worst = r;
				ok = e <= g * mag[at];
			} else {
				ok = get_i32(&y, at) == (int32_t)(uint32_t)(uint64_t)isum[at];
			}
			if (!ok && bad++ < 5)
				fprintf(stderr, "gatherref: Y[%" PRIu64 "][%" PRIu64 "] = %.9g, "
					"expected %.9g (%" PRIu64 " updates)\n", i, j,
					num_load(y.dtype, y.data, at),
					fl ? sum[at] : (double)(int32_t)(uint32_t)(uint64_t)isum[at], cnt[i]);
		}
	}
	printf("gatherref: %" PRIu64 " of %" PRIu64 " elements out of tolerance; %" PRIu64
	       " rows updated, at most %" PRIu64 " times; %" PRIu64 " indices dropped",
	       bad, v * dd, touched, maxcnt, drop);
	if (fl)
		printf("; worst error %.3g of its bound", worst);
	printf("\n");
	rc = bad ? 1 : 0;
out:
	free(cnt);
	free(sum);
	free(mag);
	free(isum);
	npy_free(&y0);
	npy_free(&ix);
	npy_free(&u);
	npy_free(&y);
	return rc;
}

int main(int argc, char **argv)
{
	struct diag d;

	diag_init(&d, stderr);
	if (argc == 7 && strcmp(argv[1], "gen") == 0)
		return gen(argv, &d);
	if (argc == 7 && strcmp(argv[1], "idx") == 0)
		return idx(argv, &d);
	if (argc == 5 && strcmp(argv[1], "seq") == 0)
		return seq(argv, &d);
	if (argc == 5 && strcmp(argv[1], "gcheck") == 0)
		return gcheck(argv, &d);
	if (argc == 6 && strcmp(argv[1], "scheck") == 0)
		return scheck(argv, &d);
	fprintf(stderr, "usage: gatherref gen R C TYPE SEED OUT.npy | idx N LO HI SEED OUT.npy |\n"
		"       seq N START OUT.npy | gcheck E.npy I.npy Y.npy | scheck Y0.npy I.npy U.npy Y.npy\n");
	return 2;
}
