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

#include "../compiler/graph.h"
#include "../compiler/map.h"
#include "../compiler/model.h"
#include "../compiler/onnx.h"
#include "../compiler/topo.h"
#include "../dse/tune.h"
#include "../isa/isa.h"
#include "../report/ctrout.h"
#include "../trace/trace.h"
#include "../util/fsout.h"
#include "../util/npy.h"
#include "../util/strutil.h"
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

/* --batch N: the first dimension of every graph input (1 in the model)
 * becomes N; shapes inside follow by inference (a Reshape to a constant
 * shape with a batch of 1 in it then fails, naming the node). */
static int set_batch(struct graph *g, int n, struct diag *d)
{
	for (int i = 0; i < g->n_inputs; i++) {
		struct g_tensor *t = &g->tensors[g->inputs[i]];
		if (t->rank < 1 || t->dim[0] != 1)
			return diag_error(d, diag_at_file(g->source, 0, 0),
					  NPU_EUSAGE, "--batch %d: input '%s' "
					  "has no batch dimension of 1", n,
					  t->name);
		t->dim[0] = n;
	}
	/* shapes the file recorded for the tensors inside had batch 1 */
	for (int t = 0; t < g->n_tensors; t++)
		if (!(g->tensors[t].flags & (G_T_INPUT | G_T_CONST | G_T_SYNTH)))
			g->tensors[t].rank = -1;
	return 0;
}

/* The kernel library: --kernels, $NPUSIM_KERNELS, or next to the binary
 * (the source tree's asm/kernels, or PREFIX/share/npusim/kernels). */
static const char *kernel_dir(const struct mopts *o, char *buf, size_t n)
{
	struct stat st;
	char self[PATH_MAX];
	const char *env = getenv("NPUSIM_KERNELS");
	if (o->kernels)
		return o->kernels;
	if (env && *env)
		return env;
	ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
	if (k > 0) {
		self[k] = 0;
		char *slash = strrchr(self, '/');
		if (slash)
			*slash = 0;
		static const char *const rel[] = { "../asm/kernels",
						   "../../asm/kernels",
						   "../share/npusim/kernels" };
		for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
			if ((size_t)snprintf(buf, n, "%s/%s/conv2d.s", self,
					     rel[i]) >= n)
				continue;
			if (!stat(buf, &st)) {
				char real[PATH_MAX];
				buf[strlen(buf) - strlen("/conv2d.s")] = 0;
				/* messages name kernels by a clean path */
				if (realpath(buf, real) && strlen(real) < n)
					strcpy(buf, real);
				return buf;
			}
		}
	}
	return "asm/kernels";
}

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcasecmp(s + a - b, suf);
}

/* "NAME=FILE" of graph tensor list v (inputs or outputs); -1 if absent. */
static int find_io(const struct graph *g, const int *v, int n, const char *arg,
		   const char **file)
{
	const char *eq = strchr(arg, '=');
	if (!eq)
		return -2;
	*file = eq + 1;
	for (int i = 0; i < n; i++)
		if (strlen(g->tensors[v[i]].name) == (size_t)(eq - arg) &&
		    !strncmp(g->tensors[v[i]].name, arg, (size_t)(eq - arg)))
			return i;
	return -1;
}

