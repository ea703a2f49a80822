/*
 * engine.c - the event queue and the run loop.
 *
 * Events pop in (when, pri, seq) order; seq is a 64-bit insertion counter,
 * so no two events compare equal and the pop order is a pure function of
 * the schedule calls.  No wall-clock time is read.
 *
 * The queue has two parts (a calendar queue in front of a heap, after
 * R. Brown, "Calendar queues", CACM 1988, without its resizing): events
 * for the next ENG_CAL_SLOTS cycles after 'base' (the cycle of the last
 * pop) go into a ring of per-cycle slots, each a FIFO kept sorted by pri
 * (equal pri in insertion order, which is seq order); later ones into a
 * binary min-heap.  Almost every event of a chip lands within a few
 * hundred cycles, so scheduling and popping are O(1) instead of
 * O(log n); a bitmap of non-empty slots finds the next cycle.  Whenever
 * base advances, heap events that fall into the window move to their
 * slot, before any event at the new base runs.
 *
 * Invariants:
 *  - every heap event has when >= base + ENG_CAL_SLOTS and every slot
 *    event when < base + ENG_CAL_SLOTS, so the calendar empties first;
 *  - slot when % ENG_CAL_SLOTS holds only events of cycle when, sorted by
 *    (pri, seq): heap events moved there were scheduled before any direct
 *    insert for that cycle (a direct insert needs when < base + slots,
 *    i.e. a later base), so appending keeps seq order;
 *  - heap[0..n_heap) satisfies the min-heap property under ev_before()
 *    (checked after every pop with -DNPU_DEBUG).
 *  - now never decreases: eng_schedule_gen() refuses a 'when' before now,
 *    and the run loop only moves now forward to the popped event's cycle.
 *  - An event for the current cycle scheduled from inside a dispatch is
 *    pushed, not called, so it runs after the scheduling handler returns:
 *    no model is ever re-entered (STYLE.md convention 7).
 *  - The engine owns every registered unit: eng_free() destroys them.
 *
 * Cost: O(1) per schedule and pop within the window (a slot's array
 * doubles when full, so nothing is allocated per event), O(log n) for the
 * rare event further out.
 */
#include "engine.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../prog/prog.h"
#include "../../traces/trace.h"
#include "unit.h"

/* Cycles the calendar covers (a power of two); the bitmap has one bit per
 * slot. */
#define ENG_CAL_SLOTS 1024
#define ENG_CAL_WORDS (ENG_CAL_SLOTS / 64)

/* The events of one cycle: v[head..tail) sorted by (pri, seq). */
struct slot {
	struct ev *v;
	uint32_t head, tail, cap;
};

struct eng {
	struct slot cal[ENG_CAL_SLOTS]; /* the near future, by cycle */
	/*
	 * Arrays of slots that emptied, the most recent last.  A slot that
	 * empties gives its array back and a slot that fills takes the most
	 * recently returned one, so the events in flight live in a few
	 * cache-hot arrays rather than each of 1,024 slots keeping its own,
	 * cold again by the time the ring comes round (perf: the store into
	 * the slot was most of cal_insert).
	 */
	struct slot spare[ENG_CAL_SLOTS];
	size_t n_spare;
	uint64_t busy[ENG_CAL_WORDS]; /* non-empty slots */
	cycle_t base;           /* the calendar covers [base, base + slots) */
	struct ev *heap;        /* min-heap of the events beyond it */
	size_t n_heap, cap;     /* used, allocated */
	size_t n;               /* events pending in both */
	uint64_t next_seq;      /* insertion counter: 2^64 never wraps in a run */
	cycle_t now;            /* cycle of the event being dispatched */
	struct unit **units;    /* registered units, in registration order */
	size_t n_units, cap_units; /* units used, allocated */
	struct diag *diag;      /* runtime fault sink (may be NULL) */
	struct trc *trace;      /* trace writer, NULL = off */
	cycle_t sample_at;      /* next sampling boundary, CYCLE_MAX = off */
	cycle_t sample_every;   /* sampling interval in cycles */
	eng_sample_fn sample_fn; /* sampler (eng_set_sampler) */
	void *sample_ctx;       /* its context */
	eng_poll_fn poll;       /* long-run hook (interrupt, progress), or NULL */
	void *poll_ctx;         /* its context */
	uint32_t poll_left;     /* events until the next poll */
	int no_values;          /* timing only (eng_values) */
	int no_ff;              /* fast-forward off (eng_fast_forward) */
	cycle_t run_stop;       /* eng_run_until's pause cycle and cycle */
	cycle_t run_max;        /* limit while a run is on (eng_horizon) */
};

