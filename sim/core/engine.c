/*
 * engine.c - binary min-heap event queue and the run loop.
 *
 * The heap is a flat array of struct ev ordered by (when, pri, seq); seq is a
 * 64-bit insertion counter, so no two events compare equal and the pop order
 * is a pure function of the schedule calls.  No wall-clock time is read.
 */
#include "engine.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../traces/trace.h"
#include "unit.h"

struct eng {
	struct ev *heap;        /* min-heap of pending events */
	size_t n, cap;          /* used, allocated */
	uint64_t next_seq;      /* insertion counter */
	cycle_t now;            /* cycle of the event being dispatched */
	struct unit **units;    /* registered units, in registration order */
	size_t n_units, cap_units;
	struct diag *diag;      /* runtime fault sink (may be NULL) */
	struct trc *trace;      /* trace writer, NULL = off */
};

/* Strict order of two events: 1 if a must pop before b. */
static int ev_before(const struct ev *a, const struct ev *b)
{
	if (a->when != b->when)
		return a->when < b->when;
	if (a->pri != b->pri)
		return a->pri < b->pri;
	return a->seq < b->seq;
}

eng *eng_new(void)
{
	return calloc(1, sizeof(struct eng));
}

void eng_free(eng *e)
{
	size_t i;

	if (!e)
		return;
	/* Destroy in reverse registration order: later units may refer to
	 * earlier ones (a core's control unit to its matrix engine). */
	for (i = e->n_units; i-- > 0;)
		if (e->units[i]->ops->destroy)
			e->units[i]->ops->destroy(e->units[i]);
	free(e->units);
	free(e->heap);
	free(e);
}

cycle_t eng_now(const eng *e) { return e->now; }
struct trc *eng_trace(const eng *e) { return e->trace; }
void eng_set_trace(eng *e, struct trc *t) { e->trace = t; }
struct diag *eng_diag(const eng *e) { return e->diag; }
void eng_set_diag(eng *e, struct diag *d) { e->diag = d; }
size_t eng_pending(const eng *e) { return e->n; }
size_t eng_n_units(const eng *e) { return e->n_units; }
struct unit *eng_unit(const eng *e, size_t i) { return e->units[i]; }

int eng_add_unit(eng *e, struct unit *u)
{
	if (e->n_units == e->cap_units) {
		size_t cap = e->cap_units ? e->cap_units * 2 : 16;
		struct unit **v = realloc(e->units, cap * sizeof(*v));

		if (!v)
			return NPU_ENOMEM;
		e->units = v;
		e->cap_units = cap;
	}
	e->units[e->n_units++] = u;
	return 0;
}

int eng_schedule_gen(eng *e, cycle_t when, enum ev_pri pri, struct unit *u,
		     unsigned kind, uint64_t arg, const uint32_t *genp)
{
	struct ev ev;
	size_t i;

	if (when < e->now)
		return NPU_EINTERNAL; /* a model tried to schedule in the past */
	if (e->n == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 256;
		struct ev *h = realloc(e->heap, cap * sizeof(*h));

		if (!h)
			return NPU_ENOMEM;
		e->heap = h;
		e->cap = cap;
	}
	ev.when = when;
	ev.seq = e->next_seq++;
	ev.unit = u;
	ev.genp = genp;
	ev.gen = genp ? *genp : 0;
	ev.arg = arg;
	ev.pri = (uint16_t)pri;
	ev.kind = (uint16_t)kind;
	/* Sift up. */
	i = e->n++;
	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (!ev_before(&ev, &e->heap[p]))
			break;
		e->heap[i] = e->heap[p];
		i = p;
	}
	e->heap[i] = ev;
	return 0;
}

int eng_schedule(eng *e, cycle_t when, enum ev_pri pri, struct unit *u,
		 unsigned kind, uint64_t arg)
{
	return eng_schedule_gen(e, when, pri, u, kind, arg, NULL);
}