/* Inputs: the files given, else uniform in [-1, 1) from a fixed seed. */
static int load_inputs(const struct graph *g, const struct mopts *o, int nb,
		       float **in, struct diag *d)
{
	for (int i = 0; i < g->n_inputs; i++) {
		const struct g_tensor *t = &g->tensors[g->inputs[i]];
		int64_t n = graph_elems(t) * nb;
		in[i] = malloc(((size_t)n + 1) * sizeof(float));
		if (!in[i])
			return diag_error(d, diag_nowhere(), NPU_ENOMEM,
					  "out of memory");
		uint64_t x = 0x2545f4914f6cdd1dull + (uint64_t)i;
		for (int64_t k = 0; k < n; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			in[i][k] = (float)((double)(x >> 11) /
					   4503599627370496.0 - 1.0);
		}
	}
	for (int j = 0; j < o->n_inputs; j++) {
		const char *file;
		int i = find_io(g, g->inputs, g->n_inputs, o->inputs[j], &file);
		if (i < 0)
			return diag_error(d, diag_nowhere(), NPU_EUSAGE,
					  "--input %s: %s", o->inputs[j],
					  i == -2 ? "expected NAME=FILE.npy" :
					  "the model has no input of that name");
		const struct g_tensor *t = &g->tensors[g->inputs[i]];
		struct npy a;
		int rc = npy_load_as(file, DT_FP32, &a, d);
		if (rc)
			return rc;
		/* nb images (a pipeline's): the batch dimension nb x 1 */
		int same = (int64_t)npy_count(&a) == graph_elems(t) * nb &&
			   a.ndim == t->rank;
		for (int k = 0; same && k < a.ndim; k++)
			same = (int64_t)a.shape[k] == t->dim[k] * (k ? 1 : nb);
		if (!same) {
			npy_free(&a);
			return diag_error(d, diag_at_file(file, 0, 0),
					  NPU_ETENSOR, "the shape does not "
					  "match input '%s' of the model",
					  t->name);
		}
		memcpy(in[i], a.data, npy_count(&a) * sizeof(float));
		npy_free(&a);
	}
	return 0;
}

static int save_output(const struct graph *g, int i, const float *v, int nb,
		       const char *path, struct diag *d)
{
	const struct g_tensor *t = &g->tensors[g->outputs[i]];
	struct npy a;
	uint64_t shape[NPY_MAX_DIMS];
	for (int k = 0; k < t->rank; k++)
		shape[k] = (uint64_t)t->dim[k] * (uint64_t)(k ? 1 : nb);
	int rc = npy_alloc(&a, DT_FP32, t->rank, shape);
	if (rc)
		return diag_error(d, diag_nowhere(), rc, "cannot make %s",
				  path);
	memcpy(a.data, v, (size_t)graph_elems(t) * (size_t)nb * sizeof(float));
	rc = npy_write(path, &a, d);
	npy_free(&a);
	return rc;
}

static int write_results(const struct graph *g, const struct mopts *o,
			 const struct model_result *res, struct diag *d)
{
	/* a pipeline's outputs: its images one after another */
	int nb = res->n_stages ? res->batch : 1;
	int rc = 0;
	for (int j = 0; j < o->n_outputs && !rc; j++) {
		const char *file;
		int i = find_io(g, g->outputs, g->n_outputs, o->outputs[j],
				&file);
		if (i < 0)
			return diag_error(d, diag_nowhere(), NPU_EUSAGE,
					  "--output %s: %s", o->outputs[j],
					  i == -2 ? "expected NAME=FILE.npy" :
					  "the model has no output of that name");
		rc = save_output(g, i, res->outputs[i], nb, file, d);
	}
	for (int i = 0; o->output_dir && i < g->n_outputs && !rc; i++) {
		char path[PATH_MAX];
		char name[256];
		snprintf(name, sizeof name, "%s", g->tensors[g->outputs[i]].name);
		for (char *c = name; *c; c++)
			if (*c == '/' || *c == ' ')
				*c = '_';
		snprintf(path, sizeof path, "%s/%s.npy", o->output_dir, name);
		rc = save_output(g, i, res->outputs[i], nb, path, d);
	}
	return rc;
}

/* Every output of the layers that ran, as DIR/<tensor>.npy (fp32, the
 * model's shapes; '/' in names becomes '_'). */
