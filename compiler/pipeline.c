/*
 * pipeline.c - a model run as a pipeline of partitions (docs/models.md,
 * "Pipelining"): the layers cut into stages, each stage on a partition of
 * the cores (sim/chip.h), images flowing through in one phase.
 *
 * The chip's command processor calls launch() whenever a partition has
 * finished a program or received a signal; it starts the stage's next
 * program at that cycle.  A stage's work for image b is the programs of
 * its layers' steps in order; when they are done the stage sends the
 * next one a one-flit signal over the NoC (the image's activations are in
 * DRAM), and the next stage starts image b once it has that signal and
 * has finished image b - 1.  Each image has its own activation arena, so
 * stages working on different images never share a buffer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../isa/isa.h"
#include "../report/energy.h"
#include "model.h"
#include "model_int.h"

struct pipe {
	struct chip *c;
	struct diag *d;
	int images, n_st;
	struct model_stage *st;
	const struct prog_image **prog; /* per (image, stage): its programs */
	int *first, *n_prog;            /* offset into prog, count */
	int *cur_b, *cur_k, *busy;      /* per stage: image, program, running */
	uint8_t *ready;                 /* [stage * images + b]: signalled */
	uint64_t *img_start, *img_end;
};

#define JOB(P, b, s) ((b) * (P)->n_st + (s))

/* Start stage s's next image if it is free and its input is there. */
static int try_start(struct pipe *P, int s, cycle_t when)
{
	int b = P->cur_b[s], j = JOB(P, b, s);

	if (P->busy[s] || b >= P->images ||
	    (s > 0 && !P->ready[s * P->images + b]))
		return 0;
	P->busy[s] = 1;
	P->cur_k[s] = 0;
	if (b == 0)
		P->st[s].start = when;
	if (s == 0)
		P->img_start[b] = when;
	return chip_launch(P->c, s, P->prog[P->first[j]], when, P->d);
}

static int launch(void *ctx, int kind, int s, uint32_t tag, cycle_t when)
{
	struct pipe *P = ctx;

	if (kind == CHIP_SIGNAL) {
		P->ready[s * P->images + (int)tag] = 1;
		return try_start(P, s, when);
	}
	if (!P->busy[s]) /* the idle program a stage starts the phase with */
		return try_start(P, s, when);
	int b = P->cur_b[s], j = JOB(P, b, s), k = ++P->cur_k[s];
	if (k < P->n_prog[j])
		return chip_launch(P->c, s, P->prog[P->first[j] + k], when, P->d);
	/* image b is through this stage */
	P->busy[s] = 0;
	P->cur_b[s]++;
	P->st[s].end = when;
	int rc = 0;
	if (s + 1 < P->n_st)
		rc = chip_signal(P->c, s, s + 1, (uint32_t)b);
	else
		P->img_end[b] = when;
	return rc ? rc : try_start(P, s, when);
}

/* The cost model's cycles for layer l on k cores: the slowest of its
 * MACs on the arrays, its elements on the vector units and its bytes
 * through DRAM at their peaks (docs/models.md, "Pipelining"). */
static double layer_cost(const struct graph *g, const struct map_plan *p,
			 const struct arch *a, int l, int k)
{
	const struct map_layer *L = &p->layers[l];
	const struct g_node *n = &g->nodes[L->node];
	double hz = ARCH_F(a, CHIP_CLOCK_GHZ) * 1e9, bytes = 0, elems = 0;

	if (!L->n_steps)
		return 0;
	for (int i = 0; i < n->n_in; i++)
		if (n->in[i] >= 0)
			bytes += (double)p->t[n->in[i]].bytes;
	for (int i = 0; i < n->n_out; i++)
		if (n->out[i] >= 0) {
			bytes += (double)p->t[n->out[i]].bytes;
			elems += (double)graph_elems(&g->tensors[n->out[i]]);
		}
	double t_mac = (double)L->macs / (k * ARCH_PEAK(a, MACS_PER_S_CORE));
	double t_vec = elems / (k * ARCH_PEAK(a, VEC_OPS_PER_S));
	double t_mem = bytes / ARCH_PEAK(a, DRAM_BYTES_PER_S);
	double t = t_mac > t_vec ? t_mac : t_vec;
	return (t > t_mem ? t : t_mem) * hz;
}

