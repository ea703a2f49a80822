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

/*
 * Partitions: the cores cut into n consecutive groups of sizes[i] cores
 * (summing to the chip's).  Each is a chip of its own to the programs it
 * runs: `csrr coreid` counts from its first core, `ncores` is its size,
 * barriers meet within it, rsig targets and a DMA's remote cores and
 * dmask bits are its indices (docs/isa.md, "Partitions").  The default is
 * one partition of every core.  Between phases only.  0 or NPU_E*.
 */
int chip_set_partitions(struct chip *c, int n, const int *sizes,
			struct diag *d) NPU_WUR;
/* Cores of partition part (and its first core in *base); 0 if none. */
int chip_partition(const struct chip *c, int part, int *base);

/*
 * Launches within a phase: a launcher starts programs on partitions
 * while others run, as a command processor would (a pipeline's stages,
 * each on its partition).  It is called from the chip's command-processor
 * events, with kind
 *   CHIP_DONE    every core of partition 'part' has finished its program
 *                (at cycle 'when', the latest of their finishes), or
 *   CHIP_SIGNAL  chip_signal's packet with 'tag' reached partition
 *                'part' at cycle 'when';
 * and may call chip_launch and chip_signal.  A non-zero return stops the
 * run with that code.  The phase ends when every core has finished and
 * nothing more is launched.
 */
enum { CHIP_DONE, CHIP_SIGNAL };
typedef int (*chip_launch_fn)(void *ctx, int kind, int part, uint32_t tag,
			      cycle_t when);
int chip_set_launcher(struct chip *c, chip_launch_fn fn, void *ctx) NPU_WUR;
/* Start img on every core of partition part (all finished) at cycle
 * when (>= now): its state reset and data loaded as chip_load_program
 * does; img must outlive the chip.  0 or NPU_E* (reported in d). */
int chip_launch(struct chip *c, int part, const struct prog_image *img,
		cycle_t when, struct diag *d) NPU_WUR;
/* Send a one-flit sync packet from partition from's first core to
 * partition to's (class sync, docs/noc.md); the launcher gets CHIP_SIGNAL
 * with tag when it arrives.  0 or NPU_E*. */
int chip_signal(struct chip *c, int from, int to, uint32_t tag) NPU_WUR;
eng *chip_eng(const struct chip *c);

#endif
