/*
 * dram.h - DRAM channels with banks, rows, timing and a scheduler, or an
 * ideal fixed-latency / fixed-bandwidth mode (dram.mode).
 *
 * Requests are bursts of up to the DMA burst size, addressed in the chip's
 * flat DRAM space (dram.bytes).  The address mapping (dram.mapping) picks the
 * channel, rank, bank, row and column.  Time inside is the DRAM command
 * clock (tCK); requests arrive and complete in core cycles, converted at the
 * boundary by rounding up (a completion is never seen early).
 */
#ifndef NPU_DRAM_H
#define NPU_DRAM_H

#include <stdint.h>

#include "../../arch/arch.h"
#include "../engine/engine.h"
#include "port.h"

typedef struct dram dram;

/* Called at the completion cycle of a request (EV_PRI_COMPLETE). */
typedef int (*dram_done_fn)(void *ctx, uint64_t tag, cycle_t when);

/*
 * Registers one unit per channel ("dram.ch0") with the engine for its
 * events; the caller owns the dram and frees it with dram_free (the engine
 * does not: its channels are parts of one model).  Free it after the last
 * event has run (eng_run returned).
 */
dram *dram_new(eng *e, const struct arch *a);
void dram_free(dram *d);
/*
 * The DRAM as a target of the transaction protocol (port.h): a refused
 * request (every channel queue it needs is full) returns MEM_RETRY, and
 * mem_want_retry registers the port for one retry when space frees;
 * mem_channel_of names an address's channel and the NoC node the config
 * places it on (noc.dram_nodes).
 */
struct mem_target dram_target(dram *d);
uint8_t *dram_data(dram *d);
uint64_t dram_size(const dram *d);

/*
 * Queue a request at the current cycle.  Returns 0, or NPU_EAGAIN-like
 * DRAM_FULL when the target channel's queue is full (the read queue for a
 * read, the write buffer for a write): then the caller waits for its
 * 'retry' callback (called once a slot frees) and tries again.
 *
 * A request of any size is split at dram_burst_bytes() boundaries into
 * bursts, each queued in the channel the mapping gives it; it is accepted
 * only if every channel it touches has room for all of its bursts there (a
 * request larger than a whole queue is accepted by an empty queue and
 * fills it as earlier bursts issue).  done() runs once, at the core cycle
 * after the last burst's last data beat (a write is not posted: it is
 * done when its data is written, not when it enters the write buffer).  [addr, addr+bytes) must lie
 * inside dram_size() and bytes must be > 0 (else NPU_EFAULT / NPU_ERANGE:
 * callers check ranges first).  The ideal mode never refuses.
 */
#define DRAM_FULL 1
int dram_request(dram *d, uint64_t addr, uint32_t bytes, int write,
		 dram_done_fn done, void *ctx, uint64_t tag) NPU_WUR;
/*
 * One retry hook per requestor context; called when any queue frees.  The
 * hook is one-shot (register again after another DRAM_FULL) and runs in an
 * event of its own (EV_PRI_WAKE), never inside dram_request.
 */
int dram_on_space(dram *d, dram_done_fn retry, void *ctx) NPU_WUR;

/*
 * Command hook for tests and debugging: called at every ACT, PRE and
 * column command (READ or WRITE: write says which) with its channel, rank,
 * bank and DRAM cycle (tCK).  Refreshes are not reported.  NULL turns it
 * off; off, it costs one branch per command.
 */
enum { DRAM_CMD_ACT, DRAM_CMD_PRE, DRAM_CMD_COL };
typedef void (*dram_cmd_fn)(void *ctx, int ch, int cmd, int rank, int bank,
			    int write, int64_t dcycle);
void dram_set_cmd_log(dram *d, dram_cmd_fn fn, void *ctx);

/* Peak bytes/s of all channels (for reports). */
double dram_peak_bytes_per_s(const dram *d);

/* ---- geometry (NoC placement, DMA, tests) -------------------------------*/

/* Where a byte address lives under dram.mapping. */
struct dram_loc {
	int channel;        /* channel index, 0..dram_channels()-1 */
	int rank;           /* rank within the channel */
	int group;          /* bank group within the rank */
	int bank;           /* bank within the rank, all groups counted:
			     * group x (banks / bank_groups) + bank in group */
	uint64_t row;       /* row within the bank */
	uint64_t col;       /* burst-sized column within the row */
};
void dram_locate(const dram *d, uint64_t addr, struct dram_loc *loc);
/* dram_locate's channel alone, cheaper (the ideal mode and the target's
 * channel_of, which the network splits requests by, need nothing else). */
int dram_channel(const dram *d, uint64_t addr);
/* The inverse: address of the first byte of the burst at loc (group is
 * implied by bank).  dram_locate(dram_address(l)) == l for every l inside
 * dram.bytes. */
uint64_t dram_address(const dram *d, const struct dram_loc *loc);
int dram_channels(const dram *d);
/* Bytes one burst moves: bus_bits / 8 x burst_length (timed mode); the
 * channel-interleave granule in both modes. */
