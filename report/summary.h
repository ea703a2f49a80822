/*
 * summary.h - what `npusim run` and `npusim stat` print after a run: the
 * compact per-unit table of busy and stall cycles with the array's
 * utilisation, and the perf-stat-like view of selected counters
 * (docs/cli.md).  Counters are chosen by the ids their entries carry
 * (struct ctr_entry.id), never by parsing names.
 */
#ifndef NPU_SUMMARY_H
#define NPU_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "../sim/engine/counters.h"
#include "../util/diag.h"
#include "ctrout.h"

/*
 * The per-unit table (every unit with a busy counter, in dump order: the
 * memories have none; DRAM channels show a stall of 0) and, per matrix
 * engine, its MACs against the array's peak over the run and while busy.
 * pe = rows x cols of the array.
 */
void summary_print(FILE *fp, const struct ctr_sink *s, uint64_t cycles,
		   double ghz, uint64_t pe);

/* What `npusim stat` shows and how. */
struct summary_stat_opts {
	const char *region;  /* --region NAME or NAME@coreN; NULL = the run */
	const char *events;  /* -e patterns, comma-separated; NULL = all */
	int detail;          /* --detail: breakdowns and zeros too */
	int total;           /* --total 1 / --no-total 0; -1 = by core count */
	const char *x_sep;   /* -x SEP: perf stat -x lines; NULL = text */
};

/*
 * The run's counters (or a region's), selected and aggregated
 * (ctrout_select), as the text summary or as -x lines, followed by the
 * list of regions.  run_m: the run's metadata, with its regions.
 * Returns 0, NPU_EUSAGE (no such region), NPU_ENOMEM or NPU_EIO.
 */
int summary_stat(FILE *fp, const struct summary_stat_opts *o,
		 const struct ctr_sink *all, const struct ctrout_meta *run_m,
		 struct diag *d) NPU_WUR;

#endif
