/*
 * vecmath.c - functional semantics of the vector instructions (vecmath.h).
 *
 * Three layers:
 *   1. the fp32 function units (exp, log, rsqrt, rcp, tanh, gelu, silu):
 *      table lookups plus short polynomials or Newton-Raphson steps in fp32
 *      arithmetic, the way a hardware special-function unit computes them.
 *      The tables are the unit's ROMs; each entry is given as an exact hex
 *      float with the formula it was rounded from.
 *   2. one handler per vector op, exec_<ID>, for one element on the float
 *      (fp32) or integer (int64) path, and the dispatch table that maps
 *      every vector row of isa/opcodes.def to the handler of its base
 *      (vadds runs exec_VADD): nothing else in the file switches on ops.
 *   3. row-level drivers: vm_map, the reduction tree, vm_exec; they follow
 *      the op's kind (where operands come from), never the op itself.
 *
 * Invariants:
 *   - every fp32 operation is a single IEEE binary32 operation rounded to
 *     nearest even: FLT_EVAL_METHOD must be 0 (checked below) and no two
 *     operations are ever fused (FP_CONTRACT off; GCC does not contract in
 *     ISO C mode, clang is told so by the pragma);
 *   - NaN results do not depend on the host: a NaN operand propagates
 *     (first NaN in operand order, quietened) and an invalid operation
 *     yields the default NaN 0x7FC00000 (checked after every operation);
 *   - integer ops never wrap except the 32-bit adders of integer sums.
 */
#include "vecmath.h"

#include <float.h>
#include <math.h>
#include <string.h>

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/*
 * x87 (FLT_EVAL_METHOD 2) would evaluate in 80-bit registers and round
 * twice; SSE on x86-64 and every AArch64 target evaluate float in float.
 */
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "vecmath.c needs fp32 arithmetic evaluated in fp32 (FLT_EVAL_METHOD 0)"
#endif

/* ---- fp32 helpers ------------------------------------------------------- */

#define DEFAULT_NAN 0x7FC00000u /* positive quiet NaN, no payload */

/*
 * fp32 <-> its bits, as num_f32_from_bits / num_f32_bits, here where the
 * compiler sees them: a memcpy of 4 bytes is a register move, and the
 * reduction tree passes every partial sum through them (softmax: 1.7 %
 * fewer instructions than the calls).
 */
static float fb(uint32_t b)
{
	float f;

	memcpy(&f, &b, sizeof f);
	return f;
}

static uint32_t bf(float f)
{
	uint32_t b;

	memcpy(&b, &f, sizeof b);
	return b;
}

/* x != x only for NaN (the build never uses -ffast-math). */
static int isnanf_(float x)
{
	return x != x;
}

/* Sets the quiet bit (bit 22), keeping sign and payload; a no-op if quiet. */
static float quiet(float x)
{
	return fb(bf(x) | 0x00400000u);
}

/*
 * x * 2^k with one rounding (ldexp in double is exact here, the cast rounds).
 * |k| is at most about 150 here, far inside double's exponent range; the
 * cast rounds once into fp32 subnormals too (gradual underflow).
 */
static float scale2(float y, int k)
{
	return (float)ldexp((double)y, k);
}

/* Unbiased exponent and 23-bit fraction of a positive finite nonzero x,
 * normalising subnormals (the unit's leading-zero counter). */
static void split(float x, int *e, uint32_t *frac)
{
	uint32_t b = bf(x) & 0x7FFFFFFFu;
	int ex = (int)(b >> 23);
	uint32_t m = b & 0x7FFFFFu;

	if (ex == 0) { /* subnormal: shift the leading 1 up to bit 23 */
		ex = 1;
		while (!(m & 0x800000u)) {
			m <<= 1;
			ex--;
		}
		m &= 0x7FFFFFu;
	}
	*e = ex - 127;
	*frac = m;
}

/* One fp32 operation with the NaN rule of the file header. */
enum fop { F_ADD, F_SUB, F_MUL, F_DIV };

/*
 * Operand NaNs first (a before b: "first NaN in operand order"), so the
 * host's choice among two NaN operands never shows; then any NaN the
 * operation itself creates (inf - inf, 0 x inf, 0/0) becomes 0x7FC00000.
 */
static float fop(enum fop op, float a, float b)
{
	float r;

	if (isnanf_(a))
		return quiet(a);
	if (isnanf_(b))
		return quiet(b);
	switch (op) {
	case F_ADD: r = a + b; break;
	case F_SUB: r = a - b; break;
	case F_MUL: r = a * b; break;
	case F_DIV: r = a / b; break;
	default: NPU_BUG("fop %d", (int)op);
	}
	return isnanf_(r) ? fb(DEFAULT_NAN) : r;
}

/*
 * IEEE 754-2019 maximum (not maxNum): a NaN operand wins, and +0 is
 * greater than -0, so the result never depends on operand order except
 * for which NaN.
 */
float vm_max_f32(float a, float b)
{
	if (isnanf_(a))
		return quiet(a);
	if (isnanf_(b))
		return quiet(b);
	if (a == b) /* equal, or +0 vs -0: +0 is the larger */
		return signbit(a) ? b : a;
	return a > b ? a : b;
}

float vm_min_f32(float a, float b)
{
	if (isnanf_(a))
		return quiet(a);
	if (isnanf_(b))
		return quiet(b);
	if (a == b)
		return signbit(a) ? a : b;
	return a < b ? a : b;
}

/* ---- exp ---------------------------------------------------------------
 *
 * exp(x) = 2^k * 2^(j/64) * exp(r),   n = rne(x * 64/ln2), j = n mod 64,
 * k = (n - j)/64, r = x - n*ln2/64 with |r| <= ln2/128 (+ rounding).
 * The reduction is Cody-Waite: ln2/64 = HI + LO where HI has 9 significant
 * bits, so n*HI is exact for |n| < 2^15 and x - n*HI is exact (Sterbenz).
 * exp(r) - 1 = r + r^2/2 + r^3/6 (truncation error r^4/24 < 2^-34), and
 * the result is T + T*q so that only the last add rounds at full weight.
 * ROM: exp2_tab[j] = RNE_fp32(2^(j/64)), 64 x 24 bits.
 */
