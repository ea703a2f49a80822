/*
 * test_num.c - bit-exact numerics against references written independently
 * of util/num.c.
 *
 * The reference decoder evaluates the textbook formula
 *   (-1)^s * 2^(e-bias) * (1 + m/2^M)   (subnormal: 2^(1-bias) * m/2^M)
 * with pow(); the reference encoder is a nearest-code search over a sorted
 * table of every finite code's value (binary search, then comparison with
 * the exact midpoint, ties to the even code), with a virtual code one step
 * above the largest finite value to decide overflow.  Neither shares code
 * with num.c's integer-field codec.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/num.h"
#include "testutil.h"

/* ---- independent reference --------------------------------------------- */

/* Layout of a float type as the test sees it (written out, not shared). */
struct rfmt {
	enum npu_dtype t;
	int ebits, mbits, bias;
	int e4m3;           /* finite-only, single NaN per sign */
	uint32_t maxcode;   /* largest finite positive code */
};

static const struct rfmt rfmts[] = {
	{ DT_FP8E4M3, 4, 3, 7, 1, 0x7E },
	{ DT_FP8E5M2, 5, 2, 15, 0, 0x7B },
	{ DT_FP16, 5, 10, 15, 0, 0x7BFF },
	{ DT_BF16, 8, 7, 127, 0, 0x7F7F },
};

static const struct rfmt *rf(enum npu_dtype t)
{
	size_t i;

	for (i = 0; i < sizeof rfmts / sizeof rfmts[0]; i++)
		if (rfmts[i].t == t)
			return &rfmts[i];
	ck_abort_msg("no reference format");
	return NULL;
}

/* Value of a positive finite code (or the virtual one above max). */
static double ref_pos_value(const struct rfmt *f, uint32_t code)
{
	uint32_t e = code >> f->mbits, m = code & ((1u << f->mbits) - 1);
	double frac = (double)m / pow(2.0, f->mbits);

	if (e == 0)
		return pow(2.0, 1 - f->bias) * frac;
	return pow(2.0, (int)e - f->bias) * (1.0 + frac);
}

/* Sorted values of codes 0..maxcode+1 (the last one virtual). */
struct rtable {
	const struct rfmt *f;
	double *v;
	uint32_t n;
};

static struct rtable ref_table(enum npu_dtype t)
{
	struct rtable r;
	uint32_t c;

	r.f = rf(t);
	r.n = r.f->maxcode + 2;
	r.v = malloc(sizeof(double) * r.n);
	ck_assert_ptr_nonnull(r.v);
	for (c = 0; c < r.n; c++)
		r.v[c] = ref_pos_value(r.f, c);
	for (c = 1; c < r.n; c++)
		ck_assert(r.v[c] > r.v[c - 1]);
	return r;
}

static uint32_t ref_nan(const struct rfmt *f, int neg)
{
	uint32_t s = (uint32_t)neg << (f->ebits + f->mbits);

	/* E4M3: S.1111.111 ; IEEE-like: canonical quiet NaN S.1..1.10..0 */
	if (f->e4m3)
		return s | 0x7F;
	return s | ((1u << f->ebits) - 1) << f->mbits | 1u << (f->mbits - 1);
}

/* Reference encode of a non-NaN double: nearest code, ties to even. */
static uint32_t ref_encode(const struct rtable *r, double x, int sat)
{
	const struct rfmt *f = r->f;
	uint32_t s = (uint32_t)signbit(x) << (f->ebits + f->mbits);
	uint32_t lo = 0, hi = r->n - 1, pick;
	double a = fabs(x), mid;

	if (a >= r->v[r->n - 1]) { /* at or past the virtual code */
		pick = r->n - 1;
	} else {
		/* largest lo with v[lo] <= a */
		while (hi - lo > 1) {
			uint32_t m = (lo + hi) / 2;
			if (r->v[m] <= a)
				lo = m;
			else
				hi = m;
		}
		mid = r->v[lo] + (r->v[lo + 1] - r->v[lo]) / 2; /* exact */
		if (a < mid)
			pick = lo;
		else if (a > mid)
			pick = lo + 1;
		else
			pick = (lo & 1) ? lo + 1 : lo;
	}
	if (pick > f->maxcode) { /* overflow */
		if (sat)
			return s | f->maxcode;
		if (f->e4m3)
			return s | 0x7F;
		return s | ((1u << f->ebits) - 1) << f->mbits; /* inf */
	}
	return s | pick;
}

