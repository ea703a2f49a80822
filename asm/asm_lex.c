/*
 * asm_lex.c - the assembler's tokens, expressions and symbol table.
 *
 * Lines are tokenised whole (comments end a line: '#', ';' or "//").
 * Expressions have C's operators and precedence, evaluated in 64-bit two's
 * complement with wrapping + - * (never undefined behaviour: the arithmetic
 * is done on uint64_t), division truncating toward zero, and errors for
 * division by zero and shift counts outside 0..63.
 *
 * Precedence (loosest first, as in C): ?: || && | ^ & (== !=)
 * (< <= > >=) (<< >>) (+ -) (* / %), then unary - + ~ !.  The parser is
 * precedence climbing (parse_bin) under a recursive ?: (parse_cond).
 *
 * Symbols live in an open-addressing hash table (FNV-1a, linear probing,
 * load <= 1/2).  Iteration order is never used for output, so the table's
 * layout cannot make results depend on anything but the input.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/dtype.h"
#include "../util/strutil.h"
#include "asm_int.h"

/* ---- arena ----------------------------------------------------------------*/

struct arena_blk {
	struct arena_blk *next;  /* older block */
	size_t used, cap;        /* bytes used / available in data */
	max_align_t data[];      /* storage */
};

/*
 * The remainder of a block that cannot hold n is abandoned (at most one
 * allocation's worth per block); a new block becomes the head.  Memory is
 * zeroed here, so records built in the arena start with NULL pointers
 * and zero counts.
 */
void *arena_alloc(struct arena *ar, size_t n)
{
	struct arena_blk *b = ar->head;
	void *p;

	/* Keep every allocation aligned for any type. */
	n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) *
	    sizeof(max_align_t);
	if (!b || b->cap - b->used < n) {
		size_t cap = n > 65536 ? n : 65536;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->next = ar->head;
		b->used = 0;
		b->cap = cap;
		ar->head = b;
	}
	p = (char *)b->data + b->used;
	b->used += n;
	memset(p, 0, n);
	return p;
}

