/*
 * matrix_seq.c - the matrix engine's sequencer state and the updates that
 * the per-cycle sequencer (matrix.c) and the fast-forward (matrix_ff.c)
 * share: the issued accesses by deadline (the op heap), the instructions
 * that can act (the due heap and the running list; matrix_int.h, "Host
 * cost"), the accounting of a freeze, what a completed access does to
 * the bytes (mtx_op_effect), and the row buffers it fills.
 *
 * Invariants (matrix_int.h gives the sequencer's own): the op heap pops
 * by (deadline, issue order) and the due heap by (key, program order),
 * never by pointer, so the order of everything is the same from run to
 * run; a freeze is accounted to exactly one of busy (array or weight
 * interval), mout or idle time; access effects apply in completion order.
 */
#include "matrix_int.h"

#include <stdlib.h>
#include <string.h>

#include "../../util/num.h"

/* ---- issued accesses ---------------------------------------------------- */

/*
 * Issued accesses wait in a min-heap by deadline (ties by issue order, so
 * the pop order never depends on pointers).  Only the earliest deadline
 * matters for the stall rule, and ops retire in deadline order.
 */
static int op_before(const struct mtx_op *a, const struct mtx_op *b)
{
	if (a->deadline != b->deadline)
		return a->deadline < b->deadline;
	return a->seq < b->seq;
}

/* Binary min-heap, sift-up; capacity doubles from 64 (never shrinks). */
int mtx_heap_push(struct mtx *m, struct mtx_op *op)
{
	size_t i;

	if (m->n_heap == m->cap_heap) {
		size_t cap = m->cap_heap ? 2 * m->cap_heap : 64;
		struct mtx_op **v = realloc(m->heap, cap * sizeof(*v));

		if (!v)
			return NPU_ENOMEM;
		m->heap = v;
		m->cap_heap = cap;
	}
	i = m->n_heap++;
	while (i > 0 && op_before(op, m->heap[(i - 1) / 2])) {
		m->heap[i] = m->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	m->heap[i] = op;
	return 0;
}

void mtx_heap_pop(struct mtx *m)
{
	struct mtx_op *last = m->heap[--m->n_heap];
	size_t i = 0;

	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, c = l;

		if (l >= m->n_heap)
			break;
		if (r < m->n_heap && op_before(m->heap[r], m->heap[l]))
			c = r;
		if (!op_before(m->heap[c], last))
			break;
		m->heap[i] = m->heap[c];
		i = c;
	}
	if (m->n_heap)
		m->heap[i] = last;
}

/* ---- what a completed access does, and its buffers --------------------- */

/*
 * Row buffers: the stream buffers of a completed instruction go to a small
 * pool that the next instructions take them from, largest need first fit.
 * The fast model writes every byte of a row before it reads it (reads are
 * captured whole, result rows computed whole), so a reused buffer is not
 * cleared; the per-PE model's gets zeroes, as from calloc.
 */
static uint8_t *buf_get(struct mtx *m, size_t need, size_t *cap)
{
	int i, best = -1;
	uint8_t *p;

	for (i = 0; i < m->n_pool; i++)
		if (m->pool[i].cap >= need &&
		    (best < 0 || m->pool[i].cap < m->pool[best].cap))
			best = i;
	if (best < 0) {
		*cap = need;
		return calloc(1, need ? need : 1);
	}
	p = m->pool[best].p;
	*cap = m->pool[best].cap;
	m->pool[best] = m->pool[--m->n_pool];
	if (m->be != &mtx_fast_backend)
		memset(p, 0, *cap);
	return p;
}

void mtx_buf_put(struct mtx *m, uint8_t *p, size_t cap)
{
	int i, small = 0;

	if (!p)
		return;
	if (m->n_pool < MTX_POOL) {
		m->pool[m->n_pool].p = p;
		m->pool[m->n_pool++].cap = cap;
		return;
	}
	/* full: keep the larger of this one and the smallest kept */
	for (i = 1; i < MTX_POOL; i++)
		if (m->pool[i].cap < m->pool[small].cap)
			small = i;
	if (m->pool[small].cap < cap) {
		free(m->pool[small].p);
		m->pool[small].p = p;
		m->pool[small].cap = cap;
	} else {
		free(p);
	}
}

