/*
 * test_model.c - the mapping compiler and the model runner on graphs built
 * by hand: DRAM planning (liveness reuse, views, a pipeline's arenas per
 * image), the values of a small
 * CNN against a double reference computed here, per-layer statistics.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../compiler/graph.h"
#include "../../compiler/map.h"
#include "../../compiler/model.h"
#include "testutil.h"

/* A tensor of the given shape (and constant data when v != NULL). */
static int mk(struct graph *g, const char *name, int rank, const int64_t *dim,
	      const float *v)
{
	int t = graph_tensor(g, name);
	struct g_tensor *x = &g->tensors[t];
	x->rank = rank;
	x->dtype = G_DT_F32;
	memcpy(x->dim, dim, (size_t)rank * sizeof *dim);
	if (v) {
		size_t n = (size_t)graph_elems(x);
		x->data = malloc(n * 4);
		memcpy(x->data, v, n * 4);
		x->flags |= G_T_CONST;
	}
	return t;
}

static int node(struct graph *g, enum g_op op, const char *name, int n_in,
		const int *in, int out)
{
	int k = graph_add_node(g, op, name);
	struct g_node *n = &g->nodes[k];
	n->n_in = n_in;
	memcpy(n->in, in, (size_t)n_in * sizeof *in);
	n->n_out = 1;
	n->out[0] = out;
	g->tensors[out].producer = k;
	return k;
}

static float urand(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return (float)((*s >> 8) & 0xffff) / 32768.0f - 1.0f;
}

/*
 * x [1,C,H,W] -> conv 3x3 pad 1 (+bias, relu) [1,F,H,W] -> maxpool 2x2
 * [1,F,H/2,W/2] -> GAP [1,F,1,1] -> flatten [1,F] -> gemm F->O (+bias).
 */
enum { C = 8, H = 8, W = 8, F = 16, O = 10 };
static float wc[F * C * 9], bc[F], wg[O * F], bg[O], xin[C * H * W];

static void build_cnn(struct graph *g)
{
	unsigned s = 7;
	for (size_t i = 0; i < sizeof wc / 4; i++) wc[i] = 0.3f * urand(&s);
	for (size_t i = 0; i < F; i++) bc[i] = 0.1f * urand(&s);
	for (size_t i = 0; i < sizeof wg / 4; i++) wg[i] = 0.3f * urand(&s);
	for (size_t i = 0; i < O; i++) bg[i] = 0.1f * urand(&s);
	for (size_t i = 0; i < sizeof xin / 4; i++) xin[i] = urand(&s);
	graph_init(g, "cnn");
	int x = mk(g, "x", 4, (int64_t[]){ 1, C, H, W }, NULL);
	int w1 = mk(g, "w1", 4, (int64_t[]){ F, C, 3, 3 }, wc);
	int b1 = mk(g, "b1", 1, (int64_t[]){ F }, bc);
	int y1 = mk(g, "y1", 4, (int64_t[]){ 1, F, H, W }, NULL);
	int y2 = mk(g, "y2", 4, (int64_t[]){ 1, F, H / 2, W / 2 }, NULL);
	int y3 = mk(g, "y3", 4, (int64_t[]){ 1, F, 1, 1 }, NULL);
	int y4 = mk(g, "y4", 2, (int64_t[]){ 1, F }, NULL);
	int w2 = mk(g, "w2", 2, (int64_t[]){ O, F }, wg);
	int b2 = mk(g, "b2", 1, (int64_t[]){ O }, bg);
	int y = mk(g, "y", 2, (int64_t[]){ 1, O }, NULL);
	ck_assert_int_eq(graph_add_input(g, x), 0);
	int k = node(g, G_CONV, "conv", 3, (int[]){ x, w1, b1 }, y1);
	g->nodes[k].kernel[0] = g->nodes[k].kernel[1] = 3;
	for (int i = 0; i < 4; i++)
		g->nodes[k].pad[i] = 1;
	g->nodes[k].act = G_ACT_RELU;
	k = node(g, G_MAXPOOL, "pool", 1, (int[]){ y1 }, y2);
	g->nodes[k].kernel[0] = g->nodes[k].kernel[1] = 2;
	g->nodes[k].stride[0] = g->nodes[k].stride[1] = 2;
	node(g, G_GAP, "gap", 1, (int[]){ y2 }, y3);
	node(g, G_FLATTEN, "flat", 1, (int[]){ y3 }, y4);
	k = node(g, G_GEMM, "fc", 3, (int[]){ y4, w2, b2 }, y);
	g->nodes[k].trans_b = 1;
	ck_assert_int_eq(graph_add_output(g, y), 0);
	graph_uses(g);
}

