/*
 * fold.c - evaluate a node whose inputs are all constants (fold.h).
 *
 * Each op's rule is named by its ops.def row (the fold column, expanded
 * into fold_rules[]): a scalar function of the elementwise ops (un_*,
 * bin_*), or a handler that evaluates one output (fold_*).
 *
 * Elements are addressed by row-major coordinates; a broadcast input maps
 * an output coordinate to its own offset by ignoring its size-1 axes and
 * the leading axes it lacks (NumPy rules, as ONNX uses them).
 */
#include "fold.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/num.h"

/* sqrt(2 / pi), the tanh GELU's slope (Hendrycks and Gimpel 2016) */
#define FOLD_GELU_K 0.7978845608028654

static int dt_is_int(enum g_dtype t)
{
	return t == G_DT_U8 || t == G_DT_I8 || t == G_DT_I32 ||
	       t == G_DT_I64 || t == G_DT_BOOL;
}

void fold_store(enum g_dtype t, void *data, int64_t i, double v)
{
	unsigned char *p = data;
	switch (t) {
	case G_DT_F32: {
		/* C's double -> float is the same RNE with overflow to inf as
		 * num_store's IEEE mode, without its generic encoder: weights
		 * (BatchNormalization folding) go through here by millions */
		float f = (float)v;
		memcpy(p + 4 * i, &f, 4);
		break;
	}
	case G_DT_F16: num_store(DT_FP16, p, (uint64_t)i, v, NUM_OVF_IEEE); break;
	case G_DT_BF16: num_store(DT_BF16, p, (uint64_t)i, v, NUM_OVF_IEEE); break;
	case G_DT_I8: num_store(DT_INT8, p, (uint64_t)i, v, NUM_OVF_SAT); break;
	case G_DT_I32: num_store(DT_INT32, p, (uint64_t)i, v, NUM_OVF_SAT); break;
	case G_DT_BOOL: p[i] = v != 0; break;
	case G_DT_U8: {
		double r = isnan(v) ? 0 : v < 0 ? 0 : v > 255 ? 255 : num_rne(v);
		p[i] = (unsigned char)r;
		break;
	}
	case G_DT_I64: {
		/* 2^63 is the first double beyond int64's range */
		int64_t x = isnan(v) ? 0 : v >= 9223372036854775808.0 ? INT64_MAX :
			    v < -9223372036854775808.0 ? INT64_MIN :
			    (int64_t)num_rne(v);
		memcpy(p + 8 * i, &x, 8);
		break;
	}
	default:
		break;
	}
}

/* Element i of a constant as a double (exact for every dtype but int64
 * beyond 2^53, which only movement ops, copying bytes, meet). */
static double at(const struct g_tensor *t, int64_t i)
{
	double v = 0;
	if (graph_const_f64(t, i, &v))
		return 0;
	return v;
}

/* Advance row-major coordinates c over dims (an odometer). */
static void next_coord(int64_t *c, const int64_t *dim, int rank)
{
	for (int i = rank - 1; i >= 0; i--) {
		if (++c[i] < dim[i])
			return;
		c[i] = 0;
	}
}

/* Offset in t (broadcast to an output of rank ro) of output coords c. */
static int64_t bcast_off(const struct g_tensor *t, const int64_t *c, int ro)
{
	int64_t off = 0;
	for (int i = 0; i < t->rank; i++) {
		int64_t ci = c[ro - t->rank + i];
		off = off * t->dim[i] + (t->dim[i] == 1 ? 0 : ci);
	}
	return off;
}

/* Offset of coordinates c in a tensor of shape (rank, dim). */
static int64_t ravel(const int64_t *c, const int64_t *dim, int rank)
{
	int64_t off = 0;
	for (int i = 0; i < rank; i++)
		off = off * dim[i] + c[i];
	return off;
}