/*
 * Cut the layers into P->n_st stages of consecutive layers, minimising the
 * largest stage's cost (the pipeline's interval): the linear partition
 * problem, by dynamic programming over the layers that run programs
 * (views cost nothing and join the stage of the layer before them).
 */
static int cut_stages(const struct graph *g, const struct map_plan *p,
		      const struct arch *a, const double *meas, int k0,
		      struct pipe *P, struct diag *d)
{
	int S = P->n_st, n = 0;
	int *real = malloc(((size_t)p->n_layers + 1) * sizeof *real);
	double *best = NULL, *cost = NULL;
	int *from = NULL, rc = 0;

	if (!real)
		return diag_error(d, diag_nowhere(), NPU_ENOMEM, "out of memory");
	for (int l = 0; l < p->n_layers; l++)
		if (p->layers[l].n_steps)
			real[n++] = l;
	if (n < S) {
		rc = diag_error(d, diag_nowhere(), NPU_EUSAGE,
				"--pipeline %d: the model has %d layers that "
				"run programs; use at most that many stages",
				S, n);
		goto out;
	}
	size_t cells = (size_t)(S + 1) * (size_t)(n + 1);
	best = malloc(cells * sizeof *best);
	from = malloc(cells * sizeof *from);
	cost = malloc(((size_t)S * (size_t)(n + 1)) * sizeof *cost);
	if (!best || !from || !cost) {
		rc = diag_error(d, diag_nowhere(), NPU_ENOMEM, "out of memory");
		goto out;
	}
	/* cost[s][i]: layers real[0..i) on stage s's cores, prefix sums */
	for (int s = 0; s < S; s++) {
		double *c = cost + (size_t)s * (size_t)(n + 1);
		c[0] = 0;
		for (int i = 0; i < n; i++)
			c[i + 1] = c[i] + (meas ? meas[real[i]] * k0 /
							 P->st[s].cores
						    : layer_cost(g, p, a, real[i],
								 P->st[s].cores));
	}
#define B(s, j) best[(size_t)(s) * (size_t)(n + 1) + (size_t)(j)]
#define F(s, j) from[(size_t)(s) * (size_t)(n + 1) + (size_t)(j)]
	for (int j = 0; j <= n; j++)
		B(0, j) = j ? 1e300 : 0;
	for (int s = 1; s <= S; s++) {
		const double *c = cost + (size_t)(s - 1) * (size_t)(n + 1);
		for (int j = 0; j <= n; j++) {
			B(s, j) = 1e300;
			F(s, j) = -1;
			/* stage s - 1 takes real[i..j), at least one layer */
			for (int i = s - 1; i < j; i++) {
				double m = c[j] - c[i];
				if (B(s - 1, i) > m)
					m = B(s - 1, i);
				if (m < B(s, j)) { /* ties: the earlier cut */
					B(s, j) = m;
					F(s, j) = i;
				}
			}
		}
	}
	for (int s = S, j = n; s >= 1; s--) {
		int i = F(s, j);
		const double *c = cost + (size_t)(s - 1) * (size_t)(n + 1);
		P->st[s - 1].first = s == 1 ? 0 : real[i];
		P->st[s - 1].est = c[j] - c[i];
		j = i;
	}
#undef B
#undef F
out:
	free(real);
	free(best);
	free(from);
	free(cost);
	return rc;
}

