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
#include "fz_graph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	} else if (d.n_errors || !fz_graph_consistent(&g)) {
		__builtin_trap();
	}
	graph_free(&g);
	return 0;
}
