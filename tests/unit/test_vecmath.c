/*
 * test_vecmath.c - every vector operation on every element type against a
 * reference computed here, and the measured accuracy of the function units.
 *
 * References:
 *   - integer ops: int64 arithmetic with explicit clamps;
 *   - float add/sub/mul/div: the exact operation in double, rounded once
 *     into the element type (double has >= 2p+2 bits for every element
 *     type, so this is the correctly rounded result), NaN rules applied
 *     first;
 *   - min/max/compare/select/abs/neg: written out from IEEE 754-2019;
 *   - transcendental functions: libm in double, with a tolerance of one
 *     unit in the last place of the element type (fp32: the bounds measured
 *     and documented in docs/numerics.md);
 *   - reductions: an explicit level-by-level tree over a padded lane array
 *     (not the recursive one of vecmath.c);
 *   - conversions: a nearest-code search over all codes of the target.
 * num_decode/num_encode are used to turn values into bits; they are
 * verified independently in test_num.c.
 */
#define _GNU_SOURCE /* M_PI */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/core/vecmath.h"
#include "testutil.h"

#define N_ELEMS 2048

/* The place of a row's first element; only viota's values depend on it. */
static const struct vm_at at0 = { 0, 0 };

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 11;
}

static const enum npu_dtype all_types[] = {
	DT_INT4, DT_INT8, DT_INT16, DT_INT32, DT_FP8E4M3, DT_FP8E5M2,
	DT_FP16, DT_BF16, DT_FP32,
};
#define N_TYPES (sizeof all_types / sizeof all_types[0])

static int mbits_of(enum npu_dtype t)
{
	switch (t) {
	case DT_FP8E4M3: return 3;
	case DT_FP8E5M2: return 2;
	case DT_FP16: return 10;
	case DT_BF16: return 7;
	default: return 23;
	}
}

/* Smallest normal exponent of a float type. */
static int emin_of(enum npu_dtype t)
{
	switch (t) {
	case DT_FP8E4M3: return -6;
	case DT_FP8E5M2: return -14;
	case DT_FP16: return -14;
	default: return -126;
	}
}

static uint32_t mask_of(enum npu_dtype t)
{
	return dtype_bits(t) == 32 ? 0xFFFFFFFFu : (1u << dtype_bits(t)) - 1;
}

/* Quiet version of a NaN code (E4M3's only NaN is already "quiet"). */
static uint32_t qnan_bits(enum npu_dtype t, uint32_t a)
{
	return t == DT_FP8E4M3 ? a : a | 1u << (mbits_of(t) - 1);
}

/* The default NaN 0x7FC00000 as each type encodes it. */
static uint32_t dnan_bits(enum npu_dtype t)
{
	switch (t) {
	case DT_FP8E4M3: return 0x7F;
	case DT_FP8E5M2: return 0x7E;
	case DT_FP16: return 0x7E00;
	case DT_BF16: return 0x7FC0;
	default: return 0x7FC00000u;
	}
}

/* Spacing of type t's values near v (one ulp). */
static double ulp_of(enum npu_dtype t, double v)
{
	int e;

	v = fabs(v);
	if (v < ldexp(1, emin_of(t)))
		return ldexp(1, emin_of(t) - mbits_of(t));
	frexp(v, &e);
	return ldexp(1, e - 1 - mbits_of(t));
}

/* Random element bits; float types get specials one time in eight. */
static uint32_t rnd_bits(enum npu_dtype t, uint64_t *seed)
{
	static const double specials[] = { 0.0, -0.0, INFINITY, -INFINITY,
					   NAN, 1.0, -1.0, 0x1p-20 };
	uint64_t r = lcg(seed);

	if (dtype_is_float(t) && (r & 7) == 0)
		return num_encode(t, specials[(r >> 3) % 8], NUM_OVF_IEEE);
	if (t == DT_FP32 && (r & 1)) /* keep some fp32 in a moderate range */
		return num_encode(DT_FP32, ((double)(r >> 8 & 0xFFFFF) - 524288.0)
				  / 1024.0, NUM_OVF_IEEE);
	return (uint32_t)(r >> 16) & mask_of(t);
}

static void fill(enum npu_dtype t, uint8_t *buf, int n, uint64_t *seed)
{
	int i;

	for (i = 0; i < n; i++)
		num_set_bits(t, buf, (uint64_t)i, rnd_bits(t, seed));
}

static struct vm_cfg cfg_of(enum npu_dtype t, enum num_ovf fo)
{
	struct vm_cfg c;

	memset(&c, 0, sizeof c);
	c.type = t;
	c.out_type = t;
	c.fp8_ovf = fo;
	c.scale = 1.0f;
	return c;
}

/* ---- reference binary / unary / compare ---------------------------------- */

static uint32_t ref_enc(enum npu_dtype t, double v, enum num_ovf fo)
{
	float f;
	uint32_t b;

	if (isnan(v)) /* NaN payload rules: tested in test_num */
		return num_encode(t, v, NUM_OVF_IEEE);
	if (t == DT_FP32) { /* the C conversion rounds RNE */
		f = (float)v;
		memcpy(&b, &f, 4);
		return b;
	}
	return num_encode(t, v, (t == DT_FP8E4M3 || t == DT_FP8E5M2) ? fo
								      : NUM_OVF_IEEE);
}

static int64_t clamp_t(enum npu_dtype t, int64_t v)
{
	int64_t hi = ((int64_t)1 << (dtype_bits(t) - 1)) - 1, lo = -hi - 1;

	return v > hi ? hi : v < lo ? lo : v;
}

static uint32_t ref_int_bin(enum isa_op op, enum npu_dtype t, uint32_t a,
			    uint32_t b)
{
	int64_t x = num_sext(a, dtype_bits(t)), y = num_sext(b, dtype_bits(t));
	int64_t r;

	switch (op) {
	case ISA_OP_VADD: r = clamp_t(t, x + y); break;
	case ISA_OP_VSUB: r = clamp_t(t, x - y); break;
	case ISA_OP_VMUL: r = clamp_t(t, x * y); break;
	case ISA_OP_VDIV:
		if (y == 0)
			r = x == 0 ? 0 : clamp_t(t, x > 0 ? (1LL << 40) : -(1LL << 40));
		else
			r = clamp_t(t, x / y);
		break;
	case ISA_OP_VMIN: r = x < y ? x : y; break;
	case ISA_OP_VMAX: r = x > y ? x : y; break;
	case ISA_OP_VCMPEQ: r = x == y; break;
	case ISA_OP_VCMPLT: r = x < y; break;
	default: r = x <= y; break;
	}
	return (uint32_t)r & mask_of(t);
}

