/*
 * matrix.c - the systolic matrix engine as a unit: accepting commands,
 * placing them on the array clock, the sequencer's passes with global
 * stalls (the mout path included), completion and counters.  The other
 * files of the engine and how they depend on each other: matrix_int.h;
 * docs/timing.md derives every cycle number used here.
 *
 * Array timing of one instruction (array cycles from its start B; R x C
 * array; P = core.matrix.pipeline_latency):
 *   mpre  WS/IS  T = R: stationary row k enters the top at R-1-k and has
 *                shifted down to array row k at the end of cycle R-1.
 *   mmul  WS     T = M + R + C - 2 + P: A row m enters the left skew buffer
 *                at m; C row m leaves the de-skew buffer at m+R+C-2+P.
 *         IS     T = N + R + C - 2 + P: the same with B^T rows streaming and
 *                C^T rows leaving.
 *         OS     T = K + R + C - 2 + P: A^T row k and B row k enter at k;
 *                PE (i,j) takes its last product at K-1+i+j, so C row i is
 *                complete at K+i+C-2(+P).  With core.matrix.os_drain the
 *                results instead shift out through the bottom after the
 *                last product: R more cycles, row i at K+R+C-2+R-1-i(+P).
 *   mout         T = rows + 1: accumulator row r is consumed at r and its
 *                requantised row written to the scratchpad at r+1.
 * Partial folds (K < R, N < C, ...) still pay the full R and C terms: the
 * data crosses the whole array (SCALE-Sim's model).
 *
 * Cost: events per row access and per instruction boundary; values cost
 * M*K*N MACs per mmul (the functional work itself).  Nothing here loops
 * over R x C, nor, per array cycle, over the instruction queue (the due
 * heap and running list of matrix_int.h, "Host cost").
 */
#include "matrix_int.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- small helpers ------------------------------------------------------ */

/* The unit is the first member of struct mtx (unit.h's convention). */
static struct mtx *M_(struct unit *u) { return (struct mtx *)u; }

/*
 * Drop a reference to a stationary tile.  A tile is shared by its mpre, by
 * every mmul that computes with it, and by the "latest preload" slot of
 * program order, so it lives exactly as long as anything may still read it.
 */
static void tile_put(struct mtx_tile *t)
{
	if (t && --t->refs == 0) {
		free(t->data);
		free(t->dec);
		free(t->wp);
		free(t->wq);
		free(t->wq_sum);
		free(t);
	}
}

/* ---- the access sequencer ----------------------------------------------- */

/*
 * Keep exactly one live sequencer event.  Rescheduling (a new instruction
 * made earlier work appear, or a stall pushed the next cycle later) bumps
 * the generation word, which makes the engine drop the old event when it
 * pops instead of running a pass at the wrong time.
 */
static int seq_schedule(struct mtx *m, cycle_t r)
{
	if (m->seq_when == r)
		return 0;
	m->seq_gen++; /* the previously scheduled pass, if any, is stale */
	m->seq_when = r;
	return eng_schedule_gen(m->u.eng, r, EV_PRI_ISSUE, &m->u, MTX_EV_SEQ,
				0, &m->seq_gen);
}

/* Run the sequencer at the current cycle (as an ISSUE-phase event). */
static int seq_kick(struct mtx *m)
{
	return seq_schedule(m, eng_now(m->u.eng));
}

/*
 * Wake the control unit: tile.h's tile_notify contract (an EV_PRI_WAKE
 * event of the listener's kind at the current cycle), done in place.
 */
static int notify(struct mtx *m)
{
	if (!m->l.unit)
		return 0;
	return eng_schedule(m->u.eng, eng_now(m->u.eng), EV_PRI_WAKE,
			    m->l.unit, m->l.kind, 0);
}

static int insn_complete(struct mtx *m, struct mtx_insn *in, cycle_t t);

/* SRAM completion of one of our accesses. */
static int op_done(void *ctx, uint64_t tag, cycle_t when)
{
	struct mtx *m = ctx;
	/*
	 * The tag is the op's address: an identity only, never compared or
	 * ordered, so it cannot make results depend on the allocator.
	 */
	struct mtx_op *op = (struct mtx_op *)(uintptr_t)tag;
	struct mtx_insn *in = op->in;
	int rc, was_frozen = m->frozen;

	op->done = 1;
	op->done_at = when;
	op->in = NULL;
	if ((rc = mtx_op_effect(m, in, op->st, op->row)))
		return rc;
	in->ops_left--;
	if (when > in->last_done)
		in->last_done = when;
	if (in->ops_left == 0 && in->array_done &&
	    (rc = insn_complete(m, in, when)))
		return rc;
	/* A frozen array may go on now (even if completing the instruction
	 * above already found the deadline met). */
	return was_frozen || m->frozen ? seq_kick(m) : 0;
}

