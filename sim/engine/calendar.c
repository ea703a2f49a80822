/*
 * calendar.c - per-cycle slots of small items (calendar.h): construction,
 * growth and the search for the next busy cycle; adding, reading and
 * clearing are inline in the header.
 *
 * Invariants:
 *  - slots = mask + 1 is a power of two above span + 1, so the cycles
 *    now .. now + span, whose items may all be held at once (cycle now's
 *    not yet taken while an event of now adds for now + span), never
 *    share a slot;
 *  - n is the sum of every lane's count, over every slot.
 */
#include "calendar.h"

#include <stdlib.h>

cal *cal_new(const eng *e, cycle_t span, unsigned n_lanes, const size_t *size)
{
	cal *c;
	uint64_t slots;
	unsigned k;

	if (!n_lanes || n_lanes > CAL_MAX_LANES || span > UINT32_MAX)
		return NULL;
	if (!(c = calloc(1, sizeof(*c))))
		return NULL;
	for (slots = 2; slots <= span + 1; slots *= 2)
		;
	c->mask = slots - 1;
	c->n_lanes = n_lanes;
	c->span = span;
	c->e = e;
	for (k = 0; k < n_lanes; k++)
		c->size[k] = size[k];
	c->slot = calloc((size_t)slots << CAL_LANE_SHIFT, sizeof(*c->slot));
	if (!c->slot) {
		free(c);
		return NULL;
	}
	return c;
}

void cal_free(cal *c)
{
	size_t k;

	if (!c)
		return;
	for (k = 0; k < (size_t)(c->mask + 1) << CAL_LANE_SHIFT; k++)
		free(c->slot[k].v);
	free(c->slot);
	free(c);
}

/* Out of line: the arrays double (16 items at first) until they hold a
 * busy cycle, so after warm-up cal_add never comes here. */
__attribute__((noinline)) int cal_grow(struct cal_lane *l, size_t size)
{
	uint32_t cap = l->cap ? l->cap * 2 : 16;
	void *v = realloc(l->v, cap * size);

	if (!v)
		return NPU_ENOMEM;
	l->v = v;
	l->cap = cap;
	return 0;
}

cycle_t cal_next(const cal *c, cycle_t from)
{
	cycle_t t;
	unsigned k;

	if (!c->n)
		return CYCLE_MAX;
	for (t = from; t <= from + c->span; t++) {
		const struct cal_lane *l = cal_lane_of(c, t, 0);

		for (k = 0; k < c->n_lanes; k++)
			if (l[k].n)
				return t;
	}
	return CYCLE_MAX;
}