char *arena_strndup(struct arena *ar, const char *s, size_t n)
{
	char *p = arena_alloc(ar, n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

void arena_free(struct arena *ar)
{
	while (ar->head) {
		struct arena_blk *b = ar->head;

		ar->head = b->next;
		free(b);
	}
}

/* ---- tokens ---------------------------------------------------------------*/

/*
 * Identifiers: [A-Za-z_.][A-Za-z0-9_.]*.  The dot makes directives and
 * local-looking labels (.L1) ordinary words.  c is an unsigned char value
 * (isalpha of a negative char is undefined).
 */
static int is_ident_start(int c)
{
	return isalpha(c) || c == '_' || c == '.';
}

static int is_ident_char(int c)
{
	return isalnum(c) || c == '_' || c == '.';
}

/*
 * The token buffer is reused for every line (A->tk.n = 0 in asm_lex), so
 * it grows to the longest line once and is freed at cleanup.
 */
static struct tok *tk_push(struct asm_ctx *A)
{
	struct toks *t = &A->tk;

	if (t->n == t->cap) {
		int cap = t->cap ? t->cap * 2 : 32;
		struct tok *v = realloc(t->v, (size_t)cap * sizeof(*v));

		if (!v)
			return NULL;
		t->v = v;
		t->cap = cap;
	}
	memset(&t->v[t->n], 0, sizeof(t->v[0]));
	return &t->v[t->n++];
}

/*
 * Value of an escape character after '\'; -1 if unknown.
 * The escapes of C that assembly sources use; \x.. and octal are not.
 */
static int escape_char(int c)
{
	switch (c) {
	case 'n': return '\n';
	case 't': return '\t';
	case 'r': return '\r';
	case '0': return '\0';
	case '\\': return '\\';
	case '\'': return '\'';
	case '"': return '"';
	default: return -1;
	}
}

/* Digit value of c in base, or -1. */
static int digit_val(int c, int base)
{
	int v;

	if (c >= '0' && c <= '9')
		v = c - '0';
	else if (c >= 'a' && c <= 'z')
		v = c - 'a' + 10;
	else if (c >= 'A' && c <= 'Z')
		v = c - 'A' + 10;
	else
		return -1;
	return v < base ? v : -1;
}

/*
 * Lex a number starting at s (a digit).  Integers: decimal, 0x, 0b, 0o.
 * Floats: decimal with '.' or exponent, or hex with '.' or 'p' exponent.
 *
 * The extent is taken first (so "12abc" is one bad number, not 12 then
 * a name) and then interpreted.  A '.', or an exponent letter (e/E in
 * decimal, p/P in hex), makes a float: 1e3, 0x1.8p1.  0b/0o numbers are
 * integers only.
 */
static int lex_number(struct asm_ctx *A, const struct where *w, const char *s,
		      int col, struct tok *t)
{
	/*
	 * A leading 0 alone is decimal (010 is ten), unlike C: octal needs
	 * 0o, which avoids the classic surprise of 010 == 8.
	 */
	int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	size_t n = 0;
	int base = 10, is_float = 0;
	size_t i, start = 0;
	uint64_t v = 0;

	/* The extent: alphanumerics, '.', and a sign right after an exponent. */
	while (is_ident_char((unsigned char)s[n]) ||
	       ((s[n] == '+' || s[n] == '-') && n > 0 &&
		((!hex && (s[n - 1] == 'e' || s[n - 1] == 'E')) ||
		 (hex && (s[n - 1] == 'p' || s[n - 1] == 'P')))))
		n++;
	t->k = T_NUM;
	t->len = (int)n;
	if (hex) {
		base = 16;
		start = 2;
	} else if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
		base = 2;
		start = 2;
	} else if (s[0] == '0' && (s[1] == 'o' || s[1] == 'O')) {
		base = 8;
		start = 2;
	}
	for (i = start; i < n; i++)
		if (s[i] == '.' || (!hex && (s[i] == 'e' || s[i] == 'E')) ||
		    (hex && (s[i] == 'p' || s[i] == 'P')))
			is_float = 1;
	if (is_float && (base == 10 || base == 16)) {
		char buf[128];
		char *end;

		if (n >= sizeof(buf))
			return asm_error(A, w, col, "number too long");
		memcpy(buf, s, n);
		buf[n] = '\0';
		errno = 0;
		/*
		 * .float and f32() use the literal rounded once, decimal ->
		 * binary32 (strtof); going through a double first could round
		 * twice near a halfway point.
		 */
		t->fnum = strtod(buf, &end);
		if (*end)
			return asm_error(A, w, col, "invalid number '%s'", buf);
		t->fnum32 = strtof(buf, NULL);
		t->k = T_FLOAT;
		return 0;
	}
	/* "0x" with no digits. */
	if (start == n)
		return asm_error(A, w, col, "invalid number '%.*s'", (int)n, s);
	for (i = start; i < n; i++) {
		int dv = digit_val((unsigned char)s[i], base);

		if (dv < 0)
			return asm_error(A, w, col + (int)i,
					 "invalid digit '%c' in number '%.*s'",
					 s[i], (int)n, s);
		/* Integer literals are 64-bit: anything larger is a mistake. */
		if (v > (UINT64_MAX - (uint64_t)dv) / (uint64_t)base)
			return asm_error(A, w, col,
					 "integer literal '%.*s' does not fit "
					 "in 64 bits", (int)n, s);
		v = v * (uint64_t)base + (uint64_t)dv;
	}
	t->num = v;
	return 0;
}

/* Two-character operators, longest match first. */
static const struct {
	char s[3]; /* the two characters, NUL-terminated */
	int op; /* OP_* code */
} ops2[] = {
	{ "<<", OP_SHL }, { ">>", OP_SHR }, { "<=", OP_LE }, { ">=", OP_GE },
	{ "==", OP_EQ },  { "!=", OP_NE },  { "&&", OP_LAND }, { "||", OP_LOR },
};

/*
 * Token text is not copied: t->s points into the line (which lives
 * until cleanup), t->len counts its characters.  Columns are 1-based
 * byte offsets (a tab counts as one; diag_caret copies tabs into the
 * caret line so the caret still lines up).
 */
int asm_lex(struct asm_ctx *A, const char *text, const struct where *w)
{
	const char *p = text;

	A->tk.n = 0;
	for (;;) {
		struct tok *t;
		int col = (int)(p - text) + 1;
		size_t k;

		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' ||
		       *p == '\v')
			p++;
		col = (int)(p - text) + 1;
		t = tk_push(A);
		if (!t)
			return asm_oom(A);
		t->col = col;
		t->s = p;
		if (!*p || *p == '#' || *p == ';' || (p[0] == '/' && p[1] == '/')) {
			t->k = T_EOL;
			return 0;
		}
		if (is_ident_start((unsigned char)*p)) {
			while (is_ident_char((unsigned char)p[t->len]))
				t->len++;
			t->k = T_IDENT;
			p += t->len;
			continue;
		}
		if (isdigit((unsigned char)*p)) {
			if (lex_number(A, w, p, col, t))
				return EV_ERR;
			p += t->len;
			continue;
		}
		if (*p == '\'') {
			/* Character literal: 'a' or '\n'. */
			int c;
			size_t len;

			/* '\n' is 4 characters, 'a' is 3. */
			if (p[1] == '\\') {
				c = escape_char((unsigned char)p[2]);
				len = 4;
			} else {
				c = (unsigned char)p[1];
				len = 3;
			}
			/* '' (empty) and a missing closing quote are errors. */
			if (c < 0 || !p[1] || p[len - 1] != '\'' ||
			    (p[1] == '\'' && len == 3))
				return asm_error(A, w, col,
						 "invalid character literal");
			t->k = T_NUM;
			t->num = (uint64_t)c;
			t->len = (int)len;
			p += len;
			continue;
		}
		if (*p == '"') {
			/* String: decoded into the arena. */
			const char *q = p + 1;
			char *dst;
			size_t n = 0;

			/* Decoding never lengthens: the rest of the line fits. */
			dst = arena_alloc(&A->ar, strlen(q) + 1);
			if (!dst)
				return asm_oom(A);
			while (*q && *q != '"') {
				int c = (unsigned char)*q;

				if (c == '\\') {
					c = escape_char((unsigned char)q[1]);
					if (c < 0)
						return asm_error(
							A, w, (int)(q - text) + 1,
							"unknown escape '\\%c' in "
							"string", q[1] ? q[1] : ' ');
					q++;
				}
				dst[n++] = (char)c;
				q++;
			}
			if (*q != '"')
				return asm_error(A, w, col,
						 "missing closing '\"'");
			dst[n] = '\0';
			t->k = T_STR;
			t->str = dst;
			t->len = (int)(q + 1 - p);
			p = q + 1;
			continue;
		}
		/*
		 * Operators: the two-character ones first (longest match),
		 * then single characters from the expression and operand
		 * syntax.  '\' outside a macro body means a parameter that was
		 * not substituted.
		 */
		t->k = T_PUNCT;
		for (k = 0; k < sizeof(ops2) / sizeof(ops2[0]); k++)
			if (p[0] == ops2[k].s[0] && p[1] == ops2[k].s[1]) {
				t->op = ops2[k].op;
				t->len = 2;
				break;
			}
		if (!t->len) {
			if (*p == '\\')
				return asm_error(A, w, col,
						 "unexpected '\\' (not a parameter "
						 "of the macro being expanded?)");
			if (!strchr("()+-*/%~!?:=&|^<>,", *p) || !*p)
				return asm_error(
					A, w, col,
					isprint((unsigned char)*p)
						? "unexpected character '%c'"
						: "unexpected character (byte "
						  "0x%02x)",
					isprint((unsigned char)*p)
						? *p
						: (unsigned char)*p);
			t->op = (unsigned char)*p;
			t->len = 1;
		}
		p += t->len;
	}
}

