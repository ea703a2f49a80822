/*
 * model.c - run a mapped model as phases, one program per layer step, and
 * collect each layer's counters from its region (docs/models.md).
 */
#include "model.h"
#include "model_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../isa/isa.h"
#include "../report/energy.h"
#include "../util/fsout.h"
#include "../util/strutil.h"

/* The region of layer l: a name no kernel uses ("L<index> <name>",
 * printable, no quotes). */
void model_region_name(const struct map_layer *L, int l, char *buf, size_t n)
{
	size_t k = (size_t)snprintf(buf, n, "L%d %s", l, L->name);
	if (k >= n)
		k = n - 1;
	for (size_t i = 0; i < k; i++)
		if (buf[i] == '"' || buf[i] == '\\' || buf[i] < 0x20 ||
		    buf[i] > 0x7e)
			buf[i] = '_';
}

/* The step's source with the layer's region opened before the kernel
 * (it closes when the core halts, its units drained). */
char *model_step_source(const struct map_layer *L, int l, int s, size_t *len)
{
	char rn[160];
	model_region_name(L, l, rn, sizeof rn);
	const char *src = L->steps[s].src;
	size_t n = strlen(src) + strlen(rn) + 32;
	char *t = malloc(n);
	if (!t)
		return NULL;
	*len = (size_t)snprintf(t, n, "\trbeg\t\"%s\"\n%s", rn, src);
	return t;
}

int model_write_asm(const char *dir, const struct map_layer *L, int l, int s,
		    const char *text, size_t len, struct diag *d)
{
	char path[4096], rn[160];
	model_region_name(L, l, rn, sizeof rn);
	for (char *c = rn; *c; c++)
		if (*c == ' ' || *c == '/')
			*c = '_';
	snprintf(path, sizeof path, "%s/%s.%d.s", dir, rn, s);
	struct fsout f;
	int rc = fsout_open(&f, path, d);
	if (rc)
		return rc;
	fwrite(text, 1, len, f.fp);
	return fsout_commit(&f, d);
}

/* Merge the regions named rn into one sink: every core's own counters
 * (core<N>.*) from its region, the chip-level ones (dram.*, noc.*) from
 * the first core's (each core's region holds them in full) unless
 * own_only. */
int model_merge_regions(const struct ctr_region *v, size_t n, const char *rn,
			int own_only, struct ctr_sink *out)
{
	int first = -1;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(v[i].name, rn))
			continue;
		char own[32];
		snprintf(own, sizeof own, "core%d.", v[i].core);
		for (size_t k = 0; k < v[i].s.n; k++) {
			const struct ctr_entry *e = &v[i].s.v[k];
			int is_core = !strncmp(e->name, "core", 4);
			if (is_core ? strncmp(e->name, own, strlen(own)) :
				      first >= 0 || own_only)
				continue;
			ctr_emit_copy(out, NULL, e);
		}
		if (first < 0)
			first = (int)i;
	}
	return out->oom ? NPU_ENOMEM : 0;
}

