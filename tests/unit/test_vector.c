/*
 * test_vector.c - the vector unit: values of every instruction on every
 * type, and timing against the formulas of docs/timing.md "Vector unit".
 *
 * A small driver unit plays the control unit: it hands a list of commands
 * to vec_port as fast as can_accept allows and records the cycles.  Values
 * are checked two ways: against vm_exec (the untimed whole-instruction
 * semantics: proves the lane grouping, strides, buffers and write-back
 * move every element exactly) and against a per-element C reference
 * written here (double arithmetic rounded once, libm with the documented
 * tolerance for the function units, an exact or bounded reference for
 * reductions).
 */
#define _GNU_SOURCE /* M_PI */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../arch/arch.h"
#include "../../isa/isa.h"
#include "../../sim/mem/sram.h"
#include "../../sim/engine/unit.h"
#include "../../sim/core/vecmath.h"
#include "../../sim/core/vector.h"
#include "testutil.h"

/* ---- harness ------------------------------------------------------------- */

#define MAX_CMDS 32

/* Stand-in for the control unit: dispatches cmds in order. */
struct drv {
	struct unit u;
	struct unit *vec;
	struct tile_cmd cmds[MAX_CMDS];
	int n, next;
	cycle_t acc_at[MAX_CMDS];   /* cycle each command was accepted */
	cycle_t idle_at;            /* first cycle the unit was seen idle after the last */
	int err;                    /* accept's error, if any */
};

static int drv_event(struct unit *u, const struct ev *ev)
{
	struct drv *d = (struct drv *)u;
	int rc;

	(void)ev;
	while (d->next < d->n && vec_port.can_accept(d->vec)) {
		d->acc_at[d->next] = eng_now(u->eng);
		rc = vec_port.accept(d->vec, &d->cmds[d->next]);
		d->next++;
		if (rc) {
			d->err = rc;
			return rc;
		}
	}
	if (d->next == d->n && vec_port.idle(d->vec) && !d->idle_at)
		d->idle_at = eng_now(u->eng);
	return 0;
}

static void drv_destroy(struct unit *u)
{
	(void)u; /* lives in the test's struct */
}

static const struct unit_ops drv_ops = {
	.kind = UNIT_OTHER,
	.on_event = drv_event,
	.destroy = drv_destroy,
};

/* Everything one test needs. */
struct rig {
	eng *e;
	struct arch a;
	sram *spm, *acc;
	struct drv d;
	struct diag dg;
	int hog;            /* a competing requestor on the scratchpad, or -1 */
};

struct rig_opts {
	int lanes, banks, width, ports, lat, arb, inflight, fp8_sat;
	int hog;            /* register a requestor before the vector unit */
};

static const struct rig_opts default_opts = {
	16, 8, 16, 1, 1, SRAM_ARB_RR, 16, 1, 0
};

static void rig_init(struct rig *r, const struct rig_opts *o)
{
	struct sram_geom g;
	struct tile_listener l;

	memset(r, 0, sizeof(*r));
	ck_assert_int_eq(arch_init_defaults(&r->a), 0);
	r->a.v[P_VEC_LANES].i = o->lanes;
	r->a.v[P_VEC_INFLIGHT].i = o->inflight;
	r->a.v[P_VEC_FP8_SAT].i = o->fp8_sat;
	r->e = eng_new();
	ck_assert_ptr_nonnull(r->e);
	diag_init(&r->dg, NULL);
	eng_set_diag(r->e, &r->dg);
	memset(&g, 0, sizeof(g));
	g.bytes = 1 << 20;
	g.banks = o->banks;
	g.bank_width = o->width;
	g.ports = o->ports;
	g.latency = o->lat;
	g.arb = (enum sram_arb)o->arb;
	r->spm = sram_new(r->e, 0, "core0.scratchpad", &g);
	g.bytes = 1 << 18;
	r->acc = sram_new(r->e, 0, "core0.accumulator", &g);
	ck_assert_ptr_nonnull(r->spm);
	ck_assert_ptr_nonnull(r->acc);
	r->hog = o->hog ? sram_add_requestor(r->spm, "hog") : -1;
	unit_init(&r->d.u, &drv_ops, r->e, 0, "driver");
	ck_assert_int_eq(eng_add_unit(r->e, &r->d.u), 0);
	l.unit = &r->d.u;
	l.kind = 1;
	r->d.vec = vec_new(r->e, &r->a, 0, sram_target(r->spm), sram_target(r->acc), &l);
	ck_assert_ptr_nonnull(r->d.vec);
}

static void rig_free(struct rig *r)
{
	eng_free(r->e);
	arch_free(&r->a);
}

/* A vector command with dense fp32-free defaults. */
static struct tile_cmd vcmd(enum isa_op op, enum npu_dtype t, uint32_t rows,
			    uint32_t len, uint64_t d, uint64_t s1, uint64_t s2)
{
	struct tile_cmd c;

	memset(&c, 0, sizeof(c));
	c.op = (int)op;
	c.pc = 0x100;
	c.u.v.op = (int)op;
	c.u.v.d = d;
	c.u.v.s1 = s1;
	c.u.v.s2 = s2;
	c.u.v.cfg.type = (int)t;
	c.u.v.cfg.out_type = (int)t;
	c.u.v.cfg.rows = rows;
	c.u.v.cfg.len = len;
	c.u.v.cfg.s_mem = MEM_SPM;
	c.u.v.cfg.d_mem = MEM_SPM;
	c.u.v.cfg.scale = 1.0f;
	return c;
}

static void rig_add(struct rig *r, const struct tile_cmd *c)
{
	ck_assert_int_lt(r->d.n, MAX_CMDS);
	r->d.cmds[r->d.n++] = *c;
}

/* Run to the end; returns the engine's result. */
static int rig_run(struct rig *r, struct eng_stats *st)
{
	int rc = eng_schedule(r->e, 0, EV_PRI_CONTROL, &r->d.u, 0, 0);

	ck_assert_int_eq(rc, 0);
	return eng_run(r->e, 100000000, st);
}

static uint64_t vctr(struct rig *r, enum ctr_id id)
{
	return r->d.vec->ctr[id];
}

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 11;
}

static uint32_t tmask(enum npu_dtype t)
{
	return dtype_bits(t) == 32 ? 0xFFFFFFFFu : (1u << dtype_bits(t)) - 1;
}

/* Random finite element bits: floats in [-8, 8], some exact zeros. */
static uint32_t rnd_val(enum npu_dtype t, uint64_t *seed)
{
	uint64_t x = lcg(seed);

	if (!dtype_is_float(t))
		return (uint32_t)(x >> 8) & tmask(t);
	if ((x & 15) == 0)
		return 0;
	return num_encode(t, ((double)(x >> 20 & 0xFFFF) - 32768.0) / 4096.0,
			  NUM_OVF_SAT);
}

