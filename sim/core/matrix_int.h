/*
 * matrix_int.h - internals of the matrix engine, shared by its files:
 *   matrix.c        the unit: accept, placement, the sequencer's passes,
 *                   completion, counters
 *   matrix_ff.c     the fast-forward engines (applied sequencer passes)
 *   matrix_seq.c    the sequencer's state: issued accesses, instructions
 *                   that can act, freezes, access effects, row buffers
 *   matrix_check.c  command checks, streams and intervals
 *   matrix_pe.c     the per-PE reference model of the array
 *   matrix_val.c    the fast model's values and its MAC kernels
 *   matrix_num.c    the numerics both models share
 * Each file calls only files below it in this list (the objects form no
 * circle): the sequencer drives both array models through struct
 * mtx_backend, and the per-PE model calls nothing but matrix_num.c.
 *
 * Structure.  One sequencer (matrix.c) places every instruction on a global
 * "array clock" (array cycles), issues the instruction's SRAM row accesses
 * at their array cycles, and freezes the clock (a global stall) when an
 * access has not completed by the array cycle that needs it.  Real time is
 * array time plus 'off', the stall accumulated so far.  What happens inside
 * the array is delegated to a backend:
 *   fast  output rows are written at the cycles the per-fold formulas give
 *         and their values are computed from the operand rows;
 *   pe    the array is stepped PE by PE every array cycle; output rows are
 *         written when the data movement delivers them.
 * Both issue reads the same way (the operand feeders are sequencers, not
 * part of the array), so both models see the same SRAM traffic iff the
 * array delivers the same outputs at the same cycles.
 *
 * Invariants:
 *   - instructions are placed in program order; array intervals [B, B+T)
 *     on the compute path never overlap; weight-path intervals (double-
 *     buffered preloads) overlap compute intervals only;
 *   - every access op has issue <= deadline; the clock never executes array
 *     cycle d before every op with deadline <= d has completed;
 *   - off only grows, and only by freezes at deadlines that were overdue at
 *     the time (causal: nothing already issued is moved).
 *
 * Host cost and queue depth.  With a deep control queue
 * (core.control.queue_depth) hundreds of instructions are placed ahead of
 * the array, nearly all of them idle until their interval comes.  So the
 * sequencer never walks the queue per array cycle; two indexes hold the
 * instructions that can act:
 *   due      every placed, incomplete instruction with work left, in a
 *            min-heap by (key, ord): key is its next array cycle with work
 *            (start, interval end, next static access); a cycle's work is
 *            exactly the instructions with key == that cycle, taken from
 *            the heap's top in program order and re-keyed in place;
 *   running  the started, incomplete ones, in program order (freeze
 *            accounting and the pe model's stepping look only at these).
 * Invariants: an instruction is in 'due' iff placed, not completed and
 * key != CYCLE_MAX, and its key is current (it only changes in
 * process_cycle and the fast-forward, which re-file what they touched:
 * mtx_due_rekey); an unstarted
 * instruction's key is <= its B, so the heap's top bounds every start.
 */
#ifndef NPU_MATRIX_INT_H
#define NPU_MATRIX_INT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"
#include "../engine/unit.h"

/* Dataflows: the values of mset df (isa/names.def ws, os, is), which
 * matrix.c checks equal core.matrix.dataflow's indices. */
enum mtx_df { MTX_WS = ISA_CONST_WS, MTX_OS = ISA_CONST_OS, MTX_IS = ISA_CONST_IS };

/* Which part of the engine an instruction occupies. */
enum mtx_path {
	MTX_PATH_COMPUTE, /* the array (mmul; mpre without double-buffering) */
	MTX_PATH_WEIGHT,  /* the shadow weight registers (double-buffered mpre) */
	MTX_PATH_OUT,     /* accumulator -> scratchpad path (mout) */
};