/* Reference decode: formula with pow(), NaN/inf by field inspection. */
static double ref_decode(const struct rfmt *f, uint32_t code, int *is_nan)
{
	uint32_t emask = (1u << f->ebits) - 1, mmask = (1u << f->mbits) - 1;
	int neg = (code >> (f->ebits + f->mbits)) & 1;
	uint32_t mag = code & ((1u << (f->ebits + f->mbits)) - 1);
	double v;

	*is_nan = 0;
	if (f->e4m3 && mag == 0x7F) {
		*is_nan = 1;
		return NAN;
	}
	if (!f->e4m3 && (mag >> f->mbits) == emask) {
		if ((mag & mmask) != 0) {
			*is_nan = 1;
			return NAN;
		}
		return neg ? -INFINITY : INFINITY;
	}
	v = ref_pos_value(f, mag);
	return neg ? -v : v;
}

/* Deterministic 64-bit LCG (Knuth MMIX constants). */
static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 11;
}

static float f32(uint32_t b)
{
	float f;

	memcpy(&f, &b, 4);
	return f;
}

static uint32_t bits32(float f)
{
	uint32_t b;

	memcpy(&b, &f, 4);
	return b;
}

/* Check one double against the reference in both overflow modes. */
static void check_enc(const struct rtable *r, double x)
{
	uint32_t got, want;
	int sat;

	for (sat = 0; sat <= 1; sat++) {
		got = num_encode(r->f->t, x, sat ? NUM_OVF_SAT : NUM_OVF_IEEE);
		want = ref_encode(r, x, sat);
		/* plain if: each ck_assert costs a syscall in fork mode */
		if (got != want)
			ck_abort_msg("%s encode(%a) sat=%d: got 0x%x want 0x%x",
				     dtype_name(r->f->t), x, sat, got, want);
	}
}

/* ---- fp8: all 256 codes both ways ------------------------------------- */

static void fp8_all_codes(enum npu_dtype t)
{
	const struct rfmt *f = rf(t);
	uint32_t c, back, want_back;
	double v, rv;
	int nan;

	for (c = 0; c < 256; c++) {
		v = num_decode(t, c);
		rv = ref_decode(f, c, &nan);
		ck_assert_int_eq(num_is_nan(t, c), nan);
		if (nan) {
			ck_assert(isnan(v));
			ck_assert_int_eq(!!signbit(v), (int)(c >> 7));
			/* E5M2 NaN re-encodes quiet with its payload kept */
			want_back = f->e4m3 ? c : (c | 0x02);
		} else {
			ck_assert_msg(v == rv && !!signbit(v) == !!signbit(rv),
				      "%s decode 0x%02x: %a want %a",
				      dtype_name(t), c, v, rv);
			want_back = c;
		}
		ck_assert(num_decode_f32(t, c) == (float)v || nan);
		back = num_encode(t, v, NUM_OVF_IEEE);
		ck_assert_msg(back == want_back, "%s 0x%02x -> 0x%02x",
			      dtype_name(t), c, back);
		back = num_encode(t, v, NUM_OVF_SAT);
		/* saturating mode clamps an infinity to max finite */
		if (isinf(v))
			want_back = (c & 0x80) | f->maxcode;
		ck_assert_msg(back == want_back, "%s sat 0x%02x -> 0x%02x",
			      dtype_name(t), c, back);
	}
}

START_TEST(num_fp8_e4m3_all_codes)
{
	fp8_all_codes(DT_FP8E4M3);
	/* anchors from the OFP8 spec table */
	ck_assert(num_decode(DT_FP8E4M3, 0x7E) == 448.0);
	ck_assert(num_decode(DT_FP8E4M3, 0x08) == ldexp(1, -6));
	ck_assert(num_decode(DT_FP8E4M3, 0x07) == 0.875 * ldexp(1, -6));
	ck_assert(num_decode(DT_FP8E4M3, 0x01) == ldexp(1, -9));
	ck_assert(num_decode(DT_FP8E4M3, 0x78) == 256.0); /* S.1111.000 finite */
	ck_assert(num_max(DT_FP8E4M3) == 448.0);
}
END_TEST

