/*
 * strutil.c - string helpers.
 *
 * The did-you-mean behind "unknown key 'core.matrix.rowz' (did you mean
 * 'core.matrix.rows'?)" and "unknown mnemonic": edit distance against a
 * table, no allocation, bounded work per candidate.
 */
#include "strutil.h"

#include <stdlib.h>
#include <string.h>

/*
 * Levenshtein distance (insert, delete, substitute: cost 1 each) with the
 * classic single-row dynamic programme: row[j] = distance of a[0..i) to
 * b[0..j).  Strings of 128 characters or more are "far" (cap): names are
 * short, and the fixed row keeps this allocation-free.  Early exit: the
 * minimum of a row never decreases in the next row, so once it reaches
 * cap the answer is at least cap.
 */
int str_distance(const char *a, const char *b, int cap)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	int row[128], best;

	if (lb >= sizeof(row) / sizeof(row[0]) || la >= 128)
		return cap;
	for (j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (i = 1; i <= la; i++) {
		int diag = row[0];

		row[0] = (int)i;
		best = row[0];
		/* diag = previous row's row[j-1] (substitution), up = previous
		 * row's row[j] (deletion), row[j-1] = this row's (insertion). */
		for (j = 1; j <= lb; j++) {
			int up = row[j];
			int v = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < v)
				v = up + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			diag = up;
			if (v < best)
				best = v;
		}
		if (best >= cap)
			return cap;
	}
	return row[lb] < cap ? row[lb] : cap;
}

const char *str_suggest(const char *word, const void *names, size_t n,
			size_t stride)
{
	const char *best = NULL;
	int best_d = 1000, limit;
	size_t i, len = strlen(word);

	/* Accept up to a third of the word's length in edits (at least 2):
	 * short words would otherwise match almost anything, long ones
	 * nothing.  The first best candidate wins ties (table order). */
	limit = (int)(len / 3);
	if (limit < 2)
		limit = 2;
	for (i = 0; i < n; i++) {
		/* names points at record 0's name field; each further
		 * record's is stride bytes on, so any table of structs can be
		 * searched in place. */
		const char *cand =
			*(const char *const *)((const char *)names + i * stride);
		int d;

		if (!cand)
			continue;
		/* cap limit + 1: anything beyond the limit is just "too far". */
		d = str_distance(word, cand, limit + 1);
		if (d < best_d) {
			best_d = d;
			best = cand;
		}
	}
	return best_d <= limit ? best : NULL;
}

char *str_dup(const char *s)
{
	char *d;
	size_t n;

	if (!s)
		return NULL;
	n = strlen(s) + 1;
	d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

char *str_read_file(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!fp)
		return NULL;
	if (fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) >= 0 &&
	    fseek(fp, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1))) {
		if (fread(buf, 1, (size_t)n, fp) != (size_t)n) {
			free(buf);
			buf = NULL;
		} else {
			buf[n] = '\0';
			if (len)
				*len = (size_t)n;
		}
	}
	fclose(fp);
	return buf;
}

void str_csv_field(FILE *fp, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}
