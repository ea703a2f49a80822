/*
 * convref.c - independent reference for the convolution and pooling
 * kernels (tests and docs/kernels.md).
 *
 *   convref gen H W CIN COUT KH KW SEED X.npy W.npy [BIAS.npy]
 *       random int8 input X (H x W x CIN, NHWC with N = 1) and weights
 *       W (KH*KW*CIN x COUT: HWIO flattened, row (ky*KW + kx)*CIN + ci),
 *       and with BIAS.npy an int32 bias per output channel in
 *       [-2^12, 2^12]
 *   convref check X.npy W.npy Y.npy S PAD DIL [SHIFT [BIAS.npy|- [RELU [GROUPS [CLIP]]]]]
 *       Y (HO x WO x COUT) == the convolution with stride S, zero padding
 *       PAD on every side and dilation DIL: exact int32, or with SHIFT an
 *       int8 Y = sat8(rne(act(acc + bias) / 2^SHIFT)), act = relu when
 *       RELU is 1; RELU 2 is relu6: relu, then Y = min(Y, CLIP) (CLIP in
 *       Y's units, default 127); with GROUPS, W is (KH*KW*CIN/GROUPS x
 *       COUT) and output channel co reads input channels (co /
 *       (COUT/GROUPS)) * CIN/GROUPS ..
 *   convref genb N H W CIN COUT KH KW SEED X.npy W.npy [BIAS.npy]
 *   convref genbf N H W CIN COUT KH KW SEED X.npy W.npy [BIAS.npy]
 *       as gen / genf with a batch: X is N x H x W x CIN (check and checkf
 *       then take Y as N x HO x WO x COUT, each image convolved alone)
 *   convref genf H W CIN COUT KH KW SEED X.npy W.npy [BIAS.npy]
 *       as gen with fp32 values: multiples of 1/8 in [-2, 2] (exact in
 *       bf16; every partial sum exact in fp32), bias multiples of 1/8
 *   convref checkf X.npy W.npy Y.npy S PAD DIL [BIAS.npy|- [RELU [GROUPS]]]
 *       fp32 or bf16 Y == the convolution in double (+ bias, relu; RELU 2:
 *       relu6, min(relu(v), 6)), rounded once to Y's type, ties to even
 *   convref gendw H W C K SEED X.npy W.npy [BIAS.npy]
 *       depthwise inputs: X (H x W x C) and W (K*K x C: row ky*K + kx holds
 *       every channel's weight of that tap), int8; BIAS C int32
 *   convref dwcheck X.npy W.npy Y.npy S PAD SHIFT [BIAS.npy|- [RELU [CLIP]]]
 *       int8 Y[oy][ox][c] == sat8(rne(act(bias[c] + sum over the window of
 *       X[..][..][c] * W[tap][c]) / 2^SHIFT)), zero padding PAD; RELU 2:
 *       then min(Y, CLIP)
 *   convref gendwf H W C K SEED X.npy W.npy [BIAS.npy]
 *       as gendw with fp32 values (multiples of 1/8 in [-2, 2], exact in
 *       bf16; every partial sum exact in fp32), bias fp32
 *   convref dwcheckf X.npy W.npy Y.npy S PAD [BIAS.npy|- [RELU]]
 *       bf16 (or fp32) Y == the depthwise convolution in double (+ bias,
 *       relu, RELU 2: min(relu, 6)), rounded once to Y's type
 *   convref pack W.npy NG OUT.npy
 *       conv2d.s's WPACK layout of W (K x COUT): channel group g (NG
 *       channels, the last COUT - g*NG) as its K x NG_g block, row-major,
 *       from element g*K*NG on; OUT is flat (K*COUT)
 *   convref pool X.npy Y.npy KIND K S PAD
 *       Y == KIND (max | avg) pooling of X with a K x K window, stride S
 *       and padding PAD (max ignores padding; avg divides by K*K with the
 *       padding counted as zeros): int8 X and Y, avg rounded half to even;
 *       or fp32 / bf16 X and bf16 Y, max exact, avg the exact mean rounded
 *       once into bf16
 *
 * The reference is the textbook seven-deep loop in int64 over the
 * unpadded input (a tap outside it contributes nothing): nothing like the
 * kernels' im2col blocks and systolic folds.  Exit 0 when equal, 1 with
 * the first mismatches otherwise, 2 on bad usage or files.
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

static uint64_t arg(const char *s) { return strtoull(s, NULL, 0); }

/* A generated tensor from the seeded stream: int8 in -128..127, an int32
 * bias in -4096..4096, or fp32 multiples of 1/8 in [-2, 2] (exact in bf16;
 * every partial sum of the tests' convolutions exact in fp32). */
