/*
 * fuzz_obj.c - libFuzzer target for the object loader (`make fuzz`).
 *
 * Each input is loaded as an object file.  Rejection is fine (with exactly
 * one message); a file that loads must be a consistent program: it lists
 * without trouble and survives serialise -> load -> serialise with
 * identical bytes.  Crashing inputs are kept in fuzz/regress/obj and
 * replayed by tests/unit/test_obj.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../asm/obj.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	struct obj_prog *p = NULL, *q = NULL;
	uint8_t *b1 = NULL, *b2 = NULL;
	size_t n1 = 0, n2 = 0;
	struct diag d;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	diag_init(&d, NULL);
	if (obj_load_mem(data, size, "fuzz.npo", &d, &p) != 0) {
		if (p || d.n_errors != 1)
			__builtin_trap();
		return 0;
	}
	if (devnull)
		obj_print(devnull, p, "fuzz.npo", ~0u);
	if (obj_serialize(p, &b1, &n1) != 0)
		__builtin_trap();
	if (obj_load_mem(b1, n1, "again.npo", &d, &q) != 0)
		__builtin_trap();
	if (obj_serialize(q, &b2, &n2) != 0 || n1 != n2 || memcmp(b1, b2, n1))
		__builtin_trap();
	obj_free(p);
	obj_free(q);
	free(b1);
	free(b2);
	return 0;
}
