/*
 * asm_src.c - where the assembler's lines come from.
 *
 * Input is a stack of frames: the main file, files pushed by .include, and
 * macro expansions.  asm_next_line() returns the next line of the top frame
 * (substituting macro arguments into body lines) and pops frames as they
 * end, checking that every .if opened in a frame is closed in it.  Macro
 * bodies are captured raw at definition (asm_macro_add_line) and parsed only
 * when expanded, so a body may contain conditionals on its arguments.
 *
 * Conditional assembly is a stack of struct cond; a line is live when the
 * innermost .if branch is active (asm_active).  Conditions are evaluated in
 * pass 1 and must only use names defined above them.
 *
 * Limits (asm_int.h): include/macro nesting ASM_MAX_DEPTH (64), macro
 * expansions 100000, lines read 10^6, text produced by substitution
 * 16 MiB, one substituted line 1 MiB; each ends the assembly with an
 * error instead of exhausting memory or the stack.
 *
 * Every line gets a struct where with a reading sequence number, which is
 * how errors found later (pass 2) are sorted back into reading order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strutil.h"
#include "asm_int.h"

/*
 * Keep text as a file: split lines, check for NUL bytes.
 * Ownership: text is adopted (freed at cleanup, or here on failure).  A
 * file of n '\n' has at most n + 1 lines; a final '\n' does not start an
 * empty last line, and "\r\n" and a trailing '\r' lose the '\r'.
 */
struct src_file *asm_add_file(struct asm_ctx *A, const char *path,
				 char *text, size_t len)
{
	struct src_file *f = calloc(1, sizeof(*f));
	size_t i, n = 1, k = 0;

	if (!f || !(f->path = str_dup(path))) {
		free(f);
		free(text);
		asm_oom(A);
		return NULL;
	}
	f->text = text;
	f->next = A->files;
	A->files = f;
	for (i = 0; i < len; i++)
		n += text[i] == '\n';
	f->lines = malloc(n * sizeof(*f->lines));
	if (!f->lines) {
		asm_oom(A);
		return NULL;
	}
	f->lines[k++] = text;
	for (i = 0; i < len; i++) {
		if (text[i] == '\n') {
			text[i] = '\0';
			if (i > 0 && text[i - 1] == '\r')
				text[i - 1] = '\0';
			if (i + 1 < len)
				f->lines[k++] = text + i + 1;
		} else if (text[i] == '\0') {
			/* A NUL would silently cut the line: say so. */
			struct where *w = arena_alloc(&A->ar, sizeof(*w));

			if (!w) {
				asm_oom(A);
				return NULL;
			}
			w->file = f->path;
			w->line = (int)k;
			/*
			 * seq = lines read so far: the error sorts with the
			 * line that made us read this file (the .include),
			 * before every line of the file itself.
			 */
			w->seq = A->line_seq;

			text[i] = ' ';
			asm_error(A, w, (int)(text + i - f->lines[k - 1]) + 1,
				  "NUL byte in source file");
		}
	}
	if (len > 0 && text[len - 1] == '\r')
		text[len - 1] = '\0';
	/* A final newline does not start another line. */
	f->n_lines = (int)k;
	return f;
}

/*
 * Read a whole file; NULL with errno set on failure.
 * Read in doubling chunks rather than trusting a size from stat: works
 * for pipes and /dev/stdin too.  One byte is kept free for the final
 * NUL, so the buffer is always a C string (NULs inside are reported by
 * asm_add_file).
 */
char *asm_slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!fp)
		return NULL;
	for (;;) {
		size_t r;

		if (n + 1 >= cap) {
			char *nb;

			cap = cap ? cap * 2 : 65536;
			/* Sources beyond 256 MiB are surely a mistake. */
			if (cap > (256u << 20)) {
				free(buf);
				fclose(fp);
				errno = EFBIG;
				return NULL;
			}
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(fp);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
		}
		r = fread(buf + n, 1, cap - n - 1, fp);
		n += r;
		if (r == 0)
			break;
	}
	if (ferror(fp)) {
		free(buf);
		fclose(fp);
		errno = EIO;
		return NULL;
	}
	fclose(fp);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/*
 * Start reading f: push a frame.  cond_base remembers how many .if blocks
 * were open, so that blocks opened inside the file must close inside it.
 */
