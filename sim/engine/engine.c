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
 * pop) go into a ring of per-cycle slots, each a list kept sorted by pri
 * (equal pri in insertion order, which is seq order); later ones into a
 * binary min-heap.  Almost every event of a chip lands within a few
 * hundred cycles, so scheduling and popping are O(1) instead of
 * O(log n); a bitmap of non-empty slots finds the next cycle.  Whenever
 * base advances, heap events that fall into the window move to their
 * slot, before any event at the new base runs.
 *
 * A calendar event lives in a node from a free list, the most recently
 * freed first (still in cache), and is dispatched where it lies: the node
 * leaves its slot's list before the handler runs and goes back to the
 * free list after it, so the handler's event pointer stays valid whatever
 * the handler schedules.  Nodes come in chunks and never move.
 *
 * Invariants:
 *  - every heap event has when >= base + ENG_CAL_SLOTS and every slot
 *    event when < base + ENG_CAL_SLOTS, so the calendar empties first;
 *  - slot when % ENG_CAL_SLOTS holds only events of cycle when, sorted by
 *    (pri, seq): heap events moved there were scheduled before any direct
 *    insert for that cycle (a direct insert needs when < base + slots,
 *    i.e. a later base), so appending keeps seq order;
 *  - a slot's bit in 'busy' is set iff its list is non-empty (n_busy
 *    counts them), and its head and tail are both NULL or both not;
 *  - heap[0..n_heap) satisfies the min-heap property under ev_before()
 *    (checked at every new cycle with -DNPU_DEBUG).
 *  - now never decreases: eng_schedule_gen() refuses a 'when' before now,
 *    and the run loop only moves now forward to the popped event's cycle.
 *  - An event for the current cycle scheduled from inside a dispatch is
 *    pushed, not called, so it runs after the scheduling handler returns:
 *    no model is ever re-entered (STYLE.md convention 7).
 *  - The engine owns every registered unit and every calendar it made:
 *    eng_free() destroys the units, then frees the calendars.
 *
 * Cost: O(1) per schedule and pop within the window (nearly always an
 * append to a list, and nothing allocated per event), O(log n) for the
 * rare event further out.
 */
#include "engine.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../prog/prog.h"
#include "../../trace/trace.h"
#include "calendar.h"
#include "unit.h"

/* Cycles the calendar covers (a power of two); the bitmap has one bit per
 * slot. */
#define ENG_CAL_SLOTS 1024
#define ENG_CAL_WORDS (ENG_CAL_SLOTS / 64)
/* Nodes allocated at once (14 KiB): a busy chip needs a few chunks. */
#define ENG_CHUNK_NODES 256

/* A calendar event: the record its handler sees, and a link. */
struct node {
	struct ev ev;
	struct node *next;      /* next in its slot's list or the free list */
};

/* Nodes allocated together, freed together by eng_free. */
struct chunk {
	struct chunk *next;     /* the chunk allocated before this one */
	struct node nodes[ENG_CHUNK_NODES];
};

/* A calendar the engine made for a unit (eng_calendar), in a list. */
struct owned_cal {
	struct owned_cal *next; /* the one made before */
	struct cal *c;          /* the calendar */
};

/* The events of one cycle, a list sorted by (pri, seq); NULL, NULL when
 * empty. */
struct slot {
	struct node *head, *tail;
};

