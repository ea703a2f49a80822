/*
 * graph.h - the layer graph: what the importers (ONNX, topology CSV) build,
 * the passes (shape inference, folding, fusion) rewrite and the mapper
 * turns into program images.
 *
 * Tensors and nodes live in two flat arrays and refer to each other by
 * index.  Shapes and axes keep the model's own semantics (ONNX: NCHW
 * activations, OIHW conv weights); the layout a tensor gets in DRAM is
 * the mapper's decision (compiler/map.h), not the graph's.  Nodes are kept
 * in a topological order (ONNX requires one; the CSV is a chain).
 *
 *   struct graph g; graph_init(&g, "resnet50.onnx");
 *   onnx_import(&g, path, &diag);     or topo_import(&g, path, &diag)
 *   graph_infer(&g, &diag);           shapes of every tensor
 *   graph_simplify(&g, &opts, &diag); fold constants and BN, fuse
 *   ... map and run ...
 *   graph_free(&g);
 *
 * Every error names the node: "<source>: node 12 'conv1' (Conv, opset
 * 13): ..." (graph_node_where), with NPU_EMODEL.
 */
#ifndef NPU_GRAPH_H
#define NPU_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "../util/diag.h"

#define G_MAX_RANK 6
#define G_MAX_IN 64     /* Concat's inputs */
#define G_MAX_OUT 16    /* Split's outputs */

enum g_op {
#define GOP(id, onnx, min_in, max_in, n_out, infer, fold, map, doc) G_##id,
#include "ops.def"
#undef GOP
	G_N_OPS
};

/* Element types of graph tensors (ONNX TensorProto.DataType values). */
#define G_DTYPES(X)               \
	X(F32,  "float32",  1, 4) \
	X(U8,   "uint8",    2, 1) \
	X(I8,   "int8",     3, 1) \
	X(I32,  "int32",    6, 4) \
	X(I64,  "int64",    7, 8) \
	X(BOOL, "bool",     9, 1) \
	X(F16,  "float16", 10, 2) \
	X(BF16, "bfloat16", 16, 2)

enum g_dtype {
	G_DT_NONE = 0,
#define X(id, name, onnx, bytes) G_DT_##id,
	G_DTYPES(X)
#undef X
	G_DT_N
};

/* Tensor flags. */
enum {
	G_T_INPUT = 1,    /* a graph input (fed at run time) */
	G_T_OUTPUT = 2,   /* a graph output */
	G_T_CONST = 4,    /* a constant (initializer, Constant node, folded) */
	G_T_SYNTH = 8,    /* a constant whose values the source did not give
			     (topology CSV weights): data is NULL, the runner
			     draws them from a fixed seed when values are on */
};

struct g_tensor {
	char *name;
	enum g_dtype dtype;     /* G_DT_NONE until known */
	int rank;               /* -1 until known */
	int64_t dim[G_MAX_RANK];
	unsigned flags;         /* G_T_* */
	void *data;             /* G_T_CONST: rank/dim elements of dtype,
				   little-endian, row-major (owned) */
	int producer;           /* node index, -1 for inputs and constants */
	int n_uses;             /* nodes reading it (graph_uses) */
};

/* A nonlinearity fused into the node that produces the values. */
/* attention's operands stored sequence-major (graph_simplify absorbed
 * the Transpose(0, 2, 1, 3) that split their heads). */
enum { G_SEQ_Q = 1, G_SEQ_V = 2, G_SEQ_O = 4 };

enum g_act {
	G_ACT_NONE, G_ACT_RELU, G_ACT_CLIP, G_ACT_SIGMOID, G_ACT_TANH,
	G_ACT_GELU, G_ACT_HARDSWISH, G_ACT_HARDSIGMOID, G_ACT_SILU
};

struct g_node {
	char *name;             /* the source's name, or "<op>_<index>" */
	enum g_op op;
	int n_in, n_out;
	int in[G_MAX_IN];       /* tensor indices; -1 = optional, absent */
	int out[G_MAX_OUT];
	int src_index;          /* position in the source file (messages) */
	int opset;              /* the opset the node was imported under */

	/* Attributes; only the op's own are meaningful, the rest are 0. */
	int kernel[2];          /* conv/pool: kh, kw */
	int stride[2];          /* sh, sw (1 when absent) */
	int dil[2];             /* dh, dw (1) */
	int pad[4];             /* top, left, bottom, right (explicit
				   pads; auto_pad resolved by graph_infer) */
	char auto_pad[16];      /* "", "SAME_UPPER", "SAME_LOWER", "VALID" */
	int group;              /* conv groups (1) */
	int ceil_mode;          /* pool */
	int count_include_pad;  /* AveragePool */
	int axis;               /* Softmax, Concat, Split, Gather, Flatten,
				   LayerNormalization, Quant */
	int keepdims;           /* ReduceMean (1) */
	int n_axes;             /* ReduceMean, Squeeze, Unsqueeze (when
				   given as attributes; else input 2) */
	int64_t axes[G_MAX_RANK];
	int n_perm;             /* Transpose (0: reverse) */
	int perm[G_MAX_RANK];
	int trans_a, trans_b;   /* Gemm */
	float alpha, beta;      /* Gemm (1, 1); HardSigmoid (0.2, 0.5);
				   LeakyRelu-style slopes */
	float eps;              /* BatchNormalization, LayerNormalization */
	float lo, hi;           /* Clip bounds (-inf, inf) when constant */
	int n_split;            /* Split sizes (0: equal parts) */
	int64_t split[G_MAX_OUT];
	char mode[16];          /* Resize ("nearest"), Pad ("constant") */
	int approx_tanh;        /* Gelu, and a node with act G_ACT_GELU:
				   the tanh approximation */
	int seq;                /* attention: G_SEQ_* of the tensors stored
				   sequence-major (B x N x heads x D), the
				   head-split transposes absorbed */

