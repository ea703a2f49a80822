/*
 * sram.c - banked SRAM with per-cycle bank arbitration whose simulation cost
 * follows accesses, not cycles.
 *
 * The hardware being modelled (docs/memory.md is the long form):
 *   - word w = addr / bank_width lives in bank w % banks;
 *   - each requestor presents the words of one access at a time (its oldest
 *     unfinished one, "the head"), from the cycle the access was issued for,
 *     but never before the cycle after its previous access's last grant;
 *   - each cycle every bank grants at most 'ports' words; when more are
 *     wanted, the arbiter (fixed priority: lower requestor id first; or
 *     round-robin: starting after the requestor granted last at that bank)
 *     hands the ports out in order, each requestor taking as many as it
 *     wants of what is left;
 *   - an access completes 'latency' cycles after its last word's grant.
 *
 * How it is simulated cheaply.  A head that shares no bank with any other
 * head is "free": it gets every port of every bank it touches each cycle,
 * so its progress is a closed form of (start cycle, words left per bank)
 * and its completion is known the moment it becomes free.  One event (the
 * completion) is scheduled for it, whatever its length.  Only when two heads
 * want the same bank does the model resolve cycle by cycle (one arbitration
 * event per contended cycle), and as soon as the contention is gone the
 * survivors become free again.  A new head becoming eligible is the only
 * other thing that needs an event (to check it against the others).  So a
 * lone requestor costs two events per access (arbitrate at its start,
 * complete), and an idle memory costs nothing.
 *
 * Invariants:
 *   - per requestor, ring indices retire <= head <= tail: [retire, head) are
 *     fully granted and wait for their completion callback, head is the
 *     access presented to the banks (if head < tail), (head, tail) wait;
 *   - a finalised access always has exactly one live completion event, at
 *     its done_at (sched_done == done_at); events at other cycles are stale
 *     and are recognised and dropped when they pop;
 *   - arbitration of cycle t runs once, at EV_PRI_ARB of t (last_arb == t
 *     afterwards); an access issued for cycle t after that competes from
 *     t+1.  Requestors issue at EV_PRI_ISSUE or earlier, so this only
 *     affects accesses issued from late-priority events;
 *   - everything is iterated in requestor-id and bank order: no pointer or
 *     hash order, so the same inputs give the same grants bit for bit.
 */
#include "sram.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/unit.h"

/* Event kinds the memory schedules for itself. */
enum { SRAM_EV_ARB = 1, SRAM_EV_DONE = 2 };

/* Bits of a completion event's arg holding the ring index (rest: req id).
 * 48 bits leave 16 for the requestor id; the index is compared modulo
 * 2^48, which no run reaches (2.8e14 accesses of one requestor). */
#define SRAM_IDX_BITS 48
#define SRAM_IDX_MASK ((UINT64_C(1) << SRAM_IDX_BITS) - 1)

/* State of a requestor's head access. */
enum head_state {
	HS_NONE,     /* no head (head == tail) */
	HS_PENDING,  /* head exists, competes from cycle 'elig' */
	HS_FREE,     /* uncontended: closed-form progress from free_s */
	HS_ARB,      /* contended: resolved cycle by cycle */
};

/* Words per bank of an access: its j-th bank (bank (b0 + j) % banks,
 * j < nb) holds full + (j < rem) of its words (docs/memory.md).  Worked
 * out once at issue: activation and counting both need it. */
struct sram_shape {
	uint64_t full;        /* words every touched bank gets */
	uint32_t b0;          /* bank of the first word */
	uint32_t nb;          /* banks touched = min(words, banks) */
	uint32_t rem;         /* the first rem banks get one more */
};

/* One access, as issued. */
struct sram_acc {
	uint64_t addr;        /* first byte */
	uint32_t bytes;       /* length (> 0) */
	int write;            /* 1 write, 0 read */
	struct sram_shape sh; /* its words per bank */
	cycle_t when;         /* earliest cycle to compete (issue argument) */
	cycle_t done_at;      /* completion cycle, once finalised */
	cycle_t sched_done;   /* cycle of its scheduled completion event, or
				 CYCLE_MAX if none yet */
	sram_done_fn done;    /* completion callback (may be NULL) */
	void *ctx;            /* callback context */
	uint64_t tag;         /* callback tag */
};

/* One requestor (a port of a unit: "matrix", "vector", "dma0"). */
struct sram_req {
	char name[24];          /* registered name, for counters */
	struct sram_acc *ring;  /* accesses, slot = index & (cap - 1) */
	uint64_t cap;           /* ring capacity (power of two) */
	uint64_t retire;        /* oldest access awaiting completion */
	uint64_t head;          /* access presented to the banks */
	uint64_t tail;          /* next index to issue */
	enum head_state hs;     /* what the head is doing */
	cycle_t elig;           /* HS_PENDING: first cycle it competes */
	cycle_t free_s;         /* HS_FREE: cycle from which 'left' counts */
	cycle_t last_grant;     /* HS_FREE: tentative last grant cycle */
	cycle_t prev_last;      /* last grant cycle of the previous access */
	int have_prev;          /* prev_last is valid */
	uint32_t b0;            /* head: bank of its first word */
	uint32_t nb;            /* head: banks touched = min(words, banks) */
	uint32_t *left;         /* head: words still to grant per bank offset
				   j (bank (b0 + j) % banks), nb used */
	cycle_t succ_arb;       /* last arbitration scheduled for the
				   successor (dedupe), CYCLE_MAX none */
	uint64_t st[SRAM_N_ST]; /* per-requestor statistics (enum sram_stat;
				   CONFLICTS in cycles, the rest per access
				   or byte) */
};

struct sram {
	struct unit u;          /* common header: counters, name, engine */
	struct sram_geom g;     /* geometry and policy */
	uint8_t *data;          /* functional contents, g.bytes long */
	struct sram_req *reqs;  /* requestors, id = index */
	int n_reqs, cap_reqs;   /* used, allocated */
	uint64_t all_st[SRAM_ST_WRITES + 1]; /* words read, written in every
				   bank, not in bank_st (acc_count) */
	uint64_t *bank_st;      /* banks x SRAM_N_ST statistics (words read,
				   written; bank-cycles of conflict) */
	int *rr;                /* per bank: requestor id that goes first
				   under round-robin (unused with fixed) */
	cycle_t *bank_stamp;    /* per bank: cycle of bank_n's validity */
	int *bank_n;            /* per bank: heads wanting it this cycle;
				   -1 once resolved in this pass */
	uint64_t *bank_dem;     /* per bank (arbitrate_narrow): a bit per
				   requestor wanting it this cycle; 0 once
				   resolved in this pass */
	cycle_t last_arb;       /* last cycle whose arbitration ran */
	int arb_ran;            /* last_arb is valid */
	cycle_t arb_sched_last; /* last cycle an ARB event was scheduled for */
	int arb_sched_any;      /* arb_sched_last is valid */
	uint32_t arb_gen;       /* ARB events carry it: sram_ff_chain bumps
				   it to drop the pending ones it replaces */
	/* Requestors with a head (hs != HS_NONE), a bit each: arbitration
	 * visits only these, in id order (most of a scratchpad's dozen
	 * requestors are idle at any time). */
	uint64_t *live;
	int n_live_words;
	/* log2 of bank_width and banks when they are powers of two (else
	 * -1): the shape of every access without a division */
	int bw_shift, bk_shift;
};

/* Every live requestor id i in increasing order (W, M: scratch). */
#define FOR_LIVE(s, i, w, m)                                              \
	for ((w) = 0; (w) < (s)->n_live_words; (w)++)                     \
		for ((m) = (s)->live[(w)];                                \
		     (m) && ((i) = (int)((w) * 64 +                       \
					 (uint32_t)__builtin_ctzll(m)), 1);  \
		     (m) &= (m) - 1)

