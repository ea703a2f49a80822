/*
 * chip.h - a whole chip built from a config: cores (control unit, matrix
 * engine, vector unit, DMA engines, scratchpad, accumulator), DRAM, and the
 * chip-wide services the cores share (barrier, remote signals).
 *
 * Typical use (cli/cmd_run.c):
 *   chip_new -> chip_load_program -> (write input tensors through
 *   chip_mem) -> chip_run -> (read outputs) -> chip_dump -> chip_free
 */
#ifndef NPU_CHIP_H
#define NPU_CHIP_H

#include <stdint.h>

#include "../arch/arch.h"
#include "../util/diag.h"
#include "engine/counters.h"
#include "engine/engine.h"
#include "core/tile.h"

struct obj_prog;
struct trc;
struct chip;

struct chip_opts {
	cycle_t max_cycles;      /* watchdog (CYCLE_MAX = none) */
	int check_hazards;       /* run the hazard checker */
	int trace_insns;         /* print every control-unit instruction */
	struct trc *trace;       /* Chrome trace writer, or NULL */
};

struct chip_result {
	cycle_t cycles;          /* cycle at which the last core finished */
	uint64_t n_events;       /* engine events dispatched */
	int n_hazards;           /* hazards reported (with --check-hazards) */
};

struct chip *chip_new(const struct arch *a, const struct chip_opts *o,
		      struct diag *d);
void chip_free(struct chip *c);

/* Load code and initialised data into every core (SPMD: same program). */
int chip_load_program(struct chip *c, const struct obj_prog *p,
		      struct diag *d) NPU_WUR;

/*
 * Host view of a memory: base pointer and size of DRAM (core ignored),
 * core's scratchpad, accumulator, or scalar memory (MEM_DATA).
 */
uint8_t *chip_mem(struct chip *c, int space, int core, uint64_t *size);
/* Scalar register r of a core (tests, end-of-run dumps); 0 if no such core. */
uint64_t chip_reg(const struct chip *c, int core, int r);

int chip_run(struct chip *c, struct chip_result *r) NPU_WUR;

/* All counters: per core and unit, then DRAM channels. */
void chip_dump(const struct chip *c, struct ctr_sink *s);

/* Services for the control units. */
int chip_n_cores(const struct chip *c);
eng *chip_eng(const struct chip *c);
struct diag *chip_diag(const struct chip *c);
/* A core reached a barrier; 0 or NPU_E*.  Releases all when the last comes. */
int chip_barrier_arrive(struct chip *c, int core) NPU_WUR;
/* Deliver sem += 1 on core 'to' (latency by NoC distance). */
int chip_remote_signal(struct chip *c, int from, int to, int sem) NPU_WUR;
/* A core finished (halted and drained). */
void chip_core_finished(struct chip *c, int core);
int chip_trace_insns(const struct chip *c);
/* The loaded program (labels for --trace-insn), or NULL. */
const struct obj_prog *chip_program(const struct chip *c);
/* The watchdog (chip_opts.max_cycles): no instruction issues after it. */
cycle_t chip_max_cycles(const struct chip *c);

#endif
