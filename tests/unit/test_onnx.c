/*
 * test_onnx.c - the ONNX importer (compiler/onnx.c).
 *
 * Models are built here as ModelProto messages with the structs protoc-c
 * generates from onnx.proto, packed by protobuf-c and imported from
 * memory; one more is written by python3-onnx's own helper API
 * (tests/unit/onnx_fixture.py, run by the Makefile) and read from disk.
 *
 *   onnx.graph.*    inputs, initializers, nodes and attributes as imported
 *   onnx.tensor.*   initializer dtypes and value fields, Constant forms
 *   onnx.attr.*     every op's attributes into struct g_node, per opset
 *   onnx.err.*      each rejected model: its message names the node, op,
 *                   opset, tensor or byte offset
 *   onnx.wire.*     corrupted and truncated files, nesting, and the
 *                   framing scan agreeing with protobuf-c byte by byte
 *   onnx.file.*     the file reader and python3-onnx's file
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../compiler/onnx.h"
#include "onnx.pb-c.h"
#include "testutil.h"

/* The fuzz target, run on every corrupted model (onnx.wire.every_byte). */
#include "../../fuzz/fuzz_onnx.c"

#define F ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT
#define I64 ONNX__TENSOR_PROTO__DATA_TYPE__INT64
#define D(...) (int64_t[]){ __VA_ARGS__ }
#define AT(x) ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__##x

/* ---- a ModelProto builder ---------------------------------------------------
 * Every piece comes from a pool freed when the model is packed. */

#define POOL_MAX 8192
static void *pool[POOL_MAX];
static int n_pool;

static void *mk(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	ck_assert_ptr_nonnull(p);
	ck_assert_int_lt(n_pool, POOL_MAX);
	pool[n_pool++] = p;
	return p;
}

static char *sdup(const char *s)
{
	return strcpy(mk(strlen(s) + 1), s);
}

#define CAP 64          /* entries of each repeated field built here */

struct mb {
	Onnx__ModelProto *m;
	Onnx__GraphProto *g;
};

static Onnx__OperatorSetIdProto *opset_id(const char *domain, int64_t v)
{
	Onnx__OperatorSetIdProto *o = mk(sizeof *o);

	onnx__operator_set_id_proto__init(o);
	o->domain = sdup(domain);
	o->has_version = 1;
	o->version = v;
	return o;
}

static void mb_init(struct mb *b, int64_t opset)
{
	b->m = mk(sizeof *b->m);
	onnx__model_proto__init(b->m);
	b->m->has_ir_version = 1;
	b->m->ir_version = 8;
	b->m->producer_name = sdup("test_onnx");
	b->m->opset_import = mk(CAP * sizeof(void *));
	b->m->opset_import[b->m->n_opset_import++] = opset_id("", opset);
	b->g = mk(sizeof *b->g);
	onnx__graph_proto__init(b->g);
	b->g->name = sdup("g");
	b->g->node = mk(CAP * sizeof(void *));
	b->g->initializer = mk(CAP * sizeof(void *));
	b->g->input = mk(CAP * sizeof(void *));
	b->g->output = mk(CAP * sizeof(void *));
	b->g->value_info = mk(CAP * sizeof(void *));
	b->m->graph = b->g;
}

/* A tensor ValueInfoProto; a dimension -1 is dim_param "batch", -2 one
 * with neither value nor name; rank -1 gives no shape at all. */
static Onnx__ValueInfoProto *vi(const char *name, int elem, int rank,
				const int64_t *dims)
{
	Onnx__ValueInfoProto *v = mk(sizeof *v);
	Onnx__TypeProto *t = mk(sizeof *t);
	Onnx__TypeProto__Tensor *tt = mk(sizeof *tt);

	onnx__value_info_proto__init(v);
	onnx__type_proto__init(t);
	onnx__type_proto__tensor__init(tt);
	v->name = sdup(name);
	v->type = t;
	t->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	t->tensor_type = tt;
	tt->has_elem_type = 1;
	tt->elem_type = elem;
	if (rank >= 0) {
		Onnx__TensorShapeProto *sh = mk(sizeof *sh);
		onnx__tensor_shape_proto__init(sh);
		sh->n_dim = (size_t)rank;
		sh->dim = mk((size_t)rank * sizeof(void *));
		for (int i = 0; i < rank; i++) {
			Onnx__TensorShapeProto__Dimension *dm = mk(sizeof *dm);
			onnx__tensor_shape_proto__dimension__init(dm);
			if (dims[i] >= 0) {
				dm->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
				dm->dim_value = dims[i];
			} else if (dims[i] == -1) {
				dm->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
				dm->dim_param = sdup("batch");
			}
			sh->dim[i] = dm;
		}
		tt->shape = sh;
	}
	return v;
}

static void mb_input(struct mb *b, const char *name, int elem, int rank,
		     const int64_t *dims)
{
	b->g->input[b->g->n_input++] = vi(name, elem, rank, dims);
}

static void mb_output(struct mb *b, const char *name, int elem, int rank,
		      const int64_t *dims)
{
	b->g->output[b->g->n_output++] = vi(name, elem, rank, dims);
}

static void mb_value_info(struct mb *b, const char *name, int elem, int rank,
			  const int64_t *dims)
{
	b->g->value_info[b->g->n_value_info++] = vi(name, elem, rank, dims);
}

static Onnx__TensorProto *tensor(const char *name, int dtype, int rank,
				 const int64_t *dims)
{
	Onnx__TensorProto *t = mk(sizeof *t);

	onnx__tensor_proto__init(t);
	t->name = sdup(name);
	t->has_data_type = 1;
	t->data_type = dtype;
	t->n_dims = (size_t)rank;
	t->dims = mk((size_t)rank * sizeof(int64_t));
	if (rank)
		memcpy(t->dims, dims, (size_t)rank * sizeof(int64_t));
	return t;
}

static Onnx__TensorProto *t_f32(const char *name, int rank,
				const int64_t *dims, const float *v, size_t n)
{
	Onnx__TensorProto *t = tensor(name, F, rank, dims);

	t->n_float_data = n;
	t->float_data = memcpy(mk(n * 4), v, n * 4);
	return t;
}

static Onnx__TensorProto *t_raw(const char *name, int dtype, int rank,
				const int64_t *dims, const void *p, size_t n)
{
	Onnx__TensorProto *t = tensor(name, dtype, rank, dims);

	t->has_raw_data = 1;
	t->raw_data.len = n;
	t->raw_data.data = memcpy(mk(n), p, n);
	return t;
}

static Onnx__TensorProto *t_i32(const char *name, int dtype, int rank,
				const int64_t *dims, const int32_t *v, size_t n)
{
	Onnx__TensorProto *t = tensor(name, dtype, rank, dims);

	t->n_int32_data = n;
	t->int32_data = memcpy(mk(n * 4), v, n * 4);
	return t;
}

static Onnx__TensorProto *t_i64(const char *name, int rank,
				const int64_t *dims, const int64_t *v, size_t n)
{
	Onnx__TensorProto *t = tensor(name, I64, rank, dims);

	t->n_int64_data = n;
	t->int64_data = memcpy(mk(n * 8), v, n * 8);
	return t;
}

static void mb_initializer(struct mb *b, Onnx__TensorProto *t)
{
	b->g->initializer[b->g->n_initializer++] = t;
}

/* "a,b" -> {"a", "b"}; "a,,c" keeps the empty name; "" is no names. */
static size_t names(const char *list, char ***out)
{
	size_t n = 0;
	char **v = mk(CAP * sizeof(char *));
	const char *s = list;

	while (*list) {
		const char *e = strchr(s, ',');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		char *x = mk(len + 1);
		memcpy(x, s, len);
		v[n++] = x;
		if (!e)
			break;
		s = e + 1;
	}
	*out = v;
	return n;
}

static Onnx__NodeProto *mb_node(struct mb *b, const char *op,
				const char *name, const char *ins,
				const char *outs)
{
	Onnx__NodeProto *n = mk(sizeof *n);

	onnx__node_proto__init(n);
	n->op_type = sdup(op);
	if (name)
		n->name = sdup(name);
	n->n_input = names(ins, &n->input);
	n->n_output = names(outs, &n->output);
	n->attribute = mk(CAP * sizeof(void *));
	b->g->node[b->g->n_node++] = n;
	return n;
}