int fold_slice_ranges(const struct graph *g, const struct g_node *n,
		      int64_t *start, int64_t *step, int64_t *count,
		      char *why, size_t why_n)
{
	const struct g_tensor *x = &g->tensors[n->in[0]];
	const struct g_tensor *ts = &g->tensors[n->in[1]];
	const struct g_tensor *te = &g->tensors[n->in[2]];
	const struct g_tensor *ta = n->n_in > 3 && n->in[3] >= 0 ?
				    &g->tensors[n->in[3]] : NULL;
	const struct g_tensor *tp = n->n_in > 4 && n->in[4] >= 0 ?
				    &g->tensors[n->in[4]] : NULL;
	const struct g_tensor *need[4] = { ts, te, ta, tp };
	static const char *const role[4] = { "starts", "ends", "axes", "steps" };
	snprintf(why, why_n, "cannot read its constant inputs");
	for (int i = 0; i < 4; i++)
		if (need[i] && (!(need[i]->flags & G_T_CONST) || !need[i]->data)) {
			snprintf(why, why_n, "its %s input '%s' is not a constant "
				 "(only constant slices are supported)", role[i],
				 need[i]->name);
			return NPU_EMODEL;
		}
	int64_t m = graph_elems(ts);
	if (graph_elems(te) != m || (ta && graph_elems(ta) != m) ||
	    (tp && graph_elems(tp) != m) || m > x->rank) {
		snprintf(why, why_n, "starts, ends, axes and steps must have one "
			 "value per sliced axis (starts has %lld, ends %lld, "
			 "data rank %d)", (long long)m,
			 (long long)graph_elems(te), x->rank);
		return NPU_EMODEL;
	}
	for (int a = 0; a < x->rank; a++) {
		start[a] = 0;
		step[a] = 1;
		count[a] = x->dim[a];
	}
	unsigned seen = 0;
	for (int64_t i = 0; i < m; i++) {
		int64_t ax = i, s = 0, e = 0, st = 1;
		if (ta && graph_const_i64(ta, i, &ax))
			return NPU_EMODEL;
		if (graph_const_i64(ts, i, &s) || graph_const_i64(te, i, &e) ||
		    (tp && graph_const_i64(tp, i, &st)))
			return NPU_EMODEL;
		if (ax < -x->rank || ax >= x->rank) {
			snprintf(why, why_n, "axis %lld is out of range for rank %d",
				 (long long)ax, x->rank);
			return NPU_EMODEL;
		}
		if (ax < 0)
			ax += x->rank;
		if (seen & (1u << ax)) {
			snprintf(why, why_n, "axis %lld is sliced twice",
				 (long long)ax);
			return NPU_EMODEL;
		}
		seen |= 1u << ax;
		if (st == 0) {
			snprintf(why, why_n, "step 0 on axis %lld", (long long)ax);
			return NPU_EMODEL;
		}
		int64_t d = x->dim[ax];
		/* A step beyond the dimension takes one element either way;
		 * clamping it keeps the arithmetic below from overflowing. */
		if (st > d + 1)
			st = d + 1;
		if (st < -(d + 1))
			st = -(d + 1);
		/* ONNX Slice: negative indices count from the end, then
		 * clamp to [0, d] going forward, [-1, d-1] going backward. */
		if (s < 0)
			s = s < -d ? -1 - d : s + d;
		if (e < 0)
			e = e < -d ? -1 - d : e + d;
		int64_t c;
		if (st > 0) {
			s = s < 0 ? 0 : s > d ? d : s;
			e = e < 0 ? 0 : e > d ? d : e;
			c = e > s ? (e - s + st - 1) / st : 0;
		} else {
			s = s < 0 ? 0 : s > d - 1 ? d - 1 : s;
			e = e < -1 ? -1 : e > d - 1 ? d - 1 : e;
			c = s > e ? (s - e - st - 1) / -st : 0;
		}
		start[ax] = s;
		step[ax] = st;
		count[ax] = c;
	}
	return 0;
}

/* ---- elementwise ops, evaluated in double ------------------------------- */

/* The activations and Sqrt (ops.def's UNARY), by their ONNX definitions. */
static double un_relu(const struct g_node *n, double x)
{
	(void)n;
	return x > 0 ? x : 0;
}

static double un_sigmoid(const struct g_node *n, double x)
{
	(void)n;
	return 1 / (1 + exp(-x));
}

static double un_tanh(const struct g_node *n, double x)
{
	(void)n;
	return tanh(x);
}

static double un_erf(const struct g_node *n, double x)
{
	(void)n;
	return erf(x);
}

static double un_sqrt(const struct g_node *n, double x)
{
	(void)n;
	return sqrt(x);
}

