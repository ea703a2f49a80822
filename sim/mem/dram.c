/*
 * dram.c - DRAM channels: banks, rows, JEDEC-style timing, FR-FCFS or FCFS
 * scheduling, all-bank refresh; or an ideal latency + bandwidth pipe.
 *
 * Time.  Each channel schedules commands in DRAM cycles (tCK, int64
 * "dcycles"); requests arrive and complete in core cycles.  Conversions use
 * exact integers: core period cf and tCK tf in femtoseconds, reduced by
 * their gcd, so dcycle d lies at core time d*tf/cf.  A request made in core
 * cycle c arrives at dcycle ceil(c*cf/tf); data that ends at dcycle d is
 * seen at core cycle ceil(d*tf/cf) (never early).
 *
 * Events.  A channel unit runs its scheduler only when something can
 * happen: on an arrival, and at the core cycle of the earliest command that
 * can issue next (one pending "wake" event, cancelled lazily through a
 * generation word when an arrival makes an earlier one).  In a wake at core
 * cycle c it issues, in time order, every command whose dcycle maps to
 * <= c.  An idle channel has no event pending, not even for refresh:
 * refreshes due while the queue was empty are applied arithmetically when
 * the next request arrives (refresh_catch_up), which costs O(1) however long
 * the idle stretch was.
 *
 * Invariants.
 *  - Commands of a channel issue in non-decreasing dcycle order, at most one
 *    per dcycle (cmd_free).
 *  - A queued burst is schedulable if it is among the oldest queue_depth of
 *    its channel; older bursts always sit nearer the ring's head.
 *  - Each burst is classified once, at its column command: row hit (no
 *    ACT issued for it), miss (ACT only) or conflict (PRE then ACT).
 *  - Completion events carry the request index; a request's done() runs
 *    once, when its last burst completes.
 *  - A channel with queued bursts always has a wake pending (or is running
 *    its scheduler); one with only bursts in flight has their completion
 *    events; an idle channel has nothing (chan_blocked relies on this).
 *  - The model moves no data: dram_data() is the functional store, and
 *    the requestor copies bytes in its done() callback, at the simulated
 *    cycle the last beat arrives.
 *
 * Rules, presets and measured numbers: docs/dram.md.  Units: every int64_t
 * time below is in dcycles (tCK), every cycle_t time in core cycles.
 */
/* MAP_ANONYMOUS and MAP_NORESERVE are not in POSIX.1-2008 (dram_store). */
#define _DEFAULT_SOURCE
#include "dram.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../engine/unit.h"

/* Event kinds of a channel unit. */
enum {
	EV_WAKE = 1,   /* run the scheduler (EV_PRI_ARB) */
	EV_DONE = 2,   /* a burst's data finished (EV_PRI_COMPLETE); arg = req */
	EV_SPACE = 3,  /* call the retry hooks (EV_PRI_WAKE) */
};

/* Scheduler policies of dram.scheduler; docs/dram.md "Scheduler". */
enum { SCHED_FRFCFS = 0, SCHED_FCFS = 1 };

/* Address fields, named as in dram.mapping: channel, rank, bank, row,
 * column (in bursts, not bytes: the byte offset inside a burst is below
 * every field). */
enum { F_CH, F_RA, F_BA, F_RO, F_CO, F_N };

/*
 * dram.mapping, least significant field first (the name reads most
 * significant first).  Index = the key's value (ARCH_DRAM_MAPPING_*).
 */
static const int mapping_fields[ARCH_N_DRAM_MAPPING][F_N] = {
	[ARCH_DRAM_MAPPING_RO_BA_RA_CO_CH] = { F_CH, F_CO, F_RA, F_BA, F_RO },
	[ARCH_DRAM_MAPPING_RO_CO_BA_RA_CH] = { F_CH, F_RA, F_BA, F_CO, F_RO },
	[ARCH_DRAM_MAPPING_CH_RO_BA_RA_CO] = { F_CO, F_RA, F_BA, F_RO, F_CH },
};

/*
 * Gap between data bursts of different ranks on one bus (tRTRS): rank
 * switch of the strobes and on-die termination.  2 tCK is the usual
 * controller setting for DDR4 (JESD79-4 leaves it to the controller); not a
 * config key because every preset here has one rank.
 */
#define T_RTRS 2
/* Extra bus turnaround from read data to write data (JESD79-4 tRTW =
 * RL + BL/2 - WL + 2 tCK: the 2 is preamble and turnaround). */
#define T_RTW_GAP 2

/* "Never happened" time for last-ACT history: far below any constraint,
 * yet T_NEVER + tFAW cannot overflow (INT64_MIN / 4 leaves 3/4 of the
 * range), so act_floor needs no special case for a fresh rank. */
#define T_NEVER (INT64_MIN / 4)

/* Read-latency histogram: exact below HIST_LIN cycles, then 64 bins per
 * power of two (1.6 % resolution), up to 2^64. */
#define HIST_LIN 1024   /* exact bins: 0 .. 1023 cycles (2^10) */
#define HIST_SUB 64     /* bins per octave above HIST_LIN (2^6) */
/* 1024 exact + 54 octaves (2^10 .. 2^64) x 64 = 4480 bins, 35 KiB per
 * channel of uint64_t counts. */
#define HIST_N (HIST_LIN + (64 - 10) * HIST_SUB)

/* Timing in dcycles (resolved preset or explicit keys). */
struct dram_timing {
	/* JEDEC names without the t: tRCD, tCL (RL), tCWL (WL), tRP, tRAS,
	 * tWR, tWTR, tRTP, tRRD, tFAW, tCCD; the table of docs/dram.md
	 * "Timing rules" says which command pair each one separates. */
	int64_t rcd, cl, cwl, rp, ras, wr, wtr, rtp, rrd, faw, ccd;
	/* Refresh interval and refresh cycle time (all-bank REF). */
	int64_t refi, rfc;
	int64_t burst;      /* data-bus cycles of one burst: BL / beats */
};

/* One bank. */
struct bank {
	int64_t row;        /* open row, -1 = precharged */
	int64_t act_ok;     /* earliest ACT (tRP after PRE, tRFC after REF) */
	int64_t pre_ok;     /* earliest PRE (tRAS, tRTP, tWR) */
	int64_t col_ok;     /* earliest RD/WR (tRCD after ACT) */
	uint32_t hit_mark;  /* == chan.mark: a schedulable burst hits the row */
};

/* One rank: ACT pacing, write-to-read turnaround and refresh. */
struct rank {
	int64_t last_act;   /* dcycle of the latest ACT (tRRD) */
	int64_t faw[4];     /* the last four ACTs, ring (tFAW) */
	int faw_i;          /* next slot of faw[] = the oldest ACT */
	int64_t rd_ok;      /* earliest RD after a WR (tWTR) */
	int64_t ref_due;    /* dcycle the next all-bank refresh is due */
};

/* One queued burst. */
struct burst {
	uint32_t req;       /* index into dram.reqs */
	uint32_t bytes;     /* requested bytes inside this burst */
	int rank, bank;     /* location */
	int64_t row;        /* row it needs open (dram_locate) */
	int64_t arrive_d;   /* arrival, dcycles */
	cycle_t arrive_c;   /* arrival, core cycles (latency) */
	uint8_t write;      /* 1 = WR */
	uint8_t did_act;    /* an ACT was issued for this burst */
	uint8_t did_pre;    /* a PRE was issued for this burst */
};

/* One dram_request in flight. */
struct dreq {
	dram_done_fn done;  /* callback, NULL = slot free */
	void *ctx;          /* its context */
	uint64_t tag;       /* its tag */
	uint32_t remaining; /* bursts not yet completed */
	uint32_t next_free; /* free-list link, UINT32_MAX = end */
};

/* A registered retry hook. */
struct waiter {
	dram_done_fn fn;    /* retry callback */
	void *ctx;          /* requestor */
};

/* What a burst needs next. */
enum { CMD_NONE, CMD_ACT, CMD_PRE, CMD_COL };

