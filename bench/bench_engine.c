/*
 * bench_engine.c - raw throughput of the discrete-event engine: events
 * dispatched per host second for a queue holding many pending events.
 *
 * 'width' units each keep one event in flight and reschedule it at a
 * pseudo-random distance (1..64 cycles), so the heap holds 'width' events
 * and every pop is followed by a push: the engine's steady state in a busy
 * chip.  Host time is measured here and only here (never in make test).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../sim/engine/engine.h"
#include "../sim/engine/unit.h"

struct hop {
	struct unit u;     /* must be first */
	uint32_t x;        /* LCG state */
	uint64_t left;     /* events still to schedule */
};

static int hop_event(struct unit *u, const struct ev *ev)
{
	struct hop *h = (struct hop *)u;

	if (!h->left)
		return 0;
	h->left--;
	h->x = h->x * 1664525u + 1013904223u;
	return eng_schedule(u->eng, ev->when + 1 + (h->x >> 26), EV_PRI_ISSUE, u,
			    0, 0);
}

static void hop_destroy(struct unit *u)
{
	(void)u;
}

static const struct unit_ops hop_ops = {
	.kind = UNIT_OTHER,
	.on_event = hop_event,
	.destroy = hop_destroy,
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
	static const int widths[] = { 16, 1024, 65536 };
	const uint64_t total = 20000000;
	size_t w;

	for (w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
		int n = widths[w], i;
		struct hop *h = calloc((size_t)n, sizeof(*h));
		eng *e = eng_new();
		struct eng_stats st;
		double t0, dt;

		if (!h || !e)
			return 1;
		for (i = 0; i < n; i++) {
			unit_init(&h[i].u, &hop_ops, e, 0, "hop%d", i);
			h[i].x = (uint32_t)i;
			h[i].left = total / (uint64_t)n;
			if (eng_add_unit(e, &h[i].u) ||
			    eng_schedule(e, (cycle_t)i % 64, EV_PRI_ISSUE, &h[i].u, 0, 0))
				return 1;
		}
		t0 = now_s();
		if (eng_run(e, CYCLE_MAX, &st))
			return 1;
		dt = now_s() - t0;
		printf("bench.engine.events: %d pending, %llu events in %.3f s, %.1f M events/s, %.1f M cycles/s\n",
		       n, (unsigned long long)st.n_events, dt,
		       (double)st.n_events / dt / 1e6,
		       (double)st.end_cycle / dt / 1e6);
		eng_free(e);
		free(h);
	}
	return 0;
}
