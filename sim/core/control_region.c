/*
 * control_region.c - program regions of a core (rbeg/rend markers,
 * docs/timing.md "Regions"): per region name, its entries, cycles and the
 * counters of a fixed scope (struct ctr_scope: this core's units and the
 * chip's, in dump order) added up between each rbeg and its rend.
 *
 * The control unit (control.c) calls ctl_region_marker when the engine's
 * clock reaches a marker's cycle, so a boundary's snapshot sees every
 * counter bumped before it in the event order and none after; markers take
 * no issue slot and change no timing.
 *
 * Invariants:
 *   - regions are kept by name across programs, in order of first
 *     appearance in the programs' region tables (rg.map turns the running
 *     program's region ids into rg.rgns indexes);
 *   - rg.stack[0 .. depth) are the open regions, innermost last; a region
 *     is open at most once (g->open), and rend closes only the innermost;
 *   - a snapshot buffer per depth is allocated on first use and reused;
 *     region and snapshot arrays have scope.n + 1 entries (never 0);
 *   - a program without regions touches none of this (scope built lazily).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control_int.h"
#include "../../trace/trace.h"

/* A closed entry as a slice on the core's "regions" track (a second track
 * of kind control, index 1, so it sorts under the control unit's). */
static void ctl_region_span(struct ctl *c, const struct ctl_rgn *g,
			    cycle_t start, cycle_t end)
{
	struct trc *t = eng_trace(c->u.eng);
	char args[48];

	if (!t)
		return;
	if (!c->rg.track) {
		int id = trc_track(t, c->core, TRC_KIND_CONTROL, 1, "regions");

		if (id < 0)
			return;
		c->rg.track = id + 1;
	}
	if (!trc_want(t, c->rg.track - 1, start, end))
		return;
	snprintf(args, sizeof(args), "\"entry\":%" PRIu64, g->entries);
	trc_span(t, c->rg.track - 1, start, end, g->name, args);
}

/* Close the innermost open region at cycle 'end': its counters since the
 * open, its cycles and one entry are added to the region. */
static void ctl_region_pop(struct ctl *c, cycle_t end)
{
	struct ctl_rframe *f = &c->rg.stack[--c->rg.depth];
	struct ctl_rgn *g = &c->rg.rgns[f->r];

	ctr_scope_add_since(&c->rg.scope, g->ctr, f->snap);
	g->cycles += end - f->start;
	g->entries++;
	g->open = 0;
	ctl_region_span(c, g, f->start, end);
}

/*
 * rbeg/rend at cycle t (= now): id is the program's region index.  The
 * checks name the region and the pc; a fault ends the run.
 */
int ctl_region_marker(struct ctl *c, const struct isa_insn *in, cycle_t t)
{
	uint64_t id = (uint64_t)in->imm;
	struct ctl_rframe *f;
	struct ctl_rgn *g;

	if (id >= c->rg.n_map)
		return ctl_fault(c, t, "%s: region %" PRIu64 " is not in the program's region table (%zu region%s)",
				 isa_op_info[in->op].name, id, c->rg.n_map,
				 c->rg.n_map == 1 ? "" : "s");
	g = &c->rg.rgns[c->rg.map[id]];
	if (in->op == ISA_OP_REND) {
		if (!c->rg.depth)
			return ctl_fault(c, t, "rend %s: no region is open", g->name);
		if (c->rg.stack[c->rg.depth - 1].r != c->rg.map[id])
			return ctl_fault(c, t, "rend %s: the innermost open region is %s (regions close in the reverse order they opened)",
					 g->name, c->rg.rgns[c->rg.stack[c->rg.depth - 1].r].name);
		ctl_region_pop(c, t);
		return 0;
	}
	if (g->open)
		return ctl_fault(c, t, "rbeg %s: the region is already open (regions nest but do not recurse)",
				 g->name);
	if (c->rg.depth == CTL_MAX_REGION_DEPTH)
		return ctl_fault(c, t, "rbeg %s: regions nest at most %d deep on a core",
				 g->name, CTL_MAX_REGION_DEPTH);
	f = &c->rg.stack[c->rg.depth];
	if (!f->snap && !(f->snap = calloc(c->rg.scope.n + 1, sizeof(*f->snap))))
		return NPU_ENOMEM;
	ctr_scope_snap(&c->rg.scope, f->snap);
	f->r = c->rg.map[id];
	f->start = t;
	g->open = 1;
	c->rg.depth++;
	return 0;
}

