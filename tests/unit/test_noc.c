/*
 * test_noc.c - the flit-level network (sim/noc): zero-load latency equals
 * the documented formula exactly, every packet is delivered exactly once,
 * a torus under heavy load does not deadlock, saturation curves are
 * monotone, idle networks cost nothing, traffic patterns, allocator
 * options and the config rules of the noc.* keys.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../arch/arch.h"
#include "../../sim/engine/unit.h"
#include "../../sim/noc/noc.h"
#include "testutil.h"

/* The default noc.* keys as plain parameters, then a w x h shape. */
static struct noc_params params(int w, int h, int torus)
{
	struct noc_params p;

	memset(&p, 0, sizeof(p));
	p.cols = w;
	p.rows = h;
	p.torus = torus;
	p.vcs = 2;
	p.buf_depth = 4;
	p.flit_bytes = 32;
	p.t_rc = p.t_va = p.t_sa = p.t_st = 1;
	p.t_link = 1;
	p.t_credit = 1;
	p.head_flit = 1;
	return p;
}

/* ---- a driver that sends scripted packets and records deliveries -------*/

struct tpkt {
	int src, dst;
	uint32_t flits;
	cycle_t at;          /* send cycle */
	int pri;             /* enum ev_pri of the sending event */
	cycle_t done;        /* delivery cycle */
	int n_done;          /* deliveries seen (must end at 1) */
};

struct drv {
	struct unit u;       /* must be first */
	noc *n;
	struct tpkt *pk;
	int n_pk;
};

static int drv_done(void *ctx, uint64_t tag, int node, cycle_t when)
{
	struct drv *d = ctx;

	(void)node;
	d->pk[tag].done = when;
	d->pk[tag].n_done++;
	return 0;
}

static int drv_send(struct drv *d, int k)
{
	struct noc_msg m;

	memset(&m, 0, sizeof(m));
	m.src = d->pk[k].src;
	m.dst = d->pk[k].dst;
	m.flits = d->pk[k].flits;
	m.cls = NOC_CLS_SYNTH;
	m.deliver = drv_done;
	m.ctx = d;
	m.tag = (uint64_t)k;
	return noc_send(d->n, &m);
}

static int drv_on_event(struct unit *u, const struct ev *ev)
{
	return drv_send((struct drv *)u, (int)ev->arg);
}

static const struct unit_ops drv_ops = {
	.kind = UNIT_OTHER,
	.on_event = drv_on_event,
};

/* Run the script on a fresh network; returns the engine's result and
 * leaves the statistics in *st. */
static int run_script(const struct noc_params *p, struct tpkt *pk, int n_pk,
		      struct noc_stats *st)
{
	eng *e = eng_new();
	struct drv d;
	int k, rc;

	ck_assert_ptr_nonnull(e);
	memset(&d, 0, sizeof(d));
	unit_init(&d.u, &drv_ops, e, -1, "drv");
	d.n = noc_new(e, p, "noc");
	ck_assert_ptr_nonnull(d.n);
	d.pk = pk;
	d.n_pk = n_pk;
	for (k = 0; k < n_pk; k++)
		ck_assert_int_eq(eng_schedule(e, pk[k].at, (enum ev_pri)pk[k].pri,
					      &d.u, 1, (uint64_t)k), 0);
	rc = eng_run(e, 100000000, NULL);
	noc_get_stats(d.n, st);
	ck_assert_uint_eq(eng_pending(e), 0);
	eng_free(e);
	return rc;
}