/*
 * Each layer's cycles for one image on a partition of k0 cores, measured:
 * its steps run timing-only, one after another, on a chip of the same
 * config cut into k0 cores and the rest (idle).  1 with meas filled; 0
 * when the run failed (a program whose timing needs values): the caller
 * falls back to the cost model, and a note says why.
 */
static int profile(const struct map_plan *p,
		   const struct arch *a, const struct model_opts *o, int k0,
		   double *meas, struct diag *d)
{
	const char *incs[1] = { o->kernel_dir };
	struct asm_opts ao = { NULL, 0, incs, 1 };
	struct run_params rp;
	struct diag pd;
	char *log = NULL;
	size_t log_n = 0;
	FILE *fp = open_memstream(&log, &log_n);
	int rc = fp ? 0 : NPU_ENOMEM, ncores = (int)ARCH_I(a, CHIP_CORES);
	int sizes[2] = { k0, ncores - k0 };
	struct run *r = NULL;

	memset(&rp, 0, sizeof rp);
	rp.max_cycles = CYCLE_MAX;
	rp.timing_only = 1;
	if (fp) {
		diag_init(&pd, fp);
		r = run_new(a, &rp, &pd);
		rc = r ? chip_set_partitions(run_chip(r), k0 < ncores ? 2 : 1,
					     sizes, &pd) : NPU_ENOMEM;
	}
	for (int l = 0; l < p->n_layers && !rc; l++) {
		const struct map_layer *L = &p->layers[l];
		meas[l] = 0;
		for (int t = 0; t < L->n_steps && !rc; t++) {
			size_t len;
			char *text = model_step_source(L, l, t, &len);
			const struct prog_image *img;
			struct chip_result cr;
			if (!text) {
				rc = NPU_ENOMEM;
				break;
			}
			rc = run_assemble_source(r, L->name, text, len, &ao, k0,
						 &img);
			free(text);
			if (!rc)
				rc = run_load_image(r, img, 0, k0 - 1);
			if (!rc && k0 < ncores)
				rc = run_load_source(r, "<idle>", "\thalt\n", 6,
						     NULL, k0, -1);
			if (!rc)
				rc = run_go(r, CYCLE_MAX, &cr);
			if (!rc)
				meas[l] += (double)(cr.cycles - cr.phase_start);
		}
	}
	run_free(r);
	if (fp)
		fclose(fp);
	if (rc) {
		/* the first line of what went wrong */
		char *nl = log ? strchr(log, '\n') : NULL;
		if (nl)
			*nl = 0;
		diag_note(d, diag_nowhere(), "--pipeline: stages cut by the "
			  "cost model, not measured: %s", log && *log ? log :
			  "out of memory");
	}
	free(log);
	return !rc;
}

/* The user's cut: stage i + 1 starts at layer starts[i]. */
static int user_stages(const struct graph *g, const struct map_plan *p,
		       const struct arch *a, const int *starts,
		       struct pipe *P, struct diag *d)
{
	P->st[0].first = 0;
	for (int s = 1; s < P->n_st; s++) {
		int f = starts[s - 1];
		if (f <= P->st[s - 1].first || f >= p->n_layers)
			return diag_error(d, diag_nowhere(), NPU_EUSAGE,
					  "--stages: stage %d starts at layer "
					  "%d: stages start at increasing "
					  "layers, after layer 0 and before "
					  "%d (the model's layers)", s + 1, f,
					  p->n_layers);
		P->st[s].first = f;
	}
	for (int s = 0; s < P->n_st; s++) {
		int last = s + 1 < P->n_st ? P->st[s + 1].first : p->n_layers;
		int steps = 0;
		P->st[s].est = 0;
		for (int l = P->st[s].first; l < last; l++) {
			steps += p->layers[l].n_steps;
			P->st[s].est += layer_cost(g, p, a, l, P->st[s].cores);
		}
		if (!steps)
			return diag_error(d, diag_nowhere(), NPU_EUSAGE,
					  "--stages: stage %d (layers %d-%d) "
					  "runs no program: every layer in it "
					  "is a view", s + 1, P->st[s].first,
					  last - 1);
	}
	return 0;
}

