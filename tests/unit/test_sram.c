/*
 * test_sram.c - banked SRAM: uncontended latency, multi-word accesses,
 * arbitration (round-robin and fixed priority), multi-port banks, counters,
 * event cost, determinism, and the memory protocol's fast-forward mode.
 *
 * The strongest check compares the event-light model against a naive
 * reference written here that steps every cycle and every bank (the
 * definition of the arbitration rules in docs/memory.md), over random
 * traffic from several requestors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/engine/engine.h"
#include "../../sim/mem/sram.h"
#include "../../sim/engine/unit.h"
#include "testutil.h"

/* ---- harness ------------------------------------------------------------ */

#define MAXACC 512

/* What the model reported for each access (by tag). */
struct log {
	cycle_t done[MAXACC]; /* completion cycle per tag */
	int n;                /* completions seen */
	int order[MAXACC];    /* tags in completion order */
};

static int on_done(void *ctx, uint64_t tag, cycle_t when)
{
	struct log *l = ctx;

	ck_assert_uint_lt(tag, MAXACC);
	l->done[tag] = when;
	l->order[l->n++] = (int)tag;
	return 0;
}

static sram *mk(eng **e, int banks, int width, int ports, int lat,
		enum sram_arb arb)
{
	struct sram_geom g = { 4096, banks, width, ports, lat, arb };
	sram *s;

	*e = eng_new();
	ck_assert_ptr_nonnull(*e);
	s = sram_new(*e, 0, "core0.scratchpad", &g);
	ck_assert_ptr_nonnull(s);
	return s;
}

/* ---- a naive reference: every cycle, every bank -------------------------- */

struct nacc { int req; uint64_t addr; uint32_t bytes; cycle_t when; };

/*
 * Reference arbitration (docs/memory.md): per cycle, each requestor offers
 * its oldest access not fully granted if its issue cycle has come and its
 * previous access's last grant was before this cycle; per bank, requestors
 * in priority order (fixed: id order; rr: from the bank's pointer) take
 * ports while any are left.  Fills done[] (by access index) and conflicts.
 */
static void naive(const struct nacc *v, int n, int n_req, int banks,
		  int width, int ports, int lat, enum sram_arb arb,
		  cycle_t *done, uint64_t *bank_conf, uint64_t *req_conf)
{
	uint32_t left[MAXACC][64];
	int nxt[8], rr[64], i, b;
	cycle_t prev[8], t;
	int remaining = n;

	memset(left, 0, sizeof(left));
	for (i = 0; i < n; i++) {
		uint64_t w;

		for (w = v[i].addr / (uint64_t)width;
		     w <= (v[i].addr + v[i].bytes - 1) / (uint64_t)width; w++)
			left[i][w % (uint64_t)banks]++;
	}
	for (i = 0; i < n_req; i++) {
		nxt[i] = 0;
		prev[i] = CYCLE_MAX;
	}
	memset(rr, 0, sizeof(rr));
	for (t = 0; remaining > 0; t++) {
		int head[8], lost[8];

		for (i = 0; i < n_req; i++) {
			int k, seen = 0;

			head[i] = -1;
			lost[i] = 0;
			/* i-th requestor's accesses in issue order */
			for (k = 0; k < n; k++) {
				if (v[k].req != i)
					continue;
				if (seen++ < nxt[i])
					continue;
				if (v[k].when <= t &&
				    (prev[i] == CYCLE_MAX || prev[i] < t))
					head[i] = k;
				break;
			}
		}
		for (b = 0; b < banks; b++) {
			int p = ports, k, first = arb == SRAM_ARB_RR ? rr[b] : 0,
			    won = -1;

			for (k = 0; k < n_req; k++) {
				int q = (first + k) % n_req, h = head[q];
				uint32_t want, g, solo;

				if (h < 0 || !left[h][b])
					continue;
				want = left[h][b];
				g = want < (uint32_t)p ? want : (uint32_t)p;
				solo = want < (uint32_t)ports ? want
							      : (uint32_t)ports;
				if (g < solo) {
					bank_conf[b]++;
					lost[q] = 1;
				}
				left[h][b] -= g;
				p -= (int)g;
				if (g)
					won = q;
			}
			if (arb == SRAM_ARB_RR && won >= 0)
				rr[b] = (won + 1) % n_req;
		}
		for (i = 0; i < n_req; i++) {
			int h = head[i], all = 1;

			req_conf[i] += (uint64_t)lost[i];
			if (h < 0)
				continue;
			for (b = 0; b < banks; b++)
				all &= left[h][b] == 0;
			if (all) {
				done[h] = t + (cycle_t)lat;
				prev[i] = t;
				nxt[i]++;
				remaining--;
			}
		}
	}
}

