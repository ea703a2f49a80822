/*
 * vector.c - timing and data movement of the vector unit (vector.h).
 *
 * The hardware being modelled (docs/timing.md "Vector unit" is the long
 * form):
 *   - an instruction is cut into lane groups ("beats"): row r, elements
 *     [g*L, min(LEN, (g+1)*L)).  vtrans works on blocks of L x L (one beat
 *     per source row segment of a block, the block's writes on its last
 *     beat); reductions write one element after a row's last group;
 *     vgather reads its indices first, then one element access per index;
 *     vscatter writes one element access per index;
 *   - one beat issues per cycle: its operand reads go to the SRAM at once
 *     (one requestor per operand, so their bank traffic is arbitrated like
 *     everybody else's); at most core.vector.inflight beats are between
 *     issue and retirement (the operand/result buffers), further issue waits;
 *   - beats enter the op's pipeline in order, when their reads are back, at
 *     most one per cycle and at most one per interval.* cycles within an
 *     instruction; the result write is issued latency.* cycles later (plus
 *     latency.reduce for a reduction's result); writes go back in order;
 *   - a beat retires when its writes complete (beats that write nothing
 *     when they pass the pipeline), an instruction when all its beats
 *     have retired;
 *   - the next instruction starts issuing as soon as the previous one has
 *     issued its last beat, unless it reads or writes a range the previous
 *     (still unfinished) instructions write: then it waits for them to
 *     finish (stall_raw_cycles).  Ranges are bounding byte ranges per memory.
 *
 * Values: each read copies its elements out of the SRAM when it completes
 * (into the beat's operand buffer); the beat's results are computed with
 * vecmath.c when it enters the pipeline and copied into the SRAM when its
 * write completes.
 *
 * Cost: a constant number of events per beat (one issue event, one
 * completion per SRAM access), independent of L and of idle time.
 *
 * Invariants:
 *   - beats carry global sequence numbers; [head, tail) are in flight and
 *     live in slots[seq % window]; computed beats are [head, next_compute);
 *   - instructions in q[] are in program order; only the newest may still
 *     be issuing; the oldest completes first;
 *   - every stalled cycle is counted once: SRAM lateness and RAW waits share
 *     one watermark.
 */
#include "vector.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../isa/isa.h"
#include "../engine/counters.h"
#include "../engine/unit.h"
#include "vecmath.h"

/* Event kinds. */
enum { VEC_EV_ISSUE = 1 };

/*
 * Instructions the unit holds at once (issuing + draining).
 * Only the newest instruction issues; older ones are draining beats
 * still in the window.  With inflight (W) beats in flight at most, a few
 * short instructions can be draining at once; when all 4 slots are
 * taken vec_can_accept says no and the next one waits in the control
 * unit's queue.
 */
#define VEC_MAX_INSNS 4

/* Requestor roles on each memory. */
enum { VR_S1, VR_S2, VR_S3, VR_D, VR_N };

/*
 * Bits of an SRAM tag holding the access index (the rest: beat seq).
 * The tag of an SRAM access is (beat seq << 20) | access index: 2^20
 * accesses per beat is far above the most a beat makes (a vgather's
 * L element reads plus its index read, L <= 4096), and 44 bits of
 * sequence last 1.7 x 10^13 beats.
 */
#define TAG_IDX_BITS 20
#define TAG_IDX_MASK ((UINT64_C(1) << TAG_IDX_BITS) - 1)

/* One of the two memories the unit can use. */
struct vmem {
	struct mem_port port[VR_N]; /* one per requester role: s1, s2, s3, d */
	uint8_t *data;       /* its bytes */
	uint64_t size;       /* capacity */
	int latency;         /* grant -> completion */
	cycle_t last_done[VR_N]; /* completion of each requestor's last access */
	const char *name;    /* "scratchpad" / "accumulator" */
};

/* One SRAM access of a beat: n elements from element e0 of a run at base. */
struct vacc {
	uint64_t base;       /* byte address of element 0 of the run */
	uint64_t e0;         /* first element (relative to base) */
	uint32_t n;          /* elements */
	uint32_t oi;         /* first element in the operand/result buffer */
	int opnd;            /* reads: operand buffer 0..2 */
	enum npu_dtype t;    /* element type */
	cycle_t when;        /* cycle it was issued for */
};

struct vinsn;

/*
 * One lane group in flight.
 * A beat lives in a window slot from issue to retirement; its access
 * lists and buffers belong to the slot and are reused by the next beat
 * in it (grown on demand, never shrunk).
 */
struct vbeat {
	struct vinsn *in;    /* owning instruction */
	uint64_t b;          /* beat index within the instruction */
	uint32_t r;          /* row (vtrans: source row) */
	uint64_t e0;         /* first element of the group */
	uint32_t n;          /* elements in the group */
	int last;            /* last group of its row / block */
	struct vacc *rd;     /* reads */
	struct vacc *wr;     /* writes */
	int n_rd, n_wr;      /* used */
	int cap_rd, cap_wr;  /* allocated */
	int rd_left;         /* reads not yet complete */
	int wr_left;         /* writes not yet complete */
	int phase;           /* vgather: 0 = waiting for the indices */
	int reads_done;      /* operands all in the buffers */
	int retired;         /* writes complete */
	cycle_t rd_done_at;  /* cycle the last read completed */
	uint8_t *op[3];      /* operand buffers (lanes x 4 bytes) */
	uint8_t *out;        /* result buffer */
	size_t out_cap;      /* its size in bytes */
};

/* A footprint: a bounding byte range in one memory (mem < 0: none). */
struct vfp {
	int mem;             /* 0 spm, 1 acc, -1 unused */
	uint64_t lo, hi;     /* [lo, hi) */
};

/* One accepted instruction. */
struct vinsn {
	struct tile_cmd cmd; /* as accepted */
	enum isa_op op;      /* the instruction (a vector op) */
	enum vm_kind kind;   /* operand shape */
	struct vm_cfg vc;    /* numeric context */
	enum npu_dtype st;   /* source type */
	enum npu_dtype dt;   /* destination type */
	enum npu_dtype t2;   /* type of operand 2 (int32 indices for gather/scatter) */
	int lat;             /* pipeline latency */
	int ii;              /* issue interval per beat */
	struct vmem *sm;     /* source memory */
	struct vmem *dm;     /* destination memory */
	uint64_t s1_rb;      /* bytes between rows of s1 */
	uint64_t s2_rb;      /* bytes between rows of s2 and s3 */
	uint64_t d_rb;       /* bytes between destination rows */
	uint32_t groups;     /* lane groups per row */
	uint64_t n_beats;    /* beats in total */
	uint64_t issued;     /* beats issued */
	uint64_t retired;    /* beats retired */
	int waiting;         /* held back by an overlapping older instruction */
	cycle_t accepted;    /* cycle accept() was called */
	cycle_t wait_from;   /* cycle it started waiting */
	struct vfp rd_fp[3]; /* read footprints */
	struct vfp wr_fp;    /* write footprint */
	struct vm_red red;   /* running reduction of the current row */
	uint8_t *buf;        /* vbrow row buffer / vtrans block buffer */
};

