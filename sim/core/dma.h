/*
 * dma.h - descriptor-driven DMA engines (strided 1-4D transfers between
 * DRAM, scratchpad and accumulator).
 *
 * Each engine is a unit ("core0.dma1") driven by the control unit through
 * the xu_port protocol of tile.h with struct dma_desc commands.  It holds
 * up to core.dma.queue_depth descriptors (the one in progress included),
 * runs them one after another, splits each into bursts of at most
 * core.dma.burst_bytes at contiguity boundaries and keeps at most
 * core.dma.max_outstanding bursts in flight.  SRAM accesses go through the
 * memory's bank arbitration as requestor "dma<engine>"; DRAM requests
 * through dram_request with its back-pressure.  Bytes move functionally:
 * a burst's source bytes are read when its read completes, its destination
 * written when its write completes.  docs/timing.md ("DMA") has the rules.
 */
#ifndef NPU_DMA_H
#define NPU_DMA_H

#include "../../arch/arch.h"
#include "../engine/engine.h"
#include "../mem/port.h"
#include "tile.h"

/*
 * Create engine 'engine' of core 'core' and register it with the engine
 * (the engine frees it).  mems[space] is the memory it reaches for each
 * enum mem_space (ops NULL: not reachable, a descriptor naming it faults);
 * it binds one port to each, as requester "dma<engine>".  l is told whenever a
 * descriptor completes (which also frees a queue slot).  NULL if out of
 * memory.
 */
struct unit *dma_new(eng *e, const struct arch *a, int core, int engine,
		     const struct mem_target mems[MEM_N_SPACES],
		     const struct tile_listener *l);

extern const struct xu_port dma_port;

/*
 * The core's partition (ctl_set_partition): a descriptor's remote core
 * (src_core, dst_core) and dmask bits are partition indices, core
 * base + i of the chip; one past size faults.  Between programs only.
 */
void dma_set_partition(struct unit *dma, int base, int size);

/* Bytes per second moved while busy (bytes / busy cycles x clock). */
double dma_bandwidth(const struct unit *u);

#endif