/* The chosen next command. */
struct cand {
	int kind;           /* CMD_* or CMD_NONE */
	uint32_t k;         /* queue position of its burst */
	int64_t t;          /* dcycle it can issue */
	int refresh_rank;   /* >= 0: refresh this rank instead */
};

/* One channel: the unit the engine sees. */
struct chan {
	struct unit u;      /* must be first */
	dram *d;            /* owner */
	int id;             /* channel index */
	struct burst *q;    /* ring of queued bursts, oldest at head */
	uint32_t head;      /* ring index of the oldest */
	uint32_t n;         /* queued bursts (may exceed queue_depth) */
	uint32_t cap;       /* ring capacity (power of two) */
	uint32_t n_inflight;/* bursts issued, completion pending */
	struct bank *banks; /* ranks x banks */
	struct rank *ranks; /* ranks */
	int64_t cmd_free;   /* earliest dcycle for the next command */
	int64_t last_col;   /* dcycle of the last RD/WR (tCCD) */
	int64_t bus_free;   /* dcycle the data bus is free again */
	int last_bus_rank;  /* rank of the last data burst, -1 none */
	int last_bus_write; /* 1 if the last data burst was a write */
	uint32_t gen;       /* wake generation (lazy cancel) */
	cycle_t wake_at;    /* core cycle of the pending wake, CYCLE_MAX none */
	uint32_t mark;      /* hit_mark stamp of the current decision */
	int cache_ok;       /* 'cached' is still the right next command */
	struct cand cached; /* decision the pending wake was scheduled for */
	cycle_t busy_since; /* core cycle the channel became busy */
	double pipe_free_ns;/* ideal mode: when the pipe is free, ns */
	uint64_t lat_max;   /* largest read latency */
	cycle_t first_arrive, last_done; /* activity span, core cycles */
	uint64_t *hist;     /* read-latency histogram, HIST_N bins */
	int64_t *floor;     /* pick() scratch: 3 per rank (RD, WR, ACT) */
	uint32_t *pre;      /* pick() scratch: deferred PRE candidates */
};

struct dram {
	eng *e;             /* engine */
	int ideal;          /* dram.mode == ideal */
	int sched;          /* SCHED_* */
	int mapping;        /* index into mapping_fields */
	int n_ch;           /* channels */
	struct chan *ch;    /* channels (ch[0].u owns the whole struct) */
	int ranks, banks;   /* per channel */
	uint64_t rows;      /* per bank */
	uint64_t cols;      /* bursts per row */
	uint64_t count[F_N];/* radix of each address field */
	uint64_t top_span;  /* bursts per value of the most significant field */
	uint32_t burst_bytes;/* bytes per burst (interleave granule) */
	uint32_t queue_depth;/* schedulable bursts per channel */
	struct dram_timing t; /* timing, dcycles */
	uint64_t cf, tf;    /* core period and tCK, reduced integers */
	double clock_ghz;   /* core clock, GHz */
	double tck_ns;      /* DRAM tCK, ns */
	double peak_ch;     /* peak bytes/s of one channel */
	double ideal_lat_ns;/* ideal: latency, ns */
	double ideal_bw_ch; /* ideal: bytes/ns of one channel */
	uint8_t *data;      /* functional contents */
	int data_mapped;    /* data is an mmap reservation (dram_store) */
	uint64_t size;      /* dram.bytes */
	struct dreq *reqs;  /* request pool */
	uint32_t n_reqs;    /* allocated entries of reqs */
	uint32_t free_req;  /* free-list head, UINT32_MAX = empty */
	struct waiter *w;   /* retry hooks waiting for space */
	int n_w, cap_w;     /* hooks registered, allocated */
	int space_pending;  /* an EV_SPACE is scheduled */
	uint32_t *need;     /* scratch: bursts per channel of one request */
	int *node;          /* NoC node of each channel (noc.dram_nodes) */
};

/* ---- small helpers ---------------------------------------------------------*/

/* Every timing rule is "not before X": the earliest time is a max. */
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/*
 * Euclid.  The clock ratio is reduced by it so that the products in the
 * conversions below stay small: 1 GHz against 0.625 ns is 8 : 5, and
 * c * 8 overflows only after 2^61 core cycles.
 */
static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * Earliest dcycle at or after core cycle c: when a request made in core
 * cycle c is first visible to the controller.  Core cycle c starts at time
 * c * cf (in units of gcd fs); dcycle x at x * tf.
 */
static int64_t core_to_d(const dram *d, cycle_t c)
{
	return (int64_t)((c * d->cf + d->tf - 1) / d->tf);
}

/*
 * Last dcycle whose time is <= core cycle c: a wake at core cycle c may
 * issue every command up to this dcycle, because nothing that happens
 * later in core cycle c can arrive before it (arrivals round up).
 */
static int64_t core_horizon(const dram *d, cycle_t c)
{
	return (int64_t)(c * d->cf / d->tf);
}

/*
 * First core cycle at or after dcycle x: where a completion (or the next
 * wake) lands.  Rounding up means a requestor never sees data before the
 * DRAM clock delivered it.
 */
static cycle_t d_to_core(const dram *d, int64_t x)
{
	if (x <= 0)
		return 0;
	return ((uint64_t)x * d->tf + d->cf - 1) / d->cf;
}

/* Public forms of the two conversions (dram.h), used by the tests and the
 * synthetic bench to state expectations in both clocks. */
uint64_t dram_core_to_dcycle(const dram *d, cycle_t c)
{
	return (uint64_t)core_to_d(d, c);
}

cycle_t dram_dcycle_to_core(const dram *d, uint64_t dc)
{
	return d_to_core(d, (int64_t)dc);
}

/*
 * Histogram bin of a latency: the value itself below HIST_LIN (exact for
 * everything but queueing-dominated outliers), else its power of two e and
 * the next 6 bits below the leading one, so each bin spans 1/64 of its
 * octave: a p99 read from it is within 1.6 % of the true value.
 */
static unsigned hist_bin(uint64_t v)
{
	int e;

	if (v < HIST_LIN)
		return (unsigned)v;
	/* e = index of the leading one; v >= 1024 so e >= 10 and the 6 bits
	 * below it (v >> (e - 6), masked) are whole bits of v. */
	e = 63 - __builtin_clzll(v);         /* >= 10 */
	return HIST_LIN + (unsigned)(e - 10) * HIST_SUB +
	       (unsigned)((v >> (e - 6)) & (HIST_SUB - 1));
}

/* Smallest value that falls into bin i. */
static uint64_t hist_low(unsigned i)
{
	unsigned e, sub;

	if (i < HIST_LIN)
		return i;
	e = (i - HIST_LIN) / HIST_SUB + 10;
	sub = (i - HIST_LIN) % HIST_SUB;
	return (uint64_t)(HIST_SUB + sub) << (e - 6);
}

/* ---- address mapping ------------------------------------------------------*/

void dram_locate(const dram *d, uint64_t addr, struct dram_loc *loc)
{
	uint64_t q = addr / d->burst_bytes, v[F_N];
	const int *f = mapping_fields[d->mapping];
	int i;

	/*
	 * Mixed radix, least significant field first, so channel, rank and
	 * bank counts need not be powers of two.  The most significant field
	 * takes what is left: for the channel that is q / (bursts of one
	 * channel's share of dram.bytes), for the row the remainder.
	 */
	if (f[F_N - 1] == F_CH) {
		v[F_CH] = q / d->top_span;
		q %= d->top_span;
	}
	for (i = 0; i < F_N - 1; i++) {
		v[f[i]] = q % d->count[f[i]];
		q /= d->count[f[i]];
	}
	if (f[F_N - 1] != F_CH)
		v[f[F_N - 1]] = q % d->count[f[F_N - 1]];
	/* Channel-major with dram.bytes not a multiple of the channel count:
	 * top_span rounds up, so the channel can only overshoot on addresses
	 * beyond dram.bytes; clamp instead of indexing past ch[]. */
	if (v[F_CH] >= (uint64_t)d->n_ch)
		v[F_CH] = (uint64_t)d->n_ch - 1;
	loc->channel = (int)v[F_CH];
	loc->rank = (int)v[F_RA];
	loc->bank = (int)v[F_BA];
	loc->row = v[F_RO];
	loc->col = v[F_CO];
}

