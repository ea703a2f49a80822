/*
 * cmd_model.c - `npusim model`: import a model (ONNX or a SCALE-Sim
 * topology CSV), map it onto the kernel library for a chip and run it
 * layer by layer (compiler/, docs/models.md; options: opts_model.def).
 */
/* realpath */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../compiler/compile.h"
#include "../dse/tune.h"
#include "../report/ctrout.h"
#include "../trace/trace.h"
#include "../util/fsout.h"
#include "cli.h"
#include "cmds.h"

/* Option indices of cmds_model, in opts_model.def order. */
enum {
#define OPT(id, sh, lng, meta, kind, help) MODEL_OPT_##id,
#include "opts_model.def"
#undef OPT
};

/* --dtype's and --split's values, in the order of their names (cmds.c). */
static const enum npu_dtype dtypes[] = { DT_INT8, DT_BF16 };
static const enum map_split splits[] = { MAP_SPLIT_ROWS, MAP_SPLIT_CHANNELS };

#define MAX_ARGS 64

struct mopts {
	const char *config, *model, *output_dir, *layers, *emit_asm, *kernels;
	const char *trace;
	cycle_t trace_interval;
	const char *sets[MAX_ARGS];
	int n_sets;
	const char *inputs[MAX_ARGS], *outputs[MAX_ARGS], *counters[8];
	int n_inputs, n_outputs, n_counters;
	int timing_only, one_core, dump_graph, no_fuse, per_image, quiet, upto;
	int batch, tune, untuned, pipeline, n_starts, calibrate, explain;
	int starts[MAX_ARGS];
	const char *dump_layers;
	enum npu_dtype dtype;
	enum map_split split;
	cycle_t max_cycles;
};

static int usage_err(const char *msg, const char *arg)
{
	fprintf(stderr, "npusim model: %s%s%s\n", msg, arg ? " " : "",
		arg ? arg : "");
	fputs("try 'npusim model --help'\n", stderr);
	return -1;
}

