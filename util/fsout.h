/*
 * fsout.h - output files that are never half-written.
 *
 * fsout_open writes to "<path>.tmp.<pid>" in the same directory;
 * fsout_commit flushes, closes and renames it over path; fsout_abort
 * removes it.  A run that fails therefore leaves either the old file or
 * nothing, never a truncated one.
 *
 * A path that exists and is not a regular file (/dev/null, /dev/stdout, a
 * FIFO) is written in place: renaming over a device node would replace it
 * with a plain file.
 */
#ifndef NPU_FSOUT_H
#define NPU_FSOUT_H

#include <stdio.h>

#include "diag.h"

struct fsout {
	FILE *fp;        /* write here */
	char *path;      /* final name */
	char *tmp;       /* temporary name (NULL when writing in place) */
	int direct;      /* writing straight into a non-regular file */
};

/* "-" means stdout (commit/abort then only flush). */
int fsout_open(struct fsout *o, const char *path, struct diag *d) NPU_WUR;
int fsout_commit(struct fsout *o, struct diag *d) NPU_WUR;
void fsout_abort(struct fsout *o);

#endif
