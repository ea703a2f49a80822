/*
 * test_matrix.c - the systolic matrix engine driven directly with tile
 * commands (no ISA): busy cycles against the SCALE-Sim fold formulas over
 * many shapes and array sizes, exact int8 GEMMs and ordered fp16/bf16 GEMMs
 * against plain C references, mout requantisation, weight double-buffering,
 * SRAM contention stalls, faults, event cost, and the per-PE reference model
 * against the fast model (identical values and cycles).
 *
 * Harness: an engine, a scratchpad and an accumulator, the matrix unit, a
 * 'feeder' unit standing in for the control unit (it hands commands over
 * as fast as the queue takes them), and optionally a 'hog' unit that
 * competes for scratchpad banks.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../arch/arch.h"
#include "../../sim/engine/engine.h"
#include "../../sim/core/matrix.h"
#include "../../sim/core/matrix_int.h"
#include "../../util/num.h"
#include "../../sim/mem/sram.h"
#include "../../sim/engine/unit.h"
#include "testutil.h"

/* ---- harness ------------------------------------------------------------ */

/* Stand-in for the control unit: dispatches a command list in order. */
struct feeder {
	struct unit u;          /* header */
	struct unit *x;         /* the matrix unit */
	const struct tile_cmd *cmds; /* commands */
	int n, next;            /* count, next to dispatch */
	cycle_t idle_at;        /* cycle the unit went idle after the last */
};

static int feeder_event(struct unit *u, const struct ev *ev)
{
	struct feeder *f = (struct feeder *)u;
	int rc;

	(void)ev;
	while (f->next < f->n && mtx_port.can_accept(f->x)) {
		if ((rc = mtx_port.accept(f->x, &f->cmds[f->next])))
			return rc;
		f->next++;
	}
	if (f->next == f->n && mtx_port.idle(f->x) && !f->idle_at)
		f->idle_at = eng_now(u->eng);
	return 0;
}

static void nop_destroy(struct unit *u) { (void)u; }

static const struct unit_ops feeder_ops = {
	.kind = UNIT_OTHER, .on_event = feeder_event, .destroy = nop_destroy,
};

/* A competing requestor: reads 'bytes' at 'addr' every 'period' cycles. */
struct hog {
	struct unit u;
	sram *s;
	int req;
	uint64_t addr;
	uint32_t bytes;
	cycle_t period, until;
};

static int hog_event(struct unit *u, const struct ev *ev)
{
	struct hog *h = (struct hog *)u;
	int rc;

	if ((rc = sram_access(h->s, h->req, h->addr, h->bytes, 0, ev->when,
			      NULL, NULL, 0)))
		return rc;
	if (ev->when + h->period < h->until)
		return eng_schedule(u->eng, ev->when + h->period, EV_PRI_ISSUE,
				    u, 0, 0);
	return 0;
}

static const struct unit_ops hog_ops = {
	.kind = UNIT_OTHER, .on_event = hog_event, .destroy = nop_destroy,
};

/* One run's configuration. */
struct rig_cfg {
	int rows, cols;         /* array */
	int pipe, db, os_drain; /* matrix options */
	int model;              /* ARCH_MTX_MODEL_FAST or _PE */
	int pack_int8, pack_fp8; /* macs_per_pe of int8 and fp8e4m3 (0 = 1) */
	int depth;              /* queue depth */
	int spm_banks, spm_width, spm_ports, spm_lat;
	int acc_banks, acc_width, acc_ports, acc_lat;
	enum sram_arb arb;
	/* hog (period 0 = none): registered before the matrix unit, so it
	 * wins under fixed priority */
	uint64_t hog_addr;
	uint32_t hog_bytes;
	cycle_t hog_period, hog_from, hog_until;
	int hog_acc;            /* the hog reads the accumulator, not the
				   scratchpad */
	int no_ff;              /* eng_set_fast_forward(e, 0) */
	cycle_t step;           /* pause every step cycles (0: one run) */
};

/* What a run produced. */
struct rig_out {
	uint64_t ctr[CTR_N];    /* matrix counters */
	cycle_t idle_at;        /* cycle the unit finished the last command */
	uint64_t events;        /* engine events */
	uint64_t digest;        /* every counter of the matrix and both
				   memories at each pause and at the end */
	uint8_t *spm, *acc;     /* final memory contents (owned) */
	int rc;                 /* eng_run result */
	char diag[512];         /* last diagnostic */
};

#define SPM_BYTES (1u << 18)
#define ACC_BYTES (1u << 18)

static struct rig_cfg ideal(int rows, int cols)
{
	struct rig_cfg c;

	memset(&c, 0, sizeof(c));
	c.rows = rows;
	c.cols = cols;
	c.depth = 8;
	/* wide, many-ported banks: no row ever waits ("ideal memory") */
	c.spm_banks = 64;
	c.spm_width = 64;
	c.spm_ports = 2;
	c.spm_lat = 1;
	c.acc_banks = 64;
	c.acc_width = 64;
	c.acc_ports = 2;
	c.acc_lat = 1;
	c.arb = SRAM_ARB_RR;
	return c;
}

/* FNV-1a over 64-bit words. */
static uint64_t fnv(uint64_t h, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++) {
		h ^= (v >> (8 * i)) & 0xff;
		h *= 1099511628211ull;
	}
	return h;
}

/* The state counters can see: the cycle, every counter of the matrix
 * unit and of both memories, per bank and per requestor. */
static uint64_t state_digest(uint64_t h, eng *e, struct unit *x, sram *m[2])
{
	int i, k, b, q;

	h = fnv(h, eng_now(e));
	for (i = 0; i < CTR_N; i++)
		h = fnv(h, x->ctr[i]);
	for (k = 0; k < 2; k++) {
		for (i = 0; i < CTR_N; i++)
			h = fnv(h, sram_unit(m[k])->ctr[i]);
		for (b = 0; b < sram_geom(m[k])->banks; b++)
			for (i = 0; i < SRAM_N_ST; i++)
				h = fnv(h, sram_bank_stat(m[k], b, (enum sram_stat)i));
		for (q = 0; q < sram_n_requestors(m[k]); q++)
			for (i = 0; i < SRAM_N_ST; i++)
				h = fnv(h, sram_req_stat(m[k], q, (enum sram_stat)i));
	}
	return h;
}

/* Run cmds with spm/acc preloaded from the given images. */
static void rig_run(const struct rig_cfg *c, const struct tile_cmd *cmds,
		    int n, const uint8_t *spm_img, const uint8_t *acc_img,
		    struct rig_out *o)
{
	struct arch a;
	struct sram_geom gs = { SPM_BYTES, c->spm_banks, c->spm_width,
				c->spm_ports, c->spm_lat, c->arb };
	struct sram_geom ga = { ACC_BYTES, c->acc_banks, c->acc_width,
				c->acc_ports, c->acc_lat, c->arb };
	struct feeder f;
	struct hog h;
	struct tile_listener l;
	struct eng_stats st;
	struct diag d;
	eng *e = eng_new();
	sram *spm, *acc;
	struct unit *x;

	memset(o, 0, sizeof(*o));
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(arch_init_defaults(&a), 0);
	a.v[P_MTX_ROWS].i = c->rows;
	a.v[P_MTX_COLS].i = c->cols;
	a.v[P_MTX_PIPE_LAT].i = c->pipe;
	a.v[P_MTX_WEIGHT_DB].i = c->db;
	a.v[P_MTX_OS_DRAIN].i = c->os_drain;
	a.v[P_MTX_MODEL].i = c->model;
	if (c->pack_int8)
		a.v[P_MTX_MACS_INT8].i = c->pack_int8;
	if (c->pack_fp8)
		a.v[P_MTX_MACS_FP8E4M3].i = c->pack_fp8;
	a.v[P_CTL_QUEUE_DEPTH].i = c->depth;
	diag_init(&d, NULL);
	eng_set_diag(e, &d);
	spm = sram_new(e, 0, "core0.scratchpad", &gs);
	acc = sram_new(e, 0, "core0.accumulator", &ga);
	ck_assert_ptr_nonnull(spm);
	ck_assert_ptr_nonnull(acc);
	if (spm_img)
		memcpy(sram_data(spm), spm_img, SPM_BYTES);
	if (acc_img)
		memcpy(sram_data(acc), acc_img, ACC_BYTES);
	memset(&h, 0, sizeof(h));
	if (c->hog_period) {
		unit_init(&h.u, &hog_ops, e, 0, "core0.hog");
		h.s = c->hog_acc ? acc : spm;
		h.req = sram_add_requestor(h.s, "hog");
		h.addr = c->hog_addr;
		h.bytes = c->hog_bytes;
		h.period = c->hog_period;
		h.until = c->hog_until;
		ck_assert_int_eq(eng_add_unit(e, &h.u), 0);
		ck_assert_int_eq(eng_schedule(e, c->hog_from, EV_PRI_ISSUE,
					      &h.u, 0, 0), 0);
	}
	memset(&f, 0, sizeof(f));
	unit_init(&f.u, &feeder_ops, e, 0, "core0.feeder");
	ck_assert_int_eq(eng_add_unit(e, &f.u), 0);
	l.unit = &f.u;
	l.kind = 1;
	x = mtx_new(e, &a, 0, sram_target(spm), sram_target(acc), &l);
	ck_assert_ptr_nonnull(x);
	f.x = x;
	f.cmds = cmds;
	f.n = n;
	ck_assert_int_eq(eng_schedule(e, 0, EV_PRI_CONTROL, &f.u, 1, 0), 0);
	eng_set_fast_forward(e, !c->no_ff);
	if (!c->step) {
		o->rc = eng_run(e, 100000000, &st);
		o->events = st.n_events;
	} else {
		cycle_t stop = c->step;
		sram *mem[2] = { spm, acc };

		/* pause every step cycles: what a paused run shows must not
		 * depend on how the run got there */
		for (;;) {
			o->rc = eng_run_until(e, stop, 100000000, &st);
			o->events += st.n_events;
			o->digest = state_digest(o->digest, e, x, mem);
			if (o->rc || !st.paused)
				break;
			stop += c->step;
		}
	}
	{
		sram *mem[2] = { spm, acc };

		o->digest = state_digest(o->digest, e, x, mem);
	}
	memcpy(o->ctr, x->ctr, sizeof(o->ctr));
	o->idle_at = f.idle_at;
	snprintf(o->diag, sizeof(o->diag), "%s", d.last);
	o->spm = malloc(SPM_BYTES);
	o->acc = malloc(ACC_BYTES);
	ck_assert_ptr_nonnull(o->spm);
	ck_assert_ptr_nonnull(o->acc);
	memcpy(o->spm, sram_data(spm), SPM_BYTES);
	memcpy(o->acc, sram_data(acc), ACC_BYTES);
	eng_free(e);
	arch_free(&a);
}

