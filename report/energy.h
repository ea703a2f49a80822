/*
 * energy.h - counters to energy: per-event energies of the config
 * (energy.* keys, arch/params.def) times the counts in a counter sink, and
 * static power times time.  docs/energy.md gives every formula and the
 * sources of the bundled configs' numbers.
 */
#ifndef NPU_ENERGY_H
#define NPU_ENERGY_H

#include <stdint.h>

#include "../arch/arch.h"
#include "../sim/engine/counters.h"

/* What the energy is spent on, in output order. */
#define ENERGY_PARTS(P)                                                  \
	P(MAC,           "mac")            /* macs_<type> x mac_pj_<type> */ \
	P(VECTOR,        "vector")         /* vector ops x vector_op_pj */   \
	P(SRAM_READ,     "sram_read")      /* SRAM read bytes */             \
	P(SRAM_WRITE,    "sram_write")     /* SRAM write bytes */            \
	P(DRAM_READ,     "dram_read")      /* DRAM read bytes */             \
	P(DRAM_WRITE,    "dram_write")     /* DRAM write bytes */            \
	P(DRAM_ACTIVATE, "dram_activate")  /* row activations */             \
	P(NOC,           "noc")            /* flit-hops */                   \
	P(STATIC,        "static")         /* static power x time */

enum energy_part {
#define ENERGY_ENUM(id, name) ENERGY_##id,
	ENERGY_PARTS(ENERGY_ENUM)
#undef ENERGY_ENUM
	ENERGY_N_PARTS
};

extern const char *const energy_part_names[ENERGY_N_PARTS];

struct energy {
	double pj[ENERGY_N_PARTS]; /* by part */
	double total_pj;           /* their sum */
	double avg_power_w;        /* total over the time of 'cycles'; 0 if no time */
};

/*
 * The energy of the counters in s over 'cycles' cycles of the core clock
 * (the run, or a region's cycles).  Counters are taken by the id their
 * entries carry (struct ctr_entry.id), never by name, so a renamed
 * counter cannot silently cost nothing; only each unit's own counters
 * have one ("core0.scratchpad.read_bytes", not its per-bank or
 * per-requester breakdowns, which repeat the same bytes).  Static power
 * is the whole chip's for the whole 'cycles'.
 */
void energy_of(const struct arch *a, const struct ctr_sink *s, uint64_t cycles,
	       struct energy *e);

#endif
