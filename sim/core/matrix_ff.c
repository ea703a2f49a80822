/*
 * matrix_ff.c - the matrix engine's fast-forward: stretches of the
 * sequencer's per-cycle work whose outcome is fixed, applied at once from
 * the pass that finds them, with the same counters, memory state, values
 * and sequencer state the per-cycle model (matrix.c) would leave, and
 * none of its events.  Two engines: uncontended streaming (mtx_ff_window)
 * and a stream that stalls the array on every row (mtx_ff_stall).  The
 * memories take their side of a stretch through the memory protocol's
 * fast-forward mode (port.h: mem_ff_quiet, mem_ff_cycle, mem_ff_stream,
 * mem_ff_chain).
 *
 * Invariants: a stretch is applied only when no other unit can act
 * before it ends (eng_horizon, eng_horizon_except) and no other requestor
 * has an access presented to the engine's memories; it never covers an
 * instruction's start or end, nor a cycle where two of the engine's own
 * accesses could meet; anything that could contend runs the per-cycle
 * way.  eng_set_fast_forward(0) (npusim run --no-fast-forward) turns both
 * off for cross-checks; the unit tests compare every counter with and
 * without (docs/timing.md, "Simulation cost").
 */
#include "matrix_int.h"

/* ---- fast-forward over uncontended streaming ---------------------------- */

/*
 * Most of an mmul's cycles do one thing: each stream issues its next row,
 * a one-cycle access that nothing else contends with, which completes
 * exactly at its deadline.  The per-cycle model spends a sequencer event,
 * an arbitration event and a completion event (per memory) on each such
 * cycle.  When nobody else can act before the window ends (eng_horizon:
 * no other unit's event, no sampling boundary, no pause or limit) and
 * nobody else has an access presented to the matrix engine's memories
 * (mem_ff_quiet), the outcome of those cycles is fixed: every access is
 * granted at its issue cycle and completes one cycle later, no array
 * cycle freezes, and no other unit can see the state in between.  So the
 * window's cycles are applied at once, from this pass: the same counters,
 * round-robin pointers and requestor positions in the memories (the
 * memory protocol's fast-forward mode: mem_ff_cycle, mem_ff_stream), the
 * same values captured and written in the same order (mtx_op_effect), the
 * same stream positions and instruction bookkeeping - only without the
 * events.
 *
 * A window [x, y) of array cycles holds only stream accesses: it ends
 * before any instruction's start or interval end (those notify the
 * control unit and may complete instructions), before the first access
 * of a stream that is not one access per cycle of one cycle each at a
 * memory of latency 1 (those may stall the array), before a cycle whose
 * accesses would meet in a bank or in a requestor, and early enough that
 * the completions of its last cycle (at y + off) come before the
 * horizon.  It starts only with no access of the engine in flight.
 * Contention is therefore never skipped: a cycle that could see any runs
 * the per-cycle model, and a competing requestor is an event (an issue
 * by another unit) that bounds every window.
 */

/* 1 if every access of the stream is one per cycle, of one cycle, at a
 * latency-1 memory that can fast-forward. */
static int ff_stream_ok(const struct mtx *m, const struct mtx_stream *s)
{
	const struct mem_port *p = &m->port[s->req];
	struct mem_info mi;

	if (s->dyn || s->per != 1 || !mem_has_ff(p))
		return 0;
	mem_info(p, &mi);
	/* lead = latency + the widest row's cycles - 1 (stream_lead) */
	return mi.latency == 1 && s->lead == 1;
}

/* One access of a window cycle. */
struct ff_op {
	struct mtx_insn *in;  /* its instruction */
	int si;               /* its stream */
	struct mem_req r;     /* the request it makes */
};

/* Accesses in one window cycle, and streams in one window, at most:
 * beyond, the per-cycle model runs (ff_gather, ff_bulk). */
#define FF_MAX_OPS 24
/* Array cycles one window may cover: bounds the instructions it looks at
 * (those with work before its end) in a deep queue of small ones. */
#define FF_SPAN 1024

/*
 * The accesses of array cycle c among the acting instructions, in the
 * order process_cycle issues them; *next = the following cycle with any.
 * Returns the count, or -1 if they are more than FF_MAX_OPS.
 */
static int ff_gather(struct mtx *m, struct mtx_insn *act, cycle_t c,
		     struct ff_op *ops, cycle_t *next)
{
	struct mtx_insn *in;
	int n = 0, i;

