/*
 * permref.c - independent reference for the re-layout kernels
 * (asm/kernels/transpose.s, asm/kernels/concat.s, asm/kernels/copy.s).
 *
 *   permref gen DTYPE SEED OUT.npy D0 [D1 [D2 [D3]]]
 *       a tensor of DTYPE (int8, int16, int32, fp16, bf16, fp32) and the
 *       given shape, every element random bits from a seeded stream
 *       (floats kept finite: an all-ones exponent has its top bit
 *       cleared), so a misplaced element shows as a wrong value
 *   permref perm X.npy Y.npy P0 [P1 [P2 [P3]]]
 *       Y == X with its axes permuted: Y's axis k is X's axis Pk, i.e.
 *       Y[i0..] = X[j..] with j[Pk] = ik (numpy.transpose(X, P))
 *   permref concat A.npy B.npy Y.npy AXIS
 *       Y == numpy.concatenate((A, B), AXIS)
 *   permref split X.npy A.npy B.npy AXIS
 *       A and B == numpy.split(X, [A.shape[AXIS]], AXIS)
 *   permref slice X.npy Z.npy S0:E0 [S1:E1 ...]
 *       Z == X[S0:E0, S1:E1, ...] (one start:end per axis, step 1)
 *   permref pad X.npy Z.npy VALUE B0:A0 [B1:A1 ...]
 *       Z == numpy.pad(X, ((B0, A0), ...)) with VALUE (the element's bits,
 *       an integer) everywhere outside X
 *   permref resize X.npy Z.npy FH FW
 *       nearest-neighbour upsampling of a rank-3 or rank-4 channels-last
 *       X (..., H, W, C) by integer factors: Z[.., h, w, c] =
 *       X[.., h / FH, w / FW, c]
 *
 * The checks compare bytes: a re-layout copies bit patterns, so equality
 * is exact.  The reference walks the output element by element with an
 * odometer over its shape and the input's strides - nothing like the
 * kernels' tiles.  Exit 0 when equal, 1 with the first mismatches
 * otherwise, 2 on bad usage or files.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/npy.h"

#define MAXD 4

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int gen(int argc, char **argv, struct diag *d)
{
	int dt = dtype_from_name(argv[2]), nd = argc - 5, k, eb, rc;
	uint64_t seed = strtoull(argv[3], NULL, 0), sh[MAXD], i;
	struct npy t;

	if (dt < 0 || nd < 1 || nd > MAXD || dt == DT_INT4 ||
	    dt == DT_FP8E4M3 || dt == DT_FP8E5M2) {
		fprintf(stderr, "permref gen: DTYPE int8, int16, int32, fp16, bf16 or fp32; 1 to 4 dimensions\n");
		return 2;
	}
	for (k = 0; k < nd; k++)
		sh[k] = strtoull(argv[5 + k], NULL, 0);
	if (npy_alloc(&t, (enum npu_dtype)dt, nd, sh))
		return 2;
	eb = dtype_bits((enum npu_dtype)dt) / 8;
	for (i = 0; i < npy_count(&t); i++) {
		uint64_t v = splitmix(&seed);
		uint8_t *p = t.data + i * (uint64_t)eb;

		/* an exponent of all ones (inf, nan) loses its top bit */
		if (dt == DT_FP32 && (v & 0x7f800000u) == 0x7f800000u)
			v &= ~(uint64_t)0x40000000u;
		if (dt == DT_BF16 && (v & 0x7f80u) == 0x7f80u)
			v &= ~(uint64_t)0x4000u;
		if (dt == DT_FP16 && (v & 0x7c00u) == 0x7c00u)
			v &= ~(uint64_t)0x4000u;
		for (k = 0; k < eb; k++)
			p[k] = (uint8_t)(v >> (8 * k));
	}
	rc = npy_write(argv[4], &t, d) ? 2 : 0;
	npy_free(&t);
	return rc;
}

/* Elements of x before one step of axis k (C order). */
static uint64_t stride(const struct npy *x, int k)
{
	uint64_t s = 1;
	int j;

	for (j = k + 1; j < x->ndim; j++)
		s *= x->shape[j];
	return s;
}