/*
 * Strict order of two events: 1 if a must pop before b.  Cycle first, then
 * the enum ev_pri phase within the cycle (engine.h says why each phase
 * precedes the next), then insertion order, which makes the order total:
 * two events never tie, so the heap's shape cannot leak into the pop order.
 */
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
	eng *e = calloc(1, sizeof(struct eng));

	if (e) {
		e->sample_at = CYCLE_MAX; /* no sampler */
		e->run_stop = e->run_max = CYCLE_MAX;
	}
	return e;
}

void eng_set_sampler(eng *e, cycle_t interval, eng_sample_fn fn, void *ctx)
{
	e->sample_every = fn ? interval : 0;
	e->sample_fn = fn;
	e->sample_ctx = ctx;
	/* The first boundary after now (boundaries are multiples). */
	e->sample_at = e->sample_every ?
		(e->now / e->sample_every + 1) * e->sample_every : CYCLE_MAX;
}

/*
 * The run loop is about to dispatch an event at 'when' >= sample_at: run
 * the sampler at the boundary just crossed, and again at the last
 * boundary before 'when' if an idle stretch skipped several (the state
 * did not change in between: no event ran).
 */
static void eng_sample(eng *e, cycle_t when)
{
	cycle_t first = e->sample_at, last = when / e->sample_every *
					     e->sample_every;

	e->sample_fn(e->sample_ctx, first);
	if (last > first)
		e->sample_fn(e->sample_ctx, last);
	e->sample_at = last <= CYCLE_MAX - e->sample_every ?
		       last + e->sample_every : CYCLE_MAX;
}

void eng_free(eng *e)
{
	size_t i;

	if (!e)
		return;
	/* Destroy in reverse registration order: later units may refer to
	 * earlier ones.  Units that are parts of a larger model (the DRAM
	 * channels) have no destroy: their owner frees the model. */
	for (i = e->n_units; i-- > 0;)
		if (e->units[i]->ops->destroy)
			e->units[i]->ops->destroy(e->units[i]);
	free(e->units);
	for (i = 0; i < ENG_CAL_SLOTS; i++)
		free(e->cal[i].v);
	for (i = 0; i < e->n_spare; i++)
		free(e->spare[i].v);
	free(e->heap);
	free(e);
}

cycle_t eng_now(const eng *e) { return e->now; }
struct trc *eng_trace(const eng *e) { return e->trace; }
void eng_set_trace(eng *e, struct trc *t) { e->trace = t; }
struct diag *eng_diag(const eng *e) { return e->diag; }
void eng_set_diag(eng *e, struct diag *d) { e->diag = d; }
size_t eng_pending(const eng *e) { return e->n; }
int eng_values(const eng *e) { return !e->no_values; }
void eng_set_values(eng *e, int on) { e->no_values = !on; }
int eng_fast_forward(const eng *e) { return !e->no_ff; }
void eng_set_fast_forward(eng *e, int on) { e->no_ff = !on; }

void eng_set_poll(eng *e, eng_poll_fn fn, void *ctx)
{
	e->poll = fn;
	e->poll_ctx = ctx;
	e->poll_left = ENG_POLL_EVENTS;
}
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

/*
 * The record where an event of cycle 'when' (< base + slots) and priority
 * pri goes in its calendar slot: behind every event of its cycle with
 * pri <= its own, later ones moved up one place.  NULL when out of memory.
 * The caller fills it in (no copy through a temporary).
 */
