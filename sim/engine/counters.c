/*
 * counters.c - counter table and the ordered sink they are dumped into.
 *
 * Two halves with different costs.  The simulation side is only the
 * ctr_info table: units bump u->ctr[CTR_X_Y], an array index fixed at
 * compile time, and no name is looked at while the simulation runs
 * (STYLE.md convention 9; DRAMsim3's string-keyed maps are what this
 * avoids).  The output side is the sink: after the run chip_dump pushes
 * every counter as a (full name, value) pair, in a fixed order, and the
 * writers in report/ turn the list into JSON, CSV or the text summary.
 *
 * The derived ratios of the text summary (derived.def) are a second table
 * keyed by counter id, ctr_derived[], next to ctr_info[].
 *
 * Invariants:
 *  - ctr_info[i] describes counter id i for every i < CTR_N: designated
 *    initialisers expanded from counters.def, so a row can never drift to
 *    the wrong index.
 *  - ctr_group_names[g] equals the unit_ops.kind string of the units of
 *    group g ("control", "matrix", ...): chip.c finds a unit's rows by
 *    that string.
 *  - Sink entries keep emission order; names are owned by the sink.  An
 *    allocation failure drops that entry and sets oom, so a writer can
 *    refuse to emit an incomplete file instead of a silently short one.
 */
#include "counters.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/diag.h"
#include "engine.h"
#include "unit.h"

/* One row per CTR() line of counters.def, at index CTR_<GROUP>_<NAME>. */
const struct ctr_info ctr_info[CTR_N] = {
#define CTR(g, n, json, unit, desc) [CTR_##g##_##n] = { CTR_GRP_##g, json, unit, desc },
#include "counters.def"
#undef CTR
};

const int ctr_group_busy[CTR_N_GRP] = {
	[CTR_GRP_CONTROL] = CTR_CONTROL_BUSY_CYCLES,
	[CTR_GRP_MATRIX] = CTR_MATRIX_BUSY_CYCLES,
	[CTR_GRP_VECTOR] = CTR_VECTOR_BUSY_CYCLES,
	[CTR_GRP_DMA] = CTR_DMA_BUSY_CYCLES,
	[CTR_GRP_SRAM] = -1,
	[CTR_GRP_DRAM] = CTR_DRAM_BUSY_CYCLES,
	[CTR_GRP_NOC] = -1,
};
const int ctr_group_stall[CTR_N_GRP] = {
	[CTR_GRP_CONTROL] = CTR_CONTROL_STALL_CYCLES,
	[CTR_GRP_MATRIX] = CTR_MATRIX_STALL_CYCLES,
	[CTR_GRP_VECTOR] = CTR_VECTOR_STALL_CYCLES,
	[CTR_GRP_DMA] = CTR_DMA_STALL_CYCLES,
	[CTR_GRP_SRAM] = -1,
	[CTR_GRP_DRAM] = -1,
	[CTR_GRP_NOC] = -1,
};

/* One row per derived.def line, at the numerator's id; the rest are 0
 * (CTR_SH_NONE). */
const struct ctr_derived ctr_derived[CTR_N] = {
#define DERIVED(id, shape_, text_, d1, d2, d3)                              \
	[CTR_##id] = { .shape = CTR_SH_##shape_, .text = text_,             \
		       .den = { CTR_##d1, CTR_##d2, CTR_##d3 } },
#include "derived.def"
};

/* Group -> unit kind string; also the section titles of docs/counters.md.
 * "noc" has no unit yet: its rows are documented ahead of the model. */
const char *const ctr_group_names[CTR_N_GRP] = {
	[CTR_GRP_CONTROL] = "control", [CTR_GRP_MATRIX] = "matrix",
	[CTR_GRP_VECTOR] = "vector",   [CTR_GRP_DMA] = "dma",
	[CTR_GRP_SRAM] = "sram",       [CTR_GRP_DRAM] = "dram",
	[CTR_GRP_NOC] = "noc",
};

void ctr_sink_init(struct ctr_sink *s)
{
	memset(s, 0, sizeof(*s));
}

void ctr_sink_free(struct ctr_sink *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i].name);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/*
 * Append an entry named "prefix.name" ("name" alone when prefix is NULL or
 * empty) and return it for the caller to fill; NULL and oom on failure.
 * The array doubles from 64 entries: a typical chip dumps a few hundred.
 */
static struct ctr_entry *sink_push(struct ctr_sink *s, const char *prefix,
				   const char *name)
{
	struct ctr_entry *e;
	size_t len;

	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct ctr_entry *v = realloc(s->v, cap * sizeof(*v));

		if (!v) {
			s->oom = 1;
			return NULL;
		}
		s->v = v;
		s->cap = cap;
	}
	/* prefix + '.' + name + NUL (one byte spare for an empty prefix). */
	len = (prefix ? strlen(prefix) + 1 : 0) + strlen(name) + 1;
	/* n is bumped only once the entry is complete: a failed name leaves
	 * the slot unused rather than an entry with a NULL name. */
	e = &s->v[s->n];
	memset(e, 0, sizeof(*e));
	e->id = -1;
	e->name = malloc(len);
	if (!e->name) {
		s->oom = 1;
		return NULL;
	}
	if (prefix && *prefix)
		snprintf(e->name, len, "%s.%s", prefix, name);
	else
		snprintf(e->name, len, "%s", name);
	s->n++;
	return e;
}