/* One packet alone from src to dst: its latency must be the formula. */
static void check_alone(const struct noc_params *p, int src, int dst,
			uint32_t flits, int pri)
{
	struct tpkt pk;
	struct noc_stats st;
	cycle_t want = noc_zero_load(p, noc_hops(p, src, dst), flits);

	memset(&pk, 0, sizeof(pk));
	pk.src = src;
	pk.dst = dst;
	pk.flits = flits;
	pk.at = 7;
	pk.pri = pri;
	ck_assert_int_eq(run_script(p, &pk, 1, &st), 0);
	ck_assert_int_eq(pk.n_done, 1);
	ck_assert_msg(pk.done - pk.at == want,
		      "%dx%d%s %d->%d %u flits rc%d va%d sa%d st%d link%d spec%d: "
		      "latency %llu, formula %llu", p->cols, p->rows,
		      p->torus ? " torus" : "", src, dst, flits, p->t_rc,
		      p->t_va, p->t_sa, p->t_st, p->t_link, p->speculative,
		      (unsigned long long)(pk.done - pk.at),
		      (unsigned long long)want);
	ck_assert_uint_eq(st.flits, flits);
	ck_assert_uint_eq(st.flits_injected, flits);
	ck_assert_uint_eq(st.hops, (uint64_t)flits * noc_hops(p, src, dst));
}

START_TEST(noc_zero_load_exact)
{
	/* every pair of a 4x4 mesh and a 3x5 torus, 1 and 4 flits, with the
	 * default stages and several others (buffers hold a whole packet) */
	static const int stages[][6] = {
		/* rc va sa st link spec */
		{ 1, 1, 1, 1, 1, 0 }, { 0, 1, 1, 1, 1, 0 }, { 2, 3, 1, 2, 4, 0 },
		{ 1, 1, 1, 1, 1, 1 }, { 1, 3, 1, 0, 2, 1 }, { 0, 0, 0, 0, 1, 0 },
		{ 1, 1, 2, 1, 3, 1 },
	};
	size_t i;
	int topo, s, d, f;

	for (i = 0; i < sizeof(stages) / sizeof(stages[0]); i++)
		for (topo = 0; topo < 2; topo++) {
			struct noc_params p = topo ? params(3, 5, 1) : params(4, 4, 0);
			int nodes = p.cols * p.rows;

			p.t_rc = stages[i][0];
			p.t_va = stages[i][1];
			p.t_sa = stages[i][2];
			p.t_st = stages[i][3];
			p.t_link = stages[i][4];
			p.speculative = stages[i][5];
			for (s = 0; s < nodes; s++)
				for (d = 0; d < nodes; d++)
					for (f = 1; f <= 4; f += 3)
						check_alone(&p, s, d, (uint32_t)f,
							    EV_PRI_ISSUE);
		}
}
END_TEST

START_TEST(noc_zero_load_formula_values)
{
	struct noc_params p = params(8, 8, 0);

	/* 1 + (H+1) x 4 + H x 1 + 1 + (P-1): the numbers of docs/noc.md */
	ck_assert_uint_eq(noc_zero_load(&p, 0, 1), 6);
	ck_assert_uint_eq(noc_zero_load(&p, 1, 1), 11);
	ck_assert_uint_eq(noc_zero_load(&p, 14, 1), 76);
	ck_assert_uint_eq(noc_zero_load(&p, 14, 4), 79);
	p.speculative = 1;
	ck_assert_uint_eq(noc_zero_load(&p, 1, 1), 9);
	ck_assert_int_eq(noc_hops(&p, 0, 63), 14);
	p.torus = 1;
	ck_assert_int_eq(noc_hops(&p, 0, 63), 2);
	ck_assert_int_eq(noc_hops(&p, 0, 4), 4);  /* tie: either way, 4 */
	ck_assert_uint_eq(noc_flits_for(&p, 0), 1);
	ck_assert_uint_eq(noc_flits_for(&p, 64), 3);
	ck_assert_uint_eq(noc_flits_for(&p, 65), 4);
	/* the header beside the first data flit (noc.head_flit = false) */
	p.head_flit = 0;
	ck_assert_uint_eq(noc_flits_for(&p, 0), 1);
	ck_assert_uint_eq(noc_flits_for(&p, 64), 2);
	ck_assert_uint_eq(noc_flits_for(&p, 65), 3);
	ck_assert_uint_eq(noc_flits_for(&p, 32), 1);
	p.head_flit = 1;
}
END_TEST

/* The formula holds whatever phase of the cycle the sender runs in, with
 * y-first routing, with the allocator options, and for packets longer
 * than a buffer when the buffer covers t_sa + t_st + t_link + t_credit
 * (docs/noc.md, "Zero-load latency"). */
