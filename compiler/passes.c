/*
 * passes.c - graph_simplify (graph.h): rewrites of an inferred graph that
 * leave its values unchanged.  docs/models.md "Passes" says for each what
 * it does, when it applies and why it is exact.  In order:
 *
 *   1. fold constant nodes (fold.h)
 *   2. remove Identity and Dropout
 *   3. fold BatchNormalization into the Conv or Gemm before it
 *   4. recognise the decomposed LayerNormalization and the GELU patterns
 *   5. unless o->no_fuse: fuse into each Conv/MatMul/Gemm, in this order,
 *      a bias Add, an activation, a residual Add:
 *          y = act(op(...) + bias) + res
 *   6. legalise for the kernels: a Conv's or pooling's uneven pads become
 *      a Pad node before it, a Concat of more than two inputs a chain of two-input
 *      Concats (new nodes inserted in place, the order topological)
 *   7. graph_uses: drop what nobody reads, compact
 *
 * A rewritten node keeps its slot in the node array when its inputs are
 * all available there; a node that absorbs a later one (a residual add
 * reads a tensor made after the conv) moves to the later node's slot, so
 * the order stays topological.  Removed nodes are killed in place (no
 * outputs, no inputs) and compacted away at the end; between rewrites
 * the readers of every tensor are recounted (refresh).
 */
#include "graph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fold.h"

struct pass {
	struct graph *g;
	struct diag *d;
	int *reader;     /* per tensor: a node that reads it, -1 */
	int cap_reader;
};

/* Recount producers, readers and n_uses over the live nodes. */
static int refresh(struct pass *p)
{
	struct graph *g = p->g;
	if (g->n_tensors > p->cap_reader) {
		int *r = realloc(p->reader, (size_t)g->n_tensors * sizeof *r);
		if (!r)
			return NPU_ENOMEM;
		p->reader = r;
		p->cap_reader = g->n_tensors;
	}
	for (int t = 0; t < g->n_tensors; t++) {
		g->tensors[t].producer = -1;
		g->tensors[t].n_uses = 0;
		p->reader[t] = -1;
	}
	for (int k = 0; k < g->n_nodes; k++) {
		const struct g_node *n = &g->nodes[k];
		for (int o = 0; o < n->n_out; o++)
			if (n->out[o] >= 0)
				g->tensors[n->out[o]].producer = k;
		for (int i = 0; i < n->n_in; i++)
			if (n->in[i] >= 0) {
				g->tensors[n->in[i]].n_uses++;
				p->reader[n->in[i]] = k;
			}
		if (n->res >= 0) {
			g->tensors[n->res].n_uses++;
			p->reader[n->res] = k;
		}
	}
	return 0;
}

/* Remove node k: no outputs (graph_uses drops it), no inputs (it reads
 * nothing meanwhile). */
static void kill(struct graph *g, int k)
{
	struct g_node *n = &g->nodes[k];
	n->n_in = n->n_out = 0;
	n->res = -1;
}

static int producer(const struct graph *g, int t)
{
	return t < 0 ? -1 : g->tensors[t].producer;
}

/* t is read by exactly one node and is not a graph output: a rewrite may
 * make it disappear. */
static int private_t(const struct graph *g, int t)
{
	return t >= 0 && g->tensors[t].n_uses == 1 &&
	       !(g->tensors[t].flags & G_T_OUTPUT);
}

/* The node that alone reads t, or -1. */
static int sole_reader(const struct pass *p, int t)
{
	return private_t(p->g, t) ? p->reader[t] : -1;
}

/* Node k exists, has op and nothing fused into it yet. */
static int is_op(const struct graph *g, int k, enum g_op op)
{
	return k >= 0 && g->nodes[k].op == op && g->nodes[k].n_out > 0 &&
	       g->nodes[k].act == G_ACT_NONE && g->nodes[k].res < 0;
}

/* The other input of a two-input node that reads t (-1: none). */
static int other_in(const struct g_node *n, int t)
{
	if (n->n_in != 2)
		return -1;
	return n->in[0] == t ? n->in[1] : n->in[1] == t ? n->in[0] : -1;
}

static int is_const(const struct graph *g, int t)
{
	return t >= 0 && (g->tensors[t].flags & G_T_CONST);
}

/* A constant with one element, its value in v. */
static int scalar(const struct graph *g, int t, double *v)
{
	return t >= 0 && is_const(g, t) && g->tensors[t].data &&
	       graph_elems(&g->tensors[t]) == 1 &&
	       !graph_const_f64(&g->tensors[t], 0, v);
}

/* Exporters write constants such as sqrt(2) in float32: 1e-4 relative. */
static int near(double v, double want)
{
	return fabs(v - want) <= 1e-4 * fabs(want);
}

static int is_scalar(const struct graph *g, int t, double want)
{
	double v;
	return scalar(g, t, &v) && near(v, want);
}

/* Record that node n absorbed count source nodes of op name. */
static void add_fused(struct g_node *n, const char *name, int count)
{
	size_t l = strlen(n->fused);
	if (l + strlen(name) + 2 < sizeof n->fused)
		snprintf(n->fused + l, sizeof n->fused - l, "%s%s",
			 l ? "+" : "", name);
	n->n_fused += count;
}

/* Every read of tensor from (inputs and residuals of live nodes) now
 * reads to. */
static void replace_reads(struct graph *g, int from, int to)
{
	for (int k = 0; k < g->n_nodes; k++) {
		struct g_node *n = &g->nodes[k];
		for (int i = 0; i < n->n_in; i++)
			if (n->in[i] == from)
				n->in[i] = to;
		if (n->res == from)
			n->res = to;
	}
}

/* A new tensor named base + suffix (+ a number when taken); -1 on
 * allocation failure.  g->tensors may move. */
static int new_tensor(struct graph *g, const char *base, const char *suffix)
{
	char name[512];
	for (int i = 1;; i++) {
		if (i == 1)
			snprintf(name, sizeof name, "%s%s", base, suffix);
		else
			snprintf(name, sizeof name, "%s%s%d", base, suffix, i);
		if (graph_find(g, name) < 0)
			return graph_tensor(g, name);
	}
}

/* A constant copy of t with the given shape (same elements), -1 on
 * allocation failure. */
static int const_reshaped(struct graph *g, int t, const char *suffix,
			  int rank, const int64_t *dim)
{
	int c = new_tensor(g, g->tensors[t].name, suffix);
	if (c < 0)
		return -1;
	struct g_tensor *s = &g->tensors[t], *x = &g->tensors[c];
	x->dtype = s->dtype;
	x->rank = rank;
	memcpy(x->dim, dim, (size_t)rank * sizeof *dim);
	x->flags = s->flags & (G_T_CONST | G_T_SYNTH);
	if (s->data) {
		x->data = malloc(graph_bytes(s) + 1);
		if (!x->data)
			return -1;
		memcpy(x->data, s->data, graph_bytes(s));
	}
	return c;
}

/* ---- 1. constants ------------------------------------------------------- */

