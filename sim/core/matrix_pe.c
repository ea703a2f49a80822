/*
 * matrix_pe.c - the per-PE reference model of the systolic array
 * (core.matrix.model = "pe", npusim run --matrix-model=pe).
 *
 * Every PE has its registers; every operand and partial sum moves one hop
 * per array cycle; nothing is computed by formula.  The sequencer, operand
 * feeders and SRAM traffic are shared with the fast model (matrix.c), so
 * the two models agree on cycles exactly when this array delivers every
 * result row at the cycle the fast model's formulas say.  This model also
 * checks, per instruction, that the array's last activity falls on the
 * last cycle of the interval the controller allotted (else the formula
 * and the data movement disagree: an internal error naming both cycles).
 *
 * The array (R rows x C columns), per PE (i, j):
 *   w, ws   stationary value and its shadow (double-buffering): written by
 *           preloads that shift rows down from the top edge, one row per
 *           cycle; ws is copied into w when a swapping mmul starts;
 *   h       the operand moving right (tagged with its stream row);
 *   v       WS/IS: the partial sum moving down; OS: the B operand moving
 *           down (tagged);
 *   acc     OS: the output accumulated in place.
 * Edges: the left edge of array row i receives element i of stream row
 * s - i at array cycle s of the instruction (the skew buffers, which are
 * outside the array, are modelled by that index); OS's top edge gives
 * column j element j of B row s - j.  Padding (rows i >= K, columns
 * j >= N, ...) carries zeros through the PEs like real data.
 * WS/IS results leave the bottom edge and collect in a de-skew buffer; a
 * result row is written when its last column (C-1) arrives.  OS rows are
 * read out of the PEs when PE (i, C-1) has taken its last product, or, with
 * core.matrix.os_drain, shift out through the bottom after the last
 * product.  pipeline_latency P delays every result row by P cycles.
 *
 * Dependencies run one way: the sequencer (matrix.c) drives this model
 * through struct mtx_backend and takes its result rows from pe_row_out;
 * the model itself calls only the numerics both models share
 * (matrix_num.c), never the sequencer or the fast model.
 *
 * Cost: O(R x C) per array cycle, by design.  This is the oracle, not the
 * simulator's default.
 */
#include "matrix_int.h"

#include <stdlib.h>
#include <string.h>

#include "../../util/num.h"

/*
 * A tagged register: a value and the stream row (k for OS) it belongs to.
 * Tags make the model self-checking: a PE that combines an operand with
 * a partial sum (or, in OS, two operands) of different tags proves the
 * skew wrong, and the run stops with an internal error.
 */
struct pe_reg {
	union mtx_val val; /* the value */
	int32_t tag;       /* stream row (WS/IS) or k (OS); -1 = empty */
};

/* A result row waiting for its write: pipeline_latency cycles after the
 * array completed it (0: the same cycle). */
struct pe_emit {
	cycle_t when;          /* array cycle to issue the write */
	struct mtx_insn *in;   /* instruction */
	uint32_t row;          /* result row */
};

/* The array. */
struct pe {
	uint32_t R, C;         /* size */
	union mtx_val *w, *ws; /* stationary registers, R*C each */
	struct pe_reg *h, *v;  /* moving registers, R*C each */
	struct pe_reg *h2, *v2;/* next-cycle copies (registers update at once) */
	union mtx_val *acc;    /* OS accumulators, R*C */
	int32_t *acc_row;      /* OS: original row held by each array row */
	cycle_t next_x;        /* first array cycle not yet stepped */
	struct pe_emit *q;     /* completed result rows not yet handed to the
				  sequencer (row_out), in completion order */
	size_t n_q, cap_q;     /* queued rows / allocated */
};

/* Per-instruction state. */
struct pe_insn {
	uint32_t *cols_seen;   /* WS/IS: result columns collected per row */
	cycle_t last_active;   /* last array cycle a PE did real work */
	int any_active;        /* last_active is valid */
};

/* The backend's state hangs off the unit (matrix_int.h's 'pe'). */
static struct pe *P_(const struct mtx *m) { return m->pe; }

