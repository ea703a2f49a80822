/*
 * infer.c - shape and dtype inference (graph_infer, graph.h).
 *
 * Nodes are visited once, in their topological order.  Each op's rule
 * (infer_<rule>, named by its ops.def row; ONNX operator specification,
 * opsets 11-17) checks its inputs and sets its outputs' dtype, rank and
 * dims; the first inconsistency is reported at its node and ends the
 * pass.  Along the way:
 *   - Conv/pool auto_pad is resolved into pad[] (SAME_UPPER puts the odd
 *     padding element at the end, SAME_LOWER at the start);
 *   - negative axes become non-negative, and axes, split sizes and Clip
 *     bounds given as constant inputs are copied into the attributes, so
 *     the passes and the mapper read one form;
 *   - a node whose inputs are all constants with values and whose output
 *     is small is evaluated (fold.h), which makes Reshape shapes built
 *     from Concat/Unsqueeze/Gather of constants known.  A shape computed
 *     from run-time values cannot be (Shape is not an operator we import),
 *     and an op that needs a constant there says so.
 */
#include "graph.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fold.h"

static const struct {
	int min_in, max_in, n_out;
} op_arity[G_N_OPS] = {
#define GOP(id, onnx, min_in, max_in, n_out, infer, fold, map, doc) \
	[G_##id] = { min_in, max_in, n_out },
#include "ops.def"
#undef GOP
};

/* The largest tensor accepted: 2^40 elements is beyond any model and
 * keeps byte sizes far from int64 overflow. */
#define INFER_MAX_ELEMS ((int64_t)1 << 40)

#define FAIL(...) return graph_error(g, k, d, __VA_ARGS__)

/* A shape as text for messages: "[1,64,56,56]". */
struct shp {
	char s[96];
};

static struct shp shape_of(int rank, const int64_t *dim)
{
	struct shp r;
	size_t o = 0;
	r.s[o++] = '[';
	for (int i = 0; i < rank && o < sizeof r.s - 24; i++)
		o += (size_t)snprintf(r.s + o, sizeof r.s - o, "%s%lld",
				      i ? "," : "", (long long)dim[i]);
	snprintf(r.s + o, sizeof r.s - o, "]");
	return r;
}

static struct shp shp(const struct g_tensor *t)
{
	return shape_of(t->rank, t->dim);
}

/* Input i of node k, NULL when absent (an optional input left out). */
static struct g_tensor *in_t(struct graph *g, int k, int i)
{
	const struct g_node *n = &g->nodes[k];
	return i < n->n_in && n->in[i] >= 0 ? &g->tensors[n->in[i]] : NULL;
}

/* A constant whose values we have (G_T_SYNTH weights have none). */
static int is_const(const struct g_tensor *t)
{
	return t && (t->flags & G_T_CONST) && t->data;
}

static int dt_is_int(enum g_dtype t)
{
	return t == G_DT_U8 || t == G_DT_I8 || t == G_DT_I32 ||
	       t == G_DT_I64 || t == G_DT_BOOL;
}

static int64_t prod(const int64_t *dim, int from, int to)
{
	int64_t p = 1;
	for (int i = from; i < to; i++)
		p *= dim[i];
	return p;
}

/* Set output o of node k; checks every size is positive and the total
 * stays within INFER_MAX_ELEMS. */
static int set_out(struct graph *g, int k, struct diag *d, int o,
		   enum g_dtype dt, int rank, const int64_t *dim)
{
	const struct g_node *n = &g->nodes[k];
	if (o >= n->n_out || n->out[o] < 0)
		return 0;
	struct g_tensor *t = &g->tensors[n->out[o]];
	if (rank > G_MAX_RANK)
		FAIL("output '%s' would have rank %d, more than %d", t->name,
		     rank, G_MAX_RANK);
	int64_t e = 1;
	for (int i = 0; i < rank; i++) {
		if (dim[i] < 1)
			FAIL("output '%s' would have shape %s: every dimension "
			     "must be at least 1", t->name,
			     shape_of(rank, dim).s);
		if (dim[i] > INFER_MAX_ELEMS / e)
			FAIL("output '%s' would have shape %s, more than 2^40 "
			     "elements", t->name, shape_of(rank, dim).s);
		e *= dim[i];
	}
	if ((t->flags & G_T_CONST) && t->data)
		return 0;   /* folded by an earlier run: same shape */
	t->dtype = dt;
	t->rank = rank;
	for (int i = 0; i < G_MAX_RANK; i++)
		t->dim[i] = i < rank ? dim[i] : 0;
	return 0;
}

/* Unary elementwise ops and Identity: the input's type and shape. */
static int infer_same(struct graph *g, int k, struct diag *d)
{
	const struct g_tensor *x = in_t(g, k, 0);
	return set_out(g, k, d, 0, x->dtype, x->rank, x->dim);
}

/* The matched attention subgraph: Q [.., N, D], K^T [.., D, NK], V [..,
 * NK, DV] with the same leading (batch, head) dimensions; O [.., N, DV].
 * A tensor of node->seq is stored sequence-major, its head and row axes
 * (the two before the last) swapped: [B, N, heads, D]. */
static void seq_dims(const struct g_tensor *t, int seq, int64_t *dim)
{
	memcpy(dim, t->dim, sizeof t->dim);
	if (seq && t->rank >= 3) {
		dim[t->rank - 3] = t->dim[t->rank - 2];
		dim[t->rank - 2] = t->dim[t->rank - 3];
	}
}

static int infer_attention(struct graph *g, int k, struct diag *d)
{
	const struct g_node *n = &g->nodes[k];
	const struct g_tensor *q = in_t(g, k, 0), *kt = in_t(g, k, 1),
			      *v = in_t(g, k, 2);
	int64_t dq[G_MAX_RANK], dv[G_MAX_RANK], dim[G_MAX_RANK];
	int r = q->rank;
	if (r < 2 || kt->rank != r || v->rank != r || (n->seq && r < 3))
		FAIL("attention: Q %s, K^T %s and V %s must have one rank, at "
		     "least 2 (3 sequence-major)", shp(q).s, shp(kt).s,
		     shp(v).s);
	seq_dims(q, n->seq & G_SEQ_Q, dq);
	seq_dims(v, n->seq & G_SEQ_V, dv);
	for (int i = 0; i < r - 2; i++)
		if (kt->dim[i] != dq[i] || dv[i] != dq[i])
			FAIL("attention: Q %s, K^T %s and V %s differ in their "
			     "leading dimensions", shp(q).s, shp(kt).s, shp(v).s);
	if (kt->dim[r - 2] != dq[r - 1] || dv[r - 2] != kt->dim[r - 1])
		FAIL("attention: Q %s, K^T %s and V %s do not chain",
		     shp(q).s, shp(kt).s, shp(v).s);
	memcpy(dim, dq, sizeof dim);
	dim[r - 1] = dv[r - 1];
	if (n->seq & G_SEQ_O) {
		int64_t t = dim[r - 3];
		dim[r - 3] = dim[r - 2];
		dim[r - 2] = t;
	}
	return set_out(g, k, d, 0, q->dtype, r, dim);
}

/* NumPy broadcasting of two shapes; -1 when they do not broadcast. */
static int bcast(int ra, const int64_t *da, int rb, const int64_t *db,
		 int *ro, int64_t *out)
{
	int r = ra > rb ? ra : rb;
	for (int i = 0; i < r; i++) {
		int64_t a = i < r - ra ? 1 : da[i - (r - ra)];
		int64_t b = i < r - rb ? 1 : db[i - (r - rb)];
		if (a != b && a != 1 && b != 1)
			return -1;
		out[i] = a == 1 ? b : a;
	}
	*ro = r;
	return 0;
}

/* t broadcasts to (rank, dim) without changing it (Gemm's C, scales). */
static int bcast_to(const struct g_tensor *t, int rank, const int64_t *dim)
{
	if (t->rank > rank)
		return 0;
	for (int i = 0; i < t->rank; i++) {
		int64_t a = t->dim[i], b = dim[rank - t->rank + i];
		if (a != 1 && a != b)
			return 0;
	}
	return 1;
}

/* Normalise axis a of a tensor of rank r (allowed range [-r, r - 1 +
 * extra]); -1 when out of range. */
static int norm_axis(int64_t a, int r, int extra)
{
	if (a < -r || a >= r + extra)
		return -1;
	return (int)(a < 0 ? a + r : a);
}

/* The integer values of a constant input, at most max of them. */
static int const_ints(struct graph *g, int k, struct diag *d, int i,
		      const char *role, int64_t *v, int max, int *nv)
{
	const struct g_tensor *t = in_t(g, k, i);
	if (!is_const(t))
		FAIL("its %s input '%s' is not a constant: only constant %s "
		     "are supported (a value computed at run time, e.g. from "
		     "Shape, is not)", role, t->name, role);
	if (!dt_is_int(t->dtype))
		FAIL("its %s input '%s' is %s, not an integer tensor", role,
		     t->name, g_dtype_name(t->dtype));
	int64_t m = graph_elems(t);
	if (t->rank > 1 || m > max)
		FAIL("its %s input '%s' has shape %s: expected at most %d "
		     "values", role, t->name, shp(t).s, max);
	for (int64_t j = 0; j < m; j++)
		if (graph_const_i64(t, j, &v[j]))
			FAIL("cannot read %s input '%s'", role, t->name);
	*nv = (int)m;
	return 0;
}

/* ---- convolution and pooling ------------------------------------------ */

/*
 * Output size of one spatial axis (ax 0 = H, 1 = W) and its padding.
 * Explicit pads: out = floor((in + pb + pe - ek) / s) + 1, with ek =
 * (k - 1) * dil + 1; ceil_mode rounds up but, as PyTorch and ONNX Runtime
 * do, drops a last window that would start in the end padding.  SAME_*:
 * out = ceil(in / s), total padding (out - 1) * s + ek - in.  VALID: no
 * padding.
 */
static int spatial(struct graph *g, int k, struct diag *d, int ax,
		   int64_t in, int kern, int ceil_mode, int64_t *out)
{
	struct g_node *n = &g->nodes[k];
	static const char *const axn[2] = { "height", "width" };
	int s = n->stride[ax], dil = n->dil[ax];
	if (kern < 1 || s < 1 || dil < 1)
		FAIL("kernel %d, stride %d and dilation %d along the %s must "
		     "be positive", kern, s, dil, axn[ax]);
	int64_t ek = (int64_t)(kern - 1) * dil + 1;
	const char *ap = n->auto_pad;
	if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
		*out = (in + s - 1) / s;
		int64_t tot = (*out - 1) * s + ek - in;
		if (tot < 0)
			tot = 0;
		int64_t lo = ap[5] == 'U' ? tot / 2 : tot - tot / 2;
		n->pad[ax] = (int)lo;
		n->pad[2 + ax] = (int)(tot - lo);
		return 0;
	}
	if (!strcmp(ap, "VALID")) {
		n->pad[ax] = n->pad[2 + ax] = 0;
	} else if (ap[0] && strcmp(ap, "NOTSET")) {
		FAIL("auto_pad '%s' is not one of NOTSET, SAME_UPPER, "
		     "SAME_LOWER, VALID", ap);
	}
	int pb = n->pad[ax], pe = n->pad[2 + ax];
	if (pb < 0 || pe < 0)
		FAIL("negative padding %d, %d along the %s", pb, pe, axn[ax]);
	int64_t span = in + pb + pe - ek;
	if (span < 0)
		FAIL("the %s is %lld (padded %lld) but the kernel spans %lld",
		     axn[ax], (long long)in, (long long)(in + pb + pe),
		     (long long)ek);
	*out = ceil_mode ? (span + s - 1) / s + 1 : span / s + 1;
	if (ceil_mode && (*out - 1) * s >= in + pb)
		(*out)--;
	return 0;
}