/* At most 40 characters of the token: messages stay one line. */
const char *asm_tok_desc(const struct tok *t, char *buf, size_t n)
{
	if (t->k == T_EOL)
		snprintf(buf, n, "end of line");
	else
		snprintf(buf, n, "'%.*s'", t->len > 40 ? 40 : t->len, t->s);
	return buf;
}

/*
 * Copy token text into buf (truncated).
 * n must be at least 1; every caller passes a local array.
 */
const char *asm_tok_text(const struct tok *t, char *buf, size_t n)
{
	size_t len = (size_t)t->len < n - 1 ? (size_t)t->len : n - 1;

	memcpy(buf, t->s, len);
	buf[len] = '\0';
	return buf;
}

/* Nothing may follow the operands of a directive. */
int asm_expect_eol(struct asm_ctx *A, const struct where *w, int i,
		      const char *dir)
{
	char buf[64];

	if (A->tk.v[i].k == T_EOL)
		return 0;
	return asm_error(A, w, A->tk.v[i].col, "unexpected %s after %s",
			 asm_tok_desc(&A->tk.v[i], buf, sizeof(buf)), dir);
}

/* ---- expression parser ----------------------------------------------------*/

/* The parser reads A->tk, the tokens of the current line. */
struct parser {
	struct asm_ctx *A; /* the assembly (tokens, errors) */
	const struct where *w; /* line, for messages */
	int i;       /* current token */
	int depth;   /* nesting, bounded by ASM_MAX_EXPR_DEPTH */
	int n_ops;   /* binary and ?: operators so far, <= ASM_MAX_EXPR_OPS */
};