/* Assemble every (image, stage)'s programs, in launch order. */
static int assemble_all(struct run *r, const struct map_plan *plans,
			const struct graph *g, const struct model_opts *o,
			struct pipe *P, struct diag *d)
{
	const char *incs[1] = { o->kernel_dir };
	struct asm_opts ao = { NULL, 0, incs, 1 };
	int total = 0, rc = 0;

	for (int s = 0; s < P->n_st; s++)
		for (int l = P->st[s].first; l <= P->st[s].last; l++)
			total += plans[0].layers[l].n_steps;
	P->prog = calloc((size_t)total * (size_t)P->images + 1,
			 sizeof *P->prog);
	if (!P->prog)
		return diag_error(d, diag_nowhere(), NPU_ENOMEM, "out of memory");
	int k = 0;
	for (int b = 0; b < P->images && !rc; b++)
		for (int s = 0; s < P->n_st && !rc; s++) {
			int j = JOB(P, b, s);
			P->first[j] = k;
			for (int l = P->st[s].first; l <= P->st[s].last && !rc; l++) {
				const struct map_layer *L = &plans[b].layers[l];
				for (int t = 0; t < L->n_steps && !rc; t++) {
					size_t len;
					char name[4096];
					char *text = model_step_source(L, l, t, &len);
					if (!text)
						return diag_error(d, diag_nowhere(),
								  NPU_ENOMEM,
								  "out of memory");
					snprintf(name, sizeof name,
						 "%s/<%s step %d image %d>",
						 o->kernel_dir, L->name, t, b);
					if (o->emit_asm_dir && b == 0)
						rc = model_write_asm(o->emit_asm_dir,
								     L, l, t, text,
								     len, d);
					if (!rc)
						rc = run_assemble_source(r, name, text,
									 len, &ao,
									 P->st[s].cores,
									 &P->prog[k++]);
					free(text);
					if (rc)
						graph_error(g, L->node, d, "layer %d, "
							    "step %d (%s) failed", l,
							    t, L->steps[t].kernel);
				}
			}
			P->n_prog[j] = k - P->first[j];
		}
	return rc;
}

/* Per-layer statistics from the regions: a layer's cycles are its
 * partition's busiest core's time in it, over every image. */
static int collect(struct run *r, const struct arch *a,
		   const struct graph *g, const struct map_plan *p,
		   struct pipe *P,
		   struct model_result *res, struct diag *d)
{
	struct ctr_region *rgn = NULL;
	size_t n_rgn = 0;
	int rc = run_regions(r, &rgn, &n_rgn);
	int ncores = chip_n_cores(run_chip(r));

	if (rc)
		return diag_error(d, diag_nowhere(), rc, "out of memory");
	for (int s = 0; s < P->n_st && !rc; s++) {
		double share = (double)P->st[s].cores / ncores;
		for (int l = P->st[s].first; l <= P->st[s].last && !rc; l++) {
			struct model_layer_stats *ls = &res->layers[l];
			char rn[160];
			model_region_name(&p->layers[l], l, rn, sizeof rn);
			for (size_t k = 0; k < n_rgn; k++)
				if (!strcmp(rgn[k].name, rn) &&
				    rgn[k].cycles > ls->cycles)
					ls->cycles = rgn[k].cycles;
			rc = model_merge_regions(rgn, n_rgn, rn, 1,
						 &res->sinks[l]);
			ls->s = &res->sinks[l];
			ls->macs = p->layers[l].macs * (uint64_t)P->images;
			model_layer_stats(ls, a, ls->cycles, share);
			model_layer_ceiling(ls, a, g, p, l, P->st[s].cores,
					    P->images);
			P->st[s].busy += ls->cycles;
			res->macs += ls->macs;
		}
	}
	run_regions_free(rgn, n_rgn);
	if (rc)
		return diag_error(d, diag_nowhere(), rc, "out of memory");
	/* the energy of the whole run: its DRAM and NoC are nobody's alone */
	struct ctr_sink all;
	struct energy e;
	ctr_sink_init(&all);
	if ((rc = run_counters(r, &all))) {
		ctr_sink_free(&all);
		return diag_error(d, diag_nowhere(), rc, "out of memory");
	}
	energy_of(a, &all, res->cycles, &e);
	res->energy_pj = e.total_pj;
	ctr_sink_free(&all);
	return 0;
}

