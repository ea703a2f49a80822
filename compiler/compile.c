/*
 * compile.c - a model from its file to a run and its results
 * (compile.h).  The order of the steps is compile.h's; each step's rules
 * are docs/models.md's.
 */
/* realpath */
#define _XOPEN_SOURCE 700
#include "compile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../isa/isa.h"
#include "../util/fsout.h"
#include "../util/npy.h"
#include "../util/strutil.h"
#include "onnx.h"
#include "topo.h"

/* Most tunable parameters of one step that the schedule hook sees. */
#define COMPILE_MAX_DEFINES 64

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcasecmp(s + a - b, suf);
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

int compile_import(struct compiled *c, const char *path,
		   const struct compile_opts *o, struct diag *d)
{
	int rc;

	memset(c, 0, sizeof *c);
	c->o = *o;
	graph_init(&c->g, path);
	rc = ends_with(path, ".csv") ? topo_import(&c->g, path, d)
				     : onnx_import(&c->g, path, d);
	/* a pipeline keeps the graph's batch of 1: each image has a plan */
	c->images = o->pipeline && o->batch ? o->batch : 1;
	if (!rc && o->batch && !o->pipeline)
		rc = set_batch(&c->g, o->batch, d);
	if (!rc)
		rc = graph_infer(&c->g, d);
	if (!rc) {
		struct graph_opts go = { o->no_fuse };
		rc = graph_simplify(&c->g, &go, d);
	}
	return rc;
}