/* Evaluate what can be; remove every node whose outputs are all
 * constants. */
static int fold_constants(struct pass *p)
{
	struct graph *g = p->g;
	for (int k = 0; k < g->n_nodes; k++) {
		const struct g_node *n = &g->nodes[k];
		if (!n->n_out)
			continue;
		int e = fold_node(g, k, FOLD_MAX_ELEMS);
		if (e < 0)
			return e;
		int all = 1;
		for (int o = 0; o < n->n_out; o++)
			if (n->out[o] >= 0 && !is_const(g, n->out[o]))
				all = 0;
		if (all)
			kill(g, k);
	}
	return refresh(p);
}

/* ---- 2. Identity and Dropout ----------------------------------------- */

/* Every element of constant t is exactly v (a zero mask, a unit scale). */
static int all_equal(const struct graph *g, int t, double v)
{
	const struct g_tensor *c = &g->tensors[t];
	if (!is_const(g, t) || !c->data)
		return 0;
	double e;
	for (int64_t i = 0; i < graph_elems(c); i++)
		if (graph_const_f64(c, i, &e) || e != v)
			return 0;
	return 1;
}

/* x + 0, x - 0, x * 1, x / 1 whose output is x's shape (the constant does
 * not broadcast x up): x itself.  BERT's export adds an all-zero mask
 * when no padding is given.  Exact: x + 0 differs from x only in the sign
 * of a zero. */
static int neutral(const struct graph *g, const struct g_node *n)
{
	int c = n->in[1], x = n->in[0];
	if (n->op == G_ADD && all_equal(g, n->in[0], 0)) {
		c = n->in[0];
		x = n->in[1];
	} else if (n->op == G_MUL && all_equal(g, n->in[0], 1)) {
		c = n->in[0];
		x = n->in[1];
	}
	double v = n->op == G_ADD || n->op == G_SUB ? 0 : 1;
	if ((n->op != G_ADD && n->op != G_SUB && n->op != G_MUL &&
	     n->op != G_DIV) || is_const(g, x) || !all_equal(g, c, v))
		return -1;
	const struct g_tensor *tx = &g->tensors[x], *ty = &g->tensors[n->out[0]];
	if (tx->rank != ty->rank || tx->dtype != ty->dtype)
		return -1;
	for (int i = 0; i < tx->rank; i++)
		if (tx->dim[i] != ty->dim[i])
			return -1;
	return x;
}

static int drop_identity(struct pass *p, int k)
{
	struct graph *g = p->g;
	struct g_node *n = &g->nodes[k];
	int nx = n->n_out > 0 && n->act == G_ACT_NONE && n->res < 0 ?
		 neutral(g, n) : -1;
	if (n->op != G_IDENTITY && n->op != G_DROPOUT && nx < 0)
		return 0;
	double train;
	if (n->op == G_DROPOUT && n->n_in > 2 && n->in[2] >= 0 &&
	    (!scalar(g, n->in[2], &train) || train != 0))
		return 0;   /* training_mode not known false: not the identity */
	if (n->n_out > 1 && n->out[1] >= 0 &&
	    (g->tensors[n->out[1]].n_uses ||
	     (g->tensors[n->out[1]].flags & G_T_OUTPUT)))
		return 0;   /* someone reads Dropout's mask */
	int x = nx >= 0 ? nx : n->in[0], y = n->out[0];
	if (!(g->tensors[y].flags & G_T_OUTPUT)) {
		replace_reads(g, y, x);
	} else {
		/* y names a graph output: the node making x makes y instead.
		 * When x comes straight from a graph input or a constant (or
		 * is an output itself) the copy is the node's whole work and
		 * it stays. */
		int q = producer(g, x);
		if (q < 0 || (g->tensors[x].flags & G_T_OUTPUT))
			return 0;
		struct g_node *m = &g->nodes[q];
		for (int o = 0; o < m->n_out; o++)
			if (m->out[o] == x)
				m->out[o] = y;
		replace_reads(g, x, y);
	}
	kill(g, k);
	return 1;
}

/* ---- 3. BatchNormalization into the Conv / Gemm before it ------------ */

static int is_float(enum g_dtype t)
{
	return t == G_DT_F32 || t == G_DT_F16 || t == G_DT_BF16;
}

/* A float constant with values. */
static int float_const(const struct graph *g, int t)
{
	return t >= 0 && is_const(g, t) && g->tensors[t].data &&
	       is_float(g->tensors[t].dtype);
}

/* Tensor t of node q made writable: itself when q alone reads it, else a
 * copy q reads instead.  -1 on allocation failure. */
static int own_copy(struct graph *g, int q, int t, const char *suffix)
{
	if (g->tensors[t].n_uses == 1 &&
	    !(g->tensors[t].flags & (G_T_INPUT | G_T_OUTPUT)))
		return t;
	int c = const_reshaped(g, t, suffix, g->tensors[t].rank,
			       g->tensors[t].dim);
	if (c < 0)
		return -1;
	struct g_node *m = &g->nodes[q];
	for (int i = 0; i < m->n_in; i++)
		if (m->in[i] == t)
			m->in[i] = c;
	return c;
}

#if defined(__GNUC__)
/* Four lanes (GCC/clang vector extensions, SSE2 on the baseline target). */
typedef float v4f32 __attribute__((vector_size(16)));
typedef double v4f64 __attribute__((vector_size(32)));
#endif

/* Constant elements [i, i + n) of t times sc, each rounded back to t's
 * type. */
static void scale_run(struct g_tensor *t, int64_t i, int64_t n, double sc)
{
	if (t->dtype == G_DT_F32) {
		/* fp32 weights (nearly all) without the generic accessors,
		 * four at a time: each element is still widened, multiplied
		 * and rounded once, as the scalar loop does */
		float *f = (float *)t->data + i;
		int64_t r = 0;

#if defined(__GNUC__)
		for (; r + 4 <= n; r += 4) {
			v4f32 x;
			v4f64 d;

			memcpy(&x, f + r, sizeof(x));
			d = __builtin_convertvector(x, v4f64) * sc;
			x = __builtin_convertvector(d, v4f32);
			memcpy(f + r, &x, sizeof(x));
		}
#endif
		for (; r < n; r++)
			f[r] = (float)((double)f[r] * sc);
		return;
	}
	for (int64_t r = i; r < i + n; r++) {
		double v = 0;
		graph_const_f64(t, r, &v);
		fold_store(t->dtype, t->data, r, v * sc);
	}
}

/*
 * y = gamma * (z - mean) / sqrt(var + eps) + beta with z = sum(W x) + b
 * is  z' = sum((s W) x) + (b - mean) s + beta,  s = gamma / sqrt(var + eps),
 * one s per output channel (Conv: weight row m; Gemm: column n of B').
 */