static struct expr *new_expr(struct parser *P, enum expr_kind k, int col)
{
	struct expr *e = arena_alloc(&P->A->ar, sizeof(*e));

	if (!e) {
		asm_oom(P->A);
		return NULL;
	}
	e->kind = k;
	e->col = col;
	return e;
}

static const struct tok *cur(struct parser *P)
{
	return &P->A->tk.v[P->i];
}

static int is_punct(const struct tok *t, int op)
{
	return t->k == T_PUNCT && t->op == op;
}

/*
 * Binary precedence of t (C's order), 0 if t is not a binary operator.
 * Larger binds tighter.  Unary operators bind tighter than every binary
 * one (parse_unary), and ?: looser than all (parse_cond).
 */
static int bin_prec(const struct tok *t)
{
	if (t->k != T_PUNCT)
		return 0;
	switch (t->op) {
	case OP_LOR: return 1;
	case OP_LAND: return 2;
	case '|': return 3;
	case '^': return 4;
	case '&': return 5;
	case OP_EQ: case OP_NE: return 6;
	case '<': case '>': case OP_LE: case OP_GE: return 7;
	case OP_SHL: case OP_SHR: return 8;
	case '+': case '-': return 9;
	case '*': case '/': case '%': return 10;
	default: return 0;
	}
}

static struct expr *parse_cond(struct parser *P);

/*
 * f32(NUMBER): the fp32 bit pattern of a literal, for oscale and friends.
 * f32 is recognised only when followed by '(', so a symbol called f32
 * still works elsewhere.  The value becomes an E_NUM: no symbol may
 * appear inside, the argument is a literal.
 */
static struct expr *parse_f32(struct parser *P, int col)
{
	const struct tok *t;
	double sign = 1.0, v;
	struct expr *e;
	char buf[64];

	P->i += 2; /* f32 ( */
	t = cur(P);
	while (is_punct(t, '-') || is_punct(t, '+')) {
		if (t->op == '-')
			sign = -sign;
		P->i++;
		t = cur(P);
	}
	/* One rounding to fp32 for either kind of literal. */
	if (t->k == T_NUM)
		v = (float)t->num;
	else if (t->k == T_FLOAT)
		v = t->fnum32;
	else if (t->k == T_IDENT && t->len == 3 && !strncmp(t->s, "inf", 3))
		v = INFINITY;
	else if (t->k == T_IDENT && t->len == 3 && !strncmp(t->s, "nan", 3))
		v = NAN;
	else {
		asm_error(P->A, P->w, t->col,
			  "f32() takes a number, found %s",
			  asm_tok_desc(t, buf, sizeof(buf)));
		return NULL;
	}
	P->i++;
	if (!is_punct(cur(P), ')')) {
		asm_error(P->A, P->w, cur(P)->col, "expected ')' after f32(%s",
			  "number");
		return NULL;
	}
	P->i++;
	e = new_expr(P, E_NUM, col);
	if (e)
		e->val = (int64_t)asm_f32_bits(sign * v);
	return e;
}

/*
 * A primary or a unary operator applied to one: '(' expr ')', a number,
 * `.`, f32(NUMBER), or a symbol name (resolved at evaluation, so it may
 * be defined later).  A float literal here is an error: expressions are
 * integers, and the message points to f32().
 */
static struct expr *parse_unary(struct parser *P)
{
	const struct tok *t = cur(P);
	struct expr *e;
	char buf[64];

