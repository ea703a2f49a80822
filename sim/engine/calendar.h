/*
 * calendar.h - per-cycle slots of small items for the near future, owned
 * through the engine (eng_calendar), for a unit that makes many deliveries
 * of a few fixed kinds a few cycles ahead and takes each cycle's at once,
 * in one event of its own: the network's flits into router buffers and
 * credits back upstream, its packets' arrivals at their NIs.
 *
 *   c = eng_calendar(e, span, n_lanes, sizes)  a calendar the engine frees
 *   it = cal_add(c, when, lane, sizeof(*it))    a new item for cycle when
 *   v = cal_take(c, t, lane, &n)                cycle t's n items, in the
 *                                               order they were added
 *
 * A calendar is a ring of slots, one per cycle; a slot holds one growing
 * array per lane, and a lane holds items of one type (its size given at
 * creation), so an item is an append: no event, no dispatch on its kind,
 * and no malloc once the arrays have grown; the owner's event at t takes
 * each lane of t's slot.  The engine's queue could carry each item as an
 * event of its own, at a measured cost (docs/noc.md, "Cost": 10-23 % more
 * host instructions in NoC-bound runs), which is why this exists.
 *
 * Contract (asserted in -DNPU_DEBUG builds):
 *  - an item for cycle 'when' is added at now <= when <= now + span;
 *  - the owner takes cycle t's items at cycle t (in an event it scheduled
 *    for t), so a slot holds one cycle's items at a time: the ring has
 *    more slots than the span + 1 cycles from now on.
 * The order of items is the order of cal_add calls: as deterministic as
 * the events that make them.
 */
#ifndef NPU_CALENDAR_H
#define NPU_CALENDAR_H

#include <stddef.h>
#include <stdint.h>

#include "engine.h"

#ifdef NPU_DEBUG
#include <assert.h>
#endif

/* Lanes a calendar may have: every slot has room for this many, so that
 * finding a lane is a shift by a constant (the calendars are small: a
 * few slots of a few lanes). */
#define CAL_MAX_LANES 4
#define CAL_LANE_SHIFT 2

/* One cycle's items of one lane. */
struct cal_lane {
	void *v;                 /* items, the lane's size each */
	uint32_t n, cap;         /* used, allocated */
};

/*
 * The body is here only for the inline functions below: the network
 * appends an item per flit per hop and per credit, and a call each was
 * 1.5-3.6 % more host instructions in NoC-bound runs.  Read and write it
 * only through them.
 */
typedef struct cal {
	struct cal_lane *slot;   /* lane l of cycle t at
				    [(t & mask) << CAL_LANE_SHIFT | l] */
	uint64_t mask;           /* slots - 1 (a power of two) */
	unsigned n_lanes;        /* lanes in use per slot (the others stay
				    empty) */
	uint64_t n;              /* items held, every slot and lane */
	cycle_t span;            /* items go at most this far ahead */
	size_t size[CAL_MAX_LANES]; /* bytes per item, per lane */
	const eng *e;            /* the owner's engine (now, for checks) */
} cal;

/* Use eng_calendar; these are its (a calendar from cal_new is the
 * caller's to free).  n_lanes <= CAL_MAX_LANES; NULL: out of memory. */
cal *cal_new(const eng *e, cycle_t span, unsigned n_lanes, const size_t *size);
void cal_free(cal *c);

/* Grow l's array for items of 'size' bytes (cal_add's rare case): 0 or
 * NPU_ENOMEM with l unchanged. */
int cal_grow(struct cal_lane *l, size_t size) NPU_WUR;

static inline struct cal_lane *cal_lane_of(const cal *c, cycle_t when,
					   unsigned lane)
{
	return &c->slot[((size_t)(when & c->mask) << CAL_LANE_SHIFT) + lane];
}

/* A new item at the end of lane 'lane' of cycle 'when', for the caller to
 * fill in; NULL when out of memory (nothing added). */
static inline void *cal_add(cal *c, cycle_t when, unsigned lane, size_t size)
{
	struct cal_lane *l = cal_lane_of(c, when, lane);

#ifdef NPU_DEBUG
	assert(lane < c->n_lanes && size == c->size[lane]);
	assert(when >= eng_now(c->e) && when - eng_now(c->e) <= c->span);
#endif
	if (l->n == l->cap && cal_grow(l, size))
		return NULL;
	c->n++;
	return (char *)l->v + (size_t)l->n++ * size;
}

/* The number of cycle when's items in a lane. */
static inline uint32_t cal_count(const cal *c, cycle_t when, unsigned lane)
{
	return cal_lane_of(c, when, lane)->n;
}

/*
 * Take cycle when's items of a lane: the lane is empty afterwards, and
 * the items stay readable, in the order they were added, until the next
 * cal_add for this cycle and lane.  *n = their number.
 */
static inline void *cal_take(cal *c, cycle_t when, unsigned lane, uint32_t *n)
{
	struct cal_lane *l = cal_lane_of(c, when, lane);

	*n = l->n;
	c->n -= l->n;
	l->n = 0;
	return l->v;
}

/* Items held, every cycle and lane. */
static inline uint64_t cal_pending(const cal *c)
{
	return c->n;
}

/* The first cycle at or after 'from' with an item in some lane, CYCLE_MAX
 * if none; every item must lie in [from, from + span]. */
cycle_t cal_next(const cal *c, cycle_t from);

#endif