/* ---- tests -------------------------------------------------------------- */

START_TEST(sram_uncontended_latency)
{
	eng *e;
	sram *s = mk(&e, 8, 16, 1, 3, SRAM_ARB_RR);
	struct log l;
	int r;

	memset(&l, 0, sizeof(l));
	r = sram_add_requestor(s, "vector");
	ck_assert_int_eq(r, 0);
	/* one word at cycle 5: granted at 5, data at 5 + latency */
	ck_assert_int_eq(sram_access(s, r, 32, 4, 0, 5, on_done, &l, 0), 0);
	/* a second, independent access much later */
	ck_assert_int_eq(sram_access(s, r, 100, 8, 1, 40, on_done, &l, 1), 0);
	ck_assert_int_eq(eng_run(e, CYCLE_MAX, NULL), 0);
	ck_assert_uint_eq(l.done[0], 8);
	ck_assert_uint_eq(l.done[1], 43);
	ck_assert_uint_eq(sram_unit(s)->ctr[CTR_SRAM_READS], 1);
	ck_assert_uint_eq(sram_unit(s)->ctr[CTR_SRAM_WRITES], 1);
	ck_assert_uint_eq(sram_unit(s)->ctr[CTR_SRAM_READ_BYTES], 4);
	ck_assert_uint_eq(sram_unit(s)->ctr[CTR_SRAM_WRITE_BYTES], 8);
	ck_assert_uint_eq(sram_unit(s)->ctr[CTR_SRAM_BANK_CONFLICTS], 0);
	eng_free(e);
}
END_TEST

START_TEST(sram_multiword)
{
	eng *e;
	sram *s = mk(&e, 4, 16, 1, 1, SRAM_ARB_RR);
	struct log l;
	int r = sram_add_requestor(s, "dma0");

	memset(&l, 0, sizeof(l));
	/*
	 * 4 banks x 16 B.  [8, 8+136) covers words 0..8 (9 words): bank 0
	 * gets words 0,4,8 (3 words) -> 3 grant cycles 0..2, done at 3.
	 */
	ck_assert_uint_eq(sram_alone_cycles(s, 8, 136), 3);
	ck_assert_int_eq(sram_access(s, r, 8, 136, 0, 0, on_done, &l, 0), 0);
	/* the next access of the same requestor starts after the last grant
	 * (cycle 2) even though it was issued for cycle 1: grant 3, done 4 */
	ck_assert_int_eq(sram_access(s, r, 16, 16, 0, 1, on_done, &l, 1), 0);
	/* 4 words in 4 banks: one cycle */
	ck_assert_uint_eq(sram_alone_cycles(s, 0, 64), 1);
	ck_assert_uint_eq(sram_alone_cycles(s, 0, 65), 2);
	ck_assert_int_eq(eng_run(e, CYCLE_MAX, NULL), 0);
	ck_assert_uint_eq(l.done[0], 3);
	ck_assert_uint_eq(l.done[1], 4);
	ck_assert_uint_eq(sram_bank_stat(s, 0, SRAM_ST_READS), 3);
	ck_assert_uint_eq(sram_bank_stat(s, 1, SRAM_ST_READS), 3); /* 1,5 + word 1 of acc 1 */
	ck_assert_uint_eq(sram_bank_stat(s, 2, SRAM_ST_READS), 2);
	ck_assert_uint_eq(sram_bank_stat(s, 3, SRAM_ST_READS), 2);
	eng_free(e);
}
END_TEST

