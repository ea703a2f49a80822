/*
 * sweep.h - running a sweep's points, locally or as a Slurm job array, and
 * collecting their results (docs/dse.md).
 *
 * A sweep directory holds spec.sweep (a copy of the spec, which --collect
 * reads) and points/<k>.{status,csv,log}: <k>.status is written
 * atomically when point k ends and is what makes it finished ("ok",
 * "skipped <constraint>", "failed <exit status> <message>"); <k>.csv is
 * its counters file (`npusim run --counters`), <k>.log what the run
 * printed.  A point without a status file has not run (or was cut off):
 * a rerun runs it, and skips every point that has one - except failed
 * ones with retry_failed.
 */
#ifndef NPU_SWEEP_H
#define NPU_SWEEP_H

#include <stdint.h>

#include "../util/diag.h"
#include "spec.h"

struct sweep_opts {
	const char *dir;         /* results directory */
	const char *self;        /* the npusim binary that runs each point */
	int jobs;                /* worker processes */
	int64_t point;           /* run only this point; -1 = all */
	int shard_i, shard_n;    /* points with k % n == i (n = 1: all) */
	int retry_failed;        /* rerun points that failed */
	int progress;            /* print a progress line on stderr */
	volatile int *stop;      /* set (by a signal) to stop launching */
	const uint64_t *only;    /* run just these points, ascending (the
				    tuner's batches); NULL = all */
	size_t n_only;
};

/* Outcome of sweep_run. */
struct sweep_counts {
	uint64_t ok, skipped, failed, already, left;
};

/* Make the directory and keep the spec's copy in it (refusing a directory
 * that holds another spec's results); sweep_run does it too. */
int sweep_prepare(const struct spec *s, const char *dir, struct diag *d);

/* Run the points opts selects; 0 or NPU_E* (NPU_EINTR when stopped). */
int sweep_run(const struct spec *s, const struct sweep_opts *o,
	      struct sweep_counts *c, struct diag *d);

/*
 * Point k's outcome in dir: 0 not run, 1 ok, 2 skipped, 3 failed; its
 * status line (without the newline) in text.  With metric set and the
 * point ok, *value is that whole-run counter (state 1 only if present).
 */
int sweep_point(const char *dir, uint64_t k, const char *metric,
		double *value, char *text, size_t n);

/*
 * Merge a sweep directory into one CSV at out ("-" = stdout): one row per
 * point with its parameters, the spec's metrics (whole-run counter
 * values) and its status; missing and failed points are named on stderr.
 * pareto "A,B" (NULL = none) adds a column marking the points no other
 * ok point beats on both metrics (both minimised; "max:A" maximises A)
 * and, with svg set, draws them.
 */
int sweep_collect(const char *dir, const char *out, const char *pareto,
		  const char *svg, struct diag *d);

/*
 * Write <dir>/sweep.sbatch: a job array of the spec's points, each task
 * `npusim sweep SPEC --point $SLURM_ARRAY_TASK_ID -o DIR` with absolute
 * paths.  partition/time may be NULL; array_limit 0 = no limit.
 */
int sweep_slurm_script(const struct spec *s, const char *spec_path,
		       const struct sweep_opts *o, const char *partition,
		       const char *time_limit, int array_limit, char *script,
		       size_t n_script, struct diag *d);

#endif
