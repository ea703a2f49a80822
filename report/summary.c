/*
 * summary.c - the run summary and the stat view (summary.h).
 *
 * Units are found by the ids of their counters: a unit is listed where
 * its group's busy counter (ctr_group_busy) appears, in dump order; its
 * stall and, for a matrix engine, its MACs are the entries with the
 * group's ids under the same unit name.  Names are only printed.
 */
#include "summary.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../arch/arch.h"

/* Most -e patterns `npusim stat` takes. */
#define SUMMARY_MAX_PATS 256

/* The entry with counter id under unit (the first len bytes of a name:
 * "core0.matrix"), or NULL. */
static const struct ctr_entry *unit_entry(const struct ctr_sink *s,
					  const char *unit, size_t len, int id)
{
	size_t i;

	for (i = 0; id >= 0 && i < s->n; i++)
		if (s->v[i].id == id && strncmp(s->v[i].name, unit, len) == 0 &&
		    s->v[i].name[len] == '.')
			return &s->v[i];
	return NULL;
}

/* Length of the unit part of a unit counter's name ("core0.matrix" of
 * "core0.matrix.macs"). */
static size_t unit_len(const struct ctr_entry *e)
{
	return strlen(e->name) - strlen(ctr_info[e->id].name) - 1;
}

static double pct(uint64_t v, double of)
{
	return of > 0 ? 100.0 * (double)v / of : 0.0;
}

void summary_print(FILE *fp, const struct ctr_sink *s, uint64_t cycles,
		   double ghz, uint64_t pe)
{
	size_t i;

	fprintf(fp, "cycles: %" PRIu64 " (%.3f us at %.3g GHz)\n", cycles,
		(double)cycles / (ghz * 1e3), ghz);
	fprintf(fp, "%-22s %14s %7s %14s %7s\n", "unit", "busy", "%", "stall", "%");
	for (i = 0; i < s->n; i++) {
		const struct ctr_entry *e = &s->v[i], *st;
		size_t len;
		int g;

		if (e->id < 0)
			continue;
		g = (int)ctr_info[e->id].group;
		if (e->id != ctr_group_busy[g])
			continue;
		len = unit_len(e);
		st = unit_entry(s, e->name, len, ctr_group_stall[g]);
		fprintf(fp, "%-22.*s %14" PRIu64 " %6.1f%% %14" PRIu64 " %6.1f%%\n",
			(int)len, e->name, e->u, pct(e->u, (double)cycles),
			st ? st->u : 0, st ? pct(st->u, (double)cycles) : 0.0);
	}
	/* PE utilisation: useful MACs over what the array could do in the
	 * run, and while it was busy (docs/timing.md: macs / pe_cycles). */
	for (i = 0; i < s->n; i++) {
		const struct ctr_entry *e = &s->v[i], *b;
		size_t len;

		if (e->id != CTR_MATRIX_MACS || !e->u || !cycles)
			continue;
		len = unit_len(e);
		b = unit_entry(s, e->name, len, CTR_MATRIX_BUSY_CYCLES);
		fprintf(fp, "%.*s: %" PRIu64 " MACs, %.1f%% of the array's peak over the run (%.1f%% while busy)\n",
			(int)len, e->name, e->u,
			pct(e->u, (double)pe * (double)cycles),
			b && b->u ? pct(e->u, (double)pe * (double)b->u) : 0.0);
	}
}

/* The region --region names: NAME, or NAME@coreN for one core's copy
 * (the first core's when NAME alone names several); -1 if none. */
static int find_region(const struct ctrout_meta *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->n_regions; i++) {
		const struct ctr_region *r = &m->regions[i];
		char full[160];

		snprintf(full, sizeof(full), "%s@core%d", r->name, r->core);
		if (strcmp(r->name, name) == 0 || strcmp(full, name) == 0)
			return (int)i;
	}
	return -1;
}

int summary_stat(FILE *fp, const struct summary_stat_opts *o,
		 const struct ctr_sink *all, const struct ctrout_meta *run_m,
		 struct diag *d)
{
	const char *pats[SUMMARY_MAX_PATS];
	struct ctrout_meta m = *run_m;
	const struct ctr_sink *src = all;
	struct ctr_sink sel, agg;
	size_t n_pats = 0, i, zeros = 0;
	char *ev = NULL, *tok, *save = NULL;
	int rc, total, k;

	if (o->region) {
		if ((k = find_region(run_m, o->region)) < 0)
			return diag_error(d, diag_nowhere(), NPU_EUSAGE,
					  "--region %s: the program has no region of that name%s",
					  o->region, run_m->n_regions ? "" : " (it has no regions)");
		src = &run_m->regions[k].s;
		m.cycles = run_m->regions[k].cycles;
	}
	m.regions = NULL;
	m.n_regions = 0;
	if (o->events) {
		if (!(ev = malloc(strlen(o->events) + 1)))
			return diag_error(d, diag_nowhere(), NPU_ENOMEM, "out of memory");
		strcpy(ev, o->events);
		for (tok = strtok_r(ev, ",", &save); tok && n_pats < SUMMARY_MAX_PATS;
		     tok = strtok_r(NULL, ",", &save))
			pats[n_pats++] = tok;
	}
	ctr_sink_init(&agg);
	/* As perf stat aggregates CPUs unless told not to: a multi-core
	 * chip's counters are summed over its cores by default. */
	total = o->total >= 0 ? o->total : ARCH_I(run_m->arch, CHIP_CORES) > 1;
	rc = ctrout_select(src, pats, n_pats, o->detail, total, &sel);
	/* Ratios from every counter (a selected counter's denominator may
	 * not be selected itself), aggregated the same way. */
	if (!rc)
		rc = ctrout_select(src, NULL, 0, 1, total, &agg);
	/* The default view leaves zeros out (a 16-core chip has hundreds);
	 * -e and --detail show exactly what they select. */
	if (!rc && !n_pats && !o->detail)
		zeros = ctrout_drop_zeros(&sel);
	m.ratio_src = &agg;
	m.energy_src = src;
	m.no_energy = n_pats > 0;
	m.cores_summed = total ? (int)ARCH_I(m.arch, CHIP_CORES) : 0;
	if (!rc)
		rc = o->x_sep ? ctrout_print_x(fp, o->x_sep, &sel, &m)
			      : ctrout_print(fp, CTROUT_TEXT, &sel, &m);
	if (!rc && zeros && !o->x_sep)
		fprintf(fp, " (%zu counters that are 0 not shown; --detail shows them)\n\n",
			zeros);
	if (!rc && !o->region && !o->x_sep && run_m->n_regions) {
		fprintf(fp, " Regions (npusim stat --region NAME shows one):\n");
		for (i = 0; i < run_m->n_regions; i++)
			fprintf(fp, "   %-24s core %d, %" PRIu64 " entr%s, %" PRIu64 " cycles\n",
				run_m->regions[i].name, run_m->regions[i].core,
				run_m->regions[i].entries,
				run_m->regions[i].entries == 1 ? "y" : "ies",
				run_m->regions[i].cycles);
		fprintf(fp, "\n");
	}
	ctr_sink_free(&sel);
	ctr_sink_free(&agg);
	free(ev);
	if (rc == NPU_ENOMEM)
		return diag_error(d, diag_nowhere(), rc, "out of memory");
	return rc;
}
