/*
 * progress.h - a progress line for long runs on a terminal.
 *
 *   struct progress pg;
 *   progress_init(&pg, isatty(2) && !quiet ? stderr : NULL, &diag);
 *   params.progress = progress_update; params.progress_ctx = &pg;
 *   ... run_go(...) ...
 *   progress_clear(&pg);
 *
 * The run library calls progress_update at its engine polls (every
 * ENG_POLL_EVENTS events); the line appears once the run has taken
 * PROGRESS_DELAY host seconds and is rewritten every PROGRESS_EVERY
 * seconds: simulated cycle, simulated cycles per host second,
 * instructions retired, and how many cores run, wait or are done.
 * Host time is read for the display only: nothing here changes the run,
 * so results are identical with and without the line.  Any diagnostic
 * printed through the diag given to progress_init clears the line first.
 */
#ifndef NPU_PROGRESS_H
#define NPU_PROGRESS_H

#include <stdio.h>

#include "../run/run.h"

#define PROGRESS_DELAY 1.0   /* seconds before the first line */
#define PROGRESS_EVERY 0.25  /* seconds between updates */

struct progress {
	FILE *fp;               /* the terminal (stderr), NULL = off */
	double (*clock)(void);  /* host seconds, monotonic (tests: a fake) */
	double start;           /* host time of the first update, < 0 before */
	double last;            /* host time of the line on screen */
	cycle_t last_cycle;     /* simulated cycle of that line */
	int shown;              /* a line is on the screen */
};

/* Off when fp is NULL.  d (may be NULL): its messages clear the line. */
void progress_init(struct progress *p, FILE *fp, struct diag *d);
/* run_params.progress: ctx is the struct progress. */
void progress_update(void *ctx, struct run *r);
/* Erase the line (end of the run, or before a message). */
void progress_clear(struct progress *p);

#endif