struct eng {
	struct eng_pub pub;     /* first: engine.h's inline getters read it */
	cycle_t base;           /* the calendar covers [base, base + slots) */
	cycle_t calm_end;       /* events before it need none of the run
				   loop's per-cycle checks (calm_update) */
	struct node *free;      /* unused nodes, the most recently freed first */
	uint64_t next_seq;      /* insertion counter: 2^64 never wraps in a run */
	uint64_t busy[ENG_CAL_WORDS]; /* non-empty slots */
	size_t n_busy;          /* their number: an empty calendar (a unit
				   working alone asks eng_horizon) costs no
				   search */
	struct slot cal[ENG_CAL_SLOTS]; /* the near future, by cycle */
	struct chunk *chunks;   /* every node's chunk, the newest first */
	struct ev *heap;        /* min-heap of the events beyond the window */
	size_t n_heap, cap;     /* used, allocated */
	struct unit **units;    /* registered units, in registration order */
	size_t n_units, cap_units; /* units used, allocated */
	struct owned_cal *cals; /* the units' calendars (eng_calendar), the
				   newest first */
	cycle_t sample_at;      /* next sampling boundary, CYCLE_MAX = off */
	cycle_t sample_every;   /* sampling interval in cycles */
	eng_sample_fn sample_fn; /* sampler (eng_set_sampler) */
	void *sample_ctx;       /* its context */
	eng_poll_fn poll;       /* long-run hook (interrupt, progress), or NULL */
	void *poll_ctx;         /* its context */
	uint32_t poll_left;     /* events until the next poll */
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

static cycle_t cycle_min(cycle_t a, cycle_t b) { return a < b ? a : b; }

/* The cycle after c, CYCLE_MAX staying put. */
static cycle_t cycle_next(cycle_t c) { return c < CYCLE_MAX ? c + 1 : c; }

/*
 * The run loop tests, before an event, whether to pause, time out or
 * sample; each answer depends on the event's cycle only.  calm_end is the
 * first cycle for which one could be yes (the pause cycle + 1, the limit
 * + 1, the next sampling boundary): events before it skip the tests.
 * Recomputed whenever one of the three moves.
 */
static void calm_update(eng *e)
{
	e->calm_end = cycle_min(cycle_min(cycle_next(e->run_stop),
					  cycle_next(e->run_max)),
				e->sample_at);
}

eng *eng_new(void)
{
	eng *e = calloc(1, sizeof(struct eng));

	if (e) {
		e->sample_at = CYCLE_MAX; /* no sampler */
		e->run_stop = e->run_max = CYCLE_MAX;
		calm_update(e);
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
		(e->pub.now / e->sample_every + 1) * e->sample_every : CYCLE_MAX;
	calm_update(e);
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
	calm_update(e);
}

void eng_free(eng *e)
{
	struct owned_cal *oc;
	struct chunk *c;
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
	while ((oc = e->cals)) {
		e->cals = oc->next;
		cal_free(oc->c);
		free(oc);
	}
	while ((c = e->chunks)) {
		e->chunks = c->next;
		free(c);
	}
	free(e->heap);
	free(e);
}

void eng_set_trace(eng *e, struct trc *t) { e->pub.trace = t; }
void eng_set_diag(eng *e, struct diag *d) { e->pub.diag = d; }
void eng_set_values(eng *e, int on) { e->pub.no_values = !on; }
void eng_set_fast_forward(eng *e, int on) { e->pub.no_ff = !on; }

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

struct cal *eng_calendar(eng *e, cycle_t span, unsigned n_lanes,
			 const size_t *size)
{
	struct owned_cal *o = malloc(sizeof(*o));

	if (!o)
		return NULL;
	if (!(o->c = cal_new(e, span, n_lanes, size))) {
		free(o);
		return NULL;
	}
	o->next = e->cals;
	e->cals = o;
	return o->c;
}

/* Give the (empty) free list a chunk of new nodes, in address order. */
static int nodes_refill(eng *e)
{
	struct chunk *c = malloc(sizeof(*c));
	size_t i;

	if (!c)
		return NPU_ENOMEM;
	c->next = e->chunks;
	e->chunks = c;
	for (i = 0; i + 1 < ENG_CHUNK_NODES; i++)
		c->nodes[i].next = &c->nodes[i + 1];
	c->nodes[ENG_CHUNK_NODES - 1].next = e->free;
	e->free = c->nodes;
	return 0;
}

/* A node from the free list, NULL when out of memory. */
static struct node *node_get(eng *e)
{
	struct node *n;

	if (!e->free && nodes_refill(e))
		return NULL;
	n = e->free;
	e->free = n->next;
	return n;
}

static inline void node_put(eng *e, struct node *n)
{
	n->next = e->free;
	e->free = n;
}

/*
 * Link n into its calendar slot k, behind every event of its cycle with
 * pri <= its own.  Almost always an append; an earlier phase of the same
 * cycle (a completion scheduled by an arbiter) goes before later ones.
 */
static inline __attribute__((always_inline)) void
slot_insert(eng *e, size_t k, struct node *n)
{
	struct slot *s = &e->cal[k];
	struct node *t = s->tail, **pp;

	n->next = NULL;
	if (!t) {
		s->head = s->tail = n;
		e->busy[k >> 6] |= 1ULL << (k & 63);
		e->n_busy++;
	} else if (t->ev.pri <= n->ev.pri) {
		t->next = n;
		s->tail = n;
	} else {
		for (pp = &s->head; (*pp)->ev.pri <= n->ev.pri; pp = &(*pp)->next)
			;
		n->next = *pp;
		*pp = n;
	}
}

/* Unlink the first event of slot s, which must not be empty. */
static inline __attribute__((always_inline)) struct node *
slot_pop(eng *e, struct slot *s)
{
	struct node *n = s->head;

	if (!(s->head = n->next)) {
		size_t k = (size_t)(n->ev.when & (ENG_CAL_SLOTS - 1));

		s->tail = NULL;
		e->busy[k >> 6] &= ~(1ULL << (k & 63));
		e->n_busy--;
	}
	return n;
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

/* Does the heap's first event fall into the window from base? */
static inline int heap_due(const eng *e)
{
	return e->n_heap && e->heap[0].when - e->base < ENG_CAL_SLOTS;
}

/* Pull the heap events that fall into the window into their slots (in
 * heap order, i.e. seq order per cycle). */
static __attribute__((noinline)) int heap_pull(eng *e)
{
	struct node *n;

	while (heap_due(e)) {
		if (!(n = node_get(e)))
			return NPU_ENOMEM;
		heap_pop(e, &n->ev);
		slot_insert(e, (size_t)(n->ev.when & (ENG_CAL_SLOTS - 1)), n);
	}
	return 0;
}

/* Move base to 'when', with the heap events that now fall into the
 * window (once per cycle with events: the pull is rarely needed). */
static inline int base_advance(eng *e, cycle_t when)
{
	e->base = when;
	return heap_due(e) ? heap_pull(e) : 0;
}

/*
 * Move the window back to 'when' (< base): every calendar event goes to
 * the heap and the window refills from there.  Only a run that ended on
 * cancelled events (they advance base, not now) and is then given new
 * work before base sees this; it costs O(n log n) once.
 */
static int base_rebase(eng *e, cycle_t when)
{
	struct node *n;
	size_t k;
	int rc;

	for (k = 0; k < ENG_CAL_SLOTS; k++) {
		struct slot *s = &e->cal[k];

		while ((n = s->head)) {
			s->head = n->next;
			rc = heap_push(e, &n->ev);
			node_put(e, n);
			if (rc)
				return rc;
		}
		s->tail = NULL;
	}
	memset(e->busy, 0, sizeof(e->busy));
	e->n_busy = 0;
	return base_advance(e, when);
}

/* Fill in a new event. */
static inline __attribute__((always_inline)) void
ev_fill(eng *e, struct ev *p, cycle_t when, enum ev_pri pri, struct unit *u,
	unsigned kind, uint64_t arg, const uint32_t *genp)
{
	p->when = when;
	p->seq = e->next_seq++;
	p->unit = u;
	p->genp = genp;
	/* Snapshot the generation now; a later bump of *genp cancels us. */
	p->gen = genp ? *genp : 0;
	p->arg = arg;
	p->pri = (uint16_t)pri;
	p->kind = (uint16_t)kind;
}

/*
 * The rare cases of schedule(), out of line so that its common one makes
 * no call and saves no register: a 'when' in the past (refused), behind
 * the window (which moves back), beyond it (the heap), or no free node.
 */
static __attribute__((noinline)) int
schedule_slow(eng *e, cycle_t when, enum ev_pri pri, struct unit *u,
	      unsigned kind, uint64_t arg, const uint32_t *genp)
{
	struct node *n;
	struct ev ev;
	int rc;

	if (when < e->pub.now)
		return NPU_EINTERNAL; /* a model tried to schedule in the past */
	if (when < e->base && (rc = base_rebase(e, when)))
		return rc;
	if (when - e->base >= ENG_CAL_SLOTS) {
		ev_fill(e, &ev, when, pri, u, kind, arg, genp);
		if ((rc = heap_push(e, &ev)))
			return rc;
	} else {
		if (!(n = node_get(e)))
			return NPU_ENOMEM;
		ev_fill(e, &n->ev, when, pri, u, kind, arg, genp);
		slot_insert(e, (size_t)(when & (ENG_CAL_SLOTS - 1)), n);
	}
	return 0;
}

/* eng_schedule and eng_schedule_gen, inlined into both (the per-event
 * path: a call and its register saves were a tenth of an event).  The
 * common case is an event within the window from a free node. */
static inline __attribute__((always_inline)) int
schedule(eng *e, cycle_t when, enum ev_pri pri, struct unit *u,
	 unsigned kind, uint64_t arg, const uint32_t *genp)
{
	struct node *n = e->free;

	/* 'when' before base also fails the window test (it wraps) */
	if (when < e->pub.now || when - e->base >= ENG_CAL_SLOTS || !n)
		return schedule_slow(e, when, pri, u, kind, arg, genp);
	e->free = n->next;
	ev_fill(e, &n->ev, when, pri, u, kind, arg, genp);
	slot_insert(e, (size_t)(when & (ENG_CAL_SLOTS - 1)), n);
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

/* Slot index of the first non-empty slot at or after base (in ring order),
 * or -1 if the calendar is empty. */
static int busy_next(const eng *e)
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

/* Cycle of the next event into *when; 0 if the queue is empty. */
static int q_next(const eng *e, cycle_t *when)
{
	int k = e->n_busy ? busy_next(e) : -1;

	if (k >= 0)
		*when = e->base + (((cycle_t)k - e->base) & (ENG_CAL_SLOTS - 1));
	else if (e->n_heap)
		*when = e->heap[0].when;
	else
		return 0;
	return 1;
}

/* Number of events pending, stale ones included: O(n), for tests. */
size_t eng_pending(const eng *e)
{
	const struct node *n;
	size_t k, count = e->n_heap;

	for (k = 0; k < ENG_CAL_SLOTS; k++)
		for (n = e->cal[k].head; n; n = n->next)
			count++;
	return count;
}

/* Was the event cancelled after it was scheduled? */
static inline int ev_stale(const struct ev *ev)
{
	return ev->genp && *ev->genp != ev->gen;
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
	const struct node *n;

	/* the busy slots in cycle order from base, word by word */
	while (t < end) {
		size_t k = (size_t)(t & (ENG_CAL_SLOTS - 1));
		uint64_t m = e->busy[k >> 6] >> (k & 63);

		if (!m) {
			t += 64 - (k & 63);
			continue;
		}
		t += (cycle_t)__builtin_ctzll(m);
		if (t >= end)
			break;
		for (n = e->cal[t & (ENG_CAL_SLOTS - 1)].head; n; n = n->next)
			if (!mine(ctx, &n->ev))
				return horizon_bounds(e, t);
		t++;
	}
	return horizon_bounds(e, e->n_heap ? e->heap[0].when : CYCLE_MAX);
}

cycle_t eng_horizon(const eng *e)
{
	cycle_t when;

	return horizon_bounds(e, q_next(e, &when) ? when : CYCLE_MAX);
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

	if (!e->pub.diag)
		diag_init(&quiet, NULL);
	for (i = 0; i < e->n_units; i++) {
		struct unit *u = e->units[i];

		why[0] = '\0';
		if (!u->ops->blocked || !u->ops->blocked(u, why, sizeof(why)))
			continue;
		if (!stuck)
			(void)diag_error(e->pub.diag ? e->pub.diag : &quiet,
					 diag_nowhere(), NPU_EDEADLOCK,
					 "deadlock at cycle %llu: no event pending but units still have work",
					 (unsigned long long)e->pub.now);
		stuck++;
		diag_note(e->pub.diag ? e->pub.diag : &quiet, diag_nowhere(), "%s: %s",
			  u->name, why[0] ? why : "blocked");
		if (e->pub.trace) {
			char args[300];

			trc_json_member(args, sizeof(args), "waits",
					why[0] ? why : "blocked");
			unit_instant(u, e->pub.now, "deadlock", args);
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
	cycle_t when = e->pub.now;
	const char *msg = e->pub.diag && e->pub.diag->last[0] ? e->pub.diag->last :
						       npu_strerror(rc);

	if (e->pub.diag && e->pub.diag->last_run.core == u->core &&
	    e->pub.diag->last_run.cycle > when)
		when = e->pub.diag->last_run.cycle;
	trc_json_member(args, sizeof(args), "error", msg);
	unit_instant(u, when, rc == NPU_EFAULT ? "fault" : "error", args);
}

/*
 * The run loop.  One step: pop the earliest event -> drop it if cancelled
 * -> stop if it lies beyond max_cycles (watchdog) -> sample counters if a
 * sampling boundary was crossed (tracing only) -> advance now -> dispatch
 * to its unit, stopping on a fault (traced as an instant) -> every
 * ENG_POLL_EVENTS events, the poll hook (interrupt, progress).  When the
 * queue is empty, every unit is asked whether it still has work: if one
 * has, the run deadlocked.
 *
 * The pause, watchdog and sampling tests depend on the event's cycle
 * only, so they are made for the first event of each cycle (and for
 * every event from calm_end on); the others pop straight from base's
 * slot, about two thirds of the events of a busy chip.
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
	struct slot *cur = &e->cal[e->base & (ENG_CAL_SLOTS - 1)];
	struct node *n;
	struct unit *u;
	cycle_t when;
	int rc = 0;

	e->run_stop = stop;
	e->run_max = max_cycles;
	calm_update(e);
	for (;;) {
		/* cur is base's slot: only this loop moves base */
		if (cur->head && e->base < e->calm_end) {
			/* more of a cycle that passed the tests below */
			n = slot_pop(e, cur);
			if (ev_stale(&n->ev)) {
				node_put(e, n);
				local.n_cancelled++;
				continue;
			}
		} else {
			if (cur->head)
				when = e->base;
			else if (!q_next(e, &when))
				break; /* drained */
			/* A pause leaves the event queued: continuing pops it
			 * with its own (when, pri, seq), so a paused and
			 * continued run dispatches exactly what an unpaused
			 * one does. */
			if (stop < max_cycles && when > stop) {
				e->pub.now = stop;
				local.paused = 1;
				break;
			}
			if (when != e->base && (rc = base_advance(e, when)))
				break;
			cur = &e->cal[when & (ENG_CAL_SLOTS - 1)];
			n = slot_pop(e, cur);
#ifdef NPU_DEBUG
			heap_check(e);
#endif
			if (ev_stale(&n->ev)) {
				node_put(e, n);
				local.n_cancelled++;
				continue;
			}
			if (when > max_cycles) {
				/* Report the limit itself, not the cycle of the
				 * event that would have passed it: work up to
				 * max_cycles was done. */
				node_put(e, n);
				e->pub.now = max_cycles;
				if (e->pub.diag)
					(void)diag_error(e->pub.diag, diag_nowhere(),
							 NPU_ETIMEOUT,
							 "cycle limit %llu reached (raise --max-cycles)",
							 (unsigned long long)max_cycles);
				rc = NPU_ETIMEOUT;
				break;
			}
			if (when >= e->sample_at)
				eng_sample(e, when);
		}
		e->pub.now = n->ev.when;
		local.n_events++;
		u = n->ev.unit;
		/* in place: the node is nobody else's until it goes back */
		rc = u->ops->on_event(u, &n->ev);
		node_put(e, n);
		if (rc) {
			if (e->pub.trace)
				fault_instant(e, u, rc);
			break;
		}
		/* Counted always, called rarely: the countdown keeps the hook
		 * off the per-event path (poll_left wraps harmlessly when no
		 * hook is set). */
		if (--e->poll_left == 0) {
			e->poll_left = ENG_POLL_EVENTS;
			if (e->poll && (rc = e->poll(e->poll_ctx, e->pub.now)))
				break;
		}
	}
	/* now is the last dispatched cycle (or max_cycles on a timeout). */
	local.end_cycle = e->pub.now;
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
	struct trc *t = u->eng ? eng_trace(u->eng) : NULL;
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

	return id >= 0 && trc_want(eng_trace(u->eng), id, start, end);
}

void unit_span(struct unit *u, cycle_t start, cycle_t end, const char *name,
	       const char *args_json)
{
	int id = unit_track(u);

	if (id >= 0)
		trc_span(eng_trace(u->eng), id, start, end, name, args_json);
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
	trc_span_flow(eng_trace(u->eng), id, start, end, name, args,
		      in->flow != UNIT_FLOW_NONE ? &f : NULL);
}

void unit_instant(struct unit *u, cycle_t when, const char *name,
		  const char *args_json)
{
	int id = unit_track(u);

	if (id >= 0)
		trc_instant(eng_trace(u->eng), id, when, name, args_json);
}

void unit_counter(struct unit *u, cycle_t when, const char *name,
		  double value)
{
	int id = unit_track(u);

	if (id >= 0)
		trc_counter(eng_trace(u->eng), id, when, name, value);
}
