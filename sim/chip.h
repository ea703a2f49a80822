/*
 * chip.h - a whole chip built from a config: cores (control unit, matrix
 * engine, vector unit, DMA engines, scratchpad, accumulator), DRAM, and the
 * chip-wide services the cores share (barrier, remote signals).
 *
 * Typical use (run/run.c):
 *   chip_new -> chip_load_program[_cores] -> (write input tensors through
 *   chip_mem) -> chip_run -> (read outputs) -> chip_dump -> chip_free
 * and for a second phase: chip_load_program[_cores] -> chip_run again.
 */
#ifndef NPU_CHIP_H
#define NPU_CHIP_H

#include <stdint.h>

#include "../arch/arch.h"
#include "../prog/prog.h"
#include "../util/diag.h"
#include "engine/counters.h"
#include "engine/engine.h"
#include "core/tile.h"

struct trc;
struct chip;

struct chip_opts {
	cycle_t max_cycles;      /* watchdog (CYCLE_MAX = none) */
	int check_hazards;       /* run the hazard checker */
	int trace_insns;         /* print every control-unit instruction */
	struct trc *trace;       /* Chrome trace writer, or NULL */
	cycle_t trace_interval;  /* counter samples every N cycles when
				    tracing (queues, DRAM bandwidth, bank
				    conflicts); 0 = none */
	int timing_only;         /* compute no tensor values: cycles,
				    counters and traces are those of the
				    full run (docs/performance.md,
				    "Timing-only runs"); programs whose timing depends
				    on data are refused when loaded */
	int no_fast_forward;     /* every cycle's events, no fast-forward
				    (eng_set_fast_forward): the same
				    results, for cross-checks */
};

struct chip_result {
	cycle_t cycles;          /* cycle at which the last core finished
				    (absolute: phases continue the clock) */
	cycle_t phase_start;     /* cycle the phase began (0 for the first) */
	int paused;              /* chip_run_until stopped at its cycle */
	uint64_t n_events;       /* engine events dispatched */
	int n_hazards;           /* hazards reported (with --check-hazards) */
};

struct chip *chip_new(const struct arch *a, const struct chip_opts *o,
		      struct diag *d);
void chip_free(struct chip *c);

/*
 * Load a program image into cores lo..hi (code and initialised data: DRAM
 * sections once, per-core sections into each core).  Every core needs a
 * program before a phase starts; the image must outlive the chip.  Between
 * phases, loading replaces a core's program and resets its architectural
 * state; memory contents stay.  0 or NPU_E* (reported in d).
 */
int chip_load_program_cores(struct chip *c, const struct prog_image *p,
			    int lo, int hi, struct diag *d) NPU_WUR;
/* The same for every core (SPMD). */
int chip_load_program(struct chip *c, const struct prog_image *p,
		      struct diag *d) NPU_WUR;
/* The program loaded on a core (labels, source lines), or NULL. */
const struct prog_image *chip_program(const struct chip *c, int core);

/*
 * Host view of a memory: base pointer and size of DRAM (core ignored),
 * core's scratchpad, accumulator, or scalar memory (MEM_DATA).
 */
uint8_t *chip_mem(struct chip *c, int space, int core, uint64_t *size);
/* Scalar register r of a core (tests, end-of-run dumps); 0 if no such core. */
uint64_t chip_reg(const struct chip *c, int core, int r);

/*
 * Run a phase to its end: every core finished (0), or a fault, deadlock or
 * the watchdog (NPU_E*, reported).  Starts a phase when none is running.
 */
int chip_run(struct chip *c, struct chip_result *r) NPU_WUR;
/* Run until cycle 'until' has been simulated, or the phase ends earlier;
 * r->paused tells which.  A paused run continues with another call. */
int chip_run_until(struct chip *c, cycle_t until,
		   struct chip_result *r) NPU_WUR;
/* The simulated cycle the chip has reached. */
cycle_t chip_now(const struct chip *c);

/* All counters: per core and unit, then DRAM channels. */
void chip_dump(const struct chip *c, struct ctr_sink *s);

int chip_n_cores(const struct chip *c);
eng *chip_eng(const struct chip *c);

#endif