int asm_push_file(struct asm_ctx *A, struct src_file *f)
{
	struct frame *fr = arena_alloc(&A->ar, sizeof(*fr));

	if (!fr)
		return asm_oom(A);
	fr->f = f;
	fr->cond_base = A->n_conds;
	fr->up = A->top;
	A->top = fr;
	A->depth++;
	return 0;
}

/* .include "FILE" */
void asm_dir_include(struct asm_ctx *A, const struct where *w, int i)
{
	const struct tok *t = &A->tk.v[i];
	const char *cur_path = NULL;
	struct frame *fr;
	char *path = NULL, *text;
	size_t len = 0, k;
	struct src_file *f;
	char buf[64];

	if (t->k != T_STR) {
		(void)asm_error(A, w, t->col, "expected a file name in quotes, "
					      "found %s",
				asm_tok_desc(t, buf, sizeof(buf)));
		return;
	}
	if (asm_expect_eol(A, w, i + 1, ".include"))
		return;
	if (A->depth >= ASM_MAX_DEPTH) {
		(void)asm_error(A, w, t->col, ".include nested more than %d deep "
					      "(does the file include itself?)",
				ASM_MAX_DEPTH);
		return;
	}
	/*
	 * The including file is the innermost file frame: an .include
	 * inside a macro body is resolved relative to the file being read,
	 * not the one that defined the macro.
	 */
	for (fr = A->top; fr; fr = fr->up)
		if (!fr->is_macro) {
			cur_path = fr->f->path;
			break;
		}
	/* Next to the including file first, then each -I directory. */
	for (k = 0; k <= A->opts->n_include_dirs; k++) {
		const char *dir = NULL;
		size_t dlen = 0, n;

		if (t->str[0] == '/') {
			if (k > 0)
				break;
		} else if (k == 0) {
			const char *slash = cur_path ? strrchr(cur_path, '/') : NULL;

			dir = cur_path;
			dlen = slash ? (size_t)(slash - cur_path) : 0;
			if (!slash)
				dir = NULL;
		} else {
			dir = A->opts->include_dirs[k - 1];
			dlen = strlen(dir);
		}
		n = dlen + strlen(t->str) + 2;
		free(path);
		path = malloc(n);
		if (!path) {
			asm_oom(A);
			return;
		}
		if (dir && t->str[0] != '/')
			snprintf(path, n, "%.*s/%s", (int)dlen, dir, t->str);
		else
			snprintf(path, n, "%s", t->str);
		text = asm_slurp(path, &len);
		if (text) {
			f = asm_add_file(A, path, text, len);
			free(path);
			if (f)
				(void)asm_push_file(A, f);
			return;
		}
		/*
		 * Not found: try the next directory.  Anything else
		 * (permission, EFBIG from 256 MiB on) is reported at once.
		 */
		if (errno != ENOENT && errno != ENOTDIR) {
			(void)asm_error(A, w, t->col, "cannot read '%s': %s", path,
					strerror(errno));
			free(path);
			return;
		}
	}
	free(path);
	(void)asm_error(A, w, t->col,
			"cannot find include file '%s' (searched next to %s%s)",
			t->str, cur_path ? cur_path : "the input",
			A->opts->n_include_dirs ? " and in the -I directories"
						: "; add a directory with -I");
}

/* Macros are few: a list searched linearly is enough. */
struct macro *asm_find_macro(struct asm_ctx *A, const char *name, size_t len)
{
	struct macro *m;

	for (m = A->macros; m; m = m->next)
		if (strlen(m->name) == len && !memcmp(m->name, name, len))
			return m;
	return NULL;
}

/*
 * Split text into comma-separated pieces outside parentheses and quotes;
 * returns the count (at most max), with start/length/column of each.
 *
 * Used for both .macro parameter lists and macro call arguments, on the
 * raw text (arguments are text, substituted before lexing).  Returns the
 * full count even beyond max, so the caller can report "too many".
 */
