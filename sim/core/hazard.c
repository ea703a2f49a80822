/*
 * hazard.c - vector-clock hazard checker (see hazard.h).
 *
 * Threads: tid = core * n_units + unit (unit 0 is the control unit).
 * Each thread has a vector clock vc[tid][*]; each core has 32 semaphore
 * clocks.  A tile command starts with the clock of its unit (which already
 * holds the dispatch snapshot, earlier waits and earlier commands), is
 * checked against the shadow memory, records its own accesses, and then
 * ticks its unit's own component so that later commands are distinct.
 *
 * Shadow memory: per memory (DRAM, and each core's scratchpad and
 * accumulator), lazily allocated pages of 4-byte granules.  A granule holds
 * the access record of its last write and of its last two reads by
 * different threads.  Granularity and the two-reader limit are the
 * approximations (docs/hazards.md): two accesses within one 4-byte granule
 * count as overlapping, and a third concurrent reader can hide a
 * write-after-read against the oldest one.
 *
 * Operand ranges come from the command (tile.h): matrix A/B/C tiles by
 * rows and strides, vector tiles as the vector unit lays them out
 * (vec_operands, from the op's row of isa/names.def VKIND), DMA
 * descriptors as their runs of contiguous bytes.  Gather sources and
 * scatter destinations depend on index data and are not tracked.
 *
 * Invariants:
 *  - A record r happens before thread t iff r is t's own (queue order) or
 *    r->clock <= vc[t][r->tid] (hz_before).  Thread clocks start at 1 in
 *    their own component, so clock 0 in a view means "saw nothing".
 *  - A thread's own component ticks after every event that others may
 *    later order against (a command's start, a sig, a dispatch, a fence,
 *    a barrier, an rsig send), so two commands of one thread never share
 *    a (tid, clock) pair: the pair names the command in reports.
 *  - fifo[tid] holds one dispatch snapshot per entry queued on that unit
 *    and not yet taken effect, in queue order (hz_join_dispatch).
 *  - Memory indices (hz_mem): 0 = DRAM, 1 + 2c = core c's scratchpad,
 *    2 + 2c = core c's accumulator.
 *  - After an allocation failure (oom) the checker stops recording and
 *    reporting; the simulation itself is unaffected.
 *
 * Cost: O(T) per synchronisation event (T = threads), O(granules touched)
 * per command; nothing per cycle.  The checker only observes: it never
 * changes timing or values, so a run with and without it is identical.
 */
#include "hazard.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../../isa/isa.h"
#include "../../util/dtype.h"
#include "vector.h"

#define HZ_GRAN 4          /* bytes per shadow granule: exact for tiles
			      that are 4-byte aligned (as accumulator
			      rows of int32/fp32 are); a byte-exact
			      shadow would cost 4x the memory */
#define HZ_PAGE 4096       /* granules per shadow page: 16 KiB of memory,
			      48 KiB of shadow (12-byte struct hz_gran) */
#define HZ_NONE 0u         /* record index 0 = no access */

/* One access of one command (many granules point at it). */
struct hz_rec {
	uint32_t tid;      /* thread that accessed */
	uint32_t clock;    /* its own clock component at the access */
	uint64_t pc;       /* instruction */
	cycle_t cycle;     /* cycle the command started */
	int op;            /* enum isa_op */
	int write;         /* 1 write, 0 read */
	int mem;           /* memory index (hz_mem) */
	uint64_t lo, hi;   /* byte range of this segment, [lo, hi) */
};

/* Shadow state of one granule: record indices. */
struct hz_gran {
	uint32_t w;        /* last write */
	uint32_t r[2];     /* last reads by two different threads */
};

/* Shadow of one memory: page table of lazily allocated pages, so an idle
 * DRAM of gigabytes costs nothing until a command touches it. */
struct hz_shadow {
	struct hz_gran **pages; /* page index -> granules, or NULL */
	size_t n_pages;         /* entries in pages */
};

/* One conflict of the current command with an earlier command. */
struct hz_pend {
	uint32_t prev;     /* the earlier command's first conflicting record */
	uint32_t cur;      /* the current command's first conflicting record */
	uint64_t lo, hi;   /* union of the conflicting byte ranges */
};

struct hz_fifo {           /* dispatch snapshots waiting for their start */
	uint32_t *vc;      /* n slots of T clocks */
	int head, n, cap;  /* ring: oldest slot, slots used, slots allocated */
};

/* An rsig on its way: the sender's clock, joined into the semaphore only
 * when the signal is delivered. */
struct hz_rsig {
	int core, sem;     /* destination semaphore */
	cycle_t when;      /* delivery cycle */
	uint64_t seq;      /* send order (ties in 'when' deliver in it) */
	uint32_t *vc;      /* T clocks of the sender at the send */
};