/* Two requestors, n one-word accesses each, all to bank 0, all at cycle 0. */
static void two_on_one_bank(enum sram_arb arb, int ports, struct log *l,
			    sram **sp, eng **ep)
{
	eng *e;
	sram *s = mk(&e, 4, 16, ports, 1, arb);
	int a = sram_add_requestor(s, "matrix");
	int b = sram_add_requestor(s, "vector");
	int i;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(sram_access(s, a, 0, 4, 0, 0, on_done, l,
					     (uint64_t)i), 0);
		ck_assert_int_eq(sram_access(s, b, 64, 4, 1, 0, on_done, l,
					     (uint64_t)(10 + i)), 0);
	}
	ck_assert_int_eq(eng_run(e, CYCLE_MAX, NULL), 0);
	*sp = s;
	*ep = e;
}

START_TEST(sram_rr_alternates)
{
	struct log l;
	sram *s;
	eng *e;
	int i;

	two_on_one_bank(SRAM_ARB_RR, 1, &l, &s, &e);
	/* grants alternate a,b,a,b,...: a at 0,2,4,6 and b at 1,3,5,7 */
	for (i = 0; i < 4; i++) {
		ck_assert_uint_eq(l.done[i], (cycle_t)(2 * i + 1));
		ck_assert_uint_eq(l.done[10 + i], (cycle_t)(2 * i + 2));
	}
	/* each loser waits one cycle per access: a loses at none of its
	 * grants except... a wins at 0 then b's pointer turn: a waits at
	 * 1,3,5 (3 cycles), b waits at 0,2,4,6 (4 cycles) */
	ck_assert_uint_eq(sram_req_stat(s, 0, SRAM_ST_CONFLICTS), 3);
	ck_assert_uint_eq(sram_req_stat(s, 1, SRAM_ST_CONFLICTS), 4);
	ck_assert_uint_eq(sram_bank_stat(s, 0, SRAM_ST_CONFLICTS), 7);
	ck_assert_uint_eq(sram_unit(s)->ctr[CTR_SRAM_BANK_CONFLICTS], 7);
	eng_free(e);
}
END_TEST

START_TEST(sram_fixed_priority)
{
	struct log l;
	sram *s;
	eng *e;
	int i;

	two_on_one_bank(SRAM_ARB_FIXED, 1, &l, &s, &e);
	/* requestor 0 wins every cycle until its queue is empty */
	for (i = 0; i < 4; i++) {
		ck_assert_uint_eq(l.done[i], (cycle_t)(i + 1));
		ck_assert_uint_eq(l.done[10 + i], (cycle_t)(i + 5));
	}
	ck_assert_uint_eq(sram_req_stat(s, 0, SRAM_ST_CONFLICTS), 0);
	ck_assert_uint_eq(sram_req_stat(s, 1, SRAM_ST_CONFLICTS), 4);
	eng_free(e);
}
END_TEST

START_TEST(sram_two_ports)
{
	struct log l;
	sram *s;
	eng *e;
	int i;

	two_on_one_bank(SRAM_ARB_RR, 2, &l, &s, &e);
	/* two ports: both granted every cycle, no conflict */
	for (i = 0; i < 4; i++) {
		ck_assert_uint_eq(l.done[i], (cycle_t)(i + 1));
		ck_assert_uint_eq(l.done[10 + i], (cycle_t)(i + 1));
	}
	ck_assert_uint_eq(sram_unit(s)->ctr[CTR_SRAM_BANK_CONFLICTS], 0);
	eng_free(e);
}
END_TEST