/*
 * Issue op i of a stream at the current cycle.  The deadline differs by
 * direction: a read must have arrived when the array consumes it (its
 * event), a write must have been accepted 'lead' cycles after the array
 * produced it (the result path's depth); either being late freezes the
 * array when the deadline comes (deadlines_due).
 */
static int op_issue(struct mtx *m, struct mtx_insn *in, int si, uint32_t i,
		    cycle_t event)
{
	struct mtx_stream *s = &in->st[si];
	uint32_t row = mtx_op_row(s, i);
	/*
	 * Reads are issued lead cycles early (mtx_op_issue_cycle) and due at
	 * their event; writes issue at their event and are due lead later.
	 */
	struct mtx_op *op = mtx_op_new(m, in, si, row,
				       s->write ? event + s->lead : event,
				       m->op_seq);
	struct mem_req r;
	int rc;

	if (!op)
		return NPU_ENOMEM;
	m->op_seq++;
	if ((rc = mtx_heap_push(m, op))) {
		free(op);
		return rc;
	}
	m->u.ctr[s->write ? CTR_MATRIX_SRAM_WRITES : CTR_MATRIX_SRAM_READS]++;
	mtx_op_req(s, row, eng_now(m->u.eng), &r);
	r.done = op_done;
	r.ctx = m;
	r.tag = (uint64_t)(uintptr_t)op;
	return mem_send(&m->port[s->req], &r);
}

/*
 * Issue result row 'row' of in's dynamic write stream now (array cycle x):
 * how the pe model's rows are written (its backend's row_out), the array,
 * not a formula, deciding when.  Rows must come in stream order; anything
 * else means the data movement broke, which is reported rather than
 * silently reordered.
 */
static int emit_write(struct mtx *m, struct mtx_insn *in, uint32_t row,
		      cycle_t x)
{
	struct mtx_stream *s = &in->st[in->w_st];

	/* Dynamic streams emit rows in order; the op index is the row's. */
	if (!s->dyn || s->next >= s->n ||
	    (s->rev ? s->n - 1 - s->next : s->next) != row)
		return NPU_EINTERNAL;
	s->next++;
	return op_issue(m, in, in->w_st, s->rev ? s->n - 1 - row : row, x);
}

/*
 * Earliest array cycle with something to do, CYCLE_MAX if none: the due
 * heap's top or a cycle the array model must step (pe).  Nothing in
 * between needs a visit: the fast model jumps from one to the next.
 */
static cycle_t next_cycle(const struct mtx *m)
{
	cycle_t x = m->be->next_step ? m->be->next_step(m) : CYCLE_MAX;

	if (m->n_due && m->due[0]->key < x)
		x = m->due[0]->key;
	return x;
}

/*
 * Process the deadlines that are due: every issued access whose deadline
 * is at or before the array's current cycle.  A completed one that came
 * late freezes the clock (off grows by the lateness); an incomplete one
 * means the array is frozen now: returns 1 and the sequencer waits for it.
 */
static int deadlines_due(struct mtx *m, cycle_t now)
{
	while (m->n_heap) {
		struct mtx_op *op = m->heap[0];
		cycle_t a_now = now - m->off;

		if (op->deadline > a_now)
			break;
		if (!op->done) {
			m->frozen = 1;
			m->frozen_at = op->deadline;
			return 1;
		}
		/*
		 * deadline + off is the real cycle array cycle 'deadline'
		 * would have had; completing later pushes it, and with it
		 * every later array cycle, by the difference.
		 *
		 * Example: deadline 100, off 5, done at real 109: the
		 * array cycle 100 runs at real 109 instead of 105, so
		 * off becomes 9 and 4 stall cycles are accounted.
		 */
		if (op->done_at > op->deadline + m->off) {
			uint64_t stall = op->done_at - (op->deadline + m->off);

			mtx_account_freeze(m, op->deadline, stall);
			m->off += stall;
		}
		mtx_heap_pop(m);
		op->free_next = m->free_ops;
		m->free_ops = op;
	}
	m->frozen = 0;
	return 0;
}