/* Element i of a stored row, decoded as mtx_decode does. */
static union mtx_val elem(int t, const uint8_t *row, uint32_t i)
{
	uint32_t b = num_get_bits((enum npu_dtype)t, row, i);
	union mtx_val v;

	if (dtype_is_float((enum npu_dtype)t))
		v.f = num_decode_f32((enum npu_dtype)t, b);
	else
		v.i = (int32_t)num_sext(b, dtype_bits((enum npu_dtype)t));
	return v;
}

/*
 * The value a padding PE holds or a chain starts from: +0 (never -0, so an
 * all-padding chain gives the same bits the fast model's skipped one does).
 */
static union mtx_val zero_of(int is_float)
{
	union mtx_val z;

	z.i = 0;
	if (is_float)
		z.f = 0.0f; /* +0: every chain starts here */
	return z;
}

/*
 * Allocate the array once per unit: R*C registers of each kind, plus the
 * next-cycle copies of the moving ones (every PE reads its neighbours'
 * values of the previous cycle, so the update must not be in place).
 */
static int pe_init(struct mtx *m)
{
	struct pe *p = calloc(1, sizeof(*p));
	size_t n = (size_t)m->rows * m->cols;

	if (!p)
		return NPU_ENOMEM;
	m->pe = p;
	p->R = m->rows;
	p->C = m->cols;
	p->w = calloc(n, sizeof(*p->w));
	p->ws = calloc(n, sizeof(*p->ws));
	p->h = calloc(n, sizeof(*p->h));
	p->v = calloc(n, sizeof(*p->v));
	p->h2 = calloc(n, sizeof(*p->h2));
	p->v2 = calloc(n, sizeof(*p->v2));
	p->acc = calloc(n, sizeof(*p->acc));
	p->acc_row = calloc(m->rows, sizeof(*p->acc_row));
	if (!p->w || !p->ws || !p->h || !p->v || !p->h2 || !p->v2 ||
	    !p->acc || !p->acc_row)
		return NPU_ENOMEM;
	return 0;
}

static void pe_fini(struct mtx *m)
{
	struct pe *p = m->pe;

	if (!p)
		return;
	free(p->w);
	free(p->ws);
	free(p->h);
	free(p->v);
	free(p->h2);
	free(p->v2);
	free(p->acc);
	free(p->acc_row);
	free(p->q);
	free(p);
	m->pe = NULL;
}

/*
 * Per-instruction bookkeeping: which result columns of each row have
 * reached the de-skew buffer (a row is complete when all C have), and the
 * last cycle the array did work for it (checked against its interval).
 */
static int pe_place(struct mtx *m, struct mtx_insn *in)
{
	struct pe_insn *s;

	(void)m;
	if (in->path == MTX_PATH_OUT)
		return 0; /* mout is not an array operation */
	s = calloc(1, sizeof(*s));
	if (!s)
		return NPU_ENOMEM;
	if (in->kind != MTX_PRELOAD && in->df != MTX_OS) {
		s->cols_seen = calloc(in->st[in->w_st].n, sizeof(uint32_t));
		if (!s->cols_seen) {
			free(s);
			return NPU_ENOMEM;
		}
	}
	in->pe = s;
	return 0;
}

static void pe_insn_done(struct mtx *m, struct mtx_insn *in)
{
	struct pe_insn *s = in->pe;

	(void)m;
	if (s) {
		free(s->cols_seen);
		free(s);
		in->pe = NULL;
	}
}

/* Instructions that occupy the array or its shadow registers. */
static int in_array(const struct mtx_insn *in)
{
	return in->placed && !in->completed && in->path != MTX_PATH_OUT;
}

/*
 * The array must be stepped at every cycle of every array or weight-load
 * interval, in order, and at the cycles delayed result rows are due.  The
 * sequencer visits the returned cycle (after its deadlines are met), so no
 * interval cycle is skipped.  Idle cycles between intervals are not
 * stepped: the array is empty then (check_end makes sure of it).
 * Only started instructions are looked at: an unstarted one would offer
 * its B, and the sequencer's own next cycle (the due heap's top, at most
 * that B) already covers it, so a deep queue of waiting instructions
 * costs nothing here (matrix_int.h, "Host cost").
 */