	*next = CYCLE_MAX;
	for (in = act; in; in = in->act_next)
		for (i = 0; i < in->n_st; i++) {
			struct mtx_stream *s = &in->st[i];
			cycle_t ic;

			if (s->next >= s->nops)
				continue;
			ic = mtx_op_issue_cycle(in, s, s->next);
			if (ic != c) {
				if (ic < *next)
					*next = ic;
				continue;
			}
			if (n == FF_MAX_OPS)
				return -1;
			ops[n].in = in;
			ops[n].si = i;
			mtx_op_req(s, mtx_op_row(s, s->next), c + m->off,
				   &ops[n].r);
			n++;
			/* per == 1: its next access is the next cycle's */
			if (c + 1 < *next)
				*next = c + 1;
		}
	return n;
}

/*
 * The memories' side of one cycle's accesses, grouped by memory: check
 * (apply 0) that none meets another in a bank or requestor, or account
 * them (apply 1).  Returns 0, MEM_RETRY (contended) or an error.
 */
static int ff_memories(struct mtx *m, const struct ff_op *ops, int n,
		       int apply)
{
	int done[FF_MAX_OPS] = { 0 }, i, k, rc;

	for (i = 0; i < n; i++) {
		const struct mem_port *p;
		struct mem_req rq[FF_MAX_OPS];
		int ids[FF_MAX_OPS], cnt = 0;

		if (done[i])
			continue;
		p = &m->port[ops[i].in->st[ops[i].si].req];
		for (k = i; k < n; k++) {
			const struct mem_port *q = &m->port[ops[k].in->st[ops[k].si].req];
			int j;

			if (done[k] || !mem_same_target(p, q))
				continue;
			/* one access per requestor per cycle */
			for (j = 0; j < cnt; j++)
				if (ids[j] == q->id)
					return MEM_RETRY;
			done[k] = 1;
			ids[cnt] = q->id;
			rq[cnt++] = ops[k].r;
		}
		if ((rc = mem_ff_cycle(p, ids, rq, cnt, apply)))
			return rc;
	}
	return 0;
}

/* A stream's accesses in a window: ops j0 .. j0 + cnt - 1, the first
 * issued at array cycle c0, one per cycle. */
struct ff_run {
	struct mtx_insn *in;  /* its instruction */
	int si;               /* its stream */
	uint32_t j0, cnt;     /* first op, ops */
	cycle_t c0;           /* array cycle of op j0 */
};

/* The matrix engine's side of a run's accesses: what op_issue and op_done
 * do for each (values only with values on: reads before writes, see
 * ff_bulk). */
static int ff_run_effect(struct mtx *m, const struct ff_run *u, int values)
{
	struct mtx_stream *s = &u->in->st[u->si];
	uint32_t j;
	int rc;

	if (values) {
		for (j = u->j0; j < u->j0 + u->cnt; j++)
			if ((rc = mtx_op_effect(m, u->in, u->si,
						mtx_op_row(s, j))))
				return rc;
		return 0;
	}
	m->u.ctr[s->write ? CTR_MATRIX_SRAM_WRITES :
			    CTR_MATRIX_SRAM_READS] += u->cnt;
	m->op_seq += u->cnt;
	s->next += u->cnt;
	u->in->ops_left -= u->cnt;
	if (u->c0 + u->cnt + m->off > u->in->last_done)
		u->in->last_done = u->c0 + u->cnt + m->off;
	return 0;
}

/*
 * The window [x, y) stream by stream, when each memory sees one requestor
 * at a time (WS and IS folds, mpre, mout): every access is then alone in
 * its memory, and each stream's are one bulk call to the memory.  Values
 * in order: every read of the window before every write, which is the
 * order of their completions wherever it matters (a result row needs
 * operand rows that completed before it; within a window no instruction
 * writes a memory that another of its accesses reads, since mout drains
 * the engine on both sides).  *adv = 0 (nothing done) when two
 * requestors of one memory overlap in time: the per-cycle path checks
 * their banks cycle by cycle.
 */
