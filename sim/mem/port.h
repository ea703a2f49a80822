/*
 * port.h - the one memory transaction protocol between requesters (DMA
 * engines, the matrix engine, the vector unit) and memories (SRAM banks,
 * DRAM channels; next, NoC interfaces), in the spirit of gem5's timing
 * ports.
 *
 *   requester                          target (sram, dram, noc, ...)
 *   ---------                          ------
 *   mem_bind(port, target, "dma0")  -> ops->attach: a requester id
 *   mem_send(port, req)             -> ops->recv: MEM_OK (accepted) or
 *                                      MEM_RETRY (refused, nothing kept)
 *   port->retry(ctx, when)          <- once after mem_want_retry, when the
 *                                      target has room again (own event)
 *   req->done(ctx, tag, when)       <- at the completion cycle
 *
 * A requester holds only struct mem_port values; it never sees what kind of
 * memory answers.  The chip binds every port when it is built (sim/chip.c),
 * so a network, a crossbar or an address interleaver can be put between any
 * two ends by binding the port to that instead.
 *
 * Fast-forward mode.  Besides the timing mode above, a target may offer a
 * second way in, as gem5 offers atomic access beside timing access on every
 * port: a requester that knows a stretch of its accesses meets nobody (no
 * other unit can act before it ends: eng_horizon) hands the target the
 * whole stretch, which accounts it exactly as the events would have
 * (counters, arbitration state, queue positions) without an event or a
 * done call.  The ops are grouped in struct mem_ff_ops (target ops' ff;
 * NULL: the target has no such mode, and every stretch runs the timing
 * way) and reached only through the mem_ff_* calls below.  Today the SRAM
 * has it and the matrix engine uses it (docs/timing.md, "Simulation
 * cost").
 *
 * Invariants:
 *  - a target calls done exactly once per accepted request, never from
 *    inside recv (always in an event of its own), and never for a refused
 *    one;
 *  - requests of one port are served in send order by targets that say so
 *    (SRAM: per requester; DRAM: per channel queue with its scheduler);
 *  - the functional bytes (info.data) are the target's own: a requester
 *    copies them at completion, which is when the hardware would deliver
 *    them (docs/timing.md, DMA).
 */
#ifndef NPU_PORT_H
#define NPU_PORT_H

#include <stdint.h>

#include "../../util/diag.h"
#include "../engine/engine.h"

/* recv results beyond 0 (= MEM_OK) and negative NPU_E* codes. */
#define MEM_OK 0
#define MEM_RETRY 1

struct mem_port;

/* Completion of one request, at EV_PRI_COMPLETE of cycle 'when'. */
typedef int (*mem_done_fn)(void *ctx, uint64_t tag, cycle_t when);
/* The target has room again (EV_PRI_WAKE of 'when'); one-shot. */
typedef int (*mem_retry_fn)(void *ctx, cycle_t when);

/* One transaction: bytes at addr in the target's address space. */
struct mem_req {
	uint64_t addr;      /* first byte */
	uint32_t bytes;     /* length, > 0 */
	uint8_t write;      /* 1 = write, 0 = read */
	cycle_t when;       /* earliest cycle it may be served (>= now; SRAM
			       requesters schedule ahead, others send now) */
	mem_done_fn done;   /* completion callback */
	void *ctx;          /* its context */
	uint64_t tag;       /* passed back to done */
	uint64_t mcast;     /* a write to a remote space (MEM_RSPM) going to
			       every core whose bit is set (bit k = core k);
			       0 = the one core the address names.  Other
			       targets ignore it. */
};

/* Remote spaces (MEM_RSPM) name the core in the address bits from this
 * one up: addr = core << MEM_CORE_SHIFT | offset. */
#define MEM_CORE_SHIFT 40

/* What a requester may know of a target without sending anything. */
struct mem_info {
	const char *name;   /* "scratchpad", "accumulator", "dram": messages */
	uint8_t *data;      /* functional contents (backdoor, like gem5's
			       functional accesses) */
	uint64_t size;      /* bytes of the address space */
	int latency;        /* grant -> completion, cycles, when fixed (SRAM);
			       0 when it depends on state (DRAM) */
	uint64_t period;    /* bytes after which an access's cost repeats
			       (banks x bank_width for SRAM); 0 = none */
	int network;        /* requests cross the NoC: a refusal is a NoC
			       stall (stall attribution) */
	uint32_t copies;    /* remote spaces: cores whose copy the address
			       selects (MEM_CORE_SHIFT); size is per copy;
			       data is NULL (use mem_bytes) */
};