static void fill(struct npy *t, uint32_t *seed)
{
	uint64_t i;

	for (i = 0; i < npy_count(t); i++) {
		int32_t v;
		float f;

		switch (t->dtype) {
		case DT_INT8:
			t->data[i] = (uint8_t)(int8_t)((int)(lcg(seed) % 256) - 128);
			break;
		case DT_INT32:
			v = (int32_t)(lcg(seed) % 8193) - 4096;
			memcpy(t->data + 4 * i, &v, 4);
			break;
		default:
			f = (float)((int)(lcg(seed) % 33) - 16) / 8.0f;
			memcpy(t->data + 4 * i, &f, 4);
			break;
		}
	}
}

/*
 * X (sx: H x W x C), W (sw) and, with a third path, a bias of sb[0]
 * elements, filled in that order from one seeded stream and written to
 * paths[0..2]; fl: fp32 throughout, else int8 with an int32 bias.
 */
static int gen_tensors(const uint64_t sx[4], int xdims, const uint64_t sw[2],
		       const uint64_t sb[1], int fl, uint32_t seed,
		       char *const *paths, int n_paths, struct diag *d)
{
	struct npy x, w, b;
	int rc = 2;

	memset(&x, 0, sizeof(x));
	memset(&w, 0, sizeof(w));
	memset(&b, 0, sizeof(b));
	if (npy_alloc(&x, fl ? DT_FP32 : DT_INT8, xdims, sx) ||
	    npy_alloc(&w, fl ? DT_FP32 : DT_INT8, 2, sw) ||
	    (n_paths == 3 && npy_alloc(&b, fl ? DT_FP32 : DT_INT32, 1, sb)))
		goto out;
	fill(&x, &seed);
	fill(&w, &seed);
	if (n_paths == 3)
		fill(&b, &seed);
	rc = npy_write(paths[0], &x, d) || npy_write(paths[1], &w, d) ||
	     (n_paths == 3 && npy_write(paths[2], &b, d));
	rc = rc ? 2 : 0;
out:
	npy_free(&x);
	npy_free(&w);
	npy_free(&b);
	return rc;
}

/* gen / genf H W CIN COUT KH KW SEED X W [BIAS]; batch: genb / genbf N H ... */
static int gen_as(int argc, char **argv, struct diag *d, int fl, int batch)
{
	uint64_t sx[4], sw[2], sb[1];
	char **a = argv + batch; /* H is a[2] */

	if (argc - batch != 11 && argc - batch != 12)
		return 2;
	if (batch)
		sx[0] = arg(argv[2]);
	sx[batch] = arg(a[2]);
	sx[batch + 1] = arg(a[3]);
	sx[batch + 2] = arg(a[4]);
	sw[0] = arg(a[6]) * arg(a[7]) * sx[batch + 2];
	sw[1] = arg(a[5]);
	sb[0] = sw[1];
	return gen_tensors(sx, 3 + batch, sw, sb, fl, (uint32_t)arg(a[8]), a + 9,
			   argc - batch - 9, d);
}

/* Output extent of a window sweep (floor, as every framework does). */
static int64_t out_dim(int64_t in, int64_t k, int64_t s, int64_t pad,
		       int64_t dil)
{
	return (in + 2 * pad - dil * (k - 1) - 1) / s + 1;
}

/* sat8(rne(v / 2^shift)) */
static int64_t requant(int64_t v, int shift)
{
	double q = nearbyint(ldexp((double)v, -shift));

	return q > 127 ? 127 : q < -128 ? -128 : (int64_t)q;
}

static int report(uint64_t bad, uint64_t n, const char *what)
{
	if (bad)
		fprintf(stderr, "convref: %" PRIu64 " of %" PRIu64 " elements differ\n",
			bad, n);
	else
		printf("convref: %s (%" PRIu64 " elements) matches the reference exactly\n",
		       what, n);
	return bad ? 1 : 0;
}

/* A convolution's geometry, from X (H, W, CIN), W (K, COUT), Y (HO, WO, COUT). */
struct geom {
	int64_t N, H, W, CI, CO, KH, KW, S, P, D, HO, WO, G, CG, OG;
};