static double un_clip(const struct g_node *n, double x)
{
	return x < n->lo ? n->lo : x > n->hi ? n->hi : x;
}

static double un_hardsigmoid(const struct g_node *n, double x)
{
	double y = n->alpha * x + n->beta;
	return y < 0 ? 0 : y > 1 ? 1 : y;
}

static double un_hardswish(const struct g_node *n, double x)
{
	double y = x + 3;
	(void)n;
	return x * (y < 0 ? 0 : y > 6 ? 6 : y) / 6;
}

static double un_gelu(const struct g_node *n, double x)
{
	if (n->approx_tanh)
		return 0.5 * x * (1 + tanh(FOLD_GELU_K *
					   (x + 0.044715 * x * x * x)));
	return 0.5 * x * (1 + erf(x / sqrt(2)));
}

/* The arithmetic ops (ops.def's BINARY) in dtype t: 0, or -1 when the
 * node is not foldable (an integer division by zero stays for run time). */
static int bin_add(enum g_dtype t, double a, double b, double *y)
{
	(void)t;
	*y = a + b;
	return 0;
}

static int bin_sub(enum g_dtype t, double a, double b, double *y)
{
	(void)t;
	*y = a - b;
	return 0;
}

static int bin_mul(enum g_dtype t, double a, double b, double *y)
{
	(void)t;
	*y = a * b;
	return 0;
}

static int bin_pow(enum g_dtype t, double a, double b, double *y)
{
	(void)t;
	*y = pow(a, b);
	return 0;
}

static int bin_div(enum g_dtype t, double a, double b, double *y)
{
	if (dt_is_int(t)) {
		if (b == 0)
			return -1;  /* leave the fault to run time */
		*y = trunc(a / b);
	} else {
		*y = a / b;
	}
	return 0;
}

/* ---- movement ops: each output element is one input element ------------- */

/* The bytes of one element of y, or 0 when its input's differ (a byte
 * copy could not convert them). */
static size_t copy_bytes(const struct graph *g, const struct g_node *n,
			 const struct g_tensor *y)
{
	size_t es = (size_t)g_dtype_bytes(y->dtype);
	return es == (size_t)g_dtype_bytes(g->tensors[n->in[0]].dtype) ? es : 0;
}

/* Reshape, Flatten, Squeeze, Unsqueeze, Identity: the same bytes. */
static int fold_view(const struct graph *g, const struct g_node *n, int o,
		     struct g_tensor *y)
{
	size_t es = copy_bytes(g, n, y);
	(void)o;
	if (!es)
		return 0;
	memcpy(y->data, g->tensors[n->in[0]].data, (size_t)graph_elems(y) * es);
	return 1;
}

/* Dropout at inference: the input, and a mask of ones. */
static int fold_dropout(const struct graph *g, const struct g_node *n, int o,
			struct g_tensor *y)
{
	if (o == 0)
		return fold_view(g, n, o, y);
	for (int64_t i = 0; i < graph_elems(y); i++)
		fold_store(y->dtype, y->data, i, 1);
	return 1;
}

static int fold_transpose(const struct graph *g, const struct g_node *n, int o,
			  struct g_tensor *y)
{
	const struct g_tensor *x = &g->tensors[n->in[0]];
	size_t es = copy_bytes(g, n, y);
	int64_t c[G_MAX_RANK] = { 0 }, ic[G_MAX_RANK], ne = graph_elems(y);
	int perm[G_MAX_RANK];
	unsigned char *dst = y->data;
	(void)o;
	if (!es)
		return 0;
	for (int i = 0; i < x->rank; i++)
		perm[i] = n->n_perm ? n->perm[i] : x->rank - 1 - i;
	for (int64_t i = 0; i < ne; i++) {
		for (int j = 0; j < y->rank; j++)
			ic[perm[j]] = c[j];
		memcpy(dst + i * es, (const unsigned char *)x->data +
		       ravel(ic, x->dim, x->rank) * es, es);
		next_coord(c, y->dim, y->rank);
	}
	return 1;
}

