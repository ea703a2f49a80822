/*
 * strutil.c - string helpers.
 */
#include "strutil.h"

#include <stdlib.h>
#include <string.h>

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

	limit = (int)(len / 3);
	if (limit < 2)
		limit = 2;
	for (i = 0; i < n; i++) {
		const char *cand =
			*(const char *const *)((const char *)names + i * stride);
		int d;

		if (!cand)
			continue;
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