/*
 * Compare out with the elements of in that out's odometer names: out's
 * element (i0, i1, ...) is in's element at base + sum ik * st[k].  Prints
 * up to five mismatches; returns their number.
 */
static uint64_t compare(const struct npy *in, const struct npy *out,
			const uint64_t st[MAXD], uint64_t base, const char *what)
{
	uint64_t idx[MAXD] = { 0 }, n = npy_count(out), i, bad = 0;
	int eb = dtype_bits(in->dtype) / 8, k;

	for (i = 0; i < n; i++) {
		uint64_t src = base;

		for (k = 0; k < out->ndim; k++)
			src += idx[k] * st[k];
		if (memcmp(out->data + i * (uint64_t)eb, in->data + src * (uint64_t)eb,
			   (size_t)eb)) {
			if (bad < 5) {
				printf("permref: %s element %" PRIu64 " (", what, i);
				for (k = 0; k < out->ndim; k++)
					printf("%s%" PRIu64, k ? ", " : "", idx[k]);
				printf(") differs from input element %" PRIu64 "\n", src);
			}
			bad++;
		}
		for (k = out->ndim - 1; k >= 0; k--) {
			if (++idx[k] < out->shape[k])
				break;
			idx[k] = 0;
		}
	}
	return bad;
}

static int same_type(const struct npy *a, const struct npy *b)
{
	if (a->dtype == b->dtype)
		return 1;
	fprintf(stderr, "permref: the tensors differ in type (%s, %s)\n",
		dtype_name(a->dtype), dtype_name(b->dtype));
	return 0;
}

/* perm X Y P0 ...: Y's axis k is X's axis Pk. */
static int perm(int argc, char **argv, struct diag *d)
{
	struct npy x, y;
	uint64_t st[MAXD], bad;
	int p[MAXD], k, seen = 0, rc = 2;

	memset(&x, 0, sizeof(x));
	memset(&y, 0, sizeof(y));
	if (npy_read(argv[2], &x, d) || npy_read(argv[3], &y, d))
		goto out;
	if (x.ndim != argc - 4 || y.ndim != x.ndim || x.ndim > MAXD || !same_type(&x, &y)) {
		fprintf(stderr, "permref perm: X and Y need as many dimensions as P has axes (at most 4)\n");
		goto out;
	}
	for (k = 0; k < x.ndim; k++) {
		p[k] = atoi(argv[4 + k]);
		if (p[k] < 0 || p[k] >= x.ndim || (seen & (1 << p[k]))) {
			fprintf(stderr, "permref perm: P is not a permutation\n");
			goto out;
		}
		seen |= 1 << p[k];
		if (y.shape[k] != x.shape[p[k]]) {
			fprintf(stderr, "permref perm: Y's axis %d has %" PRIu64 " elements, X's axis %d %" PRIu64 "\n",
				k, y.shape[k], p[k], x.shape[p[k]]);
			rc = 1;
			goto out;
		}
		st[k] = stride(&x, p[k]);
	}
	bad = compare(&x, &y, st, 0, "Y");
	printf("permref: %" PRIu64 " of %" PRIu64 " elements differ\n", bad, npy_count(&y));
	rc = bad ? 1 : 0;
out:
	npy_free(&x);
	npy_free(&y);
	return rc;
}

/*
 * concat A B Y AXIS (cat = 1) or split X A B AXIS (cat = 0): the whole
 * tensor w (Y, X) is A followed by B along AXIS; A and B are compared
 * with their blocks of w, in which direction the kernel copied.
 */