static void live_set(struct sram *s, int id)
{
	s->live[id >> 6] |= 1ULL << (id & 63);
}

static void live_clr(struct sram *s, int id)
{
	s->live[id >> 6] &= ~(1ULL << (id & 63));
}

/* ---- small helpers ------------------------------------------------------ */

/* (a + b) mod n for a, b < n, without a division (the arbitration's bank
 * and requestor rings: a divide per visit was a tenth of the pass). */
static uint32_t add_mod(uint32_t a, uint32_t b, uint32_t n)
{
	uint32_t x = a + b;

	return x >= n ? x - n : x;
}

/* log2(x) when x is a power of two, else -1. */
static int log2_exact(uint64_t x)
{
	return x && !(x & (x - 1)) ? __builtin_ctzll(x) : -1;
}

/* Ceiling division (cycles from words and ports, words from bytes). */
static uint64_t div_up(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

/* Words, first bank and banks touched by [addr, addr + bytes).  Partial
 * words at either end count whole: a bank moves bank_width bytes per port
 * grant whatever part of them the access wants. */
static void acc_shape(const struct sram *s, uint64_t addr, uint32_t bytes,
		      uint64_t *n_words, uint32_t *b0, uint32_t *nb)
{
	uint64_t w0, w1;

	if (s->bw_shift >= 0) {
		w0 = addr >> s->bw_shift;
		w1 = (addr + bytes - 1) >> s->bw_shift;
	} else {
		w0 = addr / (uint64_t)s->g.bank_width;
		w1 = (addr + bytes - 1) / (uint64_t)s->g.bank_width;
	}
	*n_words = w1 - w0 + 1;
	*b0 = (uint32_t)(s->bk_shift >= 0 ? w0 & ((uint64_t)s->g.banks - 1)
					  : w0 % (uint64_t)s->g.banks);
	*nb = *n_words < (uint64_t)s->g.banks ? (uint32_t)*n_words
					      : (uint32_t)s->g.banks;
}

/* Words of an n-word access that fall in its j-th bank (j < nb).
 * Consecutive words go to consecutive banks, so every bank gets
 * floor(n / banks) and the first n % banks of them one more. */
static uint64_t words_in(const struct sram *s, uint64_t n_words, uint32_t j)
{
	uint64_t full, rem;

	if (s->bk_shift >= 0) {
		full = n_words >> s->bk_shift;
		rem = n_words & ((uint64_t)s->g.banks - 1);
	} else {
		full = n_words / (uint64_t)s->g.banks;
		rem = n_words % (uint64_t)s->g.banks;
	}

	return full + (j < rem ? 1 : 0);
}

/* The shape of [addr, addr + bytes): acc_shape and words_in in one. */
static void shape_of(const struct sram *s, uint64_t addr, uint32_t bytes,
		     struct sram_shape *sh)
{
	uint64_t n_words;

	acc_shape(s, addr, bytes, &n_words, &sh->b0, &sh->nb);
	if (s->bk_shift >= 0) {
		sh->full = n_words >> s->bk_shift;
		sh->rem = (uint32_t)(n_words & ((uint64_t)s->g.banks - 1));
	} else {
		sh->full = n_words / (uint64_t)s->g.banks;
		sh->rem = (uint32_t)(n_words % (uint64_t)s->g.banks);
	}
}

/*
 * Ring indices grow forever (64 bits: no wrap in any run); the slot is the
 * index modulo the capacity, a power of two so that it is a mask.
 */
static struct sram_acc *slot(struct sram_req *r, uint64_t idx)
{
	return &r->ring[idx & (r->cap - 1)];
}

/*
 * Make sure an arbitration pass runs at cycle c.  Consecutive requests for
 * the same cycle share one event; duplicates that slip through (several
 * causes for one cycle) are harmless, the pass runs once per cycle.
 */
static int ensure_arb(struct sram *s, cycle_t c)
{
	if (s->arb_sched_any && s->arb_sched_last == c)
		return 0;
	s->arb_sched_any = 1;
	s->arb_sched_last = c;
	return eng_schedule_gen(s->u.eng, c, EV_PRI_ARB, &s->u, SRAM_EV_ARB, 0,
				&s->arb_gen);
}

/* Earliest cycle the (new) head may compete, from its issue cycle. */
static cycle_t head_elig(const struct sram *s, const struct sram_req *r,
			 cycle_t when)
{
	cycle_t e = when;

	if (r->have_prev && e < r->prev_last + 1)
		e = r->prev_last + 1;
	/* Arbitration of this cycle has already run: compete from the next.
	 * (An access issued from a late-priority event, e.g. EV_PRI_CONTROL,
	 * must not be granted retroactively in a pass that is over.) */
	if (s->arb_ran && e <= s->last_arb)
		e = s->last_arb + 1;
	return e;
}

/*
 * Cycles a free head still needs: its fullest bank's words over the ports.
 * Every bank works in parallel, so the fullest one decides.
 */
static cycle_t head_cycles_left(const struct sram *s, const struct sram_req *r)
{
	uint32_t j, mx = 0;

	for (j = 0; j < r->nb; j++)
		if (r->left[j] > mx)
			mx = r->left[j];
	return (cycle_t)div_up(mx, (uint64_t)s->g.ports);
}

/* ---- lifecycle of a head ------------------------------------------------ */

/*
 * The head has had its last word granted at cycle 'last': count it, fix its
 * completion cycle (scheduling the event unless the tentative one already
 * stands at that cycle) and make the next access the head.
 */
/* Count a fully granted access: per-bank words from its shape (every word
 * was granted exactly once, whichever way it got there), the memory's and
 * the requestor's accesses and bytes. */
static void acc_count(struct sram *s, struct sram_req *r,
		      const struct sram_shape *sh, uint32_t bytes, int write)
{
	int kind = write ? SRAM_ST_WRITES : SRAM_ST_READS;
	uint64_t *bs = s->bank_st + kind;
	uint32_t j, b = sh->b0, banks = (uint32_t)s->g.banks;

	/* Its j-th bank gets full + (j < rem) words.  Touching every bank,
	 * they all get 'full': that goes to all_st in one add instead of one
	 * per bank (the vector unit's rows span the banks), and the readers
	 * of bank_st add it back; the first 'rem' get one more.  Touching
	 * fewer (nb = words < banks), full is 0 and rem is nb: one each. */
	if (sh->nb == banks)
		s->all_st[kind] += sh->full;
	for (j = 0; j < sh->rem; j++) {
		bs[(uint64_t)b * SRAM_N_ST]++;
		b = b + 1 == banks ? 0 : b + 1;
	}
	if (write) {
		s->u.ctr[CTR_SRAM_WRITES]++;
		s->u.ctr[CTR_SRAM_WRITE_BYTES] += bytes;
		r->st[SRAM_ST_WRITES]++;
		r->st[SRAM_ST_WRITE_BYTES] += bytes;
	} else {
		s->u.ctr[CTR_SRAM_READS]++;
		s->u.ctr[CTR_SRAM_READ_BYTES] += bytes;
		r->st[SRAM_ST_READS]++;
		r->st[SRAM_ST_READ_BYTES] += bytes;
	}
}

static int head_finalise(struct sram *s, int id, cycle_t last)
{
	struct sram_req *r = &s->reqs[id];
	struct sram_acc *a = slot(r, r->head);
	int rc;

	acc_count(s, r, &a->sh, a->bytes, a->write);
	/* a free head already has its completion event at this cycle;
	 * a contended one (or a free one that was delayed) needs one */
	a->done_at = last + (cycle_t)s->g.latency;
	if (a->sched_done != a->done_at) {
		rc = eng_schedule(s->u.eng, a->done_at, EV_PRI_COMPLETE, &s->u,
				  SRAM_EV_DONE,
				  ((uint64_t)id << SRAM_IDX_BITS) |
				  (r->head & SRAM_IDX_MASK));
		if (rc)
			return rc;
		a->sched_done = a->done_at;
	}
	/* One access at a time per requestor: the successor may not compete
	 * before last + 1 (head_elig), which keeps each requestor's grants
	 * in issue order. */
	r->prev_last = last;
	r->have_prev = 1;
	r->head++;
	r->succ_arb = CYCLE_MAX;
	if (r->head == r->tail) {
		r->hs = HS_NONE;
		live_clr(s, id);
		return 0;
	}
	r->hs = HS_PENDING;
	r->elig = head_elig(s, r, slot(r, r->head)->when);
	return ensure_arb(s, r->elig);
}

/* The head starts competing at cycle t: words per bank from its shape.
 * left[] has room for every bank (allocated at registration), and nb is
 * at most banks, so no allocation happens per access. */
static void head_activate(struct sram_req *r)
{
	const struct sram_acc *a = slot(r, r->head);
	uint32_t j, full = (uint32_t)a->sh.full;

	r->b0 = a->sh.b0;
	r->nb = a->sh.nb;
	for (j = 0; j < r->nb; j++)
		r->left[j] = full + (j < a->sh.rem);
}

/*
 * A free head's words left as of the start of cycle t: it was granted every
 * port of each of its banks in each cycle from free_s to t-1.
 */
static void head_materialise(struct sram *s, int id, cycle_t t)
{
	struct sram_req *r = &s->reqs[id];
	uint64_t granted = (uint64_t)(t - r->free_s) * (uint64_t)s->g.ports;
	uint32_t j, b, banks = (uint32_t)s->g.banks;
	int next = (int)add_mod((uint32_t)id, 1, (uint32_t)s->n_reqs);

	r->free_s = t;
	if (!granted)
		return;
	for (j = 0, b = r->b0; j < r->nb; j++, b = b + 1 == banks ? 0 : b + 1) {
		/* Its banks were its alone: a round-robin pointer moves past
		 * it after any grant, exactly as if arbitrated every cycle. */
		if (r->left[j])
			s->rr[b] = next;
		r->left[j] = granted >= r->left[j] ? 0
			   : r->left[j] - (uint32_t)granted;
	}
}

/*
 * Let the head run free from cycle t: its last grant and completion follow
 * in closed form.  The completion event is scheduled now (tentatively: a
 * later contender may delay it, which makes this event stale), and the
 * successor, if already issued, gets an arbitration pass at its start.
 */
static int head_set_free(struct sram *s, int id, cycle_t t)
{
	struct sram_req *r = &s->reqs[id];
	struct sram_acc *a = slot(r, r->head);
	cycle_t done;
	int rc;

	r->hs = HS_FREE;
	r->free_s = t;
	/* A head still in the arbitration table always has a word left, so
	 * head_cycles_left >= 1 and last_grant >= t. */
	r->last_grant = t + head_cycles_left(s, r) - 1;
	done = r->last_grant + (cycle_t)s->g.latency;
	if (a->sched_done != done) {
		rc = eng_schedule(s->u.eng, done, EV_PRI_COMPLETE, &s->u,
				  SRAM_EV_DONE,
				  ((uint64_t)id << SRAM_IDX_BITS) |
				  (r->head & SRAM_IDX_MASK));
		if (rc)
			return rc;
		a->sched_done = done;
	}
	/* The successor will not compete before the free head's last grant
	 * + 1; give that cycle a pass now, since no event of this head falls
	 * there (its completion comes 'latency' cycles later). */
	if (r->head + 1 < r->tail) {
		cycle_t c = slot(r, r->head + 1)->when;

		if (c < r->last_grant + 1)
			c = r->last_grant + 1;
		if (r->succ_arb != c) {
			r->succ_arb = c;
			return ensure_arb(s, c);
		}
	}
	return 0;
}

/* Finalise a free head whose last grant lies before cycle t. */
static int head_catch_up(struct sram *s, int id, cycle_t t)
{
	struct sram_req *r = &s->reqs[id];

	if (r->hs == HS_FREE && r->last_grant < t) {
		head_materialise(s, id, r->last_grant + 1); /* RR pointers */
		return head_finalise(s, id, r->last_grant);
	}
	return 0;
}

/* ---- arbitration -------------------------------------------------------- */

/*
 * Offset of bank b in the head of r, or -1 if the head does not touch b.
 * An access touches a contiguous run of banks starting at b0 (modulo the
 * bank count), so "does it touch bank b" is one subtraction.
 */
static int head_off(const struct sram *s, const struct sram_req *r, uint32_t b)
{
	uint32_t j = add_mod(b, (uint32_t)s->g.banks - r->b0, (uint32_t)s->g.banks);

	return j < r->nb ? (int)j : -1;
}

/* A head competing this cycle (free or contended). */
static int active(const struct sram_req *r)
{
	return r->hs == HS_FREE || r->hs == HS_ARB;
}

/*
 * Step 1 of a pass for requestor i with a head: finalise a free head that
 * finished before t (its successor becomes pending), activate a pending
 * head whose start has come, bring a free one's words-left up to t.  A
 * successor made eligible here may start at t itself, so last_arb still
 * names the previous pass (see head_elig).  Returns 0 or an error.
 */
static int head_prepare(struct sram *s, int i, cycle_t t)
{
	struct sram_req *r = &s->reqs[i];
	int rc;

	if ((rc = head_catch_up(s, i, t)))
		return rc;
	if (r->hs == HS_PENDING && r->elig <= t) {
		head_activate(r);
		r->hs = HS_ARB; /* decided by the caller */
		r->free_s = t;
	} else if (r->hs == HS_FREE) {
		head_materialise(s, i, t);
	}
	return 0;
}

/*
 * Requestor q's turn at bank b in a pass (its off-th bank): greedy, it
 * takes all it still wants there of the *ports left, in priority order;
 * *last_won names it if it got one.  Refused a port it could have used
 * alone, it counts a bank conflict and 1 is returned (its conflict cycle,
 * counted once per pass by the caller).
 */
static int port_grant(struct sram *s, uint32_t b, int q, uint32_t off,
		      uint32_t *ports, int *last_won)
{
	struct sram_req *rq = &s->reqs[q];
	uint32_t want = rq->left[off], p = (uint32_t)s->g.ports;
	uint32_t g = want < *ports ? want : *ports;
	int refused = g < (want < p ? want : p);

	if (refused) {
		s->bank_st[b * SRAM_N_ST + SRAM_ST_CONFLICTS]++;
		s->u.ctr[CTR_SRAM_BANK_CONFLICTS]++;
	}
	if (g) {
		rq->left[off] -= g;
		*ports -= g;
		*last_won = q;
	}
	return refused;
}

/* The end of contended head i's pass: finalised if it got its last word,
 * else *contended_left is set (it goes on next cycle). */
static int arb_end(struct sram *s, int i, cycle_t t, int *contended_left)
{
	const struct sram_req *r = &s->reqs[i];
	uint32_t j;

	for (j = 0; j < r->nb; j++)
		if (r->left[j]) {
			*contended_left = 1;
			return 0;
		}
	return head_finalise(s, i, t);
}

/*
 * The pass below (arbitrate) for a memory of at most 64 requestors, every
 * one there is unless core.dma.engines > 57: the same steps in the same
 * order, with the walks' per-bank bookkeeping in one word per bank.
 *   - Counting keeps each bank's demanders as a mask (bank_dem) instead of
 *     a count, and the heads that share a bank as a mask ('shared'): a
 *     head is contended iff its bit is there, so the split needs no second
 *     look at its banks, and a pass with every head free skips the grant
 *     walk (no bit in 'arb').
 *   - A contended bank's round-robin order, requestors from rr[b] on then
 *     those below it, is its mask's bits at and above rr[b], then the
 *     rest: no walk over every live requestor per bank.
 *   - Granting, conflict cycles and finalising are one walk in id order
 *     instead of three.  Equivalent because a bank is resolved by its
 *     lowest-id demander (as in arbitrate), so when head i's visit ends
 *     every bank it wants is resolved: its words left, its 'lost' bit are
 *     final and no later resolution looks at it.  Finalising schedules
 *     events; granting and counting schedule none, so the events come in
 *     the same order (contended heads in id order, after the free ones).
 */
static int arbitrate_narrow(struct sram *s, cycle_t t)
{
	uint64_t act = 0, shared = 0, arb = 0, lost = 0, m;
	uint32_t j, b, banks = (uint32_t)s->g.banks;
	int i, rc, contended_left = 0;

	/* 1. prepare every head; demanders of each bank wanted at t */
	for (m = s->live[0]; m; m &= m - 1) {
		struct sram_req *r;
		uint64_t bit;

		i = __builtin_ctzll(m);
		r = &s->reqs[i];
		if ((rc = head_prepare(s, i, t)))
			return rc;
		if (!active(r))
			continue;
		bit = 1ULL << i;
		act |= bit;
		for (j = 0, b = r->b0; j < r->nb;
		     j++, b = b + 1 == banks ? 0 : b + 1) {
			if (!r->left[j])
				continue;
			if (s->bank_stamp[b] != t + 1) { /* (see arbitrate) */
				s->bank_stamp[b] = t + 1;
				s->bank_dem[b] = bit;
			} else {
				shared |= s->bank_dem[b] | bit;
				s->bank_dem[b] |= bit;
			}
		}
	}
	s->arb_ran = 1;
	s->last_arb = t;

	/* 2. heads sharing no bank run free, in id order */
	for (m = act; m; m &= m - 1) {
		i = __builtin_ctzll(m);
		if (shared & (1ULL << i)) {
			s->reqs[i].hs = HS_ARB;
			arb |= 1ULL << i;
		} else if ((rc = head_set_free(s, i, t))) {
			return rc;
		}
	}

	/* 3. the contended heads in id order: resolve each bank not yet
	 * resolved (its demanders are all contended, none visited yet), then
	 * count the head's conflict cycle and finalise it if it is done */
	for (m = arb; m; m &= m - 1) {
		struct sram_req *r;

		i = __builtin_ctzll(m);
		r = &s->reqs[i];
		for (j = 0, b = r->b0; j < r->nb;
		     j++, b = b + 1 == banks ? 0 : b + 1) {
			uint64_t d = s->bank_dem[b], order[2];
			uint32_t ports = (uint32_t)s->g.ports;
			int k, first, last_won = -1;

			if (!r->left[j] || !d)
				continue; /* nothing wanted, or resolved */
			first = s->g.arb == SRAM_ARB_RR ? s->rr[b] : 0;
			order[0] = d & (~0ULL << first); /* first and above */
			order[1] = d & ~order[0];        /* then below it */
			for (k = 0; k < 2; k++) {
				uint64_t m2;

				for (m2 = order[k]; m2; m2 &= m2 - 1) {
					int q = __builtin_ctzll(m2);
					uint32_t off = add_mod(b, banks -
							       s->reqs[q].b0,
							       banks);

					if (port_grant(s, b, q, off, &ports,
						       &last_won))
						lost |= 1ULL << q;
				}
			}
			if (s->g.arb == SRAM_ARB_RR && last_won >= 0)
				s->rr[b] = (int)add_mod((uint32_t)last_won, 1,
							(uint32_t)s->n_reqs);
			s->bank_dem[b] = 0; /* resolved for cycle t */
		}
		if (lost & (1ULL << i))
			r->st[SRAM_ST_CONFLICTS]++;
		if ((rc = arb_end(s, i, t, &contended_left)))
			return rc;
	}
	/* Survivors that became uncontended are set free by the t+1 pass. */
	return contended_left ? ensure_arb(s, t + 1) : 0;
}

/*
 * Arbitration pass of cycle t (EV_PRI_ARB):
 *   1. finalise free heads that finished before t; heads whose start is t
 *      become active;
 *   2. bring every active head's words-left up to the start of t and count,
 *      per bank, how many heads want it;
 *   3. a head sharing no wanted bank runs free (closed form, no further
 *      events); the others are granted this one cycle bank by bank under
 *      the arbitration policy, losers count conflicts, and another pass is
 *      scheduled for t+1 while any contended head is left.
 */
static int arbitrate(struct sram *s, cycle_t t)
{
	int i = 0, rc, contended_left = 0, w;
	uint64_t m;
	uint32_t j;

	if (s->arb_ran && s->last_arb == t)
		return 0; /* duplicate event for a cycle already resolved */

	/*
	 * One requestor with a head (a DMA engine's stream, most passes): it
	 * shares no bank, so the pass below reduces to catching it up,
	 * activating or advancing it, and letting it run free - the same
	 * steps without the four walks (bank_stamp/bank_n are this pass's
	 * scratch, read by no later one).
	 */
	if (s->n_live_words == 1 && s->live[0] &&
	    !(s->live[0] & (s->live[0] - 1))) {
		struct sram_req *r;

		i = __builtin_ctzll(s->live[0]);
		r = &s->reqs[i];
		if ((rc = head_prepare(s, i, t)))
			return rc;
		s->arb_ran = 1;
		s->last_arb = t;
		return active(r) ? head_set_free(s, i, t) : 0;
	}
	if (s->n_live_words == 1)
		return arbitrate_narrow(s, t);

	/* (Idle requestors have nothing to catch up, activate or count.) */
	FOR_LIVE(s, i, w, m) {
		struct sram_req *r = &s->reqs[i];

		/* Requestors are visited in id order, so a successor freed by
		 * requestor i is activated in this same loop iteration. */
		if ((rc = head_prepare(s, i, t)))
			return rc;
		if (!active(r))
			continue;
		for (j = 0; j < r->nb; j++) {
			uint32_t b = add_mod(r->b0, j, (uint32_t)s->g.banks);

			if (!r->left[j])
				continue;
			if (s->bank_stamp[b] != t + 1) {
				/* stamp t+1 so that cycle 0 differs from the
				 * calloc'ed zero */
				s->bank_stamp[b] = t + 1;
				s->bank_n[b] = 0;
			}
			s->bank_n[b]++;
		}
	}

	s->arb_ran = 1;
	s->last_arb = t;

	/* Split active heads into free ones and contended ones. */
	FOR_LIVE(s, i, w, m) {
		struct sram_req *r = &s->reqs[i];
		int shared = 0;

		if (!active(r))
			continue;
		for (j = 0; j < r->nb && !shared; j++) {
			uint32_t b = add_mod(r->b0, j, (uint32_t)s->g.banks);

			shared = r->left[j] && s->bank_n[b] > 1;
		}
		if (!shared) {
			if ((rc = head_set_free(s, i, t)))
				return rc;
		} else {
			r->hs = HS_ARB;
		}
	}

	/*
	 * Grant cycle t to the contended heads, bank by bank in bank order.
	 * Only contended heads are in HS_ARB now, and a bank wanted by a free
	 * head is wanted by nobody else, so each bank's demanders are exactly
	 * the HS_ARB heads with words left there.
	 */
	{
		/* lost[q]: requestor q lost a port somewhere this cycle; its
		 * conflict cycle is counted once however many banks it lost
		 * (docs/memory.md: req.<name>.conflicts is in cycles).  The
		 * scratchpad has 7 + core.dma.engines requestors (3 matrix,
		 * 4 vector, one per engine): the stack array covers up to 57
		 * engines, the 64-engine maximum spills to the heap. */
		int lost[64], *lostp = lost;

		if (s->n_reqs > 64) {
			lostp = calloc((size_t)s->n_reqs, sizeof(int));
			if (!lostp)
				return NPU_ENOMEM;
		} else {
			memset(lost, 0, sizeof(lost));
		}
		FOR_LIVE(s, i, w, m) {
			struct sram_req *r = &s->reqs[i];

			if (r->hs != HS_ARB)
				continue;
			for (j = 0; j < r->nb; j++) {
				uint32_t b = add_mod(r->b0, j, (uint32_t)s->g.banks);
				uint32_t ports = (uint32_t)s->g.ports;
				int k, first, last_won = -1;

				/* Resolve bank b once: when its lowest-id
				 * demander reaches it. */
				if (!r->left[j] || s->bank_stamp[b] != t + 1 ||
				    s->bank_n[b] < 0)
					continue;
				/* rr: start after the last winner at this bank;
				 * fixed: start at id 0, the highest priority. */
				first = s->g.arb == SRAM_ARB_RR ? s->rr[b] : 0;
				/* the live requestors from 'first' on, then
				 * those below it: (first + k) % n order */
				for (k = 0; k < 2; k++) {
				int q = 0, w2;
				uint64_t m2;

				FOR_LIVE(s, q, w2, m2) {
					struct sram_req *rq = &s->reqs[q];
					int off;

					if ((q >= first) != (k == 0) || rq->hs != HS_ARB)
						continue;
					off = head_off(s, rq, b);
					if (off < 0 || !rq->left[off])
						continue;
					if (port_grant(s, b, q, (uint32_t)off,
						       &ports, &last_won))
						lostp[q] = 1;
				}
				}
				/* The pointer moves past the last requestor
				 * granted here this cycle (rule 2). */
				if (s->g.arb == SRAM_ARB_RR && last_won >= 0)
					s->rr[b] = (int)add_mod((uint32_t)last_won, 1,
								(uint32_t)s->n_reqs);
				s->bank_n[b] = -1; /* resolved for cycle t */
			}
		}
		FOR_LIVE(s, i, w, m)
			if (lostp[i])
				s->reqs[i].st[SRAM_ST_CONFLICTS]++;
		if (lostp != lost)
			free(lostp);
	}

	/* Contended heads that got their last word finish; others go on. */
	FOR_LIVE(s, i, w, m)
		if (s->reqs[i].hs == HS_ARB &&
		    (rc = arb_end(s, i, t, &contended_left)))
			return rc;
	/* Survivors that became uncontended are set free by the t+1 pass. */
	return contended_left ? ensure_arb(s, t + 1) : 0;
}

/* Completion event: the oldest finalised access of a requestor is done. */
static int complete(struct sram *s, uint64_t arg, cycle_t t)
{
	int id = (int)(arg >> SRAM_IDX_BITS);
	struct sram_req *r;
	struct sram_acc *a;
	sram_done_fn fn;
	void *ctx;
	uint64_t tag;
	int rc;

	if (id < 0 || id >= s->n_reqs)
		return NPU_EINTERNAL;
	r = &s->reqs[id];
	/* A free head whose grants ended is finalised lazily here. */
	if ((rc = head_catch_up(s, id, t)))
		return rc;
	if (r->retire == r->head)
		return 0; /* stale: the access is still being granted */
	a = slot(r, r->retire);
	if ((r->retire & SRAM_IDX_MASK) != (arg & SRAM_IDX_MASK) ||
	    a->done_at != t)
		return 0; /* stale tentative completion */
	/* Retire before calling back: the callback may issue a new access
	 * on this requestor (the DMA's write after its read) and must find
	 * the ring consistent. */
	fn = a->done;
	ctx = a->ctx;
	tag = a->tag;
	r->retire++;
	return fn ? fn(ctx, tag, t) : 0;
}

/* Both event kinds carry their cycle in ev->when (== now). */
static int sram_on_event(struct unit *u, const struct ev *ev)
{
	struct sram *s = (struct sram *)u;

	switch (ev->kind) {
	case SRAM_EV_ARB:
		return arbitrate(s, ev->when);
	case SRAM_EV_DONE:
		return complete(s, ev->arg, ev->when);
	default:
		return NPU_EINTERNAL;
	}
}

/* ---- unit ops ----------------------------------------------------------- */

/*
 * With the event queue empty every access has completed, so anything left
 * in flight is a lost event in this model: report it rather than hang.
 */
static int sram_blocked(const struct unit *u, char *buf, size_t n)
{
	const struct sram *s = (const struct sram *)u;
	int i;

	for (i = 0; i < s->n_reqs; i++)
		if (s->reqs[i].retire != s->reqs[i].tail) {
			snprintf(buf, n, "requestor %s has %llu accesses in flight",
				 s->reqs[i].name,
				 (unsigned long long)(s->reqs[i].tail -
						      s->reqs[i].retire));
			return 1;
		}
	return 0;
}

/*
 * Counters beyond the fixed sram group: per bank (words and conflicts) and
 * per requestor (accesses, bytes, conflict cycles), named
 * <mem>.bank<B>.<x> and <mem>.req.<name>.<x> (docs/memory.md).
 */
static void sram_dump(const struct unit *u, struct ctr_sink *sink)
{
	static const char *const bank_names[] = { "reads", "writes",
						  "conflicts" };
	static const char *const req_names[SRAM_N_ST] = {
		"reads", "writes", "conflicts", "read_bytes", "write_bytes" };
	const struct sram *s = (const struct sram *)u;
	char pfx[96];
	int b, i, k;

	/* The first three sram_stat entries (reads, writes, conflicts) are
	 * the per-bank ones; byte counts exist only per requestor. */
	for (b = 0; b < s->g.banks; b++) {
		snprintf(pfx, sizeof(pfx), "%s.bank%d", u->name, b);
		for (k = 0; k < 3; k++)
			ctr_emit_u64(sink, pfx, bank_names[k],
				     sram_bank_stat(s, b, (enum sram_stat)k));
	}
	for (i = 0; i < s->n_reqs; i++) {
		snprintf(pfx, sizeof(pfx), "%s.req.%s", u->name,
			 s->reqs[i].name);
		for (k = 0; k < SRAM_N_ST; k++)
			ctr_emit_u64(sink, pfx, req_names[k], s->reqs[i].st[k]);
	}
}

static void sram_destroy(struct unit *u)
{
	struct sram *s = (struct sram *)u;
	int i;

	for (i = 0; i < s->n_reqs; i++) {
		free(s->reqs[i].ring);
		free(s->reqs[i].left);
	}
	free(s->reqs);
	free(s->live);
	free(s->bank_st);
	free(s->rr);
	free(s->bank_stamp);
	free(s->bank_n);
	free(s->bank_dem);
	free(s->data);
	free(s);
}

static const struct unit_ops sram_ops = {
	.kind = UNIT_SRAM,
	.on_event = sram_on_event,
	.blocked = sram_blocked,
	.dump = sram_dump,
	.destroy = sram_destroy,
};

/* ---- public API --------------------------------------------------------- */

sram *sram_new(eng *e, int core, const char *name, const struct sram_geom *g)
{
	struct sram *s;

	/* params.def guarantees these; a caller building a geometry by hand
	 * gets NULL rather than a model with undefined behaviour. */
	if (!g || g->banks < 1 || g->bank_width < 1 || g->ports < 1 ||
	    g->latency < 1 || g->bytes < 1)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	unit_init(&s->u, &sram_ops, e, core, "%s", name);
	s->u.index = g->index; /* trace track key */
	s->g = *g;
	s->bw_shift = log2_exact((uint64_t)g->bank_width);
	s->bk_shift = log2_exact((uint64_t)g->banks);
	s->data = calloc(1, (size_t)g->bytes);
	s->bank_st = calloc((size_t)g->banks * SRAM_N_ST, sizeof(uint64_t));
	s->rr = calloc((size_t)g->banks, sizeof(int));
	s->bank_stamp = calloc((size_t)g->banks, sizeof(cycle_t));
	s->bank_n = calloc((size_t)g->banks, sizeof(int));
	s->bank_dem = calloc((size_t)g->banks, sizeof(uint64_t));
	if (!s->data || !s->bank_st || !s->rr || !s->bank_stamp ||
	    !s->bank_n || !s->bank_dem || eng_add_unit(e, &s->u)) {
		sram_destroy(&s->u);
		return NULL;
	}
	return s;
}

/*
 * Requestor ids are handed out in registration order and are the fixed
 * priority (lower wins): the chip registers the matrix engine first.  The
 * ring starts small and doubles; 'left' holds one head's words per bank.
 */
int sram_add_requestor(sram *s, const char *name)
{
	struct sram_req *r;

	if (s->n_reqs == s->cap_reqs) {
		int cap = s->cap_reqs ? s->cap_reqs * 2 : 4;
		struct sram_req *v = realloc(s->reqs, (size_t)cap * sizeof(*v));

		if (!v)
			return NPU_ENOMEM;
		s->reqs = v;
		s->cap_reqs = cap;
	}
	if (s->n_reqs / 64 + 1 > s->n_live_words) {
		uint64_t *v = realloc(s->live, (size_t)(s->n_live_words + 1) * sizeof(*v));

		if (!v)
			return NPU_ENOMEM;
		v[s->n_live_words] = 0;
		s->live = v;
		s->n_live_words++;
	}
	r = &s->reqs[s->n_reqs];
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	/* 16 in-flight accesses cover the matrix engine's prefetch window at
	 * typical sizes; the ring doubles when a unit needs more. */
	r->cap = 16;
	r->ring = calloc((size_t)r->cap, sizeof(*r->ring));
	r->left = calloc((size_t)s->g.banks, sizeof(uint32_t));
	r->succ_arb = CYCLE_MAX;
	if (!r->ring || !r->left) {
		free(r->ring);
		free(r->left);
		return NPU_ENOMEM;
	}
	return s->n_reqs++;
}

uint8_t *sram_data(sram *s) { return s->data; }
uint64_t sram_size(const sram *s) { return s->g.bytes; }
const struct sram_geom *sram_geom(const sram *s) { return &s->g; }
struct unit *sram_unit(sram *s) { return &s->u; }
int sram_n_requestors(const sram *s) { return s->n_reqs; }

const char *sram_requestor_name(const sram *s, int req)
{
	return req >= 0 && req < s->n_reqs ? s->reqs[req].name : NULL;
}

uint64_t sram_bank_stat(const sram *s, int bank, enum sram_stat st)
{
	if (bank < 0 || bank >= s->g.banks || st >= SRAM_N_ST)
		return 0;
	return s->bank_st[(size_t)bank * SRAM_N_ST + st] +
	       (st <= SRAM_ST_WRITES ? s->all_st[st] : 0);
}

uint64_t sram_req_stat(const sram *s, int req, enum sram_stat st)
{
	if (req < 0 || req >= s->n_reqs || st >= SRAM_N_ST)
		return 0;
	return s->reqs[req].st[st];
}

/*
 * Cycles an access takes with the memory to itself; units use it to
 * prefetch early enough (the matrix engine) and to tell their own
 * bandwidth limits from conflicts.
 */
uint32_t sram_alone_cycles(const sram *s, uint64_t addr, uint32_t bytes)
{
	uint64_t n_words;
	uint32_t b0, nb;

	if (!bytes)
		return 0;
	acc_shape(s, addr, bytes, &n_words, &b0, &nb);
	/* Offset 0 holds the most words (the remainder goes to the first
	 * banks). */
	return (uint32_t)div_up(words_in(s, n_words, 0), (uint64_t)s->g.ports);
}

/* Written so that addr + bytes cannot overflow: every test is on sizes. */
int sram_check_range(const sram *s, uint64_t addr, uint64_t bytes)
{
	if (addr > s->g.bytes || bytes > s->g.bytes - addr)
		return NPU_EFAULT;
	return 0;
}

int sram_check_access(const sram *s, struct diag *d, const char *who,
		      uint64_t pc, uint64_t addr, uint64_t bytes,
		      unsigned align)
{
	const char *mem = strrchr(s->u.name, '.');

	mem = mem ? mem + 1 : s->u.name;
	if (sram_check_range(s, addr, bytes)) {
		if (d)
			(void)diag_error(d, diag_at_run(s->u.core, pc,
							eng_now(s->u.eng)),
					 NPU_EFAULT,
					 "%s: %s access [0x%llx, 0x%llx) (%llu bytes) outside the %s [0x0, 0x%llx)",
					 who, mem, (unsigned long long)addr,
					 (unsigned long long)(addr + bytes),
					 (unsigned long long)bytes, mem,
					 (unsigned long long)s->g.bytes);
		return NPU_EFAULT;
	}
	/* align is an element size: a power of two (1..8), so a mask works. */
	if (align > 1 && (addr & (align - 1))) {
		if (d)
			(void)diag_error(d, diag_at_run(s->u.core, pc,
							eng_now(s->u.eng)),
					 NPU_EFAULT,
					 "%s: %s access [0x%llx, 0x%llx) is misaligned: the address must be a multiple of %u",
					 who, mem, (unsigned long long)addr,
					 (unsigned long long)(addr + bytes),
					 align);
		return NPU_EFAULT;
	}
	return 0;
}

/* Double a requestor's ring, keeping every live index in its slot. */
static int ring_grow(struct sram_req *r)
{
	uint64_t cap = r->cap * 2, i;
	struct sram_acc *v = calloc((size_t)cap, sizeof(*v));

	if (!v)
		return NPU_ENOMEM;
	for (i = r->retire; i < r->tail; i++)
		v[i & (cap - 1)] = r->ring[i & (r->cap - 1)];
	free(r->ring);
	r->ring = v;
	r->cap = cap;
	return 0;
}

int sram_access(sram *s, int req, uint64_t addr, uint32_t bytes, int write,
		cycle_t when, sram_done_fn done, void *ctx, uint64_t tag)
{
	struct sram_req *r;
	struct sram_acc *a;
	int rc;

	/* units check ranges (with a fault message naming the instruction)
	 * before issuing; reaching here unchecked is a model bug */
	if (req < 0 || req >= s->n_reqs || bytes == 0 ||
	    when < eng_now(s->u.eng) || sram_check_range(s, addr, bytes))
		return NPU_EINTERNAL; /* caller bug: checked ranges first */
	r = &s->reqs[req];
	/* Full when every slot holds an access not yet retired. */
	if (r->tail - r->retire == r->cap && (rc = ring_grow(r)))
		return rc;
	a = slot(r, r->tail);
	a->addr = addr;
	a->bytes = bytes;
	a->write = write != 0;
	shape_of(s, addr, bytes, &a->sh);
	a->when = when;
	a->done_at = CYCLE_MAX;
	a->sched_done = CYCLE_MAX;
	a->done = done;
	a->ctx = ctx;
	a->tag = tag;
	r->tail++;
	if (r->tail - 1 == r->head) {
		/* It is the head: it competes from its start. */
		r->hs = HS_PENDING;
		live_set(s, req);
		r->elig = head_elig(s, r, when);
		return ensure_arb(s, r->elig);
	}
	if (r->hs == HS_FREE && r->head + 1 == r->tail - 1) {
		/* Right behind a free head: starts after its last grant. */
		cycle_t c = when < r->last_grant + 1 ? r->last_grant + 1 : when;

		if (s->arb_ran && c <= s->last_arb)
			c = s->last_arb + 1;
		if (r->succ_arb != c) {
			r->succ_arb = c;
			return ensure_arb(s, c);
		}
	}
	/* Behind a pending or contended head: handled when the head ends. */
	return 0;
}

/* ---- fast-forward (the matrix engine's uncontended streams) ---------------*/

int sram_quiet(const sram *s)
{
	int w;

	for (w = 0; w < s->n_live_words; w++)
		if (s->live[w])
			return 0;
	return 1;
}

/*
 * What the per-cycle model does for a one-cycle access alone in its banks,
 * issued for cycle t (sram_access), arbitrated at t (arbitrate: it is the
 * only head wanting its banks, so it runs free), and completed at t +
 * latency (head_catch_up, head_finalise, complete), less the events and
 * the callback: a stream of one (sram_ff_stream says what it accounts).
 */
int sram_ff_access(sram *s, int req, uint64_t addr, uint32_t bytes,
		   int write, cycle_t t)
{
	return sram_ff_stream(s, req, addr, 0, bytes, 1, write, t, 1);
}

/* ---- the memory protocol (port.h) ------------------------------------------*/

/* Requesters attach in creation order: matrix, vector, DMA engines; the
 * order is the fixed-priority rank (docs/memory.md). */
static int sram_t_attach(void *t, const char *requester)
{
	return sram_add_requestor(t, requester);
}

/* An SRAM never refuses: a requester's accesses queue behind each other
 * and lose bank arbitration instead (conflict cycles). */
static int sram_t_recv(void *t, struct mem_port *p, const struct mem_req *r)
{
	return sram_access(t, p->id, r->addr, r->bytes, r->write, r->when,
			   r->done, r->ctx, r->tag);
}

static void sram_t_info(const void *t, struct mem_info *out)
{
	const struct sram *s = t;
	const char *mem = strrchr(s->u.name, '.');

	out->name = mem ? mem + 1 : s->u.name;
	out->data = s->data;
	out->size = s->g.bytes;
	out->latency = s->g.latency;
	out->period = (uint64_t)s->g.banks * (uint64_t)s->g.bank_width;
}

static int sram_t_check(const void *t, struct diag *d, const char *who,
			uint64_t pc, uint64_t addr, uint64_t bytes,
			unsigned align)
{
	return sram_check_access(t, d, who, pc, addr, bytes, align);
}

static uint32_t sram_t_alone(const void *t, uint64_t addr, uint32_t bytes)
{
	return sram_alone_cycles(t, addr, bytes);
}

static uint64_t sram_t_conflicts(const void *t, int id)
{
	return sram_req_stat(t, id, SRAM_ST_CONFLICTS);
}

static int sram_t_quiet(const void *t)
{
	return sram_quiet(t);
}

/*
 * n one-cycle accesses of requestor req, access j of 'bytes' at addr +
 * j * stride (stride may be negative: two's complement) issued for cycle
 * t0 + j * every, none meeting another requestor's access, accounted as
 * the events would have: the counters, the round-robin pointers of the
 * banks touched (which move past a requestor granted there), the
 * requestor's ring position and last grant, and the memory's last
 * arbitration cycle.  The caller promises nothing of the requestor in
 * flight, t0 after its previous grant and not before a pass already run,
 * one cycle per access.
 */
int sram_ff_stream(sram *s, int req, uint64_t addr, int64_t stride,
		   uint32_t bytes, uint64_t n, int write, cycle_t t0,
		   cycle_t every)
{
	struct sram_req *r;
	uint32_t banks = (uint32_t)s->g.banks, rrv, b0, nb, k;
	uint64_t j, a, last = addr + (n - 1) * (uint64_t)stride, n_words;
	uint64_t span, period, g, h;
	cycle_t t_last = t0 + (n ? n - 1 : 0) * every;
	int kind = write ? SRAM_ST_WRITES : SRAM_ST_READS;

	if (!n)
		return 0;
	if (req < 0 || req >= s->n_reqs || bytes == 0 ||
	    sram_check_range(s, addr, bytes) || sram_check_range(s, last, bytes))
		return NPU_EINTERNAL;
	r = &s->reqs[req];
	if (r->retire != r->tail || (r->have_prev && t0 <= r->prev_last) ||
	    (s->arb_ran && t0 < s->last_arb))
		return NPU_EINTERNAL;
	rrv = add_mod((uint32_t)req, 1, (uint32_t)s->n_reqs);
	/*
	 * Access j's shape depends on its address modulo span = banks x
	 * bank_width only, which repeats every period = span / gcd(stride
	 * mod span, span) accesses: access j < period stands for the
	 * q = (n - 1 - j) / period + 1 accesses j, j + period, ... of the run.
	 * Example: 8 banks x 16 B, 32-byte rows at stride 32: period 4.
	 */
	span = (uint64_t)banks * (uint64_t)s->g.bank_width;
	/* gcd(x, span) = gcd(-x mod span, span): the magnitude will do */
	g = (stride < 0 ? (uint64_t)0 - (uint64_t)stride : (uint64_t)stride) % span;
	for (h = span; g;) {
		uint64_t t = h % g;

		h = g;
		g = t;
	}
	period = span / h; /* h = gcd(stride mod span, span) */
	for (j = 0, a = addr; j < n && j < period; j++, a += (uint64_t)stride) {
		uint64_t q = (n - 1 - j) / period + 1;

		acc_shape(s, a, bytes, &n_words, &b0, &nb);
		/* one cycle alone: no bank holds more words than ports */
		if (words_in(s, n_words, 0) > (uint64_t)s->g.ports)
			return NPU_EINTERNAL;
		for (k = 0; k < nb; k++) {
			uint32_t b = add_mod(b0, k, banks);

			s->bank_st[(uint64_t)b * SRAM_N_ST + (uint64_t)kind] +=
				q * (n_words <= banks ? 1 : words_in(s, n_words, k));
			s->rr[b] = (int)rrv;
		}
	}
	if (write) {
		s->u.ctr[CTR_SRAM_WRITES] += n;
		s->u.ctr[CTR_SRAM_WRITE_BYTES] += n * bytes;
		r->st[SRAM_ST_WRITES] += n;
		r->st[SRAM_ST_WRITE_BYTES] += n * bytes;
	} else {
		s->u.ctr[CTR_SRAM_READS] += n;
		s->u.ctr[CTR_SRAM_READ_BYTES] += n * bytes;
		r->st[SRAM_ST_READS] += n;
		r->st[SRAM_ST_READ_BYTES] += n * bytes;
	}
	r->retire += n;
	r->head += n;
	r->tail += n;
	r->prev_last = t_last;
	r->have_prev = 1;
	r->succ_arb = CYCLE_MAX;
	if (!s->arb_ran || s->last_arb < t_last)
		s->last_arb = t_last;
	s->arb_ran = 1;
	s->arb_sched_any = 1;
	s->arb_sched_last = s->last_arb;
	return 0;
}

/*
 * A chain: requestor req alone in the memory with accesses of w > 1
 * cycles each queued back to back (the matrix engine's result rows when
 * they are wider than the banks): a free head, at least one successor,
 * every queued access taking w cycles and issued by the cycle after its
 * predecessor's last grant, so that each starts right then.  Returns w,
 * or 0 if that is not the state.  Latency 1 only: the head's completion
 * and its successor's start are then one cycle, which the caller's
 * period assumes.
 */
static uint32_t chain_w(const struct sram *s, int req)
{
	const struct sram_req *r = &s->reqs[req];
	uint64_t i;
	cycle_t pl;
	uint32_t w;
	int q;

	if (s->g.latency != 1 || r->hs != HS_FREE || r->retire != r->head ||
	    r->tail - r->head < 2)
		return 0;
	for (q = 0; q < s->n_reqs; q++)
		if (q != req && s->reqs[q].retire != s->reqs[q].tail)
			return 0; /* someone else has an access in flight */
	w = sram_alone_cycles(s, slot((struct sram_req *)r, r->head)->addr,
			      slot((struct sram_req *)r, r->head)->bytes);
	/* the events in flight are the head's completion and its
	 * successor's arbitration, both at last_grant + 1 */
	if (w < 2 || r->free_s + head_cycles_left(s, r) - 1 != r->last_grant ||
	    r->last_grant + 1 < r->free_s + w - 1 ||
	    slot((struct sram_req *)r, r->head)->sched_done != r->last_grant + 1 ||
	    r->succ_arb != r->last_grant + 1 || !s->arb_sched_any ||
	    s->arb_sched_last != r->succ_arb)
		return 0;
	for (i = r->head + 1, pl = r->last_grant; i < r->tail; i++, pl += w) {
		const struct sram_acc *a = slot((struct sram_req *)r, i);

		if (a->when > pl + 1 ||
		    sram_alone_cycles(s, a->addr, a->bytes) != w)
			return 0;
	}
	return w;
}

/*
 * The chain of requestor req (chain_w) moved on by k accesses, as the
 * per-cycle model moves it by the time its k-th access after the head
 * runs free: the k oldest are granted and completed without their
 * callbacks (counters, round-robin pointers, the requestor's position and
 * last grant), add[0..k) join the queue in order (access i issued for
 * add[i].when: each must chain, by the last grant of the one before it +
 * 1), and the then head runs free with its completion and its
 * successor's arbitration scheduled.  The events in flight for the old
 * head are dropped: its completion becomes stale (its index retired) and
 * pending arbitrations carry arb_gen, bumped here.  k = 0 only checks:
 * 0 with *done the head's completion cycle if the state is a chain,
 * MEM_RETRY if not.
 */
int sram_ff_chain(sram *s, int req, uint64_t k, const struct mem_req *add,
		  cycle_t *done)
{
	struct sram_req *r;
	uint64_t i, n_in, h;
	uint32_t w, banks = (uint32_t)s->g.banks, rrv, j;
	cycle_t pl, start;
	int rc;

	if (req < 0 || req >= s->n_reqs)
		return NPU_EINTERNAL;
	r = &s->reqs[req];
	if (!(w = chain_w(s, req)))
		return MEM_RETRY;
	*done = r->last_grant + 1;
	if (!k)
		return 0;
	n_in = r->tail - r->head; /* head + queued */
	for (i = 0, pl = r->last_grant + (n_in - 1) * w; i < k; i++, pl += w)
		if (add[i].when > pl + 1 || !add[i].write != !slot(r, r->head)->write ||
		    sram_alone_cycles(s, add[i].addr, add[i].bytes) != w ||
		    sram_check_range(s, add[i].addr, add[i].bytes))
			return NPU_EINTERNAL; /* the caller's promise broken */
	/* the k oldest: granted, each in the w cycles after the one before */
	rrv = add_mod((uint32_t)req, 1, (uint32_t)s->n_reqs);
	for (i = 0; i < k; i++) {
		const struct mem_req *a = i < n_in ? NULL : &add[i - n_in];
		const struct sram_acc *x = i < n_in ? slot(r, r->head + i) : NULL;
		struct sram_shape sh;

		if (x)
			sh = x->sh;
		else
			shape_of(s, a->addr, a->bytes, &sh);
		acc_count(s, r, &sh, x ? x->bytes : a->bytes,
			  x ? x->write : a->write);
		for (j = 0; j < sh.nb; j++)
			s->rr[add_mod(sh.b0, j, banks)] = (int)rrv;
	}
	/* the queue from the new head on: kept entries, then the added ones
	 * still in flight (the others were granted above) */
	h = r->head + k;
	start = r->last_grant + 1 + (k - 1) * w; /* the new head's first grant */
	for (i = k > n_in ? k - n_in : 0; i < k; i++) {
		struct sram_acc *a = slot(r, r->tail + i);

		a->addr = add[i].addr;
		a->bytes = add[i].bytes;
		a->write = add[i].write != 0;
		shape_of(s, add[i].addr, add[i].bytes, &a->sh);
		a->when = add[i].when;
		a->done_at = CYCLE_MAX;
		a->sched_done = CYCLE_MAX;
		a->done = add[i].done;
		a->ctx = add[i].ctx;
		a->tag = add[i].tag;
	}
	r->tail += k;
	r->retire = r->head = h;
	r->prev_last = start - 1;
	r->have_prev = 1;
	head_activate(r);
	s->arb_ran = 1;
	s->last_arb = start;
	s->arb_gen++; /* the old head's successor pass is replaced below */
	s->arb_sched_any = 0;
	r->succ_arb = CYCLE_MAX;
	slot(r, h)->sched_done = CYCLE_MAX;
	if ((rc = head_set_free(s, req, start)))
		return rc;
	return 0;
}

static int sram_t_ff_stream(void *t, int id, uint64_t addr, int64_t stride,
			    uint32_t bytes, uint64_t n, int write, cycle_t t0,
			    cycle_t every)
{
	return sram_ff_stream(t, id, addr, stride, bytes, n, write, t0, every);
}

static const struct unit *sram_t_unit(const void *t)
{
	return &((const struct sram *)t)->u;
}

static int sram_t_ff_chain(void *t, int id, uint64_t k,
			   const struct mem_req *add, cycle_t *done)
{
	return sram_ff_chain(t, id, k, add, done);
}

/* One cycle's accesses of a fast-forward: all alone in their banks? */
static int sram_t_ff_cycle(void *t, const int *ids, const struct mem_req *r,
			   int n, int apply)
{
	struct sram *s = t;
	int i, k, rc;

	for (i = 0; i < n; i++) {
		uint64_t nw_i;
		uint32_t b0_i, nb_i;

		if (sram_alone_cycles(s, r[i].addr, r[i].bytes) != 1)
			return MEM_RETRY;
		acc_shape(s, r[i].addr, r[i].bytes, &nw_i, &b0_i, &nb_i);
		for (k = 0; k < i; k++) {
			uint64_t nw_k;
			uint32_t b0_k, nb_k;

			acc_shape(s, r[k].addr, r[k].bytes, &nw_k, &b0_k, &nb_k);
			/* two runs of banks on the ring overlap iff one's
			 * start lies in the other */
			if (add_mod(b0_k, (uint32_t)s->g.banks - b0_i,
				    (uint32_t)s->g.banks) < nb_i ||
			    add_mod(b0_i, (uint32_t)s->g.banks - b0_k,
				    (uint32_t)s->g.banks) < nb_k)
				return MEM_RETRY;
		}
	}
	for (i = 0; apply && i < n; i++)
		if ((rc = sram_ff_access(s, ids[i], r[i].addr, r[i].bytes,
					 r[i].write, r[i].when)))
			return rc;
	return 0;
}

/* The protocol's fast-forward mode (port.h): the uncontended accesses of
 * the matrix engine's streams and chains, accounted without events. */
static const struct mem_ff_ops sram_ff_ops = {
	.quiet = sram_t_quiet,
	.cycle = sram_t_ff_cycle,
	.stream = sram_t_ff_stream,
	.chain = sram_t_ff_chain,
	.unit = sram_t_unit,
};

static const struct mem_target_ops sram_target_ops = {
	.attach = sram_t_attach,
	.recv = sram_t_recv,
	.want_retry = NULL,
	.info = sram_t_info,
	.check = sram_t_check,
	.alone_cycles = sram_t_alone,
	.conflicts = sram_t_conflicts,
	.ff = &sram_ff_ops,
};

struct mem_target sram_target(sram *s)
{
	struct mem_target t = { &sram_target_ops, s };

	return t;
}