static void out_free(struct rig_out *o)
{
	free(o->spm);
	free(o->acc);
}

/* ---- GEMM programs ------------------------------------------------------ */

/* A GEMM problem placed in memory in the dataflow's layout. */
struct gemm {
	int df, in_type;        /* dataflow, input dtype */
	uint32_t m, k, n;       /* shape */
	uint64_t a, b, c;       /* base addresses (A or A^T, B or B^T, C or C^T) */
	uint32_t es;            /* input element bytes */
	uint8_t *spm;           /* scratchpad image */
	struct tile_cmd *cmds;  /* the tiled program */
	int n_cmds;
	double *av, *bv;        /* element values, A[m][k], B[k][n] */
};

static uint32_t rnd(uint32_t *x)
{
	*x = *x * 1664525u + 1013904223u;
	return *x >> 8;
}

static uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

static void put_elem(struct gemm *g, uint64_t addr, double v)
{
	num_store((enum npu_dtype)g->in_type, g->spm + addr, 0, v, NUM_OVF_SAT);
}

static void push(struct gemm *g, int kind, uint64_t a, uint64_t b,
		 uint64_t c, uint32_t m, uint32_t k, uint32_t n,
		 uint32_t sa, uint32_t sb, uint32_t sc)
{
	struct tile_cmd *t = &g->cmds[g->n_cmds++];

	memset(t, 0, sizeof(*t));
	t->pc = 0x1000 + 4 * (uint64_t)g->n_cmds;
	t->id = (uint64_t)g->n_cmds;
	t->u.m.kind = (enum mtx_kind)kind;
	t->u.m.a = a;
	t->u.m.b = b;
	t->u.m.c = c;
	t->u.m.cfg.dataflow = g->df;
	t->u.m.cfg.in_type = g->in_type;
	t->u.m.cfg.acc_type = dtype_is_float((enum npu_dtype)g->in_type)
			      ? DT_FP32 : DT_INT32;
	t->u.m.cfg.m = m;
	t->u.m.cfg.k = k;
	t->u.m.cfg.n = n;
	t->u.m.cfg.a_stride = sa;
	t->u.m.cfg.b_stride = sb;
	t->u.m.cfg.c_stride = sc;
}

/*
 * Build a random M x K x N GEMM and its tiled program for an R x C array:
 *   WS  for each n-tile, k-tile: mpre B[k-tile][n-tile]; mmul/mmacc
 *   IS  for each m-tile, k-tile: mpre A^T[k-tile][m-tile]; mmul/mmacc
 *   OS  for each m-tile, n-tile: mmul over the whole K
 * Layouts: docs/timing.md "Operand layout".
 */
static void gemm_build(struct gemm *g, int df, int in_type, uint32_t M,
		       uint32_t K, uint32_t N, uint32_t R, uint32_t C,
		       uint32_t seed)
{
	uint32_t x = seed, i, j, k0, n0, m0;
	int fl = dtype_is_float((enum npu_dtype)in_type);

	memset(g, 0, sizeof(*g));
	g->df = df;
	g->in_type = in_type;
	g->m = M;
	g->k = K;
	g->n = N;
	g->es = (uint32_t)dtype_bits((enum npu_dtype)in_type) / 8;
	g->spm = calloc(1, SPM_BYTES);
	g->av = malloc(sizeof(double) * M * K);
	g->bv = malloc(sizeof(double) * K * N);
	/* at most two commands per fold */
	g->cmds = calloc(2 * (size_t)ceil_div(K, R) *
			 (ceil_div(N, C) + ceil_div(M, C)) +
			 (size_t)ceil_div(M, R) * ceil_div(N, C) + 16,
			 sizeof(*g->cmds));
	ck_assert_ptr_nonnull(g->spm);
	ck_assert_ptr_nonnull(g->cmds);
	g->a = 0;
	g->b = 64 + (uint64_t)M * K * g->es;
	g->b = (g->b + 63) & ~(uint64_t)63;
	g->c = 0;
	ck_assert_uint_le(g->b + (uint64_t)K * N * g->es, SPM_BYTES);
	ck_assert_uint_le((uint64_t)M * N * 4, ACC_BYTES);
	for (i = 0; i < M * K; i++) {
		double v = fl ? ((double)(int)(rnd(&x) % 2001) - 1000) / 256.0
			      : (double)(int)(rnd(&x) % 256) - 128;
		/* what the type stores */
		v = num_decode((enum npu_dtype)in_type,
			       num_encode((enum npu_dtype)in_type, v, NUM_OVF_SAT));
		g->av[i] = v;
	}
	for (i = 0; i < K * N; i++) {
		double v = fl ? ((double)(int)(rnd(&x) % 2001) - 1000) / 512.0
			      : (double)(int)(rnd(&x) % 256) - 128;
		v = num_decode((enum npu_dtype)in_type,
			       num_encode((enum npu_dtype)in_type, v, NUM_OVF_SAT));
		g->bv[i] = v;
	}
	/* memory images */
	for (i = 0; i < M; i++)
		for (j = 0; j < K; j++)
			put_elem(g, g->a + (uint64_t)(df == 0 ? i * K + j : j * M + i) * g->es,
				 g->av[i * K + j]);
	for (i = 0; i < K; i++)
		for (j = 0; j < N; j++)
			put_elem(g, g->b + (uint64_t)(df == 2 ? j * K + i : i * N + j) * g->es,
				 g->bv[i * N + j]);
	/* program */
	if (df == 0) {
		for (n0 = 0; n0 < N; n0 += C)
			for (k0 = 0; k0 < K; k0 += R) {
				uint32_t nn = N - n0 < C ? N - n0 : C;
				uint32_t kk = K - k0 < R ? K - k0 : R;
				uint64_t bt = g->b + ((uint64_t)k0 * N + n0) * g->es;

				push(g, MTX_PRELOAD, bt, 0, 0, M, kk, nn, 0,
				     N * g->es, 0);
				push(g, k0 ? MTX_MUL_ACC : MTX_MUL,
				     g->a + (uint64_t)k0 * g->es, bt,
				     g->c + 4 * (uint64_t)n0, M, kk, nn,
				     K * g->es, N * g->es, 4 * N);
			}
	} else if (df == 2) {
		for (m0 = 0; m0 < M; m0 += C)
			for (k0 = 0; k0 < K; k0 += R) {
				uint32_t mm = M - m0 < C ? M - m0 : C;
				uint32_t kk = K - k0 < R ? K - k0 : R;
				uint64_t at = g->a + ((uint64_t)k0 * M + m0) * g->es;

				push(g, MTX_PRELOAD, at, 0, 0, mm, kk, N,
				     M * g->es, 0, 0);
				push(g, k0 ? MTX_MUL_ACC : MTX_MUL, at,
				     g->b + (uint64_t)k0 * g->es,
				     g->c + 4 * (uint64_t)m0, mm, kk, N,
				     M * g->es, K * g->es, 4 * M);
			}
	} else {
		for (m0 = 0; m0 < M; m0 += R)
			for (n0 = 0; n0 < N; n0 += C) {
				uint32_t mm = M - m0 < R ? M - m0 : R;
				uint32_t nn = N - n0 < C ? N - n0 : C;

				push(g, MTX_MUL, g->a + (uint64_t)m0 * g->es,
				     g->b + (uint64_t)n0 * g->es,
				     g->c + 4 * ((uint64_t)m0 * N + n0), mm, K,
				     nn, M * g->es, N * g->es, 4 * N);
			}
	}
}

static void gemm_free(struct gemm *g)
{
	free(g->spm);
	free(g->cmds);
	free(g->av);
	free(g->bv);
}

/* Result element C[i][j] from the accumulator (C^T in IS). */
static uint32_t c_bits(const struct gemm *g, const uint8_t *acc, uint32_t i,
		       uint32_t j)
{
	uint64_t off = g->c + 4 * (uint64_t)(g->df == 2 ? j * g->m + i
						        : i * g->n + j);

	return (uint32_t)acc[off] | (uint32_t)acc[off + 1] << 8 |
	       (uint32_t)acc[off + 2] << 16 | (uint32_t)acc[off + 3] << 24;
}

/* The busy cycles the SCALE-Sim model gives for the tiled program. */
static uint64_t formula(const struct gemm *g, uint32_t R, uint32_t C)
{
	uint64_t folds, per;

	switch (g->df) {
	case 0:
		folds = (uint64_t)ceil_div(g->k, R) * ceil_div(g->n, C);
		per = 2 * (uint64_t)R + C + g->m - 2;
		break;
	case 2:
		folds = (uint64_t)ceil_div(g->k, R) * ceil_div(g->m, C);
		per = 2 * (uint64_t)R + C + g->n - 2;
		break;
	default:
		folds = (uint64_t)ceil_div(g->m, R) * ceil_div(g->n, C);
		per = (uint64_t)g->k + R + C - 2;
		break;
	}
	ck_assert_uint_eq(per, mtx_fold_cycles(g->df, R, C, g->m, g->k, g->n));
	return folds * per;
}