START_TEST(sram_long_access_interrupted)
{
	/*
	 * A free-running 8-cycle access on one bank (8 words, 1 bank) is
	 * joined at cycle 3 by a one-word access of a higher-priority
	 * requestor (fixed priority): the long one loses cycle 3 and ends a
	 * cycle later.  Checks the closed-form -> per-cycle switch.
	 */
	eng *e;
	sram *s = mk(&e, 1, 16, 1, 2, SRAM_ARB_FIXED);
	int hi = sram_add_requestor(s, "matrix");
	int lo = sram_add_requestor(s, "dma0");
	struct log l;

	memset(&l, 0, sizeof(l));
	ck_assert_int_eq(sram_access(s, lo, 0, 128, 1, 0, on_done, &l, 0), 0);
	ck_assert_int_eq(sram_access(s, hi, 256, 16, 0, 3, on_done, &l, 1), 0);
	ck_assert_int_eq(eng_run(e, CYCLE_MAX, NULL), 0);
	ck_assert_uint_eq(l.done[1], 3 + 2);
	ck_assert_uint_eq(l.done[0], 8 + 2);
	ck_assert_uint_eq(sram_req_stat(s, lo, SRAM_ST_CONFLICTS), 1);
	eng_free(e);
}
END_TEST

/*
 * Issue the same random traffic to the model and to the naive reference;
 * returns the bank conflicts seen (so the caller can check that the traffic
 * really contended).
 */
static uint64_t random_vs_naive(uint32_t seed, int banks, int width, int ports,
			    int lat, enum sram_arb arb, int n_req, int n)
{
	struct nacc v[MAXACC];
	cycle_t ref[MAXACC];
	uint64_t bconf[64], rconf[8];
	static const char *const names[] = { "matrix", "vector", "dma0",
					     "dma1" };
	struct log l;
	eng *e;
	sram *s = mk(&e, banks, width, ports, lat, arb);
	cycle_t last_when[8] = { 0 };
	uint32_t x = seed;
	uint64_t total;
	int i, b;

	memset(&l, 0, sizeof(l));
	memset(bconf, 0, sizeof(bconf));
	memset(rconf, 0, sizeof(rconf));
	for (i = 0; i < n_req; i++)
		ck_assert_int_eq(sram_add_requestor(s, names[i]), i);
	for (i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		v[i].req = (int)((x >> 16) % (uint32_t)n_req);
		x = x * 1103515245u + 12345u;
		v[i].addr = (x >> 8) % 3000;
		x = x * 1103515245u + 12345u;
		/* mostly short accesses, some long ones */
		v[i].bytes = 1 + (x >> 12) % ((x >> 4) % 5 ? 40 : 600);
		x = x * 1103515245u + 12345u;
		/* issue cycles non-decreasing per requestor, bursty */
		last_when[v[i].req] += (x >> 10) % 4 ? (x >> 14) % 3 : (x >> 14) % 30;
		v[i].when = last_when[v[i].req];
		ck_assert_int_eq(sram_access(s, v[i].req, v[i].addr,
					     v[i].bytes, (int)(x & 1),
					     v[i].when, on_done, &l,
					     (uint64_t)i), 0);
	}
	naive(v, n, n_req, banks, width, ports, lat, arb, ref, bconf, rconf);
	ck_assert_int_eq(eng_run(e, CYCLE_MAX, NULL), 0);
	ck_assert_int_eq(l.n, n);
	for (i = 0; i < n; i++) {
		if (l.done[i] != ref[i])
			fprintf(stderr, "seed %u access %d (req %d addr %llu bytes %u when %llu): model %llu reference %llu\n",
				seed, i, v[i].req, (unsigned long long)v[i].addr,
				v[i].bytes, (unsigned long long)v[i].when,
				(unsigned long long)l.done[i],
				(unsigned long long)ref[i]);
		ck_assert_uint_eq(l.done[i], ref[i]);
	}
	for (b = 0; b < banks; b++)
		ck_assert_uint_eq(sram_bank_stat(s, b, SRAM_ST_CONFLICTS),
				  bconf[b]);
	for (i = 0; i < n_req; i++)
		ck_assert_uint_eq(sram_req_stat(s, i, SRAM_ST_CONFLICTS),
				  rconf[i]);
	total = sram_unit(s)->ctr[CTR_SRAM_BANK_CONFLICTS];
	eng_free(e);
	return total;
}

