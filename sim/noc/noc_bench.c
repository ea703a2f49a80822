/*
 * noc_bench.c - synthetic traffic on the network alone: `npusim noc`, the
 * NoC tests and bench/bench_noc.c.
 *
 * Open loop, as BookSim's latency mode: every node creates packets as a
 * Bernoulli process of 'rate' flits (rate / packet_flits packets) per
 * cycle into an unbounded source queue, whatever the network does.
 * Creation times are drawn as geometric gaps, one event per packet, so
 * the generator costs per packet, not per node and cycle.  Packets created
 * in [warmup, warmup + cycles) are measured: latency from creation (source
 * queueing included, BookSim include_queuing = 1) to the tail reaching its
 * destination NI.  Creation goes on while the measured packets drain, so
 * they see the same load throughout; if they have not all arrived
 * drain_limit cycles after the window, the point is saturated.
 * Deterministic: a seeded splitmix64 stream, one draw per decision.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "noc.h"
#include "../engine/unit.h"

const char *const noc_pattern_names[NOC_N_PAT] = {
#define NOC_PAT_NAME(n, name, doc) name,
	NOC_PATTERNS(NOC_PAT_NAME)
#undef NOC_PAT_NAME
};

enum { GEN_CREATE = 1 };

struct gen {
	struct unit u;               /* must be first */
	noc *n;                      /* the network */
	const struct noc_params *p;
	const struct noc_bench_cfg *c;
	double pkt_prob;             /* packets per node per cycle, <= 1 */
	double log_q;                /* log(1 - pkt_prob), < 0 */
	uint64_t rng;                /* splitmix64 state */
	cycle_t win_lo, win_hi;      /* measurement window */
	cycle_t stop;                /* no creation from here on */
	uint64_t measured;           /* packets created in the window */
	uint64_t delivered;          /* of those, delivered */
	uint64_t *lat;               /* their latencies */
	uint64_t n_lat, cap_lat;
	double zl_sum, hops_sum;     /* formula and hops over measured */
	int oom;
};

static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in (0, 1]: 53 random bits, never 0 (log below). */
static double rnd_unit(uint64_t *s)
{
	return ((double)(rnd(s) >> 11) + 1.0) / 9007199254740992.0;
}

static int log2_exact(int v)
{
	int b = 0;

	while ((1 << b) < v)
		b++;
	return (1 << b) == v ? b : -1;
}

int noc_pattern_check(const struct noc_params *p, enum noc_pattern pat,
		      int hotspot, struct diag *d)
{
	int nodes = p->cols * p->rows;

	switch (pat) {
	case NOC_PAT_TRANSPOSE:
		if (p->cols != p->rows)
			return diag_error(d, diag_nowhere(), NPU_EUSAGE,
					  "--pattern transpose needs a square network (noc.cols = %d, noc.rows = %d)",
					  p->cols, p->rows);
		break;
	case NOC_PAT_BITCOMP:
	case NOC_PAT_BITREV:
	case NOC_PAT_SHUFFLE:
		if (log2_exact(nodes) < 0)
			return diag_error(d, diag_nowhere(), NPU_EUSAGE,
					  "--pattern %s needs a power-of-two number of nodes (the %dx%d network has %d)",
					  noc_pattern_names[pat], p->cols, p->rows, nodes);
		break;
	case NOC_PAT_HOTSPOT:
		if (hotspot < 0 || hotspot >= nodes)
			return diag_error(d, diag_nowhere(), NPU_EUSAGE,
					  "--hotspot %d is outside the %dx%d network (nodes 0 .. %d)",
					  hotspot, p->cols, p->rows, nodes - 1);
		break;
	default:
		break;
	}
	return 0;
}

int noc_pattern_dest(const struct noc_params *p, enum noc_pattern pat,
		     int hotspot, int src, uint64_t r)
{
	int nodes = p->cols * p->rows, bits = log2_exact(nodes);
	int x = src % p->cols, y = src / p->cols, i, d;

	switch (pat) {
	case NOC_PAT_UNIFORM:
		return (int)(r % (uint64_t)nodes);
	case NOC_PAT_TRANSPOSE:
		return x * p->cols + y;
	case NOC_PAT_BITCOMP:
		return ~src & (nodes - 1);
	case NOC_PAT_BITREV:
		for (d = 0, i = 0; i < bits; i++)
			d |= ((src >> i) & 1) << (bits - 1 - i);
		return d;
	case NOC_PAT_SHUFFLE:
		return bits ? ((src << 1) | (src >> (bits - 1))) & (nodes - 1) : 0;
	case NOC_PAT_TORNADO:
		x = (x + (p->cols + 1) / 2 - 1) % p->cols;
		y = (y + (p->rows + 1) / 2 - 1) % p->rows;
		return y * p->cols + x;
	case NOC_PAT_NEIGHBOR:
		return ((y + 1) % p->rows) * p->cols + (x + 1) % p->cols;
	case NOC_PAT_HOTSPOT:
	default:
		return hotspot;
	}
}

/* Cycles to the next packet of a node: geometric with pkt_prob (1 when
 * every cycle has one). */
static cycle_t gen_gap(struct gen *g)
{
	double k;

	if (g->pkt_prob >= 1.0)
		return 1;
	k = floor(log(rnd_unit(&g->rng)) / g->log_q);
	return k > 1e12 ? (cycle_t)1e12 : 1 + (cycle_t)k;
}

static int gen_done(void *ctx, uint64_t tag, int node, cycle_t when)
{
	struct gen *g = ctx;
	cycle_t created = tag >> 1;

	(void)node;
	if (!(tag & 1))
		return 0;
	g->delivered++;
	if (g->n_lat == g->cap_lat) {
		uint64_t cap = g->cap_lat ? g->cap_lat * 2 : 1024;
		uint64_t *v = realloc(g->lat, cap * sizeof(*v));

		if (!v)
			return NPU_ENOMEM;
		g->lat = v;
		g->cap_lat = cap;
	}
	g->lat[g->n_lat++] = when - created;
	return 0;
}

