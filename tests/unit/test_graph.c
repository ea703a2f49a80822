/*
 * test_graph.c - shape inference, the simplifying passes and SCALE-Sim
 * topology import (compiler/infer.c, fold.c, passes.c, topo.c).
 *
 *   graph.infer.*     output shapes per op rule, auto_pad, folding of
 *                     constant shape subgraphs, errors naming the node
 *   graph.simplify.*  every rewrite, and that it stays away when the
 *                     intermediate tensor has another reader
 *   graph.topo.*      the bundled CSVs (layer counts, shapes, the MAC
 *                     totals SCALE-Sim v2 itself computes), SCALE-Sim's
 *                     quirks, errors with file:line:col
 */
#define _DEFAULT_SOURCE /* mkstemp under -std=c11 */
#include <math.h>
#include <stdint.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../compiler/graph.h"
#include "../../compiler/lower.h"
#include "../../compiler/topo.h"
#include "../../util/strutil.h"
#include "testutil.h"

/* The topology importer's fuzz target (graph.topo.fuzz_regress). */
#include "../../fuzz/fuzz_topo.c"

/* DIMS(1, 3, 7, 7) -> an int64_t array and its length */
#define DIMS(...) (const int64_t[]){ __VA_ARGS__ }, \
	(int)(sizeof((int64_t[]){ __VA_ARGS__ }) / sizeof(int64_t))

static struct diag D;

static void gstart(struct graph *g)
{
	graph_init(g, "test.onnx");
	g->opset = 13;
	diag_init(&D, NULL);
}

static int tensor(struct graph *g, const char *name, enum g_dtype dt,
		  const int64_t *dim, int rank, unsigned flags)
{
	ck_assert_msg(graph_find(g, name) < 0, "'%s' exists", name);
	int t = graph_tensor(g, name);
	ck_assert_int_ge(t, 0);
	struct g_tensor *x = &g->tensors[t];
	x->dtype = dt;
	x->rank = rank;
	if (rank > 0)
		memcpy(x->dim, dim, (size_t)rank * sizeof *dim);
	x->flags |= flags;
	return t;
}

static int input(struct graph *g, const char *name, const int64_t *dim,
		 int rank)
{
	int t = tensor(g, name, G_DT_F32, dim, rank, 0);
	ck_assert_int_eq(graph_add_input(g, t), 0);
	return t;
}

/* A float32 constant; v NULL: 0.25 * (i + 1) */
static int cf32(struct graph *g, const char *name, const int64_t *dim,
		int rank, const float *v)
{
	int t = tensor(g, name, G_DT_F32, dim, rank, G_T_CONST);
	int64_t n = graph_elems(&g->tensors[t]);
	float *p = malloc((size_t)n * sizeof *p + 1);
	for (int64_t i = 0; i < n; i++)
		p[i] = v ? v[i] : 0.25f * (float)(i + 1);
	g->tensors[t].data = p;
	return t;
}

static int scalar(struct graph *g, const char *name, float v)
{
	return cf32(g, name, NULL, 0, &v);
}

static int ci64(struct graph *g, const char *name, const int64_t *v, int n)
{
	int64_t dim[1] = { n };
	int t = tensor(g, name, G_DT_I64, dim, 1, G_T_CONST);
	int64_t *p = malloc((size_t)n * sizeof *p + 1);
	memcpy(p, v, (size_t)n * sizeof *p);
	g->tensors[t].data = p;
	return t;
}

/* A node reading tensors in[], writing one new tensor named out. */
static int node(struct graph *g, enum g_op op, const char *name, int n_in,
		const int *in, const char *out)
{
	int k = graph_add_node(g, op, name);
	ck_assert_int_ge(k, 0);
	ck_assert_msg(graph_find(g, out) < 0, "'%s' exists", out);
	int y = graph_tensor(g, out);
	struct g_node *n = &g->nodes[k];
	for (int i = 0; i < n_in; i++)
		n->in[i] = in[i];
	n->n_in = n_in;
	n->out[0] = y;
	n->n_out = 1;
	return k;
}

#define IN(...) (int)(sizeof((int[]){ __VA_ARGS__ }) / sizeof(int)), \
	(const int[]){ __VA_ARGS__ }

static int T(const struct graph *g, const char *name)
{
	int t = graph_find(g, name);
	ck_assert_msg(t >= 0, "no tensor '%s'", name);
	return t;
}

static void output(struct graph *g, const char *name)
{
	ck_assert_int_eq(graph_add_output(g, T(g, name)), 0);
}

static void check_shape(const struct graph *g, const char *name,
			const int64_t *dim, int rank)
{
	const struct g_tensor *t = &g->tensors[T(g, name)];
	char got[128] = "", want[128] = "";
	for (int i = 0; i < t->rank; i++)
		snprintf(got + strlen(got), sizeof got - strlen(got), "%lld,",
			 (long long)t->dim[i]);
	for (int i = 0; i < rank; i++)
		snprintf(want + strlen(want), sizeof want - strlen(want),
			 "%lld,", (long long)dim[i]);
	ck_assert_msg(t->rank == rank && !strcmp(got, want),
		      "'%s': shape [%s] rank %d, want [%s] rank %d", name, got,
		      t->rank, want, rank);
}

static void infer_ok(struct graph *g)
{
	ck_assert_msg(graph_infer(g, &D) == 0, "graph_infer: %s", D.last);
}

/* graph_infer fails and its message holds every one of the strings. */
static void infer_fails(struct graph *g, const char *want1,
			const char *want2)
{
	ck_assert_int_eq(graph_infer(g, &D), NPU_EMODEL);
	ck_assert_msg(strstr(D.last, want1), "'%s' lacks '%s'", D.last, want1);
	ck_assert_msg(!want2 || strstr(D.last, want2), "'%s' lacks '%s'",
		      D.last, want2);
}

static void simplify_ok(struct graph *g, int no_fuse)
{
	struct graph_opts o = { .no_fuse = no_fuse };
	ck_assert_msg(graph_simplify(g, &o, &D) == 0, "simplify: %s", D.last);
}

/* The node producing tensor name, after graph_uses. */
static const struct g_node *made_by(const struct graph *g, const char *name)
{
	int p = g->tensors[T(g, name)].producer;
	ck_assert_msg(p >= 0, "'%s' has no producer", name);
	return &g->nodes[p];
}

/* Every input of every node is made earlier (or is no node's output). */
static void check_topological(const struct graph *g)
{
	for (int k = 0; k < g->n_nodes; k++) {
		const struct g_node *n = &g->nodes[k];
		for (int i = 0; i <= n->n_in; i++) {
			int t = i < n->n_in ? n->in[i] : n->res;
			if (t >= 0)
				ck_assert_msg(g->tensors[t].producer < k,
					      "node %d reads '%s' made by %d",
					      k, g->tensors[t].name,
					      g->tensors[t].producer);
		}
	}
}

static float fval(const struct graph *g, int t, int64_t i)
{
	double v = NAN;
	ck_assert_int_eq(graph_const_f64(&g->tensors[t], i, &v), 0);
	return (float)v;
}

/* ---- inference ---------------------------------------------------------- */

/* Conv output sizes under explicit pads, strides, dilations, VALID and
 * both SAME modes; the SAME pads land in pad[]. */
START_TEST(graph_infer_conv_pads)
{
	struct graph g;
	gstart(&g);
	int x = input(&g, "x", DIMS(1, 3, 7, 8));
	int w = cf32(&g, "w", DIMS(8, 3, 3, 3), NULL);
	int k1 = node(&g, G_CONV, "explicit", IN(x, w), "y1");
	g.nodes[k1].pad[0] = g.nodes[k1].pad[1] = 1;
	g.nodes[k1].pad[2] = g.nodes[k1].pad[3] = 1;
	int k2 = node(&g, G_CONV, "stride2", IN(x, w), "y2");
	g.nodes[k2].stride[0] = g.nodes[k2].stride[1] = 2;
	g.nodes[k2].pad[0] = g.nodes[k2].pad[2] = 1;
	int k3 = node(&g, G_CONV, "valid", IN(x, w), "y3");
	strcpy(g.nodes[k3].auto_pad, "VALID");
	g.nodes[k3].stride[0] = g.nodes[k3].stride[1] = 2;
	int k4 = node(&g, G_CONV, "upper", IN(x, w), "y4");
	strcpy(g.nodes[k4].auto_pad, "SAME_UPPER");
	g.nodes[k4].stride[0] = g.nodes[k4].stride[1] = 2;
	int k5 = node(&g, G_CONV, "lower", IN(x, w), "y5");
	strcpy(g.nodes[k5].auto_pad, "SAME_LOWER");
	g.nodes[k5].stride[0] = g.nodes[k5].stride[1] = 2;
	int k6 = node(&g, G_CONV, "dilated", IN(x, w), "y6");
	g.nodes[k6].dil[0] = g.nodes[k6].dil[1] = 2;
	infer_ok(&g);
	check_shape(&g, "y1", DIMS(1, 8, 7, 8));
	check_shape(&g, "y2", DIMS(1, 8, 4, 3));  /* (7+2-3)/2+1, (8-3)/2+1 */
	check_shape(&g, "y3", DIMS(1, 8, 3, 3));
	check_shape(&g, "y4", DIMS(1, 8, 4, 4));  /* ceil(7/2), ceil(8/2) */
	check_shape(&g, "y5", DIMS(1, 8, 4, 4));
	check_shape(&g, "y6", DIMS(1, 8, 3, 4));  /* kernel spans 5 */
	/* H: total (4-1)*2+3-7 = 2 -> 1,1; W: (4-1)*2+3-8 = 1 -> the odd
	 * one at the end (UPPER) or the start (LOWER) */
	const struct g_node *u = &g.nodes[k4], *l = &g.nodes[k5];
	ck_assert_int_eq(u->pad[0], 1);
	ck_assert_int_eq(u->pad[2], 1);
	ck_assert_int_eq(u->pad[1], 0);
	ck_assert_int_eq(u->pad[3], 1);
	ck_assert_int_eq(l->pad[1], 1);
	ck_assert_int_eq(l->pad[3], 0);
	ck_assert_int_eq(g.nodes[k3].pad[2], 0);
	ck_assert_int_eq(g.nodes[k1].kernel[0], 3);   /* from the weights */
	graph_free(&g);
}
END_TEST

START_TEST(graph_infer_conv_groups)
{
	struct graph g;
	gstart(&g);
	int x = input(&g, "x", DIMS(1, 8, 5, 5));
	int w = cf32(&g, "w", DIMS(12, 2, 3, 3), NULL);
	int dw = cf32(&g, "dw", DIMS(16, 1, 3, 3), NULL);
	int b = cf32(&g, "b", DIMS(12), NULL);
	int k1 = node(&g, G_CONV, "grouped", IN(x, w, b), "y1");
	g.nodes[k1].group = 4;
	int k2 = node(&g, G_CONV, "depthwise", IN(x, dw), "y2");
	g.nodes[k2].group = 8;
	infer_ok(&g);
	check_shape(&g, "y1", DIMS(1, 12, 3, 3));
	check_shape(&g, "y2", DIMS(1, 16, 3, 3));
	graph_free(&g);
}
END_TEST

/* The first mismatch is reported at its node, naming both tensors. */
START_TEST(graph_infer_conv_channel_error)
{
	struct graph g;
	gstart(&g);
	int x = input(&g, "x", DIMS(1, 3, 16, 16));
	int w1 = cf32(&g, "w1", DIMS(32, 3, 3, 3), NULL);
	int w2 = cf32(&g, "w2", DIMS(64, 64, 3, 3), NULL);
	int k = node(&g, G_CONV, "conv1", IN(x, w1), "a");
	node(&g, G_CONV, "conv2", IN(T(&g, "a"), w2), "b");
	(void)k;
	infer_fails(&g, "node 1 'conv2' (Conv, opset 13)",
		    "input 'a' has 32 channels, the weights 'w2' expect 64");
	ck_assert_msg(!strncmp(D.last, "test.onnx: error: ", 18), "%s", D.last);
	graph_free(&g);

	gstart(&g);
	x = input(&g, "x", DIMS(1, 6, 8, 8));
	w1 = cf32(&g, "w", DIMS(4, 3, 3, 3), NULL);
	k = node(&g, G_CONV, "c", IN(x, w1), "y");
	g.nodes[k].group = 4;
	infer_fails(&g, "'c'", "6 channels, not a multiple of group 4");
	graph_free(&g);

	gstart(&g);
	x = input(&g, "x", DIMS(1, 3, 2, 8));
	w1 = cf32(&g, "w", DIMS(4, 3, 3, 3), NULL);
	node(&g, G_CONV, "small", IN(x, w1), "y");
	infer_fails(&g, "'small'", "the height is 2 (padded 2) but the "
		    "kernel spans 3");
	graph_free(&g);
}
END_TEST

/* ceil_mode rounds up, but a last window that would start in the end
 * padding is dropped (PyTorch: MaxPool2d(2, 2, padding=1,
 * ceil_mode=True) on 3x3 gives 2x2). */
