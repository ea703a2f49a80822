/*
 * num.c - bit-exact element numerics (see num.h and docs/numerics.md).
 *
 * All five float formats are handled by one parametric "minifloat" codec
 * (exponent bits, mantissa bits, bias, and whether the format is E4M3-style
 * finite-only).  Decoding builds the exact double with ldexp; encoding works
 * on the double's integer fields, so there is exactly one rounding and it
 * does not depend on the host FPU's rounding mode or on whether the compiler
 * keeps intermediates in wider registers.
 *
 * Invariants:
 *   - every value of every type is exactly representable as a double, so
 *     decode(encode(decode(b))) == decode(b) for every non-NaN b;
 *   - encode never produces a signalling NaN;
 *   - integer encodes never produce a value outside the type's range.
 */
#include "num.h"

#include <math.h>
#include <string.h>

/*
 * GCC in ISO C mode (-std=c11, as built here) defaults to
 * -ffp-contract=off; clang's default contracts within one expression
 * only, which num_mac_f32's two statements already prevent.  The pragma
 * states the rule where clang honours it.
 */
#if defined(__clang__)
/* The MAC rule is two roundings (product, then sum); never fuse them. */
#pragma STDC FP_CONTRACT OFF
#endif

/* One binary float format. */
struct fmt {
	int ebits;  /* exponent field width */
	int mbits;  /* stored mantissa (fraction) width */
	int bias;   /* exponent bias */
	int fn;     /* 1: E4M3 style - no inf, only S.1..1.1..1 is NaN */
};

/*
 * Indexed by enum npu_dtype; ebits == 0 marks an integer type.
 * E.g. fp16 {5, 10, 15}: 1.0 is 0 01111 0000000000 = 0x3C00; the largest
 * finite value (maxcode 0x7BFF) is (2 - 2^-10) x 2^15 = 65504.  E4M3's
 * largest is S.1111.110 = 1.75 x 2^8 = 448 (docs/numerics.md table).
 */
static const struct fmt fmts[DT_N] = {
	[DT_FP8E4M3] = { 4, 3, 7, 1 },
	[DT_FP8E5M2] = { 5, 2, 15, 0 },
	[DT_FP16] = { 5, 10, 15, 0 },
	[DT_BF16] = { 8, 7, 127, 0 },
	[DT_FP32] = { 8, 23, 127, 0 },
};

/* ---- raw element access ------------------------------------------------ */

/*
 * Byte by byte, little-endian, so the result is the same on any host
 * and buf needs no alignment.  The default case covers the 32-bit types.
 */
