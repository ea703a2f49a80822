/*
 * test_dma.c - DMA engines: 1D/2D/4D strided transfers between DRAM,
 * scratchpad and accumulator checked byte for byte against a C reference
 * copy, burst splitting, ordering, back-pressure, bandwidth bounded by the
 * DRAM, SRAM contention in the stall counters, and fault messages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../arch/arch.h"
#include "../../sim/core/dma.h"
#include "../../sim/mem/dram.h"
#include "../../sim/mem/sram.h"
#include "../../sim/engine/unit.h"
#include "testutil.h"

/* ---- harness ---------------------------------------------------------------*/

/* Stands in for the control unit: feeds descriptors as the queue allows. */
struct feeder {
	struct unit u;
	struct unit *dma;
	struct tile_cmd cmds[16];
	int n, next;
	int wakes;              /* listener notifications received */
};

/* A competing SRAM requestor: back-to-back accesses over all banks. */
struct hog {
	struct unit u;
	sram *s;
	int req;
	int left;               /* accesses still to issue */
	uint32_t bytes;         /* per access */
};

struct env {
	struct arch a;
	struct diag dg;
	eng *e;
	sram *spm, *acc;
	dram *d;
	struct unit *dma;
	struct feeder f;
	struct hog h;
};

static int feeder_event(struct unit *u, const struct ev *ev)
{
	struct feeder *f = (struct feeder *)u;
	int rc;

	if (ev->kind == 1)
		f->wakes++;
	while (f->next < f->n && dma_port.can_accept(f->dma)) {
		rc = dma_port.accept(f->dma, &f->cmds[f->next]);
		if (rc)
			return rc;
		f->next++;
	}
	return 0;
}

static const struct unit_ops feeder_ops = {
	.kind = UNIT_OTHER,
	.on_event = feeder_event,
};

static int hog_done(void *ctx, uint64_t tag, cycle_t when);

static int hog_issue(struct hog *h, cycle_t when)
{
	if (h->left == 0)
		return 0;
	h->left--;
	return sram_access(h->s, h->req, 0, h->bytes, 0, when, hog_done, h, 0);
}

static int hog_done(void *ctx, uint64_t tag, cycle_t when)
{
	(void)ctx;
	(void)tag;
	(void)when;
	return 0;
}

static int hog_event(struct unit *u, const struct ev *ev)
{
	struct hog *h = (struct hog *)u;
	int rc = 0;

	(void)ev;
	/* queue them all: the memory serves one requestor's accesses in
	 * order, each from the cycle after the previous one's last grant */
	while (rc == 0 && h->left > 0)
		rc = hog_issue(h, eng_now(u->eng));
	return rc;
}

static const struct unit_ops hog_ops = {
	.kind = UNIT_OTHER,
	.on_event = hog_event,
};

static void geom(const struct arch *a, int acc, struct sram_geom *g)
{
	g->bytes = (uint64_t)(acc ? ARCH_I(a, ACC_BYTES) : ARCH_I(a, SPM_BYTES));
	g->banks = (int)(acc ? ARCH_I(a, ACC_BANKS) : ARCH_I(a, SPM_BANKS));
	g->bank_width = (int)(acc ? ARCH_I(a, ACC_BANK_WIDTH) :
				    ARCH_I(a, SPM_BANK_WIDTH));
	g->ports = (int)(acc ? ARCH_I(a, ACC_PORTS) : ARCH_I(a, SPM_PORTS));
	g->latency = (int)(acc ? ARCH_I(a, ACC_LATENCY) :
				 ARCH_I(a, SPM_LATENCY));
	g->arb = (acc ? ARCH_E(a, ACC_ARB) == ARCH_ACC_ARB_FIXED
		      : ARCH_E(a, SPM_ARB) == ARCH_SPM_ARB_FIXED) ?
			 SRAM_ARB_FIXED : SRAM_ARB_RR;
}

/*
 * Build engine, memories (DRAM filled with a fixed pseudo-random pattern)
 * and one DMA engine.  hog_bytes > 0 adds a higher-priority scratchpad
 * requestor that issues hog_n accesses of that size at cycle 0.
 */
