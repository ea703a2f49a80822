/*
 * energy.h - counters to energy: per-event energies of the config
 * (energy.* keys, arch/params.def) times the counts in a counter sink, and
 * static power times time.  docs/energy.md gives every formula and the
 * sources of the bundled configs' numbers.
 */
#ifndef NPU_ENERGY_H
#define NPU_ENERGY_H

#include <stdint.h>
#include <stdio.h>

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

/*
 * What the counters cost, declared once: C(counter, part, key) - every
 * count of the counters.def row CTR_<counter> costs the params.def key
 * P_<key> (pJ) towards part.  Counters not listed cost nothing (the
 * int32 MAC counter among them: the array takes no int32 operands).
 * energy_of reads it by counter id; docs/energy.md's formula table is
 * written from it (energy_write_doc).
 */
#define ENERGY_COSTS(C)                                    \
	C(MATRIX_MACS_INT4,    MAC,           EN_MAC_INT4)    \
	C(MATRIX_MACS_INT8,    MAC,           EN_MAC_INT8)    \
	C(MATRIX_MACS_INT16,   MAC,           EN_MAC_INT16)   \
	C(MATRIX_MACS_FP8E4M3, MAC,           EN_MAC_FP8E4M3) \
	C(MATRIX_MACS_FP8E5M2, MAC,           EN_MAC_FP8E5M2) \
	C(MATRIX_MACS_FP16,    MAC,           EN_MAC_FP16)    \
	C(MATRIX_MACS_BF16,    MAC,           EN_MAC_BF16)    \
	C(MATRIX_MACS_FP32,    MAC,           EN_MAC_FP32)    \
	C(VECTOR_OPS,          VECTOR,        EN_VEC_OP)      \
	C(SRAM_READ_BYTES,     SRAM_READ,     EN_SRAM_RD)     \
	C(SRAM_WRITE_BYTES,    SRAM_WRITE,    EN_SRAM_WR)     \
	C(DRAM_READ_BYTES,     DRAM_READ,     EN_DRAM_RD)     \
	C(DRAM_WRITE_BYTES,    DRAM_WRITE,    EN_DRAM_WR)     \
	C(DRAM_ACTIVATES,      DRAM_ACTIVATE, EN_DRAM_ACT)    \
	C(NOC_HOPS,            NOC,           EN_NOC)

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

/* docs/energy.md (`mkdoc energy`): the formula table from ENERGY_COSTS
 * and the static power's terms, with the prose around them. */
void energy_write_doc(FILE *fp);

#endif
