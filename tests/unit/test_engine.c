/*
 * test_engine.c - event ordering, determinism, cancellation, watchdog and
 * deadlock reporting of the discrete-event engine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/engine/calendar.h"
#include "../../sim/engine/engine.h"
#include "../../sim/engine/unit.h"
#include "testutil.h"

/* A recording unit: logs (when, kind) of each event it receives. */
struct rec {
	struct unit u;
	int log_when[64], log_kind[64], n;
	int chain;         /* >0: schedule another event 'chain' more times */
	int stuck;         /* report blocked at the end */
	int fail_at_kind;  /* return a fault when this kind arrives (-1 off) */
};

static int rec_event(struct unit *u, const struct ev *ev)
{
	struct rec *r = (struct rec *)u;

	if (r->n < 64) {
		r->log_when[r->n] = (int)ev->when;
		r->log_kind[r->n] = ev->kind;
		r->n++;
	}
	if ((int)ev->kind == r->fail_at_kind)
		return NPU_EFAULT;
	if (r->chain > 0) {
		r->chain--;
		return eng_schedule(u->eng, ev->when + 3, EV_PRI_ISSUE, u,
				    ev->kind + 1, 0);
	}
	return 0;
}

static int rec_blocked(const struct unit *u, char *buf, size_t n)
{
	const struct rec *r = (const struct rec *)u;

	if (r->stuck)
		snprintf(buf, n, "waits on semaphore 3");
	return r->stuck;
}

static void rec_destroy(struct unit *u)
{
	(void)u; /* statically allocated in tests */
}

static const struct unit_ops rec_ops = {
	.kind = UNIT_OTHER,
	.on_event = rec_event,
	.blocked = rec_blocked,
	.destroy = rec_destroy,
};

static eng *new_eng_with(struct rec *r)
{
	eng *e = eng_new();

	ck_assert_ptr_nonnull(e);
	memset(r, 0, sizeof(*r));
	unit_init(&r->u, &rec_ops, e, 0, "core%d.rec", 0);
	r->fail_at_kind = -1;
	ck_assert_int_eq(eng_add_unit(e, &r->u), 0);
	return e;
}

/* Sampler calls, recorded. */
struct samples {
	cycle_t at[32];
	int n;
	size_t pending_seen[32]; /* events still queued at each call */
	eng *e;
};

static void sample_rec(void *ctx, cycle_t at)
{
	struct samples *s = ctx;

	if (s->n < 32) {
		s->pending_seen[s->n] = eng_pending(s->e);
		s->at[s->n++] = at;
	}
}

/*
 * The sampler runs at each crossed multiple of the interval, before the
 * first event at or after it, twice for an idle stretch (its first and
 * last boundary), never past the last event, and adds no events: the
 * run dispatches exactly what it does without one.
 */
START_TEST(engine_sampler)
{
	struct rec r;
	struct samples sm;
	struct eng_stats st;
	eng *e = new_eng_with(&r);

	memset(&sm, 0, sizeof(sm));
	sm.e = e;
	eng_set_sampler(e, 10, sample_rec, &sm);
	/* Events at 3, 12, 15, 57 (an idle stretch over 20..50), 60. */
	ck_assert_int_eq(eng_schedule(e, 3, EV_PRI_ISSUE, &r.u, 1, 0), 0);
	ck_assert_int_eq(eng_schedule(e, 12, EV_PRI_ISSUE, &r.u, 2, 0), 0);
	ck_assert_int_eq(eng_schedule(e, 15, EV_PRI_ISSUE, &r.u, 3, 0), 0);
	ck_assert_int_eq(eng_schedule(e, 57, EV_PRI_ISSUE, &r.u, 4, 0), 0);
	ck_assert_int_eq(eng_schedule(e, 60, EV_PRI_ISSUE, &r.u, 5, 0), 0);
	ck_assert_int_eq(eng_run(e, CYCLE_MAX, &st), 0);
	ck_assert_uint_eq(st.n_events, 5);
	ck_assert_uint_eq(st.end_cycle, 60);
	ck_assert_int_eq(sm.n, 4);
	ck_assert_uint_eq(sm.at[0], 10);  /* before the event at 12 */
	ck_assert_uint_eq(sm.at[1], 20);  /* before 57: first boundary ... */
	ck_assert_uint_eq(sm.at[2], 50);  /* ... and last of the stretch */
	ck_assert_uint_eq(sm.at[3], 60);  /* before the event at 60 */
	ck_assert_uint_eq(sm.pending_seen[0], 3); /* 12 popped, not run */
	eng_free(e);

	/* Off (interval 0) and without a sampler: never called. */
	e = new_eng_with(&r);
	sm.n = 0;
	eng_set_sampler(e, 0, sample_rec, &sm);
	ck_assert_int_eq(eng_schedule(e, 100, EV_PRI_ISSUE, &r.u, 1, 0), 0);
	ck_assert_int_eq(eng_run(e, CYCLE_MAX, NULL), 0);
	ck_assert_int_eq(sm.n, 0);
	eng_free(e);
}
END_TEST

