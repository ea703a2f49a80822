/*
 * dram.c - DRAM channels: ranks, bank groups, banks and rows with JEDEC
 * timing, a read queue and a write buffer drained by watermarks, FR-FCFS
 * (with a row-hit cap) or FCFS scheduling, staggered all-bank or per-bank
 * refresh; or an ideal latency + bandwidth pipe.
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
 * refreshes due while both queues were empty are applied arithmetically
 * when the next request arrives (refresh_catch_up), which costs O(banks)
 * however long the idle stretch was.
 *
 * Queues.  Reads wait in a read queue of dram.queue_depth entries, writes
 * in a write buffer of dram.write_queue_depth.  The scheduler serves one
 * class at a time (sel_class): reads while any wait, unless the write
 * buffer has reached its high watermark, which starts a drain that lasts
 * until the buffer is down to the low watermark (or empty); writes also go
 * whenever no read waits.
 *
 * Invariants.
 *  - Commands of a channel issue in non-decreasing dcycle order, at most one
 *    per dcycle (cmd_free).
 *  - A queued burst is schedulable if it is among the oldest depth entries
 *    of its queue; older bursts always sit nearer the ring's head.
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

#include "../../arch/dram_map.h"
#include "../engine/unit.h"

/* Event kinds of a channel unit. */
enum {
	EV_WAKE = 1,   /* run the scheduler (EV_PRI_ARB) */
	EV_DONE = 2,   /* a burst's data finished (EV_PRI_COMPLETE); arg = req */
	EV_SPACE = 3,  /* call the retry hooks (EV_PRI_WAKE) */
};

/* Scheduler policies of dram.scheduler; docs/dram.md "Scheduler". */
enum { SCHED_FRFCFS = 0, SCHED_FCFS = 1 };

/* Request classes: the queue a burst waits in. */
enum { CL_READ = 0, CL_WRITE = 1 };

/*
 * Gap between data bursts of different ranks on one bus (tRTRS): rank
 * switch of the strobes and on-die termination.  2 tCK is the usual
 * controller setting for DDR4 (JESD79-4 leaves it to the controller).
 */
#define T_RTRS 2
/* Extra bus turnaround from read data to write data (JESD79-4 tRTW =
 * RL + BL/2 - WL + 2 tCK: the 2 is preamble and turnaround). */
#define T_RTW_GAP 2

/* "Never happened" time for command history: far below any constraint,
 * yet T_NEVER + tFAW cannot overflow (INT64_MIN / 4 leaves 3/4 of the
 * range), so the floors need no special case for a fresh rank. */
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
	 * tWR, tRTP, tFAW; the table of docs/dram.md "Timing rules" says
	 * which command pair each one separates. */
	int64_t rcd, cl, cwl, rp, ras, wr, rtp, faw;
	/* Bank-group pairs: _s between groups, _l inside one group;
	 * ccd_l_wr is WRITE -> WRITE in one group (DDR5 tCCD_L_WR). */
	int64_t wtr_s, wtr_l, rrd_s, rrd_l, ccd_s, ccd_l, ccd_l_wr;
	/* Refresh interval and cycle times (all-bank, per-bank). */
	int64_t refi, rfc, rfc_pb;
	int64_t burst;      /* data-bus cycles of one burst: BL / beats */
};

/* One bank. */
struct bank {
	int64_t row;        /* open row, -1 = precharged */
	int64_t act_ok;     /* earliest ACT (tRP after PRE, tRFC after REF) */
	int64_t pre_ok;     /* earliest PRE (tRAS, tRTP, tWR) */
	int64_t col_ok;     /* earliest RD/WR (tRCD after ACT) */
	uint32_t hits;      /* column commands to the open row (row_hit_cap) */
};

/* Floor slots (struct bcand.gi, .ri): the earliest dcycle a READ, a
 * WRITE or an ACT may have by the rules its bank shares with its group
 * and rank; a PRE has no such rule (FL_PRE). */
enum { FL_RD = 0, FL_WR = 1, FL_ACT = 2, FL_PRE = 3, FL_N = 4 };

/* One bank group of one rank: the same-group (_L) constraints.  Its part
 * of the floors lives in chan.gfl (group_floors). */
struct bgroup {
	int64_t last_act;   /* latest ACT (tRRD_L) */
	int64_t last_col;   /* latest RD/WR (tCCD_L) */
	int64_t last_wr;    /* latest WR (tCCD_L_WR) */
	int64_t wr_end;     /* end of the latest write data (tWTR_L) */
};

/* One rank: ACT pacing, the other-group (_S) constraints and refresh. */
struct rank {
	int64_t last_act;   /* dcycle of the latest ACT (tRRD_S) */
	int64_t faw[4];     /* the last four ACTs, ring (tFAW) */
	int faw_i;          /* next slot of faw[] = the oldest ACT */
	int64_t last_col;   /* latest RD/WR (tCCD_S) */
	int64_t wr_end;     /* end of the latest write data (tWTR_S) */
	int64_t fl[3];      /* the rank's part of the RD/WR/ACT floors,
			     * kept by rank_floors at each of its commands */
	int64_t ref_base;   /* stagger: refresh j is due at ref_base + ... */
	uint64_t ref_seq;   /* index j of the next refresh */
	int64_t ref_due;    /* dcycle the next refresh is due (ref_at(seq)) */
	uint8_t *ref_done;  /* per-bank refresh: bank sets refreshed in the
			     * current round (each once per tREFI) */
	int ref_left;       /* sets not yet refreshed in this round */
};

/* No slot: the end of a list. */
#define NIL UINT32_MAX

/* One queued burst, in a slot of its class's pool. */
struct burst {
	uint64_t seq;       /* arrival order in its queue: the age tie-break */
	int64_t row;        /* row it needs open (dram_locate) */
	int64_t arrive_d;   /* arrival, dcycles */
	cycle_t arrive_c;   /* arrival, core cycles (latency) */
	uint32_t req;       /* index into dram.reqs */
	uint32_t bytes;     /* requested bytes inside this burst */
	uint32_t next;      /* next younger burst of its bank list, of the
			     * overflow FIFO, or next free slot */
	uint16_t rank;      /* location */
	uint16_t bank;      /* bank within the rank (group x per_group + ba) */
	uint16_t bi;        /* rank x banks + bank: index into chan.banks */
	uint16_t rg;        /* rank x groups + group: index of its bgroup */
	uint8_t write;      /* 1 = WR */
	uint8_t did_act;    /* an ACT was issued for this burst */
	uint8_t did_pre;    /* a PRE was issued for this burst */
};

/*
 * The one command a bank's bursts of one class want next (bank_eval), with
 * the part of its earliest dcycle that depends only on the bank and its
 * list: it stays valid until a command to the bank, a refresh of it
 * (bank_dirty), or a burst leaving its list, so a decision re-reads it
 * instead of walking the list; a burst joining the list updates it
 * (cand_append).  The rank/group floor and cmd_free are added per
 * decision.
 */
struct bcand {
	int64_t t;          /* bank and arrival constraints */
	uint64_t key;       /* FR-FCFS order among candidates of equal time:
			     * the burst's seq, + 2^63 unless a column
			     * command (row hits first), smaller first */
	uint32_t s;         /* slot of the burst */
	uint16_t gi;        /* its floor in chan.gfl: FL_N x group + FL_* */
	uint8_t ri;         /* its floor in chan.rfl: FL_N x rank + FL_* */
	uint8_t kind;       /* CMD_ACT, CMD_PRE, CMD_COL */
	uint8_t valid;      /* 0 = recompute */
};

/*
 * The bursts of one class (reads, or the write buffer).  The depth oldest
 * are schedulable and sit in per-bank lists in age order, so a decision
 * looks at each bank with work once (its oldest burst, its oldest row hit,
 * its oldest conflict) instead of at every burst.  Bursts beyond depth
 * (only a request larger than the queue makes them: admission refuses
 * anything else while the queue is that full) wait in an overflow FIFO and
 * join their bank lists in arrival order as schedulable ones leave, so
 * every list stays in age order.
 */
struct queue {
	struct burst *slot; /* pool of cap slots */
	uint32_t cap;       /* slots */
	uint32_t free;      /* free-slot list */
	uint32_t n;         /* bursts queued (lists + overflow) */
	uint32_t n_sched;   /* bursts in the bank lists (<= depth) */
	uint32_t depth;     /* schedulable entries (queue_depth) */
	uint64_t seq;       /* seq of the next arrival */
	uint32_t ovf_head, ovf_tail; /* overflow FIFO */
	uint32_t *head, *tail;       /* per bank (chan.banks index) list */
	uint32_t *act;      /* banks with a non-empty list, any order */
	uint32_t *act_pos;  /* position of each bank in act[] */
	uint32_t n_act;     /* entries of act[] */
	struct bcand *cand; /* per bank: its candidate, cached (bank_eval) */
};

/* One dram_request in flight. */
struct dreq {
	dram_done_fn done;  /* callback, NULL = slot free */
	void *ctx;          /* its context */
	uint64_t tag;       /* its tag */
	uint32_t remaining; /* bursts whose data has not moved yet */
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
	int cls;            /* CL_READ / CL_WRITE: the queue of its burst */
	uint32_t s;         /* slot of its burst */
	uint32_t bi;        /* its bank (chan.banks index) */
	uint64_t seq;       /* its burst's age (tie-break) */
	int64_t t;          /* dcycle it can issue */
	int refresh_rank;   /* >= 0: refresh this rank instead */
};

/* Read latency by row-buffer outcome (dram_stats.lat_by_state). */
enum { LS_HIT, LS_MISS, LS_CONFLICT, LS_N };