START_TEST(noc_zero_load_phase_and_options)
{
	static const int stages[][7] = {
		/* rc va sa st link credit spec */
		{ 1, 1, 1, 1, 1, 1, 0 }, { 0, 0, 0, 0, 1, 1, 0 },
		{ 2, 3, 1, 2, 4, 3, 0 }, { 1, 2, 1, 1, 2, 5, 1 },
	};
	struct noc_params p = params(4, 3, 0);
	size_t i;
	int pri, f;

	for (pri = EV_PRI_COMPLETE; pri < EV_N_PRI; pri++)
		check_alone(&p, 0, 11, 3, pri);
	p.yx = 1;
	check_alone(&p, 0, 11, 1, EV_PRI_ISSUE);
	check_alone(&p, 11, 0, 4, EV_PRI_ISSUE);
	p.yx = 0;
	p.wait_tail = 1;
	p.age = 1;
	check_alone(&p, 9, 2, 4, EV_PRI_ISSUE);
	for (i = 0; i < sizeof(stages) / sizeof(stages[0]); i++) {
		p = params(4, 3, i & 1);
		if (p.torus)
			p.rows = 3;
		p.t_rc = stages[i][0];
		p.t_va = stages[i][1];
		p.t_sa = stages[i][2];
		p.t_st = stages[i][3];
		p.t_link = stages[i][4];
		p.t_credit = stages[i][5];
		p.speculative = stages[i][6];
		p.buf_depth = p.t_sa + p.t_st + p.t_link + p.t_credit;
		for (f = 1; f <= 24; f += 5) {
			check_alone(&p, 0, 11, (uint32_t)f, EV_PRI_ISSUE);
			check_alone(&p, 7, 4, (uint32_t)f, EV_PRI_ISSUE);
		}
	}
	/* a buffer shorter than that throttles a long packet: slower than
	 * the formula, never faster */
	{
		struct tpkt pk;
		struct noc_stats st;

		p = params(4, 3, 0);
		p.buf_depth = 3;
		memset(&pk, 0, sizeof(pk));
		pk.src = 0;
		pk.dst = 11;
		pk.flits = 12;
		pk.pri = EV_PRI_ISSUE;
		ck_assert_int_eq(run_script(&p, &pk, 1, &st), 0);
		ck_assert_uint_gt(pk.done - pk.at, noc_zero_load(&p, 5, 12));
	}
}
END_TEST

/* splitmix64, for scripts */
static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A burst: every node sends n packets of mixed length at random cycles in
 * [0, span) to random or pattern destinations.  Every packet must arrive
 * exactly once, no earlier than its zero-load latency, with the flit and
 * hop totals adding up, and the network must end empty. */
static void burst(struct noc_params p, int n, cycle_t span, int pattern,
		  uint64_t seed)
{
	int nodes = p.cols * p.rows, k, total = nodes * n;
	struct tpkt *pk = calloc((size_t)total, sizeof(*pk));
	struct noc_stats st;
	uint64_t flits = 0, hops = 0, rs = seed;

	ck_assert_ptr_nonnull(pk);
	for (k = 0; k < total; k++) {
		pk[k].src = k % nodes;
		pk[k].dst = pattern < 0 ? (int)(rnd(&rs) % (uint64_t)nodes)
					: noc_pattern_dest(&p, (enum noc_pattern)pattern,
							   0, pk[k].src, rnd(&rs));
		pk[k].flits = 1 + (uint32_t)(rnd(&rs) % 6);
		pk[k].at = span ? rnd(&rs) % span : 0;
		pk[k].pri = EV_PRI_ISSUE;
		flits += pk[k].flits;
		hops += (uint64_t)pk[k].flits * noc_hops(&p, pk[k].src, pk[k].dst);
	}
	ck_assert_int_eq(run_script(&p, pk, total, &st), 0);
	for (k = 0; k < total; k++) {
		ck_assert_int_eq(pk[k].n_done, 1);
		ck_assert_uint_ge(pk[k].done - pk[k].at,
				  noc_zero_load(&p, noc_hops(&p, pk[k].src, pk[k].dst),
						pk[k].flits));
	}
	ck_assert_uint_eq(st.packets_sent, (uint64_t)total);
	ck_assert_uint_eq(st.packets, (uint64_t)total);
	ck_assert_uint_eq(st.in_flight, 0);
	ck_assert_uint_eq(st.flits_injected, flits);
	ck_assert_uint_eq(st.flits, flits);
	ck_assert_uint_eq(st.hops, hops);
	free(pk);
}

