/*
 * test_dram.c - DRAM channel timing, scheduling, refresh, back-pressure,
 * the ideal mode and the synthetic bench.
 *
 * Timing tests run the DDR4-3200 preset with the core clock at 1.6 GHz, so
 * one core cycle is one tCK and the expected cycle of every completion is
 * the JEDEC sum written out in the test (tRCD + tCL + BL/2, ...), from the
 * preset values read back through the config.  One test checks the
 * rounding of completions into a slower core clock.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../arch/arch.h"
#include "../../sim/mem/dram.h"
#include "../../sim/engine/unit.h"
#include "testutil.h"

/* ---- a scripted requestor --------------------------------------------------*/

struct treq {
	cycle_t at;         /* cycle to issue */
	uint64_t addr;
	uint32_t bytes;
	int write;
	cycle_t done;       /* completion cycle (0 = not yet) */
	int order;          /* completion rank, 0-based */
};

struct drv {
	struct unit u;
	dram *d;
	struct treq *r;
	int n;
	int n_done;
	int n_full;         /* DRAM_FULL answers seen */
	int next;           /* next request to (re)issue, in order */
	int waiting;        /* blocked on DRAM_FULL */
};

static int drv_done(void *ctx, uint64_t tag, cycle_t when)
{
	struct drv *v = ctx;

	ck_assert_int_eq(v->r[tag].done, 0);
	v->r[tag].done = when;
	v->r[tag].order = v->n_done++;
	return 0;
}

static int drv_retry(void *ctx, uint64_t tag, cycle_t when)
{
	struct drv *v = ctx;

	(void)tag;
	v->waiting = 0;
	return eng_schedule(v->u.eng, when, EV_PRI_ISSUE, &v->u, 0, 0);
}

/*
 * Issue every request whose cycle has come, in order; a refused one
 * (DRAM_FULL) blocks the later ones until the DRAM reports space.
 */
static int drv_event(struct unit *u, const struct ev *ev)
{
	struct drv *v = (struct drv *)u;
	cycle_t now = eng_now(u->eng);

	(void)ev;
	while (v->next < v->n && v->r[v->next].at <= now && !v->waiting) {
		struct treq *t = &v->r[v->next];
		int rc = dram_request(v->d, t->addr, t->bytes, t->write,
				      drv_done, v, (uint64_t)v->next);

		if (rc == DRAM_FULL) {
			v->n_full++;
			v->waiting = 1;
			return dram_on_space(v->d, drv_retry, v);
		}
		ck_assert_int_eq(rc, 0);
		v->next++;
	}
	return 0;
}

static const struct unit_ops drv_ops = {
	.kind = UNIT_OTHER,
	.on_event = drv_event,
};

/* Load defaults plus overrides; the test fails on any config error. */
static void load(struct arch *a, const char *const *sets, int n)
{
	struct diag d;

	diag_init(&d, stderr);
	ck_assert_int_eq(arch_load(a, NULL, sets, n, &d), 0);
}

/* DDR4-3200 at 1.6 GHz: 1 core cycle = 1 tCK. */
static const char *const ddr4_1to1[] = {
	"dram.preset=ddr4_3200", "chip.clock_ghz=1.6",
};

/* Address of (bank, row, col) under ro_ba_ra_co_ch, 1 channel, 1 rank. */
static uint64_t addr_of(const struct arch *a, int bank, uint64_t row,
			uint64_t col)
{
	uint64_t bb = (uint64_t)ARCH_I(a, DRAM_BUS_BITS) / 8 *
		      (uint64_t)ARCH_I(a, DRAM_BL);
	uint64_t cols = (uint64_t)ARCH_I(a, DRAM_ROW_BYTES) / bb;

	return ((row * (uint64_t)ARCH_I(a, DRAM_BANKS) + (uint64_t)bank) *
		cols + col) * bb;
}

/* Run the scripted requests (one issue event per distinct cycle). */
/* The tests own their drams (dram_new's caller frees it): every dram made
 * by a test is remembered and freed with its engine. */
static dram *owned[8];
static int n_owned;

static dram *tdram_new(eng *e, const struct arch *a)
{
	dram *d = dram_new(e, a);

	ck_assert_int_lt(n_owned, 8);
	owned[n_owned++] = d;
	return d;
}

static void teng_free(eng *e)
{
	eng_free(e);
	while (n_owned > 0)
		dram_free(owned[--n_owned]);
}

static dram *run_script(eng *e, const struct arch *a, struct drv *v,
			struct treq *r, int n, struct eng_stats *st)
{
	int i;