static void env_init(struct env *v, const char *const *sets, int n_sets,
		     uint32_t hog_bytes, int hog_n)
{
	struct sram_geom g;
	struct tile_listener l;
	uint64_t i, s = 0x12345678;
	uint8_t *p;

	memset(v, 0, sizeof(*v));
	diag_init(&v->dg, NULL);
	ck_assert_int_eq(arch_load(&v->a, NULL, sets, n_sets, &v->dg), 0);
	v->e = eng_new();
	ck_assert_ptr_nonnull(v->e);
	eng_set_diag(v->e, &v->dg);
	geom(&v->a, 0, &g);
	v->spm = sram_new(v->e, 0, "core0.scratchpad", &g);
	geom(&v->a, 1, &g);
	v->acc = sram_new(v->e, 0, "core0.accumulator", &g);
	ck_assert_ptr_nonnull(v->spm);
	ck_assert_ptr_nonnull(v->acc);
	if (hog_bytes) {
		unit_init(&v->h.u, &hog_ops, v->e, 0, "hog");
		v->h.s = v->spm;
		v->h.req = sram_add_requestor(v->spm, "hog");
		ck_assert_int_ge(v->h.req, 0);
		v->h.bytes = hog_bytes;
		v->h.left = hog_n;
		ck_assert_int_eq(eng_schedule(v->e, 0, EV_PRI_ISSUE, &v->h.u,
					      0, 0), 0);
	}
	v->d = dram_new(v->e, &v->a);
	ck_assert_ptr_nonnull(v->d);
	p = dram_data(v->d);
	for (i = 0; i < (1u << 22); i++) {
		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		p[i] = (uint8_t)(s >> 56);
	}
	for (i = 0; i < sram_size(v->spm); i++)
		sram_data(v->spm)[i] = (uint8_t)(i * 7 + 3);
	for (i = 0; i < sram_size(v->acc); i++)
		sram_data(v->acc)[i] = (uint8_t)(i * 13 + 1);
	unit_init(&v->f.u, &feeder_ops, v->e, 0, "feeder");
	l.unit = &v->f.u;
	l.kind = 1;
	{
		struct mem_target mems[MEM_N_SPACES] = {
			[MEM_DRAM] = dram_target(v->d),
			[MEM_SPM] = sram_target(v->spm),
			[MEM_ACC] = sram_target(v->acc),
		};

		v->dma = dma_new(v->e, &v->a, 0, 0, mems, &l);
	}
	ck_assert_ptr_nonnull(v->dma);
	v->f.dma = v->dma;
}

static void env_free(struct env *v)
{
	eng_free(v->e);
	dram_free(v->d);
	arch_free(&v->a);
}

/* A dense descriptor of n0 x n1 x n2 x n3 elements. */
static struct tile_cmd desc(int smem, uint64_t src, int dmem, uint64_t dst,
			    uint32_t esize, uint32_t n0, uint32_t n1,
			    uint32_t n2, uint32_t n3)
{
	struct tile_cmd c;
	struct dma_desc *d = &c.u.d;
	int i;

	memset(&c, 0, sizeof(c));
	d->src_mem = smem;
	d->dst_mem = dmem;
	d->src = src;
	d->dst = dst;
	d->elem_bytes = esize;
	d->shape[0] = n0;
	d->shape[1] = n1;
	d->shape[2] = n2;
	d->shape[3] = n3;
	for (i = 0; i < 4; i++) {
		d->src_stride[i] = i ? d->src_stride[i - 1] * d->shape[i - 1] :
				       esize;
		d->dst_stride[i] = d->src_stride[i];
	}
	return c;
}

static void push(struct env *v, struct tile_cmd c)
{
	c.id = (uint64_t)v->f.n;
	c.pc = 0x100 + 4 * (uint64_t)v->f.n;
	v->f.cmds[v->f.n++] = c;
}

static uint8_t *mem(struct env *v, int m)
{
	return m == MEM_DRAM ? dram_data(v->d) :
	       m == MEM_SPM ? sram_data(v->spm) : sram_data(v->acc);
}

static uint64_t msize(struct env *v, int m)
{
	return m == MEM_DRAM ? dram_size(v->d) :
	       m == MEM_SPM ? sram_size(v->spm) : sram_size(v->acc);
}

/*
 * Reference: apply the descriptors in order with plain nested loops over a
 * copy of the memories.  Element by element, as the ISA defines it.
 */
struct mems {
	uint8_t *m[3];
	uint64_t n[3];
};