static Onnx__AttributeProto *attr(Onnx__NodeProto *n, const char *name,
				  int type)
{
	Onnx__AttributeProto *a = mk(sizeof *a);

	onnx__attribute_proto__init(a);
	a->name = sdup(name);
	a->has_type = 1;
	a->type = type;
	n->attribute[n->n_attribute++] = a;
	return a;
}

static void a_int(Onnx__NodeProto *n, const char *name, int64_t v)
{
	Onnx__AttributeProto *a = attr(n, name, AT(INT));
	a->has_i = 1;
	a->i = v;
}

static void a_float(Onnx__NodeProto *n, const char *name, float v)
{
	Onnx__AttributeProto *a = attr(n, name, AT(FLOAT));
	a->has_f = 1;
	a->f = v;
}

static void a_ints(Onnx__NodeProto *n, const char *name, size_t k,
		   const int64_t *v)
{
	Onnx__AttributeProto *a = attr(n, name, AT(INTS));
	a->n_ints = k;
	a->ints = memcpy(mk(k * 8), v, k * 8);
}

static void a_floats(Onnx__NodeProto *n, const char *name, size_t k,
		     const float *v)
{
	Onnx__AttributeProto *a = attr(n, name, AT(FLOATS));
	a->n_floats = k;
	a->floats = memcpy(mk(k * 4), v, k * 4);
}

static void a_str(Onnx__NodeProto *n, const char *name, const char *s)
{
	Onnx__AttributeProto *a = attr(n, name, AT(STRING));
	a->has_s = 1;
	a->s.len = strlen(s);
	a->s.data = (uint8_t *)sdup(s);
}

static void a_tensor(Onnx__NodeProto *n, const char *name,
		     Onnx__TensorProto *t)
{
	attr(n, name, AT(TENSOR))->t = t;
}

/* The packed model (malloc'ed); the pool is freed. */
static uint8_t *mb_pack(struct mb *b, size_t *len)
{
	size_t n = onnx__model_proto__get_packed_size(b->m);
	uint8_t *buf = malloc(n ? n : 1);

	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(onnx__model_proto__pack(b->m, buf), n);
	while (n_pool)
		free(pool[--n_pool]);
	*len = n;
	return buf;
}

static int import(const uint8_t *buf, size_t n, struct graph *g,
		  struct diag *d)
{
	diag_init(d, NULL);
	graph_init(g, "t.onnx");
	return onnx_import_mem(g, buf, n, "t.onnx", d);
}

/* Import b; it must succeed. */
static void ok(struct mb *b, struct graph *g)
{
	struct diag d;
	size_t n;
	uint8_t *buf = mb_pack(b, &n);
	int r = import(buf, n, g, &d);

	free(buf);
	ck_assert_msg(r == 0, "import failed: %s", d.last);
	ck_assert_int_eq(d.n_errors, 0);
}

/* Import n bytes; it must fail with NPU_EMODEL and a message that names
 * the file and contains each of the (NULL-terminated) texts. */
static void bad_bytes(const uint8_t *buf, size_t n, ...)
{
	struct graph g;
	struct diag d;
	va_list ap;
	int r = import(buf, n, &g, &d);

	ck_assert_msg(r == NPU_EMODEL, "import returned %d (%s)", r, d.last);
	ck_assert_int_eq(d.n_errors, 1);
	ck_assert_msg(!strncmp(d.last, "t.onnx: error: ", 15),
		      "'%s' does not name the file", d.last);
	va_start(ap, n);
	for (const char *w; (w = va_arg(ap, const char *));)
		ck_assert_msg(strstr(d.last, w), "'%s' lacks '%s'", d.last, w);
	va_end(ap);
	graph_free(&g);
}

#define bad(b, ...)                                                   \
	do {                                                          \
		size_t n_;                                            \
		uint8_t *buf_ = mb_pack((b), &n_);                    \
		bad_bytes(buf_, n_, __VA_ARGS__, (const char *)NULL); \
		free(buf_);                                           \
	} while (0)

/* A model with input x [1, 4] and output y; tests add the nodes. */
static void mb_std(struct mb *b, int64_t opset)
{
	mb_init(b, opset);
	mb_input(b, "x", F, 2, D(1, 4));
	mb_output(b, "y", F, 2, D(1, 4));
}

static int T(const struct graph *g, const char *name)
{
	int t = graph_find(g, name);

	ck_assert_msg(t >= 0, "no tensor '%s'", name);
	return t;
}

static double cf(const struct graph *g, const char *name, int64_t i)
{
	double v;

	ck_assert_int_eq(graph_const_f64(&g->tensors[T(g, name)], i, &v), 0);
	return v;
}

static int64_t ci(const struct graph *g, const char *name, int64_t i)
{
	int64_t v;

	ck_assert_int_eq(graph_const_i64(&g->tensors[T(g, name)], i, &v), 0);
	return v;
}

static void shape_is(const struct graph *g, const char *name, int rank,
		     const int64_t *dims)
{
	const struct g_tensor *x = &g->tensors[T(g, name)];

	ck_assert_msg(x->rank == rank, "'%s' has rank %d, not %d", name,
		      x->rank, rank);
	for (int i = 0; i < rank; i++)
		ck_assert_msg(x->dim[i] == dims[i], "'%s' dim %d is %lld, not "
			      "%lld", name, i, (long long)x->dim[i],
			      (long long)dims[i]);
}

/* The node whose first output is tensor out. */
static const struct g_node *by_out(const struct graph *g, const char *out)
{
	int t = T(g, out);

	for (int k = 0; k < g->n_nodes; k++)
		if (g->nodes[k].out[0] == t)
			return &g->nodes[k];
	ck_abort_msg("no node writes '%s'", out);
	return NULL;
}

/* ---- onnx.graph ------------------------------------------------------------*/

START_TEST(onnx_graph_conv)
{
	struct mb b;
	struct graph g;
	float w[4 * 3 * 3 * 3], bias[4] = { 1, 2, 3, 4 };

	for (int i = 0; i < 108; i++)
		w[i] = (float)i * 0.5f;
	mb_init(&b, 13);
	mb_input(&b, "x", F, 4, D(-1, 3, 8, 8));
	mb_initializer(&b, t_f32("W", 4, D(4, 3, 3, 3), w, 108));
	mb_initializer(&b, t_raw("B", F, 1, D(4), bias, sizeof bias));
	Onnx__NodeProto *c = mb_node(&b, "Conv", "conv1", "x,W,B", "c");
	/* ONNX: x1_begin, x2_begin, x1_end, x2_end (H then W). */
	a_ints(c, "pads", 4, D(1, 2, 3, 4));
	a_ints(c, "strides", 2, D(2, 1));
	a_ints(c, "dilations", 2, D(1, 2));
	a_ints(c, "kernel_shape", 2, D(3, 3));
	a_int(c, "group", 1);
	a_str(c, "auto_pad", "NOTSET");
	mb_node(&b, "Relu", NULL, "c", "y");
	mb_value_info(&b, "c", F, 4, D(1, 4, 5, 10));
	mb_value_info(&b, "unused", F, 1, D(3));
	mb_output(&b, "y", F, 4, D(-1, 4, -2, 10));
	ok(&b, &g);

	ck_assert_int_eq(g.opset, 13);
	ck_assert_int_eq(g.n_inputs, 1);
	ck_assert_int_eq(g.inputs[0], T(&g, "x"));
	const struct g_tensor *x = &g.tensors[T(&g, "x")];
	ck_assert_int_eq(x->dtype, G_DT_F32);
	ck_assert_uint_eq(x->flags, G_T_INPUT);
	shape_is(&g, "x", 4, D(1, 3, 8, 8));    /* dim_param -> 1 */
	const struct g_tensor *wt = &g.tensors[T(&g, "W")];
	ck_assert_uint_eq(wt->flags, G_T_CONST);
	shape_is(&g, "W", 4, D(4, 3, 3, 3));
	ck_assert_int_eq(memcmp(wt->data, w, sizeof w), 0);
	ck_assert_int_eq(memcmp(g.tensors[T(&g, "B")].data, bias, 16), 0);
	ck_assert_int_eq(g.tensors[T(&g, "W")].producer, -1);

	ck_assert_int_eq(g.n_nodes, 2);
	const struct g_node *n = &g.nodes[0];
	ck_assert_int_eq(n->op, G_CONV);
	ck_assert_str_eq(n->name, "conv1");
	ck_assert_int_eq(n->n_in, 3);
	ck_assert_int_eq(n->in[0], T(&g, "x"));
	ck_assert_int_eq(n->in[1], T(&g, "W"));
	ck_assert_int_eq(n->in[2], T(&g, "B"));
	ck_assert_int_eq(n->n_out, 1);
	ck_assert_int_eq(n->out[0], T(&g, "c"));
	ck_assert_int_eq(n->pad[0], 1);         /* top */
	ck_assert_int_eq(n->pad[1], 2);         /* left */
	ck_assert_int_eq(n->pad[2], 3);         /* bottom */
	ck_assert_int_eq(n->pad[3], 4);         /* right */
	ck_assert_int_eq(n->stride[0], 2);
	ck_assert_int_eq(n->stride[1], 1);
	ck_assert_int_eq(n->dil[0], 1);
	ck_assert_int_eq(n->dil[1], 2);
	ck_assert_int_eq(n->kernel[0], 3);
	ck_assert_int_eq(n->kernel[1], 3);
	ck_assert_int_eq(n->group, 1);
	ck_assert_str_eq(n->auto_pad, "");
	ck_assert_int_eq(n->opset, 13);
	ck_assert_int_eq(n->src_index, 0);
	ck_assert_int_eq(g.tensors[T(&g, "c")].producer, 0);
	shape_is(&g, "c", 4, D(1, 4, 5, 10));   /* from value_info */
	ck_assert_int_lt(graph_find(&g, "unused"), 0);

	n = &g.nodes[1];
	ck_assert_int_eq(n->op, G_RELU);
	ck_assert_str_eq(n->name, "Relu_1");
	ck_assert_int_eq(n->src_index, 1);
	ck_assert_int_eq(n->in[0], T(&g, "c"));
	ck_assert_int_eq(g.n_outputs, 1);
	ck_assert_int_eq(g.outputs[0], T(&g, "y"));
	const struct g_tensor *y = &g.tensors[T(&g, "y")];
	ck_assert_uint_eq(y->flags, G_T_OUTPUT);
	ck_assert_int_eq(y->dtype, G_DT_F32);
	ck_assert_int_eq(y->rank, -1);  /* symbolic: left to graph_infer */
	graph_free(&g);
}
END_TEST