	memset(v, 0, sizeof(*v));
	unit_init(&v->u, &drv_ops, e, -1, "drv");
	v->d = tdram_new(e, a);
	ck_assert_ptr_nonnull(v->d);
	v->r = r;
	v->n = n;
	for (i = 0; i < n; i++)
		ck_assert_int_eq(eng_schedule(e, r[i].at, EV_PRI_ISSUE, &v->u,
					      0, 0), 0);
	ck_assert_int_eq(eng_run(e, CYCLE_MAX - 1, st), 0);
	for (i = 0; i < n; i++)
		ck_assert_msg(r[i].done != 0, "request %d never completed", i);
	return v->d;
}

#define P(a, k) ((int64_t)ARCH_I(a, DRAM_##k))
/* data-bus cycles of one burst: BL / beats per tCK */
#define BURST(a) (P(a, BL) / P(a, BEATS_PER_TCK))

/* ---- latency of single commands ----------------------------------------------*/

START_TEST(dram_latency_closed_bank)
{
	struct arch a;
	struct drv v;
	struct eng_stats st;
	struct treq r[1];
	eng *e = eng_new();

	load(&a, ddr4_1to1, 2);
	memset(r, 0, sizeof(r));
	r[0].addr = addr_of(&a, 3, 7, 5);
	r[0].bytes = 64;
	run_script(e, &a, &v, r, 1, &st);
	/* ACT at 0, READ tRCD later, data tCL later for BL/2 cycles */
	ck_assert_uint_eq(r[0].done, P(&a, TRCD) + P(&a, TCL) + BURST(&a));
	ck_assert_uint_eq(r[0].done, 22 + 22 + 4);
	ck_assert_uint_eq(dram_channel_unit(v.d, 0)->ctr[CTR_DRAM_ROW_MISSES], 1);
	ck_assert_uint_eq(dram_channel_unit(v.d, 0)->ctr[CTR_DRAM_ACTIVATES], 1);
	teng_free(e);
	arch_free(&a);
}
END_TEST

START_TEST(dram_latency_rounds_up_to_core_clock)
{
	static const char *const sets[] = { "dram.preset=ddr4_3200",
					    "chip.clock_ghz=1.0" };
	struct arch a;
	struct drv v;
	struct eng_stats st;
	struct treq r[2];
	eng *e = eng_new();
	double tck, ghz;
	int64_t d1;

	load(&a, sets, 2);
	tck = ARCH_F(&a, DRAM_TCK);
	ghz = ARCH_F(&a, CHIP_CLOCK_GHZ);
	memset(r, 0, sizeof(r));
	r[0].addr = addr_of(&a, 0, 0, 0);
	r[0].bytes = 64;
	r[1].at = 101;          /* a row hit arriving between tCK edges */
	r[1].addr = addr_of(&a, 0, 0, 1);
	r[1].bytes = 64;
	run_script(e, &a, &v, r, 2, &st);
	/* 48 tCK of 0.625 ns = 30 ns = 30 cycles of 1 ns */
	ck_assert_uint_eq(r[0].done,
			  (cycle_t)ceil((P(&a, TRCD) + P(&a, TCL) + BURST(&a)) *
					tck * ghz - 1e-9));
	/* cycle 101 = 161.6 tCK: arrives at tCK 162, data ends 26 later */
	d1 = (int64_t)ceil(101 / (tck * ghz) - 1e-9);
	ck_assert_int_eq(d1, 162);
	ck_assert_uint_eq(r[1].done,
			  (cycle_t)ceil((d1 + P(&a, TCL) + BURST(&a)) * tck *
					ghz - 1e-9));
	ck_assert_uint_eq(dram_core_to_dcycle(v.d, 101), 162);
	ck_assert_uint_eq(dram_dcycle_to_core(v.d, 188), 118);
	teng_free(e);
	arch_free(&a);
}
END_TEST

START_TEST(dram_latency_row_hit)
{
	struct arch a;
	struct drv v;
	struct eng_stats st;
	struct treq r[2];
	eng *e = eng_new();

	load(&a, ddr4_1to1, 2);
	memset(r, 0, sizeof(r));
	r[0].addr = addr_of(&a, 2, 9, 0);
	r[0].bytes = 64;
	r[1].at = 100;
	r[1].addr = addr_of(&a, 2, 9, 3);
	r[1].bytes = 64;
	run_script(e, &a, &v, r, 2, &st);
	/* the row is open: READ at arrival, data tCL later */
	ck_assert_uint_eq(r[1].done - r[1].at, P(&a, TCL) + BURST(&a));
	ck_assert_uint_eq(dram_channel_unit(v.d, 0)->ctr[CTR_DRAM_ROW_HITS], 1);
	teng_free(e);
	arch_free(&a);
}
END_TEST