/* One channel: the unit the engine sees. */
struct chan {
	struct unit u;      /* must be first */
	dram *d;            /* owner */
	int id;             /* channel index */
	struct queue qs[2]; /* read queue, write buffer (CL_*) */
	int draining;       /* a write drain is under way (sel_class) */
	uint32_t n_inflight;/* bursts issued, completion pending */
	struct bank *banks; /* ranks x banks */
	struct bgroup *grp; /* ranks x groups */
	struct rank *ranks; /* ranks */
	int64_t cmd_free;   /* earliest dcycle for the next command (set by
			     * cmd_slot, which keeps rfl with it) */
	int64_t bus_free;   /* dcycle the data bus is free again */
	int last_bus_rank;  /* rank of the last data burst, -1 none */
	int last_bus_write; /* 1 if the last data burst was a write */
	uint32_t gen;       /* wake generation (lazy cancel) */
	cycle_t wake_at;    /* core cycle of the pending wake, CYCLE_MAX none */
	int cache_ok;       /* 'cached' is still the right next command */
	struct cand cached; /* decision the pending wake was scheduled for */
	cycle_t busy_since; /* core cycle the channel became busy */
	double pipe_free_ns;/* ideal mode: when the pipe is free, ns */
	/* ideal mode: the last burst's size and pipe time, and the last
	 * cycle converted to ns - two divisions per burst were 3 % of
	 * ResNet-50's run; the same operands give the same quotients */
	uint32_t memo_bytes;
	double memo_pipe_ns;
	cycle_t memo_now;
	double memo_now_ns;
	uint64_t lat_max;   /* largest read latency */
	uint64_t ls_sum[LS_N], ls_n[LS_N]; /* read latency by row outcome */
	cycle_t first_arrive, last_done; /* activity span, core cycles */
	uint64_t *hist;     /* read-latency histogram, HIST_N bins */
	/* The floors of a command (docs/dram.md "Scheduler"), FL_N slots per
	 * group and per rank: the earliest dcycle is the max of its bank's
	 * part (struct bcand), its group's and its rank's. */
	int64_t *gfl;       /* ranks x groups: the group's own rules, kept by
			     * group_floors at each command to the group;
			     * FL_PRE = INT64_MIN */
	int64_t *rfl;       /* ranks: the rank's rules, the data bus and
			     * cmd_free (chan_floors, at each change of one
			     * of them); FL_PRE is cmd_free alone */
};

/* A decoded burst number (dec_full): what dram_locate reads, and what
 * stepping to the next burst needs (dec_burst). */
struct dram_dec {
	uint64_t q;         /* burst number */
	uint64_t v[DRAM_F_N];            /* each field's value */
	uint64_t dig[DRAM_MAP_MAX_PARTS];/* each part's digit */
	int valid;          /* 0 until the first decode */
};

struct dram {
	eng *e;             /* engine */
	int ideal;          /* dram.mode == ideal */
	int sched;          /* SCHED_* */
	int n_ch;           /* channels */
	struct chan *ch;    /* channels */
	int ranks, banks;   /* per channel, per rank */
	int groups;         /* bank groups per rank */
	int per_group;      /* banks per group */
	uint64_t rows;      /* per bank */
	uint64_t cols;      /* bursts per row */
	/* address decoder (dram.mapping), parts most significant first */
	int n_parts;
	uint8_t part_field[DRAM_MAP_MAX_PARTS];  /* enum dram_field */
	int8_t part_shift[DRAM_MAP_MAX_PARTS];   /* log2(radix), -1 if not */
	uint64_t part_radix[DRAM_MAP_MAX_PARTS]; /* values of the part */
	uint64_t part_weight[DRAM_MAP_MAX_PARTS];/* its digit's weight in the field */
	/* the parts of more than one value, least significant first: the
	 * digits a step to the next burst can carry into (dec_burst) */
	int n_step;
	uint8_t step[DRAM_MAP_MAX_PARTS];
	int ch_top;         /* the whole channel field is most significant */
	uint64_t top_span;  /* ch_top: bursts of one channel's share */
	/* The channel alone (dram_channel), when every part below the
	 * channel's top part is a power of two: its parts' digits are bit
	 * fields of the burst number, (q >> pos) & mask (% radix for the
	 * top part when it is not a power of two), times their weight. */
	int n_chp;          /* channel parts; -1: decode with dram_locate */
	uint8_t chp_pos[DRAM_MAP_MAX_PARTS];
	uint64_t chp_radix[DRAM_MAP_MAX_PARTS];
	uint64_t chp_weight[DRAM_MAP_MAX_PARTS];
	uint64_t ch_run;    /* bursts of an aligned run that one channel holds
			       whole (channel_of); 0: a single channel */
	struct dram_dec dec; /* the burst the requests decoded last */
	uint32_t burst_bytes;/* bytes per burst (interleave granule) */
	int burst_shift;    /* its log2 when a power of two (always, with the
			       presets), else -1: addresses to bursts without
			       a 64-bit division */
	uint32_t whigh, wlow;/* write buffer watermarks, entries */
	uint32_t hit_cap;   /* dram.row_hit_cap, 0 = none */
	int per_bank_ref;   /* dram.refresh == per_bank */
	int ref_units;      /* bank sets refreshed in turn (1 = all-bank) */
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
	struct adm *adm;    /* admission memo of multi-burst requests
			       (adm_get), DRAM_ADM_SLOTS, lazily */
	int *node;          /* NoC node of each channel (noc.dram_nodes) */
	dram_cmd_fn log;    /* command hook (tests, debugging), NULL = off */
	void *log_ctx;      /* its context */
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

/*
 * Mixed radix, least significant part first, so channel, rank and bank
 * counts need not be powers of two (a power-of-two part is a shift and a
 * mask).  Each part's digit adds digit x weight to its field, the weight
 * being the product of the radices of the field's parts to its right.  The
 * most significant part takes what is left modulo its radix; if it is the
 * whole channel field, each channel instead owns a contiguous share of
 * dram.bytes: channel = q / top_span (dram_map.h).
 */
/* The burst an address falls in. */
static uint64_t burst_of(const dram *d, uint64_t addr)
{
	return d->burst_shift >= 0 ? addr >> d->burst_shift
				   : addr / d->burst_bytes;
}

/* Decode burst number q into s: every part's digit, every field's value. */
static void dec_full(const dram *d, uint64_t q, struct dram_dec *s)
{
	int i, lo = 0;

	memset(s->v, 0, sizeof(s->v));
	s->q = q;
	if (d->ch_top) {
		s->v[DRAM_F_CH] = q / d->top_span;
		q %= d->top_span;
		lo = 1;
	}
	for (i = d->n_parts - 1; i >= lo; i--) {
		uint64_t digit;

		if (d->part_shift[i] >= 0) {
			digit = q & (d->part_radix[i] - 1);
			q >>= d->part_shift[i];
		} else {
			digit = q % d->part_radix[i];
			q /= d->part_radix[i];
		}
		s->dig[i] = digit;
		s->v[d->part_field[i]] += digit * d->part_weight[i];
	}
}

/*
 * Decode burst number q, from s holding the burst before it if possible:
 * a DMA request's bursts, and often consecutive requests, are consecutive
 * bursts, and q + 1 is q with its least significant digit incremented and
 * the carry propagated (the most significant part wraps, as dec_full takes
 * it modulo its radix) - one or two digits instead of all of them.  A
 * channel-major mapping wraps at top_span instead: decoded afresh.
 */
static void dec_burst(const dram *d, uint64_t q, struct dram_dec *s)
{
	int k;

	if (!s->valid || q != s->q + 1 || d->ch_top) {
		dec_full(d, q, s);
		s->valid = 1;
		return;
	}
	s->q = q;
	for (k = 0; k < d->n_step; k++) {
		int i = d->step[k];
		uint64_t *v = &s->v[d->part_field[i]];

		*v += d->part_weight[i];
		if (++s->dig[i] < d->part_radix[i])
			return;
		*v -= d->part_radix[i] * d->part_weight[i];
		s->dig[i] = 0;
	}
}

/* The location of decoded burst s. */
static void dec_loc(const dram *d, const struct dram_dec *s,
		    struct dram_loc *loc)
{
	uint64_t ch = s->v[DRAM_F_CH];