static uint32_t ref_flt_bin(enum isa_op op, enum npu_dtype t, uint32_t a,
			    uint32_t b, enum num_ovf fo)
{
	double x = num_decode(t, a), y = num_decode(t, b), r;

	if (op == ISA_OP_VCMPEQ || op == ISA_OP_VCMPLT || op == ISA_OP_VCMPLE) {
		int c = op == ISA_OP_VCMPEQ ? x == y : op == ISA_OP_VCMPLT ? x < y : x <= y;
		return ref_enc(t, c ? 1.0 : 0.0, fo);
	}
	if (isnan(x))
		return qnan_bits(t, a);
	if (isnan(y))
		return qnan_bits(t, b);
	switch (op) {
	case ISA_OP_VADD: r = x + y; break;
	case ISA_OP_VSUB: r = x - y; break;
	case ISA_OP_VMUL: r = x * y; break;
	case ISA_OP_VDIV: r = x / y; break;
	case ISA_OP_VMIN:
		/* IEEE minimum: -0 < +0; the chosen value is then converted
		 * like any result (saturating fp8 turns -inf into -max) */
		if (x == y)
			r = signbit(x) ? x : y;
		else
			r = x < y ? x : y;
		break;
	default: /* ISA_OP_VMAX */
		if (x == y)
			r = signbit(x) ? y : x;
		else
			r = x > y ? x : y;
		break;
	}
	if (isnan(r))
		return dnan_bits(t);
	return ref_enc(t, r, fo);
}

/* vm_map over random rows vs the reference, every binary op and type. */
START_TEST(vecmath_binary_all_types)
{
	static const enum isa_op ops[] = { ISA_OP_VADD, ISA_OP_VSUB, ISA_OP_VMUL, ISA_OP_VDIV,
					  ISA_OP_VMIN, ISA_OP_VMAX, ISA_OP_VCMPEQ, ISA_OP_VCMPLT,
					  ISA_OP_VCMPLE };
	static uint8_t a[N_ELEMS * 4], b[N_ELEMS * 4], d[N_ELEMS * 4];
	uint64_t seed = 1;
	size_t ti, oi;
	int i, fo;

	for (fo = 0; fo < 2; fo++)
	for (ti = 0; ti < N_TYPES; ti++) {
		enum npu_dtype t = all_types[ti];
		struct vm_cfg c = cfg_of(t, (enum num_ovf)fo);

		fill(t, a, N_ELEMS, &seed);
		fill(t, b, N_ELEMS, &seed);
		/* some equal pairs so compares and min/max ties are exercised */
		for (i = 0; i < N_ELEMS; i += 7)
			num_set_bits(t, b, (uint64_t)i, num_get_bits(t, a, (uint64_t)i));
		for (oi = 0; oi < sizeof ops / sizeof ops[0]; oi++) {
			struct vm_src s1 = { a, 0 }, s2 = { b, 0 }, s3 = { NULL, 0 };

			vm_map(ops[oi], &c, at0, N_ELEMS, d, 0, s1, s2, s3);
			for (i = 0; i < N_ELEMS; i++) {
				uint32_t x = num_get_bits(t, a, (uint64_t)i);
				uint32_t y = num_get_bits(t, b, (uint64_t)i);
				uint32_t got = num_get_bits(t, d, (uint64_t)i);
				uint32_t want = dtype_is_float(t)
					? ref_flt_bin(ops[oi], t, x, y, (enum num_ovf)fo)
					: ref_int_bin(ops[oi], t, x, y);

				if (got != want)
					ck_abort_msg("%s %s(0x%x, 0x%x) = 0x%x want 0x%x",
						     dtype_name(t),
						     isa_op_info[ops[oi]].name,
						     x, y, got, want);
			}
		}
	}
}
END_TEST

/*
 * vecmath.scalar_forms: every vector row of kind SCALAR names a base of
 * kind BIN (opcodes.def BASE) and computes exactly the base's values with
 * s2 a row of copies of the scalar, on every type; iterated over the
 * table, so a new variant is covered without touching this file.  The
 * values are checked against the reference of the base too (the shifts'
 * reference is in vecmath_bit_ops).
 */
START_TEST(vecmath_scalar_forms)
{
	static uint8_t a[N_ELEMS * 4], b[N_ELEMS * 4], d[N_ELEMS * 4],
		       e[N_ELEMS * 4];
	struct vm_src s1 = { a, 0 }, s2 = { b, 0 }, none = { NULL, 0 };
	uint64_t seed = 2, i;
	size_t ti;
	int op, k, n = 0;

	for (ti = 0; ti < N_TYPES; ti++) {
		enum npu_dtype t = all_types[ti];
		struct vm_cfg c = cfg_of(t, NUM_OVF_SAT);

		fill(t, a, N_ELEMS, &seed);
		for (k = 0; k < 8; k++) {
			c.scalar = rnd_bits(t, &seed);
			for (i = 0; i < N_ELEMS; i++)
				num_set_bits(t, b, i, c.scalar);
			for (op = 0; op < ISA_N_OPS; op++) {
				const struct isa_op_info *oi = &isa_op_info[op];
				enum isa_op base = oi->base;

				if (oi->unit != ISA_UNIT_VEC || oi->vkind != ISA_VK_SCALAR)
					continue;
				ck_assert_msg(base != (enum isa_op)op &&
					      isa_op_info[base].vkind == ISA_VK_BIN,
					      "%s: base %s", oi->name,
					      isa_op_info[base].name);
				vm_map((enum isa_op)op, &c, at0, N_ELEMS, d, 0, s1,
				       none, none);
				vm_map(base, &c, at0, N_ELEMS, e, 0, s1, s2, none);
				ck_assert_msg(memcmp(d, e, dtype_bytes(t, N_ELEMS)) == 0,
					      "%s %s scalar 0x%x", dtype_name(t),
					      oi->name, c.scalar);
				n++;
				if (base == ISA_OP_VSHL || base == ISA_OP_VSHR)
					continue;
				for (i = 0; i < N_ELEMS; i++) {
					uint32_t x = num_get_bits(t, a, i);
					uint32_t want = dtype_is_float(t)
						? ref_flt_bin(base, t, x, c.scalar, NUM_OVF_SAT)
						: ref_int_bin(base, t, x, c.scalar);

					if (num_get_bits(t, d, i) != want)
						ck_abort_msg("%s %s", dtype_name(t),
							     oi->name);
				}
			}
		}
	}
	ck_assert_int_gt(n, 0);
}
END_TEST

/*
 * Bit operations: and/or/xor/not on the raw bits of every type (a float
 * sign mask among them), shifts on the integer types against a plain C
 * reference on sign-extended values, counts negative and beyond the width.
 */