/* SRAM requestors of the engine. */
enum mtx_req {
	MTX_REQ_LEFT,  /* spm: operand rows entering the left edge */
	MTX_REQ_TOP,   /* spm: rows entering the top edge (preloads, OS B) */
	MTX_REQ_OUT,   /* spm: mout result rows */
	MTX_REQ_ACC,   /* acc: result rows (mmul) and mout source rows */
	MTX_N_REQ
};

/* A stationary tile captured by an mpre (raw elements as stored). */
struct mtx_tile {
	int refs;             /* instructions + the "latest preload" slot */
	int df;               /* dataflow it was loaded for */
	int type;             /* element type */
	uint64_t addr;        /* scratchpad address it was loaded from */
	uint32_t rows;        /* stored rows: K */
	uint32_t cols;        /* elements per row: N (WS) or M (IS) */
	uint32_t row_bytes;   /* bytes of one stored row */
	uint8_t *data;        /* rows * row_bytes, filled as reads complete */
	void *dec;            /* decoded values (fast model), lazily */
	uint32_t *wp;         /* integer types: the tile as pairs of k
				 (mtx_imac's layout), lazily */
	uint32_t wp_np;       /* its padded row length (columns) */
	uint32_t *wq;         /* int8 on a VNNI host: the tile as quads of k
				 (mtx_imac8's layout), lazily */
	int32_t *wq_sum;      /* its column sums */
	uint32_t wq_np;       /* its padded row length (a multiple of 16) */
	int wq_none;          /* a value outside int8: pairs only */
};

/*
 * A stream of row accesses of one instruction.  Op i touches row
 * r = rev ? n-1-i : i at address addr + r*stride, at the array "event"
 * cycle B + first + i: a read is issued 'lead' cycles before its event
 * (the event is its deadline: the array consumes it then), a write is
 * issued at its event and must complete 'lead' cycles later.  lead =
 * latency + cycles the row needs alone - 1, so a row that meets no other
 * requestor never stalls the array.
 */
struct mtx_stream {
	int mem;              /* MEM_SPM or MEM_ACC */
	int write;            /* 1 write, 0 read */
	int req;              /* enum mtx_req */
	uint32_t n;           /* rows */
	uint32_t next;        /* ops issued so far */
	int rev;              /* rows in reverse order (preloads) */
	int dyn;              /* writes emitted by the array model (pe) */
	int64_t first;        /* event cycle of op 0, relative to B */
	uint32_t per;         /* ops per event cycle: op i at first + i/per
				 (a packed array takes p rows of K a cycle) */
	uint32_t g;           /* rows per op: p adjacent rows of a dense
				 packed operand are one access (else 1) */
	uint32_t nops;        /* accesses: ceil(n / g) */
	uint64_t addr;        /* row 0 */
	uint64_t stride;      /* bytes between rows */
	uint32_t bytes;       /* bytes per row */
	uint32_t lead;        /* see above */
	uint8_t *buf;         /* reads: snapshot of each row at completion;
				 writes: each row's values (acc: the raw
				 int32/fp32 sums to store or add); NULL in
				 a timing-only run */
	size_t buf_cap;       /* bytes allocated at buf */
};

