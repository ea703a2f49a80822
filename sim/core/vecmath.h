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

#include "../../util/diag.h"
#include "../../util/num.h"

/* What an op reads and writes (drives the vector unit's traffic). */
enum vm_kind {
	VM_K_BIN,     /* d[i] = f(s1[i], s2[i]) */
	VM_K_SCALAR,  /* d[i] = f(s1[i], scalar) */
	VM_K_UNARY,   /* d[i] = f(s1[i]) */
	VM_K_SELECT,  /* d[i] = s1[i] != 0 ? s2[i] : s3[i] */
	VM_K_CONVERT, /* d[i] = f(s1[i]) in OTYPE */
	VM_K_REDUCE,  /* d[r] = reduce(s1[r][0..len)) in OTYPE */
	VM_K_TRANS,   /* ROWS x LEN -> LEN x ROWS */
	VM_K_GATHER,  /* d[r][i] = s1[idx[r][i]] */
	VM_K_SCATTER, /* d[idx[r][i]] = s1[r][i] */
	VM_K_BCAST,   /* d[r][i] = scalar */
	VM_K_BROW,    /* d[r][i] = s1[i] */
};

/* Which pipeline an op occupies (latency/interval keys in params.def). */
enum vm_class {
	VM_C_ALU,   /* core.vector.latency.alu, fully pipelined */
	VM_C_MUL,   /* core.vector.latency.mul, fully pipelined */
	VM_C_DIV,   /* core.vector.latency.div, interval.div */
	VM_C_SFU,   /* core.vector.latency.sfu, interval.sfu */
	VM_C_MOVE,  /* pure data movement: ALU latency, no arithmetic */
};

/*
 * VM_OP(name, mnemonic, kind, class, ops_per_element)
 * ops_per_element feeds the vector.ops counter (0 for data movement).
 */
#define VM_OPS(X)                                          \
	X(ADD,     "vadd",     VM_K_BIN,     VM_C_ALU,  1) \
	X(SUB,     "vsub",     VM_K_BIN,     VM_C_ALU,  1) \
	X(MUL,     "vmul",     VM_K_BIN,     VM_C_MUL,  1) \
	X(DIV,     "vdiv",     VM_K_BIN,     VM_C_DIV,  1) \
	X(MIN,     "vmin",     VM_K_BIN,     VM_C_ALU,  1) \
	X(MAX,     "vmax",     VM_K_BIN,     VM_C_ALU,  1) \
	X(ADDS,    "vadds",    VM_K_SCALAR,  VM_C_ALU,  1) \
	X(SUBS,    "vsubs",    VM_K_SCALAR,  VM_C_ALU,  1) \
	X(MULS,    "vmuls",    VM_K_SCALAR,  VM_C_MUL,  1) \
	X(MINS,    "vmins",    VM_K_SCALAR,  VM_C_ALU,  1) \
	X(MAXS,    "vmaxs",    VM_K_SCALAR,  VM_C_ALU,  1) \
	X(ABS,     "vabs",     VM_K_UNARY,   VM_C_ALU,  1) \
	X(NEG,     "vneg",     VM_K_UNARY,   VM_C_ALU,  1) \
	X(EXP,     "vexp",     VM_K_UNARY,   VM_C_SFU,  1) \
	X(LOG,     "vlog",     VM_K_UNARY,   VM_C_SFU,  1) \
	X(RSQRT,   "vrsqrt",   VM_K_UNARY,   VM_C_DIV,  1) \
	X(RCP,     "vrcp",     VM_K_UNARY,   VM_C_DIV,  1) \
	X(TANH,    "vtanh",    VM_K_UNARY,   VM_C_SFU,  1) \
	X(GELU,    "vgelu",    VM_K_UNARY,   VM_C_SFU,  1) \
	X(SILU,    "vsilu",    VM_K_UNARY,   VM_C_SFU,  1) \
	X(MOV,     "vmov",     VM_K_UNARY,   VM_C_MOVE, 0) \
	X(CMPEQ,   "vcmpeq",   VM_K_BIN,     VM_C_ALU,  1) \
	X(CMPLT,   "vcmplt",   VM_K_BIN,     VM_C_ALU,  1) \
	X(CMPLE,   "vcmple",   VM_K_BIN,     VM_C_ALU,  1) \
	X(SEL,     "vsel",     VM_K_SELECT,  VM_C_ALU,  1) \
	X(REDSUM,  "vredsum",  VM_K_REDUCE,  VM_C_ALU,  1) \
	X(REDMAX,  "vredmax",  VM_K_REDUCE,  VM_C_ALU,  1) \
	X(REDMIN,  "vredmin",  VM_K_REDUCE,  VM_C_ALU,  1) \
	X(CVT,     "vcvt",     VM_K_CONVERT, VM_C_ALU,  1) \
	X(QUANT,   "vquant",   VM_K_CONVERT, VM_C_MUL,  1) \
	X(DEQUANT, "vdequant", VM_K_CONVERT, VM_C_MUL,  1) \
	X(TRANS,   "vtrans",   VM_K_TRANS,   VM_C_MOVE, 0) \
	X(GATHER,  "vgather",  VM_K_GATHER,  VM_C_MOVE, 0) \
	X(SCATTER, "vscatter", VM_K_SCATTER, VM_C_MOVE, 0) \
	X(BCAST,   "vbcast",   VM_K_BCAST,   VM_C_MOVE, 0) \
	X(BROW,    "vbrow",    VM_K_BROW,    VM_C_MOVE, 0)