	/* Channel-major with dram.bytes not a multiple of the channel count:
	 * top_span rounds up, so the channel can only overshoot on addresses
	 * beyond dram.bytes; clamp instead of indexing past ch[]. */
	if (ch >= (uint64_t)d->n_ch)
		ch = (uint64_t)d->n_ch - 1;
	loc->channel = (int)ch;
	loc->rank = (int)s->v[DRAM_F_RA];
	loc->group = (int)s->v[DRAM_F_BG];
	loc->bank = (int)(s->v[DRAM_F_BG] * (uint64_t)d->per_group +
			  s->v[DRAM_F_BA]);
	loc->row = s->v[DRAM_F_RO];
	loc->col = s->v[DRAM_F_CO];
}

void dram_locate(const dram *d, uint64_t addr, struct dram_loc *loc)
{
	struct dram_dec s;

	dec_full(d, burst_of(d, addr), &s);
	dec_loc(d, &s, loc);
}

/* dram_locate of burst q for the requests, stepping from the last burst
 * decoded (dec_burst). */
static void locate_burst(dram *d, uint64_t q, struct dram_loc *loc)
{
	dec_burst(d, q, &d->dec);
	dec_loc(d, &d->dec, loc);
}

int dram_channel(const dram *d, uint64_t addr)
{
	uint64_t q = burst_of(d, addr), ch = 0;
	struct dram_loc loc;
	int i;

	if (d->n_ch == 1)
		return 0;       /* what the clamp below would say */
	if (d->n_chp < 0) {
		dram_locate(d, addr, &loc);
		return loc.channel;
	}
	if (d->ch_top) {
		ch = q / d->top_span;
	} else {
		for (i = 0; i < d->n_chp; i++) {
			uint64_t x = q >> d->chp_pos[i], r = d->chp_radix[i];

			ch += (r & (r - 1) ? x % r : x & (r - 1)) *
			      d->chp_weight[i];
		}
	}
	/* as dram_locate: clamp an overshoot beyond dram.bytes */
	return ch >= (uint64_t)d->n_ch ? d->n_ch - 1 : (int)ch;
}

/* The inverse of dram_locate: the byte address of the first byte of the
 * burst at loc (its bank field is the flat bank number). */
uint64_t dram_address(const dram *d, const struct dram_loc *loc)
{
	uint64_t v[DRAM_F_N], q = 0;
	int i, lo = d->ch_top ? 1 : 0;

	v[DRAM_F_CH] = (uint64_t)loc->channel;
	v[DRAM_F_RA] = (uint64_t)loc->rank;
	v[DRAM_F_BG] = (uint64_t)loc->bank / (uint64_t)d->per_group;
	v[DRAM_F_BA] = (uint64_t)loc->bank % (uint64_t)d->per_group;
	v[DRAM_F_RO] = loc->row;
	v[DRAM_F_CO] = loc->col;
	for (i = lo; i < d->n_parts; i++)
		q = q * d->part_radix[i] +
		    v[d->part_field[i]] / d->part_weight[i] % d->part_radix[i];
	if (d->ch_top)
		q += v[DRAM_F_CH] * d->top_span;
	return q * d->burst_bytes;
}

int dram_channels(const dram *d) { return d->n_ch; }
uint32_t dram_burst_bytes(const dram *d) { return d->burst_bytes; }
uint8_t *dram_data(dram *d) { return d->data; }
uint64_t dram_size(const dram *d) { return d->size; }
struct unit *dram_channel_unit(dram *d, int ch) { return &d->ch[ch].u; }
uint32_t dram_channel_queued(const dram *d, int ch)
{
	/* read queue + write buffer + bursts on their way back */
	return d->ch[ch].qs[0].n + d->ch[ch].qs[1].n + d->ch[ch].n_inflight;
}

/* Peak of the whole DRAM: channels work in parallel on their own buses. */
double dram_peak_bytes_per_s(const dram *d)
{
	return d->peak_ch * d->n_ch;
}

/* ---- channel queues ---------------------------------------------------------*/

/* Make bc the command 'kind' of burst x of q, whose bank allows it at t;
 * its floors are slot k (FL_*) of its group and rank. */
static void bc_set(struct bcand *bc, const struct queue *q, int kind,
		   uint32_t x, int k, int64_t t)
{
	const struct burst *e = &q->slot[x];

	bc->kind = (uint8_t)kind;
	bc->s = x;
	bc->t = max64(t, e->arrive_d);
	bc->key = e->seq | (kind == CMD_COL ? 0 : (uint64_t)1 << 63);
	bc->gi = (uint16_t)(FL_N * e->rg + k);
	bc->ri = (uint8_t)(FL_N * e->rank + k);
}

/*
 * Burst x joins its bank's list as the youngest: bring the bank's cached
 * candidate (bank_eval) up to date instead of walking the list again.  The
 * oldest burst, the oldest hit and the oldest conflict stay what they were
 * unless there was none of x's kind, so the candidate changes only when x
 * is the bank's first conflict while the open row is capped (its PRE now
 * goes first) or its first hit while the row is not capped (its column
 * command now goes, not the PRE of a conflict).  The bank itself has not
 * changed: every command to it and every refresh of it invalidate the
 * candidate.
 */
static void cand_append(const struct chan *c, struct queue *q, uint32_t x)
{
	const struct burst *e = &q->slot[x];
	const struct bank *b = &c->banks[e->bi];
	struct bcand *bc = &q->cand[e->bi];
	int capped = c->d->hit_cap && b->hits >= c->d->hit_cap;

	if (!bc->valid || b->row < 0)
		return;         /* to compute, or the oldest burst's ACT */
	if (bc->kind == CMD_COL && capped && e->row != b->row)
		bc_set(bc, q, CMD_PRE, x, FL_PRE, b->pre_ok);
	else if (bc->kind == CMD_PRE && !capped && e->row == b->row)
		bc_set(bc, q, CMD_COL, x, e->write ? FL_WR : FL_RD, b->col_ok);
}

/* Put slot x at the tail of its bank's list (the youngest there). */
static void bank_append(const struct chan *c, struct queue *q, uint32_t x)
{
	uint32_t bi = q->slot[x].bi;

	cand_append(c, q, x);
	q->slot[x].next = NIL;
	if (q->head[bi] == NIL) {
		q->head[bi] = x;
		q->act_pos[bi] = q->n_act;
		q->act[q->n_act++] = bi;
	} else {
		q->slot[q->tail[bi]].next = x;
	}
	q->tail[bi] = x;
	q->n_sched++;
}

/* Append the newest burst: schedulable if the queue has room, else into
 * the overflow FIFO.  The pool doubles when full (rare: only requests
 * larger than the queue overflow its initial capacity). */
static int q_push(const struct chan *c, struct queue *q,
		  const struct burst *b, uint32_t *out, int *sched)
{
	uint32_t x;

	if (q->free == NIL) {
		uint32_t cap = q->cap * 2, k;
		struct burst *v = realloc(q->slot, cap * sizeof(*v));

		if (!v)
			return NPU_ENOMEM;
		for (k = q->cap; k < cap; k++)
			v[k].next = k + 1 < cap ? k + 1 : NIL;
		q->slot = v;
		q->free = q->cap;
		q->cap = cap;
	}
	x = q->free;
	q->free = q->slot[x].next;
	q->slot[x] = *b;
	q->slot[x].seq = q->seq++;
	q->n++;
	*out = x;
	*sched = q->n_sched < q->depth && q->ovf_head == NIL;
	if (*sched) {
		bank_append(c, q, x);
	} else {
		q->slot[x].next = NIL;
		if (q->ovf_head == NIL)
			q->ovf_head = x;
		else
			q->slot[q->ovf_tail].next = x;
		q->ovf_tail = x;
	}
	return 0;
}

/*
 * Remove slot x (a schedulable burst) from its bank list: the lists are
 * short and x is usually their head.  The oldest overflow burst then
 * becomes schedulable.
 */
static void q_remove(const struct chan *c, struct queue *q, uint32_t x)
{
	uint32_t bi = q->slot[x].bi, p = NIL, y = q->head[bi];

	q->cand[bi].valid = 0;
	while (y != x) {
		p = y;
		y = q->slot[y].next;
	}
	if (p == NIL)
		q->head[bi] = q->slot[x].next;
	else
		q->slot[p].next = q->slot[x].next;
	if (q->tail[bi] == x)
		q->tail[bi] = p;
	if (q->head[bi] == NIL) {
		/* swap-remove from the active banks */
		uint32_t last = q->act[--q->n_act];

		q->act[q->act_pos[bi]] = last;
		q->act_pos[last] = q->act_pos[bi];
	}
	q->slot[x].next = q->free;
	q->free = x;
	q->n--;
	q->n_sched--;
	if (q->ovf_head != NIL) {
		uint32_t o = q->ovf_head;

		q->ovf_head = q->slot[o].next;
		bank_append(c, q, o);
	}
}

/* A command to bank bi, or a refresh of it: both classes' cached
 * candidates of the bank are stale. */
static void bank_dirty(struct chan *c, uint32_t bi)
{
	c->qs[CL_READ].cand[bi].valid = 0;
	c->qs[CL_WRITE].cand[bi].valid = 0;
}

/* Bursts queued in both queues. */
static uint32_t chan_queued(const struct chan *c)
{
	return c->qs[CL_READ].n + c->qs[CL_WRITE].n;
}

/*
 * The class the scheduler serves next, and the drain state that goes with
 * it (pure: pick() stores *draining, arrivals only compare).  A drain
 * starts when the write buffer reaches the high watermark and ends at the
 * low one if a read waits (else it goes on: nothing else to do), or when
 * the buffer is empty.  Outside a drain reads go first and writes go when
 * no read waits (docs/dram.md "Write buffer").
 */
static int sel_class(const struct chan *c, int *draining)
{
	const dram *d = c->d;
	uint32_t nr = c->qs[CL_READ].n, nw = c->qs[CL_WRITE].n;
	int dr = c->draining;

	if (dr && (nw == 0 || (nw <= d->wlow && nr > 0)))
		dr = 0;
	else if (!dr && nw >= d->whigh)
		dr = 1;
	*draining = dr;
	return dr || nr == 0 ? CL_WRITE : CL_READ;
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
	int idle = chan_queued(c) == 0 && c->n_inflight == 0;

	if (was_idle && !idle)
		c->busy_since = eng_now(c->d->e);
	else if (!was_idle && idle)
		c->u.ctr[CTR_DRAM_BUSY_CYCLES] += eng_now(c->d->e) -
						  c->busy_since;
}

/* ---- refresh ----------------------------------------------------------------*/

/*
 * Refresh j of a rank is due at ref_base + floor((j + 1) x tREFI / units):
 * all-bank refresh (units = 1) every tREFI, per-bank refresh (units = bank
 * sets) every tREFI / units, so each bank once per tREFI either way, on a
 * fixed grid (a late REF does not shift the next one).  ref_base staggers
 * the ranks by tREFI / ranks.
 */
static int64_t ref_at(const dram *d, const struct rank *rk, uint64_t j)
{
	return rk->ref_base +
	       (int64_t)((j + 1) * (uint64_t)d->t.refi / (uint64_t)d->ref_units);
}

/* 1 if a burst of either class waits for bank bi. */
static int bank_wanted(const struct chan *c, uint32_t bi)
{
	return c->qs[CL_READ].head[bi] != NIL ||
	       c->qs[CL_WRITE].head[bi] != NIL;
}

/*
 * The bank set the next refresh of rank r takes.  All-bank: set 0 (every
 * bank).  Per-bank: set u holds the banks with bank % units == u (for DDR5
 * with one set per bank index that is REFsb's "the same bank in every
 * group", for LPDDR5's two banks per REFpb banks b and b + banks/2).  The
 * standards let the controller choose the order as long as every set is
 * refreshed once per round of tREFI (JESD209-5 REFpb, JESD235 REFSB), so,
 * as a controller would, the model takes the first set of the round that
 * no queued burst wants, else the first set left: a stream's banks are
 * refreshed when it has moved on.  With nothing queued that is index
 * order (refresh_catch_up relies on it).
 */
static int ref_unit(const struct chan *c, int r)
{
	const dram *d = c->d;
	const struct rank *rk = &c->ranks[r];
	int u, k, first = -1;

	if (!d->per_bank_ref)
		return 0;
	for (u = 0; u < d->ref_units; u++) {
		int wanted = 0;

		if (rk->ref_done[u])
			continue;
		if (first < 0)
			first = u;
		for (k = u; k < d->banks && !wanted; k += d->ref_units)
			wanted = bank_wanted(c, (uint32_t)(r * d->banks + k));
		if (!wanted)
			return u;
	}
	return first;
}

/* Set u of rank r has had its refresh of this round. */
static void ref_mark(const dram *d, struct rank *rk, int u)
{
	if (!d->per_bank_ref)
		return;
	rk->ref_done[u] = 1;
	if (--rk->ref_left == 0) {
		memset(rk->ref_done, 0, (size_t)d->ref_units);
		rk->ref_left = d->ref_units;
	}
}

/*
 * Refresh the next bank set of rank r (ref_unit), due at T.  Each open
 * bank of the set is precharged as soon as tRAS/tRTP/tWR allow, the REF
 * follows once every bank has had tRP, then the set is busy tRFC (tRFCpb).
 * The PREs and the REF are not put on the command bus (a refresh costs
 * tRFC, the PREs a few cycles at most).
 */
static void refresh_rank(struct chan *c, int r, int64_t T)
{
	dram *d = c->d;
	struct rank *rk = &c->ranks[r];
	struct bank *b = &c->banks[(size_t)r * d->banks];
	int first = ref_unit(c, r), k;
	int64_t ref = T, rfc = d->per_bank_ref ? d->t.rfc_pb : d->t.rfc;

	/* REF = the latest of: T, every open bank's PRE (>= its pre_ok) + tRP,
	 * every closed bank's act_ok (a PRE's tRP or an earlier REF's tRFC
	 * still running). */
	for (k = first; k < d->banks; k += d->ref_units) {
		if (b[k].row >= 0) {
			ref = max64(ref, max64(T, b[k].pre_ok) + d->t.rp);
			c->u.ctr[CTR_DRAM_PRECHARGES]++;
		} else {
			ref = max64(ref, b[k].act_ok);
		}
	}
	for (k = first; k < d->banks; k += d->ref_units) {
		b[k].row = -1;
		b[k].hits = 0;
		b[k].act_ok = ref + rfc;
		bank_dirty(c, (uint32_t)(r * d->banks + k));
	}
	ref_mark(d, rk, first);
	rk->ref_seq++;
	rk->ref_due = ref_at(d, rk, rk->ref_seq);
	c->u.ctr[CTR_DRAM_REFRESHES]++;
}

/* Every bank of set u of rank r is busy until 'until' (refresh_catch_up). */
static void ref_set_busy(struct chan *c, int r, int u, int64_t until)
{
	dram *d = c->d;
	int k;

	for (k = u; k < d->banks; k += d->ref_units) {
		c->banks[(size_t)r * d->banks + k].act_ok = until;
		bank_dirty(c, (uint32_t)(r * d->banks + k));
	}
}

/*
 * Both queues were empty until now (dcycle x): apply every refresh that
 * fell due meanwhile.  The first ones may have to close open rows or wait
 * for a running refresh; once every bank of the rank is closed and free,
 * the rest happen exactly on their due dcycles, in index order of the sets
 * (nothing is queued: ref_unit): first the sets the current round still
 * owes, then whole rounds.  Only each set's last refresh still constrains
 * the future, so this is O(banks) however long the idle time
 * (dram.trfc_pb < the per-bank interval is a config rule, so a set is free
 * again before its next turn).
 */
static void refresh_catch_up(struct chan *c, int64_t x)
{
	dram *d = c->d;
	uint64_t units = (uint64_t)d->ref_units;
	int64_t rfc = d->per_bank_ref ? d->t.rfc_pb : d->t.rfc;
	int r, k;

	for (r = 0; r < d->ranks; r++) {
		struct rank *rk = &c->ranks[r];
		struct bank *b = &c->banks[(size_t)r * d->banks];

		while (rk->ref_due <= x) {
			uint64_t n_due, last, u, seq = rk->ref_seq, owed, idx;
			int busy = 0;

			for (k = 0; k < d->banks; k++)
				busy |= b[k].row >= 0 ||
					b[k].act_ok > rk->ref_due;
			if (busy) {
				/* rows to close or a refresh still running */
				refresh_rank(c, r, rk->ref_due);
				continue;
			}
			/* refreshes j with ref_at(j) <= x: (j + 1) tREFI <
			 * (x - base + 1) units */
			n_due = ((uint64_t)(x - rk->ref_base + 1) * units - 1) /
				(uint64_t)d->t.refi;
			last = n_due - 1;
			owed = d->per_bank_ref ? (uint64_t)rk->ref_left : 1;
			/* the sets the round owes: refreshes seq, seq + 1, ... */
			for (u = 0, idx = 0; u < units; u++) {
				if (d->per_bank_ref && rk->ref_done[u])
					continue;
				if (seq + idx <= last)
					ref_set_busy(c, r, (int)u,
						     ref_at(d, rk, seq + idx) + rfc);
				idx++;
			}
			/* then whole rounds in index order: refresh m of them
			 * (0-based) takes set m % units */
			if (last >= seq + owed) {
				uint64_t n_new = last - (seq + owed) + 1;

				for (u = 0; u < units && u < n_new; u++) {
					uint64_t m = n_new - 1 -
						     (n_new - 1 - u) % units;

					ref_set_busy(c, r, (int)u,
						     ref_at(d, rk, seq + owed + m) +
						     rfc);
				}
				if (d->per_bank_ref) {
					memset(rk->ref_done, 0, units);
					for (u = 0; u < n_new % units; u++)
						rk->ref_done[u] = 1;
					rk->ref_left = (int)(units -
							     n_new % units);
				}
			} else if (d->per_bank_ref) {
				/* part of what the round owes */
				for (u = 0, idx = 0; u < units &&
				     seq + idx <= last; u++)
					if (!rk->ref_done[u]) {
						rk->ref_done[u] = 1;
						rk->ref_left--;
						idx++;
					}
				if (rk->ref_left == 0) {
					memset(rk->ref_done, 0, units);
					rk->ref_left = (int)units;
				}
			}
			c->u.ctr[CTR_DRAM_REFRESHES] += n_due - seq;
			rk->ref_seq = n_due;
			rk->ref_due = ref_at(d, rk, n_due);
		}
	}
}

/* ---- scheduler ----------------------------------------------------------------*/

/*
 * The floors: the part of the earliest dcycle of a command that is the
 * same for every bank of a bank group or of a rank, for a READ, a WRITE
 * and an ACT:
 *  - a column command waits tCCD_S after the rank's last one and tCCD_L
 *    after its group's last one (WRITE after WRITE in the group: tCCD_L_WR);
 *    a READ also waits tWTR_S after the rank's last write data and tWTR_L
 *    after its group's; and its data must land on a free bus, 2 tCK later
 *    for READ->WRITE and tRTRS later on a rank switch: data of a READ starts
 *    tCL after it, of a WRITE tCWL after it, hence "bus_free + gap - lat";
 *  - an ACT waits tRRD_S after the rank's last ACT, tRRD_L after its
 *    group's, and tFAW after the rank's fourth-last.
 * A command's floor is the max of its group's rules (group_floors), its
 * rank's (rank_floors) and the channel's bus and command slot
 * (chan_floors).  Each is recomputed only when its inputs change: the
 * group's and the rank's with a command to them, the channel's (once per
 * rank, which every command moves) with every command and every wait for
 * an arrival (cmd_slot).  A decision or an arrival reads them as they are:
 * O(1) per bank, not O(ranks x groups) per decision.
 */
/* Group rg's own rules, after a command to it (or at power-up). */
static void group_floors(struct chan *c, int rg)
{
	const struct dram_timing *t = &c->d->t;
	const struct bgroup *gp = &c->grp[rg];
	int64_t *f = &c->gfl[FL_N * rg];

	f[FL_RD] = max64(gp->last_col + t->ccd_l, gp->wr_end + t->wtr_l);
	f[FL_WR] = max64(gp->last_col + t->ccd_l, gp->last_wr + t->ccd_l_wr);
	f[FL_ACT] = gp->last_act + t->rrd_l;
	f[FL_PRE] = INT64_MIN;
}

/* Rank rk's own rules, after a command to it (or at power-up). */
static void rank_floors(const struct chan *c, struct rank *rk)
{
	const struct dram_timing *t = &c->d->t;

	rk->fl[FL_RD] = max64(rk->last_col + t->ccd_s, rk->wr_end + t->wtr_s);
	rk->fl[FL_WR] = rk->last_col + t->ccd_s;
	rk->fl[FL_ACT] = max64(rk->last_act + t->rrd_s,
			       rk->faw[rk->faw_i] + t->faw);
}

/* Every rank's floors in c->rfl: its own rules, the data bus (turnaround
 * and rank-switch gaps) and one command per tCK. */
static void chan_floors(struct chan *c)
{
	const dram *d = c->d;
	int r;

	for (r = 0; r < d->ranks; r++) {
		const struct rank *rk = &c->ranks[r];
		int64_t *f = &c->rfl[FL_N * r], gap_r = 0, gap_w = 0;

		if (c->last_bus_rank >= 0) {
			if (c->last_bus_rank != r)
				gap_r = gap_w = T_RTRS;
			if (!c->last_bus_write)
				gap_w += T_RTW_GAP;
		}
		f[FL_RD] = max64(max64(rk->fl[FL_RD],
				       c->bus_free + gap_r - d->t.cl),
				 c->cmd_free);
		f[FL_WR] = max64(max64(rk->fl[FL_WR],
				       c->bus_free + gap_w - d->t.cwl),
				 c->cmd_free);
		f[FL_ACT] = max64(rk->fl[FL_ACT], c->cmd_free);
		f[FL_PRE] = c->cmd_free;
	}
}

/* No command before dcycle t: after a command (t = its dcycle + 1) with
 * the state it moved already updated, or when an arrival makes the
 * channel wait for it. */
static void cmd_slot(struct chan *c, int64_t t)
{
	c->cmd_free = t;
	chan_floors(c);
}

/* The floor of slot k (FL_*) of group rg in rank r. */
static int64_t floor_of(const struct chan *c, int rg, int r, int k)
{
	return max64(c->gfl[FL_N * rg + k], c->rfl[FL_N * r + k]);
}

/*
 * Is (kind, t, seq) a better next command than *best?  Earlier first; at
 * the same dcycle FR-FCFS puts column commands before ACT/PRE; then the
 * older burst.  A total order, so the order in which banks are looked at
 * never changes a decision.
 */
static int better(const struct cand *best, int kind, int64_t t, uint64_t seq,
		  int frfcfs)
{
	/* Time first: the channel never idles waiting for a preferred
	 * command when another could issue earlier. */
	if (best->kind == CMD_NONE || t != best->t)
		return best->kind == CMD_NONE || t < best->t;
	if (frfcfs && (kind == CMD_COL) != (best->kind == CMD_COL))
		return kind == CMD_COL;
	return seq < best->seq;
}

/* Take the command 'kind' of burst x (slot of queue q) at t if better. */
static inline void offer(struct cand *best, const struct queue *q, int kind,
		  int64_t t, uint32_t x, int frfcfs)
{
	const struct burst *e = &q->slot[x];

	if (better(best, kind, t, e->seq, frfcfs)) {
		best->kind = kind;
		best->s = x;
		best->bi = e->bi;
		best->seq = e->seq;
		best->t = t;
	}
}

/*
 * The best command of bank bi's bursts in q (FR-FCFS), into q->cand[bi].
 * A closed bank: ACT for its oldest burst.  An open one: the oldest row
 * hit reads or writes, and the oldest burst that wants another row may
 * precharge only if no queued burst hits the row or the bank has served
 * row_hit_cap column commands in it; from then on its hits also wait while
 * a conflict does (fairness).  So a bank has one candidate.  The oldest
 * burst of each kind dominates the younger ones (an earlier arrival, the
 * same bank and floors), so no other burst can win.  Nothing issues before
 * its burst arrived.
 */
static const struct bcand *bank_eval(const struct chan *c, struct queue *q,
				     uint32_t bi)
{
	const dram *d = c->d;
	const struct bank *b = &c->banks[bi];
	struct bcand *bc = &q->cand[bi];
	uint32_t x = q->head[bi], hit = NIL, conf = NIL;
	int capped = d->hit_cap && b->hits >= d->hit_cap;

	if (bc->valid)
		return bc;
	bc->valid = 1;
	if (b->row < 0) {
		bc_set(bc, q, CMD_ACT, x, FL_ACT, b->act_ok);
		return bc;
	}
	/* the oldest hit; the oldest conflict only where it can matter */
	for (; x != NIL; x = q->slot[x].next) {
		if (q->slot[x].row == b->row) {
			if (hit == NIL)
				hit = x;
		} else if (conf == NIL) {
			conf = x;
		}
		/* without a hit, scan on: a later one holds the PRE back */
		if (hit != NIL && (conf != NIL || !capped))
			break;
	}
	if (hit != NIL && !(capped && conf != NIL))
		bc_set(bc, q, CMD_COL, hit, q->slot[hit].write ? FL_WR : FL_RD,
		       b->col_ok);
	else
		bc_set(bc, q, CMD_PRE, conf, FL_PRE, b->pre_ok);
	return bc;
}

/* The earliest dcycle of candidate bc: the max of its bank's part, its
 * group's floor and its rank's (which holds cmd_free). */
static int64_t bc_time(const struct chan *c, const struct bcand *bc)
{
	return max64(bc->t, max64(c->gfl[bc->gi], c->rfl[bc->ri]));
}

/* Offer bank bi's candidate. */
static void bank_offer(const struct chan *c, struct queue *q, uint32_t bi,
		       struct cand *best)
{
	const struct bcand *bc = bank_eval(c, q, bi);