/*
 * Fill g from the tensors and S, PAD, DIL, GROUPS, and check that they form
 * a square-window (grouped) convolution with a bias of COUT elements of
 * type bt (when given).  Returns 0, or 2 after a message.
 */
static int geom(struct geom *g, const struct npy *x, const struct npy *w,
		const struct npy *y, const struct npy *b, enum npu_dtype bt,
		struct diag *d)
{
	int nb = x->ndim == 4; /* a batch: N first */

	g->N = nb ? (int64_t)x->shape[0] : 1;
	g->H = (int64_t)x->shape[nb];
	g->W = (int64_t)x->shape[nb + 1];
	g->CI = (int64_t)x->shape[nb + 2];
	g->CO = (int64_t)w->shape[1];
	g->HO = (int64_t)y->shape[nb];
	g->WO = (int64_t)y->shape[nb + 1];
	if (nb && (int64_t)y->shape[0] != g->N) {
		(void)diag_error(d, diag_nowhere(), NPU_ETENSOR,
				 "convref: X and Y hold different batches");
		return 2;
	}
	if (g->S < 1 || g->D < 1 || g->G < 1 || g->CI % g->G || g->CO % g->G) {
		(void)diag_error(d, diag_nowhere(), NPU_ETENSOR,
				 "convref: S, DIL >= 1 and GROUPS dividing CIN and COUT");
		return 2;
	}
	g->CG = g->CI / g->G;
	g->OG = g->CO / g->G;
	/* K = KH*KW*CIN/G: the square window the kernels take; KH = KW */
	for (g->KH = 1; g->KH * g->KH * g->CG < (int64_t)w->shape[0]; g->KH++)
		;
	g->KW = g->KH;
	if (g->KH * g->KW * g->CG != (int64_t)w->shape[0] ||
	    (int64_t)y->shape[nb + 2] != g->CO ||
	    g->HO != out_dim(g->H, g->KH, g->S, g->P, g->D) ||
	    g->WO != out_dim(g->W, g->KW, g->S, g->P, g->D) ||
	    (b->data && (b->dtype != bt || npy_count(b) != (uint64_t)g->CO))) {
		(void)diag_error(d, diag_nowhere(), NPU_ETENSOR,
				 "convref: shapes do not form a square-window convolution with these S, PAD, DIL, GROUPS");
		return 2;
	}
	return 0;
}

/* Element i of an int8, int32 or fp32 tensor, as a double. */
static double val(const struct npy *t, uint64_t i)
{
	int32_t v;
	float f;

	switch (t->dtype) {
	case DT_INT8:
		return (int8_t)t->data[i];
	case DT_INT32:
		memcpy(&v, t->data + 4 * i, 4);
		return v;
	case DT_BF16: {
		uint32_t u = 0;

		memcpy(&u, t->data + 2 * i, 2);
		u <<= 16;
		memcpy(&f, &u, 4);
		return f;
	}
	default:
		memcpy(&f, t->data + 4 * i, 4);
		return f;
	}
}

/* A float tensor: fp32, or bf16 bits. */
static int is_float(const struct npy *t)
{
	return t->dtype == DT_FP32 || t->dtype == DT_BF16;
}

/*
 * Output (oy, ox, co) before bias: the sum over the window and the
 * group's input channels, in double (exact for int8 products and for the
 * generated float inputs), taps outside X skipped.
 */
static double conv_point(const struct geom *g, const struct npy *x,
			 const struct npy *w, int64_t n, int64_t oy, int64_t ox,
			 int64_t co)
{
	double acc = 0;
	int64_t ky, kx, ci;

	for (ky = 0; ky < g->KH; ky++)
		for (kx = 0; kx < g->KW; kx++) {
			int64_t iy = oy * g->S + ky * g->D - g->P;
			int64_t ix = ox * g->S + kx * g->D - g->P;

			if (iy < 0 || iy >= g->H || ix < 0 || ix >= g->W)
				continue;
			for (ci = 0; ci < g->CG; ci++)
				acc += val(x, (uint64_t)(((n * g->H + iy) * g->W + ix) * g->CI +
							 co / g->OG * g->CG + ci)) *
				       val(w, (uint64_t)(((ky * g->KW + kx) * g->CG + ci) *
							 g->CO + co));
		}
	return acc;
}

