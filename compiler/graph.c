/*
 * graph.c - the layer graph's storage: tensors and nodes in flat arrays,
 * a name index, constants read back, messages that name a node.
 */
#include "graph.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	const char *doc;
} op_info[G_N_OPS] = {
#define GOP(id, onnx, min_in, max_in, n_out, infer, fold, map, doc) \
	[G_##id] = { onnx, doc },
#include "ops.def"
#undef GOP
};

static const struct {
	const char *name;
	int onnx;
	int bytes;
} dt_info[G_DT_N] = {
	[G_DT_NONE] = { "?", 0, 0 },
#define X(id, name, onnx, bytes) [G_DT_##id] = { name, onnx, bytes },
	G_DTYPES(X)
#undef X
};

const char *graph_op_name(enum g_op op)
{
	return (unsigned)op < G_N_OPS ? op_info[op].name : "?";
}

const char *graph_op_doc(enum g_op op)
{
	return (unsigned)op < G_N_OPS ? op_info[op].doc : "";
}

const char *graph_act_name(enum g_act a)
{
	static const char *const n[] = {
		[G_ACT_NONE] = "none", [G_ACT_RELU] = "relu",
		[G_ACT_CLIP] = "clip", [G_ACT_SIGMOID] = "sigmoid",
		[G_ACT_TANH] = "tanh", [G_ACT_GELU] = "gelu",
		[G_ACT_HARDSWISH] = "hardswish",
		[G_ACT_HARDSIGMOID] = "hardsigmoid", [G_ACT_SILU] = "silu",
	};
	return (unsigned)a < sizeof n / sizeof n[0] ? n[a] : "?";
}

int g_dtype_bytes(enum g_dtype t)
{
	return (unsigned)t < G_DT_N ? dt_info[t].bytes : 0;
}

const char *g_dtype_name(enum g_dtype t)
{
	return (unsigned)t < G_DT_N ? dt_info[t].name : "?";
}

enum g_dtype g_dtype_from_onnx(int onnx_type)
{
	for (int t = 1; t < G_DT_N; t++)
		if (dt_info[t].onnx == onnx_type)
			return (enum g_dtype)t;
	return G_DT_NONE;
}

/* ---- the name index: open addressing over tensor indices + 1 ---------- */

struct gindex {
	size_t cap;     /* a power of two, at least twice the tensors */
	int *slot;      /* tensor index + 1, 0 = empty */
};

static uint64_t hash_name(const char *s)
{
	uint64_t h = 1469598103934665603ull;    /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static int index_put(struct graph *g, int t)
{
	struct gindex *ix = g->index;
	if (!ix) {
		ix = calloc(1, sizeof *ix);
		if (!ix)
			return NPU_ENOMEM;
		g->index = ix;
	}
	if ((size_t)(t + 1) * 2 > ix->cap) {
		size_t cap = ix->cap ? ix->cap * 2 : 64;
		int *s = calloc(cap, sizeof *s);
		if (!s)
			return NPU_ENOMEM;
		free(ix->slot);
		ix->slot = s;
		ix->cap = cap;
		for (int i = 0; i < t; i++) {
			size_t h = hash_name(g->tensors[i].name) & (cap - 1);
			while (s[h])
				h = (h + 1) & (cap - 1);
			s[h] = i + 1;
		}
	}
	size_t h = hash_name(g->tensors[t].name) & (ix->cap - 1);
	while (ix->slot[h])
		h = (h + 1) & (ix->cap - 1);
	ix->slot[h] = t + 1;
	return 0;
}

int graph_find(const struct graph *g, const char *name)
{
	const struct gindex *ix = g->index;
	if (!ix || !ix->cap)
		return -1;
	for (size_t h = hash_name(name) & (ix->cap - 1); ix->slot[h];
	     h = (h + 1) & (ix->cap - 1))
		if (!strcmp(g->tensors[ix->slot[h] - 1].name, name))
			return ix->slot[h] - 1;
	return -1;
}

static int grow(void **v, int *cap, int need, size_t elem)
{
	if (need <= *cap)
		return 0;
	int c = *cap ? *cap * 2 : 16;
	while (c < need)
		c *= 2;
	void *p = realloc(*v, (size_t)c * elem);
	if (!p)
		return NPU_ENOMEM;
	memset((char *)p + (size_t)*cap * elem, 0, (size_t)(c - *cap) * elem);
	*v = p;
	*cap = c;
	return 0;
}

void graph_init(struct graph *g, const char *source)
{
	memset(g, 0, sizeof *g);
	g->source = strdup(source ? source : "<model>");
}

void graph_free(struct graph *g)
{
	for (int i = 0; i < g->n_tensors; i++) {
		free(g->tensors[i].name);
		free(g->tensors[i].data);
	}
	for (int i = 0; i < g->n_nodes; i++)
		free(g->nodes[i].name);
	free(g->tensors);
	free(g->nodes);
	free(g->inputs);
	free(g->outputs);
	if (g->index)
		free(((struct gindex *)g->index)->slot);
	free(g->index);
	free(g->source);
	memset(g, 0, sizeof *g);
}

int graph_tensor(struct graph *g, const char *name)
{
	int t = graph_find(g, name);
	if (t >= 0)
		return t;
	if (grow((void **)&g->tensors, &g->cap_tensors, g->n_tensors + 1,
		 sizeof *g->tensors))
		return -1;
	t = g->n_tensors;
	struct g_tensor *x = &g->tensors[t];
	memset(x, 0, sizeof *x);
	x->name = strdup(name);
	if (!x->name)
		return -1;
	x->rank = -1;
	x->producer = -1;
	g->n_tensors++;
	if (index_put(g, t)) {
		g->n_tensors--;
		free(x->name);
		return -1;
	}
	return t;
}

int graph_add_node(struct graph *g, enum g_op op, const char *name)
{
	if (grow((void **)&g->nodes, &g->cap_nodes, g->n_nodes + 1,
		 sizeof *g->nodes))
		return -1;
	int k = g->n_nodes;
	struct g_node *n = &g->nodes[k];
	memset(n, 0, sizeof *n);
	char buf[64];
	if (!name || !*name) {
		snprintf(buf, sizeof buf, "%s_%d", graph_op_name(op), k);
		name = buf;
	}
	n->name = strdup(name);
	if (!n->name)
		return -1;
	n->op = op;
	for (int i = 0; i < G_MAX_IN; i++)
		n->in[i] = -1;
	for (int i = 0; i < G_MAX_OUT; i++)
		n->out[i] = -1;
	n->src_index = k;
	n->opset = g->opset;
	n->stride[0] = n->stride[1] = 1;
	n->dil[0] = n->dil[1] = 1;
	n->group = 1;
	n->keepdims = 1;
	n->alpha = 1.0f;
	n->beta = 1.0f;
	n->lo = -INFINITY;
	n->hi = INFINITY;
	n->eps = 1e-5f;
	n->axis = op == G_SOFTMAX || op == G_LAYERNORM ? -1 :
		  op == G_FLATTEN || op == G_QUANT || op == G_DEQUANT ? 1 : 0;
	n->res = -1;
	g->n_nodes++;
	return k;
}

static int add_idx(int **v, int *n, int t)
{
	int *p = realloc(*v, (size_t)(*n + 1) * sizeof *p);
	if (!p)
		return NPU_ENOMEM;
	p[(*n)++] = t;
	*v = p;
	return 0;
}

int graph_add_input(struct graph *g, int t)
{
	g->tensors[t].flags |= G_T_INPUT;
	return add_idx(&g->inputs, &g->n_inputs, t);
}

int graph_add_output(struct graph *g, int t)
{
	g->tensors[t].flags |= G_T_OUTPUT;
	return add_idx(&g->outputs, &g->n_outputs, t);
}

int64_t graph_elems(const struct g_tensor *t)
{
	int64_t n = 1;
	for (int i = 0; i < t->rank; i++)
		n *= t->dim[i];
	return t->rank < 0 ? 0 : n;
}

size_t graph_bytes(const struct g_tensor *t)
{
	return (size_t)graph_elems(t) * (size_t)g_dtype_bytes(t->dtype);
}

const char *graph_node_where(const struct graph *g, int node, char *buf,
			     size_t n)
{
	const struct g_node *x = &g->nodes[node];
	if (x->opset)
		snprintf(buf, n, "node %d '%s' (%s, opset %d)", x->src_index,
			 x->name, graph_op_name(x->op), x->opset);
	else    /* a topology CSV's layer: no opset */
		snprintf(buf, n, "node %d '%s' (%s)", x->src_index, x->name,
			 graph_op_name(x->op));
	return buf;
}

int graph_error(const struct graph *g, int node, struct diag *d,
		const char *fmt, ...)
{
	char where[256], msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (node >= 0)
		graph_node_where(g, node, where, sizeof where);
	return diag_error(d, diag_at_file(g->source, 0, 0), NPU_EMODEL,
			  "%s%s%s", node >= 0 ? where : "",
			  node >= 0 ? ": " : "", msg);
}

void graph_uses(struct graph *g)
{
	/* Mark live nodes backwards from the outputs: nodes are in
	 * topological order, so one reverse sweep suffices. */
	char *live = calloc((size_t)g->n_nodes + 1, 1);
	char *need = calloc((size_t)g->n_tensors + 1, 1);
	if (!live || !need) {
		free(live);
		free(need);
		return; /* keep everything: only a missed clean-up */
	}
	for (int i = 0; i < g->n_outputs; i++)
		need[g->outputs[i]] = 1;
	for (int k = g->n_nodes - 1; k >= 0; k--) {
		const struct g_node *n = &g->nodes[k];
		for (int o = 0; o < n->n_out && !live[k]; o++)
			if (n->out[o] >= 0 && need[n->out[o]])
				live[k] = 1;
		if (!live[k])
			continue;
		for (int i = 0; i < n->n_in; i++)
			if (n->in[i] >= 0)
				need[n->in[i]] = 1;
		if (n->res >= 0)
			need[n->res] = 1;
	}
	int m = 0;
	for (int k = 0; k < g->n_nodes; k++) {
		if (live[k])
			g->nodes[m++] = g->nodes[k];
		else
			free(g->nodes[k].name);
	}
	g->n_nodes = m;
	for (int t = 0; t < g->n_tensors; t++) {
		g->tensors[t].producer = -1;
		g->tensors[t].n_uses = 0;
	}
	for (int k = 0; k < g->n_nodes; k++) {
		const struct g_node *n = &g->nodes[k];
		for (int o = 0; o < n->n_out; o++)
			if (n->out[o] >= 0)
				g->tensors[n->out[o]].producer = k;
		for (int i = 0; i < n->n_in; i++)
			if (n->in[i] >= 0)
				g->tensors[n->in[i]].n_uses++;
		if (n->res >= 0)
			g->tensors[n->res].n_uses++;
	}
	free(live);
	free(need);
}

int graph_const_i64(const struct g_tensor *t, int64_t i, int64_t *v)
{
	if (!(t->flags & G_T_CONST) || !t->data || i < 0 ||
	    i >= graph_elems(t))
		return NPU_EMODEL;
	const unsigned char *p = t->data;
	switch (t->dtype) {
	case G_DT_I64: { int64_t x; memcpy(&x, p + 8 * i, 8); *v = x; return 0; }
	case G_DT_I32: { int32_t x; memcpy(&x, p + 4 * i, 4); *v = x; return 0; }
	case G_DT_I8: *v = (int8_t)p[i]; return 0;
	case G_DT_U8: case G_DT_BOOL: *v = p[i]; return 0;
	default: {
		double d;
		int e = graph_const_f64(t, i, &d);
		*v = (int64_t)d;
		return e;
	}
	}
}

static float half_to_float(uint16_t h)
{
	int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
	float f = e == 0 ? ldexpf((float)m, -24) :
		  e == 31 ? (m ? NAN : INFINITY) :
		  ldexpf((float)(m | 1024), e - 25);
	return s ? -f : f;
}

int graph_const_f64(const struct g_tensor *t, int64_t i, double *v)
{
	if (!(t->flags & G_T_CONST) || !t->data || i < 0 ||
	    i >= graph_elems(t))
		return NPU_EMODEL;
	const unsigned char *p = t->data;
	switch (t->dtype) {
	case G_DT_F32: { float x; memcpy(&x, p + 4 * i, 4); *v = x; return 0; }
	case G_DT_F16: { uint16_t h; memcpy(&h, p + 2 * i, 2);
		*v = half_to_float(h); return 0; }
	case G_DT_BF16: { uint16_t h; memcpy(&h, p + 2 * i, 2);
		uint32_t u = (uint32_t)h << 16; float x; memcpy(&x, &u, 4);
		*v = x; return 0; }
	default: {
		int64_t x;
		int e = graph_const_i64(t, i, &x);
		*v = (double)x;
		return e;
	}
	}
}

static void print_shape(const struct g_tensor *t, FILE *f)
{
	if (t->rank < 0) {
		fputs("?", f);
		return;
	}
	fputc('[', f);
	for (int i = 0; i < t->rank; i++)
		fprintf(f, "%s%lld", i ? "," : "", (long long)t->dim[i]);
	fprintf(f, "]%s", g_dtype_name(t->dtype));
}

void graph_print(const struct graph *g, FILE *f)
{
	for (int k = 0; k < g->n_nodes; k++) {
		const struct g_node *n = &g->nodes[k];
		fprintf(f, "%d %s %s", k, graph_op_name(n->op), n->name);
		for (int i = 0; i < n->n_in; i++) {
			fputs(i ? ", " : " (", f);
			if (n->in[i] < 0)
				fputs("-", f);
			else
				print_shape(&g->tensors[n->in[i]], f);
		}
		fputs(n->n_in ? ") ->" : " ->", f);
		for (int o = 0; o < n->n_out; o++) {
			fputc(' ', f);
			if (n->out[o] >= 0)
				print_shape(&g->tensors[n->out[o]], f);
		}
		if (n->op == G_CONV || n->op == G_MAXPOOL || n->op == G_AVGPOOL)
			fprintf(f, " k=%dx%d s=%d,%d p=%d,%d,%d,%d d=%d,%d g=%d",
				n->kernel[0], n->kernel[1], n->stride[0],
				n->stride[1], n->pad[0], n->pad[1], n->pad[2],
				n->pad[3], n->dil[0], n->dil[1], n->group);
		if (n->act != G_ACT_NONE)
			fprintf(f, " act=%s", graph_act_name(n->act));
		if (n->res >= 0)
			fprintf(f, " res=%s", g->tensors[n->res].name);
		if (n->post_act != G_ACT_NONE)
			fprintf(f, " post=%s", graph_act_name(n->post_act));
		if (n->n_fused)
			fprintf(f, " fused=%s", n->fused);
		fputc('\n', f);
	}
}
