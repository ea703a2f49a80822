/*
 * cmd_as.c - `npusim as`: assemble a .s file into a .npo object.
 *
 * On any assembly error every error is printed (file:line:col, the line and
 * a caret), the exit status is 1 and no output file is written: obj_write
 * only renames its temporary file into place after a complete write.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../arch/arch.h"
#include "../asm/asm.h"
#include "../asm/obj.h"
#include "../run/run.h"
#include "cli.h"
#include "cmds.h"

/* Most -D and most -I options each (fixed arrays: no allocation while
 * parsing; 256 is far beyond any build line). */
#define AS_MAX_ARGS 256

/* Option indices of cmds_as, in opts_as.def order. */
enum {
#define OPT(id, sh, lng, meta, kind, help) AS_OPT_##id,
#include "opts_as.def"
#undef OPT
};

/* "dir/name.s" -> "name.npo" (current directory, like cc -c).  A name
 * without .s keeps its whole name: "k" -> "k.npo".  Returns malloc'ed
 * memory, NULL when out of memory. */
static char *default_output(const char *in)
{
	const char *base = strrchr(in, '/');
	size_t n;
	char *out;

	base = base ? base + 1 : in;
	n = strlen(base);
	if (n > 2 && !strcmp(base + n - 2, ".s"))
		n -= 2;
	out = malloc(n + 5);
	if (out) {
		memcpy(out, base, n);
		memcpy(out + n, ".npo", 5);
	}
	return out;
}

int cmd_as(int argc, char **argv)
{
	const char *defines[AS_MAX_ARGS], *incdirs[AS_MAX_ARGS];
	const char *sets[AS_MAX_ARGS];
	const char *out = NULL, *in = NULL, *config = NULL;
	size_t n_def = 0, n_inc = 0, n_sets = 0;
	struct asm_opts opts;
	struct run_asm ra;
	struct arch cfg;
	struct obj_prog *prog = NULL;
	struct diag d;
	struct opts op;
	char *def_out = NULL;
	int k, r;

	if (opts_begin(&op, &cmds_as, argc, argv))
		return NPU_EXIT_OK;
	while ((k = opts_next(&op)) != OPTS_END) {
		switch (k) {
		case OPTS_ERR:
			return NPU_EXIT_USAGE;
		case AS_OPT_OUTPUT:
			out = op.val;
			break;
		case AS_OPT_CONFIG:
			config = op.val;
			break;
		case AS_OPT_SET:
			if (n_sets >= AS_MAX_ARGS) {
				fprintf(stderr, "npusim as: too many -s\n");
				return NPU_EXIT_USAGE;
			}
			sets[n_sets++] = op.val;
			break;
		case AS_OPT_DEFINE:
		case AS_OPT_INCLUDE:
			if (n_def >= AS_MAX_ARGS || n_inc >= AS_MAX_ARGS) {
				fprintf(stderr, "npusim as: too many -D/-I\n");
				return NPU_EXIT_USAGE;
			}
			if (k == AS_OPT_DEFINE)
				defines[n_def++] = op.val;
			else
				incdirs[n_inc++] = op.val;
			break;
		default:        /* OPTS_ARG */
			if (in) {
				fprintf(stderr, "npusim as: more than one input file "
						"('%s' and '%s')\n", in, op.val);
				return NPU_EXIT_USAGE;
			}
			in = op.val;
			break;
		}
	}
	if (!in) {
		opts_usage(stderr, &cmds_as);
		return NPU_EXIT_USAGE;
	}
	if (!out) {
		out = def_out = default_output(in);
		if (!out) {
			fprintf(stderr, "npusim as: out of memory\n");
			return NPU_EXIT_PROGRAM;
		}
	}
	memset(&opts, 0, sizeof(opts));
	opts.defines = defines;
	opts.n_defines = n_def;
	opts.include_dirs = incdirs;
	opts.n_include_dirs = n_inc;
	diag_init(&d, stderr);
	if ((r = arch_load(&cfg, config, sets, (int)n_sets, &d))) {
		free(def_out);
		return npu_exit_status(r);
	}
	if (run_asm_begin(&cfg, &opts, &ra)) {
		fprintf(stderr, "npusim as: out of memory\n");
		arch_free(&cfg);
		free(def_out);
		return NPU_EXIT_PROGRAM;
	}
	/* The assembler reports every error it finds (not only the first);
	 * the count line helps when they scroll off the screen. */
	r = asm_assemble_file(in, &ra.opts, &d, &prog);
	if (r == 0)
		r = obj_write(prog, out, &d);
	else if (d.n_errors > 1)
		fprintf(stderr, "%d errors\n", d.n_errors);
	run_asm_end(&ra);
	arch_free(&cfg);
	obj_free(prog);
	free(def_out);
	return npu_exit_status(r);
}