static void cnn_reference(double *out)
{
	static double y1[F][H][W];
	double v[F];
	for (int f = 0; f < F; f++)
		for (int i = 0; i < H; i++)
			for (int j = 0; j < W; j++) {
				double a = bc[f];
				for (int c = 0; c < C; c++)
					for (int p = 0; p < 3; p++)
						for (int q = 0; q < 3; q++) {
							int yy = i + p - 1, xx = j + q - 1;
							if (yy < 0 || yy >= H || xx < 0 || xx >= W)
								continue;
							a += (double)wc[((f * C + c) * 3 + p) * 3 + q] *
							     xin[(c * H + yy) * W + xx];
						}
				y1[f][i][j] = a > 0 ? a : 0;
			}
	for (int f = 0; f < F; f++) {
		v[f] = 0;
		for (int i = 0; i < H / 2; i++)
			for (int j = 0; j < W / 2; j++) {
				double m = fmax(fmax(y1[f][2 * i][2 * j], y1[f][2 * i][2 * j + 1]),
						fmax(y1[f][2 * i + 1][2 * j], y1[f][2 * i + 1][2 * j + 1]));
				v[f] += m / (H / 2 * W / 2);
			}
	}
	for (int o = 0; o < O; o++) {
		out[o] = bg[o];
		for (int f = 0; f < F; f++)
			out[o] += (double)wg[o * F + f] * v[f];
	}
}

static void run_cnn(const char *cfg, enum npu_dtype dt, double tol)
{
	struct graph g;
	struct arch a;
	struct diag d;
	struct map_plan p;
	struct model_result res;
	double ref[O];
	diag_init(&d, NULL);
	build_cnn(&g);
	ck_assert_msg(arch_load(&a, cfg, NULL, 0, &d) == 0, "%s", d.last);
	struct map_opts mo = { .dtype = dt, .split = MAP_SPLIT_AUTO };
	ck_assert_msg(map_plan_build(&g, &a, &mo, &p, &d) == 0, "%s", d.last);
	ck_assert_int_eq(p.n_layers, 4); /* the flatten is a view */
	struct run_params rp;
	memset(&rp, 0, sizeof rp);
	rp.max_cycles = CYCLE_MAX;
	struct run *r = run_new(&a, &rp, &d);
	ck_assert_ptr_nonnull(r);
	float *inputs[1] = { xin };
	struct model_opts o = { "asm/kernels", 0, 1, inputs, NULL };
	ck_assert_msg(model_run(r, &a, &g, &p, &o, &res, &d) == 0, "%s", d.last);
	cnn_reference(ref);
	double mx = 0;
	for (int i = 0; i < O; i++)
		mx = fmax(mx, fabs(ref[i]));
	for (int i = 0; i < O; i++)
		ck_assert_msg(fabs(res.outputs[0][i] - ref[i]) <= tol * mx,
			      "%s: y[%d] = %g, reference %g", cfg, i,
			      res.outputs[0][i], ref[i]);
	/* every layer ran; the conv and the gemm did their MACs */
	uint64_t sum = 0;
	for (int l = 0; l < p.n_layers; l++) {
		ck_assert_uint_gt(res.layers[l].cycles, 0);
		sum += res.layers[l].cycles;
	}
	ck_assert_uint_le(sum, res.cycles);
	ck_assert_uint_eq(res.layers[0].macs, (uint64_t)H * W * F * C * 9);
	ck_assert_uint_ge(res.layers[0].array_macs, res.layers[0].macs);
	ck_assert_uint_eq(res.layers[3].macs, (uint64_t)F * O);
	ck_assert_uint_ge(res.layers[3].array_macs, res.layers[3].macs);
	model_result_free(&res);
	run_free(r);
	map_plan_free(&p);
	arch_free(&a);
	graph_free(&g);
}