START_TEST(vecmath_bit_ops)
{
	static const enum npu_dtype ints[] = { DT_INT4, DT_INT8, DT_INT16, DT_INT32 };
	static const int64_t counts[] = { 0, 1, 3, 7, 8, 15, 31, 32, 40, -1, -3, -40 };
	static uint8_t a[N_ELEMS * 4], b[N_ELEMS * 4], d[N_ELEMS * 4];
	uint64_t seed = 9;
	size_t ti, ci;
	int i;

	for (ti = 0; ti < N_TYPES; ti++) {
		enum npu_dtype t = all_types[ti];
		struct vm_cfg c = cfg_of(t, NUM_OVF_SAT);
		struct vm_src s1 = { a, 0 }, s2 = { b, 0 }, none = { NULL, 0 };
		uint32_t mask = dtype_bits(t) == 32 ? 0xFFFFFFFFu
						    : (1u << dtype_bits(t)) - 1;

		fill(t, a, N_ELEMS, &seed);
		fill(t, b, N_ELEMS, &seed);
		vm_map(ISA_OP_VAND, &c, at0, N_ELEMS, d, 0, s1, s2, none);
		for (i = 0; i < N_ELEMS; i++)
			ck_assert_uint_eq(num_get_bits(t, d, i),
					  num_get_bits(t, a, i) & num_get_bits(t, b, i));
		vm_map(ISA_OP_VOR, &c, at0, N_ELEMS, d, 0, s1, s2, none);
		for (i = 0; i < N_ELEMS; i++)
			ck_assert_uint_eq(num_get_bits(t, d, i),
					  num_get_bits(t, a, i) | num_get_bits(t, b, i));
		vm_map(ISA_OP_VXOR, &c, at0, N_ELEMS, d, 0, s1, s2, none);
		for (i = 0; i < N_ELEMS; i++)
			ck_assert_uint_eq(num_get_bits(t, d, i),
					  num_get_bits(t, a, i) ^ num_get_bits(t, b, i));
		vm_map(ISA_OP_VNOT, &c, at0, N_ELEMS, d, 0, s1, none, none);
		for (i = 0; i < N_ELEMS; i++)
			ck_assert_uint_eq(num_get_bits(t, d, i),
					  ~num_get_bits(t, a, i) & mask);
	}
	/* fp32 |x| by clearing the sign bit */
	{
		struct vm_cfg c = cfg_of(DT_FP32, NUM_OVF_SAT);
		float x = -2.5f, y;
		uint32_t xb;

		memcpy(&xb, &x, 4);
		c.scalar = 0x7fffffffu;
		memcpy(a, &xb, 4);
		memcpy(b, &c.scalar, 4);
		vm_map(ISA_OP_VAND, &c, at0, 1, d, 0, (struct vm_src){ a, 0 },
		       (struct vm_src){ b, 0 }, (struct vm_src){ NULL, 0 });
		memcpy(&y, d, 4);
		ck_assert(y == 2.5f);
	}
	for (ti = 0; ti < 4; ti++) {
		enum npu_dtype t = ints[ti];
		int w = dtype_bits(t);
		struct vm_cfg c = cfg_of(t, NUM_OVF_SAT);

		fill(t, a, N_ELEMS, &seed);
		for (ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++) {
			int64_t n = counts[ci];

			if (n >= (int64_t)1 << (w - 1) || n < -((int64_t)1 << (w - 1)))
				continue; /* not a value of the type */
			c.scalar = (uint32_t)((uint64_t)n & (w == 32 ? 0xFFFFFFFFu : (1u << w) - 1));
			for (i = 0; i < 2; i++) {
				enum isa_op op = i ? ISA_OP_VSHRS : ISA_OP_VSHLS;
				int j;

				vm_map(op, &c, at0, N_ELEMS, d, 0, (struct vm_src){ a, 0 },
				       (struct vm_src){ NULL, 0 }, (struct vm_src){ NULL, 0 });
				for (j = 0; j < N_ELEMS; j++) {
					int64_t x = num_sext(num_get_bits(t, a, j), w), r;
					int left = !i, k = (int)n;

					if (k < 0) {
						left = !left;
						k = -k;
					}
					if (left)
						r = k >= w ? 0 : (int64_t)((uint64_t)x * ((uint64_t)1 << k));
					else
						r = k >= w ? (x < 0 ? -1 : 0) : (x < 0 ? -((-x - 1) >> k) - 1 : x >> k);
					ck_assert_msg(num_get_bits(t, d, j) ==
						      (uint32_t)((uint64_t)r & ((1ull << w) - 1)),
						      "%s %s %lld of %lld", dtype_name(t),
						      isa_op_info[op].name, (long long)n, (long long)x);
				}
			}
		}
	}
}
END_TEST

/* abs, neg, mov, select, broadcast on every type. */
START_TEST(vecmath_unary_select_all_types)
{
	static uint8_t a[N_ELEMS * 4], b[N_ELEMS * 4], m[N_ELEMS * 4],
		d[N_ELEMS * 4];
	uint64_t seed = 3;
	size_t ti;
	int i;

	for (ti = 0; ti < N_TYPES; ti++) {
		enum npu_dtype t = all_types[ti];
		struct vm_cfg c = cfg_of(t, NUM_OVF_SAT);
		struct vm_src sa = { a, 0 }, sb = { b, 0 }, sm = { m, 0 },
			      none = { NULL, 0 };
		uint32_t sign = 1u << (dtype_bits(t) - 1);

		fill(t, a, N_ELEMS, &seed);
		fill(t, b, N_ELEMS, &seed);
		fill(t, m, N_ELEMS, &seed);
		for (i = 0; i < N_ELEMS; i += 3) /* plenty of zero masks, +-0 */
			num_set_bits(t, m, (uint64_t)i, (i & 4) ? sign : 0);

		vm_map(ISA_OP_VABS, &c, at0, N_ELEMS, d, 0, sa, none, none);
		for (i = 0; i < N_ELEMS; i++) {
			uint32_t x = num_get_bits(t, a, (uint64_t)i), want;

			if (dtype_is_float(t))
				want = x & ~sign;
			else
				want = (uint32_t)clamp_t(t, llabs(num_sext(x, dtype_bits(t))))
				       & mask_of(t);
			if (num_get_bits(t, d, (uint64_t)i) != want)
				ck_abort_msg("%s vabs 0x%x", dtype_name(t), x);
		}
		vm_map(ISA_OP_VNEG, &c, at0, N_ELEMS, d, 0, sa, none, none);
		for (i = 0; i < N_ELEMS; i++) {
			uint32_t x = num_get_bits(t, a, (uint64_t)i), want;

			if (dtype_is_float(t))
				want = x ^ sign;
			else
				want = (uint32_t)clamp_t(t, -num_sext(x, dtype_bits(t)))
				       & mask_of(t);
			if (num_get_bits(t, d, (uint64_t)i) != want)
				ck_abort_msg("%s vneg 0x%x", dtype_name(t), x);
		}
		vm_map(ISA_OP_VMOV, &c, at0, N_ELEMS, d, 0, sa, none, none);
		ck_assert_mem_eq(d, a, dtype_bytes(t, N_ELEMS));
		vm_map(ISA_OP_VSEL, &c, at0, N_ELEMS, d, 0, sm, sa, sb);
		for (i = 0; i < N_ELEMS; i++) {
			uint32_t mk = num_get_bits(t, m, (uint64_t)i);
			/* zero = all bits but the sign clear (floats), or 0 */
			int on = dtype_is_float(t) ? (mk & (sign - 1)) != 0 : mk != 0;
			uint32_t want = num_get_bits(t, on ? a : b, (uint64_t)i);

			if (num_get_bits(t, d, (uint64_t)i) != want)
				ck_abort_msg("%s vsel mask 0x%x", dtype_name(t), mk);
		}
		c.scalar = 0x5 & mask_of(t);
		vm_map(ISA_OP_VBCAST, &c, at0, N_ELEMS, d, 0, none, none, none);
		for (i = 0; i < N_ELEMS; i++)
			ck_assert_uint_eq(num_get_bits(t, d, (uint64_t)i), c.scalar);
	}
}
END_TEST