/* Integer counter (every counters.def row is one). */
void ctr_emit_u64(struct ctr_sink *s, const char *prefix, const char *name,
		  uint64_t v)
{
	struct ctr_entry *e = sink_push(s, prefix, name);

	if (e)
		e->u = v;
}

/* Derived float value (bandwidth, averages): written with is_float so the
 * writers print it as a real number and the summary can tell it apart. */
void ctr_emit_f64(struct ctr_sink *s, const char *prefix, const char *name,
		  double v)
{
	struct ctr_entry *e = sink_push(s, prefix, name);

	if (e) {
		e->f = v;
		e->is_float = 1;
	}
}

void ctr_emit_id(struct ctr_sink *s, const char *unit, enum ctr_id id,
		 uint64_t v)
{
	struct ctr_entry *e = sink_push(s, unit, ctr_info[id].name);

	if (e) {
		e->u = v;
		e->id = (int)id;
	}
}

void ctr_emit_copy(struct ctr_sink *s, const char *name,
		   const struct ctr_entry *e)
{
	struct ctr_entry *o = sink_push(s, NULL, name ? name : e->name);

	if (o) {
		o->u = e->u;
		o->f = e->f;
		o->is_float = e->is_float;
		o->id = e->id;
	}
}

uint64_t ctr_sum(const struct ctr_sink *s, enum ctr_id id)
{
	uint64_t t = 0;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i].id == (int)id)
			t += s->v[i].u;
	return t;
}

uint64_t ctr_max(const struct ctr_sink *s, enum ctr_id id)
{
	uint64_t m = 0;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i].id == (int)id && s->v[i].u > m)
			m = s->v[i].u;
	return m;
}

/* Entry by full name, or NULL.  Linear: used after the run by the text
 * summary and the tests, a few lookups over a few hundred entries. */
const struct ctr_entry *ctr_find(const struct ctr_sink *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->v[i].name, name) == 0)
			return &s->v[i];
	return NULL;
}

/* ---- counter scopes (program regions) -------------------------------------*/

/*
 * Dump order of two units: a core's own before the chip's, then by kind
 * (enum unit_kind is control, matrix, vector, dma, sram, dram, noc: the
 * order of chip_dump), then by instance.  Registration order breaks the
 * remaining ties, so the order is total and deterministic.
 */
struct scope_ent {
	struct unit *u;   /* the unit */
	size_t reg;       /* its registration index */
};

static int scope_cmp(const void *pa, const void *pb)
{
	const struct scope_ent *a = pa, *b = pb;
	int ca = a->u->core < 0, cb = b->u->core < 0;

	if (ca != cb)
		return ca - cb;
	if (a->u->ops->kind != b->u->ops->kind)
		return a->u->ops->kind < b->u->ops->kind ? -1 : 1;
	if (a->u->index != b->u->index)
		return a->u->index < b->u->index ? -1 : 1;
	return a->reg < b->reg ? -1 : a->reg > b->reg;
}

int ctr_scope_core(struct ctr_scope *sc, struct eng *e, int core)
{
	size_t n_u = eng_n_units(e), i, k, n = 0;
	struct scope_ent *ents = calloc(n_u + 1, sizeof(*ents));
	int id;

	memset(sc, 0, sizeof(*sc));
	if (!ents)
		return NPU_ENOMEM;
	for (i = 0; i < n_u; i++) {
		struct unit *u = eng_unit(e, i);

		/* UNIT_OTHER (drivers, benches) owns no counters. */
		if ((u->core == core || u->core < 0) &&
		    u->ops->kind < UNIT_OTHER) {
			ents[n].u = u;
			ents[n].reg = i;
			n++;
		}
	}
	qsort(ents, n, sizeof(*ents), scope_cmp);
	for (i = 0; i < n; i++)
		for (id = 0; id < CTR_N; id++)
			sc->n += (int)ctr_info[id].group == (int)ents[i].u->ops->kind;
	sc->v = calloc(sc->n + 1, sizeof(*sc->v));
	if (!sc->v) {
		free(ents);
		sc->n = 0;
		return NPU_ENOMEM;
	}
	for (i = 0, k = 0; i < n; i++)
		for (id = 0; id < CTR_N; id++)
			if ((int)ctr_info[id].group == (int)ents[i].u->ops->kind) {
				sc->v[k].u = ents[i].u;
				sc->v[k].id = id;
				k++;
			}
	free(ents);
	return 0;
}

void ctr_scope_free(struct ctr_scope *sc)
{
	free(sc->v);
	memset(sc, 0, sizeof(*sc));
}