void model_layer_stats(struct model_layer_stats *st, const struct arch *a,
		       uint64_t cycles, double share)
{
	/* cycles: the layer's phases, end to end (its regions open and close
	 * within them) */
	const struct ctr_sink *s = st->s;
	double clock = ARCH_F(a, CHIP_CLOCK_GHZ);
	double pe = (double)ARCH_I(a, MTX_ROWS) * (double)ARCH_I(a, MTX_COLS);
	double peak = ARCH_PEAK(a, MACS_PER_S_CHIP) / (clock * 1e9) *
		      (share > 0 ? share : 1);
	struct energy e;
	st->array_macs = ctr_sum(s, CTR_MATRIX_MACS);
	st->compute_cycles = ctr_max(s, CTR_MATRIX_BUSY_CYCLES);
	if (!st->array_macs)
		st->compute_cycles = ctr_max(s, CTR_VECTOR_BUSY_CYCLES);
	if (share > 0) {
		/* pipelined: the DRAM's counters mix every stage's traffic;
		 * the layer's own DMA engines say what it moved */
		st->dram_read = ctr_sum(s, CTR_DMA_BYTES_DRAM_TO_SRAM);
		st->dram_write = ctr_sum(s, CTR_DMA_BYTES_SRAM_TO_DRAM);
	} else {
		st->dram_read = ctr_sum(s, CTR_DRAM_READ_BYTES);
		st->dram_write = ctr_sum(s, CTR_DRAM_WRITE_BYTES);
	}
	/* each unit's stalls by what it waited on */
	st->stall_dram = ctr_sum(s, CTR_DMA_STALL_DRAM);
	st->stall_sram = ctr_sum(s, CTR_MATRIX_STALL_SRAM) +
			 ctr_sum(s, CTR_VECTOR_STALL_SRAM) +
			 ctr_sum(s, CTR_DMA_STALL_SRAM);
	st->stall_noc = ctr_sum(s, CTR_DMA_STALL_NOC);
	st->stall_sync = ctr_sum(s, CTR_CONTROL_STALL_SEM) +
			 ctr_sum(s, CTR_CONTROL_STALL_FENCE) +
			 ctr_sum(s, CTR_CONTROL_STALL_BARRIER);
	energy_of(a, s, cycles, &e);
	st->energy_pj = e.total_pj;
	if (share > 0) /* its partition's share of the static power */
		st->energy_pj -= (1 - share) * e.pj[ENERGY_STATIC];
	st->mac_util = cycles ? (double)st->macs / ((double)cycles * peak) : 0;
	uint64_t busy = ctr_sum(s, CTR_MATRIX_BUSY_CYCLES);
	st->map_eff = busy ? (double)st->macs / ((double)busy * pe) : 0;
	st->dram_gbps = cycles ? (double)(st->dram_read + st->dram_write) *
					 clock / (double)cycles : 0;
}

int model_run(struct run *r, const struct arch *a, const struct graph *g,
	      const struct map_plan *p, const struct model_opts *o,
	      struct model_result *res, struct diag *d)
{
	struct chip *c = run_chip(r);
	int ncores = chip_n_cores(c), rc = 0;
	struct ctr_region *rgn = NULL;
	size_t n_rgn = 0;
	const char *incs[1] = { o->kernel_dir };
	struct asm_opts ao = { NULL, 0, incs, 1 };
	struct chip_result cr;

