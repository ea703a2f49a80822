/*
 * spec.h - a sweep spec (libconfig, docs/dse.md): the base config and
 * workload, the parameters and how they combine, constraints, metrics.
 *
 *   struct spec s;
 *   spec_load(&s, "x.sweep", &diag);      // checked, file:line errors
 *   spec_point(&s, k, &pt);               // values of point k
 *   spec_feasible(&s, &pt, why, n)        // constraints, derived peaks
 *   spec_free(&s);
 *
 * Points are numbered over the full product of the parameters' dimensions
 * (a zip group is one dimension; the first dimension varies slowest), so
 * a point's number does not depend on the constraints: an infeasible
 * point is skipped, not renumbered.
 */
#ifndef NPU_SPEC_H
#define NPU_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "../util/diag.h"

#define SPEC_MAX_PARAMS 32

struct spec_param {
	char *name;             /* config key or define name */
	int define;             /* -D name=value, else -s name=value */
	char **values;          /* the values as text, in order */
	int n_values;
	int dim;                /* its dimension (zip groups share one) */
	int line;               /* in the spec, for messages */
};

struct spec {
	char *path;             /* the spec file */
	char *config;           /* base config file, NULL = defaults */
	char *program;          /* the workload (.s or .npo) */
	char **set;             /* fixed -s overrides */
	int n_set;
	char **defines;         /* fixed -D defines */
	int n_defines;
	char **inputs;          /* --input NAME=FILE|zeros */
	int n_inputs;
	char **constraints;     /* expressions (expr.h) */
	int *constraint_line;
	int n_constraints;
	char **metrics;         /* counter names (whole run) for --collect */
	int n_metrics;
	uint64_t max_cycles;    /* per point, 0 = none */
	int timing_only;        /* run points with --timing-only */
	struct spec_param p[SPEC_MAX_PARAMS];
	int n_params;
	int n_dims;
	int dim_len[SPEC_MAX_PARAMS]; /* values along each dimension */
	uint64_t n_points;      /* product of dim_len */
};

/* A point: the value index of every parameter. */
struct spec_point {
	uint64_t k;
	int idx[SPEC_MAX_PARAMS];
};

/* Load and check a spec; 0 or NPU_E* (reported in d with file:line; a
 * failed load leaves nothing to free). */
int spec_load(struct spec *s, const char *path, struct diag *d);
void spec_free(struct spec *s);
/* Point k (< n_points). */
void spec_point(const struct spec *s, uint64_t k, struct spec_point *pt);
/* Value text of parameter i at pt. */
const char *spec_value(const struct spec *s, const struct spec_point *pt, int i);
/*
 * 1 if every constraint holds at pt, 0 if one does not (its text in why),
 * -1 if the point's config does not load, -2 if a constraint cannot be
 * evaluated (a spec error: *line is the constraint's line in the spec);
 * messages in why.  Names: the parameters, every config key of the
 * point's resolved config, and its derived peaks as peak.<name>
 * (arch/peaks.def, with the aliases the table gives; arch_peak_find).
 */
int spec_feasible(const struct spec *s, const struct spec_point *pt,
		  char *why, size_t n, int *line);

#endif
