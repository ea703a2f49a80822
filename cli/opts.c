/*
 * opts.c - the one option parser of the npusim subcommands, and the help
 * and documentation written from the same tables (opts.h).
 *
 * Invariants: the parser reads each word once, left to right, and never
 * reorders them; it prints a message only when it returns OPTS_ERR; it
 * keeps no state outside struct opts.  The usage and the Markdown differ
 * in layout only: every fact in them is a field of a row or a command.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"

/* Columns of --help: text wraps before WIDTH; an option's help starts at
 * its table's widest option, but at most at HELP_COL_MAX (a wider option
 * puts its help on the next line). */
#define WIDTH        79
#define HELP_COL_MAX 28

int opts_n(const struct opts_cmd *cmd)
{
	return (cmd->base ? cmd->base->n_rows : 0) + cmd->n_rows;
}

const struct opts_row *opts_row(const struct opts_cmd *cmd, int k)
{
	int nb = cmd->base ? cmd->base->n_rows : 0;

	return k < nb ? &cmd->base->rows[k] : &cmd->rows[k - nb];
}

/* ---- messages -------------------------------------------------------------*/

/* "a, b or c": the names of an enum option, as messages list them. */
static void put_names(FILE *fp, const struct opts_row *r, const char *last_sep)
{
	int k;

	for (k = 0; k < r->n_names; k++)
		fprintf(fp, "%s%s", k == 0 ? "" : k == r->n_names - 1 ? last_sep : ", ",
			r->names[k]);
}

/* The option as messages name it: "--jobs" even when given as -j. */
static void put_name(FILE *fp, const struct opts_row *r)
{
	if (r->long_name)
		fprintf(fp, "--%s", r->long_name);
	else
		fprintf(fp, "-%c", r->short_name);
}

/* The word after "npusim C: ..." that sends the user to --help. */
static void hint(FILE *fp, const struct opts_cmd *c)
{
	switch (c->voice) {
	case OPTS_VOICE_ARGUMENT:
	case OPTS_VOICE_OPTION:
		fprintf(fp, " (see 'npusim %s --help')\n", c->name);
		break;
	case OPTS_VOICE_RUN:
	case OPTS_VOICE_SHORT:
		fprintf(fp, " (see npusim %s --help)\n", c->name);
		break;
	case OPTS_VOICE_TRY:
		fprintf(fp, "\ntry 'npusim %s --help'\n", c->name);
		break;
	}
}

/* word: an option word that no row names, or an operand where the
 * command takes none. */
static int say_unknown(const struct opts *p, const char *word)
{
	const struct opts_cmd *c = p->cmd;

	switch (c->voice) {
	case OPTS_VOICE_ARGUMENT:
		fprintf(stderr, "npusim %s: unknown argument '%s'", c->name, word);
		break;
	case OPTS_VOICE_TRY:
		fprintf(stderr, "npusim %s: unknown option %s", c->name, word);
		break;
	default:
		fprintf(stderr, "npusim %s: unknown option '%s'", c->name, word);
		break;
	}
	hint(stderr, c);
	return OPTS_ERR;
}

/* word: a value option, exactly as given, with no word after it. */
static int say_missing(const struct opts *p, const char *word)
{
	const struct opts_cmd *c = p->cmd;

	switch (c->voice) {
	case OPTS_VOICE_RUN:
		fprintf(stderr, "npusim %s: option '%s' needs a value", c->name, word);
		hint(stderr, c);
		break;
	case OPTS_VOICE_TRY:
		fprintf(stderr, "npusim %s: missing value after %s", c->name, word);
		hint(stderr, c);
		break;
	case OPTS_VOICE_SHORT:
		/* as and objdump name the option only, no hint */
		fprintf(stderr, "npusim %s: %s needs a value\n", c->name, word);
		break;
	default:
		fprintf(stderr, "npusim %s: %s needs a value", c->name, word);
		hint(stderr, c);
		break;
	}
	return OPTS_ERR;
}

