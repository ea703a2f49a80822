/*
 * test_engine.c - event ordering, determinism, cancellation, watchdog and
 * deadlock reporting of the discrete-event engine.
 */
#include <stdio.h>
#include <string.h>

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
	TEST_ADD(s, engine_sampler);
	return s;
}

TEST_MAIN(suite_engine)
