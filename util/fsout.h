/*
 * fsout.h - output files that are never half-written, never lost.
 *
 * fsout_open writes to a unique temporary "<path>.tmp.XXXXXX" (mkstemp)
 * in the target's directory; fsout_commit flushes, closes and renames it
 * over path; fsout_abort removes it.  A run that fails therefore leaves
 * either the old file or nothing, never a truncated one.  The temporary
 * gets the mode a plain create would give (0666 less the umask), or the
 * existing target's permission bits.
 *
 * A path that exists and is not a regular file (/dev/null, /dev/stdout, a
 * FIFO) is written in place: renaming over a device node would replace it
 * with a plain file.  "-" is stdout.  Every write failure, on a file, a
 * device or stdout, is reported as "path: error: cannot write: reason"
 * ("<stdout>" for stdout) and returned as NPU_EIO.
 *
 * Signals: fsout_catch_signals() installs handlers for SIGINT, SIGTERM
 * and SIGHUP that unlink every live temporary (a fixed table, so the
 * handler is async-signal-safe) and die by the same signal.  In flag mode
 * the first signal only sets a flag that a long computation polls
 * (fsout_interrupted), so it can stop cleanly and commit what it keeps; a
 * second signal cleans up and dies at once.
 */
#ifndef NPU_FSOUT_H
#define NPU_FSOUT_H

#include <signal.h>
#include <stdio.h>

#include "diag.h"

struct fsout {
	FILE *fp;        /* write here */
	char *path;      /* final name (NULL for stdout) */
	char *tmp;       /* temporary name (NULL when writing in place) */
	int direct;      /* writing straight into a non-regular file */
	int slot;        /* signal-cleanup table entry + 1 (0 = none) */
};

/* "-" means stdout (commit/abort then only flush). */
int fsout_open(struct fsout *o, const char *path, struct diag *d) NPU_WUR;
int fsout_commit(struct fsout *o, struct diag *d) NPU_WUR;
void fsout_abort(struct fsout *o);

/*
 * Flush fp and check its error flag: 0, or NPU_EIO reported as
 * "name: error: cannot write: reason".  The error flag is cleared after
 * the report, so one failure is reported once.
 */
int fsout_check(FILE *fp, const char *name, struct diag *d) NPU_WUR;

/*
 * 1 if output paths a and b would write the same file: both "-" (stdout),
 * the same device and inode when both exist, else the same name in the
 * same directory (the directory compared by device and inode, so "x",
 * "./x" and "dir/../x" agree).  /dev/null never clashes.
 */
int fsout_same(const char *a, const char *b);

/*
 * Check that no two of n output paths name one file; labels[i] is the
 * option that gave paths[i], printed right before it ("--trace ",
 * "--output C=").  0, or NPU_EUSAGE reported as "error: --trace x.json
 * and --counters x.json name the same file ...".
 */
int fsout_distinct(const char *const *paths, const char *const *labels,
		   int n, struct diag *d) NPU_WUR;

/* Modes of fsout_catch_signals. */
enum fsout_sigmode {
	FSOUT_SIG_DIE,   /* remove temporaries and die by the signal */
	FSOUT_SIG_FLAG,  /* first signal sets the flag; a second one dies */
};

/* Install the SIGINT/SIGTERM/SIGHUP handlers (a signal ignored when the
 * process started, as under nohup, stays ignored).  Call again to switch
 * mode. */
void fsout_catch_signals(enum fsout_sigmode mode);
/* The signal caught in flag mode, 0 if none: cheap enough to poll. */
int fsout_interrupted(void);
/* Remove live temporaries and die by the caught signal (exit status
 * 128 + signal in the shell); returns only if none was caught. */
void fsout_die(void);

#endif