static int fold_batchnorm(struct pass *p, int k)
{
	struct graph *g = p->g;
	struct g_node *bn = &g->nodes[k];
	if (bn->op != G_BATCHNORM)
		return 0;
	int x = bn->in[0], q = producer(g, x);
	if (!private_t(g, x) ||
	    !(is_op(g, q, G_CONV) || is_op(g, q, G_GEMM)))
		return 0;
	for (int i = 1; i <= 4; i++)
		if (!float_const(g, bn->in[i]))
			return 0;
	struct g_node *c = &g->nodes[q];
	int w = c->in[1], b = c->n_in > 2 ? c->in[2] : -1;
	if (!float_const(g, w) || (b >= 0 && !float_const(g, b)))
		return 0;
	int64_t m = g->tensors[x].dim[1];
	if (c->op == G_GEMM && b >= 0 && graph_elems(&g->tensors[b]) != m)
		return 0;   /* a C spanning rows: keep the BN */

	/* s and the new bias in double, then the tensors */
	double *s = malloc((size_t)m * 2 * sizeof *s);
	if (!s)
		return NPU_ENOMEM;
	double *nb = s + m;
	for (int64_t j = 0; j < m; j++) {
		double gam = 0, bet = 0, mu = 0, var = 0, bj = 0;
		graph_const_f64(&g->tensors[bn->in[1]], j, &gam);
		graph_const_f64(&g->tensors[bn->in[2]], j, &bet);
		graph_const_f64(&g->tensors[bn->in[3]], j, &mu);
		graph_const_f64(&g->tensors[bn->in[4]], j, &var);
		if (b >= 0)
			graph_const_f64(&g->tensors[b], j, &bj);
		if (c->op == G_GEMM)
			bj *= c->beta;
		if (!(var + (double)bn->eps > 0)) {
			free(s);
			return 0;   /* a negative variance: leave it be */
		}
		s[j] = gam / sqrt(var + (double)bn->eps);
		nb[j] = (bj - mu) * s[j] + bet;
	}
	int e = NPU_ENOMEM;
	int w2 = own_copy(g, q, w, ".bnfold");
	if (w2 < 0)
		goto out;
	struct g_tensor *wt = &g->tensors[w2];
	int64_t ne = graph_elems(wt);
	/* Element i scales by s[channel]: channel = i / run for OIHW rows
	 * and B [N, K], i % n for B [K, N].  The loops count the channel
	 * along instead of dividing per element: a 64-bit division per
	 * weight was a third of ResNet-50's import. */
	int64_t n = c->op == G_CONV ? m : c->trans_b ? wt->dim[0] : wt->dim[1];
	int64_t run = c->op == G_CONV ? ne / m : c->trans_b ? wt->dim[1] : 1;
	for (int64_t i = 0; i < ne && n > 0 && run > 0;)
		for (int64_t j = 0; j < n && i < ne; j++) {
			int64_t len = run < ne - i ? run : ne - i;

			scale_run(wt, i, len, s[j]);
			i += len;
		}
	int b2;
	if (b >= 0) {
		b2 = own_copy(g, q, b, ".bnfold");
	} else {
		int64_t dim[1] = { m };
		b2 = new_tensor(g, c->name, ".bias");
		if (b2 >= 0) {
			struct g_tensor *bt = &g->tensors[b2];
			bt->dtype = g->tensors[w2].dtype;
			bt->rank = 1;
			bt->dim[0] = dim[0];
			bt->flags = G_T_CONST;
			bt->data = calloc((size_t)m,
					  (size_t)g_dtype_bytes(bt->dtype));
			if (!bt->data)
				b2 = -1;
		}
	}
	if (b2 < 0)
		goto out;
	struct g_tensor *bt = &g->tensors[b2];
	for (int64_t j = 0; j < m; j++)
		fold_store(bt->dtype, bt->data, j, nb[j]);
	c->in[2] = b2;
	c->n_in = 3;
	if (c->op == G_GEMM)
		c->beta = 1;
	c->out[0] = bn->out[0];
	add_fused(c, graph_op_name(G_BATCHNORM), 1);
	kill(g, k);
	e = 1;
out:
	free(s);
	return e;
}

/* ---- 4. patterns -------------------------------------------------------- */

/* The ops of the pattern's nodes in graph order ("Div+Erf+Add+Mul+Mul")
 * into buf (n bytes); sorts parts. */
static void parts_fused(const struct graph *g, int *parts, int np,
			char *buf, size_t n)
{
	for (int i = 1; i < np; i++)
		for (int j = i; j > 0 && parts[j - 1] > parts[j]; j--) {
			int t = parts[j];
			parts[j] = parts[j - 1];
			parts[j - 1] = t;
		}
	size_t l = 0;
	buf[0] = 0;
	for (int i = 0; i < np && l < n; i++)
		l += (size_t)snprintf(buf + l, n - l, "%s%s", i ? "+" : "",
				      graph_op_name(g->nodes[parts[i]].op));
}

/* Kill the pattern's nodes except last. */
static void kill_parts(struct graph *g, const int *parts, int np, int last)
{
	for (int i = 0; i < np; i++)
		if (parts[i] != last)
			kill(g, parts[i]);
}

/* Give node k a new op (attributes back to their defaults) and inputs;
 * it keeps its name, place and first output. */
static void become(struct graph *g, int k, enum g_op op, int n_in,
		   const int *in, const char *fused, int n_fused)
{
	struct g_node *n = &g->nodes[k];
	int out = n->out[0];
	/* defaults as graph_add_node sets them */
	struct g_node keep = *n;
	memset(n, 0, sizeof *n);
	n->name = keep.name;
	n->src_index = keep.src_index;
	n->opset = keep.opset;
	n->op = op;
	for (int i = 0; i < G_MAX_IN; i++)
		n->in[i] = i < n_in ? in[i] : -1;
	for (int i = 0; i < G_MAX_OUT; i++)
		n->out[i] = -1;
	n->n_in = n_in;
	n->n_out = 1;
	n->out[0] = out;
	n->stride[0] = n->stride[1] = n->dil[0] = n->dil[1] = 1;
	n->group = n->keepdims = 1;
	n->alpha = n->beta = 1.0f;
	n->lo = -INFINITY;
	n->hi = INFINITY;
	n->eps = 1e-5f;
	n->axis = op == G_LAYERNORM ? -1 : 0;
	n->res = -1;
	snprintf(n->fused, sizeof n->fused, "%s", fused);
	n->n_fused = n_fused;
}

/* The ReduceMean at k averages x over its trailing axes with keepdims;
 * their count in *m. */
static int mean_trailing(const struct graph *g, int k, int x, int *m)
{
	if (!is_op(g, k, G_REDUCEMEAN) || g->nodes[k].in[0] != x ||
	    !g->nodes[k].keepdims || g->nodes[k].n_axes < 1)
		return 0;
	const struct g_node *n = &g->nodes[k];
	int r = g->tensors[x].rank;
	for (int i = 0; i < n->n_axes; i++)
		if (n->axes[i] != r - n->n_axes + i)
			return 0;
	*m = n->n_axes;
	return 1;
}

/* A constant holding one value per element of the last m axes of x
 * (LayerNorm's gamma and beta), leading 1s allowed: [D], [1, 1, D]. */
