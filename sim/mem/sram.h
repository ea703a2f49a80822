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
 * A requestor presents one access at a time: its next access competes from
 * the cycle after the previous one's last grant at the earliest.  Bank
 * arbitration of cycle t happens at EV_PRI_ARB of t; an access issued for t
 * after that (from a later-priority event) competes from t+1.  The model
 * costs events per access, not per cycle: only cycles in which two
 * requestors want the same bank are resolved one by one (docs/memory.md).
 *
 * The functional contents are a flat byte array (sram_data); a model reads
 * or writes the bytes of an access when that access completes (reads: at
 * grant is equivalent since grants are ordered).
 */
#ifndef NPU_SRAM_H
#define NPU_SRAM_H

#include <stdint.h>

#include "../../util/diag.h"
#include "../engine/counters.h"
#include "../engine/engine.h"
#include "port.h"

typedef struct sram sram;

enum sram_arb { SRAM_ARB_RR = 0, SRAM_ARB_FIXED = 1 };

struct sram_geom {
	uint64_t bytes;     /* capacity */
	int banks;          /* number of banks */
	int bank_width;     /* bytes per bank word */
	int ports;          /* words per bank per cycle */
	int latency;        /* grant -> completion, cycles */
	enum sram_arb arb;  /* arbitration policy */
	int index;          /* instance on its core (0 scratchpad, 1
			       accumulator): names its trace track */
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

/*
 * Range and alignment check with the standard runtime fault message:
 * "core N pc 0x.. cycle N: error: <who>: <memory> access [0x..,0x..) ..."
 * naming the memory's valid range (or the required alignment).  'align' is
 * a power of two (1 = any).  d may be NULL (code only).  Returns 0 or
 * NPU_EFAULT.
 */
int sram_check_access(const sram *s, struct diag *d, const char *who,
		      uint64_t pc, uint64_t addr, uint64_t bytes,
		      unsigned align) NPU_WUR;

/*
 * Cycles from first to last grant of an access of 'bytes' at 'addr' when
 * nobody else uses the memory: the largest number of its words that fall in
 * one bank, divided by ports, rounded up.  A lone access issued for cycle t
 * completes at t + sram_alone_cycles() - 1 + latency.
 */
uint32_t sram_alone_cycles(const sram *s, uint64_t addr, uint32_t bytes);

/*
 * Fast-forward of uncontended accesses (the matrix engine's streams, when
 * eng_horizon says nobody else can act).  sram_quiet: 1 if no requestor
 * has an access presented to the banks.  sram_ff_access: account an
 * access of requestor req issued for cycle t, with no other access of the
 * memory wanting its banks at t and taking one cycle alone, exactly as the
 * per-cycle model would have by t + latency (counters, round-robin
 * pointers, the requestor's position and last grant) but with no event and
 * no callback: the caller applies the completion itself.  NPU_EINTERNAL
 * if the requestor still has an access in flight or t is not after its
 * last grant and the last arbitration pass, or the access takes more than
 * one cycle.
 */
int sram_quiet(const sram *s);
int sram_ff_access(sram *s, int req, uint64_t addr, uint32_t bytes,
		   int write, cycle_t t) NPU_WUR;
/*
 * n such accesses of requestor req in cycles t0, t0 + every, t0 + 2 every,
 * ...: access j is 'bytes' at addr + j * stride (stride may be negative),
 * and no other requestor's access wants a bank of the memory in those
 * cycles.
 */
int sram_ff_stream(sram *s, int req, uint64_t addr, int64_t stride,
		   uint32_t bytes, uint64_t n, int write, cycle_t t0,
		   cycle_t every) NPU_WUR;

/*
 * A lone requestor's queue of accesses of several cycles each, running
 * back to back (a free head, successors issued before they can start):
 * moved on by k accesses, add[0..k) joining it, as the per-cycle model
 * moves it; k = 0 checks the state and gives the head's completion cycle.
 * Latency 1 only.  MEM_RETRY if it is not such a queue.
 */
int sram_ff_chain(sram *s, int req, uint64_t k, const struct mem_req *add,
		  cycle_t *done) NPU_WUR;

/* Name a requestor was registered with ("matrix"), NULL if out of range. */
const char *sram_requestor_name(const sram *s, int req);
int sram_n_requestors(const sram *s);
/*
 * The memory as a target of the transaction protocol (port.h): requesters
 * bind ports to it (one requester id per port) and send through them;
 * it never refuses (MEM_RETRY is never returned).
 */
struct mem_target sram_target(sram *s);

/* The memory's unit (counters, name "core0.scratchpad"). */
struct unit *sram_unit(sram *s);

/*
 * Per-bank and per-requestor counters (also emitted by the unit's dump op as
 * <name>.bankB.{reads,writes,conflicts} and
 * <name>.req.<requestor>.{reads,writes,read_bytes,write_bytes,conflicts}).
 * Bank reads/writes count words (one port grant each); bank conflicts count
 * (requestor, cycle) pairs that wanted a word of the bank and were refused a
 * port.  Requestor reads/writes count accesses; requestor conflicts count
 * cycles in which it was refused at least one bank.
 */
enum sram_stat { SRAM_ST_READS, SRAM_ST_WRITES, SRAM_ST_CONFLICTS,
		 SRAM_ST_READ_BYTES, SRAM_ST_WRITE_BYTES, SRAM_N_ST };
uint64_t sram_bank_stat(const sram *s, int bank, enum sram_stat st);
uint64_t sram_req_stat(const sram *s, int req, enum sram_stat st);

#endif