static int dump_layers(const char *dir, struct run *r, const struct graph *g,
		       const struct map_plan *p, int n_layers, struct diag *d)
{
	uint64_t size;
	uint8_t *dram = chip_mem(run_chip(r), ISA_MEM_DRAM, 0, &size);
	int rc = 0;
	for (int l = 0; l < n_layers && !rc; l++) {
		const struct g_node *n = &g->nodes[p->layers[l].node];
		for (int o = 0; o < n->n_out && !rc; o++) {
			int t = n->out[o];
			if (t < 0)
				continue;
			const struct g_tensor *x = &g->tensors[t];
			struct npy a;
			uint64_t shape[NPY_MAX_DIMS];
			char path[PATH_MAX], name[256];
			for (int k = 0; k < x->rank; k++)
				shape[k] = (uint64_t)x->dim[k];
			if ((rc = npy_alloc(&a, DT_FP32, x->rank, shape)))
				return diag_error(d, diag_nowhere(), rc,
						  "out of memory");
			rc = map_read_tensor(g, p, t, dram, size,
					     (float *)(void *)a.data, d);
			snprintf(name, sizeof name, "%s", x->name);
			for (char *c = name; *c; c++)
				if (*c == '/' || *c == ' ')
					*c = '_';
			snprintf(path, sizeof path, "%s/%s.npy", dir, name);
			if (!rc)
				rc = npy_write(path, &a, d);
			npy_free(&a);
		}
	}
	return rc;
}

/* A step's fixed parameters as "NAME=VALUE" (its .equ lines), without
 * the DRAM bases: the tuner's cache key for the layer's shape. */
static int step_defines(const char *src, char **buf, const char **v, int max)
{
	int n = 0;
	*buf = strdup(src);
	if (!*buf)
		return -1;
	char *save = NULL;
	for (char *l = strtok_r(*buf, "\n", &save); l && n < max;
	     l = strtok_r(NULL, "\n", &save)) {
		char *name, *comma;
		if (strncmp(l, ".equ ", 5))
			continue;
		name = l + 5;
		if (!(comma = strstr(name, ", ")))
			continue;
		*comma = 0;
		if (strlen(name) > 5 && !strcmp(name + strlen(name) - 5, "_DRAM"))
			continue;
		memmove(comma + 1, comma + 2, strlen(comma + 2) + 1);
		*comma = '=';
		v[n++] = name;
	}
	return n;
}

/*
 * The tuner's best schedule for each layer step whose kernel declares
 * .tunable parameters: with --tune, search it first (npusim tune's
 * model-guided strategy, results cached); then, unless --untuned, put
 * the cached best's values before the kernel's .include.  The cache is
 * keyed by the config, the kernel and the step's parameters without its
 * DRAM bases, so `npusim tune KERNEL -D ...` with the parameters of
 * --emit-asm's source (in that order) tunes a layer for later runs too.
 */