struct hz {
	int n_cores, n_units, T;   /* cores, units per core, threads */
	uint32_t *vc;              /* T x T thread clocks */
	uint32_t *sem;             /* n_cores x 32 x T semaphore clocks */
	struct hz_fifo *fifo;      /* per thread: pending dispatch snapshots */
	struct hz_rec *recs;       /* access records (index 0 unused) */
	size_t n_recs, cap_recs;   /* records used (incl. 0), allocated */
	struct hz_shadow *mem;     /* 1 + 2 * n_cores memories */
	uint64_t *seen;            /* reported (rec a, rec b) pairs, hashed */
	size_t n_seen, cap_seen;   /* keys stored, slots (load <= 1/2) */
	struct hz_pend *pend;      /* conflicts of the command being checked */
	size_t n_pend, cap_pend;   /* conflicts gathered, allocated */
	struct hz_rsig *rsig;      /* remote signals in flight */
	size_t n_rsig, cap_rsig;   /* in flight, allocated */
	uint64_t rsig_seq;         /* sends so far */
	struct diag *d;            /* where reports go */
	const struct prog_image **prog; /* per core: source lines (may be NULL) */
	hz_report_fn report;       /* also told of every hazard (trace) */
	void *report_ctx;          /* its context */
	int n_reports, max_reports; /* hazards found; how many are printed */
	int oom;                   /* stop checking after running out */
};

/* Thread tid's vector clock: row tid of the T x T matrix. */
static uint32_t *vc_of(struct hz *h, int tid) { return &h->vc[(size_t)tid * h->T]; }

/* dst = pointwise max(dst, src): dst now knows everything src knew. */
static void vc_join(uint32_t *dst, const uint32_t *src, int T)
{
	int i;

	for (i = 0; i < T; i++)
		if (src[i] > dst[i])
			dst[i] = src[i];
}

struct hz *hz_new(int n_cores, int n_units, struct diag *d, int max_reports)
{
	struct hz *h = calloc(1, sizeof(*h));
	int i;

	if (!h)
		return NULL;
	h->n_cores = n_cores;
	h->n_units = n_units;
	h->T = n_cores * n_units;
	h->d = d;
	h->max_reports = max_reports;
	h->vc = calloc((size_t)h->T * (size_t)h->T, sizeof(uint32_t));
	h->sem = calloc((size_t)n_cores * 32 * (size_t)h->T, sizeof(uint32_t));
	h->fifo = calloc((size_t)h->T, sizeof(*h->fifo));
	h->mem = calloc(1 + 2 * (size_t)n_cores, sizeof(*h->mem));
	h->recs = calloc(1024, sizeof(*h->recs));
	h->prog = calloc((size_t)n_cores, sizeof(*h->prog));
	h->cap_recs = 1024;
	h->n_recs = 1; /* index 0 means "none" */
	if (!h->vc || !h->sem || !h->fifo || !h->mem || !h->recs || !h->prog) {
		hz_free(h);
		return NULL;
	}
	/* Every thread starts at clock 1 in its own component. */
	for (i = 0; i < h->T; i++)
		vc_of(h, i)[i] = 1;
	return h;
}

void hz_free(struct hz *h)
{
	size_t i, j;

	if (!h)
		return;
	if (h->mem)
		for (i = 0; i < 1 + 2 * (size_t)h->n_cores; i++) {
			for (j = 0; j < h->mem[i].n_pages; j++)
				free(h->mem[i].pages[j]);
			free(h->mem[i].pages);
		}
	if (h->fifo)
		for (i = 0; i < (size_t)h->T; i++)
			free(h->fifo[i].vc);
	for (i = 0; i < h->n_rsig; i++)
		free(h->rsig[i].vc);
	free(h->rsig);
	free(h->mem);
	free(h->fifo);
	free(h->vc);
	free(h->sem);
	free(h->recs);
	free(h->prog);
	free(h->seen);
	free(h->pend);
	free(h);
}

int hz_count(const struct hz *h) { return h->n_reports; }

void hz_set_program(struct hz *h, int core, const struct prog_image *p)
{
	if (core >= 0 && core < h->n_cores)
		h->prog[core] = p;
}

void hz_set_report(struct hz *h, hz_report_fn fn, void *ctx)
{
	h->report = fn;
	h->report_ctx = ctx;
}

/* ---- happens-before edges ------------------------------------------------*/

/*
 * Dispatch edge: the entry just queued on 'unit' cannot take effect before
 * the control unit queued it, so it will join the control unit's clock as
 * of now.  The snapshot is pushed on the unit's FIFO and joined when the
 * entry takes effect (hz_on_start / hz_on_signal / hz_on_wait), not now:
 * joining at once would hand the control unit's current history to the
 * unit's earlier entries, which start later but were queued before it.
 * Cost O(T) per entry.
 */