static int catsplit(int cat, char **argv, struct diag *d)
{
	struct npy a, b, w;
	const char *wp = argv[cat ? 4 : 2], *ap = argv[cat ? 2 : 3],
		   *bp = argv[cat ? 3 : 4];
	uint64_t st[MAXD], bad = 0;
	int ax = atoi(argv[5]), k, rc = 2;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&w, 0, sizeof(w));
	if (npy_read(wp, &w, d) || npy_read(ap, &a, d) || npy_read(bp, &b, d))
		goto out;
	if (a.ndim != w.ndim || b.ndim != w.ndim || w.ndim > MAXD || ax < 0 ||
	    ax >= w.ndim || !same_type(&a, &w) || !same_type(&b, &w)) {
		fprintf(stderr, "permref: A, B and the whole tensor need the same dimensions (at most 4), AXIS one of them\n");
		goto out;
	}
	for (k = 0; k < w.ndim; k++)
		if (k == ax ? a.shape[k] + b.shape[k] != w.shape[k] :
			      a.shape[k] != w.shape[k] || b.shape[k] != w.shape[k]) {
			fprintf(stderr, "permref: the shapes of A and B do not make the whole tensor's along axis %d\n", ax);
			rc = 1;
			goto out;
		}
	for (k = 0; k < w.ndim; k++)
		st[k] = stride(&w, k);
	/* A's element (i..) is w's (i..); B's is w's with i[ax] + A's extent */
	if (cat) {
		/* Y's elements, walked in Y's order, against A or B */
		uint64_t idx[MAXD] = { 0 }, i, n = npy_count(&w);
		int eb = dtype_bits(w.dtype) / 8;

		for (i = 0; i < n; i++) {
			const struct npy *s = idx[ax] < a.shape[ax] ? &a : &b;
			uint64_t src = 0;

			for (k = 0; k < w.ndim; k++)
				src = src * s->shape[k] +
				      (s == &b && k == ax ? idx[k] - a.shape[ax] : idx[k]);
			if (memcmp(w.data + i * (uint64_t)eb, s->data + src * (uint64_t)eb,
				   (size_t)eb)) {
				if (bad < 5)
					printf("permref: Y element %" PRIu64 " differs from %s element %" PRIu64 "\n",
					       i, s == &a ? "A" : "B", src);
				bad++;
			}
			for (k = w.ndim - 1; k >= 0; k--) {
				if (++idx[k] < w.shape[k])
					break;
				idx[k] = 0;
			}
		}
	} else {
		bad = compare(&w, &a, st, 0, "A");
		bad += compare(&w, &b, st, a.shape[ax] * st[ax], "B");
	}
	printf("permref: %" PRIu64 " of %" PRIu64 " elements differ\n", bad, npy_count(&w));
	rc = bad ? 1 : 0;
out:
	npy_free(&a);
	npy_free(&b);
	npy_free(&w);
	return rc;
}

/* "A:B" -> a, b (non-negative); -1 when malformed. */
static int pair(const char *s, uint64_t *a, uint64_t *b)
{
	char *e;

	*a = strtoull(s, &e, 0);
	if (*e != ':' || *s == '-')
		return -1;
	*b = strtoull(e + 1, &e, 0);
	return *e || e[-1] == ':' ? -1 : 0;
}

/*
 * slice / pad / resize (MODE 0, 1, 2 of asm/kernels/copy.s): Z's
 * elements walked in order, each compared with the X element (or the pad
 * value) that the operator's definition names.
 */