static int fold_concat(const struct graph *g, const struct g_node *n, int o,
		       struct g_tensor *y)
{
	size_t es = copy_bytes(g, n, y);
	int64_t c[G_MAX_RANK] = { 0 }, ic[G_MAX_RANK], ne = graph_elems(y);
	unsigned char *dst = y->data;
	(void)o;
	if (!es)
		return 0;
	for (int64_t i = 0; i < ne; i++) {
		int64_t p = c[n->axis];
		int j = 0;
		while (p >= g->tensors[n->in[j]].dim[n->axis])
			p -= g->tensors[n->in[j++]].dim[n->axis];
		const struct g_tensor *s = &g->tensors[n->in[j]];
		memcpy(ic, c, sizeof ic);
		ic[n->axis] = p;
		memcpy(dst + i * es, (const unsigned char *)s->data +
		       ravel(ic, s->dim, s->rank) * es, es);
		next_coord(c, y->dim, y->rank);
	}
	return 1;
}

/* Output o: the part of the input after the outputs before it. */
static int fold_split(const struct graph *g, const struct g_node *n, int o,
		      struct g_tensor *y)
{
	const struct g_tensor *x = &g->tensors[n->in[0]];
	size_t es = copy_bytes(g, n, y);
	int64_t c[G_MAX_RANK] = { 0 }, ic[G_MAX_RANK], ne = graph_elems(y);
	int64_t base = 0;
	unsigned char *dst = y->data;
	if (!es)
		return 0;
	for (int j = 0; j < o; j++)
		base += g->tensors[n->out[j]].dim[n->axis];
	for (int64_t i = 0; i < ne; i++) {
		memcpy(ic, c, sizeof ic);
		ic[n->axis] += base;
		memcpy(dst + i * es, (const unsigned char *)x->data +
		       ravel(ic, x->dim, x->rank) * es, es);
		next_coord(c, y->dim, y->rank);
	}
	return 1;
}

static int fold_slice(const struct graph *g, const struct g_node *n, int o,
		      struct g_tensor *y)
{
	const struct g_tensor *x = &g->tensors[n->in[0]];
	size_t es = copy_bytes(g, n, y);
	int64_t c[G_MAX_RANK] = { 0 }, ic[G_MAX_RANK], ne = graph_elems(y);
	int64_t st[G_MAX_RANK], sp[G_MAX_RANK], cnt[G_MAX_RANK];
	unsigned char *dst = y->data;
	char why[8];
	(void)o;
	if (!es || fold_slice_ranges(g, n, st, sp, cnt, why, sizeof why))
		return 0;
	for (int64_t i = 0; i < ne; i++) {
		for (int j = 0; j < x->rank; j++)
			ic[j] = st[j] + c[j] * sp[j];
		memcpy(dst + i * es, (const unsigned char *)x->data +
		       ravel(ic, x->dim, x->rank) * es, es);
		next_coord(c, y->dim, y->rank);
	}
	return 1;
}

static int fold_gather(const struct graph *g, const struct g_node *n, int o,
		       struct g_tensor *y)
{
	const struct g_tensor *x = &g->tensors[n->in[0]];
	const struct g_tensor *ix = &g->tensors[n->in[1]];
	size_t es = copy_bytes(g, n, y);
	int64_t c[G_MAX_RANK] = { 0 }, ic[G_MAX_RANK], ne = graph_elems(y);
	int q = ix->rank, ax = n->axis;
	unsigned char *dst = y->data;
	(void)o;
	if (!es)
		return 0;
	for (int64_t i = 0; i < ne; i++) {
		int64_t k;
		if (graph_const_i64(ix, ravel(c + ax, ix->dim, q), &k))
			return 0;
		if (k < 0)
			k += x->dim[ax];
		if (k < 0 || k >= x->dim[ax])
			return 0;   /* inference reports it */
		for (int j = 0; j < ax; j++)
			ic[j] = c[j];
		ic[ax] = k;
		for (int j = ax + 1; j < x->rank; j++)
			ic[j] = c[j - 1 + q];
		memcpy(dst + i * es, (const unsigned char *)x->data +
		       ravel(ic, x->dim, x->rank) * es, es);
		next_coord(c, y->dim, y->rank);
	}
	return 1;
}

/* ---- compute ops, each output element a sum or a reduction -------------- */

/* The most multiply-adds a fold may take (a fraction of a second), so a
 * constant convolution of a big weight is left to the hardware. */