/* Exact int32 reference with the tiled program's wrapping arithmetic. */
static void check_int(const struct gemm *g, const uint8_t *acc)
{
	uint32_t i, j, k;

	for (i = 0; i < g->m; i++)
		for (j = 0; j < g->n; j++) {
			int64_t s = 0;

			for (k = 0; k < g->k; k++)
				s += (int64_t)g->av[i * g->k + k] *
				     (int64_t)g->bv[k * g->n + j];
			ck_assert_int_eq((int32_t)c_bits(g, acc, i, j),
					 (int32_t)(uint32_t)(uint64_t)s);
		}
}

/*
 * Float check, two ways: (1) bit-exact against the documented order done
 * with plain C floats: per k-tile a chain from +0 in increasing k, each
 * product rounded to fp32 (exact for fp16/bf16) and added with one
 * rounding, then added to C; (2) within the error bound of that recursive
 * summation against a double reference: (K + tiles) * 2^-24 * sum|a*b|.
 */
static void check_float(const struct gemm *g, const uint8_t *acc,
			uint32_t R)
{
	uint32_t i, j, k, k0;

	for (i = 0; i < g->m; i++)
		for (j = 0; j < g->n; j++) {
			uint32_t bits = c_bits(g, acc, i, j);
			float got, c = 0.0f;
			double ref = 0, mag = 0;

			memcpy(&got, &bits, 4);
			for (k0 = 0; k0 < g->k; k0 += R) {
				float chain = 0.0f;

				for (k = k0; k < g->k && k < k0 + R; k++) {
					volatile float p = (float)(g->av[i * g->k + k] *
								   g->bv[k * g->n + j]);

					chain = chain + p;
				}
				c = k0 ? c + chain : chain;
			}
			ck_assert_msg(memcmp(&got, &c, 4) == 0,
				      "C[%u][%u] = %a, ordered reference %a",
				      i, j, (double)got, (double)c);
			for (k = 0; k < g->k; k++) {
				ref += g->av[i * g->k + k] * g->bv[k * g->n + j];
				mag += fabs(g->av[i * g->k + k] * g->bv[k * g->n + j]);
			}
			ck_assert_msg(fabs((double)got - ref) <=
				      (g->k + ceil_div(g->k, R)) * ldexp(1, -24) * mag * 1.0001,
				      "C[%u][%u] = %.9g, exact %.9g", i, j,
				      (double)got, ref);
		}
}

static void expect_fault(const struct tile_cmd *cmds, int n, const char *text);

/* ---- tests: formula ------------------------------------------------------- */

START_TEST(matrix_formula_all_dataflows)
{
	static const uint32_t arrays[][2] = { { 4, 4 }, { 8, 8 }, { 16, 16 },
					      { 8, 4 }, { 4, 8 }, { 5, 3 },
					      { 32, 16 } };
	static const uint32_t shapes[][3] = {
		{ 1, 1, 1 }, { 4, 4, 4 }, { 16, 16, 16 }, { 17, 9, 5 },
		{ 3, 31, 12 }, { 40, 7, 33 }, { 9, 20, 1 }, { 33, 33, 33 },
		{ 2, 50, 7 },
	};
	size_t ai, si;
	int df, checked = 0;

	for (ai = 0; ai < sizeof(arrays) / sizeof(arrays[0]); ai++)
		for (si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++)
			for (df = 0; df < 3; df++) {
				uint32_t R = arrays[ai][0], C = arrays[ai][1];
				struct rig_cfg c = ideal((int)R, (int)C);
				struct gemm g;
				struct rig_out o;

				gemm_build(&g, df, DT_INT8, shapes[si][0],
					   shapes[si][1], shapes[si][2], R, C,
					   (uint32_t)(ai * 100 + si * 3 + (size_t)df));
				rig_run(&c, g.cmds, g.n_cmds, g.spm, NULL, &o);
				ck_assert_msg(o.rc == 0, "%s", o.diag);
				ck_assert_msg(o.ctr[CTR_MATRIX_BUSY_CYCLES] == formula(&g, R, C),
					      "df %d R %u C %u M %u K %u N %u: busy %llu, formula %llu",
					      df, R, C, g.m, g.k, g.n,
					      (unsigned long long)o.ctr[CTR_MATRIX_BUSY_CYCLES],
					      (unsigned long long)formula(&g, R, C));
				ck_assert_uint_eq(o.ctr[CTR_MATRIX_STALL_CYCLES], 0);
				ck_assert_uint_eq(o.ctr[CTR_MATRIX_MACS],
						  (uint64_t)g.m * g.k * g.n);
				ck_assert_uint_eq(o.ctr[CTR_MATRIX_PE_CYCLES],
						  formula(&g, R, C) * R * C);
				check_int(&g, o.acc);
				if (getenv("MTX_DEBUG"))
					fprintf(stderr, "df %d R %u C %u M %u K %u N %u busy %llu idle_at %llu events %llu\n",
						df, R, C, g.m, g.k, g.n,
						(unsigned long long)o.ctr[CTR_MATRIX_BUSY_CYCLES],
						(unsigned long long)o.idle_at,
						(unsigned long long)o.events);
				checked++;
				out_free(&o);
				gemm_free(&g);
			}
	ck_assert_int_eq(checked, 7 * 9 * 3);
}
END_TEST

START_TEST(matrix_formula_pipeline_latency)
{
	/* P extra cycles per fold; preloads are not folds */
	struct rig_cfg c = ideal(8, 8);
	struct gemm g;
	struct rig_out o;
	int df;

	c.pipe = 3;
	for (df = 0; df < 3; df++) {
		gemm_build(&g, df, DT_INT8, 13, 19, 11, 8, 8, 7);
		rig_run(&c, g.cmds, g.n_cmds, g.spm, NULL, &o);
		ck_assert_int_eq(o.rc, 0);
		ck_assert_uint_eq(o.ctr[CTR_MATRIX_BUSY_CYCLES],
				  formula(&g, 8, 8) + 3 * o.ctr[CTR_MATRIX_FOLDS]);
		check_int(&g, o.acc);
		out_free(&o);
		gemm_free(&g);
	}
}
END_TEST

START_TEST(matrix_formula_os_drain)
{
	/* explicit output drain: R more cycles per OS fold */
	struct rig_cfg c = ideal(8, 4);
	struct gemm g;
	struct rig_out o;

	c.os_drain = 1;
	gemm_build(&g, 1, DT_INT8, 21, 10, 9, 8, 4, 9);
	rig_run(&c, g.cmds, g.n_cmds, g.spm, NULL, &o);
	ck_assert_int_eq(o.rc, 0);
	ck_assert_uint_eq(o.ctr[CTR_MATRIX_BUSY_CYCLES],
			  formula(&g, 8, 4) + 8 * o.ctr[CTR_MATRIX_FOLDS]);
	check_int(&g, o.acc);
	out_free(&o);
	gemm_free(&g);
}
END_TEST

START_TEST(matrix_double_buffer_hides_preloads)
{
	/*
	 * WS and IS with weight double-buffering: every mpre but the first
	 * loads while the previous mmul computes, so busy = R + sum of the
	 * mmul intervals and only R preload cycles are exposed.
	 */
	int df;

	for (df = 0; df <= 2; df += 2) {
		struct rig_cfg c = ideal(8, 8);
		struct gemm g;
		struct rig_out o;
		uint64_t folds, mm;

		c.db = 1;
		gemm_build(&g, df, DT_INT8, 12, 30, 20, 8, 8, 11);
		rig_run(&c, g.cmds, g.n_cmds, g.spm, NULL, &o);
		ck_assert_int_eq(o.rc, 0);
		folds = o.ctr[CTR_MATRIX_FOLDS];
		mm = (df == 0 ? g.m : g.n) + 8 + 8 - 2;
		ck_assert_uint_eq(folds, df == 0 ? 4 * 3 : 4 * 2);
		ck_assert_uint_eq(o.ctr[CTR_MATRIX_BUSY_CYCLES], 8 + folds * mm);
		ck_assert_uint_eq(o.ctr[CTR_MATRIX_PRELOAD_CYCLES], 8);
		ck_assert_uint_lt(o.ctr[CTR_MATRIX_BUSY_CYCLES], formula(&g, 8, 8));
		check_int(&g, o.acc);
		out_free(&o);
		gemm_free(&g);
	}
}
END_TEST

/* ---- tests: values ---------------------------------------------------------- */

START_TEST(matrix_int8_gemm_exact)
{
	/* int8 and int16 (full-range products), all dataflows */
	static const int types[] = { DT_INT8, DT_INT16 };
	size_t t;
	int df;

	for (t = 0; t < 2; t++)
		for (df = 0; df < 3; df++) {
			struct rig_cfg c = ideal(16, 8);
			struct gemm g;
			struct rig_out o;

			gemm_build(&g, df, types[t], 37, 45, 29, 16, 8,
				   (uint32_t)(t * 10 + (size_t)df));
			rig_run(&c, g.cmds, g.n_cmds, g.spm, NULL, &o);
			ck_assert_msg(o.rc == 0, "%s", o.diag);
			check_int(&g, o.acc);
			out_free(&o);
			gemm_free(&g);
		}
}
END_TEST

START_TEST(matrix_float_gemm_ordered)
{
	static const int types[] = { DT_FP16, DT_BF16, DT_FP8E4M3, DT_FP32 };
	size_t t;
	int df;

	for (t = 0; t < 4; t++)
		for (df = 0; df < 3; df++) {
			struct rig_cfg c = ideal(8, 16);
			struct gemm g;
			struct rig_out o;

			gemm_build(&g, df, types[t], 23, 41, 19, 8, 16,
				   (uint32_t)(t * 7 + (size_t)df + 100));
			rig_run(&c, g.cmds, g.n_cmds, g.spm, NULL, &o);
			ck_assert_msg(o.rc == 0, "%s", o.diag);
			check_float(&g, o.acc, df == 1 ? g.k : 8);
			out_free(&o);
			gemm_free(&g);
		}
}
END_TEST

