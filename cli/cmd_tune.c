/*
 * cmd_tune.c - `npusim tune`: search a kernel's .tunable schedule space on
 * a chip (dse/tune.h, docs/dse.md).
 *
 *   npusim tune [-c CONFIG] [-s key=value]... [-D NAME=VALUE]...
 *               [--input NAME=FILE|zeros]... KERNEL.s
 *               [--strategy exhaustive|random|model] [--budget N]
 *               [--seed S] [-j N] [-o DIR] [--curve FILE.csv] [--svg FILE]
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../dse/tune.h"
#include "../util/diag.h"
#include "cli.h"

static void tune_usage(FILE *fp)
{
	fputs("usage: npusim tune [-c CONFIG] [-s key=value]... [-D NAME=VALUE]...\n"
	      "                   [--input NAME=FILE|zeros]... KERNEL.s\n"
	      "                   [--strategy exhaustive|random|model] [--budget N]\n"
	      "                   [--seed S] [-j N] [-o DIR] [--curve FILE.csv] [--svg FILE]\n"
	      "\n"
	      "Find the fastest schedule of a kernel on a chip.  The kernel declares its\n"
	      "schedule parameters with .tunable; schedules it rejects when assembled for\n"
	      "the chip (its .error checks) are never simulated; the others run\n"
	      "timing-only on -j workers, each cut off at the best time so far.  Results\n"
	      "are cached by config, kernel and arguments: a rerun simulates only what\n"
	      "it has not seen.  Prints the best schedule against the kernel's default.\n"
	      "\n"
	      "options:\n"
	      "  -c, -s, -D, --input  as for npusim run (a -D of a tunable pins it)\n"
	      "  --strategy S         exhaustive, random, or model (default: a model-\n"
	      "                       guided search, docs/dse.md)\n"
	      "  --budget N           simulations (default: all for exhaustive, 20% of\n"
	      "                       the feasible schedules otherwise)\n"
	      "  --seed S             random seed (default 1)\n"
	      "  -j, --jobs N         worker processes (default: the online CPUs)\n"
	      "  -o, --out DIR        tuning directory (default: the cache,\n"
	      "                       $NPUSIM_CACHE/tune/HASH or ~/.cache/npusim/tune/HASH)\n"
	      "  --curve FILE, --svg FILE\n"
	      "                       the search curve (best cycles after each\n"
	      "                       simulation) as CSV and SVG (default: in DIR)\n"
	      "  -h, --help           this help\n", fp);
}

int cmd_tune(int argc, char **argv)
{
	const char **sets, **defs, **inputs;
	struct tune_opts o;
	struct diag d;
	char self[PATH_MAX];
	ssize_t n;
	int i, rc;

	if (cli_want_help(argc, argv)) {
		tune_usage(stdout);
		return NPU_EXIT_OK;
	}
	memset(&o, 0, sizeof(o));
	o.strategy = TUNE_MODEL;
	o.seed = 1;
	o.jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	sets = calloc((size_t)argc, sizeof(*sets));
	defs = calloc((size_t)argc, sizeof(*defs));
	inputs = calloc((size_t)argc, sizeof(*inputs));
	if (!sets || !defs || !inputs) {
		fputs("npusim tune: out of memory\n", stderr);
		rc = NPU_EXIT_USAGE;
		goto done;
	}
	o.sets = sets;
	o.defines = defs;
	o.inputs = inputs;
	for (i = 1; i < argc; i++) {
		const char *val;
		int missing = 0;
		uint64_t u;

		if ((val = cli_opt_value(argc, argv, &i, 'c', "--config", &missing))) {
			o.config = val;
		} else if ((val = cli_opt_value(argc, argv, &i, 's', "--set", &missing))) {
			sets[o.n_sets++] = val;
		} else if ((val = cli_opt_value(argc, argv, &i, 'D', "--define", &missing))) {
			defs[o.n_defines++] = val;
		} else if ((val = cli_opt_value(argc, argv, &i, 0, "--input", &missing))) {
			inputs[o.n_inputs++] = val;
		} else if ((val = cli_opt_value(argc, argv, &i, 0, "--strategy", &missing))) {
			if (!strcmp(val, "exhaustive"))
				o.strategy = TUNE_EXHAUSTIVE;
			else if (!strcmp(val, "random"))
				o.strategy = TUNE_RANDOM;
			else if (!strcmp(val, "model"))
				o.strategy = TUNE_MODEL;
			else {
				fprintf(stderr, "npusim tune: --strategy '%s': use exhaustive, random or model\n", val);
				goto usage;
			}
		} else if ((val = cli_opt_value(argc, argv, &i, 0, "--budget", &missing))) {
			if (cli_parse_u64("tune", "--budget", val, 1, 1000000000, &u))
				goto usage;
			o.budget = (int)u;
		} else if ((val = cli_opt_value(argc, argv, &i, 0, "--seed", &missing))) {
			if (cli_parse_u64("tune", "--seed", val, 0, UINT64_MAX, &u))
				goto usage;
			o.seed = u;
		} else if ((val = cli_opt_value(argc, argv, &i, 'j', "--jobs", &missing))) {
			if (cli_parse_u64("tune", "--jobs", val, 1, 1024, &u))
				goto usage;
			o.jobs = (int)u;
		} else if ((val = cli_opt_value(argc, argv, &i, 'o', "--out", &missing))) {
			o.dir = val;
		} else if ((val = cli_opt_value(argc, argv, &i, 0, "--curve", &missing))) {
			o.curve_csv = val;
		} else if ((val = cli_opt_value(argc, argv, &i, 0, "--svg", &missing))) {
			o.curve_svg = val;
		} else if (missing) {
			fprintf(stderr, "npusim tune: %s needs a value (see 'npusim tune --help')\n", argv[i]);
			goto usage;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "npusim tune: unknown argument '%s' (see 'npusim tune --help')\n", argv[i]);
			goto usage;
		} else if (!o.kernel) {
			o.kernel = argv[i];
		} else {
			fprintf(stderr, "npusim tune: one kernel only ('%s' and '%s')\n", o.kernel, argv[i]);
			goto usage;
		}
	}
	if (!o.kernel) {
		fputs("npusim tune: no kernel given\n", stderr);
		goto usage;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		fprintf(stderr, "npusim tune: cannot find the npusim binary: %s\n", strerror(errno));
		rc = NPU_EXIT_USAGE;
		goto done;
	}
	self[n] = '\0';
	o.self = self;
	diag_init(&d, stderr);
	rc = tune_run(&o, &d);
	if (rc && !d.n_errors)
		fprintf(stderr, "npusim tune: %s\n", npu_strerror(rc));
	rc = npu_exit_status(rc);
	goto done;
usage:
	tune_usage(stderr);
	rc = NPU_EXIT_USAGE;
done:
	free(sets);
	free(defs);
	free(inputs);
	return rc;
}