static void ref_init(struct env *v, struct mems *r)
{
	int k;

	for (k = 0; k < 3; k++) {
		r->n[k] = k == MEM_DRAM ? (1u << 22) : msize(v, k);
		r->m[k] = malloc(r->n[k]);
		ck_assert_ptr_nonnull(r->m[k]);
		memcpy(r->m[k], mem(v, k), r->n[k]);
	}
}

static void ref_apply(struct mems *r, const struct dma_desc *d)
{
	uint32_t i0, i1, i2, i3;

	for (i3 = 0; i3 < d->shape[3]; i3++)
		for (i2 = 0; i2 < d->shape[2]; i2++)
			for (i1 = 0; i1 < d->shape[1]; i1++)
				for (i0 = 0; i0 < d->shape[0]; i0++) {
					/* an indirect copy: row i1 of the
					 * indexed side is idx[i1] */
					int64_t row = i1, so, dof;

					if (d->idx_mode) {
						int32_t x;

						memcpy(&x, r->m[MEM_SPM] + d->idx + 4 * (uint64_t)i1, 4);
						row = x;
					}
					so = i0 * d->src_stride[0] +
					     (d->idx_mode == DMA_IDX_GATHER ? row : i1) * d->src_stride[1] +
					     i2 * d->src_stride[2] + i3 * d->src_stride[3];
					dof = i0 * d->dst_stride[0] +
					      (d->idx_mode == DMA_IDX_SCATTER ? row : i1) * d->dst_stride[1] +
					      i2 * d->dst_stride[2] + i3 * d->dst_stride[3];

					memmove(r->m[d->dst_mem] + d->dst + dof,
						r->m[d->src_mem] + d->src + so,
						d->elem_bytes);
				}
}

static void ref_check(struct env *v, struct mems *r)
{
	int k;

	for (k = 0; k < 3; k++) {
		ck_assert_msg(memcmp(r->m[k], mem(v, k), r->n[k]) == 0,
			      "memory %d differs from the reference", k);
		free(r->m[k]);
	}
}

/* Run every pushed descriptor; returns the run's result code. */
static int run(struct env *v, struct eng_stats *st)
{
	ck_assert_int_eq(eng_schedule(v->e, 0, EV_PRI_CONTROL, &v->f.u, 0, 0),
			 0);
	return eng_run(v->e, 100000000, st);
}

/*
 * Run, then compare all memories with the reference.  pre[] were accepted
 * directly before the run (they execute first).
 */
static void run_and_check_pre(struct env *v, const struct tile_cmd *pre,
			      int n_pre)
{
	struct mems r;
	struct eng_stats st;
	int i;

	ref_init(v, &r);
	for (i = 0; i < n_pre; i++)
		ref_apply(&r, &pre[i].u.d);
	for (i = 0; i < v->f.n; i++)
		ref_apply(&r, &v->f.cmds[i].u.d);
	ck_assert_int_eq(run(v, &st), 0);
	ck_assert_int_eq(v->f.next, v->f.n);
	ck_assert(dma_port.idle(v->dma));
	ck_assert_uint_eq(v->dma->ctr[CTR_DMA_TRANSFERS],
			  (uint64_t)(v->f.n + n_pre));
	ref_check(v, &r);
}

static void run_and_check(struct env *v)
{
	run_and_check_pre(v, NULL, 0);
}

#define C(v, n) ((v)->dma->ctr[CTR_DMA_##n])

/* ---- transfers ---------------------------------------------------------------*/

START_TEST(dma_1d_dram_to_spm)
{
	struct env v;

	env_init(&v, NULL, 0, 0, 0);
	push(&v, desc(MEM_DRAM, 4096, MEM_SPM, 512, 4, 1000, 1, 1, 1));
	run_and_check(&v);
	ck_assert_uint_eq(C(&v, BYTES_DRAM_TO_SRAM), 4000);
	/* 4000 bytes from a 64-aligned address: 62 full bursts + 32 bytes */
	ck_assert_uint_eq(C(&v, REQUESTS), 63);
	ck_assert_uint_gt(C(&v, BUSY_CYCLES), 0);
	ck_assert_int_ge(v.f.wakes, 1);
	env_free(&v);
}
END_TEST