struct vec {
	struct unit u;                /* common header (first) */
	int lanes;                    /* L */
	int lat[ISA_N_LATS];          /* latency per class (alu mul div
					 sfu move; the others unused) */
	int ii[ISA_N_LATS];           /* issue interval per class */
	int lat_red;                  /* reduction tree latency */
	int window;                   /* beats in flight at most */
	enum num_ovf fp8;             /* fp8 result conversion mode */
	struct vmem mem[2];           /* scratchpad, accumulator */
	struct tile_listener l;       /* control unit to wake */
	struct vinsn *q[VEC_MAX_INSNS]; /* instructions, oldest first */
	int qn;                       /* how many */
	struct vbeat *slots;          /* window ring */
	uint64_t head, tail;          /* in-flight beat sequence range */
	uint64_t next_compute;        /* next beat to enter the pipeline */
	cycle_t last_tc;              /* cycle the last beat entered it */
	const struct vinsn *last_in;  /* and its instruction */
	int any_tc;                   /* a beat has entered it */
	int issue_pending;            /* an issue event is scheduled ... */
	cycle_t issue_at;             /* ... for this cycle */
	cycle_t last_issue;           /* cycle of the last beat issue */
	int issued_any;               /* a beat has been issued */
	cycle_t busy_start;           /* start of the current busy period */
	cycle_t stall_wm;             /* stall cycles counted up to here */
};

/* ---- small helpers ----------------------------------------------------- */

static uint64_t umin64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static uint64_t umax64(uint64_t a, uint64_t b) { return a > b ? a : b; }

static struct vbeat *slot(struct vec *v, uint64_t seq)
{
	return &v->slots[seq % (uint64_t)v->window];
}

/*
 * Byte range [lo, lo+bytes) of an access.
 * Rounded out to whole bytes: an int4 run starting or ending on an odd
 * nibble occupies (and, for a write, rewrites) the partial byte.  The
 * SRAM model works in bytes, so the bank traffic is that of the bytes.
 */
static void acc_bytes(const struct vacc *a, uint64_t *lo, uint32_t *bytes)
{
	uint64_t bits = (uint64_t)dtype_bits(a->t);
	uint64_t b0 = a->e0 * bits / 8, b1 = ((a->e0 + a->n) * bits + 7) / 8;

	*lo = a->base + b0;
	*bytes = (uint32_t)(b1 - b0);
}

/* Append an access to a beat's read or write list. */
static int push_acc(struct vacc **v, int *n, int *cap, const struct vacc *a)
{
	if (*n == *cap) {
		int nc = *cap ? *cap * 2 : 4;
		struct vacc *nv = realloc(*v, (size_t)nc * sizeof(*nv));

		if (!nv)
			return NPU_ENOMEM;
		*v = nv;
		*cap = nc;
	}
	(*v)[(*n)++] = *a;
	return 0;
}

/*
 * Count the part of [from, to) not yet counted as a stall of 'c'.
 * stall_wm is a high-water mark over every stall source: cycles already
 * charged (to any reason) are never charged again, so each stalled
 * cycle counts exactly once and stall_cycles is the sum of the reasons.
 */
static void stall(struct vec *v, cycle_t from, cycle_t to, enum ctr_id c)
{
	from = umax64(from, v->stall_wm);
	if (to > from) {
		v->u.ctr[c] += to - from;
		v->u.ctr[CTR_VECTOR_STALL_CYCLES] += to - from;
		v->stall_wm = to;
	}
}

static int fault(struct vec *v, const struct vinsn *in, const char *fmt, ...)
	NPU_PRINTF(3, 4);

/*
 * A runtime fault: "core N pc 0x.. cycle N: error: vadd: ..." and
 * NPU_EFAULT, which ends the run with exit status 3.
 */