/*
 * vecmath.iota: viota's element (r, i) is i + r * step, from the place
 * vm_map is given (row 3, elements 5 ...): a run in the middle of a row
 * continues the row's count.
 */
START_TEST(vecmath_iota)
{
	static uint8_t d[N_ELEMS * 4];
	struct vm_cfg c = cfg_of(DT_INT32, NUM_OVF_SAT);
	struct vm_src none = { NULL, 0 };
	int i;

	c.step = 7;
	vm_map(ISA_OP_VIOTA, &c, (struct vm_at){ 3, 5 }, 100, d, 0, none, none,
	       none);
	for (i = 0; i < 100; i++)
		ck_assert_uint_eq(num_get_bits(DT_INT32, d, (uint64_t)i),
				  (uint32_t)(5 + i + 3 * 7));
	/* int8 saturates: 200 + 3 * 100 */
	c = cfg_of(DT_INT8, NUM_OVF_SAT);
	c.step = 100;
	vm_map(ISA_OP_VIOTA, &c, (struct vm_at){ 3, 200 }, 1, d, 0, none, none,
	       none);
	ck_assert_uint_eq(num_get_bits(DT_INT8, d, 0), 127);
}
END_TEST

/* ---- conversions ----------------------------------------------------------- */

/* Nearest code of a float type by search over all its codes (ties: even). */
static uint32_t ref_nearest(enum npu_dtype t, double v, enum num_ovf fo)
{
	uint32_t n = 1u << dtype_bits(t), c, best = 0;
	double bd = INFINITY, mx = 0;
	int found = 0;

	if (isnan(v))
		return ref_enc(t, v, fo); /* NaN rule tested in test_num */
	for (c = 0; c < n; c++) {
		double x = num_decode(t, c), dd;

		if (isnan(x) || isinf(x))
			continue;
		if (fabs(x) > mx)
			mx = fabs(x);
		if (x == 0 && signbit(x) != signbit(v))
			continue; /* a zero result keeps the sign of v */
		dd = fabs(x - v);
		if (!found || dd < bd || (dd == bd && !(c & 1))) {
			bd = dd;
			best = c;
			found = 1;
		}
	}
	/* beyond max + half an ulp: overflow per mode */
	if (fabs(v) >= mx + ulp_of(t, mx) / 2 &&
	    !(fabs(v) == mx + ulp_of(t, mx) / 2 && !(best & 1)))
		return ref_enc(t, v, fo);
	return best;
}

static uint32_t ref_cvt(enum npu_dtype from, enum npu_dtype to, uint32_t a,
			enum num_ovf fo)
{
	double v = num_decode(from, a), r;

	if (!dtype_is_float(to)) {
		if (isnan(v))
			return 0;
		r = nearbyint(v); /* RNE in the default rounding mode */
		if (r > num_max(to))
			r = num_max(to);
		if (r < num_min(to))
			r = num_min(to);
		return (uint32_t)(int64_t)r & mask_of(to);
	}
	if (to == DT_FP32 || isnan(v))
		return ref_enc(to, v, fo); /* fp32: the C conversion */
	return ref_nearest(to, v, fo);
}

/* vcvt between every pair of types, both fp8 modes. */
START_TEST(vecmath_convert_all_pairs)
{
	static uint8_t a[N_ELEMS * 4], d[N_ELEMS * 4];
	uint64_t seed = 4;
	size_t fi, ti;
	int i, fo, n;

	for (fo = 0; fo < 2; fo++)
	for (fi = 0; fi < N_TYPES; fi++)
	for (ti = 0; ti < N_TYPES; ti++) {
		enum npu_dtype from = all_types[fi], to = all_types[ti];
		struct vm_cfg c = cfg_of(from, (enum num_ovf)fo);
		struct vm_src s1 = { a, 0 }, none = { NULL, 0 };

		/* 16-bit targets search 65536 codes per element: fewer elements */
		n = dtype_bits(to) == 16 ? 64 : 512;
		c.out_type = to;
		fill(from, a, n, &seed);
		vm_map(ISA_OP_VCVT, &c, at0, (uint64_t)n, d, 0, s1, none, none);
		for (i = 0; i < n; i++) {
			uint32_t x = num_get_bits(from, a, (uint64_t)i);
			uint32_t want = ref_cvt(from, to, x, (enum num_ovf)fo);

			if (num_get_bits(to, d, (uint64_t)i) != want)
				ck_abort_msg("vcvt %s->%s 0x%x: 0x%x want 0x%x",
					     dtype_name(from), dtype_name(to), x,
					     num_get_bits(to, d, (uint64_t)i), want);
		}
	}
}
END_TEST

/* vquant / vdequant against the formulas of docs/numerics.md. */
START_TEST(vecmath_quant_dequant)
{
	static const float scales[] = { 0.05f, 1.0f, 0.003921568859f, 7.5f };
	static const int32_t zps[] = { 0, 3, -128, 17 };
	static const enum npu_dtype itypes[] = { DT_INT4, DT_INT8, DT_INT16,
						 DT_INT32 };
	static const enum npu_dtype ftypes[] = { DT_FP32, DT_FP16, DT_BF16,
						 DT_FP8E4M3 };
	static uint8_t a[N_ELEMS * 4], d[N_ELEMS * 4];
	uint64_t seed = 5;
	int si, it, ft, i;

	for (si = 0; si < 4; si++)
	for (it = 0; it < 4; it++)
	for (ft = 0; ft < 4; ft++) {
		enum npu_dtype f = ftypes[ft], q = itypes[it];
		struct vm_cfg c = cfg_of(f, NUM_OVF_SAT);
		struct vm_src s1 = { a, 0 }, none = { NULL, 0 };

		c.scale = scales[si];
		c.zp = zps[si];
		/* quantize: float f -> int q */
		c.type = f;
		c.out_type = q;
		fill(f, a, N_ELEMS, &seed);
		vm_map(ISA_OP_VQUANT, &c, at0, N_ELEMS, d, 0, s1, none, none);
		for (i = 0; i < N_ELEMS; i++) {
			float x = (float)num_decode(f, num_get_bits(f, a, (uint64_t)i));
			float qf = x / c.scale; /* fp32 division, RNE */
			double r = isnan(qf) ? 0.0 : nearbyint((double)qf);
			int64_t want;

			r += c.zp;
			want = r >= num_max(q) ? (int64_t)num_max(q)
			     : r <= num_min(q) ? (int64_t)num_min(q) : (int64_t)r;
			if (num_sext(num_get_bits(q, d, (uint64_t)i), dtype_bits(q)) != want)
				ck_abort_msg("vquant %s->%s x=%a s=%a zp=%d",
					     dtype_name(f), dtype_name(q), x,
					     c.scale, c.zp);
		}
		/* dequantize: int q -> float f */
		c.type = q;
		c.out_type = f;
		fill(q, a, N_ELEMS, &seed);
		vm_map(ISA_OP_VDEQUANT, &c, at0, N_ELEMS, d, 0, s1, none, none);
		for (i = 0; i < N_ELEMS; i++) {
			int64_t x = num_sext(num_get_bits(q, a, (uint64_t)i), dtype_bits(q));
			float xf = (float)(double)(x - c.zp); /* int -> fp32 RNE */
			float y = xf * c.scale;
			uint32_t want = ref_enc(f, (double)y, NUM_OVF_SAT);

			if (num_get_bits(f, d, (uint64_t)i) != want)
				ck_abort_msg("vdequant %s->%s x=%lld", dtype_name(q),
					     dtype_name(f), (long long)x);
		}
	}
}
END_TEST