static const float exp2_tab[64] = {
	0x1p+0f, 0x1.02c9a4p+0f, 0x1.059b0ep+0f, 0x1.087452p+0f,
	0x1.0b5586p+0f, 0x1.0e3ec4p+0f, 0x1.11301ep+0f, 0x1.1429aap+0f,
	0x1.172b84p+0f, 0x1.1a35bep+0f, 0x1.1d4874p+0f, 0x1.2063b8p+0f,
	0x1.2387a6p+0f, 0x1.26b456p+0f, 0x1.29e9ep+0f, 0x1.2d285ap+0f,
	0x1.306fep+0f, 0x1.33c08cp+0f, 0x1.371a74p+0f, 0x1.3a7db4p+0f,
	0x1.3dea64p+0f, 0x1.4160a2p+0f, 0x1.44e086p+0f, 0x1.486a2cp+0f,
	0x1.4bfdaep+0f, 0x1.4f9b28p+0f, 0x1.5342b6p+0f, 0x1.56f474p+0f,
	0x1.5ab07ep+0f, 0x1.5e76f2p+0f, 0x1.6247ecp+0f, 0x1.662388p+0f,
	0x1.6a09e6p+0f, 0x1.6dfb24p+0f, 0x1.71f75ep+0f, 0x1.75feb6p+0f,
	0x1.7a1148p+0f, 0x1.7e2f34p+0f, 0x1.82589ap+0f, 0x1.868d9ap+0f,
	0x1.8ace54p+0f, 0x1.8f1aeap+0f, 0x1.93737cp+0f, 0x1.97d82ap+0f,
	0x1.9c4918p+0f, 0x1.a0c668p+0f, 0x1.a5503cp+0f, 0x1.a9e6b6p+0f,
	0x1.ae89fap+0f, 0x1.b33a2cp+0f, 0x1.b7f77p+0f, 0x1.bcc1eap+0f,
	0x1.c199bep+0f, 0x1.c67f12p+0f, 0x1.cb720ep+0f, 0x1.d072d4p+0f,
	0x1.d5818ep+0f, 0x1.da9e6p+0f, 0x1.dfc974p+0f, 0x1.e502eep+0f,
	0x1.ea4afap+0f, 0x1.efa1bep+0f, 0x1.f50766p+0f, 0x1.fa7c18p+0f,
};
#define INV_LN2_64 0x1.715476p+6f   /* RNE_fp32(64/ln2) */
#define LN2_64_HI 0x1.63p-7f        /* 710/2^16, 9 significant bits */
#define LN2_64_LO -0x1.bd0106p-19f  /* RNE_fp32(ln2/64 - HI) */
#define ONE_SIXTH 0x1.555556p-3f
#define ONE_THIRD 0x1.555556p-2f

/*
 * exp(x) = exp_core(x, &k) * 2^k for finite x in [-130, 89]; the result
 * before the exponent is applied lies in [0.99, 2.01], so callers that
 * multiply it further (sigmoid) can apply 2^k last and keep full precision
 * for results that would otherwise pass through an fp32 subnormal.
 */
static float exp_core(float x, int *k)
{
	float t, nf, r, q, T;
	int n, j;

	/*
	 * n = nearest integer of x x 64/ln2, computed RNE through num_rne,
	 * not (int)t, which would truncate toward zero.
	 */
	t = x * INV_LN2_64;
	n = (int)num_rne((double)t); /* |n| <= 12003 < 2^14 */
	/* n mod 64 in 0..63 for negative n too (C's % truncates). */
	j = ((n % 64) + 64) % 64;
	*k = (n - j) / 64;
	nf = (float)n;
	/*
	 * Separate statements: each product and difference is its own
	 * rounded (here exact) fp32 operation, as the hardware does it.
	 */
	r = x - nf * LN2_64_HI;
	r = r - nf * LN2_64_LO;
	q = r * (1.0f + r * (0.5f + r * ONE_SIXTH));
	T = exp2_tab[j];
	return T + T * q;
}

float vm_exp_f32(float x)
{
	float y;
	int k;

	if (isnanf_(x))
		return quiet(x);
	if (x > 89.0f)   /* e^89 > FLT_MAX: +inf (also x = +inf) */
		return fb(0x7F800000u);
	if (x < -104.0f) /* e^-104 < 2^-150: rounds to +0 (also x = -inf) */
		return 0.0f;
	y = exp_core(x, &k);
	return scale2(y, k);
}

/* ---- log ---------------------------------------------------------------
 *
 * x = 2^e * m, m in [1,2).  c = 1 + j/64 with j = m's fraction rounded to 6
 * bits (0..64), so |m/c - 1| <= 1/128.  log x = e*ln2 + log c + log1p(u),
 * u = (m - c) * (1/c) (m - c is exact).  For j >= 32 the ROM holds
 * log(c/2) and e is incremented: then values just below a power of two
 * (x = 0.9999) use c/2 = 1 and keep full relative accuracy instead of
 * cancelling ln2 against log m.  log1p(u) = u - u^2/2 + u^3/3 - u^4/4
 * (truncation u^5/5 < 2^-37).  e*ln2 is split HI + LO, HI with 15
 * significant bits so e*HI is exact.
 * ROMs: log_rcp_tab[j] = RNE_fp32(1/(1+j/64));
 *       log_tab[j] = RNE_fp32(log(1+j/64)) for j < 32,
 *                    RNE_fp32(log((1+j/64)/2)) for j >= 32.
 */