START_TEST(model_cnn_bf16_values)
{
	/* bf16 operands (8 bits of mantissa), fp32 sums: a few 2^-8 */
	run_cnn("configs/default.cfg", DT_BF16, 3e-2);
}
END_TEST

START_TEST(model_plan_reuses_dram)
{
	struct graph g;
	struct arch a;
	struct diag d;
	struct map_plan p;
	diag_init(&d, NULL);
	build_cnn(&g);
	ck_assert_int_eq(arch_load(&a, NULL, NULL, 0, &d), 0);
	struct map_opts mo = { .dtype = DT_INT8, .split = MAP_SPLIT_AUTO };
	ck_assert_int_eq(map_plan_build(&g, &a, &mo, &p, &d), 0);
	int x = graph_find(&g, "x"), y1 = graph_find(&g, "y1"),
	    y2 = graph_find(&g, "y2"), y3 = graph_find(&g, "y3"),
	    y4 = graph_find(&g, "y4"), y = graph_find(&g, "y");
	/* the flatten is the pooled vector's bytes */
	ck_assert_uint_eq(p.t[y4].addr, p.t[y3].addr);
	/* x dies at the conv, so the pool's output may take its place; y1
	 * and y2 are alive together and must not overlap */
	ck_assert(p.t[y1].addr + p.t[y1].bytes <= p.t[y2].addr ||
		  p.t[y2].addr + p.t[y2].bytes <= p.t[y1].addr);
	ck_assert_uint_lt(p.act_peak, p.act_naive);
	ck_assert_uint_ge(p.t[x].addr, p.weights_bytes);
	ck_assert_uint_ge(p.t[y].addr, p.act_base);
	ck_assert_int_eq(p.t[y1].layout, MAP_NHWC);
	ck_assert_int_eq(p.t[y].layout, MAP_ROWMAJOR);
	map_plan_free(&p);
	arch_free(&a);
	graph_free(&g);
}
END_TEST

/* The int8 exponents of a calibrated plan: the pool, the global pool and
 * the flatten keep one format (their group's largest range), the conv
 * and the Gemm rescale into their own; an output finer than its product
 * is raised to the product's exponent. */
