/*
 * vector.h - the SIMD vector unit of one core, driven by the control unit
 * through struct xu_port with struct vec_cmd commands (tile.h).
 *
 * L = core.vector.lanes lanes.  An instruction over a ROWS x LEN tile is
 * cut into lane groups of at most L elements of one row; each group reads
 * its operand segments from the scratchpad or accumulator banks through
 * sram_access(), passes the op's pipeline (latency and issue interval from
 * core.vector.latency.* / interval.*), and writes its result segment back
 * through the same arbitration.  A long row therefore takes as many cycles
 * as its bank traffic needs.  Values come from vecmath.c, computed from the
 * bytes each read returned and stored when each write completes.
 * docs/timing.md "Vector unit" has every timing rule.
 */
#ifndef NPU_VECTOR_H
#define NPU_VECTOR_H

#include "../../arch/arch.h"
#include "../../isa/isa.h"
#include "../engine/engine.h"
#include "../mem/port.h"
#include "tile.h"

struct unit;

/*
 * Create the vector unit of core 'core' ("core<N>.vector") on the given
 * scratchpad and accumulator.  It registers four SRAM requestors on each
 * memory ("vector.s1", "vector.s2", "vector.s3" for the source operands,
 * "vector.d" for results) and itself with the engine.  l: who to wake when
 * the unit frees capacity or completes a command (may be NULL).
 * Returns NULL when out of memory.
 */
struct unit *vec_new(eng *e, const struct arch *a, int core,
		     struct mem_target spm, struct mem_target acc,
		     const struct tile_listener *l);

/* The control unit's port into the vector unit. */
extern const struct xu_port vec_port;

/* Where one operand of a vector command lies. */
struct vec_opnd {
	enum isa_vshape shape; /* ISA_VSH_NONE: the op has no such operand */
	enum isa_vetype etype; /* element type column (TYPE, OTYPE, INT32) */
	int type;              /* enum npu_dtype it names */
	int mem;               /* MEM_SPM or MEM_ACC (vset smem / dmem) */
	uint64_t base;         /* byte address of row 0 */
	uint64_t rows;         /* rows */
	uint64_t row_bytes;    /* bytes of one row (int4 rounded up) */
	uint64_t stride;       /* bytes between row starts (vset stride,
				  0 = dense = the row's own bytes) */
};

/*
 * The operands (o[ISA_VS_S1 .. ISA_VS_D]) of a vector command: the shapes
 * of its op's kind (isa/names.def VKIND) applied to the command's vset
 * snapshot and addresses.  The vector unit bound-checks and interlocks on
 * these, and the hazard checker records them, so both see the same bytes.
 * ISA_VSH_INDEXED operands start at base and are bounded only by the end
 * of the memory; their rows, row_bytes and stride are those of a tile.
 */
void vec_operands(const struct tile_cmd *cmd, struct vec_opnd o[ISA_N_VSLOTS]);

#endif