static const float log_rcp_tab[65] = {
	0x1p+0f, 0x1.f81f82p-1f, 0x1.f07c2p-1f, 0x1.e9131ap-1f,
	0x1.e1e1e2p-1f, 0x1.dae608p-1f, 0x1.d41d42p-1f, 0x1.cd8568p-1f,
	0x1.c71c72p-1f, 0x1.c0e07p-1f, 0x1.bacf92p-1f, 0x1.b4e81cp-1f,
	0x1.af286cp-1f, 0x1.a98ef6p-1f, 0x1.a41a42p-1f, 0x1.9ec8eap-1f,
	0x1.99999ap-1f, 0x1.948b1p-1f, 0x1.8f9c18p-1f, 0x1.8acb9p-1f,
	0x1.861862p-1f, 0x1.818182p-1f, 0x1.7d05f4p-1f, 0x1.78a4c8p-1f,
	0x1.745d18p-1f, 0x1.702e06p-1f, 0x1.6c16c2p-1f, 0x1.681682p-1f,
	0x1.642c86p-1f, 0x1.605816p-1f, 0x1.5c9882p-1f, 0x1.58ed24p-1f,
	0x1.555556p-1f, 0x1.51d07ep-1f, 0x1.4e5e0ap-1f, 0x1.4afd6ap-1f,
	0x1.47ae14p-1f, 0x1.446f86p-1f, 0x1.414142p-1f, 0x1.3e22ccp-1f,
	0x1.3b13b2p-1f, 0x1.381382p-1f, 0x1.3521dp-1f, 0x1.323e34p-1f,
	0x1.2f684cp-1f, 0x1.2c9fb4p-1f, 0x1.29e412p-1f, 0x1.27350cp-1f,
	0x1.24924ap-1f, 0x1.21fb78p-1f, 0x1.1f7048p-1f, 0x1.1cf06ap-1f,
	0x1.1a7b96p-1f, 0x1.181182p-1f, 0x1.15b1e6p-1f, 0x1.135c82p-1f,
	0x1.111112p-1f, 0x1.0ecf56p-1f, 0x1.0c9714p-1f, 0x1.0a681p-1f,
	0x1.08421p-1f, 0x1.0624dep-1f, 0x1.041042p-1f, 0x1.020408p-1f,
	0x1p-1f,
};
static const float log_tab[65] = {
	0x0p+0f, 0x1.fc0a8cp-7f, 0x1.f829bp-6f, 0x1.77459p-5f,
	0x1.f0a30cp-5f, 0x1.341d7ap-4f, 0x1.6f0d28p-4f, 0x1.a926d4p-4f,
	0x1.e27076p-4f, 0x1.0d77e8p-3f, 0x1.29553p-3f, 0x1.44d2b6p-3f,
	0x1.5ff308p-3f, 0x1.7ab89p-3f, 0x1.9525aap-3f, 0x1.af3c94p-3f,
	0x1.c8ff7cp-3f, 0x1.e27076p-3f, 0x1.fb9186p-3f, 0x1.0a324ep-2f,
	0x1.1675cap-2f, 0x1.22942p-2f, 0x1.2e8e2cp-2f, 0x1.3a64c6p-2f,
	0x1.4618bcp-2f, 0x1.51aad8p-2f, 0x1.5d1bdcp-2f, 0x1.686c82p-2f,
	0x1.739d8p-2f, 0x1.7eaf84p-2f, 0x1.89a338p-2f, 0x1.947942p-2f,
	-0x1.269622p-2f, -0x1.1bf996p-2f, -0x1.1178e8p-2f, -0x1.071386p-2f,
	-0x1.f991c6p-3f, -0x1.e530fp-3f, -0x1.d1038p-3f, -0x1.bd0874p-3f,
	-0x1.a93ed4p-3f, -0x1.95a5aep-3f, -0x1.823c16p-3f, -0x1.6f0128p-3f,
	-0x1.5bf406p-3f, -0x1.4913d8p-3f, -0x1.365fccp-3f, -0x1.23d712p-3f,
	-0x1.1178e8p-3f, -0x1.fe8914p-4f, -0x1.da7276p-4f, -0x1.b6ac88p-4f,
	-0x1.9335e6p-4f, -0x1.700d3p-4f, -0x1.4d3116p-4f, -0x1.2aa04ap-4f,
	-0x1.08598cp-4f, -0x1.ccb73cp-5f, -0x1.894aa2p-5f, -0x1.466aeep-5f,
	-0x1.0415d8p-5f, -0x1.849252p-6f, -0x1.020566p-6f, -0x1.010158p-7f,
	0x0p+0f,
};
#define LN2_HI 0x1.62e4p-1f        /* ln2 to 15 significant bits */
#define LN2_LO 0x1.7f7d1cp-20f     /* RNE_fp32(ln2 - LN2_HI) */

float vm_log_f32(float x)
{
	float m, c, u, u2, p, ef;
	uint32_t frac;
	int e, j;

	if (isnanf_(x))
		return quiet(x);
	if (x == 0.0f)
		return fb(0xFF800000u); /* -inf for +0 and -0 */
	if (x < 0.0f)
		return fb(DEFAULT_NAN);
	if (x == fb(0x7F800000u))
		return x;
	/*
	 * j: the 23-bit fraction rounded to 6 bits ((frac + 2^16) >> 17),
	 * 0..64; j = 64 means m is just below 2: c = 2, whose ROM entries
	 * are 1/2 and log(2/2) = 0 with e + 1.
	 */
	split(x, &e, &frac);
	j = (int)((frac + (1u << 16)) >> 17);
	m = fb(0x3F800000u | frac);
	if (j >= 32)
		e += 1;
	c = 1.0f + (float)j * 0x1p-6f;
	u = (m - c) * log_rcp_tab[j];
	u2 = u * u;
	p = u + u2 * (-0.5f + u * (ONE_THIRD + u * -0.25f));
	ef = (float)e;
	return ef * LN2_HI + (log_tab[j] + (p + ef * LN2_LO));
}

/* ---- rsqrt and rcp -----------------------------------------------------
 *
 * Seed from a ROM with 9-bit significands indexed by the top 6 fraction
 * bits (and, for rsqrt, the exponent's parity), then two Newton-Raphson
 * steps in fp32:
 *   rsqrt: y' = y * (1.5 - (m/2) * y * y)    (error ~ 1.5 e^2 per step)
 *   rcp:   y' = y * (2 - m * y)              (error ~ e^2 per step)
 * A seed error of about 2^-8 becomes ~2^-15 and then below 2^-24; what is
 * left is the rounding of the fp32 steps (measured in docs/numerics.md).
 * ROMs: rsqrt_seed[p*64 + i] = RNE_9bit(1/sqrt(mid)), mid the midpoint of
 *       [1+i/64, 1+(i+1)/64) scaled by 2 when p = 1 (odd exponent);
 *       rcp_seed[i] = RNE_9bit(1/mid), mid of [1+i/64, 1+(i+1)/64).
 */
