/*
 * mkdoc.c - host program that writes the generated docs/<name>.md files.
 *
 *   mkdoc NAME > docs/NAME.md
 *
 * Each generated document has one row here: its name and the function
 * that writes it from the tables it documents.  `make docs` runs every
 * name in GEN_DOCS; `make test` regenerates them into temporary files and
 * fails when a committed copy is stale.
 */
#include <stdio.h>
#include <string.h>

#include "../arch/arch.h"
#include "../cli/cmds.h"
#include "../compiler/lower.h"
#include "../isa/isa.h"
#include "../report/energy.h"
#include "../sim/engine/counters.h"

/* Must list every name of GEN_DOCS in the Makefile; an unknown name is an
 * error (exit 2), so a stale Makefile entry cannot pass silently. */
static const struct {
	const char *name;           /* docs/<name>.md */
	void (*write)(FILE *);      /* writes the whole document */
} docs[] = {
	{ "cli", cmds_write_doc },
	{ "config", arch_write_doc },
	{ "counters", ctr_write_doc },
	{ "energy", energy_write_doc },
	{ "isa", isa_write_doc },
	{ "lowering", lower_write_doc },
};

int main(int argc, char **argv)
{
	size_t i;

	if (argc != 2) {
		fprintf(stderr, "usage: mkdoc NAME  (writes docs/NAME.md to stdout)\n");
		return 2;
	}
	for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		if (strcmp(argv[1], docs[i].name) == 0) {
			/* Exit 1 if the document could not be written
			 * (full disk): make must not keep a truncated doc. */
			docs[i].write(stdout);
			return fflush(stdout) != 0;
		}
	}
	fprintf(stderr, "mkdoc: no document named '%s'\n", argv[1]);
	return 2;
}
