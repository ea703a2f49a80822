/*
 * matrix_num.c - the numerics both models of the matrix engine share
 * (matrix.h): the array's input stage (stored rows decoded to int32 or
 * fp32), one PE's multiply-accumulate, and mout's requantisation stage
 * (bias, per-channel scale, activation, OSCALE, zero point, saturation).
 *
 * Invariants: every result is bit-exact by util/num.h's rules (round to
 * nearest even, saturation as the hardware would), independent of the
 * host; the fast model's vector loops (matrix_val.c) give the same bits as
 * mtx_mac applied in k order, and the per-PE model (matrix_pe.c) calls
 * mtx_mac itself.  Nothing here knows the sequencer or either model.
 */
#include "matrix_int.h"

#if defined(__clang__)
/* The MAC rule is two roundings (product, then sum); never fuse them. */
#pragma STDC FP_CONTRACT OFF
#endif

#include <math.h>
#include <string.h>

#include "../../util/num.h"

/*
 * Bytes of a stored row of n elements.  Rows always start on a byte: an
 * odd-length int4 row ends with a padding nibble that belongs to nobody.
 */
uint32_t mtx_row_bytes(int type, uint32_t n)
{
	return (uint32_t)dtype_bytes((enum npu_dtype)type, n);
}

/*
 * The array's input stage: integers are sign-extended to int32 (int4/8/16
 * products then fit the 32-bit multiplier exactly), floats widen to fp32,
 * which holds every fp8/fp16/bf16 value exactly.  The pe model decodes the
 * same way, element by element, so both feed identical bits to the MACs.
 */
void mtx_decode(int t, const uint8_t *raw, uint32_t n, union mtx_val *v)
{
	uint32_t i;

	/* the common types directly (the same values as the general path:
	 * int8 sign-extends, bf16 is the upper half of fp32) */
	if (t == DT_INT8) {
		for (i = 0; i < n; i++)
			v[i].i = (int8_t)raw[i];
		return;
	}
	if (t == DT_BF16) {
		for (i = 0; i < n; i++) {
			uint32_t b = (uint32_t)raw[2 * i] | (uint32_t)raw[2 * i + 1] << 8;

			if ((b & 0x7f80) == 0x7f80 && (b & 0x7f))
				b |= 0x40;	/* a NaN is quietened, as num_decode_f32 does */
			b <<= 16;
			memcpy(&v[i].f, &b, 4);
		}
		return;
	}
	if (dtype_is_float((enum npu_dtype)t)) {
		for (i = 0; i < n; i++)
			v[i].f = num_decode_f32((enum npu_dtype)t,
						num_get_bits((enum npu_dtype)t,
							     raw, i));
	} else {
		int bits = dtype_bits((enum npu_dtype)t);

		for (i = 0; i < n; i++)
			v[i].i = (int32_t)num_sext(num_get_bits((enum npu_dtype)t,
								raw, i), bits);
	}
}

/* One PE step of the accumulation rule, by num.h's definition. */
union mtx_val mtx_mac(int is_float, union mtx_val acc, union mtx_val a,
		      union mtx_val b)
{
	union mtx_val r;

	if (is_float)
		r.f = num_mac_f32(acc.f, a.f, b.f);
	else
		r.i = num_mac_i32(acc.i, a.i, b.i);
	return r;
}

/*
 * Round-to-nearest-even of the exact value v * scale to an integer, for an
 * int32 accumulator and a finite fp32 scale.  scale = sm * 2^e exactly
 * (sm < 2^24), so v*sm fits an int64 (< 2^55) and the rounding is one
 * exact shift: no intermediate rounding at all.  Saturates to +-2^62.
 *
 * Example: v = 3, scale = 0.5 = 2^23 x 2^-24: p = 3 x 2^23, e = -24;
 * q = p >> 24 = 1 with remainder exactly half, so ties-to-even gives 2
 * (3 x 0.5 = 1.5 -> 2).  The +-2^62 clamp is far beyond every OTYPE,
 * so the caller's saturation still sees the right sign and side.
 */