START_TEST(dram_latency_row_conflict_respects_tras)
{
	struct arch a;
	struct drv v;
	struct eng_stats st;
	struct treq r[3];
	eng *e = eng_new();
	struct unit *u;

	load(&a, ddr4_1to1, 2);
	memset(r, 0, sizeof(r));
	r[0].addr = addr_of(&a, 1, 4, 0);       /* ACT at 0 */
	r[0].bytes = 64;
	r[1].at = 30;                           /* same bank, other row */
	r[1].addr = addr_of(&a, 1, 5, 0);
	r[1].bytes = 64;
	r[2].at = 400;                          /* long after tRAS */
	r[2].addr = addr_of(&a, 1, 6, 0);
	r[2].bytes = 64;
	run_script(e, &a, &v, r, 3, &st);
	/* PRE waits for tRAS from the ACT at 0, then tRP, tRCD, tCL, burst */
	ck_assert_uint_eq(r[1].done, P(&a, TRAS) + P(&a, TRP) + P(&a, TRCD) +
				     P(&a, TCL) + BURST(&a));
	ck_assert_uint_eq(r[1].done, 122);
	/* a conflict after tRAS costs tRP more than a miss */
	ck_assert_uint_eq(r[2].done - r[2].at, P(&a, TRP) + P(&a, TRCD) +
					       P(&a, TCL) + BURST(&a));
	u = dram_channel_unit(v.d, 0);
	ck_assert_uint_eq(u->ctr[CTR_DRAM_ROW_CONFLICTS], 2);
	ck_assert_uint_eq(u->ctr[CTR_DRAM_PRECHARGES], 2);
	ck_assert_uint_eq(u->ctr[CTR_DRAM_ACTIVATES], 3);
	teng_free(e);
	arch_free(&a);
}
END_TEST

START_TEST(dram_turnaround_write_read)
{
	struct arch a;
	struct drv v;
	struct eng_stats st;
	struct treq r[4];
	eng *e = eng_new();

	load(&a, ddr4_1to1, 2);
	memset(r, 0, sizeof(r));
	/* write then read, same open row: tWTR from the end of write data */
	r[0].addr = addr_of(&a, 0, 0, 0);
	r[0].bytes = 64;
	r[0].write = 1;
	r[1].at = 1;
	r[1].addr = addr_of(&a, 0, 0, 1);
	r[1].bytes = 64;
	/* read then write on another bank, later: RL + BL/2 + 2 - WL */
	r[2].at = 1000;
	r[2].addr = addr_of(&a, 5, 0, 0);
	r[2].bytes = 64;
	r[3].at = 1001;
	r[3].addr = addr_of(&a, 5, 0, 1);
	r[3].bytes = 64;
	r[3].write = 1;
	run_script(e, &a, &v, r, 4, &st);
	ck_assert_uint_eq(r[0].done, P(&a, TRCD) + P(&a, TCWL) + BURST(&a));
	ck_assert_uint_eq(r[1].done, P(&a, TRCD) + P(&a, TCWL) + BURST(&a) +
				     P(&a, TWTR) + P(&a, TCL) + BURST(&a));
	/* READ at 1000 + tRCD; WRITE data starts 2 cycles after read data */
	ck_assert_uint_eq(r[3].done, 1000 + P(&a, TRCD) + P(&a, TCL) +
				     BURST(&a) + 2 + BURST(&a));
	teng_free(e);
	arch_free(&a);
}
END_TEST

/* ---- activation limits -----------------------------------------------------------*/

/* Five reads to five closed banks at cycle 0; returns the 5th completion. */
static cycle_t five_acts(const char *tfaw)
{
	const char *sets[3] = { ddr4_1to1[0], ddr4_1to1[1], tfaw };
	struct arch a;
	struct drv v;
	struct eng_stats st;
	struct treq r[5];
	eng *e = eng_new();
	cycle_t t;
	int i;

	load(&a, sets, 3);
	memset(r, 0, sizeof(r));
	for (i = 0; i < 5; i++) {
		r[i].addr = addr_of(&a, i, 0, 0);
		r[i].bytes = 64;
	}
	run_script(e, &a, &v, r, 5, &st);
	/* the first four ACTs are tRRD apart; each read follows tRCD later */
	for (i = 0; i < 4; i++)
		ck_assert_uint_eq(r[i].done, i * P(&a, TRRD) + P(&a, TRCD) +
					     P(&a, TCL) + BURST(&a));
	/* the fifth ACT waits for the four-activate window */
	ck_assert_uint_eq(r[4].done,
			  (P(&a, TFAW) > 4 * P(&a, TRRD) ? P(&a, TFAW) :
							   4 * P(&a, TRRD)) +
			  P(&a, TRCD) + P(&a, TCL) + BURST(&a));
	t = r[4].done;
	teng_free(e);
	arch_free(&a);
	return t;
}

