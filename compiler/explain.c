/*
 * explain.c - every layer's roofline ceiling and how far from it the
 * mapping lands (`npusim model --explain`, docs/models.md "Reading
 * --explain").
 *
 * The ceiling is a property of the op on the chip, never of the
 * mapping: its model MACs (the op's M x K x N from the graph, padding
 * never counted), its compulsory DRAM bytes (inputs, weights and outputs
 * each moved once, in the plan's element types) and the peaks of the
 * cores it runs on (report/ceiling.c).  What the run achieved against it
 * is read from the layer's counters; the reason it falls short is the
 * largest of the shortfalls those counters measure.
 */
#include "model.h"
#include "model_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Input indices along one axis that some window reads: out windows of k
 * taps (dilation dil) at stride s, the first starting at -pb; padding is
 * no input.  Exact, O(out x k); in if out of memory (no saving). */
static int64_t axis_touched(int64_t in, int64_t out, int k, int s, int dil,
			    int pb)
{
	unsigned char *hit = calloc((size_t)in, 1);
	int64_t n = 0;
	if (!hit)
		return in;
	for (int64_t o = 0; o < out; o++)
		for (int t = 0; t < k; t++) {
			int64_t i = o * s - pb + (int64_t)t * dil;
			if (i >= 0 && i < in && !hit[i]) {
				hit[i] = 1;
				n++;
			}
		}
	free(hit);
	return n;
}

/* Bytes of tensor t as the plan stores it (its own element type). */
static uint64_t tensor_bytes(const struct graph *g, const struct map_plan *p,
			     int t)
{
	return dtype_bytes(p->t[t].dt,
			   (unsigned long long)graph_elems(&g->tensors[t]));
}

/* A conv or pool input: the bytes of the rows and columns some window
 * reads (a 1x1 stride-2 conv reads a quarter of its input). */
static uint64_t window_bytes(const struct graph *g, const struct map_plan *p,
			     const struct g_node *n, int kh, int kw)
{
	const struct g_tensor *x = &g->tensors[n->in[0]];
	const struct g_tensor *y = &g->tensors[n->out[0]];
	if (x->rank != 4 || y->rank != 4)
		return tensor_bytes(g, p, n->in[0]);
	int64_t th = axis_touched(x->dim[2], y->dim[2], kh, n->stride[0],
				  n->dil[0], n->pad[0]);
	int64_t tw = axis_touched(x->dim[3], y->dim[3], kw, n->stride[1],
				  n->dil[1], n->pad[1]);
	return dtype_bytes(p->t[n->in[0]].dt, (unsigned long long)
			   (x->dim[0] * x->dim[1] * th * tw));
}

/* The data movement ops: their kernels copy bytes, so no compute term
 * bounds them (only DRAM). */
static int is_movement(enum g_op op)
{
	switch (op) {
	case G_FLATTEN: case G_RESHAPE: case G_SQUEEZE: case G_UNSQUEEZE:
	case G_TRANSPOSE: case G_CONCAT: case G_SPLIT: case G_SLICE:
	case G_GATHER: case G_RESIZE: case G_PAD: case G_IDENTITY:
	case G_DROPOUT:
		return 1;
	default:
		return 0;
	}
}

