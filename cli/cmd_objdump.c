/*
 * cmd_objdump.c - `npusim objdump`: list an object file (or assemble a .s
 * file in memory and list that): sections, symbols, tensor table, and the
 * disassembly with addresses, encodings and label names.
 */
#include <stdio.h>
#include <string.h>

#include "../asm/asm.h"
#include "../asm/obj.h"
#include "cli.h"

/* Most -D and most -I options each, as in cmd_as.c. */
#define OD_MAX_ARGS 256

static void od_usage(FILE *fp)
{
	fprintf(fp,
		"usage: npusim objdump [-s] [-l] [-D NAME[=VALUE]]... [-I DIR]... "
		"FILE\n\n"
		"List FILE, an object (.npo) or assembly source (.s, assembled in "
		"memory):\nsection table, symbols, tensor table and disassembly "
		"(address, encoding,\ninstruction; labels as <name>: lines, branch "
		"targets by label).\n\n"
		"  -s            also dump the bytes of every data section in hex\n"
		"  -l            show the source file:line of each instruction\n"
		"  -d            disassembly only (no tables)\n"
		"  -D, -I        assembler defines and include path (for .s input)\n"
		"  -h, --help    this help\n\n"
		"exit status: 0 ok, 1 unreadable or invalid input, 2 usage "
		"errors\n");
}

int cmd_objdump(int argc, char **argv)
{
	const char *defines[OD_MAX_ARGS], *incdirs[OD_MAX_ARGS], *in = NULL;
	size_t n_def = 0, n_inc = 0;
	unsigned flags = OBJ_PRINT_DEFAULT;
	struct obj_prog *prog = NULL;
	struct diag d;
	int i, r;

	if (cli_want_help(argc, argv)) {
		od_usage(stdout);
		return NPU_EXIT_OK;
	}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-s")) {
			flags |= OBJ_PRINT_DATA;
		} else if (!strcmp(a, "-l")) {
			flags |= OBJ_PRINT_LINES;
		} else if (!strcmp(a, "-d")) {
			/* Disassembly only: drop the tables, keep the code
			 * (and -s / -l if also given). */
			flags &= ~(unsigned)(OBJ_PRINT_HEADERS | OBJ_PRINT_SYMS |
					     OBJ_PRINT_TENSORS |
					     OBJ_PRINT_REGIONS);
		} else if (a[0] == '-' && (a[1] == 'D' || a[1] == 'I')) {
			const char *v = a[2] ? a + 2
					      : (i + 1 < argc ? argv[++i] : NULL);

			if (!v) {
				fprintf(stderr, "npusim objdump: -%c needs a "
						"value\n", a[1]);
				return NPU_EXIT_USAGE;
			}
			if (n_def >= OD_MAX_ARGS || n_inc >= OD_MAX_ARGS) {
				fprintf(stderr, "npusim objdump: too many -D/-I\n");
				return NPU_EXIT_USAGE;
			}
			if (a[1] == 'D')
				defines[n_def++] = v;
			else
				incdirs[n_inc++] = v;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "npusim objdump: unknown option '%s' (see "
					"npusim objdump --help)\n", a);
			return NPU_EXIT_USAGE;
		} else if (in) {
			fprintf(stderr, "npusim objdump: more than one input file\n");
			return NPU_EXIT_USAGE;
		} else {
			in = a;
		}
	}
	if (!in) {
		od_usage(stderr);
		return NPU_EXIT_USAGE;
	}
	diag_init(&d, stderr);
	/* The magic number decides, not the file name: a .npo renamed to .s
	 * still lists, and source is never mistaken for an object.  -D/-I
	 * only matter for source. */
	if (obj_sniff(in)) {
		r = obj_load(in, &d, &prog);
	} else {
		struct asm_opts opts;

		memset(&opts, 0, sizeof(opts));
		opts.defines = defines;
		opts.n_defines = n_def;
		opts.include_dirs = incdirs;
		opts.n_include_dirs = n_inc;
		r = asm_assemble_file(in, &opts, &d, &prog);
	}
	if (r == 0) {
		/* A write error on stdout (full disk, closed pipe) must not
		 * exit 0 with a truncated listing. */
		obj_print(stdout, prog, in, flags);
		if (fflush(stdout) != 0)
			r = NPU_EIO;
	}
	obj_free(prog);
	return npu_exit_status(r);
}