START_TEST(dram_tfaw_limits_four_activates)
{
	cycle_t wide = five_acts("dram.tfaw=100");
	cycle_t narrow = five_acts("dram.tfaw=1");

	ck_assert_uint_eq(wide, 100 + 22 + 22 + 4);
	ck_assert_uint_eq(narrow, 16 + 22 + 22 + 4);
}
END_TEST

/* ---- refresh ---------------------------------------------------------------------*/

START_TEST(dram_refresh_at_trefi_blocks_trfc)
{
	struct arch a;
	struct drv v;
	struct eng_stats st;
	struct treq r[3];
	eng *e = eng_new();
	int64_t refi, rfc;
	struct unit *u;

	load(&a, ddr4_1to1, 2);
	refi = P(&a, TREFI);
	rfc = P(&a, TRFC);
	memset(r, 0, sizeof(r));
	r[0].addr = addr_of(&a, 0, 3, 0);       /* leaves row 3 open */
	r[0].bytes = 64;
	r[1].at = (cycle_t)refi;                /* due exactly now */
	r[1].addr = addr_of(&a, 0, 3, 1);
	r[1].bytes = 64;
	run_script(e, &a, &v, r, 2, &st);
	u = dram_channel_unit(v.d, 0);
	ck_assert_uint_eq(u->ctr[CTR_DRAM_REFRESHES], 1);
	/* refresh closed the row: PRE at tREFI, REF tRP later, busy tRFC */
	ck_assert_uint_eq(u->ctr[CTR_DRAM_PRECHARGES], 1);
	ck_assert_uint_eq(u->ctr[CTR_DRAM_ROW_MISSES], 2);
	ck_assert_uint_eq(r[1].done, refi + P(&a, TRP) + rfc + P(&a, TRCD) +
				     P(&a, TCL) + BURST(&a));
	teng_free(e);
	arch_free(&a);
}
END_TEST

START_TEST(dram_refresh_catches_up_lazily)
{
	struct arch a;
	struct drv v;
	struct eng_stats st;
	struct treq r[1];
	eng *e = eng_new();
	int64_t refi, rfc;

	load(&a, ddr4_1to1, 2);
	refi = P(&a, TREFI);
	rfc = P(&a, TRFC);
	memset(r, 0, sizeof(r));
	/* 1000 refresh intervals of silence, then a read 5 cycles after the
	 * 1000th refresh started */
	r[0].at = (cycle_t)(1000 * refi + 5);
	r[0].addr = addr_of(&a, 0, 0, 0);
	r[0].bytes = 64;
	run_script(e, &a, &v, r, 1, &st);
	ck_assert_uint_eq(dram_channel_unit(v.d, 0)->ctr[CTR_DRAM_REFRESHES],
			  1000);
	ck_assert_uint_eq(r[0].done - r[0].at, rfc - 5 + P(&a, TRCD) +
					       P(&a, TCL) + BURST(&a));
	/* no event per refresh interval: issue, wake, completion */
	ck_assert_uint_le(st.n_events, 6);
	teng_free(e);
	arch_free(&a);
}
END_TEST

START_TEST(dram_refresh_while_busy)
{
	static const char *const sets[] = { "dram.preset=ddr4_3200",
					    "chip.clock_ghz=1.6" };
	struct dram_bench_cfg c = { DRAM_PAT_STREAM, 100, 40000, 0, 1 };
	struct dram_bench_res r;
	struct arch a;
	struct diag d;
	uint64_t expect;

	load(&a, sets, 2);
	diag_init(&d, stderr);
	ck_assert_int_eq(dram_bench_run(&a, &c, &r, &d), 0);
	/* one refresh per tREFI of busy time (the channel never idles) */
	expect = r.cycles / (uint64_t)P(&a, TREFI);
	ck_assert_uint_ge(r.st.refreshes, expect - 1);
	ck_assert_uint_le(r.st.refreshes, expect + 1);
	ck_assert_uint_ge(expect, 8);
	arch_free(&a);
}
END_TEST

/* ---- scheduling --------------------------------------------------------------------*/

/*
 * Open row 0 of bank 0, then at cycle 100 ask for row 1 (older, conflict)
 * and row 0 again (younger, hit).  Returns the two completion cycles.
 */
static void hit_vs_miss(const char *sched, cycle_t *old_conflict,
			cycle_t *young_hit, int *hit_first)
{
	const char *sets[3] = { ddr4_1to1[0], ddr4_1to1[1], sched };
	struct arch a;
	struct drv v;
	struct eng_stats st;
	struct treq r[3];
	eng *e = eng_new();

	load(&a, sets, 3);
	memset(r, 0, sizeof(r));
	r[0].addr = addr_of(&a, 0, 0, 0);
	r[0].bytes = 64;
	r[1].at = 100;
	r[1].addr = addr_of(&a, 0, 1, 0);
	r[1].bytes = 64;
	r[2].at = 100;
	r[2].addr = addr_of(&a, 0, 0, 1);
	r[2].bytes = 64;
	run_script(e, &a, &v, r, 3, &st);
	*old_conflict = r[1].done;
	*young_hit = r[2].done;
	*hit_first = r[2].order < r[1].order;
	teng_free(e);
	arch_free(&a);
}