/*
 * mtx_decode's direct paths for int8 and bf16 (the operand rows of every
 * int8/bf16 fold) give the general rule's value for every bit pattern:
 * num_sext, and num_decode_f32 with its quietened NaNs.
 */
START_TEST(matrix_decode_fast_paths)
{
	uint8_t raw[2 * 65536];
	union mtx_val v[65536];
	uint32_t i;

	for (i = 0; i < 256; i++)
		raw[i] = (uint8_t)i;
	mtx_decode(DT_INT8, raw, 256, v);
	for (i = 0; i < 256; i++)
		ck_assert_int_eq(v[i].i, num_sext(i, 8));
	for (i = 0; i < 65536; i++) {
		raw[2 * i] = (uint8_t)i;
		raw[2 * i + 1] = (uint8_t)(i >> 8);
	}
	mtx_decode(DT_BF16, raw, 65536, v);
	for (i = 0; i < 65536; i++)
		ck_assert_uint_eq(num_f32_bits(v[i].f),
				  num_f32_bits(num_decode_f32(DT_BF16, i)));
}
END_TEST

/*
 * The integer pair kernels (mtx_imac: portable C, SSE2, AVX2, AVX-512
 * VNNI) against the k-ordered chain of num_mac_i32 over the same values,
 * on random int16 operands and on the extremes where pmaddwd's pair sum
 * leaves int32 ((-2^15)^2 + (-2^15)^2 = 2^31): the sums must agree
 * modulo 2^32.
 */
START_TEST(matrix_int_pairs_exact)
{
	enum { KP = 9, NP = 136 };
	static uint32_t ap[KP], w[KP * NP], out[NP], ref[NP];
	uint32_t seed = 12345, p, n;
	int impl, round;

	for (round = 0; round < 3; round++) {
		for (p = 0; p < KP; p++) {
			seed = seed * 1103515245u + 12345u;
			ap[p] = round == 1 ? 0x80008000u : seed;
			for (n = 0; n < NP; n++) {
				seed = seed * 1103515245u + 12345u;
				w[p * NP + n] = round == 1 ? 0x80008000u :
						round == 2 ? (seed | 0x80008000u) : seed;
			}
		}
		for (n = 0; n < NP; n++) {
			int32_t acc = 0;

			for (p = 0; p < KP; p++) {
				int32_t a0 = (int16_t)(ap[p] & 0xffff);
				int32_t a1 = (int16_t)(ap[p] >> 16);
				int32_t w0 = (int16_t)(w[p * NP + n] & 0xffff);
				int32_t w1 = (int16_t)(w[p * NP + n] >> 16);

				acc = num_mac_i32(acc, a0, w0);
				acc = num_mac_i32(acc, a1, w1);
			}
			ref[n] = (uint32_t)acc;
		}
		for (impl = 0; impl <= 4; impl++) {
			/* every step the kernels take: 128, 64, 32, 16, 8
			 * columns */
			uint32_t nps[] = { NP, 64, 40, 8, 24, 120 };
			size_t i;

			for (i = 0; i < 6; i++) {
				uint32_t np = nps[i];
				static uint32_t w2[KP * NP];

				for (p = 0; p < KP; p++)
					memcpy(w2 + p * np, w + p * NP, np * 4);
				memset(out, 0xa5, sizeof(out));
				mtx_imac(ap, KP, w2, np, out, impl);
				for (n = 0; n < np; n++)
					ck_assert_uint_eq(out[n], ref[n]);
			}
		}
	}
}
END_TEST

/*
 * The int8 quad kernels (mtx_imac8: portable C, AVX-512 VNNI where the
 * host has it) give the int32 sums of the products in k order, wrapping,
 * for operands a + 128 and the tile's column sums: random bytes, all
 * -128 (the largest products), an odd and an even number of quads, every
 * column step (128 and 16 at a time).
 */
START_TEST(matrix_int8_quads_exact)
{
	enum { KQ = 11, NP = 160 };
	static uint32_t aq[KQ], w[KQ * NP], out[NP], ref[NP];
	static int32_t sum[NP];
	uint32_t seed = 777, q, n, i;
	int impl, round;

	for (round = 0; round < 3; round++) {
		for (q = 0; q < KQ; q++) {
			seed = seed * 1103515245u + 12345u;
			/* a = -128 is the operand byte 0 */
			aq[q] = round == 1 ? 0 : seed;
			for (n = 0; n < NP; n++) {
				seed = seed * 1103515245u + 12345u;
				w[q * NP + n] = round == 1 ? 0x80808080u :
						round == 2 ? seed | 0x80808080u : seed;
			}
		}
		for (impl = 1; impl <= 4; impl += 3) {
			uint32_t nps[] = { NP, 128, 48, 16 }, kqs[] = { KQ, 10, 1 };
			size_t a, b;

			for (a = 0; a < 4; a++)
				for (b = 0; b < 3; b++) {
					uint32_t np = nps[a], kq = kqs[b];
					static uint32_t w2[KQ * NP];

					for (n = 0; n < np; n++) {
						int32_t acc = 0, ws = 0;

						for (q = 0; q < kq; q++)
							for (i = 0; i < 4; i++) {
								int32_t x = (int32_t)(aq[q] >> (8 * i) & 0xff) - 128;
								int32_t y = (int8_t)(w[q * NP + n] >> (8 * i));

								acc = num_mac_i32(acc, x, y);
								ws += y;
							}
						ref[n] = (uint32_t)acc;
						sum[n] = ws;
					}
					for (q = 0; q < kq; q++)
						memcpy(w2 + q * np, w + q * NP, np * 4);
					memset(out, 0xa5, sizeof(out));
					mtx_imac8(aq, kq, w2, np, sum, out, impl);
					for (n = 0; n < np; n++)
						ck_assert_uint_eq(out[n], ref[n]);
				}
		}
	}
}
END_TEST

/*
 * Packed PEs (core.matrix.macs_per_pe.<type> = p): a WS/IS fold holds pR
 * rows of K and takes the same cycles as an unpacked fold of R; an OS
 * fold streams K rows in ceil(K/p) cycles.  Values as without packing
 * (int exact; fp8 in the documented k order, chains of pR in WS/IS).  The
 * per-PE model refuses a packed type.
 */
START_TEST(matrix_packed_macs)
{
	static const uint32_t shapes[][3] = { { 16, 32, 8 }, { 9, 21, 13 },
					      { 24, 64, 24 }, { 5, 7, 3 } };
	static const int packs[] = { 2, 4 };
	size_t si, pi;
	int df, fp;

	for (pi = 0; pi < 2; pi++)
	for (fp = 0; fp < 2; fp++)
	for (si = 0; si < 4; si++)
	for (df = 0; df < 3; df++) {
		uint32_t R = 8, C = 8, p = (uint32_t)packs[pi];
		uint32_t M = shapes[si][0], K = shapes[si][1], N = shapes[si][2];
		struct rig_cfg c = ideal((int)R, (int)C);

		/* one M and N tile, so that the packed rows are dense (the
		 * strided case is below) */
		M = M < R ? M : R;
		N = N < C ? N : C;
		struct gemm g;
		struct rig_out o;
		uint64_t folds, per;

		if (fp)
			c.pack_fp8 = (int)p;
		else
			c.pack_int8 = (int)p;
		/* WS/IS tile K by pR; OS tiles M by R and streams all K */
		gemm_build(&g, df, fp ? DT_FP8E4M3 : DT_INT8, M, K, N,
			   df == 1 ? R : p * R, C, (uint32_t)(si * 11 + pi + 3));
		rig_run(&c, g.cmds, g.n_cmds, g.spm, NULL, &o);
		ck_assert_msg(o.rc == 0, "%s", o.diag);
		switch (df) {
		case 0:
			folds = (uint64_t)ceil_div(K, p * R) * ceil_div(N, C);
			per = 2 * (uint64_t)R + C + M - 2;
			break;
		case 2:
			folds = (uint64_t)ceil_div(K, p * R) * ceil_div(M, C);
			per = 2 * (uint64_t)R + C + N - 2;
			break;
		default:
			folds = (uint64_t)ceil_div(M, R) * ceil_div(N, C);
			per = (uint64_t)ceil_div(K, p) + R + C - 2;
			break;
		}
		ck_assert_msg(o.ctr[CTR_MATRIX_BUSY_CYCLES] == folds * per,
			      "pack %u df %d %ux%ux%u: busy %llu want %llu", p,
			      df, M, K, N,
			      (unsigned long long)o.ctr[CTR_MATRIX_BUSY_CYCLES],
			      (unsigned long long)(folds * per));
		ck_assert_uint_eq(o.ctr[CTR_MATRIX_MACS], (uint64_t)M * K * N);
		if (fp)
			check_float(&g, o.acc, df == 1 ? K : p * R);
		else
			check_int(&g, o.acc);
		out_free(&o);
		gemm_free(&g);
	}
	/* strided packed rows are separate accesses: the array stalls */
	{
		struct rig_cfg c = ideal(8, 8);
		struct gemm g;
		struct rig_out o;

		c.pack_int8 = 2;
		gemm_build(&g, 1, DT_INT8, 16, 32, 8, 8, 8, 9);
		rig_run(&c, g.cmds, g.n_cmds, g.spm, NULL, &o);
		ck_assert_int_eq(o.rc, 0);
		check_int(&g, o.acc);
		ck_assert_uint_gt(o.ctr[CTR_MATRIX_STALL_SRAM], 0);
		ck_assert_uint_eq(o.ctr[CTR_MATRIX_BUSY_CYCLES],
				  2 * (16 + 8 + 8 - 2) + o.ctr[CTR_MATRIX_STALL_SRAM]);
		out_free(&o);
		gemm_free(&g);
	}
	/* the per-PE model does one MAC per PE: a packed type faults */
	{
		struct rig_cfg c = ideal(8, 8);
		struct gemm g;
		struct rig_out o;

		c.pack_int8 = 2;
		c.model = ARCH_MTX_MODEL_PE;
		gemm_build(&g, 1, DT_INT8, 8, 8, 8, 8, 8, 5);
		rig_run(&c, g.cmds, g.n_cmds, g.spm, NULL, &o);
		ck_assert_int_eq(o.rc, NPU_EFAULT);
		ck_assert_msg(strstr(o.diag, "macs_per_pe.int8") != NULL, "%s",
			      o.diag);
		out_free(&o);
		gemm_free(&g);
	}
	/* a WS tile of pR + 1 rows does not fit */
	{
		struct tile_cmd t;

		memset(&t, 0, sizeof(t));
		t.u.m.kind = MTX_PRELOAD;
		t.u.m.cfg.in_type = DT_INT8;
		t.u.m.cfg.acc_type = DT_INT32;
		t.u.m.cfg.m = 4;
		t.u.m.cfg.k = 9;
		t.u.m.cfg.n = 4;
		expect_fault(&t, 1, "K<=8");
	}
}
END_TEST