static int split_args(const char *text, size_t len, int base_col,
		      const char **start, size_t *plen, int *pcol, int max)
{
	size_t k = 0, from = 0;
	int n = 0, depth = 0, quote = 0;

	/* A virtual ',' at the end closes the last argument. */
	for (k = 0; k <= len; k++) {
		char c = k < len ? text[k] : ',';

		if (quote) {
			/* Skip the escaped character ('\"' inside "..."). */
			if (c == '\\' && k + 1 < len)
				k++;
			else if (c == quote)
				quote = 0;
			if (k < len)
				continue;
		}
		/*
		 * Commas inside quotes or parentheses belong to the argument.
		 * A stray ')' makes depth negative, which still splits (the
		 * argument's own parse reports the parenthesis); the virtual
		 * final ',' always closes the last argument.
		 */
		if (c == '"' || c == '\'') {
			quote = c;
		} else if (c == '(') {
			depth++;
		} else if (c == ')') {
			depth--;
		} else if (c == ',' && (depth <= 0 || k == len)) {
			size_t a = from, b = k;

			while (a < b && (text[a] == ' ' || text[a] == '\t'))
				a++;
			while (b > a && (text[b - 1] == ' ' || text[b - 1] == '\t'))
				b--;
			if (n < max) {
				start[n] = text + a;
				plen[n] = b - a;
				pcol[n] = base_col + (int)a;
			}
			n++;
			from = k + 1;
		}
	}
	return n;
}

/*
 * .macro NAME [P1[=DEFAULT], ...]
 * Parameter names are [A-Za-z_][A-Za-z0-9_]* (no dots: \name.x must end
 * the parameter at the dot).  A macro may not take an instruction's name
 * (it would hide the instruction everywhere), but may take a pseudo's,
 * which the line dispatcher tries after macros.  The body is captured by
 * do_line (asm_macro_add_line) until .endm.
 */
void asm_dir_macro(struct asm_ctx *A, const struct where *w, int i, int col)
{
	const struct tok *nt = &A->tk.v[i];
	const char *rest, *start[64];
	size_t plen[64], rlen;
	int pcol[64], n, k;
	struct macro *m;
	char buf[64];

	if (nt->k != T_IDENT || nt->s[0] == '.') {
		(void)asm_error(A, w, nt->col, "expected a macro name, found %s",
				asm_tok_desc(nt, buf, sizeof(buf)));
		return;
	}
	asm_tok_text(nt, buf, sizeof(buf));
	if (asm_find_macro(A, nt->s, (size_t)nt->len)) {
		(void)asm_error(A, w, nt->col, "macro '%s' is already defined",
				buf);
		return;
	}
	if (isa_op_by_name(buf) >= 0) {
		(void)asm_error(A, w, nt->col, "macro name '%s' is an instruction",
				buf);
		return;
	}
	m = arena_alloc(&A->ar, sizeof(*m));
	if (!m || !(m->name = arena_strndup(&A->ar, nt->s, (size_t)nt->len))) {
		asm_oom(A);
		return;
	}
	m->w = w;
	m->col = col;
	rest = nt->s + nt->len;
	/* From after the name to the T_EOL: a comment is not a parameter. */
	rlen = (size_t)(A->tk.v[A->tk.n - 1].s - rest);
	n = 0;
	if (A->tk.v[i + 1].k != T_EOL)
		n = split_args(rest, rlen, (int)(rest - w->text) + 1, start, plen,
			       pcol, 64);
	if (n > 64) {
		(void)asm_error(A, w, col, "a macro has at most 64 parameters");
		return;
	}
	m->n_params = n;
	m->params = arena_alloc(&A->ar, (size_t)(n + 1) * sizeof(char *));
	m->defaults = arena_alloc(&A->ar, (size_t)(n + 1) * sizeof(char *));
	if (!m->params || !m->defaults) {
		asm_oom(A);
		return;
	}
	for (k = 0; k < n; k++) {
		const char *p = start[k], *eq = memchr(p, '=', plen[k]);
		size_t nl = eq ? (size_t)(eq - p) : plen[k], j;
		int j2;

		while (nl > 0 && (p[nl - 1] == ' ' || p[nl - 1] == '\t'))
			nl--;
		for (j = 0; j < nl; j++)
			if (!((p[j] >= 'a' && p[j] <= 'z') ||
			      (p[j] >= 'A' && p[j] <= 'Z') || p[j] == '_' ||
			      (j > 0 && p[j] >= '0' && p[j] <= '9')))
				break;
		if (nl == 0 || j != nl) {
			(void)asm_error(A, w, pcol[k] + (int)j,
					"bad macro parameter: expected NAME or "
					"NAME=DEFAULT");
			return;
		}
		m->params[k] = arena_strndup(&A->ar, p, nl);
		if (eq) {
			const char *d = eq + 1;
			size_t dl = plen[k] - (size_t)(d - p);

			while (dl && (*d == ' ' || *d == '\t')) {
				d++;
				dl--;
			}
			m->defaults[k] = arena_strndup(&A->ar, d, dl);
		}
		for (j2 = 0; j2 < k; j2++)
			if (m->params[k] && !strcmp(m->params[j2], m->params[k])) {
				(void)asm_error(A, w, pcol[k],
						"duplicate macro parameter '%s'",
						m->params[k]);
				return;
			}
	}
	A->defining = m;
}