	offer(best, q, bc->kind, bc_time(c, bc), bc->s, 1);
}


/*
 * FCFS: only the oldest burst of the class may act, and only its own next
 * command (no bank-level parallelism).
 */
static void fcfs_cand(const struct chan *c, const struct queue *q,
		      struct cand *best)
{
	const struct burst *e = NULL;
	const struct bank *b;
	uint32_t k, x = NIL;
	int64_t t;

	for (k = 0; k < q->n_act; k++) {
		uint32_t h = q->head[q->act[k]];

		if (!e || q->slot[h].seq < e->seq) {
			e = &q->slot[h];
			x = h;
		}
	}
	b = &c->banks[e->bi];
	if (b->row == e->row) {
		t = max64(b->col_ok, floor_of(c, e->rg, e->rank,
					      e->write ? FL_WR : FL_RD));
		offer(best, q, CMD_COL, max64(t, max64(e->arrive_d, c->cmd_free)),
		      x, 0);
	} else if (b->row < 0) {
		t = max64(b->act_ok, floor_of(c, e->rg, e->rank, FL_ACT));
		offer(best, q, CMD_ACT, max64(t, max64(e->arrive_d, c->cmd_free)),
		      x, 0);
	} else {
		offer(best, q, CMD_PRE,
		      max64(b->pre_ok, max64(e->arrive_d, c->cmd_free)), x, 0);
	}
}

/*
 * FR-FCFS: the best of the banks' candidates (bank_eval), in the order of
 * better() - earliest, then row hits, then oldest - which is the order of
 * (time, key): a bank costs a time and at most a key compare.
 */
static void frfcfs_cand(const struct chan *c, struct queue *q,
			struct cand *best)
{
	const struct bcand *win = NULL;
	int64_t wt = INT64_MAX;
	uint32_t k;