/* x rounded to nearest even with p significand bits (fp32 24, bf16 8). */
static double round_p(double x, int p)
{
	int e;

	if (x == 0 || !isfinite(x))
		return x;
	(void)frexp(x, &e);
	return ldexp(nearbyint(ldexp(x, p - e)), e - p);
}

/*
 * check (int8) and checkf (fp32 in, fp32 or bf16 out): argv[2..4] X W Y,
 * 5..7 S PAD DIL; check: 8 SHIFT, 9 BIAS|-, 10 RELU, 11 GROUPS; checkf:
 * 8 BIAS|-, 9 RELU, 10 GROUPS.
 */
static int check_any(int argc, char **argv, struct diag *d, int fl)
{
	struct npy x, w, y, b;
	struct geom g;
	int shift = !fl && argc > 8 ? atoi(argv[8]) : -1;
	int ab = fl ? 8 : 9; /* argument index of BIAS */
	int has_bias = argc > ab && strcmp(argv[ab], "-") != 0;
	int relu = argc > ab + 1 ? atoi(argv[ab + 1]) : 0, rc = 2;
	int64_t clip = !fl && argc > ab + 3 ? (int64_t)strtoll(argv[ab + 3], NULL, 0) : 127;
	int64_t n, oy, ox, co;
	uint64_t bad = 0;

	memset(&x, 0, sizeof(x));
	memset(&w, 0, sizeof(w));
	memset(&y, 0, sizeof(y));
	memset(&b, 0, sizeof(b));
	memset(&g, 0, sizeof(g));
	if (argc < 8 || npy_read(argv[2], &x, d) || npy_read(argv[3], &w, d) ||
	    npy_read(argv[4], &y, d) || (has_bias && npy_read(argv[ab], &b, d)))
		goto out;
	g.S = (int64_t)arg(argv[5]);
	g.P = (int64_t)arg(argv[6]);
	g.D = (int64_t)arg(argv[7]);
	g.G = argc > ab + 2 ? atoi(argv[ab + 2]) : 1;
	if ((x.ndim != 3 && x.ndim != 4) || w.ndim != 2 || y.ndim != x.ndim ||
	    (fl ? x.dtype != DT_FP32 || w.dtype != DT_FP32 ||
		  (y.dtype != DT_FP32 && y.dtype != DT_BF16)
		: x.dtype != DT_INT8 || w.dtype != DT_INT8 ||
		  y.dtype != (shift < 0 ? DT_INT32 : DT_INT8))) {
		(void)diag_error(d, diag_nowhere(), NPU_ETENSOR, fl ?
				 "convref checkf: X (H,W,C) fp32, W (K,COUT) fp32, Y fp32 or bf16" :
				 "convref: X (H,W,C) int8, W (K,COUT) int8, Y (HO,WO,COUT) int32 or int8 with SHIFT");
		goto out;
	}
	if ((rc = geom(&g, &x, &w, &y, &b, fl ? DT_FP32 : DT_INT32, d)))
		goto out;
	rc = 2;
	for (n = 0; n < g.N; n++)
	for (oy = 0; oy < g.HO; oy++)
		for (ox = 0; ox < g.WO; ox++)
			for (co = 0; co < g.CO; co++) {
				uint64_t o = (uint64_t)(((n * g.HO + oy) * g.WO + ox) * g.CO + co);
				double acc = conv_point(&g, &x, &w, n, oy, ox, co), want, got;

				if (has_bias)
					acc += val(&b, (uint64_t)co);
				if (relu && acc < 0)
					acc = 0;
				if (relu == 2 && fl && acc > 6)
					acc = 6; /* relu6 on real values */
				if (fl)
					want = round_p(acc, y.dtype == DT_FP32 ? 24 : 8);
				else if (shift < 0)
					want = acc; /* int32: exact */
				else
					want = (double)requant((int64_t)acc, shift);
				if (relu == 2 && !fl && want > (double)clip)
					want = (double)clip; /* in Y's units */
				got = val(&y, o);
				if (got != want && bad++ < 5)
					fprintf(stderr, "convref: Y[%" PRId64 "][%" PRId64 "][%" PRId64 "][%" PRId64 "] = %.9g, expected %.9g\n",
						n, oy, ox, co, got, want);
			}
	rc = report(bad, (uint64_t)(g.N * g.HO * g.WO * g.CO), "Y");
out:
	npy_free(&x);
	npy_free(&w);
	npy_free(&y);
	npy_free(&b);
	return rc;
}

static int check(int argc, char **argv, struct diag *d)
{
	return check_any(argc, argv, d, 0);
}

