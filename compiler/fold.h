/*
 * fold.h - evaluating graph nodes whose inputs are all constants (used by
 * shape inference for shape subgraphs and by graph_simplify's constant
 * folding; not part of the graph API the mapper sees).
 *
 * Movement ops (Reshape, Transpose, Concat, Split, Slice, Gather, ...)
 * copy element bytes, so int64 shape values and float weights pass through
 * exactly.  Arithmetic is done in double and stored once into the output
 * dtype (round to nearest even, integers saturated; integer Div truncates
 * toward zero as C and ONNX Runtime do); sums (MatMul, Gemm, Conv, means,
 * normalisations) accumulate in double.
 */
#ifndef NPU_FOLD_H
#define NPU_FOLD_H

#include "graph.h"

/* "Small": the most output elements a folded node may have (256 KiB of
 * float32), so folding never copies a weight tensor of a real layer. */
#define FOLD_MAX_ELEMS 65536

/*
 * Evaluate node k when every present input is a constant with values, its
 * outputs' shapes are inferred and hold at most max_elems elements: each
 * output becomes a constant (G_T_CONST, data).  Every op folds except
 * QuantizeLinear and DequantizeLinear, which carry the quantisation the
 * mapper maps (DequantizeLinear of int8 weights must stay int8 weights),
 * Resize, whose coordinate modes the graph does not keep, and a node that
 * has something fused into it.
 * 1 when folded, 0 when the node is not foldable, NPU_ENOMEM.
 */
int fold_node(struct graph *g, int k, int64_t max_elems) NPU_WUR;

/* Store v as element i of a buffer of dtype t (round, saturate). */
void fold_store(enum g_dtype t, void *data, int64_t i, double v);

/*
 * Slice's constant starts/ends/axes/steps resolved per axis of the data
 * (ONNX clamping rules): start[a], step[a], count[a] (output size).
 * 0, or NPU_EMODEL with the reason in why (an input not constant, a zero
 * step, an axis out of range or repeated).
 */
int fold_slice_ranges(const struct graph *g, const struct g_node *n,
		      int64_t *start, int64_t *step, int64_t *count,
		      char *why, size_t why_n) NPU_WUR;

#endif