/* ---- reductions ------------------------------------------------------------ */

/*
 * Reference tree: put the group into a padded array of P slots (P = lanes
 * rounded up to a power of two, empty slots marked), then combine levels
 * bottom-up: slot 2k with 2k+1, an empty partner passes the other through.
 */
struct slot { int full; float f; int64_t i; };

static struct slot ref_comb(enum isa_op op, int fl, struct slot a, struct slot b)
{
	if (!a.full)
		return b;
	if (!b.full)
		return a;
	if (fl) {
		if (op == ISA_OP_VREDSUM) {
			if (isnan(a.f) || isnan(b.f))
				a.f = isnan(a.f) ? a.f : b.f;
			else
				a.f = a.f + b.f;
			if (isnan(a.f))
				a.f = nanf(""); /* payload checked separately */
		} else if (isnan(a.f) || isnan(b.f)) {
			a.f = isnan(a.f) ? a.f : b.f;
		} else if (a.f == b.f) {
			if (op == ISA_OP_VREDMAX ? signbit(a.f) : !signbit(a.f))
				a.f = b.f;
		} else if (op == ISA_OP_VREDMAX ? b.f > a.f : b.f < a.f) {
			a.f = b.f;
		}
	} else if (op == ISA_OP_VREDSUM) {
		a.i = (int64_t)(int32_t)(uint32_t)((uint64_t)a.i + (uint64_t)b.i);
	} else if (op == ISA_OP_VREDMAX ? b.i > a.i : b.i < a.i) {
		a.i = b.i;
	}
	return a;
}

static struct slot ref_reduce(enum isa_op op, enum npu_dtype t, int lanes,
			      const uint8_t *buf, int n)
{
	static struct slot sl[8192];
	struct slot acc = { 0, 0, 0 };
	int fl = dtype_is_float(t), p = 1, g, k, w;

	while (p < lanes)
		p *= 2;
	for (g = 0; g < n; g += lanes) {
		for (k = 0; k < p; k++) {
			sl[k].full = k < lanes && g + k < n;
			if (!sl[k].full)
				continue;
			if (fl)
				sl[k].f = (float)num_decode(t, num_get_bits(t, buf, (uint64_t)(g + k)));
			else
				sl[k].i = num_sext(num_get_bits(t, buf, (uint64_t)(g + k)),
						   dtype_bits(t));
		}
		for (w = p; w > 1; w /= 2)
			for (k = 0; k < w / 2; k++)
				sl[k] = ref_comb(op, fl, sl[2 * k], sl[2 * k + 1]);
		acc = ref_comb(op, fl, acc, sl[0]);
	}
	return acc;
}

START_TEST(vecmath_reductions)
{
	static const enum isa_op ops[] = { ISA_OP_VREDSUM, ISA_OP_VREDMAX, ISA_OP_VREDMIN };
	static const int lanes_v[] = { 1, 3, 8, 16, 64 };
	static const int lens[] = { 1, 5, 16, 17, 100, 1000 };
	static uint8_t a[4096 * 4];
	uint64_t seed = 6;
	size_t ti, oi, li, ni;

	for (ti = 0; ti < N_TYPES; ti++)
	for (oi = 0; oi < 3; oi++)
	for (li = 0; li < 5; li++)
	for (ni = 0; ni < 6; ni++) {
		enum npu_dtype t = all_types[ti];
		struct vm_cfg c = cfg_of(t, NUM_OVF_IEEE);
		struct vm_src s = { a, 0 };
		struct slot r;
		uint32_t got, want;
		int n = lens[ni];

		/* sums: OTYPE int32 for ints, fp32 for floats (no saturation) */
		c.out_type = dtype_is_float(t) ? DT_FP32 : DT_INT32;
		fill(t, a, n, &seed);
		got = vm_reduce(ops[oi], &c, lanes_v[li], (uint64_t)n, s);
		r = ref_reduce(ops[oi], t, lanes_v[li], a, n);
		if (dtype_is_float(t)) {
			float gf = num_f32_from_bits(got);

			if (isnan(r.f) ? !isnan(gf) : num_f32_bits(gf) != num_f32_bits(r.f))
				ck_abort_msg("%s %s lanes %d len %d: %a want %a",
					     dtype_name(t), isa_op_info[ops[oi]].name,
					     lanes_v[li], n, gf, r.f);
		} else {
			want = (uint32_t)r.i;
			if (got != want)
				ck_abort_msg("%s %s lanes %d len %d: %d want %d",
					     dtype_name(t), isa_op_info[ops[oi]].name,
					     lanes_v[li], n, (int)got, (int)want);
		}
	}
}
END_TEST

/* Summation order is visible: the same data gives different fp32 sums for
 * different lane counts, exactly as the documented tree predicts. */