static void fill_rows(enum npu_dtype t, uint8_t *base, uint64_t stride,
		      uint32_t rows, uint32_t len, uint64_t *seed)
{
	uint32_t r, i;

	for (r = 0; r < rows; r++)
		for (i = 0; i < len; i++)
			num_set_bits(t, base + r * stride, i, rnd_val(t, seed));
}

/* ---- the per-element C reference ------------------------------------------ */

static const enum npu_dtype all_types[] = {
	DT_INT4, DT_INT8, DT_INT16, DT_INT32, DT_FP8E4M3, DT_FP8E5M2,
	DT_FP16, DT_BF16, DT_FP32,
};
#define N_TYPES (sizeof all_types / sizeof all_types[0])

/* One ulp of float type t near v. */
static double ulp_t(enum npu_dtype t, double v)
{
	static const int mb[] = { [DT_FP8E4M3] = 3, [DT_FP8E5M2] = 2,
				  [DT_FP16] = 10, [DT_BF16] = 7, [DT_FP32] = 23 };
	static const int em[] = { [DT_FP8E4M3] = -6, [DT_FP8E5M2] = -14,
				  [DT_FP16] = -14, [DT_BF16] = -126,
				  [DT_FP32] = -126 };
	int e;

	v = fabs(v);
	if (v < ldexp(1, em[t]))
		return ldexp(1, em[t] - mb[t]);
	frexp(v, &e);
	return ldexp(1, e - 1 - mb[t]);
}

/* Round a double into t the way the unit's destination does. */
static uint32_t rnd_into(enum npu_dtype t, double v)
{
	float f;
	uint32_t b;

	if (t == DT_FP32) { /* C conversion: RNE */
		f = (float)v;
		memcpy(&b, &f, 4);
		return b;
	}
	/* ints: RNE + saturation; fp8: saturating (the unit's default);
	 * fp16/bf16: IEEE overflow to inf */
	return num_encode(t, v, t == DT_FP8E4M3 || t == DT_FP8E5M2 ?
			  NUM_OVF_SAT : NUM_OVF_IEEE);
}

static double clampd(enum npu_dtype t, double v)
{
	return v > num_max(t) ? num_max(t) : v < num_min(t) ? num_min(t) : v;
}

/* Exact expected bits of an elementwise op, or -1 for "use tolerance". */
static int64_t ref_exact(enum isa_op op, const struct vm_cfg *c, uint32_t xa,
			 uint32_t xb, uint32_t xc)
{
	enum npu_dtype t = c->type;
	int fl = dtype_is_float(t);
	double x = num_decode(t, xa), y = num_decode(t, xb), r;

	/* a scalar form is its base with s2 = the scalar (opcodes.def BASE) */
	if (isa_op_info[op].vkind == ISA_VK_SCALAR) {
		y = num_decode(t, c->scalar);
		op = isa_op_info[op].base;
	}
	switch (op) {
	case ISA_OP_VADD: r = x + y; break;
	case ISA_OP_VSUB: r = x - y; break;
	case ISA_OP_VMUL: r = x * y; break;
	case ISA_OP_VDIV:
		if (!fl && y == 0)
			r = x > 0 ? 1e300 : x < 0 ? -1e300 : 0;
		else
			r = fl ? x / y : trunc(x / y);
		if (fl && y == 0 && x == 0)
			return num_encode(t, NAN, NUM_OVF_SAT) & 0xFFFFFFFFu; /* default NaN */
		break;
	case ISA_OP_VMIN: r = x < y ? x : y; break;
	case ISA_OP_VMAX: r = x > y ? x : y; break;
	case ISA_OP_VABS: r = fabs(x); break;
	case ISA_OP_VNEG: r = -x; break;
	case ISA_OP_VMOV: return xa;
	case ISA_OP_VCMPEQ: r = x == y; break;
	case ISA_OP_VCMPLT: r = x < y; break;
	case ISA_OP_VCMPLE: r = x <= y; break;
	case ISA_OP_VSEL: return (fl ? x != 0 : xa != 0) ? xb : xc;
	case ISA_OP_VCVT:
		if (!dtype_is_float(c->out_type))
			return (uint32_t)(int64_t)clampd(c->out_type, nearbyint(x)) &
			       tmask(c->out_type);
		return rnd_into(c->out_type, x);
	case ISA_OP_VQUANT: {
		float q = (float)x / c->scale;

		return (uint32_t)(int64_t)clampd(c->out_type,
						 nearbyint((double)q) + c->zp) &
		       tmask(c->out_type);
	}
	case ISA_OP_VDEQUANT: {
		float f = (float)(x - c->zp);

		return rnd_into(c->out_type, (double)(f * c->scale));
	}
	default:
		return -1;
	}
	if (fl && (op == ISA_OP_VABS || op == ISA_OP_VNEG) )
		return op == ISA_OP_VABS ? xa & ~(1u << (dtype_bits(t) - 1))
				    : xa ^ (1u << (dtype_bits(t) - 1));
	if (fl && (op == ISA_OP_VMIN || op == ISA_OP_VMAX) && x == y && x == 0)
		r = op == ISA_OP_VMIN ? (signbit(x) ? x : y) : (signbit(x) ? y : x);
	if (!fl)
		return (uint32_t)(int64_t)clampd(t, r) & tmask(t);
	return rnd_into(t, r);
}

