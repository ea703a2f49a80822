/*
 * model.c - the C API's models (include/npusim.h, "models"): the
 * compiler's steps (compiler/compile.h) behind a handle, as `npusim model`
 * takes them, with the values in memory instead of .npy files.
 *
 * A model owns an npusim_run: its message capture for every call, and
 * after a go the chip, counters and regions of that go, which the run
 * calls read (npusim_model_run).  Plans are built on the first go (an
 * int8 calibration runs on the inputs then written) and kept; each go
 * runs them on a new chip, as each `npusim model` does.
 */
#include <stdlib.h>
#include <string.h>

#include "api_int.h"
#include "../compiler/compile.h"
#include "../dse/tune.h"

struct npusim_model {
	npusim_run run;             /* messages; the last go's chip, counters
				       and regions */
	struct npusim_model_opts o; /* as loaded */
	struct compiled c;          /* the imported graph and its plans */
	int planned;                /* c's plans are built */
	float **in;                 /* graph inputs, fp32 (NULL: timing-only) */
	struct model_result res;    /* of the last successful go */
	int have_res;               /* res holds one */
	struct tune_layer_ctx tl;   /* the tuner's cache, for o.tuned */
};

/* The graph input (output 0) or output (1) named name, or -1. */
static int io_find(const npusim_model *m, int output, const char *name)
{
	const struct graph *g = &m->c.g;
	const int *v = output ? g->outputs : g->inputs;
	int n = output ? g->n_outputs : g->n_inputs;

	for (int i = 0; name && i < n; i++)
		if (!strcmp(g->tensors[v[i]].name, name))
			return i;
	return -1;
}

static void model_free(npusim_model *m)
{
	api_drop_results(&m->run);
	run_free(m->run.r);
	if (m->have_res)
		model_result_free(&m->res);
	compile_inputs_free(&m->c, m->in);
	compile_free(&m->c);
	if (m->run.fp)
		fclose(m->run.fp);
	free(m->run.mbuf);
	free(m->run.err);
	free(m);
}

int npusim_model_load(const npusim_config *cfg, const char *path,
		      const struct npusim_model_opts *opts, npusim_model **out,
		      char **err)
{
	static const struct npusim_model_opts none = { .dtype = -1 };
	npusim_model *m;
	struct compile_opts co;
	int rc;

	if (err)
		*err = NULL;
	if (!out)
		return NPUSIM_EINVAL;
	*out = NULL;
	if (!cfg || !path)
		return NPUSIM_EINVAL;
	if (!(m = calloc(1, sizeof *m)))
		return NPUSIM_ENOMEM;
	m->o = opts ? *opts : none;
	m->run.cfg = cfg;
	if (api_cap_open(&m->run.d, &m->run.fp, &m->run.mbuf, &m->run.mlen)) {
		free(m);
		return NPUSIM_ENOMEM;
	}
	memset(&co, 0, sizeof co);
	co.dtype = m->o.dtype == NPUSIM_INT8 ? DT_INT8 :
		   m->o.dtype == NPUSIM_BF16 ? DT_BF16 : DT_N;
	co.batch = m->o.batch;
	co.pipeline = m->o.pipeline;
	co.no_fuse = m->o.no_fuse;
	co.calibrate = m->o.calibrate;
	co.kernels = m->o.kernels;
	/* the tuner's cache only: a search runs npusim processes */
	m->tl = (struct tune_layer_ctx){ .a = &cfg->a, .use = 1, .quiet = 1 };
	if (m->o.tuned) {
		co.schedule = tune_layer_schedule;
		co.schedule_ctx = &m->tl;
	}
	rc = compile_import(&m->c, path, &co, &m->run.d);
	if (!rc && m->o.dtype != -1 && co.dtype == DT_N)
		rc = diag_error(&m->run.d, diag_nowhere(), NPU_EUSAGE,
				"a model's dtype is NPUSIM_INT8 or NPUSIM_BF16 (or "
				"-1: the chip's), not %d", m->o.dtype);
	if (!rc && m->o.calibrate && m->o.timing_only)
		rc = diag_error(&m->run.d, diag_nowhere(), NPU_EUSAGE,
				"calibrate runs the model with values to "
				"measure its ranges: not with timing_only");
	if (!rc && !m->o.timing_only)
		rc = compile_inputs(&m->c, NULL, 0, &m->in, &m->run.d);
	if (rc) {
		char *msg = api_cap_close(m->run.fp, &m->run.mbuf);

		m->run.fp = NULL;
		if (err)
			*err = msg;
		else
			free(msg);
		model_free(m);
		return api_pub(rc);
	}
	*out = m;
	return NPUSIM_OK;
}

void npusim_model_free(npusim_model *m)
{
	if (m)
		model_free(m);
}

const char *npusim_model_error(const npusim_model *m)
{
	return m ? npusim_error(&m->run) : "";
}

npusim_run *npusim_model_run(npusim_model *m)
{
	return m ? &m->run : NULL;
}

int npusim_model_io_count(npusim_model *m, int output)
{
	if (!m)
		return 0;
	return output ? m->c.g.n_outputs : m->c.g.n_inputs;
}

int npusim_model_io_get(npusim_model *m, int output, int i, const char **name, int *ndim,
			int64_t shape[8])
{
	const struct g_tensor *t;

	if (!m || i < 0 || i >= npusim_model_io_count(m, output))
		return NPUSIM_EINVAL;
	t = &m->c.g.tensors[output ? m->c.g.outputs[i] : m->c.g.inputs[i]];
	if (name)
		*name = t->name;
	if (ndim)
		*ndim = t->rank;
	for (int k = 0; shape && k < t->rank && k < 8; k++)
		shape[k] = t->dim[k] * (k ? 1 : m->c.images);
	return NPUSIM_OK;
}