/*
 * Map the new program's region table onto the core's regions by name,
 * creating those not seen before (so every region of the program is
 * reported, entered or not, and a name keeps its counters across
 * programs).  The scope is built at the first program with regions: every
 * unit exists by then.  Quadratic in the names, once per program load.
 */
int ctl_region_install(struct ctl *c)
{
	size_t k;
	int j;

	c->rg.depth = 0; /* between programs: nothing is open */
	free(c->rg.map);
	c->rg.map = NULL;
	c->rg.n_map = 0;
	if (!c->prog.n_regions)
		return 0;
	if (!c->rg.scope_ok) {
		if (ctr_scope_core(&c->rg.scope, c->u.eng, c->core))
			return NPU_ENOMEM;
		c->rg.scope_ok = 1;
	}
	if (!(c->rg.map = calloc(c->prog.n_regions, sizeof(*c->rg.map))))
		return NPU_ENOMEM;
	for (k = 0; k < c->prog.n_regions; k++) {
		const char *name = c->prog.regions[k];

		for (j = 0; j < c->rg.n_rgns; j++)
			if (!strcmp(c->rg.rgns[j].name, name))
				break;
		if (j == c->rg.n_rgns) {
			struct ctl_rgn *v = realloc(c->rg.rgns, (size_t)(j + 1) *
							      sizeof(*v));

			if (!v)
				return NPU_ENOMEM;
			c->rg.rgns = v;
			memset(&v[j], 0, sizeof(v[j]));
			v[j].name = name;
			if (!(v[j].ctr = calloc(c->rg.scope.n + 1, sizeof(*v[j].ctr))))
				return NPU_ENOMEM;
			c->rg.n_rgns++;
		}
		c->rg.map[k] = j;
		c->rg.n_map = k + 1;
	}
	return 0;
}

void ctl_region_close_all(struct ctl *c, cycle_t end)
{
	while (c->rg.depth)
		ctl_region_pop(c, end);
}

void ctl_region_free(struct ctl *c)
{
	int i;

	for (i = 0; i < c->rg.n_rgns; i++)
		free(c->rg.rgns[i].ctr);
	for (i = 0; i < CTL_MAX_REGION_DEPTH; i++)
		free(c->rg.stack[i].snap);
	free(c->rg.rgns);
	free(c->rg.map);
	ctr_scope_free(&c->rg.scope);
}

/* ---- the public view (control.h) ----------------------------------------- */

int ctl_n_regions(const struct unit *ctl) { return to_cctl(ctl)->rg.n_rgns; }

const struct ctr_scope *ctl_region_scope(const struct unit *ctl)
{
	return &to_cctl(ctl)->rg.scope;
}

void ctl_region(const struct unit *ctl, int k, struct ctl_region_info *ri,
		uint64_t *ctr)
{
	const struct ctl *c = to_cctl(ctl);
	const struct ctl_rgn *g = &c->rg.rgns[k];
	int d;

	ri->name = g->name;
	ri->entries = g->entries;
	ri->cycles = g->cycles;
	memcpy(ctr, g->ctr, c->rg.scope.n * sizeof(*ctr));
	/* Open (a paused or failed run): as if it closed now. */
	for (d = 0; d < c->rg.depth; d++)
		if (c->rg.stack[d].r == k) {
			ri->entries++;
			ri->cycles += eng_now(c->u.eng) - c->rg.stack[d].start;
			ctr_scope_add_since(&c->rg.scope, ctr, c->rg.stack[d].snap);
		}
}