static int64_t rne_mul_i32(int32_t v, float scale)
{
	uint32_t bits = num_f32_bits(scale);
	int ex = (int)((bits >> 23) & 0xff);
	int64_t sm = (int64_t)(bits & 0x7fffff);
	int e, neg;
	uint64_t a, q;
	int64_t p;

	if (ex == 0)
		e = -149;
	else {
		sm |= (int64_t)1 << 23;
		e = ex - 150;
	}
	p = (int64_t)v * sm;
	if (bits >> 31)
		p = -p;
	neg = p < 0;
	a = neg ? (uint64_t)(-p) : (uint64_t)p;
	if (a == 0)
		return 0;
	if (e >= 0) {
		/* |a| < 2^55: a shift of 8 or more may leave the range */
		if (e >= 8 && (e >= 63 || (a >> (62 - e)) != 0))
			return neg ? -((int64_t)1 << 62) : ((int64_t)1 << 62);
		q = a << e;
	} else if (-e >= 63) {
		q = 0; /* |value| < 2^55 * 2^-63 < 1/2 */
	} else {
		int sh = -e;
		uint64_t rem = a & ((UINT64_C(1) << sh) - 1);
		uint64_t half = UINT64_C(1) << (sh - 1);

		q = a >> sh;
		if (rem > half || (rem == half && (q & 1)))
			q++;
	}
	return neg ? -(int64_t)q : (int64_t)q;
}

/*
 * v * scale as a double with round-to-odd, for an int32 v: exact when the
 * 55-bit product fits 53 bits, otherwise the dropped bits are folded into
 * the last bit so that the caller's final rounding to any format of at most
 * 51 significand bits (all npusim types) is still correctly rounded.
 *
 * Round-to-odd (Boldo and Melquiond, "Emulation of FMA and correctly
 * rounded sums: proved algorithms using rounding to odd", IEEE Trans.
 * Computers 57(4), 2008): a value kept to p + 2 or more bits with the
 * sticky bit ORed into the last one rounds correctly to p bits later.
 * Here 53 >= 24 + 2, so fp32 and narrower outputs round once, exactly.
 */
static double mul_i32_odd(int32_t v, float scale)
{
	uint32_t bits = num_f32_bits(scale);
	int ex = (int)((bits >> 23) & 0xff);
	int64_t sm = (int64_t)(bits & 0x7fffff);
	int e, sh = 0, neg;
	uint64_t a;

	if (ex == 0xff)
		return (double)v * (double)scale; /* inf/NaN scale */
	if (ex == 0)
		e = -149;
	else {
		sm |= (int64_t)1 << 23;
		e = ex - 150;
	}
	{
		int64_t p = (int64_t)v * sm;

		neg = (p < 0) != (int)(bits >> 31);
		a = p < 0 ? (uint64_t)(-p) : (uint64_t)p;
	}
	while ((a >> sh) >= (UINT64_C(1) << 53))
		sh++;
	if (sh) {
		uint64_t sticky = (a & ((UINT64_C(1) << sh) - 1)) != 0;

		a = (a >> sh) | sticky;
	}
	return (neg ? -1.0 : 1.0) * ldexp((double)a, e + sh);
}

/*
 * One output column's parameters for mout: its bias (if any), the
 * per-column scale (1 without ochan) and the zero point (OZP without
 * ochan).  Read from the opar table (docs/timing.md "mout").
 */
struct mout_col {
	int has_bias;   /* the table holds a bias (ofuse obias) */
	uint32_t bias;  /* accumulator-type bits */
	float cs;       /* per-column scale */
	int32_t zp;     /* zero point added after OSCALE */
};

/* Column n's parameters from the table row (or the defaults). */
static struct mout_col mout_col_get(const struct mtx_cfg *f,
				    const uint8_t *tab, uint32_t n)
{
	struct mout_col p = { 0, 0, 1.0f, f->out_zp };
	const uint8_t *e;

	if (!f->out_fuse || !tab)
		return p;
	e = tab + (size_t)n * mtx_mout_entry_bytes(f->out_fuse);
	if (f->out_fuse & MTX_FUSE_BIAS) {
		p.has_bias = 1;
		p.bias = mtx_get_le32(e);
		e += 4;
	}
	if (f->out_fuse & MTX_FUSE_CHAN) {
		p.cs = num_f32_from_bits(mtx_get_le32(e));
		p.zp = (int32_t)mtx_get_le32(e + 4);
	}
	return p;
}

/*
 * The activations in double (docs/timing.md "mout").  relu maps x < 0 to
 * +0 (-0 and NaN pass); gelu and silu use libm's erf and exp and take
 * their limits at infinity (0 at -inf) instead of inf * 0 = NaN.
 */