static int fault(struct vec *v, const struct vinsn *in, const char *fmt, ...)
{
	struct diag *d = eng_diag(v->u.eng), quiet;
	char msg[256];
	va_list ap;

	if (!d) { /* no sink installed (unit tests): keep the code only */
		diag_init(&quiet, NULL);
		d = &quiet;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return diag_error(d,
			  diag_at_run(v->u.core, in->cmd.pc, eng_now(v->u.eng)),
			  NPU_EFAULT, "%s: %s", isa_op_info[in->op].name, msg);
}

/*
 * Wake the control unit: tile.h's tile_notify contract (an EV_PRI_WAKE
 * event of the listener's kind at the current cycle), done in place.
 */
static int notify(struct vec *v)
{
	if (!v->l.unit)
		return 0;
	return eng_schedule(v->u.eng, eng_now(v->u.eng), EV_PRI_WAKE,
			    v->l.unit, v->l.kind, 0);
}

/*
 * Make sure an instruction issue event is pending for cycle t.
 * At most one pending issue event, at the earliest cycle asked for: an
 * event for a later cycle finds issue() already done (or re-kicks), so
 * duplicates would only cost events, never change the timing.
 */
static int kick(struct vec *v, cycle_t t)
{
	if (v->issue_pending && v->issue_at <= t)
		return 0;
	v->issue_pending = 1;
	v->issue_at = t;
	return eng_schedule(v->u.eng, t, EV_PRI_ISSUE, &v->u, VEC_EV_ISSUE, 0);
}

/* ---- footprints and the in-unit RAW interlock -------------------------- */

static int fp_overlap(const struct vfp *a, const struct vfp *b)
{
	return a->mem >= 0 && a->mem == b->mem && a->lo < b->hi && b->lo < a->hi;
}

/*
 * Does 'in' touch anything an older unfinished instruction writes?
 * Only RAW and WAW need this interlock.  WAR is safe by construction:
 * beats enter the pipeline in order and a beat issues its writes only
 * after it entered, i.e. after every older beat's reads completed, so a
 * younger write can never land before an older read.
 */
static int conflicts(const struct vec *v, const struct vinsn *in)
{
	int i, k;

	for (i = 0; i < v->qn; i++) {
		const struct vinsn *o = v->q[i];

		if (o == in)
			break;
		if (fp_overlap(&in->wr_fp, &o->wr_fp))
			return 1;
		for (k = 0; k < 3; k++)
			if (fp_overlap(&in->rd_fp[k], &o->wr_fp))
				return 1;
	}
	return 0;
}

/*
 * Bounding range of 'rows' rows of 'row_bytes' bytes, 'stride' apart, from
 * base; checked against the memory (fault names the operand).
 */
static int tile_range(struct vec *v, struct vinsn *in, struct vmem *m,
		      const char *what, uint64_t base, uint64_t rows,
		      uint64_t stride, uint64_t row_bytes, struct vfp *fp)
{
	char who[48];
	uint64_t span;

	if (rows == 0 || row_bytes == 0)
		return 0;
	snprintf(who, sizeof(who), "%s %s", isa_op_info[in->op].name, what);
	/*
	 * (rows-1)*stride < 2^64 since both are < 2^32; saturate the sum
	 * span = (rows - 1) x stride + row_bytes: the bytes from the first
	 * row's start to the last row's end (rows may overlap if stride <
	 * row_bytes, which is allowed; the footprint stays a bound).
	 */
	span = (rows - 1) * stride;
	span = span > UINT64_MAX - row_bytes ? UINT64_MAX : span + row_bytes;
	if (base > m->size || span > m->size - base)
		return mem_check(&m->port[VR_D], eng_diag(v->u.eng), who,
				 in->cmd.pc, base,
				 span > UINT64_MAX - base ? UINT64_MAX - base : span,
				 1);
	fp->mem = (int)(m - v->mem);
	fp->lo = base;
	fp->hi = base + span;
	return 0;
}

/* ---- beat construction ------------------------------------------------- */

/* Bytes between rows of n elements of type t with vset stride s. */
static uint64_t rowb(enum npu_dtype t, uint32_t s, uint32_t n)
{
	return vm_row_bytes(t, s, n);
}

/*
 * Fill beat b's geometry and reads (writes are added at compute time,
 * because vscatter's and vtrans's write addresses depend on the data or on
 * the whole block).  The slot's buffers are reused: nothing is allocated
 * per beat once every slot has grown to the largest access list it needed.
 */
static int beat_setup(struct vec *v, struct vinsn *in, struct vbeat *bt,
		      uint64_t b)
{
	const struct vec_cmd *c = &in->cmd.u.v;
	uint32_t L = (uint32_t)v->lanes, len = c->cfg.len, rows = c->cfg.rows;
	struct vacc a;
	int rc = 0;

	bt->in = in;
	bt->b = b;
	bt->n_rd = bt->n_wr = 0;
	bt->rd_left = bt->wr_left = 0;
	bt->phase = 0;
	bt->reads_done = bt->retired = 0;
	memset(&a, 0, sizeof(a));
	if (in->kind == VM_K_TRANS) {
		/*
		 * row blocks of L rows, then column blocks, then rows
		 * Beat order: block rows (L source rows each) outer; inside
		 * one, column blocks (bj) outer and the block's rows (rr)
		 * inner, so the block's last beat (rr = hb - 1) has read the
		 * whole block when it writes it transposed.
		 */
		uint64_t per_rb = (uint64_t)L * in->groups;
		uint64_t rb = b / per_rb, rem = b % per_rb;
		uint32_t hb = (uint32_t)umin64(L, rows - rb * L);
		uint32_t bj = (uint32_t)(rem / hb), rr = (uint32_t)(rem % hb);

		bt->r = (uint32_t)(rb * L + rr);
		bt->e0 = (uint64_t)bj * L;
		bt->n = (uint32_t)umin64(L, len - bt->e0);
		bt->last = rr == hb - 1;
		a.base = c->s1 + bt->r * in->s1_rb;
		a.e0 = bt->e0;
		a.n = bt->n;
		a.t = in->st;
		return push_acc(&bt->rd, &bt->n_rd, &bt->cap_rd, &a);
	}
	bt->r = (uint32_t)(b / in->groups);
	bt->e0 = (b % in->groups) * (uint64_t)L;
	bt->n = (uint32_t)umin64(L, len - bt->e0);
	bt->last = b % in->groups == in->groups - 1;
	a.e0 = bt->e0;
	a.n = bt->n;
	switch (in->kind) {
	case VM_K_BCAST:
		break;
	case VM_K_BROW: /* the source row is read once, with row 0 */
		if (bt->r == 0) {
			a.base = c->s1;
			a.t = in->st;
			rc = push_acc(&bt->rd, &bt->n_rd, &bt->cap_rd, &a);
		}
		break;
	case VM_K_GATHER: /* indices first; data reads follow them */
		a.base = c->s2 + bt->r * in->s2_rb;
		a.t = DT_INT32;
		a.opnd = 1;
		rc = push_acc(&bt->rd, &bt->n_rd, &bt->cap_rd, &a);
		break;
	default:
		a.base = c->s1 + bt->r * in->s1_rb;
		a.t = in->st;
		rc = push_acc(&bt->rd, &bt->n_rd, &bt->cap_rd, &a);
		if (!rc && (in->kind == VM_K_BIN || in->kind == VM_K_SELECT ||
			    in->kind == VM_K_SCATTER)) {
			/* vset bc: a column reads one element per row (each
			 * lane group again: a register would keep it, but
			 * the read is cheap and keeps the timing honest), a
			 * row reads row 0 for every row (s2_rb = 0) */
			a.base = c->s2 + bt->r * in->s2_rb;
			a.t = in->t2;
			a.opnd = 1;
			if (in->kind == VM_K_BIN && c->cfg.s2_bcast == VEC_BC_COL) {
				a.e0 = 0;
				a.n = 1;
			}
			rc = push_acc(&bt->rd, &bt->n_rd, &bt->cap_rd, &a);
			a.e0 = bt->e0;
			a.n = bt->n;
		}
		if (!rc && in->kind == VM_K_SELECT) {
			a.base = c->s3 + bt->r * in->s2_rb;
			a.t = in->st;
			a.opnd = 2;
			rc = push_acc(&bt->rd, &bt->n_rd, &bt->cap_rd, &a);
		}
		break;
	}
	return rc;
}

static int rd_done(void *ctx, uint64_t tag, cycle_t t);
static int wr_done(void *ctx, uint64_t tag, cycle_t t);

/*
 * Requestor role of a read (operand buffer k reads through s<k+1>).
 * (vgather's element reads, opnd 0, go through s1 like any source 1.)
 */
static int read_role(const struct vinsn *in, const struct vacc *a)
{
	(void)in;
	return a->opnd == 0 ? VR_S1 : a->opnd == 1 ? VR_S2 : VR_S3;
}

/* One access through a port (the SRAM never refuses: 0 or NPU_E*). */
static int send(struct mem_port *p, uint64_t addr, uint32_t bytes, int write,
		cycle_t when, mem_done_fn done, void *ctx, uint64_t tag)
{
	struct mem_req r;

	r.addr = addr;
	r.bytes = bytes;
	r.write = (uint8_t)write;
	r.when = when;
	r.done = done;
	r.ctx = ctx;
	r.tag = tag;
	return mem_send(p, &r);
}

/*
 * Issue reads [from, n_rd) of a beat for cycle 'when'.  Each goes to the
 * operand's own requestor, so the SRAM serves one operand's segments in
 * order while the operands of one beat compete with each other (and with
 * everybody else) for banks in the same cycle.
 */
static int issue_reads(struct vec *v, uint64_t seq, struct vbeat *bt, int from,
		       cycle_t when)
{
	struct vmem *m = bt->in->sm;
	int i, rc;

	for (i = from; i < bt->n_rd; i++) {
		struct vacc *a = &bt->rd[i];
		uint64_t lo;
		uint32_t bytes;

		a->when = when;
		acc_bytes(a, &lo, &bytes);
		rc = send(&m->port[read_role(bt->in, a)], lo, bytes, 0, when,
			  rd_done, v, seq << TAG_IDX_BITS | (uint64_t)i);
		if (rc)
			return rc;
		v->u.ctr[CTR_VECTOR_SRAM_READS]++;
		bt->rd_left++;
	}
	return 0;
}

/* ---- pipeline: compute, writes, retirement ----------------------------- */

static int try_compute(struct vec *v);
static int retire(struct vec *v);

/* Copy n elements of type t from (src, si) to (dst, di). */
static void copy_elems(enum npu_dtype t, uint8_t *dst, uint64_t di,
		       const uint8_t *src, uint64_t si, uint64_t n)
{
	uint64_t i, bits = (uint64_t)dtype_bits(t);

	/*
	 * memmove: the destination may be the same buffer (vtrans block
	 * buffer, vbrow row buffer); int4 goes element by element because
	 * its runs can start on an odd nibble.
	 */
	if (bits % 8 == 0) { /* whole bytes: a plain copy */
		memmove(dst + di * bits / 8, src + si * bits / 8, n * bits / 8);
		return;
	}
	for (i = 0; i < n; i++)
		num_set_bits(t, dst, di + i, num_get_bits(t, src, si + i));
}

static int ensure_out(struct vbeat *bt, size_t bytes)
{
	uint8_t *p;

	if (bytes <= bt->out_cap)
		return 0;
	p = realloc(bt->out, bytes);
	if (!p)
		return NPU_ENOMEM;
	bt->out = p;
	bt->out_cap = bytes;
	return 0;
}

/*
 * The values of a beat and the writes that carry them.  Runs when the beat
 * enters the pipeline, i.e. after every read has copied its elements into
 * the operand buffers, so the results depend only on what the banks
 * returned, never on SRAM contents changed after the reads completed.
 */
static int beat_compute(struct vec *v, struct vbeat *bt)
{
	struct vinsn *in = bt->in;
	const struct vec_cmd *c = &in->cmd.u.v;
	struct vm_src s1 = { bt->op[0], 0 }, s2 = { bt->op[1], 0 },
		      s3 = { bt->op[2], 0 };
	struct vm_at at = { bt->r, bt->e0 };
	struct vacc w;
	uint32_t i, L = (uint32_t)v->lanes;
	int rc, vals = eng_values(v->u.eng); /* 0: timing only, no values */

	memset(&w, 0, sizeof(w));
	w.t = in->dt;
	switch (in->kind) {
	/*
	 * The running reduction lives in the instruction: groups of a
	 * row enter the pipeline in order, so folding them here gives
	 * the documented tree-then-fold order exactly.
	 */
	case VM_K_REDUCE:
		if (vals && bt->e0 == 0)
			vm_red_init(&in->red, in->op, in->st, v->lanes);
		if (vals)
			vm_red_group(&in->red, s1, bt->n);
		v->u.ctr[CTR_VECTOR_OPS] += (uint64_t)bt->n *
			(uint64_t)vm_ops_per_elem(in->op);
		if (!bt->last)
			return 0;
		if (vals)
			num_set_bits(in->dt, bt->out, 0, vm_red_result(&in->red, &in->vc));
		w.base = c->d + bt->r * in->d_rb;
		w.n = 1;
		return push_acc(&bt->wr, &bt->n_wr, &bt->cap_wr, &w);
	case VM_K_TRANS: {
		uint32_t rb0 = bt->r - bt->r % L;            /* first row of block */
		uint32_t hb = (uint32_t)umin64(L, c->cfg.rows - rb0);
		uint32_t rr = bt->r - rb0;

		if (vals)
			copy_elems(in->st, in->buf, (uint64_t)rr * L, bt->op[0], 0, bt->n);
		if (!bt->last)
			return 0;
		if ((rc = ensure_out(bt, (size_t)dtype_bytes(in->st,
				(uint64_t)bt->n * hb) + 1)))
			return rc;
		for (i = 0; i < bt->n; i++) {
			uint32_t k;

			for (k = 0; vals && k < hb; k++)
				num_set_bits(in->st, bt->out, (uint64_t)i * hb + k,
					     num_get_bits(in->st, in->buf,
							  (uint64_t)k * L + i));
			w.base = c->d + (bt->e0 + i) * in->d_rb;
			w.e0 = rb0;
			w.n = hb;
			w.oi = i * hb;
			if ((rc = push_acc(&bt->wr, &bt->n_wr, &bt->cap_wr, &w)))
				return rc;
		}
		return 0;
	}
	case VM_K_SCATTER: {
		/*
		 * Elements of TYPE that fit from d to the end of the memory:
		 * the bound of a legal index (docs/timing.md "Faults").
		 */
		uint64_t d_elems = (in->dm->size - umin64(c->d, in->dm->size)) * 8 /
				   (uint64_t)dtype_bits(in->st);

		copy_elems(in->st, bt->out, 0, bt->op[0], 0, bt->n);
		for (i = 0; i < bt->n; i++) {
			int64_t x = num_sext(num_get_bits(DT_INT32, bt->op[1], i), 32);

			if (x < 0 || (uint64_t)x >= d_elems)
				return fault(v, in,
					     "index %" PRId64 " (row %u, element %" PRIu64 ") is outside the destination: %" PRIu64 " elements fit between 0x%" PRIx64 " and the end of the %s",
					     x, bt->r, bt->e0 + i, d_elems,
					     c->d, in->dm->name);
			w.base = c->d;
			w.e0 = (uint64_t)x;
			w.n = 1;
			w.oi = i;
			if ((rc = push_acc(&bt->wr, &bt->n_wr, &bt->cap_wr, &w)))
				return rc;
		}
		return 0;
	}
	case VM_K_BROW:
		if (vals && bt->r == 0)
			copy_elems(in->st, in->buf, bt->e0, bt->op[0], 0, bt->n);
		if (vals)
			copy_elems(in->st, bt->out, 0, in->buf, bt->e0, bt->n);
		break;
	case VM_K_GATHER:
		if (vals)
			copy_elems(in->st, bt->out, 0, bt->op[0], 0, bt->n);
		break;
	default:
		/* a column broadcast read one element: it serves every lane */
		if (vals && in->kind == VM_K_BIN && c->cfg.s2_bcast == VEC_BC_COL)
			for (i = 1; i < bt->n; i++)
				num_set_bits(in->t2, bt->op[1], i,
					     num_get_bits(in->t2, bt->op[1], 0));
		if (vals)
			vm_map(in->op, &in->vc, at, bt->n, bt->out, 0, s1, s2, s3);
		v->u.ctr[CTR_VECTOR_OPS] += (uint64_t)bt->n *
			(uint64_t)vm_ops_per_elem(in->op);
		break;
	}
	w.base = c->d + bt->r * in->d_rb;
	w.e0 = bt->e0;
	w.n = bt->n;
	return push_acc(&bt->wr, &bt->n_wr, &bt->cap_wr, &w);
}

/*
 * Beats whose operands are in enter the pipeline, in order.  Completions
 * of one requestor arrive in issue order, so a beat's reads cannot finish
 * before the previous beat's on the same operand; but a beat without reads
 * (vbcast, vbrow rows > 0) may be ready before older ones, and must wait
 * for them here (in-order issue into the pipeline).  The entry cycle may
 * lie in the future (interval); the write is then simply requested for a
 * later cycle, which sram_access allows, so no extra event is needed.
 */
static int try_compute(struct vec *v)
{
	cycle_t now = eng_now(v->u.eng);
	int rc, i;

	while (v->next_compute < v->tail) {
		uint64_t seq = v->next_compute;
		struct vbeat *bt = slot(v, seq);
		struct vinsn *in = bt->in;
		cycle_t tc = bt->rd_done_at, wlat;

		if (!bt->reads_done)
			break;
		/* one beat per cycle; 'interval' cycles apart within an op */
		if (v->any_tc)
			tc = umax64(tc, v->last_tc + (v->last_in == in ?
						       (cycle_t)in->ii : 1));
		/*
		 * tc is t_c(b) of docs/timing.md rule 2: the later of its reads'
		 * completion and the previous beat's entry + (II or 1).
		 */
		tc = umax64(tc, now);
		v->any_tc = 1;
		v->last_tc = tc;
		v->last_in = in;
		v->next_compute++;
		if ((rc = beat_compute(v, bt)))
			return rc;
		wlat = (cycle_t)in->lat;
		if (in->kind == VM_K_REDUCE)
			wlat += (cycle_t)v->lat_red;
		for (i = 0; i < bt->n_wr; i++) {
			struct vacc *a = &bt->wr[i];
			uint64_t lo;
			uint32_t bytes;

			/* Rule 3: the write is presented at t_c + LAT. */
			a->when = tc + wlat;
			acc_bytes(a, &lo, &bytes);
			rc = send(&in->dm->port[VR_D], lo, bytes, 1, a->when,
				  wr_done, v, seq << TAG_IDX_BITS | (uint64_t)i);
			if (rc)
				return rc;
			v->u.ctr[CTR_VECTOR_SRAM_WRITES]++;
			v->u.ctr[CTR_VECTOR_ELEMS] += a->n;
		}
		bt->wr_left = bt->n_wr;
		if (bt->n_wr == 0) { /* nothing to write: done in the pipeline */
			bt->retired = 1;
			if ((rc = retire(v)))
				return rc;
		}
	}
	return 0;
}

/*
 * busy_cycles: from the cycle the unit got an instruction while idle to
 * the cycle its last instruction completed (docs/timing.md counters).
 */
static void busy_end(struct vec *v, cycle_t t)
{
	v->u.ctr[CTR_VECTOR_BUSY_CYCLES] += t - v->busy_start;
}

/*
 * Finish the oldest instructions whose beats have all retired.  Retirement
 * is in order, so instructions complete in program order; each completion
 * wakes the control unit (a sig on the vector queue waits for idle()).
 */
static int complete_insns(struct vec *v)
{
	cycle_t now = eng_now(v->u.eng);
	int tr = eng_trace(v->u.eng) != NULL;
	int rc, i;

	while (v->qn > 0 && v->q[0]->issued == v->q[0]->n_beats &&
	       v->q[0]->retired == v->q[0]->n_beats) {
		struct vinsn *in = v->q[0];

		v->u.ctr[CTR_VECTOR_INSNS]++;
		if (tr && unit_traced(&v->u, in->accepted, now)) {
			/* From accept to retirement, with its operands; it
			 * ends the flow from the dispatch slice. */
			char args[200];
			struct unit_insn ui = { in->cmd.pc, in->cmd.sym,
						in->cmd.id, UNIT_FLOW_IN,
						in->cmd.issued };

			snprintf(args, sizeof(args),
				 "\"rows\":%u,\"len\":%u,\"d\":\"0x%" PRIx64
				 "\",\"s1\":\"0x%" PRIx64 "\",\"s2\":\"0x%" PRIx64
				 "\"", in->cmd.u.v.cfg.rows,
				 in->cmd.u.v.cfg.len, in->cmd.u.v.d,
				 in->cmd.u.v.s1, in->cmd.u.v.s2);
			unit_span_insn(&v->u, in->accepted, now,
				       isa_op_info[in->op].name, args, &ui);
		}
		free(in->buf);
		free(in);
		for (i = 1; i < v->qn; i++)
			v->q[i - 1] = v->q[i];
		v->qn--;
		if (v->qn == 0)
			busy_end(v, now);
		/* an instruction held back by this one may now go */
		if (v->qn > 0) {
			struct vinsn *nw = v->q[v->qn - 1];

			if (nw->waiting && !conflicts(v, nw)) {
				nw->waiting = 0;
				stall(v, nw->wait_from, now, CTR_VECTOR_STALL_RAW);
				if ((rc = kick(v, now)))
					return rc;
			}
		}
		if ((rc = notify(v)))
			return rc;
	}
	return 0;
}

/*
 * Retire beats from the head of the window.  A beat may have finished out
 * of order (a reduction group that writes nothing) but frees its slot only
 * when everything older has gone too: the window is a FIFO of buffers.
 */
static int retire(struct vec *v)
{
	cycle_t now = eng_now(v->u.eng);
	int full = v->tail - v->head == (uint64_t)v->window;
	int rc;

	while (v->head < v->next_compute && slot(v, v->head)->retired) {
		slot(v, v->head)->in->retired++;
		v->head++;
	}
	if (full && v->tail - v->head < (uint64_t)v->window &&
	    (rc = kick(v, now)))
		return rc;
	return complete_insns(v);
}

/*
 * An access that completes later than it would have alone counts as an SRAM
 * stall.  "Alone" starts at the later of its issue cycle and the cycle after
 * the previous access of the same requestor was granted (a requestor's own
 * accesses queue behind each other: that is throughput, not contention), so
 * a blocked access is counted once, not again in everything queued behind
 * it.
 */
static void late(struct vec *v, struct vmem *m, int role, const struct vacc *a,
		 cycle_t t)
{
	uint64_t lo;
	uint32_t bytes;
	cycle_t start = a->when, prev = m->last_done[role], expect;

	/*
	 * prev - latency + 1: the cycle after the previous access's last
	 * grant (it completed `latency` cycles after that grant).
	 */
	if (prev >= (cycle_t)m->latency && prev - (cycle_t)m->latency + 1 > start)
		start = prev - (cycle_t)m->latency + 1;
	acc_bytes(a, &lo, &bytes);
	/*
	 * Alone: a cycles of grants (mem_alone_cycles) starting at start,
	 * then latency: the docs' "a - 1 + lat" after the first grant.
	 */
	expect = start + mem_alone_cycles(&m->port[role], lo, bytes) - 1 +
		 (cycle_t)m->latency;
	stall(v, expect, t, CTR_VECTOR_STALL_SRAM);
	m->last_done[role] = t;
}

static int rd_done(void *ctx, uint64_t tag, cycle_t t)
{
	struct vec *v = ctx;
	uint64_t seq = tag >> TAG_IDX_BITS;
	struct vbeat *bt = slot(v, seq);
	struct vinsn *in = bt->in;
	const struct vacc *a = &bt->rd[tag & TAG_IDX_MASK];
	int rc;

	/*
	 * Values move at completion: the elements are copied out of the
	 * SRAM now, so a write by another unit that completes later is not
	 * seen, one that completed earlier is.
	 */
	late(v, in->sm, read_role(in, a), a, t);
	if (eng_values(v->u.eng))
		copy_elems(a->t, bt->op[a->opnd], a->oi, in->sm->data + a->base, a->e0,
		   a->n);
	if (--bt->rd_left > 0)
		return 0;
	if (in->kind == VM_K_GATHER && bt->phase == 0) {
		/* the indices are in: one element read per index, next cycle */
		const struct vec_cmd *c = &in->cmd.u.v;
		/* Elements of TYPE from s1 to the end of the memory. */
		uint64_t s_elems = (in->sm->size - umin64(c->s1, in->sm->size)) *
				   8 / (uint64_t)dtype_bits(in->st);
		int from = bt->n_rd;
		uint32_t i;

		bt->phase = 1;
		for (i = 0; i < bt->n; i++) {
			int64_t x = num_sext(num_get_bits(DT_INT32, bt->op[1], i), 32);
			struct vacc d;

			if (x < 0 || (uint64_t)x >= s_elems)
				return fault(v, in,
					     "index %" PRId64 " (row %u, element %" PRIu64 ") is outside the source: %" PRIu64 " elements fit between 0x%" PRIx64 " and the end of the %s",
					     x, bt->r, bt->e0 + i, s_elems, c->s1,
					     in->sm->name);
			memset(&d, 0, sizeof(d));
			d.base = c->s1;
			d.e0 = (uint64_t)x;
			d.n = 1;
			d.oi = i;
			d.t = in->st;
			if ((rc = push_acc(&bt->rd, &bt->n_rd, &bt->cap_rd, &d)))
				return rc;
		}
		/*
		 * The element reads are issued for the next cycle: the index
		 * values are needed to form the addresses (docs/timing.md
		 * "vgather").
		 */
		return issue_reads(v, seq, bt, from, t + 1);
	}
	bt->reads_done = 1;
	bt->rd_done_at = t;
	return try_compute(v);
}

static int wr_done(void *ctx, uint64_t tag, cycle_t t)
{
	struct vec *v = ctx;
	struct vbeat *bt = slot(v, tag >> TAG_IDX_BITS);
	struct vinsn *in = bt->in;
	const struct vacc *a = &bt->wr[tag & TAG_IDX_MASK];

	late(v, in->dm, VR_D, a, t);
	/* The SRAM bytes change only now, when the write completes. */
	if (eng_values(v->u.eng))
		copy_elems(a->t, in->dm->data + a->base, a->e0, bt->out, a->oi, a->n);
	if (--bt->wr_left > 0)
		return 0;
	bt->retired = 1;
	return retire(v);
}

/* ---- issue ----------------------------------------------------------------- */

/*
 * One beat of the newest instruction, at most one per cycle.  Issue stops
 * when the window is full (restarted by retire), while the instruction
 * waits on the RAW interlock (restarted by complete_insns), and after the
 * last beat (the control unit is told it may hand over the next one).
 */
static int issue(struct vec *v)
{
	cycle_t now = eng_now(v->u.eng);
	struct vinsn *in = v->qn ? v->q[v->qn - 1] : NULL;
	struct vbeat *bt;
	uint64_t seq;
	int rc;

	v->issue_pending = 0;
	if (in && in->issued == in->n_beats)
		return complete_insns(v); /* an empty instruction */
	if (!in || in->waiting || v->tail - v->head == (uint64_t)v->window)
		return 0; /* re-kicked by completion / retirement */
	/*
	 * A second issue event in one cycle (kicked again after this
	 * cycle's beat went out) defers: one beat per cycle.
	 */
	if (v->issued_any && v->last_issue == now)
		return kick(v, now + 1); /* one beat per cycle */
	seq = v->tail;
	bt = slot(v, seq);
	if ((rc = beat_setup(v, in, bt, in->issued)))
		return rc;
	v->tail++;
	in->issued++;
	v->last_issue = now;
	v->issued_any = 1;
	if ((rc = issue_reads(v, seq, bt, 0, now)))
		return rc;
	if (bt->n_rd == 0) { /* vbcast, vbrow rows > 0: nothing to read */
		bt->reads_done = 1;
		bt->rd_done_at = now;
		if ((rc = try_compute(v)))
			return rc;
	}
	if (in->issued < in->n_beats)
		return kick(v, now + 1);
	/* last beat issued: the control unit may hand over the next one */
	return notify(v);
}

static int vec_on_event(struct unit *u, const struct ev *ev)
{
	struct vec *v = (struct vec *)u;

	if (ev->kind == VEC_EV_ISSUE)
		return issue(v);
	return NPU_EINTERNAL;
}

/* ---- accept ------------------------------------------------------------------ */

/*
 * One instruction issues at a time; the next is taken as soon as the
 * current one has issued its last beat, so that its first beat follows in
 * the next cycle while older beats drain (no bubble between independent
 * instructions).
 */
static int vec_can_accept(const struct unit *u)
{
	const struct vec *v = (const struct vec *)u;
	const struct vinsn *nw = v->qn ? v->q[v->qn - 1] : NULL;

	return v->qn < VEC_MAX_INSNS && (!nw || nw->issued == nw->n_beats);
}

/*
 * The operands of a command (vector.h).  Rows and elements per row by
 * shape: TILE rows x len, ROW 1 x len, COL rows x 1, TRANS len x rows;
 * INDEXED keeps a tile's geometry, of which only the base is meaningful.
 */
void vec_operands(const struct tile_cmd *cmd, struct vec_opnd o[ISA_N_VSLOTS])
{
	const struct vec_cmd *c = &cmd->u.v;
	const struct vec_cfg *g = &c->cfg;
	const struct isa_vkind_info *ki = &isa_vkind_info[isa_op_info[cmd->op].vkind];
	/* Per slot s1, s2, s3, d: the address register's value and the vset
	 * stride; s3 (vsel's second source) shares ss2 with s2. */
	const uint64_t base[ISA_N_VSLOTS] = { c->s1, c->s2, c->s3, c->d };
	const uint32_t stride[ISA_N_VSLOTS] = { g->s1_stride, g->s2_stride,
						g->s2_stride, g->d_stride };
	int k;

	for (k = 0; k < ISA_N_VSLOTS; k++) {
		const struct isa_vopnd *r = &ki->opnd[k];
		enum npu_dtype t = vm_elem_type(r->type, (enum npu_dtype)g->type,
						(enum npu_dtype)g->out_type);
		uint64_t rows = g->rows;
		uint32_t elems = g->len;

		switch (r->shape) {
		case ISA_VSH_NONE:
		case ISA_VSH_TILE:
		case ISA_VSH_INDEXED:
			break;
		case ISA_VSH_ROW:
			rows = 1;
			break;
		case ISA_VSH_COL:
			elems = 1;
			break;
		case ISA_VSH_TRANS:
			rows = g->len;
			elems = g->rows;
			break;
		}
		/* vset bc: a binary op's source 2 as a column or a row */
		if (k == ISA_VS_S2 && ki == &isa_vkind_info[ISA_VK_BIN] &&
		    g->s2_bcast == VEC_BC_COL) {
			o[k].shape = ISA_VSH_COL;
			elems = 1;
		} else if (k == ISA_VS_S2 && ki == &isa_vkind_info[ISA_VK_BIN] &&
			   g->s2_bcast == VEC_BC_ROW) {
			o[k].shape = ISA_VSH_ROW;
			rows = 1;
		} else {
			o[k].shape = r->shape;
		}
		o[k].etype = r->type;
		o[k].type = (int)t;
		o[k].mem = k == ISA_VS_D ? g->d_mem : g->s_mem;
		o[k].base = base[k];
		o[k].rows = rows;
		o[k].row_bytes = dtype_bytes(t, elems);
		o[k].stride = vm_row_bytes(t, stride[k], elems);
	}
}

/* How a fault names operand k: "vbrow source", "vgather indices". */
static const char *opnd_name(const struct vec_opnd *o, int k)
{
	static const char *const slot[ISA_N_VSLOTS] = {
		"source 1", "source 2", "source 3", "destination"
	};

	if (o[k].etype == ISA_VET_INT32)
		return "indices";
	return o[k].shape == ISA_VSH_ROW ? "source" : slot[k];
}

/*
 * Check every operand range and record the footprints (vec_operands).
 * All regular tiles are checked here, when the instruction starts, so a
 * bad address faults before any of its data moves; only the
 * data-dependent addresses of vgather/vscatter (INDEXED operands) are
 * checked when their indices arrive: their footprint is the rest of the
 * memory.  Sources are checked before the destination, s1 first.
 */
static int vec_ranges(struct vec *v, struct vinsn *in,
		      const struct vec_opnd *o)
{
	const struct vec_cmd *c = &in->cmd.u.v;
	int k, rc;

	if (c->cfg.rows == 0 || c->cfg.len == 0)
		return 0;
	for (k = 0; k < ISA_N_VSLOTS; k++) {
		struct vmem *m = k == ISA_VS_D ? in->dm : in->sm;
		struct vfp *fp = k == ISA_VS_D ? &in->wr_fp : &in->rd_fp[k];

		switch (o[k].shape) {
		case ISA_VSH_NONE:
			break;
		case ISA_VSH_INDEXED:
			fp->mem = (int)(m - v->mem);
			fp->lo = o[k].base;
			fp->hi = m->size;
			break;
		case ISA_VSH_TILE:
		case ISA_VSH_ROW:
		case ISA_VSH_COL:
		case ISA_VSH_TRANS:
			rc = tile_range(v, in, m, opnd_name(o, k), o[k].base,
					o[k].rows, o[k].stride, o[k].row_bytes, fp);
			if (rc)
				return rc;
			break;
		}
	}
	return 0;
}

static struct vmem *mem_of(struct vec *v, int space)
{
	return space == MEM_ACC ? &v->mem[1] : space == MEM_SPM ? &v->mem[0]
								: NULL;
}

static int vec_accept(struct unit *u, const struct tile_cmd *cmd)
{
	struct vec *v = (struct vec *)u;
	const struct vec_cmd *c = &cmd->u.v;
	cycle_t now = eng_now(u->eng);
	struct vinsn *in;
	struct vec_opnd o[ISA_N_VSLOTS];
	enum isa_lat cls;
	int rc, k;

	if (cmd->op < 0 || cmd->op >= ISA_N_OPS ||
	    isa_op_info[cmd->op].unit != ISA_UNIT_VEC ||
	    c->cfg.type < 0 || c->cfg.type >= DT_N ||
	    c->cfg.out_type < 0 || c->cfg.out_type >= DT_N)
		return NPU_EINTERNAL; /* the control unit validates both */
	if (!vec_can_accept(u))
		return NPU_EINTERNAL; /* the control unit asks first */
	in = calloc(1, sizeof(*in));
	if (!in)
		return NPU_ENOMEM;
	in->cmd = *cmd;
	in->op = (enum isa_op)cmd->op;
	in->kind = vm_kind_of(in->op);
	in->vc.type = (enum npu_dtype)c->cfg.type;
	in->vc.out_type = (enum npu_dtype)c->cfg.out_type;
	in->vc.scale = c->cfg.scale;
	in->vc.zp = c->cfg.zp;
	in->vc.fp8_ovf = v->fp8;
	in->vc.step = (int64_t)c->scalar;
	/*
	 * The scalar operand (x[rs2] of vadds..., x[rs1] of vbcast) keeps
	 * the low dtype_bits(TYPE) bits: its bit pattern in TYPE.
	 */
	in->vc.scalar = (uint32_t)(c->scalar &
		(dtype_bits(in->vc.type) == 32 ? 0xFFFFFFFFu
					       : (1u << dtype_bits(in->vc.type)) - 1));
	in->st = in->vc.type;
	in->dt = vm_dst_type(in->op, &in->vc);
	in->t2 = vm_src_type(in->op, &in->vc, 2);
	cls = isa_op_info[in->op].lat;
	in->lat = v->lat[cls];
	in->ii = v->ii[cls];
	in->sm = mem_of(v, c->cfg.s_mem);
	in->dm = mem_of(v, c->cfg.d_mem);
	in->accepted = now;
	for (k = 0; k < 3; k++)
		in->rd_fp[k].mem = -1;
	in->wr_fp.mem = -1;
	if (!in->sm || !in->dm) {
		rc = fault(v, in, "operands must be in the scratchpad (1) or the accumulator (2), not memory %d",
			   !in->sm ? c->cfg.s_mem : c->cfg.d_mem);
		goto fail;
	}
	/* vshls/vshrs are vshl/vshr with the count in x[rs2] (their base) */
	if ((isa_op_info[in->op].base == ISA_OP_VSHL ||
	     isa_op_info[in->op].base == ISA_OP_VSHR) &&
	    dtype_is_float(in->st)) {
		rc = fault(v, in, "%s shifts integers, not %s (vset type)",
			   isa_op_info[in->op].name, dtype_name(in->st));
		goto fail;
	}
	in->s1_rb = rowb(in->st, c->cfg.s1_stride, c->cfg.len);
	in->s2_rb = rowb(in->t2, c->cfg.s2_stride, c->cfg.len);
	if (in->kind == VM_K_BIN && c->cfg.s2_bcast == VEC_BC_COL)
		in->s2_rb = rowb(in->t2, c->cfg.s2_stride, 1);
	else if (in->kind == VM_K_BIN && c->cfg.s2_bcast == VEC_BC_ROW)
		in->s2_rb = 0;
	/* Destination rows: of one element for reductions, of ROWS for
	 * vtrans (the d column of the op's kind). */
	vec_operands(cmd, o);
	in->d_rb = o[ISA_VS_D].stride;
	/*
	 * B = ROWS x ceil(LEN / L) beats (docs/timing.md "Lane groups");
	 * an empty instruction has none and completes on its first issue
	 * event, in order behind older ones.
	 */
	in->groups = (uint32_t)(((uint64_t)c->cfg.len + (uint64_t)v->lanes - 1) /
				(uint64_t)v->lanes);
	in->n_beats = c->cfg.rows == 0 || c->cfg.len == 0 ? 0 :
		      (uint64_t)c->cfg.rows * in->groups;
	if ((rc = vec_ranges(v, in, o)))
		goto fail;
	/*
	 * + 1 byte: slack for int4 rounding, and never a zero-size malloc.
	 * vtrans keeps one L x L block (the block being transposed).
	 */
	if (in->n_beats && in->kind == VM_K_BROW)
		in->buf = malloc((size_t)dtype_bytes(in->st, c->cfg.len) + 1);
	else if (in->n_beats && in->kind == VM_K_TRANS)
		in->buf = malloc((size_t)dtype_bytes(in->st,
				 (uint64_t)v->lanes * (uint64_t)v->lanes) + 1);
	if ((in->kind == VM_K_BROW || in->kind == VM_K_TRANS) && in->n_beats &&
	    !in->buf) {
		rc = NPU_ENOMEM;
		goto fail;
	}
	if (v->qn == 0)
		v->busy_start = now;
	v->q[v->qn++] = in;
	in->waiting = conflicts(v, in);
	/*
	 * A RAW wait is charged from now + 1, the cycle the first beat would
	 * have issued, to the cycle the older instruction completes.
	 */
	in->wait_from = now + 1;
	/* a one-cycle hand-over: the first beat issues in the next cycle */
	return kick(v, now + 1);
fail:
	free(in);
	return rc;
}

static int vec_idle(const struct unit *u)
{
	return ((const struct vec *)u)->qn == 0;
}

const struct xu_port vec_port = {
	.can_accept = vec_can_accept,
	.accept = vec_accept,
	.idle = vec_idle,
};

/* ---- unit ops ------------------------------------------------------------------ */

/*
 * Deadlock report: the oldest instruction and how much of it is left
 * (the engine calls this when the event queue runs dry with work left).
 */
static int vec_blocked(const struct unit *u, char *buf, size_t n)
{
	const struct vec *v = (const struct vec *)u;
	const struct vinsn *in;

	if (v->qn == 0)
		return 0;
	in = v->q[0];
	snprintf(buf, n, "%s at pc 0x%" PRIx64 " has %" PRIu64 " of %" PRIu64
		 " lane groups unfinished",
		 isa_op_info[in->op].name, in->cmd.pc,
		 in->n_beats - in->retired, in->n_beats);
	return 1;
}

static void vec_destroy(struct unit *u)
{
	struct vec *v = (struct vec *)u;
	int i, k;

	for (i = 0; i < v->qn; i++) {
		free(v->q[i]->buf);
		free(v->q[i]);
	}
	if (v->slots)
		for (i = 0; i < v->window; i++) {
			struct vbeat *bt = &v->slots[i];

			free(bt->rd);
			free(bt->wr);
			for (k = 0; k < 3; k++)
				free(bt->op[k]);
			free(bt->out);
		}
	free(v->slots);
	free(v);
}

static const struct unit_ops vec_ops = {
	.kind = UNIT_VECTOR,
	.on_event = vec_on_event,
	.blocked = vec_blocked,
	.destroy = vec_destroy,
};

/*
 * Register the four requestors on one memory.
 * Requestor ids are given in registration order, which is the fixed
 * arbitration priority (docs/memory.md): the chip creates the matrix
 * engine first, then the vector unit, then the DMA engines.
 */
static int vec_mem(struct vmem *m, struct mem_target s, const char *name)
{
	static const char *const roles[VR_N] = { "vector.s1", "vector.s2",
						 "vector.s3", "vector.d" };
	struct mem_info mi;
	int k, rc;

	for (k = 0; k < VR_N; k++)
		if ((rc = mem_bind(&m->port[k], s, roles[k], NULL, NULL)))
			return rc;
	mem_info(&m->port[0], &mi);
	m->data = mi.data;
	m->size = mi.size;
	m->latency = mi.latency;
	m->name = name;
	return 0;
}

struct unit *vec_new(eng *e, const struct arch *a, int core,
		     struct mem_target spm, struct mem_target acc,
		     const struct tile_listener *l)
{
	struct vec *v = calloc(1, sizeof(*v));
	size_t lane_bytes;
	int i, k;

	if (!v)
		return NULL;
	unit_init(&v->u, &vec_ops, e, core, "core%d.vector", core);
	v->lanes = (int)ARCH_I(a, VEC_LANES);
	/* The latency classes of vector ops (names.def LATCLASS): move is
	 * data movement through the alu pipeline; only div and sfu are not
	 * fully pipelined. */
	v->lat[ISA_LAT_ALU] = v->lat[ISA_LAT_MOVE] = (int)ARCH_I(a, VEC_LAT_ALU);
	v->lat[ISA_LAT_MUL] = (int)ARCH_I(a, VEC_LAT_MUL);
	v->lat[ISA_LAT_DIV] = (int)ARCH_I(a, VEC_LAT_DIV);
	v->lat[ISA_LAT_SFU] = (int)ARCH_I(a, VEC_LAT_SFU);
	for (i = 0; i < ISA_N_LATS; i++)
		v->ii[i] = 1;
	v->ii[ISA_LAT_DIV] = (int)ARCH_I(a, VEC_II_DIV);
	v->ii[ISA_LAT_SFU] = (int)ARCH_I(a, VEC_II_SFU);
	v->lat_red = (int)ARCH_I(a, VEC_LAT_RED);
	v->window = (int)ARCH_I(a, VEC_INFLIGHT);
	v->fp8 = ARCH_B(a, VEC_FP8_SAT) ? NUM_OVF_SAT : NUM_OVF_IEEE;
	if (l)
		v->l = *l;
	v->slots = calloc((size_t)v->window, sizeof(*v->slots));
	if (!v->slots)
		goto fail;
	/*
	 * operand and result buffers: a lane group of up to 32-bit elements
	 * (+ 4: slack for a partial int4 byte; elements are at most 4 bytes)
	 */
	lane_bytes = (size_t)v->lanes * 4 + 4;
	for (i = 0; i < v->window; i++) {
		for (k = 0; k < 3; k++)
			if (!(v->slots[i].op[k] = calloc(1, lane_bytes)))
				goto fail;
		if (!(v->slots[i].out = calloc(1, lane_bytes)))
			goto fail;
		v->slots[i].out_cap = lane_bytes;
	}
	if (vec_mem(&v->mem[0], spm, "scratchpad") ||
	    vec_mem(&v->mem[1], acc, "accumulator") || eng_add_unit(e, &v->u))
		goto fail;
	return &v->u;
fail:
	vec_destroy(&v->u);
	return NULL;
}