static int parse(struct opts *op, struct mopts *o)
{
	const char *v;
	char *end;
	int k;

	while ((k = opts_next(op)) != OPTS_END) {
		v = op->val;
		switch (k) {
		case OPTS_ERR:
			return -1;
		case OPTS_ARG:
			if (o->model)
				return usage_err("one model only; extra", v);
			o->model = v;
			break;
		case MODEL_OPT_CONFIG:
			o->config = v;
			break;
		case MODEL_OPT_SET:
			if (o->n_sets == MAX_ARGS)
				return usage_err("too many -s", NULL);
			o->sets[o->n_sets++] = v;
			break;
		case MODEL_OPT_DTYPE:
			o->dtype = dtypes[op->num];
			break;
		case MODEL_OPT_SPLIT:
			o->split = splits[op->num];
			break;
		case MODEL_OPT_INPUT:
			if (o->n_inputs == MAX_ARGS)
				return usage_err("too many --input", NULL);
			o->inputs[o->n_inputs++] = v;
			break;
		case MODEL_OPT_OUTPUT:
			if (o->n_outputs == MAX_ARGS)
				return usage_err("too many --output", NULL);
			o->outputs[o->n_outputs++] = v;
			break;
		case MODEL_OPT_COUNTERS:
			if (o->n_counters == 8)
				return usage_err("too many --counters", NULL);
			if (ctrout_fmt_of(v) < 0)
				return usage_err("--counters needs .json, .csv "
						 "or .txt:", v);
			o->counters[o->n_counters++] = v;
			break;
		case MODEL_OPT_OUTPUT_DIR:
			o->output_dir = v;
			break;
		case MODEL_OPT_LAYERS:
			o->layers = v;
			break;
		case MODEL_OPT_TRACE:
			o->trace = v;
			break;
		case MODEL_OPT_TRACE_INTERVAL:
			o->trace_interval = op->num;
			break;
		case MODEL_OPT_EMIT_ASM:
			o->emit_asm = v;
			break;
		case MODEL_OPT_DUMP_LAYERS:
			o->dump_layers = v;
			break;
		case MODEL_OPT_BATCH:
			o->batch = (int)op->num;
			break;
		case MODEL_OPT_PIPELINE:
			o->pipeline = (int)op->num;
			break;
		case MODEL_OPT_STAGES:
			for (const char *q = v; *q; q = *end ? end + 1 : end) {
				long x = strtol(q, &end, 10);
				if (end == q || (*end && *end != ',') || x < 1 ||
				    x > 1000000 || o->n_starts == MAX_ARGS)
					return usage_err("--stages takes layer "
							 "indices, as 5,17,40:", v);
				o->starts[o->n_starts++] = (int)x;
			}
			break;
		case MODEL_OPT_UPTO:
			o->upto = (int)op->num;
			break;
		case MODEL_OPT_KERNELS:
			o->kernels = v;
			break;
		case MODEL_OPT_MAX_CYCLES:
			o->max_cycles = op->num;
			break;
		case MODEL_OPT_TIMING_ONLY:
			o->timing_only = 1;
			break;
		case MODEL_OPT_ONE_CORE:
			o->one_core = 1;
			break;
		case MODEL_OPT_DUMP_GRAPH:
			o->dump_graph = 1;
			break;
		case MODEL_OPT_NO_FUSE:
			o->no_fuse = 1;
			break;
		case MODEL_OPT_PER_IMAGE:
			o->per_image = 1;
			break;
		case MODEL_OPT_TUNE:
			o->tune = 1;
			break;
		case MODEL_OPT_UNTUNED:
			o->untuned = 1;
			break;
		case MODEL_OPT_CALIBRATE:
			o->calibrate = 1;
			break;
		case MODEL_OPT_QUIET:
			o->quiet = 1;
			break;
		case MODEL_OPT_EXPLAIN:
			o->explain = 1;
			break;
		}
	}
	if (!o->model)
		return usage_err("no model given", NULL);
	if (o->timing_only && (o->n_outputs || o->output_dir || o->n_inputs ||
			       o->dump_layers))
		return usage_err("--timing-only computes no values: --input, "
				 "--output and --dump-layers need a run with "
				 "values", NULL);
	if (o->n_starts && o->n_starts + 1 != o->pipeline)
		return usage_err("--stages gives the first layer of stages 2..S: "
				 "S - 1 indices for --pipeline S", NULL);
	if (o->pipeline && (o->one_core || o->upto || o->dump_layers))
		return usage_err("--pipeline runs every layer of every image: "
				 "not with --one-core, --upto or --dump-layers",
				 NULL);
	if (o->calibrate && o->timing_only)
		return usage_err("--calibrate runs the model with values to "
				 "measure its ranges: not with --timing-only",
				 NULL);
	if (o->upto && (o->n_outputs || o->output_dir))
		return usage_err("--upto stops before the graph outputs exist: "
				 "--dump-layers reads the layers it ran", NULL);
	return 0;
}

static int write_counters(const struct mopts *o, struct run *r,
			  const struct arch *a, uint64_t cycles, struct diag *d)
{
	struct ctr_sink sink;
	struct ctr_region *rgn = NULL;
	size_t n_rgn = 0;
	int rc;
	ctr_sink_init(&sink);
	if ((rc = run_counters(r, &sink)) || (rc = run_regions(r, &rgn, &n_rgn))) {
		rc = diag_error(d, diag_nowhere(), NPU_ENOMEM, "out of memory");
		goto out;
	}
	struct ctrout_meta m = { NPU_VERSION, o->config, o->model, cycles,
				 ARCH_F(a, CHIP_CLOCK_GHZ) };
	m.arch = a;
	m.overrides = o->sets;
	m.n_overrides = (size_t)o->n_sets;
	m.regions = rgn;
	m.n_regions = n_rgn;
	for (int i = 0; i < o->n_counters && !rc; i++)
		rc = ctrout_write(o->counters[i],
				  (enum ctrout_fmt)ctrout_fmt_of(o->counters[i]),
				  &sink, &m, d);
out:
	run_regions_free(rgn, n_rgn);
	ctr_sink_free(&sink);
	return rc;
}