/*
 * The clock reached an instruction's first cycle: its real start is now
 * known (for spans), its queue slot frees (the control unit may dispatch),
 * and its share of the busy union (computed at placement) is counted.
 * Counting at the start rather than at placement keeps counters of a run
 * stopped early (fault, cycle limit) to work that actually began.
 */
static int insn_start(struct mtx *m, struct mtx_insn *in, cycle_t now)
{
	in->started = 1;
	in->real_start = now;
	mtx_run_insert(m, in);
	m->n_waiting--;
	if (in->path != MTX_PATH_OUT) {
		m->u.ctr[CTR_MATRIX_BUSY_CYCLES] += in->busy_add;
		m->u.ctr[CTR_MATRIX_PE_CYCLES] += in->busy_add * m->rows * m->cols;
		m->u.ctr[CTR_MATRIX_PRELOAD_CYCLES] += in->pre_add;
	} else {
		m->u.ctr[CTR_MATRIX_OUT_CYCLES] += in->t;
	}
	return notify(m); /* a queue slot is free */
}

/*
 * Everything of array cycle x, at real cycle now = x + off.
 *
 * Only the instructions whose key is x can act at x (a start, an access or
 * an end at x makes key <= x, and x is never past the heap's top), so they
 * are collected from the due heap's top, in program order, and re-keyed in
 * place afterwards.  Every other instruction is untouched: the cost is
 * per acting instruction, whatever the queue depth (a walk over every
 * placed instruction, as this once did, made a 1024^3 GEMM take 47 s of
 * host time at queue_depth 1024 against 2.1 s at 8).
 */
static int process_cycle(struct mtx *m, cycle_t x, cycle_t now)
{
	struct mtx_insn *act = NULL, *in, *next, *rin;
	uint32_t row;
	int i, rc = 0;

	/* key < x cannot happen; collecting it anyway keeps the "missed"
	 * check below as it was */
	mtx_due_collect(m, 0, x, &act);
	/*
	 * Order within the cycle: starts first (a swapping mmul's tile must
	 * be in place before the array computes), then the array's own work
	 * (pe: it may emit result rows of this cycle), then the streams'
	 * accesses, then interval ends (which may complete instructions).
	 * Within each phase, program order: it fixes the order of the
	 * accesses (their SRAM arbitration) and of the events scheduled.
	 */
	for (in = act; in; in = in->act_next)
		if (!in->completed && !in->started && in->b == x &&
		    (rc = insn_start(m, in, now)))
			goto out;
	/* The array works on cycle x (pe model); the result rows it delivers
	 * for x are written now, in its order. */
	if (m->be->step && (rc = m->be->step(m, x)))
		goto out;
	while (m->be->row_out && m->be->row_out(m, x, &rin, &row))
		if ((rc = emit_write(m, rin, row, x)))
			goto out;
	for (in = act; in; in = in->act_next) {
		if (in->completed)
			continue;
		for (i = 0; i < in->n_st; i++) {
			struct mtx_stream *s = &in->st[i];

			while (!s->dyn && s->next < s->nops &&
			       mtx_op_issue_cycle(in, s, s->next) <= x) {
				cycle_t ev = (cycle_t)((int64_t)in->b + s->first +
						       (int64_t)mtx_op_event(s,
								s->next));

				/*
				 * An issue cycle in the past means next_cycle
				 * skipped it: a sequencer bug, not a user
				 * error.
				 */
				if (mtx_op_issue_cycle(in, s, s->next) < x) {
					rc = NPU_EINTERNAL; /* missed */
					goto out;
				}
				if ((rc = op_issue(m, in, i, s->next++, ev)))
					goto out;
			}
		}
	}
	for (in = act; in; in = in->act_next) {
		if (in->completed || in->array_done || in->b + in->t - 1 != x)
			continue;
		/* the interval is over; if its accesses are too, it
		 * completes at the start of the next cycle (an event, since
		 * nothing else may happen then) */
		in->array_done = 1;
		in->array_end_real = now + 1;
		if (in->ops_left == 0 &&
		    (rc = eng_schedule(m->u.eng, now + 1, EV_PRI_COMPLETE,
				       &m->u, MTX_EV_DONE,
				       (uint64_t)(uintptr_t)in)))
			goto out;
	}
out:
	/* nothing above completes an instruction or places one (SRAM and
	 * DONE callbacks are events), so the heap still holds exactly the
	 * collected ones with stale keys */
	for (in = act; in; in = next) {
		next = in->act_next;
		mtx_due_rekey(m, in);
	}
	return rc;
}