static int spans_trailing(const struct graph *g, int c, int x, int m)
{
	if (!is_const(g, c))
		return 0;
	const struct g_tensor *t = &g->tensors[c], *xt = &g->tensors[x];
	if (t->rank < m)
		return 0;
	for (int i = 0; i < t->rank; i++) {
		int j = i - (t->rank - m);      /* trailing axis, or < 0 */
		if (t->dim[i] != (j < 0 ? 1 : xt->dim[xt->rank - m + j]))
			return 0;
	}
	return 1;
}

/* c as LayerNormalization wants it: exactly the normalised shape. */
static int trailing_shape(struct graph *g, int c, int x, int m)
{
	if (c < 0 || g->tensors[c].rank == m)
		return c;
	const struct g_tensor *xt = &g->tensors[x];
	int64_t dim[G_MAX_RANK];
	memcpy(dim, xt->dim + xt->rank - m, (size_t)m * sizeof *dim);
	return const_reshaped(g, c, ".ln", m, dim);
}

/*
 * At the Div of  d = x - mean(x);  d / sqrt(mean(d^2) + eps)  [* gamma]
 * [+ beta], means over the trailing axes, d^2 as Pow(d, 2) or Mul(d, d):
 * one LayerNormalization over those axes.
 */
static int match_layernorm(struct pass *p, int k)
{
	struct graph *g = p->g;
	const struct g_node *dv = &g->nodes[k];
	if (!is_op(g, k, G_DIV))
		return 0;
	int dd = dv->in[0], sq = dv->in[1];
	int ks = producer(g, sq);
	if (!is_op(g, ks, G_SQRT) || !private_t(g, sq))
		return 0;
	int ve = g->nodes[ks].in[0], ke = producer(g, ve);
	if (!is_op(g, ke, G_ADD) || !private_t(g, ve))
		return 0;
	double eps;
	int v = g->nodes[ke].in[0];
	if (scalar(g, v, &eps))
		v = g->nodes[ke].in[1];
	else if (!scalar(g, g->nodes[ke].in[1], &eps))
		return 0;
	int kv = producer(g, v);
	if (!private_t(g, v) || kv < 0)
		return 0;
	int sqd = g->nodes[kv].in[0], kp = producer(g, sqd), m1, m2;
	if (!private_t(g, sqd) || kp < 0)
		return 0;
	const struct g_node *pw = &g->nodes[kp];
	int uses_dd;
	if (is_op(g, kp, G_POW) && pw->in[0] == dd &&
	    is_scalar(g, pw->in[1], 2))
		uses_dd = 2;
	else if (is_op(g, kp, G_MUL) && pw->in[0] == dd && pw->in[1] == dd)
		uses_dd = 3;
	else
		return 0;
	int kd = producer(g, dd);
	if (!is_op(g, kd, G_SUB) || g->tensors[dd].n_uses != uses_dd ||
	    (g->tensors[dd].flags & G_T_OUTPUT))
		return 0;
	int x = g->nodes[kd].in[0], mu = g->nodes[kd].in[1];
	int kmu = producer(g, mu);
	if (!private_t(g, mu) || !mean_trailing(g, kmu, x, &m1) ||
	    !mean_trailing(g, kv, sqd, &m2) || m1 != m2)
		return 0;
	/* optional scale and bias */
	int parts[9] = { kmu, kd, kp, kv, ke, ks, k }, np = 7;
	int last = k, gamma = -1, beta = -1;
	int km = sole_reader(p, dv->out[0]);
	if (is_op(g, km, G_MUL)) {
		int gm = other_in(&g->nodes[km], dv->out[0]);
		if (gm >= 0 && spans_trailing(g, gm, x, m1)) {
			gamma = gm;
			last = parts[np++] = km;
			int ka = sole_reader(p, g->nodes[km].out[0]);
			if (is_op(g, ka, G_ADD)) {
				int bt = other_in(&g->nodes[ka],
						  g->nodes[km].out[0]);
				if (bt >= 0 && spans_trailing(g, bt, x, m1)) {
					beta = bt;
					last = parts[np++] = ka;
				}
			}
		}
	}
	int in[3] = { x, trailing_shape(g, gamma, x, m1),
		      trailing_shape(g, beta, x, m1) };
	if ((gamma >= 0 && in[1] < 0) || (beta >= 0 && in[2] < 0))
		return NPU_ENOMEM;
	char fused[96];
	parts_fused(g, parts, np, fused, sizeof fused);
	kill_parts(g, parts, np, last);
	become(g, last, G_LAYERNORM, beta >= 0 ? 3 : gamma >= 0 ? 2 : 1, in,
	       fused, np);
	g->nodes[last].axis = g->tensors[x].rank - m1;
	g->nodes[last].eps = (float)eps;
	return 1;
}

/* The other input of binary node k when one of its inputs is t and the
 * node is op; -1 otherwise. */
static int partner(const struct graph *g, int k, enum g_op op, int t)
{
	return is_op(g, k, op) ? other_in(&g->nodes[k], t) : -1;
}

/*
 * The end of both GELU forms: given a = 1 + erf(..) (or 1 + tanh(..)),
 * the product 0.5 * x * a in any of its exported groupings:
 *   (x * a) * 0.5,  (0.5 * a) * x,  (x * 0.5) * a
 * (each Mul's operands in either order).  The nodes in parts[], the
 * final one in *last.
 */
static int gelu_tail(const struct pass *p, int x, int a, int *parts,
		     int *np, int *last)
{
	const struct graph *g = p->g;
	int r1 = sole_reader(p, a);
	int o = partner(g, r1, G_MUL, a);
	if (o < 0)
		return 0;
	parts[(*np)++] = r1;
	int out1 = g->nodes[r1].out[0];
	if (o == x || is_scalar(g, o, 0.5)) {
		int r2 = sole_reader(p, out1);
		int o2 = partner(g, r2, G_MUL, out1);
		if (o2 < 0 || !(o == x ? is_scalar(g, o2, 0.5) : o2 == x))
			return 0;
		parts[(*np)++] = r2;
		*last = r2;
		return 1;
	}
	int kh = producer(g, o);
	int h = partner(g, kh, G_MUL, x);
	if (!private_t(g, o) || !is_scalar(g, h, 0.5))
		return 0;
	parts[(*np)++] = kh;
	*last = r1;
	return 1;
}

/* 1 + u, with u at node k's output (Add(u, 1) or Add(1, u)). */
static int one_plus(const struct pass *p, int u)
{
	int r = sole_reader(p, u);
	int c = partner(p->g, r, G_ADD, u);
	return c >= 0 && is_scalar(p->g, c, 1) ? r : -1;
}

/*
 * GELU (Hendrycks and Gimpel 2016):
 *   erf form   0.5 x (1 + erf(x / sqrt 2))          x / sqrt2 as Div or
 *                                                   Mul by 1/sqrt2
 *   tanh form  0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))  x^3 as
 *                                                   Pow(x, 3)
 * matched at the Erf or the Tanh.
 */