void model_layer_work(const struct graph *g, const struct map_plan *p, int l,
		      int images, struct ceil_work *w)
{
	const struct map_layer *L = &p->layers[l];
	const struct g_node *n = &g->nodes[L->node];
	const struct g_tensor *x = n->in[0] >= 0 ? &g->tensors[n->in[0]] : NULL;
	const struct g_tensor *y = &g->tensors[n->out[0]];
	uint64_t act = 0, cst = 0, out_bytes = 0;
	int seen[G_MAX_IN + G_MAX_OUT + 1], n_seen = 0;
	int kh = n->kernel[0], kw = n->kernel[1];

	memset(w, 0, sizeof *w);
	w->unit = CEIL_VECTOR;
	w->dtype = p->dtype;
	if (n->op == G_CONV && n->n_in > 1 && g->tensors[n->in[1]].rank == 4) {
		kh = (int)g->tensors[n->in[1]].dim[2];
		kw = (int)g->tensors[n->in[1]].dim[3];
	}
	for (int i = 0; i < n->n_out; i++)
		if (n->out[i] >= 0)
			out_bytes += tensor_bytes(g, p, n->out[i]);
	/* every tensor once: the inputs (a fused bias and residual among
	 * them), the outputs */
	for (int i = 0; i < n->n_in + 1 + n->n_out; i++) {
		int t = i < n->n_in ? n->in[i] : i == n->n_in ? n->res :
			n->out[i - n->n_in - 1];
		int dup = 0;
		if (t < 0 || p->t[t].addr == MAP_NOADDR)
			continue;
		for (int k = 0; k < n_seen; k++)
			dup |= seen[k] == t;
		if (dup)
			continue;
		seen[n_seen++] = t;
		uint64_t b = tensor_bytes(g, p, t);
		if (i == 0 && (n->op == G_CONV || n->op == G_MAXPOOL ||
			       n->op == G_AVGPOOL))
			b = window_bytes(g, p, n, kh, kw);
		/* a slice or an embedding lookup reads what it outputs */
		if (i == 0 && (n->op == G_SLICE || n->op == G_GATHER) &&
		    b > out_bytes)
			b = out_bytes;
		if (g->tensors[t].flags & G_T_CONST)
			cst += b;
		else
			act += b;
	}
	w->bytes = act * (uint64_t)images + cst;

	if (n->op == G_CONV && x && x->rank == 4 && y->rank == 4) {
		int64_t C = x->dim[1], CO = y->dim[1], G = n->group > 0 ? n->group : 1;
		uint64_t pix = (uint64_t)(y->dim[0] * y->dim[2] * y->dim[3]);
		uint64_t macs = pix * (uint64_t)CO * (uint64_t)(C / G) *
				(uint64_t)(kh * kw);
		w->macs = macs * (uint64_t)images;
		if (G > 1 && G == C && CO == C) {
			/* depthwise, on the vector unit: a vmul and a vadd
			 * per tap (the vector ISA has no fused
			 * multiply-add) */
			w->ops = 2 * w->macs;
			return;
		}
		w->unit = CEIL_ARRAY;
		w->m = (int64_t)pix * images;
		w->k = (int64_t)kh * kw * (C / G);
		w->n = CO / G;
		return;
	}
	if ((n->op == G_MATMUL || n->op == G_GEMM) && x && n->in[1] >= 0) {
		const struct g_tensor *b = &g->tensors[n->in[1]];
		int tb = n->op == G_GEMM && n->trans_b;
		int64_t K = x->dim[x->rank - 1], batches = 1;
		if (b->rank >= 2 && K > 0) {
			int64_t N = tb ? b->dim[b->rank - 2] : b->dim[b->rank - 1];
			if (!(b->flags & G_T_CONST))
				for (int i = 0; i < b->rank - 2; i++)
					batches *= b->dim[i];
			w->unit = CEIL_ARRAY;
			w->m = graph_elems(x) / K / batches * images;
			w->k = K;
			w->n = N;
			w->macs = (uint64_t)batches * (uint64_t)w->m *
				  (uint64_t)K * (uint64_t)N;
			return;
		}
	}
	if (n->op == G_ATTENTION && x && n->in[1] >= 0) {
		/* two GEMMs a head, S = Q K^T (N x D x NK) and O = P V (N x
		 * NK x D), quantised as the first (D on the array's rows, NK
		 * on its columns: the same tiles as the second's transpose);
		 * the softmax's vector passes overlap them in attention.s
		 * and are not counted */
		const struct g_tensor *kt = &g->tensors[n->in[1]];
		int64_t D = x->dim[x->rank - 1], NK = kt->dim[kt->rank - 1];
		int64_t rows = graph_elems(x) / D;
		w->unit = CEIL_ARRAY;
		w->m = rows * images;
		w->k = D;
		w->n = NK;
		w->macs = 2 * (uint64_t)w->m * (uint64_t)D * (uint64_t)NK;
		return;
	}
	if (is_movement(n->op))
		return;
	/* one lane operation per output element at least; a reduction
	 * consumes every input element */
	w->ops = (uint64_t)graph_elems(y) * (uint64_t)images;
	if ((n->op == G_GAP || n->op == G_REDUCEMEAN) && x)
		w->ops = (uint64_t)graph_elems(x) * (uint64_t)images;
}