enum vm_op {
#define VM_ENUM(n, m, k, c, o) VM_##n,
	VM_OPS(VM_ENUM)
#undef VM_ENUM
	VM_N_OPS
};

struct vm_op_info {
	const char *mnemonic;  /* ISA mnemonic ("vadd") */
	enum vm_kind kind;     /* operand shape */
	enum vm_class cls;     /* pipeline */
	int ops_per_elem;      /* arithmetic ops per element */
};
extern const struct vm_op_info vm_op_info[VM_N_OPS];

/* Look an op up by ISA mnemonic; -1 if it is not a vector op. */
int vm_op_from_mnemonic(const char *m);

/* Numeric context of one instruction (the vset snapshot that matters). */
struct vm_cfg {
	enum npu_dtype type;     /* TYPE: source element type */
	enum npu_dtype out_type; /* OTYPE: result of cvt/quant/dequant/reductions */
	uint32_t scalar;         /* scalar operand bits, in TYPE */
	float scale;             /* SCALE of vquant/vdequant */
	int32_t zp;              /* ZP of vquant/vdequant */
	enum num_ovf fp8_ovf;    /* rounding into fp8: saturate or not */
};

/* Type of the elements an op writes (TYPE or OTYPE). */
enum npu_dtype vm_dst_type(enum vm_op op, const struct vm_cfg *c);
/* Type of source operand k (1..3) of an op (s2 of vgather: int32). */
enum npu_dtype vm_src_type(enum vm_op op, const struct vm_cfg *c, int k);

/* Element i of buffer p. */
struct vm_src {
	const uint8_t *p;  /* buffer (NULL when the op does not read it) */
	uint64_t i;        /* index of the first element */
};

/*
 * Elementwise ops (kinds BIN, SCALAR, UNARY, SELECT, CONVERT, BCAST, and
 * MOV/BROW as copies): n results written to d from element di on.  Sources
 * are read before the matching destination element is written, so d may
 * alias a source exactly (in place), not partially.
 */
void vm_map(enum vm_op op, const struct vm_cfg *c, uint64_t n, uint8_t *d,
	    uint64_t di, struct vm_src s1, struct vm_src s2, struct vm_src s3);

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
	enum vm_op op;        /* VM_REDSUM / VM_REDMAX / VM_REDMIN */
	enum npu_dtype type;  /* source type */
	int lanes;            /* lane-group width */
	int n_groups;         /* groups folded so far */
	float f;              /* running fp32 result (float types) */
	int64_t i;            /* running integer result (int types) */
};

void vm_red_init(struct vm_red *r, enum vm_op op, enum npu_dtype type,
		 int lanes);
/* Fold one lane group of n (1 <= n <= lanes) elements starting at src. */
void vm_red_group(struct vm_red *r, struct vm_src src, uint32_t n);
/* The result bits in c->out_type (0 converted if no group was folded). */
uint32_t vm_red_result(const struct vm_red *r, const struct vm_cfg *c);
/* Whole row of n elements: init, groups of 'lanes', result. */
uint32_t vm_reduce(enum vm_op op, const struct vm_cfg *c, int lanes,
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
int vm_exec(enum vm_op op, const struct vm_cfg *c, const struct vm_tile *t,
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