	/*
	 * depth counts open parentheses and unary operators along the
	 * current path (each success path decrements it again).
	 */
	if (++P->depth > ASM_MAX_EXPR_DEPTH) {
		asm_error(P->A, P->w, t->col, "expression nested too deeply");
		return NULL;
	}
	if (is_punct(t, '-') || is_punct(t, '+') || is_punct(t, '~') ||
	    is_punct(t, '!')) {
		/*
		 * Unary minus/plus get their own codes so the evaluator does
		 * not confuse them with the binary '-'/'+' of E_BIN.
		 */
		int op = t->op == '-' ? OP_NEG : t->op == '+' ? OP_POS : t->op;

		P->i++;
		e = new_expr(P, E_UN, t->col);
		if (!e || !(e->a = parse_unary(P)))
			return NULL;
		e->op = op;
		P->depth--;
		return e;
	}
	if (is_punct(t, '(')) {
		P->i++;
		e = parse_cond(P);
		if (!e)
			return NULL;
		if (!is_punct(cur(P), ')')) {
			asm_error(P->A, P->w, cur(P)->col,
				  "expected ')' to match '(' at column %d, "
				  "found %s", t->col,
				  asm_tok_desc(cur(P), buf, sizeof(buf)));
			return NULL;
		}
		P->i++;
		P->depth--;
		return e;
	}
	if (t->k == T_NUM) {
		P->i++;
		/* Literals above INT64_MAX wrap: 0xffffffffffffffff is -1. */
		e = new_expr(P, E_NUM, t->col);
		if (e)
			e->val = (int64_t)t->num;
		P->depth--;
		return e;
	}
	if (t->k == T_IDENT) {
		if (t->len == 1 && t->s[0] == '.') {
			P->i++;
			P->depth--;
			return new_expr(P, E_DOT, t->col);
		}
		if (t->len == 3 && !strncmp(t->s, "f32", 3) &&
		    is_punct(&P->A->tk.v[P->i + 1], '(')) {
			P->depth--;
			return parse_f32(P, t->col);
		}
		P->i++;
		e = new_expr(P, E_SYM, t->col);
		if (!e)
			return NULL;
		e->name = arena_strndup(&P->A->ar, t->s, (size_t)t->len);
		if (!e->name) {
			asm_oom(P->A);
			return NULL;
		}
		P->depth--;
		return e;
	}
	if (t->k == T_FLOAT)
		asm_error(P->A, P->w, t->col,
			  "floating-point number in an integer expression "
			  "(use f32(%.*s) for its fp32 bits)", t->len, t->s);
	else
		asm_error(P->A, P->w, t->col, "expected an expression, found %s",
			  asm_tok_desc(t, buf, sizeof(buf)));
	return NULL;
}

/*
 * Precedence climbing: take a unary operand, then absorb every binary
 * operator of precedence >= min_prec, parsing its right side with
 * min_prec = prec + 1 so that operators of equal precedence group to the
 * left (a - b - c is (a - b) - c).
 */
static struct expr *parse_bin(struct parser *P, int min_prec)
{
	struct expr *lhs = parse_unary(P);

	while (lhs) {
		const struct tok *t = cur(P);
		int prec = bin_prec(t);
		struct expr *e;

		if (!prec || prec < min_prec)
			break;
		if (++P->n_ops > ASM_MAX_EXPR_OPS) {
			asm_error(P->A, P->w, t->col,
				  "expression has more than %d operators",
				  ASM_MAX_EXPR_OPS);
			return NULL;
		}
		P->i++;
		e = new_expr(P, E_BIN, t->col);
		if (!e)
			return NULL;
		e->op = t->op;
		e->a = lhs;
		/* Left associative: the right side binds tighter operators. */
		e->b = parse_bin(P, prec + 1);
		if (!e->b)
			return NULL;
		lhs = e;
	}
	return lhs;
}

/*
 * cond ? a : b, right-associative like C: a ? b : c ? d : e groups as
 * a ? b : (c ? d : e).  The middle operand is a full conditional too.
 */
static struct expr *parse_cond(struct parser *P)
{
	struct expr *c = parse_bin(P, 1), *e;
	const struct tok *t;
	char buf[64];

	if (!c || !is_punct(cur(P), '?'))
		return c;
	t = cur(P);
	/* Each ?: recurses once while parsing: the operator limit bounds
	 * that stack as well as the evaluator's. */
	if (++P->n_ops > ASM_MAX_EXPR_OPS) {
		asm_error(P->A, P->w, t->col, "expression has more than %d operators",
			  ASM_MAX_EXPR_OPS);
		return NULL;
	}
	P->i++;
	e = new_expr(P, E_COND, t->col);
	if (!e)
		return NULL;
	e->a = c;
	if (!(e->b = parse_cond(P)))
		return NULL;
	if (!is_punct(cur(P), ':')) {
		asm_error(P->A, P->w, cur(P)->col,
			  "expected ':' in conditional expression, found %s",
			  asm_tok_desc(cur(P), buf, sizeof(buf)));
		return NULL;
	}
	P->i++;
	if (!(e->c = parse_cond(P)))
		return NULL;
	return e;
}