static inline __attribute__((always_inline)) struct ev *
cal_place(eng *e, cycle_t when, uint16_t pri)
{
	size_t k = (size_t)(when & (ENG_CAL_SLOTS - 1));
	struct slot *s = &e->cal[k];
	uint32_t i;

	if (s->head == s->tail) {
		s->head = s->tail = 0;
		if (!s->v && e->n_spare) {
			/* the most recently emptied array: still in cache */
			*s = e->spare[--e->n_spare];
			s->head = s->tail = 0;
		}
	}
	if (s->tail == s->cap) {
		uint32_t cap = s->cap ? s->cap * 2 : 8;
		struct ev *v;

		if (s->head > 0) { /* room at the front: slide down first */
			memmove(s->v, s->v + s->head,
				(s->tail - s->head) * sizeof(*v));
			s->tail -= s->head;
			s->head = 0;
		} else {
			v = realloc(s->v, cap * sizeof(*v));
			if (!v)
				return NULL;
			s->v = v;
			s->cap = cap;
		}
	}
	e->busy[k >> 6] |= 1ULL << (k & 63);
	/* Almost always an append; an earlier phase of the same cycle (a
	 * completion scheduled by an arbiter) shifts past later ones. */
	i = s->tail++;
	if (i > s->head && s->v[i - 1].pri > pri) {
		do {
			s->v[i] = s->v[i - 1];
			i--;
		} while (i > s->head && s->v[i - 1].pri > pri);
	}
	return &s->v[i];
}

/* Put ev into its calendar slot (when < base + slots). */
static int cal_insert(eng *e, const struct ev *ev)
{
	struct ev *p = cal_place(e, ev->when, ev->pri);

	if (!p)
		return NPU_ENOMEM;
	*p = *ev;
	return 0;
}

static int heap_push(eng *e, const struct ev *ev)
{
	size_t i;

	/* Grow by doubling: amortised O(1) per push, no malloc per event. */
	if (e->n_heap == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 256;
		struct ev *h = realloc(e->heap, cap * sizeof(*h));

		if (!h)
			return NPU_ENOMEM;
		e->heap = h;
		e->cap = cap;
	}
	/* Sift up: move parents down until ev's slot is found (one copy per
	 * level instead of a swap). */
	i = e->n_heap++;
	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (!ev_before(ev, &e->heap[p]))
			break;
		e->heap[i] = e->heap[p];
		i = p;
	}
	e->heap[i] = *ev;
	return 0;
}

static int cal_advance(eng *e, cycle_t when);

/*
 * Move the window back to 'when' (< base): every calendar event goes to
 * the heap and the window refills from there.  Only a run that ended on
 * cancelled events (they advance base, not now) and is then given new
 * work before base sees this; it costs O(n log n) once.
 */
static int cal_rebase(eng *e, cycle_t when)
{
	size_t k;
	int rc;

	for (k = 0; k < ENG_CAL_SLOTS; k++) {
		struct slot *s = &e->cal[k];

		while (s->head < s->tail)
			if ((rc = heap_push(e, &s->v[s->head++])))
				return rc;
		s->head = s->tail = 0;
	}
	memset(e->busy, 0, sizeof(e->busy));
	return cal_advance(e, when);
}

/* eng_schedule and eng_schedule_gen, inlined into both (the per-event
 * path: a call and its register saves were a tenth of an event). */
static inline __attribute__((always_inline)) int
schedule(eng *e, cycle_t when, enum ev_pri pri, struct unit *u,
	 unsigned kind, uint64_t arg, const uint32_t *genp)
{
	struct ev ev, *p = &ev;
	int rc;

	if (when < e->now)
		return NPU_EINTERNAL; /* a model tried to schedule in the past */
	if (when < e->base && (rc = cal_rebase(e, when)))
		return rc;
	/* the near future (nearly every event) is filled in in its slot */
	if (when - e->base < ENG_CAL_SLOTS &&
	    !(p = cal_place(e, when, (uint16_t)pri)))
		return NPU_ENOMEM;
	p->when = when;
	p->seq = e->next_seq++;
	p->unit = u;
	p->genp = genp;
	/* Snapshot the generation now; a later bump of *genp cancels us. */
	p->gen = genp ? *genp : 0;
	p->arg = arg;
	p->pri = (uint16_t)pri;
	p->kind = (uint16_t)kind;
	if (p == &ev && (rc = heap_push(e, &ev)))
		return rc;
	e->n++;
	return 0;
}

