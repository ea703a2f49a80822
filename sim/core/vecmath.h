/*
 * vecmath.h - functional (untimed), bit-exact semantics of every vector
 * instruction: what values the vector unit writes, not when.
 *
 * The vector datapath is fp32 for float work and 64-bit-wide integer ALUs
 * for integer work:
 *   - float sources are decoded exactly into fp32 (num_decode_f32), every
 *     operation rounds its fp32 result RNE, and the result is rounded once
 *     more, RNE, into the destination type (num_encode).  For add, sub, mul
 *     and div this double rounding is harmless: fp32 carries 24 >= 2p+2 bits
 *     for fp16 (p=11), bf16 (p=8) and fp8, so the result equals the correctly
 *     rounded operation in the narrow type (Figueroa, "When is double
 *     rounding innocuous?", SIGNUM Newsl. 30(3), 1995).
 *   - integer sources are exact int64 values; add/sub/mul/abs/neg/div
 *     saturate to the type's range (no wraparound anywhere in the vector
 *     unit), as NPU vector units do for quantised int8 work.
 *   - transcendental functions (exp, log, rsqrt, rcp, tanh, gelu, silu) are
 *     the documented table + polynomial / Newton-Raphson approximations of
 *     vm_exp_f32() etc. below, on every element type (integers are converted
 *     to fp32, evaluated, rounded back RNE with saturation).
 * docs/numerics.md "Vector unit" has every rule and the measured error of
 * each approximation.
 *
 * Rows are addressed as (buffer, first element index) so int4 rows may
 * start on either nibble.  The caller (the vector unit, or vm_exec for a
 * whole instruction) owns addressing, strides and bounds.
 */
#ifndef NPU_VECMATH_H
#define NPU_VECMATH_H

#include <stdint.h>

#include "../../isa/isa.h"
#include "../../util/diag.h"
#include "../../util/num.h"

/*
 * Vector instructions are named by their ISA op (ISA_OP_VADD ...): what
 * each reads and writes (its kind) and which pipeline it occupies (its
 * latency class) are columns of isa/opcodes.def, so adding a vector op is
 * one row there plus its handler exec_<ID> in vecmath.c (a variant that
 * only takes an operand from elsewhere names its base instead: vadds is
 * vadd's handler with s2 = x[rs2]).
 *
 * The kinds under the short names this module and the vector unit use:
 * VM_K_<ID> == ISA_VK_<ID>, expanded from names.def VKIND, not listed.
 */
enum vm_kind {
#define VKIND(id, name, s1, s2, s3, d, doc) VM_K_##id = ISA_VK_##id,
#include "../../isa/names.def"
};

/* The operand kind of a vector op (VM_K_NONE for any other op). */
static inline enum vm_kind vm_kind_of(enum isa_op op)
{
	return (enum vm_kind)isa_op_info[op].vkind;
}

/*
 * Arithmetic operations per element, for the vector.ops counter: 1, or 0
 * for pure data movement (latency class move: vmov, vtrans, vgather,
 * vscatter, vbcast, vbrow).
 */
static inline int vm_ops_per_elem(enum isa_op op)
{
	return isa_op_info[op].lat != ISA_LAT_MOVE;
}

/* Numeric context of one instruction (the vset snapshot that matters). */
struct vm_cfg {
	enum npu_dtype type;     /* TYPE: source element type */
	enum npu_dtype out_type; /* OTYPE: result of cvt/quant/dequant/reductions */
	uint32_t scalar;         /* scalar operand bits, in TYPE */
	float scale;             /* SCALE of vquant/vdequant */
	int32_t zp;              /* ZP of vquant/vdequant */
	enum num_ovf fp8_ovf;    /* rounding into fp8: saturate or not */
	int64_t step;            /* viota's row step: x[rs1], all 64 bits */
};

/* The dtype an element-type column of names.def VKIND names. */
enum npu_dtype vm_elem_type(enum isa_vetype e, enum npu_dtype type,
			    enum npu_dtype out_type);
/* Type of the elements an op writes (TYPE or OTYPE: its d column). */
enum npu_dtype vm_dst_type(enum isa_op op, const struct vm_cfg *c);
/* Type of source operand k (1..3) of an op (s2 of vgather: int32). */
enum npu_dtype vm_src_type(enum isa_op op, const struct vm_cfg *c, int k);

/* Element i of buffer p. */
struct vm_src {
	const uint8_t *p;  /* buffer (NULL when the op does not read it) */
	uint64_t i;        /* index of the first element */
};

/* Where an element lies in its tile (only viota's values depend on it). */
struct vm_at {
	uint64_t r;        /* row */
	uint64_t i;        /* index in the row */
};