/*
 * The parse stops at the first token that cannot continue an expression
 * (',', ')', EOL, ...); *i is left there for the caller to check.
 */
struct expr *asm_parse_expr(struct asm_ctx *A, const struct where *w, int *i)
{
	struct parser P = { A, w, *i, 0, 0 };
	struct expr *e = parse_cond(&P);

	*i = P.i;
	return e;
}

/* ---- evaluation -----------------------------------------------------------*/

static int eval(struct asm_ctx *A, const struct expr *e, uint64_t dot,
		const struct where *w, int64_t *out, int depth);

/*
 * Value of symbol s, evaluating a pending definition on first use.
 * A pending definition is evaluated in the context of its definition:
 * its own `.` (s->dot) and line (errors point there).  SS_EVALUATING
 * while it runs turns self-reference into a "circular" error instead of
 * infinite recursion.
 */
static int sym_value(struct asm_ctx *A, struct sym *s, const struct expr *ref,
		     const struct where *w, int64_t *out, int depth)
{
	int r;

	switch (s->state) {
	case SS_VALUE:
		*out = s->value;
		return EV_OK;
	case SS_BAD:
		return EV_ERR; /* its definition already reported an error */
	case SS_EVALUATING:
		return asm_error(A, w, ref->col,
				 "circular definition: '%s' depends on itself",
				 s->name);
	case SS_PENDING:
		break;
	}
	if (depth > ASM_MAX_EVAL_DEPTH)
		return asm_error(A, w, ref->col,
				 "symbol definitions nested too deeply at '%s'",
				 s->name);
	s->state = SS_EVALUATING;
	r = eval(A, s->e, s->dot, s->w, out, depth + 1);
	if (r == EV_OK) {
		s->state = SS_VALUE;
		s->value = *out;
	} else if (r == EV_UNDEF) {
		s->state = SS_PENDING; /* retry when more is known */
	} else {
		s->state = SS_BAD;
	}
	return r;
}

/*
 * Arithmetic on uint64_t images so that overflow wraps (2^64) instead of
 * being undefined; comparisons and / % use the signed values.  EV_UNDEF
 * propagates unless the result does not depend on the unknown operand
 * (&& / || short-circuit, a ? b : c with a known).
 */