START_TEST(graph_infer_pool_ceil)
{
	struct graph g;
	gstart(&g);
	int x = input(&g, "x", DIMS(1, 2, 6, 6));
	int x3 = input(&g, "x3", DIMS(1, 2, 3, 3));
	int k1 = node(&g, G_MAXPOOL, "floor", IN(x), "y1");
	int k2 = node(&g, G_MAXPOOL, "ceil", IN(x), "y2");
	int k3 = node(&g, G_AVGPOOL, "edge", IN(x3), "y3");
	int k4 = node(&g, G_GAP, "gap", IN(x), "y4");
	for (int k = k1; k <= k2; k++) {
		g.nodes[k].kernel[0] = g.nodes[k].kernel[1] = 3;
		g.nodes[k].stride[0] = g.nodes[k].stride[1] = 2;
	}
	g.nodes[k2].ceil_mode = 1;
	struct g_node *n = &g.nodes[k3];
	n->kernel[0] = n->kernel[1] = n->stride[0] = n->stride[1] = 2;
	n->pad[0] = n->pad[1] = n->pad[2] = n->pad[3] = 1;
	n->ceil_mode = 1;
	(void)k4;
	infer_ok(&g);
	check_shape(&g, "y1", DIMS(1, 2, 2, 2));
	check_shape(&g, "y2", DIMS(1, 2, 3, 3));
	check_shape(&g, "y3", DIMS(1, 2, 2, 2));
	check_shape(&g, "y4", DIMS(1, 2, 1, 1));
	graph_free(&g);

	gstart(&g);
	x = input(&g, "x", DIMS(1, 2, 6, 6));
	node(&g, G_MAXPOOL, "nokernel", IN(x), "y");
	infer_fails(&g, "'nokernel'", "kernel_shape is missing");
	graph_free(&g);
}
END_TEST

START_TEST(graph_infer_matmul)
{
	struct graph g;
	gstart(&g);
	int a = input(&g, "a", DIMS(2, 1, 4, 5));
	int b = input(&g, "b", DIMS(3, 5, 6));
	int v = input(&g, "v", DIMS(5));
	int m = input(&g, "m", DIMS(5, 6));
	int c = input(&g, "c", DIMS(2, 4, 5));
	node(&g, G_MATMUL, "batched", IN(a, b), "y1");
	node(&g, G_MATMUL, "vec_mat", IN(v, m), "y2");
	node(&g, G_MATMUL, "mat_vec", IN(c, v), "y3");
	node(&g, G_MATMUL, "vec_vec", IN(v, v), "y4");
	int at = input(&g, "at", DIMS(5, 4));
	int bt = input(&g, "bt", DIMS(6, 5));
	int cc = cf32(&g, "cc", DIMS(1, 6), NULL);
	int k = node(&g, G_GEMM, "gemm", IN(at, bt, cc), "y5");
	g.nodes[k].trans_a = g.nodes[k].trans_b = 1;
	infer_ok(&g);
	check_shape(&g, "y1", DIMS(2, 3, 4, 6));
	check_shape(&g, "y2", DIMS(6));
	check_shape(&g, "y3", DIMS(2, 4));
	check_shape(&g, "y4", NULL, 0);
	check_shape(&g, "y5", DIMS(4, 6));
	graph_free(&g);

	gstart(&g);
	a = input(&g, "a", DIMS(4, 5));
	b = input(&g, "b", DIMS(6, 7));
	node(&g, G_MATMUL, "mm", IN(a, b), "y");
	infer_fails(&g, "'mm'", "inner dimensions differ: input 0 'a' [4,5] "
		    "has K = 5, input 1 'b' [6,7] has K = 6");
	graph_free(&g);

	gstart(&g);
	a = input(&g, "a", DIMS(4, 5));
	b = input(&g, "b", DIMS(4, 6));
	k = node(&g, G_GEMM, "g", IN(a, b), "y");
	g.nodes[k].trans_a = 1;         /* A' is [5, 4]: K 4 matches */
	infer_ok(&g);
	check_shape(&g, "y", DIMS(5, 6));
	graph_free(&g);
}
END_TEST

START_TEST(graph_infer_broadcast)
{
	struct graph g;
	gstart(&g);
	int a = input(&g, "a", DIMS(8, 1, 3));
	int b = input(&g, "b", DIMS(4, 1));
	int s = scalar(&g, "s", 2);
	node(&g, G_ADD, "add", IN(a, b), "y1");
	node(&g, G_MUL, "mul", IN(s, a), "y2");
	node(&g, G_POW, "pow", IN(b, s), "y3");
	infer_ok(&g);
	check_shape(&g, "y1", DIMS(8, 4, 3));
	check_shape(&g, "y2", DIMS(8, 1, 3));
	check_shape(&g, "y3", DIMS(4, 1));
	graph_free(&g);

	gstart(&g);
	a = input(&g, "a", DIMS(2, 3));
	b = input(&g, "b", DIMS(4));
	node(&g, G_SUB, "sub", IN(a, b), "y");
	infer_fails(&g, "'sub'", "cannot broadcast input 0 'a' [2,3] with "
		    "input 1 'b' [4]");
	graph_free(&g);
}
END_TEST

/* Reshape: 0 copies, -1 infers; its shape from a constant subgraph
 * (Gather of a constant shape, Unsqueeze, Concat) folded on the way. */
START_TEST(graph_infer_reshape)
{
	struct graph g;
	gstart(&g);
	int x = input(&g, "x", DIMS(2, 3, 4));
	node(&g, G_RESHAPE, "r1", IN(x, ci64(&g, "s1", DIMS(0, -1))), "y1");
	node(&g, G_RESHAPE, "r2", IN(x, ci64(&g, "s2", DIMS(-1, 4))), "y2");
	node(&g, G_RESHAPE, "r3", IN(x, ci64(&g, "s3", DIMS(0, 0, 2, 2))),
	     "y3");
	/* [2, -1] built as Concat(Unsqueeze(Gather(dims, 0)), [-1]) */
	int dims = ci64(&g, "dims", DIMS(2, 3, 4));
	int zero = tensor(&g, "zero", G_DT_I64, NULL, 0, G_T_CONST);
	g.tensors[zero].data = calloc(1, 8);
	node(&g, G_GATHER, "take", IN(dims, zero), "d0");
	int ku = node(&g, G_UNSQUEEZE, "unsq", IN(T(&g, "d0")), "d0v");
	g.nodes[ku].n_axes = 1;
	node(&g, G_CONCAT, "cat", IN(T(&g, "d0v"), ci64(&g, "m1", DIMS(-1))),
	     "shape");
	node(&g, G_RESHAPE, "r4", IN(x, T(&g, "shape")), "y4");
	int kf = node(&g, G_FLATTEN, "flat", IN(x), "y5");
	g.nodes[kf].axis = -1;
	infer_ok(&g);
	check_shape(&g, "y1", DIMS(2, 12));
	check_shape(&g, "y2", DIMS(6, 4));
	check_shape(&g, "y3", DIMS(2, 3, 2, 2));
	check_shape(&g, "shape", DIMS(2));
	check_shape(&g, "y4", DIMS(2, 12));
	check_shape(&g, "y5", DIMS(6, 4));
	ck_assert(g.tensors[T(&g, "shape")].flags & G_T_CONST);
	int64_t v;
	ck_assert_int_eq(graph_const_i64(&g.tensors[T(&g, "shape")], 0, &v), 0);
	ck_assert_int_eq(v, 2);
	ck_assert_int_eq(g.nodes[kf].axis, 2);      /* normalised */
	graph_free(&g);

	gstart(&g);
	x = input(&g, "x", DIMS(2, 3, 4));
	node(&g, G_RESHAPE, "bad", IN(x, ci64(&g, "s", DIMS(5, -1))), "y");
	infer_fails(&g, "'bad'", "cannot reshape input 'x' [2,3,4] (24 "
		    "elements) to [5,-1]");
	graph_free(&g);

	gstart(&g);
	x = input(&g, "x", DIMS(2, 3, 4));
	node(&g, G_RESHAPE, "two", IN(x, ci64(&g, "s", DIMS(-1, -1))), "y");
	infer_fails(&g, "'two'", "more than one -1");
	graph_free(&g);

	/* a shape known only at run time */
	gstart(&g);
	x = input(&g, "x", DIMS(2, 3, 4));
	int s = tensor(&g, "shp", G_DT_I64, DIMS(2), 0);
	ck_assert_int_eq(graph_add_input(&g, s), 0);
	node(&g, G_RESHAPE, "dyn", IN(x, s), "y");
	infer_fails(&g, "'dyn'", "its shape input 'shp' is not a constant");
	graph_free(&g);
}
END_TEST

/* Slice clamps out-of-range starts/ends, counts negative indices from
 * the end, steps backwards; the folded values follow. */
START_TEST(graph_infer_slice)
{
	struct graph g;
	gstart(&g);
	float v[80];
	for (int i = 0; i < 80; i++)
		v[i] = (float)i;
	int x = cf32(&g, "x", DIMS(10, 8), v);
	int in = input(&g, "in", DIMS(10, 8));
	int st = ci64(&g, "st", DIMS(-3, 1)), en = ci64(&g, "en",
		DIMS(INT64_MAX, 100));
	int ax = ci64(&g, "ax", DIMS(0, -1)), sp = ci64(&g, "sp", DIMS(1, 2));
	node(&g, G_SLICE, "fwd", IN(x, st, en, ax, sp), "y1");
	node(&g, G_SLICE, "back", IN(in, ci64(&g, "st2", DIMS(-1)),
		ci64(&g, "en2", DIMS(INT64_MIN)), ci64(&g, "ax2", DIMS(0)),
		ci64(&g, "sp2", DIMS(-2))), "y2");
	node(&g, G_SLICE, "mid", IN(in, ci64(&g, "st3", DIMS(2, -100)),
		ci64(&g, "en3", DIMS(-2, 3))), "y3");
	infer_ok(&g);
	check_shape(&g, "y1", DIMS(3, 4));      /* rows 7..9, cols 1,3,5,7 */
	check_shape(&g, "y2", DIMS(5, 8));      /* rows 9,7,5,3,1 */
	check_shape(&g, "y3", DIMS(6, 3));
	int y1 = T(&g, "y1");
	ck_assert(g.tensors[y1].flags & G_T_CONST);
	ck_assert_float_eq(fval(&g, y1, 0), 57);       /* x[7][1] */
	ck_assert_float_eq(fval(&g, y1, 3), 63);       /* x[7][7] */
	ck_assert_float_eq(fval(&g, y1, 11), 79);      /* x[9][7] */
	graph_free(&g);

	gstart(&g);
	in = input(&g, "in", DIMS(4));
	node(&g, G_SLICE, "zero", IN(in, ci64(&g, "s", DIMS(0)),
		ci64(&g, "e", DIMS(4)), ci64(&g, "a", DIMS(0)),
		ci64(&g, "p", DIMS(0))), "y");
	infer_fails(&g, "'zero'", "step 0 on axis 0");
	graph_free(&g);

	gstart(&g);
	in = input(&g, "in", DIMS(4));
	node(&g, G_SLICE, "empty", IN(in, ci64(&g, "s", DIMS(3)),
		ci64(&g, "e", DIMS(1))), "y");
	infer_fails(&g, "'empty'", "is empty");
	graph_free(&g);
}
END_TEST

START_TEST(graph_infer_split)
{
	struct graph g;
	gstart(&g);
	int x = input(&g, "x", DIMS(1, 10, 4));
	int k = node(&g, G_SPLIT, "sizes", IN(x, ci64(&g, "sz", DIMS(3, 7))),
		     "a");
	g.nodes[k].axis = -2;
	g.nodes[k].out[1] = graph_tensor(&g, "b");
	g.nodes[k].n_out = 2;
	k = node(&g, G_SPLIT, "equal", IN(x), "c");
	g.nodes[k].axis = 1;
	g.nodes[k].out[1] = graph_tensor(&g, "d");
	g.nodes[k].n_out = 2;
	k = node(&g, G_SPLIT, "attr", IN(x), "e");
	g.nodes[k].axis = 2;
	g.nodes[k].n_split = 3;
	g.nodes[k].split[0] = 1;
	g.nodes[k].split[1] = 1;
	g.nodes[k].split[2] = 2;
	for (int o = 1; o < 3; o++)
		g.nodes[k].out[o] = graph_tensor(&g, o == 1 ? "f" : "h");
	g.nodes[k].n_out = 3;
	infer_ok(&g);
	check_shape(&g, "a", DIMS(1, 3, 4));
	check_shape(&g, "b", DIMS(1, 7, 4));
	check_shape(&g, "c", DIMS(1, 5, 4));
	check_shape(&g, "d", DIMS(1, 5, 4));
	check_shape(&g, "e", DIMS(1, 10, 1));
	check_shape(&g, "h", DIMS(1, 10, 2));
	ck_assert_int_eq(g.nodes[0].axis, 1);
	ck_assert_int_eq(g.nodes[0].n_split, 2);    /* copied from input 1 */
	graph_free(&g);

	gstart(&g);
	x = input(&g, "x", DIMS(1, 10, 4));
	k = node(&g, G_SPLIT, "bad", IN(x, ci64(&g, "sz", DIMS(3, 6))), "a");
	g.nodes[k].axis = 1;
	g.nodes[k].out[1] = graph_tensor(&g, "b");
	g.nodes[k].n_out = 2;
	infer_fails(&g, "'bad'", "split sizes add up to 9, axis 1 of input "
		    "'x' [1,10,4] has 10");
	graph_free(&g);

	gstart(&g);
	x = input(&g, "x", DIMS(1, 10, 4));
	k = node(&g, G_SPLIT, "odd", IN(x), "a");
	g.nodes[k].axis = 1;
	for (int o = 1; o < 3; o++)
		g.nodes[k].out[o] = graph_tensor(&g, o == 1 ? "b" : "c");
	g.nodes[k].n_out = 3;
	infer_fails(&g, "'odd'", "does not split into 3 equal parts");
	graph_free(&g);
}
END_TEST