static int match_gelu(struct pass *p, int k)
{
	struct graph *g = p->g;
	const struct g_node *n = &g->nodes[k];
	int parts[12], np = 0, x, tanh_form = n->op == G_TANH;
	if (!is_op(g, k, G_ERF) && !is_op(g, k, G_TANH))
		return 0;
	parts[np++] = k;
	int q = n->in[0], kq = producer(g, q);
	if (!private_t(g, q) || kq < 0)
		return 0;
	const struct g_node *nq = &g->nodes[kq];
	if (!tanh_form) {
		/* x / sqrt2, x * (1 / sqrt2) */
		if (is_op(g, kq, G_DIV) && is_scalar(g, nq->in[1], sqrt(2)))
			x = nq->in[0];
		else if (is_op(g, kq, G_MUL) &&
			 is_scalar(g, nq->in[1], 1 / sqrt(2)))
			x = nq->in[0];
		else if (is_op(g, kq, G_MUL) &&
			 is_scalar(g, nq->in[0], 1 / sqrt(2)))
			x = nq->in[1];
		else
			return 0;
		parts[np++] = kq;
	} else {
		/* sqrt(2/pi) * (x + 0.044715 * x^3) */
		int in0 = nq->in[0], in1 = nq->in[1], sum;
		if (!is_op(g, kq, G_MUL))
			return 0;
		if (is_scalar(g, in1, 0.7978845608028654))
			sum = in0;
		else if (is_scalar(g, in0, 0.7978845608028654))
			sum = in1;
		else
			return 0;
		parts[np++] = kq;
		int ks = producer(g, sum);
		if (!is_op(g, ks, G_ADD) || !private_t(g, sum))
			return 0;
		parts[np++] = ks;
		/* x + c, c = 0.044715 * x^3 (either order); find which
		 * operand is the cube term */
		int found = 0;
		for (int side = 0; side < 2 && !found; side++) {
			int cube = g->nodes[ks].in[side];
			x = g->nodes[ks].in[1 - side];
			int kc = producer(g, cube);
			if (!is_op(g, kc, G_MUL) || !private_t(g, cube))
				continue;
			for (int s2 = 0; s2 < 2 && !found; s2++) {
				int pw = g->nodes[kc].in[s2];
				int kp = producer(g, pw);
				if (!is_scalar(g, g->nodes[kc].in[1 - s2],
					       0.044715) ||
				    !is_op(g, kp, G_POW) || !private_t(g, pw) ||
				    g->nodes[kp].in[0] != x ||
				    !is_scalar(g, g->nodes[kp].in[1], 3))
					continue;
				parts[np++] = kc;
				parts[np++] = kp;
				found = 1;
			}
		}
		if (!found)
			return 0;
	}
	int ka = one_plus(p, n->out[0]), last;
	if (ka < 0)
		return 0;
	parts[np++] = ka;
	if (!gelu_tail(p, x, g->nodes[ka].out[0], parts, &np, &last))
		return 0;
	char fused[96];
	parts_fused(g, parts, np, fused, sizeof fused);
	kill_parts(g, parts, np, last);
	become(g, last, G_GELU, 1, &x, fused, np);
	g->nodes[last].approx_tanh = tanh_form;
	return 1;
}

/* The sole reader of t when it is t / 6 or t * (1/6) (operands in either
 * order for the Mul), else -1. */
static int sixth(const struct pass *p, int t)
{
	const struct graph *g = p->g;
	int r = sole_reader(p, t);
	if (is_op(g, r, G_DIV) && g->nodes[r].in[0] == t &&
	    is_scalar(g, g->nodes[r].in[1], 6))
		return r;
	int c = partner(g, r, G_MUL, t);
	return c >= 0 && is_scalar(g, c, 1.0 / 6) ? r : -1;
}

/*
 * HardSwish and HardSigmoid as exporters decompose them (Howard et al.
 * 2019, MobileNetV3): tf2onnx, older torch opsets and YOLOv5's own
 * module write
 *   hardsigmoid  Clip(x + 3, 0, 6) / 6             (/ 6 as Div or Mul 1/6)
 *   hardswish    x * Clip(x + 3, 0, 6) / 6  grouped (x * c) / 6 or x * (c / 6)
 * matched at the Clip.  HardSigmoid(alpha 1/6, beta 1/2) is exactly
 * clip(x + 3, 0, 6) / 6, and HardSwish x times it.
 */
static int match_hardswish(struct pass *p, int k)
{
	struct graph *g = p->g;
	const struct g_node *n = &g->nodes[k];
	int parts[5], np = 0, last;
	if (!is_op(g, k, G_CLIP) || n->lo != 0 || n->hi != 6)
		return 0;
	parts[np++] = k;
	int q = n->in[0], kq = producer(g, q);
	if (!private_t(g, q) || !is_op(g, kq, G_ADD))
		return 0;
	int x = is_scalar(g, g->nodes[kq].in[1], 3) ? g->nodes[kq].in[0] :
		is_scalar(g, g->nodes[kq].in[0], 3) ? g->nodes[kq].in[1] : -1;
	if (x < 0)
		return 0;
	parts[np++] = kq;
	int c = n->out[0], r1 = sole_reader(p, c);
	enum g_op op = G_HARDSWISH;
	if (partner(g, r1, G_MUL, c) == x) {
		/* (x * c) / 6 */
		int r2 = sixth(p, g->nodes[r1].out[0]);
		if (r2 < 0)
			return 0;
		parts[np++] = r1;
		parts[np++] = last = r2;
	} else if ((r1 = sixth(p, c)) >= 0) {
		/* x * (c / 6), or c / 6 alone */
		parts[np++] = last = r1;
		int h = g->nodes[r1].out[0], r2 = sole_reader(p, h);
		if (partner(g, r2, G_MUL, h) == x)
			parts[np++] = last = r2;
		else
			op = G_HARDSIGMOID;
	} else {
		return 0;
	}
	char fused[64];
	parts_fused(g, parts, np, fused, sizeof fused);
	kill_parts(g, parts, np, last);
	become(g, last, op, 1, &x, fused, np);
	if (op == G_HARDSIGMOID) {
		g->nodes[last].alpha = 1.0f / 6;
		g->nodes[last].beta = 0.5f;
	}
	return 1;
}

/* Two tensors of one rank with the same leading (batch, head) dimensions:
 * a batched MatMul of them broadcasts nothing. */
static int same_batch(const struct graph *g, int a, int b)
{
	const struct g_tensor *x = &g->tensors[a], *y = &g->tensors[b];
	if (x->rank != y->rank || x->rank < 2)
		return 0;
	for (int i = 0; i < x->rank - 2; i++)
		if (x->dim[i] != y->dim[i])
			return 0;
	return 1;
}