static int layout(int mode, int argc, char **argv, struct diag *d)
{
	struct npy x, z;
	uint64_t lo[MAXD] = { 0 }, hi[MAXD] = { 0 }, idx[MAXD] = { 0 }, i, n, bad = 0;
	uint64_t fh = 1, fw = 1, val = 0;
	int k, eb, rc = 2, a0 = mode == 1 ? 5 : 4;

	memset(&x, 0, sizeof(x));
	memset(&z, 0, sizeof(z));
	if (npy_read(argv[2], &x, d) || npy_read(argv[3], &z, d))
		goto out;
	if (x.ndim < 1 || x.ndim > MAXD || z.ndim != x.ndim || !same_type(&x, &z) ||
	    (mode == 2 ? argc != 6 || x.ndim < 3 : argc != a0 + x.ndim)) {
		fprintf(stderr, "permref: X and Z of one rank (1 to 4; resize 3 or 4) and a START:END or BEFORE:AFTER per axis\n");
		goto out;
	}
	if (mode == 1)
		val = strtoull(argv[4], NULL, 0);
	if (mode == 2) {
		fh = strtoull(argv[4], NULL, 0);
		fw = strtoull(argv[5], NULL, 0);
	}
	for (k = 0; k < x.ndim; k++) {
		uint64_t want;

		if (mode != 2 && pair(argv[a0 + k], &lo[k], &hi[k])) {
			fprintf(stderr, "permref: axis %d: %s is not A:B\n", k, argv[a0 + k]);
			goto out;
		}
		if (mode == 0 && (lo[k] >= hi[k] || hi[k] > x.shape[k])) {
			fprintf(stderr, "permref: axis %d: the slice is empty or beyond X\n", k);
			goto out;
		}
		want = mode == 0 ? hi[k] - lo[k] : mode == 1 ? x.shape[k] + lo[k] + hi[k] :
		       k == x.ndim - 3 ? x.shape[k] * fh : k == x.ndim - 2 ? x.shape[k] * fw :
		       x.shape[k];
		if (z.shape[k] != want) {
			fprintf(stderr, "permref: Z's axis %d has %" PRIu64 " elements, expected %" PRIu64 "\n",
				k, z.shape[k], want);
			rc = 1;
			goto out;
		}
	}
	if (mode == 2 && (fh < 1 || fw < 1)) {
		fprintf(stderr, "permref: FH and FW must be at least 1\n");
		goto out;
	}
	eb = dtype_bits(x.dtype) / 8;
	n = npy_count(&z);
	for (i = 0; i < n; i++) {
		uint64_t src = 0, v = val;
		int inside = 1;
		const uint8_t *want = (const uint8_t *)&v; /* little-endian host */

		for (k = 0; k < x.ndim; k++) {
			uint64_t j = idx[k];

			if (mode == 0)
				j += lo[k];
			else if (mode == 1) {
				if (j < lo[k] || j >= lo[k] + x.shape[k])
					inside = 0;
				j -= lo[k];
			} else if (k == x.ndim - 3)
				j /= fh;
			else if (k == x.ndim - 2)
				j /= fw;
			src = src * x.shape[k] + (inside ? j : 0);
		}
		if (inside)
			want = x.data + src * (uint64_t)eb;
		if (memcmp(z.data + i * (uint64_t)eb, want, (size_t)eb)) {
			if (bad < 5) {
				printf("permref: Z element %" PRIu64 " (", i);
				for (k = 0; k < z.ndim; k++)
					printf("%s%" PRIu64, k ? ", " : "", idx[k]);
				if (inside)
					printf(") differs from X element %" PRIu64 "\n", src);
				else
					printf(") is not the pad value\n");
			}
			bad++;
		}
		for (k = z.ndim - 1; k >= 0; k--) {
			if (++idx[k] < z.shape[k])
				break;
			idx[k] = 0;
		}
	}
	printf("permref: %" PRIu64 " of %" PRIu64 " elements differ\n", bad, n);
	rc = bad ? 1 : 0;
out:
	npy_free(&x);
	npy_free(&z);
	return rc;
}

int main(int argc, char **argv)
{
	struct diag d;

	diag_init(&d, stderr);
	if (argc >= 6 && argc <= 9 && strcmp(argv[1], "gen") == 0)
		return gen(argc, argv, &d);
	if (argc >= 5 && argc <= 8 && strcmp(argv[1], "perm") == 0)
		return perm(argc, argv, &d);
	if (argc == 6 && strcmp(argv[1], "concat") == 0)
		return catsplit(1, argv, &d);
	if (argc == 6 && strcmp(argv[1], "split") == 0)
		return catsplit(0, argv, &d);
	if (argc >= 5 && strcmp(argv[1], "slice") == 0)
		return layout(0, argc, argv, &d);
	if (argc >= 6 && strcmp(argv[1], "pad") == 0)
		return layout(1, argc, argv, &d);
	if (argc >= 4 && strcmp(argv[1], "resize") == 0)
		return layout(2, argc, argv, &d);
	fprintf(stderr,
		"usage: permref gen DTYPE SEED OUT.npy D0 [D1 [D2 [D3]]]\n"
		"       permref perm X.npy Y.npy P0 [P1 [P2 [P3]]]\n"
		"       permref concat A.npy B.npy Y.npy AXIS\n"
		"       permref split X.npy A.npy B.npy AXIS\n"
		"       permref slice X.npy Z.npy S0:E0 [S1:E1 ...]\n"
		"       permref pad X.npy Z.npy VALUE B0:A0 [B1:A1 ...]\n"
		"       permref resize X.npy Z.npy FH FW\n");
	return 2;
}