int cmd_model(int argc, char **argv)
{
	struct mopts o;
	struct diag d;
	struct arch a;
	struct compiled c;
	struct model_result res;
	struct run *r = NULL;
	struct trc *trace = NULL;
	float **in = NULL;
	char self[PATH_MAX];
	struct opts op;
	int rc, arch_ok = 0;

	if (opts_begin(&op, &cmds_model, argc, argv))
		return NPU_EXIT_OK;
	memset(&o, 0, sizeof o);
	memset(&res, 0, sizeof res);
	o.dtype = DT_N;
	o.max_cycles = CYCLE_MAX;
	o.trace_interval = 1000;
	if (parse(&op, &o))
		return NPU_EXIT_USAGE;
	diag_init(&d, stderr);
	struct compile_opts co = {
		.dtype = o.dtype, .split = o.split, .batch = o.batch,
		.pipeline = o.pipeline, .starts = o.starts,
		.n_starts = o.n_starts, .no_fuse = o.no_fuse,
		.per_image = o.per_image,
		.keep_all = o.dump_layers != NULL, .calibrate = o.calibrate,
		.kernels = o.kernels,
	};
	if ((rc = compile_import(&c, o.model, &co, &d)))
		goto out;
	if (o.dump_graph) {
		graph_print(&c.g, stdout);
		goto out;
	}
	if ((rc = arch_load(&a, o.config, o.sets, o.n_sets, &d)))
		goto out;
	arch_ok = 1;
	/* inputs first: an int8 run's calibration runs on them */
	if (!o.timing_only &&
	    (rc = compile_inputs(&c, o.inputs, o.n_inputs, &in, &d)))
		goto out;
	/* the tuner's schedules: searched (--tune), or its cache */
	ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
	self[sl > 0 ? sl : 0] = 0;
	struct tune_layer_ctx tl = { o.config, o.sets, o.n_sets, &a, self,
				     o.tune, !o.untuned, o.quiet };
	if (o.tune || !o.untuned) {
		c.o.schedule = tune_layer_schedule;
		c.o.schedule_ctx = &tl;
	}
	if ((rc = compile_plans(&c, &a, in, &d)))
		goto out;
	const char *dirs[3] = { o.emit_asm, o.output_dir, o.dump_layers };
	for (int i = 0; i < 3; i++)
		if (dirs[i] && mkdir(dirs[i], 0777) && errno != EEXIST) {
			rc = diag_error(&d, diag_at_file(dirs[i], 0, 0), NPU_EIO,
					"cannot create the directory: %s",
					strerror(errno));
			goto out;
		}
	/* the trace streams while the model runs; nothing is left at its
	 * path unless the whole run succeeds (trc_abort) */
	if (o.trace && !(trace = trc_open(o.trace, ARCH_F(&a, CHIP_CLOCK_GHZ),
					  &d))) {
		rc = NPU_EIO;
		goto out;
	}
	struct run_params rp;
	memset(&rp, 0, sizeof rp);
	rp.max_cycles = o.max_cycles;
	rp.timing_only = o.timing_only;
	rp.interrupted = fsout_interrupted;
	rp.trace = trace;
	rp.trace_interval = o.trace_interval;
	if (!(r = run_new(&a, &rp, &d))) {
		rc = d.last_err ? d.last_err : NPU_ENOMEM;
		goto out;
	}
	struct model_opts mro = { c.kdir, o.one_core, !o.timing_only, in,
				  o.emit_asm, o.upto };
	fsout_catch_signals(FSOUT_SIG_FLAG);
	rc = compile_run(&c, r, &a, &mro, &res, &d);
	fsout_catch_signals(FSOUT_SIG_DIE);
	if (rc)
		goto out;
	if (!o.timing_only && !o.upto &&
	    (rc = compile_save_outputs(&c, &res, o.outputs, o.n_outputs,
				       o.output_dir, &d)))
		goto out;
	if (o.dump_layers && (rc = compile_dump_layers(&c, r, o.dump_layers,
						       res.n_layers, &d)))
		goto out;
	if (o.layers &&
	    (rc = compile_write_layers(&c, o.layers, &res, &a, &d)))
		goto out;
	if (o.n_counters && (rc = write_counters(&o, r, &a, res.cycles, &d)))
		goto out;
	if (trace) {
		rc = trc_close(trace, &d);
		trace = NULL;
		if (rc)
			goto out;
	}
	res.batch = o.batch;
	if (!o.quiet)
		model_print(stdout, &c.g, &c.plans[0], &res, &a);
	if (o.explain)
		model_print_explain(stdout, &c.g, &c.plans[0], &res);
out:
	compile_inputs_free(&c, in);
	model_result_free(&res);
	run_free(r);
	if (trace)
		trc_abort(trace);
	if (arch_ok)
		arch_free(&a);
	compile_free(&c);
	return npu_exit_status(rc);
}