/*
 * Store a captured body line.
 * Body lines are the where records of the defining lines (text as
 * written, with \params); the arena copy on growth leaves the old array
 * behind, bounded by doubling.
 */
void asm_macro_add_line(struct asm_ctx *A, const struct where *w)
{
	struct macro *m = A->defining;

	if (m->n_body == m->cap_body) {
		int cap = m->cap_body ? 2 * m->cap_body : 16;
		const struct where **b = arena_alloc(&A->ar, (size_t)cap *
							      sizeof(*b));

		if (!b) {
			asm_oom(A);
			return;
		}
		if (m->n_body)
			memcpy(b, m->body, (size_t)m->n_body * sizeof(*b));
		m->body = b;
		m->cap_body = cap;
	}
	m->body[m->n_body++] = w;
}

/*
 * Invoke macro m at token i (its name) of line w.
 * Arguments: positional first, then NAME=VALUE for any parameter; each
 * parameter gets at most one, missing ones take their default, and a
 * parameter with neither is an error naming the definition.  The body
 * is not read here: pushing a frame makes asm_next_line return its lines
 * (substituted) next.  65 slots: one more than the parameter limit, so a
 * surplus argument has a column to point at.
 */
void asm_expand_macro(struct asm_ctx *A, const struct where *w, int i,
			 struct macro *m)
{
	const struct tok *nt = &A->tk.v[i];
	const char *rest = nt->s + nt->len, *start[65];
	size_t plen[65], rlen = (size_t)(A->tk.v[A->tk.n - 1].s - rest);
	int pcol[65], n = 0, k, named = 0;
	struct frame *fr;
	struct expn *ex;
	const char **args;

	if (A->depth >= ASM_MAX_DEPTH) {
		(void)asm_error(A, w, nt->col,
				"macros nested more than %d deep (does '%s' "
				"call itself?)", ASM_MAX_DEPTH, m->name);
		return;
	}
	if (A->n_expansions >= ASM_MAX_EXPANSIONS) {
		(void)asm_error(A, w, nt->col,
				"more than %d macro expansions; is a macro "
				"expanding itself?", ASM_MAX_EXPANSIONS);
		return;
	}
	if (A->tk.v[i + 1].k != T_EOL)
		n = split_args(rest, rlen, (int)(rest - w->text) + 1, start, plen,
			       pcol, 65);
	/* Each argument, named or not, fills a different parameter. */
	if (n > m->n_params) {
		(void)asm_error(A, w, n <= 65 ? pcol[m->n_params] : nt->col,
				"too many arguments: macro '%s' has %d "
				"parameter%s", m->name, m->n_params,
				m->n_params == 1 ? "" : "s");
		return;
	}
	args = arena_alloc(&A->ar, (size_t)(m->n_params + 1) * sizeof(*args));
	if (!args) {
		asm_oom(A);
		return;
	}
	for (k = 0; k < n; k++) {
		const char *p = start[k];
		size_t j = 0;
		int pi = -1, q;

		/*
		 * NAME=VALUE names a parameter (but NAME==VALUE does not).
		 * Only a NAME that is one of m's parameters counts: "x=5" for
		 * a macro without a parameter x stays positional text.
		 */
		while (j < plen[k] && ((p[j] >= 'a' && p[j] <= 'z') ||
				       (p[j] >= 'A' && p[j] <= 'Z') ||
				       p[j] == '_' || (j && p[j] >= '0' &&
						       p[j] <= '9')))
			j++;
		if (j > 0) {
			size_t e = j;

			while (e < plen[k] && (p[e] == ' ' || p[e] == '\t'))
				e++;
			if (e < plen[k] && p[e] == '=' &&
			    (e + 1 >= plen[k] || p[e + 1] != '='))
				for (q = 0; q < m->n_params; q++)
					if (strlen(m->params[q]) == j &&
					    !memcmp(m->params[q], p, j)) {
						pi = q;
						j = e + 1;
						break;
					}
		}
		if (pi >= 0) {
			named = 1;
			while (j < plen[k] && (p[j] == ' ' || p[j] == '\t'))
				j++;
			if (args[pi]) {
				(void)asm_error(A, w, pcol[k],
						"argument '%s' given twice",
						m->params[pi]);
				return;
			}
			args[pi] = arena_strndup(&A->ar, p + j, plen[k] - j);
			continue;
		}
		if (named) {
			(void)asm_error(A, w, pcol[k],
					"positional argument after a named one");
			return;
		}
		if (args[k]) {
			(void)asm_error(A, w, pcol[k], "argument '%s' given twice",
					m->params[k]);
			return;
		}
		args[k] = arena_strndup(&A->ar, p, plen[k]);
	}
	/*
	 * Defaults are texts captured at definition, substituted as they
	 * are; an empty argument ("m a,,c") is an empty text, not a
	 * missing one.
	 */
	for (k = 0; k < m->n_params; k++) {
		if (!args[k])
			args[k] = m->defaults[k];
		if (!args[k]) {
			(void)asm_error(A, w, nt->col,
					"macro '%s' needs an argument for '%s' "
					"(defined at %s:%d)", m->name,
					m->params[k], m->w->file, m->w->line);
			return;
		}
	}
	fr = arena_alloc(&A->ar, sizeof(*fr));
	ex = arena_alloc(&A->ar, sizeof(*ex));
	if (!fr || !ex) {
		asm_oom(A);
		return;
	}
	ex->macro = m->name;
	ex->call = w;
	ex->col = nt->col;
	fr->is_macro = 1;
	fr->m = m;
	fr->args = args;
	/* \@ in the body becomes this number: unique per expansion. */
	fr->id = A->n_expansions++;
	fr->exp = ex;
	fr->cond_base = A->n_conds;
	fr->up = A->top;
	A->top = fr;
	A->depth++;
}