void hz_on_dispatch(struct hz *h, int core, int unit,
		    const struct tile_cmd *cmd, cycle_t now)
{
	int tid = core * h->n_units + unit;
	struct hz_fifo *f = &h->fifo[tid];
	int ctl = core * h->n_units;

	(void)cmd;
	(void)now;
	if (h->oom)
		return;
	/* Grow the ring, unrolling it so the oldest slot is slot 0.  The
	 * FIFO holds at most queue_depth entries per unit in practice. */
	if (f->n == f->cap) {
		int cap = f->cap ? f->cap * 2 : 8, i;
		uint32_t *v = malloc((size_t)cap * (size_t)h->T * sizeof(*v));

		if (!v) {
			h->oom = 1;
			return;
		}
		for (i = 0; i < f->n; i++)
			memcpy(&v[(size_t)i * h->T],
			       &f->vc[(size_t)((f->head + i) % f->cap) * h->T],
			       (size_t)h->T * sizeof(*v));
		free(f->vc);
		f->vc = v;
		f->head = 0;
		f->cap = cap;
	}
	memcpy(&f->vc[(size_t)((f->head + f->n) % f->cap) * h->T], vc_of(h, ctl),
	       (size_t)h->T * sizeof(uint32_t));
	f->n++;
	/* The control unit moves on: its later work is not before this. */
	vc_of(h, ctl)[ctl]++;
}

/*
 * A queue entry of thread tid takes effect: join the control unit's clock
 * as it was when the entry was queued (pushed by hz_on_dispatch).  Every
 * entry of a unit's queue -- tile command, sig or wait -- is pushed when
 * queued and popped here when it takes effect, in queue order, so the
 * FIFO stays aligned with the queue.  The control unit (unit 0) has no
 * queue and never pushes.
 */
static void hz_join_dispatch(struct hz *h, int tid)
{
	struct hz_fifo *f = &h->fifo[tid];

	if (f->n == 0)
		return;
	vc_join(vc_of(h, tid), &f->vc[(size_t)f->head * h->T], h->T);
	f->head = (f->head + 1) % f->cap;
	f->n--;
}

void hz_on_signal(struct hz *h, int core, int unit, int sem, cycle_t now)
{
	int tid = core * h->n_units + unit;
	uint32_t *s = &h->sem[((size_t)core * 32 + (size_t)sem) * h->T];

	(void)now;
	if (h->oom)
		return;
	/*
	 * A sig queued on a unit fires after it was queued: it carries what
	 * the control unit knew then (a fence it passed before queueing the
	 * sig, say), not only what the unit itself did.
	 */
	hz_join_dispatch(h, tid);
	/* The semaphore accumulates the history of every sig so far (the
	 * "whole history" approximation of docs/hazards.md), then the
	 * signaller ticks so its later work is not covered by this sig. */
	vc_join(s, vc_of(h, tid), h->T);
	vc_of(h, tid)[tid]++;
}

/* A wait that passed: the waiter learns everything any sig on the semaphore
 * carried.  No tick is needed: nobody orders against a wait itself. */
void hz_on_wait(struct hz *h, int core, int unit, int sem, cycle_t now)
{
	int tid = core * h->n_units + unit;

	(void)now;
	if (h->oom)
		return;
	hz_join_dispatch(h, tid);
	vc_join(vc_of(h, tid), &h->sem[((size_t)core * 32 + (size_t)sem) * h->T],
		h->T);
}

/*
 * A fence completed: every masked unit is drained, so everything it did is
 * before the control unit's later work.  Mask bits as in control.c (bit 23
 * = every unit id >= 23).  The unit ticks so that its later commands are
 * not mistaken for ones the fence covered.
 */
void hz_on_fence(struct hz *h, int core, uint32_t mask, cycle_t now)
{
	int u, ctl = core * h->n_units;

	(void)now;
	for (u = 1; u < h->n_units; u++) {
		if (isa_fence_covers(mask, (unsigned)u)) {
			int tid = ctl + u;

			vc_join(vc_of(h, ctl), vc_of(h, tid), h->T);
			vc_of(h, tid)[tid]++;
		}
	}
}

/* All cores' control units met: each learns the join of all of them.  Two
 * passes, so every core gets the same join whatever the core order. */
void hz_on_barrier(struct hz *h, cycle_t now)
{
	uint32_t *all = calloc((size_t)h->T, sizeof(uint32_t));
	int c;

	(void)now;
	if (!all) {
		h->oom = 1;
		return;
	}
	for (c = 0; c < h->n_cores; c++)
		vc_join(all, vc_of(h, c * h->n_units), h->T);
	for (c = 0; c < h->n_cores; c++) {
		int ctl = c * h->n_units;

		vc_join(vc_of(h, ctl), all, h->T);
		vc_of(h, ctl)[ctl]++;
	}
	free(all);
}

/*
 * The sender's history travels with the signal and reaches the semaphore
 * when the signal does.  Joining it at the send would let a wait that
 * passes on some other signal in the meantime inherit it, and hide a race.
 */