/*
 * The sequencer: repeatedly take the next array cycle x with work, make
 * sure every due deadline is met (else wait, frozen), and either schedule
 * a pass at x's real cycle or, if that is now, do x's work.
 */
static int seq_run(struct mtx *m)
{
	cycle_t now = eng_now(m->u.eng);
	int rc, adv;

	for (;;) {
		cycle_t x, r;

		if (deadlines_due(m, now))
			return mtx_ff_stall(m, now, op_done); /* resumed by
							   the access's
							   completion */
		x = next_cycle(m);
		if (x == CYCLE_MAX)
			return 0;
		/* x's real cycle under the stalls known so far; deadlines
		 * between now and x are checked when the clock gets there */
		r = x + m->off;
		if (r > now)
			return seq_schedule(m, r);
		if (r < now)
			return NPU_EINTERNAL; /* a cycle was skipped */
		if ((rc = mtx_ff_window(m, x, now, &adv)))
			return rc;
		if (!adv && (rc = process_cycle(m, x, now)))
			return rc;
	}
}

/* ---- placement ------------------------------------------------------------ */

/*
 * Cycles before B that the instruction's first reads must issue.
 * An instruction's first reads are issued 'lead' cycles before the rows
 * are consumed.  When it is placed on an idle engine those cycles must
 * still lie ahead, so the instruction cannot start earlier than this many
 * cycles after its placement cycle.
 */
static cycle_t lead_in(const struct mtx_insn *in)
{
	int64_t need = 0;
	int i;

	for (i = 0; i < in->n_st; i++) {
		const struct mtx_stream *s = &in->st[i];
		/*
		 * Reads: op 0 issues at B + first - lead, so B must be at
		 * least lead - first after the placement cycle; writes issue
		 * at B + first (first >= 0, so never before B).
		 */
		int64_t e = s->write ? -s->first : (int64_t)s->lead - s->first;

		if (!s->dyn && e > need)
			need = e;
	}
	return (cycle_t)need;
}

/*
 * Add [lo, hi) to the union of busy intervals (array or weight path) and
 * return in *add how many of its cycles were not yet in it.  Segments that
 * end before 'horizon' (the current array cycle: nothing can be placed
 * before it any more) are dropped, so the list only holds in-flight work.
 */
static int busy_add(struct mtx *m, cycle_t lo, cycle_t hi, cycle_t horizon,
		    uint64_t *add)
{
	uint64_t covered = 0;
	int i, j, n = 0;

	for (i = 0; i < m->n_segs; i++)
		if (m->segs[i].hi > horizon)
			m->segs[n++] = m->segs[i];
	m->n_segs = n;
	for (i = 0; i < m->n_segs; i++) {
		cycle_t a = m->segs[i].lo > lo ? m->segs[i].lo : lo;
		cycle_t b = m->segs[i].hi < hi ? m->segs[i].hi : hi;

		if (b > a)
			covered += b - a;
	}
	*add = (hi - lo) - covered;
	/* insert and merge, keeping the list sorted and disjoint */
	if (m->n_segs == m->cap_segs) {
		int cap = m->cap_segs ? 2 * m->cap_segs : 8;
		struct mtx_seg *v = realloc(m->segs, (size_t)cap * sizeof(*v));

		if (!v)
			return NPU_ENOMEM;
		m->segs = v;
		m->cap_segs = cap;
	}
	for (i = 0; i < m->n_segs && m->segs[i].hi < lo; i++)
		;
	j = i;
	while (j < m->n_segs && m->segs[j].lo <= hi) {
		if (m->segs[j].lo < lo)
			lo = m->segs[j].lo;
		if (m->segs[j].hi > hi)
			hi = m->segs[j].hi;
		j++;
	}
	/* segments i..j-1 merge into one at i */
	memmove(&m->segs[i + 1], &m->segs[j],
		(size_t)(m->n_segs - j) * sizeof(*m->segs));
	m->n_segs -= j - i - 1;
	m->segs[i].lo = lo;
	m->segs[i].hi = hi;
	return 0;
}