/* A stream's row buffer (all its rows), from the pool. */
int mtx_stream_buf(struct mtx *m, struct mtx_stream *s)
{
	s->buf = buf_get(m, (size_t)s->n * s->bytes, &s->buf_cap);
	return s->buf ? 0 : NPU_ENOMEM;
}

/*
 * dst[j] += add[j] for cols little-endian 32-bit words: int32 wrapping, or
 * fp32 with one rounding (old + add x 1.0: the product is exact).  Eight
 * words at a time where the host is little-endian (the words are then
 * the host's own), else word by word.
 */
static void acc_add(uint8_t *dst, const uint8_t *add, uint32_t cols, int fl)
{
	uint32_t j = 0;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (; j + 8 <= cols; j += 8) {
		if (fl) {
			mtx_v8f32 a, b;

			memcpy(&a, dst + 4 * j, sizeof(a));
			memcpy(&b, add + 4 * j, sizeof(b));
			a = a + b;
			memcpy(dst + 4 * j, &a, sizeof(a));
		} else {
			mtx_v8u32 a, b;

			memcpy(&a, dst + 4 * j, sizeof(a));
			memcpy(&b, add + 4 * j, sizeof(b));
			a += b;
			memcpy(dst + 4 * j, &a, sizeof(a));
		}
	}
#endif
	for (; j < cols; j++) {
		uint32_t old = mtx_get_le32(dst + 4 * j);
		uint32_t a = mtx_get_le32(add + 4 * j);

		if (!fl)
			mtx_put_le32(dst + 4 * j, old + a);
		else
			mtx_put_le32(dst + 4 * j, num_f32_bits(num_mac_f32(
				num_f32_from_bits(old), num_f32_from_bits(a),
				1.0f)));
	}
}

/*
 * The functional side of an access, applied when the access completes (the
 * moment the bytes move in hardware): reads capture the operand row, so a
 * later overwrite of the scratchpad cannot change what the array computes;
 * writes store a result row (mmacc: add it, the accumulator's adder).
 */
int mtx_op_effect(struct mtx *m, struct mtx_insn *in, int si, uint32_t row)
{
	struct mtx_stream *s = &in->st[si];
	uint8_t *mem = m->data[s->req];
	uint64_t addr = s->addr + (uint64_t)row * s->stride;
	uint8_t *src;
	uint32_t j, cols;
	int rc;

	if (!eng_values(m->u.eng))
		return 0;       /* timing only: no bytes move (and no buffers) */
	if (!s->buf && (rc = mtx_stream_buf(m, s)))
		return rc;
	src = s->buf + (size_t)row * s->bytes;
	if (!s->write) {
		/* Operand rows are captured when they arrive (g adjacent
		 * rows of a grouped access at once). */
		uint32_t nr = s->n - row < s->g ? s->n - row : s->g;

		memcpy(src, mem + addr, (size_t)nr * s->bytes);
		return 0;
	}
	if ((rc = m->be->row_values(m, in, row)))
		return rc;
	if (in->kind == MTX_OUT) {
		/* element-wise, so int4 padding nibbles are left alone */
		cols = in->df == MTX_IS ? in->m : in->n;
		for (j = 0; j < cols; j++)
			num_set_bits((enum npu_dtype)in->cmd.u.m.cfg.out_type,
				     mem + addr, j,
				     num_get_bits((enum npu_dtype)in->cmd.u.m.cfg.out_type,
						  src, j));
		return 0;
	}
	cols = s->bytes / 4;
	if (in->kind == MTX_MUL) {
		memcpy(mem + addr, src, s->bytes);
		return 0;
	}
	/*
	 * MTX_MUL_ACC: the accumulator adds the array's sums on write: int
	 * wraps mod 2^32; fp is old + add x 1.0, whose product is exact, so
	 * it is the one fp32 add round_fp32(old + add) (docs/timing.md).
	 */
	acc_add(mem + addr, src, cols, in->acc_type != DT_INT32);
	/* The next row's accumulator words, while this one's successor is
	 * computed: a large accumulator is out of the host's cache between
	 * the passes over it, and its rows are a stride apart (no hardware
	 * prefetch across them) - the miss was most of this function. */
	if (row + 1 < s->n) {
		const uint8_t *next = mem + addr + s->stride;
		uint32_t b;

		for (b = 0; b < s->bytes; b += 64)
			__builtin_prefetch(next + b, 1, 3);
	}
	return 0;
}