int dram_channels(const dram *d) { return d->n_ch; }
uint32_t dram_burst_bytes(const dram *d) { return d->burst_bytes; }
uint8_t *dram_data(dram *d) { return d->data; }
uint64_t dram_size(const dram *d) { return d->size; }
struct unit *dram_channel_unit(dram *d, int ch) { return &d->ch[ch].u; }
uint32_t dram_channel_queued(const dram *d, int ch)
{
	return d->ch[ch].n + d->ch[ch].n_inflight;
}

/* Peak of the whole DRAM: channels work in parallel on their own buses. */
double dram_peak_bytes_per_s(const dram *d)
{
	return d->peak_ch * d->n_ch;
}

/* ---- channel queue (ring) ---------------------------------------------------*/

/*
 * The queue is a ring in arrival order.  Position k counts from the oldest;
 * the scheduler only looks at k < queue_depth, the rest (bursts of a
 * request larger than the queue) wait their turn.  Capacity is a power of
 * two so that positions wrap with a mask.
 */
static struct burst *q_at(struct chan *c, uint32_t k)
{
	return &c->q[(c->head + k) & (c->cap - 1)];
}

/* Append the newest burst; the ring doubles when full (rare: only requests
 * larger than the queue overflow its initial capacity). */
static int q_push(struct chan *c, const struct burst *b)
{
	if (c->n == c->cap) {
		uint32_t cap = c->cap * 2, k;
		struct burst *nq = malloc(cap * sizeof(*nq));

		if (!nq)
			return NPU_ENOMEM;
		for (k = 0; k < c->n; k++)
			nq[k] = *q_at(c, k);
		free(c->q);
		c->q = nq;
		c->cap = cap;
		c->head = 0;
	}
	*q_at(c, c->n) = *b;
	c->n++;
	return 0;
}

/*
 * Remove the k-th oldest burst.  Scheduled bursts are among the oldest
 * queue_depth, so shifting the older ones up by one costs at most
 * queue_depth moves and keeps age order.
 */
static void q_remove(struct chan *c, uint32_t k)
{
	while (k > 0) {
		*q_at(c, k) = *q_at(c, k - 1);
		k--;
	}
	c->head = (c->head + 1) & (c->cap - 1);
	c->n--;
}

/* ---- events ----------------------------------------------------------------*/

/*
 * Make sure the channel runs its scheduler at core cycle 'when'.  At most
 * one wake is live: an earlier request supersedes a later one by bumping
 * the generation word, and the engine drops the stale event when it pops
 * (lazy cancel), so a busy channel costs one event per decision point.
 */
static int chan_wake(struct chan *c, cycle_t when)
{
	cycle_t now = eng_now(c->d->e);

	/* A command due in the past (its dcycle rounded into a core cycle
	 * that has gone) runs now: the engine never schedules backwards. */
	if (when < now)
		when = now;
	if (c->wake_at != CYCLE_MAX && c->wake_at <= when)
		return 0;       /* an earlier or equal wake is pending */
	c->gen++;               /* drop the later one */
	c->wake_at = when;
	return eng_schedule_gen(c->d->e, when, EV_PRI_ARB, &c->u, EV_WAKE, 0,
				&c->gen);
}

/*
 * Retry hooks wait for space: tell them in an event of their own.  Calling
 * them here would re-enter dram_request from inside the scheduler loop,
 * which is iterating over this very queue; the event runs right after the
 * wake that freed the slot, in the same core cycle.
 */
static int space_freed(struct chan *c)
{
	dram *d = c->d;

	if (d->n_w == 0 || d->space_pending)
		return 0;
	d->space_pending = 1;
	return eng_schedule(d->e, eng_now(d->e), EV_PRI_WAKE, &c->u, EV_SPACE,
			    0);
}

/*
 * A burst left the channel entirely or the channel got its first work:
 * busy_cycles counts core cycles with anything queued or in flight, as
 * closed intervals added when the channel falls idle.
 */
static void busy_update(struct chan *c, int was_idle)
{
	cycle_t now = eng_now(c->d->e);
	int idle = c->n == 0 && c->n_inflight == 0;

	if (was_idle && !idle)
		c->busy_since = now;
	else if (!was_idle && idle)
		c->u.ctr[CTR_DRAM_BUSY_CYCLES] += now - c->busy_since;
}

/* ---- refresh ----------------------------------------------------------------*/

/*
 * All-bank refresh of rank r, due at T: precharge every open bank as soon
 * as tRAS/tRTP/tWR allow, REF once every bank has had tRP, then the rank
 * is busy for tRFC.  The PREs and the REF are not put on the command bus
 * (a refresh costs tRFC, the PREs a few cycles at most).
 */
static void refresh_rank(struct chan *c, int r, int64_t T)
{
	dram *d = c->d;
	struct bank *b = &c->banks[(size_t)r * d->banks];
	int64_t ref = T;
	int k;

	/* REF = the latest of: T, every open bank's PRE (>= its pre_ok) + tRP,
	 * every closed bank's act_ok (a PRE's tRP or an earlier REF's tRFC
	 * still running). */
	for (k = 0; k < d->banks; k++) {
		if (b[k].row >= 0) {
			ref = max64(ref, max64(T, b[k].pre_ok) + d->t.rp);
			c->u.ctr[CTR_DRAM_PRECHARGES]++;
		} else {
			ref = max64(ref, b[k].act_ok);
		}
	}
	for (k = 0; k < d->banks; k++) {
		b[k].row = -1;
		b[k].act_ok = ref + d->t.rfc;
	}
	/* Fixed grid: the next REF is due tREFI after this one was due, not
	 * after it happened, so a late REF does not drift the schedule. */
	c->ranks[r].ref_due += d->t.refi;
	c->u.ctr[CTR_DRAM_REFRESHES]++;
}

/*
 * The queue was empty until now (dcycle x): apply every refresh that fell
 * due meanwhile.  The first may have to close open rows; after it all banks
 * are closed, so the rest happen exactly on their due dcycles and only the
 * last one still constrains the future: O(1) however long the idle time.
 */
static void refresh_catch_up(struct chan *c, int64_t x)
{
	dram *d = c->d;
	int r, k;

	for (r = 0; r < d->ranks; r++) {
		struct rank *rk = &c->ranks[r];
		struct bank *b = &c->banks[(size_t)r * d->banks];

		/* Usually two iterations: one "busy" REF, then the grid. */
		while (rk->ref_due <= x) {
			int64_t n, last;
			int busy = 0;

			for (k = 0; k < d->banks; k++)
				busy |= b[k].row >= 0 ||
					b[k].act_ok > rk->ref_due;
			if (busy) {
				/* rows to close or an earlier REF running */
				refresh_rank(c, r, rk->ref_due);
				continue;
			}
			/* on the grid: REF k at ref_due + k*tREFI exactly */
			n = (x - rk->ref_due) / d->t.refi + 1;
			last = rk->ref_due + (n - 1) * d->t.refi;
			for (k = 0; k < d->banks; k++)
				b[k].act_ok = last + d->t.rfc;
			rk->ref_due += n * d->t.refi;
			c->u.ctr[CTR_DRAM_REFRESHES] += (uint64_t)n;
		}
	}
}

/* ---- scheduler ----------------------------------------------------------------*/

/*
 * The part of a column command's earliest dcycle that is the same for
 * every burst of one rank and direction: tCCD after the previous column
 * command, tWTR after this rank's last write data for a READ, and late
 * enough that its data lands on a free bus, with a 2-tCK turnaround for
 * READ->WRITE and tRTRS when the rank changes.  Data of a READ starts tCL
 * after it, of a WRITE tCWL after it, hence "bus_free + gap - lat".
 */