/*
 * Conv: X [N, C, H, W], W [M, C / group, kH, kW], B [M].  Channel counts
 * are checked in the order a user fixes them: input vs weights first.
 */
static int infer_conv(struct graph *g, int k, struct diag *d)
{
	struct g_node *n = &g->nodes[k];
	const struct g_tensor *x = in_t(g, k, 0), *w = in_t(g, k, 1),
			      *b = in_t(g, k, 2);
	if (x->rank != 4)
		FAIL("input '%s' has shape %s: only 2-D convolution (N, C, H, "
		     "W) is supported", x->name, shp(x).s);
	if (w->rank != 4)
		FAIL("weights '%s' have shape %s, expected 4-D (M, C/group, "
		     "kH, kW)", w->name, shp(w).s);
	int64_t c = x->dim[1], m = w->dim[0], gr = n->group;
	if (gr < 1 || c % gr)
		FAIL("input '%s' has %lld channels, not a multiple of group %d",
		     x->name, (long long)c, n->group);
	if (w->dim[1] != c / gr)
		FAIL("input '%s' has %lld channels, the weights '%s' expect "
		     "%lld (%lld per group x %d groups)", x->name, (long long)c,
		     w->name, (long long)(w->dim[1] * gr),
		     (long long)w->dim[1], n->group);
	if (m % gr)
		FAIL("weights '%s' have %lld output channels, not a multiple "
		     "of group %d", w->name, (long long)m, n->group);
	for (int i = 0; i < 2; i++) {
		if (w->dim[2 + i] > INT32_MAX)
			FAIL("weights '%s' %s: a kernel beyond 2^31 - 1",
			     w->name, shp(w).s);
		if (n->kernel[i] == 0)
			n->kernel[i] = (int)w->dim[2 + i];
		else if (n->kernel[i] != w->dim[2 + i])
			FAIL("kernel_shape %dx%d disagrees with the weights "
			     "'%s' (%lldx%lld)", n->kernel[0], n->kernel[1],
			     w->name, (long long)w->dim[2],
			     (long long)w->dim[3]);
	}
	if (b && (b->rank != 1 || b->dim[0] != m))
		FAIL("bias '%s' has shape %s, expected [%lld] (one per output "
		     "channel)", b->name, shp(b).s, (long long)m);
	int64_t od[4] = { x->dim[0], m, 0, 0 };
	for (int i = 0; i < 2; i++) {
		int e = spatial(g, k, d, i, x->dim[2 + i], n->kernel[i], 0,
				&od[2 + i]);
		if (e)
			return e;
	}
	return set_out(g, k, d, 0, x->dtype, 4, od);
}