/* v: the value of enum option r, none of its names. */
static int say_bad_enum(const struct opts *p, const struct opts_row *r,
			const char *v)
{
	const struct opts_cmd *c = p->cmd;

	fprintf(stderr, "npusim %s: ", c->name);
	put_name(stderr, r);
	fputc(' ', stderr);
	switch (c->voice) {
	case OPTS_VOICE_RUN:
		fprintf(stderr, "%s: expected ", v);
		put_names(stderr, r, " or ");
		fputc('\n', stderr);
		break;
	case OPTS_VOICE_TRY:
		fputs("is ", stderr);
		put_names(stderr, r, " or ");
		fprintf(stderr, ", not %s", v);
		hint(stderr, c);
		break;
	default:
		fprintf(stderr, "'%s': use ", v);
		put_names(stderr, r, " or ");
		fputc('\n', stderr);
		break;
	}
	return OPTS_ERR;
}

/* ---- parsing --------------------------------------------------------------*/

int opts_begin(struct opts *p, const struct opts_cmd *cmd, int argc,
	       char **argv)
{
	int i;

	memset(p, 0, sizeof(*p));
	p->cmd = cmd;
	p->argc = argc;
	p->argv = argv;
	p->i = 1;
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			opts_usage(stdout, cmd);
			return 1;
		}
	return 0;
}

/*
 * The row that option word w names, or -1; *glued is the value given in
 * the same word ("-cX", "--config=X"), NULL when it is the next word's.
 * A flag matches only its exact word: "--dump=1" and "-qx" name nothing.
 */
static int find_row(const struct opts_cmd *cmd, const char *w,
		    const char **glued)
{
	int k, n = opts_n(cmd);

	*glued = NULL;
	for (k = 0; k < n; k++) {
		const struct opts_row *r = opts_row(cmd, k);
		int flag = r->kind == OPTS_FLAG;

		if (w[1] == '-') {
			size_t len = strcspn(w + 2, "=");

			if (!r->long_name || strlen(r->long_name) != len ||
			    strncmp(w + 2, r->long_name, len) != 0 ||
			    (flag && w[2 + len]))
				continue;
			if (w[2 + len])
				*glued = w + 3 + len;
			return k;
		}
		if (r->short_name != w[1] || (flag && w[2]))
			continue;
		if (w[2])
			*glued = w + 2;
		return k;
	}
	return -1;
}

/* v as an unsigned decimal in [r->lo, r->hi].  strtoull takes "-1"
 * (negated modulo 2^64), hence the explicit '-' test; trailing garbage
 * ("10k") and overflow (ERANGE) are refused too. */
static int parse_u64(struct opts *p, const struct opts_row *r, const char *v)
{
	char *end;
	unsigned long long n;

	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || end == v || *end || v[0] == '-' || n < r->lo || n > r->hi) {
		fprintf(stderr, "npusim %s: ", p->cmd->name);
		put_name(stderr, r);
		fprintf(stderr, " '%s' is not a whole number in %llu..%llu\n", v,
			(unsigned long long)r->lo, (unsigned long long)r->hi);
		return OPTS_ERR;
	}
	p->num = n;
	return 0;
}

int opts_next(struct opts *p)
{
	const struct opts_row *r;
	const char *w, *v;
	int k, i;

	if (p->i >= p->argc)
		return OPTS_END;
	w = p->argv[p->i++];
	p->val = w;
	p->num = 0;
	if (w[0] != '-' || !w[1])
		return *p->cmd->operands ? OPTS_ARG : say_unknown(p, w);
	k = find_row(p->cmd, w, &v);
	if (k < 0)
		return say_unknown(p, w);
	r = opts_row(p->cmd, k);
	if (r->kind == OPTS_FLAG)
		return k;
	if (!v) {
		if (p->i >= p->argc)
			return say_missing(p, w);
		v = p->argv[p->i++];
	}
	p->val = v;
	if (r->kind == OPTS_U64 && parse_u64(p, r, v))
		return OPTS_ERR;
	if (r->kind == OPTS_ENUM) {
		for (i = 0; i < r->n_names && strcmp(v, r->names[i]); i++)
			;
		if (i == r->n_names)
			return say_bad_enum(p, r, v);
		p->num = (uint64_t)i;
	}
	return k;
}

/* ---- help and docs --------------------------------------------------------*/

/*
 * Write text from column *col, breaking lines before WIDTH at spaces and
 * at every '\n'; continuation lines start at column indent.  A run of
 * spaces between two words is kept when both stay on one line ("end.  Next").
 */