/*
 * Scaled dot-product attention (Vaswani et al. 2017) as torch and
 * TensorFlow export it:
 *   S = MatMul(Q, K^T),  S / c or S * c,  P = Softmax(S) over the last
 *   axis,  O = MatMul(P, V)
 * with Q, K^T and V computed (the projections' outputs, heads leading)
 * becomes one attention node, alpha the scale (1 without the Div/Mul).
 * Matched at the Softmax.  An additive mask between the scale and the
 * Softmax is not matched (attention.s masks causally or not at all); an
 * all-zero one is gone already (drop_identity).
 */
static int match_attention(struct pass *p, int k)
{
	struct graph *g = p->g;
	const struct g_node *n = &g->nodes[k];
	int parts[4], np = 0;
	if (!is_op(g, k, G_SOFTMAX))
		return 0;
	int s = n->in[0], rank = g->tensors[s].rank;
	if (rank < 2 || (n->axis != -1 && n->axis != rank - 1) ||
	    !private_t(g, s))
		return 0;
	parts[np++] = k;
	int ks = producer(g, s);
	double scale = 1, c;
	if (is_op(g, ks, G_DIV) && scalar(g, g->nodes[ks].in[1], &c) && c) {
		scale = 1 / c;
		s = g->nodes[ks].in[0];
	} else if (is_op(g, ks, G_MUL) && (scalar(g, g->nodes[ks].in[1], &c) ||
					   scalar(g, g->nodes[ks].in[0], &c))) {
		scale = c;
		s = other_in(&g->nodes[ks], is_const(g, g->nodes[ks].in[1]) ?
			     g->nodes[ks].in[1] : g->nodes[ks].in[0]);
	}
	if (s != n->in[0]) {
		if (!private_t(g, s))
			return 0;
		parts[np++] = ks;
		ks = producer(g, s);
	}
	if (!is_op(g, ks, G_MATMUL) || (g->nodes[ks].n_in > 2 &&
					g->nodes[ks].in[2] >= 0))
		return 0;
	int q = g->nodes[ks].in[0], kt = g->nodes[ks].in[1];
	parts[np++] = ks;
	int pt = n->out[0], r = sole_reader(p, pt);
	if (!is_op(g, r, G_MATMUL) || g->nodes[r].in[0] != pt ||
	    (g->nodes[r].n_in > 2 && g->nodes[r].in[2] >= 0))
		return 0;
	int v = g->nodes[r].in[1];
	if (is_const(g, q) || is_const(g, kt) || is_const(g, v) ||
	    !same_batch(g, q, kt) || !same_batch(g, q, v) ||
	    g->tensors[q].rank != rank)
		return 0;
	parts[np++] = r;
	char fused[64];
	int in[3] = { q, kt, v };
	parts_fused(g, parts, np, fused, sizeof fused);
	kill_parts(g, parts, np, r);
	become(g, r, G_ATTENTION, 3, in, fused, np);
	g->nodes[r].alpha = (float)scale;
	return 1;
}

/* Node k is a Transpose that swaps the two axes before the last (rank >=
 * 3: (0, 2, 1, 3) on rank 4), the head split of attention's operands. */
static int head_split(const struct graph *g, int k)
{
	if (!is_op(g, k, G_TRANSPOSE))
		return 0;
	int r = g->tensors[g->nodes[k].out[0]].rank;
	const int *pm = g->nodes[k].perm;
	if (r < 3)
		return 0;
	for (int i = 0; i < r; i++)
		if (pm[i] != (i == r - 3 ? r - 2 : i == r - 2 ? r - 3 : i))
			return 0;
	return 1;
}

/*
 * The transposes that split heads around a matched attention: Q and V
 * made by Transpose(0, 2, 1, 3) of the projections' [B, N, heads, D] and
 * O read by the one that joins them back.  attention.s reads and writes
 * that sequence-major layout itself (QSEQ, VSEQ, OSEQ), so the three
 * copies go.  K's transpose to [B, heads, D, N] stays (a real one).
 */
static int absorb_head_split(struct pass *p, int k)
{
	struct graph *g = p->g;
	struct g_node *n = &g->nodes[k];
	static const int slot[2] = { 0, 2 }, bit[2] = { G_SEQ_Q, G_SEQ_V };
	if (n->op != G_ATTENTION || !n->n_out)
		return 0;
	for (int i = 0; i < 2; i++) {
		int t = n->in[slot[i]], kp = producer(g, t);
		if ((n->seq & bit[i]) || !private_t(g, t) || !head_split(g, kp))
			continue;
		n->in[slot[i]] = g->nodes[kp].in[0];
		n->seq |= bit[i];
		kill(g, kp);
		return 1;
	}
	int o = n->out[0], r = sole_reader(p, o);
	if (!(n->seq & G_SEQ_O) && head_split(g, r)) {
		n->out[0] = g->nodes[r].out[0];
		n->seq |= G_SEQ_O;
		kill(g, r);
		return 1;
	}
	return 0;
}

/* ---- 5. fusion into Conv / MatMul / Gemm ------------------------------ */

static int is_layer(const struct g_node *n)
{
	return n->op == G_CONV || n->op == G_MATMUL || n->op == G_GEMM;
}

/* c is a constant that adds one value per output channel of node q: the
 * channel axis (Conv: 1 of NCHW) or the last axis (MatMul, Gemm); every
 * other axis of c is 1. */
static int channel_bias(const struct graph *g, int q, int c)
{
	const struct g_node *n = &g->nodes[q];
	const struct g_tensor *y = &g->tensors[n->out[0]],
			      *t = &g->tensors[c];
	if (!is_const(g, c) || t->dtype != y->dtype || t->rank > y->rank)
		return 0;
	int ch = n->op == G_CONV ? 1 : y->rank - 1;
	for (int i = 0; i < y->rank; i++) {
		int j = i - (y->rank - t->rank);   /* axis of c, or < 0 */
		int64_t cd = j < 0 ? 1 : t->dim[j];
		if (cd != (i == ch ? y->dim[ch] : 1))
			return 0;
	}
	return 1;
}

static enum g_act act_of(enum g_op op)
{
	switch (op) {
	case G_RELU: return G_ACT_RELU;
	case G_CLIP: return G_ACT_CLIP;
	case G_SIGMOID: return G_ACT_SIGMOID;
	case G_TANH: return G_ACT_TANH;
	case G_GELU: return G_ACT_GELU;
	case G_HARDSWISH: return G_ACT_HARDSWISH;
	case G_HARDSIGMOID: return G_ACT_HARDSIGMOID;
	default: return G_ACT_NONE;
	}
}

/* The bias Add after node q: q's output + a per-channel constant. */
static int fuse_bias(struct pass *p, int q)
{
	struct graph *g = p->g;
	struct g_node *n = &g->nodes[q];
	int t = n->out[0];
	if (n->act != G_ACT_NONE || n->res >= 0 ||
	    (n->n_in > 2 && n->in[2] >= 0))
		return 0;
	int r = sole_reader(p, t), c = partner(g, r, G_ADD, t);
	if (c < 0 || c == t || !channel_bias(g, q, c))
		return 0;
	if (g->tensors[c].rank != 1) {
		int64_t dim[1] = { graph_elems(&g->tensors[c]) };
		c = const_reshaped(g, c, ".bias", 1, dim);
		if (c < 0)
			return NPU_ENOMEM;
		n = &g->nodes[q];
	}
	n->in[2] = c;
	n->n_in = 3;
	if (n->op == G_GEMM)
		n->beta = 1;
	n->out[0] = g->nodes[r].out[0];
	add_fused(n, "Add", 1);
	kill(g, r);
	return 1;
}