#define FOLD_MAX_WORK ((int64_t)1 << 26)

static const struct g_tensor *opt_in(const struct graph *g,
				     const struct g_node *n, int i)
{
	return i < n->n_in && n->in[i] >= 0 ? &g->tensors[n->in[i]] : NULL;
}

/* Offset of the batch axes of t (all but its last two, or none when it
 * is 1-D) broadcast against the nb output batch coordinates c. */
static int64_t batch_off(const struct g_tensor *t, const int64_t *c, int nb)
{
	int tb = t->rank > 2 ? t->rank - 2 : 0;
	int64_t off = 0;
	for (int i = 0; i < tb; i++)
		off = off * t->dim[i] + (t->dim[i] == 1 ? 0 : c[nb - tb + i]);
	return off;
}

/* MatMul as numpy.matmul, the fused bias (input 2) added per column. */
static int fold_matmul(const struct graph *g, const struct g_node *n,
		       int out, struct g_tensor *y)
{
	const struct g_tensor *a = opt_in(g, n, 0), *b = opt_in(g, n, 1),
			      *bias = opt_in(g, n, 2);
	int ra = a->rank, rb = b->rank;
	int64_t m = ra >= 2 ? a->dim[ra - 2] : 1, kk = a->dim[ra - 1];
	int64_t nn = rb >= 2 ? b->dim[rb - 1] : 1;
	int nb = y->rank - (ra >= 2) - (rb >= 2);
	int64_t ne = graph_elems(y), c[G_MAX_RANK] = { 0 };
	(void)out;
	if (ne * kk > FOLD_MAX_WORK)
		return 0;
	for (int64_t i = 0; i < ne; i++) {
		int64_t r = ra >= 2 ? c[nb] : 0, col = rb >= 2 ? c[y->rank - 1] : 0;
		int64_t ao = (batch_off(a, c, nb) * m + r) * kk;
		int64_t bo = batch_off(b, c, nb) * kk * nn + col;
		double acc = bias ? at(bias, col) : 0;
		for (int64_t k = 0; k < kk; k++)
			acc += at(a, ao + k) * at(b, bo + k * nn);
		fold_store(y->dtype, y->data, i, acc);
		next_coord(c, y->dim, y->rank);
	}
	return 1;
}

/* alpha * A' B' + beta * C. */
static int fold_gemm(const struct graph *g, const struct g_node *n,
		     int out, struct g_tensor *y)
{
	const struct g_tensor *a = opt_in(g, n, 0), *b = opt_in(g, n, 1),
			      *cc = opt_in(g, n, 2);
	int64_t m = y->dim[0], nn = y->dim[1];
	int64_t kk = a->dim[n->trans_a ? 0 : 1];
	(void)out;
	if (m * nn * kk > FOLD_MAX_WORK)
		return 0;
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < nn; j++) {
			double acc = 0;
			for (int64_t k = 0; k < kk; k++)
				acc += at(a, n->trans_a ? k * m + i : i * kk + k) *
				       at(b, n->trans_b ? j * kk + k : k * nn + j);
			int64_t oc[2] = { i, j };
			double cv = cc ? at(cc, bcast_off(cc, oc, 2)) : 0;
			fold_store(y->dtype, y->data, i * nn + j,
				   n->alpha * acc + n->beta * cv);
		}
	return 1;
}

/* Conv and the pools: y[n][m][oh][ow] over the window at
 * (oh * s - pad_top + kh * dil, ow * s - pad_left + kw * dil); 2-D only. */