/* The remaining shape ops, one each. */
START_TEST(graph_infer_shape_ops)
{
	struct graph g;
	gstart(&g);
	int x = input(&g, "x", DIMS(2, 1, 3, 1));
	int k = node(&g, G_SQUEEZE, "sq_all", IN(x), "y1");
	k = node(&g, G_SQUEEZE, "sq_in", IN(x, ci64(&g, "a1", DIMS(-1))), "y2");
	k = node(&g, G_UNSQUEEZE, "unsq", IN(x, ci64(&g, "a2", DIMS(0, -1))),
		 "y3");
	k = node(&g, G_TRANSPOSE, "tr", IN(x), "y4");
	k = node(&g, G_TRANSPOSE, "perm", IN(x), "y5");
	g.nodes[k].n_perm = 4;
	memcpy(g.nodes[k].perm, (int[]){ 2, 0, 3, 1 }, 4 * sizeof(int));
	int e = cf32(&g, "emb", DIMS(10, 4), NULL);
	int ids = tensor(&g, "ids", G_DT_I64, DIMS(1, 3), 0);
	ck_assert_int_eq(graph_add_input(&g, ids), 0);
	k = node(&g, G_GATHER, "gather", IN(e, ids), "y6");
	k = node(&g, G_CONCAT, "cat", IN(x, x, x), "y7");
	g.nodes[k].axis = -2;
	int im = input(&g, "im", DIMS(1, 3, 4, 5));
	k = node(&g, G_RESIZE, "up", IN(im, -1, cf32(&g, "sc", DIMS(4),
		(const float[]){ 1, 1, 2, 3 })), "y8");
	k = node(&g, G_RESIZE, "to", IN(im, -1, -1, ci64(&g, "sz",
		DIMS(1, 3, 7, 7))), "y9");
	k = node(&g, G_PAD, "pad", IN(im, ci64(&g, "pads",
		DIMS(0, 0, 1, 2, 0, 0, 3, 4))), "y10");
	k = node(&g, G_REDUCEMEAN, "mean", IN(im), "y11");
	g.nodes[k].n_axes = 2;
	g.nodes[k].axes[0] = -1;
	g.nodes[k].axes[1] = 1;
	k = node(&g, G_REDUCEMEAN, "mean_nokeep", IN(im), "y12");
	g.nodes[k].n_axes = 1;
	g.nodes[k].axes[0] = 2;
	g.nodes[k].keepdims = 0;
	k = node(&g, G_SOFTMAX, "sm", IN(im), "y13");
	k = node(&g, G_QUANT, "q", IN(im, scalar(&g, "qs", 0.5f)), "y14");
	k = node(&g, G_DEQUANT, "dq", IN(T(&g, "y14"), scalar(&g, "ds", 2)),
		 "y15");
	int gm = cf32(&g, "gamma", DIMS(5), NULL);
	k = node(&g, G_LAYERNORM, "ln", IN(im, gm), "y16");
	infer_ok(&g);
	check_shape(&g, "y1", DIMS(2, 3));
	check_shape(&g, "y2", DIMS(2, 1, 3));
	check_shape(&g, "y3", DIMS(1, 2, 1, 3, 1, 1));
	check_shape(&g, "y4", DIMS(1, 3, 1, 2));
	check_shape(&g, "y5", DIMS(3, 2, 1, 1));
	check_shape(&g, "y6", DIMS(1, 3, 4));
	check_shape(&g, "y7", DIMS(2, 1, 9, 1));
	check_shape(&g, "y8", DIMS(1, 3, 8, 15));
	check_shape(&g, "y9", DIMS(1, 3, 7, 7));
	check_shape(&g, "y10", DIMS(1, 3, 8, 11));
	check_shape(&g, "y11", DIMS(1, 1, 4, 1));
	check_shape(&g, "y12", DIMS(1, 3, 5));
	check_shape(&g, "y13", DIMS(1, 3, 4, 5));
	check_shape(&g, "y16", DIMS(1, 3, 4, 5));
	ck_assert_int_eq(g.tensors[T(&g, "y14")].dtype, G_DT_U8);
	ck_assert_int_eq(g.tensors[T(&g, "y15")].dtype, G_DT_F32);
	ck_assert_int_eq(g.tensors[T(&g, "y6")].dtype, G_DT_F32);
	ck_assert_int_eq(g.nodes[k].axis, 3);        /* LayerNorm -1 -> 3 */
	graph_free(&g);

	gstart(&g);
	x = input(&g, "x", DIMS(2, 3));
	k = node(&g, G_SQUEEZE, "sq", IN(x, ci64(&g, "a", DIMS(1))), "y");
	infer_fails(&g, "'sq'", "cannot squeeze axis 1 of input 'x' [2,3]");
	graph_free(&g);

	gstart(&g);
	x = input(&g, "x", DIMS(2, 3));
	int y = input(&g, "z", DIMS(2, 4));
	k = node(&g, G_CONCAT, "cat", IN(x, y), "y");
	infer_fails(&g, "'cat'", "does not join input 0 'x' [2,3]");
	graph_free(&g);

	gstart(&g);
	x = input(&g, "x", DIMS(1, 3, 4, 5));
	k = node(&g, G_RESIZE, "lin", IN(x, -1, cf32(&g, "sc", DIMS(4), NULL)),
		 "y");
	strcpy(g.nodes[k].mode, "linear");
	infer_fails(&g, "'lin'", "mode 'linear': only nearest");
	graph_free(&g);

	gstart(&g);
	int bn_in = input(&g, "x", DIMS(1, 4, 2, 2));
	node(&g, G_BATCHNORM, "bn", IN(bn_in, cf32(&g, "s", DIMS(3), NULL),
		cf32(&g, "b", DIMS(4), NULL), cf32(&g, "m", DIMS(4), NULL),
		cf32(&g, "v", DIMS(4), NULL)), "y");
	infer_fails(&g, "'bn'", "scale 's' has shape [3], input 'x' has 4 "
		    "channels");
	graph_free(&g);

	/* an input nobody makes */
	gstart(&g);
	x = input(&g, "x", DIMS(2));
	node(&g, G_ADD, "add", IN(x, graph_tensor(&g, "ghost")), "y");
	infer_fails(&g, "'add'", "input 1 'ghost' has no known shape");
	graph_free(&g);
}
END_TEST

/* Nodes of constants evaluated (fold.c), checked by hand: MatMul with a
 * broadcast batch, Gemm, a grouped Conv, AveragePool with and without
 * the padding counted, MaxPool, Softmax, LayerNormalization,
 * BatchNormalization, ReduceMean, Pad. */
START_TEST(graph_infer_fold_compute)
{
	struct graph g;
	gstart(&g);
	float v[16];
	for (int i = 0; i < 16; i++)
		v[i] = (float)(i + 1);
	int a = cf32(&g, "a", DIMS(2, 2, 3), v);          /* 1..12 */
	int b = cf32(&g, "b", DIMS(3, 2), (const float[]){ 1, 0, 0, 1, 1, 1 });
	node(&g, G_MATMUL, "mm", IN(a, b), "mm_y");
	int k = node(&g, G_GEMM, "gemm", IN(b, b, scalar(&g, "c0", 10)), "gm_y");
	g.nodes[k].trans_a = 1;     /* b' [2,3] x b [3,2] */
	g.nodes[k].alpha = 2;
	int x = cf32(&g, "x", DIMS(1, 2, 2, 2), v);       /* 1..8 */
	int w = cf32(&g, "w", DIMS(2, 1, 1, 1), (const float[]){ 2, -1 });
	k = node(&g, G_CONV, "dw", IN(x, w, cf32(&g, "wb", DIMS(2),
		(const float[]){ 0.5f, 0 })), "cv_y");
	g.nodes[k].group = 2;
	for (int inc = 0; inc < 2; inc++) {
		k = node(&g, G_AVGPOOL, inc ? "avg_inc" : "avg", IN(x),
			 inc ? "ap1" : "ap0");
		struct g_node *n = &g.nodes[k];
		n->kernel[0] = n->kernel[1] = 2;
		n->pad[0] = n->pad[1] = n->pad[2] = n->pad[3] = 1;
		n->stride[0] = n->stride[1] = 2;
		n->count_include_pad = inc;
	}
	k = node(&g, G_MAXPOOL, "max", IN(x), "mp");
	g.nodes[k].kernel[0] = g.nodes[k].kernel[1] = 2;
	k = node(&g, G_SOFTMAX, "sm", IN(b), "sm_y");
	k = node(&g, G_LAYERNORM, "ln", IN(b, cf32(&g, "lg", DIMS(2),
		(const float[]){ 1, 2 }), cf32(&g, "lb", DIMS(2),
		(const float[]){ 0, 1 })), "ln_y");
	node(&g, G_BATCHNORM, "bn", IN(x, cf32(&g, "bs", DIMS(2),
		(const float[]){ 1, 2 }), cf32(&g, "bb", DIMS(2),
		(const float[]){ 0, 1 }), cf32(&g, "bm", DIMS(2),
		(const float[]){ 1, 2 }), cf32(&g, "bv", DIMS(2),
		(const float[]){ 4, 1 })), "bn_y");
	k = node(&g, G_REDUCEMEAN, "rm", IN(a), "rm_y");
	g.nodes[k].n_axes = 2;
	g.nodes[k].axes[0] = 0;
	g.nodes[k].axes[1] = 2;
	k = node(&g, G_PAD, "pad", IN(b, ci64(&g, "pp", DIMS(1, 0, 0, 1)),
		scalar(&g, "pv", -1)), "pad_y");
	infer_ok(&g);
	/* a[1] row 0 = 7 8 9; times b: (7 + 9, 8 + 9) */
	ck_assert_float_eq(fval(&g, T(&g, "mm_y"), 4), 16);
	ck_assert_float_eq(fval(&g, T(&g, "mm_y"), 5), 17);
	ck_assert_float_eq(fval(&g, T(&g, "mm_y"), 6), 22);   /* 10 + 12 */
	/* b'b = [[2,1],[1,2]]; 2 * that + 10 */
	ck_assert_float_eq(fval(&g, T(&g, "gm_y"), 0), 14);
	ck_assert_float_eq(fval(&g, T(&g, "gm_y"), 1), 12);
	/* depthwise 1x1: channel 0 * 2 + 0.5, channel 1 * -1 */
	ck_assert_float_eq(fval(&g, T(&g, "cv_y"), 3), 8.5f);
	ck_assert_float_eq(fval(&g, T(&g, "cv_y"), 4), -5);
	/* 2x2 windows at stride 2 over a 1-padded 2x2: one real element
	 * each; counted with the padding the mean is a quarter of it */
	check_shape(&g, "ap0", DIMS(1, 2, 2, 2));
	ck_assert_float_eq(fval(&g, T(&g, "ap0"), 3), 4);
	ck_assert_float_eq(fval(&g, T(&g, "ap1"), 3), 1);
	ck_assert_float_eq(fval(&g, T(&g, "mp"), 1), 8);
	/* softmax of (1, 0): e / (e + 1) */
	ck_assert_float_eq_tol(fval(&g, T(&g, "sm_y"), 0),
			       (float)(exp(1) / (exp(1) + 1)), 1e-7);
	/* layernorm of (1, 0): (1, -1) / sqrt(0.25 + 1e-5) / 2 ... */
	double sd = sqrt(0.25 + (double)1e-5f);
	ck_assert_float_eq_tol(fval(&g, T(&g, "ln_y"), 0),
			       (float)(0.5 / sd * 1 + 0), 1e-6);
	ck_assert_float_eq_tol(fval(&g, T(&g, "ln_y"), 1),
			       (float)(-0.5 / sd * 2 + 1), 1e-6);
	/* batchnorm channel 1 (5..8): (x - 2) / sqrt(1 + eps) * 2 + 1 */
	ck_assert_float_eq_tol(fval(&g, T(&g, "bn_y"), 4),
			       (float)(3 / sqrt(1 + (double)1e-5f) * 2 + 1),
			       1e-6);
	/* mean over axes 0 and 2 of 1..12 [2,2,3]: rows (1..3, 7..9) = 5 */
	check_shape(&g, "rm_y", DIMS(1, 2, 1));
	ck_assert_float_eq(fval(&g, T(&g, "rm_y"), 0), 5);
	ck_assert_float_eq(fval(&g, T(&g, "rm_y"), 1), 8);
	/* one row before, one column after, filled with -1 */
	check_shape(&g, "pad_y", DIMS(4, 3));
	ck_assert_float_eq(fval(&g, T(&g, "pad_y"), 0), -1);
	ck_assert_float_eq(fval(&g, T(&g, "pad_y"), 3), 1);
	ck_assert_float_eq(fval(&g, T(&g, "pad_y"), 5), -1);
	graph_free(&g);
}
END_TEST