void hz_on_remote_send(struct hz *h, int from_core, int to_core, int sem,
		       cycle_t when)
{
	int ctl = from_core * h->n_units;
	struct hz_rsig *r;

	if (h->oom)
		return;
	if (h->n_rsig == h->cap_rsig) {
		size_t cap = h->cap_rsig ? 2 * h->cap_rsig : 8;
		struct hz_rsig *v = realloc(h->rsig, cap * sizeof(*v));

		if (!v) {
			h->oom = 1;
			return;
		}
		h->rsig = v;
		h->cap_rsig = cap;
	}
	r = &h->rsig[h->n_rsig];
	r->vc = malloc((size_t)h->T * sizeof(uint32_t));
	if (!r->vc) {
		h->oom = 1;
		return;
	}
	memcpy(r->vc, vc_of(h, ctl), (size_t)h->T * sizeof(uint32_t));
	r->core = to_core;
	r->sem = sem;
	r->when = when;
	r->seq = h->rsig_seq++;
	h->n_rsig++;
	vc_of(h, ctl)[ctl]++;
}

/*
 * Delivery: of the signals in flight to this semaphore, the engine
 * delivers the one due first, and among those due in the same cycle the
 * one sent first (events of equal time and priority pop in insertion
 * order), so that is the one arriving now.
 */
void hz_on_remote_signal(struct hz *h, int core, int sem, cycle_t now)
{
	size_t i, best = h->n_rsig;

	(void)now;
	for (i = 0; i < h->n_rsig; i++) {
		const struct hz_rsig *r = &h->rsig[i];

		if (r->core != core || r->sem != sem)
			continue;
		if (best == h->n_rsig || r->when < h->rsig[best].when ||
		    (r->when == h->rsig[best].when && r->seq < h->rsig[best].seq))
			best = i;
	}
	/* O(signals in flight): rsig traffic is a handful per barrier. */
	if (best == h->n_rsig)
		return; /* its send was lost to an allocation failure */
	vc_join(&h->sem[((size_t)core * 32 + (size_t)sem) * h->T],
		h->rsig[best].vc, h->T);
	free(h->rsig[best].vc);
	/* Unordered removal: the search above never relies on array order. */
	h->rsig[best] = h->rsig[--h->n_rsig];
}

/* ---- shadow memory --------------------------------------------------------*/

/*
 * Shadow of granule g of memory mem, allocating its page on first touch.
 * The page table grows to at least double, so a sweep upward through an
 * address space costs O(log) reallocs.  Its size follows the highest
 * address touched: 8 bytes per 16 KiB of address space.  NULL (and oom)
 * on allocation failure.
 */
static struct hz_gran *hz_gran_at(struct hz *h, int mem, uint64_t g)
{
	struct hz_shadow *s = &h->mem[mem];
	size_t p = (size_t)(g / HZ_PAGE);

	if (p >= s->n_pages) {
		size_t n = p + 1 > 2 * s->n_pages ? p + 1 : 2 * s->n_pages;
		struct hz_gran **v = realloc(s->pages, n * sizeof(*v));

		if (!v) {
			h->oom = 1;
			return NULL;
		}
		memset(v + s->n_pages, 0, (n - s->n_pages) * sizeof(*v));
		s->pages = v;
		s->n_pages = n;
	}
	if (!s->pages[p]) {
		s->pages[p] = calloc(HZ_PAGE, sizeof(struct hz_gran));
		if (!s->pages[p]) {
			h->oom = 1;
			return NULL;
		}
	}
	return &s->pages[p][g % HZ_PAGE];
}

/* Append a record; its index is what granules store.  Records are never
 * freed during a run (granules may point at any of them): one per
 * contiguous segment of each command, 32-bit indices. */
static uint32_t hz_add_rec(struct hz *h, const struct hz_rec *r)
{
	if (h->n_recs == h->cap_recs) {
		size_t cap = h->cap_recs * 2;
		struct hz_rec *v = realloc(h->recs, cap * sizeof(*v));

		if (!v) {
			h->oom = 1;
			return HZ_NONE;
		}
		h->recs = v;
		h->cap_recs = cap;
	}
	h->recs[h->n_recs] = *r;
	return (uint32_t)h->n_recs++;
}

/*
 * Report each (earlier, later) record pair once.  Open-addressing hash set
 * of 64-bit keys (a << 32 | b); key 0 marks an empty slot, which no real
 * key is because record 0 is never used.  Fibonacci hashing (multiply by
 * 2^64 / golden ratio), linear probing, grown to keep the load <= 1/2.
 * Returns 1 also when growing fails: the pair is then dropped, neither
 * printed nor counted.
 */