/* MaxPool, AveragePool: channels kept, spatial() per axis with ceil_mode. */
static int infer_pool(struct graph *g, int k, struct diag *d)
{
	struct g_node *n = &g->nodes[k];
	const struct g_tensor *x = in_t(g, k, 0);
	if (x->rank != 4)
		FAIL("input '%s' has shape %s: only 2-D pooling (N, C, H, W) "
		     "is supported", x->name, shp(x).s);
	if (n->kernel[0] < 1 || n->kernel[1] < 1)
		FAIL("kernel_shape is missing or not positive (%dx%d)",
		     n->kernel[0], n->kernel[1]);
	int64_t od[4] = { x->dim[0], x->dim[1], 0, 0 };
	for (int i = 0; i < 2; i++) {
		int e = spatial(g, k, d, i, x->dim[2 + i], n->kernel[i],
				n->ceil_mode, &od[2 + i]);
		if (e)
			return e;
	}
	return set_out(g, k, d, 0, x->dtype, 4, od);
}

/* ---- matrix products --------------------------------------------------- */

/*
 * MatMul (numpy.matmul): batch axes (all but the last two) broadcast, the
 * last two multiply; input 2, when graph_simplify fused a bias, is [N].
 */
static int infer_matmul(struct graph *g, int k, struct diag *d)
{
	const struct g_tensor *a = in_t(g, k, 0), *b = in_t(g, k, 1),
			      *bias = in_t(g, k, 2);
	int ra = a->rank, rb = b->rank;
	if (ra < 1 || rb < 1)
		FAIL("MatMul needs operands of rank >= 1 (input 0 '%s' %s, "
		     "input 1 '%s' %s)", a->name, shp(a).s, b->name, shp(b).s);
	/* NumPy matmul: a 1-D A is a row [1, K], a 1-D B a column [K, 1],
	 * and the added axis is dropped from the result. */
	int64_t ka = a->dim[ra - 1], kb = rb == 1 ? b->dim[0] : b->dim[rb - 2];
	if (ka != kb)
		FAIL("inner dimensions differ: input 0 '%s' %s has K = %lld, "
		     "input 1 '%s' %s has K = %lld", a->name, shp(a).s,
		     (long long)ka, b->name, shp(b).s, (long long)kb);
	int64_t od[G_MAX_RANK + 2];
	int r = 0;
	if (ra > 2 || rb > 2) {
		int64_t ab[G_MAX_RANK] = { 0 }, bb[G_MAX_RANK] = { 0 };
		int na = ra > 2 ? ra - 2 : 0, nb = rb > 2 ? rb - 2 : 0;
		memcpy(ab, a->dim, (size_t)na * sizeof *ab);
		memcpy(bb, b->dim, (size_t)nb * sizeof *bb);
		if (bcast(na, ab, nb, bb, &r, od))
			FAIL("batch dimensions of input 0 '%s' %s and input 1 "
			     "'%s' %s do not broadcast", a->name, shp(a).s,
			     b->name, shp(b).s);
	}
	if (ra >= 2)
		od[r++] = a->dim[ra - 2];
	int64_t nn = rb >= 2 ? b->dim[rb - 1] : 1;
	if (rb >= 2)
		od[r++] = nn;
	if (bias && (graph_elems(bias) != nn || bias->rank != 1))
		FAIL("bias '%s' has shape %s, expected [%lld] (one per output "
		     "column)", bias->name, shp(bias).s, (long long)nn);
	return set_out(g, k, d, 0, a->dtype, r, od);
}

/* Gemm: A' [M, K] x B' [K, N] (transA/transB), C unidirectionally
 * broadcast to [M, N] (ONNX allows nothing wider). */