START_TEST(noc_no_loss_no_duplicate)
{
	struct noc_params p = params(4, 4, 0);

	burst(p, 200, 2000, -1, 1);
	p.vcs = 1;
	p.buf_depth = 1;
	burst(p, 50, 0, -1, 2);            /* everything at once, tiny buffers */
	p = params(5, 3, 0);
	p.age = 1;
	p.wait_tail = 1;
	p.speculative = 1;
	burst(p, 100, 500, -1, 3);
}
END_TEST

/* Heavy tornado and uniform traffic on tori with the minimum two VCs: the
 * dateline classes keep the rings deadlock-free (everything drains). */
START_TEST(noc_torus_deadlock_free)
{
	struct noc_params p = params(4, 4, 1);

	burst(p, 200, 0, NOC_PAT_TORNADO, 4);
	burst(p, 200, 0, -1, 5);
	p = params(5, 3, 1);
	p.buf_depth = 2;
	burst(p, 150, 0, NOC_PAT_TORNADO, 6);
	burst(p, 150, 100, NOC_PAT_NEIGHBOR, 7);
	p = params(8, 1, 1);               /* one ring */
	p.vcs = 3;
	p.buf_depth = 1;
	p.wait_tail = 1;
	burst(p, 100, 0, NOC_PAT_TORNADO, 8);
}
END_TEST

/* Latency rises and accepted throughput follows the offered load up to
 * saturation; past it, accepted stops growing. */
START_TEST(noc_saturation_monotone)
{
	static const struct { int w, h, torus; uint32_t pf; } nets[] = {
		{ 4, 4, 0, 1 }, { 4, 4, 0, 4 }, { 4, 4, 1, 4 },
	};
	size_t i;

	for (i = 0; i < sizeof(nets) / sizeof(nets[0]); i++) {
		struct noc_params p = params(nets[i].w, nets[i].h, nets[i].torus);
		struct noc_bench_cfg c;
		struct noc_bench_res r;
		struct diag d;
		double last_lat = 0, rate;
		int sat = 0;

		diag_init(&d, stderr);
		memset(&c, 0, sizeof(c));
		c.pattern = NOC_PAT_UNIFORM;
		c.packet_flits = nets[i].pf;
		c.warmup = 500;
		c.cycles = 3000;
		c.drain_limit = 3000;
		c.seed = 1;
		for (rate = 0.05; rate < 0.95 && !sat; rate += 0.05) {
			c.rate = rate;
			ck_assert_int_eq(noc_bench_run(&p, &c, &r, &d), 0);
			ck_assert_msg(r.lat_avg + 0.5 >= last_lat,
				      "net %zu rate %.2f: latency %.2f after %.2f",
				      i, rate, r.lat_avg, last_lat);
			ck_assert(r.lat_avg >= r.zero_load_avg);
			sat = r.saturated || r.lat_avg > 500;
			/* well below saturation the network takes it all */
			if (r.lat_avg < 2 * r.zero_load_avg)
				ck_assert_msg(r.accepted > r.offered * 0.97 &&
					      r.accepted < r.offered * 1.03,
					      "net %zu rate %.2f: accepted %.4f of %.4f",
					      i, rate, r.accepted, r.offered);
			last_lat = r.lat_avg;
		}
		ck_assert_msg(sat, "net %zu never saturated", i);
	}
}
END_TEST

/* wait_for_tail_credit holds an output VC for a credit round trip per
 * packet: with 1-flit packets and 2 VCs it saturates much earlier. */
