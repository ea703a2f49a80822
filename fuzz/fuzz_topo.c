/*
 * fuzz_topo.c - libFuzzer target for the SCALE-Sim topology importer
 * (`make fuzz-topo`).
 *
 * The input is a CSV's bytes.  Invariants:
 *   - rejection comes with exactly one message, naming the file;
 *   - an accepted graph is consistent (fz_graph.h) and its shapes infer,
 *     or inference refuses it with one message (never a crash);
 *   - graph_free releases everything (LSan catches a leak).
 * Seeds: the CSVs of workloads/topologies.  tests/unit/test_graph.c includes
 * this file and runs the target on the bundled files and on mutations
 * of them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../compiler/topo.h"
#include "fz_graph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct graph g;
	struct diag d;
	int r;

	/* longer files only slow the search down */
	if (size > 65536)
		return 0;
	diag_init(&d, NULL);
	graph_init(&g, "fuzz.csv");
	r = topo_parse(&g, "fuzz.csv", (const char *)data, size, &d);
	if (r != 0) {
		if (d.n_errors != 1 || strncmp(d.last, "fuzz.csv:", 9))
			__builtin_trap();
	} else if (d.n_errors || !fz_graph_consistent(&g)) {
		__builtin_trap();
	} else if (graph_infer(&g, &d) != 0 && d.n_errors != 1) {
		__builtin_trap();
	}
	graph_free(&g);
	return 0;
}