static int64_t col_floor(const struct chan *c, int rank, int write)
{
	const dram *d = c->d;
	int64_t lat = write ? d->t.cwl : d->t.cl, gap = 0, t;

	t = c->last_col + d->t.ccd;
	/* Only READs wait for tWTR; a WRITE after a WRITE is bus-limited. */
	if (!write)
		t = max64(t, c->ranks[rank].rd_ok);
	if (c->last_bus_rank >= 0) {
		if (c->last_bus_rank != rank)
			gap += T_RTRS;
		if (!c->last_bus_write && write)
			gap += T_RTW_GAP;
	}
	return max64(t, c->bus_free + gap - lat);
}

/* Earliest dcycle a column command of burst e can issue: also tRCD after
 * its bank's ACT (col_ok). */
static int64_t col_ready(const struct chan *c, const struct burst *e,
			 const struct bank *b)
{
	return max64(b->col_ok, col_floor(c, e->rank, e->write));
}

/*
 * The rank part of an ACT's earliest dcycle: tRRD after the rank's last
 * ACT and tFAW after the fourth-last one (faw[] is a ring of the last four,
 * faw_i points at the oldest).
 */
static int64_t act_floor(const struct chan *c, int rank)
{
	const struct rank *rk = &c->ranks[rank];

	return max64(rk->last_act + c->d->t.rrd, rk->faw[rk->faw_i] + c->d->t.faw);
}

/* Earliest dcycle an ACT for burst e can issue: also the bank must be
 * precharged for tRP (or refreshed for tRFC: act_ok holds both). */
static int64_t act_ready(const struct chan *c, const struct burst *e,
			 const struct bank *b)
{
	return max64(b->act_ok, act_floor(c, e->rank));
}

/*
 * Is (kind, t, k) a better next command than *best?  Earlier first; at the
 * same dcycle FR-FCFS puts column commands before ACT/PRE; then the older
 * burst (smaller queue position).
 */
static int better(const struct cand *best, int kind, int64_t t, uint32_t k,
		  int frfcfs)
{
	/* Time first: the channel never idles waiting for a preferred
	 * command when another could issue earlier. */
	if (best->kind == CMD_NONE || t != best->t)
		return best->kind == CMD_NONE || t < best->t;
	if (frfcfs && (kind == CMD_COL) != (best->kind == CMD_COL))
		return kind == CMD_COL;
	return k < best->k;
}

/*
 * Pick the next command: the one that can issue earliest; among those at
 * the same dcycle, FR-FCFS prefers column commands (row hits) to ACT/PRE,
 * then age.  FR-FCFS never precharges a bank whose open row a queued burst
 * still hits (the hits go first).  FCFS considers the oldest burst only.
 * A rank whose refresh is due no later than the best request command is
 * refreshed first.
 */
static void pick(struct chan *c, struct cand *best)
{
	dram *d = c->d;
	uint32_t n = c->n < d->queue_depth ? c->n : d->queue_depth, k, np = 0;
	int frfcfs = d->sched == SCHED_FRFCFS, r;
	int64_t *fl = c->floor;

	best->kind = CMD_NONE;
	best->k = 0;
	best->refresh_rank = -1;
	best->t = INT64_MAX;
	/* FCFS: nothing may overtake the oldest burst, not even its ACT */
	if (!frfcfs && n > 1)
		n = 1;
	/* what depends only on the rank and direction, once per decision */
	for (r = 0; r < d->ranks; r++) {
		fl[3 * r] = col_floor(c, r, 0);
		fl[3 * r + 1] = col_floor(c, r, 1);
		fl[3 * r + 2] = act_floor(c, r);
	}
	/* A new stamp instead of clearing every bank's hit_mark: O(1). */
	c->mark++;
	for (k = 0; k < n; k++) {
		const struct burst *e = q_at(c, k);
		struct bank *b = &c->banks[(size_t)e->rank * d->banks + e->bank];
		int kind;
		int64_t t;

		if (b->row == e->row) {
			kind = CMD_COL;         /* row hit */
			t = max64(b->col_ok, fl[3 * e->rank + e->write]);
			b->hit_mark = c->mark;
		} else if (b->row < 0) {
			kind = CMD_ACT;         /* bank closed */
			t = max64(b->act_ok, fl[3 * e->rank + 2]);
		} else {
			/* another row open: decided once all hits are marked */
			c->pre[np++] = k;
			continue;
		}
		/* nothing before the burst arrived, one command per tCK */
		t = max64(t, max64(e->arrive_d, c->cmd_free));
		if (better(best, kind, t, k, frfcfs)) {
			best->kind = kind;
			best->k = k;
			best->t = t;
		}
	}
	for (k = 0; k < np; k++) {
		const struct burst *e = q_at(c, c->pre[k]);
		const struct bank *b = &c->banks[(size_t)e->rank * d->banks +
						 e->bank];
		int64_t t;

		/* FR-FCFS keeps a row open while a queued burst still hits it
		 * (with no starvation cap: docs/dram.md "What is simplified") */
		if (frfcfs && b->hit_mark == c->mark)
			continue;
		t = max64(b->pre_ok, max64(e->arrive_d, c->cmd_free));
		if (better(best, CMD_PRE, t, c->pre[k], frfcfs)) {
			best->kind = CMD_PRE;
			best->k = c->pre[k];
			best->t = t;
		}
	}
	if (best->kind == CMD_NONE)
		return;
	/*
	 * Refresh has priority once due: JEDEC lets a controller postpone up
	 * to 8 REFs, but a model that never postpones is simpler to reason
	 * about and costs the same tRFC per tREFI on average.
	 */
	for (r = 0; r < d->ranks; r++) {
		int64_t t = max64(c->ranks[r].ref_due, c->cmd_free);

		if (t <= best->t && (best->refresh_rank < 0 || t < best->t)) {
			best->refresh_rank = r;
			best->t = t;
		}
	}
}

/* Record one read latency sample, in core cycles from the burst's arrival
 * to the core cycle of its last data beat (queueing included). */
static void lat_sample(struct chan *c, uint64_t lat)
{
	c->hist[hist_bin(lat)]++;
	c->u.ctr[CTR_DRAM_READ_LATENCY_SUM] += lat;
	if (lat > c->lat_max)
		c->lat_max = lat;
}

/*
 * Issue the column command of queued burst k at dcycle t: the burst's data
 * occupies the bus [t + lat, t + lat + burst), its completion is scheduled
 * at the core cycle that covers the last beat, and its queue slot frees
 * now (the controller no longer needs the entry once the command is out).
 */
static int issue_col(struct chan *c, uint32_t k, int64_t t)
{
	dram *d = c->d;
	struct burst e = *q_at(c, k);
	struct bank *b = &c->banks[(size_t)e.rank * d->banks + e.bank];
	int64_t end = t + (e.write ? d->t.cwl : d->t.cl) + d->t.burst;
	cycle_t done = d_to_core(d, end);

	/* Channel state for the next column command: bus occupancy and
	 * direction (turnarounds), tCCD, and one command per tCK. */
	c->bus_free = end;
	c->last_bus_rank = e.rank;
	c->last_bus_write = e.write;
	c->last_col = t;
	c->cmd_free = t + 1;
	if (e.write) {
		/* tWTR and tWR count from the end of the write data */
		c->ranks[e.rank].rd_ok = max64(c->ranks[e.rank].rd_ok,
					       end + d->t.wtr);
		b->pre_ok = max64(b->pre_ok, end + d->t.wr);
		c->u.ctr[CTR_DRAM_WRITES]++;
		c->u.ctr[CTR_DRAM_WRITE_BYTES] += e.bytes;
	} else {
		/* tRTP counts from the READ command itself. */
		b->pre_ok = max64(b->pre_ok, t + d->t.rtp);
		c->u.ctr[CTR_DRAM_READS]++;
		c->u.ctr[CTR_DRAM_READ_BYTES] += e.bytes;
		lat_sample(c, done - e.arrive_c);
	}
	/* Classified by what this burst itself needed (docs/dram.md). */
	if (e.did_pre)
		c->u.ctr[CTR_DRAM_ROW_CONFLICTS]++;
	else if (e.did_act)
		c->u.ctr[CTR_DRAM_ROW_MISSES]++;
	else
		c->u.ctr[CTR_DRAM_ROW_HITS]++;
	q_remove(c, k);
	c->n_inflight++;
	if (done > c->last_done)
		c->last_done = done;
	if (eng_schedule(d->e, done, EV_PRI_COMPLETE, &c->u, EV_DONE, e.req))
		return NPU_ENOMEM;
	return space_freed(c);
}