/*
 * Substitute \param, \@ and \() in a body line.
 * \name is replaced by the argument text, \@ by the expansion number
 * (unique per expansion, for local labels: loop\@), and \() by nothing
 * (to glue a parameter to following text: \reg\()_lo).  A backslash not
 * followed by a parameter name stays, and the lexer reports it.  Returns
 * NULL if the line grows beyond 1 MiB or the total beyond
 * ASM_MAX_EXPANDED_BYTES (16 MiB).
 */
static const char *substitute(struct asm_ctx *A, struct frame *fr,
			      const char *text)
{
	size_t cap = strlen(text) + 1, n = 0;
	const char *p;
	char *out = malloc(cap), *res;

	if (!out)
		return NULL;
	for (p = text; *p;) {
		const char *ins = NULL;
		char num[16];
		size_t ilen = 0, skip = 1;

		if (p[0] == '\\' && p[1] == '@') {
			snprintf(num, sizeof(num), "%u", fr->id);
			ins = num;
			ilen = strlen(num);
			skip = 2;
		} else if (p[0] == '\\' && p[1] == '(' && p[2] == ')') {
			ins = "";
			skip = 3;
		} else if (p[0] == '\\') {
			size_t j = 1;
			int k;

			while ((p[j] >= 'a' && p[j] <= 'z') ||
			       (p[j] >= 'A' && p[j] <= 'Z') || p[j] == '_' ||
			       (j > 1 && p[j] >= '0' && p[j] <= '9'))
				j++;
			for (k = 0; k < fr->m->n_params; k++)
				if (strlen(fr->m->params[k]) == j - 1 &&
				    !memcmp(fr->m->params[k], p + 1, j - 1)) {
					ins = fr->args[k];
					ilen = strlen(ins);
					skip = j;
					break;
				}
		}
		if (!ins) {
			ins = p;
			ilen = 1;
		}
		if (n + ilen + 1 > cap) {
			char *nb;

			cap = 2 * (n + ilen + 1);
			/* A line that explodes under substitution is refused. */
			if (cap > (1u << 20) || !(nb = realloc(out, cap))) {
				free(out);
				return NULL;
			}
			out = nb;
		}
		memcpy(out + n, ins, ilen);
		n += ilen;
		p += skip;
	}
	out[n] = '\0';
	/*
	 * Expanded lines are kept to the end (errors quote them), so their
	 * total is bounded too: arguments that grow at each nesting level
	 * could otherwise fill memory long before any line limit.
	 */
	A->expanded_bytes += n + 1;
	if (A->expanded_bytes > ASM_MAX_EXPANDED_BYTES) {
		free(out);
		return NULL;
	}
	res = arena_strndup(&A->ar, out, n);
	free(out);
	return res;
}

