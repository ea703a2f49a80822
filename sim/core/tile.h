/*
 * tile.h - what the control unit hands to an execution unit.
 *
 * The control unit executes scalar instructions itself and turns each tile
 * instruction into a tile_cmd: the opcode, its pc, and every operand already
 * read from registers, together with a snapshot of the unit's configuration
 * registers (set by mset/vset/dset) at dispatch time.  Units therefore never
 * read the control unit's state, and reordering between units is only what
 * the semaphores and fences of the program allow.
 *
 * Protocol between control (ctl) and an execution unit (xu):
 *   ctl asks xu_port.can_accept(u) at cycle t; if true, calls accept(u, cmd)
 *   at t.  The unit starts the command when its own pipeline allows and
 *   calls tile_notify() whenever it frees capacity or finishes a command,
 *   so that control re-tries dispatch and re-checks fences/semaphores.
 *   idle(u) is true when every accepted command has fully completed
 *   (results written, memory requests retired).
 */
#ifndef NPU_TILE_H
#define NPU_TILE_H

#include <stdint.h>

#include "../../isa/isa.h"
#include "../engine/engine.h"

/*
 * Memory spaces, the rows of isa/memspaces.def under the simulator's
 * prefix: MEM_DRAM, MEM_SPM, MEM_ACC, MEM_RSPM (another core's
 * scratchpad) and MEM_DATA (the control unit's scalar memory), with the
 * ISA's numbers, so a dset/vset register value or an object file's space
 * is used as is.  Which space may appear where is a property of the row:
 * isa_mem_flags(space) & ISA_MS_DMA, ISA_MS_VEC ...
 */
enum mem_space {
#define MEMSPACE(id, name, value, flags, noun, doc) MEM_##id = ISA_MEM_##id,
#include "../../isa/memspaces.def"
	MEM_N_SPACES = ISA_N_MEMS
};

/* Matrix unit configuration (mset fields), snapshotted per command. */
struct mtx_cfg {
	int dataflow;         /* mset df: ISA_CONST_WS, _OS or _IS */
	int in_type;          /* enum npu_dtype of A and B */
	int acc_type;         /* enum npu_dtype: DT_INT32 or DT_FP32 */
	uint32_t m, k, n;     /* GEMM tile shape: C[m x n] (+)= A[m x k] B[k x n] */
	uint32_t a_stride;    /* bytes between rows of A in the scratchpad */
	uint32_t b_stride;    /* bytes between rows of B in the scratchpad */
	uint32_t c_stride;    /* bytes between rows of C in the accumulator */
	int out_type;         /* mout: enum npu_dtype written to the scratchpad */
	float out_scale;      /* mout: multiply before rounding */
	int32_t out_zp;       /* mout: zero point added after scaling */
	int out_act;          /* mout: 0 none, 1 relu, 2 gelu, 3 silu */
	uint32_t out_stride;  /* mout: bytes between output rows */
	uint32_t out_fuse;    /* mout: MTX_FUSE_* bits (per-column stages) */
	uint64_t out_par;     /* mout: per-column parameter table (spm) */
	int64_t inc[4];       /* post-increments ia, ib, ic, io (control
				 unit only; MTX_INC_*) */
};

/* mout's per-column stages (mset ofuse bits, isa/names.def). */
enum { MTX_FUSE_BIAS = 1, MTX_FUSE_CHAN = 2, MTX_FUSE_ALL = 3 };
/* Indices of mtx_cfg.inc: the mset ia, ib, ic, io increments. */
enum { MTX_INC_A, MTX_INC_B, MTX_INC_C, MTX_INC_O };
/* mout activations (mset oact). */
enum { MTX_ACT_NONE, MTX_ACT_RELU, MTX_ACT_GELU, MTX_ACT_SILU, MTX_N_ACTS };

enum mtx_kind {
	MTX_PRELOAD,    /* load the stationary operand (B in WS, A in IS) */
	MTX_MUL,        /* C = A B (one fold) */
	MTX_MUL_ACC,    /* C += A B */
	MTX_OUT,        /* acc tile -> scratchpad with act/requant */
};

