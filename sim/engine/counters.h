/*
 * counters.h - counter ids (from counters.def) and the sink they are dumped to.
 *
 * Hot paths bump u->ctr[CTR_X_Y]: a typo is a compile error and the cost is
 * one add.  Names exist only on the output side.
 */
#ifndef NPU_COUNTERS_H
#define NPU_COUNTERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../../util/dtype.h"

/* Unit kinds that own counters (GROUP of counters.def). */
enum ctr_group {
	CTR_GRP_CONTROL,
	CTR_GRP_MATRIX,
	CTR_GRP_VECTOR,
	CTR_GRP_DMA,
	CTR_GRP_SRAM,
	CTR_GRP_DRAM,
	CTR_GRP_NOC,
	CTR_N_GRP
};

enum ctr_id {
#define CTR(g, n, json, unit, desc) CTR_##g##_##n,
#include "counters.def"
#undef CTR
	CTR_N
};

struct ctr_info {
	enum ctr_group group; /* owning unit kind */
	const char *name;     /* JSON/CSV leaf name */
	const char *unit;     /* unit of measure */
	const char *desc;     /* one-line meaning */
};

extern const struct ctr_info ctr_info[CTR_N];
/* Each group's busy and total-stall counters (-1 where it has none: the
 * SRAMs, the NoC; the DRAM has no stall counter), for summaries. */
extern const int ctr_group_busy[CTR_N_GRP];
extern const int ctr_group_stall[CTR_N_GRP];
extern const char *const ctr_group_names[CTR_N_GRP];

/* How a derived ratio is printed (derived.def SHAPE). */
enum ctr_shape {
	CTR_SH_NONE,  /* the counter has no ratio (no derived.def row) */
	CTR_SH_PCT,   /* 100 * value / den, "12.34%" */
	CTR_SH_RATIO, /* value / den, "0.123" */
};

/* Denominators of derived.def that are not counters. */
enum {
	CTR_RUN = CTR_N,  /* the run's total cycles */
	CTR_NONE,         /* an unused slot */
};

/* The ratio printed beside one counter: its derived.def row. */
struct ctr_derived {
	enum ctr_shape shape; /* CTR_SH_NONE: this counter has none */
	const char *text;     /* what the ratio is: "of busy" */
	int den[3];           /* counter ids summed; or CTR_RUN; CTR_NONE pads */
};

/* Indexed by counter id (enum ctr_id); zero rows have no ratio. */
extern const struct ctr_derived ctr_derived[CTR_N];

/*
 * A flat, ordered list of (full name, value) pairs: what every output format
 * (JSON, CSV, text summary) is written from.  Values are integers unless
 * is_float is set (derived rates such as bandwidth).
 */
struct ctr_entry {
	char *name;      /* "core0.matrix.busy_cycles" */
	uint64_t u;      /* integer value */
	double f;        /* float value, when is_float */
	int is_float;    /* 1 for derived float counters */
	int id;          /* enum ctr_id of a unit's own counters.def row;
			    -1 for the rest: run and core cycles, per-bank
			    and per-requester breakdowns, rates */
};

struct ctr_sink {
	struct ctr_entry *v; /* entries in emission order */
	size_t n, cap;       /* used, allocated */
	int oom;             /* an allocation failed; output is incomplete */
};

/* The counters of one named program region (rbeg/rend; a model's layer):
 * what the run library hands out (run_regions) and the counters files
 * write. */
struct ctr_region {
	const char *name;   /* region name from the program */
	int core;           /* core that ran it */
	uint64_t entries;   /* times it was entered */
	uint64_t cycles;    /* sum of (close - open) cycles */
	struct ctr_sink s;  /* counters accumulated inside it */
};

void ctr_sink_init(struct ctr_sink *s);
void ctr_sink_free(struct ctr_sink *s);
void ctr_emit_u64(struct ctr_sink *s, const char *prefix, const char *name,
		  uint64_t v);
void ctr_emit_f64(struct ctr_sink *s, const char *prefix, const char *name,
		  double v);
/* A unit's own counter: named "<unit>.<counters.def name>", tagged with
 * its id, so that consumers (energy, model statistics, summaries) select
 * counters by id and never by parsing names. */
void ctr_emit_id(struct ctr_sink *s, const char *unit, enum ctr_id id,
		 uint64_t v);
/* A copy of entry e (its value, kind and id) named name (NULL: e's). */
void ctr_emit_copy(struct ctr_sink *s, const char *name,
		   const struct ctr_entry *e);
/* Sum and maximum of the integer entries of counter id (every unit
 * instance that has it); 0 when there are none. */
uint64_t ctr_sum(const struct ctr_sink *s, enum ctr_id id);
uint64_t ctr_max(const struct ctr_sink *s, enum ctr_id id);
/* Look a counter up by full name (tests, summaries); NULL if absent. */
const struct ctr_entry *ctr_find(const struct ctr_sink *s, const char *name);

/*
 * Counter scopes: the counters.def counters of a set of units as one flat
 * vector of slots, so that a program region's boundary (rbeg/rend) costs
 * one pass over a few hundred integers and no name lookups.  Only the
 * fixed counters of each unit's group are in a scope; what a unit adds in
 * its dump hook (percentiles, per-bank rows, bandwidths) is not, being
 * computed from state a difference cannot be taken of.
 */
struct unit;
struct eng;

/* One slot: counter id of a unit. */
struct ctr_slot {
	struct unit *u;       /* the unit */
	int id;               /* enum ctr_id, in the unit's group */
};

struct ctr_scope {
	struct ctr_slot *v;   /* slots, in chip_dump order (owned) */
	size_t n;             /* number of slots */
};

/*
 * The scope of a core: the counter units of core 'core' and the
 * chip-level ones (core -1: DRAM channels, the NoC) among the engine's
 * registered units, ordered as chip_dump emits them (per core control,
 * matrix, vector, DMA engines, SRAMs; then the chip's units, each kind by
 * index).  0 or NPU_ENOMEM.
 */
int ctr_scope_core(struct ctr_scope *sc, struct eng *e, int core);
void ctr_scope_free(struct ctr_scope *sc);
/* v[k] = the current value of slot k (sc->n values). */
void ctr_scope_snap(const struct ctr_scope *sc, uint64_t *v);
/* acc[k] += current value of slot k - then[k]: what was counted since
 * 'then' was snapshotted. */
void ctr_scope_add_since(const struct ctr_scope *sc, uint64_t *acc,
			 const uint64_t *then);
/* Emit v[k] as "<unit name>.<counter name>" for every slot, in order. */
void ctr_scope_emit(const struct ctr_scope *sc, const uint64_t *v,
		    struct ctr_sink *s);

/* Write docs/counters.md from the table (`mkdoc counters`). */
void ctr_write_doc(FILE *fp);

#endif