static void wrap(FILE *fp, const char *text, int indent, int *col)
{
	const char *s = text;

	while (*s) {
		size_t sp = strspn(s, " "), len;

		if (s[sp] == '\n') {
			fprintf(fp, "\n%*s", indent, "");
			*col = indent;
			s += sp + 1;
			continue;
		}
		len = strcspn(s + sp, " \n");
		if (!len) {
			s += sp;
			continue;
		}
		if (*col > indent && *col + (int)(sp + len) > WIDTH) {
			fprintf(fp, "\n%*s", indent, "");
			*col = indent;
			sp = 0;
			s += strspn(s, " ");
		} else if (*col == indent) {
			/* no leading blanks on a fresh line */
			s += sp;
			sp = 0;
		}
		fprintf(fp, "%.*s", (int)(sp + len), s);
		*col += (int)(sp + len);
		s += sp + len;
	}
}

/* The value as help shows it: the metavariable, or an enum's names
 * ("int8|bf16"); "" for a flag. */
static const char *meta_text(const struct opts_row *r, char *buf, size_t n)
{
	size_t u = 0;
	int k;

	if (r->meta || r->kind != OPTS_ENUM)
		return r->meta ? r->meta : "";
	buf[0] = '\0';
	for (k = 0; k < r->n_names && u < n; k++)
		u += (size_t)snprintf(buf + u, n - u, "%s%s", k ? "|" : "",
				      r->names[k]);
	return buf;
}

/* "npusim run [-c FILE] [-s KEY=VALUE]... PROGRAM", wrapped under its
 * first option; lead starts the first line ("usage: ", "    "). */
static void synopsis(FILE *fp, const struct opts_cmd *cmd, const char *lead)
{
	char word[512], meta[256];
	int col, indent, k, n = opts_n(cmd);

	col = fprintf(fp, "%snpusim %s", lead, cmd->name);
	indent = col + 1;
	for (k = 0; k <= n; k++) {
		const struct opts_row *r = k < n ? opts_row(cmd, k) : NULL;
		const char *m;

		if (r) {
			m = meta_text(r, meta, sizeof(meta));
			if (r->short_name)
				snprintf(word, sizeof(word), "[-%c%s%s]%s", r->short_name,
					 *m ? " " : "", m, r->kind == OPTS_LIST ? "..." : "");
			else
				snprintf(word, sizeof(word), "[--%s%s%s]%s", r->long_name,
					 *m ? " " : "", m, r->kind == OPTS_LIST ? "..." : "");
		} else if (*cmd->operands) {
			snprintf(word, sizeof(word), "%s", cmd->operands);
		} else {
			break;
		}
		if (col + 1 + (int)strlen(word) > WIDTH) {
			fprintf(fp, "\n%*s", indent, "");
			col = indent;
		} else {
			fputc(' ', fp);
			col++;
		}
		col += fprintf(fp, "%s", word);
	}
	fputc('\n', fp);
}

/* "  -c, --config FILE" into buf, the left column of --help; its length. */
static int option_words(const struct opts_row *r, char *buf, size_t n)
{
	char meta[256];
	const char *m = meta_text(r, meta, sizeof(meta));

	if (r->short_name && r->long_name)
		return snprintf(buf, n, "  -%c, --%s%s%s", r->short_name,
				r->long_name, *m ? " " : "", m);
	if (r->short_name)
		return snprintf(buf, n, "  -%c%s%s", r->short_name, *m ? " " : "", m);
	return snprintf(buf, n, "      --%s%s%s", r->long_name, *m ? " " : "", m);
}

/* What the kind adds to a row's help in --help: " (repeatable)", or an
 * enum's names after its metavariable (the docs have them in the value
 * column instead). */
static const char *help_tail(const struct opts_row *r, char *buf, size_t n)
{
	size_t u;
	int k;

	buf[0] = '\0';
	if (r->kind == OPTS_LIST)
		snprintf(buf, n, " (repeatable)");
	if (r->kind != OPTS_ENUM || !r->meta)
		return buf;
	u = (size_t)snprintf(buf, n, " (%s: ", r->meta);
	for (k = 0; k < r->n_names && u < n; k++)
		u += (size_t)snprintf(buf + u, n - u, "%s%s", k ? ", " : "",
				      r->names[k]);
	if (u < n)
		snprintf(buf + u, n - u, ")");
	return buf;
}