START_TEST(noc_wait_tail_saturates_earlier)
{
	struct noc_params p = params(4, 4, 0);
	struct noc_bench_cfg c;
	struct noc_bench_res a, b;
	struct diag d;

	diag_init(&d, stderr);
	memset(&c, 0, sizeof(c));
	c.pattern = NOC_PAT_UNIFORM;
	c.packet_flits = 1;
	c.rate = 0.6;
	c.warmup = 500;
	c.cycles = 3000;
	c.drain_limit = 0;
	c.seed = 3;
	ck_assert_int_eq(noc_bench_run(&p, &c, &a, &d), 0);
	p.wait_tail = 1;
	ck_assert_int_eq(noc_bench_run(&p, &c, &b, &d), 0);
	ck_assert_msg(b.accepted < a.accepted * 0.6,
		      "accepted %.3f with wait_for_tail_credit, %.3f without",
		      b.accepted, a.accepted);
}
END_TEST

/* Same inputs, same numbers; the idle network costs nothing: a single
 * packet across an 8x8 mesh simulates no more network cycles than its
 * latency, and visits one router per cycle. */
START_TEST(noc_deterministic_and_idle_cost)
{
	struct noc_params p = params(8, 8, 0);
	struct noc_bench_cfg c;
	struct noc_bench_res a, b;
	struct diag d;
	struct tpkt pk;
	struct noc_stats st;

	diag_init(&d, stderr);
	memset(&c, 0, sizeof(c));
	c.pattern = NOC_PAT_BITREV;
	c.packet_flits = 2;
	c.rate = 0.2;
	c.warmup = 100;
	c.cycles = 1000;
	c.drain_limit = 1000;
	c.seed = 9;
	ck_assert_int_eq(noc_bench_run(&p, &c, &a, &d), 0);
	ck_assert_int_eq(noc_bench_run(&p, &c, &b, &d), 0);
	ck_assert(a.lat_avg == b.lat_avg && a.lat_p99 == b.lat_p99 &&
		  a.accepted == b.accepted && a.st.ticks == b.st.ticks &&
		  a.stall_credit == b.stall_credit);

	memset(&pk, 0, sizeof(pk));
	pk.src = 0;
	pk.dst = 63;
	pk.flits = 1;
	pk.at = 100000;
	pk.pri = EV_PRI_ISSUE;
	ck_assert_int_eq(run_script(&p, &pk, 1, &st), 0);
	ck_assert_uint_le(st.ticks, noc_zero_load(&p, 14, 1));
	ck_assert_uint_le(st.router_visits, st.ticks);
}
END_TEST

START_TEST(noc_patterns)
{
	struct noc_params p = params(4, 4, 0);
	struct diag d;
	int s;

	diag_init(&d, NULL);
	/* node = y * 4 + x */
	ck_assert_int_eq(noc_pattern_dest(&p, NOC_PAT_TRANSPOSE, 0, 1, 0), 4);
	ck_assert_int_eq(noc_pattern_dest(&p, NOC_PAT_BITCOMP, 0, 1, 0), 14);
	ck_assert_int_eq(noc_pattern_dest(&p, NOC_PAT_BITREV, 0, 1, 0), 8);
	ck_assert_int_eq(noc_pattern_dest(&p, NOC_PAT_SHUFFLE, 0, 9, 0), 3);
	ck_assert_int_eq(noc_pattern_dest(&p, NOC_PAT_TORNADO, 0, 0, 0), 5);
	ck_assert_int_eq(noc_pattern_dest(&p, NOC_PAT_NEIGHBOR, 0, 15, 0), 0);
	ck_assert_int_eq(noc_pattern_dest(&p, NOC_PAT_HOTSPOT, 6, 3, 0), 6);
	for (s = 0; s < 16; s++)
		ck_assert_int_eq(noc_pattern_dest(&p, NOC_PAT_UNIFORM, 0, s,
						  (uint64_t)s * 7), (s * 7) % 16);
	ck_assert_int_eq(noc_pattern_check(&p, NOC_PAT_BITREV, 0, &d), 0);
	p.cols = 3;
	ck_assert_int_eq(noc_pattern_check(&p, NOC_PAT_TRANSPOSE, 0, &d), NPU_EUSAGE);
	ck_assert_int_eq(noc_pattern_check(&p, NOC_PAT_BITCOMP, 0, &d), NPU_EUSAGE);
	ck_assert_int_eq(noc_pattern_check(&p, NOC_PAT_HOTSPOT, 12, &d), NPU_EUSAGE);
	ck_assert_int_eq(d.n_errors, 3);
}
END_TEST

