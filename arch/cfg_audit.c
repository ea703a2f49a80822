/*
 * cfg_audit.c - the config loader's workaround for libconfig 1.5: an
 * integer literal without the L suffix that does not fit in 32 bits is
 * silently truncated to its low 32 bits (4294967296 reads as 0, no error).
 *
 * The linked library is probed once (cfg_audit_needed); only one that
 * truncates needs the rest, so a fixed libconfig costs nothing.  Then the
 * loader has the file text lexed here as libconfig's scanner does, far
 * enough to find every integer literal that does not fit the width
 * libconfig gives it (cfg_audit_file, following @include), asks about
 * every 32-bit integer setting it walks (cfg_audit_claim: is this value
 * on this line a misread literal?) and reports the literals no setting
 * claimed at the end (cfg_audit_unclaimed).
 *
 * Invariants:
 *   - the lexer skips what libconfig's does: comments, strings and names
 *     ("bank8", "x-5") hold no number; line numbers count every '\n', in
 *     block comments and strings too, as libconfig's do;
 *   - every file is audited at most once, includes at most 10 deep (as
 *     libconfig nests them); a file that cannot be read is skipped (the
 *     parse already succeeded: it vanished meanwhile);
 *   - each literal is reported once: claimed by the first setting on its
 *     line with its misread value, in document order, else at the end;
 *   - badlits[].file points into seen[] (owned here until cfg_audit_free).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libconfig.h>

#include "../util/strutil.h"
#include "arch_int.h"

/* A source line holding an integer literal libconfig read wrongly. */
struct cfg_badlit {
	const char *file;  /* the audited file's name (a seen[] entry) */
	int line;          /* 1-based */
	int32_t misread;   /* the value libconfig gives it: low 32 bits */
	int reported;      /* message printed (by the setting or at the end) */
	char msg[256];     /* what to say */
};

/* ---- the probe --------------------------------------------------------------*/

/*
 * 1 if the linked libconfig reads 4294967296 wrongly (probed once).
 * Written only inside probe_once, read after it: no data race.
 */
static int truncates;
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;

/*
 * Parse "x = 4294967296;" once and look: libconfig 1.5 (Debian 12) returns
 * it as a 32-bit 0, later versions promote it to 64 bits.
 */
static void probe_build(void)
{
	config_t c;
	config_setting_t *s;

	config_init(&c);
	truncates = 1;
	if (config_read_string(&c, "x = 4294967296;\n") == CONFIG_TRUE) {
		s = config_lookup(&c, "x");
		if (s && config_setting_get_int64(s) == 4294967296LL)
			truncates = 0;
	}
	config_destroy(&c);
}

int cfg_audit_needed(void)
{
	(void)pthread_once(&probe_once, probe_build);
	return truncates;
}

/* ---- lexing the file text -----------------------------------------------------*/

/* Character classes of libconfig's scanner: a name starts with a letter
 * or '*' and goes on with letters, digits, '-', '_' or '*', so "x-5" is a
 * name, not x minus 5, and must not be taken for a number. */
static int is_name_start(int ch)
{
	return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || ch == '*';
}

static int is_name_char(int ch)
{
	return is_name_start(ch) || (ch >= '0' && ch <= '9') || ch == '-' ||
	       ch == '_';
}

static int is_digit(int ch)
{
	return ch >= '0' && ch <= '9';
}

static void audit_file(struct cfg_audit *au, const char *file, int depth);

/*
 * One integer or float literal starting at s[*i] (sign included).  Floats
 * are skipped; integers that do not fit the width libconfig gives them
 * (32 bits, or 64 with an L suffix) are reported and remembered.
 *
 * The literal grammar follows libconfig's scanner: optional sign, 0x hex
 * or decimal digits, an optional L or LL suffix; a '.' or exponent makes
 * it a float (no truncation issue).  "fits" uses the same limits as
 * libconfig: INT_MIN..INT_MAX without L, 64 bits with it.  tok[72] holds
 * every literal of sane length (a 64-bit value has at most 20 digits); a
 * longer one (even zero-padded) counts as not fitting and is reported
 * with its first 40 characters.
 */