START_TEST(dram_frfcfs_prefers_row_hits)
{
	cycle_t conflict, hit;
	int hit_first;

	hit_vs_miss("dram.scheduler=frfcfs", &conflict, &hit, &hit_first);
	ck_assert(hit_first);
	/* the hit reads at once; the conflict's PRE waits for its tRTP */
	ck_assert_uint_eq(hit, 100 + 22 + 4);
	ck_assert_uint_eq(conflict, 100 + 12 + 22 + 22 + 22 + 4);
}
END_TEST

START_TEST(dram_fcfs_serves_in_order)
{
	cycle_t conflict, hit;
	int hit_first;

	hit_vs_miss("dram.scheduler=fcfs", &conflict, &hit, &hit_first);
	ck_assert(!hit_first);
	/* PRE at 100, ACT, READ; then the old row must come back: PRE after
	 * tRAS of the second ACT (at 122), ACT, READ */
	ck_assert_uint_eq(conflict, 100 + 22 + 22 + 22 + 4);
	ck_assert_uint_eq(hit, 122 + 52 + 22 + 22 + 22 + 4);
}
END_TEST

START_TEST(dram_frfcfs_keeps_row_open_for_queued_hits)
{
	/* with tRTP = 1 the older conflict's PRE could issue right after the
	 * first hit, before the second (tCCD later): FR-FCFS holds it back */
	static const char *const sets[] = { "dram.preset=ddr4_3200",
					    "chip.clock_ghz=1.6", "dram.trtp=1" };
	struct arch a;
	struct drv v;
	struct eng_stats st;
	struct treq r[4];
	eng *e = eng_new();

	load(&a, sets, 3);
	memset(r, 0, sizeof(r));
	r[0].addr = addr_of(&a, 0, 0, 0);
	r[0].bytes = 64;
	r[1].at = 100;
	r[1].addr = addr_of(&a, 0, 0, 1);       /* hit */
	r[1].bytes = 64;
	r[2].at = 100;
	r[2].addr = addr_of(&a, 0, 1, 0);       /* conflict */
	r[2].bytes = 64;
	r[3].at = 100;
	r[3].addr = addr_of(&a, 0, 0, 2);       /* hit, youngest */
	r[3].bytes = 64;
	run_script(e, &a, &v, r, 4, &st);
	ck_assert_uint_eq(r[1].done, 100 + 22 + 4);
	ck_assert_uint_eq(r[3].done, 104 + 22 + 4);
	/* PRE 1 cycle after the last hit's READ, then ACT, READ */
	ck_assert_uint_eq(r[2].done, 105 + 22 + 22 + 22 + 4);
	ck_assert_uint_eq(dram_channel_unit(v.d, 0)->ctr[CTR_DRAM_ROW_HITS], 2);
	teng_free(e);
	arch_free(&a);
}
END_TEST

START_TEST(dram_frfcfs_column_first_on_ties)
{
	/* an older ACT (bank 1) and a younger hit (bank 0) can both issue at
	 * cycle 100: the READ goes first, the ACT one command slot later */
	struct arch a;
	struct drv v;
	struct eng_stats st;
	struct treq r[3];
	eng *e = eng_new();

	load(&a, ddr4_1to1, 2);
	memset(r, 0, sizeof(r));
	r[0].addr = addr_of(&a, 0, 0, 0);
	r[0].bytes = 64;
	r[1].at = 100;
	r[1].addr = addr_of(&a, 1, 0, 0);
	r[1].bytes = 64;
	r[2].at = 100;
	r[2].addr = addr_of(&a, 0, 0, 1);
	r[2].bytes = 64;
	run_script(e, &a, &v, r, 3, &st);
	ck_assert_uint_eq(r[2].done, 100 + 22 + 4);
	ck_assert_uint_eq(r[1].done, 101 + 22 + 22 + 4);
	teng_free(e);
	arch_free(&a);
}
END_TEST

/* ---- back-pressure ---------------------------------------------------------------*/