/* One accepted instruction. */
struct mtx_insn {
	struct tile_cmd cmd;      /* as dispatched */
	int kind;                 /* enum mtx_kind */
	int df;                   /* enum mtx_df */
	int in_type, acc_type;    /* element types */
	uint32_t m, k, n;         /* GEMM shape */
	enum mtx_path path;       /* what it occupies */
	int placed;               /* B is fixed */
	int started;              /* the clock reached B */
	int array_done;           /* the clock passed B+T-1 */
	int completed;            /* every access done, counters taken */
	int needs_drain;          /* place only when nothing is in flight */
	int swap;                 /* mmul: swaps the shadow tile in at B */
	cycle_t b, t;             /* array interval [b, b+t) */
	cycle_t real_start;       /* real cycle of b */
	cycle_t array_end_real;   /* real cycle after b+t-1 */
	cycle_t last_done;        /* latest access completion */
	uint64_t busy_add;        /* busy array cycles it adds (union) */
	uint64_t pre_add;         /* preload cycles not hidden */
	uint64_t stall;           /* freeze cycles during its interval */
	int n_st;                 /* streams used */
	int w_st;                 /* index of the result stream, -1 none */
	struct mtx_stream st[3];  /* left/top reads, result writes */
	uint32_t ops_left;        /* accesses not yet completed */
	struct mtx_tile *tile;    /* mpre: being filled; mmul: used */
	void *dec;                /* fast model: decoded operands (OS) */
	uint32_t *wp;             /* fast model, integer OS: B as pairs of k */
	int16_t *at16;            /* ... and A^T decoded (K x M) */
	uint32_t wp_np;           /* padded row length of wp */
	void *pe;                 /* pe model: per-instruction state */
	struct mtx_insn *prev, *next; /* queue, program order */
	uint64_t ord;             /* program order (accept count), heap tie */
	cycle_t key;              /* next array cycle with work, CYCLE_MAX none */
	size_t due_pos;           /* index in m->due, MTX_NOT_DUE if absent */
	struct mtx_insn *act_next; /* this cycle's acting list (process_cycle) */
	struct mtx_insn *run_prev, *run_next; /* running list, program order */
};

/* due_pos of an instruction that is not in the due heap. */
#define MTX_NOT_DUE ((size_t)-1)

/* One issued access. */
struct mtx_op {
	struct mtx_insn *in;      /* owner (valid until the op completes) */
	int st;                   /* stream index */
	uint32_t row;             /* row of the stream */
	cycle_t deadline;         /* array cycle that needs it complete */
	cycle_t done_at;          /* real completion cycle */
	int done;                 /* completed */
	uint64_t seq;             /* issue order, heap tie-break */
	struct mtx_op *free_next; /* free list */
};

struct mtx;

/* What a model of the array provides to the sequencer. */
struct mtx_backend {
	const char *name;             /* "fast", "pe" (core.matrix.model) */
	int (*init)(struct mtx *m);   /* its state in m->pe, at mtx_new */
	void (*fini)(struct mtx *m);  /* ... freed (also after a failed init) */
	/* instruction placed (b, t, streams fixed) */
	int (*place)(struct mtx *m, struct mtx_insn *in);
	/* next array cycle at which step() must run, CYCLE_MAX = none; it
	 * need only consider started instructions (m->run_head): the
	 * sequencer's own next cycle is never later than an unstarted
	 * instruction's B (see "Host cost" above) */
	cycle_t (*next_step)(const struct mtx *m);
	/* run array cycle x (its reads have arrived) */
	int (*step)(struct mtx *m, cycle_t x);
	/* after step(x): the next result row whose write issues at array
	 * cycle x (pe: the data movement, not a formula, decides when), in
	 * stream order; 1 and *in, *row set, or 0 when there is none left.
	 * The sequencer issues the write, so the array model never calls
	 * into it (NULL: no dynamic writes) */
	int (*row_out)(struct mtx *m, cycle_t x, struct mtx_insn **in,
		       uint32_t *row);
	/* fill the result row's values in its stream buffer (at completion) */
	int (*row_values)(struct mtx *m, struct mtx_insn *in, uint32_t row);
	/* instruction completed: drop per-instruction state */
	void (*insn_done)(struct mtx *m, struct mtx_insn *in);
};

extern const struct mtx_backend mtx_fast_backend;
extern const struct mtx_backend mtx_pe_backend;

/* A segment of the busy union, array cycles [lo, hi). */
struct mtx_seg { cycle_t lo, hi; };

/* One decoded element: int32 for integer types, fp32 for the floats
 * (matrix_num.c, mtx_decode). */
union mtx_val { int32_t i; float f; };

/* Eight 32-bit lanes (GCC/clang vector extensions; lowered to SSE2 on the
 * baseline x86-64 target): the functional inner loops (matrix_val.c's
 * mac_row_*, the accumulator's adder). */
typedef uint32_t mtx_v8u32 __attribute__((vector_size(32)));
typedef float mtx_v8f32 __attribute__((vector_size(32)));