/* Remove the minimum into *out; the queue must not be empty. */
static void heap_pop(eng *e, struct ev *out)
{
	struct ev last;
	size_t i = 0;

	*out = e->heap[0];
	last = e->heap[--e->n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = l;

		if (l >= e->n)
			break;
		if (r < e->n && ev_before(&e->heap[r], &e->heap[l]))
			m = r;
		if (!ev_before(&e->heap[m], &last))
			break;
		e->heap[i] = e->heap[m];
		i = m;
	}
	e->heap[i] = last;
}

#ifdef NPU_DEBUG
/* Debug builds verify the heap property after every pop. */
static void heap_check(const eng *e)
{
	size_t i;

	for (i = 1; i < e->n; i++)
		if (ev_before(&e->heap[i], &e->heap[(i - 1) / 2])) {
			fprintf(stderr, "engine: heap order broken at %zu\n", i);
			abort();
		}
}
#endif

/* After the queue drained: name every unit that still has work. */
static int report_deadlock(eng *e)
{
	char why[256];
	size_t i;
	int stuck = 0;
	struct diag quiet;

	if (!e->diag)
		diag_init(&quiet, NULL);
	for (i = 0; i < e->n_units; i++) {
		struct unit *u = e->units[i];

		why[0] = '\0';
		if (!u->ops->blocked || !u->ops->blocked(u, why, sizeof(why)))
			continue;
		if (!stuck)
			(void)diag_error(e->diag ? e->diag : &quiet,
					 diag_nowhere(), NPU_EDEADLOCK,
					 "deadlock at cycle %llu: no event pending but units still have work",
					 (unsigned long long)e->now);
		stuck++;
		diag_note(e->diag ? e->diag : &quiet, diag_nowhere(), "%s: %s",
			  u->name, why[0] ? why : "blocked");
	}
	return stuck ? NPU_EDEADLOCK : 0;
}

/*
 * The run loop.  One step: pop the earliest event -> drop it if cancelled
 * -> stop if it lies beyond max_cycles (watchdog) -> advance now -> dispatch
 * to its unit, stopping on a fault.  When the queue is empty, every unit is
 * asked whether it still has work: if one has, the run deadlocked.
 */
int eng_run(eng *e, cycle_t max_cycles, struct eng_stats *st)
{
	struct eng_stats local = { 0, 0, 0 };
	struct ev ev;
	int rc = 0;

	while (e->n > 0) {
		heap_pop(e, &ev);
#ifdef NPU_DEBUG
		heap_check(e);
#endif
		if (ev.genp && *ev.genp != ev.gen) {
			local.n_cancelled++;
			continue;
		}
		if (ev.when > max_cycles) {
			e->now = max_cycles;
			if (e->diag)
				(void)diag_error(e->diag, diag_nowhere(),
						 NPU_ETIMEOUT,
						 "cycle limit %llu reached (raise --max-cycles)",
						 (unsigned long long)max_cycles);
			rc = NPU_ETIMEOUT;
			break;
		}
		e->now = ev.when;
		local.n_events++;
		rc = ev.unit->ops->on_event(ev.unit, &ev);
		if (rc)
			break;
	}
	local.end_cycle = e->now;
	if (rc == 0)
		rc = report_deadlock(e);
	if (st)
		*st = local;
	return rc;
}

void unit_init(struct unit *u, const struct unit_ops *ops, eng *e, int core,
	       const char *fmt, ...)
{
	va_list ap;

	memset(u, 0, sizeof(*u));
	u->ops = ops;
	u->eng = e;
	u->core = core;
	va_start(ap, fmt);
	vsnprintf(u->name, sizeof(u->name), fmt, ap);
	va_end(ap);
}

void unit_span(struct unit *u, cycle_t start, cycle_t end, const char *name,
	       const char *args_json)
{
	struct trc *t = u->eng ? u->eng->trace : NULL;
	const char *leaf;

	if (!t)
		return;
	if (!u->trc_track) {
		/* Track named after the unit's leaf: "core0.dma1" -> "dma1". */
		leaf = strchr(u->name, '.');
		u->trc_track = 1 + trc_track(t, u->core, leaf ? leaf + 1 : u->name);
	}
	trc_span(t, u->trc_track - 1, start, end, name, args_json);
}