/* ---- tests: the per-PE reference model ------------------------------------ */

/* Append a mout of the whole C tile (int8, scale 1/64, relu) to a program. */
static void add_mout(struct gemm *g, uint64_t dst)
{
	struct tile_cmd *t = &g->cmds[g->n_cmds++];
	uint32_t rows = g->df == 2 ? g->n : g->m;
	uint32_t cols = g->df == 2 ? g->m : g->n;

	memset(t, 0, sizeof(*t));
	t->pc = 0x2000;
	t->u.m.kind = MTX_OUT;
	t->u.m.c = g->c;
	t->u.m.d = dst;
	t->u.m.cfg.dataflow = g->df;
	t->u.m.cfg.in_type = g->in_type;
	t->u.m.cfg.acc_type = dtype_is_float((enum npu_dtype)g->in_type)
			      ? DT_FP32 : DT_INT32;
	t->u.m.cfg.m = g->m;
	t->u.m.cfg.k = g->k;
	t->u.m.cfg.n = g->n;
	t->u.m.cfg.c_stride = 4 * cols;
	t->u.m.cfg.out_type = DT_INT8;
	t->u.m.cfg.out_scale = 1.0f / 64;
	t->u.m.cfg.out_zp = 3;
	t->u.m.cfg.out_act = 1;
	t->u.m.cfg.out_stride = cols;
	(void)rows;
}

/*
 * Run one program on both models and require identical memories, counters
 * and finishing cycle.  Returns the fast model's stall cycles.
 */
static uint64_t both_models(const struct rig_cfg *c0, struct gemm *g,
			    const char *what)
{
	struct rig_cfg c = *c0;
	struct rig_out f, p;
	int i;
	uint64_t stall;

	c.model = ARCH_MTX_MODEL_FAST;
	rig_run(&c, g->cmds, g->n_cmds, g->spm, NULL, &f);
	c.model = ARCH_MTX_MODEL_PE;
	rig_run(&c, g->cmds, g->n_cmds, g->spm, NULL, &p);
	ck_assert_msg(f.rc == 0, "%s: fast: %s", what, f.diag);
	ck_assert_msg(p.rc == 0, "%s: pe: %s", what, p.diag);
	ck_assert_msg(f.idle_at == p.idle_at, "%s: finished at %llu (fast) vs %llu (pe)",
		      what, (unsigned long long)f.idle_at,
		      (unsigned long long)p.idle_at);
	for (i = 0; i < CTR_N; i++)
		ck_assert_msg(f.ctr[i] == p.ctr[i],
			      "%s: counter %s: fast %llu, pe %llu", what,
			      ctr_info[i].name, (unsigned long long)f.ctr[i],
			      (unsigned long long)p.ctr[i]);
	ck_assert_msg(memcmp(f.acc, p.acc, ACC_BYTES) == 0,
		      "%s: accumulator contents differ", what);
	ck_assert_msg(memcmp(f.spm, p.spm, SPM_BYTES) == 0,
		      "%s: scratchpad contents differ", what);
	if (!dtype_is_float((enum npu_dtype)g->in_type))
		check_int(g, f.acc);
	stall = f.ctr[CTR_MATRIX_STALL_SRAM];
	out_free(&f);
	out_free(&p);
	return stall;
}

START_TEST(matrix_pe_equals_fast_shapes)
{
	static const uint32_t arrays[][2] = { { 4, 4 }, { 8, 4 }, { 3, 7 },
					      { 8, 8 } };
	static const uint32_t shapes[][3] = {
		{ 1, 1, 1 }, { 4, 4, 4 }, { 11, 9, 5 }, { 3, 17, 12 },
		{ 20, 7, 13 }, { 8, 8, 9 },
	};
	static const int types[] = { DT_INT8, DT_FP16, DT_BF16 };
	size_t ai, si, ti;
	int df, n = 0;

	for (ai = 0; ai < 4; ai++)
		for (si = 0; si < 6; si++)
			for (df = 0; df < 3; df++)
				for (ti = 0; ti < 3; ti++) {
					uint32_t R = arrays[ai][0], C = arrays[ai][1];
					struct rig_cfg c = ideal((int)R, (int)C);
					struct gemm g;
					char what[96];

					gemm_build(&g, df, types[ti], shapes[si][0],
						   shapes[si][1], shapes[si][2], R,
						   C, (uint32_t)(ai + 10 * si + 100 * ti + 7 * (size_t)df));
					add_mout(&g, SPM_BYTES / 2);
					snprintf(what, sizeof(what),
						 "df %d %s R %u C %u M %u K %u N %u",
						 df, dtype_name((enum npu_dtype)types[ti]),
						 R, C, g.m, g.k, g.n);
					(void)both_models(&c, &g, what);
					gemm_free(&g);
					n++;
				}
	ck_assert_int_eq(n, 4 * 6 * 3 * 3);
}
END_TEST

START_TEST(matrix_pe_equals_fast_options)
{
	/* pipeline latency, OS drain, double-buffering, narrow SRAMs */
	int df, opt;

	for (opt = 0; opt < 4; opt++)
		for (df = 0; df < 3; df++) {
			struct rig_cfg c = ideal(6, 5);
			struct gemm g;
			char what[64];

			if (opt == 0)
				c.pipe = 2;
			if (opt == 1)
				c.os_drain = 1;
			if (opt == 2)
				c.db = 1;
			if (opt == 3) {
				/* rows wider than a bank row: every access
				 * takes several cycles and the array stalls
				 * on bandwidth */
				c.spm_banks = 2;
				c.spm_width = 2;
				c.acc_banks = 2;
				c.acc_width = 4;
				c.spm_lat = 2;
				c.acc_lat = 3;
			}
			gemm_build(&g, df, DT_INT8, 14, 13, 11, 6, 5,
				   (uint32_t)(opt * 3 + df));
			add_mout(&g, SPM_BYTES / 2);
			snprintf(what, sizeof(what), "option %d df %d", opt, df);
			(void)both_models(&c, &g, what);
			gemm_free(&g);
		}
}
END_TEST

START_TEST(matrix_pe_equals_fast_contention)
{
	/*
	 * A competing requestor hammers scratchpad banks; under fixed
	 * priority it wins (registered before the matrix unit), under
	 * round-robin it alternates.  Both models must stall identically.
	 */
	int df, arb, per;
	uint64_t stalls = 0;

	for (arb = 0; arb < 2; arb++)
		for (per = 1; per <= 3; per++)
			for (df = 0; df < 3; df++) {
				struct rig_cfg c = ideal(4, 4);
				struct gemm g;
				char what[64];

				c.spm_banks = 4;
				c.spm_width = 4;
				c.spm_ports = 1;
				c.arb = arb ? SRAM_ARB_FIXED : SRAM_ARB_RR;
				c.hog_addr = 0;
				c.hog_bytes = (uint32_t)(4 * per + 2);
				c.hog_period = (cycle_t)per;
				c.hog_from = 3;
				c.hog_until = 400;
				gemm_build(&g, df, per == 2 ? DT_FP16 : DT_INT8,
					   10, 9, 7, 4, 4,
					   (uint32_t)(arb * 9 + per * 3 + df));
				snprintf(what, sizeof(what),
					 "arb %d period %d df %d", arb, per, df);
				stalls += both_models(&c, &g, what);
				gemm_free(&g);
			}
	/* the contention was felt */
	ck_assert_uint_gt(stalls, 100);
}
END_TEST

/* Run g with fast-forward off (a) and on (b), c otherwise as given, and
 * check that they agree: finishing cycle, every counter of the engine and
 * both memories, the memories' bytes ('what' names the case). */
static void ff_compare(struct rig_cfg *c, const struct gemm *g,
		       const char *what, struct rig_out *a, struct rig_out *b)
{
	c->no_ff = 1;
	rig_run(c, g->cmds, g->n_cmds, g->spm, NULL, a);
	c->no_ff = 0;
	rig_run(c, g->cmds, g->n_cmds, g->spm, NULL, b);
	ck_assert_msg(a->rc == 0 && b->rc == 0, "%s: rc %d %d (%s)",
		      what, a->rc, b->rc, b->diag);
	ck_assert_msg(a->idle_at == b->idle_at, "%s: idle at %llu, %llu",
		      what, (unsigned long long)a->idle_at,
		      (unsigned long long)b->idle_at);
	ck_assert_msg(a->digest == b->digest, "%s: counters differ", what);
	ck_assert_msg(!memcmp(a->ctr, b->ctr, sizeof(a->ctr)),
		      "%s: matrix counters differ", what);
	ck_assert_msg(!memcmp(a->spm, b->spm, SPM_BYTES) &&
		      !memcmp(a->acc, b->acc, ACC_BYTES),
		      "%s: memory differs", what);
}