/* ACT at t: the row opens; column commands after tRCD, PRE after tRAS. */
static void issue_act(struct chan *c, struct burst *e, int64_t t)
{
	dram *d = c->d;
	struct bank *b = &c->banks[(size_t)e->rank * d->banks + e->bank];
	struct rank *rk = &c->ranks[e->rank];

	b->row = e->row;
	b->col_ok = t + d->t.rcd;
	b->pre_ok = max64(b->pre_ok, t + d->t.ras);
	rk->last_act = t;
	rk->faw[rk->faw_i] = t;         /* overwrite the oldest of four */
	rk->faw_i = (rk->faw_i + 1) & 3;
	c->cmd_free = t + 1;
	e->did_act = 1;
	c->u.ctr[CTR_DRAM_ACTIVATES]++;
}

/* PRE at t: the bank closes; the next ACT waits tRP. */
static void issue_pre(struct chan *c, struct burst *e, int64_t t)
{
	dram *d = c->d;
	struct bank *b = &c->banks[(size_t)e->rank * d->banks + e->bank];

	b->row = -1;
	b->act_ok = max64(b->act_ok, t + d->t.rp);
	c->cmd_free = t + 1;
	e->did_pre = 1;
	c->u.ctr[CTR_DRAM_PRECHARGES]++;
}

/*
 * The wake: issue every command that can issue by the end of this core
 * cycle, in dcycle order, then sleep until the next one (or until the next
 * arrival if the queue is empty).  Only commands and arrivals change what
 * pick() returns (completions do not), so when no request arrived since
 * the decision the wake was scheduled for, that decision is reused.
 */
static int chan_run(struct chan *c)
{
	dram *d = c->d;
	int64_t horizon = core_horizon(d, eng_now(d->e));
	struct cand best;
	int rc;

	/* This is the pending wake: none is live while the loop runs, so
	 * any chan_wake below schedules a fresh one. */
	c->wake_at = CYCLE_MAX;
	while (c->n > 0) {
		if (c->cache_ok)
			best = c->cached;
		else
			pick(c, &best);
		c->cache_ok = 0;
		if (best.kind == CMD_NONE)
			break;  /* cannot happen: the oldest always has a command */
		if (best.t > horizon) {
			rc = chan_wake(c, d_to_core(d, best.t));
			c->cached = best;
			c->cache_ok = 1;
			return rc;
		}
		/* A refresh occupies one command slot here; its PREs and the
		 * REF are folded into refresh_rank's bank timestamps. */
		if (best.refresh_rank >= 0) {
			refresh_rank(c, best.refresh_rank, best.t);
			c->cmd_free = best.t + 1;
			continue;
		}
		switch (best.kind) {
		case CMD_COL:
			rc = issue_col(c, best.k, best.t);
			if (rc)
				return rc;
			break;
		case CMD_ACT:
			issue_act(c, q_at(c, best.k), best.t);
			break;
		default:
			issue_pre(c, q_at(c, best.k), best.t);
			break;
		}
	}
	return 0;
}

/*
 * A burst arrived.  Until now the pending wake (if any) was the earliest
 * moment a command could issue; the new burst can only add a command (or
 * hold back a PRE that its hit now defers), so waking when its own next
 * command could issue at the earliest keeps the wake a lower bound without
 * scanning the queue.
 */
static int arrival_wake(struct chan *c, const struct burst *e)
{
	dram *d = c->d;
	const struct bank *b = &c->banks[(size_t)e->rank * d->banks + e->bank];
	int64_t t;

	/* The arrival may change pick()'s answer: the cached decision of the
	 * pending wake is void. */
	c->cache_ok = 0;
	if (b->row == e->row)
		t = col_ready(c, e, b);
	else if (b->row < 0)
		t = act_ready(c, e, b);
	else
		t = b->pre_ok;
	t = max64(t, max64(e->arrive_d, c->cmd_free));
	return chan_wake(c, d_to_core(d, t));
}

/* ---- requests ------------------------------------------------------------------*/

/*
 * Requests live in a pool indexed by completion-event args, so realloc may
 * move the pool freely; freed entries chain through next_free (no malloc
 * per request once the pool has grown to the peak number in flight).
 */
static int req_alloc(dram *d, uint32_t *out)
{
	if (d->free_req == UINT32_MAX) {
		uint32_t n = d->n_reqs ? d->n_reqs * 2 : 64, i;
		struct dreq *v = realloc(d->reqs, n * sizeof(*v));

		if (!v)
			return NPU_ENOMEM;
		for (i = d->n_reqs; i < n; i++) {
			v[i].done = NULL;
			v[i].next_free = i + 1 < n ? i + 1 : UINT32_MAX;
		}
		d->reqs = v;
		d->free_req = d->n_reqs;
		d->n_reqs = n;
	}
	*out = d->free_req;
	d->free_req = d->reqs[*out].next_free;
	return 0;
}

/* Return entry i to the free list (LIFO: the hottest entry is reused). */
static void req_free(dram *d, uint32_t i)
{
	d->reqs[i].done = NULL;
	d->reqs[i].next_free = d->free_req;
	d->free_req = i;
}

/*
 * Ideal mode: each channel is a pipe of ideal_bw_ch bytes/ns; a burst
 * starts when it arrives and the pipe is free, occupies it bytes/bw ns and
 * completes 'latency' ns after it left the pipe.
 */
static int ideal_burst(struct chan *c, uint32_t req, uint32_t bytes,
		       int write)
{
	dram *d = c->d;
	cycle_t now = eng_now(d->e), done;
	/* Doubles are fine here: the ideal mode has no discrete DRAM clock,
	 * and the same inputs still give the same results bit for bit. */
	double start = (double)now / d->clock_ghz, end;

	if (c->pipe_free_ns > start)
		start = c->pipe_free_ns;
	c->pipe_free_ns = start + (double)bytes / d->ideal_bw_ch;
	end = c->pipe_free_ns + d->ideal_lat_ns;
	/* the epsilon keeps exact products (2.5 ns x 1 GHz) from rounding up */
	done = (cycle_t)ceil(end * d->clock_ghz - 1e-9);
	if (done < now)
		done = now;
	if (write) {
		c->u.ctr[CTR_DRAM_WRITES]++;
		c->u.ctr[CTR_DRAM_WRITE_BYTES] += bytes;
	} else {
		c->u.ctr[CTR_DRAM_READS]++;
		c->u.ctr[CTR_DRAM_READ_BYTES] += bytes;
		lat_sample(c, done - now);
	}
	c->n_inflight++;
	if (done > c->last_done)
		c->last_done = done;
	return eng_schedule(d->e, done, EV_PRI_COMPLETE, &c->u, EV_DONE, req);
}

/*
 * Split into bursts, admit all or nothing, queue each burst in its channel
 * and make sure each touched channel wakes no later than its new burst's
 * first command could issue.
 */