static void audit_number(struct cfg_audit *au, const char *file, int line,
			 const char *s, size_t *i)
{
	size_t b = *i, e;
	int hex = 0, is64 = 0, fits;
	char tok[72];
	long long v;
	uint32_t low;
	struct cfg_badlit *nb;

	e = b;
	if (s[e] == '+' || s[e] == '-')
		e++;
	if (s[e] == '0' && (s[e + 1] == 'x' || s[e + 1] == 'X')) {
		hex = 1;
		e += 2;
		while (strchr("0123456789abcdefABCDEF", s[e]) && s[e])
			e++;
	} else {
		while (is_digit(s[e]))
			e++;
		if (s[e] == '.' || s[e] == 'e' || s[e] == 'E') {
			/* a float: digits, point, digits, exponent */
			if (s[e] == '.')
				for (e++; is_digit(s[e]); e++)
					;
			if (s[e] == 'e' || s[e] == 'E') {
				e++;
				if (s[e] == '+' || s[e] == '-')
					e++;
				while (is_digit(s[e]))
					e++;
			}
			*i = e;
			return;
		}
	}
	*i = e;
	if (s[e] == 'L') {
		is64 = 1;
		*i = e + 1 + (s[e + 1] == 'L');
	}
	low = 0;
	if (e - b >= sizeof(tok)) {
		fits = 0;
	} else {
		memcpy(tok, s + b, e - b);
		tok[e - b] = '\0';
		errno = 0;
		if (hex) {
			unsigned long long u = strtoull(tok, NULL, 16);

			fits = errno == 0 &&
			       u <= (is64 ? (unsigned long long)LLONG_MAX
					  : (unsigned long long)INT_MAX);
			low = (uint32_t)u;
		} else {
			v = strtoll(tok, NULL, 10);
			fits = errno == 0 &&
			       (is64 || (v >= INT_MIN && v <= INT_MAX));
			low = (uint32_t)(unsigned long long)v;
		}
	}
	if (fits)
		return;
	nb = realloc(au->badlits, (size_t)(au->n_badlits + 1) * sizeof(*nb));
	if (!nb) {
		au->nomem = 1;
		return;
	}
	au->badlits = nb;
	nb += au->n_badlits++;
	nb->file = file;
	nb->line = line;
	/* libconfig 1.5 keeps the low 32 bits of strtoll/strtoull */
	nb->misread = (int32_t)low;
	nb->reported = 0;
	if (e - b >= sizeof(tok))
		snprintf(tok, sizeof(tok), "%.*s...", 40, s + b);
	/* reported when the walk reaches the setting, so in file order */
	if (is64)
		snprintf(nb->msg, sizeof(nb->msg),
			 "integer %sL does not fit in 64 bits", tok);
	else
		snprintf(nb->msg, sizeof(nb->msg),
			 "integer %s does not fit in 32 bits and libconfig "
			 "would read it wrongly; write %sL (64-bit suffix)",
			 tok, tok);
}

/*
 * Lex one file as libconfig does, only far enough to find integer
 * literals: comments and strings are skipped (a "4294967296" inside a
 * string or a comment is not a number), names are skipped whole, and an
 * @include is followed into the included file, resolved against the same
 * include directory libconfig uses.  Line numbers count '\n' everywhere,
 * including inside block comments and strings, as libconfig's do.
 */