static const float rsqrt_seed[128] = {
	0x1.fep-1f, 0x1.fap-1f, 0x1.f6p-1f, 0x1.f3p-1f,
	0x1.efp-1f, 0x1.ebp-1f, 0x1.e8p-1f, 0x1.e4p-1f,
	0x1.e1p-1f, 0x1.dep-1f, 0x1.dbp-1f, 0x1.d7p-1f,
	0x1.d4p-1f, 0x1.d1p-1f, 0x1.cep-1f, 0x1.cbp-1f,
	0x1.c9p-1f, 0x1.c6p-1f, 0x1.c3p-1f, 0x1.cp-1f,
	0x1.bep-1f, 0x1.bbp-1f, 0x1.b8p-1f, 0x1.b6p-1f,
	0x1.b3p-1f, 0x1.b1p-1f, 0x1.afp-1f, 0x1.acp-1f,
	0x1.aap-1f, 0x1.a8p-1f, 0x1.a5p-1f, 0x1.a3p-1f,
	0x1.a1p-1f, 0x1.9fp-1f, 0x1.9dp-1f, 0x1.9bp-1f,
	0x1.99p-1f, 0x1.97p-1f, 0x1.95p-1f, 0x1.93p-1f,
	0x1.91p-1f, 0x1.8fp-1f, 0x1.8dp-1f, 0x1.8bp-1f,
	0x1.89p-1f, 0x1.87p-1f, 0x1.86p-1f, 0x1.84p-1f,
	0x1.82p-1f, 0x1.8p-1f, 0x1.7fp-1f, 0x1.7dp-1f,
	0x1.7bp-1f, 0x1.7ap-1f, 0x1.78p-1f, 0x1.77p-1f,
	0x1.75p-1f, 0x1.74p-1f, 0x1.72p-1f, 0x1.71p-1f,
	0x1.6fp-1f, 0x1.6ep-1f, 0x1.6cp-1f, 0x1.6bp-1f,
	0x1.69p-1f, 0x1.66p-1f, 0x1.63p-1f, 0x1.61p-1f,
	0x1.5ep-1f, 0x1.5bp-1f, 0x1.59p-1f, 0x1.57p-1f,
	0x1.54p-1f, 0x1.52p-1f, 0x1.5p-1f, 0x1.4dp-1f,
	0x1.4bp-1f, 0x1.49p-1f, 0x1.47p-1f, 0x1.45p-1f,
	0x1.43p-1f, 0x1.41p-1f, 0x1.3fp-1f, 0x1.3dp-1f,
	0x1.3bp-1f, 0x1.39p-1f, 0x1.37p-1f, 0x1.36p-1f,
	0x1.34p-1f, 0x1.32p-1f, 0x1.3p-1f, 0x1.2fp-1f,
	0x1.2dp-1f, 0x1.2cp-1f, 0x1.2ap-1f, 0x1.28p-1f,
	0x1.27p-1f, 0x1.25p-1f, 0x1.24p-1f, 0x1.22p-1f,
	0x1.21p-1f, 0x1.1fp-1f, 0x1.1ep-1f, 0x1.1dp-1f,
	0x1.1bp-1f, 0x1.1ap-1f, 0x1.19p-1f, 0x1.17p-1f,
	0x1.16p-1f, 0x1.15p-1f, 0x1.14p-1f, 0x1.12p-1f,
	0x1.11p-1f, 0x1.1p-1f, 0x1.0fp-1f, 0x1.0dp-1f,
	0x1.0cp-1f, 0x1.0bp-1f, 0x1.0ap-1f, 0x1.09p-1f,
	0x1.08p-1f, 0x1.07p-1f, 0x1.06p-1f, 0x1.05p-1f,
	0x1.04p-1f, 0x1.03p-1f, 0x1.02p-1f, 0x1.01p-1f,
};
static const float rcp_seed[64] = {
	0x1.fcp-1f, 0x1.f4p-1f, 0x1.edp-1f, 0x1.e5p-1f,
	0x1.dep-1f, 0x1.d7p-1f, 0x1.d1p-1f, 0x1.cap-1f,
	0x1.c4p-1f, 0x1.bep-1f, 0x1.b8p-1f, 0x1.b2p-1f,
	0x1.acp-1f, 0x1.a7p-1f, 0x1.a1p-1f, 0x1.9cp-1f,
	0x1.97p-1f, 0x1.92p-1f, 0x1.8dp-1f, 0x1.88p-1f,
	0x1.84p-1f, 0x1.7fp-1f, 0x1.7bp-1f, 0x1.76p-1f,
	0x1.72p-1f, 0x1.6ep-1f, 0x1.6ap-1f, 0x1.66p-1f,
	0x1.62p-1f, 0x1.5ep-1f, 0x1.5bp-1f, 0x1.57p-1f,
	0x1.54p-1f, 0x1.5p-1f, 0x1.4dp-1f, 0x1.49p-1f,
	0x1.46p-1f, 0x1.43p-1f, 0x1.4p-1f, 0x1.3dp-1f,
	0x1.3ap-1f, 0x1.37p-1f, 0x1.34p-1f, 0x1.31p-1f,
	0x1.2ep-1f, 0x1.2bp-1f, 0x1.29p-1f, 0x1.26p-1f,
	0x1.23p-1f, 0x1.21p-1f, 0x1.1ep-1f, 0x1.1cp-1f,
	0x1.19p-1f, 0x1.17p-1f, 0x1.15p-1f, 0x1.12p-1f,
	0x1.1p-1f, 0x1.0ep-1f, 0x1.0bp-1f, 0x1.09p-1f,
	0x1.07p-1f, 0x1.05p-1f, 0x1.03p-1f, 0x1.01p-1f,
};

float vm_rsqrt_f32(float x)
{
	float m, h, y, t;
	uint32_t frac;
	int e, odd, i;

	if (isnanf_(x))
		return quiet(x);
	if (x == 0.0f)
		return signbit(x) ? fb(0xFF800000u) : fb(0x7F800000u);
	if (x < 0.0f)
		return fb(DEFAULT_NAN);
	if (x == fb(0x7F800000u))
		return 0.0f;
	split(x, &e, &frac);
	m = fb(0x3F800000u | frac);
	/*
	 * After this e is even, so -e / 2 below is exact; m in [1, 4)
	 * indexes the half of the ROM built for its range.
	 */
	odd = (e % 2) != 0;
	if (odd) { /* make the exponent even: m in [2,4) */
		m = m * 2.0f;
		e -= 1;
	}
	y = rsqrt_seed[odd * 64 + (int)(frac >> 17)];
	h = 0.5f * m;
	for (i = 0; i < 2; i++) {
		t = y * y;
		t = h * t;
		t = 1.5f - t;
		y = y * t;
	}
	/* 1/sqrt(m x 2^e) = y x 2^(-e/2). */
	return scale2(y, -e / 2);
}

float vm_rcp_f32(float x)
{
	float m, y, t;
	uint32_t frac;
	int e, i, neg = signbit(x) != 0;

	if (isnanf_(x))
		return quiet(x);
	if (x == 0.0f)
		return neg ? fb(0xFF800000u) : fb(0x7F800000u);
	if (fabsf(x) == fb(0x7F800000u))
		return neg ? -0.0f : 0.0f;
	split(x, &e, &frac);
	m = fb(0x3F800000u | frac);
	/* The top 6 fraction bits select the seed interval. */
	y = rcp_seed[frac >> 17];
	for (i = 0; i < 2; i++) {
		t = m * y;
		t = 2.0f - t;
		y = y * t;
	}
	/*
	 * 1/(m x 2^e) = y x 2^-e, rounded once: 1/x of a large x becomes a
	 * subnormal or 0; 1/x of a subnormal x overflows to inf.
	 */
	y = scale2(y, -e);
	return neg ? -y : y;
}

/* ---- tanh, sigmoid, gelu, silu -----------------------------------------
 *
 * tanh: |x| < 2^-12: x (error x^2/3 < 2^-25 relative);
 *       |x| < 0.55:  x + x * P(x^2), P = the Taylor series to x^17
 *                    (truncation < 2^-27 relative at 0.55);
 *       |x| < 10:    1 - 2 * rcp(exp(2|x|) + 1), sign restored;
 *       otherwise:   +-1 (tanh rounds to 1 in fp32 from |x| > 9.01).
 * sigmoid(g) = rcp(1 + exp(-g)) for g >= 0 and s * rcp(1 + s), s = exp(g),
 *       for g < 0, so exp never overflows (see mul_sigmoid).
 * silu(x) = x * sigmoid(x).
 * gelu: the tanh form 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))),
 *       evaluated through the identity 0.5 (1 + tanh(u)) = sigmoid(2u):
 *       gelu(x) = x * sigmoid(x * (K0 + K1 x^2)), K0 = 2 sqrt(2/pi),
 *       K1 = K0 * 0.044715.  Unlike 1 + tanh(u) this does not cancel for
 *       negative x, and it shares the silu datapath.
 */
