/*
 * map.h - the mapping compiler: an inferred, simplified layer graph and a
 * chip config in; a plan out.  The plan says where every tensor lives in
 * DRAM (weights once at the bottom, activations above them placed by
 * liveness) and, for every layer, which kernels of the library run it and
 * with which parameters: assembly text (defines + .include of the kernel)
 * the runner assembles into program images, one phase per step.
 *
 *   struct map_plan p;
 *   map_plan_build(&g, &arch, &opts, &p, &d);
 *   ... model_run(&g, &p, ...) ...
 *   map_plan_free(&p);
 *
 * docs/models.md gives the rules: layouts, which kernel takes which op,
 * the tiling heuristic, DRAM planning and the int8 scaling.
 */
#ifndef NPU_MAP_H
#define NPU_MAP_H

#include <stdint.h>

#include "../arch/arch.h"
#include "../util/dtype.h"
#include "graph.h"
#include "lower.h"

#define MAP_NOADDR UINT64_MAX

/* How a tensor's elements are ordered in DRAM. */
enum map_layout {
	MAP_ROWMAJOR,   /* the graph's logical shape, row-major */
	MAP_NHWC,       /* a rank-4 NCHW activation stored as N x H x W x C */
};

/* How a multi-core chip shares a layer (the SPLIT define of the conv
 * kernels; streaming kernels always deal row blocks round the cores). */
enum map_split {
	MAP_SPLIT_AUTO,     /* the kernel's default */
	MAP_SPLIT_ROWS,     /* output rows */
	MAP_SPLIT_CHANNELS, /* output channels */
};

struct map_opts {
	enum npu_dtype dtype;   /* activations and weights (DT_INT8,
				   DT_BF16); DT_N: from core.matrix.in_type */
	enum map_split split;
	int per_image;          /* a conv over a batch as a step per image
				   (default: one step, conv2d.s's BATCH) */
	int keep_all;           /* keep every activation to the end (no DRAM
				   reuse): to read each layer's output
				   afterwards (--dump-layers) */
	const float *amax;      /* int8: max|x| of every graph tensor (by
				   index) from a calibration run, for
				   calibrated exponents; NULL: every
				   activation Q3.4 (docs/models.md "int8") */
	int images, image;      /* images > 1: a pipelined run keeps that
				   many images in flight, each in its own
				   activation arena (the same liveness plan,
				   arenas one after another above the
				   weights); this plan is image's (0-based).
				   0: one arena */
};

struct map_tensor {
	uint64_t addr;          /* DRAM byte address, MAP_NOADDR: none */
	uint64_t bytes;         /* in dt (constants: as laid out for their
				   kernel) */
	enum npu_dtype dt;      /* activations: the plan's dtype; integer
				   tensors (indices): int32 */
	enum map_layout layout;
	int root;               /* the tensor whose storage this one is a view
				   of (Reshape, Flatten, a contiguous Split
				   part, ...); itself if none */
	uint64_t offset;        /* a view's bytes from its root's start */
	int first, last;        /* live from layer first to layer last */
	int exp;                /* int8: value = q * 2^exp */
	int wlay;               /* a constant the plan lays out: how
				   (map.c's enum wlay); 0 = not one */
	float scale;            /* its factor (Gemm alpha, beta), else 1 */
};

/* One program of a layer: a phase of the run. */
struct map_step {
	const char *kernel;     /* "conv2d.s" */
	char *src;              /* assembly: defines + .include (owned) */
	uint64_t macs;          /* MACs the step's math needs */
};

struct map_layer {
	int node;               /* graph node */
	char *name;             /* the node's name (owned) */
	char op[128];           /* "Conv+BatchNormalization+Relu" */
	char kernels[96];       /* "conv2d.s" or "conv2d.s+eltwise.s" */
	char tiling[192];       /* the parameters that shape the schedule */
	char shapes[192];       /* "1x3x224x224 -> 1x64x112x112" */
	uint64_t macs;          /* sum of the steps' */
	enum lower_id lower;    /* the lower.def row that took the layer */
	char lower_note[160];   /* why earlier rows did not ("" if none) */
	int n_steps;
	struct map_step *steps; /* empty for a view (no data moves) */
};

struct map_plan {
	enum npu_dtype dtype;
	int n_tensors;
	struct map_tensor *t;   /* one per graph tensor */
	int n_layers;
	struct map_layer *layers;
	uint64_t weights_bytes; /* constants, from address 0 */
	uint64_t act_base;      /* the activation arena */
	uint64_t act_peak;      /* its peak (liveness-planned) */
	uint64_t act_span;      /* images > 1: bytes between two images'
				   arenas */
	uint64_t act_naive;     /* what it would be with no reuse */
	uint64_t dram_bytes;    /* the whole footprint */
};

int map_plan_build(const struct graph *g, const struct arch *a,
		   const struct map_opts *o, struct map_plan *p,
		   struct diag *d) NPU_WUR;
void map_plan_free(struct map_plan *p);

/*
 * Values (runs that compute them): write every constant the plan laid out
 * into dram (weights rearranged per kernel, converted to the plan's dtype,
 * biases in the accumulator type); write graph input t from fp32 values
 * in the graph's NCHW order; read output t back as fp32 NCHW.  dram is
 * the chip's DRAM (size n).  0 or NPU_E*.
 */
int map_write_consts(const struct graph *g, const struct map_plan *p,
		     uint8_t *dram, uint64_t n, struct diag *d) NPU_WUR;
int map_write_input(const struct graph *g, const struct map_plan *p, int t,
		    const float *v, uint8_t *dram, uint64_t n,
		    struct diag *d) NPU_WUR;
int map_read_tensor(const struct graph *g, const struct map_plan *p, int t,
		    const uint8_t *dram, uint64_t n, float *v,
		    struct diag *d) NPU_WUR;

#endif
