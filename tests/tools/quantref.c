/*
 * quantref.c - independent reference for the quantization kernel
 * (asm/kernels/quant.s; semantics in docs/numerics.md, "Quantization
 * operators").
 *
 *   quantref gen OP IT OT GRAN R C SEED SCALE ZP ZPT DIR
 *       inputs for one run into DIR: X.npy (R x C of IT; for an int4 IT
 *       the packed bytes XB.npy, R x C/2 int8, instead), and with GRAN 1
 *       (per column) or 2 (per row) the tables S.npy (fp32 scales) and,
 *       with ZPT 1, Z.npy (int32 zero points)
 *   quantref check OP IT OT GRAN SCALE ZP ZPT SAT RCP DIR
 *       Y.npy (and, for an int4 OT, the packed bytes YB.npy) against the
 *       reference computed from DIR's inputs; SAT is
 *       core.vector.fp8_saturate (1 or 0), RCP 1 selects the quantizer's
 *       multiply-by-reciprocal form
 *
 * OP 0 quantize, 1 dequantize, 2 convert; IT and OT are dtype names;
 * SCALE is the per-tensor scale's fp32 bits (0x3f800000 = 1.0) and ZP its
 * zero point (both ignored per column or row).  The rule per element, with
 * s and z the element's scale and zero point (from S and Z by column c or
 * row r, or SCALE and ZP):
 *
 *   quantize, integer OT   t = fp32(x / s);  y = sat_OT(rne(t) + z), and
 *                          a NaN t gives sat_OT(z); with RCP 1
 *                          t = fp32(x * fp32(1 / s)) instead
 *   quantize, fp8 OT       y = fp8(t), rounded to nearest even; overflow
 *                          and infinities saturate to +-max finite with
 *                          SAT 1, else give inf (E5M2) or NaN (E4M3)
 *   dequantize             y = OT(fp32(fp32(x - z) * s)), OT rounded to
 *                          nearest even from the fp32 product
 *   convert                y = OT(x): one rounding to nearest even (float
 *                          targets), or rne and saturation (integer
 *                          targets; NaN -> 0)
 *
 * Everything here is written from the formats' definitions: the float
 * formats are decoded and encoded by fdec/fenc below (sign, exponent,
 * mantissa fields; round to nearest even on the target's grid, with
 * subnormals), integer rounding is rne() below, the fp32 quotient and
 * product are the host's IEEE binary32 division and multiplication.  Only
 * .npy reading and writing comes from the simulator's library.  Integer
 * and float outputs are compared bit for bit; a NaN is accepted for a
 * NaN (its payload is not compared).  int4 nibble order: element 2k is
 * the low nibble of byte k (checked on the raw bytes, XB and YB).
 *
 * Exit 0 when every element matches, 1 otherwise (printing the first
 * mismatches), 2 on bad usage or files.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/npy.h"

/* ---- float formats, from their definitions ---------------------------- */

/* A binary float format: exponent and mantissa bits, bias, largest finite
 * value, and whether the all-ones exponent holds infinities (IEEE-like)
 * or finite values with a single NaN mantissa (OFP8 E4M3). */
struct ffmt {
	int eb, mb, bias;
	double maxf;
	int has_inf;
};

static const struct ffmt F_E4M3 = { 4, 3, 7, 448.0, 0 };
static const struct ffmt F_E5M2 = { 5, 2, 15, 57344.0, 1 };
static const struct ffmt F_FP16 = { 5, 10, 15, 65504.0, 1 };
static const struct ffmt F_BF16 = { 8, 7, 127, 0x1.fep127, 1 };
static const struct ffmt F_FP32 = { 8, 23, 127, 0x1.fffffep127, 1 };

static const struct ffmt *fmt_of(enum npu_dtype t)
{
	switch (t) {
	case DT_FP8E4M3: return &F_E4M3;
	case DT_FP8E5M2: return &F_E5M2;
	case DT_FP16: return &F_FP16;
	case DT_BF16: return &F_BF16;
	case DT_FP32: return &F_FP32;
	default: return NULL;
	}
}

/* Round a double to an integer, ties to even (exact for every double). */
static double rne(double v)
{
	double f = floor(v), d = v - f;

	if (d > 0.5 || (d == 0.5 && fmod(f, 2.0) != 0.0))
		f += 1.0;
	return f;
}