static int ff_bulk(struct mtx *m, struct mtx_insn *act, cycle_t x, cycle_t y,
		   int *adv)
{
	struct ff_run runs[FF_MAX_OPS], t;
	struct mtx_insn *in;
	int n = 0, i, k, rc, values = eng_values(m->u.eng);

	*adv = 0;
	for (in = act; in; in = in->act_next)
		for (i = 0; i < in->n_st; i++) {
			struct mtx_stream *s = &in->st[i];
			cycle_t c0;

			if (s->next >= s->nops ||
			    (c0 = mtx_op_issue_cycle(in, s, s->next)) >= y)
				continue;
			if (c0 < x || n == FF_MAX_OPS)
				return 0;
			runs[n].in = in;
			runs[n].si = i;
			runs[n].j0 = s->next;
			runs[n].cnt = s->nops - s->next < y - c0 ?
				      s->nops - s->next : (uint32_t)(y - c0);
			runs[n++].c0 = c0;
		}
	/* by first cycle (insertion sort: a handful), so that the memories
	 * see each requestor's accesses in time order */
	for (i = 1; i < n; i++) {
		t = runs[i];
		for (k = i; k > 0 && runs[k - 1].c0 > t.c0; k--)
			runs[k] = runs[k - 1];
		runs[k] = t;
	}
	for (i = 0; i < n; i++)
		for (k = i + 1; k < n; k++) {
			const struct mem_port *p = &m->port[runs[i].in->st[runs[i].si].req];
			const struct mem_port *q = &m->port[runs[k].in->st[runs[k].si].req];

			if (mem_same_target(p, q) &&
			    runs[k].c0 < runs[i].c0 + runs[i].cnt)
				return 0; /* two at once in one memory */
		}
	for (i = 0; i < n; i++) {
		const struct ff_run *u = &runs[i];
		struct mtx_stream *s = &u->in->st[u->si];
		const struct mem_port *p = &m->port[s->req];
		uint32_t row = mtx_op_row(s, u->j0), full = u->cnt;
		int64_t step = s->g > 1 ? (int64_t)s->stride * s->g :
			       s->rev ? -(int64_t)s->stride : (int64_t)s->stride;
		struct mem_req r;

		/* a grouped stream's last op may hold fewer rows */
		mtx_op_req(s, mtx_op_row(s, u->j0 + u->cnt - 1), 0, &r);
		if (r.bytes != s->bytes * s->g && s->g > 1)
			full--;
		if (full && (rc = mem_ff_stream(p,
					s->addr + (uint64_t)row * s->stride,
					step, s->bytes * s->g, full, s->write,
					u->c0 + m->off, 1)))
			return rc;
		if (full < u->cnt &&
		    (rc = mem_ff_stream(p, r.addr, 0, r.bytes, 1, s->write,
					u->c0 + full + m->off, 1)))
			return rc;
	}
	for (k = 0; values && k < 2; k++)
		for (i = 0; i < n; i++)
			if (runs[i].in->st[runs[i].si].write == k &&
			    (rc = ff_run_effect(m, &runs[i], 1)))
				return rc;
	for (i = 0; i < n; i++)
		if ((rc = ff_run_effect(m, &runs[i], 0)))
			return rc;
	*adv = n > 0;
	return 0;
}

/*
 * Try to fast-forward from array cycle x (real 'now', whose pass is about
 * to run).  *adv = 1 if a window was applied (the pass then schedules the
 * next one), 0 if cycle x must run the per-cycle way.
 */