START_TEST(engine_order_time_pri_seq)
{
	struct rec r;
	eng *e = new_eng_with(&r);

	/* Scheduled out of order: must pop by (when, pri, insertion). */
	ck_assert_int_eq(eng_schedule(e, 10, EV_PRI_CONTROL, &r.u, 1, 0), 0);
	ck_assert_int_eq(eng_schedule(e, 10, EV_PRI_COMPLETE, &r.u, 2, 0), 0);
	ck_assert_int_eq(eng_schedule(e, 5, EV_PRI_STATS, &r.u, 3, 0), 0);
	ck_assert_int_eq(eng_schedule(e, 10, EV_PRI_COMPLETE, &r.u, 4, 0), 0);
	ck_assert_int_eq(eng_schedule(e, 10, EV_PRI_ISSUE, &r.u, 5, 0), 0);
	ck_assert_int_eq(eng_run(e, CYCLE_MAX, NULL), 0);
	ck_assert_int_eq(r.n, 5);
	ck_assert_int_eq(r.log_kind[0], 3);
	ck_assert_int_eq(r.log_kind[1], 2);
	ck_assert_int_eq(r.log_kind[2], 4);
	ck_assert_int_eq(r.log_kind[3], 5);
	ck_assert_int_eq(r.log_kind[4], 1);
	eng_free(e);
}
END_TEST

START_TEST(engine_order_many_deterministic)
{
	/* Two runs of the same pseudo-random schedule give the same order. */
	int pass, i, first[64];

	for (pass = 0; pass < 2; pass++) {
		struct rec r;
		eng *e = new_eng_with(&r);
		uint32_t x = 12345;

		for (i = 0; i < 64; i++) {
			x = x * 1103515245u + 12345u;
			ck_assert_int_eq(eng_schedule(e, (x >> 16) % 8,
						      (enum ev_pri)((x >> 8) % EV_N_PRI),
						      &r.u, (unsigned)i, 0), 0);
		}
		ck_assert_int_eq(eng_run(e, CYCLE_MAX, NULL), 0);
		ck_assert_int_eq(r.n, 64);
		for (i = 1; i < 64; i++)
			ck_assert_int_le(r.log_when[i - 1], r.log_when[i]);
		if (pass == 0)
			memcpy(first, r.log_kind, sizeof(first));
		else
			ck_assert_int_eq(memcmp(first, r.log_kind, sizeof(first)), 0);
		eng_free(e);
	}
}
END_TEST

START_TEST(engine_skip_idle_and_chain)
{
	struct rec r;
	eng *e = new_eng_with(&r);
	struct eng_stats st;

	r.chain = 3;
	ck_assert_int_eq(eng_schedule(e, 1000000, EV_PRI_ISSUE, &r.u, 0, 0), 0);
	ck_assert_int_eq(eng_run(e, CYCLE_MAX, &st), 0);
	/* Four events, no matter how far apart: idle time is skipped. */
	ck_assert_uint_eq(st.n_events, 4);
	ck_assert_uint_eq(st.end_cycle, 1000009);
	ck_assert_int_eq(r.log_kind[3], 3);
	eng_free(e);
}
END_TEST