START_TEST(num_fp8_e5m2_all_codes)
{
	fp8_all_codes(DT_FP8E5M2);
	ck_assert(num_decode(DT_FP8E5M2, 0x7B) == 57344.0);
	ck_assert(num_decode(DT_FP8E5M2, 0x04) == ldexp(1, -14));
	ck_assert(num_decode(DT_FP8E5M2, 0x01) == ldexp(1, -16));
	ck_assert(isinf(num_decode(DT_FP8E5M2, 0x7C)));
	ck_assert(num_decode(DT_FP8E5M2, 0xFC) < 0);
	ck_assert(num_max(DT_FP8E5M2) == 57344.0);
}
END_TEST

/*
 * Between every pair of adjacent codes (and past the largest one): the
 * lower code, the exact midpoint, the fp32 values one ulp either side of
 * the midpoint, and doubles one double-ulp either side (which an encoder
 * that first rounded to fp32 would get wrong), in both signs.
 */
static void between_codes(enum npu_dtype t)
{
	struct rtable r = ref_table(t);
	uint32_t c;
	int sg;

	for (c = 0; c + 1 < r.n; c++) {
		double lo = r.v[c], hi = r.v[c + 1];
		double mid = lo + (hi - lo) / 2;
		float mf = (float)mid;
		double pts[8];
		int k;

		ck_assert((double)mf == mid); /* midpoints fit in fp32 */
		pts[0] = lo;
		pts[1] = mid;
		pts[2] = nextafterf(mf, INFINITY);
		pts[3] = nextafterf(mf, 0.0f);
		pts[4] = nextafter(mid, INFINITY);
		pts[5] = nextafter(mid, 0.0);
		pts[6] = hi;
		pts[7] = lo + (hi - lo) / 4;
		for (sg = 0; sg < 2; sg++)
			for (k = 0; k < 8; k++)
				check_enc(&r, sg ? -pts[k] : pts[k]);
	}
	free(r.v);
}

START_TEST(num_fp8_between_codes)
{
	between_codes(DT_FP8E4M3);
	between_codes(DT_FP8E5M2);
}
END_TEST

START_TEST(num_fp16_bf16_between_codes)
{
	between_codes(DT_FP16);
	between_codes(DT_BF16);
}
END_TEST

/* A million seeded random fp32 bit patterns per format. */
START_TEST(num_random_f32_inputs)
{
	static const enum npu_dtype ts[] = { DT_FP8E4M3, DT_FP8E5M2,
					     DT_FP16, DT_BF16 };
	size_t k;
	int i;

	for (k = 0; k < 4; k++) {
		struct rtable r = ref_table(ts[k]);
		uint64_t seed = 12345 + k;

		for (i = 0; i < 1000000; i++) {
			float x = f32((uint32_t)lcg(&seed));

			if (isnan(x))
				continue;
			check_enc(&r, x);
		}
		free(r.v);
	}
}
END_TEST

/* fp16 and bf16: every code decodes to the formula and re-encodes to itself. */
START_TEST(num_fp16_bf16_all_codes)
{
	static const enum npu_dtype ts[] = { DT_FP16, DT_BF16 };
	size_t k;
	uint32_t c;

	for (k = 0; k < 2; k++) {
		const struct rfmt *f = rf(ts[k]);

		for (c = 0; c < 65536; c++) {
			int nan;
			double rv = ref_decode(f, c, &nan);
			double v = num_decode(ts[k], c);

			/* plain ifs: each ck_assert costs a syscall */
			if (nan) {
				/* quiet bit set, payload and sign kept */
				if (!isnan(v) ||
				    num_encode(ts[k], v, NUM_OVF_IEEE) !=
					    (c | 1u << (f->mbits - 1)))
					ck_abort_msg("%s NaN 0x%04x",
						     dtype_name(ts[k]), c);
				continue;
			}
			if (v != rv || !!signbit(v) != !!signbit(rv) ||
			    (double)num_decode_f32(ts[k], c) != v ||
			    num_encode(ts[k], v, NUM_OVF_IEEE) != c)
				ck_abort_msg("%s 0x%04x: %a want %a",
					     dtype_name(ts[k]), c, v, rv);
		}
	}
	/* bf16 is the upper half of fp32 */
	ck_assert(num_decode(DT_BF16, 0x3F80) == 1.0);
	ck_assert(num_decode(DT_BF16, 0x7F7F) == (double)f32(0x7F7F0000));
	ck_assert(num_decode(DT_FP16, 0x7BFF) == 65504.0);
	ck_assert(num_decode(DT_FP16, 0x0001) == ldexp(1, -24));
	ck_assert(num_decode(DT_FP16, 0x0400) == ldexp(1, -14));
}
END_TEST