const char *compile_kernel_dir(const char *given, char *buf, size_t n)
{
	struct stat st;
	char self[PATH_MAX];
	const char *env = getenv("NPUSIM_KERNELS");
	if (given)
		return given;
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

/* "NAME=FILE" of graph tensor list v (inputs or outputs): its index, -1
 * if the graph has no such tensor, -2 without '='. */
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

void compile_inputs_free(const struct compiled *c, float **in)
{
	if (in)
		for (int i = 0; i < c->g.n_inputs; i++)
			free(in[i]);
	free(in);
}

int compile_inputs(const struct compiled *c, const char *const *specs,
		   int n_specs, float ***inp, struct diag *d)
{
	const struct graph *g = &c->g;
	int nb = c->images;
	float **in = calloc((size_t)g->n_inputs + 1, sizeof *in);

	*inp = in;
	if (!in)
		return diag_error(d, diag_nowhere(), NPU_ENOMEM, "out of memory");
	for (int i = 0; i < g->n_inputs; i++) {
		const struct g_tensor *t = &g->tensors[g->inputs[i]];
		int64_t n = graph_elems(t) * nb;
		in[i] = malloc(((size_t)n + 1) * sizeof(float));
		if (!in[i])
			return diag_error(d, diag_nowhere(), NPU_ENOMEM,
					  "out of memory");
		/* xorshift64 from a fixed seed per input */
		uint64_t x = 0x2545f4914f6cdd1dull + (uint64_t)i;
		for (int64_t k = 0; k < n; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			in[i][k] = (float)((double)(x >> 11) /
					   4503599627370496.0 - 1.0);
		}
	}
	for (int j = 0; j < n_specs; j++) {
		const char *file;
		int i = find_io(g, g->inputs, g->n_inputs, specs[j], &file);
		if (i < 0)
			return diag_error(d, diag_nowhere(), NPU_EUSAGE,
					  "--input %s: %s", specs[j],
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

/* A step's fixed parameters as "NAME=VALUE" (its .equ lines), without
 * the DRAM bases: the tuner's cache key for the layer's shape.  The
 * strings point into *buf (malloc'd); the count, or -1. */
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

/* Step st of layer L with schedule 'best' ("NAME=VALUE\n" lines): its
 * values as .equ lines before the kernel's .include, and named in the
 * layer's tiling ("tuned NAME=VALUE ..."). */
static int put_schedule(struct map_layer *L, struct map_step *st, char *best,
			struct diag *d)
{
	char *inc = strstr(st->src, ".include");
	size_t pre = inc ? (size_t)(inc - st->src) : strlen(st->src);
	size_t add = strlen(best) * 2 + 16;
	char *ns = malloc(strlen(st->src) + add);
	if (!ns)
		return diag_error(d, diag_nowhere(), NPU_ENOMEM, "out of memory");
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
		k += (size_t)sprintf(ns + k, ".equ %s, %s\n", t, eq + 1);
		size_t tl = strlen(L->tiling);
		snprintf(L->tiling + tl, sizeof L->tiling - tl, "%s%s=%s",
			 first ? " tuned " : " ", t, eq + 1);
		first = 0;
	}
	strcpy(ns + k, st->src + pre);
	free(st->src);
	st->src = ns;
	return 0;
}

/*
 * The schedule of every layer step whose kernel declares .tunable
 * parameters, from the caller's hook (compile_schedule_fn: a tuner's
 * search or its cache).  The hook is keyed by the kernel and the step's
 * parameters without its DRAM bases, so `npusim tune KERNEL -D ...` with
 * the parameters of --emit-asm's source (in that order) tunes a layer for
 * later runs too.
 */
static int apply_schedules(struct compiled *c, struct map_plan *p,
			   struct diag *d)
{
	for (int l = 0; l < p->n_layers; l++) {
		struct map_layer *L = &p->layers[l];
		for (int s = 0; s < L->n_steps; s++) {
			struct map_step *st = &L->steps[s];
			/* the library folder and a kernel file name */
			char kpath[PATH_MAX + NAME_MAX + 2], best[1024], *buf;
			const char *defs[COMPILE_MAX_DEFINES];
			snprintf(kpath, sizeof kpath, "%s/%s", c->kdir, st->kernel);
			char *ktext = str_read_file(kpath, NULL);
			int has = ktext && strstr(ktext, ".tunable");
			free(ktext);
			if (!has)
				continue;
			int nd = step_defines(st->src, &buf, defs,
					      COMPILE_MAX_DEFINES);
			if (nd < 0)
				return diag_error(d, diag_nowhere(), NPU_ENOMEM,
						  "out of memory");
			int rc = c->o.schedule(c->o.schedule_ctx, kpath, defs,
					       nd, L->name, best, sizeof best,
					       d);
			if (rc == 1)
				rc = put_schedule(L, st, best, d);
			free(buf);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

/* Every plan of the run: one, or a pipeline's one per image (each its
 * own activation arena), with their schedules; amax: --calibrate's
 * ranges or NULL.  c->n_plans counts the plans built (to free), also on
 * failure. */
static int build_plans(struct compiled *c, const struct arch *a,
		       const float *amax, struct diag *d)
{
	struct map_opts mo = { .dtype = c->o.dtype, .split = c->o.split,
			       .keep_all = c->o.keep_all, .amax = amax,
			       .per_image = c->o.per_image };
	int rc = 0;

	if (c->o.pipeline)
		mo.images = c->images;
	for (; c->n_plans > 0; c->n_plans--)
		map_plan_free(&c->plans[c->n_plans - 1]);
	for (; c->n_plans < (c->o.pipeline ? c->images : 1) && !rc;
	     c->n_plans++) {
		mo.image = c->n_plans;
		if ((rc = map_plan_build(&c->g, a, &mo, &c->plans[c->n_plans], d)))
			return rc;
		if (c->o.schedule)
			rc = apply_schedules(c, &c->plans[c->n_plans], d);
	}
	return rc;
}

/* The calibration run (model_calibrate); 1 when c->amax holds its
 * ranges, 0 when it could not run (a note says why: the run keeps
 * Q3.4). */
static int calibrate(struct compiled *c, const struct arch *a,
		     float *const *in, struct diag *d)
{
	char *log = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&log, &n);
	struct diag cd;
	int rc = NPU_ENOMEM;
	if (fp) {
		diag_init(&cd, fp);
		rc = model_calibrate(a, &c->g, in, c->kdir, c->amax, &cd);
		fclose(fp);
	}
	if (rc) {
		char *nl = log ? strchr(log, '\n') : NULL;
		if (nl)
			*nl = 0;
		diag_note(d, diag_at_file(c->g.source, 0, 0), "--calibrate: the "
			  "bf16 calibration run failed, every activation stays "
			  "Q3.4: %s", log && *log ? log : "out of memory");
	}
	free(log);
	return !rc;
}

int compile_plans(struct compiled *c, const struct arch *a, float *const *in,
		  struct diag *d)
{
	const char *kd = compile_kernel_dir(c->o.kernels, c->kdir,
					    sizeof c->kdir);
	int rc;

	if (kd != c->kdir)
		snprintf(c->kdir, sizeof c->kdir, "%s", kd);
	/* again after a failure: the plans built so far go first */
	free(c->amax);
	c->amax = NULL;
	if (!c->plans &&
	    !(c->plans = calloc((size_t)c->images, sizeof *c->plans)))
		return diag_error(d, diag_nowhere(), NPU_ENOMEM, "out of memory");
	if ((rc = build_plans(c, a, NULL, d)))
		return rc;
	/* --calibrate: int8 formats from a bf16 run on the same input */
	if (c->plans[0].dtype != DT_INT8 || !c->o.calibrate)
		return 0;
	if (!(c->amax = calloc((size_t)c->g.n_tensors + 1, sizeof *c->amax)))
		return diag_error(d, diag_nowhere(), NPU_ENOMEM, "out of memory");
	if (calibrate(c, a, in, d))
		rc = build_plans(c, a, c->amax, d);
	return rc;
}

int compile_run(struct compiled *c, struct run *r, const struct arch *a,
		const struct model_opts *mo, struct model_result *res,
		struct diag *d)
{
	if (c->o.pipeline) {
		struct model_pipe_opts po = { c->o.pipeline,
					      c->o.n_starts ? c->o.starts : NULL };
		return model_run_pipeline(r, a, &c->g, c->plans, c->images, mo,
					  &po, res, d);
	}
	return model_run(r, a, &c->g, &c->plans[0], mo, res, d);
}

/* A file name from a tensor name: '/' and ' ' become '_'. */
static void file_name(char *buf, size_t n, const char *tensor)
{
	snprintf(buf, n, "%s", tensor);
	for (char *p = buf; *p; p++)
		if (*p == '/' || *p == ' ')
			*p = '_';
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

int compile_save_outputs(const struct compiled *c,
			 const struct model_result *res,
			 const char *const *specs, int n_specs,
			 const char *dir, struct diag *d)
{
	const struct graph *g = &c->g;
	/* a pipeline's outputs: its images one after another */
	int nb = res->n_stages ? res->batch : 1;
	int rc = 0;
	for (int j = 0; j < n_specs && !rc; j++) {
		const char *file;
		int i = find_io(g, g->outputs, g->n_outputs, specs[j], &file);
		if (i < 0)
			return diag_error(d, diag_nowhere(), NPU_EUSAGE,
					  "--output %s: %s", specs[j],
					  i == -2 ? "expected NAME=FILE.npy" :
					  "the model has no output of that name");
		rc = save_output(g, i, res->outputs[i], nb, file, d);
	}
	for (int i = 0; dir && i < g->n_outputs && !rc; i++) {
		char path[PATH_MAX], name[256];
		file_name(name, sizeof name, g->tensors[g->outputs[i]].name);
		snprintf(path, sizeof path, "%s/%s.npy", dir, name);
		rc = save_output(g, i, res->outputs[i], nb, path, d);
	}
	return rc;
}

int compile_dump_layers(const struct compiled *c, struct run *r,
			const char *dir, int n_layers, struct diag *d)
{
	const struct graph *g = &c->g;
	const struct map_plan *p = &c->plans[0];
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
			file_name(name, sizeof name, x->name);
			snprintf(path, sizeof path, "%s/%s.npy", dir, name);
			if (!rc)
				rc = npy_write(path, &a, d);
			npy_free(&a);
		}
	}
	return rc;
}

int compile_write_layers(const struct compiled *c, const char *path,
			 const struct model_result *res, const struct arch *a,
			 struct diag *d)
{
	struct fsout f;
	int rc = fsout_open(&f, path, d);
	if (rc)
		return rc;
	if (model_write_csv(f.fp, &c->g, &c->plans[0], res, a)) {
		fsout_abort(&f);
		return diag_error(d, diag_at_file(path, 0, 0), NPU_EIO,
				  "cannot write");
	}
	return fsout_commit(&f, d);
}

void compile_free(struct compiled *c)
{
	for (int i = 0; i < c->n_plans; i++)
		map_plan_free(&c->plans[i]);
	free(c->plans);
	free(c->amax);
	graph_free(&c->g);
	memset(c, 0, sizeof *c);
}
