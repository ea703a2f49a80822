/*
 * diag.h - error values with a place.
 *
 * Fallible functions return int: 0, or a negative NPU_E* code (util/err.def).
 * What went wrong and where is written into a struct diag by the function
 * that detects it, in one of two shapes:
 *   input errors   "file:line:col: error: message"  (config, assembly, .npy)
 *   runtime faults "core N pc 0x.. cycle N: error: message"
 * A diag sink either prints at once (the CLI) or collects (tests, assembler
 * which must report every error in a file before failing).
 */
#ifndef NPU_DIAG_H
#define NPU_DIAG_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#define NPU_WUR __attribute__((warn_unused_result))
#define NPU_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* Position of each error in err.def; NPU_E<name> is its negation minus one. */
enum npu_err_index {
#define ERR(name, msg) NPU_ERRIX_##name,
#include "err.def"
#undef ERR
	NPU_N_ERRS
};

enum npu_err {
	NPU_OK = 0,
#define ERR(name, msg) NPU_E##name = -1 - NPU_ERRIX_##name,
#include "err.def"
#undef ERR
};

/* Exit statuses of the npusim binary (documented in README and docs/cli.md). */
enum npu_exit {
	NPU_EXIT_OK = 0,      /* success */
	NPU_EXIT_PROGRAM = 1, /* program / assembly / tensor error */
	NPU_EXIT_USAGE = 2,   /* usage or configuration error */
	NPU_EXIT_FAULT = 3,   /* simulated program fault, deadlock or cycle limit */
	NPU_EXIT_INTERRUPT = 130, /* stopped by SIGINT (128 + 2, as shells say) */
};

const char *npu_strerror(int err);

/*
 * A simulator bug, not bad input (a switch reached an op with no
 * handler, a broken invariant): print "npusim: internal error: ..." with
 * the source position and abort, so a new table row without its handler
 * fails the first test that runs it instead of computing a wrong value.
 */
#define NPU_BUG(...) npu_bug(__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void npu_bug(const char *file, int line, const char *fmt, ...)
	NPU_PRINTF(3, 4);
int npu_exit_status(int err); /* map an NPU_E* to an npu_exit value */

/* Severity of one diagnostic. */
enum diag_level { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE };

/* Where a diagnostic points: an input location or a runtime location. */
struct diag_loc {
	const char *file; /* input file, or NULL */
	int line;         /* 1-based, 0 = unknown */
	int col;          /* 1-based, 0 = unknown */
	int core;         /* runtime: core index, -1 = not a runtime location */
	uint64_t pc;      /* runtime: byte address of the instruction */
	uint64_t cycle;   /* runtime: simulated cycle */
};

/* A diag sink.  Printing sinks write to fp; collecting sinks keep text. */
struct diag {
	FILE *fp;          /* print here as reported (NULL = collect only) */
	int n_errors;      /* errors reported so far */
	int last_err;      /* NPU_E* of the last error (0 = none), for callers
			      that only learn "it failed" (a NULL return) */
	int n_warnings;    /* warnings reported so far */
	char last[512];    /* text of the last error, for tests and callers */
	const char *src_line; /* optional source line to echo under the message */
	struct diag_loc last_run; /* place of the last runtime error (core -1: none) */
	void (*on_print)(void *ctx); /* called before each printed message (a
				       progress line erases itself), or NULL */
	void *on_print_ctx;        /* its argument */
};

void diag_init(struct diag *d, FILE *fp);
struct diag_loc diag_at_file(const char *file, int line, int col);
struct diag_loc diag_at_run(int core, uint64_t pc, uint64_t cycle);
struct diag_loc diag_nowhere(void);

/* Report one diagnostic; returns NPU_E* 'err' for convenient tail calls. */
int diag_report(struct diag *d, enum diag_level lvl, struct diag_loc loc,
		int err, const char *fmt, ...) NPU_PRINTF(5, 6);
int diag_vreport(struct diag *d, enum diag_level lvl, struct diag_loc loc,
		 int err, const char *fmt, va_list ap);
/* Shorthands. */
int diag_error(struct diag *d, struct diag_loc loc, int err,
	       const char *fmt, ...) NPU_PRINTF(4, 5);
void diag_note(struct diag *d, struct diag_loc loc, const char *fmt, ...)
	NPU_PRINTF(3, 4);
/* Echo a source line with a caret under column col (compiler style). */
void diag_caret(struct diag *d, const char *line, int col);

#endif
