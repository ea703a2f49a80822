/*
 * cmd_tune.c - `npusim tune`: search a kernel's .tunable schedule space on
 * a chip (dse/tune.h, docs/dse.md; options: opts_tune.def).
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
#include "cmds.h"

/* Option indices of cmds_tune, in opts_tune.def order. */
enum {
#define OPT(id, sh, lng, meta, kind, help) TUNE_OPT_##id,
#include "opts_tune.def"
#undef OPT
};

int cmd_tune(int argc, char **argv)
{
	const char **sets, **defs, **inputs;
	struct tune_opts o;
	struct diag d;
	char self[PATH_MAX];
	struct opts op;
	ssize_t n;
	int k, rc;

	if (opts_begin(&op, &cmds_tune, argc, argv))
		return NPU_EXIT_OK;
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
	while ((k = opts_next(&op)) != OPTS_END) {
		switch (k) {
		case OPTS_ERR:
			goto usage;
		case OPTS_ARG:
			if (o.kernel) {
				fprintf(stderr, "npusim tune: one kernel only ('%s' and '%s')\n",
					o.kernel, op.val);
				goto usage;
			}
			o.kernel = op.val;
			break;
		case TUNE_OPT_CONFIG:
			o.config = op.val;
			break;
		case TUNE_OPT_SET:
			sets[o.n_sets++] = op.val;
			break;
		case TUNE_OPT_DEFINE:
			defs[o.n_defines++] = op.val;
			break;
		case TUNE_OPT_INPUT:
			inputs[o.n_inputs++] = op.val;
			break;
		case TUNE_OPT_STRATEGY:
			/* the values are indexed by enum tune_strategy */
			o.strategy = (enum tune_strategy)op.num;
			break;
		case TUNE_OPT_BUDGET:
			o.budget = (int)op.num;
			break;
		case TUNE_OPT_SEED:
			o.seed = op.num;
			break;
		case TUNE_OPT_JOBS:
			o.jobs = (int)op.num;
			break;
		case TUNE_OPT_OUT:
			o.dir = op.val;
			break;
		case TUNE_OPT_CURVE:
			o.curve_csv = op.val;
			break;
		case TUNE_OPT_SVG:
			o.curve_svg = op.val;
			break;
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
	opts_usage(stderr, &cmds_tune);
	rc = NPU_EXIT_USAGE;
done:
	free(sets);
	free(defs);
	free(inputs);
	return rc;
}