START_TEST(dma_2d_strided_both_ways)
{
	struct env v;
	struct tile_cmd c;

	env_init(&v, NULL, 0, 0, 0);
	/* 16 rows of 100 bytes out of DRAM rows 256 apart, packed */
	c = desc(MEM_DRAM, 1000, MEM_SPM, 0, 4, 25, 16, 1, 1);
	c.u.d.src_stride[1] = 256;
	c.u.d.dst_stride[1] = 100;
	push(&v, c);
	/* the packed tile back out, transposed: element (i,j) -> (j,i) */
	c = desc(MEM_SPM, 0, MEM_DRAM, 200000, 4, 25, 16, 1, 1);
	c.u.d.src_stride[0] = 4;
	c.u.d.src_stride[1] = 100;
	c.u.d.dst_stride[0] = 64;
	c.u.d.dst_stride[1] = 4;
	push(&v, c);
	run_and_check(&v);
	ck_assert_uint_eq(C(&v, BYTES_DRAM_TO_SRAM), 1600);
	ck_assert_uint_eq(C(&v, BYTES_SRAM_TO_DRAM), 1600);
	/* transposed: every element is its own burst */
	ck_assert_uint_ge(C(&v, REQUESTS), 16 * 2 + 400);
	env_free(&v);
}
END_TEST

START_TEST(dma_4d_all_memory_pairs)
{
	struct env v;
	struct tile_cmd c;

	env_init(&v, NULL, 0, 0, 0);
	/* 4D gather with a strided innermost dimension (every 3rd fp16) */
	c = desc(MEM_DRAM, 50000, MEM_ACC, 64, 2, 5, 3, 4, 2);
	c.u.d.src_stride[0] = 6;
	c.u.d.src_stride[1] = 40;
	c.u.d.src_stride[2] = 300;
	c.u.d.src_stride[3] = 2000;
	push(&v, c);
	/* accumulator -> scratchpad, reversed rows (negative stride) */
	c = desc(MEM_ACC, 64, MEM_SPM, 8192, 2, 5, 3, 4, 2);
	c.u.d.dst_stride[1] = -10;
	c.u.d.dst_stride[2] = 40;
	c.u.d.dst_stride[3] = 200;
	c.u.d.dst = 8192 + 20;
	push(&v, c);
	/* scratchpad -> accumulator, dense 4D (folds into one run) */
	push(&v, desc(MEM_SPM, 100, MEM_ACC, 30000, 8, 4, 3, 2, 5));
	/* DRAM -> DRAM with element size larger than a burst */
	c = desc(MEM_DRAM, 3000, MEM_DRAM, 700000, 150, 3, 2, 1, 1);
	c.u.d.src_stride[0] = 200;
	c.u.d.src_stride[1] = 1000;
	push(&v, c);
	/* scratchpad -> DRAM, 3D */
	push(&v, desc(MEM_SPM, 8192, MEM_DRAM, 900001, 1, 7, 9, 11, 1));
	run_and_check(&v);
	ck_assert_uint_eq(C(&v, BYTES_DRAM_TO_SRAM), 240);
	ck_assert_uint_eq(C(&v, BYTES_SRAM_TO_SRAM), 240 + 960);
	ck_assert_uint_eq(C(&v, BYTES_DRAM_TO_DRAM), 900);
	ck_assert_uint_eq(C(&v, BYTES_SRAM_TO_DRAM), 693);
	env_free(&v);
}
END_TEST

START_TEST(dma_bursts_split_at_boundaries)
{
	struct env v;
	struct tile_cmd c;

	env_init(&v, NULL, 0, 0, 0);
	/* 1000 bytes from DRAM address 40: 24 to the first 64-byte
	 * boundary, then 15 full bursts and 16 bytes */
	push(&v, desc(MEM_DRAM, 40, MEM_SPM, 0, 1, 1000, 1, 1, 1));
	run_and_check(&v);
	ck_assert_uint_eq(C(&v, REQUESTS), 1 + 15 + 1);
	env_free(&v);

	env_init(&v, NULL, 0, 0, 0);
	/* 8-byte elements every 16 bytes: no two are contiguous */
	c = desc(MEM_DRAM, 0, MEM_SPM, 0, 8, 100, 1, 1, 1);
	c.u.d.src_stride[0] = 16;
	push(&v, c);
	/* rows of 96 contiguous bytes: 64 + 32 per row (row = 3 x 32) */
	c = desc(MEM_SPM, 0, MEM_DRAM, 8192, 32, 3, 10, 1, 1);
	c.u.d.dst_stride[1] = 128;
	push(&v, c);
	run_and_check(&v);
	ck_assert_uint_eq(C(&v, REQUESTS), 100 + 10 * 2);
	env_free(&v);
}
END_TEST