START_TEST(sram_random_vs_reference)
{
	uint32_t seed;
	uint64_t conf = 0;

	for (seed = 1; seed <= 40; seed++) {
		conf += random_vs_naive(seed, 8, 16, 1, 1, SRAM_ARB_RR, 3, 200);
		conf += random_vs_naive(seed, 8, 16, 1, 2, SRAM_ARB_FIXED, 3, 200);
		conf += random_vs_naive(seed, 4, 8, 2, 1, SRAM_ARB_RR, 4, 200);
		conf += random_vs_naive(seed, 3, 32, 3, 4, SRAM_ARB_FIXED, 4, 200);
		conf += random_vs_naive(seed, 16, 4, 1, 1, SRAM_ARB_RR, 2, 200);
		conf += random_vs_naive(seed, 1, 16, 1, 1, SRAM_ARB_RR, 4, 150);
	}
	/* 240 runs of contended traffic: thousands of conflicts expected */
	ck_assert_uint_gt(conf, 10000);
}
END_TEST

START_TEST(sram_event_cost_follows_accesses)
{
	/*
	 * One requestor, 100 accesses of 2 KiB (16 cycles each, one bank
	 * word per cycle), back to back: the memory must not spend an event
	 * per cycle.  Two events per access (arbitrate at start, complete).
	 */
	eng *e;
	sram *s = mk(&e, 8, 16, 1, 1, SRAM_ARB_RR);
	int r = sram_add_requestor(s, "vector");
	struct log l;
	struct eng_stats st;
	int i;

	memset(&l, 0, sizeof(l));
	for (i = 0; i < 100; i++)
		ck_assert_int_eq(sram_access(s, r, 0, 2048, 0, 0, on_done, &l,
					     (uint64_t)i), 0);
	ck_assert_int_eq(eng_run(e, CYCLE_MAX, &st), 0);
	ck_assert_uint_eq(l.done[99], 100 * 16 + 1 - 1);
	ck_assert_uint_le(st.n_events, 2 * 100 + 2);
	eng_free(e);
}
END_TEST

/* Completion callback that issues the next access from inside the model. */
struct chain { sram *s; int req; int left; struct log *l; };

static int chain_done(void *ctx, uint64_t tag, cycle_t when)
{
	struct chain *c = ctx;

	(void)on_done(c->l, tag, when);
	if (c->left-- > 0)
		return sram_access(c->s, c->req, 16 * (tag + 1), 16, 0, when,
				   chain_done, c, tag + 1);
	return 0;
}

START_TEST(sram_reissue_from_callback)
{
	eng *e;
	sram *s = mk(&e, 8, 16, 1, 2, SRAM_ARB_RR);
	struct log l;
	struct chain c = { s, 0, 5, &l };
	int i;

	memset(&l, 0, sizeof(l));
	c.req = sram_add_requestor(s, "dma0");
	ck_assert_int_eq(sram_access(s, c.req, 0, 16, 0, 0, chain_done, &c, 0),
			 0);
	ck_assert_int_eq(eng_run(e, CYCLE_MAX, NULL), 0);
	/* each access: issued at t, granted at t, data at t+2 */
	for (i = 0; i <= 5; i++)
		ck_assert_uint_eq(l.done[i], (cycle_t)(2 * (i + 1)));
	eng_free(e);
}
END_TEST

START_TEST(sram_counters_dump)
{
	struct log l;
	struct ctr_sink k;
	const struct ctr_entry *c;
	sram *s;
	eng *e;

	two_on_one_bank(SRAM_ARB_RR, 1, &l, &s, &e);
	ctr_sink_init(&k);
	sram_unit(s)->ops->dump(sram_unit(s), &k);
	c = ctr_find(&k, "core0.scratchpad.bank0.conflicts");
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(c->u, 7);
	c = ctr_find(&k, "core0.scratchpad.bank0.reads");
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(c->u, 4);
	c = ctr_find(&k, "core0.scratchpad.bank0.writes");
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(c->u, 4);
	c = ctr_find(&k, "core0.scratchpad.req.matrix.conflicts");
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(c->u, 3);
	c = ctr_find(&k, "core0.scratchpad.req.vector.writes");
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(c->u, 4);
	ck_assert_ptr_null(ctr_find(&k, "core0.scratchpad.bank4.reads"));
	ctr_sink_free(&k);
	eng_free(e);
}
END_TEST

