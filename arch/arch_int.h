/*
 * arch_int.h - internals shared by arch.c (table, loading, validation,
 * derivation) and arch_dump.c (dump, summary, key list, docs/config.md).
 * Nothing outside arch/ includes this header.
 */
#ifndef NPU_ARCH_INT_H
#define NPU_ARCH_INT_H

#include <stddef.h>
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

#endif
