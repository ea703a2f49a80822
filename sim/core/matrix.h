/*
 * matrix.h - the systolic matrix engine of one core (R x C PEs, WS / OS /
 * IS dataflows), driven by the control unit through struct xu_port with
 * struct mtx_cmd commands (tile.h).
 *
 * Two models with identical observable behaviour (values, SRAM request
 * stream, stalls, cycle counts), chosen by core.matrix.model:
 *   fast  the default: array timing from the per-fold formulas, events per
 *         operand/result row, values computed per row from the operands;
 *   pe    the reference: every PE's registers, every operand moving one hop
 *         per cycle (slow; an oracle for tests).
 *
 * Operand layout (docs/timing.md, "Operand layout"): the engine reads and
 * writes whole stored rows, and each stored row is the vector one edge of
 * the array consumes or produces in one cycle:
 *   WS  A: M rows of K (row-major A)   B: K rows of N   C: M rows of N
 *   OS  A: K rows of M (A transposed)  B: K rows of N   C: M rows of N
 *   IS  A: K rows of M (A transposed)  B: N rows of K   C: N rows of M
 *                                     (B transposed)    (C transposed)
 * Row strides are cmd->u.m.cfg.{a,b,c,out}_stride (0 = dense).  mout
 * converts the accumulator tile in the orientation the same configuration's
 * mmul stores it (IS: N rows of M).
 *
 * Timing (docs/timing.md): with ideal memory, folds back to back and no
 * double-buffering the engine is busy exactly SCALE-Sim's per-fold cycles
 * (WS 2R+C+M-2 per mpre+mmul, IS 2R+C+N-2, OS K+R+C-2 per mmul).
 */
#ifndef NPU_MATRIX_H
#define NPU_MATRIX_H

#include "../../arch/arch.h"
#include "../engine/engine.h"
#include "../mem/port.h"
#include "tile.h"

struct unit;

/*
 * Create the matrix engine of core 'core' ("core<N>.matrix") on the given
 * scratchpad and accumulator; it registers its SRAM requestors
 * ("matrix.left", "matrix.top", "matrix.out" on the scratchpad, "matrix" on
 * the accumulator) and itself with the engine.  l: who to wake when the
 * unit frees queue space or completes a command (may be NULL).
 * Returns NULL when out of memory.
 */
struct unit *mtx_new(eng *e, const struct arch *a, int core,
		     struct mem_target spm, struct mem_target acc,
		     const struct tile_listener *l);

/* The control unit's port into the matrix engine. */
extern const struct xu_port mtx_port;

/*
 * Busy cycles of one fold by the published model (SCALE-Sim, Samajdar et
 * al., ISPASS 2020): what the engine's busy_cycles counter must show for a
 * WS/IS mpre+mmul pair or an OS mmul with ideal memory, pipeline_latency 0
 * and no double-buffering.  df: 0 ws, 1 os, 2 is.
 */
uint64_t mtx_fold_cycles(int df, uint32_t rows, uint32_t cols, uint32_t m,
			 uint32_t k, uint32_t n);

/*
 * Instruction spans: called once per completed instruction with its first
 * busy cycle and completion cycle (NULL = off; tracing via eng_trace() is
 * separate and also costs nothing when off).
 */
typedef void (*mtx_span_fn)(void *ctx, const struct tile_cmd *cmd,
			    cycle_t start, cycle_t end);
void mtx_set_span_hook(struct unit *u, mtx_span_fn fn, void *ctx);

#endif