void model_layer_ceiling(struct model_layer_stats *st, const struct arch *a,
			 const struct graph *g, const struct map_plan *p,
			 int l, int cores, int images)
{
	const struct ctr_sink *s = st->s;
	double hz = ARCH_F(a, CHIP_CLOCK_GHZ) * 1e9;
	double bpc = ARCH_PEAK(a, DRAM_BYTES_PER_S) / hz;
	struct ceil_work w;
	struct ceil_result r;

	model_layer_work(g, p, l, images, &w);
	w.cores = cores;
	ceil_eval(a, &w, &r);
	st->model_macs = w.macs;
	st->compulsory_bytes = w.bytes;
	st->ceiling = r.cycles;
	st->quant = r.eff;
	st->bound = ceil_bound_name(r.bound);
	st->pct_ceiling = st->cycles ? 100 * r.cycles / (double)st->cycles : 0;
	if (!st->cycles) {
		snprintf(st->why, sizeof st->why, "-");
		return;
	}

	/*
	 * What the counters say the time went on beyond the ceiling, each
	 * a number of cycles; the largest names the layer's shortfall:
	 *   unit  the busiest core's array (vector) busy beyond its ideal:
	 *         fill and drain, partial tiles, computed padding, cores
	 *         unevenly loaded
	 *   dram  the bytes moved beyond the compulsory ones, at the peak
	 *   dma   the busiest DMA engine busy beyond the time the DRAM
	 *         needs for what was moved: transfers too small or too few
	 *         in flight to stream at the peak
	 *   sync  the time neither the busiest unit nor the busiest DMA
	 *         engine was busy: units waiting on each other
	 *         (semaphores, fences), transfers not overlapped with work
	 */
	double A = (double)st->cycles, U = (double)st->compute_cycles;
	double moved = (double)(st->dram_read + st->dram_write);
	double D = moved / bpc, Q = (double)ctr_max(s, CTR_DMA_BUSY_CYCLES);
	double cand[4] = {
		U - r.compute,
		D - r.dram,
		Q - D,
		A - (U > Q ? U : Q),
	};
	int best = 0;
	for (int i = 1; i < 4; i++)
		if (cand[i] > cand[best])
			best = i;
	char *b = st->why;
	size_t n = sizeof st->why;
	int k = 0;
	if (cand[best] <= 0.1 * A)
		k = snprintf(b, n, "at its ceiling");
	else if (best == 0 && w.unit == CEIL_ARRAY)
		k = snprintf(b, n, "array: busy %.2fx its ideal, array "
			     "MACs %.2fx", r.compute > 0 ? U / r.compute : 0,
			     w.macs ? (double)st->array_macs /
				      (double)w.macs : 0);
	else if (best == 0)
		k = snprintf(b, n, "vector: busy %.2fx its ideal",
			     r.compute > 0 ? U / r.compute : 0);
	else if (best == 1)
		k = snprintf(b, n, "dram: %.2fx the compulsory bytes",
			     w.bytes ? moved / (double)w.bytes : 0);
	else if (best == 2)
		k = snprintf(b, n, "dma: engines busy %.0f%%, DRAM at %.0f%% "
			     "of its peak", 100 * Q / A, 100 * D / A);
	else
		k = snprintf(b, n, "sync: %.0f%% of the time no unit busy, "
			     "control waiting %.0f cycles per core",
			     100 * cand[3] / A,
			     (double)st->stall_sync / (cores > 0 ? cores : 1));
	/* the ceiling's own limit: tile quantisation on the array */
	if (r.bound == CEIL_BOUND_ARRAY && r.eff < 0.95 && k > 0 &&
	    (size_t)k < n)
		snprintf(b + k, n - (size_t)k, "; array shape %.3g", r.eff);
}

void model_print_explain(FILE *f, const struct graph *g,
			 const struct map_plan *p,
			 const struct model_result *res)
{
	double ceil_sum = 0;
	uint64_t cyc = 0;

	fprintf(f, "\n%-24s %-22s %-20s %-30s %11s %11s %7s %-6s %s\n",
		"layer", "op", "kernel", "schedule", "ceiling", "cycles",
		"%ceil", "bound", "why");
	for (int l = 0; l < res->n_layers; l++) {
		const struct map_layer *L = &p->layers[l];
		const struct model_layer_stats *s = &res->layers[l];
		ceil_sum += s->ceiling;
		cyc += s->cycles;
		/* why, then the lowering rows that did not take the layer
		 * (compiler/lower.def) */
		fprintf(f, "%-24.24s %-22.22s %-20.20s %-30.30s %11.0f %11llu "
			"%6.1f%% %-6s %s%s%s\n", L->name, L->op, L->kernels,
			L->tiling, s->ceiling, (unsigned long long)s->cycles,
			s->pct_ceiling, s->bound ? s->bound : "-", s->why,
			L->lower_note[0] ? "; lowering: " : "", L->lower_note);
	}
	fprintf(f, "%-24s %-22s %-20s %-30s %11.0f %11llu %6.1f%%\n",
		"total", "", "", "", ceil_sum, (unsigned long long)cyc,
		cyc ? 100 * ceil_sum / (double)cyc : 0);
	(void)g;
}
