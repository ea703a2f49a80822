/*
 * map.c - the mapping compiler: layouts, layers and their kernels, DRAM
 * planning, constants laid out per kernel (docs/models.md "Mapping").
 *
 * A layer's kernel steps come from the handler its op's ops.def row names
 * (map_by_op); each step is the kernel's parameters as .equ lines, the
 * enumerated ones by the names of asm/kernels/abi.def (asm/kabi.h), then
 * the kernel's .include.
 */
#include "map.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../asm/kabi.h"
#include "../util/num.h"

#define ALIGN 64                /* every DRAM tensor: a burst boundary */
#define INT8_ACT_EXP (-4)       /* int8 activations: Q3.4 (docs/models.md) */

/* How a constant is laid out for the kernel that reads it. */
enum wlay {
	WL_NONE,
	WL_CONV,        /* OIHW -> (kh, kw, ci) x co: conv2d.s's WGT */
	WL_DW,          /* C x 1 x K x K -> (kh, kw) x C: dwconv2d.s's WGT */
	WL_MAT,         /* K x N as is (MatMul B, Gemm B) */
	WL_MAT_T,       /* N x K transposed to K x N (Gemm transB) */
	WL_BIAS,        /* the accumulator type: int32 / fp32 */
	WL_ROW,         /* the plan's dtype, flattened */
	WL_F32,         /* fp32, flattened (norm.s gamma and beta) */
	WL_I32,         /* int32, flattened (gather.s indices) */
};

/* The mapper's state beyond the plan. */
struct mctx {
	const struct graph *g;
	const struct arch *a;
	const struct map_opts *o;
	struct map_plan *p;
	struct diag *d;
	enum wlay *wl;          /* per tensor */
	float *wscale;          /* per tensor: alpha/beta of Gemm, 1 */
	int *wexp;              /* int8 weights: value = q * 2^wexp */
};

/* A layer's kernel steps, by ops.def's map column (map_by_op, defined
 * after the handlers: "layers and steps"). */
typedef int map_fn(struct mctx *m, struct map_layer *L,
		   const struct g_node *n);
static map_fn map_reorder, map_eltwise;
static map_fn *const map_by_op[G_N_OPS];

/* The int8 exponent of activation t (value = q * 2^e): its plan entry,
 * INT8_ACT_EXP for every tensor unless calibrated (calibrate()). */
static int act_exp(const struct mctx *m, int t)
{
	return m->p->t[t].exp;
}

/* ---- text -------------------------------------------------------------- */

struct emit {
	char *buf;
	size_t len, cap;
	int oom;
};

static void NPU_PRINTF(2, 3) em(struct emit *e, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		size_t room = e->cap - e->len;
		va_start(ap, fmt);
		int n = vsnprintf(e->buf ? e->buf + e->len : NULL, e->buf ? room : 0,
				  fmt, ap);
		va_end(ap);
		if (n < 0) {
			e->oom = 1;
			return;
		}
		if (e->buf && (size_t)n < room) {
			e->len += (size_t)n;
			return;
		}
		size_t cap = e->cap ? e->cap * 2 : 1024;
		while (cap < e->len + (size_t)n + 1)
			cap *= 2;
		char *b = realloc(e->buf, cap);
		if (!b) {
			e->oom = 1;
			return;
		}
		e->buf = b;
		e->cap = cap;
	}
}

static const char *dt_name(enum npu_dtype t) { return dtype_name(t); }

static int dt_bytes(enum npu_dtype t) { return dtype_bits(t) / 8; }

/* ---- shapes ------------------------------------------------------------ */

static const struct g_tensor *T(const struct mctx *m, int t)
{
	return &m->g->tensors[t];
}

static int is_const(const struct mctx *m, int t)
{
	return t >= 0 && (T(m, t)->flags & (G_T_CONST | G_T_SYNTH));
}

/* A rank-4 activation: N, C, H, W of its NCHW shape. */
static void nchw(const struct g_tensor *t, int64_t *n, int64_t *c, int64_t *h,
		 int64_t *w)
{
	*n = t->dim[0];
	*c = t->dim[1];
	*h = t->dim[2];
	*w = t->dim[3];
}

static void shape_str(const struct g_tensor *t, char *buf, size_t n)
{
	size_t k = 0;
	buf[0] = 0;
	for (int i = 0; i < t->rank && k + 24 < n; i++)
		k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? "x" : "",
				      (long long)t->dim[i]);
	if (t->rank == 0)
		snprintf(buf, n, "scalar");
}

/* ---- layouts ----------------------------------------------------------- */

/* The views (ops.def gives them map_reorder): their output is their
 * input's bytes under a new shape. */
static int is_view_op(enum g_op op)
{
	return map_by_op[op] == map_reorder;
}

static int is_spatial(enum g_op op)
{
	return op == G_CONV || op == G_MAXPOOL || op == G_AVGPOOL ||
	       op == G_GAP || op == G_BATCHNORM || op == G_RESIZE;
}

/* The elementwise ops (ops.def gives them map_eltwise). */
static int is_eltwise(enum g_op op)
{
	return map_by_op[op] == map_eltwise;
}

/*
 * NHWC for the rank-4 tensors the spatial kernels read or write, spread
 * through elementwise ops (same shape in, same shape out); everything else
 * row-major in its logical shape.  Repeated to a fixed point so that an
 * Add between two convolutions is NHWC whichever way the graph runs.
 */
static void assign_layouts(struct mctx *m)
{
	const struct graph *g = m->g;
	struct map_plan *p = m->p;
	for (int k = 0; k < g->n_nodes; k++) {
		const struct g_node *n = &g->nodes[k];
		if (!is_spatial(n->op))
			continue;
		if (n->in[0] >= 0 && T(m, n->in[0])->rank == 4)
			p->t[n->in[0]].layout = MAP_NHWC;
		if (n->out[0] >= 0 && T(m, n->out[0])->rank == 4)
			p->t[n->out[0]].layout = MAP_NHWC;
		if (n->res >= 0)
			p->t[n->res].layout = MAP_NHWC;
	}
	for (int changed = 1; changed;) {
		changed = 0;
		for (int k = 0; k < g->n_nodes; k++) {
			const struct g_node *n = &g->nodes[k];
			/* elementwise ops, Pad, Concat and a Softmax
			 * over the channels (or, before opset 13, over
			 * whole images) keep a layout: their inputs and
			 * output share it */
			int chan_softmax = n->op == G_SOFTMAX && n->axis <= 1;
			if ((!is_eltwise(n->op) && n->op != G_PAD &&
			     n->op != G_CONCAT && !chan_softmax) ||
			    n->out[0] < 0 || T(m, n->out[0])->rank != 4)
				continue;
			int any = p->t[n->out[0]].layout == MAP_NHWC;
			for (int i = 0; i < n->n_in; i++)
				if (n->in[i] >= 0 && !is_const(m, n->in[i]) &&
				    p->t[n->in[i]].layout == MAP_NHWC)
					any = 1;
			if (!any)
				continue;
			for (int i = -1; i < n->n_in; i++) {
				int t = i < 0 ? n->out[0] : n->in[i];
				if (t < 0 || is_const(m, t) ||
				    T(m, t)->rank != 4 ||
				    p->t[t].layout == MAP_NHWC)
					continue;
				p->t[t].layout = MAP_NHWC;
				changed = 1;
			}
		}
	}
}

/* ---- layers and steps -------------------------------------------------- */

static int add_step(struct mctx *m, struct map_layer *L, const char *kernel,
		    struct emit *e, uint64_t macs)
{
	if (e->oom)
		return diag_error(m->d, diag_nowhere(), NPU_ENOMEM,
				  "out of memory");
	em(e, ".include \"%s\"\n", kernel);
	if (e->oom)
		return diag_error(m->d, diag_nowhere(), NPU_ENOMEM,
				  "out of memory");
	struct map_step *s = realloc(L->steps, (size_t)(L->n_steps + 1) *
					       sizeof *s);
	if (!s) {
		free(e->buf);
		return diag_error(m->d, diag_nowhere(), NPU_ENOMEM,
				  "out of memory");
	}
	L->steps = s;
	s[L->n_steps].kernel = kernel;
	s[L->n_steps].src = e->buf;
	s[L->n_steps].macs = macs;
	L->n_steps++;
	L->macs += macs;
	size_t k = strlen(L->kernels);
	if (!strstr(L->kernels, kernel))
		snprintf(L->kernels + k, sizeof L->kernels - k, "%s%s",
			 k ? "+" : "", kernel);
	memset(e, 0, sizeof *e);
	return 0;
}

static void step_head(struct emit *e, const struct map_layer *L,
		      int step)
{
	em(e, "# layer '%s' (%s), step %d - generated by npusim model\n",
	   L->name, L->op, step);
}

static void em_addr(struct emit *e, const char *sym, uint64_t addr)
{
	em(e, ".equ %s, 0x%llx\n", sym, (unsigned long long)addr);
}

static uint64_t A(const struct mctx *m, int t)
{
	return m->p->t[m->p->t[t].root].addr + m->p->t[t].offset;
}

static void tiling_add(struct map_layer *L, const char *fmt, ...)
	NPU_PRINTF(2, 3);
static void tiling_add(struct map_layer *L, const char *fmt, ...)
{
	size_t k = strlen(L->tiling);
	va_list ap;
	if (k && k + 2 < sizeof L->tiling)
		L->tiling[k++] = ' ', L->tiling[k] = 0;
	va_start(ap, fmt);
	vsnprintf(L->tiling + k, sizeof L->tiling - k, fmt, ap);
	va_end(ap);
}

/* The int8 output shift of activation x times w (weights, or a second
 * activation): y = acc * 2^(e_x + e_w), stored at y's exponent.  A
 * negative shift (an output finer than the product) saturates to 0: the
 * calibration keeps outputs coarser than their products' (calibrate). */
static int int8_shift(const struct mctx *m, int x, int w, int y, int w_act)
{
	int ew = w_act ? act_exp(m, w) : m->wexp[w];
	int s = act_exp(m, y) - (act_exp(m, x) + ew);
	return s < 0 ? 0 : s > 24 ? 24 : s;
}

