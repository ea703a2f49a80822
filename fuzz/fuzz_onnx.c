/*
 * fuzz_onnx.c - libFuzzer target for the ONNX importer (`make fuzz-onnx`).
 *
 * The input is a .onnx file's bytes.  Invariants:
 *   - rejection comes with exactly one message, which names the file;
 *   - an accepted graph is consistent: each node's inputs and outputs are
 *     tensors of the graph (or -1), each output names the node as its
 *     producer, each constant holds data and a known shape, and graph
 *     inputs and outputs carry their flags;
 *   - graph_free releases everything (LSan catches a leak).
 * Seeds: the model python3-onnx writes for test_onnx (build/tests/onnx/).
 * tests/unit/test_onnx.c includes this file and runs the target on every
 * corrupted model it builds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../compiler/onnx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fz_onnx_consistent(const struct graph *g)
{
	for (int k = 0; k < g->n_nodes; k++) {
		const struct g_node *n = &g->nodes[k];
		if (n->n_in < 0 || n->n_in > G_MAX_IN || n->n_out < 1 ||
		    n->n_out > G_MAX_OUT || (unsigned)n->op >= G_N_OPS)
			return 0;
		for (int i = 0; i < n->n_in; i++)
			if (n->in[i] < -1 || n->in[i] >= g->n_tensors)
				return 0;
		for (int o = 0; o < n->n_out; o++)
			if (n->out[o] < -1 || n->out[o] >= g->n_tensors ||
			    (n->out[o] >= 0 &&
			     g->tensors[n->out[o]].producer != k))
				return 0;
	}
	for (int t = 0; t < g->n_tensors; t++) {
		const struct g_tensor *x = &g->tensors[t];
		if (x->rank > G_MAX_RANK ||
		    ((x->flags & G_T_CONST) && (!x->data || x->rank < 0)))
			return 0;
	}
	for (int i = 0; i < g->n_inputs; i++)
		if (!(g->tensors[g->inputs[i]].flags & G_T_INPUT))
			return 0;
	for (int i = 0; i < g->n_outputs; i++)
		if (!(g->tensors[g->outputs[i]].flags & G_T_OUTPUT))
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct graph g;
	struct diag d;
	int r;

	/* Models beyond 64 KiB only slow the search down. */
	if (size > 65536)
		return 0;
	diag_init(&d, NULL);
	graph_init(&g, "fuzz.onnx");
	r = onnx_import_mem(&g, data, size, "fuzz.onnx", &d);
	if (r != 0) {
		if (d.n_errors != 1 || strncmp(d.last, "fuzz.onnx: ", 11))
			__builtin_trap();
	} else if (d.n_errors || !fz_onnx_consistent(&g)) {
		__builtin_trap();
	}
	graph_free(&g);
	return 0;
}