static int place_one(struct mtx *m, struct mtx_insn *in, cycle_t a_place)
{
	cycle_t b = a_place + lead_in(in), e;
	int rc;

	/*
	 * The array runs one instruction at a time (compute path, shared
	 * with mout's slot so that the drain rule orders them), the shadow
	 * weight registers load one preload at a time (weight path), and
	 * each starts no earlier than its prefetch allows.
	 */
	switch (in->path) {
	case MTX_PATH_WEIGHT:
		/* shadow registers free once the previous tile swapped in */
		if (b < m->weight_free)
			b = m->weight_free;
		/*
		 * The shadow registers hold the previous tile until an
		 * mmul swaps it in: loading over it earlier would lose it.
		 */
		if (b < m->last_swap)
			b = m->last_swap;
		m->weight_free = b + in->t;
		m->shadow_pending = 1;
		m->shadow_end = b + in->t;
		break;
	case MTX_PATH_COMPUTE:
	case MTX_PATH_OUT:
		if (b < m->compute_free)
			b = m->compute_free;
		if (in->kind != MTX_OUT && in->kind != MTX_PRELOAD &&
		    in->df != MTX_OS && m->shadow_pending) {
			/* the first mmul after a double-buffered mpre swaps
			 * its tile in: it waits for the load to finish */
			if (b < m->shadow_end)
				b = m->shadow_end;
			in->swap = 1;
			m->last_swap = b;
			m->shadow_pending = 0;
		}
		m->compute_free = b + in->t;
		break;
	}
	in->b = b;
	in->placed = 1;
	e = b + in->t;
	/*
	 * busy_add is the part of [b, e) not already busy, so overlapping
	 * weight and compute intervals count once (docs/timing.md: "cycles
	 * with a fold or preload in the array or weight path").
	 */
	if (in->path != MTX_PATH_OUT &&
	    (rc = busy_add(m, b, e, a_place, &in->busy_add)))
		return rc;
	/*
	 * Preload cycles count only where the array is not computing: all of
	 * a non-double-buffered mpre (it occupies the array), the uncovered
	 * part of a double-buffered one.
	 */
	if (in->kind == MTX_PRELOAD) {
		/* not hidden: the part no compute interval overlaps (with
		 * double-buffering only earlier mmuls can overlap it) */
		uint64_t hidden = 0;
		struct mtx_insn *o;

		/*
		 * Walk back from the latest earlier instruction (all are
		 * placed, none completed: completion unlinks).  Compute and
		 * mout intervals follow each other in program order
		 * (compute_free), so the first one that ends by b means no
		 * earlier one reaches b either: the walk stops there instead
		 * of visiting the whole queue.
		 */
		for (o = in->prev; o; o = o->prev) {
			cycle_t lo, hi;

			if (o->path == MTX_PATH_WEIGHT)
				continue;
			if (o->b + o->t <= b)
				break;
			if (o->path != MTX_PATH_COMPUTE || o->kind == MTX_PRELOAD)
				continue;
			lo = o->b > b ? o->b : b;
			hi = o->b + o->t < e ? o->b + o->t : e;
			if (hi > lo)
				hidden += hi - lo;
		}
		in->pre_add = in->t - hidden;
	}
	m->n_inflight++;
	return mtx_due_push(m, in); /* its first work: prefetch or start */
}

/* Place every accepted instruction that can be placed, in order. */
static int place_ready(struct mtx *m)
{
	cycle_t now = eng_now(m->u.eng);
	int placed = 0, rc;

	/* bring off up to date before reading the array's current cycle; if
	 * that unfroze the array, the sequencer must run again */
	if (m->unplaced && m->frozen && !deadlines_due(m, now))
		placed = 1;
	else if (m->unplaced)
		(void)deadlines_due(m, now);
	while (m->unplaced) {
		struct mtx_insn *in = m->unplaced;
		/* the array's current cycle: while frozen, the clock stands
		 * at the deadline it waits for */
		cycle_t a_now = m->frozen ? m->frozen_at : now - m->off;

		/*
		 * mout (and whatever follows one) starts only on a
		 * drained engine; it is placed from insn_complete.
		 */
		if (in->needs_drain && m->n_inflight > 0)
			break;
		/* work accepted in cycle t starts issuing at t+1 at the
		 * earliest: the accept may come after t's bank arbitration */
		if ((rc = place_one(m, in, a_now + 1)))
			return rc;
		if (m->be->place && (rc = m->be->place(m, in)))
			return rc;
		m->unplaced = in->next;
		placed = 1;
	}
	return placed ? seq_kick(m) : 0;
}

/* ---- completion --------------------------------------------------------- */

/*
 * Release an instruction.  An mpre's stream buffer is its tile's data (the
 * rows land there directly), so the tile reference, not the stream, owns
 * those bytes.
 */