static int infer_gemm(struct graph *g, int k, struct diag *d)
{
	const struct g_node *n = &g->nodes[k];
	const struct g_tensor *a = in_t(g, k, 0), *b = in_t(g, k, 1),
			      *c = in_t(g, k, 2);
	if (a->rank != 2 || b->rank != 2)
		FAIL("Gemm needs 2-D operands (input 0 '%s' %s, input 1 '%s' "
		     "%s)", a->name, shp(a).s, b->name, shp(b).s);
	int64_t m = a->dim[n->trans_a ? 1 : 0], ka = a->dim[n->trans_a ? 0 : 1];
	int64_t kb = b->dim[n->trans_b ? 1 : 0], nn = b->dim[n->trans_b ? 0 : 1];
	if (ka != kb)
		FAIL("inner dimensions differ: A%s '%s' %s has K = %lld, B%s "
		     "'%s' %s has K = %lld", n->trans_a ? "'" : "", a->name,
		     shp(a).s, (long long)ka, n->trans_b ? "'" : "", b->name,
		     shp(b).s, (long long)kb);
	int64_t od[2] = { m, nn };
	if (c && !bcast_to(c, 2, od))
		FAIL("C '%s' %s does not broadcast to the product's [%lld,%lld]",
		     c->name, shp(c).s, (long long)m, (long long)nn);
	return set_out(g, k, d, 0, a->dtype, 2, od);
}

/* ---- elementwise -------------------------------------------------------- */

/* Add, Sub, Mul, Div, Pow: multidirectional (NumPy) broadcasting; ONNX
 * requires one type for both operands except Pow's exponent. */
static int infer_binary(struct graph *g, int k, struct diag *d)
{
	const struct g_node *n = &g->nodes[k];
	const struct g_tensor *a = in_t(g, k, 0), *b = in_t(g, k, 1);
	int64_t od[G_MAX_RANK];
	int r;
	if (bcast(a->rank, a->dim, b->rank, b->dim, &r, od))
		FAIL("cannot broadcast input 0 '%s' %s with input 1 '%s' %s",
		     a->name, shp(a).s, b->name, shp(b).s);
	if (n->op != G_POW && a->dtype != b->dtype)
		FAIL("input 0 '%s' is %s but input 1 '%s' is %s", a->name,
		     g_dtype_name(a->dtype), b->name, g_dtype_name(b->dtype));
	return set_out(g, k, d, 0, a->dtype, r, od);
}

/* Clip: from opset 11 the bounds are inputs; only constant ones can be
 * applied by a kernel, so they move into lo/hi here. */
static int infer_clip(struct graph *g, int k, struct diag *d)
{
	struct g_node *n = &g->nodes[k];
	const struct g_tensor *x = in_t(g, k, 0);
	for (int i = 1; i <= 2; i++) {
		const struct g_tensor *t = in_t(g, k, i);
		double v;
		if (!t)
			continue;
		if (!is_const(t) || graph_elems(t) != 1 ||
		    graph_const_f64(t, 0, &v))
			FAIL("its %s bound '%s' must be a constant scalar",
			     i == 1 ? "min" : "max", t->name);
		if (i == 1)
			n->lo = (float)v;
		else
			n->hi = (float)v;
	}
	return set_out(g, k, d, 0, x->dtype, x->rank, x->dim);
}

/* Softmax and the like: an axis of the input, normalised in place; the
 * shape is the input's (Softmax: whatever the opset's axis semantics -
 * opset < 13 coerces to 2-D at axis; fold.c evaluates both). */
static int infer_softmax(struct graph *g, int k, struct diag *d)
{
	struct g_node *n = &g->nodes[k];
	const struct g_tensor *x = in_t(g, k, 0);
	int a = norm_axis(n->axis, x->rank, 0);
	if (a < 0)
		FAIL("axis %d is out of range for input '%s' %s", n->axis,
		     x->name, shp(x).s);
	n->axis = a;
	return set_out(g, k, d, 0, x->dtype, x->rank, x->dim);
}

/* LayerNormalization (opset 17): normalised over axes [axis, rank);
 * scale and bias broadcast over those axes only. */
static int infer_layernorm(struct graph *g, int k, struct diag *d)
{
	int rc = infer_softmax(g, k, d);
	if (rc)
		return rc;
	const struct g_tensor *x = in_t(g, k, 0);
	int a = g->nodes[k].axis;
	for (int i = 1; i <= 2; i++) {
		const struct g_tensor *t = in_t(g, k, i);
		if (t && !bcast_to(t, x->rank - a, x->dim + a))
			FAIL("%s '%s' %s does not match the normalised axes %s "
			     "of input '%s'", i == 1 ? "scale" : "bias",
			     t->name, shp(t).s,
			     shape_of(x->rank - a, x->dim + a).s, x->name);
	}
	return 0;
}

/* BatchNormalization (inference form): one scale, bias, mean, variance
 * per channel, channel = axis 1. */
static int infer_batchnorm(struct graph *g, int k, struct diag *d)
{
	static const char *const role[5] = { "", "scale", "bias", "mean",
					     "var" };
	const struct g_tensor *x = in_t(g, k, 0);
	if (x->rank < 2)
		FAIL("input '%s' %s has no channel axis", x->name, shp(x).s);
	for (int i = 1; i <= 4; i++) {
		const struct g_tensor *t = in_t(g, k, i);
		if (t->rank != 1 || t->dim[0] != x->dim[1])
			FAIL("%s '%s' has shape %s, input '%s' has %lld "
			     "channels", role[i], t->name, shp(t).s, x->name,
			     (long long)x->dim[1]);
	}
	return set_out(g, k, d, 0, x->dtype, x->rank, x->dim);
}

/* ---- shape ops ---------------------------------------------------------- */

/* Flatten: axis may equal the rank (everything in the first dim). */
static int infer_flatten(struct graph *g, int k, struct diag *d)
{
	struct g_node *n = &g->nodes[k];
	const struct g_tensor *x = in_t(g, k, 0);
	int a = norm_axis(n->axis, x->rank, 1);
	if (a < 0)
		FAIL("axis %d is out of range for input '%s' %s", n->axis,
		     x->name, shp(x).s);
	n->axis = a;
	int64_t od[2] = { prod(x->dim, 0, a), prod(x->dim, a, x->rank) };
	return set_out(g, k, d, 0, x->dtype, 2, od);
}