uint32_t num_get_bits(enum npu_dtype t, const uint8_t *buf, uint64_t i)
{
	const uint8_t *p;

	switch (dtype_bits(t)) {
	case 4:
		/* element 2k in the low nibble of byte k (dtype.h) */
		return (i & 1) ? (uint32_t)(buf[i >> 1] >> 4)
			       : (uint32_t)(buf[i >> 1] & 0xF);
	case 8:
		return buf[i];
	case 16:
		p = buf + 2 * i;
		return (uint32_t)p[0] | (uint32_t)p[1] << 8;
	default:
		p = buf + 4 * i;
		return (uint32_t)p[0] | (uint32_t)p[1] << 8 |
		       (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	}
}

/* An int4 store is a read-modify-write of its byte: the other nibble stays. */
void num_set_bits(enum npu_dtype t, uint8_t *buf, uint64_t i, uint32_t bits)
{
	uint8_t *p;

	switch (dtype_bits(t)) {
	case 4:
		p = buf + (i >> 1);
		if (i & 1)
			*p = (uint8_t)((*p & 0x0F) | (bits & 0xF) << 4);
		else
			*p = (uint8_t)((*p & 0xF0) | (bits & 0xF));
		break;
	case 8:
		buf[i] = (uint8_t)bits;
		break;
	case 16:
		p = buf + 2 * i;
		p[0] = (uint8_t)bits;
		p[1] = (uint8_t)(bits >> 8);
		break;
	default:
		p = buf + 4 * i;
		p[0] = (uint8_t)bits;
		p[1] = (uint8_t)(bits >> 8);
		p[2] = (uint8_t)(bits >> 16);
		p[3] = (uint8_t)(bits >> 24);
		break;
	}
}

/* ---- integers ---------------------------------------------------------- */

/* bits in 1..64; e.g. num_sext(0xF, 4) = -1, num_sext(0x7, 4) = 7. */
int64_t num_sext(uint64_t x, int bits)
{
	uint64_t m = 1ull << (bits - 1);

	x &= (bits == 64) ? ~0ull : (1ull << bits) - 1;
	/* (x ^ m) - m sign-extends without shifting into the sign bit (UB) */
	return (int64_t)(x ^ m) - (int64_t)m;
}

/*
 * Range of an integer type as int64.
 * int4 7, int8 127, int16 32767, int32 2^31 - 1; int_min = -int_max - 1.
 */
static int64_t int_max(enum npu_dtype t)
{
	return ((int64_t)1 << (dtype_bits(t) - 1)) - 1;
}

static int64_t int_min(enum npu_dtype t)
{
	return -((int64_t)1 << (dtype_bits(t) - 1));
}

int64_t num_sat_int(enum npu_dtype t, int64_t v)
{
	if (v > int_max(t))
		return int_max(t);
	if (v < int_min(t))
		return int_min(t);
	return v;
}

double num_rne(double v)
{
	double f, diff;

	/* 2^52: from here on every double is an integer (and inf/NaN pass) */
	if (!(fabs(v) < 4503599627370496.0))
		return v;
	f = floor(v);
	diff = v - f; /* exact: f and v share the binade or f == 0 */
	/* Ties to even: 2.5 -> 2, 3.5 -> 4, -2.5 -> -2 (floor(-2.5) = -3). */
	if (diff > 0.5 || (diff == 0.5 && fmod(f, 2.0) != 0.0))
		f += 1.0;
	return f;
}

/*
 * E.g. int8: 126.5 -> 126, 127.5 -> 127 (128 saturates), 300.7 -> 127,
 * -inf -> -128, NaN -> 0.  The result is the two's-complement bit
 * pattern in the low dtype_bits(t) bits.
 */
static uint32_t int_encode(enum npu_dtype t, double v)
{
	double r;
	int64_t i;
	int bits = dtype_bits(t);

	if (v != v)
		return 0; /* NaN -> 0, documented in num.h */
	r = num_rne(v);
	/* compare as doubles first: casting an out-of-range double is UB */
	if (r >= (double)int_max(t))
		i = int_max(t);
	else if (r <= (double)int_min(t))
		i = int_min(t);
	else
		i = (int64_t)r;
	return (uint32_t)((uint64_t)i & ((bits == 32) ? 0xFFFFFFFFull
						      : (1ull << bits) - 1));
}

/* ---- the minifloat codec ----------------------------------------------- */

static double dbl_from_bits(uint64_t b)
{
	double d;

	memcpy(&d, &b, sizeof d);
	return d;
}

static uint64_t dbl_bits(double d)
{
	uint64_t b;

	memcpy(&b, &d, sizeof b);
	return b;
}

/*
 * Largest finite magnitude code (sign bit clear).
 * (fp16: 0x7BFF; bf16: 0x7F7F; E5M2: 0x7B; E4M3: 0x7E; fp32: 0x7F7FFFFF.)
 */
static uint32_t fmt_maxcode(const struct fmt *f)
{
	uint32_t emask = (1u << f->ebits) - 1, mmask = (1u << f->mbits) - 1;

	if (f->fn) /* S.1111.110: the top exponent still holds finite values */
		return emask << f->mbits | (mmask - 1);
	return (emask - 1) << f->mbits | mmask;
}

/* Magnitude code produced by a non-saturating overflow. */
static uint32_t fmt_ovfcode(const struct fmt *f)
{
	uint32_t emask = (1u << f->ebits) - 1, mmask = (1u << f->mbits) - 1;

	/* E4M3 has no infinity: OFP8 maps overflow to NaN */
	return f->fn ? (emask << f->mbits | mmask) : emask << f->mbits;
}

/*
 * Exact: a minifloat has at most 24 significant bits and exponents far
 * inside double's range, so ldexp never rounds.
 */
static double fmt_decode(const struct fmt *f, uint32_t bits)
{
	uint32_t emask = (1u << f->ebits) - 1, mmask = (1u << f->mbits) - 1;
	uint32_t sign = bits >> (f->ebits + f->mbits) & 1;
	uint32_t e = bits >> f->mbits & emask, m = bits & mmask;
	double v;

	if (e == emask && (!f->fn || m == mmask)) {
		if (!f->fn && m == 0)
			return sign ? -HUGE_VAL : HUGE_VAL;
		/*
		 * A quiet double NaN carrying the payload left-aligned, so
		 * that re-encoding keeps the leading payload bits.  E4M3 has
		 * no payload (its one NaN's mantissa is all ones).
		 */
		return dbl_from_bits((uint64_t)sign << 63 | 0x7FFull << 52 |
				     1ull << 51 |
				     (f->fn ? 0 : (uint64_t)m << (52 - f->mbits)));
	}
	if (e == 0) /* subnormal: m * 2^(emin - mbits), emin = 1 - bias */
		v = ldexp((double)m, 1 - f->bias - f->mbits);
	else
		v = ldexp((double)(m | 1u << f->mbits),
			  (int)e - f->bias - f->mbits);
	return sign ? -v : v;
}

/* x / 2^s rounded to nearest, ties to even (1 <= s <= 63). */
static uint64_t rne_shift(uint64_t x, int s)
{
	uint64_t q = x >> s, rem = x & ((1ull << s) - 1);
	uint64_t half = 1ull << (s - 1);

	if (rem > half || (rem == half && (q & 1)))
		q++;
	return q;
}

/*
 * Rounds the exact double v once, RNE, onto f's grid.  Example, fp16
 * (mbits 10, bias 15): v = 1 + 2^-11 is the tie between 1.0 and
 * 1 + 2^-10; e = 0, shift = 42, and rne_shift keeps q = 2^10 (even),
 * so code = ((0 - emin) << 10) + q = (14 << 10) + 2^10 = 0x3C00 = 1.0.
 */
static uint32_t fmt_encode(const struct fmt *f, double v, enum num_ovf ovf)
{
	uint64_t d = dbl_bits(v);
	uint32_t sbit = (uint32_t)(d >> 63) << (f->ebits + f->mbits);
	int de = (int)(d >> 52 & 0x7FF);
	uint64_t dm = d & ((1ull << 52) - 1), m, q, code;
	uint32_t emask = (1u << f->ebits) - 1;
	uint32_t maxcode = fmt_maxcode(f);
	uint32_t ovfcode = (ovf == NUM_OVF_SAT) ? maxcode : fmt_ovfcode(f);
	int emin = 1 - f->bias, emax, e, E, shift;

	if (de == 0x7FF) {
		if (dm == 0) /* infinity: OFP8 saturating mode clamps it too */
			return sbit | ovfcode;
		/* E4M3: every NaN becomes S.1111.111 (no payload). */
		if (f->fn)
			return sbit | emask << f->mbits | ((1u << f->mbits) - 1);
		/* quiet bit + the leading payload bits that fit */
		return sbit | emask << f->mbits | 1u << (f->mbits - 1) |
		       (uint32_t)(dm >> (52 - f->mbits));
	}
	/*
	 * Zero, or a double subnormal (< 2^-1022): far below half the
	 * smallest subnormal of every target (2^-150 for fp32), so it rounds
	 * to a signed zero.
	 */
	if (de == 0)
		return sbit;
	e = de - 1023;
	m = dm | 1ull << 52; /* value = m * 2^(e - 52), m in [2^52, 2^53) */
	/* largest exponent holding finite values */
	emax = (int)(f->fn ? emask : emask - 1) - f->bias;
	if (e > emax) /* |v| >= 2^(emax+1) > max finite */
		return sbit | ovfcode;
	/*
	 * Quantise to the grid of the binade (or the subnormal range, whose
	 * grid is that of emin): step 2^(E - mbits).  q has mbits+1
	 * significant bits, or is 2^(mbits+1) when rounding carried into the
	 * next binade; ((E - emin) << mbits) + q is then the code in both
	 * cases, subnormals included (q < 2^mbits with E == emin).
	 */
	E = e < emin ? emin : e;
	shift = 52 - f->mbits + (E - e);
	/*
	 * A shift of 64 or more would be undefined in rne_shift; the result
	 * is 0 there anyway: from shift 54 on, m < 2^53 is below half a step.
	 */
	q = shift >= 64 ? 0 : rne_shift(m, shift);
	code = ((uint64_t)(E - emin) << f->mbits) + q;
	/*
	 * Rounding went past the largest finite value.  E4M3's
	 * threshold: 464 is the tie between 448 (even) and the absent
	 * 480, so it rounds to 448; anything above overflows.
	 */
	if (code > maxcode)
		return sbit | ovfcode;
	return sbit | (uint32_t)code;
}

/* ---- public value API --------------------------------------------------- */

double num_decode(enum npu_dtype t, uint32_t bits)
{
	if (fmts[t].ebits == 0)
		return (double)num_sext(bits, dtype_bits(t));
	return fmt_decode(&fmts[t], bits);
}

uint32_t num_encode(enum npu_dtype t, double v, enum num_ovf ovf)
{
	if (fmts[t].ebits == 0)
		return int_encode(t, v);
	return fmt_encode(&fmts[t], v, ovf);
}

double num_max(enum npu_dtype t)
{
	if (fmts[t].ebits == 0)
		return (double)int_max(t);
	return fmt_decode(&fmts[t], fmt_maxcode(&fmts[t]));
}

/* Float formats are sign-symmetric; integers are not (-128 vs 127). */
double num_min(enum npu_dtype t)
{
	if (fmts[t].ebits == 0)
		return (double)int_min(t);
	return -num_max(t);
}

/*
 * Top exponent with a nonzero fraction (IEEE-like), or the single
 * all-ones pattern per sign (E4M3, whose other top-exponent codes are
 * finite values 256..448).
 */
int num_is_nan(enum npu_dtype t, uint32_t bits)
{
	const struct fmt *f = &fmts[t];
	uint32_t emask, mmask;

	if (f->ebits == 0)
		return 0;
	emask = (1u << f->ebits) - 1;
	mmask = (1u << f->mbits) - 1;
	if ((bits >> f->mbits & emask) != emask)
		return 0;
	return f->fn ? (bits & mmask) == mmask : (bits & mmask) != 0;
}

double num_load(enum npu_dtype t, const uint8_t *buf, uint64_t i)
{
	return num_decode(t, num_get_bits(t, buf, i));
}

void num_store(enum npu_dtype t, uint8_t *buf, uint64_t i, double v,
	       enum num_ovf ovf)
{
	num_set_bits(t, buf, i, num_encode(t, v, ovf));
}

/* ---- fp32 shortcuts ----------------------------------------------------- */

/* Bit casts through memcpy: defined behaviour, compiled to a move. */
float num_f32_from_bits(uint32_t bits)
{
	float f;

	memcpy(&f, &bits, sizeof f);
	return f;
}

uint32_t num_f32_bits(float f)
{
	uint32_t b;

	memcpy(&b, &f, sizeof b);
	return b;
}

float num_decode_f32(enum npu_dtype t, uint32_t bits)
{
	switch (t) {
	case DT_FP32:
		/* quieten a signalling NaN, as every conversion does */
		if (num_is_nan(t, bits))
			bits |= 1u << 22;
		return num_f32_from_bits(bits);
	case DT_BF16:
		/* bf16 is the top half of fp32: decoding is a shift */
		if (num_is_nan(t, bits))
			bits |= 1u << 6;
		return num_f32_from_bits(bits << 16);
	case DT_INT4:
	case DT_INT8:
	case DT_INT16:
		return (float)num_sext(bits, dtype_bits(t)); /* exact */
	default:
		/* int32 (rounded), fp8, fp16 (exact): through the codec */
		return num_f32_from_bits(
			fmt_encode(&fmts[DT_FP32], num_decode(t, bits),
				   NUM_OVF_IEEE));
	}
}

/* ---- multiply-accumulate ------------------------------------------------ */

int32_t num_mac_i32(int32_t acc, int32_t a, int32_t b)
{
	/* unsigned arithmetic wraps without UB; a*b of int32s may overflow */
	uint32_t u = (uint32_t)acc + (uint32_t)a * (uint32_t)b;

	/*
	 * Back to int32 without implementation-defined conversion: for
	 * u >= 2^31, ~u = 2^32 - 1 - u fits int32, and -~u - 1 = u - 2^32.
	 */
	return u <= 0x7FFFFFFFu ? (int32_t)u : -(int32_t)(~u) - 1;
}

float num_mac_f32(float acc, float a, float b)
{
	/* two statements: the product is rounded before the add (num.h) */
	float p = a * b;

	return acc + p;
}