static cycle_t pe_next_step(const struct mtx *m)
{
	const struct pe *p = P_(m);
	const struct mtx_insn *in;
	cycle_t best = p->n_q ? p->q[0].when : CYCLE_MAX;

	for (in = m->run_head; in; in = in->run_next) {
		cycle_t lo;

		if (!in_array(in))
			continue;
		lo = in->b > p->next_x ? in->b : p->next_x;
		if (lo < in->b + in->t && lo < best)
			best = lo;
	}
	return best;
}

/* Record that the array did real work for 'in' at cycle x. */
static void active(struct mtx_insn *in, cycle_t x)
{
	struct pe_insn *s = in->pe;

	s->last_active = x;
	s->any_active = 1;
}

/*
 * A result row is complete at array cycle x: its write issues P cycles
 * later (with P = 0 at x itself, once the step is over: pe_row_out).
 */
static int row_ready(struct mtx *m, struct mtx_insn *in, uint32_t row,
		     cycle_t x)
{
	struct pe *p = P_(m);

	if (p->n_q == p->cap_q) {
		size_t cap = p->cap_q ? 2 * p->cap_q : 16;
		struct pe_emit *v = realloc(p->q, cap * sizeof(*v));

		if (!v)
			return NPU_ENOMEM;
		p->q = v;
		p->cap_q = cap;
	}
	/* rows complete in emission order, so the queue stays sorted */
	p->q[p->n_q].when = x + m->pipe;
	p->q[p->n_q].in = in;
	p->q[p->n_q].row = row;
	p->n_q++;
	return 0;
}

/* Preload cycle s: shift the stationary chain down one row. */
static void step_preload(struct mtx *m, struct mtx_insn *in, cycle_t x)
{
	struct pe *p = P_(m);
	union mtx_val *t = in->path == MTX_PATH_WEIGHT ? p->ws : p->w;
	struct mtx_tile *tile = in->tile;
	int fl = dtype_is_float((enum npu_dtype)in->in_type);
	uint32_t s = (uint32_t)(x - in->b), i, j;
	/*
	 * row R-1-s enters the top now; rows >= K are zeros
	 * s runs 0..R-1 (T = R): stored row k enters at s = R-1-k, so after
	 * the last cycle row k sits in array row k, row 0 at the top.
	 */
	uint32_t k = p->R - 1 - s;

	/* every row hands its values to the row below, bottom first so
	 * nothing is overwritten before it moved */
	for (i = p->R - 1; i > 0; i--)
		memcpy(&t[(size_t)i * p->C], &t[(size_t)(i - 1) * p->C],
		       p->C * sizeof(*t));
	for (j = 0; j < p->C; j++)
		t[j] = (k < tile->rows && j < tile->cols)
		       ? elem(tile->type, tile->data + (size_t)k * tile->row_bytes, j)
		       : zero_of(fl);
	active(in, x);
}

/* Clear the moving registers at the start of an mmul. */
static void clear_moving(struct pe *p)
{
	size_t i, n = (size_t)p->R * p->C;

	for (i = 0; i < n; i++)
		p->h[i].tag = p->v[i].tag = -1;
}

/*
 * WS / IS cycle s: operands move right, partial sums move down, each PE
 * adds its product; the bottom row's sums enter the de-skew buffer.
 *
 * Timing that falls out of the movement: stream row r's element i enters
 * PE (i, 0) at s = r + i and reaches PE (i, j) at r + i + j; the sum of
 * column j leaves the bottom row at r + R - 1 + j, so the row is complete
 * at r + R + C - 2, the fast model's formula (docs/timing.md, WS).
 */