	int n_run = o->upto > 0 && o->upto < p->n_layers ? o->upto : p->n_layers;
	memset(res, 0, sizeof *res);
	res->n_layers = n_run;
	res->layers = calloc((size_t)p->n_layers + 1, sizeof *res->layers);
	res->sinks = calloc((size_t)p->n_layers + 1, sizeof *res->sinks);
	if (!res->layers || !res->sinks)
		return diag_error(d, diag_nowhere(), NPU_ENOMEM, "out of memory");
	for (int l = 0; l < p->n_layers; l++)
		ctr_sink_init(&res->sinks[l]);
	if (o->values) {
		uint64_t size;
		uint8_t *dram = chip_mem(c, ISA_MEM_DRAM, 0, &size);
		if ((rc = map_write_consts(g, p, dram, size, d)))
			return rc;
		for (int i = 0; i < g->n_inputs; i++) {
			if (!o->inputs || !o->inputs[i])
				continue;
			if ((rc = map_write_input(g, p, g->inputs[i],
						  o->inputs[i], dram, size, d)))
				return rc;
		}
	}
	for (int l = 0; l < n_run && !rc; l++) {
		const struct map_layer *L = &p->layers[l];
		uint64_t t0 = chip_now(c);
		for (int s = 0; s < L->n_steps && !rc; s++) {
			size_t len;
			char *text = model_step_source(L, l, s, &len);
			char name[4096];
			if (!text)
				return diag_error(d, diag_nowhere(), NPU_ENOMEM,
						  "out of memory");
			/* Named inside the kernel folder: its relative
			 * .includes (lib/...) resolve there. */
			snprintf(name, sizeof name, "%s/<%s step %d>",
				 o->kernel_dir, L->name, s);
			if (o->emit_asm_dir)
				rc = model_write_asm(o->emit_asm_dir, L, l, s,
						     text, len, d);
			if (!rc)
				rc = run_load_source(r, name, text, len, &ao, 0,
						     o->one_core ? 0 : -1);
			if (!rc && o->one_core && ncores > 1)
				rc = run_load_source(r, "<idle>", "\thalt\n", 6,
						     NULL, 1, -1);
			free(text);
			if (!rc)
				rc = run_go(r, CYCLE_MAX, &cr);
			if (rc)
				graph_error(g, L->node, d, "layer %d, step %d "
					    "(%s) failed", l, s,
					    L->steps[s].kernel);
		}
		/* the layer's time: its phases, which follow each other */
		res->layers[l].cycles = chip_now(c) - t0;
	}
	if (rc)
		return rc;
	res->cycles = chip_now(c);
	if ((rc = run_regions(r, &rgn, &n_rgn)))
		return diag_error(d, diag_nowhere(), rc, "out of memory");
	for (int l = 0; l < n_run && !rc; l++) {
		char rn[160];
		model_region_name(&p->layers[l], l, rn, sizeof rn);
		rc = model_merge_regions(rgn, n_rgn, rn, 0, &res->sinks[l]);
		res->layers[l].s = &res->sinks[l];
		res->layers[l].macs = p->layers[l].macs;
		model_layer_stats(&res->layers[l], a, res->layers[l].cycles, 0);
		model_layer_ceiling(&res->layers[l], a, g, p, l,
				    o->one_core ? 1 : ncores, 1);
		res->macs += res->layers[l].macs;
		res->energy_pj += res->layers[l].energy_pj;
	}
	run_regions_free(rgn, n_rgn);
	if (rc)
		return diag_error(d, diag_nowhere(), rc, "out of memory");
	if (o->values && n_run == p->n_layers) {
		uint64_t size;
		uint8_t *dram = chip_mem(c, ISA_MEM_DRAM, 0, &size);
		res->n_outputs = g->n_outputs;
		res->outputs = calloc((size_t)g->n_outputs + 1,
				      sizeof *res->outputs);
		if (!res->outputs)
			return diag_error(d, diag_nowhere(), NPU_ENOMEM,
					  "out of memory");
		for (int i = 0; i < g->n_outputs && !rc; i++) {
			const struct g_tensor *t = &g->tensors[g->outputs[i]];
			res->outputs[i] = malloc(((size_t)graph_elems(t) + 1) *
						 sizeof(float));
			if (!res->outputs[i])
				return diag_error(d, diag_nowhere(), NPU_ENOMEM,
						  "out of memory");
			rc = map_read_tensor(g, p, g->outputs[i], dram, size,
					     res->outputs[i], d);
		}
	}
	return rc;
}

int model_calibrate(const struct arch *a, const struct graph *g,
		    float *const *inputs, const char *kernel_dir, float *amax,
		    struct diag *d)
{
	struct map_opts mo = { .dtype = DT_BF16, .keep_all = 1 };
	struct map_plan p;
	struct model_result res;
	struct run_params rp;
	int rc = map_plan_build(g, a, &mo, &p, d);

