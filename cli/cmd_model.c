/*
 * cmd_model.c - `npusim model`: import a model (ONNX or a SCALE-Sim
 * topology CSV), map it onto the kernel library for a chip and run it
 * layer by layer (compiler/, docs/models.md).
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

static void model_usage(FILE *fp)
{
	fputs("usage: npusim model [-c CONFIG] [-s key=value]... MODEL.onnx|TOPOLOGY.csv\n"
	      "                    [--timing-only] [--dtype int8|bf16] [--calibrate]\n"
	      "                    [--split rows|channels]\n"
	      "                    [--one-core] [--batch N] [--pipeline S [--stages L,...]]\n"
	      "                    [--input NAME=FILE.npy]...\n"
	      "                    [--output NAME=FILE.npy]...\n"
	      "                    [--output-dir DIR] [--layers FILE.csv] [--counters FILE]...\n"
	      "                    [--trace FILE.json.gz [--trace-interval N]]\n"
	      "                    [--emit-asm DIR] [--dump-layers DIR] [--upto N]\n"
	      "                    [--dump-graph] [--no-fuse] [--tune] [--untuned] [--kernels DIR]\n"
	      "                    [--max-cycles N] [-q]\n"
	      "\n"
	      "Import a model, map every layer onto a kernel of the library with a\n"
	      "tiling for the chip, and run the layers as phases on one chip (DRAM kept\n"
	      "between them), each layer a program region.  Prints the layer table and\n"
	      "the whole-model summary (latency, throughput, TOPS, energy).\n"
	      "\n"
	      "options:\n"
	      "  -c, -s               as for npusim run\n"
	      "  --timing-only        compute no tensor values (identical cycles)\n"
	      "  --dtype T            activations and weights: int8 or bf16 (default:\n"
	      "                       int8 when core.matrix.in_type is an integer type)\n"
	      "  --calibrate          int8: each tensor's format from a bf16 run on the\n"
	      "                       input (default: every activation Q3.4)\n"
	      "  --split S            how a multi-core chip shares a layer: rows or\n"
	      "                       channels of the output (default: the kernel's)\n"
	      "  --one-core           run every layer on core 0\n"
	      "  --batch N            N inputs at once (the first dimension of every\n"
	      "                       graph input; the conv kernels take an image per step)\n"
	      "  --pipeline S         pipeline the layers over S stages, each on its own\n"
	      "                       partition of the cores, the --batch images flowing\n"
	      "                       through at once (docs/models.md, Pipelining)\n"
	      "  --stages L,...       with --pipeline: the first layer of stages 2..S\n"
	      "                       (default: cut by the cost model to balance them)\n"
	      "  --input NAME=FILE    a graph input's values (.npy, the model's shape);\n"
	      "                       default: uniform in [-1, 1) from a fixed seed\n"
	      "  --output NAME=FILE   write a graph output (.npy, fp32, the model's layout)\n"
	      "  --output-dir DIR     write every graph output as DIR/NAME.npy\n"
	      "  --layers FILE.csv    the per-layer CSV (docs/formats.md)\n"
	      "  --counters FILE      the run's counters, a region per layer (.json,\n"
	      "                       .csv or .txt); npusim roofline plots the layers\n"
	      "  --trace FILE         a Chrome/Perfetto trace of the run (gzip JSON): every\n"
	      "                       unit's work, the layers as regions on each core\n"
	      "  --trace-interval N   trace counter samples every N cycles (default 1000,\n"
	      "                       0: none)\n"
	      "  --emit-asm DIR       write each layer's program source to DIR\n"
	      "  --dump-layers DIR    write every layer's output as DIR/TENSOR.npy (each\n"
	      "                       activation kept in DRAM to the end: no reuse)\n"
	      "  --upto N             run the first N layers only (with --dump-layers)\n"
	      "  --dump-graph         print the simplified graph and stop\n"
	      "  --no-fuse            keep activations and residual adds as layers\n"
	      "  --tune               tune every layer's schedule first (npusim tune's\n"
	      "                       model-guided search, cached: later runs reuse it)\n"
	      "  --untuned            ignore the tuner's cache: the kernels' defaults\n"
	      "  --kernels DIR        the kernel library (default: found next to npusim)\n"
	      "  --max-cycles N       watchdog per layer step\n"
	      "  -q, --quiet          print nothing but errors\n"
	      "  -h, --help           this help\n", fp);
}

#define MAX_ARGS 64

struct mopts {
	const char *config, *model, *output_dir, *layers, *emit_asm, *kernels;
	const char *trace;
	cycle_t trace_interval;
	const char *sets[MAX_ARGS];
	int n_sets;
	const char *inputs[MAX_ARGS], *outputs[MAX_ARGS], *counters[8];
	int n_inputs, n_outputs, n_counters;
	int timing_only, one_core, dump_graph, no_fuse, quiet, upto, batch;
	int tune, untuned, pipeline, n_starts, calibrate;
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

static int parse(int argc, char **argv, struct mopts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		int miss = 0;
#define VAL(s, l) (v = cli_opt_value(argc, argv, &i, s, l, &miss))
		if (VAL('c', "--config")) o->config = v;
		else if (VAL('s', "--set")) {
			if (o->n_sets == MAX_ARGS)
				return usage_err("too many -s", NULL);
			o->sets[o->n_sets++] = v;
		} else if (VAL(0, "--dtype")) {
			if (!strcmp(v, "int8")) o->dtype = DT_INT8;
			else if (!strcmp(v, "bf16")) o->dtype = DT_BF16;
			else return usage_err("--dtype is int8 or bf16, not", v);
		} else if (VAL(0, "--split")) {
			if (!strcmp(v, "rows")) o->split = MAP_SPLIT_ROWS;
			else if (!strcmp(v, "channels")) o->split = MAP_SPLIT_CHANNELS;
			else return usage_err("--split is rows or channels, not", v);
		} else if (VAL(0, "--input")) {
			if (o->n_inputs == MAX_ARGS)
				return usage_err("too many --input", NULL);
			o->inputs[o->n_inputs++] = v;
		} else if (VAL(0, "--output")) {
			if (o->n_outputs == MAX_ARGS)
				return usage_err("too many --output", NULL);
			o->outputs[o->n_outputs++] = v;
		} else if (VAL(0, "--counters")) {
			if (o->n_counters == 8)
				return usage_err("too many --counters", NULL);
			if (ctrout_fmt_of(v) < 0)
				return usage_err("--counters needs .json, .csv "
						 "or .txt:", v);
			o->counters[o->n_counters++] = v;
		} else if (VAL(0, "--output-dir")) o->output_dir = v;
		else if (VAL(0, "--layers")) o->layers = v;
		else if (VAL(0, "--trace")) o->trace = v;
		else if (VAL(0, "--trace-interval")) {
			uint64_t n;
			if (cli_parse_u64("model", "--trace-interval", v, 0,
					  UINT64_MAX, &n))
				return -1;
			o->trace_interval = n;
		}
		else if (VAL(0, "--emit-asm")) o->emit_asm = v;
		else if (VAL(0, "--dump-layers")) o->dump_layers = v;
		else if (VAL(0, "--batch")) {
			uint64_t n;
			if (cli_parse_u64("model", "--batch", v, 1, 65536, &n))
				return -1;
			o->batch = (int)n;
		}
		else if (VAL(0, "--pipeline")) {
			uint64_t n;
			if (cli_parse_u64("model", "--pipeline", v, 1, 4096, &n))
				return -1;
			o->pipeline = (int)n;
		} else if (VAL(0, "--stages")) {
			char *end;
			for (const char *q = v; *q; q = *end ? end + 1 : end) {
				long x = strtol(q, &end, 10);
				if (end == q || (*end && *end != ',') || x < 1 ||
				    x > 1000000 || o->n_starts == MAX_ARGS)
					return usage_err("--stages takes layer "
							 "indices, as 5,17,40:", v);
				o->starts[o->n_starts++] = (int)x;
			}
		}
		else if (VAL(0, "--upto")) {
			uint64_t n;
			if (cli_parse_u64("model", "--upto", v, 1, 1000000, &n))
				return -1;
			o->upto = (int)n;
		}
		else if (VAL(0, "--kernels")) o->kernels = v;
		else if (VAL(0, "--max-cycles")) {
			uint64_t n;
			if (cli_parse_u64("model", "--max-cycles", v, 1,
					  UINT64_MAX, &n))
				return -1;
			o->max_cycles = n;
		} else if (miss) {
			return usage_err("missing value after", a);
		} else if (!strcmp(a, "--timing-only")) o->timing_only = 1;
		else if (!strcmp(a, "--one-core")) o->one_core = 1;
		else if (!strcmp(a, "--dump-graph")) o->dump_graph = 1;
		else if (!strcmp(a, "--no-fuse")) o->no_fuse = 1;
		else if (!strcmp(a, "--tune")) o->tune = 1;
		else if (!strcmp(a, "--untuned")) o->untuned = 1;
		else if (!strcmp(a, "--calibrate")) o->calibrate = 1;
		else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) o->quiet = 1;
		else if (a[0] == '-' && a[1]) return usage_err("unknown option", a);
		else if (o->model) return usage_err("one model only; extra", a);
		else o->model = a;
#undef VAL
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
	int rc, arch_ok = 0;

	if (cli_want_help(argc, argv)) {
		model_usage(stdout);
		return NPU_EXIT_OK;
	}
	memset(&o, 0, sizeof o);
	memset(&res, 0, sizeof res);
	o.dtype = DT_N;
	o.max_cycles = CYCLE_MAX;
	o.trace_interval = 1000;
	if (parse(argc, argv, &o))
		return NPU_EXIT_USAGE;
	diag_init(&d, stderr);
	struct compile_opts co = {
		.dtype = o.dtype, .split = o.split, .batch = o.batch,
		.pipeline = o.pipeline, .starts = o.starts,
		.n_starts = o.n_starts, .no_fuse = o.no_fuse,
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