/* Hand-picked corner cases with the expected code written out. */
START_TEST(num_fp16_corners)
{
	static const struct {
		double x;
		uint32_t ieee, sat;
	} cs[] = {
		{ 1.0, 0x3C00, 0x3C00 },
		{ 1.0 + 0x1p-11, 0x3C00, 0x3C00 },       /* tie -> even (down) */
		{ 1.0 + 3 * 0x1p-11, 0x3C02, 0x3C02 },   /* tie -> even (up) */
		{ 1.0 + 0x1p-11 + 0x1p-40, 0x3C01, 0x3C01 }, /* just above tie */
		{ 0x1p-24, 0x0001, 0x0001 },             /* smallest subnormal */
		{ 0x1p-25, 0x0000, 0x0000 },             /* half of it: tie -> 0 */
		{ 0x1p-25 + 0x1p-60, 0x0001, 0x0001 },
		{ 3 * 0x1p-25, 0x0002, 0x0002 },         /* tie 1|2 -> 2 */
		{ 1023.5 * 0x1p-24, 0x0400, 0x0400 },    /* max subnormal -> min normal */
		{ 1023.25 * 0x1p-24, 0x03FF, 0x03FF },
		{ 65504.0, 0x7BFF, 0x7BFF },             /* max */
		{ 65519.99, 0x7BFF, 0x7BFF },
		{ 65520.0, 0x7C00, 0x7BFF },             /* tie max|inf -> inf */
		{ -65520.0, 0xFC00, 0xFBFF },
		{ 1e30, 0x7C00, 0x7BFF },
		{ -0.0, 0x8000, 0x8000 },
		{ -0x1p-26, 0x8000, 0x8000 },            /* underflow keeps sign */
		{ 0x1p-14, 0x0400, 0x0400 },             /* min normal */
	};
	size_t i;

	for (i = 0; i < sizeof cs / sizeof cs[0]; i++) {
		ck_assert_msg(num_encode(DT_FP16, cs[i].x, NUM_OVF_IEEE) ==
			      cs[i].ieee, "fp16 %a", cs[i].x);
		ck_assert_msg(num_encode(DT_FP16, cs[i].x, NUM_OVF_SAT) ==
			      cs[i].sat, "fp16 sat %a", cs[i].x);
	}
	ck_assert_uint_eq(num_encode(DT_FP16, INFINITY, NUM_OVF_IEEE), 0x7C00);
	ck_assert_uint_eq(num_encode(DT_FP16, -INFINITY, NUM_OVF_IEEE), 0xFC00);
}
END_TEST

START_TEST(num_bf16_corners)
{
	static const struct {
		double x;
		uint32_t ieee;
	} cs[] = {
		{ 1.0 + 0x1p-8, 0x3F80 },            /* tie -> even */
		{ 1.0 + 3 * 0x1p-8, 0x3F82 },        /* tie -> even (up) */
		{ 1.0 + 0x1p-8 + 0x1p-30, 0x3F81 },
		{ 0x1p-133, 0x0001 },                /* smallest subnormal */
		{ 0x1p-134, 0x0000 },                /* tie -> 0 */
		{ 0x1.8p-134, 0x0001 },
		{ 0x1.fep127, 0x7F7F },              /* max */
		{ 0x1.ffp127, 0x7F80 },              /* tie max|inf -> inf */
		{ 0x1.fefp127, 0x7F7F },
		{ -0x1.ffp127, 0xFF80 },
	};
	size_t i;

	for (i = 0; i < sizeof cs / sizeof cs[0]; i++)
		ck_assert_msg(num_encode(DT_BF16, cs[i].x, NUM_OVF_IEEE) ==
			      cs[i].ieee, "bf16 %a -> 0x%x", cs[i].x,
			      num_encode(DT_BF16, cs[i].x, NUM_OVF_IEEE));
	ck_assert_uint_eq(num_encode(DT_BF16, 0x1.ffp127, NUM_OVF_SAT), 0x7F7F);
}
END_TEST