	if (rc)
		return rc;
	memset(&rp, 0, sizeof rp);
	rp.max_cycles = CYCLE_MAX;
	struct run *r = run_new(a, &rp, d);
	struct model_opts o = { kernel_dir, 0, 1, inputs, NULL, 0 };
	memset(&res, 0, sizeof res);
	rc = r ? model_run(r, a, g, &p, &o, &res, d) : NPU_ENOMEM;
	if (!rc) {
		uint64_t size;
		uint8_t *dram = chip_mem(run_chip(r), ISA_MEM_DRAM, 0, &size);
		float *v = NULL;
		size_t cap = 0;
		for (int t = 0; t < g->n_tensors && !rc; t++) {
			const struct map_tensor *x = &p.t[t];
			size_t n = (size_t)graph_elems(&g->tensors[t]);
			amax[t] = 0;
			if (x->addr == MAP_NOADDR || x->wlay || x->dt != DT_BF16 ||
			    (g->tensors[t].flags & G_T_CONST))
				continue;
			if (n > cap) {
				float *nv = realloc(v, n * sizeof *v);
				if (!nv) {
					rc = diag_error(d, diag_nowhere(),
							NPU_ENOMEM, "out of memory");
					break;
				}
				v = nv;
				cap = n;
			}
			rc = map_read_tensor(g, &p, t, dram, size, v, d);
			/* a MaxPool's -inf padding is no range to cover */
			for (size_t i = 0; i < n && !rc; i++)
				if (isfinite(v[i]) && fabsf(v[i]) > amax[t])
					amax[t] = fabsf(v[i]);
		}
		free(v);
	}
	model_result_free(&res);
	run_free(r);
	map_plan_free(&p);
	return rc;
}

void model_result_free(struct model_result *res)
{
	for (int l = 0; l < res->n_layers && res->sinks; l++)
		ctr_sink_free(&res->sinks[l]);
	for (int i = 0; i < res->n_outputs; i++)
		free(res->outputs[i]);
	free(res->outputs);
	free(res->stages);
	free(res->sinks);
	free(res->layers);
	memset(res, 0, sizeof *res);
}

int model_write_csv(FILE *f, const struct graph *g, const struct map_plan *p,
		    const struct model_result *res, const struct arch *a)
{
	double clock = ARCH_F(a, CHIP_CLOCK_GHZ);
	fputs("layer,op,shapes,kernel,tiling,cycles,compute_cycles,"
	      "stall_dram_cycles,stall_sram_cycles,stall_noc_cycles,"
	      "stall_sync_cycles,macs,array_macs,mac_util,mapping_eff,dram_read_bytes,"
	      "dram_write_bytes,dram_gbps,energy_uj,time_us,model_macs,"
	      "compulsory_bytes,ceiling_cycles,pct_of_ceiling,bound\n", f);
	for (int l = 0; l < res->n_layers; l++) {
		const struct map_layer *L = &p->layers[l];
		const struct model_layer_stats *s = &res->layers[l];
		str_csv_field(f, L->name);
		fputc(',', f);
		str_csv_field(f, L->op);
		fputc(',', f);
		str_csv_field(f, L->shapes);
		fputc(',', f);
		str_csv_field(f, L->kernels);
		fputc(',', f);
		str_csv_field(f, L->tiling);
		fprintf(f, ",%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%.4f,%.4f,%llu,"
			"%llu,%.3f,%.3f,%.3f,%llu,%llu,%.0f,%.2f,%s\n",
			(unsigned long long)s->cycles,
			(unsigned long long)s->compute_cycles,
			(unsigned long long)s->stall_dram,
			(unsigned long long)s->stall_sram,
			(unsigned long long)s->stall_noc,
			(unsigned long long)s->stall_sync,
			(unsigned long long)s->macs,
			(unsigned long long)s->array_macs, s->mac_util, s->map_eff,
			(unsigned long long)s->dram_read,
			(unsigned long long)s->dram_write, s->dram_gbps,
			s->energy_pj * 1e-6, (double)s->cycles / (clock * 1e3),
			(unsigned long long)s->model_macs,
			(unsigned long long)s->compulsory_bytes, s->ceiling,
			s->pct_ceiling, s->bound ? s->bound : "");
	}
	(void)g;
	return ferror(f) ? NPU_EIO : 0;
}