/*
 * Fast-forward (matrix_ff.c: uncontended streaming applied window by window)
 * against every cycle's events: the same counters of the matrix and of
 * both memories (per bank, per requestor) at every pause of a run paused
 * every few cycles and at its end, the same memory contents and finishing
 * cycle, for every dataflow, int and float types, memories whose rows
 * take one cycle or several, latency 1 and 2, double-buffering, pipeline
 * latency, OS drain, packed MACs, a mout, and a competing requestor under
 * both arbitrations.  And fast-forward must save events where it applies.
 */
START_TEST(matrix_fast_forward_same_results)
{
	static const int types[] = { DT_INT8, DT_BF16 };
	int df, ti, geo, opt, hog, step;
	uint64_t ev_ff = 0, ev_all = 0, ev_ideal_ff = 0, ev_ideal_all = 0;
	uint64_t stalls = 0;

	for (df = 0; df < 3; df++)
	for (ti = 0; ti < 2; ti++)
	for (geo = 0; geo < 5; geo++)
	for (opt = 0; opt < 5; opt++)
	for (hog = 0; hog < 3; hog++)
	for (step = 0; step < 2; step++) {
		struct rig_cfg c = ideal(8, 8);
		struct gemm g;
		struct rig_out a, b;
		char what[160];
		uint32_t seed = (uint32_t)(((df * 2 + ti) * 4 + geo) * 5 + opt);

		if (opt == 4 && ti)
			continue; /* packed int8 only */
		switch (geo) {
		case 1: /* 8 banks x 4 B: 8-byte int8 rows in one cycle, 32-byte
			 * result rows too */
			c.spm_banks = c.acc_banks = 8;
			c.spm_width = c.acc_width = 4;
			c.spm_ports = c.acc_ports = 1;
			break;
		case 2: /* narrow: rows take several cycles */
			c.spm_banks = c.acc_banks = 2;
			c.spm_width = c.acc_width = 4;
			c.spm_ports = c.acc_ports = 1;
			break;
		case 3: /* latency 2 */
			c.spm_lat = c.acc_lat = 2;
			break;
		case 4: /* 6 banks of 8 B: a 48-byte span, not a power of
			 * two, that row strides of 13 or 19 bytes take up
			 * to 48 rows to repeat */
			c.spm_banks = c.acc_banks = 6;
			c.spm_width = c.acc_width = 8;
			c.spm_ports = c.acc_ports = 1;
			break;
		default:
			break;
		}
		c.db = opt == 1;
		c.pipe = opt == 2 ? 3 : 0;
		c.os_drain = opt == 3;
		c.pack_int8 = opt == 4 ? 2 : 0;
		if (hog) {
			c.arb = hog == 2 ? SRAM_ARB_FIXED : SRAM_ARB_RR;
			c.hog_addr = 8 * (uint64_t)hog;
			c.hog_bytes = 12;
			c.hog_period = hog == 1 ? 7 : 23;
			c.hog_from = 40 + 13 * (cycle_t)(seed % 7);
			c.hog_until = c.hog_from + 300;
		}
		c.step = step ? 17 + seed % 11 : 0;
		gemm_build(&g, df, types[ti], 21, 19, 13,
			   df == 1 ? 8 : (opt == 4 ? 16 : 8), 8, seed + 1);
		if (ti == 0 && opt == 0) {
			/* requantise C to the scratchpad at the end */
			struct tile_cmd *t = &g.cmds[g.n_cmds++];

			memset(t, 0, sizeof(*t));
			t->pc = 0x2000;
			t->u.m.kind = MTX_OUT;
			t->u.m.c = g.c;
			t->u.m.d = 0x30000;
			t->u.m.cfg.dataflow = df;
			t->u.m.cfg.in_type = DT_INT8;
			t->u.m.cfg.acc_type = DT_INT32;
			t->u.m.cfg.m = df == 2 ? g.m : 8;
			t->u.m.cfg.k = 1;
			t->u.m.cfg.n = df == 2 ? 8 : g.n;
			t->u.m.cfg.c_stride = 4 * (df == 2 ? g.m : g.n);
			t->u.m.cfg.out_type = DT_INT8;
			t->u.m.cfg.out_scale = 1.0f / 64;
		}
		snprintf(what, sizeof(what),
			 "df %d type %d geo %d opt %d hog %d step %llu", df,
			 types[ti], geo, opt, hog, (unsigned long long)c.step);
		ff_compare(&c, &g, what, &a, &b);
		ev_all += a.events;
		ev_ff += b.events;
		if (geo == 0 && !hog) {
			ev_ideal_all += a.events;
			ev_ideal_ff += b.events;
		}
		stalls += a.ctr[CTR_MATRIX_STALL_SRAM];
		out_free(&a);
		out_free(&b);
		gemm_free(&g);
	}
	/* contention was felt, and fast-forward saved most events where
	 * nothing contends */
	ck_assert_uint_gt(stalls, 100);
	ck_assert_uint_lt(ev_ff, ev_all);
	ck_assert_uint_lt(3 * ev_ideal_ff, ev_ideal_all);
}
END_TEST

/*
 * Fast-forward of a stalling stream (matrix_ff.c, "fast-forward over a
 * stalling stream"): result rows that take w = 2, 4 or 8 cycles of the
 * accumulator stall the array on every row, a regime whose periods are
 * applied at once.  The same results with and without it - counters of
 * the engine and both memories at every pause, memories, finishing cycle
 * - for WS, IS and OS (two read streams: not fast-forwarded), int8 and
 * bf16, long streams, rows aligned to the banks or not, a competitor on
 * the accumulator (both arbitrations)
 * or the scratchpad, latency 2 (not fast-forwarded), packed MACs, and
 * runs paused every 17-27 cycles; and most events saved where it applies.
 */
START_TEST(matrix_fast_forward_stalls_same_results)
{
	static const int types[] = { DT_INT8, DT_BF16 };
	int df, ti, geo, var, step;
	uint64_t ev_ff = 0, ev_all = 0, stalls = 0;

	for (df = 0; df < 3; df++)
	for (ti = 0; ti < 2; ti++)
	for (geo = 0; geo < 4; geo++)
	for (var = 0; var < 5; var++)
	for (step = 0; step < 2; step++) {
		struct rig_cfg c = ideal(8, 8);
		struct gemm g;
		struct rig_out a, b;
		char what[160];
		uint32_t seed = (uint32_t)(((df * 2 + ti) * 4 + geo) * 5 + var);

		/* 8 x 4-byte results = 32-byte rows against 16, 8 or 4 bytes
		 * a cycle (w = 2, 4, 8); geo 3: 8 a cycle at latency 2 */
		c.acc_banks = geo == 0 ? 4 : geo == 2 ? 1 : 2;
		c.acc_width = 4;
		c.acc_ports = 1;
		c.acc_lat = geo == 3 ? 2 : 1;
		if (var == 1 || var == 2) {
			/* a competitor on the accumulator for a while */
			c.hog_acc = 1;
			c.arb = var == 2 ? SRAM_ARB_FIXED : SRAM_ARB_RR;
			c.hog_addr = 4096;
			c.hog_bytes = 12;
			c.hog_period = 5 + seed % 9;
			c.hog_from = 300 + 37 * (cycle_t)(seed % 5);
			c.hog_until = c.hog_from + 150;
		} else if (var == 3) {
			/* ... on the scratchpad */
			c.hog_addr = 8;
			c.hog_bytes = 12;
			c.hog_period = 11;
			c.hog_from = 500;
			c.hog_until = 900;
		}
		if (var == 4 && ti)
			continue; /* packed int8 only */
		c.pack_int8 = var == 4 ? 2 : 0;
		c.step = step ? 17 + seed % 11 : 0;
		/* N = 10: 40-byte result rows, whose bank alignment alternates
		 * (each still takes the same cycles) */
		gemm_build(&g, df, types[ti], 150, 20, step ? 10 : 12,
			   df == 1 ? 8 : (var == 4 ? 16 : 8), 8, seed + 7);
		snprintf(what, sizeof(what), "df %d type %d geo %d var %d step %llu",
			 df, types[ti], geo, var, (unsigned long long)c.step);
		ff_compare(&c, &g, what, &a, &b);
		if (df != 1 && geo != 3 && var != 1 && var != 2 && !step) {
			ev_all += a.events;
			ev_ff += b.events;
		}
		stalls += a.ctr[CTR_MATRIX_STALL_SRAM];
		out_free(&a);
		out_free(&b);
		gemm_free(&g);
	}
	/* the array stalled, and where the regime is alone (WS, IS,
	 * latency 1, no competitor) fast-forward saved most events */
	ck_assert_uint_gt(stalls, 10000);
	ck_assert_uint_lt(2 * ev_ff, ev_all);
}
END_TEST

/* ---- tests: stalls, mout, faults, cost ------------------------------------ */

START_TEST(matrix_contention_stalls_counted)
{
	/* busy = formula + stall cycles; the hog's bank conflicts show */
	struct rig_cfg c = ideal(8, 8);
	struct gemm g;
	struct rig_out o;

	c.spm_banks = 2;
	c.spm_width = 8;
	c.spm_ports = 1;
	c.arb = SRAM_ARB_FIXED;
	c.hog_addr = 0;
	c.hog_bytes = 16;
	c.hog_period = 2;
	c.hog_from = 0;
	c.hog_until = 300;
	gemm_build(&g, 0, DT_INT8, 30, 8, 8, 8, 8, 5);
	rig_run(&c, g.cmds, g.n_cmds, g.spm, NULL, &o);
	ck_assert_int_eq(o.rc, 0);
	ck_assert_uint_gt(o.ctr[CTR_MATRIX_STALL_SRAM], 0);
	ck_assert_uint_eq(o.ctr[CTR_MATRIX_STALL_CYCLES],
			  o.ctr[CTR_MATRIX_STALL_SRAM]);
	ck_assert_uint_eq(o.ctr[CTR_MATRIX_BUSY_CYCLES],
			  formula(&g, 8, 8) + o.ctr[CTR_MATRIX_STALL_SRAM]);
	check_int(&g, o.acc);
	out_free(&o);
	gemm_free(&g);
}
END_TEST