/* Reshape from a constant shape (opset >= 5 takes it as input 1). */
static int infer_reshape(struct graph *g, int k, struct diag *d)
{
	const struct g_tensor *x = in_t(g, k, 0);
	int64_t v[G_MAX_RANK], od[G_MAX_RANK];
	int m, e = const_ints(g, k, d, 1, "shape", v, G_MAX_RANK, &m);
	if (e)
		return e;
	/* 0 copies the input's dimension at the same index (allowzero=0),
	 * one -1 takes whatever the element count leaves. */
	int infer_at = -1;
	int64_t known = 1;
	for (int i = 0; i < m; i++) {
		if (v[i] == 0) {
			if (i >= x->rank)
				FAIL("shape entry %d is 0 (copy) but input '%s' "
				     "%s has no dimension %d", i, x->name,
				     shp(x).s, i);
			od[i] = x->dim[i];
		} else if (v[i] == -1) {
			if (infer_at >= 0)
				FAIL("the shape %s has more than one -1",
				     shape_of(m, v).s);
			infer_at = i;
			continue;
		} else if (v[i] < 0) {
			FAIL("the shape %s has a negative entry %lld",
			     shape_of(m, v).s, (long long)v[i]);
		} else {
			od[i] = v[i];
		}
		if (od[i] > INFER_MAX_ELEMS / known)
			FAIL("the shape %s is too large", shape_of(m, v).s);
		known *= od[i];
	}
	int64_t total = graph_elems(x);
	if (infer_at >= 0) {
		if (total % known)
			FAIL("cannot reshape input '%s' %s (%lld elements) to "
			     "%s", x->name, shp(x).s, (long long)total,
			     shape_of(m, v).s);
		od[infer_at] = total / known;
	} else if (known != total) {
		FAIL("cannot reshape input '%s' %s (%lld elements) to %s "
		     "(%lld)", x->name, shp(x).s, (long long)total,
		     shape_of(m, od).s, (long long)known);
	}
	return set_out(g, k, d, 0, x->dtype, m, od);
}

/* Axes of Squeeze/Unsqueeze/ReduceMean: the attribute, else input 1. */
static int get_axes(struct graph *g, int k, struct diag *d, int64_t *v,
		    int *m)
{
	struct g_node *n = &g->nodes[k];
	if (n->n_axes > G_MAX_RANK)
		FAIL("%d axes, more than rank %d allows", n->n_axes, G_MAX_RANK);
	if (n->n_axes > 0) {
		memcpy(v, n->axes, (size_t)n->n_axes * sizeof *v);
		*m = n->n_axes;
		return 0;
	}
	*m = 0;
	if (!in_t(g, k, 1))
		return 0;
	return const_ints(g, k, d, 1, "axes", v, G_MAX_RANK, m);
}

/* Normalise axes against rank r, check they are distinct, store them in
 * the node's attributes (sorted). */
static int put_axes(struct graph *g, int k, struct diag *d, int64_t *v,
		    int m, int r)
{
	struct g_node *n = &g->nodes[k];
	unsigned seen = 0;
	for (int i = 0; i < m; i++) {
		int a = norm_axis(v[i], r, 0);
		if (a < 0)
			FAIL("axis %lld is out of range for rank %d",
			     (long long)v[i], r);
		if (seen & (1u << a))
			FAIL("axis %lld is given twice", (long long)v[i]);
		seen |= 1u << a;
	}
	int j = 0;
	for (int a = 0; a < r; a++)
		if (seen & (1u << a)) {
			v[j] = a;
			n->axes[j++] = a;
		}
	n->n_axes = j;
	return 0;
}

/* Squeeze: the listed axes must have size 1. */
static int infer_squeeze(struct graph *g, int k, struct diag *d)
{
	struct g_node *n = &g->nodes[k];
	const struct g_tensor *x = in_t(g, k, 0);
	int64_t v[G_MAX_RANK], od[G_MAX_RANK];
	int m, r = 0, e = get_axes(g, k, d, v, &m);
	if (e)
		return e;
	if (m == 0) /* no axes: every size-1 axis */
		for (int i = 0; i < x->rank; i++)
			if (x->dim[i] == 1)
				v[m++] = i;
	if ((e = put_axes(g, k, d, v, m, x->rank)))
		return e;
	for (int i = 0, j = 0; i < x->rank; i++) {
		if (j < n->n_axes && n->axes[j] == i) {
			if (x->dim[i] != 1)
				FAIL("cannot squeeze axis %d of input '%s' %s: "
				     "its size is not 1", i, x->name, shp(x).s);
			j++;
			continue;
		}
		od[r++] = x->dim[i];
	}
	return set_out(g, k, d, 0, x->dtype, r, od);
}

/* Unsqueeze: axes index the output (rank + number of axes). */
static int infer_unsqueeze(struct graph *g, int k, struct diag *d)
{
	struct g_node *n = &g->nodes[k];
	const struct g_tensor *x = in_t(g, k, 0);
	int64_t v[G_MAX_RANK], od[G_MAX_RANK];
	int m, e = get_axes(g, k, d, v, &m);
	if (e)
		return e;
	if (m == 0)
		FAIL("no axes to insert");
	int r = x->rank + m;
	if (r > G_MAX_RANK)
		FAIL("the output would have rank %d, more than %d", r,
		     G_MAX_RANK);
	if ((e = put_axes(g, k, d, v, m, r)))
		return e;
	for (int i = 0, j = 0, s = 0; i < r; i++)
		od[i] = j < n->n_axes && n->axes[j] == i ? (j++, 1) :
			x->dim[s++];
	return set_out(g, k, d, 0, x->dtype, r, od);
}

/* Transpose: output axis i is input axis perm[i]. */
static int infer_transpose(struct graph *g, int k, struct diag *d)
{
	const struct g_node *n = &g->nodes[k];
	const struct g_tensor *x = in_t(g, k, 0);
	int64_t od[G_MAX_RANK];
	unsigned seen = 0;
	if (n->n_perm && n->n_perm != x->rank)
		FAIL("perm has %d entries, input '%s' %s has rank %d",
		     n->n_perm, x->name, shp(x).s, x->rank);
	for (int i = 0; i < x->rank; i++) {
		int p = n->n_perm ? n->perm[i] : x->rank - 1 - i;
		if (p < 0 || p >= x->rank || (seen & (1u << p)))
			FAIL("perm is not a permutation of 0..%d",
			     x->rank - 1);
		seen |= 1u << p;
		od[i] = x->dim[p];
	}
	return set_out(g, k, d, 0, x->dtype, x->rank, od);
}