START_TEST(vecmath_reduction_order)
{
	uint8_t a[16];
	struct vm_cfg c = cfg_of(DT_FP32, NUM_OVF_IEEE);
	struct vm_src s = { a, 0 };
	float big = 0x1p24f;

	c.out_type = DT_FP32;
	/* [2^24, 1, 1, -2^24] */
	num_set_bits(DT_FP32, a, 0, num_f32_bits(big));
	num_set_bits(DT_FP32, a, 1, num_f32_bits(1.0f));
	num_set_bits(DT_FP32, a, 2, num_f32_bits(1.0f));
	num_set_bits(DT_FP32, a, 3, num_f32_bits(-big));
	/* 1 lane: ((2^24 + 1) + 1) - 2^24 = 0 (each +1 is a tie, to even) */
	ck_assert(num_f32_from_bits(vm_reduce(ISA_OP_VREDSUM, &c, 1, 4, s)) == 0.0f);
	/* 2 lanes: groups [2^24,1] -> 2^24 and [1,-2^24] -> 1-2^24 (exact);
	 * 2^24 + (1 - 2^24) = 1 */
	ck_assert(num_f32_from_bits(vm_reduce(ISA_OP_VREDSUM, &c, 2, 4, s)) == 1.0f);
	/* 4 lanes: the tree pairs the same way: 1 */
	ck_assert(num_f32_from_bits(vm_reduce(ISA_OP_VREDSUM, &c, 4, 4, s)) == 1.0f);
	/* 3 lanes: tree ((2^24 + 1) + 1) -> 2^24, then group 2: -2^24: 0 */
	ck_assert(num_f32_from_bits(vm_reduce(ISA_OP_VREDSUM, &c, 3, 4, s)) == 0.0f);
	/* int8 sum wraps in 32 bits then saturates into OTYPE int8 */
	{
		uint8_t b[4] = { 100, 100, 100, 0x9C /* -100 */ };
		struct vm_cfg ci = cfg_of(DT_INT8, NUM_OVF_SAT);
		struct vm_src sb = { b, 0 };

		ci.out_type = DT_INT8;
		ck_assert_uint_eq(vm_reduce(ISA_OP_VREDSUM, &ci, 4, 4, sb), 127);
		ci.out_type = DT_INT16;
		ck_assert_uint_eq(vm_reduce(ISA_OP_VREDSUM, &ci, 4, 4, sb), 200);
	}
}
END_TEST

/* ---- tile-level ops ---------------------------------------------------- */

START_TEST(vecmath_tile_ops)
{
	static uint8_t s1[8192], s2[8192], d[8192], d2[8192];
	size_t ti;
	uint64_t seed = 7;
	int64_t bad = 0;

	for (ti = 0; ti < N_TYPES; ti++) {
		enum npu_dtype t = all_types[ti];
		struct vm_cfg c = cfg_of(t, NUM_OVF_SAT);
		struct vm_tile tl;
		uint32_t rows = 5, len = 7, r, j, sb, db;
		int err;

		memset(&tl, 0, sizeof tl);
		fill(t, s1, 512, &seed);
		/* vtrans, dense: rows are whole bytes (int4: 7 nibbles + pad) */
		tl.d = d;
		tl.s1 = s1;
		tl.rows = rows;
		tl.len = len;
		tl.lanes = 4;
		err = vm_exec(ISA_OP_VTRANS, &c, &tl, &bad);
		ck_assert_int_eq(err, 0);
		sb = (dtype_bits(t) * len + 7) / 8;  /* source row bytes */
		db = (dtype_bits(t) * rows + 7) / 8; /* destination row bytes */
		for (r = 0; r < rows; r++)
			for (j = 0; j < len; j++)
				ck_assert_uint_eq(num_get_bits(t, d + j * db, r),
						  num_get_bits(t, s1 + r * sb, j));
		/* strided rows: 40-byte source stride, 64-byte destination */
		tl.s1_stride = 40;
		tl.d_stride = 64;
		err = vm_exec(ISA_OP_VTRANS, &c, &tl, &bad);
		ck_assert_int_eq(err, 0);
		for (r = 0; r < rows; r++)
			for (j = 0; j < len; j++)
				ck_assert_uint_eq(num_get_bits(t, d + 64 * j, r),
						  num_get_bits(t, s1 + 40 * r, j));
		/* vbrow: row 0 of s1 into every row */
		memset(d, 0, sizeof d);
		err = vm_exec(ISA_OP_VBROW, &c, &tl, &bad);
		ck_assert_int_eq(err, 0);
		for (r = 0; r < rows; r++)
			for (j = 0; j < len; j++)
				ck_assert_uint_eq(num_get_bits(t, d + 64 * r, j),
						  num_get_bits(t, s1, j));
		/* vbcast */
		c.scalar = 0x3 & mask_of(t);
		err = vm_exec(ISA_OP_VBCAST, &c, &tl, &bad);
		ck_assert_int_eq(err, 0);
		for (r = 0; r < rows; r++)
			for (j = 0; j < len; j++)
				ck_assert_uint_eq(num_get_bits(t, d + 64 * r, j), c.scalar);
		/* vgather with int32 indices into a flat 100-element source;
		 * one row of 35 so the destination is dense for every type */
		tl.rows = 1;
		tl.len = rows * len;
		tl.s1_stride = 0;
		tl.d_stride = 0;
		tl.s2 = s2;
		tl.s2_stride = 0;
		tl.s1_elems = 100;
		for (j = 0; j < rows * len; j++)
			num_set_bits(DT_INT32, s2, j, (uint32_t)((j * 37 + 11) % 100));
		err = vm_exec(ISA_OP_VGATHER, &c, &tl, &bad);
		ck_assert_int_eq(err, 0);
		for (j = 0; j < rows * len; j++)
			ck_assert_uint_eq(num_get_bits(t, d, j),
					  num_get_bits(t, s1, (j * 37 + 11) % 100));
		/* vscatter: the inverse permutation restores the gathered data */
		memset(d2, 0, sizeof d2);
		tl.d = d2;
		tl.s1 = d;
		tl.d_elems = 100;
		err = vm_exec(ISA_OP_VSCATTER, &c, &tl, &bad);
		ck_assert_int_eq(err, 0);
		for (j = 0; j < rows * len; j++)
			ck_assert_uint_eq(num_get_bits(t, d2, (j * 37 + 11) % 100),
					  num_get_bits(t, s1, (j * 37 + 11) % 100));
		/* an index out of range is reported, with the index */
		num_set_bits(DT_INT32, s2, 9, 100);
		err = vm_exec(ISA_OP_VSCATTER, &c, &tl, &bad);
		ck_assert_int_eq(err, NPU_ERANGE);
		ck_assert_int_eq(bad, 100);
		num_set_bits(DT_INT32, s2, 3, (uint32_t)-1);
		tl.d = d;
		tl.s1 = s1;
		err = vm_exec(ISA_OP_VGATHER, &c, &tl, &bad);
		ck_assert_int_eq(err, NPU_ERANGE);
		ck_assert_int_eq(bad, -1);
		/* reductions write one OTYPE element per row, each a dense
		 * destination row of one element (int4: one byte) */
		c.out_type = DT_INT8 == t ? DT_INT16 : t;
		tl.s2 = NULL;
		tl.rows = rows;
		tl.len = len;
		err = vm_exec(ISA_OP_VREDMAX, &c, &tl, &bad);
		ck_assert_int_eq(err, 0);
		for (r = 0; r < rows; r++) {
			struct vm_src rs = { s1 + r * sb, 0 };

			ck_assert_uint_eq(num_get_bits(c.out_type,
						       d + r * ((dtype_bits(c.out_type) + 7) / 8), 0),
					  vm_reduce(ISA_OP_VREDMAX, &c, 4, len, rs));
		}
	}
}
END_TEST