/* 1 if lines are being assembled (not inside a false .if branch). */
int asm_active(const struct asm_ctx *A)
{
	return A->n_conds == 0 || A->conds[A->n_conds - 1].active;
}

/* Open a .if block (the stack grows by doubling). */
static struct cond *push_cond(struct asm_ctx *A)
{
	if (A->n_conds == A->cap_conds) {
		int cap = A->cap_conds ? 2 * A->cap_conds : 16;
		struct cond *c = realloc(A->conds, (size_t)cap * sizeof(*c));

		if (!c) {
			asm_oom(A);
			return NULL;
		}
		A->conds = c;
		A->cap_conds = cap;
	}
	memset(&A->conds[A->n_conds], 0, sizeof(A->conds[0]));
	return &A->conds[A->n_conds++];
}

/*
 * The value of .if/.elif EXPR or .ifdef/.ifndef NAME at token i.
 * .ifdef tests the symbol table at this point of pass 1: a label defined
 * further down is not defined yet (docs/isa.md: "defined above").
 */
static int cond_value(struct asm_ctx *A, const struct where *w, int i, int dir,
		      int *val)
{
	int64_t v;
	char buf[64];

	if (dir == ASM_DIR_IFDEF || dir == ASM_DIR_IFNDEF) {
		const struct tok *t = &A->tk.v[i];
		struct sym *s;

		if (t->k != T_IDENT)
			return asm_error(A, w, t->col, "expected a name, found %s",
					 asm_tok_desc(t, buf, sizeof(buf)));
		if (asm_expect_eol(A, w, i + 1, asm_directives[dir].name))
			return EV_ERR;
		s = asm_sym_find(A, asm_tok_text(t, buf, sizeof(buf)));
		*val = (s != NULL) == (dir == ASM_DIR_IFDEF);
		return 0;
	}
	if (A->tk.v[i].k == T_EOL)
		return asm_error(A, w, A->tk.v[i].col, "%s needs a condition",
				 asm_directives[dir].name);
	if (asm_expr_now(A, w, &i, "the condition", &v) ||
	    asm_expect_eol(A, w, i, asm_directives[dir].name))
		return EV_ERR;
	*val = v != 0;
	return 0;
}

/*
 * Handle a conditional directive (any region, live or not).  The line was
 * already tokenised if the region is live.
 */
void asm_do_cond(struct asm_ctx *A, const struct where *w, int dir, int i,
		    int col, int bad)
{
	int live = asm_active(A), val = 0;
	struct cond *c;

	switch (dir) {
	case ASM_DIR_IF:
	case ASM_DIR_IFDEF:
	case ASM_DIR_IFNDEF:
		/*
		 * A condition with an error (already reported) assembles no
		 * branch at all, so that its two sides cannot both produce
		 * follow-on errors.
		 */
		if (live && !bad && cond_value(A, w, i, dir, &val))
			bad = 1;
		if (!(c = push_cond(A)))
			return;
		c->parent_active = live;
		/*
		 * taken records that some branch of this .if has been (or,
		 * after an error, must be treated as) assembled: later
		 * .elif/.else branches are then skipped.
		 */
		c->active = live && val && !bad;
		c->taken = c->active || bad;
		c->w = w;
		c->col = col;
		return;
	case ASM_DIR_ELIF:
	case ASM_DIR_ELSE:
	case ASM_DIR_ENDIF:
		break;
	default:
		return;
	}
	/* Only blocks opened in the current file or expansion may close. */
	if (A->n_conds <= A->top->cond_base) {
		(void)asm_error(A, w, col, "%s without .if",
				asm_directives[dir].name);
		return;
	}
	c = &A->conds[A->n_conds - 1];
	if (dir == ASM_DIR_ENDIF) {
		if (c->parent_active && !bad)
			(void)asm_expect_eol(A, w, i, ".endif");
		A->n_conds--;
		return;
	}
	if (c->seen_else) {
		(void)asm_error(A, w, col, "%s after .else (the .if is at line %d)",
				asm_directives[dir].name, c->w->line);
		return;
	}
	if (dir == ASM_DIR_ELSE) {
		c->seen_else = 1;
		if (c->parent_active && !bad)
			(void)asm_expect_eol(A, w, i, ".else");
		c->active = c->parent_active && !c->taken;
		c->taken |= c->active;
		return;
	}
	/* .elif: evaluated only if no earlier branch was taken. */
	c->active = 0;
	if (c->parent_active && !c->taken) {
		if (bad || cond_value(A, w, i, ASM_DIR_IF, &val)) {
			c->taken = 1; /* as for .if: no branch after an error */
			return;
		}
		c->active = val;
		c->taken = val;
	}
}

