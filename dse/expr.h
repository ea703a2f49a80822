/*
 * expr.h - the arithmetic of sweep constraints: "core.matrix.rows *
 * core.matrix.cols <= 4096 && TM % core.matrix.rows == 0".
 *
 * Values are doubles (integers up to 2^53 exactly).  Operators, loosest
 * first: || && (== !=) (< <= > >=) (+ -) (* / %) and unary - !, with
 * parentheses; comparisons and logic give 1 or 0; % is fmod; x / 0 is an
 * error.  Identifiers are letters, digits, '_' and '.', starting with a
 * letter or '_'; the caller resolves them.  Written here because the
 * assembler's evaluator is integer-only and lives a layer below names
 * with dots; this one is ~150 lines.
 */
#ifndef NPU_EXPR_H
#define NPU_EXPR_H

#include <stddef.h>

/* Resolve name (len bytes, not terminated) into *out: 0, or -1 unknown. */
typedef int (*expr_lookup_fn)(void *ctx, const char *name, size_t len,
			      double *out);

/*
 * Evaluate text into *out: 0, or -1 with a message in err ("unknown name
 * 'x' at column 5", "expected ')' at column 12", ...).
 */
int expr_eval(const char *text, expr_lookup_fn fn, void *ctx, double *out,
	      char *err, size_t n_err);

#endif