/* The per-class statistics: p99 by nearest rank over exact latencies. */
static cycle_t cls_lat[100];
static int cls_n;

static int cls_done(void *ctx, uint64_t tag, int node, cycle_t when)
{
	(void)node;
	(void)ctx;
	cls_lat[cls_n++] = when - (cycle_t)tag;
	return 0;
}

static int cmp_cycle(const void *a, const void *b)
{
	cycle_t x = *(const cycle_t *)a, y = *(const cycle_t *)b;

	return x < y ? -1 : x > y;
}

START_TEST(noc_class_stats)
{
	struct noc_params p = params(4, 1, 0);
	eng *e = eng_new();
	noc *n = noc_new(e, &p, "noc");
	struct noc_msg m;
	struct ctr_sink s;
	int k;

	ck_assert_ptr_nonnull(n);
	memset(&m, 0, sizeof(m));
	m.cls = NOC_CLS_SYNC;
	m.flits = 1;
	m.deliver = cls_done;
	/* 100 packets 0 -> 3 at cycle 0 queue up behind each other */
	m.dst = 3;
	cls_n = 0;
	for (k = 0; k < 100; k++)
		ck_assert_int_eq(noc_send(n, &m), 0);
	ck_assert_int_eq(eng_run(e, 1000000, NULL), 0);
	ck_assert_int_eq(cls_n, 100);
	qsort(cls_lat, 100, sizeof(cls_lat[0]), cmp_cycle);
	ck_assert_uint_eq(cls_lat[0], noc_zero_load(&p, 3, 1));
	ck_assert_uint_eq(noc_class_quantile(n, NOC_CLS_SYNC, 0.0), cls_lat[0]);
	ck_assert_uint_eq(noc_class_quantile(n, NOC_CLS_SYNC, 0.99), cls_lat[98]);
	ck_assert_uint_eq(noc_class_quantile(n, NOC_CLS_SYNC, 1.0), cls_lat[99]);
	ck_assert_uint_eq(noc_class_quantile(n, NOC_CLS_DRAM_READ, 0.99), 0);
	ctr_sink_init(&s);
	noc_unit(n)->ops->dump(noc_unit(n), &s);
	ck_assert_uint_eq(ctr_find(&s, "noc.sync.packets")->u, 100);
	ck_assert_uint_eq(ctr_find(&s, "noc.sync.latency_p99_cycles")->u, cls_lat[98]);
	ck_assert_ptr_null(ctr_find(&s, "noc.dram_read.packets"));
	ck_assert_uint_eq(ctr_find(&s, "noc.router1.east.flits")->u, 100);
	ck_assert_ptr_null(ctr_find(&s, "noc.router3.east.flits"));
	ck_assert_uint_eq(ctr_find(&s, "noc.router3.local.flits")->u, 100);
	ctr_sink_free(&s);
	eng_free(e);
	/* the deadlock report names what is still inside: run a packet
	 * half way (its head sits in a router), then ask */
	e = eng_new();
	n = noc_new(e, &p, "noc");
	{
		char why[256];
		struct eng_stats es;

		m.deliver = NULL;
		m.flits = 4;
		ck_assert_int_eq(noc_send(n, &m), 0);
		ck_assert_int_eq(eng_run_until(e, 7, CYCLE_MAX, &es), 0);
		ck_assert(es.paused);
		ck_assert(noc_unit(n)->ops->blocked(noc_unit(n), why, sizeof(why)));
		ck_assert_msg(strstr(why, "1 packet still in the network: sync 0->3 (4 flits) at router 1 west vc 0"),
			      "report: %s", why);
		ck_assert_int_eq(eng_run(e, 1000000, NULL), 0);
		ck_assert(!noc_unit(n)->ops->blocked(noc_unit(n), why, sizeof(why)));
	}
	eng_free(e);
	m.flits = 1;
	/* the source queue refuses past noc.inject_queue */
	e = eng_new();
	p.inject_queue = 2;
	n = noc_new(e, &p, "noc");
	m.deliver = NULL;
	ck_assert_int_eq(noc_send(n, &m), 0);  /* its head leaves at once */
	ck_assert_int_eq(noc_send(n, &m), 0);
	ck_assert_int_eq(noc_send(n, &m), 0);
	ck_assert_int_eq(noc_send(n, &m), NOC_FULL);
	ck_assert_int_eq(eng_run(e, 1000000, NULL), 0);
	eng_free(e);
}
END_TEST

