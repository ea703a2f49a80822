/*
 * fz_graph.h - what every graph importer's fuzz target checks of an
 * accepted graph (fuzz_onnx.c, fuzz_topo.c): each node's inputs and
 * outputs are tensors of the graph (or -1), each output names the node
 * as its producer, each constant holds data (unless its values are to be
 * drawn: G_T_SYNTH) and a known shape, and graph
 * inputs and outputs carry their flags.
 */
#ifndef NPU_FZ_GRAPH_H
#define NPU_FZ_GRAPH_H

#include "../compiler/graph.h"

static int fz_graph_consistent(const struct graph *g)
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
		    ((x->flags & G_T_CONST) &&
		     ((!x->data && !(x->flags & G_T_SYNTH)) || x->rank < 0)))
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

#endif
