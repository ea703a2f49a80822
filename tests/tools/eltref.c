/*
 * eltref.c - independent reference for eltwise.s OP 6, Z = act(X bin S)
 * (docs/numerics.md, "Operator tolerances").
 *
 *   eltref gen R C SEED TYPE LO HI OUT.npy [specials]
 *       TYPE fp32, bf16 or fp16: an fp32 .npy of values uniform in
 *       [LO, HI), each rounded to TYPE's precision (so exact in TYPE);
 *       with "specials" the first nine elements are +inf, -inf, +0, -0,
 *       NaN, 100, -100, 1e-30 and -3.  TYPE int8: an int8 .npy of
 *       integers uniform in [LO, HI].
 *   eltref check BIN SMODE ACT X.npy S.npy|- Z.npy ATOL RTOL [KEY=VALUE...]
 *       BIN, SMODE, ACT as eltwise.s; S is Y (R x C), B (1 x C) or C
 *       (R x 1), or - (SMODE 3: the constant SC, or BIN 0).  KEY is SC,
 *       LO, HI, ALPHA, BETA (fp32 bits for a float Z, integers for int8)
 *       or XSH, YSH (int8).  A float Z (fp32, bf16, fp16) passes when
 *       every |Z - ref| <= ATOL + RTOL |ref| + (2^-24 + 2^-P) |ref| + U,
 *       ref the exact function of the exact inputs in double (the last
 *       terms: the fp32 intermediate's rounding and Z's own, P Z's
 *       significant bits, U half Z's smallest subnormal); a NaN ref needs
 *       a NaN, an infinite one the same infinity.
 *       An int8 Z must equal
 *           act(sat8(rne(x / 2^XSH) +- rne(s / 2^YSH)))
 *       computed here with integer arithmetic.
 *
 * Exit 0 when within tolerance, 1 otherwise (printing the worst
 * element), 2 on bad usage or files.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/npy.h"
#include "fpref.h"

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8; /* 24 random bits */
}