/* Row buffers kept for reuse (a fresh 128 KiB calloc per instruction
 * was a zeroing and a page fault per 4 KiB). */
#define MTX_POOL 8

/* The unit. */
struct mtx {
	struct unit u;                /* common header */
	const struct mtx_backend *be; /* array model */
	struct mem_port port[MTX_N_REQ]; /* one per requester role (LEFT, TOP,
					    OUT on the scratchpad; ACC) */
	uint8_t *data[MTX_N_REQ];     /* each port's functional bytes */
	struct tile_listener l;       /* control unit to wake */
	uint32_t rows, cols;          /* R, C */
	uint32_t pipe;                /* core.matrix.pipeline_latency */
	int db;                       /* weight double-buffering */
	int os_drain;                 /* explicit OS output drain */
	uint32_t pack[DT_N];          /* MACs per PE per cycle by dtype */
	int depth;                    /* queue depth */
	/* program-order state, updated at accept */
	struct mtx_tile *cur_tile;    /* latest preloaded tile */
	int prev_kind;                /* kind of the last accepted insn */
	/* queue */
	struct mtx_insn *head, *tail; /* accepted, not completed */
	struct mtx_insn *unplaced;    /* first not yet placed */
	uint64_t n_accepted;          /* instructions accepted (next ord) */
	struct mtx_insn **due;        /* heap of instructions by (key, ord) */
	size_t n_due, cap_due;        /* entries / allocated */
	struct mtx_insn *run_head, *run_tail; /* started, not completed */
	int n_waiting;                /* accepted, not started */
	int n_inflight;               /* placed, not completed */
	/* placement, in array cycles */
	cycle_t compute_free;         /* end of the last compute interval */
	cycle_t weight_free;          /* end of the last weight interval */
	cycle_t last_swap;            /* b of the last mmul that swapped */
	int shadow_pending;           /* db: a placed mpre is not swapped in */
	cycle_t shadow_end;           /* ... and its load ends here */
	struct mtx_seg *segs;         /* busy union of in-flight intervals */
	int n_segs, cap_segs;         /* segments / allocated */
	/* sequencer */
	cycle_t off;                  /* real = array + off */
	int frozen;                   /* waiting for an overdue access */
	cycle_t frozen_at;            /* its deadline */
	uint32_t seq_gen;             /* cancels stale sequencer events */
	cycle_t seq_when;             /* live sequencer event, CYCLE_MAX none */
	struct mtx_op **heap;         /* issued ops by (deadline, seq) */
	size_t n_heap, cap_heap;      /* ops in the heap / allocated */
	uint64_t op_seq;              /* op counter */
	struct mtx_op *free_ops;      /* recycled ops */
	/* hooks */
	mtx_span_fn span_fn;          /* per-instruction span hook */
	void *span_ctx;               /* its context */
	union mtx_val *tmp;           /* fast model: one decoded row */
	uint32_t n_tmp;               /* its capacity */
	struct mtx_buf {
		uint8_t *p;           /* a row buffer */
		size_t cap;           /* its bytes */
	} pool[MTX_POOL];             /* row buffers of completed
					 instructions, for the next ones */
	int n_pool;                   /* buffers in the pool */
	uint32_t *itmp;               /* fast model, integers: pairs of one
					 row and its sums */
	uint32_t n_itmp;              /* its capacity */
	void *pe;                     /* backend state */
};

/* ---- the unit (matrix.c) ---- */

/*
 * Event kinds of the unit.
 * MTX_EV_SEQ: a sequencer pass (arg unused); MTX_EV_DONE: an instruction
 * completes (arg = the struct mtx_insn pointer, used only as a handle).
 */
enum mtx_ev { MTX_EV_SEQ = 1, MTX_EV_DONE = 2 };

/* ---- ops and where op i of a stream lies (inline: once per access) ---- */

/* First row of op i of a stream (g rows per op, in reverse if rev). */
static inline uint32_t mtx_op_row(const struct mtx_stream *s, uint32_t i)
{
	return s->g > 1 ? i * s->g : s->rev ? s->n - 1 - i : i;
}

