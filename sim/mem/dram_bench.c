/*
 * dram_bench.c - synthetic DRAM traffic: `npusim dram` and the DRAM tests.
 *
 * One generator drives the DRAM of a config open loop: in each cycle it
 * issues requests until a channel queue refuses one (DRAM_FULL), then
 * sleeps until the DRAM reports space and goes on with the refused request
 * (head of line), so the queues stay as full as the controller allows.
 * Addresses come from a seeded splitmix64 stream: the same config and
 * seed give the same requests, cycles and counters bit for bit.
 */
#include <stdlib.h>
#include <string.h>

#include "dram.h"
#include "../engine/unit.h"

enum { GEN_ISSUE = 1 };

/* The generator (an engine unit that is not registered: the bench owns it). */
struct gen {
	struct unit u;                  /* must be first */
	dram *d;                        /* target */
	const struct dram_bench_cfg *cfg;
	uint32_t bytes;                 /* bytes per request */
	uint64_t span;                  /* request-aligned slots in DRAM */
	uint64_t rng;                   /* splitmix64 state */
	uint64_t next_seq;              /* next slot of the sequential stream */
	uint64_t issued;                /* requests accepted by the DRAM */
	uint64_t completed;             /* requests done */
	uint64_t window;                /* most requests in flight at once */
	int have_next;                  /* next_addr/next_write hold a refused one */
	uint64_t next_addr;             /* the request to issue next */
	int next_write;
	int issue_pending;              /* a GEN_ISSUE event is scheduled */
	cycle_t last_done;              /* cycle of the last completion */
};

/* splitmix64 (Steele, Lea, Flood 2014): a fixed, seedable sequence. */
static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * Draw the next request: its address (sequential slot, uniform random
 * slot, or either with probability 1/2 for "mixed") and its direction
 * (read with probability read_pct %).  The random draws happen in a fixed
 * order, so the request stream depends only on the seed.
 */
static void gen_next(struct gen *g)
{
	int seq;

	switch (g->cfg->pattern) {
	case DRAM_PAT_STREAM:
		seq = 1;
		break;
	case DRAM_PAT_RANDOM:
		seq = 0;
		break;
	default:
		seq = (int)(rnd(&g->rng) & 1);
		break;
	}
	if (seq)
		g->next_addr = (g->next_seq++ % g->span) * g->bytes;
	else
		g->next_addr = (rnd(&g->rng) % g->span) * g->bytes;
	g->next_write = (int)(rnd(&g->rng) % 100) >= g->cfg->read_pct;
	g->have_next = 1;
}

static int gen_kick(struct gen *g);

/* A request completed: the last completion ends the measured span. */
static int gen_done(void *ctx, uint64_t tag, cycle_t when)
{
	struct gen *g = ctx;

	(void)tag;
	g->completed++;
	g->last_done = when;
	/* a full window reopens: go on issuing in this cycle */
	if (g->issued - g->completed + 1 == g->window &&
	    g->issued < g->cfg->requests)
		return gen_kick(g);
	return 0;
}

/* Run an issue step in the current cycle (at most one pending). */
static int gen_kick(struct gen *g)
{
	if (g->issue_pending)
		return 0;
	g->issue_pending = 1;
	return eng_schedule(g->u.eng, eng_now(g->u.eng), EV_PRI_ISSUE, &g->u,
			    GEN_ISSUE, 0);
}

static int gen_retry(void *ctx, uint64_t tag, cycle_t when)
{
	(void)tag;
	(void)when;
	return gen_kick(ctx);
}

/*
 * Issue until the DRAM refuses or every request is out.  A refused request
 * stays the next one (head of line), so refusals never reorder the stream,
 * and the generator sleeps until the DRAM has space: open loop, with the
 * queues as the only limit on requests in flight.
 */
static int gen_event(struct unit *u, const struct ev *ev)
{
	struct gen *g = (struct gen *)u;
	int rc;

	(void)ev;
	g->issue_pending = 0;
	while (g->issued < g->cfg->requests &&
	       g->issued - g->completed < g->window) {
		if (!g->have_next)
			gen_next(g);
		rc = dram_request(g->d, g->next_addr, g->bytes, g->next_write,
				  gen_done, g, g->issued);
		if (rc == DRAM_FULL)
			return dram_on_space(g->d, gen_retry, g);
		if (rc)
			return rc;
		g->have_next = 0;
		g->issued++;
	}
	return 0;
}