/* ---- the function units ------------------------------------------------ */

static double r_rsqrt(double x) { return 1 / sqrt(x); }
static double r_rcp(double x) { return 1 / x; }
static double r_silu(double x) { return x / (1 + exp(-x)); }
static double r_gelu(double x)
{
	double u = sqrt(2 / M_PI) * (x + 0.044715 * x * x * x);
	/* 0.5 x (1 + tanh u) = x / (1 + e^-2u), evaluated without cancellation */
	return x / (1 + exp(-2 * u));
}

/* Documented maximum errors (docs/numerics.md): fp32 ulps. */
static const struct fn {
	const char *name;
	enum isa_op op;
	float (*f)(float);
	double (*ref)(double);
	double max_ulp;      /* bound asserted over the sweep */
	double max_sub;      /* absolute bound for subnormal results */
} fns[] = {
	{ "exp", ISA_OP_VEXP, vm_exp_f32, exp, 1.01, 0x1.8p-149 },
	{ "log", ISA_OP_VLOG, vm_log_f32, log, 1.56, 0 },
	{ "rsqrt", ISA_OP_VRSQRT, vm_rsqrt_f32, r_rsqrt, 1.95, 0 },
	{ "rcp", ISA_OP_VRCP, vm_rcp_f32, r_rcp, 2.03, 0x1.8p-149 },
	{ "tanh", ISA_OP_VTANH, vm_tanh_f32, tanh, 2.24, 0 },
	{ "gelu", ISA_OP_VGELU, vm_gelu_f32, r_gelu, 177.0, 0x1p-142 },
	{ "silu", ISA_OP_VSILU, vm_silu_f32, r_silu, 4.38, 0x1.8p-149 },
};
#define N_FNS (sizeof fns / sizeof fns[0])

/*
 * Every 257th fp32 bit pattern (16.7 million inputs per function, all
 * binades, both signs): maximum error in fp32 ulps of the exact result and
 * relative, over results in fp32's normal range; results below 2^-126 are
 * measured as absolute error.  Set NPU_VECMATH_REPORT=1 to print the table
 * that docs/numerics.md quotes.
 */
START_TEST(vecmath_function_accuracy)
{
	size_t k;
	int report = getenv("NPU_VECMATH_REPORT") != NULL;

	for (k = 0; k < N_FNS; k++) {
		double mu = 0, mr = 0, sub_abs = 0;
		float worst = 0;
		uint64_t b, n = 0, exact = 0;

		for (b = 0; b < 0x100000000ull; b += 257) {
			float x = num_f32_from_bits((uint32_t)b), y;
			double ref, err, ue;

			if (isnan(x) || isinf(x))
				continue;
			ref = fns[k].ref(x);
			if (isnan(ref) || fabs(ref) > 0x1.fffffep127)
				continue; /* specials: tested separately */
			y = fns[k].f(x);
			err = fabs((double)y - ref);
			n++;
			if (fabs(ref) < 0x1p-126) {
				if (err > sub_abs)
					sub_abs = err;
				continue;
			}
			ue = err / ulp_of(DT_FP32, ref);
			if (ue > mu) {
				mu = ue;
				worst = x;
			}
			if (err / fabs(ref) > mr)
				mr = err / fabs(ref);
			if (y == (float)ref)
				exact++;
		}
		if (report)
			printf("| %s | %.3f | %.3g | %.3g | %.1f%% | %a |\n",
			       fns[k].name, mu, mr, sub_abs,
			       100.0 * (double)exact / (double)n, worst);
		ck_assert_msg(mu <= fns[k].max_ulp, "%s: %.3f ulp at %a",
			      fns[k].name, mu, worst);
		ck_assert_msg(sub_abs <= fns[k].max_sub, "%s: subnormal error %g",
			      fns[k].name, sub_abs);
	}
}
END_TEST

/*
 * Narrow types: every fp16 and every bf16 input through vm_map, and all
 * 256 codes of each fp8 format: the result is within one ulp of the
 * narrow type of the exact value (the fp32 approximation error is far
 * below the narrow type's rounding).
 */
START_TEST(vecmath_function_narrow_types)
{
	static const enum npu_dtype ts[] = { DT_FP16, DT_BF16, DT_FP8E4M3,
					     DT_FP8E5M2 };
	static uint8_t a[65536 * 2], d[65536 * 2];
	size_t k, ti;
	uint32_t i;
	int report = getenv("NPU_VECMATH_REPORT") != NULL;

	for (ti = 0; ti < 4; ti++) {
		enum npu_dtype t = ts[ti];
		uint32_t n = 1u << dtype_bits(t);
		struct vm_cfg c = cfg_of(t, NUM_OVF_IEEE);
		struct vm_src s1 = { a, 0 }, none = { NULL, 0 };

		for (i = 0; i < n; i++)
			num_set_bits(t, a, i, i);
		for (k = 0; k < N_FNS; k++) {
			uint32_t cr = 0, cnt = 0;

			vm_map(fns[k].op, &c, at0, n, d, 0, s1, none, none);
			for (i = 0; i < n; i++) {
				double x = num_decode(t, i), ref, y;

				if (isnan(x) || isinf(x))
					continue;
				ref = fns[k].ref(x);
				if (isnan(ref) || isinf(ref) ||
				    fabs(ref) > num_max(t))
					continue;
				y = num_decode(t, num_get_bits(t, d, i));
				cnt++;
				if (num_get_bits(t, d, i) ==
				    num_encode(t, ref, NUM_OVF_IEEE))
					cr++;
				if (!(fabs(y - ref) < ulp_of(t, ref)))
					ck_abort_msg("%s %s(%a) = %a, exact %a",
						     dtype_name(t), fns[k].name,
						     x, y, ref);
			}
			if (report)
				printf("%s %s: %.2f%% correctly rounded\n",
				       dtype_name(t), fns[k].name,
				       100.0 * cr / cnt);
		}
	}
}
END_TEST