int dram_request(dram *d, uint64_t addr, uint32_t bytes, int write,
		 dram_done_fn done, void *ctx, uint64_t tag)
{
	cycle_t now = eng_now(d->e);
	uint64_t q, q0, q1, end = addr + bytes;
	struct dram_loc loc;
	uint32_t ri;
	int i, rc;

	/* Callers (the DMA) check ranges against dram_size() first with a
	 * message naming the instruction; these are the model's own guards.
	 * end < addr catches a wrap of addr + bytes past 2^64. */
	if (bytes == 0)
		return NPU_ERANGE;
	if (end < addr || end > d->size)
		return NPU_EFAULT;
	q0 = addr / d->burst_bytes;
	q1 = (end - 1) / d->burst_bytes;
	if (!d->ideal) {
		/* admission: all bursts fit, or the channel queue is empty */
		memset(d->need, 0, (size_t)d->n_ch * sizeof(*d->need));
		for (q = q0; q <= q1; q++) {
			dram_locate(d, q * d->burst_bytes, &loc);
			d->need[loc.channel]++;
		}
		for (i = 0; i < d->n_ch; i++) {
			struct chan *c = &d->ch[i];

			if (d->need[i] && c->n > 0 &&
			    c->n + d->need[i] > d->queue_depth) {
				c->u.ctr[CTR_DRAM_REJECTED]++;
				return DRAM_FULL;
			}
		}
	}
	/* Admitted: from here on nothing is refused (only an allocation
	 * failure, which ends the run, can stop it half-queued). */
	rc = req_alloc(d, &ri);
	if (rc)
		return rc;
	d->reqs[ri].done = done;
	d->reqs[ri].ctx = ctx;
	d->reqs[ri].tag = tag;
	d->reqs[ri].remaining = (uint32_t)(q1 - q0 + 1);
	for (q = q0; q <= q1; q++) {
		uint64_t lo = q * d->burst_bytes, hi = lo + d->burst_bytes;
		uint32_t part;
		struct chan *c;
		int was_idle;
		struct burst b;

		if (lo < addr)
			lo = addr;
		if (hi > end)
			hi = end;
		part = (uint32_t)(hi - lo);
		dram_locate(d, q * d->burst_bytes, &loc);
		c = &d->ch[loc.channel];
		was_idle = c->n == 0 && c->n_inflight == 0;
		if (c->first_arrive == CYCLE_MAX)
			c->first_arrive = now;
		if (d->ideal) {
			rc = ideal_burst(c, ri, part, write);
			if (rc)
				return rc;
			busy_update(c, was_idle);
			continue;
		}
		memset(&b, 0, sizeof(b));
		b.req = ri;
		b.bytes = part;
		b.rank = loc.rank;
		b.bank = loc.bank;
		b.row = (int64_t)loc.row;
		b.arrive_c = now;
		b.arrive_d = core_to_d(d, now);
		b.write = (uint8_t)(write != 0);
		/* an empty queue means no wake was pending: settle the
		 * refreshes that fell due while the channel slept */
		if (c->n == 0)
			refresh_catch_up(c, b.arrive_d);
		rc = q_push(c, &b);
		if (rc)
			return rc;
		busy_update(c, was_idle);
		rc = arrival_wake(c, &b);
		if (rc)
			return rc;
	}
	return 0;
}

/* Register a one-shot retry hook; registering the same (fn, ctx) twice
 * before it fires is a no-op, so a requestor is called once per freeing. */
int dram_on_space(dram *d, dram_done_fn retry, void *ctx)
{
	int i;

	for (i = 0; i < d->n_w; i++)
		if (d->w[i].fn == retry && d->w[i].ctx == ctx)
			return 0;
	if (d->n_w == d->cap_w) {
		int cap = d->cap_w ? d->cap_w * 2 : 8;
		struct waiter *v = realloc(d->w, (size_t)cap * sizeof(*v));

		if (!v)
			return NPU_ENOMEM;
		d->w = v;
		d->cap_w = cap;
	}
	d->w[d->n_w].fn = retry;
	d->w[d->n_w].ctx = ctx;
	d->n_w++;
	return 0;
}

/* Call the hooks registered so far, oldest first; each is one-shot. */
static int call_waiters(dram *d)
{
	int n = d->n_w, i, rc = 0;
	struct waiter *v;

	d->space_pending = 0;
	if (n == 0)
		return 0;
	v = malloc((size_t)n * sizeof(*v));
	if (!v)
		return NPU_ENOMEM;
	memcpy(v, d->w, (size_t)n * sizeof(*v));
	d->n_w = 0;             /* hooks may register again while called */
	for (i = 0; i < n && rc == 0; i++)
		rc = v[i].fn(v[i].ctx, 0, eng_now(d->e));
	free(v);
	return rc;
}

/* ---- unit ops -------------------------------------------------------------------*/

/*
 * Channel events: the scheduler wake (EV_PRI_ARB, after every requestor of
 * the cycle has issued), completions (EV_PRI_COMPLETE, before anyone looks
 * at this cycle's state) and the retry notification (EV_PRI_WAKE).
 */
static int chan_event(struct unit *u, const struct ev *ev)
{
	struct chan *c = (struct chan *)u;
	dram *d = c->d;
	struct dreq *r;
	int rc = 0;

	switch (ev->kind) {
	case EV_WAKE:
		return chan_run(c);
	case EV_SPACE:
		return call_waiters(d);
	case EV_DONE:
		c->n_inflight--;
		busy_update(c, 0);
		r = &d->reqs[ev->arg];
		if (--r->remaining == 0) {
			dram_done_fn fn = r->done;
			void *ctx = r->ctx;
			uint64_t tag = r->tag;

			/* fn, ctx, tag are copied out and the entry freed
			 * first: the callback may issue a request that reuses
			 * the entry or moves the pool (realloc). */
			req_free(d, (uint32_t)ev->arg);
			rc = fn(ctx, tag, ev->when);
		}
		return rc;
	default:
		return NPU_EINTERNAL;
	}
}

/* Deadlock report: a channel with work always has a wake or a completion
 * pending, so this only fires on a model bug. */
static int chan_blocked(const struct unit *u, char *buf, size_t n)
{
	const struct chan *c = (const struct chan *)u;

	if (c->n == 0 && c->n_inflight == 0)
		return 0;
	snprintf(buf, n, "%u bursts queued, %u in flight, no wake pending",
		 c->n, c->n_inflight);
	return 1;
}

/*
 * p99 of a histogram with 'total' samples: the lower edge of the bin that
 * holds the ceil(0.99 n)-th smallest sample (exact below HIST_LIN).
 */
static uint64_t hist_p99(const uint64_t *h, uint64_t total)
{
	uint64_t want = total - total / 100, acc = 0;   /* ceil(0.99 n) */
	unsigned i;

	if (total == 0)
		return 0;
	for (i = 0; i < HIST_N; i++) {
		acc += h[i];
		if (acc >= want)
			return hist_low(i);
	}
	return hist_low(HIST_N - 1);
}

/* Derived per-channel values: latency average/p99, bandwidth, hit rate. */
static void chan_dump(const struct unit *u, struct ctr_sink *s)
{
	const struct chan *c = (const struct chan *)u;
	const dram *d = c->d;
	uint64_t nrd = u->ctr[CTR_DRAM_READS];
	uint64_t acc = u->ctr[CTR_DRAM_ROW_HITS] + u->ctr[CTR_DRAM_ROW_MISSES] +
		       u->ctr[CTR_DRAM_ROW_CONFLICTS];
	/* Bandwidth over the whole run (eng_now at dump time), so it is
	 * comparable across channels and with the chip's cycles. */
	double secs = (double)eng_now(d->e) / (d->clock_ghz * 1e9);
	double bytes = (double)(u->ctr[CTR_DRAM_READ_BYTES] +
				u->ctr[CTR_DRAM_WRITE_BYTES]);
	double bw = secs > 0 ? bytes / secs : 0;

	ctr_emit_f64(s, u->name, "read_latency_avg_cycles",
		     nrd ? (double)u->ctr[CTR_DRAM_READ_LATENCY_SUM] /
			   (double)nrd : 0.0);
	ctr_emit_f64(s, u->name, "read_latency_p99_cycles",
		     (double)hist_p99(c->hist, nrd));
	ctr_emit_u64(s, u->name, "read_latency_max_cycles", c->lat_max);
	ctr_emit_f64(s, u->name, "bandwidth_gbps", bw / 1e9);
	ctr_emit_f64(s, u->name, "bandwidth_pct_peak",
		     d->peak_ch > 0 ? 100.0 * bw / d->peak_ch : 0.0);
	ctr_emit_f64(s, u->name, "row_hit_rate",
		     acc ? (double)u->ctr[CTR_DRAM_ROW_HITS] / (double)acc :
			   0.0);
}