static int hz_seen(struct hz *h, uint32_t a, uint32_t b)
{
	uint64_t key = (uint64_t)a << 32 | b, x;
	size_t i;

	if (h->n_seen * 2 >= h->cap_seen) {
		size_t cap = h->cap_seen ? h->cap_seen * 2 : 256, j;
		uint64_t *v = calloc(cap, sizeof(*v));

		if (!v)
			return 1;
		for (j = 0; j < h->cap_seen; j++)
			if (h->seen[j]) {
				x = h->seen[j] * 0x9e3779b97f4a7c15ull;
				for (i = (size_t)(x >> 20) % cap; v[i]; i = (i + 1) % cap)
					;
				v[i] = h->seen[j];
			}
		free(h->seen);
		h->seen = v;
		h->cap_seen = cap;
	}
	/* Probe until the key or an empty slot; the load bound keeps one
	 * free slot at least, so the loop ends. */
	x = key * 0x9e3779b97f4a7c15ull;
	for (i = (size_t)(x >> 20) % h->cap_seen; h->seen[i]; i = (i + 1) % h->cap_seen)
		if (h->seen[i] == key)
			return 1;
	h->seen[i] = key;
	h->n_seen++;
	return 0;
}

/* One side of a report: "core0.dma0 dma writes (pc 0x30 gemm.s:41,
 * started cycle 12)", the unit's leaf name from its sync unit id and the
 * source line from the core's program when its symbolizer knows it. */
static void hz_describe(const struct hz *h, const struct hz_rec *r, char *buf,
			size_t n)
{
	char un[16], src[96] = "";
	int core = (int)r->tid / h->n_units, unit = (int)r->tid % h->n_units;
	const char *file;
	int line;

	if (h->prog[core] && prog_src_line(h->prog[core], r->pc, &file, &line) == 0)
		snprintf(src, sizeof(src), " %s:%d", file, line);
	snprintf(buf, n, "core%d.%s %s %s (pc 0x%" PRIx64 "%s, started cycle %" PRIu64 ")",
		 core, isa_unit_id_name((unsigned)unit, un, sizeof(un)),
		 isa_op_info[r->op].name, r->write ? "writes" : "reads",
		 r->pc, src, (uint64_t)r->cycle);
}

/*
 * Earlier record 'pi' conflicts with the current access 'ci' over [lo, hi).
 * Conflicts are gathered per pair of commands (a command is a thread and a
 * clock value) and reported once, with their merged range, when the
 * current command has been checked (hz_flush).
 */
static void hz_conflict(struct hz *h, uint32_t pi, uint32_t ci,
			uint64_t lo, uint64_t hi)
{
	const struct hz_rec *p = &h->recs[pi];
	size_t i;

	/*
	 * Report the bytes both accesses touch, not the whole current
	 * segment.  Accesses that only share a granule (the approximation
	 * of docs/hazards.md) have no common byte: report the shared
	 * granule(s) then.
	 */
	if (p->lo > lo)
		lo = p->lo;
	if (p->hi < hi)
		hi = p->hi;
	if (lo >= hi) {
		uint64_t glo = lo < hi ? lo : hi, ghi = lo < hi ? hi : lo;

		lo = glo / HZ_GRAN * HZ_GRAN;
		hi = (ghi + HZ_GRAN - 1) / HZ_GRAN * HZ_GRAN;
	}

	/* Same earlier command, same memory: widen its pending range.  A
	 * command has few conflicts, so a linear scan is enough. */
	for (i = 0; i < h->n_pend; i++) {
		const struct hz_rec *q = &h->recs[h->pend[i].prev];

		if (q->tid == p->tid && q->clock == p->clock && q->mem == p->mem) {
			if (lo < h->pend[i].lo)
				h->pend[i].lo = lo;
			if (hi > h->pend[i].hi)
				h->pend[i].hi = hi;
			return;
		}
	}
	if (h->n_pend == h->cap_pend) {
		size_t cap = h->cap_pend ? 2 * h->cap_pend : 8;
		struct hz_pend *v = realloc(h->pend, cap * sizeof(*v));

		if (!v) {
			h->oom = 1;
			return;
		}
		h->pend = v;
		h->cap_pend = cap;
	}
	h->pend[h->n_pend].prev = pi;
	h->pend[h->n_pend].cur = ci;
	h->pend[h->n_pend].lo = lo;
	h->pend[h->n_pend].hi = hi;
	h->n_pend++;
}

/*
 * Report the current command's conflicts, one per earlier command.  The
 * kind is named from the earlier access to the current one: a write then
 * any access is RAW or WAW; a read then a write is WAR (two reads never
 * conflict, hz_access does not look for them).  At most max_reports (20,
 * chip.c) are printed, with a note at the limit; all are counted, and the
 * count sets the exit status.
 */
