/*
 * asm_err.c - the assembler's errors: collected while assembling, printed
 * at the end in reading order.
 *
 * The bottom layer of the assembler (asm_int.h): every other file reports
 * through asm_error and asm_oom, and this one calls none of them.
 *
 * Invariants:
 *   - an error is kept with the where record of its line, whose text
 *     lives until cleanup, so printing may wait for the end of pass 2;
 *   - errors print sorted by (line read, discovery order): pass 2 finds
 *     errors in lines pass 1 already passed, and the user reads them top
 *     to bottom whichever pass found them;
 *   - at most ASM_MAX_ERRORS are kept; the next becomes "too many errors"
 *     and stops the input (A->fatal);
 *   - out of memory is printed at once, not kept (the list may be what
 *     could not grow), and stops both passes (A->oom).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "../util/strutil.h"
#include "asm_int.h"

/*
 * One error, kept until the end of the assembly.  Pass 2 finds errors in
 * lines that pass 1 already passed, so errors are sorted back into reading
 * order (the seq of their line, then discovery order) before printing:
 * the user sees them top to bottom, as from a compiler.
 */
struct err_rec {
	unsigned seq;            /* where->seq */
	size_t order;            /* discovery order (stable sort) */
	const struct where *w;   /* line (text lives until cleanup) */
	int col;                 /* 1-based column of the caret */
	char *msg;               /* malloc'd */
};

/*
 * The message is formatted into a fixed 400-byte buffer (one line; a
 * longer one is cut, never overflowed) and copied to the heap, because
 * printing waits for the end of the assembly.  Returns EV_ERR so callers
 * can `return asm_error(...)`.
 */
int asm_error(struct asm_ctx *A, const struct where *w, int col,
	      const char *fmt, ...)
{
	char msg[400];
	struct err_rec *e;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	A->n_err++;
	/*
	 * Every error is reported, up to a bound: a runaway input (a macro
	 * that expands its errors a million times) must not take minutes and
	 * gigabytes to tell the user so.
	 *
	 * The 1001st error becomes "too many errors" and stops the input.
	 */
	if (A->n_errs >= ASM_MAX_ERRORS) {
		if (!A->fatal) {
			A->fatal = 1;
			snprintf(msg, sizeof(msg), "too many errors (%d); stopping "
				 "here", ASM_MAX_ERRORS);
		} else {
			return EV_ERR;
		}
	}
	if (A->n_errs == A->cap_errs) {
		size_t cap = A->cap_errs ? 2 * A->cap_errs : 16;
		struct err_rec *v = realloc(A->errs, cap * sizeof(*v));

		if (!v)
			return asm_oom(A);
		A->errs = v;
		A->cap_errs = cap;
	}
	e = &A->errs[A->n_errs];
	e->msg = str_dup(msg);
	if (!e->msg)
		return asm_oom(A);
	/* seq 0 (-D errors: cmdline_where) sorts before every source line. */
	e->seq = w->seq;
	e->order = A->n_errs++;
	e->w = w;
	e->col = col;
	return EV_ERR;
}

/* Reading order first, then discovery order: a stable sort by hand. */
static int err_cmp(const void *pa, const void *pb)
{
	const struct err_rec *a = pa, *b = pb;

	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* Print the collected errors in source order (with carets and notes). */
void asm_flush_errors(struct asm_ctx *A)
{
	size_t k;

	if (A->n_errs)
		qsort(A->errs, A->n_errs, sizeof(*A->errs), err_cmp);
	for (k = 0; k < A->n_errs; k++) {
		const struct err_rec *e = &A->errs[k];
		const struct expn *x;

		(void)diag_error(A->d, diag_at_file(e->w->file, e->w->line,
						    e->col),
				 NPU_EASM, "%s", e->msg);
		diag_caret(A->d, e->w->text, e->col);
		int depth = 0, shown = 0;

		/*
		 * Macro expansions, innermost first, as compilers print them;
		 * a deep (recursive) chain shows its first three levels and
		 * the outermost call.
		 *
		 * With depth > 5: the 3 innermost levels, a "(depth - 4 more
		 * levels)" note, then the outermost call (the line the user
		 * wrote), i.e. 4 notes in all however deep the recursion.
		 */
		for (x = e->w->exp; x; x = x->call->exp)
			depth++;
		for (x = e->w->exp; x; x = x->call->exp, shown++) {
			if (depth > 5 && shown == 3)
				diag_note(A->d, diag_nowhere(),
					  "(%d more levels of macro expansion)",
					  depth - 4);
			if (depth > 5 && shown >= 3 && x->call->exp)
				continue;
			diag_note(A->d,
				  diag_at_file(x->call->file, x->call->line,
					       x->col),
				  "in expansion of macro '%s'", x->macro);
		}
		free(e->msg);
	}
	free(A->errs);
	A->errs = NULL;
	A->n_errs = A->cap_errs = 0;
}

/*
 * Out of memory is reported once, immediately (not through the error
 * list, which may itself be what could not grow), and sets A->oom, which
 * stops the input loop and both passes.
 */
int asm_oom(struct asm_ctx *A)
{
	if (!A->oom)
		(void)diag_error(A->d, diag_nowhere(), NPU_ENOMEM,
				 "out of memory while assembling");
	A->oom = 1;
	A->n_err++;
	return EV_ERR;
}