START_TEST(dma_descriptors_run_in_order)
{
	struct env v;

	env_init(&v, NULL, 0, 0, 0);
	/* A -> spm, spm -> B, then overwrite spm: B must equal A */
	push(&v, desc(MEM_DRAM, 0, MEM_SPM, 0, 64, 32, 1, 1, 1));
	push(&v, desc(MEM_SPM, 0, MEM_DRAM, 100000, 64, 32, 1, 1, 1));
	push(&v, desc(MEM_ACC, 0, MEM_SPM, 0, 64, 32, 1, 1, 1));
	run_and_check(&v);
	ck_assert_int_eq(memcmp(dram_data(v.d), dram_data(v.d) + 100000, 2048),
			 0);
	env_free(&v);
}
END_TEST

START_TEST(dma_empty_descriptor)
{
	struct env v;

	env_init(&v, NULL, 0, 0, 0);
	push(&v, desc(MEM_DRAM, 0, MEM_SPM, 0, 4, 10, 0, 3, 1));
	run_and_check(&v);
	ck_assert_uint_eq(C(&v, REQUESTS), 0);
	ck_assert_int_eq(v.f.wakes, 1);
	env_free(&v);
}
END_TEST

/* ---- queue and protocol -------------------------------------------------------*/

START_TEST(dma_queue_depth_and_notify)
{
	static const char *const sets[] = { "core.dma.queue_depth=2" };
	struct env v;
	struct tile_cmd c = desc(MEM_DRAM, 0, MEM_SPM, 0, 64, 4, 1, 1, 1);
	struct tile_cmd pre[2];
	int i;

	env_init(&v, sets, 1, 0, 0);
	ck_assert(dma_port.idle(v.dma));
	ck_assert(dma_port.can_accept(v.dma));
	ck_assert_int_eq(dma_port.accept(v.dma, &c), 0);
	ck_assert(!dma_port.idle(v.dma));
	ck_assert(dma_port.can_accept(v.dma));
	ck_assert_int_eq(dma_port.accept(v.dma, &c), 0);
	ck_assert(!dma_port.can_accept(v.dma));
	/* five more through the feeder: it needs the notifications */
	for (i = 0; i < 5; i++)
		push(&v, desc(MEM_DRAM, 256 * (uint64_t)i, MEM_ACC,
			      256 * (uint64_t)i, 64, 4, 1, 1, 1));
	pre[0] = c;
	pre[1] = c;
	run_and_check_pre(&v, pre, 2);
	ck_assert_int_eq(v.f.wakes, 7);
	env_free(&v);
}
END_TEST

/* ---- timing: DRAM bound, back-pressure, SRAM contention ------------------------*/

START_TEST(dma_bandwidth_bounded_by_dram)
{
	static const char *const wide[] = { "core.dma.max_outstanding=64" };
	static const char *const narrow[] = { "core.dma.max_outstanding=2" };
	struct env v;
	double peak, bw_wide, bw_narrow;
	struct ctr_sink s;
	const struct ctr_entry *e;

	env_init(&v, wide, 1, 0, 0);
	push(&v, desc(MEM_DRAM, 0, MEM_SPM, 0, 64, 2048, 1, 1, 1));
	run_and_check(&v);
	peak = dram_peak_bytes_per_s(v.d);
	bw_wide = dma_bandwidth(v.dma);
	/* the DRAM is the bottleneck: close to its peak, never above */
	ck_assert_msg(bw_wide <= peak, "%.3g > peak %.3g", bw_wide, peak);
	ck_assert_msg(bw_wide >= 0.8 * peak, "%.3g < 80%% of %.3g", bw_wide,
		      peak);
	ck_assert_uint_eq(C(&v, STALL_SRAM), 0);
	ck_assert_uint_gt(C(&v, STALL_DRAM), 0);
	ck_assert_uint_eq(C(&v, STALL_CYCLES),
			  C(&v, STALL_DRAM) + C(&v, STALL_SRAM) + C(&v, STALL_NOC));
	ctr_sink_init(&s);
	v.dma->ops->dump(v.dma, &s);
	e = ctr_find(&s, "core0.dma0.bandwidth_gbps");
	ck_assert_ptr_nonnull(e);
	ck_assert(e->is_float);
	ck_assert_double_eq_tol(e->f, bw_wide / 1e9, 1e-9);
	ck_assert_double_eq_tol(bw_wide, 131072.0 /
				(double)C(&v, BUSY_CYCLES) * 1e9, 1e-3);
	ctr_sink_free(&s);
	env_free(&v);

	/* two bursts in flight cannot cover the DRAM latency */
	env_init(&v, narrow, 1, 0, 0);
	push(&v, desc(MEM_DRAM, 0, MEM_SPM, 0, 64, 2048, 1, 1, 1));
	run_and_check(&v);
	bw_narrow = dma_bandwidth(v.dma);
	ck_assert_msg(bw_narrow < 0.5 * bw_wide, "%.3g vs %.3g", bw_narrow,
		      bw_wide);
	ck_assert_uint_gt(C(&v, STALL_DRAM), C(&v, BUSY_CYCLES) / 2);
	env_free(&v);
}
END_TEST