static void hz_flush(struct hz *h)
{
	size_t i;

	for (i = 0; i < h->n_pend; i++) {
		const struct hz_pend *e = &h->pend[i];
		const struct hz_rec *p = &h->recs[e->prev], *c = &h->recs[e->cur];
		const char *kind = p->write && c->write ? "write-after-write" :
				   p->write ? "read-after-write" : "write-after-read";
		char a[256], b[256], where[64], msg[768];
		/* Invert hz_mem: 1 + 2c -> (c, scratchpad), 2 + 2c -> (c, acc). */
		int mcore = p->mem == 0 ? -1 : (p->mem - 1) / 2;
		int mkind = p->mem == 0 ? MEM_DRAM
					: (p->mem - 1) % 2 ? MEM_ACC : MEM_SPM;

		if (hz_seen(h, e->prev, e->cur))
			continue;
		h->n_reports++;
		if ((h->n_reports > h->max_reports || !h->d) && !h->report)
			continue;
		hz_describe(h, p, a, sizeof(a));
		hz_describe(h, c, b, sizeof(b));
		if (mcore < 0)
			snprintf(where, sizeof(where), "dram");
		else
			snprintf(where, sizeof(where), "core%d.%s", mcore,
				 isa_mem_info[mkind].noun);
		snprintf(msg, sizeof(msg),
			 "hazard: %s on %s [0x%" PRIx64 ", 0x%" PRIx64 "): %s, then %s, with no semaphore, fence or barrier ordering them",
			 kind, where, e->lo, e->hi, a, b);
		/* Every hazard goes to the hook (the trace marks it on the
		 * later command's unit); only max_reports are printed. */
		if (h->report)
			h->report(h->report_ctx, (int)c->tid / h->n_units,
				  (int)c->tid % h->n_units, c->cycle, msg);
		if (h->n_reports > h->max_reports || !h->d)
			continue;
		(void)diag_report(h->d, DIAG_WARNING, diag_nowhere(), 0, "%s",
				  msg);
		if (h->n_reports == h->max_reports)
			diag_note(h->d, diag_nowhere(),
				  "further hazards are counted but not printed");
	}
	h->n_pend = 0;
}

/* Does record r happen before thread tid's current clock?  A thread's own
 * earlier accesses always do: that is the queue-order edge (a unit's
 * commands are ordered as written even when they overlap in time). */
static int hz_before(struct hz *h, const struct hz_rec *r, int tid)
{
	return r->tid == (uint32_t)tid || r->clock <= vc_of(h, tid)[r->tid];
}

/*
 * Check and record one contiguous access [lo, hi) of memory mem.  One
 * record for the whole segment; each granule it covers is checked against
 * its last write (and, for a write, its two kept reads), then updated.
 * last_pi skips re-checking the same earlier record on the following
 * granules of a long segment it also covers (the common case: tile
 * against tile), so the cost is one compare per granule.
 */
static void hz_access(struct hz *h, int tid, int mem, uint64_t lo, uint64_t hi,
		      int write, const struct tile_cmd *cmd, cycle_t now)
{
	struct hz_rec r;
	uint32_t ri, last_pi = HZ_NONE;
	uint64_t g;

	if (hi <= lo || h->oom)
		return;
	r.tid = (uint32_t)tid;
	r.clock = vc_of(h, tid)[tid];
	r.pc = cmd->pc;
	r.cycle = now;
	r.op = cmd->op;
	r.write = write;
	r.mem = mem;
	r.lo = lo;
	r.hi = hi;
	ri = hz_add_rec(h, &r);
	if (ri == HZ_NONE)
		return;
	for (g = lo / HZ_GRAN; g <= (hi - 1) / HZ_GRAN; g++) {
		struct hz_gran *s = hz_gran_at(h, mem, g);
		int k;

		if (!s)
			return;
		/* Every access conflicts with an unordered write. */
		if (s->w && s->w != last_pi && !hz_before(h, &h->recs[s->w], tid)) {
			hz_conflict(h, s->w, ri, lo, hi);
			last_pi = s->w;
		}
		if (write) {
			for (k = 0; k < 2; k++)
				if (s->r[k] && s->r[k] != last_pi &&
				    !hz_before(h, &h->recs[s->r[k]], tid)) {
					hz_conflict(h, s->r[k], ri, lo, hi);
					last_pi = s->r[k];
				}
			/* The write supersedes the reads: anything later
			 * that is ordered after it is after them too, and
			 * any race with them was just reported. */
			s->w = ri;
			s->r[0] = s->r[1] = HZ_NONE;
		} else {
			/* Keep the last read of two different threads: the
			 * thread's own older read is replaced, else the older
			 * of the two kept reads is evicted (hence the "third
			 * reader" approximation of docs/hazards.md). */
			if (s->r[0] && h->recs[s->r[0]].tid == (uint32_t)tid)
				s->r[0] = ri;
			else if (s->r[1] && h->recs[s->r[1]].tid == (uint32_t)tid)
				s->r[1] = ri;
			else {
				s->r[1] = s->r[0];
				s->r[0] = ri;
			}
		}
	}
}

/* Memory index of a space as seen from 'core'; rcore names the owner of a
 * remote scratchpad (MEM_RSPM).  -1: not tracked (bad remote core). */
static int hz_mem(const struct hz *h, int space, int core, int rcore)
{
	if (space == MEM_DRAM)
		return 0;
	if (space == MEM_RSPM)
		return rcore >= 0 && rcore < h->n_cores ? 1 + 2 * rcore : -1;
	return 1 + 2 * core + (space == MEM_ACC);
}