START_TEST(sram_deterministic)
{
	int pass, first[MAXACC], n0 = 0;

	for (pass = 0; pass < 2; pass++) {
		eng *e;
		sram *s = mk(&e, 4, 16, 1, 1, SRAM_ARB_RR);
		struct log l;
		uint32_t x = 99;
		int i, r[3];

		memset(&l, 0, sizeof(l));
		for (i = 0; i < 3; i++)
			r[i] = sram_add_requestor(s, i ? "dma0" : "matrix");
		for (i = 0; i < 300; i++) {
			x = x * 1664525u + 1013904223u;
			ck_assert_int_eq(sram_access(s, r[i % 3], (x >> 8) % 4000,
						     1 + (x >> 20) % 64, 0,
						     (cycle_t)(i / 3), on_done,
						     &l, (uint64_t)i), 0);
		}
		ck_assert_int_eq(eng_run(e, CYCLE_MAX, NULL), 0);
		if (pass == 0) {
			memcpy(first, l.order, sizeof(first));
			n0 = l.n;
		} else {
			ck_assert_int_eq(l.n, n0);
			ck_assert_int_eq(memcmp(first, l.order,
						(size_t)n0 * sizeof(int)), 0);
		}
		eng_free(e);
	}
}
END_TEST

START_TEST(sram_range_fault_message)
{
	eng *e;
	sram *s = mk(&e, 4, 16, 1, 1, SRAM_ARB_RR);
	struct diag d;

	diag_init(&d, NULL);
	ck_assert_int_eq(sram_check_range(s, 4000, 96), 0);
	ck_assert_int_eq(sram_check_range(s, 4000, 97), NPU_EFAULT);
	ck_assert_int_eq(sram_check_range(s, UINT64_MAX, 2), NPU_EFAULT);
	ck_assert_int_eq(sram_check_access(s, &d, "matrix", 0x40, 4000, 200, 1),
			 NPU_EFAULT);
	ck_assert_ptr_nonnull(strstr(d.last, "core 0"));
	ck_assert_ptr_nonnull(strstr(d.last, "pc 0x40"));
	ck_assert_ptr_nonnull(strstr(d.last, "cycle 0"));
	ck_assert_ptr_nonnull(strstr(d.last, "matrix"));
	ck_assert_ptr_nonnull(strstr(d.last, "[0xfa0, 0x1068)"));
	ck_assert_ptr_nonnull(strstr(d.last, "[0x0, 0x1000)"));
	ck_assert_int_eq(sram_check_access(s, &d, "vector", 0x44, 6, 4, 4),
			 NPU_EFAULT);
	ck_assert_ptr_nonnull(strstr(d.last, "misaligned"));
	ck_assert_int_eq(sram_check_access(s, &d, "vector", 0x44, 8, 4, 4), 0);
	/* the model refuses an access that was not range-checked */
	ck_assert_int_eq(sram_add_requestor(s, "vector"), 0);
	ck_assert_int_eq(sram_access(s, 0, 4090, 16, 0, 0, NULL, NULL, 0),
			 NPU_EINTERNAL);
	eng_free(e);
}
END_TEST

/* A target without a fast-forward mode: it takes requests, nothing else. */
static int nof_recv(void *t, struct mem_port *p, const struct mem_req *r)
{
	(void)t;
	(void)p;
	(void)r;
	return MEM_OK;
}

/*
 * The memory protocol's fast-forward mode (port.h) as a requester sees
 * it: the SRAM has it and is quiet while no access is presented; a target
 * without ff ops has none and is never quiet; a stream handed over a port
 * is accounted under that port's requestor; one cycle's accesses are
 * checked for a shared bank or a multi-cycle one without changing state.
 */