/* Integer element types: f evaluated on the integer, rounded, saturated. */
START_TEST(vecmath_function_int_types)
{
	static uint8_t a[256 * 2], d[256 * 2];
	static const enum npu_dtype ts[] = { DT_INT4, DT_INT8, DT_INT16 };
	size_t k, ti;
	int i;

	for (ti = 0; ti < 3; ti++) {
		enum npu_dtype t = ts[ti];
		struct vm_cfg c = cfg_of(t, NUM_OVF_SAT);
		struct vm_src s1 = { a, 0 }, none = { NULL, 0 };

		for (i = 0; i < 256; i++)
			num_set_bits(t, a, (uint64_t)i, (uint32_t)(i * 131) & mask_of(t));
		for (k = 0; k < N_FNS; k++) {
			vm_map(fns[k].op, &c, at0, 256, d, 0, s1, none, none);
			for (i = 0; i < 256; i++) {
				double x = num_decode(t, num_get_bits(t, a, (uint64_t)i));
				double ref = fns[k].ref(x), lo, hi;
				double y = num_decode(t, num_get_bits(t, d, (uint64_t)i));

				if (isnan(ref)) { /* log/rsqrt of negatives: NaN -> 0 */
					ck_assert(y == 0);
					continue;
				}
				/* within one of the exact value, clamped */
				lo = fmax(num_min(t), fmin(num_max(t), floor(ref)));
				hi = fmax(num_min(t), fmin(num_max(t), ceil(ref)));
				if (y < lo || y > hi)
					ck_abort_msg("%s %s(%g) = %g, exact %g",
						     dtype_name(t), fns[k].name,
						     x, y, ref);
			}
		}
	}
}
END_TEST

/* Special inputs of each function unit. */
START_TEST(vecmath_function_specials)
{
	float inf = INFINITY, qn = num_f32_from_bits(0x7FC01234u);
	float sn = num_f32_from_bits(0xFF800042u);
	size_t k;

	for (k = 0; k < N_FNS; k++) {
		/* NaN in: the same NaN out, quietened */
		ck_assert_uint_eq(num_f32_bits(fns[k].f(qn)), 0x7FC01234u);
		ck_assert_uint_eq(num_f32_bits(fns[k].f(sn)), 0xFFC00042u);
	}
	ck_assert(vm_exp_f32(inf) == inf && vm_exp_f32(-inf) == 0);
	ck_assert(vm_exp_f32(0) == 1.0f && vm_exp_f32(89.0f) == inf);
	ck_assert(vm_exp_f32(-103.9f) > 0 && vm_exp_f32(-104.5f) == 0);
	ck_assert(vm_log_f32(1.0f) == 0 && vm_log_f32(0) == -inf);
	ck_assert(vm_log_f32(-0.0f) == -inf && vm_log_f32(inf) == inf);
	ck_assert_uint_eq(num_f32_bits(vm_log_f32(-1.0f)), 0x7FC00000u);
	ck_assert(vm_rsqrt_f32(0) == inf && vm_rsqrt_f32(-0.0f) == -inf);
	ck_assert(vm_rsqrt_f32(inf) == 0 && vm_rsqrt_f32(4.0f) == 0.5f);
	ck_assert_uint_eq(num_f32_bits(vm_rsqrt_f32(-4.0f)), 0x7FC00000u);
	ck_assert(vm_rcp_f32(0) == inf && vm_rcp_f32(-0.0f) == -inf);
	ck_assert(vm_rcp_f32(-inf) == 0 && signbit(vm_rcp_f32(-inf)));
	ck_assert(vm_rcp_f32(0x1p-149f) == inf);         /* 2^149 overflows */
	ck_assert(vm_rcp_f32(0x1p127f) == 0x1p-127f);    /* subnormal result */
	ck_assert(vm_rcp_f32(1.0f) == 1.0f && vm_rcp_f32(-8.0f) == -0.125f);
	ck_assert(vm_tanh_f32(inf) == 1.0f && vm_tanh_f32(-inf) == -1.0f);
	ck_assert(vm_tanh_f32(-0.0f) == 0 && signbit(vm_tanh_f32(-0.0f)));
	ck_assert(vm_tanh_f32(1e-30f) == 1e-30f);
	ck_assert(vm_silu_f32(inf) == inf && vm_silu_f32(-inf) == 0);
	ck_assert(signbit(vm_silu_f32(-inf)) && signbit(vm_silu_f32(-200.0f)));
	ck_assert(vm_gelu_f32(inf) == inf && vm_gelu_f32(-inf) == 0);
	ck_assert(vm_gelu_f32(0) == 0 && vm_gelu_f32(1e30f) == 1e30f);
	ck_assert(vm_max_f32(-0.0f, 0.0f) == 0 && !signbit(vm_max_f32(-0.0f, 0.0f)));
	ck_assert(signbit(vm_min_f32(0.0f, -0.0f)));
	ck_assert_uint_eq(num_f32_bits(vm_max_f32(1.0f, qn)), 0x7FC01234u);
}
END_TEST

/*
 * Operand types come from the d and s<k> columns of the op's kind
 * (isa/names.def VKIND); ops per element from the latency class.
 */
START_TEST(vecmath_op_table)
{
	struct vm_cfg c = cfg_of(DT_FP16, NUM_OVF_SAT);

	c.out_type = DT_INT8;
	ck_assert_int_eq(vm_dst_type(ISA_OP_VCVT, &c), DT_INT8);
	ck_assert_int_eq(vm_dst_type(ISA_OP_VREDSUM, &c), DT_INT8);
	ck_assert_int_eq(vm_dst_type(ISA_OP_VADD, &c), DT_FP16);
	ck_assert_int_eq(vm_dst_type(ISA_OP_VTRANS, &c), DT_FP16);
	ck_assert_int_eq(vm_src_type(ISA_OP_VGATHER, &c, 2), DT_INT32);
	ck_assert_int_eq(vm_src_type(ISA_OP_VSCATTER, &c, 2), DT_INT32);
	ck_assert_int_eq(vm_src_type(ISA_OP_VGATHER, &c, 1), DT_FP16);
	ck_assert_int_eq(vm_src_type(ISA_OP_VSEL, &c, 3), DT_FP16);
	ck_assert_int_eq(vm_kind_of(ISA_OP_VSEL), VM_K_SELECT);
	ck_assert_int_eq(vm_kind_of(ISA_OP_ADD), VM_K_NONE);
	ck_assert_int_eq(vm_ops_per_elem(ISA_OP_VEXP), 1);
	ck_assert_int_eq(vm_ops_per_elem(ISA_OP_VMOV), 0);
	ck_assert_int_eq(vm_ops_per_elem(ISA_OP_VTRANS), 0);
}
END_TEST

static Suite *suite_vecmath(void)
{
	Suite *s = suite_create("vecmath");

	TEST_ADD(s, vecmath_binary_all_types);
	TEST_ADD(s, vecmath_scalar_forms);
	TEST_ADD(s, vecmath_bit_ops);
	TEST_ADD(s, vecmath_unary_select_all_types);
	TEST_ADD(s, vecmath_iota);
	TEST_ADD(s, vecmath_convert_all_pairs);
	TEST_ADD(s, vecmath_quant_dequant);
	TEST_ADD(s, vecmath_reductions);
	TEST_ADD(s, vecmath_reduction_order);
	TEST_ADD(s, vecmath_tile_ops);
	TEST_ADD(s, vecmath_function_accuracy);
	TEST_ADD(s, vecmath_function_narrow_types);
	TEST_ADD(s, vecmath_function_int_types);
	TEST_ADD(s, vecmath_function_specials);
	TEST_ADD(s, vecmath_op_table);
	return s;
}

TEST_MAIN(suite_vecmath)