/* The value of a format's bit pattern. */
static double fdec(const struct ffmt *f, uint32_t bits)
{
	uint32_t man = bits & ((1u << f->mb) - 1);
	uint32_t ex = (bits >> f->mb) & ((1u << f->eb) - 1);
	int neg = (bits >> (f->eb + f->mb)) & 1;
	uint32_t eall = (1u << f->eb) - 1;
	double v;

	if (ex == eall && f->has_inf)
		v = man ? NAN : INFINITY;
	else if (ex == eall && man == (1u << f->mb) - 1)
		v = NAN; /* E4M3: S.1111.111 */
	else if (ex == 0)
		v = ldexp((double)man, 1 - f->bias - f->mb);
	else
		v = ldexp((double)(man | (1u << f->mb)), (int)ex - f->bias - f->mb);
	return neg ? -v : v;
}

/* The bits of a format's NaN and infinity (E4M3: NaN for both). */
static uint32_t fnan(const struct ffmt *f, int neg)
{
	uint32_t b = ((1u << f->eb) - 1) << f->mb;

	b |= f->has_inf ? 1u << (f->mb - 1) : (1u << f->mb) - 1;
	return b | (uint32_t)neg << (f->eb + f->mb);
}

/* The largest finite value's bits: below the infinities (IEEE-like), or
 * the mantissa below the NaN's in the top binade (E4M3: 448). */
static uint32_t fmax_bits(const struct ffmt *f, int neg)
{
	uint32_t eall = (1u << f->eb) - 1, mall = (1u << f->mb) - 1;
	uint32_t b = f->has_inf ? (eall - 1) << f->mb | mall : eall << f->mb | (mall - 1);

	return b | (uint32_t)neg << (f->eb + f->mb);
}

/* An overflowed or infinite value: +-max with SAT, else +-inf (E4M3 has
 * none: NaN). */
static uint32_t finf(const struct ffmt *f, int neg, int sat)
{
	if (sat)
		return fmax_bits(f, neg);
	if (!f->has_inf)
		return fnan(f, neg);
	return ((1u << f->eb) - 1) << f->mb | (uint32_t)neg << (f->eb + f->mb);
}

/*
 * v rounded to nearest even on the format's grid, as bits.  The grid
 * spacing of v's binade is 2^(E - mb), E = max(floor(log2 |v|), emin)
 * (below emin the subnormal spacing); n = |v| / spacing is exact, rounded
 * to an integer by rne(); a result above the largest finite value
 * overflows (SAT: +-max, else inf, or NaN for E4M3).
 */
static uint32_t fenc(const struct ffmt *f, double v, int sat)
{
	int neg = signbit(v) != 0, e, emin = 1 - f->bias;
	uint32_t sgn = (uint32_t)neg << (f->eb + f->mb), ex, man;
	double a = fabs(v), r;

	if (isnan(v))
		return fnan(f, neg);
	if (isinf(v))
		return finf(f, neg, sat);
	if (a == 0.0)
		return sgn;
	frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
	e = e - 1 < emin ? emin : e - 1;
	r = ldexp(rne(ldexp(a, f->mb - e)), e - f->mb);
	if (r > f->maxf)
		return finf(f, neg, sat);
	if (r == 0.0) /* below half the smallest subnormal */
		return sgn;
	frexp(r, &e);
	e -= 1;
	if (e < emin) { /* subnormal: man * 2^(emin - mb) */
		ex = 0;
		man = (uint32_t)ldexp(r, f->mb - emin);
	} else {
		ex = (uint32_t)(e + f->bias);
		man = (uint32_t)(ldexp(r, f->mb - e) - ldexp(1.0, f->mb));
	}
	return sgn | ex << f->mb | man;
}

/* ---- element access ----------------------------------------------------- */

static int tbits(enum npu_dtype t)
{
	return t == DT_INT4 ? 4 : t == DT_INT8 || t == DT_FP8E4M3 || t == DT_FP8E5M2 ? 8
	       : t == DT_INT16 || t == DT_FP16 || t == DT_BF16 ? 16 : 32;
}

static int is_int(enum npu_dtype t) { return t <= DT_INT32; }

static double imin(enum npu_dtype t) { return -ldexp(1.0, tbits(t) - 1); }
static double imax(enum npu_dtype t) { return ldexp(1.0, tbits(t) - 1) - 1.0; }

/* Raw element i of a tensor in unpacked storage: 1, 2 or 4 bytes
 * little-endian (an int4 tensor here holds one value per byte). */
static uint32_t raw(const uint8_t *p, int bytes, uint64_t i)
{
	uint32_t v = 0;
	int k;

	for (k = bytes - 1; k >= 0; k--)
		v = v << 8 | p[i * (uint64_t)bytes + (uint64_t)k];
	return v;
}

