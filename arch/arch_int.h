/*
 * arch_int.h - internals shared by arch.c (table, loading, validation,
 * derivation), arch_dump.c (dump, summary, key list, docs/config.md) and
 * cfg_audit.c (the loader's audit of libconfig 1.5's integer literals).
 * Nothing outside arch/ includes this header.
 */
#ifndef NPU_ARCH_INT_H
#define NPU_ARCH_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "arch.h"

/* Longest dotted key or group path the loader handles. */
#define ARCH_PATH_MAX 128

/*
 * Group paths ("chip", "core", "core.matrix", ...): every proper prefix of a
 * key that ends before a '.', each once, in order of first appearance in
 * params.def.  Stable for the life of the process.
 */
int arch_n_groups(void);
const char *arch_group(int i);
/* Index of a group path, -1 if no key lives under it. */
int arch_find_group(const char *path);

/* Fill a->d.peak and a->d.macs_per_s_type (arch_peaks.c). */
void arch_derive_peaks(struct arch *a);
/* docs/config.md's "Derived peaks" section. */
void arch_write_peaks_doc(FILE *fp);

/* Value the named preset gives a preset-backed key (0 for other keys). */
double arch_preset_value(int preset_index, enum param_id id);
/* dram.mapping a preset gives an empty dram.mapping. */
const char *arch_preset_mapping(int preset_index);

/*
 * Shortest decimal text that reads back (strtod) to exactly v and that
 * libconfig parses as a float (always has a '.' or an exponent).
 */
void arch_fmt_float(char *buf, size_t n, double v);
/* Engineering text with an SI prefix and 3 significant digits: "45.9 T". */
void arch_fmt_si(char *buf, size_t n, double v);
/* Bytes with a binary prefix when exact ("256 KiB"), else plain ("1000 B"). */
void arch_fmt_bytes(char *buf, size_t n, double v);

/*
 * cfg_audit.c: libconfig 1.5 reads an integer literal without the L suffix
 * that does not fit in 32 bits as its low 32 bits, silently.  When the
 * linked library does (cfg_audit_needed), the loader audits the file text
 * before its walk, asks about every 32-bit integer setting (claim) and
 * reports the unclaimed literals after the walk.  A zeroed struct is an
 * empty audit; the loader sets incdir.
 */
struct cfg_badlit;
struct cfg_audit {
	const char *incdir;          /* @include directory libconfig uses, or
					NULL (not owned) */
	struct cfg_badlit *badlits;  /* misread literals, in the order found */
	int n_badlits;               /* entries in badlits */
	char **seen;                 /* files audited, each once (owned) */
	int n_seen;                  /* entries in seen */
	int nomem;                   /* an allocation failed */
};
/* 1 if the linked libconfig truncates such literals (probed once). */
int cfg_audit_needed(void);
/* Lex file and the files it @includes for literals that do not fit. */
void cfg_audit_file(struct cfg_audit *au, const char *file);
/* The message for the 32-bit integer setting at file:line with value v if
 * it is a misread literal (then claimed), else NULL. */
const char *cfg_audit_claim(struct cfg_audit *au, const char *file, int line,
			    int64_t v);
/* The next literal no setting claimed (then claimed): 1, or 0 at the end. */
int cfg_audit_unclaimed(struct cfg_audit *au, const char **file, int *line,
			const char **msg);
void cfg_audit_free(struct cfg_audit *au);

#endif