/* Independent requantisation reference: doubles and nearbyint (RNE). */
static double ref_requant(double acc, int act, double scale, int zp, int ot)
{
	double y;

	if (act && acc < 0)
		acc = 0;
	y = acc * scale;
	if (dtype_is_float((enum npu_dtype)ot))
		return num_decode((enum npu_dtype)ot,
				  num_encode((enum npu_dtype)ot, y + zp, NUM_OVF_SAT));
	y = nearbyint(y) + zp;
	if (y > num_max((enum npu_dtype)ot))
		y = num_max((enum npu_dtype)ot);
	if (y < num_min((enum npu_dtype)ot))
		y = num_min((enum npu_dtype)ot);
	return y;
}

START_TEST(matrix_mout_requant)
{
	static const int32_t accs[] = { 0, 1, -1, 5, 7, -5, -7, 100, -100, 383,
					-384, 1 << 20, -(1 << 20), 2147483647,
					-2147483647 - 1, 12345, -999 };
	static const float scales[] = { 0.5f, 1.0f / 64, 0.25f, 1.5f, 3.0f,
					1e-7f, 0.1f };
	static const int zps[] = { 0, 3, -7 };
	static const int outs[] = { DT_INT8, DT_INT4, DT_INT16, DT_INT32,
				    DT_FP16, DT_BF16 };
	size_t ai, si, zi, oi;
	int act, acc_fp;

	for (acc_fp = 0; acc_fp < 2; acc_fp++)
		for (oi = 0; oi < 6; oi++)
			for (si = 0; si < 7; si++)
				for (zi = 0; zi < 3; zi++)
					for (act = 0; act < 2; act++) {
						uint32_t n = sizeof(accs) / sizeof(accs[0]);
						uint8_t *acc = calloc(1, ACC_BYTES);
						struct tile_cmd t;
						struct rig_cfg c = ideal(4, 4);
						struct rig_out o;

						ck_assert_ptr_nonnull(acc);
						for (ai = 0; ai < n; ai++) {
							uint32_t b = (uint32_t)accs[ai];

							if (acc_fp) {
								float f = (float)accs[ai] / 16;

								memcpy(&b, &f, 4);
							}
							memcpy(acc + 4 * ai, &b, 4);
						}
						memset(&t, 0, sizeof(t));
						t.u.m.kind = MTX_OUT;
						t.u.m.c = 0;
						t.u.m.d = 256;
						t.u.m.cfg.acc_type = acc_fp ? DT_FP32 : DT_INT32;
						t.u.m.cfg.in_type = acc_fp ? DT_FP16 : DT_INT8;
						t.u.m.cfg.m = 1;
						t.u.m.cfg.k = 1;
						t.u.m.cfg.n = n;
						t.u.m.cfg.out_type = outs[oi];
						t.u.m.cfg.out_scale = scales[si];
						t.u.m.cfg.out_zp = zps[zi];
						t.u.m.cfg.out_act = act;
						rig_run(&c, &t, 1, NULL, acc, &o);
						ck_assert_msg(o.rc == 0, "%s", o.diag);
						for (ai = 0; ai < n; ai++) {
							double a = acc_fp ? (double)((float)accs[ai] / 16)
									  : (double)accs[ai];
							double want = ref_requant(a, act, scales[si],
										  zps[zi], outs[oi]);
							double got = num_load((enum npu_dtype)outs[oi],
									      o.spm + 256, ai);

							ck_assert_msg(got == want,
								      "acc %.9g act %d scale %g zp %d -> %s: got %.9g want %.9g",
								      a, act, (double)scales[si], zps[zi],
								      dtype_name((enum npu_dtype)outs[oi]),
								      got, want);
						}
						/* the output went through the scratchpad */
						ck_assert_uint_eq(o.ctr[CTR_MATRIX_OUT_CYCLES], 2);
						ck_assert_uint_eq(o.ctr[CTR_MATRIX_BUSY_CYCLES], 0);
						free(acc);
						out_free(&o);
					}
}
END_TEST

/*
 * The fused output stage, an independent reference in doubles: bias,
 * per-column scale, activation (the textbook formulas), OSCALE, the
 * column's zero point, RNE and saturation.  Values are chosen so that
 * every binary64 step of the reference is exact except the activation.
 */
static double ref_fused(double acc, int acc_fp, int has_bias, double bias,
			double cs, int act, double scale, int zp, int ot)
{
	double v = acc, x, y;

	if (has_bias) {
		v = acc + bias;
		if (acc_fp)
			v = (double)(float)v;
		else if (v > 2147483647.0)
			v = 2147483647.0;
		else if (v < -2147483648.0)
			v = -2147483648.0;
	}
	x = v * cs;
	if (act == 1)
		x = x < 0 ? 0 : x;
	else if (act == 2)
		x = 0.5 * x * (1 + erf(x / sqrt(2.0)));
	else if (act == 3)
		x = x / (1 + exp(-x));
	y = x * scale;
	if (dtype_is_float((enum npu_dtype)ot))
		return num_decode((enum npu_dtype)ot,
				  num_encode((enum npu_dtype)ot, y + zp, NUM_OVF_SAT));
	y = nearbyint(y) + zp;
	if (y > num_max((enum npu_dtype)ot))
		y = num_max((enum npu_dtype)ot);
	if (y < num_min((enum npu_dtype)ot))
		y = num_min((enum npu_dtype)ot);
	return y;
}

/*
 * mout with ofuse: a 3x5 accumulator tile through bias, per-column scale
 * and zero point, and every activation, for both accumulator types, in
 * WS orientation (the channel is the column) and IS orientation (the
 * channel is the stored row); the parameter row costs no cycle alone.
 */
START_TEST(matrix_mout_fused)
{
	static const int32_t accs[15] = { 0, 1, -1, 50, -50, 383, -384, 1000,
					  -1000, 2147483000, -2147483000, 77,
					  -77, 12, -12 };
	static const int32_t ibias[5] = { 0, 10, -10, 2000, -2000 };
	static const float cs[5] = { 1.0f, 0.5f, 0.03125f, -0.25f, 3.0f };
	static const int32_t czp[5] = { 0, 3, -7, 1, 0 };
	static const int outs[] = { DT_INT8, DT_INT16, DT_FP32, DT_BF16 };
	static const float oscales[] = { 1.0f, 0.125f };
	int fuse, act, acc_fp, oi, si, is;

	for (is = 0; is < 2; is++)
	for (acc_fp = 0; acc_fp < 2; acc_fp++)
	for (fuse = 0; fuse < 4; fuse++)
	for (act = 0; act < 4; act++)
	for (oi = 0; oi < 4; oi++)
	for (si = 0; si < 2; si++) {
		/* stored tile: WS 3 rows of N=5; IS N=5 rows of M=3 */
		uint32_t rows = is ? 5 : 3, cols = is ? 3 : 5, r, j;
		uint32_t eb = (fuse & 1 ? 4 : 0) + (fuse & 2 ? 8 : 0);
		uint8_t *acc = calloc(1, ACC_BYTES), *spm = calloc(1, SPM_BYTES);
		struct tile_cmd t;
		struct rig_cfg c = ideal(8, 8);
		struct rig_out o;

		ck_assert_ptr_nonnull(acc);
		ck_assert_ptr_nonnull(spm);
		for (r = 0; r < rows * cols; r++) {
			uint32_t b = (uint32_t)accs[r];

			if (acc_fp) {
				float f = (float)accs[r] / 16;

				memcpy(&b, &f, 4);
			}
			memcpy(acc + 4 * r, &b, 4);
		}
		for (j = 0; j < 5; j++) {
			uint8_t *e = spm + 1024 + j * eb;

			if (fuse & 1) {
				uint32_t b = (uint32_t)ibias[j];

				if (acc_fp) {
					float f = (float)ibias[j] / 4;

					memcpy(&b, &f, 4);
				}
				memcpy(e, &b, 4);
				e += 4;
			}
			if (fuse & 2) {
				memcpy(e, &cs[j], 4);
				memcpy(e + 4, &czp[j], 4);
			}
		}
		memset(&t, 0, sizeof(t));
		t.u.m.kind = MTX_OUT;
		t.u.m.c = 0;
		t.u.m.d = 4096;
		t.u.m.cfg.dataflow = is ? 2 : 0;
		t.u.m.cfg.acc_type = acc_fp ? DT_FP32 : DT_INT32;
		t.u.m.cfg.in_type = acc_fp ? DT_FP16 : DT_INT8;
		t.u.m.cfg.m = 3;
		t.u.m.cfg.k = 1;
		t.u.m.cfg.n = 5;
		t.u.m.cfg.out_type = outs[oi];
		t.u.m.cfg.out_scale = oscales[si];
		t.u.m.cfg.out_zp = 2;
		t.u.m.cfg.out_act = act;
		t.u.m.cfg.out_fuse = (uint32_t)fuse;
		t.u.m.cfg.out_par = 1024;
		rig_run(&c, &t, 1, spm, acc, &o);
		ck_assert_msg(o.rc == 0, "%s", o.diag);
		for (r = 0; r < rows; r++)
			for (j = 0; j < cols; j++) {
				uint32_t i = r * cols + j, ch = is ? r : j;
				double a = acc_fp ? (double)((float)accs[i] / 16)
						  : (double)accs[i];
				double bias = acc_fp ? (double)((float)ibias[ch] / 4)
						     : (double)ibias[ch];
				double want = ref_fused(a, acc_fp, fuse & 1, bias,
							fuse & 2 ? (double)cs[ch] : 1.0,
							act, oscales[si],
							fuse & 2 ? czp[ch] : 2, outs[oi]);
				double got = num_load((enum npu_dtype)outs[oi],
						      o.spm + 4096, i);

				ck_assert_msg(got == want || (isnan(got) && isnan(want)),
					      "%s fuse %d act %d acc %.9g ch %u oscale %g -> %s: got %.9g want %.9g",
					      is ? "is" : "ws", fuse, act, a, ch,
					      (double)oscales[si],
					      dtype_name((enum npu_dtype)outs[oi]),
					      got, want);
			}
		/* rows + 1 cycles, with or without the parameter row */
		ck_assert_uint_eq(o.ctr[CTR_MATRIX_OUT_CYCLES], rows + 1);
		free(acc);
		free(spm);
		out_free(&o);
	}
	/*
	 * More rows than output channels (WS, M = 9 > N = 2): a row index is
	 * never a table index (a bug read entry `row` of the table; the
	 * AddressSanitizer run of make asan catches it here).
	 */
	{
		uint8_t *acc = calloc(1, ACC_BYTES), *spm = calloc(1, SPM_BYTES);
		struct tile_cmd t;
		struct rig_cfg c = ideal(8, 8);
		struct rig_out o;
		uint32_t r, j;

		ck_assert_ptr_nonnull(acc);
		ck_assert_ptr_nonnull(spm);
		for (r = 0; r < 18; r++) {
			int32_t v = (int32_t)r * 10 - 50;

			memcpy(acc + 4 * r, &v, 4);
		}
		for (j = 0; j < 2; j++) {
			int32_t b = (int32_t)j * 7 - 3;

			memcpy(spm + 1024 + 4 * j, &b, 4);
		}
		memset(&t, 0, sizeof(t));
		t.u.m.kind = MTX_OUT;
		t.u.m.d = 4096;
		t.u.m.cfg.acc_type = DT_INT32;
		t.u.m.cfg.in_type = DT_INT8;
		t.u.m.cfg.m = 9;
		t.u.m.cfg.k = 1;
		t.u.m.cfg.n = 2;
		t.u.m.cfg.out_type = DT_INT32;
		t.u.m.cfg.out_scale = 1.0f;
		t.u.m.cfg.out_fuse = 1;
		t.u.m.cfg.out_par = 1024;
		rig_run(&c, &t, 1, spm, acc, &o);
		ck_assert_msg(o.rc == 0, "%s", o.diag);
		for (r = 0; r < 9; r++)
			for (j = 0; j < 2; j++) {
				int32_t got;

				memcpy(&got, o.spm + 4096 + 4 * (r * 2 + j), 4);
				ck_assert_int_eq(got, (int32_t)(r * 2 + j) * 10 - 50 +
							  (int32_t)j * 7 - 3);
			}
		free(acc);
		free(spm);
		out_free(&o);
	}
}
END_TEST