static int apply_tuned(struct map_plan *p, const struct mopts *o,
		       const struct arch *a, const char *kdir, struct diag *d)
{
	char self[PATH_MAX];
	ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
	self[sl > 0 ? sl : 0] = 0;
	for (int l = 0; l < p->n_layers; l++) {
		struct map_layer *L = &p->layers[l];
		for (int s = 0; s < L->n_steps; s++) {
			struct map_step *st = &L->steps[s];
			char kpath[PATH_MAX], best[1024], *buf;
			const char *defs[64];
			snprintf(kpath, sizeof kpath, "%s/%s", kdir, st->kernel);
			char *ktext = str_read_file(kpath, NULL);
			int has = ktext && strstr(ktext, ".tunable");
			free(ktext);
			if (!has)
				continue;
			int nd = step_defines(st->src, &buf, defs, 64);
			if (nd < 0)
				return diag_error(d, diag_nowhere(), NPU_ENOMEM,
						  "out of memory");
			int rc = 0;
			if (o->tune && !tune_cached_best(a, kpath, defs, nd, best,
							 sizeof best)) {
				struct tune_opts to;
				memset(&to, 0, sizeof to);
				to.config = o->config;
				to.sets = o->sets;
				to.n_sets = o->n_sets;
				to.defines = defs;
				to.n_defines = nd;
				to.kernel = kpath;
				to.strategy = TUNE_MODEL;
				to.seed = 1;
				to.jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
				to.self = self;
				to.quiet = o->quiet ? 2 : 1;
				if (!o->quiet)
					fprintf(stderr, "npusim model: tuning layer "
						"'%s' (%s)\n", L->name, st->kernel);
				rc = tune_run(&to, d);
			}
			if (!rc && !o->untuned &&
			    tune_cached_best(a, kpath, defs, nd, best, sizeof best)) {
				/* the best's values before the .include */
				char *inc = strstr(st->src, ".include");
				size_t pre = inc ? (size_t)(inc - st->src) : strlen(st->src);
				size_t add = strlen(best) * 2 + 16;
				char *ns = malloc(strlen(st->src) + add);
				if (!ns) {
					free(buf);
					return diag_error(d, diag_nowhere(),
							  NPU_ENOMEM, "out of memory");
				}
				size_t k = pre;
				memcpy(ns, st->src, pre);
				char *save = NULL;
				int first = 1;
				for (char *t = strtok_r(best, "\n", &save); t;
				     t = strtok_r(NULL, "\n", &save)) {
					char *eq = strchr(t, '=');
					if (!eq)
						continue;
					*eq = 0;
					k += (size_t)sprintf(ns + k, ".equ %s, %s\n",
							     t, eq + 1);
					size_t tl = strlen(L->tiling);
					snprintf(L->tiling + tl, sizeof L->tiling - tl,
						 "%s%s=%s", first ? " tuned " : " ",
						 t, eq + 1);
					first = 0;
				}
				strcpy(ns + k, st->src + pre);
				free(st->src);
				st->src = ns;
			}
			free(buf);
			if (rc)
				return rc;
		}
	}
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

static int write_layers(const char *path, const struct graph *g,
			const struct map_plan *p, const struct model_result *res,
			const struct arch *a, struct diag *d)
{
	struct fsout f;
	int rc = fsout_open(&f, path, d);
	if (rc)
		return rc;
	if (model_write_csv(f.fp, g, p, res, a)) {
		fsout_abort(&f);
		return diag_error(d, diag_at_file(path, 0, 0), NPU_EIO,
				  "cannot write");
	}
	return fsout_commit(&f, d);
}

/* Every plan of the run: one, or a pipeline's one per image (each its
 * own activation arena), with the tuner's schedules.  *n counts the plans
 * built (to free), also on failure. */
static int build_plans(const struct graph *g, const struct arch *a,
		       const struct mopts *o, struct map_opts *mo, int images,
		       struct map_plan *plans, int *n, const char *kdir,
		       struct diag *d)
{
	int rc = 0;
	if (o->pipeline)
		mo->images = images;
	for (*n = 0; *n < (o->pipeline ? images : 1) && !rc; ++*n) {
		mo->image = *n;
		if ((rc = map_plan_build(g, a, mo, &plans[*n], d)))
			return rc;
		if (o->tune || !o->untuned)
			rc = apply_tuned(&plans[*n], o, a, kdir, d);
	}
	return rc;
}

/* The calibration run (model_calibrate); 1 when amax holds its ranges, 0
 * when it could not run (a note says why: the run keeps Q3.4). */
static int calibrate(const struct arch *a, const struct graph *g,
		     float *const *in, const char *kdir, float *amax,
		     struct diag *d)
{
	char *log = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&log, &n);
	struct diag cd;
	int rc = NPU_ENOMEM;
	if (fp) {
		diag_init(&cd, fp);
		rc = model_calibrate(a, g, in, kdir, amax, &cd);
		fclose(fp);
	}
	if (rc) {
		char *nl = log ? strchr(log, '\n') : NULL;
		if (nl)
			*nl = 0;
		diag_note(d, diag_at_file(g->source, 0, 0), "--calibrate: the "
			  "bf16 calibration run failed, every activation stays "
			  "Q3.4: %s", log && *log ? log : "out of memory");
	}
	free(log);
	return !rc;
}

