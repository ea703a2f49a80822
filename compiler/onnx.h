/*
 * onnx.h - the ONNX importer: a .onnx file (a protobuf ModelProto) into
 * the layer graph (compiler/graph.h).
 *
 * Decoding is protobuf-c's, over the schema Debian's python3-onnx ships
 * (onnx.proto, compiled by protoc-c at build time); this module checks
 * the model (IR version, default-domain opset 11..17, operators of
 * compiler/ops.def with their attributes) and fills the graph:
 *   - graph inputs that are not initializers, in order, with dtype and
 *     shape (a symbolic dimension, dim_param, is taken as 1);
 *   - initializers and Constant nodes as G_T_CONST tensors holding
 *     little-endian arrays of their dtype;
 *   - value_info and graph outputs: dtype, and the shape when every
 *     dimension is a number;
 *   - one node per operator, in file order, attributes in struct g_node.
 * Everything the importer cannot represent exactly is an error that names
 * the node (or tensor) and says what is supported; docs/models.md
 * ("ONNX import") lists the rules.  A malformed file is an error with the
 * byte offset of the first bad byte.
 *
 * The graph must be graph_init'ed by the caller (its source names the
 * file in messages); on error it holds what was imported so far and the
 * caller still graph_free's it.
 */
#ifndef NPU_ONNX_H
#define NPU_ONNX_H

#include <stddef.h>

#include "graph.h"

/* Oldest and newest default-domain opsets accepted. */
#define ONNX_OPSET_MIN 11
#define ONNX_OPSET_MAX 17

/* Import the model file at path.  0, NPU_EIO (unreadable), NPU_EMODEL
 * (malformed or unsupported) or NPU_ENOMEM. */
int onnx_import(struct graph *g, const char *path, struct diag *d) NPU_WUR;
/* The same from n bytes in memory; label names them in messages. */
int onnx_import_mem(struct graph *g, const void *buf, size_t n,
		    const char *label, struct diag *d) NPU_WUR;

#endif