#define TANH_C3 -0x1.555556p-2f   /* RNE_fp32(-1/3) */
#define TANH_C5 0x1.111112p-3f    /* 2/15 */
#define TANH_C7 -0x1.ba1ba2p-5f   /* -17/315 */
#define TANH_C9 0x1.664f48p-6f    /* 62/2835 */
#define TANH_C11 -0x1.226e36p-7f  /* -1382/155925 */
#define TANH_C13 0x1.d6d3dp-9f    /* 21844/6081075 */
#define TANH_C15 -0x1.7da364p-10f /* -929569/638512875 */
#define TANH_C17 0x1.355824p-11f  /* 6404582/10854718875 */
#define GELU_K0 0x1.988454p+0f    /* RNE_fp32(2 sqrt(2/pi)) */
#define GELU_K1 0x1.2444f2p-4f    /* RNE_fp32(2 sqrt(2/pi) 0.044715) */

float vm_tanh_f32(float x)
{
	float a = fabsf(x), x2, p, y;

	if (isnanf_(x))
		return quiet(x);
	if (a < 0x1p-12f)
		return x;
	if (a < 0.55f) {
		x2 = x * x;
		p = TANH_C15 + x2 * TANH_C17;
		p = TANH_C13 + x2 * p;
		p = TANH_C11 + x2 * p;
		p = TANH_C9 + x2 * p;
		p = TANH_C7 + x2 * p;
		p = TANH_C5 + x2 * p;
		p = TANH_C3 + x2 * p;
		p = x2 * p;
		return x + x * p;
	}
	/*
	 * 1 - 2/(e^2a + 1): no cancellation problem here, since
	 * |x| >= 0.55 keeps tanh away from 0.
	 */
	if (a < 10.0f)
		y = 1.0f - 2.0f * vm_rcp_f32(vm_exp_f32(2.0f * a) + 1.0f);
	else
		y = 1.0f;
	return signbit(x) ? -y : y;
}

/*
 * x * sigmoid(g).  For g < 0 the product x * r * e^g is formed from
 * exp_core's unscaled result and 2^k is applied last, so a tiny result
 * (silu(-90) ~ -1e-37) is rounded once instead of being built from a
 * subnormal e^g that has already lost its low bits.
 */
static float mul_sigmoid(float x, float g)
{
	float s, r, ym;
	int k;

	if (g >= 0.0f) {
		s = vm_exp_f32(-g);
		r = vm_rcp_f32(1.0f + s);
		return x * r;
	}
	/* Below -130 the result rounds to a zero signed like x (-0 for x < 0). */
	if (g < -130.0f) /* |x| e^g < 2^-150 for every |x| this can pair with */
		return x * 0.0f;
	ym = exp_core(g, &k);
	s = scale2(ym, k);
	r = vm_rcp_f32(1.0f + s);
	return scale2((x * r) * ym, k);
}

float vm_silu_f32(float x)
{
	if (isnanf_(x))
		return quiet(x);
	if (x == fb(0xFF800000u)) /* -inf * 0 would be NaN; the limit is -0 */
		return -0.0f;
	return mul_sigmoid(x, x);
}

float vm_gelu_f32(float x)
{
	float x2, g;

	if (isnanf_(x))
		return quiet(x);
	if (x == fb(0xFF800000u))
		return -0.0f;
	x2 = x * x;
	g = x * (GELU_K0 + GELU_K1 * x2);
	return mul_sigmoid(x, g);
}

/* ---- rounding into the destination --------------------------------------- */

static int is_fp8(enum npu_dtype t)
{
	return t == DT_FP8E4M3 || t == DT_FP8E5M2;
}

/*
 * fp32 -> double without relying on the host's NaN conversion.
 * A NaN keeps its sign and payload left-aligned, with the quiet bit set,
 * so num_encode can carry the leading payload bits into the destination
 * (fp32 0x7FC12345 -> fp16 0x7E09, docs/numerics.md).
 */
static double f2d(float f)
{
	uint32_t b = bf(f);
	uint64_t d;
	double r;

	if (!isnanf_(f))
		return (double)f; /* exact */
	d = (uint64_t)(b >> 31) << 63 | 0x7FF8000000000000ull |
	    (uint64_t)(b & 0x7FFFFFu) << 29;
	memcpy(&r, &d, sizeof r);
	return r;
}

/* Round an fp32 result into type t (float: RNE; int: RNE + saturate). */
static uint32_t enc_f(enum npu_dtype t, float f, const struct vm_cfg *c)
{
	if (t == DT_FP32)
		return bf(f);
	return num_encode(t, f2d(f), is_fp8(t) ? c->fp8_ovf : NUM_OVF_IEEE);
}

/* ---- per-op semantics: one handler per vector row of isa/opcodes.def ------
 *
 * A handler computes one element: what value it takes, not where its
 * operands come from.  That is the op's kind (opcodes.def VK_x), which
 * vm_map and vm_exec follow, so a variant that differs from its base only
 * in where an operand comes from (vadds: s2 is x[rs2]) runs its base's
 * handler (opcodes.def BASE).  For a reduction the handler is one node of
 * the tree and a, b are two partial results (see vm_red below).  Families
 * of one shape are written by a macro each (VM_BIN, VM_SFU, VM_BITS,
 * VM_RED), as control.c writes its ALU, load and branch handlers.
 */
struct vm_el {
	uint32_t a;  /* s1's element (0 when the kind reads no s1) */
	uint32_t b;  /* s2's element, or the scalar (kind SCALAR) */
	uint32_t s;  /* s3's element (kind SELECT) */
	uint64_t r;  /* the element's row in the tile (viota) */
	uint64_t i;  /* its index in the row (viota) */
};

/* The bits of the element in the op's destination type. */
typedef uint32_t vm_exec_fn(const struct vm_cfg *c, const struct vm_el *e);

/*
 * The two paths of the file header, on TYPE (c->type) elements: an exact
 * int64 (integer types) or an exact fp32 (float types, num_decode_f32).
 */
static int is_int(const struct vm_cfg *c)
{
	return !dtype_is_float(c->type);
}

static int64_t ival(const struct vm_cfg *c, uint32_t bits)
{
	return num_sext(bits, dtype_bits(c->type));
}

static float fval(const struct vm_cfg *c, uint32_t bits)
{
	return num_decode_f32(c->type, bits);
}

/* An integer result (in TYPE's range) as TYPE's two's-complement bits. */
static uint32_t ibits(const struct vm_cfg *c, int64_t v)
{
	return (uint32_t)((uint64_t)v & ((1ull << dtype_bits(c->type)) - 1));
}

/* An fp32 result, rounded into TYPE. */
static uint32_t fbits(const struct vm_cfg *c, float f)
{
	return enc_f(c->type, f, c);
}

/* Truncating; x/0 saturates toward x's sign, 0/0 = 0, INT_MIN/-1 saturates. */
static int64_t div_sat(enum npu_dtype t, int64_t a, int64_t b)
{
	if (b == 0)
		return a > 0 ? num_sat_int(t, INT64_MAX)
		     : a < 0 ? num_sat_int(t, INT64_MIN) : 0;
	return num_sat_int(t, a / b);
}

