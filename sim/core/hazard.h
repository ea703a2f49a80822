/*
 * hazard.h - the schedule hazard checker (`npusim run --check-hazards`).
 *
 * Finds pairs of tile instructions on different units that touch the same
 * bytes (read-after-write, write-after-read, write-after-write) with no
 * semaphore, fence, barrier or dispatch ordering between them, whatever the
 * timing happened to be in this run.  The method is that of race detectors
 * (vector clocks, cf. FastTrack, Flanagan & Freund, PLDI 2009): every unit
 * of every core is a thread; edges are
 *   dispatch   control -> unit   (a command, sig or wait queued on a unit
 *                                  cannot take effect before it was queued)
 *   sig/wait   unit -> semaphore -> unit
 *   fence      drained units -> control
 *   barrier    every control unit -> every control unit
 *   rsig       control -> remote semaphore
 *   queue      earlier command -> later command of the same unit
 * and each command's byte ranges are derived from its operands.
 */
#ifndef NPU_HAZARD_H
#define NPU_HAZARD_H

#include <stdint.h>

#include "../../prog/prog.h"
#include "../../util/diag.h"
#include "../engine/engine.h"
#include "tile.h"

struct hz;

/*
 * n_units: sync unit ids per core (1 + matrix + vector + DMA engines).
 * Reports go to d; at most max_reports are printed (all are counted).
 */
struct hz *hz_new(int n_cores, int n_units, struct diag *d, int max_reports);
void hz_free(struct hz *h);
/* The program on 'core', whose symbolizer gives reports their source
 * lines (NULL: pcs only).  Borrowed: it must outlive the checker's use. */
void hz_set_program(struct hz *h, int core, const struct prog_image *p);
int hz_count(const struct hz *h);

/*
 * Also tell fn about every hazard found (printed or not): the core and
 * sync unit id of the later command, the cycle it started and the
 * message as printed.  For the trace (sim/chip.c); NULL = nobody.
 */
typedef void (*hz_report_fn)(void *ctx, int core, int unit, cycle_t when,
			     const char *msg);
void hz_set_report(struct hz *h, hz_report_fn fn, void *ctx);

/* Hooks called by the control unit (unit = sync unit id).  hz_on_dispatch
 * is called for every entry queued on a unit (cmd = NULL for sig/wait). */
void hz_on_dispatch(struct hz *h, int core, int unit,
		    const struct tile_cmd *cmd, cycle_t now);
void hz_on_start(struct hz *h, int core, int unit, const struct tile_cmd *cmd,
		 cycle_t now);
void hz_on_signal(struct hz *h, int core, int unit, int sem, cycle_t now);
void hz_on_wait(struct hz *h, int core, int unit, int sem, cycle_t now);
void hz_on_fence(struct hz *h, int core, uint32_t mask, cycle_t now);
void hz_on_barrier(struct hz *h, cycle_t now);
/* An rsig leaves from_core now and is delivered to to_core at cycle 'when'
 * (its history joins the semaphore only then: hz_on_remote_signal). */
void hz_on_remote_send(struct hz *h, int from_core, int to_core, int sem,
		       cycle_t when);
void hz_on_remote_signal(struct hz *h, int core, int sem, cycle_t now);

#endif