static void insn_free(struct mtx *m, struct mtx_insn *in)
{
	int i;

	if (m->be->insn_done)
		m->be->insn_done(m, in);
	for (i = 0; i < in->n_st; i++)
		if (!(in->kind == MTX_PRELOAD && i == 0))
			mtx_buf_put(m, in->st[i].buf, in->st[i].buf_cap);
	tile_put(in->tile);
	free(in->dec);
	free(in->wp);
	free(in->at16);
	free(in);
}

/*
 * The instruction's span on the unit's trace track (tracing on only),
 * from its first beat to its completion, with its operands; it ends the
 * flow arrow from the control unit's dispatch slice.
 */
static void trace_span(struct mtx *m, const struct mtx_insn *in, cycle_t end)
{
	char args[256];
	struct unit_insn ui = { in->cmd.pc, in->cmd.sym, in->cmd.id,
				UNIT_FLOW_IN, in->cmd.issued };

	if (!unit_traced(&m->u, in->real_start, end))
		return;
	snprintf(args, sizeof(args),
		 "\"df\":\"%s\",\"m\":%u,\"k\":%u,\"n\":%u,\"a\":\"0x%llx\","
		 "\"b\":\"0x%llx\",\"c\":\"0x%llx\",\"stall\":%llu",
		 mtx_df_names[in->df], in->m, in->k, in->n,
		 (unsigned long long)in->cmd.u.m.a,
		 (unsigned long long)in->cmd.u.m.b,
		 (unsigned long long)(in->kind == MTX_OUT ? in->cmd.u.m.d :
							    in->cmd.u.m.c),
		 (unsigned long long)in->stall);
	unit_span_insn(&m->u, in->real_start, end, mtx_kind_names[in->kind],
		       args, &ui);
}

/* The macs_<type> counter of each input type (counters.def). */
static const int macs_ctr[DT_N] = {
#define MACS_CTR(id, name, bits, fl) [DT_##id] = CTR_MATRIX_MACS_##id,
	NPU_DTYPES(MACS_CTR)
#undef MACS_CTR
};

/*
 * Every access of the instruction completed and its interval ended: count
 * it, emit its span, free it, wake the control unit (sig/fence may now
 * pass) and place whatever waited for the engine to drain.
 */
static int insn_complete(struct mtx *m, struct mtx_insn *in, cycle_t t)
{
	in->completed = 1;
	m->n_inflight--;
	m->u.ctr[CTR_MATRIX_INSNS]++;
	if (in->kind == MTX_MUL || in->kind == MTX_MUL_ACC) {
		m->u.ctr[CTR_MATRIX_FOLDS]++;
		m->u.ctr[CTR_MATRIX_MACS] += (uint64_t)in->m * in->k * in->n;
		m->u.ctr[macs_ctr[in->in_type]] += (uint64_t)in->m * in->k * in->n;
	}
	if (m->span_fn)
		m->span_fn(m->span_ctx, &in->cmd, in->real_start, t);
	if (eng_trace(m->u.eng))
		trace_span(m, in, t);
	/* out of the indexes (it has no work left, so normally not due) */
	mtx_due_remove(m, in);
	if (in->started)
		mtx_run_remove(m, in);
	/* unlink */
	if (in->prev)
		in->prev->next = in->next;
	else
		m->head = in->next;
	if (in->next)
		in->next->prev = in->prev;
	else
		m->tail = in->prev;
	insn_free(m, in);
	{
		int rc = notify(m);

		if (rc)
			return rc;
	}
	return place_ready(m);
}

/* ---- unit and port ---------------------------------------------------------- */

/*
 * Two events of our own: a sequencer pass (issue-phase, so accesses it
 * issues compete in the same cycle's arbitration) and the completion of an
 * instruction whose accesses all finished before its interval ended.
 */
static int mtx_on_event(struct unit *u, const struct ev *ev)
{
	struct mtx *m = M_(u);

	switch (ev->kind) {
	case MTX_EV_SEQ:
		m->seq_when = CYCLE_MAX;
		return seq_run(m);
	case MTX_EV_DONE:
		return insn_complete(m, (struct mtx_insn *)(uintptr_t)ev->arg,
				     ev->when);
	default:
		return NPU_EINTERNAL;
	}
}

/*
 * Deadlock report: with the event queue empty, an unfinished instruction
 * can only mean a lost wake-up in this model; say which one and whether the
 * array was frozen on an access.
 */