/*
 * The first word of a line (for capture and skipped regions).
 * Returns the length of the word (0 if the line starts with anything
 * else) and where it starts; used before tokenising, for lines that may
 * not lex (macro bodies, false branches).
 */
size_t asm_first_word(const char *text, const char **start)
{
	const char *p = text;
	size_t n = 0;

	while (*p == ' ' || *p == '\t')
		p++;
	*start = p;
	while ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') ||
	       (p[n] >= '0' && p[n] <= '9') || p[n] == '_' || p[n] == '.')
		n++;
	return n;
}

/* Does the word s[0..n) equal lit? */
int asm_word_is(const char *s, size_t n, const char *lit)
{
	return strlen(lit) == n && !memcmp(s, lit, n);
}

/*
 * The next line from the input stack, as a where (text already macro-
 * substituted); NULL at the end of the input.  Closing a frame checks that
 * its .if blocks (and a macro definition in a file) were terminated.
 */
const struct where *asm_next_line(struct asm_ctx *A)
{
	if (A->fatal || A->oom)
		return NULL;
	/*
	 * The line limit counts macro lines too: expansions within the
	 * depth and count limits can still multiply lines (100000
	 * expansions of a 100-line body are 10^7 lines).
	 */
	if (A->line_seq >= ASM_MAX_LINES && A->top) {
		A->fatal = 1;
		(void)asm_error(A, A->last_w, 1,
				"more than %d lines to assemble (counting macro "
				"expansions); is a macro expanding itself?",
				ASM_MAX_LINES);
		return NULL;
	}
	while (A->top) {
		struct frame *fr = A->top;
		struct where *w;

		/* A file frame: the next line as written. */
		if (!fr->is_macro && fr->next < fr->f->n_lines) {
			w = arena_alloc(&A->ar, sizeof(*w));
			if (!w) {
				asm_oom(A);
				return NULL;
			}
			w->file = fr->f->path;
			w->line = fr->next + 1;
			w->text = fr->f->lines[fr->next++];
			w->seq = ++A->line_seq;
			A->last_w = w;
			return w;
		}
		/*
		 * A macro frame: a fresh where per expansion line, with
		 * the body line's file:line and the expansion record,
		 * so errors point at the body and note the call.
		 */
		if (fr->is_macro && fr->next < fr->m->n_body) {
			const struct where *bw = fr->m->body[fr->next++];

			w = arena_alloc(&A->ar, sizeof(*w));
			if (!w) {
				asm_oom(A);
				return NULL;
			}
			w->file = bw->file;
			w->line = bw->line;
			w->exp = fr->exp;
			w->seq = ++A->line_seq;
			w->text = substitute(A, fr, bw->text);
			if (!w->text) {
				w->text = bw->text;
				if (A->expanded_bytes > ASM_MAX_EXPANDED_BYTES) {
					A->fatal = 1;
					(void)asm_error(A, w, 1,
							"macro expansions produce "
							"more than %u MiB of text",
							ASM_MAX_EXPANDED_BYTES >> 20);
					return NULL;
				}
				(void)asm_error(A, w, 1, "macro expansion of this "
							 "line is too long");
				/* Skip the line, keep expanding the rest of the body. */
				continue;
			}
			A->last_w = w;
			return w;
		}
		/* End of the frame: unclosed .if blocks opened inside it. */
		while (A->n_conds > fr->cond_base) {
			struct cond *c = &A->conds[--A->n_conds];

			(void)asm_error(A, c->w, c->col,
					"unterminated .if (missing .endif)");
		}
		if (A->defining && !fr->is_macro) {
			(void)asm_error(A, A->defining->w, A->defining->col,
					"unterminated .macro '%s' (missing .endm)",
					A->defining->name);
			A->defining = NULL;
		}
		/* The frame's memory stays in the arena until cleanup. */
		A->top = fr->up;
		A->depth--;
	}
	return NULL;
}