/* An initializer listed as an input too (IR < 4 style) stays a constant;
 * an optional input left empty is -1; kernel_shape comes from W. */
START_TEST(onnx_graph_inputs)
{
	struct mb b;
	struct graph g;
	float w[2 * 1 * 1 * 5] = { 0 };

	mb_init(&b, 11);
	b.m->ir_version = 3;
	mb_input(&b, "x", F, 4, D(1, 1, -2, 9));
	mb_input(&b, "W", F, 4, D(2, 1, 1, 5));
	mb_initializer(&b, t_f32("W", 4, D(2, 1, 1, 5), w, 10));
	mb_node(&b, "Conv", "c", "x,W,", "y");
	mb_output(&b, "y", F, -1, NULL);
	ok(&b, &g);
	ck_assert_int_eq(g.n_inputs, 1);
	shape_is(&g, "x", 4, D(1, 1, 1, 9));    /* no value, no name -> 1 */
	ck_assert_uint_eq(g.tensors[T(&g, "W")].flags, G_T_CONST);
	ck_assert_int_eq(g.nodes[0].n_in, 2);   /* trailing "" dropped */
	ck_assert_int_eq(g.nodes[0].kernel[0], 1);
	ck_assert_int_eq(g.nodes[0].kernel[1], 5);
	ck_assert_int_eq(g.nodes[0].opset, 11);
	graph_free(&g);

	/* Middle optional inputs stay -1 (Clip without a lower bound). */
	mb_std(&b, 13);
	mb_initializer(&b, t_f32("hi", 0, NULL, (float[]){ 6 }, 1));
	mb_node(&b, "Clip", NULL, "x,,hi", "y");
	ok(&b, &g);
	ck_assert_int_eq(g.nodes[0].n_in, 3);
	ck_assert_int_eq(g.nodes[0].in[1], -1);
	ck_assert_int_eq(g.nodes[0].in[2], T(&g, "hi"));
	ck_assert(isinf(g.nodes[0].lo) && g.nodes[0].lo < 0);
	ck_assert(g.nodes[0].hi == 6.0f);
	graph_free(&g);
}
END_TEST

/* ---- onnx.tensor -----------------------------------------------------------*/

START_TEST(onnx_tensor_dtypes)
{
	struct mb b;
	struct graph g;
	uint8_t u8[3] = { 0, 200, 255 };
	uint16_t h16[1] = { 0x3555 };   /* float16 0.333251953125 */

	mb_std(&b, 13);
	mb_initializer(&b, t_i32("i8", ONNX__TENSOR_PROTO__DATA_TYPE__INT8, 1,
				 D(3), (int32_t[]){ -128, 5, 127 }, 3));
	mb_initializer(&b, t_raw("u8", ONNX__TENSOR_PROTO__DATA_TYPE__UINT8, 1,
				 D(3), u8, 3));
	/* int32_data holds float16 and bfloat16 as bit patterns. */
	mb_initializer(&b, t_i32("h", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16,
				 1, D(2), (int32_t[]){ 0x3c00, 0xc000 }, 2));
	mb_initializer(&b, t_raw("hr", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16,
				 1, D(1), h16, 2));
	mb_initializer(&b, t_i32("bf", ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16,
				 2, D(1, 2), (int32_t[]){ 0x3f80, 0x4040 }, 2));
	mb_initializer(&b, t_i32("b", ONNX__TENSOR_PROTO__DATA_TYPE__BOOL, 1,
				 D(3), (int32_t[]){ 0, 1, 1 }, 3));
	mb_initializer(&b, t_i32("i32", ONNX__TENSOR_PROTO__DATA_TYPE__INT32,
				 1, D(2), (int32_t[]){ -7, 70000 }, 2));
	mb_initializer(&b, t_i64("i64", 1, D(2),
				 D(-1, (int64_t)1 << 40), 2));
	mb_initializer(&b, t_f32("s", 0, NULL, (float[]){ 2.5f }, 1));
	mb_initializer(&b, tensor("e", F, 2, D(0, 3)));
	mb_node(&b, "Identity", NULL, "x", "y");
	ok(&b, &g);

	ck_assert_int_eq(g.tensors[T(&g, "i8")].dtype, G_DT_I8);
	ck_assert_int_eq(ci(&g, "i8", 0), -128);
	ck_assert_int_eq(ci(&g, "i8", 2), 127);
	ck_assert_int_eq(((int8_t *)g.tensors[T(&g, "i8")].data)[1], 5);
	ck_assert_int_eq(g.tensors[T(&g, "u8")].dtype, G_DT_U8);
	ck_assert_int_eq(ci(&g, "u8", 1), 200);
	ck_assert_int_eq(g.tensors[T(&g, "h")].dtype, G_DT_F16);
	ck_assert(cf(&g, "h", 0) == 1.0 && cf(&g, "h", 1) == -2.0);
	ck_assert(cf(&g, "hr", 0) == 0.333251953125);
	ck_assert_int_eq(g.tensors[T(&g, "bf")].dtype, G_DT_BF16);
	ck_assert(cf(&g, "bf", 0) == 1.0 && cf(&g, "bf", 1) == 3.0);
	shape_is(&g, "bf", 2, D(1, 2));
	ck_assert_int_eq(g.tensors[T(&g, "b")].dtype, G_DT_BOOL);
	ck_assert_int_eq(ci(&g, "b", 0), 0);
	ck_assert_int_eq(ci(&g, "b", 2), 1);
	ck_assert_int_eq(ci(&g, "i32", 1), 70000);
	ck_assert_int_eq(ci(&g, "i64", 1), (int64_t)1 << 40);
	ck_assert_int_eq(ci(&g, "i64", 0), -1);
	ck_assert_int_eq(g.tensors[T(&g, "s")].rank, 0);
	ck_assert(cf(&g, "s", 0) == 2.5);
	shape_is(&g, "e", 2, D(0, 3));
	ck_assert_uint_eq(g.tensors[T(&g, "e")].flags, G_T_CONST);
	ck_assert_ptr_nonnull(g.tensors[T(&g, "e")].data);
	graph_free(&g);
}
END_TEST