void model_print(FILE *f, const struct graph *g, const struct map_plan *p,
		 const struct model_result *res, const struct arch *a)
{
	double clock = ARCH_F(a, CHIP_CLOCK_GHZ);
	double sec = (double)res->cycles / (clock * 1e9);
	int batch = res->batch > 0 ? res->batch : 1;
	double peak = ARCH_PEAK(a, MACS_PER_S_CHIP);
	uint64_t rd = 0, wr = 0;
	fprintf(f, "%-28s %-28s %12s %7s %9s\n", "layer", "kernel", "cycles",
		"MAC%", "DRAM MB");
	for (int l = 0; l < res->n_layers; l++) {
		const struct model_layer_stats *s = &res->layers[l];
		rd += s->dram_read;
		wr += s->dram_write;
		fprintf(f, "%-28.28s %-28.28s %12llu %6.1f%% %9.2f\n",
			p->layers[l].name, p->layers[l].kernels,
			(unsigned long long)s->cycles, 100 * s->mac_util,
			(double)(s->dram_read + s->dram_write) / 1e6);
	}
	fprintf(f, "\nmodel: %s, %d layers (%d nodes), %s, batch %d\n",
		g->source, p->n_layers, g->n_nodes, dtype_name(p->dtype), batch);
	fprintf(f, "latency: %llu cycles = %.3f ms at %.3g GHz; "
		"throughput %.1f inferences/s\n",
		(unsigned long long)res->cycles, sec * 1e3, clock,
		sec > 0 ? batch / sec : 0);
	fprintf(f, "MACs: %llu (%.2f TOPS achieved, %.1f%% of the %.2f TOPS "
		"peak)\n", (unsigned long long)res->macs,
		sec > 0 ? 2e-12 * (double)res->macs / sec : 0,
		sec > 0 && peak > 0 ? 100 * (double)res->macs / sec / peak : 0,
		2e-12 * peak);
	fprintf(f, "DRAM: %.2f MB read, %.2f MB written; footprint %.2f MB "
		"(weights %.2f MB, activations %.2f MB at the peak, %.2f MB "
		"without reuse)\n", (double)rd / 1e6, (double)wr / 1e6,
		(double)p->dram_bytes / 1e6, (double)p->weights_bytes / 1e6,
		(double)p->act_peak / 1e6, (double)p->act_naive / 1e6);
	fprintf(f, "energy: %.3f mJ per inference\n",
		res->energy_pj * 1e-9 / batch);
	if (!res->n_stages)
		return;
	/* the interval a stage sets: its busy cycles per image */
	uint64_t worst = 0;
	int wi = 0;
	fprintf(f, "\npipeline: %d stages, %d images in flight at most\n",
		res->n_stages, res->n_stages < batch ? res->n_stages : batch);
	fprintf(f, "%-6s %-9s %-7s %14s %14s %7s\n", "stage", "layers",
		"cores", "estimate/img", "busy/img", "busy%");
	for (int s = 0; s < res->n_stages; s++) {
		const struct model_stage *st = &res->stages[s];
		char lr[24], cr[24];
		uint64_t per = st->busy / (uint64_t)batch;
		snprintf(lr, sizeof lr, "%d-%d", st->first, st->last);
		snprintf(cr, sizeof cr, "%d-%d", st->base, st->base + st->cores - 1);
		fprintf(f, "%-6d %-9s %-7s %14.0f %14llu %6.1f%%\n", s + 1, lr,
			cr, st->est, (unsigned long long)per,
			res->cycles ? 100.0 * (double)st->busy /
				      (double)res->cycles : 0);
		if (per > worst) {
			worst = per;
			wi = s;
		}
	}
	fprintf(f, "interval: %llu cycles per image (stage %d); latency of "
		"image 0 %llu cycles = %.3f ms, mean %.3f ms\n",
		(unsigned long long)worst, wi + 1,
		(unsigned long long)res->first_latency,
		(double)res->first_latency / (clock * 1e6),
		(double)res->mean_latency / (clock * 1e6));
}