/*
 * Binary ops: iexpr on the integer path (a, b exact int64 TYPE values;
 * + - * cannot overflow before num_sat_int clamps them, |a*b| < 2^62),
 * fexpr on the float path (x, y exact fp32, one rounding).  Compares give
 * 1 or 0 in TYPE, a NaN compares false; floats' min/max are IEEE 754-2019
 * minimum/maximum.
 */
#define VM_BIN(id, iexpr, fexpr)                                             \
	static uint32_t exec_##id(const struct vm_cfg *c,                    \
				  const struct vm_el *e)                     \
	{                                                                    \
		if (is_int(c)) {                                             \
			int64_t a = ival(c, e->a), b = ival(c, e->b);        \
									     \
			return ibits(c, iexpr);                              \
		} else {                                                     \
			float x = fval(c, e->a), y = fval(c, e->b);          \
									     \
			return fbits(c, fexpr);                              \
		}                                                            \
	}
VM_BIN(VADD,   num_sat_int(c->type, a + b), fop(F_ADD, x, y))
VM_BIN(VSUB,   num_sat_int(c->type, a - b), fop(F_SUB, x, y))
VM_BIN(VMUL,   num_sat_int(c->type, a * b), fop(F_MUL, x, y))
VM_BIN(VDIV,   div_sat(c->type, a, b),      fop(F_DIV, x, y))
VM_BIN(VMIN,   a < b ? a : b,               vm_min_f32(x, y))
VM_BIN(VMAX,   a > b ? a : b,               vm_max_f32(x, y))
VM_BIN(VCMPEQ, a == b,                      x == y ? 1.0f : 0.0f)
VM_BIN(VCMPLT, a < b,                       x < y ? 1.0f : 0.0f)
VM_BIN(VCMPLE, a <= b,                      x <= y ? 1.0f : 0.0f)
#undef VM_BIN

/*
 * Floats: sign-bit operations, NaNs included (IEEE 754 5.5.1).  Integers
 * saturate: -(-128) is 127 in int8.
 */
static uint32_t exec_VABS(const struct vm_cfg *c, const struct vm_el *e)
{
	if (!is_int(c))
		return e->a & ~(1u << (dtype_bits(c->type) - 1));
	return num_encode(c->type, fabs((double)ival(c, e->a)), NUM_OVF_SAT);
}

static uint32_t exec_VNEG(const struct vm_cfg *c, const struct vm_el *e)
{
	if (!is_int(c))
		return e->a ^ (1u << (dtype_bits(c->type) - 1));
	return num_encode(c->type, -(double)ival(c, e->a), NUM_OVF_SAT);
}

/* The fp32 function units, on every type (rounded back into TYPE). */
#define VM_SFU(id, fn)                                                       \
	static uint32_t exec_##id(const struct vm_cfg *c,                    \
				  const struct vm_el *e)                     \
	{                                                                    \
		return fbits(c, fn(fval(c, e->a)));                          \
	}
VM_SFU(VEXP,   vm_exp_f32)
VM_SFU(VLOG,   vm_log_f32)
VM_SFU(VRSQRT, vm_rsqrt_f32)
VM_SFU(VRCP,   vm_rcp_f32)
VM_SFU(VTANH,  vm_tanh_f32)
VM_SFU(VGELU,  vm_gelu_f32)
VM_SFU(VSILU,  vm_silu_f32)
#undef VM_SFU

static uint32_t exec_VBCAST(const struct vm_cfg *c, const struct vm_el *e)
{
	(void)e;
	return c->scalar;
}

/* i + r * step, exact in double for every index a tile can have (< 2^53). */
static uint32_t exec_VIOTA(const struct vm_cfg *c, const struct vm_el *e)
{
	return num_encode(c->type, (double)e->i + (double)e->r * (double)c->step,
			  NUM_OVF_SAT);
}

/* Nonzero test of a select mask element (floats: -0 is zero, NaN is not). */
static int mask_true(enum npu_dtype t, uint32_t bits)
{
	if (dtype_is_float(t)) {
		uint32_t sign = 1u << (dtype_bits(t) - 1);
		return (bits & (sign - 1)) != 0;
	}
	return bits != 0;
}

static uint32_t exec_VSEL(const struct vm_cfg *c, const struct vm_el *e)
{
	return mask_true(c->type, e->a) ? e->b : e->s;
}

/* The exact value, one rounding into OTYPE. */
static uint32_t exec_VCVT(const struct vm_cfg *c, const struct vm_el *e)
{
	return num_encode(c->out_type, num_decode(c->type, e->a),
			  is_fp8(c->out_type) ? c->fp8_ovf : NUM_OVF_IEEE);
}

/* q = RNE_fp32(x / SCALE); out = sat(rne(q) + ZP); NaN -> ZP */
static uint32_t exec_VQUANT(const struct vm_cfg *c, const struct vm_el *e)
{
	float q = fop(F_DIV, fval(c, e->a), c->scale);

	/*
	 * For a float OTYPE a NaN q stays NaN (num_rne passes it) and is
	 * encoded as NaN; only integer outputs map it to ZP.
	 */
	if (isnanf_(q) && !dtype_is_float(c->out_type))
		return num_encode(c->out_type, (double)c->zp, NUM_OVF_SAT);
	return num_encode(c->out_type, num_rne(f2d(q)) + (double)c->zp,
			  is_fp8(c->out_type) ? c->fp8_ovf : NUM_OVF_IEEE);
}

/* (x - ZP) exact, to fp32 (RNE), times SCALE in fp32 */
static uint32_t exec_VDEQUANT(const struct vm_cfg *c, const struct vm_el *e)
{
	double v = num_decode(c->type, e->a) - (double)c->zp;
	float x = fb(num_encode(DT_FP32, v, NUM_OVF_IEEE));

	return enc_f(c->out_type, fop(F_MUL, x, c->scale), c);
}

/*
 * Operations on the elements' bits in TYPE (any type).  Data movement
 * returns the source bits untouched (no canonicalisation of NaNs or -0):
 * vmov, and in their own shapes vbrow, vtrans, vgather and vscatter
 * (their base).
 */
#define VM_BITS(id, expr)                                                    \
	static uint32_t exec_##id(const struct vm_cfg *c,                    \
				  const struct vm_el *e)                     \
	{                                                                    \
		uint32_t a = e->a, b = e->b;                                 \
									     \
		(void)c;                                                     \
		(void)b;                                                     \
		return expr;                                                 \
	}
VM_BITS(VMOV, a)
VM_BITS(VAND, a & b)
VM_BITS(VOR,  a | b)
VM_BITS(VXOR, a ^ b)
VM_BITS(VNOT, ~a & (uint32_t)((1ull << dtype_bits(c->type)) - 1))
#undef VM_BITS