static int step_stream(struct mtx *m, struct mtx_insn *in, cycle_t x)
{
	struct pe *p = P_(m);
	struct pe_insn *ps = in->pe;
	struct mtx_stream *a = &in->st[0], *w = &in->st[in->w_st];
	int fl = dtype_is_float((enum npu_dtype)in->in_type);
	int64_t s = (int64_t)(x - in->b);
	uint32_t R = p->R, C = p->C, i, j;
	uint32_t used = w->bytes / 4; /* result columns stored */
	int rc, did = 0;

	for (i = 0; i < R; i++)
		for (j = 0; j < C; j++) {
			size_t ij = (size_t)i * C + j;
			struct pe_reg hin, pin;

			/* left edge: the skew buffer of row i delivers
			 * element i of the stream row that entered i cycles
			 * ago; inner PEs take their left neighbour's value */
			if (j == 0) {
				int64_t r = s - (int64_t)i;

				hin.tag = -1; /* a bubble: no operand this cycle */
				hin.val = zero_of(fl);
				if (r >= 0 && r < (int64_t)a->n) {
					hin.tag = (int32_t)r;
					hin.val = i < in->k
						? elem(in->in_type, a->buf + (size_t)r * a->bytes, i)
						: zero_of(fl);
				}
			} else {
				hin = p->h[ij - 1];
			}
			/* top row: a fresh chain from +0 for the operand's
			 * row; below: the partial sum from the PE above */
			if (i == 0) {
				pin.tag = hin.tag;
				pin.val = zero_of(fl);
			} else {
				pin = p->v[ij - C];
			}
			/*
			 * Write the next-cycle copies only: every PE must read
			 * its neighbours' values of the previous cycle.
			 */
			p->h2[ij] = hin;
			p->v2[ij].tag = -1;
			if (hin.tag < 0)
				continue;
			/* the sum arriving from above must belong to the
			 * same stream row as the operand arriving from the
			 * left: this is what the skew buffers guarantee */
			if (pin.tag != hin.tag)
				return NPU_EINTERNAL; /* skew broken */
			p->v2[ij].tag = hin.tag;
			p->v2[ij].val = mtx_mac(fl, pin.val, hin.val, p->w[ij]);
			did = 1;
		}
	memcpy(p->h, p->h2, (size_t)R * C * sizeof(*p->h));
	memcpy(p->v, p->v2, (size_t)R * C * sizeof(*p->v));
	if (did)
		active(in, x);
	/*
	 * Bottom edge -> de-skew buffer.  Column j delivers its sum for a row
	 * one cycle after column j-1 did, so the columns of a row arrive in
	 * order and the row is complete with column C-1 (padding columns
	 * included, as in hardware the buffer is C wide).
	 */
	for (j = 0; j < C; j++) {
		struct pe_reg *o = &p->v[(size_t)(R - 1) * C + j];
		uint32_t r;

		if (o->tag < 0)
			continue;
		r = (uint32_t)o->tag;
		/* Padding columns (j >= N or M) flow through, unstored. */
		if (j < used)
			num_set_bits(DT_INT32, w->buf + (size_t)r * w->bytes, j,
				     fl ? num_f32_bits(o->val.f)
					: (uint32_t)o->val.i);
		if (ps->cols_seen[r]++ != j)
			return NPU_EINTERNAL; /* columns out of order */
		if (j == C - 1 && (rc = row_ready(m, in, r, x)))
			return rc;
	}
	return 0;
}

/* Copy OS row i's accumulators (array row 'ar') into the result buffer. */
static void os_row_out(struct pe *p, struct mtx_insn *in, uint32_t ar,
		       uint32_t i, int fl)
{
	struct mtx_stream *w = &in->st[in->w_st];
	uint32_t j;

	for (j = 0; j < in->n; j++)
		num_set_bits(DT_INT32, w->buf + (size_t)i * w->bytes, j,
			     fl ? num_f32_bits(p->acc[(size_t)ar * p->C + j].f)
				: (uint32_t)p->acc[(size_t)ar * p->C + j].i);
}

/*
 * OS cycle s: A^T elements move right, B elements move down, each PE
 * accumulates its product in place; a row is read out when its last PE has
 * taken product K-1 (or, with os_drain, the rows shift out afterwards).
 */