/* Concat: inputs agree on everything but the axis, which adds up. */
static int infer_concat(struct graph *g, int k, struct diag *d)
{
	struct g_node *n = &g->nodes[k];
	const struct g_tensor *x = in_t(g, k, 0);
	int a = norm_axis(n->axis, x->rank, 0);
	if (a < 0)
		FAIL("axis %d is out of range for input '%s' %s", n->axis,
		     x->name, shp(x).s);
	n->axis = a;
	int64_t od[G_MAX_RANK];
	memcpy(od, x->dim, sizeof od);
	for (int i = 1; i < n->n_in; i++) {
		const struct g_tensor *t = in_t(g, k, i);
		if (!t)
			FAIL("input %d is missing", i);
		int ok = t->rank == x->rank && t->dtype == x->dtype;
		for (int j = 0; ok && j < x->rank; j++)
			ok = j == a || t->dim[j] == x->dim[j];
		if (!ok)
			FAIL("input %d '%s' %s %s does not join input 0 '%s' %s "
			     "%s along axis %d", i, t->name, shp(t).s,
			     g_dtype_name(t->dtype), x->name, shp(x).s,
			     g_dtype_name(x->dtype), a);
		od[a] += t->dim[a];
	}
	return set_out(g, k, d, 0, x->dtype, x->rank, od);
}

/* Split: sizes from the attribute (opset < 13), input 1 (13+) or equal
 * parts; copied into n_split/split for the mapper. */
static int infer_split(struct graph *g, int k, struct diag *d)
{
	struct g_node *n = &g->nodes[k];
	const struct g_tensor *x = in_t(g, k, 0);
	int a = norm_axis(n->axis, x->rank, 0);
	if (a < 0)
		FAIL("axis %d is out of range for input '%s' %s", n->axis,
		     x->name, shp(x).s);
	n->axis = a;
	int64_t sz[G_MAX_OUT];
	int m = n->n_split;
	if (m > G_MAX_OUT)
		FAIL("%d split sizes, at most %d outputs", m, G_MAX_OUT);
	if (m > 0) {
		memcpy(sz, n->split, (size_t)m * sizeof *sz);
	} else if (in_t(g, k, 1)) {
		int e = const_ints(g, k, d, 1, "split", sz, G_MAX_OUT, &m);
		if (e)
			return e;
	}
	if (m == 0) { /* equal parts, one per output (opsets 11-17) */
		if (x->dim[a] % n->n_out)
			FAIL("axis %d of input '%s' %s does not split into %d "
			     "equal parts", a, x->name, shp(x).s, n->n_out);
		for (m = 0; m < n->n_out; m++)
			sz[m] = x->dim[a] / n->n_out;
	}
	if (m != n->n_out)
		FAIL("%d split sizes for %d outputs", m, n->n_out);
	int64_t sum = 0;
	for (int i = 0; i < m; i++) {
		if (sz[i] < 1)
			FAIL("split size %lld is not positive",
			     (long long)sz[i]);
		sum += sz[i];
	}
	if (sum != x->dim[a])
		FAIL("split sizes add up to %lld, axis %d of input '%s' %s has "
		     "%lld", (long long)sum, a, x->name, shp(x).s,
		     (long long)x->dim[a]);
	n->n_split = m;
	int64_t od[G_MAX_RANK];
	memcpy(od, x->dim, sizeof od);
	for (int o = 0; o < m; o++) {
		n->split[o] = sz[o];
		od[a] = sz[o];
		int e = set_out(g, k, d, o, x->dtype, x->rank, od);
		if (e)
			return e;
	}
	return 0;
}

/* Slice (opset >= 10, inputs form): fold_slice_ranges does the ONNX
 * clamping; an empty slice is refused (no empty tensors downstream). */
static int infer_slice(struct graph *g, int k, struct diag *d)
{
	const struct g_tensor *x = in_t(g, k, 0);
	int64_t st[G_MAX_RANK], sp[G_MAX_RANK], cnt[G_MAX_RANK];
	char why[256];
	if (fold_slice_ranges(g, &g->nodes[k], st, sp, cnt, why, sizeof why))
		FAIL("%s", why);
	for (int i = 0; i < x->rank; i++)
		if (cnt[i] < 1)
			FAIL("the slice of axis %d of input '%s' %s is empty", i,
			     x->name, shp(x).s);
	return set_out(g, k, d, 0, x->dtype, x->rank, cnt);
}

/* Gather: the axis of data is replaced by the shape of indices. */
static int infer_gather(struct graph *g, int k, struct diag *d)
{
	struct g_node *n = &g->nodes[k];
	const struct g_tensor *x = in_t(g, k, 0), *ix = in_t(g, k, 1);
	int a = norm_axis(n->axis, x->rank, 0);
	if (a < 0)
		FAIL("axis %d is out of range for input '%s' %s", n->axis,
		     x->name, shp(x).s);
	n->axis = a;
	if (ix->dtype != G_DT_I32 && ix->dtype != G_DT_I64)
		FAIL("indices '%s' are %s, not int32 or int64", ix->name,
		     g_dtype_name(ix->dtype));
	if (is_const(ix))
		for (int64_t i = 0; i < graph_elems(ix); i++) {
			int64_t v = 0;
			if (graph_const_i64(ix, i, &v) || v < -x->dim[a] ||
			    v >= x->dim[a])
				FAIL("index %lld of '%s' is out of range for "
				     "axis %d of size %lld", (long long)v,
				     ix->name, a, (long long)x->dim[a]);
		}
	int64_t od[G_MAX_RANK + G_MAX_RANK];
	int r = 0;
	for (int i = 0; i < a; i++)
		od[r++] = x->dim[i];
	for (int i = 0; i < ix->rank; i++)
		od[r++] = ix->dim[i];
	for (int i = a + 1; i < x->rank; i++)
		od[r++] = x->dim[i];
	return set_out(g, k, d, 0, x->dtype, r, od);
}

/* Resize: sizes win over scales when both are given (ONNX: exactly one
 * may be non-empty). */