	/* Fusion (graph_simplify): y = act(op(...) [+ bias]) [+ res].  The
	 * bias is input 2: Conv's and Gemm's own (Gemm with beta 1), and
	 * for MatMul a [N] vector added to every row (ops.def allows
	 * MatMul a third input for it). */
	enum g_act act;
	float act_lo, act_hi;   /* G_ACT_CLIP bounds; HardSigmoid alpha/beta */
	int res;                /* tensor added after the activation, -1 */
	enum g_act post_act;    /* an activation after the residual add
				   (ResNet's relu(conv + x)): y =
				   post_act(act(op + bias) + res) */
	float post_lo, post_hi; /* its Clip bounds / HardSigmoid alpha, beta */
	int n_fused;            /* source nodes folded into this one */
	char fused[96];         /* their ops, "BatchNormalization+Relu" */
};

struct graph {
	char *source;           /* file name for messages (owned) */
	int opset;              /* the model's default-domain opset */
	struct g_tensor *tensors;
	int n_tensors, cap_tensors;
	struct g_node *nodes;
	int n_nodes, cap_nodes;
	int *inputs, n_inputs;  /* graph inputs in order (tensor indices) */
	int *outputs, n_outputs;
	void *index;            /* name -> tensor lookup (graph.c) */
};

void graph_init(struct graph *g, const char *source);
void graph_free(struct graph *g);

/* The tensor named name, created (rank -1, no dtype) when missing; -1 and
 * NPU_ENOMEM on allocation failure.  graph_find: -1 when missing. */
int graph_tensor(struct graph *g, const char *name);
int graph_find(const struct graph *g, const char *name);
/* A new node of op (inputs and outputs -1, attributes at their ONNX
 * defaults); its index, or -1 when out of memory. */
int graph_add_node(struct graph *g, enum g_op op, const char *name);
/* Add a graph input/output (tensor index); 0 or NPU_ENOMEM. */
int graph_add_input(struct graph *g, int t) NPU_WUR;
int graph_add_output(struct graph *g, int t) NPU_WUR;

/* Elements and bytes of a tensor of known shape. */
int64_t graph_elems(const struct g_tensor *t);
size_t graph_bytes(const struct g_tensor *t);
int g_dtype_bytes(enum g_dtype t);
const char *g_dtype_name(enum g_dtype t);
/* ONNX TensorProto.DataType -> g_dtype (G_DT_NONE when unsupported). */
enum g_dtype g_dtype_from_onnx(int onnx_type);
const char *graph_op_name(enum g_op op);    /* "Conv" */
const char *graph_op_doc(enum g_op op);
const char *graph_act_name(enum g_act a);   /* "relu" */

/* "resnet50.onnx: node 12 'conv1' (Conv, opset 13)" into buf. */
const char *graph_node_where(const struct graph *g, int node, char *buf,
			     size_t n);
/* Report an error about node (NPU_EMODEL). */
int graph_error(const struct graph *g, int node, struct diag *d,
		const char *fmt, ...) NPU_PRINTF(4, 5);

/* Recount producers and n_uses; drop nodes whose outputs nobody reads
 * and that are not graph outputs; compact the arrays. */
void graph_uses(struct graph *g);

/* A constant's values as int64 / double (any integer or float dtype);
 * 0 or NPU_EMODEL when t is not a constant or i is out of range. */
int graph_const_i64(const struct g_tensor *t, int64_t i, int64_t *v);
int graph_const_f64(const struct g_tensor *t, int64_t i, double *v);

/*
 * Shape inference (compiler/infer.c): fill dtype/rank/dim of every tensor
 * from the graph inputs, the constants and the ops' rules; resolve
 * auto_pad into pad[]; check each node's inputs (ranks, channel counts,
 * broadcastability) and report the first mismatch at its node.  Constant
 * subgraphs (Shape-free: Constant, Reshape/Unsqueeze of constants) are
 * evaluated.  Negative axes become non-negative; axes, split sizes and
 * Clip bounds given as constant inputs are copied into n_axes/axes,
 * n_split/split and lo/hi.  Running it again is harmless.  0 or
 * NPU_EMODEL.
 */
int graph_infer(struct graph *g, struct diag *d) NPU_WUR;

/* What graph_simplify may do (all on by default). */
struct graph_opts {
	int no_fuse;            /* keep activations and residual adds as
				   their own layers */
};
/*
 * Rewrites (compiler/passes.c), each documented in docs/models.md:
 * Identity/Dropout removed; BatchNormalization folded into the Conv (or
 * Gemm) before it; the decomposed LayerNormalization and the Erf/tanh
 * GELU patterns recognised; activations (Relu, Clip, Sigmoid, HardSwish,
 * HardSigmoid, Gelu, x*sigmoid(x)) fused into the producing Conv/MatMul/
 * Gemm; a bias Add after MatMul turned into its bias; a residual Add of
 * a Conv/MatMul's output fused as res.  Graph must be inferred.
 * 0 or NPU_EMODEL / NPU_ENOMEM.
 */
int graph_simplify(struct graph *g, const struct graph_opts *o,
		   struct diag *d) NPU_WUR;

/* One line per node (op, shapes, attributes, fused ops) to f: what
 * `npusim model --dump-graph` prints and the tests compare. */
void graph_print(const struct graph *g, FILE *f);

#endif