/* ---- simplify ----------------------------------------------------------- */

/* y = relu(conv(x) + b) + r, the bias a [1, M, 1, 1] constant, the
 * residual made before the conv: one Conv node. */
START_TEST(graph_simplify_conv_chain)
{
	struct graph g;
	gstart(&g);
	int x = input(&g, "x", DIMS(1, 4, 6, 6));
	int w = cf32(&g, "w", DIMS(4, 4, 3, 3), NULL);
	int k = node(&g, G_CONV, "conv", IN(x, w), "c");
	g.nodes[k].pad[0] = g.nodes[k].pad[1] = 1;
	g.nodes[k].pad[2] = g.nodes[k].pad[3] = 1;
	int b = cf32(&g, "b", DIMS(1, 4, 1, 1), NULL);
	node(&g, G_ADD, "bias", IN(T(&g, "c"), b), "cb");
	node(&g, G_RELU, "relu", IN(T(&g, "cb")), "r");
	node(&g, G_ADD, "res", IN(x, T(&g, "r")), "y");   /* commuted */
	output(&g, "y");
	infer_ok(&g);
	simplify_ok(&g, 0);
	ck_assert_int_eq(g.n_nodes, 1);
	const struct g_node *n = &g.nodes[0];
	ck_assert_int_eq(n->op, G_CONV);
	ck_assert_int_eq(n->act, G_ACT_RELU);
	ck_assert_int_eq(n->res, x);
	ck_assert_int_eq(n->out[0], T(&g, "y"));
	ck_assert_int_eq(n->n_in, 3);
	ck_assert_int_eq(g.tensors[n->in[2]].rank, 1);    /* [4] */
	ck_assert_int_eq(g.tensors[n->in[2]].dim[0], 4);
	ck_assert_float_eq(fval(&g, n->in[2], 3), 1.0f);
	ck_assert_str_eq(n->fused, "Add+Relu+Add");
	ck_assert_int_eq(n->n_fused, 3);
	ck_assert_str_eq(n->name, "conv");
	/* still a valid graph: infer again */
	infer_ok(&g);
	check_shape(&g, "y", DIMS(1, 4, 6, 6));
	graph_free(&g);
}
END_TEST

/* Legalising for the kernels: a conv padded unevenly reads a Pad's output
 * (the conv's pads then 0), a Concat of three inputs is two Concats, the
 * order stays topological and shapes still infer to the same output. */
START_TEST(graph_simplify_legalise)
{
	struct graph g;
	gstart(&g);
	int x = input(&g, "x", DIMS(1, 3, 8, 8));
	int w = cf32(&g, "w", DIMS(4, 3, 3, 3), NULL);
	int k = node(&g, G_CONV, "conv", IN(x, w), "c");
	g.nodes[k].stride[0] = g.nodes[k].stride[1] = 2;
	g.nodes[k].pad[2] = g.nodes[k].pad[3] = 1;   /* bottom, right */
	int w1 = cf32(&g, "w1", DIMS(2, 4, 1, 1), NULL);
	int w2 = cf32(&g, "w2", DIMS(3, 4, 1, 1), NULL);
	node(&g, G_CONV, "b1", IN(T(&g, "c"), w1), "p1");
	node(&g, G_CONV, "b2", IN(T(&g, "c"), w2), "p2");
	k = node(&g, G_CONCAT, "cat", IN(T(&g, "c"), T(&g, "p1"), T(&g, "p2")),
		 "y");
	g.nodes[k].axis = 1;
	output(&g, "y");
	infer_ok(&g);
	check_shape(&g, "c", DIMS(1, 4, 4, 4));
	simplify_ok(&g, 0);
	check_topological(&g);
	ck_assert_int_eq(g.n_nodes, 6);
	const struct g_node *pad = &g.nodes[0], *conv = &g.nodes[1];
	ck_assert_int_eq(pad->op, G_PAD);
	ck_assert_int_eq(pad->in[0], x);
	ck_assert_int_eq(conv->op, G_CONV);
	ck_assert_int_eq(conv->in[0], pad->out[0]);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(conv->pad[i], 0);
	int64_t v;
	ck_assert_int_eq(graph_const_i64(&g.tensors[pad->in[1]], 6, &v), 0);
	ck_assert_int_eq(v, 1);                       /* H end */
	ck_assert_int_eq(graph_const_i64(&g.tensors[pad->in[1]], 2, &v), 0);
	ck_assert_int_eq(v, 0);                       /* H begin */
	ck_assert_int_eq(g.tensors[pad->out[0]].dim[2], 9);
	const struct g_node *c1 = &g.nodes[4], *c2 = &g.nodes[5];
	ck_assert_int_eq(c1->op, G_CONCAT);
	ck_assert_int_eq(c2->op, G_CONCAT);
	ck_assert_int_eq(c1->n_in, 2);
	ck_assert_int_eq(c2->n_in, 2);
	ck_assert_int_eq(c2->in[0], c1->out[0]);
	ck_assert_int_eq(c2->in[1], T(&g, "p2"));
	ck_assert_int_eq(g.tensors[c1->out[0]].dim[1], 6);
	ck_assert_int_eq(c2->out[0], T(&g, "y"));
	/* still a valid graph with the same output */
	infer_ok(&g);
	check_shape(&g, "c", DIMS(1, 4, 4, 4));
	check_shape(&g, "y", DIMS(1, 9, 4, 4));
	graph_free(&g);

	/* a MaxPool pads with -inf; an AveragePool that does not count its
	 * padding keeps it (refused by the mapper, by name) */
	gstart(&g);
	x = input(&g, "x", DIMS(1, 2, 4, 4));
	k = node(&g, G_MAXPOOL, "mp", IN(x), "m");
	g.nodes[k].kernel[0] = g.nodes[k].kernel[1] = 3;
	g.nodes[k].stride[0] = g.nodes[k].stride[1] = 2;
	g.nodes[k].pad[2] = g.nodes[k].pad[3] = 1;
	k = node(&g, G_AVGPOOL, "ap", IN(T(&g, "m")), "y");
	g.nodes[k].kernel[0] = g.nodes[k].kernel[1] = 2;
	g.nodes[k].pad[2] = g.nodes[k].pad[3] = 1;
	output(&g, "y");
	infer_ok(&g);
	simplify_ok(&g, 0);
	ck_assert_int_eq(g.n_nodes, 3);
	ck_assert_int_eq(g.nodes[0].op, G_PAD);
	ck_assert_int_eq(g.nodes[0].n_in, 3);
	ck_assert(isinf(fval(&g, g.nodes[0].in[2], 0)) &&
		  fval(&g, g.nodes[0].in[2], 0) < 0);
	ck_assert_int_eq(g.nodes[1].op, G_MAXPOOL);
	ck_assert_int_eq(g.nodes[1].pad[2], 0);
	ck_assert_int_eq(g.nodes[2].op, G_AVGPOOL);
	ck_assert_int_eq(g.nodes[2].pad[2], 1);
	infer_ok(&g);
	check_shape(&g, "m", DIMS(1, 2, 2, 2));
	graph_free(&g);
}
END_TEST

/* Each fusion stays away when the tensor it would remove has another
 * reader or is a graph output; no_fuse keeps everything apart. */
START_TEST(graph_simplify_no_fuse_when_shared)
{
	struct graph g;
	/* conv output read by relu and by another node */
	gstart(&g);
	int x = input(&g, "x", DIMS(1, 2, 4, 4));
	int w = cf32(&g, "w", DIMS(2, 2, 1, 1), NULL);
	node(&g, G_CONV, "conv", IN(x, w), "c");
	node(&g, G_RELU, "relu", IN(T(&g, "c")), "r");
	node(&g, G_SIGMOID, "other", IN(T(&g, "c")), "s");
	output(&g, "r");
	output(&g, "s");
	infer_ok(&g);
	simplify_ok(&g, 0);
	ck_assert_int_eq(g.n_nodes, 3);
	ck_assert_int_eq(made_by(&g, "c")->act, G_ACT_NONE);
	graph_free(&g);

	/* conv output is itself a graph output */
	gstart(&g);
	x = input(&g, "x", DIMS(1, 2, 4, 4));
	w = cf32(&g, "w", DIMS(2, 2, 1, 1), NULL);
	node(&g, G_CONV, "conv", IN(x, w), "c");
	node(&g, G_RELU, "relu", IN(T(&g, "c")), "r");
	output(&g, "c");
	output(&g, "r");
	infer_ok(&g);
	simplify_ok(&g, 0);
	ck_assert_int_eq(g.n_nodes, 2);
	graph_free(&g);

	/* residual: the activated output also feeds a second conv */
	gstart(&g);
	x = input(&g, "x", DIMS(1, 2, 4, 4));
	w = cf32(&g, "w", DIMS(2, 2, 1, 1), NULL);
	node(&g, G_CONV, "conv", IN(x, w), "c");
	node(&g, G_RELU, "relu", IN(T(&g, "c")), "r");
	node(&g, G_ADD, "res", IN(T(&g, "r"), x), "y");
	node(&g, G_CONV, "conv2", IN(T(&g, "r"), w), "z");
	output(&g, "y");
	output(&g, "z");
	infer_ok(&g);
	simplify_ok(&g, 0);
	ck_assert_int_eq(g.n_nodes, 3);         /* conv+relu, add, conv2 */
	ck_assert_int_eq(made_by(&g, "r")->res, -1);
	ck_assert_int_eq(made_by(&g, "r")->act, G_ACT_RELU);
	graph_free(&g);

	/* a bias add of a per-pixel (not per-channel) constant stays */
	gstart(&g);
	x = input(&g, "x", DIMS(1, 2, 4, 4));
	w = cf32(&g, "w", DIMS(2, 2, 1, 1), NULL);
	node(&g, G_CONV, "conv", IN(x, w), "c");
	node(&g, G_ADD, "add", IN(T(&g, "c"), cf32(&g, "b", DIMS(4), NULL)),
	     "y");
	output(&g, "y");
	infer_ok(&g);
	simplify_ok(&g, 0);
	ck_assert_int_eq(g.n_nodes, 2);
	graph_free(&g);

	/* no_fuse */
	gstart(&g);
	x = input(&g, "x", DIMS(1, 2, 4, 4));
	w = cf32(&g, "w", DIMS(2, 2, 1, 1), NULL);
	node(&g, G_CONV, "conv", IN(x, w), "c");
	node(&g, G_RELU, "relu", IN(T(&g, "c")), "r");
	node(&g, G_ADD, "res", IN(T(&g, "r"), x), "y");
	output(&g, "y");
	infer_ok(&g);
	simplify_ok(&g, 1);
	ck_assert_int_eq(g.n_nodes, 3);
	graph_free(&g);
}
END_TEST

/* y = conv_a(x) + conv_b(x): the residual for conv_a is made after it,
 * so the fused node moves to the Add's place; the order stays valid. */
START_TEST(graph_simplify_res_order)
{
	struct graph g;
	gstart(&g);
	int x = input(&g, "x", DIMS(1, 2, 4, 4));
	int w = cf32(&g, "w", DIMS(2, 2, 1, 1), NULL);
	node(&g, G_CONV, "conv_a", IN(x, w), "a");
	node(&g, G_CONV, "conv_b", IN(x, w), "b");
	node(&g, G_ADD, "sum", IN(T(&g, "a"), T(&g, "b")), "y");
	output(&g, "y");
	infer_ok(&g);
	simplify_ok(&g, 0);
	ck_assert_int_eq(g.n_nodes, 2);
	const struct g_node *f = made_by(&g, "y");
	ck_assert_str_eq(f->name, "conv_a");
	ck_assert_int_eq(f->res, T(&g, "b"));
	check_topological(&g);
	graph_free(&g);
}
END_TEST

/* Activations: Clip (bounds from constant inputs), HardSigmoid (alpha,
 * beta), Gelu, SiLU as x * sigmoid(x), into Gemm and MatMul. */