int cmd_model(int argc, char **argv)
{
	struct mopts o;
	struct diag d;
	struct arch a;
	struct graph g;
	struct map_plan *plans = NULL;
	struct model_result res;
	struct run *r = NULL;
	struct trc *trace = NULL;
	float **in = NULL;
	char kbuf[PATH_MAX];
	int rc, arch_ok = 0, n_plans = 0;
	float *amax = NULL;

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
	graph_init(&g, o.model);
	rc = ends_with(o.model, ".csv") ? topo_import(&g, o.model, &d)
					: onnx_import(&g, o.model, &d);
	/* a pipeline keeps the graph's batch of 1: each image has a plan */
	int images = o.pipeline && o.batch ? o.batch : 1;
	if (!rc && o.batch && !o.pipeline)
		rc = set_batch(&g, o.batch, &d);
	if (!rc)
		rc = graph_infer(&g, &d);
	if (!rc) {
		struct graph_opts go = { o.no_fuse };
		rc = graph_simplify(&g, &go, &d);
	}
	if (rc)
		goto out;
	if (o.dump_graph) {
		graph_print(&g, stdout);
		goto out;
	}
	if ((rc = arch_load(&a, o.config, o.sets, o.n_sets, &d)))
		goto out;
	arch_ok = 1;
	/* inputs first: an int8 run's calibration runs on them */
	if (!o.timing_only) {
		in = calloc((size_t)g.n_inputs + 1, sizeof *in);
		if (!in) {
			rc = diag_error(&d, diag_nowhere(), NPU_ENOMEM,
					"out of memory");
			goto out;
		}
		if ((rc = load_inputs(&g, &o, images, in, &d)))
			goto out;
	}
	struct map_opts mo = { .dtype = o.dtype, .split = o.split,
			       .keep_all = o.dump_layers != NULL };
	const char *kdir = kernel_dir(&o, kbuf, sizeof kbuf);
	if (!(plans = calloc((size_t)images, sizeof *plans))) {
		rc = diag_error(&d, diag_nowhere(), NPU_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = build_plans(&g, &a, &o, &mo, images, plans, &n_plans, kdir,
			      &d)))
		goto out;
	/* --calibrate: int8 formats from a bf16 run on the same input */
	if (plans[0].dtype == DT_INT8 && o.calibrate) {
		if (!(amax = calloc((size_t)g.n_tensors + 1, sizeof *amax))) {
			rc = diag_error(&d, diag_nowhere(), NPU_ENOMEM,
					"out of memory");
			goto out;
		}
		if (calibrate(&a, &g, in, kdir, amax, &d)) {
			mo.amax = amax;
			for (; n_plans > 0; n_plans--)
				map_plan_free(&plans[n_plans - 1]);
			if ((rc = build_plans(&g, &a, &o, &mo, images, plans,
					      &n_plans, kdir, &d)))
				goto out;
		}
	}
	const struct map_plan *p0 = &plans[0];
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
	struct model_opts mro = { kdir,
				  o.one_core, !o.timing_only, in, o.emit_asm,
				  o.upto };
	fsout_catch_signals(FSOUT_SIG_FLAG);
	if (o.pipeline) {
		struct model_pipe_opts po = { o.pipeline,
					      o.n_starts ? o.starts : NULL };
		rc = model_run_pipeline(r, &a, &g, plans, images, &mro, &po,
					&res, &d);
	} else {
		rc = model_run(r, &a, &g, p0, &mro, &res, &d);
	}
	fsout_catch_signals(FSOUT_SIG_DIE);
	if (rc)
		goto out;
	if (!o.timing_only && !o.upto && (rc = write_results(&g, &o, &res, &d)))
		goto out;
	if (o.dump_layers && (rc = dump_layers(o.dump_layers, r, &g, p0,
					       res.n_layers, &d)))
		goto out;
	if (o.layers && (rc = write_layers(o.layers, &g, p0, &res, &a, &d)))
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
		model_print(stdout, &g, p0, &res, &a);
out:
	if (in)
		for (int i = 0; i < g.n_inputs; i++)
			free(in[i]);
	free(in);
	model_result_free(&res);
	run_free(r);
	if (trace)
		trc_abort(trace);
	free(amax);
	for (int i = 0; i < n_plans; i++)
		map_plan_free(&plans[i]);
	free(plans);
	if (arch_ok)
		arch_free(&a);
	graph_free(&g);
	return npu_exit_status(rc);
}