static int infer_resize(struct graph *g, int k, struct diag *d)
{
	const struct g_node *n = &g->nodes[k];
	const struct g_tensor *x = in_t(g, k, 0), *sc = NULL, *sz = NULL;
	if (n->mode[0] && strcmp(n->mode, "nearest"))
		FAIL("mode '%s': only nearest is supported", n->mode);
	/* opset 10: (X, scales); 11+: (X, roi, scales, sizes), the unused
	 * ones absent or empty. */
	if (n->n_in == 2) {
		sc = in_t(g, k, 1);
	} else {
		sz = in_t(g, k, 3);
		sc = in_t(g, k, 2);
		if (sz && graph_elems(sz) == 0)
			sz = NULL;
		if (sc && (graph_elems(sc) == 0 || sz))
			sc = NULL;
	}
	const struct g_tensor *t = sz ? sz : sc;
	if (!t)
		FAIL("neither scales nor sizes are given");
	if (!is_const(t))
		FAIL("its %s input '%s' is not a constant: only constant %s "
		     "are supported", sz ? "sizes" : "scales", t->name,
		     sz ? "sizes" : "scales");
	if (graph_elems(t) != x->rank)
		FAIL("%s '%s' has %lld values, input '%s' %s has rank %d",
		     sz ? "sizes" : "scales", t->name,
		     (long long)graph_elems(t), x->name, shp(x).s, x->rank);
	int64_t od[G_MAX_RANK];
	for (int i = 0; i < x->rank; i++) {
		double v = 0;
		if (graph_const_f64(t, i, &v))
			FAIL("cannot read '%s'", t->name);
		/* ONNX: output size = floor(input size * scale) */
		double o = sz ? v : floor((double)x->dim[i] * v);
		if (!(o >= 1 && o <= (double)INFER_MAX_ELEMS))
			FAIL("%s '%s' gives axis %d a size of %g", sz ? "sizes"
			     : "scales", t->name, i, o);
		od[i] = (int64_t)o;
	}
	return set_out(g, k, d, 0, x->dtype, x->rank, od);
}

/* Pad (opset >= 11): pads [begin_0.., end_0..] as a constant input;
 * negative pads crop. */
static int infer_pad(struct graph *g, int k, struct diag *d)
{
	const struct g_node *n = &g->nodes[k];
	const struct g_tensor *x = in_t(g, k, 0), *cv = in_t(g, k, 2);
	if (n->mode[0] && strcmp(n->mode, "constant"))
		FAIL("mode '%s': only constant padding is supported", n->mode);
	if (!in_t(g, k, 1))
		FAIL("no pads input (opset %d): Pad takes its pads as an input "
		     "from opset 11 on, the only form supported", n->opset);
	int64_t v[2 * G_MAX_RANK], od[G_MAX_RANK];
	int m, e = const_ints(g, k, d, 1, "pads", v, 2 * G_MAX_RANK, &m);
	if (e)
		return e;
	if (m != 2 * x->rank)
		FAIL("pads has %d values, input '%s' %s needs %d (begin and "
		     "end per axis)", m, x->name, shp(x).s, 2 * x->rank);
	if (cv && (!is_const(cv) || graph_elems(cv) > 1))
		FAIL("its constant_value '%s' must be a constant scalar",
		     cv->name);
	for (int i = 0; i < x->rank; i++) {
		if (llabs(v[i]) > INFER_MAX_ELEMS ||
		    llabs(v[x->rank + i]) > INFER_MAX_ELEMS)
			FAIL("pads of axis %d (%lld, %lld) are out of range", i,
			     (long long)v[i], (long long)v[x->rank + i]);
		od[i] = x->dim[i] + v[i] + v[x->rank + i];
	}
	return set_out(g, k, d, 0, x->dtype, x->rank, od);
}

/* ReduceMean: axes from the attribute (opset < 18) or input 1. */
static int infer_reducemean(struct graph *g, int k, struct diag *d)
{
	struct g_node *n = &g->nodes[k];
	const struct g_tensor *x = in_t(g, k, 0);
	int64_t v[G_MAX_RANK], od[G_MAX_RANK];
	int m, r = 0, e = get_axes(g, k, d, v, &m);
	if (e)
		return e;
	if (m == 0) /* no axes: all of them (noop_with_empty_axes = 0) */
		for (; m < x->rank; m++)
			v[m] = m;
	if ((e = put_axes(g, k, d, v, m, x->rank)))
		return e;
	for (int i = 0, j = 0; i < x->rank; i++) {
		if (j < n->n_axes && n->axes[j] == i) {
			j++;
			if (n->keepdims)
				od[r++] = 1;
		} else {
			od[r++] = x->dim[i];
		}
	}
	return set_out(g, k, d, 0, x->dtype, r, od);
}

/*
 * QuantizeLinear / DequantizeLinear: the input's shape; Quantize makes the
 * zero point's type (uint8 by default), Dequantize the scale's.  A scale of
 * one element is per tensor, a 1-D one per index of axis.
 */
static int infer_quant(struct graph *g, int k, struct diag *d)
{
	struct g_node *n = &g->nodes[k];
	const struct g_tensor *x = in_t(g, k, 0), *s = in_t(g, k, 1),
			      *z = in_t(g, k, 2);
	int a = norm_axis(n->axis, x->rank, 0);
	if (x->rank > 0 && a < 0)
		FAIL("axis %d is out of range for input '%s' %s", n->axis,
		     x->name, shp(x).s);
	n->axis = a < 0 ? 0 : a;
	/* per tensor (a scalar) or per axis (one value per index of axis) */
	int per_axis = graph_elems(s) > 1;
	if (per_axis && (s->rank != 1 || x->rank == 0 ||
			 s->dim[0] != x->dim[n->axis]))
		FAIL("scale '%s' %s is neither a scalar nor one value per "
		     "index of axis %d of input '%s' %s", s->name, shp(s).s,
		     n->axis, x->name, shp(x).s);
	if (z && (z->rank != s->rank || graph_elems(z) != graph_elems(s)))
		FAIL("zero point '%s' %s and scale '%s' %s differ in shape",
		     z->name, shp(z).s, s->name, shp(s).s);
	enum g_dtype out;
	if (n->op == G_QUANT) {
		out = z ? z->dtype : G_DT_U8;
		if (out != G_DT_U8 && out != G_DT_I8)
			FAIL("zero point '%s' is %s: only int8 and uint8 "
			     "quantisation", z->name, g_dtype_name(out));
	} else {
		if (z && z->dtype != x->dtype)
			FAIL("zero point '%s' is %s, input '%s' is %s", z->name,
			     g_dtype_name(z->dtype), x->name,
			     g_dtype_name(x->dtype));
		out = s->dtype;
	}
	return set_out(g, k, d, 0, out, x->rank, x->dim);
}