/* Elements of graph input or output i, every image of a batch. */
static size_t io_elems(const npusim_model *m, int output, int i)
{
	const struct graph *g = &m->c.g;
	int t = output ? g->outputs[i] : g->inputs[i];

	return (size_t)graph_elems(&g->tensors[t]) * (size_t)m->c.images;
}

int npusim_model_write(npusim_model *m, const char *name, const float *v, size_t n)
{
	int i, rc = 0;

	if (!m)
		return NPUSIM_EINVAL;
	api_call_begin(&m->run);
	if (!v)
		rc = api_misuse(&m->run, "no values");
	else if (!m->in)
		rc = api_misuse(&m->run, "a timing-only model takes no values");
	else if ((i = io_find(m, 0, name)) < 0)
		rc = api_misuse(&m->run, "the model has no input of that name");
	else if (n != io_elems(m, 0, i))
		rc = diag_error(&m->run.d, diag_nowhere(), NPU_EUSAGE,
				"input '%s' holds %zu values, not %zu", name,
				io_elems(m, 0, i), n);
	else
		memcpy(m->in[i], v, n * sizeof *v);
	return api_call_end(&m->run, rc);
}

int npusim_model_go(npusim_model *m, struct npusim_result *res)
{
	const struct arch *a;
	struct run_params rp;
	int rc = 0, rc2 = 0;

	if (!m)
		return NPUSIM_EINVAL;
	a = &m->run.cfg->a;
	api_call_begin(&m->run);
	api_drop_results(&m->run);
	run_free(m->run.r);
	m->run.r = NULL;
	if (m->have_res)
		model_result_free(&m->res);
	m->have_res = 0;
	memset(&m->res, 0, sizeof m->res);
	if (res)
		memset(res, 0, sizeof *res);
	if (!m->planned && (rc = compile_plans(&m->c, a, m->in, &m->run.d)))
		return api_call_end(&m->run, rc);
	m->planned = 1;
	memset(&rp, 0, sizeof rp);
	rp.max_cycles = m->o.max_cycles ? (cycle_t)m->o.max_cycles : CYCLE_MAX;
	rp.timing_only = m->o.timing_only;
	if (!(m->run.r = run_new(a, &rp, &m->run.d)))
		return api_call_end(&m->run, m->run.d.last_err ? m->run.d.last_err
							      : NPU_ENOMEM);
	struct model_opts mo = { m->c.kdir, m->o.one_core, !m->o.timing_only,
				 m->in, NULL, 0 };
	rc = compile_run(&m->c, m->run.r, a, &mo, &m->res, &m->run.d);
	m->have_res = !rc;
	m->res.batch = m->o.batch;
	/* counters and regions stay readable after a failure */
	rc2 = api_collect(&m->run, rc ? chip_now(run_chip(m->run.r))
				      : m->res.cycles);
	if (res && !rc)
		res->cycles = m->res.cycles;
	return api_call_end(&m->run, rc ? rc : rc2);
}

int npusim_model_read(npusim_model *m, const char *name, float *v, size_t n)
{
	int i, rc = 0;

	if (!m)
		return NPUSIM_EINVAL;
	api_call_begin(&m->run);
	if (!v)
		rc = api_misuse(&m->run, "no buffer");
	else if (!m->have_res || !m->res.outputs)
		rc = api_misuse(&m->run, "no outputs: the model has not run "
				"with values");
	else if ((i = io_find(m, 1, name)) < 0)
		rc = api_misuse(&m->run, "the model has no output of that name");
	else if (n != io_elems(m, 1, i))
		rc = diag_error(&m->run.d, diag_nowhere(), NPU_EUSAGE,
				"output '%s' holds %zu values, not %zu", name,
				io_elems(m, 1, i), n);
	else
		memcpy(v, m->res.outputs[i], n * sizeof *v);
	return api_call_end(&m->run, rc);
}

int npusim_model_layer_count(npusim_model *m)
{
	return m && m->have_res ? m->res.n_layers : 0;
}

int npusim_model_layer_get(npusim_model *m, int i, struct npusim_layer *layer)
{
	const struct map_layer *L;
	const struct model_layer_stats *s;

	if (!m || !layer || i < 0 || i >= npusim_model_layer_count(m))
		return NPUSIM_EINVAL;
	L = &m->c.plans[0].layers[i];
	s = &m->res.layers[i];
	layer->name = L->name;
	layer->op = L->op;
	layer->kernels = L->kernels;
	layer->tiling = L->tiling;
	layer->shapes = L->shapes;
	layer->cycles = s->cycles;
	layer->compute_cycles = s->compute_cycles;
	layer->macs = s->macs;
	layer->dram_read = s->dram_read;
	layer->dram_write = s->dram_write;
	layer->mac_util = s->mac_util;
	layer->map_eff = s->map_eff;
	layer->energy_pj = s->energy_pj;
	layer->model_macs = s->model_macs;
	layer->array_macs = s->array_macs;
	layer->compulsory_bytes = s->compulsory_bytes;
	layer->ceiling_cycles = s->ceiling;
	layer->pct_of_ceiling = s->pct_ceiling;
	layer->bound = s->bound ? s->bound : "";
	layer->why = s->why;
	return NPUSIM_OK;
}