int eng_schedule_gen(eng *e, cycle_t when, enum ev_pri pri, struct unit *u,
		     unsigned kind, uint64_t arg, const uint32_t *genp)
{
	return schedule(e, when, pri, u, kind, arg, genp);
}

int eng_schedule(eng *e, cycle_t when, enum ev_pri pri, struct unit *u,
		 unsigned kind, uint64_t arg)
{
	return schedule(e, when, pri, u, kind, arg, NULL);
}

/*
 * Remove the heap's minimum into *out; the heap must not be empty.  The
 * last record is sifted down from the root as a "hole" (children move up),
 * which costs two comparisons and one copy per level.
 */
static void heap_pop(eng *e, struct ev *out)
{
	struct ev last;
	size_t i = 0;

	*out = e->heap[0];
	last = e->heap[--e->n_heap];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = l;

		if (l >= e->n_heap)
			break;
		if (r < e->n_heap && ev_before(&e->heap[r], &e->heap[l]))
			m = r;
		if (!ev_before(&e->heap[m], &last))
			break;
		e->heap[i] = e->heap[m];
		i = m;
	}
	e->heap[i] = last;
}

/* Slot index of the first non-empty slot at or after base (in ring order),
 * or -1 if the calendar is empty. */
static int cal_next(const eng *e)
{
	size_t k0 = (size_t)(e->base & (ENG_CAL_SLOTS - 1)), w = k0 >> 6, i;
	uint64_t m = e->busy[w] & (~0ULL << (k0 & 63));

	for (i = 0; i <= ENG_CAL_WORDS; i++) {
		if (m)
			return (int)(w * 64 + (size_t)__builtin_ctzll(m));
		w = (w + 1) % ENG_CAL_WORDS;
		m = e->busy[w];
		if (i == ENG_CAL_WORDS - 1) /* back at k0's word: below k0 */
			m &= ~(~0ULL << (k0 & 63));
	}
	return -1;
}

/* Cycle of the next event; the queue must not be empty. */
static cycle_t q_next_when(const eng *e)
{
	int k = cal_next(e);

	if (k < 0)
		return e->heap[0].when;
	return e->base + (((cycle_t)k - e->base) & (ENG_CAL_SLOTS - 1));
}

/* Move base to 'when' and pull the heap events that now fall into the
 * window into their slots (in heap order, i.e. seq order per cycle). */
static int cal_advance(eng *e, cycle_t when)
{
	struct ev ev;
	int rc;

	e->base = when;
	while (e->n_heap && e->heap[0].when - when < ENG_CAL_SLOTS) {
		heap_pop(e, &ev);
		if ((rc = cal_insert(e, &ev)))
			return rc;
	}
	return 0;
}

/* Remove the next event into *out; the queue must not be empty. */
static int q_pop(eng *e, struct ev *out)
{
	size_t k = (size_t)(e->base & (ENG_CAL_SLOTS - 1));
	struct slot *s = &e->cal[k];
	int rc;

	/* Base's own slot holds only events of cycle base, the earliest
	 * there can be: pop there without a search while it lasts. */
	if (s->head == s->tail) {
		cycle_t when = q_next_when(e);

		k = (size_t)(when & (ENG_CAL_SLOTS - 1));
		s = &e->cal[k];
		if (when != e->base && (rc = cal_advance(e, when)))
			return rc;
	}
	*out = s->v[s->head++];
	if (s->head == s->tail) {
		s->head = s->tail = 0;
		e->busy[k >> 6] &= ~(1ULL << (k & 63));
		/* give the array back (one per slot at most: it fits) */
		e->spare[e->n_spare++] = *s;
		s->v = NULL;
		s->cap = 0;
	}
	e->n--;
	return 0;
}