START_TEST(dram_backpressure_full_and_retry)
{
	static const char *const sets[] = { "dram.preset=ddr4_3200",
					    "chip.clock_ghz=1.6",
					    "dram.queue_depth=2" };
	struct arch a;
	struct drv v;
	struct eng_stats st;
	struct treq r[11];
	eng *e = eng_new();
	int i;

	load(&a, sets, 3);
	memset(r, 0, sizeof(r));
	for (i = 0; i < 10; i++) {
		r[i].addr = addr_of(&a, i % 16, (uint64_t)i, 0);
		r[i].bytes = 64;
	}
	/* 64 bursts at once: larger than the queue, taken when it is empty */
	r[10].addr = addr_of(&a, 0, 100, 0);
	r[10].bytes = 64 * 64;
	run_script(e, &a, &v, r, 11, &st);
	ck_assert_int_eq(v.n_done, 11);
	ck_assert_int_ge(v.n_full, 4);
	ck_assert_uint_eq(dram_channel_unit(v.d, 0)->ctr[CTR_DRAM_REJECTED],
			  (uint64_t)v.n_full);
	ck_assert_uint_eq(dram_channel_unit(v.d, 0)->ctr[CTR_DRAM_READS],
			  10 + 64);
	/* the big request is done once, after its last burst */
	ck_assert_int_eq(r[10].order, 10);
	teng_free(e);
	arch_free(&a);
}
END_TEST

START_TEST(dram_request_rejects_bad_ranges)
{
	struct arch a;
	eng *e = eng_new();
	dram *d;

	load(&a, ddr4_1to1, 2);
	d = tdram_new(e, &a);
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(dram_size(d), (uint64_t)ARCH_I(&a, DRAM_BYTES));
	ck_assert_int_eq(dram_request(d, 0, 0, 0, drv_done, NULL, 0),
			 NPU_ERANGE);
	ck_assert_int_eq(dram_request(d, dram_size(d) - 8, 16, 0, drv_done,
				      NULL, 0), NPU_EFAULT);
	ck_assert_int_eq(dram_request(d, UINT64_MAX - 4, 16, 0, drv_done,
				      NULL, 0), NPU_EFAULT);
	/* the functional store is plain bytes */
	dram_data(d)[dram_size(d) - 1] = 0x5a;
	ck_assert_int_eq(dram_data(d)[dram_size(d) - 1], 0x5a);
	teng_free(e);
	arch_free(&a);
}
END_TEST

/* ---- address mapping -------------------------------------------------------------*/

START_TEST(dram_mapping_fields)
{
	static const char *maps[] = { "ro_ba_ra_co_ch", "ro_co_ba_ra_ch",
				      "ch_ro_ba_ra_co" };
	int m;

	for (m = 0; m < 3; m++) {
		char map[64];
		const char *sets[6] = { "dram.preset=ddr4_3200", "dram.channels=3",
					"dram.ranks=2", "noc.cols=4",
					"dram.bytes=402653184", map };
		struct arch a;
		eng *e = eng_new();
		dram *d;
		uint64_t s = 12345, i;

		snprintf(map, sizeof(map), "dram.mapping=%s", maps[m]);
		load(&a, sets, 6);
		d = tdram_new(e, &a);
		ck_assert_ptr_nonnull(d);
		ck_assert_int_eq(dram_channels(d), 3);
		ck_assert_uint_eq(dram_burst_bytes(d), 64);
		for (i = 0; i < 2000; i++) {
			uint64_t addr, q, ch, co, ra, ba, ro;
			struct dram_loc l;

			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			addr = (s >> 11) % dram_size(d);
			q = addr / 64;
			/* independent decode, most significant field first */
			if (m == 2) {
				uint64_t per = dram_size(d) / 64 / 3;

				ch = q / per;
				q %= per;
				co = q % 128;
				ra = q / 128 % 2;
				ba = q / 256 % 16;
				ro = q / 4096;
			} else if (m == 0) {
				ch = q % 3;
				co = q / 3 % 128;
				ra = q / 384 % 2;
				ba = q / 768 % 16;
				ro = q / 12288;
			} else {
				ch = q % 3;
				ra = q / 3 % 2;
				ba = q / 6 % 16;
				co = q / 96 % 128;
				ro = q / 12288;
			}
			dram_locate(d, addr, &l);
			ck_assert_int_eq(l.channel, (int)ch);
			ck_assert_int_eq(l.rank, (int)ra);
			ck_assert_int_eq(l.bank, (int)ba);
			ck_assert_uint_eq(l.row, ro);
			ck_assert_uint_eq(l.col, co);
		}
		teng_free(e);
		arch_free(&a);
	}
}
END_TEST

/* ---- ideal mode ----------------------------------------------------------------------*/

