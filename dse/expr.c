/*
 * expr.c - recursive-descent evaluation of sweep constraints (expr.h).
 * One pass, no tree: each level parses its operands and combines them.
 */
#include "expr.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ex {
	const char *s, *p;       /* text, cursor */
	expr_lookup_fn fn;
	void *ctx;
	char *err;
	size_t n_err;
	int failed;
};

static void ex_fail(struct ex *x, const char *what)
{
	if (!x->failed)
		snprintf(x->err, x->n_err, "%s at column %d", what,
			 (int)(x->p - x->s) + 1);
	x->failed = 1;
}

static void skip(struct ex *x)
{
	while (isspace((unsigned char)*x->p))
		x->p++;
}

/* Match operator op (and not a longer one starting with it). */
static int eat(struct ex *x, const char *op)
{
	size_t n = strlen(op);

	skip(x);
	if (strncmp(x->p, op, n))
		return 0;
	if (n == 1 && (op[0] == '<' || op[0] == '>' || op[0] == '!' ||
		       op[0] == '=') && x->p[1] == '=')
		return 0;
	x->p += n;
	return 1;
}

static double e_or(struct ex *x);

static double e_atom(struct ex *x)
{
	double v = 0;

	skip(x);
	if (eat(x, "(")) {
		v = e_or(x);
		if (!eat(x, ")"))
			ex_fail(x, "expected ')'");
		return v;
	}
	if (eat(x, "-"))
		return -e_atom(x);
	if (eat(x, "!"))
		return e_atom(x) == 0;
	if (isdigit((unsigned char)*x->p) || *x->p == '.') {
		char *end;

		v = strtod(x->p, &end);
		x->p = end;
		return v;
	}
	if (isalpha((unsigned char)*x->p) || *x->p == '_') {
		const char *b = x->p;
		char msg[160];

		while (isalnum((unsigned char)*x->p) || *x->p == '_' || *x->p == '.')
			x->p++;
		if (x->fn(x->ctx, b, (size_t)(x->p - b), &v)) {
			x->p = b;
			snprintf(msg, sizeof(msg), "unknown name '%.*s'",
				 (int)(strcspn(b, " \t()+-*/%<>=!&|")), b);
			ex_fail(x, msg);
		}
		return v;
	}
	ex_fail(x, *x->p ? "expected a number, a name or '('" : "unexpected end");
	return 0;
}

static double e_mul(struct ex *x)
{
	double v = e_atom(x), r;

	for (;;) {
		if (eat(x, "*")) {
			v *= e_atom(x);
		} else if (eat(x, "/") || eat(x, "%")) {
			int mod = x->p[-1] == '%';

			r = e_atom(x);
			if (r == 0) {
				ex_fail(x, "division by zero");
				return 0;
			}
			v = mod ? fmod(v, r) : v / r;
		} else {
			return v;
		}
	}
}

static double e_add(struct ex *x)
{
	double v = e_mul(x);

	for (;;) {
		if (eat(x, "+"))
			v += e_mul(x);
		else if (eat(x, "-"))
			v -= e_mul(x);
		else
			return v;
	}
}

static double e_rel(struct ex *x)
{
	double v = e_add(x);

	for (;;) {
		if (eat(x, "<="))
			v = v <= e_add(x);
		else if (eat(x, ">="))
			v = v >= e_add(x);
		else if (eat(x, "<"))
			v = v < e_add(x);
		else if (eat(x, ">"))
			v = v > e_add(x);
		else
			return v;
	}
}

static double e_eq(struct ex *x)
{
	double v = e_rel(x);

	for (;;) {
		if (eat(x, "=="))
			v = v == e_rel(x);
		else if (eat(x, "!="))
			v = v != e_rel(x);
		else
			return v;
	}
}

/* Both sides are always evaluated: a constraint has no side effects, and
 * an unknown name on the right is reported whatever the left is. */
static double e_and(struct ex *x)
{
	double v = e_eq(x);

	while (eat(x, "&&")) {
		double r = e_eq(x);

		v = v != 0 && r != 0;
	}
	return v;
}

static double e_or(struct ex *x)
{
	double v = e_and(x);

	while (eat(x, "||")) {
		double r = e_and(x);

		v = v != 0 || r != 0;
	}
	return v;
}

int expr_eval(const char *text, expr_lookup_fn fn, void *ctx, double *out,
	      char *err, size_t n_err)
{
	struct ex x = { text, text, fn, ctx, err, n_err, 0 };
	double v = e_or(&x);

	skip(&x);
	if (!x.failed && *x.p)
		ex_fail(&x, "unexpected text");
	if (x.failed)
		return -1;
	*out = v;
	return 0;
}
