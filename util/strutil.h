/*
 * strutil.h - small string helpers shared by the config loader and assembler.
 */
#ifndef NPU_STRUTIL_H
#define NPU_STRUTIL_H

#include <stddef.h>

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

#endif