/* ---- the instructions that can act (matrix_int.h, "Host cost") --------- */

/*
 * Next array cycle with work of a placed instruction, CYCLE_MAX if none.
 * Work can be: its first cycle (start), its last cycle (end), the next
 * access of a static stream.  Dynamic streams (pe) are the array model's
 * work (next_step), and a completed instruction has none.
 */
static cycle_t insn_key(const struct mtx_insn *in)
{
	cycle_t x = CYCLE_MAX;
	int i;

	if (in->completed)
		return CYCLE_MAX;
	if (!in->started)
		x = in->b;
	if (!in->array_done && in->b + in->t - 1 < x)
		x = in->b + in->t - 1;
	for (i = 0; i < in->n_st; i++) {
		const struct mtx_stream *s = &in->st[i];
		cycle_t c;

		if (s->dyn || s->next >= s->nops)
			continue;
		c = mtx_op_issue_cycle(in, s, s->next);
		if (c < x)
			x = c;
	}
	return x;
}

/* Heap order: by next work cycle, then program order (never pointers). */
static int due_before(const struct mtx_insn *a, const struct mtx_insn *b)
{
	if (a->key != b->key)
		return a->key < b->key;
	return a->ord < b->ord;
}

/* Put in at slot i of the due heap, keeping its back-index. */
static void due_set(struct mtx *m, size_t i, struct mtx_insn *in)
{
	m->due[i] = in;
	in->due_pos = i;
}