/* The memory request of the op whose first row is 'row', for cycle t. */
static inline void mtx_op_req(const struct mtx_stream *s, uint32_t row,
			      cycle_t t, struct mem_req *r)
{
	uint32_t nr = s->n - row < s->g ? s->n - row : s->g;

	memset(r, 0, sizeof(*r));
	r->addr = s->addr + (uint64_t)row * s->stride;
	r->bytes = nr * s->bytes;
	r->write = (uint8_t)s->write;
	r->when = t;
}

/* Event offset of op i: i, or i/per for p rows a cycle (no division in
 * the common unpacked case: this runs once per row access). */
static inline uint32_t mtx_op_event(const struct mtx_stream *s, uint32_t i)
{
	return s->per == 1 ? i : i / s->per;
}

/*
 * Array cycle at which op i of a static stream issues.
 * Reads: event - lead, so that a row meeting no contention completes
 * exactly at its event (prefetch hides the SRAM latency).  Writes: the
 * event itself.
 */
static inline cycle_t mtx_op_issue_cycle(const struct mtx_insn *in,
					 const struct mtx_stream *s,
					 uint32_t i)
{
	int64_t ev = (int64_t)in->b + s->first + (int64_t)mtx_op_event(s, i);

	return (cycle_t)(s->write ? ev : ev - (int64_t)s->lead);
}

/*
 * A new op of stream si of in, row 'row', due at array cycle 'deadline',
 * 'seq' in issue order: a recycled one if there is one (NULL when out of
 * memory).  The caller pushes it (issued) or files it itself.  Inline:
 * once per access, in the per-cycle path's innermost step.
 */
static inline struct mtx_op *mtx_op_new(struct mtx *m, struct mtx_insn *in,
					int si, uint32_t row,
					cycle_t deadline, uint64_t seq)
{
	struct mtx_op *op = m->free_ops;

	if (op)
		m->free_ops = op->free_next;
	else if (!(op = malloc(sizeof(*op))))
		return NULL;
	op->in = in;
	op->st = si;
	op->row = row;
	op->deadline = deadline;
	op->done = 0;
	op->done_at = CYCLE_MAX;
	op->seq = seq;
	op->free_next = NULL;
	return op;
}

/* ---- sequencer state (matrix_seq.c) ---- */

/* Issued ops: push (NPU_ENOMEM) and pop the earliest (deadline, seq). */
int mtx_heap_push(struct mtx *m, struct mtx_op *op) NPU_WUR;
void mtx_heap_pop(struct mtx *m);
/* The functional side of op (si, row) of in, at its completion. */
int mtx_op_effect(struct mtx *m, struct mtx_insn *in, int si,
		  uint32_t row) NPU_WUR;
/* A stream's row buffer (all its rows) from the pool; a buffer back. */
int mtx_stream_buf(struct mtx *m, struct mtx_stream *s) NPU_WUR;
void mtx_buf_put(struct mtx *m, uint8_t *p, size_t cap);
/* The due heap: file a placed instruction, take one out, re-file one
 * whose key grew, collect those with key <= x (program order) into *act
 * (start with i = 0 and *act NULL). */
int mtx_due_push(struct mtx *m, struct mtx_insn *in) NPU_WUR;
void mtx_due_remove(struct mtx *m, struct mtx_insn *in);
void mtx_due_rekey(struct mtx *m, struct mtx_insn *in);
void mtx_due_collect(struct mtx *m, size_t i, cycle_t x,
		     struct mtx_insn **act);
/* The running list: a starting instruction in, a completed one out. */
void mtx_run_insert(struct mtx *m, struct mtx_insn *in);
void mtx_run_remove(struct mtx *m, struct mtx_insn *in);
/* Count a freeze of 'stall' cycles at array cycle d (busy, mout, idle). */
void mtx_account_freeze(struct mtx *m, cycle_t d, uint64_t stall);

/* ---- fast-forward (matrix_ff.c) ---- */