static int fold_window(const struct graph *g, const struct g_node *n,
		       int out, struct g_tensor *y)
{
	const struct g_tensor *x = opt_in(g, n, 0), *w = opt_in(g, n, 1),
			      *b = opt_in(g, n, 2);
	(void)out;
	if (y->rank != 4)
		return 0;
	int64_t nb = y->dim[0], m = y->dim[1], oh = y->dim[2], ow = y->dim[3];
	int64_t c = x->dim[1], h = x->dim[2], wd = x->dim[3];
	int kh = n->kernel[0], kw = n->kernel[1];
	int64_t cg = n->op == G_CONV ? c / n->group : 1;
	int64_t mg = n->op == G_CONV ? m / n->group : 1;
	if (graph_elems(y) * cg * kh * kw > FOLD_MAX_WORK)
		return 0;
	int64_t i = 0;
	for (int64_t in = 0; in < nb; in++)
	for (int64_t im = 0; im < m; im++)
	for (int64_t y0 = 0; y0 < oh; y0++)
	for (int64_t x0 = 0; x0 < ow; x0++, i++) {
		double acc = n->op == G_MAXPOOL ? -INFINITY :
			     b ? at(b, im) : 0;
		int64_t cnt = 0;
		for (int64_t ic = 0; ic < cg; ic++)
		for (int r = 0; r < kh; r++)
		for (int s = 0; s < kw; s++) {
			int64_t yy = y0 * n->stride[0] - n->pad[0] +
				     (int64_t)r * n->dil[0];
			int64_t xx = x0 * n->stride[1] - n->pad[1] +
				     (int64_t)s * n->dil[1];
			/* AveragePool's count_include_pad counts the
			 * padding, not what lies beyond it (ceil_mode) */
			if (yy >= -n->pad[0] && yy < h + n->pad[2] &&
			    xx >= -n->pad[1] && xx < wd + n->pad[3] &&
			    n->count_include_pad)
				cnt++;
			if (yy < 0 || yy >= h || xx < 0 || xx >= wd)
				continue;
			int64_t ch = n->op == G_CONV ? im / mg * cg + ic : im;
			double v = at(x, ((in * c + ch) * h + yy) * wd + xx);
			if (n->op == G_CONV)
				acc += v * at(w, ((im * cg + ic) * kh + r) * kw + s);
			else if (n->op == G_MAXPOOL)
				acc = v > acc ? v : acc;
			else
				acc += v;
			if (!n->count_include_pad)
				cnt++;
		}
		if (n->op == G_AVGPOOL)
			acc = cnt ? acc / (double)cnt : 0;
		fold_store(y->dtype, y->data, i, acc);
	}
	return 1;
}

/* ReduceMean and GlobalAveragePool: the mean over the reduced axes. */
static int fold_mean(const struct graph *g, const struct g_node *n,
		     int out, struct g_tensor *y)
{
	const struct g_tensor *x = opt_in(g, n, 0);
	int red[G_MAX_RANK] = { 0 };
	(void)out;
	for (int i = 0; i < x->rank; i++)
		red[i] = n->op == G_GAP ? i >= 2 : 0;
	if (n->op == G_REDUCEMEAN)
		for (int i = 0; i < n->n_axes; i++)
			red[n->axes[i]] = 1;
	int64_t ne = graph_elems(y), xe = graph_elems(x);
	double *sum = calloc((size_t)ne + 1, sizeof *sum);
	if (!sum)
		return -1;
	int64_t c[G_MAX_RANK] = { 0 };
	for (int64_t i = 0; i < xe; i++) {
		int64_t o = 0;
		for (int j = 0; j < x->rank; j++)
			if (!red[j])
				o = o * x->dim[j] + c[j];
		sum[o] += at(x, i);
		next_coord(c, x->dim, x->rank);
	}
	for (int64_t i = 0; i < ne; i++)
		fold_store(y->dtype, y->data, i, sum[i] * (double)ne / (double)xe);
	free(sum);
	return 1;
}

/* Rows of x along axis ax (and, whole, every axis after it): outer x
 * len elements, inner apart. */
static void row_extent(const struct g_tensor *x, int ax, int whole,
		       int64_t *outer, int64_t *len, int64_t *inner)
{
	*outer = *len = *inner = 1;
	for (int i = 0; i < x->rank; i++) {
		if (i < ax)
			*outer *= x->dim[i];
		else if (i == ax || whole)
			*len *= x->dim[i];
		else
			*inner *= x->dim[i];
	}
}

/* BatchNormalization: per channel (axis 1). */
static int fold_batchnorm(const struct graph *g, const struct g_node *n,
			  int o, struct g_tensor *y)
{
	const struct g_tensor *x = opt_in(g, n, 0);
	const struct g_tensor *sc = opt_in(g, n, 1), *bi = opt_in(g, n, 2),
			      *mu = opt_in(g, n, 3), *va = opt_in(g, n, 4);
	int64_t outer, len, inner;
	(void)o;
	row_extent(x, 1, 0, &outer, &len, &inner);
	for (int64_t i = 0; i < graph_elems(x); i++) {
		int64_t ch = i / inner % len;
		fold_store(y->dtype, y->data, i, (at(x, i) - at(mu, ch)) /
			   sqrt(at(va, ch) + n->eps) * at(sc, ch) + at(bi, ch));
	}
	return 1;
}