static void put(uint8_t *p, int bytes, uint64_t i, uint32_t v)
{
	int k;

	for (k = 0; k < bytes; k++)
		p[i * (uint64_t)bytes + (uint64_t)k] = (uint8_t)(v >> (8 * k));
}

static int ebytes(enum npu_dtype t) { return t == DT_INT4 ? 1 : tbits(t) / 8; }

/* The value of raw element bits of type t (integers sign-extended). */
static double val(enum npu_dtype t, uint32_t b)
{
	int w = t == DT_INT4 ? 8 : tbits(t); /* int4: one sign-extended byte */

	if (is_int(t))
		return (double)(int64_t)((uint64_t)b << (64 - w)) / ldexp(1.0, 64 - w);
	return fdec(fmt_of(t), b);
}

/* ---- the operators ------------------------------------------------------ */

static float f32(uint32_t b)
{
	float f;

	memcpy(&f, &b, 4);
	return f;
}

static double sat(enum npu_dtype t, double v)
{
	return v < imin(t) ? imin(t) : v > imax(t) ? imax(t) : v;
}

/* Expected raw bits (integers: the value's low bits) of one element. */
static uint32_t ref(int op, enum npu_dtype it, enum npu_dtype ot, uint32_t xb,
		    float s, int64_t z, int fsat, int rcp)
{
	double x = val(it, xb), v;
	float t;

	/* only fp8 results follow core.vector.fp8_saturate; fp16, bf16 and
	 * fp32 overflow to inf (IEEE) */
	if (ot != DT_FP8E4M3 && ot != DT_FP8E5M2)
		fsat = 0;

	if (op == 0) {
		/* x is exact in fp32; one IEEE division (or a reciprocal
		 * and a product, each rounded to fp32) */
		t = rcp ? (float)x * (1.0f / s) : (float)x / s;
		if (!is_int(ot))
			return fenc(fmt_of(ot), (double)t, fsat);
		if (isnan(t))
			v = sat(ot, (double)z);
		else
			v = sat(ot, rne((double)t) + (double)z);
	} else if (op == 1) {
		t = (float)(x - (double)z) * s; /* x - z exact; one IEEE product */
		return fenc(fmt_of(ot), (double)t, fsat);
	} else if (!is_int(ot)) {
		return fenc(fmt_of(ot), x, fsat);
	} else {
		v = isnan(x) ? 0.0 : sat(ot, rne(x));
	}
	return (uint32_t)(int64_t)v & (tbits(ot) == 32 ? 0xFFFFFFFFu :
				       (1u << (ot == DT_INT4 ? 8 : tbits(ot))) - 1);
}

/* ---- generation --------------------------------------------------------- */

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8; /* 24 bits */
}

/* Uniform in [0, 1). */
static double unif(uint32_t *s) { return (double)lcg(s) / 16777216.0; }

/* A scale: a power of two (ties in x / s are then exact) or a random
 * fp32 value in [2^-8, 2), about half each. */
static float gen_scale(uint32_t *s)
{
	if (lcg(s) % 2)
		return (float)ldexp(1.0, (int)(lcg(s) % 9) - 8);
	return (float)ldexp(1.0 + unif(s), (int)(lcg(s) % 9) - 8);
}

/*
 * A quantizer input for scale sc, zero point z and output type ot: mostly
 * values over the output range and somewhat beyond (so saturation
 * happens), exact or near ties (sc * (k + 1/2)), and specials: +-0, +-inf,
 * NaN, huge, subnormal.  Encoded into IT by fenc (round to nearest even).
 */
static uint32_t gen_x(uint32_t *s, enum npu_dtype it, enum npu_dtype ot,
		      float sc, int64_t z)
{
	const struct ffmt *f = fmt_of(it);
	uint32_t k = lcg(s) % 100;
	double v, lo, hi;

	if (is_int(ot)) {
		lo = imin(ot) - (double)z;
		hi = imax(ot) - (double)z;
	} else {
		lo = -1.25 * fmt_of(ot)->maxf;
		hi = -lo;
	}
	if (k < 1)
		v = (lcg(s) % 2) ? -0.0 : 0.0;
	else if (k < 2)
		v = (lcg(s) % 2) ? -INFINITY : INFINITY;
	else if (k < 3)
		v = (lcg(s) % 2) ? -NAN : NAN;
	else if (k < 4)
		v = ldexp((lcg(s) % 2) ? -1.5 : 1.5, 100);
	else if (k < 5)
		v = ldexp(1.0 + unif(s), -140); /* subnormal in fp32 */
	else if (k < 20)
		v = (double)sc * (floor(lo + (hi - lo) * unif(s)) + 0.5);
	else if (!is_int(ot) && k < 60)
		/* fp8: every binade, the subnormals included */
		v = (double)sc * ldexp(1.0 + unif(s), (int)(lcg(s) % 28) - 19) *
		    ((lcg(s) % 2) ? -1 : 1);
	else
		v = (double)sc * (lo - 2 + (hi - lo + 4) * unif(s));
	return fenc(f, v, 0);
}