/* A rows x row_bytes tile at base with the given row stride.  Dense tiles
 * are one record (one report range) instead of one per row. */
static void hz_tile(struct hz *h, int tid, int mem, uint64_t base,
		    uint64_t rows, uint64_t row_bytes, uint64_t stride,
		    int write, const struct tile_cmd *cmd, cycle_t now)
{
	uint64_t r;

	if (mem < 0 || !rows || !row_bytes)
		return;
	if (stride == row_bytes) { /* dense: one segment */
		hz_access(h, tid, mem, base, base + rows * row_bytes, write, cmd, now);
		return;
	}
	for (r = 0; r < rows; r++)
		hz_access(h, tid, mem, base + r * stride,
			  base + r * stride + row_bytes, write, cmd, now);
}

/*
 * Stored operand layout per dataflow (matrix.h): each stored row is what
 * one edge of the array takes or gives in one cycle.
 *   WS  A: M rows of K   B: K rows of N   C: M rows of N
 *   OS  A: K rows of M   B: K rows of N   C: M rows of N
 *   IS  A: K rows of M   B: N rows of K   C: N rows of M
 */
struct hz_layout {
	uint64_t rows, elems; /* stored rows and elements per row */
};

/* Fill the three layouts from the table above (mset df: ISA_CONST_WS/OS/IS). */
static void hz_layouts(const struct mtx_cfg *g, struct hz_layout *a,
		       struct hz_layout *b, struct hz_layout *c)
{
	a->rows = g->dataflow == ISA_CONST_WS ? g->m : g->k;
	a->elems = g->dataflow == ISA_CONST_WS ? g->k : g->m;
	b->rows = g->dataflow == ISA_CONST_IS ? g->n : g->k;
	b->elems = g->dataflow == ISA_CONST_IS ? g->k : g->n;
	c->rows = g->dataflow == ISA_CONST_IS ? g->n : g->m;
	c->elems = g->dataflow == ISA_CONST_IS ? g->m : g->n;
}

/* A tile operand: rows of elems elements of type t at stride (0 = dense).
 * dtype_bytes rounds sub-byte rows (int4) up to whole bytes, the same row
 * size the units use. */
static void hz_operand(struct hz *h, int tid, int mem, uint64_t base,
		       const struct hz_layout *l, int t, uint32_t stride,
		       int write, const struct tile_cmd *tc, cycle_t now)
{
	uint64_t row = dtype_bytes((enum npu_dtype)t, l->elems);

	hz_tile(h, tid, mem, base, l->rows, row, stride ? stride : row, write,
		tc, now);
}

/* The byte ranges of one matrix instruction (docs/hazards.md table). */
static void hz_matrix(struct hz *h, int tid, int core, const struct tile_cmd *tc,
		      cycle_t now)
{
	const struct mtx_cmd *m = &tc->u.m;
	const struct mtx_cfg *g = &m->cfg;
	int spm = hz_mem(h, MEM_SPM, core, -1), acc = hz_mem(h, MEM_ACC, core, -1);
	struct hz_layout la, lb, lc;

	hz_layouts(g, &la, &lb, &lc);
	switch (m->kind) {
	case MTX_PRELOAD: /* WS: B is stationary; IS: A */
		if (g->dataflow == ISA_CONST_IS)
			hz_operand(h, tid, spm, m->a, &la, g->in_type, g->a_stride, 0, tc, now);
		else
			hz_operand(h, tid, spm, m->a, &lb, g->in_type, g->b_stride, 0, tc, now);
		break;
	case MTX_MUL:
	case MTX_MUL_ACC:
		/* The stationary operand was read by mpre; the others stream. */
		if (g->dataflow != ISA_CONST_IS)
			hz_operand(h, tid, spm, m->a, &la, g->in_type, g->a_stride, 0, tc, now);
		if (g->dataflow != ISA_CONST_WS)
			hz_operand(h, tid, spm, m->b, &lb, g->in_type, g->b_stride, 0, tc, now);
		/* mmacc reads C (the accumulator adds on write) and writes
		 * it; being the same thread, the two never conflict. */
		if (m->kind == MTX_MUL_ACC)
			hz_operand(h, tid, acc, m->c, &lc, g->acc_type, g->c_stride, 0, tc, now);
		hz_operand(h, tid, acc, m->c, &lc, g->acc_type, g->c_stride, 1, tc, now);
		break;
	case MTX_OUT: /* acc tile in, requantised tile out, same shape */
		hz_operand(h, tid, acc, m->c, &lc, g->acc_type, g->c_stride, 0, tc, now);
		hz_operand(h, tid, spm, m->d, &lc, g->out_type, g->out_stride, 1, tc, now);
		if (g->out_fuse) { /* the per-column table: N entries, one row */
			uint64_t eb = (g->out_fuse & MTX_FUSE_BIAS ? 4 : 0) +
				      (g->out_fuse & MTX_FUSE_CHAN ? 8 : 0);

			hz_tile(h, tid, spm, g->out_par, 1, g->n * eb, g->n * eb,
				0, tc, now);
		}
		break;
	}
}