START_TEST(num_fp8_corners)
{
	/* E4M3: 464 is the tie between 448 (mantissa 110, even) and the
	 * non-existent 480: it stays 448; anything above overflows. */
	ck_assert_uint_eq(num_encode(DT_FP8E4M3, 464.0, NUM_OVF_IEEE), 0x7E);
	ck_assert_uint_eq(num_encode(DT_FP8E4M3, 464.001, NUM_OVF_IEEE), 0x7F);
	ck_assert_uint_eq(num_encode(DT_FP8E4M3, 464.001, NUM_OVF_SAT), 0x7E);
	ck_assert_uint_eq(num_encode(DT_FP8E4M3, -1e9, NUM_OVF_IEEE), 0xFF);
	ck_assert_uint_eq(num_encode(DT_FP8E4M3, -1e9, NUM_OVF_SAT), 0xFE);
	ck_assert_uint_eq(num_encode(DT_FP8E4M3, INFINITY, NUM_OVF_IEEE), 0x7F);
	ck_assert_uint_eq(num_encode(DT_FP8E4M3, INFINITY, NUM_OVF_SAT), 0x7E);
	ck_assert_uint_eq(num_encode(DT_FP8E4M3, -INFINITY, NUM_OVF_SAT), 0xFE);
	ck_assert_uint_eq(num_encode(DT_FP8E4M3, NAN, NUM_OVF_SAT), 0x7F);
	ck_assert_uint_eq(num_encode(DT_FP8E4M3, -NAN, NUM_OVF_SAT), 0xFF);
	ck_assert_uint_eq(num_encode(DT_FP8E4M3, 0x1p-10, NUM_OVF_IEEE), 0x00);
	ck_assert_uint_eq(num_encode(DT_FP8E4M3, 0x1.8p-9, NUM_OVF_IEEE), 0x02);
	/* E5M2: 61440 ties 57344 (odd) and 65536 (inf, even): inf */
	ck_assert_uint_eq(num_encode(DT_FP8E5M2, 61440.0, NUM_OVF_IEEE), 0x7C);
	ck_assert_uint_eq(num_encode(DT_FP8E5M2, 61440.0, NUM_OVF_SAT), 0x7B);
	ck_assert_uint_eq(num_encode(DT_FP8E5M2, 61439.0, NUM_OVF_IEEE), 0x7B);
	ck_assert_uint_eq(num_encode(DT_FP8E5M2, -INFINITY, NUM_OVF_IEEE), 0xFC);
	ck_assert_uint_eq(num_encode(DT_FP8E5M2, -INFINITY, NUM_OVF_SAT), 0xFB);
	ck_assert_uint_eq(num_encode(DT_FP8E5M2, NAN, NUM_OVF_SAT), 0x7E);
}
END_TEST