/* Move in (at slot i) up or down until the heap order holds again. */
static void due_sift(struct mtx *m, size_t i, struct mtx_insn *in)
{
	while (i > 0 && due_before(in, m->due[(i - 1) / 2])) {
		due_set(m, i, m->due[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, c = l;

		if (l >= m->n_due)
			break;
		if (r < m->n_due && due_before(m->due[r], m->due[l]))
			c = r;
		if (!due_before(m->due[c], in))
			break;
		due_set(m, i, m->due[c]);
		i = c;
	}
	due_set(m, i, in);
}

/*
 * File a newly placed instruction under its key (not if it has no work,
 * which cannot happen: it has a start ahead).  Capacity doubles from 64
 * and never shrinks.
 */
int mtx_due_push(struct mtx *m, struct mtx_insn *in)
{
	in->key = insn_key(in);
	if (in->key == CYCLE_MAX)
		return 0;
	if (m->n_due == m->cap_due) {
		size_t cap = m->cap_due ? 2 * m->cap_due : 64;
		struct mtx_insn **v = realloc(m->due, cap * sizeof(*v));

		if (!v)
			return NPU_ENOMEM;
		m->due = v;
		m->cap_due = cap;
	}
	due_sift(m, m->n_due++, in);
	return 0;
}

/* Take an instruction out of the due heap (no-op if it is not in it). */
void mtx_due_remove(struct mtx *m, struct mtx_insn *in)
{
	size_t i = in->due_pos;
	struct mtx_insn *last;

	if (i == MTX_NOT_DUE)
		return;
	in->due_pos = MTX_NOT_DUE;
	last = m->due[--m->n_due];
	if (last != in)
		due_sift(m, i, last);
}

/*
 * Re-file an instruction whose work at this cycle is done: its key only
 * grew, so it sinks from where it is, usually by no level at all (the
 * instruction streaming now has the next cycle's work too).  A pop and a
 * push would cost two full log2(depth) walks per cycle instead.
 */
void mtx_due_rekey(struct mtx *m, struct mtx_insn *in)
{
	in->key = insn_key(in);
	if (in->key == CYCLE_MAX)
		mtx_due_remove(m, in);
	else
		due_sift(m, in->due_pos, in);
}

/*
 * Collect into *act, in program order, the instructions of the heap's
 * subtree at i whose key is <= x.  Only the entries collected and their
 * children are visited; the acting set is a handful (the instruction
 * streaming, the next one prefetching, one ending), so the sorted insert
 * is short too.
 */
void mtx_due_collect(struct mtx *m, size_t i, cycle_t x,
		     struct mtx_insn **act)
{
	struct mtx_insn *in, **p;

	if (i >= m->n_due || m->due[i]->key > x)
		return;
	in = m->due[i];
	for (p = act; *p && (*p)->ord < in->ord; p = &(*p)->act_next)
		;
	in->act_next = *p;
	*p = in;
	mtx_due_collect(m, 2 * i + 1, x, act);
	mtx_due_collect(m, 2 * i + 2, x, act);
}

/*
 * Add a starting instruction to the running list, in program order.  With
 * weight double-buffering an mpre may start before an earlier mmul (its
 * load overlaps the previous fold), so the insertion walks back from the
 * tail; the list holds only started, incomplete work (an array and a
 * weight interval plus results still being written), so the walk is short.
 */
void mtx_run_insert(struct mtx *m, struct mtx_insn *in)
{
	struct mtx_insn *p = m->run_tail;

	while (p && p->ord > in->ord)
		p = p->run_prev;
	in->run_prev = p;
	in->run_next = p ? p->run_next : m->run_head;
	if (in->run_next)
		in->run_next->run_prev = in;
	else
		m->run_tail = in;
	if (p)
		p->run_next = in;
	else
		m->run_head = in;
}

void mtx_run_remove(struct mtx *m, struct mtx_insn *in)
{
	if (in->run_prev)
		in->run_prev->run_next = in->run_next;
	else
		m->run_head = in->run_next;
	if (in->run_next)
		in->run_next->run_prev = in->run_prev;
	else
		m->run_tail = in->run_prev;
	in->run_prev = in->run_next = NULL;
}

/* ---- freezes ------------------------------------------------------------- */

/* One instruction's part in a freeze at d (see mtx_account_freeze). */
static void freeze_in(struct mtx_insn *in, cycle_t d, uint64_t stall,
		      int *busy, int *out)
{
	if (in->completed || d < in->b || d >= in->b + in->t)
		return;
	if (in->path == MTX_PATH_OUT) {
		*out = 1;
	} else {
		*busy = 1;
		in->stall += stall;
	}
}

/*
 * The unstarted instructions a freeze at d can fall in have B <= d, hence
 * key <= d (an unstarted key is <= B): only the heap's top part, the
 * entries with key <= d and the subtrees under them, is visited.  Those
 * are instructions with work at the current array cycle (every key is at
 * or after it), never the idle bulk of a deep queue.
 */
static void freeze_due(struct mtx *m, size_t i, cycle_t d, uint64_t stall,
		       int *busy, int *out)
{
	if (i >= m->n_due || m->due[i]->key > d)
		return;
	if (!m->due[i]->started)
		freeze_in(m->due[i], d, stall, busy, out);
	freeze_due(m, 2 * i + 1, d, stall, busy, out);
	freeze_due(m, 2 * i + 2, d, stall, busy, out);
}

/*
 * Account a freeze of 'stall' cycles at array cycle d: busy (and stalled)
 * if d lies in an array or weight interval, mout time if in a mout
 * interval, otherwise the engine was idle anyway.
 */
void mtx_account_freeze(struct mtx *m, cycle_t d, uint64_t stall)
{
	struct mtx_insn *in;
	int busy = 0, out = 0;

	/*
	 * Intervals of in-flight instructions only (a completed one ended
	 * before the clock reached any deadline still waiting here): the
	 * started ones, and unstarted ones with B == d (a late first read
	 * is processed just before its instruction starts).
	 */
	for (in = m->run_head; in; in = in->run_next)
		freeze_in(in, d, stall, &busy, &out);
	freeze_due(m, 0, d, stall, &busy, &out);
	if (busy) {
		m->u.ctr[CTR_MATRIX_STALL_SRAM] += stall;
		m->u.ctr[CTR_MATRIX_STALL_CYCLES] += stall;
		m->u.ctr[CTR_MATRIX_BUSY_CYCLES] += stall;
		/* pe_cycles = R x C x busy_cycles, stalls included. */
		m->u.ctr[CTR_MATRIX_PE_CYCLES] += stall * m->rows * m->cols;
	} else if (out) {
		m->u.ctr[CTR_MATRIX_OUT_CYCLES] += stall;
	}
}