static int mtx_blocked(const struct unit *u, char *buf, size_t n)
{
	const struct mtx *m = (const struct mtx *)u;

	if (!m->head)
		return 0;
	snprintf(buf, n, "%s at pc 0x%llx not complete%s",
		 mtx_kind_names[m->head->kind],
		 (unsigned long long)m->head->cmd.pc,
		 m->frozen ? " (array frozen on an SRAM access)" : "");
	return 1;
}

static void mtx_destroy(struct unit *u)
{
	struct mtx *m = M_(u);
	struct mtx_op *op;
	size_t i;

	while (m->head) {
		struct mtx_insn *in = m->head;

		m->head = in->next;
		insn_free(m, in);
	}
	for (i = 0; i < m->n_heap; i++)
		free(m->heap[i]);
	free(m->heap);
	free(m->due);
	while ((op = m->free_ops)) {
		m->free_ops = op->free_next;
		free(op);
	}
	if (m->be->fini)
		m->be->fini(m);
	tile_put(m->cur_tile);
	for (i = 0; i < (size_t)m->n_pool; i++)
		free(m->pool[i].p);
	free(m->segs);
	free(m->tmp);
	free(m->itmp);
	free(m);
}

static const struct unit_ops mtx_ops = {
	.kind = UNIT_MATRIX,
	.on_event = mtx_on_event,
	.blocked = mtx_blocked,
	.destroy = mtx_destroy,
};

/*
 * The queue holds instructions that have not started yet: a started
 * instruction has left the queue for the array even though it may run for
 * many more cycles (that is what lets folds go back to back).
 */
static int mtx_can_accept(const struct unit *u)
{
	const struct mtx *m = (const struct mtx *)u;

	return m->n_waiting < m->depth;
}

/* Idle: every accepted instruction has completed (results written). */
static int mtx_idle(const struct unit *u)
{
	return ((const struct mtx *)u)->head == NULL;
}

/*
 * Allocate an instruction's row buffers (and an mpre's tile).
 * Buffers sized by the instruction's operands, allocated once per
 * instruction (never per row): they are bounded by the memories' sizes,
 * since each holds rows that came from, or go to, an SRAM.
 */
static int insn_alloc(struct mtx *m, struct mtx_insn *in)
{
	int i, rc;

	if (in->kind == MTX_PRELOAD) {
		struct mtx_tile *t = calloc(1, sizeof(*t));

		if (!t)
			return NPU_ENOMEM;
		t->refs = 1;
		t->df = in->df;
		t->type = in->in_type;
		t->addr = in->cmd.u.m.a;
		t->rows = in->k;
		t->cols = in->df == MTX_WS ? in->n : in->m;
		t->row_bytes = in->st[0].bytes;
		t->data = calloc(t->rows, t->row_bytes);
		if (!t->data) {
			free(t);
			return NPU_ENOMEM;
		}
		in->tile = t;
		in->st[0].buf = t->data; /* rows land in the tile directly */
		return 0;
	}
	/*
	 * A timing-only run moves no bytes: no row buffers.  The fast model
	 * takes a stream's buffer at its first completed access
	 * (mtx_op_effect), so that only instructions in flight hold one: a
	 * deep queue (queue_depth 1024) accepts far ahead of the array.  The
	 * per-PE model writes result rows into its buffer as the array emits
	 * them, so it gets all of them now.
	 */
	for (i = 0; i < in->n_st && eng_values(m->u.eng) &&
		    m->be != &mtx_fast_backend; i++)
		if ((rc = mtx_stream_buf(m, &in->st[i])))
			return rc;
	if (in->kind != MTX_OUT && in->df != MTX_OS) {
		in->tile = m->cur_tile;
		in->tile->refs++;
	}
	return 0;
}

/*
 * Take a command from the control unit at the current cycle: check it
 * against the array and the program-order state (faults are reported here,
 * with the pc), allocate it, update the program-order state (the latest
 * preload, the drain rule of mout) and place it if possible.
 */