START_TEST(onnx_tensor_constant)
{
	struct mb b;
	struct graph g;

	mb_std(&b, 13);
	a_tensor(mb_node(&b, "Constant", "k0", "", "c0"), "value",
		 t_i64("ignored", 1, D(2), D(1, -1), 2));
	a_float(mb_node(&b, "Constant", NULL, "", "c1"), "value_float", 0.5f);
	a_ints(mb_node(&b, "Constant", NULL, "", "c2"), "value_ints", 3,
	       D(3, 4, 5));
	a_floats(mb_node(&b, "Constant", NULL, "", "c3"), "value_floats", 2,
		 (float[]){ 1.5f, 2.5f });
	a_int(mb_node(&b, "Constant", NULL, "", "c4"), "value_int", 7);
	mb_node(&b, "Reshape", "r", "x,c0", "y");
	ok(&b, &g);

	/* Constants are tensors, not nodes; positions stay the file's. */
	ck_assert_int_eq(g.n_nodes, 1);
	ck_assert_int_eq(g.nodes[0].op, G_RESHAPE);
	ck_assert_int_eq(g.nodes[0].src_index, 5);
	ck_assert_int_eq(g.nodes[0].in[1], T(&g, "c0"));
	const struct g_tensor *c0 = &g.tensors[T(&g, "c0")];
	ck_assert_uint_eq(c0->flags, G_T_CONST);
	ck_assert_int_eq(c0->dtype, G_DT_I64);
	ck_assert_int_eq(c0->producer, -1);
	shape_is(&g, "c0", 1, D(2));
	ck_assert_int_eq(ci(&g, "c0", 1), -1);
	ck_assert_int_lt(graph_find(&g, "ignored"), 0);
	ck_assert_int_eq(g.tensors[T(&g, "c1")].dtype, G_DT_F32);
	ck_assert_int_eq(g.tensors[T(&g, "c1")].rank, 0);
	ck_assert(cf(&g, "c1", 0) == 0.5);
	shape_is(&g, "c2", 1, D(3));
	ck_assert_int_eq(ci(&g, "c2", 2), 5);
	ck_assert_int_eq(g.tensors[T(&g, "c3")].dtype, G_DT_F32);
	ck_assert(cf(&g, "c3", 1) == 2.5);
	ck_assert_int_eq(g.tensors[T(&g, "c4")].rank, 0);
	ck_assert_int_eq(ci(&g, "c4", 0), 7);
	graph_free(&g);
}
END_TEST

/* ---- onnx.attr -------------------------------------------------------------*/

START_TEST(onnx_attr_ops13)
{
	struct mb b;
	struct graph g;
	Onnx__NodeProto *n;

	mb_std(&b, 13);
	mb_initializer(&b, t_f32("lo", 0, NULL, (float[]){ 0 }, 1));
	mb_initializer(&b, t_f32("hi", 0, NULL, (float[]){ 6 }, 1));
	mb_initializer(&b, t_i64("sp", 1, D(2), D(1, 3), 2));
	mb_initializer(&b, t_f32("sc", 1, D(4), (float[]){ 1, 1, 2, 2 }, 4));
	n = mb_node(&b, "Gemm", NULL, "x,x", "gemm");
	a_float(n, "alpha", 0.5f);
	a_float(n, "beta", 2.0f);
	a_int(n, "transA", 1);
	a_int(n, "transB", 1);
	mb_node(&b, "HardSigmoid", NULL, "x", "hs0");
	a_float(mb_node(&b, "HardSigmoid", NULL, "x", "hs1"), "alpha", 0.25f);
	a_str(mb_node(&b, "Gelu", NULL, "x", "gelu_t"), "approximate", "tanh");
	mb_node(&b, "Gelu", NULL, "x", "gelu");
	mb_node(&b, "Softmax", NULL, "x", "sm");
	a_ints(mb_node(&b, "Transpose", NULL, "x", "tr"), "perm", 4,
	       D(0, 2, 3, 1));
	n = mb_node(&b, "ReduceMean", NULL, "x", "rm");
	a_ints(n, "axes", 2, D(2, -1));
	a_int(n, "keepdims", 0);
	a_int(mb_node(&b, "Concat", NULL, "x,x,x", "cat"), "axis", 1);
	a_int(mb_node(&b, "Split", NULL, "x,sp", "s0,s1"), "axis", -1);
	n = mb_node(&b, "LayerNormalization", NULL, "x,sc", "ln");
	a_float(n, "epsilon", 1e-6f);
	a_int(n, "stash_type", 1);
	n = mb_node(&b, "BatchNormalization", NULL, "x,sc,sc,sc,sc", "bn");
	a_float(n, "epsilon", 1e-3f);
	a_float(n, "momentum", 0.9f);
	a_int(mb_node(&b, "Dropout", NULL, "x", "do,mask"), "seed", 3);
	n = mb_node(&b, "Resize", NULL, "x,,sc", "rs");
	a_str(n, "mode", "nearest");
	a_str(n, "coordinate_transformation_mode", "asymmetric");
	a_str(n, "nearest_mode", "floor");
	a_float(n, "cubic_coeff_a", -0.5f);
	mb_node(&b, "Resize", NULL, "x,,sc", "rs2");
	a_str(mb_node(&b, "Pad", NULL, "x,sp", "pad"), "mode", "constant");
	n = mb_node(&b, "MaxPool", NULL, "x", "mp");
	a_str(n, "auto_pad", "SAME_UPPER");
	a_ints(n, "kernel_shape", 2, D(3, 2));
	a_ints(n, "strides", 2, D(2, 2));
	a_int(n, "ceil_mode", 1);
	a_int(n, "storage_order", 0);
	n = mb_node(&b, "AveragePool", NULL, "x", "ap");
	a_ints(n, "kernel_shape", 2, D(2, 2));
	a_int(n, "count_include_pad", 1);
	mb_node(&b, "Clip", NULL, "x,lo,hi", "clip");
	a_int(mb_node(&b, "Flatten", NULL, "x", "fl"), "axis", 2);
	a_int(mb_node(&b, "Gather", NULL, "x,sp", "ga"), "axis", 1);
	a_int(mb_node(&b, "QuantizeLinear", NULL, "x,sc", "q"), "axis", 0);
	mb_node(&b, "DequantizeLinear", NULL, "q,sc", "dq");
	mb_node(&b, "Reshape", NULL, "x,sp", "rh");
	mb_node(&b, "Squeeze", NULL, "x,sp", "sq");
	mb_node(&b, "Unsqueeze", NULL, "x,sp", "usq");
	mb_node(&b, "Identity", NULL, "dq", "y");
	ok(&b, &g);

	const struct g_node *x = by_out(&g, "gemm");
	ck_assert(x->alpha == 0.5f && x->beta == 2.0f);
	ck_assert(x->trans_a == 1 && x->trans_b == 1);
	x = by_out(&g, "hs0");
	ck_assert(x->alpha == 0.2f && x->beta == 0.5f);
	x = by_out(&g, "hs1");
	ck_assert(x->alpha == 0.25f && x->beta == 0.5f);
	ck_assert_int_eq(by_out(&g, "gelu_t")->approx_tanh, 1);
	ck_assert_int_eq(by_out(&g, "gelu")->approx_tanh, 0);
	ck_assert_int_eq(by_out(&g, "sm")->axis, -1);
	x = by_out(&g, "tr");
	ck_assert_int_eq(x->n_perm, 4);
	ck_assert(x->perm[0] == 0 && x->perm[1] == 2 && x->perm[3] == 1);
	x = by_out(&g, "rm");
	ck_assert_int_eq(x->n_axes, 2);
	ck_assert(x->axes[0] == 2 && x->axes[1] == -1 && x->keepdims == 0);
	x = by_out(&g, "cat");
	ck_assert(x->axis == 1 && x->n_in == 3);
	x = by_out(&g, "s0");
	ck_assert(x->axis == -1 && x->n_out == 2 && x->n_split == 0);
	ck_assert_int_eq(x->out[1], T(&g, "s1"));
	x = by_out(&g, "ln");
	ck_assert(x->eps == 1e-6f && x->axis == -1);
	x = by_out(&g, "bn");
	ck_assert(x->eps == 1e-3f && x->n_in == 5);
	x = by_out(&g, "do");
	ck_assert_int_eq(x->n_out, 2);
	ck_assert_int_eq(x->out[1], T(&g, "mask"));
	x = by_out(&g, "rs");
	ck_assert_str_eq(x->mode, "nearest");
	ck_assert(x->in[1] == -1 && x->in[2] == T(&g, "sc"));
	ck_assert_str_eq(by_out(&g, "rs2")->mode, "nearest");
	ck_assert_str_eq(by_out(&g, "pad")->mode, "constant");
	x = by_out(&g, "mp");
	ck_assert_str_eq(x->auto_pad, "SAME_UPPER");
	ck_assert(x->kernel[0] == 3 && x->kernel[1] == 2);
	ck_assert(x->stride[0] == 2 && x->ceil_mode == 1);
	x = by_out(&g, "ap");
	ck_assert(x->count_include_pad == 1 && x->kernel[0] == 2);
	ck_assert(x->stride[0] == 1 && x->ceil_mode == 0);
	x = by_out(&g, "clip");
	ck_assert(x->lo == 0.0f && x->hi == 6.0f && x->n_in == 3);
	ck_assert_int_eq(by_out(&g, "fl")->axis, 2);
	ck_assert_int_eq(by_out(&g, "ga")->axis, 1);
	ck_assert_int_eq(by_out(&g, "q")->axis, 0);
	ck_assert_int_eq(by_out(&g, "dq")->axis, 1);
	ck_assert_int_eq(by_out(&g, "sq")->n_axes, 0);
	ck_assert_str_eq(by_out(&g, "rh")->name, "Reshape_23");
	ck_assert_int_eq(by_out(&g, "usq")->in[1], T(&g, "sp"));
	for (int k = 0; k < g.n_nodes; k++) {
		ck_assert_int_eq(g.nodes[k].src_index, k);
		ck_assert_int_eq(g.nodes[k].opset, 13);
	}
	graph_free(&g);
}
END_TEST