static void audit_text(struct cfg_audit *au, const char *file, const char *s,
		       int depth)
{
	size_t i = 0;
	int line = 1;

	while (s[i]) {
		char ch = s[i];

		if (ch == '\n') {
			line++;
			i++;
		} else if (ch == '#' || (ch == '/' && s[i + 1] == '/')) {
			while (s[i] && s[i] != '\n')
				i++;
		} else if (ch == '/' && s[i + 1] == '*') {
			for (i += 2; s[i] && !(s[i] == '*' && s[i + 1] == '/'); i++)
				if (s[i] == '\n')
					line++;
			if (s[i])
				i += 2;
		} else if (ch == '"') {
			for (i++; s[i] && s[i] != '"'; i++) {
				if (s[i] == '\\' && s[i + 1])
					i++;
				if (s[i] == '\n')
					line++;
			}
			if (s[i])
				i++;
		/*
		 * Only a well-formed @include "name" is followed; a
		 * malformed one already failed libconfig's parse.
		 */
		} else if (ch == '@' && strncmp(s + i, "@include", 8) == 0) {
			size_t b;
			char name[1024], path[2048];

			i += 8;
			while (s[i] == ' ' || s[i] == '\t')
				i++;
			if (s[i] != '"')
				continue;
			b = ++i;
			while (s[i] && s[i] != '"' && s[i] != '\n')
				i++;
			if (s[i] != '"' || i - b >= sizeof(name))
				continue;
			memcpy(name, s + b, i - b);
			name[i - b] = '\0';
			i++;
			if (name[0] == '/' || !au->incdir)
				snprintf(path, sizeof(path), "%s", name);
			else
				snprintf(path, sizeof(path), "%s/%s", au->incdir,
					 name);
			audit_file(au, path, depth + 1);
		/* Names may contain digits: "bank8" is no number. */
		} else if (is_name_start((unsigned char)ch)) {
			while (is_name_char((unsigned char)s[i]))
				i++;
		} else if (is_digit(ch) ||
			   ((ch == '-' || ch == '+' || ch == '.') &&
			    (is_digit(s[i + 1]) ||
			     (s[i + 1] == '.' && is_digit(s[i + 2]))))) {
			audit_number(au, file, line, s, &i);
		} else {
			i++;
		}
	}
}

/* Read a whole file and audit it, under the name kept in seen[]. */
static void audit_file(struct cfg_audit *au, const char *file, int depth)
{
	FILE *fp;
	char *text = NULL, **ns;
	const char *name;
	size_t n = 0, cap = 0, got;
	int i;

	/* libconfig nests includes at most 10 deep; each file once */
	if (depth > 10)
		return;
	for (i = 0; i < au->n_seen; i++)
		if (strcmp(au->seen[i], file) == 0)
			return;
	ns = realloc(au->seen, (size_t)(au->n_seen + 1) * sizeof(*ns));
	if (!ns) {
		au->nomem = 1;
		return;
	}
	au->seen = ns;
	name = au->seen[au->n_seen] = str_dup(file);
	if (!name) {
		au->nomem = 1;
		return;
	}
	au->n_seen++;
	fp = fopen(name, "rb");
	if (!fp)
		return; /* libconfig read it; a vanished file is not our error */
	for (;;) {
		if (n + 4096 + 1 > cap) {
			char *nt = realloc(text, cap = 2 * cap + 8192);

			if (!nt) {
				au->nomem = 1;
				break;
			}
			text = nt;
		}
		got = fread(text + n, 1, 4096, fp);
		n += got;
		if (got < 4096)
			break;
	}
	fclose(fp);
	if (text && !au->nomem) {
		text[n] = '\0';
		audit_text(au, name, text, depth);
	}
	free(text);
}

void cfg_audit_file(struct cfg_audit *au, const char *file)
{
	audit_file(au, file, 0);
}

/* ---- what the loader asks ---------------------------------------------------*/

/*
 * libconfig gives lines, not columns, so two settings on one line are
 * told apart by value and document order: the first unclaimed literal of
 * the line whose low 32 bits are v.
 */
const char *cfg_audit_claim(struct cfg_audit *au, const char *file, int line,
			    int64_t v)
{
	int i;

	for (i = 0; i < au->n_badlits; i++) {
		struct cfg_badlit *b = &au->badlits[i];

		if (b->reported || b->line != line || b->misread != v ||
		    strcmp(b->file, file) != 0)
			continue;
		b->reported = 1;
		return b->msg;
	}
	return NULL;
}

int cfg_audit_unclaimed(struct cfg_audit *au, const char **file, int *line,
			const char **msg)
{
	int i;

	for (i = 0; i < au->n_badlits; i++)
		if (!au->badlits[i].reported) {
			au->badlits[i].reported = 1;
			*file = au->badlits[i].file;
			*line = au->badlits[i].line;
			*msg = au->badlits[i].msg;
			return 1;
		}
	return 0;
}

void cfg_audit_free(struct cfg_audit *au)
{
	int i;

	free(au->badlits);
	for (i = 0; i < au->n_seen; i++)
		free(au->seen[i]);
	free(au->seen);
	memset(au, 0, sizeof(*au));
}
