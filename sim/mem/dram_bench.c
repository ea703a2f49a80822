/*
 * dram_bench.c - synthetic DRAM traffic: `npusim dram` and the DRAM tests.
 *
 * One generator drives the DRAM of a config in one of three ways:
 *  - open loop (rate 0): in each cycle it issues requests until a channel
 *    queue refuses one (DRAM_FULL), then sleeps until the DRAM reports
 *    space and goes on with the refused request (head of line), so the
 *    queues stay as full as the controller allows;
 *  - at an offered rate: request i is made at core cycle i x period
 *    (period = bytes / rate); a request the DRAM refuses waits at the
 *    source, and so do all later ones (in order), so the time from "made"
 *    to "accepted" is the source queueing, reported apart from the DRAM's
 *    own latency;
 *  - with at most 'outstanding' requests in flight (1 = pointer chase:
 *    each request waits for the previous one, the unloaded latency).
 * Addresses come from a seeded splitmix64 stream: the same config and
 * seed give the same requests, cycles and counters bit for bit.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dram.h"
#include "../engine/unit.h"

enum { GEN_ISSUE = 1 };

const char *const dram_pattern_names[DRAM_PAT_N] = {
	[DRAM_PAT_STREAM] = "stream", [DRAM_PAT_RANDOM] = "random",
	[DRAM_PAT_MIXED] = "mixed",   [DRAM_PAT_COPY] = "copy",
	[DRAM_PAT_CHASE] = "pointer-chase",
};

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
	double period;                  /* rate mode: core cycles per request */
	int have_next;                  /* next_addr/next_write hold a refused one */
	uint64_t next_addr;             /* the request to issue next */
	int next_write;
	int issue_pending;              /* a GEN_ISSUE event is scheduled */
	cycle_t pending_at;             /* its cycle */
	cycle_t last_done;              /* cycle of the last completion */
	double wait_sum;                /* rate mode: source waits, cycles */
	double total_sum;               /* rate mode: read made-to-done, cycles */
	uint64_t n_reads;               /* read requests completed */
};

/* splitmix64 (Steele, Lea, Flood 2014): a fixed, seedable sequence. */
static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Rate mode: the core cycle request i is made. */
static cycle_t made_at(const struct gen *g, uint64_t i)
{
	return (cycle_t)floor((double)i * g->period);
}

/*
 * Draw request i: its address (sequential slot, uniform random slot, or
 * either with probability 1/2 for "mixed"; "copy" alternates a read of the
 * next slot of the first half of the DRAM and a write of the same slot in
 * the second half) and its direction (read with probability read_pct %).
 * The random draws happen in a fixed order, so the request stream depends
 * only on the seed.
 */