START_TEST(dma_dram_backpressure)
{
	static const char *const sets[] = { "dram.queue_depth=1",
					    "core.dma.max_outstanding=32" };
	struct env v;

	env_init(&v, sets, 2, 0, 0);
	push(&v, desc(MEM_DRAM, 64, MEM_SPM, 0, 32, 300, 1, 1, 1));
	push(&v, desc(MEM_SPM, 0, MEM_DRAM, 65536, 32, 300, 1, 1, 1));
	run_and_check(&v);
	ck_assert_uint_gt(dram_channel_unit(v.d, 0)->ctr[CTR_DRAM_REJECTED], 0);
	ck_assert_uint_gt(C(&v, STALL_DRAM), 0);
	env_free(&v);
}
END_TEST

START_TEST(dma_sram_contention_in_stall_counters)
{
	static const char *const sets[] = { "core.scratchpad.arbitration=fixed",
					    "dram.mode=ideal",
					    "dram.ideal.latency_ns=20",
					    "dram.ideal.bandwidth_gbps=400" };
	struct env v;
	uint64_t alone_busy, alone_sram;

	/* ideal fast DRAM, so the scratchpad is what limits */
	env_init(&v, sets, 4, 0, 0);
	push(&v, desc(MEM_DRAM, 0, MEM_SPM, 0, 64, 1024, 1, 1, 1));
	run_and_check(&v);
	alone_busy = C(&v, BUSY_CYCLES);
	alone_sram = C(&v, STALL_SRAM);
	ck_assert_uint_eq(alone_sram, 0);
	env_free(&v);

	/* a higher-priority requestor sweeps every bank for 3000 cycles */
	env_init(&v, sets, 4, 128, 3000);
	push(&v, desc(MEM_DRAM, 0, MEM_SPM, 0, 64, 1024, 1, 1, 1));
	run_and_check(&v);
	ck_assert_uint_gt(C(&v, BUSY_CYCLES), alone_busy + 1000);
	ck_assert_uint_gt(C(&v, STALL_SRAM), 1000);
	ck_assert_uint_eq(C(&v, STALL_CYCLES),
			  C(&v, STALL_DRAM) + C(&v, STALL_SRAM) + C(&v, STALL_NOC));
	ck_assert_uint_gt(sram_req_stat(v.spm, 1, SRAM_ST_CONFLICTS), 0);
	env_free(&v);
}
END_TEST

START_TEST(dma_deterministic)
{
	uint64_t first[CTR_N];
	int k;

	for (k = 0; k < 2; k++) {
		struct env v;
		struct tile_cmd c;

		env_init(&v, NULL, 0, 0, 0);
		c = desc(MEM_DRAM, 12345, MEM_SPM, 77, 6, 50, 20, 3, 1);
		c.u.d.src_stride[1] = 1000;
		c.u.d.src_stride[2] = 30000;
		push(&v, c);
		push(&v, desc(MEM_SPM, 77, MEM_DRAM, 500000, 6, 50, 20, 3, 1));
		run_and_check(&v);
		if (k == 0)
			memcpy(first, v.dma->ctr, sizeof(first));
		else
			ck_assert_int_eq(memcmp(first, v.dma->ctr,
						sizeof(first)), 0);
		env_free(&v);
	}
}
END_TEST