/* Dropout at inference: the input itself, and a bool mask like it. */
static int infer_dropout(struct graph *g, int k, struct diag *d)
{
	const struct g_tensor *x = in_t(g, k, 0);
	int e = infer_same(g, k, d);
	return e ? e : set_out(g, k, d, 1, G_DT_BOOL, x->rank, x->dim);
}

/* GlobalAveragePool: [N, C, 1, 1, ...]. */
static int infer_gap(struct graph *g, int k, struct diag *d)
{
	const struct g_tensor *x = in_t(g, k, 0);
	if (x->rank < 3)
		FAIL("input '%s' %s has no spatial axes", x->name, shp(x).s);
	int64_t od[G_MAX_RANK] = { x->dim[0], x->dim[1], 1, 1, 1, 1 };
	return set_out(g, k, d, 0, x->dtype, x->rank, od);
}

/* Constant: its output was set when the node was made. */
static int infer_constant(struct graph *g, int k, struct diag *d)
{
	const struct g_tensor *t = &g->tensors[g->nodes[k].out[0]];
	if (!(t->flags & G_T_CONST) || t->rank < 0 || t->dtype == G_DT_NONE)
		FAIL("output '%s' has no value", t->name);
	return 0;
}

/* Each op's rule, by ops.def's infer column. */
static int (*const infer_rule[G_N_OPS])(struct graph *g, int k,
					 struct diag *d) = {
#define GOP(id, onnx, min_in, max_in, n_out, infer, fold, map, doc) \
	[G_##id] = infer_##infer,
#include "ops.def"
#undef GOP
};

/* ---- the pass ----------------------------------------------------------- */

/* Generic checks: input counts, inputs present and of known shape. */
static int check_inputs(struct graph *g, int k, struct diag *d)
{
	const struct g_node *n = &g->nodes[k];
	int op = n->op;
	if ((unsigned)op >= G_N_OPS)
		FAIL("unknown op %d", op);
	if (n->n_in > op_arity[op].max_in || n->n_in > G_MAX_IN)
		FAIL("%d inputs, at most %d", n->n_in, op_arity[op].max_in);
	int max_out = op_arity[op].n_out < 0 ? G_MAX_OUT : op_arity[op].n_out;
	if (n->n_out < 1 || n->n_out > max_out || n->out[0] < 0)
		FAIL("%d outputs, expected 1 to %d", n->n_out, max_out);
	for (int i = 0; i < n->n_in || i < op_arity[op].min_in; i++) {
		if (i >= n->n_in || n->in[i] < 0) {
			if (i < op_arity[op].min_in)
				FAIL("input %d is missing (%s takes %d to %d)",
				     i, graph_op_name(n->op),
				     op_arity[op].min_in, op_arity[op].max_in);
			continue;
		}
		const struct g_tensor *t = &g->tensors[n->in[i]];
		if (t->rank < 0 || t->dtype == G_DT_NONE)
			FAIL("input %d '%s' has no known shape: it is not a "
			     "graph input, a constant or an output of an "
			     "earlier node", i, t->name);
	}
	for (int i = 0; i < n->n_in; i++) {
		const struct g_tensor *t = n->in[i] >= 0 ?
					   &g->tensors[n->in[i]] : NULL;
		int64_t e = 1;
		for (int j = 0; t && j < t->rank; j++) {
			if (t->dim[j] < 0 || t->dim[j] > INFER_MAX_ELEMS ||
			    (t->dim[j] && e > INFER_MAX_ELEMS / t->dim[j]))
				FAIL("input %d '%s' has shape %s: sizes from 0 "
				     "to 2^40 elements", i, t->name, shp(t).s);
			e *= t->dim[j];
		}
	}
	if (n->res >= 0 && g->tensors[n->res].rank < 0)
		FAIL("residual input '%s' has no known shape",
		     g->tensors[n->res].name);
	return 0;
}

/*
 * Inputs first (their shapes come from the importer: an unknown size is
 * the user's to give), then every node in order: check, rule, the
 * residual of a fused node, folding.
 */
int graph_infer(struct graph *g, struct diag *d)
{
	for (int i = 0; i < g->n_inputs; i++) {
		const struct g_tensor *t = &g->tensors[g->inputs[i]];
		if (t->rank < 0 || t->dtype == G_DT_NONE)
			return graph_error(g, -1, d, "graph input '%s' has no "
					   "shape or element type", t->name);
		for (int j = 0; j < t->rank; j++)
			if (t->dim[j] < 1)
				return graph_error(g, -1, d, "graph input '%s' "
						   "has dimension %d of unknown "
						   "size (%lld): give it a size",
						   t->name, j,
						   (long long)t->dim[j]);
	}
	for (int k = 0; k < g->n_nodes; k++) {
		int e = check_inputs(g, k, d);
		if (!e)
			e = infer_rule[g->nodes[k].op](g, k, d);
		if (e)
			return e;
		const struct g_node *n = &g->nodes[k];
		if (n->res >= 0) {
			const struct g_tensor *r = &g->tensors[n->res],
					      *y = &g->tensors[n->out[0]];
			if (r->rank != y->rank ||
			    memcmp(r->dim, y->dim,
				   (size_t)r->rank * sizeof r->dim[0]))
				FAIL("residual '%s' %s differs in shape from the "
				     "output '%s' %s", r->name, shp(r).s,
				     y->name, shp(y).s);
		}
		e = fold_node(g, k, FOLD_MAX_ELEMS);
		if (e < 0)
			return diag_error(d, diag_at_file(g->source, 0, 0), e,
					  "out of memory folding constants");
	}
	for (int i = 0; i < g->n_outputs; i++) {
		const struct g_tensor *t = &g->tensors[g->outputs[i]];
		if (t->rank < 0)
			return graph_error(g, -1, d, "graph output '%s' is "
					   "not computed by any node", t->name);
	}
	return 0;
}