static int checkf(int argc, char **argv, struct diag *d)
{
	return check_any(argc, argv, d, 1);
}

/* gendw / gendwf H W C K SEED X W [BIAS]: W is K*K x C */
static int gendw_as(int argc, char **argv, struct diag *d, int fl)
{
	uint64_t sx[4], sw[2], sb[1];

	if (argc != 9 && argc != 10)
		return 2;
	sx[0] = arg(argv[2]);
	sx[1] = arg(argv[3]);
	sx[2] = arg(argv[4]);
	sw[0] = arg(argv[5]) * arg(argv[5]);
	sw[1] = sx[2];
	sb[0] = sx[2];
	return gen_tensors(sx, 3, sw, sb, fl, (uint32_t)arg(argv[6]), argv + 7,
			   argc - 7, d);
}

/*
 * dwcheck (int8, SHIFT at argv[7], then BIAS, RELU, CLIP) and dwcheckf
 * (fp32 or bf16 X and W, bf16 or fp32 Y; argv[7] BIAS, then RELU).
 */
static int dwcheck_any(int argc, char **argv, struct diag *d, int fl)
{
	struct npy x, w, y, b;
	int64_t H, W, C, K, S, P, HO, WO, oy, ox, c, ky, kx, clip;
	int ab = fl ? 7 : 8; /* argument index of BIAS */
	int shift = fl ? 0 : argc > 7 ? atoi(argv[7]) : 0;
	int relu = argc > ab + 1 ? atoi(argv[ab + 1]) : 0, rc = 2;
	int has_bias = argc > ab && strcmp(argv[ab], "-") != 0;
	uint64_t bad = 0;

	memset(&x, 0, sizeof(x));
	memset(&w, 0, sizeof(w));
	memset(&y, 0, sizeof(y));
	memset(&b, 0, sizeof(b));
	clip = !fl && argc > ab + 2 ? (int64_t)strtoll(argv[ab + 2], NULL, 0) : 127;
	if (argc < (fl ? 7 : 8) || npy_read(argv[2], &x, d) || npy_read(argv[3], &w, d) ||
	    npy_read(argv[4], &y, d) || (has_bias && npy_read(argv[ab], &b, d)))
		goto out;
	S = (int64_t)arg(argv[5]);
	P = (int64_t)arg(argv[6]);
	if (x.ndim != 3 || w.ndim != 2 || y.ndim != 3 || S < 1 ||
	    (fl ? !is_float(&x) || !is_float(&w) || !is_float(&y)
		: x.dtype != DT_INT8 || w.dtype != DT_INT8 || y.dtype != DT_INT8)) {
		(void)diag_error(d, diag_nowhere(), NPU_ETENSOR, fl ?
				 "convref dwcheckf: X (H,W,C), W (K*K,C), Y (HO,WO,C), fp32 or bf16" :
				 "convref dwcheck: X (H,W,C), W (K*K,C), Y (HO,WO,C), all int8");
		goto out;
	}
	H = (int64_t)x.shape[0];
	W = (int64_t)x.shape[1];
	C = (int64_t)x.shape[2];
	for (K = 1; K * K < (int64_t)w.shape[0]; K++)
		;
	HO = out_dim(H, K, S, P, 1);
	WO = out_dim(W, K, S, P, 1);
	if (K * K != (int64_t)w.shape[0] || (int64_t)w.shape[1] != C ||
	    (int64_t)y.shape[0] != HO || (int64_t)y.shape[1] != WO ||
	    (int64_t)y.shape[2] != C ||
	    (has_bias && (b.dtype != (fl ? DT_FP32 : DT_INT32) ||
			  npy_count(&b) != (uint64_t)C))) {
		(void)diag_error(d, diag_nowhere(), NPU_ETENSOR,
				 "convref dwcheck: shapes do not form a depthwise convolution with these S, PAD");
		goto out;
	}
	for (oy = 0; oy < HO; oy++)
		for (ox = 0; ox < WO; ox++)
			for (c = 0; c < C; c++) {
				uint64_t o = (uint64_t)((oy * WO + ox) * C + c);
				double acc = 0, want, got;

				/* exact in double: int8 products, or the
				 * generated float values */
				for (ky = 0; ky < K; ky++)
					for (kx = 0; kx < K; kx++) {
						int64_t iy = oy * S + ky - P, ix = ox * S + kx - P;

						if (iy < 0 || iy >= H || ix < 0 || ix >= W)
							continue;
						acc += val(&x, (uint64_t)((iy * W + ix) * C + c)) *
						       val(&w, (uint64_t)((ky * K + kx) * C + c));
					}
				if (has_bias)
					acc += val(&b, (uint64_t)c);
				if (relu && acc < 0)
					acc = 0;
				if (fl) {
					if (relu == 2 && acc > 6)
						acc = 6;
					want = round_p(acc, y.dtype == DT_FP32 ? 24 : 8);
				} else {
					want = (double)requant((int64_t)acc, shift);
					if (relu == 2 && want > (double)clip)
						want = (double)clip;
				}
				got = val(&y, o);
				if (got != want && bad++ < 5)
					fprintf(stderr, "convref: dw Y[%" PRId64 "][%" PRId64 "][%" PRId64 "] = %.9g, expected %.9g\n",
						oy, ox, c, got, want);
			}
	rc = report(bad, (uint64_t)(HO * WO * C), "depthwise Y");
out:
	npy_free(&x);
	npy_free(&w);
	npy_free(&y);
	npy_free(&b);
	return rc;
}