/*
 * Indirect copies (dset imode, idx): an embedding lookup (DRAM table rows
 * by index into the scratchpad, a repeated index included), a scatter of
 * scratchpad rows to indexed DRAM rows, against the element-by-element
 * reference; the index list is read from the scratchpad first (its bursts
 * count as requests), and an index outside the table faults once read.
 */
START_TEST(dma_indirect_rows)
{
	static const int32_t gi[7] = { 3, 49, 0, 17, 3, 25, 8 };
	static const int32_t si[5] = { 9, 2, 40, 11, 0 };
	struct env v;
	struct tile_cmd c;
	struct eng_stats st;
	uint8_t *d, *sp;
	int i;

	env_init(&v, NULL, 0, 0, 0);
	d = mem(&v, MEM_DRAM);
	sp = mem(&v, MEM_SPM);
	for (i = 0; i < 50 * 24; i++)
		d[0x1000 + i] = (uint8_t)(i * 7 + 1);
	memcpy(sp + 0x2000, gi, sizeof(gi));
	memcpy(sp + 0x2100, si, sizeof(si));
	for (i = 0; i < 5 * 24; i++)
		sp[0x3000 + i] = (uint8_t)(200 - i);
	/* gather: 7 rows of 24 bytes from the 50-row table */
	c = desc(MEM_DRAM, 0x1000, MEM_SPM, 0x4000, 1, 24, 7, 1, 1);
	c.u.d.idx_mode = DMA_IDX_GATHER;
	c.u.d.idx = 0x2000;
	push(&v, c);
	/* scatter: 5 scratchpad rows to rows 9, 2, 40, 11, 0 of a DRAM table */
	c = desc(MEM_SPM, 0x3000, MEM_DRAM, 0x8000, 1, 24, 5, 1, 1);
	c.u.d.dst_stride[1] = 24;
	c.u.d.idx_mode = DMA_IDX_SCATTER;
	c.u.d.idx = 0x2100;
	push(&v, c);
	run_and_check(&v);
	/* the 7 + 5 index reads are requests too */
	ck_assert_uint_ge(C(&v, REQUESTS), 7 + 5 + 2);
	env_free(&v);

	/* an index past the table's end */
	env_init(&v, NULL, 0, 0, 0);
	sp = mem(&v, MEM_SPM);
	{
		int32_t bad[2] = { 1, 1 << 24 };

		memcpy(sp + 0x2000, bad, sizeof(bad));
	}
	c = desc(MEM_DRAM, 0x1000, MEM_SPM, 0x4000, 1, 24, 2, 1, 1);
	c.u.d.idx_mode = DMA_IDX_GATHER;
	c.u.d.idx = 0x2000;
	push(&v, c);
	ck_assert_int_eq(run(&v, &st), NPU_EFAULT);
	ck_assert_msg(strstr(v.dg.last, "source dram") != NULL &&
		      strstr(v.dg.last, "outside the dram") != NULL, "%s", v.dg.last);
	env_free(&v);
}
END_TEST

/* ---- faults ------------------------------------------------------------------------*/

/* Accept one descriptor that must fault; returns the message. */
static void expect_fault(const struct tile_cmd *c0, const char *want)
{
	struct env v;
	struct tile_cmd c = *c0;

	env_init(&v, NULL, 0, 0, 0);
	c.id = 9;
	c.pc = 0x4c;
	ck_assert_int_eq(dma_port.accept(v.dma, &c), NPU_EFAULT);
	ck_assert_int_eq(v.dg.n_errors, 1);
	ck_assert_msg(strstr(v.dg.last, "core0.dma0: descriptor #9") != NULL,
		      "no descriptor in: %s", v.dg.last);
	ck_assert_msg(strstr(v.dg.last, "pc 0x4c") != NULL, "no pc in: %s",
		      v.dg.last);
	ck_assert_msg(strstr(v.dg.last, "cycle 0") != NULL, "no cycle in: %s",
		      v.dg.last);
	ck_assert_msg(strstr(v.dg.last, want) != NULL, "'%s' not in: %s",
		      want, v.dg.last);
	ck_assert(dma_port.idle(v.dma));
	env_free(&v);
}