START_TEST(dram_ideal_latency_and_bandwidth_exact)
{
	static const char *const sets[] = { "dram.mode=ideal",
					    "dram.ideal.latency_ns=100",
					    "dram.ideal.bandwidth_gbps=25.6",
					    "chip.clock_ghz=1.0" };
	struct dram_bench_cfg c = { DRAM_PAT_STREAM, 100, 1000, 64, 1 };
	struct dram_bench_res res;
	struct arch a;
	struct drv v;
	struct eng_stats st;
	struct treq r[2];
	struct diag dg;
	eng *e = eng_new();

	load(&a, sets, 4);
	memset(r, 0, sizeof(r));
	r[0].addr = 0;
	r[0].bytes = 64;                /* 2.5 ns in the pipe + 100 ns */
	r[1].at = 500;
	r[1].addr = 4096;
	r[1].bytes = 256;               /* 10 ns + 100 ns */
	r[1].write = 1;
	run_script(e, &a, &v, r, 2, &st);
	ck_assert_uint_eq(r[0].done, 103);      /* ceil(102.5) */
	ck_assert_uint_eq(r[1].done, 610);
	teng_free(e);

	/* 1000 back-to-back 64 B requests: 1000 x 2.5 ns + 100 ns */
	diag_init(&dg, stderr);
	ck_assert_int_eq(dram_bench_run(&a, &c, &res, &dg), 0);
	ck_assert_uint_eq(res.cycles, 2600);
	/* the generator keeps the bandwidth-delay product (40 requests) plus
	 * one queue (32) in flight: latency = 100 ns + at most 73 x 2.5 ns */
	ck_assert_uint_ge(res.st.lat_max, 100 + 72 * 5 / 2);
	ck_assert_uint_le(res.st.lat_max, 100 + 73 * 5 / 2 + 1);
	ck_assert_double_eq_tol(res.peak_gbps, 25.6, 1e-9);
	ck_assert_double_eq_tol(res.gbps, 64000.0 / 2600.0, 1e-9);
	arch_free(&a);
}
END_TEST

/* ---- bench: bandwidth and determinism -----------------------------------------------*/

START_TEST(dram_stream_reaches_85pct_of_peak)
{
	static const char *presets[] = { "ddr4_3200", "lpddr5_6400", "hbm2e",
					 "hbm3" };
	int p;

	for (p = 0; p < 4; p++) {
		char set[64];
		const char *sets[1] = { set };
		struct dram_bench_cfg c = { DRAM_PAT_STREAM, 100, 60000, 0, 1 };
		struct dram_bench_cfg rc = { DRAM_PAT_RANDOM, 100, 20000, 0, 1 };
		struct dram_bench_res rs, rr;
		struct arch a;
		struct diag d;

		snprintf(set, sizeof(set), "dram.preset=%s", presets[p]);
		load(&a, sets, 1);
		diag_init(&d, stderr);
		ck_assert_int_eq(dram_bench_run(&a, &c, &rs, &d), 0);
		ck_assert_msg(rs.pct_peak >= 85.0, "%s stream: %.1f%% of peak",
			      presets[p], rs.pct_peak);
		ck_assert_msg(rs.pct_peak <= 100.0, "%s above peak", presets[p]);
		/* peak = bus bytes x beats per tCK / tCK */
		ck_assert_double_eq_tol(rs.peak_gbps,
					(double)ARCH_I(&a, DRAM_BUS_BITS) / 8 *
					(double)ARCH_I(&a, DRAM_BEATS_PER_TCK) /
					ARCH_F(&a, DRAM_TCK), 1e-9);
		/* random reads pay ACT/PRE, tRRD and tFAW */
		ck_assert_int_eq(dram_bench_run(&a, &rc, &rr, &d), 0);
		ck_assert_msg(rr.pct_peak < rs.pct_peak * 0.8,
			      "%s random %.1f%% vs stream %.1f%%", presets[p],
			      rr.pct_peak, rs.pct_peak);
		ck_assert(rs.row_hit_rate > 0.9);
		ck_assert(rr.row_hit_rate < 0.05);
		arch_free(&a);
	}
}
END_TEST

START_TEST(dram_bench_deterministic)
{
	static const char *const sets[] = { "dram.preset=hbm2e",
					    "dram.channels=2", "noc.cols=3" };
	struct dram_bench_cfg c = { DRAM_PAT_MIXED, 60, 20000, 96, 7 };
	struct dram_bench_res r1, r2, r3;
	struct arch a;
	struct diag d;

	load(&a, sets, 3);
	diag_init(&d, stderr);
	ck_assert_int_eq(dram_bench_run(&a, &c, &r1, &d), 0);
	ck_assert_int_eq(dram_bench_run(&a, &c, &r2, &d), 0);
	ck_assert_uint_eq(r1.cycles, r2.cycles);
	ck_assert_int_eq(memcmp(&r1.st, &r2.st, sizeof(r1.st)), 0);
	ck_assert_uint_gt(r1.st.writes, 0);
	ck_assert_uint_gt(r1.st.reads, r1.st.writes);
	/* another seed gives other traffic */
	c.seed = 8;
	ck_assert_int_eq(dram_bench_run(&a, &c, &r3, &d), 0);
	ck_assert_uint_ne(r1.cycles, r3.cycles);
	arch_free(&a);
}
END_TEST