START_TEST(graph_simplify_acts)
{
	struct graph g;
	gstart(&g);
	int a = input(&g, "a", DIMS(4, 8));
	int b = cf32(&g, "b", DIMS(8, 8), NULL);
	node(&g, G_GEMM, "g1", IN(a, b), "y1");
	node(&g, G_CLIP, "clip", IN(T(&g, "y1"), scalar(&g, "lo", 0),
		scalar(&g, "hi", 6)), "z1");
	node(&g, G_MATMUL, "m2", IN(a, b), "y2");
	int k = node(&g, G_HARDSIGMOID, "hsig", IN(T(&g, "y2")), "z2");
	g.nodes[k].alpha = 0.2f;
	g.nodes[k].beta = 0.5f;
	node(&g, G_MATMUL, "m3", IN(a, b), "y3");
	node(&g, G_SIGMOID, "sig", IN(T(&g, "y3")), "s3");
	node(&g, G_MUL, "silu", IN(T(&g, "s3"), T(&g, "y3")), "z3");
	node(&g, G_MATMUL, "m4", IN(a, b), "y4");
	k = node(&g, G_GELU, "gelu", IN(T(&g, "y4")), "z4");
	g.nodes[k].approx_tanh = 1;
	node(&g, G_MATMUL, "m5", IN(a, b), "y5");
	node(&g, G_TANH, "tanh", IN(T(&g, "y5")), "z5");
	node(&g, G_MATMUL, "m6", IN(a, b), "y6");
	node(&g, G_HARDSWISH, "hsw", IN(T(&g, "y6")), "z6");
	for (int i = 1; i <= 6; i++) {
		char nm[8];
		snprintf(nm, sizeof nm, "z%d", i);
		output(&g, nm);
	}
	infer_ok(&g);
	simplify_ok(&g, 0);
	ck_assert_int_eq(g.n_nodes, 6);
	const struct g_node *n = made_by(&g, "z1");
	ck_assert_int_eq(n->op, G_GEMM);
	ck_assert_int_eq(n->act, G_ACT_CLIP);
	ck_assert_float_eq(n->act_lo, 0);
	ck_assert_float_eq(n->act_hi, 6);
	ck_assert_str_eq(n->fused, "Clip");
	n = made_by(&g, "z2");
	ck_assert_int_eq(n->act, G_ACT_HARDSIGMOID);
	ck_assert_float_eq_tol(n->act_lo, 0.2f, 1e-7);
	ck_assert_float_eq_tol(n->act_hi, 0.5f, 1e-7);
	n = made_by(&g, "z3");
	ck_assert_int_eq(n->act, G_ACT_SILU);
	ck_assert_str_eq(n->fused, "Sigmoid+Mul");
	ck_assert_int_eq(n->n_fused, 2);
	n = made_by(&g, "z4");
	ck_assert_int_eq(n->act, G_ACT_GELU);
	ck_assert_int_eq(n->approx_tanh, 1);
	ck_assert_int_eq(made_by(&g, "z5")->act, G_ACT_TANH);
	ck_assert_int_eq(made_by(&g, "z6")->act, G_ACT_HARDSWISH);
	graph_free(&g);
}
END_TEST

/* BatchNormalization folded into the conv before it: weights scaled per
 * output channel, a new bias; compared with the computation by hand.  A
 * BN after a pool stays. */
START_TEST(graph_simplify_batchnorm)
{
	struct graph g;
	gstart(&g);
	static const float wv[8] = { 1, -2, 3, 0.5f, -1, 4, 2, -3 };
	static const float bv[2] = { 0.5f, -1 }, gam[2] = { 2, 0.5f },
			   bet[2] = { 0.1f, 0.2f }, mu[2] = { 1, -1 },
			   var[2] = { 4, 0.25f };
	int x = input(&g, "x", DIMS(1, 4, 3, 3));
	int w = cf32(&g, "w", DIMS(2, 4, 1, 1), wv);
	int b = cf32(&g, "b", DIMS(2), bv);
	node(&g, G_CONV, "conv", IN(x, w, b), "c");
	int k = node(&g, G_BATCHNORM, "bn", IN(T(&g, "c"),
		cf32(&g, "gam", DIMS(2), gam), cf32(&g, "bet", DIMS(2), bet),
		cf32(&g, "mu", DIMS(2), mu), cf32(&g, "var", DIMS(2), var)),
		"y");
	float eps = g.nodes[k].eps;
	node(&g, G_RELU, "relu", IN(T(&g, "y")), "z");
	output(&g, "z");
	/* a BN not after a conv */
	int k2 = node(&g, G_MAXPOOL, "pool", IN(x), "p");
	g.nodes[k2].kernel[0] = g.nodes[k2].kernel[1] = 1;
	node(&g, G_BATCHNORM, "bn2", IN(T(&g, "p"),
		cf32(&g, "g2", DIMS(4), NULL), cf32(&g, "b2", DIMS(4), NULL),
		cf32(&g, "m2", DIMS(4), NULL), cf32(&g, "v2", DIMS(4), NULL)),
		"q");
	output(&g, "q");
	infer_ok(&g);
	simplify_ok(&g, 0);
	ck_assert_int_eq(g.n_nodes, 3);
	const struct g_node *n = made_by(&g, "z");
	ck_assert_int_eq(n->op, G_CONV);
	ck_assert_str_eq(n->fused, "BatchNormalization+Relu");
	ck_assert_int_eq(n->n_fused, 2);
	for (int m = 0; m < 2; m++) {
		double s = gam[m] / sqrt((double)var[m] + (double)eps);
		for (int i = 0; i < 4; i++)
			ck_assert_float_eq_tol(fval(&g, n->in[1], m * 4 + i),
					       (float)(wv[m * 4 + i] * s), 1e-6);
		ck_assert_float_eq_tol(fval(&g, n->in[2], m),
				       (float)((bv[m] - mu[m]) * s + bet[m]),
				       1e-6);
	}
	/* s0 = 2 / sqrt(4) = 1: w unchanged, bias (0.5 - 1) + 0.1 */
	ck_assert_float_eq_tol(fval(&g, n->in[1], 1), -2, 1e-5);
	ck_assert_float_eq_tol(fval(&g, n->in[2], 0), -0.4f, 1e-5);
	ck_assert_int_eq(made_by(&g, "q")->op, G_BATCHNORM);
	graph_free(&g);

	/* no bias, and the conv output read twice: not folded */
	gstart(&g);
	x = input(&g, "x", DIMS(1, 4, 3, 3));
	w = cf32(&g, "w", DIMS(2, 4, 1, 1), wv);
	node(&g, G_CONV, "conv", IN(x, w), "c");
	node(&g, G_BATCHNORM, "bn", IN(T(&g, "c"),
		cf32(&g, "gam", DIMS(2), gam), cf32(&g, "bet", DIMS(2), bet),
		cf32(&g, "mu", DIMS(2), mu), cf32(&g, "var", DIMS(2), var)),
		"y");
	output(&g, "y");
	output(&g, "c");
	infer_ok(&g);
	simplify_ok(&g, 0);
	ck_assert_int_eq(g.n_nodes, 2);
	graph_free(&g);

	/* no conv bias: one is made */
	gstart(&g);
	x = input(&g, "x", DIMS(1, 4, 3, 3));
	w = cf32(&g, "w", DIMS(2, 4, 1, 1), wv);
	node(&g, G_CONV, "conv", IN(x, w), "c");
	node(&g, G_BATCHNORM, "bn", IN(T(&g, "c"),
		cf32(&g, "gam", DIMS(2), gam), cf32(&g, "bet", DIMS(2), bet),
		cf32(&g, "mu", DIMS(2), mu), cf32(&g, "var", DIMS(2), var)),
		"y");
	output(&g, "y");
	infer_ok(&g);
	simplify_ok(&g, 0);
	ck_assert_int_eq(g.n_nodes, 1);
	n = &g.nodes[0];
	ck_assert_int_eq(n->n_in, 3);
	double s1 = gam[1] / sqrt((double)var[1] + (double)eps);
	ck_assert_float_eq_tol(fval(&g, n->in[2], 1),
			       (float)((0 - mu[1]) * s1 + bet[1]), 1e-6);
	infer_ok(&g);
	graph_free(&g);

	/* into a Gemm with transB: row m of B [N, K] scales, C and beta
	 * fold into the new C */
	for (int tb = 0; tb < 2; tb++) {
		gstart(&g);
		x = input(&g, "x", DIMS(3, 4));
		w = tb ? cf32(&g, "w", DIMS(2, 4), wv) :
			 cf32(&g, "w", DIMS(4, 2), wv);
		k = node(&g, G_GEMM, "fc", IN(x, w, cf32(&g, "b", DIMS(2), bv)),
			 "c");
		g.nodes[k].trans_b = tb;
		g.nodes[k].beta = 3;
		node(&g, G_BATCHNORM, "bn", IN(T(&g, "c"),
			cf32(&g, "gam", DIMS(2), gam), cf32(&g, "bet", DIMS(2),
			bet), cf32(&g, "mu", DIMS(2), mu), cf32(&g, "var",
			DIMS(2), var)), "y");
		output(&g, "y");
		infer_ok(&g);
		simplify_ok(&g, 0);
		ck_assert_int_eq(g.n_nodes, 1);
		n = &g.nodes[0];
		ck_assert_int_eq(n->op, G_GEMM);
		ck_assert_float_eq(n->beta, 1);
		for (int i = 0; i < 8; i++) {
			int col = tb ? i / 4 : i % 2;
			double sc = gam[col] / sqrt((double)var[col] +
						    (double)eps);
			ck_assert_float_eq_tol(fval(&g, n->in[1], i),
					       (float)(wv[i] * sc), 1e-6);
		}
		for (int m = 0; m < 2; m++) {
			double sc = gam[m] / sqrt((double)var[m] + (double)eps);
			ck_assert_float_eq_tol(fval(&g, n->in[2], m),
					       (float)((3 * bv[m] - mu[m]) * sc +
						       bet[m]), 1e-6);
		}
		graph_free(&g);
	}
}
END_TEST

/* The decomposed LayerNormalization, with Pow(d, 2) and with Mul(d, d);
 * not when the centred tensor is read elsewhere. */
static void build_layernorm(struct graph *g, int mul_form, int leak)
{
	int x = input(g, "x", DIMS(1, 4, 8));
	int k = node(g, G_REDUCEMEAN, "mean", IN(x), "m");
	g->nodes[k].n_axes = 1;
	g->nodes[k].axes[0] = -1;
	node(g, G_SUB, "sub", IN(x, T(g, "m")), "d");
	if (mul_form)
		node(g, G_MUL, "sq", IN(T(g, "d"), T(g, "d")), "p");
	else
		node(g, G_POW, "sq", IN(T(g, "d"), scalar(g, "two", 2)), "p");
	k = node(g, G_REDUCEMEAN, "var", IN(T(g, "p")), "v");
	g->nodes[k].n_axes = 1;
	g->nodes[k].axes[0] = 2;
	node(g, G_ADD, "addeps", IN(T(g, "v"), scalar(g, "eps", 1e-12f)), "e");
	node(g, G_SQRT, "sqrt", IN(T(g, "e")), "s");
	node(g, G_DIV, "div", IN(T(g, "d"), T(g, "s")), "n");
	node(g, G_MUL, "scale", IN(cf32(g, "gamma", DIMS(8), NULL), T(g, "n")),
	     "y");
	node(g, G_ADD, "shift", IN(T(g, "y"), cf32(g, "beta", DIMS(1, 8), NULL)),
	     "z");
	output(g, "z");
	if (leak)
		output(g, "d");
}

START_TEST(graph_simplify_layernorm)
{
	for (int form = 0; form < 2; form++) {
		struct graph g;
		gstart(&g);
		build_layernorm(&g, form, 0);
		infer_ok(&g);
		simplify_ok(&g, 0);
		ck_assert_int_eq(g.n_nodes, 1);
		const struct g_node *n = &g.nodes[0];
		ck_assert_int_eq(n->op, G_LAYERNORM);
		ck_assert_int_eq(n->in[0], T(&g, "x"));
		ck_assert_int_eq(n->in[1], T(&g, "gamma"));
		ck_assert_int_eq(n->in[2], T(&g, "beta.ln"));   /* [8] */
		check_shape(&g, "beta.ln", DIMS(8));
		ck_assert_int_eq(n->axis, 2);
		ck_assert_float_eq_tol(n->eps, 1e-12f, 1e-18);
		ck_assert_int_eq(n->n_fused, 9);
		ck_assert_str_eq(n->fused, form ? "ReduceMean+Sub+Mul+ReduceMean"
				 "+Add+Sqrt+Div+Mul+Add" : "ReduceMean+Sub+Pow+"
				 "ReduceMean+Add+Sqrt+Div+Mul+Add");
		ck_assert_int_eq(n->out[0], T(&g, "z"));
		infer_ok(&g);
		check_shape(&g, "z", DIMS(1, 4, 8));
		graph_free(&g);
	}
	struct graph g;
	gstart(&g);
	build_layernorm(&g, 0, 1);
	infer_ok(&g);
	simplify_ok(&g, 0);
	ck_assert_int_eq(g.n_nodes, 9);
	graph_free(&g);
}
END_TEST

/* GELU, erf form in two exported orderings and the tanh form, then fused
 * with the MatMul's bias Add into the MatMul (bias as input 2). */