static int step_os(struct mtx *m, struct mtx_insn *in, cycle_t x)
{
	struct pe *p = P_(m);
	struct mtx_stream *a = &in->st[0], *b = &in->st[1];
	int fl = dtype_is_float((enum npu_dtype)in->in_type);
	int64_t s = (int64_t)(x - in->b);
	/*
	 * The last product is at K-1 + (R-1) + (C-1) = t0 - 1; with os_drain
	 * cycles t0 .. t0+R-1 shift the R array rows out, bottom first.
	 */
	int64_t t0 = (int64_t)in->k + p->R + p->C - 2; /* compute cycles */
	uint32_t R = p->R, C = p->C, i, j;
	int rc, did = 0;

	/* a fold's accumulators start at +0; mmacc adds to the memory's
	 * value on write, like every dataflow */
	if (s == 0) {
		for (i = 0; i < R * C; i++)
			p->acc[i] = zero_of(fl);
		for (i = 0; i < R; i++)
			p->acc_row[i] = (int32_t)i;
	}
	if (m->os_drain && s >= t0) {
		/* drain: the bottom row leaves, everything shifts down */
		int64_t d = s - t0;

		if (d >= (int64_t)R)
			return 0; /* only the P tail remains */
		if (p->acc_row[R - 1] >= 0 &&
		    (uint32_t)p->acc_row[R - 1] < in->m) {
			os_row_out(p, in, R - 1, (uint32_t)p->acc_row[R - 1], fl);
			if ((rc = row_ready(m, in, (uint32_t)p->acc_row[R - 1], x)))
				return rc;
		}
		for (i = R - 1; i > 0; i--) {
			memcpy(&p->acc[(size_t)i * C], &p->acc[(size_t)(i - 1) * C],
			       C * sizeof(*p->acc));
			p->acc_row[i] = p->acc_row[i - 1];
		}
		/* The top row now holds no result (a bubble shifted in). */
		p->acc_row[0] = -1;
		active(in, x);
		return 0;
	}
	for (i = 0; i < R; i++)
		for (j = 0; j < C; j++) {
			size_t ij = (size_t)i * C + j;
			struct pe_reg hin, vin;

			if (j == 0) {
				int64_t k = s - (int64_t)i;

				hin.tag = -1; /* a bubble: no operand this cycle */
				hin.val = zero_of(fl);
				if (k >= 0 && k < (int64_t)in->k) {
					hin.tag = (int32_t)k;
					hin.val = i < in->m
						? elem(in->in_type, a->buf + (size_t)k * a->bytes, i)
						: zero_of(fl);
				}
			} else {
				hin = p->h[ij - 1];
			}
			if (i == 0) {
				int64_t k = s - (int64_t)j;

				vin.tag = -1;
				vin.val = zero_of(fl);
				if (k >= 0 && k < (int64_t)in->k) {
					vin.tag = (int32_t)k;
					vin.val = j < in->n
						? elem(in->in_type, b->buf + (size_t)k * b->bytes, j)
						: zero_of(fl);
				}
			} else {
				vin = p->v[ij - C];
			}
			p->h2[ij] = hin;
			p->v2[ij] = vin;
			/* both operands of a product carry the same k, or
			 * neither is there yet / any more: A and B enter
			 * skewed by i and j, so both reach PE (i, j) at
			 * k + i + j */
			if (hin.tag < 0 && vin.tag < 0)
				continue;
			if (hin.tag != vin.tag)
				return NPU_EINTERNAL; /* operands of different k */
			p->acc[ij] = mtx_mac(fl, p->acc[ij], hin.val, vin.val);
			did = 1;
			/* the row's last PE took its last product */
			if (!m->os_drain && j == C - 1 &&
			    hin.tag == (int32_t)in->k - 1 && i < in->m) {
				os_row_out(p, in, i, i, fl);
				if ((rc = row_ready(m, in, i, x)))
					return rc;
			}
		}
	memcpy(p->h, p->h2, (size_t)R * C * sizeof(*p->h));
	memcpy(p->v, p->v2, (size_t)R * C * sizeof(*p->v));
	if (did)
		active(in, x);
	return 0;
}

/* Check that the array's work ended where the controller's interval does. */
static int check_end(struct mtx *m, struct mtx_insn *in)
{
	struct pe_insn *ps = in->pe;
	/*
	 * The last P cycles of an mmul's interval are the result pipeline
	 * outside the array: the PEs' last work is P cycles before the end.
	 */
	cycle_t want = in->b + in->t - 1 -
		       (in->kind == MTX_PRELOAD ? 0 : m->pipe);

	if (ps->any_active && ps->last_active == want)
		return 0;
	if (eng_diag(m->u.eng))
		(void)diag_error(eng_diag(m->u.eng),
				 diag_at_run(m->u.core, in->cmd.pc,
					     eng_now(m->u.eng)),
				 NPU_EINTERNAL,
				 "matrix (pe model): the array's last activity was at array cycle %llu, the controller expected %llu",
				 (unsigned long long)ps->last_active,
				 (unsigned long long)want);
	return NPU_EINTERNAL;
}