static uint32_t f32bits(double v)
{
	float f = (float)v;
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

/* v as an int8 of exponent e (value = q * 2^e), saturated. */
static int q_act(double v, int e)
{
	double q = nearbyint(ldexp(v, -e));
	return q < -128 ? -128 : q > 127 ? 127 : (int)q;
}

/* eltwise.s's ACT (ELT_OP_LAYER; and its bounds) for a fused or
 * standalone activation; -1 when it has none. */
static int em_act(const struct mctx *m, struct emit *e, enum g_act act,
		  float lo, float hi, int ex)
{
	int i8 = m->p->dtype == DT_INT8;
	switch (act) {
	case G_ACT_NONE: return ELT_ACT_NONE;
	case G_ACT_RELU: return ELT_ACT_RELU;
	case G_ACT_CLIP:
		if (i8)
			em(e, ".equ LO, %d\n.equ HI, %d\n",
			   isinf(lo) ? -128 : q_act(lo, ex),
			   isinf(hi) ? 127 : q_act(hi, ex));
		else
			em(e, ".equ LO, 0x%08x\n.equ HI, 0x%08x\n", f32bits(lo),
			   f32bits(hi));
		return ELT_ACT_CLIP;
	case G_ACT_SIGMOID: return i8 ? -1 : ELT_ACT_SIGMOID;
	case G_ACT_TANH: return i8 ? -1 : ELT_ACT_TANH;
	case G_ACT_GELU: return i8 ? -1 : ELT_ACT_GELU;
	case G_ACT_HARDSWISH: return i8 ? -1 : ELT_ACT_HARDSWISH;
	case G_ACT_HARDSIGMOID:
		if (i8)
			return -1;
		em(e, ".equ ALPHA, 0x%08x\n.equ BETA, 0x%08x\n", f32bits(lo),
		   f32bits(hi));
		return ELT_ACT_HARDSIGMOID;
	case G_ACT_SILU: return i8 ? -1 : ELT_ACT_SILU;
	}
	return -1;
}

/* The activation of node n as g_act with its parameters (a standalone
 * Relu/Clip/... node, or the act fused into n); a GELU's form is
 * n->approx_tanh. */
static enum g_act node_act(const struct g_node *n, float *lo, float *hi)
{
	*lo = n->act_lo;
	*hi = n->act_hi;
	switch (n->op) {
	case G_RELU: return G_ACT_RELU;
	case G_CLIP: *lo = n->lo; *hi = n->hi; return G_ACT_CLIP;
	case G_SIGMOID: return G_ACT_SIGMOID;
	case G_TANH: return G_ACT_TANH;
	case G_GELU: return G_ACT_GELU;
	case G_HARDSWISH: return G_ACT_HARDSWISH;
	case G_HARDSIGMOID: *lo = n->alpha; *hi = n->beta;
		return G_ACT_HARDSIGMOID;
	default: return n->act;
	}
}

/* One eltwise.s ELT_OP_LAYER step: z = act(x bin s) over rows x l.
 * smode (ELT_SMODE_*): a tensor like x at s, a row of l at s, a column of
 * rows at s, or the constant sc (fp32; int8: of exponent ex, as every
 * operand: int8 runs give an elementwise op's operands and result one
 * exponent). */
static int elt_step(struct mctx *m, struct map_layer *L, int bin, int smode,
		    uint64_t x, uint64_t sa, double sc, enum g_act act,
		    float lo, float hi, uint64_t z, int64_t rows, int64_t l,
		    int ex)
{
	struct emit e = { 0 };
	/* a node has one GELU form (fuse_post_act keeps it so) */
	int gelu_tanh = act == G_ACT_GELU && m->g->nodes[L->node].approx_tanh;
	step_head(&e, L, L->n_steps);
	em(&e, ".equ ROWS, %lld\n.equ L, %lld\n.equ OP, %d\n.equ DT, %s\n"
	   ".equ BIN, %d\n.equ SMODE, %d\n", (long long)rows, (long long)l,
	   ELT_OP_LAYER, dt_name(m->p->dtype), bin, smode);
	int a = em_act(m, &e, act, lo, hi, ex);
	if (a < 0) {
		free(e.buf);
		return graph_error(m->g, L->node, m->d,
				   "%s in int8: run the model with --dtype bf16",
				   graph_act_name(act));
	}
	em(&e, ".equ ACT, %d\n", gelu_tanh ? ELT_ACT_GELU_TANH : a);
	if (bin != ELT_BIN_NONE && smode == ELT_SMODE_SCALAR) {
		if (m->p->dtype == DT_INT8)
			em(&e, ".equ SC, %d\n", q_act(sc, ex));
		else
			em(&e, ".equ SC, 0x%08x\n", f32bits(sc));
	}
	em_addr(&e, "X_DRAM", x);
	if (bin != ELT_BIN_NONE && smode != ELT_SMODE_SCALAR)
		em_addr(&e, smode == ELT_SMODE_TENSOR ? "Y_DRAM" :
			    smode == ELT_SMODE_ROW ? "B_DRAM" : "C_DRAM", sa);
	em_addr(&e, "Z_DRAM", z);
	return add_step(m, L, "eltwise.s", &e, 0);
}

/* An activation a kernel could not fuse: a second step in place on
 * tensor t. */
static int act_step(struct mctx *m, struct map_layer *L, enum g_act act,
		    float lo, float hi, int t, int64_t rows, int64_t l)
{
	return elt_step(m, L, ELT_BIN_NONE, ELT_SMODE_TENSOR, A(m, t), 0, 0,
			act, lo, hi, A(m, t), rows, l, act_exp(m, t));
}

/* A standalone activation layer x -> z. */
static int act_step_to(struct mctx *m, struct map_layer *L, enum g_act act,
		       float lo, float hi, int x, int z, int64_t rows,
		       int64_t l)
{
	return elt_step(m, L, ELT_BIN_NONE, ELT_SMODE_TENSOR, A(m, x), 0, 0,
			act, lo, hi, A(m, z), rows, l, act_exp(m, z));
}

/* The residual add of layer L's node, in place on its output:
 * y = post_act(y + res) over rows x l elements. */
static int add_step_res(struct mctx *m, struct map_layer *L, int64_t rows,
			int64_t l)
{
	const struct g_node *n = &m->g->nodes[L->node];
	return elt_step(m, L, ELT_BIN_ADD, ELT_SMODE_TENSOR, A(m, n->out[0]),
			A(m, n->res), 0, n->post_act, n->post_lo, n->post_hi,
			A(m, n->out[0]), rows, l, act_exp(m, n->out[0]));
}

/* Conv: conv2d.s (dense, grouped) or dwconv2d.s (depthwise). */
/* The activation conv2d.s's output stage applies for a fused act (its
 * RELU parameter), CONV_RELU_NONE when a later step must: relu, relu6
 * (Clip(0, 6): mout's relu, then the CLIP bound), gelu in its erf form
 * and silu are mout's (mset oact; the callers keep those two for float
 * runs); the tanh GELU, sigmoid, tanh and the hard activations are not. */
static int stage_act(const struct g_node *n)
{
	switch (n->act) {
	case G_ACT_RELU: return CONV_RELU_RELU;
	case G_ACT_CLIP:
		return n->act_lo != 0 ? CONV_RELU_NONE :
		       isinf(n->act_hi) ? CONV_RELU_RELU :
		       n->act_hi == 6 ? CONV_RELU_RELU6 : CONV_RELU_NONE;
	case G_ACT_GELU:
		return n->approx_tanh ? CONV_RELU_NONE : CONV_RELU_GELU;
	case G_ACT_SILU: return CONV_RELU_SILU;
	default: return CONV_RELU_NONE;
	}
}

static int map_conv(struct mctx *m, struct map_layer *L, const struct g_node *n)
{
	const struct g_tensor *x = T(m, n->in[0]), *w = T(m, n->in[1]),
			      *y = T(m, n->out[0]);
	int64_t N, C, H, W, Nn, CO, HO, WO;
	nchw(x, &N, &C, &H, &W);
	nchw(y, &Nn, &CO, &HO, &WO);
	int kh = (int)w->dim[2], kw = (int)w->dim[3];
	int bf = m->p->dtype != DT_INT8;
	if (n->pad[0] != n->pad[2] || n->pad[1] != n->pad[3] ||
	    n->pad[0] != n->pad[1])
		return graph_error(m->g, L->node, m->d,
				   "pads %d,%d,%d,%d: the conv kernels take the "
				   "same padding on every side", n->pad[0],
				   n->pad[1], n->pad[2], n->pad[3]);
	if (n->stride[0] != n->stride[1] || n->dil[0] != n->dil[1])
		return graph_error(m->g, L->node, m->d,
				   "strides %d,%d dilations %d,%d: the conv "
				   "kernels take one stride and one dilation",
				   n->stride[0], n->stride[1], n->dil[0],
				   n->dil[1]);
	int has_bias = n->n_in > 2 && n->in[2] >= 0;
	int relu = stage_act(n);
	/* int8: mout applies the activation to the accumulator before the
	 * 2^-SHIFT scale, which only relu's shape survives */
	if (!bf && relu >= CONV_RELU_GELU)
		relu = CONV_RELU_NONE;
	int fused_act = relu != CONV_RELU_NONE || n->act == G_ACT_NONE;
	int depthwise = L->lower == LW_DWCONV;
	uint64_t macs = (uint64_t)(HO * WO * CO) * (uint64_t)(C / n->group) *
			(uint64_t)(kh * kw);
	uint64_t eb = (uint64_t)dt_bytes(m->p->dtype);
	/* A pointwise conv over a batch is one GEMM over all its pixels
	 * (NHWC images follow each other): conv2d.s's FLAT form, the weights
	 * loaded once.  Any other dense conv over a batch is one conv2d.s
	 * step with BATCH = N (the batch folded into the GEMM's M, each
	 * weight tile loaded once for all images), unless --per-image asks
	 * for the old mapping: a step per image, as for depthwise convs
	 * (dwconv2d.s takes one image). */
	int flat = N > 1 && kh == 1 && kw == 1 && n->stride[0] == 1 &&
		   !n->pad[0] && n->group == 1;
	int batched = N > 1 && !flat && !depthwise && !m->o->per_image;
	int64_t imgs = flat || batched ? 1 : N;
	if (flat) {
		H = 1;
		W = N * HO * WO;
	}
	if (flat || batched)
		macs *= (uint64_t)N;
	if (imgs > 1 && ((uint64_t)(H * W * C) * eb % 64 ||
			 (uint64_t)(HO * WO * CO) * eb % 64))
		return graph_error(m->g, L->node, m->d,
				   "batch %lld: an image of %llu bytes is not a "
				   "multiple of 64 (the kernels' DRAM alignment): "
				   "not mapped", (long long)N, (unsigned long long)
				   ((uint64_t)(H * W * C) * eb));
	for (int64_t img = 0; img < imgs; img++) {
	struct emit e = { 0 };
	step_head(&e, L, L->n_steps);
	if (depthwise) {
		if (kh != kw)
			return graph_error(m->g, L->node, m->d,
					   "a %dx%d depthwise window: dwconv2d.s "
					   "takes square windows", kh, kw);
		em(&e, ".equ H, %lld\n.equ W, %lld\n.equ C, %lld\n.equ K, %d\n"
		   ".equ S, %d\n.equ PAD, %d\n", (long long)H, (long long)W,
		   (long long)C, kh, n->stride[0], n->pad[0]);
		if (bf)
			em(&e, ".equ ITYPE, bf16\n");
		else
			em(&e, ".equ SHIFT, %d\n",
			   int8_shift(m, n->in[0], n->in[1], n->out[0], 0));
		m->wl[n->in[1]] = WL_DW;
		if (!img)
			tiling_add(L, "K=%d S=%d", kh, n->stride[0]);
	} else {
		em(&e, ".equ H, %lld\n.equ W, %lld\n.equ CIN, %lld\n"
		   ".equ COUT, %lld\n.equ KH, %d\n.equ KW, %d\n.equ S, %d\n"
		   ".equ PAD, %d\n.equ DIL, %d\n.equ GROUPS, %d\n",
		   (long long)H, (long long)W, (long long)C, (long long)CO, kh,
		   kw, n->stride[0], n->pad[0], n->dil[0], n->group);
		if (batched)
			em(&e, ".equ BATCH, %lld\n", (long long)N);
		if (bf)
			em(&e, ".equ ITYPE, bf16\n.equ OUT, bf16\n");
		else
			em(&e, ".equ SHIFT, %d\n",
			   int8_shift(m, n->in[0], n->in[1], n->out[0], 0));
		m->wl[n->in[1]] = WL_CONV;
		if (!img)
			tiling_add(L, "K=%dx%dx%lld S=%d", kh, kw,
				   (long long)(C / n->group), n->stride[0]);
	}
	if (has_bias) {
		em(&e, ".equ WITH_BIAS, 1\n");
		em_addr(&e, "BIAS_DRAM", A(m, n->in[2]));
		m->wl[n->in[2]] = WL_BIAS;
		m->wexp[n->in[2]] = act_exp(m, n->in[0]) + m->wexp[n->in[1]];
	}
	if (relu != CONV_RELU_NONE)
		em(&e, ".equ RELU, %d\n", relu);
	if (relu == CONV_RELU_RELU6 && !bf)
		em(&e, ".equ CLIP, %d\n", q_act(6.0, act_exp(m, n->out[0])));
	if (m->o->split == MAP_SPLIT_ROWS)
		em(&e, ".equ SPLIT, %d\n", CONV_SPLIT_ROWS);
	else if (m->o->split == MAP_SPLIT_CHANNELS)
		em(&e, ".equ SPLIT, %d\n", CONV_SPLIT_CHANNELS);
	em_addr(&e, "X_DRAM", A(m, n->in[0]) + (uint64_t)(img * H * W * C) * eb);
	em_addr(&e, "W_DRAM", A(m, n->in[1]));
	em_addr(&e, "Y_DRAM", A(m, n->out[0]) + (uint64_t)(img * HO * WO * CO) * eb);
	int rc = add_step(m, L, lower_info[L->lower].kernel, &e,
			  macs);
	if (rc)
		return rc;
	}
	if (imgs > 1)
		tiling_add(L, "x%lld images", (long long)imgs);
	else if (flat)
		tiling_add(L, "%lld images as one GEMM", (long long)N);
	else if (batched)
		tiling_add(L, "batch %lld in one step", (long long)N);
	int rc = 0;
	if (!fused_act &&
	    (rc = act_step(m, L, n->act, n->act_lo, n->act_hi, n->out[0],
			   N * HO * WO, CO)))
		return rc;
	if (n->res >= 0)
		rc = add_step_res(m, L, N * HO * WO, CO);
	return rc;
}

/*
 * MatMul / Gemm as conv2d.s's 1x1 convolution: X (1 x M x K) times the
 * weights (K x N) is Y (1 x M x N) - A row-major, as the producing layer
 * wrote it.  A constant B is the weights once; a B computed by the model
 * (attention's K^T, V) is read from where its producer left it, one step
 * per batch matrix.
 */
static int map_matmul(struct mctx *m, struct map_layer *L,
		      const struct g_node *n)
{
	const struct g_tensor *a = T(m, n->in[0]), *b = T(m, n->in[1]),
			      *y = T(m, n->out[0]);
	int tb = n->op == G_GEMM && n->trans_b;
	if (n->op == G_GEMM && n->trans_a)
		return graph_error(m->g, L->node, m->d,
				   "transA=1: the GEMM kernel reads A row-major "
				   "(put a Transpose before it)");
	if (a->rank < 1 || b->rank < 2)
		return graph_error(m->g, L->node, m->d,
				   "a 1-D right operand: not mapped");
	int64_t K = a->dim[a->rank - 1];
	int64_t Nc = tb ? b->dim[b->rank - 2] : b->dim[b->rank - 1];
	int64_t M = graph_elems(a) / K;
	int64_t batches = 1;
	int bconst = is_const(m, n->in[1]);
	if (!bconst) {
		if (tb)
			return graph_error(m->g, L->node, m->d,
					   "transB=1 on a computed operand: "
					   "not mapped");
		for (int i = 0; i < b->rank - 2; i++)
			batches *= b->dim[i];
		M = graph_elems(a) / K / batches;
		if (graph_elems(a) != batches * M * K)
			return graph_error(m->g, L->node, m->d,
					   "broadcast batch dimensions: not "
					   "mapped");
	} else if (b->rank != 2) {
		return graph_error(m->g, L->node, m->d,
				   "a constant right operand of rank %d: the "
				   "weights must be 2-D", b->rank);
	}
	int bf = m->p->dtype != DT_INT8;
	int eb = bf ? 2 : 1;
	int has_bias = (n->op == G_GEMM || n->op == G_MATMUL) &&
		       n->n_in > 2 && n->in[2] >= 0;
	int relu = stage_act(n);
	if (relu == CONV_RELU_RELU6 || (!bf && relu >= CONV_RELU_GELU))
		relu = CONV_RELU_NONE;   /* a step of its own, as before */
	if (has_bias && (!is_const(m, n->in[2]) ||
			 graph_elems(T(m, n->in[2])) != Nc))
		return graph_error(m->g, L->node, m->d,
				   "the bias must be a constant of N = %lld "
				   "values", (long long)Nc);
	if (bconst)
		m->wl[n->in[1]] = tb ? WL_MAT_T : WL_MAT;
	if (has_bias) {
		m->wl[n->in[2]] = WL_BIAS;
		m->wexp[n->in[2]] = act_exp(m, n->in[0]) + m->wexp[n->in[1]];
	}
	if (n->op == G_GEMM) {
		m->wscale[n->in[1]] = n->alpha;
		if (has_bias)
			m->wscale[n->in[2]] = n->beta;
	}
	tiling_add(L, "M=%lld K=%lld N=%lld", (long long)M, (long long)K,
		   (long long)Nc);
	if (batches > 1)
		tiling_add(L, "x%lld", (long long)batches);
	int ws = L->lower == LW_GEMM_WS;
	if (ws) {
		static const char *const ws_act[] = {
			[CONV_RELU_RELU] = "relu", [CONV_RELU_GELU] = "gelu",
			[CONV_RELU_SILU] = "silu",
		};
		struct emit e = { 0 };
		step_head(&e, L, L->n_steps);
		em(&e, ".equ M, %lld\n.equ K, %lld\n.equ N, %lld\n",
		   (long long)M, (long long)K, (long long)Nc);
		if (bf)
			em(&e, ".equ ITYPE, bf16\n.equ OUT, bf16\n");
		else
			em(&e, ".equ OUT, int8\n.equ SHIFT, %d\n",
			   int8_shift(m, n->in[0], n->in[1], n->out[0], 0));
		if (has_bias) {
			em(&e, ".equ WITH_BIAS, 1\n");
			em_addr(&e, "BIAS_DRAM", A(m, n->in[2]));
		}
		if (relu)
			em(&e, ".equ ACT, %s\n", ws_act[relu]);
		em_addr(&e, "A_DRAM", A(m, n->in[0]));
		em_addr(&e, "B_DRAM", A(m, n->in[1]));
		em_addr(&e, "C_DRAM", A(m, n->out[0]));
		int rc = add_step(m, L, lower_info[L->lower].kernel, &e,
				  (uint64_t)(M * K * Nc));
		if (rc)
			return rc;
	}
	for (int64_t bi = 0; bi < batches && !ws; bi++) {
		struct emit e = { 0 };
		step_head(&e, L, L->n_steps);
		em(&e, ".equ H, 1\n.equ W, %lld\n.equ CIN, %lld\n"
		   ".equ COUT, %lld\n.equ KH, 1\n.equ KW, 1\n", (long long)M,
		   (long long)K, (long long)Nc);
		if (bf)
			em(&e, ".equ ITYPE, bf16\n.equ OUT, bf16\n");
		else
			/* a computed B is an activation too (two Q3.4
			 * operands: 8 fraction bits, 4 too many) */
			em(&e, ".equ SHIFT, %d\n",
			   int8_shift(m, n->in[0], n->in[1], n->out[0],
				      !bconst));
		if (has_bias) {
			em(&e, ".equ WITH_BIAS, 1\n");
			em_addr(&e, "BIAS_DRAM", A(m, n->in[2]));
		}
		if (relu)
			em(&e, ".equ RELU, %d\n", relu);
		em_addr(&e, "X_DRAM", A(m, n->in[0]) +
				     (uint64_t)(bi * M * K * eb));
		em_addr(&e, "W_DRAM", A(m, n->in[1]) +
				     (uint64_t)(bi * K * Nc * eb));
		em_addr(&e, "Y_DRAM", A(m, n->out[0]) +
				     (uint64_t)(bi * M * Nc * eb));
		int rc = add_step(m, L, lower_info[L->lower].kernel, &e,
				  (uint64_t)(M * K * Nc));
		if (rc)
			return rc;
	}
	(void)y;
	int rc = 0;
	if (n->act != G_ACT_NONE && !relu)
		rc = act_step(m, L, n->act, n->act_lo, n->act_hi, n->out[0],
			      M * batches, Nc);
	if (!rc && n->res >= 0)
		rc = add_step_res(m, L, M * batches, Nc);
	return rc;
}

/* Max/AveragePool, GlobalAveragePool (a window of the whole map). */
static int map_pool(struct mctx *m, struct map_layer *L, const struct g_node *n)
{
	int64_t N, C, H, W;
	nchw(T(m, n->in[0]), &N, &C, &H, &W);
	int k = n->kernel[0], s = n->stride[0], pad = n->pad[0];
	if (n->op == G_GAP) {
		if (H != W)
			return graph_error(m->g, L->node, m->d,
					   "a %lldx%lld map: global pooling "
					   "takes square maps", (long long)H,
					   (long long)W);
		k = (int)H;
		s = (int)H;
		pad = 0;
	} else if (n->kernel[0] != n->kernel[1] ||
		   n->stride[0] != n->stride[1] || n->pad[0] != n->pad[1] ||
		   n->pad[0] != n->pad[2] || n->pad[1] != n->pad[3]) {
		return graph_error(m->g, L->node, m->d,
				   "pool2d.s takes square windows, one stride "
				   "and the same padding on every side");
	}
	if (n->op == G_AVGPOOL && pad && !n->count_include_pad)
		return graph_error(m->g, L->node, m->d,
				   "average pooling with padding that is not "
				   "counted (count_include_pad=0): not mapped");
	int64_t HO = T(m, n->out[0])->dim[2], WO = T(m, n->out[0])->dim[3];
	uint64_t eb = (uint64_t)dt_bytes(m->p->dtype);
	tiling_add(L, "K=%d S=%d", k, s);
	/* a global pool of a batch: the images stacked as one map of N*H
	 * rows, one window of H rows per image (stride H: none straddles
	 * two); other pools take an image per step */
	int64_t imgs = N;
	if (n->op == G_GAP && N > 1) {
		H *= N;
		imgs = 1;
		tiling_add(L, "%lld images stacked", (long long)N);
	} else if (N > 1) {
		tiling_add(L, "x%lld images", (long long)N);
		if ((uint64_t)(H * W * C) * eb % 64 || (uint64_t)(HO * WO * C) * eb % 64)
			return graph_error(m->g, L->node, m->d,
					   "batch %lld: an image of %llu bytes is "
					   "not a multiple of 64 (the kernels' "
					   "DRAM alignment): not mapped",
					   (long long)N, (unsigned long long)
					   ((uint64_t)(HO * WO * C) * eb));
	}
	for (int64_t img = 0; img < imgs; img++) {
	struct emit e = { 0 };
	step_head(&e, L, L->n_steps);
	em(&e, ".equ H, %lld\n.equ W, %lld\n.equ C, %lld\n.equ K, %d\n"
	   ".equ S, %d\n.equ PAD, %d\n.equ AVG, %d\n", (long long)H,
	   (long long)W, (long long)C, k, s, pad, n->op != G_MAXPOOL);
	if (m->p->dtype != DT_INT8)
		em(&e, ".equ ITYPE, bf16\n");
	em_addr(&e, "X_DRAM", A(m, n->in[0]) + (uint64_t)(img * H * W * C) * eb);
	em_addr(&e, "Y_DRAM", A(m, n->out[0]) + (uint64_t)(img * HO * WO * C) * eb);
	int rc = add_step(m, L, lower_info[L->lower].kernel, &e, 0);
	if (rc)
		return rc;
	}
	return 0;
}

/* rows x l of a tensor whose elements are processed along the last
 * axis: NHWC keeps C last. */
static void rows_l(const struct mctx *m, int t, int64_t *rows, int64_t *l)
{
	const struct g_tensor *x = T(m, t);
	if (m->p->t[t].layout == MAP_NHWC) {
		*l = x->dim[1];
		*rows = graph_elems(x) / *l;
	} else {
		*l = x->rank ? x->dim[x->rank - 1] : 1;
		*rows = *l ? graph_elems(x) / *l : 0;
	}
}

/* How operand t broadcasts against an output of rows x l (rows_l of the
 * output), as eltwise.s's SMODE: the same elements (ELT_SMODE_TENSOR), a
 * row of l (the last axis, or the channels of NHWC), a column of rows
 * (one value per row), a scalar; -1 for any other broadcast. */
static int bcast_mode(const struct mctx *m, int t, int out)
{
	const struct g_tensor *x = T(m, t), *y = T(m, out);
	int64_t n = graph_elems(x), rows, l;
	rows_l(m, out, &rows, &l);
	if (n == graph_elems(y))
		return ELT_SMODE_TENSOR;
	if (n == 1)
		return ELT_SMODE_SCALAR;
	/* right-aligned dims of x against y's */
	int off = y->rank - x->rank;
	int nhwc = m->p->t[m->p->t[out].root].layout == MAP_NHWC;
	int last = nhwc ? 1 : y->rank - 1;
	int only_last = 1, only_rows = x->rank ? x->dim[x->rank - 1] == 1 : 0;
	for (int i = 0; i < x->rank; i++) {
		int yi = i + off;
		if (x->dim[i] != 1 && yi != last)
			only_last = 0;
		if (x->dim[i] != 1 && x->dim[i] != y->dim[yi < 0 ? 0 : yi])
			return -1;
	}
	if (only_last && n == l)
		return ELT_SMODE_ROW;
	if (!nhwc && only_rows && n == rows)
		return ELT_SMODE_COLUMN;
	return -1;
}

static int map_eltwise(struct mctx *m, struct map_layer *L,
		       const struct g_node *n)
{
	int64_t rows, l;
	float lo, hi;
	rows_l(m, n->out[0], &rows, &l);
	enum g_act act = node_act(n, &lo, &hi);
	tiling_add(L, "rows=%lld L=%lld", (long long)rows, (long long)l);
	if (n->n_in == 1 || n->op == G_CLIP)
		return act_step_to(m, L, act, lo, hi, n->in[0], n->out[0], rows,
				   l);
	int bin = n->op == G_ADD ? ELT_BIN_ADD : n->op == G_SUB ? ELT_BIN_SUB :
		  n->op == G_MUL ? ELT_BIN_MUL : n->op == G_DIV ? ELT_BIN_DIV :
		  ELT_BIN_NONE;
	int x = n->in[0], s = n->in[1];
	int mx = bcast_mode(m, x, n->out[0]), ms = bcast_mode(m, s, n->out[0]);
	/* the full tensor first: a commutative op may swap its operands */
	if (mx != ELT_SMODE_TENSOR &&
	    (bin == ELT_BIN_ADD || bin == ELT_BIN_MUL)) {
		int t = x; x = s; s = t;
		t = mx; mx = ms; ms = t;
	}
	if (mx != ELT_SMODE_TENSOR || ms < 0)
		return graph_error(m->g, L->node, m->d,
				   "%s of %s and %s: eltwise.s takes the full "
				   "tensor first and the other operand as the "
				   "same shape, a row along the last axis, a "
				   "column or a scalar",
				   graph_op_name(n->op), T(m, n->in[0])->name,
				   T(m, n->in[1])->name);
	/* int8: eltwise.s adds and subtracts */
	if (m->p->dtype == DT_INT8 && bin != ELT_BIN_ADD && bin != ELT_BIN_SUB)
		return graph_error(m->g, L->node, m->d,
				   "%s in int8: run the model with --dtype bf16",
				   graph_op_name(n->op));
	double sc = 0;
	if (ms == ELT_SMODE_SCALAR) {
		if (!is_const(m, s))
			return graph_error(m->g, L->node, m->d,
					   "a computed scalar operand: not "
					   "mapped");
		if (T(m, s)->data)
			(void)graph_const_f64(T(m, s), 0, &sc);
	} else if (is_const(m, s)) {
		m->wl[s] = WL_ROW;
	}
	return elt_step(m, L, bin, ms, A(m, x), ms == ELT_SMODE_SCALAR ? 0 :
			A(m, s), sc, act, lo, hi, A(m, n->out[0]), rows, l,
			act_exp(m, n->out[0]));
}

static int map_softmax(struct mctx *m, struct map_layer *L,
		       const struct g_node *n)
{
	const struct g_tensor *x = T(m, n->in[0]);
	int axis = n->axis < 0 ? n->axis + x->rank : n->axis;
	/* softmax.s works along rows contiguous in DRAM: a row-major
	 * tensor's last axis, an NHWC map's channels; before opset 13 the
	 * op flattens from axis on, contiguous in a row-major tensor and,
	 * from axis 1, in an NHWC one (whole images) */
	int nhwc = m->p->t[n->in[0]].layout == MAP_NHWC;
	int flat = n->opset < 13;
	if (flat ? nhwc && axis > 1 : nhwc ? axis != 1 : axis != x->rank - 1)
		return graph_error(m->g, L->node, m->d,
				   "softmax along axis %d: softmax.s works "
				   "along the last axis (or the channels of a "
				   "map stored channels-last)", n->axis);
	if (m->p->dtype == DT_INT8)
		return graph_error(m->g, L->node, m->d,
				   "softmax in int8: run the model with "
				   "--dtype bf16");
	int64_t rows, l;
	rows_l(m, n->in[0], &rows, &l);
	if (flat) {
		l = 1;
		for (int i = axis; i < x->rank; i++)
			l *= x->dim[i];
		rows = l ? graph_elems(x) / l : 0;
	}
	struct emit e = { 0 };
	step_head(&e, L, 0);
	em(&e, ".equ R, %lld\n.equ L, %lld\n.equ DT, %s\n", (long long)rows,
	   (long long)l, dt_name(m->p->dtype));
	em_addr(&e, "X_DRAM", A(m, n->in[0]));
	em_addr(&e, "Y_DRAM", A(m, n->out[0]));
	tiling_add(L, "R=%lld L=%lld", (long long)rows, (long long)l);
	return add_step(m, L, lower_info[L->lower].kernel, &e, 0);
}

/*
 * The attention subgraph (graph_simplify's match_attention) on attention.s:
 * Q, K^T, V and O row-major with the heads leading, as the transposes
 * before it left them - attention.s's Q (H*N) x D, KT (H*D) x NK, V
 * (H*NK) x D, O (H*N) x D, the batch and head dimensions as its H.  The
 * scores never reach DRAM (online softmax).
 */
static int map_attention(struct mctx *m, struct map_layer *L,
			 const struct g_node *n)
{
	const struct g_tensor *q = T(m, n->in[0]), *kt = T(m, n->in[1]),
			      *v = T(m, n->in[2]);
	int r = q->rank, qs = !!(n->seq & G_SEQ_Q);
	/* a sequence-major Q is [.., N, heads, D] */
	int64_t N = q->dim[r - 2 - qs], D = q->dim[r - 1], NK = kt->dim[r - 1];
	int64_t H = graph_elems(q) / (N * D), HB = kt->dim[r - 3 >= 0 ? r - 3 : 0];
	if (r < 3)
		HB = H;
	if (m->p->dtype == DT_INT8)
		return graph_error(m->g, L->node, m->d,
				   "attention in int8: run the model with "
				   "--dtype bf16");
	if (v->dim[r - 1] != D || (n->seq && r < 3))
		return graph_error(m->g, L->node, m->d,
				   "attention with V %lld wide and Q, K %lld: "
				   "attention.s takes one head width",
				   (long long)v->dim[r - 1], (long long)D);
	for (int i = 0; i < 4; i++) {
		int t = i < 3 ? n->in[i] : n->out[0];
		if (m->p->t[t].layout == MAP_NHWC)
			return graph_error(m->g, L->node, m->d,
					   "attention on '%s' stored channels-"
					   "last: attention.s reads row-major "
					   "heads", T(m, t)->name);
	}
	struct emit e = { 0 };
	step_head(&e, L, 0);
	em(&e, ".equ H, %lld\n.equ N, %lld\n.equ NK, %lld\n.equ D, %lld\n"
	   ".equ ITYPE, %s\n.equ SCALE, 0x%08x\n", (long long)H, (long long)N,
	   (long long)NK, (long long)D, dt_name(m->p->dtype),
	   f32bits(n->alpha));
	if (n->seq)
		em(&e, ".equ HB, %lld\n.equ QSEQ, %d\n.equ VSEQ, %d\n"
		   ".equ OSEQ, %d\n", (long long)HB, qs,
		   !!(n->seq & G_SEQ_V), !!(n->seq & G_SEQ_O));
	em_addr(&e, "Q_DRAM", A(m, n->in[0]));
	em_addr(&e, "KT_DRAM", A(m, n->in[1]));
	em_addr(&e, "V_DRAM", A(m, n->in[2]));
	em_addr(&e, "O_DRAM", A(m, n->out[0]));
	tiling_add(L, "H=%lld N=%lld NK=%lld D=%lld", (long long)H,
		   (long long)N, (long long)NK, (long long)D);
	return add_step(m, L, lower_info[L->lower].kernel, &e,
			(uint64_t)(2 * H * N * NK * D));
}

static int map_layernorm(struct mctx *m, struct map_layer *L,
			 const struct g_node *n)
{
	const struct g_tensor *x = T(m, n->in[0]);
	int axis = n->axis < 0 ? n->axis + x->rank : n->axis;
	if (axis != x->rank - 1)
		return graph_error(m->g, L->node, m->d,
				   "normalisation over axes %d..: norm.s "
				   "normalises the last axis", n->axis);
	if (m->p->dtype == DT_INT8)
		return graph_error(m->g, L->node, m->d,
				   "layer normalisation in int8: run the model "
				   "with --dtype bf16");
	if (n->in[1] < 0 || n->in[2] < 0 || !is_const(m, n->in[1]) ||
	    !is_const(m, n->in[2]))
		return graph_error(m->g, L->node, m->d,
				   "norm.s needs a constant scale and bias");
	int64_t rows, l;
	rows_l(m, n->in[0], &rows, &l);
	m->wl[n->in[1]] = WL_F32;
	m->wl[n->in[2]] = WL_F32;
	struct emit e = { 0 };
	uint32_t eps;
	memcpy(&eps, &n->eps, 4);
	step_head(&e, L, 0);
	em(&e, ".equ R, %lld\n.equ L, %lld\n.equ DT, %s\n.equ MODE, %d\n"
	   ".equ EPS, 0x%08x\n", (long long)rows, (long long)l,
	   dt_name(m->p->dtype), NORM_MODE_LAYERNORM, eps);
	em_addr(&e, "X_DRAM", A(m, n->in[0]));
	em_addr(&e, "Y_DRAM", A(m, n->out[0]));
	em_addr(&e, "G_DRAM", A(m, n->in[1]));
	em_addr(&e, "B_DRAM", A(m, n->in[2]));
	tiling_add(L, "R=%lld L=%lld", (long long)rows, (long long)l);
	return add_step(m, L, lower_info[L->lower].kernel, &e, 0);
}

static int map_transpose(struct mctx *m, struct map_layer *L,
			 const struct g_node *n)
{
	const struct g_tensor *x = T(m, n->in[0]);
	if (x->rank < 2 || x->rank > 4 ||
	    m->p->t[n->in[0]].layout != MAP_ROWMAJOR)
		return graph_error(m->g, L->node, m->d,
				   "transpose.s takes row-major tensors of "
				   "rank 2..4 (this one: rank %d)", x->rank);
	struct emit e = { 0 };
	step_head(&e, L, 0);
	em(&e, ".equ DT, %s\n.equ RANK, %d\n", dt_name(m->p->dtype), x->rank);
	for (int i = 0; i < x->rank; i++)
		em(&e, ".equ D%d, %lld\n.equ P%d, %d\n", i,
		   (long long)x->dim[i], i,
		   n->n_perm ? n->perm[i] : x->rank - 1 - i);
	em_addr(&e, "X_DRAM", A(m, n->in[0]));
	em_addr(&e, "Y_DRAM", A(m, n->out[0]));
	return add_step(m, L, lower_info[L->lower].kernel, &e, 0);
}

static int phys_shape(const struct mctx *m, int t, int64_t *d);

/*
 * A Flatten or Reshape of an NHWC map with H*W > 1 and C > 1: the
 * channels-last bytes are not the NCHW order the new shape counts in, so
 * it is a layer of its own, transpose.s putting them in that order.
 */
static int map_reorder(struct mctx *m, struct map_layer *L,
		       const struct g_node *n)
{
	static const int nchw[4] = { 0, 3, 1, 2 };
	int64_t d[G_MAX_RANK];
	if (m->p->t[n->out[0]].layout == MAP_NHWC)
		return graph_error(m->g, L->node, m->d,
				   "%s of one NHWC map into another of a "
				   "different shape: not mapped",
				   graph_op_name(n->op));
	phys_shape(m, n->in[0], d);
	struct emit e = { 0 };
	step_head(&e, L, 0);
	em(&e, ".equ DT, %s\n.equ RANK, 4\n", dt_name(m->p->dtype));
	for (int i = 0; i < 4; i++)
		em(&e, ".equ D%d, %lld\n.equ P%d, %d\n", i, (long long)d[i], i,
		   nchw[i]);
	em_addr(&e, "X_DRAM", A(m, n->in[0]));
	em_addr(&e, "Y_DRAM", A(m, n->out[0]));
	tiling_add(L, "NHWC->NCHW");
	return add_step(m, L, lower_info[L->lower].kernel, &e, 0);
}

/* A tensor's shape in DRAM order (NHWC: N, H, W, C) and the DRAM axis of
 * logical axis i. */
static int phys_shape(const struct mctx *m, int t, int64_t *d)
{
	const struct g_tensor *x = T(m, t);
	if (m->p->t[t].layout == MAP_NHWC) {
		d[0] = x->dim[0];
		d[1] = x->dim[2];
		d[2] = x->dim[3];
		d[3] = x->dim[1];
		return 4;
	}
	for (int i = 0; i < x->rank; i++)
		d[i] = x->dim[i];
	return x->rank;
}

static int phys_axis(const struct mctx *m, int t, int axis)
{
	static const int nhwc[4] = { 0, 3, 1, 2 };
	return m->p->t[t].layout == MAP_NHWC ? nhwc[axis] : axis;
}

/* Shapes of rank < 2 as rank 2 (1 x n): the copy kernels take 2..4. */
static int rank2(int r, int64_t *d)
{
	if (r >= 2)
		return r;
	d[1] = r ? d[0] : 1;
	d[0] = 1;
	return 2;
}

static int map_concat(struct mctx *m, struct map_layer *L,
		      const struct g_node *n)
{
	int64_t da[G_MAX_RANK], db[G_MAX_RANK];
	if (n->n_in != 2)
		return graph_error(m->g, L->node, m->d,
				   "a Concat of %d inputs: concat.s joins two "
				   "(not mapped yet)", n->n_in);
	int x = n->in[0], y = n->in[1];
	if (m->p->t[m->p->t[x].root].layout != m->p->t[n->out[0]].layout ||
	    m->p->t[m->p->t[y].root].layout != m->p->t[n->out[0]].layout)
		return graph_error(m->g, L->node, m->d,
				   "inputs of different layouts (NHWC and "
				   "row-major): not mapped");
	int r = phys_shape(m, x, da);
	phys_shape(m, y, db);
	int axis = phys_axis(m, x, n->axis < 0 ? n->axis + T(m, x)->rank :
						    n->axis);
	if (r > 4)
		return graph_error(m->g, L->node, m->d, "rank %d: concat.s "
				   "takes rank 2..4", r);
	int64_t bk = db[axis];
	if (r < 2) {
		r = rank2(r, da);
		axis = 1;
	}
	struct emit e = { 0 };
	step_head(&e, L, 0);
	em(&e, ".equ DT, %s\n.equ RANK, %d\n.equ AXIS, %d\n.equ BK, %lld\n",
	   dt_name(m->p->dtype), r, axis, (long long)bk);
	for (int i = 0; i < r; i++)
		em(&e, ".equ D%d, %lld\n", i, (long long)da[i]);
	if (is_const(m, x))
		m->wl[x] = WL_ROW;
	if (is_const(m, y))
		m->wl[y] = WL_ROW;
	em_addr(&e, "A_DRAM", A(m, x));
	em_addr(&e, "B_DRAM", A(m, y));
	em_addr(&e, "W_DRAM", A(m, n->out[0]));
	tiling_add(L, "axis=%d", axis);
	return add_step(m, L, lower_info[L->lower].kernel, &e, 0);
}

/* copy.s COPY_MODE_SLICE: out = x[start .. start + out's extent) on
 * every axis. */
static int slice_step(struct mctx *m, struct map_layer *L, int x, int out,
		      const int64_t *start)
{
	int64_t d[G_MAX_RANK], o[G_MAX_RANK], st[G_MAX_RANK] = { 0 };
	int r = phys_shape(m, x, d);
	phys_shape(m, out, o);
	for (int i = 0; i < T(m, x)->rank; i++)
		st[phys_axis(m, x, i)] = start[i];
	if (r > 4)
		return graph_error(m->g, L->node, m->d, "rank %d: copy.s "
				   "takes rank <= 4", r);
	struct emit e = { 0 };
	step_head(&e, L, L->n_steps);
	em(&e, ".equ MODE, %d\n.equ DT, %s\n.equ RANK, %d\n", COPY_MODE_SLICE,
	   dt_name(m->p->dtype), r);
	for (int i = 0; i < r; i++)
		em(&e, ".equ D%d, %lld\n.equ S%d, %lld\n.equ E%d, %lld\n", i,
		   (long long)d[i], i, (long long)st[i], i,
		   (long long)(st[i] + o[i]));
	em_addr(&e, "X_DRAM", A(m, x));
	em_addr(&e, "Z_DRAM", A(m, out));
	return add_step(m, L, lower_info[L->lower].kernel, &e, 0);
}

static int map_split(struct mctx *m, struct map_layer *L,
		     const struct g_node *n)
{
	const struct g_tensor *x = T(m, n->in[0]);
	int axis = n->axis < 0 ? n->axis + x->rank : n->axis;
	int64_t start[G_MAX_RANK] = { 0 };
	for (int o = 0; o < n->n_out; o++) {
		if (n->out[o] < 0)
			continue;
		int rc = slice_step(m, L, n->in[0], n->out[o], start);
		if (rc)
			return rc;
		start[axis] += T(m, n->out[o])->dim[axis];
	}
	tiling_add(L, "axis=%d parts=%d", axis, n->n_out);
	return 0;
}

static int map_slice(struct mctx *m, struct map_layer *L,
		     const struct g_node *n)
{
	const struct g_tensor *x = T(m, n->in[0]);
	int64_t start[G_MAX_RANK] = { 0 };
	int na = n->n_in > 3 && n->in[3] >= 0 ? (int)graph_elems(T(m, n->in[3])) :
		 (int)graph_elems(T(m, n->in[1]));
	for (int j = 0; j < na; j++) {
		int64_t ax = j, st = 1, b;
		if (n->n_in > 3 && n->in[3] >= 0 &&
		    graph_const_i64(T(m, n->in[3]), j, &ax))
			return graph_error(m->g, L->node, m->d,
					   "computed axes: not mapped");
		if (n->n_in > 4 && n->in[4] >= 0 &&
		    graph_const_i64(T(m, n->in[4]), j, &st))
			return graph_error(m->g, L->node, m->d,
					   "computed steps: not mapped");
		if (graph_const_i64(T(m, n->in[1]), j, &b))
			return graph_error(m->g, L->node, m->d,
					   "computed starts: not mapped");
		if (ax < 0)
			ax += x->rank;
		if (st != 1)
			return graph_error(m->g, L->node, m->d,
					   "step %lld: copy.s slices with step 1",
					   (long long)st);
		if (b < 0)
			b += x->dim[ax];
		start[ax] = b < 0 ? 0 : b > x->dim[ax] ? x->dim[ax] : b;
	}
	return slice_step(m, L, n->in[0], n->out[0], start);
}

static int map_pad(struct mctx *m, struct map_layer *L, const struct g_node *n)
{
	const struct g_tensor *x = T(m, n->in[0]);
	int64_t d[G_MAX_RANK], bef[G_MAX_RANK] = { 0 }, aft[G_MAX_RANK] = { 0 };
	double pv = 0;
	if (n->mode[0] && strcmp(n->mode, "constant"))
		return graph_error(m->g, L->node, m->d, "mode %s: copy.s pads "
				   "with a constant", n->mode);
	if (n->n_in < 2 || n->in[1] < 0 || !is_const(m, n->in[1]))
		return graph_error(m->g, L->node, m->d,
				   "the pads must be a constant input");
	for (int i = 0; i < x->rank; i++) {
		int64_t b, a;
		if (graph_const_i64(T(m, n->in[1]), i, &b) ||
		    graph_const_i64(T(m, n->in[1]), i + x->rank, &a) || b < 0 ||
		    a < 0)
			return graph_error(m->g, L->node, m->d,
					   "pads must be non-negative constants");
		bef[phys_axis(m, n->in[0], i)] = b;
		aft[phys_axis(m, n->in[0], i)] = a;
	}
	if (n->n_in > 2 && n->in[2] >= 0 && T(m, n->in[2])->data)
		(void)graph_const_f64(T(m, n->in[2]), 0, &pv);
	int r = phys_shape(m, n->in[0], d);
	struct emit e = { 0 };
	step_head(&e, L, 0);
	uint32_t bits = m->p->dtype == DT_INT8 ? (uint32_t)(q_act(pv, act_exp(m, n->out[0])) & 0xff) :
			f32bits(pv) >> 16;
	em(&e, ".equ MODE, %d\n.equ DT, %s\n.equ RANK, %d\n.equ PV, 0x%x\n",
	   COPY_MODE_PAD, dt_name(m->p->dtype), r, bits);
	for (int i = 0; i < r; i++)
		em(&e, ".equ D%d, %lld\n.equ B%d, %lld\n.equ A%d, %lld\n", i,
		   (long long)d[i], i, (long long)bef[i], i, (long long)aft[i]);
	em_addr(&e, "X_DRAM", A(m, n->in[0]));
	em_addr(&e, "Z_DRAM", A(m, n->out[0]));
	return add_step(m, L, lower_info[L->lower].kernel, &e, 0);
}

static int map_resize(struct mctx *m, struct map_layer *L,
		      const struct g_node *n)
{
	const struct g_tensor *x = T(m, n->in[0]), *y = T(m, n->out[0]);
	if (x->rank != 4 || m->p->t[n->in[0]].layout != MAP_NHWC ||
	    y->dim[0] != x->dim[0] || y->dim[1] != x->dim[1] ||
	    y->dim[2] % x->dim[2] || y->dim[3] % x->dim[3])
		return graph_error(m->g, L->node, m->d,
				   "copy.s resizes NCHW maps by integer factors "
				   "of H and W");
	int64_t d[4];
	phys_shape(m, n->in[0], d);
	struct emit e = { 0 };
	step_head(&e, L, 0);
	em(&e, ".equ MODE, %d\n.equ DT, %s\n.equ RANK, 4\n.equ FH, %lld\n"
	   ".equ FW, %lld\n", COPY_MODE_RESIZE, dt_name(m->p->dtype),
	   (long long)(y->dim[2] / x->dim[2]), (long long)(y->dim[3] / x->dim[3]));
	for (int i = 0; i < 4; i++)
		em(&e, ".equ D%d, %lld\n", i, (long long)d[i]);
	em_addr(&e, "X_DRAM", A(m, n->in[0]));
	em_addr(&e, "Z_DRAM", A(m, n->out[0]));
	return add_step(m, L, lower_info[L->lower].kernel, &e, 0);
}

/* Gather along axis 0 of a table (an embedding lookup): gather.s, the
 * indices as int32. */
static int map_gather(struct mctx *m, struct map_layer *L,
		      const struct g_node *n)
{
	const struct g_tensor *x = T(m, n->in[0]), *ix = T(m, n->in[1]);
	if (n->axis != 0 || m->p->t[n->in[0]].layout != MAP_ROWMAJOR)
		return graph_error(m->g, L->node, m->d,
				   "Gather along axis %d: gather.s looks rows "
				   "up along axis 0", n->axis);
	int64_t v = x->dim[0], dd = graph_elems(x) / (v ? v : 1);
	if (is_const(m, n->in[0]))
		m->wl[n->in[0]] = WL_ROW;
	if (is_const(m, n->in[1]))
		m->wl[n->in[1]] = WL_I32;
	struct emit e = { 0 };
	step_head(&e, L, 0);
	em(&e, ".equ OP, %d\n.equ V, %lld\n.equ D, %lld\n.equ N, %lld\n"
	   ".equ TYPE, %s\n", GATHER_OP_GATHER, (long long)v, (long long)dd,
	   (long long)graph_elems(ix), dt_name(m->p->dtype));
	em_addr(&e, "E_DRAM", A(m, n->in[0]));
	em_addr(&e, "I_DRAM", A(m, n->in[1]));
	em_addr(&e, "Y_DRAM", A(m, n->out[0]));
	tiling_add(L, "V=%lld D=%lld N=%lld", (long long)v, (long long)dd,
		   (long long)graph_elems(ix));
	return add_step(m, L, lower_info[L->lower].kernel, &e, 0);
}

/* ReduceMean over the spatial axes of NHWC (a global average pool) or the
 * last axis of a row-major tensor. */
static int map_reducemean(struct mctx *m, struct map_layer *L,
			  const struct g_node *n)
{
	const struct g_tensor *x = T(m, n->in[0]);
	int spatial = x->rank == 4 && n->n_axes == 2 &&
		      ((n->axes[0] == 2 && n->axes[1] == 3) ||
		       (n->axes[0] == 3 && n->axes[1] == 2));
	if (spatial && m->p->t[n->in[0]].layout == MAP_NHWC) {
		struct g_node gap = *n;
		gap.op = G_GAP;
		return map_pool(m, L, &gap);
	}
	return graph_error(m->g, L->node, m->d,
			   "ReduceMean over these axes: only the spatial mean "
			   "of a feature map (axes 2, 3) is mapped; a decomposed "
			   "LayerNormalization is recognised as a whole");
}

/*
 * QuantizeLinear / DequantizeLinear with one scale and zero point (per
 * tensor): quant.s between the plan's float type and int8 - a QDQ model's
 * fake quantisation in a bf16 run.  Per-axis scales and uint8 are not
 * mapped; neither is a QDQ model in an int8 run (its scales would replace
 * the Q3.4 format: docs/models.md).
 */
static int map_qdq(struct mctx *m, struct map_layer *L, const struct g_node *n)
{
	int q = n->op == G_QUANT;
	const struct g_tensor *x = T(m, n->in[0]);
	double sc = 0, zp = 0;
	if (m->p->dtype == DT_INT8)
		return graph_error(m->g, L->node, m->d,
				   "%s in an int8 run: run the model with "
				   "--dtype bf16 (QDQ scales are not used as "
				   "the int8 format)", graph_op_name(n->op));
	if (!is_const(m, n->in[1]) || graph_elems(T(m, n->in[1])) != 1 ||
	    (n->n_in > 2 && n->in[2] >= 0 &&
	     (!is_const(m, n->in[2]) || graph_elems(T(m, n->in[2])) != 1)))
		return graph_error(m->g, L->node, m->d,
				   "a scale and zero point per tensor (constant "
				   "scalars) are mapped, not per axis");
	enum g_dtype it = q ? (n->n_in > 2 && n->in[2] >= 0 ?
				T(m, n->in[2])->dtype : G_DT_U8) :
			      x->dtype;
	if (it != G_DT_I8)
		return graph_error(m->g, L->node, m->d,
				   "%s type: quant.s maps int8 (not uint8)",
				   g_dtype_name(it));
	(void)graph_const_f64(T(m, n->in[1]), 0, &sc);
	if (n->n_in > 2 && n->in[2] >= 0)
		(void)graph_const_f64(T(m, n->in[2]), 0, &zp);
	int64_t rows, l;
	rows_l(m, n->in[0], &rows, &l);
	struct emit e = { 0 };
	step_head(&e, L, 0);
	em(&e, ".equ R, %lld\n.equ C, %lld\n.equ OP, %d\n.equ IT, %s\n"
	   ".equ OT, %s\n.equ GRAN, %d\n.equ SCALE, 0x%08x\n.equ ZP, %d\n",
	   (long long)rows, (long long)l,
	   q ? QUANT_OP_QUANTIZE : QUANT_OP_DEQUANTIZE,
	   q ? dt_name(m->p->dtype) : "int8", q ? "int8" : dt_name(m->p->dtype),
	   QUANT_GRAN_TENSOR, f32bits(sc), (int)zp);
	em_addr(&e, "X_DRAM", A(m, n->in[0]));
	em_addr(&e, "Y_DRAM", A(m, n->out[0]));
	return add_step(m, L, lower_info[L->lower].kernel, &e, 0);
}

/* A BatchNormalization left standing (no conv before it): batchnorm.s
 * over pixels x channels, the statistics folded on chip. */
static int map_batchnorm(struct mctx *m, struct map_layer *L,
			 const struct g_node *n)
{
	int64_t rows, l;
	rows_l(m, n->in[0], &rows, &l);
	if (m->p->dtype == DT_INT8)
		return graph_error(m->g, L->node, m->d,
				   "a BatchNormalization not folded into a conv, "
				   "in int8: run the model with --dtype bf16");
	for (int i = 1; i < 5; i++) {
		if (!is_const(m, n->in[i]))
			return graph_error(m->g, L->node, m->d,
					   "batchnorm.s needs constant "
					   "parameters");
		m->wl[n->in[i]] = WL_F32;
	}
	uint32_t eps;
	memcpy(&eps, &n->eps, 4);
	struct emit e = { 0 };
	step_head(&e, L, 0);
	em(&e, ".equ R, %lld\n.equ C, %lld\n.equ TYPE, %s\n.equ EPS, 0x%08x\n",
	   (long long)rows, (long long)l, dt_name(m->p->dtype), eps);
	if (n->act == G_ACT_RELU)
		em(&e, ".equ RELU, 1\n");
	em_addr(&e, "X_DRAM", A(m, n->in[0]));
	em_addr(&e, "Y_DRAM", A(m, n->out[0]));
	em_addr(&e, "G_DRAM", A(m, n->in[1]));
	em_addr(&e, "B_DRAM", A(m, n->in[2]));
	em_addr(&e, "M_DRAM", A(m, n->in[3]));
	em_addr(&e, "V_DRAM", A(m, n->in[4]));
	return add_step(m, L, lower_info[L->lower].kernel, &e, 0);
}

/* ops.def's map column; NONE: no kernel takes the op. */
#define map_NONE NULL
static map_fn *const map_by_op[G_N_OPS] = {
#define GOP(id, onnx, min_in, max_in, n_out, infer, fold, map, doc) \
	[G_##id] = map_##map,
#include "ops.def"
#undef GOP
};
#undef map_NONE

/* ---- lowering: the rows of compiler/lower.def ------------------------- */

/* A row's condition: 1 when it takes the layer, else 0 with why not. */
typedef int lower_fn(const struct mctx *m, const struct g_node *n,
		     char *why, size_t len);

static int lower_ALWAYS(const struct mctx *m, const struct g_node *n,
			char *why, size_t len)
{
	(void)m, (void)n, (void)why, (void)len;
	return 1;
}

static int lower_depthwise(const struct mctx *m, const struct g_node *n,
			   char *why, size_t len)
{
	int64_t N, C, H, W, CO;
	nchw(T(m, n->in[0]), &N, &C, &H, &W);
	CO = T(m, n->out[0])->dim[1];
	if (n->group > 1 && n->group == C && CO == C)
		return 1;
	snprintf(why, len, "not depthwise (%d groups of %lld channels)",
		 n->group, (long long)C);
	return 0;
}

/*
 * Constant weights on a one-core chip go to gemm_ws.s (weight stationary,
 * every DMA engine) when its weight tiles are preloaded in the shadow
 * registers (core.matrix.weight_double_buffer) or a fold streams enough
 * rows of A: measured with K = N = 768, gemm_ws.s takes 8-16 % fewer
 * cycles than conv2d.s's 1x1 form at every M on tpu-v1.cfg, but without
 * shadow registers each of its narrow weight tiles costs an exposed
 * preload and short DRAM rows, so conv2d.s (whole channel groups of
 * weights) wins for small M: int8 up to M = 4R on default.cfg and 8R on
 * gemmini.cfg (gemm_ws.s from 16R), bf16 up to R on default.cfg and 2R
 * on gemmini.cfg (gemm_ws.s 3.4x faster at 4R on default.cfg, 1.9x at
 * 8R on gemmini.cfg, where conv2d.s's 1x1 form streams the 2-byte
 * weights poorly).  Hence M >= 8R for int8 and 4R for 2-byte types, a
 * measured rule until the schedule search chooses by cost.  conv2d.s
 * shares a layer over several cores (gemm_ws.s runs on one) and takes a
 * computed B.
 */
static int lower_gemm_ws(const struct mctx *m, const struct g_node *n,
			 char *why, size_t len)
{
	const struct g_tensor *a = T(m, n->in[0]), *b = T(m, n->in[1]);
	int64_t K = a->rank ? a->dim[a->rank - 1] : 1;
	int64_t M = K ? graph_elems(a) / K : 0;
	int rows = (int)ARCH_I(m->a, MTX_ROWS) *
		   (m->p->dtype == DT_INT8 ? 8 : 4);
	if (!is_const(m, n->in[1]) || b->rank != 2)
		snprintf(why, len, "the weights are %s",
			 is_const(m, n->in[1]) ? "not 2-D" : "computed");
	else if (ARCH_I(m->a, CHIP_CORES) != 1)
		snprintf(why, len, "%lld cores (it runs on one)",
			 (long long)ARCH_I(m->a, CHIP_CORES));
	else if (!ARCH_B(m->a, MTX_WEIGHT_DB) && M < rows)
		snprintf(why, len, "M = %lld < %dR = %d without weight "
			 "double-buffering", (long long)M,
			 m->p->dtype == DT_INT8 ? 8 : 4, rows);
	else
		return 1;
	return 0;
}

static const struct {
	map_fn *map;
	lower_fn *cond;
} lower_rows[LW_N] = {
#define LOWER(id, map, kernel, cond, pattern, when, params) \
	[LW_##id] = { map_##map, lower_##cond },
#include "lower.def"
#undef LOWER
};

/* The first row of the op's handler whose condition holds takes the
 * layer; the rows before it leave their reasons in L->lower_note. */
static int map_node(struct mctx *m, struct map_layer *L, const struct g_node *n)
{
	map_fn *f = map_by_op[n->op];
	size_t nl = 0;
	L->lower_note[0] = 0;
	for (int id = 0; f && id < LW_N; id++) {
		char why[96];
		if (lower_rows[id].map != f)
			continue;
		if (lower_rows[id].cond(m, n, why, sizeof why)) {
			L->lower = (enum lower_id)id;
			return f(m, L, n);
		}
		if (nl < sizeof L->lower_note)
			nl += (size_t)snprintf(L->lower_note + nl,
					       sizeof L->lower_note - nl,
					       "%snot %s: %s", nl ? "; " : "",
					       lower_info[id].kernel, why);
	}
	return graph_error(m->g, L->node, m->d,
			   "no kernel serves a %s layer%s%s (compiler/lower.def)",
			   graph_op_name(n->op), nl ? ": " : "", L->lower_note);
}

/* ---- DRAM planning ----------------------------------------------------- */

static uint64_t align_up(uint64_t x) { return (x + ALIGN - 1) & ~(uint64_t)(ALIGN - 1); }

/* Bytes of a constant as its kernel reads it. */
static uint64_t wbytes(const struct mctx *m, int t)
{
	int64_t n = graph_elems(T(m, t));
	switch (m->wl[t]) {
	case WL_BIAS: case WL_F32: case WL_I32: return (uint64_t)n * 4;
	default: return (uint64_t)n * (uint64_t)dt_bytes(m->p->dtype);
	}
}

struct live {
	int t;
	uint64_t bytes;
};

static int by_size_desc(const void *a, const void *b)
{
	const struct live *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return x->t - y->t; /* deterministic */
}

/*
 * Activations by liveness: greedy by size (the largest first, each at the
 * lowest offset that overlaps no placed tensor alive at the same time) -
 * the "greedy by size" offset planner of TFLite's arena (Pisarchyk and
 * Lee, "Efficient memory management for deep neural net inference",
 * 2020).  Deterministic: ties by tensor index.
 */
static int plan_arena(struct mctx *m)
{
	struct map_plan *p = m->p;
	struct live *v = malloc((size_t)(p->n_tensors + 1) * sizeof *v);
	int *placed = malloc((size_t)(p->n_tensors + 1) * sizeof *placed);
	struct { uint64_t lo, hi; } *iv =
		malloc((size_t)(p->n_tensors + 1) * sizeof *iv);
	if (!v || !placed || !iv) {
		free(v); free(placed); free(iv);
		return diag_error(m->d, diag_nowhere(), NPU_ENOMEM,
				  "out of memory");
	}
	int nv = 0, np = 0;
	for (int t = 0; t < p->n_tensors; t++) {
		const struct map_tensor *x = &p->t[t];
		if (x->root != t || x->wlay || x->first < 0 ||
		    is_const(m, t))
			continue;
		v[nv].t = t;
		v[nv].bytes = align_up(x->bytes ? x->bytes : 1);
		p->act_naive += v[nv].bytes;
		nv++;
	}
	qsort(v, (size_t)nv, sizeof *v, by_size_desc);
	for (int i = 0; i < nv; i++) {
		struct map_tensor *x = &p->t[v[i].t];
		/* the intervals in use during x's life, sorted by offset */
		int ni = 0;
		for (int j = 0; j < np; j++) {
			const struct map_tensor *y = &p->t[placed[j]];
			if (y->first > x->last || x->first > y->last)
				continue;
			iv[ni].lo = y->addr - p->act_base;
			iv[ni].hi = iv[ni].lo + align_up(y->bytes ? y->bytes : 1);
			ni++;
		}
		uint64_t off = 0;
		for (int again = 1; again;) {
			again = 0;
			for (int j = 0; j < ni; j++)
				if (off < iv[j].hi && iv[j].lo < off + v[i].bytes) {
					off = iv[j].hi;
					again = 1;
				}
		}
		x->addr = p->act_base + off;
		if (off + v[i].bytes > p->act_peak)
			p->act_peak = off + v[i].bytes;
		placed[np++] = v[i].t;
	}
	free(v);
	free(placed);
	free(iv);
	return 0;
}

/* ---- the plan ---------------------------------------------------------- */

static int root_of(const struct map_plan *p, int t)
{
	while (p->t[t].root != t)
		t = p->t[t].root;
	return t;
}

/* dst is src's bytes from offset on. */
static void make_view(struct map_plan *p, int dst, int src, uint64_t offset)
{
	p->t[dst].root = root_of(p, src);
	p->t[dst].offset = p->t[src].offset + offset;
	p->t[dst].layout = p->t[src].layout;
}

/*
 * A Split, or a Slice with unit steps along one axis, whose input has only
 * 1s before that axis: every part is one contiguous run of the input's
 * bytes (GPT-2's fused QKV split of a single token), so each output is a
 * view at its offset and nothing moves.  Row-major inputs only.
 */
static int contiguous_parts(struct mctx *m, int k)
{
	const struct g_node *n = &m->g->nodes[k];
	const struct g_tensor *x = T(m, n->in[0]);
	struct map_plan *p = m->p;
	if (p->t[root_of(p, n->in[0])].layout != MAP_ROWMAJOR)
		return 0;
	int axis = -1;
	int64_t start = 0;
	if (n->op == G_SPLIT) {
		axis = n->axis < 0 ? n->axis + x->rank : n->axis;
	} else {
		/* the one axis whose extent changes, unit steps */
		const struct g_tensor *y = T(m, n->out[0]);
		for (int i = 0; i < x->rank; i++)
			if (y->dim[i] != x->dim[i]) {
				if (axis >= 0)
					return 0;
				axis = i;
			}
		if (axis < 0)
			axis = 0;
		int na = n->n_in > 3 && n->in[3] >= 0 ?
			 (int)graph_elems(T(m, n->in[3])) : x->rank;
		for (int j = 0; j < na; j++) {
			int64_t ax = j, st = 1, b = 0;
			if (n->n_in > 3 && n->in[3] >= 0 &&
			    graph_const_i64(T(m, n->in[3]), j, &ax))
				return 0;
			if (ax < 0)
				ax += x->rank;
			if (n->n_in > 4 && n->in[4] >= 0 &&
			    graph_const_i64(T(m, n->in[4]), j, &st))
				return 0;
			if (graph_const_i64(T(m, n->in[1]), j, &b))
				return 0;
			if (ax != axis)
				continue;
			if (st != 1)
				return 0;
			if (b < 0)
				b += x->dim[axis];
			start = b < 0 ? 0 : b > x->dim[axis] ? x->dim[axis] : b;
		}
	}
	if (axis < 0 || axis >= x->rank)
		return 0;
	int64_t outer = 1, inner = 1;
	for (int i = 0; i < axis; i++)
		outer *= x->dim[i];
	for (int i = axis + 1; i < x->rank; i++)
		inner *= x->dim[i];
	if (outer != 1)
		return 0;
	uint64_t eb = (uint64_t)dt_bytes(p->dtype), off = (uint64_t)(start * inner) * eb;
	for (int o = 0; o < n->n_out; o++) {
		if (n->out[o] < 0)
			continue;
		make_view(p, n->out[o], n->in[0], off);
		off += (uint64_t)(T(m, n->out[o])->dim[axis] * inner) * eb;
	}
	return 1;
}

static int weight_exp(const struct mctx *m, int t)
{
	double mx = 0;
	const struct g_tensor *x = T(m, t);
	int64_t n = graph_elems(x);
	if (x->dtype == G_DT_F32 && x->data) {
		/* the common case, without a lookup per element: ResNet-50's
		 * 25 M weights */
		const float *f = x->data;
		/* Eight running maxima in float: one chain waited on each
		 * compare (30 ms for ResNet-50).  The float maximum converts
		 * to the double one exactly, and NaNs are skipped alike. */
		float m8[8] = { 0 };
		int64_t i = 0;
		for (; i + 8 <= n; i += 8)
			for (int k = 0; k < 8; k++)
				if (fabsf(f[i + k]) > m8[k])
					m8[k] = fabsf(f[i + k]);
		for (; i < n; i++)
			if (fabsf(f[i]) > m8[0])
				m8[0] = fabsf(f[i]);
		for (int k = 0; k < 8; k++)
			if (m8[k] > mx)
				mx = m8[k];
	} else {
		for (int64_t i = 0; i < n; i++) {
			double v;
			if (graph_const_f64(x, i, &v) == 0 && fabs(v) > mx)
				mx = fabs(v);
		}
	}
	mx *= fabs(m->wscale[t]);
	if (mx == 0)
		return -7;
	/* the smallest e with max|w| / 2^e <= 127 */
	return (int)ceil(log2(mx / 127.0));
}

static int plan_build(const struct graph *g, const struct arch *a,
		      const struct map_opts *o, struct map_plan *p,
		      struct diag *d);

/* Union-find over tensors: the exponent groups of calibrate(). */
static int grp_find(int *par, int t)
{
	while (par[t] != t)
		t = par[t] = par[par[t]];
	return t;
}

static void grp_join(int *par, int a, int b)
{
	a = grp_find(par, a);
	b = grp_find(par, b);
	if (a != b)
		par[a > b ? a : b] = a < b ? a : b;
}

/* An int8 tensor whose exponent calibrate() sets: an activation, or a
 * constant the plan stores as one (an elementwise operand, WL_ROW). */
static int calib_member(const struct mctx *m, int t)
{
	return t >= 0 && m->p->t[t].dt == DT_INT8 &&
	       (!is_const(m, t) || m->wl[t] == WL_ROW);
}

/*
 * Calibrated int8 exponents (docs/models.md "int8"): tensors that must
 * share a format are grouped - a view and its source, every operand and
 * result of an op that does not rescale (pooling, elementwise, Concat,
 * Pad, copies, Gather's data), a fused residual and its layer's output -
 * and each group gets the smallest exponent e with max|x| / 2^e <= 127
 * over its members (amax[t] for activations, measured; the values of
 * constants).  Only convolutions and matrix products rescale: their
 * output shift comes from their operands' exponents and the output's.
 */
static int calibrate(struct mctx *m, const float *amax)
{
	const struct graph *g = m->g;
	int nt = g->n_tensors;
	int *par = malloc(((size_t)nt + 1) * sizeof *par);
	double *mx = calloc((size_t)nt + 1, sizeof *mx);
	if (!par || !mx) {
		free(par);
		free(mx);
		return NPU_ENOMEM;
	}
	for (int t = 0; t < nt; t++)
		par[t] = t;
	for (int k = 0; k < g->n_nodes; k++) {
		const struct g_node *n = &g->nodes[k];
		int y = n->n_out ? n->out[0] : -1;
		if (n->op == G_CONSTANT || !calib_member(m, y))
			continue;
		if (n->res >= 0 && calib_member(m, n->res))
			grp_join(par, y, n->res);
		if (n->op == G_CONV || n->op == G_MATMUL || n->op == G_GEMM)
			continue;
		for (int i = 0; i < n->n_in; i++)
			if (calib_member(m, n->in[i]))
				grp_join(par, y, n->in[i]);
		for (int o = 1; o < n->n_out; o++)
			if (calib_member(m, n->out[o]))
				grp_join(par, y, n->out[o]);
	}
	for (int t = 0; t < nt; t++) {
		if (!calib_member(m, t))
			continue;
		double v = amax[t];
		if (is_const(m, t)) {
			v = 0;
			for (int64_t i = 0; i < graph_elems(T(m, t)); i++) {
				double c;
				if (!graph_const_f64(T(m, t), i, &c) && fabs(c) > v)
					v = fabs(c);
			}
		}
		int r = grp_find(par, t);
		if (v > mx[r])
			mx[r] = v;
	}
	/* each group's exponent, at its root */
	int *gx = malloc(((size_t)nt + 1) * sizeof *gx);
	if (!gx) {
		free(par);
		free(mx);
		return NPU_ENOMEM;
	}
	for (int t = 0; t < nt; t++) {
		double v = mx[t];
		int e = v > 0 ? (int)ceil(log2(v / 127.0)) : INT8_ACT_EXP;
		gx[t] = e < -15 ? -15 : e > 7 ? 7 : e;
	}
	/* a product's output no finer than the product (its shift right is
	 * never negative): raise the output's group, to a fixed point (each
	 * rise only ever raises others) */
	for (int changed = 1; changed;) {
		changed = 0;
		for (int k = 0; k < g->n_nodes; k++) {
			const struct g_node *n = &g->nodes[k];
			if ((n->op != G_CONV && n->op != G_MATMUL &&
			     n->op != G_GEMM) || !calib_member(m, n->out[0]) ||
			    !calib_member(m, n->in[0]))
				continue;
			int w = n->in[1];
			int ew = calib_member(m, w) && !is_const(m, w)
				 ? gx[grp_find(par, w)] : m->wexp[w];
			int need = gx[grp_find(par, n->in[0])] + ew;
			int *ey = &gx[grp_find(par, n->out[0])];
			if (*ey < need && need <= 7) {
				*ey = need;
				changed = 1;
			}
		}
	}
	for (int t = 0; t < nt; t++)
		if (calib_member(m, t))
			m->p->t[t].exp = gx[grp_find(par, t)];
	free(gx);
	free(par);
	free(mx);
	return 0;
}

/*
 * The element type by default: int8 on a chip whose array takes integers
 * - when every layer has an int8 kernel; a model with float-only layers
 * (Softmax, LayerNormalization, GELU, ...) runs in bf16 there, with a
 * note.  bf16 on float chips.
 */
int map_plan_build(const struct graph *g, const struct arch *a,
		   const struct map_opts *o, struct map_plan *p, struct diag *d)
{
	int it = (int)ARCH_E(a, MTX_IN_TYPE);
	int intchip = it == ARCH_MTX_IN_TYPE_INT8 || it == ARCH_MTX_IN_TYPE_INT4 ||
		      it == ARCH_MTX_IN_TYPE_INT16;
	if (o->dtype != DT_N || !intchip) {
		struct map_opts o2 = *o;
		if (o2.dtype == DT_N)
			o2.dtype = DT_BF16;
		return plan_build(g, a, &o2, p, d);
	}
	struct map_opts o8 = *o, o16 = *o;
	struct diag quiet;
	diag_init(&quiet, NULL);
	o8.dtype = DT_INT8;
	if (!plan_build(g, a, &o8, p, &quiet))
		return 0;
	if (quiet.last_err != NPU_EMODEL)   /* not a missing int8 kernel */
		return plan_build(g, a, &o8, p, d);
	o16.dtype = DT_BF16;
	int rc = plan_build(g, a, &o16, p, d);
	if (!rc) {
		/* the reason without its "file: error: " */
		const char *why = strstr(quiet.last, "error: ");
		diag_note(d, diag_at_file(g->source, 0, 0),
			  "the model runs in bf16 on this int8 chip: %s "
			  "(--dtype chooses)", why ? why + 7 : quiet.last);
	}
	return rc;
}

static int plan_build(const struct graph *g, const struct arch *a,
		      const struct map_opts *o, struct map_plan *p,
		      struct diag *d)
{
	struct mctx m = { g, a, o, p, d, NULL, NULL, NULL };
	int rc = 0;
	memset(p, 0, sizeof *p);
	p->dtype = o->dtype;
	if (p->dtype != DT_INT8 && p->dtype != DT_BF16)
		return diag_error(d, diag_nowhere(), NPU_EUSAGE,
				  "model dtype %s: int8 or bf16",
				  dtype_name(p->dtype));
	p->n_tensors = g->n_tensors;
	p->t = calloc((size_t)g->n_tensors + 1, sizeof *p->t);
	m.wl = calloc((size_t)g->n_tensors + 1, sizeof *m.wl);
	m.wscale = malloc(((size_t)g->n_tensors + 1) * sizeof *m.wscale);
	m.wexp = calloc((size_t)g->n_tensors + 1, sizeof *m.wexp);
	p->layers = calloc((size_t)g->n_nodes + 1, sizeof *p->layers);
	if (!p->t || !m.wl || !m.wscale || !m.wexp || !p->layers) {
		rc = diag_error(d, diag_nowhere(), NPU_ENOMEM, "out of memory");
		goto out;
	}
	for (int t = 0; t < g->n_tensors; t++) {
		struct map_tensor *x = &p->t[t];
		x->addr = MAP_NOADDR;
		x->root = t;
		x->first = x->last = -1;
		enum g_dtype gd = g->tensors[t].dtype;
		x->dt = gd == G_DT_I64 || gd == G_DT_I32 ? DT_INT32 :
			gd == G_DT_I8 ? DT_INT8 : p->dtype;
		/* int8 activations of an int8 run are Q3.4; a QDQ model's
		 * int8 tensors are its own integers */
		x->exp = p->dtype == DT_INT8 && x->dt == DT_INT8 ? INT8_ACT_EXP : 0;
		x->bytes = (uint64_t)graph_elems(&g->tensors[t]) *
			   (uint64_t)dt_bytes(x->dt);
		m.wscale[t] = 1.0f;
	}
	assign_layouts(&m);

	/* Layers, views as aliases; liveness in layer indices. */
	for (int k = 0; k < g->n_nodes; k++) {
		const struct g_node *n = &g->nodes[k];
		if (n->op == G_CONSTANT)
			continue;
		if (is_view_op(n->op)) {
			int src = n->in[0], dst = n->out[0];
			int nhwc = p->t[root_of(p, src)].layout == MAP_NHWC;
			const struct g_tensor *s = T(&m, src);
			/* NHWC viewed as another shape keeps its bytes only
			 * when H*W = 1 (a pooled vector) or C = 1; else
			 * the view is a layer reordering them (map_reorder) */
			if (!nhwc || s->rank != 4 || s->dim[2] * s->dim[3] == 1 ||
			    s->dim[1] == 1) {
				make_view(p, dst, src, 0);
				continue;
			}
		}
		if ((n->op == G_SPLIT || n->op == G_SLICE) &&
		    contiguous_parts(&m, k))
			continue;
		struct map_layer *L = &p->layers[p->n_layers];
		L->node = k;
		L->name = strdup(n->name);
		if (!L->name) {
			rc = diag_error(d, diag_nowhere(), NPU_ENOMEM,
					"out of memory");
			goto out;
		}
		snprintf(L->op, sizeof L->op, "%s%s%s", graph_op_name(n->op),
			 n->n_fused ? "+" : "", n->n_fused ? n->fused : "");
		char si[64], so[64];
		shape_str(T(&m, n->in[0] >= 0 ? n->in[0] : n->out[0]), si,
			  sizeof si);
		shape_str(T(&m, n->out[0]), so, sizeof so);
		snprintf(L->shapes, sizeof L->shapes, "%s -> %s", si, so);
		int li = p->n_layers++;
		for (int i = -1; i < n->n_in + 1; i++) {
			int t = i < 0 ? n->res : i < n->n_in ? n->in[i] : -1;
			if (i == n->n_in)
				continue;
			if (t < 0 || is_const(&m, t))
				continue;
			struct map_tensor *r = &p->t[root_of(p, t)];
			if (r->first < 0)
				r->first = li;
			r->last = li;
		}
		for (int o2 = 0; o2 < n->n_out; o2++) {
			int t = n->out[o2];
			if (t < 0)
				continue;
			struct map_tensor *r = &p->t[root_of(p, t)];
			if (r->first < 0)
				r->first = li;
			if (r->last < li)
				r->last = li;
		}
	}
	if (o->keep_all)
		for (int t = 0; t < g->n_tensors; t++)
			if (p->t[t].root == t && p->t[t].first >= 0)
				p->t[t].last = p->n_layers;
	/* Graph inputs live from the start, outputs to the end. */
	for (int i = 0; i < g->n_inputs; i++) {
		struct map_tensor *r = &p->t[root_of(p, g->inputs[i])];
		r->first = 0;
		if (r->last < 0)
			r->last = 0;
	}
	for (int i = 0; i < g->n_outputs; i++) {
		struct map_tensor *r = &p->t[root_of(p, g->outputs[i])];
		if (r->first < 0)
			r->first = 0;
		r->last = p->n_layers;
	}

	/* Constants first: a dry mapping pass marks how each is read.  The
	 * steps it makes are thrown away; the real pass below has addresses. */
	for (int l = 0; l < p->n_layers && !rc; l++)
		rc = map_node(&m, &p->layers[l], &g->nodes[p->layers[l].node]);
	for (int l = 0; l < p->n_layers; l++) {
		struct map_layer *L = &p->layers[l];
		for (int s = 0; s < L->n_steps; s++)
			free(L->steps[s].src);
		free(L->steps);
		L->steps = NULL;
		L->n_steps = 0;
		L->macs = 0;
		L->kernels[0] = L->tiling[0] = 0;
	}
	if (rc)
		goto out;
	uint64_t at = 0;
	for (int t = 0; t < g->n_tensors; t++) {
		if (!is_const(&m, t) || m.wl[t] == WL_NONE)
			continue;
		struct map_tensor *x = &p->t[t];
		x->wlay = (int)m.wl[t];
		x->bytes = wbytes(&m, t);
		x->addr = at;
		if (p->dtype == DT_INT8 && m.wl[t] != WL_BIAS &&
		    m.wl[t] != WL_F32)
			m.wexp[t] = weight_exp(&m, t);
		at = align_up(at + x->bytes);
	}
	p->weights_bytes = at;
	/* after the weights' exponents: the products' shifts need them */
	if (p->dtype == DT_INT8 && o->amax && (rc = calibrate(&m, o->amax))) {
		rc = diag_error(d, diag_nowhere(), rc, "out of memory");
		goto out;
	}
	p->act_base = align_up(at) + 4096;
	if ((rc = plan_arena(&m)))
		goto out;
	p->dram_bytes = p->act_base + p->act_peak;
	if (o->images > 1) {
		/* image k's arena: k arenas above the first (each image's
		 * activations planned alike, the weights shared) */
		uint64_t span = align_up(p->act_peak) + 4096;
		uint64_t shift = (uint64_t)o->image * span;
		for (int t = 0; t < g->n_tensors; t++)
			if (p->t[t].root == t && !p->t[t].wlay &&
			    p->t[t].addr != MAP_NOADDR &&
			    p->t[t].addr >= p->act_base)
				p->t[t].addr += shift;
		p->act_base += shift;
		p->act_span = span;
		p->dram_bytes = p->act_base - shift + span * (uint64_t)o->images;
	}
	if (p->dram_bytes > (uint64_t)ARCH_I(a, DRAM_BYTES)) {
		rc = diag_error(d, diag_nowhere(), NPU_ECONFIG,
				"the model needs %llu bytes of DRAM (weights "
				"%llu, activations %llu at their peak%s); the "
				"config has dram.bytes = %llu: raise it with -s "
				"dram.bytes=N",
				(unsigned long long)p->dram_bytes,
				(unsigned long long)p->weights_bytes,
				(unsigned long long)p->act_peak,
				o->images > 1 ? " per image in flight" : "",
				(unsigned long long)ARCH_I(a, DRAM_BYTES));
		goto out;
	}
	for (int l = 0; l < p->n_layers && !rc; l++)
		rc = map_node(&m, &p->layers[l], &g->nodes[p->layers[l].node]);
	/* Views: their root's address and their offset. */
	for (int t = 0; t < g->n_tensors; t++)
		if (p->t[t].root != t)
			p->t[t].addr = p->t[p->t[t].root].addr + p->t[t].offset;
	/* The constants' scales for map_write_consts. */
	for (int t = 0; t < g->n_tensors && !rc; t++) {
		if (!p->t[t].wlay)
			continue;
		if (m.wl[t] != WL_ROW) /* a WL_ROW constant: its group's */
			p->t[t].exp = m.wexp[t];
		p->t[t].scale = m.wscale[t];
	}
out:
	free(m.wl);
	free(m.wscale);
	free(m.wexp);
	if (rc)
		map_plan_free(p);
	return rc;
}

void map_plan_free(struct map_plan *p)
{
	for (int l = 0; l < p->n_layers; l++) {
		struct map_layer *L = &p->layers[l];
		for (int s = 0; s < L->n_steps; s++)
			free(L->steps[s].src);
		free(L->steps);
		free(L->name);
	}
	free(p->layers);
	free(p->t);
	memset(p, 0, sizeof *p);
}

/* ---- values ------------------------------------------------------------ */

/* A weight the source did not give (topology CSV): uniform in
 * +-sqrt(3 / fan_in) (unit variance of the products' sum), from a
 * xorshift generator seeded by the tensor's index and element. */
static double synth_value(const struct g_tensor *t, int ti, int64_t i)
{
	uint64_t x = ((uint64_t)ti << 32) ^ (uint64_t)i ^ 0x9e3779b97f4a7c15ull;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	double u = (double)(x >> 11) / 9007199254740992.0 * 2 - 1;
	int64_t fan = t->rank > 1 ? graph_elems(t) / t->dim[0] : 1;
	return u * sqrt(3.0 / (double)(fan ? fan : 1));
}

static double cval(const struct graph *g, int t, int64_t i)
{
	const struct g_tensor *x = &g->tensors[t];
	double v = 0;
	if (!x->data)
		return synth_value(x, t, i);
	(void)graph_const_f64(x, i, &v);
	return v;
}

static void put(enum npu_dtype dt, uint8_t *base, uint64_t i, double v,
		int exp)
{
	if (dt == DT_INT8 || dt == DT_INT32)
		v = ldexp(v, -exp);
	num_store(dt, base, i, v, NUM_OVF_SAT);
}

int map_write_consts(const struct graph *g, const struct map_plan *p,
		     uint8_t *dram, uint64_t n, struct diag *d)
{
	for (int t = 0; t < p->n_tensors; t++) {
		const struct map_tensor *x = &p->t[t];
		const struct g_tensor *gt = &g->tensors[t];
		if (!x->wlay)
			continue;
		if (x->addr + x->bytes > n)
			return diag_error(d, diag_nowhere(), NPU_EINTERNAL,
					  "constant '%s' beyond the DRAM",
					  gt->name);
		uint8_t *b = dram + x->addr;
		int64_t ne = graph_elems(gt);
		enum npu_dtype dt = p->dtype;
		double s = x->scale;
		switch ((enum wlay)x->wlay) {
		case WL_CONV: {
			int64_t co = gt->dim[0], ci = gt->dim[1],
				kh = gt->dim[2], kw = gt->dim[3];
			for (int64_t o = 0; o < co; o++)
				for (int64_t c = 0; c < ci; c++)
					for (int64_t y = 0; y < kh; y++)
						for (int64_t z = 0; z < kw; z++) {
							int64_t si = ((o * ci + c) * kh + y) * kw + z;
							int64_t r = (y * kw + z) * ci + c;
							put(dt, b, (uint64_t)(r * co + o),
							    s * cval(g, t, si), x->exp);
						}
			break;
		}
		case WL_DW: {
			int64_t c = gt->dim[0], kk = gt->dim[2] * gt->dim[3];
			for (int64_t ch = 0; ch < c; ch++)
				for (int64_t k = 0; k < kk; k++)
					put(dt, b, (uint64_t)(k * c + ch),
					    s * cval(g, t, ch * kk + k), x->exp);
			break;
		}
		case WL_MAT_T: {
			int64_t nn = gt->dim[0], kk = gt->dim[1];
			for (int64_t i = 0; i < nn; i++)
				for (int64_t k = 0; k < kk; k++)
					put(dt, b, (uint64_t)(k * nn + i),
					    s * cval(g, t, i * kk + k), x->exp);
			break;
		}
		case WL_BIAS:
			dt = dt == DT_INT8 ? DT_INT32 : DT_FP32;
			for (int64_t i = 0; i < ne; i++)
				put(dt, b, (uint64_t)i, s * cval(g, t, i), x->exp);
			break;
		case WL_F32:
			for (int64_t i = 0; i < ne; i++)
				put(DT_FP32, b, (uint64_t)i, s * cval(g, t, i), 0);
			break;
		case WL_I32:
			for (int64_t i = 0; i < ne; i++)
				num_store(DT_INT32, b, (uint64_t)i, cval(g, t, i),
					  NUM_OVF_SAT);
			break;
		case WL_MAT:
		case WL_ROW:
			for (int64_t i = 0; i < ne; i++)
				put(dt, b, (uint64_t)i, s * cval(g, t, i), x->exp);
			break;
		case WL_NONE:
			break;
		}
	}
	return 0;
}

/* Element i (logical NCHW / row-major index) of tensor t: its index in
 * DRAM order. */
static uint64_t phys_index(const struct g_tensor *gt, enum map_layout l,
			   int64_t i)
{
	if (l != MAP_NHWC)
		return (uint64_t)i;
	int64_t c = gt->dim[1], h = gt->dim[2], w = gt->dim[3];
	int64_t x = i % w, y = i / w % h, ch = i / (w * h) % c,
		nn = i / (w * h * c);
	return (uint64_t)(((nn * h + y) * w + x) * c + ch);
}

static int tensor_span(const struct graph *g, const struct map_plan *p, int t,
		       uint64_t n, struct diag *d)
{
	const struct map_tensor *x = &p->t[t];
	if (x->addr == MAP_NOADDR || x->addr + x->bytes > n)
		return diag_error(d, diag_nowhere(), NPU_EINTERNAL,
				  "tensor '%s' has no DRAM place",
				  g->tensors[t].name);
	return 0;
}

int map_write_input(const struct graph *g, const struct map_plan *p, int t,
		    const float *v, uint8_t *dram, uint64_t n, struct diag *d)
{
	int rc = tensor_span(g, p, t, n, d);
	if (rc)
		return rc;
	const struct g_tensor *gt = &g->tensors[t];
	const struct map_tensor *x = &p->t[t];
	/* a view is read in its own order: the views the mapper accepts
	 * keep the elements' order (docs/models.md) */
	enum map_layout l = x->root == t ? x->layout : MAP_ROWMAJOR;
	for (int64_t i = 0; i < graph_elems(gt); i++)
		put(x->dt, dram + x->addr, phys_index(gt, l, i), v[i],
		    x->dt == DT_INT32 ? 0 : x->exp);
	return 0;
}

int map_read_tensor(const struct graph *g, const struct map_plan *p, int t,
		    const uint8_t *dram, uint64_t n, float *v, struct diag *d)
{
	int rc = tensor_span(g, p, t, n, d);
	if (rc)
		return rc;
	const struct g_tensor *gt = &g->tensors[t];
	const struct map_tensor *x = &p->t[t];
	enum map_layout l = x->root == t ? x->layout : MAP_ROWMAJOR;
	for (int64_t i = 0; i < graph_elems(gt); i++) {
		double q = num_load(x->dt, dram + x->addr, phys_index(gt, l, i));
		v[i] = (float)(x->dt == DT_INT8 ? ldexp(q, x->exp) : q);
	}
	return 0;
}