int model_run_pipeline(struct run *r, const struct arch *a,
		       const struct graph *g, const struct map_plan *plans,
		       int images, const struct model_opts *o,
		       const struct model_pipe_opts *po,
		       struct model_result *res, struct diag *d)
{
	struct chip *c = run_chip(r);
	const struct map_plan *p = &plans[0];
	int ncores = chip_n_cores(c), S = po->n_stages, rc = 0;
	struct pipe P;
	struct chip_result cr;
	int *sizes = NULL;

	memset(res, 0, sizeof *res);
	memset(&P, 0, sizeof P);
	if (S < 1 || S > ncores)
		return diag_error(d, diag_nowhere(), NPU_EUSAGE,
				  "--pipeline %d: the chip has %d cores (a "
				  "stage needs one at least)", S, ncores);
	P.c = c;
	P.d = d;
	P.images = images;
	P.n_st = S;
	size_t jobs = (size_t)images * (size_t)S;
	res->n_layers = p->n_layers;
	res->layers = calloc((size_t)p->n_layers + 1, sizeof *res->layers);
	res->sinks = calloc((size_t)p->n_layers + 1, sizeof *res->sinks);
	res->stages = P.st = calloc((size_t)S, sizeof *P.st);
	res->n_stages = S;
	P.first = calloc(jobs, sizeof *P.first);
	P.n_prog = calloc(jobs, sizeof *P.n_prog);
	P.cur_b = calloc((size_t)S, sizeof *P.cur_b);
	P.cur_k = calloc((size_t)S, sizeof *P.cur_k);
	P.busy = calloc((size_t)S, sizeof *P.busy);
	P.ready = calloc(jobs, 1);
	P.img_start = calloc((size_t)images, sizeof *P.img_start);
	P.img_end = calloc((size_t)images, sizeof *P.img_end);
	sizes = calloc((size_t)S, sizeof *sizes);
	if (!res->layers || !res->sinks || !P.st || !P.first || !P.n_prog ||
	    !P.cur_b || !P.cur_k || !P.busy || !P.ready || !P.img_start ||
	    !P.img_end || !sizes) {
		rc = diag_error(d, diag_nowhere(), NPU_ENOMEM, "out of memory");
		goto out;
	}
	for (int l = 0; l < p->n_layers; l++)
		ctr_sink_init(&res->sinks[l]);
	/* cores dealt evenly, the first stages one more when they do not
	 * divide */
	for (int s = 0, base = 0; s < S; s++) {
		sizes[s] = ncores / S + (s < ncores % S);
		P.st[s].base = base;
		P.st[s].cores = sizes[s];
		base += sizes[s];
	}
	if (po->starts) {
		rc = user_stages(g, p, a, po->starts, &P, d);
	} else {
		double *meas = calloc((size_t)p->n_layers + 1, sizeof *meas);
		if (!meas) {
			rc = diag_error(d, diag_nowhere(), NPU_ENOMEM,
					"out of memory");
			goto out;
		}
		int ok = S > 1 && profile(p, a, o, sizes[0], meas, d);
		rc = cut_stages(g, p, a, ok ? meas : NULL, sizes[0], &P, d);
		free(meas);
	}
	if (rc)
		goto out;
	for (int s = 0; s < S; s++)
		P.st[s].last = s + 1 < S ? P.st[s + 1].first - 1 : p->n_layers - 1;
	if ((rc = chip_set_partitions(c, S, sizes, d)) ||
	    (rc = assemble_all(r, plans, g, o, &P, d)))
		goto out;
	if (o->values) {
		uint64_t size;
		uint8_t *dram = chip_mem(c, ISA_MEM_DRAM, 0, &size);
		if ((rc = map_write_consts(g, p, dram, size, d)))
			goto out;
		for (int b = 0; b < images; b++)
			for (int i = 0; i < g->n_inputs; i++) {
				if (!o->inputs || !o->inputs[i])
					continue;
				int64_t n = graph_elems(&g->tensors[g->inputs[i]]);
				if ((rc = map_write_input(g, &plans[b], g->inputs[i],
							  o->inputs[i] + b * n,
							  dram, size, d)))
					goto out;
			}
	}
	/* stage 0 starts image 0; the others start idle (a halt) and wait */
	P.busy[0] = 1;
	if ((rc = run_load_image(r, P.prog[P.first[0]], 0, sizes[0] - 1)))
		goto out;
	if (S > 1 && (rc = run_load_source(r, "<idle>", "\thalt\n", 6, NULL,
					   sizes[0], -1)))
		goto out;
	if ((rc = chip_set_launcher(c, launch, &P))) {
		rc = diag_error(d, diag_nowhere(), rc, "out of memory");
		goto out;
	}
	uint64_t t0 = chip_now(c);
	P.st[0].start = P.img_start[0] = t0;
	rc = run_go(r, CYCLE_MAX, &cr);
	if (!rc && chip_set_launcher(c, NULL, NULL))
		rc = NPU_ENOMEM;
	if (rc)
		goto out;
	for (int s = 0; s < S; s++)
		if (P.cur_b[s] != images) {
			rc = diag_error(d, diag_nowhere(), NPU_EINTERNAL,
					"pipeline: stage %d stopped at image %d "
					"of %d", s + 1, P.cur_b[s], images);
			goto out;
		}
	res->cycles = cr.cycles - t0;
	res->batch = images;
	res->first_latency = P.img_end[0] - P.img_start[0];
	uint64_t sum = 0;
	for (int b = 0; b < images; b++)
		sum += P.img_end[b] - P.img_start[b];
	res->mean_latency = sum / (uint64_t)images;
	if ((rc = collect(r, a, g, p, &P, res, d)))
		goto out;
	if (o->values) {
		uint64_t size;
		uint8_t *dram = chip_mem(c, ISA_MEM_DRAM, 0, &size);
		res->n_outputs = g->n_outputs;
		res->outputs = calloc((size_t)g->n_outputs + 1, sizeof *res->outputs);
		if (!res->outputs) {
			rc = diag_error(d, diag_nowhere(), NPU_ENOMEM, "out of memory");
			goto out;
		}
		for (int i = 0; i < g->n_outputs && !rc; i++) {
			const struct g_tensor *t = &g->tensors[g->outputs[i]];
			size_t n = (size_t)graph_elems(t);
			res->outputs[i] = malloc((n * (size_t)images + 1) *
						 sizeof(float));
			if (!res->outputs[i]) {
				rc = diag_error(d, diag_nowhere(), NPU_ENOMEM,
						"out of memory");
				goto out;
			}
			for (int b = 0; b < images && !rc; b++)
				rc = map_read_tensor(g, &plans[b], g->outputs[i],
						     dram, size,
						     res->outputs[i] + (size_t)b * n, d);
		}
	}
out:
	free(P.prog);
	free(P.first);
	free(P.n_prog);
	free(P.cur_b);
	free(P.cur_k);
	free(P.busy);
	free(P.ready);
	free(P.img_start);
	free(P.img_end);
	free(sizes);
	return rc;
}