START_TEST(sram_port_ff_mode)
{
	static const struct mem_target_ops nof_ops = { .recv = nof_recv };
	struct mem_target none = { &nof_ops, NULL };
	eng *e, *e2;
	sram *s = mk(&e, 8, 16, 1, 1, SRAM_ARB_RR);
	sram *s2 = mk(&e2, 8, 16, 1, 1, SRAM_ARB_RR);
	struct mem_port a, b, c, n;
	struct mem_req r, two[2];
	struct log l;
	int ids[2];

	memset(&l, 0, sizeof(l));
	ck_assert_int_eq(mem_bind(&a, sram_target(s), "matrix.left", NULL,
				  NULL), 0);
	ck_assert_int_eq(mem_bind(&b, sram_target(s), "vector", NULL, NULL), 0);
	ck_assert_int_eq(mem_bind(&c, sram_target(s2), "dma0", NULL, NULL), 0);
	ck_assert_int_eq(mem_bind(&n, none, "x", NULL, NULL), 0);
	ck_assert(mem_has_ff(&a) && !mem_has_ff(&n));
	ck_assert(!mem_ff_quiet(&n));
	ck_assert(mem_same_target(&a, &b) && !mem_same_target(&a, &c));
	ck_assert_ptr_eq(mem_ff_unit(&a), sram_unit(s));
	ck_assert(mem_ff_quiet(&a));
	/* four one-cycle reads of 16 bytes, 32 apart, at cycles 2 .. 5 */
	ck_assert_int_eq(mem_ff_stream(&a, 0, 32, 16, 4, 0, 2, 1), 0);
	ck_assert_uint_eq(sram_req_stat(s, a.id, SRAM_ST_READS), 4);
	ck_assert_uint_eq(sram_req_stat(s, a.id, SRAM_ST_READ_BYTES), 64);
	ck_assert_uint_eq(sram_req_stat(s, b.id, SRAM_ST_READS), 0);
	ck_assert_uint_eq(sram_unit(s)->ctr[CTR_SRAM_READS], 4);
	ck_assert(mem_ff_quiet(&a));
	/* one cycle's accesses: banks 0 and 2 apart; bank 0 twice; a
	 * 256-byte row (two words a bank: two cycles) */
	memset(two, 0, sizeof(two));
	ids[0] = a.id;
	ids[1] = b.id;
	two[0].bytes = two[1].bytes = 16;
	two[0].when = two[1].when = 20;
	two[1].addr = 32;
	ck_assert_int_eq(mem_ff_cycle(&a, ids, two, 2, 0), 0);
	two[1].addr = 128;
	ck_assert_int_eq(mem_ff_cycle(&a, ids, two, 2, 0), MEM_RETRY);
	two[0].bytes = 256;
	ck_assert_int_eq(mem_ff_cycle(&a, ids, two, 1, 0), MEM_RETRY);
	ck_assert_uint_eq(sram_unit(s)->ctr[CTR_SRAM_READS], 4);
	/* an access presented: not quiet until it has completed */
	memset(&r, 0, sizeof(r));
	r.addr = 64;
	r.bytes = 16;
	r.when = 10;
	r.done = on_done;
	r.ctx = &l;
	ck_assert_int_eq(mem_send(&b, &r), MEM_OK);
	ck_assert(!mem_ff_quiet(&a));
	ck_assert_int_eq(eng_run(e, CYCLE_MAX, NULL), 0);
	ck_assert_uint_eq(l.done[0], 11);
	ck_assert(mem_ff_quiet(&a));
	eng_free(e);
	eng_free(e2);
}
END_TEST

static Suite *suite_sram(void)
{
	Suite *s = suite_create("sram");

	TEST_ADD(s, sram_uncontended_latency);
	TEST_ADD(s, sram_multiword);
	TEST_ADD(s, sram_rr_alternates);
	TEST_ADD(s, sram_fixed_priority);
	TEST_ADD(s, sram_two_ports);
	TEST_ADD(s, sram_long_access_interrupted);
	TEST_ADD(s, sram_random_vs_reference);
	TEST_ADD(s, sram_event_cost_follows_accesses);
	TEST_ADD(s, sram_reissue_from_callback);
	TEST_ADD(s, sram_counters_dump);
	TEST_ADD(s, sram_deterministic);
	TEST_ADD(s, sram_range_fault_message);
	TEST_ADD(s, sram_port_ff_mode);
	return s;
}

TEST_MAIN(suite_sram)