/*
 * The fast-forward mode of a target (the top comment): all members set.
 * Every op takes requests that nothing else contends with: the caller has
 * made sure no other unit acts before the last of them completes.
 */
struct mem_ff_ops {
	/* 1 when no requester has an access presented to the target. */
	int (*quiet)(const void *t);
	/* n requests of one cycle (r[i].when, requester ids[i]): MEM_RETRY if
	 * they would contend with each other or one of them takes more than
	 * one cycle alone, else 0, after accounting them as served
	 * (sram_ff_access) when apply is set. */
	int (*cycle)(void *t, const int *ids, const struct mem_req *r, int n,
		     int apply);
	/* n one-cycle accesses of requester id at t0, t0 + every, ...,
	 * access j at addr + j * stride (sram_ff_stream). */
	int (*stream)(void *t, int id, uint64_t addr, int64_t stride,
		      uint32_t bytes, uint64_t n, int write, cycle_t t0,
		      cycle_t every);
	/* Requester id's queue of accesses of several cycles each, running
	 * back to back alone, moved on by k accesses as add[0..k) join it
	 * (k = 0: check it and give the head's completion cycle; MEM_RETRY
	 * if it is no such queue; sram_ff_chain). */
	int (*chain)(void *t, int id, uint64_t k, const struct mem_req *add,
		     cycle_t *done);
	/* The unit whose events the target schedules: a requester that
	 * replaces the events of its own accesses in flight (chain) takes
	 * them as absent when it asks who else may act. */
	const struct unit *(*unit)(const void *t);
};

/* The receiving side; optional members may be NULL. */
struct mem_target_ops {
	/* Register a requester; its id (>= 0) or NPU_E*. */
	int (*attach)(void *t, const char *requester);
	/* Take a request of port p (p->id is its requester id). */
	int (*recv)(void *t, struct mem_port *p, const struct mem_req *r);
	/* Call p->retry once when a refused request may succeed (NULL for a
	 * target that never refuses). */
	int (*want_retry)(void *t, struct mem_port *p);
	void (*info)(const void *t, struct mem_info *out);
	/*
	 * Range and alignment check of an access by the instruction at pc,
	 * with the standard runtime fault message naming the memory's valid
	 * range ("core N pc 0x.. cycle N: error: <who>: ...").  0 or
	 * NPU_EFAULT; d may be NULL.
	 */
	int (*check)(const void *t, struct diag *d, const char *who,
		     uint64_t pc, uint64_t addr, uint64_t bytes, unsigned align);
	/*
	 * Interleaved targets (the DRAM; NULL elsewhere): the channel that
	 * holds addr; *node = the NoC node the channel sits on (-1: none),
	 * *end = the first address after addr that may lie in another
	 * channel (the end of addr's run in its channel).  A network
	 * interface sends each run of one channel to its channel's node.
	 */
	int (*channel_of)(const void *t, uint64_t addr, int *node,
			  uint64_t *end);
	/* Cycles a lone access occupies the target (first to last grant);
	 * requesters that prefetch on deadlines need it (SRAM). */
	uint32_t (*alone_cycles)(const void *t, uint64_t addr, uint32_t bytes);
	/* Cycles requester id lost arbitration so far (stall attribution). */
	uint64_t (*conflicts)(const void *t, int id);
	/* Functional bytes at addr, for targets whose space is not one flat
	 * array (info.data NULL: the remote scratchpads). */
	uint8_t *(*bytes)(void *t, uint64_t addr);
	/* Fast-forward mode (see above); NULL: none. */
	const struct mem_ff_ops *ff;
};

/* A memory as the chip hands it to a requester: behaviour + object. */
struct mem_target {
	const struct mem_target_ops *ops; /* NULL: nothing there */
	void *obj;                        /* the model (sram *, dram *, ...) */
};

/* A requester's end of one binding. */
struct mem_port {
	struct mem_target t;  /* bound target (t.ops NULL = unbound) */
	int id;               /* requester id at the target */
	mem_retry_fn retry;   /* after mem_want_retry (NULL: never asked) */
	void *retry_ctx;      /* its context */
};

