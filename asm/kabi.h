/*
 * kabi.h - the kernel library's enumerated parameters (asm/kernels/abi.def)
 * for C, and the writer of the kernels' includes that define them.
 *
 * The model compiler writes `.equ BIN, %d` with ELT_BIN_ADD; eltwise.s
 * compares BIN with ELT_BIN_ADD from lib/eltwise_abi.inc.  Both names are
 * the table's, so neither side can change a number alone.  The names are
 * the same on both sides (not kabi_-prefixed in C) so that one grep finds
 * every use.
 */
#ifndef NPU_KABI_H
#define NPU_KABI_H

#include <stddef.h>
#include <stdio.h>

enum kabi {
#define KGROUP(group, file, doc)
#define KVAL(group, param, name, value, doc) group##_##param##_##name = value,
#include "kernels/abi.def"
#undef KVAL
#undef KGROUP
};

/* The groups' include names ("eltwise": lib/eltwise_abi.inc), in the
 * table's order. */
extern const char *const kabi_files[];
extern const size_t kabi_n_files;

/* Write lib/<file>_abi.inc, the include of group file, to f; -1 when no
 * group has that file name. */
int kabi_write_inc(FILE *f, const char *file);

#endif