/* Softmax (opset >= 13: along axis; before: over the flattened axes from
 * axis on) and LayerNormalization (over the axes from axis on) work on
 * rows (row_extent). */
static int fold_rows(const struct graph *g, const struct g_node *n,
		     int nth, struct g_tensor *y)
{
	const struct g_tensor *x = opt_in(g, n, 0);
	int r = x->rank, ax = n->axis;
	int whole = n->op == G_LAYERNORM || (n->op == G_SOFTMAX &&
					     n->opset < 13);
	int64_t len, inner, outer;
	(void)nth;
	row_extent(x, ax, whole, &outer, &len, &inner);
	const struct g_tensor *sc = opt_in(g, n, 1), *bi = opt_in(g, n, 2);
	for (int64_t o = 0; o < outer; o++)
		for (int64_t in = 0; in < inner; in++) {
			int64_t base = o * len * inner + in;
			double a = 0, b = 0, mx = -INFINITY;
			for (int64_t j = 0; j < len; j++) {
				double v = at(x, base + j * inner);
				mx = v > mx ? v : mx;
				a += v;
			}
			a /= (double)len;          /* LayerNorm: the mean */
			for (int64_t j = 0; j < len; j++) {
				double v = at(x, base + j * inner);
				b += n->op == G_SOFTMAX ? exp(v - mx) :
				     (v - a) * (v - a);
			}
			for (int64_t j = 0; j < len; j++) {
				double v = at(x, base + j * inner), out;
				if (n->op == G_SOFTMAX) {
					out = exp(v - mx) / b;
				} else {
					/* scale, bias over the normalised
					 * shape: its last axes */
					int64_t t[G_MAX_RANK], jj = j;
					for (int q = r - 1; q >= ax; q--) {
						t[q - ax] = jj % x->dim[q];
						jj /= x->dim[q];
					}
					out = (v - a) / sqrt(b / (double)len + n->eps);
					if (sc)
						out *= at(sc, bcast_off(sc, t, r - ax));
					if (bi)
						out += at(bi, bcast_off(bi, t, r - ax));
				}
				fold_store(y->dtype, y->data, base + j * inner,
					   out);
			}
		}
	return 1;
}

/* Constant padding: an output coordinate minus the begin pads is inside
 * the input or takes the constant value (0 by default). */
static int fold_pad(const struct graph *g, const struct g_node *n,
		    int out, struct g_tensor *y)
{
	const struct g_tensor *x = opt_in(g, n, 0), *p = opt_in(g, n, 1),
			      *cv = opt_in(g, n, 2);
	double fill = cv && graph_elems(cv) ? at(cv, 0) : 0;
	int64_t c[G_MAX_RANK] = { 0 }, ic[G_MAX_RANK], ne = graph_elems(y);
	(void)out;
	for (int64_t i = 0; i < ne; i++) {
		int inside = 1;
		for (int j = 0; j < y->rank; j++) {
			int64_t b = 0;
			graph_const_i64(p, j, &b);
			ic[j] = c[j] - b;
			inside &= ic[j] >= 0 && ic[j] < x->dim[j];
		}
		fold_store(y->dtype, y->data, i,
			   inside ? at(x, ravel(ic, x->dim, x->rank)) : fill);
		next_coord(c, y->dim, y->rank);
	}
	return 1;
}

/* ---- the ops' rules (ops.def's fold column) ----------------------------- */

/* Evaluate output o of node n into y (allocated, zeroed): 1 when folded,
 * 0 when n is not foldable after all (too much work, a shape or a value
 * this evaluator does not cover), -1 when out of memory. */
typedef int fold_fn(const struct graph *g, const struct g_node *n, int o,
		    struct g_tensor *y);