uint32_t dram_burst_bytes(const dram *d);
/* The unit of channel ch ("dram.ch0"), for counters and tests. */
struct unit *dram_channel_unit(dram *d, int ch);
/* Bursts of channel ch queued or in flight now (trace counters). */
uint32_t dram_channel_queued(const dram *d, int ch);
/* Core cycles -> DRAM command cycles and back (timed mode; tests, docs). */
uint64_t dram_core_to_dcycle(const dram *d, cycle_t c);   /* rounds up */
cycle_t dram_dcycle_to_core(const dram *d, uint64_t dc);  /* rounds up */

/* ---- statistics ------------------------------------------------------------*/

/* Totals of one channel, or of all channels (ch = -1). */
struct dram_stats {
	uint64_t reads, writes;          /* bursts served */
	uint64_t read_bytes, write_bytes;/* requested bytes moved */
	uint64_t row_hits, row_misses, row_conflicts; /* per burst */
	uint64_t activates, precharges, refreshes;    /* commands */
	uint64_t rejected;               /* dram_request calls refused */
	uint64_t lat_n;                  /* read bursts with a latency sample */
	double lat_avg;                  /* mean read latency, core cycles */
	uint64_t lat_p99;                /* 99th percentile, core cycles */
	uint64_t lat_max;                /* largest read latency */
	/* read latency sums and counts by row-buffer outcome: hit, miss
	 * (closed bank), conflict (another row open); core cycles */
	uint64_t lat_state_sum[3], lat_state_n[3];
	cycle_t first_arrive;            /* first request (CYCLE_MAX if none) */
	cycle_t last_done;               /* last completion */
};
void dram_get_stats(const dram *d, int ch, struct dram_stats *st);

/* ---- synthetic traffic (npusim dram, tests) -------------------------------*/

enum dram_pattern {
	DRAM_PAT_STREAM,    /* consecutive addresses, wrapping at dram.bytes */
	DRAM_PAT_RANDOM,    /* uniform random request-aligned addresses */
	DRAM_PAT_MIXED,     /* each request: stream or random with p = 1/2 */
	DRAM_PAT_COPY,      /* read one stream, write another half a DRAM
			     * further on (same banks, other rows); 50/50 */
	DRAM_PAT_CHASE,     /* pointer chase: random reads, one outstanding */
	DRAM_PAT_N
};
/* Names of the patterns ("stream", ..., "pointer-chase"), index = enum. */
extern const char *const dram_pattern_names[DRAM_PAT_N];

struct dram_bench_cfg {
	enum dram_pattern pattern;
	int read_pct;       /* percent of requests that read (0..100) */
	uint64_t requests;  /* requests to issue */
	uint32_t bytes;     /* bytes per request; 0 = one DRAM burst */
	uint64_t seed;      /* random generator seed (deterministic) */
	double rate_gbps;   /* offered load, GB/s: request i is made at
			     * i x bytes / rate; 0 = open loop (as many as
			     * the queues accept) */
	uint32_t outstanding; /* most requests in flight, 0 = no limit */
};

struct dram_bench_res {
	struct dram_stats st;  /* DRAM-side totals */
	cycle_t cycles;        /* first issue to last completion, core cycles */
	uint64_t bytes;        /* bytes moved */
	double gbps;           /* achieved GB/s (1e9 bytes/s) */
	double peak_gbps;      /* dram_peak_bytes_per_s / 1e9 */
	double pct_peak;       /* 100 * gbps / peak_gbps */
	double offered_gbps;   /* cfg rate_gbps (0 = open loop) */
	double lat_avg_ns;     /* st.lat_avg in ns: per read burst, arrival
				* at the DRAM to last data beat */
	double lat_p99_ns;     /* st.lat_p99 in ns */
	double wait_avg_ns;    /* rate mode: average time a request waited at
				* the source (made, not yet accepted) */
	double total_avg_ns;   /* rate mode: read requests, made to done
				* (source wait + DRAM latency); else 0 */
	double row_hit_rate;   /* row_hits / (hits + misses + conflicts) */
};

/*
 * Build an engine and the DRAM of config a, drive it (open loop, at a rate,
 * or with a limit on requests in flight) and measure.  Returns 0 or NPU_E*
 * (details in dg).
 */
int dram_bench_run(const struct arch *a, const struct dram_bench_cfg *cfg,
		   struct dram_bench_res *res, struct diag *dg) NPU_WUR;

/*
 * Latency against offered load: runs cfg at step, 2 step, ... percent of
 * peak (at most 100 %, at most max points), stopping after the first point
 * where the DRAM no longer keeps up (achieved below 95 % of offered).
 * Fills out[0 .. *n-1].
 */
int dram_bench_sweep(const struct arch *a, const struct dram_bench_cfg *cfg,
		     double step_pct, struct dram_bench_res *out, int max,
		     int *n, struct diag *dg) NPU_WUR;

#endif