/* pack W NG OUT: the per-group layout (element size kept) */
static int pack(int argc, char **argv, struct diag *d)
{
	struct npy w, o;
	uint64_t K, N, ng, g, k, j, es, at = 0;
	int rc = 2;

	memset(&w, 0, sizeof(w));
	memset(&o, 0, sizeof(o));
	if (argc != 5 || npy_read(argv[2], &w, d))
		goto out;
	ng = arg(argv[3]);
	if (w.ndim != 2 || ng < 1 || ng > w.shape[1]) {
		(void)diag_error(d, diag_nowhere(), NPU_ETENSOR,
				 "convref pack: W (K, COUT) and 1 <= NG <= COUT");
		goto out;
	}
	K = w.shape[0];
	N = w.shape[1];
	es = (uint64_t)dtype_bits(w.dtype) / 8;
	{
		uint64_t n = K * N;

		if (npy_alloc(&o, w.dtype, 1, &n))
			goto out;
	}
	for (g = 0; g * ng < N; g++) {
		uint64_t w_g = N - g * ng < ng ? N - g * ng : ng;

		for (k = 0; k < K; k++)
			for (j = 0; j < w_g; j++, at++)
				memcpy(o.data + at * es, w.data + (k * N + g * ng + j) * es, es);
	}
	rc = npy_write(argv[4], &o, d) ? 2 : 0;
out:
	npy_free(&w);
	npy_free(&o);
	return rc;
}

static int pool(int argc, char **argv, struct diag *d)
{
	struct npy x, y;
	int64_t H, W, C, K, S, P, HO, WO, oy, ox, c, ky, kx;
	int mx, fl, rc = 2;
	uint64_t bad = 0;

	memset(&x, 0, sizeof(x));
	memset(&y, 0, sizeof(y));
	if (argc != 8 || npy_read(argv[2], &x, d) || npy_read(argv[3], &y, d))
		goto out;
	mx = strcmp(argv[4], "max") == 0;
	K = (int64_t)arg(argv[5]);
	S = (int64_t)arg(argv[6]);
	P = (int64_t)arg(argv[7]);
	fl = is_float(&x);
	if ((!mx && strcmp(argv[4], "avg") != 0) || x.ndim != 3 || y.ndim != 3 ||
	    (fl ? y.dtype != DT_BF16 : x.dtype != DT_INT8 || y.dtype != DT_INT8) ||
	    K < 1 || S < 1) {
		(void)diag_error(d, diag_nowhere(), NPU_ETENSOR,
				 "convref pool: KIND max|avg, int8 X (H,W,C) and Y (HO,WO,C), or fp32/bf16 X and bf16 Y");
		goto out;
	}
	H = (int64_t)x.shape[0];
	W = (int64_t)x.shape[1];
	C = (int64_t)x.shape[2];
	HO = out_dim(H, K, S, P, 1);
	WO = out_dim(W, K, S, P, 1);
	if ((int64_t)y.shape[0] != HO || (int64_t)y.shape[1] != WO ||
	    (int64_t)y.shape[2] != C) {
		(void)diag_error(d, diag_nowhere(), NPU_ETENSOR, "convref pool: Y has the wrong shape");
		goto out;
	}
	for (oy = 0; oy < HO; oy++)
		for (ox = 0; ox < WO; ox++)
			for (c = 0; c < C; c++) {
				double m = -INFINITY, s = 0, want, got;

				/* exact in double: int8 values, or float
				 * values exact in bf16 summed over a window */
				for (ky = 0; ky < K; ky++)
					for (kx = 0; kx < K; kx++) {
						int64_t iy = oy * S + ky - P, ix = ox * S + kx - P;
						double v;

						if (iy < 0 || iy >= H || ix < 0 || ix >= W)
							continue;
						v = val(&x, (uint64_t)((iy * W + ix) * C + c));
						s += v;
						if (v > m)
							m = v;
					}
				if (mx)
					want = m;
				else if (fl)
					want = round_p(s / (double)(K * K), 8);
				else
					want = nearbyint(s / (double)(K * K));
				got = val(&y, (uint64_t)((oy * WO + ox) * C + c));
				if (got != want && bad++ < 5)
					fprintf(stderr, "convref: pool Y[%" PRId64 "][%" PRId64 "][%" PRId64 "] = %.9g, expected %.9g\n",
						oy, ox, c, got, want);
			}
	rc = report(bad, (uint64_t)(HO * WO * C), "pooled Y");
out:
	npy_free(&x);
	npy_free(&y);
	return rc;
}