/*
 * Elementwise ops (kinds BIN, SCALAR, UNARY, SELECT, CONVERT, BCAST, and
 * BROW as a copy): n results written to d from element di on, for the
 * tile's elements at, at + 1, ... of one row.  Sources are read before the
 * matching destination element is written, so d may alias a source
 * exactly (in place), not partially.
 */
void vm_map(enum isa_op op, const struct vm_cfg *c, struct vm_at at,
	    uint64_t n, uint8_t *d, uint64_t di, struct vm_src s1,
	    struct vm_src s2, struct vm_src s3);

/*
 * Reductions.  The hardware reduction tree: a row is consumed in lane
 * groups of 'lanes' elements (the last group may be partial).  Within a
 * group, a binary tree over the lane slots combines slots (2k, 2k+1), then
 * pairs of those, and so on (log2 levels; an empty slot passes its partner
 * through unchanged).  Group results are then folded into the running
 * result in group order: acc = op(acc, group), starting from group 0.
 * Float sums round in fp32 at every node; integer sums use 32-bit
 * wrapping adders; max/min propagate NaN and order -0 < +0.  The result is
 * rounded/saturated into OTYPE at the end.
 */
struct vm_red {
	enum isa_op op;       /* ISA_OP_VREDSUM, VREDMAX or VREDMIN */
	enum npu_dtype type;  /* source type */
	int lanes;            /* lane-group width */
	int n_groups;         /* groups folded so far */
	uint32_t v;           /* running result: fp32 bits (float types) or a
				 32-bit integer (int types: sums wrap) */
};

void vm_red_init(struct vm_red *r, enum isa_op op, enum npu_dtype type,
		 int lanes);
/* Fold one lane group of n (1 <= n <= lanes) elements starting at src. */
void vm_red_group(struct vm_red *r, struct vm_src src, uint32_t n);
/* The result bits in c->out_type (0 converted if no group was folded). */
uint32_t vm_red_result(const struct vm_red *r, const struct vm_cfg *c);
/* Whole row of n elements: init, groups of 'lanes', result. */
uint32_t vm_reduce(enum isa_op op, const struct vm_cfg *c, int lanes,
		   uint64_t n, struct vm_src src);

/*
 * One whole instruction over a ROWS x LEN tile (untimed reference of the
 * vector unit).  Strides are in bytes between row starts; 0 means dense,
 * i.e. the row's own size in bytes (vm_row_bytes: int4 rows of odd length
 * are padded to a whole byte, so every row starts on a byte).  Reductions
 * write one OTYPE element per row (a destination row of length 1); vtrans
 * writes LEN rows of ROWS elements.  For vgather, s1 is a flat element
 * array of s1_elems elements and s2 holds int32 indices; for vscatter, d is
 * a flat array of d_elems elements and s2 holds indices.  Returns 0, or
 * NPU_ERANGE for an index outside [0, *_elems) (*bad_index set to it);
 * nothing is written after the bad element.
 */
struct vm_tile {
	uint8_t *d;             /* destination base */
	const uint8_t *s1, *s2, *s3; /* source bases (NULL if unused) */
	uint64_t d_stride;      /* bytes between destination rows */
	uint64_t s1_stride;     /* bytes between rows of s1 */
	uint64_t s2_stride;     /* bytes between rows of s2 and s3 */
	uint32_t rows, len;     /* ROWS x LEN */
	int lanes;              /* lane-group width (reductions) */
	uint64_t s1_elems;      /* vgather: elements addressable at s1 */
	uint64_t d_elems;       /* vscatter: elements addressable at d */
};
int vm_exec(enum isa_op op, const struct vm_cfg *c, const struct vm_tile *t,
	    int64_t *bad_index) NPU_WUR;

/* Bytes between rows of 'len' elements of type t with a vset stride
 * (0 = dense).  The vector unit uses the same rule for its SRAM requests. */
uint64_t vm_row_bytes(enum npu_dtype t, uint64_t stride, uint32_t len);

/* ---- the fp32 function units (also used by the tests) ------------------ */

float vm_exp_f32(float x);
float vm_log_f32(float x);
float vm_rsqrt_f32(float x);
float vm_rcp_f32(float x);
float vm_tanh_f32(float x);
float vm_gelu_f32(float x);   /* tanh-form GELU, as x * sigmoid(2u) */
float vm_silu_f32(float x);
/* IEEE 754-2019 maximum / minimum: NaN-propagating, -0 < +0. */
float vm_max_f32(float a, float b);
float vm_min_f32(float a, float b);

#endif