/*
 * Bind p to t as requester 'name' (attach; the order of binds on one SRAM
 * is its fixed arbitration priority).  An unbound target (t.ops NULL)
 * leaves p unbound and returns 0: sending through it is a caller bug,
 * mem_bound() tells.  Returns 0 or NPU_E*.
 */
int mem_bind(struct mem_port *p, struct mem_target t, const char *name,
	     mem_retry_fn retry, void *retry_ctx) NPU_WUR;

static inline int mem_bound(const struct mem_port *p)
{
	return p->t.ops != NULL;
}

/* Send r through p: MEM_OK, MEM_RETRY or NPU_E*. */
static inline int mem_send(struct mem_port *p, const struct mem_req *r)
{
	return p->t.ops->recv(p->t.obj, p, r);
}

/* Ask for one p->retry call once the target has room (MEM_RETRY). */
int mem_want_retry(struct mem_port *p) NPU_WUR;

/* The target's name, contents, size and fixed latency. */
void mem_info(const struct mem_port *p, struct mem_info *out);
/* See mem_target_ops.check; a target without one checks only the size. */
int mem_check(const struct mem_port *p, struct diag *d, const char *who,
	      uint64_t pc, uint64_t addr, uint64_t bytes,
	      unsigned align) NPU_WUR;
/* See mem_target_ops.channel_of; a target without channels is channel 0
 * on no node, to the end of the address space. */
static inline int mem_channel_of(const struct mem_port *p, uint64_t addr,
				 int *node, uint64_t *end)
{
	if (!p->t.ops->channel_of) {
		*node = -1;
		*end = UINT64_MAX;
		return 0;
	}
	return p->t.ops->channel_of(p->t.obj, addr, node, end);
}
/* See mem_target_ops.alone_cycles; 1 when the target does not say. */
uint32_t mem_alone_cycles(const struct mem_port *p, uint64_t addr,
			  uint32_t bytes);
/* See mem_target_ops.conflicts; 0 when the target has no arbiter. */
uint64_t mem_conflicts(const struct mem_port *p);
/* Functional bytes at addr: info->data + addr, or the target's bytes op. */
uint8_t *mem_bytes(const struct mem_port *p, const struct mem_info *info,
		   uint64_t addr);

/*
 * Fast-forward mode (the top comment).  mem_has_ff: the target has it;
 * the other calls need a port whose target has it, except mem_ff_quiet,
 * which is 0 without it (nothing may be skipped there).  Requester ids
 * are the ports' own (mem_ff_cycle takes those of several ports bound to
 * this one target: mem_same_target).  Inline: a fast-forward may check
 * and apply cycle after cycle (gemm_os 1024x1280x128, timing only:
 * 120,636 mem_ff_cycle calls).
 */
static inline int mem_has_ff(const struct mem_port *p)
{
	return p->t.ops->ff != NULL;
}

static inline int mem_ff_quiet(const struct mem_port *p)
{
	return p->t.ops->ff && p->t.ops->ff->quiet(p->t.obj);
}

static inline int mem_ff_cycle(const struct mem_port *p, const int *ids,
			       const struct mem_req *r, int n, int apply)
{
	return p->t.ops->ff->cycle(p->t.obj, ids, r, n, apply);
}

static inline int mem_ff_stream(const struct mem_port *p, uint64_t addr,
				int64_t stride, uint32_t bytes, uint64_t n,
				int write, cycle_t t0, cycle_t every)
{
	return p->t.ops->ff->stream(p->t.obj, p->id, addr, stride, bytes, n,
				    write, t0, every);
}

static inline int mem_ff_chain(const struct mem_port *p, uint64_t k,
			       const struct mem_req *add, cycle_t *done)
{
	return p->t.ops->ff->chain(p->t.obj, p->id, k, add, done);
}

static inline const struct unit *mem_ff_unit(const struct mem_port *p)
{
	return p->t.ops->ff->unit(p->t.obj);
}

/* 1 if p and q are bound to the same memory (their accesses meet there). */
static inline int mem_same_target(const struct mem_port *p,
				  const struct mem_port *q)
{
	return p->t.obj == q->t.obj;
}

#endif