/* Create one packet at node 'src' now and schedule its next one. */
static int gen_on_event(struct unit *u, const struct ev *ev)
{
	struct gen *g = (struct gen *)u;
	cycle_t now = ev->when;
	int src = (int)ev->arg, rc;
	struct noc_msg m;
	int meas = now >= g->win_lo && now < g->win_hi;

	if (now >= g->stop)
		return 0;
	memset(&m, 0, sizeof(m));
	m.src = src;
	m.dst = noc_pattern_dest(g->p, g->c->pattern, g->c->hotspot, src,
				 rnd(&g->rng));
	m.flits = g->c->packet_flits;
	m.cls = NOC_CLS_SYNTH;
	m.deliver = gen_done;
	m.ctx = g;
	m.tag = (now << 1) | (uint64_t)meas;
	if ((rc = noc_send(g->n, &m)))
		return rc < 0 ? rc : NPU_EINTERNAL; /* unbounded: never full */
	if (meas) {
		int h = noc_hops(g->p, src, m.dst);

		g->measured++;
		g->hops_sum += h;
		g->zl_sum += (double)noc_zero_load(g->p, h, m.flits);
	}
	return eng_schedule(u->eng, now + gen_gap(g), EV_PRI_ISSUE, u,
			    GEN_CREATE, (uint64_t)src);
}

static const struct unit_ops gen_ops = {
	.kind = UNIT_OTHER,
	.on_event = gen_on_event,
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int noc_bench_run(const struct noc_params *p0, const struct noc_bench_cfg *c,
		  struct noc_bench_res *r, struct diag *d)
{
	struct noc_params p = *p0;
	struct gen g;
	struct eng_stats es;
	eng *e;
	int i, rc, nodes = p.cols * p.rows;
	cycle_t step, t;

	memset(r, 0, sizeof(*r));
	memset(&g, 0, sizeof(g));
	if ((rc = noc_pattern_check(&p, c->pattern, c->hotspot, d)))
		return rc;
	if (!(c->rate > 0) || !c->packet_flits || !c->cycles)
		return diag_error(d, diag_nowhere(), NPU_EUSAGE,
				  "synthetic traffic needs a rate > 0, packets of >= 1 flit and a window of >= 1 cycle");
	p.inject_queue = 0; /* open loop: source queues never refuse */
	e = eng_new();
	if (!e)
		return NPU_ENOMEM;
	eng_set_diag(e, d);
	unit_init(&g.u, &gen_ops, e, -1, "noc_bench");
	g.n = noc_new(e, &p, "noc");
	if (!g.n) {
		eng_free(e);
		return NPU_ENOMEM;
	}
	g.p = noc_params(g.n);
	g.c = c;
	g.rng = c->seed ^ 0x6e6f635f62656e63ULL; /* "noc_benc" */
	g.pkt_prob = c->rate / (double)c->packet_flits;
	if (g.pkt_prob > 1.0)
		g.pkt_prob = 1.0;
	g.log_q = g.pkt_prob < 1.0 ? log(1.0 - g.pkt_prob) : -1.0;
	g.win_lo = c->warmup;
	g.win_hi = c->warmup + c->cycles;
	g.stop = g.win_hi + c->drain_limit;
	noc_set_window(g.n, g.win_lo, g.win_hi);
	/* first packet of every node at its own geometric gap from 0 */
	for (i = 0; i < nodes; i++)
		if ((rc = eng_schedule(e, gen_gap(&g) - 1, EV_PRI_ISSUE, &g.u,
				       GEN_CREATE, (uint64_t)i)))
			goto out;
	/* run to the end of the window, then in steps until every measured
	 * packet has arrived or the drain limit passes */
	step = c->cycles < 1000 ? c->cycles : 1000;
	for (t = g.win_hi;; t += step) {
		if (t > g.stop)
			t = g.stop;
		if ((rc = eng_run_until(e, t, CYCLE_MAX, &es)))
			goto out;
		if (g.delivered == g.measured || t >= g.stop || !es.paused)
			break;
	}
	r->measured = g.measured;
	r->delivered = g.delivered;
	r->saturated = g.delivered < g.measured;
	r->end = eng_now(e);
	if (g.n_lat) {
		uint64_t sum = 0, k, idx;

		qsort(g.lat, g.n_lat, sizeof(*g.lat), cmp_u64);
		for (k = 0; k < g.n_lat; k++)
			sum += g.lat[k];
		r->lat_avg = (double)sum / (double)g.n_lat;
		/* nearest rank: the smallest latency with >= 99 % at or below */
		idx = (g.n_lat * 99 + 99) / 100;
		r->lat_p99 = g.lat[(idx ? idx : 1) - 1];
		r->lat_min = g.lat[0];
		r->lat_max = g.lat[g.n_lat - 1];
	}
	if (g.measured) {
		r->zero_load_avg = g.zl_sum / (double)g.measured;
		r->hops_avg = g.hops_sum / (double)g.measured;
	}
	r->offered = (double)g.measured * c->packet_flits / nodes /
		     (double)c->cycles;
	r->accepted = (double)noc_window_flits(g.n) / nodes / (double)c->cycles;
	noc_get_stats(g.n, &r->st);
	r->stall_credit = noc_unit(g.n)->ctr[CTR_NOC_STALL_CREDIT];
	rc = 0;
out:
	free(g.lat);
	eng_free(e); /* frees the network (registered); g is on the stack */
	return rc;
}