/* fp32 bits -> double */
static double bits_f32(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

/* Parameters of the check (the kernel's -D values). */
struct prm {
	int bin, smode, act;
	uint32_t sc, lo, hi, alpha, beta; /* fp32 bits, or integers (int8) */
	int xsh, ysh;
};

/* IEEE 754-2019 maximum / minimum: NaN propagates, -0 < +0. */
static double ieee_max(double a, double b)
{
	if (isnan(a) || isnan(b))
		return NAN;
	if (a == b)
		return signbit(a) ? b : a;
	return a > b ? a : b;
}

static double ieee_min(double a, double b)
{
	if (isnan(a) || isnan(b))
		return NAN;
	if (a == b)
		return signbit(a) ? a : b;
	return a < b ? a : b;
}

/* The activation in double, with the limits at +-inf. */
static double act_f(const struct prm *p, double v)
{
	const double pi = 3.14159265358979323846;

	if (isnan(v))
		return v;
	switch (p->act) {
	case 0: return v;
	case 1: return ieee_max(v, 0.0);
	case 2: return ieee_min(ieee_max(v, bits_f32(p->lo)), bits_f32(p->hi));
	case 3: return 1 / (1 + exp(-v));
	case 4: return tanh(v);
	case 5: /* v Phi(v), Phi(v) = erfc(-v / sqrt 2) / 2 */
		if (isinf(v))
			return v > 0 ? v : -0.0;
		return v * 0.5 * erfc(-v / sqrt(2.0));
	case 6: /* the tanh form */
		if (isinf(v))
			return v > 0 ? v : -0.0;
		/* 0.5 v (1 + tanh u) = v / (1 + e^-2u): no cancellation for
		 * negative u, where the result is tiny */
		return v / (1 + exp(-2 * sqrt(2 / pi) * (v + 0.044715 * v * v * v)));
	case 7: /* ONNX HardSwish: alpha 1/6, beta 1/2 */
		if (v <= -3)
			return -0.0; /* v * 0 for finite v; the limit at -inf */
		return v * ieee_max(0.0, ieee_min(1.0, v / 6 + 0.5));
	case 8:
		return ieee_max(0.0, ieee_min(1.0, bits_f32(p->alpha) * v + bits_f32(p->beta)));
	default: /* silu */
		if (isinf(v))
			return v > 0 ? v : -0.0;
		return v / (1 + exp(-v));
	}
}

static double bin_f(int bin, double x, double s)
{
	switch (bin) {
	case 1: return x + s;
	case 2: return x - s;
	case 3: return x * s;
	case 4: return x / s;
	case 5: return ieee_max(x, s);
	case 6: return ieee_min(x, s);
	default: return x;
	}
}

/* x / 2^k rounded to the nearest integer, ties to even (k >= 0). */
static long rne_shift(long x, int k)
{
	long q, r, half;

	if (k == 0)
		return x;
	q = x >= 0 ? x >> k : -((-x + (1L << k) - 1) >> k); /* floor */
	r = x - q * (1L << k);                               /* 0 <= r < 2^k */
	half = 1L << (k - 1);
	if (r > half || (r == half && (q & 1)))
		q++;
	return q;
}

static long sat8(long v)
{
	return v < -128 ? -128 : v > 127 ? 127 : v;
}

static int parse_kv(struct prm *p, const char *kv)
{
	const char *eq = strchr(kv, '=');
	long v;

	if (!eq)
		return -1;
	v = strtol(eq + 1, NULL, 0);
	if (!strncmp(kv, "SC=", 3))
		p->sc = (uint32_t)v;
	else if (!strncmp(kv, "LO=", 3))
		p->lo = (uint32_t)v;
	else if (!strncmp(kv, "HI=", 3))
		p->hi = (uint32_t)v;
	else if (!strncmp(kv, "ALPHA=", 6))
		p->alpha = (uint32_t)v;
	else if (!strncmp(kv, "BETA=", 5))
		p->beta = (uint32_t)v;
	else if (!strncmp(kv, "XSH=", 4))
		p->xsh = (int)v;
	else if (!strncmp(kv, "YSH=", 4))
		p->ysh = (int)v;
	else
		return -1;
	return 0;
}

static int gen(int argc, char **argv, struct diag *d)
{
	uint64_t sh[2], i, n;
	uint32_t seed = (uint32_t)strtoul(argv[4], NULL, 0);
	const char *ty = argv[5];
	double lo = atof(argv[6]), hi = atof(argv[7]);
	int p = !strcmp(ty, "bf16") ? 8 : !strcmp(ty, "fp16") ? 11 : 24;
	int i8 = !strcmp(ty, "int8"), rc;
	struct npy t;

	sh[0] = strtoull(argv[2], NULL, 0);
	sh[1] = strtoull(argv[3], NULL, 0);
	if ((!i8 && strcmp(ty, "fp32") && strcmp(ty, "bf16") && strcmp(ty, "fp16")) ||
	    !(hi >= lo) || (i8 && (lo < -128 || hi > 127))) {
		fprintf(stderr, "eltref: gen TYPE is fp32, bf16, fp16 or int8, LO <= HI (int8: -128 .. 127)\n");
		return 2;
	}
	if (npy_alloc(&t, i8 ? DT_INT8 : DT_FP32, 2, sh))
		return 2;
	n = sh[0] * sh[1];
	for (i = 0; i < n; i++) {
		if (i8) {
			long span = (long)hi - (long)lo + 1;
			int8_t v = (int8_t)((long)lo + (long)(lcg(&seed) % (uint32_t)span));

			t.data[i] = (uint8_t)v;
		} else {
			float v = (float)(lo + (hi - lo) * (lcg(&seed) / 16777216.0));

			if (v != 0)
				v = round_bits(v, p);
			memcpy(t.data + 4 * i, &v, 4);
		}
	}
	if (!i8 && argc == 10 && !strcmp(argv[9], "specials")) {
		const float sp[9] = { INFINITY, -INFINITY, 0.0f, -0.0f, NAN, 100.0f, -100.0f,
				      1e-30f, -3.0f };

		for (i = 0; i < 9 && i < n; i++)
			memcpy(t.data + 4 * i, &sp[i], 4);
	}
	rc = npy_write(argv[8], &t, d) ? 2 : 0;
	npy_free(&t);
	return rc;
}

/* Element i of the second operand: Y's, B's column, C's row, or SC. */
static double s_elem(const struct prm *p, const struct npy *s, uint64_t r, uint64_t c,
		     uint64_t len)
{
	switch (p->smode) {
	case 0: return elem(s, r * len + c);
	case 1: return elem(s, c);
	case 2: return elem(s, r);
	default: return bits_f32(p->sc);
	}
}

static long s_int(const struct prm *p, const struct npy *s, uint64_t r, uint64_t c,
		  uint64_t len)
{
	switch (p->smode) {
	case 0: return (int8_t)s->data[r * len + c];
	case 1: return (int8_t)s->data[c];
	case 2: return (int8_t)s->data[r];
	default: return (int32_t)p->sc;
	}
}

static int check(int argc, char **argv, struct diag *d)
{
	struct prm p;
	struct npy x, s, z;
	double atol = atof(argv[8]), rtol = atof(argv[9]), worst = -1, sub;
	uint64_t rows, len, r, c, wi = 0, bad = 0;
	int k, rc = 2, i8;

	memset(&p, 0, sizeof(p));
	p.bin = atoi(argv[2]);
	p.smode = atoi(argv[3]);
	p.act = atoi(argv[4]);
	p.lo = 0xff800000u; /* -inf, +inf; ONNX HardSigmoid's 0.2, 0.5 */
	p.hi = 0x7f800000u;
	p.alpha = 0x3e4ccccdu;
	p.beta = 0x3f000000u;
	memset(&x, 0, sizeof(x));
	memset(&s, 0, sizeof(s));
	memset(&z, 0, sizeof(z));
	for (k = 10; k < argc; k++)
		if (parse_kv(&p, argv[k])) {
			fprintf(stderr, "eltref: unknown parameter %s\n", argv[k]);
			return 2;
		}
	if (npy_read(argv[5], &x, d) || (strcmp(argv[6], "-") && npy_read(argv[6], &s, d)) ||
	    npy_read(argv[7], &z, d))
		goto out;
	i8 = z.dtype == DT_INT8;
	/* half Z's smallest subnormal: its rounding below the normal range */
	sub = ldexp(1, z.dtype == DT_FP16 ? -25 : z.dtype == DT_BF16 ? -134 : -150);
	rows = x.ndim == 2 ? x.shape[0] : 0;
	len = x.ndim == 2 ? x.shape[1] : 0;
	if (x.ndim != 2 || npy_count(&z) != rows * len || p.bin < 0 || p.bin > 6 ||
	    p.smode < 0 || p.smode > 3 || p.act < 0 || p.act > 9 ||
	    (i8 ? x.dtype != DT_INT8 || p.bin > 2 || p.act > 2 :
	     x.dtype != DT_FP32 && x.dtype != DT_BF16 && x.dtype != DT_FP16) ||
	    (p.bin && p.smode < 3 &&
	     (!s.data || npy_count(&s) != (p.smode == 0 ? rows * len : p.smode == 1 ? len : rows) ||
	      (i8 && s.dtype != DT_INT8)))) {
		fprintf(stderr, "eltref: check BIN SMODE ACT X S|- Z ATOL RTOL: operands missing, misshapen or of the wrong type\n");
		goto out;
	}
	for (r = 0; r < rows; r++)
		for (c = 0; c < len; c++) {
			uint64_t i = r * len + c;

			if (i8) {
				long v = rne_shift((int8_t)x.data[i], p.xsh), got = (int8_t)z.data[i];

				if (p.bin)
					v += (p.bin == 1 ? 1 : -1) * rne_shift(s_int(&p, &s, r, c, len), p.ysh);
				v = sat8(v);
				if (p.act == 1 && v < 0)
					v = 0;
				if (p.act == 2)
					v = v < (int32_t)p.lo ? (int32_t)p.lo : v > (int32_t)p.hi ? (int32_t)p.hi : v;
				if (got != v && bad++ < 5)
					fprintf(stderr, "eltref: Z[%llu][%llu] = %ld, expected %ld\n",
						(unsigned long long)r, (unsigned long long)c, got, v);
			} else {
				double sv = p.bin ? s_elem(&p, &s, r, c, len) : 0;
				double ref = act_f(&p, bin_f(p.bin, elem(&x, i), sv));
				double got = elem(&z, i), e;

				if (isnan(ref) || isinf(ref))
					e = (isnan(ref) ? isnan(got) : got == ref) ? 0 : INFINITY;
				else
					e = fabs(got - ref) /
					    (atol + rtol * fabs(ref) + sub +
					     (ldexp(1, -24) + ldexp(1, -sig_bits(z.dtype))) * fabs(ref));
				if (isnan(e))
					e = INFINITY; /* 0 / 0: a NaN got, or an exact zero tolerance */
				if (!(e <= worst)) {
					worst = e;
					wi = i;
				}
			}
		}
	if (i8) {
		rc = bad ? 1 : 0;
		printf("eltref: %llu of %llu int8 results differ\n", (unsigned long long)bad,
		       (unsigned long long)(rows * len));
	} else {
		rc = worst <= 1 ? 0 : 1;
		printf("eltref: worst element [%llu][%llu] at %.3g of its tolerance (got %.9g)\n",
		       (unsigned long long)(wi / len), (unsigned long long)(wi % len), worst,
		       elem(&z, wi));
	}
out:
	npy_free(&x);
	npy_free(&s);
	npy_free(&z);
	return rc;
}

int main(int argc, char **argv)
{
	struct diag d;

	diag_init(&d, stderr);
	if ((argc == 9 || argc == 10) && !strcmp(argv[1], "gen"))
		return gen(argc, argv, &d);
	if (argc >= 10 && !strcmp(argv[1], "check"))
		return check(argc, argv, &d);
	fprintf(stderr, "usage: eltref gen R C SEED TYPE LO HI OUT.npy [specials]\n"
			"       eltref check BIN SMODE ACT X.npy S.npy|- Z.npy ATOL RTOL [KEY=VALUE...]\n");
	return 2;
}
