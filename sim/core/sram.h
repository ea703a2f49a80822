/*
 * sram.h - banked scratchpad / accumulator memory with per-cycle arbitration.
 *
 * Address-to-bank mapping: word w = addr / bank_width lives in bank
 * w % banks (consecutive bank_width-byte words interleave across banks).
 * An access of 'bytes' at 'addr' touches each word it overlaps; a bank
 * serves at most 'ports' words per cycle.  Requestors (matrix, vector, each
 * DMA engine, ...) are registered with names; each issues accesses in
 * order.  When more requests want a bank in a cycle than it has ports, the
 * arbiter (round-robin or fixed priority by requestor id, lower id wins)
 * grants some and the rest wait, one bank-conflict cycle per waiting cycle.
 * An access completes 'latency' cycles after its last word was granted.
 *
 * The functional contents are a flat byte array (sram_data); a model reads
 * or writes the bytes of an access when that access completes (reads: at
 * grant is equivalent since grants are ordered).
 */
#ifndef NPU_SRAM_H
#define NPU_SRAM_H

#include <stdint.h>

#include "counters.h"
#include "engine.h"

typedef struct sram sram;

enum sram_arb { SRAM_ARB_RR = 0, SRAM_ARB_FIXED = 1 };

struct sram_geom {
	uint64_t bytes;     /* capacity */
	int banks;          /* number of banks */
	int bank_width;     /* bytes per bank word */
	int ports;          /* words per bank per cycle */
	int latency;        /* grant -> completion, cycles */
	enum sram_arb arb;  /* arbitration policy */
};

/* Called when an access completes (at EV_PRI_COMPLETE of cycle 'when'). */
typedef int (*sram_done_fn)(void *ctx, uint64_t tag, cycle_t when);

/* name: "core0.scratchpad"; the sram registers itself as a unit. */
sram *sram_new(eng *e, int core, const char *name, const struct sram_geom *g);
/* Register a requestor; returns its id (order = fixed priority). */
int sram_add_requestor(sram *s, const char *name) NPU_WUR;

uint8_t *sram_data(sram *s);
uint64_t sram_size(const sram *s);
const struct sram_geom *sram_geom(const sram *s);

/*
 * Issue an access for requestor 'req' to start competing at cycle 'when'
 * (>= now).  The caller must have checked the range (sram_check_range).
 * done(ctx, tag, t) is called at the completion cycle.  Accesses of one
 * requestor are served in issue order.  Returns 0 or NPU_ENOMEM.
 */
int sram_access(sram *s, int req, uint64_t addr, uint32_t bytes, int write,
		cycle_t when, sram_done_fn done, void *ctx, uint64_t tag) NPU_WUR;

/* 0 if [addr, addr+bytes) lies inside the memory, else NPU_EFAULT. */
int sram_check_range(const sram *s, uint64_t addr, uint64_t bytes);

#endif
