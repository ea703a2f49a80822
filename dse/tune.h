/*
 * tune.h - the schedule autotuner (`npusim tune`, docs/dse.md).
 *
 * A kernel declares its schedule parameters with .tunable; the tuner
 * enumerates their combinations, rejects the infeasible ones by
 * assembling each for the chip (the kernel's own .if/.error checks: SRAM
 * footprints, divisibility), simulates candidates timing-only through the
 * sweep runner (parallel, each result cached in the tuning directory) and
 * reports the fastest.  Strategies: exhaustive, random, and model-guided
 * (tune.c says which model and why).
 */
#ifndef NPU_TUNE_H
#define NPU_TUNE_H

#include <stdint.h>

#include "../util/diag.h"

enum tune_strategy { TUNE_EXHAUSTIVE, TUNE_RANDOM, TUNE_MODEL };

struct tune_opts {
	const char *config;          /* chip config, NULL = defaults */
	const char *const *sets;     /* -s overrides */
	int n_sets;
	const char *const *defines;  /* fixed -D defines (they also pin
					any tunable they name) */
	int n_defines;
	const char *const *inputs;   /* --input NAME=FILE|zeros */
	int n_inputs;
	const char *kernel;          /* the .s file */
	enum tune_strategy strategy;
	int budget;                  /* simulations, 0 = the strategy's
					default (all / 20 % of the space) */
	uint64_t seed;
	int jobs;
	const char *dir;             /* tuning directory; NULL = the cache
					($NPUSIM_CACHE or ~/.cache/npusim)
					under a hash of config, kernel and
					fixed arguments */
	const char *self;            /* the npusim binary */
	const char *curve_csv;       /* search curve, NULL = DIR/curve.csv */
	const char *curve_svg;       /* and its plot, NULL = DIR/curve.svg */
	int quiet;                   /* 1: no progress; 2: nor the result
					(npusim model -q) */
};

/* Run the search; prints the result on stdout.  0 or NPU_E*. */
int tune_run(const struct tune_opts *o, struct diag *d);

/*
 * What an earlier `npusim tune` found for kernel with these fixed defines
 * (and no inputs) on chip a, from its cache: the fastest schedule among
 * the cached results, as "NAME=VALUE\n" lines for every tunable into out
 * (n bytes).  1 when there is one, 0 when nothing is cached (no error:
 * a model then uses the kernel's defaults).
 */
struct arch;
int tune_cached_best(const struct arch *a, const char *kernel,
		     const char *const *defines, int n_defines, char *out,
		     size_t n);

/*
 * A model layer's schedule from the tuner (compile.h's schedule hook):
 * with 'search', tune the kernel for the step's parameters first unless
 * the cache already has them (the model-guided strategy, every online
 * CPU, points run by 'self'); then, with 'use', the cached best.
 */
struct tune_layer_ctx {
	const char *config;          /* the chip, for the points' runs */
	const char *const *sets;
	int n_sets;
	const struct arch *a;        /* the same, resolved (the cache key) */
	const char *self;            /* the npusim binary */
	int search;                  /* --tune */
	int use;                     /* not --untuned */
	int quiet;                   /* no progress (2: nor results) */
};
int tune_layer_schedule(void *ctx, const char *kernel,
			const char *const *defines, int n_defines,
			const char *layer, char *best, size_t n,
			struct diag *d);

#endif