START_TEST(graph_simplify_gelu)
{
	for (int form = 0; form < 3; form++) {
		struct graph g;
		gstart(&g);
		int a = input(&g, "a", DIMS(1, 4, 8));
		int w = cf32(&g, "w", DIMS(8, 16), NULL);
		node(&g, G_MATMUL, "fc", IN(a, w), "h");
		node(&g, G_ADD, "bias", IN(cf32(&g, "b", DIMS(16), NULL),
			T(&g, "h")), "x");
		int x = T(&g, "x");
		if (form == 0) {
			/* PyTorch F.gelu: (x * (erf(x / sqrt2) + 1)) * 0.5 */
			node(&g, G_DIV, "d", IN(x, scalar(&g, "r2", 1.4142135f)),
			     "q");
			node(&g, G_ERF, "erf", IN(T(&g, "q")), "e");
			node(&g, G_ADD, "one", IN(T(&g, "e"), scalar(&g, "1", 1)),
			     "a1");
			node(&g, G_MUL, "m1", IN(x, T(&g, "a1")), "t");
			node(&g, G_MUL, "m2", IN(T(&g, "t"), scalar(&g, "c05",
				0.5f)), "y");
		} else if (form == 1) {
			/* BERT: x * 0.5 * (1 + erf(x * 0.70710677)) */
			node(&g, G_MUL, "half", IN(x, scalar(&g, "c05", 0.5f)),
			     "xh");
			node(&g, G_MUL, "d", IN(scalar(&g, "r", 0.70710677f), x),
			     "q");
			node(&g, G_ERF, "erf", IN(T(&g, "q")), "e");
			node(&g, G_ADD, "one", IN(scalar(&g, "1", 1), T(&g, "e")),
			     "a1");
			node(&g, G_MUL, "m", IN(T(&g, "xh"), T(&g, "a1")), "y");
		} else {
			/* GPT-2: 0.5 x (1 + tanh(0.79788456 (x + 0.044715
			 * x^3))) */
			node(&g, G_MUL, "half", IN(scalar(&g, "c05", 0.5f), x),
			     "xh");
			node(&g, G_POW, "cube", IN(x, scalar(&g, "3", 3)), "c");
			node(&g, G_MUL, "k", IN(scalar(&g, "k1", 0.044715f),
				T(&g, "c")), "ck");
			node(&g, G_ADD, "in", IN(x, T(&g, "ck")), "s");
			node(&g, G_MUL, "sc", IN(T(&g, "s"),
				scalar(&g, "k2", 0.7978846f)), "u");
			node(&g, G_TANH, "tanh", IN(T(&g, "u")), "t");
			node(&g, G_ADD, "one", IN(T(&g, "t"), scalar(&g, "1", 1)),
			     "a1");
			node(&g, G_MUL, "m", IN(T(&g, "xh"), T(&g, "a1")), "y");
		}
		output(&g, "y");
		infer_ok(&g);
		/* patterns only */
		struct graph_opts o = { .no_fuse = 1 };
		if (form == 2) {
			ck_assert_int_eq(graph_simplify(&g, &o, &D), 0);
			ck_assert_int_eq(g.n_nodes, 3);
			const struct g_node *gl = made_by(&g, "y");
			ck_assert_int_eq(gl->op, G_GELU);
			ck_assert_int_eq(gl->approx_tanh, 1);
			ck_assert_int_eq(gl->n_fused, 8);
			ck_assert_str_eq(gl->fused, "Mul+Pow+Mul+Add+Mul+Tanh+"
					 "Add+Mul");
		}
		simplify_ok(&g, 0);
		ck_assert_int_eq(g.n_nodes, 1);
		const struct g_node *n = &g.nodes[0];
		ck_assert_int_eq(n->op, G_MATMUL);
		ck_assert_int_eq(n->n_in, 3);
		ck_assert_int_eq(n->in[2], T(&g, "b"));
		ck_assert_int_eq(n->act, G_ACT_GELU);
		ck_assert_int_eq(n->approx_tanh, form == 2);
		ck_assert_str_eq(n->fused, "Add+Gelu");
		ck_assert_int_eq(n->n_fused, form == 2 ? 9 : 6);
		ck_assert_int_eq(n->out[0], T(&g, "y"));
		infer_ok(&g);
		check_shape(&g, "y", DIMS(1, 4, 16));
		graph_free(&g);
	}
	/* the half-way product read elsewhere: no GELU */
	struct graph g;
	gstart(&g);
	int x = input(&g, "x", DIMS(4));
	node(&g, G_DIV, "d", IN(x, scalar(&g, "r2", 1.4142135f)), "q");
	node(&g, G_ERF, "erf", IN(T(&g, "q")), "e");
	node(&g, G_ADD, "one", IN(T(&g, "e"), scalar(&g, "1", 1)), "a1");
	node(&g, G_MUL, "m1", IN(x, T(&g, "a1")), "t");
	node(&g, G_MUL, "m2", IN(T(&g, "t"), scalar(&g, "c05", 0.5f)), "y");
	output(&g, "y");
	output(&g, "t");
	infer_ok(&g);
	simplify_ok(&g, 0);
	ck_assert_int_eq(g.n_nodes, 5);
	graph_free(&g);
}
END_TEST

/* HardSwish and HardSigmoid as exporters decompose them: x * Clip(x + 3,
 * 0, 6) / 6 grouped both ways, with / 6 as Div or Mul by 1/6; then fused
 * into the Conv before them. */
