/*
 * lower.h - the lowering table (compiler/lower.def): which kernel serves
 * which layer, in order of preference.  map.c picks a layer's row (the
 * conditions need its context); this is the table's text and its doc.
 */
#ifndef NPU_COMPILER_LOWER_H
#define NPU_COMPILER_LOWER_H

#include <stdio.h>

enum lower_id {
#define LOWER(id, map, kernel, cond, pattern, when, params) LW_##id,
#include "lower.def"
#undef LOWER
	LW_N
};

struct lower_info {
	const char *map;        /* the ops.def map handler's name */
	const char *kernel;     /* "gemm_ws.s" */
	const char *pattern, *when, *params;
};

extern const struct lower_info lower_info[LW_N];

/* docs/lowering.md: the table, with the ONNX ops of each handler (from
 * ops.def). */
void lower_write_doc(FILE *fp);

#endif