static double r_rsqrt(double x) { return 1 / sqrt(x); }
static double r_rcp(double x) { return 1 / x; }
static double r_silu(double x) { return x / (1 + exp(-x)); }
static double r_gelu(double x)
{
	return x / (1 + exp(-2 * sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}

/* libm reference of a function unit op and its fp32 ulp bound. */
static double ref_fn(enum isa_op op, double x, double *ulps)
{
	switch (op) {
	case ISA_OP_VEXP: *ulps = 1.01; return exp(x);
	case ISA_OP_VLOG: *ulps = 1.56; return log(x);
	case ISA_OP_VRSQRT: *ulps = 1.95; return r_rsqrt(x);
	case ISA_OP_VRCP: *ulps = 2.03; return r_rcp(x);
	case ISA_OP_VTANH: *ulps = 2.24; return tanh(x);
	case ISA_OP_VGELU: *ulps = 177; return r_gelu(x);
	default: *ulps = 4.38; return r_silu(x);
	}
}

/* Check one element of a function-unit op against libm. */
static void check_fn(enum isa_op op, enum npu_dtype t, uint32_t xa,
		     uint32_t got)
{
	double ulps, x = num_decode(t, xa), ref = ref_fn(op, x, &ulps);
	double y = num_decode(t, got);

	if (isnan(ref)) {
		if (dtype_is_float(t) ? !isnan(y) : y != 0)
			ck_abort_msg("%s(%g) = %g, want NaN/0", isa_op_info[op].name, x, y);
		return;
	}
	if (!dtype_is_float(t)) {
		/* the unit evaluates f on the input rounded to fp32; allow the
		 * fp32 error, then one for the rounding to an integer */
		double tol;

		ref = ref_fn(op, (double)(float)x, &ulps);
		tol = isinf(ref) ? 0 : ulps * ulp_t(DT_FP32, ref);
		if (y < clampd(t, floor(ref - tol)) || y > clampd(t, ceil(ref + tol)))
			ck_abort_msg("%s %s(%g) = %g, exact %g", dtype_name(t),
				     isa_op_info[op].name, x, y, ref);
		return;
	}
	if (isinf(ref) || fabs(ref) > num_max(t))
		return; /* overflow behaviour: test_vecmath */
	if (t == DT_FP32 ? fabs(y - ref) > ulps * ulp_t(t, ref) + 0x1p-146
			 : !(fabs(y - ref) < ulp_t(t, ref)))
		ck_abort_msg("%s %s(%a) = %a, exact %a", dtype_name(t),
			     isa_op_info[op].name, x, y, ref);
}

/* ---- values: every op on every type ------------------------------------- */

/* Base addresses of the operand tiles in the scratchpad. */
#define A_S1 0x1000
#define A_S2 0x9000
#define A_S3 0x11000
#define A_D  0x19000
#define A_D2 0x40000

/* Run one instruction on a filled scratchpad; compare with vm_exec. */
static void run_and_compare(const struct rig_opts *o, struct tile_cmd *c,
			    const uint8_t *init, uint8_t *after)
{
	struct rig r;
	struct eng_stats st;
	struct vm_cfg vc;
	struct vm_tile tl;
	uint8_t *ref = malloc(1 << 20);
	int64_t bad = 0;
	enum isa_op op = (enum isa_op)c->op;

	ck_assert_ptr_nonnull(ref);
	ck_assert_int_eq(isa_op_info[op].unit, ISA_UNIT_VEC);
	rig_init(&r, o);
	memcpy(sram_data(r.spm), init, 1 << 20);
	memcpy(ref, init, 1 << 20);
	rig_add(&r, c);
	ck_assert_int_eq(rig_run(&r, &st), 0);
	ck_assert_int_eq(vctr(&r, CTR_VECTOR_INSNS), 1);
	memcpy(after, sram_data(r.spm), 1 << 20);

	memset(&vc, 0, sizeof(vc));
	vc.type = (enum npu_dtype)c->u.v.cfg.type;
	vc.out_type = (enum npu_dtype)c->u.v.cfg.out_type;
	vc.scale = c->u.v.cfg.scale;
	vc.zp = c->u.v.cfg.zp;
	vc.fp8_ovf = o->fp8_sat ? NUM_OVF_SAT : NUM_OVF_IEEE;
	vc.scalar = (uint32_t)c->u.v.scalar & tmask(vc.type);
	vc.step = (int64_t)c->u.v.scalar;
	memset(&tl, 0, sizeof(tl));
	tl.d = ref + c->u.v.d;
	tl.s1 = ref + c->u.v.s1;
	tl.s2 = ref + c->u.v.s2;
	tl.s3 = ref + c->u.v.s3;
	tl.d_stride = c->u.v.cfg.d_stride;
	tl.s1_stride = c->u.v.cfg.s1_stride;
	tl.s2_stride = c->u.v.cfg.s2_stride;
	tl.rows = c->u.v.cfg.rows;
	tl.len = c->u.v.cfg.len;
	tl.lanes = o->lanes;
	tl.s1_elems = ((1u << 20) - c->u.v.s1) * 8 / (uint64_t)dtype_bits(vc.type);
	tl.d_elems = ((1u << 20) - c->u.v.d) * 8 / (uint64_t)dtype_bits(vc.type);
	ck_assert_int_eq(vm_exec(op, &vc, &tl, &bad), 0);
	if (memcmp(ref, after, 1 << 20) != 0) {
		size_t i;

		for (i = 0; i < (1u << 20) && ref[i] == after[i]; i++)
			;
		ck_abort_msg("%s %s: memory differs from vm_exec at 0x%zx (0x%02x, want 0x%02x)",
			     isa_op_info[c->op].name,
			     dtype_name(vc.type), i, after[i], ref[i]);
	}
	rig_free(&r);
	free(ref);
}

/* Elementwise, compare, select, convert, function ops. */
START_TEST(vector_values_elementwise)
{
	static const enum isa_op ops[] = {
		ISA_OP_VADD, ISA_OP_VSUB, ISA_OP_VMUL, ISA_OP_VDIV, ISA_OP_VMIN,
		ISA_OP_VMAX, ISA_OP_VADDS, ISA_OP_VSUBS, ISA_OP_VMULS,
		ISA_OP_VMINS, ISA_OP_VMAXS, ISA_OP_VABS, ISA_OP_VNEG,
		ISA_OP_VMOV, ISA_OP_VCMPEQ, ISA_OP_VCMPLT, ISA_OP_VCMPLE,
		ISA_OP_VSEL, ISA_OP_VEXP, ISA_OP_VLOG, ISA_OP_VRSQRT,
		ISA_OP_VRCP, ISA_OP_VTANH, ISA_OP_VGELU, ISA_OP_VSILU,
		ISA_OP_VCVT, ISA_OP_VQUANT, ISA_OP_VDEQUANT,
	};
	uint8_t *init = calloc(1, 1 << 20), *after = malloc(1 << 20);
	uint64_t seed = 11;
	size_t oi, ti;
	/* 3 rows of 37 (two full lane groups and a partial one), strided */
	const uint32_t rows = 3, len = 37, sst = 200, dst = 176;

	ck_assert_ptr_nonnull(init);
	ck_assert_ptr_nonnull(after);
	for (oi = 0; oi < sizeof ops / sizeof ops[0]; oi++)
	for (ti = 0; ti < N_TYPES; ti++) {
		enum npu_dtype t = all_types[ti], dt = t;
		struct tile_cmd c = vcmd(ops[oi], t, rows, len, A_D, A_S1, A_S2);
		enum isa_op op = ops[oi];
		struct vm_cfg vc;
		uint32_t r, i;

		if (ops[oi] == ISA_OP_VCVT || ops[oi] == ISA_OP_VQUANT)
			dt = (enum npu_dtype)((ti + 3) % N_TYPES);
		if (ops[oi] == ISA_OP_VQUANT && dtype_is_float(dt))
			dt = DT_INT8;
		if (ops[oi] == ISA_OP_VDEQUANT)
			dt = dtype_is_float(t) ? DT_FP32 : DT_FP16;
		c.u.v.cfg.out_type = (int)dt;
		c.u.v.cfg.s1_stride = sst;
		c.u.v.cfg.s2_stride = sst;
		c.u.v.cfg.d_stride = dst;
		c.u.v.cfg.scale = 0.25f;
		c.u.v.cfg.zp = 3;
		c.u.v.s3 = A_S3;
		c.u.v.scalar = rnd_val(t, &seed);
		fill_rows(t, init + A_S1, sst, rows, len, &seed);
		fill_rows(t, init + A_S2, sst, rows, len, &seed);
		fill_rows(t, init + A_S3, sst, rows, len, &seed);
		if (op == ISA_OP_VLOG || op == ISA_OP_VRSQRT) /* mostly positive inputs */
			for (r = 0; r < rows; r++)
				for (i = 0; i < len; i += 2)
					if (dtype_is_float(t))
						num_set_bits(t, init + A_S1 + r * sst, i,
							     num_get_bits(t, init + A_S1 + r * sst, i) &
							     (tmask(t) >> 1));
		run_and_compare(&default_opts, &c, init, after);

		/* the independent per-element reference */
		memset(&vc, 0, sizeof(vc));
		vc.type = t;
		vc.out_type = dt;
		vc.scale = 0.25f;
		vc.zp = 3;
		vc.scalar = (uint32_t)c.u.v.scalar;
		vc.fp8_ovf = NUM_OVF_SAT;
		for (r = 0; r < rows; r++)
			for (i = 0; i < len; i++) {
				uint32_t xa = num_get_bits(t, init + A_S1 + r * sst, i);
				uint32_t xb = num_get_bits(t, init + A_S2 + r * sst, i);
				uint32_t xc = num_get_bits(t, init + A_S3 + r * sst, i);
				uint32_t got = num_get_bits(vm_dst_type(op, &vc),
							    after + A_D + r * dst, i);
				int64_t want;

				if (isa_op_info[op].lat == ISA_LAT_SFU || op == ISA_OP_VRSQRT ||
				    op == ISA_OP_VRCP) {
					check_fn(op, t, xa, got);
					continue;
				}
				want = ref_exact(op, &vc, xa, xb, xc);
				ck_assert_int_ge(want, 0);
				if (dtype_is_float(vm_dst_type(op, &vc)) &&
				    isnan(num_decode(vm_dst_type(op, &vc), (uint32_t)want)) &&
				    num_is_nan(vm_dst_type(op, &vc), got))
					continue;
				if ((uint32_t)want != got)
					ck_abort_msg("%s %s row %u elem %u: (0x%x, 0x%x) -> 0x%x want 0x%x",
						     isa_op_info[op].name, dtype_name(t),
						     r, i, xa, xb, got, (uint32_t)want);
			}
	}
	free(init);
	free(after);
}
END_TEST

/* Reductions, both dense and strided destinations, several lane counts. */
START_TEST(vector_values_reductions)
{
	static const enum isa_op ops[] = { ISA_OP_VREDSUM, ISA_OP_VREDMAX,
					   ISA_OP_VREDMIN };
	static const int lanes_v[] = { 4, 16 };
	uint8_t *init = calloc(1, 1 << 20), *after = malloc(1 << 20);
	uint64_t seed = 12;
	size_t oi, ti, li;
	const uint32_t rows = 5, len = 70;

	ck_assert_ptr_nonnull(init);
	ck_assert_ptr_nonnull(after);
	for (li = 0; li < 2; li++)
	for (oi = 0; oi < 3; oi++)
	for (ti = 0; ti < N_TYPES; ti++) {
		enum npu_dtype t = all_types[ti];
		enum npu_dtype ot = dtype_is_float(t) ? DT_FP32 : DT_INT32;
		struct tile_cmd c = vcmd(ops[oi], t, rows, len, A_D, A_S1, 0);
		struct rig_opts o = default_opts;
		uint64_t rb = dtype_bytes(t, len);
		uint32_t r, i;

		o.lanes = lanes_v[li];
		c.u.v.cfg.out_type = (int)ot;
		c.u.v.cfg.d_stride = li ? 0 : 12;
		fill_rows(t, init + A_S1, rb, rows, len, &seed);
		run_and_compare(&o, &c, init, after);
		for (r = 0; r < rows; r++) {
			double sum = 0, mag = 0, mx = -INFINITY, mn = INFINITY, y;
			int64_t isum = 0;

			for (i = 0; i < len; i++) {
				double x = num_decode(t, num_get_bits(t, init + A_S1 + r * rb, i));

				sum += x;
				isum += (int64_t)x;
				mag += fabs(x);
				mx = fmax(mx, x);
				mn = fmin(mn, x);
			}
			y = num_decode(ot, num_get_bits(ot, after + A_D + r * (li ? 4 : 12), 0));
			if (ops[oi] == ISA_OP_VREDMAX)
				ck_assert(y == mx);
			else if (ops[oi] == ISA_OP_VREDMIN)
				ck_assert(y == mn);
			else if (!dtype_is_float(t)) /* 32-bit wrapping sum */
				ck_assert(y == (double)(int32_t)(uint32_t)(uint64_t)isum);
			else /* fp32 tree: |err| <= gamma_len * sum|x| */
				ck_assert_msg(fabs(y - sum) <= len * 0x1p-24 * mag * 1.01,
					      "%s sum %g want %g", dtype_name(t), y, sum);
		}
	}
	free(init);
	free(after);
}
END_TEST

/* vtrans, vgather, vscatter, vbcast, vbrow on every type. */
START_TEST(vector_values_movement)
{
	uint8_t *init = calloc(1, 1 << 20), *after = malloc(1 << 20);
	uint64_t seed = 13;
	size_t ti;

	ck_assert_ptr_nonnull(init);
	ck_assert_ptr_nonnull(after);
	for (ti = 0; ti < N_TYPES; ti++) {
		enum npu_dtype t = all_types[ti];
		/* 21 x 35: blocks of 16 x 16 with partial edges */
		uint32_t rows = 21, len = 35, r, i;
		uint64_t sb = dtype_bytes(t, len), db = dtype_bytes(t, rows);
		struct tile_cmd c = vcmd(ISA_OP_VTRANS, t, rows, len, A_D, A_S1, 0);

		fill_rows(t, init + A_S1, sb, rows, len, &seed);
		run_and_compare(&default_opts, &c, init, after);
		for (r = 0; r < rows; r++)
			for (i = 0; i < len; i++)
				ck_assert_uint_eq(num_get_bits(t, after + A_D + i * db, r),
						  num_get_bits(t, init + A_S1 + r * sb, i));

		/* gather: a permutation-ish index set into a flat source */
		c = vcmd(ISA_OP_VGATHER, t, 2, 40, A_D2, A_S1, A_S2);
		for (i = 0; i < 80; i++)
			num_set_bits(DT_INT32, init + A_S2, i, (i * 53 + 7) % 700);
		run_and_compare(&default_opts, &c, init, after);
		for (i = 0; i < 80; i++)
			ck_assert_uint_eq(num_get_bits(t, after + A_D2 + (i / 40) * dtype_bytes(t, 40), i % 40),
					  num_get_bits(t, init + A_S1, (i * 53 + 7) % 700));

		/* scatter with a duplicate index: the later element wins */
		c = vcmd(ISA_OP_VSCATTER, t, 1, 20, A_D2, A_S1, A_S2);
		for (i = 0; i < 20; i++)
			num_set_bits(DT_INT32, init + A_S2, i, i == 19 ? 4 : 3 * i);
		run_and_compare(&default_opts, &c, init, after);
		ck_assert_uint_eq(num_get_bits(t, after + A_D2, 4),
				  num_get_bits(t, init + A_S1, 19));
		ck_assert_uint_eq(num_get_bits(t, after + A_D2, 3),
				  num_get_bits(t, init + A_S1, 1));

		/* broadcast a scalar and a row */
		c = vcmd(ISA_OP_VBCAST, t, 4, 19, A_D, 0, 0);
		c.u.v.scalar = 0x5;
		c.u.v.cfg.d_stride = 64;
		run_and_compare(&default_opts, &c, init, after);
		for (r = 0; r < 4; r++)
			for (i = 0; i < 19; i++)
				ck_assert_uint_eq(num_get_bits(t, after + A_D + r * 64, i), 5);
		c = vcmd(ISA_OP_VBROW, t, 4, 19, A_D, A_S1, 0);
		run_and_compare(&default_opts, &c, init, after);
		for (r = 0; r < 4; r++)
			for (i = 0; i < 19; i++)
				ck_assert_uint_eq(num_get_bits(t, after + A_D + r * dtype_bytes(t, 19), i),
						  num_get_bits(t, init + A_S1, i));
	}
	free(init);
	free(after);
}
END_TEST

/*
 * vector.isa.coverage: every vector row of isa/opcodes.def has an operand
 * kind and a latency class the unit times, runs in the unit exactly as
 * vm_exec computes it, and writes nothing outside the destination its
 * kind declares (vec_operands, which the hazard checker records too).
 * The table is iterated, so a new row is covered without touching this
 * file.
 */
START_TEST(vector_isa_coverage)
{
	uint8_t *init = calloc(1, 1 << 20), *after = malloc(1 << 20);
	int i, n = 0;
	uint64_t k;

	ck_assert_ptr_nonnull(init);
	ck_assert_ptr_nonnull(after);
	/* Sources of small nonzero values; s2 stays 0, so the int32 index
	 * tile of vgather/vscatter holds valid indices (all 0). */
	for (k = 0; k < 64; k++) {
		init[A_S1 + k] = (uint8_t)(k * 7 + 3) & 0x3f;
		init[A_S3 + k] = (uint8_t)(k * 5 + 1) & 0x3f;
	}
	for (i = 0; i < ISA_N_OPS; i++) {
		const struct isa_op_info *oi = &isa_op_info[i];
		struct vec_opnd o[ISA_N_VSLOTS];
		struct tile_cmd c;
		uint64_t lo, hi, b;

		if (oi->unit != ISA_UNIT_VEC)
			continue;
		n++;
		ck_assert_msg(oi->vkind != ISA_VK_NONE, "%s has no operand kind",
			      oi->name);
		ck_assert_msg(oi->lat == ISA_LAT_ALU || oi->lat == ISA_LAT_MUL ||
			      oi->lat == ISA_LAT_DIV || oi->lat == ISA_LAT_SFU ||
			      oi->lat == ISA_LAT_MOVE,
			      "%s: latency class %s is not timed by the vector unit",
			      oi->name, isa_lat_names[oi->lat]);
		/* 3 rows of 5 int8 elements, strided destination rows. */
		c = vcmd((enum isa_op)i, DT_INT8, 3, 5, A_D, A_S1, A_S2);
		c.u.v.s3 = A_S3;
		c.u.v.cfg.out_type = DT_INT16;
		c.u.v.cfg.d_stride = 24;
		run_and_compare(&default_opts, &c, init, after);
		vec_operands(&c, o);
		ck_assert_int_ne(o[ISA_VS_D].shape, ISA_VSH_NONE);
		lo = o[ISA_VS_D].base;
		hi = o[ISA_VS_D].shape == ISA_VSH_INDEXED ? 1u << 20 :
		     lo + (o[ISA_VS_D].rows - 1) * o[ISA_VS_D].stride +
		     o[ISA_VS_D].row_bytes;
		for (b = 0; b < 1u << 20; b++)
			if (after[b] != init[b])
				ck_assert_msg(b >= lo && b < hi,
					      "%s wrote 0x%" PRIx64 " outside its destination [0x%" PRIx64 ", 0x%" PRIx64 ")",
					      oi->name, b, lo, hi);
	}
	ck_assert_int_gt(n, 0);
	free(init);
	free(after);
}
END_TEST

/* ---- timing ---------------------------------------------------------------- */

/*
 * Formula of docs/timing.md for an elementwise instruction accepted at
 * cycle A with B lane groups, each SRAM access taking 'a' cycles alone:
 *   end = A + a + lat + max(a, II) (B - 1) + LAT + a - 1 + lat
 */
static cycle_t formula(cycle_t A, uint64_t B, cycle_t a, cycle_t lat,
		       cycle_t ii, cycle_t LAT)
{
	cycle_t step = a > ii ? a : ii;

	return A + a + lat + step * (B - 1) + LAT + a - 1 + lat;
}

/* A long row with no contention: 1 cycle per lane group. */
START_TEST(vector_timing_long_row)
{
	struct rig_opts o = default_opts;
	static const struct {
		enum isa_op op;
		enum npu_dtype t;
		int ports, banks, width, dmem;
		cycle_t a, LAT, ii;
	} cs[] = {
		/* 16 x int8 = 16 B: one word, 1 cycle; 4 ports: no conflicts */
		{ ISA_OP_VADD, DT_INT8, 4, 8, 16, MEM_SPM, 1, 2, 1 },
		/* 16 x fp32 = 64 B on 4 banks of 8 B, 1 port: 2 cycles an
		 * access; result to the accumulator, so nothing competes */
		{ ISA_OP_VMULS, DT_FP32, 1, 4, 8, MEM_ACC, 2, 3, 1 },
		/* divide: interval 4 dominates */
		{ ISA_OP_VDIV, DT_FP16, 4, 8, 16, MEM_SPM, 1, 12, 4 },
		/* exp: sfu latency 8, interval 1 */
		{ ISA_OP_VEXP, DT_BF16, 4, 8, 16, MEM_SPM, 1, 8, 1 },
	};
	size_t k;

	for (k = 0; k < sizeof cs / sizeof cs[0]; k++) {
		struct rig r;
		struct eng_stats st;
		struct tile_cmd c = vcmd(cs[k].op, cs[k].t, 1, 16 * 64, A_D2, A_S1, A_S2);
		cycle_t want;

		o.ports = cs[k].ports;
		o.banks = cs[k].banks;
		o.width = cs[k].width;
		c.u.v.cfg.d_mem = cs[k].dmem;
		if (cs[k].dmem == MEM_ACC)
			c.u.v.d = 0x2000;
		rig_init(&r, &o);
		rig_add(&r, &c);
		ck_assert_msg(rig_run(&r, &st) == 0, "%s", r.dg.last);
		want = formula(r.d.acc_at[0], 64, cs[k].a, 1, cs[k].ii, cs[k].LAT);
		ck_assert_msg(r.d.idle_at == want, "%s: end %llu want %llu",
			      isa_op_info[cs[k].op].name,
			      (unsigned long long)r.d.idle_at,
			      (unsigned long long)want);
		ck_assert_uint_eq(vctr(&r, CTR_VECTOR_BUSY_CYCLES), want - r.d.acc_at[0]);
		ck_assert_uint_eq(vctr(&r, CTR_VECTOR_STALL_CYCLES), 0);
		ck_assert_uint_eq(vctr(&r, CTR_VECTOR_ELEMS), 1024);
		ck_assert_uint_eq(vctr(&r, CTR_VECTOR_OPS), 1024);
		ck_assert_uint_eq(vctr(&r, CTR_VECTOR_SRAM_READS),
				  cs[k].op == ISA_OP_VEXP || cs[k].op == ISA_OP_VMULS ?
				  64 : 128);
		ck_assert_uint_eq(vctr(&r, CTR_VECTOR_SRAM_WRITES), 64);
		rig_free(&r);
	}
}
END_TEST

/*
 * The same long row while a higher-priority requestor holds every bank for
 * K cycles: the instruction ends exactly K cycles later and those K cycles
 * are its stall_sram_cycles.
 */
START_TEST(vector_timing_bank_contention)
{
	struct rig_opts o = default_opts;
	const cycle_t K = 37;
	cycle_t base_end;
	int pass;

	o.ports = 4;
	o.arb = SRAM_ARB_FIXED;
	o.hog = 1;
	for (pass = 0; pass < 2; pass++) {
		struct rig r;
		struct eng_stats st;
		struct tile_cmd c = vcmd(ISA_OP_VADD, DT_INT8, 1, 16 * 64, A_D2, A_S1, A_S2);

		rig_init(&r, &o);
		if (pass) /* K words in every bank, x4 ports, from cycle 1 */
			ck_assert_int_eq(sram_access(r.spm, r.hog, 0,
						     (uint32_t)(8 * 16 * 4 * K), 0,
						     1, NULL, NULL, 0), 0);
		rig_add(&r, &c);
		ck_assert_int_eq(rig_run(&r, &st), 0);
		if (!pass) {
			base_end = r.d.idle_at;
			ck_assert_uint_eq(vctr(&r, CTR_VECTOR_STALL_SRAM), 0);
		} else {
			ck_assert_uint_eq(r.d.idle_at, base_end + K);
			ck_assert_uint_eq(vctr(&r, CTR_VECTOR_STALL_SRAM), K);
			ck_assert_uint_eq(vctr(&r, CTR_VECTOR_STALL_CYCLES), K);
		}
		rig_free(&r);
	}
}
END_TEST

/* One lane group in flight at a time: every group pays the whole round trip. */
START_TEST(vector_timing_window)
{
	struct rig_opts o = default_opts;
	struct rig r;
	struct eng_stats st;
	struct tile_cmd c = vcmd(ISA_OP_VADD, DT_INT8, 1, 16 * 10, A_D2, A_S1, A_S2);
	/* period = (a - 1 + lat) + LAT + (a - 1 + lat) with a = 1, lat = 1 */
	const cycle_t P = 0 + 1 + 2 + 0 + 1;

	o.ports = 4;
	o.inflight = 1;
	rig_init(&r, &o);
	rig_add(&r, &c);
	ck_assert_int_eq(rig_run(&r, &st), 0);
	ck_assert_uint_eq(r.d.idle_at, r.d.acc_at[0] + 1 + 10 * P);
	rig_free(&r);
}
END_TEST

/*
 * Two instructions back to back: independent ones stream as one long
 * instruction; when the second reads the first's result it waits for the
 * first to finish (stall_raw_cycles), then runs alone.
 */
START_TEST(vector_timing_raw_interlock)
{
	struct rig_opts o = default_opts;
	int dep;

	o.ports = 4;
	for (dep = 0; dep < 2; dep++) {
		struct rig r;
		struct eng_stats st;
		struct tile_cmd c1 = vcmd(ISA_OP_VADD, DT_INT8, 1, 16 * 20, A_D, A_S1, A_S2);
		struct tile_cmd c2 = vcmd(ISA_OP_VSUB, DT_INT8, 1, 16 * 20, A_D2,
					  dep ? A_D : A_S3, A_S2);
		cycle_t end1;

		rig_init(&r, &o);
		rig_add(&r, &c1);
		rig_add(&r, &c2);
		ck_assert_int_eq(rig_run(&r, &st), 0);
		ck_assert_uint_eq(r.d.acc_at[1], r.d.acc_at[0] + 20);
		end1 = formula(r.d.acc_at[0], 20, 1, 1, 1, 2);
		if (!dep) {
			ck_assert_uint_eq(r.d.idle_at, formula(r.d.acc_at[0], 40, 1, 1, 1, 2));
			ck_assert_uint_eq(vctr(&r, CTR_VECTOR_STALL_RAW), 0);
		} else {
			ck_assert_uint_eq(r.d.idle_at, formula(end1 - 1, 20, 1, 1, 1, 2));
			ck_assert_uint_eq(vctr(&r, CTR_VECTOR_STALL_RAW),
					  end1 - (r.d.acc_at[1] + 1));
		}
		ck_assert_uint_eq(vctr(&r, CTR_VECTOR_INSNS), 2);
		ck_assert_uint_eq(vctr(&r, CTR_VECTOR_BUSY_CYCLES),
				  r.d.idle_at - r.d.acc_at[0]);
		rig_free(&r);
	}
}
END_TEST

/* A reduction: the row's result leaves latency.reduce after its last group. */
START_TEST(vector_timing_reduction)
{
	struct rig_opts o = default_opts;
	struct rig r;
	struct eng_stats st;
	struct tile_cmd c = vcmd(ISA_OP_VREDSUM, DT_INT8, 3, 16 * 8, A_D2, A_S1, 0);
	cycle_t A;

	o.ports = 4;
	c.u.v.cfg.out_type = DT_INT32;
	rig_init(&r, &o);
	rig_add(&r, &c);
	ck_assert_int_eq(rig_run(&r, &st), 0);
	A = r.d.acc_at[0];
	/* last of 24 groups read at A+24 (+1 latency), + alu 2 + reduce 4,
	 * then a 4-byte write: 1 cycle + latency 1 */
	ck_assert_uint_eq(r.d.idle_at, A + 1 + 23 + 1 + 2 + 4 + 1);
	ck_assert_uint_eq(vctr(&r, CTR_VECTOR_ELEMS), 3);
	ck_assert_uint_eq(vctr(&r, CTR_VECTOR_OPS), 3 * 128);
	ck_assert_uint_eq(vctr(&r, CTR_VECTOR_SRAM_WRITES), 3);
	rig_free(&r);
}
END_TEST

/* s1 and s2 in the same banks with one port: they take turns. */
START_TEST(vector_timing_self_conflict)
{
	struct rig_opts o = default_opts;
	struct rig r;
	struct eng_stats st;
	/* 16 B accesses; s2 = s1 + 128 B: the same bank every time */
	struct tile_cmd c = vcmd(ISA_OP_VADD, DT_INT8, 1, 16 * 32, A_D2 + 16,
				 A_S1, A_S1 + 8 * 16 * 4);
	cycle_t ideal;

	rig_init(&r, &o);
	rig_add(&r, &c);
	ck_assert_int_eq(rig_run(&r, &st), 0);
	ideal = formula(r.d.acc_at[0], 32, 1, 1, 1, 2);
	ck_assert_uint_gt(r.d.idle_at, ideal);
	ck_assert_uint_gt(vctr(&r, CTR_VECTOR_STALL_SRAM), 0);
	ck_assert_uint_le(vctr(&r, CTR_VECTOR_STALL_SRAM), r.d.idle_at - r.d.acc_at[0]);
	ck_assert_uint_gt(sram_bank_stat(r.spm, (A_S1 / 16) % 8, SRAM_ST_CONFLICTS), 0);
	rig_free(&r);
}
END_TEST

/* Faults name the instruction, pc, cycle and the offending range/index. */
/*
 * vset bc: source 2 of a binary op as a column (one value per row, rows
 * ss2 apart) or as one row for every row - the per-row and per-column
 * broadcasts of softmax and layernorm without vtrans/vbrow; fp32 and
 * int16, rows longer than the lanes (several lane groups per row).
 */
START_TEST(vector_broadcast_operand)
{
	static const enum npu_dtype types[] = { DT_FP32, DT_INT16 };
	size_t ti;
	int bc;

	for (ti = 0; ti < 2; ti++)
		for (bc = 1; bc <= 2; bc++) {
			enum npu_dtype t = types[ti];
			const uint32_t rows = 5, len = 37;
			struct rig r;
			struct eng_stats st;
			struct tile_cmd c;
			uint8_t *m;
			uint32_t i, j;

			rig_init(&r, &default_opts);
			m = sram_data(r.spm);
			for (i = 0; i < rows * len; i++)
				num_set_bits(t, m + A_S1, i, num_encode(t, (double)(i % 50) - 20, NUM_OVF_SAT));
			/* a column of rows values 16 bytes apart, or one row */
			for (i = 0; i < rows; i++)
				num_set_bits(t, m + A_S2 + 16 * i, 0,
					     num_encode(t, 3.0 * i - 4, NUM_OVF_SAT));
			for (j = 0; j < len; j++)
				num_set_bits(t, m + A_S3, j, num_encode(t, (double)j - 10, NUM_OVF_SAT));
			c = vcmd(ISA_OP_VSUB, t, rows, len, A_D, A_S1, bc == 1 ? A_S2 : A_S3);
			c.u.v.cfg.s2_bcast = bc;
			if (bc == 1)
				c.u.v.cfg.s2_stride = 16;
			rig_add(&r, &c);
			ck_assert_int_eq(rig_run(&r, &st), 0);
			for (i = 0; i < rows; i++)
				for (j = 0; j < len; j++) {
					double x = (double)((i * len + j) % 50) - 20;
					double y = bc == 1 ? 3.0 * i - 4 : (double)j - 10;

					ck_assert_msg(num_decode(t, num_get_bits(t, m + A_D, i * len + j)) == x - y,
						      "%s bc %d [%u][%u]", dtype_name(t), bc, i, j);
				}
			rig_free(&r);
		}
}
END_TEST

/* viota: i + r * step, per row (step 0) and flat (step len), int32 and fp32. */
START_TEST(vector_iota)
{
	static const enum npu_dtype types[] = { DT_INT32, DT_FP32, DT_INT16 };
	size_t ti;
	int k;

	for (ti = 0; ti < 3; ti++)
		for (k = 0; k < 2; k++) {
			enum npu_dtype t = types[ti];
			const uint32_t rows = 4, len = 45;
			struct rig r;
			struct eng_stats st;
			struct tile_cmd c;
			uint8_t *m;
			uint32_t i, j;

			rig_init(&r, &default_opts);
			m = sram_data(r.spm);
			c = vcmd(ISA_OP_VIOTA, t, rows, len, A_D, 0, 0);
			c.u.v.scalar = k ? len : 0;
			rig_add(&r, &c);
			ck_assert_int_eq(rig_run(&r, &st), 0);
			for (i = 0; i < rows; i++)
				for (j = 0; j < len; j++)
					ck_assert_msg(num_decode(t, num_get_bits(t, m + A_D, i * len + j)) ==
						      (double)(j + (k ? i * len : 0)),
						      "%s step %d [%u][%u]", dtype_name(t), k, i, j);
			rig_free(&r);
		}
}
END_TEST

START_TEST(vector_faults)
{
	struct rig r;
	struct eng_stats st;
	struct tile_cmd c;

	/* a source row past the end of the scratchpad */
	rig_init(&r, &default_opts);
	c = vcmd(ISA_OP_VADD, DT_FP32, 2, 64, A_D, (1 << 20) - 300, A_S2);
	rig_add(&r, &c);
	ck_assert_int_eq(rig_run(&r, &st), NPU_EFAULT);
	ck_assert_msg(strstr(r.dg.last, "core 0 pc 0x100 cycle 0") != NULL &&
		      strstr(r.dg.last, "vadd source 1") != NULL &&
		      strstr(r.dg.last, "outside the scratchpad") != NULL,
		      "%s", r.dg.last);
	rig_free(&r);

	/* a strided destination that runs off the accumulator */
	rig_init(&r, &default_opts);
	c = vcmd(ISA_OP_VMOV, DT_INT8, 100, 16, 0, A_S1, 0);
	c.u.v.cfg.d_mem = MEM_ACC;
	c.u.v.cfg.d_stride = 4096;
	rig_add(&r, &c);
	ck_assert_int_eq(rig_run(&r, &st), NPU_EFAULT);
	ck_assert_msg(strstr(r.dg.last, "vmov destination") != NULL &&
		      strstr(r.dg.last, "accumulator") != NULL, "%s", r.dg.last);
	rig_free(&r);

	/* a gather index beyond the memory, found when the indices arrive */
	rig_init(&r, &default_opts);
	c = vcmd(ISA_OP_VGATHER, DT_FP16, 1, 20, A_D, (1 << 20) - 64, A_S2);
	num_set_bits(DT_INT32, sram_data(r.spm) + A_S2, 7, 5000);
	rig_add(&r, &c);
	ck_assert_int_eq(rig_run(&r, &st), NPU_EFAULT);
	ck_assert_msg(strstr(r.dg.last, "vgather: index 5000 (row 0, element 7)") != NULL &&
		      strstr(r.dg.last, "pc 0x100") != NULL, "%s", r.dg.last);
	rig_free(&r);

	/* a negative scatter index */
	rig_init(&r, &default_opts);
	c = vcmd(ISA_OP_VSCATTER, DT_INT8, 1, 20, A_D, A_S1, A_S2);
	num_set_bits(DT_INT32, sram_data(r.spm) + A_S2, 3, (uint32_t)-2);
	rig_add(&r, &c);
	ck_assert_int_eq(rig_run(&r, &st), NPU_EFAULT);
	ck_assert_msg(strstr(r.dg.last, "vscatter: index -2") != NULL, "%s", r.dg.last);
	rig_free(&r);

	/* shifts are for integers */
	rig_init(&r, &default_opts);
	c = vcmd(ISA_OP_VSHL, DT_BF16, 1, 16, A_D, A_S1, A_S2);
	rig_add(&r, &c);
	ck_assert_int_eq(rig_run(&r, &st), NPU_EFAULT);
	ck_assert_msg(strstr(r.dg.last, "vshl shifts integers, not bf16") != NULL,
		      "%s", r.dg.last);
	rig_free(&r);

	/* an empty tile is no fault and takes no SRAM traffic */
	rig_init(&r, &default_opts);
	c = vcmd(ISA_OP_VADD, DT_INT8, 0, 16, (1 << 20) + 5, A_S1, A_S2);
	rig_add(&r, &c);
	ck_assert_int_eq(rig_run(&r, &st), 0);
	ck_assert_uint_eq(vctr(&r, CTR_VECTOR_INSNS), 1);
	ck_assert_uint_eq(vctr(&r, CTR_VECTOR_SRAM_READS), 0);
	rig_free(&r);
}
END_TEST

/*
 * Layer normalisation of an 8 x 64 fp32 tile, row-wise, with the vector
 * instructions alone (the per-row statistics are broadcast by transposing):
 *   s = redsum(X); mean = s * (1/64); Xt = trans(X); D = Xt - brow(mean)
 *   v = redsum(trans(D*D)) * (1/64) + eps; r = rsqrt(v); Y = trans(D * brow(r))
 * against the same computation in double.
 */
START_TEST(vector_layernorm_sequence)
{
	enum { R = 8, N = 64 };
	struct rig r;
	struct eng_stats st;
	struct tile_cmd c;
	float inv_n = 1.0f / N, eps = 1e-5f;
	uint32_t inv_bits, eps_bits;
	uint64_t seed = 99;
	uint8_t *m;
	/* scratchpad layout (bytes) */
	const uint64_t X = 0x1000, S = 0x3000, MEAN = 0x3100, XT = 0x4000,
		MB = 0x6000, D = 0x8000, D2 = 0xA000, D2T = 0xC000,
		VS = 0xE000, V = 0xE100, RS = 0xE200, RB = 0xF000,
		YT = 0x11000, Y = 0x13000;
	int i, j;

	memcpy(&inv_bits, &inv_n, 4);
	memcpy(&eps_bits, &eps, 4);
	rig_init(&r, &default_opts);
	m = sram_data(r.spm);
	for (i = 0; i < R * N; i++)
		num_set_bits(DT_FP32, m + X, (uint64_t)i,
			     num_encode(DT_FP32, ((double)(lcg(&seed) % 20001) - 10000.0) / 997.0 + i % 7,
					NUM_OVF_IEEE));
	c = vcmd(ISA_OP_VREDSUM, DT_FP32, R, N, S, X, 0);
	rig_add(&r, &c);
	c = vcmd(ISA_OP_VMULS, DT_FP32, 1, R, MEAN, S, 0);
	c.u.v.scalar = inv_bits;
	rig_add(&r, &c);
	c = vcmd(ISA_OP_VTRANS, DT_FP32, R, N, XT, X, 0);
	rig_add(&r, &c);
	c = vcmd(ISA_OP_VBROW, DT_FP32, N, R, MB, MEAN, 0);
	rig_add(&r, &c);
	c = vcmd(ISA_OP_VSUB, DT_FP32, N, R, D, XT, MB);
	rig_add(&r, &c);
	c = vcmd(ISA_OP_VMUL, DT_FP32, N, R, D2, D, D);
	rig_add(&r, &c);
	c = vcmd(ISA_OP_VTRANS, DT_FP32, N, R, D2T, D2, 0);
	rig_add(&r, &c);
	c = vcmd(ISA_OP_VREDSUM, DT_FP32, R, N, VS, D2T, 0);
	rig_add(&r, &c);
	c = vcmd(ISA_OP_VMULS, DT_FP32, 1, R, V, VS, 0);
	c.u.v.scalar = inv_bits;
	rig_add(&r, &c);
	c = vcmd(ISA_OP_VADDS, DT_FP32, 1, R, V, V, 0);
	c.u.v.scalar = eps_bits;
	rig_add(&r, &c);
	c = vcmd(ISA_OP_VRSQRT, DT_FP32, 1, R, RS, V, 0);
	rig_add(&r, &c);
	c = vcmd(ISA_OP_VBROW, DT_FP32, N, R, RB, RS, 0);
	rig_add(&r, &c);
	c = vcmd(ISA_OP_VMUL, DT_FP32, N, R, YT, D, RB);
	rig_add(&r, &c);
	c = vcmd(ISA_OP_VTRANS, DT_FP32, N, R, Y, YT, 0);
	rig_add(&r, &c);
	ck_assert_msg(rig_run(&r, &st) == 0, "%s", r.dg.last);
	ck_assert_uint_eq(vctr(&r, CTR_VECTOR_INSNS), 14);
	for (i = 0; i < R; i++) {
		double mean = 0, var = 0;

		for (j = 0; j < N; j++)
			mean += num_decode(DT_FP32, num_get_bits(DT_FP32, m + X, (uint64_t)(i * N + j)));
		mean /= N;
		for (j = 0; j < N; j++) {
			double d = num_decode(DT_FP32, num_get_bits(DT_FP32, m + X, (uint64_t)(i * N + j))) - mean;

			var += d * d;
		}
		var = var / N + 1e-5;
		for (j = 0; j < N; j++) {
			double x = num_decode(DT_FP32, num_get_bits(DT_FP32, m + X, (uint64_t)(i * N + j)));
			double want = (x - mean) / sqrt(var);
			double got = num_decode(DT_FP32, num_get_bits(DT_FP32, m + Y, (uint64_t)(i * N + j)));

			ck_assert_msg(fabs(got - want) <= 2e-6 * (1 + fabs(want)),
				      "row %d col %d: %g want %g", i, j, got, want);
		}
	}
	rig_free(&r);
}
END_TEST

static Suite *suite_vector(void)
{
	Suite *s = suite_create("vector");

	TEST_ADD(s, vector_isa_coverage);
	TEST_ADD(s, vector_values_elementwise);
	TEST_ADD(s, vector_values_reductions);
	TEST_ADD(s, vector_values_movement);
	TEST_ADD(s, vector_timing_long_row);
	TEST_ADD(s, vector_timing_bank_contention);
	TEST_ADD(s, vector_timing_window);
	TEST_ADD(s, vector_timing_raw_interlock);
	TEST_ADD(s, vector_timing_reduction);
	TEST_ADD(s, vector_timing_self_conflict);
	TEST_ADD(s, vector_broadcast_operand);
	TEST_ADD(s, vector_iota);
	TEST_ADD(s, vector_faults);
	TEST_ADD(s, vector_layernorm_sequence);
	return s;
}

TEST_MAIN(suite_vector)