/* A zero point for type ot: small, odd and even, both signs. */
static int64_t gen_z(uint32_t *s, enum npu_dtype ot)
{
	int64_t span = ot == DT_INT4 ? 3 : 40;

	return (int64_t)(lcg(s) % (uint32_t)(2 * span + 1)) - span;
}

static int save(const char *dir, const char *name, const struct npy *t,
		struct diag *d)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return npy_write(path, t, d);
}

static int load(const char *dir, const char *name, enum npu_dtype want,
		struct npy *t, struct diag *d)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return npy_load_as(path, want, t, d);
}

static enum npu_dtype dt_arg(const char *s)
{
	int t = dtype_from_name(s);

	if (t < 0) {
		fprintf(stderr, "quantref: %s is not a dtype\n", s);
		exit(2);
	}
	return (enum npu_dtype)t;
}

/* The element's scale and zero point. */
static void chan(int gran, const struct npy *st, const struct npy *zt,
		 float scale, int64_t zp, uint64_t r, uint64_t c, float *s,
		 int64_t *z)
{
	uint64_t k = gran == 1 ? c : r;

	*s = scale;
	*z = zp;
	if (gran == 0)
		return;
	*s = f32(raw(st->data, 4, k));
	*z = zt ? (int32_t)raw(zt->data, 4, k) : 0;
}