void opts_usage(FILE *fp, const struct opts_cmd *cmd)
{
	static const struct opts_row help = {
		.short_name = 'h', .long_name = "help", .kind = OPTS_FLAG,
		.help = "this help",
	};
	char left[512], tail[512];
	int k, n = opts_n(cmd), hcol = 0, col;

	synopsis(fp, cmd, "usage: ");
	if (*cmd->intro) {
		fputc('\n', fp);
		col = 0;
		wrap(fp, cmd->intro, 0, &col);
		fputc('\n', fp);
	}
	for (k = 0; k <= n; k++) {
		col = option_words(k < n ? opts_row(cmd, k) : &help, left,
				   sizeof(left));
		if (col <= HELP_COL_MAX && col > hcol)
			hcol = col;
	}
	hcol += 2;
	fputs("\noptions:\n", fp);
	for (k = 0; k <= n; k++) {
		const struct opts_row *r = k < n ? opts_row(cmd, k) : &help;

		col = option_words(r, left, sizeof(left));
		fputs(left, fp);
		if (col + 2 > hcol) {
			fputc('\n', fp);
			col = 0;
		}
		fprintf(fp, "%*s", hcol - col, "");
		col = hcol;
		wrap(fp, r->help, hcol, &col);
		wrap(fp, help_tail(r, tail, sizeof(tail)), hcol, &col);
		fputc('\n', fp);
	}
	if (*cmd->outro) {
		fputc('\n', fp);
		col = 0;
		wrap(fp, cmd->outro, 0, &col);
		fputc('\n', fp);
	}
}

/* Text into a Markdown paragraph or table cell: '|', '*' and '<'
 * escaped, '\n' written as nl (a paragraph break, or a space in a cell).
 * In a code span only '|' needs it (the table would split there). */
static void md_text(FILE *fp, const char *s, const char *nl, int code)
{
	for (; *s; s++) {
		if (code && *s != '|')
			fputc(*s, fp);
		else if (*s == '\n')
			fputs(nl, fp);
		else if (*s == '<')
			fputs("&lt;", fp);
		else if (*s == '|' || *s == '*')
			fprintf(fp, "\\%c", *s);
		else
			fputc(*s, fp);
	}
}

void opts_write_md(FILE *fp, const struct opts_cmd *cmd)
{
	char buf[512];
	int k, i;

	fprintf(fp, "\n## `npusim %s`\n\n", cmd->name);
	synopsis(fp, cmd, "    ");
	if (*cmd->intro) {
		fputc('\n', fp);
		md_text(fp, cmd->intro, "\n\n", 0);
		fputc('\n', fp);
	}
	/* the base's options are in its own section */
	if (cmd->base)
		fprintf(fp, "\nEvery option of `npusim %s`, and:\n", cmd->base->name);
	fputs("\n| option | value | meaning |\n| --- | --- | --- |\n", fp);
	for (k = 0; k < cmd->n_rows; k++) {
		const struct opts_row *r = &cmd->rows[k];
		const char *m = meta_text(r, buf, sizeof(buf));

		fputs("| ", fp);
		if (r->short_name)
			fprintf(fp, "`-%c`%s", r->short_name, r->long_name ? ", " : "");
		if (r->long_name)
			fprintf(fp, "`--%s`", r->long_name);
		fputs(" | ", fp);
		if (*m) {
			fputc('`', fp);
			md_text(fp, m, " ", 1);
			fputc('`', fp);
		}
		/* a range that refuses nothing (a seed's) says nothing */
		if (r->kind == OPTS_U64 && !(r->lo == 0 && r->hi == UINT64_MAX))
			fprintf(fp, ": %llu..%llu", (unsigned long long)r->lo,
				(unsigned long long)r->hi);
		for (i = 0; r->kind == OPTS_ENUM && r->meta && i < r->n_names; i++)
			fprintf(fp, "%s`%s`", i ? ", " : ": ", r->names[i]);
		if (r->kind == OPTS_LIST)
			fputs(", repeatable", fp);
		fputs(" | ", fp);
		md_text(fp, r->help, " ", 0);
		fputs(" |\n", fp);
	}
	if (*cmd->outro) {
		fputc('\n', fp);
		md_text(fp, cmd->outro, "\n\n", 0);
		fputc('\n', fp);
	}
}
