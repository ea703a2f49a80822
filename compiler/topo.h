/*
 * topo.h - SCALE-Sim topology CSVs into the layer graph.
 *
 * The two forms SCALE-Sim v2 reads (scalesim/topology_utils.py):
 *   convolution  Layer name, IFMAP Height, IFMAP Width, Filter Height,
 *                Filter Width, Channels, Num Filter, Strides,
 *   GEMM         Layer, M, N, K,      (SCALE-Sim's "-i gemm")
 * told apart by the header row (columns 2-4 named M, N, K: GEMM).  Each
 * row becomes one independent layer reading its own graph input, as
 * SCALE-Sim simulates each row on its own: a G_CONV (input 1xCxHxW, OIHW
 * weights) or a G_MATMUL (A [M, K], B [K, N]); weights are G_T_SYNTH
 * constants (shape only).  docs/models.md "Topology CSVs" has the details:
 * padding, depthwise rows, ignored columns.
 */
#ifndef NPU_TOPO_H
#define NPU_TOPO_H

#include <stddef.h>

#include "graph.h"

/* Read the CSV at path into g (normally empty, from graph_init).  Errors
 * name path:line:col; 0, NPU_EMODEL, NPU_EIO or NPU_ENOMEM. */
int topo_import(struct graph *g, const char *path, struct diag *d) NPU_WUR;

/* The same from text in memory (len bytes, no terminator needed); name
 * is the file name used in messages. */
int topo_parse(struct graph *g, const char *name, const char *text,
	       size_t len, struct diag *d) NPU_WUR;

#endif
