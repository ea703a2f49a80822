/*
 * control.h - the per-core control unit: runs the program in order,
 * executes scalar instructions, and dispatches tile instructions into the
 * in-order queues of the execution units (matrix, vector, each DMA engine).
 *
 * Creation is two-phase because the execution units need the control unit's
 * listener when they are built: ctl_new(), then the units with
 * ctl_listener(), then ctl_attach() with their ports, then ctl_start().
 */
#ifndef NPU_CONTROL_H
#define NPU_CONTROL_H

#include <stddef.h>
#include <stdint.h>

#include "../../arch/arch.h"
#include "../../isa/isa.h"
#include "../../prog/prog.h"
#include "../engine/engine.h"
#include "tile.h"

struct hz;
struct prog_symbolizer;

/* One execution unit as the control unit sees it; index = sync unit id. */
struct ctl_xu {
	struct unit *u;             /* the unit */
	const struct xu_port *port; /* how to drive it */
};

/* The program as the control unit runs it: pre-decoded code. */
struct ctl_prog {
	const struct isa_insn *insns; /* decoded instructions, one per word */
	const uint8_t *legal;         /* 1 if the word decoded, per insn */
	const uint32_t *words;        /* raw words (for fault messages) */
	size_t n;                     /* number of instructions */
	const struct prog_symbolizer *sym; /* labels for --trace-insn, or
					      NULL */
	char *const *regions;         /* region names, index = rbeg/rend id
					 (the image's table; not owned) */
	size_t n_regions;             /* entries */
};

/* Deepest nesting of program regions on one core (rbeg faults beyond). */
#define CTL_MAX_REGION_DEPTH 16

/*
 * The chip-wide services a control unit calls: the one small interface
 * between a core and the rest of the chip (sim/chip.c implements it today
 * with fixed latencies; the NoC model carries the same calls over the
 * network).  Each returns 0 or NPU_E* (core_finished cannot fail).
 */
struct ctl_sync_ops {
	/* The core reached a barrier (released by ctl_barrier_release). */
	int (*barrier_arrive)(void *ctx, int core);
	/* Deliver sem += 1 on core 'to' (by ctl_remote_signal, later). */
	int (*remote_signal)(void *ctx, int from, int to, int sem);
	/* The core halted and every one of its units drained. */
	void (*core_finished)(void *ctx, int core);
};

struct ctl_sync {
	const struct ctl_sync_ops *ops; /* the services */
	void *ctx;                      /* their context (the chip) */
};

/* Everything a control unit needs from its chip, given when it is built. */
struct ctl_params {
	int core;                /* this core's index */
	int n_cores;             /* cores on the chip (csrr ncores, rsig) */
	int trace_insns;         /* print every instruction to stderr */
	cycle_t max_cycles;      /* watchdog: no instruction issues later */
	struct ctl_sync sync;    /* chip-wide services */
};

struct unit *ctl_new(eng *e, const struct arch *a,
		     const struct ctl_params *p);
/* Listener the execution units notify. */
struct tile_listener ctl_listener(struct unit *ctl);
/* Hand over the execution units (xus[i] has sync unit id i). */
int ctl_attach(struct unit *ctl, const struct ctl_xu *xus, int n_xu) NPU_WUR;
/*
 * Install a program and reset the architectural state (registers, pc,
 * semaphores, configuration registers, scalar data memory) for it; before
 * ctl_start, and between programs only when the previous one finished.
 * 0 or NPU_EINTERNAL (core still running).
 */
int ctl_set_program(struct unit *ctl, const struct ctl_prog *prog) NPU_WUR;
/*
 * The core's partition: cores base .. base + size - 1 of the chip, which
 * its program sees as a chip of its own (csrr coreid counts from base,
 * ncores is size, rsig targets are partition indices; sim/chip.c keeps
 * barriers within it).  Default: the whole chip.  Between programs only.
 */
void ctl_set_partition(struct unit *ctl, int base, int size);
/* Optional hazard checker (NULL = off). */
void ctl_set_hazard(struct unit *ctl, struct hz *hz);
/* Schedule the program's first instruction at cycle t (>= now). */
int ctl_start(struct unit *ctl, cycle_t t) NPU_WUR;

/* Scalar data memory of the core (for loading .data and reading back). */
uint8_t *ctl_smem(struct unit *ctl);
size_t ctl_smem_size(const struct unit *ctl);
/* Register value (tests, end-of-run dumps). */
uint64_t ctl_reg(const struct unit *ctl, int r);
/* 1 once the core halted and every unit drained. */
int ctl_finished(const struct unit *ctl);
/* Where a core is mid-run (cycle limit, interrupt, progress line): its
 * pc, and whether it issues, waits (semaphore, queue space, fence,
 * barrier, or halted with units still draining) or is done. */
enum ctl_where { CTL_RUNNING, CTL_WAITING, CTL_DONE };
enum ctl_where ctl_where(const struct unit *ctl, uint64_t *pc);
/* Cycle at which the core finished (valid when ctl_finished). */
cycle_t ctl_finish_cycle(const struct unit *ctl);
/* Entries waiting in the queue of sync unit id (1 matrix, 2 vector,
 * 3 + k DMA engine k); 0 for other ids (trace counters). */
int ctl_queue_len(const struct unit *ctl, int id);

/*
 * 1 if the control unit executes op by itself through a handler of its
 * dispatch table (the rows of units ctl and cfg in isa/opcodes.def).
 */
int ctl_executes(enum isa_op op);

/*
 * Program regions of a core (rbeg/rend), accumulated over every program
 * the core ran, one per distinct name in order of first appearance in
 * the programs' region tables.  ctl_region reads region k: name (the
 * image's string), entries, cycles and counters (ctl_region_scope(ctl)->n
 * values into ctr, in the scope's slot order).  A region still open (a
 * paused or failed run) counts as if it closed now, without changing it.
 */
struct ctl_region_info {
	const char *name;        /* region name (not owned) */
	uint64_t entries;        /* times it was entered */
	uint64_t cycles;         /* sum of (close - open) */
};
int ctl_n_regions(const struct unit *ctl);
const struct ctr_scope *ctl_region_scope(const struct unit *ctl);
void ctl_region(const struct unit *ctl, int k, struct ctl_region_info *ri,
		uint64_t *ctr);

/* The chip's side of struct ctl_sync_ops (called by sim/chip.c). */
int ctl_remote_signal(struct unit *ctl, int sem, cycle_t when) NPU_WUR;
int ctl_barrier_release(struct unit *ctl) NPU_WUR;

#endif