void dram_free(dram *d)
{
	int i;

	if (!d)
		return;
	for (i = 0; d->ch && i < d->n_ch; i++) {
		free(d->ch[i].q);
		free(d->ch[i].banks);
		free(d->ch[i].ranks);
		free(d->ch[i].hist);
		free(d->ch[i].floor);
		free(d->ch[i].pre);
	}
	free(d->ch);
	if (d->data_mapped)
		munmap(d->data, (size_t)d->size);
	else
		free(d->data);
	free(d->reqs);
	free(d->w);
	free(d->need);
	free(d->node);
	free(d);
}

static const struct unit_ops chan_ops = {
	.kind = UNIT_DRAM,
	.on_event = chan_event,
	.blocked = chan_blocked,
	.dump = chan_dump,
	/* The channels are parts of one dram, freed by its owner
	 * (dram_free); the engine only dispatches to them. */
	.destroy = NULL,
};

/* ---- construction ---------------------------------------------------------------*/

/* Preset-backed keys are resolved by arch_load ("0 = from preset"): read
 * the stored value directly, since it is final by now. */
static int64_t key_i(const struct arch *a, enum param_id id)
{
	return a->v[id].i;
}

/*
 * Geometry, clock ratio and timing from the resolved config.  arch_load
 * has already filled every "0 = from preset" key and checked the cross-key
 * rules (row_bytes a multiple of a burst, dram.bytes within the devices),
 * so only values that would break the arithmetic are re-checked here.
 */
static int setup_geometry(dram *d, const struct arch *a)
{
	int64_t bus = key_i(a, P_DRAM_BUS_BITS), bl = key_i(a, P_DRAM_BL);
	int64_t beats = key_i(a, P_DRAM_BEATS_PER_TCK);
	int64_t row_bytes = key_i(a, P_DRAM_ROW_BYTES);
	double tck = a->v[P_DRAM_TCK].f;
	uint64_t cf, tf, g, bursts;

	if (bus < 8 || bl < 1 || beats < 1 || tck <= 0)
		return NPU_ECONFIG;
	d->n_ch = (int)ARCH_I(a, DRAM_CHANNELS);
	d->ranks = (int)key_i(a, P_DRAM_RANKS);
	d->banks = (int)key_i(a, P_DRAM_BANKS);
	d->rows = (uint64_t)key_i(a, P_DRAM_ROWS);
	if (d->n_ch < 1 || d->ranks < 1 || d->banks < 1 || d->rows < 1)
		return NPU_ECONFIG;
	/* Bytes per burst: bus width in bytes x burst length in beats, e.g.
	 * DDR4 x64 BL8 = 64 B, LPDDR5 x16 BL16 = 32 B, HBM3 x32 BL8 = 32 B. */
	d->burst_bytes = (uint32_t)(bus / 8 * bl);
	d->cols = (uint64_t)row_bytes / d->burst_bytes;
	if (d->cols < 1)
		d->cols = 1;
	d->count[F_CH] = (uint64_t)d->n_ch;
	d->count[F_RA] = (uint64_t)d->ranks;
	d->count[F_BA] = (uint64_t)d->banks;
	d->count[F_RO] = d->rows;
	d->count[F_CO] = d->cols;
	/* channel-major mapping: each channel owns a contiguous share */
	bursts = (d->size + d->burst_bytes - 1) / d->burst_bytes;
	d->top_span = (bursts + (uint64_t)d->n_ch - 1) / (uint64_t)d->n_ch;
	if (d->top_span == 0)
		d->top_span = 1;

	d->tck_ns = tck;
	d->clock_ghz = ARCH_F(a, CHIP_CLOCK_GHZ);
	/* bytes per beat x beats per tCK / tCK: DDR4-3200 x64 = 8 x 2 / 0.625
	 * ns = 25.6 GB/s (docs/dram.md "Clocks and units"). */
	d->peak_ch = (double)bus / 8 * (double)beats / (tck * 1e-9);
	/* exact rational clock ratio: periods in femtoseconds, reduced */
	/* 1 GHz -> 1 000 000 fs; tCK 0.625 ns -> 625 000 fs; gcd 125 000
	 * leaves 8 : 5.  The core period is rounded to 1 fs. */
	cf = (uint64_t)llround(1e6 / d->clock_ghz);
	tf = (uint64_t)llround(tck * 1e6);
	if (cf == 0 || tf == 0)
		return NPU_ECONFIG;
	g = gcd64(cf, tf);
	d->cf = cf / g;
	d->tf = tf / g;

	d->t.rcd = key_i(a, P_DRAM_TRCD);
	d->t.cl = key_i(a, P_DRAM_TCL);
	d->t.cwl = key_i(a, P_DRAM_TCWL);
	d->t.rp = key_i(a, P_DRAM_TRP);
	d->t.ras = key_i(a, P_DRAM_TRAS);
	d->t.wr = key_i(a, P_DRAM_TWR);
	d->t.wtr = key_i(a, P_DRAM_TWTR);
	d->t.rtp = key_i(a, P_DRAM_TRTP);
	d->t.rrd = key_i(a, P_DRAM_TRRD);
	d->t.faw = key_i(a, P_DRAM_TFAW);
	d->t.ccd = key_i(a, P_DRAM_TCCD);
	d->t.refi = key_i(a, P_DRAM_TREFI);
	d->t.rfc = key_i(a, P_DRAM_TRFC);
	/* a burst holds the bus BL / beats cycles (BL/2 for DDR) */
	d->t.burst = (bl + beats - 1) / beats;
	if (d->t.refi < 1)
		return NPU_ECONFIG;
	return 0;
}

/* One channel in its power-up state: every bank precharged, no history. */
static int setup_channel(dram *d, int i)
{
	struct chan *c = &d->ch[i];
	int r, k;

	c->d = d;
	c->id = i;
	/* Power of two >= queue_depth (and >= 64): the ring only grows for
	 * requests larger than the queue (q_push). */
	c->cap = 64;
	while (c->cap < d->queue_depth)
		c->cap *= 2;
	c->q = malloc(c->cap * sizeof(*c->q));
	c->banks = calloc((size_t)d->ranks * (size_t)d->banks,
			  sizeof(*c->banks));
	c->ranks = calloc((size_t)d->ranks, sizeof(*c->ranks));
	c->hist = calloc(HIST_N, sizeof(*c->hist));
	c->floor = calloc((size_t)d->ranks * 3, sizeof(*c->floor));
	/* pick() defers at most the queue_depth schedulable bursts. */
	c->pre = calloc(d->queue_depth, sizeof(*c->pre));
	if (!c->q || !c->banks || !c->ranks || !c->hist || !c->floor ||
	    !c->pre)
		return NPU_ENOMEM;
	for (k = 0; k < d->ranks * d->banks; k++)
		c->banks[k].row = -1;
	for (r = 0; r < d->ranks; r++) {
		c->ranks[r].last_act = T_NEVER;
		for (k = 0; k < 4; k++)
			c->ranks[r].faw[k] = T_NEVER;
		c->ranks[r].rd_ok = 0;
		/* the first refresh is due one tREFI after power-up */
		c->ranks[r].ref_due = d->t.refi;
	}
	c->last_bus_rank = -1;
	c->last_col = T_NEVER;
	c->wake_at = CYCLE_MAX;
	c->first_arrive = CYCLE_MAX;
	return 0;
}

/*
 * Simulated DRAM larger than this is reserved, not allocated: an
 * anonymous MAP_NORESERVE mapping, whose pages the host creates (zeroed)
 * only when a program touches them.  A chip with 1 TiB of DRAM
 * (dram.bytes' maximum) then costs what its tensors use, and calloc's
 * refusal of a size beyond RAM + swap no longer fails a config that
 * `npusim config` accepts.  Smaller stores stay on the heap, where ASan
 * watches them.
 */
#define DRAM_LAZY_BYTES ((uint64_t)1 << 30)