static int eval(struct asm_ctx *A, const struct expr *e, uint64_t dot,
		const struct where *w, int64_t *out, int depth)
{
	int64_t a = 0, b = 0;
	uint64_t ua, ub;
	int r, r2;

	switch (e->kind) {
	case E_NUM:
		*out = e->val;
		return EV_OK;
	case E_DOT:
		*out = (int64_t)dot;
		return EV_OK;
	case E_SYM: {
		struct sym *s = asm_sym_find(A, e->name);
		const char *sug;

		if (s)
			return sym_value(A, s, e, w, out, depth);
		/* In pass 1 the name may be a later label: not an error yet. */
		if (A->pass == 1)
			return EV_UNDEF;
		/* A common slip: `addi t0, t0, t1`; name it as such. */
		if (isa_reg_by_name(e->name) >= 0)
			return asm_error(A, w, e->col,
					 "register '%s' used in an expression",
					 e->name);
		sug = asm_sym_suggest(A, e->name);
		if (sug)
			return asm_error(A, w, e->col,
					 "undefined symbol '%s' (did you mean "
					 "'%s'?)", e->name, sug);
		return asm_error(A, w, e->col, "undefined symbol '%s'", e->name);
	}
	case E_UN:
		r = eval(A, e->a, dot, w, &a, depth + 1);
		if (r)
			return r;
		ua = (uint64_t)a;
		switch (e->op) {
		case OP_NEG: *out = (int64_t)(0 - ua); break;
		case OP_POS: *out = a; break;
		case '~': *out = (int64_t)~ua; break;
		case '!': *out = !a; break;
		}
		return EV_OK;
	case E_COND:
		r = eval(A, e->a, dot, w, &a, depth + 1);
		if (r)
			return r;
		return eval(A, a ? e->b : e->c, dot, w, out, depth + 1);
	case E_BIN:
		break;
	}
	/* Short-circuit like C: the right side is not evaluated if not needed. */
	r = eval(A, e->a, dot, w, &a, depth + 1);
	if (r == EV_ERR)
		return r;
	if (r == EV_OK && ((e->op == OP_LAND && !a) || (e->op == OP_LOR && a))) {
		/* Decided by the left side alone (false && x, true || x). */
		*out = e->op == OP_LOR;
		return EV_OK;
	}
	r2 = eval(A, e->b, dot, w, &b, depth + 1);
	if (r2 == EV_ERR)
		return r2;
	/* One side unknown (pass 1): the whole is unknown. */
	if (r || r2)
		return EV_UNDEF;
	ua = (uint64_t)a;
	ub = (uint64_t)b;
	switch (e->op) {
	case '+': *out = (int64_t)(ua + ub); break;
	case '-': *out = (int64_t)(ua - ub); break;
	case '*': *out = (int64_t)(ua * ub); break;
	case '/':
	case '%':
		if (b == 0)
			return asm_error(A, w, e->col, "division by zero");
		/*
		 * INT64_MIN / -1 overflows in C; define it as wrapping.
		 * x % -1 is 0 for every x.
		 */
		if (b == -1)
			*out = e->op == '/' ? (int64_t)(0 - ua) : 0;
		else
			*out = e->op == '/' ? a / b : a % b;
		break;
	case OP_SHL:
	case OP_SHR:
		/*
		 * >> is arithmetic without relying on implementation-defined
		 * signed shifts: for a < 0, ~ua is the non-negative ~a, and
		 * shifting it then complementing back fills the top with ones.
		 */
		if (b < 0 || b > 63)
			return asm_error(A, w, e->col,
					 "shift count %lld out of range [0, 63]",
					 (long long)b);
		if (e->op == OP_SHL)
			*out = (int64_t)(ua << b);
		else /* arithmetic, as C on two's complement machines */
			*out = a < 0 ? (int64_t)~(~ua >> b) : (int64_t)(ua >> b);
		break;
	case '<': *out = a < b; break;
	case '>': *out = a > b; break;
	case OP_LE: *out = a <= b; break;
	case OP_GE: *out = a >= b; break;
	case OP_EQ: *out = a == b; break;
	case OP_NE: *out = a != b; break;
	case '&': *out = (int64_t)(ua & ub); break;
	case '|': *out = (int64_t)(ua | ub); break;
	case '^': *out = (int64_t)(ua ^ ub); break;
	case OP_LAND: *out = a && b; break;
	case OP_LOR: *out = a || b; break;
	default: *out = 0; break;
	}
	return EV_OK;
}

int asm_eval(struct asm_ctx *A, const struct expr *e, uint64_t dot,
	     const struct where *w, int64_t *out)
{
	*out = 0;
	return eval(A, e, dot, w, out, 0);
}

/*
 * Walks the tree in operand order (a, b, c), looking through pending
 * symbols to the name that is really missing, e.g. the label a li
 * depends on through an .equ.  NULL if everything is known.
 */
const char *asm_first_undef(struct asm_ctx *A, const struct expr *e)
{
	const char *n;
	struct sym *s;

	if (!e)
		return NULL;
	if (e->kind == E_SYM) {
		s = asm_sym_find(A, e->name);
		if (!s)
			return e->name;
		if (s->state == SS_PENDING)
			return asm_first_undef(A, s->e) ? asm_first_undef(A, s->e)
							: s->name;
		return NULL;
	}
	if ((n = asm_first_undef(A, e->a)))
		return n;
	if ((n = asm_first_undef(A, e->b)))
		return n;
	return asm_first_undef(A, e->c);
}

/*
 * Evaluate an expression whose value is needed in pass 1 (a size, an
 * address, a condition).  what names it for the message.
 *
 * `.` is the current location of the current space: the address the
 * directive being parsed would place its first byte at.
 */
static int eval_now(struct asm_ctx *A, const struct where *w,
		    const struct expr *e, const char *what, int64_t *v)
{
	int r = asm_eval(A, e, A->loc[A->space], w, v);

	if (r == EV_UNDEF)
		return asm_error(A, w, e->col,
				 "%s must be known here, but '%s' is not "
				 "defined before this line", what,
				 asm_first_undef(A, e));
	return r;
}