/* The attribute forms of opsets 11 and 12. */
START_TEST(onnx_attr_ops11)
{
	struct mb b;
	struct graph g;
	Onnx__NodeProto *n;

	mb_std(&b, 11);
	mb_initializer(&b, t_f32("sc", 1, D(4), (float[]){ 1, 1, 2, 2 }, 4));
	a_ints(mb_node(&b, "Squeeze", NULL, "x", "sq"), "axes", 1, D(0));
	a_ints(mb_node(&b, "Unsqueeze", NULL, "x", "usq"), "axes", 2, D(0, 3));
	n = mb_node(&b, "Split", NULL, "x", "s0,s1,s2");
	a_int(n, "axis", 1);
	a_ints(n, "split", 3, D(1, 2, 1));
	mb_node(&b, "Softmax", NULL, "x", "sm");
	n = mb_node(&b, "Resize", NULL, "x,sc,sc", "rs");
	a_str(n, "coordinate_transformation_mode", "tf_half_pixel_for_nn");
	a_str(n, "nearest_mode", "floor");
	a_float(mb_node(&b, "Dropout", NULL, "x", "do"), "ratio", 0.1f);
	mb_node(&b, "Identity", NULL, "x", "y");
	ok(&b, &g);
	const struct g_node *x = by_out(&g, "sq");
	ck_assert(x->n_axes == 1 && x->axes[0] == 0);
	x = by_out(&g, "usq");
	ck_assert(x->n_axes == 2 && x->axes[1] == 3);
	x = by_out(&g, "s0");
	ck_assert(x->n_split == 3 && x->split[1] == 2 && x->n_out == 3);
	/* Softmax before opset 13: axis 1 by default. */
	ck_assert_int_eq(by_out(&g, "sm")->axis, 1);
	ck_assert_int_eq(by_out(&g, "sm")->opset, 11);
	graph_free(&g);
}
END_TEST

/* ---- onnx.err: the model --------------------------------------------------*/

START_TEST(onnx_err_model)
{
	struct mb b;

	mb_std(&b, 13);
	mb_node(&b, "Relu", NULL, "x", "y");
	b.m->ir_version = 2;
	bad(&b, "IR version 2 is not supported (supported: 3..10)");

	mb_std(&b, 13);
	b.m->has_ir_version = 0;
	bad(&b, "no ir_version");

	mb_std(&b, 18);
	bad(&b, "opset 18 of the default ONNX domain is not supported "
	    "(supported: 11..17");
	mb_std(&b, 10);
	bad(&b, "opset 10 of the default ONNX domain is not supported");

	/* "ai.onnx" is the default domain too; others do not count. */
	mb_std(&b, 13);
	b.m->opset_import[0]->domain = sdup("ai.onnx.ml");
	bad(&b, "no opset for the default ONNX domain");
	mb_std(&b, 13);
	b.m->opset_import[b.m->n_opset_import++] = opset_id("ai.onnx", 12);
	bad(&b, "names the default domain twice");

	mb_std(&b, 13);
	b.m->graph = NULL;
	bad(&b, "the model has no graph");

	/* A protobuf message that parses but is no model. */
	bad_bytes((const uint8_t *)"\x12\x01x", 3, "not an ONNX model",
		  (const char *)NULL);
	bad_bytes((const uint8_t *)"", 0, "empty file", (const char *)NULL);
	const char *text = "name,value\nconv1,3\n";
	bad_bytes((const uint8_t *)text, strlen(text), "not an ONNX model: "
		  "not a protobuf ModelProto (byte ", (const char *)NULL);
}
END_TEST

/* ---- onnx.err: tensors ------------------------------------------------------*/

START_TEST(onnx_err_tensor)
{
	struct mb b;
	Onnx__TensorProto *t;

	mb_std(&b, 13);
	mb_initializer(&b, t_f32("w", 2, D(2, 3), (float[]){ 1, 2, 3, 4, 5 },
				 5));
	bad(&b, "initializer 'w': float_data holds 5 values; dims [2,3] "
	    "need 6");

	mb_std(&b, 13);
	mb_initializer(&b, t_raw("w", F, 1, D(2), "abcdefg", 7));
	bad(&b, "initializer 'w': raw_data holds 7 bytes; dims [2] of "
	    "float32 need 8");

	mb_std(&b, 13);
	t = t_f32("ext", 1, D(1), (float[]){ 1 }, 1);
	t->n_float_data = 0;
	t->has_data_location = 1;
	t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
	mb_initializer(&b, t);
	bad(&b, "initializer 'ext': its data is in an external file "
	    "(data_location EXTERNAL)");

	mb_std(&b, 13);
	t = tensor("d", ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE, 1, D(1));
	t->n_double_data = 1;
	t->double_data = mk(8);
	mb_initializer(&b, t);
	bad(&b, "initializer 'd': dtype DOUBLE is not supported (supported: "
	    "float32, uint8, int8, int32, int64, bool, float16, bfloat16)");

	mb_std(&b, 13);
	mb_initializer(&b, t_i32("q", ONNX__TENSOR_PROTO__DATA_TYPE__INT8, 1,
				 D(2), (int32_t[]){ 1, 300 }, 2));
	bad(&b, "initializer 'q': int32_data[1] = 300 does not fit int8 "
	    "(-128..127)");

	mb_std(&b, 13);
	mb_initializer(&b, t_i32("f", F, 1, D(1), (int32_t[]){ 1 }, 1));
	bad(&b, "initializer 'f': FLOAT values in int32_data, which ONNX does "
	    "not use for FLOAT");

	mb_std(&b, 13);
	t = t_f32("two", 1, D(1), (float[]){ 1 }, 1);
	t->has_raw_data = 1;
	t->raw_data.len = 4;
	t->raw_data.data = mk(4);
	mb_initializer(&b, t);
	bad(&b, "initializer 'two': values in both raw_data and float_data");

	mb_std(&b, 13);
	mb_initializer(&b, tensor("none", F, 1, D(3)));
	bad(&b, "initializer 'none': no values (dims [3] need 3)");

	mb_std(&b, 13);
	mb_initializer(&b, tensor("neg", F, 2, D(2, -3)));
	bad(&b, "initializer 'neg': invalid dims [2,-3]");
	mb_std(&b, 13);
	mb_initializer(&b, t_raw("big", F, 2, D((int64_t)1 << 40, 1 << 22),
				 "abcd", 4));
	bad(&b, "initializer 'big': dims [1099511627776,4194304] hold more "
	    "values than a model file can");
	mb_std(&b, 13);
	mb_initializer(&b, tensor("huge", F, 3, D(1 << 30, 1 << 30, 1 << 30)));
	bad(&b, "initializer 'huge': invalid dims");

	mb_std(&b, 13);
	mb_initializer(&b, t_f32("w", 1, D(1), (float[]){ 1 }, 1));
	mb_initializer(&b, t_f32("w", 1, D(1), (float[]){ 1 }, 1));
	bad(&b, "initializer 'w' is given twice");

	/* Inputs and outputs. */
	mb_init(&b, 13);
	mb_input(&b, "x", F, -1, NULL);
	bad(&b, "input 'x' has no shape");
	mb_init(&b, 13);
	mb_input(&b, "x", ONNX__TENSOR_PROTO__DATA_TYPE__STRING, 1, D(1));
	bad(&b, "input 'x': dtype STRING is not supported");
	mb_init(&b, 13);
	mb_input(&b, "x", F, 1, D(1));
	b.g->input[0]->type->value_case = ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE;
	b.g->input[0]->type->sequence_type = mk(sizeof(Onnx__TypeProto__Sequence));
	onnx__type_proto__sequence__init(b.g->input[0]->type->sequence_type);
	bad(&b, "input 'x' is not a tensor");
	mb_init(&b, 13);
	mb_input(&b, "x", F, 7, D(1, 1, 1, 1, 1, 1, 1));
	bad(&b, "input 'x': rank 7 is beyond the supported 6");
	mb_std(&b, 13);
	mb_node(&b, "Relu", NULL, "x", "z");
	bad(&b, "graph output 'y' is neither a node's output, an input nor an "
	    "initializer");
	mb_std(&b, 13);
	mb_node(&b, "Relu", NULL, "x", "y");
	mb_value_info(&b, "y", ONNX__TENSOR_PROTO__DATA_TYPE__INT32, 2, D(1, 4));
	bad(&b, "value_info 'y' is int32 here and float32 elsewhere");
	mb_std(&b, 13);
	mb_node(&b, "Relu", NULL, "x", "y");
	mb_value_info(&b, "x", F, 2, D(1, 5));
	bad(&b, "value_info 'x' has shape [1,5] here and [1,4] elsewhere");
}
END_TEST