int main(int argc, char **argv)
{
	struct diag d;
	int rc = 2;

	diag_init(&d, stderr);
	if (argc >= 2 && strcmp(argv[1], "gen") == 0)
		rc = gen_as(argc, argv, &d, 0, 0);
	else if (argc >= 2 && strcmp(argv[1], "genf") == 0)
		rc = gen_as(argc, argv, &d, 1, 0);
	else if (argc >= 2 && strcmp(argv[1], "genb") == 0)
		rc = gen_as(argc, argv, &d, 0, 1);
	else if (argc >= 2 && strcmp(argv[1], "genbf") == 0)
		rc = gen_as(argc, argv, &d, 1, 1);
	else if (argc >= 2 && strcmp(argv[1], "checkf") == 0)
		rc = checkf(argc, argv, &d);
	else if (argc >= 2 && strcmp(argv[1], "check") == 0)
		rc = check(argc, argv, &d);
	else if (argc >= 2 && strcmp(argv[1], "pool") == 0)
		rc = pool(argc, argv, &d);
	else if (argc >= 2 && strcmp(argv[1], "pack") == 0)
		rc = pack(argc, argv, &d);
	else if (argc >= 2 && strcmp(argv[1], "gendw") == 0)
		rc = gendw_as(argc, argv, &d, 0);
	else if (argc >= 2 && strcmp(argv[1], "gendwf") == 0)
		rc = gendw_as(argc, argv, &d, 1);
	else if (argc >= 2 && strcmp(argv[1], "dwcheck") == 0)
		rc = dwcheck_any(argc, argv, &d, 0);
	else if (argc >= 2 && strcmp(argv[1], "dwcheckf") == 0)
		rc = dwcheck_any(argc, argv, &d, 1);
	if (rc == 2)
		fprintf(stderr, "usage: convref gen H W CIN COUT KH KW SEED X.npy W.npy [BIAS.npy]\n"
				"       convref genb N H W CIN COUT KH KW SEED X.npy W.npy [BIAS.npy]\n"
				"       convref genbf N H W CIN COUT KH KW SEED X.npy W.npy [BIAS.npy]\n"
				"       convref check X.npy W.npy Y.npy S PAD DIL [SHIFT [BIAS.npy|- [RELU [GROUPS [CLIP]]]]]\n"
				"       convref genf H W CIN COUT KH KW SEED X.npy W.npy [BIAS.npy]\n"
				"       convref checkf X.npy W.npy Y.npy S PAD DIL [BIAS.npy|- [RELU [GROUPS]]]\n"
				"       convref gendw H W C K SEED X.npy W.npy [BIAS.npy]\n"
				"       convref dwcheck X.npy W.npy Y.npy S PAD SHIFT [BIAS.npy|- [RELU [CLIP]]]\n"
				"       convref gendwf H W C K SEED X.npy W.npy [BIAS.npy]\n"
				"       convref dwcheckf X.npy W.npy Y.npy S PAD [BIAS.npy|- [RELU]]\n"
				"       convref pack W.npy NG OUT.npy\n"
				"       convref pool X.npy Y.npy max|avg K S PAD\n");
	return rc;
}
