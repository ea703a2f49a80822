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
#include "engine.h"

typedef struct dram dram;

/* Called at the completion cycle of a request (EV_PRI_COMPLETE). */
typedef int (*dram_done_fn)(void *ctx, uint64_t tag, cycle_t when);

/* Registers one unit per channel ("dram.ch0") with the engine. */
dram *dram_new(eng *e, const struct arch *a);
uint8_t *dram_data(dram *d);
uint64_t dram_size(const dram *d);

/*
 * Queue a request at the current cycle.  Returns 0, or NPU_EAGAIN-like
 * DRAM_FULL when the target channel's queue is full: then the caller waits
 * for its 'retry' callback (called once a slot frees) and tries again.
 */
#define DRAM_FULL 1
int dram_request(dram *d, uint64_t addr, uint32_t bytes, int write,
		 dram_done_fn done, void *ctx, uint64_t tag) NPU_WUR;
/* One retry hook per requestor context; called when any queue frees. */
int dram_on_space(dram *d, dram_done_fn retry, void *ctx) NPU_WUR;

/* Peak bytes/s of all channels (for reports). */
double dram_peak_bytes_per_s(const dram *d);

#endif