/* ---- onnx.err: nodes and attributes ---------------------------------------*/

START_TEST(onnx_err_node)
{
	struct mb b;
	Onnx__NodeProto *n;

	mb_std(&b, 13);
	mb_node(&b, "Relu", "r", "x", "t");
	n = mb_node(&b, "FusedMatMul", "fm", "t,t", "y");
	n->domain = sdup("com.microsoft");
	bad(&b, "t.onnx: error: node 1 'fm' (FusedMatMul, domain "
	    "com.microsoft): operators outside the default ONNX domain are "
	    "not supported");

	mb_std(&b, 13);
	mb_node(&b, "Relu", "r", "x", "t");
	mb_node(&b, "NonMaxSuppression", "nms", "t,t", "y");
	bad(&b, "t.onnx: error: node 1 'nms' (NonMaxSuppression, opset 13): "
	    "unsupported operator (supported: Conv, MatMul, Gemm, Add,",
	    "ReduceMean, Constant, Identity, Dropout)");
	/* An unnamed node is called what the graph will call it. */
	mb_std(&b, 15);
	mb_node(&b, "Relu", NULL, "x", "t");
	mb_node(&b, "LSTM", NULL, "t,t,t", "y");
	bad(&b, "node 1 'LSTM_1' (LSTM, opset 15): unsupported operator");

	mb_std(&b, 13);
	mb_node(&b, "Relu", "r", "zz", "y");
	bad(&b, "node 0 'r' (Relu, opset 13): input 'zz' is neither a graph "
	    "input, an initializer nor an output of an earlier node");
	mb_std(&b, 13);
	mb_node(&b, "Relu", "r", "x", "x");
	bad(&b, "node 0 'r' (Relu, opset 13): output 'x' is already defined");
	mb_std(&b, 13);
	mb_node(&b, "Relu", "r", "x,x", "y");
	bad(&b, "node 0 'r' (Relu, opset 13): 2 inputs; Relu takes 1 to 1");
	mb_std(&b, 13);
	mb_node(&b, "Conv", "c", ",x", "y");
	bad(&b, "node 0 'c' (Conv, opset 13): input 0 is required");
	mb_std(&b, 13);
	mb_node(&b, "MaxPool", "mp", "x", "y,idx");
	bad(&b, "node 0 'mp' (MaxPool, opset 13): 2 outputs; supported: at "
	    "least 1, at most 1");
	mb_std(&b, 13);
	mb_node(&b, "", "e", "x", "y");
	bad(&b, "node 0 'e' (?, opset 13): the node has no op_type");

	/* Constant nodes. */
	mb_std(&b, 13);
	n = mb_node(&b, "Constant", "k", "", "y");
	a_int(n, "value_int", 1);
	a_int(n, "value_ints", 1);
	bad(&b, "node 0 'k' (Constant, opset 13): a Constant has exactly one "
	    "value attribute");
	mb_std(&b, 13);
	a_str(mb_node(&b, "Constant", "k", "", "y"), "value_string", "s");
	bad(&b, "value attribute 'value_string' is not supported (supported: "
	    "value, value_float, value_floats, value_int, value_ints)");
	mb_std(&b, 13);
	a_float(mb_node(&b, "Constant", "k", "", "y"), "value_int", 1);
	bad(&b, "attribute 'value_int' is FLOAT; it must be INT");
	mb_std(&b, 13);
	a_tensor(mb_node(&b, "Constant", "k", "", "y"), "value",
		 tensor("t", ONNX__TENSOR_PROTO__DATA_TYPE__UINT64, 1, D(1)));
	bad(&b, "node 0 'k' (Constant, opset 13): value 'y': dtype UINT64 is "
	    "not supported");
	mb_std(&b, 13);
	a_int(mb_node(&b, "Constant", "k", "", "x"), "value_int", 1);
	bad(&b, "output 'x' is already defined");
}
END_TEST