static double mout_act(int act, double x)
{
	switch (act) {
	case MTX_ACT_RELU:
		return x < 0 ? 0.0 : x;
	case MTX_ACT_GELU:
		if (isinf(x))
			return x > 0 ? x : 0.0;
		return 0.5 * x * (1.0 + erf(x * 0.70710678118654752440));
	case MTX_ACT_SILU:
		if (isinf(x))
			return x > 0 ? x : 0.0;
		return x / (1.0 + exp(-x));
	default:
		return x;
	}
}

/*
 * mout of one element (docs/timing.md "mout"):
 *   v   = acc + bias[n]            (int32: saturating; fp32: one rounding)
 *   x   = act(v * cs[n])           (cs = 1 without ochan)
 *   out = sat_OTYPE(round_rne(x * OSCALE) + zp)
 * When the activation is none or relu and one of the two scales is 1, the
 * one product is formed exactly and rounded once (integer outputs), or
 * rounded to odd and then once to OTYPE (float outputs).  Otherwise the
 * stages run in binary64: v * cs is exact for an fp32 accumulator (24 x
 * 24 bits) and for |v| < 2^29; x * OSCALE rounds once more unless a scale
 * is 1.  A nonzero zero point is added in double for float outputs.
 */
static uint32_t requant(int acc_type, uint32_t acc_bits, int out_type,
			float scale, int act, const struct mout_col *p)
{
	enum npu_dtype ot = (enum npu_dtype)out_type;
	int fl_out = dtype_is_float(ot);
	double x, y;

	if (acc_type == DT_INT32) {
		int64_t w = (int64_t)(int32_t)acc_bits +
			    (p->has_bias ? (int32_t)p->bias : 0);
		int32_t v = w > INT32_MAX ? INT32_MAX :
			    w < INT32_MIN ? INT32_MIN : (int32_t)w;

		if (act <= MTX_ACT_RELU && (p->cs == 1.0f || scale == 1.0f) &&
		    isfinite(p->cs) && isfinite(scale)) {
			/* pre: relu acts on v itself (cs = 1), before the
			 * product with OSCALE; else on the product v * cs */
			int pre = p->cs == 1.0f;
			int relu = act == MTX_ACT_RELU;
			float s = pre ? scale : p->cs;

			if (relu && pre && v < 0)
				v = 0;
			if (!fl_out) {
				int64_t q = rne_mul_i32(v, s);

				if (relu && !pre && q < 0)
					q = 0;
				return (uint32_t)num_sat_int(ot, q + p->zp);
			}
			y = mul_i32_odd(v, s);
			if (relu && !pre && y < 0)
				y = 0.0;
			return num_encode(ot, y + p->zp, NUM_OVF_SAT);
		}
		x = (double)v * (double)p->cs;
	} else {
		float v = num_f32_from_bits(acc_bits);

		if (p->has_bias) /* bias * 1 is exact: one fp32 rounding */
			v = num_mac_f32(v, num_f32_from_bits(p->bias), 1.0f);
		x = (double)v * (double)p->cs; /* exact: 24 x 24 bits */
	}
	x = mout_act(act, x);
	y = x * (double)scale;
	if (!fl_out && isfinite(y))
		y = num_rne(y); /* round once to an integer */
	return num_encode(ot, y + p->zp, NUM_OVF_SAT);
}

/*
 * mout's result row 'row' into its stream buffer, from the accumulator
 * row and (ofuse) the per-column parameter table captured at their reads.
 * The requantisation stage is not an array operation, so both models
 * compute mout rows here.
 */
void mtx_mout_row(const struct mtx_insn *in, uint32_t row)
{
	const struct mtx_stream *w = &in->st[in->w_st];
	uint8_t *dst = w->buf + (size_t)row * w->bytes;
	const struct mtx_cfg *f = &in->cmd.u.m.cfg;
	const uint8_t *src = in->st[0].buf + (size_t)row * in->st[0].bytes;
	const uint8_t *tab = f->out_fuse ? in->st[2].buf : NULL;
	/* the output channel: in IS the stored row, else the column */
	struct mout_col p = mout_col_get(f, tab, in->df == MTX_IS ? row : 0);
	uint32_t j, cols = in->st[0].bytes / 4;

	for (j = 0; j < cols; j++) {
		/* the output channel is the column, in IS the row */
		if (in->df != MTX_IS)
			p = mout_col_get(f, tab, j);
		num_set_bits((enum npu_dtype)f->out_type, dst, j,
			     requant(in->acc_type, mtx_get_le32(src + 4 * j),
				     f->out_type, f->out_scale, f->out_act,
				     &p));
	}
}