/* The noc.* keys reach the parameters; bad ones are config errors. */

/* ---- router multicast -------------------------------------------------------*/

struct mcdrv {
	struct unit u;       /* must be first */
	noc *n;
	int src;
	uint64_t dsts[4];
	uint32_t flits;
	int n_pk;            /* packets to send, one per event */
	int got[256];        /* deliveries per node */
	cycle_t when[256];   /* last delivery per node */
};

static int mc_done(void *ctx, uint64_t tag, int node, cycle_t when)
{
	struct mcdrv *d = ctx;

	(void)tag;
	d->got[node]++;
	d->when[node] = when;
	return 0;
}

static int mc_on_event(struct unit *u, const struct ev *ev)
{
	struct mcdrv *d = (struct mcdrv *)u;
	struct noc_msg m;

	(void)ev;
	memset(&m, 0, sizeof(m));
	m.src = d->src;
	m.dsts = d->dsts;
	m.flits = d->flits;
	m.cls = NOC_CLS_MCAST;
	m.deliver = mc_done;
	m.ctx = d;
	return noc_send(d->n, &m);
}

static const struct unit_ops mc_ops = {
	.kind = UNIT_OTHER,
	.on_event = mc_on_event,
};

/* Directed links of the XY routes from src to every destination, counted
 * once (the test's own walk, not the router's). */
static int xy_tree_links(const struct noc_params *p, int src, const int *dst,
			 int n_dst)
{
	static uint8_t seen[256][4];
	int k, links = 0;

	memset(seen, 0, sizeof(seen));
	for (k = 0; k < n_dst; k++) {
		int x = src % p->cols, y = src / p->cols;
		int tx = dst[k] % p->cols, ty = dst[k] / p->cols;

		while (x != tx || y != ty) {
			int dir = x < tx ? 0 : x > tx ? 1 : y < ty ? 2 : 3;
			int node = y * p->cols + x;

			if (!seen[node][dir]++)
				links++;
			x += dir == 0 ? 1 : dir == 1 ? -1 : 0;
			y += dir == 2 ? 1 : dir == 3 ? -1 : 0;
		}
	}
	return links;
}

