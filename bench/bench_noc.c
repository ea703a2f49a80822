/*
 * bench_noc.c - the network's host cost follows flits, not routers or
 * cycles: a mostly idle network of any size costs the same per simulated
 * cycle.
 *
 * The same sparse traffic (one 4-flit packet from node 0 to its east
 * neighbour every 500 cycles, 50 M cycles) runs on a 2x2, 4x4, 8x8 and
 * 16x16 mesh; then each network under uniform load (0.05 flits/node/cycle,
 * npusim noc's generator) for comparison.  Prints host ns per simulated
 * cycle, the router visits the model made, and the ratio to 2x2.  Fails
 * (exit 1) when an idle network visits more routers per cycle than the
 * 2x2 does: that would mean cost grows with size.  Host time is measured
 * here only, never in make test.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../sim/engine/unit.h"
#include "../sim/noc/noc.h"

struct src {
	struct unit u;      /* must be first */
	noc *n;
	cycle_t period, end;
};

static int src_event(struct unit *u, const struct ev *ev)
{
	struct src *s = (struct src *)u;
	struct noc_msg m;
	int rc;

	memset(&m, 0, sizeof(m));
	m.src = 0;
	m.dst = 1;
	m.flits = 4;
	m.cls = NOC_CLS_SYNTH;
	if ((rc = noc_send(s->n, &m)))
		return rc < 0 ? rc : 0;
	if (ev->when + s->period >= s->end)
		return 0;
	return eng_schedule(u->eng, ev->when + s->period, EV_PRI_ISSUE, u, 0, 0);
}

static const struct unit_ops src_ops = {
	.kind = UNIT_OTHER,
	.on_event = src_event,
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static struct noc_params mesh(int k)
{
	struct noc_params p;

	memset(&p, 0, sizeof(p));
	p.head_flit = 1;
	p.cols = p.rows = k;
	p.vcs = 2;
	p.buf_depth = 4;
	p.flit_bytes = 32;
	p.t_rc = p.t_va = p.t_sa = p.t_st = p.t_link = p.t_credit = 1;
	return p;
}

int main(void)
{
	static const int sizes[] = { 2, 4, 8, 16 };
	const cycle_t cycles = 50000000;
	double base = 0, base_visits = 0;
	int status = 0;
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct noc_params p = mesh(sizes[i]);
		struct noc_stats st;
		struct src s;
		eng *e = eng_new();
		double t0, t1, ns, visits;

		memset(&s, 0, sizeof(s));
		unit_init(&s.u, &src_ops, e, -1, "src");
		s.n = noc_new(e, &p, "noc");
		s.period = 500;
		s.end = cycles;
		if (!s.n || eng_schedule(e, 0, EV_PRI_ISSUE, &s.u, 0, 0)) {
			fputs("bench_noc: out of memory\n", stderr);
			return 1;
		}
		t0 = now_s();
		if (eng_run(e, CYCLE_MAX, NULL)) {
			fputs("bench_noc: run failed\n", stderr);
			return 1;
		}
		t1 = now_s();
		noc_get_stats(s.n, &st);
		ns = (t1 - t0) * 1e9 / (double)cycles;
		visits = (double)st.router_visits / (double)cycles;
		if (i == 0) {
			base = ns;
			base_visits = visits;
		}
		printf("bench.noc.idle_%dx%d: %llu packets in %llu cycles, "
		       "%.4f router visits/cycle, %.3f host ns/cycle "
		       "(%.2f x 2x2), %.0f M cycles/s\n", sizes[i], sizes[i],
		       (unsigned long long)st.packets,
		       (unsigned long long)cycles, visits, ns, ns / base,
		       1e-6 * (double)cycles / (t1 - t0));
		if (visits > base_visits)
			status = 1;
		eng_free(e);
	}
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct noc_params p = mesh(sizes[i]);
		struct noc_bench_cfg c;
		struct noc_bench_res r;
		struct diag d;
		double t0, t1;

		memset(&c, 0, sizeof(c));
		c.pattern = NOC_PAT_UNIFORM;
		c.rate = 0.05;
		c.packet_flits = 4;
		c.warmup = 1000;
		c.cycles = 20000;
		c.drain_limit = 20000;
		c.seed = 1;
		diag_init(&d, stderr);
		t0 = now_s();
		if (noc_bench_run(&p, &c, &r, &d))
			return 1;
		t1 = now_s();
		printf("bench.noc.uniform_%dx%d: %llu flit-hops in %llu cycles, "
		       "%.1f host ns per flit-hop, %.2f M cycles/s\n",
		       sizes[i], sizes[i], (unsigned long long)r.st.hops,
		       (unsigned long long)r.end,
		       (t1 - t0) * 1e9 / (double)(r.st.hops ? r.st.hops : 1),
		       1e-6 * (double)r.end / (t1 - t0));
	}
	if (status)
		fputs("bench_noc: an idle large network visited more routers "
		      "per cycle than the 2x2\n", stderr);
	return status;
}