START_TEST(onnx_err_attr)
{
	struct mb b;
	Onnx__NodeProto *n;

	mb_std(&b, 13);
	a_int(mb_node(&b, "Relu", "r", "x", "y"), "foo", 1);
	bad(&b, "node 0 'r' (Relu, opset 13): unknown attribute 'foo' (Relu "
	    "takes: none)");
	mb_std(&b, 13);
	a_int(mb_node(&b, "Conv", "c", "x,x", "y"), "bar", 1);
	bad(&b, "unknown attribute 'bar' (Conv takes: auto_pad, dilations, "
	    "group, kernel_shape, pads, strides)");
	mb_std(&b, 13);
	a_float(mb_node(&b, "Conv", "c", "x,x", "y"), "group", 2);
	bad(&b, "node 0 'c' (Conv, opset 13): attribute 'group' is FLOAT; "
	    "Conv's 'group' is INT");
	/* Attributes that moved to inputs. */
	mb_std(&b, 13);
	a_ints(mb_node(&b, "Squeeze", "s", "x", "y"), "axes", 1, D(0));
	bad(&b, "node 0 's' (Squeeze, opset 13): attribute 'axes' belongs to "
	    "Squeeze up to opset 12 only, not opset 13");
	mb_std(&b, 12);
	a_float(mb_node(&b, "Clip", "c", "x", "y"), "min", 0);
	bad(&b, "node 0 'c' (Clip, opset 12): attribute 'min' belongs to Clip "
	    "up to opset 10 only");
	mb_std(&b, 12);
	a_int(mb_node(&b, "QuantizeLinear", "q", "x,x", "y"), "axis", 0);
	bad(&b, "attribute 'axis' belongs to QuantizeLinear from opset 13 "
	    "only, not opset 12");
	/* Values outside what the graph or the kernels support. */
	mb_std(&b, 13);
	a_ints(mb_node(&b, "Conv", "c3", "x,x", "y"), "kernel_shape", 3,
	       D(3, 3, 3));
	bad(&b, "node 0 'c3' (Conv, opset 13): attribute 'kernel_shape' has 3 "
	    "values; supported: 2 (2-D operators only)");
	mb_std(&b, 13);
	mb_initializer(&b, tensor("w5", F, 5, D(1, 1, 1, 1, 0)));
	mb_node(&b, "Conv", "c3", "x,w5", "y");
	bad(&b, "weights 'w5' have rank 5; supported: 4 (2-D convolution");
	mb_std(&b, 13);
	mb_initializer(&b, tensor("w", F, 4, D(1, 1, 3, 0)));
	a_ints(mb_node(&b, "Conv", "c", "x,w", "y"), "kernel_shape", 2, D(3, 3));
	bad(&b, "kernel_shape 3x3 disagrees with weights 'w' (3x0)");
	mb_std(&b, 13);
	a_ints(mb_node(&b, "Conv", "c", "x,x", "y"), "pads", 4, D(0, 0, -1, 0));
	bad(&b, "attribute 'pads' value 2 is -1; supported: 0..");
	mb_std(&b, 13);
	n = mb_node(&b, "Conv", "c", "x,x", "y");
	a_ints(n, "pads", 4, D(1, 1, 1, 1));
	a_str(n, "auto_pad", "SAME_LOWER");
	bad(&b, "both pads and auto_pad SAME_LOWER are given");
	mb_std(&b, 13);
	a_str(mb_node(&b, "Conv", "c", "x,x", "y"), "auto_pad", "SAME");
	bad(&b, "auto_pad 'SAME' is not one of NOTSET, SAME_UPPER, SAME_LOWER, "
	    "VALID");
	mb_std(&b, 13);
	a_int(mb_node(&b, "Conv", "c", "x,x", "y"), "group", 0);
	bad(&b, "attribute 'group' = 0 is out of range (supported: 1..");
	mb_std(&b, 13);
	mb_node(&b, "MaxPool", "mp", "x", "y");
	bad(&b, "node 0 'mp' (MaxPool, opset 13): kernel_shape is missing "
	    "(required)");
	mb_std(&b, 13);
	a_str(mb_node(&b, "Resize", "rs", "x,,x", "y"), "mode", "linear");
	bad(&b, "node 0 'rs' (Resize, opset 13): mode 'linear' is not "
	    "supported (supported: nearest)");
	mb_std(&b, 13);
	a_str(mb_node(&b, "Resize", "rs", "x,,x", "y"),
	      "coordinate_transformation_mode", "align_corners");
	bad(&b, "coordinate_transformation_mode 'align_corners' with "
	    "nearest_mode 'round_prefer_floor' is not supported");
	mb_std(&b, 13);
	n = mb_node(&b, "Resize", "rs", "x,,x", "y");
	a_str(n, "coordinate_transformation_mode", "tf_half_pixel_for_nn");
	a_str(n, "nearest_mode", "floor");
	bad(&b, "'tf_half_pixel_for_nn' with nearest_mode 'floor' is not "
	    "supported");
	mb_std(&b, 13);
	a_str(mb_node(&b, "Resize", "rs", "x,,x", "y"), "nearest_mode", "ceil");
	bad(&b, "coordinate_transformation_mode 'half_pixel' with nearest_mode "
	    "'ceil'");
	mb_std(&b, 13);
	a_str(mb_node(&b, "Pad", "p", "x,x", "y"), "mode", "reflect");
	bad(&b, "node 0 'p' (Pad, opset 13): mode 'reflect' is not supported "
	    "(supported: constant)");
	mb_std(&b, 13);
	a_str(mb_node(&b, "Gelu", "g", "x", "y"), "approximate", "erf");
	bad(&b, "approximate 'erf' is not one of none, tanh");
	mb_std(&b, 14);
	a_int(mb_node(&b, "BatchNormalization", "bn", "x,x,x,x,x", "y"),
	      "training_mode", 1);
	bad(&b, "node 0 'bn' (BatchNormalization, opset 14): attribute "
	    "'training_mode' = 1 is not supported (supported: 0");
	mb_std(&b, 14);
	a_int(mb_node(&b, "Reshape", NULL, "x,x", "y"), "allowzero", 1);
	bad(&b, "node 0 'Reshape_0' (Reshape, opset 14): attribute "
	    "'allowzero' = 1 is not supported");
	mb_std(&b, 13);
	mb_initializer(&b, t_raw("tm", ONNX__TENSOR_PROTO__DATA_TYPE__BOOL, 0,
				 NULL, "\1", 1));
	mb_node(&b, "Dropout", "d", "x,,tm", "y");
	bad(&b, "node 0 'd' (Dropout, opset 13): training_mode is true");
	mb_std(&b, 13);
	a_ints(mb_node(&b, "Transpose", "t", "x", "y"), "perm", 3, D(0, 2, 2));
	bad(&b, "perm names axis 2 twice");
	mb_std(&b, 13);
	a_ints(mb_node(&b, "Transpose", "t", "x", "y"), "perm", 2, D(0, 2));
	bad(&b, "perm value 2 is not below its 2 axes");
	mb_std(&b, 11);
	mb_node(&b, "Unsqueeze", "u", "x", "y");
	bad(&b, "attribute 'axes' is missing (required before opset 13)");
	mb_std(&b, 13);
	n = mb_node(&b, "Relu", "r", "x", "y");
	a_int(n, "x", 1);
	n->attribute[0]->ref_attr_name = sdup("outer");
	bad(&b, "refers to a function's attribute");
	mb_std(&b, 13);
	n = mb_node(&b, "Softmax", "s", "x", "y");
	a_int(n, "axis", 1);
	n->attribute[0]->has_type = 0;
	bad(&b, "attribute 'axis' is UNDEFINED; Softmax's 'axis' is INT");
}
END_TEST

/* ---- onnx.wire -------------------------------------------------------------*/

/* A small valid model, packed: Conv -> Relu with an initializer. */
static uint8_t *small_model(size_t *n)
{
	struct mb b;
	float w[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

	mb_init(&b, 13);
	b.m->producer_name = NULL;
	mb_input(&b, "x", F, 4, D(1, 2, 4, 4));
	mb_initializer(&b, t_f32("W", 4, D(4, 2, 1, 1), w, 8));
	a_ints(mb_node(&b, "Conv", "conv", "x,W", "c"), "pads", 4,
	       D(0, 0, 0, 0));
	mb_node(&b, "Relu", "relu", "c", "y");
	mb_output(&b, "y", F, 4, D(1, 4, 4, 4));
	return mb_pack(&b, n);
}

static size_t find(const uint8_t *buf, size_t n, const char *s)
{
	size_t k = strlen(s);

	for (size_t i = 0; i + k <= n; i++)
		if (!memcmp(buf + i, s, k))
			return i;
	ck_abort_msg("'%s' not in the model", s);
	return 0;
}

START_TEST(onnx_wire_corrupt)
{
	size_t n, at;
	uint8_t *buf = small_model(&n);
	uint8_t *c = malloc(n);
	char want[192];

	/* The bytes protobuf-c wrote: ir_version (field 1) first, then the
	 * graph (field 7) with its length at byte 3. */
	ck_assert_uint_eq(buf[0], 0x08);
	ck_assert_uint_eq(buf[2], 0x3a);

	/* "Relu" is op_type (field 4, length-delimited: tag 0x22) of the
	 * second node; its tag sits two bytes before the text. */
	at = find(buf, n, "Relu") - 2;
	ck_assert_uint_eq(buf[at], 0x22);
	memcpy(c, buf, n);
	c[at] = 0x27;           /* field 4, wire type 7 */
	snprintf(want, sizeof want, "malformed ONNX file at byte %zu (in "
		 "NodeProto): wire type 7", at);
	bad_bytes(c, n, want, (const char *)NULL);

	memcpy(c, buf, n);
	c[at + 1] = 0x70;       /* op_type's length beyond its node */
	snprintf(want, sizeof want, "malformed ONNX file at byte %zu (in "
		 "NodeProto.op_type): length 112 runs past the end of the "
		 "NodeProto", at + 1);
	bad_bytes(c, n, want, (const char *)NULL);

	memcpy(c, buf, n);
	c[at] = 0x20;           /* op_type as a varint */
	snprintf(want, sizeof want, "malformed ONNX file at byte %zu (in "
		 "NodeProto.op_type): wire type 0, but the schema's field 4 "
		 "needs wire type 2", at);
	bad_bytes(c, n, want, (const char *)NULL);

	/* A zero byte where a field of the graph starts. */
	at = find(buf, n, "conv") - 2;          /* name, field 3: 0x1a */
	ck_assert_uint_eq(buf[at], 0x1a);
	memcpy(c, buf, n);
	c[at] = 0;
	snprintf(want, sizeof want, "at byte %zu (in NodeProto): byte 0x00 is "
		 "not a field tag", at);
	bad_bytes(c, n, want, (const char *)NULL);

	/* float_data is packed floats: a length that is not 4k. */
	at = find(buf, n, "\x22\x20\x00\x00\x80\x3f");  /* 8 floats, 1.0f */
	memcpy(c, buf, n);
	c[at + 1] = 0x1f;
	snprintf(want, sizeof want, "(in TensorProto.float_data): packed "
		 "4-byte values in a length of 31");
	bad_bytes(c, n, want, (const char *)NULL);

	free(c);
	free(buf);
}
END_TEST

START_TEST(onnx_wire_truncated)
{
	size_t n;
	uint8_t *buf = small_model(&n);
	char want[128];

	/* Cut inside the graph: its length (byte 3) runs past the end. */
	ck_assert_uint_eq(buf[3] & 0x80, 0x80); /* a 2-byte length */
	for (size_t cut = 5; cut < n - 10; cut += 7) {
		snprintf(want, sizeof want, "malformed ONNX file at byte 3 (in "
			 "ModelProto.graph): length ");
		bad_bytes(buf, cut, want, "runs past the end of the file",
			  "the file is truncated", (const char *)NULL);
	}
	/* Cut inside a tag's varint: the graph tag's length byte alone. */
	bad_bytes(buf, 3, "at byte 3 (in ModelProto.graph): a length cut off "
		  "by the end of the file", (const char *)NULL);
	free(buf);
}
END_TEST

/* Messages nested without limit would exhaust protobuf-c's stack; the scan
 * stops them.  A TypeProto of sequences of sequences ... nests two
 * messages per level. */
START_TEST(onnx_wire_nesting)
{
	for (int levels = 10; levels <= 40; levels += 30) {
		struct mb b;
		mb_std(&b, 13);
		Onnx__TypeProto *t = b.g->input[0]->type;
		onnx__type_proto__init(t);
		for (int i = 0; i < levels; i++) {
			Onnx__TypeProto__Sequence *s = mk(sizeof *s);
			onnx__type_proto__sequence__init(s);
			t->value_case = ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE;
			t->sequence_type = s;
			t = s->elem_type = mk(sizeof *t);
			onnx__type_proto__init(t);
		}
		if (levels == 10)
			bad(&b, "input 'x' is not a tensor");
		else
			bad(&b, "messages nested deeper than 64 levels");
	}
}
END_TEST

/*
 * Every single-byte corruption of a model, with a few values each: the
 * import never crashes or leaks (asan), whenever the framing scan passes,
 * protobuf-c decodes the bytes too - so a malformed file always gets its
 * byte offset - and the fuzz target's invariants hold.
 */
START_TEST(onnx_wire_every_byte)
{
	static const uint8_t vals[] = { 0x00, 0x07, 0x7f, 0x80, 0xff };
	size_t n;
	uint8_t *buf = small_model(&n);
	uint8_t *c = malloc(n);
	int n_bad = 0, n_ok = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t v = 0; v < sizeof vals; v++) {
			struct graph g;
			struct diag d;
			memcpy(c, buf, n);
			c[i] = vals[v] == 0x07 ? c[i] ^ 0x07 : vals[v];
			int r = import(c, n, &g, &d);
			ck_assert_msg(!strstr(d.last, "could not decode"),
				      "byte %zu = 0x%02x: %s", i, c[i], d.last);
			ck_assert_msg(r == 0 || r == NPU_EMODEL, "%d", r);
			n_bad += r != 0;
			n_ok += r == 0;
			graph_free(&g);
			ck_assert_int_eq(LLVMFuzzerTestOneInput(c, n), 0);
		}
	ck_assert_int_gt(n_bad, (int)n);
	ck_assert_int_gt(n_ok, 0);
	free(c);
	free(buf);
}
END_TEST