START_TEST(engine_lazy_cancel)
{
	struct rec r;
	eng *e = new_eng_with(&r);
	uint32_t gen = 7;
	struct eng_stats st;

	ck_assert_int_eq(eng_schedule_gen(e, 5, EV_PRI_ISSUE, &r.u, 1, 0, &gen), 0);
	ck_assert_int_eq(eng_schedule(e, 6, EV_PRI_ISSUE, &r.u, 2, 0), 0);
	gen++; /* cancels the first event */
	ck_assert_int_eq(eng_run(e, CYCLE_MAX, &st), 0);
	ck_assert_int_eq(r.n, 1);
	ck_assert_int_eq(r.log_kind[0], 2);
	ck_assert_uint_eq(st.n_cancelled, 1);
	eng_free(e);
}
END_TEST

START_TEST(engine_watchdog)
{
	struct rec r;
	eng *e = new_eng_with(&r);
	struct diag d;

	diag_init(&d, NULL);
	eng_set_diag(e, &d);
	ck_assert_int_eq(eng_schedule(e, 50, EV_PRI_ISSUE, &r.u, 1, 0), 0);
	ck_assert_int_eq(eng_schedule(e, 500, EV_PRI_ISSUE, &r.u, 2, 0), 0);
	ck_assert_int_eq(eng_run(e, 100, NULL), NPU_ETIMEOUT);
	ck_assert_int_eq(r.n, 1);
	ck_assert_ptr_nonnull(strstr(d.last, "cycle limit 100"));
	eng_free(e);
}
END_TEST

START_TEST(engine_deadlock_names_unit)
{
	struct rec r;
	eng *e = new_eng_with(&r);
	struct diag d;

	diag_init(&d, NULL);
	eng_set_diag(e, &d);
	r.stuck = 1;
	ck_assert_int_eq(eng_schedule(e, 42, EV_PRI_ISSUE, &r.u, 1, 0), 0);
	ck_assert_int_eq(eng_run(e, CYCLE_MAX, NULL), NPU_EDEADLOCK);
	ck_assert_int_eq(d.n_errors, 1);
	/* The last line is the note naming the unit and what it waits on. */
	ck_assert_ptr_nonnull(strstr(d.last, "core0.rec"));
	ck_assert_ptr_nonnull(strstr(d.last, "semaphore 3"));
	eng_free(e);
}
END_TEST

START_TEST(engine_fault_stops_run)
{
	struct rec r;
	eng *e = new_eng_with(&r);

	r.fail_at_kind = 2;
	ck_assert_int_eq(eng_schedule(e, 1, EV_PRI_ISSUE, &r.u, 1, 0), 0);
	ck_assert_int_eq(eng_schedule(e, 2, EV_PRI_ISSUE, &r.u, 2, 0), 0);
	ck_assert_int_eq(eng_schedule(e, 3, EV_PRI_ISSUE, &r.u, 3, 0), 0);
	ck_assert_int_eq(eng_run(e, CYCLE_MAX, NULL), NPU_EFAULT);
	ck_assert_int_eq(r.n, 2);
	ck_assert_uint_eq(eng_now(e), 2);
	eng_free(e);
}
END_TEST

START_TEST(engine_reject_past)
{
	struct rec r;
	eng *e = new_eng_with(&r);

	r.chain = 0;
	ck_assert_int_eq(eng_schedule(e, 10, EV_PRI_ISSUE, &r.u, 1, 0), 0);
	ck_assert_int_eq(eng_run(e, CYCLE_MAX, NULL), 0);
	ck_assert_int_eq(eng_schedule(e, 9, EV_PRI_ISSUE, &r.u, 1, 0),
			 NPU_EINTERNAL);
	eng_free(e);
}
END_TEST


/*
 * The calendar window (1024 cycles) and the heap behind it must pop in
 * exactly (when, pri, seq) order.  A fuzzing unit schedules, from inside
 * its handlers, events at random distances: the same cycle (any phase at
 * or after the current one), near, just inside and beyond the window, and
 * far out, some cancelled; the pops are checked against the order that
 * sorting all scheduled events by (when, pri, seq) gives.
 */
#define FZ_MAX 20000