/*
 * The byte ranges of one vector instruction: its operands as the vector
 * unit itself lays them out (vec_operands, from the op's VKIND row), s1,
 * s2, s3, then the destination.  Operands addressed by index data
 * (vgather's source, vscatter's destination) are not tracked; their
 * index tiles are (docs/hazards.md).
 */
static void hz_vector(struct hz *h, int tid, int core, const struct tile_cmd *tc,
		      cycle_t now)
{
	struct vec_opnd o[ISA_N_VSLOTS];
	int k;

	vec_operands(tc, o);
	for (k = 0; k < ISA_N_VSLOTS; k++)
		if (o[k].shape != ISA_VSH_NONE && o[k].shape != ISA_VSH_INDEXED)
			hz_tile(h, tid, hz_mem(h, o[k].mem, core, -1), o[k].base,
				o[k].rows, o[k].row_bytes, o[k].stride,
				k == ISA_VS_D, tc, now);
}

/*
 * One side of a DMA descriptor: its contiguous runs.  Only dimension 0 is
 * merged (a dense innermost dimension is one run per (i1, i2, i3));
 * otherwise every element is its own record, so a strided descriptor of
 * n elements costs n records.  Address arithmetic wraps like the engine's;
 * an empty shape (an extent of 0) records nothing.
 */
static void hz_dma_side(struct hz *h, int tid, int mem, uint64_t base,
			const struct dma_desc *dd, const int64_t *stride,
			int write, const struct tile_cmd *tc, cycle_t now)
{
	uint64_t i1, i2, i3, run, n0;
	int contiguous = stride[0] == (int64_t)dd->elem_bytes;

	if (mem < 0)
		return;
	n0 = contiguous ? 1 : dd->shape[0];
	run = contiguous ? (uint64_t)dd->elem_bytes * dd->shape[0] : dd->elem_bytes;
	for (i3 = 0; i3 < dd->shape[3]; i3++)
		for (i2 = 0; i2 < dd->shape[2]; i2++)
			for (i1 = 0; i1 < dd->shape[1]; i1++) {
				uint64_t a = base + (uint64_t)((int64_t)i3 * stride[3] +
							       (int64_t)i2 * stride[2] +
							       (int64_t)i1 * stride[1]);
				uint64_t i0;

				for (i0 = 0; i0 < n0; i0++) {
					uint64_t b = a + (uint64_t)((int64_t)i0 * stride[0]);

					hz_access(h, tid, mem, b, b + run, write, tc, now);
				}
			}
}

void hz_on_start(struct hz *h, int core, int unit, const struct tile_cmd *cmd,
		 cycle_t now)
{
	int tid = core * h->n_units + unit;

	/* Called before the unit accepts (and validates) the command, so a
	 * command that then faults has been walked too: an out-of-range
	 * address can make the shadow page table grow with that address
	 * until allocation fails and the checker turns itself off. */
	if (h->oom)
		return;
	hz_join_dispatch(h, tid); /* dispatch edge */
	if (unit == 1)
		hz_matrix(h, tid, core, cmd, now);
	else if (unit == 2)
		hz_vector(h, tid, core, cmd, now);
	else {
		const struct dma_desc *dd = &cmd->u.d;

		uint64_t mask = dd->dst_mem == MEM_RSPM ? dd->dst_mask : 0;

		/* an indirect copy reads its index list; its indexed side
		 * depends on index values and is not tracked (as vgather's
		 * source, docs/hazards.md) */
		if (dd->idx_mode) {
			int spm = hz_mem(h, MEM_SPM, core, -1);

			if (spm >= 0)
				hz_access(h, tid, spm, dd->idx,
					  dd->idx + 4 * (uint64_t)dd->shape[1], 0, cmd, now);
		}
		if (dd->idx_mode != DMA_IDX_GATHER)
			hz_dma_side(h, tid, hz_mem(h, dd->src_mem, core, dd->src_core),
				    dd->src, dd, dd->src_stride, 0, cmd, now);
		if (!mask && dd->idx_mode != DMA_IDX_SCATTER)
			hz_dma_side(h, tid, hz_mem(h, dd->dst_mem, core, dd->dst_core),
				    dd->dst, dd, dd->dst_stride, 1, cmd, now);
		/* a multicast writes every destination core's scratchpad */
		while (mask) {
			int k = __builtin_ctzll(mask);

			mask &= mask - 1;
			hz_dma_side(h, tid, hz_mem(h, MEM_RSPM, core, k), dd->dst,
				    dd, dd->dst_stride, 1, cmd, now);
		}
	}
	hz_flush(h);
	/* Tick: the next command of this unit is a new (tid, clock). */
	vc_of(h, tid)[tid]++;
}