/* NaN payloads: quiet, sign kept, leading payload bits kept. */
START_TEST(num_nan_payload)
{
	size_t i;

	/* fp32 quiet NaN 0x7FC12345: payload 0x412345 >> 13 = 0x209 */
	ck_assert_uint_eq(num_encode(DT_FP16, f32(0x7FC12345), 0), 0x7E09);
	/* signalling NaN with payload in the kept bits: quieted */
	ck_assert_uint_eq(num_encode(DT_FP16, f32(0x7F802000), 0), 0x7E01);
	/* payload entirely in dropped bits: still a (quiet) NaN */
	ck_assert_uint_eq(num_encode(DT_FP16, f32(0xFF800001), 0), 0xFE00);
	ck_assert_uint_eq(num_encode(DT_BF16, f32(0x7FC12345), 0), 0x7FC1);
	/* fp16 sNaN 0x7D23 -> quiet 0x7F23 through double */
	ck_assert_uint_eq(num_encode(DT_FP16, num_decode(DT_FP16, 0x7D23), 0),
			  0x7F23);
	/* fp16 NaN payload survives a trip through fp32 */
	ck_assert_uint_eq(num_encode(DT_FP32, num_decode(DT_FP16, 0xFE55), 0),
			  0xFFC00000u | 0x255u << 13);
	ck_assert_uint_eq(num_f32_bits(num_decode_f32(DT_FP16, 0x7D23)),
			  0x7FC00000u | 0x123u << 13);
	ck_assert_uint_eq(num_f32_bits(num_decode_f32(DT_BF16, 0xFF81)),
			  0xFFC10000u);
	ck_assert_uint_eq(num_f32_bits(num_decode_f32(DT_FP32, 0x7F800001)),
			  0x7FC00001u);
	ck_assert(num_is_nan(DT_FP32, 0x7F800001));
	ck_assert(!num_is_nan(DT_FP32, 0x7F800000));
	ck_assert(!num_is_nan(DT_INT8, 0xFF));
	/* the default NaN (no payload) becomes each format's canonical NaN */
	for (i = 0; i < sizeof rfmts / sizeof rfmts[0]; i++) {
		ck_assert_uint_eq(num_encode(rfmts[i].t, NAN, NUM_OVF_SAT),
				  ref_nan(&rfmts[i], 0));
		ck_assert_uint_eq(num_encode(rfmts[i].t, -NAN, NUM_OVF_IEEE),
				  ref_nan(&rfmts[i], 1));
	}
}
END_TEST

/* fp32 encode from double against the C conversion (RNE by default). */
START_TEST(num_fp32_from_double)
{
	uint64_t seed = 99;
	int i;

	for (i = 0; i < 1000000; i++) {
		uint64_t b = lcg(&seed) << 11 ^ lcg(&seed);
		double d;

		memcpy(&d, &b, 8);
		if (isnan(d))
			continue;
		/* bring most exponents near fp32's range */
		if (i & 1)
			d = ldexp(frexp(d, &(int){ 0 }), (int)(lcg(&seed) % 320) - 170);
		if (num_encode(DT_FP32, d, NUM_OVF_IEEE) != bits32((float)d))
			ck_abort_msg("fp32 %a", d);
	}
	ck_assert_uint_eq(num_encode(DT_FP32, 1.0 + 0x1p-24, 0), 0x3F800000u);
	ck_assert_uint_eq(num_encode(DT_FP32, 1.0 + 0x1p-24 + 0x1p-52, 0),
			  0x3F800001u);
	ck_assert_uint_eq(num_encode(DT_FP32, 0x1p-150, 0), 0);
	ck_assert_uint_eq(num_encode(DT_FP32, 0x1.8p-150, 0), 1);
	ck_assert_uint_eq(num_encode(DT_FP32, 0x1.ffffffp127, 0), 0x7F800000u);
	ck_assert_uint_eq(num_encode(DT_FP32, 0x1.ffffffp127, NUM_OVF_SAT),
			  0x7F7FFFFFu);
	ck_assert(num_decode(DT_FP32, 0x7F7FFFFF) == (double)FLT_MAX);
}
END_TEST