START_TEST(graph_simplify_hardswish)
{
	static const struct {
		int form;             /* 0 (x*c)/6, 1 x*(c/6), 2 c/6 alone */
		int mul6;             /* "/ 6" as Mul by 1/6 */
		enum g_op op;
		const char *fused;
	} cases[] = {
		{ 0, 0, G_HARDSWISH, "Add+Clip+Mul+Div" },
		{ 0, 1, G_HARDSWISH, "Add+Clip+Mul+Mul" },
		{ 1, 0, G_HARDSWISH, "Add+Clip+Div+Mul" },
		{ 1, 1, G_HARDSWISH, "Add+Clip+Mul+Mul" },
		{ 2, 0, G_HARDSIGMOID, "Add+Clip+Div" },
		{ 2, 1, G_HARDSIGMOID, "Add+Clip+Mul" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct graph g;
		gstart(&g);
		int a = input(&g, "a", DIMS(1, 3, 8, 8));
		int w = cf32(&g, "w", DIMS(4, 3, 1, 1), NULL);
		node(&g, G_CONV, "conv", IN(a, w), "x");
		int x = T(&g, "x");
		node(&g, G_ADD, "p3", IN(scalar(&g, "3", 3), x), "s");
		node(&g, G_CLIP, "clip", IN(T(&g, "s"), scalar(&g, "lo", 0),
			scalar(&g, "hi", 6)), "c");
		int c = T(&g, "c"), six = cases[i].mul6 ?
			scalar(&g, "k", 1.0f / 6) : scalar(&g, "6", 6);
		enum g_op by6 = cases[i].mul6 ? G_MUL : G_DIV;
		if (cases[i].form == 0) {
			node(&g, G_MUL, "m", IN(x, c), "t");
			node(&g, by6, "d", IN(T(&g, "t"), six), "y");
		} else {
			node(&g, by6, "d", IN(c, six),
			     cases[i].form == 1 ? "h" : "y");
			if (cases[i].form == 1)
				node(&g, G_MUL, "m", IN(T(&g, "h"), x), "y");
		}
		output(&g, "y");
		infer_ok(&g);
		struct graph_opts o = { .no_fuse = 1 };
		ck_assert_int_eq(graph_simplify(&g, &o, &D), 0);
		ck_assert_int_eq(g.n_nodes, 2);
		const struct g_node *h = made_by(&g, "y");
		ck_assert_int_eq(h->op, cases[i].op);
		ck_assert_int_eq(h->in[0], x);
		ck_assert_int_eq(h->n_in, 1);
		ck_assert_str_eq(h->fused, cases[i].fused);
		if (cases[i].op == G_HARDSIGMOID) {
			ck_assert_float_eq_tol(h->alpha, 1.0f / 6, 1e-7);
			ck_assert_float_eq_tol(h->beta, 0.5f, 1e-7);
		}
		simplify_ok(&g, 0);
		ck_assert_int_eq(g.n_nodes, 1);
		ck_assert_int_eq(g.nodes[0].act, cases[i].op == G_HARDSWISH ?
				 G_ACT_HARDSWISH : G_ACT_HARDSIGMOID);
		infer_ok(&g);
		check_shape(&g, "y", DIMS(1, 4, 8, 8));
		graph_free(&g);
	}
	/* not the pattern: Clip(x + 3, 0, 5), and x + 3 read elsewhere */
	for (int v = 0; v < 2; v++) {
		struct graph g;
		gstart(&g);
		int x = input(&g, "x", DIMS(4));
		node(&g, G_ADD, "p3", IN(x, scalar(&g, "3", 3)), "s");
		node(&g, G_CLIP, "clip", IN(T(&g, "s"), scalar(&g, "lo", 0),
			scalar(&g, "hi", v ? 6 : 5)), "c");
		node(&g, G_DIV, "d", IN(T(&g, "c"), scalar(&g, "6", 6)), "y");
		output(&g, "y");
		if (v)
			output(&g, "s");
		infer_ok(&g);
		simplify_ok(&g, 0);
		ck_assert_int_eq(g.n_nodes, 3);
		graph_free(&g);
	}
}
END_TEST

/* x + 0, 0 + x, x - 0, 1 * x, x / 1 vanish when the constant does not
 * broadcast x up; a nonzero element, a broadcast up, or 0 - x stay. */
START_TEST(graph_simplify_neutral)
{
	static const float zeros[4], ones[4] = { 1, 1, 1, 1 },
			   almost[4] = { 0, 0, 1e-30f, 0 };
	static const struct {
		enum g_op op;
		const float *c;
		int c_first;    /* the constant is input 0 */
		int c_big;      /* the constant broadcasts x up */
		int gone;
	} cases[] = {
		{ G_ADD, zeros, 0, 0, 1 }, { G_ADD, zeros, 1, 0, 1 },
		{ G_SUB, zeros, 0, 0, 1 }, { G_MUL, ones, 1, 0, 1 },
		{ G_DIV, ones, 0, 0, 1 },  { G_ADD, almost, 0, 0, 0 },
		{ G_ADD, zeros, 0, 1, 0 }, { G_SUB, zeros, 1, 0, 0 },
		{ G_DIV, ones, 1, 0, 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct graph g;
		gstart(&g);
		int x = input(&g, "x", DIMS(1, 2, 3, 4));
		node(&g, G_RELU, "r", IN(x), "h");
		int h = T(&g, "h"), c = cases[i].c_big ?
			cf32(&g, "c", DIMS(2, 2, 3, 4), NULL) :
			cf32(&g, "c", DIMS(1, 1, 1, 4), cases[i].c);
		if (cases[i].c_big)
			memset(g.tensors[c].data, 0, 2 * 2 * 3 * 4 * 4);
		if (cases[i].c_first)
			node(&g, cases[i].op, "op", IN(c, h), "y");
		else
			node(&g, cases[i].op, "op", IN(h, c), "y");
		node(&g, G_SIGMOID, "s", IN(T(&g, "y")), "z");
		output(&g, "z");
		infer_ok(&g);
		simplify_ok(&g, 1);
		ck_assert_int_eq(g.n_nodes, cases[i].gone ? 2 : 3);
		if (cases[i].gone)
			ck_assert_int_eq(made_by(&g, "z")->in[0], h);
		graph_free(&g);
	}
	/* the neutral op makes a graph output: its producer makes it */
	struct graph g;
	gstart(&g);
	int x = input(&g, "x", DIMS(4));
	node(&g, G_RELU, "r", IN(x), "h");
	node(&g, G_ADD, "op", IN(T(&g, "h"), cf32(&g, "c", DIMS(4), zeros)),
	     "y");
	output(&g, "y");
	infer_ok(&g);
	simplify_ok(&g, 1);
	ck_assert_int_eq(g.n_nodes, 1);
	ck_assert_int_eq(made_by(&g, "y")->op, G_RELU);
	graph_free(&g);
}
END_TEST

/* Attention as torch exports it (Q K^T / c, Softmax, times V; or * c, or
 * unscaled) becomes one node; a constant K^T, scores read elsewhere or a
 * Softmax over another axis do not. */
START_TEST(graph_simplify_attention)
{
	for (int form = 0; form < 6; form++) {
		struct graph g;
		gstart(&g);
		int x = input(&g, "x", DIMS(2, 4, 8, 16));
		node(&g, G_RELU, "q", IN(x), "Q");
		node(&g, G_SIGMOID, "v", IN(x), "V");
		if (form != 3)
			node(&g, G_TANH, "k", IN(input(&g, "k", DIMS(2, 4, 16,
				8))), "KT");
		int kt = form == 3 ? cf32(&g, "KT", DIMS(2, 4, 16, 8), NULL) :
			 T(&g, "KT");
		node(&g, G_MATMUL, "qk", IN(T(&g, "Q"), kt), "S");
		int s = T(&g, "S");
		if (form == 0 || form >= 3)
			node(&g, G_DIV, "sc", IN(s, scalar(&g, "c", 4)), "Ss");
		else if (form == 1)
			node(&g, G_MUL, "sc", IN(scalar(&g, "c", 0.25f), s), "Ss");
		int ss = form == 2 ? s : T(&g, "Ss");
		int k = node(&g, G_SOFTMAX, "sm", IN(ss), "P");
		g.nodes[k].axis = form == 5 ? 2 : -1;
		node(&g, G_MATMUL, "pv", IN(T(&g, "P"), T(&g, "V")), "O");
		output(&g, "O");
		if (form == 4)
			output(&g, "S");
		infer_ok(&g);
		simplify_ok(&g, 0);
		const struct g_node *o = made_by(&g, "O");
		if (form >= 3) {
			ck_assert_int_eq(o->op, G_MATMUL);
			graph_free(&g);
			continue;
		}
		ck_assert_msg(o->op == G_ATTENTION, "form %d: op %d", form, o->op);
		ck_assert_int_eq(o->in[0], T(&g, "Q"));
		ck_assert_int_eq(o->in[1], T(&g, "KT"));
		ck_assert_int_eq(o->in[2], T(&g, "V"));
		ck_assert_float_eq_tol(o->alpha, form == 2 ? 1 : 0.25, 1e-7);
		ck_assert_str_eq(o->fused, form == 2 ? "MatMul+Softmax+MatMul" :
				 form == 0 ? "MatMul+Div+Softmax+MatMul" :
				 "MatMul+Mul+Softmax+MatMul");
		infer_ok(&g);
		check_shape(&g, "O", DIMS(2, 4, 8, 16));
		graph_free(&g);
	}
}
END_TEST

/* The head split around attention as BERT exports it: Q and V by
 * Transpose(0, 2, 1, 3) of [B, N, heads, D], O joined back by another;
 * the three transposes go (sequence-major operands), K's stays. */
static int perm0213(struct graph *g, const char *name, int x, const char *y)
{
	int k = node(g, G_TRANSPOSE, name, IN(x), y);
	g->nodes[k].n_perm = 4;
	memcpy(g->nodes[k].perm, (int[]){ 0, 2, 1, 3 }, 4 * sizeof(int));
	return T(g, y);
}

START_TEST(graph_simplify_attention_heads)
{
	struct graph g;
	gstart(&g);
	int x = input(&g, "x", DIMS(2, 8, 4, 16));
	node(&g, G_RELU, "q", IN(x), "Qs");
	node(&g, G_SIGMOID, "v", IN(x), "Vs");
	node(&g, G_TANH, "k", IN(input(&g, "k", DIMS(2, 4, 16, 8))), "KT");
	int q = perm0213(&g, "tq", T(&g, "Qs"), "Q");
	int v = perm0213(&g, "tv", T(&g, "Vs"), "V");
	node(&g, G_MATMUL, "qk", IN(q, T(&g, "KT")), "S");
	node(&g, G_DIV, "sc", IN(T(&g, "S"), scalar(&g, "c", 4)), "Ss");
	int k = node(&g, G_SOFTMAX, "sm", IN(T(&g, "Ss")), "P");
	g.nodes[k].axis = -1;
	node(&g, G_MATMUL, "pv", IN(T(&g, "P"), v), "O");
	perm0213(&g, "to", T(&g, "O"), "Y");
	output(&g, "Y");
	infer_ok(&g);
	simplify_ok(&g, 0);
	ck_assert_int_eq(g.n_nodes, 4);
	const struct g_node *a = made_by(&g, "Y");
	ck_assert_int_eq(a->op, G_ATTENTION);
	ck_assert_int_eq(a->seq, G_SEQ_Q | G_SEQ_V | G_SEQ_O);
	ck_assert_int_eq(a->in[0], T(&g, "Qs"));
	ck_assert_int_eq(a->in[1], T(&g, "KT"));
	ck_assert_int_eq(a->in[2], T(&g, "Vs"));
	infer_ok(&g);
	check_shape(&g, "Y", DIMS(2, 8, 4, 16));
	graph_free(&g);
}
END_TEST

/* Identity and Dropout vanish; a graph output keeps its name; constant
 * nodes are folded away. */
START_TEST(graph_simplify_identity_and_constants)
{
	struct graph g;
	gstart(&g);
	int x = input(&g, "x", DIMS(1, 2, 4, 4));
	int w = cf32(&g, "w", DIMS(2, 2, 1, 1), NULL);
	node(&g, G_IDENTITY, "id0", IN(x), "x1");
	int k = node(&g, G_DROPOUT, "drop", IN(T(&g, "x1")), "x2");
	g.nodes[k].out[1] = graph_tensor(&g, "mask");
	g.nodes[k].n_out = 2;
	/* w * 2 + 1, all constant */
	node(&g, G_MUL, "c1", IN(w, scalar(&g, "two", 2)), "w2");
	node(&g, G_ADD, "c2", IN(T(&g, "w2"), scalar(&g, "one", 1)), "w3");
	node(&g, G_CONV, "conv", IN(T(&g, "x2"), T(&g, "w3")), "c");
	node(&g, G_IDENTITY, "id1", IN(T(&g, "c")), "y");
	output(&g, "y");
	infer_ok(&g);
	ck_assert(g.tensors[T(&g, "w3")].flags & G_T_CONST);
	simplify_ok(&g, 0);
	ck_assert_int_eq(g.n_nodes, 1);
	const struct g_node *n = &g.nodes[0];
	ck_assert_int_eq(n->op, G_CONV);
	ck_assert_int_eq(n->in[0], x);
	ck_assert_int_eq(n->out[0], T(&g, "y"));
	ck_assert_int_eq(n->in[1], T(&g, "w3"));
	ck_assert_float_eq(fval(&g, n->in[1], 0), 1.5f);    /* 0.25*2+1 */
	ck_assert_float_eq(fval(&g, n->in[1], 3), 3.0f);    /* 1*2+1 */
	ck_assert_int_eq(g.tensors[T(&g, "w3")].producer, -1);
	graph_free(&g);

	/* a Dropout in training mode is no identity */
	gstart(&g);
	x = input(&g, "x", DIMS(3));
	int tm = tensor(&g, "train", G_DT_BOOL, NULL, 0, G_T_CONST);
	g.tensors[tm].data = calloc(1, 1);
	((unsigned char *)g.tensors[tm].data)[0] = 1;
	node(&g, G_DROPOUT, "drop", IN(x, -1, tm), "d");
	node(&g, G_RELU, "relu", IN(T(&g, "d")), "y");
	output(&g, "y");
	infer_ok(&g);
	simplify_ok(&g, 0);
	ck_assert_int_eq(g.n_nodes, 2);
	graph_free(&g);

	/* an Identity from a graph input straight to an output stays */
	gstart(&g);
	x = input(&g, "x", DIMS(3));
	node(&g, G_IDENTITY, "copy", IN(x), "y");
	output(&g, "y");
	infer_ok(&g);
	simplify_ok(&g, 0);
	ck_assert_int_eq(g.n_nodes, 1);
	graph_free(&g);

	/* folded values of the movement ops */
	gstart(&g);
	float v[6] = { 0, 1, 2, 3, 4, 5 };
	int c = cf32(&g, "c", DIMS(2, 3), v);
	x = input(&g, "x", DIMS(3, 2));
	int x2 = input(&g, "x2", DIMS(2, 3));
	node(&g, G_TRANSPOSE, "tr", IN(c), "ct");
	node(&g, G_ADD, "use", IN(x, T(&g, "ct")), "y");
	node(&g, G_GATHER, "ga", IN(c, ci64(&g, "ix", DIMS(1, -2))), "gc");
	node(&g, G_ADD, "use2", IN(x2, T(&g, "gc")), "z");
	output(&g, "y");
	output(&g, "z");
	infer_ok(&g);
	simplify_ok(&g, 0);
	ck_assert_int_eq(g.n_nodes, 2);
	int ct = T(&g, "ct"), gc = T(&g, "gc");
	ck_assert_float_eq(fval(&g, ct, 1), 3);     /* ct[0][1] = c[1][0] */
	ck_assert_float_eq(fval(&g, ct, 4), 2);     /* ct[2][0] = c[0][2] */
	ck_assert_float_eq(fval(&g, gc, 0), 3);     /* row 1 */
	ck_assert_float_eq(fval(&g, gc, 5), 2);     /* row -2 = 0 */
	graph_free(&g);
}
END_TEST

/* ---- SCALE-Sim topologies ----------------------------------------------- */

static int64_t layer_macs(const struct graph *g, const struct g_node *n)
{
	const struct g_tensor *y = &g->tensors[n->out[0]];
	const struct g_tensor *w = &g->tensors[n->in[1]];
	if (n->op == G_CONV)
		return graph_elems(y) * w->dim[1] * w->dim[2] * w->dim[3];
	return graph_elems(y) * w->dim[0];
}

static void topo_ok(struct graph *g, const char *path, int layers,
		    int64_t macs)
{
	gstart(g);
	ck_assert_msg(topo_import(g, path, &D) == 0, "%s", D.last);
	ck_assert_int_eq(g->n_nodes, layers);
	ck_assert_int_eq(g->n_inputs, layers);
	ck_assert_int_eq(g->n_outputs, layers);
	infer_ok(g);
	int64_t sum = 0;
	for (int k = 0; k < g->n_nodes; k++)
		sum += layer_macs(g, &g->nodes[k]);
	ck_assert_msg(sum == macs, "%s: %lld MACs, SCALE-Sim counts %lld",
		      path, (long long)sum, (long long)macs);
}

/* Layer counts, shapes, and MACs equal to what SCALE-Sim v2's
 * topology_utils.get_all_mac_ops() reports for the same files. */
START_TEST(graph_topo_bundled)
{
	struct graph g;
	topo_ok(&g, "workloads/topologies/resnet50.csv", 54, 4089184256LL);
	check_shape(&g, "conv1.ifmap", DIMS(1, 3, 229, 229));
	check_shape(&g, "conv1.filter", DIMS(64, 3, 7, 7));
	check_shape(&g, "conv1.ofmap", DIMS(1, 64, 112, 112));
	check_shape(&g, "res3a_branch2a.ofmap", DIMS(1, 128, 56, 56));
	check_shape(&g, "res3a_branch2b.ofmap", DIMS(1, 128, 28, 28));
	check_shape(&g, "res3a_branch1.ofmap", DIMS(1, 512, 28, 28));
	check_shape(&g, "res5c_branch2c.ofmap", DIMS(1, 2048, 7, 7));
	check_shape(&g, "fc1000.ofmap", DIMS(1, 1000, 1, 1));
	ck_assert(g.tensors[T(&g, "conv1.filter")].flags & G_T_SYNTH);
	ck_assert_ptr_null(g.tensors[T(&g, "conv1.filter")].data);
	ck_assert_int_eq(g.nodes[0].op, G_CONV);
	ck_assert_int_eq(g.nodes[0].stride[0], 2);
	graph_free(&g);

	topo_ok(&g, "workloads/topologies/mobilenetv2.csv", 53, 300774272LL);
	const struct g_node *dw = made_by(&g, "block2_DP.ofmap");
	ck_assert_int_eq(dw->group, 96);
	check_shape(&g, "block2_DP.filter", DIMS(96, 1, 3, 3));
	check_shape(&g, "block2_DP.ofmap", DIMS(1, 96, 56, 56));
	check_shape(&g, "fc.ofmap", DIMS(1, 1000, 1, 1));
	graph_free(&g);

	topo_ok(&g, "workloads/topologies/bert_base_layer.csv", 30,
		931135488LL);
	ck_assert_int_eq(g.nodes[0].op, G_MATMUL);
	check_shape(&g, "q_proj.ifmap", DIMS(128, 768));
	check_shape(&g, "q_proj.filter", DIMS(768, 768));
	check_shape(&g, "scores_h11.ofmap", DIMS(128, 128));
	check_shape(&g, "context_h0.ofmap", DIMS(128, 64));
	check_shape(&g, "ffn_down.filter", DIMS(3072, 768));
	graph_free(&g);

	topo_ok(&g, "workloads/topologies/gpt2_decode.csv", 28, 7274496LL);
	check_shape(&g, "h0_qkv.ofmap", DIMS(1, 2304));
	graph_free(&g);

	topo_ok(&g, "workloads/topologies/gpt2_decode_full.csv", 337,
		125891328LL);
	check_shape(&g, "lm_head.ofmap", DIMS(1, 50257));
	check_shape(&g, "h11_scores_h3.ofmap", DIMS(1, 128));
	graph_free(&g);

	topo_ok(&g, "workloads/topologies/llama_mlp.csv", 3, 2164260864LL);
	check_shape(&g, "down_proj.ofmap", DIMS(16, 4096));
	graph_free(&g);
}
END_TEST

static int parse_n(struct graph *g, const char *text, size_t len)
{
	gstart(g);
	return topo_parse(g, "t.csv", text, len, &D);
}

static int parse(struct graph *g, const char *text)
{
	return parse_n(g, text, strlen(text));
}

/* Files as SCALE-Sim's own repository has them: extra columns after the
 * strides (Resnet50.csv), a ",,,," line, a "#dw" comment column
 * (mobilnet_paper.csv), CRLF line ends and no final newline (gpt2.csv),
 * a stride width column. */
START_TEST(graph_topo_scalesim_quirks)
{
	struct graph g;
	ck_assert_int_eq(parse(&g,
		"Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter "
		"Width, Channels, Num Filter, Strides,,,Eh,Ew,e2\n"
		",,,,,,,,,,,,\n"
		"Conv1,224,224,7,7,3,64,2,,,110,110,12100\n"
		"\n"
		"Conv2_dw, 112, 112, 3, 3, 1, 1, 1,#dw\n"
		"  Wide , 9, 10, 3, 3, 2, 4, 1, 2,\n"), 0);
	ck_assert_int_eq(g.n_nodes, 3);
	infer_ok(&g);
	/* SCALE-Sim v2: ceil((224 - 7 + 2) / 2) = 110 */
	check_shape(&g, "Conv1.ofmap", DIMS(1, 64, 110, 110));
	ck_assert_int_eq(g.nodes[0].pad[2], 1);
	ck_assert_int_eq(g.nodes[0].pad[0], 0);
	check_shape(&g, "Conv2_dw.ofmap", DIMS(1, 1, 110, 110));
	check_shape(&g, "Wide.ofmap", DIMS(1, 4, 7, 5));  /* ceil(9/2) */
	ck_assert_int_eq(g.nodes[2].stride[1], 2);
	graph_free(&g);

	ck_assert_int_eq(parse(&g, "Layer,M,N,K,\r\nQKT,1024,1024,64,\r\n"
			       "PW-FF-L2,1024,1600,3072,"), 0);
	ck_assert_int_eq(g.n_nodes, 2);
	infer_ok(&g);
	check_shape(&g, "PW-FF-L2.ofmap", DIMS(1024, 1600));
	graph_free(&g);

	/* a repeated name: the second gets its line number */
	ck_assert_int_eq(parse(&g, "Layer, M, N, K,\nfc, 2, 3, 4,\n"
			       "fc, 5, 6, 7,\n"), 0);
	ck_assert_int_eq(g.n_nodes, 2);
	ck_assert_str_eq(g.nodes[1].name, "fc_line3");
	graph_free(&g);

	/* a depthwise row with a depth multiplier of 2 */
	ck_assert_int_eq(parse(&g, "Layer name,H,W,R,S,C,M,S,\n"
			       "b1_DP,10,10,3,3,8,2,1,\n"), 0);
	infer_ok(&g);
	check_shape(&g, "b1_DP.filter", DIMS(16, 1, 3, 3));
	check_shape(&g, "b1_DP.ofmap", DIMS(1, 16, 8, 8));
	graph_free(&g);
}
END_TEST

static void parse_fails(const char *text, const char *want)
{
	struct graph g;
	ck_assert_int_eq(parse(&g, text), NPU_EMODEL);
	ck_assert_msg(strstr(D.last, want), "'%s' lacks '%s'", D.last, want);
	graph_free(&g);
}

START_TEST(graph_topo_errors)
{
	static const char hdr[] = "Layer name, IFMAP Height, IFMAP Width, "
		"Filter Height, Filter Width, Channels, Num Filter, Strides,\n";
	char buf[512];
	snprintf(buf, sizeof buf, "%sc1,8,8,3,3,1,1,1,\nc2, 22a,8,3,3,1,1,1,\n",
		 hdr);
	parse_fails(buf, "t.csv:3:5: error: column 2 (IFMAP Height): '22a' is "
		    "not an integer");
	snprintf(buf, sizeof buf, "%sc1,8,8,3,3,1,1\n", hdr);
	parse_fails(buf, "t.csv:2:15: error: missing column 8 (Strides)");
	snprintf(buf, sizeof buf, "%sc1,8,8,3,3,0,1,1,\n", hdr);
	parse_fails(buf, "t.csv:2:12: error: column 6 (Channels) is 0: it "
		    "must be at least 1");
	snprintf(buf, sizeof buf, "%sc1,8,8,3,3,1,-4,1,\n", hdr);
	parse_fails(buf, "t.csv:2:14: error: column 7 (Num Filter) is -4");
	snprintf(buf, sizeof buf, "%sc1,8,2,3,3,1,1,1,\n", hdr);
	parse_fails(buf, "t.csv:2:10: error: the filter width 3 is larger than "
		    "the IFMAP width 2");
	snprintf(buf, sizeof buf, "%sc1,8,8,3,3,1,,1,\n", hdr);
	parse_fails(buf, "t.csv:2:14: error: column 7 (Num Filter) is empty");
	snprintf(buf, sizeof buf, "%sc1,8,8,3,3,1,1,1,2x\n", hdr);
	parse_fails(buf, "column 9 (Stride Width): '2x' is not an integer");
	parse_fails("Layer, M, N, K,\nfc, 2, 3,\n",
		    "t.csv:2:10: error: column 4 (K) is empty");
	parse_fails("Layer, M, N, K,\nfc, 2, 3, 99999999999,\n",
		    "column 4 (K) is 99999999999: more than 1000000000");
	parse_fails("fc1,1,1,1,1,2048,1000,1,\n", "t.csv:1:5: error: line 1 "
		    "holds a layer, not a header");
	parse_fails("", "t.csv:1:1: error: empty file");
	parse_fails("Layer, M, N, K,\n\n", "no layers");
	struct graph g;
	static const char nul[] = "Layer, M, N, K,\nfc, 2\0, 3, 4,\n";
	ck_assert_int_eq(parse_n(&g, nul, sizeof nul - 1), NPU_EMODEL);
	ck_assert_msg(strstr(D.last, "t.csv:2: error: a NUL byte"), "%s",
		      D.last);
	graph_free(&g);

	/* through a real file: file:line, and a missing file */
	char path[4096];
	test_tmp_template(path, sizeof path, "npusim_topo");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "w");
	fprintf(f, "Layer, M, N, K,\nok, 1, 2, 3,\nbad, 1, 0, 3,\n");
	fclose(f);
	gstart(&g);
	ck_assert_int_eq(topo_import(&g, path, &D), NPU_EMODEL);
	char want[4200];
	snprintf(want, sizeof want, "%s:3:9: error: column 3 (N) is 0", path);
	ck_assert_msg(strstr(D.last, want), "'%s' lacks '%s'", D.last, want);
	graph_free(&g);
	unlink(path);
	gstart(&g);
	ck_assert_int_eq(topo_import(&g, path, &D), NPU_EIO);
	ck_assert_msg(strstr(D.last, "cannot open"), "%s", D.last);
	graph_free(&g);
}
END_TEST

/* The fuzz target (fuzz/fuzz_topo.c) on every bundled topology and on
 * 2,000 mutations of each: bytes replaced, dropped or inserted (a fixed
 * seed); it traps on a broken invariant. */
START_TEST(graph_topo_fuzz_regress)
{
	static const char *const files[] = {
		"workloads/topologies/resnet50.csv",
		"workloads/topologies/mobilenetv2.csv",
		"workloads/topologies/bert_base_layer.csv",
		"workloads/topologies/gpt2_decode.csv",
		"workloads/topologies/llama_mlp.csv",
	};
	static const char alphabet[] = "0123456789,-\n \"x;\r\t";
	unsigned s = 12345;
	for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
		size_t n;
		char *text = str_read_file(files[f], &n);
		ck_assert_ptr_nonnull(text);
		ck_assert_int_eq(LLVMFuzzerTestOneInput((const uint8_t *)text, n), 0);
		uint8_t *buf = malloc(n + 64);
		for (int i = 0; i < 2000; i++) {
			size_t m = n < 2048 ? n : 2048;
			memcpy(buf, text, m);
			for (int e = 0; e < 1 + i % 4; e++) {
				s = s * 1103515245u + 12345u;
				size_t at = (s >> 8) % (m ? m : 1);
				int how = (int)(s >> 4) % 3;
				uint8_t c = (uint8_t)alphabet[(s >> 16) % (sizeof alphabet - 1)];
				if (how == 0 && m)
					buf[at] = c;
				else if (how == 1 && m) {
					memmove(buf + at, buf + at + 1, m - at - 1);
					m--;
				} else if (m < n + 63) {
					memmove(buf + at + 1, buf + at, m - at);
					buf[at] = c;
					m++;
				}
			}
			ck_assert_int_eq(LLVMFuzzerTestOneInput(buf, m), 0);
		}
		free(buf);
		free(text);
	}
}
END_TEST