static const struct unit_ops gen_ops = {
	.kind = UNIT_OTHER,
	.on_event = gen_event,
};

/*
 * A private engine with the DRAM of config a and the generator; bandwidth
 * is request bytes over first issue (cycle 0) to last completion, latency
 * the DRAM's per-burst read latency (dram_get_stats).
 */
int dram_bench_run(const struct arch *a, const struct dram_bench_cfg *cfg,
		   struct dram_bench_res *res, struct diag *dg)
{
	struct eng_stats es;
	struct gen g;
	double secs;
	eng *e;
	int rc;

	memset(res, 0, sizeof(*res));
	if (cfg->read_pct < 0 || cfg->read_pct > 100)
		return diag_error(dg, diag_nowhere(), NPU_EUSAGE,
				  "--reads %d is not a percentage (0..100)",
				  cfg->read_pct);
	e = eng_new();
	if (!e)
		return NPU_ENOMEM;
	eng_set_diag(e, dg);
	memset(&g, 0, sizeof(g));
	unit_init(&g.u, &gen_ops, e, -1, "dram_bench");
	g.cfg = cfg;
	g.rng = cfg->seed;
	g.d = dram_new(e, a);
	if (!g.d) {
		eng_free(e);
		return NPU_ENOMEM;
	}
	g.bytes = cfg->bytes ? cfg->bytes : dram_burst_bytes(g.d);
	if (g.bytes > dram_size(g.d)) {
		rc = diag_error(dg, diag_nowhere(), NPU_EUSAGE,
				"--bytes %u is larger than the DRAM (%llu bytes)",
				g.bytes, (unsigned long long)dram_size(g.d));
		goto out;
	}
	g.span = dram_size(g.d) / g.bytes;
	/*
	 * The timed DRAM limits what is in flight through its queues.  The
	 * ideal one never refuses, so the generator limits itself: enough
	 * requests to cover the bandwidth-delay product, plus as many as the
	 * channels' queues would hold, so that latency includes the same
	 * queueing as in the timed mode instead of the whole run's backlog.
	 */
	g.window = UINT64_MAX;
	if (ARCH_E(a, DRAM_MODE) == ARCH_DRAM_MODE_IDEAL) {
		double bdp = ARCH_F(a, DRAM_IDEAL_BW) * ARCH_F(a, DRAM_IDEAL_LAT);

		g.window = (uint64_t)ARCH_I(a, DRAM_CHANNELS) *
			   (uint64_t)ARCH_I(a, DRAM_QUEUE) +
			   (uint64_t)(bdp / g.bytes) + 1;
	}
	rc = gen_kick(&g);
	if (rc)
		goto out;
	rc = eng_run(e, CYCLE_MAX - 1, &es);
	if (rc)
		goto out;
	if (g.completed != cfg->requests) {
		rc = diag_error(dg, diag_nowhere(), NPU_EINTERNAL,
				"dram bench: %llu of %llu requests completed",
				(unsigned long long)g.completed,
				(unsigned long long)cfg->requests);
		goto out;
	}
	dram_get_stats(g.d, -1, &res->st);
	res->cycles = g.last_done;      /* the first request left at cycle 0 */
	res->bytes = cfg->requests * g.bytes;
	secs = (double)res->cycles / (ARCH_F(a, CHIP_CLOCK_GHZ) * 1e9);
	res->gbps = secs > 0 ? (double)res->bytes / secs / 1e9 : 0;
	res->peak_gbps = dram_peak_bytes_per_s(g.d) / 1e9;
	res->pct_peak = res->peak_gbps > 0 ? 100 * res->gbps / res->peak_gbps
					   : 0;
	res->lat_avg_ns = res->st.lat_avg / ARCH_F(a, CHIP_CLOCK_GHZ);
	res->lat_p99_ns = (double)res->st.lat_p99 / ARCH_F(a, CHIP_CLOCK_GHZ);
	{
		uint64_t acc = res->st.row_hits + res->st.row_misses +
			       res->st.row_conflicts;

		res->row_hit_rate = acc ? (double)res->st.row_hits /
					  (double)acc : 0;
	}
out:
	eng_free(e);
	dram_free(g.d);
	return rc;
}