/* float -> int: RNE, then saturate; NaN -> 0. */
START_TEST(num_int_saturation)
{
	static const struct {
		enum npu_dtype t;
		double x;
		int64_t want;
	} cs[] = {
		{ DT_INT8, 127.4, 127 },   { DT_INT8, 127.5, 127 },
		{ DT_INT8, 126.5, 126 },   { DT_INT8, 125.5, 126 },
		{ DT_INT8, -0.5, 0 },      { DT_INT8, -1.5, -2 },
		{ DT_INT8, -2.5, -2 },     { DT_INT8, -128.5, -128 },
		{ DT_INT8, -129.0, -128 }, { DT_INT8, 1e300, 127 },
		{ DT_INT8, -INFINITY, -128 }, { DT_INT8, NAN, 0 },
		{ DT_INT4, 7.49, 7 },      { DT_INT4, 7.5, 7 },
		{ DT_INT4, -8.6, -8 },     { DT_INT4, 6.5, 6 },
		{ DT_INT16, 32767.5, 32767 }, { DT_INT16, -40000, -32768 },
		{ DT_INT32, 2147483647.5, 2147483647 },
		{ DT_INT32, 2147483646.5, 2147483646 },
		{ DT_INT32, -2147483648.5, -2147483648LL },
		{ DT_INT32, 3e9, 2147483647 }, { DT_INT32, INFINITY, 2147483647 },
		{ DT_INT32, 0x1p60, 2147483647 },
	};
	size_t i;

	for (i = 0; i < sizeof cs / sizeof cs[0]; i++) {
		uint32_t b = num_encode(cs[i].t, cs[i].x, NUM_OVF_SAT);

		ck_assert_msg(num_decode(cs[i].t, b) == (double)cs[i].want,
			      "%s %a -> %g", dtype_name(cs[i].t), cs[i].x,
			      num_decode(cs[i].t, b));
		/* integers always saturate, whatever the float mode */
		ck_assert_uint_eq(num_encode(cs[i].t, cs[i].x, NUM_OVF_IEEE), b);
	}
	ck_assert_int_eq(num_sat_int(DT_INT8, 300), 127);
	ck_assert_int_eq(num_sat_int(DT_INT4, -9), -8);
	ck_assert_int_eq(num_sat_int(DT_INT32, -(1LL << 40)), INT32_MIN);
	ck_assert(num_rne(2.5) == 2.0 && num_rne(3.5) == 4.0);
	ck_assert(num_rne(-2.5) == -2.0 && num_rne(0x1p60) == 0x1p60);
	ck_assert(num_max(DT_INT4) == 7 && num_min(DT_INT16) == -32768);
	/* int32 -> fp32 rounds RNE beyond 2^24 */
	ck_assert(num_decode_f32(DT_INT32, 16777217) == 16777216.0f);
	ck_assert(num_decode_f32(DT_INT32, 16777219) == 16777220.0f);
	ck_assert(num_decode_f32(DT_INT32, 0x80000000u) == -2147483648.0f);
}
END_TEST

/* Packing: int4 low nibble first, multi-byte little-endian. */
START_TEST(num_element_access)
{
	uint8_t buf[16];
	int i;

	memset(buf, 0xAA, sizeof buf);
	for (i = 0; i < 8; i++)
		num_store(DT_INT4, buf, (uint64_t)i, i - 4, NUM_OVF_SAT);
	/* elements -4..3: nibbles C,D,E,F,0,1,2,3 */
	ck_assert_uint_eq(buf[0], 0xDC);
	ck_assert_uint_eq(buf[1], 0xFE);
	ck_assert_uint_eq(buf[2], 0x10);
	ck_assert_uint_eq(buf[3], 0x32);
	ck_assert_uint_eq(buf[4], 0xAA); /* untouched */
	for (i = 0; i < 8; i++)
		ck_assert(num_load(DT_INT4, buf, (uint64_t)i) == i - 4);
	num_set_bits(DT_INT4, buf, 1, 0x7); /* high nibble only */
	ck_assert_uint_eq(buf[0], 0x7C);

	num_set_bits(DT_INT16, buf, 2, 0xBEEF);
	ck_assert_uint_eq(buf[4], 0xEF);
	ck_assert_uint_eq(buf[5], 0xBE);
	num_set_bits(DT_FP32, buf, 2, 0x11223344);
	ck_assert_uint_eq(buf[8], 0x44);
	ck_assert_uint_eq(buf[11], 0x11);
	ck_assert_uint_eq(num_get_bits(DT_FP32, buf, 2), 0x11223344);
	ck_assert(num_load(DT_INT16, buf, 2) == (double)(int16_t)0xBEEF);
	ck_assert(num_load(DT_INT32, buf, 2) == 0x11223344);
	num_store(DT_FP16, buf, 0, -2.0, NUM_OVF_IEEE);
	ck_assert_uint_eq(buf[0], 0x00);
	ck_assert_uint_eq(buf[1], 0xC0);
	ck_assert_int_eq(num_sext(0xF, 4), -1);
	ck_assert_int_eq(num_sext(0x80000000u, 32), INT32_MIN);
}
END_TEST