void ctr_scope_snap(const struct ctr_scope *sc, uint64_t *v)
{
	size_t k;

	for (k = 0; k < sc->n; k++)
		v[k] = sc->v[k].u->ctr[sc->v[k].id];
}

/* Unsigned arithmetic: a counter that was set lower (none is today)
 * would wrap rather than trap; counters only grow. */
void ctr_scope_add_since(const struct ctr_scope *sc, uint64_t *acc,
			 const uint64_t *then)
{
	size_t k;

	for (k = 0; k < sc->n; k++)
		acc[k] += sc->v[k].u->ctr[sc->v[k].id] - then[k];
}

void ctr_scope_emit(const struct ctr_scope *sc, const uint64_t *v,
		    struct ctr_sink *s)
{
	size_t k;

	for (k = 0; k < sc->n; k++)
		ctr_emit_id(s, sc->v[k].u->name, sc->v[k].id, v[k]);
}

/*
 * The "Derived ratios" section: every derived.def row in counter order,
 * as "| `group.name` | name / (den + den) | `12.34% of busy` |".
 */
static void write_derived_doc(FILE *fp)
{
	int i, k;

	fputs("\n## Derived ratios\n\n"
	      "The text summary (`npusim stat`, `--counters FILE.txt`) prints a\n"
	      "ratio after `#` beside these counters (declared once in\n"
	      "`sim/engine/derived.def`). A denominator is summed over counters of\n"
	      "the same unit instance (the same full name up to the last `.`), or\n"
	      "is the run's total `cycles`; a ratio is printed only when its\n"
	      "denominator is present and not zero. Besides these, every counter\n"
	      "in bytes shows its bandwidth over the whole run: bytes / `cycles` in\n"
	      "B/cycle, and GB/s (B/cycle x clock in GHz) when the clock is known.\n\n"
	      "| counter | ratio | printed as |\n| --- | --- | --- |\n", fp);
	for (i = 0; i < CTR_N; i++) {
		const struct ctr_derived *r = &ctr_derived[i];
		int n = 0, done = 0;

		if (r->shape == CTR_SH_NONE)
			continue;
		fprintf(fp, "| `%s.%s` | %s / ", ctr_group_names[ctr_info[i].group],
			ctr_info[i].name, ctr_info[i].name);
		for (k = 0; k < 3; k++)
			n += r->den[k] != CTR_NONE;
		if (n > 1)
			fputc('(', fp);
		for (k = 0; k < 3; k++) {
			if (r->den[k] == CTR_NONE)
				continue;
			fprintf(fp, "%s%s", done++ ? " + " : "",
				r->den[k] == CTR_RUN ? "`cycles`"
						     : ctr_info[r->den[k]].name);
		}
		fprintf(fp, "%s | `%s %s` |\n", n > 1 ? ")" : "",
			r->shape == CTR_SH_PCT ? "12.34%" : "0.123", r->text);
	}
}

/*
 * Write docs/counters.md from the tables: an introduction, one table per
 * group in enum order with rows in counters.def order, then the derived
 * ratios.  The output is
 * deterministic, so `make test` can compare a regenerated copy with the
 * committed file byte for byte (a stale doc fails the build).
 */
void ctr_write_doc(FILE *fp)
{
	int g, i;

	fputs("# Hardware counters\n\n"
	      "<!-- Generated from sim/engine/counters.def and derived.def by `make docs`; do not edit. -->\n\n"
	      "Every counter is declared once in `sim/engine/counters.def`. A unit instance\n"
	      "emits the counters of its group under its own hierarchical name, so the\n"
	      "full name of a counter is `<instance>.<name>`, for example\n"
	      "`core0.matrix.busy_cycles`, `core1.dma0.bytes_dram_to_sram`,\n"
	      "`core0.scratchpad.bank_conflicts` or `dram.ch0.row_hits`. The run's total\n"
	      "is `cycles` (the cycle at which the last core finished) and each core's\n"
	      "is `core<N>.cycles`.\n\n"
	      "Stall counters are named `stall_<reason>_cycles`; every stalled cycle of a\n"
	      "unit counts under exactly one reason, and `stall_cycles` is their sum.\n"
	      "Some units add counters of their own through their dump hook (per-bank\n"
	      "and per-requestor SRAM counters, DRAM latency percentiles, achieved\n"
	      "bandwidths); those are listed with the unit's documentation\n"
	      "(docs/memory.md, docs/dram.md, docs/timing.md).\n\n"
	      "Output formats (JSON, CSV, text summary) are described in docs/formats.md.\n",
	      fp);
	for (g = 0; g < CTR_N_GRP; g++) {
		fprintf(fp, "\n## %s\n\n| name | unit | meaning |\n| --- | --- | --- |\n",
			ctr_group_names[g]);
		for (i = 0; i < CTR_N; i++)
			if ((int)ctr_info[i].group == g)
				fprintf(fp, "| `%s` | %s | %s |\n", ctr_info[i].name,
					ctr_info[i].unit, ctr_info[i].desc);
	}
	write_derived_doc(fp);
}