int mtx_ff_window(struct mtx *m, cycle_t x, cycle_t now, int *adv)
{
	struct mtx_insn *act = NULL, *in, *next_in;
	struct ff_op ops[FF_MAX_OPS];
	cycle_t h, y, c, nc;
	int i, n, rc = 0;

	*adv = 0;
	if (!eng_fast_forward(m->u.eng) || m->be != &mtx_fast_backend ||
	    m->frozen || m->n_heap)
		return 0;
	for (i = 0; i < MTX_N_REQ; i++)
		if (!mem_ff_quiet(&m->port[i]))
			return 0;
	/* the completions of cycle y - 1 land at real y + off < h */
	h = eng_horizon(m->u.eng);
	if (h <= now + 1)
		return 0;
	y = h - 1 - m->off;
	if (y > x + FF_SPAN)
		y = x + FF_SPAN;
	mtx_due_collect(m, 0, y - 1, &act);
	for (in = act; in; in = in->act_next) {
		if (!in->started && in->b < y)
			y = in->b;
		if (!in->array_done && in->b + in->t - 1 < y)
			y = in->b + in->t - 1;
		for (i = 0; i < in->n_st; i++) {
			struct mtx_stream *s = &in->st[i];

			if (s->next < s->nops && !ff_stream_ok(m, s) &&
			    mtx_op_issue_cycle(in, s, s->next) < y)
				y = mtx_op_issue_cycle(in, s, s->next);
		}
	}
	if (y > x && (rc = ff_bulk(m, act, x, y, adv)))
		goto out;
	for (c = x; c < y && !*adv; c = nc) {
		if ((n = ff_gather(m, act, c, ops, &nc)) < 0)
			break;
		if ((rc = ff_memories(m, ops, n, 0))) {
			if (rc != MEM_RETRY)
				goto out;
			rc = 0;
			break;    /* contended: the per-cycle model decides */
		}
		if ((rc = ff_memories(m, ops, n, 1)))
			goto out;
		/* op_issue, then op_done at c + off + 1 (never late: no
		 * freeze, and never an instruction's last access) */
		for (i = 0; i < n; i++) {
			struct mtx_insn *oi = ops[i].in;
			struct mtx_stream *s = &oi->st[ops[i].si];

			m->u.ctr[s->write ? CTR_MATRIX_SRAM_WRITES :
					    CTR_MATRIX_SRAM_READS]++;
			m->op_seq++;
			if ((rc = mtx_op_effect(m, oi, ops[i].si,
						mtx_op_row(s, s->next))))
				goto out;
			s->next++;
			oi->ops_left--;
			if (c + m->off + 1 > oi->last_done)
				oi->last_done = c + m->off + 1;
		}
		*adv = 1;
	}
out:
	for (in = act; in; in = next_in) {
		next_in = in->act_next;
		mtx_due_rekey(m, in);
	}
	return rc;
}

/* ---- fast-forward over a stalling stream ---------------------------------- */

/*
 * A result row wider than its memory's banks can serve in a cycle (a
 * 128 x 128 array's 512-byte int32 rows on 128 bytes a cycle: w = 4
 * cycles each) makes the array stall on every row.  Alone, that settles
 * into a period of w cycles per row: write row j completes at D; the
 * sequencer, frozen on it, resumes: the row is w - 1 cycles late, the
 * array runs one cycle (it issues the next result row and, with a read
 * stream, the next operand row, whose access completes one cycle later)
 * and freezes on row j + 1, due one cycle later but done at D + w; the
 * memory serves the queued rows back to back.  Six events a row (the
 * write's completion and the next one's arbitration, the read's
 * arbitration and completion, two sequencer passes) for a state that
 * only shifts by the period.
 *
 * So when the sequencer freezes in that state - the one running
 * instruction frozen on its oldest result row at the array cycle of its
 * deadline, lead = w rows in flight, the memory serving them as a chain
 * (mem_ff_chain: alone, latency 1, each row w cycles), at most one read
 * stream of one-cycle rows in another memory whose next row issues now,
 * and nobody else acting before the shifted state's time
 * (eng_horizon_except, the engine's own and the memory's events of
 * these accesses aside) - k periods are applied at once: the memories
 * account the rows granted (mem_ff_chain, mem_ff_stream), the values are
 * captured and written in completion order, the freezes are accounted
 * (k (w - 1) stall cycles), the ops of rows still in flight are rebuilt
 * with the sequence numbers and deadlines they would have had, and the
 * sequencer stays frozen on row j + k, whose completion (scheduled by the
 * memory) resumes it as before.  A window ends before the instruction's
 * last cycle, before any other instruction's work, and before a stream
 * runs out.
 */

/* eng_horizon_except's filter: the sequencer's passes (stale ones: it is
 * frozen) and every event of the result memory (its requestor's alone). */
struct ff_mine {
	const struct unit *mtx;  /* the engine (its sequencer passes) */
	const struct unit *mem;  /* the result memory (all its events) */
};

static int ff_mine(void *ctx, const struct ev *ev)
{
	const struct ff_mine *f = ctx;

	return ev->unit == f->mem || (ev->unit == f->mtx && ev->kind == MTX_EV_SEQ);
}

/* Chain rows applied per window at most (bounds the buffer below). */
#define FF_CHAIN_MAX 256