#ifdef NPU_DEBUG
/* Debug builds verify the heap property after every pop: O(n) per pop,
 * which is why it is not in release builds.  A broken heap is a simulator
 * bug, not user input, so abort() is allowed here. */
static void heap_check(const eng *e)
{
	size_t i;

	for (i = 1; i < e->n_heap; i++)
		if (ev_before(&e->heap[i], &e->heap[(i - 1) / 2])) {
			fprintf(stderr, "engine: heap order broken at %zu\n", i);
			abort();
		}
}
#endif

/* eng_horizon's bounds other than the pending events, applied to h. */
static cycle_t horizon_bounds(const eng *e, cycle_t h)
{
	if (e->sample_at < h)
		h = e->sample_at;
	/* a pause at run_stop shows the state after every event up to it */
	if (e->run_stop < e->run_max && e->run_stop + 1 < h)
		h = e->run_stop + 1;
	/* an event past run_max ends the run at run_max */
	if (e->run_max < CYCLE_MAX && e->run_max + 1 < h)
		h = e->run_max + 1;
	return h;
}

cycle_t eng_horizon_except(const eng *e, eng_ev_fn mine, void *ctx)
{
	cycle_t t = e->base, end = e->base + ENG_CAL_SLOTS;
	uint32_t i;

	/* the busy slots in cycle order from base, word by word */
	while (e->n && t < end) {
		size_t k = (size_t)(t & (ENG_CAL_SLOTS - 1));
		uint64_t m = e->busy[k >> 6] >> (k & 63);
		const struct slot *s;

		if (!m) {
			t += 64 - (k & 63);
			continue;
		}
		t += (cycle_t)__builtin_ctzll(m);
		if (t >= end)
			break;
		s = &e->cal[t & (ENG_CAL_SLOTS - 1)];
		for (i = s->head; i < s->tail; i++)
			if (!mine(ctx, &s->v[i]))
				return horizon_bounds(e, t);
		t++;
	}
	return horizon_bounds(e, e->n_heap ? e->heap[0].when : CYCLE_MAX);
}

cycle_t eng_horizon(const eng *e)
{
	return horizon_bounds(e, e->n ? q_next_when(e) : CYCLE_MAX);
}

/*
 * After the queue drained: name every unit that still has work.  A unit
 * that is blocked with no event pending can never be woken again (every
 * wake-up is an event), so this is an exact deadlock test, not a timeout.
 * One error line, then one note per stuck unit in registration order.
 * Without a diag sink the report goes to a quiet local one: the return
 * code alone still tells the caller.
 */
static int report_deadlock(eng *e)
{
	char why[768];
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
		if (e->trace) {
			char args[300];

			trc_json_member(args, sizeof(args), "waits",
					why[0] ? why : "blocked");
			unit_instant(u, e->now, "deadlock", args);
		}
	}
	return stuck ? NPU_EDEADLOCK : 0;
}

/*
 * A unit's event failed: an instant "fault" on its track with the
 * message the unit reported (the diag's last error), at the cycle the
 * report names (a control unit faults on its local clock, which can be
 * ahead of the engine's).
 */
static void fault_instant(eng *e, struct unit *u, int rc)
{
	char args[700];
	cycle_t when = e->now;
	const char *msg = e->diag && e->diag->last[0] ? e->diag->last :
						       npu_strerror(rc);

	if (e->diag && e->diag->last_run.core == u->core &&
	    e->diag->last_run.cycle > when)
		when = e->diag->last_run.cycle;
	trc_json_member(args, sizeof(args), "error", msg);
	unit_instant(u, when, rc == NPU_EFAULT ? "fault" : "error", args);
}