START_TEST(model_plan_calibrated)
{
	struct graph g;
	struct arch a;
	struct diag d;
	struct map_plan p;
	diag_init(&d, NULL);
	build_cnn(&g);
	ck_assert_int_eq(arch_load(&a, NULL, NULL, 0, &d), 0);
	float *amax = calloc((size_t)g.n_tensors, sizeof *amax);
	int x = graph_find(&g, "x"), y1 = graph_find(&g, "y1"),
	    y2 = graph_find(&g, "y2"), y3 = graph_find(&g, "y3"),
	    y4 = graph_find(&g, "y4"), y = graph_find(&g, "y");
	amax[x] = 1.0f;         /* 2^-6 * 127 = 1.98 */
	amax[y1] = 3.0f;
	amax[y2] = 5.0f;        /* 2^-4 * 127 = 7.9 */
	amax[y3] = amax[y4] = 0.5f;
	amax[y] = 20.0f;        /* 2^-2 * 127 = 31.75 */
	struct map_opts mo = { .dtype = DT_INT8, .split = MAP_SPLIT_AUTO,
			       .amax = amax };
	ck_assert_msg(map_plan_build(&g, &a, &mo, &p, &d) == 0, "%s", d.last);
	ck_assert_int_eq(p.t[x].exp, -6);
	ck_assert_int_eq(p.t[y1].exp, -4);
	ck_assert_int_eq(p.t[y2].exp, -4);
	ck_assert_int_eq(p.t[y3].exp, -4);
	ck_assert_int_eq(p.t[y4].exp, -4);
	ck_assert_int_eq(p.t[y].exp, -2);
	/* |w| < 0.3: weights at 2^-8; conv: -4 - (-6 - 8), fc: -2 - (-4 - 8) */
	ck_assert_ptr_nonnull(strstr(p.layers[0].steps[0].src, ".equ SHIFT, 10\n"));
	ck_assert_ptr_nonnull(strstr(p.layers[3].steps[0].src, ".equ SHIFT, 10\n"));
	map_plan_free(&p);
	/* a tiny output range: the Gemm's output stays at its product's
	 * exponent (-4 - 8), never a negative shift */
	amax[y] = 1e-6f;
	ck_assert_msg(map_plan_build(&g, &a, &mo, &p, &d) == 0, "%s", d.last);
	ck_assert_int_eq(p.t[y].exp, -12);
	ck_assert_ptr_nonnull(strstr(p.layers[3].steps[0].src, ".equ SHIFT, 0\n"));
	map_plan_free(&p);
	free(amax);
	arch_free(&a);
	graph_free(&g);
}
END_TEST

START_TEST(model_plan_image_arenas)
{
	/* a pipeline's plans: image k's activations k arenas up, the
	 * weights shared; the footprint holds every arena */
	struct graph g;
	struct arch a;
	struct diag d;
	struct map_plan p[3];
	diag_init(&d, NULL);
	build_cnn(&g);
	ck_assert_int_eq(arch_load(&a, NULL, NULL, 0, &d), 0);
	for (int k = 0; k < 3; k++) {
		struct map_opts mo = { .dtype = DT_INT8, .split = MAP_SPLIT_AUTO,
				       .images = 3, .image = k };
		ck_assert_msg(map_plan_build(&g, &a, &mo, &p[k], &d) == 0, "%s",
			      d.last);
	}
	uint64_t span = p[0].act_span;
	ck_assert_uint_ge(span, p[0].act_peak);
	for (int k = 1; k < 3; k++) {
		ck_assert_uint_eq(p[k].act_span, span);
		ck_assert_uint_eq(p[k].act_base, p[0].act_base + k * span);
		ck_assert_uint_eq(p[k].dram_bytes, p[0].dram_bytes);
		for (int t = 0; t < g.n_tensors; t++) {
			if (p[0].t[t].addr == MAP_NOADDR)
				continue;
			uint64_t want = p[0].t[t].addr +
					(p[0].t[t].wlay ? 0 : k * span);
			ck_assert_msg(p[k].t[t].addr == want, "tensor %s, image %d",
				      g.tensors[t].name, k);
		}
		/* the programs differ in their activation addresses only */
		ck_assert_int_eq(p[k].n_layers, p[0].n_layers);
	}
	ck_assert_uint_eq(p[0].dram_bytes, p[0].act_base + 3 * span);
	for (int k = 0; k < 3; k++)
		map_plan_free(&p[k]);
	arch_free(&a);
	graph_free(&g);
}
END_TEST

static Suite *model_suite(void)
{
	Suite *s = suite_create("model");
	TCase *tc = tcase_create("model");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, model_plan_reuses_dram);
	tcase_add_test(tc, model_plan_image_arenas);
	tcase_add_test(tc, model_plan_calibrated);
	tcase_add_test(tc, model_cnn_bf16_values);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(model_suite)