/* The activation node a applies to t alone (a fusable reader of t), with
 * its Clip bounds or HardSigmoid alpha/beta in lo/hi; G_ACT_NONE if a is
 * no such node. */
static enum g_act reader_act(const struct g_node *a,
			     int t, float *lo, float *hi)
{
	enum g_act act = act_of(a->op);
	if (act == G_ACT_NONE || a->in[0] != t || a->n_out != 1 ||
	    a->act != G_ACT_NONE || a->res >= 0)
		return G_ACT_NONE;
	*lo = act == G_ACT_CLIP ? a->lo : act == G_ACT_HARDSIGMOID ? a->alpha : 0;
	*hi = act == G_ACT_CLIP ? a->hi : act == G_ACT_HARDSIGMOID ? a->beta : 0;
	return act;
}

/* The activation after node q; x * sigmoid(x) as SiLU. */
static int fuse_act(struct pass *p, int q)
{
	struct graph *g = p->g;
	struct g_node *n = &g->nodes[q];
	int t = n->out[0];
	if (n->act != G_ACT_NONE || n->res >= 0 ||
	    (g->tensors[t].flags & G_T_OUTPUT))
		return 0;
	if (g->tensors[t].n_uses == 1) {
		int r = p->reader[t];
		const struct g_node *a = &g->nodes[r];
		enum g_act act = reader_act(a, t, &n->act_lo, &n->act_hi);
		if (act == G_ACT_NONE)
			return 0;
		n->act = act;
		if (act == G_ACT_GELU)
			n->approx_tanh = a->approx_tanh;
		n->out[0] = a->out[0];
		add_fused(n, graph_op_name(a->op), a->n_fused ? a->n_fused : 1);
		kill(g, r);
		return 1;
	}
	if (g->tensors[t].n_uses != 2)
		return 0;
	/* SiLU: t's two readers are Sigmoid(t) and Mul(t, sigmoid) */
	int ks = -1, km = -1;
	for (int k = q + 1; k < g->n_nodes; k++) {
		const struct g_node *a = &g->nodes[k];
		if (is_op(g, k, G_SIGMOID) && a->in[0] == t)
			ks = k;
		else if (is_op(g, k, G_MUL) && other_in(a, t) >= 0)
			km = k;
	}
	if (ks < 0 || km < 0 || other_in(&g->nodes[km], t) !=
	    g->nodes[ks].out[0] || !private_t(g, g->nodes[ks].out[0]))
		return 0;
	n->act = G_ACT_SILU;
	n->out[0] = g->nodes[km].out[0];
	add_fused(n, "Sigmoid+Mul", 2);
	kill(g, ks);
	kill(g, km);
	return 1;
}

/* The residual Add after node q: q's output + another activation of the
 * same shape.  q moves to the Add's slot, after the residual's maker. */
static int fuse_res(struct pass *p, int q)
{
	struct graph *g = p->g;
	const struct g_node *n = &g->nodes[q];
	int t = n->out[0];
	if (n->res >= 0)
		return 0;
	int r = sole_reader(p, t), o = partner(g, r, G_ADD, t);
	if (o < 0 || o == t || is_const(g, o))
		return 0;
	const struct g_tensor *ot = &g->tensors[o], *tt = &g->tensors[t];
	if (ot->dtype != tt->dtype || ot->rank != tt->rank ||
	    memcmp(ot->dim, tt->dim, (size_t)tt->rank * sizeof tt->dim[0]))
		return 0;
	struct g_node *a = &g->nodes[r];
	int y = a->out[0];
	free(a->name);
	*a = *n;            /* the fused node takes the Add's place */
	a->out[0] = y;
	a->res = o;
	add_fused(a, "Add", 1);
	g->nodes[q].name = NULL;
	kill(g, q);
	return 1;
}

/* The activation reading a fused residual's sum: y = post(act(op) + res)
 * (ResNet's block ends in relu(conv + x)). */
static int fuse_post_act(struct pass *p, int q)
{
	struct graph *g = p->g;
	struct g_node *n = &g->nodes[q];
	int t = n->out[0];
	if (n->res < 0 || n->post_act != G_ACT_NONE ||
	    (g->tensors[t].flags & G_T_OUTPUT) || g->tensors[t].n_uses != 1)
		return 0;
	int r = p->reader[t];
	const struct g_node *a = &g->nodes[r];
	float lo, hi;
	enum g_act act = reader_act(a, t, &lo, &hi);
	if (act == G_ACT_NONE ||
	    (act == G_ACT_GELU && n->act == G_ACT_GELU &&
	     n->approx_tanh != a->approx_tanh))   /* one GELU form per node */
		return 0;
	if (act == G_ACT_GELU)
		n->approx_tanh = a->approx_tanh;
	n->post_act = act;
	n->post_lo = lo;
	n->post_hi = hi;
	n->out[0] = a->out[0];
	add_fused(n, graph_op_name(a->op), 1);
	kill(g, r);
	return 1;
}

static int fuse(struct pass *p, int q)
{
	if (!is_layer(&p->g->nodes[q]) || !p->g->nodes[q].n_out)
		return 0;
	int e = fuse_bias(p, q);
	if (!e)
		e = fuse_act(p, q);
	if (!e)
		e = fuse_res(p, q);
	if (!e)
		e = fuse_post_act(p, q);
	return e;
}

/* ---- driver ------------------------------------------------------------- */

/* Apply rule at every node until it changes nothing more. */
static int sweep(struct pass *p, int (*rule)(struct pass *, int))
{
	for (int k = 0; k < p->g->n_nodes; k++) {
		if (!p->g->nodes[k].n_out)
			continue;
		int e = rule(p, k);
		if (e < 0)
			return e;
		if (e) {
			if ((e = refresh(p)))
				return e;
			k--;    /* the node may take another rewrite */
		}
	}
	return 0;
}

/* ---- 6. legalising for the kernels --------------------------------- */

/* A new node of op at index k (the nodes from k on move up one), or -1
 * on allocation failure.  g->nodes may move. */
static int insert_node(struct graph *g, int k, enum g_op op, const char *name)
{
	int last = graph_add_node(g, op, name);
	if (last < 0)
		return -1;
	struct g_node n = g->nodes[last];
	memmove(&g->nodes[k + 1], &g->nodes[k],
		(size_t)(last - k) * sizeof n);
	g->nodes[k] = n;
	return k;
}