/*
 * The run loop.  One step: pop the earliest event -> drop it if cancelled
 * -> stop if it lies beyond max_cycles (watchdog) -> sample counters if a
 * sampling boundary was crossed (tracing only) -> advance now -> dispatch
 * to its unit, stopping on a fault (traced as an instant) -> every ENG_POLL_EVENTS events, the poll
 * hook (interrupt, progress).  When the queue is empty, every unit is
 * asked whether it still has work: if one has, the run deadlocked.
 *
 * Cancelled events are dropped before the watchdog test, so a stale event
 * parked beyond max_cycles does not turn a finished run into a timeout.
 * Idle cycles cost nothing: now jumps straight to the next event.
 * Deadlock is only checked after a clean drain; after a fault or a timeout
 * units are legitimately mid-work.
 */
int eng_run(eng *e, cycle_t max_cycles, struct eng_stats *st)
{
	return eng_run_until(e, CYCLE_MAX, max_cycles, st);
}

int eng_run_until(eng *e, cycle_t stop, cycle_t max_cycles,
		  struct eng_stats *st)
{
	struct eng_stats local = { 0, 0, 0, 0 };
	struct ev ev;
	int rc = 0;

	e->run_stop = stop;
	e->run_max = max_cycles;
	while (e->n > 0) {
		/* A pause leaves the event in the heap: continuing pops it
		 * with its own (when, pri, seq), so a paused and continued
		 * run dispatches exactly what an unpaused one does. */
		if (stop < max_cycles && q_next_when(e) > stop) {
			e->now = stop;
			local.paused = 1;
			break;
		}
		if ((rc = q_pop(e, &ev)))
			break;
#ifdef NPU_DEBUG
		heap_check(e);
#endif
		if (ev.genp && *ev.genp != ev.gen) {
			local.n_cancelled++;
			continue;
		}
		if (ev.when > max_cycles) {
			/* Report the limit itself, not the cycle of the event that
			 * would have passed it: work up to max_cycles was done. */
			e->now = max_cycles;
			if (e->diag)
				(void)diag_error(e->diag, diag_nowhere(),
						 NPU_ETIMEOUT,
						 "cycle limit %llu reached (raise --max-cycles)",
						 (unsigned long long)max_cycles);
			rc = NPU_ETIMEOUT;
			break;
		}
		if (ev.when >= e->sample_at)
			eng_sample(e, ev.when);
		e->now = ev.when;
		local.n_events++;
		rc = ev.unit->ops->on_event(ev.unit, &ev);
		if (rc) {
			if (e->trace)
				fault_instant(e, ev.unit, rc);
			break;
		}
		/* Counted always, called rarely: the countdown keeps the hook
		 * off the per-event path (poll_left wraps harmlessly when no
		 * hook is set). */
		if (--e->poll_left == 0) {
			e->poll_left = ENG_POLL_EVENTS;
			if (e->poll && (rc = e->poll(e->poll_ctx, e->now)))
				break;
		}
	}
	/* now is the last dispatched cycle (or max_cycles on a timeout). */
	local.end_cycle = e->now;
	if (rc == 0 && !local.paused)
		rc = report_deadlock(e);
	if (st)
		*st = local;
	return rc;
}

void unit_init(struct unit *u, const struct unit_ops *ops, eng *e, int core,
	       const char *fmt, ...)
{
	va_list ap;

	/* Zero everything first: counters start at 0, trc_track 0 = no track. */
	memset(u, 0, sizeof(*u));
	u->ops = ops;
	u->eng = e;
	u->core = core;
	va_start(ap, fmt);
	/* Truncates silently at 31 characters: names are labels only. */
	vsnprintf(u->name, sizeof(u->name), fmt, ap);
	va_end(ap);
}

/*
 * The trace kind of a unit kind.  Only the trace's sort order and
 * --trace-units names depend on it; UNIT_OTHER (drivers) sorts last.
 */
static enum trc_kind trace_kind(const struct unit *u)
{
	switch (u->ops->kind) {
	case UNIT_CONTROL: return TRC_KIND_CONTROL;
	case UNIT_MATRIX: return TRC_KIND_MATRIX;
	case UNIT_VECTOR: return TRC_KIND_VECTOR;
	case UNIT_DMA: return TRC_KIND_DMA;
	case UNIT_SRAM: return TRC_KIND_SRAM;
	case UNIT_NOC: return TRC_KIND_NOC;
	case UNIT_DRAM: return TRC_KIND_DRAM;
	default: return TRC_KIND_OTHER;
	}
}