/* ---- onnx.file -------------------------------------------------------------*/

START_TEST(onnx_file_read)
{
	char dir[4096], path[4200];
	struct graph g;
	struct diag d;
	size_t n;
	uint8_t *buf = small_model(&n);

	test_tmp_template(dir, sizeof dir, "npusim_onnx_");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/m.onnx", dir);
	FILE *fp = fopen(path, "wb");
	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(buf, 1, n, fp), n);
	fclose(fp);
	diag_init(&d, NULL);
	graph_init(&g, path);
	ck_assert_msg(onnx_import(&g, path, &d) == 0, "%s", d.last);
	ck_assert_int_eq(g.n_nodes, 2);
	ck_assert_int_eq(g.nodes[0].op, G_CONV);
	ck_assert_int_eq(g.nodes[0].kernel[0], 1);
	ck_assert(cf(&g, "W", 7) == 8.0);
	graph_free(&g);

	/* Truncated on disk: the message names the path. */
	ck_assert_int_eq(truncate(path, (off_t)n - 5), 0);
	diag_init(&d, NULL);
	graph_init(&g, path);
	ck_assert_int_eq(onnx_import(&g, path, &d), NPU_EMODEL);
	ck_assert_msg(!strncmp(d.last, path, strlen(path)) &&
		      strstr(d.last, "the file is truncated"), "%s", d.last);
	graph_free(&g);

	diag_init(&d, NULL);
	graph_init(&g, dir);
	ck_assert_int_eq(onnx_import(&g, dir, &d), NPU_EIO);
	ck_assert_msg(strstr(d.last, "is a directory"), "%s", d.last);
	graph_free(&g);
	unlink(path);
	rmdir(dir);
	diag_init(&d, NULL);
	graph_init(&g, path);
	ck_assert_int_eq(onnx_import(&g, path, &d), NPU_EIO);
	ck_assert_msg(strstr(d.last, "cannot open: No such file"), "%s", d.last);
	graph_free(&g);
	free(buf);
}
END_TEST

/* tests/unit/onnx_fixture.py, written by python3-onnx: what its helper
 * API and numpy_helper emit (raw_data, float_data, int32_data for
 * float16, Constant nodes) reads back as the script built it. */
START_TEST(onnx_file_python)
{
	struct graph g;
	struct diag d;

	diag_init(&d, NULL);
	graph_init(&g, ONNX_FIXTURE);
	ck_assert_msg(onnx_import(&g, ONNX_FIXTURE, &d) == 0, "%s", d.last);
	ck_assert_int_eq(g.opset, 13);
	ck_assert_int_eq(g.n_inputs, 1);
	shape_is(&g, "x", 4, D(1, 3, 8, 8));
	static const enum g_op ops[] = { G_CONV, G_RELU, G_MAXPOOL, G_RESHAPE,
					 G_GEMM, G_SOFTMAX };
	ck_assert_int_eq(g.n_nodes, 6);
	for (int k = 0; k < 6; k++)
		ck_assert_int_eq(g.nodes[k].op, ops[k]);
	const struct g_node *c = &g.nodes[0];
	ck_assert_str_eq(c->name, "conv");
	ck_assert(c->pad[0] == 1 && c->pad[1] == 0 && c->pad[2] == 1 &&
		  c->pad[3] == 0);
	ck_assert(c->kernel[0] == 3 && c->kernel[1] == 3);
	shape_is(&g, "conv.w", 4, D(4, 3, 3, 3));
	ck_assert(cf(&g, "conv.w", 5) == 5 * 0.125);    /* raw_data */
	ck_assert(cf(&g, "conv.b", 3) == -1.5);         /* float_data */
	ck_assert(g.nodes[2].kernel[0] == 2 && g.nodes[2].stride[1] == 2);
	/* The Constant (file position 3) is a tensor; Reshape is 4th. */
	ck_assert_int_eq(g.nodes[3].src_index, 4);
	ck_assert_int_eq(ci(&g, "shape", 1), -1);
	ck_assert_int_eq(g.nodes[4].trans_b, 1);
	ck_assert(g.nodes[4].alpha == 1.0f);
	ck_assert_int_eq(g.nodes[5].axis, -1);
	ck_assert_int_eq(g.tensors[T(&g, "half")].dtype, G_DT_F16);
	ck_assert(cf(&g, "half", 0) == 0.5 && cf(&g, "half", 2) == -3.0);
	ck_assert_int_eq(ci(&g, "i8", 1), -7);
	ck_assert_int_eq(g.n_outputs, 1);
	ck_assert_str_eq(g.tensors[g.outputs[0]].name, "y");
	shape_is(&g, "y", 2, D(1, 10));
	graph_free(&g);
}
END_TEST

static Suite *suite_onnx(void)
{
	Suite *s = suite_create("onnx");

	TEST_ADD(s, onnx_graph_conv);
	TEST_ADD(s, onnx_graph_inputs);
	TEST_ADD(s, onnx_tensor_dtypes);
	TEST_ADD(s, onnx_tensor_constant);
	TEST_ADD(s, onnx_attr_ops13);
	TEST_ADD(s, onnx_attr_ops11);
	TEST_ADD(s, onnx_err_model);
	TEST_ADD(s, onnx_err_tensor);
	TEST_ADD(s, onnx_err_node);
	TEST_ADD(s, onnx_err_attr);
	TEST_ADD(s, onnx_wire_corrupt);
	TEST_ADD(s, onnx_wire_truncated);
	TEST_ADD(s, onnx_wire_nesting);
	TEST_ADD(s, onnx_wire_every_byte);
	TEST_ADD(s, onnx_file_read);
	TEST_ADD(s, onnx_file_python);
	return s;
}

TEST_MAIN(suite_onnx)