int main(int argc, char **argv)
{
	struct diag d;
	struct npy x, y, yb, st, zt;
	int rc = 2;

	diag_init(&d, stderr);
	memset(&x, 0, sizeof(x));
	memset(&y, 0, sizeof(y));
	memset(&yb, 0, sizeof(yb));
	memset(&st, 0, sizeof(st));
	memset(&zt, 0, sizeof(zt));
	if (argc == 13 && strcmp(argv[1], "gen") == 0) {
		int op = atoi(argv[2]), gran = atoi(argv[5]), zpt = atoi(argv[11]);
		enum npu_dtype it = dt_arg(argv[3]), ot = dt_arg(argv[4]);
		uint64_t sh[2] = { strtoull(argv[6], NULL, 0), strtoull(argv[7], NULL, 0) };
		uint32_t seed = (uint32_t)strtoul(argv[8], NULL, 0);
		float scale = f32((uint32_t)strtoul(argv[9], NULL, 0));
		int64_t zp = strtoll(argv[10], NULL, 0);
		const char *dir = argv[12];
		uint64_t nt = gran == 2 ? sh[0] : sh[1], i, r, c;
		uint64_t xsh[2] = { sh[0], it == DT_INT4 ? sh[1] / 2 : sh[1] };

		if (gran) {
			if (npy_alloc(&st, DT_FP32, 1, &nt) ||
			    (zpt && npy_alloc(&zt, DT_INT32, 1, &nt)))
				goto out;
			for (i = 0; i < nt; i++) {
				float f = gen_scale(&seed);
				uint32_t b;

				memcpy(&b, &f, 4);
				put(st.data, 4, i, b);
				if (zpt)
					put(zt.data, 4, i,
					    (uint32_t)gen_z(&seed, op == 1 ? it : ot));
			}
		}
		if (npy_alloc(&x, it == DT_INT4 ? DT_INT8 : it, 2, xsh))
			goto out;
		for (r = 0; r < xsh[0]; r++)
			for (c = 0; c < xsh[1]; c++) {
				uint64_t i2 = r * xsh[1] + c;
				float s;
				int64_t z;
				uint32_t b;

				chan(gran, &st, zpt ? &zt : NULL, scale, zp, r, c, &s, &z);
				if (op == 0)
					b = gen_x(&seed, it, ot, s, z);
				else if (tbits(it) == 32) /* every code of the type */
					b = lcg(&seed) << 8 ^ lcg(&seed);
				else /* (int4: every packed byte) */
					b = lcg(&seed) >> (24 - tbits(it == DT_INT4 ? DT_INT8 : it));
				put(x.data, ebytes(x.dtype), i2, b);
			}
		if (save(dir, it == DT_INT4 ? "XB.npy" : "X.npy", &x, &d) ||
		    (gran && save(dir, "S.npy", &st, &d)) ||
		    (gran && zpt && save(dir, "Z.npy", &zt, &d)))
			goto out;
		rc = 0;
	} else if (argc == 12 && strcmp(argv[1], "check") == 0) {
		int op = atoi(argv[2]), gran = atoi(argv[5]), zpt = atoi(argv[8]);
		int fsat = atoi(argv[9]), rcp = atoi(argv[10]);
		enum npu_dtype it = dt_arg(argv[3]), ot = dt_arg(argv[4]);
		float scale = f32((uint32_t)strtoul(argv[6], NULL, 0));
		int64_t zp = strtoll(argv[7], NULL, 0);
		const char *dir = argv[11];
		uint64_t rows, cols, r, c, bad = 0, n;

		if ((it == DT_INT4 ? load(dir, "XB.npy", DT_INT8, &x, &d)
				   : load(dir, "X.npy", it, &x, &d)) ||
		    load(dir, "Y.npy", ot == DT_INT4 ? DT_INT8 : ot, &y, &d) ||
		    (ot == DT_INT4 && load(dir, "YB.npy", DT_INT8, &yb, &d)) ||
		    (gran && load(dir, "S.npy", DT_FP32, &st, &d)) ||
		    (gran && zpt && load(dir, "Z.npy", DT_INT32, &zt, &d)))
			goto out;
		rows = y.shape[0];
		cols = y.ndim == 2 ? y.shape[1] : 0;
		n = rows * cols;
		if (y.ndim != 2 || x.ndim != 2 || x.shape[0] != rows ||
		    x.shape[1] != (it == DT_INT4 ? cols / 2 : cols) ||
		    (gran && npy_count(&st) != (gran == 2 ? rows : cols)) ||
		    (zt.data && npy_count(&zt) != npy_count(&st)) ||
		    (yb.data && npy_count(&yb) != n / 2)) {
			fprintf(stderr, "quantref: shapes differ (X, Y R x C; S, Z C or R; XB, YB R x C/2)\n");
			goto out;
		}
		for (r = 0; r < rows; r++)
			for (c = 0; c < cols; c++) {
				uint64_t i = r * cols + c;
				uint32_t xb, want, got;
				float s;
				int64_t z;
				int nan_ok;

				if (it == DT_INT4) { /* element 2k: the low nibble */
					xb = x.data[i / 2] >> (i % 2 ? 4 : 0) & 15;
					xb = xb & 8 ? xb | 0xF0 : xb;
				} else {
					xb = raw(x.data, ebytes(it), i);
				}
				chan(gran, &st, zpt ? &zt : NULL, scale, zp, r, c, &s, &z);
				want = ref(op, it, ot, xb, s, z, fsat, rcp);
				got = raw(y.data, ebytes(ot), i);
				nan_ok = !is_int(ot) && isnan(val(ot, want)) &&
					 isnan(val(ot, got));
				if (got != want && !nan_ok && bad++ < 8)
					fprintf(stderr, "quantref: Y[%" PRIu64 "][%" PRIu64 "] = 0x%x, expected 0x%x (x bits 0x%x, s %.9g, z %" PRId64 ")\n",
						r, c, got, want, xb, (double)s, z);
			}
		for (c = 0; yb.data && c < n / 2; c++) {
			uint32_t lo = raw(y.data, 1, 2 * c) & 15, hi = raw(y.data, 1, 2 * c + 1) & 15;

			if (yb.data[c] != (uint8_t)(lo | hi << 4) && bad++ < 8)
				fprintf(stderr, "quantref: YB byte %" PRIu64 " = 0x%02x, expected 0x%02x (element %" PRIu64 " low, %" PRIu64 " high)\n",
					c, yb.data[c], lo | hi << 4, 2 * c, 2 * c + 1);
		}
		printf("quantref: %" PRIu64 " of %" PRIu64 " elements differ\n", bad, n);
		rc = bad ? 1 : 0;
	} else {
		fprintf(stderr, "usage: quantref gen OP IT OT GRAN R C SEED SCALE ZP ZPT DIR\n"
				"       quantref check OP IT OT GRAN SCALE ZP ZPT SAT RCP DIR\n");
	}
out:
	npy_free(&x);
	npy_free(&y);
	npy_free(&yb);
	npy_free(&st);
	npy_free(&zt);
	return rc;
}