static uint8_t *dram_store(dram *d)
{
#if defined(MAP_ANONYMOUS) && defined(MAP_NORESERVE)
	if (d->size > DRAM_LAZY_BYTES && d->size <= SIZE_MAX) {
		void *p = mmap(NULL, (size_t)d->size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			       -1, 0);

		if (p == MAP_FAILED)
			return NULL;
		d->data_mapped = 1;
		return p;
	}
#endif
	return d->size <= SIZE_MAX ? calloc(1, (size_t)d->size) : NULL;
}

/*
 * All channels live in one array owned by the dram; the engine owns the
 * channel units and destroys channel 0 last (reverse registration order),
 * which frees everything.  If registration fails half-way, channel 0 is
 * already the engine's and will free the model; otherwise we free it here.
 */
dram *dram_new(eng *e, const struct arch *a)
{
	dram *d = calloc(1, sizeof(*d));
	struct diag *dg = eng_diag(e);
	int i, rc = NPU_ENOMEM;

	if (!d)
		goto fail;
	d->e = e;
	d->ideal = ARCH_E(a, DRAM_MODE) == ARCH_DRAM_MODE_IDEAL;
	d->sched = ARCH_E(a, DRAM_SCHED) == ARCH_DRAM_SCHED_FCFS ? SCHED_FCFS
								 : SCHED_FRFCFS;
	d->mapping = ARCH_E(a, DRAM_MAPPING);
	/* Defensive: the loader only yields the key's values. */
	if (d->mapping < 0 || d->mapping >= ARCH_N_DRAM_MAPPING)
		d->mapping = ARCH_DRAM_MAPPING_RO_BA_RA_CO_CH;
	d->size = (uint64_t)ARCH_I(a, DRAM_BYTES);
	d->queue_depth = (uint32_t)ARCH_I(a, DRAM_QUEUE);
	d->free_req = UINT32_MAX;
	rc = setup_geometry(d, a);
	if (rc)
		goto fail;
	d->ideal_lat_ns = ARCH_F(a, DRAM_IDEAL_LAT);
	/* GB/s = bytes/ns; the pipe of each channel has an equal share */
	d->ideal_bw_ch = ARCH_F(a, DRAM_IDEAL_BW) / d->n_ch;
	if (d->ideal)
		d->peak_ch = d->ideal_bw_ch * 1e9;
	/* The store is sized by a key: name it, with its place, exit 2. */
	if (!(d->data = dram_store(d))) {
		const struct param_src *src = &a->src[P_DRAM_BYTES];

		if (dg)
			(void)diag_error(dg, src->file ? diag_at_file(src->file, src->line, 0)
						       : diag_nowhere(),
					 NPU_ECONFIG,
					 "dram.bytes = %llu: cannot reserve that much host memory for the simulated DRAM (lower dram.bytes)",
					 (unsigned long long)d->size);
		dram_free(d);
		return NULL;
	}
	rc = NPU_ENOMEM;
	d->ch = calloc((size_t)d->n_ch, sizeof(*d->ch));
	d->need = calloc((size_t)d->n_ch, sizeof(*d->need));
	d->node = calloc((size_t)d->n_ch, sizeof(*d->node));
	if (!d->ch || !d->need || !d->node)
		goto fail;
	/* Placement was resolved and validated by the loader (one node per
	 * channel, or all channels on the nodes listed). */
	for (i = 0; i < d->n_ch; i++)
		d->node[i] = a->d.dram_node ? a->d.dram_node[i] : -1;
	for (i = 0; i < d->n_ch; i++) {
		rc = setup_channel(d, i);
		if (rc)
			goto fail;
		unit_init(&d->ch[i].u, &chan_ops, e, -1, "dram.ch%d", i);
		d->ch[i].u.index = i; /* trace track: channel i */
	}
	for (i = 0; i < d->n_ch; i++) {
		rc = eng_add_unit(e, &d->ch[i].u);
		if (rc)
			goto fail;
	}
	return d;
fail:
	if (dg)
		(void)diag_error(dg, diag_nowhere(), rc,
				 rc == NPU_ECONFIG ?
				 "dram: unusable geometry or timing (bus_bits, "
				 "burst_length, tck_ns, ranks, banks, rows or "
				 "trefi is 0)" :
				 "dram: out of memory for the DRAM model "
				 "(dram.bytes = %llu)",
				 (unsigned long long)(d ? d->size : 0));
	dram_free(d);
	return NULL;
}

/* ---- statistics -----------------------------------------------------------------*/

/* Sum channels (or one); the p99 of all channels comes from the merged
 * histogram, not from the channels' p99s. */
void dram_get_stats(const dram *d, int ch, struct dram_stats *st)
{
	uint64_t *h = NULL;
	int i, lo = ch < 0 ? 0 : ch, hi = ch < 0 ? d->n_ch : ch + 1;
	unsigned b;

	memset(st, 0, sizeof(*st));
	st->first_arrive = CYCLE_MAX;
	/* Without memory for the merged histogram, p99 falls back to the
	 * maximum (an upper bound) rather than failing the report. */
	h = calloc(HIST_N, sizeof(*h));
	for (i = lo; i < hi; i++) {
		const struct chan *c = &d->ch[i];
		const uint64_t *v = c->u.ctr;

		st->reads += v[CTR_DRAM_READS];
		st->writes += v[CTR_DRAM_WRITES];
		st->read_bytes += v[CTR_DRAM_READ_BYTES];
		st->write_bytes += v[CTR_DRAM_WRITE_BYTES];
		st->row_hits += v[CTR_DRAM_ROW_HITS];
		st->row_misses += v[CTR_DRAM_ROW_MISSES];
		st->row_conflicts += v[CTR_DRAM_ROW_CONFLICTS];
		st->activates += v[CTR_DRAM_ACTIVATES];
		st->precharges += v[CTR_DRAM_PRECHARGES];
		st->refreshes += v[CTR_DRAM_REFRESHES];
		st->rejected += v[CTR_DRAM_REJECTED];
		st->lat_avg += (double)v[CTR_DRAM_READ_LATENCY_SUM];
		st->lat_n += v[CTR_DRAM_READS];
		if (c->lat_max > st->lat_max)
			st->lat_max = c->lat_max;
		if (c->first_arrive < st->first_arrive)
			st->first_arrive = c->first_arrive;
		if (c->last_done > st->last_done)
			st->last_done = c->last_done;
		for (b = 0; h && b < HIST_N; b++)
			h[b] += c->hist[b];
	}
	if (st->lat_n)
		st->lat_avg /= (double)st->lat_n;
	st->lat_p99 = h ? hist_p99(h, st->lat_n) : st->lat_max;
	free(h);
}

int dram_channel_node(const dram *d, int ch) { return d->node[ch]; }

/* ---- the memory protocol (port.h) ------------------------------------------*/

/* Every requester shares the channel queues: no per-requester state. */
static int dram_t_attach(void *t, const char *requester)
{
	(void)t;
	(void)requester;
	return 0;
}

static int dram_t_recv(void *t, struct mem_port *p, const struct mem_req *r)
{
	int rc = dram_request(t, r->addr, r->bytes, r->write, r->done, r->ctx,
			      r->tag);

	(void)p;
	return rc == DRAM_FULL ? MEM_RETRY : rc;
}

/* The retry hook's context is the port: one registration per port. */
static int dram_t_retry(void *ctx, uint64_t tag, cycle_t when)
{
	struct mem_port *p = ctx;

	(void)tag;
	return p->retry(p->retry_ctx, when);
}

static int dram_t_want_retry(void *t, struct mem_port *p)
{
	return dram_on_space(t, dram_t_retry, p);
}

static void dram_t_info(const void *t, struct mem_info *out)
{
	const struct dram *d = t;

	out->name = "dram";
	out->data = d->data;
	out->size = d->size;
	out->latency = 0;
}

static const struct mem_target_ops dram_target_ops = {
	.attach = dram_t_attach,
	.recv = dram_t_recv,
	.want_retry = dram_t_want_retry,
	.info = dram_t_info,
	.check = NULL,
	.alone_cycles = NULL,
	.conflicts = NULL,
};

struct mem_target dram_target(dram *d)
{
	struct mem_target t = { &dram_target_ops, d };

	return t;
}