/*
 * vshl/vshr on an integer type of w bits: a sign-extended, shifted by
 * b's value (sign-extended: a negative count shifts the other way), the
 * result's low w bits.  Counts of w or more: 0 to the left, the sign to
 * the right.  Float types are refused when the instruction is accepted.
 */
static uint32_t shift_bits(const struct vm_cfg *c, const struct vm_el *e,
			   int left)
{
	int w = dtype_bits(c->type);
	int64_t x = ival(c, e->a), n = ival(c, e->b), r;

	if (n < 0) {
		left = !left;
		n = -n;
	}
	if (left)
		r = n >= w ? 0 : (int64_t)((uint64_t)x << n);
	else
		r = n >= w ? (x < 0 ? -1 : 0) : x >> n;
	return ibits(c, r);
}

static uint32_t exec_VSHL(const struct vm_cfg *c, const struct vm_el *e)
{
	return shift_bits(c, e, 1);
}

static uint32_t exec_VSHR(const struct vm_cfg *c, const struct vm_el *e)
{
	return shift_bits(c, e, 0);
}

/*
 * Reduction nodes: a and b are partial results of the tree, as fp32 bits
 * (float types) or 32-bit integers (integer types: every leaf is a TYPE
 * value, at most 32 bits).  Float sums round in fp32 at every node;
 * integer sums use a 32-bit wrapping adder (modulo 2^32, so the result is
 * independent of the tree's shape: addition mod 2^32 is associative).
 */
#define VM_RED(id, iexpr, fexpr)                                             \
	static uint32_t exec_##id(const struct vm_cfg *c,                    \
				  const struct vm_el *e)                     \
	{                                                                    \
		if (is_int(c)) {                                             \
			uint32_t a = e->a, b = e->b;                         \
									     \
			return iexpr;                                        \
		} else {                                                     \
			float x = fb(e->a), y = fb(e->b);                    \
									     \
			return bf(fexpr);                                    \
		}                                                            \
	}
VM_RED(VREDSUM, a + b,                                     fop(F_ADD, x, y))
VM_RED(VREDMAX, num_sext(a, 32) > num_sext(b, 32) ? a : b, vm_max_f32(x, y))
VM_RED(VREDMIN, num_sext(a, 32) < num_sext(b, 32) ? a : b, vm_min_f32(x, y))
#undef VM_RED

/*
 * The dispatch table, expanded from opcodes.def: each vector row runs
 * exec_<BASE>.  A row whose base has no handler does not compile
 * (exec_<BASE> undeclared), a handler no row names neither (unused static
 * function under -Werror); rows of other units leave a NULL.
 */
#define VM_ROW_UNIT_VEC(...) __VA_ARGS__
#define VM_ROW_UNIT_CTL(...)
#define VM_ROW_UNIT_CFG(...)
#define VM_ROW_UNIT_SYNC(...)
#define VM_ROW_UNIT_MTX(...)
#define VM_ROW_UNIT_DMA(...)
#define VM_ROW_UNIT_MARK(...)
static vm_exec_fn *const vm_exec_fns[ISA_N_OPS] = {
#define OP(id, mn, opc, fmt, unit, flags, lat, vk, base, sem, doc) \
	VM_ROW_##unit([ISA_OP_##id] = exec_##base,)
#include "../../isa/opcodes.def"
};
#undef VM_ROW_UNIT_VEC
#undef VM_ROW_UNIT_CTL
#undef VM_ROW_UNIT_CFG
#undef VM_ROW_UNIT_SYNC
#undef VM_ROW_UNIT_MTX
#undef VM_ROW_UNIT_DMA
#undef VM_ROW_UNIT_MARK

/* ---- operand types ---------------------------------------------------------- */

enum npu_dtype vm_elem_type(enum isa_vetype e, enum npu_dtype type,
			    enum npu_dtype out_type)
{
	switch (e) {
	case ISA_VET_TYPE: return type;
	case ISA_VET_OTYPE: return out_type;
	case ISA_VET_INT32: return DT_INT32;
	}
	return type; /* not reached: the switch names every enum isa_vetype */
}

/* The d column of the op's kind: OTYPE for conversions and reductions. */
enum npu_dtype vm_dst_type(enum isa_op op, const struct vm_cfg *c)
{
	return vm_elem_type(isa_vkind_info[vm_kind_of(op)].opnd[ISA_VS_D].type,
			    c->type, c->out_type);
}

/* The s<k> column: INT32 for the index tile (s2) of vgather/vscatter. */
enum npu_dtype vm_src_type(enum isa_op op, const struct vm_cfg *c, int k)
{
	return vm_elem_type(isa_vkind_info[vm_kind_of(op)].opnd[k - 1].type,
			    c->type, c->out_type);
}

/*
 * Element i of every source is read before element i of d is written,
 * which is what makes exact in-place operation (d == s1) safe.  The kind
 * says which operands an element has; the handler what it makes of them.
 */
void vm_map(enum isa_op op, const struct vm_cfg *c, struct vm_at at,
	    uint64_t n, uint8_t *d, uint64_t di, struct vm_src s1,
	    struct vm_src s2, struct vm_src s3)
{
	vm_exec_fn *f = vm_exec_fns[op];
	enum vm_kind k = vm_kind_of(op);
	enum npu_dtype st = c->type, dt = vm_dst_type(op, c);
	struct vm_el e = { 0, 0, 0, at.r, at.i };
	uint64_t i;

	for (i = 0; i < n; i++, e.i++) {
		if (k != VM_K_BCAST)
			e.a = num_get_bits(st, s1.p, s1.i + i);
		if (k == VM_K_BIN || k == VM_K_SELECT)
			e.b = num_get_bits(st, s2.p, s2.i + i);
		else if (k == VM_K_SCALAR)
			e.b = c->scalar;
		if (k == VM_K_SELECT)
			e.s = num_get_bits(st, s3.p, s3.i + i);
		num_set_bits(dt, d, di + i, f(c, &e));
	}
}

/* ---- reductions ----------------------------------------------------------- */

void vm_red_init(struct vm_red *r, enum isa_op op, enum npu_dtype type,
		 int lanes)
{
	memset(r, 0, sizeof *r);
	r->op = op;
	r->type = type;
	r->lanes = lanes < 1 ? 1 : lanes;
}

/* A partial result of the tree (vm_red.v's form), or nothing (empty slot). */
struct rv {
	int present; /* 0: every slot of this subtree is empty */
	uint32_t v;  /* fp32 bits or a 32-bit integer */
};

/* One node of the tree: the op's handler; an empty side passes the other
 * through.  a is the left side (NaNs propagate in operand order). */
static struct rv red_node(vm_exec_fn *f, const struct vm_cfg *c,
			  struct rv a, struct rv b)
{
	struct vm_el e = { a.v, b.v, 0, 0, 0 };

	if (!b.present)
		return a;
	if (!a.present)
		return b;
	a.v = f(c, &e);
	return a;
}