START_TEST(noc_multicast_tree)
{
	/* One 3-flit multicast from node 5 of a 4x4 mesh to six nodes, alone
	 * in the network: every destination gets it exactly once, at the
	 * unicast zero-load latency (branches leave a router in the same
	 * cycle), no other node does, and the flits cross each tree link
	 * once: flit-hops = tree links x flits, copies = (destinations - 1)
	 * x flits, delivered = injected + copies.  Then 40 such packets back
	 * to back: all delivered, nothing lost. */
	struct noc_params p = params(4, 4, 0);
	static const int dst[] = { 0, 3, 5, 6, 12, 15 };
	const int n_dst = 6;
	struct noc_stats st;
	struct mcdrv d;
	eng *e;
	int k, burst;

	for (burst = 1; burst <= 40; burst += 39) {
		e = eng_new();
		ck_assert_ptr_nonnull(e);
		memset(&d, 0, sizeof(d));
		unit_init(&d.u, &mc_ops, e, -1, "mc");
		d.n = noc_new(e, &p, "noc");
		ck_assert_ptr_nonnull(d.n);
		d.src = 5;
		d.flits = 3;
		for (k = 0; k < n_dst; k++)
			d.dsts[0] |= 1ULL << dst[k];
		for (k = 0; k < burst; k++)
			ck_assert_int_eq(eng_schedule(e, 7 + (cycle_t)k, EV_PRI_ISSUE,
						      &d.u, 1, 0), 0);
		ck_assert_int_eq(eng_run(e, 1000000, NULL), 0);
		noc_get_stats(d.n, &st);
		for (k = 0; k < 16; k++) {
			int want = (d.dsts[0] >> k & 1) ? burst : 0;

			ck_assert_msg(d.got[k] == want, "node %d: %d deliveries, want %d",
				      k, d.got[k], want);
			if (burst == 1 && want)
				ck_assert_msg(d.when[k] - 7 ==
					      noc_zero_load(&p, noc_hops(&p, 5, k), 3),
					      "node %d latency %llu", k,
					      (unsigned long long)(d.when[k] - 7));
		}
		ck_assert_uint_eq(st.packets_sent, (uint64_t)burst);
		ck_assert_uint_eq(st.packets, (uint64_t)(burst * n_dst));
		ck_assert_uint_eq(st.in_flight, 0);
		ck_assert_uint_eq(st.flits_injected, (uint64_t)burst * 3);
		ck_assert_uint_eq(st.flits_replicated, (uint64_t)(burst * (n_dst - 1) * 3));
		ck_assert_uint_eq(st.flits, st.flits_injected + st.flits_replicated);
		ck_assert_uint_eq(st.hops, (uint64_t)(burst * 3 *
						    xy_tree_links(&p, 5, dst, n_dst)));
		eng_free(e);
	}
}
END_TEST

START_TEST(noc_config_keys)
{
	static const char *const ov[] = {
		"noc.cols=5", "noc.rows=3", "noc.topology=torus", "noc.vcs=4",
		"noc.routing_delay=0", "noc.vc_alloc_delay=2", "noc.sw_alloc_delay=3",
		"noc.st_delay=2", "noc.link_latency=5", "noc.credit_delay=4",
		"noc.speculative=true", "noc.wait_for_tail_credit=true",
		"noc.priority=age", "noc.routing=yx", "noc.buffer_depth=7",
		"noc.link_bytes=16", "noc.inject_queue=0",
	};
	struct arch a;
	struct diag d;
	struct noc_params p;

	diag_init(&d, stderr);
	ck_assert_int_eq(arch_load(&a, NULL, ov, sizeof(ov) / sizeof(ov[0]), &d), 0);
	noc_params_from_arch(&a, &p);
	ck_assert(p.cols == 5 && p.rows == 3 && p.torus && p.vcs == 4 &&
		  p.t_rc == 0 && p.t_va == 2 && p.t_sa == 3 && p.t_st == 2 &&
		  p.t_link == 5 && p.t_credit == 4 && p.speculative &&
		  p.wait_tail && p.age && p.yx && p.buf_depth == 7 &&
		  p.flit_bytes == 16 && p.inject_queue == 0);
	arch_free(&a);
}
END_TEST

static Suite *suite_noc(void)
{
	Suite *s = suite_create("noc");

	TEST_ADD(s, noc_zero_load_exact);
	TEST_ADD(s, noc_zero_load_formula_values);
	TEST_ADD(s, noc_zero_load_phase_and_options);
	TEST_ADD(s, noc_no_loss_no_duplicate);
	TEST_ADD(s, noc_torus_deadlock_free);
	TEST_ADD(s, noc_saturation_monotone);
	TEST_ADD(s, noc_wait_tail_saturates_earlier);
	TEST_ADD(s, noc_deterministic_and_idle_cost);
	TEST_ADD(s, noc_patterns);
	TEST_ADD(s, noc_class_stats);
	TEST_ADD(s, noc_config_keys);
	TEST_ADD(s, noc_multicast_tree);
	return s;
}

TEST_MAIN(suite_noc)
