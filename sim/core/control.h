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
#include "../engine/engine.h"
#include "tile.h"

struct chip;
struct hz;

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
};

struct unit *ctl_new(eng *e, const struct arch *a, struct chip *chip,
		     int core, const struct ctl_prog *prog);
/* Listener the execution units notify. */
struct tile_listener ctl_listener(struct unit *ctl);
/* Hand over the execution units (xus[i] has sync unit id i). */
int ctl_attach(struct unit *ctl, const struct ctl_xu *xus, int n_xu) NPU_WUR;
/* Install the program (before ctl_start). */
void ctl_set_program(struct unit *ctl, const struct ctl_prog *prog);
/* Optional hazard checker (NULL = off). */
void ctl_set_hazard(struct unit *ctl, struct hz *hz);
/* Schedule the first instruction at cycle 0. */
int ctl_start(struct unit *ctl) NPU_WUR;

/* Scalar data memory of the core (for loading .data and reading back). */
uint8_t *ctl_smem(struct unit *ctl);
size_t ctl_smem_size(const struct unit *ctl);
/* Register value (tests, end-of-run dumps). */
uint64_t ctl_reg(const struct unit *ctl, int r);
/* 1 once the core halted and every unit drained. */
int ctl_finished(const struct unit *ctl);
/* Cycle at which the core finished (valid when ctl_finished). */
cycle_t ctl_finish_cycle(const struct unit *ctl);

/*
 * 1 if the control unit executes op by itself through a handler of its
 * dispatch table (the rows of units ctl and cfg in isa/opcodes.def).
 */
int ctl_executes(enum isa_op op);

/* Chip-level services used by chip.c. */
int ctl_remote_signal(struct unit *ctl, int sem, cycle_t when) NPU_WUR;
int ctl_barrier_release(struct unit *ctl) NPU_WUR;

#endif