/* Parse EXPR at *i and evaluate it now. */
int asm_expr_now(struct asm_ctx *A, const struct where *w, int *i,
		    const char *what, int64_t *v)
{
	struct expr *e = asm_parse_expr(A, w, i);

	if (!e)
		return EV_ERR;
	return eval_now(A, w, e, what, v);
}

/*
 * Callers pass values that are already fp32 (strtof, or a single int64 ->
 * float conversion), so this conversion is exact; only inf and NaN pass
 * through as such.
 */
uint32_t asm_f32_bits(double d)
{
	float f = (float)d; /* IEEE round-to-nearest-even, C's default mode */
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

/* ---- symbol table ---------------------------------------------------------*/

/* FNV-1a, 64-bit: offset basis 0xcbf29ce484222325, prime 2^40 + 0x1b3. */
static uint64_t hash_name(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/*
 * The slot holding name, or the empty slot where it would go.  cap_syms
 * is a power of two (256 doubling), so & (cap - 1) is the modulo; the
 * load of at most 1/2 guarantees an empty slot ends every probe.
 */
static struct sym **sym_slot(struct asm_ctx *A, const char *name, size_t n)
{
	size_t i = (size_t)hash_name(name, n) & (A->cap_syms - 1);

	while (A->symtab[i]) {
		const char *s = A->symtab[i]->name;

		if (strlen(s) == n && memcmp(s, name, n) == 0)
			break;
		i = (i + 1) & (A->cap_syms - 1);
	}
	return &A->symtab[i];
}

struct sym *asm_sym_find(struct asm_ctx *A, const char *name)
{
	if (!A->cap_syms)
		return NULL;
	return *sym_slot(A, name, strlen(name));
}

struct sym *asm_sym_add(struct asm_ctx *A, const char *name, size_t len)
{
	struct sym *s, **slot;

	/* Grow at half full so probes stay short. */
	if (2 * (A->n_syms + 1) > A->cap_syms) {
		size_t cap = A->cap_syms ? 2 * A->cap_syms : 256, i;
		struct sym **old = A->symtab;
		size_t old_cap = A->cap_syms;

		/* Rehash into a fresh table; on failure keep the old one. */
		A->symtab = calloc(cap, sizeof(*A->symtab));
		if (!A->symtab) {
			A->symtab = old;
			asm_oom(A);
			return NULL;
		}
		A->cap_syms = cap;
		for (i = 0; i < old_cap; i++)
			if (old[i])
				*sym_slot(A, old[i]->name,
					  strlen(old[i]->name)) = old[i];
		free(old);
	}
	s = arena_alloc(&A->ar, sizeof(*s));
	if (!s || !(s->name = arena_strndup(&A->ar, name, len))) {
		asm_oom(A);
		return NULL;
	}
	slot = sym_slot(A, name, len);
	*slot = s;
	A->n_syms++;
	return s;
}

/*
 * Did-you-mean among every symbol, builtins included (a misspelt
 * "bfl16" should suggest bf16).  Runs only on an undefined-symbol error.
 */
const char *asm_sym_suggest(struct asm_ctx *A, const char *name)
{
	const char **names;
	const char *best;
	size_t i, n = 0;

	names = malloc((A->n_syms + 1) * sizeof(*names));
	if (!names)
		return NULL;
	{
		/* Lengths too different cannot be within the distance limit. */
		size_t len = strlen(name), lim = len / 3 < 2 ? 2 : len / 3;

		for (i = 0; i < A->cap_syms; i++) {
			size_t l;

			if (!A->symtab[i])
				continue;
			l = strlen(A->symtab[i]->name);
			if (l + lim >= len && l <= len + lim)
				names[n++] = A->symtab[i]->name;
		}
	}
	best = str_suggest(name, names, n, sizeof(*names));
	/*
	 * Equally close candidates are resolved by table position; make that
	 * independent of hashing by preferring the alphabetically first.
	 */
	if (best) {
		int bd = str_distance(name, best, 1000);

		for (i = 0; i < n; i++)
			if (str_distance(name, names[i], 1000) == bd &&
			    strcmp(names[i], best) < 0)
				best = names[i];
	}
	free(names);
	return best;
}

/*
 * Register names (x0..x31, ABI names, fp) cannot be symbols: operands
 * that take a register or an expression would be ambiguous.
 */
int asm_name_reserved(const char *name)
{
	return isa_reg_by_name(name) >= 0;
}
