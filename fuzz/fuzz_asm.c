/*
 * fuzz_asm.c - libFuzzer target for the assembler (`make fuzz`).
 *
 * Each input is assembled as a source file.  A program that assembles is
 * then pushed through everything downstream of the assembler: serialised,
 * loaded back (which must succeed), serialised again (which must give the
 * same bytes), and listed with the disassembler.  Any crash, sanitizer
 * report or broken invariant (a trap) is a bug; crashing inputs are kept in
 * fuzz/regress/asm and replayed by tests/unit/test_asm.c.
 *
 * .include is resolved relative to the working directory (make fuzz runs
 * from the top directory), so inputs may include files of the repository.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../asm/asm.h"
#include "../asm/obj.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	struct obj_prog *p = NULL, *q = NULL;
	uint8_t *b1 = NULL, *b2 = NULL;
	size_t n1 = 0, n2 = 0;
	struct diag d;

	/* Sources beyond 64 KiB only slow the search down. */
	if (size > 65536)
		return 0;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	diag_init(&d, NULL);
	if (asm_assemble_string("fuzz.s", (const char *)data, size, NULL, &d,
				&p) != 0) {
		/* A failure always comes with a message and no program. */
		if (p || d.n_errors == 0)
			__builtin_trap();
		return 0;
	}
	if (obj_serialize(p, &b1, &n1) != 0)
		__builtin_trap();
	if (obj_load_mem(b1, n1, "fuzz.npo", &d, &q) != 0)
		__builtin_trap();
	if (obj_serialize(q, &b2, &n2) != 0 || n1 != n2 || memcmp(b1, b2, n1))
		__builtin_trap();
	if (devnull)
		obj_print(devnull, q, "fuzz.npo", ~0u);
	obj_free(p);
	obj_free(q);
	free(b1);
	free(b2);
	return 0;
}