static int mtx_accept(struct unit *u, const struct tile_cmd *cmd)
{
	struct mtx *m = M_(u);
	struct mtx_insn *in;
	int rc, i;

	if (m->n_waiting >= m->depth)
		return NPU_EINTERNAL; /* control must ask can_accept first */
	in = calloc(1, sizeof(*in));
	if (!in)
		return NPU_ENOMEM;
	in->cmd = *cmd;
	in->ord = m->n_accepted++;
	in->due_pos = MTX_NOT_DUE;
	if ((rc = mtx_insn_build(m, in)) || (rc = insn_alloc(m, in))) {
		insn_free(m, in);
		return rc;
	}
	if (m->be != &mtx_fast_backend && in->w_st >= 0 &&
	    in->kind != MTX_OUT)
		in->st[in->w_st].dyn = 1; /* the array emits result rows */
	for (i = 0; i < in->n_st; i++)
		in->ops_left += in->st[i].nops;
	/* mout reads what earlier instructions wrote, and later ones may
	 * read what it writes: it waits for, and is waited for by, all. */
	in->needs_drain = in->kind == MTX_OUT || m->prev_kind == MTX_OUT;
	m->prev_kind = in->kind;
	/* program order decides which tile an mmul uses: the latest mpre
	 * accepted before it, whatever the timing of the loads */
	if (in->kind == MTX_PRELOAD) {
		tile_put(m->cur_tile);
		m->cur_tile = in->tile;
		in->tile->refs++;
	}
	in->prev = m->tail;
	if (m->tail)
		m->tail->next = in;
	else
		m->head = in;
	m->tail = in;
	if (!m->unplaced)
		m->unplaced = in;
	m->n_waiting++;
	return place_ready(m);
}

const struct xu_port mtx_port = {
	.can_accept = mtx_can_accept,
	.accept = mtx_accept,
	.idle = mtx_idle,
};

void mtx_set_span_hook(struct unit *u, mtx_span_fn fn, void *ctx)
{
	struct mtx *m = M_(u);

	m->span_fn = fn;
	m->span_ctx = ctx;
}

/*
 * The requestors are registered in a fixed order (left, top, out; then the
 * accumulator's), which fixes their priority under fixed-priority
 * arbitration and their counter names; the chip creates the matrix engine
 * before the vector unit and DMA engines, so the array, which cannot pause
 * cheaply, wins their conflicts.
 */
struct unit *mtx_new(eng *e, const struct arch *a, int core,
		     struct mem_target spm, struct mem_target acc,
		     const struct tile_listener *l)
{
	struct mtx *m = calloc(1, sizeof(*m));
	static const char *const spm_names[] = { "matrix.left", "matrix.top",
						 "matrix.out" };
	int i;

	if (!m)
		return NULL;
	unit_init(&m->u, &mtx_ops, e, core, "core%d.matrix", core);
	/* core.matrix.model: "fast" or "pe". */
	m->be = ARCH_E(a, MTX_MODEL) == ARCH_MTX_MODEL_PE ? &mtx_pe_backend
							  : &mtx_fast_backend;
	if (l)
		m->l = *l;
	m->rows = (uint32_t)ARCH_I(a, MTX_ROWS);
	m->cols = (uint32_t)ARCH_I(a, MTX_COLS);
	m->pipe = (uint32_t)ARCH_I(a, MTX_PIPE_LAT);
	m->db = ARCH_B(a, MTX_WEIGHT_DB);
	m->os_drain = ARCH_B(a, MTX_OS_DRAIN);
	for (i = 0; i < DT_N; i++)
		m->pack[i] = 1;
	for (i = 0; i < arch_enum_count(P_MTX_IN_TYPE); i++) {
		int t = dtype_from_name(arch_enum_at(P_MTX_IN_TYPE, i));

		if (t >= 0)
			m->pack[t] = (uint32_t)arch_macs_per_pe(a, i);
	}
	/*
	 * The queue of not-yet-started instructions has the control unit's
	 * queue depth (docs/timing.md "Placement and ordering").
	 */
	m->depth = (int)ARCH_I(a, CTL_QUEUE_DEPTH);
	if (m->depth < 1)
		m->depth = 1;
	m->prev_kind = -1;
	m->seq_when = CYCLE_MAX;
	/* Bind order = requester order on each SRAM = fixed priority. */
	for (i = 0; i < 3; i++)
		if (mem_bind(&m->port[i], spm, spm_names[i], NULL, NULL))
			goto fail;
	if (mem_bind(&m->port[MTX_REQ_ACC], acc, "matrix", NULL, NULL))
		goto fail;
	for (i = 0; i < MTX_N_REQ; i++) {
		struct mem_info mi;

		mem_info(&m->port[i], &mi);
		m->data[i] = mi.data;
	}
	if (m->be->init && m->be->init(m))
		goto fail;
	if (eng_add_unit(e, &m->u))
		goto fail;
	return &m->u;
fail:
	if (m->be->fini)
		m->be->fini(m);
	free(m);
	return NULL;
}