struct fz {
	struct unit u;
	uint32_t x;                 /* LCG */
	int n_sched, n_pop;
	uint64_t when[FZ_MAX];      /* per id (= seq order) */
	int pri[FZ_MAX], dead[FZ_MAX], popped[FZ_MAX];
	int order[FZ_MAX];          /* ids as popped */
	uint32_t gen;               /* cancels events scheduled with it */
};

static uint32_t fz_rand(struct fz *f)
{
	f->x = f->x * 1664525u + 1013904223u;
	return f->x >> 8;
}

static int fz_sched(struct fz *f, cycle_t now, int min_pri)
{
	static const uint64_t dist[] = { 0, 1, 7, 300, 1023, 1024, 1025, 5000, 100000 };
	int id = f->n_sched, cancel;
	uint64_t d;

	if (id >= FZ_MAX)
		return 0;
	d = dist[fz_rand(f) % 9];
	f->when[id] = now + d + (d > 1 ? fz_rand(f) % 50 : 0);
	f->pri[id] = d == 0 ? min_pri + (int)(fz_rand(f) % (6 - (unsigned)min_pri))
			    : (int)(fz_rand(f) % 6);
	cancel = fz_rand(f) % 10 == 0;
	f->dead[id] = cancel;
	f->n_sched++;
	return eng_schedule_gen(f->u.eng, f->when[id], (enum ev_pri)f->pri[id],
				&f->u, 0, (uint64_t)id, cancel ? &f->gen : NULL);
}

static int fz_event(struct unit *u, const struct ev *ev)
{
	struct fz *f = (struct fz *)u;
	int k, n = (int)(fz_rand(f) % 4), rc;

	f->order[f->n_pop++] = (int)ev->arg;
	for (k = 0; k < n; k++)
		if ((rc = fz_sched(f, ev->when, ev->pri)))
			return rc;
	f->gen += fz_rand(f) % 4 == 0; /* cancels the ones marked so far */
	return 0;
}

static const struct unit_ops fz_ops = {
	.kind = UNIT_OTHER,
	.on_event = fz_event,
	.destroy = rec_destroy,
};

static struct fz fz_g;
static int fz_ids[FZ_MAX];

static int fz_cmp(const void *a, const void *b)
{
	const struct fz *f = &fz_g;
	int x = *(const int *)a, y = *(const int *)b;

	if (f->when[x] != f->when[y])
		return f->when[x] < f->when[y] ? -1 : 1;
	if (f->pri[x] != f->pri[y])
		return f->pri[x] - f->pri[y];
	return x - y;
}

START_TEST(engine_calendar_order_fuzz)
{
	struct fz *f = &fz_g;
	eng *e = eng_new();
	int k, n = 0, j = 0;

	memset(f, 0, sizeof(*f));
	f->x = 12345;
	unit_init(&f->u, &fz_ops, e, 0, "fz");
	ck_assert_int_eq(eng_add_unit(e, &f->u), 0);
	for (k = 0; k < 40; k++)
		ck_assert_int_eq(fz_sched(f, 0, 0), 0);
	ck_assert_int_eq(eng_run(e, CYCLE_MAX, NULL), 0);
	/* Cancelled events: an event marked to cancel is dropped when the
	 * generation moved after it was scheduled; which ones did is what
	 * the pops show, so compare the popped ones to the sorted order of
	 * the popped ids plus the never-cancellable ones. */
	for (k = 0; k < f->n_sched; k++)
		f->popped[k] = 0;
	for (k = 0; k < f->n_pop; k++)
		f->popped[f->order[k]] = 1;
	for (k = 0; k < f->n_sched; k++) {
		if (!f->dead[k])
			ck_assert_msg(f->popped[k], "event %d (cycle %llu) lost", k,
				      (unsigned long long)f->when[k]);
		if (f->popped[k])
			fz_ids[n++] = k;
	}
	qsort(fz_ids, (size_t)n, sizeof(int), fz_cmp);
	ck_assert_int_eq(n, f->n_pop);
	for (j = 0; j < n; j++)
		ck_assert_msg(f->order[j] == fz_ids[j],
			      "pop %d: event %d, want %d", j, f->order[j], fz_ids[j]);
	ck_assert_int_gt(f->n_sched, 10000);
	eng_free(e);
}
END_TEST

