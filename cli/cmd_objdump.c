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
#include "cmds.h"

/* Most -D and most -I options each, as in cmd_as.c. */
#define OD_MAX_ARGS 256

/* Option indices of cmds_objdump, in opts_objdump.def order. */
enum {
#define OPT(id, sh, lng, meta, kind, help) OBJDUMP_OPT_##id,
#include "opts_objdump.def"
#undef OPT
};

int cmd_objdump(int argc, char **argv)
{
	const char *defines[OD_MAX_ARGS], *incdirs[OD_MAX_ARGS], *in = NULL;
	size_t n_def = 0, n_inc = 0;
	unsigned flags = OBJ_PRINT_DEFAULT;
	struct obj_prog *prog = NULL;
	struct diag d;
	struct opts op;
	int k, r;

	if (opts_begin(&op, &cmds_objdump, argc, argv))
		return NPU_EXIT_OK;
	while ((k = opts_next(&op)) != OPTS_END) {
		switch (k) {
		case OPTS_ERR:
			return NPU_EXIT_USAGE;
		case OBJDUMP_OPT_DATA:
			flags |= OBJ_PRINT_DATA;
			break;
		case OBJDUMP_OPT_LINES:
			flags |= OBJ_PRINT_LINES;
			break;
		case OBJDUMP_OPT_CODE:
			/* Disassembly only: drop the tables, keep the code
			 * (and -s / -l if also given). */
			flags &= ~(unsigned)(OBJ_PRINT_HEADERS | OBJ_PRINT_SYMS |
					     OBJ_PRINT_TENSORS |
					     OBJ_PRINT_REGIONS);
			break;
		case OBJDUMP_OPT_DEFINE:
		case OBJDUMP_OPT_INCLUDE:
			if (n_def >= OD_MAX_ARGS || n_inc >= OD_MAX_ARGS) {
				fprintf(stderr, "npusim objdump: too many -D/-I\n");
				return NPU_EXIT_USAGE;
			}
			if (k == OBJDUMP_OPT_DEFINE)
				defines[n_def++] = op.val;
			else
				incdirs[n_inc++] = op.val;
			break;
		default:        /* OPTS_ARG */
			if (in) {
				fprintf(stderr, "npusim objdump: more than one input file\n");
				return NPU_EXIT_USAGE;
			}
			in = op.val;
			break;
		}
	}
	if (!in) {
		opts_usage(stderr, &cmds_objdump);
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
