/*
 * strutil.h - small string helpers shared by the config loader and assembler.
 */
#ifndef NPU_STRUTIL_H
#define NPU_STRUTIL_H

#include <stddef.h>
#include <stdio.h>

/* Levenshtein distance, capped at 'cap' (returns cap when larger). */
int str_distance(const char *a, const char *b, int cap);
/*
 * Best did-you-mean candidate for 'word' among n names (stride-separated
 * records: names[i] is at (const char *const *)((const char *)names + i*stride)),
 * or NULL if nothing is close (distance > max(2, len/3)).
 */
const char *str_suggest(const char *word, const void *names, size_t n,
			size_t stride);
/* strdup that returns NULL on NULL. */
char *str_dup(const char *s);
/* A whole file as a NUL-terminated string (NULL if it cannot be read or
 * memory runs out); *len, if given, its size. */
char *str_read_file(const char *path, size_t *len);
/* One CSV field, quoted when it holds a separator, a quote or a line
 * break (RFC 4180 section 2). */
void str_csv_field(FILE *fp, const char *s);

#endif