/* An op's fold column. */
struct fold_rule {
	fold_fn *eval;          /* NULL: never folded */
	double (*un)(const struct g_node *n, double x);  /* UNARY: y(x) */
	/* BINARY: y(a, b) in dtype t; 0, or -1 when not foldable */
	int (*bin)(enum g_dtype t, double a, double b, double *y);
};

static fold_fn fold_unary, fold_binary;

#define UNARY(f) { fold_unary, un_##f, NULL }
#define BINARY(f) { fold_binary, NULL, bin_##f }
#define EVAL(f) { fold_##f, NULL, NULL }
#define NONE { NULL, NULL, NULL }
static const struct fold_rule fold_rules[G_N_OPS] = {
#define GOP(id, onnx, min_in, max_in, n_out, infer, fold, map, doc) \
	[G_##id] = fold,
#include "ops.def"
#undef GOP
};
#undef UNARY
#undef BINARY
#undef EVAL
#undef NONE

/* y = un(x) at every element. */
static int fold_unary(const struct graph *g, const struct g_node *n, int o,
		      struct g_tensor *y)
{
	const struct g_tensor *a = &g->tensors[n->in[0]];
	double (*un)(const struct g_node *, double) = fold_rules[n->op].un;
	int64_t c[G_MAX_RANK] = { 0 }, ne = graph_elems(y);
	(void)o;
	for (int64_t i = 0; i < ne; i++) {
		fold_store(y->dtype, y->data, i,
			   un(n, at(a, bcast_off(a, c, y->rank))));
		next_coord(c, y->dim, y->rank);
	}
	return 1;
}

/* y = bin(a, b), each output coordinate reading its inputs through their
 * broadcast offsets. */
static int fold_binary(const struct graph *g, const struct g_node *n, int o,
		       struct g_tensor *y)
{
	const struct g_tensor *a = &g->tensors[n->in[0]];
	const struct g_tensor *b = &g->tensors[n->in[1]];
	int (*bin)(enum g_dtype, double, double, double *) =
		fold_rules[n->op].bin;
	int64_t c[G_MAX_RANK] = { 0 }, ne = graph_elems(y);
	(void)o;
	for (int64_t i = 0; i < ne; i++) {
		double v;
		if (bin(y->dtype, at(a, bcast_off(a, c, y->rank)),
			at(b, bcast_off(b, c, y->rank)), &v))
			return 0;
		fold_store(y->dtype, y->data, i, v);
		next_coord(c, y->dim, y->rank);
	}
	return 1;
}

int fold_node(struct graph *g, int k, int64_t max_elems)
{
	const struct g_node *n = &g->nodes[k];
	fold_fn *eval = fold_rules[n->op].eval;
	if (!eval)
		return 0;
	if (n->act != G_ACT_NONE || n->res >= 0)
		return 0;
	for (int i = 0; i < n->n_in; i++) {
		if (n->in[i] < 0)
			continue;
		const struct g_tensor *t = &g->tensors[n->in[i]];
		if (!(t->flags & G_T_CONST) || !t->data || t->rank < 0)
			return 0;
	}
	for (int o = 0; o < n->n_out; o++) {
		if (n->out[o] < 0)
			continue;
		const struct g_tensor *t = &g->tensors[n->out[o]];
		if (t->rank < 0 || t->dtype == G_DT_NONE ||
		    graph_elems(t) > max_elems || (t->flags & G_T_CONST))
			return 0;
	}
	void *buf[G_MAX_OUT] = { 0 };
	int ok = 1;
	for (int o = 0; o < n->n_out && ok; o++) {
		if (n->out[o] < 0)
			continue;
		struct g_tensor *t = &g->tensors[n->out[o]];
		/* at least one byte: a rank-0 scalar still has one element */
		buf[o] = calloc((size_t)graph_elems(t) + 1,
				(size_t)g_dtype_bytes(t->dtype));
		if (!buf[o]) {
			ok = -1;
			break;
		}
		t->data = buf[o];
		ok = eval(g, n, o, t);
	}
	for (int o = 0; o < n->n_out; o++) {
		if (n->out[o] < 0)
			continue;
		struct g_tensor *t = &g->tensors[n->out[o]];
		if (ok == 1) {
			t->flags |= G_T_CONST;
		} else {
			free(buf[o]);
			t->data = NULL;
		}
	}
	return ok < 0 ? NPU_ENOMEM : ok;
}