/* ---- counters ------------------------------------------------------------------------*/

START_TEST(dram_latency_stats_and_dump)
{
	struct arch a;
	struct drv v;
	struct eng_stats st;
	struct treq r[100];
	struct ctr_sink s;
	struct dram_stats ds;
	const struct ctr_entry *ce;
	struct unit *u;
	eng *e = eng_new();
	int i;

	load(&a, ddr4_1to1, 2);
	memset(r, 0, sizeof(r));
	/* one miss (48 cycles) then 99 isolated row hits (26 cycles) */
	for (i = 0; i < 100; i++) {
		r[i].at = (cycle_t)i * 100;
		r[i].addr = addr_of(&a, 0, 0, (uint64_t)i % 128);
		r[i].bytes = 64;
	}
	run_script(e, &a, &v, r, 100, &st);
	dram_get_stats(v.d, -1, &ds);
	ck_assert_uint_eq(ds.lat_n, 100);
	ck_assert_uint_eq(ds.lat_max, 48);
	ck_assert_uint_eq(ds.lat_p99, 26);
	ck_assert_double_eq_tol(ds.lat_avg, (99.0 * 26 + 48) / 100, 1e-9);
	ck_assert_uint_eq(ds.row_hits, 99);
	ck_assert_uint_eq(ds.read_bytes, 6400);
	u = dram_channel_unit(v.d, 0);
	ck_assert_uint_eq(u->ctr[CTR_DRAM_READ_LATENCY_SUM], 99 * 26 + 48);
	/* busy: each request is alone in the channel for its latency */
	ck_assert_uint_eq(u->ctr[CTR_DRAM_BUSY_CYCLES], 99 * 26 + 48);
	ctr_sink_init(&s);
	u->ops->dump(u, &s);
	ce = ctr_find(&s, "dram.ch0.read_latency_p99_cycles");
	ck_assert_ptr_nonnull(ce);
	ck_assert(ce->is_float);
	ck_assert_double_eq_tol(ce->f, 26, 1e-9);
	ce = ctr_find(&s, "dram.ch0.read_latency_avg_cycles");
	ck_assert_ptr_nonnull(ce);
	ck_assert_double_eq_tol(ce->f, (99.0 * 26 + 48) / 100, 1e-9);
	ce = ctr_find(&s, "dram.ch0.bandwidth_gbps");
	ck_assert_ptr_nonnull(ce);
	/* 6400 bytes over the run's cycles at 1.6 GHz */
	ck_assert_double_eq_tol(ce->f, 6400.0 / ((double)st.end_cycle / 1.6),
				1e-9);
	ck_assert_ptr_nonnull(ctr_find(&s, "dram.ch0.bandwidth_pct_peak"));
	ck_assert_ptr_nonnull(ctr_find(&s, "dram.ch0.row_hit_rate"));
	ctr_sink_free(&s);
	teng_free(e);
	arch_free(&a);
}
END_TEST

static Suite *suite_dram(void)
{
	Suite *s = suite_create("dram");

	TEST_ADD(s, dram_latency_closed_bank);
	TEST_ADD(s, dram_latency_rounds_up_to_core_clock);
	TEST_ADD(s, dram_latency_row_hit);
	TEST_ADD(s, dram_latency_row_conflict_respects_tras);
	TEST_ADD(s, dram_turnaround_write_read);
	TEST_ADD(s, dram_tfaw_limits_four_activates);
	TEST_ADD(s, dram_refresh_at_trefi_blocks_trfc);
	TEST_ADD(s, dram_refresh_catches_up_lazily);
	TEST_ADD(s, dram_refresh_while_busy);
	TEST_ADD(s, dram_frfcfs_prefers_row_hits);
	TEST_ADD(s, dram_frfcfs_keeps_row_open_for_queued_hits);
	TEST_ADD(s, dram_frfcfs_column_first_on_ties);
	TEST_ADD(s, dram_fcfs_serves_in_order);
	TEST_ADD(s, dram_backpressure_full_and_retry);
	TEST_ADD(s, dram_request_rejects_bad_ranges);
	TEST_ADD(s, dram_mapping_fields);
	TEST_ADD(s, dram_ideal_latency_and_bandwidth_exact);
	TEST_ADD(s, dram_stream_reaches_85pct_of_peak);
	TEST_ADD(s, dram_bench_deterministic);
	TEST_ADD(s, dram_latency_stats_and_dump);
	return s;
}

TEST_MAIN(suite_dram)