int mtx_ff_stall(struct mtx *m, cycle_t now, mem_done_fn done)
{
	struct mtx_op *x = m->n_heap ? m->heap[0] : NULL, *keep[2 * FF_MAX_OPS];
	struct mem_req add[FF_CHAIN_MAX];
	struct mtx_insn *in, *act = NULL, *o;
	struct mtx_stream *ws, *rs = NULL;
	const struct mem_port *pw, *pr = NULL;
	struct mem_info mi;
	struct ff_mine mine;
	cycle_t aj, d, h, rd_done = 0, ld;
	uint64_t k, i, w, seq0, n_s;
	uint32_t x_row;
	int si_w, si_r = -1, pos_w = 0, n_keep = 0, n_done = 0, rc;
	size_t q;

	if (!x || !eng_fast_forward(m->u.eng) || m->be != &mtx_fast_backend ||
	    !(in = x->in) || m->run_head != in || in->run_next ||
	    in->array_done || in->completed)
		return 0;
	si_w = x->st;
	x_row = x->row; /* x itself is recycled below */
	ws = &in->st[si_w];
	pw = &m->port[ws->req];
	aj = x->deadline;
	w = ws->lead;
	if (!ws->write || ws->dyn || ws->per != 1 || ws->g != 1 || ws->rev ||
	    !mem_has_ff(pw) || w < 2 ||
	    w > FF_MAX_OPS || now - m->off != aj || ws->next >= ws->nops ||
	    x->row + w != ws->next ||
	    mtx_op_issue_cycle(in, ws, ws->next) != aj)
		return 0;
	mem_info(pw, &mi);
	if (mi.latency != 1 || !mi.period)
		return 0;
	/* every row w cycles (lead is the worst): rows repeat their bank
	 * alignment every span / gcd(stride, span) */
	{
		uint64_t a = ws->stride % mi.period, b = mi.period, t, per;

		while (a) {
			t = b % a;
			b = a;
			a = t;
		}
		per = mi.period / b;
		if (per > 64)
			return 0;
		for (i = 0; i < per; i++)
			if (mem_alone_cycles(pw, ws->addr + (ws->next + i) *
					     ws->stride, ws->bytes) != w)
				return 0;
	}
	/* at most one read stream going on: one-cycle rows in another
	 * memory, its next row issued now */
	for (i = 0; i < (uint64_t)in->n_st; i++) {
		struct mtx_stream *s = &in->st[i];

		if ((int)i == si_w || s->next >= s->nops)
			continue;
		if (rs || s->write || s->dyn || s->per != 1 || s->g != 1 ||
		    s->rev || s->lead != 1 ||
		    mtx_op_issue_cycle(in, s, s->next) != aj)
			return 0;
		rs = s;
		si_r = (int)i;
		pr = &m->port[s->req];
		if (mem_same_target(pr, pw) || !mem_ff_quiet(pr))
			return 0;
	}
	/* in flight: the w result rows from x's, and the read due now */
	if (m->n_heap > w + 1)
		return 0;
	for (q = 0; q < m->n_heap; q++) {
		const struct mtx_op *op = m->heap[q];

		if (op->done ? op->deadline != aj || n_done++ :
		    op->in != in || op->st != si_w || op->row < x->row ||
		    op->row >= x->row + w || op->deadline != op->row - x->row + aj)
			return 0;
	}
	if (m->n_heap != w + (uint64_t)n_done)
		return 0;
	/* the memory's side: a chain whose head (x's row) completes when
	 * the period says */
	if (mem_ff_chain(pw, 0, NULL, &d) ||
	    d != now + w - 1)
		return 0;
	/* how many periods: rows left, the instruction's last cycle, other
	 * instructions' work, and anybody else acting before the shifted
	 * state's time D + (k - 1) w + 1 */
	k = ws->nops - ws->next;
	if (rs && rs->nops - rs->next < k)
		k = rs->nops - rs->next;
	if (in->b + in->t - 1 - aj < k)
		k = in->b + in->t - 1 - aj;
	if (k > FF_CHAIN_MAX)
		k = FF_CHAIN_MAX;
	mtx_due_collect(m, 0, aj + k, &act);
	for (o = act; o; o = o->act_next)
		if (o != in && (o->key <= aj || o->key - aj < k))
			k = o->key > aj ? o->key - aj : 0;
	mine.mtx = &m->u;
	mine.mem = mem_ff_unit(pw);
	h = eng_horizon_except(m->u.eng, ff_mine, &mine);
	if (h < d + 2)
		return 0;
	if ((h - d - 2) / w + 1 < k)
		k = (h - d - 2) / w + 1;
	if (!k)
		return 0;

	/*
	 * Apply.  Row i (0 <= i < k) of the window: result row x->row + i
	 * completes at D_i = d + i w; the array runs cycle aj + i, issuing
	 * result row ws->next + i (due aj + i + w) and operand row
	 * rs->next + i (due aj + i + 1, complete D_i + 1), in stream order.
	 */
	n_s = rs ? 2 : 1;
	pos_w = rs && si_r < si_w;
	seq0 = m->op_seq;
	for (i = 0; i < k; i++) {
		struct mem_req *r = &add[i];

		mtx_op_req(ws, mtx_op_row(ws, ws->next + (uint32_t)i),
			   d + i * w, r);
		r->done = done;
		r->ctx = m;
		r->tag = 0; /* completed within the window: never called */
	}
	/* the ops still in flight afterwards: result rows x->row + k on,
	 * old ones kept, new ones made; and the last operand row's (done) */
	for (q = 0; q < m->n_heap; q++) {
		struct mtx_op *op = m->heap[q];

		if (!op->done && op->row >= x_row + k)
			keep[n_keep++] = op;
		else {
			op->free_next = m->free_ops;
			m->free_ops = op;
		}
	}
	for (i = k > w ? k - w : 0; i < k; i++) {
		struct mtx_op *op = mtx_op_new(m, in, si_w,
					       mtx_op_row(ws, ws->next +
							  (uint32_t)i),
					       aj + i + w,
					       seq0 + i * n_s + (uint64_t)pos_w);

		if (!op)
			return NPU_ENOMEM;
		add[i].tag = (uint64_t)(uintptr_t)op;
		keep[n_keep++] = op;
	}
	if (rs) {
		struct mtx_op *op = mtx_op_new(m, in, si_r,
					       mtx_op_row(rs, rs->next +
							  (uint32_t)(k - 1)),
					       aj + k, seq0 + (k - 1) * n_s +
					       (uint64_t)!pos_w);

		if (!op)
			return NPU_ENOMEM;
		rd_done = d + (k - 1) * w + 1;
		op->in = NULL; /* as op_done leaves a completed op */
		op->done = 1;
		op->done_at = rd_done;
		keep[n_keep++] = op;
	}
	/* the memories */
	if ((rc = mem_ff_chain(pw, k, add, &h)))
		return rc == MEM_RETRY ? NPU_EINTERNAL : rc;
	if (rs) {
		struct mem_req r0;

		mtx_op_req(rs, mtx_op_row(rs, rs->next), d, &r0);
		if ((rc = mem_ff_stream(pr, r0.addr, (int64_t)rs->stride,
					r0.bytes, k, 0, d, w)))
			return rc;
	}
	/* the values, in completion order: result row, then operand row */
	for (i = 0; i < k; i++) {
		if ((rc = mtx_op_effect(m, in, si_w,
					mtx_op_row(ws, x_row + (uint32_t)i))))
			return rc;
		if (rs && (rc = mtx_op_effect(m, in, si_r,
					      mtx_op_row(rs, rs->next +
							 (uint32_t)i))))
			return rc;
	}
	/* the sequencer: counters, freezes, positions, ops in flight */
	m->n_heap = 0;
	for (q = 0; q < (size_t)n_keep; q++)
		if ((rc = mtx_heap_push(m, keep[q])))
			return rc;
	m->u.ctr[CTR_MATRIX_SRAM_WRITES] += k;
	if (rs)
		m->u.ctr[CTR_MATRIX_SRAM_READS] += k;
	m->op_seq += k * n_s;
	mtx_account_freeze(m, aj, k * (w - 1));
	m->off += k * (w - 1);
	in->ops_left -= (uint32_t)(k * n_s);
	ld = rs ? rd_done : d + (k - 1) * w;
	if (ld > in->last_done)
		in->last_done = ld;
	ws->next += (uint32_t)k;
	if (rs)
		rs->next += (uint32_t)k;
	mtx_due_rekey(m, in);
	m->frozen = 1;
	m->frozen_at = aj + k;
	m->seq_gen += (uint32_t)(2 * k);
	m->seq_when = d + (k - 1) * w + 1;
	return 0;
}
