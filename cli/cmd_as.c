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

/* Most -D and most -I options each (fixed arrays: no allocation while
 * parsing; 256 is far beyond any build line). */
#define AS_MAX_ARGS 256

static void as_usage(FILE *fp)
{
	fprintf(fp,
		"usage: npusim as [-c CONFIG] [-s key=value]... [-o OUT.npo] "
		"[-D NAME[=VALUE]]...\n                 [-I DIR]... FILE.s\n\n"
		"Assemble FILE.s into an npusim object file (docs/isa.md "
		"describes the\nlanguage, docs/formats.md the object format).\n\n"
		"  -c CONFIG     assemble for this chip: its settings are the "
		"CFG_* symbols\n                (core.matrix.rows -> "
		"CFG_CORE_MATRIX_ROWS; built-in defaults\n                "
		"without -c; docs/isa.md)\n"
		"  -s key=value  override a config key (repeatable)\n"
		"  -o OUT        output file (default: FILE with .npo instead of "
		".s,\n                in the current directory; - for stdout)\n"
		"  -D NAME=VALUE define a constant (VALUE an integer expression; "
		"default 1)\n"
		"  -I DIR        add DIR to the .include search path (after the "
		"including\n                file's own directory)\n"
		"  -h, --help    this help\n\n"
		"exit status: 0 assembled, 1 assembly errors, 2 usage errors\n");
}

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
	char *def_out = NULL;
	int i, r;

	if (cli_want_help(argc, argv)) {
		as_usage(stdout);
		return NPU_EXIT_OK;
	}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		char opt = 0;

		/* Short options only, value glued ("-oX") or separate
		 * ("-o X"); a lone "-" is an operand, not an option. */
		if (a[0] == '-' && (a[1] == 'o' || a[1] == 'D' || a[1] == 'I' ||
				    a[1] == 'c' || a[1] == 's')) {
			opt = a[1];
			v = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
			if (!v) {
				fprintf(stderr, "npusim as: -%c needs a value\n", opt);
				return NPU_EXIT_USAGE;
			}
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "npusim as: unknown option '%s' (see "
					"npusim as --help)\n", a);
			return NPU_EXIT_USAGE;
		}
		if (opt == 'o') {
			out = v;
		} else if (opt == 'c') {
			config = v;
		} else if (opt == 's') {
			if (n_sets >= AS_MAX_ARGS) {
				fprintf(stderr, "npusim as: too many -s\n");
				return NPU_EXIT_USAGE;
			}
			sets[n_sets++] = v;
		} else if (opt == 'D' || opt == 'I') {
			if (n_def >= AS_MAX_ARGS || n_inc >= AS_MAX_ARGS) {
				fprintf(stderr, "npusim as: too many -D/-I\n");
				return NPU_EXIT_USAGE;
			}
			if (opt == 'D')
				defines[n_def++] = v;
			else
				incdirs[n_inc++] = v;
		} else if (in) {
			fprintf(stderr, "npusim as: more than one input file "
					"('%s' and '%s')\n", in, a);
			return NPU_EXIT_USAGE;
		} else {
			in = a;
		}
	}
	if (!in) {
		as_usage(stderr);
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