START_TEST(engine_schedule_behind_window)
{
	/* A run that ends on a cancelled event leaves the window's base past
	 * now; work scheduled between the two must still come first. */
	struct rec r;
	eng *e = new_eng_with(&r);
	uint32_t gen = 0;

	ck_assert_int_eq(eng_schedule(e, 10, EV_PRI_ISSUE, &r.u, 1, 0), 0);
	ck_assert_int_eq(eng_schedule_gen(e, 500, EV_PRI_ISSUE, &r.u, 9, 0, &gen), 0);
	gen++;
	ck_assert_int_eq(eng_run(e, CYCLE_MAX, NULL), 0);
	ck_assert_uint_eq(eng_now(e), 10);
	/* 600 lies in the window from 500, 20 behind it */
	ck_assert_int_eq(eng_schedule(e, 600, EV_PRI_ISSUE, &r.u, 3, 0), 0);
	ck_assert_int_eq(eng_schedule(e, 20, EV_PRI_ISSUE, &r.u, 2, 0), 0);
	ck_assert_int_eq(eng_run(e, CYCLE_MAX, NULL), 0);
	ck_assert_int_eq(r.n, 3);
	ck_assert_int_eq(r.log_kind[1], 2);
	ck_assert_int_eq(r.log_when[1], 20);
	ck_assert_int_eq(r.log_kind[2], 3);
	eng_free(e);
}
END_TEST

/* eng_horizon_except's filter: kind 7 events are "mine". */
static int kind7(void *ctx, const struct ev *ev)
{
	(void)ctx;
	return ev->kind == 7;
}

START_TEST(engine_horizon_except)
{
	/* The first pending event the filter does not accept, through the
	 * calendar's cycles (several words of its bitmap apart, one slot
	 * with both kinds) and beyond its window (the heap), with the pause
	 * and limit bounds eng_horizon has. */
	struct rec r;
	eng *e = new_eng_with(&r);

	ck_assert_uint_eq(eng_horizon_except(e, kind7, NULL), CYCLE_MAX);
	ck_assert_int_eq(eng_schedule(e, 5, EV_PRI_ISSUE, &r.u, 7, 0), 0);
	ck_assert_int_eq(eng_schedule(e, 200, EV_PRI_COMPLETE, &r.u, 7, 0), 0);
	ck_assert_int_eq(eng_schedule(e, 200, EV_PRI_ARB, &r.u, 3, 0), 0);
	ck_assert_int_eq(eng_schedule(e, 900, EV_PRI_ISSUE, &r.u, 4, 0), 0);
	ck_assert_int_eq(eng_schedule(e, 5000, EV_PRI_ISSUE, &r.u, 5, 0), 0);
	ck_assert_uint_eq(eng_horizon(e), 5);
	ck_assert_uint_eq(eng_horizon_except(e, kind7, NULL), 200);
	/* run to 300: the next foreign one is 900, then beyond the window */
	ck_assert_int_eq(eng_run_until(e, 300, CYCLE_MAX, NULL), 0);
	ck_assert_uint_eq(eng_horizon_except(e, kind7, NULL), 301); /* paused */
	ck_assert_int_eq(eng_run_until(e, 1000, CYCLE_MAX, NULL), 0);
	ck_assert_int_eq(eng_schedule(e, 1500, EV_PRI_ISSUE, &r.u, 7, 0), 0);
	ck_assert_int_eq(eng_run_until(e, 4000, 4500, NULL), 0);
	/* only mine (1500, run) and the heap's 5000, past the limit 4500 */
	ck_assert_uint_eq(eng_horizon_except(e, kind7, NULL), 4001);
	eng_free(e);
}
END_TEST

/* A calendar's owner: at each cycle t < 1000 it takes cycle t's items,
 * checks them, and adds t % 40 small items for t + 1 and one big item
 * (another lane, another size) for t + 5. */
struct cal_big {
	uint64_t id;
	uint32_t pad[3];
};

struct cal_user {
	struct unit u;
	struct cal *c;
	int bad;           /* a check failed: the cycle + 1 */
};