START_TEST(dma_fault_messages)
{
	struct tile_cmd c;

	/* source beyond the DRAM */
	c = desc(MEM_DRAM, 268435456 - 100, MEM_SPM, 0, 4, 50, 1, 1, 1);
	expect_fault(&c, "source dram [0xfffff9c, 0x10000064) is outside the "
			 "dram [0x0, 0x10000000)");
	/* destination beyond the scratchpad in its outer dimension */
	c = desc(MEM_DRAM, 0, MEM_SPM, 0, 64, 4, 1025, 1, 1);
	expect_fault(&c, "destination spm [0x0, 0x40100) is outside the spm "
			 "[0x0, 0x40000)");
	/* negative stride reaching below address 0 */
	c = desc(MEM_ACC, 64, MEM_SPM, 0, 4, 4, 3, 1, 1);
	c.u.d.src_stride[1] = -64;
	expect_fault(&c, "source strides wrap below address 0");
	/* a stride so large that the address wraps */
	c = desc(MEM_DRAM, 0, MEM_SPM, 0, 4, 4, 3, 1, 1);
	c.u.d.src_stride[1] = INT64_MAX / 2;
	expect_fault(&c, "source stride 4611686018427387903 of dimension 1 "
			 "(extent 3) wraps past the end of the address space");
	/* zero element size */
	c = desc(MEM_DRAM, 0, MEM_SPM, 0, 0, 4, 1, 1, 1);
	expect_fault(&c, "element size (esize) is 0");
	/* remote scratchpad with nothing bound to reach it (no chip network) */
	c = desc(MEM_DRAM, 0, MEM_RSPM, 0, 4, 4, 1, 1, 1);
	c.u.d.dst_core = 3;
	expect_fault(&c, "destination in another core's scratchpad (core 3): "
			 "this chip has no network to reach it");
	/* an undefined memory space */
	c = desc(7, 0, MEM_SPM, 0, 4, 4, 1, 1, 1);
	expect_fault(&c, "source memory space 7 is not one DMA can address "
		     "(dram, spm, acc or rspm)");
	/* indirect copies: an unknown mode, misaligned indices */
	c = desc(MEM_DRAM, 0, MEM_SPM, 0, 4, 4, 3, 1, 1);
	c.u.d.idx_mode = 3;
	expect_fault(&c, "imode: 0 (none), 1 (gather");
	c.u.d.idx_mode = DMA_IDX_GATHER;
	c.u.d.idx = 2;
	expect_fault(&c, "indices (dset idx) [0x2, 0xe) must be 4-byte aligned");
	/* a space that exists but that no descriptor may name */
	c = desc(MEM_DRAM, 0, MEM_DATA, 0, 4, 4, 1, 1, 1);
	expect_fault(&c, "destination memory space 4 is not one DMA can "
		     "address");
}
END_TEST

START_TEST(dma_fault_stops_the_run)
{
	struct env v;
	struct eng_stats st;

	env_init(&v, NULL, 0, 0, 0);
	push(&v, desc(MEM_DRAM, 0, MEM_SPM, 0, 64, 4, 1, 1, 1));
	push(&v, desc(MEM_DRAM, 0, MEM_SPM, 262144 - 8, 64, 1, 1, 1, 1));
	ck_assert_int_eq(run(&v, &st), NPU_EFAULT);
	ck_assert_msg(strstr(v.dg.last, "descriptor #1") != NULL, "%s",
		      v.dg.last);
	ck_assert_msg(strstr(v.dg.last, "pc 0x104") != NULL, "%s", v.dg.last);
	env_free(&v);
}
END_TEST

static Suite *suite_dma(void)
{
	Suite *s = suite_create("dma");

	TEST_ADD(s, dma_1d_dram_to_spm);
	TEST_ADD(s, dma_2d_strided_both_ways);
	TEST_ADD(s, dma_4d_all_memory_pairs);
	TEST_ADD(s, dma_bursts_split_at_boundaries);
	TEST_ADD(s, dma_descriptors_run_in_order);
	TEST_ADD(s, dma_empty_descriptor);
	TEST_ADD(s, dma_queue_depth_and_notify);
	TEST_ADD(s, dma_bandwidth_bounded_by_dram);
	TEST_ADD(s, dma_dram_backpressure);
	TEST_ADD(s, dma_sram_contention_in_stall_counters);
	TEST_ADD(s, dma_deterministic);
	TEST_ADD(s, dma_indirect_rows);
	TEST_ADD(s, dma_fault_messages);
	TEST_ADD(s, dma_fault_stops_the_run);
	return s;
}

TEST_MAIN(suite_dma)