struct mtx_cmd {
	enum mtx_kind kind;
	uint64_t a;           /* PRELOAD: stationary operand; MUL: A (spm) */
	uint64_t b;           /* MUL: B (spm) */
	uint64_t c;           /* MUL: C (acc); OUT: source (acc) */
	uint64_t d;           /* OUT: destination (spm) */
	struct mtx_cfg cfg;
};

/* Vector unit configuration (vset fields), snapshotted per command. */
struct vec_cfg {
	int type;             /* element type of sources */
	int out_type;         /* element type of the destination (conversions) */
	uint32_t len;         /* elements per row */
	uint32_t rows;        /* rows */
	uint32_t d_stride;    /* bytes between destination rows */
	uint32_t s1_stride;   /* bytes between rows of source 1 */
	uint32_t s2_stride;   /* bytes between rows of source 2 (and 3) */
	int d_mem, s_mem;     /* MEM_SPM or MEM_ACC for destination / sources */
	float scale;          /* quantize/dequantize scale */
	int32_t zp;           /* quantize/dequantize zero point */
	int s2_bcast;         /* binary ops: VEC_BC_* (vset bc) */
};
/* vset bc: how source 2 of a binary op is broadcast. */
enum { VEC_BC_TILE, VEC_BC_COL, VEC_BC_ROW, VEC_N_BC };

struct vec_cmd {
	int op;               /* enum isa_op of the instruction */
	uint64_t d, s1, s2, s3; /* addresses (s3: select's second source) */
	uint64_t scalar;      /* scalar operand bits (broadcast, op with scalar) */
	struct vec_cfg cfg;
};

/* A DMA descriptor (dset fields), snapshotted by dma.start. */
struct dma_desc {
	int src_mem, dst_mem;   /* enum mem_space */
	int src_core, dst_core; /* for MEM_RSPM: the remote core */
	uint64_t dst_mask;      /* MEM_RSPM destination: multicast to every
				   core whose bit is set; 0 = dst_core */
	uint64_t src, dst;      /* base byte addresses */
	uint32_t elem_bytes;    /* bytes per innermost element */
	uint32_t shape[4];      /* elements per dimension, [0] innermost */
	int64_t src_stride[4];  /* byte stride per dimension ([0] usually elem_bytes) */
	int64_t dst_stride[4];
	int idx_mode;           /* DMA_IDX_*: dimension 1 by row indices */
	uint64_t idx;           /* scratchpad address of the int32 indices */
};
/* dset imode: indirect rows on the source (gather) or destination side. */
enum { DMA_IDX_NONE, DMA_IDX_GATHER, DMA_IDX_SCATTER, DMA_N_IDX };

struct prog_symbolizer;

struct tile_cmd {
	uint64_t pc;            /* byte address of the instruction */
	uint64_t id;            /* dispatch sequence number on this core */
	int op;                 /* enum isa_op */
	cycle_t issued;         /* cycle the control unit dispatched it
				   (trace flow arrows) */
	const struct prog_symbolizer *sym; /* its program's source lines
				   (trace), or NULL */
	union {
		struct mtx_cmd m;
		struct vec_cmd v;
		struct dma_desc d;
	} u;
};

struct unit;

/* How the control unit drives an execution unit. */
struct xu_port {
	int (*can_accept)(const struct unit *u);
	/* Take cmd at the current cycle; returns 0 or NPU_E* (a fault). */
	int (*accept)(struct unit *u, const struct tile_cmd *cmd);
	int (*idle)(const struct unit *u);
};

/*
 * Who to tell when a unit frees capacity or completes a command: the
 * control unit installs itself here.  A unit wakes it by scheduling event
 * 'kind' on 'unit' at EV_PRI_WAKE of the current cycle.
 */
struct tile_listener {
	struct unit *unit;      /* control unit to wake, NULL = nobody */
	unsigned kind;          /* its event kind for "a unit changed state" */
};

#endif