/*
 * The unit's track id, created on first use (-1 when tracing is off or
 * out of memory: trc_close then reports it).  The track is keyed by the
 * unit's (core, kind, index); its label is the unit's name without the
 * core prefix ("core0.dma1" -> "dma1"; chip-level units keep theirs,
 * "dram.ch0").  u->trc_track stores id + 1 so that 0 (from unit_init)
 * means "none yet".
 */
static int unit_track(struct unit *u)
{
	struct trc *t = u->eng ? u->eng->trace : NULL;
	const char *label = u->name;
	int id;

	if (!t)
		return -1;
	if (u->trc_track)
		return u->trc_track - 1;
	if (u->core >= 0 && strchr(u->name, '.'))
		label = strchr(u->name, '.') + 1;
	id = trc_track(t, u->core, trace_kind(u), u->index, label);
	if (id < 0)
		return -1;
	u->trc_track = 1 + id;
	return id;
}

int unit_traced(struct unit *u, cycle_t start, cycle_t end)
{
	int id = unit_track(u);

	return id >= 0 && trc_want(u->eng->trace, id, start, end);
}

void unit_span(struct unit *u, cycle_t start, cycle_t end, const char *name,
	       const char *args_json)
{
	int id = unit_track(u);

	if (id >= 0)
		trc_span(u->eng->trace, id, start, end, name, args_json);
}

/*
 * Flow ids: unique in the trace and below 2^53 (JSON readers in
 * JavaScript hold numbers as doubles): core in the bits from 40 up
 * (8192 cores), dispatch sequence + 1 below (2^40 commands per core).
 */
static uint64_t flow_id(int core, uint64_t seq)
{
	return ((uint64_t)(core < 0 ? 0 : core) << 40) +
	       seq % ((1ull << 40) - 1) + 1;
}

void unit_span_insn(struct unit *u, cycle_t start, cycle_t end,
		    const char *name, const char *args_json,
		    const struct unit_insn *in)
{
	char args[1024], src[300];
	const char *file;
	struct trc_flow f;
	int id, line, n;

	if (!unit_traced(u, start, end))
		return;
	id = u->trc_track - 1;
	n = snprintf(args, sizeof(args), "\"pc\":\"0x%llx\"",
		     (unsigned long long)in->pc);
	if (in->sym && in->sym->src_line &&
	    in->sym->src_line(in->sym->ctx, in->pc, &file, &line) == 0) {
		trc_json_escape(src, sizeof(src), file);
		n += snprintf(args + n, sizeof(args) - (size_t)n,
			      ",\"src\":\"%s:%d\"", src, line);
	}
	if (args_json && *args_json && (size_t)n < sizeof(args))
		snprintf(args + n, sizeof(args) - (size_t)n, ",%s", args_json);
	memset(&f, 0, sizeof(f));
	if (in->flow != UNIT_FLOW_NONE) {
		f.id = flow_id(u->core, in->seq);
		f.out = in->flow == UNIT_FLOW_OUT;
		/* Flows start on the dispatching control unit's one-cycle
		 * instruction slice (control.c). */
		f.from_core = u->core;
		f.from_kind = TRC_KIND_CONTROL;
		f.from_index = 0;
		f.from_start = in->issued;
		f.from_end = in->issued + 1;
	}
	trc_span_flow(u->eng->trace, id, start, end, name, args,
		      in->flow != UNIT_FLOW_NONE ? &f : NULL);
}

void unit_instant(struct unit *u, cycle_t when, const char *name,
		  const char *args_json)
{
	int id = unit_track(u);

	if (id >= 0)
		trc_instant(u->eng->trace, id, when, name, args_json);
}

void unit_counter(struct unit *u, cycle_t when, const char *name,
		  double value)
{
	int id = unit_track(u);

	if (id >= 0)
		trc_counter(u->eng->trace, id, when, name, value);
}