/* A Conv or pooling padded differently on its sides (TensorFlow's SAME
 * with an even input and stride 2 pads one more at the bottom and right)
 * reads an explicitly padded input instead: Pad(x) then the node without
 * pads.  Exact: a Conv's padding is zeros, as the Pad's; MaxPool's never
 * wins a max, as the Pad's -inf; AveragePool's counts as a zero when
 * count_include_pad is set (else it is left as it is). */
static int split_pads(struct graph *g, int k)
{
	struct g_node *n = &g->nodes[k];
	if ((n->op != G_CONV && n->op != G_MAXPOOL &&
	     (n->op != G_AVGPOOL || !n->count_include_pad)) ||
	    (n->pad[0] == n->pad[1] && n->pad[1] == n->pad[2] &&
	     n->pad[2] == n->pad[3]))
		return 0;
	int x = n->in[0];
	const struct g_tensor *xt = &g->tensors[x];
	if (xt->rank != 4)
		return 0;
	int pads = new_tensor(g, n->name, "/pads");
	int xp = pads < 0 ? -1 : new_tensor(g, n->name, "/padded");
	int val = -1;
	if (xp < 0)
		return NPU_ENOMEM;
	if (g->nodes[k].op == G_MAXPOOL) {
		float ninf = -INFINITY;
		if ((val = new_tensor(g, g->nodes[k].name, "/pad_value")) < 0)
			return NPU_ENOMEM;
		struct g_tensor *vt = &g->tensors[val];
		vt->dtype = G_DT_F32;
		vt->rank = 0;
		vt->flags = G_T_CONST;
		if (!(vt->data = malloc(sizeof ninf)))
			return NPU_ENOMEM;
		memcpy(vt->data, &ninf, sizeof ninf);
	}
	n = &g->nodes[k];
	int64_t pv[8] = { 0, 0, n->pad[0], n->pad[1], 0, 0, n->pad[2], n->pad[3] };
	struct g_tensor *pt = &g->tensors[pads];
	pt->dtype = G_DT_I64;
	pt->rank = 1;
	pt->dim[0] = 8;
	pt->flags = G_T_CONST;
	if (!(pt->data = malloc(sizeof pv)))
		return NPU_ENOMEM;
	memcpy(pt->data, pv, sizeof pv);
	struct g_tensor *o = &g->tensors[xp];
	xt = &g->tensors[x];
	o->dtype = xt->dtype;
	o->rank = 4;
	o->dim[0] = xt->dim[0];
	o->dim[1] = xt->dim[1];
	o->dim[2] = xt->dim[2] + n->pad[0] + n->pad[2];
	o->dim[3] = xt->dim[3] + n->pad[1] + n->pad[3];
	char name[512];
	snprintf(name, sizeof name, "%s/pad", g->nodes[k].name);
	int q = insert_node(g, k, G_PAD, name);
	if (q < 0)
		return NPU_ENOMEM;
	struct g_node *pn = &g->nodes[q];
	n = &g->nodes[k + 1];
	pn->n_in = val < 0 ? 2 : 3;
	pn->in[0] = x;
	pn->in[1] = pads;
	pn->in[2] = val;
	pn->n_out = 1;
	pn->out[0] = xp;
	pn->opset = n->opset;
	pn->src_index = n->src_index;
	snprintf(pn->mode, sizeof pn->mode, "constant");
	n->in[0] = xp;
	memset(n->pad, 0, sizeof n->pad);
	return 0;
}

/* A Concat of m > 2 inputs as m - 1 two-input Concats, each joining the
 * last one's result and the next input (the last writes the output). */
static int chain_concat(struct graph *g, int k)
{
	struct g_node *n = &g->nodes[k];
	if (n->op != G_CONCAT || n->n_in <= 2)
		return 0;
	int m = n->n_in, rank = g->tensors[n->out[0]].rank;
	int axis = n->axis < 0 ? n->axis + rank : n->axis;
	int acc = n->in[0];
	for (int i = 1; i < m - 1; i++) {
		int t = new_tensor(g, g->nodes[k].name, "/part");
		if (t < 0)
			return NPU_ENOMEM;
		struct g_tensor *a = &g->tensors[acc], *b = &g->tensors[g->nodes[k].in[i]];
		struct g_tensor *o = &g->tensors[t];
		o->dtype = a->dtype;
		o->rank = a->rank;
		memcpy(o->dim, a->dim, sizeof o->dim);
		o->dim[axis] = a->dim[axis] + b->dim[axis];
		char name[512];
		snprintf(name, sizeof name, "%s/%d", g->nodes[k].name, i);
		int q = insert_node(g, k, G_CONCAT, name);
		if (q < 0)
			return NPU_ENOMEM;
		k++; /* the Concat moved up */
		struct g_node *c = &g->nodes[q];
		c->n_in = 2;
		c->in[0] = acc;
		c->in[1] = g->nodes[k].in[i];
		c->n_out = 1;
		c->out[0] = t;
		c->axis = axis;
		c->opset = g->nodes[k].opset;
		c->src_index = g->nodes[k].src_index;
		acc = t;
	}
	n = &g->nodes[k];
	n->in[0] = acc;
	n->in[1] = n->in[m - 1];
	for (int i = 2; i < m; i++)
		n->in[i] = -1;
	n->n_in = 2;
	return 0;
}

static int legalise(struct graph *g)
{
	for (int k = 0; k < g->n_nodes; k++) {
		int n0 = g->n_nodes, rc = split_pads(g, k);
		if (!rc)
			rc = chain_concat(g, k);
		if (rc)
			return rc;
		k += g->n_nodes - n0; /* past what was inserted before k */
	}
	return 0;
}

int graph_simplify(struct graph *g, const struct graph_opts *o,
		   struct diag *d)
{
	static const struct graph_opts defaults = { 0 };
	struct pass p = { .g = g, .d = d };
	if (!o)
		o = &defaults;
	for (int k = 0; k < g->n_nodes; k++) {
		const struct g_node *n = &g->nodes[k];
		for (int i = 0; i < n->n_out; i++)
			if (n->out[i] >= 0 && g->tensors[n->out[i]].rank < 0)
				return graph_error(g, k, d, "output '%s' has no "
						   "shape: run graph_infer "
						   "before graph_simplify",
						   g->tensors[n->out[i]].name);
	}
	graph_uses(g);
	int e = refresh(&p);
	if (!e)
		e = fold_constants(&p);
	if (!e)
		e = sweep(&p, drop_identity);
	if (!e)
		e = sweep(&p, fold_batchnorm);
	if (!e)
		e = sweep(&p, match_layernorm);
	if (!e)
		e = sweep(&p, match_gelu);
	if (!e)
		e = sweep(&p, match_hardswish);
	if (!e)
		e = sweep(&p, match_attention);
	if (!e)
		e = sweep(&p, absorb_head_split);
	if (!e && !o->no_fuse)
		e = sweep(&p, fuse);
	if (!e)
		e = legalise(g);
	free(p.reader);
	graph_uses(g);
	if (e)
		return diag_error(d, diag_at_file(g->source, 0, 0), e,
				  "out of memory simplifying the graph");
	return 0;
}