static void gen_next(struct gen *g)
{
	uint64_t i = g->issued;
	int seq;

	switch (g->cfg->pattern) {
	case DRAM_PAT_STREAM:
		seq = 1;
		break;
	case DRAM_PAT_RANDOM:
	case DRAM_PAT_CHASE:
		seq = 0;
		break;
	case DRAM_PAT_COPY: {
		/* with row most significant (every preset's mapping) the
		 * second half is the same banks, other rows */
		uint64_t half = g->span / 2, slot = (i / 2) % half;

		g->next_write = (int)(i & 1);
		g->next_addr = (slot + (g->next_write ? half : 0)) * g->bytes;
		g->have_next = 1;
		return;
	}
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

static int gen_kick(struct gen *g, cycle_t when);

/* A request completed: the last completion ends the measured span.  The
 * tag is the request index times 2 plus its direction. */
static int gen_done(void *ctx, uint64_t tag, cycle_t when)
{
	struct gen *g = ctx;

	g->completed++;
	g->last_done = when;
	if (!(tag & 1)) {
		g->n_reads++;
		if (g->period > 0)
			g->total_sum += (double)(when - made_at(g, tag >> 1));
	}
	/* a full window reopens: go on issuing in this cycle */
	if (g->issued - g->completed + 1 == g->window &&
	    g->issued < g->cfg->requests)
		return gen_kick(g, when);
	return 0;
}

/* Run an issue step at cycle 'when' (at most one pending, the earliest). */
static int gen_kick(struct gen *g, cycle_t when)
{
	if (g->issue_pending && g->pending_at <= when)
		return 0;
	g->issue_pending = 1;
	g->pending_at = when;
	return eng_schedule(g->u.eng, when, EV_PRI_ISSUE, &g->u, GEN_ISSUE, 0);
}

static int gen_retry(void *ctx, uint64_t tag, cycle_t when)
{
	(void)tag;
	return gen_kick(ctx, when);
}

/*
 * Issue until the DRAM refuses, the window is full, the next request is
 * not yet made (rate mode) or every request is out.  A refused request
 * stays the next one (head of line), so refusals never reorder the stream,
 * and the generator sleeps until the DRAM has space.
 */
static int gen_event(struct unit *u, const struct ev *ev)
{
	struct gen *g = (struct gen *)u;
	cycle_t now = eng_now(u->eng);
	int rc;

	/* a superseded (later) kick: the earlier one already ran */
	if (ev->when != g->pending_at || !g->issue_pending)
		return 0;
	g->issue_pending = 0;
	while (g->issued < g->cfg->requests &&
	       g->issued - g->completed < g->window) {
		if (g->period > 0 && made_at(g, g->issued) > now)
			return gen_kick(g, made_at(g, g->issued));
		if (!g->have_next)
			gen_next(g);
		rc = dram_request(g->d, g->next_addr, g->bytes, g->next_write,
				  gen_done, g, g->issued * 2 +
					       (uint64_t)(g->next_write != 0));
		if (rc == DRAM_FULL)
			return dram_on_space(g->d, gen_retry, g);
		if (rc)
			return rc;
		if (g->period > 0)
			g->wait_sum += (double)(now - made_at(g, g->issued));
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
	double ghz = ARCH_F(a, CHIP_CLOCK_GHZ);
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
	if (cfg->rate_gbps < 0 || cfg->pattern < 0 ||
	    cfg->pattern >= DRAM_PAT_N)
		return diag_error(dg, diag_nowhere(), NPU_EUSAGE,
				  "dram bench: bad pattern or negative rate");
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
	if ((uint64_t)g.bytes * 2 > dram_size(g.d)) {
		rc = diag_error(dg, diag_nowhere(), NPU_EUSAGE,
				"--bytes %u is more than half the DRAM (%llu "
				"bytes)", g.bytes,
				(unsigned long long)dram_size(g.d));
		goto out;
	}
	g.span = dram_size(g.d) / g.bytes;
	/* core cycles between two requests: bytes / (GB/s = bytes/ns) x GHz */
	if (cfg->rate_gbps > 0)
		g.period = (double)g.bytes / cfg->rate_gbps * ghz;
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
	if (cfg->outstanding)
		g.window = cfg->outstanding;
	if (cfg->pattern == DRAM_PAT_CHASE)
		g.window = 1;
	rc = gen_kick(&g, 0);
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
	/* the first request left at cycle 0; the run ends with the last
	 * completion or the last write data, whichever is later (writes are
	 * acknowledged when buffered) */
	res->cycles = g.last_done > res->st.last_done ? g.last_done
						       : res->st.last_done;
	res->bytes = cfg->requests * g.bytes;
	secs = (double)res->cycles / (ghz * 1e9);
	res->gbps = secs > 0 ? (double)res->bytes / secs / 1e9 : 0;
	res->peak_gbps = dram_peak_bytes_per_s(g.d) / 1e9;
	res->pct_peak = res->peak_gbps > 0 ? 100 * res->gbps / res->peak_gbps
					   : 0;
	res->offered_gbps = cfg->rate_gbps;
	res->lat_avg_ns = res->st.lat_avg / ghz;
	res->lat_p99_ns = (double)res->st.lat_p99 / ghz;
	if (g.period > 0) {
		res->wait_avg_ns = g.wait_sum / (double)cfg->requests / ghz;
		res->total_avg_ns = g.n_reads ? g.total_sum /
						(double)g.n_reads / ghz : 0;
	}
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

int dram_bench_sweep(const struct arch *a, const struct dram_bench_cfg *cfg,
		     double step_pct, struct dram_bench_res *out, int max,
		     int *n, struct diag *dg)
{
	struct dram_bench_cfg c = *cfg;
	double peak = 0;
	int k, rc;

	*n = 0;
	if (step_pct <= 0 || step_pct > 100)
		return diag_error(dg, diag_nowhere(), NPU_EUSAGE,
				  "sweep step %g %% is not in (0, 100]",
				  step_pct);
	for (k = 1; k <= max && k * step_pct <= 100 + 1e-9; k++) {
		if (k == 1) {
			/* the peak is the DRAM's own: one tiny run finds it */
			struct dram_bench_cfg p = c;

			p.requests = 1;
			p.rate_gbps = 0;
			rc = dram_bench_run(a, &p, &out[0], dg);
			if (rc)
				return rc;
			peak = out[0].peak_gbps;
		}
		c.rate_gbps = peak * k * step_pct / 100;
		rc = dram_bench_run(a, &c, &out[*n], dg);
		if (rc)
			return rc;
		(*n)++;
		if (out[*n - 1].gbps < 0.95 * c.rate_gbps)
			break;  /* saturated: past here latency only grows */
	}
	return 0;
}