/* Tree over slots [lo, lo+size) (size a power of two); elements < n present. */
static struct rv red_tree(vm_exec_fn *f, const struct vm_cfg *c,
			  struct vm_src s, uint32_t n, uint32_t lo,
			  uint32_t size)
{
	struct rv v = { 0, 0 };
	uint32_t bits;

	if (lo >= n)
		return v;
	if (size == 1) {
		bits = num_get_bits(c->type, s.p, s.i + lo);
		v.present = 1;
		v.v = is_int(c) ? (uint32_t)ival(c, bits) : bf(fval(c, bits));
		return v;
	}
	/*
	 * Recursion depth log2(size) <= 12 for 4096 lanes; slots at or past
	 * n return "empty" at once, so a partial group costs its elements.
	 */
	return red_node(f, c, red_tree(f, c, s, n, lo, size / 2),
			red_tree(f, c, s, n, lo + size / 2, size / 2));
}

void vm_red_group(struct vm_red *r, struct vm_src src, uint32_t n)
{
	/* the handlers read only the source type */
	struct vm_cfg c = { .type = r->type };
	vm_exec_fn *f = vm_exec_fns[r->op];
	uint32_t size = 1;
	struct rv g, acc = { 1, r->v };

	/* The tree spans the next power of two >= lanes (empty slots pad). */
	while (size < (uint32_t)r->lanes)
		size *= 2;
	g = red_tree(f, &c, src, n, 0, size);
	if (!g.present)
		return;
	r->v = r->n_groups == 0 ? g.v : red_node(f, &c, acc, g).v;
	r->n_groups++;
}

uint32_t vm_red_result(const struct vm_red *r, const struct vm_cfg *c)
{
	/* An empty row (LEN 0) reduces to 0 in OTYPE. */
	if (r->n_groups == 0)
		return num_encode(c->out_type, 0.0, NUM_OVF_SAT);
	if (dtype_is_float(r->type))
		return enc_f(c->out_type, fb(r->v), c);
	return num_encode(c->out_type, (double)num_sext(r->v, 32),
			  is_fp8(c->out_type) ? c->fp8_ovf : NUM_OVF_IEEE);
}

uint32_t vm_reduce(enum isa_op op, const struct vm_cfg *c, int lanes,
		   uint64_t n, struct vm_src src)
{
	struct vm_red r;
	uint64_t i;

	vm_red_init(&r, op, c->type, lanes);
	for (i = 0; i < n; i += (uint64_t)r.lanes) {
		uint64_t g = n - i < (uint64_t)r.lanes ? n - i : (uint64_t)r.lanes;
		struct vm_src s = { src.p, src.i + i };

		vm_red_group(&r, s, (uint32_t)g);
	}
	return vm_red_result(&r, c);
}

/* ---- whole instructions ------------------------------------------------- */

/* E.g. 5 int4 elements: 3 bytes (dtype_bytes rounds up to a byte). */
uint64_t vm_row_bytes(enum npu_dtype t, uint64_t stride, uint32_t len)
{
	return stride ? stride : dtype_bytes(t, len);
}

/* Row r of a tile in bytes from base (see vm_row_bytes). */
static uint64_t row_off(enum npu_dtype t, uint64_t stride, uint64_t r,
			uint32_t len)
{
	return r * vm_row_bytes(t, stride, len);
}

/* Source operand row r, or a NULL source if the op does not read it. */
static struct vm_src srow(const uint8_t *base, enum npu_dtype t,
			  uint64_t stride, uint64_t r, uint32_t len)
{
	struct vm_src s = { NULL, 0 };

	if (base)
		s.p = base + row_off(t, stride, r, len);
	return s;
}

/* vtrans, vgather and vscatter copy bits as vmov does (their base); the
 * kind alone says where each element goes. */
int vm_exec(enum isa_op op, const struct vm_cfg *c, const struct vm_tile *t,
	    int64_t *bad_index)
{
	enum vm_kind k = vm_kind_of(op);
	enum npu_dtype st = c->type, dt = vm_dst_type(op, c);
	enum npu_dtype t2 = vm_src_type(op, c, 2);
	uint64_t r, j;
	struct vm_src a, b, s;
	struct vm_at at;
	uint8_t *d;

	for (r = 0; r < t->rows; r++) {
		a = srow(t->s1, st, t->s1_stride, r, t->len);
		b = srow(t->s2, t2, t->s2_stride, r, t->len);
		/* s3 (vsel's third source) shares ss2 with s2 (vset doc). */
		s = srow(t->s3, st, t->s2_stride, r, t->len);
		at.r = r;
		at.i = 0;
		switch (k) {
		case VM_K_REDUCE:
			/* one result per row: a destination "row" of 1 element */
			d = t->d + row_off(dt, t->d_stride, r, 1);
			num_set_bits(dt, d, 0,
				     vm_reduce(op, c, t->lanes, t->len, a));
			break;
		case VM_K_TRANS:
			/* source row r becomes destination column r */
			for (j = 0; j < t->len; j++) {
				d = t->d + row_off(st, t->d_stride, j, t->rows);
				num_set_bits(st, d, r, num_get_bits(st, a.p, j));
			}
			break;
		case VM_K_GATHER:
			d = t->d + row_off(st, t->d_stride, r, t->len);
			for (j = 0; j < t->len; j++) {
				int64_t x = num_sext(num_get_bits(DT_INT32, b.p, j), 32);

				/*
				 * Checked per element: a bad index stops the row
				 * with the earlier elements already written.
				 */
				if (x < 0 || (uint64_t)x >= t->s1_elems) {
					*bad_index = x;
					return NPU_ERANGE;
				}
				num_set_bits(st, d, j,
					     num_get_bits(st, t->s1, (uint64_t)x));
			}
			break;
		case VM_K_SCATTER:
			for (j = 0; j < t->len; j++) {
				int64_t x = num_sext(num_get_bits(DT_INT32, b.p, j), 32);

				if (x < 0 || (uint64_t)x >= t->d_elems) {
					*bad_index = x;
					return NPU_ERANGE;
				}
				/* A repeated index: the later element wins. */
				num_set_bits(st, t->d, (uint64_t)x,
					     num_get_bits(st, a.p, j));
			}
			break;
		case VM_K_BROW:
			/* every destination row is source row 0 */
			d = t->d + row_off(st, t->d_stride, r, t->len);
			vm_map(op, c, at, t->len, d, 0,
			       srow(t->s1, st, 0, 0, t->len), b, s);
			break;
		case VM_K_BIN: case VM_K_SCALAR: case VM_K_UNARY:
		case VM_K_SELECT: case VM_K_CONVERT: case VM_K_BCAST:
			/* element-wise: d[r][i] = f(...[r][i]) */
			d = t->d + row_off(dt, t->d_stride, r, t->len);
			vm_map(op, c, at, t->len, d, 0, a, b, s);
			break;
		case VM_K_NONE:
			NPU_BUG("%s is not a vector op", isa_op_info[op].name);
		}
	}
	return 0;
}