/* Run one bad command; expect a fault naming pc, cycle and the text. */
static void expect_fault(const struct tile_cmd *cmds, int n, const char *text)
{
	struct rig_cfg c = ideal(8, 8);
	struct rig_out o;

	rig_run(&c, cmds, n, NULL, NULL, &o);
	ck_assert_int_eq(o.rc, NPU_EFAULT);
	ck_assert_msg(strstr(o.diag, "core 0 pc 0x") != NULL, "%s", o.diag);
	ck_assert_msg(strstr(o.diag, "cycle") != NULL, "%s", o.diag);
	ck_assert_msg(strstr(o.diag, text) != NULL, "want '%s' in: %s", text,
		      o.diag);
	out_free(&o);
}

START_TEST(matrix_faults)
{
	struct tile_cmd t[2];

	memset(t, 0, sizeof(t));
	t[0].pc = t[1].pc = 0x40;
	t[0].u.m.cfg.in_type = t[1].u.m.cfg.in_type = DT_INT8;
	t[0].u.m.cfg.acc_type = t[1].u.m.cfg.acc_type = DT_INT32;
	t[0].u.m.cfg.m = t[1].u.m.cfg.m = 4;
	t[0].u.m.cfg.k = t[1].u.m.cfg.k = 4;
	t[0].u.m.cfg.n = t[1].u.m.cfg.n = 4;

	/* mpre in OS */
	t[0].u.m.kind = MTX_PRELOAD;
	t[0].u.m.cfg.dataflow = 1;
	expect_fault(t, 1, "output-stationary");
	/* WS weights larger than the array */
	t[0].u.m.cfg.dataflow = 0;
	t[0].u.m.cfg.k = 9;
	expect_fault(t, 1, "exceeds the 8x8 array");
	t[0].u.m.cfg.k = 4;
	/* OS output tile larger than the array */
	t[0].u.m.kind = MTX_MUL;
	t[0].u.m.cfg.dataflow = 1;
	t[0].u.m.cfg.m = 9;
	expect_fault(t, 1, "exceeds the 8x8 array");
	t[0].u.m.cfg.m = 4;
	/* mmul without a preload */
	t[0].u.m.cfg.dataflow = 0;
	expect_fault(t, 1, "without a preceding mpre");
	/* stationary operand mismatch */
	t[0].u.m.kind = MTX_PRELOAD;
	t[0].u.m.a = 0x100;
	t[1].u.m.kind = MTX_MUL;
	t[1].u.m.b = 0x200;
	expect_fault(t, 2, "is not the preloaded tile at 0x100");
	/* shape mismatch with the resident tile */
	t[1].u.m.b = 0;
	t[1].u.m.cfg.n = 3;
	expect_fault(t, 2, "does not match the preloaded tile");
	t[1].u.m.cfg.n = 4;
	/* out of range operand */
	t[0].u.m.a = SPM_BYTES - 8;
	expect_fault(t, 1, "outside the scratchpad");
	/* misaligned accumulator result */
	t[0].u.m.a = 0x100;
	t[1].u.m.c = 2;
	expect_fault(t, 2, "misaligned");
	/* bad type combination */
	t[0].u.m.cfg.in_type = DT_FP16;
	expect_fault(t, 1, "need an fp32 accumulator");
	t[0].u.m.cfg.in_type = DT_INT8;
	/* mout: unknown activation, fuse bits, a table past the end */
	t[0].u.m.kind = MTX_OUT;
	t[0].u.m.c = 0;
	t[0].u.m.d = 0x400;
	t[0].u.m.cfg.out_type = DT_INT8;
	t[0].u.m.cfg.out_act = 4;
	expect_fault(t, 1, "activation 4 is not");
	t[0].u.m.cfg.out_act = 0;
	t[0].u.m.cfg.out_fuse = 4;
	expect_fault(t, 1, "ofuse 4 has bits other than");
	t[0].u.m.cfg.out_fuse = 3;
	t[0].u.m.cfg.out_par = SPM_BYTES - 16;
	expect_fault(t, 1, "per-column parameter table");
	t[0].u.m.cfg.out_par = 2;
	expect_fault(t, 1, "per-column parameter table");
}
END_TEST

START_TEST(matrix_cost_independent_of_array)
{
	/*
	 * The same 16x16x16 WS fold on 16x16 .. 256x256 arrays: the fast
	 * model's events per instruction do not grow with R x C (the pe
	 * model's work does, by design).
	 */
	static const int sizes[] = { 16, 64, 256 };
	uint64_t ev[3];
	int i;

	for (i = 0; i < 3; i++) {
		struct rig_cfg c = ideal(sizes[i], sizes[i]);
		struct gemm g;
		struct rig_out o;

		gemm_build(&g, 0, DT_INT8, 16, 16, 16, (uint32_t)sizes[i],
			   (uint32_t)sizes[i], 77);
		rig_run(&c, g.cmds, g.n_cmds, g.spm, NULL, &o);
		ck_assert_int_eq(o.rc, 0);
		check_int(&g, o.acc);
		ev[i] = o.events;
		out_free(&o);
		gemm_free(&g);
	}
	/* equal up to a few events merged or split by cycle coincidences
	 * (a preload's first read falling on its start cycle or not) */
	for (i = 1; i < 3; i++) {
		ck_assert_uint_le(ev[i], ev[0] + 4);
		ck_assert_uint_le(ev[0], ev[i] + 4);
	}
}
END_TEST

static Suite *suite_matrix(void)
{
	Suite *s = suite_create("matrix");

	TEST_ADD(s, matrix_formula_all_dataflows);
	TEST_ADD(s, matrix_formula_pipeline_latency);
	TEST_ADD(s, matrix_formula_os_drain);
	TEST_ADD(s, matrix_double_buffer_hides_preloads);
	TEST_ADD(s, matrix_int8_gemm_exact);
	TEST_ADD(s, matrix_float_gemm_ordered);
	TEST_ADD(s, matrix_decode_fast_paths);
	TEST_ADD(s, matrix_int_pairs_exact);
	TEST_ADD(s, matrix_int8_quads_exact);
	TEST_ADD(s, matrix_packed_macs);
	TEST_ADD(s, matrix_pe_equals_fast_shapes);
	TEST_ADD(s, matrix_pe_equals_fast_options);
	TEST_ADD(s, matrix_pe_equals_fast_contention);
	TEST_ADD(s, matrix_fast_forward_same_results);
	TEST_ADD(s, matrix_fast_forward_stalls_same_results);
	TEST_ADD(s, matrix_contention_stalls_counted);
	TEST_ADD(s, matrix_mout_requant);
	TEST_ADD(s, matrix_mout_fused);
	TEST_ADD(s, matrix_faults);
	TEST_ADD(s, matrix_cost_independent_of_array);
	return s;
}

TEST_MAIN(suite_matrix)
