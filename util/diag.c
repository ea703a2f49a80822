/*
 * diag.c - error messages with a place (see diag.h).
 *
 * One formatter for every message of the program, so all of them share
 * the two shapes of diag.h ("file:line:col: error: ..." for input,
 * "core N pc 0x.. cycle N: error: ..." for runtime faults).  The returned
 * value is always the caller's error code, which lets a detector write
 * "return diag_error(d, loc, NPU_EX, ...)" in one line.
 *
 * Invariants: d->last always holds the most recent message (tests read
 * it, and a collect-only sink with fp == NULL keeps it too); last_run is
 * the place of the latest runtime error, so cmd_run can add a note with
 * the faulting instruction's source line after the run.  Messages longer
 * than 1023 characters are truncated, never overflowed; d->last keeps
 * the first 511 characters.
 */
#include "diag.h"

#include <stdlib.h>
#include <string.h>

/* err.def's messages in err.def order: index i belongs to NPU_E* = -1 - i. */
static const char *const err_msgs[] = {
#define ERR(name, msg) msg,
#include "err.def"
#undef ERR
};

void npu_bug(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "npusim: internal error (%s:%d): ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

const char *npu_strerror(int err)
{
	size_t i;

	if (err == 0)
		return "success";
	/* Invert NPU_E<name> = -1 - index (diag.h); positive values and codes
	 * beyond the table are not errors this program defines. */
	i = (size_t)(-1 - (long)err);
	if (err >= 0 || i >= NPU_N_ERRS)
		return "unknown error";
	return err_msgs[i];
}

/* The only place that decides an exit status (main.c lists them): input
 * and program problems exit 1 by default, so a new error code is never
 * mistaken for a usage error or a simulated fault. */
int npu_exit_status(int err)
{
	switch (err) {
	case NPU_OK:
		return NPU_EXIT_OK;
	case NPU_EUSAGE:
	case NPU_ECONFIG:
		return NPU_EXIT_USAGE;
	case NPU_EFAULT:
	case NPU_EDEADLOCK:
	case NPU_ETIMEOUT:
		return NPU_EXIT_FAULT;
	case NPU_EINTR:
		return NPU_EXIT_INTERRUPT;
	default:
		return NPU_EXIT_PROGRAM;
	}
}

void diag_init(struct diag *d, FILE *fp)
{
	memset(d, 0, sizeof(*d));
	d->fp = fp;
	d->last_run.core = -1;
}

struct diag_loc diag_at_file(const char *file, int line, int col)
{
	struct diag_loc l = { file, line, col, -1, 0, 0 };
	return l;
}

struct diag_loc diag_at_run(int core, uint64_t pc, uint64_t cycle)
{
	struct diag_loc l = { NULL, 0, 0, core, pc, cycle };
	return l;
}

struct diag_loc diag_nowhere(void)
{
	struct diag_loc l = { NULL, 0, 0, -1, 0, 0 };
	return l;
}

/* Indexed by enum diag_level. */
static const char *const level_names[] = { "error", "warning", "note" };

int diag_vreport(struct diag *d, enum diag_level lvl, struct diag_loc loc,
		 int err, const char *fmt, va_list ap)
{
	char prefix[256] = "";
	char msg[1024];

	/* The most precise prefix the location allows; an input location
	 * wins over a runtime one, and diag_nowhere() gets no prefix. */
	if (loc.file && loc.line > 0 && loc.col > 0)
		snprintf(prefix, sizeof(prefix), "%s:%d:%d: ", loc.file,
			 loc.line, loc.col);
	else if (loc.file && loc.line > 0)
		snprintf(prefix, sizeof(prefix), "%s:%d: ", loc.file, loc.line);
	else if (loc.file)
		snprintf(prefix, sizeof(prefix), "%s: ", loc.file);
	else if (loc.core >= 0)
		snprintf(prefix, sizeof(prefix),
			 "core %d pc 0x%llx cycle %llu: ", loc.core,
			 (unsigned long long)loc.pc,
			 (unsigned long long)loc.cycle);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* A message longer than d->last is cut and marked with "...". */
	if (snprintf(d->last, sizeof(d->last), "%s%s: %s", prefix,
		     level_names[lvl], msg) >= (int)sizeof(d->last))
		memcpy(d->last + sizeof(d->last) - 4, "...", 4);
	/* Notes are not counted: they belong to the error before them. */
	if (lvl == DIAG_ERROR) {
		d->n_errors++;
		d->last_err = err;
		if (loc.core >= 0)
			d->last_run = loc;
	}
	if (lvl == DIAG_WARNING)
		d->n_warnings++;
	/* The stream gets the whole message; only d->last is cut. */
	if (d->fp) {
		if (d->on_print)
			d->on_print(d->on_print_ctx);
		fprintf(d->fp, "%s%s: %s\n", prefix, level_names[lvl], msg);
	}
	return err;
}

int diag_report(struct diag *d, enum diag_level lvl, struct diag_loc loc,
		int err, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = diag_vreport(d, lvl, loc, err, fmt, ap);
	va_end(ap);
	return r;
}

int diag_error(struct diag *d, struct diag_loc loc, int err,
	       const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = diag_vreport(d, DIAG_ERROR, loc, err, fmt, ap);
	va_end(ap);
	return r;
}

void diag_note(struct diag *d, struct diag_loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)diag_vreport(d, DIAG_NOTE, loc, 0, fmt, ap);
	va_end(ap);
}

/*
 * Echo the source line and a caret under column col (1-based), as
 * compilers do.  Tabs before the column are copied as tabs so the caret
 * lines up whatever the terminal's tab width; the one-space indent keeps
 * both lines aligned with each other.
 */
void diag_caret(struct diag *d, const char *line, int col)
{
	/* Long lines (generated code, fuzz input) show a window of about
	 * 120 characters around the column, marked with "..." */
	enum { HALF = 60 };
	int len, from = 0, to, i;

	if (!d->fp || !line)
		return;
	len = (int)strlen(line);
	to = len;
	if (len > 2 * HALF) {
		from = col - 1 > HALF ? col - 1 - HALF : 0;
		to = from + 2 * HALF < len ? from + 2 * HALF : len;
	}
	fprintf(d->fp, " %s%.*s%s\n ", from ? "..." : "", to - from, line + from,
		to < len ? "..." : "");
	if (from)
		fputs("   ", d->fp);
	for (i = from + 1; i < col && i <= to; i++)
		fputc(line[i - 1] == '\t' ? '\t' : ' ', d->fp);
	fputs("^\n", d->fp);
}