/*
 * docs/models.md's hand-written op tables (their rows carry prose that
 * ops.def does not hold) name every op of the table that documents them:
 * each ONNX operator has a shape rule ("Shape inference"), and each op a
 * kernel takes (its map column is not NONE) a row in "Which kernel takes
 * which op".  A name counts when a table row of the section holds it as
 * a word.
 */
static int row_names(const char *sec, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = strstr(sec, name); p; p = strstr(p + 1, name)) {
		const char *l = p;

		while (l > sec && l[-1] != '\n')
			l--;
		if (*l == '|' && (p == sec || !isalnum((unsigned char)p[-1])) &&
		    !isalnum((unsigned char)p[n]))
			return 1;
	}
	return 0;
}

/* The text of docs/models.md from the heading start up to the next
 * heading of level 'end' or higher (malloc'd). */
static char *doc_section(const char *doc, const char *start, const char *end)
{
	const char *a = strstr(doc, start), *b;
	char *s;

	ck_assert_msg(a != NULL, "docs/models.md has no '%s'", start);
	b = strstr(a + strlen(start), end);
	if (!b)
		b = a + strlen(a);
	s = malloc((size_t)(b - a) + 1);
	memcpy(s, a, (size_t)(b - a));
	s[b - a] = 0;
	return s;
}

START_TEST(graph_doc_tables)
{
	static const struct { const char *name, *map; } ops[] = {
#define GOP(id, name, mi, ma, no, inf, fold, map, doc) { name, #map },
#include "../../compiler/ops.def"
#undef GOP
	};
	char *doc = test_read_file("docs/models.md", NULL);
	char *rules;

	ck_assert_ptr_nonnull(doc);
	rules = doc_section(doc, "\n## Shape inference", "\n## ");
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		int rows = 0;
		/* every mapped op has a lowering row (docs/lowering.md is
		 * generated from them) */
		for (int r = 0; r < LW_N; r++)
			rows += !strcmp(lower_info[r].map, ops[i].map);
		if (strcmp(ops[i].map, "NONE"))
			ck_assert_msg(rows, "compiler/lower.def: no row for "
				      "map_%s (%s)", ops[i].map, ops[i].name);
		/* lower-case names are the compiler's own ops */
		if (!isupper((unsigned char)ops[i].name[0]))
			continue;
		ck_assert_msg(row_names(rules, ops[i].name),
			      "docs/models.md: no shape rule names %s", ops[i].name);
	}
	free(rules);
	free(doc);
}
END_TEST

static Suite *suite_graph(void)
{
	Suite *s = suite_create("graph");

	TEST_ADD(s, graph_doc_tables);
	TEST_ADD(s, graph_infer_conv_pads);
	TEST_ADD(s, graph_infer_conv_groups);
	TEST_ADD(s, graph_infer_conv_channel_error);
	TEST_ADD(s, graph_infer_pool_ceil);
	TEST_ADD(s, graph_infer_matmul);
	TEST_ADD(s, graph_infer_broadcast);
	TEST_ADD(s, graph_infer_reshape);
	TEST_ADD(s, graph_infer_slice);
	TEST_ADD(s, graph_infer_split);
	TEST_ADD(s, graph_infer_shape_ops);
	TEST_ADD(s, graph_infer_fold_compute);
	TEST_ADD(s, graph_simplify_conv_chain);
	TEST_ADD(s, graph_simplify_legalise);
	TEST_ADD(s, graph_simplify_no_fuse_when_shared);
	TEST_ADD(s, graph_simplify_res_order);
	TEST_ADD(s, graph_simplify_acts);
	TEST_ADD(s, graph_simplify_batchnorm);
	TEST_ADD(s, graph_simplify_layernorm);
	TEST_ADD(s, graph_simplify_gelu);
	TEST_ADD(s, graph_simplify_hardswish);
	TEST_ADD(s, graph_simplify_neutral);
	TEST_ADD(s, graph_simplify_attention);
	TEST_ADD(s, graph_simplify_attention_heads);
	TEST_ADD(s, graph_simplify_identity_and_constants);
	TEST_ADD(s, graph_topo_bundled);
	TEST_ADD(s, graph_topo_scalesim_quirks);
	TEST_ADD(s, graph_topo_errors);
	TEST_ADD(s, graph_topo_fuzz_regress);
	return s;
}

TEST_MAIN(suite_graph)