/*
 * One array cycle: swapping mmuls take the shadow tile and clear the
 * moving registers, then every instruction in its interval does its cycle
 * (at most one on the array and one on the shadow registers), and an
 * instruction on its last cycle has its end checked.  The result rows
 * due at x (delayed ones, and with P = 0 those completed now) then go to
 * the sequencer through pe_row_out.
 */
static int pe_step(struct mtx *m, cycle_t x)
{
	struct pe *p = P_(m);
	struct mtx_insn *in;
	int rc;

	/*
	 * The sequencer can visit a cycle twice (once before a freeze
	 * at it, once after); the array steps it only once.
	 */
	if (x < p->next_x)
		return 0; /* already stepped */
	p->next_x = x + 1;
	/*
	 * Swaps and fresh starts first: they act on the registers' state at
	 * the beginning of the cycle.  Every instruction with B <= x has
	 * started by now (the sequencer starts B == x before stepping), so
	 * the running list, in program order, holds all that can act.
	 */
	for (in = m->run_head; in; in = in->run_next) {
		if (!in_array(in) || in->b != x || in->path != MTX_PATH_COMPUTE ||
		    in->kind == MTX_PRELOAD)
			continue;
		/*
		 * The double-buffered tile becomes active at the first
		 * cycle of the swapping mmul (docs/timing.md
		 * "Weight double-buffering").
		 */
		if (in->swap)
			memcpy(p->w, p->ws, (size_t)p->R * p->C * sizeof(*p->w));
		clear_moving(p);
	}
	for (in = m->run_head; in; in = in->run_next) {
		rc = 0;
		if (!in_array(in) || x < in->b || x >= in->b + in->t)
			continue;
		if (in->kind == MTX_PRELOAD)
			step_preload(m, in, x);
		else if (in->df == MTX_OS)
			rc = step_os(m, in, x);
		else
			rc = step_stream(m, in, x);
		if (in->kind != MTX_PRELOAD && rc) {
			if (rc == NPU_EINTERNAL && eng_diag(m->u.eng))
				(void)diag_error(eng_diag(m->u.eng),
						 diag_at_run(m->u.core, in->cmd.pc,
							     eng_now(m->u.eng)),
						 rc, "matrix (pe model): data movement broken at array cycle %llu",
						 (unsigned long long)x);
			return rc;
		}
		if (x == in->b + in->t - 1 && (rc = check_end(m, in)))
			return rc;
	}
	return 0;
}

/*
 * The next result row whose write issues at x, oldest first (the queue is
 * in completion order, hence in order of due cycle: P is one constant).
 * The sequencer asks after each step and issues the writes ahead of the
 * cycle's static accesses; with P = 0 the rows the step just completed
 * are among them, in the order the array completed them.
 */
static int pe_row_out(struct mtx *m, cycle_t x, struct mtx_insn **in,
		      uint32_t *row)
{
	struct pe *p = P_(m);

	if (!p->n_q || p->q[0].when != x)
		return 0;
	*in = p->q[0].in;
	*row = p->q[0].row;
	/* the queue holds the rows of the last P cycles: a short shift */
	memmove(p->q, p->q + 1, --p->n_q * sizeof(*p->q));
	return 1;
}

/*
 * Result rows were filled by the array; mout rows use the shared path.
 * mout is not an array operation (the requantisation stage), so both
 * models share its arithmetic (matrix_num.c).
 */
static int pe_row_values(struct mtx *m, struct mtx_insn *in, uint32_t row)
{
	(void)m;
	if (in->kind == MTX_OUT)
		mtx_mout_row(in, row);
	return 0;
}

const struct mtx_backend mtx_pe_backend = {
	.name = "pe",
	.init = pe_init,
	.fini = pe_fini,
	.place = pe_place,
	.next_step = pe_next_step,
	.step = pe_step,
	.row_out = pe_row_out,
	.row_values = pe_row_values,
	.insn_done = pe_insn_done,
};