/*
 * From the pass about to run array cycle x at real cycle now: apply a
 * window of uncontended streaming at once if one starts here (*adv = 1;
 * the caller then looks for its next cycle), else *adv = 0 and the
 * caller runs x the per-cycle way.
 */
int mtx_ff_window(struct mtx *m, cycle_t x, cycle_t now, int *adv) NPU_WUR;
/*
 * The sequencer just froze at now: if it froze on a stalling result
 * stream alone, apply k of its periods (it stays frozen, resumed as
 * before by a completion, which calls done with the op as tag).
 */
int mtx_ff_stall(struct mtx *m, cycle_t now, mem_done_fn done) NPU_WUR;

/* ---- the fast model's MAC kernels (matrix_val.c) ---- */

/*
 * Integer dot products by pairs of k (matrix_val.c, "Integer MACs"):
 * out[n] = sum over p < kp of lo(ap[p]) lo(w[p][n]) + hi(ap[p]) hi(w[p][n])
 * modulo 2^32, where lo/hi are the int16 halves of a word and w has np
 * words per row (np a multiple of 8).  impl: 0 the fastest the host has,
 * 1 portable C, 2 SSE2, 3 AVX2, 4 AVX-512 VNNI (tests compare them; an
 * impl the host lacks falls back to portable C).
 */
void mtx_imac(const uint32_t *ap, uint32_t kp, const uint32_t *w,
	      uint32_t np, uint32_t *out, int impl);
/*
 * int8 x int8 by quads of k (matrix_val.c, "Int8 quads"): out[n] = sum
 * over q < kq and byte i of u(aq[q], i) s(w[q][n], i) - 128 wsum[n] modulo
 * 2^32,
 * where u / s read byte i as unsigned / signed and w has np words per row
 * (np a multiple of 16): sum_k a_k w[k][n] when aq holds a_k + 128 and
 * wsum[n] = sum_k w[k][n].  impl: 0 the fastest the host has, 1 portable
 * C, 4 AVX-512 VNNI.  mtx_imac8_fast(): 1 when the host runs it natively
 * (the simulator uses quads only then; the pairs elsewhere).
 */
void mtx_imac8(const uint32_t *aq, uint32_t kq, const uint32_t *w,
	       uint32_t np, const int32_t *wsum, uint32_t *out, int impl);
int mtx_imac8_fast(void);

/* ---- checks and streams (matrix_check.c) ---- */

/* Names of the dataflows and instruction kinds (messages, trace args). */
extern const char *const mtx_df_names[];
extern const char *const mtx_kind_names[];
/*
 * Check in->cmd against the array, the memories and the program-order
 * state (the resident tile) and build its streams and interval length;
 * 0, or NPU_EFAULT with the fault reported at the command's pc.
 */
int mtx_insn_build(struct mtx *m, struct mtx_insn *in) NPU_WUR;

/* ---- numerics of both models (matrix_num.c) ---- */

/* Raw bytes of an element type for n elements (int4 rounds up). */
uint32_t mtx_row_bytes(int type, uint32_t n);
/* Decode n raw elements of type t into v (ints as int32, floats as fp32). */
void mtx_decode(int t, const uint8_t *raw, uint32_t n, union mtx_val *v);
/* acc = acc + a*b by the accumulation rule of num.h (int or fp32). */
union mtx_val mtx_mac(int is_float, union mtx_val acc, union mtx_val a,
		      union mtx_val b);
/* mout's result row 'row' of in (requantised) into its stream buffer. */
void mtx_mout_row(const struct mtx_insn *in, uint32_t row);

/*
 * Accumulator words are stored little-endian whatever the host (num.h's
 * storage rule), so they are assembled byte by byte, never cast.
 */
static inline uint32_t mtx_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline void mtx_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* Bytes of one column's entry in mout's per-column table (opar). */
static inline uint32_t mtx_mout_entry_bytes(uint32_t fuse)
{
	return (fuse & MTX_FUSE_BIAS ? 4u : 0u) + (fuse & MTX_FUSE_CHAN ? 8u : 0u);
}

#endif