static int cal_user_event(struct unit *u, const struct ev *ev)
{
	struct cal_user *cu = (struct cal_user *)u;
	cycle_t t = ev->when;
	uint32_t k, n, nb_n, want = t ? (uint32_t)((t - 1) % 40) : 0, *it;
	uint64_t before = cal_pending(cu->c);
	const uint32_t *v;
	const struct cal_big *b;
	struct cal_big *nb;

	if (cal_count(cu->c, t, 0) != want)
		cu->bad = (int)t + 1;
	v = cal_take(cu->c, t, 0, &n);
	b = cal_take(cu->c, t, 1, &nb_n);
	if (n != want || nb_n != (t >= 5 ? 1u : 0u) ||
	    (t >= 5 && b[0].id != t - 5) ||
	    cal_pending(cu->c) != before - n - nb_n ||
	    cal_count(cu->c, t, 0) || cal_count(cu->c, t, 1))
		cu->bad = (int)t + 1;
	for (k = 0; k < want; k++)
		if (v[k] != (uint32_t)(t - 1) * 100 + k)
			cu->bad = (int)t + 1;
	if (t == 1000)
		return 0;
	for (k = 0; k < t % 40; k++) {
		if (!(it = cal_add(cu->c, t + 1, 0, sizeof(*it))))
			return NPU_ENOMEM;
		*it = (uint32_t)t * 100 + k;
	}
	if (!(nb = cal_add(cu->c, t + 5, 1, sizeof(*nb))))
		return NPU_ENOMEM;
	nb->id = t;
	/* the next busy cycle: t + 1 if it got items, else the first big
	 * one (cycles 5 .. t + 5 hold one each) */
	if (cal_next(cu->c, t + 1) != (t % 40 || t >= 4 ? t + 1 : 5) ||
	    cal_pending(cu->c) != t % 40 + (t + 1 < 5 ? t + 1 : 5))
		cu->bad = (int)t + 1;
	return eng_schedule(u->eng, t + 1, EV_PRI_ARB, u, 1, 0);
}

static const struct unit_ops cal_user_ops = {
	.kind = UNIT_OTHER,
	.on_event = cal_user_event,
};

START_TEST(engine_calendar_lanes)
{
	/* Items come back per cycle and lane in the order they were added,
	 * lanes of different sizes apart; slots are reused once their cycle
	 * was cleared (the ring of 8 wraps 125 times); the arrays grow past
	 * their first 16 items; cal_next finds the next busy cycle; the
	 * engine frees the calendar (ASan: no leak). */
	eng *e = eng_new();
	const size_t size[2] = { sizeof(uint32_t), sizeof(struct cal_big) };
	struct cal_user cu;

	memset(&cu, 0, sizeof(cu));
	unit_init(&cu.u, &cal_user_ops, e, -1, "cal");
	cu.c = eng_calendar(e, 5, 2, size);
	ck_assert_ptr_nonnull(cu.c);
	ck_assert_uint_eq(cal_next(cu.c, 0), CYCLE_MAX);
	ck_assert_int_eq(eng_schedule(e, 0, EV_PRI_ARB, &cu.u, 1, 0), 0);
	ck_assert_int_eq(eng_run(e, CYCLE_MAX, NULL), 0);
	ck_assert_int_eq(cu.bad, 0);
	ck_assert_uint_eq(eng_now(e), 1000);
	/* cycles 1001 .. 1004 still hold their big items */
	ck_assert_uint_eq(cal_pending(cu.c), 4);
	eng_free(e);
}
END_TEST

static Suite *suite_engine(void)
{
	Suite *s = suite_create("engine");

	TEST_ADD(s, engine_order_time_pri_seq);
	TEST_ADD(s, engine_order_many_deterministic);
	TEST_ADD(s, engine_skip_idle_and_chain);
	TEST_ADD(s, engine_lazy_cancel);
	TEST_ADD(s, engine_watchdog);
	TEST_ADD(s, engine_deadlock_names_unit);
	TEST_ADD(s, engine_fault_stops_run);
	TEST_ADD(s, engine_reject_past);
	TEST_ADD(s, engine_calendar_order_fuzz);
	TEST_ADD(s, engine_schedule_behind_window);
	TEST_ADD(s, engine_sampler);
	TEST_ADD(s, engine_horizon_except);
	TEST_ADD(s, engine_calendar_lanes);
	return s;
}

TEST_MAIN(suite_engine)