	for (k = 0; k < q->n_act; k++) {
		const struct bcand *bc = &q->cand[q->act[k]];
		int64_t t;

		if (!bc->valid)
			bc = bank_eval(c, q, q->act[k]);
		t = bc_time(c, bc);

		if (!win || t < wt || (t == wt && bc->key < win->key)) {
			win = bc;
			wt = t;
		}
	}
	if (win)
		offer(best, q, win->kind, wt, win->s, 1);
}

/*
 * Refresh has priority once due: a rank whose refresh is due no later than
 * the best request command is refreshed first.  JEDEC lets a controller
 * postpone up to 8 REFs, but a model that never postpones is simpler to
 * reason about and costs the same tRFC per tREFI on average.
 */
static void refresh_check(const struct chan *c, struct cand *best)
{
	int r;

	for (r = 0; r < c->d->ranks; r++) {
		int64_t t = max64(c->ranks[r].ref_due, c->cmd_free);

		if (t <= best->t && (best->refresh_rank < 0 || t < best->t)) {
			best->refresh_rank = r;
			best->t = t;
		}
	}
}

/*
 * Pick the next command among the bursts of the class sel_class chooses:
 * the one that can issue earliest; among those at the same dcycle, FR-FCFS
 * prefers column commands (row hits) to ACT/PRE, then age (bank_cand has
 * the rules per bank).  FCFS considers the oldest burst only.
 */
static void pick(struct chan *c, struct cand *best)
{
	dram *d = c->d;
	int cls = sel_class(c, &c->draining);
	struct queue *q = &c->qs[cls];

	best->kind = CMD_NONE;
	best->cls = cls;
	best->s = NIL;
	best->bi = 0;
	best->seq = 0;
	best->refresh_rank = -1;
	best->t = INT64_MAX;
	if (d->sched == SCHED_FCFS)
		fcfs_cand(c, q, best);
	else
		frfcfs_cand(c, q, best);
	if (best->kind != CMD_NONE)
		refresh_check(c, best);
}

/* Report a command to the debug hook (dram_set_cmd_log; off: one test). */
static void cmd_log(const struct chan *c, int cmd, const struct burst *e,
		    int64_t t)
{
	const dram *d = c->d;

	if (d->log)
		d->log(d->log_ctx, c->id, cmd, e->rank, e->bank, e->write, t);
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
 * Issue the column command of burst x of queue cls at dcycle t: the
 * burst's data occupies the bus [t + lat, t + lat + burst), its completion
 * is scheduled at the core cycle that covers the last beat, and its queue
 * slot frees now (the controller no longer needs the entry once the
 * command is out).
 */
static int issue_col(struct chan *c, int cls, uint32_t x, int64_t t)
{
	dram *d = c->d;
	struct queue *q = &c->qs[cls];
	const struct burst *e = &q->slot[x];
	uint32_t req = e->req;
	struct bank *b = &c->banks[e->bi];
	struct rank *rk = &c->ranks[e->rank];
	struct bgroup *gp = &c->grp[e->rg];
	int64_t end = t + (e->write ? d->t.cwl : d->t.cl) + d->t.burst;
	cycle_t done = d_to_core(d, end);
	int ls;

	/* Channel state for the next column command: bus occupancy and
	 * direction (turnarounds), tCCD_S/_L, and one command per tCK. */
	c->bus_free = end;
	c->last_bus_rank = e->rank;
	c->last_bus_write = e->write;
	rk->last_col = t;
	gp->last_col = t;
	b->hits++;
	bank_dirty(c, e->bi);
	if (e->write) {
		/* tWTR and tWR count from the end of the write data */
		rk->wr_end = end;
		gp->wr_end = end;
		gp->last_wr = t;
		b->pre_ok = max64(b->pre_ok, end + d->t.wr);
		c->u.ctr[CTR_DRAM_WRITES]++;
		c->u.ctr[CTR_DRAM_WRITE_BYTES] += e->bytes;
	} else {
		/* tRTP counts from the READ command itself. */
		b->pre_ok = max64(b->pre_ok, t + d->t.rtp);
		c->u.ctr[CTR_DRAM_READS]++;
		c->u.ctr[CTR_DRAM_READ_BYTES] += e->bytes;
		lat_sample(c, done - e->arrive_c);
	}
	group_floors(c, e->rg);
	rank_floors(c, rk);
	cmd_slot(c, t + 1);
	/* Classified by what this burst itself needed (docs/dram.md). */
	if (e->did_pre) {
		c->u.ctr[CTR_DRAM_ROW_CONFLICTS]++;
		ls = LS_CONFLICT;
	} else if (e->did_act) {
		c->u.ctr[CTR_DRAM_ROW_MISSES]++;
		ls = LS_MISS;
	} else {
		c->u.ctr[CTR_DRAM_ROW_HITS]++;
		ls = LS_HIT;
	}
	if (!e->write) {
		c->ls_sum[ls] += done - e->arrive_c;
		c->ls_n[ls]++;
	}
	cmd_log(c, DRAM_CMD_COL, e, t);
	q_remove(c, q, x);      /* e is gone */
	c->n_inflight++;
	if (done > c->last_done)
		c->last_done = done;
	/* a write completes when its data is written, like a read when its
	 * data is back (not posted: docs/dram.md "Write buffer") */
	if (eng_schedule(d->e, done, EV_PRI_COMPLETE, &c->u, EV_DONE, req))
		return NPU_ENOMEM;
	return space_freed(c);
}

/* ACT at t: the row opens; column commands after tRCD, PRE after tRAS. */
static void issue_act(struct chan *c, struct burst *e, int64_t t)
{
	dram *d = c->d;
	struct bank *b = &c->banks[e->bi];
	struct rank *rk = &c->ranks[e->rank];

	b->row = e->row;
	b->hits = 0;
	b->col_ok = t + d->t.rcd;
	bank_dirty(c, e->bi);
	b->pre_ok = max64(b->pre_ok, t + d->t.ras);
	rk->last_act = t;
	c->grp[e->rg].last_act = t;
	rk->faw[rk->faw_i] = t;         /* overwrite the oldest of four */
	rk->faw_i = (rk->faw_i + 1) & 3;
	group_floors(c, e->rg);
	rank_floors(c, rk);
	cmd_slot(c, t + 1);
	cmd_log(c, DRAM_CMD_ACT, e, t);
	e->did_act = 1;
	c->u.ctr[CTR_DRAM_ACTIVATES]++;
}

/* PRE at t: the bank closes; the next ACT waits tRP. */
static void issue_pre(struct chan *c, struct burst *e, int64_t t)
{
	dram *d = c->d;
	struct bank *b = &c->banks[e->bi];

	b->row = -1;
	b->act_ok = max64(b->act_ok, t + d->t.rp);
	cmd_slot(c, t + 1);
	e->did_pre = 1;
	bank_dirty(c, e->bi);
	cmd_log(c, DRAM_CMD_PRE, e, t);
	c->u.ctr[CTR_DRAM_PRECHARGES]++;
}

/*
 * The wake: issue every command that can issue by the end of this core
 * cycle, in dcycle order, then sleep until the next one (or until the next
 * arrival if both queues are empty).  Only commands and arrivals change
 * what pick() returns (completions do not), so when no arrival touched the
 * decision the wake was scheduled for, that decision is reused.
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
	while (chan_queued(c) > 0) {
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
			cmd_slot(c, best.t + 1);
			continue;
		}
		switch (best.kind) {
		case CMD_COL:
			rc = issue_col(c, best.cls, best.s, best.t);
			if (rc)
				return rc;
			break;
		case CMD_ACT:
			issue_act(c, &c->qs[best.cls].slot[best.s], best.t);
			break;
		default:
			issue_pre(c, &c->qs[best.cls].slot[best.s], best.t);
			break;
		}
	}
	return 0;
}

/*
 * A burst arrived (slot x, already queued; cls_before is what sel_class
 * said before).  If it changed the class served, any burst of the new
 * class may be ready: run the scheduler now.  If it joined the other class
 * or the overflow, the pending decision stands.  Otherwise only its bank's
 * candidate can have changed: if the pending decision is about another
 * bank, the bank's new candidate either beats it (and becomes the decision)
 * or not, exactly as a full pick() would find; else the decision is void
 * and the wake is moved to a lower bound of the burst's own command.
 */
static int arrival_wake(struct chan *c, int cls, uint32_t x, int sched,
			int cls_before)
{
	dram *d = c->d;
	struct queue *q = &c->qs[cls];
	const struct burst *e = &q->slot[x];
	const struct bank *b = &c->banks[e->bi];
	int64_t t;

	/* the drain state follows every arrival and every decision; a class
	 * the controller switches to because of this arrival cannot act
	 * before the arrival itself */
	if (sel_class(c, &c->draining) != cls_before) {
		c->cache_ok = 0;
		cmd_slot(c, max64(c->cmd_free, e->arrive_d));
		return chan_wake(c, eng_now(d->e));
	}
	if ((cls != cls_before || !sched) && c->wake_at != CYCLE_MAX)
		return 0;       /* not considered by the next decision */
	if (c->cache_ok && c->cached.refresh_rank < 0 &&
	    c->cached.bi != e->bi && d->sched == SCHED_FRFCFS) {
		struct cand nb = c->cached;

		nb.kind = CMD_NONE;
		bank_offer(c, q, e->bi, &nb);
		if (nb.kind == CMD_NONE ||
		    !better(&c->cached, nb.kind, nb.t, nb.seq, 1))
			return 0;
		refresh_check(c, &nb);
		c->cached = nb;
		return chan_wake(c, d_to_core(d, nb.t));
	}
	/* The arrival may change pick()'s answer: the cached decision of the
	 * pending wake is void; wake no later than the burst's own command
	 * could issue (its bank's constraint and its rank and group floor). */
	c->cache_ok = 0;
	if (b->row == e->row)
		t = max64(b->col_ok, floor_of(c, e->rg, e->rank,
					      e->write ? FL_WR : FL_RD));
	else if (b->row < 0)
		t = max64(b->act_ok, floor_of(c, e->rg, e->rank, FL_ACT));
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
		       int write, cycle_t now)
{
	dram *d = c->d;
	cycle_t done;
	/* Doubles are fine here: the ideal mode has no discrete DRAM clock,
	 * and the same inputs still give the same results bit for bit. */
	double start, end;

	if (now != c->memo_now || !c->memo_bytes) {
		c->memo_now = now;
		c->memo_now_ns = (double)now / d->clock_ghz;
	}
	if (bytes != c->memo_bytes) {
		c->memo_bytes = bytes;
		c->memo_pipe_ns = (double)bytes / d->ideal_bw_ch;
	}
	start = c->memo_now_ns;
	if (c->pipe_free_ns > start)
		start = c->pipe_free_ns;
	c->pipe_free_ns = start + c->memo_pipe_ns;
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

/* Queue one burst of request ri at loc in its channel and wake it. */
static int queue_burst(dram *d, uint32_t ri, const struct dram_loc *loc,
		       uint32_t part, int write)
{
	cycle_t now = eng_now(d->e);
	struct chan *c = &d->ch[loc->channel];
	int was_idle = chan_queued(c) == 0 && c->n_inflight == 0, rc, sched;
	int cls_before;
	uint32_t x;
	struct burst b;

	if (c->first_arrive == CYCLE_MAX)
		c->first_arrive = now;
	if (d->ideal) {
		rc = ideal_burst(c, ri, part, write, now);
		if (rc)
			return rc;
		busy_update(c, was_idle);
		return 0;
	}
	memset(&b, 0, sizeof(b));
	b.req = ri;
	b.bytes = part;
	b.rank = (uint16_t)loc->rank;
	b.bank = (uint16_t)loc->bank;
	b.bi = (uint16_t)(loc->rank * d->banks + loc->bank);
	b.rg = (uint16_t)(loc->rank * d->groups + loc->group);
	b.row = (int64_t)loc->row;
	b.arrive_c = now;
	b.arrive_d = core_to_d(d, now);
	b.write = (uint8_t)(write != 0);
	/* empty queues mean no wake was pending: settle the refreshes that
	 * fell due while the channel slept */
	if (chan_queued(c) == 0)
		refresh_catch_up(c, b.arrive_d);
	cls_before = sel_class(c, &c->draining);
	rc = q_push(c, &c->qs[b.write], &b, &x, &sched);
	if (rc)
		return rc;
	busy_update(c, was_idle);
	return arrival_wake(c, b.write, x, sched, cls_before);
}

/*
 * Split into bursts, admit all or nothing, queue each burst in its channel
 * and make sure each touched channel wakes no later than its new burst's
 * first command could issue.
 */
/* Bursts of one request whose decoded location the admission keeps for
 * the queuing (a DMA burst of 64 B is two of LPDDR5's 32 B). */
#define DRAM_LOC_KEEP 8

/*
 * What the admission of a multi-burst request of at most DRAM_LOC_KEEP
 * bursts needs - its bursts' locations and how many land in each channel
 * - depends on its address and length only.  A request refused for lack
 * of room is retried, unchanged, each time room appears (datacenter.cfg's
 * BERT layer: ten refusals per request), so the decoding is kept in a
 * small direct-mapped memo instead of being redone per attempt.
 */
#define DRAM_ADM_SLOTS 64
struct adm {
	uint64_t addr;                  /* request, bytes 0 = empty */
	uint32_t bytes;
	int n;                          /* channels it touches */
	int ch[DRAM_LOC_KEEP];          /* ... in increasing order */
	uint32_t cnt[DRAM_LOC_KEEP];    /* its bursts in each */
	struct dram_loc loc[DRAM_LOC_KEEP]; /* every burst's location */
};

/* The memo entry of request [addr, addr + bytes), bursts q0..q1 (at most
 * DRAM_LOC_KEEP), decoded on a miss; NULL when out of memory. */
static const struct adm *adm_get(dram *d, uint64_t addr, uint32_t bytes,
				 uint64_t q0, uint64_t q1)
{
	struct adm *a;
	uint64_t q;
	int i, k;

	if (!d->adm && !(d->adm = calloc(DRAM_ADM_SLOTS, sizeof(*d->adm))))
		return NULL;
	a = &d->adm[(q0 ^ (q0 >> 6)) & (DRAM_ADM_SLOTS - 1)];
	if (a->bytes == bytes && a->addr == addr)
		return a;
	a->addr = addr;
	a->bytes = bytes;
	a->n = 0;
	for (q = q0; q <= q1; q++) {
		struct dram_loc *l = &a->loc[q - q0];

		locate_burst(d, q, l);
		/* insert into the channel list, kept sorted */
		for (i = 0; i < a->n && a->ch[i] < l->channel; i++)
			;
		if (i < a->n && a->ch[i] == l->channel) {
			a->cnt[i]++;
			continue;
		}
		for (k = a->n; k > i; k--) {
			a->ch[k] = a->ch[k - 1];
			a->cnt[k] = a->cnt[k - 1];
		}
		a->ch[i] = l->channel;
		a->cnt[i] = 1;
		a->n++;
	}
	return a;
}

int dram_request(dram *d, uint64_t addr, uint32_t bytes, int write,
		 dram_done_fn done, void *ctx, uint64_t tag)
{
	uint64_t q, q0, q1, end = addr + bytes;
	struct dram_loc loc, locs[DRAM_LOC_KEEP]; /* the first bursts' */
	int cls = write ? CL_WRITE : CL_READ;
	uint32_t ri;
	int i, rc;

	/* Callers (the DMA) check ranges against dram_size() first with a
	 * message naming the instruction; these are the model's own guards.
	 * end < addr catches a wrap of addr + bytes past 2^64. */
	if (bytes == 0)
		return NPU_ERANGE;
	if (end < addr || end > d->size)
		return NPU_EFAULT;
	q0 = burst_of(d, addr);
	q1 = burst_of(d, end - 1);
	if (q0 == q1) {
		/* one burst (the common case): decode once (the ideal mode
		 * needs its channel only) */
		struct queue *qq;

		if (d->ideal)
			loc.channel = dram_channel(d, addr);
		else
			locate_burst(d, q0, &loc);
		qq = &d->ch[loc.channel].qs[cls];
		if (!d->ideal && qq->n >= qq->depth) {
			d->ch[loc.channel].u.ctr[CTR_DRAM_REJECTED]++;
			return DRAM_FULL;
		}
		rc = req_alloc(d, &ri);
		if (rc)
			return rc;
		d->reqs[ri].done = done;
		d->reqs[ri].ctx = ctx;
		d->reqs[ri].tag = tag;
		d->reqs[ri].remaining = 1;
		return queue_burst(d, ri, &loc, bytes, write);
	}
	if (!d->ideal && q1 - q0 < DRAM_LOC_KEEP) {
		/* admission: all bursts fit, or the class's queue is empty
		 * (the first channel in index order that lacks room counts
		 * the refusal) */
		const struct adm *a = adm_get(d, addr, bytes, q0, q1);

		if (!a)
			return NPU_ENOMEM;
		for (i = 0; i < a->n; i++) {
			struct queue *qq = &d->ch[a->ch[i]].qs[cls];

			if (qq->n > 0 && qq->n + a->cnt[i] > qq->depth) {
				d->ch[a->ch[i]].u.ctr[CTR_DRAM_REJECTED]++;
				return DRAM_FULL;
			}
		}
		memcpy(locs, a->loc, (size_t)(q1 - q0 + 1) * sizeof(*locs));
	} else if (!d->ideal) {
		/* the same for a longer request, decoded each time */
		memset(d->need, 0, (size_t)d->n_ch * sizeof(*d->need));
		for (q = q0; q <= q1; q++) {
			locate_burst(d, q, &loc);
			if (q - q0 < DRAM_LOC_KEEP)
				locs[q - q0] = loc;
			d->need[loc.channel]++;
		}
		for (i = 0; i < d->n_ch; i++) {
			struct queue *qq = &d->ch[i].qs[cls];

			if (d->need[i] && qq->n > 0 &&
			    qq->n + d->need[i] > qq->depth) {
				d->ch[i].u.ctr[CTR_DRAM_REJECTED]++;
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

		if (lo < addr)
			lo = addr;
		if (hi > end)
			hi = end;
		if (d->ideal)
			loc.channel = dram_channel(d, q * d->burst_bytes);
		else if (q - q0 < DRAM_LOC_KEEP)
			loc = locs[q - q0]; /* decoded for the admission */
		else
			locate_burst(d, q, &loc);
		rc = queue_burst(d, ri, &loc, (uint32_t)(hi - lo), write);
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

	if (chan_queued(c) == 0 && c->n_inflight == 0)
		return 0;
	snprintf(buf, n, "%u reads and %u writes queued, %u in flight, no "
		 "wake pending", c->qs[CL_READ].n, c->qs[CL_WRITE].n,
		 c->n_inflight);
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
	int i, k;

	if (!d)
		return;
	for (i = 0; d->ch && i < d->n_ch; i++) {
		for (k = 0; k < 2; k++) {
			struct queue *q = &d->ch[i].qs[k];

			free(q->slot);
			free(q->head);
			free(q->tail);
			free(q->act);
			free(q->act_pos);
			free(q->cand);
		}
		free(d->ch[i].banks);
		free(d->ch[i].grp);
		for (k = 0; d->ch[i].ranks && k < d->ranks; k++)
			free(d->ch[i].ranks[k].ref_done);
		free(d->ch[i].ranks);
		free(d->ch[i].hist);
		free(d->ch[i].gfl);
		free(d->ch[i].rfl);
	}
	free(d->ch);
	free(d->adm);
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
 * The decoder of dram.mapping: parts, radices, and each part's weight in
 * its field (parts further right hold a field's lower digits).  arch_load
 * has checked the string against this geometry, so an error here is a
 * config the loader let through.
 */
static int setup_mapping(dram *d, const struct arch *a)
{
	uint64_t count[DRAM_F_N], radix[DRAM_MAP_MAX_PARTS], w[DRAM_F_N];
	struct dram_map m;
	char err[160];
	int i, n_ch_parts = 0;

	count[DRAM_F_RO] = d->rows;
	count[DRAM_F_RA] = (uint64_t)d->ranks;
	count[DRAM_F_BG] = (uint64_t)d->groups;
	count[DRAM_F_BA] = (uint64_t)d->per_group;
	count[DRAM_F_CH] = (uint64_t)d->n_ch;
	count[DRAM_F_CO] = d->cols;
	if (dram_map_parse(ARCH_S(a, DRAM_MAPPING), &m, err, sizeof(err)) ||
	    dram_map_radices(&m, count, radix, err, sizeof(err)))
		return NPU_ECONFIG;
	d->n_parts = m.n;
	for (i = 0; i < DRAM_F_N; i++)
		w[i] = 1;
	for (i = m.n - 1; i >= 0; i--) {
		int sh = 0;

		d->part_field[i] = m.p[i].field;
		d->part_radix[i] = radix[i];
		d->part_weight[i] = w[m.p[i].field];
		w[m.p[i].field] *= radix[i];
		while (sh < 63 && ((uint64_t)1 << sh) < radix[i])
			sh++;
		d->part_shift[i] = (int8_t)(((uint64_t)1 << sh) == radix[i] ?
					    sh : -1);
		n_ch_parts += m.p[i].field == DRAM_F_CH;
		if (radix[i] > 1)
			d->step[d->n_step++] = (uint8_t)i;
	}
	/* channel-major: each channel owns a contiguous share of dram.bytes */
	d->ch_top = m.p[0].field == DRAM_F_CH && n_ch_parts == 1;
	/* dram_channel's bit fields, least significant part first */
	{
		int pos = 0, top = -1;

		for (i = 0; i < m.n; i++)
			if (m.p[i].field == DRAM_F_CH) {
				top = i;
				break;
			}
		d->n_chp = 0;
		for (i = m.n - 1; i >= 0 && i >= top && !d->ch_top; i--) {
			if (m.p[i].field == DRAM_F_CH) {
				d->chp_pos[d->n_chp] = (uint8_t)pos;
				d->chp_radix[d->n_chp] = d->part_radix[i];
				d->chp_weight[d->n_chp++] = d->part_weight[i];
			}
			if (i == top)
				break;
			if (d->part_shift[i] < 0 || pos + d->part_shift[i] > 63) {
				d->n_chp = -1; /* a mixed radix below it */
				break;
			}
			pos += d->part_shift[i];
		}
	}
	/* channel_of's runs: the channel is q / top_span (channel-major), a
	 * function of q's bits from its lowest part's up, or of all of q
	 * (n_chp -1); none of them without a channel part (n_chp 0) */
	if (d->n_ch == 1)
		d->ch_run = 0;
	else if (d->ch_top)
		d->ch_run = d->top_span;
	else if (d->n_chp >= 0)
		d->ch_run = d->n_chp ? (uint64_t)1 << d->chp_pos[0] : 0;
	else
		d->ch_run = 1;
	return 0;
}

/*
 * Geometry, clock ratio and timing from the resolved config.  arch_load
 * has already filled every "0 = from preset" key and checked the cross-key
 * rules (row_bytes a multiple of a burst, dram.bytes within the devices,
 * the mapping), so only values that would break the arithmetic are
 * re-checked here.
 */
static int setup_geometry(dram *d, const struct arch *a)
{
	int64_t bus = key_i(a, P_DRAM_BUS_BITS), bl = key_i(a, P_DRAM_BL);
	int64_t beats = key_i(a, P_DRAM_BEATS_PER_TCK);
	int64_t row_bytes = key_i(a, P_DRAM_ROW_BYTES);
	int64_t wq = ARCH_I(a, DRAM_WQUEUE);
	double tck = a->v[P_DRAM_TCK].f;
	uint64_t cf, tf, g, bursts;

	if (bus < 8 || bl < 1 || beats < 1 || tck <= 0)
		return NPU_ECONFIG;
	d->n_ch = (int)ARCH_I(a, DRAM_CHANNELS);
	d->ranks = (int)key_i(a, P_DRAM_RANKS);
	d->banks = (int)key_i(a, P_DRAM_BANKS);
	d->groups = (int)key_i(a, P_DRAM_BANK_GROUPS);
	d->rows = (uint64_t)key_i(a, P_DRAM_ROWS);
	if (d->n_ch < 1 || d->ranks < 1 || d->banks < 1 || d->rows < 1 ||
	    d->groups < 1 || d->banks % d->groups)
		return NPU_ECONFIG;
	d->per_group = d->banks / d->groups;
	/* Bytes per burst: bus width in bytes x burst length in beats, e.g.
	 * DDR4 x64 BL8 = 64 B, LPDDR5 x16 BL16 = 32 B, HBM3 x32 BL8 = 32 B. */
	d->burst_bytes = (uint32_t)(bus / 8 * bl);
	d->burst_shift = d->burst_bytes && !(d->burst_bytes & (d->burst_bytes - 1))
			 ? __builtin_ctz(d->burst_bytes) : -1;
	d->cols = (uint64_t)row_bytes / d->burst_bytes;
	if (d->cols < 1)
		d->cols = 1;
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
	d->t.rtp = key_i(a, P_DRAM_TRTP);
	d->t.faw = key_i(a, P_DRAM_TFAW);
	d->t.wtr_s = key_i(a, P_DRAM_TWTR);
	d->t.wtr_l = key_i(a, P_DRAM_TWTR_L);
	d->t.rrd_s = key_i(a, P_DRAM_TRRD);
	d->t.rrd_l = key_i(a, P_DRAM_TRRD_L);
	d->t.ccd_s = key_i(a, P_DRAM_TCCD);
	d->t.ccd_l = key_i(a, P_DRAM_TCCD_L);
	d->t.ccd_l_wr = key_i(a, P_DRAM_TCCD_L_WR);
	d->t.refi = key_i(a, P_DRAM_TREFI);
	d->t.rfc = key_i(a, P_DRAM_TRFC);
	d->t.rfc_pb = key_i(a, P_DRAM_TRFC_PB);
	/* a burst holds the bus BL / beats cycles (BL/2 for DDR) */
	d->t.burst = (bl + beats - 1) / beats;
	if (d->t.refi < 1)
		return NPU_ECONFIG;
	d->per_bank_ref = ARCH_E(a, DRAM_REFRESH) == ARCH_DRAM_REFRESH_PER_BANK;
	d->ref_units = 1;
	if (d->per_bank_ref) {
		int64_t pbb = key_i(a, P_DRAM_REFPB_BANKS);

		if (pbb < 1 || d->banks % pbb)
			return NPU_ECONFIG;
		d->ref_units = (int)(d->banks / pbb);
	}
	/* watermarks in entries; low < high so that a drain always ends */
	d->whigh = (uint32_t)(wq * ARCH_I(a, DRAM_WHIGH) / 100);
	if (d->whigh < 1)
		d->whigh = 1;
	d->wlow = (uint32_t)(wq * ARCH_I(a, DRAM_WLOW) / 100);
	if (d->wlow >= d->whigh)
		d->wlow = d->whigh - 1;
	d->hit_cap = (uint32_t)ARCH_I(a, DRAM_HIT_CAP);
	return setup_mapping(d, a);
}

/* An empty queue of 'depth' schedulable entries over n_banks banks; the
 * pool starts at max(depth, 64) slots and grows only for requests larger
 * than the queue (q_push). */
static int queue_init(struct queue *q, uint32_t depth, uint32_t n_banks)
{
	uint32_t k;

	q->depth = depth;
	q->cap = depth > 64 ? depth : 64;
	q->slot = malloc(q->cap * sizeof(*q->slot));
	q->head = malloc(n_banks * sizeof(*q->head));
	q->tail = malloc(n_banks * sizeof(*q->tail));
	q->act = malloc(n_banks * sizeof(*q->act));
	q->act_pos = malloc(n_banks * sizeof(*q->act_pos));
	q->cand = calloc(n_banks, sizeof(*q->cand));
	if (!q->slot || !q->head || !q->tail || !q->act || !q->act_pos ||
	    !q->cand)
		return NPU_ENOMEM;
	for (k = 0; k < q->cap; k++)
		q->slot[k].next = k + 1 < q->cap ? k + 1 : NIL;
	for (k = 0; k < n_banks; k++)
		q->head[k] = q->tail[k] = NIL;
	q->free = 0;
	q->ovf_head = q->ovf_tail = NIL;
	return 0;
}

/* One channel in its power-up state: every bank precharged, no history. */
static int setup_channel(dram *d, const struct arch *a, int i)
{
	struct chan *c = &d->ch[i];
	uint32_t rd = (uint32_t)ARCH_I(a, DRAM_QUEUE);
	uint32_t wd = (uint32_t)ARCH_I(a, DRAM_WQUEUE);
	size_t n_grp = (size_t)d->ranks * (size_t)d->groups;
	int r, k;

	c->d = d;
	c->id = i;
	if (queue_init(&c->qs[CL_READ], rd, (uint32_t)(d->ranks * d->banks)) ||
	    queue_init(&c->qs[CL_WRITE], wd, (uint32_t)(d->ranks * d->banks)))
		return NPU_ENOMEM;
	c->banks = calloc((size_t)d->ranks * (size_t)d->banks,
			  sizeof(*c->banks));
	c->grp = calloc(n_grp, sizeof(*c->grp));
	c->ranks = calloc((size_t)d->ranks, sizeof(*c->ranks));
	c->hist = calloc(HIST_N, sizeof(*c->hist));
	c->gfl = calloc(n_grp * FL_N, sizeof(*c->gfl));
	c->rfl = calloc((size_t)d->ranks * FL_N, sizeof(*c->rfl));
	if (!c->banks || !c->grp || !c->ranks || !c->hist || !c->gfl ||
	    !c->rfl)
		return NPU_ENOMEM;
	for (k = 0; k < d->ranks * d->banks; k++)
		c->banks[k].row = -1;
	for (k = 0; k < (int)n_grp; k++) {
		c->grp[k].last_act = T_NEVER;
		c->grp[k].last_col = T_NEVER;
		c->grp[k].last_wr = T_NEVER;
		c->grp[k].wr_end = T_NEVER;
		group_floors(c, k);
	}
	for (r = 0; r < d->ranks; r++) {
		struct rank *rk = &c->ranks[r];

		rk->last_act = T_NEVER;
		for (k = 0; k < 4; k++)
			rk->faw[k] = T_NEVER;
		rk->last_col = T_NEVER;
		rk->wr_end = T_NEVER;
		rank_floors(c, rk);
		/* staggered: rank r's refreshes are tREFI x r / ranks later
		 * than rank 0's, whose first is due one interval after
		 * power-up */
		rk->ref_base = d->t.refi * r / d->ranks;
		rk->ref_seq = 0;
		rk->ref_due = ref_at(d, rk, 0);
		rk->ref_left = d->ref_units;
		rk->ref_done = calloc((size_t)d->ref_units, 1);
		if (!rk->ref_done)
			return NPU_ENOMEM;
	}
	c->last_bus_rank = -1;
	c->wake_at = CYCLE_MAX;
	c->first_arrive = CYCLE_MAX;
	chan_floors(c);
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
 * All channels live in one array owned by the dram, which its creator
 * frees with dram_free; the engine only dispatches events to them.
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
	d->size = (uint64_t)ARCH_I(a, DRAM_BYTES);
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
		rc = setup_channel(d, a, i);
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
				 "dram: unusable geometry, timing or mapping "
				 "(bus_bits, burst_length, tck_ns, ranks, banks, "
				 "bank_groups, rows, trefi, refpb_banks or "
				 "mapping)" :
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
	int i, lo = ch < 0 ? 0 : ch, hi = ch < 0 ? d->n_ch : ch + 1, k;
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
		for (k = 0; k < LS_N; k++) {
			st->lat_state_sum[k] += c->ls_sum[k];
			st->lat_state_n[k] += c->ls_n[k];
		}
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


void dram_set_cmd_log(dram *d, dram_cmd_fn fn, void *ctx)
{
	d->log = fn;
	d->log_ctx = ctx;
}

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

/* The channel of addr, its node, and the end of the aligned run of
 * bursts the channel holds whole (ch_run): a request's pieces are as
 * many calls as channel changes, not bursts. */
static int dram_t_channel_of(const void *t, uint64_t addr, int *node,
			     uint64_t *end)
{
	const struct dram *d = t;
	int ch = dram_channel(d, addr);
	uint64_t q = burst_of(d, addr), r = d->ch_run;

	*node = d->node[ch];
	if (!r)
		*end = UINT64_MAX;
	else    /* (a power of two but channel-major: a mask) */
		*end = (r & (r - 1) ? (q / r + 1) * r : (q | (r - 1)) + 1) *
		       d->burst_bytes;
	return ch;
}

static const struct mem_target_ops dram_target_ops = {
	.attach = dram_t_attach,
	.recv = dram_t_recv,
	.want_retry = dram_t_want_retry,
	.info = dram_t_info,
	.check = NULL,
	.channel_of = dram_t_channel_of,
	.alone_cycles = NULL,
	.conflicts = NULL,
};

struct mem_target dram_target(dram *d)
{
	struct mem_target t = { &dram_target_ops, d };

	return t;
}