/* MAC rule: int wraps mod 2^32; fp equals the fused result for narrow inputs. */
START_TEST(num_mac_rule)
{
	uint64_t seed = 7;
	int i;

	ck_assert_int_eq(num_mac_i32(INT32_MAX, 1, 1), INT32_MIN);
	ck_assert_int_eq(num_mac_i32(0, -128, -128), 16384);
	ck_assert_int_eq(num_mac_i32(INT32_MIN, -1, 1), INT32_MAX);
	ck_assert_int_eq(num_mac_i32(5, 65536, 65536), 5); /* 2^32 wraps to 0 */
	for (i = 0; i < 200000; i++) {
		enum npu_dtype t = (i & 1) ? DT_FP16 : DT_BF16;
		float a = num_decode_f32(t, (uint32_t)lcg(&seed) & 0xFFFF);
		float b = num_decode_f32(t, (uint32_t)lcg(&seed) & 0xFFFF);
		float acc = f32((uint32_t)lcg(&seed));
		float got, want;

		if (isnan(a) || isnan(b) || isnan(acc) || isinf(a) || isinf(b))
			continue;
		/* bf16 products outside fp32's normal range are not exact */
		if (t == DT_BF16 && (fabs((double)a * b) >= 0x1p127 ||
				     (a * b != 0 && fabs((double)a * b) < 0x1p-126)))
			continue;
		got = num_mac_f32(acc, a, b);
		want = fmaf(a, b, acc); /* one rounding of the exact value */
		if (bits32(got) != bits32(want) && !(isnan(got) && isnan(want)))
			ck_abort_msg("mac %a + %a*%a", acc, a, b);
	}
}
END_TEST

/*
 * The documented error bound of a K-long fp32 MAC chain over fp16 inputs:
 * |sum_fp32 - sum_exact| <= gamma_K * sum|a_k b_k|, gamma_K = K u / (1 - K u),
 * u = 2^-24 (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed.,
 * section 3.1).  Inputs are fp16 values with |x| in [2^-4, 2^4): products
 * have 22 significant bits and a lowest bit >= 2^-29, and K <= 4096 of them
 * sum to less than 2^20, so the double sum (49 bits) is the exact sum.
 */
START_TEST(num_dot_error_bound)
{
	uint64_t seed = 2024;
	int trial, k;

	for (trial = 0; trial < 200; trial++) {
		int K = 1 + (int)(lcg(&seed) % 4096);
		float acc = 0;
		double exact = 0, mag = 0, gamma;

		for (k = 0; k < K; k++) {
			/* fp16 codes with |x| in [2^-4, 2^4] keep sums exact */
			uint32_t ca = 0x2C00 + (uint32_t)(lcg(&seed) % 0x2000);
			uint32_t cb = 0x2C00 + (uint32_t)(lcg(&seed) % 0x2000);
			float a, b;

			if (lcg(&seed) & 1)
				ca |= 0x8000;
			a = num_decode_f32(DT_FP16, ca);
			b = num_decode_f32(DT_FP16, cb);
			acc = num_mac_f32(acc, a, b);
			exact += (double)a * b; /* exact: 22-bit products, bounded range */
			mag += fabs((double)a * b);
		}
		gamma = K * 0x1p-24 / (1 - K * 0x1p-24);
		ck_assert_msg(fabs((double)acc - exact) <= gamma * mag,
			      "K=%d err %g bound %g", K, fabs(acc - exact),
			      gamma * mag);
	}
}
END_TEST

static Suite *suite_num(void)
{
	Suite *s = suite_create("num");

	TEST_ADD(s, num_fp8_e4m3_all_codes);
	TEST_ADD(s, num_fp8_e5m2_all_codes);
	TEST_ADD(s, num_fp8_between_codes);
	TEST_ADD(s, num_fp16_bf16_between_codes);
	TEST_ADD(s, num_random_f32_inputs);
	TEST_ADD(s, num_fp16_bf16_all_codes);
	TEST_ADD(s, num_fp16_corners);
	TEST_ADD(s, num_bf16_corners);
	TEST_ADD(s, num_fp8_corners);
	TEST_ADD(s, num_nan_payload);
	TEST_ADD(s, num_fp32_from_double);
	TEST_ADD(s, num_int_saturation);
	TEST_ADD(s, num_element_access);
	TEST_ADD(s, num_mac_rule);
	TEST_ADD(s, num_dot_error_bound);
	return s;
}

TEST_MAIN(suite_num)
